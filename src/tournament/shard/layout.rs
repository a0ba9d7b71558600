//! The run directory of a sharded run: `RUN/shard-K/` per shard (games.csv, games.pgn,
//! summary.json, config.json, logs/), `RUN/sprt.json` once a shared SPRT decides, and what
//! `bt-arena merge` writes (games.csv, games.pgn, summary.json).
//!
//! The shards of one run play one tournament: a shard refuses to join a run directory whose
//! shards were saved with another config, naming the first field that differs. Fields that
//! cannot change the games are not compared: `out` (the shared directory may be mounted at
//! another path on each machine), `concurrency`, `log`, and the shard's index (its count is).

use super::super::config::TournamentConfig;
use super::super::runner::CONFIG_FILE;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Shard `K`'s directory in the run directory is this prefix and `K`.
pub const SHARD_PREFIX: &str = "shard-";

/// The shard directories of run directory `run`, as `(K, RUN/shard-K)` sorted by `K`; none
/// when `run` does not exist.
///
/// # Errors
/// A message naming `run` when it exists but cannot be listed.
pub fn shard_dirs(run: &Path) -> Result<Vec<(u32, PathBuf)>, String> {
    let entries = match std::fs::read_dir(run) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot list {}: {e}", run.display())),
    };
    let mut dirs: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| {
            let name = entry.file_name();
            let index = name.to_str()?.strip_prefix(SHARD_PREFIX)?.parse().ok()?;
            Some((index, entry.path()))
        })
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// Checks, before a run saves its config, that `config` may write to its directory. A shard
/// refuses a directory holding an unsharded run (its `config.json`) and one whose other
/// shards were saved with a config that differs from `config` ([`first_difference`]); an
/// unsharded run refuses a directory holding shards.
///
/// # Errors
/// A message naming the directory or the other shard's config.json, and the field.
pub fn check_run_dir(config: &TournamentConfig) -> Result<(), String> {
    let run = &config.out;
    let Some(shard) = config.shard else {
        let shards = shard_dirs(run)?;
        if let Some((_, first)) = shards.first() {
            return Err(format!(
                "{} holds the shards of a sharded run ({} ...): resume one with --resume {} \
                 --shard K/N, or join them with bt-arena merge {0}",
                run.display(),
                first.display(),
                run.display()
            ));
        }
        return Ok(());
    };
    let unsharded = run.join(CONFIG_FILE);
    if unsharded.exists() {
        return Err(format!(
            "{} holds an unsharded run ({}): a shard cannot join it; choose another --out",
            run.display(),
            unsharded.display()
        ));
    }
    for (index, dir) in shard_dirs(run)? {
        let path = dir.join(CONFIG_FILE);
        if index == shard.index() || !path.exists() {
            continue;
        }
        let theirs = TournamentConfig::read(&path).map_err(|e| e.to_string())?;
        if let Some(difference) = first_difference(config, &theirs) {
            return Err(format!(
                "shard {shard} cannot join {}: {} was saved with another tournament: {difference} \
                 (the shards of one run must be started with the same settings)",
                run.display(),
                path.display()
            ));
        }
    }
    Ok(())
}

/// The first field in which two configs differ as shards of one run (see the module
/// documentation for the fields not compared), or `None` when they agree.
pub fn first_difference(ours: &TournamentConfig, theirs: &TournamentConfig) -> Option<Difference> {
    let (ours, theirs) = (identity(ours), identity(theirs));
    differing_field(String::new(), &ours, &theirs).map(|(field, ours, theirs)| Difference {
        ours: describe(&field, ours),
        theirs: describe(&field, theirs),
        field,
    })
}

/// A field in which two configs differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The field's path in config.json, e.g. `seed` or `engines[1].limit`.
    pub field: String,
    /// Its value in the first config, as JSON (`null` when absent; for `shard`, `N shards`).
    pub ours: String,
    /// Its value in the second config.
    pub theirs: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "field `{}` is {} there, {} here",
            self.field, self.theirs, self.ours
        )
    }
}

/// The fields of `config` that make the games: config.json without `out`, `concurrency`,
/// `log`, and with the shard count for `shard`.
fn identity(config: &TournamentConfig) -> Value {
    let mut value = serde_json::to_value(config).unwrap_or(Value::Null);
    if let Some(fields) = value.as_object_mut() {
        for field in ["out", "concurrency", "log"] {
            fields.remove(field);
        }
        fields.insert("shard".into(), config.shard.map(|s| s.count()).into());
    }
    value
}

/// The path of the first leaf in which `ours` and `theirs` differ (object fields in `ours`'
/// order, then those only `theirs` has), with both values.
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

/// A value of field `field` for a message.
fn describe(field: &str, value: &Value) -> String {
    match (field, value) {
        ("shard", Value::Number(count)) => format!("{count} shards"),
        ("shard", Value::Null) => "unsharded".to_string(),
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TimeControl;
    use crate::tournament::shard::test_config;

    fn config(shard: &str) -> TournamentConfig {
        test_config(Path::new("/run"), shard)
    }

    #[test]
    fn shards_of_one_run_agree_whatever_their_index_directory_and_concurrency() {
        let mut other = config("2/3");
        other.out = PathBuf::from("/mnt/elsewhere/run");
        other.concurrency = 8;
        other.log = true;
        assert_eq!(first_difference(&config("0/3"), &other), None);
    }

    #[test]
    fn the_first_differing_field_is_named() {
        let ours = config("0/3");
        let mut theirs = config("1/3");
        theirs.seed = 9;
        theirs.rounds = 101;
        let difference = first_difference(&ours, &theirs).unwrap();
        assert_eq!(difference.field, "rounds");
        assert_eq!(
            difference.to_string(),
            "field `rounds` is 101 there, 100 here"
        );
        let mut theirs = config("1/3");
        theirs.engines[1].limit = TimeControl::Depth(3);
        assert_eq!(
            first_difference(&ours, &theirs).unwrap().to_string(),
            "field `engines[1].limit.depth` is 3 there, 2 here"
        );
        theirs = config("1/2");
        assert_eq!(
            first_difference(&ours, &theirs).unwrap().to_string(),
            "field `shard` is 2 shards there, 3 shards here"
        );
        theirs.shard = None;
        assert_eq!(
            first_difference(&ours, &theirs).unwrap().to_string(),
            "field `shard` is unsharded there, 3 shards here"
        );
        theirs = config("1/3");
        theirs.sprt = Some("elo0=0 elo1=5".parse().unwrap());
        assert_eq!(
            first_difference(&ours, &theirs).unwrap().to_string(),
            "field `sprt` is \"elo0=0 elo1=5 alpha=0.05 beta=0.05\" there, null here"
        );
        theirs = config("1/3");
        theirs.engines.pop();
        assert_eq!(first_difference(&ours, &theirs).unwrap().field, "engines");
    }
}
