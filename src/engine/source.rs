//! An engine built from a git revision (`--engine src=REPO rev=REF build="CMD" bin=RELPATH`):
//! the repository and revision the user named, and the commit it resolved to.
//!
//! A revision is resolved to its full commit hash **once**, when a run starts, and the hash is
//! saved in the run's config.json ([`EngineSource::commit`]): a resumed run and the later
//! shards of a sharded run take the hash from there and never resolve the revision again, so
//! `rev=main` means one commit for the whole run even after `main` moves.
//!
//! Git does the work (`git rev-parse`, `git ls-remote`, `git status`); it must be on `PATH`.
//! A work tree with uncommitted changes to tracked files is refused when the revision resolves
//! to its checked-out commit: bt-arena builds commits, never work trees, and a test of
//! `rev=HEAD` that silently left the user's edits out would answer the wrong question.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::process::Command;

/// Hexadecimal digits of a commit hash in engine names (`NAME@1a2b3c4`).
pub const SHORT_HASH_LEN: usize = 7;

/// The revision used when `rev=` is not given.
pub const DEFAULT_REV: &str = "HEAD";

/// Where an engine's source comes from, as config.json saves it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSource {
    /// The repository (`src=`): a local path (made absolute) or a URL git can clone.
    pub repo: String,
    /// The revision as the user named it (`rev=`): a branch, tag or commit; `HEAD` by default.
    #[serde(default = "default_rev")]
    pub rev: String,
    /// The full commit hash `rev` resolved to when the run started; `None` until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The build command (`build=`), run by `sh -c` in a checkout of the commit; `None`: the
    /// checkout is used as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
}

fn default_rev() -> String {
    DEFAULT_REV.to_string()
}

impl EngineSource {
    /// The first [`SHORT_HASH_LEN`] digits of the commit, once resolved.
    pub fn short_commit(&self) -> Option<&str> {
        self.commit
            .as_deref()
            .map(|commit| &commit[..commit.len().min(SHORT_HASH_LEN)])
    }

    /// `NAME@SHORTHASH`: the name of the engine `name` built from this source's commit
    /// (`name` alone while the commit is not known).
    pub fn name_at_commit(&self, name: &str) -> String {
        match self.short_commit() {
            Some(short) => format!("{name}@{short}"),
            None => name.to_string(),
        }
    }

    /// The name an engine takes when none is given: the repository's directory name without
    /// `.git` (`/home/me/my-engine` and `https://host/me/my-engine.git` give `my-engine`).
    pub fn repo_name(&self) -> String {
        let trimmed = self.repo.trim_end_matches(['/', '\\']);
        let last = trimmed
            .rsplit(['/', ':', '\\'])
            .next()
            .filter(|name| !name.is_empty())
            .unwrap_or("engine");
        let name = last.strip_suffix(".git").unwrap_or(last);
        if name.is_empty() || name == "." {
            "engine".to_string()
        } else {
            name.to_string()
        }
    }

    /// Whether `repo` is a URL (`scheme://...` or scp-like `host:path`) rather than a path.
    pub fn is_remote(&self) -> bool {
        is_url(&self.repo)
    }

    /// Resolves [`rev`](Self::rev) to its full commit hash, unless [`commit`](Self::commit)
    /// is already set (then nothing is asked of git), and returns the hash.
    ///
    /// # Errors
    /// A [`SourceError`]: git missing, not a repository, an unknown revision, or a local work
    /// tree with uncommitted changes whose checked-out commit is the one named.
    pub fn resolve(&mut self) -> Result<&str, SourceError> {
        if self.commit.is_none() {
            let commit = if self.is_remote() {
                resolve_remote(&self.repo, &self.rev)?
            } else {
                let commit = resolve_local(Path::new(&self.repo), &self.rev)?;
                refuse_dirty(Path::new(&self.repo), &self.rev, &commit)?;
                commit
            };
            self.commit = Some(commit);
        }
        Ok(self.commit.as_deref().unwrap_or_default())
    }
}

impl fmt::Display for EngineSource {
    /// `REPO rev=REV (commit COMMIT) build="CMD"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rev={}", self.repo, self.rev)?;
        if let Some(commit) = &self.commit {
            write!(f, " (commit {commit})")?;
        }
        if let Some(build) = &self.build {
            write!(f, " build=\"{build}\"")?;
        }
        Ok(())
    }
}

/// Whether `repo` names a remote repository: `scheme://...`, or git's scp-like `host:path`
/// (a colon before any slash) when no local path of that name exists.
pub fn is_url(repo: &str) -> bool {
    if repo.contains("://") {
        return true;
    }
    match repo.split_once(':') {
        Some((host, _)) => !host.is_empty() && !host.contains('/') && !Path::new(repo).exists(),
        None => false,
    }
}

/// `repo` as given when it is a URL, else the absolute path of the local repository.
///
/// # Errors
/// The operating system's error when the current directory cannot be read.
pub fn absolute_repo(repo: &str) -> std::io::Result<String> {
    if is_url(repo) {
        return Ok(repo.to_string());
    }
    Ok(std::path::absolute(repo)?.display().to_string())
}

/// Why a source could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// Git could not be run.
    NoGit(String),
    /// `repo` is not a git repository (git's message).
    NotARepository {
        /// The repository.
        repo: String,
        /// What git said.
        git: String,
    },
    /// The revision names no commit of the repository.
    UnknownRevision {
        /// The repository.
        repo: String,
        /// The revision.
        rev: String,
        /// What git said, or why it was not asked.
        git: String,
    },
    /// A local work tree with uncommitted changes to tracked files, whose checked-out commit
    /// is the one the revision names.
    DirtyWorkTree {
        /// The repository.
        repo: String,
        /// The revision.
        rev: String,
        /// The commit.
        commit: String,
        /// `git status --porcelain` lines of the changed files (the first few).
        changes: Vec<String>,
    },
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::NoGit(why) => write!(
                f,
                "cannot run git ({why}): engines built from source (src=) need git on PATH"
            ),
            SourceError::NotARepository { repo, git } => {
                write!(f, "src={repo} is not a git repository: {git}")
            }
            SourceError::UnknownRevision { repo, rev, git } => {
                write!(f, "rev={rev} is not a commit of {repo}: {git}")
            }
            SourceError::DirtyWorkTree {
                repo,
                rev,
                commit,
                changes,
            } => write!(
                f,
                "rev={rev} is commit {} of {repo}, whose work tree has uncommitted changes ({}): \
                 bt-arena builds commits, not work trees, so these changes would not be tested. \
                 Commit them (or `git stash` them) and start again",
                &commit[..commit.len().min(SHORT_HASH_LEN)],
                changes.join(", ")
            ),
        }
    }
}

impl std::error::Error for SourceError {}

/// Runs `git ARGS` (in `dir`, when given) and returns its standard output trimmed, or its
/// standard error (trimmed) as `Err`; a git that cannot be started is [`SourceError::NoGit`].
pub(crate) fn git(
    dir: Option<&Path>,
    args: &[&str],
) -> Result<Result<String, String>, SourceError> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    let output = command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| SourceError::NoGit(e.to_string()))?;
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_string();
    Ok(if output.status.success() {
        Ok(text(&output.stdout))
    } else {
        let stderr = text(&output.stderr);
        Err(if stderr.is_empty() {
            format!("git {} failed ({})", args.join(" "), output.status)
        } else {
            stderr
        })
    })
}

/// The commit `rev` names in the local repository `repo` (`git rev-parse REV^{commit}`).
fn resolve_local(repo: &Path, rev: &str) -> Result<String, SourceError> {
    let display = repo.display().to_string();
    if let Err(git) = git(Some(repo), &["rev-parse", "--git-dir"])? {
        return Err(SourceError::NotARepository { repo: display, git });
    }
    let spec = format!("{rev}^{{commit}}");
    match git(
        Some(repo),
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    )? {
        Ok(commit) if is_full_hash(&commit) => Ok(commit),
        Ok(other) => Err(SourceError::UnknownRevision {
            repo: display,
            rev: rev.to_string(),
            git: format!("git rev-parse answered '{other}'"),
        }),
        Err(git) => Err(SourceError::UnknownRevision {
            repo: display,
            rev: rev.to_string(),
            git: if git.is_empty() || git.starts_with("git rev-parse") {
                "no such branch, tag or commit".to_string()
            } else {
                git
            },
        }),
    }
}

/// Refuses a local work tree with uncommitted changes to tracked files when `commit` is the
/// one checked out in it (untracked files are not looked at: a build never sees them).
fn refuse_dirty(repo: &Path, rev: &str, commit: &str) -> Result<(), SourceError> {
    let head = git(Some(repo), &["rev-parse", "--verify", "--quiet", "HEAD"])?.ok();
    if head.as_deref() != Some(commit) {
        return Ok(());
    }
    // A bare repository has no work tree to be dirty.
    if git(Some(repo), &["rev-parse", "--is-bare-repository"])?.as_deref() == Ok("true") {
        return Ok(());
    }
    let status = git(
        Some(repo),
        &["status", "--porcelain", "--untracked-files=no"],
    )?
    .unwrap_or_default();
    let changes: Vec<String> = status
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.trim().to_string())
        .collect();
    if changes.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 5;
    let mut shown: Vec<String> = changes.iter().take(SHOWN).cloned().collect();
    if changes.len() > SHOWN {
        shown.push(format!("and {} more", changes.len() - SHOWN));
    }
    Err(SourceError::DirtyWorkTree {
        repo: repo.display().to_string(),
        rev: rev.to_string(),
        commit: commit.to_string(),
        changes: shown,
    })
}

/// The commit `rev` names in the remote repository `url`: a full hash as it is (checked when
/// the commit is fetched), else the ref of that name `git ls-remote` lists (a tag's commit,
/// then a branch, then a full ref name; `HEAD` is the remote's default branch).
fn resolve_remote(url: &str, rev: &str) -> Result<String, SourceError> {
    if is_full_hash(rev) {
        return Ok(rev.to_ascii_lowercase());
    }
    let unknown = |git: String| SourceError::UnknownRevision {
        repo: url.to_string(),
        rev: rev.to_string(),
        git,
    };
    let listing =
        git(None, &["ls-remote", "--", url])?.map_err(|git| SourceError::NotARepository {
            repo: url.to_string(),
            git,
        })?;
    let refs: Vec<(&str, &str)> = listing
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(hash, name)| (name.trim(), hash.trim()))
        .collect();
    let find = |name: &str| refs.iter().find(|(n, _)| *n == name).map(|(_, h)| *h);
    let candidates = [
        format!("refs/tags/{rev}^{{}}"),
        format!("refs/tags/{rev}"),
        format!("refs/heads/{rev}"),
        format!("{rev}^{{}}"),
        rev.to_string(),
    ];
    candidates
        .iter()
        .find_map(|name| find(name))
        .filter(|hash| is_full_hash(hash))
        .map(str::to_string)
        .ok_or_else(|| {
            unknown(
                "no such branch or tag on the remote (an abbreviated commit cannot be looked up \
                 remotely: give the full hash)"
                    .to_string(),
            )
        })
}

/// Whether `text` is a full SHA-1 (40) or SHA-256 (64) commit hash in hexadecimal.
pub fn is_full_hash(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Runs git in `dir` and returns its trimmed output; panics on failure.
    pub(crate) fn run_git(dir: &Path, args: &[&str]) -> String {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_string()
    }

    /// A repository in `dir` with commits writing `file` = each of `contents`; returns their
    /// hashes, oldest first. The branch is `main`.
    pub(crate) fn repo_with_commits(dir: &Path, file: &str, contents: &[&str]) -> Vec<String> {
        run_git(dir, &["init", "--quiet", "--initial-branch=main"]);
        contents
            .iter()
            .map(|content| {
                std::fs::write(dir.join(file), content).unwrap();
                run_git(dir, &["add", file]);
                run_git(dir, &["commit", "--quiet", "-m", content]);
                run_git(dir, &["rev-parse", "HEAD"])
            })
            .collect()
    }

    fn source(repo: &Path, rev: &str) -> EngineSource {
        EngineSource {
            repo: repo.display().to_string(),
            rev: rev.to_string(),
            commit: None,
            build: None,
        }
    }

    #[test]
    fn revisions_resolve_to_full_hashes_once() {
        let dir = tempfile::tempdir().unwrap();
        let commits = repo_with_commits(dir.path(), "a", &["one", "two"]);
        run_git(dir.path(), &["tag", "v1", &commits[0]]);
        let resolve = |rev: &str| source(dir.path(), rev).resolve().map(str::to_string);
        assert_eq!(resolve("HEAD").unwrap(), commits[1]);
        assert_eq!(resolve("main").unwrap(), commits[1]);
        assert_eq!(resolve("v1").unwrap(), commits[0]);
        assert_eq!(resolve(&commits[0][..10]).unwrap(), commits[0]);
        assert_eq!(resolve("main~1").unwrap(), commits[0]);
        // Once resolved, the hash stays whatever the branch does.
        let mut main = source(dir.path(), "main");
        main.resolve().unwrap();
        run_git(dir.path(), &["reset", "--quiet", "--hard", &commits[0]]);
        assert_eq!(main.resolve().unwrap(), commits[1]);
        assert_eq!(main.short_commit(), Some(&commits[1][..7]));
        let err = resolve("nope").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "rev=nope is not a commit of {}: no such branch, tag or commit",
                dir.path().display()
            )
        );
        let plain = tempfile::tempdir().unwrap();
        let err = source(plain.path(), "HEAD").resolve().unwrap_err();
        assert!(
            matches!(&err, SourceError::NotARepository { .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("is not a git repository"), "{err}");
    }

    #[test]
    fn a_dirty_work_tree_is_refused_for_its_own_commit_only() {
        let dir = tempfile::tempdir().unwrap();
        let commits = repo_with_commits(dir.path(), "a", &["one", "two"]);
        std::fs::write(dir.path().join("untracked"), "x").unwrap();
        assert!(source(dir.path(), "HEAD").resolve().is_ok());
        std::fs::write(dir.path().join("a"), "edited").unwrap();
        let err = source(dir.path(), "HEAD").resolve().unwrap_err();
        assert_eq!(
            err,
            SourceError::DirtyWorkTree {
                repo: dir.path().display().to_string(),
                rev: "HEAD".into(),
                commit: commits[1].clone(),
                changes: vec!["M a".into()],
            }
        );
        assert!(
            err.to_string()
                .contains("has uncommitted changes (M a): bt-arena builds commits"),
            "{err}"
        );
        // Another commit of the same repository is not the work tree's.
        assert_eq!(source(dir.path(), "HEAD~1").resolve().unwrap(), commits[0]);
    }

    #[test]
    fn remote_revisions_come_from_ls_remote() {
        let dir = tempfile::tempdir().unwrap();
        let commits = repo_with_commits(dir.path(), "a", &["one", "two"]);
        run_git(dir.path(), &["tag", "-a", "-m", "t", "v1", &commits[0]]);
        let url = format!("file://{}", dir.path().display());
        let remote = |rev: &str| {
            let mut s = source(dir.path(), rev);
            s.repo = url.clone();
            assert!(s.is_remote());
            s.resolve().map(str::to_string)
        };
        assert_eq!(remote("main").unwrap(), commits[1]);
        assert_eq!(remote("HEAD").unwrap(), commits[1]);
        assert_eq!(remote("v1").unwrap(), commits[0]);
        assert_eq!(remote(&commits[0]).unwrap(), commits[0]);
        let err = remote(&commits[0][..8]).unwrap_err();
        assert!(err.to_string().contains("give the full hash"), "{err}");
    }

    #[test]
    fn names_and_urls_are_read_from_the_repository() {
        let named = |repo: &str| EngineSource {
            repo: repo.into(),
            rev: DEFAULT_REV.into(),
            commit: None,
            build: None,
        };
        assert_eq!(named("/home/me/my-engine/").repo_name(), "my-engine");
        assert_eq!(
            named("https://host/me/my-engine.git").repo_name(),
            "my-engine"
        );
        assert_eq!(named("git@host:me/eng.git").repo_name(), "eng");
        assert!(is_url("https://host/x"));
        assert!(is_url("git@host:me/x"));
        assert!(!is_url("/tmp/x"));
        assert!(!is_url("./a:b"));
        assert!(is_full_hash(&"a".repeat(40)));
        assert!(!is_full_hash("abc"));
    }
}
