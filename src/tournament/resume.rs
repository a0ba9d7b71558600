//! What `--resume DIR` continues: the run's saved config (of one shard, with `--shard`),
//! writing where the run was first started, and the only settings a resumed session may
//! change. The command line refuses any other flag; this module decides the rest, so the
//! policy is tested here and not in the command line.

use super::config::TournamentConfig;
use crate::run_dir::{RunDir, Shard};
use std::fmt;
use std::path::{Path, PathBuf};

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

/// Why a run cannot be resumed as asked.
#[derive(Debug, PartialEq, Eq)]
pub enum ResumeError {
    /// A sharded run's directory given without `--shard` (a bad command line).
    NeedsShard(PathBuf),
    /// A shard of a sharded run that never started (nothing to resume).
    ShardNotStarted {
        /// The run's directory.
        run: PathBuf,
        /// The shard asked for.
        shard: Shard,
        /// Its missing config.json.
        saved: PathBuf,
    },
    /// `--shard` that is not the one saved (a bad command line).
    OtherShard {
        /// The shard given.
        given: Shard,
        /// The config.json read.
        saved: PathBuf,
        /// The shard it was saved as, if any.
        was: Option<Shard>,
    },
    /// The saved config cannot be read.
    Unreadable(String),
}

impl ResumeError {
    /// Whether the command line is at fault (exit code 3), rather than the directory.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ResumeError::NeedsShard(_) | ResumeError::OtherShard { .. }
        )
    }
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeError::NeedsShard(dir) => write!(
                f,
                "{} holds the shards of a sharded run: resume one with --resume {0} --shard K/N \
                 (or --shard auto)",
                dir.display()
            ),
            ResumeError::ShardNotStarted { run, shard, saved } => write!(
                f,
                "shard {shard} of {} has not started ({} does not exist): start it with the \
                 tournament's settings and --out {} --shard {shard}",
                run.display(),
                saved.display(),
                run.display()
            ),
            ResumeError::OtherShard { given, saved, was } => write!(
                f,
                "--shard {given}: {} was saved as {}",
                saved.display(),
                was.map_or("an unsharded run".to_string(), |s| format!("shard {s}"))
            ),
            ResumeError::Unreadable(err) => f.write_str(err),
        }
    }
}

impl std::error::Error for ResumeError {}

/// The saved config of the run in `dir` (absolute), of its shard `shard` (in `dir/shard-K`),
/// or of the shard whose own directory `dir` is; `out` is set to the run's directory wherever
/// the run was first started.
///
/// # Errors
/// [`ResumeError`]: a sharded run without `--shard`, a shard that never started, a `--shard`
/// that is not the saved one, a config that cannot be read.
pub fn saved_run(dir: &Path, shard: Option<Shard>) -> Result<TournamentConfig, ResumeError> {
    // A shard's own directory may be given with its --shard too.
    let in_shard_dir = shard.is_some() && RunDir::new(dir).config_json().exists();
    let config_dir = match in_shard_dir {
        true => dir.to_path_buf(),
        false => RunDir::process(dir, shard).root().to_path_buf(),
    };
    let saved = RunDir::new(&config_dir).config_json();
    if !saved.exists() {
        let shards = RunDir::new(dir)
            .shard_dirs()
            .map_err(|e| ResumeError::Unreadable(e.to_string()))?;
        match shard {
            None if !shards.is_empty() => return Err(ResumeError::NeedsShard(dir.to_path_buf())),
            Some(shard) if !shards.is_empty() => {
                return Err(ResumeError::ShardNotStarted {
                    run: dir.to_path_buf(),
                    shard,
                    saved,
                });
            }
            _ => {}
        }
    }
    let mut config = super::saved_config(&config_dir).map_err(ResumeError::Unreadable)?;
    config.out = match (shard, config.shard) {
        (None, None) => dir.to_path_buf(),
        (Some(given), Some(was)) if given == was && !in_shard_dir => dir.to_path_buf(),
        (Some(given), Some(was)) if given == was => {
            RunDir::new(dir).parent_run().root().to_path_buf()
        }
        (None, Some(_)) => RunDir::new(dir).parent_run().root().to_path_buf(),
        (Some(given), was) => return Err(ResumeError::OtherShard { given, saved, was }),
    };
    Ok(config)
}

/// `config` resumed with the settings a session may change: `concurrency` (when given) and
/// `log` (turned on, never off).
pub fn with_session_settings(
    mut config: TournamentConfig,
    concurrency: Option<usize>,
    log: bool,
) -> TournamentConfig {
    config.concurrency = concurrency.unwrap_or(config.concurrency);
    config.log |= log;
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(out: &Path, shard: Option<Shard>) -> TournamentConfig {
        TournamentConfig {
            seed: 7,
            shard,
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
