//! Engines that cannot start: their games are left unplayed, and an engine is given up after a
//! failure that will recur ([`EngineError::recurs_at_start`]) or [`MAX_START_FAILURES`] in a row.

use super::{Shared, lock};
use crate::engine::EngineError;
use crate::tournament::schedule::ScheduledGame;

/// A scheduled game left unplayed because one of its engines could not start.
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
    pub(super) engines: Vec<EngineStarts>,
    /// Every game not played, in order.
    pub(super) not_played: Vec<NotPlayed>,
}

/// Start failures of one engine.
#[derive(Default)]
pub(super) struct EngineStarts {
    /// Failed starts since its last successful one (by any worker).
    pub(super) failures: u32,
    /// Set once it is given up: its games are no longer played.
    pub(super) given_up: Option<GivenUp>,
}

impl Shared<'_> {
    /// True, noting `game` as not played, when one of its engines was given up (after `game`
    /// was taken from the queue).
    pub(super) fn skip_if_given_up(&self, game: &ScheduledGame) -> bool {
        let mut starts = lock(&self.starts);
        let Some(index) = [game.white, game.black]
            .into_iter()
            .find(|&index| starts.engines[index].given_up.is_some())
        else {
            return false;
        };
        let why = given_up_reason(&self.config.engines[index].name);
        self.not_played(&mut starts, game.game_id, index, &why);
        true
    }

    /// Notes that engine `index` started: its failures in a row start again from zero.
    pub(super) fn started(&self, index: usize) {
        lock(&self.starts).engines[index].failures = 0;
    }

    /// Leaves `game` unplayed because engine `index` could not start (saying so), and gives
    /// the engine up after a failure that recurs or [`MAX_START_FAILURES`] in a row: its games
    /// still queued are dropped.
    pub(super) fn start_failed(&self, game: &ScheduledGame, index: usize, error: &EngineError) {
        let why = error.to_string();
        self.say(&format!("Game {} not played: {why}", game.game_id));
        let mut starts = lock(&self.starts);
        self.not_played(&mut starts, game.game_id, index, &why);
        let engine = &mut starts.engines[index];
        if engine.given_up.is_some() {
            return;
        }
        engine.failures += 1;
        let recurs = error.recurs_at_start();
        if !recurs && engine.failures < MAX_START_FAILURES {
            return;
        }
        let failures = engine.failures;
        let name = &self.config.engines[index].name;
        engine.given_up = Some(GivenUp {
            engine: name.clone(),
            error: why,
            failures,
            recurs,
        });
        let involves = |queued: &ScheduledGame| queued.white == index || queued.black == index;
        let dropped: Vec<ScheduledGame> = {
            let mut queue = lock(&self.queue);
            let dropped = queue.iter().copied().filter(involves).collect();
            queue.retain(|queued| !involves(queued));
            dropped
        };
        let why = given_up_reason(name);
        for queued in &dropped {
            self.not_played(&mut starts, queued.game_id, index, &why);
        }
        self.say(&format!(
            "Giving up engine '{name}' after {failures} failed start{}: its {} other queued games are not played",
            if failures == 1 { "" } else { "s" },
            dropped.len()
        ));
    }

    /// Records `game_id` as not played because of engine `index`; the progress bar no longer
    /// counts it.
    fn not_played(&self, starts: &mut Starts, game_id: u64, index: usize, why: &str) {
        starts.not_played.push(NotPlayed {
            game_id,
            engine: self.config.engines[index].name.clone(),
            why: why.to_string(),
        });
        self.progress.dec_length(1);
    }
}

/// Why a game of an engine given up is not played.
fn given_up_reason(engine: &str) -> String {
    format!("engine '{engine}' was given up after failing to start")
}
