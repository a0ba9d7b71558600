//! bt-faulty's own naive move generator for `go perft`, correct unless a perft fault is
//! chosen (then it has that fault's bug), on a board that may hold positions past the end of
//! the game, as the buggy generators reach.

use crate::fault::Fault;
use bt_arena::rules::{self, Color, Move, Position, Rules, Square};

/// A board as plain bitboards of the position's size, which (unlike [`Position`]) may hold
/// positions past the end of the game, as the buggy generators reach.
#[derive(Clone, Copy)]
pub(crate) struct Board {
    pawns: [u64; 2],
    side: Color,
    size: rules::Board,
}

impl From<&Position> for Board {
    fn from(position: &Position) -> Board {
        Board {
            pawns: [position.pawns(Color::White), position.pawns(Color::Black)],
            side: position.side_to_move(),
            size: position.board(),
        }
    }
}

impl Board {
    /// True when a pawn stands on its goal rank or a side has no pawns.
    fn is_decided(&self) -> bool {
        let [white, black] = self.pawns;
        white & self.size.goal(Color::White) != 0
            || black & self.size.goal(Color::Black) != 0
            || white == 0
            || black == 0
    }

    /// The board after `mover` plays `mv`; the other side moves next.
    pub(crate) fn play(&self, mover: Color, mv: Move) -> Board {
        let mut pawns = self.pawns;
        pawns[mover.index()] ^= mv.from.bit() | mv.to.bit();
        pawns[mover.opponent().index()] &= !mv.to.bit();
        Board {
            pawns,
            side: self.side.opponent(),
            size: self.size,
        }
    }
}

/// A naive move generator, with the bug of a perft fault if one is chosen.
pub(crate) struct Generator {
    pub(crate) rules: Rules,
    pub(crate) fault: Fault,
    pub(crate) wrong_side_pawns: u32,
}

impl Generator {
    /// The moves in `board` and the side that makes them.
    pub(crate) fn moves(&self, board: &Board) -> Vec<(Color, Move)> {
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
        // The fault's board is 8 files wide whatever the position's size.
        let files = if self.fault == Fault::PerftFileMask8x8 {
            8
        } else {
            board.size.files()
        };
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
                    .filter(|to| to.file() < files && to.rank() < board.size.ranks())
                else {
                    continue;
                };
                if self.allows(from, to, file_step != 0, own, enemy, board.size) {
                    moves.push((mover, Move { from, to }));
                }
            }
        }
        moves
    }

    /// Whether a step from `from` to `to` (diagonal or straight) is generated.
    fn allows(
        &self,
        from: Square,
        to: Square,
        diagonal: bool,
        own: u64,
        enemy: u64,
        size: rules::Board,
    ) -> bool {
        let target = to.bit();
        if !diagonal {
            return (own | enemy) & target == 0;
        }
        if own & target != 0 {
            return false;
        }
        if enemy & target != 0 {
            let on_edge = |s: Square| s.file() == 0 || s.file() == size.files() - 1;
            return !(self.fault == Fault::PerftMissingEdgeCapture
                && (on_edge(from) || on_edge(to)));
        }
        self.rules == Rules::Classic || self.fault == Fault::PerftDiagonalEmpty
    }

    /// Leaf count `depth` plies below `board`.
    pub(crate) fn perft(&self, board: &Board, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves(board)
            .into_iter()
            .map(|(mover, mv)| self.perft(&board.play(mover, mv), depth - 1))
            .sum()
    }
}
