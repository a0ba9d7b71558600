//! bt-faulty: a test engine that plays like bt-random but misbehaves on purpose, to exercise
//! the runner's error handling and the perft checker. Built only with the cargo feature
//! `test-engines`, which `cargo test` turns on (so `cargo install` leaves it out).
//!
//! Usage: `bt-faulty [--fault NAME] [--after N] [--delay-ms MS] [--pawns N] [--bench-nps N]
//! [--score-cp CP] [bench]`; the fault may
//! also come from the environment variable `BT_FAULTY_FAULT` (the flag wins). The faults are
//! the variants of [`Fault`]; `bt-faulty --help` lists them with what each does.
//!
//! Faults planted for `bt-arena check-engine`, each caught by the check named:
//!
//! | fault | behaviour | check |
//! |---|---|---|
//! | `bad-option-line` | declares a malformed option (`option name Hash type spin default 16 min 1`, no `max`) | `handshake.options-parse` |
//! | `option-crash` | exits with status 2 when `Seed` is set to anything but 0 | `handshake.options-settable` |
//! | `moves-cap` | plays only the first 50 moves of a `position ... moves` list | `positions.startpos-moves`, `positions.fen-moves` |
//! | `black-plays-white` | as Black, plays one of White's moves | `positions.black-to-move` |
//! | `move-after-game-over` | in a finished position, moves a pawn instead of `bestmove (none)` | `positions.finished` |
//! | `clock-overrun` | with a clock, thinks for its whole remaining time plus 300 ms | `limits.clock` |
//! | `ignore-depth` | ignores `go depth N` above 1 and searches until `stop` | `limits.depth` |
//! | `ignore-nodes` | ignores `go nodes N` and searches until `stop` | `limits.nodes` |
//! | `infinite-returns` | answers `go infinite` at once instead of waiting for `stop` | `limits.infinite` |
//! | `isready-ends-search` | ends a running search on `isready` (its `bestmove` before `readyok`) | `limits.isready-searching` |
//! | `double-bestmove` | answers every `go` with two `bestmove` lines | `output.bestmove-count` |
//! | `bad-info` | prints `info depth one nodes 20` before its move | `output.info-parse` |
//! | `illegal-pv` | prints a pv that plays its move twice | `output.pv-legal` |
//! | `nodes-decrease` | prints a second `info` with fewer nodes and less time than the first | `output.info-monotone` |
//! | `no-perft` | has no `go perft`: answers it as a plain `go`, with a `bestmove` | `movegen.perft` (skipped) |
//!
//! A mode for `bt-arena tune`'s tests, `tunable`: declares two spin options `KnobA` and `KnobB`
//! (-1000 to 1000, default 0) and plays bt-search's move at depth 2, or, with a probability
//! `1 - exp(-d² / (2 w²))` that grows smoothly with the distance `d` of (KnobA, KnobB) from
//! `(--target-a, --target-b)` (`w` = `--width`), a random legal move: its strength falls
//! smoothly as the knobs leave the target, so SPSA gets a signal everywhere (a step function
//! would give none on its plateaus). With `Seed` set it is deterministic: each new game
//! restarts its draws from the seed (and empties the searcher's table).
//!
//! Without a fault it is a random mover that waits for `stop` after `go infinite` and answers
//! `isready` meanwhile; it prints no `info` lines and is not deterministic.
//!
//! Faults planted for the claims a tournament checks on every move (docs/guide/checks.md):
//! `false-mate` (`score mate 2` in a position the rules prove lost within 6 plies, counted as a
//! false mate claim), `opponent-mate` (`score mate -1` where the opponent cannot win on its
//! next move: a false loss claim) and `illegal-ponder` (its own move again as the ponder
//! move). Each prints `info depth 1 score mate N pv <its move>` before the move.
//!
//! `unclocked-delay` (for the report's latency, wall time less the engine's own time): answers
//! each `go` after `--delay-ms MS` and says `info depth 1 time 0`, so every move of it has a
//! latency of at least MS.
//!
//! Faults whose output answers no request (the runner must never play it; see
//! docs/PROTOCOL.md): `bestmove-before-go` (after the `readyok` that follows each
//! `uginewgame`/`ucinewgame`, prints `bestmove a2a3` before any `go`), `double-bestmove` (above)
//! and `bestmove-on-isready` (prints `bestmove a2a3` before each `readyok`).
//!
//! `bt-faulty bench` is a bench in OpenBench's convention: it counts the reference perft of
//! the start position to depth [`BENCH_PERFT_DEPTH`] and prints `N nodes M nps` (the speed
//! measured, or `--bench-nps N`: a machine of a known speed, for exact tests). The fault
//! `half-nps` reports half that speed: a machine twice as slow, for the tests of
//! `--scale-tc`.
//!
//! `go perft` uses the binary's own naive move generator (correct unless a perft fault is
//! chosen); moves in games come from the reference rules.

use bt_arena::bundled::search::{Limits, Searcher};
use bt_arena::protocol::Score;
use bt_arena::protocol::{
    Command, GoLimits, Info, NO_MOVE, OptionDecl, OptionKind, Protocol, Reply,
};
use bt_arena::rules::proof::{Prover, Verdict};
use bt_arena::rules::{Color, Move, Position, Rules, Square};
use clap::{Parser, ValueEnum};
use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A way to misbehave; named on the command line in kebab-case (`crash-mid-game`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Fault {
    /// Plays a random legal move, like bt-random (the default).
    None,
    /// Writes to stderr and exits with status 3 before reading anything.
    ExitAtStart,
    /// Answers the handshake without `ugiok`/`uciok`.
    NoUgiok,
    /// Never answers `isready`.
    NoReadyok,
    /// Exits with status 2 on the `go` after `--after N` moves.
    CrashMidGame,
    /// Kills itself with SIGTERM on the `go` after `--after N` moves (a signal the runner did
    /// not receive: a crash, not a stop).
    SigtermMidGame,
    /// Hangs on `go`, reading nothing more (not even `quit`).
    NoBestmove,
    /// Hangs on the `go` after `--after N` moves, reading nothing more (not even `quit`).
    HangMidGame,
    /// Answers `go`, `go perft` and `bench` after `--delay-ms MS`.
    Slow,
    /// Answers `go` after `--delay-ms MS` but reports `info depth 1 time 0`: the delay is
    /// outside its own clock, latency the runner measures (the report's latency table).
    UnclockedDelay,
    /// Prints garbage instead of `bestmove`.
    Garbage,
    /// Plays a well-formed illegal move (one of the opponent's).
    IllegalMove,
    /// Plays `z9z0`.
    UnparseableMove,
    /// Prints a 4 MiB `info string` line without pause, then the move.
    HugeLine,
    /// Declares `Rules` as a combo offering only `classic`.
    FixedRules,
    /// Its perft misses captures from or onto the a- and h-files.
    PerftMissingEdgeCapture,
    /// Its perft allows diagonal steps to empty squares under capture-only.
    PerftDiagonalEmpty,
    /// Its perft generates moves in finished positions.
    PerftAfterGameOver,
    /// Its perft generates White's moves when Black is to move with exactly `--pawns N` pawns.
    PerftWrongSide,
    // Faults planted for `bt-arena check-engine` (see the table above).
    /// Declares a malformed option line (a spin without `max`).
    BadOptionLine,
    /// Exits with status 2 when `Seed` is set to anything but 0.
    OptionCrash,
    /// Plays only the first 50 moves of a `position ... moves` list.
    MovesCap,
    /// As Black, plays one of White's moves.
    BlackPlaysWhite,
    /// In a finished position, moves a pawn instead of `bestmove (none)`.
    MoveAfterGameOver,
    /// With a clock, thinks for its whole remaining time plus 300 ms.
    ClockOverrun,
    /// Ignores `go depth N` above 1 and searches until `stop`.
    IgnoreDepth,
    /// Ignores `go nodes N` and searches until `stop`.
    IgnoreNodes,
    /// Answers `go infinite` at once instead of waiting for `stop`.
    InfiniteReturns,
    /// Ends a running search on `isready` (its `bestmove` before `readyok`).
    IsreadyEndsSearch,
    /// Answers every `go` with two `bestmove` lines.
    DoubleBestmove,
    /// Prints `info depth one nodes 20` before its move.
    BadInfo,
    /// Prints a pv that plays its move twice.
    IllegalPv,
    /// Prints a second `info` with fewer nodes and less time than the first.
    NodesDecrease,
    /// Has no `go perft`: answers it as a plain `go`, with a `bestmove`.
    NoPerft,
    /// After the `readyok` that follows each new game, prints `bestmove a2a3` before any `go`.
    BestmoveBeforeGo,
    /// Prints `bestmove a2a3` before each `readyok`.
    BestmoveOnIsready,
    /// Its bench reports half the speed it measured (or was given with `--bench-nps`).
    HalfNps,
    // Faults planted for the claims checked in games (docs/guide/checks.md).
    /// Claims `score mate 2` (a win) in every position the rules prove it lost within 6 plies.
    FalseMate,
    /// Claims `score mate -1` (the opponent's win on its next move) in every position where
    /// the opponent has no such win.
    OpponentMate,
    /// Names its own move again as the ponder move (`bestmove a2a3 ponder a2a3`): illegal.
    IllegalPonder,
    /// Plays bt-search's depth-2 move, or a random one with a probability growing smoothly
    /// with the distance of options KnobA and KnobB from `--target-a`, `--target-b`.
    Tunable,
}

impl Fault {
    /// The fault's name on the command line.
    fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| "?".to_string(), |value| value.get_name().to_string())
    }
}

/// `moves-cap`: how many moves of a `position ... moves` list are played.
const MOVES_CAP: usize = 50;
/// `clock-overrun`: how far past its remaining time it answers.
const CLOCK_OVERRUN: Duration = Duration::from_millis(300);

/// The move of the stray `bestmove` lines of `bestmove-before-go` and `bestmove-on-isready`.
const STRAY_MOVE: &str = "a2a3";

/// The size of the `huge-line` line in bytes.
const HUGE_LINE_BYTES: usize = 4 << 20;

/// A test engine (UGI/UCI) that plays like bt-random but misbehaves on purpose, to exercise
/// bt-arena's error handling and its perft checker.
#[derive(Debug, Parser)]
#[command(name = "bt-faulty", version)]
struct Settings {
    /// How to misbehave.
    #[arg(long, value_enum, env = "BT_FAULTY_FAULT", default_value_t = Fault::None)]
    fault: Fault,
    /// crash-mid-game, sigterm-mid-game, hang-mid-game: moves played before the fault.
    #[arg(long = "after", value_name = "N", default_value_t = 3)]
    after_moves: u32,
    /// slow, unclocked-delay: the delay before each move, in milliseconds.
    #[arg(long = "delay-ms", value_name = "MS", default_value = "1000", value_parser = parse_ms)]
    delay: Duration,
    /// Before each move, sleep a random time from 0 to MS milliseconds (drawn from the clock,
    /// never from the game): timing perturbed, moves unchanged. Tests of repeatability use
    /// it through the environment, which is no part of a run's identity.
    #[arg(
        long = "jitter-ms",
        value_name = "MS",
        env = "BT_FAULTY_JITTER_MS",
        default_value_t = 0
    )]
    jitter_ms: u64,
    /// perft-wrong-side: the Black pawn count that triggers the bug.
    #[arg(long = "pawns", value_name = "N", default_value_t = 8)]
    wrong_side_pawns: u32,
    /// tunable: the best value of option KnobA.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 300,
        allow_hyphen_values = true
    )]
    target_a: i64,
    /// tunable: the best value of option KnobB.
    #[arg(long, value_name = "N", default_value_t = -200, allow_hyphen_values = true)]
    target_b: i64,
    /// tunable: the distance at which a random move has probability 1 - e^(-1/2) (39%).
    #[arg(long, value_name = "W", default_value_t = 200.0)]
    width: f64,
    /// Before each move, print `info depth 1 score cp CP pv MOVE`: an engine that reports
    /// a score, as `bt-arena datagen` requires (without it, no `info` line but the faults').
    #[arg(long = "score-cp", value_name = "CP", allow_hyphen_values = true)]
    score_cp: Option<i32>,
    /// bench: report this speed (nodes per second) instead of the one measured.
    #[arg(long = "bench-nps", value_name = "N")]
    bench_nps: Option<u64>,
    /// `bench`: print the bench (`N nodes M nps`) and exit, instead of speaking the protocol.
    #[arg(value_parser = ["bench"], hide_possible_values = true)]
    command: Option<String>,
}

/// false-mate, opponent-mate: the prover's node budget for deciding where to claim.
const CLAIM_NODES: u64 = 200_000;

/// The depth of the perft `bt-faulty bench` counts.
const BENCH_PERFT_DEPTH: u32 = 5;

/// `bt-faulty bench`: the reference perft of the start position, `N nodes M nps`.
fn bench(settings: &Settings) {
    if settings.fault == Fault::Slow {
        std::thread::sleep(settings.delay);
    }
    let started = std::time::Instant::now();
    let nodes = bt_arena::rules::perft::perft(
        &Position::startpos(),
        Rules::CaptureOnly,
        BENCH_PERFT_DEPTH,
        bt_arena::rules::perft::PerftOptions::default(),
    );
    let micros = started.elapsed().as_micros().max(1);
    let measured = u64::try_from(u128::from(nodes) * 1_000_000 / micros).unwrap_or(u64::MAX);
    let nps = settings.bench_nps.unwrap_or(measured);
    let nps = match settings.fault {
        Fault::HalfNps => nps / 2,
        _ => nps,
    };
    say(format!("{nodes} nodes {nps} nps"));
}

/// tunable: the options and their range.
const KNOBS: [&str; 2] = ["KnobA", "KnobB"];
/// tunable: the knobs' range, -KNOB_RANGE to KNOB_RANGE.
const KNOB_RANGE: i64 = 1000;
/// tunable: the depth of the searched moves.
const TUNABLE_DEPTH: u32 = 2;

/// A whole number of milliseconds.
fn parse_ms(text: &str) -> Result<Duration, std::num::ParseIntError> {
    text.parse().map(Duration::from_millis)
}

/// A random time from 0 to `max_ms` ms, drawn from the clock's nanoseconds (SplitMix64
/// over them): it varies from move to move and from run to run.
fn jitter(max_ms: u64) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |t| t.subsec_nanos() as u64 ^ t.as_secs());
    let mut z = nanos.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    Duration::from_millis((z ^ (z >> 31)) % (max_ms + 1))
}

/// Writes one line to stdout; exits quietly when the runner has gone.
fn say(line: impl std::fmt::Display) {
    let mut out = io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// The engine's state between commands.
struct Faulty {
    settings: Settings,
    rules: Rules,
    position: Position,
    moves_played: u32,
    rng: fastrand::Rng,
    /// The `Seed` set, if any: each new game restarts its draws from it, so a game depends
    /// on the seed and the position alone, not on the games this process played before.
    seed: Option<u64>,
    /// A search that waits for `stop` (`go infinite`, or a limit a fault ignores).
    searching: bool,
    /// `bestmove-before-go`: a new game began and its stray line is not written yet.
    new_game: bool,
    /// tunable: the values of KnobA and KnobB.
    knobs: [i64; 2],
    /// tunable: the searcher of its good moves.
    searcher: Searcher,
}

impl Faulty {
    fn handle(&mut self, command: Command) {
        match command {
            Command::Handshake(protocol) => self.handshake(protocol),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::IsReady => self.is_ready(),
            Command::NewGame => {
                self.new_game = true;
                if let Some(seed) = self.seed {
                    self.rng = fastrand::Rng::with_seed(seed);
                }
                self.searcher.clear();
            }
            Command::Stop => self.stop(),
            Command::Position { start, moves } => self.set_position(start, &moves),
            Command::Go(limits) if self.waits_for_stop(&limits) => self.searching = true,
            Command::Go(limits) => self.go(&limits),
            Command::Perft { .. } if self.settings.fault == Fault::NoPerft => {
                self.go(&GoLimits::default())
            }
            Command::Perft { depth } => self.perft(depth),
            Command::Quit => std::process::exit(0),
        }
    }

    fn handshake(&self, protocol: Protocol) {
        say(Reply::IdName(format!(
            "bt-faulty ({})",
            self.settings.fault.name()
        )));
        say(Reply::IdAuthor("the bt-arena developers".into()));
        let rules = if self.settings.fault == Fault::FixedRules {
            OptionDecl {
                name: "Rules".into(),
                kind: OptionKind::Combo {
                    default: "classic".into(),
                    choices: vec!["classic".into()],
                },
            }
        } else {
            OptionDecl::rules()
        };
        say(Reply::Option(rules));
        say(Reply::Option(OptionDecl::spin("Seed", 0, 0, i64::MAX)));
        if self.settings.fault == Fault::Tunable {
            for knob in KNOBS {
                say(Reply::Option(OptionDecl::spin(
                    knob,
                    0,
                    -KNOB_RANGE,
                    KNOB_RANGE,
                )));
            }
        }
        if self.settings.fault == Fault::BadOptionLine {
            say("option name Hash type spin default 16 min 1");
        }
        if self.settings.fault != Fault::NoUgiok {
            say(Reply::HandshakeOk(protocol));
        }
    }

    fn is_ready(&mut self) {
        let stray = || {
            say(Reply::BestMove {
                mv: STRAY_MOVE.into(),
                ponder: None,
            })
        };
        match self.settings.fault {
            Fault::NoReadyok => return,
            Fault::BestmoveOnIsready => stray(),
            Fault::IsreadyEndsSearch if self.searching => self.stop(),
            _ => {}
        }
        say(Reply::ReadyOk);
        if self.settings.fault == Fault::BestmoveBeforeGo && std::mem::take(&mut self.new_game) {
            stray();
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match (name, value.map(str::parse::<u64>)) {
            ("Rules", _) => {
                if let Some(rules) = value.and_then(|v| v.parse().ok()) {
                    self.rules = rules;
                }
            }
            ("Seed", Some(Ok(seed))) if seed != 0 && self.settings.fault == Fault::OptionCrash => {
                eprintln!("bt-faulty: crashing on Seed {seed} as asked");
                std::process::exit(2);
            }
            ("Seed", Some(Ok(seed))) => {
                self.seed = Some(seed);
                self.rng = fastrand::Rng::with_seed(seed);
            }
            (name, _) if KNOBS.contains(&name) => {
                let index = usize::from(name == KNOBS[1]);
                if let Some(knob) = value.and_then(|v| v.parse().ok()) {
                    self.knobs[index] = knob;
                }
            }
            _ => {}
        }
    }

    fn set_position(&mut self, start: Position, moves: &[Move]) {
        let mut position = start;
        let kept = match self.settings.fault {
            Fault::MovesCap => MOVES_CAP,
            _ => usize::MAX,
        };
        for &mv in moves.iter().take(kept) {
            match position.play(self.rules, mv) {
                Ok(next) => position = next,
                Err(err) => return say(format!("info string error {err}")),
            }
        }
        self.position = position;
    }

    /// True when `go` with `limits` waits for `stop`: `infinite` (unless the fault answers it
    /// at once), or a limit the fault ignores.
    fn waits_for_stop(&self, limits: &GoLimits) -> bool {
        match self.settings.fault {
            Fault::InfiniteReturns => false,
            Fault::IgnoreDepth => limits.infinite || limits.depth.is_some_and(|d| d > 1),
            Fault::IgnoreNodes => limits.infinite || limits.nodes.is_some(),
            _ => limits.infinite,
        }
    }

    /// Ends a search waiting for `stop` with its move.
    fn stop(&mut self) {
        if self.searching {
            self.searching = false;
            self.go(&GoLimits::default());
        }
    }

    /// Answers `go` with `limits` now.
    fn go(&mut self, limits: &GoLimits) {
        if self.settings.jitter_ms > 0 {
            std::thread::sleep(jitter(self.settings.jitter_ms));
        }
        match self.settings.fault {
            Fault::CrashMidGame if self.moves_played >= self.settings.after_moves => {
                eprintln!(
                    "bt-faulty: crashing after {} moves as asked",
                    self.moves_played
                );
                std::process::exit(2);
            }
            Fault::SigtermMidGame if self.moves_played >= self.settings.after_moves => {
                eprintln!(
                    "bt-faulty: killing itself with SIGTERM after {} moves as asked",
                    self.moves_played
                );
                // SAFETY: a signal to this process itself; SIGTERM's default action ends it.
                unsafe {
                    libc::kill(libc::getpid(), libc::SIGTERM);
                }
                // The signal is delivered before kill returns; never reached.
                loop {
                    std::thread::sleep(Duration::from_secs(3600));
                }
            }
            Fault::HangMidGame if self.moves_played >= self.settings.after_moves => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            Fault::NoBestmove => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            Fault::Slow | Fault::UnclockedDelay => std::thread::sleep(self.settings.delay),
            Fault::Garbage => return say("#@!%& garbage instead of a move"),
            Fault::HugeLine => say(format!("info string {}", "x".repeat(HUGE_LINE_BYTES))),
            Fault::ClockOverrun => {
                if let Some(ms) = limits.time_ms(self.position.side_to_move()) {
                    std::thread::sleep(Duration::from_millis(ms) + CLOCK_OVERRUN);
                }
            }
            _ => {}
        }
        let side = self.position.side_to_move();
        let best = match self.settings.fault {
            Fault::IllegalMove => {
                opponent_move(&self.position).map_or("a1a1".into(), |m| m.to_string())
            }
            Fault::BlackPlaysWhite if side == Color::Black => {
                opponent_move(&self.position).map_or("a1a1".into(), |m| m.to_string())
            }
            Fault::MoveAfterGameOver if self.position.is_decided() => {
                move_after_game_over(&self.position, self.rules)
            }
            Fault::UnparseableMove => "z9z0".into(),
            Fault::Tunable => self.tunable_move(),
            _ => self.random_move(),
        };
        self.moves_played += 1;
        if let Some(cp) = self.settings.score_cp {
            say(Reply::Info(Info {
                depth: Some(1),
                score: Some(Score::Cp(cp)),
                pv: vec![best.clone()],
                ..Info::default()
            }));
        }
        for line in bad_info(self.settings.fault, &best) {
            say(line);
        }
        if let Some(line) = self.false_claim(&best) {
            say(line);
        }
        let ponder = match self.settings.fault {
            Fault::IllegalPonder => Some(best.clone()),
            _ => None,
        };
        let times = if self.settings.fault == Fault::DoubleBestmove {
            2
        } else {
            1
        };
        for _ in 0..times {
            say(Reply::BestMove {
                mv: best.clone(),
                ponder: ponder.clone(),
            });
        }
    }

    /// false-mate, opponent-mate: the `info` line of a false mate claim with `best` as its
    /// PV, when the position calls for it (see [`Fault`]); `None` otherwise.
    fn false_claim(&self, best: &str) -> Option<String> {
        let (claim, plies) = match self.settings.fault {
            Fault::FalseMate => (2, 6),
            Fault::OpponentMate => (-1, 2),
            _ => return None,
        };
        let mut prover = Prover::new(self.rules, CLAIM_NODES);
        let lost = matches!(prover.prove(&self.position, plies), Verdict::Loss(_));
        let claims = match self.settings.fault {
            Fault::FalseMate => lost,
            _ => !lost,
        };
        let info = Info {
            depth: Some(1),
            score: Some(Score::Mate(claim)),
            pv: vec![best.to_string()],
            ..Info::default()
        };
        claims.then(|| Reply::Info(info).to_string())
    }

    fn random_move(&mut self) -> String {
        let moves: Vec<Move> = self.position.legal_moves(self.rules).iter().collect();
        match moves.get(self.rng.usize(..moves.len().max(1))) {
            Some(mv) => mv.to_string(),
            None => NO_MOVE.into(),
        }
    }

    /// tunable: a random move with probability `1 - exp(-d² / (2 w²))`, `d` the distance of the
    /// knobs from the target, else bt-search's move at depth 2.
    fn tunable_move(&mut self) -> String {
        let target = [self.settings.target_a, self.settings.target_b];
        let squared: f64 = self
            .knobs
            .iter()
            .zip(target)
            .map(|(&knob, target)| ((knob - target) as f64).powi(2))
            .sum();
        let width = self.settings.width;
        let random = 1.0 - (-squared / (2.0 * width * width)).exp();
        if self.rng.f64() < random {
            return self.random_move();
        }
        let limits = Limits {
            depth: Some(TUNABLE_DEPTH),
            ..Limits::default()
        };
        self.searcher.clear();
        let stop = AtomicBool::new(false);
        let result = self
            .searcher
            .search(&self.position, self.rules, &limits, &stop, &mut |_| {});
        result
            .best
            .map_or_else(|| NO_MOVE.to_string(), |mv| mv.to_string())
    }

    fn perft(&self, depth: u32) {
        if self.settings.fault == Fault::Slow {
            std::thread::sleep(self.settings.delay);
        }
        let board = Board::from(&self.position);
        let generator = Generator {
            rules: self.rules,
            fault: self.settings.fault,
            wrong_side_pawns: self.settings.wrong_side_pawns,
        };
        let mut total = u64::from(depth == 0);
        if depth > 0 {
            for (mover, mv) in generator.moves(&board) {
                let nodes = generator.perft(&board.play(mover, mv), depth - 1);
                say(Reply::PerftMove {
                    mv: mv.to_string(),
                    nodes,
                });
                total += nodes;
            }
        }
        say(Reply::PerftTotal { nodes: total });
    }
}

/// The `info` lines of the info faults before the move `best`: unparseable, an illegal pv,
/// counters going backwards; none for other faults.
fn bad_info(fault: Fault, best: &str) -> Vec<String> {
    let info = |depth, nodes, time_ms, pv: Vec<String>| {
        Reply::Info(Info {
            depth: Some(depth),
            nodes,
            time_ms,
            pv,
            ..Info::default()
        })
        .to_string()
    };
    match fault {
        Fault::BadInfo => vec![format!("info depth one nodes 20 pv {best}")],
        Fault::IllegalPv => vec![info(2, None, None, vec![best.into(), best.into()])],
        Fault::NodesDecrease => vec![
            info(1, Some(200), Some(5), vec![best.into()]),
            info(2, Some(100), Some(3), vec![best.into()]),
        ],
        Fault::UnclockedDelay => vec![info(1, None, Some(0), vec![best.into()])],
        _ => Vec::new(),
    }
}

/// `move-after-game-over`: the first move a generator that ignores the end of the game finds
/// in `position` (the side to move's own pawns), or `(none)` when even that finds none.
fn move_after_game_over(position: &Position, rules: Rules) -> String {
    let generator = Generator {
        rules,
        fault: Fault::PerftAfterGameOver,
        wrong_side_pawns: 0,
    };
    generator
        .moves(&Board::from(position))
        .first()
        .map_or(NO_MOVE.into(), |(_, mv)| mv.to_string())
}

/// A legal move of the side not to move: always illegal for the side to move.
fn opponent_move(position: &Position) -> Option<Move> {
    let (white, black) = (position.pawns(Color::White), position.pawns(Color::Black));
    let flipped = Position::new(white, black, position.side_to_move().opponent()).ok()?;
    flipped.legal_moves(Rules::Classic).iter().next()
}

/// A board as plain bitboards, which (unlike [`Position`]) may hold positions past the end of
/// the game, as the buggy generators reach.
#[derive(Clone, Copy)]
struct Board {
    pawns: [u64; 2],
    side: Color,
}

impl From<&Position> for Board {
    fn from(position: &Position) -> Board {
        Board {
            pawns: [position.pawns(Color::White), position.pawns(Color::Black)],
            side: position.side_to_move(),
        }
    }
}

impl Board {
    /// True when a pawn stands on its goal rank or a side has no pawns.
    fn is_decided(&self) -> bool {
        let [white, black] = self.pawns;
        white >> 56 != 0 || black & 0xFF != 0 || white == 0 || black == 0
    }

    /// The board after `mover` plays `mv`; the other side moves next.
    fn play(&self, mover: Color, mv: Move) -> Board {
        let mut pawns = self.pawns;
        pawns[mover.index()] ^= mv.from.bit() | mv.to.bit();
        pawns[mover.opponent().index()] &= !mv.to.bit();
        Board {
            pawns,
            side: self.side.opponent(),
        }
    }
}

/// A naive move generator, with the bug of a perft fault if one is chosen.
struct Generator {
    rules: Rules,
    fault: Fault,
    wrong_side_pawns: u32,
}

impl Generator {
    /// The moves in `board` and the side that makes them.
    fn moves(&self, board: &Board) -> Vec<(Color, Move)> {
        if board.is_decided() && self.fault != Fault::PerftAfterGameOver {
            return Vec::new();
        }
        let wrong_side = self.fault == Fault::PerftWrongSide
            && board.side == Color::Black
            && board.pawns[Color::Black.index()].count_ones() == self.wrong_side_pawns;
        let mover = if wrong_side { Color::White } else { board.side };
        let (own, enemy) = (
            board.pawns[mover.index()],
            board.pawns[mover.opponent().index()],
        );
        let forward: i8 = if mover == Color::White { 1 } else { -1 };
        let mut moves = Vec::new();
        for from in (0..64)
            .filter_map(Square::from_index)
            .filter(|s| own & s.bit() != 0)
        {
            for file_step in [-1i8, 0, 1] {
                let file = from.file() as i8 + file_step;
                let rank = from.rank() as i8 + forward;
                let Some(to) = u8::try_from(file)
                    .ok()
                    .zip(u8::try_from(rank).ok())
                    .and_then(|(f, r)| Square::new(f, r))
                else {
                    continue;
                };
                if self.allows(from, to, file_step != 0, own, enemy) {
                    moves.push((mover, Move { from, to }));
                }
            }
        }
        moves
    }

    /// Whether a step from `from` to `to` (diagonal or straight) is generated.
    fn allows(&self, from: Square, to: Square, diagonal: bool, own: u64, enemy: u64) -> bool {
        let target = to.bit();
        if !diagonal {
            return (own | enemy) & target == 0;
        }
        if own & target != 0 {
            return false;
        }
        if enemy & target != 0 {
            let on_edge = |s: Square| s.file() == 0 || s.file() == 7;
            return !(self.fault == Fault::PerftMissingEdgeCapture
                && (on_edge(from) || on_edge(to)));
        }
        self.rules == Rules::Classic || self.fault == Fault::PerftDiagonalEmpty
    }

    /// Leaf count `depth` plies below `board`.
    fn perft(&self, board: &Board, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves(board)
            .into_iter()
            .map(|(mover, mv)| self.perft(&board.play(mover, mv), depth - 1))
            .sum()
    }
}

fn main() -> ExitCode {
    let settings = Settings::parse();
    if settings.command.is_some() {
        bench(&settings);
        return ExitCode::SUCCESS;
    }
    if settings.fault == Fault::ExitAtStart {
        eprintln!("bt-faulty: exiting at start as asked");
        return ExitCode::from(3);
    }
    let mut engine = Faulty {
        settings,
        rules: Rules::default(),
        position: Position::startpos(),
        moves_played: 0,
        rng: fastrand::Rng::new(),
        seed: None,
        searching: false,
        new_game: false,
        knobs: [0; 2],
        searcher: Searcher::new(1),
    };
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match line.parse::<Command>() {
            Ok(command) => engine.handle(command),
            Err(err) => say(format!("info string error {err}")),
        }
    }
    ExitCode::SUCCESS
}
