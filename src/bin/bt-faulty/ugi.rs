//! bt-faulty speaking UGI/UCI: the engine's state between commands, and each fault where it
//! strikes (the handshake, `isready`, `setoption`, `position`, `go`, `go perft`).

use crate::fault::Fault;
use crate::perft::{Board, Generator};
use crate::{Settings, jitter, say};
use bt_arena::bundled::search::{Limits, Searcher};
use bt_arena::protocol::Score;
use bt_arena::protocol::{
    Command, GoLimits, Info, NO_MOVE, OptionDecl, OptionKind, Protocol, Reply,
};
use bt_arena::rules::proof::{Prover, Verdict};
use bt_arena::rules::{Color, Move, Position, Rules};
use std::io::{self, BufRead};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// `moves-cap`: how many moves of a `position ... moves` list are played.
const MOVES_CAP: usize = 50;
/// `clock-overrun`: how far past its remaining time it answers.
const CLOCK_OVERRUN: Duration = Duration::from_millis(300);

/// The move of the stray `bestmove` lines of `bestmove-before-go` and `bestmove-on-isready`.
const STRAY_MOVE: &str = "a2a3";

/// The size of the `huge-line` line in bytes.
const HUGE_LINE_BYTES: usize = 4 << 20;

/// false-mate, opponent-mate: the prover's node budget for deciding where to claim.
const CLAIM_NODES: u64 = 200_000;

/// tunable: the options and their range.
const KNOBS: [&str; 2] = ["KnobA", "KnobB"];
/// tunable: the knobs' range, -KNOB_RANGE to KNOB_RANGE.
const KNOB_RANGE: i64 = 1000;
/// tunable: the depth of the searched moves.
pub(crate) const TUNABLE_DEPTH: u32 = 2;

/// The engine's state between commands.
pub(crate) struct Faulty {
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
    /// The engine with `settings`, before any command.
    pub(crate) fn new(settings: Settings) -> Faulty {
        Faulty {
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
        }
    }

    /// Reads commands from stdin and answers them until it ends.
    pub(crate) fn serve(mut self) -> ExitCode {
        for line in io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            match line.parse::<Command>() {
                Ok(command) => self.handle(command),
                Err(err) => say(format!("info string error {err}")),
            }
        }
        ExitCode::SUCCESS
    }

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
        if self.settings.fault == Fault::FixedBoard {
            say("option name Board type combo default 8x8 var 8x8");
        }
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
        let mut position = match self.settings.fault {
            Fault::IgnoresBoard if !start.board().is_standard() => Position::startpos(),
            _ => start,
        };
        let kept = match self.settings.fault {
            // As many plies of a smaller board as 50 are of 8x8 (28 on 6x6).
            Fault::MovesCap => MOVES_CAP * start.board().squares().count_ones() as usize / 64,
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
        if self.rng.f64() < random_share(&self.settings, self.knobs) {
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

/// tunable: the probability of a random move, `1 - exp(-d² / (2 w²))`, `d` the distance of
/// `knobs` from the target.
pub(crate) fn random_share(settings: &Settings, knobs: [i64; 2]) -> f64 {
    let target = [settings.target_a, settings.target_b];
    let squared: f64 = knobs
        .iter()
        .zip(target)
        .map(|(&knob, target)| ((knob - target) as f64).powi(2))
        .sum();
    let width = settings.width;
    1.0 - (-squared / (2.0 * width * width)).exp()
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
pub(crate) fn opponent_move(position: &Position) -> Option<Move> {
    let (white, black) = (position.pawns(Color::White), position.pawns(Color::Black));
    let side = position.side_to_move().opponent();
    let flipped = Position::on_board(position.board(), white, black, side).ok()?;
    flipped.legal_moves(Rules::Classic).iter().next()
}
