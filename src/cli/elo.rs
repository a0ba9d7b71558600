//! `bt-arena elo`: the report (standings, Elo, LOS, pentanomial counts, SPRT, faults)
//! recomputed from games.csv and PGN files.

use super::UsageError;
use anyhow::{Context, Result};
use bt_arena::results::{self, GameRecord, Summary};
use bt_arena::stats::{Sprt, SprtDecision};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena elo`.
#[derive(Args, Debug)]
pub struct EloArgs {
    /// games.csv or PGN files (bt-arena's, cutechess-cli's, fastchess's), e.g. the shards of
    /// one run. Game pairs are matched within a file (in a PGN without bt-arena's X-Pair tags:
    /// two consecutive games, colours swapped, same start); engines are listed in order of
    /// first appearance.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// SPRT of the first engine against the second (needs exactly two engines), as separate
    /// tokens or one quoted string: elo0=0 elo1=5 alpha=0.05 beta=0.05 (alpha and beta
    /// default to 0.05). The games are replayed in file order: the verdict is the first
    /// crossing of a bound.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Vec<String>,
    /// Print the summary as JSON (the format of summary.json) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `bt-arena elo`: reads every file, then prints the report.
///
/// # Errors
/// [`UsageError`] for a bad SPRT specification, no file, or `--sprt` with games of other than
/// two engines; a missing, unreadable or malformed games file (the message names it, with the
/// line for a malformed row).
pub fn run(args: &EloArgs) -> Result<ExitCode> {
    let (spec, files) = split_sprt_values(&args.sprt, &args.files);
    let sprt = spec
        .map(|spec| spec.parse::<Sprt>())
        .transpose()
        .map_err(|e| UsageError(format!("invalid value for '--sprt': {e}")))?;
    if files.is_empty() {
        return Err(
            UsageError("bt-arena elo needs at least one games.csv or PGN FILE".into()).into(),
        );
    }
    let shards = read_shards(&files)?;
    // The games stay in file order (the order they finished in, which the SPRT replays), but
    // engines are named in schedule order: game 1's White is the tournament's first engine
    // (the one an SPRT tests), whichever game was written first.
    let summary = Summary::compute_shards(&shards, &schedule_order(&shards), sprt.as_ref());
    if sprt.is_some() && summary.engines.len() != 2 {
        return Err(UsageError(format!(
            "--sprt needs the games of exactly two engines; {} {}",
            if files.len() == 1 {
                "the file holds"
            } else {
                "the files hold"
            },
            match summary.engines.len() {
                0 => "no games".to_string(),
                1 => format!("games of one engine ({})", summary.engines[0]),
                n => format!("games of {n} engines ({})", summary.engines.join(", ")),
            }
        ))
        .into());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{summary}");
    }
    Ok(match summary.sprt_decision() {
        Some(SprtDecision::AcceptH0) => super::EXIT_FAILED.into(),
        Some(SprtDecision::Continue) => super::EXIT_INCONCLUSIVE.into(),
        Some(SprtDecision::AcceptH1) | None => ExitCode::SUCCESS,
    })
}

/// The `--sprt` specification and the files. `--sprt` takes several values, so in
/// `--sprt elo0=0 elo1=5 games.csv` it also swallows the files: its values are the SPRT's
/// while they are `key=value` tokens (a key of letters and digits, a value without `/`) or
/// quoted strings holding several tokens; the first other value and the rest are files, before
/// `files`. (A file named like `key=value` is written `./key=value`.)
pub fn split_sprt_values(values: &[String], files: &[PathBuf]) -> (Option<String>, Vec<PathBuf>) {
    let is_spec = |value: &String| {
        value.contains(char::is_whitespace)
            || value.split_once('=').is_some_and(|(key, value)| {
                !key.is_empty() && key.chars().all(char::is_alphanumeric) && !value.contains('/')
            })
    };
    let spec_len = values.iter().take_while(|v| is_spec(v)).count();
    let spec = (!values.is_empty()).then(|| values[..spec_len].join(" "));
    let mut all_files: Vec<PathBuf> = values[spec_len..].iter().map(PathBuf::from).collect();
    all_files.extend(files.iter().cloned());
    (spec, all_files)
}

/// The games of each file (games.csv or PGN), in file order; a warning on stderr names each
/// game skipped (an unfinished PGN game).
///
/// # Errors
/// A file that cannot be read or holds a malformed game (naming the file and line).
pub fn read_shards(files: &[PathBuf]) -> Result<Vec<Vec<GameRecord>>> {
    files
        .iter()
        .map(|path| {
            let read = results::read_game_file(path).context("cannot read the games")?;
            for skipped in &read.skipped {
                eprintln!("warning: {}, {skipped}: not counted", path.display());
            }
            Ok(read.games)
        })
        .collect()
}

/// Engine names in schedule order: by game id within the first file, then the other files.
pub fn schedule_order(shards: &[Vec<GameRecord>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for shard in shards {
        let mut by_id: Vec<&GameRecord> = shard.iter().collect();
        by_id.sort_by_key(|game| game.game_id);
        for name in by_id.iter().flat_map(|g| [&g.white, &g.black]) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(values: &[&str], files: &[&str]) -> (Option<String>, Vec<PathBuf>) {
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
        split_sprt_values(&values, &files)
    }

    #[test]
    fn sprt_tokens_and_files_are_told_apart() {
        let paths = |list: &[&str]| list.iter().map(PathBuf::from).collect::<Vec<_>>();
        assert_eq!(
            split(&["elo0=0", "elo1=5", "a.csv", "b.csv"], &["c.csv"]),
            (
                Some("elo0=0 elo1=5".into()),
                paths(&["a.csv", "b.csv", "c.csv"])
            )
        );
        assert_eq!(
            split(&["elo0=0 elo1=5 alpha=0.1"], &["a.csv"]),
            (Some("elo0=0 elo1=5 alpha=0.1".into()), paths(&["a.csv"]))
        );
        // A bad token stays in the specification, to be reported as such.
        assert_eq!(
            split(&["elo0=0", "gamma=1", "run=1/games.csv"], &[]),
            (Some("elo0=0 gamma=1".into()), paths(&["run=1/games.csv"]))
        );
        assert_eq!(split(&[], &["a.csv"]), (None, paths(&["a.csv"])));
        assert_eq!(
            split(&["a.csv"], &[]),
            (Some(String::new()), paths(&["a.csv"]))
        );
    }
}
