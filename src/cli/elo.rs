//! `bt-arena elo`: the report (standings, Elo, LOS, pentanomial counts, SPRT, faults)
//! recomputed from games.csv and PGN files.

use super::UsageError;
use anyhow::{Context, Result, anyhow};
use bt_arena::report;
use bt_arena::stats::Sprt;
use bt_arena::tournament::run_games::{GameSources, ReadError, Verdict};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena elo`.
#[derive(Args, Debug)]
pub struct EloArgs {
    /// Run directories (a run on one machine: its games.csv in file order; a sharded run or
    /// shard directories of one run: every shard's games in game-id order), or games.csv and
    /// PGN files (bt-arena's, cutechess-cli's, fastchess's), each read in file order. Each game
    /// is counted once: a game given twice is refused. Game pairs are matched within a run or
    /// file (in a PGN without bt-arena's X-Pair tags: two consecutive games, colours swapped,
    /// same start); engines are listed in the run's order, else by first appearance.
    #[arg(value_name = "FILE|DIR")]
    files: Vec<PathBuf>,
    /// SPRT of the first engine against the second (needs exactly two engines), as separate
    /// tokens or one quoted string: elo0=0 elo1=5 alpha=0.05 beta=0.05 (alpha and beta
    /// default to 0.05). The games are replayed in the order read: the verdict is the first
    /// crossing of a bound (over a sharded run, before its first missing game). Default: the
    /// run's own SPRT when the inputs are one run.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Vec<String>,
    /// Print the summary as JSON (the format of summary.json) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `bt-arena elo`: reads every file and run directory once through the one reader of
/// games ([`GameSources`]: a run on one machine in file order, a sharded run in game-id
/// order, each game once; a warning on stderr names each game not counted), then prints the
/// report. Exit code: the verdict ([`super::conclude`]): with `--sprt`, or the run's own SPRT
/// for one run, 0 H1, 1 H0, 2 no decision; 5 when games of a run's schedule are missing and
/// no verdict stands; 0 otherwise.
///
/// # Errors
/// [`UsageError`] for a bad SPRT specification, no file, a file given twice, or `--sprt`
/// with games of other than two engines; a missing, unreadable or malformed games file (the
/// message names it, with the line for a malformed row); a directory without games; shards
/// not of one run; a game that comes twice or is not of its run's schedule.
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
    let sources = open_sources(&files)?;
    let engines = sources.engines().context("cannot read the games")?;
    if sprt.is_some() {
        check_two_engines(&engines, files.len())?;
    }
    // Without --sprt, a run's games are tested with the run's own SPRT.
    let sprt = sprt.or_else(|| sources.run_sprt());
    let (summary, reading) = sources
        .summary(&engines, sprt.as_ref())
        .context("cannot read the games")?;
    let verdict = Verdict::of(&summary, &reading);
    if args.json {
        print!("{}", report::summary_json(&summary));
    } else {
        print!("{summary}");
        super::print_recorded(&sources.recorded_verdict(&summary));
    }
    Ok(super::conclude(&sources, &reading, verdict, !args.json))
}

/// The games of `inputs` ([`GameSources::open`]); a file given twice is a usage error.
///
/// # Errors
/// [`UsageError`] for a file given twice; the reader's error otherwise.
pub(super) fn open_sources(inputs: &[PathBuf]) -> Result<GameSources> {
    GameSources::open(inputs).map_err(|err| match err {
        ReadError::GivenTwice(_) => UsageError(err.to_string()).into(),
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

/// The `--sprt` specification and the files. `--sprt` takes several values, so in
/// `--sprt elo0=0 elo1=5 games.csv` it also swallows the files: its values are the SPRT's
/// while they are `key=value` tokens (a key of letters and digits, a value without `/`) or
/// quoted strings holding several tokens; the first other value and the rest are files, before
/// `files`. (A file named like `key=value` is written `./key=value`.)
pub(super) fn split_sprt_values(
    values: &[String],
    files: &[PathBuf],
) -> (Option<String>, Vec<PathBuf>) {
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
