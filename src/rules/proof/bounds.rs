//! The board queries of the proof search's bounds (the squares near a goal rank, the files a
//! side holds, how many moves a side would have) and the two shortcuts the prover and the
//! solver ([`crate::solve`]) share: a move that wins at once, and the race bound.

use crate::rules::movegen::{Black, Side, White};
use crate::rules::{Board, Color, Move, Position, Rules};

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

/// A move of the side to move of `position` (not over) that ends the game in its favour under
/// `rules`, if any: onto its goal rank, taking the last enemy pawn, or (capture-only rules)
/// leaving the opponent without a legal move. The first in generation order.
pub(crate) fn winning_move(position: &Position, rules: Rules) -> Option<Move> {
    let side = position.side_to_move();
    let own = position.pawns(side);
    let enemy = position.pawns(side.opponent());
    let board = position.board();
    let last_pawn = enemy.count_ones() == 1;
    let moves = position.pseudo_moves(rules);
    if own & near_goal(board, side, 1) != 0 || last_pawn {
        let goal = board.goal(side);
        if let Some(mv) = moves
            .iter()
            .find(|mv| mv.to.bit() & goal != 0 || (last_pawn && mv.to.bit() & enemy != 0))
        {
            return Some(mv);
        }
    }
    // Under capture-only rules a move takes away at most five of the opponent's moves:
    // a straight step onto its target and two captures of the pawn that left, or the three
    // moves of a captured pawn and two captures of the pawn that left.
    if rules == Rules::CaptureOnly && move_count(position, side.opponent(), rules) <= 5 {
        return moves
            .iter()
            .find(|&mv| position.play_unchecked(mv).pseudo_moves(rules).is_empty());
    }
    None
}

/// The race bound: whether `side` could win within `depth` plies of `position` (counted from
/// a position where it moves) under `rules` at all, whatever either side plays. With
/// `k = (depth + 1) / 2` moves of its own it can reach its goal rank only from within `k` ranks
/// of it, take every enemy pawn only if there are at most `k`, and (capture-only rules) leave
/// the opponent without a move only if `files - pawns <= k`, where `files` counts the files
/// holding an enemy pawn and `pawns` its own pawns. A blocked side has, on each of its files,
/// its most advanced pawn blocked straight ahead by an enemy pawn, one per file; the
/// difference drops by at most one per capture the side makes (the captured pawn may have
/// been alone on its file), and never with the opponent's moves (a capture by the opponent
/// removes one pawn and moves its capturer to another file: at most one file less).
pub(crate) fn may_win(position: &Position, side: Color, depth: u32, rules: Rules) -> bool {
    let own = position.pawns(side);
    let enemy = position.pawns(side.opponent());
    let moves = depth.div_ceil(2);
    if own & near_goal(position.board(), side, moves) != 0 || enemy.count_ones() <= moves {
        return true;
    }
    rules == Rules::CaptureOnly && files(enemy).saturating_sub(own.count_ones()) <= moves
}

/// A depth for a table of proven facts (depths above 254 are not asked: the prover caps
/// them, the solver asks none).
pub(crate) fn depth_u8(depth: u32) -> u8 {
    u8::try_from(depth).unwrap_or(u8::MAX - 1)
}
