//! Where a run asked to `--resume` lives: the directory holding its saved settings (the
//! run's, a shard's in `dir/shard-K`, or the shard's own directory given), and the run's
//! directory wherever it was first started. Tournaments (config.json) and tunes (tune.json)
//! resume by the same rules; what a session may change is each kind's own policy.

use crate::run_dir::{RunDir, Shard};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a run cannot be resumed as asked.
#[derive(Debug)]
pub enum ResumeError {
    /// A sharded run's directory given without `--shard` (a bad command line).
    NeedsShard(PathBuf),
    /// A shard of a sharded run that never started (nothing to resume).
    ShardNotStarted {
        /// The run's directory.
        run: PathBuf,
        /// The shard asked for.
        shard: Shard,
        /// Its missing config.json.
        saved: PathBuf,
    },
    /// `--shard` that is not the one saved (a bad command line).
    OtherShard {
        /// The shard given.
        given: Shard,
        /// The config.json read.
        saved: PathBuf,
        /// The shard it was saved as, if any.
        was: Option<Shard>,
    },
    /// The saved config cannot be read.
    Unreadable(SavedReadError),
    /// A run of workers' directory (its settings are in each worker's directory): it is
    /// not resumed but joined by a worker (a bad command line).
    HoldsWorkers(PathBuf),
}

/// Why a run's saved settings cannot be read (the kind's reader's error).
pub type SavedReadError = Box<dyn std::error::Error + Send + Sync>;

impl ResumeError {
    /// Whether the command line is at fault (exit code 3), rather than the directory.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ResumeError::NeedsShard(_)
                | ResumeError::OtherShard { .. }
                | ResumeError::HoldsWorkers(_)
        )
    }
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeError::NeedsShard(dir) => write!(
                f,
                "{} holds the shards of a sharded run: resume one with --resume {0} --shard K/N \
                 (or --shard auto)",
                dir.display()
            ),
            ResumeError::ShardNotStarted { run, shard, saved } => write!(
                f,
                "shard {shard} of {} has not started ({} does not exist): start it with the \
                 tournament's settings and --out {} --shard {shard}",
                run.display(),
                saved.display(),
                run.display()
            ),
            ResumeError::OtherShard { given, saved, was } => write!(
                f,
                "--shard {given}: {} was saved as {}",
                saved.display(),
                was.map_or("an unsharded run".to_string(), |s| format!("shard {s}"))
            ),
            ResumeError::Unreadable(err) => err.fmt(f),
            ResumeError::HoldsWorkers(dir) => write!(
                f,
                "{} holds a run of workers, which is not resumed: start a worker with the run's \
                 flags and --out {0} --worker to play what is missing",
                dir.display()
            ),
        }
    }
}

impl std::error::Error for ResumeError {}

/// The saved settings of the run in `dir` (absolute), in its file `file` (`config.json`,
/// `tune.json`): of its shard `shard` (in `dir/shard-K`), or of the shard whose own
/// directory `dir` is; with the run's directory, wherever the run was first started. `read`
/// reads the settings from a directory, `shard_of` tells which shard they were saved as.
///
/// # Errors
/// [`ResumeError`]: a sharded run without `--shard`, a shard that never started, a `--shard`
/// that is not the saved one, settings that cannot be read.
pub fn saved<C>(
    dir: &Path,
    shard: Option<Shard>,
    file: &str,
    read: impl FnOnce(&Path) -> Result<C, SavedReadError>,
    shard_of: impl FnOnce(&C) -> Option<Shard>,
) -> Result<(C, PathBuf), ResumeError> {
    // A shard's own directory may be given with its --shard too.
    let in_shard_dir = shard.is_some() && dir.join(file).exists();
    let settings_dir = match in_shard_dir {
        true => dir.to_path_buf(),
        false => RunDir::process(dir, shard).root().to_path_buf(),
    };
    let saved = settings_dir.join(file);
    if !saved.exists() {
        let shards = RunDir::new(dir)
            .shard_dirs()
            .map_err(|e| ResumeError::Unreadable(Box::new(e)))?;
        let workers = RunDir::new(dir)
            .worker_dirs()
            .map_err(|e| ResumeError::Unreadable(Box::new(e)))?;
        match shard {
            None if !shards.is_empty() => return Err(ResumeError::NeedsShard(dir.to_path_buf())),
            None if !workers.is_empty() => {
                return Err(ResumeError::HoldsWorkers(dir.to_path_buf()));
            }
            Some(shard) if !shards.is_empty() => {
                return Err(ResumeError::ShardNotStarted {
                    run: dir.to_path_buf(),
                    shard,
                    saved,
                });
            }
            _ => {}
        }
    }
    let settings = read(&settings_dir).map_err(ResumeError::Unreadable)?;
    let run = match (shard, shard_of(&settings)) {
        (None, None) => dir.to_path_buf(),
        (Some(given), Some(was)) if given == was && !in_shard_dir => dir.to_path_buf(),
        (Some(given), Some(was)) if given == was => {
            RunDir::new(dir).parent_run().root().to_path_buf()
        }
        (None, Some(_)) => RunDir::new(dir).parent_run().root().to_path_buf(),
        (Some(given), was) => return Err(ResumeError::OtherShard { given, saved, was }),
    };
    Ok((settings, run))
}
