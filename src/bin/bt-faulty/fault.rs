//! The faults of bt-faulty: each a way to misbehave, named on the command line
//! (`--fault crash-mid-game`); `bt-faulty --help` lists them with what each does.

use clap::ValueEnum;

/// A way to misbehave; named on the command line in kebab-case (`crash-mid-game`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Fault {
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
    /// A CodinGame bot: answers its turn `--turn N` (from 1) after `--delay-ms MS`, the others
    /// at once.
    SlowTurn,
    /// A CodinGame bot: writes two more lines after its move.
    ExtraLines,
    /// A CodinGame bot: writes 1 MiB to stderr every turn before it answers.
    StderrFlood,
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
    /// Its perft takes the file mask of 8×8 on every board: on a board of fewer files, a pawn
    /// on the last file steps diagonally east off the board onto an empty square. Only classic
    /// rules show it (no enemy pawn stands off the board to be captured).
    #[value(name = "perft-file-mask-8x8")]
    PerftFileMask8x8,
    /// Declares `Board` as a combo offering only `8x8`.
    FixedBoard,
    /// Ignores the board's size: reads a position of a board other than 8×8 as 8×8's start
    /// (then plays the moves it can), so it counts 8×8's perft and plays 8×8's moves, some off
    /// the board.
    IgnoresBoard,
    // Faults planted for `bt-arena check-engine` (see the table above).
    /// Declares a malformed option line (a spin without `max`).
    BadOptionLine,
    /// Exits with status 2 when `Seed` is set to anything but 0.
    OptionCrash,
    /// Plays only the first 50 moves of a `position ... moves` list (on a smaller board, 50 per
    /// 64 squares: 28 on 6×6).
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
    pub(crate) fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| "?".to_string(), |value| value.get_name().to_string())
    }
}
