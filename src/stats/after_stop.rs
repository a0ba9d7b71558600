//! The Elo after an SPRT stopped: a median-unbiased estimate and its confidence interval, as
//! fishtest's `stats/sprt.py` (`sprt.analytics`) computes them.
//!
//! A test that stops when its LLR crosses a bound overstates the difference it measured:
//! stopping early on a lucky run is the selection. The plain maximum-likelihood Elo and its
//! fixed-sample error bar ([`super::elo`]) ignore that. Here the LLR is approximated by a
//! Brownian motion ([`Brownian`]) whose drift is a function of the true Elo, and the
//! estimate is the Elo for which the observed outcome is the median one:
//!
//! 1. From the counts at the stop (regularized as for the LLR: empty cells count `1e-3`),
//!    the per-sample score distribution with mean `m` and variance `v`; the hypotheses'
//!    scores `s0 = L(elo0)`, `s1 = L(elo1)` (logistic), or `s_i = nt_i sigma + 1/2` with
//!    `nt_i = nelo_i / (800 / ln 10)` and `sigma` the per-game standard deviation
//!    (`sqrt(2 v)` of a pair's score, `sqrt(v)` of a game's) for normalized bounds.
//! 2. The LLR's drift and variance per sample for a true score `s` (fishtest
//!    `LLR_drift_variance_alt2`): `mu(s) = (s - (s0 + s1) / 2) (s1 - s0) / v`,
//!    `sigma2 = (s1 - s0)^2 / v`.
//! 3. The stop, with the overshoot taken out: the approximate LLR `N mu(m)` over `N` samples;
//!    beyond a bound it is set on the bound and the time scaled to `T = bound / mu(m)`, the
//!    time at which the motion of that slope reached it (so the overshoot of a discrete LLR
//!    over the bound does not count as evidence). `clamped` when it was beyond 1.03 times a
//!    bound.
//! 4. `P(elo)`: the probability of an outcome worse than the observed one for a true Elo
//!    `elo` ([`Brownian::outcome_cdf`], the series or Siegmund's approximation). The
//!    estimate solves `P(elo) = 1/2`; the 95% interval's ends `P(elo) = 1 - 0.025` and
//!    `P(elo) = 0.025`; the LOS is `P(0)`. The root is searched as fishtest's `lower_cb`
//!    does: in `(elo0 + elo1) / 2 ± 30 (elo1 - elo0)` (within `±1000`), the interval doubled
//!    until it holds a change of sign; without one at `±1000`, the end the function points to.
//!
//! Elo here is logistic Elo, for both models (fishtest's `sprt.analytics` too: the
//! true score `L(elo)` is what step 4 varies). fishtest warns that the approximation is
//! meant for small differences; for large ones the figures are qualitative.
//!
//! The dynamic overshoot estimate of fishtest's `update_SPRT` (Siegmund, corollary 8.33)
//! moves fishtest's stopping bounds; bt-arena's verdict is the first crossing of Wald's
//! bounds ([`super::sequential`]), and the estimate takes the overshoot out as step 3 does.

use serde::Serialize;

use super::brownian::Brownian;
use super::logistic_score;
use super::sample::Empirical;
use super::sprt::{NELO_PER_T, Sprt, SprtModel};

/// Confidence level of the interval: 95%.
pub const LEVEL: f64 = 0.95;

/// Widest Elo searched (fishtest's `±1000`).
const ELO_LIMIT: f64 = 1000.0;

/// Width at which the root search stops, Elo (fishtest's `brentq` stops at `2e-12`).
const ROOT_TOLERANCE: f64 = 1e-11;

/// The Elo after an SPRT stopped.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AfterStop {
    /// The median-unbiased Elo (logistic), of the tested engine.
    pub elo: f64,
    /// The 95% confidence interval, `[lower, upper]`, Elo.
    pub ci: [f64; 2],
    /// Likelihood of superiority after the stop: the probability of an outcome worse than
    /// the observed one if the engines were equal.
    pub los: f64,
    /// The LLR of the Brownian approximation at the stop, set on the bound it crossed
    /// (fishtest's `LLR` of `sprt.analytics`, before it is replaced by the exact one).
    pub llr: f64,
    /// The approximate LLR was beyond 1.03 times a bound: a large overshoot (or counts far
    /// past a verdict), taken out.
    pub clamped: bool,
}

impl std::fmt::Display for AfterStop {
    /// The estimate and its interval, `+12.34 [+3.21, +21.05]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `+ 0.0` prints -0.0 as +0.00.
        write!(
            f,
            "{:+.2} [{:+.2}, {:+.2}]",
            self.elo + 0.0,
            self.ci[0] + 0.0,
            self.ci[1] + 0.0
        )
    }
}

/// The after-stop estimate of `sprt` from `counts` (`[L, D, W]` of single games or the five
/// cells of game pairs `[LL, LD, WL, WD, WW]`, the counts the verdict came from), as
/// fishtest's `sprt.set_state(counts)` then `sprt.analytics(0.05)` compute it (see the module
/// documentation). Any counts give figures (also of a test still running, whose LLR is not
/// moved); without counts the distribution is the regularized uniform one.
///
/// # Panics
/// When `counts` has other than 3 or 5 cells.
pub fn after_stop(sprt: &Sprt, counts: &[u64]) -> AfterStop {
    assert!(
        counts.len() == 3 || counts.len() == 5,
        "trinomial or pentanomial counts"
    );
    let state = State::new(sprt, counts);
    let quantile = |p: f64| state.lower_cb(sprt, p);
    let tail = (1.0 - LEVEL) / 2.0;
    AfterStop {
        elo: quantile(0.5),
        ci: [quantile(tail), quantile(1.0 - tail)],
        los: state.outcome_prob(0.0),
        llr: state.llr,
        clamped: state.clamped,
    }
}

/// What fishtest's `sprt.set_state` keeps.
struct State {
    /// The per-sample variance of the regularized counts.
    variance: f64,
    /// The hypotheses' scores per sample.
    s0: f64,
    s1: f64,
    /// The Wald bounds.
    a: f64,
    b: f64,
    /// The approximate LLR, set on a bound it is beyond.
    llr: f64,
    /// The samples, scaled when the LLR was set on a bound.
    time: f64,
    clamped: bool,
}

impl State {
    fn new(sprt: &Sprt, counts: &[u64]) -> State {
        let sample = Empirical::from_counts(counts);
        let variance = sample.variance();
        let (s0, s1) = match sprt.model() {
            SprtModel::Logistic => (logistic_score(sprt.elo0()), logistic_score(sprt.elo1())),
            SprtModel::Normalized => {
                let sigma_pg = match counts.len() {
                    5 => (2.0 * variance).sqrt(),
                    _ => variance.sqrt(),
                };
                let score = |nelo: f64| nelo / NELO_PER_T * sigma_pg + 0.5;
                (score(sprt.elo0()), score(sprt.elo1()))
            }
        };
        let (a, b) = sprt.bounds();
        let n = sample.n();
        let slope = drift(sample.mean(), s0, s1, variance);
        let llr = n * slope;
        let clamped = llr > 1.03 * b || llr < 1.03 * a;
        let (llr, time) = if llr < a {
            (a, a / slope)
        } else if llr > b {
            (b, b / slope)
        } else {
            (llr, n)
        };
        State {
            variance,
            s0,
            s1,
            a,
            b,
            llr,
            time,
            clamped,
        }
    }

    /// The probability of an outcome worse than the observed one for a true logistic Elo
    /// `elo` (fishtest `sprt.outcome_prob`).
    fn outcome_prob(&self, elo: f64) -> f64 {
        let (s0, s1) = (self.s0, self.s1);
        let mu = drift(logistic_score(elo), s0, s1, self.variance);
        let sigma2 = (s1 - s0) * (s1 - s0) / self.variance;
        // fishtest takes sigma = sqrt(var) and squares it again.
        let sigma2 = sigma2.sqrt().powi(2);
        Brownian {
            a: self.a,
            b: self.b,
            mu,
            sigma2,
        }
        .outcome_cdf(self.time, self.llr)
    }

    /// The Elo at which an outcome worse than the observed one has probability `1 - p`: the
    /// root of `outcome_prob(elo) = 1 - p` (fishtest `sprt.lower_cb`), the `p` quantile of
    /// the estimate.
    fn lower_cb(&self, sprt: &Sprt, p: f64) -> f64 {
        let f = |elo: f64| self.outcome_prob(elo) - (1.0 - p);
        let middle = (sprt.elo0() + sprt.elo1()) / 2.0;
        let delta = sprt.elo1() - sprt.elo0();
        let mut reach = 30.0;
        loop {
            let lo = (middle - reach * delta).max(-ELO_LIMIT);
            let hi = (middle + reach * delta).min(ELO_LIMIT);
            let (f_lo, f_hi) = (f(lo), f(hi));
            if f_lo * f_hi > 0.0 {
                if lo > -ELO_LIMIT || hi < ELO_LIMIT {
                    reach *= 2.0;
                    continue;
                }
                return if f_lo > 0.0 { hi } else { lo };
            }
            return root(lo, hi, f_lo, f);
        }
    }
}

/// The LLR's drift per sample for a true score `s` (fishtest `LLR_drift_variance_alt2`).
fn drift(s: f64, s0: f64, s1: f64, variance: f64) -> f64 {
    (s - (s0 + s1) / 2.0) * (s1 - s0) / variance
}

/// A root of `f` in `[lo, hi]`, where `f` changes sign (`f_lo = f(lo)`), by bisection to
/// [`ROOT_TOLERANCE`]; an end where `f` is 0 is the root (as `brentq` returns it).
fn root(mut lo: f64, mut hi: f64, mut f_lo: f64, f: impl Fn(f64) -> f64) -> f64 {
    if f_lo == 0.0 {
        return lo;
    }
    if f(hi) == 0.0 {
        return hi;
    }
    while hi - lo > ROOT_TOLERANCE {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let f_mid = f(mid);
        if f_mid == 0.0 {
            return mid;
        }
        if (f_mid > 0.0) == (f_lo > 0.0) {
            lo = mid;
            f_lo = f_mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests;
