//! What a kind of run tells the arena: its units and their games ([`Schedule`]), and the
//! nouns they are spoken of in: a [`Unit`] of a [`UnitKind`], a [`Seat`], a [`Job`].
//!
//! A schedule is a sequence of **units** (a tournament's game pairs, a tune's iterations, a
//! datagen run's games), each a fixed list of games decided by the settings alone. The arena
//! opens them lowest first ([`super::units`]), on one machine or as one worker of many, and
//! asks the schedule only what tells one kind of run from another: which units are its own,
//! whether the next may open now, the games of a unit still to play, and what a finished game
//! means. A new kind of run is a new schedule and nothing else: `docs/guide/arena.md`.

use super::Console;
use crate::game::{self, PlayedGame};
use crate::records::{GameRecord, GameResult};
use crate::rules::ByColor;
use std::fmt;

/// A unit of a schedule, numbered from 1: a tournament's game pair, a tune's iteration, a
/// datagen run's game. Its games are fixed by the run's settings; the arena opens units
/// lowest first, and workers lease them one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Unit(pub u64);

impl Unit {
    /// The unit after this one.
    pub fn next(self) -> Unit {
        Unit(self.0.saturating_add(1))
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What a schedule's units are called: in the workers' lease files (`claims/pair-7`) and in
/// messages (`pair 7, claimed by ...`). One word of lowercase letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitKind(&'static str);

impl UnitKind {
    /// A tournament's game pair.
    pub const PAIR: UnitKind = UnitKind("pair");
    /// A tune's iteration.
    pub const ITERATION: UnitKind = UnitKind("iteration");
    /// One game (datagen).
    pub const GAME: UnitKind = UnitKind("game");

    /// A kind named `name` (lowercase letters, as in a file name).
    pub const fn new(name: &'static str) -> UnitKind {
        UnitKind(name)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for UnitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// A seat at the arena: the index of an engine in [`super::Arena::engines`]. A worker thread
/// keeps one process per seat it uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(pub usize);

impl Seat {
    /// The engine's index.
    pub fn index(self) -> usize {
        self.0
    }
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// 1-based number of the game in the run (games.csv's `game_id`).
    pub game_id: u64,
    /// games.csv's `round` column: a tournament's round, a tune's iteration (1-based).
    pub round: u32,
    /// 1-based game-pair number; both games of a pair share it.
    pub pair: u64,
    /// The engine playing White.
    pub white: Seat,
    /// The engine playing Black.
    pub black: Seat,
    /// 0-based index of the opening in the book.
    pub opening: usize,
}

/// A game a schedule asks the arena to play.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The game: its ids, its seats and its opening.
    pub game: ScheduledGame,
    /// The unit of the schedule the game belongs to.
    pub unit: Unit,
    /// Option values (`setoption name value`) the engines of White and Black play this game
    /// with, on top of their own; empty for engines played as described.
    pub values: ByColor<Vec<(String, String)>>,
    /// Tags added to the game's PGN record (`X-TuneIteration`, ...).
    pub tags: Vec<(String, String)>,
    /// The position the game starts from instead of its opening's (datagen's opening after
    /// its random plies); `None` for the opening's.
    pub start: Option<crate::rules::Position>,
    /// Moves drawn among the engines' best lines now and then (datagen's
    /// `--random-multipv`); `None`: every `bestmove` is played.
    pub pick: Option<game::MultiPvPick>,
}

impl Job {
    /// A game of `unit` played with the engines as described and no extra tag.
    pub fn plain(game: ScheduledGame, unit: Unit) -> Job {
        Job {
            game,
            unit,
            values: ByColor::default(),
            tags: Vec::new(),
            start: None,
            pick: None,
        }
    }

    /// Whether `seat` plays in it.
    pub fn involves(&self, seat: Seat) -> bool {
        self.game.white == seat || self.game.black == seat
    }
}

/// A game some process of the run recorded (this one in an earlier session, or another
/// worker), as the arena keeps it to decide what is left of its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedGame {
    /// Its id.
    pub game_id: u64,
    /// Its unit.
    pub unit: Unit,
    /// Its result.
    pub result: GameResult,
}

/// Whether the next unit may open, asked before it opens and before each game of a unit
/// this session began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// It may.
    Open,
    /// Not now, perhaps later (a tune waiting for the iterations its θ starts from, datagen's
    /// games file waiting for an earlier game): ask again after [`super::WAIT_POLL`].
    Wait,
    /// Never: the schedule has its verdict (an SPRT decided). Units an earlier session
    /// began are still finished, so that no game pair stays cut in half.
    Verdict,
}

/// What a finished game does to the run.
#[derive(Debug)]
pub enum Flow<E> {
    /// Go on.
    Continue,
    /// The run's verdict is reached (an SPRT decided): from now on the schedule's
    /// [`Schedule::gate`] answers [`Gate::Verdict`], so no new unit opens and no game of a
    /// unit this session began starts; the units an earlier session began are finished, so
    /// that no game pair stays cut in half. Games in flight are finished and recorded, and no
    /// interim line follows.
    Verdict,
    /// The run is over (datagen's positions are all written): nothing starts any more. Games
    /// in flight are finished and recorded.
    Stop,
    /// The schedule failed (a file of its own cannot be written): nothing starts any more,
    /// and the run ends with this error.
    Failed(E),
}

/// What a run is: the questions a kind of run answers, asked by the arena's workers (from
/// several threads at once: implementations keep their state behind a lock).
pub trait Schedule: Sync {
    /// Why the schedule stops a run: its own files, its own settings.
    type Error: std::error::Error + Send + Sync + 'static;

    /// What its units are called.
    fn unit_kind(&self) -> UnitKind;

    /// This process's first unit after `after` (`None`: its first), or `None` past its last
    /// (a shard plays every Nth).
    fn next_unit(&self, after: Option<Unit>) -> Option<Unit>;

    /// How many games `unit` has.
    fn games_in(&self, unit: Unit) -> usize;

    /// A recorded game (games.csv) as the arena keeps it: its unit, checked to be a game of
    /// this schedule.
    ///
    /// # Errors
    /// A game this schedule never plays (the files of another run).
    fn recorded(&self, game: &GameRecord) -> Result<RecordedGame, Self::Error>;

    /// A game of this process's own games.csv, recorded by an earlier session, in file
    /// order, before any game is played: the running score, a resumed SPRT.
    fn resumed(&self, _game: &GameRecord) {}

    /// A game some process of the run recorded, as the arena reads it (earlier sessions',
    /// other workers', and this session's own, read back), at most once each while its unit
    /// is not complete: what a decision over the whole run is taken from (a stop rule checked
    /// in unit order, so that workers stop where one machine would).
    fn observed(&self, _game: &RecordedGame) {}

    /// Whether `unit` needs nothing more, `games` being its games recorded by any process: by
    /// default when they are all recorded.
    fn is_complete(&self, unit: Unit, games: &[RecordedGame]) -> bool {
        games.len() >= self.games_in(unit)
    }

    /// Whether `unit` may open now (and, for a unit this session opened, whether its next
    /// game may start); what it means may be said on `console`.
    ///
    /// # Errors
    /// The schedule cannot tell (the files it decides by cannot be read): the run stops.
    fn gate(&self, _unit: Unit, _console: &Console) -> Result<Gate, Self::Error> {
        Ok(Gate::Open)
    }

    /// Opens `unit`: its games still to play, in order, `recorded` being those of it already
    /// recorded. Empty when nothing is left to play (the unit is then complete).
    ///
    /// # Errors
    /// The schedule's own failure (a start that cannot be drawn, a row that cannot be
    /// written): the run stops with it.
    fn open(&self, unit: Unit, recorded: &[RecordedGame]) -> Result<Vec<Job>, Self::Error>;

    /// Keeps the schedule's own record of a finished game, before games.csv gets its row
    /// (which makes the game recorded for every process of the run). Nothing by default.
    ///
    /// # Errors
    /// The record cannot be written: the game is not recorded, and the run stops.
    fn keep(&self, _job: &Job, _played: &PlayedGame) -> Result<(), Self::Error> {
        Ok(())
    }

    /// This process's own directory was removed (a clean-up script) and is made again, with
    /// its config and new, empty games files: the schedule opens its own files again there and
    /// forgets what they held (its games are played again). Nothing by default.
    ///
    /// # Errors
    /// Its files cannot be made again: the run stops.
    fn remade(&self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// A directory of the run that was read from is gone (a worker's removed, this process's
    /// own made again): what the schedule keeps of the run's records beside the games (a
    /// tune's rows) is read again from the files that remain, before the games are read
    /// again. Nothing by default.
    ///
    /// # Errors
    /// The files cannot be read: the run stops.
    fn reread(&self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// `job` finished as `played` and is recorded as `record` (games.csv, games.pgn): count
    /// it, say what it means on `console`, and tell whether the run goes on.
    fn finished(
        &self,
        job: &Job,
        record: &GameRecord,
        played: &PlayedGame,
        console: &Console,
    ) -> Flow<Self::Error>;

    /// `job` will not be played here: an engine of it could not be made ready, or (for a
    /// worker) another worker plays its unit now. The schedule keeps nothing waiting on it.
    fn not_played(&self, _job: &Job) {}

    /// Engine `seat` was given up: the games of units not yet opened that it plays, which
    /// are then left out when their units open (they are reported as not played).
    fn drop_engine(&self, _seat: Seat) -> Vec<Job> {
        Vec::new()
    }

    /// The progress line's message: the score so far (and the LLR, for an SPRT).
    fn score_line(&self) -> String;

    /// The interim line printed every `rating_interval` games when stdout is not a terminal,
    /// after `recorded` of `total` games; `None` for none.
    fn interim(&self, _recorded: u64, _total: u64) -> Option<String> {
        None
    }

    /// Rewrites the run's report files while it plays (`recorded` of `total` games). Called at
    /// most every [`super::REPORT_INTERVAL`].
    ///
    /// # Errors
    /// The files cannot be read or written; the arena warns once and plays on.
    fn refresh_report(&self, _recorded: u64, _total: u64) -> Result<(), ReportError> {
        Ok(())
    }
}

/// Why a report could not be refreshed (any error of the schedule's report; shown, never
/// fatal).
pub type ReportError = Box<dyn std::error::Error + Send + Sync>;
