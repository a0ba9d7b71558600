//! The build cache of engines built from source: one build per (commit, build command),
//! shared by every run, shard and `bt-arena bench` that names it.
//!
//! Layout of the cache directory (`--build-cache DIR`, else [`CACHE_ENV`], else
//! `$XDG_CACHE_HOME/bt-arena/builds`, else `~/.cache/bt-arena/builds`):
//!
//! ```text
//! DIR/<commit>-<build id>/             one entry per key (build id: see BuildCache::key)
//!     claim                            while a build runs: who builds (host, pid, token)
//!     checkout-<token>/                the checkout the build ran in, never moved
//!     build-<token>.log                its build log (stdout and stderr)
//!     build.json                       the finished build: which checkout, how long it took
//! ```
//!
//! An entry is finished once `build.json` exists; it is written whole and only if no file has
//! that name (a temporary file linked to it, as `sprt.json` is), so readers never see a part
//! and two builders never both finish one entry. Builders take turns through `claim`, created
//! exclusively (`O_CREAT|O_EXCL`, which NFS honours where `flock` is unreliable): the first
//! builds, the others wait for `build.json` and use it. The builder touches the claim every
//! [`HEARTBEAT`]; a claim left by a dead process (same host, no such pid) or untouched for
//! [`STALE_CLAIM`] (or the age [`STALE_CLAIM_ENV`] sets) is removed and the entry built
//! again. Each builder works in a checkout of its own, at its final path (builds may record
//! absolute paths), so even two builders racing after a stale claim cannot mix their files:
//! the first to finish wins, the other removes its checkout.
//!
//! A finished entry that does not read (a `build.json` empty or not a build record, a checkout
//! deleted) is damaged: it is reported as such ([`BuildError::Damaged`]), never built over
//! silently. `--rebuild` ([`BuildCache::rebuilding`]) builds entries again even when they are
//! finished (once per process and entry), replacing a damaged one.
//!
//! A build runs `sh -c CMD` in a fresh checkout of the commit (`git clone --no-checkout`, then
//! `git checkout --detach COMMIT`, submodules included), with `BT_ARENA_COMMIT` set, in a process
//! group of its own with the parent-death signal (as engines are). A failed build is not cached:
//! its log is kept as `failed-<token>.log` and the next run tries again. A build stopped by a
//! signal to bt-arena ([`BuildCache::build_until`]) leaves nothing: its group is killed, its
//! checkout and log removed, its claim released.

mod checkout;
mod error;

pub use checkout::log_tail;
pub use error::BuildError;

use super::source::EngineSource;
use crate::lease::{Heartbeat, Holder, Lease, LeaseWatch, touch};
use checkout::{blob_id, checkout_and_build};
use error::cache_error;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Environment variable naming the build cache directory (`--build-cache` wins over it).
pub const CACHE_ENV: &str = "BT_ARENA_BUILD_CACHE";
/// How often a builder touches its claim.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// A claim untouched this long (by the waiter's clock: no clock skew between hosts matters)
/// is taken as left by a builder that died, unless [`STALE_CLAIM_ENV`] says otherwise.
pub const STALE_CLAIM: Duration = Duration::from_secs(60);
/// Environment variable setting the stale age of a claim in seconds (default
/// [`STALE_CLAIM`]); a builder then touches its claim 12 times as often as that age, as it
/// does every [`HEARTBEAT`] by default. Every process sharing the cache must see the same
/// value. For tests, and for file systems whose modification times lag.
pub const STALE_CLAIM_ENV: &str = "BT_ARENA_STALE_CLAIM";

/// The stale age of a claim: [`STALE_CLAIM_ENV`] when it holds a positive number of seconds,
/// else [`STALE_CLAIM`].
fn stale_claim() -> Duration {
    std::env::var(STALE_CLAIM_ENV)
        .ok()
        .and_then(|seconds| seconds.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
        .map_or(STALE_CLAIM, Duration::from_secs_f64)
}

/// How often a builder touches its claim: [`HEARTBEAT`], or a twelfth of the stale age set by
/// [`STALE_CLAIM_ENV`] (60 s and 5 s by default).
fn heartbeat_interval() -> Duration {
    (stale_claim() / 12).min(HEARTBEAT)
}
/// How often a waiting builder looks at the entry.
const POLL: Duration = Duration::from_millis(100);
/// Lines of a failed build's log shown in its error.
pub const LOG_TAIL_LINES: usize = 20;
/// How long a stopped build has between SIGTERM to its process group and SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(1);
/// The file that marks a finished entry.
pub const BUILD_JSON: &str = "build.json";
/// The claim file of an entry.
const CLAIM: &str = "claim";

/// A finished build, as `build.json` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildRecord {
    /// The repository it was cloned from.
    pub repo: String,
    /// The commit.
    pub commit: String,
    /// The build command (`None`: none was run).
    pub build: Option<String>,
    /// The checkout's directory name inside the entry.
    pub checkout: String,
    /// How long the checkout and the build took, in seconds.
    pub seconds: f64,
    /// When it finished, RFC 3339 UTC.
    pub finished_at: String,
}

/// A build ready to use.
#[derive(Clone, Debug, PartialEq)]
pub struct Build {
    /// The checkout the build ran in: `bin=` paths are relative to it.
    pub checkout: PathBuf,
    /// The build's log.
    pub log: PathBuf,
    /// What `build.json` says.
    pub record: BuildRecord,
    /// Whether it was found in the cache (built earlier, or by another process meanwhile)
    /// rather than built by this call.
    pub cached: bool,
}

/// The build cache directory.
#[derive(Clone, Debug)]
pub struct BuildCache {
    root: PathBuf,
    /// With `--rebuild`: the keys this process has built again so far (each is rebuilt once,
    /// however many engines share it). `None`: finished entries are used.
    rebuilt: Option<Arc<Mutex<HashSet<String>>>>,
}

impl BuildCache {
    /// The cache in `root` (created when first used).
    pub fn new(root: impl Into<PathBuf>) -> BuildCache {
        BuildCache {
            root: root.into(),
            rebuilt: None,
        }
    }

    /// This cache, building every entry again even when it is finished (`--rebuild`): once
    /// per entry for the life of this value and its clones, replacing the entry's earlier
    /// build (and a damaged entry).
    pub fn rebuilding(self, rebuild: bool) -> BuildCache {
        BuildCache {
            rebuilt: rebuild.then(Arc::default),
            ..self
        }
    }

    /// Whether `key` is to be built again now: `--rebuild` was asked and this process has
    /// not rebuilt it yet.
    fn rebuild_wanted(&self, key: &str) -> bool {
        self.rebuilt
            .as_ref()
            .is_some_and(|keys| !keys.lock().unwrap_or_else(|e| e.into_inner()).contains(key))
    }

    /// The cache `--build-cache` names (`given`), else [`CACHE_ENV`]'s, else the user's cache
    /// directory's `bt-arena/builds` (`$XDG_CACHE_HOME`, else `$HOME/.cache`).
    ///
    /// # Errors
    /// [`BuildError::NoCacheDir`] when none of them is set.
    pub fn locate(given: Option<&Path>) -> Result<BuildCache, BuildError> {
        let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        let root = given
            .map(Path::to_path_buf)
            .or_else(|| var(CACHE_ENV).map(PathBuf::from))
            .or_else(|| var("XDG_CACHE_HOME").map(|dir| PathBuf::from(dir).join("bt-arena/builds")))
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".cache/bt-arena/builds")))
            .ok_or(BuildError::NoCacheDir)?;
        let root = std::path::absolute(&root).map_err(|source| BuildError::Cache {
            path: root.clone(),
            source,
        })?;
        Ok(BuildCache::new(root))
    }

    /// The cache directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The key of a build: the commit, `-`, and the first 12 digits of the id git gives the
    /// build command as a blob (`git hash-object --stdin`: a SHA-1 fixed by git's format, the
    /// same on every machine), or `none` without a build command.
    ///
    /// # Errors
    /// [`BuildError::Source`] when git cannot be run.
    pub fn key(commit: &str, build: Option<&str>) -> Result<String, BuildError> {
        let id = match build {
            None => "none".to_string(),
            Some(command) => blob_id(command)?[..12].to_string(),
        };
        Ok(format!("{commit}-{id}"))
    }

    /// The entry directory of `key`.
    pub fn entry(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    /// The finished build of `key`, if the cache holds one (`None`: no `build.json` yet).
    ///
    /// # Errors
    /// [`BuildError::Damaged`] for an entry whose `build.json` is empty or not a build record,
    /// or whose checkout is gone; [`BuildError::Cache`] when `build.json` cannot be read.
    pub fn finished(&self, key: &str) -> Result<Option<Build>, BuildError> {
        let entry = self.entry(key);
        let path = entry.join(BUILD_JSON);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(cache_error(&path, e)),
        };
        let damaged = |what: String| BuildError::Damaged {
            entry: entry.clone(),
            what,
        };
        if text.trim().is_empty() {
            return Err(damaged(format!("{BUILD_JSON} is empty")));
        }
        let record: BuildRecord = serde_json::from_str(&text).map_err(|e| {
            damaged(match e.classify() {
                serde_json::error::Category::Data => {
                    format!("{BUILD_JSON} is not a build record: {e}")
                }
                _ => format!("{BUILD_JSON} is not JSON"),
            })
        })?;
        // A checkout is a directory of the entry, never a path elsewhere.
        if !record.checkout.starts_with("checkout-") || record.checkout.contains('/') {
            return Err(damaged(format!(
                "{BUILD_JSON} names '{}', not a checkout of the entry",
                record.checkout
            )));
        }
        let checkout = entry.join(&record.checkout);
        if !checkout.is_dir() {
            return Err(damaged(format!(
                "its checkout {} is missing",
                record.checkout
            )));
        }
        let log = entry.join(format!(
            "build-{}.log",
            record.checkout.trim_start_matches("checkout-")
        ));
        Ok(Some(Build {
            checkout,
            log,
            record,
            cached: true,
        }))
    }

    /// Removes the finished build of `key` (its `build.json`, the checkout and log it names,
    /// when it names them), for `--rebuild`: called with the entry's claim held.
    fn forget(&self, key: &str) -> Result<(), BuildError> {
        let entry = self.entry(key);
        let path = entry.join(BUILD_JSON);
        let record = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<BuildRecord>(&text).ok())
            .filter(|r| r.checkout.starts_with("checkout-") && !r.checkout.contains('/'));
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(cache_error(&path, e)),
        }
        if let Some(record) = record {
            let token = record.checkout.trim_start_matches("checkout-");
            let _ = std::fs::remove_dir_all(entry.join(&record.checkout));
            let _ = std::fs::remove_file(entry.join(format!("build-{token}.log")));
        }
        Ok(())
    }

    /// The build of `source`'s commit with its build command: from the cache, else built now
    /// (waiting for another process building the same key, see the module documentation).
    /// `waiting` is called once, with the claim's text, when another process holds the claim.
    ///
    /// With [`rebuilding`](BuildCache::rebuilding), a finished entry is built again (once).
    ///
    /// # Errors
    /// [`BuildError::Unresolved`] for a source without a commit; [`BuildError::Cache`] when
    /// the cache cannot be written; [`BuildError::Damaged`] for a damaged entry (without
    /// `--rebuild`); [`BuildError::Checkout`] when the commit cannot be checked out;
    /// [`BuildError::Failed`] when the build command fails.
    pub fn build(
        &self,
        source: &EngineSource,
        waiting: impl FnMut(&str),
    ) -> Result<Build, BuildError> {
        self.build_until(source, waiting, &AtomicBool::new(false))
    }

    /// [`build`](BuildCache::build), stopped when `stop` is set (bt-arena received SIGINT,
    /// SIGTERM or SIGHUP): the build command's process group gets SIGTERM, then SIGKILL
    /// [`STOP_GRACE`] later; its checkout and log are removed and its claim released, so the
    /// cache holds nothing of it and the next run builds it afresh. A wait for another
    /// process's build is given up at once.
    ///
    /// # Errors
    /// Those of [`build`](BuildCache::build), and [`BuildError::Interrupted`] once `stop` is
    /// set.
    pub fn build_until(
        &self,
        source: &EngineSource,
        mut waiting: impl FnMut(&str),
        stop: &AtomicBool,
    ) -> Result<Build, BuildError> {
        let commit = source
            .commit
            .as_deref()
            .ok_or_else(|| BuildError::Unresolved(source.to_string()))?;
        let key = Self::key(commit, source.build.as_deref())?;
        let entry = self.entry(&key);
        std::fs::create_dir_all(&entry).map_err(|e| cache_error(&entry, e))?;
        let claim_path = entry.join(CLAIM);
        let mut watch = LeaseWatch::new(stale_claim());
        let mut told = false;
        loop {
            if !self.rebuild_wanted(&key)
                && let Some(build) = self.finished(&key)?
            {
                return Ok(build);
            }
            match Lease::try_create(&claim_path, &[]) {
                Ok(Some(claim)) => {
                    let built =
                        self.build_claimed(&key, source, commit, claim.token(), claim.file(), stop);
                    let _ = std::fs::remove_file(&claim_path);
                    return built;
                }
                Err(_) if stop.load(Ordering::SeqCst) => {
                    return Err(BuildError::Interrupted {
                        commit: commit.to_string(),
                    });
                }
                Ok(None) => {
                    let text = std::fs::read_to_string(&claim_path).unwrap_or_default();
                    // A claim is created, then written: its holder is told once known.
                    if !told && !text.trim().is_empty() {
                        told = true;
                        waiting(text.trim());
                    }
                    if watch.is_stale(&claim_path, Holder::parse(&text).as_ref()) {
                        let _ = std::fs::remove_file(&claim_path);
                        watch = LeaseWatch::new(stale_claim());
                        continue;
                    }
                    std::thread::sleep(POLL);
                }
                Err(e) => return Err(cache_error(&claim_path, e)),
            }
        }
    }

    /// Checks out and builds `key` in a checkout of this builder's own (`token`), touching
    /// `claim` meanwhile; on success publishes `build.json` unless another builder did first.
    fn build_claimed(
        &self,
        key: &str,
        source: &EngineSource,
        commit: &str,
        token: &str,
        claim: &File,
        stop: &AtomicBool,
    ) -> Result<Build, BuildError> {
        if self.rebuild_wanted(key) {
            self.forget(key)?;
        } else if let Some(build) = self.finished(key)? {
            // Another builder finished between our look and our claim.
            return Ok(build);
        }
        let entry = self.entry(key);
        let checkout = entry.join(format!("checkout-{token}"));
        let log = entry.join(format!("build-{token}.log"));
        let started = Instant::now();
        let done = AtomicBool::new(false);
        let outcome = std::thread::scope(|scope| {
            scope.spawn(|| Heartbeat::run(heartbeat_interval(), &done, || touch(claim)));
            let outcome = checkout_and_build(source, commit, &checkout, &log, stop);
            done.store(true, Ordering::SeqCst);
            outcome
        });
        // Whatever failed once the run is stopping was stopped, not failed.
        let outcome = match outcome {
            Err(_) if stop.load(Ordering::SeqCst) => Err(BuildError::Interrupted {
                commit: commit.to_string(),
            }),
            outcome => outcome,
        };
        if let Err(interrupted @ BuildError::Interrupted { .. }) = outcome {
            // Nothing of it is kept: the next run builds it afresh.
            let _ = std::fs::remove_dir_all(&checkout);
            let _ = std::fs::remove_file(&log);
            return Err(interrupted);
        }
        if let Err(err) = outcome {
            let _ = std::fs::remove_dir_all(&checkout);
            let kept = entry.join(format!("failed-{token}.log"));
            let log = match std::fs::rename(&log, &kept) {
                Ok(()) => kept,
                Err(_) => log,
            };
            return Err(match err {
                BuildError::Failed {
                    command,
                    commit,
                    status,
                    tail,
                    ..
                } => BuildError::Failed {
                    command,
                    commit,
                    status,
                    log,
                    tail,
                },
                other => other,
            });
        }
        let record = BuildRecord {
            repo: source.repo.clone(),
            commit: commit.to_string(),
            build: source.build.clone(),
            checkout: format!("checkout-{token}"),
            seconds: started.elapsed().as_secs_f64(),
            finished_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        };
        if let Some(keys) = &self.rebuilt {
            keys.lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key.to_string());
        }
        if publish(&entry.join(BUILD_JSON), &record)? {
            return Ok(Build {
                checkout,
                log,
                record,
                cached: false,
            });
        }
        // Another builder finished first (after a claim taken for stale): use its build.
        let _ = std::fs::remove_dir_all(&checkout);
        let _ = std::fs::remove_file(&log);
        self.finished(key)?
            .ok_or_else(|| cache_error(&entry.join(BUILD_JSON), io::ErrorKind::NotFound.into()))
    }
}

/// Writes `record` to `path` whole, only if no file has that name: a temporary file in the
/// same directory linked to it. Returns whether this call wrote it.
fn publish(path: &Path, record: &BuildRecord) -> Result<bool, BuildError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| cache_error(dir, e))?;
    serde_json::to_writer_pretty(&mut file, record)
        .map_err(io::Error::from)
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| cache_error(path, e))?;
    match file.persist_noclobber(path) {
        Ok(_) => Ok(true),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(cache_error(path, e.error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::source::tests::{repo_with_commits, run_git};
    use std::process::Command;

    /// A repository whose commit holds `build.sh` (which counts its runs in `counter`, a file
    /// outside the repository, after `sleep_s` seconds) and the source it was resolved to.
    fn counted_source(dir: &Path, counter: &Path, sleep_s: &str) -> EngineSource {
        let script = format!(
            "sleep {sleep_s}\necho built >> '{}'\necho 'compiling engine'\nprintf '#!/bin/sh\\necho hi\\n' > engine\nchmod +x engine\n",
            counter.display()
        );
        let commits = repo_with_commits(dir, "build.sh", &[&script]);
        EngineSource {
            repo: dir.display().to_string(),
            rev: "main".into(),
            commit: Some(commits[0].clone()),
            build: Some("sh build.sh".into()),
        }
    }

    fn runs(counter: &Path) -> usize {
        std::fs::read_to_string(counter).map_or(0, |text| text.lines().count())
    }

    #[test]
    fn a_build_is_made_once_and_then_found_in_the_cache() {
        let (repo, cache_dir, other) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let counter = other.path().join("counter");
        let source = counted_source(repo.path(), &counter, "0");
        let cache = BuildCache::new(cache_dir.path());
        let first = cache
            .build(&source, |_| panic!("nobody else builds"))
            .unwrap();
        assert!(!first.cached);
        assert!(first.checkout.join("engine").is_file());
        assert_eq!(first.record.commit, source.commit.clone().unwrap());
        let log = std::fs::read_to_string(&first.log).unwrap();
        assert!(
            log.contains("$ sh build.sh") && log.contains("compiling engine"),
            "{log}"
        );
        let second = cache
            .build(&source, |_| panic!("nobody else builds"))
            .unwrap();
        assert!(second.cached);
        assert_eq!(second.checkout, first.checkout);
        assert_eq!(runs(&counter), 1);
        // Another build command is another key.
        let key = BuildCache::key("c0ffee", Some("sh build.sh")).unwrap();
        assert_eq!(
            key,
            "c0ffee-".to_string() + &blob_id("sh build.sh").unwrap()[..12]
        );
        assert_ne!(key, BuildCache::key("c0ffee", Some("make")).unwrap());
        assert_eq!(BuildCache::key("c0ffee", None).unwrap(), "c0ffee-none");
    }

    /// Two builders of one key at once: the second waits for the first and builds nothing.
    #[test]
    fn concurrent_builders_of_one_key_build_once() {
        let (repo, cache_dir, other) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let counter = other.path().join("counter");
        let source = counted_source(repo.path(), &counter, "1");
        let cache = BuildCache::new(cache_dir.path());
        let waited = AtomicBool::new(false);
        let builds: Vec<Build> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..3)
                .map(|_| {
                    scope.spawn(|| {
                        cache
                            .build(&source, |holder| {
                                assert!(!holder.is_empty());
                                waited.store(true, Ordering::SeqCst);
                            })
                            .unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(runs(&counter), 1);
        assert!(waited.load(Ordering::SeqCst));
        assert_eq!(builds.iter().filter(|b| !b.cached).count(), 1);
        assert!(builds.iter().all(|b| b.checkout == builds[0].checkout));
        let key =
            BuildCache::key(source.commit.as_deref().unwrap(), source.build.as_deref()).unwrap();
        assert!(!cache.entry(&key).join(CLAIM).exists());
    }

    /// A claim is created before its holder is written into it: a waiter that reads it in
    /// between tells who builds once it is known, never an empty holder.
    #[test]
    fn a_waiter_tells_the_holder_once_the_claim_names_it() {
        let (repo, cache_dir, other) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let counter = other.path().join("counter");
        let source = counted_source(repo.path(), &counter, "0");
        let cache = BuildCache::new(cache_dir.path());
        let key =
            BuildCache::key(source.commit.as_deref().unwrap(), source.build.as_deref()).unwrap();
        std::fs::create_dir_all(cache.entry(&key)).unwrap();
        let claim = cache.entry(&key).join(CLAIM);
        std::fs::write(&claim, "").unwrap();
        let told = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(300));
                std::fs::write(&claim, "1 elsewhere-1-0000\n").unwrap();
                std::thread::sleep(Duration::from_millis(300));
                std::fs::remove_file(&claim).unwrap();
            });
            let mut told = Vec::new();
            cache
                .build(&source, |holder| told.push(holder.to_string()))
                .unwrap();
            told
        });
        assert_eq!(told, ["1 elsewhere-1-0000"]);
    }

    #[test]
    fn a_claim_left_by_a_dead_process_is_taken_over() {
        let (repo, cache_dir, other) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let counter = other.path().join("counter");
        let source = counted_source(repo.path(), &counter, "0");
        let cache = BuildCache::new(cache_dir.path());
        let key =
            BuildCache::key(source.commit.as_deref().unwrap(), source.build.as_deref()).unwrap();
        let mut child = Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        std::fs::create_dir_all(cache.entry(&key)).unwrap();
        std::fs::write(
            cache.entry(&key).join(CLAIM),
            format!("{dead} {}-{dead}-0000\n", crate::lease::host_name()),
        )
        .unwrap();
        let mut told = String::new();
        let build = cache
            .build(&source, |holder| told = holder.to_string())
            .unwrap();
        assert!(!build.cached);
        assert!(told.starts_with(&dead.to_string()), "{told}");
        assert_eq!(runs(&counter), 1);
    }

    /// A finished entry that does not read names the entry, what is wrong and both remedies;
    /// it is never built over silently, and `--rebuild` replaces it.
    #[test]
    fn a_damaged_entry_is_named_and_rebuild_replaces_it() {
        let (repo, cache_dir, other) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let counter = other.path().join("counter");
        let source = counted_source(repo.path(), &counter, "0");
        let cache = BuildCache::new(cache_dir.path());
        let first = cache.build(&source, |_| {}).unwrap();
        let key =
            BuildCache::key(source.commit.as_deref().unwrap(), source.build.as_deref()).unwrap();
        let entry = cache.entry(&key);
        let json = entry.join(BUILD_JSON);
        let good = std::fs::read_to_string(&json).unwrap();
        let missing = format!("its checkout {} is missing", first.record.checkout);
        type Damage<'a> = (&'a str, Box<dyn Fn() + 'a>);
        let damages: Vec<Damage<'_>> = vec![
            (
                "build.json is empty",
                Box::new(|| std::fs::write(&json, "").unwrap()),
            ),
            (
                "build.json is not JSON",
                Box::new(|| std::fs::write(&json, "garbage{").unwrap()),
            ),
            (
                "build.json is not a build record: missing field `commit`",
                Box::new(|| std::fs::write(&json, r#"{"repo": "x"}"#).unwrap()),
            ),
            (
                &missing,
                Box::new(|| {
                    std::fs::write(&json, &good).unwrap();
                    std::fs::remove_dir_all(&first.checkout).unwrap();
                }),
            ),
        ];
        for (what, damage) in &damages {
            damage();
            let err = cache.build(&source, |_| {}).unwrap_err();
            assert!(matches!(err, BuildError::Damaged { .. }), "{err:?}");
            let text = err.to_string();
            let expected = format!("the cache entry {} is damaged ({what}", entry.display());
            assert!(text.starts_with(&expected), "{text}");
            assert!(
                text.ends_with(&format!(
                    "; remove {} or run with --rebuild",
                    entry.display()
                )),
                "{text}"
            );
        }
        assert_eq!(runs(&counter), 1, "a damaged entry is not built over");
        // --rebuild: built again once, then found, whatever the entry held.
        let rebuilding = cache.clone().rebuilding(true);
        let rebuilt = rebuilding.build(&source, |_| {}).unwrap();
        assert!(!rebuilt.cached);
        assert!(rebuilt.checkout.join("engine").is_file());
        assert_eq!(runs(&counter), 2);
        assert!(rebuilding.build(&source, |_| {}).unwrap().cached);
        assert_eq!(runs(&counter), 2, "rebuilt once per process");
        assert_eq!(
            cache.build(&source, |_| {}).unwrap(),
            Build {
                cached: true,
                ..rebuilt.clone()
            }
        );
        // A sound entry is rebuilt too, and its earlier checkout removed.
        let again = cache
            .clone()
            .rebuilding(true)
            .build(&source, |_| {})
            .unwrap();
        assert_eq!(runs(&counter), 3);
        assert_ne!(again.checkout, rebuilt.checkout);
        assert!(!rebuilt.checkout.exists());
    }

    #[test]
    fn a_failed_build_is_not_cached_and_names_its_log() {
        let (repo, cache_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let commits = repo_with_commits(
            repo.path(),
            "build.sh",
            &["echo step 1\necho 'error: no engine' >&2\nexit 3\n"],
        );
        let source = EngineSource {
            repo: repo.path().display().to_string(),
            rev: "main".into(),
            commit: Some(commits[0].clone()),
            build: Some("sh build.sh".into()),
        };
        let cache = BuildCache::new(cache_dir.path());
        let err = cache.build(&source, |_| {}).unwrap_err();
        let BuildError::Failed {
            command,
            commit,
            status,
            log,
            tail,
        } = &err
        else {
            panic!("{err:?}");
        };
        assert_eq!(command, "sh build.sh");
        assert_eq!(commit, &commits[0]);
        assert_eq!(status, "exit status: 3");
        assert_eq!(tail.last().map(String::as_str), Some("error: no engine"));
        assert!(std::fs::read_to_string(log).unwrap().contains("step 1"));
        assert!(
            log.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("failed-")
        );
        let text = err.to_string();
        assert!(
            text.starts_with("the build failed (exit status: 3): `sh build.sh` at commit "),
            "{text}"
        );
        assert!(
            text.ends_with("\n  | step 1\n  | error: no engine"),
            "{text}"
        );
        let key = BuildCache::key(&commits[0], source.build.as_deref()).unwrap();
        assert!(matches!(cache.finished(&key), Ok(None)));
        // No checkout is left behind; the next try builds again (and fails again).
        let leftovers: Vec<_> = std::fs::read_dir(cache.entry(&key))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        assert!(matches!(
            cache.build(&source, |_| {}),
            Err(BuildError::Failed { .. })
        ));
    }

    #[test]
    fn a_commit_missing_from_the_repository_cannot_be_checked_out() {
        let (repo, cache_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        repo_with_commits(repo.path(), "a", &["x"]);
        run_git(repo.path(), &["status"]);
        let source = EngineSource {
            repo: repo.path().display().to_string(),
            rev: "main".into(),
            commit: Some("0".repeat(40)),
            build: None,
        };
        let err = BuildCache::new(cache_dir.path())
            .build(&source, |_| {})
            .unwrap_err();
        assert!(matches!(err, BuildError::Checkout { .. }), "{err:?}");
        assert!(
            err.to_string().starts_with("cannot check out commit 0000"),
            "{err}"
        );
    }
}
