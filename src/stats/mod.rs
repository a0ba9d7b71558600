//! Match statistics for Breakthrough engine testing (a game without draws).
//!
//! For users (`docs/guide/sprt.md`): games count in the order they were recorded, game pairs
//! from the first complete one, and the first crossing of a bound is the final verdict.
//!
//! * [`after_stop`]: the Elo after an SPRT stopped, median-unbiased, with its 95% interval
//!   (fishtest's `sprt.analytics`), from the LLR's Brownian approximation ([`brownian`]).
//! * [`elo`]: Elo difference, 95% error bar and likelihood of superiority from
//!   per-game (trinomial) or per-pair (pentanomial) counts, as fishtest's
//!   `stat_util.get_elo` computes them, and normalized Elo as fastchess does.
//! * [`sprt`]: the generalized sequential probability ratio test of fishtest's
//!   `LLRcalc`, with logistic Elo bounds (the default) or normalized Elo bounds
//!   (`model=normalized`, fastchess's and OpenBench's default).
//! * [`sequential`]: the games of two engines counted in recorded order (game pairs or
//!   single games) and the SPRT's verdict on them: the first crossing of a bound.
//! * [`ratings`]: Bradley–Terry maximum-likelihood ratings of a pool of engines
//!   (the no-draw model of Ordo and BayesElo) with Hessian error bars.
//!
//! Conventions shared by the submodules:
//!
//! * Trinomial counts are `[losses, draws, wins]`; draws cannot happen in
//!   Breakthrough but are accepted (a draw scores 1/2).
//! * Pentanomial counts are game-pair counts, a [`Pentanomial`] with the cells
//!   `[LL, LD, WL, WD, WW]`; without draws only `LL`, `WL` and `WW` can be non-zero.
//! * Elo is on the logistic scale: a rating difference `e` gives the expected
//!   score [`logistic_score`]`(e) = 1 / (1 + 10^(-e/400))`.
//! * No public function returns NaN or an infinity; each documents the finite
//!   value it returns where the mathematical answer is undefined or infinite.

pub mod after_stop;
pub mod brownian;
pub mod calculator;
pub mod elo;
pub mod pentanomial;
pub mod ratings;
pub mod sequential;
pub mod simulation;
pub mod sprt;

mod linalg;
mod sample;

pub use after_stop::{AfterStop, after_stop};
pub use elo::{
    EloEstimate, NormalizedElo, elo_pentanomial, elo_trinomial, los_wins_losses, nelo_pentanomial,
    nelo_trinomial,
};
pub use pentanomial::Pentanomial;
pub use ratings::{
    Anchor, Bound, EngineRating, PairResult, RatingOptions, Ratings, RatingsError, Scale, rate,
    rate_matrix,
};
pub use sequential::{
    EloModel, MatchCounts, Outcome, SequentialTest, SprtStatus, TestCounts, Verdict,
};
pub use sprt::{Sprt, SprtDecision, SprtModel, SprtReport, SprtSpecError};

use statrs::distribution::{ContinuousCDF, Normal};

/// The smallest score (and, mirrored, the largest, `1 - SCORE_CLAMP`) that
/// [`elo_from_score`] converts; fishtest's `stat_util.elo` uses the same `1e-3`.
pub const SCORE_CLAMP: f64 = 1e-3;

/// Expected score (probability, in `(0, 1)`) of a player `elo` Elo stronger than
/// its opponent: `1 / (1 + 10^(-elo/400))` (fishtest `L`, the logistic model).
///
/// Never NaN for a non-NaN input; it saturates to `0.0` or `1.0` for huge `|elo|`.
pub fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference giving the expected score `score`: `-400 * log10(1/score - 1)`.
///
/// As in fishtest's `stat_util.elo`, the score is first clamped to
/// `[SCORE_CLAMP, 1 - SCORE_CLAMP]`, so the result is always finite and lies in
/// about `[-1199.83, +1199.83]`. A NaN score is treated as 1/2 (returns 0).
pub fn elo_from_score(score: f64) -> f64 {
    let score = if score.is_nan() { 0.5 } else { score };
    let clamped = score.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
    // `+ 0.0` turns the -0.0 of an even score into 0.0.
    -400.0 * (1.0 / clamped - 1.0).log10() + 0.0
}

/// Standard normal cumulative distribution function `Phi(x)`.
pub(crate) fn phi(x: f64) -> f64 {
    Normal::standard().cdf(x)
}

/// The two-sided 95% normal quantile `Phi^-1(0.975) = 1.959964`.
pub(crate) fn z95() -> f64 {
    Normal::standard().inverse_cdf(0.975)
}

#[cfg(test)]
pub(crate) fn assert_close(actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol,
        "expected {expected} +/- {tol}, got {actual}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logistic_and_inverse_match_vectors() {
        assert_close(logistic_score(0.0), 0.5, 1e-12);
        assert_close(logistic_score(5.0), 0.507195, 5e-7);
        assert_close(elo_from_score(0.75), 400.0 * 3f64.log10(), 1e-9);
        assert_close(elo_from_score(logistic_score(123.4)), 123.4, 1e-9);
        assert_close(z95(), 1.959964, 5e-7);
    }

    #[test]
    fn elo_from_score_is_clamped_and_finite() {
        assert_close(elo_from_score(1.0), 1199.83, 5e-3);
        assert_close(elo_from_score(0.0), -1199.83, 5e-3);
        assert_close(elo_from_score(f64::INFINITY), 1199.83, 5e-3);
        assert_eq!(elo_from_score(f64::NAN), 0.0);
    }
}
