//! Tournament configuration: engines, search limits, schedule, openings and output.
//!
//! The command line (`--engine key=value ...`, cutechess-cli/fastchess style) and a config file
//! (TOML or JSON, the same fields) both produce a [`TournamentConfig`], which is saved with the
//! results as `config.json` so a run can be resumed exactly.

use super::shard::Shard;
use crate::engine::EngineDescription;
use crate::rules::Rules;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::str::FromStr;

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
    pub engines: Vec<EngineDescription>,
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
    /// The results directory (the command line picks `results/<event>-<date>` when empty);
    /// of a sharded run, the run directory shared by the shards (see [`results_dir`]).
    ///
    /// [`results_dir`]: TournamentConfig::results_dir
    #[serde(default)]
    pub out: PathBuf,
    /// The shard of a run spread over several machines: only its game pairs are played,
    /// into `out/shard-K/` (see [`crate::tournament::shard`]). `None`: the whole schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Write each engine's protocol traffic to `<out>/logs/<engine>-<worker>.log`.
    #[serde(default)]
    pub log: bool,
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
    /// Where this run's games.csv, games.pgn, summary.json, config.json and logs go: `out`,
    /// or `out/shard-K` for shard `K` of a sharded run.
    pub fn results_dir(&self) -> PathBuf {
        match self.shard {
            Some(shard) => self.out.join(shard.dir_name()),
            None => self.out.clone(),
        }
    }

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
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;

    const DEFAULT: TimeControl = TimeControl::MoveTime(100);

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
                        .into_description(DEFAULT)
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
            shard: None,
            log: false,
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
