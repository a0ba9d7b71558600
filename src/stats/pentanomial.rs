//! Pentanomial counts: the game pairs of two engines by the points the counted engine took
//! from each pair.

use serde::{Deserialize, Serialize};

/// Game pairs (two games of one opening, the engines swapping colours) counted by the points
/// the counted engine (the first of the two) took from the pair: the five cells of fishtest's
/// pentanomial, in its order `[LL, LD, WL, WD, WW]` (0, 1/2, 1, 3/2, 2 points).
///
/// Breakthrough has no draws, so a pair is lost twice (`ll`), won once (`wl`) or won twice
/// (`ww`); `ld` and `wd` (a draw and a loss, a draw and a win) stay 0 but keep the five-cell
/// shape the formulas of fishtest and fastchess take. The middle cell is fishtest's `WL+DD`:
/// a pair of two draws would count there too.
///
/// Serializes (summary.json `pentanomial`) as the array `[LL, LD, WL, WD, WW]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "[u64; 5]", into = "[u64; 5]")]
pub struct Pentanomial {
    /// Pairs lost twice: 0 points.
    pub ll: u64,
    /// Pairs of a draw and a loss: 1/2 point (0 without draws).
    pub ld: u64,
    /// Pairs won once and lost once (or drawn twice): 1 point.
    pub wl: u64,
    /// Pairs of a draw and a win: 3/2 points (0 without draws).
    pub wd: u64,
    /// Pairs won twice: 2 points.
    pub ww: u64,
}

impl Pentanomial {
    /// Counts one game pair from the counted engine's side: whether it won the pair's first
    /// game and whether it won the second (the order does not matter).
    pub fn add_pair(&mut self, first_game_won: bool, second_game_won: bool) {
        match (first_game_won, second_game_won) {
            (false, false) => self.ll += 1,
            (true, true) => self.ww += 1,
            (true, false) | (false, true) => self.wl += 1,
        }
    }

    /// The cells in fishtest's order `[LL, LD, WL, WD, WW]`, the shape the Elo and LLR
    /// formulas take (cell `i` scores `i / 4` per game).
    pub const fn as_array(&self) -> [u64; 5] {
        [self.ll, self.ld, self.wl, self.wd, self.ww]
    }

    /// Game pairs counted.
    pub const fn pairs(&self) -> u64 {
        self.ll + self.ld + self.wl + self.wd + self.ww
    }

    /// `true` when no pair is counted.
    pub const fn is_empty(&self) -> bool {
        self.pairs() == 0
    }
}

impl From<[u64; 5]> for Pentanomial {
    /// Cells in the order `[LL, LD, WL, WD, WW]`.
    fn from([ll, ld, wl, wd, ww]: [u64; 5]) -> Self {
        Pentanomial { ll, ld, wl, wd, ww }
    }
}

impl From<Pentanomial> for [u64; 5] {
    /// [`Pentanomial::as_array`].
    fn from(counts: Pentanomial) -> Self {
        counts.as_array()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_land_in_the_cell_of_their_points() {
        let mut counts = Pentanomial::default();
        assert!(counts.is_empty());
        counts.add_pair(false, false);
        counts.add_pair(true, false);
        counts.add_pair(false, true);
        counts.add_pair(true, true);
        counts.add_pair(true, true);
        counts.add_pair(true, true);
        assert_eq!(
            counts,
            Pentanomial {
                ll: 1,
                ld: 0,
                wl: 2,
                wd: 0,
                ww: 3
            }
        );
        assert_eq!(counts.as_array(), [1, 0, 2, 0, 3]);
        assert_eq!(counts.pairs(), 6);
        assert!(!counts.is_empty());
    }

    #[test]
    fn the_array_form_round_trips_in_fishtest_order() {
        let counts = Pentanomial::from([5, 4, 3, 2, 1]);
        assert_eq!(
            (counts.ll, counts.ld, counts.wl, counts.wd, counts.ww),
            (5, 4, 3, 2, 1)
        );
        assert_eq!(<[u64; 5]>::from(counts), [5, 4, 3, 2, 1]);
        assert_eq!(counts.pairs(), 15);
    }

    #[test]
    fn serializes_as_the_summary_json_array() {
        let counts = Pentanomial::from([1, 0, 2, 0, 3]);
        assert_eq!(serde_json::to_string(&counts).unwrap(), "[1,0,2,0,3]");
        let back: Pentanomial = serde_json::from_str("[1,0,2,0,3]").unwrap();
        assert_eq!(back, counts);
        assert!(serde_json::from_str::<Pentanomial>("[1,0,2,0]").is_err());
    }
}
