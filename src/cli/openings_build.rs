//! `bt-arena openings build`: a book of openings that carry information, kept by reference
//! engines' measured game pairs ([`bt_arena::book_build`]), played as a run of the arena.

use super::args::{EngineFlags, RulesFlag, RunSeed};
use super::session::SessionFlags;
use super::signals::stop_flag;
use super::tournament::{
    DEFAULT_LIMIT, default_out, make_book_path_absolute, make_engine_paths_absolute,
};
use anyhow::{Context, Result};
use bt_arena::book_build::{
    Band, Build, BuildConfig, BuildError, BuildReport, CandidateSource, PlyRange,
};
use bt_arena::bundled::search::MAX_DEPTH;
use bt_arena::openings::spec::{OpeningOrder, OpeningsSpec};
use bt_arena::run::header::RunHeader;
use bt_arena::run::identity::SeedOrigin;
use bt_arena::session::{Announcement, RunStart, SessionError};
use clap::{ArgMatches, Args};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena openings build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    // The reference engines: every pair of them plays a game pair from each candidate.
    #[command(flatten)]
    engines: EngineFlags,
    /// How many openings the book keeps: the first candidates kept, in candidate order.
    #[arg(long, value_name = "N", required_unless_present = "resume")]
    count: Option<u64>,
    /// Draw candidates of N random plies from the start position, or N-M (spread evenly).
    #[arg(long, value_name = "N[-M]", value_parser = parse_plies,
          required_unless_present_any = ["from", "resume"], conflicts_with = "from")]
    plies: Option<PlyRange>,
    /// How many random candidates to draw (default 4 x --count).
    #[arg(long, value_name = "N", requires = "plies")]
    candidates: Option<u64>,
    /// Take the candidates from this book instead (its openings in order, repeats skipped).
    #[arg(long, value_name = "BOOK")]
    from: Option<PathBuf>,
    /// Keep a candidate when White's score over its games is in LOW..HIGH.
    ///
    /// White's wins over the games of the candidate (2 x --rounds per pair of engines). The
    /// default keeps, between two engines, the game pairs one engine won twice, and drops
    /// those the colour decided (each side won with White: a 1-1 pair tells nothing).
    #[arg(long, value_name = "LOW..HIGH", default_value = "0.25..0.75", value_parser = parse_band)]
    band: Band,
    /// Game pairs per pair of engines per candidate (more than 1 tells something only of
    /// engines that do not always play the same moves).
    #[arg(long, value_name = "N", default_value_t = 1)]
    rounds: u32,
    /// Before any game, drop candidates the bundled search scores beyond ±CP centipawns.
    #[arg(long, value_name = "CP", value_parser = clap::value_parser!(i32).range(0..=10_000))]
    max_eval: Option<i32>,
    /// Depth in plies of that search.
    #[arg(long, value_name = "PLIES", default_value_t = bt_arena::openings::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    search_depth: u32,
    /// Run directory (default results/bt-arena-build-<YYYYMMDD>-<HHMMSS>, UTC); the book is
    /// written to <out>/book.epd, every candidate measured to <out>/candidates.csv.
    #[arg(long, value_name = "DIR", value_parser = super::args::utf8_path())]
    out: Option<PathBuf>,
    #[command(flatten)]
    seed: RunSeed,
    /// Continue the build in DIR as saved in its build.json (the same book as uninterrupted).
    ///
    /// Only the flags listed under "Session" may be given with it.
    #[arg(long, value_name = "DIR", conflicts_with = "worker")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: super::args::BoardFlag,
    #[command(flatten)]
    adjudication: super::args::AdjudicationFlags,
    #[command(flatten)]
    session: SessionFlags,
}

fn parse_plies(text: &str) -> Result<PlyRange, String> {
    text.parse::<PlyRange>().map_err(|e| e.reason().to_string())
}

fn parse_band(text: &str) -> Result<Band, String> {
    text.parse::<Band>().map_err(|e| e.reason().to_string())
}

/// Runs `bt-arena openings build`.
///
/// # Errors
/// A bad flag ([`super::UsageError`]): fewer than two engines, a band that keeps nothing, a
/// book that cannot be read; an engine that cannot start; a run directory that is not usable;
/// every candidate measured and none kept.
pub fn run(args: &BuildArgs, given: &ArgMatches) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    let stop = stop_flag()?;
    let (mut config, start) = match &args.resume {
        Some(dir) => {
            let command = BuildArgs::augment_args(clap::Command::new("build"));
            let config: BuildConfig = super::session::resumed(dir, &args.session, &command, given)?;
            (config, RunStart::Resume)
        }
        None => {
            let mut config = build_config(args)?;
            super::session::resolve_sources(&mut config)?;
            config.check().map_err(|e| usage(e.to_string()))?;
            super::executables::check_commands(&config.engines)
                .map_err(|e| usage(format!("{e:#}")))?;
            let seed = match args.seed.seed {
                Some(_) => SeedOrigin::Given,
                None => SeedOrigin::Drawn,
            };
            (config, RunStart::Fresh(seed))
        }
    };
    let options = super::session::options(&mut config, &args.session, given, started)?;
    let ending = super::session::play::<Build>(&mut config, start, &options, &stop, announce)
        .map_err(|err| match err.downcast_ref::<SessionError<BuildError>>() {
            // Settings that give no candidate or keep none: a bad command line.
            Some(SessionError::Kind(
                kind @ (BuildError::Candidates(_) | BuildError::NothingKept { .. }),
            )) => usage(kind.to_string()),
            _ => err,
        })?;
    let report: &BuildReport = &ending.outcome;
    say!("\n{report}");
    match &report.book {
        Some(book) => {
            if (report.selection.kept.len() as u64) < report.wanted {
                note!(
                    "warning: only {} of the {} openings wanted: every candidate was measured; \
                     draw more (--candidates) or widen --band",
                    report.selection.kept.len(),
                    report.wanted
                );
            }
            say!("Book: {}", book.display());
        }
        None if config.run.worker.is_some() => {
            say!("The book is written by the worker that finds every candidate it needs measured")
        }
        None => {}
    }
    let code = super::session::stop_code(&config, &ending.ended, "candidates", "no book yet; ");
    Ok(code.unwrap_or(ExitCode::SUCCESS))
}

/// A [`super::UsageError`] as an error.
fn usage(text: String) -> anyhow::Error {
    super::UsageError(text).into()
}

/// The start-up line.
fn announce(announcement: Announcement<'_, BuildConfig, usize>) {
    let config = announcement.config;
    for repair in announcement.repairs {
        note!("warning: {repair}");
    }
    let engines: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
    let what = match (announcement.recorded, &config.run.worker) {
        (_, Some(worker)) => format!("Worker {worker}: claiming candidates of a build"),
        (0, None) => "Building a book".to_string(),
        (done, None) => format!("Resuming a build ({done} games recorded)"),
    };
    say!(
        "{what}: {} openings from {} candidates, kept when White's score over {} games between \
         {} is in {}; seed {}; results in {}",
        config.count,
        announcement.prospect,
        config.games_per_candidate(),
        engines.join(", "),
        config.band,
        config.run.seed,
        config.run.out.display()
    );
}

/// The build the flags describe.
fn build_config(args: &BuildArgs) -> Result<BuildConfig> {
    let mut engines = args.engines.descriptions(DEFAULT_LIMIT)?;
    make_engine_paths_absolute(&mut engines)?;
    let count = args.count.unwrap_or(1);
    let (candidates, mut openings) = match (&args.from, args.plies) {
        (Some(book), _) => (
            CandidateSource::Book,
            OpeningsSpec {
                file: Some(book.clone()),
                order: OpeningOrder::Sequential,
                digest: None,
            },
        ),
        (None, Some(plies)) => (
            CandidateSource::RandomPlies {
                plies,
                count: args.candidates.unwrap_or(count.saturating_mul(4)),
            },
            OpeningsSpec::default(),
        ),
        (None, None) => return Err(usage("give --plies N[-M] or --from BOOK".to_string())),
    };
    make_book_path_absolute(&mut openings)?;
    let event = "bt-arena-build".to_string();
    let out = args.out.clone().unwrap_or_else(|| default_out(&event));
    let out = std::path::absolute(&out).context("cannot resolve a path")?;
    let mut config = BuildConfig {
        run: RunHeader {
            event,
            rules: args.rules.get(),
            board: args.board.get(),
            openings,
            seed: args.seed.get_or_draw(),
            out,
            adjudication: args.adjudication.over(Default::default()),
            ..RunHeader::default()
        },
        engines,
        candidates,
        count,
        band: args.band,
        rounds: args.rounds,
        max_eval: args.max_eval,
        search_depth: args.search_depth,
        unknown: Default::default(),
    };
    super::session::apply_new(
        &mut config.run,
        &args.session,
        &args.workers,
        args.out.is_some(),
    )
    .map_err(|e| usage(format!("{e:#}")))?;
    Ok(config)
}
