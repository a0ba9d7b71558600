//! A datagen run from its config to its files: the identity joined, the directory locked,
//! the games file reopened (a torn tail cut), the games played on the arena
//! ([`super::schedule`]), then the positions and the summary written from the games file
//! ([`super::convert`]). The files of the run directory (of a shard, `shard-K/`):
//!
//! - datagen.json: the config; games.dat: the games, in game-id order;
//! - positions.bin (and with `--text` positions.txt): the positions, rewritten whole at the
//!   end of every session;
//! - summary.json and summary.txt: what was written;
//! - games.csv and games.pgn: the arena's record of every game (in the order they ended).

use super::convert::{self, ConvertError, Sink, Sinks};
use super::filters::Judge;
use super::formats::games::{GamesError, GamesWriter};
use super::schedule::{Claimed, Resumed, Selfplay};
use super::summary::DatagenSummary;
use super::{BINARY_FILE, DatagenConfig, GAMES_FILE, SUMMARY_TEXT, TEXT_FILE, Target};
use crate::arena::claims::UnitClaims;
use crate::arena::{self, Arena, LockError, Stopped};
use crate::engine::{Engine, EngineError};
use crate::openings::Opening;
use crate::records::RecordsError;
use crate::records::moves::CommentDetail;
use crate::rules::{ByColor, Color, Position};
use crate::run::identity::{self, IdentityError, SeedOrigin};
use crate::run_dir::RunDir;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Why a session stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The target was reached.
    Completed,
    /// A signal stopped it; `--resume` continues.
    Interrupted,
    /// A game could not be played (an engine could not start); `--resume` tries again.
    NotPlayed,
}

/// What a session did.
#[derive(Debug)]
pub struct DatagenReport {
    /// Why it stopped.
    pub finish: Finish,
    /// What the run's files hold now.
    pub summary: DatagenSummary,
    /// The directory of the positions and summary written: the run's (of a shard, its own).
    pub dir: PathBuf,
    /// Games this session wrote.
    pub played: u64,
    /// What `--strict` fails the run on, over every game of the directory (its games.csv):
    /// [`crate::report::Summary::behaviour_failures`].
    pub failures: Vec<String>,
}

/// What a session is about to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Games already in the games file.
    pub recorded: u64,
    /// What was repaired (a torn tail cut), one line each.
    pub repaired: Vec<String>,
}

/// Errors that stop a run.
#[derive(Debug)]
pub enum DatagenError {
    /// The book cannot be used.
    Book(crate::openings::BookError),
    /// The book cannot be read for its digest, or changed since the run started.
    BookDigest(String),
    /// The identity cannot be joined (boxed: the error is large).
    Identity(Box<IdentityError>),
    /// The directory cannot be locked.
    Lock(LockError),
    /// The directory holds a run already.
    OutputExists(PathBuf),
    /// games.csv, games.pgn or datagen.json cannot be written.
    Results(RecordsError),
    /// The games file cannot be read or written.
    Games(GamesError),
    /// The positions cannot be written.
    Convert(ConvertError),
    /// A game's start could not be drawn, or another failure of the schedule.
    Schedule(String),
}

impl std::fmt::Display for DatagenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatagenError::Book(err) => err.fmt(f),
            DatagenError::BookDigest(err) => f.write_str(err),
            DatagenError::Identity(err) => err.fmt(f),
            DatagenError::Lock(err) => err.fmt(f),
            DatagenError::OutputExists(dir) => write!(
                f,
                "{} already holds a datagen run: continue it with --resume {0} or choose another --out",
                dir.display()
            ),
            DatagenError::Results(err) => err.fmt(f),
            DatagenError::Games(err) => err.fmt(f),
            DatagenError::Convert(err) => err.fmt(f),
            DatagenError::Schedule(err) => f.write_str(err),
        }
    }
}

impl std::error::Error for DatagenError {}

impl From<RecordsError> for DatagenError {
    fn from(err: RecordsError) -> Self {
        DatagenError::Results(err)
    }
}

impl From<GamesError> for DatagenError {
    fn from(err: GamesError) -> Self {
        DatagenError::Games(err)
    }
}

impl From<ConvertError> for DatagenError {
    fn from(err: ConvertError) -> Self {
        DatagenError::Convert(err)
    }
}

/// The openings of `config`: its book's, or the start position alone.
///
/// # Errors
/// [`DatagenError::Book`].
pub fn openings(config: &DatagenConfig) -> Result<Vec<Opening>, DatagenError> {
    match &config.openings.file {
        Some(_) => crate::openings::load_openings(config.openings.file.as_deref(), config.rules)
            .map_err(DatagenError::Book),
        None => Ok(vec![Opening {
            id: 1,
            line: 0,
            position: Position::startpos(),
            comment: String::new(),
        }]),
    }
}

/// Runs (with `resume`, continues) the datagen run of `config`: `seed` says whether its seed
/// was given (a shard joining a run takes the run's otherwise); `checks` how far this
/// session proves the engines' mate claims (`--check-claims`). `announce` is called once
/// every check has passed, before the first game.
///
/// # Errors
/// [`DatagenError`].
pub fn run(
    config: &mut DatagenConfig,
    resume: bool,
    seed: SeedOrigin,
    checks: crate::game::ClaimChecks,
    stop: &AtomicBool,
    announce: impl FnOnce(&DatagenConfig, &Plan),
) -> Result<DatagenReport, DatagenError> {
    let openings = openings(config)?;
    config
        .openings
        .take_digest(resume)
        .map_err(DatagenError::BookDigest)?;
    identity::establish(config, seed).map_err(|e| DatagenError::Identity(Box::new(e)))?;
    let config = &*config;
    let dir = config.dir();
    let run = RunDir::new(&dir);
    let games_path = dir.join(GAMES_FILE);
    if !resume && (games_path.exists() || run.datagen_json().exists()) {
        return Err(DatagenError::OutputExists(dir));
    }
    let _lock = arena::lock_directory(&dir).map_err(DatagenError::Lock)?;
    std::fs::create_dir_all(run.logs())
        .map_err(|e| RecordsError::io(&dir, "cannot create the directory", e))?;
    config.save(&dir)?;
    let mut resumed = Resumed {
        counter: matches!(config.target, Target::Positions(_))
            .then(|| Judge::new(config.filters, config.seed, false)),
        ..Resumed::default()
    };
    let (writer, reopened) = GamesWriter::open(&games_path, config.rules, |entry| {
        resumed.games += 1;
        resumed.last_id = entry.game_id;
        if let Some(judge) = resumed.counter.as_mut() {
            resumed.kept += entry
                .positions()
                .filter(|at| judge.keep(&entry, at))
                .count() as u64;
        }
    })?;
    let dropped = drop_unsaved_games(&run.games_csv(), resumed.last_id)?;
    let seats = config.seats();
    let results = crate::run::settings::results_writer(
        &dir,
        &config.event,
        config.rules,
        &seats,
        CommentDetail::None,
    )?;
    let mut repaired: Vec<String> = reopened.cut.into_iter().collect();
    if dropped > 0 {
        repaired.push(format!(
            "{} left out of games.csv: finished after game {} but not in {GAMES_FILE} when the \
             run stopped; they are played again",
            crate::records::plural(dropped, "game"),
            resumed.last_id
        ));
    }
    repaired.extend(results.repairs().iter().cloned());
    announce(
        config,
        &Plan {
            recorded: resumed.games,
            repaired,
        },
    );
    let recorded = resumed.games;
    let mut schedule = Selfplay::new(config, &openings, writer, resumed);
    if let (Some(worker), Some(lease)) = (&config.worker, config.lease_ms) {
        let claims = UnitClaims::new(
            &config.out,
            worker,
            Duration::from_millis(lease),
            "game",
            |game| game.game_id,
        )
        .map_err(|e| RecordsError::io(RunDir::new(&config.out).claims(), "cannot create", e))?;
        schedule.claims = Some(Claimed {
            claims,
            run: config.out.clone(),
            dir: dir.clone(),
            recorded: std::sync::Mutex::new(super::workers::recorded(&config.out)),
        });
    }
    let total = match config.target {
        Target::Games(n) => (1..=n).filter(|&id| config.plays(id)).count() as u64,
        Target::Positions(_) => 0,
    };
    let arena = Arena {
        engines: &seats,
        rules: config.rules,
        adjudication: &config.adjudication,
        openings: &openings,
        dir: dir.clone(),
        log: config.log,
        concurrency: config.concurrency,
        deadline: None,
        rating_interval: 0,
        progress: (total, recorded),
        stop,
        checks,
        affinity: None,
    };
    let started = Instant::now();
    let played = arena::play(&arena, &schedule, results)?;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(claimed) = &schedule.claims {
        // Games in flight when the run stopped are another worker's at once.
        claimed.claims.release_all();
    }
    let state = schedule.into_state();
    if let Some(err) = state.error {
        return Err(DatagenError::Schedule(err));
    }
    let finish = match played.stopped {
        Stopped::Interrupted => Finish::Interrupted,
        _ if !played.not_played.is_empty() => Finish::NotPlayed,
        _ => Finish::Completed,
    };
    let failures = crate::report::Summary::behaviour_failures_of(&[run.games_csv()])?;
    // A worker writes the run's positions, summary and page, from every worker's games, once
    // it finds every game recorded (stopped before, its own: others may be writing theirs);
    // a shard or a run on one machine, its own.
    let (files, written) = match &config.worker {
        Some(_) if finish != Finish::Completed => (super::workers::worker_files(&dir), dir.clone()),
        Some(_) => (
            super::workers::games_files(&config.out)
                .map_err(|e| {
                    RecordsError::io(
                        &config.out,
                        "cannot list",
                        std::io::Error::other(e.to_string()),
                    )
                })?
                .unwrap_or_default(),
            config.out.clone(),
        ),
        None => (vec![dir.join(GAMES_FILE)], dir.clone()),
    };
    let mut summary = write_positions(config, &files, &written)?;
    summary.seconds = Some(seconds);
    summary.positions_per_second = Some(state.session_plies as f64 / seconds.max(1e-9));
    write_summary(&written, &summary)?;
    super::report::write(config, &summary, &written, false)?;
    Ok(DatagenReport {
        finish,
        summary,
        dir: written,
        played: state.written_games - recorded,
        failures,
    })
}

/// Writes positions.bin (and positions.txt) in `dir` from the games of `files` (each in
/// game-id order: the run's games file, or every worker's), merged in game order.
///
/// # Errors
/// [`DatagenError`] for a file that cannot be read or written.
pub fn write_positions(
    config: &DatagenConfig,
    files: &[PathBuf],
    dir: &Path,
) -> Result<DatagenSummary, DatagenError> {
    let (_, games) = convert::merged(files)?;
    let mut sinks = Sinks {
        binary: Some(Sink::create(&dir.join(BINARY_FILE))?),
        text: match config.text {
            true => Some(Sink::create(&dir.join(TEXT_FILE))?),
            false => None,
        },
        games: None,
    };
    let summary = convert::convert(games, config.rules, &config.convert_settings(), &mut sinks)?;
    sinks.finish()?;
    Ok(summary)
}

/// Writes summary.json and summary.txt in `dir`.
///
/// # Errors
/// [`DatagenError::Results`].
pub fn write_summary(dir: &Path, summary: &DatagenSummary) -> Result<(), DatagenError> {
    let run = RunDir::new(dir);
    crate::records::write_json(
        &run.summary_json(),
        summary,
        crate::records::Existing::Replace,
    )?;
    std::fs::write(dir.join(SUMMARY_TEXT), summary.to_string())
        .map_err(|e| RecordsError::io(dir.join(SUMMARY_TEXT), "cannot write", e))?;
    Ok(())
}

/// Why an engine cannot make data.
#[derive(Debug)]
pub enum ProbeError {
    /// It cannot start or search.
    Engine(String, EngineError),
    /// It searched without reporting a score.
    NoScore(String),
    /// `--random-multipv` given and it declares no `MultiPV` option.
    NoMultiPv(String),
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The engine's error names it already.
            ProbeError::Engine(_, err) => err.fmt(f),
            ProbeError::NoMultiPv(name) => write!(
                f,
                "--random-multipv: engine '{name}' has no MultiPV option (it must report its \
                 best lines, `info multipv N`)"
            ),
            ProbeError::NoScore(name) => write!(
                f,
                "engine '{name}' reported no score (no `info ... score cp|mate N` before its \
                 bestmove from the start position): datagen records the engine's scores"
            ),
        }
    }
}

impl std::error::Error for ProbeError {}

/// Starts each engine of `config` once (without logs: nothing is written) and asks it for a
/// move from the start position at its limit: it must report a score, and declare `MultiPV`
/// with `--random-multipv`.
///
/// # Errors
/// [`ProbeError`] naming the engine.
pub fn probe_scores(config: &DatagenConfig) -> Result<(), ProbeError> {
    for spec in &config.engines {
        let name = spec.name.clone();
        let mut engine = Engine::start(&spec.launch(), config.rules)
            .map_err(|e| ProbeError::Engine(name.clone(), e))?;
        let clock = crate::game::SideClock::new(
            spec.effective_limit(),
            Duration::from_millis(spec.time_margin_ms),
        );
        let clocks = crate::game::Clocks::new(ByColor {
            white: clock,
            black: clock,
        });
        let multipv = engine
            .options()
            .iter()
            .any(|option| option.name.eq_ignore_ascii_case("MultiPV"));
        if config.random_multipv.is_some() && !multipv {
            engine.quit();
            return Err(ProbeError::NoMultiPv(name));
        }
        let reply = engine.new_game().and_then(|()| {
            engine.go(
                &Position::startpos(),
                &[],
                &clocks.go_limits(Color::White),
                clocks.allowance(Color::White),
            )
        });
        engine.quit();
        let reply = reply.map_err(|e| ProbeError::Engine(name.clone(), e))?;
        if reply.info.score.is_none() {
            return Err(ProbeError::NoScore(name));
        }
    }
    Ok(())
}

/// Leaves out of games.csv (`csv`) the games after game `last_saved`, the last one the games
/// file holds: games that finished but still waited for an earlier one when the run stopped,
/// which the resumed run plays again (games.csv would otherwise hold them twice). Streamed;
/// the file is replaced whole. Returns how many rows were left out.
///
/// # Errors
/// games.csv that cannot be read or written.
fn drop_unsaved_games(csv: &Path, last_saved: u64) -> Result<u64, RecordsError> {
    use std::io::{BufRead, Write};
    let Ok(file) = std::fs::File::open(csv) else {
        return Ok(0);
    };
    let after = |line: &str| {
        line.split(',')
            .next()
            .and_then(|id| id.parse::<u64>().ok())
            .is_some_and(|id| id > last_saved)
    };
    let unsaved = std::io::BufReader::new(&file)
        .lines()
        .skip(1)
        .map_while(Result::ok)
        .filter(|line| after(line))
        .count() as u64;
    if unsaved == 0 {
        return Ok(0);
    }
    crate::records::write_atomically(csv, crate::records::Existing::Replace, |out| {
        let mut out = std::io::BufWriter::new(out);
        let mut reader = std::io::BufReader::new(std::fs::File::open(csv)?);
        let mut line = String::new();
        // Line by line with their ends, so that a torn last row stays torn (and is cut as
        // such when the writer opens the file).
        while reader.read_line(&mut line)? > 0 {
            if !after(&line) {
                out.write_all(line.as_bytes())?;
            }
            line.clear();
        }
        out.flush()
    })?;
    Ok(unsaved)
}
