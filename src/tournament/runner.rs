//! The tournament runner: workers that play the schedule, results saved as each game ends,
//! SPRT stopping, Ctrl-C handling and resume.
//!
//! `concurrency` worker threads take games from one queue. Each worker owns its engine
//! processes: with `restart=off` a process is kept between games; a process whose engine
//! misbehaved is always replaced. Every finished game is appended and flushed to the results
//! before the next one starts, so an interrupted run loses at most the games in flight, and
//! `--resume` plays exactly the games missing from `games.csv` (the schedule is rebuilt from the
//! saved config and its seed).
//!
//! An engine that cannot start is given up (its games are no longer scheduled) after a failure
//! that will recur ([`EngineError::recurs_at_start`]) or [`MAX_START_FAILURES`] failures in a
//! row; its games are reported as not played and `--resume` tries them again.

use super::config::{EngineSpec, TimeControl, TournamentConfig};
use super::game::{self, Players, Unfinished};
use super::schedule::{ScheduledGame, schedule};
use crate::engine::{Engine, EngineConfig, EngineError};
use crate::openings::{Book, Opening};
use crate::results::html::{self, RunInfo};
use crate::results::pgn::PgnLimit;
use crate::results::{self, GameRecord, GameResult, ResultsWriter, Summary};
use crate::rules::{Color, Position};
use crate::stats::{Outcome, SequentialTest, Sprt, SprtDecision, Verdict};
use indicatif::{HumanDuration, ProgressBar, ProgressState, ProgressStyle};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why the run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// Every scheduled game was played (or could not be started).
    Completed,
    /// The SPRT accepted a hypothesis.
    Sprt(SprtDecision),
    /// Stopped by the user; `--resume` continues.
    Interrupted,
}

/// What a run produced.
#[derive(Debug)]
pub struct RunReport {
    /// Why it stopped.
    pub finish: Finish,
    /// The report over every game in the results directory (including earlier sessions).
    pub summary: Summary,
    /// Games not played because an engine could not start, in the order they were dropped.
    /// They are not recorded and are retried by `--resume`.
    pub not_played: Vec<NotPlayed>,
    /// Engines given up after start failures, in the order they were given up.
    pub given_up: Vec<GivenUp>,
}

/// A scheduled game left unplayed because one of its engines could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotPlayed {
    /// The game.
    pub game_id: u64,
    /// The configured name of the engine that could not start.
    pub engine: String,
    /// Why: the start error, or that the engine was given up.
    pub why: String,
}

/// An engine whose games were no longer scheduled after it failed to start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenUp {
    /// Its configured name.
    pub engine: String,
    /// The last start error.
    pub error: String,
    /// Failed starts in a row, the last included.
    pub failures: u32,
    /// Whether the last error recurs at every start ([`EngineError::recurs_at_start`]).
    pub recurs: bool,
}

/// Failed starts in a row after which an engine is given up even though its failure may pass
/// (a timeout, an exit during start-up); a failure that recurs gives it up at once.
pub const MAX_START_FAILURES: u32 = 3;

/// What a run is about to do, known once everything is checked and before any game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Games in the schedule.
    pub scheduled: usize,
    /// Games of the schedule already recorded (by an earlier session).
    pub recorded: usize,
}

/// Errors that stop a run before or after its games (engine failures during games are
/// adjudicated, not errors).
#[derive(Debug)]
pub enum RunError {
    /// The opening book cannot be used.
    Book(crate::openings::BookError),
    /// The results cannot be read or written.
    Results(results::ResultsError),
    /// The results directory already holds games of another run.
    OutputExists(PathBuf),
    /// The config cannot be saved, or the recorded games do not fit it.
    Config(String),
    /// Another bt-arena is writing the results directory.
    Busy(PathBuf),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Book(err) => err.fmt(f),
            RunError::Results(err) => err.fmt(f),
            RunError::OutputExists(dir) => write!(
                f,
                "{} already holds games: continue it with --resume {0} or choose another --out",
                dir.display()
            ),
            RunError::Config(err) => f.write_str(err),
            RunError::Busy(dir) => write!(
                f,
                "another bt-arena is running on {} (it holds {}/.lock)",
                dir.display(),
                dir.display()
            ),
        }
    }
}

impl std::error::Error for RunError {}

impl From<results::ResultsError> for RunError {
    fn from(err: results::ResultsError) -> Self {
        RunError::Results(err)
    }
}

/// The file the effective config is saved to, in the results directory.
pub const CONFIG_FILE: &str = "config.json";

/// Runs (or, with `resume`, continues) the tournament of `config`. `stop` is the Ctrl-C flag:
/// once set, no game starts and games in flight are dropped at their next move. `announce` is
/// called once with the [`Plan`] after every check has passed (book, results directory, lock,
/// recorded games) and before any game starts, so start-up messages never precede a fatal
/// error.
///
/// # Errors
/// [`RunError`] when the book, the results directory or the config file cannot be used.
pub fn run(
    config: &TournamentConfig,
    resume: bool,
    stop: &AtomicBool,
    announce: impl FnOnce(Plan),
) -> Result<RunReport, RunError> {
    let openings = load_openings(config)?;
    let games_csv = config.out.join(results::GAMES_CSV);
    if games_csv.exists() && !resume {
        return Err(RunError::OutputExists(config.out.clone()));
    }
    let _lock = lock_directory(&config.out)?;
    save_config(config)?;
    let run_info = start_run_info(config)?;
    let scheduled = schedule(config, openings.len());
    let done = recorded_games(config, &scheduled, &games_csv)?;
    let writer = ResultsWriter::open(&config.out, config.rules)?
        .with_event(config.event.clone())
        .with_limits(pgn_limits(config))
        .with_comments(config.pgn_comments);
    let queue: VecDeque<ScheduledGame> = scheduled
        .iter()
        .filter(|game| !done.contains(&game.game_id))
        .copied()
        .collect();
    announce(Plan {
        scheduled: scheduled.len(),
        recorded: done.len(),
    });
    let shared = Shared::new(config, &openings, queue, writer, scheduled.len(), stop);
    *lock(&shared.live) = LiveReport {
        info: run_info,
        ..LiveReport::default()
    };
    shared.seed_tally(&games_csv)?;
    let workers = config.concurrency.min(lock(&shared.queue).len());
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let shared = &shared;
            scope.spawn(move || Worker::new(shared, worker).run());
        }
    });
    shared.progress.finish_and_clear();
    if let Some(err) = shared
        .write_error
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        return Err(err.into());
    }
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    // The report replays games.csv in its order, the order the running test was fed: its
    // verdict is the one that stopped the run, whatever games in flight added after it.
    let all_games = results::read_games(&games_csv)?;
    let summary = Summary::compute(&all_games, &names, shared.sprt.as_ref());
    results::write_summary(&config.out, &summary)?;
    let info = std::mem::take(&mut lock(&shared.live).info);
    info.write(&config.out)?;
    html::write_run_report(
        &config.out,
        &all_games,
        &summary,
        shared.sprt.as_ref(),
        None,
    )?;
    let finish = if let Some(decision) = summary
        .sprt_decision()
        .filter(|d| *d != SprtDecision::Continue)
    {
        Finish::Sprt(decision)
    } else if stop.load(Ordering::SeqCst) {
        Finish::Interrupted
    } else {
        Finish::Completed
    };
    let starts = shared
        .starts
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    Ok(RunReport {
        finish,
        summary,
        not_played: starts.not_played,
        given_up: starts
            .engines
            .into_iter()
            .filter_map(|engine| engine.given_up)
            .collect(),
    })
}

/// How often report.html is rewritten while games finish: after the first game, then at most
/// once per this interval, or per [`REPORT_COST_FACTOR`] times the last rewrite's duration when
/// that is longer (a run of many fast games spends at most a tenth of one worker's time on
/// it); and at the end.
pub const REPORT_INTERVAL: Duration = Duration::from_secs(2);

/// See [`REPORT_INTERVAL`].
pub const REPORT_COST_FACTOR: u32 = 10;

/// The run.json of this session: its command line and bt-arena's version, with the engine
/// identities an earlier session learnt; written at once.
fn start_run_info(config: &TournamentConfig) -> Result<RunInfo, RunError> {
    let info = RunInfo {
        command_line: std::env::args().collect(),
        bt_arena: env!("CARGO_PKG_VERSION").to_string(),
        engines: RunInfo::read(&config.out)
            .map(|earlier| earlier.engines)
            .unwrap_or_default(),
    };
    info.write(&config.out)?;
    Ok(info)
}

/// Each engine's limit for the PGN time control tags.
fn pgn_limits(config: &TournamentConfig) -> Vec<(String, PgnLimit)> {
    config
        .engines
        .iter()
        .map(|engine| {
            let limit = match engine.limit {
                TimeControl::Clock {
                    base_ms,
                    increment_ms,
                } => PgnLimit::Clock {
                    base_ms,
                    increment_ms,
                },
                fixed => PgnLimit::Fixed(fixed.to_string()),
            };
            (engine.name.clone(), limit)
        })
        .collect()
}

/// Holds an exclusive lock on `DIR/.lock` while the run lasts, so two runners never write
/// one results directory.
fn lock_directory(dir: &Path) -> Result<std::fs::File, RunError> {
    let path = dir.join(".lock");
    let file = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::File::create(&path))
        .map_err(|e| RunError::Config(format!("cannot create {}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(RunError::Busy(dir.to_path_buf())),
        Err(std::fs::TryLockError::Error(e)) => Err(RunError::Config(format!(
            "cannot lock {}: {e}",
            path.display()
        ))),
    }
}

/// The ids of the games already in `games_csv` (none when it does not exist yet).
///
/// # Errors
/// When the file holds a game twice, a game id outside the schedule, or a game whose engines
/// are not the scheduled ones: a resume must not count foreign or repeated games.
fn recorded_games(
    config: &TournamentConfig,
    scheduled: &[ScheduledGame],
    games_csv: &Path,
) -> Result<HashSet<u64>, RunError> {
    if !games_csv.exists() {
        return Ok(HashSet::new());
    }
    let mut done = HashSet::new();
    for game in results::read_games(games_csv)? {
        let bad = |why: String| {
            RunError::Config(format!(
                "cannot resume: {} game {}: {why}",
                games_csv.display(),
                game.game_id
            ))
        };
        let Some(slot) = scheduled.iter().find(|s| s.game_id == game.game_id) else {
            return Err(bad("not in this tournament's schedule".to_string()));
        };
        let expected = (
            &config.engines[slot.white].name,
            &config.engines[slot.black].name,
        );
        if (&game.white, &game.black) != expected {
            return Err(bad(format!(
                "played by {} vs {}, scheduled as {} vs {}",
                game.white, game.black, expected.0, expected.1
            )));
        }
        if !done.insert(game.game_id) {
            return Err(bad("recorded twice".to_string()));
        }
    }
    Ok(done)
}

/// The book's openings, or the start position alone when there is no book. Prints a warning
/// when the book repeats positions.
fn load_openings(config: &TournamentConfig) -> Result<Vec<Opening>, RunError> {
    match &config.openings.file {
        Some(path) => {
            let book = Book::load(path, config.rules).map_err(RunError::Book)?;
            if let Some(warning) = book.duplicates_warning() {
                eprintln!("warning: {warning}");
            }
            Ok(book.openings)
        }
        None => Ok(vec![Opening {
            id: 1,
            line: 0,
            position: Position::startpos(),
            comment: String::new(),
        }]),
    }
}

/// Writes the effective config as `config.json` in the results directory.
fn save_config(config: &TournamentConfig) -> Result<(), RunError> {
    let path = config.out.join(CONFIG_FILE);
    let save = || -> std::io::Result<()> {
        std::fs::create_dir_all(config.out.join("logs"))?;
        let json = serde_json::to_string_pretty(config).map_err(std::io::Error::other)?;
        std::fs::write(&path, json + "\n")
    };
    save().map_err(|e| RunError::Config(format!("cannot write {}: {e}", path.display())))
}

/// Reads the config saved in a results directory, for `--resume`.
///
/// # Errors
/// A message naming the file when it is missing or malformed.
pub fn saved_config(dir: &Path) -> Result<TournamentConfig, String> {
    TournamentConfig::read(&dir.join(CONFIG_FILE))
        .map_err(|e| format!("cannot resume {}: {e}", dir.display()))
}

/// A progress bar on a terminal (hidden otherwise) over `total` games of which `recorded` are
/// already in the results: games done of all, the time left at this session's pace (see
/// [`time_left`]), and the running score (the message, set by the caller).
fn progress_bar(total: u64, recorded: u64) -> ProgressBar {
    let bar = ProgressBar::new(total).with_position(recorded);
    // indicatif's own {eta} counts the recorded games as played in the first instant.
    let eta = move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
        let remaining = state.len().unwrap_or(0).saturating_sub(state.pos());
        let played = state.pos().saturating_sub(recorded);
        let _ = match time_left(remaining, played, state.elapsed()) {
            Some(left) => write!(out, "{:#}", HumanDuration(left)),
            None => out.write_str("?"),
        };
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} games  ETA {eta}  {msg}")
    {
        bar.set_style(style.with_key("eta", eta));
    }
    bar
}

/// The time `remaining` games take at the pace of `played` games in `elapsed` (this session's
/// games only: games recorded earlier took no time now); `None` before the first one ends.
fn time_left(remaining: u64, played: u64, elapsed: Duration) -> Option<Duration> {
    (played > 0).then(|| elapsed.mul_f64(remaining as f64 / played as f64))
}

/// Running counts for the progress line and the SPRT, fed in the order games are recorded:
/// memory holds the open game pairs only, however many games are played.
struct Tally {
    /// Wins of each engine, by index.
    wins: HashMap<usize, u64>,
    /// The SPRT of engine 0 against engine 1 (the only two), when one was asked for.
    sprt: Option<SequentialTest<u64>>,
}

impl Tally {
    /// Counts a game of pair `pair`; returns the SPRT's verdict when this game reaches it.
    fn add(&mut self, pair: u64, white: usize, winner: usize) -> Option<Verdict> {
        *self.wins.entry(winner).or_default() += 1;
        let outcome = Outcome {
            white: white == 0,
            won: winner == 0,
        };
        self.sprt.as_mut()?.add(pair, outcome)
    }
}

/// Start failures of every engine and the games they left unplayed.
struct Starts {
    /// By engine index.
    engines: Vec<EngineStarts>,
    /// Every game not played, in order.
    not_played: Vec<NotPlayed>,
}

/// Start failures of one engine.
#[derive(Default)]
struct EngineStarts {
    /// Failed starts since its last successful one (by any worker).
    failures: u32,
    /// Set once it is given up: its games are no longer played.
    given_up: Option<GivenUp>,
}

/// State the workers share.
struct Shared<'a> {
    config: &'a TournamentConfig,
    openings: &'a [Opening],
    queue: Mutex<VecDeque<ScheduledGame>>,
    writer: Mutex<ResultsWriter>,
    tally: Mutex<Tally>,
    starts: Mutex<Starts>,
    sprt_stop: AtomicBool,
    progress: ProgressBar,
    stop: &'a AtomicBool,
    sprt: Option<Sprt>,
    write_error: Mutex<Option<results::ResultsError>>,
    live: Mutex<LiveReport>,
}

/// The state of report.html during the run.
#[derive(Default)]
struct LiveReport {
    /// When it was last written.
    last: Option<Instant>,
    /// How long that took.
    cost: Duration,
    /// run.json, with the engine identities learnt so far.
    info: RunInfo,
    /// Set once a failure to write it was reported (it is not fatal).
    warned: bool,
}

impl<'a> Shared<'a> {
    /// The state of a run that plays `queue` (the games of a schedule of `scheduled` not yet
    /// recorded) and saves them with `writer`; the progress bar starts at the recorded games.
    fn new(
        config: &'a TournamentConfig,
        openings: &'a [Opening],
        queue: VecDeque<ScheduledGame>,
        writer: ResultsWriter,
        scheduled: usize,
        stop: &'a AtomicBool,
    ) -> Shared<'a> {
        let total = scheduled as u64;
        let recorded = total.saturating_sub(queue.len() as u64);
        let sprt = config
            .sprt
            .as_deref()
            .and_then(|spec| spec.parse::<Sprt>().ok());
        Shared {
            config,
            openings,
            queue: Mutex::new(queue),
            writer: Mutex::new(writer),
            tally: Mutex::new(Tally {
                wins: HashMap::new(),
                sprt: sprt.map(SequentialTest::new),
            }),
            starts: Mutex::new(Starts {
                engines: config
                    .engines
                    .iter()
                    .map(|_| EngineStarts::default())
                    .collect(),
                not_played: Vec::new(),
            }),
            sprt_stop: AtomicBool::new(false),
            progress: progress_bar(total, recorded),
            stop,
            sprt,
            write_error: Mutex::new(None),
            live: Mutex::new(LiveReport::default()),
        }
    }

    /// Counts the games of an earlier session into the tally, in file order, so the progress
    /// bar's score and a resumed SPRT continue from them (a decided SPRT plays no game).
    fn seed_tally(&self, games_csv: &Path) -> Result<(), RunError> {
        if !games_csv.exists() {
            return Ok(());
        }
        let mut tally = lock(&self.tally);
        for game in results::read_games(games_csv)? {
            let white = self.engine_index(&game.white);
            if let (Some(white), Some(winner)) = (white, self.engine_index(game.winner_name())) {
                tally.add(game.pair, white, winner);
            }
        }
        self.progress.set_message(self.score_line(&tally));
        if tally
            .sprt
            .as_ref()
            .is_some_and(|test| test.verdict().is_some())
        {
            self.sprt_stop.store(true, Ordering::SeqCst);
        }
        Ok(())
    }

    fn engine_index(&self, name: &str) -> Option<usize> {
        self.config.engines.iter().position(|e| e.name == name)
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.sprt_stop.load(Ordering::SeqCst)
    }

    fn next_game(&self) -> Option<ScheduledGame> {
        if self.stopping() {
            return None;
        }
        lock(&self.queue).pop_front()
    }

    /// True, noting `game` as not played, when one of its engines was given up (after `game`
    /// was taken from the queue).
    fn skip_if_given_up(&self, game: &ScheduledGame) -> bool {
        let mut starts = lock(&self.starts);
        let Some(index) = [game.white, game.black]
            .into_iter()
            .find(|&index| starts.engines[index].given_up.is_some())
        else {
            return false;
        };
        let why = given_up_reason(&self.config.engines[index].name);
        self.not_played(&mut starts, game.game_id, index, &why);
        true
    }

    /// Notes that engine `index` started, naming itself `id_name`: its failures in a row start
    /// again from zero, and run.json will name it.
    fn started(&self, index: usize, id_name: Option<&str>) {
        lock(&self.starts).engines[index].failures = 0;
        if let Some(id) = id_name {
            let name = self.config.engines[index].name.clone();
            lock(&self.live).info.engines.insert(name, id.to_string());
        }
    }

    /// Rewrites report.html from games.csv, unless it was written too recently (see
    /// [`REPORT_INTERVAL`]) or another worker is writing it. A failure is warned about once
    /// and does not stop the run.
    fn refresh_report(&self) {
        let Ok(mut live) = self.live.try_lock() else {
            return;
        };
        let wait = REPORT_INTERVAL.max(live.cost * REPORT_COST_FACTOR);
        if live.last.is_some_and(|at| at.elapsed() < wait) {
            return;
        }
        let started = Instant::now();
        let out = &self.config.out;
        let progress = (
            self.progress.position(),
            self.progress.length().unwrap_or(0),
        );
        let written = results::read_games(&out.join(results::GAMES_CSV)).and_then(|games| {
            let names: Vec<String> = self.config.engines.iter().map(|e| e.name.clone()).collect();
            let summary = Summary::compute(&games, &names, self.sprt.as_ref());
            html::write_run_report(out, &games, &summary, self.sprt.as_ref(), Some(progress))
        });
        live.last = Some(Instant::now());
        live.cost = started.elapsed();
        if let Err(err) = written
            && !live.warned
        {
            live.warned = true;
            self.say(&format!("warning: report.html not updated: {err}"));
        }
    }

    /// Leaves `game` unplayed because engine `index` could not start (saying so), and gives
    /// the engine up after a failure that recurs or [`MAX_START_FAILURES`] in a row: its games
    /// still queued are dropped.
    fn start_failed(&self, game: &ScheduledGame, index: usize, error: &EngineError) {
        let why = error.to_string();
        self.say(&format!("Game {} not played: {why}", game.game_id));
        let mut starts = lock(&self.starts);
        self.not_played(&mut starts, game.game_id, index, &why);
        let engine = &mut starts.engines[index];
        if engine.given_up.is_some() {
            return;
        }
        engine.failures += 1;
        let recurs = error.recurs_at_start();
        if !recurs && engine.failures < MAX_START_FAILURES {
            return;
        }
        let failures = engine.failures;
        let name = &self.config.engines[index].name;
        engine.given_up = Some(GivenUp {
            engine: name.clone(),
            error: why,
            failures,
            recurs,
        });
        let involves = |queued: &ScheduledGame| queued.white == index || queued.black == index;
        let dropped: Vec<ScheduledGame> = {
            let mut queue = lock(&self.queue);
            let dropped = queue.iter().copied().filter(involves).collect();
            queue.retain(|queued| !involves(queued));
            dropped
        };
        let why = given_up_reason(name);
        for queued in &dropped {
            self.not_played(&mut starts, queued.game_id, index, &why);
        }
        self.say(&format!(
            "Giving up engine '{name}' after {failures} failed start{}: its {} other queued games are not played",
            if failures == 1 { "" } else { "s" },
            dropped.len()
        ));
    }

    /// Records `game_id` as not played because of engine `index`; the progress bar no longer
    /// counts it.
    fn not_played(&self, starts: &mut Starts, game_id: u64, index: usize, why: &str) {
        starts.not_played.push(NotPlayed {
            game_id,
            engine: self.config.engines[index].name.clone(),
            why: why.to_string(),
        });
        self.progress.dec_length(1);
    }

    /// Saves a finished game, prints its line, and feeds the SPRT: once it reaches its
    /// verdict no game starts (games in flight are finished and recorded).
    fn record(&self, record: &GameRecord, played: &game::PlayedGame, game: &ScheduledGame) {
        let winner = if played.winner == Color::White {
            game.white
        } else {
            game.black
        };
        let detail = &played.detail;
        let mut writer = lock(&self.writer);
        if let Err(err) = writer.append_with(record, &played.infos) {
            *lock(&self.write_error) = Some(err);
            self.sprt_stop.store(true, Ordering::SeqCst);
            return;
        }
        // Taken before the writer is released, so the test sees the games in file order.
        let mut tally = lock(&self.tally);
        drop(writer);
        let line = format!(
            "Finished game {} ({} vs {}): {} {{{detail}}}",
            record.game_id, record.white, record.black, record.result
        );
        self.say(&line);
        let verdict = tally.add(record.pair, game.white, winner);
        self.progress.set_message(self.score_line(&tally));
        self.progress.inc(1);
        if let (Some(verdict), Some(sprt)) = (verdict, &self.sprt) {
            self.sprt_stop.store(true, Ordering::SeqCst);
            self.say(&format!(
                "SPRT decided at game {}: {}; games in flight are finished and recorded",
                verdict.games,
                sprt.report(verdict.llr)
            ));
        }
    }

    /// The progress bar's message: each engine's wins, then with an SPRT its LLR (at the
    /// verdict, once reached) and bounds: `a 3, b 1  LLR 0.41 (-2.94, 2.94)`.
    fn score_line(&self, tally: &Tally) -> String {
        let score = self
            .config
            .engines
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{} {}", e.name, tally.wins.get(&i).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ");
        let Some(test) = &tally.sprt else {
            return score;
        };
        let (lower, upper) = test.sprt().bounds();
        match test.verdict() {
            Some(verdict) => format!(
                "{score}  LLR {:.2} ({lower:.2}, {upper:.2}) {}",
                verdict.llr,
                match verdict.decision {
                    SprtDecision::AcceptH0 => "H0 accepted",
                    _ => "H1 accepted",
                }
            ),
            None => format!(
                "{score}  LLR {:.2} ({lower:.2}, {upper:.2})",
                test.counts().llr(test.sprt())
            ),
        }
    }

    /// Prints a line above the progress bar, or on stdout when there is no bar.
    fn say(&self, line: &str) {
        if self.progress.is_hidden() {
            // A closed stdout (e.g. `| head`) must not stop the games: the results are on disk.
            let _ = writeln!(std::io::stdout().lock(), "{line}");
        } else {
            self.progress.println(line);
        }
    }
}

/// Why a game of an engine given up is not played.
fn given_up_reason(engine: &str) -> String {
    format!("engine '{engine}' was given up after failing to start")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One worker thread and the engine processes it owns.
struct Worker<'a> {
    shared: &'a Shared<'a>,
    id: usize,
    engines: Vec<Option<Engine>>,
}

impl<'a> Worker<'a> {
    fn new(shared: &'a Shared<'a>, id: usize) -> Worker<'a> {
        Worker {
            shared,
            id,
            engines: shared.config.engines.iter().map(|_| None).collect(),
        }
    }

    fn run(mut self) {
        while let Some(game) = self.shared.next_game() {
            self.play(game);
        }
        for engine in self.engines.iter_mut().filter_map(Option::take) {
            engine.quit();
        }
    }

    fn play(&mut self, game: ScheduledGame) {
        let config = self.shared.config;
        if self.shared.skip_if_given_up(&game) {
            return;
        }
        for index in [game.white, game.black] {
            if let Err(error) = self.ensure_started(index) {
                self.shared.start_failed(&game, index, &error);
                return;
            }
        }
        let opening = &self.shared.openings[game.opening];
        let started = results::now_rfc3339();
        let (white, black) = two_mut(&mut self.engines, game.white, game.black);
        let (Some(white), Some(black)) = (white.as_mut(), black.as_mut()) else {
            return;
        };
        let mut players = Players {
            engines: [white, black],
            specs: [&config.engines[game.white], &config.engines[game.black]],
        };
        let played = game::play(
            &mut players,
            &opening.position,
            config.rules,
            self.shared.stop,
        );
        match played {
            Ok(played) => {
                let record = game_record(config, &game, opening, &played, started);
                self.shared.record(&record, &played, &game);
                self.shared.refresh_report();
                for (index, stray) in [game.white, game.black].iter().zip(&played.stray) {
                    if stray.lines > 0 {
                        let name = &config.engines[*index].name;
                        self.shared.say(&format!(
                            "warning: game {}: {name} wrote {stray}; none was played",
                            game.game_id
                        ));
                    }
                }
                if let Some(side) = played.faulty {
                    let index = if side == Color::White {
                        game.white
                    } else {
                        game.black
                    };
                    self.retire(index);
                }
            }
            Err(Unfinished::Interrupted) => {}
        }
        for index in [game.white, game.black] {
            if config.engines[index].restart {
                self.retire(index);
            }
        }
    }

    /// Starts engine `index` for this worker unless a process is already running.
    fn ensure_started(&mut self, index: usize) -> Result<(), EngineError> {
        if self.engines[index].is_none() {
            let engine_config = engine_config(
                self.shared.config,
                &self.shared.config.engines[index],
                self.id,
            );
            let engine = Engine::start(&engine_config, self.shared.config.rules)?;
            self.shared.started(index, engine.id_name());
            self.engines[index] = Some(engine);
        }
        Ok(())
    }

    /// Quits engine `index`'s process; the next game starts a fresh one.
    fn retire(&mut self, index: usize) {
        if let Some(engine) = self.engines[index].take() {
            engine.quit();
        }
    }
}

/// Mutable references to two different slots of `slots`.
fn two_mut<T>(slots: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "an engine cannot play itself");
    if a < b {
        let (left, right) = slots.split_at_mut(b);
        (&mut left[a], &mut right[0])
    } else {
        let (left, right) = slots.split_at_mut(a);
        (&mut right[0], &mut left[b])
    }
}

/// The process settings of `spec` for worker `worker`: logs under `<out>/logs/`.
fn engine_config(config: &TournamentConfig, spec: &EngineSpec, worker: usize) -> EngineConfig {
    let logs = config.out.join("logs");
    let file = |suffix: &str| logs.join(format!("{}-{worker}.{suffix}", file_safe(&spec.name)));
    EngineConfig {
        stderr_log: Some(file("stderr.log")),
        comm_log: config.log.then(|| file("log")),
        ..spec.engine_config()
    }
}

/// `name` with every character but ASCII letters, digits, `.`, `-` and `_` replaced by `_`,
/// and at most 64 characters long: safe as part of a file name.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_start_matches('.')
        .to_string()
}

/// The games.csv row of a finished game.
fn game_record(
    config: &TournamentConfig,
    game: &ScheduledGame,
    opening: &Opening,
    played: &game::PlayedGame,
    started: String,
) -> GameRecord {
    GameRecord {
        game_id: game.game_id,
        round: game.round,
        pair: game.pair,
        opening_id: opening.id,
        opening: opening.position.to_string(),
        white: config.engines[game.white].name.clone(),
        black: config.engines[game.black].name.clone(),
        result: GameResult::from_winner(played.winner),
        termination: played.termination,
        plies: played.moves.len() as u32,
        moves: played
            .moves
            .iter()
            .map(|mv| mv.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        white_ms: played.used_ms[0],
        black_ms: played.used_ms[1],
        started,
        white_stray: played.stray[0].lines,
        black_stray: played.stray[1].lines,
        move_info: results::moves::encode_column(&played.infos),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::record;
    use crate::results::{GameResult::*, Termination};
    use crate::tournament::config::{EngineKeys, Format, OpeningsSpec};

    fn two_engines(out: &Path) -> TournamentConfig {
        let engine = |name: &str| {
            EngineKeys::parse(&["cmd=unused", &format!("name={name}")])
                .and_then(|keys| keys.into_spec(TimeControl::Depth(1)))
                .unwrap()
        };
        TournamentConfig {
            event: "test".into(),
            engines: vec![engine("a"), engine("b")],
            format: Format::RoundRobin,
            rules: crate::rules::Rules::CaptureOnly,
            openings: OpeningsSpec::default(),
            rounds: 3,
            games: 2,
            concurrency: 1,
            seed: 1,
            sprt: None,
            out: out.to_path_buf(),
            log: false,
            pgn_comments: Default::default(),
        }
    }

    /// A writer on `config.out` holding games 1-4 of `a` against `b`: `a` wins 3 (pairs WW
    /// and WL from its side).
    fn four_recorded_games(config: &TournamentConfig) -> ResultsWriter {
        let mut writer = ResultsWriter::open(&config.out, config.rules).unwrap();
        for game in [
            record(1, 1, "a", "b", WhiteWins, Termination::GoalRank),
            record(2, 1, "b", "a", BlackWins, Termination::GoalRank),
            record(3, 2, "a", "b", BlackWins, Termination::AllCaptured),
            record(4, 2, "b", "a", BlackWins, Termination::GoalRank),
        ] {
            writer.append(&game).unwrap();
        }
        writer
    }

    #[test]
    fn a_resumed_bar_starts_at_the_recorded_games_and_their_score() {
        let dir = tempfile::tempdir().unwrap();
        let config = two_engines(dir.path());
        let writer = four_recorded_games(&config);
        let openings = load_openings(&config).unwrap();
        let scheduled = schedule(&config, openings.len());
        assert_eq!(scheduled.len(), 6);
        let queue = scheduled
            .iter()
            .filter(|g| g.game_id > 4)
            .copied()
            .collect();
        let stop = AtomicBool::new(false);
        let shared = Shared::new(&config, &openings, queue, writer, scheduled.len(), &stop);
        shared
            .seed_tally(&dir.path().join(results::GAMES_CSV))
            .unwrap();
        assert_eq!(shared.progress.position(), 4);
        assert_eq!(shared.progress.length(), Some(6));
        assert_eq!(shared.progress.message(), "a 3, b 1");
    }

    #[test]
    fn with_an_sprt_the_bar_shows_the_llr_and_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = two_engines(dir.path());
        config.sprt = Some("elo0=0 elo1=5".into());
        let writer = four_recorded_games(&config);
        let openings = load_openings(&config).unwrap();
        let stop = AtomicBool::new(false);
        let shared = Shared::new(&config, &openings, VecDeque::new(), writer, 6, &stop);
        shared
            .seed_tally(&dir.path().join(results::GAMES_CSV))
            .unwrap();
        let sprt: Sprt = "elo0=0 elo1=5".parse().unwrap();
        // Pairs WW and WL for a.
        let llr = sprt.llr_pentanomial(&[0, 0, 1, 0, 1]);
        assert_eq!(
            shared.progress.message(),
            format!("a 3, b 1  LLR {llr:.2} (-2.94, 2.94)")
        );
    }

    #[test]
    fn time_left_counts_only_this_sessions_games() {
        assert_eq!(time_left(60, 0, Duration::from_secs(6)), None);
        assert_eq!(
            time_left(60, 10, Duration::from_secs(20)),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            time_left(0, 10, Duration::from_secs(20)),
            Some(Duration::ZERO)
        );
    }
}
