//! The description of an engine the user gives: `--engine key=value ...` on the command line
//! (after `--each`), or an `[[engines]]` table of a config file. [`EngineKeys`] reads the
//! tokens, [`EngineDescription`] is the engine the user described, and
//! [`EngineDescription::launch`] says how its process is launched ([`EngineLaunch`]).

use super::{EngineLaunch, Timeouts};
use crate::protocol::Protocol;
use crate::time_control::TimeControl;
use crate::time_control::{seconds_to_ms, whole_ms};
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The engine the user described, as given by `--engine key=value ...` (after `--each`) or a
/// config file's `[[engines]]` table: how to launch it, its search limit and its tolerances.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineDescription {
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

impl EngineDescription {
    /// How to run this engine: its command, arguments, directory, protocol, options (in the
    /// order given) and handshake and `isready` timeouts (the default quit grace), and no log
    /// files (set `stderr_log` and `comm_log` on the result to keep them).
    pub fn launch(&self) -> EngineLaunch {
        EngineLaunch {
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
    whole_ms(Timeouts::default().handshake)
}

fn default_ready_ms() -> u64 {
    whole_ms(Timeouts::default().ready)
}

/// `key=value` settings of one `--engine` (or `--each`) before they become an
/// [`EngineDescription`].
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
    /// argument, repeatable), `dir`, `proto=ugi|uci`, `option.NAME=VALUE`, `tc=[MOVES/]BASE[+INC]`
    /// (seconds), `st=SECONDS`, `depth=N`, `nodes=N`, `timemargin=MS`, `handshake=SECONDS`,
    /// `isready=SECONDS` (positive), `restart=on|off`.
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
                        .map_err(|e: crate::protocol::ProtocolError| bad(&e.to_string()))?,
                )
            }
            "tc" => self.set_limit(
                TimeControl::parse_clock(value).map_err(DescriptionError::BadTimeControl)?,
                token,
            )?,
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

    /// The finished description; `default_limit` applies when no limit was given.
    ///
    /// # Errors
    /// [`DescriptionError::MissingCmd`] when `cmd` is missing.
    pub fn into_description(
        self,
        default_limit: TimeControl,
    ) -> Result<EngineDescription, DescriptionError> {
        let cmd = self.cmd.ok_or(DescriptionError::MissingCmd)?;
        let name = self.name.unwrap_or_else(|| {
            cmd.file_name()
                .map_or_else(|| cmd.display().to_string(), |n| n.to_string_lossy().into())
        });
        Ok(EngineDescription {
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
    BadTimeControl(String),
    /// A second search limit (only one of `tc`, `st`, `depth`, `nodes` may be given).
    SecondLimit {
        /// The token giving the second limit.
        token: String,
        /// The limit given before it.
        previous: TimeControl,
    },
    /// No `cmd=`: the engine has no program to run.
    MissingCmd,
}

impl fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescriptionError::NotKeyValue(token) => write!(f, "'{token}' is not key=value"),
            DescriptionError::UnknownKey { key, token } => {
                write!(f, "unknown engine key '{key}' in '{token}'")
            }
            DescriptionError::BadValue {
                key,
                value,
                problem,
            } => write!(f, "bad value in '{key}={value}': {problem}"),
            DescriptionError::BadTimeControl(problem) => f.write_str(problem),
            DescriptionError::SecondLimit { token, previous } => write!(
                f,
                "'{token}' gives a second search limit after {previous}: \
                 choose one of tc, st, depth, nodes"
            ),
            DescriptionError::MissingCmd => {
                f.write_str("an engine needs cmd=PATH (e.g. --engine cmd=./my-engine name=mine)")
            }
        }
    }
}

impl std::error::Error for DescriptionError {}

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

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: TimeControl = TimeControl::MoveTime(100);

    #[test]
    fn engine_keys_parse_with_each_defaults() {
        let each = EngineKeys::parse(&["tc=10+0.1", "proto=uci", "option.Hash=16"]).unwrap();
        let engine = EngineKeys::parse(&[
            "cmd=./engines/a",
            "option.Hash=64",
            "option.Eval=material",
            "args=--x 1",
        ])
        .unwrap()
        .with_defaults(&each)
        .into_description(DEFAULT)
        .unwrap();
        assert_eq!(engine.name, "a");
        assert_eq!(engine.args, ["--x", "1"]);
        assert_eq!(engine.proto, Protocol::Uci);
        assert_eq!(engine.options.get("Hash"), Some("64"));
        assert_eq!(engine.options.get("eval"), Some("material"));
        assert_eq!(
            engine.limit,
            TimeControl::Clock {
                base_ms: 10_000,
                increment_ms: 100,
                moves: None,
            }
        );
        assert_eq!(engine.time_margin_ms, DEFAULT_TIME_MARGIN_MS);
        assert_eq!(engine.launch().timeouts, Timeouts::default());
        assert!(!engine.restart);
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
        let engine = EngineKeys::parse(&[
            "cmd=x",
            "option.Threads=1",
            "option.UCI_Variant=breakthrough-capture-only",
            "option.hash=64",
            "option.Threads=2",
        ])
        .unwrap()
        .with_defaults(&each)
        .into_description(DEFAULT)
        .unwrap();
        assert_eq!(
            names(&engine.options),
            [
                ("VariantPath", "v.ini"),
                ("UCI_Variant", "breakthrough-capture-only"),
                ("hash", "64"),
                ("Threads", "2"),
            ]
        );
        assert_eq!(engine.launch().options, engine.options.pairs().to_vec());
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
        let engine: EngineDescription = toml::from_str(toml_text).unwrap();
        assert_eq!(names(&engine.options), expected);
        let json = serde_json::to_string(&engine).unwrap();
        assert!(
            json.contains(
                r#""options":{"VariantPath":"v.ini","UCI_Variant":"breakthrough-capture-only","Hash":"64"}"#
            ),
            "{json}"
        );
        let back: EngineDescription = serde_json::from_str(&json).unwrap();
        assert_eq!(names(&back.options), expected);
        let sorted = r#"{"name":"a","cmd":"a","options":{"Hash":"64","Eval":"material"},"limit":{"depth":3}}"#;
        let old: EngineDescription = serde_json::from_str(sorted).unwrap();
        assert_eq!(names(&old.options), [("Hash", "64"), ("Eval", "material")]);
        let twice = r#"{"name":"a","cmd":"a","options":{"Hash":"1","Eval":"x","Hash":"2"},"limit":{"depth":3}}"#;
        let last: EngineDescription = serde_json::from_str(twice).unwrap();
        assert_eq!(names(&last.options), [("Eval", "x"), ("Hash", "2")]);
        let not_text = r#"{"name":"a","cmd":"a","options":{"Hash":64},"limit":{"depth":3}}"#;
        assert!(serde_json::from_str::<EngineDescription>(not_text).is_err());
    }

    #[test]
    fn handshake_and_isready_timeouts_are_set_in_seconds() {
        let each = EngineKeys::parse(&["handshake=30", "isready=2"]).unwrap();
        let engine = EngineKeys::parse(&["cmd=x", "isready=0.25"])
            .unwrap()
            .with_defaults(&each)
            .into_description(DEFAULT)
            .unwrap();
        assert_eq!(
            (engine.handshake_timeout_ms, engine.ready_timeout_ms),
            (30_000, 250)
        );
        let timeouts = engine.launch().timeouts;
        assert_eq!(timeouts.handshake, Duration::from_secs(30));
        assert_eq!(timeouts.ready, Duration::from_millis(250));
        assert_eq!(timeouts.quit_grace, Timeouts::default().quit_grace);
    }

    #[test]
    fn each_limit_kind_parses() {
        let limit = |token: &str| {
            EngineKeys::parse(&["cmd=x", token])
                .unwrap()
                .into_description(DEFAULT)
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
                increment_ms: 0,
                moves: None,
            }
        );
    }

    #[test]
    fn bad_engine_keys_are_named() {
        let err = |tokens: &[&str]| EngineKeys::parse(tokens).unwrap_err().to_string();
        assert_eq!(err(&["cmd"]), "'cmd' is not key=value");
        assert_eq!(
            err(&["colour=red"]),
            "unknown engine key 'colour' in 'colour=red'"
        );
        assert_eq!(err(&["cmd="]), "bad value in 'cmd=': cmd cannot be empty");
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
        assert_eq!(
            err(&["tc=1+0", "depth=3"]),
            "'depth=3' gives a second search limit after tc=1+0: choose one of tc, st, depth, nodes"
        );
        let missing = EngineKeys::parse(&["name=a"])
            .unwrap()
            .into_description(DEFAULT);
        assert_eq!(missing, Err(DescriptionError::MissingCmd));
        assert_eq!(
            DescriptionError::MissingCmd.to_string(),
            "an engine needs cmd=PATH (e.g. --engine cmd=./my-engine name=mine)"
        );
    }

    #[test]
    fn description_errors_name_the_fault() {
        let err = |tokens: &[&str]| EngineKeys::parse(tokens).unwrap_err();
        assert_eq!(err(&["cmd"]), DescriptionError::NotKeyValue("cmd".into()));
        assert_eq!(
            err(&["colour=red"]),
            DescriptionError::UnknownKey {
                key: "colour".into(),
                token: "colour=red".into()
            }
        );
        assert!(matches!(
            err(&["option.=3"]),
            DescriptionError::UnknownKey { key, .. } if key == "option."
        ));
        assert_eq!(
            err(&["restart=maybe"]),
            DescriptionError::BadValue {
                key: "restart".into(),
                value: "maybe".into(),
                problem: "expected on or off".into()
            }
        );
        assert_eq!(
            err(&["args=a=b", "timemargin=1.5"]),
            DescriptionError::BadValue {
                key: "timemargin".into(),
                value: "1.5".into(),
                problem: "expected whole milliseconds".into()
            }
        );
        assert!(matches!(
            err(&["tc=ten"]),
            DescriptionError::BadTimeControl(text) if text.starts_with("bad tc 'ten'")
        ));
        assert_eq!(
            err(&["st=1", "nodes=5"]),
            DescriptionError::SecondLimit {
                token: "nodes=5".into(),
                previous: TimeControl::MoveTime(1000)
            }
        );
    }
}
