//! `bt-arena elo`: the report (standings, Elo, LOS, pentanomial counts, SPRT, faults)
//! recomputed from games.csv and PGN files.

use super::UsageError;
use super::args::{AnchorFlag, GamesInputs, JsonFlag, SprtFlag};
use anyhow::{Context, Result, anyhow};
use bt_arena::report;
use bt_arena::run::games::{GameSources, ReadError, Verdict};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena elo`.
#[derive(Args, Debug)]
pub struct EloArgs {
    #[command(flatten)]
    inputs: GamesInputs,
    #[command(flatten)]
    sprt: SprtFlag,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    anchor: AnchorFlag,
}

/// Runs `bt-arena elo`: reads every file and run directory once through the one reader of
/// games ([`GameSources`]: a run on one machine in file order, a sharded run in game-id
/// order, each game once; a warning on stderr names each game not counted), then prints the
/// report. Exit code: the verdict ([`super::conclude`]): with `--sprt`, or the run's own SPRT
/// for one run, 0 H1, 1 H0, 2 no decision; 5 when games of a run's schedule are missing and
/// no verdict stands; 0 otherwise.
///
/// # Errors
/// [`UsageError`] for a file given twice, an `--anchor` that is no rated engine, or `--sprt`
/// with games of other than two engines
/// (clap refuses a bad SPRT specification or no input); a missing, unreadable or malformed games file (the
/// message names it, with the line for a malformed row); a directory without games; shards
/// not of one run; a game that comes twice or is not of its run's schedule.
pub fn run(args: &EloArgs) -> Result<ExitCode> {
    let files = &args.inputs.inputs;
    let sprt = args.sprt.sprt;
    let sources = open_sources(files)?;
    let engines = sources.engines().context("cannot read the games")?;
    if sprt.is_some() {
        check_two_engines(&engines, files.len())?;
    }
    // Without --sprt, a run's games are tested with the run's own SPRT.
    let sprt = sprt.or_else(|| sources.run_sprt());
    let (mut summary, reading) = sources
        .summary(&engines, sprt.as_ref())
        .context("cannot read the games")?;
    args.anchor.apply(&mut summary)?;
    let verdict = Verdict::of(&summary, &reading);
    if args.json.json {
        out!("{}", report::summary_json(&summary));
    } else {
        out!("{summary}");
        super::print_recorded(&sources.recorded_verdict(&summary));
    }
    Ok(super::conclude(
        &sources,
        &reading,
        verdict,
        !args.json.json,
    ))
}

/// The games of `inputs` ([`GameSources::open`]); a file given twice is a usage error.
///
/// # Errors
/// [`UsageError`] for a file given twice; the reader's error otherwise.
pub(super) fn open_sources(inputs: &[PathBuf]) -> Result<GameSources> {
    GameSources::open(inputs).map_err(|err| match err {
        ReadError::GivenTwice(_) => UsageError(err.to_string()).into(),
        ReadError::NotStarted(_) => super::IncompleteRun(err.to_string()).into(),
        err => anyhow!(err),
    })
}

/// Checks that the games an `--sprt` is asked for are those of two engines (`engines`, read
/// from `files` files).
///
/// # Errors
/// A [`UsageError`] saying how many engines there are.
pub(super) fn check_two_engines(engines: &[String], files: usize) -> Result<()> {
    if engines.len() == 2 {
        return Ok(());
    }
    Err(UsageError(format!(
        "--sprt needs the games of exactly two engines; {} {}",
        if files == 1 {
            "the file holds"
        } else {
            "the files hold"
        },
        match engines.len() {
            0 => "no games".to_string(),
            1 => format!("games of one engine ({})", engines[0]),
            n => format!("games of {n} engines ({})", engines.join(", ")),
        }
    ))
    .into())
}
