//! One tournament spread over many machines: shard `K/N` plays the game pairs `p` of the full
//! schedule with `(p - 1) mod N = K`, writing `RUN/shard-K/` of a run directory `RUN` shared
//! by every shard (NFS on a cluster, a volume in Kubernetes).
//!
//! * this module: the [`Shard`] (`K/N`, or read from a Slurm array task or a Kubernetes
//!   indexed job) and which pairs it plays;
//! * [`layout`]: the run directory: shard directories, and the check that the shards of one
//!   run share one config;
//! * [`sprt`]: one SPRT over every shard's games, read from the shared directory, and its
//!   verdict recorded once in `RUN/sprt.json`;
//! * [`merge`]: the shards joined back into one run, game for game the unsharded one.
//!
//! The schedule depends only on the config and its seed, so every shard builds the same one
//! and keeps its own pairs: same game ids, rounds, openings and colours as the unsharded run,
//! both games of a pair on one shard.

pub mod layout;
pub mod merge;
pub mod sprt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Environment variable of a Slurm array task: its index (`--array=0-(N-1)`).
pub const SLURM_INDEX: &str = "SLURM_ARRAY_TASK_ID";
/// Environment variable of a Slurm array task: the number of tasks in the array.
pub const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// Environment variable of a pod of a Kubernetes Indexed Job: its completion index.
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";

/// Shard `index` of `count`: the game pairs `p` (1-based pair numbers of the full schedule)
/// with `(p - 1) mod count = index`. [`Display`](fmt::Display), [`FromStr`] and serde use
/// `K/N`, e.g. `1/3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// Shard `index` of `count`.
    ///
    /// # Errors
    /// A message unless `count >= 1` and `index < count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".to_string());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is out of range: the shards of {count} are numbered 0 to {}",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// K, in `0..count`.
    pub const fn index(self) -> u32 {
        self.index
    }

    /// N, the number of shards of the run.
    pub const fn count(self) -> u32 {
        self.count
    }

    /// Whether game pair `pair` (1-based) is this shard's: `(pair - 1) mod N = K`.
    pub const fn plays_pair(self, pair: u64) -> bool {
        pair.saturating_sub(1) % self.count as u64 == self.index as u64
    }

    /// The name of this shard's directory in the run directory: `shard-K`.
    pub fn dir_name(self) -> String {
        format!("{}{}", layout::SHARD_PREFIX, self.index)
    }

    /// The shard of a `--shard` value: `K/N`; `auto`, from a Slurm array task
    /// ([`SLURM_INDEX`] of [`SLURM_COUNT`]); or `auto/N`, the index from a Kubernetes Indexed
    /// Job ([`K8S_INDEX`]) or else a Slurm array task, of `N` shards. `env` looks variables
    /// up (`std::env::var(..).ok()` in the command line).
    ///
    /// # Errors
    /// A message (to follow `--shard TEXT: `) naming what is at fault: not one of the forms,
    /// a count of 0, an index out of range, a variable unset or not a number, a Slurm array
    /// whose size disagrees with `auto/N`.
    pub fn from_arg(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let Some(rest) = text.strip_prefix("auto") else {
            return parse_k_of_n(text);
        };
        let count = match rest.strip_prefix('/') {
            Some(count) => Some(parse_number(count, &format!("the count '{count}'"))?),
            None if rest.is_empty() => None,
            None => return Err(EXPECTED.to_string()),
        };
        let variable = |name: &str| -> Result<Option<u32>, String> {
            env(name)
                .map(|value| parse_number(&value, &format!("{name}={value}")))
                .transpose()
        };
        let (index, from) = if let (Some(_), Some(index)) = (count, variable(K8S_INDEX)?) {
            (index, K8S_INDEX)
        } else if let Some(index) = variable(SLURM_INDEX)? {
            (index, SLURM_INDEX)
        } else {
            return Err(match count {
                Some(_) => format!(
                    "neither {K8S_INDEX} (a Kubernetes Indexed Job) nor {SLURM_INDEX} (a Slurm \
                     array task) is set"
                ),
                None => format!(
                    "{SLURM_INDEX} is not set (not a Slurm array task); in a Kubernetes \
                     Indexed Job give the shard count: --shard auto/N"
                ),
            });
        };
        let slurm_count = variable(SLURM_COUNT)?.filter(|_| from == SLURM_INDEX);
        let count = match (count, slurm_count) {
            (Some(given), Some(array)) if given != array => {
                return Err(format!(
                    "the Slurm array has {array} tasks ({SLURM_COUNT}), not {given}"
                ));
            }
            (Some(count), _) | (None, Some(count)) => count,
            (None, None) => {
                return Err(format!(
                    "{SLURM_COUNT} is not set; give the count: --shard auto/N"
                ));
            }
        };
        Shard::new(index, count).map_err(|e| {
            let hint = match from {
                SLURM_INDEX => format!(" (submit the array as --array=0-{})", count - 1),
                _ => String::new(),
            };
            format!("{from}={index}: {e}{hint}")
        })
    }
}

/// What a shard is written as.
const EXPECTED: &str = "expected K/N (e.g. 0/3), auto or auto/N";

/// `text` as a whole number, or a message naming `what`.
fn parse_number(text: &str, what: &str) -> Result<u32, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{what} is not a whole number"))
}

/// `K/N`, or why not (without repeating `text`).
fn parse_k_of_n(text: &str) -> Result<Shard, String> {
    let (index, count) = text.split_once('/').ok_or(EXPECTED)?;
    let number = |part: &str| part.parse::<u32>().map_err(|_| EXPECTED.to_string());
    Shard::new(number(index)?, number(count)?)
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N`, e.g. `0/3`.
    fn from_str(text: &str) -> Result<Shard, String> {
        parse_k_of_n(text).map_err(|e| format!("bad shard '{text}': {e}"))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A config for the tests: engines `new` and `base` (depth 2), 100 rounds of game pairs,
/// seed 7, results in `run`, shard `shard` (`K/N`).
#[cfg(test)]
pub(crate) fn test_config(run: &std::path::Path, shard: &str) -> super::TournamentConfig {
    use super::config::{Format, OpeningsSpec};
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    let engine = |name: &str| {
        EngineKeys::parse(&["cmd=/bin/x", &format!("name={name}")])
            .and_then(|keys| keys.into_description(TimeControl::Depth(2)))
            .unwrap()
    };
    super::TournamentConfig {
        event: "e".into(),
        engines: vec![engine("new"), engine("base")],
        format: Format::RoundRobin,
        rules: crate::rules::Rules::CaptureOnly,
        openings: OpeningsSpec::default(),
        rounds: 100,
        games: 2,
        concurrency: 1,
        seed: 7,
        sprt: None,
        out: run.to_path_buf(),
        shard: Some(shard.parse().unwrap()),
        log: false,
        pgn_comments: Default::default(),
        adjudication: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn shards_take_every_nth_pair() {
        let shard: Shard = "1/3".parse().unwrap();
        let pairs: Vec<u64> = (1..=10).filter(|&p| shard.plays_pair(p)).collect();
        assert_eq!(pairs, [2, 5, 8]);
        let all = Shard::new(0, 1).unwrap();
        assert!((1..=5).all(|p| all.plays_pair(p)));
        // Every pair is played by exactly one shard.
        for pair in 1..=20 {
            let owners = (0..4)
                .filter(|&k| Shard::new(k, 4).unwrap().plays_pair(pair))
                .count();
            assert_eq!(owners, 1);
        }
        assert_eq!(shard.to_string(), "1/3");
        assert_eq!(shard.dir_name(), "shard-1");
    }

    #[test]
    fn bad_shards_are_named() {
        let err = |text: &str| text.parse::<Shard>().unwrap_err();
        assert_eq!(
            err("3/3"),
            "bad shard '3/3': shard index 3 is out of range: the shards of 3 are numbered 0 to 2"
        );
        assert_eq!(
            err("0/0"),
            "bad shard '0/0': the shard count must be at least 1"
        );
        assert_eq!(
            err("1"),
            "bad shard '1': expected K/N (e.g. 0/3), auto or auto/N"
        );
        assert_eq!(
            err("-1/3"),
            "bad shard '-1/3': expected K/N (e.g. 0/3), auto or auto/N"
        );
        assert_eq!(
            Shard::from_arg("automatic", env(&[])).unwrap_err(),
            "expected K/N (e.g. 0/3), auto or auto/N"
        );
        assert_eq!(
            Shard::from_arg("auto/x", env(&[])).unwrap_err(),
            "the count 'x' is not a whole number"
        );
    }

    #[test]
    fn auto_reads_slurm_and_kubernetes_indices() {
        let slurm = env(&[(SLURM_INDEX, "2"), (SLURM_COUNT, "3")]);
        assert_eq!(
            Shard::from_arg("auto", &slurm),
            Ok(Shard::new(2, 3).unwrap())
        );
        assert_eq!(
            Shard::from_arg("auto/3", &slurm),
            Ok(Shard::new(2, 3).unwrap())
        );
        assert_eq!(
            Shard::from_arg("auto/4", &slurm).unwrap_err(),
            "the Slurm array has 3 tasks (SLURM_ARRAY_TASK_COUNT), not 4"
        );
        let k8s = env(&[(K8S_INDEX, "4")]);
        assert_eq!(
            Shard::from_arg("auto/5", &k8s),
            Ok(Shard::new(4, 5).unwrap())
        );
        assert_eq!(
            Shard::from_arg("auto/4", &k8s).unwrap_err(),
            "JOB_COMPLETION_INDEX=4: shard index 4 is out of range: the shards of 4 are \
             numbered 0 to 3"
        );
        assert!(
            Shard::from_arg("auto", &k8s)
                .unwrap_err()
                .contains("give the shard count: --shard auto/N")
        );
        assert!(
            Shard::from_arg("auto/2", env(&[]))
                .unwrap_err()
                .contains("neither JOB_COMPLETION_INDEX")
        );
        assert_eq!(
            Shard::from_arg("auto", env(&[(SLURM_INDEX, "x")])).unwrap_err(),
            "SLURM_ARRAY_TASK_ID=x is not a whole number"
        );
        assert_eq!(
            Shard::from_arg("auto", env(&[(SLURM_INDEX, "0")])).unwrap_err(),
            "SLURM_ARRAY_TASK_COUNT is not set; give the count: --shard auto/N"
        );
        // An array submitted as --array=1-3 has ids 1 to 3 of 3 tasks.
        assert!(
            Shard::from_arg("auto", env(&[(SLURM_INDEX, "3"), (SLURM_COUNT, "3")]))
                .unwrap_err()
                .contains("--array=0-2")
        );
    }

    #[test]
    fn shards_serialize_as_k_of_n() {
        let shard = Shard::new(1, 3).unwrap();
        assert_eq!(serde_json::to_string(&shard).unwrap(), "\"1/3\"");
        assert_eq!(serde_json::from_str::<Shard>("\"1/3\"").unwrap(), shard);
        let err = serde_json::from_str::<Shard>("\"4/3\"").unwrap_err();
        assert!(err.to_string().contains("out of range"), "{err}");
    }
}
