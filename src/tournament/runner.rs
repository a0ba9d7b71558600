//! The tournament runner: workers that play the schedule, results saved as each game ends,
//! SPRT stopping, Ctrl-C handling and resume.
//!
//! `concurrency` worker threads take games from one queue. Each worker owns its engine
//! processes: with `restart=off` a process is kept between games; a process whose engine
//! misbehaved is always replaced. Every finished game is appended and flushed to the results
//! before the next one starts, so an interrupted run loses at most the games in flight, and
//! `--resume` plays exactly the games missing from `games.csv` (the schedule is rebuilt from the
//! saved config and its seed).

use super::config::{EngineSpec, TournamentConfig};
use super::game::{self, Players, Unfinished};
use super::schedule::{ScheduledGame, schedule};
use crate::engine::{Engine, EngineConfig};
use crate::openings::{Book, Opening};
use crate::results::{self, GameRecord, GameResult, ResultsWriter, Summary};
use crate::rules::{Color, Position};
use crate::stats::{Sprt, SprtDecision};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// Games no engine could start: (game id, why). They are not recorded and are retried by
    /// `--resume`.
    pub not_played: Vec<(u64, String)>,
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
/// once set, no game starts and games in flight are dropped at their next move.
///
/// # Errors
/// [`RunError`] when the book, the results directory or the config file cannot be used.
pub fn run(
    config: &TournamentConfig,
    resume: bool,
    stop: &AtomicBool,
) -> Result<RunReport, RunError> {
    let openings = load_openings(config)?;
    let games_csv = config.out.join(results::GAMES_CSV);
    if games_csv.exists() && !resume {
        return Err(RunError::OutputExists(config.out.clone()));
    }
    let _lock = lock_directory(&config.out)?;
    save_config(config)?;
    let scheduled = schedule(config, openings.len());
    let done = recorded_games(config, &scheduled, &games_csv)?;
    let writer = ResultsWriter::open(&config.out, config.rules)?.with_event(config.event.clone());
    let queue: VecDeque<ScheduledGame> = scheduled
        .iter()
        .filter(|game| !done.contains(&game.game_id))
        .copied()
        .collect();
    let sprt = config
        .sprt
        .as_deref()
        .and_then(|spec| spec.parse::<Sprt>().ok());
    let shared = Shared {
        config,
        openings: &openings,
        queue: Mutex::new(queue),
        writer: Mutex::new(writer),
        tally: Mutex::new(Tally::default()),
        not_played: Mutex::new(Vec::new()),
        sprt_stop: AtomicBool::new(false),
        progress: progress_bar(scheduled.len() as u64, done.len() as u64),
        stop,
        sprt,
        write_error: Mutex::new(None),
    };
    if sprt.is_some() {
        shared.seed_tally(&games_csv)?;
    }
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
    let all_games = results::read_games(&games_csv)?;
    let summary = Summary::compute(&all_games, &names, sprt.as_ref());
    results::write_summary(&config.out, &summary)?;
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
    Ok(RunReport {
        finish,
        summary,
        not_played: shared
            .not_played
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()),
    })
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

/// A progress bar on a terminal (hidden otherwise): games done of all, ETA, running score.
fn progress_bar(total: u64, done: u64) -> ProgressBar {
    let bar = ProgressBar::new(total).with_position(done);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} games  ETA {eta}  {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// Running counts for the progress line and the SPRT (first engine's view): memory stays flat
/// however many games are played.
#[derive(Default)]
struct Tally {
    /// Wins of each engine, by index.
    wins: HashMap<usize, u64>,
    /// First game of each pair still waiting for its partner: pair → did engine 0 win.
    open_pairs: HashMap<u64, bool>,
    /// Pentanomial counts [LL, LD, WL, WD, WW] of engine 0 over complete pairs.
    pentanomial: [u64; 5],
}

impl Tally {
    fn add(&mut self, pair: u64, winner: usize, engine0_won: bool) {
        *self.wins.entry(winner).or_default() += 1;
        match self.open_pairs.remove(&pair) {
            None => {
                self.open_pairs.insert(pair, engine0_won);
            }
            Some(first) => {
                let wins = usize::from(first) + usize::from(engine0_won);
                self.pentanomial[crate::stats::pentanomial_cell(wins)] += 1
            }
        }
    }
}

/// State the workers share.
struct Shared<'a> {
    config: &'a TournamentConfig,
    openings: &'a [Opening],
    queue: Mutex<VecDeque<ScheduledGame>>,
    writer: Mutex<ResultsWriter>,
    tally: Mutex<Tally>,
    not_played: Mutex<Vec<(u64, String)>>,
    sprt_stop: AtomicBool,
    progress: ProgressBar,
    stop: &'a AtomicBool,
    sprt: Option<Sprt>,
    write_error: Mutex<Option<results::ResultsError>>,
}

impl Shared<'_> {
    /// Counts the games of an earlier session into the tally, so a resumed SPRT continues.
    fn seed_tally(&self, games_csv: &Path) -> Result<(), RunError> {
        if !games_csv.exists() {
            return Ok(());
        }
        let mut tally = lock(&self.tally);
        for game in results::read_games(games_csv)? {
            if let Some(winner) = self.engine_index(&game) {
                tally.add(game.pair, winner, winner == 0);
            }
        }
        self.check_sprt(&tally);
        Ok(())
    }

    fn engine_index(&self, game: &GameRecord) -> Option<usize> {
        let name = match game.result.winner() {
            Color::White => &game.white,
            Color::Black => &game.black,
        };
        self.config.engines.iter().position(|e| &e.name == name)
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

    /// Saves a finished game, prints its line, and checks the SPRT.
    fn record(&self, record: &GameRecord, winner: usize, detail: &str) {
        if let Err(err) = lock(&self.writer).append(record) {
            *lock(&self.write_error) = Some(err);
            self.sprt_stop.store(true, Ordering::SeqCst);
            return;
        }
        let line = format!(
            "Finished game {} ({} vs {}): {} {{{detail}}}",
            record.game_id, record.white, record.black, record.result
        );
        self.say(&line);
        let mut tally = lock(&self.tally);
        tally.add(record.pair, winner, winner == 0);
        self.progress.set_message(self.score_line(&tally));
        self.progress.inc(1);
        self.check_sprt(&tally);
    }

    /// Stops the run once the SPRT decides (saying so once).
    fn check_sprt(&self, tally: &Tally) {
        if let Some(sprt) = &self.sprt {
            let llr = sprt.llr_pentanomial(&tally.pentanomial);
            if sprt.decision(llr) != SprtDecision::Continue
                && !self.sprt_stop.swap(true, Ordering::SeqCst)
            {
                self.say(&format!("SPRT decided: {}", sprt.report(llr)));
            }
        }
    }

    fn score_line(&self, tally: &Tally) -> String {
        self.config
            .engines
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{} {}", e.name, tally.wins.get(&i).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ")
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
        for index in [game.white, game.black] {
            if let Err(why) = self.ensure_started(index) {
                let reason = format!("{} could not start: {why}", config.engines[index].name);
                self.shared
                    .say(&format!("Game {} not played: {reason}", game.game_id));
                lock(&self.shared.not_played).push((game.game_id, reason));
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
                let winner = if played.winner == Color::White {
                    game.white
                } else {
                    game.black
                };
                self.shared.record(&record, winner, &played.detail);
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
    fn ensure_started(&mut self, index: usize) -> Result<(), String> {
        if self.engines[index].is_none() {
            let engine_config = engine_config(
                self.shared.config,
                &self.shared.config.engines[index],
                self.id,
            );
            let engine = Engine::start(&engine_config, self.shared.config.rules)
                .map_err(|e| e.to_string())?;
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
    }
}
