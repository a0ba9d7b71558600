//! Small board queries the search needs on top of the rules: move targets by side, immediate
//! wins and threats. Moves come from the rules' own generator ([`Side::targets`]).

use crate::rules::{Black, Board, Color, Move, Position, Rules, Side, White};

/// The target squares of `side`'s moves per step (straight, west, east) on `board`, with `own`
/// its pawns and `enemy` the other side's; whether the game is over is not looked at.
#[inline(always)]
pub(crate) fn targets(board: Board, side: Color, own: u64, enemy: u64, rules: Rules) -> [u64; 3] {
    let squares = board.squares();
    match side {
        Color::White => White::targets(own, enemy, rules, squares),
        Color::Black => Black::targets(own, enemy, rules, squares),
    }
}

/// The squares a move with these `targets` can win on at once: the goal rank, and the last
/// enemy pawn's square when `enemy` holds a single pawn.
#[inline(always)]
fn winning_squares(board: Board, side: Color, enemy: u64) -> u64 {
    board.goal(side) | if enemy.count_ones() == 1 { enemy } else { 0 }
}

/// True when `side`, with `targets` as from [`targets`], has a move that wins at once on
/// `board`: a step onto its goal rank or the capture of the last enemy pawn.
#[inline(always)]
pub(crate) fn wins_at_once(board: Board, side: Color, targets: [u64; 3], enemy: u64) -> bool {
    let [straight, west, east] = targets;
    let winning = winning_squares(board, side, enemy);
    // Straight steps never capture: only the goal rank counts for them.
    straight & board.goal(side) != 0 || (west | east) & winning != 0
}

/// True when the side *not* to move in `position` would win at once if it were its turn:
/// a threat the side to move must parry.
#[inline(always)]
pub(crate) fn threatened(position: &Position, rules: Rules) -> bool {
    let them = position.side_to_move().opponent();
    let board = position.board();
    let (own, enemy) = (position.pawns(them), position.pawns(them.opponent()));
    wins_at_once(board, them, targets(board, them, own, enemy, rules), enemy)
}

/// True when the side to move in `position` has a move that wins at once.
#[inline(always)]
pub(crate) fn can_win_at_once(position: &Position, rules: Rules) -> bool {
    let us = position.side_to_move();
    let board = position.board();
    let (own, enemy) = (position.pawns(us), position.pawns(us.opponent()));
    wins_at_once(board, us, targets(board, us, own, enemy, rules), enemy)
}

/// The first move (in generation order) that wins at once for the side to move, if any.
pub(crate) fn winning_move(position: &Position, rules: Rules) -> Option<Move> {
    let us = position.side_to_move();
    let board = position.board();
    let enemy = position.pawns(us.opponent());
    let winning = winning_squares(board, us, enemy);
    position.pseudo_moves(rules).iter().find(|mv| {
        let to = mv.to.bit();
        to & board.goal(us) != 0 || (to & winning != 0 && position.is_capture(*mv))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(text: &str) -> Position {
        text.parse().expect("test position")
    }

    #[test]
    fn a_pawn_next_to_its_goal_wins_at_once() {
        let p = position("8/P7/8/8/8/8/pppp4/8 w");
        assert!(can_win_at_once(&p, Rules::CaptureOnly));
        assert_eq!(
            winning_move(&p, Rules::CaptureOnly).map(|m| m.to_string()),
            Some("a7a8".into())
        );
        // Black threatens a2a1 etc. when White is to move.
        assert!(threatened(&p, Rules::CaptureOnly));
    }

    #[test]
    fn a_blocked_pawn_wins_only_by_capture_and_only_diagonal_steps_to_empty_in_classic() {
        let blocked = position("p7/P7/8/8/8/8/7p/8 w");
        assert!(!can_win_at_once(&blocked, Rules::CaptureOnly));
        assert!(can_win_at_once(&blocked, Rules::Classic));
        assert_eq!(
            winning_move(&blocked, Rules::Classic).map(|m| m.to_string()),
            Some("a7b8".into())
        );
    }

    #[test]
    fn capturing_the_last_pawn_wins_but_a_straight_step_onto_it_is_no_capture() {
        let p = position("8/8/8/1p6/P7/8/8/8 w");
        assert!(can_win_at_once(&p, Rules::CaptureOnly));
        assert_eq!(
            winning_move(&p, Rules::CaptureOnly).map(|m| m.to_string()),
            Some("a4b5".into())
        );
        let two = position("8/8/8/1p6/P7/8/7p/8 w");
        assert!(!can_win_at_once(&two, Rules::CaptureOnly));
        // In classic rules a4b5 on an empty b5 is no capture: not a win.
        let empty = position("8/8/p7/8/P7/8/8/8 w");
        assert!(!can_win_at_once(&empty, Rules::Classic));
        assert_eq!(winning_move(&empty, Rules::Classic), None);
    }
}
