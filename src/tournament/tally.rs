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
    /// and its verdict once reached, with the Elo after the stop (median-unbiased, 95%).
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
                "{score}  LLR {:.2} {bounds} {}{}",
                verdict.llr,
                match verdict.decision {
                    SprtDecision::AcceptH0 => "H0 accepted",
                    _ => "H1 accepted",
                },
                verdict
                    .after_stop
                    .map(|estimate| format!(", Elo after the stop {estimate}"))
                    .unwrap_or_default()
            ),
            None => format!(
                "{score}  LLR {:.2} {bounds}",
                test.counts().llr(test.sprt())
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{SequentialTest, Sprt};

    /// Once decided, the line gives the verdict and the Elo after the stop.
    #[test]
    fn a_decided_score_line_gives_the_elo_after_the_stop() {
        let sprt: Sprt = "elo0=0 elo1=200".parse().unwrap();
        let mut tally = RunTally::new(Some(SequentialTest::new(sprt)));
        let names = ["a".to_string(), "b".to_string()];
        let mut pair = 0;
        while !tally.decided() {
            pair += 1;
            tally.add(pair, 0, 0);
            tally.add(pair, 1, 0);
        }
        let verdict = tally
            .sprt
            .as_ref()
            .and_then(SequentialTest::verdict)
            .unwrap();
        let estimate = verdict.after_stop.unwrap();
        assert_eq!(
            tally.score_line(&names),
            format!(
                "a {}, b 0  LLR {:.2} (-2.94, 2.94) H1 accepted, Elo after the stop {estimate}",
                2 * pair,
                verdict.llr
            )
        );
        assert!(estimate.to_string().starts_with('+'), "{estimate}");
    }
}
