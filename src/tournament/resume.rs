//! What `--resume DIR` continues: the run's saved config (of one shard, with `--shard`),
//! writing where the run was first started, and the only settings a resumed session may
//! change. The command line refuses any other flag; this module decides the rest, so the
//! policy is tested here and not in the command line.

use super::config::TournamentConfig;
use crate::run::resume;
pub use crate::run::resume::ResumeError;
use crate::run_dir::Shard;
use std::path::Path;

/// The long flags `tournament --resume` takes: none changes the games or their records
/// (`--shard` says which shard of the run to continue).
pub const RESUME_FLAGS: [&str; 12] = [
    "resume",
    "concurrency",
    "log",
    "shard",
    "max-time",
    "build-cache",
    "rebuild",
    "rating-interval",
    "anchor",
    "check-claims",
    "strict",
    "affinity",
];

/// The saved config of the run in `dir` (absolute), of its shard `shard` (in `dir/shard-K`),
/// or of the shard whose own directory `dir` is; `out` is set to the run's directory wherever
/// the run was first started ([`crate::run::resume::saved`]).
///
/// # Errors
/// [`ResumeError`]: a sharded run without `--shard`, a shard that never started, a `--shard`
/// that is not the saved one, a config that cannot be read.
pub fn saved_run(dir: &Path, shard: Option<Shard>) -> Result<TournamentConfig, ResumeError> {
    let (mut config, out) = resume::saved(
        dir,
        shard,
        crate::run_dir::CONFIG_JSON,
        super::saved_config,
        |config| config.shard,
    )?;
    config.out = out;
    Ok(config)
}

pub use crate::run::resume::with_session_settings;

impl crate::run::resume::SessionSettings for TournamentConfig {
    fn concurrency_mut(&mut self) -> &mut usize {
        &mut self.concurrency
    }

    fn log_mut(&mut self) -> &mut bool {
        &mut self.log
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_dir::RunDir;

    fn config(out: &Path, shard: Option<Shard>) -> TournamentConfig {
        TournamentConfig {
            run: RunHeader {
                seed: 7,
                shard,
                ..RunHeader::default()
            },
            ..crate::tournament::runner::tests::two_engines(out)
        }
    }

    fn save(config: &TournamentConfig) {
        let dir = config.results_dir();
        std::fs::create_dir_all(&dir).unwrap();
        crate::records::write_json(
            &RunDir::new(&dir).config_json(),
            config,
            crate::records::Existing::Replace,
        )
        .unwrap();
    }

    #[test]
    fn a_run_resumes_from_its_config_writing_where_it_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let moved = dir.path().join("moved");
        save(&config(&moved, None));
        let resumed = saved_run(&moved, None).unwrap();
        assert_eq!(resumed.out, moved);
        assert_eq!(resumed.seed, 7);
        let resumed = with_session_settings(resumed, Some(4), true);
        assert_eq!((resumed.concurrency, resumed.log), (4, true));
        assert!(with_session_settings(resumed, None, false).log);
    }

    #[test]
    fn shards_resume_as_saved_and_refuse_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let first: Shard = "0/2".parse().unwrap();
        save(&config(&run, Some(first)));
        // By the run and --shard, or by the shard's own directory.
        assert_eq!(saved_run(&run, Some(first)).unwrap().out, run);
        assert_eq!(saved_run(&run.join("shard-0"), None).unwrap().out, run);
        // The shard's directory with its --shard (it looked for shard-0/shard-0).
        assert_eq!(
            saved_run(&run.join("shard-0"), Some(first)).unwrap().out,
            run
        );
        let err = saved_run(&run, None).unwrap_err();
        assert_eq!(err, ResumeError::NeedsShard(run.clone()));
        assert!(err.is_usage());
        let second: Shard = "1/2".parse().unwrap();
        let err = saved_run(&run, Some(second)).unwrap_err();
        assert!(matches!(err, ResumeError::ShardNotStarted { .. }) && !err.is_usage());
        assert!(err.to_string().contains("--out"), "{err}");
        let other: Shard = "0/3".parse().unwrap();
        let err = saved_run(&run.join("shard-0"), Some(other)).unwrap_err();
        assert!(err.is_usage(), "{err}");
    }

    #[test]
    fn a_directory_without_a_run_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let err = saved_run(dir.path(), None).unwrap_err();
        assert!(matches!(err, ResumeError::Unreadable(_)) && !err.is_usage());
        assert!(
            err.to_string().contains(&dir.path().display().to_string()),
            "{err}"
        );
    }
}
