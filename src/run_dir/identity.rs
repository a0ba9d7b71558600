//! A run's identity, decided once: the settings that make its games (the whole effective
//! config but what may differ per shard), the seed among them, and a run id.
//!
//! The shards of a run start on many machines, possibly at the same instant and without a
//! `--seed`. The first to start writes `RUN/identity.json` atomically and exclusively
//! ([`RunIdentity::create_or_read`]: a temporary file linked to the name only if no file has
//! it, which works over NFS); every later shard reads it and joins only when its own settings
//! match ([`first_difference`], comparing parsed values, not text), adopting the run's seed
//! when it was given none. So the shards of one run play one schedule, and a shard started
//! with other settings is refused before it plays, naming the field.

use super::{RunDir, RunDirError, atomic, read_json};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The identity of a run, as `RUN/identity.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// The run's id: 16 random hexadecimal digits, drawn when the identity is created. Every
    /// shard's config.json carries it; a game is identified by its run id and game id.
    pub run_id: String,
    /// When the identity was created, RFC 3339 UTC.
    pub created_at: String,
    /// Who created it, e.g. `shard 1/3`.
    pub created_by: String,
    /// The settings that make the games: for a tournament, config.json without the fields a
    /// shard may set for itself (see `TournamentConfig::identity`).
    pub settings: Value,
}

impl RunIdentity {
    /// A new identity with a fresh [`run_id`](RunIdentity::run_id).
    pub fn new(settings: Value, created_by: String, created_at: String) -> RunIdentity {
        RunIdentity {
            run_id: new_run_id(),
            created_at,
            created_by,
            settings,
        }
    }

    /// The identity recorded in `run`, if any.
    ///
    /// # Errors
    /// [`RunDirError`] when identity.json cannot be read or is not an identity.
    pub fn read(run: &RunDir) -> Result<Option<RunIdentity>, RunDirError> {
        let path = run.identity_json();
        read_json(&path)?
            .map(|value| {
                serde_json::from_value(value).map_err(|e| RunDirError::Malformed {
                    path: path.clone(),
                    reason: e.to_string(),
                })
            })
            .transpose()
    }

    /// Records this identity as `run`'s unless the run has one already; returns the identity
    /// the run has, and whether it is this one (newly created). Two processes racing here,
    /// on one machine or several sharing the directory, get one identity between them.
    ///
    /// # Errors
    /// [`RunDirError`] when the file cannot be written or read back.
    pub fn create_or_read(self, run: &RunDir) -> Result<(RunIdentity, bool), RunDirError> {
        let path = run.identity_json();
        let io_error = |source, action| RunDirError::Io {
            path: path.clone(),
            action,
            source,
        };
        std::fs::create_dir_all(run.root()).map_err(|e| io_error(e, "cannot create"))?;
        if atomic::write_json(&path, &self, atomic::Existing::Keep)
            .map_err(|e| io_error(e, "cannot write"))?
        {
            return Ok((self, true));
        }
        let theirs = RunIdentity::read(run)?
            .ok_or_else(|| io_error(std::io::ErrorKind::NotFound.into(), "cannot read back"))?;
        Ok((theirs, false))
    }
}

/// A new run id: 16 random hexadecimal digits.
pub fn new_run_id() -> String {
    format!("{:016x}", fastrand::u64(..))
}

/// A field in which two settings differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The field's path, e.g. `seed` or `engines[1].limit.depth`.
    pub field: String,
    /// Its value in the first settings, as JSON (`null` when absent).
    pub ours: String,
    /// Its value in the second.
    pub theirs: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "field `{}` is {} there, {} here",
            self.field, self.theirs, self.ours
        )
    }
}

/// The first leaf in which `ours` and `theirs` differ (object fields in `ours`' order, then
/// those only `theirs` has), leaving out the top-level fields `ignored`; `None` when they
/// agree. Values are compared parsed: `1.0` and `1` differ only if the serializer wrote
/// them so, and a setting written out or left to its default is the same once the config
/// was parsed and serialized again.
pub fn first_difference(ours: &Value, theirs: &Value, ignored: &[&str]) -> Option<Difference> {
    let strip = |value: &Value| {
        let mut value = value.clone();
        if let Some(fields) = value.as_object_mut() {
            for field in ignored {
                fields.remove(*field);
            }
        }
        value
    };
    let (ours, theirs) = (strip(ours), strip(theirs));
    differing_field(String::new(), &ours, &theirs).map(|(field, a, b)| Difference {
        ours: describe(&field, a),
        theirs: describe(&field, b),
        field,
    })
}

/// The path of the first leaf in which `ours` and `theirs` differ, with both values.
fn differing_field<'a>(
    path: String,
    ours: &'a Value,
    theirs: &'a Value,
) -> Option<(String, &'a Value, &'a Value)> {
    const NULL: &Value = &Value::Null;
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => a
            .keys()
            .chain(b.keys().filter(|key| !a.contains_key(*key)))
            .find_map(|key| {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                differing_field(
                    child,
                    a.get(key).unwrap_or(NULL),
                    b.get(key).unwrap_or(NULL),
                )
            }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| differing_field(format!("{path}[{i}]"), x, y)),
        _ if ours == theirs => None,
        _ => Some((path, ours, theirs)),
    }
}

/// A value of field `field` for a message: the shard field holds the shard count, a
/// worker's lease its milliseconds (named by its flag), a board left out is 8×8.
fn describe(field: &str, value: &Value) -> String {
    match (field, value) {
        ("shard", Value::Number(count)) => format!("{count} shards"),
        ("shard", Value::Null) => "unsharded".to_string(),
        ("lease_ms", Value::Number(ms)) => format!("{ms} ms (--lease)"),
        // A config leaves out the 8x8 board.
        ("board", Value::Null) => "\"8x8\"".to_string(),
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_identity_is_kept_and_read_back_by_the_second() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::new(dir.path().join("run"));
        assert_eq!(RunIdentity::read(&run).unwrap(), None);
        let first = RunIdentity::new(json!({"seed": 1}), "shard 0/2".into(), "t0".into());
        let second = RunIdentity::new(json!({"seed": 2}), "shard 1/2".into(), "t1".into());
        assert_ne!(first.run_id, second.run_id);
        assert_eq!(first.run_id.len(), 16);
        let (kept, created) = first.clone().create_or_read(&run).unwrap();
        assert!(created);
        assert_eq!(kept, first);
        let (kept, created) = second.create_or_read(&run).unwrap();
        assert!(!created);
        assert_eq!(kept, first);
        assert_eq!(RunIdentity::read(&run).unwrap(), Some(first));
        std::fs::write(run.identity_json(), "{\"run_id\": 1}").unwrap();
        let err = RunIdentity::read(&run).unwrap_err().to_string();
        assert!(err.contains("identity.json: invalid type"), "{err}");
    }

    #[test]
    fn differences_name_the_first_differing_leaf() {
        let ours = json!({"seed": 1, "rounds": 100, "engines": [{"limit": {"depth": 2}}]});
        let mut theirs = ours.clone();
        assert_eq!(first_difference(&ours, &theirs, &[]), None);
        theirs["seed"] = json!(9);
        assert_eq!(
            first_difference(&ours, &theirs, &[]).unwrap().to_string(),
            "field `seed` is 9 there, 1 here"
        );
        // A config leaves out the 8x8 board: named as such.
        let small = json!({"board": "6x6"});
        assert_eq!(
            first_difference(&json!({}), &small, &[])
                .unwrap()
                .to_string(),
            "field `board` is \"6x6\" there, \"8x8\" here"
        );
        assert_eq!(first_difference(&ours, &theirs, &["seed"]), None);
        theirs["engines"][0]["limit"]["depth"] = json!(3);
        assert_eq!(
            first_difference(&ours, &theirs, &["seed"])
                .unwrap()
                .to_string(),
            "field `engines[0].limit.depth` is 3 there, 2 here"
        );
        theirs = ours.clone();
        theirs["shard"] = json!(3);
        assert_eq!(
            first_difference(&ours, &theirs, &[]).unwrap().to_string(),
            "field `shard` is 3 shards there, unsharded here"
        );
        theirs = ours.clone();
        theirs["engines"] = json!([]);
        assert_eq!(
            first_difference(&ours, &theirs, &[]).unwrap().field,
            "engines"
        );
    }
}
