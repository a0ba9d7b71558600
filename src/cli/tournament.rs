//! `bt-arena tournament`: command-line flags (cutechess-cli / fastchess conventions) and the
//! report.

use super::args::{
    AnchorFlag, BuildFlags, EngineFlags, OpeningsFlag, PgnCommentsFlag, RulesFlag, RunSeed,
    SprtFlag, named,
};
use super::signals::{EXIT_INTERRUPTED, prepare_error, stop_flag};
use anyhow::{Context, Result, anyhow, bail};
use bt_arena::game::{ProofRule, ResignRule};
use bt_arena::rules::Rules;
use bt_arena::run_dir::RunDir;
use bt_arena::tournament::prepare;
use bt_arena::tournament::resume::{self, RESUME_FLAGS};
use bt_arena::tournament::runner::Start;
use bt_arena::tournament::{
    self, Finish, Format, OpeningOrder, OpeningsSpec, Plan, SeedOrigin, Shard, TournamentConfig,
};
use clap::{ArgMatches, Args};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `bt-arena tournament`.
#[derive(Args, Debug)]
pub struct TournamentArgs {
    // The engines (--engine, repeated) and the keys they share (--each): see the command's
    // long help (main.rs) for the demonstration played without them.
    #[command(flatten)]
    engines: EngineFlags,
    /// Who meets whom: roundrobin or gauntlet (default roundrobin).
    ///
    /// In a round-robin everyone meets everyone; in a gauntlet the first engine meets each
    /// other one, and the others do not meet.
    #[arg(long, value_name = "FORMAT", value_parser = named::<Format>())]
    format: Option<Format>,
    #[command(flatten)]
    openings: OpeningsFlag,
    /// Rounds; each plays --games games per pairing (default 1).
    #[arg(long, value_name = "N")]
    rounds: Option<u32>,
    /// Games per pairing per round (default 2: one game pair).
    ///
    /// A game pair is two games from the same opening, colours swapped.
    #[arg(long, value_name = "N")]
    games: Option<u32>,
    /// Games played at the same time (default 1).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    seed: RunSeed,
    #[command(flatten)]
    sprt: SprtFlag,
    /// Resign adjudication (default off): movecount=N,score=CP[,twosided=true].
    ///
    /// As cutechess-cli and fastchess: a side loses once its engine reported a score of -CP or
    /// worse for N moves of its own in a row (with twosided=true, the opponent's +CP or better
    /// over the same moves too); mate scores count, moves without a score break the run. One
    /// word, comma-separated, or one quoted string with spaces.
    #[arg(long, value_name = "movecount=N,score=CP", value_parser = parse_resign)]
    resign: Option<ResignRule>,
    /// Proof adjudication (default off): proof=PLIES[,nodes=N].
    ///
    /// After every move, end the game when the rules prove that the side to move wins, or is
    /// lost, within PLIES plies (an exact search of at most N nodes a move, default 20000; past
    /// it the game goes on). One word, comma-separated, or one quoted string with spaces.
    #[arg(long, value_name = "proof=PLIES[,nodes=N]", value_parser = parse_proof)]
    adjudicate: Option<ProofRule>,
    /// Results directory (default results/<event>-<YYYYMMDD>-<HHMMSS>).
    ///
    /// The time is UTC; `-2`, `-3`, ... follow it for a second run started in the same second.
    /// It holds games.csv, games.pgn, config.json, summary.json and report.html.
    #[arg(long, value_name = "DIR", value_parser = super::args::utf8_path())]
    out: Option<PathBuf>,
    /// Continue the interrupted run in DIR as saved in its config.json.
    ///
    /// Of a sharded run, shard --shard K/N's, in DIR/shard-K. Only --concurrency, --log,
    /// --shard, --max-time, --build-cache, --rebuild, --rating-interval, --anchor,
    /// --check-claims, --strict and --affinity may be given with it (they cannot change the
    /// games). The run's build cache is the one it was
    /// started with, unless --build-cache is given.
    #[arg(long, value_name = "DIR")]
    resume: Option<PathBuf>,
    /// Read the tournament from a TOML or JSON file; flags given too override it.
    ///
    /// The file has the fields of a run's config.json (`bt-arena generate man` writes their
    /// page, bt-arena-config(5)).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Event name, in the PGN Event tag and the results directory's name (default bt-arena).
    ///
    /// The demonstration's is bt-arena-demo.
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Log every engine's protocol traffic under <out>/logs/.
    #[arg(long)]
    log: bool,
    /// Play one shard of the tournament, into <out>/shard-K/ (`bt-arena merge <out>` joins
    /// them).
    ///
    /// K/N plays the game pairs p with (p-1) mod N = K (K from 0); `auto` takes K and N from a
    /// Slurm array task (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT), `auto/N` takes K from a
    /// Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or a Slurm array task.
    #[arg(long, value_name = "K/N|auto|auto/N")]
    shard: Option<String>,
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    #[command(flatten)]
    pgn_comments: PgnCommentsFlag,
    #[command(flatten)]
    build: BuildFlags,
    /// Scale the clocks by this machine's speed (default: no scaling).
    ///
    /// Both engines' clocks are multiplied by REFERENCE_NPS / the speed of the base (last)
    /// engine's bench on this machine, run as many times at once as --concurrency (OpenBench's
    /// scaling).
    #[arg(long, value_name = "REFERENCE_NPS", value_parser = clap::value_parser!(u64).range(1..))]
    scale_tc: Option<u64>,
    /// Start no new game pair after this long, e.g. 45m, 2h, 90s (default: no limit).
    ///
    /// Counted from the start, builds included. A run stopped there without an SPRT decision
    /// exits with 2.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    max_time: Option<Duration>,
    /// Print a line per pair every N games when stdout is not a terminal (0: none)
    ///
    /// On a CI log or in a file, every N recorded games one line per pair of engines gives the
    /// games so far, the Elo with its 95% interval and, with --sprt, the LLR and its bounds (as
    /// cutechess's score lines, at fastchess's -ratinginterval); the full report comes once, at
    /// the end. On a terminal the progress line shows the score instead.
    #[arg(long, value_name = "N", default_value_t = 10)]
    rating_interval: u64,
    #[command(flatten)]
    anchor: AnchorFlag,
    #[command(flatten)]
    checks: super::args::ChecksFlags,
    /// Pin each game's engines to CPUs of their own (all, or a list such as 0-3,6).
    ///
    /// Each game played at once gets 2 x option.Threads CPUs of the list in turn (1 thread
    /// when not given), half for each engine, set before the engine starts (its threads
    /// inherit them). A list too short for --concurrency is refused (as fastchess's
    /// -use-affinity). Linux only.
    #[arg(long, value_name = "CPUS", num_args = 0..=1, default_missing_value = "all",
          value_parser = parse_cpus)]
    affinity: Option<CpuList>,
}

/// `--affinity`'s CPUs, in the order given.
#[derive(Clone, Debug)]
struct CpuList(Vec<usize>);

/// An `--affinity` list, with the error of its parser.
fn parse_cpus(text: &str) -> Result<CpuList, String> {
    bt_arena::arena::parse_cpu_list(text).map(CpuList)
}

/// A `--resign` rule, with the error of its parser.
fn parse_resign(text: &str) -> Result<ResignRule, String> {
    text.parse().map_err(|e| format!("{e}"))
}

/// An `--adjudicate` rule, with the error of its parser.
fn parse_proof(text: &str) -> Result<ProofRule, String> {
    text.parse().map_err(|e| format!("{e}"))
}

/// The matches of the `tournament` subcommand.
fn tournament_matches(matches: &ArgMatches) -> &ArgMatches {
    matches.subcommand_matches("tournament").unwrap_or(matches)
}

/// Runs `bt-arena tournament`.
///
/// # Errors
/// A bad flag or config, an unusable book or results directory.
pub fn run(args: &TournamentArgs, matches: &ArgMatches) -> Result<ExitCode> {
    let started = Instant::now();
    // Before anything is built: a build is a child a signal stops.
    let stop = stop_flag()?;
    let (mut config, start) = match &args.resume {
        Some(dir) => (resumed_config(dir, args, matches)?, Start::Resume),
        None => {
            let (mut base, file_seed) = match &args.config {
                Some(path) => TournamentConfig::read_with_seed(path)?,
                None => (default_config()?, SeedOrigin::Drawn),
            };
            // A run's config.json used as a template starts a run of its own.
            base.run_id = None;
            let seed = match (args.seed.seed, file_seed) {
                (Some(_), _) | (None, SeedOrigin::Given) => SeedOrigin::Given,
                (None, SeedOrigin::Drawn) => SeedOrigin::Drawn,
            };
            let config =
                build_config(base, args).map_err(|e| super::UsageError(format!("{e:#}")))?;
            (config, Start::Fresh(seed))
        }
    };
    config.session.deadline = args.max_time.map(|limit| started + limit);
    config.session.rating_interval = args.rating_interval;
    config.session.claim_checks = args.checks.claim_checks();
    if let Some(CpuList(list)) = &args.affinity {
        let threads = bt_arena::arena::engine_threads(&config.engines);
        bt_arena::arena::check_affinity(list, config.concurrency, threads)
            .map_err(super::UsageError)?;
        config.session.affinity = Some(list.clone());
    }
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    config.session.anchor = args.anchor.resolve(&names)?;
    let cache = match config.engines.iter().any(|e| e.source.is_some()) {
        true => {
            // A resumed run builds into the cache it was started with, unless told otherwise.
            let on_command_line = tournament_matches(matches).value_source("build_cache")
                == Some(clap::parser::ValueSource::CommandLine);
            let cache = args
                .build
                .cache_of_run(config.build_cache.as_deref(), on_command_line)?;
            config.build_cache = Some(cache.root().to_path_buf());
            Some(cache)
        }
        false => None,
    };
    prepare::prepare(&mut config, cache.as_ref(), &stop, &mut |line| {
        say!("{line}")
    })
    .map_err(|err| match err {
        // The reference speed given does not fit this machine: a bad command line.
        prepare::PrepareError::ScaledBelowFloor { .. } => {
            anyhow!(super::UsageError(err.to_string()))
        }
        err => prepare_error(err),
    })?;
    let report = tournament::run(&mut config, start, &stop, announce)?;
    if config.worker.is_some() {
        merge_workers(&config.out);
    }
    say!("\n{}", report.summary);
    super::print_recorded(&report.sources.recorded_verdict(&report.summary));
    report_unplayed(&config, &report);
    match config.worker {
        // The run's files, merged from every worker's games as this one ended, name the
        // whole run; its own directory holds only the games it played.
        Some(_) => say!(
            "Results: {} (the whole run's games.csv, games.pgn, summary.json and report.html, \
             every worker's games recorded so far; this worker's own games in {})",
            config.out.display(),
            config.results_dir().display()
        ),
        None => say!("Results: {}", config.results_dir().display()),
    }
    let code = exit_code(&config, &report);
    let failures = match report.finish {
        // An interrupted run's exit code stands.
        Finish::Interrupted => Vec::new(),
        _ => report.summary.behaviour_failures(),
    };
    Ok(super::checks_failed(args.checks.strict, &failures).unwrap_or(code))
}

/// A worker ending rewrites its run's merged result (games.csv, games.pgn, summary.json,
/// report.html in RUN, each replaced whole, as `bt-arena merge RUN` writes them), so that the
/// run's files are current whichever worker ends last; a failure is a warning (the workers'
/// own files hold every game).
fn merge_workers(run: &Path) {
    let merged = bt_arena::run::merge::MergedRun::open(&[run]).and_then(|merged| merged.write(run));
    if let Err(err) = merged {
        note!(
            "warning: the run's merged files in {} were not rewritten: {err}; `bt-arena merge {0}` writes them",
            run.display()
        );
    }
}

/// The start-up lines: what was repaired, what is played, where the results go, the seed
/// and the openings.
fn announce(config: &TournamentConfig, plan: Plan) {
    for repair in &plan.repaired {
        note!("warning: {repair}");
    }
    let games = match plan.recorded {
        0 => format!(
            "Playing {}",
            bt_arena::records::plural(plan.scheduled as u64, "game")
        ),
        recorded => format!(
            "Resuming {} of {} games ({recorded} recorded)",
            plan.scheduled - recorded,
            plan.scheduled
        ),
    };
    let games = match (config.shard, &config.worker) {
        (Some(shard), _) => format!("Shard {shard}: {games}"),
        (None, Some(worker)) => format!(
            "Worker {worker}: claiming game pairs of a run of {}",
            bt_arena::records::plural(plan.scheduled as u64, "game")
        ),
        (None, None) => games,
    };
    say!(
        "{games}: {} engines, {}, {} rules, {} at a time; results in {}{}",
        config.engines.len(),
        bt_arena::records::plural(u64::from(config.rounds), "round"),
        config.rules,
        // No more games at once than there are games to play.
        config
            .concurrency
            .min((plan.scheduled - plan.recorded).max(1)),
        config.results_dir().display(),
        super::executables::located_commands(&config.engines)
    );
    say!(
        "Seed: {} (run {})",
        config.seed,
        config.run_id.as_deref().unwrap_or("without an id")
    );
    print_openings(&config.openings);
    let adjudication = &config.adjudication;
    if !adjudication.is_off() {
        let rules: Vec<String> = [
            adjudication
                .proof
                .map(|rule| format!("--adjudicate {rule}")),
            adjudication.resign.map(|rule| format!("--resign {rule}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        say!("Adjudication: {}", rules.join(", "));
    }
}

/// Says on stderr which games were not played: one error per engine given up, and a warning
/// for games left by start failures that passed.
fn report_unplayed(config: &TournamentConfig, report: &tournament::RunReport) {
    let resume = resume_command(config);
    for given_up in &report.given_up {
        let games = report
            .not_played
            .iter()
            .filter(|game| game.engine == given_up.engine)
            .count();
        let because = if given_up.recurs {
            "This fails at every start".to_string()
        } else {
            format!("{} failed starts in a row", given_up.failures)
        };
        note!(
            "error: {}. {because}, so its {games} games were not played: fix it, then continue with `{resume}`",
            given_up.error
        );
    }
    let others: Vec<&tournament::NotPlayed> = report
        .not_played
        .iter()
        .filter(|game| report.given_up.iter().all(|g| g.engine != game.engine))
        .collect();
    if let Some(first) = others.first() {
        note!(
            "warning: {} games were not played (`{resume}` plays them); the first because {}",
            others.len(),
            first.why
        );
    }
}

/// Names the book the games start from, or the start position.
/// Prints which opening book the run uses, and in which order.
fn print_openings(openings: &OpeningsSpec) {
    let order = match openings.order {
        OpeningOrder::Sequential => "sequential",
        OpeningOrder::Random => "random",
    };
    match &openings.file {
        Some(book) if bt_arena::openings::shipped_text(book).is_some() => {
            say!("Openings: {} (built in, {order} order)", book.display())
        }
        Some(book) => say!("Openings: {} ({order} order)", book.display()),
        None => say!("Openings: the start position"),
    }
}

/// The exit code of a finished run (see README.md): the run's verdict as every command
/// reading it gives it ([`super::conclude`]: with --sprt 0 H1, 1 H0, 2 no decision; 5 when
/// games of the run are missing, e.g. other shards not done); 4 when games could not be
/// played; 130 after Ctrl-C.
fn exit_code(config: &TournamentConfig, report: &tournament::RunReport) -> ExitCode {
    match report.finish {
        Finish::Interrupted if config.worker.is_some() => {
            note!(
                "Interrupted: the pairs this worker was playing were let go (their games \
                 recorded are kept); any worker of the run plays the rest, e.g. `{}`",
                resume_command(config)
            );
            EXIT_INTERRUPTED.into()
        }
        Finish::Interrupted => {
            note!("Interrupted: continue with `{}`", resume_command(config));
            EXIT_INTERRUPTED.into()
        }
        Finish::TimeLimit => {
            let decision = match config.sprt {
                Some(_) => "no SPRT decision; ",
                None => "",
            };
            note!(
                "Time limit reached (--max-time): no new game pair started after it; {} \
                 recorded; {decision}continue with `{}`",
                bt_arena::records::plural(report.summary.games, "game"),
                resume_command(config)
            );
            super::EXIT_INCONCLUSIVE.into()
        }
        Finish::Completed if !report.not_played.is_empty() => super::EXIT_ERROR.into(),
        _ => super::conclude(&report.sources, &report.reading, report.verdict, true),
    }
}

/// The command that continues the run of `config`.
fn resume_command(config: &TournamentConfig) -> String {
    if config.worker.is_some() {
        // Another worker: this one's own command line starts it.
        return format!(
            "bt-arena {}",
            super::shell_words(std::env::args_os().skip(1))
        );
    }
    match config.shard {
        Some(shard) => format!(
            "bt-arena tournament --resume {} --shard {shard}",
            config.out.display()
        ),
        None => format!("bt-arena tournament --resume {}", config.out.display()),
    }
}

pub(super) use bt_arena::tournament::config::DEFAULT_LIMIT;

/// The saved config of the run in `dir` (of its shard `--shard K/N`, in `dir/shard-K`; `dir`
/// may also be a shard's directory), writing to `dir` wherever the run was first started,
/// with `--concurrency` and `--log` applied (and saved with it by the run).
///
/// # Errors
/// A [`super::UsageError`] naming any other flag given, a bad `--concurrency` or `--shard`,
/// a `--shard` that is not the saved one, or a sharded run resumed without `--shard`; an
/// error naming `dir` when its config cannot be read.
fn resumed_config(
    dir: &Path,
    args: &TournamentArgs,
    matches: &ArgMatches,
) -> Result<TournamentConfig> {
    let given = tournament_matches(matches);
    let command = TournamentArgs::augment_args(clap::Command::new("tournament"));
    if let Some(flag) = super::flag_given_outside(&command, given, &RESUME_FLAGS) {
        let allowed: Vec<String> = RESUME_FLAGS[1..].iter().map(|f| format!("--{f}")).collect();
        return Err(super::UsageError(format!(
            "--{flag} cannot be given with --resume: the run continues exactly as saved in {}, \
             so that every game belongs to one tournament (only {} may be given)",
            parse_shard(args)?
                .map_or_else(|| RunDir::new(dir), |s| RunDir::new(dir).shard(s.index()))
                .config_json()
                .display(),
            allowed.join(", "),
        ))
        .into());
    }
    let dir = std::path::absolute(dir).context("cannot resolve a path")?;
    let config = resume::saved_run(&dir, parse_shard(args)?).map_err(|e| {
        if e.is_usage() {
            anyhow::Error::from(super::UsageError(e.to_string()))
        } else {
            anyhow!(e)
        }
    })?;
    let mut config = resume::with_session_settings(config, args.concurrency, args.log);
    // Saved commits are kept; only a source saved without one (a hand-written config) is
    // resolved now.
    for warning in prepare::resolve_sources(&mut config)? {
        note!("warning: {warning}");
    }
    config
        .validate()
        .map_err(|e| super::UsageError(format!("--resume {}: {e}", dir.display())))?;
    Ok(config)
}

/// `base` (a config file or the demonstration) overridden by the flags, with every path made
/// absolute so that `--resume` works from any directory.
fn build_config(mut config: TournamentConfig, args: &TournamentArgs) -> Result<TournamentConfig> {
    let engines = &args.engines;
    if !engines.engine.is_empty() {
        config.engines = engines.descriptions(DEFAULT_LIMIT)?;
        config.rounds = 1;
        config.concurrency = 1;
        config.event = "bt-arena".to_string();
    } else if !engines.each.is_empty() {
        bail!("--each needs engines given with --engine");
    }
    override_settings(&mut config, args)?;
    for warning in prepare::resolve_sources(&mut config)? {
        note!("warning: {warning}");
    }
    config.validate()?;
    make_paths_absolute(&mut config)?;
    super::executables::check_commands(&config.engines)?;
    Ok(config)
}

/// The value of `--shard`, resolved (`auto` from the environment).
///
/// # Errors
/// A [`super::UsageError`] naming the value or the variable at fault.
fn parse_shard(args: &TournamentArgs) -> Result<Option<Shard>> {
    args.shard
        .as_deref()
        .map(|text| Shard::from_arg(text, |name| std::env::var(name).ok()))
        .transpose()
        .map_err(|e| {
            let text = args.shard.as_deref().unwrap_or_default();
            super::UsageError(format!("--shard {text}: {e}")).into()
        })
}

fn override_settings(config: &mut TournamentConfig, args: &TournamentArgs) -> Result<()> {
    if let Some(event) = &args.event {
        config.event = event.clone();
    }
    config.format = args.format.unwrap_or(config.format);
    config.rules = args.rules.rules.unwrap_or(config.rules);
    config.rounds = args.rounds.unwrap_or(config.rounds);
    config.games = args.games.unwrap_or(config.games);
    config.concurrency = args.concurrency.unwrap_or(config.concurrency);
    config.seed = args.seed.seed.unwrap_or(config.seed);
    config.log |= args.log;
    config.pgn_comments = args
        .pgn_comments
        .pgn_comments
        .unwrap_or(config.pgn_comments);
    config.scale_tc = args.scale_tc.or(config.scale_tc);
    if !args.openings.openings.is_empty() {
        config.openings = OpeningsSpec::parse(&args.openings.openings)?;
        // `--openings order=random` alone shuffles the default book.
        if config.openings.file.is_none() {
            config.openings.file = Some(shipped_book(config.rules));
        }
    }
    config.sprt = args.sprt.sprt.or(config.sprt);
    config.adjudication.resign = args.resign.or(config.adjudication.resign);
    config.adjudication.proof = args.adjudicate.or(config.adjudication.proof);
    config.shard = parse_shard(args)?.or(config.shard);
    if let Some((worker, lease_ms)) = args.workers.worker(args.out.is_some())? {
        config.worker = Some(worker);
        config.lease_ms = Some(lease_ms);
    }
    config.out = match &args.out {
        Some(out) => out.clone(),
        None if args.config.is_some() && !config.out.as_os_str().is_empty() => config.out.clone(),
        None => default_out(&config.event),
    };
    if args.openings.openings.is_empty() && args.config.is_none() {
        config.openings.file = Some(shipped_book(config.rules));
    }
    Ok(())
}

/// Engine commands given as paths (not bare names looked up in PATH), engine directories, the
/// book and the results directory, relative to the directory bt-arena runs in.
pub(super) fn make_paths_absolute(config: &mut TournamentConfig) -> Result<()> {
    make_engine_paths_absolute(&mut config.engines)?;
    make_book_path_absolute(&mut config.openings)?;
    config.out = absolute(&config.out)?;
    Ok(())
}

/// `path` made absolute (against the working directory).
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).context("cannot resolve a path")
}

/// Each engine's command (when given as a path), directory and source repository made
/// absolute, so that they mean the same from the run directory and on `--resume`.
pub(super) fn make_engine_paths_absolute(
    engines: &mut [bt_arena::engine::EngineDescription],
) -> Result<()> {
    for engine in engines {
        if let Some(source) = engine.source.as_mut() {
            source.repo = bt_arena::engine::source::absolute_repo(&source.repo)
                .context("cannot resolve a path")?;
        } else if engine.cmd.components().count() > 1 {
            engine.cmd = absolute(&engine.cmd)?;
        }
        if let Some(dir) = &engine.dir {
            engine.dir = Some(absolute(dir)?);
        }
    }
    Ok(())
}

/// The opening book's path made absolute, unless it is a shipped book.
pub(super) fn make_book_path_absolute(openings: &mut OpeningsSpec) -> Result<()> {
    if let Some(book) = openings.file.as_ref()
        && bt_arena::openings::shipped_text(book).is_none()
    {
        openings.file = Some(absolute(book)?);
    }
    Ok(())
}

/// The shipped opening book of `rules`: `openings/<rules>.epd` of the working directory when it
/// has one (a clone of the repository), else the same book built into bt-arena, named
/// `shipped:<rules>.epd` ([`bt_arena::openings::shipped_book_name`]). Either way the same
/// positions, the same digest.
pub(super) fn shipped_book(rules: Rules) -> PathBuf {
    let path = PathBuf::from(format!("openings/{}.epd", rules.name()));
    match path.exists() {
        true => path,
        false => bt_arena::openings::shipped_book_name(rules),
    }
}

/// `results/<event>-<YYYYMMDD-HHMMSS>` (UTC), or with `-2`, `-3`, ... after it when a run
/// started in the same second already has that directory.
pub(super) fn default_out(event: &str) -> PathBuf {
    let stamp: String = bt_arena::records::now_rfc3339()
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .take(15)
        .collect::<String>()
        .replace('T', "-");
    let base = format!("{event}-{stamp}");
    (1..)
        .map(|n| match n {
            1 => PathBuf::from("results").join(&base),
            n => PathBuf::from("results").join(format!("{base}-{n}")),
        })
        .find(|dir| !dir.exists())
        .unwrap_or_default()
}

/// The demonstration played when no engine is given: three settings of bt-search, found
/// beside this executable ([`TournamentConfig::demonstration`]).
fn default_config() -> Result<TournamentConfig> {
    let exe = std::env::current_exe().context("cannot locate the bt-arena executable")?;
    TournamentConfig::demonstration(exe.parent().unwrap_or(Path::new(".")), fastrand::u64(..))
        .map_err(|e| anyhow!(e))
}
