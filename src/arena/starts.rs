//! Engines that cannot be made ready (started, or given their option values): their games are
//! left unplayed, and an engine is given up after a failure that will recur
//! ([`EngineError::recurs_at_start`]) or [`MAX_START_FAILURES`] in a row.

use super::{Floor, Job, Schedule, Seat, lock};
use crate::engine::EngineError;

/// A scheduled game left unplayed because one of its engines could not be made ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotPlayed {
    /// The game.
    pub game_id: u64,
    /// The configured name of the engine that could not start.
    pub engine: String,
    /// Why: the start error, or that the engine was given up.
    pub why: String,
}

/// An engine whose games were no longer scheduled after it failed to start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenUp {
    /// Its configured name.
    pub engine: String,
    /// The last start error.
    pub error: String,
    /// Failed starts in a row, the last included.
    pub failures: u32,
    /// Whether the last error recurs at every start ([`EngineError::recurs_at_start`]).
    pub recurs: bool,
}

/// Failed starts in a row after which an engine is given up even though its failure may pass
/// (a timeout, an exit during start-up); a failure that recurs gives it up at once.
pub const MAX_START_FAILURES: u32 = 3;

/// Start failures of every engine and the games they left unplayed.
pub(super) struct Starts {
    /// By engine index.
    engines: Vec<EngineStarts>,
    /// Every game not played, in order.
    pub(super) not_played: Vec<NotPlayed>,
}

/// One engine's start failures.
#[derive(Default)]
struct EngineStarts {
    /// Failed starts in a row.
    failures: u32,
    given_up: Option<GivenUp>,
}

impl Starts {
    /// No failure yet, for `engines` engines.
    pub(super) fn new(engines: usize) -> Starts {
        Starts {
            engines: (0..engines).map(|_| EngineStarts::default()).collect(),
            not_played: Vec::new(),
        }
    }

    /// The engines given up, in the order of their indices.
    pub(super) fn given_up(&self) -> Vec<GivenUp> {
        self.engines
            .iter()
            .filter_map(|engine| engine.given_up.clone())
            .collect()
    }
}

impl<S: Schedule> Floor<'_, S> {
    /// Whether `job` plays an engine given up: it is then reported as not played.
    pub(super) fn skip_if_given_up(&self, job: &Job) -> bool {
        let mut starts = lock(&self.starts);
        let Some(seat) = [job.game.white, job.game.black]
            .into_iter()
            .find(|seat| starts.engines[seat.index()].given_up.is_some())
        else {
            return false;
        };
        let why = given_up_reason(&self.arena.engines[seat.index()].name);
        self.not_played(&mut starts, job, seat, &why);
        true
    }

    /// Engine `seat` started: its failures in a row are over.
    pub(super) fn started(&self, seat: Seat) {
        lock(&self.starts).engines[seat.index()].failures = 0;
    }

    /// Engine `index` could not be made ready for `job`: the game is not played, and the
    /// engine is given up (its queued games dropped) when the failure recurs or after
    /// [`MAX_START_FAILURES`] in a row.
    pub(super) fn start_failed(&self, job: &Job, seat: Seat, error: &EngineError) {
        let why = error.to_string();
        self.console
            .say(&format!("Game {} not played: {why}", job.game.game_id));
        let mut starts = lock(&self.starts);
        self.not_played(&mut starts, job, seat, &why);
        let engine = &mut starts.engines[seat.index()];
        if engine.given_up.is_some() {
            return;
        }
        engine.failures += 1;
        let recurs = error.recurs_at_start();
        if !recurs && engine.failures < MAX_START_FAILURES {
            return;
        }
        let failures = engine.failures;
        let name = &self.arena.engines[seat.index()].name;
        engine.given_up = Some(GivenUp {
            engine: name.clone(),
            error: why,
            failures,
            recurs,
        });
        let dropped = self.walk.drop_engine(seat);
        let why = given_up_reason(name);
        for queued in &dropped {
            self.not_played(&mut starts, queued, seat, &why);
        }
        self.console.say(&format!(
            "Giving up engine '{name}' after {failures} failed start{}: its {} other queued games are not played",
            if failures == 1 { "" } else { "s" },
            dropped.len()
        ));
    }

    fn not_played(&self, starts: &mut Starts, job: &Job, seat: Seat, why: &str) {
        starts.not_played.push(NotPlayed {
            game_id: job.game.game_id,
            engine: self.arena.engines[seat.index()].name.clone(),
            why: why.to_string(),
        });
        self.walk.not_played(job);
        self.console.dec_length();
    }
}

/// Why the games of an engine given up are not played.
fn given_up_reason(engine: &str) -> String {
    format!("engine '{engine}' was given up after failing to start")
}
