//! A tournament's run identity: decided once when the run starts, joined by every shard.
//!
//! A run on one machine is identified by its config.json, to which a run id is added. A
//! sharded run's identity is `RUN/identity.json` ([`RunIdentity`]), created by the first shard
//! to start, atomically and exclusively, with the seed drawn for it; every later shard (and
//! every resume) joins it only if its settings match, comparing parsed values
//! ([`TournamentConfig::identity`]), and takes the run's seed when it was given none. Shards
//! started at the same instant without `--seed` thus play with one seed, and a shard started
//! with other settings is refused before it plays, naming the field. Sharded runs begun
//! before identities existed (shard directories, no identity.json) are joined by comparing
//! the shards' saved configs, and then given an identity.

use super::config::{SeedOrigin, TournamentConfig};
use crate::records::now_rfc3339;
use crate::run_dir::identity::{Difference, RunIdentity, first_difference, new_run_id};
use crate::run_dir::{RunDir, RunDirError, Shard};
use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Environment variable for tests of the race between shards: when set to a path `GATE`, a
/// shard about to create a run's identity writes `GATE.waiting` and waits (up to a minute)
/// until `GATE` exists. A test can so hold a shard between its look for an identity and its
/// creation of one, and start another shard in between. Never set outside tests.
pub const TEST_GATE: &str = "BT_ARENA_TEST_IDENTITY_GATE";

/// Why a run cannot start in its directory.
#[derive(Debug)]
pub enum IdentityError {
    /// The run directory or a file in it cannot be read or written.
    RunDir(RunDirError),
    /// A saved config.json of another shard cannot be read.
    ShardConfig(String),
    /// A run on one machine given a directory that holds a sharded run.
    HoldsShards(PathBuf),
    /// A shard given a directory that holds a run on one machine (its config.json).
    HoldsUnsharded(PathBuf),
    /// A shard whose settings differ from the run's identity (or, for a run begun before
    /// identities, from another shard's saved config).
    Differs {
        /// The shard refused.
        shard: Shard,
        /// The file it was compared with.
        with: PathBuf,
        /// The first field that differs.
        difference: Difference,
    },
    /// A shard whose saved config belongs to another run than the directory's identity.
    OtherRun {
        /// The shard refused.
        shard: Shard,
        /// Its run id.
        ours: String,
        /// The run id in identity.json.
        theirs: String,
        /// The identity file.
        with: PathBuf,
    },
}

impl fmt::Display for IdentityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdentityError::RunDir(err) => err.fmt(f),
            IdentityError::ShardConfig(err) => f.write_str(err),
            IdentityError::HoldsShards(run) => write!(
                f,
                "{} holds the shards of a sharded run: resume one with --resume {0} --shard K/N, \
                 or join them with bt-arena merge {0}",
                run.display()
            ),
            IdentityError::HoldsUnsharded(run) => write!(
                f,
                "{} holds a run on one machine ({}): a shard cannot join it; choose another --out",
                run.display(),
                RunDir::new(run).config_json().display()
            ),
            IdentityError::Differs {
                shard,
                with,
                difference,
            } => write!(
                f,
                "shard {shard} cannot join the run in {}: {} was saved with other settings: \
                 {difference}. The shards of one run must be started with the same settings; \
                 to start another run, choose another --out or remove that run's files from {0}",
                run_of(with).display(),
                with.display()
            ),
            IdentityError::OtherRun {
                shard,
                ours,
                theirs,
                with,
            } => write!(
                f,
                "shard {shard} belongs to run {ours}, but {} is run {theirs}: its directory was \
                 copied from another run; move it out of {}",
                with.display(),
                run_of(with).display()
            ),
        }
    }
}

impl std::error::Error for IdentityError {}

impl From<RunDirError> for IdentityError {
    fn from(err: RunDirError) -> Self {
        IdentityError::RunDir(err)
    }
}

/// The run directory holding a file of it.
fn run_of(file: &std::path::Path) -> PathBuf {
    let dir = file.parent().unwrap_or(file);
    match dir.file_name().and_then(|name| name.to_str()) {
        Some(name) if name.starts_with(crate::run_dir::SHARD_PREFIX) => {
            dir.parent().unwrap_or(dir).to_path_buf()
        }
        _ => dir.to_path_buf(),
    }
}

/// Decides or joins the identity of the run `config` starts or resumes, before anything is
/// written: a run on one machine gets a run id (unless its config has one); a shard joins the
/// identity of its run directory, creating it if it is the first, and takes the run's run id
/// and, when `seed` was [`SeedOrigin::Drawn`], the run's seed.
///
/// # Errors
/// [`IdentityError`]: a directory holding another kind of run, a shard whose settings differ
/// from the run's (naming the field), a shard of another run, a file that cannot be read or
/// written.
pub fn establish(config: &mut TournamentConfig, seed: SeedOrigin) -> Result<(), IdentityError> {
    let run = RunDir::new(&config.out);
    let Some(shard) = config.shard else {
        if !run.shard_dirs()?.is_empty() || run.identity_json().exists() {
            return Err(IdentityError::HoldsShards(config.out.clone()));
        }
        config.run_id.get_or_insert_with(new_run_id);
        return Ok(());
    };
    if run.config_json().exists() {
        return Err(IdentityError::HoldsUnsharded(config.out.clone()));
    }
    let identity = match RunIdentity::read(&run)? {
        Some(identity) => identity,
        None => {
            join_saved_shards(config, seed, &run)?;
            pause_for_tests();
            let created_by = format!("shard {shard}");
            let mut identity = RunIdentity::new(config.identity(), created_by, now_rfc3339());
            // A run whose identity.json was lost keeps the id its shards saved.
            if let Some(id) = &config.run_id {
                identity.run_id.clone_from(id);
            }
            identity.create_or_read(&run)?.0
        }
    };
    join(config, seed, shard, &identity, &run)
}

/// Joins `identity`: the settings must match (all but the seed when it was drawn); the run's
/// seed and run id are taken.
fn join(
    config: &mut TournamentConfig,
    seed: SeedOrigin,
    shard: Shard,
    identity: &RunIdentity,
    run: &RunDir,
) -> Result<(), IdentityError> {
    let ignored: &[&str] = match seed {
        SeedOrigin::Given => &[],
        SeedOrigin::Drawn => &["seed"],
    };
    if let Some(difference) = first_difference(&config.identity(), &identity.settings, ignored) {
        return Err(IdentityError::Differs {
            shard,
            with: run.identity_json(),
            difference,
        });
    }
    if let Some(seed) = identity.settings["seed"].as_u64() {
        config.seed = seed;
    }
    match &config.run_id {
        Some(ours) if *ours != identity.run_id => Err(IdentityError::OtherRun {
            shard,
            ours: ours.clone(),
            theirs: identity.run_id.clone(),
            with: run.identity_json(),
        }),
        _ => {
            config.run_id = Some(identity.run_id.clone());
            Ok(())
        }
    }
}

/// For a run without identity.json (begun before identities existed, or whose file was
/// lost): checks `config` against every shard's saved config (all but the seed when it was
/// drawn, taking theirs), and takes their run id.
fn join_saved_shards(
    config: &mut TournamentConfig,
    seed: SeedOrigin,
    run: &RunDir,
) -> Result<(), IdentityError> {
    let Some(shard) = config.shard else {
        return Ok(());
    };
    for (_, dir) in run.shard_dirs()? {
        let path = dir.config_json();
        if !path.exists() {
            continue;
        }
        let mut theirs =
            TournamentConfig::read(&path).map_err(|e| IdentityError::ShardConfig(e.to_string()))?;
        // A shard saved before book digests existed read the book at the same path.
        if theirs.openings.digest.is_none() && theirs.openings.file == config.openings.file {
            theirs.openings.digest.clone_from(&config.openings.digest);
        }
        let ignored: &[&str] = match seed {
            SeedOrigin::Given => &[],
            SeedOrigin::Drawn => &["seed"],
        };
        if let Some(difference) = first_difference(&config.identity(), &theirs.identity(), ignored)
        {
            return Err(IdentityError::Differs {
                shard,
                with: path,
                difference,
            });
        }
        config.seed = theirs.seed;
        if config.run_id.is_none() {
            config.run_id = theirs.run_id;
        }
    }
    Ok(())
}

/// The pause of [`TEST_GATE`], when it is set.
fn pause_for_tests() {
    let Some(gate) = std::env::var_os(TEST_GATE).map(PathBuf::from) else {
        return;
    };
    let _ = std::fs::write(gate.with_extension("waiting"), b"");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !gate.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TimeControl;
    use crate::tournament::shard::test_config;

    fn shard_config(run: &std::path::Path, shard: &str) -> TournamentConfig {
        test_config(run, shard)
    }

    #[test]
    fn the_first_shard_decides_the_seed_and_the_others_take_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = shard_config(dir.path(), "0/3");
        first.seed = 11;
        establish(&mut first, SeedOrigin::Drawn).unwrap();
        let identity = RunIdentity::read(&RunDir::new(dir.path()))
            .unwrap()
            .unwrap();
        assert_eq!(identity.settings["seed"], 11);
        assert_eq!(identity.created_by, "shard 0/3");
        assert_eq!(first.run_id.as_ref(), Some(&identity.run_id));

        let mut second = shard_config(dir.path(), "2/3");
        second.seed = 12;
        second.concurrency = 4;
        second.out = dir.path().to_path_buf();
        establish(&mut second, SeedOrigin::Drawn).unwrap();
        assert_eq!(second.seed, 11, "the run's seed");
        assert_eq!(second.run_id, first.run_id);

        // A seed given that is not the run's is another run.
        let mut third = shard_config(dir.path(), "1/3");
        third.seed = 12;
        let err = establish(&mut third, SeedOrigin::Given).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "shard 1/3 cannot join the run in {}: {} was saved with other settings: field \
                 `seed` is 11 there, 12 here.",
                dir.path().display(),
                dir.path().join("identity.json").display()
            )),
            "{err}"
        );
        // Other settings are refused even without a seed; an SPRT written out with its
        // default alpha is the same test.
        third.engines[1].limit = TimeControl::Depth(3);
        let err = establish(&mut third, SeedOrigin::Drawn).unwrap_err();
        assert!(
            err.to_string()
                .contains("field `engines[1].limit.depth` is 2 there, 3 here"),
            "{err}"
        );
        let mut same = shard_config(dir.path(), "1/3");
        same.seed = 11;
        same.run_id = Some("0123456789abcdef".into());
        let err = establish(&mut same, SeedOrigin::Given).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "shard 1/3 belongs to run 0123456789abcdef, but {} is run {}",
                dir.path().join("identity.json").display(),
                identity.run_id
            )),
            "{err}"
        );
    }

    #[test]
    fn an_sprt_written_out_or_left_to_its_defaults_is_one_test() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = shard_config(dir.path(), "0/2");
        first.sprt = Some("elo0=0 elo1=5".parse().unwrap());
        establish(&mut first, SeedOrigin::Given).unwrap();
        let mut second = shard_config(dir.path(), "1/2");
        second.sprt = Some("elo0=0 elo1=5 alpha=0.05 beta=0.050".parse().unwrap());
        establish(&mut second, SeedOrigin::Given).unwrap();
        second.sprt = Some("elo0=0 elo1=5 alpha=0.1".parse().unwrap());
        let err = establish(&mut second, SeedOrigin::Given).unwrap_err();
        assert!(err.to_string().contains("field `sprt`"), "{err}");
    }

    #[test]
    fn runs_of_one_kind_refuse_directories_of_the_other() {
        let dir = tempfile::tempdir().unwrap();
        let mut shard = shard_config(dir.path(), "0/2");
        establish(&mut shard, SeedOrigin::Given).unwrap();
        let mut plain = shard_config(dir.path(), "0/2");
        plain.shard = None;
        assert!(matches!(
            establish(&mut plain, SeedOrigin::Given),
            Err(IdentityError::HoldsShards(_))
        ));
        let other = tempfile::tempdir().unwrap();
        plain.out = other.path().to_path_buf();
        establish(&mut plain, SeedOrigin::Given).unwrap();
        assert_eq!(plain.run_id.as_ref().map(String::len), Some(16));
        std::fs::write(other.path().join("config.json"), "{}").unwrap();
        let mut shard = shard_config(other.path(), "1/2");
        assert!(matches!(
            establish(&mut shard, SeedOrigin::Given),
            Err(IdentityError::HoldsUnsharded(_))
        ));
    }

    #[test]
    fn a_run_begun_before_identities_is_joined_by_its_shards_configs() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::new(dir.path());
        let mut legacy = shard_config(dir.path(), "0/2");
        legacy.seed = 5;
        std::fs::create_dir_all(run.shard(0).root()).unwrap();
        std::fs::write(
            run.shard(0).config_json(),
            serde_json::to_string(&legacy).unwrap(),
        )
        .unwrap();
        let mut other = shard_config(dir.path(), "1/2");
        other.rounds = 3;
        let err = establish(&mut other, SeedOrigin::Drawn).unwrap_err();
        assert!(
            err.to_string().contains(&format!(
                "{} was saved with other settings: field `rounds` is 100 there, 3 here",
                run.shard(0).config_json().display()
            )),
            "{err}"
        );
        assert!(!run.identity_json().exists());
        let mut joining = shard_config(dir.path(), "1/2");
        establish(&mut joining, SeedOrigin::Drawn).unwrap();
        assert_eq!(joining.seed, 5);
        let identity = RunIdentity::read(&run).unwrap().unwrap();
        assert_eq!(identity.settings["seed"], 5);
        // The old shard resumes into the identity it now has.
        establish(&mut legacy, SeedOrigin::Given).unwrap();
        assert_eq!(legacy.run_id, Some(identity.run_id.clone()));
    }

    #[test]
    fn a_lost_identity_is_made_again_with_the_run_id_of_the_shards() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::new(dir.path());
        let mut shard = shard_config(dir.path(), "0/2");
        establish(&mut shard, SeedOrigin::Drawn).unwrap();
        std::fs::create_dir_all(run.shard(0).root()).unwrap();
        std::fs::write(
            run.shard(0).config_json(),
            serde_json::to_string(&shard).unwrap(),
        )
        .unwrap();
        let id = shard.run_id.clone().unwrap();
        std::fs::remove_file(run.identity_json()).unwrap();
        // The other shard starts, then the first resumes: one run, the old id.
        let mut other = shard_config(dir.path(), "1/2");
        establish(&mut other, SeedOrigin::Drawn).unwrap();
        assert_eq!(other.run_id.as_ref(), Some(&id));
        establish(&mut shard, SeedOrigin::Given).unwrap();
        assert_eq!(RunIdentity::read(&run).unwrap().unwrap().run_id, id);
    }
}
