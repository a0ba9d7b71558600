//! The FEN of a position: parsing and writing it.
//!
//! Breakthrough's FEN is chess's first two fields: the board, ranks 8 to 1 separated by `/`
//! (`P` a white pawn, `p` a black pawn, a digit a run of empty squares), then the side to move,
//! `w` or `b`; e.g. `pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w`. `startpos` stands for the
//! start position.

use super::{Color, Position, Square};
use std::fmt;
use std::str::FromStr;

/// Why a FEN or a set of bitboards is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Nothing to parse.
    Empty,
    /// The board part does not have 8 ranks separated by `/`.
    RankCount {
        /// How many ranks were found.
        found: usize,
    },
    /// A rank does not describe exactly 8 squares.
    RankLength {
        /// The rank, 1–8.
        rank: u8,
        /// How many squares it describes.
        squares: usize,
    },
    /// A character that is neither `P`, `p` nor a digit 1–8.
    UnknownCharacter {
        /// The character.
        ch: char,
        /// The rank it stands in, 1–8.
        rank: u8,
    },
    /// No side to move after the board.
    MissingSide,
    /// The side to move is not `w` or `b`.
    BadSide(String),
    /// A side has more than 16 pawns.
    TooManyPawns {
        /// The side.
        color: Color,
        /// How many it has.
        count: u32,
    },
    /// White has a pawn on rank 8 and Black one on rank 1: no game reaches that.
    BothOnGoal,
    /// The board has no pawns at all.
    NoPawns,
    /// A square holds a pawn of each side.
    Overlap,
    /// Something follows `startpos` (moves are not part of a FEN).
    AfterStartpos(String),
}

// The messages say "position string", the words users have seen so far.
impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Empty => write!(f, "empty position string"),
            PositionError::RankCount { found } => write!(
                f,
                "the board has {found} ranks, expected 8 separated by '/'"
            ),
            PositionError::RankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares, expected 8")
            }
            PositionError::UnknownCharacter { ch, rank } => write!(
                f,
                "unknown character '{ch}' in rank {rank} (expected 'P', 'p' or a digit 1-8)"
            ),
            PositionError::MissingSide => {
                write!(
                    f,
                    "missing side to move after the board (expected 'w' or 'b')"
                )
            }
            PositionError::BadSide(side) => {
                write!(f, "bad side to move '{side}' (expected 'w' or 'b')")
            }
            PositionError::TooManyPawns { color, count } => {
                write!(f, "{color} has {count} pawns, at most 16 are allowed")
            }
            PositionError::BothOnGoal => write!(
                f,
                "both sides stand on their goal ranks (White on rank 8, Black on rank 1)"
            ),
            PositionError::NoPawns => write!(f, "the board has no pawns"),
            PositionError::Overlap => write!(f, "a square holds a pawn of each side"),
            PositionError::AfterStartpos(extra) => write!(
                f,
                "unexpected '{extra}' after startpos (a position string holds no moves)"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses `startpos` or `<board> <side> [ignored fields...]`: the board is ranks 8 to 1
    /// separated by `/`, `P` a white pawn, `p` a black pawn, a digit a run of empty squares;
    /// the side is `w` or `b`. Trailing fields such as Fairy-Stockfish's `- - 0 1` are ignored.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut fields = text.split_whitespace();
        let board = fields.next().ok_or(PositionError::Empty)?;
        if board == "startpos" {
            return match fields.next() {
                None => Ok(Position::startpos()),
                Some(extra) => Err(PositionError::AfterStartpos(extra.to_string())),
            };
        }
        let (white, black) = parse_board(board)?;
        let side = match fields.next() {
            None => return Err(PositionError::MissingSide),
            Some("w") => Color::White,
            Some("b") => Color::Black,
            Some(other) => return Err(PositionError::BadSide(other.to_string())),
        };
        Position::new(white, black, side)
    }
}

/// Parses the board field into (white, black) bitboards.
fn parse_board(board: &str) -> Result<(u64, u64), PositionError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(PositionError::RankCount { found: ranks.len() });
    }
    let mut pawns = [0u64; 2];
    // The ranks are written from rank 8 (index 7) down.
    for (rank, text) in (0..8u8).rev().zip(ranks) {
        let mut file = 0usize;
        for ch in text.chars() {
            let unknown = PositionError::UnknownCharacter { ch, rank: rank + 1 };
            match ch {
                '1'..='8' => file += ch as usize - '0' as usize,
                'P' | 'p' => {
                    let color = if ch == 'P' {
                        Color::White
                    } else {
                        Color::Black
                    };
                    if file < 8 {
                        pawns[color.index()] |= 1 << (rank as usize * 8 + file);
                    }
                    file += 1;
                }
                _ => return Err(unknown),
            }
        }
        if file != 8 {
            return Err(PositionError::RankLength {
                rank: rank + 1,
                squares: file,
            });
        }
    }
    Ok((pawns[0], pawns[1]))
}

impl fmt::Display for Position {
    /// Writes the FEN: ranks 8 to 1, then `w` or `b`, e.g.
    /// `pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let square = Square(rank * 8 + file);
                match self.pawn_at(square) {
                    None => empty += 1,
                    Some(color) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        f.write_str(if color == Color::White { "P" } else { "p" })?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        write!(f, " {}", self.side_to_move().letter())
    }
}

impl serde::Serialize for Position {
    /// Serializes the position as its FEN, e.g.
    /// `"pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w"`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::tests::pos;

    #[test]
    fn the_start_fen_round_trips() {
        let start = "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w";
        assert_eq!(Position::startpos().to_string(), start);
        assert_eq!(pos(start), Position::startpos());
        assert_eq!(pos("startpos"), Position::startpos());
        assert_eq!(pos(&format!("{start} - - 0 1")), Position::startpos());
    }

    #[test]
    fn fens_round_trip() {
        for text in [
            "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w",
            "8/8/8/1p6/P7/8/8/8 b",
            "ppppppp1/p2p2pp/1pp1pp1p/8/2PP3P/5P2/PP2P1P1/PPPPPPPP b",
        ] {
            assert_eq!(pos(text).to_string(), text);
        }
    }

    #[test]
    fn every_malformed_position_is_refused_with_its_reason() {
        let cases = [
            ("", PositionError::Empty),
            ("   ", PositionError::Empty),
            ("8/8/8/8/8/8/8 w", PositionError::RankCount { found: 7 }),
            ("8/8/8/8/8/8/8/8/8 w", PositionError::RankCount { found: 9 }),
            (
                "8/8/7/8/8/8/8/P7 w",
                PositionError::RankLength {
                    rank: 6,
                    squares: 7,
                },
            ),
            (
                "8/8/8/8/8/8/8/P8 w",
                PositionError::RankLength {
                    rank: 1,
                    squares: 9,
                },
            ),
            (
                "8/8/8/8/8/8/8/PPPPPPPPP w",
                PositionError::RankLength {
                    rank: 1,
                    squares: 9,
                },
            ),
            (
                "8/8/8/8/8/8/8/K7 w",
                PositionError::UnknownCharacter { ch: 'K', rank: 1 },
            ),
            (
                "8/8/8/8/8/8/8/07P w",
                PositionError::UnknownCharacter { ch: '0', rank: 1 },
            ),
            (
                "9/8/8/8/8/8/8/P7 w",
                PositionError::UnknownCharacter { ch: '9', rank: 8 },
            ),
            ("8/8/8/8/8/8/8/P7", PositionError::MissingSide),
            ("8/8/8/8/8/8/8/P7 x", PositionError::BadSide("x".into())),
            (
                "8/8/8/8/8/8/8/P7 white",
                PositionError::BadSide("white".into()),
            ),
            (
                "8/8/8/8/8/PPP5/PPPPPPPP/PPPPPPPP w",
                PositionError::TooManyPawns {
                    color: Color::White,
                    count: 19,
                },
            ),
            (
                "pppppppp/pppppppp/p7/8/8/8/8/P7 w",
                PositionError::TooManyPawns {
                    color: Color::Black,
                    count: 17,
                },
            ),
            ("P7/8/8/8/8/8/8/7p b", PositionError::BothOnGoal),
            ("8/8/8/8/8/8/8/8 w", PositionError::NoPawns),
            (
                "startpos moves a2a3",
                PositionError::AfterStartpos("moves".into()),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<Position>(), Err(expected), "{text:?}");
        }
    }

    #[test]
    fn position_errors_name_the_offending_part() {
        let message = |text: &str| text.parse::<Position>().unwrap_err().to_string();
        assert!(message("8/8/8/8/8/8/8/K7 w").contains("'K' in rank 1"));
        assert!(message("8/8/7/8/8/8/8/P7 w").contains("rank 6"));
        assert!(message("8/8/8/8/8/8/8/P7 x").contains("'x'"));
        assert!(message("8/8/8 w").contains("3 ranks"));
    }
}
