//! `bt-arena select`: which of several candidates is best, and does it beat the base, in a
//! fraction of the games of a round-robin, with the error rates stated (`docs/guide/select.md`).
//! A kind of run on the one session ([`crate::session`]): a config, a schedule and a report.
//!
//! * [`config`]: the settings, saved as select.json;
//! * [`procedure`]: the decision code: Paulson's sequential elimination with Fabian's
//!   triangular region, and each candidate's SPRT against the base;
//! * [`feed`]: the games laid out in rounds and fed to the procedure in round order;
//! * [`schedule`]: the rounds as the arena's schedule;
//! * [`kind`]: the selection on the session;
//! * [`report`] and `page`: the text report, summary.json and report.html, rebuilt from the
//!   run directory;
//! * [`simulate`]: selections over game pairs drawn from the model, and what they are
//!   measured against.

pub mod config;
pub mod feed;
pub mod kind;
mod page;
pub mod procedure;
pub mod report;
pub mod schedule;
pub mod simulate;

pub use config::{ConfigError, SelectConfig};
pub use kind::Select;
pub use report::{ReportError, SelectReport};

use std::fmt;

/// Why a selection stops: a recorded game that is not of it, its test's settings, its report.
#[derive(Debug)]
pub enum SelectError {
    /// A recorded game played by other engines than its place in the selection says.
    NotScheduled {
        /// The game.
        game_id: u64,
        /// White and Black as recorded.
        played: (String, String),
        /// White and Black as its place says.
        scheduled: (String, String),
    },
    /// The test against the base refuses the settings.
    Test(crate::stats::SprtSpecError),
    /// The report cannot be made.
    Report(ReportError),
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::NotScheduled {
                game_id,
                played,
                scheduled,
            } => write!(
                f,
                "game {game_id} was played by {} vs {}, but the selection plays {} vs {} there",
                played.0, played.1, scheduled.0, scheduled.1
            ),
            SelectError::Test(err) => write!(f, "the test against the base: {err}"),
            SelectError::Report(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for SelectError {}
