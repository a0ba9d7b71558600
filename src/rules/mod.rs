//! The reference rules of Breakthrough: squares, moves, positions and their FEN, move
//! generation, move checking, perft and perft suites, and moves that reach a position from the
//! start ([`path`]).
//!
//! For users (`docs/guide/rules.md`): capture-only rules by default, classic with `--rules
//! classic`; reaching the far rank, capturing every pawn or leaving the opponent no move wins.
//!
//! The harness judges every engine move with this module, so it is exact first and fast second.
//! Positions are a board size ([`Board`], 4×4 to 8×8), two bitboards (`u64`, bit `8 * rank +
//! file`, a1 = bit 0, h8 = bit 63: a smaller board is embedded at the bottom-left) and a side to
//! move. White moves towards the top rank (8 on 8×8), Black towards rank 1.
//!
//! Two rule sets exist ([`Rules`]): under [`Rules::CaptureOnly`] (the default) a pawn steps
//! straight ahead onto an empty square or diagonally forward only to capture; under
//! [`Rules::Classic`] a diagonal step may also go to an empty square. Under both, a player wins
//! by reaching the far rank, by capturing every enemy pawn, or when the opponent has no legal
//! move on its turn. There are no draws.

mod board;
mod by_color;
mod fen;
mod legality;
mod movegen;
pub mod path;
pub mod perft;
mod position;
pub mod proof;
pub mod pv;
pub mod suite;

pub use board::{Board, BoardError};
pub use by_color::ByColor;
pub use fen::PositionError;
pub use legality::{IllegalMove, IllegalReason, MoveError};
pub(crate) use movegen::{Black, Side, Step, White};
pub use movegen::{MoveSet, Moves};
pub use position::Position;

use std::fmt;
use std::str::FromStr;

/// A side: White moves first, from ranks 1–2 towards rank 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that starts on ranks 1–2 and moves first.
    White,
    /// The side that starts on ranks 7–8.
    Black,
}

impl Color {
    /// The other side.
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black: the index of this side's bitboard.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank (0-based: 0 is rank 1) a pawn of this side must reach to win on 8×8
    /// ([`Board::goal_rank`] on any board).
    pub const fn goal_rank(self) -> u8 {
        match self {
            Color::White => 7,
            Color::Black => 0,
        }
    }

    /// The letter of this side in a FEN: `w` or `b`.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// The rule set in force. Named on the command line by `--rules capture-only|classic`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Rules {
    /// The project's default: a diagonal step must capture; a straight step must land on an
    /// empty square.
    #[default]
    CaptureOnly,
    /// Classic Breakthrough: a diagonal step may also go to an empty square.
    Classic,
}

crate::named_enum!(Rules, "rule set", [CaptureOnly => "capture-only", Classic => "classic"]);

/// A square of the 8×8 board, 0 (a1) to 63 (h8): index `8 * rank + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at `file` (0 = a) and `rank` (0 = rank 1); `None` off the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// The square with index `index` (0..64); `None` past 63.
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The index, 0 (a1) to 63 (h8).
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The file, 0 (a) to 7 (h).
    pub const fn file(self) -> u8 {
        self.0 % 8
    }

    /// The rank, 0 (rank 1) to 7 (rank 8).
    pub const fn rank(self) -> u8 {
        self.0 / 8
    }

    /// This square as a one-bit bitboard.
    pub const fn bit(self) -> u64 {
        1 << self.0
    }
}

impl Square {
    /// The name, e.g. `b"e4"`, as ASCII bytes.
    const fn name(self) -> [u8; 2] {
        [b'a' + self.file(), b'1' + self.rank()]
    }
}

/// Writes ASCII `bytes` through `f` (with its width and alignment), without the formatting
/// machinery per character: moves are written many times per game.
fn write_ascii(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    f.pad(std::str::from_utf8(bytes).map_err(|_| fmt::Error)?)
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_ascii(f, &self.name())
    }
}

impl FromStr for Square {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseMoveError::BadSquare(s.to_string());
        match s.as_bytes() {
            [file @ b'a'..=b'h', rank @ b'1'..=b'8'] => {
                Square::new(file - b'a', rank - b'1').ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }
}

/// A move: one pawn from one square to another, written `a2a3` (from, then to).
///
/// A `Move` is only a pair of squares; whether it is legal depends on a position and the rules
/// ([`Position::parse_move`], [`Position::check_move`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The square the pawn leaves.
    pub from: Square,
    /// The square the pawn lands on.
    pub to: Square,
}

impl Move {
    /// The move's text as ASCII bytes, `b"a2a3"`: what [`Display`](fmt::Display) writes,
    /// without the formatting machinery (the runner writes every move of a game into each
    /// `position` command).
    pub const fn to_ascii(self) -> [u8; 4] {
        let ([a, b], [c, d]) = (self.from.name(), self.to.name());
        [a, b, c, d]
    }

    /// Appends the move's text (`a2a3`) to `out`.
    pub fn push_to(self, out: &mut String) {
        for byte in self.to_ascii() {
            out.push(char::from(byte));
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_ascii(f, &self.to_ascii())
    }
}

/// Why a move string is not even the shape of a move (its legality is [`IllegalMove`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseMoveError {
    /// Not four characters `<file><rank><file><rank>`, e.g. `a2a3`.
    BadLength(String),
    /// A square that is not a file `a`–`h` followed by a rank `1`–`8`.
    BadSquare(String),
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseMoveError::BadLength(s) => write!(
                f,
                "bad move '{s}': expected four characters like 'a2a3' (from square, to square)"
            ),
            ParseMoveError::BadSquare(s) => write!(
                f,
                "bad square '{s}': expected a file a-h followed by a rank 1-8"
            ),
        }
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() != 4 || !s.is_ascii() {
            return Err(ParseMoveError::BadLength(s.to_string()));
        }
        Ok(Move {
            from: s[..2].parse()?,
            to: s[2..].parse()?,
        })
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The winner moved a pawn onto its far rank.
    GoalRank,
    /// The loser has no pawns left.
    AllCaptured,
    /// The loser had no legal move on its turn.
    NoMoves,
}

impl Reason {
    /// The name used in result files: `goal-rank`, `all-captured`, `no-moves`.
    pub const fn name(self) -> &'static str {
        match self {
            Reason::GoalRank => "goal-rank",
            Reason::AllCaptured => "all-captured",
            Reason::NoMoves => "no-moves",
        }
    }
}

/// The end of a game: who won and why. Breakthrough has no draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The side that won.
    pub winner: Color,
    /// Why the game is over.
    pub reason: Reason,
    /// The board it was played on (whose far rank a goal-rank win reached).
    pub board: Board,
}

impl fmt::Display for Outcome {
    /// Reads like `White reached rank 8`, `Black captured every White pawn`,
    /// `White has no legal move`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let winner = self.winner;
        let loser = winner.opponent();
        match self.reason {
            Reason::GoalRank => write!(
                f,
                "{winner} reached rank {}",
                self.board.goal_rank(winner) + 1
            ),
            Reason::AllCaptured => write!(f, "{winner} captured every {loser} pawn"),
            Reason::NoMoves => write!(f, "{loser} has no legal move"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_through_strings() {
        for index in 0..64 {
            let square = Square::from_index(index).unwrap();
            assert_eq!(square.to_string().parse::<Square>(), Ok(square));
        }
        assert_eq!(Square::new(0, 0).unwrap().to_string(), "a1");
        assert_eq!(Square::new(7, 7).unwrap().to_string(), "h8");
        assert_eq!(Square::new(8, 0), None);
        assert_eq!(Square::from_index(64), None);
    }

    #[test]
    fn move_strings_round_trip_and_bad_ones_are_named() {
        let mv: Move = "a2b3".parse().unwrap();
        assert_eq!(&mv.to_ascii(), b"a2b3");
        let mut text = String::from("x ");
        mv.push_to(&mut text);
        assert_eq!(text, "x a2b3");
        assert_eq!(mv.from.to_string(), "a2");
        assert_eq!(mv.to.to_string(), "b3");
        assert_eq!(mv.to_string(), "a2b3");
        assert_eq!(
            "a2a".parse::<Move>(),
            Err(ParseMoveError::BadLength("a2a".into()))
        );
        assert_eq!(
            "a2a33".parse::<Move>(),
            Err(ParseMoveError::BadLength("a2a33".into()))
        );
        assert_eq!(
            "i2a3".parse::<Move>(),
            Err(ParseMoveError::BadSquare("i2".into()))
        );
        assert_eq!(
            "a2a9".parse::<Move>(),
            Err(ParseMoveError::BadSquare("a9".into()))
        );
        assert_eq!(
            "a2é".parse::<Move>(),
            Err(ParseMoveError::BadLength("a2é".into()))
        );
        assert!(
            "i2a3"
                .parse::<Move>()
                .unwrap_err()
                .to_string()
                .contains("'i2'")
        );
    }

    #[test]
    fn rules_names_round_trip() {
        for rules in Rules::ALL {
            assert_eq!(rules.name().parse::<Rules>(), Ok(rules));
        }
        assert_eq!(Rules::default(), Rules::CaptureOnly);
        let err = "chess".parse::<Rules>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown rule set 'chess' (expected capture-only or classic)"
        );
    }

    #[test]
    fn outcomes_read_as_sentences() {
        let outcome = |winner, reason| {
            Outcome {
                winner,
                reason,
                board: Board::STANDARD,
            }
            .to_string()
        };
        assert_eq!(
            outcome(Color::White, Reason::GoalRank),
            "White reached rank 8"
        );
        assert_eq!(
            outcome(Color::Black, Reason::GoalRank),
            "Black reached rank 1"
        );
        assert_eq!(
            outcome(Color::Black, Reason::AllCaptured),
            "Black captured every White pawn"
        );
        assert_eq!(
            outcome(Color::White, Reason::NoMoves),
            "Black has no legal move"
        );
        let small = Outcome {
            winner: Color::White,
            reason: Reason::GoalRank,
            board: "5x6".parse().unwrap(),
        };
        assert_eq!(small.to_string(), "White reached rank 5");
    }
}
