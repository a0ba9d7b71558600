//! bt-faulty: a test engine that plays like bt-random but misbehaves on purpose, to exercise
//! the runner's error handling and the perft checker.
//!
//! Usage: `bt-faulty [--fault NAME] [--after N] [--delay-ms MS] [--pawns N]`; the fault may
//! also come from the environment variable `BT_FAULTY_FAULT` (the flag wins). Faults:
//!
//! | fault | behaviour |
//! |---|---|
//! | `none` | none: a random mover (the default) |
//! | `exit-at-start` | writes to stderr and exits with status 3 before reading anything |
//! | `no-ugiok` | answers the handshake without `ugiok`/`uciok` |
//! | `no-readyok` | never answers `isready` |
//! | `crash-mid-game` | exits with status 2 on the `go` after `--after N` moves (default 3) |
//! | `no-bestmove` | hangs on `go`, reading nothing more (not even `quit`) |
//! | `slow` | answers `go` after `--delay-ms MS` (default 1000) |
//! | `garbage` | prints garbage instead of `bestmove` |
//! | `illegal-move` | plays a well-formed illegal move (one of the opponent's) |
//! | `unparseable-move` | plays `z9z0` |
//! | `huge-line` | prints a 4 MiB `info string` line without pause, then the move |
//! | `fixed-rules` | declares `Rules` as a combo offering only `classic` |
//! | `perft-missing-edge-capture` | its perft misses captures from or onto the a- and h-files |
//! | `perft-diagonal-empty` | its perft allows diagonal steps to empty squares under capture-only |
//! | `perft-after-game-over` | its perft generates moves in finished positions |
//! | `perft-wrong-side` | its perft generates White's moves when Black is to move with exactly `--pawns N` pawns (default 8) |
//! | `bestmove-before-go` | after the `readyok` that follows each `uginewgame`/`ucinewgame`, prints `bestmove a2a3` before any `go` |
//! | `double-bestmove` | answers each `go` with its `bestmove` line twice |
//! | `bestmove-on-isready` | prints `bestmove a2a3` before each `readyok` |
//!
//! `go perft` uses the binary's own naive move generator (correct unless a perft fault is
//! chosen); moves in games come from the reference rules.

use bt_arena::engine::protocol::{Command, NO_MOVE, OptionDecl, OptionKind, Protocol, Reply};
use bt_arena::rules::{Color, Move, Position, Rules, Square};
use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Duration;

/// A way to misbehave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    ExitAtStart,
    NoUgiok,
    NoReadyok,
    CrashMidGame,
    NoBestmove,
    Slow,
    Garbage,
    IllegalMove,
    UnparseableMove,
    HugeLine,
    FixedRules,
    PerftMissingEdgeCapture,
    PerftDiagonalEmpty,
    PerftAfterGameOver,
    PerftWrongSide,
    BestmoveBeforeGo,
    DoubleBestmove,
    BestmoveOnIsready,
}

/// Every fault with its name on the command line.
const FAULTS: [(&str, Fault); 19] = [
    ("none", Fault::None),
    ("exit-at-start", Fault::ExitAtStart),
    ("no-ugiok", Fault::NoUgiok),
    ("no-readyok", Fault::NoReadyok),
    ("crash-mid-game", Fault::CrashMidGame),
    ("no-bestmove", Fault::NoBestmove),
    ("slow", Fault::Slow),
    ("garbage", Fault::Garbage),
    ("illegal-move", Fault::IllegalMove),
    ("unparseable-move", Fault::UnparseableMove),
    ("huge-line", Fault::HugeLine),
    ("fixed-rules", Fault::FixedRules),
    ("perft-missing-edge-capture", Fault::PerftMissingEdgeCapture),
    ("perft-diagonal-empty", Fault::PerftDiagonalEmpty),
    ("perft-after-game-over", Fault::PerftAfterGameOver),
    ("perft-wrong-side", Fault::PerftWrongSide),
    ("bestmove-before-go", Fault::BestmoveBeforeGo),
    ("double-bestmove", Fault::DoubleBestmove),
    ("bestmove-on-isready", Fault::BestmoveOnIsready),
];

/// The move of the stray `bestmove` lines of `bestmove-before-go` and `bestmove-on-isready`.
const STRAY_MOVE: &str = "a2a3";

/// The size of the `huge-line` line in bytes.
const HUGE_LINE_BYTES: usize = 4 << 20;

/// The command line.
#[derive(Debug)]
struct Settings {
    fault: Fault,
    /// `crash-mid-game`: moves played before the crash.
    after_moves: u32,
    /// `slow`: the delay before each move.
    delay: Duration,
    /// `perft-wrong-side`: the Black pawn count that triggers the bug.
    wrong_side_pawns: u32,
}

impl Settings {
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Settings, String> {
        let mut fault_name = std::env::var("BT_FAULTY_FAULT").ok();
        let mut settings = Settings {
            fault: Fault::None,
            after_moves: 3,
            delay: Duration::from_millis(1000),
            wrong_side_pawns: 8,
        };
        while let Some(flag) = args.next() {
            let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let number = || {
                value
                    .parse::<u32>()
                    .map_err(|_| format!("{flag} needs a number, got '{value}'"))
            };
            match flag.as_str() {
                "--fault" => fault_name = Some(value.clone()),
                "--after" => settings.after_moves = number()?,
                "--delay-ms" => settings.delay = Duration::from_millis(number()?.into()),
                "--pawns" => settings.wrong_side_pawns = number()?,
                _ => return Err(format!("unknown flag '{flag}'")),
            }
        }
        if let Some(name) = fault_name {
            settings.fault = FAULTS
                .iter()
                .find(|(known, _)| *known == name)
                .map(|&(_, fault)| fault)
                .ok_or_else(|| format!("unknown fault '{name}'"))?;
        }
        Ok(settings)
    }
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
    /// `bestmove-before-go`: a new game began and its stray line is not written yet.
    new_game: bool,
}

impl Faulty {
    fn handle(&mut self, command: Command) {
        match command {
            Command::Hello(protocol) => self.hello(protocol),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::IsReady => self.is_ready(),
            Command::NewGame => self.new_game = true,
            Command::Stop => {}
            Command::Position { start, moves } => self.set_position(start, &moves),
            Command::Go(_) => self.go(),
            Command::Perft { depth } => self.perft(depth),
            Command::Quit => std::process::exit(0),
        }
    }

    fn hello(&self, protocol: Protocol) {
        let fault = FAULTS
            .iter()
            .find(|&&(_, f)| f == self.settings.fault)
            .map_or("?", |(name, _)| name);
        say(Reply::IdName(format!("bt-faulty ({fault})")));
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
        if self.settings.fault != Fault::NoUgiok {
            say(Reply::HelloOk(protocol));
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
            ("Seed", Some(Ok(seed))) => self.rng = fastrand::Rng::with_seed(seed),
            _ => {}
        }
    }

    fn set_position(&mut self, start: Position, moves: &[Move]) {
        let mut position = start;
        for &mv in moves {
            match position.play(self.rules, mv) {
                Ok(next) => position = next,
                Err(err) => return say(format!("info string error {err}")),
            }
        }
        self.position = position;
    }

    fn go(&mut self) {
        match self.settings.fault {
            Fault::CrashMidGame if self.moves_played >= self.settings.after_moves => {
                eprintln!(
                    "bt-faulty: crashing after {} moves as asked",
                    self.moves_played
                );
                std::process::exit(2);
            }
            Fault::NoBestmove => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            Fault::Slow => std::thread::sleep(self.settings.delay),
            Fault::Garbage => return say("#@!%& garbage instead of a move"),
            Fault::HugeLine => say(format!("info string {}", "x".repeat(HUGE_LINE_BYTES))),
            _ => {}
        }
        let best = match self.settings.fault {
            Fault::IllegalMove => {
                opponent_move(&self.position).map_or("a1a1".into(), |m| m.to_string())
            }
            Fault::UnparseableMove => "z9z0".into(),
            _ => self.random_move(),
        };
        self.moves_played += 1;
        let answer = Reply::BestMove {
            mv: best,
            ponder: None,
        };
        if self.settings.fault == Fault::DoubleBestmove {
            say(&answer);
        }
        say(answer);
    }

    fn random_move(&mut self) -> String {
        let moves: Vec<Move> = self.position.legal_moves(self.rules).iter().collect();
        match moves.get(self.rng.usize(..moves.len().max(1))) {
            Some(mv) => mv.to_string(),
            None => NO_MOVE.into(),
        }
    }

    fn perft(&self, depth: u32) {
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
    let settings = match Settings::parse(std::env::args().skip(1)) {
        Ok(settings) => settings,
        Err(err) => {
            eprintln!("bt-faulty: {err}");
            return ExitCode::from(64);
        }
    };
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
        new_game: false,
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
