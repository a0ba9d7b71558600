//! A selection as a kind of run on the one session ([`crate::session`]): its seats (the
//! engines as given), its schedule ([`Rounds`]) and its report, rebuilt from the run's games
//! at the end ([`super::report::write_run`]).

use super::SelectError;
use super::config::SelectConfig;
use super::report::{SelectReport, write_run};
use super::schedule::Rounds;
use crate::engine::EngineDescription;
use crate::session::{Ended, Kind, Opened, SessionError, Setup};

/// `bt-arena select`: the best of several candidates against a base.
pub struct Select;

impl Kind for Select {
    type Config = SelectConfig;
    type Schedule<'a> = Rounds<'a>;
    type Error = SelectError;
    type Prospect = ();
    type Outcome = SelectReport;

    fn seats(config: &SelectConfig) -> Vec<EngineDescription> {
        config.engines.clone()
    }

    fn open<'a>(
        config: &'a SelectConfig,
        setup: &Setup<'a>,
    ) -> Result<Opened<Rounds<'a>, ()>, SelectError> {
        Ok(Opened {
            schedule: Rounds::new(config, setup.openings.len())?,
            prospect: (),
            repairs: Vec::new(),
            total_games: config.budget.unwrap_or(0),
        })
    }

    /// The report over every game of the run (of workers, every worker's), written to the
    /// run's directory.
    fn finish(
        config: &SelectConfig,
        _rounds: Rounds<'_>,
        _ended: &Ended,
    ) -> Result<SelectReport, SessionError<SelectError>> {
        write_run(config, false).map_err(|e| SessionError::Kind(SelectError::Report(e)))
    }
}
