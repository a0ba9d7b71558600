//! Positions: where the pawns stand, whose turn it is, playing a move and the end of a game.
//! Their FEN is in [`super::fen`], their moves in [`super::movegen`] and the checking of a move
//! in [`super::legality`].

use super::fen::PositionError;
use super::legality::IllegalMove;
use super::{Board, Color, Move, Outcome, Reason, Rules, Square};

/// A Breakthrough position: the board, where each side's pawns stand and whose turn it is.
///
/// Build one with [`Position::startpos`] (8×8), [`Position::start`] (any [`Board`]),
/// [`Position::new`], [`Position::on_board`] or by parsing a FEN
/// (`"pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w"`, or `"startpos"`; [`Position::from_fen`]
/// for another board). Every `Position` satisfies: every pawn on a square of its board, no
/// square holding two pawns, at most two rows of pawns a side (16 on 8×8), not both sides on
/// their goal ranks, and at least one pawn on the board.
///
/// The bitboards are those of the 8×8 board whatever the size (see [`Board`]): bit
/// `8 * rank + file`, a1 = bit 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pawns: [u64; 2],
    side: Color,
    board: Board,
}

impl Position {
    /// The start on 8×8: White on ranks 1–2, Black on ranks 7–8, White to move.
    pub const fn startpos() -> Position {
        Position::start(Board::STANDARD)
    }

    /// The start on `board`: White on ranks 1–2, Black on the top two ranks, White to move.
    pub const fn start(board: Board) -> Position {
        Position {
            pawns: [
                board.start_pawns(Color::White),
                board.start_pawns(Color::Black),
            ],
            side: Color::White,
            board,
        }
    }

    /// A position of the 8×8 board from bitboards (bit `8 * rank + file`) and the side to
    /// move.
    ///
    /// # Errors
    /// As [`Position::on_board`].
    pub fn new(white: u64, black: u64, side: Color) -> Result<Position, PositionError> {
        Position::on_board(Board::STANDARD, white, black, side)
    }

    /// A position of `board` from bitboards of the 8×8 embedding (bit `8 * rank + file`) and
    /// the side to move.
    ///
    /// # Errors
    /// [`PositionError`] when a pawn stands off `board`, a square holds two pawns, a side has
    /// more than two rows of pawns, both sides stand on their goal ranks, or the board is
    /// empty.
    pub fn on_board(
        board: Board,
        white: u64,
        black: u64,
        side: Color,
    ) -> Result<Position, PositionError> {
        if let Some(index) = [white, black]
            .into_iter()
            .map(|pawns| pawns & !board.squares())
            .find(|&off| off != 0)
            .map(u64::trailing_zeros)
        {
            return Err(PositionError::OffBoard {
                square: Square(u8::try_from(index).unwrap_or_default()),
                board,
            });
        }
        if white & black != 0 {
            return Err(PositionError::Overlap);
        }
        for (color, pawns) in [(Color::White, white), (Color::Black, black)] {
            if pawns.count_ones() > board.max_pawns() {
                return Err(PositionError::TooManyPawns {
                    color,
                    count: pawns.count_ones(),
                    most: board.max_pawns(),
                });
            }
        }
        if white & board.goal(Color::White) != 0 && black & board.goal(Color::Black) != 0 {
            return Err(PositionError::BothOnGoal);
        }
        if white | black == 0 {
            return Err(PositionError::NoPawns);
        }
        Ok(Position {
            pawns: [white, black],
            side,
            board,
        })
    }

    /// The board this position stands on.
    #[inline(always)]
    pub const fn board(&self) -> Board {
        self.board
    }

    /// The pawns of `color` as a bitboard.
    pub const fn pawns(&self, color: Color) -> u64 {
        self.pawns[color.index()]
    }

    /// The side to move.
    pub const fn side_to_move(&self) -> Color {
        self.side
    }

    /// Whose pawn stands on `square`, if any.
    pub fn pawn_at(&self, square: Square) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&color| self.pawns(color) & square.bit() != 0)
    }

    /// True when a pawn stands on its goal rank or a side has no pawns: the game is over
    /// whatever the rules. (A game can also end by [`Reason::NoMoves`].)
    #[inline(always)]
    pub const fn is_decided(&self) -> bool {
        let [white, black] = self.pawns;
        white & self.board.goal(Color::White) != 0
            || black & self.board.goal(Color::Black) != 0
            || white == 0
            || black == 0
    }

    /// The result when the game is over in this position under `rules`, `None` while it goes
    /// on. A pawn on its goal rank wins first, then capturing every enemy pawn, then the side to
    /// move loses when it has no legal move.
    pub fn outcome(&self, rules: Rules) -> Option<Outcome> {
        let [white, black] = self.pawns;
        let board = self.board;
        let decided = |winner, reason| {
            Some(Outcome {
                winner,
                reason,
                board,
            })
        };
        if white & board.goal(Color::White) != 0 {
            decided(Color::White, Reason::GoalRank)
        } else if black & board.goal(Color::Black) != 0 {
            decided(Color::Black, Reason::GoalRank)
        } else if white == 0 {
            decided(Color::Black, Reason::AllCaptured)
        } else if black == 0 {
            decided(Color::White, Reason::AllCaptured)
        } else if self.pseudo_moves(rules).is_empty() {
            decided(self.side.opponent(), Reason::NoMoves)
        } else {
            None
        }
    }

    /// The position after `mv`, which must be legal here (as from [`Position::legal_moves`] or
    /// checked by [`Position::check_move`]); an illegal move gives a meaningless position.
    #[inline(always)]
    pub fn play_unchecked(&self, mv: Move) -> Position {
        let us = self.side.index();
        let mut pawns = self.pawns;
        pawns[us] ^= mv.from.bit() | mv.to.bit();
        pawns[1 - us] &= !mv.to.bit();
        Position {
            pawns,
            side: self.side.opponent(),
            board: self.board,
        }
    }

    /// The position after `mv`, checked under `rules`.
    ///
    /// # Errors
    /// [`IllegalMove`] saying why the move is illegal here.
    pub fn play(&self, rules: Rules, mv: Move) -> Result<Position, IllegalMove> {
        self.check_move(rules, mv)?;
        Ok(self.play_unchecked(mv))
    }

    /// True when `mv` takes an enemy pawn.
    pub fn is_capture(&self, mv: Move) -> bool {
        self.pawns(self.side.opponent()) & mv.to.bit() != 0
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The position `text` parses to; panics with the error otherwise.
    pub(in crate::rules) fn pos(text: &str) -> Position {
        text.parse().unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    /// The move `text` parses to.
    pub(in crate::rules) fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn bitboard_constructor_refuses_overlap() {
        assert_eq!(
            Position::new(1, 1, Color::White),
            Err(PositionError::Overlap)
        );
    }

    #[test]
    fn each_way_a_game_ends() {
        let outcome = |text: &str, rules| pos(text).outcome(rules);
        let won = |winner, reason| {
            Some(Outcome {
                winner,
                reason,
                board: Board::STANDARD,
            })
        };
        // A pawn reached its far rank.
        assert_eq!(
            outcome("1P6/8/8/8/8/8/p7/8 b", Rules::CaptureOnly),
            won(Color::White, Reason::GoalRank)
        );
        assert_eq!(
            outcome("8/P7/8/8/8/8/8/1p6 w", Rules::Classic),
            won(Color::Black, Reason::GoalRank)
        );
        // Black captured the last white pawn.
        assert_eq!(
            outcome("8/8/8/8/8/8/p7/8 w", Rules::CaptureOnly),
            won(Color::Black, Reason::AllCaptured)
        );
        assert_eq!(
            outcome("8/8/8/8/8/8/P7/8 b", Rules::CaptureOnly),
            won(Color::White, Reason::AllCaptured)
        );
        // Pawns face each other on one file: blocked under capture-only, not under classic.
        assert_eq!(
            outcome("8/8/8/p7/P7/8/8/8 w", Rules::CaptureOnly),
            won(Color::Black, Reason::NoMoves)
        );
        assert_eq!(outcome("8/8/8/p7/P7/8/8/8 w", Rules::Classic), None);
        assert_eq!(outcome("startpos", Rules::CaptureOnly), None);
    }
}
