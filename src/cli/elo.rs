//! `bt-arena elo`: the report (standings, Elo, LOS, pentanomial counts, SPRT, faults)
//! recomputed from games.csv files.

use anyhow::{Context, Result};
use bt_arena::results::{self, Summary};
use bt_arena::stats::Sprt;
use bt_arena::stats::SprtDecision;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena elo`.
#[derive(Args, Debug)]
pub struct EloArgs {
    /// games.csv files, e.g. the shards of one run. Game pairs are matched within a file;
    /// engines are listed in order of first appearance.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// SPRT of the first engine against the second (needs exactly two engines), e.g.
    /// "elo0=0 elo1=5 alpha=0.05 beta=0.05"; alpha and beta default to 0.05.
    #[arg(long, value_name = "SPEC")]
    sprt: Option<Sprt>,
    /// Print the summary as JSON (the format of summary.json) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `bt-arena elo`: reads every file, then prints the report.
///
/// # Errors
/// A missing, unreadable or malformed games file (the message names it, with the line for a
/// malformed row).
pub fn run(args: &EloArgs) -> Result<ExitCode> {
    let shards = args
        .files
        .iter()
        .map(|path| {
            let mut games = results::read_games(path).context("cannot read the games")?;
            // Schedule order, not finishing order: game 1's White is the tournament's first
            // engine (the one an SPRT tests), whichever game was written first.
            games.sort_by_key(|game| game.game_id);
            Ok(games)
        })
        .collect::<Result<Vec<_>>>()?;
    let summary = Summary::compute_shards(&shards, &[], args.sprt.as_ref());
    if args.sprt.is_some() && summary.engines.len() != 2 {
        eprintln!(
            "warning: --sprt needs exactly two engines; the files name {}: no SPRT",
            summary.engines.len()
        );
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{summary}");
    }
    Ok(match summary.sprt_decision() {
        Some(SprtDecision::AcceptH0) => super::EXIT_FAILED.into(),
        Some(SprtDecision::Continue) => super::EXIT_INCONCLUSIVE.into(),
        _ => ExitCode::SUCCESS,
    })
}
