//! A run's settings as its readers need them ([`RunSettings`], read from the config.json of a
//! run or a shard), and the part of its schedule they check games against ([`Plan`]: who
//! plays whom in each game, by game id, computed, not stored).
//!
//! The tournament's own config ([`crate::tournament::TournamentConfig`]) is saved as this
//! config.json; the readers of games (`elo`, `report`, `merge`) read only the fields below,
//! so that reading a run needs nothing of the code that plays it.

use crate::engine::EngineDescription;
use crate::records::moves::CommentDetail;
use crate::records::provenance::EngineProvenance;
use crate::records::{RecordsError, ResultsWriter};
use crate::rules::Rules;
use crate::run_dir::Shard;
use crate::stats::Sprt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

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

crate::named_enum!(Format, "format", [RoundRobin => "roundrobin" | "round-robin", Gauntlet => "gauntlet"]);

pub use super::header::{PER_SHARD_FIELDS, identity_of};

/// Why a run's saved config cannot be read for its games.
#[derive(Debug)]
pub enum SettingsError {
    /// The file cannot be read.
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// It is not a run's config.
    Bad {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        problem: SettingsProblem,
    },
}

/// What is wrong with a run's saved config ([`SettingsError::Bad`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingsProblem {
    /// Not JSON, or not a run's fields (the parser's message, naming the field and where).
    Parse(String),
    /// Fewer than two engines (how many).
    TooFewEngines(usize),
    /// `rounds` or `games` of 0 (the field).
    Zero(&'static str),
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingsError::Read { path, source } => {
                write!(f, "cannot read config {}: {source}", path.display())
            }
            SettingsError::Bad { path, problem } => {
                write!(f, "bad config {}: ", path.display())?;
                match problem {
                    SettingsProblem::Parse(reason) => f.write_str(reason),
                    SettingsProblem::TooFewEngines(count) => {
                        write!(f, "a run needs at least two engines, got {count}")
                    }
                    SettingsProblem::Zero(field) => write!(f, "{field} must be at least 1"),
                }
            }
        }
    }
}

impl std::error::Error for SettingsError {}

/// A run's settings as the readers of its games need them: the fields of its config.json
/// that name the engines, the schedule's shape, the test and the run. Other fields are
/// ignored (they are the runner's).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RunSettings {
    /// Event name (PGN `Event`).
    #[serde(default = "default_event")]
    pub event: String,
    /// The engines, in the run's order (the first is the one an SPRT tests).
    pub engines: Vec<EngineDescription>,
    /// Round-robin or gauntlet.
    #[serde(default)]
    pub format: Format,
    /// The rule set.
    #[serde(default)]
    pub rules: Rules,
    /// Rounds.
    #[serde(default = "one")]
    pub rounds: u32,
    /// Games per pairing per round.
    #[serde(default = "two")]
    pub games: u32,
    /// The run's SPRT, if any.
    #[serde(default)]
    pub sprt: Option<Sprt>,
    /// The shard, for a shard's config.
    #[serde(default)]
    pub shard: Option<Shard>,
    /// The worker, for a worker's config (`tournament --worker`).
    #[serde(default)]
    pub worker: Option<String>,
    /// A run of workers' lease, ms (`--lease`).
    #[serde(default)]
    pub lease_ms: Option<u64>,
    /// How much the move comments of games.pgn say.
    #[serde(default)]
    pub pgn_comments: CommentDetail,
    /// The run's id (`None` in runs begun before run ids existed).
    #[serde(default)]
    pub run_id: Option<String>,
    /// The config.json as saved, for the run's identity.
    #[serde(skip)]
    saved: Value,
}

fn default_event() -> String {
    "bt-arena".to_string()
}
fn one() -> u32 {
    1
}
fn two() -> u32 {
    2
}

impl RunSettings {
    /// The settings saved as `path` (a run's or a shard's config.json).
    ///
    /// # Errors
    /// [`SettingsError`] naming the file: it cannot be read, is not JSON or not a run's
    /// config, or has fewer than two engines, no rounds or no games.
    pub fn read(path: &Path) -> Result<RunSettings, SettingsError> {
        let text = crate::textfile::read_to_string(path).map_err(|source| SettingsError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let bad = |problem: SettingsProblem| SettingsError::Bad {
            path: path.to_path_buf(),
            problem,
        };
        let parse = |e: serde_json::Error| bad(SettingsProblem::Parse(e.to_string()));
        let saved: Value = serde_json::from_str(&text).map_err(parse)?;
        let mut settings: RunSettings = serde_json::from_value(saved.clone()).map_err(parse)?;
        settings.saved = saved;
        if settings.engines.len() < 2 {
            return Err(bad(SettingsProblem::TooFewEngines(settings.engines.len())));
        }
        for (field, value) in [("rounds", settings.rounds), ("games", settings.games)] {
            if value == 0 {
                return Err(bad(SettingsProblem::Zero(field)));
            }
        }
        Ok(settings)
    }

    /// The settings that make the games ([`identity_of`] the saved config): equal for the
    /// shards of one run.
    pub fn identity(&self) -> Value {
        identity_of(self.saved.clone(), self.shard)
    }

    /// The engines' names, in the run's order.
    pub fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// The schedule's shape.
    pub fn plan(&self) -> Plan {
        Plan::new(self.format, self.engines.len(), self.rounds, self.games)
    }

    /// A writer appending the run's games to games.csv and games.pgn in `dir` (see
    /// [`results_writer`]).
    ///
    /// # Errors
    /// As [`ResultsWriter::open`].
    pub fn results_writer(&self, dir: &Path) -> Result<ResultsWriter, RecordsError> {
        results_writer(
            dir,
            &self.event,
            self.rules,
            &self.engines,
            self.pgn_comments,
        )
    }
}

/// A writer appending a run's games to games.csv and games.pgn in `dir`, its PGN tagged with
/// `event` and each engine's time control, with `comments`; games.pgn brought back to the
/// games of games.csv ([`ResultsWriter::reconciled`]).
///
/// # Errors
/// As [`ResultsWriter::open`].
pub fn results_writer(
    dir: &Path,
    event: &str,
    rules: Rules,
    engines: &[EngineDescription],
    comments: CommentDetail,
) -> Result<ResultsWriter, RecordsError> {
    let limits = engines
        .iter()
        .map(|engine| (engine.name.clone(), engine.effective_limit()))
        .collect();
    ResultsWriter::open(dir, rules)?
        .with_event(event.to_string())
        .with_limits(limits)
        .with_builds(EngineProvenance::of_engines(engines))
        .with_comments(comments)
        .reconciled()
}

/// One game of a schedule without its opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// 1-based number of the game in the schedule.
    pub game_id: u64,
    /// 1-based round.
    pub round: u32,
    /// 1-based game-pair number; both games of a pair share it.
    pub pair: u64,
    /// Index (into the run's engines) of the engine playing White.
    pub white: usize,
    /// Index of the engine playing Black.
    pub black: usize,
}

/// The shape of a schedule: each round plays `games` games for every pairing (round-robin:
/// every two engines; gauntlet: the first engine against each other one), in game pairs with
/// colours swapped. Any game is computed from its id ([`Plan::game`]): nothing is stored per
/// game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pairings: Vec<(usize, usize)>,
    rounds: u32,
    games: u32,
}

/// The engine pairings of one round, as (first, second) engine indices.
pub fn pairings(format: Format, engines: usize) -> Vec<(usize, usize)> {
    match format {
        Format::RoundRobin => (0..engines)
            .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
            .collect(),
        Format::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
    }
}

impl Plan {
    /// The plan of `rounds` rounds of `games` games for every pairing of `engines` engines.
    pub fn new(format: Format, engines: usize, rounds: u32, games: u32) -> Plan {
        Plan {
            pairings: pairings(format, engines),
            rounds,
            games,
        }
    }

    /// Games in one round.
    fn per_round(&self) -> u64 {
        self.pairings.len() as u64 * u64::from(self.games)
    }

    /// Games in the schedule.
    pub fn len(&self) -> u64 {
        self.per_round().saturating_mul(u64::from(self.rounds))
    }

    /// Whether the schedule holds no game.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Game pairs in the schedule (a lone game, with an odd number of games a pairing, is a
    /// pair of its own).
    pub fn pairs(&self) -> u64 {
        let per_pairing = u64::from(self.games).div_ceil(2);
        (self.pairings.len() as u64)
            .saturating_mul(per_pairing)
            .saturating_mul(u64::from(self.rounds))
    }

    /// The games of pair `pair` (1-based): two, or one for a lone game; none outside the
    /// schedule.
    pub fn pair_games(&self, pair: u64) -> Vec<Pairing> {
        if pair == 0 || pair > self.pairs() {
            return Vec::new();
        }
        let games = u64::from(self.games);
        let per_pairing = games.div_ceil(2);
        let per_round = self.pairings.len() as u64 * per_pairing;
        let index = pair - 1;
        let (round, within) = (index / per_round, index % per_round);
        let (pairing, k) = (within / per_pairing, within % per_pairing);
        let first = round * self.per_round() + pairing * games + 2 * k + 1;
        (first..first + 2)
            .filter(|&id| id - (round * self.per_round() + pairing * games) <= games)
            .filter_map(|id| self.game(id))
            .collect()
    }

    /// Game `game_id` of the schedule; `None` outside it. With an odd number of games a
    /// pairing, the game left without a partner alternates colours from round to round (all
    /// games of even rounds start swapped).
    pub fn game(&self, game_id: u64) -> Option<Pairing> {
        if game_id == 0 || game_id > self.len() {
            return None;
        }
        let games = u64::from(self.games);
        let pairs_per_pairing = games.div_ceil(2);
        let index = game_id - 1;
        let round = index / self.per_round();
        let in_round = index % self.per_round();
        let pairing = in_round / games;
        let game = in_round % games;
        let pair =
            (round * self.pairings.len() as u64 + pairing) * pairs_per_pairing + game / 2 + 1;
        let round = u32::try_from(round + 1).ok()?;
        let swapped = (game % 2 == 1) != (games % 2 == 1 && round % 2 == 0);
        let (first, second) = self.pairings[usize::try_from(pairing).ok()?];
        let (white, black) = if swapped {
            (second, first)
        } else {
            (first, second)
        };
        Some(Pairing {
            game_id,
            round,
            pair,
            white,
            black,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schedule built game by game, as the tournament once built it.
    fn by_loop(format: Format, engines: usize, rounds: u32, games: u32) -> Vec<Pairing> {
        let mut all = Vec::new();
        let mut pair = 0;
        for round in 1..=rounds {
            for (first, second) in pairings(format, engines) {
                for game in 0..games {
                    if game % 2 == 0 {
                        pair += 1;
                    }
                    let swapped = (game % 2 == 1) != (games % 2 == 1 && round % 2 == 0);
                    let (white, black) = if swapped {
                        (second, first)
                    } else {
                        (first, second)
                    };
                    all.push(Pairing {
                        game_id: all.len() as u64 + 1,
                        round,
                        pair,
                        white,
                        black,
                    });
                }
            }
        }
        all
    }

    #[test]
    fn every_game_is_computed_from_its_id() {
        for format in [Format::RoundRobin, Format::Gauntlet] {
            for engines in 2..5 {
                for rounds in 1..4 {
                    for games in 1..5 {
                        let plan = Plan::new(format, engines, rounds, games);
                        let computed: Vec<Pairing> =
                            (1..=plan.len()).filter_map(|id| plan.game(id)).collect();
                        assert_eq!(computed, by_loop(format, engines, rounds, games));
                        let by_pair: Vec<Pairing> = (1..=plan.pairs())
                            .flat_map(|p| plan.pair_games(p))
                            .collect();
                        assert_eq!(by_pair, computed);
                        assert!(by_pair.iter().all(|g| plan.pair_games(g.pair).contains(g)));
                        assert_eq!(plan.pair_games(plan.pairs() + 1), []);
                        assert_eq!(plan.game(0), None);
                        assert_eq!(plan.game(plan.len() + 1), None);
                    }
                }
            }
        }
    }

    #[test]
    fn settings_are_read_from_a_config_and_refuse_what_no_run_has() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let engine =
            |name: &str| serde_json::json!({"name": name, "cmd": "/bin/x", "limit": {"depth": 2}});
        let config = serde_json::json!({
            "engines": [engine("a"), engine("b")], "rounds": 3, "out": "/r", "concurrency": 2,
            "shard": "1/2", "seed": 5, "runner_only": true,
        });
        std::fs::write(&path, config.to_string()).unwrap();
        let settings = RunSettings::read(&path).unwrap();
        assert_eq!(settings.engine_names(), ["a", "b"]);
        assert_eq!(settings.plan().len(), 6);
        let identity = settings.identity();
        assert_eq!(identity["shard"], 2);
        assert_eq!(identity["seed"], 5);
        assert!(identity.get("out").is_none() && identity.get("concurrency").is_none());
        std::fs::write(&path, r#"{"engines": [], "games": 0}"#).unwrap();
        assert_eq!(
            RunSettings::read(&path).unwrap_err().to_string(),
            format!(
                "bad config {}: a run needs at least two engines, got 0",
                path.display()
            )
        );
    }
}
