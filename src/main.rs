//! The `bt-arena` command line: a thin layer over the `bt_arena` library.
//!
//! Exit codes (documented in README.md): 0 success; 1 a check failed (a perft mismatch, SPRT
//! accepted H0, a bench signature that is not the one given); 2 inconclusive (no SPRT decision
//! over the whole schedule, or --max-time stopped the run first); 3 a bad command line; 4 any
//! other error (a missing or malformed file, an engine that failed, a failed build); 5 a run
//! incomplete, with no verdict yet; 6 checks failed (`--strict` of `tournament`, `tune` or
//! `datagen`: an engine misbehaved); 130 interrupted by a signal (SIGINT, SIGTERM, SIGHUP: see
//! `cli::signals`).

// The flags' doc comments are their --help text, where `<event>` and `<rules>` are the usage
// convention for a placeholder, not HTML.
#![allow(rustdoc::invalid_html_tags)]

mod cli;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

/// Engine tournaments and perft testing for Breakthrough.
#[derive(Parser, Debug)]
#[command(name = "bt-arena", version, about, long_about = None, max_term_width = 100,
          after_long_help = cli::examples::TOP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of the largest variant (the tournament's flags) costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Count leaf nodes of the move tree (perft), per depth, per root move, or over a suite.
    #[command(after_long_help = cli::examples::PERFT)]
    Perft(cli::perft::PerftArgs),
    /// Find the exact bug in an engine's move generator: its perft against the rules, walked
    /// down to the faulty position.
    ///
    /// --perft-depth is the depth of the perft counts; the engine's limit key (depth=N,
    /// default depth=1; or st=, nodes=, tc=) gives the search whose bestmove is judged in each
    /// position. Exit 0 when the engine agrees with the rules everywhere, 1 on a mismatch or an
    /// illegal bestmove.
    #[command(after_long_help = cli::examples::PERFT_CHECK)]
    PerftCheck(cli::perft_check::PerftCheckArgs),
    /// Check that an engine follows the protocol and the rules: handshake, positions, limits,
    /// output, determinism, move generation and a mini-match, one line per check.
    ///
    /// The engine's limit keys are accepted and not used: each check sets its own. Options
    /// (option.NAME=VALUE) are checked against the engine's declarations as in a tournament: an
    /// undeclared name or a value out of range exits 3, a combo value it did not declare is
    /// sent with a warning. Exit 0 when no check failed, 1 when one did.
    #[command(after_long_help = cli::examples::CHECK_ENGINE)]
    CheckEngine(cli::check_engine::CheckEngineArgs),
    /// Play a round-robin or gauntlet tournament between engines.
    ///
    /// Each engine is one --engine with its KEY=VALUE words (repeat --engine for each engine;
    /// --each gives the keys they share). Without --engine, the bundled engines play a short
    /// demonstration: bt-search, bt-search with option.Eval=material (both at 2000 nodes a
    /// move) and bt-search at 500 nodes, 20 rounds, 2 games at a time.
    ///
    /// cutechess-cli's and fastchess's spellings work: single-dash flags (-engine, -each,
    /// -rounds, -games, -concurrency, -openings, -sprt, -resign, -event), -srand (--seed),
    /// -tournament (--format), clocks as tc=0:10+0.1 and tc=inf with depth=N; their flags
    /// that bt-arena has no use for (-pgnout, -draw, -recover, ...) are refused with a hint.
    #[command(after_long_help = cli::examples::TOURNAMENT)]
    Tournament(Box<cli::tournament::TournamentArgs>),
    /// Tune engine options with SPSA (fishtest's and OpenBench's algorithm): θ+ against θ−
    /// for game pairs each iteration, resumable, reproducible with --seed.
    ///
    /// The engine is given once, --engine with its KEY=VALUE words (name= is not used: the
    /// sides are tune+ and tune-). A fast fixed limit (nodes= or depth=) makes a tune quick
    /// and, at --concurrency 1, repeatable.
    #[command(after_long_help = cli::examples::TUNE)]
    Tune(cli::tune::TuneArgs),
    /// Choose the best of several candidates against a base in a fraction of the games of a
    /// round-robin, with the error rates stated: Paulson's sequential elimination over game
    /// pairs against the base, then the chosen one's SPRT against it.
    ///
    /// Give the base and each candidate with --engine (name= each), and the base with --base.
    /// Exit 0 when the chosen candidate beats the base, 1 when none does, 2 when --budget or
    /// --max-time ran out first. See docs/guide/select.md.
    #[command(after_long_help = cli::examples::SELECT)]
    Select(Box<cli::select::SelectArgs>),
    /// Generate self-play positions for training evaluations: games in a compact file,
    /// positions as 24-byte binary records and text lines, filtered and labelled by proof.
    ///
    /// One engine plays itself; several play each other. Repeatable from --seed whatever
    /// --concurrency and however many shards (with engines at a fixed limit: nodes= or
    /// depth=), resumable after a kill. `datagen convert` rewrites the games without running
    /// any engine.
    #[command(after_long_help = cli::examples::DATAGEN)]
    Datagen(Box<cli::datagen::DatagenArgs>),
    /// Join the shards of a run (`tournament --shard`) into one games.csv, games.pgn,
    /// summary.json and report.html, checking that they belong to one run and listing the
    /// games missing.
    #[command(after_long_help = cli::examples::MERGE)]
    Merge(cli::merge::MergeArgs),
    /// Recompute the report (standings, Elo, LOS, pentanomial counts, SPRT) from games.csv files,
    /// PGN files or run directories.
    #[command(after_long_help = cli::examples::ELO)]
    Elo(cli::elo::EloArgs),
    /// Write report.html (charts, crosstable, game viewer) for run directories, games.csv or
    /// PGN files.
    #[command(after_long_help = cli::examples::REPORT)]
    Report(cli::report::ReportArgs),
    /// Prove whether the side to move of a position wins, or is lost, within some plies: the
    /// rules' exact prover, as --check-claims and --adjudicate use it.
    #[command(after_long_help = cli::examples::PROVE)]
    Prove(cli::prove::ProveArgs),
    /// Solve a position (by default the start of --board): who wins with perfect play, and in
    /// how many plies. The distance is the minimax one: the winner plays the fastest win, the
    /// loser the longest resistance. Prints the principal line, the nodes and the memory used.
    #[command(after_long_help = cli::examples::SOLVE)]
    Solve(cli::solve::SolveArgs),
    /// Generate an opening book (random balanced positions), or check one (with --runs: what
    /// its openings did in games).
    #[command(after_long_help = cli::examples::OPENINGS)]
    Openings(cli::openings::OpeningsArgs),
    /// What an SPRT costs before it starts: per true Elo, the probability that it passes and
    /// the games it takes (mean, and 95th percentile from simulated SPRTs), for a book's pair
    /// profile.
    ///
    /// The probability and the mean are fishtest's SPRT calculator's (the LLR as a Brownian
    /// motion); the percentile comes from SPRTs simulated over game pairs with bt-arena's own
    /// test. The book enters as its share of 1-1 game pairs (--one-one) or its RMS bias
    /// measured from runs (--runs).
    #[command(after_long_help = cli::examples::SPRT)]
    Sprt(cli::sprt::SprtArgs),
    /// Run engines' bench (OpenBench's `ENGINE bench`): the signature (a node count) and this
    /// machine's speed, for engines given by path or built from a git revision.
    ///
    /// Of each --engine's keys, those that start it are used, and bench=N, the node count its
    /// bench must print (exit 1 when it does not); the others are accepted and unused.
    #[command(after_long_help = cli::examples::BENCH)]
    Bench(cli::bench::BenchArgs),
    /// Write the man pages, or print a shell completion script.
    #[command(after_long_help = cli::examples::GENERATE)]
    Generate(cli::generate::GenerateArgs),
}

fn main() -> ExitCode {
    let command = cli::args::negative_numbers_as_values(Cli::command());
    // cutechess-cli's and fastchess's spellings, and deprecated ones, made bt-arena's first.
    let args = match cli::argv::rewrite(&command, std::env::args_os().collect()) {
        Ok(rewritten) => {
            for note in &rewritten.notes {
                eprintln!("warning: {note}");
            }
            rewritten.args
        }
        Err(hint) => {
            eprintln!("error: {hint}");
            return cli::EXIT_USAGE.into();
        }
    };
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches).map(|cli| (cli, matches)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            let usage_error = err.use_stderr();
            let _ = err.print();
            return if usage_error {
                cli::EXIT_USAGE.into()
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Perft(args) => cli::perft::run(&args),
        Command::PerftCheck(args) => cli::perft_check::run(&args),
        Command::CheckEngine(args) => cli::check_engine::run(&args),
        Command::Tournament(args) => cli::tournament::run(&args, &matches),
        Command::Tune(args) => cli::tune::run(&args, &matches),
        Command::Select(args) => cli::select::run(&args, &matches),
        Command::Datagen(args) => cli::datagen::run(&args, &matches),
        Command::Elo(args) => cli::elo::run(&args),
        Command::Merge(args) => cli::merge::run(&args),
        Command::Report(args) => cli::report::run(&args),
        Command::Openings(args) => cli::openings::run(&args, &matches),
        Command::Sprt(args) => cli::sprt::run(&args),
        Command::Prove(args) => cli::prove::run(&args),
        Command::Solve(args) => cli::solve::run(&args),
        Command::Bench(args) => cli::bench::run(&args),
        Command::Generate(args) => cli::generate::run(&args, Cli::command()),
    };
    result.unwrap_or_else(|err| {
        if let Some(interrupted) = err.downcast_ref::<cli::signals::Interrupted>() {
            eprintln!("Interrupted: {interrupted}");
            return cli::signals::EXIT_INTERRUPTED.into();
        }
        if let Some(incomplete) = err.downcast_ref::<cli::IncompleteRun>() {
            eprintln!("Incomplete: {incomplete}");
            return cli::EXIT_INCOMPLETE.into();
        }
        eprintln!("error: {err:#}");
        if err.downcast_ref::<cli::UsageError>().is_some() {
            cli::EXIT_USAGE.into()
        } else {
            cli::EXIT_ERROR.into()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
