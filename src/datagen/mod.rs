//! `bt-arena datagen`: self-play positions for training evaluations, a third schedule on the
//! arena (`docs/guide/datagen.md`).
//!
//! - [`DatagenConfig`] (here): what defines a run, saved as datagen.json and, for a sharded
//!   run, its identity.
//! - [`start`]: each game's start position, drawn from (seed, game id): an opening and its
//!   random plies.
//! - [`schedule`]: the [`crate::arena::Schedule`]: which games, which seats, and the games
//!   file written in game-id order whatever the concurrency.
//! - [`formats`]: the games file, the binary records and the text lines.
//! - [`filters`], [`convert`], [`summary`]: games into positions, and what was written.
//! - [`run`]: a run from its config to its files.

pub mod convert;
pub mod filters;
pub mod formats;
pub mod report;
pub mod run;
pub mod schedule;
pub mod start;
pub mod summary;
pub mod workers;

use crate::engine::EngineDescription;
use crate::game::{Adjudication, ProofRule};
use crate::rules::Rules;
use crate::run::identity::{Identified, RunType};
use crate::run_dir::{RunDir, Shard};
use crate::tournament::OpeningsSpec;
use filters::Filters;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The games file of a run directory.
pub const GAMES_FILE: &str = "games.dat";
/// The binary positions of a run directory.
pub const BINARY_FILE: &str = "positions.bin";
/// The text positions of a run directory (with `--text`).
pub const TEXT_FILE: &str = "positions.txt";
/// The text summary of a run directory (summary.json beside it).
pub const SUMMARY_TEXT: &str = "summary.txt";

/// When a run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// After this many games (of a shard, its own of them).
    Games(u64),
    /// After exactly this many positions written, in game-id order.
    Positions(u64),
}

/// Random plies from each opening: a number from `min` to `max`, drawn per game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RandomPlies {
    /// The fewest.
    pub min: u16,
    /// The most.
    pub max: u16,
}

/// The most random plies: a game of Breakthrough has at most 177 plies (each side's 16 pawns
/// can step 6 + 5 squares each, 88 steps, before one reaches the far rank), so random plies
/// must leave at least one for the engines.
pub const MAX_RANDOM_PLIES: u16 = 176;

impl std::str::FromStr for RandomPlies {
    type Err = String;

    /// `N` or `N-M`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let number = |t: &str| {
            t.trim()
                .parse::<u16>()
                .map_err(|_| format!("'{text}': expected N or N-M, plies (e.g. 8 or 6-10)"))
        };
        let (min, max) = match text.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(text)?, number(text)?),
        };
        if min > max {
            return Err(format!("'{text}': {min} is more than {max}"));
        }
        if max > MAX_RANDOM_PLIES {
            return Err(format!(
                "'{text}': at most {MAX_RANDOM_PLIES} plies (a game has at most {} plies)",
                MAX_RANDOM_PLIES + 1
            ));
        }
        Ok(RandomPlies { min, max })
    }
}

impl std::fmt::Display for RandomPlies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.min == self.max {
            true => write!(f, "{}", self.min),
            false => write!(f, "{}-{}", self.min, self.max),
        }
    }
}

/// `--random-multipv K,DIFF,P`: with probability P at each ply, the move is drawn among the
/// engine's K best lines (MultiPV) scored within DIFF centipawns of its best.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomMultiPv {
    /// K, the lines the engine reports (`setoption MultiPV K`), at least 2.
    pub lines: u32,
    /// DIFF, centipawns.
    pub diff: i32,
    /// P, in (0, 1].
    pub probability: f64,
}

impl std::str::FromStr for RandomMultiPv {
    type Err = String;

    /// `K,DIFF,P`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || {
            format!(
                "'{text}': expected K,DIFF,P (e.g. 4,50,0.2): K lines from 2, DIFF centipawns from 0, P in (0, 1]"
            )
        };
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let [lines, diff, probability] = parts[..] else {
            return Err(bad());
        };
        let parsed = RandomMultiPv {
            lines: lines.parse().map_err(|_| bad())?,
            diff: diff.parse().map_err(|_| bad())?,
            probability: probability.parse().map_err(|_| bad())?,
        };
        let p = parsed.probability;
        if parsed.lines < 2 || parsed.diff < 0 || !(p > 0.0 && p <= 1.0) {
            return Err(bad());
        }
        Ok(parsed)
    }
}

/// Everything that defines a datagen run; saved as datagen.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatagenConfig {
    /// Event name (games.pgn's `Event`).
    pub event: String,
    /// The engines: one plays itself; several play each other, every ordered pair in turn.
    pub engines: Vec<EngineDescription>,
    /// The rule set.
    pub rules: Rules,
    /// Openings; no file: the start position.
    pub openings: OpeningsSpec,
    /// When the run stops.
    pub target: Target,
    /// Random plies from each opening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_plies: Option<RandomPlies>,
    /// Moves drawn among the engines' best lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_multipv: Option<RandomMultiPv>,
    /// Which positions are written.
    #[serde(default)]
    pub filters: Filters,
    /// Label written positions by proof.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<ProofRule>,
    /// Resign and proof adjudication.
    #[serde(default)]
    pub adjudication: Adjudication,
    /// The seed of every draw.
    pub seed: u64,
    /// Games played at the same time.
    pub concurrency: usize,
    /// The run directory.
    pub out: PathBuf,
    /// Write positions.txt too.
    #[serde(default)]
    pub text: bool,
    /// Log the engines' protocol traffic.
    #[serde(default)]
    pub log: bool,
    /// The build cache the engines built from source (src=) were built in (`--build-cache`,
    /// or the default then), so that `--resume` uses it again; where builds are kept does not
    /// make the games (one of [`crate::run::settings::PER_SHARD_FIELDS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_cache: Option<PathBuf>,
    /// The shard this process plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The run's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// `--worker`: this process is a worker of a run of workers, claiming its games one at a
    /// time ([`crate::arena::claims`]); its id (`HOST-PID-RANDOM`) names its directory
    /// `out/worker-ID`. Not part of the run's identity. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// A run of workers' lease, ms (`--lease`): a claim on a game whose heartbeat has not
    /// moved for this long is taken over. Part of the run's identity; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_ms: Option<u64>,
}

impl DatagenConfig {
    /// Checks what serde cannot.
    ///
    /// # Errors
    /// A message naming the flag at fault.
    pub fn validate(&self) -> Result<(), String> {
        if self.engines.is_empty() {
            return Err("--engine: give at least one engine".to_string());
        }
        if self.concurrency == 0 {
            return Err("--concurrency must be at least 1".to_string());
        }
        match self.target {
            Target::Games(0) => return Err("--games must be at least 1".to_string()),
            Target::Positions(0) => return Err("--positions must be at least 1".to_string()),
            Target::Positions(_) if self.shard.is_some() => {
                return Err(
                    "--positions cannot be given with --shard (a shard cannot know \
                            the other shards' positions): give --games"
                        .to_string(),
                );
            }
            Target::Positions(_) if self.worker.is_some() => {
                return Err(
                    "--positions cannot be given with --worker (a worker cannot know \
                            the other workers' positions): give --games"
                        .to_string(),
                );
            }
            _ => {}
        }
        let sample = self.filters.sample;
        if !(sample > 0.0 && sample <= 1.0) {
            return Err(format!(
                "--sample {sample}: expected a probability in (0, 1]"
            ));
        }
        if self.filters.max_score.is_some_and(|max| max < 0) {
            return Err("--max-score must not be negative".to_string());
        }
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(format!(
                "--engine: two engines are named '{}' (give each a name=)",
                pair[0]
            ));
        }
        Ok(())
    }

    /// The engines of the arena's seats: one engine as two seats (`NAME-1` White, `NAME-2`
    /// Black: a worker runs a process for each side), several as given; with
    /// `--random-multipv K,..`, each told `MultiPV` K.
    pub fn seats(&self) -> Vec<EngineDescription> {
        let mut seats = match self.engines.as_slice() {
            [one] => (1..=2)
                .map(|n| EngineDescription {
                    name: format!("{}-{n}", one.name),
                    ..one.clone()
                })
                .collect(),
            many => many.to_vec(),
        };
        if let Some(multipv) = self.random_multipv {
            for seat in &mut seats {
                seat.options.set("MultiPV", &multipv.lines.to_string());
            }
        }
        seats
    }

    /// The directory this process writes: `out`, `out/shard-K`, or `out/worker-ID`.
    pub fn dir(&self) -> PathBuf {
        if let Some(worker) = &self.worker {
            return RunDir::new(&self.out).worker(worker).root().to_path_buf();
        }
        RunDir::process(&self.out, self.shard).root().to_path_buf()
    }

    /// Whether game `game_id` is this process's to play.
    pub fn plays(&self, game_id: u64) -> bool {
        self.shard.is_none_or(|shard| shard.plays_pair(game_id))
    }

    /// The settings of the conversion at the run's end.
    pub fn convert_settings(&self) -> convert::Settings {
        convert::Settings {
            filters: self.filters,
            seed: self.seed,
            label: self.label,
            limit: match self.target {
                Target::Positions(n) => Some(n),
                Target::Games(_) => None,
            },
        }
    }

    /// Writes datagen.json in `dir`, atomically.
    ///
    /// # Errors
    /// As [`crate::records::write_json`].
    pub fn save(&self, dir: &Path) -> Result<(), crate::records::RecordsError> {
        crate::records::write_json(
            &RunDir::new(dir).datagen_json(),
            self,
            crate::records::Existing::Replace,
        )?;
        Ok(())
    }

    /// The config saved in `dir`.
    ///
    /// # Errors
    /// A message naming the file.
    pub fn read(dir: &Path) -> Result<DatagenConfig, String> {
        let path = RunDir::new(dir).datagen_json();
        let text = crate::textfile::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let config: DatagenConfig = serde_json::from_str(&text)
            .map_err(|e| format!("bad datagen config {}: {e}", path.display()))?;
        config
            .validate()
            .map_err(|e| format!("bad datagen config {}: {e}", path.display()))?;
        Ok(config)
    }
}

impl Identified for DatagenConfig {
    const TYPE: RunType = RunType::Datagen;

    fn out(&self) -> &Path {
        &self.out
    }

    fn shard(&self) -> Option<Shard> {
        self.shard
    }

    fn worker(&self) -> Option<&str> {
        self.worker.as_deref()
    }

    /// The config as a tournament's makes its identity
    /// ([`crate::run::settings::identity_of`]): but `out`, `concurrency`, `log`,
    /// `build_cache`, `run_id` and `worker`, with `shard` replaced by the number of shards, and the book
    /// known by its digest.
    fn identity(&self) -> serde_json::Value {
        crate::run::settings::identity_of(
            serde_json::to_value(self).unwrap_or_default(),
            self.shard,
        )
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    fn set_run_id(&mut self, id: String) {
        self.run_id = Some(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_plies_parse_one_number_or_a_range_within_a_game() {
        let plies: RandomPlies = "6-10".parse().expect("range");
        assert_eq!((plies.min, plies.max), (6, 10));
        assert_eq!("8".parse::<RandomPlies>().expect("one").to_string(), "8");
        assert!("10-6".parse::<RandomPlies>().is_err());
        assert!(
            "177"
                .parse::<RandomPlies>()
                .unwrap_err()
                .contains("at most 176")
        );
        assert!("x".parse::<RandomPlies>().is_err());
    }
}
