//! A shard of a run spread over many machines: shard `K/N` plays the game pairs `p` of the
//! full schedule with `(p - 1) mod N = K`, writing `RUN/shard-K/` of a run directory `RUN`
//! shared by every shard (NFS on a cluster, a volume in Kubernetes). `K/N` is given on the
//! command line or read from a Slurm array task or a Kubernetes indexed job.

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

/// Why a shard could not be read or resolved. [`Display`](fmt::Display) gives the message a
/// command line prints after `--shard TEXT: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardError {
    /// Not one of the forms `K/N`, `auto`, `auto/N`.
    Syntax,
    /// A shard count of 0.
    NoShards,
    /// `K >= N`.
    OutOfRange {
        /// K.
        index: u32,
        /// N.
        count: u32,
    },
    /// A number that is not a whole number: `what` names it (`the count 'x'`,
    /// `SLURM_ARRAY_TASK_ID=x`).
    NotANumber {
        /// What was read, and from where.
        what: String,
    },
    /// `auto` outside a Slurm array task or a Kubernetes Indexed Job: no index to read.
    /// `count_given` for `auto/N`.
    NoIndex {
        /// Whether the count was given (`auto/N`).
        count_given: bool,
    },
    /// `auto` in a Slurm array task whose size is not set.
    NoCount,
    /// `auto/N` in a Slurm array of another size.
    ArraySize {
        /// N of `auto/N`.
        given: u32,
        /// The array's size.
        array: u32,
    },
    /// The index read from the environment variable `variable` is out of range.
    FromVariable {
        /// The variable the index came from.
        variable: &'static str,
        /// Its value.
        index: u32,
        /// Why it does not make a shard.
        reason: Box<ShardError>,
    },
    /// A `K/N` text (config.json, [`FromStr`]) that is not a shard.
    BadText {
        /// The text.
        text: String,
        /// Why.
        reason: Box<ShardError>,
    },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Syntax => f.write_str("expected K/N (e.g. 0/3), auto or auto/N"),
            ShardError::NoShards => f.write_str("the shard count must be at least 1"),
            ShardError::OutOfRange { index, count } => write!(
                f,
                "shard index {index} is out of range: the shards of {count} are numbered 0 to {}",
                count - 1
            ),
            ShardError::NotANumber { what } => write!(f, "{what} is not a whole number"),
            ShardError::NoIndex { count_given: true } => write!(
                f,
                "neither {K8S_INDEX} (a Kubernetes Indexed Job) nor {SLURM_INDEX} (a Slurm \
                 array task) is set"
            ),
            ShardError::NoIndex { count_given: false } => write!(
                f,
                "{SLURM_INDEX} is not set (not a Slurm array task); in a Kubernetes Indexed \
                 Job give the shard count: --shard auto/N"
            ),
            ShardError::NoCount => {
                write!(
                    f,
                    "{SLURM_COUNT} is not set; give the count: --shard auto/N"
                )
            }
            ShardError::ArraySize { given, array } => write!(
                f,
                "the Slurm array has {array} tasks ({SLURM_COUNT}), not {given}"
            ),
            ShardError::FromVariable {
                variable,
                index,
                reason,
            } => {
                write!(f, "{variable}={index}: {reason}")?;
                match (variable, reason.as_ref()) {
                    (&SLURM_INDEX, ShardError::OutOfRange { count, .. }) => {
                        write!(f, " (submit the array as --array=0-{})", count - 1)
                    }
                    _ => Ok(()),
                }
            }
            ShardError::BadText { text, reason } => write!(f, "bad shard '{text}': {reason}"),
        }
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// Shard `index` of `count`.
    ///
    /// # Errors
    /// [`ShardError::NoShards`] for `count == 0`, [`ShardError::OutOfRange`] unless
    /// `index < count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::NoShards);
        }
        if index >= count {
            return Err(ShardError::OutOfRange { index, count });
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
        format!("{}{}", super::SHARD_PREFIX, self.index)
    }

    /// The shard of a `--shard` value: `K/N`; `auto`, from a Slurm array task
    /// ([`SLURM_INDEX`] of [`SLURM_COUNT`]); or `auto/N`, the index from a Kubernetes Indexed
    /// Job ([`K8S_INDEX`]) or else a Slurm array task, of `N` shards. `env` looks variables
    /// up (`std::env::var(..).ok()` in the command line).
    ///
    /// # Errors
    /// A [`ShardError`] naming what is at fault: not one of the forms, a count of 0, an index
    /// out of range, a variable unset or not a number, a Slurm array whose size disagrees with
    /// `auto/N`.
    pub fn from_arg(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Shard, ShardError> {
        let Some(rest) = text.strip_prefix("auto") else {
            return parse_k_of_n(text);
        };
        let count = match rest.strip_prefix('/') {
            Some(count) => Some(parse_number(count, || format!("the count '{count}'"))?),
            None if rest.is_empty() => None,
            None => return Err(ShardError::Syntax),
        };
        let variable = |name: &str| -> Result<Option<u32>, ShardError> {
            env(name)
                .map(|value| parse_number(&value, || format!("{name}={value}")))
                .transpose()
        };
        let (index, from) = if let (Some(_), Some(index)) = (count, variable(K8S_INDEX)?) {
            (index, K8S_INDEX)
        } else if let Some(index) = variable(SLURM_INDEX)? {
            (index, SLURM_INDEX)
        } else {
            return Err(ShardError::NoIndex {
                count_given: count.is_some(),
            });
        };
        let slurm_count = variable(SLURM_COUNT)?.filter(|_| from == SLURM_INDEX);
        let count = match (count, slurm_count) {
            (Some(given), Some(array)) if given != array => {
                return Err(ShardError::ArraySize { given, array });
            }
            (Some(count), _) | (None, Some(count)) => count,
            (None, None) => return Err(ShardError::NoCount),
        };
        Shard::new(index, count).map_err(|reason| ShardError::FromVariable {
            variable: from,
            index,
            reason: Box::new(reason),
        })
    }
}

/// `text` as a whole number, or [`ShardError::NotANumber`] naming `what`.
fn parse_number(text: &str, what: impl Fn() -> String) -> Result<u32, ShardError> {
    text.trim()
        .parse()
        .map_err(|_| ShardError::NotANumber { what: what() })
}

/// `K/N`, or why not (without repeating `text`).
fn parse_k_of_n(text: &str) -> Result<Shard, ShardError> {
    let (index, count) = text.split_once('/').ok_or(ShardError::Syntax)?;
    let number = |part: &str| part.parse::<u32>().map_err(|_| ShardError::Syntax);
    Shard::new(number(index)?, number(count)?)
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `K/N`, e.g. `0/3`.
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        parse_k_of_n(text).map_err(|reason| ShardError::BadText {
            text: text.to_string(),
            reason: Box::new(reason),
        })
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
        let err = |text: &str| text.parse::<Shard>().unwrap_err().to_string();
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
            Shard::from_arg("automatic", env(&[]))
                .unwrap_err()
                .to_string(),
            "expected K/N (e.g. 0/3), auto or auto/N"
        );
        assert_eq!(
            Shard::from_arg("auto/x", env(&[])).unwrap_err().to_string(),
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
            Shard::from_arg("auto/4", &slurm).unwrap_err().to_string(),
            "the Slurm array has 3 tasks (SLURM_ARRAY_TASK_COUNT), not 4"
        );
        let k8s = env(&[(K8S_INDEX, "4")]);
        assert_eq!(
            Shard::from_arg("auto/5", &k8s),
            Ok(Shard::new(4, 5).unwrap())
        );
        assert_eq!(
            Shard::from_arg("auto/4", &k8s).unwrap_err().to_string(),
            "JOB_COMPLETION_INDEX=4: shard index 4 is out of range: the shards of 4 are \
             numbered 0 to 3"
        );
        assert!(
            Shard::from_arg("auto", &k8s)
                .unwrap_err()
                .to_string()
                .contains("give the shard count: --shard auto/N")
        );
        assert!(
            Shard::from_arg("auto/2", env(&[]))
                .unwrap_err()
                .to_string()
                .contains("neither JOB_COMPLETION_INDEX")
        );
        assert_eq!(
            Shard::from_arg("auto", env(&[(SLURM_INDEX, "x")]))
                .unwrap_err()
                .to_string(),
            "SLURM_ARRAY_TASK_ID=x is not a whole number"
        );
        assert_eq!(
            Shard::from_arg("auto", env(&[(SLURM_INDEX, "0")]))
                .unwrap_err()
                .to_string(),
            "SLURM_ARRAY_TASK_COUNT is not set; give the count: --shard auto/N"
        );
        // An array submitted as --array=1-3 has ids 1 to 3 of 3 tasks.
        assert!(
            Shard::from_arg("auto", env(&[(SLURM_INDEX, "3"), (SLURM_COUNT, "3")]))
                .unwrap_err()
                .to_string()
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
