//! The text protocol between the runner and engines, both directions: UGI (cutegames' UCI-style
//! protocol) and UCI, applied to Breakthrough. `docs/PROTOCOL.md` describes the conversation.
//!
//! For users (`docs/guide/engines.md`): engines speak UGI (the default) or UCI over stdin and
//! stdout, and are told the rule set by the option `Rules`.
//!
//! Runner → engine messages are [`Command`]s: [`Command::to_line`] writes one for a [`Protocol`]
//! and [`Command::from_str`] reads either protocol's spelling, so the engine side parses what the
//! runner writes. Engine → runner messages are [`Reply`]s, written by `Display` and read by
//! `FromStr`. Positions and moves are written exactly as [`crate::rules`] writes them.
//!
//! Parsing is strict about what it understands (a malformed number, position or move is a
//! [`ProtocolError`] naming it) and lenient about what it does not: unknown `info` fields are
//! skipped and unknown engine lines become [`Reply::Other`].
//!
//! One file per message family: `command` ([`Command`]), `go` ([`GoLimits`]), `reply`
//! ([`Reply`]), `info` ([`Info`], [`Score`]) and `option` ([`OptionDecl`], [`OptionKind`] and
//! the check of a value); this file holds [`Protocol`], [`ProtocolError`] and the names shared
//! by both sides.

use crate::rules::{Board, ParseMoveError, PositionError, Rules};
use std::fmt;
use std::str::FromStr;

pub mod codingame;
mod command;
mod go;
mod info;
mod option;
mod reply;

pub use command::Command;
pub(crate) use command::{append_moves, write_position};
pub use go::GoLimits;
pub use info::{Info, MATE_VALUE, MAX_MATE_PLIES, Score};
pub use option::{OptionDecl, OptionKind, ValueRefused};
pub use reply::Reply;

/// The name of the engine option that carries the rule set (`capture-only` or `classic`).
pub const RULES_OPTION: &str = "Rules";
/// The UCI option naming the variant (Fairy-Stockfish: `breakthrough` for classic rules).
pub const VARIANT_OPTION: &str = "UCI_Variant";
/// The move text of `bestmove` when the position has no legal move (the game is over).
pub const NO_MOVE: &str = "(none)";

/// The name of the engine option that carries the board's size (`RxC`, ranks × files, as
/// `--board` spells it: `6x6`).
pub const BOARD_OPTION: &str = "Board";

/// The UCI variant of a rule set on a board: on 8×8 `breakthrough` for classic rules
/// (Fairy-Stockfish's own) and `breakthrough-capture-only`; on another board
/// `breakthrough-RxC` and `breakthrough-capture-only-RxC`. All but 8×8 classic are defined by
/// the variants file bt-arena ships for Fairy-Stockfish (`engines/fairy-stockfish/variants.ini`).
pub fn variant_name(rules: Rules, board: Board) -> String {
    let base = match rules {
        Rules::Classic => "breakthrough",
        Rules::CaptureOnly => "breakthrough-capture-only",
    };
    match board.is_standard() {
        true => base.to_string(),
        false => format!("{base}-{board}"),
    }
}

/// Which dialect the runner speaks with an engine.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// UGI: `ugi`/`ugiok`, `uginewgame`, clocks as `p1time p2time p1inc p2inc` (p1 is White).
    #[default]
    Ugi,
    /// UCI: `uci`/`uciok`, `ucinewgame`, clocks as `wtime btime winc binc`.
    Uci,
    /// CodinGame's bot protocol: one process per game, each turn the opponent's last move,
    /// the number of legal moves and the moves, answered by one line (the move and an
    /// optional message). No handshake, no option, no command: [`codingame`] has its lines,
    /// `crate::engine` its runner's side. None of the methods below applies to it.
    #[serde(rename = "codingame")]
    CodinGame,
}

impl Protocol {
    /// The engine's answer that ends the handshake: `ugiok` or `uciok`.
    pub const fn ok(self) -> &'static str {
        match self {
            Protocol::Ugi | Protocol::CodinGame => "ugiok",
            Protocol::Uci => "uciok",
        }
    }

    /// The other handshake's protocol: UCI for UGI and UGI for UCI (a bot has none: itself).
    pub const fn other(self) -> Protocol {
        match self {
            Protocol::Ugi => Protocol::Uci,
            Protocol::Uci => Protocol::Ugi,
            Protocol::CodinGame => Protocol::CodinGame,
        }
    }

    /// `UGI`, `UCI` or `CodinGame`, for messages.
    pub const fn upper(self) -> &'static str {
        match self {
            Protocol::Ugi => "UGI",
            Protocol::Uci => "UCI",
            Protocol::CodinGame => "CodinGame",
        }
    }

    /// The new-game command: `uginewgame` or `ucinewgame`.
    pub const fn new_game(self) -> &'static str {
        match self {
            Protocol::Ugi | Protocol::CodinGame => "uginewgame",
            Protocol::Uci => "ucinewgame",
        }
    }

    /// The `go` keywords for White's time, Black's time, White's and Black's increment.
    const fn clock_keys(self) -> [&'static str; 4] {
        match self {
            Protocol::Ugi | Protocol::CodinGame => ["p1time", "p2time", "p1inc", "p2inc"],
            Protocol::Uci => ["wtime", "btime", "winc", "binc"],
        }
    }
}

crate::named_enum!(Protocol, "protocol", [Ugi => "ugi", Uci => "uci", CodinGame => "codingame"]);

impl Protocol {
    /// True for [`Protocol::CodinGame`]: a bot, not a UGI/UCI engine.
    pub const fn is_bot(self) -> bool {
        matches!(self, Protocol::CodinGame)
    }
}

/// What is wrong with a protocol line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// An empty line where a command was expected.
    Empty,
    /// A command word this protocol does not have.
    UnknownCommand(String),
    /// A keyword that needs a value is last on the line.
    MissingValue(String),
    /// A keyword whose value is not a number of the expected kind.
    BadNumber {
        /// The keyword, e.g. `depth`.
        key: String,
        /// The text found.
        value: String,
    },
    /// A word that does not belong where it stands.
    Unexpected {
        /// What was being read, e.g. `go`.
        context: &'static str,
        /// The word.
        token: String,
    },
    /// A position string the rules refuse.
    BadPosition(PositionError),
    /// A word in a move list that is not a move.
    BadMove(ParseMoveError),
    /// An `option` declaration that is malformed (the text says how).
    BadOption(String),
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Empty => write!(f, "empty line"),
            ProtocolError::UnknownCommand(word) => write!(f, "unknown command '{word}'"),
            ProtocolError::MissingValue(key) => write!(f, "'{key}' needs a value"),
            ProtocolError::BadNumber { key, value } => {
                write!(f, "'{key}' needs a number, got '{value}'")
            }
            ProtocolError::Unexpected { context, token } => {
                write!(f, "unexpected '{token}' in {context}")
            }
            ProtocolError::BadPosition(err) => write!(f, "bad position: {err}"),
            ProtocolError::BadMove(err) => write!(f, "bad move list: {err}"),
            ProtocolError::BadOption(problem) => write!(f, "bad option declaration: {problem}"),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// Parses the value after `key`, naming both when it is missing or not a `T`.
fn parse_number<T: FromStr>(key: &str, value: Option<&str>) -> Result<T, ProtocolError> {
    let value = value.ok_or_else(|| ProtocolError::MissingValue(key.to_string()))?;
    value.parse().map_err(|_| ProtocolError::BadNumber {
        key: key.to_string(),
        value: value.to_string(),
    })
}

/// Fails with [`ProtocolError::Unexpected`] when `rest` has another word.
fn expect_end<'a>(
    context: &'static str,
    mut rest: impl Iterator<Item = &'a str>,
) -> Result<(), ProtocolError> {
    match rest.next() {
        None => Ok(()),
        Some(token) => Err(ProtocolError::Unexpected {
            context,
            token: token.to_string(),
        }),
    }
}

/// The error parsing `line` as a `T`; panics when it parses.
#[cfg(test)]
fn parse_err<T: FromStr<Err = ProtocolError> + fmt::Debug>(line: &str) -> ProtocolError {
    match line.parse::<T>() {
        Ok(parsed) => panic!("'{line}' parsed as {parsed:?}"),
        Err(err) => err,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_protocol_names() {
        let six: Board = "6x5".parse().unwrap();
        assert_eq!(
            variant_name(Rules::Classic, Board::STANDARD),
            "breakthrough"
        );
        assert_eq!(
            variant_name(Rules::CaptureOnly, Board::STANDARD),
            "breakthrough-capture-only"
        );
        assert_eq!(variant_name(Rules::Classic, six), "breakthrough-6x5");
        assert_eq!(
            variant_name(Rules::CaptureOnly, six),
            "breakthrough-capture-only-6x5"
        );

        assert_eq!("uci".parse::<Protocol>(), Ok(Protocol::Uci));
        assert_eq!(
            "xboard".parse::<Protocol>().unwrap_err().to_string(),
            "unknown protocol 'xboard' (expected ugi, uci or codingame)"
        );
        assert_eq!("UCI".parse::<Protocol>(), Ok(Protocol::Uci));
    }
}
