//! Datagen as a kind of run on the session ([`crate::session`]): its engines probed for
//! scores, the games file reopened (a torn tail cut), the games played ([`Selfplay`]), then
//! the positions and the summary written from the games files ([`super::convert`]). The
//! files of the run directory (of a shard, `shard-K/`; of a worker, `worker-ID/`):
//!
//! - datagen.json: the config; games.dat: the games, in game-id order;
//! - positions.bin (and with `--text` positions.txt): the positions, rewritten whole at the
//!   end of every session;
//! - summary.json and summary.txt: what was written;
//! - games.csv and games.pgn: the arena's record of every game (in the order they ended).

use super::convert::{self, ConvertError, Sink, Sinks};
use super::filters::Judge;
use super::formats::games::{GamesError, GamesWriter};
use super::schedule::{Resumed, Selfplay, SelfplayError};
use super::summary::DatagenSummary;
use super::{BINARY_FILE, DatagenConfig, GAMES_FILE, SUMMARY_TEXT, TEXT_FILE, Target};
use crate::arena::Stopped;
use crate::engine::{Engine, EngineDescription, EngineError};
use crate::records::RecordsError;
use crate::records::moves::CommentDetail;
use crate::rules::{ByColor, Color, Position};
use crate::run::header::RunHeader;
use crate::run::identity::{Identified, RunType};
use crate::run_dir::RunDir;
use crate::session::{Ended, Kind, Opened, RunConfig, SessionError, Setup};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Datagen: engines' self-play games, their positions written for training.
pub struct Datagen;

/// What a datagen session did.
#[derive(Debug)]
pub struct DatagenReport {
    /// What the run's files hold now.
    pub summary: DatagenSummary,
    /// The directory of the positions and summary written: the run's (of a shard, its own;
    /// of a worker, the run's once every game is recorded, else its own).
    pub dir: PathBuf,
    /// Whether the positions written are the whole run's (every game recorded).
    pub whole_run: bool,
    /// What `--strict` fails the run on, over every game of the directory (its games.csv):
    /// [`crate::report::Summary::behaviour_failures`].
    pub failures: Vec<String>,
}

/// What a datagen session is about to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatagenPlan {
    /// Games already in the games file.
    pub recorded: u64,
}

/// Why a datagen run cannot go on: its engines, its games file, its positions.
#[derive(Debug)]
pub enum DatagenError {
    /// An engine cannot make data (no score, no MultiPV).
    Probe(ProbeError),
    /// The games file cannot be read or written.
    Games(GamesError),
    /// games.csv cannot be repaired (rows after the last game of the games file).
    Results(RecordsError),
    /// The positions cannot be written.
    Convert(ConvertError),
    /// The schedule failed (a start that cannot be drawn, a games file).
    Schedule(SelfplayError),
    /// The workers' directories cannot be listed.
    Workers(crate::run_dir::RunDirError),
}

impl std::fmt::Display for DatagenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatagenError::Probe(err) => err.fmt(f),
            DatagenError::Games(err) => err.fmt(f),
            DatagenError::Results(err) => err.fmt(f),
            DatagenError::Convert(err) => err.fmt(f),
            DatagenError::Schedule(err) => err.fmt(f),
            DatagenError::Workers(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for DatagenError {}

impl From<ConvertError> for DatagenError {
    fn from(err: ConvertError) -> Self {
        DatagenError::Convert(err)
    }
}

impl From<RecordsError> for DatagenError {
    fn from(err: RecordsError) -> Self {
        DatagenError::Results(err)
    }
}

impl From<SelfplayError> for DatagenError {
    fn from(err: SelfplayError) -> Self {
        DatagenError::Schedule(err)
    }
}

impl Identified for DatagenConfig {
    const TYPE: RunType = RunType::DATAGEN;

    fn header(&self) -> &RunHeader {
        &self.run
    }

    fn header_mut(&mut self) -> &mut RunHeader {
        &mut self.run
    }
}

impl RunConfig for DatagenConfig {
    fn engines_mut(&mut self) -> &mut [EngineDescription] {
        &mut self.engines
    }

    fn validate(&self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        DatagenConfig::validate(self).map_err(Into::into)
    }

    fn pgn_comments(&self) -> CommentDetail {
        CommentDetail::None
    }
}

impl Kind for Datagen {
    type Config = DatagenConfig;
    type Schedule<'a> = Selfplay<'a>;
    type Error = DatagenError;
    type Prospect = DatagenPlan;
    type Outcome = DatagenReport;

    fn seats(config: &DatagenConfig) -> Vec<EngineDescription> {
        config.seats()
    }

    /// A new run's engines must report scores (and declare MultiPV with
    /// `--random-multipv`): asked once each, nothing written.
    fn check(config: &DatagenConfig, setup: &Setup<'_>) -> Result<(), DatagenError> {
        match setup.start.is_resume() {
            true => Ok(()),
            false => probe_scores(config).map_err(DatagenError::Probe),
        }
    }

    /// Reopens the games file (a torn tail cut) and leaves out of games.csv the games it
    /// lacks (they are played again).
    fn open<'a>(
        config: &'a DatagenConfig,
        setup: &Setup<'a>,
    ) -> Result<Opened<Selfplay<'a>, DatagenPlan>, DatagenError> {
        let run = RunDir::new(setup.dir);
        let mut resumed = Resumed {
            counter: matches!(config.target, Target::Positions(_))
                .then(|| Judge::new(config.filters, config.run.seed, false)),
            ..Resumed::default()
        };
        let (writer, reopened) = GamesWriter::open(
            &setup.dir.join(GAMES_FILE),
            (config.run.rules, config.run.board),
            |entry| {
                resumed.games += 1;
                resumed.last_id = entry.game_id;
                if let Some(judge) = resumed.counter.as_mut() {
                    resumed.kept += entry
                        .positions()
                        .filter(|at| judge.keep(&entry, at))
                        .count() as u64;
                }
            },
        )
        .map_err(DatagenError::Games)?;
        let dropped =
            drop_unsaved_games(&run.games_csv(), resumed.last_id).map_err(DatagenError::Results)?;
        let mut repairs: Vec<String> = reopened.cut.into_iter().collect();
        if dropped > 0 {
            repairs.push(format!(
                "{} left out of games.csv: finished after game {} but not in {GAMES_FILE} when \
                 the run stopped; they are played again",
                crate::records::plural(dropped, "game"),
                resumed.last_id
            ));
        }
        let total_games = match config.target {
            Target::Games(n) => (1..=n).filter(|&id| config.plays(id)).count() as u64,
            Target::Positions(_) => 0,
        };
        let prospect = DatagenPlan {
            recorded: resumed.games,
        };
        Ok(Opened {
            schedule: Selfplay::new(config, setup.openings, writer, resumed),
            prospect,
            repairs,
            total_games,
        })
    }

    /// Writes the positions, the summary and the page: a worker, from every worker's games
    /// once it finds every game recorded (stopped before, its own: others may be writing
    /// theirs); a shard or a run on one machine, its own.
    fn finish(
        config: &DatagenConfig,
        schedule: Selfplay<'_>,
        ended: &Ended,
    ) -> Result<DatagenReport, SessionError<DatagenError>> {
        let state = schedule.into_state();
        let dir = &ended.dir;
        let failures =
            crate::report::Summary::behaviour_failures_of(&[RunDir::new(dir).games_csv()])?;
        let whole_run = ended.stopped == Stopped::Done && ended.not_played.is_empty();
        let (files, written) = match &config.run.worker {
            Some(_) if !whole_run => (super::workers::worker_files(dir), dir.clone()),
            Some(_) => (
                super::workers::games_files(&config.run.out)
                    .map_err(|e| SessionError::Kind(DatagenError::Workers(e)))?
                    .unwrap_or_default(),
                config.run.out.clone(),
            ),
            None => (vec![dir.join(GAMES_FILE)], dir.clone()),
        };
        let kind = SessionError::Kind;
        let mut summary = write_positions(config, &files, &written).map_err(kind)?;
        let seconds = ended.seconds.max(1e-9);
        summary.seconds = Some(ended.seconds);
        summary.positions_per_second = Some(state.session_plies as f64 / seconds);
        write_summary(&written, &summary).map_err(kind)?;
        super::report::write(config, &summary, &written, false)
            .map_err(|e| SessionError::Kind(DatagenError::Results(e)))?;
        Ok(DatagenReport {
            summary,
            dir: written,
            whole_run,
            failures,
        })
    }
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
    let summary = convert::convert(
        games,
        config.run.rules,
        &config.convert_settings(),
        &mut sinks,
    )?;
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
    /// `--random-multipv K` with a K its `MultiPV` option does not take (beyond its range).
    MultiPvRefused(String, crate::protocol::ValueRefused),
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
            ProbeError::MultiPvRefused(name, refused) => write!(
                f,
                "--random-multipv: engine '{name}' does not take MultiPV {}: {refused}; give K \
                 within its range",
                refused.value
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
/// move from the start of the run's board at its limit: it must report a score, and declare `MultiPV`
/// taking K with `--random-multipv K,..`.
///
/// # Errors
/// [`ProbeError`] naming the engine.
pub fn probe_scores(config: &DatagenConfig) -> Result<(), ProbeError> {
    for spec in &config.engines {
        let name = spec.name.clone();
        let mut engine = Engine::start(&spec.launch(), config.run.rules, config.run.board)
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
            .find(|option| option.name.eq_ignore_ascii_case("MultiPV"))
            .cloned();
        if let Some(random) = config.random_multipv {
            let Some(multipv) = multipv else {
                engine.quit();
                return Err(ProbeError::NoMultiPv(name));
            };
            if let Err(refused) = multipv.check_value(&random.lines.to_string()) {
                engine.quit();
                return Err(ProbeError::MultiPvRefused(name, refused));
            }
        }
        let reply = engine.new_game().and_then(|()| {
            engine.go(
                &Position::start(config.run.board),
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
