//! `bt-arena datagen`: self-play positions for training evaluations (flags as
//! `tournament`'s where they mean the same), and `bt-arena datagen convert`.

use super::args::{BuildFlags, EngineFlags, OpeningsFlag, RulesFlag, RunSeed};
use super::signals::{EXIT_INTERRUPTED, stop_flag};
use super::tournament::{
    DEFAULT_LIMIT, default_out, make_book_path_absolute, make_engine_paths_absolute, shipped_book,
};
use anyhow::{Context, Result, anyhow};
use bt_arena::arena::prepare::{self, Preparation};
use bt_arena::datagen::convert::{self, Sink, Sinks};
use bt_arena::datagen::filters::Filters;
use bt_arena::datagen::formats::games;
use bt_arena::datagen::run::{self as datagen_run, Finish, Plan, ProbeError};
use bt_arena::datagen::{DatagenConfig, GAMES_FILE, RandomMultiPv, RandomPlies, Target};
use bt_arena::game::{Adjudication, ProofRule, ResignRule};
use bt_arena::run::identity::SeedOrigin;
use bt_arena::run_dir::{RunDir, Shard};
use bt_arena::tournament::{OpeningOrder, OpeningsSpec};
use clap::{ArgMatches, Args, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena datagen`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct DatagenArgs {
    #[command(subcommand)]
    command: Option<DatagenCommand>,
    // One engine plays itself; several play each other, every ordered pair in turn.
    #[command(flatten)]
    engines: EngineFlags,
    /// Stop after exactly N positions written, in game-id order.
    #[arg(long, value_name = "N", conflicts_with = "games")]
    positions: Option<u64>,
    /// Stop after N games (of a shard, its own of games 1..N).
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Run directory (default results/bt-arena-datagen-<YYYYMMDD>-<HHMMSS>, UTC).
    ///
    /// It holds games.dat (every game, compact), positions.bin (24-byte records), with --text
    /// positions.txt, summary.json, summary.txt, datagen.json, games.csv and games.pgn.
    #[arg(long, value_name = "DIR", value_parser = super::args::utf8_path())]
    out: Option<PathBuf>,
    #[command(flatten)]
    seed: RunSeed,
    /// Games played at the same time (default 1); the files are the same at any.
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Continue the run in DIR as saved in its datagen.json (only --concurrency, --shard,
    /// --build-cache, --rebuild, --check-claims and --strict may be given with it).
    #[arg(long, value_name = "DIR", conflicts_with = "worker")]
    resume: Option<PathBuf>,
    /// Play one shard of the run into <out>/shard-K/: the games g with (g-1) mod N = K.
    ///
    /// `auto` takes K and N from a Slurm array task, `auto/N` K from a Kubernetes Indexed
    /// Job or a Slurm array task. `bt-arena datagen convert <out>` merges the shards in game
    /// order. Give --games (a shard cannot count the others' positions).
    #[arg(long, value_name = "K/N|auto|auto/N")]
    shard: Option<String>,
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    openings: OpeningsFlag,
    /// Start every game from the start position instead of a book (then its random plies).
    #[arg(long, conflicts_with = "openings")]
    startpos: bool,
    /// Random legal plies from each opening: N, or N-M drawn per game (default 0).
    ///
    /// Drawn from (seed, game id); a draw that ends the game or leaves it won or lost within
    /// 2 plies (by proof) is drawn again. At most 176 (a game has at most 177 plies).
    #[arg(long, value_name = "N[-M]", value_parser = parse_random_plies)]
    random_plies: Option<RandomPlies>,
    /// Now and then play a move among the engine's best lines: K,DIFF,P (default off).
    ///
    /// The engine is told MultiPV K; at each ply, with probability P (drawn from seed, game
    /// id and ply), the move played is drawn uniformly among its lines scored within DIFF
    /// centipawns of its best. The position records the score of the line played. The engine
    /// must declare MultiPV.
    #[arg(long, value_name = "K,DIFF,P", value_parser = parse_random_multipv)]
    random_multipv: Option<RandomMultiPv>,
    #[command(flatten)]
    filters: FilterFlags,
    /// Write positions.txt (`<fen> | <score> | <result>`) besides positions.bin.
    #[arg(long)]
    text: bool,
    /// Resign adjudication (default off): movecount=N,score=CP[,twosided=true] (as
    /// tournament's).
    #[arg(long, value_name = "movecount=N,score=CP", value_parser = parse_resign)]
    resign: Option<ResignRule>,
    /// Proof adjudication (default off): proof=PLIES[,nodes=N] (as tournament's).
    #[arg(long, value_name = "proof=PLIES[,nodes=N]", value_parser = parse_proof)]
    adjudicate: Option<ProofRule>,
    /// Event name, in games.pgn and the default run directory (default bt-arena-datagen).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Log every engine's protocol traffic under <out>/logs/.
    #[arg(long)]
    log: bool,
    #[command(flatten)]
    build: BuildFlags,
    #[command(flatten)]
    checks: super::args::ChecksFlags,
}

/// The filters and labels, of a run and of `convert`.
#[derive(Args, Debug, Clone)]
pub struct FilterFlags {
    /// Drop positions fewer than N plies from the opening (default 0).
    #[arg(long, value_name = "N")]
    min_ply: Option<u16>,
    /// Drop positions scored beyond ±CP, White's view (default: none; mates are beyond any).
    #[arg(long, value_name = "CP")]
    max_score: Option<i64>,
    /// Keep each position with probability P, drawn from (seed, game id, ply) (default 1).
    #[arg(long, value_name = "P")]
    sample: Option<f64>,
    /// Drop positions whose move played captures (NNUE's quiet filter; default off).
    #[arg(long)]
    skip_captures: bool,
    /// Drop positions seen before (approximately, in 8 MiB; default off: repeats are only
    /// counted).
    #[arg(long)]
    dedup: bool,
    /// Label each written position by proof: proof=PLIES[,nodes=N] (PLIES 1 to 63).
    ///
    /// Where the rules prove a win or a loss within PLIES plies (an exact search of at most N
    /// nodes, default 20000), the record's result is the proven one and its flag the distance.
    #[arg(long, value_name = "proof=PLIES[,nodes=N]", value_parser = parse_proof)]
    label: Option<ProofRule>,
}

impl FilterFlags {
    /// The filters given, over `base`.
    ///
    /// # Errors
    /// A [`super::UsageError`] naming the flag.
    fn filters(&self, base: Filters) -> Result<Filters> {
        let max_score = match self.max_score {
            None => base.max_score,
            Some(cp) if cp < 0 => {
                return Err(usage(format!("--max-score {cp}: must not be negative")));
            }
            Some(cp) => Some(i16::try_from(cp).unwrap_or(i16::MAX)),
        };
        if let Some(p) = self.sample
            && !(p > 0.0 && p <= 1.0)
        {
            return Err(usage(format!(
                "--sample {p}: expected a probability in (0, 1]"
            )));
        }
        Ok(Filters {
            min_ply: self.min_ply.unwrap_or(base.min_ply),
            max_score,
            sample: self.sample.unwrap_or(base.sample),
            skip_captures: self.skip_captures || base.skip_captures,
            dedup: self.dedup || base.dedup,
        })
    }
}

/// `bt-arena datagen`'s subcommands.
#[derive(Subcommand, Debug)]
enum DatagenCommand {
    /// Rewrite games files (or run directories, of a sharded run every shard's) as binary
    /// records, text lines or one merged games file, with filters, without running any
    /// engine.
    Convert(ConvertArgs),
}

/// Arguments of `bt-arena datagen convert`.
#[derive(Args, Debug)]
struct ConvertArgs {
    /// Games files (games.dat) or datagen run directories, merged in game-id order.
    ///
    /// A run directory gives its games.dat; a sharded run's directory gives every shard's,
    /// so the positions come out as one machine's run would have written them.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The file to write.
    #[arg(long, value_name = "FILE", required = true)]
    out: PathBuf,
    /// What to write: binary (24-byte records), text or games (one merged games file).
    ///
    /// binary: positions.bin's records (docs/formats/datagen.md); text: `<fen> | <score> |
    /// <result>` lines; games: the games read, as one games file (filters do not apply).
    #[arg(long, value_name = "FORMAT", default_value = "binary",
          value_parser = ["binary", "text", "games"])]
    format: String,
    #[command(flatten)]
    filters: FilterFlags,
    /// Stop after N positions.
    #[arg(long, value_name = "N")]
    positions: Option<u64>,
    /// The seed of --sample's draws (default: the run's, from its datagen.json; else 0).
    ///
    /// Of a run directory, the run's filters, label and --positions are the defaults too;
    /// the flags given override them (--skip-captures and --dedup add to them).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
}

/// A [`super::UsageError`] as an error.
fn usage(text: String) -> anyhow::Error {
    super::UsageError(text).into()
}

fn parse_random_plies(text: &str) -> Result<RandomPlies, String> {
    text.parse()
}

fn parse_random_multipv(text: &str) -> Result<RandomMultiPv, String> {
    text.parse()
}

fn parse_resign(text: &str) -> Result<ResignRule, String> {
    text.parse().map_err(|e| format!("{e}"))
}

fn parse_proof(text: &str) -> Result<ProofRule, String> {
    text.parse().map_err(|e| format!("{e}"))
}

/// Flags `--resume` takes: `--check-claims` and `--strict` are settings of a session (not
/// saved in datagen.json; what was found is in games.csv either way).
const RESUME_FLAGS: [&str; 7] = [
    "resume",
    "concurrency",
    "shard",
    "build-cache",
    "rebuild",
    "check-claims",
    "strict",
];

/// Runs `bt-arena datagen` (or `datagen convert`).
///
/// # Errors
/// A bad flag ([`super::UsageError`]), an engine that cannot start, an unusable run
/// directory.
pub fn run(args: &DatagenArgs, matches: &ArgMatches) -> Result<ExitCode> {
    if let Some(DatagenCommand::Convert(convert)) = &args.command {
        return run_convert(convert);
    }
    let stop = stop_flag()?;
    let matches = matches.subcommand_matches("datagen").unwrap_or(matches);
    let shard = super::args::parse_shard(args.shard.as_deref())?;
    let (mut config, resume, seed) = match &args.resume {
        Some(dir) => (
            resumed_config(dir, shard, args, matches)?,
            true,
            SeedOrigin::Given,
        ),
        None => {
            let config = build_config(args, shard)?;
            config.validate().map_err(usage)?;
            super::executables::check_commands(&config.engines)
                .map_err(|e| usage(format!("{e:#}")))?;
            let seed = match args.seed.seed {
                Some(_) => SeedOrigin::Given,
                None => SeedOrigin::Drawn,
            };
            (config, false, seed)
        }
    };
    // Builds write their logs into the run directory: of a run that never starts (the
    // probe refuses an engine), a directory this process made is removed.
    let made = !config.dir().exists();
    let on_command_line =
        matches.value_source("build_cache") == Some(clap::parser::ValueSource::CommandLine);
    prepare_engines(&mut config, &args.build, on_command_line, &stop)?;
    if !resume && let Err(err) = datagen_run::probe_scores(&config) {
        if made {
            let _ = std::fs::remove_dir_all(config.dir());
            let _ = std::fs::remove_dir(&config.out);
        }
        return Err(match err {
            ProbeError::NoScore(_) | ProbeError::NoMultiPv(_) => usage(err.to_string()),
            other => anyhow!(other),
        });
    }
    let checks = args.checks.claim_checks();
    let report = datagen_run::run(&mut config, resume, seed, checks, &stop, announce)?;
    if let Some(worker) = &config.worker
        && report.played == 0
        && report.finish == Finish::Completed
    {
        say!(
            "Worker {worker} played no game: every game of the run in {} is recorded",
            config.out.display()
        );
    }
    say!("\n{}", report.summary);
    say!("Results: {}", report.dir.display());
    let shard = config
        .shard
        .map(|shard| format!(" --shard {shard}"))
        .unwrap_or_default();
    let resume = match config.worker {
        // Another worker: this one's own command line starts it.
        Some(_) => format!(
            "bt-arena {}",
            super::shell_words(std::env::args_os().skip(1))
        ),
        None => format!("bt-arena datagen --resume {}{shard}", config.out.display()),
    };
    let code = match report.finish {
        Finish::Completed => ExitCode::SUCCESS,
        Finish::Interrupted => {
            note!("Interrupted: continue with `{resume}`");
            // An interrupted run's exit code stands, --strict or not.
            return Ok(EXIT_INTERRUPTED.into());
        }
        Finish::NotPlayed => {
            note!("error: games could not be played: continue with `{resume}`");
            super::EXIT_ERROR.into()
        }
    };
    Ok(super::checks_failed(args.checks.strict, &report.failures).unwrap_or(code))
}

/// The start-up lines.
fn announce(config: &DatagenConfig, plan: &Plan) {
    for repair in &plan.repaired {
        note!("warning: {repair}");
    }
    let target = match config.target {
        Target::Games(n) => bt_arena::records::plural(n, "game"),
        Target::Positions(n) => bt_arena::records::plural(n, "position"),
    };
    let what = match (plan.recorded, config.shard) {
        (_, None) if config.worker.is_some() => format!(
            "Worker {}: claiming the games of a run of {target}",
            config.worker.as_deref().unwrap_or_default()
        ),
        (0, None) => format!("Generating {target}"),
        (done, None) => format!("Resuming {target} ({done} games recorded)"),
        (done, Some(shard)) => format!("Shard {shard}: {target} ({done} games recorded)"),
    };
    let engines: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
    say!(
        "{what}: {}, {} rules, {} at a time, seed {}; results in {}{}",
        engines.join(", "),
        config.rules,
        config.concurrency,
        config.seed,
        config.out.display(),
        super::executables::located_commands(&config.engines)
    );
}

/// Makes the engines of `config` built from source (`src=`) ready, as a tournament's
/// ([`prepare::prepare`]): built (or found in the build cache), their bench signature
/// recorded, or checked against the one the run recorded. Other engines are left as they
/// are (but one pinned with `bench=N` is benched). The cache is the run's (a resumed run
/// builds into the one it was started with) unless `--build-cache` is given
/// (`on_command_line`), and is recorded in `config`.
///
/// # Errors
/// A build, bench or cache that fails, naming the engine.
fn prepare_engines(
    config: &mut DatagenConfig,
    build: &BuildFlags,
    on_command_line: bool,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<()> {
    if !config
        .engines
        .iter()
        .any(|e| e.source.is_some() || e.bench.is_some())
    {
        return Ok(());
    }
    let cache = match config.engines.iter().any(|e| e.source.is_some()) {
        true => {
            let cache = build.cache_of_run(config.build_cache.as_deref(), on_command_line)?;
            config.build_cache = Some(cache.root().to_path_buf());
            Some(cache)
        }
        false => None,
    };
    let preparation = Preparation {
        results_dir: config.dir(),
        concurrency: config.concurrency,
        scale_tc: None,
    };
    prepare::prepare(
        &mut config.engines,
        &preparation,
        cache.as_ref(),
        stop,
        &mut |line| say!("{line}"),
    )
    .map_err(super::signals::prepare_error)?;
    Ok(())
}

/// The run the flags describe.
fn build_config(args: &DatagenArgs, shard: Option<Shard>) -> Result<DatagenConfig> {
    let mut engines = args.engines.descriptions(DEFAULT_LIMIT)?;
    make_engine_paths_absolute(&mut engines)?;
    let target = match (args.positions, args.games) {
        (Some(n), None) => Target::Positions(n),
        (None, Some(n)) => Target::Games(n),
        _ => return Err(usage("give --positions N or --games N".to_string())),
    };
    let rules = args.rules.get();
    let openings = match (args.startpos, args.openings.openings.is_empty()) {
        (true, _) => OpeningsSpec::default(),
        (false, true) => OpeningsSpec {
            file: Some(shipped_book(rules)),
            order: OpeningOrder::Sequential,
            digest: None,
        },
        (false, false) => OpeningsSpec::parse(&args.openings.openings)
            .map_err(|e| usage(format!("--openings: {e}")))?,
    };
    let mut openings = openings;
    make_book_path_absolute(&mut openings)?;
    let event = args
        .event
        .clone()
        .unwrap_or_else(|| "bt-arena-datagen".to_string());
    let worker = args
        .workers
        .worker(args.out.is_some())
        .map_err(|e| usage(format!("{e:#}")))?;
    let out = args.out.clone().unwrap_or_else(|| default_out(&event));
    let out = std::path::absolute(&out).context("cannot resolve a path")?;
    // Each engine built from source gets its commit once, here (a shard or a worker joining a
    // run adopts the run's): --resume and the later shards and workers never resolve `rev=`
    // again.
    let joining = (shard.is_some() || worker.is_some()).then_some(out.as_path());
    for warning in
        prepare::resolve_sources(&mut engines, joining).map_err(|e| usage(e.to_string()))?
    {
        note!("warning: {warning}");
    }
    Ok(DatagenConfig {
        event,
        engines,
        rules,
        openings,
        target,
        random_plies: args.random_plies,
        random_multipv: args.random_multipv,
        filters: args.filters.filters(Filters::default())?,
        label: args.filters.label,
        adjudication: Adjudication {
            resign: args.resign,
            proof: args.adjudicate,
        },
        seed: args.seed.get_or_draw(),
        concurrency: args.concurrency.unwrap_or(1),
        out,
        text: args.text,
        log: args.log,
        build_cache: None,
        shard,
        run_id: None,
        worker: None,
        lease_ms: None,
    })
    .map(|mut config| {
        if let Some((worker, lease_ms)) = worker {
            config.worker = Some(worker);
            config.lease_ms = Some(lease_ms);
        }
        config
    })
}

/// The saved run in `dir` (of its shard, in `dir/shard-K`), with `--concurrency` applied.
fn resumed_config(
    dir: &Path,
    shard: Option<Shard>,
    args: &DatagenArgs,
    given: &ArgMatches,
) -> Result<DatagenConfig> {
    let command = DatagenArgs::augment_args(clap::Command::new("datagen"));
    if let Some(flag) = super::flag_given_outside(&command, given, &RESUME_FLAGS) {
        return Err(usage(format!(
            "--{flag} cannot be given with --resume: the run continues as saved in {} (only \
             --concurrency, --shard, --build-cache and --rebuild may be given)",
            dir.join(bt_arena::run_dir::DATAGEN_JSON).display()
        )));
    }
    let dir = std::path::absolute(dir).context("cannot resolve a path")?;
    let saved = match shard {
        Some(shard) => RunDir::new(&dir).shard(shard.index()).root().to_path_buf(),
        None => dir.clone(),
    };
    let mut config = DatagenConfig::read(&saved).map_err(|e| anyhow!("cannot resume: {e}"))?;
    if config.shard != shard {
        return Err(usage(format!(
            "--resume {}: --shard is {}, but the run was saved with {}",
            dir.display(),
            shard.map_or("not given".to_string(), |s| s.to_string()),
            config.shard.map_or("none".to_string(), |s| s.to_string())
        )));
    }
    config.out = dir;
    config.concurrency = args.concurrency.unwrap_or(config.concurrency);
    config
        .validate()
        .map_err(|e| usage(format!("--resume: {e}")))?;
    Ok(config)
}

/// The games files of `input`: itself, every worker's of a run of workers, a run directory's
/// games.dat, or every shard's.
fn games_files(input: &Path) -> Result<Vec<PathBuf>> {
    if !input.is_dir() {
        return Ok(vec![input.to_path_buf()]);
    }
    if let Some(files) = bt_arena::datagen::workers::games_files(input)? {
        return Ok(files);
    }
    let own = input.join(GAMES_FILE);
    if own.exists() {
        return Ok(vec![own]);
    }
    let shards = RunDir::new(input).shard_dirs()?;
    if shards.is_empty() {
        return Err(anyhow!(
            "{}: no {GAMES_FILE}, and no shard directories",
            input.display()
        ));
    }
    Ok(shards
        .iter()
        .map(|(_, dir)| dir.root().join(GAMES_FILE))
        .filter(|file| file.exists())
        .collect())
}

/// The settings of the first run directory among `inputs` (shard 0's when sharded), if any.
fn run_config(inputs: &[PathBuf]) -> Option<DatagenConfig> {
    let dir = inputs.iter().find(|input| input.is_dir())?;
    DatagenConfig::read(dir).ok().or_else(|| {
        let shards = RunDir::new(dir).shard_dirs().ok()?;
        let first = match shards.first() {
            Some((_, shard)) => shard.clone(),
            None => RunDir::new(dir).worker_dirs().ok()?.into_iter().next()?,
        };
        DatagenConfig::read(first.root()).ok()
    })
}

/// Runs `bt-arena datagen convert`: a run directory's own filters, label, seed and
/// `--positions` are the defaults, which the flags given override (or add to).
fn run_convert(args: &ConvertArgs) -> Result<ExitCode> {
    let base = run_config(&args.inputs)
        .map(|config| config.convert_settings())
        .unwrap_or(convert::Settings {
            filters: Filters::default(),
            seed: 0,
            label: None,
            limit: None,
        });
    let settings = convert::Settings {
        filters: args.filters.filters(base.filters)?,
        seed: args.seed.unwrap_or(base.seed),
        label: args.filters.label.or(base.label),
        limit: args.positions.or(base.limit),
    };
    let mut files = Vec::new();
    for input in &args.inputs {
        files.extend(games_files(input)?);
    }
    let (rules, games) = convert::merged(&files)?;
    let mut sinks = Sinks::default();
    match args.format.as_str() {
        "binary" => sinks.binary = Some(Sink::create(&args.out)?),
        "text" => sinks.text = Some(Sink::create(&args.out)?),
        _ => sinks.games = Some((args.out.clone(), games::create(&args.out, rules)?)),
    }
    let summary = convert::convert(games, rules, &settings, &mut sinks)?;
    sinks.finish()?;
    say!("{summary}");
    say!("Written: {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
