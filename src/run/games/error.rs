//! [`ReadError`]: why games cannot be read, each variant naming the file, directory, shard or
//! game at fault.

use crate::records::RecordsError;
use crate::run_dir::identity::Difference;
use crate::run_dir::{RunDir, RunDirError, Shard};
use std::fmt;
use std::path::PathBuf;

/// Why games cannot be read.
#[derive(Debug)]
pub enum ReadError {
    /// A games file that cannot be read or holds a malformed game.
    Results(RecordsError),
    /// A run directory that cannot be read.
    RunDir(RunDirError),
    /// A config.json that cannot be read.
    Config(crate::run::settings::SettingsError),
    /// A sharded run read without any shard directory.
    NoShards,
    /// A file too large, or a game id beyond the run's schedule, to be indexed.
    Index {
        /// The games file.
        file: PathBuf,
        /// Why.
        problem: crate::run::rows::RowsError,
    },
    /// The same file (or a directory holding it) given twice.
    GivenTwice(PathBuf),
    /// A directory holding neither games nor shards.
    NoGames(PathBuf),
    /// A run of shards or workers (its identity.json) none of which has recorded a game
    /// yet: incomplete, every game of its schedule missing (exit code 5, as any incomplete
    /// run).
    NotStarted(PathBuf),
    /// Two shard directories whose configs differ: not shards of one run.
    NotOneRun {
        /// The first shard directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
        /// The first differing field.
        difference: Difference,
    },
    /// Two directories holding the same shard of one run.
    ShardTwice {
        /// The shard.
        shard: Shard,
        /// The first directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// A game read twice: its run and game id, and both places (`FILE line N`).
    Duplicate {
        /// The game id.
        game_id: u64,
        /// Where it was read first.
        first: String,
        /// Where it came again.
        second: String,
    },
    /// A game of a run that its schedule (or its shard's part of it) does not hold.
    Foreign {
        /// Where it is (`FILE line N`).
        place: String,
        /// The game id.
        game_id: u64,
        /// Why it is not the run's.
        why: String,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Results(err) => err.fmt(f),
            ReadError::RunDir(err) => err.fmt(f),
            ReadError::Config(err) => err.fmt(f),
            ReadError::NoShards => f.write_str("no shard directories to read"),
            ReadError::Index { file, problem } => write!(f, "{}: {problem}", file.display()),
            ReadError::GivenTwice(path) => write!(
                f,
                "{} is given twice: its games would be counted twice",
                path.display()
            ),
            ReadError::NoGames(dir) => write!(
                f,
                "{} holds no games.csv and no shard directories",
                dir.display()
            ),
            ReadError::NotStarted(dir) => write!(
                f,
                "{} is a run of shards or workers none of which has recorded a game yet ({}, \
                 no worker or shard directory with games): every game of its schedule is \
                 missing; start a worker (the run's flags and --out {0} --worker) or its \
                 shards, then read the run again",
                dir.display(),
                RunDir::new(dir).identity_json().display()
            ),
            ReadError::NotOneRun {
                first,
                second,
                difference,
            } => write!(
                f,
                "{} and {} are not shards of one run: {difference}",
                first.display(),
                second.display()
            ),
            ReadError::ShardTwice {
                shard,
                first,
                second,
            } => write!(
                f,
                "{} and {} are both shard {shard} (a copied shard directory?): its games would \
                 be counted twice",
                first.display(),
                second.display()
            ),
            ReadError::Duplicate {
                game_id,
                first,
                second,
            } => write!(
                f,
                "game {game_id} of one run comes twice: {first} and {second}; give each file or \
                 run once (a run's games.csv and its games.pgn hold the same games)"
            ),
            ReadError::Foreign {
                place,
                game_id,
                why,
            } => write!(f, "{place}: game {game_id} is {why}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<RecordsError> for ReadError {
    fn from(err: RecordsError) -> Self {
        ReadError::Results(err)
    }
}

impl From<RunDirError> for ReadError {
    fn from(err: RunDirError) -> Self {
        ReadError::RunDir(err)
    }
}
