//! `bt-arena report`: report.html for existing runs, shards of one run, or games files
//! (games.csv or PGN of any tool).

use super::UsageError;
use super::elo::{check_two_engines, source_files, split_sprt_values, summarize};
use anyhow::{Context, Result, anyhow};
use bt_arena::results;
use bt_arena::results::html::{self, REPORT_HTML, Report, RunMeta};
use bt_arena::stats::Sprt;
use bt_arena::tournament::runner::CONFIG_FILE;
use bt_arena::tournament::shard::layout::shard_dirs;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Run directories (their games.csv), games.csv files or PGN files. Several are the shards
    /// of one run (game pairs are matched within each).
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Where to write the page (a directory: report.html in it); default: report.html in the
    /// directory of the only INPUT (a run directory, or the directory holding the file).
    #[arg(long, value_name = "FILE|DIR")]
    out: Option<PathBuf>,
    /// SPRT of the first engine against the second, as `bt-arena elo --sprt` takes it;
    /// default: the one in the run's config.json.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Vec<String>,
}

/// Runs `bt-arena report`: reads the games, writes the page, prints its path.
///
/// # Errors
/// [`UsageError`] without an input, with several inputs and no `--out`, an `--out` that is
/// one of the games files, a bad SPRT or `--sprt` with games of other than two engines; a
/// missing or malformed games file (named, with the line); a page that cannot be written.
pub fn run(args: &ReportArgs) -> Result<ExitCode> {
    let (spec, inputs) = split_sprt_values(&args.sprt, &args.inputs);
    if inputs.is_empty() {
        return Err(UsageError(
            "bt-arena report needs at least one run directory, games.csv or PGN file".into(),
        )
        .into());
    }
    let out = out_path(args.out.as_deref(), &inputs)?;
    let mut files: Vec<PathBuf> = Vec::new();
    for input in &inputs {
        files.extend(source_files(input)?.0);
    }
    refuse_to_overwrite(&out, &files)?;
    let meta = inputs_meta(&inputs, &files)?;
    let sprt = spec
        .or_else(|| meta.config.as_ref()?["sprt"].as_str().map(str::to_string))
        .map(|spec| spec.parse::<Sprt>())
        .transpose()
        .map_err(|e| UsageError(format!("invalid value for '--sprt': {e}")))?;
    let engines = engine_order(&meta, &files)?;
    if sprt.is_some() {
        check_two_engines(&engines, files.len())?;
    }
    let summary = summarize(&files, &engines, sprt.as_ref())?;
    let (series, games) =
        html::series_of_files(&files, &summary, sprt.as_ref()).context("cannot read the games")?;
    html::write_report(
        &out,
        &Report {
            summary: &summary,
            series: &series,
            games: &games,
            meta: &meta,
        },
    )
    .context("cannot write the report")?;
    println!("Report: {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// Where the page goes: `out` (report.html in it when it is a directory), else report.html
/// beside the only input ([`home_of`]).
///
/// # Errors
/// [`UsageError`] when the directory of `out` does not exist, or without `out` for several
/// inputs.
fn out_path(out: Option<&Path>, inputs: &[PathBuf]) -> Result<PathBuf> {
    match (out, inputs) {
        // A directory: the page goes in it.
        (Some(out), _) if out.is_dir() => Ok(out.join(REPORT_HTML)),
        (Some(out), _) => {
            if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty())
                && !parent.is_dir()
            {
                return Err(UsageError(format!(
                    "--out {}: there is no directory {}",
                    out.display(),
                    parent.display()
                ))
                .into());
            }
            Ok(out.to_path_buf())
        }
        (None, [only]) => Ok(home_of(only).join(REPORT_HTML)),
        (None, _) => Err(UsageError(
            "with several inputs, say where the page goes: --out FILE".into(),
        )
        .into()),
    }
}

/// What describes the games on the page: the first run directory among `inputs` ([`run_meta`]),
/// else only the names of the games `files` as the title; the files as its sources.
///
/// # Errors
/// As [`run_meta`].
fn inputs_meta(inputs: &[PathBuf], files: &[PathBuf]) -> Result<RunMeta> {
    let mut meta = match inputs.iter().find(|input| input.is_dir()) {
        Some(dir) => run_meta(dir)?,
        None => RunMeta {
            title: files
                .iter()
                .filter_map(|f| f.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(", "),
            ..RunMeta::default()
        },
    };
    meta.sources = files.iter().map(|f| f.display().to_string()).collect();
    Ok(meta)
}

/// Fails with a [`UsageError`] when `out` is one of the games `files` read: the page would
/// replace the games.
fn refuse_to_overwrite(out: &Path, files: &[PathBuf]) -> Result<()> {
    let Ok(out_path) = out.canonicalize() else {
        return Ok(()); // no such file yet
    };
    match files
        .iter()
        .find(|file| file.canonicalize().ok().as_ref() == Some(&out_path))
    {
        Some(file) => Err(UsageError(format!(
            "--out {} is the games file {}: the page would replace its games",
            out.display(),
            file.display()
        ))
        .into()),
        None => Ok(()),
    }
}

/// The directory a page for `input` goes to: the run directory itself, or the file's.
fn home_of(input: &Path) -> PathBuf {
    if input.is_dir() {
        return input.to_path_buf();
    }
    match input.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What describes the run in `dir`: its config.json and run.json, or for a sharded run (shard
/// directories and no config.json of its own) its first shard's.
///
/// # Errors
/// A shard directory that cannot be listed.
fn run_meta(dir: &Path) -> Result<RunMeta> {
    if dir.join(CONFIG_FILE).exists() {
        return Ok(RunMeta::of_dir(dir));
    }
    let shards = shard_dirs(dir).map_err(|e| anyhow!(e))?;
    Ok(shards.first().map_or_else(
        || RunMeta::of_dir(dir),
        |(_, shard)| RunMeta::of_shard_run(shard),
    ))
}

/// The engines in the run's order (its config), else in schedule order.
///
/// # Errors
/// A games file that cannot be read.
fn engine_order(meta: &RunMeta, files: &[PathBuf]) -> Result<Vec<String>> {
    let configured: Vec<String> = meta
        .config
        .as_ref()
        .and_then(|c| c["engines"].as_array())
        .map(|engines| {
            engines
                .iter()
                .filter_map(|e| e["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if configured.is_empty() {
        results::schedule_order(files).context("cannot read the games")
    } else {
        Ok(configured)
    }
}
