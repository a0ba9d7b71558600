//! Time controls: how long an engine may think ([`TimeControl`], the `tc=`, `st=`, `depth=`
//! and `nodes=` engine keys).

use crate::engine::protocol::GoLimits;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How long an engine may think: the search limit sent with every `go`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeControl {
    /// A clock: `base_ms` for the game plus `increment_ms` after each move (`tc=BASE+INC`, in
    /// seconds on the command line).
    Clock {
        /// Time for the whole game, ms.
        base_ms: u64,
        /// Time added after each move, ms.
        increment_ms: u64,
    },
    /// A fixed time per move, ms (`st=SECONDS`).
    MoveTime(u64),
    /// A fixed depth in plies (`depth=N`).
    Depth(u32),
    /// A fixed number of nodes (`nodes=N`).
    Nodes(u64),
}

impl TimeControl {
    /// Parses `BASE+INC` or `BASE` in seconds (decimals allowed), e.g. `10+0.1` or `8`.
    ///
    /// # Errors
    /// A message naming the bad value.
    pub fn parse_clock(text: &str) -> Result<TimeControl, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        Ok(TimeControl::Clock {
            base_ms: seconds_to_ms(base).map_err(|e| format!("bad tc '{text}': {e}"))?,
            increment_ms: seconds_to_ms(increment).map_err(|e| format!("bad tc '{text}': {e}"))?,
        })
    }
}

impl TimeControl {
    /// The `go` limits of this control for a position searched on its own: a clock as both
    /// sides' full base time and increment, any other control as its fixed limit.
    pub fn go_limits(self) -> GoLimits {
        match self {
            TimeControl::Clock {
                base_ms,
                increment_ms,
            } => GoLimits::clock(base_ms, base_ms, increment_ms, increment_ms),
            TimeControl::MoveTime(ms) => GoLimits::movetime(ms),
            TimeControl::Depth(depth) => GoLimits::depth(depth),
            TimeControl::Nodes(nodes) => GoLimits::nodes(nodes),
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Clock {
                base_ms,
                increment_ms,
            } => write!(
                f,
                "tc={}+{}",
                *base_ms as f64 / 1e3,
                *increment_ms as f64 / 1e3
            ),
            TimeControl::MoveTime(ms) => write!(f, "st={}", *ms as f64 / 1e3),
            TimeControl::Depth(depth) => write!(f, "depth={depth}"),
            TimeControl::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

/// Seconds (a non-negative decimal) to whole milliseconds.
pub(crate) fn seconds_to_ms(text: &str) -> Result<u64, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(0.0..=1e9).contains(&seconds) {
        return Err(format!("'{text}' is not a non-negative number of seconds"));
    }
    Ok((seconds * 1e3).round() as u64)
}
