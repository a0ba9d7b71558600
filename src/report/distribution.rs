//! Counts of times in µs, kept to three significant digits, and their percentiles: what the
//! report's move times ([`super::series`]) and latencies ([`super::latency`]) are computed
//! from. Memory holds one count per distinct kept value (at most about 900 per power of ten),
//! never the moves, whatever the number of games read.

use std::collections::BTreeMap;

/// How many moves took each time (µs, to three significant digits: exact under 1,000).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    counts: BTreeMap<i64, u64>,
}

impl Counts {
    /// Counts one move of `us` µs (rounded to three significant digits, half away from 0).
    pub(crate) fn add(&mut self, us: i64) {
        *self.counts.entry(three_digits(us)).or_default() += 1;
    }

    /// Moves counted.
    pub(crate) fn moves(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Every kept time with its moves, shortest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        self.counts.iter().map(|(&us, &moves)| (us, moves))
    }

    /// The longest time kept; 0 without moves.
    pub(crate) fn max(&self) -> i64 {
        self.counts.last_key_value().map_or(0, |(&us, _)| us)
    }

    /// The mean of the kept times; 0 without moves.
    pub(crate) fn mean(&self) -> f64 {
        let total: f64 = self.iter().map(|(us, n)| us as f64 * n as f64).sum();
        total / self.moves().max(1) as f64
    }

    /// Adds `other`'s counts.
    pub(crate) fn merge(&mut self, other: &Counts) {
        for (us, moves) in other.iter() {
            *self.counts.entry(us).or_default() += moves;
        }
    }

    /// The `percent` percentile (nearest rank): of the `n` times in order, the one at rank
    /// `(n - 1) * percent / 100` (from 0, rounded half up); 0 without moves.
    pub(crate) fn percentile(&self, percent: u64) -> i64 {
        let total = self.moves();
        if total == 0 {
            return 0;
        }
        let rank = ((total - 1) * percent + 50) / 100;
        let mut seen = 0;
        for (us, moves) in self.iter() {
            seen += moves;
            if seen > rank {
                return us;
            }
        }
        0
    }
}

/// `us` to three significant digits, half away from 0: `1234` → `1230`, `-98_765` →
/// `-98_800`; unchanged under 1,000.
pub(crate) fn three_digits(us: i64) -> i64 {
    let magnitude = us.unsigned_abs();
    let mut step = 1u64;
    while magnitude / step >= 1000 {
        step *= 10;
    }
    let kept = (magnitude + step / 2) / step * step;
    let kept = i64::try_from(kept).unwrap_or(i64::MAX);
    if us < 0 { -kept } else { kept }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_keep_three_significant_digits() {
        let kept: Vec<i64> = [0, 999, 1234, 1235, 99_949, 99_950, -98_765, -5, 123_456_789]
            .into_iter()
            .map(three_digits)
            .collect();
        assert_eq!(
            kept,
            [
                0,
                999,
                1230,
                1240,
                99_900,
                100_000,
                -98_800,
                -5,
                123_000_000
            ]
        );
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut counts = Counts::default();
        for (us, n) in [(1, 2), (5, 1), (9, 7)] {
            for _ in 0..n {
                counts.add(us);
            }
        }
        // Ranks 0-1: 1 µs, 2: 5 µs, 3-9: 9 µs.
        assert_eq!(counts.percentile(0), 1);
        assert_eq!(counts.percentile(20), 5);
        assert_eq!(counts.percentile(50), 9);
        assert_eq!((counts.moves(), counts.max()), (10, 9));
        assert_eq!(counts.mean(), 7.0);
        assert_eq!(Counts::default().percentile(50), 0);
        assert_eq!(Counts::default().mean(), 0.0);
    }
}
