//! `bt-arena perft-check`: finds the exact bug in an engine's move generator by comparing its
//! perft with the reference rules and walking down to the faulty position.

use super::args::{
    BoardFlag, BuildFlags, JsonFlag, JudgeSeed, OneEngine, RulesFlag, SearchTimeout,
};
use anyhow::{Result, anyhow};
use bt_arena::engine::Engine;
use bt_arena::game::TimeControl;
use bt_arena::perft_check::render::{Header, Json, Render, Text};
use bt_arena::perft_check::{self, CheckSettings, Target};
use bt_arena::rules::suite;
use bt_arena::rules::{Board, Rules};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Perft depth of the start and random positions when `--perft-depth` is not given.
const DEFAULT_DEPTH: u32 = 5;

/// Arguments of `bt-arena perft-check`.
#[derive(Args, Debug)]
#[command(mut_arg("seed", |seed| seed.requires("random")))]
pub struct PerftCheckArgs {
    #[command(flatten)]
    engine: OneEngine,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: BoardFlag,
    /// Perft depth in plies of the start and random positions (default 5).
    ///
    /// It also caps the suite lines, otherwise checked at their deepest listed depth. (The
    /// engine key depth=N is the depth of the searches whose bestmove is judged.)
    #[arg(long, value_name = "PLIES", alias = "depth",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    perft_depth: Option<u32>,
    /// Check every line of a perft suite instead of the start position.
    ///
    /// A suite line is `<position> ;D1 n ;D2 n ...`; each is checked at its deepest listed
    /// depth, capped by --perft-depth.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Check K positions, one from each of K games of random legal moves (instead of the start
    /// position; besides a suite).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    random: Option<u32>,
    #[command(flatten)]
    seed: JudgeSeed,
    #[command(flatten)]
    timeout: SearchTimeout,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    build: BuildFlags,
}

/// Runs `bt-arena perft-check`: exit 0 when the engine agrees with the rules everywhere, 1 on a
/// mismatch or an illegal bestmove.
///
/// # Errors
/// A bad `--engine` ([`super::UsageError`]); an unreadable or malformed suite, or a suite count the
/// rules do not give; an engine that fails to start, crashes, stalls or sends garbage.
pub fn run(args: &PerftCheckArgs) -> Result<ExitCode> {
    let rules = args.rules.get();
    // Before anything is built: a signal stops the build; once built, it exits at once.
    let stop = super::signals::stop_flag()?;
    let engine = args.engine.description(TimeControl::Depth(1))?;
    super::bots::refuse(
        std::slice::from_ref(&engine),
        "perft-check",
        "a bot has no perft: it is given the legal moves, it does not generate them",
    )
    .map_err(|e| super::UsageError(format!("{e:#}")))?;
    let spec = super::bench::built_from_source(engine, &args.build, &stop)?;
    super::signals::exit_at_once_from_now(&stop)?;
    super::executables::check_commands(std::slice::from_ref(&spec))
        .map_err(|e| super::UsageError(format!("{e:#}")))?;
    let seed = args.random.map(|_| args.seed.seed);
    let targets = targets(args, rules, seed)?;
    let settings = CheckSettings {
        rules,
        limits: spec.limit.go_limits(),
        timeout: args.timeout.get(),
    };
    // An engine error's message includes its cause: no chain to print.
    let mut engine =
        Engine::start(&spec.launch(), rules, args.board.get()).map_err(|e| anyhow!("{e}"))?;
    let render: &dyn Render = if args.json.json { &Json } else { &Text };
    out!(
        "{}",
        render.header(&Header {
            engine: engine.name(),
            engine_id: engine.id_name(),
            rules,
            board: args.board.get(),
            positions: targets.len(),
            seed,
        })
    );
    // The step after each one done: what the engine is counting now.
    let progress = super::progress::Progress::start("perft-check");
    let describe = |index: usize| {
        targets.get(index).map(|target| {
            format!(
                "checking {} ({} of {}) at depth {}",
                target.source,
                index + 1,
                targets.len(),
                target.depth
            )
        })
    };
    if let Some(first) = describe(0) {
        progress.step(first);
    }
    let mut done = 0;
    let mut report = perft_check::check_all(&mut engine, &settings, &targets, |position| {
        progress.suspend(|| out!("{}", render.position(position)));
        done += 1;
        if let Some(next) = describe(done) {
            progress.step(next);
        }
    })?;
    drop(progress);
    engine.quit();
    report.seed = seed;
    out!("{}", render.report(&report));
    Ok(if report.failed == 0 {
        ExitCode::SUCCESS
    } else {
        super::EXIT_FAILED.into()
    })
}

/// The positions to check: the suite's lines and the random positions, or else the start.
fn targets(args: &PerftCheckArgs, rules: Rules, seed: Option<u64>) -> Result<Vec<Target>> {
    let depth = args.perft_depth;
    let mut targets = match &args.suite {
        Some(path) => suite_targets(path, args.board.get(), depth.unwrap_or(u32::MAX))?,
        None => Vec::new(),
    };
    if let (Some(count), Some(seed)) = (args.random, seed) {
        targets.extend(Target::random(
            rules,
            args.board.get(),
            count as usize,
            seed,
            depth.unwrap_or(DEFAULT_DEPTH),
        ));
    }
    if args.suite.is_none() && args.random.is_none() {
        targets.push(Target::start(
            args.board.get(),
            depth.unwrap_or(DEFAULT_DEPTH),
        ));
    }
    Ok(targets)
}

/// One target per line of the suite of `board` at `path`.
fn suite_targets(path: &Path, board: Board, max_depth: u32) -> Result<Vec<Target>> {
    let entries = suite::read_suite(path, board)?;
    Ok(Target::from_suite(&entries, max_depth))
}
