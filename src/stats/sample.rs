//! The empirical score distribution behind the Elo estimates and the SPRT.

/// Value that replaces an empty cell of the counts (fishtest `LLRcalc.regularize`).
const EMPTY_CELL: f64 = 1e-3;

/// Regularized empirical distribution of per-sample scores.
///
/// A sample is one game (trinomial counts, scores 0, 1/2, 1) or one game pair
/// (pentanomial counts, average scores 0, 1/4, 1/2, 3/4, 1). Cell `i` of `k`
/// cells has score `i / (k - 1)`. Empty cells count as `1e-3` samples, as in
/// fishtest's `regularize`, so every probability is positive, the variance is
/// positive and every logarithm taken later is finite.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Empirical {
    /// Number of samples after regularization (`> 0`).
    n: f64,
    /// `(score, probability)` per cell, scores ascending from 0 to 1.
    pdf: Vec<(f64, f64)>,
}

impl Empirical {
    /// Builds the distribution from at least two cells of counts.
    pub(super) fn from_counts(counts: &[u64]) -> Self {
        debug_assert!(counts.len() >= 2);
        let cells: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { EMPTY_CELL } else { c as f64 })
            .collect();
        let n: f64 = cells.iter().sum();
        let last = (cells.len() - 1) as f64;
        let pdf = cells
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as f64 / last, c / n))
            .collect();
        Self { n, pdf }
    }

    /// Regularized sample count.
    pub(super) fn n(&self) -> f64 {
        self.n
    }

    /// `(score, probability)` per cell.
    pub(super) fn pdf(&self) -> &[(f64, f64)] {
        &self.pdf
    }

    /// Mean score per sample, in `(0, 1)`.
    pub(super) fn mean(&self) -> f64 {
        self.pdf.iter().map(|&(a, p)| a * p).sum()
    }

    /// Variance of the per-sample score (population variance), `> 0`.
    pub(super) fn variance(&self) -> f64 {
        let mu = self.mean();
        self.pdf.iter().map(|&(a, p)| p * (a - mu).powi(2)).sum()
    }

    /// Standard error of the mean score: `sqrt(variance / n)`.
    pub(super) fn std_error(&self) -> f64 {
        (self.variance() / self.n).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::assert_close;

    #[test]
    fn pair_scores_match_vectors() {
        let s = Empirical::from_counts(&[100, 0, 250, 0, 150]);
        assert_close(s.mean(), 0.55, 5e-6);
        assert_close(s.variance(), 0.1225, 5e-6);
        assert_close(s.n(), 500.0, 0.01);
    }

    #[test]
    fn empty_counts_are_regularized_to_a_positive_uniform_sample() {
        let s = Empirical::from_counts(&[0, 0, 0]);
        assert_close(s.mean(), 0.5, 1e-12);
        assert!(s.variance() > 0.0);
        assert!(s.std_error().is_finite());
    }
}
