//! [`DescriptionError`]: what is wrong with the `key=value` settings of an engine, each
//! variant carrying the key, value or limit at fault.

use crate::protocol::codingame::MoveOrder;
use crate::time_control::TimeControl;
use std::fmt;
use std::io;
use std::sync::Arc;

/// What is wrong with the `key=value` settings of an engine ([`EngineKeys`]).
#[derive(Clone, Debug, PartialEq)]
pub enum DescriptionError {
    /// A token without `=` (the token).
    NotKeyValue(String),
    /// A key no engine setting has, `option.NAME` aside.
    UnknownKey {
        /// The key, e.g. `colour`.
        key: String,
        /// The whole token, e.g. `colour=red`.
        token: String,
    },
    /// A known key with a value it cannot take.
    BadValue {
        /// The key, e.g. `restart`.
        key: String,
        /// The value given, e.g. `maybe`.
        value: String,
        /// Why it cannot be used, e.g. `expected on or off`.
        problem: String,
    },
    /// A `tc=` value that is not a time control; the text names it and says why.
    BadTimeControl(crate::time_control::ClockError),
    /// A second search limit (only one of `tc`, `st`, `depth`, `nodes` may be given).
    SecondLimit {
        /// The token giving the second limit.
        token: String,
        /// The limit given before it.
        previous: TimeControl,
    },
    /// `tc=inf` (no clock) without a limit that ends each search.
    NoLimit,
    /// No `cmd=`: the engine has no program to run.
    MissingCmd,
    /// `rev=`, `build=` or `bin=` without `src=`: keys of an engine built from source for an
    /// engine that is not.
    NeedsSrc {
        /// The key given, without its `=` (`rev`, `build` or `bin`).
        key: &'static str,
    },
    /// `cmd=` and `src=` both given: an engine built from source names its executable with
    /// `bin=`.
    CmdWithSrc,
    /// `src=` without `bin=`: the executable in the checkout is not named.
    NeedsBin {
        /// The repository given (`src=`).
        repo: String,
    },
    /// `src=` names a local repository whose absolute path cannot be made (the current
    /// directory cannot be read).
    RepoPath {
        /// The repository given (`src=`).
        repo: String,
        /// The operating system's reason.
        error: OsError,
    },
    /// A depth or node limit for a CodinGame bot, which is told no limit.
    BotLimit {
        /// The limit given (`depth=N` or `nodes=N`).
        limit: TimeControl,
    },
    /// `bench=` for a CodinGame bot, which has no bench.
    BotBench,
    /// An option for a CodinGame bot that none of its arguments' placeholders takes.
    BotOption {
        /// The option's name, as given after `option.`.
        name: String,
        /// Its value.
        value: String,
    },
    /// `moveorder=` for an engine that is not a CodinGame bot.
    MoveOrderWithoutBot {
        /// The order given.
        order: MoveOrder,
    },
}

/// An operating-system error kept in a [`DescriptionError`], which is `Clone` and `PartialEq`:
/// shared, and equal to another of the same kind and OS error code. Displays as the error
/// itself.
#[derive(Clone, Debug)]
pub struct OsError(pub Arc<io::Error>);

impl From<io::Error> for OsError {
    fn from(error: io::Error) -> Self {
        OsError(Arc::new(error))
    }
}

impl PartialEq for OsError {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.raw_os_error() == other.0.raw_os_error()
    }
}

impl fmt::Display for OsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescriptionError::NotKeyValue(token)
                if !token.contains('=') && !token.starts_with('-') =>
            {
                write!(
                    f,
                    "'{token}' is not key=value (give a command as cmd={token})"
                )
            }
            DescriptionError::NotKeyValue(token) => write!(f, "'{token}' is not key=value"),
            DescriptionError::UnknownKey { key, token } => {
                write!(f, "unknown engine key '{key}' in '{token}'")
            }
            DescriptionError::BadValue {
                key,
                value,
                problem,
            } => write!(f, "bad value in '{key}={value}': {problem}"),
            DescriptionError::BadTimeControl(error) => error.fmt(f),
            DescriptionError::SecondLimit { token, previous } => write!(
                f,
                "'{token}' gives a second search limit after {previous}: \
                 choose one of tc, st, depth, nodes"
            ),
            DescriptionError::NoLimit => f.write_str(
                "tc=inf (no clock) needs a limit that ends each search: add depth=N, nodes=N \
                 or st=SECONDS (bt-arena has no unlimited time control)",
            ),
            DescriptionError::MissingCmd => f.write_str(
                "an engine needs cmd=PATH (e.g. --engine cmd=./my-engine name=mine), or src=REPO \
                 bin=RELPATH to build it from a git revision",
            ),
            DescriptionError::NeedsSrc { key } => write!(
                f,
                "{key}= needs src=REPO (the git repository the engine is built from)"
            ),
            DescriptionError::CmdWithSrc => f.write_str(
                "cmd= and src= cannot both be given: an engine built from source names its \
                 executable in the checkout with bin=RELPATH",
            ),
            DescriptionError::NeedsBin { repo } => write!(
                f,
                "src={repo} needs bin=RELPATH: the engine's executable in the checkout, once \
                 built (e.g. bin=target/release/my-engine)"
            ),
            DescriptionError::RepoPath { repo, error } => write!(f, "src={repo}: {error}"),
            DescriptionError::BotLimit { limit } => write!(
                f,
                "{limit}: a CodinGame bot is told no limit, so it cannot stop at a depth or a \
                 node count: give it tc=codingame (its default), a clock or st=SECONDS"
            ),
            DescriptionError::BotBench => {
                f.write_str("bench=: a CodinGame bot has no bench (OpenBench's `ENGINE bench`)")
            }
            DescriptionError::BotOption { name, value } => write!(
                f,
                "option.{name}={value}: a CodinGame bot has no options; its arguments may hold \
                 {{{name}}}, which option.{name} then fills (args=\"--{} {{{name}}}\")",
                name.to_lowercase()
            ),
            DescriptionError::MoveOrderWithoutBot { order } => write!(
                f,
                "moveorder={order} is for a CodinGame bot (proto=codingame)"
            ),
        }
    }
}

impl std::error::Error for DescriptionError {}
