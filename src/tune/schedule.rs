//! SPSA iterations as the arena's [`Schedule`]: the unit is the iteration; tune.csv gets a
//! row as each iteration ends, and θ moves.
//!
//! **A fixed lag.** Iteration i starts from θ after exactly the iterations 1..i−L (`--lag L`,
//! saved in tune.json and in the tune's identity), folded in iteration order
//! ([`super::iterations::theta_after`]); when one of them has not finished, iteration i waits
//! for it ([`Gate::Wait`]). So θ at every iteration, and every game's option values, are a
//! function of the seed and the settings alone, whatever the timing, the concurrency, or the
//! number of shards or workers: a tune repeats bit for bit (with deterministic engines, its
//! games too). L = 1 is plain sequential SPSA; a larger L keeps more games in flight at the
//! price of a staler θ. The default keeps the first start's workers busy:
//! `shards · ⌈concurrency / (2 · pairs)⌉`.
//!
//! **Games.** Iteration k's game pairs are pairs `(k − 1) · P + 1 ..= k · P` of the run (P =
//! `pairs`), its games `(k − 1) · 2P + 1 ..= k · 2P`, so a game's id depends only on the
//! schedule. Pair j (from 0) plays the opening numbered `(k − 1) · P + j` in the book's order
//! (sequential, or the seeded shuffle of a tournament), tune+ White in its first game. The
//! games of an iteration recorded before (by a session that was killed, or a worker that
//! died) count in it, and only its missing games are played.
//!
//! **Faults.** A game lost by fault (crash, stall, time forfeit, illegal move) is a loss of
//! the side at fault, as in fishtest and OpenBench (a parameter value can be what makes an
//! engine crash); each is warned about as it happens, and counted in the final lines,
//! summary.json and report.html.

use super::config::{MINUS, PLUS, TuneConfig};
use super::iterations::{IterationRecord, IterationsError, IterationsFile, theta_after};
use super::params::TuneParam;
use super::report::{self, Snapshot};
use super::shard::{self, TuneShardError};
use super::spsa::{self, Perturbation};
use crate::arena::{
    Console, Flow, Gate, Job, RecordedGame, Schedule, ScheduledGame, Seat, Unit, UnitKind, lock,
};
use crate::game::PlayedGame;
use crate::openings::spec::opening_sequence;
use crate::records::GameRecord;
use crate::report::EngineFaults;
use crate::rules::{ByColor, Color};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a tune waiting for other shards' or workers' iterations reads their tune.csv.
const ABSORB_INTERVAL: Duration = Duration::from_millis(250);

/// Why a tune's schedule stops the run.
#[derive(Debug)]
pub enum IterationsFault {
    /// tune.csv cannot be read or written.
    Iterations(IterationsError),
    /// The other shards' or workers' tune.csv cannot be read.
    Shard(TuneShardError),
    /// A recorded game is not where this tune's schedule puts it.
    Misplaced {
        /// Its iteration (its round).
        iteration: u64,
        /// Who played White.
        white: String,
    },
}

impl fmt::Display for IterationsFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IterationsFault::Iterations(err) => err.fmt(f),
            IterationsFault::Shard(err) => err.fmt(f),
            IterationsFault::Misplaced { iteration, white } => write!(
                f,
                "iteration {iteration}, {white} as White, is not where this tune's schedule \
                 puts it (a tune started by an older bt-arena, or files of another tune): \
                 finish it with that version or start a new tune"
            ),
        }
    }
}

impl std::error::Error for IterationsFault {}

/// An iteration started and not finished.
#[derive(Debug)]
struct OpenIteration {
    step: Perturbation,
    done: u32,
    wins: u32,
    losses: u32,
}

/// The tune's progress, under one lock.
#[derive(Debug)]
pub(super) struct State {
    /// Every finished iteration (this process's and, as last read, the others').
    pub(super) finished: BTreeMap<u64, IterationRecord>,
    /// The iterations of `finished` whose rows are in this process's own tune.csv.
    own: BTreeSet<u64>,
    /// θ after exactly iterations 1..=`folded` (the lag's fold), and `folded`.
    folded: u64,
    folded_theta: Vec<f64>,
    /// θ after every finished iteration, for the lines and the report.
    pub(super) theta: Vec<f64>,
    /// Started and unfinished, by iteration.
    open: BTreeMap<u64, OpenIteration>,
    /// An iteration one of whose games will not be played: none after it starts.
    pub(super) blocked: Option<u64>,
    /// When the other shards' or workers' tune.csv files were last read.
    absorbed: Option<Instant>,
    /// Losses by fault of tune+ and tune−.
    pub(super) faults: [EngineFaults; 2],
}

impl State {
    /// Takes in every iteration other shards or workers have finished (at the end).
    ///
    /// # Errors
    /// Their files cannot be read.
    pub(super) fn absorb_all(&mut self, config: &TuneConfig) -> Result<(), TuneShardError> {
        self.absorb(config)
    }

    /// Takes in the iterations other shards or workers have finished since last read. A row
    /// read before that no file holds any more (its worker's directory was removed) is
    /// forgotten: its iteration is played again.
    fn absorb(&mut self, config: &TuneConfig) -> Result<(), TuneShardError> {
        self.absorbed = Some(Instant::now());
        let others = shard::others(config)?;
        let before = self.finished.len();
        let own = &self.own;
        self.finished
            .retain(|iteration, _| own.contains(iteration) || others.contains_key(iteration));
        let lost = self.finished.len() != before;
        let before = self.finished.len();
        for (iteration, record) in others {
            self.finished.entry(iteration).or_insert(record);
        }
        if lost {
            self.refold(config);
        } else if self.finished.len() != before {
            self.theta = theta_after(&config.params, self.finished.values());
        }
        Ok(())
    }

    /// Forgets the fold kept (iterations it folded were forgotten) and θ after them.
    fn refold(&mut self, config: &TuneConfig) {
        self.folded = 0;
        self.folded_theta = config.params.iter().map(|p| p.start).collect();
        self.theta = theta_after(&config.params, self.finished.values());
    }

    /// θ after exactly iterations 1..=`upto`, folding finished iterations in as far as
    /// needed; `None` while one of them has not finished. Below the fold kept (an iteration
    /// taken over that is older than ones opened), folded again from the start.
    fn theta_upto(&mut self, params: &[TuneParam], upto: u64) -> Option<Vec<f64>> {
        if upto < self.folded {
            return Some(theta_after(
                params,
                self.finished.range(..=upto).map(|(_, r)| r),
            ));
        }
        while self.folded < upto {
            let record = self.finished.get(&(self.folded + 1))?;
            spsa::update(
                params,
                &mut self.folded_theta,
                &record.step,
                record.wins,
                record.losses,
            );
            self.folded += 1;
        }
        Some(self.folded_theta.clone())
    }

    /// What the report shows.
    pub(super) fn snapshot(&self, config: &TuneConfig, in_progress: bool) -> Snapshot {
        Snapshot {
            config: config.clone(),
            records: self.finished.values().cloned().collect(),
            theta: self.theta.clone(),
            in_progress,
            faults: self.faults.to_vec(),
        }
    }
}

/// The iterations of a tune.
pub struct Iterations<'a> {
    config: &'a TuneConfig,
    /// The book's order: opening index of the run's pair p (from 0) is `sequence[p % len]`.
    sequence: Vec<usize>,
    pub(super) state: Mutex<State>,
    log: Mutex<IterationsFile>,
}

impl<'a> Iterations<'a> {
    /// The iterations of `config` over a book of `book_len` openings, continuing after the
    /// `finished` ones, of which `own` are in this process's tune.csv (`log`) and the others
    /// in other shards' or workers'.
    pub fn new(
        config: &'a TuneConfig,
        book_len: usize,
        log: IterationsFile,
        finished: BTreeMap<u64, IterationRecord>,
        own: BTreeSet<u64>,
    ) -> Iterations<'a> {
        let start: Vec<f64> = config.params.iter().map(|p| p.start).collect();
        let theta = theta_after(&config.params, finished.values());
        Iterations {
            config,
            sequence: opening_sequence(config.run.openings.order, book_len.max(1), config.run.seed),
            state: Mutex::new(State {
                finished,
                own,
                folded: 0,
                folded_theta: start,
                theta,
                open: BTreeMap::new(),
                blocked: None,
                absorbed: None,
                faults: report::no_faults(),
            }),
            log: Mutex::new(log),
        }
    }

    /// Games of one iteration.
    fn games(&self) -> u32 {
        2 * self.config.spsa.pairs
    }

    /// Iterations finished (by any process, as last read).
    pub fn finished(&self) -> u64 {
        lock(&self.state).finished.len() as u64
    }

    /// The job of game `index` of the open iteration `iteration`.
    fn job(&self, step: &Perturbation, iteration: u64, index: u32) -> Job {
        let pairs = u64::from(self.config.spsa.pairs);
        let pair_index = (iteration - 1) * pairs + u64::from(index / 2);
        let opening =
            self.sequence[usize::try_from(pair_index).unwrap_or(usize::MAX) % self.sequence.len()];
        // Seats: 0 = tune+, 1 = tune−; tune+ is White in the first game of each pair.
        let plus_white = index.is_multiple_of(2);
        let (white, black) = if plus_white { (0, 1) } else { (1, 0) };
        let values = |side: &[f64]| -> Vec<(String, String)> {
            self.config
                .params
                .iter()
                .zip(side)
                .map(|(param, &value)| (param.name.clone(), param.format_value(value)))
                .collect()
        };
        let (plus, minus) = (values(&step.plus), values(&step.minus));
        let options = |values: &[(String, String)]| {
            values
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let (white_values, black_values) = if plus_white {
            (plus, minus)
        } else {
            (minus, plus)
        };
        let tags = vec![
            ("X-TuneIteration".to_string(), iteration.to_string()),
            ("X-WhiteOptions".to_string(), options(&white_values)),
            ("X-BlackOptions".to_string(), options(&black_values)),
        ];
        Job {
            game: ScheduledGame {
                game_id: (iteration - 1) * 2 * pairs + u64::from(index) + 1,
                round: u32::try_from(iteration).unwrap_or(u32::MAX),
                pair: pair_index + 1,
                white: Seat(white),
                black: Seat(black),
                opening,
            },
            unit: Unit(iteration),
            values: ByColor {
                white: white_values,
                black: black_values,
            },
            tags,
            start: None,
            pick: None,
        }
    }

    /// The index in its iteration of game `game_id` of iteration `iteration`, when it is one
    /// of the iteration's.
    fn index_of(&self, iteration: u64, game_id: u64) -> Option<u32> {
        let games = u64::from(self.games());
        let index = game_id
            .checked_sub(1)?
            .checked_sub(iteration.checked_sub(1)? * games)?;
        (index < games).then(|| u32::try_from(index).ok())?
    }

    /// Finishes the open iteration `iteration` whose games are all recorded: tune.csv gets
    /// its row, θ moves, and its line is said on `console`.
    fn close(
        &self,
        state: &mut State,
        iteration: u64,
        console: &Console,
    ) -> Result<(), IterationsFault> {
        let Some(open) = state.open.remove(&iteration) else {
            return Ok(());
        };
        let games = u64::from(self.games());
        let record = IterationRecord {
            first_game: (iteration - 1) * games + 1,
            wins: open.wins,
            losses: open.losses,
            finished: crate::records::now_rfc3339(),
            step: open.step,
        };
        lock(&self.log)
            .append(&record)
            .map_err(IterationsFault::Iterations)?;
        let latest = state
            .finished
            .keys()
            .next_back()
            .is_none_or(|&k| k < iteration);
        let line = format!(
            "Iteration {iteration}/{} (games {}-{}): tune+ {} - {} tune-; {}",
            self.config.spsa.iterations,
            record.first_game,
            record.first_game + games - 1,
            record.wins,
            record.losses,
            step_text(&self.config.params, &record)
        );
        state.own.insert(iteration);
        if latest {
            spsa::update(
                &self.config.params,
                &mut state.theta,
                &record.step,
                record.wins,
                record.losses,
            );
            state.finished.insert(iteration, record);
        } else {
            state.finished.insert(iteration, record);
            state.theta = theta_after(&self.config.params, state.finished.values());
        }
        console.say(&format!(
            "{line}; {}",
            theta_text(&self.config.params, &state.theta)
        ));
        Ok(())
    }
}

impl Schedule for Iterations<'_> {
    type Error = IterationsFault;

    fn unit_kind(&self) -> UnitKind {
        UnitKind::ITERATION
    }

    fn next_unit(&self, after: Option<Unit>) -> Option<Unit> {
        let mut k = after.map_or(1, |unit| unit.0 + 1);
        while k <= self.config.spsa.iterations && !self.config.plays(k) {
            k += 1;
        }
        (k <= self.config.spsa.iterations).then_some(Unit(k))
    }

    fn games_in(&self, _unit: Unit) -> usize {
        self.games() as usize
    }

    /// Each game must be where the schedule puts it.
    fn recorded(&self, game: &GameRecord) -> Result<RecordedGame, IterationsFault> {
        let iteration = u64::from(game.round);
        let misplaced = || IterationsFault::Misplaced {
            iteration,
            white: game.white.clone(),
        };
        let index = self
            .index_of(iteration, game.game_id)
            .ok_or_else(misplaced)?;
        let expected = if index % 2 == 0 { PLUS } else { MINUS };
        if game.white != expected || !self.config.plays(iteration) {
            return Err(misplaced());
        }
        Ok(RecordedGame {
            game_id: game.game_id,
            unit: Unit(iteration),
            result: game.result,
        })
    }

    fn resumed(&self, game: &GameRecord) {
        report::count_fault(&mut lock(&self.state).faults, game);
    }

    /// An iteration is complete once its row is known (every game recorded and the row
    /// written, by this process or another).
    fn is_complete(&self, unit: Unit, _games: &[RecordedGame]) -> bool {
        lock(&self.state).finished.contains_key(&unit.0)
    }

    /// An iteration opens once the iterations its θ starts from have finished (read from the
    /// other processes' tune.csv files every [`ABSORB_INTERVAL`] while waiting); none after
    /// one of whose games could not be played.
    fn gate(&self, unit: Unit, _console: &Console) -> Result<Gate, IterationsFault> {
        let mut state = lock(&self.state);
        if state.blocked.is_some_and(|blocked| blocked < unit.0) {
            return Ok(Gate::Verdict);
        }
        if state.open.contains_key(&unit.0) {
            return Ok(Gate::Open);
        }
        let upto = unit.0.saturating_sub(self.config.lag.max(1));
        if state.theta_upto(&self.config.params, upto).is_some() {
            return Ok(Gate::Open);
        }
        let stale = state
            .absorbed
            .is_none_or(|at| at.elapsed() >= ABSORB_INTERVAL);
        if self.config.is_spread() && stale {
            state.absorb(self.config).map_err(IterationsFault::Shard)?;
            if state.theta_upto(&self.config.params, upto).is_some() {
                return Ok(Gate::Open);
            }
        }
        Ok(Gate::Wait)
    }

    /// Opens iteration `unit` from θ after iterations 1..i−L; the games of it recorded count
    /// in it. One whose games are all recorded only needs its row, written now.
    fn open(&self, unit: Unit, recorded: &[RecordedGame]) -> Result<Vec<Job>, IterationsFault> {
        let iteration = unit.0;
        let mut state = lock(&self.state);
        if self.config.is_spread() {
            // Another worker may have finished it since its row was last read.
            state.absorb(self.config).map_err(IterationsFault::Shard)?;
        }
        if state.finished.contains_key(&iteration) {
            return Ok(Vec::new());
        }
        let upto = iteration.saturating_sub(self.config.lag.max(1));
        let Some(theta) = state.theta_upto(&self.config.params, upto) else {
            return Ok(Vec::new());
        };
        let step = spsa::perturb(
            &self.config.spsa,
            &self.config.params,
            &theta,
            iteration,
            self.config.run.seed,
        );
        let mut open = OpenIteration {
            step,
            done: 0,
            wins: 0,
            losses: 0,
        };
        let mut played = vec![false; self.games() as usize];
        for game in recorded {
            let Some(index) = self.index_of(iteration, game.game_id) else {
                continue;
            };
            played[index as usize] = true;
            open.done += 1;
            // tune+ is White in the first game of each pair.
            let white_won = game.result.winner() == Color::White;
            match white_won == index.is_multiple_of(2) {
                true => open.wins += 1,
                false => open.losses += 1,
            }
        }
        let jobs: Vec<Job> = (0..self.games())
            .filter(|&index| !played[index as usize])
            .map(|index| self.job(&open.step, iteration, index))
            .collect();
        state.open.insert(iteration, open);
        if jobs.is_empty() {
            self.close(&mut state, iteration, &Console::hidden())?;
        }
        Ok(jobs)
    }

    /// tune.csv made again in the directory made again: the iterations whose rows were in
    /// it, and those open, are played again; the others' rows are read again.
    fn remade(&self) -> Result<(), IterationsFault> {
        let (log, _) = IterationsFile::open(
            &self.config.dir(),
            &self.config.params,
            self.config.spsa.iterations,
        )
        .map_err(IterationsFault::Iterations)?;
        *lock(&self.log) = log;
        let mut state = lock(&self.state);
        let own = std::mem::take(&mut state.own);
        state
            .finished
            .retain(|iteration, _| !own.contains(iteration));
        state.open.clear();
        state.refold(self.config);
        state.absorb(self.config).map_err(IterationsFault::Shard)
    }

    /// The other processes' rows read again (a directory removed takes its rows with it).
    fn reread(&self) -> Result<(), IterationsFault> {
        if !self.config.is_spread() {
            return Ok(());
        }
        lock(&self.state)
            .absorb(self.config)
            .map_err(IterationsFault::Shard)
    }

    fn finished(
        &self,
        job: &Job,
        record: &GameRecord,
        _played: &PlayedGame,
        console: &Console,
    ) -> Flow<IterationsFault> {
        let mut state = lock(&self.state);
        report::count_fault(&mut state.faults, record);
        let Some(open) = state.open.get_mut(&job.unit.0) else {
            return Flow::Continue;
        };
        open.done += 1;
        if record.winner_name() == PLUS {
            open.wins += 1;
        } else {
            open.losses += 1;
        }
        if open.done < self.games() {
            return Flow::Continue;
        }
        match self.close(&mut state, job.unit.0, console) {
            Ok(()) => Flow::Continue,
            Err(err) => Flow::Failed(err),
        }
    }

    /// A game not played here: no iteration after its own starts (a worker's was let go of:
    /// another worker plays it).
    fn not_played(&self, job: &Job) {
        let mut state = lock(&self.state);
        state.open.remove(&job.unit.0);
        if !self.config.is_spread() {
            let blocked = state.blocked.map_or(job.unit.0, |k| k.min(job.unit.0));
            state.blocked = Some(blocked);
        }
    }

    fn score_line(&self) -> String {
        let state = lock(&self.state);
        format!(
            "{} of {} iterations  {}",
            state.finished.len(),
            self.config.spsa.iterations,
            theta_text(&self.config.params, &state.theta)
        )
    }

    fn refresh_report(&self, _recorded: u64, _total: u64) -> Result<(), crate::arena::ReportError> {
        let snapshot = lock(&self.state).snapshot(self.config, true);
        report::write_all(&self.config.run.out, &snapshot)?;
        Ok(())
    }
}

/// Most parameters whose θ and flip an iteration's line lists (report.html has them all).
const THETA_SHOWN: usize = 4;

/// θ as an iteration's line ends: `θ Tempo=30.42, Race=118.00`, or for more than
/// [`THETA_SHOWN`] parameters where to find them.
pub fn theta_text(params: &[TuneParam], theta: &[f64]) -> String {
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

/// Which way an iteration moved each parameter, so a θ that went down reads right: the flip
/// Δ (tune+ played θ + c_k·Δ) and the step's sign, `step Tempo -0.62 (Δ -1)`; for more than
/// [`THETA_SHOWN`] parameters only the count.
fn step_text(params: &[TuneParam], record: &IterationRecord) -> String {
    if params.len() > THETA_SHOWN {
        return format!("{} parameters stepped", params.len());
    }
    let step = &record.step;
    let moves: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(index, param)| {
            let change = spsa::increment(
                step.a_k[index],
                step.c_k[index],
                step.flips[index],
                record.wins,
                record.losses,
            );
            format!(
                "{} {} (Δ {:+})",
                param.name,
                crate::report::numbers::signed_change(change),
                step.flips[index]
            )
        })
        .collect();
    format!("step {}", moves.join(", "))
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

    #[test]
    fn an_iterations_line_shows_each_step_and_its_flip() {
        let tempo = [param("Tempo, int, 30, -20, 40, 3, 0.05")];
        let step = Perturbation {
            iteration: 1,
            theta: vec![30.0],
            flips: vec![-1],
            c_k: vec![2.0],
            a_k: vec![0.5],
            plus: vec![28.0],
            minus: vec![32.0],
        };
        let record = IterationRecord {
            step,
            first_game: 1,
            wins: 3,
            losses: 1,
            finished: String::new(),
        };
        // a_k · (W − L) / (c_k · Δ) = 0.5 · 2 / (2 · −1) = −0.5: tune+ (θ − 2) won, θ goes down.
        assert_eq!(step_text(&tempo, &record), "step Tempo -0.50 (Δ -1)");
        // A step too small for two decimals shows its digits, never `-0.00` (issue 39).
        let mut small = record.clone();
        small.step.a_k = vec![small.step.a_k[0] / 1000.0];
        assert_eq!(step_text(&tempo, &small), "step Tempo -0.00050 (Δ -1)");
    }
}
