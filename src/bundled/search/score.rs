//! Search scores: centipawns, or a win or loss at a known distance in plies.

use std::fmt;

/// The internal score of a win on this ply (the root's side moves at ply 0): a win `n` plies
/// from the root scores `WIN - n`, a loss `-(WIN - n)`. Evaluations stay far below.
pub const WIN: i32 = 30_000;

/// Scores at least this large (in absolute value) are wins or losses, not evaluations.
pub(crate) const WIN_BOUND: i32 = WIN - 1_000;

/// Larger than every score: the initial window of a search.
pub(crate) const INFINITY: i32 = WIN + 1;

/// The score of the side to move winning `plies` plies from the root.
pub(crate) const fn win_in(plies: usize) -> i32 {
    WIN - plies as i32
}

/// The score of the side to move losing `plies` plies from the root.
pub(crate) const fn loss_in(plies: usize) -> i32 {
    -win_in(plies)
}

/// A search result from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SearchScore {
    /// An evaluation in centipawns (100 = one pawn); positive is good for the side to move.
    Cp(i32),
    /// The side to move wins in this many plies (1: its next move wins).
    Win(u32),
    /// The side to move loses in this many plies (0: it has already lost; 2: whatever it
    /// plays, the opponent's reply wins).
    Loss(u32),
}

impl SearchScore {
    /// The score of an internal value: within 1000 of [`WIN`] a win or loss at that distance,
    /// otherwise centipawns.
    pub const fn from_internal(value: i32) -> SearchScore {
        if value >= WIN_BOUND {
            SearchScore::Win((WIN - value) as u32)
        } else if value <= -WIN_BOUND {
            SearchScore::Loss((WIN + value) as u32)
        } else {
            SearchScore::Cp(value)
        }
    }

    /// The internal value, the inverse of [`SearchScore::from_internal`]: centipawns as they are, a
    /// win in `n` plies as `WIN - n`, a loss as `-(WIN - n)`. Orders scores from worst to best.
    pub const fn internal(self) -> i32 {
        match self {
            SearchScore::Cp(cp) => cp,
            SearchScore::Win(plies) => WIN - plies as i32,
            SearchScore::Loss(plies) => plies as i32 - WIN,
        }
    }

    /// A win or loss in moves of the side to move, as UCI's `score mate N` counts: a win in
    /// `n` plies is `(n + 1) / 2` moves, a loss in `n` plies `-(n / 2)`; `None` for centipawns.
    pub const fn mate_moves(self) -> Option<i32> {
        match self {
            SearchScore::Cp(_) => None,
            SearchScore::Win(plies) => Some(plies.div_ceil(2) as i32),
            SearchScore::Loss(plies) => Some(-((plies / 2) as i32)),
        }
    }

    /// True for a proven win or loss.
    pub const fn is_decisive(self) -> bool {
        !matches!(self, SearchScore::Cp(_))
    }
}

impl fmt::Display for SearchScore {
    /// The UCI form: `cp 35`, or `mate N` in moves of the side to move (`mate 2`: a win on its
    /// second move, 3 plies; `mate -1`: it loses to the opponent's next move, 2 plies).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mate_moves() {
            Some(moves) => write!(f, "mate {moves}"),
            None => write!(f, "cp {}", self.internal()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_round_trip_through_internal_values() {
        for score in [
            SearchScore::Cp(0),
            SearchScore::Cp(-250),
            SearchScore::Cp(WIN_BOUND - 1),
            SearchScore::Win(1),
            SearchScore::Win(37),
            SearchScore::Loss(0),
            SearchScore::Loss(2),
        ] {
            assert_eq!(SearchScore::from_internal(score.internal()), score);
        }
        assert_eq!(SearchScore::from_internal(win_in(3)), SearchScore::Win(3));
        assert_eq!(SearchScore::from_internal(loss_in(4)), SearchScore::Loss(4));
        assert!(SearchScore::Win(5).internal() < SearchScore::Win(3).internal());
        assert!(SearchScore::Loss(2).internal() < SearchScore::Loss(4).internal());
    }

    #[test]
    fn scores_print_as_uci() {
        assert_eq!(SearchScore::Cp(-12).to_string(), "cp -12");
        assert_eq!(SearchScore::Win(1).to_string(), "mate 1");
        assert_eq!(SearchScore::Win(3).to_string(), "mate 2");
        assert_eq!(SearchScore::Loss(2).to_string(), "mate -1");
        assert_eq!(SearchScore::Loss(4).to_string(), "mate -2");
    }
}
