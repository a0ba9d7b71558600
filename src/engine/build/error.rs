//! [`BuildError`]: why an engine could not be built, each variant naming the path, commit,
//! command or log at fault.

use super::CACHE_ENV;
use crate::engine::source::SourceError;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why an engine could not be built.
#[derive(Debug)]
pub enum BuildError {
    /// No cache directory is set and there is no home directory.
    NoCacheDir,
    /// The source has no commit yet (a bug: sources are resolved before they are built).
    Unresolved(String),
    /// Git could not be run.
    Source(SourceError),
    /// The cache cannot be created, read or written.
    Cache {
        /// The path at fault.
        path: PathBuf,
        /// The operating system's reason.
        source: io::Error,
    },
    /// A finished entry that does not read: its `build.json` empty or not a build record, or
    /// its checkout gone.
    Damaged {
        /// The entry's directory.
        entry: PathBuf,
        /// What is wrong (`build.json is not JSON`).
        what: String,
    },
    /// The commit could not be checked out.
    Checkout {
        /// The repository.
        repo: String,
        /// The commit.
        commit: String,
        /// What git said.
        git: String,
    },
    /// bt-arena received SIGINT, SIGTERM or SIGHUP during the build (or while waiting for
    /// another process's): the build was stopped and nothing of it kept.
    Interrupted {
        /// The commit being built.
        commit: String,
    },
    /// The build command failed.
    Failed {
        /// The command.
        command: String,
        /// The commit it was run in.
        commit: String,
        /// How it ended (`exit status: 2`).
        status: String,
        /// The whole log.
        log: PathBuf,
        /// Its last [`LOG_TAIL_LINES`] lines.
        tail: Vec<String>,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoCacheDir => write!(
                f,
                "no build cache directory: give --build-cache DIR or set {CACHE_ENV} (HOME is \
                 not set)"
            ),
            BuildError::Unresolved(source) => {
                write!(f, "{source}: the revision was not resolved to a commit")
            }
            BuildError::Source(err) => err.fmt(f),
            BuildError::Cache { path, source } => {
                write!(f, "build cache {}: {source}", path.display())
            }
            BuildError::Interrupted { commit } => write!(
                f,
                "the build of commit {commit} was stopped by a signal to bt-arena (the build \
                 cache keeps nothing of it)"
            ),
            BuildError::Damaged { entry, what } => write!(
                f,
                "the cache entry {} is damaged ({what}); remove {0} or run with --rebuild",
                entry.display()
            ),
            BuildError::Checkout { repo, commit, git } => {
                write!(f, "cannot check out commit {commit} of {repo}: {git}")
            }
            BuildError::Failed {
                command,
                commit,
                status,
                log,
                tail,
            } => {
                write!(
                    f,
                    "the build failed ({status}): `{command}` at commit {commit}; the last lines \
                     of its log ({}):",
                    log.display()
                )?;
                for line in tail {
                    write!(f, "\n  | {line}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for BuildError {}

impl From<SourceError> for BuildError {
    fn from(err: SourceError) -> Self {
        BuildError::Source(err)
    }
}

pub(super) fn cache_error(path: &Path, source: io::Error) -> BuildError {
    BuildError::Cache {
        path: path.to_path_buf(),
        source,
    }
}
