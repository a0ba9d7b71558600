//! What `tune --resume DIR` continues: the tune's saved tune.json (of one shard, with
//! `--shard`, or the shard's own directory), writing where the tune was first started, and
//! the only settings a resumed session may change. The command line refuses any other flag;
//! this module decides the rest, so the policy is tested here and not in the command line.

use super::config::{TUNE_JSON, TuneConfig};
use crate::run::resume;
pub use crate::run::resume::ResumeError;
use crate::run_dir::Shard;
use std::path::Path;

/// The long flags `tune --resume` takes: none changes the games, the draws or θ (`--shard`
/// says which shard of the tune to continue; the lag is the tune's, kept from tune.json).
/// `--check-claims` and `--strict` are settings of a session, as a tournament's: not saved
/// in tune.json, given again to each session that should check (what was found is in
/// games.csv either way).
pub const RESUME_FLAGS: [&str; 9] = [
    "resume",
    "concurrency",
    "log",
    "shard",
    "max-time",
    "build-cache",
    "rebuild",
    "check-claims",
    "strict",
];

/// The saved tune in `dir` (absolute), of its shard `shard` (in `dir/shard-K`), or of the
/// shard whose own directory `dir` is; `out` is set to the tune's directory wherever it was
/// first started ([`crate::run::resume::saved`]).
///
/// # Errors
/// [`ResumeError`]: a shard that never started, a `--shard` that is not the saved one, a
/// tune.json that cannot be read.
pub fn saved_tune(dir: &Path, shard: Option<Shard>) -> Result<TuneConfig, ResumeError> {
    let (mut config, out) = resume::saved(dir, shard, TUNE_JSON, TuneConfig::read, |config| {
        config.shard
    })?;
    config.out = out;
    Ok(config)
}

pub use crate::run::resume::with_session_settings;

impl crate::run::resume::SessionSettings for TuneConfig {
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

    fn tune(out: &Path, shard: Option<Shard>) -> TuneConfig {
        let mut config = crate::tune::config::tests::config(out);
        config.seed = 7;
        config.lag = 3;
        config.shard = shard;
        config
    }

    fn save(config: &TuneConfig) {
        std::fs::create_dir_all(config.dir()).unwrap();
        config.save(&config.dir()).unwrap();
    }

    #[test]
    fn a_tune_resumes_from_its_tune_json_writing_where_it_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let moved = dir.path().join("moved");
        save(&tune(&moved, None));
        let resumed = saved_tune(&moved, None).unwrap();
        assert_eq!((resumed.out.as_path(), resumed.seed), (moved.as_path(), 7));
        let resumed = with_session_settings(resumed, Some(4), true);
        assert_eq!(
            (resumed.concurrency, resumed.log, resumed.lag),
            (4, true, 3)
        );
        assert!(with_session_settings(resumed, None, false).log);
    }

    #[test]
    fn a_shard_resumes_as_saved_and_refuses_another() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let first: Shard = "0/2".parse().unwrap();
        save(&tune(&run, Some(first)));
        // By the tune and --shard, or by the shard's own directory, with or without it.
        for (given, shard) in [
            (run.clone(), Some(first)),
            (run.join("shard-0"), None),
            (run.join("shard-0"), Some(first)),
        ] {
            let resumed = saved_tune(&given, shard).unwrap();
            assert_eq!(
                (resumed.out.as_path(), resumed.shard),
                (run.as_path(), Some(first))
            );
        }
        let second: Shard = "1/2".parse().unwrap();
        let err = saved_tune(&run, Some(second)).unwrap_err();
        assert!(matches!(err, ResumeError::ShardNotStarted { .. }), "{err}");
        let other: Shard = "0/3".parse().unwrap();
        let err = saved_tune(&run.join("shard-0"), Some(other)).unwrap_err();
        assert!(err.is_usage(), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "--shard 0/3: {} was saved as shard 0/2",
                RunDir::new(run.join("shard-0")).tune_json().display()
            )
        );
    }

    #[test]
    fn a_directory_without_a_tune_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let err = saved_tune(dir.path(), None).unwrap_err();
        assert!(matches!(err, ResumeError::Unreadable(_)) && !err.is_usage());
        assert!(err.to_string().contains("tune.json"), "{err}");
    }
}
