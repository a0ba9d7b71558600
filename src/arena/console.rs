//! What a run says while it plays: a progress line on a terminal (games played of the run's,
//! the ETA and the schedule's score line), and plain lines above it (or alone, off a
//! terminal). A closed stdout (`| head`) never stops a run: its results are on disk.

use indicatif::{HumanDuration, ProgressBar, ProgressState, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// The progress line and the lines printed above it.
#[derive(Debug)]
pub struct Console {
    bar: ProgressBar,
    terminal: bool,
}

impl Console {
    /// A console for a run of `total` games, `recorded` of them by earlier sessions (the
    /// bar starts there, and its ETA counts only this session's games). Hidden when stderr
    /// is not a terminal.
    pub fn new(total: u64, recorded: u64) -> Console {
        let bar = ProgressBar::new(total).with_position(recorded);
        let eta = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
            let remaining = state.len().unwrap_or(0).saturating_sub(state.pos());
            let played = state.pos().saturating_sub(recorded);
            let _ = match time_left(remaining, played, state.elapsed()) {
                Some(left) => write!(out, "{:#}", HumanDuration(left)),
                None => out.write_str("?"),
            };
        };
        if let Ok(style) =
            ProgressStyle::with_template("{bar:30} {pos}/{len} games  ETA {eta}  {msg}")
        {
            bar.set_style(style.with_key("eta", eta));
        }
        Console {
            bar,
            terminal: std::io::stdout().is_terminal(),
        }
    }

    /// A console with no progress line: lines go straight to stdout.
    pub fn hidden() -> Console {
        Console {
            bar: ProgressBar::hidden(),
            terminal: std::io::stdout().is_terminal(),
        }
    }

    /// Prints `line` on stdout, above the progress line when there is one.
    pub fn say(&self, line: &str) {
        if self.bar.is_hidden() {
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        } else {
            self.bar.println(line);
        }
    }

    /// Whether stdout is a terminal (interim lines are for logs, not terminals).
    pub fn is_terminal(&self) -> bool {
        self.terminal
    }

    /// Games recorded (earlier sessions included) and games of the run.
    pub fn position(&self) -> (u64, u64) {
        (self.bar.position(), self.bar.length().unwrap_or(0))
    }

    /// One more game recorded.
    pub(super) fn inc(&self) {
        self.bar.inc(1);
    }

    /// One game fewer to play (it will not be played this session).
    pub(super) fn dec_length(&self) {
        self.bar.dec_length(1);
    }

    /// The progress line's message.
    pub(super) fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// The progress line's message (for tests).
    pub fn message(&self) -> String {
        self.bar.message()
    }

    /// Removes the progress line.
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The time left at this session's pace: `elapsed` for `played` games, `remaining` to go.
fn time_left(remaining: u64, played: u64, elapsed: Duration) -> Option<Duration> {
    (played > 0).then(|| elapsed.mul_f64(remaining as f64 / played as f64))
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
