//! `bt-arena merge`: the shards of a run joined into one games.csv, games.pgn, summary.json
//! and report.html, with the run's verdict as the exit code.

use super::UsageError;
use anyhow::{Result, anyhow};
use bt_arena::run::games::{ReadError, Verdict};
use bt_arena::run::merge::{MergeError, MergedRun};
use bt_arena::run_dir::{RunDir, RunKind};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The run directory, whose shard-K directories are merged into it.
    ///
    /// With --out, shard directories (or run directories, standing for their shards) of one
    /// run, from machines that shared no directory.
    #[arg(required = true, value_name = "INPUT")]
    dirs: Vec<PathBuf>,
    /// Write the merged files to this directory instead of the run directory.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Fails with a [`UsageError`] when `out` holds a run other than `run` (the merged run's
/// directory): the merged files would mix with that run's.
fn refuse_another_run(out: &Path, run: &Path) -> Result<()> {
    let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
    let dir = RunDir::new(out);
    let holds = match dir.kind() {
        Ok(RunKind::Plain | RunKind::Shard(_)) => Some(dir.config_json()),
        Ok(RunKind::Sharded(shards)) => shards.first().map(|(_, s)| s.root().to_path_buf()),
        Ok(RunKind::Workers(workers)) => workers.first().map(|w| w.root().to_path_buf()),
        _ => dir.identity_json().exists().then(|| dir.identity_json()),
    };
    match holds {
        Some(holds) if !same(out, run) => Err(UsageError(format!(
            "--out {}: it holds a run ({}); merge into another directory",
            out.display(),
            holds.display()
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Runs `bt-arena merge`: reads the shards through the one reader of a run's games (checked
/// to be shards of one run, each game once, in game-id order), writes the merged files and
/// prints the report. Exit code: the run's verdict, as `elo` and `report` give it
/// ([`super::conclude`]): 0 H1 (or a complete run without SPRT), 1 H0, 2 no decision over
/// the whole schedule, 5 games missing and no verdict.
///
/// # Errors
/// [`UsageError`] for several directories without `--out`, a directory given twice, or an
/// `--out` holding a run on one machine; an error naming the directory or file at fault when
/// the shards are not of one run, a game is foreign or repeated, or a file cannot be read or
/// written.
pub fn run(args: &MergeArgs) -> Result<ExitCode> {
    let out = match (&args.out, args.dirs.as_slice()) {
        (None, [run]) => run.clone(),
        (None, _) => {
            return Err(UsageError(
                "several directories are merged with --out DIR (the run directory alone needs none)"
                    .into(),
            )
            .into());
        }
        (Some(out), _) => out.clone(),
    };
    let merged = MergedRun::open(&args.dirs).map_err(|err| match err {
        MergeError::Read(ReadError::GivenTwice(_)) | MergeError::NotShards(_) => {
            UsageError(err.to_string()).into()
        }
        MergeError::Read(ReadError::NotStarted(_)) => super::IncompleteRun(err.to_string()).into(),
        err => anyhow!(err),
    })?;
    if args.out.is_some() {
        refuse_another_run(&out, &merged.dir)?;
    }
    let written = merged.write(&out).map_err(|e| anyhow!(e))?;
    let members = match merged.count {
        Some(count) => format!("{} of {count} shards", merged.shards.len()),
        None => bt_arena::records::plural(merged.shards.len() as u64, "worker"),
    };
    say!(
        "Merged {members}: {} games in game-id order into {}",
        written.reading.games,
        out.display()
    );
    if let Some(first) = written.without_shard_pgn.first() {
        note!(
            "warning: {} missing from their shard's games.pgn (game {first}{}): their PGN was \
             written from games.csv, without the engines' PVs",
            bt_arena::records::plural(written.without_shard_pgn.len() as u64, "game"),
            if written.without_shard_pgn.len() > 1 {
                ", ..."
            } else {
                ""
            }
        );
    }
    out!("\n{}", written.summary);
    super::print_recorded(&written.recorded);
    let (summary, reading) = (written.summary, written.reading);
    let verdict = Verdict::of(&summary, &reading);
    Ok(super::conclude(&merged.sources, &reading, verdict, true))
}
