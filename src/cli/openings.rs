//! `bt-arena openings`: generate an opening book, or check one (and with `--runs`, what its
//! openings did in games).

use super::args::{BoardFlag, JsonFlag, RulesFlag, RunSeed};
use anyhow::{Context, Result, bail};
use bt_arena::bundled::search::MAX_DEPTH;
use bt_arena::openings::{self, Book, GenerateOptions, Generated, Spread};
use bt_arena::records::plural;
use bt_arena::report::openings::{OpeningsReport, OpeningsTally};
use bt_arena::rules::Position;
use clap::{Args, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena openings`.
#[derive(Args, Debug)]
pub struct OpeningsArgs {
    #[command(subcommand)]
    command: OpeningsCommand,
}

#[derive(Subcommand, Debug)]
enum OpeningsCommand {
    /// Generate a book of random balanced positions.
    ///
    /// Random move sequences from the start position, kept when distinct, not decided and
    /// balanced by a short search. The same arguments and seed give the same file; the seed
    /// and the command are written in its header.
    Generate(GenerateArgs),
    /// Print a book's statistics, and with --runs what its openings did in games.
    ///
    /// Its count, duplicates, eval spread (by a search to --search-depth), ply spread and
    /// side to move; every line is checked under the rules. With --runs, per opening the
    /// games, pairs, first player's score, pairs LL/1-1/WW and whether the colour decided
    /// them; for the book the share of 1-1 pairs, fishtest's RMS bias and the openings to
    /// prune.
    Check(CheckArgs),
    /// Build a book of openings that carry information, from reference engines' game pairs.
    ///
    /// Candidate positions (random plies, or a book's openings) are each played by every
    /// pair of the reference engines (--engine, at least two), a game pair per pair; a
    /// candidate is kept when White's score over its games is in --band, so that the engines,
    /// not the colour, decide its pairs. The first --count kept, in candidate order, make
    /// <out>/book.epd: the same seed gives the same book, resumed (--resume) or played by
    /// workers (--worker). Test engines other than the reference engines with it.
    Build(Box<super::openings_build::BuildArgs>),
}

/// Arguments of `bt-arena openings generate`.
#[derive(Args, Debug)]
struct GenerateArgs {
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: BoardFlag,
    /// Length of every move sequence from the start position, in plies.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    plies: u32,
    /// How many distinct openings to write.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    count: u32,
    #[command(flatten)]
    seed: RunSeed,
    /// Keep positions the search scores within ±CP centipawns.
    #[arg(long, value_name = "CP", default_value_t = openings::DEFAULT_MAX_EVAL,
          value_parser = clap::value_parser!(i32).range(0..=10_000))]
    max_eval: i32,
    /// Depth in plies of the search that scores each opening.
    #[arg(long, value_name = "PLIES", alias = "depth", default_value_t = openings::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    search_depth: u32,
    /// The book file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Overwrite FILE when it exists.
    #[arg(long)]
    force: bool,
}

/// Arguments of `bt-arena openings check`.
#[derive(Args, Debug)]
struct CheckArgs {
    /// The book file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: BoardFlag,
    /// Depth in plies of the search that scores each opening.
    #[arg(long, value_name = "PLIES", alias = "depth", default_value_t = openings::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    search_depth: u32,
    /// Runs whose games to analyse per opening: run directories (on one machine, sharded, of
    /// workers) or games files (games.csv, PGN).
    ///
    /// Their games are matched to the book's openings by position; games from other
    /// positions are counted apart. Game pairs count from the side of each run's first engine.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    runs: Vec<PathBuf>,
    #[command(flatten)]
    json: JsonFlag,
}

/// Runs `bt-arena openings generate`, `check` or `build`.
///
/// # Errors
/// generate: FILE exists (without --force) or cannot be written, or too few openings were
/// found; check: the book cannot be read or has a bad line.
pub fn run(args: &OpeningsArgs, matches: &clap::ArgMatches) -> Result<ExitCode> {
    match &args.command {
        OpeningsCommand::Build(build) => {
            let given = matches
                .subcommand_matches("openings")
                .and_then(|m| m.subcommand_matches("build"))
                .unwrap_or(matches);
            super::openings_build::run(build, given)
        }
        OpeningsCommand::Generate(args) => {
            run_generate(args, std::env::args_os().skip(1)).map(|()| ExitCode::SUCCESS)
        }
        OpeningsCommand::Check(args) => run_check(args),
    }
}

fn run_generate(args: &GenerateArgs, command_line: impl Iterator<Item = OsString>) -> Result<()> {
    if args.out.exists() && !args.force {
        bail!(
            "{} exists: pass --force to overwrite it",
            args.out.display()
        );
    }
    let seed = args.seed.get_or_draw();
    let options = GenerateOptions {
        rules: args.rules.get(),
        board: args.board.get(),
        plies: args.plies,
        count: args.count as usize,
        seed,
        max_eval_cp: args.max_eval,
        depth: args.search_depth,
    };
    let generated = openings::generate(&options)
        .with_context(|| format!("cannot generate {}", args.out.display()))?;
    // The command that makes the book again: with the seed drawn, when none was given.
    let drawn = match args.seed.seed {
        Some(_) => String::new(),
        None => format!(" --seed {seed}"),
    };
    let header = [
        format!("bt-arena {}{drawn}", super::shell_words(command_line)),
        describe(&options, &generated),
        "<position> ; id \"o<n>\"; eval <centipawns for White>; plies <n>".to_string(),
    ];
    let text = openings::book_text(&header, &generated.openings);
    write_book(&args.out, &text, args.force)?;
    say!(
        "Wrote {} openings to {}: {}",
        generated.openings.len(),
        args.out.display(),
        generated.tally
    );
    say!("Seed: {seed}");
    let evals: Vec<i64> = generated
        .openings
        .iter()
        .map(|o| i64::from(o.eval_cp))
        .collect();
    if let Some(spread) = Spread::of(&evals) {
        say!(
            "eval (centipawns for White, depth {}): {spread}",
            args.search_depth
        );
    }
    Ok(())
}

/// The second header line: what the book holds and how it was made (the seed is in the first,
/// the command line, `--seed N` appended when it was drawn: a book regenerated with it is the
/// same file, byte for byte).
fn describe(options: &GenerateOptions, generated: &Generated) -> String {
    // 8x8 books read as they always have.
    let board = match options.board.is_standard() {
        true => String::new(),
        false => format!(" on the {} board", options.board),
    };
    format!(
        "{} openings under {} rules{board}: {} random plies from the start, kept within ±{} cp by a depth-{} search; {}",
        generated.openings.len(),
        options.rules,
        options.plies,
        options.max_eval_cp,
        options.depth,
        generated.tally
    )
}

/// Writes `text` to `path` through a temporary file in the same directory, so a failed run
/// leaves no partial book; refuses to replace an existing file unless `force`.
fn write_book(path: &Path, text: &str, force: bool) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    let persisted = if force {
        file.persist(path).map(drop)
    } else {
        file.persist_noclobber(path).map(drop)
    };
    persisted.with_context(|| format!("cannot write {}", path.display()))
}

fn run_check(args: &CheckArgs) -> Result<ExitCode> {
    let rules = args.rules.get();
    let book = Book::load(&args.file, rules, args.board.get())?;
    // The runs are read first: a run that is none fails before the search.
    let games = match args.runs.is_empty() {
        true => None,
        false => Some(openings_of_runs(&args.runs, Some(&book))?),
    };
    let report = openings::check(&book, rules, args.search_depth);
    if args.json.json {
        let mut json = serde_json::to_value(&report)?;
        if let Some(games) = &games {
            json["games"] = serde_json::to_value(games)?;
        }
        say!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        out!("{report}");
        if let Some(games) = &games {
            out!("\n");
            out!("{games}");
        }
    }
    if let Some(warning) = book.duplicates_warning() {
        note!("warning: {warning}");
    }
    if let Some(games) = games.as_ref().filter(|games| games.not_in_book > 0) {
        note!(
            "warning: {} of {} from positions not in {}: not counted (played from another \
             book?)",
            plural(games.not_in_book, "game"),
            list(&args.runs),
            args.file.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What the openings did in the games of `runs` (run directories or games files, read as
/// `elo` reads them), for the openings of `book` (else those played), from the side of the
/// runs' first engine.
///
/// # Errors
/// A path that does not exist, a directory that is no run (no games), a games file that
/// does not read; each named.
pub(super) fn openings_of_runs(runs: &[PathBuf], book: Option<&Book>) -> Result<OpeningsReport> {
    for run in runs {
        if !run.exists() {
            bail!(
                "--runs {}: no such run directory or games file",
                run.display()
            );
        }
    }
    let sources =
        super::elo::open_sources(runs).with_context(|| format!("--runs {}", list(runs)))?;
    let engines = sources.engines().context("cannot read the games")?;
    let mut tally = match book {
        Some(book) => {
            let openings: Vec<(u64, Position)> =
                book.openings.iter().map(|o| (o.id, o.position)).collect();
            OpeningsTally::for_book(&engines, &openings)
        }
        None => OpeningsTally::new(&engines),
    };
    sources.read(&mut tally).context("cannot read the games")?;
    Ok(tally.finish())
}

/// The paths, comma-separated.
pub(super) fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_quote_only_what_needs_it() {
        let args = ["openings", "--out", "my book.epd", "it's", "", "a=b,c"];
        assert_eq!(
            crate::cli::shell_words(args.iter().map(OsString::from)),
            r"openings --out 'my book.epd' 'it'\''s' '' a=b,c"
        );
    }
}
