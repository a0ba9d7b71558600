//! One build in one checkout: the build command's blob id (part of the cache key), the clone
//! and checkout of the commit with its submodules, the build command run in a process group of
//! its own with its output in the log, and the last lines of that log for the error.

use super::{BuildError, LOG_TAIL_LINES, STOP_GRACE, cache_error};
use crate::engine::process::{GroupChild, GroupEnd};
use crate::engine::source::{EngineSource, SourceError, git};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// The id git gives `text` as a blob (`git hash-object --stdin`), 40 hexadecimal digits.
pub(super) fn blob_id(text: &str) -> Result<String, BuildError> {
    let mut child = Command::new("git")
        .args(["hash-object", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SourceError::NoGit(e.to_string()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| SourceError::NoGit(e.to_string()))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| SourceError::NoGit(e.to_string()))?;
    let id = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !output.status.success() || id.len() < 12 {
        return Err(SourceError::NoGit(format!(
            "git hash-object failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
        .into());
    }
    Ok(id)
}

/// Clones `source.repo` into `checkout`, checks `commit` out (with its submodules) and runs
/// the build command there, its output into `log`.
pub(super) fn checkout_and_build(
    source: &EngineSource,
    commit: &str,
    checkout: &Path,
    log: &Path,
    stop: &AtomicBool,
) -> Result<(), BuildError> {
    let interrupted = || BuildError::Interrupted {
        commit: commit.to_string(),
    };
    // Git runs in bt-arena's process group: a terminal's Ctrl-C or a job's SIGTERM ends it
    // too, and its failure is then the stop's (bt-arena's handler may run a little later).
    let checkout_error = |git: String| match crate::engine::stop::stopping(stop, true) {
        true => interrupted(),
        false => BuildError::Checkout {
            repo: source.repo.clone(),
            commit: commit.to_string(),
            git,
        },
    };
    let target = checkout.display().to_string();
    git(
        None,
        &[
            "clone",
            "--quiet",
            "--no-checkout",
            "--",
            &source.repo,
            &target,
        ],
    )?
    .map_err(checkout_error)?;
    git(
        Some(checkout),
        &[
            "-c",
            "advice.detachedHead=false",
            "checkout",
            "--quiet",
            "--detach",
            commit,
        ],
    )?
    .map_err(checkout_error)?;
    if stop.load(Ordering::SeqCst) {
        return Err(interrupted());
    }
    if checkout.join(".gitmodules").exists() {
        git(
            Some(checkout),
            &["submodule", "update", "--quiet", "--init", "--recursive"],
        )?
        .map_err(checkout_error)?;
    }
    let mut log_file = File::create(log).map_err(|e| cache_error(log, e))?;
    let Some(command) = &source.build else {
        let _ = writeln!(
            log_file,
            "(no build command: the checkout is used as it is)"
        );
        return Ok(());
    };
    if stop.load(Ordering::SeqCst) {
        return Err(interrupted());
    }
    let _ = writeln!(log_file, "$ {command}    # in {}", checkout.display());
    let stderr = log_file.try_clone().map_err(|e| cache_error(log, e))?;
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(command)
        .current_dir(checkout)
        .env("BT_ARENA_COMMIT", commit)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(stderr);
    let mut build = GroupChild::spawn(sh).map_err(|e| cache_error(checkout, e))?;
    let status = match build.wait_or_stop(stop, STOP_GRACE) {
        Ok(GroupEnd::Exited(status)) => status,
        Ok(GroupEnd::Stopped) => return Err(interrupted()),
        Err(e) => return Err(cache_error(checkout, e)),
    };
    if status.success() {
        return Ok(());
    }
    // Killed by the job's signal (scancel signals every process): stopped, not failed.
    if crate::engine::stop::stopping(stop, crate::engine::stop::died_of_signal(&status)) {
        return Err(interrupted());
    }
    Err(BuildError::Failed {
        command: command.clone(),
        commit: commit.to_string(),
        status: status.to_string(),
        log: log.to_path_buf(),
        tail: log_tail(log, LOG_TAIL_LINES),
    })
}

/// The last `lines` lines of the file at `path` (none when it cannot be read).
pub fn log_tail(path: &Path, lines: usize) -> Vec<String> {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|line| line.to_string())
        .collect()
}
