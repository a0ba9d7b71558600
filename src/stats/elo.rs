//! Elo difference, 95% error bar, likelihood of superiority and normalized Elo
//! of one engine against another.
//!
//! The Elo estimate follows fishtest's `stat_util.get_elo`: regularize empty
//! cells to `1e-3`, take the mean score `mu` and its standard error `se` over the
//! samples (games or game pairs), and convert with the clamped
//! [`elo_from_score`]:
//!
//! ```text
//! elo     = elo(mu)
//! error95 = (elo(mu + z*se) - elo(mu - z*se)) / 2,   z = Phi^-1(0.975)
//! los     = Phi((mu - 1/2) / se)
//! ```

use serde::Serialize;

use super::pentanomial::Pentanomial;
use super::ratings::Bound;
use super::sample::Empirical;
use super::{SCORE_CLAMP, elo_from_score, phi, z95};

/// Normalized Elo per unit of the t-value `(mu - 1/2) / sigma`: `800 / ln 10`.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Elo difference of the tested engine with its 95% error bar and LOS.
///
/// Serialized (summary.json) as `{elo, error95, los, bound}` with `bound` the
/// [`bound_side`](Self::bound_side) (`"Lower"`, `"Upper"` or `null`, the words of the
/// standings) and `error95` `null` for a bound: a one-sided score has no interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloEstimate {
    /// Elo difference (tested engine minus opponent), in `[-1199.83, 1199.83]`.
    pub elo: f64,
    /// Half-width of the 95% confidence interval, in Elo (`>= 0`).
    pub error95: f64,
    /// Likelihood of superiority: probability in `[0, 1]` that the tested
    /// engine is the stronger one (normal approximation).
    pub los: f64,
    /// `true` for a one-sided sample: every game (or game pair) counted was won by the same
    /// side (e.g. 4-0, 1000-0), or the mean score fell outside `[1e-3, 1 - 1e-3]`. The
    /// likelihood then has no maximum: `elo` is fishtest's regularized value (empty cells
    /// count as 1e-3; the clamp `±1199.83` once the sample is large), a bound the true
    /// estimate lies beyond, and `error95` (finite, shrinking towards 0 as the one-sided
    /// sample grows, e.g. ±249.82 for 5 pairs all won) describes no interval: reports show
    /// none.
    pub bound: bool,
}

impl Serialize for EloEstimate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut fields = serializer.serialize_struct("EloEstimate", 4)?;
        fields.serialize_field("elo", &self.elo)?;
        fields.serialize_field("error95", &(!self.bound).then_some(self.error95))?;
        fields.serialize_field("los", &self.los)?;
        fields.serialize_field("bound", &self.bound_side())?;
        fields.end()
    }
}

impl EloEstimate {
    /// Which way the true estimate lies beyond `elo` when it is a [`bound`](Self::bound): a
    /// floor ([`Bound::Lower`]) for a clamped positive score, a ceiling for a negative one.
    pub fn bound_side(&self) -> Option<Bound> {
        self.bound.then_some(if self.elo > 0.0 {
            Bound::Lower
        } else {
            Bound::Upper
        })
    }
}

/// Normalized Elo (nElo) with its 95% error bar, fastchess style.
///
/// `nelo = (mu - 1/2) / sigma * 800 / ln 10` where `sigma` is the per-game
/// standard deviation of the score; for game pairs fastchess uses
/// `sigma = sqrt(2) * sigma_pair`. The error is the same expression evaluated at
/// `mu ± z*se`, i.e. `z * se / sigma * 800 / ln 10` with `sigma` held fixed.
/// (fishtest's nElo error also propagates the uncertainty of `sigma` through
/// skewness and kurtosis and is slightly wider: 21.80 instead of 21.53 for
/// pentanomial `[100, 0, 250, 0, 150]`; we follow fastchess.)
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NormalizedElo {
    /// Normalized Elo (finite).
    pub nelo: f64,
    /// Half-width of the 95% confidence interval, in normalized Elo (`> 0`).
    pub error95: f64,
    /// `true` when fewer than two cells of the counts are non-zero (every
    /// sample had the same outcome, or there were no games): the observed
    /// variance is zero, the true nElo is infinite (or undefined), and `nelo`
    /// is the finite value given by the `1e-3` regularization of empty cells.
    pub bound: bool,
}

/// Elo estimate from per-game counts `[losses, draws, wins]` (fishtest
/// `stat_util.get_elo` on a trinomial).
///
/// With no games it returns `elo = 0`, `error95 = 1199.83` (the whole clamp
/// range) and `los = 0.5`.
pub fn elo_trinomial(counts: &[u64; 3]) -> EloEstimate {
    estimate(counts)
}

/// Elo estimate from game-pair counts (fishtest `stat_util.get_elo` on a
/// pentanomial): the sample is the pair's average score, which accounts for
/// the correlation of the two games of a pair.
///
/// With no pairs it returns `elo = 0`, `error95 = 1199.83`, `los = 0.5`.
pub fn elo_pentanomial(counts: &Pentanomial) -> EloEstimate {
    estimate(&counts.as_array())
}

/// Normalized Elo from per-game counts `[losses, draws, wins]` (fastchess
/// `EloWDL::nElo`). See [`NormalizedElo`] for the formula and the degenerate case.
pub fn nelo_trinomial(counts: &[u64; 3]) -> NormalizedElo {
    normalized(counts)
}

/// Normalized Elo from game-pair counts (fastchess `EloPentanomial::nElo`,
/// with `sigma = sqrt(2) * sigma_pair`).
pub fn nelo_pentanomial(counts: &Pentanomial) -> NormalizedElo {
    normalized(&counts.as_array())
}

/// Likelihood of superiority from decisive games only, as cutechess and
/// fastchess (`EloWDL::los`) print it: `Phi((W - L) / sqrt(W + L))`.
///
/// Returns a probability in `[0, 1]`; `0.5` when there are no decisive games.
/// For 60-40 it gives 0.9772, against 0.9794 from [`elo_trinomial`].
pub fn los_wins_losses(wins: u64, losses: u64) -> f64 {
    let decisive = wins + losses;
    if decisive == 0 {
        return 0.5;
    }
    phi((wins as f64 - losses as f64) / (decisive as f64).sqrt())
}

/// The estimate of `counts` (per game or per pair, worst result first), regularized as
/// fishtest does ([`Empirical::from_counts`]).
fn estimate(counts: &[u64]) -> EloEstimate {
    let sample = Empirical::from_counts(counts);
    let mu = sample.mean();
    let se = sample.std_error();
    let margin = z95() * se;
    EloEstimate {
        elo: elo_from_score(mu),
        error95: (elo_from_score(mu + margin) - elo_from_score(mu - margin)) / 2.0,
        los: phi((mu - 0.5) / se),
        bound: one_sided(counts) || !(SCORE_CLAMP..=1.0 - SCORE_CLAMP).contains(&mu),
    }
}

/// Whether `counts` (worst result first) hold games and all of them in the worst cell, or all
/// in the best: one side won every game (pair) counted.
fn one_sided(counts: &[u64]) -> bool {
    let (worst, best) = (counts[0], counts[counts.len() - 1]);
    let total: u64 = counts.iter().sum();
    total > 0 && (worst == total || best == total)
}

fn normalized(counts: &[u64]) -> NormalizedElo {
    let sample = Empirical::from_counts(counts);
    // One sample holds (cells - 1) / 2 games: 1 for a game, 2 for a pair.
    let games_per_sample = (counts.len() - 1) as f64 / 2.0;
    let sigma = (sample.variance() * games_per_sample).sqrt();
    NormalizedElo {
        nelo: (sample.mean() - 0.5) / sigma * NELO_PER_T + 0.0,
        error95: z95() * sample.std_error() / sigma * NELO_PER_T,
        bound: counts.iter().filter(|&&c| c > 0).count() < 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::assert_close;

    #[test]
    fn per_game_60_40() {
        let e = elo_trinomial(&[40, 0, 60]);
        assert_close(e.elo, 70.44, 5e-3);
        assert_close(e.error95, 70.57, 5e-3);
        assert_close(e.los, 0.9794, 5e-5);
        assert!(!e.bound);
    }

    #[test]
    fn per_game_550_450() {
        let e = elo_trinomial(&[450, 0, 550]);
        assert_close(e.elo, 34.86, 5e-3);
        assert_close(e.error95, 21.67, 5e-3);
    }

    #[test]
    fn per_game_even_small_sample() {
        let e = elo_trinomial(&[5, 0, 5]);
        assert_close(e.elo, 0.0, 5e-3);
        assert_close(e.error95, 251.7, 0.05);
        assert_close(e.los, 0.5, 5e-5);
    }

    #[test]
    fn draws_are_accepted_and_score_half() {
        // 100 draws and 50 wins: score 100/150, 400 log10(2) = 120.41 Elo.
        let e = elo_trinomial(&[0, 100, 50]);
        assert_close(e.elo, 120.41, 5e-3);
    }

    #[test]
    fn one_sided_is_a_finite_bound() {
        for counts in [[0, 0, 1000], [1000, 0, 0], [0, 0, 2000]] {
            let e = elo_trinomial(&counts);
            assert!(e.bound, "{counts:?}");
            assert_close(e.elo.abs(), 1199.8, 0.05);
            assert_close(e.error95, 0.0, 1e-9);
            assert!(e.los.is_finite());
        }
        let e = elo_pentanomial(&[0, 0, 0, 0, 500].into());
        assert!(e.bound && e.elo > 1199.0 && e.los > 0.99);
        // A single win is not clamped (fishtest's regularized 1-0 is 1132 Elo), but it is
        // one-sided: a bound, as 4 pairs all won are.
        let e = elo_trinomial(&[0, 0, 1]);
        assert!(e.bound && e.elo > 1100.0 && e.elo < 1199.0 && e.error95.is_finite());
        let e = elo_pentanomial(&[0, 0, 0, 0, 2].into());
        assert!(e.bound && e.elo < 1199.0, "{e:?}");
        assert!(!elo_pentanomial(&[0, 0, 1, 0, 2].into()).bound);
        assert!(!elo_trinomial(&[0, 0, 0]).bound);
    }

    #[test]
    fn zero_games_span_the_clamp_range() {
        let e = elo_trinomial(&[0, 0, 0]);
        assert_close(e.elo, 0.0, 1e-9);
        assert_close(e.error95, 1199.83, 5e-3);
        assert_close(e.los, 0.5, 1e-9);
        assert!(!e.bound);
        let p = elo_pentanomial(&[0; 5].into());
        assert_close(p.elo, 0.0, 1e-9);
        assert_close(p.error95, 1199.83, 5e-3);
        let n = nelo_pentanomial(&[0; 5].into());
        assert!(n.bound && n.nelo == 0.0 && n.error95.is_finite());
    }

    #[test]
    fn pentanomial_500_pairs() {
        let e = elo_pentanomial(&[100, 0, 250, 0, 150].into());
        assert_close(e.elo, 34.86, 5e-3);
        assert_close(e.error95, 21.56, 5e-3);
        assert_close(e.los, 0.9993, 5e-5);
    }

    #[test]
    fn nelo_pentanomial_matches_fastchess() {
        let n = nelo_pentanomial(&[100, 0, 250, 0, 150].into());
        assert_close(n.nelo, 35.10, 5e-3);
        assert_close(n.error95, 21.53, 5e-3);
        assert!(!n.bound);
    }

    #[test]
    fn nelo_trinomial_uses_the_game_sigma() {
        // mu = 0.55, sigma = sqrt(0.2475): 0.05 / 0.49749 * 347.4356 = 34.92.
        let n = nelo_trinomial(&[450, 0, 550]);
        assert_close(n.nelo, 34.92, 5e-3);
        // z * 347.4356 / sqrt(1000) = 21.53, the same games as the pairs above.
        assert_close(n.error95, 21.53, 5e-3);
    }

    #[test]
    fn nelo_one_sided_is_finite_and_flagged() {
        let n = nelo_trinomial(&[0, 0, 1000]);
        assert!(n.bound && n.nelo.is_finite() && n.nelo > 0.0);
        let n = nelo_pentanomial(&[7, 0, 0, 0, 0].into());
        assert!(n.bound && n.nelo.is_finite() && n.nelo < 0.0);
    }

    #[test]
    fn cutechess_style_los() {
        assert_close(los_wins_losses(60, 40), 0.9772, 5e-5);
        assert_close(los_wins_losses(0, 0), 0.5, 0.0);
        assert_close(los_wins_losses(1000, 0), 1.0, 1e-12);
    }
}
