//! The description of an engine the user gives: `--engine key=value ...` on the command line
//! (after `--each`), or an `[[engines]]` table of a config file. [`EngineKeys`] reads the
//! tokens, [`EngineDescription`] is the engine the user described, and
//! [`EngineDescription::launch`] says how its process is launched ([`EngineLaunch`]).
//!
//! An engine built from a git revision (`src=REPO rev=REF build="CMD" bin=RELPATH`) has a
//! [`EngineSource`]; its `cmd` is then the path of its executable in the checkout, which
//! [`crate::tournament::prepare`] builds before any game (see [`crate::engine::build`]).

mod error;
mod keys;
mod options;

pub use error::{DescriptionError, OsError};
pub use keys::{EngineKeys, KEYS};
pub use options::EngineOptions;

use super::source::EngineSource;
use super::{EngineLaunch, Timeouts};
use crate::protocol::Protocol;
use crate::protocol::codingame::MoveOrder;
use crate::time_control::{TimeControl, whole_ms};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// The name of an engine given none: the file name of `cmd`, or the repository's name of an
/// engine built from `source`.
fn default_name(cmd: &std::path::Path, source: Option<&EngineSource>) -> String {
    match source {
        Some(source) => source.repo_name(),
        None => cmd
            .file_name()
            .map_or_else(|| cmd.display().to_string(), |n| n.to_string_lossy().into()),
    }
}

/// The engine the user described, as given by `--engine key=value ...` (after `--each`) or a
/// config file's `[[engines]]` table: how to launch it, its search limit and its tolerances.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineDescription {
    /// Display name, unique within the tournament; defaults to the command's file name, or
    /// for an engine built from source to `NAME@SHORTHASH` (NAME: `name=`, else the
    /// repository's directory name). Left out of a config file, it is read empty and given
    /// the same default ([`name_by_default`](Self::name_by_default)).
    #[serde(default)]
    pub name: String,
    /// The executable (run directly, no shell); for an engine built from source, its path in
    /// the checkout (`bin=`).
    pub cmd: PathBuf,
    /// Arguments passed to the executable.
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory of the engine process.
    #[serde(default)]
    pub dir: Option<PathBuf>,
    /// Protocol: `ugi` (default), `uci`, or `codingame` (a CodinGame bot).
    #[serde(default)]
    pub proto: Protocol,
    /// A CodinGame bot's order of the legal moves of a turn (`moveorder=`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub move_order: MoveOrder,
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
    /// The git revision the engine is built from (`src=`, `rev=`, `build=`), with the commit
    /// it resolved to; `None` for an engine given by `cmd=`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<EngineSource>,
    /// The node count the engine's bench must print (its signature, OpenBench's "bench"):
    /// pinned with `bench=N`, or for an engine built from source measured when the run
    /// started and checked by every later session and shard. A mismatch stops the run before
    /// any game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<u64>,
    /// The checkout an engine built from source runs from on this machine: its `cmd` is
    /// relative to it, and it is the working directory when `dir` is not given. Set when the
    /// build is ready; not saved (another machine has its own cache).
    #[serde(skip)]
    pub checkout: Option<PathBuf>,
    /// The factor this session multiplies the engine's clock by (`--scale-tc`); not saved,
    /// since each machine measures its own (see [`effective_limit`](Self::effective_limit)).
    #[serde(skip)]
    pub clock_scale: Option<f64>,
}

impl EngineDescription {
    /// Gives an engine with an empty name (one left out of a config file) the name the
    /// command line gives it: its command's file name, or its repository's name when built
    /// from source.
    pub fn name_by_default(&mut self) {
        if self.name.is_empty() {
            self.name = default_name(&self.cmd, self.source.as_ref());
        }
    }

    /// How to run this engine: its command, arguments, directory, protocol, options (in the
    /// order given) and handshake and `isready` timeouts (the default quit grace), and no log
    /// files (set `stderr_log` and `comm_log` on the result to keep them).
    ///
    /// An engine built from source runs `cmd` in its [`checkout`](Self::checkout), which is
    /// also its working directory unless `dir` is given.
    pub fn launch(&self) -> EngineLaunch {
        let (cmd, dir) = match &self.checkout {
            Some(checkout) => (
                checkout.join(&self.cmd),
                self.dir.clone().or_else(|| Some(checkout.clone())),
            ),
            None => (self.cmd.clone(), self.dir.clone()),
        };
        EngineLaunch {
            name: self.name.clone(),
            cmd,
            args: self.args.clone(),
            dir,
            env: Vec::new(),
            proto: self.proto,
            move_order: self.move_order,
            options: self.options.pairs().to_vec(),
            stderr_log: None,
            comm_log: None,
            cpus: Vec::new(),
            timeouts: Timeouts {
                handshake: Duration::from_millis(self.handshake_timeout_ms),
                ready: Duration::from_millis(self.ready_timeout_ms),
                ..Timeouts::default()
            },
        }
    }
}

impl EngineDescription {
    /// For an engine built from source whose commit is not known yet: resolves its revision
    /// ([`EngineSource::resolve`]) and names it `NAME@SHORTHASH`
    /// ([`EngineSource::name_at_commit`]), the one way every command (tournament, bench,
    /// check-engine, perft-check) names such an engine. Returns whether it did: `false` for an
    /// engine not built from source, or whose commit is known already (a resumed run, a shard
    /// that adopted its run's commit).
    ///
    /// # Errors
    /// The [`SourceError`](super::source::SourceError) of a revision that cannot be resolved
    /// (no such revision, not a repository, a dirty work tree, no git); the engine is then
    /// left as it was.
    pub fn resolve_source(&mut self) -> Result<bool, super::source::SourceError> {
        let Some(source) = self.source.as_mut() else {
            return Ok(false);
        };
        if source.commit.is_some() {
            return Ok(false);
        }
        source.resolve()?;
        self.name = source.name_at_commit(&self.name);
        Ok(true)
    }
}

impl EngineDescription {
    /// The limit the engine plays under in this session: [`limit`](Self::limit) with its
    /// clock (base, increment, or move time) multiplied by [`clock_scale`](Self::clock_scale)
    /// when set; depth and node limits are not scaled.
    pub fn effective_limit(&self) -> TimeControl {
        match self.clock_scale {
            Some(factor) => self.limit.scaled(factor),
            None => self.limit,
        }
    }
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// Default tolerance for a late move, ms (0 for a CodinGame bot, as on CodinGame).
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const DEFAULT: TimeControl = TimeControl::MoveTime(100);

    #[test]
    fn every_key_completed_is_a_key() {
        for key in KEYS {
            let token = format!("{key}{}", if key.ends_with('.') { "Hash=1" } else { "x" });
            let result = EngineKeys::parse(&[&token]);
            assert!(
                !matches!(result, Err(DescriptionError::UnknownKey { .. })),
                "{token}"
            );
        }
    }

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
    fn tc_inf_means_no_clock_and_needs_another_limit() {
        let limit = |each: &[&str], tokens: &[&str]| {
            EngineKeys::parse(tokens)
                .unwrap()
                .with_defaults(&EngineKeys::parse(each).unwrap())
                .into_description(DEFAULT)
                .map(|engine| engine.limit)
        };
        assert_eq!(
            limit(&[], &["cmd=x", "tc=inf", "depth=6"]),
            Ok(TimeControl::Depth(6))
        );
        assert_eq!(
            limit(&[], &["cmd=x", "nodes=500", "tc=inf"]),
            Ok(TimeControl::Nodes(500))
        );
        assert_eq!(
            limit(&["tc=inf", "st=0.5"], &["cmd=x"]),
            Ok(TimeControl::MoveTime(500))
        );
        // The engine's own tc=inf drops the clock of --each, not its depth.
        assert_eq!(
            limit(&["tc=10+0.1"], &["cmd=x", "tc=inf", "depth=3"]),
            Ok(TimeControl::Depth(3))
        );
        assert_eq!(
            limit(&["tc=10+0.1"], &["cmd=x", "tc=inf"]),
            Err(DescriptionError::NoLimit)
        );
        assert_eq!(
            limit(&["depth=4"], &["cmd=x", "tc=inf"]),
            Ok(TimeControl::Depth(4))
        );
        // The engine's own clock wins over tc=inf in --each.
        assert_eq!(
            limit(&["tc=inf"], &["cmd=x", "tc=8"]),
            Ok(TimeControl::parse_clock("8").unwrap())
        );
        assert_eq!(
            limit(&[], &["cmd=x", "tc=inf"]),
            Err(DescriptionError::NoLimit)
        );
        assert_eq!(
            DescriptionError::NoLimit.to_string(),
            "tc=inf (no clock) needs a limit that ends each search: add depth=N, nodes=N or \
             st=SECONDS (bt-arena has no unlimited time control)"
        );
        let err = |tokens: &[&str]| EngineKeys::parse(tokens).unwrap_err().to_string();
        assert_eq!(
            err(&["tc=10", "tc=inf"]),
            "'tc=inf' gives a second search limit after tc=10+0: choose one of tc, st, depth, nodes"
        );
        assert_eq!(
            err(&["tc=inf", "tc=10"]),
            "bad value in 'tc=10': tc=inf was given before: choose one time control"
        );
    }

    #[test]
    fn bad_engine_keys_are_named() {
        let err = |tokens: &[&str]| EngineKeys::parse(tokens).unwrap_err().to_string();
        assert_eq!(
            err(&["cmd"]),
            "'cmd' is not key=value (give a command as cmd=cmd)"
        );
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
            "an engine needs cmd=PATH (e.g. --engine cmd=./my-engine name=mine), or src=REPO \
             bin=RELPATH to build it from a git revision"
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
            DescriptionError::BadTimeControl(error) if error.to_string().starts_with("bad tc 'ten'")
        ));
        assert_eq!(
            err(&["st=1", "nodes=5"]),
            DescriptionError::SecondLimit {
                token: "nodes=5".into(),
                previous: TimeControl::MoveTime(1000)
            }
        );
    }

    #[test]
    fn source_keys_describe_an_engine_built_from_a_revision() {
        let each = EngineKeys::parse(&["src=/repos/my-engine.git", "build=make", "bin=bin/engine"])
            .unwrap();
        let engine = EngineKeys::parse(&["rev=main", "bench=123456"])
            .unwrap()
            .with_defaults(&each)
            .into_description(DEFAULT)
            .unwrap();
        assert_eq!(engine.name, "my-engine");
        assert_eq!(engine.cmd, PathBuf::from("bin/engine"));
        assert_eq!(engine.bench, Some(123_456));
        assert_eq!(
            engine.source,
            Some(EngineSource {
                repo: "/repos/my-engine.git".into(),
                rev: "main".into(),
                commit: None,
                build: Some("make".into()),
            })
        );
        // Not saved: where this machine's checkout is.
        let json = serde_json::to_value(&engine).unwrap();
        assert_eq!(
            json["source"],
            serde_json::json!({"repo": "/repos/my-engine.git", "rev": "main", "build": "make"})
        );
        assert_eq!(json["bench"], 123_456);
        let mut built = engine.clone();
        built.checkout = Some(PathBuf::from("/cache/x/checkout-1"));
        let launch = built.launch();
        assert_eq!(launch.cmd, PathBuf::from("/cache/x/checkout-1/bin/engine"));
        assert_eq!(launch.dir, Some(PathBuf::from("/cache/x/checkout-1")));
        let back: EngineDescription =
            serde_json::from_value(serde_json::to_value(&built).unwrap()).unwrap();
        assert_eq!(back, engine);
        // The default revision is HEAD; a relative repository becomes absolute.
        let local = EngineKeys::parse(&["src=.", "bin=x", "name=mine"])
            .unwrap()
            .into_description(DEFAULT)
            .unwrap();
        let source = local.source.unwrap();
        assert_eq!(source.rev, "HEAD");
        assert!(Path::new(&source.repo).is_absolute());
        assert_eq!(local.name, "mine");
    }

    #[test]
    fn source_keys_that_do_not_fit_together_are_refused() {
        let err = |tokens: &[&str]| {
            EngineKeys::parse(tokens)
                .and_then(|keys| keys.into_description(DEFAULT))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(&["cmd=x", "rev=main"]),
            "rev= needs src=REPO (the git repository the engine is built from)"
        );
        assert!(
            err(&["src=.", "cmd=x", "bin=y"]).starts_with("cmd= and src= cannot both be given")
        );
        assert!(err(&["src=."]).starts_with("src=. needs bin=RELPATH"));
        let typed = |tokens: &[&str]| {
            EngineKeys::parse(tokens)
                .and_then(|keys| keys.into_description(DEFAULT))
                .unwrap_err()
        };
        assert_eq!(
            typed(&["cmd=x", "build=make"]),
            DescriptionError::NeedsSrc { key: "build" }
        );
        assert_eq!(
            typed(&["src=.", "cmd=x", "bin=y"]),
            DescriptionError::CmdWithSrc
        );
        assert_eq!(
            typed(&["src=."]),
            DescriptionError::NeedsBin { repo: ".".into() }
        );
        assert_eq!(
            err(&["src=.", "bin=/usr/bin/x"]),
            "bad value in 'bin=/usr/bin/x': bin is a path relative to the checkout"
        );
        assert_eq!(
            err(&["cmd=x", "bench=0"]),
            "bad value in 'bench=0': '0' is not a positive whole number"
        );
    }

    #[test]
    fn a_bot_plays_codingames_clock_without_margin_and_takes_bot_keys_only() {
        let bot = EngineKeys::parse(&["cmd=x", "proto=codingame", "args=--c {C}", "option.c=2"])
            .unwrap()
            .into_description(DEFAULT)
            .unwrap();
        assert_eq!(bot.limit, TimeControl::codingame());
        assert_eq!(bot.time_margin_ms, 0);
        assert_eq!(bot.move_order, MoveOrder::CodinGame);
        assert_eq!(bot.launch().move_order, MoveOrder::CodinGame);
        let given = EngineKeys::parse(&[
            "cmd=x",
            "proto=codingame",
            "tc=codingame:1000,200",
            "timemargin=60",
            "moveorder=sorted",
        ])
        .unwrap()
        .into_description(DEFAULT)
        .unwrap();
        assert_eq!(
            given.limit,
            TimeControl::CodinGame {
                first_ms: 1000,
                turn_ms: 200
            }
        );
        assert_eq!(
            (given.time_margin_ms, given.move_order),
            (60, MoveOrder::Sorted)
        );
        let json = serde_json::to_value(&given).unwrap();
        assert_eq!(json["move_order"], "sorted");
        assert_eq!(json["proto"], "codingame");
        assert!(
            serde_json::to_value(&bot)
                .unwrap()
                .get("move_order")
                .is_none()
        );
        let err = |tokens: &[&str]| {
            EngineKeys::parse(tokens)
                .and_then(|keys| keys.into_description(DEFAULT))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(&["cmd=x", "proto=codingame", "nodes=5"]),
            "nodes=5: a CodinGame bot is told no limit, so it cannot stop at a depth or a node \
             count: give it tc=codingame (its default), a clock or st=SECONDS"
        );
        assert_eq!(
            err(&["cmd=x", "proto=codingame", "bench=5"]),
            "bench=: a CodinGame bot has no bench (OpenBench's `ENGINE bench`)"
        );
        assert_eq!(
            err(&["cmd=x", "proto=codingame", "args=--c {C}", "option.Depth=3"]),
            "option.Depth=3: a CodinGame bot has no options; its arguments may hold {Depth}, \
             which option.Depth then fills (args=\"--depth {Depth}\")"
        );
        assert_eq!(
            err(&["cmd=x", "moveorder=sorted"]),
            "moveorder=sorted is for a CodinGame bot (proto=codingame)"
        );
        let typed = |tokens: &[&str]| {
            EngineKeys::parse(tokens)
                .and_then(|keys| keys.into_description(DEFAULT))
                .unwrap_err()
        };
        assert_eq!(
            typed(&["cmd=x", "proto=codingame", "depth=4"]),
            DescriptionError::BotLimit {
                limit: TimeControl::Depth(4)
            }
        );
        assert_eq!(
            typed(&["cmd=x", "proto=codingame", "bench=5"]),
            DescriptionError::BotBench
        );
        assert_eq!(
            typed(&["cmd=x", "proto=codingame", "option.Depth=3"]),
            DescriptionError::BotOption {
                name: "Depth".into(),
                value: "3".into()
            }
        );
        assert_eq!(
            typed(&["cmd=x", "moveorder=sorted"]),
            DescriptionError::MoveOrderWithoutBot {
                order: MoveOrder::Sorted
            }
        );
        assert!(err(&["moveorder=best"]).contains("unknown move order 'best'"));
        assert!(err(&["tc=codingame:1,"]).starts_with("bad tc 'codingame:1,': expected"));
    }

    #[test]
    fn a_scaled_clock_multiplies_base_increment_and_move_time_only() {
        let mut engine = EngineKeys::parse(&["cmd=x", "tc=10+0.1"])
            .unwrap()
            .into_description(DEFAULT)
            .unwrap();
        assert_eq!(engine.effective_limit(), engine.limit);
        engine.clock_scale = Some(2.0);
        assert_eq!(
            engine.effective_limit(),
            TimeControl::Clock {
                base_ms: 20_000,
                increment_ms: 200,
                moves: None,
            }
        );
        engine.limit = TimeControl::MoveTime(150);
        engine.clock_scale = Some(0.5);
        assert_eq!(engine.effective_limit(), TimeControl::MoveTime(75));
        engine.limit = TimeControl::Depth(4);
        assert_eq!(engine.effective_limit(), TimeControl::Depth(4));
    }
}
