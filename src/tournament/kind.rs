//! A tournament as a kind of run on the session ([`crate::session`]): its game pairs
//! ([`Pairs`]) and its report, read at the end as every other command reads the run.

use super::config::TournamentConfig;
use super::live::anchor;
use super::pairs::{Pairs, PairsError};
use crate::engine::EngineDescription;
use crate::records::provenance::EngineProvenance;
use crate::report::Summary;
use crate::report::html::RunMeta;
use crate::run::games::{GameSources, RunReading, Verdict, summary_of_file, write_run_report};
use crate::run::header::RunHeader;
use crate::run::identity::{Identified, IdentityError, RunType};
use crate::run_dir::RunDir;
use crate::session::{Ended, Kind, Opened, RunConfig, SessionError, Setup};
use std::path::PathBuf;

/// A tournament: round-robin or gauntlet game pairs, with an SPRT between two engines.
pub struct Tournament;

/// What a tournament produced.
#[derive(Debug)]
pub struct TournamentReport {
    /// The run's verdict, as every command reading the run gives it.
    pub verdict: Verdict,
    /// The report over every game of the run (including earlier sessions; of a shard or
    /// worker, over every process's games, read as [`GameSources`] reads them).
    pub summary: Summary,
    /// The run's games, as read for the report.
    pub sources: GameSources,
    /// What reading them found: the games of the schedule missing.
    pub reading: RunReading,
    /// A worker's merge of the run's files that failed (the workers' own files hold every
    /// game): what to say.
    pub merge_failed: Option<String>,
}

impl Identified for TournamentConfig {
    const TYPE: RunType = RunType::TOURNAMENT;

    fn header(&self) -> &RunHeader {
        &self.run
    }

    fn header_mut(&mut self) -> &mut RunHeader {
        &mut self.run
    }

    /// The config.json of the shard in `dir`; a shard saved before book digests existed read
    /// the book at the same path, and is given this config's digest.
    fn saved_shard(&self, dir: &RunDir) -> Result<Option<(PathBuf, Self)>, IdentityError> {
        let path = dir.config_json();
        if !path.exists() {
            return Ok(None);
        }
        let mut theirs =
            TournamentConfig::read(&path).map_err(|e| IdentityError::ShardConfig(Box::new(e)))?;
        let (ours, openings) = (&self.run.openings, &mut theirs.run.openings);
        if openings.digest.is_none() && openings.file == ours.file {
            openings.digest.clone_from(&ours.digest);
        }
        Ok(Some((path, theirs)))
    }
}

impl RunConfig for TournamentConfig {
    fn engines_mut(&mut self) -> &mut [EngineDescription] {
        &mut self.engines
    }

    fn validate(&self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        TournamentConfig::validate(self).map_err(Into::into)
    }

    fn scale_tc(&self) -> Option<u64> {
        self.scale_tc
    }

    fn pgn_comments(&self) -> crate::records::moves::CommentDetail {
        self.pgn_comments
    }
}

impl Kind for Tournament {
    type Config = TournamentConfig;
    type Schedule<'a> = Pairs<'a>;
    type Error = PairsError;
    type Prospect = ();
    type Outcome = TournamentReport;

    fn seats(config: &TournamentConfig) -> Vec<EngineDescription> {
        config.engines.clone()
    }

    fn open<'a>(
        config: &'a TournamentConfig,
        setup: &Setup<'a>,
    ) -> Result<Opened<Pairs<'a>, ()>, PairsError> {
        let pairs = Pairs::new(config, setup.openings.len());
        let total_games = pairs.own_games();
        Ok(Opened {
            schedule: pairs,
            prospect: (),
            repairs: Vec::new(),
            total_games,
        })
    }

    /// The run's report and verdict, read as every other command reads the run: a run on one
    /// machine replays games.csv in its order, the order the running test was fed, so its
    /// verdict is the one that stopped the run whatever games in flight added after it; a
    /// shard or worker reads every process's games in game-id order. Streamed: memory does
    /// not grow with the games. A shard's or worker's own files report its own games; a
    /// worker rewrites the run's merged files.
    fn finish(
        config: &TournamentConfig,
        pairs: Pairs<'_>,
        ended: &Ended,
    ) -> Result<TournamentReport, SessionError<PairsError>> {
        pairs.last_look().map_err(SessionError::Kind)?;
        let names = config.names();
        let sources = GameSources::open(&[&config.run.out])?;
        let (mut summary, reading) = sources.summary(&names, config.sprt.as_ref())?;
        anchor(config, &mut summary);
        let dir = &ended.dir;
        let mut own = match config.run.is_spread() {
            true => summary_of_file(&RunDir::new(dir).games_csv(), &names, None)?,
            false => summary.clone(),
        };
        anchor(config, &mut own);
        own.builds = EngineProvenance::of_engines(&config.engines);
        crate::report::write_summary(dir, &own)?;
        write_run_report(dir, &RunMeta::of_dir(dir), &own, pairs.sprt.as_ref())?;
        let merge_failed = match config.run.worker {
            Some(_) => merge_workers(&config.run.out),
            None => None,
        };
        Ok(TournamentReport {
            verdict: Verdict::of(&summary, &reading),
            summary,
            sources,
            reading,
            merge_failed,
        })
    }
}

/// A worker ending rewrites its run's merged result (games.csv, games.pgn, summary.json,
/// report.html in RUN, each replaced whole, as `bt-arena merge RUN` writes them), so that the
/// run's files are current whichever worker ends last; a failure is a warning (the workers'
/// own files hold every game).
fn merge_workers(run: &std::path::Path) -> Option<String> {
    let merged = crate::run::merge::MergedRun::open(&[run]).and_then(|merged| merged.write(run));
    merged.err().map(|err| {
        format!(
            "the run's merged files in {} were not rewritten: {err}; `bt-arena merge {0}` writes them",
            run.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TimeControl;
    use crate::run::identity::{IdentityError, SeedOrigin, establish};
    use crate::run_dir::RunDir;
    use crate::run_dir::identity::RunIdentity;
    use crate::tournament::shard::test_config;

    fn shard_config(run: &std::path::Path, shard: &str) -> TournamentConfig {
        test_config(run, shard)
    }

    #[test]
    fn the_first_shard_decides_the_seed_and_the_others_take_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = shard_config(dir.path(), "0/3");
        first.run.seed = 11;
        establish(&mut first, SeedOrigin::Drawn).unwrap();
        let identity = RunIdentity::read(&RunDir::new(dir.path()))
            .unwrap()
            .unwrap();
        assert_eq!(identity.settings["seed"], 11);
        assert_eq!(identity.created_by, "shard 0/3");
        assert_eq!(first.run.run_id.as_ref(), Some(&identity.run_id));

        let mut second = shard_config(dir.path(), "2/3");
        second.run.seed = 12;
        second.run.concurrency = 4;
        second.run.out = dir.path().to_path_buf();
        establish(&mut second, SeedOrigin::Drawn).unwrap();
        assert_eq!(second.run.seed, 11, "the run's seed");
        assert_eq!(second.run.run_id, first.run.run_id);

        // A seed given that is not the run's is another run.
        let mut third = shard_config(dir.path(), "1/3");
        third.run.seed = 12;
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
        same.run.seed = 11;
        same.run.run_id = Some("0123456789abcdef".into());
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
        plain.run.shard = None;
        assert!(matches!(
            establish(&mut plain, SeedOrigin::Given),
            Err(IdentityError::HoldsShards { .. })
        ));
        let other = tempfile::tempdir().unwrap();
        plain.run.out = other.path().to_path_buf();
        establish(&mut plain, SeedOrigin::Given).unwrap();
        assert_eq!(plain.run.run_id.as_ref().map(String::len), Some(16));
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
        legacy.run.seed = 5;
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
        assert_eq!(joining.run.seed, 5);
        let identity = RunIdentity::read(&run).unwrap().unwrap();
        assert_eq!(identity.settings["seed"], 5);
        // The old shard resumes into the identity it now has.
        establish(&mut legacy, SeedOrigin::Given).unwrap();
        assert_eq!(legacy.run.run_id, Some(identity.run_id.clone()));
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
        let id = shard.run.run_id.clone().unwrap();
        std::fs::remove_file(run.identity_json()).unwrap();
        // The other shard starts, then the first resumes: one run, the old id.
        let mut other = shard_config(dir.path(), "1/2");
        establish(&mut other, SeedOrigin::Drawn).unwrap();
        assert_eq!(other.run.run_id.as_ref(), Some(&id));
        establish(&mut shard, SeedOrigin::Given).unwrap();
        assert_eq!(RunIdentity::read(&run).unwrap().unwrap().run_id, id);
    }
}
