//! `bt-arena bench`: an engine's bench signature and this machine's speed, in OpenBench's
//! convention (`ENGINE bench` prints `N nodes M nps`), for engines given by path or built from
//! a git revision.

use super::args::{BuildFlags, EngineFlags};
use anyhow::Result;
use bt_arena::arena::prepare::{self, PrepareError};
use bt_arena::engine::EngineDescription;
use bt_arena::engine::bench::run_bench;
use bt_arena::game::TimeControl;
use clap::Args;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// Arguments of `bt-arena bench`.
#[derive(Args, Debug)]
#[command(mut_arg("engine", |engine| engine.required(true)))]
pub struct BenchArgs {
    /// The engines (--engine, repeated; the keys that start it and bench=N, which checks the
    /// signature; the others are accepted and unused) and the keys they share (--each).
    #[command(flatten)]
    engines: EngineFlags,
    /// Benches run at once per engine, as with --scale-tc.
    ///
    /// The speed under the load of that many games at a time: the benches must agree on the
    /// node count, and the speed is their mean.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    concurrency: u32,
    #[command(flatten)]
    build: BuildFlags,
}

/// `engine` ready to start: an engine built from source has its revision resolved and its
/// name `NAME@SHORTHASH` ([`EngineDescription::resolve_source`]), and its build (made or found
/// in the build cache `cache`, else the default one), stopped when `stop` is set; any other
/// engine is returned as it is. Says on stderr what was built (stdout may be a report in
/// JSON).
///
/// # Errors
/// A [`super::UsageError`] for a revision that cannot be resolved (or a dirty work tree);
/// [`super::signals::Interrupted`] when a signal stopped the build; the build's error (exit 4)
/// otherwise.
pub fn built_from_source(
    mut engine: EngineDescription,
    build: &BuildFlags,
    stop: &AtomicBool,
) -> Result<EngineDescription> {
    let name = engine.name.clone();
    let resolved = engine.resolve_source().map_err(|error| {
        super::UsageError(
            PrepareError::Source {
                engine: name,
                error,
            }
            .to_string(),
        )
    })?;
    if !resolved {
        return Ok(engine);
    }
    let cache = build.cache()?;
    prepare::build_engine(&mut engine, &cache, None, stop, &mut |line| note!("{line}"))
        .map_err(super::signals::prepare_error)?;
    Ok(engine)
}

/// Runs `bt-arena bench`: for each engine (built first when from source), its bench, printed
/// as `NAME: N nodes M nps`. Exit code 1 when an engine's count is not its `bench=N`.
///
/// # Errors
/// A [`super::UsageError`] for bad engine keys or revisions; an error naming the engine when
/// it cannot be built or has no bench.
pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    // Before anything is built: a signal stops the build or bench in progress.
    let stop = super::signals::stop_flag()?;
    let mut mismatches = 0;
    let engines = args.engines.descriptions(TimeControl::Depth(1))?;
    super::bots::refuse(
        &engines,
        "bench",
        "a bot has no bench (OpenBench's `ENGINE bench`, a node count and a speed)",
    )
    .map_err(|e| super::UsageError(format!("{e:#}")))?;
    for engine in engines {
        let engine = built_from_source(engine, &args.build, &stop)?;
        super::executables::check_commands(std::slice::from_ref(&engine))
            .map_err(|e| super::UsageError(format!("{e:#}")))?;
        let progress = super::progress::Progress::start("bench");
        progress.step(format!("running the bench of {}", engine.name));
        let bench =
            run_bench(&engine.launch(), args.concurrency as usize, &stop).map_err(|error| {
                super::signals::prepare_error(PrepareError::Bench {
                    engine: engine.name.clone(),
                    error,
                })
            })?;
        drop(progress);
        say!("{}: {bench}", engine.name);
        if let Some(expected) = engine.bench.filter(|&expected| expected != bench.nodes) {
            mismatches += 1;
            note!(
                "error: engine '{}': its bench counts {} nodes, not the {expected} of bench={expected}",
                engine.name,
                bench.nodes
            );
        }
    }
    Ok(match mismatches {
        0 => ExitCode::SUCCESS,
        _ => super::EXIT_FAILED.into(),
    })
}
