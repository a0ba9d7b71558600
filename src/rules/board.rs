//! Board sizes: every rank and file count from 4 to 8 ([`Board`]), written `RxC` (ranks ×
//! files) as `--board 6x6` takes it.
//!
//! A smaller board is embedded in the 8×8 bitboard at its bottom-left corner: a1 is bit 0 on
//! every board, a square keeps its index `8 * rank + file`, and the board is the mask of its
//! squares ([`Board::squares`]) and the goal ranks of the two sides ([`Board::goal`]). 8×8 is
//! the same code with a full mask, so its move generation pays one AND per target set (the
//! figures are in `benches/README.md`).
//!
//! The start of every board is the 8×8 start scaled: two rows of pawns for each side, White on
//! ranks 1–2 moving first, Black on the top two ranks; the goal is the far rank.

use std::fmt;
use std::str::FromStr;

use super::Color;

/// The fewest ranks or files a board has.
pub const MIN_SIDE: u8 = 4;
/// The most ranks or files a board has.
pub const MAX_SIDE: u8 = 8;

/// A board size: `ranks` × `files`, each from 4 to 8 ([`MIN_SIDE`]..=[`MAX_SIDE`]). Written
/// and parsed as `RxC`, e.g. `6x5` (6 ranks, 5 files); the default is 8×8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    ranks: u8,
    files: u8,
}

impl Board {
    /// The 8×8 board.
    pub const STANDARD: Board = Board { ranks: 8, files: 8 };

    /// The board of `ranks` × `files`.
    ///
    /// # Errors
    /// [`BoardError::OutOfRange`] naming the count outside 4..=8.
    pub const fn new(ranks: u8, files: u8) -> Result<Board, BoardError> {
        if ranks < MIN_SIDE || ranks > MAX_SIDE {
            return Err(BoardError::OutOfRange {
                what: "ranks",
                count: ranks as u32,
            });
        }
        if files < MIN_SIDE || files > MAX_SIDE {
            return Err(BoardError::OutOfRange {
                what: "files",
                count: files as u32,
            });
        }
        Ok(Board { ranks, files })
    }

    /// Every board from 4×4 to 8×8, ranks first: 4×4, 4×5, ... 8×8.
    pub fn all() -> impl Iterator<Item = Board> {
        (MIN_SIDE..=MAX_SIDE)
            .flat_map(|ranks| (MIN_SIDE..=MAX_SIDE).map(move |files| Board { ranks, files }))
    }

    /// The number of ranks, 4 to 8.
    pub const fn ranks(self) -> u8 {
        self.ranks
    }

    /// The number of files, 4 to 8.
    pub const fn files(self) -> u8 {
        self.files
    }

    /// True for the 8×8 board.
    pub const fn is_standard(self) -> bool {
        self.ranks == 8 && self.files == 8
    }

    /// The first rank (rank 1) of this board as a bitboard.
    #[inline(always)]
    const fn first_rank(self) -> u64 {
        (1u64 << self.files) - 1
    }

    /// The squares of this board as a bitboard of the 8×8 embedding.
    #[inline(always)]
    pub const fn squares(self) -> u64 {
        let rows = 8 * self.ranks as u32;
        let below = if rows == 64 {
            u64::MAX
        } else {
            (1u64 << rows) - 1
        };
        below & (0x0101_0101_0101_0101 * self.first_rank())
    }

    /// The rank (0-based: 0 is rank 1) a pawn of `color` must reach to win.
    pub const fn goal_rank(self, color: Color) -> u8 {
        match color {
            Color::White => self.ranks - 1,
            Color::Black => 0,
        }
    }

    /// The goal rank of `color` as a bitboard.
    #[inline(always)]
    pub const fn goal(self, color: Color) -> u64 {
        self.first_rank() << (8 * self.goal_rank(color) as u32)
    }

    /// The rank `rank` (0-based) counted from `color`'s first rank: 0 its home rank, `ranks - 1`
    /// its goal.
    pub const fn relative_rank(self, color: Color, rank: u8) -> u8 {
        match color {
            Color::White => rank,
            Color::Black => self.ranks - 1 - rank,
        }
    }

    /// The pawns of `color` at the start: its two home rows.
    pub const fn start_pawns(self, color: Color) -> u64 {
        let two_rows = self.first_rank() * 0x0101;
        match color {
            Color::White => two_rows,
            Color::Black => two_rows << (8 * (self.ranks as u32 - 2)),
        }
    }

    /// The most pawns a side can have: its two rows at the start.
    pub const fn max_pawns(self) -> u32 {
        2 * self.files as u32
    }

    /// True when `square` is on this board.
    pub const fn contains(self, square: super::Square) -> bool {
        square.rank() < self.ranks && square.file() < self.files
    }

    /// The name of the last file (`h` on 8 files, `d` on 4).
    pub const fn last_file(self) -> char {
        (b'a' + self.files - 1) as char
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::STANDARD
    }
}

impl fmt::Display for Board {
    /// `RxC`, e.g. `8x8`, `6x5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&format!("{}x{}", self.ranks, self.files))
    }
}

/// Why a board size was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    /// Not of the form `RxC` with two numbers.
    Syntax(String),
    /// A count of ranks or files outside 4..=8.
    OutOfRange {
        /// `ranks` or `files`.
        what: &'static str,
        /// The count given.
        count: u32,
    },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::Syntax(text) => write!(
                f,
                "bad board size '{text}': expected RANKSxFILES, e.g. 6x6 or 6x5 (each 4 to 8)"
            ),
            BoardError::OutOfRange { what, count } => write!(
                f,
                "a board of {count} {what} is not supported: ranks and files go from \
                 {MIN_SIDE} to {MAX_SIDE}"
            ),
        }
    }
}

impl std::error::Error for BoardError {}

impl FromStr for Board {
    type Err = BoardError;

    /// Parses `RxC` (also `R×C` or `RXC`): ranks, then files.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let syntax = || BoardError::Syntax(text.to_string());
        let (ranks, files) = text.split_once(['x', 'X', '×']).ok_or_else(syntax)?;
        let count = |part: &str, what| -> Result<u8, BoardError> {
            let count: u32 = part.trim().parse().map_err(|_| syntax())?;
            u8::try_from(count)
                .ok()
                .filter(|count| (MIN_SIDE..=MAX_SIDE).contains(count))
                .ok_or(BoardError::OutOfRange { what, count })
        };
        Board::new(count(ranks, "ranks")?, count(files, "files")?)
    }
}

impl serde::Serialize for Board {
    /// As its name, `"6x6"`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Board {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Square;

    #[test]
    fn sizes_parse_and_bad_ones_say_why() {
        assert_eq!("6x5".parse(), Ok(Board::new(6, 5).unwrap()));
        assert_eq!("8X8".parse(), Ok(Board::STANDARD));
        assert_eq!("4×7".parse::<Board>().unwrap().to_string(), "4x7");
        let err = |text: &str| text.parse::<Board>().unwrap_err().to_string();
        assert_eq!(
            err("9x9"),
            "a board of 9 ranks is not supported: ranks and files go from 4 to 8"
        );
        assert_eq!(
            err("3x8"),
            "a board of 3 ranks is not supported: ranks and files go from 4 to 8"
        );
        assert_eq!(
            err("8x300"),
            "a board of 300 files is not supported: ranks and files go from 4 to 8"
        );
        assert_eq!(
            err("8"),
            "bad board size '8': expected RANKSxFILES, e.g. 6x6 or 6x5 (each 4 to 8)"
        );
        assert!(err("6xa").contains("'6xa'"));
        assert_eq!(Board::all().count(), 25);
        assert_eq!(Board::default(), Board::STANDARD);
    }

    #[test]
    fn masks_embed_the_board_at_the_bottom_left() {
        let full = Board::STANDARD;
        assert_eq!(full.squares(), u64::MAX);
        assert_eq!(full.goal(Color::White), 0xFF << 56);
        assert_eq!(full.goal(Color::Black), 0xFF);
        assert_eq!(full.start_pawns(Color::White), 0xFFFF);
        assert_eq!(full.start_pawns(Color::Black), 0xFFFF << 48);
        let small = Board::new(5, 4).unwrap();
        assert_eq!(small.squares(), 0x0F_0F0F_0F0F);
        assert_eq!(small.goal(Color::White), 0x0F << 32);
        assert_eq!(small.goal(Color::Black), 0x0F);
        assert_eq!(small.start_pawns(Color::Black), 0x0F0F << 24);
        assert_eq!(small.max_pawns(), 8);
        assert_eq!(small.relative_rank(Color::Black, 4), 0);
        assert!(small.contains(Square::new(3, 4).unwrap()));
        assert!(!small.contains(Square::new(4, 4).unwrap()));
        assert!(!small.contains(Square::new(0, 5).unwrap()));
        assert_eq!(small.last_file(), 'd');
        for board in Board::all() {
            let squares = board.squares();
            assert_eq!(
                squares.count_ones(),
                u32::from(board.ranks()) * u32::from(board.files())
            );
            for color in [Color::White, Color::Black] {
                assert_eq!(board.goal(color) & !squares, 0, "{board}");
                assert_eq!(board.start_pawns(color).count_ones(), board.max_pawns());
            }
        }
    }
}
