//! The standings of a report: Bradley–Terry ratings of the engines that have games, their
//! ranks and LOS against the next, from the matrix of wins ([`super::summary`] counts it).

use super::summary::{SelfPlay, Standing};
use crate::stats::{self, PairResult, RatingOptions, Ratings};

/// Games between `i` and `j` (`wins[i][j]`: games `i` won against `j`).
pub(super) fn games_between(wins: &[Vec<u64>], i: usize, j: usize) -> u64 {
    wins[i][j] + wins[j][i]
}

/// `(wins, losses)` of engine `i` over all its games.
fn record_of(wins: &[Vec<u64>], i: usize) -> (u64, u64) {
    let won = wins[i].iter().sum();
    let losses = wins.iter().map(|row| row[i]).sum();
    (won, losses)
}

/// Ratings of the engines that have games.
pub(super) struct Pool {
    /// Engine indices of the rated engines, in the order of `ratings.engines`.
    pub(super) members: Vec<usize>,
    pub(super) ratings: Ratings,
}

impl Pool {
    /// Position of engine `engine` in the ratings.
    fn slot(&self, engine: usize) -> Option<usize> {
        self.members.iter().position(|&m| m == engine)
    }
}

/// Bradley–Terry ratings (mean 0) of the engines with games (`wins[i][j]`: games `i` won
/// against `j`); the reason as text when there are none (`self_play` says why when the games
/// were of one name against itself).
pub(super) fn rate_pool(
    engines: &[String],
    wins: &[Vec<u64>],
    self_play: &SelfPlay,
) -> Result<Pool, String> {
    let members: Vec<usize> = (0..engines.len())
        .filter(|&i| (0..engines.len()).any(|j| games_between(wins, i, j) > 0))
        .collect();
    if members.is_empty() {
        // Say why when the games were of one name against itself.
        return Err(match self_play.note() {
            Some(why) => format!("no finished games between two engines: {why}"),
            None => "no finished games".to_string(),
        });
    }
    let names: Vec<&str> = members.iter().map(|&m| engines[m].as_str()).collect();
    let mut results = Vec::new();
    for (i, &a) in members.iter().enumerate() {
        for (j, &b) in members.iter().enumerate().skip(i + 1) {
            if games_between(wins, a, b) > 0 {
                results.push(PairResult {
                    i,
                    j,
                    wins_i: wins[a][b],
                    wins_j: wins[b][a],
                });
            }
        }
    }
    let ratings =
        stats::rate(&names, &results, &RatingOptions::default()).map_err(|err| err.to_string())?;
    Ok(Pool { members, ratings })
}

/// The standings, best first (`wins` as for [`rate_pool`]).
pub(super) fn standings(
    engines: &[String],
    wins: &[Vec<u64>],
    pool: Option<&Pool>,
) -> Vec<Standing> {
    let slot = |e: usize| pool.and_then(|p| p.slot(e).map(|k| (p, k)));
    let rows: Vec<Standing> = (0..engines.len())
        .map(|e| {
            let (won, losses) = record_of(wins, e);
            let games = won + losses;
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
                wins: won,
                losses,
                score_percent: (games > 0).then(|| 100.0 * won as f64 / games as f64),
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
