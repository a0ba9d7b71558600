//! Tournament configuration: engines, search limits, schedule, openings and output.
//!
//! The command line (`--engine key=value ...`, cutechess-cli/fastchess style) and a config file
//! (TOML or JSON, the same fields) both produce a [`TournamentConfig`], which is saved with the
//! results as `config.json` so a run can be resumed exactly.

use crate::engine::EngineDescription;
use crate::records::moves::CommentDetail;
use crate::rules::Rules;
use crate::run::header::RunHeader;
use crate::stats::Sprt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use crate::openings::spec::{BadOpeningsToken, OpeningOrder, OpeningsSpec};
pub use crate::run::settings::Format;

/// Everything that defines a tournament; saved as `config.json` in the results directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentConfig {
    /// The settings every kind of run shares: event, rules, book, seed, concurrency, the run
    /// directory, shard or worker, adjudication (flattened: the same fields in config.json).
    #[serde(flatten)]
    pub run: RunHeader,
    /// The engines, at least two, with unique names.
    pub engines: Vec<EngineDescription>,
    /// Round-robin or gauntlet.
    #[serde(default)]
    pub format: Format,
    /// Rounds: each round plays `games` games for every pairing.
    #[serde(default = "default_rounds")]
    pub rounds: u32,
    /// Games per pairing per round; an even number plays whole game pairs.
    #[serde(default = "default_games")]
    pub games: u32,
    /// Stop when the SPRT between the two engines decides; written in files as its string
    /// form `elo0=.. elo1=.. alpha=.. beta=..` (see [`Sprt`]).
    #[serde(default)]
    pub sprt: Option<Sprt>,
    /// How much the move comments of games.pgn say (`full`, `short`, `none`).
    #[serde(default)]
    pub pgn_comments: CommentDetail,
    /// `--scale-tc REFERENCE_NPS`: the speed, in nodes per second of the base (last) engine's
    /// bench, the time controls are meant for; each session multiplies both engines' clocks
    /// by this over the speed it measures (see [`crate::arena::prepare`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_tc: Option<u64>,
    /// The engine the reports' ratings are relative to (`--anchor`, a setting of the
    /// session, not saved); `None`: the pool's mean is 0.
    #[serde(skip)]
    pub anchor: Option<String>,
    /// Fields of a config file that are none of the above: refused by
    /// [`validate`](TournamentConfig::validate), naming the first.
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, serde_json::Value>,
}

pub use crate::run::identity::SeedOrigin;

fn default_rounds() -> u32 {
    1
}
fn default_games() -> u32 {
    2
}

impl TournamentConfig {
    /// A tournament of `engines` with every other setting at its default: one round of a
    /// game pair per pairing, round-robin, no SPRT.
    pub fn new(engines: Vec<EngineDescription>) -> TournamentConfig {
        TournamentConfig {
            run: RunHeader::default(),
            engines,
            format: Format::RoundRobin,
            rounds: 1,
            games: 2,
            sprt: None,
            pgn_comments: CommentDetail::default(),
            scale_tc: None,
            anchor: None,
            unknown: BTreeMap::new(),
        }
    }

    /// Where this run's games.csv, games.pgn, summary.json, config.json and logs go: `out`,
    /// `out/shard-K` for shard `K`, `out/worker-ID` for a worker.
    pub fn results_dir(&self) -> PathBuf {
        self.run.dir()
    }

    /// The engines' names, in the run's order.
    pub fn names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// Checks what serde cannot: at least two engines, unique names, positive counts, an
    /// SPRT only between exactly two engines.
    ///
    /// # Errors
    /// The first [`ConfigError`] found: [`TooFewEngines`](ConfigError::TooFewEngines),
    /// [`BadEngineName`](ConfigError::BadEngineName),
    /// [`DuplicateEngineName`](ConfigError::DuplicateEngineName),
    /// [`Zero`](ConfigError::Zero) or
    /// [`SprtNeedsTwoEngines`](ConfigError::SprtNeedsTwoEngines).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(field) = self.unknown.keys().next() {
            return Err(ConfigError::UnknownField(field.clone()));
        }
        if self.engines.len() < 2 {
            return Err(ConfigError::TooFewEngines(self.engines.len()));
        }
        if let Some(engine) = self
            .engines
            .iter()
            .find(|e| e.name.trim().is_empty() || e.name.chars().any(char::is_control))
        {
            return Err(ConfigError::BadEngineName(engine.name.clone()));
        }
        for (index, engine) in self.engines.iter().enumerate() {
            if self.engines[..index].iter().any(|e| e.name == engine.name) {
                return Err(ConfigError::DuplicateEngineName(engine.name.clone()));
            }
        }
        for (field, value) in [
            ("rounds", self.rounds as usize),
            ("games", self.games as usize),
            ("concurrency", self.run.concurrency),
        ] {
            if value == 0 {
                return Err(ConfigError::Zero(field));
            }
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            return Err(ConfigError::SprtNeedsTwoEngines);
        }
        Ok(())
    }

    /// Reads a config file: TOML, or JSON when the name ends in `.json`; a byte-order mark at
    /// its start is skipped.
    ///
    /// # Errors
    /// [`ConfigError::Read`], [`ConfigError::Parse`] or [`ConfigError::Invalid`], naming the
    /// file.
    pub fn read(path: &Path) -> Result<TournamentConfig, ConfigError> {
        TournamentConfig::read_with_seed(path).map(|(config, _)| config)
    }

    /// [`read`](TournamentConfig::read), and whether the file gives the seed (else it was
    /// drawn at random).
    ///
    /// # Errors
    /// As [`read`](TournamentConfig::read).
    pub fn read_with_seed(path: &Path) -> Result<(TournamentConfig, SeedOrigin), ConfigError> {
        let text = crate::textfile::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let is_json = path.extension().is_some_and(|ext| ext == "json");
        // Parsed twice: into the config (whose errors name the line), then as a table, to
        // tell a seed given from one drawn by the default.
        let (mut config, names_seed) = if is_json {
            serde_json::from_str::<TournamentConfig>(&text)
                .map(|config| {
                    let table = serde_json::from_str::<serde_json::Value>(&text);
                    (config, table.is_ok_and(|t| t.get("seed").is_some()))
                })
                .map_err(|e| e.to_string())
        } else {
            toml::from_str::<TournamentConfig>(&text)
                .map(|config| {
                    let table = toml::from_str::<toml::Table>(&text);
                    (config, table.is_ok_and(|t| t.contains_key("seed")))
                })
                .map_err(|e| e.to_string())
        }
        .map_err(|reason| ConfigError::Parse {
            path: path.to_path_buf(),
            reason,
        })?;
        if let Some(field) = config.unknown.keys().next() {
            // Named with its line, as the parser names the line of other faults.
            let json_key = format!("\"{field}\"");
            let line = text.lines().position(|line| {
                let toml_key = line
                    .trim_start()
                    .trim_start_matches('[')
                    .strip_prefix(field.as_str())
                    .is_some_and(|rest| rest.trim_start().starts_with(['=', ']', '.']));
                toml_key || line.contains(&json_key)
            });
            let at = line
                .map(|n| format!(" at line {}", n + 1))
                .unwrap_or_default();
            return Err(ConfigError::Parse {
                path: path.to_path_buf(),
                reason: format!("unknown field `{field}`{at}"),
            });
        }
        // A name left out is the command line's default, the command's file name.
        config
            .engines
            .iter_mut()
            .for_each(EngineDescription::name_by_default);
        config.validate().map_err(|error| ConfigError::Invalid {
            path: path.to_path_buf(),
            error: Box::new(error),
        })?;
        let origin = match names_seed {
            true => SeedOrigin::Given,
            false => SeedOrigin::Drawn,
        };
        Ok((config, origin))
    }
}

/// Why a tournament configuration was refused. Every variant names the token, field, engine
/// or file at fault; [`Display`](fmt::Display) gives a one-line message.
#[derive(Debug)]
pub enum ConfigError {
    /// A field no tournament has (the field).
    UnknownField(String),
    /// Fewer than two engines (how many were given).
    TooFewEngines(usize),
    /// An engine name that is empty or holds a control character (the name).
    BadEngineName(String),
    /// A name given to two engines (the name).
    DuplicateEngineName(String),
    /// `rounds`, `games` or `concurrency` set to 0 (the field).
    Zero(&'static str),
    /// An SPRT in a tournament of other than two engines.
    SprtNeedsTwoEngines,
    /// A config file that cannot be read (or is not UTF-8).
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A config file that is not a tournament in TOML (or JSON, for `.json`).
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, naming the field and where it is.
        reason: String,
    },
    /// A config file that parses but whose settings are refused by
    /// [`TournamentConfig::validate`].
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        error: Box<ConfigError>,
    },
    /// The config saved in a results directory, read for `--resume`, cannot be used.
    Resume {
        /// The results directory.
        dir: PathBuf,
        /// What is wrong with its config.json.
        error: Box<ConfigError>,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownField(field) => write!(f, "unknown field `{field}`"),
            ConfigError::TooFewEngines(count) => {
                write!(f, "a tournament needs at least two engines, got {count}")
            }
            ConfigError::BadEngineName(name) => write!(
                f,
                "bad engine name {name:?}: names must be non-empty and free of control characters"
            ),
            ConfigError::DuplicateEngineName(name) => {
                write!(
                    f,
                    "two engines are named '{name}': give each a unique name="
                )
            }
            ConfigError::Zero(field) => write!(f, "{field} must be at least 1"),
            ConfigError::SprtNeedsTwoEngines => f.write_str("--sprt needs exactly two engines"),
            ConfigError::Read { path, source } => {
                write!(f, "cannot read config {}: {source}", path.display())
            }
            ConfigError::Parse { path, reason } => {
                write!(f, "bad config {}: {reason}", path.display())
            }
            ConfigError::Invalid { path, error } => {
                write!(f, "bad config {}: {error}", path.display())
            }
            ConfigError::Resume { dir, error } => {
                write!(f, "cannot resume {}: {error}", dir.display())
            }
        }
    }
}

/// Every message already holds the message of the error it wraps (and the operating system's
/// reason), so no variant reports a `source` (a chain printer would repeat it).
impl std::error::Error for ConfigError {}

/// The time control of engines given without one: 2 s + 20 ms a move (cutechess's and
/// fastchess's habit of a short clock for quick tests).
pub const DEFAULT_LIMIT: crate::game::TimeControl = crate::game::TimeControl::Clock {
    base_ms: 2_000,
    increment_ms: 20,
    moves: None,
};

impl TournamentConfig {
    /// The demonstration `bt-arena tournament` plays when given no engine: a round-robin of
    /// three settings of bt-search (`engines_dir`/bt-search: its full and its material-only
    /// evaluation at 2000 nodes a move, and the full one at 500), 20 rounds of game pairs, 2
    /// games at a time, capture-only rules, the shipped book, with `seed`.
    ///
    /// # Errors
    /// [`DescriptionError`] when an engine's keys do not describe an engine (a bug).
    pub fn demonstration(
        engines_dir: &Path,
        seed: u64,
    ) -> Result<TournamentConfig, crate::engine::DescriptionError> {
        let engine = |name: &str, extra: &[&str]| {
            let mut tokens = vec![
                format!("name={name}"),
                format!("cmd={}", engines_dir.join("bt-search").display()),
            ];
            tokens.extend(extra.iter().map(|s| s.to_string()));
            crate::engine::EngineKeys::parse(&tokens)
                .and_then(|keys| keys.into_description(DEFAULT_LIMIT))
        };
        Ok(TournamentConfig {
            run: RunHeader {
                event: "bt-arena-demo".to_string(),
                rules: Rules::CaptureOnly,
                concurrency: 2,
                seed,
                ..RunHeader::default()
            },
            engines: vec![
                engine("bt-search", &["nodes=2000"])?,
                engine(
                    "bt-search-material",
                    &["nodes=2000", "option.Eval=material"],
                )?,
                engine("bt-search-500", &["nodes=500"])?,
            ],
            format: Format::RoundRobin,
            rounds: 20,
            ..TournamentConfig::new(Vec::new())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;

    const DEFAULT: TimeControl = TimeControl::MoveTime(100);

    fn config(engines: usize) -> TournamentConfig {
        TournamentConfig {
            run: RunHeader {
                event: "bt-arena".into(),
                rules: Rules::CaptureOnly,
                board: crate::rules::Board::STANDARD,
                openings: OpeningsSpec::default(),
                concurrency: 1,
                seed: 7,
                out: PathBuf::from("results/x"),
                shard: None,
                worker: None,
                lease_ms: None,
                log: false,
                build_cache: None,
                run_id: None,
                adjudication: Default::default(),
            },
            engines: (0..engines)
                .map(|i| {
                    EngineKeys::parse(&["cmd=x", &format!("name=e{i}")])
                        .unwrap()
                        .into_description(DEFAULT)
                        .unwrap()
                })
                .collect(),
            format: Format::RoundRobin,
            rounds: 1,
            games: 2,
            sprt: None,
            pgn_comments: Default::default(),
            scale_tc: None,
            anchor: None,
            unknown: Default::default(),
        }
    }

    #[test]
    fn configs_validate_and_round_trip_through_json_and_toml() {
        let good = config(2);
        assert!(good.validate().is_ok());
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
    }

    /// The message of `config`'s validation error.
    fn refusal(config: &TournamentConfig) -> String {
        config.validate().unwrap_err().to_string()
    }

    #[test]
    fn invalid_configs_name_the_field_or_engine() {
        assert!(matches!(
            config(1).validate(),
            Err(ConfigError::TooFewEngines(1))
        ));
        assert_eq!(
            refusal(&config(1)),
            "a tournament needs at least two engines, got 1"
        );
        let mut twins = config(2);
        twins.engines[1].name = "e0".into();
        assert_eq!(
            refusal(&twins),
            "two engines are named 'e0': give each a unique name="
        );
        let mut blank = config(2);
        blank.engines[1].name = "a\tb".into();
        assert_eq!(
            refusal(&blank),
            "bad engine name \"a\\tb\": names must be non-empty and free of control characters"
        );
        let mut idle = config(2);
        idle.run.concurrency = 0;
        assert!(matches!(
            idle.validate(),
            Err(ConfigError::Zero("concurrency"))
        ));
        assert_eq!(refusal(&idle), "concurrency must be at least 1");
        let mut sprt = config(3);
        sprt.sprt = Some("elo0=0 elo1=5".parse().unwrap());
        assert_eq!(refusal(&sprt), "--sprt needs exactly two engines");
    }

    #[test]
    fn config_file_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.toml");
        let err = TournamentConfig::read(&missing).unwrap_err();
        assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot read config {}: ", missing.display())),
            "{err}"
        );
        let json = dir.path().join("run.json");
        std::fs::write(&json, r#"{"engines": [], "colour": 1}"#).unwrap();
        let err = TournamentConfig::read(&json).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!(
                "bad config {}: unknown field `colour` at line 1",
                json.display()
            )
        );
        let broken = dir.path().join("broken.json");
        std::fs::write(&broken, r#"{"engines": 3}"#).unwrap();
        let err = TournamentConfig::read(&broken).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err:?}");
        let lonely = dir.path().join("lonely.toml");
        let mut one = config(1);
        one.sprt = None;
        std::fs::write(&lonely, toml::to_string(&one).unwrap()).unwrap();
        let err = TournamentConfig::read(&lonely).unwrap_err();
        assert!(
            matches!(&err, ConfigError::Invalid { error, .. }
                if matches!(**error, ConfigError::TooFewEngines(1))),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "bad config {}: a tournament needs at least two engines, got 1",
                lonely.display()
            )
        );
    }

    /// An engine of a config file without `name` is named as on the command line, by its
    /// command's file name; two such engines of one command are then refused as one name
    /// given twice (issue 39: the file required `name`).
    #[test]
    fn a_config_file_engine_without_a_name_is_named_by_its_command() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.toml");
        let engine = |cmd: &str| format!("[[engines]]\ncmd = \"{cmd}\"\nlimit = {{ depth = 2 }}\n");
        std::fs::write(&file, engine("./bin/bt-search") + &engine("bt-random")).unwrap();
        let config = TournamentConfig::read(&file).unwrap();
        let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["bt-search", "bt-random"]);
        std::fs::write(&file, engine("bt-random") + &engine("/opt/bt-random")).unwrap();
        let err = TournamentConfig::read(&file).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("two engines are named 'bt-random': give each a unique name="),
            "{err}"
        );
        assert!(
            matches!(&err, ConfigError::Invalid { error, .. }
                if matches!(&**error, ConfigError::DuplicateEngineName(name) if name == "bt-random")),
            "{err:?}"
        );
    }

    /// The SPRT is written in its string form, read back validated, and a bad one names
    /// its token.
    #[test]
    fn the_sprt_is_read_and_written_as_its_string_form() {
        let mut good = config(2);
        good.sprt = Some("elo1=5 elo0=0".parse().unwrap());
        let json = serde_json::to_value(&good).unwrap();
        assert_eq!(json["sprt"], "elo0=0 elo1=5 alpha=0.05 beta=0.05");
        let toml_text = toml::to_string(&good).unwrap();
        assert!(
            toml_text.contains("sprt = \"elo0=0 elo1=5 alpha=0.05 beta=0.05\"\n"),
            "{toml_text}"
        );
        assert_eq!(
            toml::from_str::<TournamentConfig>(&toml_text).unwrap(),
            good
        );
        let bad = toml_text.replace("elo0=0 ", "elo0=zero ");
        let err = toml::from_str::<TournamentConfig>(&bad).unwrap_err();
        assert!(err.to_string().contains("`elo0=zero`"), "{err}");
    }

    #[test]
    fn the_demonstration_is_three_settings_of_bt_search_and_valid() {
        let config = TournamentConfig::demonstration(Path::new("/opt/bt"), 9).unwrap();
        config.validate().unwrap();
        let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["bt-search", "bt-search-material", "bt-search-500"]);
        assert!(
            config
                .engines
                .iter()
                .all(|e| e.cmd == Path::new("/opt/bt/bt-search"))
        );
        assert_eq!(
            config.engines.iter().map(|e| e.limit).collect::<Vec<_>>(),
            [
                crate::game::TimeControl::Nodes(2000),
                crate::game::TimeControl::Nodes(2000),
                crate::game::TimeControl::Nodes(500)
            ]
        );
        assert_eq!(
            (
                config.rounds,
                config.games,
                config.run.concurrency,
                config.run.seed
            ),
            (20, 2, 2, 9)
        );
    }
}
