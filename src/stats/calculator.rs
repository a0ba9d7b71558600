//! What an SPRT costs before it starts: for a true Elo difference, the probability that the
//! test passes (accepts H1) and the games it takes, as fishtest's SPRT calculator
//! (`static/js/sprt.js`, after M. Van den Bergh, "The SPRT: a short introduction",
//! <http://hardy.uhasselt.be/Fishtest/sprta.pdf>) computes them, for a game without draws.
//!
//! The LLR is approximated by a Brownian motion ([`super::brownian`]): per game, drift
//! `(s - (s0 + s1) / 2) (s1 - s0) / v` and variance `(s1 - s0)^2 / v`, where `s = L(elo)` is
//! the true score, `s0`, `s1` the hypotheses' scores and `v` the per-game variance of the
//! score measured over game pairs. Wald's universal functions ([`super::brownian::wald`])
//! give the probability of leaving at the upper bound and the expected time:
//!
//! ```text
//! h = (2 s - (s0 + s1)) / (s1 - s0),  (P, T) = wald(a, b, h),  games = T / ((s1 - s0)^2 / v)
//! ```
//!
//! **The book.** fishtest's `v` is `(1 - draw ratio) / 4 - rms^2`, `rms` the book's RMS bias
//! in score units. Without draws `v = 1/4 - rms^2`, and between engines of even strength a
//! book of RMS bias `rms` gives a share `q = 1/2 + 2 rms^2` of 1–1 game pairs (each side won
//! its game with the same colour): an unbiased book makes half its pairs 1–1 by chance, a book
//! whose every pair is 1–1 has `rms = 1/2` and `v = 0` (no information). So a book is given by
//! its share of 1–1 pairs (a share under 1/2 reads as no bias, as fishtest takes a negative
//! `rms^2` as 0) or by its RMS bias measured from games ([`crate::report::openings`]).
//!
//! **Normalized bounds.** fishtest converts them to scores with the book's standard
//! deviation, `s_i = nelo_i / (800 / ln 10) sqrt(v) + 1/2`; the table's true Elo is logistic
//! Elo in both models.

use serde::Serialize;

use super::brownian::wald;
use super::pentanomial::Pentanomial;
use super::sample::Empirical;
use super::sprt::{NELO_PER_T, Sprt, SprtModel};
use super::{elo_from_score, logistic_score};

/// A book's pair profile: what the calculator needs of it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BookProfile {
    /// The RMS bias of the book's openings, in score units (fishtest's sense), in `[0, 1/2)`.
    pub rms_bias: f64,
}

impl BookProfile {
    /// The profile of a book whose game pairs between engines of even strength are 1–1 with
    /// share `share`: `rms^2 = max(0, (share - 1/2) / 2)`.
    ///
    /// # Errors
    /// [`CalculatorError::Share`] unless `share` is in `[0, 1)`: a book whose every pair is
    /// 1–1 tells the engines apart in no pair.
    pub fn of_one_one_share(share: f64) -> Result<BookProfile, CalculatorError> {
        if !(0.0..1.0).contains(&share) {
            return Err(CalculatorError::Share(share));
        }
        Ok(BookProfile {
            rms_bias: ((share - 0.5) / 2.0).max(0.0).sqrt(),
        })
    }

    /// The profile of a book of RMS bias `rms_bias` (score units).
    ///
    /// # Errors
    /// [`CalculatorError::Bias`] unless `rms_bias` is in `[0, 1/2)`.
    pub fn of_rms_bias(rms_bias: f64) -> Result<BookProfile, CalculatorError> {
        if !(0.0..0.5).contains(&rms_bias) {
            return Err(CalculatorError::Bias(rms_bias));
        }
        Ok(BookProfile { rms_bias })
    }

    /// The share of 1–1 pairs between engines of even strength, `1/2 + 2 rms^2`.
    pub fn one_one_share(&self) -> f64 {
        0.5 + 2.0 * self.rms_bias * self.rms_bias
    }

    /// The RMS bias as Elo, `elo(1/2 + rms)` (fishtest's stats page).
    pub fn rms_bias_elo(&self) -> f64 {
        elo_from_score(0.5 + self.rms_bias)
    }

    /// The per-game variance of the score measured over game pairs, at an even score:
    /// `1/4 - rms^2`, `> 0`.
    pub fn variance(&self) -> f64 {
        0.25 - self.rms_bias * self.rms_bias
    }
}

/// fishtest's squared RMS bias of a book, from the game pairs played from it (its stats page:
/// the per-game variance of single games less the per-game variance measured over pairs,
/// `var3 - 2 var5`, both of counts regularized as for the LLR), in squared score units. It
/// estimates the mean of `b^2` over the openings, `b` an opening's advantage for the colour it
/// favours; without draws it is `q / 2 - s (1 - s)`, `q` the share of 1–1 pairs and `s` the
/// score, up to the regularization. Negative when the pairs vary more than single games would
/// (chance, in a small sample); `None` without pairs. The games are those of the pairs: `[LL,
/// LD, WL, WD, WW]` make `2 LL + LD + WL` losses, `LD + WD` draws and `2 WW + WD + WL` wins.
pub fn rms_bias_squared(pairs: &Pentanomial) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let [ll, ld, wl, wd, ww] = pairs.as_array();
    let games = Empirical::from_counts(&[2 * ll + ld + wl, ld + wd, 2 * ww + wd + wl]);
    let pairs = Empirical::from_counts(&[ll, ld, wl, wd, ww]);
    Some(games.variance() - 2.0 * pairs.variance())
}

/// Why the calculator cannot take its input.
#[derive(Debug, Clone, PartialEq)]
pub enum CalculatorError {
    /// A share of 1–1 pairs outside `[0, 1)`.
    Share(f64),
    /// An RMS bias outside `[0, 1/2)`.
    Bias(f64),
    /// A true Elo beyond [`MAX_TRUE_ELO`].
    Elo(f64),
    /// Normalized bounds that put a hypothesis' score outside `(0, 1)` with this book.
    Bounds(String),
}

impl std::fmt::Display for CalculatorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CalculatorError::Share(share) => write!(
                f,
                "a share of 1-1 game pairs of {share} is not in [0, 1): a book whose every pair \
                 is 1-1 tells the engines apart in none, and no SPRT ends"
            ),
            CalculatorError::Bias(rms) => write!(
                f,
                "an RMS bias of {rms} (score) is not in [0, 0.5): a bias of 0.5 decides every \
                 game by colour"
            ),
            CalculatorError::Elo(elo) => {
                write!(f, "a true Elo of {elo} is beyond ±{MAX_TRUE_ELO}")
            }
            CalculatorError::Bounds(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for CalculatorError {}

/// Largest `|true Elo|` the calculator takes: a score within 0.3% of 0 or 1.
pub const MAX_TRUE_ELO: f64 = 1000.0;

/// An SPRT with a book: fishtest's calculator (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calculator {
    sprt: Sprt,
    book: BookProfile,
    /// The hypotheses' scores per game.
    s0: f64,
    s1: f64,
}

/// One row of the calculator's table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cost {
    /// The true Elo difference (logistic), of the tested engine.
    pub elo: f64,
    /// The probability that the SPRT accepts H1.
    pub pass_probability: f64,
    /// The expected games to the verdict.
    pub games: f64,
}

impl Calculator {
    /// The calculator of `sprt` with `book`.
    ///
    /// # Errors
    /// [`CalculatorError::Bounds`] for normalized bounds whose scores with this book fall
    /// outside `(0, 1)`.
    pub fn new(sprt: Sprt, book: BookProfile) -> Result<Calculator, CalculatorError> {
        let (s0, s1) = match sprt.model() {
            SprtModel::Logistic => (logistic_score(sprt.elo0()), logistic_score(sprt.elo1())),
            SprtModel::Normalized => {
                let sigma = book.variance().sqrt();
                let score = |nelo: f64| nelo / NELO_PER_T * sigma + 0.5;
                (score(sprt.elo0()), score(sprt.elo1()))
            }
        };
        for (key, score) in [("elo0", s0), ("elo1", s1)] {
            if !(score > 0.0 && score < 1.0) {
                return Err(CalculatorError::Bounds(format!(
                    "{key} of {sprt} is a score of {score:.4} with this book's standard \
                     deviation: not a score"
                )));
            }
        }
        Ok(Calculator { sprt, book, s0, s1 })
    }

    /// The SPRT.
    pub fn sprt(&self) -> &Sprt {
        &self.sprt
    }

    /// The book.
    pub fn book(&self) -> &BookProfile {
        &self.book
    }

    /// The hypotheses as logistic Elo: the bounds themselves with logistic bounds, the
    /// normalized ones converted with the book's standard deviation.
    pub fn logistic_bounds(&self) -> (f64, f64) {
        match self.sprt.model() {
            SprtModel::Logistic => (self.sprt.elo0(), self.sprt.elo1()),
            SprtModel::Normalized => (elo_from_score(self.s0), elo_from_score(self.s1)),
        }
    }

    /// The hypotheses' scores per game, `(s0, s1)`.
    pub fn scores(&self) -> (f64, f64) {
        (self.s0, self.s1)
    }

    /// The probability of passing and the expected games at true (logistic) Elo `elo`
    /// (fishtest `Sprt.characteristics`).
    ///
    /// # Errors
    /// [`CalculatorError::Elo`] beyond [`MAX_TRUE_ELO`].
    pub fn cost(&self, elo: f64) -> Result<Cost, CalculatorError> {
        if elo.is_nan() || elo.abs() > MAX_TRUE_ELO {
            return Err(CalculatorError::Elo(elo));
        }
        let (s0, s1) = (self.s0, self.s1);
        let (a, b) = self.sprt.bounds();
        let h = (2.0 * logistic_score(elo) - (s0 + s1)) / (s1 - s0);
        let (pass_probability, time) = wald(a, b, h);
        let per_game = (s1 - s0) * (s1 - s0) / self.book.variance();
        Ok(Cost {
            elo,
            pass_probability,
            games: time / per_game,
        })
    }

    /// The default true Elos of a table: around the hypotheses (logistic, see
    /// [`logistic_bounds`](Self::logistic_bounds)) `e0 < e1`, `d = e1 - e0`: `e0 - d`,
    /// `e0 - d/2`, `e0`, the middle, `e1`, `e1 + d/2`, `e1 + d`, each rounded to 0.01 Elo.
    pub fn default_elos(&self) -> Vec<f64> {
        let (e0, e1) = self.logistic_bounds();
        let d = e1 - e0;
        [
            e0 - d,
            e0 - d / 2.0,
            e0,
            (e0 + e1) / 2.0,
            e1,
            e1 + d / 2.0,
            e1 + d,
        ]
        .iter()
        .map(|elo| (elo * 100.0).round() / 100.0 + 0.0)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::assert_close;

    fn sprt(spec: &str) -> Sprt {
        spec.parse().unwrap()
    }

    /// Reference values: fishtest's calculator, `static/js/sprt.js` of fishtest at commit
    /// b8eecff220b562a0dc2c4e68d1fa02521e06d72c, run with Node.js: `new Sprt(0.05, 0.05,
    /// elo0, elo1, 0, rms_bias_elo, model).characteristics(elo)` with a draw ratio of 0 and
    /// `rms_bias_elo = elo(1/2 + rms)` (rows: spec, rms in score units, true Elo, P(pass),
    /// expected games).
    #[test]
    fn the_analytic_figures_equal_fishtests_calculator() {
        let rows: [(&str, f64, f64, f64, f64); 22] = [
            (
                "elo0=0 elo1=5",
                0.0,
                0.0,
                0.05000000000000001,
                25594.320950513968,
            ),
            (
                "elo0=0 elo1=5",
                0.0,
                2.5,
                0.500038111759361,
                41867.175742376836,
            ),
            (
                "elo0=0 elo1=5",
                0.0,
                5.0,
                0.9500000000000001,
                25594.320950513975,
            ),
            (
                "elo0=0 elo1=5",
                0.0,
                -2.5,
                0.002762011009973599,
                14140.154704287763,
            ),
            (
                "elo0=0 elo1=5",
                0.0,
                7.5,
                0.9972354688073983,
                14142.279307696763,
            ),
            (
                "elo0=0 elo1=5",
                0.31622776601683794,
                0.0,
                0.05000000000000001,
                15356.592570308367,
            ),
            (
                "elo0=0 elo1=5",
                0.31622776601683794,
                2.5,
                0.500038111759361,
                25120.305445426082,
            ),
            (
                "elo0=0 elo1=5",
                0.31622776601683794,
                5.0,
                0.9500000000000001,
                15356.592570308372,
            ),
            (
                "elo0=0 elo1=10",
                0.0,
                -5.0,
                0.002760751777955482,
                3536.2372470249093,
            ),
            (
                "elo0=0 elo1=10",
                0.0,
                0.0,
                0.0500000000000011,
                6401.230507085922,
            ),
            (
                "elo0=0 elo1=10",
                0.0,
                5.0,
                0.5001524312480649,
                10471.12891097351,
            ),
            (
                "elo0=0 elo1=10",
                0.0,
                10.0,
                0.9500000000000011,
                6401.230507085854,
            ),
            (
                "elo0=0 elo1=10",
                0.0,
                15.0,
                0.9972291635435019,
                3538.362225095847,
            ),
            (
                "elo0=0 elo1=5 model=normalized",
                0.0,
                0.0,
                0.05000000000000001,
                25590.787550564244,
            ),
            (
                "elo0=0 elo1=5 model=normalized",
                0.0,
                2.49,
                0.49704304323704185,
                41860.907731999025,
            ),
            (
                "elo0=0 elo1=5 model=normalized",
                0.0,
                5.0,
                0.9499806874424731,
                25593.22264627134,
            ),
            (
                "elo0=0 elo1=5 model=normalized",
                0.3,
                0.0,
                0.05000000000000001,
                25590.787550564244,
            ),
            (
                "elo0=0 elo1=5 model=normalized",
                0.3,
                1.0,
                0.18660487980480112,
                35644.470195048285,
            ),
            (
                "elo0=0 elo1=5 model=normalized",
                0.3,
                2.0,
                0.49999186931870737,
                41861.394554447004,
            ),
            (
                "elo0=-3 elo1=1",
                0.2,
                -3.0,
                0.04999999999999868,
                33589.20715785933,
            ),
            (
                "elo0=-3 elo1=1",
                0.2,
                -1.0,
                0.49998780398444725,
                54945.20585846463,
            ),
            (
                "elo0=-3 elo1=1",
                0.2,
                1.0,
                0.9499999999999986,
                33589.207157859775,
            ),
        ];
        for (spec, rms, elo, pass, games) in rows {
            let book = BookProfile::of_rms_bias(rms).unwrap();
            let cost = Calculator::new(sprt(spec), book)
                .unwrap()
                .cost(elo)
                .unwrap();
            let context = format!("{spec} rms {rms} at {elo}: {cost:?}");
            assert!((cost.pass_probability - pass).abs() < 1e-9, "{context}");
            assert!((cost.games - games).abs() < 1e-6 * games, "{context}");
        }
        // At the hypotheses, alpha and 1 - beta pass; in the middle of the scores, half.
        let calculator = Calculator::new(
            sprt("elo0=0 elo1=5"),
            BookProfile::of_rms_bias(0.0).unwrap(),
        )
        .unwrap();
        assert_close(calculator.cost(0.0).unwrap().pass_probability, 0.05, 1e-12);
        assert_close(calculator.cost(5.0).unwrap().pass_probability, 0.95, 1e-12);
    }

    /// A biased book costs fewer games per unit of Elo measured on it (its pairs vary less),
    /// in proportion to the variance; a share under 1/2 is no bias.
    #[test]
    fn the_book_scales_the_games() {
        let even = BookProfile::of_one_one_share(0.5).unwrap();
        let biased = BookProfile::of_one_one_share(0.7).unwrap();
        assert_close(biased.rms_bias, 0.1_f64.sqrt(), 1e-15);
        assert_close(biased.variance(), 0.15, 1e-15);
        assert_close(biased.one_one_share(), 0.7, 1e-15);
        assert_eq!(BookProfile::of_one_one_share(0.3).unwrap(), even);
        let spec = sprt("elo0=0 elo1=5");
        let games = |book| {
            Calculator::new(spec, book)
                .unwrap()
                .cost(2.5)
                .unwrap()
                .games
        };
        assert_close(games(biased) / games(even), 0.6, 1e-12);
        // fishtest's RMS bias in Elo of such a book.
        assert_close(
            biased.rms_bias_elo(),
            elo_from_score(0.5 + 0.1_f64.sqrt()),
            1e-9,
        );
    }

    /// Normalized bounds are scores through the book's standard deviation: the same nElo
    /// bounds are fewer Elo on a biased book.
    #[test]
    fn normalized_bounds_follow_the_book() {
        let spec = sprt("elo0=0 elo1=5 model=normalized");
        let even = Calculator::new(spec, BookProfile::of_rms_bias(0.0).unwrap()).unwrap();
        let (e0, e1) = even.logistic_bounds();
        assert_eq!(e0, 0.0);
        // sigma 1/2: nElo 5 is a score of 1/2 + 5 / (800 / ln 10) / 2.
        assert_close(e1, elo_from_score(0.5 + 5.0 / NELO_PER_T / 2.0), 1e-12);
        // A game's standard deviation of 1/2: nElo and Elo nearly agree.
        assert_close(e1, 5.000_345_218_557_223, 1e-9);
        let biased = Calculator::new(spec, BookProfile::of_rms_bias(0.3).unwrap()).unwrap();
        assert_close(biased.logistic_bounds().1, 4.000_176_743_993_376, 1e-9);
        assert_eq!(even.default_elos(), [-5.0, -2.5, 0.0, 2.5, 5.0, 7.5, 10.0]);
        assert_eq!(biased.default_elos(), [-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0]);
    }

    /// Without draws the RMS bias is `q / 2 - s (1 - s)` (to the regularization): half the
    /// pairs 1–1 at an even score is no bias, all of them the largest.
    #[test]
    fn the_rms_bias_of_pairs_without_draws() {
        let rms2 = |cells: [u64; 5]| rms_bias_squared(&cells.into()).unwrap();
        assert_close(rms2([250, 0, 500, 0, 250]), 0.0, 1e-5);
        assert_close(rms2([150, 0, 700, 0, 150]), 0.35 - 0.25, 1e-5);
        assert_close(rms2([0, 0, 1000, 0, 0]), 0.25, 1e-5);
        // A score of 0.6, 1-1 pairs 0.6: 0.3 - 0.24.
        assert_close(rms2([100, 0, 600, 0, 300]), 0.06, 1e-5);
        assert_eq!(rms_bias_squared(&Pentanomial::default()), None);
        // fishtest's figure for these pairs and their games [500, 0, 540]: its stats page's
        // `var3 - var5_per_game` (`LLRcalc.stats` of the regularized counts, fishtest at
        // commit b8eecff2, run with Python).
        assert_close(
            rms2([120, 0, 260, 0, 140]),
            0.000_370_057_889_856_667_5,
            1e-15,
        );
    }

    #[test]
    fn bad_inputs_are_refused_naming_the_value() {
        let err = BookProfile::of_one_one_share(1.0).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("a share of 1-1 game pairs of 1 is not in [0, 1)")
        );
        assert!(BookProfile::of_one_one_share(-0.1).is_err());
        assert!(BookProfile::of_one_one_share(f64::NAN).is_err());
        assert!(BookProfile::of_rms_bias(0.5).is_err());
        let calculator = Calculator::new(
            sprt("elo0=0 elo1=5"),
            BookProfile::of_rms_bias(0.0).unwrap(),
        )
        .unwrap();
        assert_eq!(
            calculator.cost(1500.0).unwrap_err().to_string(),
            "a true Elo of 1500 is beyond ±1000"
        );
        assert!(calculator.cost(f64::NAN).is_err());
        let err = Calculator::new(
            sprt("elo0=-200 elo1=200 model=normalized"),
            BookProfile::of_rms_bias(0.0).unwrap(),
        );
        assert!(err.is_ok(), "200 nElo at sigma 1/2 is a score of 0.79");
    }
}
