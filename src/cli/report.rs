//! `bt-arena report`: report.html for existing runs, shards of one run, or games files
//! (games.csv or PGN of any tool).

use super::UsageError;
use super::args::{AnchorFlag, GamesInputs, SprtFlag};
use super::elo::{check_two_engines, open_sources};
use anyhow::{Context, Result};
use bt_arena::report::html::{self, PageGames, Report, RunMeta};
use bt_arena::run::games::{GameSources, GroupKind, Verdict};
use bt_arena::run_dir::{RunDir, RunKind};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    inputs: GamesInputs,
    /// Where to write the page (default: report.html beside the only INPUT).
    ///
    /// A directory: report.html in it. Without --out, the page goes into the run directory
    /// given, or the directory holding the file given; several inputs need --out.
    #[arg(long, value_name = "FILE|DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    sprt: SprtFlag,
    #[command(flatten)]
    anchor: AnchorFlag,
}

/// Runs `bt-arena report`: reads the games through the one reader of games (as `elo`
/// does), writes the page, prints its path. Exit code: the verdict, as `elo` gives it.
///
/// # Errors
/// [`UsageError`] with several inputs and no `--out`, an `--out` that is
/// one of the games files or a run's own page for a file of it, a file given twice, an
/// `--anchor` that is no rated engine, a bad
/// `--sprt` with games of other than two engines; a missing or malformed games file
/// (named, with the line); a game that comes twice; a page that cannot be written.
pub fn run(args: &ReportArgs) -> Result<ExitCode> {
    let inputs = &args.inputs.inputs;
    let out = out_path(args.out.as_deref(), inputs)?;
    // A selection's own page, unless another test or anchor is asked for.
    if let ([run], None, None) = (&inputs[..], args.sprt.sprt, &args.anchor.anchor)
        && bt_arena::select::report::is_selection(run)
    {
        return super::select_report::rebuild(run, false, Some(&out));
    }
    refuse_to_replace_a_runs_page(&out, inputs)?;
    let sources = open_sources(inputs)?;
    let files = sources.files();
    refuse_to_overwrite(&out, &files)?;
    let meta = inputs_meta(&sources, &files);
    let sprt = args.sprt.sprt;
    let engines = sources.engines().context("cannot read the games")?;
    if sprt.is_some() {
        check_two_engines(&engines, files.len())?;
    }
    let sprt = sprt.or_else(|| sources.run_sprt());
    let (mut summary, reading) = sources
        .summary(&engines, sprt.as_ref())
        .context("cannot read the games")?;
    args.anchor.apply(&mut summary)?;
    let mut page = PageGames::new(&summary, sprt.as_ref());
    sources.read(&mut page).context("cannot read the games")?;
    let (series, games) = page.finish(&summary);
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
    say!("Report: {}", out.display());
    let verdict = Verdict::of(&summary, &reading);
    Ok(super::conclude(&sources, &reading, verdict, false))
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
        (Some(out), _) if out.is_dir() => Ok(RunDir::new(out).report_html()),
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
        (None, [only]) => Ok(RunDir::new(home_of(only)).report_html()),
        (None, _) => Err(UsageError(
            "with several inputs, say where the page goes: --out FILE".into(),
        )
        .into()),
    }
}

/// What describes the games on the page: the run read ([`RunMeta::of_dir`], of a sharded run
/// its first shard's config and run.json), else only the names of the games `files` as the
/// title; the files as its sources.
fn inputs_meta(sources: &GameSources, files: &[PathBuf]) -> RunMeta {
    let run = sources.single_run().map(|group| &group.kind);
    let mut meta = match run {
        Some(GroupKind::Plain { dir, .. }) => RunMeta::of_dir(dir),
        Some(GroupKind::Sharded { shards, .. }) => shards
            .first()
            .map_or_else(RunMeta::default, |(_, dir)| RunMeta::of_shard_run(dir)),
        _ => RunMeta {
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
    meta
}

/// Fails with a [`UsageError`] when `out` is the page of a run (its report.html) and the
/// inputs are not that run: a page of a file of it (`RUN/games.pgn`, without the SPRT banner
/// and LLR chart its config gives), or of other games, would replace the run's own page.
fn refuse_to_replace_a_runs_page(out: &Path, inputs: &[PathBuf]) -> Result<()> {
    let home = home_of(out);
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let run = RunDir::new(&home);
    // A tune's page (SPSA's) and a selection's are never a tournament report's, even of
    // their own games.
    let tune = run.tune_json().exists() || bt_arena::select::report::is_selection(&home);
    let is_its_page = out.file_name() == run.report_html().file_name()
        && !out.is_dir()
        && (tune || is_run(&home));
    if !is_its_page || (!tune && matches!(inputs, [only] if only.is_dir() && same(only, &home))) {
        return Ok(());
    }
    if tune {
        return Err(UsageError(format!(
            "{} is the page of the {} in {}: a report of games would replace it; give \
             another --out (`{}` rewrites the {1}'s page)",
            out.display(),
            match run.tune_json().exists() {
                true => "tune",
                false => "selection",
            },
            home.display(),
            match run.tune_json().exists() {
                true => format!("bt-arena tune --resume {}", home.display()),
                false => format!("bt-arena report {}", home.display()),
            }
        ))
        .into());
    }
    let inputs: Vec<String> = inputs.iter().map(|i| i.display().to_string()).collect();
    Err(UsageError(format!(
        "{} is the page of the run in {}: a page of {} would replace it; give another --out, \
         or make the run's page with `bt-arena report {1}`",
        out.display(),
        home.display(),
        inputs.join(", ")
    ))
    .into())
}

/// Whether `dir` holds a run (on one machine, sharded, or a shard).
fn is_run(dir: &Path) -> bool {
    !matches!(RunDir::new(dir).kind(), Ok(RunKind::NoRun) | Err(_))
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
