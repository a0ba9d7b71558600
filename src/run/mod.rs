//! Reading runs, below the kinds of run that play them: what `elo`, `report` and `merge` (and
//! every runner's final report) know of a run, with nothing of the code that plays it.
//!
//! For users (`docs/guide/results.md`, `docs/guide/cluster.md`): a run on one machine, a
//! sharded run, its shards given one by one, or loose games files, each read the same way by
//! every command, to one report and one verdict.
//!
//! * [`header`]: the settings every kind of run shares ([`header::RunHeader`]), flattened
//!   into each kind's config, and what a run's identity holds of them;
//! * [`settings`]: a run's config.json as its readers need it ([`settings::RunSettings`]), and
//!   the shape of its schedule ([`settings::Plan`]: who plays whom in game N, computed);
//! * [`identity`]: a run's identity, decided once and joined by every shard, for tournaments
//!   and tunes alike ([`identity::Identified`]);
//! * [`games`]: the one reader of a run's games ([`GameSources`]), each game once, in the
//!   order its SPRT takes them, and the run's [`Verdict`], the same whichever command reads it;
//! * [`recorded`]: a sharded run's recorded SPRT verdict (`sprt.json`);
//! * [`resume`]: where a run given to `--resume` lives, for tournaments and tunes alike;
//! * [`merge`]: the shards of a run joined back into one, game for game the unsharded run.
//!
//! Below it: [`crate::run_dir`] (the directory's layout), [`crate::records`] (the files),
//! [`crate::report`] (what is computed from the games). Above it: [`crate::tournament`] and
//! [`crate::tune`], which play runs.

pub mod games;
pub mod header;
pub mod hosts;
pub mod identity;
pub mod merge;
pub mod recorded;
pub mod resume;
pub mod rows;
pub mod settings;

pub use games::{GameSources, ReadError, RunReading, Verdict};

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    /// The code of `file` compiled outside tests: its comments left out, and all from its
    /// first `#[cfg(test)]` on.
    fn code(file: &Path) -> String {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        text.lines()
            .map(|line| line.find("//").map_or(line, |at| &line[..at]))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The names `code` reaches through `prefix` (`crate::`, `bt_arena::`, `super::`): the
    /// first segment of each path, and of each path in a `{...}` group after the prefix.
    fn reached(code: &str, prefix: &str) -> BTreeSet<String> {
        let ident = |text: &str| -> String {
            text.trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        let mut names = BTreeSet::new();
        for (at, _) in code.match_indices(prefix) {
            // `xcrate::` or `a::super::` is not this prefix.
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = code[at + prefix.len()..].trim_start();
            if let Some(group) = rest.strip_prefix('{') {
                let mut depth = 0;
                let mut item = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            names.insert(ident(&item));
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    item.push(c);
                }
                names.insert(ident(&item));
            } else {
                names.insert(ident(rest));
            }
        }
        names.remove("");
        names
    }

    /// The source files of top-level module `name` of the library: `src/NAME.rs` or every
    /// file under `src/NAME/`.
    fn files_of(src: &Path, name: &str) -> Vec<PathBuf> {
        let single = src.join(format!("{name}.rs"));
        if single.is_file() {
            return vec![single];
        }
        let mut files = Vec::new();
        let mut dirs = vec![src.join(name)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|ext| ext == "rs") {
                    files.push(path);
                }
            }
        }
        files
    }

    /// `elo`, `report` and `merge` read runs, below the kinds of run: nothing they import,
    /// directly or through the library modules they reach, is `tournament` or `tune`.
    #[test]
    fn the_commands_that_read_runs_import_nothing_of_tournaments_or_tunes() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let cli = src.join("cli");
        // The commands' files, and the files of cli/ they reach through `super::`.
        let mut commands: Vec<PathBuf> = ["elo.rs", "report.rs", "merge.rs", "mod.rs"]
            .iter()
            .map(|file| cli.join(file))
            .collect();
        let mut modules = BTreeSet::new();
        let mut index = 0;
        while index < commands.len() {
            let code = code(&commands[index]);
            index += 1;
            modules.extend(reached(&code, "bt_arena::"));
            for sibling in reached(&code, "super::") {
                let file = cli.join(format!("{sibling}.rs"));
                if file.is_file() && !commands.contains(&file) {
                    commands.push(file);
                }
            }
        }
        // The library modules those reach, to the bottom.
        let mut todo: Vec<String> = modules.iter().cloned().collect();
        while let Some(module) = todo.pop() {
            for file in files_of(&src, &module) {
                for next in reached(&code(&file), "crate::") {
                    if modules.insert(next.clone()) {
                        todo.push(next);
                    }
                }
            }
        }
        assert!(
            modules.contains("run") && modules.contains("report"),
            "{modules:?}"
        );
        for kind in ["tournament", "tune"] {
            assert!(
                !modules.contains(kind),
                "elo, report and merge reach `{kind}`: {modules:?}"
            );
        }
    }
}
