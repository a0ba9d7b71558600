//! `bt-arena tune`: SPSA tuning of an engine's options (flags as `tournament`'s where they
//! mean the same), and the tuned values printed at the end.

use super::args::{EngineFlags, OpeningsFlag, PgnCommentsFlag, RulesFlag, RunSeed};
use super::signals::{EXIT_INTERRUPTED, stop_flag};
use super::tournament::{
    DEFAULT_LIMIT, default_out, make_book_path_absolute, make_engine_paths_absolute, shipped_book,
};
use anyhow::{Context, Result, anyhow};
use bt_arena::arena::prepare::{self, Preparation};
use bt_arena::openings::spec::{OpeningOrder, OpeningsSpec};
use bt_arena::run::identity::{self, SeedOrigin};
use bt_arena::run_dir::identity::RunIdentity;
use bt_arena::run_dir::{RunDir, Shard};
use bt_arena::tune::report::{TUNED_OPTIONS, TUNED_PARAMS};
use bt_arena::tune::resume::RESUME_FLAGS;
use bt_arena::tune::{self, SpsaSettings, TuneConfig, TuneError, TuneFinish, TunePlan, params};
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
    /// Games played at the same time (default 1).
    ///
    /// Above one iteration's games (2 · pairs), iterations overlap as --lag allows.
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Iterations in flight, L: iteration i starts from θ after exactly iterations 1..i-L.
    ///
    /// θ at every iteration is then a function of the seed and the settings alone: the tune
    /// repeats bit for bit at any concurrency, over any number of shards, whatever the
    /// timing. Default: what the first start keeps busy, shards × ⌈concurrency / (2 ·
    /// pairs)⌉; saved in tune.json (and a sharded tune's identity), kept by --resume.
    #[arg(long, value_name = "L")]
    lag: Option<u64>,
    /// Start no new iteration after this long, e.g. 45m, 2h, 90s (default: no limit).
    ///
    /// Counted from the start, builds included. Iterations begun are finished; θ so far is
    /// written, and the tune exits with 2 (continue with --resume).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    max_time: Option<std::time::Duration>,
    #[command(flatten)]
    build: super::args::BuildFlags,
    #[command(flatten)]
    openings: OpeningsFlag,
    #[command(flatten)]
    rules: RulesFlag,
    /// Run directory (default results/<event>-<YYYYMMDD>-<HHMMSS>, UTC).
    ///
    /// It holds tune.json, tune.csv, the tuned values, games.csv, games.pgn and the report.
    #[arg(long, value_name = "DIR", value_parser = super::args::utf8_path())]
    out: Option<PathBuf>,
    /// Continue the tune in DIR as saved in its tune.json.
    ///
    /// θ is rebuilt from its tune.csv; only --concurrency, --log, --shard, --max-time,
    /// --build-cache, --rebuild, --check-claims and --strict may be given with it. With --shard K/N, continue shard K of the sharded tune in DIR; without it, on a
    /// sharded tune, rewrite DIR's report.html, summary.json and tuned values from every
    /// shard's iterations (no game).
    #[arg(long, value_name = "DIR", conflicts_with = "worker")]
    resume: Option<PathBuf>,
    /// Play one shard of a tune spread over machines sharing --out.
    ///
    /// K/N plays the iterations i with (i - 1) mod N = K into <out>/shard-K/, each starting
    /// from θ after exactly iterations 1..i-L of every shard (--lag L; applied in increasing
    /// iteration number), waiting for them: the shards play the tune one machine plays.
    /// `auto`: K and N from a Slurm array task; `auto/N`: K from a Kubernetes Indexed Job or a
    /// Slurm array task.
    #[arg(long, value_name = "K/N|auto|auto/N")]
    shard: Option<String>,
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    /// Event name, in the PGN Event tag and the run directory's name (default bt-arena-tune).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Log every engine's protocol traffic under <out>/logs/.
    #[arg(long)]
    log: bool,
    #[command(flatten)]
    pgn_comments: PgnCommentsFlag,
    #[command(flatten)]
    checks: super::args::ChecksFlags,
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
    let matches = matches.subcommand_matches("tune").unwrap_or(matches);
    let shard = super::args::parse_shard(args.shard.as_deref())?;
    if let (Some(dir), None) = (&args.resume, shard)
        && tune::shard::is_sharded(dir)
    {
        return regenerate(dir, matches);
    }
    let (mut config, resume) = match &args.resume {
        Some(dir) => (resumed_config(dir, shard, args, matches)?, true),
        None => {
            let mut config = build_config(args).map_err(|e| super::UsageError(format!("{e:#}")))?;
            config.shard = shard;
            if let Some((worker, lease_ms)) = args
                .workers
                .worker(args.out.is_some())
                .map_err(|e| super::UsageError(format!("{e:#}")))?
            {
                config.worker = Some(worker);
                config.lease_ms = Some(lease_ms);
            }
            config.lag = match args.lag {
                Some(lag) => lag,
                None => tune::config::default_lag(
                    config.concurrency,
                    shard.map_or(1, |s| s.count()),
                    config.spsa.pairs,
                    config.spsa.iterations,
                ),
            };
            config
                .validate()
                .map_err(|e| super::UsageError(e.to_string()))?;
            (config, false)
        }
    };
    // A shard or worker given no --lag takes the tune's, decided by the first to start.
    if !resume
        && args.lag.is_none()
        && config.is_spread()
        && let Ok(Some(identity)) = RunIdentity::read(&RunDir::new(&config.out))
        && let Some(lag) = identity.settings["lag"].as_u64()
    {
        config.lag = lag;
    }
    // A shard refused by the run's identity exits 4, as a tournament's does.
    let seed = match resume || args.seed.seed.is_some() {
        true => SeedOrigin::Given,
        false => SeedOrigin::Drawn,
    };
    identity::establish(&mut config, seed).map_err(|e| anyhow!(e))?;
    let played = build_engine(&mut config, &args.build, &stop)?;
    let session = tune::TuneSession {
        resume,
        stop: &stop,
        deadline: args.max_time.map(|limit| started + limit),
        // Each iteration's line is the tune's interim output, on a terminal or off it.
        rating_interval: 0,
        checks: args.checks.claim_checks(),
    };
    let report =
        tune::run(&played, session, |plan| announce(&played, plan)).map_err(|err| match err {
            TuneError::Params(err) => super::UsageError(err.to_string()).into(),
            other => anyhow!(other),
        })?;
    let dir = config.out.display();
    if let Some(shard) = config.shard {
        say!(
            "Shard {shard} done with its iterations ({} of the tune's finished)",
            report.finished
        );
    }
    if let Some(worker) = &config.worker {
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
    let resume = resume_command(&config);
    for given_up in &report.given_up {
        note!(
            "error: {}. The tune's games after it were not played: fix it, then continue with `{resume}`",
            given_up.error
        );
    }
    let code = match report.finish {
        TuneFinish::Completed => ExitCode::SUCCESS,
        TuneFinish::Interrupted if config.worker.is_some() => {
            note!(
                "Interrupted: the iterations this worker was playing were let go (their games \
                 recorded are kept); any worker of the tune plays the rest, e.g. `{resume}`"
            );
            EXIT_INTERRUPTED.into()
        }
        TuneFinish::Interrupted => {
            note!("Interrupted: continue with `{resume}`");
            // An interrupted tune's exit code stands, --strict or not.
            return Ok(EXIT_INTERRUPTED.into());
        }
        TuneFinish::TimeLimit => {
            note!(
                "Time limit reached (--max-time): no new iteration started after it; continue with `{resume}`"
            );
            super::EXIT_INCONCLUSIVE.into()
        }
        TuneFinish::NotPlayed => {
            if report.given_up.is_empty()
                && let Some(first) = report.not_played.first()
            {
                note!(
                    "error: game {} was not played ({}): continue with `{resume}`",
                    first.game_id,
                    first.why
                );
            }
            super::EXIT_ERROR.into()
        }
    };
    Ok(super::checks_failed(args.checks.strict, &report.failures).unwrap_or(code))
}

/// The command that continues the tune of `config`: `tune --resume`, of its shard; for a
/// worker, another worker (this one's own command line).
fn resume_command(config: &TuneConfig) -> String {
    if config.worker.is_some() {
        return format!(
            "bt-arena {}",
            super::shell_words(std::env::args_os().skip(1))
        );
    }
    let shard = config
        .shard
        .map(|shard| format!(" --shard {shard}"))
        .unwrap_or_default();
    format!("bt-arena tune --resume {}{shard}", config.out.display())
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

/// The tune `config` with its engine made ready when it is built from source (`src=`): built
/// (or taken from the cache), its bench signature checked, as a tournament's engines are
/// ([`prepare::prepare`]). `config` itself keeps the source, so a resumed tune builds the
/// same commit.
///
/// # Errors
/// A build, bench or cache that fails.
fn build_engine(
    config: &mut TuneConfig,
    build: &super::args::BuildFlags,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<TuneConfig> {
    let Some(source) = config.engine.source.as_mut() else {
        return Ok(config.clone());
    };
    // Its commit, once (a resumed tune has it from tune.json, and keeps it whatever its
    // branch became); the tune's engine keeps its name.
    if source.commit.is_none() {
        source.resolve().map_err(|error| {
            super::UsageError(format!("engine '{}': {error}", config.engine.name))
        })?;
    }
    let mut played = config.clone();
    let cache = build.cache()?;
    let preparation = Preparation {
        results_dir: config.dir(),
        concurrency: config.concurrency,
        scale_tc: None,
    };
    let engines = std::slice::from_mut(&mut played.engine);
    prepare::prepare(engines, &preparation, Some(&cache), stop, &mut |line| {
        say!("{line}")
    })
    .map_err(super::signals::prepare_error)?;
    Ok(played)
}

/// The start-up line.
fn announce(config: &TuneConfig, plan: TunePlan) {
    let params = bt_arena::records::plural(config.params.len() as u64, "parameter");
    let what = match (plan.finished, config.shard, &config.worker) {
        (done, _, Some(worker)) if done == plan.iterations => {
            say!(
                "Worker {worker}: every iteration of the tune in {} is finished: it plays \
                 nothing",
                config.out.display()
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
        "{what} of {} over {} iterations of {}, {} rules, {} at a time, seed {}; \
         results in {}{}",
        config.engine.cmd.display(),
        config.spsa.iterations,
        bt_arena::records::plural(u64::from(config.spsa.pairs), "game pair"),
        config.rules,
        config.concurrency,
        config.seed,
        config.out.display(),
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

/// The saved tune in `dir` (of its shard `shard`, in `dir/shard-K`, or of the shard whose
/// directory `dir` is), with `--concurrency` and `--log` applied ([`tune::resume`]).
///
/// # Errors
/// A [`super::UsageError`] naming any other flag given, or a shard that is not the saved
/// one; an error naming `dir` when its tune.json cannot be read.
fn resumed_config(
    dir: &Path,
    shard: Option<Shard>,
    args: &TuneArgs,
    given: &ArgMatches,
) -> Result<TuneConfig> {
    let command = TuneArgs::augment_args(clap::Command::new("tune"));
    if let Some(flag) = super::flag_given_outside(&command, given, &RESUME_FLAGS) {
        return Err(super::UsageError(format!(
            "--{flag} cannot be given with --resume: the tune continues exactly as saved in {} \
             (only {} may be given)",
            dir.join(tune::config::TUNE_JSON).display(),
            RESUME_FLAGS[1..]
                .iter()
                .map(|flag| format!("--{flag}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into());
    }
    let dir = std::path::absolute(dir).context("cannot resolve a path")?;
    let config = tune::resume::saved_tune(&dir, shard).map_err(|err| match err.is_usage() {
        true => super::UsageError(err.to_string()).into(),
        false => anyhow!("cannot resume: {err}"),
    })?;
    let config = tune::resume::with_session_settings(config, args.concurrency, args.log);
    config
        .validate()
        .map_err(|e| super::UsageError(format!("--resume: {e}")))?;
    Ok(config)
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
    let event = args
        .event
        .clone()
        .unwrap_or_else(|| "bt-arena-tune".to_string());
    let out = args.out.clone().unwrap_or_else(|| default_out(&event));
    let openings = if args.openings.openings.is_empty() {
        OpeningsSpec {
            file: Some(shipped_book(rules)),
            order: OpeningOrder::Sequential,
            digest: None,
        }
    } else {
        OpeningsSpec::parse(&args.openings.openings)?
    };
    let mut config = TuneConfig {
        out,
        event,
        engine,
        params,
        spsa,
        rules,
        openings,
        seed: args.seed.get_or_draw(),
        concurrency: args.concurrency.unwrap_or(1),
        lag: 1,
        log: args.log,
        pgn_comments: args.pgn_comments.pgn_comments.unwrap_or_default(),
        shard: None,
        worker: None,
        lease_ms: None,
    };
    config.validate().map_err(|e| anyhow!(e))?;
    // The tournament's checks and paths.
    make_engine_paths_absolute(std::slice::from_mut(&mut config.engine))?;
    super::executables::check_commands(std::slice::from_ref(&config.engine))?;
    make_book_path_absolute(&mut config.openings)?;
    config.out = std::path::absolute(&config.out).context("cannot resolve a path")?;
    Ok(config)
}
