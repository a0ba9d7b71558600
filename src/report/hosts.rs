//! Per-host health of a run of workers: each host's games, losses by fault, and whether its
//! results differ from the pooled result beyond chance (fishtest flags workers whose results
//! are outliers by their χ² residuals; OpenBench breaks results down by machine).
//!
//! The test: the tested (first) engine's points on host h, `W` of `n` games, against the
//! pooled rate `P` of every host: `χ² = (W − nP)² / (nP(1 − P))`, one degree of freedom (a
//! game's points are 0 or 1: no draws in Breakthrough), its p-value from the χ² distribution.
//! A host is flagged when `p · H < 0.01` (Bonferroni over the `H` hosts), or when its losses
//! by fault are at least 3 and more than 3 times the rate of the other hosts' games.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// What one host's games came to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HostTally {
    /// The host's name (from its workers' ids).
    pub host: String,
    /// Workers that ran on it.
    pub workers: u64,
    /// Games it recorded.
    pub games: u64,
    /// The tested (first) engine's points in them.
    pub points: u64,
    /// Games lost on time.
    pub time_forfeits: u64,
    /// Games lost by a crash.
    pub crashes: u64,
    /// Games lost by a stall (no `readyok`).
    pub stalls: u64,
    /// Games lost by an illegal move.
    pub illegal_moves: u64,
    /// The bench speed measured on the host, nodes per second: the mean over its workers that
    /// benched an engine (`--scale-tc`'s base engine, else an engine with `bench=` or built
    /// from source); `None` when none did. A host much slower than the others plays the time
    /// control short (or, with `--scale-tc`, is given more time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bench_nps: Option<u64>,
}

impl HostTally {
    /// Games lost by any fault.
    pub fn faults(&self) -> u64 {
        self.time_forfeits + self.crashes + self.stalls + self.illegal_moves
    }
}

/// One host's row of the report: its tally, the χ² of its score against the pool's and its
/// p-value, and why it is flagged (`None`: not).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostHealth {
    /// The host's tally.
    #[serde(flatten)]
    pub tally: HostTally,
    /// The tested engine's score on the host, in `[0, 1]`.
    pub score: f64,
    /// χ² (one degree of freedom) of the host's points against the pooled score.
    pub chi2: f64,
    /// Its p-value.
    pub p_value: f64,
    /// Why the host is flagged, e.g. `score 0.21 against 0.55 pooled (p = 3.1e-5)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flagged: Option<String>,
}

/// The health of each host of `tallies` (see the module documentation), in the order given.
pub fn health(tallies: Vec<HostTally>) -> Vec<HostHealth> {
    let games: u64 = tallies.iter().map(|t| t.games).sum();
    let points: u64 = tallies.iter().map(|t| t.points).sum();
    let faults: u64 = tallies.iter().map(HostTally::faults).sum();
    let pooled = match games {
        0 => 0.0,
        games => points as f64 / games as f64,
    };
    let hosts = tallies.len() as f64;
    let chi2 = ChiSquared::new(1.0).expect("one degree of freedom");
    tallies
        .into_iter()
        .map(|tally| {
            let n = tally.games as f64;
            let score = match tally.games {
                0 => 0.0,
                _ => tally.points as f64 / n,
            };
            let variance = n * pooled * (1.0 - pooled);
            let statistic = match variance > 0.0 {
                true => (tally.points as f64 - n * pooled).powi(2) / variance,
                false => 0.0,
            };
            let p_value = 1.0 - chi2.cdf(statistic);
            let mut why = Vec::new();
            if p_value * hosts < 0.01 {
                why.push(format!(
                    "score {score:.2} against {pooled:.2} pooled (p = {})",
                    super::numbers::p_value(p_value)
                ));
            }
            let (other_games, other_faults) = (games - tally.games, faults - tally.faults());
            let others_rate = match other_games {
                0 => 0.0,
                g => other_faults as f64 / g as f64,
            };
            if other_games > 0
                && tally.faults() >= 3
                && tally.faults() as f64 > 3.0 * others_rate * n
            {
                why.push(format!(
                    "{} losses by fault in {} games ({} time, {} crash, {} stall, {} illegal), \
                     {:.1}% on the other hosts",
                    tally.faults(),
                    tally.games,
                    tally.time_forfeits,
                    tally.crashes,
                    tally.stalls,
                    tally.illegal_moves,
                    100.0 * others_rate
                ));
            }
            HostHealth {
                tally,
                score,
                chi2: statistic,
                p_value,
                flagged: (!why.is_empty()).then(|| why.join("; ")),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, games: u64, points: u64, time_forfeits: u64) -> HostTally {
        HostTally {
            host: name.into(),
            workers: 1,
            games,
            points,
            time_forfeits,
            ..HostTally::default()
        }
    }

    #[test]
    fn a_host_whose_score_differs_beyond_chance_is_flagged_with_hand_computed_values() {
        // Pooled: 200 points of 400 games, P = 0.5. Host c: 20 of 100, nP = 50,
        // χ² = 30² / 25 = 36; hosts a and b: 90 of 150, χ² = 15² / 37.5 = 6.
        let rows = health(vec![
            host("a", 150, 90, 0),
            host("b", 150, 90, 0),
            host("c", 100, 20, 0),
        ]);
        assert_eq!(rows[2].chi2, 36.0);
        assert_eq!(rows[0].chi2, 6.0);
        // P(χ²₁ > 36) = erfc(sqrt(18)) = 1.97e-9; P(χ²₁ > 6) = 0.0143.
        assert!(
            (rows[2].p_value - 1.97e-9).abs() < 1e-10,
            "{}",
            rows[2].p_value
        );
        assert!(
            (rows[0].p_value - 0.014306).abs() < 1e-5,
            "{}",
            rows[0].p_value
        );
        assert_eq!(
            rows[2].flagged.as_deref(),
            Some("score 0.20 against 0.50 pooled (p = 2.0e-9)")
        );
        // 0.0143 · 3 hosts is not below 0.01.
        assert_eq!(rows[0].flagged, None);
    }

    #[test]
    fn a_host_losing_on_time_far_more_than_the_others_is_flagged() {
        let rows = health(vec![host("a", 100, 50, 1), host("b", 100, 50, 9)]);
        assert_eq!(rows[0].flagged, None);
        assert_eq!(
            rows[1].flagged.as_deref(),
            Some(
                "9 losses by fault in 100 games (9 time, 0 crash, 0 stall, 0 illegal), 1.0% on the other hosts"
            )
        );
        // One host alone: nothing to compare with, nothing flagged.
        assert_eq!(health(vec![host("a", 10, 0, 5)])[0].flagged, None);
    }
}
