//! Tournament configuration: engines, search limits, schedule, openings and output.
//!
//! The command line (`--engine key=value ...`, cutechess-cli/fastchess style) and a config file
//! (TOML or JSON, the same fields) both produce a [`TournamentConfig`], which is saved with the
//! results as `config.json` so a run can be resumed exactly.

use crate::engine::protocol::{GoLimits, Protocol};
use crate::engine::{EngineConfig, Timeouts};
use crate::results::moves::CommentDetail;
use crate::rules::Rules;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// How long an engine may think: the search limit sent with every `go`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeControl {
    /// A clock: `base_ms` for the game plus `increment_ms` after each move (`tc=BASE+INC`, in
    /// seconds on the command line).
    Clock {
        /// Time for the whole game, ms.
        base_ms: u64,
        /// Time added after each move, ms.
        increment_ms: u64,
    },
    /// A fixed time per move, ms (`st=SECONDS`).
    MoveTime(u64),
    /// A fixed depth in plies (`depth=N`).
    Depth(u32),
    /// A fixed number of nodes (`nodes=N`).
    Nodes(u64),
}

impl TimeControl {
    /// Parses `BASE+INC` or `BASE` in seconds (decimals allowed), e.g. `10+0.1` or `8`.
    ///
    /// # Errors
    /// A message naming the bad value.
    pub fn parse_clock(text: &str) -> Result<TimeControl, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        Ok(TimeControl::Clock {
            base_ms: seconds_to_ms(base).map_err(|e| format!("bad tc '{text}': {e}"))?,
            increment_ms: seconds_to_ms(increment).map_err(|e| format!("bad tc '{text}': {e}"))?,
        })
    }
}

impl TimeControl {
    /// The `go` limits of this control for a position searched on its own: a clock as both
    /// sides' full base time and increment, any other control as its fixed limit.
    pub fn go_limits(self) -> GoLimits {
        match self {
            TimeControl::Clock {
                base_ms,
                increment_ms,
            } => GoLimits::clock(base_ms, base_ms, increment_ms, increment_ms),
            TimeControl::MoveTime(ms) => GoLimits::movetime(ms),
            TimeControl::Depth(depth) => GoLimits::depth(depth),
            TimeControl::Nodes(nodes) => GoLimits::nodes(nodes),
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Clock {
                base_ms,
                increment_ms,
            } => write!(
                f,
                "tc={}+{}",
                *base_ms as f64 / 1e3,
                *increment_ms as f64 / 1e3
            ),
            TimeControl::MoveTime(ms) => write!(f, "st={}", *ms as f64 / 1e3),
            TimeControl::Depth(depth) => write!(f, "depth={depth}"),
            TimeControl::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

/// Seconds (a non-negative decimal) to whole milliseconds.
fn seconds_to_ms(text: &str) -> Result<u64, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(0.0..=1e9).contains(&seconds) {
        return Err(format!("'{text}' is not a non-negative number of seconds"));
    }
    Ok((seconds * 1e3).round() as u64)
}

/// One engine of the tournament, as given by `--engine key=value ...` (after `--each`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// Display name, unique within the tournament; defaults to the command's file name.
    pub name: String,
    /// The executable (run directly, no shell).
    pub cmd: PathBuf,
    /// Arguments passed to the executable.
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory of the engine process.
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// Protocol: `ugi` (default) or `uci`.
    #[serde(default)]
    pub proto: Protocol,
    /// Engine options sent with `setoption` (`option.Hash=64`), in the order given.
    #[serde(default)]
    pub options: EngineOptions,
    /// The search limit.
    pub limit: TimeControl,
    /// Tolerance in ms before a late move loses on time (`timemargin=`).
    #[serde(default = "default_time_margin_ms")]
    pub time_margin_ms: u64,
    /// How long the engine may take to answer the handshake (`ugi` → `ugiok`), ms
    /// (`handshake=SECONDS`).
    #[serde(default = "default_handshake_ms")]
    pub handshake_timeout_ms: u64,
    /// How long the engine may take to answer each `isready` (at start and before each game),
    /// ms (`isready=SECONDS`).
    #[serde(default = "default_ready_ms")]
    pub ready_timeout_ms: u64,
    /// Start a fresh process for every game (`restart=on`) or keep it between games (`off`,
    /// the default). A crashed engine is always restarted.
    #[serde(default)]
    pub restart: bool,
}

impl EngineSpec {
    /// How to run this engine: its command, arguments, directory, protocol, options (in the
    /// order given) and handshake and `isready` timeouts (the default quit grace), and no log
    /// files (set `stderr_log` and `comm_log` on the result to keep them).
    pub fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            name: self.name.clone(),
            cmd: self.cmd.clone(),
            args: self.args.clone(),
            dir: self.dir.clone(),
            env: Vec::new(),
            proto: self.proto,
            options: self.options.pairs().to_vec(),
            stderr_log: None,
            comm_log: None,
            timeouts: Timeouts {
                handshake: Duration::from_millis(self.handshake_timeout_ms),
                ready: Duration::from_millis(self.ready_timeout_ms),
                ..Timeouts::default()
            },
        }
    }
}

/// Engine options (`setoption` name and value) in the order the user gave them: engines may
/// depend on it (Fairy-Stockfish takes `UCI_Variant` values only after `VariantPath` has
/// loaded them). Written as a map in config files (`options = { Hash = "64" }`), read back
/// in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineOptions(Vec<(String, String)>);

impl EngineOptions {
    /// Sets option `name` to `value`. A name given before (compared case-insensitively, as
    /// engines compare option names) is dropped from its place: the last value given wins,
    /// sent where it was given last.
    pub fn set(&mut self, name: &str, value: &str) {
        self.0
            .retain(|(given, _)| !given.eq_ignore_ascii_case(name));
        self.0.push((name.to_string(), value.to_string()));
    }

    /// The value given for `name` (case-insensitively), if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(given, _)| given.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The (name, value) pairs in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }
}

impl<N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for EngineOptions {
    /// Options set in iteration order, as by [`EngineOptions::set`].
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> Self {
        let mut options = EngineOptions::default();
        for (name, value) in pairs {
            options.set(name.as_ref(), value.as_ref());
        }
        options
    }
}

impl Serialize for EngineOptions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for EngineOptions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = EngineOptions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table of option names and string values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EngineOptions, A::Error> {
                let mut options = EngineOptions::default();
                while let Some((name, value)) = map.next_entry::<String, String>()? {
                    options.set(&name, &value);
                }
                Ok(options)
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

/// Default tolerance for a late move, ms.
pub const DEFAULT_TIME_MARGIN_MS: u64 = 100;

fn default_time_margin_ms() -> u64 {
    DEFAULT_TIME_MARGIN_MS
}

fn default_handshake_ms() -> u64 {
    Timeouts::default().handshake.as_millis() as u64
}

fn default_ready_ms() -> u64 {
    Timeouts::default().ready.as_millis() as u64
}

/// `key=value` settings of one `--engine` (or `--each`) before they become an [`EngineSpec`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineKeys {
    cmd: Option<PathBuf>,
    name: Option<String>,
    args: Vec<String>,
    dir: Option<PathBuf>,
    proto: Option<Protocol>,
    options: EngineOptions,
    limit: Option<TimeControl>,
    time_margin_ms: Option<u64>,
    handshake_timeout_ms: Option<u64>,
    ready_timeout_ms: Option<u64>,
    restart: Option<bool>,
}

impl EngineKeys {
    /// Parses `key=value` tokens: `cmd`, `name`, `args` (split at white space), `arg` (one
    /// argument, repeatable), `dir`, `proto=ugi|uci`, `option.NAME=VALUE`, `tc=BASE+INC`
    /// (seconds), `st=SECONDS`, `depth=N`, `nodes=N`, `timemargin=MS`, `handshake=SECONDS`,
    /// `isready=SECONDS` (positive), `restart=on|off`.
    ///
    /// # Errors
    /// A message naming the bad token: not `key=value`, an unknown key, a bad value, or two
    /// search limits (choose one of `tc`, `st`, `depth`, `nodes`).
    pub fn parse<S: AsRef<str>>(tokens: &[S]) -> Result<EngineKeys, String> {
        let mut keys = EngineKeys::default();
        for token in tokens {
            keys.set(token.as_ref())?;
        }
        Ok(keys)
    }

    fn set(&mut self, token: &str) -> Result<(), String> {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| format!("'{token}' is not key=value"))?;
        let bad = |what: &str| format!("bad value in '{token}': {what}");
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
                        .map_err(|e: crate::engine::protocol::ProtocolError| bad(&e.to_string()))?,
                )
            }
            "tc" => self.set_limit(TimeControl::parse_clock(value)?, token)?,
            "st" => self.set_limit(
                TimeControl::MoveTime(seconds_to_ms(value).map_err(|e| bad(&e))?),
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
            "restart" => {
                self.restart = Some(match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(bad("expected on or off")),
                })
            }
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.is_empty() => self.options.set(option, value),
                _ => return Err(format!("unknown engine key '{key}' in '{token}'")),
            },
        }
        Ok(())
    }

    fn set_limit(&mut self, limit: TimeControl, token: &str) -> Result<(), String> {
        if let Some(previous) = self.limit {
            return Err(format!(
                "'{token}' gives a second search limit after {previous}: choose one of tc, st, depth, nodes"
            ));
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
        let mut options = each.options.clone();
        for (name, value) in self.options.pairs() {
            options.set(name, value);
        }
        self.options = options;
        self.limit = self.limit.or(each.limit);
        self.time_margin_ms = self.time_margin_ms.or(each.time_margin_ms);
        self.handshake_timeout_ms = self.handshake_timeout_ms.or(each.handshake_timeout_ms);
        self.ready_timeout_ms = self.ready_timeout_ms.or(each.ready_timeout_ms);
        self.restart = self.restart.or(each.restart);
        self
    }

    /// The finished spec; `default_limit` applies when no limit was given.
    ///
    /// # Errors
    /// When `cmd` is missing.
    pub fn into_spec(self, default_limit: TimeControl) -> Result<EngineSpec, String> {
        let cmd = self
            .cmd
            .ok_or("an engine needs cmd=PATH (e.g. --engine cmd=./my-engine name=mine)")?;
        let name = self.name.unwrap_or_else(|| {
            cmd.file_name()
                .map_or_else(|| cmd.display().to_string(), |n| n.to_string_lossy().into())
        });
        Ok(EngineSpec {
            name,
            cmd,
            args: self.args,
            dir: self.dir,
            proto: self.proto.unwrap_or_default(),
            options: self.options,
            limit: self.limit.unwrap_or(default_limit),
            time_margin_ms: self.time_margin_ms.unwrap_or(DEFAULT_TIME_MARGIN_MS),
            handshake_timeout_ms: self
                .handshake_timeout_ms
                .unwrap_or_else(default_handshake_ms),
            ready_timeout_ms: self.ready_timeout_ms.unwrap_or_else(default_ready_ms),
            restart: self.restart.unwrap_or(false),
        })
    }
}

/// Seconds (a positive decimal) to whole milliseconds, at least 1.
fn positive_seconds_to_ms(text: &str) -> Result<u64, String> {
    match seconds_to_ms(text)? {
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

/// Who meets whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Every engine meets every other one.
    #[default]
    RoundRobin,
    /// The first engine meets each other one; the others do not meet.
    Gauntlet,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "roundrobin" | "round-robin" => Ok(Format::RoundRobin),
            "gauntlet" => Ok(Format::Gauntlet),
            _ => Err(format!(
                "unknown format '{s}' (expected roundrobin or gauntlet)"
            )),
        }
    }
}

/// The order in which game pairs take openings from the book.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpeningOrder {
    /// Book order, wrapping around.
    #[default]
    Sequential,
    /// A seeded shuffle of the book, each opening used once before any repeats.
    Random,
}

/// Where openings come from (`--openings file=PATH order=sequential|random`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningsSpec {
    /// The book; `None` means the start position only.
    pub file: Option<PathBuf>,
    /// How pairs take openings from it.
    #[serde(default)]
    pub order: OpeningOrder,
}

impl OpeningsSpec {
    /// Parses `file=PATH order=sequential|random` tokens (`format=epd` is accepted).
    ///
    /// # Errors
    /// A message naming the bad token.
    pub fn parse<S: AsRef<str>>(tokens: &[S]) -> Result<OpeningsSpec, String> {
        let mut spec = OpeningsSpec::default();
        for token in tokens {
            let token = token.as_ref();
            match token.split_once('=') {
                Some(("file", path)) => spec.file = Some(PathBuf::from(path)),
                Some(("order", "sequential")) => spec.order = OpeningOrder::Sequential,
                Some(("order", "random")) => spec.order = OpeningOrder::Random,
                Some(("format", "epd")) => {}
                _ => {
                    return Err(format!(
                        "bad --openings token '{token}' (expected file=PATH, order=sequential|random)"
                    ));
                }
            }
        }
        Ok(spec)
    }
}

/// Everything that defines a tournament; saved as `config.json` in the results directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    /// Event name (PGN `Event`, the default results directory).
    #[serde(default = "default_event")]
    pub event: String,
    /// The engines, at least two, with unique names.
    pub engines: Vec<EngineSpec>,
    /// Round-robin or gauntlet.
    #[serde(default)]
    pub format: Format,
    /// The rule set.
    #[serde(default)]
    pub rules: Rules,
    /// Openings.
    #[serde(default)]
    pub openings: OpeningsSpec,
    /// Rounds: each round plays `games` games for every pairing.
    #[serde(default = "default_rounds")]
    pub rounds: u32,
    /// Games per pairing per round; an even number plays whole game pairs.
    #[serde(default = "default_games")]
    pub games: u32,
    /// Games played at the same time.
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Seed of every random choice (opening order), so a run is repeatable; drawn at random
    /// when not given.
    #[serde(default = "random_seed")]
    pub seed: u64,
    /// `elo0=.. elo1=.. alpha=.. beta=..`: stop when the SPRT between the two engines decides.
    #[serde(default)]
    pub sprt: Option<String>,
    /// The results directory (the command line picks `results/<event>-<date>` when empty).
    #[serde(default)]
    pub out: PathBuf,
    /// Write each engine's protocol traffic to `<out>/logs/<engine>-<worker>.log`.
    #[serde(default)]
    pub log: bool,
    /// How much the move comments of games.pgn say (`full`, `short`, `none`).
    #[serde(default)]
    pub pgn_comments: CommentDetail,
}

fn default_event() -> String {
    "bt-arena".to_string()
}
fn default_rounds() -> u32 {
    1
}
fn random_seed() -> u64 {
    fastrand::u64(..)
}
fn default_games() -> u32 {
    2
}
fn default_concurrency() -> usize {
    1
}

impl TournamentConfig {
    /// Checks what serde cannot: at least two engines, unique names, positive counts, a
    /// well-formed SPRT between exactly two engines.
    ///
    /// # Errors
    /// A message saying what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.engines.len() < 2 {
            return Err(format!(
                "a tournament needs at least two engines, got {}",
                self.engines.len()
            ));
        }
        for engine in &self.engines {
            if engine.name.trim().is_empty() || engine.name.chars().any(char::is_control) {
                return Err(format!(
                    "bad engine name {:?}: names must be non-empty and free of control characters",
                    engine.name
                ));
            }
        }
        for (index, engine) in self.engines.iter().enumerate() {
            if self.engines[..index].iter().any(|e| e.name == engine.name) {
                return Err(format!(
                    "two engines are named '{}': give each a unique name=",
                    engine.name
                ));
            }
        }
        for (what, value) in [
            ("rounds", self.rounds as usize),
            ("games", self.games as usize),
            ("concurrency", self.concurrency),
        ] {
            if value == 0 {
                return Err(format!("{what} must be at least 1"));
            }
        }
        if let Some(spec) = &self.sprt {
            spec.parse::<crate::stats::Sprt>()
                .map_err(|e| format!("bad --sprt '{spec}': {e}"))?;
            if self.engines.len() != 2 {
                return Err("--sprt needs exactly two engines".to_string());
            }
        }
        Ok(())
    }

    /// Reads a config file: TOML, or JSON when the name ends in `.json`; a byte-order mark at
    /// its start is skipped.
    ///
    /// # Errors
    /// A message naming the file and what is wrong.
    pub fn read(path: &Path) -> Result<TournamentConfig, String> {
        let text = crate::textfile::read_to_string(path)
            .map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        let is_json = path.extension().is_some_and(|ext| ext == "json");
        let config: TournamentConfig = if is_json {
            serde_json::from_str(&text).map_err(|e| e.to_string())
        } else {
            toml::from_str(&text).map_err(|e| e.to_string())
        }
        .map_err(|e| format!("bad config {}: {e}", path.display()))?;
        config
            .validate()
            .map_err(|e| format!("bad config {}: {e}", path.display()))?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: TimeControl = TimeControl::MoveTime(100);

    #[test]
    fn engine_keys_parse_with_each_defaults() {
        let each = EngineKeys::parse(&["tc=10+0.1", "proto=uci", "option.Hash=16"]).unwrap();
        let spec = EngineKeys::parse(&[
            "cmd=./engines/a",
            "option.Hash=64",
            "option.Eval=material",
            "args=--x 1",
        ])
        .unwrap()
        .with_defaults(&each)
        .into_spec(DEFAULT)
        .unwrap();
        assert_eq!(spec.name, "a");
        assert_eq!(spec.args, ["--x", "1"]);
        assert_eq!(spec.proto, Protocol::Uci);
        assert_eq!(spec.options.get("Hash"), Some("64"));
        assert_eq!(spec.options.get("eval"), Some("material"));
        assert_eq!(
            spec.limit,
            TimeControl::Clock {
                base_ms: 10_000,
                increment_ms: 100
            }
        );
        assert_eq!(spec.time_margin_ms, DEFAULT_TIME_MARGIN_MS);
        assert_eq!(spec.engine_config().timeouts, Timeouts::default());
        assert!(!spec.restart);
    }

    fn names(options: &EngineOptions) -> Vec<(&str, &str)> {
        options
            .pairs()
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect()
    }

    #[test]
    fn options_keep_the_order_given() {
        let each = EngineKeys::parse(&["option.VariantPath=v.ini", "option.Hash=16"]).unwrap();
        let spec = EngineKeys::parse(&[
            "cmd=x",
            "option.Threads=1",
            "option.UCI_Variant=breakthrough-capture-only",
            "option.hash=64",
            "option.Threads=2",
        ])
        .unwrap()
        .with_defaults(&each)
        .into_spec(DEFAULT)
        .unwrap();
        assert_eq!(
            names(&spec.options),
            [
                ("VariantPath", "v.ini"),
                ("UCI_Variant", "breakthrough-capture-only"),
                ("hash", "64"),
                ("Threads", "2"),
            ]
        );
        assert_eq!(spec.engine_config().options, spec.options.pairs().to_vec());
    }

    #[test]
    fn config_files_keep_the_order_of_options() {
        let toml_text = r#"
            name = "fsf"
            cmd = "fairy-stockfish"
            options = { VariantPath = "v.ini", UCI_Variant = "breakthrough-capture-only", Hash = "64" }
            limit = { depth = 3 }
        "#;
        let expected = [
            ("VariantPath", "v.ini"),
            ("UCI_Variant", "breakthrough-capture-only"),
            ("Hash", "64"),
        ];
        let spec: EngineSpec = toml::from_str(toml_text).unwrap();
        assert_eq!(names(&spec.options), expected);
        let json = serde_json::to_string(&spec).unwrap();
        assert!(
            json.contains(
                r#""options":{"VariantPath":"v.ini","UCI_Variant":"breakthrough-capture-only","Hash":"64"}"#
            ),
            "{json}"
        );
        let back: EngineSpec = serde_json::from_str(&json).unwrap();
        assert_eq!(names(&back.options), expected);
        let sorted = r#"{"name":"a","cmd":"a","options":{"Hash":"64","Eval":"material"},"limit":{"depth":3}}"#;
        let old: EngineSpec = serde_json::from_str(sorted).unwrap();
        assert_eq!(names(&old.options), [("Hash", "64"), ("Eval", "material")]);
        let twice = r#"{"name":"a","cmd":"a","options":{"Hash":"1","Eval":"x","Hash":"2"},"limit":{"depth":3}}"#;
        let last: EngineSpec = serde_json::from_str(twice).unwrap();
        assert_eq!(names(&last.options), [("Eval", "x"), ("Hash", "2")]);
        let not_text = r#"{"name":"a","cmd":"a","options":{"Hash":64},"limit":{"depth":3}}"#;
        assert!(serde_json::from_str::<EngineSpec>(not_text).is_err());
    }

    #[test]
    fn handshake_and_isready_timeouts_are_set_in_seconds() {
        let each = EngineKeys::parse(&["handshake=30", "isready=2"]).unwrap();
        let spec = EngineKeys::parse(&["cmd=x", "isready=0.25"])
            .unwrap()
            .with_defaults(&each)
            .into_spec(DEFAULT)
            .unwrap();
        assert_eq!(
            (spec.handshake_timeout_ms, spec.ready_timeout_ms),
            (30_000, 250)
        );
        let timeouts = spec.engine_config().timeouts;
        assert_eq!(timeouts.handshake, Duration::from_secs(30));
        assert_eq!(timeouts.ready, Duration::from_millis(250));
        assert_eq!(timeouts.quit_grace, Timeouts::default().quit_grace);
    }

    #[test]
    fn each_limit_kind_parses() {
        let limit = |token: &str| {
            EngineKeys::parse(&["cmd=x", token])
                .unwrap()
                .into_spec(DEFAULT)
                .unwrap()
                .limit
        };
        assert_eq!(limit("st=0.5"), TimeControl::MoveTime(500));
        assert_eq!(limit("depth=4"), TimeControl::Depth(4));
        assert_eq!(limit("nodes=10000"), TimeControl::Nodes(10_000));
        assert_eq!(
            limit("tc=8"),
            TimeControl::Clock {
                base_ms: 8000,
                increment_ms: 0
            }
        );
    }

    #[test]
    fn bad_engine_keys_are_named() {
        let err = |tokens: &[&str]| EngineKeys::parse(tokens).unwrap_err();
        assert_eq!(err(&["cmd"]), "'cmd' is not key=value");
        assert_eq!(
            err(&["colour=red"]),
            "unknown engine key 'colour' in 'colour=red'"
        );
        assert!(err(&["tc=ten"]).contains("bad tc 'ten'"));
        assert!(err(&["tc=-1"]).contains("non-negative"));
        assert!(err(&["depth=0"]).contains("positive"));
        assert!(err(&["proto=xboard"]).contains("xboard"));
        assert!(err(&["restart=maybe"]).contains("on or off"));
        assert_eq!(
            err(&["handshake=0"]),
            "bad value in 'handshake=0': '0' is not a positive number of seconds"
        );
        assert!(err(&["isready=soon"]).contains("'soon' is not a number of seconds"));
        assert!(err(&["tc=1+0", "depth=3"]).contains("second search limit"));
        let missing = EngineKeys::parse(&["name=a"]).unwrap().into_spec(DEFAULT);
        assert!(missing.unwrap_err().contains("cmd="));
    }

    #[test]
    fn openings_tokens_parse() {
        let spec = OpeningsSpec::parse(&["file=openings/x.epd", "order=random"]).unwrap();
        assert_eq!(spec.file, Some(PathBuf::from("openings/x.epd")));
        assert_eq!(spec.order, OpeningOrder::Random);
        assert!(
            OpeningsSpec::parse(&["order=shuffled"])
                .unwrap_err()
                .contains("order=shuffled")
        );
    }

    fn config(engines: usize) -> TournamentConfig {
        TournamentConfig {
            event: default_event(),
            engines: (0..engines)
                .map(|i| {
                    EngineKeys::parse(&["cmd=x", &format!("name=e{i}")])
                        .unwrap()
                        .into_spec(DEFAULT)
                        .unwrap()
                })
                .collect(),
            format: Format::RoundRobin,
            rules: Rules::CaptureOnly,
            openings: OpeningsSpec::default(),
            rounds: 1,
            games: 2,
            concurrency: 1,
            seed: 7,
            sprt: None,
            out: PathBuf::from("results/x"),
            log: false,
            pgn_comments: Default::default(),
        }
    }

    #[test]
    fn configs_validate_and_round_trip_through_json_and_toml() {
        let good = config(2);
        assert_eq!(good.validate(), Ok(()));
        let json = serde_json::to_string(&good).unwrap();
        assert_eq!(
            serde_json::from_str::<TournamentConfig>(&json).unwrap(),
            good
        );
        let toml_text = toml::to_string(&good).unwrap();
        assert_eq!(
            toml::from_str::<TournamentConfig>(&toml_text).unwrap(),
            good
        );

        assert!(
            config(1)
                .validate()
                .unwrap_err()
                .contains("at least two engines")
        );
        let mut twins = config(2);
        twins.engines[1].name = "e0".into();
        assert!(
            twins
                .validate()
                .unwrap_err()
                .contains("two engines are named 'e0'")
        );
        let mut sprt = config(3);
        sprt.sprt = Some("elo0=0 elo1=5".into());
        assert!(sprt.validate().unwrap_err().contains("exactly two engines"));
        let mut bad_sprt = config(2);
        bad_sprt.sprt = Some("elo0=zero".into());
        assert!(bad_sprt.validate().unwrap_err().contains("bad --sprt"));
    }
}
