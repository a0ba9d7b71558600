//! `bt-arena select`: the best of several candidates against a base, with the error rates
//! stated (docs/guide/select.md); flags as `tournament`'s where they mean the same.

use super::args::{EngineFlags, OpeningsFlag, PgnCommentsFlag, RulesFlag, RunSeed};
use super::session::SessionFlags;
use super::signals::{EXIT_INTERRUPTED, stop_flag};
use super::tournament::{
    DEFAULT_LIMIT, default_book, default_out, make_book_path_absolute, make_engine_paths_absolute,
    shipped_book_of,
};
use super::{EXIT_INCOMPLETE, UsageError};
use anyhow::{Context, Result, anyhow};
use bt_arena::arena::Stopped;
use bt_arena::openings::spec::{OpeningOrder, OpeningsSpec};
use bt_arena::run::header::RunHeader;
use bt_arena::run::identity::{Identified, SeedOrigin};
use bt_arena::select::report::Status;
use bt_arena::select::{Select, SelectConfig};
use bt_arena::session::{Announcement, RunStart};
use clap::{ArgMatches, Args};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena select`.
#[derive(Args, Debug)]
pub struct SelectArgs {
    // The base and the candidates (--engine, repeated; --each gives the keys they share).
    #[command(flatten)]
    engines: EngineFlags,
    /// The engine the candidates are measured against (its name=); not a candidate.
    #[arg(long, value_name = "NAME")]
    base: Option<String>,
    /// The smallest difference worth telling apart, logistic Elo (default 5).
    ///
    /// Whenever the best candidate is at least this much better than the second, it is
    /// chosen with probability at least --confidence. Each candidate's test against the base
    /// is the SPRT elo0=0, elo1=this.
    #[arg(long, value_name = "ELO", allow_negative_numbers = true)]
    indifference: Option<f64>,
    /// The probability of choosing the best, strictly between 0 and 1 (default 0.95).
    ///
    /// 1 - this is also the chance of saying that a candidate beats the base when it does
    /// not, and that one at least --indifference better does not.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    confidence: Option<f64>,
    /// Stop at this many games at most (default: none).
    ///
    /// No round starts that would pass it; the selection then says what it knows (who
    /// leads, with no guarantee) and exits with 2. At least one round: a game pair for each
    /// candidate.
    #[arg(long, value_name = "GAMES")]
    budget: Option<u64>,
    #[command(flatten)]
    openings: OpeningsFlag,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: super::args::BoardFlag,
    #[command(flatten)]
    seed: RunSeed,
    #[command(flatten)]
    adjudication: super::args::AdjudicationFlags,
    /// Run directory (default results/<event>-<YYYYMMDD>-<HHMMSS>, UTC).
    ///
    /// It holds select.json, games.csv, games.pgn, summary.json and report.html.
    #[arg(long, value_name = "DIR", value_parser = super::args::utf8_path())]
    out: Option<PathBuf>,
    /// Continue the selection in DIR as saved in its select.json.
    ///
    /// Only the flags listed under "Session" may be given with it (they cannot change the
    /// games or the choice).
    #[arg(long, value_name = "DIR", conflicts_with = "worker")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    /// Event name, in the PGN Event tag and the run directory's name (default
    /// bt-arena-select).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    #[command(flatten)]
    pgn_comments: PgnCommentsFlag,
    #[command(flatten)]
    session: SessionFlags,
}

/// Runs `bt-arena select`. Exit code: 0 a candidate is chosen and beats the base, 1 none does,
/// 2 the budget or `--max-time` ran out first (130 interrupted, 4 games not played).
///
/// # Errors
/// A bad flag ([`UsageError`]: one candidate, a base that names no engine, a confidence
/// outside (0, 1), an indifference of 0 or less, a budget below one round, `--shard`), an
/// engine that cannot start, an unusable book or run directory.
pub fn run(args: &SelectArgs, matches: &ArgMatches) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    // Before anything is built or started: a signal stops the run from its first moment.
    let stop = stop_flag()?;
    let given = matches.subcommand_matches("select").unwrap_or(matches);
    let (mut config, start) = match &args.resume {
        Some(dir) => {
            let command = SelectArgs::augment_args(clap::Command::new("select"));
            let config: SelectConfig =
                super::session::resumed(dir, &args.session, &command, given)?;
            (config, RunStart::Resume)
        }
        None => {
            let config = build_config(args).map_err(|e| UsageError(format!("{e:#}")))?;
            let seed = match args.seed.seed {
                Some(_) => SeedOrigin::Given,
                None => SeedOrigin::Drawn,
            };
            (config, RunStart::Fresh(seed))
        }
    };
    let options = super::session::options(&mut config, &args.session, given, started)?;
    let ending = super::session::play::<Select>(&mut config, start, &options, &stop, announce)?;
    let report = &ending.outcome;
    say!("\n{report}");
    say!("Results: {}", config.run.out.display());
    let code = match report.status {
        // A decision stands whatever stopped the session.
        Status::Decided => ExitCode::from(report.exit_code()),
        _ => match super::session::stop_code(&config, &ending.ended, "game pairs", "") {
            Some(code) => code,
            None if report.status == Status::Budget => ExitCode::from(report.exit_code()),
            None => {
                note!(
                    "The selection has not ended: continue with `{}`",
                    bt_arena::session::resume_command(&config.run, SelectConfig::TYPE)
                );
                ExitCode::from(EXIT_INCOMPLETE)
            }
        },
    };
    if ending.ended.stopped == Stopped::Interrupted {
        return Ok(EXIT_INTERRUPTED.into());
    }
    let failures = behaviour_failures(&config)?;
    Ok(super::checks_failed(args.session.checks.strict, &failures).unwrap_or(code))
}

/// The engines' misbehaviour over the run's games, one line each (for `--strict`).
fn behaviour_failures(config: &SelectConfig) -> Result<Vec<String>> {
    let sources = bt_arena::run::games::GameSources::open(&[&config.run.out])
        .context("cannot read the games")?;
    let (summary, _) = sources
        .summary(&config.names(), None)
        .context("cannot read the games")?;
    Ok(summary.behaviour_failures())
}

/// The start-up lines.
fn announce(plan: Announcement<'_, SelectConfig, ()>) {
    let config = plan.config;
    for repair in plan.repairs {
        note!("warning: {repair}");
    }
    let candidates = config.candidates().len();
    let what = match (&config.run.worker, plan.recorded) {
        (Some(worker), _) => format!("Worker {worker}: claiming game pairs of a selection"),
        (None, 0) => "Selecting".to_string(),
        (None, recorded) => format!("Resuming ({recorded} games recorded):"),
    };
    let budget = config
        .budget
        .map(|b| format!(", at most {b} games"))
        .unwrap_or_default();
    say!(
        "{what} the best of {candidates} candidates against {}: indifference {} Elo, \
         confidence {}{budget}; {}, {} at a time; results in {}{}",
        config.base,
        config.indifference,
        config.confidence,
        super::tournament::rules_and_board(&config.run),
        config.run.concurrency,
        config.run.out.display(),
        super::executables::located_commands(&config.engines)
    );
    say!(
        "Seed: {} (run {})",
        config.run.seed,
        config.run.run_id.as_deref().unwrap_or("without an id")
    );
    super::tournament::print_openings(&config.run.openings);
}

/// The selection the flags describe, with every path made absolute.
fn build_config(args: &SelectArgs) -> Result<SelectConfig> {
    let engines = args.engines.descriptions(DEFAULT_LIMIT)?;
    let base = args.base.clone().ok_or_else(|| {
        anyhow!("--base NAME is required: the engine the candidates are measured against")
    })?;
    let rules = args.rules.get();
    let board = args.board.get();
    let event = args
        .event
        .clone()
        .unwrap_or_else(|| "bt-arena-select".to_string());
    let out = args.out.clone().unwrap_or_else(|| default_out(&event));
    let openings = if args.openings.openings.is_empty() {
        OpeningsSpec {
            file: default_book(rules, board),
            order: OpeningOrder::Sequential,
            digest: None,
        }
    } else {
        let mut spec = OpeningsSpec::parse(&args.openings.openings)?;
        if spec.file.is_none() {
            spec.file = Some(shipped_book_of(rules, board)?);
        }
        spec
    };
    let mut config = SelectConfig {
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
        engines,
        base,
        indifference: args.indifference.unwrap_or(5.0),
        confidence: args.confidence.unwrap_or(0.95),
        budget: args.budget,
        pgn_comments: args.pgn_comments.pgn_comments.unwrap_or_default(),
        unknown: Default::default(),
    };
    super::session::apply_new(
        &mut config.run,
        &args.session,
        &args.workers,
        args.out.is_some(),
    )?;
    super::session::resolve_sources(&mut config)?;
    config.validate()?;
    make_engine_paths_absolute(&mut config.engines)?;
    super::executables::check_commands(&config.engines)?;
    make_book_path_absolute(&mut config.run.openings)?;
    super::bots::check_openings(
        &config.engines,
        &config.run.openings,
        config.run.rules,
        config.run.board,
    )?;
    config.run.out = std::path::absolute(&config.run.out).context("cannot resolve a path")?;
    Ok(config)
}
