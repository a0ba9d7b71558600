//! Brownian motion with drift between two absorbing barriers: the continuous approximation of
//! an SPRT's log-likelihood ratio (M. Van den Bergh, "A Brownian motion approximation of the
//! GSPRT", <https://www.cantate.be/Fishtest/GSPRT_approximation.pdf>; fishtest
//! `stats/brownian.py` and the calculator `static/js/sprt.js`).
//!
//! The LLR after `t` samples is approximated by `W(t) = mu t + sigma B(t)`, `B` a standard
//! Brownian motion, started at 0 and stopped when it leaves `(a, b)`, `a < 0 < b`.
//!
//! * [`Brownian::outcome_cdf`]: the probability of an outcome worse for the tested engine
//!   than the one observed (a test that stopped at `b` at time `T`: an exit at `a`, or at `b`
//!   after `T`; one that stopped at `a` at time `T`: an exit at `a` before `T`). Summed as the
//!   eigenfunction series of the heat equation on `(a, b)` or, where that converges slowly,
//!   by Siegmund's approximation (D. Siegmund, *Sequential Analysis*, 1985, chapter 3), as
//!   fishtest does.
//! * [`wald`]: the probability of leaving at `b` and the expected exit time, in units of the
//!   drift (Wald's "universal functions" of the calculator).

use std::f64::consts::PI;

use super::phi;

/// The series of [`Brownian::outcome_cdf`] stops when a term falls to this size
/// (fishtest's `1e-9`).
const SERIES_TOLERANCE: f64 = 1e-9;

/// A Brownian motion with drift `mu` and variance `sigma2` per unit of time, between the
/// absorbing barriers `a < 0 < b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Brownian {
    /// The lower barrier, `< 0`.
    pub a: f64,
    /// The upper barrier, `> 0`.
    pub b: f64,
    /// Drift per unit of time.
    pub mu: f64,
    /// Variance per unit of time, `> 0`.
    pub sigma2: f64,
}

impl Brownian {
    /// The probability of an outcome worse than the one observed, a motion at level `y` at
    /// time `t` (`y` a barrier when it stopped there; see the module documentation). fishtest `Brownian.outcome_cdf`: the series when it converges fast,
    /// else (`sigma2 t / (b - a)^2 < 0.01` or `|mu (b - a) / sigma2| > 15`) Siegmund's
    /// approximation. A probability up to rounding (fishtest asserts `[-1e-3, 1 + 1e-3]`);
    /// not clamped, so that a root search sees the function fishtest sees.
    pub fn outcome_cdf(&self, t: f64, y: f64) -> f64 {
        let gamma = self.mu / self.sigma2;
        let width = self.b - self.a;
        if self.sigma2 * t / (width * width) < 1e-2 || (gamma * width).abs() > 15.0 {
            self.siegmund(t, y)
        } else {
            self.series(t, y)
        }
    }

    /// The eigenfunction series (fishtest `outcome_cdf_alt1`): with `A = b - a`, the start
    /// `x = -a` and `y` shifted by `-a`, `gamma = mu / sigma2` and
    /// `lambda_n = (n pi / A)^2 sigma2 / 2 + gamma^2 sigma2 / 2`,
    ///
    /// ```text
    /// P = pre + exp(-lambda_1 t + gamma (y - x)) sum_n exp(-(lambda_n - lambda_1) t) U_n(y) sin(n pi x / A)
    /// U_n(y) = (2 A gamma sin(n pi y / A) - 2 n pi cos(n pi y / A)) / (A^2 gamma^2 + n^2 pi^2)
    /// pre = (1 - exp(2 gamma (A - x))) / (1 - exp(2 gamma A))   (the probability of exiting at a)
    /// ```
    ///
    /// summed until a term's size falls to `1e-9`.
    fn series(&self, t: f64, y: f64) -> f64 {
        let (mu, sigma2) = (self.mu, self.sigma2);
        let width = self.b - self.a;
        let x = -self.a;
        let y = y - self.a;
        let gamma = mu / sigma2;
        let lambda = |n: f64| (n * PI / width).powi(2) * sigma2 / 2.0 + (mu * mu / sigma2) / 2.0;
        let lambda_1 = lambda(1.0);
        let t0 = (-lambda_1 * t - x * gamma + y * gamma).exp();
        let mut sum = 0.0;
        let mut n = 1.0;
        loop {
            let t1 = (-(lambda(n) - lambda_1) * t).exp();
            let t3 = primitive(n, gamma, width, y);
            let t4 = (n * PI * x / width).sin();
            sum += t1 * t3 * t4;
            if (t0 * t1 * t3).abs() <= SERIES_TOLERANCE {
                break;
            }
            n += 1.0;
        }
        let pre = if gamma * width > 30.0 {
            // exp(2 gamma A) overflows: the ratio's limit.
            (-2.0 * gamma * x).exp()
        } else if (gamma * width).abs() < 1e-8 {
            (width - x) / width
        } else {
            (1.0 - (2.0 * gamma * (width - x)).exp()) / (1.0 - (2.0 * gamma * width).exp())
        };
        pre + t0 * sum
    }

    /// Siegmund's approximation (fishtest `outcome_cdf_alt2`), with `z = (y - mu t) /
    /// sqrt(sigma2 t)`, `za = (-y + mu t + 2a) / sqrt(sigma2 t)`, `zb = (y - mu t - 2b) /
    /// sqrt(sigma2 t)`:
    ///
    /// ```text
    /// P = Phi(z) + exp(2 gamma a) Phi(za) - exp(2 gamma b) Phi(zb)
    /// ```
    ///
    /// each `exp(2 gamma c) Phi(zc)` taken from the asymptotic expansion of `Phi`,
    /// `-exp(-zc^2 / 2 + 2 gamma c) / sqrt(2 pi) (1 / zc - 1 / zc^3)`, once `gamma c >= 5`.
    fn siegmund(&self, t: f64, y: f64) -> f64 {
        let denom = (t * self.sigma2).sqrt();
        let offset = self.mu * t;
        let gamma = self.mu / self.sigma2;
        let (a, b) = (self.a, self.b);
        let z = (y - offset) / denom;
        let za = (-y + offset + 2.0 * a) / denom;
        let zb = (y - offset - 2.0 * b) / denom;
        let image = |barrier: f64, z: f64| {
            if gamma * barrier >= 5.0 {
                -(-(z * z) / 2.0 + 2.0 * gamma * barrier).exp() / (2.0 * PI).sqrt()
                    * (1.0 / z - 1.0 / z.powi(3))
            } else {
                (2.0 * gamma * barrier).exp() * phi(z)
            }
        };
        phi(z) + image(a, za) - image(b, zb)
    }
}

/// `U_n(y)` of [`Brownian::series`]: a primitive of `exp(gamma y) sin(n pi y / A)`, times
/// `2 / A exp(-gamma y)` (fishtest `U`).
fn primitive(n: f64, gamma: f64, width: f64, y: f64) -> f64 {
    (2.0 * width * gamma * (PI * n * y / width).sin() - 2.0 * PI * n * (PI * n * y / width).cos())
        / (width * width * gamma * gamma + PI * PI * n * n)
}

/// Wald's universal functions of a Brownian motion with drift `mu` and variance `sigma2`
/// between the barriers `a < 0 < b`, written with `h = 2 mu / sigma2` (fishtest's calculator,
/// `sprt.js` `PT`): the probability of leaving at `b`,
///
/// ```text
/// P = (1 - exp(-h a)) / (exp(-h b) - exp(-h a))          (-a / (b - a) when h (a - b) ~ 0)
/// ```
///
/// and `T = (2 / h) (b P + a (1 - P))` (`-a b` when `h (a - b)` ~ 0), the expected exit time
/// in units of `sigma2` (the time is `T / sigma2`). Returns `(P, T)`.
pub fn wald(a: f64, b: f64, h: f64) -> (f64, f64) {
    if (h * (a - b)).abs() < 1e-6 {
        (-a / (b - a), -a * b)
    } else {
        let exp_a = (-h * a).exp();
        let exp_b = (-h * b).exp();
        let p = (1.0 - exp_a) / (exp_b - exp_a);
        (p, (2.0 / h) * (b * p + a * (1.0 - p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::assert_close;

    /// Without drift the motion leaves at either barrier in proportion to its distance:
    /// `P(b) = -a / (b - a)`, and the expected exit time is `-a b / sigma2`.
    #[test]
    fn wald_without_drift_is_the_gamblers_ruin() {
        let (p, t) = wald(-2.0, 3.0, 0.0);
        assert_close(p, 0.4, 1e-12);
        assert_close(t, 6.0, 1e-12);
        // Nearly no drift: the formula's limit, continuously.
        let (p, t) = wald(-2.0, 3.0, 1e-5);
        assert_close(p, 0.4, 1e-5);
        assert_close(t, 6.0, 1e-4);
    }

    /// A large positive drift leaves at `b` nearly surely, after about `b / mu`.
    #[test]
    fn wald_with_a_strong_drift() {
        let (a, b) = (-2.944_438_979_166_440_3, 2.944_438_979_166_440_3);
        let (p, t) = wald(a, b, 10.0);
        assert_close(p, 1.0, 1e-12);
        // T / sigma2 with h = 2 mu / sigma2: the time b / mu = 2 b / (h sigma2).
        assert_close(t, 2.0 * b / 10.0, 1e-9);
        // The drift down mirrors it.
        let (p, _) = wald(a, b, -10.0);
        assert_close(p, 0.0, 1e-12);
    }

    /// The series and Siegmund's approximation agree where both apply; a later H1 leaves
    /// fewer outcomes worse than it, a later H0 more.
    #[test]
    fn the_series_and_siegmunds_approximation_agree() {
        let motion = Brownian {
            a: -2.944_438_979_166_440_3,
            b: 2.944_438_979_166_440_3,
            mu: 0.002,
            sigma2: 0.004,
        };
        for (t, y) in [
            (800.0, 2.944),
            (1500.0, 2.944),
            (3000.0, -2.944),
            (2000.0, 1.0),
        ] {
            let series = motion.series(t, y);
            let siegmund = motion.siegmund(t, y);
            assert_close(series, siegmund, 2e-3);
            assert!((0.0..=1.0).contains(&series), "{series}");
        }
        assert!(motion.outcome_cdf(800.0, motion.b) > motion.outcome_cdf(1600.0, motion.b));
        assert!(motion.outcome_cdf(800.0, motion.a) < motion.outcome_cdf(1600.0, motion.a));
        // An H1 is better than an H0 at the same time: every H0 before it is worse.
        assert!(motion.outcome_cdf(800.0, motion.b) > motion.outcome_cdf(800.0, motion.a));
    }
}
