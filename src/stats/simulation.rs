//! SPRTs simulated over game pairs drawn at random: what the calculator
//! ([`super::calculator`]) cannot give in closed form (the percentiles of the games to a
//! verdict), and a check of what it gives (the probability of passing, the mean).
//!
//! Each simulated test draws game pairs independently from [`PairOdds`] (lost twice, split
//! 1–1, won twice: no draws) and applies the project's own SPRT ([`Sprt`], the pentanomial
//! LLR of the pairs so far) until the first crossing of a bound, exactly as
//! [`SequentialTest`](super::SequentialTest) decides over game pairs. To be fast it computes
//! the LLR only where a crossing is possible: after each evaluation it skips as many pairs as
//! cannot reach a bound, `room / (2 max |jump|)`, where `room` is the LLR's distance to the
//! nearer bound and the jumps are the LLR's per-pair changes ([`Sprt::llr_and_jumps_pentanomial`])
//! taken twice over for safety; it evaluates every pair over the first
//! [`EVERY_PAIR_BELOW`] pairs, near a bound, and when a pair fills a cell empty until then (the
//! regularization of empty cells moves the LLR by more than a jump). A test checks that it
//! stops at the same pair as the test that evaluates every pair.

use serde::Serialize;

use super::calculator::{BookProfile, CalculatorError, MAX_TRUE_ELO};
use super::logistic_score;
use super::pentanomial::Pentanomial;
use super::sprt::{Sprt, SprtDecision};

/// Pairs under which the LLR is computed after every pair.
pub const EVERY_PAIR_BELOW: u64 = 16;

/// How many times the largest jump the LLR is taken to move per pair when pairs are skipped.
const SAFETY: f64 = 2.0;

/// The chances of a game pair's outcomes, from the tested engine's side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairOdds {
    /// Both games lost.
    pub ll: f64,
    /// One game won, one lost (each side won its game with the same colour, or each with
    /// the other).
    pub one_one: f64,
    /// Both games won.
    pub ww: f64,
}

impl PairOdds {
    /// The pair outcomes of engines `elo` Elo apart (logistic) on `book`: the score `s =
    /// L(elo)` per game, and openings that favour one colour by `±b` with `E[b^2] = rms^2`,
    /// so that `P(1–1) = 2 s (1 - s) + 2 rms^2` and `P(WW) - P(LL) = 2 s - 1` (the per-game
    /// variance over pairs is then `s (1 - s) - rms^2`, the calculator's `1/4 - rms^2` at an
    /// even score).
    ///
    /// # Errors
    /// [`CalculatorError::Elo`] beyond [`MAX_TRUE_ELO`]; [`CalculatorError::Bias`] when the
    /// book's bias is too large for that score (`rms > min(s, 1 - s)`: a pair lost or won
    /// twice would need a negative chance).
    pub fn new(elo: f64, book: &BookProfile) -> Result<PairOdds, CalculatorError> {
        if elo.is_nan() || elo.abs() > MAX_TRUE_ELO {
            return Err(CalculatorError::Elo(elo));
        }
        let s = logistic_score(elo);
        let rms2 = book.rms_bias * book.rms_bias;
        let one_one = 2.0 * s * (1.0 - s) + 2.0 * rms2;
        let ww = (1.0 - one_one + 2.0 * s - 1.0) / 2.0;
        let ll = (1.0 - one_one - (2.0 * s - 1.0)) / 2.0;
        if ll < 0.0 || ww < 0.0 || one_one > 1.0 {
            return Err(CalculatorError::Bias(book.rms_bias));
        }
        Ok(PairOdds { ll, one_one, ww })
    }

    /// The cell of a pair drawn with `u` uniform in `[0, 1)`: 0 (LL), 2 (1–1) or 4 (WW).
    fn cell(&self, u: f64) -> usize {
        if u < self.ll {
            0
        } else if u < self.ll + self.one_one {
            2
        } else {
            4
        }
    }
}

/// What the simulated tests of one row did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Simulated {
    /// Tests simulated.
    pub runs: usize,
    /// Tests that accepted H1.
    pub passed: u64,
    /// Mean games to the verdict.
    pub games_mean: f64,
    /// Standard deviation of the games to the verdict.
    pub games_sd: f64,
    /// The 95th percentile of the games: of the `runs` counts in order, the one at rank
    /// `round((runs - 1) × 0.95)` (from 0).
    pub games_p95: u64,
}

impl Simulated {
    /// The share of tests that passed.
    pub fn pass_share(&self) -> f64 {
        self.passed as f64 / self.runs.max(1) as f64
    }
}

/// `runs` SPRTs of `sprt` over pairs drawn from `odds`, the `i`-th with its own random stream
/// from `seed`, `stream` (e.g. the row of a table) and `i`, spread over `threads` threads: the
/// same figures whatever `threads`.
pub fn simulate(
    sprt: &Sprt,
    odds: &PairOdds,
    runs: usize,
    seed: u64,
    stream: u64,
    threads: usize,
) -> Simulated {
    let threads = threads.clamp(1, runs.max(1));
    let mut results: Vec<(SprtDecision, u64)> = vec![(SprtDecision::Continue, 0); runs];
    std::thread::scope(|scope| {
        let chunk = results.len().div_ceil(threads).max(1);
        for (k, part) in results.chunks_mut(chunk).enumerate() {
            scope.spawn(move || {
                for (j, slot) in part.iter_mut().enumerate() {
                    let i = (k * chunk + j) as u64;
                    let mut rng = fastrand::Rng::with_seed(run_seed(seed, stream, i));
                    *slot = one_test(sprt, odds, &mut rng);
                }
            });
        }
    });
    let mut games: Vec<u64> = results.iter().map(|&(_, pairs)| 2 * pairs).collect();
    games.sort_unstable();
    let n = games.len().max(1) as f64;
    let mean = games.iter().sum::<u64>() as f64 / n;
    let var = games
        .iter()
        .map(|&g| (g as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    Simulated {
        runs,
        passed: results
            .iter()
            .filter(|(decision, _)| *decision == SprtDecision::AcceptH1)
            .count() as u64,
        games_mean: mean,
        games_sd: var.sqrt(),
        games_p95: games
            .get((games.len().saturating_sub(1) * 95 + 50) / 100)
            .copied()
            .unwrap_or(0),
    }
}

/// The seed of run `i` of `stream`: splitmix64 of the three, so that nearby seeds give
/// unrelated streams.
fn run_seed(seed: u64, stream: u64, i: u64) -> u64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    mix(mix(mix(seed) ^ stream) ^ i)
}

/// One test: its decision and the pairs it took (see the module documentation).
pub fn one_test(sprt: &Sprt, odds: &PairOdds, rng: &mut fastrand::Rng) -> (SprtDecision, u64) {
    let (lower, upper) = sprt.bounds();
    let mut cells = [0u64; 5];
    let mut pairs = 0u64;
    let mut next_check = 1u64;
    loop {
        let cell = odds.cell(rng.f64());
        cells[cell] += 1;
        pairs += 1;
        // A cell filled for the first time: the regularization's step, not a jump.
        if pairs < next_check && cells[cell] > 1 {
            continue;
        }
        let (llr, jumps) = sprt.llr_and_jumps_pentanomial(&Pentanomial::from(cells));
        let decision = sprt.decision(llr);
        if decision != SprtDecision::Continue {
            return (decision, pairs);
        }
        let step = [jumps[0], jumps[2], jumps[4]]
            .iter()
            .fold(0.0_f64, |max, jump| max.max(jump.abs()));
        let room = (upper - llr).min(llr - lower);
        let skip = if pairs < EVERY_PAIR_BELOW || step <= 0.0 {
            1
        } else {
            // A count of pairs, finite and not negative; at most a million.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let pairs = (room / (SAFETY * step)).clamp(1.0, 1e6) as u64;
            pairs
        };
        next_check = pairs + skip;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::calculator::Calculator;
    use crate::stats::sequential::{Outcome, SequentialTest};

    /// The same test evaluated after every game, by [`SequentialTest`] (the runner's), fed
    /// the same draws: its decision and pairs.
    fn every_pair(sprt: &Sprt, odds: &PairOdds, rng: &mut fastrand::Rng) -> (SprtDecision, u64) {
        let mut test = SequentialTest::new(*sprt);
        for pair in 1.. {
            let (white, black) = match odds.cell(rng.f64()) {
                0 => (false, false),
                2 => (true, false),
                _ => (true, true),
            };
            test.add(
                pair,
                Outcome {
                    white: true,
                    won: white,
                },
            );
            if let Some(verdict) = test.add(
                pair,
                Outcome {
                    white: false,
                    won: black,
                },
            ) {
                assert_eq!(verdict.games, 2 * pair);
                return (verdict.decision, pair);
            }
            assert!(test.verdict().is_none(), "a verdict at a single game");
        }
        unreachable!()
    }

    /// Skipping pairs changes nothing: every test stops where the runner's sequential test
    /// stops, for both models, a biased and an unbiased book, and Elos below, between and
    /// above the bounds.
    #[test]
    fn skipping_pairs_stops_where_the_sequential_test_stops() {
        let mut compared = 0;
        for spec in [
            "elo0=0 elo1=20",
            "elo0=0 elo1=10 model=normalized",
            "elo0=-5 elo1=15",
        ] {
            let sprt: Sprt = spec.parse().unwrap();
            for share in [0.5, 0.75] {
                let book = BookProfile::of_one_one_share(share).unwrap();
                for elo in [-10.0, 0.0, 10.0, 25.0] {
                    let odds = PairOdds::new(elo, &book).unwrap();
                    for i in 0..25 {
                        let seed = run_seed(7, elo.to_bits(), i);
                        let fast = one_test(&sprt, &odds, &mut fastrand::Rng::with_seed(seed));
                        let slow = every_pair(&sprt, &odds, &mut fastrand::Rng::with_seed(seed));
                        assert_eq!(fast, slow, "{spec}, share {share}, elo {elo}, run {i}");
                        compared += 1;
                    }
                }
            }
        }
        assert_eq!(compared, 600);
    }

    #[test]
    fn the_odds_give_the_score_and_the_share_of_one_one_pairs() {
        let book = BookProfile::of_one_one_share(0.7).unwrap();
        let odds = PairOdds::new(0.0, &book).unwrap();
        crate::stats::assert_close(odds.one_one, 0.7, 1e-12);
        crate::stats::assert_close(odds.ll, 0.15, 1e-12);
        let odds = PairOdds::new(100.0, &book).unwrap();
        let s = logistic_score(100.0);
        crate::stats::assert_close(odds.one_one / 2.0 + odds.ww, s, 1e-12);
        crate::stats::assert_close(odds.ll + odds.one_one + odds.ww, 1.0, 1e-12);
        // A strong bias and a lopsided score cannot go together.
        let heavy = BookProfile::of_rms_bias(0.45).unwrap();
        assert_eq!(
            PairOdds::new(400.0, &heavy),
            Err(CalculatorError::Bias(0.45))
        );
        assert!(PairOdds::new(2000.0, &book).is_err());
    }

    #[test]
    fn the_figures_do_not_depend_on_the_threads() {
        let sprt: Sprt = "elo0=0 elo1=20".parse().unwrap();
        let book = BookProfile::of_one_one_share(0.5).unwrap();
        let odds = PairOdds::new(10.0, &book).unwrap();
        let one = simulate(&sprt, &odds, 50, 3, 1, 1);
        assert_eq!(simulate(&sprt, &odds, 50, 3, 1, 3), one);
        assert_ne!(simulate(&sprt, &odds, 50, 4, 1, 1), one);
        assert_eq!(one.runs, 50);
        assert!(one.games_p95 as f64 > one.games_mean);
    }

    /// The calculator's analytic figures against 1,000 simulated SPRTs a row: within three
    /// standard errors of the simulation (the large check, 10,000 a row at bounds where the
    /// LLR's overshoot is smaller, is the bench `sprt_calculator`).
    #[test]
    fn the_calculator_agrees_with_the_simulation() {
        let sprt: Sprt = "elo0=0 elo1=10".parse().unwrap();
        for share in [0.5, 0.7] {
            let book = BookProfile::of_one_one_share(share).unwrap();
            let calculator = Calculator::new(sprt, book).unwrap();
            for (row, elo) in [0.0, 5.0, 10.0].into_iter().enumerate() {
                let cost = calculator.cost(elo).unwrap();
                let odds = PairOdds::new(elo, &book).unwrap();
                let sim = simulate(&sprt, &odds, 1000, 1, row as u64, 2);
                let n = sim.runs as f64;
                let p = sim.pass_share();
                let p_error = (cost.pass_probability * (1.0 - cost.pass_probability) / n).sqrt();
                let games_error = sim.games_sd / n.sqrt();
                let context = format!("share {share}, elo {elo}: {cost:?} {sim:?}");
                assert!(
                    (p - cost.pass_probability).abs() <= 3.0 * p_error,
                    "{context}"
                );
                assert!(
                    (sim.games_mean - cost.games).abs() <= 3.0 * games_error,
                    "{context}"
                );
            }
        }
    }
}
