//! The engines' executables, checked before any starts and said where found: every command
//! that starts engines checks them ([`check_commands`], a bad command line naming the engine),
//! and a run says on its first line where a bare `cmd=` name was found
//! ([`located_commands`], see [`bt_arena::engine::locate`]).

use bt_arena::engine::EngineDescription;
use bt_arena::engine::locate::{BUNDLED_ENGINES, Located};
use std::path::Path;

/// Fails early, naming the engine, when its executable is missing, a directory or not
/// executable, or its working directory does not exist: every command checks its engines so
/// (a bad command line, exit 3), before starting any.
///
/// # Errors
/// The first engine at fault, named.
pub fn check_commands(engines: &[EngineDescription]) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // An engine built from source is checked once built.
    for engine in engines.iter().filter(|e| e.source.is_none()) {
        let name = &engine.name;
        let cmd = &engine.cmd;
        if cmd.components().count() <= 1 {
            if bt_arena::engine::locate::locate(cmd) == Located::Missing {
                let beside = match BUNDLED_ENGINES.iter().any(|b| cmd == Path::new(b)) {
                    true => " beside bt-arena nor",
                    false => "",
                };
                anyhow::bail!(
                    "engine '{name}': executable '{}' not found{beside} in PATH{}{}",
                    cmd.display(),
                    bundled_hint(cmd, "`cargo install --path . --locked` puts them on PATH"),
                    quoted_keys_hint(cmd)
                );
            }
        } else if !cmd.exists() {
            anyhow::bail!(
                "engine '{name}': executable {} not found{}{}",
                cmd.display(),
                bundled_hint(cmd, "`cargo build --release` builds them in target/release"),
                quoted_keys_hint(cmd)
            );
        } else if cmd.is_dir() {
            anyhow::bail!(
                "engine '{name}': {} is a directory, not an executable",
                cmd.display()
            );
        } else if std::fs::metadata(cmd).is_ok_and(|m| m.permissions().mode() & 0o111 == 0) {
            anyhow::bail!(
                "engine '{name}': {} is not executable (chmod +x?)",
                cmd.display()
            );
        }
        if let Some(dir) = engine.dir.as_ref().filter(|dir| !dir.is_dir()) {
            anyhow::bail!(
                "engine '{name}': working directory {} does not exist",
                dir.display()
            );
        }
    }
    Ok(())
}

/// A hint when `cmd` holds a space followed by a `key=value` word: the engine's keys were given
/// as one quoted word (`--engine 'cmd=X name=a'`), which reads as a command named `X name=a`.
fn quoted_keys_hint(cmd: &Path) -> &'static str {
    let quoted = cmd.to_str().is_some_and(|cmd| {
        cmd.split_whitespace()
            .skip(1)
            .any(|word| word.contains('='))
    });
    match quoted {
        true => {
            "; the keys of an engine are words of their own, not one quoted word: \
             --engine cmd=PATH name=NAME nodes=N"
        }
        false => "",
    }
}

/// ` (bt-search is a bundled engine: HOW)` when `cmd` names a bundled engine, else nothing:
/// the hint is noise for the user's own engine (issue 28).
fn bundled_hint(cmd: &Path, how: &str) -> String {
    match cmd.file_name().and_then(|name| name.to_str()) {
        Some(name) if BUNDLED_ENGINES.contains(&name) => {
            let how = match name {
                // bt-faulty is a test engine, left out of a plain build and install.
                "bt-faulty" => "`cargo build --release --features test-engines` builds it",
                _ => how,
            };
            format!(" ({name} is a bundled engine: {how})")
        }
        _ => String::new(),
    }
}

/// Where each engine's bare `cmd=` name was found (a bundled engine beside bt-arena, or on
/// `PATH`), for the end of the first line of a run: `; cmd=bt-search is /opt/bt/bt-search
/// (beside bt-arena)`, once per distinct command; empty when every command is a path (or
/// built from source).
pub fn located_commands(engines: &[EngineDescription]) -> String {
    let mut seen: Vec<&Path> = Vec::new();
    engines
        .iter()
        .filter(|e| e.source.is_none())
        .filter_map(|e| {
            let located = bt_arena::engine::locate::locate(&e.cmd);
            (located.was_looked_up() && !seen.contains(&e.cmd.as_path())).then(|| {
                seen.push(&e.cmd);
                format!("; cmd={} is {located}", e.cmd.display())
            })
        })
        .collect()
}
