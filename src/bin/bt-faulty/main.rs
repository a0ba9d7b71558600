//! bt-faulty: a test engine that plays like bt-random but misbehaves on purpose, to exercise
//! the runner's error handling and the perft checker. Built only with the cargo feature
//! `test-engines`, which `cargo test` turns on (so `cargo install` leaves it out).
//!
//! Usage: `bt-faulty [--codingame] [--fault NAME] [--after N] [--delay-ms MS] [--turn N]
//! [--pawns N] [--bench-nps N] [--score-cp CP] [bench]`; the fault may
//! also come from the environment variable `BT_FAULTY_FAULT` (the flag wins). The faults are
//! the variants of [`Fault`]; `bt-faulty --help` lists them with what each does.
//!
//! Faults planted for `bt-arena check-engine`, each caught by the check named:
//!
//! | fault | behaviour | check |
//! |---|---|---|
//! | `bad-option-line` | declares a malformed option (`option name Hash type spin default 16 min 1`, no `max`) | `handshake.options-parse` |
//! | `option-crash` | exits with status 2 when `Seed` is set to anything but 0 | `handshake.options-settable` |
//! | `moves-cap` | plays only the first 50 moves of a `position ... moves` list (28 on 6×6: 50 per 64 squares) | `positions.startpos-moves`, `positions.fen-moves` |
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
//! | `ignores-board` | reads a position of a board other than 8×8 as 8×8's start: 8×8's perft, moves off the board | `board.perft`, `board.moves` (with `--board`) |
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
//!
//! With `--codingame` it is a CodinGame bot instead ([`codingame`]): it reads CodinGame's turns
//! and plays a random move of the list, with the faults a bot can have: `exit-at-start`,
//! `crash-mid-game` and `sigterm-mid-game` (on its turn after `--after N` moves), `no-bestmove`
//! (silence: it never answers), `hang-mid-game`, `slow` (every turn after `--delay-ms`),
//! `slow-turn` (turn `--turn N` alone after `--delay-ms`: too slow on turn 1, or later),
//! `garbage`, `illegal-move` (a move not in the list), `unparseable-move`, `huge-line`,
//! `extra-lines` (two more lines after its move), `stderr-flood` (1 MiB on stderr every turn)
//! and `tunable` (the knobs given as `--knob-a`, `--knob-b`, since a bot has no options).
//! `--echo FILE` appends every line it reads to FILE (the tests read back what a bot is told).
//!
//! The code is split by what the faults concern: [`fault`] (the list), [`ugi`] (the UGI/UCI
//! engine), [`perft`] (its move generator), [`codingame`] (the bot).

mod codingame;
mod fault;
mod perft;
mod ugi;

use bt_arena::rules::{Position, Rules};
use clap::Parser;
use fault::Fault;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

/// A test engine (UGI/UCI) that plays like bt-random but misbehaves on purpose, to exercise
/// bt-arena's error handling and its perft checker.
#[derive(Debug, Parser)]
#[command(name = "bt-faulty", version)]
pub(crate) struct Settings {
    /// How to misbehave.
    #[arg(long, value_enum, env = "BT_FAULTY_FAULT", default_value_t = Fault::None)]
    pub(crate) fault: Fault,
    /// crash-mid-game, sigterm-mid-game, hang-mid-game: moves played before the fault.
    #[arg(long = "after", value_name = "N", default_value_t = 3)]
    pub(crate) after_moves: u32,
    /// slow, unclocked-delay: the delay before each move, in milliseconds.
    #[arg(long = "delay-ms", value_name = "MS", default_value = "1000", value_parser = parse_ms)]
    pub(crate) delay: Duration,
    /// Before each move, sleep a random time from 0 to MS milliseconds (drawn from the clock,
    /// never from the game): timing perturbed, moves unchanged. Tests of repeatability use
    /// it through the environment, which is no part of a run's identity.
    #[arg(
        long = "jitter-ms",
        value_name = "MS",
        env = "BT_FAULTY_JITTER_MS",
        default_value_t = 0
    )]
    pub(crate) jitter_ms: u64,
    /// perft-wrong-side: the Black pawn count that triggers the bug.
    #[arg(long = "pawns", value_name = "N", default_value_t = 8)]
    pub(crate) wrong_side_pawns: u32,
    /// tunable: the best value of option KnobA.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 300,
        allow_hyphen_values = true
    )]
    pub(crate) target_a: i64,
    /// tunable: the best value of option KnobB.
    #[arg(long, value_name = "N", default_value_t = -200, allow_hyphen_values = true)]
    pub(crate) target_b: i64,
    /// tunable: the distance at which a random move has probability 1 - e^(-1/2) (39%).
    #[arg(long, value_name = "W", default_value_t = 200.0)]
    pub(crate) width: f64,
    /// Before each move, print `info depth 1 score cp CP pv MOVE`: an engine that reports
    /// a score, as `bt-arena datagen` requires (without it, no `info` line but the faults').
    #[arg(long = "score-cp", value_name = "CP", allow_hyphen_values = true)]
    pub(crate) score_cp: Option<i32>,
    /// bench: report this speed (nodes per second) instead of the one measured.
    #[arg(long = "bench-nps", value_name = "N")]
    pub(crate) bench_nps: Option<u64>,
    /// Speak CodinGame's bot protocol instead of UGI/UCI (one game, turns on stdin).
    #[arg(long)]
    pub(crate) codingame: bool,
    /// slow-turn: the turn (from 1) that is slow.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) turn: u32,
    /// Append every line read to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) echo: Option<std::path::PathBuf>,
    /// tunable, as a CodinGame bot: the value of KnobA (a bot has no options).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_hyphen_values = true
    )]
    pub(crate) knob_a: i64,
    /// tunable, as a CodinGame bot: the value of KnobB.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_hyphen_values = true
    )]
    pub(crate) knob_b: i64,
    /// As a CodinGame bot: the seed of its draws (default: drawn).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// `bench`: print the bench (`N nodes M nps`) and exit, instead of speaking the protocol.
    #[arg(value_parser = ["bench"], hide_possible_values = true)]
    pub(crate) command: Option<String>,
}

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

/// A whole number of milliseconds.
fn parse_ms(text: &str) -> Result<Duration, std::num::ParseIntError> {
    text.parse().map(Duration::from_millis)
}

/// A random time from 0 to `max_ms` ms, drawn from the clock's nanoseconds (SplitMix64
/// over them): it varies from move to move and from run to run.
pub(crate) fn jitter(max_ms: u64) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |t| t.subsec_nanos() as u64 ^ t.as_secs());
    let mut z = nanos.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    Duration::from_millis((z ^ (z >> 31)) % (max_ms + 1))
}

/// Writes one line to stdout; exits quietly when the runner has gone.
pub(crate) fn say(line: impl std::fmt::Display) {
    let mut out = io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
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
    match settings.codingame {
        true => codingame::play(settings),
        false => ugi::Faulty::new(settings).serve(),
    }
}
