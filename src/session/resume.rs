//! What `--resume DIR` continues, for every kind of run: the run's saved config (of one shard
//! with `--shard`, or of the shard whose directory is given), writing where the run was first
//! started ([`crate::run::resume::saved`]). What a resumed session may change is said where
//! the command line defines each flag.

use super::RunConfig;
use crate::run::resume::{self, ResumeError};
use crate::run_dir::Shard;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a saved config cannot be read.
#[derive(Debug)]
pub enum SavedError {
    /// The file cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// It is not a config of this kind of run.
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, naming the field.
        reason: serde_json::Error,
    },
    /// Its settings are refused.
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        error: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl fmt::Display for SavedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SavedError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            SavedError::Parse { path, reason } => {
                write!(f, "bad config {}: {reason}", path.display())
            }
            SavedError::Invalid { path, error } => {
                write!(f, "bad config {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for SavedError {}

/// The config of kind `C` saved in the directory `dir` (its `C::TYPE.file`), checked.
///
/// # Errors
/// [`SavedError`] naming the file.
pub fn read_saved<C: RunConfig>(dir: &Path) -> Result<C, SavedError> {
    let path = dir.join(C::TYPE.file);
    let text = crate::textfile::read_to_string(&path).map_err(|source| SavedError::Read {
        path: path.clone(),
        source,
    })?;
    let config: C = serde_json::from_str(&text).map_err(|reason| SavedError::Parse {
        path: path.clone(),
        reason,
    })?;
    config
        .validate()
        .map_err(|error| SavedError::Invalid { path, error })?;
    Ok(config)
}

/// The saved config of kind `C` of the run in `dir` (absolute), of its shard `shard` (in
/// `dir/shard-K`), or of the shard whose own directory `dir` is; its `out` is set to the
/// run's directory wherever the run was first started.
///
/// # Errors
/// [`ResumeError`]: a sharded run without `--shard`, a shard that never started, a `--shard`
/// that is not the saved one, a config that cannot be read.
pub fn saved<C: RunConfig>(dir: &Path, shard: Option<Shard>) -> Result<C, ResumeError> {
    let (mut config, out) = resume::saved(
        dir,
        shard,
        C::TYPE.file,
        |dir| read_saved::<C>(dir).map_err(|e| Box::new(e) as resume::SavedReadError),
        |config: &C| config.header().shard,
    )?;
    config.header_mut().out = out;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::run::identity::Identified;
    use crate::run_dir::RunDir;
    use crate::tournament::TournamentConfig;
    use crate::tune::TuneConfig;

    /// A tournament of engines `a` and `b` writing to `out`, seed 7.
    fn tournament(out: &Path, shard: Option<Shard>) -> TournamentConfig {
        let engine = |name: &str| {
            EngineKeys::parse(&["cmd=unused", &format!("name={name}")])
                .and_then(|keys| keys.into_description(TimeControl::Depth(1)))
                .unwrap()
        };
        let mut config = TournamentConfig::new(vec![engine("a"), engine("b")]);
        config.run.seed = 7;
        config.run.out = out.to_path_buf();
        config.run.shard = shard;
        config
    }

    fn save<C: RunConfig>(config: &C) {
        let dir = config.header().dir();
        std::fs::create_dir_all(&dir).unwrap();
        crate::records::write_json(
            &dir.join(C::TYPE.file),
            config,
            crate::records::Existing::Replace,
        )
        .unwrap();
    }

    #[test]
    fn a_run_resumes_from_its_config_writing_where_it_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let moved = dir.path().join("moved");
        save(&tournament(&moved, None));
        let mut resumed: TournamentConfig = saved(&moved, None).unwrap();
        assert_eq!(
            (resumed.run.out.as_path(), resumed.run.seed),
            (moved.as_path(), 7)
        );
        resumed.run.resume_with(Some(4), true);
        assert_eq!((resumed.run.concurrency, resumed.run.log), (4, true));
        resumed.run.resume_with(None, false);
        assert!(resumed.run.log, "--log is turned on, never off");
    }

    #[test]
    fn shards_resume_as_saved_and_refuse_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let first: Shard = "0/2".parse().unwrap();
        save(&tournament(&run, Some(first)));
        // By the run and --shard, or by the shard's own directory, with or without it.
        for (given, shard) in [
            (run.clone(), Some(first)),
            (run.join("shard-0"), None),
            (run.join("shard-0"), Some(first)),
        ] {
            let resumed: TournamentConfig = saved(&given, shard).unwrap();
            assert_eq!(
                (resumed.run.out.as_path(), resumed.run.shard),
                (run.as_path(), Some(first))
            );
        }
        let err = saved::<TournamentConfig>(&run, None).unwrap_err();
        assert!(matches!(err, ResumeError::NeedsShard(_)) && err.is_usage());
        let second: Shard = "1/2".parse().unwrap();
        let err = saved::<TournamentConfig>(&run, Some(second)).unwrap_err();
        assert!(matches!(err, ResumeError::ShardNotStarted { .. }) && !err.is_usage());
        assert!(err.to_string().contains("--out"), "{err}");
        let other: Shard = "0/3".parse().unwrap();
        let err = saved::<TournamentConfig>(&run.join("shard-0"), Some(other)).unwrap_err();
        assert!(err.is_usage(), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "--shard 0/3: {} was saved as shard 0/2",
                RunDir::new(run.join("shard-0")).config_json().display()
            )
        );
    }

    #[test]
    fn a_directory_without_a_run_says_so_naming_the_file_of_its_kind() {
        let dir = tempfile::tempdir().unwrap();
        let err = saved::<TournamentConfig>(dir.path(), None).unwrap_err();
        assert!(matches!(err, ResumeError::Unreadable(_)) && !err.is_usage());
        assert!(err.to_string().contains("config.json"), "{err}");
        let err = saved::<TuneConfig>(dir.path(), None).unwrap_err();
        assert!(err.to_string().contains("tune.json"), "{err}");
    }

    #[test]
    fn a_tune_resumes_with_its_lag_and_the_header_it_shares() {
        let dir = tempfile::tempdir().unwrap();
        let moved = dir.path().join("moved");
        let mut tune = crate::tune::config::tests::config(&moved);
        tune.lag = 3;
        tune.run.seed = 7;
        save(&tune);
        let resumed: TuneConfig = saved(&moved, None).unwrap();
        assert_eq!(
            (resumed.run.out.as_path(), resumed.run.seed, resumed.lag),
            (moved.as_path(), 7, 3)
        );
        assert_eq!(resumed.identity(), tune.identity());
    }

    #[test]
    fn an_unknown_field_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let config = tournament(dir.path(), None);
        let mut value = serde_json::to_value(&config).unwrap();
        value["colour"] = serde_json::json!(1);
        std::fs::write(dir.path().join("config.json"), value.to_string()).unwrap();
        let err = read_saved::<TournamentConfig>(dir.path()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "bad config {}: unknown field `colour`",
                dir.path().join("config.json").display()
            )
        );
    }
}
