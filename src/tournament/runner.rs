//! A tournament on the arena: round-robin and gauntlet game pairs ([`super::schedule`]) as a
//! [`Schedule`], with the SPRT that stops it (or, on a shard, the shared SPRT over every
//! shard's games), resume, and the report at the end.
//!
//! The arena ([`crate::arena`]) plays the games: workers, seats, the start-failure policy,
//! games.csv and games.pgn, stray and fault warnings, Ctrl-C and `--max-time`, the progress
//! line. This module decides what is played: the games of the schedule missing from games.csv
//! (a resumed run's schedule is rebuilt from the saved config and its seed), the second game
//! of a pair cut in half first, and no new pair once the SPRT has a verdict. The results
//! directory is locked, and its saved config and recorded games read, in `runner/directory.rs`;
//! the report while the run plays is written by `runner/live_report.rs`.

mod directory;
mod live_report;
mod tally;

pub use crate::arena::{
    GivenUp, MAX_START_FAILURES, NotPlayed, REPORT_COST_FACTOR, REPORT_INTERVAL,
};
pub use directory::saved_config;

use super::config::{SeedOrigin, TournamentConfig};
use super::schedule::{ScheduledGame, shard_games};
use super::shard::sprt::SprtWatcher;
use crate::arena::claims::{Claimed, UnitClaims};
use crate::arena::{self, Arena, Console, Flow, Job, LockError, Next, Schedule, Stopped, lock};
use crate::game;
use crate::openings::Opening;
use crate::records::{GameRecord, GamesReader, RecordsError};
use crate::report::Summary;
use crate::rules::Color;
use crate::run::games::{GameSources, ReadError, RunReading, Verdict, summary_of_file};
use crate::run::identity::{self, IdentityError};
use crate::run_dir::RunDir;
use crate::stats::{SequentialTest, Sprt, SprtDecision};
use crate::{records, report};
use directory::{recorded_games, save_config};
use live_report::LiveReport;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use tally::RunTally;

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
    /// The results directory cannot be locked: another bt-arena is writing it, or the lock
    /// file cannot be created.
    Lock(LockError),
    /// The run cannot start in its directory: it holds another run, or the shard's settings
    /// are not the run's.
    Identity(Box<IdentityError>),
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
            RunError::Lock(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for RunError {}

impl From<LockError> for RunError {
    fn from(err: LockError) -> Self {
        RunError::Lock(err)
    }
}

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
    identity::establish(config, seed).map_err(|e| RunError::Identity(Box::new(e)))?;
    if games_csv.exists() && matches!(start, Start::Fresh(_)) {
        return Err(RunError::OutputExists(dir));
    }
    let config = &*config;
    let _lock = arena::lock_directory(&dir)?;
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
    let to_play = queue.len();
    let mut schedule = Pairs::new(config, queue, finishing, live);
    if let (Some(worker), Some(lease)) = (&config.worker, config.lease_ms) {
        let lease = std::time::Duration::from_millis(lease);
        schedule.claims = Some(
            UnitClaims::new(&config.out, worker, lease, "pair", |game| game.pair).map_err(
                |source| {
                    RunError::Results(RecordsError::Io {
                        path: RunDir::new(&config.out).claims(),
                        action: "cannot create",
                        source,
                    })
                },
            )?,
        );
    }
    schedule.seed_tally(&games_csv)?;
    let arena = Arena {
        engines: &config.engines,
        rules: config.rules,
        adjudication: &config.adjudication,
        checks: config.session.claim_checks,
        openings: &openings,
        dir: dir.clone(),
        log: config.log,
        concurrency: config.concurrency.min(to_play),
        affinity: config.session.affinity.clone(),
        deadline: config.session.deadline,
        rating_interval: config.session.rating_interval,
        progress: (scheduled.len() as u64, done.len() as u64),
        stop,
    };
    let played = arena::play(&arena, &schedule, writer)?;
    if let Some(claims) = &schedule.claims {
        // Pairs in flight when the run stopped are another worker's at once.
        claims.release_all();
    }
    schedule.last_look();
    if let Some(err) = lock(&schedule.error).take() {
        return Err(err.into());
    }
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    // The run's report and verdict, read as every other command reads the run: a run on one
    // machine replays games.csv in its order, the order the running test was fed, so its
    // verdict is the one that stopped the run whatever games in flight added after it; a
    // shard reads every shard's games in game-id order. Streamed: memory does not grow with
    // the games.
    let sources = GameSources::open(&[&config.out]).map_err(RunError::Read)?;
    let (mut summary, reading) = sources
        .summary(&names, config.sprt.as_ref())
        .map_err(RunError::Read)?;
    config.session.anchor(&mut summary);
    // A shard's own files report its own games (without the SPRT: the run's is over every
    // shard).
    let mut own = match config.shard.is_some() || config.worker.is_some() {
        true => summary_of_file(&games_csv, &names, None).map_err(RunError::Read)?,
        false => summary.clone(),
    };
    config.session.anchor(&mut own);
    own.builds = records::provenance::EngineProvenance::of_engines(&config.engines);
    report::write_summary(&dir, &own)?;
    lock(&schedule.live).finish(&dir, &own, schedule.sprt.as_ref())?;
    let verdict = Verdict::of(&summary, &reading);
    let finish = match (verdict, played.stopped) {
        (Verdict::Accepted(decision), _) => Finish::Sprt(decision),
        (_, Stopped::Interrupted) => Finish::Interrupted,
        (_, Stopped::TimeLimit) => Finish::TimeLimit,
        (_, Stopped::Done) => Finish::Completed,
    };
    Ok(RunReport {
        finish,
        verdict,
        summary,
        sources,
        reading,
        not_played: played.not_played,
        given_up: played.given_up,
    })
}

/// Takes the SHA-256 of the book's bytes into the config (its `openings.digest`), which is
/// part of the run's identity. A resumed run whose book changed since it started is refused.
///
/// # Errors
/// [`RunError::Config`] when the book cannot be read, or changed since the run started.
fn take_book_digest(config: &mut TournamentConfig, start: Start) -> Result<(), RunError> {
    config
        .openings
        .take_digest(matches!(start, Start::Resume))
        .map_err(RunError::Config)
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

/// The book's openings, or the start position alone when there is no book
/// ([`crate::openings::load_openings`]).
pub(crate) fn load_openings(config: &TournamentConfig) -> Result<Vec<Opening>, RunError> {
    crate::openings::load_openings(config.openings.file.as_deref(), config.rules)
        .map_err(RunError::Book)
}

/// The games of a tournament (or of its shard) as the arena's [`Schedule`]: the queue of
/// games not yet recorded, the running score and SPRT, and a shard's watch on the shared
/// SPRT.
struct Pairs<'a> {
    config: &'a TournamentConfig,
    queue: Mutex<VecDeque<ScheduledGame>>,
    tally: Mutex<RunTally>,
    /// Set once the SPRT (the run's, or a shard's shared one) has a verdict: no new pair
    /// starts.
    sprt_stop: AtomicBool,
    /// The run's SPRT; `None` on a shard (its SPRT is over every shard: `watcher`).
    sprt: Option<Sprt>,
    watcher: Option<Mutex<SprtWatcher>>,
    /// A failure to read the shards' results: the run stops with it.
    error: Mutex<Option<RecordsError>>,
    live: Mutex<LiveReport>,
    /// The pair of the game taken last from the queue: after the deadline only its games
    /// start.
    last_pair: Mutex<Option<u64>>,
    /// Pairs one of whose games an earlier session recorded: their other games are played
    /// whatever the SPRT says.
    finishing: HashSet<u64>,
    /// A worker's claims on the run's pairs (`--worker`): it plays only the pairs it claims.
    claims: Option<UnitClaims>,
    /// A worker's games of the pairs it claimed, not started yet (taken out of `queue`).
    mine: Mutex<VecDeque<ScheduledGame>>,
}

impl<'a> Pairs<'a> {
    /// The schedule that plays `queue` (the games of the run not yet recorded), the pairs
    /// `finishing` first.
    fn new(
        config: &'a TournamentConfig,
        queue: VecDeque<ScheduledGame>,
        finishing: HashSet<u64>,
        live: LiveReport,
    ) -> Pairs<'a> {
        let sprt = config
            .sprt
            .filter(|_| config.shard.is_none() && config.worker.is_none());
        Pairs {
            config,
            queue: Mutex::new(queue),
            tally: Mutex::new(RunTally::new(sprt.map(SequentialTest::new))),
            sprt_stop: AtomicBool::new(false),
            sprt,
            watcher: SprtWatcher::for_config(config).map(Mutex::new),
            error: Mutex::new(None),
            live: Mutex::new(live),
            last_pair: Mutex::new(None),
            finishing,
            claims: None,
            mine: Mutex::default(),
        }
    }

    /// A worker's next game: a game of a pair it plays, else the first game of the lowest
    /// pair it can claim (after a verdict, none); [`Next::Wait`] while the pairs left are
    /// other workers' (they may be taken over after the lease), [`Next::Done`] once every
    /// pair is recorded.
    fn next_claimed(&self, claims: &UnitClaims, closing: bool) -> Next {
        if let Some(game) = lock(&self.mine).pop_front() {
            return Next::Play(Job::plain(game, game.pair));
        }
        let mut queue = lock(&self.queue);
        let Some(front) = queue.front().map(|game| game.pair) else {
            return Next::Done;
        };
        if closing {
            return Next::Closed;
        }
        if self.sprt_stop.load(Ordering::SeqCst)
            || lock(&self.error).is_some()
            || !self.shared_sprt_allows(front)
        {
            return Next::Done;
        }
        // Which games are recorded is read from the workers' games, never from a marker.
        if let Err(err) = claims.absorb() {
            lock(&self.error).get_or_insert(err);
            return Next::Done;
        }
        // No pair below the queue's front is asked about again.
        claims.forget_below(front);
        let mut others = false;
        let mut index = 0;
        while let Some(pair) = queue.get(index).map(|game| game.pair) {
            let games = queue
                .iter()
                .skip(index)
                .take_while(|game| game.pair == pair)
                .count();
            let recorded: Vec<u64> = claims
                .recorded_of(pair)
                .iter()
                .map(|game| game.game_id)
                .collect();
            let unrecorded = queue
                .iter()
                .skip(index)
                .take(games)
                .filter(|game| !recorded.contains(&game.game_id))
                .count();
            if unrecorded == 0 {
                queue.drain(index..index + games);
                claims.forget(pair);
                continue;
            }
            match claims.claim(pair, unrecorded, &mut |line| println!("{line}")) {
                Ok(Claimed::Mine) => {
                    // The pair's games leave the queue for this worker's own; those recorded
                    // before (by a worker stopped or killed mid-pair) are not played again.
                    let mut games = queue
                        .drain(index..index + games)
                        .filter(|game| !recorded.contains(&game.game_id));
                    let first = games.next().expect("a game of the pair not recorded");
                    lock(&self.mine).extend(games);
                    claims.forget(pair);
                    return Next::Play(Job::plain(first, pair));
                }
                Ok(Claimed::Held) => {
                    others = true;
                    index += games;
                }
                Err(err) => {
                    lock(&self.error).get_or_insert(RecordsError::Io {
                        path: RunDir::new(&self.config.out).claims(),
                        action: "cannot claim a game pair in",
                        source: err,
                    });
                    return Next::Done;
                }
            }
        }
        if others { Next::Wait } else { Next::Done }
    }

    /// Counts the games of an earlier session into the tally, in file order, so the progress
    /// line's score and a resumed SPRT continue from them (a decided SPRT plays no game).
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
        if tally.decided() {
            self.sprt_stop.store(true, Ordering::SeqCst);
        }
        Ok(())
    }

    fn engine_index(&self, name: &str) -> Option<usize> {
        self.config.engines.iter().position(|e| e.name == name)
    }

    /// Whether a shard may start a game of `pair` ([`SprtWatcher::may_start`]); once the
    /// shared SPRT has a verdict no game pair starts, and a failure to read the shards'
    /// results stops the run with that error.
    fn shared_sprt_allows(&self, pair: u64) -> bool {
        let Some(watcher) = &self.watcher else {
            return true;
        };
        let mut watcher = lock(watcher);
        match watcher.may_start(pair) {
            Ok(true) => return true,
            Ok(false) => {}
            Err(err) => {
                lock(&self.error).get_or_insert(err);
            }
        }
        if let Some(verdict) = watcher
            .verdict()
            .filter(|_| !self.sprt_stop.swap(true, Ordering::SeqCst))
        {
            // Printed by the arena's console would need it here; stdout is enough: the
            // progress line is cleared at the end.
            let member = match (&self.config.shard, &self.config.worker) {
                (Some(shard), _) => format!("shard {shard}"),
                (None, Some(worker)) => format!("worker {worker}"),
                (None, None) => "this machine".to_string(),
            };
            println!("{verdict}; no new game pair starts on {member}");
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
                lock(&self.error).get_or_insert(err);
                None
            }
        }
    }

    fn names(&self) -> Vec<String> {
        self.config.engines.iter().map(|e| e.name.clone()).collect()
    }
}

impl Schedule for Pairs<'_> {
    /// The next game: after a verdict, only a game that finishes a pair whose other game is
    /// recorded; after the deadline, only the games of the pair begun last.
    fn next(&self, closing: bool) -> Next {
        if let Some(claims) = &self.claims {
            return self.next_claimed(claims, closing);
        }
        let mut queue = lock(&self.queue);
        let Some(pair) = queue.front().map(|game| game.pair) else {
            return Next::Done;
        };
        let mut last_pair = lock(&self.last_pair);
        if !self.finishing.contains(&pair) {
            if closing && *last_pair != Some(pair) {
                return Next::Closed;
            }
            // After a verdict not even a pair's second game starts (games in flight finish).
            if self.sprt_stop.load(Ordering::SeqCst)
                || lock(&self.error).is_some()
                || !self.shared_sprt_allows(pair)
            {
                return Next::Done;
            }
        }
        *last_pair = Some(pair);
        match queue.pop_front() {
            Some(game) => Next::Play(Job::plain(game, pair)),
            None => Next::Done,
        }
    }

    /// Counts the game, prints its line, and feeds the SPRT: once it reaches its verdict no
    /// new pair starts (games in flight are finished and recorded).
    fn finished(
        &self,
        job: &Job,
        record: &GameRecord,
        played: &game::PlayedGame,
        console: &Console,
    ) -> Flow {
        let game = &job.game;
        let winner = match played.winner {
            Color::White => game.white,
            Color::Black => game.black,
        };
        console.say(&format!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            record.game_id, record.white, record.black, record.result, played.detail
        ));
        if let Some(claims) = &self.claims
            && let Err(err) = claims.recorded(record.pair)
        {
            lock(&self.error).get_or_insert(RecordsError::Io {
                path: RunDir::new(&self.config.out).claims(),
                action: "cannot mark a game pair done in",
                source: err,
            });
            return Flow::Stop;
        }
        let verdict = lock(&self.tally).add(record.pair, game.white, winner);
        if let (Some(verdict), Some(sprt)) = (verdict, &self.sprt) {
            self.sprt_stop.store(true, Ordering::SeqCst);
            console.say(&format!(
                "SPRT decided at game {}: {}; games in flight are finished and recorded",
                verdict.games,
                sprt.report(verdict.llr)
            ));
        }
        Flow::Continue
    }

    fn not_played(&self, job: &Job) {
        if let Some(claims) = &self.claims {
            // Another worker plays the pair: its other games are not this one's any more.
            lock(&self.mine).retain(|game| game.pair != job.game.pair);
            claims.release(job.game.pair);
        }
    }

    fn may_record(&self, job: &Job) -> bool {
        self.claims
            .as_ref()
            .is_none_or(|claims| claims.holds(job.game.pair))
    }

    fn drop_engine(&self, engine: usize) -> Vec<Job> {
        let involves = |game: &ScheduledGame| game.white == engine || game.black == engine;
        let mut dropped = Vec::new();
        for games in [&self.queue, &self.mine] {
            let mut games = lock(games);
            dropped.extend(
                games
                    .iter()
                    .filter(|game| involves(game))
                    .map(|game| Job::plain(*game, game.pair)),
            );
            games.retain(|game| !involves(game));
        }
        dropped
    }

    fn score_line(&self) -> String {
        lock(&self.tally).score_line(&self.names())
    }

    fn engine_started(&self, engine: usize, id_name: Option<&str>) {
        if let Some(id) = id_name {
            lock(&self.live).note_engine_id(&self.config.engines[engine].name, id);
        }
    }

    /// A line per pair ([`crate::report::interim_lines`]: games, Elo, LLR), as cutechess's
    /// score lines; the full report comes at the end.
    fn interim(&self, recorded: u64, total: u64) -> Option<String> {
        let games_csv = RunDir::new(self.config.results_dir()).games_csv();
        match summary_of_file(&games_csv, &self.names(), self.sprt.as_ref()) {
            Ok(summary) => {
                let lines = crate::report::interim_lines(&summary, recorded, total);
                (!lines.is_empty()).then(|| lines.join("\n"))
            }
            Err(err) => Some(format!("warning: no interim report: {err}")),
        }
    }

    fn refresh_report(&self, recorded: u64, total: u64) -> Result<(), arena::ReportError> {
        live_report::refresh(self.config, self.sprt.as_ref(), (recorded, total))?;
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::records::tests::record;
    use crate::records::{GameResult::*, ResultsWriter, Termination};
    use crate::tournament::config::{Format, OpeningsSpec};

    /// Engines `a` and `b` at depth 1, 3 rounds of a game pair, results in `out`.
    pub(crate) fn two_engines(out: &Path) -> TournamentConfig {
        let engine = |name: &str| {
            EngineKeys::parse(&["cmd=unused", &format!("name={name}")])
                .and_then(|keys| keys.into_description(TimeControl::Depth(1)))
                .unwrap()
        };
        TournamentConfig {
            run: RunHeader {
                event: "test".into(),
                rules: crate::rules::Rules::CaptureOnly,
                openings: OpeningsSpec::default(),
                concurrency: 1,
                seed: 1,
                out: out.to_path_buf(),
                shard: None,
                worker: None,
                lease_ms: None,
                log: false,
                build_cache: None,
                run_id: None,
                adjudication: Default::default(),
            },
            engines: vec![engine("a"), engine("b")],
            format: Format::RoundRobin,
            rounds: 3,
            games: 2,
            sprt: None,
            pgn_comments: Default::default(),
            scale_tc: None,
            anchor: None,
            unknown: Default::default(),
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

    /// The schedule of `config` resumed after [`four_recorded_games`], its tally seeded.
    fn after_four_games(config: &TournamentConfig) -> Pairs<'_> {
        let _writer = four_recorded_games(config);
        let schedule = Pairs::new(
            config,
            VecDeque::new(),
            HashSet::new(),
            LiveReport::default(),
        );
        schedule
            .seed_tally(&RunDir::new(&config.out).games_csv())
            .unwrap();
        schedule
    }

    #[test]
    fn a_resumed_score_starts_at_the_recorded_games() {
        let dir = tempfile::tempdir().unwrap();
        let config = two_engines(dir.path());
        let schedule = after_four_games(&config);
        assert_eq!(schedule.score_line(), "a 3, b 1");
    }

    #[test]
    fn with_an_sprt_the_score_shows_the_llr_and_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = two_engines(dir.path());
        let sprt: Sprt = "elo0=0 elo1=5".parse().unwrap();
        config.sprt = Some(sprt);
        let schedule = after_four_games(&config);
        // Pairs WW and WL for a.
        let llr = sprt.llr_pentanomial(&crate::stats::Pentanomial::from([0, 0, 1, 0, 1]));
        assert_eq!(
            schedule.score_line(),
            format!("a 3, b 1  LLR {llr:.2} (-2.94, 2.94)")
        );
        assert!(llr > 0.0 && llr < 2.94, "{llr}");
    }

    #[test]
    fn after_the_deadline_only_the_pair_begun_is_played_on() {
        let dir = tempfile::tempdir().unwrap();
        let config = two_engines(dir.path());
        let queue: VecDeque<ScheduledGame> = shard_games(&config, 1).into_iter().collect();
        let schedule = Pairs::new(&config, queue, HashSet::new(), LiveReport::default());
        let Next::Play(first) = schedule.next(false) else {
            panic!("the first game is played");
        };
        assert_eq!((first.game.game_id, first.unit), (1, 1));
        // Its partner is played after the deadline; the next pair is not.
        assert!(matches!(schedule.next(true), Next::Play(job) if job.game.game_id == 2));
        assert!(matches!(schedule.next(true), Next::Closed));
        assert!(matches!(schedule.next(false), Next::Play(job) if job.game.game_id == 3));
    }
}
