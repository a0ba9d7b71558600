//! The tune runner: workers that play the iterations with the tournament's building blocks
//! (engines, [`game::play`], games.csv and games.pgn through [`ResultsWriter`], the opening
//! book and its order), tune.csv appended as each iteration ends, and `--resume`.
//!
//! **Iterations in flight.** `concurrency` workers take games from the iterations in order:
//! a worker takes the next game of the newest iteration started, or starts the next
//! iteration when that one has none left. An iteration starts from θ as it is at that moment
//! (the finished iterations applied in iteration order, see [`super::iterations`]), as
//! fishtest's workers do, so with `--concurrency` above one an iteration may start before the
//! one before it has finished; tune.csv records the θ each one started from. With
//! `--concurrency 1` every iteration starts from θ after all the ones before it, and a tune
//! of deterministic engines repeats bit for bit.
//!
//! **Games.** Game pair j (from 0) of iteration k plays the opening numbered
//! `(k − 1) · pairs + j` in the book's order (sequential, or the seeded shuffle of a
//! tournament), tune+ White in the first game and tune− White in the second. Game ids and
//! pair numbers are given as games start, one iteration's games in a row, so its games are
//! games `first_game` .. `first_game + 2·pairs − 1` of games.csv (its `round` column is the
//! iteration). A resumed tune plays the iterations tune.csv lacks, from the θ tune.csv gives;
//! games of an iteration cut off by the kill stay in games.csv but count nowhere (the
//! iteration is played again with new game ids).
//!
//! **Engines.** Each worker keeps a process for each side and sets the side's parameter values
//! (`setoption`) before a game when they changed; a misbehaving process is replaced, as in a
//! tournament. An engine that cannot start or refuses the values ends the tune with the
//! error (both sides are the same engine: it would fail again).

use super::config::TuneConfig;
use super::iterations::{IterationRecord, IterationsError, IterationsFile, theta_after};
use super::params::{ParamsError, TuneParam};
use super::report::{self, Snapshot};
use super::shard::{self, ShardError};
use super::spsa::{self, Perturbation};
use crate::engine::{Engine, EngineError};
use crate::game::{self, Players, Unfinished};
use crate::openings::Opening;
use crate::records;
use crate::records::{RecordsError, ResultsWriter};
use crate::rules::{ByColor, Color};
use crate::run_dir::RunDir;
use crate::tournament::config::TournamentConfig;
use crate::tournament::runner::{self, REPORT_INTERVAL, RunError};
use crate::tournament::schedule::{ScheduledGame, opening_sequence};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Why a tune stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneFinish {
    /// Every iteration was played.
    Completed,
    /// Stopped by the user (Ctrl-C); `--resume` continues.
    Interrupted,
}

/// What a tune produced.
#[derive(Debug)]
pub struct TuneReport {
    /// Why it stopped.
    pub finish: TuneFinish,
    /// The final θ, one value per parameter (as tune.csv gives it).
    pub theta: Vec<f64>,
    /// Iterations finished (earlier sessions included).
    pub finished: u64,
}

/// What a tune is about to do, known once everything is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunePlan {
    /// Iterations of the tune.
    pub iterations: u64,
    /// Iterations already finished (by an earlier session).
    pub finished: u64,
}

/// Errors that stop a tune.
#[derive(Debug)]
pub enum TuneError {
    /// A parameter the engine cannot take (a bad command line or parameters file).
    Params(ParamsError),
    /// The book, the run directory or its lock cannot be used.
    Run(RunError),
    /// The engine cannot start, or refused its options between games.
    Engine(EngineError),
    /// tune.csv cannot be read or written.
    Iterations(IterationsError),
    /// games.csv, games.pgn, summary.json or report.html cannot be read or written.
    Results(RecordsError),
    /// The run directory holds another run.
    OutputExists(PathBuf),
    /// A shard that cannot join its tune, or the other shards' files cannot be read.
    Shard(ShardError),
}

impl std::fmt::Display for TuneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TuneError::Params(err) => err.fmt(f),
            TuneError::Run(err) => err.fmt(f),
            TuneError::Engine(err) => err.fmt(f),
            TuneError::Iterations(err) => err.fmt(f),
            TuneError::Results(err) => err.fmt(f),
            TuneError::Shard(err) => err.fmt(f),
            TuneError::OutputExists(dir) => write!(
                f,
                "{} already holds a run: continue a tune with --resume {0}, or choose another --out",
                dir.display()
            ),
        }
    }
}

impl std::error::Error for TuneError {}

impl From<RunError> for TuneError {
    fn from(err: RunError) -> Self {
        TuneError::Run(err)
    }
}

impl From<RecordsError> for TuneError {
    fn from(err: RecordsError) -> Self {
        TuneError::Results(err)
    }
}

impl From<IterationsError> for TuneError {
    fn from(err: IterationsError) -> Self {
        TuneError::Iterations(err)
    }
}

/// Runs (or, with `resume`, continues) the tune of `config` in `config.out`. `stop` is the
/// Ctrl-C flag: once set, no game starts and games in flight are dropped (their iterations
/// are played again on resume). `announce` is called once every check has passed, before
/// any game starts.
///
/// # Errors
/// [`TuneError`]: a parameter the engine refuses, an engine that cannot start, an unusable
/// book or run directory, or results files that cannot be read or written.
pub fn run(
    config: &TuneConfig,
    resume: bool,
    stop: &AtomicBool,
    announce: impl FnOnce(TunePlan),
) -> Result<TuneReport, TuneError> {
    let tournament = config.tournament();
    let dir = config.dir();
    let run = RunDir::new(&dir);
    let games_csv = run.games_csv();
    let taken = [games_csv.clone(), run.tune_csv()];
    if !resume && taken.iter().any(|file| file.exists()) {
        return Err(TuneError::OutputExists(dir));
    }
    let openings = runner::load_openings(&tournament)?;
    let _lock = runner::lock_directory(&dir)?;
    std::fs::create_dir_all(run.logs())
        .map_err(|e| RecordsError::io(&dir, "cannot create the directory", e))?;
    let sides = config.sides();
    let probe = Engine::start(&runner::launch(&tournament, &sides[0], 0), config.rules)
        .map_err(TuneError::Engine)?;
    config
        .check_params(probe.options())
        .map_err(TuneError::Params)?;
    config.save(&dir)?;
    let (log, finished) = IterationsFile::open(&dir, &config.params, config.spsa.iterations)?;
    // Opened first: it cuts a row torn by a kill before games.csv is read.
    let writer = tournament.results_writer(&dir)?;
    let (last_game, last_pair) = records::read_games(&games_csv)?
        .iter()
        .fold((0, 0), |(g, p), game| {
            (g.max(game.game_id), p.max(game.pair))
        });
    let mut finished = finished;
    if config.shard.is_some() {
        for (iteration, record) in shard::others(config).map_err(TuneError::Shard)? {
            finished.entry(iteration).or_insert(record);
        }
    }
    let plan = TunePlan {
        iterations: config.spsa.iterations,
        finished: finished.len() as u64,
    };
    let recorded = Recorded {
        finished,
        last_game,
        last_pair,
    };
    let shared = Shared::new(config, &tournament, &openings, writer, log, recorded, stop);
    announce(plan);
    let workers = config.concurrency.max(1);
    let mut probe = Some(probe);
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let shared = &shared;
            let first = probe.take();
            scope.spawn(move || Worker::new(shared, worker, first).run());
        }
    });
    if let Some(err) = shared.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(err);
    }
    let mut state = shared.state.into_inner().unwrap_or_else(|e| e.into_inner());
    let own_done = (1..=config.spsa.iterations)
        .filter(|&k| config.plays(k))
        .all(|k| state.finished.contains_key(&k));
    if config.shard.is_some() {
        state.absorb(config).map_err(TuneError::Shard)?;
    }
    let snapshot = state.snapshot(config, false);
    report::write_all(&config.out, &snapshot)?;
    let done = state.finished.len() as u64;
    let finish = if own_done {
        TuneFinish::Completed
    } else {
        TuneFinish::Interrupted
    };
    Ok(TuneReport {
        finish,
        theta: state.theta,
        finished: done,
    })
}

/// What earlier sessions left: the finished iterations, and the last game id and pair number
/// in games.csv (new games are numbered after them).
#[derive(Debug)]
struct Recorded {
    finished: BTreeMap<u64, IterationRecord>,
    last_game: u64,
    last_pair: u64,
}

/// An iteration started and not finished.
#[derive(Debug)]
struct OpenIteration {
    step: Perturbation,
    /// The next of its `2 · pairs` games to hand out.
    next: u32,
    first_game: u64,
    first_pair: u64,
    done: u32,
    wins: u32,
    losses: u32,
}

/// The tune's progress, under one lock.
#[derive(Debug)]
struct State {
    /// θ: the start values with the finished iterations applied in iteration order.
    theta: Vec<f64>,
    finished: BTreeMap<u64, IterationRecord>,
    /// Started and unfinished, oldest first.
    open: Vec<OpenIteration>,
    /// Not started, in increasing order.
    to_start: std::collections::VecDeque<u64>,
    /// The last game id and pair number given (or found in games.csv).
    last_game: u64,
    last_pair: u64,
}

impl State {
    /// Takes in the iterations other shards have finished since last read, and θ after
    /// them all (see [`super::shard`]).
    fn absorb(&mut self, config: &TuneConfig) -> Result<(), ShardError> {
        let before = self.finished.len();
        for (iteration, record) in shard::others(config)? {
            self.finished.entry(iteration).or_insert(record);
        }
        if self.finished.len() != before {
            self.theta = theta_after(&config.params, self.finished.values());
        }
        Ok(())
    }

    fn snapshot(&self, config: &TuneConfig, in_progress: bool) -> Snapshot {
        Snapshot {
            config: config.clone(),
            records: self.finished.values().cloned().collect(),
            theta: self.theta.clone(),
            in_progress,
        }
    }
}

/// One game to play: which iteration, which game of it, and where it goes.
#[derive(Clone, Debug)]
struct Job {
    iteration: u64,
    game: ScheduledGame,
    /// The option values of tune+ and tune−.
    values: [Vec<(String, String)>; 2],
}

/// State the workers share.
struct Shared<'a> {
    config: &'a TuneConfig,
    tournament: &'a TournamentConfig,
    sides: [crate::engine::EngineDescription; 2],
    openings: &'a [Opening],
    sequence: Vec<usize>,
    state: Mutex<State>,
    writer: Mutex<ResultsWriter>,
    log: Mutex<IterationsFile>,
    error: Mutex<Option<TuneError>>,
    failed: AtomicBool,
    stop: &'a AtomicBool,
    /// When report.html was last written, for [`REPORT_INTERVAL`].
    reported: Mutex<Option<Instant>>,
}

impl<'a> Shared<'a> {
    fn new(
        config: &'a TuneConfig,
        tournament: &'a TournamentConfig,
        openings: &'a [Opening],
        writer: ResultsWriter,
        log: IterationsFile,
        Recorded {
            finished,
            last_game,
            last_pair,
        }: Recorded,
        stop: &'a AtomicBool,
    ) -> Shared<'a> {
        let theta = theta_after(&config.params, finished.values());
        let to_start = (1..=config.spsa.iterations)
            .filter(|&k| config.plays(k) && !finished.contains_key(&k))
            .collect();
        Shared {
            config,
            tournament,
            sides: config.sides(),
            openings,
            sequence: opening_sequence(config.openings.order, openings.len().max(1), config.seed),
            state: Mutex::new(State {
                theta,
                finished,
                open: Vec::new(),
                to_start,
                last_game,
                last_pair,
            }),
            writer: Mutex::new(writer),
            log: Mutex::new(log),
            error: Mutex::new(None),
            failed: AtomicBool::new(false),
            stop,
            reported: Mutex::new(None),
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.failed.load(Ordering::SeqCst)
    }

    /// Stops the tune with `err` (the first error is kept).
    fn fail(&self, err: TuneError) {
        lock(&self.error).get_or_insert(err);
        self.failed.store(true, Ordering::SeqCst);
    }

    fn say(&self, line: &str) {
        // A closed stdout (e.g. `| head`) must not stop the tune: the results are on disk.
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }

    /// The next game to play: the next one of the newest iteration started, or the first of
    /// the next iteration, started now from the current θ. `None` when stopping or when every
    /// iteration has been handed out.
    fn next_job(&self) -> Option<Job> {
        if self.stopping() {
            return None;
        }
        let games = 2 * self.config.spsa.pairs;
        let mut state = lock(&self.state);
        if state.open.last().is_none_or(|open| open.next == games) {
            let iteration = *state.to_start.front()?;
            if self.config.shard.is_some()
                && let Err(err) = state.absorb(self.config)
            {
                drop(state);
                self.fail(TuneError::Shard(err));
                return None;
            }
            state.to_start.pop_front();
            let step = spsa::perturb(
                &self.config.spsa,
                &self.config.params,
                &state.theta,
                iteration,
                self.config.seed,
            );
            let (first_game, first_pair) = (state.last_game + 1, state.last_pair + 1);
            state.last_game += u64::from(games);
            state.last_pair += u64::from(self.config.spsa.pairs);
            state.open.push(OpenIteration {
                step,
                next: 0,
                first_game,
                first_pair,
                done: 0,
                wins: 0,
                losses: 0,
            });
        }
        let open = state.open.last_mut()?;
        let index = open.next;
        open.next += 1;
        let iteration = open.step.iteration;
        let pair_index = u64::from(index / 2);
        let pairs = u64::from(self.config.spsa.pairs);
        let book_index = (iteration - 1) * pairs + pair_index;
        let opening =
            self.sequence[usize::try_from(book_index).unwrap_or(usize::MAX) % self.sequence.len()];
        // Sides: 0 = tune+, 1 = tune−; tune+ is White in the first game of each pair.
        let (white, black) = if index % 2 == 0 { (0, 1) } else { (1, 0) };
        let values = [&open.step.plus, &open.step.minus].map(|values| {
            self.config
                .params
                .iter()
                .zip(values)
                .map(|(param, &value)| (param.name.clone(), param.format_value(value)))
                .collect()
        });
        Some(Job {
            iteration,
            game: ScheduledGame {
                game_id: open.first_game + u64::from(index),
                round: u32::try_from(iteration).unwrap_or(u32::MAX),
                pair: open.first_pair + pair_index,
                white,
                black,
                opening,
            },
            values,
        })
    }

    /// Records a finished game of `job`: games.csv and games.pgn (the sides' values in PGN
    /// tags), then the iteration's score; the iteration's last game finishes it.
    fn record(&self, job: &Job, record: &records::GameRecord, played: &game::PlayedGame) {
        let options = |side: usize| {
            job.values[side]
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let tags = [
            ("X-TuneIteration".to_string(), job.iteration.to_string()),
            ("X-WhiteOptions".to_string(), options(job.game.white)),
            ("X-BlackOptions".to_string(), options(job.game.black)),
        ];
        if let Err(err) = lock(&self.writer).append_tagged(record, &played.infos, &tags) {
            self.fail(err.into());
            return;
        }
        let plus_colour = if job.game.white == 0 {
            Color::White
        } else {
            Color::Black
        };
        {
            let mut state = lock(&self.state);
            let Some(at) = state
                .open
                .iter()
                .position(|open| open.step.iteration == job.iteration)
            else {
                return;
            };
            let open = &mut state.open[at];
            open.done += 1;
            if played.winner == plus_colour {
                open.wins += 1;
            } else {
                open.losses += 1;
            }
            if open.done < 2 * self.config.spsa.pairs {
                return;
            }
            let open = state.open.remove(at);
            let record = IterationRecord {
                step: open.step,
                first_game: open.first_game,
                wins: open.wins,
                losses: open.losses,
                finished: records::now_rfc3339(),
            };
            if let Err(err) = lock(&self.log).append(&record) {
                drop(state);
                self.fail(err.into());
                return;
            }
            let latest = state
                .finished
                .keys()
                .next_back()
                .is_none_or(|&k| k < job.iteration);
            let line = format!(
                "Iteration {}/{} (games {}-{}): tune+ {} - {} tune-",
                job.iteration,
                self.config.spsa.iterations,
                record.first_game,
                record.first_game + u64::from(2 * self.config.spsa.pairs) - 1,
                record.wins,
                record.losses
            );
            state.finished.insert(job.iteration, record);
            if latest {
                let record = &state.finished[&job.iteration];
                let (step, wins, losses) = (record.step.clone(), record.wins, record.losses);
                spsa::update(&self.config.params, &mut state.theta, &step, wins, losses);
            } else {
                state.theta = theta_after(&self.config.params, state.finished.values());
            }
            self.say(&format!(
                "{line}; {}",
                theta_text(&self.config.params, &state.theta)
            ));
        }
        self.refresh_report();
    }

    /// Rewrites report.html, summary.json and the tuned values, at most once per
    /// [`REPORT_INTERVAL`] (the end of the tune writes them once more). A failure is warned
    /// about and does not stop the tune.
    fn refresh_report(&self) {
        let Ok(mut last) = self.reported.try_lock() else {
            return;
        };
        if last.is_some_and(|at| at.elapsed() < REPORT_INTERVAL) {
            return;
        }
        *last = Some(Instant::now());
        let snapshot = lock(&self.state).snapshot(self.config, true);
        if let Err(err) = report::write_all(&self.config.out, &snapshot) {
            self.say(&format!("warning: report.html not updated: {err}"));
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running engine of one side and the option values last set on it.
struct Seat {
    engine: Engine,
    values: Option<Vec<(String, String)>>,
}

/// One worker thread and the processes of its two sides.
struct Worker<'a> {
    shared: &'a Shared<'a>,
    id: usize,
    seats: [Option<Seat>; 2],
}

impl<'a> Worker<'a> {
    /// Worker `id`; `plus` is an already started tune+ process, if any.
    fn new(shared: &'a Shared<'a>, id: usize, plus: Option<Engine>) -> Worker<'a> {
        let plus = plus.map(|engine| Seat {
            engine,
            values: None,
        });
        Worker {
            shared,
            id,
            seats: [plus, None],
        }
    }

    fn run(mut self) {
        while let Some(job) = self.shared.next_job() {
            if let Err(err) = self.play(&job) {
                self.shared.fail(TuneError::Engine(err));
            }
        }
        for seat in self.seats.iter_mut().filter_map(Option::take) {
            seat.engine.quit();
        }
    }

    fn play(&mut self, job: &Job) -> Result<(), EngineError> {
        for side in [0, 1] {
            self.prepare(side, &job.values[side])?;
        }
        let shared = self.shared;
        let opening = &shared.openings[job.game.opening];
        let started = records::now_rfc3339();
        let [plus, minus] = &mut self.seats;
        let (Some(plus), Some(minus)) = (plus.as_mut(), minus.as_mut()) else {
            return Ok(());
        };
        let (white, black) = if job.game.white == 0 {
            (&mut plus.engine, &mut minus.engine)
        } else {
            (&mut minus.engine, &mut plus.engine)
        };
        let mut players = Players {
            engines: ByColor { white, black },
            specs: ByColor {
                white: &shared.sides[job.game.white],
                black: &shared.sides[job.game.black],
            },
        };
        // A tune adjudicates nothing: every game is played out by the rules.
        let played = game::play(
            &mut players,
            &opening.position,
            shared.config.rules,
            &game::Adjudication::default(),
            shared.stop,
        );
        let seats = ByColor {
            white: job.game.white,
            black: job.game.black,
        };
        match played {
            Ok(played) => {
                let record =
                    runner::game_record(shared.tournament, &job.game, opening, &played, started);
                shared.record(job, &record, &played);
                if let Some(side) = played.faulty {
                    self.retire(seats[side]);
                }
            }
            Err(Unfinished::Interrupted) => {}
        }
        if shared.config.engine.restart {
            self.retire(0);
            self.retire(1);
        }
        Ok(())
    }

    /// Makes side `side`'s process ready with `values` set: started if needed (a process that
    /// refuses the values is replaced once, in case it was the process and not the values).
    fn prepare(&mut self, side: usize, values: &[(String, String)]) -> Result<(), EngineError> {
        for attempt in 0..2 {
            if self.seats[side].is_none() {
                let launch =
                    runner::launch(self.shared.tournament, &self.shared.sides[side], self.id);
                let engine = Engine::start(&launch, self.shared.config.rules)?;
                self.seats[side] = Some(Seat {
                    engine,
                    values: None,
                });
            }
            let Some(seat) = self.seats[side].as_mut() else {
                continue;
            };
            if seat.values.as_deref() == Some(values) {
                return Ok(());
            }
            match seat.engine.set_options(values) {
                Ok(()) => {
                    seat.values = Some(values.to_vec());
                    return Ok(());
                }
                Err(err) if attempt == 1 => return Err(err),
                Err(_) => self.retire(side),
            }
        }
        Ok(())
    }

    fn retire(&mut self, side: usize) {
        if let Some(seat) = self.seats[side].take() {
            seat.engine.quit();
        }
    }
}

/// Most parameters whose θ an iteration's line lists (report.html has them all).
const THETA_SHOWN: usize = 4;

/// θ as an iteration's line ends: `θ Tempo=30.42, Race=118.00`, or for more than
/// [`THETA_SHOWN`] parameters where to find them.
fn theta_text(params: &[TuneParam], theta: &[f64]) -> String {
    if params.len() > THETA_SHOWN {
        return format!("θ of {} parameters in report.html", params.len());
    }
    let values: Vec<String> = params
        .iter()
        .zip(theta)
        .map(|(param, value)| format!("{}={value:.2}", param.name))
        .collect();
    format!("θ {}", values.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::params::parse_line;

    fn param(line: &str) -> TuneParam {
        parse_line(line).unwrap().unwrap()
    }

    #[test]
    fn an_iterations_line_shows_theta_of_a_few_parameters() {
        let two = [
            param("Tempo, int, 30, -20, 40, 3, 0.05"),
            param("Race, float, 100, 0, 200, 10, 0.05"),
        ];
        assert_eq!(
            theta_text(&two, &[30.4149, 118.0]),
            "θ Tempo=30.41, Race=118.00"
        );
        let many: Vec<TuneParam> = (0..5)
            .map(|k| param(&format!("P{k}, int, 1, 0, 9, 1, 0.05")))
            .collect();
        assert_eq!(
            theta_text(&many, &[1.0; 5]),
            "θ of 5 parameters in report.html"
        );
    }
}
