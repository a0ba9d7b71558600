//! The board queries of the proof search's bounds: the squares near a goal rank, the files a
//! side holds, and how many moves a side would have.

use crate::rules::movegen::{Black, Side, White};
use crate::rules::{Board, Color, Position, Rules};

/// The squares of `board` within `ranks` ranks of `side`'s goal rank (the goal rank itself
/// excluded).
pub(crate) fn near_goal(board: Board, side: Color, ranks: u32) -> u64 {
    let goal = u32::from(board.goal_rank(side));
    let ranks = ranks.min(u32::from(board.ranks()) - 1);
    if ranks == 0 {
        return 0;
    }
    // The rows lowest..=highest, 0-based.
    let (lowest, highest) = match side {
        Color::White => (goal - ranks, goal - 1),
        Color::Black => (1, ranks),
    };
    let below = |row: u32| {
        if row >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * row)) - 1
        }
    };
    below(highest + 1) & !below(lowest) & board.squares()
}

/// The number of files holding a pawn of `pawns`.
pub(crate) fn files(pawns: u64) -> u32 {
    let mut folded = pawns;
    folded |= folded >> 32;
    folded |= folded >> 16;
    folded |= folded >> 8;
    (folded & 0xFF).count_ones()
}

/// The number of moves `side` would have in `position` if it were its turn.
pub(crate) fn move_count(position: &Position, side: Color, rules: Rules) -> u32 {
    let own = position.pawns(side);
    let enemy = position.pawns(side.opponent());
    let squares = position.board().squares();
    let targets = match side {
        Color::White => White::targets(own, enemy, rules, squares),
        Color::Black => Black::targets(own, enemy, rules, squares),
    };
    targets.iter().map(|set| set.count_ones()).sum()
}
