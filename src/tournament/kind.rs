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
use crate::run::identity::{Identified, IdentityError, RunType};
use crate::run::header::RunHeader;
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
        let mut theirs = TournamentConfig::read(&path)
            .map_err(|e| IdentityError::ShardConfig(e.to_string()))?;
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
