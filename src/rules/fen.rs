//! The FEN of a position: parsing and writing it.
//!
//! Breakthrough's FEN is chess's first two fields: the board, its ranks from the top one down
//! to rank 1 separated by `/` (`P` a white pawn, `p` a black pawn, a digit a run of empty
//! squares), then the side to move, `w` or `b`; e.g.
//! `pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w`, or `ppppp/ppppp/5/5/PPPPP/PPPPP w` on 6×5.
//! `startpos` stands for the start position of the board. A FEN is read for one board
//! ([`Position::from_fen`]); one of another shape is refused, naming the rank that does not fit.

use super::{Board, Color, Position, Square};
use std::fmt;
use std::str::FromStr;

/// Why a FEN or a set of bitboards is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Nothing to parse.
    Empty,
    /// The board part does not have as many ranks as the board, separated by `/`.
    RankCount {
        /// How many ranks were found.
        found: usize,
        /// The board the FEN was read for.
        board: Board,
    },
    /// A rank does not describe exactly as many squares as the board has files.
    RankLength {
        /// The rank, 1–8, counted from the bottom of the board (the FEN's last field is rank 1).
        rank: u8,
        /// How many squares it describes.
        squares: usize,
        /// The board the FEN was read for.
        board: Board,
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
    /// A side has more pawns than its two rows at the start (16 on 8×8).
    TooManyPawns {
        /// The side.
        color: Color,
        /// How many it has.
        count: u32,
        /// The most it may have on this board.
        most: u32,
    },
    /// A pawn stands off the board (bitboards given to [`Position::on_board`]).
    OffBoard {
        /// The first such square.
        square: Square,
        /// The board.
        board: Board,
    },
    /// White has a pawn on rank 8 and Black one on rank 1: no game reaches that.
    BothOnGoal,
    /// The board has no pawns at all.
    NoPawns,
    /// A FEN read without a board whose shape is no board from 4×4 to 8×8
    /// ([`Position::from_fen_any`]).
    Shape(super::BoardError),
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
            PositionError::RankCount { found, board } => {
                write!(
                    f,
                    "the board has {found} ranks, expected {} separated by '/'",
                    board.ranks()
                )?;
                write_board(f, *board)
            }
            PositionError::RankLength {
                rank,
                squares,
                board,
            } => {
                write!(
                    f,
                    "rank {rank} describes {squares} squares, expected {}",
                    board.files()
                )?;
                write_board(f, *board)
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
            PositionError::TooManyPawns { color, count, most } => {
                write!(f, "{color} has {count} pawns, at most {most} are allowed")
            }
            PositionError::OffBoard { square, board } => write!(
                f,
                "a pawn on {square}, which is off the {board} board (files a-{}, ranks 1-{})",
                board.last_file(),
                board.ranks()
            ),
            PositionError::BothOnGoal => write!(
                f,
                "both sides stand on their goal ranks (White on rank 8, Black on rank 1)"
            ),
            PositionError::NoPawns => write!(f, "the board has no pawns"),
            PositionError::Shape(err) => write!(f, "{err}"),
            PositionError::Overlap => write!(f, "a square holds a pawn of each side"),
            PositionError::AfterStartpos(extra) => write!(
                f,
                "unexpected '{extra}' after startpos (a position string holds no moves)"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// Writes ` (a 6x6 board)` after a shape error on a board other than 8×8 (the 8×8 messages
/// read as they always have).
fn write_board(f: &mut fmt::Formatter<'_>, board: Board) -> fmt::Result {
    if board.is_standard() {
        Ok(())
    } else {
        write!(f, " (a {board} board)")
    }
}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses a FEN of the 8×8 board, as [`Position::from_fen`] with [`Board::STANDARD`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Position::from_fen(text, Board::STANDARD)
    }
}

impl Position {
    /// Parses `startpos` (the start of `board`) or `<board> <side> [ignored fields...]`: the
    /// board is its ranks from the top one down to rank 1 separated by `/`, `P` a white pawn,
    /// `p` a black pawn, a digit a run of empty squares; the side is `w` or `b`. Trailing
    /// fields such as Fairy-Stockfish's `- - 0 1` are ignored.
    ///
    /// # Errors
    /// [`PositionError`] naming what is wrong: a FEN of another shape than `board` names the
    /// rank that does not fit ([`PositionError::RankCount`], [`PositionError::RankLength`]).
    pub fn from_fen(text: &str, board: Board) -> Result<Position, PositionError> {
        let mut fields = text.split_whitespace();
        let placement = fields.next().ok_or(PositionError::Empty)?;
        if placement == "startpos" {
            return match fields.next() {
                None => Ok(Position::start(board)),
                Some(extra) => Err(PositionError::AfterStartpos(extra.to_string())),
            };
        }
        let (white, black) = parse_board(placement, board)?;
        let side = match fields.next() {
            None => return Err(PositionError::MissingSide),
            Some("w") => Color::White,
            Some("b") => Color::Black,
            Some(other) => return Err(PositionError::BadSide(other.to_string())),
        };
        Position::on_board(board, white, black, side)
    }
}

impl Position {
    /// Parses a FEN of any board from 4×4 to 8×8, the board read from its shape: as many ranks
    /// as the FEN has fields separated by `/`, as many files as its top rank describes.
    /// `startpos` is the start of 8×8. For engines, which may be given a position of any size.
    ///
    /// # Errors
    /// [`PositionError::Shape`] for a shape outside 4×4..8×8, else as [`Position::from_fen`].
    pub fn from_fen_any(text: &str) -> Result<Position, PositionError> {
        let placement = text.split_whitespace().next().unwrap_or_default();
        if placement == "startpos" || placement.is_empty() {
            return Position::from_fen(text, Board::STANDARD);
        }
        let ranks = placement.split('/').count();
        let files: usize = placement
            .split('/')
            .next()
            .unwrap_or_default()
            .chars()
            .map(|ch| ch.to_digit(10).map_or(1, |n| n as usize))
            .sum();
        let count = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
        let board = Board::new(count(ranks), count(files)).map_err(PositionError::Shape)?;
        Position::from_fen(text, board)
    }
}

/// Parses the board field of a FEN of `board` into (white, black) bitboards.
fn parse_board(placement: &str, board: Board) -> Result<(u64, u64), PositionError> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != usize::from(board.ranks()) {
        return Err(PositionError::RankCount {
            found: ranks.len(),
            board,
        });
    }
    let files = usize::from(board.files());
    let mut pawns = [0u64; 2];
    // The ranks are written from the top one down.
    for (rank, text) in (0..board.ranks()).rev().zip(ranks) {
        let mut file = 0usize;
        for ch in text.chars() {
            match ch {
                '1'..='8' => file += ch as usize - '0' as usize,
                'P' | 'p' => {
                    let color = if ch == 'P' {
                        Color::White
                    } else {
                        Color::Black
                    };
                    if file < files {
                        pawns[color.index()] |= 1 << (usize::from(rank) * 8 + file);
                    }
                    file += 1;
                }
                _ => return Err(PositionError::UnknownCharacter { ch, rank: rank + 1 }),
            }
        }
        if file != files {
            return Err(PositionError::RankLength {
                rank: rank + 1,
                squares: file,
                board,
            });
        }
    }
    Ok((pawns[0], pawns[1]))
}

impl fmt::Display for Position {
    /// Writes the FEN: the ranks from the top one down to rank 1, then `w` or `b`, e.g.
    /// `pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = self.board();
        for rank in (0..board.ranks()).rev() {
            let mut empty = 0;
            for file in 0..board.files() {
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
            (
                "8/8/8/8/8/8/8 w",
                PositionError::RankCount {
                    found: 7,
                    board: Board::STANDARD,
                },
            ),
            (
                "8/8/8/8/8/8/8/8/8 w",
                PositionError::RankCount {
                    found: 9,
                    board: Board::STANDARD,
                },
            ),
            (
                "8/8/7/8/8/8/8/P7 w",
                PositionError::RankLength {
                    rank: 6,
                    squares: 7,
                    board: Board::STANDARD,
                },
            ),
            (
                "8/8/8/8/8/8/8/P8 w",
                PositionError::RankLength {
                    rank: 1,
                    squares: 9,
                    board: Board::STANDARD,
                },
            ),
            (
                "8/8/8/8/8/8/8/PPPPPPPPP w",
                PositionError::RankLength {
                    rank: 1,
                    squares: 9,
                    board: Board::STANDARD,
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
                    most: 16,
                },
            ),
            (
                "pppppppp/pppppppp/p7/8/8/8/8/P7 w",
                PositionError::TooManyPawns {
                    color: Color::Black,
                    count: 17,
                    most: 16,
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

    #[test]
    fn a_fen_read_without_a_board_takes_the_board_of_its_shape() {
        for size in Board::all() {
            let start = Position::start(size);
            assert_eq!(Position::from_fen_any(&start.to_string()), Ok(start));
        }
        assert_eq!(Position::from_fen_any("startpos"), Ok(Position::startpos()));
        let message = |text: &str| Position::from_fen_any(text).unwrap_err().to_string();
        assert_eq!(
            message("ppp/3/PPP w"),
            "a board of 3 ranks is not supported: ranks and files go from 4 to 8"
        );
        assert_eq!(
            message("pppppppp1/4/4/PPPP w"),
            "a board of 9 files is not supported: ranks and files go from 4 to 8"
        );
        assert_eq!(
            message("pppp/pppp/4/3/PPPP/PPPP w"),
            "rank 3 describes 3 squares, expected 4 (a 6x4 board)"
        );
    }

    #[test]
    fn fens_of_every_board_round_trip_and_other_shapes_name_the_rank() {
        let board = |text: &str| text.parse::<Board>().unwrap();
        for size in Board::all() {
            let start = Position::start(size);
            let fen = start.to_string();
            assert_eq!(Position::from_fen(&fen, size), Ok(start), "{fen}");
            assert_eq!(Position::from_fen("startpos", size), Ok(start));
        }
        assert_eq!(
            Position::start(board("6x5")).to_string(),
            "ppppp/ppppp/5/5/PPPPP/PPPPP w"
        );
        let text = "1p2/p3/4/2P1/P3 b";
        assert_eq!(
            Position::from_fen(text, board("5x4")).unwrap().to_string(),
            text
        );
        let refused = |text: &str, size: &str| {
            Position::from_fen(text, board(size))
                .unwrap_err()
                .to_string()
        };
        // A 6x6 start given for other boards.
        let six = "pppppp/pppppp/6/6/PPPPPP/PPPPPP w";
        assert_eq!(
            refused(six, "6x5"),
            "rank 6 describes 6 squares, expected 5 (a 6x5 board)"
        );
        assert_eq!(
            refused(six, "7x6"),
            "the board has 6 ranks, expected 7 separated by '/' (a 7x6 board)"
        );
        assert_eq!(
            refused(six, "8x8"),
            "the board has 6 ranks, expected 8 separated by '/'"
        );
        assert_eq!(
            refused("pppppp/pppppp/6/5/PPPPPP/PPPPPP w", "6x6"),
            "rank 3 describes 5 squares, expected 6 (a 6x6 board)"
        );
        assert_eq!(
            refused("pppp/pppp/pppp/4/PPPP/PPPP w", "6x4"),
            "Black has 12 pawns, at most 8 are allowed"
        );
        assert_eq!(
            Position::on_board(board("4x4"), 1 << 4, 0, Color::White),
            Err(PositionError::OffBoard {
                square: Square(4),
                board: board("4x4")
            })
        );
        assert_eq!(
            Position::on_board(board("4x4"), 1 << 32, 0, Color::White)
                .unwrap_err()
                .to_string(),
            "a pawn on a5, which is off the 4x4 board (files a-d, ranks 1-4)"
        );
    }
}
