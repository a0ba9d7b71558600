//! A run directory: the one place that knows its layout and what kind of run it holds.
//!
//! For users (`docs/guide/results.md`, "The run directory"; `docs/guide/cluster.md`): a run
//! on one machine or its shards, read by every command through one reader, to one verdict.
//!
//! ```text
//! RUN/                      a run on one machine (RunKind::Plain)
//!   config.json             the effective config, read back by --resume
//!   games.csv  games.pgn    the record: one row (one PGN game) per finished game
//!   summary.json report.html run.json
//!   .lock  logs/
//! RUN/                      a sharded run (RunKind::Sharded): no config.json of its own
//!   identity.json           the run's identity, decided once by the first shard to start
//!   sprt.json               the shared SPRT's verdict, once one is reached
//!   shard-K/                one shard (RunKind::Shard): the files of a run on one machine
//!   games.csv games.pgn summary.json report.html   what `bt-arena merge` writes
//! RUN/                      a run of workers (RunKind::Workers, `tournament --worker`)
//!   identity.json sprt.json as a sharded run's
//!   claims/pair-N           who plays game pair N, or played it (crate::lease)
//!   worker-ID/              one worker process (ID: HOST-PID-RANDOM): a run's files,
//!                           its config.json naming the worker
//! RUN/                      a tune (`bt-arena tune`, RunKind::Tune): a run on one
//!   tune.json tune.csv      machine's files, its settings and iterations
//!   tuned-options.txt tuned-params.txt   its result; a sharded tune's shards are tunes
//! logs/                     of every process: NAME-W.stderr.log, NAME-W.log (protocol),
//!                           build-NAME.log (see RunDir::engine_stderr_log and the others)
//! ```
//!
//! Every module asks [`RunDir`] for a path instead of joining names; [`Shard`] (which shard
//! of a run a directory holds) lives here too, below the tournament code that plays it.
//! [`identity`] decides a run's identity once and lets shards join it; [`atomic`] writes a
//! file whole or not at all.

pub mod atomic;
pub mod identity;
pub mod lock;
mod shard;

pub use atomic::Existing;
pub use lock::{LockError, lock_directory};
pub use shard::{K8S_INDEX, SLURM_COUNT, SLURM_INDEX, Shard, ShardError};

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The record of a run's games, one row per finished game.
pub const GAMES_CSV: &str = "games.csv";
/// The same games as PGN.
pub const GAMES_PGN: &str = "games.pgn";
/// The report of the games as JSON.
pub const SUMMARY_JSON: &str = "summary.json";
/// The effective config of a run on one machine, or of one shard.
pub const CONFIG_JSON: &str = "config.json";
/// The run's command line and engine identities.
pub const RUN_JSON: &str = "run.json";
/// The report as one self-contained page.
pub const REPORT_HTML: &str = "report.html";
/// A sharded run's SPRT verdict, recorded once.
pub const SPRT_JSON: &str = "sprt.json";
/// A sharded run's identity ([`identity::RunIdentity`]).
pub const IDENTITY_JSON: &str = "identity.json";
/// The lock a runner holds while it writes the directory.
pub const LOCK: &str = ".lock";
/// The engines' stderr and protocol logs.
pub const LOGS: &str = "logs";
/// A tune's settings (`bt-arena tune`), read back by its `--resume`.
pub const TUNE_JSON: &str = "tune.json";
/// A tune's iterations, one row each.
pub const TUNE_CSV: &str = "tune.csv";
/// A datagen run's config, in its directory.
pub const DATAGEN_JSON: &str = "datagen.json";
/// A tune's result as `option.NAME=VALUE` lines.
pub const TUNED_OPTIONS: &str = "tuned-options.txt";
/// A tune's result in OpenBench's parameter format.
pub const TUNED_PARAMS: &str = "tuned-params.txt";
/// Shard `K`'s directory in a sharded run directory is this prefix and `K`.
pub const SHARD_PREFIX: &str = "shard-";
/// A worker's directory in a run of workers is this prefix and the worker's id.
pub const WORKER_PREFIX: &str = "worker-";
/// The directory of a run of workers' claims on its game pairs.
pub const CLAIMS: &str = "claims";

/// A run directory (see the module documentation for its layout). Holds a path only: nothing
/// is read until asked.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RunDir {
    root: PathBuf,
}

/// What a directory holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunKind {
    /// A run on one machine: a config.json without a `shard` field.
    Plain,
    /// One shard of a sharded run: a config.json with a `shard` field.
    Shard(Shard),
    /// A tune (`bt-arena tune`): a tune.json, with the shard it plays of a sharded tune.
    Tune(Option<Shard>),
    /// A sharded run (a tournament's or a tune's): `shard-K` directories (sorted by `K`) and
    /// no config.json or tune.json of its own.
    Sharded(Vec<(u32, RunDir)>),
    /// A run of workers (`tournament --worker`): `worker-ID` directories (sorted by name) and
    /// no config.json of its own.
    Workers(Vec<RunDir>),
    /// No run: neither a config.json nor shard directories (perhaps games files alone).
    NoRun,
}

/// Why a run directory cannot be read.
#[derive(Debug)]
pub enum RunDirError {
    /// A file or directory that cannot be read or written.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done, e.g. `cannot list`.
        action: &'static str,
        /// The operating system's reason.
        source: io::Error,
    },
    /// A file that does not hold what its name says (not JSON, a bad `shard` value).
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for RunDirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunDirError::Io {
                path,
                action,
                source,
            } => write!(f, "{}: {action}: {source}", path.display()),
            RunDirError::Malformed { path, reason } => write!(f, "{}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for RunDirError {}

impl RunDir {
    /// The run directory at `root`.
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `games.csv`: the record of the games.
    pub fn games_csv(&self) -> PathBuf {
        self.root.join(GAMES_CSV)
    }

    /// `games.pgn`.
    pub fn games_pgn(&self) -> PathBuf {
        self.root.join(GAMES_PGN)
    }

    /// `summary.json`.
    pub fn summary_json(&self) -> PathBuf {
        self.root.join(SUMMARY_JSON)
    }

    /// `config.json`.
    pub fn config_json(&self) -> PathBuf {
        self.root.join(CONFIG_JSON)
    }

    /// `run.json`.
    pub fn run_json(&self) -> PathBuf {
        self.root.join(RUN_JSON)
    }

    /// `report.html`.
    pub fn report_html(&self) -> PathBuf {
        self.root.join(REPORT_HTML)
    }

    /// `sprt.json`, a sharded run's verdict.
    pub fn sprt_json(&self) -> PathBuf {
        self.root.join(SPRT_JSON)
    }

    /// `identity.json`, a sharded run's identity.
    pub fn identity_json(&self) -> PathBuf {
        self.root.join(IDENTITY_JSON)
    }

    /// `tune.json`, a tune's settings.
    pub fn tune_json(&self) -> PathBuf {
        self.root.join(TUNE_JSON)
    }

    /// `datagen.json`, a datagen run's settings.
    pub fn datagen_json(&self) -> PathBuf {
        self.root.join(DATAGEN_JSON)
    }

    /// `tune.csv`, a tune's iterations.
    pub fn tune_csv(&self) -> PathBuf {
        self.root.join(TUNE_CSV)
    }

    /// `tuned-options.txt`, a tune's result as `option.NAME=VALUE` lines.
    pub fn tuned_options(&self) -> PathBuf {
        self.root.join(TUNED_OPTIONS)
    }

    /// `tuned-params.txt`, a tune's result in OpenBench's format.
    pub fn tuned_params(&self) -> PathBuf {
        self.root.join(TUNED_PARAMS)
    }

    /// `.lock`.
    pub fn lock(&self) -> PathBuf {
        self.root.join(LOCK)
    }

    /// `logs/`.
    pub fn logs(&self) -> PathBuf {
        self.root.join(LOGS)
    }

    /// The directory a process of the run in `out` writes: `out` itself, or `out/shard-K`
    /// for shard `K` of a sharded run. The one place a process's own directory is joined.
    pub fn process(out: &Path, shard: Option<Shard>) -> RunDir {
        let run = RunDir::new(out);
        match shard {
            Some(shard) => run.shard(shard.index()),
            None => run,
        }
    }

    /// `logs/NAME-W.stderr.log`: what engine `engine` (its name made [`file_safe`]) wrote
    /// on stderr in worker `worker`.
    pub fn engine_stderr_log(&self, engine: &str, worker: usize) -> PathBuf {
        self.logs()
            .join(format!("{}-{worker}.stderr.log", file_safe(engine)))
    }

    /// `logs/NAME-W.log`: engine `engine`'s protocol traffic in worker `worker`.
    pub fn engine_comm_log(&self, engine: &str, worker: usize) -> PathBuf {
        self.logs()
            .join(format!("{}-{worker}.log", file_safe(engine)))
    }

    /// `logs/build-NAME.log`: the build log of engine `engine`, built from source.
    pub fn build_log(&self, engine: &str) -> PathBuf {
        self.logs().join(build_log_name(engine))
    }

    /// The directory of shard `index` of this (sharded) run: `shard-K`.
    pub fn shard(&self, index: u32) -> RunDir {
        RunDir::new(self.root.join(format!("{SHARD_PREFIX}{index}")))
    }

    /// The directory of worker `id` of this run of workers: `worker-ID`.
    pub fn worker(&self, id: &str) -> RunDir {
        RunDir::new(self.root.join(format!("{WORKER_PREFIX}{id}")))
    }

    /// `claims/`: a run of workers' claims on its game pairs.
    pub fn claims(&self) -> PathBuf {
        self.root.join(CLAIMS)
    }

    /// The `worker-ID` directories, sorted by name; none when the directory does not exist.
    ///
    /// # Errors
    /// [`RunDirError::Io`] when it exists but cannot be listed.
    pub fn worker_dirs(&self) -> Result<Vec<RunDir>, RunDirError> {
        let mut dirs: Vec<PathBuf> = self
            .subdirectories()?
            .into_iter()
            .filter(|(name, _)| name.starts_with(WORKER_PREFIX))
            .map(|(_, path)| path)
            .collect();
        dirs.sort();
        Ok(dirs.into_iter().map(RunDir::new).collect())
    }

    /// The directories in this one with names in UTF-8, as `(name, path)`; none when it does
    /// not exist.
    ///
    /// # Errors
    /// [`RunDirError::Io`] when it exists but cannot be listed.
    fn subdirectories(&self) -> Result<Vec<(String, PathBuf)>, RunDirError> {
        let entries = match std::fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(RunDirError::Io {
                    path: self.root.clone(),
                    action: "cannot list",
                    source,
                });
            }
        };
        Ok(entries
            .filter_map(Result::ok)
            .filter(|entry| entry.path().is_dir())
            .filter_map(|entry| Some((entry.file_name().to_str()?.to_string(), entry.path())))
            .collect())
    }

    /// The run directory holding this shard directory (its parent).
    pub fn parent_run(&self) -> RunDir {
        RunDir::new(
            self.root
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        )
    }

    /// The `shard-K` directories, as `(K, dir)` sorted by `K`; none when the directory does
    /// not exist.
    ///
    /// # Errors
    /// [`RunDirError::Io`] when it exists but cannot be listed.
    pub fn shard_dirs(&self) -> Result<Vec<(u32, RunDir)>, RunDirError> {
        let mut dirs: Vec<(u32, RunDir)> = self
            .subdirectories()?
            .into_iter()
            .filter_map(|(name, path)| {
                let index = name.strip_prefix(SHARD_PREFIX)?.parse().ok()?;
                Some((index, RunDir::new(path)))
            })
            .collect();
        dirs.sort_by_key(|(index, _)| *index);
        Ok(dirs)
    }

    /// What the directory holds: a config.json makes it a run on one machine or a shard (by
    /// its `shard` field), a tune.json a tune; else `shard-K` directories make it a sharded
    /// run.
    ///
    /// # Errors
    /// [`RunDirError`] when config.json or tune.json cannot be read or is not a JSON object
    /// with a valid `shard`, or the directory cannot be listed.
    pub fn kind(&self) -> Result<RunKind, RunDirError> {
        match saved_shard(&self.config_json())? {
            Some(Some(shard)) => return Ok(RunKind::Shard(shard)),
            Some(None) => return Ok(RunKind::Plain),
            None => {}
        }
        if let Some(shard) = saved_shard(&self.tune_json())? {
            return Ok(RunKind::Tune(shard));
        }
        let shards = self.shard_dirs()?;
        if !shards.is_empty() {
            return Ok(RunKind::Sharded(shards));
        }
        let workers = self.worker_dirs()?;
        Ok(if workers.is_empty() {
            RunKind::NoRun
        } else {
            RunKind::Workers(workers)
        })
    }
}

/// The `shard` of the saved config `path` (config.json, tune.json): `None` without the file,
/// `Some(None)` for a run on one machine.
fn saved_shard(path: &Path) -> Result<Option<Option<Shard>>, RunDirError> {
    let Some(config) = read_json(path)? else {
        return Ok(None);
    };
    let malformed = |reason: String| RunDirError::Malformed {
        path: path.to_path_buf(),
        reason,
    };
    match config.get("shard") {
        None | Some(serde_json::Value::Null) => Ok(Some(None)),
        Some(serde_json::Value::String(text)) => text
            .parse()
            .map(|shard| Some(Some(shard)))
            .map_err(|e: ShardError| malformed(e.to_string())),
        Some(other) => Err(malformed(format!("`shard` is {other}, not K/N"))),
    }
}

/// `name` with every character but ASCII letters, digits, `.`, `-` and `_` replaced by `_`,
/// and at most 64 characters long: safe as part of a file name.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_start_matches('.')
        .to_string()
}

/// The file a source-built engine's build log is copied to, in a run's `logs/`:
/// `build-<engine>.log`.
pub fn build_log_name(engine: &str) -> String {
    format!("build-{}.log", file_safe(engine))
}

/// The JSON object in `path`; `None` when there is no such file.
///
/// # Errors
/// [`RunDirError::Io`] when it cannot be read, [`RunDirError::Malformed`] when it is not a
/// JSON object.
pub fn read_json(path: &Path) -> Result<Option<serde_json::Value>, RunDirError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RunDirError::Io {
                path: path.to_path_buf(),
                action: "cannot read",
                source,
            });
        }
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| RunDirError::Malformed {
            path: path.to_path_buf(),
            reason: format!("line {}: {e}", e.line()),
        })?;
    if !value.is_object() {
        return Err(RunDirError::Malformed {
            path: path.to_path_buf(),
            reason: "not a JSON object".to_string(),
        });
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_told_by_its_config_and_shards() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::new(dir.path());
        assert_eq!(run.kind().unwrap(), RunKind::NoRun);
        assert_eq!(
            RunDir::new(dir.path().join("none")).kind().unwrap(),
            RunKind::NoRun
        );
        std::fs::create_dir_all(run.shard(1).root()).unwrap();
        std::fs::create_dir_all(run.shard(0).root()).unwrap();
        std::fs::create_dir_all(dir.path().join("shard-x")).unwrap();
        assert_eq!(
            run.kind().unwrap(),
            RunKind::Sharded(vec![(0, run.shard(0)), (1, run.shard(1))])
        );
        std::fs::write(run.shard(1).config_json(), r#"{"shard": "1/2"}"#).unwrap();
        assert_eq!(
            run.shard(1).kind().unwrap(),
            RunKind::Shard(Shard::new(1, 2).unwrap())
        );
        assert_eq!(run.shard(1).parent_run(), run);
        std::fs::write(run.config_json(), r#"{"event": "e"}"#).unwrap();
        assert_eq!(run.kind().unwrap(), RunKind::Plain);
        std::fs::write(run.config_json(), r#"{"shard": "3/2"}"#).unwrap();
        let err = run.kind().unwrap_err().to_string();
        assert!(err.contains("config.json: bad shard '3/2'"), "{err}");
        std::fs::write(run.config_json(), "[").unwrap();
        let err = run.kind().unwrap_err().to_string();
        assert!(err.contains("config.json: line 1: "), "{err}");
    }

    #[test]
    fn every_file_is_named_in_the_directory() {
        let run = RunDir::new("/r");
        let names = [
            run.games_csv(),
            run.games_pgn(),
            run.summary_json(),
            run.config_json(),
            run.run_json(),
            run.report_html(),
            run.sprt_json(),
            run.identity_json(),
            run.lock(),
            run.logs(),
        ];
        let expected = [
            "games.csv",
            "games.pgn",
            "summary.json",
            "config.json",
            "run.json",
            "report.html",
            "sprt.json",
            "identity.json",
            ".lock",
            "logs",
        ];
        for (path, name) in names.iter().zip(expected) {
            assert_eq!(path, &Path::new("/r").join(name));
        }
        assert_eq!(run.shard(2).root(), Path::new("/r/shard-2"));
    }
}
