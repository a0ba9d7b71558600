//! A tune spread over machines sharing one run directory (`--shard K/N`), fishtest's
//! asynchronous SPSA without a server.
//!
//! ```text
//! RUN/identity.json     the tune's settings and seed, decided once by the first shard
//! RUN/shard-K/          shard K: tune.json, tune.csv, games.csv, games.pgn, logs/
//! RUN/report.html summary.json tuned-options.txt tuned-params.txt   the whole tune
//! ```
//!
//! - **Identity.** The first shard to start writes `RUN/identity.json` (the tune's settings
//!   but `out`, `concurrency` and `log`, see [`TuneConfig::identity`]) exclusively and
//!   atomically; later shards join only when their settings match, adopting its seed when
//!   they were given none, and are refused before they play, naming the first field that
//!   differs: the run identity of every kind of run ([`crate::run::identity`], which this
//!   module's [`Identified`] implementation feeds).
//! - **Dealing.** Iteration i (from 1) is shard ((i − 1) mod N)'s ([`TuneConfig::plays`]),
//!   so every iteration is played by exactly one shard, on resume too.
//! - **θ.** Before it starts an iteration a shard reads every shard's tune.csv
//!   ([`others`]) and takes θ = the start values with every finished iteration applied in
//!   increasing iteration number ([`super::iterations::theta_after`]): the same fold on
//!   every shard, on resume, and in the run's report. How far an iteration's θ lags (which
//!   iterations of other shards had finished when it started) depends on timing, as with
//!   fishtest's workers; tune.csv records the θ each iteration started from.
//! - **The whole tune.** Each shard rewrites RUN's report.html, summary.json and tuned
//!   values (the fold of every shard's iterations) while it plays and when it ends;
//!   `bt-arena tune --resume RUN` without `--shard` writes them again from the files
//!   ([`regenerate`]), playing nothing.

use super::config::TuneConfig;
use super::iterations::{IterationRecord, IterationsError, IterationsFile, theta_after};
use super::report::{self, Snapshot};
use crate::records::RecordsError;
use crate::run_dir::{RunDir, RunDirError};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// Why a sharded tune cannot be read (why a shard cannot join one is an
/// [`IdentityError`](crate::run::identity::IdentityError), as for every kind of run).
#[derive(Debug)]
pub enum TuneShardError {
    /// A file of the run directory that cannot be read or written.
    RunDir(RunDirError),
    /// A shard's tune.csv that cannot be read.
    Iterations(IterationsError),
    /// The run's files cannot be written.
    Results(RecordsError),
    /// No shard or worker directory holds a tune.json (the run's directory).
    NoTune(PathBuf),
    /// A shard's tune.json that cannot be read.
    Config(crate::session::resume::SavedError),
    /// Two shards recorded the same iteration (directories copied between runs?).
    Twice {
        /// The iteration.
        iteration: u64,
        /// The tune.csv files that both hold it.
        files: [PathBuf; 2],
    },
}

impl fmt::Display for TuneShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneShardError::RunDir(err) => err.fmt(f),
            TuneShardError::Iterations(err) => err.fmt(f),
            TuneShardError::Results(err) => err.fmt(f),
            TuneShardError::NoTune(run) => write!(
                f,
                "{} holds no shard or worker of a tune (no shard-K/tune.json, worker-ID/tune.json)",
                run.display()
            ),
            TuneShardError::Config(err) => err.fmt(f),
            TuneShardError::Twice { iteration, files } => write!(
                f,
                "iteration {iteration} is recorded by two shards: {} and {}",
                files[0].display(),
                files[1].display()
            ),
        }
    }
}

impl std::error::Error for TuneShardError {}

impl From<RunDirError> for TuneShardError {
    fn from(err: RunDirError) -> Self {
        TuneShardError::RunDir(err)
    }
}

impl From<IterationsError> for TuneShardError {
    fn from(err: IterationsError) -> Self {
        TuneShardError::Iterations(err)
    }
}

/// The directories of every process of the tune in `run`: its shards' (by index) and its
/// workers' (by name); a tune has one kind or the other, never both
/// ([`crate::run::identity::establish`]).
///
/// # Errors
/// When `run` cannot be listed.
pub fn member_dirs(run: &std::path::Path) -> Result<Vec<RunDir>, RunDirError> {
    let run = RunDir::new(run);
    let mut dirs: Vec<RunDir> = run.shard_dirs()?.into_iter().map(|(_, dir)| dir).collect();
    dirs.extend(run.worker_dirs()?);
    Ok(dirs)
}

/// The finished iterations of every shard or worker of `config`'s tune but its own, by
/// iteration number, read from their tune.csv files as they stand.
///
/// # Errors
/// [`TuneShardError`]: a directory or tune.csv that cannot be read, an iteration recorded by two
/// shards or workers.
pub fn others(config: &TuneConfig) -> Result<BTreeMap<u64, IterationRecord>, TuneShardError> {
    let own = config.is_spread().then(|| config.dir());
    let mut all: BTreeMap<u64, (IterationRecord, PathBuf)> = BTreeMap::new();
    for dir in member_dirs(&config.run.out)? {
        if own.as_deref() == Some(dir.root()) {
            continue;
        }
        let path = dir.tune_csv();
        let records = IterationsFile::read(&path, &config.params, config.spsa.iterations)?;
        for (iteration, record) in records {
            if let Some((_, first)) = all.get(&iteration) {
                return Err(TuneShardError::Twice {
                    iteration,
                    files: [first.clone(), path],
                });
            }
            all.insert(iteration, (record, path.clone()));
        }
    }
    Ok(all
        .into_iter()
        .map(|(iteration, (record, _))| (iteration, record))
        .collect())
}

/// Whether `run` holds a tune of shards or workers (an identity.json and no tune.json of its
/// own).
pub fn is_sharded(run: &std::path::Path) -> bool {
    let run = RunDir::new(run);
    run.identity_json().exists() && !run.tune_json().exists()
}

/// Rewrites the whole tune's report.html, summary.json, tuned-options.txt and
/// tuned-params.txt in `run` from every shard's or worker's files, playing nothing; returns
/// the snapshot written (its θ the fold of every process's iterations).
///
/// # Errors
/// [`TuneShardError`]: no shard's or worker's tune.json to read, files that cannot be read or
/// written.
pub fn regenerate(run: &std::path::Path) -> Result<Snapshot, TuneShardError> {
    let dirs = member_dirs(run)?;
    let Some(saved) = dirs.iter().find(|dir| dir.tune_json().exists()) else {
        return Err(TuneShardError::NoTune(run.to_path_buf()));
    };
    let mut config: TuneConfig =
        crate::session::resume::read_saved(saved.root()).map_err(TuneShardError::Config)?;
    config.run.out = run.to_path_buf();
    // Every process's records: `others` of no process of the run.
    config.run.shard = None;
    config.run.worker = None;
    let records = others(&config)?;
    let files: Vec<PathBuf> = dirs.iter().map(RunDir::games_csv).collect();
    let snapshot = Snapshot {
        theta: theta_after(&config.params, records.values()),
        records: records.into_values().collect(),
        config,
        in_progress: false,
        faults: report::read_faults(&files).map_err(TuneShardError::Results)?,
    };
    report::write_all(run, &snapshot).map_err(TuneShardError::Results)?;
    Ok(snapshot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_are_dealt_round_robin_and_the_identity_leaves_out_a_shards_own_settings() {
        let mut config: TuneConfig = serde_json::from_value(serde_json::json!({
            "event": "e",
            "engine": {"name": "tune", "cmd": "/bin/engine", "limit": {"nodes": 10}},
            "params": [{"name": "Pawn", "kind": "int", "start": 100.0, "min": 0.0,
                        "max": 200.0, "c_end": 10.0, "r_end": 0.002}],
            "spsa": {"iterations": 7, "pairs": 2, "a_ratio": 0.1, "alpha": 0.602,
                     "gamma": 0.101},
            "rules": "capture-only",
            "openings": {"file": null, "order": "sequential"},
            "seed": 5, "concurrency": 1, "out": "/r", "log": false, "pgn_comments": "full",
        }))
        .expect("a tune config");
        assert!((1..=7).all(|i| config.plays(i)));
        assert_eq!(config.dir(), std::path::Path::new("/r"));
        config.run.shard = Some("1/3".parse().unwrap());
        let mine: Vec<u64> = (1..=7).filter(|&i| config.plays(i)).collect();
        assert_eq!(mine, [2, 5]);
        assert_eq!(config.dir(), std::path::Path::new("/r/shard-1"));
        let identity = crate::run::identity::Identified::identity(&config);
        assert_eq!(identity["shard"], 3);
        assert_eq!(identity["seed"], 5);
        for own in ["out", "concurrency", "log"] {
            assert!(identity.get(own).is_none(), "{own}");
        }
        let mut other = config.clone();
        other.run.concurrency = 4;
        other.run.out = "/elsewhere".into();
        other.run.shard = Some("2/3".parse().unwrap());
        assert_eq!(
            crate::run_dir::identity::first_difference(
                &crate::run::identity::Identified::identity(&other),
                &identity,
                &[]
            ),
            None
        );
    }
}
