//! A tune as a kind of run on the session ([`crate::session`]): its engine's parameters
//! checked before anything is written, its iterations ([`Iterations`]) and its report.

use super::config::TuneConfig;
use super::iterations::IterationsFile;
use super::params::ParamsError;
use super::report;
use super::schedule::{Iterations, IterationsFault};
use super::shard::{self, TuneShardError};
use crate::engine::{Engine, EngineDescription, EngineError};
use crate::report::EngineFaults;
use crate::run::header::RunHeader;
use crate::run::identity::{Identified, RunType};
use crate::run_dir::RunDir;
use crate::session::{Ended, Kind, Opened, RunConfig, SessionError, Setup};
use std::fmt;

/// A tune: SPSA over an engine's options, θ+ against θ−.
pub struct Tune;

/// Why a tune cannot run: its parameters, its engine, its files.
#[derive(Debug)]
pub enum TuneError {
    /// A parameter the engine cannot take (a bad command line or parameters file).
    Params(ParamsError),
    /// The engine cannot start for the check of its options.
    Engine(EngineError),
    /// The iterations cannot be played on: tune.csv, the other processes' files, a game not
    /// of this tune.
    Iterations(IterationsFault),
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::Params(err) => err.fmt(f),
            TuneError::Engine(err) => err.fmt(f),
            TuneError::Iterations(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for TuneError {}

impl From<IterationsFault> for TuneError {
    fn from(err: IterationsFault) -> Self {
        TuneError::Iterations(err)
    }
}

/// What a tune is about to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunePlan {
    /// Iterations of the tune.
    pub iterations: u64,
    /// Iterations already finished (by an earlier session, or other shards or workers).
    pub finished: u64,
}

/// What a tune produced.
#[derive(Debug)]
pub struct TuneReport {
    /// θ after every finished iteration (as tune.csv gives it), one value per parameter.
    pub theta: Vec<f64>,
    /// Iterations finished (earlier sessions and other shards or workers included).
    pub finished: u64,
    /// Whether every iteration this process plays is finished.
    pub complete: bool,
    /// Losses by fault of tune+ and tune−, over every game of this directory.
    pub faults: Vec<EngineFaults>,
    /// What `--strict` fails the tune on, over every game of the tune:
    /// [`crate::report::Summary::behaviour_failures`].
    pub failures: Vec<String>,
}

impl Identified for TuneConfig {
    const TYPE: RunType = RunType::TUNE;

    fn header(&self) -> &RunHeader {
        &self.run
    }

    fn header_mut(&mut self) -> &mut RunHeader {
        &mut self.run
    }
}

impl RunConfig for TuneConfig {
    fn engines_mut(&mut self) -> &mut [EngineDescription] {
        std::slice::from_mut(&mut self.engine)
    }

    fn validate(&self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        TuneConfig::validate(self).map_err(Into::into)
    }

    fn pgn_comments(&self) -> crate::records::moves::CommentDetail {
        self.pgn_comments
    }

    /// The sides are `tune+` and `tune-`: the engine keeps its name.
    fn names_by_commit(&self) -> bool {
        false
    }
}

impl Kind for Tune {
    type Config = TuneConfig;
    type Schedule<'a> = Iterations<'a>;
    type Error = TuneError;
    type Prospect = TunePlan;
    type Outcome = TuneReport;

    /// tune+ and tune−: the engine twice, the tuned options set on top before each game.
    fn seats(config: &TuneConfig) -> Vec<EngineDescription> {
        config.sides().into()
    }

    /// The engine is started once (its logs in the directory) for the check of the
    /// parameters against the options it declares.
    fn check(config: &TuneConfig, setup: &Setup<'_>) -> Result<(), TuneError> {
        let sides = Self::seats(config);
        let launch = crate::arena::launch(setup.dir, config.run.log, &sides[0], 0);
        let probe = Engine::start(&launch, config.run.rules, config.run.board)
            .map_err(TuneError::Engine)?;
        let checked = config.check_params(probe.options());
        probe.quit();
        checked.map_err(TuneError::Params)
    }

    fn open<'a>(
        config: &'a TuneConfig,
        setup: &Setup<'a>,
    ) -> Result<Opened<Iterations<'a>, TunePlan>, TuneError> {
        let (log, mut finished) =
            IterationsFile::open(setup.dir, &config.params, config.spsa.iterations)
                .map_err(|e| TuneError::Iterations(IterationsFault::Iterations(e)))?;
        let recorded_here = finished.keys().copied().collect();
        if config.is_spread() {
            let others = shard::others(config)
                .map_err(|e| TuneError::Iterations(IterationsFault::Shard(e)))?;
            for (iteration, record) in others {
                finished.entry(iteration).or_insert(record);
            }
        }
        let own = (1..=config.spsa.iterations)
            .filter(|&k| config.plays(k))
            .count() as u64;
        let prospect = TunePlan {
            iterations: config.spsa.iterations,
            finished: finished.len() as u64,
        };
        Ok(Opened {
            schedule: Iterations::new(config, setup.openings.len(), log, finished, recorded_here),
            prospect,
            repairs: Vec::new(),
            total_games: own * 2 * u64::from(config.spsa.pairs),
        })
    }

    /// Writes the whole tune's report.html, summary.json and tuned values (of every shard's
    /// or worker's iterations).
    fn finish(
        config: &TuneConfig,
        iterations: Iterations<'_>,
        ended: &Ended,
    ) -> Result<TuneReport, SessionError<TuneError>> {
        let mut state = iterations
            .state
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        let mut snapshot = state.snapshot(config, false);
        let mut files = vec![RunDir::new(&ended.dir).games_csv()];
        if config.is_spread() {
            let shard_error = |e: TuneShardError| {
                SessionError::Kind(TuneError::Iterations(IterationsFault::Shard(e)))
            };
            state.absorb_all(config).map_err(shard_error)?;
            snapshot = state.snapshot(config, false);
            // The whole tune's page counts every shard's or worker's faults.
            files = shard::member_dirs(&config.run.out)
                .map_err(|e| shard_error(TuneShardError::RunDir(e)))?
                .iter()
                .map(RunDir::games_csv)
                .collect();
            snapshot.faults = report::read_faults(&files)?;
        }
        report::write_all(&config.run.out, &snapshot)?;
        let complete = (1..=config.spsa.iterations)
            .filter(|&k| config.plays(k))
            .all(|k| state.finished.contains_key(&k));
        Ok(TuneReport {
            theta: snapshot.theta,
            finished: state.finished.len() as u64,
            complete,
            faults: state.faults.to_vec(),
            failures: crate::report::Summary::behaviour_failures_of(&files)?,
        })
    }
}
