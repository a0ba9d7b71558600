//! `bt-arena tune`: SPSA tuning of an engine's options (flags as `tournament`'s where they
//! mean the same), and the tuned values printed at the end.

use super::args::{EngineFlags, OpeningsFlag, PgnCommentsFlag, RulesFlag, RunSeed};
use super::session::SessionFlags;
use super::signals::{EXIT_INTERRUPTED, stop_flag};
use super::tournament::{
    DEFAULT_LIMIT, default_book, default_out, make_book_path_absolute, make_engine_paths_absolute,
};
use anyhow::{Context, Result, anyhow};
use bt_arena::arena::Stopped;
use bt_arena::openings::spec::{OpeningOrder, OpeningsSpec};
use bt_arena::run::header::RunHeader;
use bt_arena::run::identity::{Identified, SeedOrigin};
use bt_arena::run_dir::RunDir;
use bt_arena::run_dir::identity::RunIdentity;
use bt_arena::session::{Announcement, RunStart, SessionError};
use bt_arena::tune::report::{TUNED_OPTIONS, TUNED_PARAMS};
use bt_arena::tune::{self, SpsaSettings, Tune, TuneConfig, TuneError, TunePlan, params};
use clap::{ArgAction, ArgMatches, Args};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The engine both sides run (--engine once; name= is not used: the sides are tune+ and
    /// tune-). A fast fixed limit (nodes= or depth=) makes a tune quick and, at
    /// --concurrency 1, repeatable.
    #[command(flatten)]
    engines: EngineFlags,
    /// The parameters, one a line (OpenBench's or fishtest's format).
    ///
    /// OpenBench's `NAME, int|float, VALUE, MIN, MAX, C_END, R_END` or fishtest's
    /// `NAME,VALUE,MIN,MAX,C_END,R_END`; # starts a comment.
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
    /// One parameter, in either format of --params; repeat for each.
    ///
    /// E.g. `--param Pawn,100,50,200,10,0.002` (fishtest's: name, value, min, max, c_end,
    /// r_end).
    #[arg(long, action = ArgAction::Append, value_name = "LINE")]
    param: Vec<String>,
    /// Iterations of the tune (the gains are scheduled over them); required unless --resume.
    #[arg(long, value_name = "I")]
    iterations: Option<u64>,
    /// Game pairs per iteration (default 8).
    ///
    /// θ+ against θ−, each pair one opening with colours swapped.
    #[arg(long, value_name = "N")]
    pairs: Option<u32>,
    /// A as a fraction of the iterations (A = RATIO · I; default 0.1).
    #[arg(long, value_name = "RATIO")]
    a_ratio: Option<f64>,
    /// α, the decay of the step a_k = a / (A + k)^α (default 0.602).
    #[arg(long, value_name = "ALPHA")]
    alpha: Option<f64>,
    /// γ, the decay of the perturbation c_k = c / k^γ (default 0.101).
    #[arg(long, value_name = "GAMMA")]
    gamma: Option<f64>,
    #[command(flatten)]
    seed: RunSeed,
    /// Iterations in flight, L: iteration i starts from θ after exactly iterations 1..i-L.
    ///
    /// θ at every iteration is then a function of the seed and the settings alone: the tune
    /// repeats bit for bit at any concurrency, over any number of shards, whatever the
    /// timing. Default: what the first start keeps busy, shards × ⌈concurrency / (2 ·
    /// pairs)⌉; saved in tune.json (and a sharded tune's identity), kept by --resume.
    #[arg(long, value_name = "L")]
    lag: Option<u64>,
    #[command(flatten)]
    openings: OpeningsFlag,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: super::args::BoardFlag,
    /// Run directory (default results/<event>-<YYYYMMDD>-<HHMMSS>, UTC).
    ///
    /// It holds tune.json, tune.csv, the tuned values, games.csv, games.pgn and the report.
    #[arg(long, value_name = "DIR", value_parser = super::args::utf8_path())]
    out: Option<PathBuf>,
    /// Continue the tune in DIR as saved in its tune.json.
    ///
    /// θ is rebuilt from its tune.csv; only the flags listed under "Session" may be given
    /// with it. With --shard K/N, continue shard K of the sharded tune in DIR; without it, on
    /// a sharded tune or a tune of workers, rewrite DIR's report.html, summary.json and tuned
    /// values from every shard's or worker's iterations (no game).
    #[arg(long, value_name = "DIR", conflicts_with = "worker")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    /// Event name, in the PGN Event tag and the run directory's name (default bt-arena-tune).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    #[command(flatten)]
    pgn_comments: PgnCommentsFlag,
    #[command(flatten)]
    adjudication: super::args::AdjudicationFlags,
    #[command(flatten)]
    session: SessionFlags,
}

/// Runs `bt-arena tune`.
///
/// # Errors
/// A bad flag or parameter ([`super::UsageError`]), an engine that cannot start, an unusable
/// book or run directory.
pub fn run(args: &TuneArgs, matches: &ArgMatches) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    // Before anything is built or started: a signal stops the tune from its first moment.
    let stop = stop_flag()?;
    let given = matches.subcommand_matches("tune").unwrap_or(matches);
    let shard = args.session.shard()?;
    if let (Some(dir), None) = (&args.resume, shard)
        && tune::shard::is_sharded(dir)
    {
        return regenerate(dir, given);
    }
    let (mut config, start) = match &args.resume {
        Some(dir) => {
            let command = TuneArgs::augment_args(clap::Command::new("tune"));
            let config: TuneConfig = super::session::resumed(dir, &args.session, &command, given)?;
            (config, RunStart::Resume)
        }
        None => {
            let config = build_config(args).map_err(|e| super::UsageError(format!("{e:#}")))?;
            let seed = match args.seed.seed {
                Some(_) => SeedOrigin::Given,
                None => SeedOrigin::Drawn,
            };
            (config, RunStart::Fresh(seed))
        }
    };
    // A shard or worker given no --lag takes the tune's, decided by the first to start.
    if !start.is_resume()
        && args.lag.is_none()
        && config.is_spread()
        && let Ok(Some(identity)) = RunIdentity::read(&RunDir::new(&config.run.out))
        && let Some(lag) = identity.settings["lag"].as_u64()
    {
        config.lag = lag;
    }
    let options = super::session::options(&mut config, &args.session, given, started)?;
    let ending = super::session::play::<Tune>(&mut config, start, &options, &stop, announce)
        .map_err(|err| match err.downcast_ref::<SessionError<TuneError>>() {
            // A parameter the engine cannot take: a bad command line.
            Some(SessionError::Kind(TuneError::Params(params))) => {
                super::UsageError(params.to_string()).into()
            }
            _ => err,
        })?;
    let report = &ending.outcome;
    let dir = config.run.out.display();
    if let Some(shard) = config.run.shard {
        say!(
            "Shard {shard} done with its iterations ({} of the tune's finished)",
            report.finished
        );
    }
    if let Some(worker) = &config.run.worker {
        say!(
            "Worker {worker} stopped claiming iterations ({} of the tune's finished)",
            report.finished
        );
    }
    say!(
        "θ after {} of {} iterations ({dir}/{TUNED_OPTIONS}; OpenBench's format in {dir}/{TUNED_PARAMS}):",
        report.finished,
        config.spsa.iterations
    );
    let values: Vec<String> = config
        .params
        .iter()
        .zip(&report.theta)
        .map(|(param, &value)| format!("option.{}={}", param.name, param.format_value(value)))
        .collect();
    say!("{}", values.join(" "));
    print_faults(&report.faults);
    say!("Results: {dir}");
    let code = match super::session::stop_code(&config, &ending.ended, "iterations", "") {
        // An interrupted tune's exit code stands, --strict or not.
        Some(code) if ending.ended.stopped == Stopped::Interrupted => return Ok(code),
        Some(code) => code,
        None if report.complete => ExitCode::SUCCESS,
        None => {
            note!(
                "Interrupted: continue with `{}`",
                bt_arena::session::resume_command(&config.run, TuneConfig::TYPE)
            );
            return Ok(EXIT_INTERRUPTED.into());
        }
    };
    Ok(super::checks_failed(args.session.checks.strict, &report.failures).unwrap_or(code))
}

/// The losses by fault of tune+ and tune−, as a tournament's report gives them, when there
/// are any (each was warned about as it happened).
fn print_faults(faults: &[bt_arena::report::EngineFaults]) {
    if faults
        .iter()
        .all(|f| f.losses() == 0 && f.stray_answers == 0)
    {
        return;
    }
    say!("Losses by fault  time  illegal  crash  stall  stray");
    for f in faults {
        say!(
            "{:<16} {:>4} {:>8} {:>6} {:>6} {:>6}",
            f.name,
            f.time_forfeits,
            f.illegal_moves,
            f.crashes,
            f.stalls,
            f.stray_answers
        );
    }
}

/// The start-up line.
fn announce(announcement: Announcement<'_, TuneConfig, TunePlan>) {
    let (config, plan) = (announcement.config, announcement.prospect);
    for repair in announcement.repairs {
        note!("warning: {repair}");
    }
    let params = bt_arena::records::plural(config.params.len() as u64, "parameter");
    let what = match (plan.finished, config.run.shard, &config.run.worker) {
        (done, _, Some(worker)) if done == plan.iterations => {
            say!(
                "Worker {worker}: every iteration of the tune in {} is finished: it plays \
                 nothing",
                config.run.out.display()
            );
            return;
        }
        (done, _, Some(worker)) => format!(
            "Worker {worker}: claiming iterations of a tune of {params} ({done} iterations \
             finished)"
        ),
        (0, Some(shard), _) => format!("Shard {shard}: tuning {params}"),
        (done, Some(shard), _) => {
            format!("Shard {shard}: joining a tune of {params} ({done} iterations finished)")
        }
        (0, None, _) => format!("Tuning {params}"),
        (done, None, _) => format!("Resuming a tune of {params} ({done} iterations finished)"),
    };
    say!(
        "{what} of {} over {} iterations of {}, {}, {} at a time, seed {}; \
         results in {}{}",
        config.engine.cmd.display(),
        config.spsa.iterations,
        bt_arena::records::plural(u64::from(config.spsa.pairs), "game pair"),
        super::tournament::rules_and_board(&config.run),
        config.run.concurrency,
        config.run.seed,
        config.run.out.display(),
        super::executables::located_commands(std::slice::from_ref(&config.engine))
    );
}

/// Rewrites the report and tuned values of the tune of shards or workers in `dir` from their
/// files.
///
/// # Errors
/// A [`super::UsageError`] naming a flag other than --resume; an error naming the file that
/// cannot be read or written.
fn regenerate(dir: &Path, given: &ArgMatches) -> Result<ExitCode> {
    refuse_flags(&["resume"], given, dir)?;
    let snapshot = tune::shard::regenerate(dir).map_err(|e| anyhow!("--resume: {e}"))?;
    let members = match RunDir::new(dir).worker_dirs().map(|dirs| dirs.is_empty()) {
        Ok(false) => "worker",
        _ => "shard",
    };
    let dir = dir.display();
    say!(
        "θ after {} of {} iterations of every {members} ({dir}/{TUNED_OPTIONS}; OpenBench's format in {dir}/{TUNED_PARAMS}):",
        snapshot.records.len(),
        snapshot.config.spsa.iterations
    );
    say!("{}", snapshot.option_lines().join(" "));
    Ok(ExitCode::SUCCESS)
}

/// A [`super::UsageError`] naming the first flag given on the command line that is not in
/// `allowed`.
fn refuse_flags(allowed: &[&str], given: &ArgMatches, dir: &Path) -> Result<()> {
    let command = TuneArgs::augment_args(clap::Command::new("tune"));
    if let Some(flag) = super::flag_given_outside(&command, given, allowed) {
        return Err(super::UsageError(format!(
            "--{flag} cannot be given with --resume {}: {} are the only flags it takes here",
            dir.display(),
            allowed
                .iter()
                .map(|flag| format!("--{flag}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into());
    }
    Ok(())
}

/// The tune the flags describe, with every path made absolute.
fn build_config(args: &TuneArgs) -> Result<TuneConfig> {
    let engines = &args.engines;
    if engines.engine.len() != 1 {
        return Err(anyhow!(
            "tune takes exactly one --engine (both sides run it), got {}",
            engines.engine.len()
        ));
    }
    let each = engines.each_keys()?;
    let mut engine = super::args::describe(&engines.engine[0], &each, DEFAULT_LIMIT)
        .map_err(|e| anyhow!("--engine: {e}"))?;
    engine.name = "tune".to_string();
    let mut params = match &args.params {
        Some(path) => params::read_file(path)?,
        None => Vec::new(),
    };
    for param in params::parse_flags(&args.param)? {
        if let Some(first) = params
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(&param.name))
        {
            let at = first
                .origin
                .as_ref()
                .map(|o| o.to_string())
                .unwrap_or_default();
            let origin = param
                .origin
                .as_ref()
                .map(|o| o.to_string())
                .unwrap_or_default();
            return Err(anyhow!(
                "{origin}: '{}' is declared twice (first at {at})",
                param.name
            ));
        }
        params.push(param);
    }
    let iterations = args
        .iterations
        .ok_or_else(|| anyhow!("--iterations I is required (or --resume DIR)"))?;
    let mut spsa = SpsaSettings::new(iterations);
    spsa.pairs = args.pairs.unwrap_or(spsa.pairs);
    spsa.a_ratio = args.a_ratio.unwrap_or(spsa.a_ratio);
    spsa.alpha = args.alpha.unwrap_or(spsa.alpha);
    spsa.gamma = args.gamma.unwrap_or(spsa.gamma);
    let rules = args.rules.get();
    let board = args.board.get();
    let event = args
        .event
        .clone()
        .unwrap_or_else(|| "bt-arena-tune".to_string());
    let out = args.out.clone().unwrap_or_else(|| default_out(&event));
    let openings = if args.openings.openings.is_empty() {
        OpeningsSpec {
            file: default_book(rules, board),
            order: OpeningOrder::Sequential,
            digest: None,
        }
    } else {
        OpeningsSpec::parse(&args.openings.openings)?
    };
    let mut config = TuneConfig {
        run: RunHeader {
            event,
            rules,
            board,
            openings,
            seed: args.seed.get_or_draw(),
            out,
            adjudication: args.adjudication.over(Default::default()),
            ..RunHeader::default()
        },
        engine,
        params,
        spsa,
        lag: 1,
        pgn_comments: args.pgn_comments.pgn_comments.unwrap_or_default(),
        unknown: Default::default(),
    };
    super::session::apply_new(
        &mut config.run,
        &args.session,
        &args.workers,
        args.out.is_some(),
    )?;
    config.lag = match args.lag {
        Some(lag) => lag,
        None => tune::config::default_lag(
            config.run.concurrency,
            config.run.shard.map_or(1, |s| s.count()),
            config.spsa.pairs,
            config.spsa.iterations,
        ),
    };
    config.validate().map_err(|e| anyhow!(e))?;
    // The tournament's checks and paths.
    make_engine_paths_absolute(std::slice::from_mut(&mut config.engine))?;
    super::executables::check_commands(std::slice::from_ref(&config.engine))?;
    make_book_path_absolute(&mut config.run.openings)?;
    super::bots::check_openings(
        std::slice::from_ref(&config.engine),
        &config.run.openings,
        config.run.rules,
        config.run.board,
    )?;
    config.run.out = std::path::absolute(&config.run.out).context("cannot resolve a path")?;
    Ok(config)
}
