//! The schedule of a build ([`Measure`]): candidate `u` is unit `u`, its games every pair of
//! reference engines' game pairs from it. No candidate opens once `count` candidates before it
//! are measured and kept: the stop rule is taken in candidate order, over every process's
//! games, so that workers stop where one machine would.

use super::{BuildConfig, Candidate};
use crate::arena::{
    Console, Flow, Gate, Job, RecordedGame, Schedule, ScheduledGame, Seat, Unit, UnitKind,
};
use crate::game::PlayedGame;
use crate::records::GameRecord;
use crate::rules::Color;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A build's unit: one candidate.
pub const CANDIDATE: UnitKind = UnitKind::new("candidate");

/// A game in games.csv that is not one of the build's: another run's files.
#[derive(Debug)]
pub struct ForeignGame {
    /// Its id.
    pub game_id: u64,
    /// What does not match (its candidate, its engines).
    pub why: String,
}

impl fmt::Display for ForeignGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {} is not a game of this build: {}",
            self.game_id, self.why
        )
    }
}

impl std::error::Error for ForeignGame {}

/// White's wins per candidate, from the games recorded: what decides which candidates are
/// kept. Each game counts once, however often it is read.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Per candidate: game id → whether White won.
    games: BTreeMap<u64, BTreeMap<u64, bool>>,
    /// The candidates measured (every game recorded) and kept.
    kept: BTreeSet<u64>,
}

impl Tally {
    /// Counts game `game_id` of candidate `unit`, White having won or not; `games` per
    /// candidate, `keeps` deciding a candidate once all its games are in.
    pub fn add(
        &mut self,
        unit: u64,
        game_id: u64,
        white_won: bool,
        games: u64,
        keeps: impl Fn(u64) -> bool,
    ) {
        let of_unit = self.games.entry(unit).or_default();
        of_unit.insert(game_id, white_won);
        if of_unit.len() as u64 == games {
            let white_wins = of_unit.values().filter(|&&won| won).count() as u64;
            if keeps(white_wins) {
                self.kept.insert(unit);
            }
        }
    }

    /// White's wins of candidate `unit` when all its `games` are recorded.
    pub fn white_wins(&self, unit: u64, games: u64) -> Option<u64> {
        let of_unit = self.games.get(&unit)?;
        (of_unit.len() as u64 == games).then(|| of_unit.values().filter(|&&won| won).count() as u64)
    }

    /// How many candidates below `unit` are measured and kept.
    pub fn kept_below(&self, unit: u64) -> u64 {
        self.kept.range(..unit).count() as u64
    }

    /// How many candidates are measured and kept.
    pub fn kept(&self) -> u64 {
        self.kept.len() as u64
    }
}

/// The build's schedule, over its config and its candidates.
pub struct Measure<'a> {
    config: &'a BuildConfig,
    candidates: Vec<Candidate>,
    /// G, the games of one candidate.
    games: u64,
    /// What the candidates' games did.
    tally: Mutex<Tally>,
}

/// One game of a candidate: who plays White and Black, its round and its pair's index in the
/// candidate (0-based).
struct Slot {
    white: usize,
    black: usize,
    round: u32,
    pair: u64,
}

impl<'a> Measure<'a> {
    /// The schedule of `config` over `candidates` (see [`super::candidates`]).
    pub fn new(config: &'a BuildConfig, candidates: Vec<Candidate>) -> Measure<'a> {
        Measure {
            games: config.games_per_candidate(),
            config,
            candidates,
            tally: Mutex::new(Tally::default()),
        }
    }

    /// The candidates, unit `u` being `candidates()[u - 1]`.
    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    /// What the games recorded so far did.
    pub fn tally(&self) -> Tally {
        self.lock().clone()
    }

    fn lock(&self) -> MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Game `k` (0-based) of a candidate: pairs of engines in [`BuildConfig::engine_pairs`]
    /// order, each `rounds` game pairs, the lower seat White first.
    fn slot(&self, k: u64) -> Slot {
        let pair = k / 2;
        let rounds = u64::from(self.config.rounds);
        let (i, j) = self.config.engine_pairs()[usize::try_from(pair / rounds).unwrap_or(0)];
        let (white, black) = if k.is_multiple_of(2) { (i, j) } else { (j, i) };
        Slot {
            white,
            black,
            round: u32::try_from(pair % rounds).unwrap_or(0) + 1,
            pair,
        }
    }

    fn count(&self, unit: u64, game_id: u64, white_won: bool) {
        let band = self.config.band;
        let games = self.games;
        self.lock().add(unit, game_id, white_won, games, |wins| {
            band.keeps(wins, games)
        });
    }
}

impl Schedule for Measure<'_> {
    type Error = ForeignGame;

    fn unit_kind(&self) -> UnitKind {
        CANDIDATE
    }

    fn next_unit(&self, after: Option<Unit>) -> Option<Unit> {
        let unit = after.map_or(1, |unit| unit.0 + 1);
        (unit <= self.candidates.len() as u64).then_some(Unit(unit))
    }

    fn games_in(&self, _unit: Unit) -> usize {
        usize::try_from(self.games).unwrap_or(usize::MAX)
    }

    fn recorded(&self, game: &GameRecord) -> Result<RecordedGame, ForeignGame> {
        let foreign = |why: String| ForeignGame {
            game_id: game.game_id,
            why,
        };
        let Some(index) = game.game_id.checked_sub(1) else {
            return Err(foreign("game ids start at 1".to_string()));
        };
        let unit = index / self.games + 1;
        let Some(candidate) = self
            .candidates
            .get(usize::try_from(unit - 1).unwrap_or(usize::MAX))
        else {
            return Err(foreign(format!(
                "candidate {unit} is past the build's {}",
                self.candidates.len()
            )));
        };
        let slot = self.slot(index % self.games);
        let names = &self.config.engines;
        if game.white != names[slot.white].name || game.black != names[slot.black].name {
            return Err(foreign(format!(
                "{} against {}, where the build plays {} against {}",
                game.white, game.black, names[slot.white].name, names[slot.black].name
            )));
        }
        if game.opening != candidate.position.to_string() {
            return Err(foreign(format!(
                "it starts from {}, candidate {unit} is {}",
                game.opening, candidate.position
            )));
        }
        Ok(RecordedGame {
            game_id: game.game_id,
            unit: Unit(unit),
            result: game.result,
        })
    }

    fn observed(&self, game: &RecordedGame) {
        self.count(
            game.unit.0,
            game.game_id,
            game.result.winner() == Color::White,
        );
    }

    fn gate(&self, unit: Unit, _console: &Console) -> Result<Gate, ForeignGame> {
        Ok(match self.lock().kept_below(unit.0) >= self.config.count {
            true => Gate::Verdict,
            false => Gate::Open,
        })
    }

    fn open(&self, unit: Unit, recorded: &[RecordedGame]) -> Result<Vec<Job>, ForeignGame> {
        let candidate = &self.candidates[usize::try_from(unit.0 - 1).unwrap_or(0)];
        let first = (unit.0 - 1) * self.games + 1;
        let pairs = self.games / 2;
        let jobs = (0..self.games)
            .filter(|k| recorded.iter().all(|g| g.game_id != first + k))
            .map(|k| {
                let slot = self.slot(k);
                let game = ScheduledGame {
                    game_id: first + k,
                    round: slot.round,
                    pair: (unit.0 - 1) * pairs + slot.pair + 1,
                    white: Seat(slot.white),
                    black: Seat(slot.black),
                    opening: candidate.opening,
                };
                let mut job = Job::plain(game, unit);
                if candidate.plies.is_some() {
                    job.start = Some(candidate.position);
                }
                job.tags = vec![("X-Candidate".to_string(), unit.0.to_string())];
                job
            })
            .collect();
        Ok(jobs)
    }

    fn finished(
        &self,
        job: &Job,
        record: &GameRecord,
        _: &PlayedGame,
        _: &Console,
    ) -> Flow<ForeignGame> {
        self.count(
            job.unit.0,
            record.game_id,
            record.result.winner() == Color::White,
        );
        Flow::Continue
    }

    fn score_line(&self) -> String {
        let tally = self.lock();
        format!(
            "{} kept of {} wanted; {} candidates measured of {}",
            tally.kept(),
            self.config.count,
            tally
                .games
                .values()
                .filter(|games| games.len() as u64 == self.games)
                .count(),
            self.candidates.len()
        )
    }
}
