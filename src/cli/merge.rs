//! `bt-arena merge`: the shards of a run joined into one games.csv, games.pgn, summary.json
//! and report.html, with the run's SPRT verdict as the exit code.

use super::UsageError;
use anyhow::{Result, anyhow};
use bt_arena::stats::SprtDecision;
use bt_arena::tournament::runner::CONFIG_FILE;
use bt_arena::tournament::shard::layout::shard_dirs;
use bt_arena::tournament::shard::merge::{self, MergedRun};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The run directory, whose shard-K directories are merged into it; with --out, shard
    /// directories (or run directories, standing for their shards).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Write the merged files to this directory instead of the run directory.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Runs `bt-arena merge`: checks the shards, writes the merged files and prints the report.
/// Exit code: the SPRT's verdict when the run has one (0 H1, 1 H0), recorded by the shards
/// (`sprt.json`) or else reached over the merged games; otherwise 4 when games are missing,
/// 2 for an SPRT with no decision, 0 for a complete run.
///
/// # Errors
/// [`UsageError`] for several directories without `--out`, or an `--out` holding an unsharded
/// run; an error naming the directory or file at fault when the shards are not of one run,
/// a game is foreign or repeated, or a file cannot be read or written.
pub fn run(args: &MergeArgs) -> Result<ExitCode> {
    let (merged, out) = match (&args.out, args.dirs.as_slice()) {
        (None, [run]) => (merge::read_run(run).map_err(|e| anyhow!(e))?, run.clone()),
        (None, _) => {
            return Err(UsageError(
                "several directories are merged with --out DIR (the run directory alone needs none)"
                    .into(),
            )
            .into());
        }
        (Some(out), dirs) => {
            if out.join(CONFIG_FILE).exists() {
                return Err(UsageError(format!(
                    "--out {}: it holds a run ({CONFIG_FILE}); merge into another directory",
                    out.display()
                ))
                .into());
            }
            let dirs = expand_runs(dirs)?;
            (
                merge::read_shards(&dirs).map_err(|e| anyhow!(e))?,
                out.clone(),
            )
        }
    };
    let (summary, without_shard_pgn) = merged.write(&out)?;
    println!(
        "Merged {} of {} shards: {} games in game-id order into {}",
        merged.shards.len(),
        merged.shards.first().map_or(0, |(shard, _)| shard.count()),
        merged.games.len(),
        out.display()
    );
    if without_shard_pgn > 0 {
        eprintln!(
            "warning: {without_shard_pgn} of the games are not in their shard's games.pgn: \
             their PGN was written from games.csv, without the engines' PVs"
        );
    }
    print!("\n{summary}");
    Ok(exit_code(&merged, summary.sprt_decision()))
}

/// `dirs` with each run directory (no config.json, shard-K directories) replaced by its
/// shard directories.
fn expand_runs(dirs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut expanded = Vec::new();
    for dir in dirs {
        let shards = shard_dirs(dir).map_err(|e| anyhow!(e))?;
        if dir.join(CONFIG_FILE).exists() || shards.is_empty() {
            expanded.push(dir.clone());
        } else {
            expanded.extend(shards.into_iter().map(|(_, dir)| dir));
        }
    }
    Ok(expanded)
}

/// `` (a shard never started, 2/3: run the tournament's command with `--shard 2/3`)``
/// naming the shards of the run with no directory among those merged; empty when every shard
/// has one.
fn never_started(merged: &MergedRun) -> String {
    let count = merged.shards.first().map_or(1, |(shard, _)| shard.count());
    let absent: Vec<String> = (0..count)
        .filter(|&k| !merged.shards.iter().any(|(shard, _)| shard.index() == k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    match &absent[..] {
        [] => String::new(),
        [one] => format!(
            " (a shard never started, {one}: run the tournament's command with `--shard {one}`)"
        ),
        several => format!(
            " (shards never started, {}: run the tournament's command with `--shard K/N` for each)",
            several.join(", ")
        ),
    }
}

/// Prints the verdict and the missing games; the exit code (see [`run`]).
fn exit_code(merged: &MergedRun, replayed: Option<SprtDecision>) -> ExitCode {
    let decision = match &merged.verdict {
        Some(verdict) => {
            println!("{verdict}");
            if replayed != Some(verdict.report.decision) {
                eprintln!(
                    "warning: the merged games replayed in game-id order do not reach the recorded verdict"
                );
            }
            Some(verdict.report.decision)
        }
        None => replayed.filter(|d| *d != SprtDecision::Continue),
    };
    if !merged.missing.is_empty() {
        let games = merged.missing.len();
        if decision.is_some() {
            println!("{games} games of the schedule not played after the SPRT verdict");
        } else {
            eprintln!(
                "error: {games} games of the schedule are missing ({}): continue each shard with \
                 `bt-arena tournament --resume {} --shard K/N`{}, then merge again",
                merged.describe_missing(),
                run_dir(merged).display(),
                never_started(merged)
            );
            return super::EXIT_ERROR.into();
        }
    }
    match decision {
        Some(SprtDecision::AcceptH1) => ExitCode::SUCCESS,
        Some(SprtDecision::AcceptH0) => super::EXIT_FAILED.into(),
        _ if merged.sprt().is_some() => {
            eprintln!("SPRT: no decision over every game of the schedule");
            super::EXIT_INCONCLUSIVE.into()
        }
        _ => ExitCode::SUCCESS,
    }
}

/// The run directory holding the first shard.
fn run_dir(merged: &MergedRun) -> &Path {
    merged
        .shards
        .first()
        .and_then(|(_, dir)| dir.parent())
        .unwrap_or(Path::new("RUN"))
}
