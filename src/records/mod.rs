//! The record of a finished game and the files that keep them: what a run directory holds of
//! its games, written as they finish and read back by every command.
//!
//! For users (`docs/guide/results.md`): every finished game is a line of games.csv and a game
//! of games.pgn, written as it ends, and `bt-arena elo` reads them and other tools' PGN.
//!
//! * `games.csv`: one [`GameRecord`] per line, in the column order of [`COLUMNS`], under a
//!   header line; appended by [`ResultsWriter`] (`writer.rs`), read back row by row by
//!   [`GamesReader`] (or all at once by [`read_games`]) (`csv.rs`); [`GamesTail`] reads one
//!   that another process is still appending to.
//! * `games.pgn`: the same games as PGN ([`pgn`]: written, and read back with other tools'
//!   PGN), with what the engines said about each move ([`moves`]).
//! * [`GameFile`]: a games.csv or a PGN file, told apart by its content.
//! * what the records keep of engines built from source and of `--scale-tc`: [`provenance`].
//!
//! What is computed from the records (summary.json, the text report, report.html) is
//! [`report`](crate::report)'s. Breakthrough has no draws: every game is `1-0` or `0-1`.

pub mod claims;
mod csv;
mod game_file;
pub mod moves;
pub mod pgn;
pub mod provenance;
mod tail;
mod writer;

pub use crate::run_dir::Existing;
pub use csv::{COLUMN_COUNTS, COLUMNS, GamesReader, read_games};
pub use game_file::GameFile;
pub use pgn::ReadGames;
pub use tail::GamesTail;
pub use writer::ResultsWriter;

use crate::rules::{Color, Reason};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What takes the games of a reading one at a time, in the order they are read (see
/// `run::games`): the report ([`SummaryBuilder`](crate::report::SummaryBuilder)) and report.html's
/// series ([`SeriesBuilder`](crate::report::series::SeriesBuilder)).
pub trait GameSink {
    /// The next game.
    fn game(&mut self, game: &GameRecord);
    /// Games are missing before the next one: a sequential test replayed in game-id order
    /// stops here (its verdict would lack evidence).
    fn gap(&mut self);
    /// The end of a file, or of a run read as one: its open game pairs can no longer
    /// complete.
    fn end(&mut self);
}

/// The result of a game: `1-0` or `0-1` (serde and [`Display`](fmt::Display) use those
/// strings). No draws exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// `1-0`.
    #[serde(rename = "1-0")]
    WhiteWins,
    /// `0-1`.
    #[serde(rename = "0-1")]
    BlackWins,
}

impl GameResult {
    /// The side that won.
    pub const fn winner(self) -> Color {
        match self {
            GameResult::WhiteWins => Color::White,
            GameResult::BlackWins => Color::Black,
        }
    }

    /// The result in which `winner` won.
    pub const fn from_winner(winner: Color) -> GameResult {
        match winner {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// `1-0` or `0-1`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a game ended. Serde and [`Display`](fmt::Display) use the kebab-case name
/// ([`Termination::name`]).
///
/// The first three are the rules' own endings ([`Reason`]); the next four are faults: the loser
/// misbehaved and lost by forfeit ([`Termination::is_fault`]); the last three are
/// adjudications ([`Termination::is_adjudication`]): bt-arena's two (`--resign`,
/// `--adjudicate proof=PLIES`, see [`crate::game::adjudication`]), and another tool's, read
/// from its PGN (e.g. cutechess-cli's resign adjudication).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// `goal-rank`: the winner moved a pawn onto its far rank.
    GoalRank,
    /// `all-captured`: the loser has no pawns left.
    AllCaptured,
    /// `no-moves`: the loser had no legal move on its turn.
    NoMoves,
    /// `illegal-move`: the loser sent an illegal or malformed move.
    IllegalMove,
    /// `time-forfeit`: the loser ran out of time.
    TimeForfeit,
    /// `crash`: the loser's engine process died or broke the protocol.
    Crash,
    /// `stall`: the loser's engine stopped answering.
    Stall,
    /// `resign`: the loser's engine reported a losing score for long enough (`--resign`).
    Resign,
    /// `proof`: the rules proved a forced win within the plies of `--adjudicate proof=PLIES`.
    Proof,
    /// `adjudication`: the tool that ran the game declared the winner by a rule of its own
    /// (read from another tool's PGN).
    Adjudication,
}

impl Termination {
    /// Every termination, in the documented order.
    pub const ALL: [Termination; 10] = [
        Termination::GoalRank,
        Termination::AllCaptured,
        Termination::NoMoves,
        Termination::IllegalMove,
        Termination::TimeForfeit,
        Termination::Crash,
        Termination::Stall,
        Termination::Resign,
        Termination::Proof,
        Termination::Adjudication,
    ];

    /// The kebab-case name used in games.csv and the final PGN comment, e.g. `goal-rank`.
    pub const fn name(self) -> &'static str {
        match self {
            Termination::GoalRank => "goal-rank",
            Termination::AllCaptured => "all-captured",
            Termination::NoMoves => "no-moves",
            Termination::IllegalMove => "illegal-move",
            Termination::TimeForfeit => "time-forfeit",
            Termination::Crash => "crash",
            Termination::Stall => "stall",
            Termination::Resign => "resign",
            Termination::Proof => "proof",
            Termination::Adjudication => "adjudication",
        }
    }

    /// The PGN standard `Termination` tag value: `normal` for the rules' endings, `time
    /// forfeit`, `rules infraction` (an illegal move), `abandoned` (a crash or a stall),
    /// `adjudication` (resign, proof, another tool's adjudication).
    pub const fn pgn_tag(self) -> &'static str {
        match self {
            Termination::GoalRank | Termination::AllCaptured | Termination::NoMoves => "normal",
            Termination::IllegalMove => "rules infraction",
            Termination::TimeForfeit => "time forfeit",
            Termination::Crash | Termination::Stall => "abandoned",
            Termination::Resign | Termination::Proof | Termination::Adjudication => "adjudication",
        }
    }

    /// `true` for the four endings where the loser misbehaved: illegal move, time forfeit,
    /// crash, stall.
    pub const fn is_fault(self) -> bool {
        matches!(
            self,
            Termination::IllegalMove
                | Termination::TimeForfeit
                | Termination::Crash
                | Termination::Stall
        )
    }

    /// `true` for the three adjudications: resign, proof, another tool's.
    pub const fn is_adjudication(self) -> bool {
        matches!(
            self,
            Termination::Resign | Termination::Proof | Termination::Adjudication
        )
    }

    /// A sentence for people (the PGN comment), e.g. `White reaches rank 8` (the goal rank of
    /// `board`: `rank 6` on 6×6), `Black loses on time`. An adjudication by bt-arena says more
    /// in its PGN comment (the proven line, the scores): this is what is left of it in
    /// games.csv.
    pub fn describe(self, winner: Color, board: crate::rules::Board) -> String {
        let loser = winner.opponent();
        match self {
            Termination::GoalRank => {
                format!("{winner} reaches rank {}", board.goal_rank(winner) + 1)
            }
            Termination::AllCaptured => format!("{winner} captures every {loser} pawn"),
            Termination::NoMoves => format!("{loser} has no legal move"),
            Termination::IllegalMove => format!("{loser} makes an illegal move"),
            Termination::TimeForfeit => format!("{loser} loses on time"),
            Termination::Crash => format!("{loser}'s engine crashes"),
            Termination::Stall => format!("{loser}'s engine stalls"),
            Termination::Resign => format!("{loser} resigns"),
            Termination::Proof => format!("{winner} wins by proof"),
            Termination::Adjudication => format!("{winner} wins by adjudication"),
        }
    }
}

impl From<Reason> for Termination {
    fn from(reason: Reason) -> Termination {
        match reason {
            Reason::GoalRank => Termination::GoalRank,
            Reason::AllCaptured => Termination::AllCaptured,
            Reason::NoMoves => Termination::NoMoves,
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One finished game: one row of games.csv, fields in column order ([`COLUMNS`]).
///
/// Text fields must not contain line breaks ([`ResultsWriter::append`] refuses them), so every
/// row is one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Number of the game in the run.
    pub game_id: u64,
    /// Tournament round.
    pub round: u32,
    /// Game-pair number: the two games of a pair share it, have the same engines with colours
    /// swapped and the same opening.
    pub pair: u64,
    /// Number of the opening in the opening book.
    pub opening_id: u64,
    /// The position the game started from (a position string, or `startpos`).
    pub opening: String,
    /// Name of the engine playing White.
    pub white: String,
    /// Name of the engine playing Black.
    pub black: String,
    /// `1-0` or `0-1`.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// Plies played from the opening position.
    pub plies: u32,
    /// The moves from the opening position, space-separated: `a2a3 a7a6 ...`.
    pub moves: String,
    /// Total thinking time used by White, in milliseconds.
    pub white_ms: u64,
    /// Total thinking time used by Black, in milliseconds.
    pub black_ms: u64,
    /// When the game started, RFC 3339 UTC, e.g. `2026-11-30T12:00:00Z` ([`now_rfc3339`]); for
    /// a game read from PGN without a `Time` tag the date alone (`2026-11-30`), or empty.
    pub started: String,
    /// Lines White's engine wrote that answered no request (a stray `bestmove` or `readyok`),
    /// read during this game; never played. 0 when the file predates the column.
    #[serde(default)]
    pub white_stray: u64,
    /// The same for Black's engine.
    #[serde(default)]
    pub black_stray: u64,
    /// What the engines reported for each move and the time it took, one token per ply (see
    /// [`moves`]); empty when the file predates the column.
    #[serde(default)]
    pub move_info: String,
    /// What the runner found checking the engines' claims (PVs, mate scores, ponder moves),
    /// with how many it checked (see [`claims`]); empty when nothing was checked or the file
    /// predates the column.
    #[serde(default)]
    pub claims: String,
    /// Each move's wall time from `go` to `bestmove` and the engine's own `info time`, in
    /// µs, one token per ply (see [`moves`]); empty when the file predates the column (its
    /// move times are then the whole ms of `move_info`) or the game was read from PGN.
    #[serde(default)]
    pub move_times: String,
}

impl GameRecord {
    /// The position the game started from: its `opening` read as a FEN of any board (the board
    /// is the FEN's shape; `startpos` is the 8×8 start); `None` when it does not read.
    pub fn start(&self) -> Option<crate::rules::Position> {
        crate::rules::Position::from_fen_any(&self.opening).ok()
    }

    /// Name of the engine that won.
    pub fn winner_name(&self) -> &str {
        self.name_of(self.result.winner())
    }

    /// Name of the engine that lost.
    pub fn loser_name(&self) -> &str {
        self.name_of(self.result.winner().opponent())
    }

    /// What the engines reported for each move and its times: `move_info` with the µs of
    /// `move_times` when the record has them ([`moves::decode_columns`]).
    ///
    /// # Errors
    /// The first token of either column that does not read, or columns of different lengths.
    pub fn move_infos(&self) -> Result<Vec<moves::MoveInfo>, moves::ColumnError> {
        moves::decode_columns(&self.move_info, &self.move_times)
    }

    /// Name of the engine playing `color`.
    pub fn name_of(&self, color: Color) -> &str {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// `count` and `noun`, the noun in the plural unless `count` is 1: `1 game`, `2 games`,
/// `0 losses` (an `s`, or `es` after an `s`).
pub fn plural(count: u64, noun: &str) -> String {
    match (count, noun.ends_with('s')) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{count} {noun}es"),
        (_, false) => format!("{count} {noun}s"),
    }
}

/// Writes `value` as pretty JSON to `path` whole or not at all
/// ([`crate::run_dir::atomic::write_json`]). Returns `false` when an existing file was kept.
///
/// # Errors
/// [`RecordsError::Io`] naming `path` when the temporary file cannot be created, written,
/// renamed or linked.
pub fn write_json(
    path: &Path,
    value: &impl Serialize,
    existing: Existing,
) -> Result<bool, RecordsError> {
    crate::run_dir::atomic::write_json(path, value, existing)
        .map_err(|e| RecordsError::io(path, "cannot write", e))
}

/// Writes `path` whole or not at all ([`crate::run_dir::atomic::write_atomically`]).
/// Returns `false` when an existing file was kept.
///
/// # Errors
/// [`RecordsError::Io`] naming `path` when the temporary file cannot be created, written,
/// renamed or linked.
pub fn write_atomically(
    path: &Path,
    existing: Existing,
    contents: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<bool, RecordsError> {
    crate::run_dir::atomic::write_atomically(path, existing, contents)
        .map_err(|e| RecordsError::io(path, "cannot write", e))
}

/// The current time as RFC 3339 UTC to the second, e.g. `2026-11-30T12:00:00Z`: the format of
/// [`GameRecord::started`].
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// An error reading or writing results files. Every variant names the file (or the game) and
/// [`Display`](fmt::Display) gives a one-line message.
#[derive(Debug)]
pub enum RecordsError {
    /// The operating system refused an operation on `path`.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done, e.g. `cannot read`.
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line of a games.csv is not a valid row (or header).
    Malformed {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: u64,
        /// What is wrong, naming the column where one is at fault.
        reason: String,
    },
    /// A record that cannot be written, e.g. a text field with a line break.
    InvalidRecord {
        /// [`GameRecord::game_id`] of the record.
        game_id: u64,
        /// What is wrong.
        reason: String,
    },
}

impl RecordsError {
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
        source: std::io::Error,
    ) -> Self {
        RecordsError::Io {
            path: path.into(),
            action,
            source,
        }
    }
}

impl fmt::Display for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordsError::Io {
                path,
                action,
                source,
            } => write!(f, "{}: {action}: {source}", path.display()),
            RecordsError::Malformed { path, line, reason } => {
                write!(f, "{}, line {line}: {reason}", path.display())
            }
            RecordsError::InvalidRecord { game_id, reason } => {
                write!(f, "game {game_id}: {reason}")
            }
        }
    }
}

/// The message of [`RecordsError::Io`] already ends with the operating system's reason, so no
/// variant reports a `source` (a chain printer would repeat it).
impl std::error::Error for RecordsError {}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::Rules;

    /// Writes `games` to a run directory `dir` (created); returns the path of its games.csv.
    pub(crate) fn write(dir: &Path, games: &[GameRecord]) -> PathBuf {
        let mut writer = ResultsWriter::open(dir, Rules::Classic).unwrap();
        for game in games {
            writer.append(game).unwrap();
        }
        writer.csv_path().to_path_buf()
    }

    /// A record with the given engines and result; other fields plausible.
    pub(crate) fn record(
        game_id: u64,
        pair: u64,
        white: &str,
        black: &str,
        result: GameResult,
        termination: Termination,
    ) -> GameRecord {
        GameRecord {
            game_id,
            round: 1,
            pair,
            opening_id: pair,
            opening: "startpos".into(),
            white: white.into(),
            black: black.into(),
            result,
            termination,
            plies: 3,
            moves: "a2a3 a7a6 b2b3".into(),
            white_ms: 1500,
            black_ms: 1200,
            started: "2026-11-30T12:00:00Z".into(),
            white_stray: 0,
            black_stray: 0,
            move_info: String::new(),
            claims: String::new(),
            move_times: String::new(),
        }
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "game"), "1 game");
        assert_eq!(plural(2, "game"), "2 games");
        assert_eq!(plural(0, "loss"), "0 losses");
        assert_eq!(plural(1, "loss"), "1 loss");
    }

    #[test]
    fn results_and_winners() {
        for color in [Color::White, Color::Black] {
            assert_eq!(GameResult::from_winner(color).winner(), color);
        }
        assert_eq!(GameResult::WhiteWins.to_string(), "1-0");
        assert_eq!(GameResult::BlackWins.to_string(), "0-1");
        let game = record(1, 1, "a", "b", GameResult::BlackWins, Termination::GoalRank);
        assert_eq!((game.winner_name(), game.loser_name()), ("b", "a"));
    }

    #[test]
    fn terminations_are_named_and_classified() {
        let names: Vec<String> = Termination::ALL.iter().map(|t| t.to_string()).collect();
        assert_eq!(
            names,
            [
                "goal-rank",
                "all-captured",
                "no-moves",
                "illegal-move",
                "time-forfeit",
                "crash",
                "stall",
                "resign",
                "proof",
                "adjudication"
            ]
        );
        let faults: Vec<bool> = Termination::ALL.iter().map(|t| t.is_fault()).collect();
        assert_eq!(
            faults,
            [
                false, false, false, true, true, true, true, false, false, false
            ]
        );
        let adjudications: Vec<bool> = Termination::ALL
            .iter()
            .map(|t| t.is_adjudication())
            .collect();
        assert_eq!(
            adjudications,
            [
                false, false, false, false, false, false, false, true, true, true
            ]
        );
        let tags: Vec<&str> = Termination::ALL.iter().map(|t| t.pgn_tag()).collect();
        assert_eq!(
            tags,
            [
                "normal",
                "normal",
                "normal",
                "rules infraction",
                "time forfeit",
                "abandoned",
                "abandoned",
                "adjudication",
                "adjudication",
                "adjudication"
            ]
        );
        for termination in Termination::ALL {
            let json = serde_json::to_string(&termination).unwrap();
            assert_eq!(json, format!("\"{termination}\""));
        }
        let standard = crate::rules::Board::STANDARD;
        assert_eq!(
            Termination::Resign.describe(Color::White, standard),
            "Black resigns"
        );
        assert_eq!(
            Termination::Proof.describe(Color::Black, standard),
            "Black wins by proof"
        );
        assert_eq!(Termination::from(Reason::NoMoves), Termination::NoMoves);
        assert_eq!(Termination::from(Reason::GoalRank), Termination::GoalRank);
        assert_eq!(
            Termination::from(Reason::AllCaptured),
            Termination::AllCaptured
        );
        assert_eq!(
            Termination::GoalRank.describe(Color::Black, standard),
            "Black reaches rank 1"
        );
        assert_eq!(
            Termination::GoalRank.describe(Color::White, standard),
            "White reaches rank 8"
        );
        let small = crate::rules::Board::new(6, 5).unwrap();
        assert_eq!(
            Termination::GoalRank.describe(Color::White, small),
            "White reaches rank 6"
        );
        assert_eq!(
            Termination::TimeForfeit.describe(Color::White, standard),
            "Black loses on time"
        );
    }

    #[test]
    fn now_is_rfc3339_utc_seconds() {
        let now = now_rfc3339();
        assert_eq!(now.len(), "2026-11-30T12:00:00Z".len(), "{now}");
        assert!(now.ends_with('Z'));
        assert!(humantime::parse_rfc3339(&now).is_ok());
    }
}
