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
//! that will recur ([`EngineError::recurs_at_start`](crate::engine::EngineError::recurs_at_start)) or [`MAX_START_FAILURES`] failures in a
//! row; its games are reported as not played and `--resume` tries them again (`runner/starts.rs`).
//! The results directory is locked, and its saved config and recorded games read, in
//! `runner/directory.rs`; the progress line is drawn in `runner/progress.rs`; a worker thread
//! plays its games in `runner/worker.rs`.

mod directory;
mod live_report;
mod progress;
mod starts;
mod worker;

pub(crate) use directory::lock_directory;
pub use directory::saved_config;
pub use live_report::{REPORT_COST_FACTOR, REPORT_INTERVAL};
pub use starts::{GivenUp, MAX_START_FAILURES, NotPlayed};
pub use worker::file_safe;
pub(crate) use worker::{game_record, launch};

use super::config::{SeedOrigin, TournamentConfig};
use super::schedule::{ScheduledGame, shard_games};
use super::shard::sprt::SprtWatcher;
use crate::game;
use crate::openings::{Book, Opening};
use crate::records::{GameRecord, GamesReader, ResultsWriter};
use crate::report::Summary;
use crate::rules::{Color, Position};
use crate::run::games::{GameSources, ReadError, RunReading, Verdict, summary_of_file};
use crate::run::identity::{self, IdentityError};
use crate::run_dir::RunDir;
use crate::stats::{SequentialTest, Sprt, SprtDecision};
use crate::{records, report};
use directory::{recorded_games, save_config};
use indicatif::ProgressBar;
use live_report::LiveReport;
use progress::{RunTally, progress_bar};
use starts::{EngineStarts, Starts};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use worker::Worker;

/// Why the run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// Every scheduled game was played (or could not be started).
    Completed,
    /// The SPRT accepted a hypothesis.
    Sprt(SprtDecision),
    /// Stopped by the user; `--resume` continues.
    Interrupted,
    /// The session's deadline (`--max-time`) passed before the schedule was played: no new
    /// game pair started after it (pairs begun were finished); `--resume` continues.
    TimeLimit,
}

/// What a run produced.
#[derive(Debug)]
pub struct RunReport {
    /// Why it stopped.
    pub finish: Finish,
    /// The run's verdict, as every command reading the run gives it.
    pub verdict: Verdict,
    /// The report over every game of the run (including earlier sessions; of a shard, over
    /// every shard's games, read as [`GameSources`] reads them).
    pub summary: Summary,
    /// The run's games, as read for the report.
    pub sources: GameSources,
    /// What reading them found: the games of the schedule missing.
    pub reading: RunReading,
    /// Games not played because an engine could not start, in the order they were dropped.
    /// They are not recorded and are retried by `--resume`.
    pub not_played: Vec<NotPlayed>,
    /// Engines given up after start failures, in the order they were given up.
    pub given_up: Vec<GivenUp>,
}

/// What a run is about to do, known once everything is checked and before any game starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Games in the schedule (of a shard, its part of it).
    pub scheduled: usize,
    /// Games of the schedule already recorded (by an earlier session).
    pub recorded: usize,
    /// What was repaired in the results files of an interrupted session, one line each (see
    /// [`ResultsWriter::repairs`]).
    pub repaired: Vec<String>,
}

/// How a run starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A new run, whose seed was given or drawn.
    Fresh(SeedOrigin),
    /// A run continued from its saved config (`--resume`).
    Resume,
}

/// Errors that stop a run before or after its games (engine failures during games are
/// adjudicated, not errors).
#[derive(Debug)]
pub enum RunError {
    /// The opening book cannot be used.
    Book(crate::openings::BookError),
    /// The results cannot be read or written.
    Results(records::RecordsError),
    /// The results directory already holds games of another run.
    OutputExists(PathBuf),
    /// The config cannot be saved, or the recorded games do not fit it.
    Config(String),
    /// Another bt-arena is writing the results directory.
    Busy(PathBuf),
    /// The run cannot start in its directory: it holds another run, or the shard's settings
    /// are not the run's.
    Identity(IdentityError),
    /// The run's games cannot be read back for its report.
    Read(ReadError),
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
            RunError::Identity(err) => err.fmt(f),
            RunError::Read(err) => err.fmt(f),
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

impl From<records::RecordsError> for RunError {
    fn from(err: records::RecordsError) -> Self {
        RunError::Results(err)
    }
}

/// Runs (or, with [`Start::Resume`], continues) the tournament of `config`. First the run's
/// identity is decided or joined ([`identity::establish`]): a run id is given to a new run,
/// and a shard takes its run's id and, when its seed was drawn, the run's seed, so `config`
/// is updated. `stop` is the Ctrl-C flag: once set, no game starts and games in flight are
/// dropped at their next move. `announce` is called once with the config and the [`Plan`]
/// after every check has passed (book, identity, results directory, lock, recorded games)
/// and before any game starts, so start-up messages never precede a fatal error. The report
/// at the end reads the run as every other command does ([`GameSources`]): of a shard, every
/// shard's games.
///
/// # Errors
/// [`RunError`] when the book, the results directory or the config file cannot be used, the
/// shard cannot join its run, or the games cannot be read back.
pub fn run(
    config: &mut TournamentConfig,
    start: Start,
    stop: &AtomicBool,
    announce: impl FnOnce(&TournamentConfig, Plan),
) -> Result<RunReport, RunError> {
    let openings = load_openings(config)?;
    take_book_digest(config, start)?;
    let dir = config.results_dir();
    let games_csv = RunDir::new(&dir).games_csv();
    let seed = match start {
        Start::Fresh(seed) => seed,
        Start::Resume => SeedOrigin::Given,
    };
    identity::establish(config, seed).map_err(RunError::Identity)?;
    if games_csv.exists() && matches!(start, Start::Fresh(_)) {
        return Err(RunError::OutputExists(dir));
    }
    let config = &*config;
    let _lock = lock_directory(&dir)?;
    save_config(config)?;
    let scheduled = shard_games(config, openings.len());
    let done = recorded_games(config, &scheduled, &games_csv)?;
    let live = LiveReport::start(&dir, &config.session)?;
    let writer = config.results_writer(&dir)?;
    let repaired = writer.repairs().to_vec();
    // A pair is never cut in half: the games whose partner is recorded (in flight when an
    // earlier session stopped, or a row removed on repair) come first, and are played even
    // after a verdict, as games in flight are.
    let finishing = pairs_in_flight(&scheduled, &done);
    let (first, rest): (Vec<ScheduledGame>, Vec<ScheduledGame>) = scheduled
        .iter()
        .filter(|game| !done.contains(&game.game_id))
        .partition(|game| finishing.contains(&game.pair));
    let queue: VecDeque<ScheduledGame> = first.into_iter().chain(rest).collect();
    announce(
        config,
        Plan {
            scheduled: scheduled.len(),
            recorded: done.len(),
            repaired,
        },
    );
    let mut shared = Shared::new(config, &openings, queue, writer, scheduled.len(), stop);
    shared.finishing = finishing;
    *lock(&shared.live) = live;
    shared.seed_tally(&games_csv)?;
    let workers = config.concurrency.min(lock(&shared.queue).len());
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let shared = &shared;
            scope.spawn(move || Worker::new(shared, worker).run());
        }
    });
    shared.progress.finish_and_clear();
    shared.last_look();
    if let Some(err) = shared
        .write_error
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        return Err(err.into());
    }
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    // The run's report and verdict, read as every other command reads the run: a run on one
    // machine replays games.csv in its order, the order the running test was fed, so its
    // verdict is the one that stopped the run whatever games in flight added after it; a
    // shard reads every shard's games in game-id order. Streamed: memory does not grow with
    // the games.
    let sources = GameSources::open(&[&config.out]).map_err(RunError::Read)?;
    let (summary, reading) = sources
        .summary(&names, config.sprt.as_ref())
        .map_err(RunError::Read)?;
    // A shard's own files report its own games (without the SPRT: the run's is over every
    // shard).
    let mut own = match config.shard {
        Some(_) => summary_of_file(&games_csv, &names, None).map_err(RunError::Read)?,
        None => summary.clone(),
    };
    own.builds = records::provenance::EngineProvenance::of_engines(&config.engines);
    report::write_summary(&dir, &own)?;
    lock(&shared.live).finish(&dir, &own, shared.sprt.as_ref())?;
    let verdict = Verdict::of(&summary, &reading);
    let finish = match verdict {
        Verdict::Accepted(decision) => Finish::Sprt(decision),
        _ if stop.load(Ordering::SeqCst) => Finish::Interrupted,
        _ if shared.out_of_time.load(Ordering::SeqCst) => Finish::TimeLimit,
        _ => Finish::Completed,
    };
    let starts = shared
        .starts
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    Ok(RunReport {
        finish,
        verdict,
        summary,
        sources,
        reading,
        not_played: starts.not_played,
        given_up: starts
            .engines
            .into_iter()
            .filter_map(|engine| engine.given_up)
            .collect(),
    })
}

/// Takes the SHA-256 of the book's bytes into the config (its `openings.digest`), which is
/// part of the run's identity. A resumed run whose book changed since it started is refused.
///
/// # Errors
/// [`RunError::Config`] when the book cannot be read, or changed since the run started.
fn take_book_digest(config: &mut TournamentConfig, start: Start) -> Result<(), RunError> {
    use sha2::Digest;
    let Some(path) = &config.openings.file else {
        return Ok(());
    };
    let bytes = crate::openings::book_bytes(path)
        .map_err(|e| RunError::Config(format!("cannot read {}: {e}", path.display())))?;
    let digest: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    match (&config.openings.digest, start) {
        (Some(saved), Start::Resume) if *saved != digest => Err(RunError::Config(format!(
            "the book {} changed since the run started (its SHA-256 was {saved}, is {digest}): \
             restore it to continue the run, or start another run",
            path.display()
        ))),
        _ => {
            config.openings.digest = Some(digest);
            Ok(())
        }
    }
}

/// The pairs of `scheduled` some but not all of whose games are in `done`.
fn pairs_in_flight(scheduled: &[ScheduledGame], done: &HashSet<u64>) -> HashSet<u64> {
    let mut recorded: HashMap<u64, (usize, usize)> = HashMap::new();
    for game in scheduled {
        let (played, all) = recorded.entry(game.pair).or_default();
        *all += 1;
        *played += usize::from(done.contains(&game.game_id));
    }
    recorded
        .into_iter()
        .filter(|(_, (played, all))| *played > 0 && played < all)
        .map(|(pair, _)| pair)
        .collect()
}

/// The book's openings, or the start position alone when there is no book. Prints a warning
/// when the book repeats positions.
pub(crate) fn load_openings(config: &TournamentConfig) -> Result<Vec<Opening>, RunError> {
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

/// State the workers share.
struct Shared<'a> {
    config: &'a TournamentConfig,
    openings: &'a [Opening],
    queue: Mutex<VecDeque<ScheduledGame>>,
    writer: Mutex<ResultsWriter>,
    tally: Mutex<RunTally>,
    starts: Mutex<Starts>,
    sprt_stop: AtomicBool,
    progress: ProgressBar,
    stop: &'a AtomicBool,
    sprt: Option<Sprt>,
    /// A shard's SPRT over every shard's games (its own SPRT is then off: `sprt` is `None`).
    watcher: Option<Mutex<SprtWatcher>>,
    write_error: Mutex<Option<records::RecordsError>>,
    live: Mutex<LiveReport>,
    /// The pair of the game taken last from the queue: after the deadline only its games
    /// start.
    last_pair: Mutex<Option<u64>>,
    /// Set when the deadline kept a game pair from starting.
    out_of_time: AtomicBool,
    /// Pairs one of whose games an earlier session recorded: their other games are played
    /// whatever the SPRT says.
    finishing: HashSet<u64>,
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
        let sprt = config.sprt.filter(|_| config.shard.is_none());
        Shared {
            config,
            openings,
            queue: Mutex::new(queue),
            writer: Mutex::new(writer),
            tally: Mutex::new(RunTally {
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
            watcher: SprtWatcher::for_config(config).map(Mutex::new),
            write_error: Mutex::new(None),
            live: Mutex::new(LiveReport::default()),
            last_pair: Mutex::new(None),
            out_of_time: AtomicBool::new(false),
            finishing: HashSet::new(),
        }
    }

    /// Counts the games of an earlier session into the tally, in file order, so the progress
    /// bar's score and a resumed SPRT continue from them (a decided SPRT plays no game).
    fn seed_tally(&self, games_csv: &Path) -> Result<(), RunError> {
        if !games_csv.exists() {
            return Ok(());
        }
        let mut tally = lock(&self.tally);
        for game in GamesReader::open(games_csv)? {
            let game = game?;
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

    /// The next game to play: none after Ctrl-C; after a verdict, only a game that finishes
    /// a pair whose other game is recorded.
    fn next_game(&self) -> Option<ScheduledGame> {
        if self.stop.load(Ordering::SeqCst) {
            return None;
        }
        let mut queue = lock(&self.queue);
        let pair = queue.front()?.pair;
        let mut last_pair = lock(&self.last_pair);
        if self.finishing.contains(&pair) {
            *last_pair = Some(pair);
            return queue.pop_front();
        }
        if *last_pair != Some(pair)
            && self
                .config
                .session
                .deadline
                .is_some_and(|deadline| std::time::Instant::now() >= deadline)
        {
            self.out_of_time.store(true, Ordering::SeqCst);
            return None;
        }
        if self.stopping() || !self.shared_sprt_allows(pair) {
            return None;
        }
        *last_pair = Some(pair);
        queue.pop_front()
    }

    /// Whether a shard may start a game of `pair` ([`SprtWatcher::may_start`]); once the
    /// shared SPRT has a verdict no game pair starts, and a failure to read or record the
    /// shards' results stops the run with that error.
    fn shared_sprt_allows(&self, pair: u64) -> bool {
        let Some(watcher) = &self.watcher else {
            return true;
        };
        let mut watcher = lock(watcher);
        match watcher.may_start(pair) {
            Ok(true) => return true,
            Ok(false) => {}
            Err(err) => {
                lock(&self.write_error).get_or_insert(err);
            }
        }
        if let Some(verdict) = watcher
            .verdict()
            .filter(|_| !self.sprt_stop.swap(true, Ordering::SeqCst))
        {
            self.say(&format!(
                "{verdict}; no new game pair starts on shard {}",
                self.config.shard.map(|s| s.to_string()).unwrap_or_default()
            ));
        }
        self.sprt_stop.store(true, Ordering::SeqCst);
        false
    }

    /// A shard's last look at the shared SPRT once its games are done (its last games may
    /// decide it): the decision, if any.
    fn last_look(&self) -> Option<SprtDecision> {
        let mut watcher = lock(self.watcher.as_ref()?);
        match watcher.look() {
            Ok(verdict) => verdict.map(|v| v.report.decision),
            Err(err) => {
                lock(&self.write_error).get_or_insert(err);
                None
            }
        }
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
        let ending = played
            .termination
            .is_adjudication()
            .then_some(detail.as_str());
        if let Err(err) = writer.append_with_ending(record, &played.infos, ending) {
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
        // Counted before the message is set, so a drawn verdict never shows the count before it.
        self.progress.inc(1);
        self.progress.set_message(self.score_line(&tally));
        drop(tally);
        if let (Some(verdict), Some(sprt)) = (verdict, &self.sprt) {
            self.sprt_stop.store(true, Ordering::SeqCst);
            self.say(&format!(
                "SPRT decided at game {}: {}; games in flight are finished and recorded",
                verdict.games,
                sprt.report(verdict.llr)
            ));
        }
        self.interim_report();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::records::tests::record;
    use crate::records::{GameResult::*, Termination};
    use crate::tournament::config::{Format, OpeningsSpec};

    fn two_engines(out: &Path) -> TournamentConfig {
        let engine = |name: &str| {
            EngineKeys::parse(&["cmd=unused", &format!("name={name}")])
                .and_then(|keys| keys.into_description(TimeControl::Depth(1)))
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
            shard: None,
            log: false,
            pgn_comments: Default::default(),
            scale_tc: None,
            session: Default::default(),
            run_id: None,
            adjudication: Default::default(),
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
        let scheduled = shard_games(&config, openings.len());
        assert_eq!(scheduled.len(), 6);
        let queue = scheduled
            .iter()
            .filter(|g| g.game_id > 4)
            .copied()
            .collect();
        let stop = AtomicBool::new(false);
        let shared = Shared::new(&config, &openings, queue, writer, scheduled.len(), &stop);
        shared
            .seed_tally(&RunDir::new(dir.path()).games_csv())
            .unwrap();
        assert_eq!(shared.progress.position(), 4);
        assert_eq!(shared.progress.length(), Some(6));
        assert_eq!(shared.progress.message(), "a 3, b 1");
    }

    #[test]
    fn with_an_sprt_the_bar_shows_the_llr_and_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = two_engines(dir.path());
        let sprt: Sprt = "elo0=0 elo1=5".parse().unwrap();
        config.sprt = Some(sprt);
        let writer = four_recorded_games(&config);
        let openings = load_openings(&config).unwrap();
        let stop = AtomicBool::new(false);
        let shared = Shared::new(&config, &openings, VecDeque::new(), writer, 6, &stop);
        shared
            .seed_tally(&RunDir::new(dir.path()).games_csv())
            .unwrap();
        // Pairs WW and WL for a.
        let llr = sprt.llr_pentanomial(&crate::stats::Pentanomial::from([0, 0, 1, 0, 1]));
        assert_eq!(
            shared.progress.message(),
            format!("a 3, b 1  LLR {llr:.2} (-2.94, 2.94)")
        );
        assert!(llr > 0.0 && llr < 2.94, "{llr}");
    }
}
