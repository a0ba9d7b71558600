//! Scoring book positions with a short fixed-depth search, repeatably.

use crate::bundled::search::{Limits, SearchScore, Searcher};
use crate::rules::{Color, Position, Rules};
use std::sync::atomic::AtomicBool;

/// The transposition table of the scoring search, in MiB. Fixed: a search's result may depend
/// on the table size, and scores must not depend on the machine.
const HASH_MB: usize = 4;

/// The default depth of the scoring search in plies, for generating and checking books.
pub const DEFAULT_DEPTH: u32 = 6;

/// The score of a book position from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eval {
    /// An evaluation in centipawns (100 = one pawn); positive favours White.
    Cp(i32),
    /// The search proved a win for this side.
    Proven(Color),
}

impl Eval {
    /// The evaluation of `score`, a search result for the side to move `side`.
    pub fn from_score(score: SearchScore, side: Color) -> Eval {
        let sign = if side == Color::White { 1 } else { -1 };
        match score {
            SearchScore::Cp(cp) => Eval::Cp(sign * cp),
            SearchScore::Win(_) => Eval::Proven(side),
            SearchScore::Loss(_) => Eval::Proven(side.opponent()),
        }
    }

    /// The centipawns, `None` for a proven result.
    pub const fn cp(self) -> Option<i32> {
        match self {
            Eval::Cp(cp) => Some(cp),
            Eval::Proven(_) => None,
        }
    }

    /// True when the evaluation is within `max_cp` centipawns of equality (never for a proven
    /// result): neither side starts won.
    pub fn is_balanced(self, max_cp: i32) -> bool {
        self.cp().is_some_and(|cp| cp.abs() <= max_cp)
    }
}

/// Scores positions by a fixed-depth search of the bundled searcher from an emptied table, so
/// the same position, rules and depth always get the same [`Eval`].
pub struct Scorer {
    searcher: Searcher,
    rules: Rules,
    depth: u32,
}

impl Scorer {
    /// A scorer searching `depth` plies (0 counts as 1) under `rules`.
    pub fn new(rules: Rules, depth: u32) -> Scorer {
        Scorer {
            searcher: Searcher::new(HASH_MB),
            rules,
            depth,
        }
    }

    /// The evaluation of `position` from White's point of view.
    pub fn score(&mut self, position: &Position) -> Eval {
        self.searcher.clear();
        let limits = Limits {
            depth: Some(self.depth),
            ..Limits::default()
        };
        let stop = AtomicBool::new(false);
        let result = self
            .searcher
            .search(position, self.rules, &limits, &stop, &mut |_| {});
        Eval::from_score(result.score, position.side_to_move())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evals_are_from_whites_point_of_view() {
        assert_eq!(
            Eval::from_score(SearchScore::Cp(30), Color::White),
            Eval::Cp(30)
        );
        assert_eq!(
            Eval::from_score(SearchScore::Cp(30), Color::Black),
            Eval::Cp(-30)
        );
        assert_eq!(
            Eval::from_score(SearchScore::Win(3), Color::Black),
            Eval::Proven(Color::Black)
        );
        assert_eq!(
            Eval::from_score(SearchScore::Loss(2), Color::Black),
            Eval::Proven(Color::White)
        );
        assert!(Eval::Cp(-50).is_balanced(50));
        assert!(!Eval::Cp(51).is_balanced(50));
        assert!(!Eval::Proven(Color::White).is_balanced(i32::MAX));
    }

    #[test]
    fn scores_repeat_and_see_a_won_race() {
        let mut scorer = Scorer::new(Rules::CaptureOnly, 4);
        let start = Position::startpos();
        let first = scorer.score(&start);
        assert!(first.cp().is_some());
        assert_eq!(scorer.score(&start), first);
        // White's pawn on rank 7 steps onto rank 8 next move.
        let race: Position = "8/P7/8/8/8/8/7p/8 w".parse().unwrap();
        assert_eq!(scorer.score(&race), Eval::Proven(Color::White));
    }
}
