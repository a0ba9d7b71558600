//! The session: one run of any kind set up, played and finished in one place. A kind of run
//! (a tournament, a tune, datagen, or a new one) supplies only what is its own, a [`Kind`]:
//! its config, its schedule ([`crate::arena::Schedule`]) and its report. Everything else is
//! done here, once and in this order, for every kind:
//!
//! 1. the engines' sources resolved (a shard or worker joining a run adopts its commits),
//!    built or taken from the build cache, benched, their clocks scaled
//!    ([`crate::arena::prepare`]);
//! 2. the book loaded and its digest taken (a resumed run whose book changed is refused);
//! 3. the run's identity decided or joined ([`crate::run::identity`]): run id, seed, shards,
//!    workers;
//! 4. a new run refused in a directory that holds one; the directory locked, `logs/` made;
//! 5. the kind's check of its engines (a tune's parameters, datagen's scores), with a
//!    directory this session made removed when it fails;
//! 6. the config saved; the kind's own files opened; games.csv and games.pgn opened (a torn
//!    tail cut); the recorded games read ([`crate::arena::RecordedUnits`]);
//! 7. run.json written (command line, version, builds, clock scaling, machine load);
//! 8. the start-up announced, then the arena played ([`crate::arena::play`]), on one machine
//!    or as one worker of many (leases: [`crate::arena::leases`]);
//! 9. run.json finished (the engines' names, the load at the end), and the kind's final
//!    report written.
//!
//! The session returns why the arena stopped ([`crate::arena::Stopped`]) and the kind's
//! outcome, or one error ([`SessionError`]) whose kind-specific cases are the kind's own
//! typed error. `docs/guide/arena.md` shows a new kind written on it.

mod error;
mod info;
mod options;
pub mod resume;

pub use error::SessionError;
pub use options::SessionOptions;

use crate::arena::leases::Leases;
use crate::arena::prepare::{self, Preparation, Prepared};
use crate::arena::{self, Arena, GivenUp, NotPlayed, RecordedUnits, Schedule, Stopped};
use crate::engine::EngineDescription;
use crate::openings::Opening;
use crate::records::ResultsWriter;
use crate::run::header::RunHeader;
use crate::run::identity::{self, Identified, SeedOrigin};
use crate::run_dir::RunDir;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How a session starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStart {
    /// A new run, whose seed was given or drawn (a shard or worker joining a run takes the
    /// run's drawn seed).
    Fresh(SeedOrigin),
    /// A run continued from its saved config (`--resume`).
    Resume,
}

impl RunStart {
    /// Whether the run is resumed.
    pub fn is_resume(self) -> bool {
        self == RunStart::Resume
    }
}

/// A kind's saved settings: the shared ones ([`RunHeader`], flattened in) and its own.
pub trait RunConfig:
    Identified + serde::de::DeserializeOwned + Clone + std::fmt::Debug + Send + Sync
{
    /// The engines the user described, as saved (built from source, benched: made ready in
    /// place by the session).
    fn engines_mut(&mut self) -> &mut [EngineDescription];

    /// Checks what serde cannot (a config file's, or one saved by an older bt-arena).
    ///
    /// # Errors
    /// The kind's refusal, naming the setting.
    fn validate(&self) -> Result<(), Box<dyn std::error::Error + Send + Sync>>;

    /// `--scale-tc`'s reference speed, nodes per second, for the kinds that take it.
    fn scale_tc(&self) -> Option<u64> {
        None
    }

    /// How much the move comments of games.pgn say.
    fn pgn_comments(&self) -> crate::records::moves::CommentDetail {
        crate::records::moves::CommentDetail::default()
    }

    /// Whether engines built from source are named by their commit (`NAME@SHORTHASH`) when it
    /// is resolved; a kind whose seats have names of their own (a tune's `tune+`, `tune-`)
    /// keeps the name given.
    fn names_by_commit(&self) -> bool {
        true
    }
}

/// What a session hands the kind when it opens the schedule.
pub struct Setup<'a> {
    /// The openings the schedule's games index (the start position alone without a book).
    pub openings: &'a [Opening],
    /// The directory this process writes (a shard's, a worker's).
    pub dir: &'a Path,
    /// How the session started.
    pub start: RunStart,
    /// What preparing the engines learnt (builds, clock scaling).
    pub prepared: &'a Prepared,
    /// The session's own settings.
    pub options: &'a SessionOptions,
}

/// A kind's schedule, opened, with what the session announces of it.
pub struct Opened<S, P> {
    /// The schedule.
    pub schedule: S,
    /// What the kind tells at the start (its plan).
    pub prospect: P,
    /// What opening the kind's own files repaired (a torn tail cut), one line each.
    pub repairs: Vec<String>,
    /// The games this process plays in all (0 when unknown in advance), for the progress
    /// line.
    pub total_games: u64,
}

/// What the session announces once every check has passed, before any game.
pub struct Announcement<'a, C, P> {
    /// The run's settings, identity joined (its run id and seed).
    pub config: &'a C,
    /// The kind's plan.
    pub prospect: &'a P,
    /// What was repaired in the files of an interrupted session, one line each.
    pub repairs: &'a [String],
    /// Games of this process recorded by earlier sessions.
    pub recorded: u64,
    /// The games this process plays in all (0 when unknown in advance).
    pub total_games: u64,
}

/// What the arena did, as the kind's final report is given it.
#[derive(Debug)]
pub struct Ended {
    /// Why the arena stopped.
    pub stopped: Stopped,
    /// Games not played because an engine could not be made ready, in the order dropped.
    pub not_played: Vec<NotPlayed>,
    /// Engines given up after start failures.
    pub given_up: Vec<GivenUp>,
    /// Games this session recorded.
    pub recorded: u64,
    /// Games of this process recorded by earlier sessions.
    pub earlier: u64,
    /// The directory this process wrote.
    pub dir: PathBuf,
    /// How long the games took, seconds.
    pub seconds: f64,
}

/// What a session did: why it stopped, and the kind's outcome.
#[derive(Debug)]
pub struct SessionEnd<O> {
    /// What the arena did.
    pub ended: Ended,
    /// The kind's outcome (its report).
    pub outcome: O,
}

/// A kind of run: its config, its schedule, its report. Implement it, and the session plays
/// the kind with everything the arena offers (workers, shards, resume, `--max-time`,
/// `--affinity`, run.json, interim lines).
pub trait Kind {
    /// Its saved settings.
    type Config: RunConfig;
    /// Its schedule, over the config and the openings it borrows.
    type Schedule<'a>: Schedule
    where
        Self: 'a;
    /// Its own failures (its files, its settings, its schedule's): one typed case of
    /// [`SessionError`].
    type Error: std::error::Error
        + Send
        + Sync
        + 'static
        + for<'a> From<<Self::Schedule<'a> as Schedule>::Error>;
    /// What it announces at the start.
    type Prospect;
    /// What its final report gives.
    type Outcome;

    /// The engines of the arena's seats (of a tune, the engine twice).
    fn seats(config: &Self::Config) -> Vec<EngineDescription>;

    /// Checks the engines made ready before anything of the run is written (a tune's
    /// parameters against the engine's options). Nothing by default.
    ///
    /// # Errors
    /// The kind's refusal.
    fn check(_config: &Self::Config, _setup: &Setup<'_>) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Opens the kind's own files and its schedule.
    ///
    /// # Errors
    /// The kind's files cannot be read or written.
    fn open<'a>(
        config: &'a Self::Config,
        setup: &Setup<'a>,
    ) -> Result<Opened<Self::Schedule<'a>, Self::Prospect>, Self::Error>;

    /// Writes the final report from the run's files once the arena stopped.
    ///
    /// # Errors
    /// The report cannot be read or written.
    fn finish(
        config: &Self::Config,
        schedule: Self::Schedule<'_>,
        ended: &Ended,
    ) -> Result<Self::Outcome, SessionError<Self::Error>>;
}

/// Runs (or, with [`RunStart::Resume`], continues) the run of `config`, of kind `K`, as the
/// module documentation says. `stop` is the signal flag: once set, no game starts and games
/// in flight are dropped (engines being built or benched are stopped). `say` takes the lines
/// of the preparation; `announce` is called once every check has passed, before any game.
///
/// # Errors
/// [`SessionError`]: engines that cannot be made ready, an unusable book, a directory that
/// holds another run or is locked, a shard or worker whose settings are not the run's, files
/// that cannot be read or written, the kind's own failure.
pub fn run<K: Kind>(
    config: &mut K::Config,
    start: RunStart,
    options: &SessionOptions,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
    announce: impl FnOnce(Announcement<'_, K::Config, K::Prospect>),
) -> Result<SessionEnd<K::Outcome>, SessionError<K::Error>> {
    let made = !config.header().dir().exists();
    // (Its root, where the identity is written, for a shard or a worker.)
    let root_made = !config.header().out.exists();
    let prepared = prepare_engines(config, options, stop, say)?;
    let openings = load_openings(config.header_mut(), start, say)?;
    let seed = match start {
        RunStart::Fresh(seed) => seed,
        RunStart::Resume => SeedOrigin::Given,
    };
    identity::establish(config, seed).map_err(|e| SessionError::Identity(Box::new(e)))?;
    let config = &*config;
    let header = config.header();
    let dir = header.dir();
    let run = RunDir::new(&dir);
    if !start.is_resume()
        && [run.games_csv(), run.root().join(K::Config::TYPE.file)]
            .iter()
            .any(|file| file.exists())
    {
        return Err(SessionError::OutputExists {
            dir,
            of: K::Config::TYPE,
            resume: resume_command(header, K::Config::TYPE),
        });
    }
    let _lock = crate::run_dir::lock_directory(&dir)?;
    std::fs::create_dir_all(run.logs())
        .map_err(|e| crate::records::RecordsError::io(run.logs(), "cannot create", e))?;
    let setup = Setup {
        openings: &openings,
        dir: &dir,
        start,
        prepared: &prepared,
        options,
    };
    if let Err(err) = K::check(config, &setup) {
        if made && !start.is_resume() {
            let _ = std::fs::remove_dir_all(&dir);
            if root_made {
                let _ = std::fs::remove_file(header.out.join(crate::run_dir::IDENTITY_JSON));
            }
            let _ = std::fs::remove_dir(&header.out);
        }
        return Err(SessionError::Kind(err));
    }
    crate::records::write_json(
        &run.root().join(K::Config::TYPE.file),
        config,
        crate::records::Existing::Replace,
    )?;
    let opened = K::open(config, &setup).map_err(SessionError::Kind)?;
    let seats = K::seats(config);
    let writer = results_writer(config, &seats, &dir)?;
    let mut repairs = opened.repairs;
    repairs.extend(writer.repairs().iter().cloned());
    let mut recorded = match &header.worker {
        Some(_) => RecordedUnits::workers(&header.out),
        None => RecordedUnits::own(&dir),
    };
    recorded
        .start(&opened.schedule)
        .map_err(|e| SessionError::Arena(arena::ArenaError::from(e).map(K::Error::from)))?;
    let earlier = recorded.count();
    let mut info = info::LiveInfo::start(&dir, config.header().board, &prepared, &seats)?;
    announce(Announcement {
        config,
        prospect: &opened.prospect,
        repairs: &repairs,
        recorded: recorded.count(),
        total_games: opened.total_games,
    });
    let leases = match (&header.worker, header.lease_ms) {
        (Some(worker), Some(lease)) => Some(
            Leases::new(
                &header.out,
                worker,
                Duration::from_millis(lease),
                opened.schedule.unit_kind(),
            )
            .map_err(|e| {
                crate::records::RecordsError::io(
                    RunDir::new(&header.out).claims(),
                    "cannot create",
                    e,
                )
            })?,
        ),
        _ => None,
    };
    // A worker whose directory was removed (a clean-up) makes it again and plays on.
    let remake = || -> Result<ResultsWriter, crate::records::RecordsError> {
        std::fs::create_dir_all(run.logs())
            .map_err(|e| crate::records::RecordsError::io(run.logs(), "cannot create", e))?;
        crate::records::write_json(
            &run.root().join(K::Config::TYPE.file),
            config,
            crate::records::Existing::Replace,
        )?;
        info.write(&dir)?;
        results_writer(config, &seats, &dir)
    };
    let arena = Arena {
        engines: &seats,
        rules: header.rules,
        board: header.board,
        adjudication: &header.adjudication,
        checks: options.checks,
        openings: &openings,
        dir: dir.clone(),
        log: header.log,
        concurrency: header.concurrency,
        affinity: options.affinity.clone(),
        deadline: options.deadline,
        rating_interval: options.rating_interval,
        progress: (opened.total_games, recorded.count()),
        stop,
        remake: header
            .worker
            .is_some()
            .then_some(&remake as &arena::Remake<'_>),
    };
    let started = std::time::Instant::now();
    let played = arena::play(&arena, &opened.schedule, writer, leases.as_ref(), recorded)
        .map_err(|e| SessionError::Arena(e.map(K::Error::from)))?;
    let seconds = started.elapsed().as_secs_f64();
    drop(arena);
    drop(leases);
    info.finish(&dir, &played.engine_ids)?;
    let ended = Ended {
        stopped: played.stopped,
        not_played: played.not_played,
        given_up: played.given_up,
        recorded: played.recorded,
        earlier,
        dir: dir.clone(),
        seconds,
    };
    let outcome = K::finish(config, opened.schedule, &ended)?;
    Ok(SessionEnd { ended, outcome })
}

/// Resolves, builds, benches and checks the engines of `config` and scales their clocks.
fn prepare_engines<C: RunConfig, E>(
    config: &mut C,
    options: &SessionOptions,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<Prepared, SessionError<E>> {
    resolve_sources(config, say)?;
    let header = config.header();
    let preparation = Preparation {
        results_dir: header.dir(),
        concurrency: header.concurrency,
        scale_tc: config.scale_tc(),
    };
    let prepared = prepare::prepare(
        config.engines_mut(),
        &preparation,
        options.build_cache.as_ref(),
        stop,
        say,
    )?;
    Ok(prepared)
}

/// Resolves the revision of every engine of `config` built from source whose commit is not
/// known yet ([`prepare::resolve_sources`]; a shard or worker joining a run adopts the
/// commits its identity holds), naming each `NAME@SHORTHASH` unless the kind keeps its names;
/// `say` is told the warnings. Nothing when every commit is known (a resumed run's).
///
/// # Errors
/// [`crate::arena::prepare::PrepareError::Source`] for a revision that cannot be resolved.
pub fn resolve_sources<C: RunConfig>(
    config: &mut C,
    say: &mut dyn FnMut(String),
) -> Result<(), prepare::PrepareError> {
    let unresolved = config
        .engines_mut()
        .iter()
        .any(|e| e.source.as_ref().is_some_and(|s| s.commit.is_none()));
    if !unresolved {
        return Ok(());
    }
    let header = config.header();
    let joining = header.is_spread().then(|| header.out.clone());
    let names: Vec<String> = config
        .engines_mut()
        .iter()
        .map(|e| e.name.clone())
        .collect();
    for warning in prepare::resolve_sources(config.engines_mut(), joining.as_deref())? {
        say(format!("warning: {warning}"));
    }
    if !config.names_by_commit() {
        for (engine, name) in config.engines_mut().iter_mut().zip(names) {
            engine.name = name;
        }
    }
    Ok(())
}

/// The book's openings, of the run's board (its start position alone without a book), its
/// digest taken into `header` (a resumed run whose book changed since it started is refused).
fn load_openings<E>(
    header: &mut RunHeader,
    start: RunStart,
    say: &mut dyn FnMut(String),
) -> Result<Vec<Opening>, SessionError<E>> {
    let (openings, warning) = crate::openings::load_openings(
        header.openings.file.as_deref(),
        header.rules,
        header.board,
    )?;
    if let Some(warning) = warning {
        say(format!("warning: {warning}"));
    }
    header.openings.take_digest(start.is_resume())?;
    Ok(openings)
}

/// The writer of games.csv and games.pgn in `dir`, its PGN tagged with the run's event and
/// each seat's time control.
fn results_writer<C: RunConfig>(
    config: &C,
    seats: &[EngineDescription],
    dir: &Path,
) -> Result<ResultsWriter, crate::records::RecordsError> {
    let header = config.header();
    crate::run::settings::results_writer(
        dir,
        &header.event,
        header.rules,
        seats,
        config.pgn_comments(),
    )
}

/// The command that continues the run of `header`, of type `of`: `bt-arena KIND --resume
/// OUT` (of its shard, `--shard K/N`); for a worker, another worker: this process's own
/// command line.
pub fn resume_command(header: &RunHeader, of: identity::RunType) -> String {
    if header.worker.is_some() {
        return format!("bt-arena {}", shell_words(std::env::args_os().skip(1)));
    }
    let shard = header
        .shard
        .map(|shard| format!(" --shard {shard}"))
        .unwrap_or_default();
    format!(
        "bt-arena {} --resume {}{shard}",
        of.command,
        shell_words([header.out.clone().into_os_string()].into_iter())
    )
}

/// The arguments as one shell command line, quoting those that need it.
pub fn shell_words(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let quote = |arg: std::ffi::OsString| {
        let arg = arg.to_string_lossy().into_owned();
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=+:,@%".contains(c));
        if plain {
            arg
        } else {
            format!("'{}'", arg.replace('\'', r"'\''"))
        }
    };
    args.map(quote).collect::<Vec<_>>().join(" ")
}
