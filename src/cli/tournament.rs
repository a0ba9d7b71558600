//! `bt-arena tournament`: command-line flags (cutechess-cli / fastchess conventions) and the
//! report.

use super::args::{
    AnchorFlag, BoardFlag, EngineFlags, OpeningsFlag, PgnCommentsFlag, RulesFlag, RunSeed,
    SprtFlag, named,
};
use super::session::{SESSION_HEADING, SessionFlags};
use super::signals::stop_flag;
use anyhow::{Context, Result, bail};
use bt_arena::arena::Stopped;
use bt_arena::rules::{Board, Rules};
use bt_arena::run::games::Verdict;
use bt_arena::session::{Announcement, RunStart, SessionEnd};
use bt_arena::tournament::{
    Format, OpeningOrder, OpeningsSpec, SeedOrigin, Tournament, TournamentConfig, TournamentReport,
};
use clap::{ArgMatches, Args};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: BoardFlag,
    #[command(flatten)]
    seed: RunSeed,
    #[command(flatten)]
    sprt: SprtFlag,
    #[command(flatten)]
    adjudication: super::args::AdjudicationFlags,
    /// Results directory (default results/<event>-<YYYYMMDD>-<HHMMSS>).
    ///
    /// The time is UTC; `-2`, `-3`, ... follow it for a second run started in the same second.
    /// It holds games.csv, games.pgn, config.json, summary.json and report.html.
    #[arg(long, value_name = "DIR", value_parser = super::args::utf8_path())]
    out: Option<PathBuf>,
    /// Continue the interrupted run in DIR as saved in its config.json.
    ///
    /// Of a sharded run, shard --shard K/N's, in DIR/shard-K. Only the flags listed under
    /// "Session" may be given with it (they cannot change the games). The run's build cache
    /// is the one it was started with, unless --build-cache is given.
    #[arg(long, value_name = "DIR", conflicts_with = "worker")]
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
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    #[command(flatten)]
    pgn_comments: PgnCommentsFlag,
    /// Scale the clocks by this machine's speed (default: no scaling).
    ///
    /// Both engines' clocks are multiplied by REFERENCE_NPS / the speed of the base (last)
    /// engine's bench on this machine, run as many times at once as --concurrency (OpenBench's
    /// scaling).
    #[arg(long, value_name = "REFERENCE_NPS", value_parser = clap::value_parser!(u64).range(1..))]
    scale_tc: Option<u64>,
    #[command(flatten)]
    session: SessionFlags,
    #[command(flatten, next_help_heading = SESSION_HEADING)]
    anchor: AnchorFlag,
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
    let given = tournament_matches(matches);
    let (mut config, start) = match &args.resume {
        Some(dir) => {
            let command = TournamentArgs::augment_args(clap::Command::new("tournament"));
            let config: TournamentConfig =
                super::session::resumed(dir, &args.session, &command, given)?;
            (config, RunStart::Resume)
        }
        None => {
            let (mut base, file_seed) = match &args.config {
                Some(path) => TournamentConfig::read_with_seed(path)?,
                None => (default_config()?, SeedOrigin::Drawn),
            };
            // A run's config.json used as a template starts a run of its own.
            base.run.run_id = None;
            let seed = match (args.seed.seed, file_seed) {
                (Some(_), _) | (None, SeedOrigin::Given) => SeedOrigin::Given,
                (None, SeedOrigin::Drawn) => SeedOrigin::Drawn,
            };
            let config =
                build_config(base, args).map_err(|e| super::UsageError(format!("{e:#}")))?;
            (config, RunStart::Fresh(seed))
        }
    };
    config.anchor = args.anchor.resolve(&config.names())?;
    let options = super::session::options(&mut config, &args.session, given, started)?;
    let ending = super::session::play::<Tournament>(&mut config, start, &options, &stop, announce)?;
    let report = &ending.outcome;
    if let Some(warning) = &report.merge_failed {
        note!("warning: {warning}");
    }
    say!("\n{}", report.summary);
    super::print_recorded(&report.sources.recorded_verdict(&report.summary));
    match config.run.worker {
        // The run's files, merged from every worker's games as this one ended, name the
        // whole run; its own directory holds only the games it played.
        Some(_) => say!(
            "Results: {} (the whole run's games.csv, games.pgn, summary.json and report.html, \
             every worker's games recorded so far; this worker's own games in {})",
            config.run.out.display(),
            config.results_dir().display()
        ),
        None => say!("Results: {}", config.results_dir().display()),
    }
    let code = exit_code(&config, &ending);
    let failures = match ending.ended.stopped {
        // An interrupted run's exit code stands.
        Stopped::Interrupted => Vec::new(),
        _ => report.summary.behaviour_failures(),
    };
    Ok(super::checks_failed(args.session.checks.strict, &failures).unwrap_or(code))
}

/// The start-up lines: what was repaired, what is played, where the results go, the seed
/// and the openings.
fn announce(plan: Announcement<'_, TournamentConfig, ()>) {
    let config = plan.config;
    for repair in plan.repairs {
        note!("warning: {repair}");
    }
    let scheduled = plan.total_games;
    let games = match plan.recorded {
        0 => format!("Playing {}", bt_arena::records::plural(scheduled, "game")),
        recorded => format!(
            "Resuming {} of {scheduled} games ({recorded} recorded)",
            scheduled.saturating_sub(recorded),
        ),
    };
    let games = match (config.run.shard, &config.run.worker) {
        (Some(shard), _) => format!("Shard {shard}: {games}"),
        (None, Some(worker)) => format!(
            "Worker {worker}: claiming game pairs of a run of {}",
            bt_arena::records::plural(scheduled, "game")
        ),
        (None, None) => games,
    };
    let left = usize::try_from(scheduled.saturating_sub(plan.recorded)).unwrap_or(usize::MAX);
    say!(
        "{games}: {} engines, {}, {}, {} at a time; results in {}{}",
        config.engines.len(),
        bt_arena::records::plural(u64::from(config.rounds), "round"),
        rules_and_board(&config.run),
        // No more games at once than there are games to play.
        config.run.concurrency.min(left.max(1)),
        config.results_dir().display(),
        super::executables::located_commands(&config.engines)
    );
    say!(
        "Seed: {} (run {})",
        config.run.seed,
        config.run.run_id.as_deref().unwrap_or("without an id")
    );
    print_openings(&config.run.openings);
    let adjudication = &config.run.adjudication;
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

/// `capture-only rules`, and on a board other than 8×8 `capture-only rules on 6x6`: what the
/// start-up line of every kind of run says of them.
pub(super) fn rules_and_board(run: &bt_arena::run::header::RunHeader) -> String {
    match run.board.is_standard() {
        true => format!("{} rules", run.rules),
        false => format!("{} rules on {}", run.rules, run.board),
    }
}

/// Prints which opening book the run uses, and in which order.
pub(super) fn print_openings(openings: &OpeningsSpec) {
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
/// games of the run are missing, e.g. other shards not done), unless the session stopped
/// first ([`super::session::stop_code`]: 130 after a signal, 2 at the time limit, 4 when games
/// could not be played). A verdict the SPRT reached stands whatever stopped the session.
fn exit_code(config: &TournamentConfig, ending: &SessionEnd<TournamentReport>) -> ExitCode {
    let report = &ending.outcome;
    if !matches!(report.verdict, Verdict::Accepted(_)) {
        let pending = match config.sprt {
            Some(_) => "no SPRT decision; ",
            None => "",
        };
        if let Some(code) = super::session::stop_code(config, &ending.ended, "game pairs", pending)
        {
            return code;
        }
    }
    super::conclude(&report.sources, &report.reading, report.verdict, true)
}

pub(super) use bt_arena::tournament::config::DEFAULT_LIMIT;

/// `base` (a config file or the demonstration) overridden by the flags, with every path made
/// absolute so that `--resume` works from any directory.
fn build_config(mut config: TournamentConfig, args: &TournamentArgs) -> Result<TournamentConfig> {
    let engines = &args.engines;
    if !engines.engine.is_empty() {
        config.engines = engines.descriptions(DEFAULT_LIMIT)?;
        config.rounds = 1;
        config.run.concurrency = 1;
        config.run.event = "bt-arena".to_string();
    } else if !engines.each.is_empty() {
        bail!("--each needs engines given with --engine");
    }
    override_settings(&mut config, args)?;
    super::session::resolve_sources(&mut config)?;
    config.validate()?;
    make_paths_absolute(&mut config)?;
    super::executables::check_commands(&config.engines)?;
    super::bots::check_openings(
        &config.engines,
        &config.run.openings,
        config.run.rules,
        config.run.board,
    )?;
    Ok(config)
}

fn override_settings(config: &mut TournamentConfig, args: &TournamentArgs) -> Result<()> {
    if let Some(event) = &args.event {
        config.run.event = event.clone();
    }
    config.format = args.format.unwrap_or(config.format);
    config.run.rules = args.rules.rules.unwrap_or(config.run.rules);
    config.run.board = args.board.board.unwrap_or(config.run.board);
    config.rounds = args.rounds.unwrap_or(config.rounds);
    config.games = args.games.unwrap_or(config.games);
    config.run.seed = args.seed.seed.unwrap_or(config.run.seed);
    config.pgn_comments = args
        .pgn_comments
        .pgn_comments
        .unwrap_or(config.pgn_comments);
    config.scale_tc = args.scale_tc.or(config.scale_tc);
    if !args.openings.openings.is_empty() {
        config.run.openings = OpeningsSpec::parse(&args.openings.openings)?;
        // `--openings order=random` alone shuffles the default book.
        if config.run.openings.file.is_none() {
            config.run.openings.file = Some(shipped_book_of(config.run.rules, config.run.board)?);
        }
    }
    config.sprt = args.sprt.sprt.or(config.sprt);
    config.run.adjudication = args.adjudication.over(config.run.adjudication);
    super::session::apply_new(
        &mut config.run,
        &args.session,
        &args.workers,
        args.out.is_some(),
    )?;
    config.run.out = match &args.out {
        Some(out) => out.clone(),
        None if args.config.is_some() && !config.run.out.as_os_str().is_empty() => {
            config.run.out.clone()
        }
        None => default_out(&config.run.event),
    };
    if args.openings.openings.is_empty() && args.config.is_none() {
        config.run.openings.file = default_book(config.run.rules, config.run.board);
    }
    Ok(())
}

/// Engine commands given as paths (not bare names looked up in PATH), engine directories, the
/// book and the results directory, relative to the directory bt-arena runs in.
pub(super) fn make_paths_absolute(config: &mut TournamentConfig) -> Result<()> {
    make_engine_paths_absolute(&mut config.engines)?;
    make_book_path_absolute(&mut config.run.openings)?;
    config.run.out = absolute(&config.run.out)?;
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

/// The book a run plays without `--openings`: the shipped book of `rules` on 8×8
/// ([`shipped_book`]); on another board, which has no shipped book, none (every game pair
/// starts from the board's start position).
pub(super) fn default_book(rules: Rules, board: Board) -> Option<PathBuf> {
    board.is_standard().then(|| shipped_book(rules))
}

/// The shipped book of `rules` for `--openings` given without `file=` (e.g. `order=random`
/// alone).
///
/// # Errors
/// A [`super::UsageError`] on a board other than 8×8: the shipped books are 8×8 books.
pub(super) fn shipped_book_of(rules: Rules, board: Board) -> Result<PathBuf> {
    default_book(rules, board).ok_or_else(|| {
        super::UsageError(format!(
            "--openings without file= takes the shipped book, which is of the 8x8 board, and \
             this run plays on {board}: give file= a book of {board} positions (bt-arena \
             openings generate --board {board} writes one)"
        ))
        .into()
    })
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
    Ok(TournamentConfig::demonstration(
        exe.parent().unwrap_or(Path::new(".")),
        fastrand::u64(..),
    )?)
}
