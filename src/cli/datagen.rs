//! `bt-arena datagen`: self-play positions for training evaluations (flags as
//! `tournament`'s where they mean the same), and `bt-arena datagen convert`.

use super::args::{EngineFlags, OpeningsFlag, RulesFlag, RunSeed};
use super::session::SessionFlags;
use super::signals::stop_flag;
use super::tournament::{
    DEFAULT_LIMIT, default_book, default_out, make_book_path_absolute, make_engine_paths_absolute,
};
use anyhow::{Context, Result};
use bt_arena::arena::Stopped;
use bt_arena::datagen::filters::Filters;
use bt_arena::datagen::kind::{Datagen, DatagenError, DatagenPlan, ProbeError};
use bt_arena::datagen::{DatagenConfig, RandomMultiPv, RandomPlies, Target};
use bt_arena::game::ProofRule;
use bt_arena::openings::spec::{OpeningOrder, OpeningsSpec};
use bt_arena::run::header::RunHeader;
use bt_arena::run::identity::SeedOrigin;
use bt_arena::session::{Announcement, RunStart, SessionError};
use clap::{ArgMatches, Args, Subcommand};
use std::path::PathBuf;
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
    /// Continue the run in DIR as saved in its datagen.json.
    ///
    /// Only the flags listed under "Session" may be given with it (they cannot change the
    /// games); with --shard K/N, shard K's, in DIR/shard-K.
    #[arg(long, value_name = "DIR", conflicts_with = "worker")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    workers: super::args::WorkerFlags,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: super::args::BoardFlag,
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
    #[command(flatten)]
    adjudication: super::args::AdjudicationFlags,
    /// Event name, in games.pgn and the default run directory (default bt-arena-datagen).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    #[command(flatten)]
    session: SessionFlags,
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
    #[arg(long, value_name = "proof=PLIES[,nodes=N]", value_parser = super::args::parse_proof)]
    pub label: Option<ProofRule>,
}

impl FilterFlags {
    /// The filters given, over `base`.
    ///
    /// # Errors
    /// A [`super::UsageError`] naming the flag.
    pub(super) fn filters(&self, base: Filters) -> Result<Filters> {
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
    Convert(super::datagen_convert::ConvertArgs),
}

/// A [`super::UsageError`] as an error.
pub(super) fn usage(text: String) -> anyhow::Error {
    super::UsageError(text).into()
}

fn parse_random_plies(text: &str) -> Result<RandomPlies, String> {
    text.parse()
        .map_err(|e: bt_arena::run::header::SettingError| e.to_string())
}

fn parse_random_multipv(text: &str) -> Result<RandomMultiPv, String> {
    text.parse()
        .map_err(|e: bt_arena::run::header::SettingError| e.to_string())
}

/// Runs `bt-arena datagen` (or `datagen convert`).
///
/// # Errors
/// A bad flag ([`super::UsageError`]), an engine that cannot start, an unusable run
/// directory.
pub fn run(args: &DatagenArgs, matches: &ArgMatches) -> Result<ExitCode> {
    if let Some(DatagenCommand::Convert(convert)) = &args.command {
        return super::datagen_convert::run(convert);
    }
    let started = std::time::Instant::now();
    let stop = stop_flag()?;
    let given = matches.subcommand_matches("datagen").unwrap_or(matches);
    let (mut config, start) = match &args.resume {
        Some(dir) => {
            let command = DatagenArgs::augment_args(clap::Command::new("datagen"));
            let config: DatagenConfig =
                super::session::resumed(dir, &args.session, &command, given)?;
            (config, RunStart::Resume)
        }
        None => {
            let mut config = build_config(args)?;
            super::session::resolve_sources(&mut config)?;
            config.validate().map_err(|e| usage(e.to_string()))?;
            super::bots::refuse(
                &config.engines,
                "datagen",
                "datagen keeps each move's score, and a bot reports none",
            )
            .map_err(|e| usage(format!("{e:#}")))?;
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
    let ending = super::session::play::<Datagen>(&mut config, start, &options, &stop, announce)
        .map_err(
            |err| match err.downcast_ref::<SessionError<DatagenError>>() {
                // An engine that gives no score, or no MultiPV: a bad command line.
                Some(SessionError::Kind(DatagenError::Probe(
                    probe @ (ProbeError::NoScore(_)
                    | ProbeError::NoMultiPv(_)
                    | ProbeError::MultiPvRefused(..)),
                ))) => usage(probe.to_string()),
                _ => err,
            },
        )?;
    let report = &ending.outcome;
    if let Some(worker) = &config.run.worker
        && ending.ended.recorded == 0
        && report.whole_run
    {
        say!(
            "Worker {worker} played no game: every game of the run in {} is recorded",
            config.run.out.display()
        );
    }
    say!("\n{}", report.summary);
    say!("Results: {}", report.dir.display());
    let code = match super::session::stop_code(&config, &ending.ended, "games", "") {
        // An interrupted run's exit code stands, --strict or not.
        Some(code) if ending.ended.stopped == Stopped::Interrupted => return Ok(code),
        Some(code) => code,
        None => ExitCode::SUCCESS,
    };
    Ok(super::checks_failed(args.session.checks.strict, &report.failures).unwrap_or(code))
}

/// The start-up lines.
fn announce(announcement: Announcement<'_, DatagenConfig, DatagenPlan>) {
    let config = announcement.config;
    for repair in announcement.repairs {
        note!("warning: {repair}");
    }
    let target = match config.target {
        Target::Games(n) => bt_arena::records::plural(n, "game"),
        Target::Positions(n) => bt_arena::records::plural(n, "position"),
    };
    let what = match (announcement.prospect.recorded, config.run.shard) {
        (_, None) if config.run.worker.is_some() => format!(
            "Worker {}: claiming the games of a run of {target}",
            config.run.worker.as_deref().unwrap_or_default()
        ),
        (0, None) => format!("Generating {target}"),
        (done, None) => format!("Resuming {target} ({done} games recorded)"),
        (done, Some(shard)) => format!("Shard {shard}: {target} ({done} games recorded)"),
    };
    let engines: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
    say!(
        "{what}: {}, {}, {} at a time, seed {}; results in {}{}",
        engines.join(", "),
        super::tournament::rules_and_board(&config.run),
        config.run.concurrency,
        config.run.seed,
        config.run.out.display(),
        super::executables::located_commands(&config.engines)
    );
}

/// The run the flags describe.
fn build_config(args: &DatagenArgs) -> Result<DatagenConfig> {
    let mut engines = args.engines.descriptions(DEFAULT_LIMIT)?;
    make_engine_paths_absolute(&mut engines)?;
    let target = match (args.positions, args.games) {
        (Some(n), None) => Target::Positions(n),
        (None, Some(n)) => Target::Games(n),
        _ => return Err(usage("give --positions N or --games N".to_string())),
    };
    let rules = args.rules.get();
    let board = args.board.get();
    let mut openings = match (args.startpos, args.openings.openings.is_empty()) {
        (true, _) => OpeningsSpec::default(),
        (false, true) => OpeningsSpec {
            file: default_book(rules, board),
            order: OpeningOrder::Sequential,
            digest: None,
        },
        (false, false) => OpeningsSpec::parse(&args.openings.openings)
            .map_err(|e| usage(format!("--openings: {e}")))?,
    };
    make_book_path_absolute(&mut openings)?;
    let event = args
        .event
        .clone()
        .unwrap_or_else(|| "bt-arena-datagen".to_string());
    let out = args.out.clone().unwrap_or_else(|| default_out(&event));
    let out = std::path::absolute(&out).context("cannot resolve a path")?;
    let mut config = DatagenConfig {
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
        target,
        random_plies: args.random_plies,
        random_multipv: args.random_multipv,
        filters: args.filters.filters(Filters::default())?,
        label: args.filters.label,
        text: args.text,
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
