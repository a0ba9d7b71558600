//! [`EngineKeys`]: the `key=value` tokens of one `--engine` (or `--each`) read one by one,
//! merged with `--each`'s, and checked together into an [`EngineDescription`]: one search
//! limit, the keys of an engine built from source, the keys a CodinGame bot takes.

use super::super::source::{EngineSource, absolute_repo};
use super::{
    DEFAULT_TIME_MARGIN_MS, DescriptionError, EngineDescription, EngineOptions,
    default_handshake_ms, default_name, default_ready_ms,
};
use crate::protocol::Protocol;
use crate::protocol::codingame::MoveOrder;
use crate::time_control::{TimeControl, seconds_to_ms};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// `key=value` settings of one `--engine` (or `--each`) before they become an
/// [`EngineDescription`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineKeys {
    cmd: Option<PathBuf>,
    name: Option<String>,
    args: Vec<String>,
    dir: Option<PathBuf>,
    proto: Option<Protocol>,
    move_order: Option<MoveOrder>,
    options: EngineOptions,
    limit: Option<TimeControl>,
    /// `tc=inf`: no clock (cutechess's infinite time control), so another limit must end
    /// each search.
    no_clock: bool,
    time_margin_ms: Option<u64>,
    handshake_timeout_ms: Option<u64>,
    ready_timeout_ms: Option<u64>,
    restart: Option<bool>,
    src: Option<String>,
    rev: Option<String>,
    build: Option<String>,
    bin: Option<PathBuf>,
    bench: Option<u64>,
}

/// Every engine key, as typed before its value (`option.` takes the option's name after it):
/// what the shell completion offers after `--engine` and `--each`.
pub const KEYS: [&str; 21] = [
    "cmd=",
    "name=",
    "args=",
    "arg=",
    "dir=",
    "proto=",
    "moveorder=",
    "option.",
    "tc=",
    "st=",
    "depth=",
    "nodes=",
    "timemargin=",
    "handshake=",
    "isready=",
    "restart=",
    "bench=",
    "src=",
    "rev=",
    "build=",
    "bin=",
];

impl EngineKeys {
    /// Parses `key=value` tokens: `cmd`, `name`, `args` (split at white space), `arg` (one
    /// argument, repeatable), `dir`, `proto=ugi|uci`, `option.NAME=VALUE`, `tc=[MOVES/]BASE[+INC]`
    /// (seconds; BASE also `M:SS`), `tc=inf` (no clock: with `depth`, `nodes` or `st`),
    /// `st=SECONDS`, `depth=N`, `nodes=N`, `timemargin=MS`, `handshake=SECONDS`,
    /// `isready=SECONDS` (positive), `restart=on|off`; for an engine built from a git revision
    /// `src=REPO` (a path or a URL), `rev=REF` (default `HEAD`), `build=CMD`, `bin=RELPATH`;
    /// and `bench=N`, the node count its bench must print.
    ///
    /// # Errors
    /// The first bad token, as a [`DescriptionError`]: not `key=value`, an unknown key, a bad
    /// value, or a second search limit (choose one of `tc`, `st`, `depth`, `nodes`).
    pub fn parse<S: AsRef<str>>(tokens: &[S]) -> Result<EngineKeys, DescriptionError> {
        let mut keys = EngineKeys::default();
        for token in tokens {
            keys.set(token.as_ref())?;
        }
        Ok(keys)
    }

    fn set(&mut self, token: &str) -> Result<(), DescriptionError> {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| DescriptionError::NotKeyValue(token.to_string()))?;
        let bad = |problem: &str| DescriptionError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            problem: problem.to_string(),
        };
        match key {
            "cmd" if value.is_empty() => return Err(bad("cmd cannot be empty")),
            "cmd" => self.cmd = Some(PathBuf::from(value)),
            "name" if value.is_empty() => return Err(bad("an engine name cannot be empty")),
            "name" => self.name = Some(value.to_string()),
            "args" => self.args = value.split_whitespace().map(String::from).collect(),
            "arg" => self.args.push(value.to_string()),
            "dir" => self.dir = Some(PathBuf::from(value)),
            "proto" => {
                self.proto = Some(
                    value
                        .parse()
                        .map_err(|e: crate::named::UnknownName| bad(&e.to_string()))?,
                )
            }
            "moveorder" => {
                self.move_order = Some(
                    value
                        .parse()
                        .map_err(|e: crate::named::UnknownName| bad(&e.to_string()))?,
                )
            }
            "tc" if value.starts_with("codingame") => self.set_limit(
                TimeControl::parse_codingame(value)
                    .unwrap_or_else(|| {
                        Err(crate::time_control::ClockError {
                            text: value.to_string(),
                            problem: crate::time_control::ClockProblem::CodinGame,
                        })
                    })
                    .map_err(DescriptionError::BadTimeControl)?,
                token,
            )?,
            "tc" if value == "inf" || value == "infinite" => match self.limit {
                Some(previous @ TimeControl::Clock { .. }) => {
                    return Err(DescriptionError::SecondLimit {
                        token: token.to_string(),
                        previous,
                    });
                }
                _ => self.no_clock = true,
            },
            "tc" if self.no_clock => {
                return Err(bad("tc=inf was given before: choose one time control"));
            }
            "tc" => self.set_limit(
                TimeControl::parse_clock(value).map_err(DescriptionError::BadTimeControl)?,
                token,
            )?,
            "st" => self.set_limit(
                TimeControl::MoveTime(positive_seconds_to_ms(value).map_err(|e| bad(&e))?),
                token,
            )?,
            "depth" => self.set_limit(
                TimeControl::Depth(parse_positive(value).map_err(|e| bad(&e))?),
                token,
            )?,
            "nodes" => self.set_limit(
                TimeControl::Nodes(parse_positive(value).map_err(|e| bad(&e))?),
                token,
            )?,
            "timemargin" => {
                self.time_margin_ms = Some(
                    value
                        .parse()
                        .map_err(|_| bad("expected whole milliseconds"))?,
                )
            }
            "handshake" => {
                self.handshake_timeout_ms =
                    Some(positive_seconds_to_ms(value).map_err(|e| bad(&e))?)
            }
            "isready" => {
                self.ready_timeout_ms = Some(positive_seconds_to_ms(value).map_err(|e| bad(&e))?)
            }
            "src" if value.is_empty() => return Err(bad("src cannot be empty")),
            "src" => self.src = Some(value.to_string()),
            "rev" if value.is_empty() => return Err(bad("rev cannot be empty")),
            "rev" => self.rev = Some(value.to_string()),
            "build" if value.trim().is_empty() => return Err(bad("build cannot be empty")),
            "build" => self.build = Some(value.to_string()),
            "bin" if value.is_empty() => return Err(bad("bin cannot be empty")),
            "bin" if Path::new(value).is_absolute() => {
                return Err(bad("bin is a path relative to the checkout"));
            }
            "bin" => self.bin = Some(PathBuf::from(value)),
            "bench" => self.bench = Some(parse_positive(value).map_err(|e| bad(&e))?),
            "restart" => {
                self.restart = Some(match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(bad("expected on or off")),
                })
            }
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.is_empty() => self.options.set(option, value),
                _ => {
                    return Err(DescriptionError::UnknownKey {
                        key: key.to_string(),
                        token: token.to_string(),
                    });
                }
            },
        }
        Ok(())
    }

    fn set_limit(&mut self, limit: TimeControl, token: &str) -> Result<(), DescriptionError> {
        if let Some(previous) = self.limit {
            return Err(DescriptionError::SecondLimit {
                token: token.to_string(),
                previous,
            });
        }
        self.limit = Some(limit);
        Ok(())
    }

    /// These keys with `each` filling what they leave unset. Options are merged: those of
    /// `each` first, then these keys' own (see [`EngineOptions::set`]: an option both give
    /// takes its own value, in its own place).
    pub fn with_defaults(mut self, each: &EngineKeys) -> EngineKeys {
        self.cmd = self.cmd.or_else(|| each.cmd.clone());
        self.name = self.name.or_else(|| each.name.clone());
        if self.args.is_empty() {
            self.args = each.args.clone();
        }
        self.dir = self.dir.or_else(|| each.dir.clone());
        self.proto = self.proto.or(each.proto);
        self.move_order = self.move_order.or(each.move_order);
        let mut options = each.options.clone();
        for (name, value) in self.options.pairs() {
            options.set(name, value);
        }
        self.options = options;
        // An engine's own `tc=inf` drops a clock of `each`, not its depth, node or time limit.
        let no_clock = self.no_clock || (self.limit.is_none() && each.no_clock);
        self.limit = match self.limit {
            Some(limit) => Some(limit),
            None if self.no_clock => each
                .limit
                .filter(|limit| !matches!(limit, TimeControl::Clock { .. })),
            None => each.limit,
        };
        self.no_clock = no_clock && !matches!(self.limit, Some(TimeControl::Clock { .. }));
        self.time_margin_ms = self.time_margin_ms.or(each.time_margin_ms);
        self.handshake_timeout_ms = self.handshake_timeout_ms.or(each.handshake_timeout_ms);
        self.ready_timeout_ms = self.ready_timeout_ms.or(each.ready_timeout_ms);
        self.restart = self.restart.or(each.restart);
        self.src = self.src.or_else(|| each.src.clone());
        self.rev = self.rev.or_else(|| each.rev.clone());
        self.build = self.build.or_else(|| each.build.clone());
        self.bin = self.bin.or_else(|| each.bin.clone());
        self.bench = self.bench.or(each.bench);
        self
    }

    /// The finished description; `default_limit` applies when no limit was given (`tc=inf`
    /// alone is refused: without a clock, a depth, node or time limit must end a search). With
    /// `src=`, the engine is built from source: its `cmd` is `bin=`, a local repository's
    /// path is made absolute, and its name stays NAME (`name=` or the repository's directory
    /// name) until its commit is known.
    ///
    /// # Errors
    /// [`DescriptionError::NoLimit`] for `tc=inf` without `depth`, `nodes` or `st`;
    /// [`DescriptionError::MissingCmd`] when neither `cmd` nor `src` is given;
    /// [`DescriptionError::CmdWithSrc`], [`DescriptionError::NeedsBin`] (`src` without `bin`),
    /// [`DescriptionError::NeedsSrc`] (`rev`, `build` or `bin` without `src`),
    /// [`DescriptionError::RepoPath`]; for a CodinGame bot [`DescriptionError::BotLimit`],
    /// [`DescriptionError::BotBench`], [`DescriptionError::BotOption`], and
    /// [`DescriptionError::MoveOrderWithoutBot`] for another engine.
    pub fn into_description(
        self,
        default_limit: TimeControl,
    ) -> Result<EngineDescription, DescriptionError> {
        if self.no_clock && self.limit.is_none() {
            return Err(DescriptionError::NoLimit);
        }
        let (cmd, source) = self.command_and_source()?;
        let proto = self.proto.unwrap_or_default();
        if proto.is_bot() {
            super::super::codingame::check_keys(self.limit, self.bench, &self.args, &self.options)?;
        } else if let Some(order) = self.move_order {
            return Err(DescriptionError::MoveOrderWithoutBot { order });
        }
        let name = self
            .name
            .unwrap_or_else(|| default_name(&cmd, source.as_ref()));
        Ok(EngineDescription {
            name,
            cmd,
            args: self.args,
            dir: self.dir,
            proto,
            move_order: self.move_order.unwrap_or_default(),
            options: self.options,
            limit: self.limit.unwrap_or(match proto.is_bot() {
                true => TimeControl::codingame(),
                false => default_limit,
            }),
            time_margin_ms: self.time_margin_ms.unwrap_or(match proto.is_bot() {
                true => 0,
                false => DEFAULT_TIME_MARGIN_MS,
            }),
            handshake_timeout_ms: self
                .handshake_timeout_ms
                .unwrap_or_else(default_handshake_ms),
            ready_timeout_ms: self.ready_timeout_ms.unwrap_or_else(default_ready_ms),
            restart: self.restart.unwrap_or(false),
            source,
            bench: self.bench,
            checkout: None,
            clock_scale: None,
        })
    }

    /// The command (`cmd=`, or `bin=` of an engine built from source) and the source.
    fn command_and_source(&self) -> Result<(PathBuf, Option<EngineSource>), DescriptionError> {
        let Some(repo) = &self.src else {
            if let Some(key) = [
                ("rev", self.rev.is_some()),
                ("build", self.build.is_some()),
                ("bin", self.bin.is_some()),
            ]
            .iter()
            .find_map(|&(key, given)| given.then_some(key))
            {
                return Err(DescriptionError::NeedsSrc { key });
            }
            let cmd = self.cmd.clone().ok_or(DescriptionError::MissingCmd)?;
            return Ok((cmd, None));
        };
        if self.cmd.is_some() {
            return Err(DescriptionError::CmdWithSrc);
        }
        let bin = self
            .bin
            .clone()
            .ok_or_else(|| DescriptionError::NeedsBin { repo: repo.clone() })?;
        let repo = absolute_repo(repo).map_err(|error| DescriptionError::RepoPath {
            repo: repo.clone(),
            error: error.into(),
        })?;
        Ok((
            bin,
            Some(EngineSource {
                repo,
                rev: self
                    .rev
                    .clone()
                    .unwrap_or_else(|| super::super::source::DEFAULT_REV.to_string()),
                commit: None,
                build: self.build.clone(),
            }),
        ))
    }
}

/// Seconds (a positive decimal) to whole milliseconds, at least 1.
fn positive_seconds_to_ms(text: &str) -> Result<u64, String> {
    match seconds_to_ms(text).map_err(|problem| problem.to_string())? {
        0 => Err(format!("'{text}' is not a positive number of seconds")),
        ms => Ok(ms),
    }
}

fn parse_positive<T: FromStr + PartialOrd + Default>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(value) if value > T::default() => Ok(value),
        _ => Err(format!("'{text}' is not a positive whole number")),
    }
}
