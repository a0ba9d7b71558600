//! The arena: the one place games are played. It plays whatever a [`Schedule`] asks for, with
//! `concurrency` workers that own the engine processes ([`worker`]), and keeps what every kind
//! of run shares in one place:
//!
//! - **seats**: each engine's processes started when first needed, replaced after a fault (or
//!   every game with `restart=on`), its option values set before a game when they changed,
//!   and the start-failure policy ([`starts`]: an engine that cannot start is given up after a
//!   failure that will recur or [`MAX_START_FAILURES`] in a row);
//! - **records**: games.csv and games.pgn appended and flushed as each game ends;
//! - **warnings**: stray lines an engine wrote, claims the rules refute (illegal PVs, false
//!   mate scores, illegal ponder moves: [`crate::game::claims`]), and losses by fault, named
//!   as they happen;
//! - **stopping**: the stop flag (Ctrl-C, SIGTERM, SIGHUP: games in flight are dropped) and
//!   the deadline (`--max-time`: no new unit of the schedule starts, units begun are
//!   finished);
//! - **output**: the progress line on a terminal ([`console`]), interim lines off it every
//!   `rating_interval` games, and the report's refresh at most every [`REPORT_INTERVAL`].
//!
//! A schedule answers the two questions that tell one kind of run from another: what to play
//! next ([`Schedule::next`]: two seats, an opening, a game id, option values and PGN tags), and
//! what a finished game does ([`Schedule::finished`]: go on, or stop). Round-robin and
//! gauntlet tournaments with their SPRT ([`crate::tournament`]) and SPSA tunes
//! ([`crate::tune`]) are two schedules; a new kind of run is a new schedule, never a new
//! runner.
//!
//! Any schedule can be played by a run of workers ([`claims`]): processes on any machines
//! sharing the run directory, each claiming the schedule's next unit (a pair, an iteration, a
//! game) with a file, so that a dead one's unit is played again by another after a lease.
//! `docs/guide/arena.md` is the contributors' page.

pub mod affinity;
pub mod console;
pub mod leases;
pub mod overload;
pub mod prepare;
pub mod recorded;
pub mod schedule;
mod starts;
mod units;
mod worker;

pub use crate::run_dir::{LockError, file_safe, lock_directory};
pub use affinity::{AffinityError, CpuList};
pub use console::Console;
pub use recorded::RecordedUnits;
pub use schedule::{
    Flow, Gate, Job, RecordedGame, ReportError, Schedule, ScheduledGame, Seat, Unit, UnitKind,
};
pub use starts::{GivenUp, MAX_START_FAILURES, NotPlayed};
pub use worker::{game_record, launch};

use crate::engine::EngineDescription;
use crate::game::{self, Adjudication};
use crate::openings::Opening;
use crate::records::{GameRecord, RecordsError, ResultsWriter};
use crate::rules::{ByColor, Rules};
use leases::Leases;
use starts::Starts;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use units::{Next, Walk};

/// The shortest time between two writes of a run's report while it plays.
pub const REPORT_INTERVAL: Duration = Duration::from_secs(2);

/// A report refresh waits at least this many times as long as the last one took, so that a
/// report of many games costs at most a tenth of the run's time.
pub const REPORT_COST_FACTOR: u32 = 10;

/// How long a worker waits before asking a schedule again that answered [`Gate::Wait`].
pub const WAIT_POLL: Duration = Duration::from_millis(20);

/// Everything the arena needs to play a schedule's games.
pub struct Arena<'a> {
    /// The engines the schedule's seats index.
    pub engines: &'a [EngineDescription],
    /// The rules every move is judged by.
    pub rules: Rules,
    /// The board every game is played on: each engine is told it when it starts.
    pub board: crate::rules::Board,
    /// Adjudication rules (off for a tune).
    pub adjudication: &'a Adjudication,
    /// How far the engines' mate claims are checked (`--check-claims`); PVs and ponder moves
    /// are always checked.
    pub checks: game::ClaimChecks,
    /// The openings the schedule's games index.
    pub openings: &'a [Opening],
    /// The directory the engines' logs go to (`<dir>/logs/`).
    pub dir: PathBuf,
    /// Log every engine's protocol traffic.
    pub log: bool,
    /// Games played at the same time.
    pub concurrency: usize,
    /// The CPUs the engines are pinned to (`--affinity`), checked by [`CpuList::check`];
    /// `None`: not pinned.
    pub affinity: Option<CpuList>,
    /// No new unit starts after it (`--max-time`).
    pub deadline: Option<Instant>,
    /// Interim lines every this many games off a terminal (0: none).
    pub rating_interval: u64,
    /// The games of the run and those recorded by earlier sessions: the progress line's
    /// length and start.
    pub progress: (u64, u64),
    /// Set by the signal handler: no game starts, games in flight are dropped.
    pub stop: &'a AtomicBool,
    /// A worker's: makes its directory ([`Arena::dir`]) again when it was removed (a clean-up
    /// script), its config and logs in it, and returns the writer of its new games files.
    /// `None` on one machine and for a shard (their directories are not made again).
    pub remake: Option<&'a Remake<'a>>,
}

/// Makes a worker's removed directory again ([`Arena::remake`]).
pub type Remake<'a> = dyn Fn() -> Result<ResultsWriter, RecordsError> + Sync + 'a;

/// How the arena stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Every unit was played (or could not be started).
    Done,
    /// The schedule reached its verdict ([`Flow::Verdict`], [`Gate::Verdict`]): no new unit
    /// started after it.
    Verdict,
    /// The stop flag was set (a signal): `--resume` continues.
    Interrupted,
    /// The deadline kept a unit from starting: `--resume` continues.
    TimeLimit,
}

/// Why the arena stopped before its schedule was played: nothing starts any more, games in
/// flight are finished but not recorded.
#[derive(Debug)]
pub enum ArenaError<E> {
    /// A game cannot be recorded (games.csv, games.pgn), or the games recorded cannot be
    /// read.
    Records(RecordsError),
    /// The workers' leases (`RUN/claims`) cannot be used.
    Leases {
        /// The leases' directory.
        dir: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The schedule failed (its own files).
    Schedule(E),
    /// A recorded game must not be counted (files of another run, a game twice).
    Game(recorded::BadGame<E>),
}

impl<E: std::fmt::Display> std::fmt::Display for ArenaError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArenaError::Records(err) => err.fmt(f),
            ArenaError::Leases { dir, source } => {
                write!(f, "cannot lease a unit in {}: {source}", dir.display())
            }
            ArenaError::Schedule(err) => err.fmt(f),
            ArenaError::Game(bad) => bad.fmt(f),
        }
    }
}

impl<E: std::error::Error> std::error::Error for ArenaError<E> {}

impl<E> ArenaError<E> {
    /// The same error with the schedule's own failure turned into another type (a kind's
    /// error, which holds its schedule's).
    pub fn map<F>(self, into: impl Fn(E) -> F) -> ArenaError<F> {
        match self {
            ArenaError::Records(err) => ArenaError::Records(err),
            ArenaError::Leases { dir, source } => ArenaError::Leases { dir, source },
            ArenaError::Schedule(err) => ArenaError::Schedule(into(err)),
            ArenaError::Game(bad) => ArenaError::Game(recorded::BadGame {
                path: bad.path,
                game_id: bad.game_id,
                fault: match bad.fault {
                    recorded::GameFault::NotOfSchedule(err) => {
                        recorded::GameFault::NotOfSchedule(into(err))
                    }
                    recorded::GameFault::Twice => recorded::GameFault::Twice,
                },
            }),
        }
    }
}

impl<E> From<RecordsError> for ArenaError<E> {
    fn from(err: RecordsError) -> Self {
        ArenaError::Records(err)
    }
}

impl<E> From<recorded::RecordedError<E>> for ArenaError<E> {
    fn from(err: recorded::RecordedError<E>) -> Self {
        match err {
            recorded::RecordedError::Records(err) => ArenaError::Records(err),
            recorded::RecordedError::Game(bad) => ArenaError::Game(bad),
            recorded::RecordedError::Schedule(err) => ArenaError::Schedule(err),
        }
    }
}

/// What the arena did.
#[derive(Debug)]
pub struct Played {
    /// Why it stopped.
    pub stopped: Stopped,
    /// Games not played because an engine could not be made ready, in the order dropped.
    pub not_played: Vec<NotPlayed>,
    /// Engines given up after start failures, in the order given up.
    pub given_up: Vec<GivenUp>,
    /// Games recorded.
    pub recorded: u64,
    /// The `id name` each engine's processes gave, by configured name.
    pub engine_ids: std::collections::BTreeMap<String, String>,
}

/// The arena while it plays: what the workers share.
struct Floor<'a, S: Schedule> {
    arena: &'a Arena<'a>,
    schedule: &'a S,
    walk: Walk<'a, S>,
    writer: Mutex<ResultsWriter>,
    console: Console,
    starts: Mutex<Starts>,
    /// Set when the schedule stopped or the run failed.
    halt: AtomicBool,
    /// Why the run stopped, when the schedule or the deadline stopped it.
    stopped: Mutex<Option<Stopped>>,
    error: Mutex<Option<ArenaError<S::Error>>>,
    report: Mutex<ReportClock>,
    /// The recent losses on time, to name an overloaded machine.
    overload: Mutex<overload::OverloadWatch>,
    /// Games recorded.
    recorded: std::sync::atomic::AtomicU64,
    /// The `id name` each engine gave, by configured name.
    engine_ids: Mutex<std::collections::BTreeMap<String, String>>,
}

/// When the report was last written and what it cost.
#[derive(Default)]
struct ReportClock {
    last: Option<Instant>,
    cost: Duration,
    warned: bool,
}

/// Plays `schedule`'s units in `arena`, lowest first, recording each game with `writer` as it
/// ends, until every unit is played, the schedule stops, the deadline passes or the stop flag
/// is set. `recorded` reads what the run recorded (read once already:
/// [`RecordedUnits::start`]); with `leases`, this process is one worker of many and plays only
/// the units it leases (and lets go of them at the end).
///
/// # Errors
/// [`ArenaError`]: a game that cannot be recorded, recorded games that cannot be read, leases
/// that cannot be used, the schedule's failure. The run stops at once; games in flight are
/// finished but not recorded.
pub fn play<S: Schedule>(
    arena: &Arena<'_>,
    schedule: &S,
    writer: ResultsWriter,
    leases: Option<&Leases>,
    recorded: RecordedUnits,
) -> Result<Played, ArenaError<S::Error>> {
    let floor = Floor {
        arena,
        schedule,
        walk: Walk::new(schedule, leases, recorded),
        writer: Mutex::new(writer),
        console: Console::new(arena.progress.0, arena.progress.1),
        starts: Mutex::new(Starts::new(arena.engines.len())),
        halt: AtomicBool::new(false),
        stopped: Mutex::new(None),
        error: Mutex::new(None),
        report: Mutex::new(ReportClock::default()),
        overload: Mutex::new(overload::OverloadWatch::new(cores())),
        recorded: std::sync::atomic::AtomicU64::new(0),
        engine_ids: Mutex::default(),
    };
    let cores = cores();
    if let Some(warning) = oversubscription(arena.engines, arena.concurrency.max(1), cores) {
        floor.console.say(&warning);
    }
    floor.console.set_message(schedule.score_line());
    std::thread::scope(|scope| {
        for id in 0..arena.concurrency.max(1) {
            let floor = &floor;
            scope.spawn(move || worker::Worker::new(floor, id).run());
        }
    });
    floor.console.finish();
    // Units in flight when the run stopped are another worker's at once.
    floor.walk.release_all();
    if let Some(err) = lock(&floor.error).take() {
        return Err(err);
    }
    let stopped = match arena.stop.load(Ordering::SeqCst) {
        true => Stopped::Interrupted,
        false => lock(&floor.stopped).unwrap_or(Stopped::Done),
    };
    let starts = floor.starts.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(Played {
        stopped,
        given_up: starts.given_up(),
        not_played: starts.not_played,
        recorded: floor.recorded.into_inner(),
        engine_ids: floor
            .engine_ids
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
    })
}

impl<S: Schedule> Floor<'_, S> {
    /// The next job for a worker: none once stopped; waits while the schedule says so.
    fn next_job(&self) -> Option<Job> {
        loop {
            if self.arena.stop.load(Ordering::SeqCst) || self.halt.load(Ordering::SeqCst) {
                return None;
            }
            if let Err(err) = self.in_place(&mut lock(&self.writer)) {
                self.fail(err);
                return None;
            }
            let closing = self
                .arena
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
            match self.walk.next(closing, &self.console) {
                Next::Play(job) => return Some(job),
                Next::Wait => std::thread::sleep(WAIT_POLL),
                Next::Done(Stopped::Done) => return None,
                Next::Done(why) => {
                    lock(&self.stopped).get_or_insert(why);
                    return None;
                }
                Next::Failed(err) => {
                    self.fail(err);
                    return None;
                }
            }
        }
    }

    /// Makes a worker's directory again when it was removed, with a new `writer`: the
    /// schedule opens its own files again ([`Schedule::remade`]) and every games file is read
    /// again (the games recorded in the directory removed are played again).
    ///
    /// # Errors
    /// The directory or its files cannot be made again.
    fn in_place(&self, writer: &mut ResultsWriter) -> Result<(), ArenaError<S::Error>> {
        let Some(remake) = self.arena.remake else {
            return Ok(());
        };
        if writer.is_in_place() {
            return Ok(());
        }
        *writer = remake()?;
        self.schedule.remade().map_err(ArenaError::Schedule)?;
        self.walk.forget_read();
        self.console.say(&format!(
            "warning: {} was removed: made again; the games it held are played again",
            self.arena.dir.display()
        ));
        Ok(())
    }

    /// Engine `seat` started a process that says `id name id_name`.
    fn engine_started(&self, seat: Seat, id_name: Option<&str>) {
        if let Some(id) = id_name {
            lock(&self.engine_ids).insert(
                self.arena.engines[seat.index()].name.clone(),
                id.to_string(),
            );
        }
    }

    /// Stops the run with `err` (the first error is kept).
    fn fail(&self, err: ArenaError<S::Error>) {
        lock(&self.error).get_or_insert(err);
        self.halt.store(true, Ordering::SeqCst);
    }

    /// Saves a finished game, warns about its stray lines and fault, and hands it to the
    /// schedule.
    fn record(&self, job: &Job, record: &GameRecord, played: &game::PlayedGame) {
        let mut writer = lock(&self.writer);
        if let Err(err) = self.in_place(&mut writer) {
            return self.fail(err);
        }
        if !self.walk.may_record(job) {
            let kind = self.schedule.unit_kind();
            self.console.say(&format!(
                "warning: game {} not recorded: this worker no longer holds the claim on its \
                 {kind} {} (taken over, removed or overwritten): the {kind} is played again by \
                 whoever claims it next",
                record.game_id, job.unit
            ));
            drop(writer);
            self.walk.dropped(job);
            return;
        }
        if let Err(err) = self.schedule.keep(job, played) {
            return self.fail(ArenaError::Schedule(err));
        }
        let ending = played
            .termination
            .is_adjudication()
            .then_some(played.detail.as_str());
        if let Err(err) = writer.append_full(record, &played.infos, ending, &job.tags) {
            return self.fail(ArenaError::Records(err));
        }
        self.recorded.fetch_add(1, Ordering::SeqCst);
        // The schedule takes the games in file order: the writer is released after it. Its
        // record of a unit (a tune's row) is written before the unit's lease is let go of.
        let flow = self.schedule.finished(job, record, played, &self.console);
        if let Err(err) = self.walk.recorded(job) {
            return self.fail(err);
        }
        drop(writer);
        self.console.inc();
        self.console.set_message(self.schedule.score_line());
        self.warn_about(job, record, played);
        let lost_on_time = record.termination == crate::records::Termination::TimeForfeit;
        let load = || crate::report::html::MachineLoad::now().map(|[one_minute, ..]| one_minute);
        if let Some(warning) = lock(&self.overload).game(lost_on_time, load) {
            self.console.say(&warning);
        }
        match flow {
            Flow::Continue => {}
            Flow::Verdict => {
                lock(&self.stopped).get_or_insert(Stopped::Verdict);
                self.walk.verdict();
            }
            Flow::Stop => {
                lock(&self.stopped).get_or_insert(Stopped::Verdict);
                self.halt.store(true, Ordering::SeqCst);
            }
            Flow::Failed(err) => return self.fail(ArenaError::Schedule(err)),
        }
        self.interim();
        self.refresh_report();
    }

    /// Names stray lines, the claims found false or illegal (once per engine, game and kind)
    /// and, when the schedule does not print every game, a loss by fault.
    fn warn_about(&self, job: &Job, record: &GameRecord, played: &game::PlayedGame) {
        let seats = ByColor {
            white: job.game.white,
            black: job.game.black,
        };
        let name = |side: crate::rules::Color| &self.arena.engines[seats[side].index()].name;
        for side in [crate::rules::Color::White, crate::rules::Color::Black] {
            let stray = &played.stray[side];
            if stray.lines > 0 {
                self.console.say(&format!(
                    "warning: game {}: {} wrote {stray}; none was played",
                    record.game_id,
                    name(side)
                ));
            }
        }
        for (side, warning) in &played.claim_warnings {
            self.console.say(&format!(
                "warning: game {}: {}: {warning}",
                record.game_id,
                name(*side)
            ));
        }
        if let Some(side) = played.faulty {
            self.console.say(&format!(
                "warning: game {}: {} lost by fault ({}): {}",
                record.game_id,
                name(side),
                played.termination,
                played.detail
            ));
        }
    }

    /// The interim line every `rating_interval` games, off a terminal, but not at the last
    /// game or after a verdict (the final report follows).
    fn interim(&self) {
        let interval = self.arena.rating_interval;
        let (recorded, total) = self.console.position();
        if interval == 0
            || !recorded.is_multiple_of(interval)
            || recorded >= total
            || self.halt.load(Ordering::SeqCst)
            || lock(&self.stopped).is_some()
            || self.console.is_terminal()
        {
            return;
        }
        if let Some(line) = self.schedule.interim(recorded, total) {
            self.console.say(&line);
        }
    }

    /// Rewrites the report, at most every [`REPORT_INTERVAL`] and at most a tenth of the time.
    fn refresh_report(&self) {
        let Ok(mut clock) = self.report.try_lock() else {
            return;
        };
        let wait = REPORT_INTERVAL.max(clock.cost * REPORT_COST_FACTOR);
        if clock.last.is_some_and(|at| at.elapsed() < wait) {
            return;
        }
        let started = Instant::now();
        let (recorded, total) = self.console.position();
        let written = self.schedule.refresh_report(recorded, total);
        clock.last = Some(Instant::now());
        clock.cost = started.elapsed();
        if let Err(err) = written
            && !clock.warned
        {
            clock.warned = true;
            self.console
                .say(&format!("warning: report.html not updated: {err}"));
        }
    }
}

/// The warning when the games played at once may ask for more threads than the machine has
/// `cores`: `concurrency` games, each with one engine thinking at a time, the most threads
/// one of `engines` is given (`option.Threads`, 1 when not given). Engines then wait for each
/// other's cores: more time forfeits and noisier results. `None` when they fit.
pub fn oversubscription(
    engines: &[EngineDescription],
    concurrency: usize,
    cores: usize,
) -> Option<String> {
    let threads = engine_threads(engines);
    let needed = concurrency.saturating_mul(threads);
    (needed > cores).then(|| {
        format!(
            "warning: {concurrency} games at a time with {} per engine need {needed} cores; \
             this machine has {cores}: the engines will wait for each other's cores (more time \
             forfeits, noisier results)",
            crate::records::plural(threads as u64, "thread")
        )
    })
}

/// The cores the runner may use (`available_parallelism`; 1 where unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The most threads one of `engines` is given (`option.Threads`), 1 when none is.
pub fn engine_threads(engines: &[EngineDescription]) -> usize {
    engines
        .iter()
        .filter_map(|engine| engine.options.get("Threads")?.parse::<usize>().ok())
        .max()
        .unwrap_or(1)
        .max(1)
}

/// A mutex's guard, whether or not another thread panicked holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_threads_than_cores_are_named() {
        let mut engine = crate::engine::EngineKeys::parse(&["cmd=bt-random"])
            .unwrap()
            .into_description(crate::game::TimeControl::MoveTime(100))
            .unwrap();
        assert_eq!(oversubscription(&[engine.clone()], 2, 2), None);
        assert_eq!(
            oversubscription(&[engine.clone()], 3, 2).unwrap(),
            "warning: 3 games at a time with 1 thread per engine need 3 cores; this machine has \
             2: the engines will wait for each other's cores (more time forfeits, noisier results)"
        );
        engine.options.set("threads", "4");
        let warning = oversubscription(&[engine], 1, 2).unwrap();
        assert!(
            warning.contains("with 4 threads per engine need 4 cores"),
            "{warning}"
        );
    }
}
