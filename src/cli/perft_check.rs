//! `bt-arena perft-check`: finds the exact bug in an engine's move generator by comparing its
//! perft with the reference rules and walking down to the faulty position.

use super::UsageError;
use anyhow::{Result, anyhow};
use bt_arena::engine::{Engine, EngineDescription, EngineKeys};
use bt_arena::game::TimeControl;
use bt_arena::perft_check::render::{Header, Json, Render, Text};
use bt_arena::perft_check::{self, CheckSettings, Target};
use bt_arena::rules::Rules;
use bt_arena::rules::suite;
use clap::{ArgAction, Args};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Perft depth of the start and random positions when `--depth` is not given.
const DEFAULT_DEPTH: u32 = 5;

/// Arguments of `bt-arena perft-check`.
#[derive(Args, Debug)]
pub struct PerftCheckArgs {
    /// The engine: cmd=PATH [name=N] [args="A B"] [arg=A] [dir=D] [proto=ugi|uci]
    /// [option.X=Y] and the search whose bestmove is judged in each position:
    /// [depth=N | st=S | nodes=N | tc=[MOVES/]BASE+INC] (default depth=1).
    #[arg(long, required = true, num_args = 1.., action = ArgAction::Set, value_name = "KEY=VALUE")]
    engine: Vec<String>,
    /// Rule set: capture-only (diagonal steps must capture) or classic.
    #[arg(long, default_value_t = Rules::CaptureOnly)]
    rules: Rules,
    /// Perft depth in plies of the start and random positions (default 5); when given, also
    /// caps the depth of suite lines, which are otherwise checked at their deepest listed depth.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: Option<u32>,
    /// Check every line of a perft suite (`<position> ;D1 n ;D2 n ...`) at its deepest listed
    /// depth (capped by --depth) instead of the start position.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Check K positions, one from each of K games of random legal moves (instead of the start
    /// position; besides a suite).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    random: Option<u32>,
    /// Seed of the random games (default: drawn at random and printed).
    #[arg(long, requires = "random")]
    seed: Option<u64>,
    /// Seconds one perft or one search may take before the engine counts as failed.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `bt-arena perft-check`: exit 0 when the engine agrees with the rules everywhere, 1 on a
/// mismatch or an illegal bestmove.
///
/// # Errors
/// A bad `--engine` ([`UsageError`]); an unreadable or malformed suite, or a suite count the
/// rules do not give; an engine that fails to start, crashes, stalls or sends garbage.
pub fn run(args: &PerftCheckArgs) -> Result<ExitCode> {
    let spec = engine_description(&args.engine)?;
    let seed = args
        .random
        .map(|_| args.seed.unwrap_or_else(|| fastrand::u64(..)));
    let targets = targets(args, seed)?;
    let settings = CheckSettings {
        rules: args.rules,
        limits: spec.limit.go_limits(),
        timeout: Duration::from_secs(args.timeout),
    };
    // An engine error's message includes its cause: no chain to print.
    let mut engine = Engine::start(&spec.launch(), args.rules).map_err(|e| anyhow!("{e}"))?;
    let render: &dyn Render = if args.json { &Json } else { &Text };
    out!(
        "{}",
        render.header(&Header {
            engine: engine.name(),
            engine_id: engine.id_name(),
            rules: args.rules,
            positions: targets.len(),
            seed,
        })
    );
    let mut report = perft_check::check_all(&mut engine, &settings, &targets, |position| {
        out!("{}", render.position(position));
    })?;
    engine.quit();
    report.seed = seed;
    out!("{}", render.report(&report));
    Ok(if report.failed == 0 {
        ExitCode::SUCCESS
    } else {
        super::EXIT_FAILED.into()
    })
}

/// The engine from its `key=value` tokens (built first when from source); its search limit
/// defaults to depth 1.
fn engine_description(tokens: &[String]) -> Result<EngineDescription> {
    let engine = EngineKeys::parse(tokens)
        .and_then(|keys| keys.into_description(TimeControl::Depth(1)))
        .map_err(|e| UsageError(format!("--engine: {e}")))?;
    super::bench::built_from_source(engine, None)
}

/// The positions to check: the suite's lines and the random positions, or else the start.
fn targets(args: &PerftCheckArgs, seed: Option<u64>) -> Result<Vec<Target>> {
    let mut targets = match &args.suite {
        Some(path) => suite_targets(path, args.depth.unwrap_or(u32::MAX))?,
        None => Vec::new(),
    };
    if let (Some(count), Some(seed)) = (args.random, seed) {
        targets.extend(Target::random(
            args.rules,
            count as usize,
            seed,
            args.depth.unwrap_or(DEFAULT_DEPTH),
        ));
    }
    if args.suite.is_none() && args.random.is_none() {
        targets.push(Target::start(args.depth.unwrap_or(DEFAULT_DEPTH)));
    }
    Ok(targets)
}

/// One target per line of the suite at `path`.
fn suite_targets(path: &Path, max_depth: u32) -> Result<Vec<Target>> {
    let entries = suite::read_suite(path)?;
    Ok(Target::from_suite(&entries, max_depth))
}
