//! Where an engine's program is found. A `cmd=` with a `/` is a path, used as given. A bare
//! name is looked up as a shell would, in `PATH`, except for the bundled engines (bt-search,
//! bt-random, bt-faulty), which are looked up first beside the running bt-arena: after
//! `cargo build --release`, `target/release/bt-arena` plays `cmd=bt-search` with the
//! bt-search built beside it, and an older one installed on `PATH` is not taken by mistake.
//! Where a bare name was found is said on the first line of a run and in run.json
//! ([`Located`]'s `Display`).

use std::fmt;
use std::path::{Path, PathBuf};

/// The engines built with bt-arena: a bare `cmd=` of one of these names is looked up beside
/// the running bt-arena first.
pub const BUNDLED_ENGINES: [&str; 3] = ["bt-search", "bt-random", "bt-faulty"];

/// Where a `cmd=` was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Located {
    /// A path (it has a `/`): run as given.
    AsGiven(PathBuf),
    /// A bundled engine's bare name, found beside the running bt-arena: this full path.
    Beside(PathBuf),
    /// A bare name found in a directory of `PATH`: this full path.
    OnPath(PathBuf),
    /// A bare name found nowhere.
    Missing,
}

impl Located {
    /// The program to run: the full path found, or `cmd` as given (for a path, and for a name
    /// found nowhere, which then fails to start with the operating system's reason).
    pub fn program<'a>(&'a self, cmd: &'a Path) -> &'a Path {
        match self {
            Located::AsGiven(path) | Located::Beside(path) | Located::OnPath(path) => path,
            Located::Missing => cmd,
        }
    }

    /// True for a bare name (one that was looked up).
    pub fn was_looked_up(&self) -> bool {
        !matches!(self, Located::AsGiven(_))
    }
}

impl fmt::Display for Located {
    /// `/opt/bt/bt-search (beside bt-arena)`, `/usr/bin/my-engine (from PATH)`, the path as
    /// given, or `not found`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Located::AsGiven(path) => write!(f, "{}", path.display()),
            Located::Beside(path) => write!(f, "{} (beside bt-arena)", path.display()),
            Located::OnPath(path) => write!(f, "{} (from PATH)", path.display()),
            Located::Missing => f.write_str("not found"),
        }
    }
}

/// Where `cmd` is found: see the module documentation. Beside the running bt-arena means in
/// the directory of [`std::env::current_exe`].
pub fn locate(cmd: &Path) -> Located {
    if cmd.components().count() != 1 || cmd.to_str().is_some_and(|c| c.contains('/')) {
        return Located::AsGiven(cmd.to_path_buf());
    }
    if let Some(beside) = beside_runner(cmd) {
        return Located::Beside(beside);
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(cmd))
                .find(|candidate| candidate.is_file())
        })
        .map_or(Located::Missing, Located::OnPath)
}

/// The program to run for `cmd`: a bundled engine's bare name, the one beside bt-arena; any
/// other `cmd` as given, for the system to find (`PATH`) with its own rules.
pub fn to_run(cmd: &Path) -> PathBuf {
    match locate(cmd) {
        Located::Beside(path) => path,
        _ => cmd.to_path_buf(),
    }
}

/// The running bt-arena's directory (where its bundled engines are built and installed).
pub fn runner_dir() -> Option<PathBuf> {
    Some(std::env::current_exe().ok()?.parent()?.to_path_buf())
}

/// The bundled engine `cmd` beside the running bt-arena, when `cmd` names one and it is there.
fn beside_runner(cmd: &Path) -> Option<PathBuf> {
    let name = cmd.to_str()?;
    if !BUNDLED_ENGINES.contains(&name) {
        return None;
    }
    Some(runner_dir()?.join(name)).filter(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_taken_as_given_and_an_unknown_bare_name_is_looked_up_in_path() {
        assert_eq!(
            locate(Path::new("./bt-search")),
            Located::AsGiven("./bt-search".into())
        );
        assert_eq!(
            locate(Path::new("/bin/sh")),
            Located::AsGiven("/bin/sh".into())
        );
        match locate(Path::new("sh")) {
            Located::OnPath(path) => assert!(path.ends_with("sh"), "{path:?}"),
            other => panic!("sh: {other:?}"),
        }
        assert_eq!(
            locate(Path::new("no-such-engine-anywhere")),
            Located::Missing
        );
        // The library's tests run from target/*/deps, where no bundled engine is built.
        assert!(!matches!(
            locate(Path::new("bt-search")),
            Located::Beside(_)
        ));
    }
}
