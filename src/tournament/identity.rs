//! A tournament's settings as a run identity knows them ([`Identified`]): decided once when
//! the run starts and joined by every shard ([`crate::run::identity::establish`]).

use super::config::TournamentConfig;
use crate::run::identity::{Identified, RunType};
use crate::run_dir::{RunDir, Shard};
use std::path::{Path, PathBuf};

impl Identified for TournamentConfig {
    const TYPE: RunType = RunType::Tournament;

    fn out(&self) -> &Path {
        &self.out
    }

    fn shard(&self) -> Option<Shard> {
        self.shard
    }

    fn worker(&self) -> Option<&str> {
        self.worker.as_deref()
    }

    fn identity(&self) -> serde_json::Value {
        TournamentConfig::identity(self)
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

    /// The config.json of the shard in `dir`; a shard saved before book digests existed read
    /// the book at the same path, and is given this config's digest.
    fn saved_shard(&self, dir: &RunDir) -> Result<Option<(PathBuf, Self)>, String> {
        let path = dir.config_json();
        if !path.exists() {
            return Ok(None);
        }
        let mut theirs = TournamentConfig::read(&path).map_err(|e| e.to_string())?;
        if theirs.openings.digest.is_none() && theirs.openings.file == self.openings.file {
            theirs.openings.digest.clone_from(&self.openings.digest);
        }
        Ok(Some((path, theirs)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TimeControl;
    use crate::run::identity::{IdentityError, SeedOrigin, establish};
    use crate::run_dir::identity::RunIdentity;
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
            Err(IdentityError::HoldsShards { .. })
        ));
        let other = tempfile::tempdir().unwrap();
        plain.out = other.path().to_path_buf();
        establish(&mut plain, SeedOrigin::Given).unwrap();
        assert_eq!(plain.run_id.as_ref().map(String::len), Some(16));
        std::fs::write(other.path().join("config.json"), "{}").unwrap();
        let mut shard = shard_config(other.path(), "1/2");
        assert!(matches!(
            establish(&mut shard, SeedOrigin::Given),
            Err(IdentityError::HoldsUnsharded { .. })
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
