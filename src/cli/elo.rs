//! `bt-arena elo`: the report (standings, Elo, LOS, pentanomial counts, SPRT, faults)
//! recomputed from games.csv and PGN files.

use super::UsageError;
use anyhow::{Context, Result, anyhow, bail};
use bt_arena::results::{self, Summary, SummaryBuilder};
use bt_arena::stats::{Sprt, SprtDecision};
use bt_arena::tournament::TournamentConfig;
use bt_arena::tournament::runner::CONFIG_FILE;
use bt_arena::tournament::shard::layout::shard_dirs;
use bt_arena::tournament::shard::sprt::{RecordedVerdict, read_verdict};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena elo`.
#[derive(Args, Debug)]
pub struct EloArgs {
    /// games.csv or PGN files (bt-arena's, cutechess-cli's, fastchess's), e.g. the shards of
    /// one run, or run directories: a directory's games.csv, or the games of its shards
    /// (`tournament --shard`) merged in game-id order. Game pairs are matched within a file (in
    /// a PGN without bt-arena's X-Pair tags: two consecutive games, colours swapped, same
    /// start); engines are listed in order of first appearance.
    #[arg(value_name = "FILE|DIR")]
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

/// Runs `bt-arena elo`: streams every file or run directory (twice: engine names, then
/// games; a warning on stderr names each PGN game not counted), then prints the report and
/// the SPRT verdicts recorded by sharded runs. Exit code: the `--sprt` verdict, or else a recorded one
/// (0 H1, 1 H0, 2 no decision); 0 without either.
///
/// # Errors
/// [`UsageError`] for a bad SPRT specification, no file, or `--sprt` with games of other than
/// two engines; a missing, unreadable or malformed games file (the message names it, with the
/// line for a malformed row); a directory without games, or whose shards are not of one run.
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
    let mut sources = Vec::new();
    let mut verdicts: Vec<RecordedVerdict> = Vec::new();
    for path in &files {
        let (paths, verdict) = source_files(path)?;
        sources.extend(paths);
        verdicts.extend(verdict.filter(|v| !verdicts.contains(v)));
    }
    // Two passes over the files, each streamed: the engines first, then the games. The
    // games are counted in file order (the order they finished in, which the SPRT replays),
    // but engines are named in schedule order: game 1's White is the tournament's first
    // engine (the one an SPRT tests), whichever game was written first.
    let engines = results::schedule_order(&sources).context("cannot read the games")?;
    if sprt.is_some() {
        check_two_engines(&engines, files.len())?;
    }
    let summary = summarize(&sources, &engines, sprt.as_ref())?;
    if args.json {
        print!("{}", results::summary_json(&summary));
    } else {
        print!("{summary}");
        for verdict in &verdicts {
            println!("{verdict}");
        }
    }
    let decision = summary
        .sprt_decision()
        .or_else(|| verdicts.first().map(|v| v.report.decision));
    Ok(match decision {
        Some(SprtDecision::AcceptH0) => super::EXIT_FAILED.into(),
        Some(SprtDecision::Continue) => super::EXIT_INCONCLUSIVE.into(),
        Some(SprtDecision::AcceptH1) | None => ExitCode::SUCCESS,
    })
}

/// The report of the games of `files` (games.csv streamed, or PGN) for `engines` with `sprt`
/// ([`SummaryBuilder`]); a warning on stderr names each PGN game not counted.
///
/// # Errors
/// A file that cannot be read or holds a malformed game (naming the file and line).
pub(super) fn summarize(
    files: &[PathBuf],
    engines: &[String],
    sprt: Option<&Sprt>,
) -> Result<Summary> {
    let mut builder = SummaryBuilder::new(engines, sprt);
    for path in files {
        let skipped = builder.add_file(path).context("cannot read the games")?;
        for game in skipped {
            eprintln!("warning: {}, {game}: not counted", path.display());
        }
    }
    Ok(builder.finish())
}

/// Fails with a [`UsageError`] saying how many engines there are unless `engines` (those of
/// the games in `inputs` files or directories) are two, as an SPRT needs.
pub(super) fn check_two_engines(engines: &[String], inputs: usize) -> Result<()> {
    if engines.len() == 2 {
        return Ok(());
    }
    Err(UsageError(format!(
        "--sprt needs the games of exactly two engines; {} {}",
        if inputs == 1 {
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

/// The games.csv files of a file, or of a run or shard directory (a sharded run's shards in
/// shard order: each holds whole game pairs), and the SPRT verdict recorded for them (a
/// sharded run's `sprt.json`).
///
/// # Errors
/// A directory holding neither games.csv nor shards, or an unreadable `sprt.json`.
pub(super) fn source_files(path: &Path) -> Result<(Vec<PathBuf>, Option<RecordedVerdict>)> {
    if !path.is_dir() {
        return Ok((vec![path.to_path_buf()], None));
    }
    let csv = path.join(results::GAMES_CSV);
    let config = path.join(CONFIG_FILE);
    let shards = shard_dirs(path).map_err(|e| anyhow!(e))?;
    if !shards.is_empty() && !config.exists() {
        let files = shards
            .iter()
            .map(|(_, dir)| dir.join(results::GAMES_CSV))
            .filter(|csv| csv.exists())
            .collect();
        return Ok((files, read_verdict(path)?));
    }
    if !csv.exists() {
        bail!(
            "{} holds no {} and no shard directories",
            path.display(),
            results::GAMES_CSV
        );
    }
    // A shard's verdict is its run directory's.
    let is_shard = TournamentConfig::read(&config).is_ok_and(|c| c.shard.is_some());
    let run = match (is_shard, path.parent()) {
        (true, Some(parent)) => parent,
        _ => path,
    };
    Ok((vec![csv], read_verdict(run)?))
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
