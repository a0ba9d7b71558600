//! The running score of a tournament: wins per engine and, with an SPRT, its test fed game by
//! game in the order the games were recorded; shown on the progress line.

use crate::stats::{Outcome, SequentialTest, SprtDecision, Verdict};
use std::collections::HashMap;

/// Wins per engine and the SPRT as games finish.
pub(crate) struct RunTally {
    wins: HashMap<usize, u64>,
    sprt: Option<SequentialTest<u64>>,
}

impl RunTally {
    /// No game yet; `sprt` the run's test, if any.
    pub(crate) fn new(sprt: Option<SequentialTest<u64>>) -> RunTally {
        RunTally {
            wins: HashMap::new(),
            sprt,
        }
    }

    /// Counts a game of `pair` won by engine `winner`, engine `white` playing White; the
    /// SPRT's verdict when this game decides it.
    pub(crate) fn add(&mut self, pair: u64, white: usize, winner: usize) -> Option<Verdict> {
        *self.wins.entry(winner).or_default() += 1;
        let outcome = Outcome {
            white: white == 0,
            won: winner == 0,
        };
        self.sprt.as_mut()?.add(pair, outcome)
    }

    /// Whether the SPRT has a verdict.
    pub(crate) fn decided(&self) -> bool {
        self.sprt
            .as_ref()
            .is_some_and(|test| test.verdict().is_some())
    }

    /// The progress line's message: `a 3, b 1`, then with an SPRT `LLR 1.23 (-2.94, 2.94)`
    /// and its verdict once reached.
    pub(crate) fn score_line(&self, names: &[String]) -> String {
        let score = names
            .iter()
            .enumerate()
            .map(|(i, name)| format!("{name} {}", self.wins.get(&i).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ");
        let Some(test) = &self.sprt else {
            return score;
        };
        let (lower, upper) = test.sprt().bounds();
        let bounds = format!("({lower:.2}, {upper:.2})");
        match test.verdict() {
            Some(verdict) => format!(
                "{score}  LLR {:.2} {bounds} {}",
                verdict.llr,
                match verdict.decision {
                    SprtDecision::AcceptH0 => "H0 accepted",
                    _ => "H1 accepted",
                }
            ),
            None => format!(
                "{score}  LLR {:.2} {bounds}",
                test.counts().llr(test.sprt())
            ),
        }
    }
}
