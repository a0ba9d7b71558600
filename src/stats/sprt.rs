//! Generalized sequential probability ratio test (GSPRT) on logistic Elo (the default) or
//! normalized Elo, as fishtest's `LLRcalc.LLR_logistic` and `LLRcalc.LLR_normalized` and
//! fastchess's `SPRT::getLLR_logistic` and `SPRT::getLLR_normalized` compute them.
//!
//! # Logistic Elo ([`SprtModel::Logistic`])
//!
//! H0: the Elo difference is `elo0`; H1: it is `elo1`. Each hypothesis fixes
//! the expected score per sample `s = L(elo)` ([`logistic_score`]). The
//! likelihood under a hypothesis is maximised over all score distributions on
//! the sample outcomes `a_i` with mean `s`; for the empirical distribution
//! `p^_i` (empty cells regularized to `1e-3`, fishtest `regularize`) the
//! maximiser is
//!
//! ```text
//! p_i(s) = p^_i / (1 + theta (a_i - s)),  theta solving  sum p^_i (a_i - s) / (1 + theta (a_i - s)) = 0
//! ```
//!
//! (fishtest `MLE_expected`, after M. Van den Bergh's note "support_MLE_multinomial").
//! The log-likelihood ratio is `LLR = N sum p^_i ln(p_i(s1) / p_i(s0))`. With
//! no draws the trinomial LLR equals the exact binomial
//! `W ln(s1/s0) + L ln((1-s1)/(1-s0))` up to the regularization.
//!
//! # Normalized Elo ([`SprtModel::Normalized`])
//!
//! The bounds are in normalized Elo (nElo, fastchess's and OpenBench's default, the model of
//! fishtest's test form): `nElo = t * 800 / ln 10`, where `t = (mu - 1/2) / sigma` is the
//! t-value of the score per game, `mu` its mean and `sigma` its standard deviation (per game
//! pair, `sigma_pg = sqrt(2) * sigma_pair`, so a pair's t-value is `sqrt(2)` times the game's
//! `nElo / (800 / ln 10)`). A hypothesis fixes `t`, not the mean; the likelihood is maximised
//! over the distributions on the `a_i` with that t-value. The maximiser (M. Van den Bergh,
//! "Comments on Normalized Elo", <https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>,
//! section 4.1; fishtest `MLE_t_value`, fastchess `getLLR_normalized`) is the fixed point of
//!
//! ```text
//! phi_i = a_i - 1/2 - t sigma (1 + ((a_i - mu) / sigma)^2) / 2     (mu, sigma of the current p)
//! p_i   = p^_i / (1 + theta phi_i),   theta solving  sum p^_i phi_i / (1 + theta phi_i) = 0
//! ```
//!
//! iterated from the uniform distribution; the LLR is `N sum p^_i ln(p_i(t1) / p_i(t0))` as
//! above. Without draws a game's variance is `s (1 - s)`, about 1/4 near an even score, so on
//! single games nElo and logistic Elo nearly agree; on game pairs they part as much as the
//! pairs' results are correlated (an opening that each side wins with the same colour makes a
//! pair's score steadier, and the same logistic Elo more nElo).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::logistic_score;
use super::pentanomial::Pentanomial;
use super::sample::Empirical;

/// Default type I error (`alpha`) and type II error (`beta`) of a parsed spec.
pub const DEFAULT_ERROR_RATE: f64 = 0.05;

/// Largest `|elo0|`, `|elo1|` accepted: hypotheses beyond it mean scores
/// within 0.3% of 0 or 1, where an SPRT is pointless and the MLE ill-conditioned.
pub const MAX_ELO: f64 = 1000.0;

/// SPRT parameters: Elo bounds of the hypotheses and the error rates.
///
/// Build with [`Sprt::new`] or parse `"elo0=0 elo1=5 alpha=0.05 beta=0.05"`
/// ([`FromStr`]); both validate and the fields are private, so the methods
/// never see bad parameters. [`Display`](fmt::Display) writes the same
/// `key=value` form back, with every key. Serde uses that string form too (the
/// `sprt` field of a tournament config file and of config.json), so a
/// deserialized `Sprt` is validated like a parsed one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Sprt {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: SprtModel,
}

/// The Elo scale of an SPRT's bounds: `model=logistic` (the default) or `model=normalized` in
/// the spec, as fastchess's `-sprt ... model=` names them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtModel {
    /// Logistic Elo: a hypothesis fixes the expected score (fishtest `LLR_logistic`).
    #[default]
    Logistic,
    /// Normalized Elo (nElo): a hypothesis fixes the score's t-value (fishtest
    /// `LLR_normalized`).
    Normalized,
}

impl SprtModel {
    /// Both models, the default first.
    pub const ALL: [SprtModel; 2] = [SprtModel::Logistic, SprtModel::Normalized];

    /// The name in a spec: `logistic` or `normalized`.
    pub const fn name(self) -> &'static str {
        match self {
            SprtModel::Logistic => "logistic",
            SprtModel::Normalized => "normalized",
        }
    }

    /// The unit of the bounds: `Elo` or `nElo`.
    pub const fn unit(self) -> &'static str {
        match self {
            SprtModel::Logistic => "Elo",
            SprtModel::Normalized => "nElo",
        }
    }

    /// True for the default, [`SprtModel::Logistic`].
    pub fn is_logistic(&self) -> bool {
        *self == SprtModel::Logistic
    }
}

impl fmt::Display for SprtModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Outcome of comparing an LLR with the SPRT bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// LLR reached the lower bound: stop, H0 (`elo0`) accepted.
    AcceptH0,
    /// LLR reached the upper bound: stop, H1 (`elo1`) accepted.
    AcceptH1,
    /// LLR between the bounds: play on.
    Continue,
}

/// One SPRT status line: the LLR, the bounds, the hypotheses and the decision.
///
/// [`Display`](fmt::Display) gives the fastchess/fishtest line
/// `LLR: 2.95 (-2.94, 2.94) [0.00, 5.00]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtReport {
    /// Log-likelihood ratio (finite).
    pub llr: f64,
    /// Lower bound `ln(beta / (1 - alpha))`.
    pub lower: f64,
    /// Upper bound `ln((1 - beta) / alpha)`.
    pub upper: f64,
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// The scale of `elo0` and `elo1`; `elo_model` in JSON (beside a status's `model`, the
    /// counts the LLR came from), left out when logistic, the default.
    #[serde(default, skip_serializing_if = "SprtModel::is_logistic")]
    pub elo_model: SprtModel,
    /// Decision for `llr`.
    pub decision: SprtDecision,
}

/// Why an SPRT specification was rejected. Every variant names the offending
/// token or key as the user wrote it.
#[derive(Debug, Clone, PartialEq)]
pub enum SprtSpecError {
    /// A token that is not of the form `key=value`.
    NotKeyValue(String),
    /// A key other than `elo0`, `elo1`, `alpha`, `beta`, `model` (the whole token).
    UnknownKey(String),
    /// A key given twice (the second token).
    DuplicateKey(String),
    /// A value that is not a finite number (the whole token).
    BadNumber(String),
    /// A `model=` other than `logistic` or `normalized` (the whole token).
    BadModel(String),
    /// A required key (`elo0` or `elo1`) is absent.
    MissingKey(&'static str),
    /// A bound beyond what the model can read: `key` (`elo0` or `elo1`) is `elo`, beyond
    /// `+/-max` (Elo, or nElo with `model=normalized`).
    BoundTooFar {
        /// `elo0` or `elo1`.
        key: &'static str,
        /// The bound given.
        elo: f64,
        /// The largest magnitude accepted.
        max: f64,
        /// Whether the bounds are read as normalized Elo.
        normalized: bool,
    },
    /// `elo1` is not greater than `elo0`.
    BoundsOutOfOrder {
        /// The lower bound given.
        elo0: f64,
        /// The upper bound given.
        elo1: f64,
    },
    /// `alpha` or `beta` (`key`) is not strictly between 0 and 1.
    NotAProbability {
        /// `alpha` or `beta`.
        key: &'static str,
        /// The rate given.
        rate: f64,
    },
    /// `alpha + beta` is 1 or more, so the bounds would not straddle 0.
    RatesTooLarge {
        /// The false-positive rate.
        alpha: f64,
        /// The false-negative rate.
        beta: f64,
    },
}

impl fmt::Display for SprtSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotKeyValue(t) => write!(f, "SPRT token `{t}` is not of the form key=value"),
            Self::UnknownKey(t) => write!(
                f,
                "SPRT token `{t}` has an unknown key (expected elo0, elo1, alpha, beta, model)"
            ),
            Self::BadModel(t) => write!(
                f,
                "SPRT token `{t}` names no model (expected model=logistic or model=normalized)"
            ),
            Self::DuplicateKey(t) => write!(f, "SPRT token `{t}` repeats a key"),
            Self::BadNumber(t) => write!(f, "SPRT token `{t}` has a value that is not a number"),
            Self::MissingKey(k) => write!(f, "SPRT specification lacks `{k}=`"),
            Self::BoundTooFar {
                key,
                elo,
                max,
                normalized,
            } => {
                let scale = if *normalized {
                    " nElo with model=normalized"
                } else {
                    ""
                };
                write!(
                    f,
                    "invalid SPRT parameters: {key}={elo} must be within +/-{max}{scale}"
                )
            }
            Self::BoundsOutOfOrder { elo0, elo1 } => write!(
                f,
                "invalid SPRT parameters: elo1={elo1} must be greater than elo0={elo0}"
            ),
            Self::NotAProbability { key, rate } => write!(
                f,
                "invalid SPRT parameters: {key}={rate} must be strictly between 0 and 1"
            ),
            Self::RatesTooLarge { alpha, beta } => write!(
                f,
                "invalid SPRT parameters: alpha={alpha} plus beta={beta} must be below 1"
            ),
        }
    }
}

impl std::error::Error for SprtSpecError {}

impl Sprt {
    /// Validated SPRT parameters.
    ///
    /// # Errors
    /// [`SprtSpecError::BoundTooFar`] unless `|elo0|, |elo1| <=` [`MAX_ELO`],
    /// [`SprtSpecError::BoundsOutOfOrder`] unless `elo0 < elo1`,
    /// [`SprtSpecError::NotAProbability`] unless `alpha` and `beta` are in `(0, 1)`, and
    /// [`SprtSpecError::RatesTooLarge`] unless `alpha + beta < 1` (so that the lower bound is
    /// negative and the upper positive).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, SprtSpecError> {
        for (key, elo) in [("elo0", elo0), ("elo1", elo1)] {
            if !(-MAX_ELO..=MAX_ELO).contains(&elo) {
                return Err(SprtSpecError::BoundTooFar {
                    key,
                    elo,
                    max: MAX_ELO,
                    normalized: false,
                });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtSpecError::BoundsOutOfOrder { elo0, elo1 });
        }
        for (key, rate) in [("alpha", alpha), ("beta", beta)] {
            if !is_probability_strictly_inside(rate) {
                return Err(SprtSpecError::NotAProbability { key, rate });
            }
        }
        if alpha + beta >= 1.0 {
            return Err(SprtSpecError::RatesTooLarge { alpha, beta });
        }
        Ok(Self {
            elo0,
            elo1,
            alpha,
            beta,
            model: SprtModel::Logistic,
        })
    }

    /// The same test with its bounds read on `model`'s scale.
    ///
    /// # Errors
    /// [`SprtSpecError::BoundTooFar`] for [`SprtModel::Normalized`] unless `|elo0|, |elo1| <=`
    /// [`MAX_NELO`].
    pub fn with_model(self, model: SprtModel) -> Result<Self, SprtSpecError> {
        if model == SprtModel::Normalized {
            for (key, nelo) in [("elo0", self.elo0), ("elo1", self.elo1)] {
                if nelo.abs() > MAX_NELO {
                    return Err(SprtSpecError::BoundTooFar {
                        key,
                        elo: nelo,
                        max: MAX_NELO,
                        normalized: true,
                    });
                }
            }
        }
        Ok(Self { model, ..self })
    }

    /// The scale of the bounds.
    pub fn model(&self) -> SprtModel {
        self.model
    }

    /// Elo difference under H0 (on the scale of [`model`](Sprt::model)).
    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    /// Elo difference under H1 (on the scale of [`model`](Sprt::model)), `> elo0`.
    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// Probability of accepting H1 when H0 holds, in `(0, 1)`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Probability of accepting H0 when H1 holds, in `(0, 1)`; `alpha + beta < 1`.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// `(lower, upper)` LLR bounds: `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`
    /// (Wald; fishtest `sprt`, fastchess `SPRT`). `-2.944, 2.944` for 0.05/0.05.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// LLR of game-pair counts (fishtest `LLR_logistic` or `LLR_normalized` on a
    /// pentanomial). Finite for every input, including one-sided results (regularized);
    /// exactly 0 when there are no pairs.
    pub fn llr_pentanomial(&self, counts: &Pentanomial) -> f64 {
        self.llr(&counts.as_array())
    }

    /// LLR of per-game counts `[losses, draws, wins]` (fishtest
    /// `LLR_logistic` or `LLR_normalized` on a trinomial). Finite for every input, including
    /// one-sided results (regularized); exactly 0 when there are no games.
    pub fn llr_trinomial(&self, counts: &[u64; 3]) -> f64 {
        self.llr(counts)
    }

    /// Decision for `llr`: [`SprtDecision::AcceptH1`] at or above the upper
    /// bound, [`SprtDecision::AcceptH0`] at or below the lower bound,
    /// otherwise (also for NaN) [`SprtDecision::Continue`].
    pub fn decision(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// Status line for `llr` (see [`SprtReport`]); `llr` is stored as given.
    pub fn report(&self, llr: f64) -> SprtReport {
        let (lower, upper) = self.bounds();
        SprtReport {
            llr,
            lower,
            upper,
            elo0: self.elo0,
            elo1: self.elo1,
            elo_model: self.model,
            decision: self.decision(llr),
        }
    }

    /// The LLR of game-pair counts and its jumps: for each cell, `ln(p1_i / p0_i)` of the
    /// two hypotheses' maximum-likelihood distributions (fishtest `LLRcalc.LLRjumps`), what
    /// one more pair of that cell adds to the LLR, to first order. The LLR is the
    /// [`llr_pentanomial`](Self::llr_pentanomial), bit for bit; without pairs, 0 and no jumps
    /// (all 0).
    pub fn llr_and_jumps_pentanomial(&self, counts: &Pentanomial) -> (f64, [f64; 5]) {
        let counts = counts.as_array();
        let mut jumps = [0.0; 5];
        if counts.iter().all(|&c| c == 0) {
            return (0.0, jumps);
        }
        let sample = Empirical::from_counts(&counts);
        jumps.copy_from_slice(&self.jumps(&sample));
        (Self::llr_of_jumps(&sample, &jumps), jumps)
    }

    fn llr(&self, counts: &[u64]) -> f64 {
        if counts.iter().all(|&c| c == 0) {
            return 0.0;
        }
        let sample = Empirical::from_counts(counts);
        Self::llr_of_jumps(&sample, &self.jumps(&sample))
    }

    /// `N sum p^_i jump_i`: the LLR of the sample.
    fn llr_of_jumps(sample: &Empirical, jumps: &[f64]) -> f64 {
        let per_sample: f64 = sample
            .pdf()
            .iter()
            .zip(jumps)
            .map(|(&(_, p), jump)| p * jump)
            .sum();
        sample.n() * per_sample
    }

    /// `ln(p1_i / p0_i)` per cell, of the model's hypotheses.
    fn jumps(&self, sample: &Empirical) -> Vec<f64> {
        match self.model {
            SprtModel::Logistic => self.jumps_logistic(sample),
            SprtModel::Normalized => self.jumps_normalized(sample),
        }
    }

    /// The jumps on logistic Elo (fishtest `LLR_logistic`): `p_i(s) = p^_i / (1 + theta
    /// (a_i - s))`, so `ln(p_i(s1) / p_i(s0)) = ln(1 + theta0 (a_i - s0)) - ln(1 + theta1 (a_i
    /// - s1))`.
    fn jumps_logistic(&self, sample: &Empirical) -> Vec<f64> {
        let s0 = logistic_score(self.elo0);
        let s1 = logistic_score(self.elo1);
        let theta0 = mle_theta(sample, s0);
        let theta1 = mle_theta(sample, s1);
        sample
            .pdf()
            .iter()
            .map(|&(a, _)| (theta0 * (a - s0)).ln_1p() - (theta1 * (a - s1)).ln_1p())
            .collect()
    }

    /// The jumps on normalized Elo (fishtest `LLR_normalized`): the t-values of the
    /// hypotheses per sample (`sqrt(2)` times the game's for a pair), each one's
    /// maximum-likelihood distribution ([`mle_t_value`]), and `ln(p_i(t1) / p_i(t0))`.
    fn jumps_normalized(&self, sample: &Empirical) -> Vec<f64> {
        let per_sample = if sample.pdf().len() == 5 {
            std::f64::consts::SQRT_2
        } else {
            1.0
        };
        let t = |nelo: f64| per_sample * nelo / NELO_PER_T;
        let p0 = mle_t_value(sample, t(self.elo0));
        let p1 = mle_t_value(sample, t(self.elo1));
        p0.iter()
            .zip(&p1)
            .map(|(q0, q1)| q1.ln() - q0.ln())
            .collect()
    }
}

/// Normalized Elo per unit of t-value: `800 / ln 10` (fishtest `nelo_divided_by_nt`).
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Largest `|elo0|`, `|elo1|` accepted with [`SprtModel::Normalized`]. The iteration of
/// `mle_t_value` starts from the uniform distribution, whose pair scores have `sigma =
/// sqrt(1/8)`; there every `phi_i` has the same sign once a pair's `|t|` exceeds `2 /
/// (3 sqrt(1/8)) - ` about 0.94, i.e. about 231 nElo, and the equation for `theta` has no root
/// (fishtest's `secular` asserts). 200 nElo (`|t|` 0.81 a pair) keeps clear of it; a test
/// between hypotheses that far apart would be decided in a handful of pairs anyway.
pub const MAX_NELO: f64 = 200.0;

/// Most rounds of the fixed-point iteration of [`mle_t_value`]; it converges in a few dozen.
const MLE_ROUNDS: usize = 200;

/// The iteration of [`mle_t_value`] stops once no probability moves by more than this.
const MLE_TOLERANCE: f64 = 1e-13;

/// The maximum-likelihood distribution on the sample's scores with t-value `t` against a
/// reference score of 1/2, given the empirical distribution (fishtest `MLE_t_value`, Van den
/// Bergh section 4.1; see the module documentation): the probabilities, cell by cell.
fn mle_t_value(sample: &Empirical, t: f64) -> Vec<f64> {
    let pdf = sample.pdf();
    let mut p = vec![1.0 / pdf.len() as f64; pdf.len()];
    let mut phi = vec![0.0; pdf.len()];
    for _ in 0..MLE_ROUNDS {
        let mu: f64 = pdf.iter().zip(&p).map(|(&(a, _), q)| a * q).sum();
        let var: f64 = pdf
            .iter()
            .zip(&p)
            .map(|(&(a, _), q)| q * (a - mu).powi(2))
            .sum();
        let sigma = var.sqrt();
        for (phi, &(a, _)) in phi.iter_mut().zip(pdf) {
            *phi = a - 0.5 - t * sigma * (1.0 + ((a - mu) / sigma).powi(2)) / 2.0;
        }
        let theta = secular_root(pdf, &phi);
        let mut moved: f64 = 0.0;
        for ((q, &(_, hat)), phi) in p.iter_mut().zip(pdf).zip(&phi) {
            let next = hat / (1.0 + theta * phi);
            moved = moved.max((next - *q).abs());
            *q = next;
        }
        if moved < MLE_TOLERANCE {
            break;
        }
    }
    p
}

/// Root `theta` of `sum p^_i phi_i / (1 + theta phi_i) = 0` on the interval where every
/// `1 + theta phi_i > 0`, `(-1 / max phi, -1 / min phi)` (fishtest `secular`): the function
/// decreases from `+inf` to `-inf` there when `min phi < 0 < max phi`, so bisection finds the
/// root. Were every `phi_i` of one sign (bounds beyond [`MAX_NELO`]), the end of the interval
/// that exists is returned, and `theta` 0 when neither does.
fn secular_root(pdf: &[(f64, f64)], phi: &[f64]) -> f64 {
    let f = |theta: f64| -> f64 {
        pdf.iter()
            .zip(phi)
            .map(|(&(_, p), &phi)| p * phi / (1.0 + theta * phi))
            .sum()
    };
    let max = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = phi.iter().copied().fold(f64::INFINITY, f64::min);
    if !(min < 0.0 && max > 0.0) {
        return 0.0;
    }
    bisect(-1.0 / max, -1.0 / min, f)
}

/// `true` for `x` in the open interval `(0, 1)` (false for NaN).
fn is_probability_strictly_inside(x: f64) -> bool {
    x > 0.0 && x < 1.0
}

/// Width at which the bisection for `theta` stops: `theta` is O(1) and the
/// LLR is stationary in it at the root, so the LLR error is negligible.
const THETA_TOLERANCE: f64 = 1e-15;

/// Root `theta` of `sum p_i (a_i - s) / (1 + theta (a_i - s)) = 0` on the interval
/// where every `1 + theta (a_i - s) > 0`, i.e. `(-1/(1 - s), 1/s)` for scores in
/// `[0, 1]` (fishtest `MLE_expected`). The function decreases from `+inf` to `-inf`
/// there (all `p_i > 0` after regularization), so bisection (to
/// [`THETA_TOLERANCE`]) finds the unique root; `s` must lie in `(0, 1)`.
fn mle_theta(sample: &Empirical, s: f64) -> f64 {
    let f = |theta: f64| -> f64 {
        sample
            .pdf()
            .iter()
            .map(|&(a, p)| p * (a - s) / (1.0 + theta * (a - s)))
            .sum()
    };
    bisect(-1.0 / (1.0 - s), 1.0 / s, f)
}

impl fmt::Display for Sprt {
    /// `elo0=0 elo1=5 alpha=0.05 beta=0.05`, the form [`FromStr`] parses, then
    /// ` model=normalized` for that model (the default, logistic, is not written, so specs
    /// saved before the key existed read the same).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={} elo1={} alpha={} beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )?;
        if !self.model.is_logistic() {
            write!(f, " model={}", self.model)?;
        }
        Ok(())
    }
}

impl FromStr for Sprt {
    type Err = SprtSpecError;

    /// Parses `key=value` tokens separated by commas or white space, with keys `elo0`,
    /// `elo1` (required), `alpha`, `beta` (default [`DEFAULT_ERROR_RATE`]), `model`
    /// (`logistic`, the default, or `normalized`), in any order, e.g.
    /// `elo0=0,elo1=5,alpha=0.05,beta=0.05`, `elo0=0 elo1=5` or `elo0=0 elo1=2 model=normalized`.
    ///
    /// # Errors
    /// See [`SprtSpecError`]; the error carries the offending token.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let mut values: [Option<f64>; 4] = [None; 4];
        let mut model = None;
        let tokens = spec
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|token| !token.is_empty());
        for token in tokens {
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| SprtSpecError::NotKeyValue(token.to_string()))?;
            if key == "model" {
                if model.is_some() {
                    return Err(SprtSpecError::DuplicateKey(token.to_string()));
                }
                let named = SprtModel::ALL.into_iter().find(|m| m.name() == value);
                model = Some(named.ok_or_else(|| SprtSpecError::BadModel(token.to_string()))?);
                continue;
            }
            let slot = match key {
                "elo0" => 0,
                "elo1" => 1,
                "alpha" => 2,
                "beta" => 3,
                _ => return Err(SprtSpecError::UnknownKey(token.to_string())),
            };
            if values[slot].is_some() {
                return Err(SprtSpecError::DuplicateKey(token.to_string()));
            }
            let number = value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| SprtSpecError::BadNumber(token.to_string()))?;
            values[slot] = Some(number);
        }
        let [elo0, elo1, alpha, beta] = values;
        Sprt::new(
            elo0.ok_or(SprtSpecError::MissingKey("elo0"))?,
            elo1.ok_or(SprtSpecError::MissingKey("elo1"))?,
            alpha.unwrap_or(DEFAULT_ERROR_RATE),
            beta.unwrap_or(DEFAULT_ERROR_RATE),
        )?
        .with_model(model.unwrap_or_default())
    }
}

impl TryFrom<String> for Sprt {
    type Error = SprtSpecError;

    /// [`FromStr`]: the serde form.
    fn try_from(spec: String) -> Result<Self, Self::Error> {
        spec.parse()
    }
}

impl From<Sprt> for String {
    /// [`Display`](fmt::Display): the serde form.
    fn from(sprt: Sprt) -> Self {
        sprt.to_string()
    }
}

impl fmt::Display for SprtReport {
    /// `LLR: 2.95 (-2.94, 2.94) [0.00, 5.00]`, with ` nElo` after the bounds when they are
    /// normalized Elo.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `+ 0.0` prints -0.0 as 0.00.
        write!(
            f,
            "LLR: {:.2} ({:.2}, {:.2}) [{:.2}, {:.2}]",
            self.llr + 0.0,
            self.lower,
            self.upper,
            self.elo0 + 0.0,
            self.elo1 + 0.0
        )?;
        if !self.elo_model.is_logistic() {
            write!(f, " {}", self.elo_model.unit())?;
        }
        Ok(())
    }
}

/// The root of `f`, decreasing across it, in `(lo, hi)` (`f(lo) > 0 > f(hi)`), by bisection
/// to [`THETA_TOLERANCE`] (or until the interval stops shrinking in floating point).
fn bisect(mut lo: f64, mut hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    loop {
        let mid = 0.5 * (lo + hi);
        if hi - lo <= THETA_TOLERANCE || mid <= lo || mid >= hi {
            return mid;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::assert_close;

    fn sprt_0_5() -> Sprt {
        Sprt::new(0.0, 5.0, 0.05, 0.05).expect("valid parameters")
    }

    #[test]
    fn bounds_match_vectors() {
        let (lower, upper) = sprt_0_5().bounds();
        assert_close(lower, -2.944, 5e-4);
        assert_close(upper, 2.944, 5e-4);
        let (lower, upper) = Sprt::new(0.0, 5.0, 0.05, 0.1).unwrap().bounds();
        assert_close(lower, (0.1f64 / 0.95).ln(), 1e-12);
        assert_close(upper, (0.9f64 / 0.05).ln(), 1e-12);
    }

    #[test]
    fn pentanomial_llr_matches_vectors() {
        let sprt = sprt_0_5();
        assert_close(
            sprt.llr_pentanomial(&[120, 0, 260, 0, 140].into()),
            0.4682,
            5e-5,
        );
        assert_close(
            sprt.llr_pentanomial(&[100, 0, 250, 0, 150].into()),
            1.337,
            5e-4,
        );
    }

    #[test]
    fn trinomial_llr_matches_vectors() {
        let sprt = sprt_0_5();
        assert_close(sprt.llr_trinomial(&[480, 0, 520]), 0.4721, 5e-5);
        assert_close(sprt.llr_trinomial(&[450, 0, 550]), 1.336, 5e-4);
        assert_close(sprt.llr_trinomial(&[40, 0, 60]), 0.2775, 5e-5);
    }

    #[test]
    fn trinomial_without_draws_is_the_binomial_llr() {
        let (s0, s1) = (logistic_score(0.0), logistic_score(5.0));
        let (l, w) = (480.0, 520.0);
        let exact = w * (s1 / s0).ln() + l * ((1.0 - s1) / (1.0 - s0)).ln();
        assert_close(sprt_0_5().llr_trinomial(&[480, 0, 520]), exact, 1e-4);
    }

    #[test]
    fn one_sided_results_give_finite_llr() {
        let sprt = sprt_0_5();
        let won = sprt.llr_pentanomial(&[0, 0, 0, 0, 50].into());
        let lost = sprt.llr_pentanomial(&[50, 0, 0, 0, 0].into());
        assert!(won.is_finite() && won > 0.0, "{won}");
        assert!(lost.is_finite() && lost < 0.0, "{lost}");
        for counts in [[0, 0, 100], [100, 0, 0], [0, 100, 0]] {
            assert!(sprt.llr_trinomial(&counts).is_finite(), "{counts:?}");
        }
    }

    #[test]
    fn extreme_hypotheses_stay_finite() {
        let sprt = Sprt::new(-MAX_ELO, MAX_ELO, 0.01, 0.01).unwrap();
        for counts in [
            [0, 0, 0, 0, 9999],
            [9999, 0, 0, 0, 0],
            [1, 0, 0, 0, 1],
            [0, 0, 5, 0, 0],
        ] {
            assert!(
                sprt.llr_pentanomial(&counts.into()).is_finite(),
                "{counts:?}"
            );
        }
        for counts in [[0, 0, 9999], [9999, 0, 0], [0, 1, 0]] {
            assert!(sprt.llr_trinomial(&counts).is_finite(), "{counts:?}");
        }
    }

    #[test]
    fn zero_games_give_zero_llr_and_continue() {
        let sprt = sprt_0_5();
        assert_eq!(sprt.llr_pentanomial(&[0; 5].into()), 0.0);
        assert_eq!(sprt.llr_trinomial(&[0; 3]), 0.0);
        assert_eq!(sprt.decision(0.0), SprtDecision::Continue);
    }

    #[test]
    fn decisions_at_the_bounds() {
        let sprt = sprt_0_5();
        let (lower, upper) = sprt.bounds();
        assert_eq!(sprt.decision(upper), SprtDecision::AcceptH1);
        assert_eq!(sprt.decision(3.0), SprtDecision::AcceptH1);
        assert_eq!(sprt.decision(lower), SprtDecision::AcceptH0);
        assert_eq!(sprt.decision(-3.0), SprtDecision::AcceptH0);
        assert_eq!(sprt.decision(2.9), SprtDecision::Continue);
        assert_eq!(sprt.decision(f64::NAN), SprtDecision::Continue);
    }

    #[test]
    fn decisions_from_counts() {
        let sprt = sprt_0_5();
        let strong = sprt.llr_pentanomial(&[400, 0, 1000, 0, 600].into());
        assert_eq!(sprt.decision(strong), SprtDecision::AcceptH1);
        let even = sprt.llr_pentanomial(&[5000, 0, 10000, 0, 5000].into());
        assert_eq!(sprt.decision(even), SprtDecision::AcceptH0);
        let weak = sprt.llr_trinomial(&[520, 0, 480]);
        assert_eq!(sprt.decision(weak), SprtDecision::Continue);
    }

    #[test]
    fn report_line_is_fastchess_style() {
        let sprt = sprt_0_5();
        assert_eq!(
            sprt.report(2.95).to_string(),
            "LLR: 2.95 (-2.94, 2.94) [0.00, 5.00]"
        );
        assert_eq!(
            sprt.report(-0.0).to_string(),
            "LLR: 0.00 (-2.94, 2.94) [0.00, 5.00]"
        );
        assert_eq!(sprt.report(2.95).decision, SprtDecision::AcceptH1);
    }

    #[test]
    fn parses_the_cli_form_and_round_trips() {
        let sprt: Sprt = "elo0=0 elo1=5 alpha=0.05 beta=0.05".parse().unwrap();
        assert_eq!(sprt, sprt_0_5());
        assert_eq!(sprt.to_string(), "elo0=0 elo1=5 alpha=0.05 beta=0.05");
        assert_eq!(sprt.to_string().parse::<Sprt>().unwrap(), sprt);
        let defaulted: Sprt = "  elo1=2.5\telo0=-1.5 ".parse().unwrap();
        assert_eq!(defaulted, Sprt::new(-1.5, 2.5, 0.05, 0.05).unwrap());
    }

    #[test]
    fn serde_uses_the_string_form_and_validates() {
        let json = serde_json::to_string(&sprt_0_5()).unwrap();
        assert_eq!(json, r#""elo0=0 elo1=5 alpha=0.05 beta=0.05""#);
        let back: Sprt = serde_json::from_str(r#""elo1=5 elo0=0""#).unwrap();
        assert_eq!(back, sprt_0_5());
        let err = serde_json::from_str::<Sprt>(r#""elo0=zero elo1=5""#).unwrap_err();
        assert!(err.to_string().contains("`elo0=zero`"), "{err}");
        let err = serde_json::from_str::<Sprt>(r#""elo0=5 elo1=0""#).unwrap_err();
        assert!(err.to_string().contains("elo1=0 must be greater"), "{err}");
    }

    /// Reference values from fishtest's `LLRcalc.LLR_normalized` (scipy's `brentq` at
    /// `xtol=rtol=1e-15`, the t-value iteration run to convergence), and `LLR_logistic`.
    #[test]
    fn normalized_llr_matches_fishtest() {
        let normalized = |elo0: f64, elo1: f64| {
            Sprt::new(elo0, elo1, 0.05, 0.05)
                .unwrap()
                .with_model(SprtModel::Normalized)
                .unwrap()
        };
        let pairs: [(f64, f64, [u64; 5], f64); 7] = [
            (0.0, 5.0, [120, 0, 260, 0, 140], 0.468_022_618_259_991_4),
            (0.0, 5.0, [100, 0, 250, 0, 150], 1.336_044_066_205_544_6),
            (-5.0, 0.0, [150, 0, 250, 0, 100], -1.336_044_066_205_600_6),
            (0.0, 2.0, [30, 0, 140, 0, 30], -0.006_627_475_504_937_375),
            (0.0, 2.0, [0, 0, 0, 0, 50], 0.405_386_065_322_007_55),
            (0.0, 2.0, [50, 0, 0, 0, 0], -0.408_699_848_947_358_5),
            (
                -1.75,
                0.25,
                [5000, 0, 10000, 0, 5100],
                1.647_960_643_290_521_8,
            ),
        ];
        for (elo0, elo1, counts, want) in pairs {
            let llr = normalized(elo0, elo1).llr_pentanomial(&counts.into());
            assert_close(llr, want, 1e-9);
        }
        assert_close(
            normalized(0.0, 5.0).llr_trinomial(&[480, 0, 520]),
            0.472_084_613_719_692_35,
            1e-9,
        );
        assert_close(
            normalized(0.0, 5.0).llr_trinomial(&[40, 0, 60]),
            0.277_460_341_618_311_9,
            1e-9,
        );
        // The same counts under the logistic model, from LLR_logistic.
        assert_close(
            sprt_0_5().llr_pentanomial(&[100, 0, 250, 0, 150].into()),
            1.337_361_990_715_862_7,
            1e-9,
        );
        assert_eq!(normalized(0.0, 5.0).llr_pentanomial(&[0; 5].into()), 0.0);
    }

    #[test]
    fn normalized_bounds_up_to_the_limit_hold_their_t_value_on_extreme_results() {
        let extremes: [[u64; 5]; 9] = [
            [0, 0, 0, 0, 9999],
            [9999, 0, 0, 0, 0],
            [1, 0, 0, 0, 1],
            [0, 0, 5, 0, 0],
            [0, 0, 9999, 0, 1],
            [1, 0, 9999, 0, 0],
            [3, 0, 1, 0, 9999],
            [0, 0, 0, 0, 1],
            [1, 0, 0, 0, 0],
        ];
        for nelo in [-MAX_NELO, -10.0, 0.0, 2.0, MAX_NELO] {
            let t = std::f64::consts::SQRT_2 * nelo / NELO_PER_T;
            for counts in extremes {
                let sample = Empirical::from_counts(&counts);
                let p = mle_t_value(&sample, t);
                let mu: f64 = sample.pdf().iter().zip(&p).map(|(&(a, _), q)| a * q).sum();
                let var: f64 = (sample.pdf().iter().zip(&p))
                    .map(|(&(a, _), q)| q * (a - mu).powi(2))
                    .sum();
                assert_close((mu - 0.5) / var.sqrt(), t, 1e-8);
                assert_close(p.iter().sum(), 1.0, 1e-8);
            }
        }
        let limit = Sprt::new(-MAX_NELO, MAX_NELO, 0.05, 0.05).unwrap();
        let limit = limit.with_model(SprtModel::Normalized).unwrap();
        for counts in extremes {
            assert!(
                limit.llr_pentanomial(&counts.into()).is_finite(),
                "{counts:?}"
            );
        }
        let err = Sprt::new(0.0, 250.0, 0.05, 0.05)
            .unwrap()
            .with_model(SprtModel::Normalized)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid SPRT parameters: elo1=250 must be within +/-200 nElo with model=normalized"
        );
        // Logistic bounds keep their own limit.
        assert!(Sprt::new(0.0, 250.0, 0.05, 0.05).is_ok());
    }

    #[test]
    fn the_model_key_parses_prints_and_round_trips() {
        let normalized: Sprt = "elo0=0 elo1=2 model=normalized".parse().unwrap();
        assert_eq!(normalized.model(), SprtModel::Normalized);
        assert_eq!(
            normalized.to_string(),
            "elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized"
        );
        assert_eq!(normalized.to_string().parse::<Sprt>().unwrap(), normalized);
        let logistic: Sprt = "model=logistic elo0=0 elo1=5".parse().unwrap();
        assert_eq!(logistic, sprt_0_5());
        assert_eq!(logistic.model(), SprtModel::default());
        assert_eq!(logistic.to_string(), "elo0=0 elo1=5 alpha=0.05 beta=0.05");
        assert_eq!(
            normalized.report(2.95).to_string(),
            "LLR: 2.95 (-2.94, 2.94) [0.00, 2.00] nElo"
        );
        let json = serde_json::to_value(normalized.report(1.0)).unwrap();
        assert_eq!(json["elo_model"], "normalized");
        let json = serde_json::to_value(sprt_0_5().report(1.0)).unwrap();
        assert!(json.get("elo_model").is_none(), "{json}");
        assert_eq!(
            serde_json::to_string(&normalized).unwrap(),
            r#""elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized""#
        );
        let err = |spec: &str| spec.parse::<Sprt>().unwrap_err();
        assert_eq!(
            err("elo0=0 elo1=5 model=bayesian"),
            SprtSpecError::BadModel("model=bayesian".into())
        );
        assert!(
            err("elo0=0 elo1=5 model=bayesian")
                .to_string()
                .contains("model=logistic or model=normalized")
        );
        assert_eq!(
            err("elo0=0 elo1=5 model=normalized model=logistic"),
            SprtSpecError::DuplicateKey("model=logistic".into())
        );
        assert_eq!(
            err("elo0=0 elo1=300 model=normalized"),
            SprtSpecError::BoundTooFar {
                key: "elo1",
                elo: 300.0,
                max: MAX_NELO,
                normalized: true
            }
        );
        assert!(
            err("elo0=0 elo1=300 model=normalized")
                .to_string()
                .contains("elo1=300 must be within")
        );
    }

    #[test]
    fn parse_errors_name_the_bad_token() {
        let err = |spec: &str| spec.parse::<Sprt>().unwrap_err();
        assert_eq!(
            err("elo0=0 elo1"),
            SprtSpecError::NotKeyValue("elo1".into())
        );
        assert_eq!(
            err("elo0=0 elo1=5 gamma=1"),
            SprtSpecError::UnknownKey("gamma=1".into())
        );
        assert_eq!(
            err("elo0=0 elo1=5 elo1=6"),
            SprtSpecError::DuplicateKey("elo1=6".into())
        );
        assert_eq!(
            err("elo0=zero elo1=5"),
            SprtSpecError::BadNumber("elo0=zero".into())
        );
        assert_eq!(
            err("elo0=0 elo1=inf"),
            SprtSpecError::BadNumber("elo1=inf".into())
        );
        assert_eq!(err("elo1=5"), SprtSpecError::MissingKey("elo0"));
        assert_eq!(err(""), SprtSpecError::MissingKey("elo0"));
        assert_eq!(
            err("elo0=5 elo1=0"),
            SprtSpecError::BoundsOutOfOrder {
                elo0: 5.0,
                elo1: 0.0
            }
        );
        assert_eq!(
            err("elo0=0 elo1=5 alpha=1.5"),
            SprtSpecError::NotAProbability {
                key: "alpha",
                rate: 1.5
            }
        );
        assert_eq!(
            err("elo0=0 elo1=5 alpha=0.6 beta=0.5"),
            SprtSpecError::RatesTooLarge {
                alpha: 0.6,
                beta: 0.5
            }
        );
        assert_eq!(
            err("elo0=-2000 elo1=5"),
            SprtSpecError::BoundTooFar {
                key: "elo0",
                elo: -2000.0,
                max: MAX_ELO,
                normalized: false
            }
        );
        assert_eq!(
            err("elo0=5 elo1=0").to_string(),
            "invalid SPRT parameters: elo1=0 must be greater than elo0=5"
        );
        assert!(err("elo0=0 elo1").to_string().contains("`elo1`"));
    }

    #[test]
    fn a_spec_is_one_comma_separated_token_or_words() {
        let words: Sprt = "elo0=0 elo1=5 alpha=0.1".parse().unwrap();
        let token: Sprt = "elo0=0,elo1=5,alpha=0.1".parse().unwrap();
        let mixed: Sprt = " elo0=0, elo1=5 ,alpha=0.1".parse().unwrap();
        assert_eq!(words, token);
        assert_eq!(words, mixed);
        assert_eq!(token.to_string(), "elo0=0 elo1=5 alpha=0.1 beta=0.05");
        assert!("elo0=0,,elo1".parse::<Sprt>().is_err());
    }
}
