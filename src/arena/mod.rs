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

pub mod claims;
pub mod console;
pub mod overload;
pub mod prepare;
mod starts;
mod worker;

pub use crate::run_dir::file_safe;
pub use console::Console;
pub use starts::{GivenUp, MAX_START_FAILURES, NotPlayed};
pub use worker::{game_record, launch};

use crate::engine::EngineDescription;
use crate::game::{self, Adjudication};
use crate::openings::Opening;
use crate::records::{GameRecord, RecordsError, ResultsWriter};
use crate::rules::{ByColor, Rules};
use starts::Starts;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The shortest time between two writes of a run's report while it plays.
pub const REPORT_INTERVAL: Duration = Duration::from_secs(2);

/// A report refresh waits at least this many times as long as the last one took, so that a
/// report of many games costs at most a tenth of the run's time.
pub const REPORT_COST_FACTOR: u32 = 10;

/// How long a worker waits before asking a schedule again that answered [`Next::Wait`].
pub const WAIT_POLL: Duration = Duration::from_millis(20);

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// 1-based number of the game in the run (games.csv's `game_id`).
    pub game_id: u64,
    /// 1-based round (a tune's iteration).
    pub round: u32,
    /// 1-based game-pair number; both games of a pair share it.
    pub pair: u64,
    /// Index (into the arena's engines) of the engine playing White.
    pub white: usize,
    /// Index of the engine playing Black.
    pub black: usize,
    /// 0-based index of the opening in the book.
    pub opening: usize,
}

/// A game a schedule asks the arena to play.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The game: its ids, its seats and its opening.
    pub game: ScheduledGame,
    /// The unit of the schedule the game belongs to (a tournament's game pair, a tune's
    /// iteration): after the deadline only units already begun are played on.
    pub unit: u64,
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
    /// A game played with the engines as described and no extra tag.
    pub fn plain(game: ScheduledGame, unit: u64) -> Job {
        Job {
            game,
            unit,
            values: ByColor::default(),
            tags: Vec::new(),
            start: None,
            pick: None,
        }
    }
}

/// A schedule's answer to "what next?".
#[derive(Debug)]
pub enum Next {
    /// Play this game.
    Play(Job),
    /// Nothing to play now, but there may be later (a tune waiting for the iterations its
    /// next one starts from): ask again after [`WAIT_POLL`].
    Wait,
    /// Nothing left to play for this worker.
    Done,
    /// The deadline keeps the next unit from starting (asked with `closing`): the run stops
    /// for the time limit, and `--resume` plays the rest.
    Closed,
}

/// What a finished game does to the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on: the schedule's [`Schedule::next`] decides what starts.
    Continue,
    /// Stop now: no job starts any more, whatever [`Schedule::next`] would say (games in
    /// flight are finished and recorded).
    Stop,
}

/// What a run is: the questions a kind of run answers, asked by the arena's workers (from
/// several threads at once: implementations keep their state behind a lock).
pub trait Schedule: Sync {
    /// The next game to play. With `closing` (the deadline passed) only games of units
    /// already begun may be handed out.
    fn next(&self, closing: bool) -> Next;

    /// `job` finished as `played` and is recorded as `record` (games.csv, games.pgn): count
    /// it, say what it means on `console`, and tell whether the run goes on.
    fn finished(
        &self,
        job: &Job,
        record: &GameRecord,
        played: &game::PlayedGame,
        console: &Console,
    ) -> Flow;

    /// `job` will not be played: an engine of it could not be made ready. The schedule keeps
    /// no game waiting on it.
    fn not_played(&self, job: &Job);

    /// Whether `job`, finished, may still be recorded: `false` for a worker whose claim on
    /// the game's unit was taken over by another worker (who plays it again), so that the
    /// run holds each game once.
    fn may_record(&self, _job: &Job) -> bool {
        true
    }

    /// `job` finished but was not recorded ([`Schedule::may_record`] said no): the schedule
    /// keeps nothing waiting on it.
    fn dropped(&self, _job: &Job) {}

    /// Engine `engine` was given up: remove every queued game it plays and return them (they
    /// are reported as not played).
    fn drop_engine(&self, engine: usize) -> Vec<Job>;

    /// The progress line's message: the score so far (and the LLR, for an SPRT).
    fn score_line(&self) -> String;

    /// Engine `engine` started a process that says `id name id_name` (for the report).
    fn engine_started(&self, _engine: usize, _id_name: Option<&str>) {}

    /// The interim line printed every `rating_interval` games when stdout is not a terminal,
    /// after `recorded` of `total` games; `None` for none.
    fn interim(&self, recorded: u64, total: u64) -> Option<String>;

    /// Rewrites the run's report files while it plays (`recorded` of `total` games). Called at
    /// most every [`REPORT_INTERVAL`] (and [`REPORT_COST_FACTOR`] times the last refresh's
    /// cost).
    ///
    /// # Errors
    /// The files cannot be read or written; the arena warns once and plays on.
    fn refresh_report(&self, recorded: u64, total: u64) -> Result<(), ReportError>;
}

/// Why a report could not be refreshed (any error of the schedule's report; shown, never
/// fatal).
pub type ReportError = Box<dyn std::error::Error + Send + Sync>;

/// Everything the arena needs to play a schedule's games.
pub struct Arena<'a> {
    /// The engines the schedule's seats index.
    pub engines: &'a [EngineDescription],
    /// The rules every move is judged by.
    pub rules: Rules,
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
    /// The CPUs the engines are pinned to (`--affinity`), checked by [`check_affinity`];
    /// `None`: not pinned.
    pub affinity: Option<Vec<usize>>,
    /// No new unit starts after it (`--max-time`).
    pub deadline: Option<Instant>,
    /// Interim lines every this many games off a terminal (0: none).
    pub rating_interval: u64,
    /// The games of the run and those recorded by earlier sessions: the progress line's
    /// length and start.
    pub progress: (u64, u64),
    /// Set by the signal handler: no game starts, games in flight are dropped.
    pub stop: &'a AtomicBool,
}

/// How the arena stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The schedule had nothing left (every game played, or it stopped on a verdict).
    Done,
    /// The stop flag was set (a signal): `--resume` continues.
    Interrupted,
    /// The deadline kept a unit from starting: `--resume` continues.
    TimeLimit,
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
}

/// The arena while it plays: what the workers share.
struct Floor<'a> {
    arena: &'a Arena<'a>,
    schedule: &'a dyn Schedule,
    writer: Mutex<ResultsWriter>,
    console: Console,
    starts: Mutex<Starts>,
    /// Set when the schedule stopped or a record could not be written.
    halt: AtomicBool,
    out_of_time: AtomicBool,
    write_error: Mutex<Option<RecordsError>>,
    report: Mutex<ReportClock>,
    /// The recent losses on time, to name an overloaded machine.
    overload: Mutex<overload::OverloadWatch>,
}

/// When the report was last written and what it cost.
#[derive(Default)]
struct ReportClock {
    last: Option<Instant>,
    cost: Duration,
    warned: bool,
}

/// Plays `schedule`'s games in `arena`, recording each with `writer` as it ends, until the
/// schedule has nothing left, it stops, the deadline passes or the stop flag is set.
///
/// # Errors
/// A game that cannot be recorded (games.csv or games.pgn): the run stops at once, games in
/// flight are finished but not recorded.
pub fn play(
    arena: &Arena<'_>,
    schedule: &dyn Schedule,
    writer: ResultsWriter,
) -> Result<Played, RecordsError> {
    let floor = Floor {
        arena,
        schedule,
        writer: Mutex::new(writer),
        console: Console::new(arena.progress.0, arena.progress.1),
        starts: Mutex::new(Starts::new(arena.engines.len())),
        halt: AtomicBool::new(false),
        out_of_time: AtomicBool::new(false),
        write_error: Mutex::new(None),
        report: Mutex::new(ReportClock::default()),
        overload: Mutex::new(overload::OverloadWatch::new(cores())),
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
    if let Some(err) = lock(&floor.write_error).take() {
        return Err(err);
    }
    let stopped = if arena.stop.load(Ordering::SeqCst) {
        Stopped::Interrupted
    } else if floor.out_of_time.load(Ordering::SeqCst) {
        Stopped::TimeLimit
    } else {
        Stopped::Done
    };
    let starts = floor.starts.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(Played {
        stopped,
        given_up: starts.given_up(),
        not_played: starts.not_played,
    })
}

impl Floor<'_> {
    /// The next job for a worker: none once stopped; waits while the schedule says so.
    fn next_job(&self) -> Option<Job> {
        loop {
            if self.arena.stop.load(Ordering::SeqCst) || self.halt.load(Ordering::SeqCst) {
                return None;
            }
            let closing = self
                .arena
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
            match self.schedule.next(closing) {
                Next::Play(job) => return Some(job),
                Next::Wait => std::thread::sleep(WAIT_POLL),
                Next::Done => return None,
                Next::Closed => {
                    self.out_of_time.store(true, Ordering::SeqCst);
                    return None;
                }
            }
        }
    }

    /// Saves a finished game, warns about its stray lines and fault, and hands it to the
    /// schedule.
    fn record(&self, job: &Job, record: &GameRecord, played: &game::PlayedGame) {
        let mut writer = lock(&self.writer);
        if !self.schedule.may_record(job) {
            self.console.say(&format!(
                "warning: game {} not recorded: the claim on its unit {} was taken over by \
                 another worker, who plays it again",
                record.game_id, job.unit
            ));
            drop(writer);
            self.schedule.dropped(job);
            return;
        }
        let ending = played
            .termination
            .is_adjudication()
            .then_some(played.detail.as_str());
        if let Err(err) = writer.append_full(record, &played.infos, ending, &job.tags) {
            lock(&self.write_error).get_or_insert(err);
            self.halt.store(true, Ordering::SeqCst);
            return;
        }
        // The schedule takes the games in file order: the writer is released after it.
        let flow = self.schedule.finished(job, record, played, &self.console);
        drop(writer);
        self.console.inc();
        self.console.set_message(self.schedule.score_line());
        self.warn_about(job, record, played);
        let lost_on_time = record.termination == crate::records::Termination::TimeForfeit;
        let load = || crate::report::html::MachineLoad::now().map(|[one_minute, ..]| one_minute);
        if let Some(warning) = lock(&self.overload).game(lost_on_time, load) {
            self.console.say(&warning);
        }
        if flow == Flow::Stop {
            self.halt.store(true, Ordering::SeqCst);
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
        for side in [crate::rules::Color::White, crate::rules::Color::Black] {
            let stray = &played.stray[side];
            if stray.lines > 0 {
                let name = &self.arena.engines[seats[side]].name;
                self.console.say(&format!(
                    "warning: game {}: {name} wrote {stray}; none was played",
                    record.game_id
                ));
            }
        }
        for (side, warning) in &played.claim_warnings {
            let name = &self.arena.engines[seats[*side]].name;
            self.console.say(&format!(
                "warning: game {}: {name}: {warning}",
                record.game_id
            ));
        }
        if let Some(side) = played.faulty {
            let name = &self.arena.engines[seats[side]].name;
            self.console.say(&format!(
                "warning: game {}: {name} lost by fault ({}): {}",
                record.game_id, played.termination, played.detail
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

/// `--affinity`: refuses a CPU `list` too short for `concurrency` games of two engines of
/// `threads` threads each (each engine of a game gets cores of its own).
///
/// # Errors
/// The refusal in words, naming what is needed and what was given.
pub fn check_affinity(list: &[usize], concurrency: usize, threads: usize) -> Result<(), String> {
    let needed = concurrency.saturating_mul(2).saturating_mul(threads);
    match needed <= list.len() {
        true => Ok(()),
        false => Err(format!(
            "--affinity: {concurrency} games at a time x 2 engines x {} need {needed} CPUs, \
             the list has {}: lower --concurrency or give more CPUs",
            crate::records::plural(threads as u64, "thread"),
            list.len()
        )),
    }
}

/// The CPUs of engine `engine`'s process in worker `worker` (see [`check_affinity`]): each
/// worker has 2 x `threads` CPUs of `list` in turn, the first half for engines of even index,
/// the second for odd ones, so the two engines of a match (and of most games of a round-robin)
/// never share a core.
pub fn affinity_cpus(list: &[usize], threads: usize, worker: usize, engine: usize) -> Vec<usize> {
    let start = worker * 2 * threads + (engine % 2) * threads;
    list.iter().skip(start).take(threads).copied().collect()
}

/// Reads `--affinity`'s list: `all` (every CPU this process may use), or CPUs and ranges
/// separated by commas (`0,2,4-7`), as `taskset -c` takes them.
///
/// # Errors
/// A word that is no CPU number or range, or a CPU past the set's size, named.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, String> {
    if text == "all" {
        let cores = cores();
        return Ok((0..cores).collect());
    }
    let mut cpus = Vec::new();
    for part in text.split(',') {
        let bad = || format!("'{part}' is not a CPU or a range of CPUs (e.g. 0,2,4-7)");
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?),
            None => {
                let cpu: usize = part.parse().map_err(|_| bad())?;
                (cpu, cpu)
            }
        };
        if first > last || last >= 1024 {
            return Err(bad());
        }
        for cpu in first..=last {
            if !cpus.contains(&cpu) {
                cpus.push(cpu);
            }
        }
    }
    Ok(cpus)
}

/// Locks `dir` for this process (`<dir>/.lock`, created with the directory when missing):
/// one bt-arena writes a run directory at a time. The lock lasts as long as the file.
///
/// # Errors
/// [`LockError::Busy`] when another process holds it; [`LockError::Io`] when it cannot be
/// created.
pub fn lock_directory(dir: &Path) -> Result<std::fs::File, LockError> {
    let path = crate::run_dir::RunDir::new(dir).lock();
    let file = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::File::create(&path))
        .map_err(|e| LockError::Io(format!("cannot create {}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(LockError::Busy(dir.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(LockError::Io(format!(
            "cannot lock {}: {e}",
            path.display()
        ))),
    }
}

/// Why a run directory cannot be locked.
#[derive(Debug)]
pub enum LockError {
    /// Another bt-arena is running on the directory.
    Busy(PathBuf),
    /// The lock file cannot be created or locked.
    Io(String),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Busy(dir) => write!(
                f,
                "another bt-arena is running on {} (it holds {}/.lock)",
                dir.display(),
                dir.display()
            ),
            LockError::Io(err) => f.write_str(err),
        }
    }
}

impl std::error::Error for LockError {}

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

    #[test]
    fn affinity_lists_read_are_checked_and_shared_out() {
        assert_eq!(parse_cpu_list("0,2,4-6,2").unwrap(), [0, 2, 4, 5, 6]);
        assert_eq!(
            parse_cpu_list("1-x").unwrap_err(),
            "'1-x' is not a CPU or a range of CPUs (e.g. 0,2,4-7)"
        );
        assert!(parse_cpu_list("3-1").is_err());
        assert!(!parse_cpu_list("all").unwrap().is_empty());
        let list = [0, 1, 2, 3];
        assert_eq!(check_affinity(&list, 2, 1), Ok(()));
        assert_eq!(
            check_affinity(&list, 2, 2).unwrap_err(),
            "--affinity: 2 games at a time x 2 engines x 2 threads need 8 CPUs, the list has 4: \
             lower --concurrency or give more CPUs"
        );
        assert_eq!(affinity_cpus(&list, 1, 0, 0), [0]);
        assert_eq!(affinity_cpus(&list, 1, 0, 1), [1]);
        assert_eq!(affinity_cpus(&list, 1, 1, 2), [2]);
        assert_eq!(affinity_cpus(&list, 2, 0, 1), [2, 3]);
    }
}
