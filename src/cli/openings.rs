//! `bt-arena openings`: generate an opening book, or check one.

use super::args::{JsonFlag, RulesFlag, RunSeed};
use anyhow::{Context, Result, bail};
use bt_arena::bundled::search::MAX_DEPTH;
use bt_arena::openings::{self, Book, GenerateOptions, Generated, Spread};
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
    /// Print a book's statistics.
    ///
    /// Its count, duplicates, eval spread (by a search to --search-depth), ply spread and
    /// side to move; every line is checked under the rules.
    Check(CheckArgs),
}

/// Arguments of `bt-arena openings generate`.
#[derive(Args, Debug)]
struct GenerateArgs {
    #[command(flatten)]
    rules: RulesFlag,
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
    /// Depth in plies of the search that scores each opening.
    #[arg(long, value_name = "PLIES", alias = "depth", default_value_t = openings::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    search_depth: u32,
    #[command(flatten)]
    json: JsonFlag,
}

/// Runs `bt-arena openings generate` or `bt-arena openings check`.
///
/// # Errors
/// generate: FILE exists (without --force) or cannot be written, or too few openings were
/// found; check: the book cannot be read or has a bad line.
pub fn run(args: &OpeningsArgs) -> Result<ExitCode> {
    match &args.command {
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
    format!(
        "{} openings under {} rules: {} random plies from the start, kept within ±{} cp by a depth-{} search; {}",
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
    let book = Book::load(&args.file, rules)?;
    let report = openings::check(&book, rules, args.search_depth);
    if args.json.json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{report}");
    }
    if let Some(warning) = book.duplicates_warning() {
        note!("warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
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
