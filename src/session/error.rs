//! One error for a run's failures, whatever its kind: what every kind shares is a case here,
//! and the kind's own failures are one typed case ([`SessionError::Kind`]).

use crate::arena::prepare::PrepareError;
use crate::arena::{ArenaError, LockError};
use crate::openings::BookError;
use crate::openings::spec::DigestError;
use crate::records::RecordsError;
use crate::run::games::ReadError;
use crate::run::identity::{IdentityError, RunType};
use std::fmt;
use std::path::PathBuf;

/// Why a run stopped before or after its games (an engine failing during a game is
/// adjudicated, not an error). `E` is the kind's own error.
#[derive(Debug)]
pub enum SessionError<E> {
    /// An engine cannot be made ready: its source resolved, built, benched, its clock scaled.
    Prepare(PrepareError),
    /// The opening book cannot be used.
    Book(BookError),
    /// The book cannot be read for its digest, or changed since the run started.
    Digest(DigestError),
    /// The run cannot start in its directory: it holds another run, or the shard's or
    /// worker's settings are not the run's (boxed: the error is large).
    Identity(Box<IdentityError>),
    /// A new run given a directory that holds one.
    OutputExists {
        /// The directory.
        dir: PathBuf,
        /// The type of run.
        of: RunType,
        /// The command that continues the run there.
        resume: String,
    },
    /// The directory is locked by another bt-arena, or cannot be locked.
    Lock(LockError),
    /// The run's files cannot be read or written.
    Results(RecordsError),
    /// The arena stopped: a game that cannot be recorded, recorded games that cannot be
    /// counted, leases that cannot be used, the schedule's failure.
    Arena(ArenaError<E>),
    /// The run's games cannot be read back for its report.
    Read(ReadError),
    /// The kind's own failure (its settings, its files).
    Kind(E),
}

impl<E: fmt::Display> fmt::Display for SessionError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Prepare(err) => err.fmt(f),
            SessionError::Book(err) => err.fmt(f),
            SessionError::Digest(err) => err.fmt(f),
            SessionError::Identity(err) => err.fmt(f),
            SessionError::OutputExists { dir, of, resume } => write!(
                f,
                "{} already holds a {}: continue it with `{resume}`, or choose another --out",
                dir.display(),
                of.noun
            ),
            SessionError::Lock(err) => err.fmt(f),
            SessionError::Results(err) => err.fmt(f),
            SessionError::Arena(err) => err.fmt(f),
            SessionError::Read(err) => err.fmt(f),
            SessionError::Kind(err) => err.fmt(f),
        }
    }
}

impl<E: std::error::Error> std::error::Error for SessionError<E> {}

impl<E> From<PrepareError> for SessionError<E> {
    fn from(err: PrepareError) -> Self {
        SessionError::Prepare(err)
    }
}

impl<E> From<BookError> for SessionError<E> {
    fn from(err: BookError) -> Self {
        SessionError::Book(err)
    }
}

impl<E> From<DigestError> for SessionError<E> {
    fn from(err: DigestError) -> Self {
        SessionError::Digest(err)
    }
}

impl<E> From<LockError> for SessionError<E> {
    fn from(err: LockError) -> Self {
        SessionError::Lock(err)
    }
}

impl<E> From<RecordsError> for SessionError<E> {
    fn from(err: RecordsError) -> Self {
        SessionError::Results(err)
    }
}

impl<E> From<ReadError> for SessionError<E> {
    fn from(err: ReadError) -> Self {
        SessionError::Read(err)
    }
}

impl<E> SessionError<E> {
    /// Whether the command line is at fault (exit code 3) rather than the machine, the
    /// files or the engines: a reference speed too low for this machine (`--scale-tc`), a
    /// revision of an engine's source that cannot be resolved (`rev=`), a book of another
    /// board than `--board`'s.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            SessionError::Prepare(
                PrepareError::ScaledBelowFloor { .. } | PrepareError::Source { .. }
            ) | SessionError::Book(BookError::Line {
                reason: crate::openings::LineError::Board { .. },
                ..
            })
        )
    }

    /// Whether a signal stopped the preparation (a build or bench).
    pub fn is_interrupted(&self) -> bool {
        matches!(self, SessionError::Prepare(err) if err.is_interrupted())
    }
}
