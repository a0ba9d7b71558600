//! What `--resume DIR` continues, for every kind of run: the run's saved config (of one shard
//! with `--shard`, or of the shard whose directory is given), writing where the run was first
//! started ([`crate::run::resume::saved`]). What a resumed session may change is said where
//! the command line defines each flag.

use super::RunConfig;
use crate::run::resume::{self, ResumeError};
use crate::run_dir::Shard;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a saved config cannot be read.
#[derive(Debug)]
pub enum SavedError {
    /// The file cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// It is not a config of this kind of run.
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, naming the field.
        reason: serde_json::Error,
    },
    /// Its settings are refused.
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl fmt::Display for SavedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SavedError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            SavedError::Parse { path, reason } => {
                write!(f, "bad config {}: {reason}", path.display())
            }
            SavedError::Invalid { path, error } => {
                write!(f, "bad config {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for SavedError {}

/// The config of kind `C` saved in the directory `dir` (its `C::TYPE.file`), checked.
///
/// # Errors
/// [`SavedError`] naming the file.
pub fn read_saved<C: RunConfig>(dir: &Path) -> Result<C, SavedError> {
    let path = dir.join(C::TYPE.file);
    let text = crate::textfile::read_to_string(&path).map_err(|source| SavedError::Read {
        path: path.clone(),
        source,
    })?;
    let config: C = serde_json::from_str(&text).map_err(|reason| SavedError::Parse {
        path: path.clone(),
        reason,
    })?;
    config
        .validate()
        .map_err(|error| SavedError::Invalid { path, error })?;
    Ok(config)
}

/// The saved config of kind `C` of the run in `dir` (absolute), of its shard `shard` (in
/// `dir/shard-K`), or of the shard whose own directory `dir` is; its `out` is set to the
/// run's directory wherever the run was first started.
///
/// # Errors
/// [`ResumeError`]: a sharded run without `--shard`, a shard that never started, a `--shard`
/// that is not the saved one, a config that cannot be read.
pub fn saved<C: RunConfig>(dir: &Path, shard: Option<Shard>) -> Result<C, ResumeError> {
    let (mut config, out) = resume::saved(
        dir,
        shard,
        C::TYPE.file,
        |dir| read_saved::<C>(dir).map_err(|e| Box::new(e) as resume::SavedReadError),
        |config: &C| config.header().shard,
    )?;
    config.header_mut().out = out;
    Ok(config)
}
