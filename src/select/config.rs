//! A selection's settings, saved as select.json in its run directory (and in each worker's),
//! read back by `--resume`: the settings every kind shares ([`RunHeader`]), the engines (the
//! base and the candidates, in the order given), which one is the base, the indifference
//! zone, the confidence and the budget.

use super::procedure::Rule;
use crate::engine::EngineDescription;
use crate::records::moves::CommentDetail;
use crate::run::header::RunHeader;
use crate::run::identity::{Identified, RunType, RunTypeInfo};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// select.json: a selection's settings in its directory.
pub const SELECT_JSON: &str = "select.json";

/// `bt-arena select`'s kind of run: select.json.
pub const SELECT: RunType = RunType::new(&RunTypeInfo {
    command: "select",
    noun: "selection",
    file: SELECT_JSON,
    merge: "rewrite its report with bt-arena report {run}",
});

/// Largest `--indifference`, Elo: the SPRT against the base takes bounds up to this.
pub const MAX_INDIFFERENCE: f64 = 1000.0;

/// Everything that defines a selection; saved as select.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelectConfig {
    /// The settings every kind of run shares (flattened: the same fields as config.json).
    #[serde(flatten)]
    pub run: RunHeader,
    /// The engines as given: the base and at least two candidates, unique names.
    pub engines: Vec<EngineDescription>,
    /// The name of the base among `engines`.
    pub base: String,
    /// The indifference zone, logistic Elo (`--indifference`): the best is chosen with
    /// probability at least `confidence` whenever it is this much better than the second.
    pub indifference: f64,
    /// The probability of choosing the best, in `(0, 1)` (`--confidence`).
    pub confidence: f64,
    /// At most this many games (`--budget`); `None`: until the procedure ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// How much the move comments of games.pgn say.
    #[serde(default)]
    pub pgn_comments: CommentDetail,
    /// Fields of the file that are none of the above: refused by
    /// [`validate`](SelectConfig::validate), naming the first.
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, serde_json::Value>,
}

/// Why a selection's settings are refused: each names the setting and the value.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigError {
    /// A field no selection has.
    UnknownField(String),
    /// Fewer than two candidates besides the base (how many).
    TooFewCandidates(usize),
    /// `--base` names no engine (the name, and the names given).
    NoSuchBase {
        /// The name given.
        base: String,
        /// The engines' names.
        names: Vec<String>,
    },
    /// An engine name that is empty or holds a control character.
    BadEngineName(String),
    /// Two engines with one name.
    DuplicateEngineName(String),
    /// `--confidence` outside `(0, 1)`.
    Confidence(f64),
    /// `--indifference` not in `(0, MAX_INDIFFERENCE]`.
    Indifference(f64),
    /// `--budget` below one round (the games of one round: 2 per candidate).
    Budget {
        /// The budget given.
        budget: u64,
        /// One round's games.
        round: u64,
    },
    /// `--concurrency 0`.
    Concurrency,
    /// A selection split into shards.
    Sharded,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownField(field) => write!(f, "unknown field `{field}`"),
            ConfigError::TooFewCandidates(n) => write!(
                f,
                "select needs at least two candidates besides the base, got {n}: give each \
                 with --engine, and the base with --base NAME"
            ),
            ConfigError::NoSuchBase { base, names } => write!(
                f,
                "--base {base} names no engine (the engines are {})",
                names.join(", ")
            ),
            ConfigError::BadEngineName(name) => write!(
                f,
                "bad engine name {name:?}: names must be non-empty and free of control characters"
            ),
            ConfigError::DuplicateEngineName(name) => write!(
                f,
                "two engines are named '{name}': give each a unique name="
            ),
            ConfigError::Confidence(value) => write!(
                f,
                "--confidence {value} must be strictly between 0 and 1 (e.g. 0.95)"
            ),
            ConfigError::Indifference(value) => write!(
                f,
                "--indifference {value} must be above 0 and at most {MAX_INDIFFERENCE} Elo \
                 (the smallest difference worth telling apart, e.g. 5)"
            ),
            ConfigError::Budget { budget, round } => write!(
                f,
                "--budget {budget} is below one round of the selection: {round} games (a game \
                 pair for each candidate)"
            ),
            ConfigError::Concurrency => f.write_str("--concurrency must be at least 1"),
            ConfigError::Sharded => f.write_str(
                "select cannot be split with --shard: it decides from every game of the run \
                 at once; play it on several machines with --worker instead",
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

impl SelectConfig {
    /// The engines' names, in the order given.
    pub fn names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// The base's index among `engines` (0 when it names none: refused by
    /// [`validate`](Self::validate)).
    pub fn base_index(&self) -> usize {
        self.engines
            .iter()
            .position(|e| e.name == self.base)
            .unwrap_or(0)
    }

    /// The candidates' indices among `engines`, in the order given.
    pub fn candidates(&self) -> Vec<usize> {
        let base = self.base_index();
        (0..self.engines.len()).filter(|&i| i != base).collect()
    }

    /// The rule the selection is decided by.
    pub fn rule(&self) -> Rule {
        Rule {
            candidates: self.engines.len().saturating_sub(1),
            indifference: self.indifference,
            confidence: self.confidence,
            budget: self.budget,
        }
    }

    /// Checks what serde cannot: a base among the engines, at least two candidates, unique
    /// names, a confidence in `(0, 1)`, an indifference in `(0, 1000]`, a budget of one round
    /// at least, no shard.
    ///
    /// # Errors
    /// The first [`ConfigError`] found.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(field) = self.unknown.keys().next() {
            return Err(ConfigError::UnknownField(field.clone()));
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
        if !self.engines.iter().any(|e| e.name == self.base) {
            return Err(ConfigError::NoSuchBase {
                base: self.base.clone(),
                names: self.names(),
            });
        }
        let candidates = self.engines.len() - 1;
        if candidates < 2 {
            return Err(ConfigError::TooFewCandidates(candidates));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(ConfigError::Confidence(self.confidence));
        }
        if !(self.indifference > 0.0 && self.indifference <= MAX_INDIFFERENCE) {
            return Err(ConfigError::Indifference(self.indifference));
        }
        let round = Rule::round_games(candidates);
        if let Some(budget) = self.budget.filter(|&budget| budget < round) {
            return Err(ConfigError::Budget { budget, round });
        }
        if self.run.concurrency == 0 {
            return Err(ConfigError::Concurrency);
        }
        if self.run.shard.is_some() {
            return Err(ConfigError::Sharded);
        }
        Ok(())
    }
}

impl Identified for SelectConfig {
    const TYPE: RunType = SELECT;

    fn header(&self) -> &RunHeader {
        &self.run
    }

    fn header_mut(&mut self) -> &mut RunHeader {
        &mut self.run
    }
}

impl crate::session::RunConfig for SelectConfig {
    fn engines_mut(&mut self) -> &mut [EngineDescription] {
        &mut self.engines
    }

    fn validate(&self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        SelectConfig::validate(self).map_err(Into::into)
    }

    fn pgn_comments(&self) -> CommentDetail {
        self.pgn_comments
    }
}
