//! A game that reaches a position: moves from the start position to it.
//!
//! For users (`docs/guide/codingame.md`, "Openings"): a CodinGame bot knows a game only as
//! the moves it was told from the start position, so a game of an opening book reaches the
//! bot as the moves that lead to its opening. A book holds positions, not moves; this finds
//! moves that lead there (any such moves do: the position is the same).
//!
//! The search is iterative deepening over the number of plies, each depth a depth-first search
//! with the failures remembered (a transposition table of positions that do not lead to the
//! target in so many plies), pruned by bounds that hold for each side c, with m_c the moves c
//! has left and l_c the pawns it has yet to lose: pawns are never won back, so l_c (its pawns
//! now less those of the target) is not negative, and the opponent's moves must capture them
//! (l_c at most the opponent's moves left); the squares c holds in the target and not now
//! must each be reached by a move of c (at most m_c of them); and each move of c advances
//! one of its pawns one rank while each pawn lost takes 0 to 7 ranks off c's total advance
//! (the sum over its pawns of the ranks from its home rank), so the target's advance is at
//! most m_c more than now and at least m_c − 7·l_c more.

use super::{Color, Move, Position, Rules};
use std::collections::HashSet;

/// The most plies [`from_start`] looks through: books hold openings of a few plies; a position
/// of a real game's middle takes longer to find and is refused.
pub const MAX_PLIES: u32 = 40;

/// The most positions [`from_start`] visits before it gives up.
pub const MAX_NODES: u64 = 2_000_000;

/// Moves from the start position to `target` under `rules` (the fewest plies there are, each
/// move legal, no position on the way finished), or `None` when none is found within
/// [`MAX_PLIES`] plies and [`MAX_NODES`] positions (a position that no game reaches, or one
/// too deep in a game).
pub fn from_start(target: &Position, rules: Rules) -> Option<Vec<Move>> {
    let start = Position::startpos();
    let mut search = Search {
        target: *target,
        rules,
        failed: HashSet::new(),
        nodes: 0,
        path: Vec::new(),
    };
    let odd = target.side_to_move() == Color::Black;
    for plies in (0..=MAX_PLIES).filter(|plies| (plies % 2 == 1) == odd) {
        if search.reaches(&start, plies) {
            return Some(search.path);
        }
        if search.nodes > MAX_NODES {
            return None;
        }
    }
    None
}

/// One search for moves to `target`.
struct Search {
    target: Position,
    rules: Rules,
    /// (position, plies) pairs known not to reach the target.
    failed: HashSet<(Position, u32)>,
    nodes: u64,
    /// The moves from the start to the position being searched.
    path: Vec<Move>,
}

impl Search {
    /// Whether `position` reaches the target in exactly `plies` plies; the moves are pushed on
    /// `path` when it does.
    fn reaches(&mut self, position: &Position, plies: u32) -> bool {
        if plies == 0 {
            return *position == self.target;
        }
        if self.nodes > MAX_NODES
            || !self.may_reach(position, plies)
            || self.failed.contains(&(*position, plies))
        {
            return false;
        }
        self.nodes += 1;
        for mv in position.legal_moves(self.rules) {
            self.path.push(mv);
            if self.reaches(&position.play_unchecked(mv), plies - 1) {
                return true;
            }
            self.path.pop();
        }
        self.failed.insert((*position, plies));
        false
    }

    /// The bounds of the module documentation: false when `position` cannot reach the target
    /// in `plies` plies.
    fn may_reach(&self, position: &Position, plies: u32) -> bool {
        let mover = position.side_to_move();
        [Color::White, Color::Black].into_iter().all(|side| {
            // The mover has the odd ply.
            let moves = plies / 2 + u32::from(side == mover && plies % 2 == 1);
            let opponent_moves = plies - moves;
            let (now, then) = (position.pawns(side), self.target.pawns(side));
            let to_reach = (then & !now).count_ones();
            let lost = now.count_ones().checked_sub(then.count_ones());
            let (before, after) = (advance(side, now), advance(side, then));
            // Each move adds 1 to the advance, each pawn lost takes 0 to 7 off it.
            lost.is_some_and(|lost| {
                to_reach <= moves
                    && lost <= opponent_moves
                    && after <= before + u64::from(moves)
                    && after + 7 * u64::from(lost) >= before + u64::from(moves)
            })
        })
    }
}

/// The total advance of `side`'s `pawns`: the sum over them of the ranks from its home rank.
fn advance(side: Color, pawns: u64) -> u64 {
    let mut total = 0;
    let mut rest = pawns;
    while rest != 0 {
        let rank = u64::from(rest.trailing_zeros() / 8);
        total += match side {
            Color::White => rank,
            Color::Black => 7 - rank,
        };
        rest &= rest - 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position after `moves` from the start.
    fn after(moves: &[&str], rules: Rules) -> Position {
        moves.iter().fold(Position::startpos(), |position, mv| {
            position.play(rules, mv.parse().unwrap()).unwrap()
        })
    }

    fn reached(path: &[Move], rules: Rules) -> Position {
        path.iter().fold(Position::startpos(), |position, &mv| {
            position.play(rules, mv).unwrap()
        })
    }

    #[test]
    fn the_start_is_reached_by_no_move_and_a_position_by_moves_that_lead_there() {
        assert_eq!(
            from_start(&Position::startpos(), Rules::Classic),
            Some(vec![])
        );
        for (rules, moves) in [
            (Rules::Classic, vec!["a2b3", "h7g6", "b3c4"]),
            (
                Rules::Classic,
                vec!["d2d3", "e7e6", "d3d4", "e6e5", "d4e5", "f7e6"],
            ),
            (
                Rules::CaptureOnly,
                vec!["a2a3", "h7h6", "a3a4", "h6h5", "a4a5", "h5h4"],
            ),
        ] {
            let target = after(&moves, rules);
            let path = from_start(&target, rules).expect("a path");
            assert_eq!(path.len(), moves.len());
            assert_eq!(reached(&path, rules), target);
        }
    }

    #[test]
    fn every_opening_of_the_shipped_books_is_reached() {
        for rules in [Rules::CaptureOnly, Rules::Classic] {
            let book = crate::openings::shipped_book(rules);
            let mut count = 0;
            for line in book
                .lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            {
                let fen = line.split(';').next().unwrap().trim();
                let target: Position = fen.parse().unwrap();
                let path = from_start(&target, rules).unwrap_or_else(|| panic!("{fen}"));
                assert_eq!(reached(&path, rules), target, "{fen}");
                count += 1;
            }
            assert_eq!(count, 500);
        }
    }

    #[test]
    fn a_position_no_game_reaches_has_no_path() {
        // A White pawn gone while every Black pawn is at home: no Black move took it.
        let taken: Position = "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPP1 w"
            .parse()
            .unwrap();
        assert_eq!(from_start(&taken, Rules::Classic), None);
        let wrong_side = after(&["a2b3"], Rules::Classic);
        let flipped = Position::new(
            wrong_side.pawns(Color::White),
            wrong_side.pawns(Color::Black),
            Color::White,
        )
        .unwrap();
        assert_eq!(from_start(&flipped, Rules::Classic), None);
    }
}
