//! A tune on the arena: SPSA iterations as a [`Schedule`] ([`crate::arena`] plays the games,
//! with everything a tournament has: fault and stray warnings, the start-failure policy,
//! `--max-time`, the progress line; its interim output is a line per iteration), tune.csv
//! appended as each iteration ends, and `--resume`.
//!
//! **A fixed lag.** Iteration i starts from θ after exactly the iterations 1..i−L (`--lag L`,
//! saved in tune.json and, for a sharded tune, in its identity), folded in iteration order
//! ([`super::iterations::theta_after`]); when one of them has not finished, iteration i waits
//! for it. So θ at every iteration, and every game's option values, are a function of the
//! seed and the settings alone, whatever the timing, the concurrency or the number of shards:
//! a tune repeats bit for bit (with deterministic engines, its games too). L = 1 is plain
//! sequential SPSA; a larger L keeps more games in flight at the price of a staler θ. The
//! default keeps the first start's workers busy: `shards · ⌈concurrency / (2 · pairs)⌉`.
//!
//! **Games.** Iteration k's game pairs are pairs `(k − 1) · P + 1 ..= k · P` of the run (P =
//! `pairs`), its games `(k − 1) · 2P + 1 ..= k · 2P`, so a game's id depends only on the
//! schedule. Pair j (from 0) plays the opening numbered `(k − 1) · P + j` in the book's order
//! (sequential, or the seeded shuffle of a tournament), tune+ White in its first game. A
//! resumed tune keeps the games of an iteration a kill cut off (they count in it) and plays
//! only its missing ones, as a tournament finishes a pair cut in half.
//!
//! **Faults.** A game lost by fault (crash, stall, time forfeit, illegal move) is a loss of
//! the side at fault, as in fishtest and OpenBench (a parameter value can be what makes an
//! engine crash); each is warned about as it happens, and counted in the final lines,
//! summary.json and report.html. The exit code is the tournament's rule: faults alone do not
//! change it.

use super::config::TuneConfig;
use super::iterations::{IterationRecord, IterationsError, IterationsFile, theta_after};
use super::params::{ParamsError, TuneParam};
use super::report::{self, Snapshot};
use super::shard::{self, ShardError};
use super::spsa::{self, Perturbation};
use crate::arena::claims::{Claimed, RecordedGame, UnitClaims};
use crate::arena::{
    self, Arena, Console, Flow, GivenUp, Job, LockError, Next, NotPlayed, Schedule, ScheduledGame,
    Stopped, lock,
};
use crate::engine::{Engine, EngineError};
use crate::game::{self, Adjudication};
use crate::openings::spec::opening_sequence;
use crate::records::{GameRecord, GamesReader, RecordsError};
use crate::report::EngineFaults;
use crate::rules::ByColor;
use crate::run_dir::RunDir;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Why a tune stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneFinish {
    /// Every iteration (of this shard) was played.
    Completed,
    /// Stopped by a signal (Ctrl-C, SIGTERM, SIGHUP); `--resume` continues.
    Interrupted,
    /// `--max-time` passed: no iteration started after it; `--resume` continues.
    TimeLimit,
    /// Games could not be played (an engine could not start or refused its values): the
    /// iterations after them are not played; `--resume` tries again.
    NotPlayed,
}

/// What a tune produced.
#[derive(Debug)]
pub struct TuneReport {
    /// Why it stopped.
    pub finish: TuneFinish,
    /// θ after every finished iteration (as tune.csv gives it), one value per parameter.
    pub theta: Vec<f64>,
    /// Iterations finished (earlier sessions and other shards included).
    pub finished: u64,
    /// Losses by fault of tune+ and tune−, over every game of this directory.
    pub faults: Vec<EngineFaults>,
    /// Games not played because an engine could not be made ready.
    pub not_played: Vec<NotPlayed>,
    /// Engines given up after start failures.
    pub given_up: Vec<GivenUp>,
    /// What `--strict` fails the tune on, over every game of this directory (a sharded
    /// tune's: every shard's): [`crate::report::Summary::behaviour_failures`].
    pub failures: Vec<String>,
}

/// What a tune is about to do, known once everything is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunePlan {
    /// Iterations of the tune.
    pub iterations: u64,
    /// Iterations already finished (by an earlier session).
    pub finished: u64,
}

/// How a tune session runs: the signal flag and the deadline.
#[derive(Clone, Copy, Debug)]
pub struct TuneSession<'a> {
    /// Continue the tune in `config.out` (else it must hold no tune).
    pub resume: bool,
    /// Set by the signal handler: no game starts, games in flight are dropped.
    pub stop: &'a AtomicBool,
    /// `--max-time`: no iteration starts after it.
    pub deadline: Option<Instant>,
    /// Interim lines every this many games off a terminal (0: none; a tune prints a line
    /// per iteration instead).
    pub rating_interval: u64,
    /// How far the engines' mate claims are checked (`--check-claims`).
    pub checks: crate::game::ClaimChecks,
}

/// Errors that stop a tune.
#[derive(Debug)]
pub enum TuneError {
    /// A parameter the engine cannot take (a bad command line or parameters file).
    Params(ParamsError),
    /// The book cannot be used.
    Book(crate::openings::BookError),
    /// The run directory cannot be locked.
    Lock(LockError),
    /// The engine cannot start for the check of its options.
    Engine(EngineError),
    /// tune.csv cannot be read or written.
    Iterations(IterationsError),
    /// games.csv, games.pgn, summary.json or report.html cannot be read or written.
    Results(RecordsError),
    /// The run directory (of this shard, when `shard` is given) holds a tune already.
    OutputExists {
        /// The tune's directory (a sharded tune's, shared by its shards).
        out: PathBuf,
        /// The shard, if any.
        shard: Option<crate::run_dir::Shard>,
    },
    /// A shard that cannot join its tune, or the other shards' files cannot be read.
    Shard(ShardError),
    /// games.csv holds a game that is not of this tune's schedule.
    Resume(String),
}

impl std::fmt::Display for TuneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TuneError::Params(err) => err.fmt(f),
            TuneError::Book(err) => err.fmt(f),
            TuneError::Lock(err) => err.fmt(f),
            TuneError::Engine(err) => err.fmt(f),
            TuneError::Iterations(err) => err.fmt(f),
            TuneError::Results(err) => err.fmt(f),
            TuneError::Shard(err) => err.fmt(f),
            TuneError::Resume(err) => f.write_str(err),
            TuneError::OutputExists { out, shard } => {
                let shard = shard.map(|s| format!(" --shard {s}")).unwrap_or_default();
                write!(
                    f,
                    "{} already holds a tune: continue it with `bt-arena tune --resume {0}{1}`, \
                     or choose another --out",
                    out.display(),
                    shard
                )
            }
        }
    }
}

impl std::error::Error for TuneError {}

impl From<RecordsError> for TuneError {
    fn from(err: RecordsError) -> Self {
        TuneError::Results(err)
    }
}

impl From<IterationsError> for TuneError {
    fn from(err: IterationsError) -> Self {
        TuneError::Iterations(err)
    }
}

impl From<LockError> for TuneError {
    fn from(err: LockError) -> Self {
        TuneError::Lock(err)
    }
}

/// Runs (or, with `session.resume`, continues) the tune of `config` in `config.out` on the
/// arena. `announce` is called once every check has passed, before any game starts.
///
/// # Errors
/// [`TuneError`]: a parameter the engine refuses, an engine that cannot start for the check
/// of its options, an unusable book or run directory, results files that cannot be read or
/// written, games.csv holding games of another schedule.
pub fn run(
    config: &TuneConfig,
    session: TuneSession<'_>,
    announce: impl FnOnce(TunePlan),
) -> Result<TuneReport, TuneError> {
    let dir = config.dir();
    let run = RunDir::new(&dir);
    let games_csv = run.games_csv();
    if !session.resume && [&games_csv, &run.tune_csv()].iter().any(|f| f.exists()) {
        return Err(TuneError::OutputExists {
            out: config.out.clone(),
            shard: config.shard,
        });
    }
    let openings = crate::openings::load_openings(config.openings.file.as_deref(), config.rules)
        .map_err(TuneError::Book)?;
    let _lock = arena::lock_directory(&dir)?;
    std::fs::create_dir_all(run.logs())
        .map_err(|e| RecordsError::io(&dir, "cannot create the directory", e))?;
    let sides = config.sides();
    let probe = Engine::start(&arena::launch(&dir, config.log, &sides[0], 0), config.rules)
        .map_err(TuneError::Engine)?;
    let checked = config.check_params(probe.options());
    probe.quit();
    checked.map_err(TuneError::Params)?;
    config.save(&dir)?;
    let (log, mut finished) = IterationsFile::open(&dir, &config.params, config.spsa.iterations)?;
    // Opened first: it cuts a row torn by a kill before games.csv is read.
    let writer = crate::run::settings::results_writer(
        &dir,
        &config.event,
        config.rules,
        &config.sides(),
        config.pgn_comments,
    )?;
    let recorded = Recorded::read(config, &games_csv, &finished)?;
    if config.is_spread() {
        for (iteration, record) in shard::others(config).map_err(TuneError::Shard)? {
            finished.entry(iteration).or_insert(record);
        }
    }
    announce(TunePlan {
        iterations: config.spsa.iterations,
        finished: finished.len() as u64,
    });
    let games_per = 2 * u64::from(config.spsa.pairs);
    let own: u64 = (1..=config.spsa.iterations)
        .filter(|&k| config.plays(k))
        .count() as u64;
    let own_done = finished.keys().filter(|&&k| config.plays(k)).count() as u64;
    let progress_done = own_done * games_per + recorded.partial_games();
    let mut schedule = Iterations::new(config, &openings, log, finished, recorded);
    if let (Some(worker), Some(lease)) = (&config.worker, config.lease_ms) {
        let lease = Duration::from_millis(lease);
        schedule.claims = Some(
            UnitClaims::new(&config.out, worker, lease, "iteration", |game| {
                u64::from(game.round)
            })
            .map_err(|e| RecordsError::io(RunDir::new(&config.out).claims(), "cannot create", e))?,
        );
    }
    let adjudication = Adjudication::default();
    let arena = Arena {
        engines: &sides,
        rules: config.rules,
        adjudication: &adjudication,
        checks: session.checks,
        openings: &openings,
        dir: dir.clone(),
        log: config.log,
        concurrency: config.concurrency,
        affinity: None,
        deadline: session.deadline,
        rating_interval: session.rating_interval,
        progress: (own * games_per, progress_done),
        stop: session.stop,
    };
    let played = arena::play(&arena, &schedule, writer)?;
    if let Some(claims) = &schedule.claims {
        // Iterations in flight when the tune stopped are another worker's at once.
        claims.release_all();
    }
    if let Some(err) = lock(&schedule.error).take() {
        return Err(err);
    }
    let mut state = schedule
        .state
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    let mut snapshot = state.snapshot(config, false);
    let mut files = vec![games_csv];
    if config.is_spread() {
        state.absorb(config).map_err(TuneError::Shard)?;
        snapshot = state.snapshot(config, false);
        // The whole tune's page counts every shard's or worker's faults.
        files = shard::member_dirs(&config.out)
            .map_err(|e| TuneError::Shard(ShardError::RunDir(e)))?
            .iter()
            .map(RunDir::games_csv)
            .collect();
        snapshot.faults = report::read_faults(&files)?;
    }
    // A worker's iterations are every iteration; other workers' rows count.
    let all_own_done = (1..=config.spsa.iterations)
        .filter(|&k| config.plays(k))
        .all(|k| state.finished.contains_key(&k));
    report::write_all(&config.out, &snapshot)?;
    let finish = match played.stopped {
        _ if all_own_done => TuneFinish::Completed,
        Stopped::Interrupted => TuneFinish::Interrupted,
        Stopped::TimeLimit => TuneFinish::TimeLimit,
        Stopped::Done if !played.not_played.is_empty() => TuneFinish::NotPlayed,
        Stopped::Done => TuneFinish::Interrupted,
    };
    Ok(TuneReport {
        finish,
        theta: snapshot.theta,
        finished: state.finished.len() as u64,
        faults: state.faults.to_vec(),
        not_played: played.not_played,
        given_up: played.given_up,
        failures: crate::report::Summary::behaviour_failures_of(&files)?,
    })
}

/// What games.csv holds of iterations tune.csv lacks (cut off by a kill), and the faults of
/// every game in it.
#[derive(Debug)]
struct Recorded {
    /// By iteration: (game index in the iteration, whether tune+ won).
    partial: HashMap<u64, Vec<(u32, bool)>>,
    /// Losses by fault of tune+ and tune−.
    faults: [EngineFaults; 2],
}

impl Recorded {
    /// Reads games.csv of `config`'s directory (streamed): each game must be where the
    /// schedule puts it.
    fn read(
        config: &TuneConfig,
        games_csv: &std::path::Path,
        finished: &BTreeMap<u64, IterationRecord>,
    ) -> Result<Recorded, TuneError> {
        let mut recorded = Recorded {
            partial: HashMap::new(),
            faults: report::no_faults(),
        };
        if !games_csv.exists() {
            return Ok(recorded);
        }
        let games = 2 * u64::from(config.spsa.pairs);
        for game in GamesReader::open(games_csv)? {
            let game = game?;
            report::count_fault(&mut recorded.faults, &game);
            let iteration = u64::from(game.round);
            let index = game
                .game_id
                .wrapping_sub(1)
                .wrapping_sub((iteration - 1) * games);
            let plus_white = index % 2 == 0;
            let expected = if plus_white {
                super::config::PLUS
            } else {
                super::config::MINUS
            };
            if iteration == 0
                || index >= games
                || game.white != expected
                || !config.plays(iteration)
            {
                return Err(TuneError::Resume(format!(
                    "cannot resume: {} game {} (iteration {iteration}, {} as White) is not \
                     where this tune's schedule puts it (a tune started by an older bt-arena, \
                     or files of another tune): finish it with that version or start a new tune",
                    games_csv.display(),
                    game.game_id,
                    game.white
                )));
            }
            if !finished.contains_key(&iteration) {
                let plus_won = game.winner_name() == super::config::PLUS;
                recorded
                    .partial
                    .entry(iteration)
                    .or_default()
                    .push((u32::try_from(index).unwrap_or(u32::MAX), plus_won));
            }
        }
        Ok(recorded)
    }

    /// Games recorded of unfinished iterations.
    fn partial_games(&self) -> u64 {
        self.partial.values().map(|games| games.len() as u64).sum()
    }
}

/// An iteration started and not finished.
#[derive(Debug)]
struct OpenIteration {
    step: Perturbation,
    /// Its games by index: handed out (or recorded by an earlier session).
    handed: Vec<bool>,
    done: u32,
    wins: u32,
    losses: u32,
}

/// The tune's progress, under one lock.
#[derive(Debug)]
struct State {
    /// Every finished iteration (this shard's and, as last read, the others').
    finished: BTreeMap<u64, IterationRecord>,
    /// θ after exactly iterations 1..=`folded` (the lag's fold), and `folded`.
    folded: u64,
    folded_theta: Vec<f64>,
    /// θ after every finished iteration, for the lines and the report.
    theta: Vec<f64>,
    /// Started and unfinished, by iteration.
    open: BTreeMap<u64, OpenIteration>,
    /// The next iteration to start (of this shard's, the lowest not finished nor open).
    next: u64,
    /// An iteration one of whose games will not be played: none after it starts.
    blocked: Option<u64>,
    /// A worker's lowest iteration not known finished (by any worker): where it looks for
    /// the next to claim.
    unfinished: u64,
    /// When the other shards' tune.csv files were last read.
    absorbed: Option<Instant>,
    /// Losses by fault of tune+ and tune−.
    faults: [EngineFaults; 2],
    /// Games of unfinished iterations recorded by an earlier session.
    partial: HashMap<u64, Vec<(u32, bool)>>,
}

/// Why no iteration opens now, as the arena is told ([`Next`] without a game).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NotOpened {
    /// Every iteration is started (or the tune stops).
    Done,
    /// Waiting: for the lag's iterations, or for other workers' claims.
    Wait,
    /// The deadline passed: no iteration starts.
    Closed,
}

/// How often a shard waiting for other shards' iterations reads their tune.csv files.
const ABSORB_INTERVAL: Duration = Duration::from_millis(250);

impl State {
    /// Takes in the iterations other shards have finished since last read (see
    /// [`super::shard`]).
    fn absorb(&mut self, config: &TuneConfig) -> Result<(), ShardError> {
        self.absorbed = Some(Instant::now());
        let before = self.finished.len();
        for (iteration, record) in shard::others(config)? {
            self.finished.entry(iteration).or_insert(record);
        }
        if self.finished.len() != before {
            self.theta = theta_after(&config.params, self.finished.values());
        }
        Ok(())
    }

    /// θ after exactly iterations 1..=`upto`, folding finished iterations in as far as
    /// needed; `None` while one of them has not finished. Below the fold kept (a worker
    /// taking over an iteration older than the ones it opened), folded again from the start.
    fn theta_upto(&mut self, params: &[TuneParam], upto: u64) -> Option<Vec<f64>> {
        if upto < self.folded {
            return Some(theta_after(
                params,
                self.finished.range(..=upto).map(|(_, r)| r),
            ));
        }
        while self.folded < upto {
            let record = self.finished.get(&(self.folded + 1))?;
            spsa::update(
                params,
                &mut self.folded_theta,
                &record.step,
                record.wins,
                record.losses,
            );
            self.folded += 1;
        }
        Some(self.folded_theta.clone())
    }

    fn snapshot(&self, config: &TuneConfig, in_progress: bool) -> Snapshot {
        Snapshot {
            config: config.clone(),
            records: self.finished.values().cloned().collect(),
            theta: self.theta.clone(),
            in_progress,
            faults: self.faults.to_vec(),
        }
    }
}

/// The iterations of a tune as the arena's [`Schedule`].
struct Iterations<'a> {
    config: &'a TuneConfig,
    /// The book's order: opening index of the run's pair p (from 0) is `sequence[p % len]`.
    sequence: Vec<usize>,
    state: Mutex<State>,
    log: Mutex<IterationsFile>,
    error: Mutex<Option<TuneError>>,
    /// A worker's claims on the tune's iterations (`--worker`): it plays only the iterations
    /// it claims.
    claims: Option<UnitClaims>,
}

impl<'a> Iterations<'a> {
    fn new(
        config: &'a TuneConfig,
        openings: &[crate::openings::Opening],
        log: IterationsFile,
        finished: BTreeMap<u64, IterationRecord>,
        recorded: Recorded,
    ) -> Iterations<'a> {
        let start: Vec<f64> = config.params.iter().map(|p| p.start).collect();
        let theta = theta_after(&config.params, finished.values());
        let mut state = State {
            finished,
            folded: 0,
            folded_theta: start,
            theta,
            open: BTreeMap::new(),
            next: 1,
            blocked: None,
            unfinished: 1,
            absorbed: None,
            faults: recorded.faults,
            partial: recorded.partial,
        };
        state.next = next_own(config, &state, 1);
        Iterations {
            config,
            sequence: opening_sequence(config.openings.order, openings.len().max(1), config.seed),
            state: Mutex::new(state),
            log: Mutex::new(log),
            error: Mutex::new(None),
            claims: None,
        }
    }

    fn games(&self) -> u32 {
        2 * self.config.spsa.pairs
    }

    /// Stops the tune with `err` (the first error is kept).
    fn fail(&self, err: TuneError) {
        lock(&self.error).get_or_insert(err);
    }

    /// Opens iteration `iteration` from θ after iterations 1..iteration−L, when they have all
    /// finished: `false` to wait.
    fn open(&self, state: &mut State, iteration: u64) -> bool {
        let upto = iteration.saturating_sub(self.config.lag.max(1));
        let theta = match state.theta_upto(&self.config.params, upto) {
            Some(theta) => theta,
            None => {
                let stale = state
                    .absorbed
                    .is_none_or(|at| at.elapsed() >= ABSORB_INTERVAL);
                if !self.config.is_spread() || !stale {
                    return false;
                }
                if let Err(err) = state.absorb(self.config) {
                    self.fail(TuneError::Shard(err));
                    return false;
                }
                match state.theta_upto(&self.config.params, upto) {
                    Some(theta) => theta,
                    None => return false,
                }
            }
        };
        let step = spsa::perturb(
            &self.config.spsa,
            &self.config.params,
            &theta,
            iteration,
            self.config.seed,
        );
        let games = self.games() as usize;
        let mut open = OpenIteration {
            step,
            handed: vec![false; games],
            done: 0,
            wins: 0,
            losses: 0,
        };
        for (index, plus_won) in state.partial.remove(&iteration).unwrap_or_default() {
            if let Some(handed) = open.handed.get_mut(index as usize) {
                *handed = true;
                open.done += 1;
                if plus_won {
                    open.wins += 1;
                } else {
                    open.losses += 1;
                }
            }
        }
        state.open.insert(iteration, open);
        state.next = next_own(self.config, state, iteration + 1);
        true
    }

    /// Opens this process's next iteration ([`State::next`]) when it may start: its number,
    /// or what the arena is told (every iteration started, the deadline passed, waiting for
    /// the lag's iterations).
    fn open_next(&self, state: &mut State, closing: bool) -> Result<u64, NotOpened> {
        let iteration = state.next;
        if iteration > self.config.spsa.iterations
            || state.blocked.is_some_and(|blocked| blocked < iteration)
        {
            return Err(NotOpened::Done);
        }
        if closing {
            return Err(NotOpened::Closed);
        }
        if !self.open(state, iteration) {
            return Err(match lock(&self.error).is_some() {
                true => NotOpened::Done,
                false => NotOpened::Wait,
            });
        }
        Ok(iteration)
    }

    /// A worker's next iteration: the lowest no worker finished or holds, claimed and opened
    /// once the iterations its θ starts from have finished (by any worker: workers beyond the
    /// lag wait, so θ repeats bit for bit); the games of it other workers recorded before
    /// they stopped count in it and are not played again. [`Next::Wait`] while the iterations
    /// left are other workers' (to play them again if their worker dies), [`Next::Done`]
    /// once every iteration is finished.
    fn open_claimed(
        &self,
        state: &mut State,
        claims: &UnitClaims,
        closing: bool,
    ) -> Result<u64, NotOpened> {
        if state.blocked.is_some() || lock(&self.error).is_some() {
            return Err(NotOpened::Done);
        }
        if closing {
            return Err(NotOpened::Closed);
        }
        let read = match state
            .absorbed
            .is_none_or(|at| at.elapsed() >= ABSORB_INTERVAL)
        {
            true => state
                .absorb(self.config)
                .map_err(TuneError::Shard)
                .and_then(|()| claims.absorb().map_err(TuneError::Results)),
            false => Ok(()),
        };
        if let Err(err) = read {
            self.fail(err);
            return Err(NotOpened::Done);
        }
        // No iteration below the lowest unfinished one is asked about again.
        claims.forget_below(state.unfinished);
        let mut others = false;
        let mut reread = false;
        let mut iteration = state.unfinished;
        while iteration <= self.config.spsa.iterations {
            if state.finished.contains_key(&iteration) {
                if iteration == state.unfinished {
                    state.unfinished += 1;
                }
                iteration += 1;
                continue;
            }
            if state.open.contains_key(&iteration) {
                iteration += 1;
                continue;
            }
            // Marked done by a worker since its row was last read: read the rows again (a
            // claim left by a worker that ended is never taken over for a finished iteration).
            if claims.is_done(iteration) && !reread {
                reread = true;
                if let Err(err) = state.absorb(self.config) {
                    self.fail(TuneError::Shard(err));
                    return Err(NotOpened::Done);
                }
                continue;
            }
            let upto = iteration.saturating_sub(self.config.lag.max(1));
            if state.theta_upto(&self.config.params, upto).is_none() {
                return Err(NotOpened::Wait);
            }
            // The iteration's record is its row in tune.csv: one to write.
            match claims.claim(iteration, 1, &mut |line| println!("{line}")) {
                Ok(Claimed::Mine) => {
                    let partial =
                        partial_games(self.config, iteration, &claims.recorded_of(iteration));
                    claims.forget(iteration);
                    state.partial.insert(iteration, partial);
                    if !self.open(state, iteration) {
                        claims.release(iteration);
                        return Err(NotOpened::Wait);
                    }
                    return Ok(iteration);
                }
                Ok(Claimed::Held) => {
                    others = true;
                    iteration += 1;
                }
                Err(err) => {
                    self.fail(TuneError::Results(RecordsError::io(
                        RunDir::new(&self.config.out).claims(),
                        "cannot claim an iteration in",
                        err,
                    )));
                    return Err(NotOpened::Done);
                }
            }
        }
        Err(if others {
            NotOpened::Wait
        } else {
            NotOpened::Done
        })
    }

    /// The job of game `index` of the open iteration `iteration`.
    fn job(&self, open: &OpenIteration, iteration: u64, index: u32) -> Job {
        let pairs = u64::from(self.config.spsa.pairs);
        let pair_index = (iteration - 1) * pairs + u64::from(index / 2);
        let opening =
            self.sequence[usize::try_from(pair_index).unwrap_or(usize::MAX) % self.sequence.len()];
        // Seats: 0 = tune+, 1 = tune−; tune+ is White in the first game of each pair.
        let plus_white = index.is_multiple_of(2);
        let (white, black) = if plus_white { (0, 1) } else { (1, 0) };
        let values = |side: &[f64]| -> Vec<(String, String)> {
            self.config
                .params
                .iter()
                .zip(side)
                .map(|(param, &value)| (param.name.clone(), param.format_value(value)))
                .collect()
        };
        let (plus, minus) = (values(&open.step.plus), values(&open.step.minus));
        let options = |values: &[(String, String)]| {
            values
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let (white_values, black_values) = if plus_white {
            (plus, minus)
        } else {
            (minus, plus)
        };
        let tags = vec![
            ("X-TuneIteration".to_string(), iteration.to_string()),
            ("X-WhiteOptions".to_string(), options(&white_values)),
            ("X-BlackOptions".to_string(), options(&black_values)),
        ];
        Job {
            game: ScheduledGame {
                game_id: (iteration - 1) * 2 * pairs + u64::from(index) + 1,
                round: u32::try_from(iteration).unwrap_or(u32::MAX),
                pair: pair_index + 1,
                white,
                black,
                opening,
            },
            unit: iteration,
            values: ByColor {
                white: white_values,
                black: black_values,
            },
            tags,
            start: None,
            pick: None,
        }
    }

    /// Finishes the open iteration `iteration` whose games are all recorded: tune.csv gets its
    /// row, θ moves, and its line is printed.
    fn close(&self, state: &mut State, iteration: u64, console: &Console) -> Flow {
        let Some(open) = state.open.remove(&iteration) else {
            return Flow::Continue;
        };
        if let Some(claims) = &self.claims
            && !claims.holds(iteration)
        {
            console.say(&format!(
                "warning: iteration {iteration} was taken over by another worker (this one \
                 stalled past the lease): that worker writes its row"
            ));
            return Flow::Continue;
        }
        let games = u64::from(self.games());
        let record = IterationRecord {
            first_game: (iteration - 1) * games + 1,
            wins: open.wins,
            losses: open.losses,
            finished: crate::records::now_rfc3339(),
            step: open.step,
        };
        if let Err(err) = lock(&self.log).append(&record) {
            self.fail(err.into());
            return Flow::Stop;
        }
        if let Some(claims) = &self.claims
            && let Err(err) = claims.recorded(iteration)
        {
            self.fail(TuneError::Results(RecordsError::io(
                RunDir::new(&self.config.out).claims(),
                "cannot mark an iteration done in",
                err,
            )));
            return Flow::Stop;
        }
        let latest = state
            .finished
            .keys()
            .next_back()
            .is_none_or(|&k| k < iteration);
        let line = format!(
            "Iteration {iteration}/{} (games {}-{}): tune+ {} - {} tune-; {}",
            self.config.spsa.iterations,
            record.first_game,
            record.first_game + games - 1,
            record.wins,
            record.losses,
            step_text(&self.config.params, &record)
        );
        if latest {
            spsa::update(
                &self.config.params,
                &mut state.theta,
                &record.step,
                record.wins,
                record.losses,
            );
            state.finished.insert(iteration, record);
        } else {
            state.finished.insert(iteration, record);
            state.theta = theta_after(&self.config.params, state.finished.values());
        }
        console.say(&format!(
            "{line}; {}",
            theta_text(&self.config.params, &state.theta)
        ));
        Flow::Continue
    }
}

/// The games of `iteration` other workers recorded, as [`State::partial`] holds them: (game
/// index in the iteration, whether tune+ won).
fn partial_games(
    config: &TuneConfig,
    iteration: u64,
    recorded: &[RecordedGame],
) -> Vec<(u32, bool)> {
    let games = 2 * u64::from(config.spsa.pairs);
    let first = (iteration - 1) * games + 1;
    recorded
        .iter()
        .filter_map(|game| {
            let index = game
                .game_id
                .checked_sub(first)
                .filter(|&index| index < games)?;
            // tune+ is White in the first game of each pair.
            let plus_white = index % 2 == 0;
            let white_won = game.result.winner() == crate::rules::Color::White;
            Some((u32::try_from(index).ok()?, white_won == plus_white))
        })
        .collect()
}

/// The lowest iteration from `from` on that `config`'s process plays and has not finished.
fn next_own(config: &TuneConfig, state: &State, from: u64) -> u64 {
    let mut k = from;
    while k <= config.spsa.iterations && (!config.plays(k) || state.finished.contains_key(&k)) {
        k += 1;
    }
    k
}

impl Schedule for Iterations<'_> {
    /// The next game: one not handed out of the oldest open iteration, else the first of the
    /// next iteration once the iterations it starts from have finished. With `closing`, no
    /// iteration starts.
    fn next(&self, closing: bool) -> Next {
        if lock(&self.error).is_some() {
            return Next::Done;
        }
        let mut state = lock(&self.state);
        loop {
            let open = state.open.iter().find_map(|(&k, open)| {
                open.handed
                    .iter()
                    .position(|handed| !handed)
                    .map(|index| (k, index))
            });
            if let Some((iteration, index)) = open {
                let open = state.open.get_mut(&iteration).expect("found above");
                open.handed[index] = true;
                let index = u32::try_from(index).unwrap_or(u32::MAX);
                return Next::Play(self.job(open, iteration, index));
            }
            let opened = match &self.claims {
                Some(claims) => self.open_claimed(&mut state, claims, closing),
                None => self.open_next(&mut state, closing),
            };
            let iteration = match opened {
                Ok(iteration) => iteration,
                Err(NotOpened::Done) => return Next::Done,
                Err(NotOpened::Wait) => return Next::Wait,
                Err(NotOpened::Closed) => return Next::Closed,
            };
            // An iteration whose games an earlier session recorded in full only needs its row.
            if state.open[&iteration].done == self.games() {
                let console = Console::hidden();
                if self.close(&mut state, iteration, &console) == Flow::Stop {
                    return Next::Done;
                }
            }
        }
    }

    fn finished(
        &self,
        job: &Job,
        record: &GameRecord,
        _played: &game::PlayedGame,
        console: &Console,
    ) -> Flow {
        let mut state = lock(&self.state);
        report::count_fault(&mut state.faults, record);
        let Some(open) = state.open.get_mut(&job.unit) else {
            return Flow::Continue;
        };
        open.done += 1;
        if record.winner_name() == super::config::PLUS {
            open.wins += 1;
        } else {
            open.losses += 1;
        }
        if open.done < self.games() {
            return Flow::Continue;
        }
        self.close(&mut state, job.unit, console)
    }

    fn not_played(&self, job: &Job) {
        let mut state = lock(&self.state);
        let blocked = state.blocked.map_or(job.unit, |k| k.min(job.unit));
        state.blocked = Some(blocked);
        if let Some(claims) = &self.claims {
            // Another worker plays it.
            claims.release(job.unit);
        }
    }

    fn may_record(&self, job: &Job) -> bool {
        self.claims
            .as_ref()
            .is_none_or(|claims| claims.holds(job.unit))
    }

    fn drop_engine(&self, _engine: usize) -> Vec<Job> {
        // Both sides are one engine: nothing after the iteration it left unplayed starts.
        Vec::new()
    }

    fn score_line(&self) -> String {
        let state = lock(&self.state);
        format!(
            "{} of {} iterations  {}",
            state.finished.len(),
            self.config.spsa.iterations,
            theta_text(&self.config.params, &state.theta)
        )
    }

    fn interim(&self, recorded: u64, total: u64) -> Option<String> {
        Some(format!(
            "After {recorded} of {total} games: {}",
            self.score_line()
        ))
    }

    fn refresh_report(&self, _recorded: u64, _total: u64) -> Result<(), arena::ReportError> {
        let snapshot = lock(&self.state).snapshot(self.config, true);
        report::write_all(&self.config.out, &snapshot)?;
        Ok(())
    }
}

/// Most parameters whose θ and flip an iteration's line lists (report.html has them all).
const THETA_SHOWN: usize = 4;

/// θ as an iteration's line ends: `θ Tempo=30.42, Race=118.00`, or for more than
/// [`THETA_SHOWN`] parameters where to find them.
fn theta_text(params: &[TuneParam], theta: &[f64]) -> String {
    if params.len() > THETA_SHOWN {
        return format!("θ of {} parameters in report.html", params.len());
    }
    let values: Vec<String> = params
        .iter()
        .zip(theta)
        .map(|(param, value)| format!("{}={value:.2}", param.name))
        .collect();
    format!("θ {}", values.join(", "))
}

/// Which way an iteration moved each parameter, so a θ that went down reads right: the flip
/// Δ (tune+ played θ + c_k·Δ) and the step's sign, `step Tempo -0.62 (Δ -1)`; for more than
/// [`THETA_SHOWN`] parameters only the count.
fn step_text(params: &[TuneParam], record: &IterationRecord) -> String {
    if params.len() > THETA_SHOWN {
        return format!("{} parameters stepped", params.len());
    }
    let step = &record.step;
    let moves: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(index, param)| {
            let change = spsa::increment(
                step.a_k[index],
                step.c_k[index],
                step.flips[index],
                record.wins,
                record.losses,
            );
            format!(
                "{} {} (Δ {:+})",
                param.name,
                crate::report::numbers::signed_change(change),
                step.flips[index]
            )
        })
        .collect();
    format!("step {}", moves.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::params::parse_line;

    fn param(line: &str) -> TuneParam {
        parse_line(line).unwrap().unwrap()
    }

    #[test]
    fn an_iterations_line_shows_theta_of_a_few_parameters() {
        let two = [
            param("Tempo, int, 30, -20, 40, 3, 0.05"),
            param("Race, float, 100, 0, 200, 10, 0.05"),
        ];
        assert_eq!(
            theta_text(&two, &[30.4149, 118.0]),
            "θ Tempo=30.41, Race=118.00"
        );
        let many: Vec<TuneParam> = (0..5)
            .map(|k| param(&format!("P{k}, int, 1, 0, 9, 1, 0.05")))
            .collect();
        assert_eq!(
            theta_text(&many, &[1.0; 5]),
            "θ of 5 parameters in report.html"
        );
    }

    #[test]
    fn an_iterations_line_shows_each_step_and_its_flip() {
        let tempo = [param("Tempo, int, 30, -20, 40, 3, 0.05")];
        let step = Perturbation {
            iteration: 1,
            theta: vec![30.0],
            flips: vec![-1],
            c_k: vec![2.0],
            a_k: vec![0.5],
            plus: vec![28.0],
            minus: vec![32.0],
        };
        let record = IterationRecord {
            step,
            first_game: 1,
            wins: 3,
            losses: 1,
            finished: String::new(),
        };
        // a_k · (W − L) / (c_k · Δ) = 0.5 · 2 / (2 · −1) = −0.5: tune+ (θ − 2) won, θ goes down.
        assert_eq!(step_text(&tempo, &record), "step Tempo -0.50 (Δ -1)");
        // A step too small for two decimals shows its digits, never `-0.00` (issue 39).
        let mut small = record.clone();
        small.step.a_k = vec![small.step.a_k[0] / 1000.0];
        assert_eq!(step_text(&tempo, &small), "step Tempo -0.00050 (Δ -1)");
    }
}
