//! Selections simulated over game pairs drawn from the model the guarantee is stated in: each
//! pair of a candidate against the base independent of every other, lost twice, split 1–1 or
//! won twice with the chances of its Elo ([`PairOdds`]). The selection is decided by the same
//! code as a run ([`Procedure`]); what it is measured against is played out the same way: one
//! SPRT per candidate against the base, each to its verdict, and a round-robin of the
//! candidates.
//!
//! Each simulated selection has its own random stream from the seed and its index, so that the
//! figures are the same whatever the number of threads.

use super::procedure::{Ending, Procedure, Rule};
use crate::stats::calculator::BookProfile;
use crate::stats::simulation::{PairOdds, one_test};
use crate::stats::{Sprt, SprtDecision, SprtSpecError};

/// A pool of candidates with known strengths.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    /// Each candidate's Elo against the base (logistic), in the order given.
    pub elos: Vec<f64>,
    /// The book: the pair outcomes of engines of each strength (its RMS bias, fishtest's sense).
    pub book: BookProfile,
}

impl Pool {
    /// The best candidate's index (the first given among equals).
    pub fn best(&self) -> usize {
        (0..self.elos.len())
            .max_by(|&a, &b| self.elos[a].total_cmp(&self.elos[b]).then(b.cmp(&a)))
            .unwrap_or(0)
    }

    /// The chances of a pair of a candidate `elo` Elo against its opponent.
    ///
    /// # Panics
    /// For an Elo or a book the model refuses (beyond 1000 Elo, a bias too large for the
    /// score): a pool is made of a few Elo of difference.
    fn odds(&self, elo: f64) -> PairOdds {
        PairOdds::new(elo, &self.book).expect("an Elo and a book the model takes")
    }
}

/// One simulated selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The chosen candidate; `None` when the budget ran out first.
    pub chosen: Option<usize>,
    /// Whether it was found to beat the base.
    pub beats_base: bool,
    /// Games played.
    pub games: u64,
}

/// The points of one pair drawn from `odds`: 0, 1 or 2.
fn draw(odds: &PairOdds, rng: &mut fastrand::Rng) -> u8 {
    let u = rng.f64();
    if u < odds.ll {
        0
    } else if u < odds.ll + odds.one_one {
        1
    } else {
        2
    }
}

/// One selection of `pool` by `rule`, its pairs drawn from `rng`.
///
/// # Errors
/// The rule's base test refused (an indifference beyond the SPRT's limit).
pub fn select_once(
    rule: Rule,
    pool: &Pool,
    rng: &mut fastrand::Rng,
) -> Result<Selection, SprtSpecError> {
    let odds: Vec<PairOdds> = pool.elos.iter().map(|&e| pool.odds(e)).collect();
    let mut procedure = Procedure::new(rule)?;
    let mut points = Vec::with_capacity(odds.len());
    loop {
        let players = procedure.players();
        if players.is_empty() {
            break;
        }
        points.clear();
        points.extend(players.iter().map(|&i| draw(&odds[i], rng)));
        procedure
            .round(&players, &points)
            .expect("the players of the round");
    }
    let (chosen, beats_base) = match procedure.ending() {
        Some((Ending::Decided { chosen, beats_base }, _)) => (Some(chosen), beats_base),
        _ => (None, false),
    };
    Ok(Selection {
        chosen,
        beats_base,
        games: procedure.games(),
    })
}

/// One SPRT per candidate against the base, each to its verdict: the games added up; it
/// chooses a candidate when exactly one passed (none otherwise), and says that one beats the
/// base when any passed.
pub fn sprt_each(sprt: &Sprt, pool: &Pool, rng: &mut fastrand::Rng) -> Selection {
    let mut games = 0;
    let mut passed = Vec::new();
    for (i, &elo) in pool.elos.iter().enumerate() {
        let (decision, pairs) = one_test(sprt, &pool.odds(elo), rng);
        games += 2 * pairs;
        if decision == SprtDecision::AcceptH1 {
            passed.push(i);
        }
    }
    Selection {
        chosen: match passed[..] {
            [only] => Some(only),
            _ => None,
        },
        beats_base: !passed.is_empty(),
        games,
    }
}

/// A round-robin of the candidates, `pairs` game pairs for each pairing: the candidate with
/// the most points (the first given among equals).
pub fn round_robin(pool: &Pool, pairs: u64, rng: &mut fastrand::Rng) -> Selection {
    let k = pool.elos.len();
    let mut points = vec![0u64; k];
    for i in 0..k {
        for j in i + 1..k {
            let odds = pool.odds(pool.elos[i] - pool.elos[j]);
            for _ in 0..pairs {
                let p = u64::from(draw(&odds, rng));
                points[i] += p;
                points[j] += 2 - p;
            }
        }
    }
    let chosen = (0..k)
        .max_by(|&a, &b| points[a].cmp(&points[b]).then(b.cmp(&a)))
        .unwrap_or(0);
    Selection {
        chosen: Some(chosen),
        beats_base: false,
        games: (k * (k - 1)) as u64 * pairs,
    }
}

/// What many simulated selections of one pool did.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Tally {
    /// Selections.
    pub runs: usize,
    /// Those that chose the best.
    pub correct: u64,
    /// Those that chose none (the budget ran out; of one SPRT per candidate: not exactly one
    /// passed).
    pub none: u64,
    /// Those that found the chosen one beats the base.
    pub beats_base: u64,
    /// Mean games.
    pub games_mean: f64,
    /// The 95th percentile of the games: of the counts in order, the one at rank
    /// `round((runs − 1) × 0.95)` (from 0).
    pub games_p95: u64,
}

impl Tally {
    /// The share of correct choices.
    pub fn correct_share(&self) -> f64 {
        self.correct as f64 / self.runs.max(1) as f64
    }

    /// The standard error of [`correct_share`](Self::correct_share) (binomial).
    pub fn correct_error(&self) -> f64 {
        let p = self.correct_share();
        (p * (1.0 - p) / self.runs.max(1) as f64).sqrt()
    }

    fn of(best: usize, selections: &[Selection]) -> Tally {
        let mut games: Vec<u64> = selections.iter().map(|s| s.games).collect();
        games.sort_unstable();
        let n = games.len().max(1);
        Tally {
            runs: selections.len(),
            correct: selections.iter().filter(|s| s.chosen == Some(best)).count() as u64,
            none: selections.iter().filter(|s| s.chosen.is_none()).count() as u64,
            beats_base: selections.iter().filter(|s| s.beats_base).count() as u64,
            games_mean: games.iter().sum::<u64>() as f64 / n as f64,
            games_p95: games
                .get((games.len().saturating_sub(1) * 95 + 50) / 100)
                .copied()
                .unwrap_or(0),
        }
    }
}

/// `runs` simulations of `pool`, the `i`-th by `one` with its own random stream from `seed`
/// and `i`, spread over `threads` threads: the same tally whatever `threads`.
pub fn tally(
    pool: &Pool,
    runs: usize,
    seed: u64,
    threads: usize,
    one: impl Fn(&mut fastrand::Rng) -> Selection + Sync,
) -> Tally {
    let threads = threads.clamp(1, runs.max(1));
    let mut selections = vec![
        Selection {
            chosen: None,
            beats_base: false,
            games: 0,
        };
        runs
    ];
    let chunk = runs.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (k, part) in selections.chunks_mut(chunk).enumerate() {
            let one = &one;
            scope.spawn(move || {
                for (j, slot) in part.iter_mut().enumerate() {
                    let i = (k * chunk + j) as u64;
                    let mut rng =
                        fastrand::Rng::with_seed(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    *slot = one(&mut rng);
                }
            });
        }
    });
    Tally::of(pool.best(), &selections)
}
