//! The progress line of a run: a bar over the games with the time left at this session's pace,
//! and the running score above which finished games are printed.

use super::Shared;
use crate::stats::{Outcome, SequentialTest, SprtDecision, Verdict};
use indicatif::{HumanDuration, ProgressBar, ProgressState, ProgressStyle};
use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

/// A progress bar on a terminal (hidden otherwise) over `total` games of which `recorded` are
/// already in the results: games done of all, the time left at this session's pace (see
/// [`time_left`]), and the running score (the message, set by the caller).
pub(super) fn progress_bar(total: u64, recorded: u64) -> ProgressBar {
    let bar = ProgressBar::new(total).with_position(recorded);
    // indicatif's own {eta} counts the recorded games as played in the first instant.
    let eta = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
        let remaining = state.len().unwrap_or(0).saturating_sub(state.pos());
        let played = state.pos().saturating_sub(recorded);
        let _ = match time_left(remaining, played, state.elapsed()) {
            Some(left) => write!(out, "{:#}", HumanDuration(left)),
            None => out.write_str("?"),
        };
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} games  ETA {eta}  {msg}")
    {
        bar.set_style(style.with_key("eta", eta));
    }
    bar
}

/// The time `remaining` games take at the pace of `played` games in `elapsed` (this session's
/// games only: games recorded earlier took no time now); `None` before the first one ends.
fn time_left(remaining: u64, played: u64, elapsed: Duration) -> Option<Duration> {
    (played > 0).then(|| elapsed.mul_f64(remaining as f64 / played as f64))
}

/// Running counts for the progress line and the SPRT, fed in the order games are recorded:
/// memory holds the open game pairs only, however many games are played.
pub(super) struct RunTally {
    /// Wins of each engine, by index.
    pub(super) wins: HashMap<usize, u64>,
    /// The SPRT of engine 0 against engine 1 (the only two), when one was asked for.
    pub(super) sprt: Option<SequentialTest<u64>>,
}

impl RunTally {
    /// Counts a game of pair `pair`; returns the SPRT's verdict when this game reaches it.
    pub(super) fn add(&mut self, pair: u64, white: usize, winner: usize) -> Option<Verdict> {
        *self.wins.entry(winner).or_default() += 1;
        let outcome = Outcome {
            white: white == 0,
            won: winner == 0,
        };
        self.sprt.as_mut()?.add(pair, outcome)
    }
}

impl Shared<'_> {
    /// The progress bar's message: each engine's wins, then with an SPRT its LLR (at the
    /// verdict, once reached) and bounds: `a 3, b 1  LLR 0.41 (-2.94, 2.94)`.
    pub(super) fn score_line(&self, tally: &RunTally) -> String {
        let score = self
            .config
            .engines
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{} {}", e.name, tally.wins.get(&i).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ");
        let Some(test) = &tally.sprt else {
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

    /// Prints a line above the progress bar, or on stdout when there is no bar.
    pub(super) fn say(&self, line: &str) {
        if self.progress.is_hidden() {
            // A closed stdout (e.g. `| head`) must not stop the games: the results are on disk.
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        } else {
            self.progress.println(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_counts_only_this_sessions_games() {
        assert_eq!(time_left(60, 0, Duration::from_secs(6)), None);
        assert_eq!(
            time_left(60, 10, Duration::from_secs(20)),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            time_left(0, 10, Duration::from_secs(20)),
            Some(Duration::ZERO)
        );
    }
}
