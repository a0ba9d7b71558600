//! The settings every kind of run shares ([`RunHeader`]), declared once and flattened into
//! each kind's saved config (config.json, tune.json, datagen.json): what the run is called,
//! where it writes, which shard or worker this process is, its seed, rules, book and
//! adjudication. What a run's identity holds of them, how they are saved and read, and what a
//! resumed session may change are decided here for every kind.

use crate::game::Adjudication;
use crate::openings::spec::OpeningsSpec;
use crate::rules::{Board, Rules};
use crate::run_dir::{RunDir, Shard};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// The settings every kind of run shares, flattened into its config (`#[serde(flatten)]`):
/// the same field names in every kind's saved file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// Event name (PGN `Event`, the default results directory).
    #[serde(default = "default_event")]
    pub event: String,
    /// The rule set every move is judged by.
    #[serde(default)]
    pub rules: Rules,
    /// The board every game is played on (`--board`, `"6x6"`): part of the run's identity,
    /// so that a shard, a worker or a resume plays the same size. Left out of the file on
    /// 8×8, and 8×8 when absent (runs begun before sizes existed).
    #[serde(default, skip_serializing_if = "is_standard")]
    pub board: Board,
    /// The opening book, its order and (once the run started) its digest.
    #[serde(default)]
    pub openings: OpeningsSpec,
    /// Seed of every random choice, so that a run is repeatable; drawn at random when not
    /// given.
    #[serde(default = "random_seed")]
    pub seed: u64,
    /// Games played at the same time.
    #[serde(default = "one")]
    pub concurrency: usize,
    /// The run directory (of a sharded run or a run of workers, the one they share).
    #[serde(default)]
    pub out: PathBuf,
    /// The shard this process plays of a run spread over machines (its files in
    /// `out/shard-K`); `None`: the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// `--worker`: this process is a worker of a run of workers, leasing its units one at a
    /// time ([`crate::arena::leases`]); its id (`HOST-PID-RANDOM`) names its directory
    /// `out/worker-ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// A run of workers' lease, ms (`--lease`): a lease whose heartbeat has not moved for
    /// this long is taken over and its unit played again. `Some` makes the run a run of
    /// workers (it is part of the run's identity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_ms: Option<u64>,
    /// Write each engine's protocol traffic to `<dir>/logs/`.
    #[serde(default)]
    pub log: bool,
    /// The run's id: drawn when the run starts, shared by every shard or worker. `None` in a
    /// config file, and in the files of runs begun before run ids existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The build cache the engines built from source (src=) were built in (`--build-cache`,
    /// or the default then), so that `--resume` uses it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_cache: Option<PathBuf>,
    /// Resign and proof adjudication (`--resign`, `--adjudicate`); both off by default, and
    /// then left out of the file.
    #[serde(default, skip_serializing_if = "Adjudication::is_off")]
    pub adjudication: Adjudication,
}

fn default_event() -> String {
    "bt-arena".to_string()
}

/// True for 8×8, which a saved config leaves out.
fn is_standard(board: &Board) -> bool {
    board.is_standard()
}

fn random_seed() -> u64 {
    fastrand::u64(..)
}

fn one() -> usize {
    1
}

impl Default for RunHeader {
    fn default() -> RunHeader {
        RunHeader {
            event: default_event(),
            rules: Rules::default(),
            board: Board::STANDARD,
            openings: OpeningsSpec::default(),
            seed: 0,
            concurrency: 1,
            out: PathBuf::new(),
            shard: None,
            worker: None,
            lease_ms: None,
            log: false,
            run_id: None,
            build_cache: None,
            adjudication: Adjudication::default(),
        }
    }
}

/// Fields of a run's saved config that do not make the games, so need not agree between the
/// shards or workers of a run: where the run directory is mounted, how many games a process
/// plays at once, whether it logs, where it builds engines from source, the run id (which the
/// identity holds) and the worker's id.
pub const PER_SHARD_FIELDS: [&str; 6] = [
    "out",
    "concurrency",
    "log",
    "build_cache",
    "run_id",
    "worker",
];

/// The settings that make a run's games, as its identity records them
/// ([`crate::run_dir::identity`]): `config` (a saved config as JSON) without the
/// [`PER_SHARD_FIELDS`], with the shard count for `shard` (`null` for a run on one machine),
/// and a book known by its digest (not its path) once the digest is taken.
pub fn identity_of(mut config: Value, shard: Option<Shard>) -> Value {
    if let Some(fields) = config.as_object_mut() {
        for field in PER_SHARD_FIELDS {
            fields.remove(field);
        }
        fields.insert("shard".into(), shard.map(|s| s.count()).into());
        // A book is known by its contents once they are: not by where it is.
        if let Some(openings) = fields.get_mut("openings").and_then(|o| o.as_object_mut())
            && openings.get("digest").is_some_and(|d| !d.is_null())
        {
            openings.remove("file");
        }
    }
    config
}

impl RunHeader {
    /// The directory this process writes: `out`, `out/shard-K` for shard K, `out/worker-ID`
    /// for a worker.
    pub fn dir(&self) -> PathBuf {
        if let Some(worker) = &self.worker {
            return RunDir::new(&self.out).worker(worker).root().to_path_buf();
        }
        RunDir::process(&self.out, self.shard).root().to_path_buf()
    }

    /// Whether several processes play the run (shards or workers), each in its own
    /// directory of `out`.
    pub fn is_spread(&self) -> bool {
        self.shard.is_some() || self.worker.is_some()
    }

    /// Who this process is in messages: `shard 0/2`, `worker ID`, `this machine`.
    pub fn member(&self) -> String {
        match (&self.shard, &self.worker) {
            (Some(shard), _) => format!("shard {shard}"),
            (None, Some(worker)) => format!("worker {worker}"),
            (None, None) => "this machine".to_string(),
        }
    }

    /// The settings a resumed session may change, applied: `concurrency` when given, `log`
    /// turned on (never off).
    pub fn resume_with(&mut self, concurrency: Option<usize>, log: bool) {
        if let Some(concurrency) = concurrency {
            self.concurrency = concurrency;
        }
        self.log |= log;
    }
}

/// A setting of a run refused, naming the flag (or config field) and why: what every kind's
/// `validate` answers.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingError {
    /// A field no config of the kind has.
    UnknownField(String),
    /// A number outside its range (`--lag must be from 1 to the iterations (6), not 9`).
    OutOfRange {
        /// The flag.
        setting: &'static str,
        /// The least allowed, as said.
        min: String,
        /// The most allowed, as said.
        max: String,
        /// What was given.
        given: String,
    },
    /// A count of 0 where at least 1 is needed.
    Zero(&'static str),
    /// A number that must be finite and at least 0.
    Negative {
        /// The flag.
        setting: &'static str,
        /// What was given.
        given: f64,
    },
    /// A number that must not be negative.
    NotNegative(&'static str),
    /// A probability outside (0, 1].
    Probability {
        /// The flag.
        setting: &'static str,
        /// What was given.
        given: f64,
    },
    /// Two flags that cannot be given together.
    Conflict {
        /// The flag refused.
        setting: &'static str,
        /// The flag it cannot go with.
        with: &'static str,
        /// Why, and what to give instead.
        why: &'static str,
    },
    /// Something the run needs that was not given.
    Missing {
        /// What is missing.
        what: &'static str,
        /// How to give it.
        how: &'static str,
    },
    /// Two engines given one name.
    DuplicateName(String),
    /// A value that does not read as its flag's.
    BadValue {
        /// The value.
        text: String,
        /// What was expected.
        expected: String,
    },
}

impl std::fmt::Display for SettingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingError::UnknownField(field) => write!(f, "unknown field `{field}`"),
            SettingError::OutOfRange {
                setting,
                min,
                max,
                given,
            } => write!(f, "{setting} must be from {min} to {max}, not {given}"),
            SettingError::Zero(setting) => write!(f, "{setting} must be at least 1"),
            SettingError::Negative { setting, given } => {
                write!(f, "{setting} must be a number >= 0, not {given}")
            }
            SettingError::NotNegative(setting) => write!(f, "{setting} must not be negative"),
            SettingError::Probability { setting, given } => {
                write!(f, "{setting} {given}: expected a probability in (0, 1]")
            }
            SettingError::Conflict { setting, with, why } => {
                write!(f, "{setting} cannot be given with {with} {why}")
            }
            SettingError::Missing { what, how } => write!(f, "{what}: {how}"),
            SettingError::DuplicateName(name) => write!(
                f,
                "--engine: two engines are named '{name}' (give each a name=)"
            ),
            SettingError::BadValue { text, expected } => write!(f, "'{text}': {expected}"),
        }
    }
}

impl std::error::Error for SettingError {}
