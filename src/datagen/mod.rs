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
//! - [`kind`]: datagen as a kind of run on the one session ([`crate::session`]), and its
//!   files at the end.

pub mod convert;
pub mod filters;
pub mod formats;
pub mod kind;
pub mod report;
pub mod schedule;
pub mod start;
pub mod summary;
pub mod workers;

use crate::engine::EngineDescription;
use crate::game::ProofRule;
use crate::run::header::{RunHeader, SettingError};
use filters::Filters;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

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
    type Err = SettingError;

    /// `N` or `N-M`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = |expected: String| SettingError::BadValue {
            text: text.to_string(),
            expected,
        };
        let number = |t: &str| {
            t.trim()
                .parse::<u16>()
                .map_err(|_| refuse("expected N or N-M, plies (e.g. 8 or 6-10)".into()))
        };
        let (min, max) = match text.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(text)?, number(text)?),
        };
        if min > max {
            return Err(refuse(format!("{min} is more than {max}")));
        }
        if max > MAX_RANDOM_PLIES {
            return Err(refuse(format!(
                "at most {MAX_RANDOM_PLIES} plies (a game has at most {} plies)",
                MAX_RANDOM_PLIES + 1
            )));
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
    type Err = SettingError;

    /// `K,DIFF,P`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || SettingError::BadValue {
            text: text.to_string(),
            expected: "expected K,DIFF,P (e.g. 4,50,0.2): K lines from 2, DIFF centipawns \
                       from 0, P in (0, 1]"
                .to_string(),
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
pub struct DatagenConfig {
    /// The settings every kind of run shares: event, rules, book (no file: the start
    /// position), seed, concurrency, the run directory, shard or worker, adjudication
    /// (flattened: the same fields in datagen.json).
    #[serde(flatten)]
    pub run: RunHeader,
    /// The engines: one plays itself; several play each other, every ordered pair in turn.
    pub engines: Vec<EngineDescription>,
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
    /// Write positions.txt too.
    #[serde(default)]
    pub text: bool,
    /// Fields that are none of the above: refused by [`validate`](DatagenConfig::validate).
    #[serde(flatten, skip_serializing)]
    pub unknown: std::collections::BTreeMap<String, serde_json::Value>,
}

impl DatagenConfig {
    /// Checks what serde cannot.
    ///
    /// # Errors
    /// [`SettingError`] naming the flag at fault.
    pub fn validate(&self) -> Result<(), SettingError> {
        if let Some(field) = self.unknown.keys().next() {
            return Err(SettingError::UnknownField(field.clone()));
        }
        if self.engines.is_empty() {
            return Err(SettingError::Missing {
                what: "--engine",
                how: "give at least one engine",
            });
        }
        if self.run.concurrency == 0 {
            return Err(SettingError::Zero("--concurrency"));
        }
        match self.target {
            Target::Games(0) => return Err(SettingError::Zero("--games")),
            Target::Positions(0) => return Err(SettingError::Zero("--positions")),
            Target::Positions(_) if self.run.shard.is_some() => {
                return Err(SettingError::Conflict {
                    setting: "--positions",
                    with: "--shard",
                    why: "(a shard cannot know the other shards' positions): give --games",
                });
            }
            Target::Positions(_) if self.run.worker.is_some() => {
                return Err(SettingError::Conflict {
                    setting: "--positions",
                    with: "--worker",
                    why: "(a worker cannot know the other workers' positions): give --games",
                });
            }
            _ => {}
        }
        let sample = self.filters.sample;
        if !(sample > 0.0 && sample <= 1.0) {
            return Err(SettingError::Probability {
                setting: "--sample",
                given: sample,
            });
        }
        if self.filters.max_score.is_some_and(|max| max < 0) {
            return Err(SettingError::NotNegative("--max-score"));
        }
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(SettingError::DuplicateName(pair[0].to_string()));
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
        self.run.dir()
    }

    /// Whether game `game_id` is this process's to play.
    pub fn plays(&self, game_id: u64) -> bool {
        self.run.shard.is_none_or(|shard| shard.plays_pair(game_id))
    }

    /// The settings of the conversion at the run's end.
    pub fn convert_settings(&self) -> convert::Settings {
        convert::Settings {
            filters: self.filters,
            seed: self.run.seed,
            label: self.label,
            limit: match self.target {
                Target::Positions(n) => Some(n),
                Target::Games(_) => None,
            },
        }
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
                .to_string()
                .contains("at most 176")
        );
        assert!("x".parse::<RandomPlies>().is_err());
    }
}
