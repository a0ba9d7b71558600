//! From the tally to the report's tables: Bradley–Terry ratings of the engines with games, the
//! standings (best first, with the LOS of each over the next), the pairs that met with their
//! Elo, pentanomial and SPRT, and each engine's losses by fault.

use super::tally::Tally;
use super::{EngineFaults, PairSummary, Standing};
use crate::stats::{self, MatchCounts, PairResult, RatingOptions, Ratings, SequentialTest};

/// Ratings of the engines that have games.
pub(super) struct Pool {
    /// Engine indices of the rated engines, in the order of `ratings.engines`.
    pub(super) members: Vec<usize>,
    pub(super) ratings: Ratings,
}

impl Pool {
    /// Position of engine `engine` in the ratings.
    pub(super) fn slot(&self, engine: usize) -> Option<usize> {
        self.members.iter().position(|&m| m == engine)
    }
}

/// Bradley–Terry ratings (mean 0) of the engines with games; the reason as text when there
/// are none.
pub(super) fn rate_pool(engines: &[String], tally: &Tally) -> Result<Pool, String> {
    let members: Vec<usize> = (0..engines.len())
        .filter(|&i| (0..engines.len()).any(|j| tally.games_between(i, j) > 0))
        .collect();
    if members.is_empty() {
        // Say why when the games were of one name against itself.
        return Err(match tally.self_play.note() {
            Some(why) => format!("no finished games between two engines: {why}"),
            None => "no finished games".to_string(),
        });
    }
    let names: Vec<&str> = members.iter().map(|&m| engines[m].as_str()).collect();
    let mut results = Vec::new();
    for (i, &a) in members.iter().enumerate() {
        for (j, &b) in members.iter().enumerate().skip(i + 1) {
            if tally.games_between(a, b) > 0 {
                results.push(PairResult {
                    i,
                    j,
                    wins_i: tally.wins[a][b],
                    wins_j: tally.wins[b][a],
                });
            }
        }
    }
    let ratings =
        stats::rate(&names, &results, &RatingOptions::default()).map_err(|err| err.to_string())?;
    Ok(Pool { members, ratings })
}

/// The standings, best first.
pub(super) fn standings(engines: &[String], tally: &Tally, pool: Option<&Pool>) -> Vec<Standing> {
    let slot = |e: usize| pool.and_then(|p| p.slot(e).map(|k| (p, k)));
    let rows: Vec<Standing> = (0..engines.len())
        .map(|e| {
            let (wins, losses) = tally.record_of(e);
            let games = wins + losses;
            let rating = slot(e).map(|(p, k)| &p.ratings.engines[k]);
            Standing {
                rank: 0,
                name: engines[e].clone(),
                elo: rating.map(|r| r.rating),
                error95: rating
                    .filter(|r| r.bound.is_none())
                    .map(|r| stats::z95() * r.std_error),
                bound: rating.and_then(|r| r.bound),
                games,
                wins,
                losses,
                score_percent: (games > 0).then(|| 100.0 * wins as f64 / games as f64),
                los_next: None,
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..engines.len()).collect();
    let key = |e: usize| {
        let row = &rows[e];
        (
            row.elo.unwrap_or(f64::NEG_INFINITY),
            row.score_percent.unwrap_or(-1.0),
        )
    };
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        kb.0.total_cmp(&ka.0)
            .then(kb.1.total_cmp(&ka.1))
            .then(a.cmp(&b))
    });
    let los_next = |at: usize| {
        let (pool, k) = slot(order[at])?;
        let (_, next) = slot(*order.get(at + 1)?)?;
        Some(pool.ratings.los[k][next])
    };
    order
        .iter()
        .enumerate()
        .map(|(at, &e)| Standing {
            rank: at + 1,
            los_next: los_next(at),
            ..rows[e].clone()
        })
        .collect()
}

/// The pairs that met, plus the SPRT pair (engines 0 and 1) when there is an SPRT.
pub(super) fn pair_summaries(engines: &[String], tally: &Tally) -> Vec<PairSummary> {
    let n = engines.len();
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let sprt = tally.sprt.as_ref().filter(|_| (i, j) == (0, 1));
            if tally.games_between(i, j) > 0 || sprt.is_some() {
                let empty = MatchCounts::default();
                let counts = tally.match_counts(i, j).unwrap_or(&empty);
                pairs.push(PairSummary {
                    first: engines[i].clone(),
                    second: engines[j].clone(),
                    games: counts.games(),
                    wins: counts.wins(),
                    losses: counts.losses(),
                    pentanomial: counts.pentanomial(),
                    unpaired: counts.unpaired(),
                    model: counts.model(),
                    elo: counts.elo(),
                    sprt: sprt.map(SequentialTest::status),
                });
            }
        }
    }
    pairs
}

/// Losses by fault and stray answers of every engine.
pub(super) fn engine_faults(engines: &[String], tally: &Tally) -> Vec<EngineFaults> {
    engines
        .iter()
        .zip(tally.faults.iter().zip(&tally.stray))
        .map(
            |(name, (&[time_forfeits, illegal_moves, crashes, stalls], &stray_answers))| {
                EngineFaults {
                    name: name.clone(),
                    time_forfeits,
                    illegal_moves,
                    crashes,
                    stalls,
                    stray_answers,
                }
            },
        )
        .collect()
}
