//! Datagen as a [`Schedule`] on the arena: the unit is one game, its id handed out in order
//! (of a shard, its own: `(id - 1) mod N = K`) with its start position ([`super::start`]) and
//! its seats.
//!
//! On one machine (or a shard) every finished game is appended to games.dat **in game-id
//! order**: a game that ends before an earlier one waits in a buffer. The buffer is bounded:
//! no game id more than [`Selfplay::window`] ids past the first one not yet written opens
//! ([`Gate::Wait`]), so memory does not grow with the run, and the file is the same byte for
//! byte at any `--concurrency`. With `--positions N`, the filters are run over each game as
//! it is written, and the run stops at the game that brings the positions to N.
//!
//! A worker (`--worker`, [`super::workers`]) writes each game it plays as it finishes, before
//! its games.csv row ([`Schedule::keep`]): to its games.dat when it comes after the last one
//! there, else to a file of its own (`games-N.dat`), so that every file is in game-id order.

use super::filters::{Judge, Seen, mix};
use super::formats::games::{Ending, EntryReader, GameEntry, GamesError, GamesWriter, Ply};
use super::formats::{encode_move, mover_score, score_value};
use super::start::{self, DrawError, Start};
use super::{DatagenConfig, Target};
use crate::arena::{
    self, Console, Flow, Gate, Job, RecordedGame, Schedule, ScheduledGame, Seat, Unit, UnitKind,
    lock,
};
use crate::game::{self, PlayedGame};
use crate::openings::Opening;
use crate::records::GameRecord;
use crate::rules::Color;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::PathBuf;
use std::sync::Mutex;

/// A salt that keeps the MultiPV draws apart from the others.
const MULTIPV_SALT: u64 = 0x4D55_4C54_4950_5601;

/// Why datagen's schedule stops the run.
#[derive(Debug)]
pub enum SelfplayError {
    /// A game's start could not be drawn.
    Draw(DrawError),
    /// A games file cannot be written.
    Games(GamesError),
    /// A recorded game that is not this run's (another shard's).
    NotScheduled {
        /// The game.
        game_id: u64,
    },
}

impl fmt::Display for SelfplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelfplayError::Draw(err) => err.fmt(f),
            SelfplayError::Games(err) => err.fmt(f),
            SelfplayError::NotScheduled { game_id } => {
                write!(f, "game {game_id} is not this process's")
            }
        }
    }
}

impl std::error::Error for SelfplayError {}

/// The datagen schedule.
pub struct Selfplay<'a> {
    config: &'a DatagenConfig,
    openings: &'a [Opening],
    sequence: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    pub(super) state: Mutex<State>,
    /// The live report's set of positions seen (with `--dedup`), kept between refreshes.
    report_seen: Mutex<Option<Box<Seen>>>,
    /// A worker's directory: games are written as they finish ([`Schedule::keep`]).
    worker_dir: Option<PathBuf>,
}

/// What the schedule keeps between games.
pub struct State {
    /// The next own game id to append to the games file (one machine, a shard).
    write_next: u64,
    /// Finished games waiting for an earlier one.
    buffer: BTreeMap<u64, GameEntry>,
    /// The start of each game in flight.
    starts: HashMap<u64, Start>,
    writer: GamesWriter,
    /// The filters, with `--positions`: what counts towards N.
    counter: Option<Judge>,
    /// Games in the games file.
    pub written_games: u64,
    /// Positions the filters keep in the games file (with `--positions`).
    pub kept: u64,
    /// Plies the engines played in this session's games.
    pub session_plies: u64,
    /// Games whose positions are excluded because an engine faulted.
    pub faults: u64,
    /// No more games: the target is reached, or a game could not be played.
    done: bool,
    /// The last game id in the worker's games.dat (0: none).
    last_written: u64,
}

impl<'a> Selfplay<'a> {
    /// The schedule of `config` over `openings`, continuing after the games `writer`'s file
    /// holds (`resumed`); a worker writes to its directory `worker_dir`.
    pub fn new(
        config: &'a DatagenConfig,
        openings: &'a [Opening],
        writer: GamesWriter,
        resumed: Resumed,
    ) -> Selfplay<'a> {
        let sequence = crate::openings::spec::opening_sequence(
            config.run.openings.order,
            openings.len(),
            config.run.seed,
        );
        let seats = config.seats().len();
        let pairs = (0..seats)
            .flat_map(|white| (0..seats).map(move |black| (white, black)))
            .filter(|(white, black)| white != black)
            .collect();
        let first = next_own(config, resumed.last_id + 1);
        let done = match config.target {
            Target::Positions(n) => resumed.kept >= n,
            Target::Games(n) => first > n,
        };
        Selfplay {
            config,
            openings,
            sequence,
            pairs,
            state: Mutex::new(State {
                write_next: first,
                buffer: BTreeMap::new(),
                starts: HashMap::new(),
                writer,
                counter: resumed.counter,
                written_games: resumed.games,
                kept: resumed.kept,
                session_plies: 0,
                faults: 0,
                done,
                last_written: resumed.last_id,
            }),
            report_seen: Mutex::new(None),
            worker_dir: config.run.worker.is_some().then(|| config.dir()),
        }
    }

    /// How many own game ids past the first unwritten one may be in flight or waiting.
    pub fn window(&self) -> u64 {
        2 * self.config.run.concurrency as u64 + 2
    }

    /// The schedule's state once the arena is done.
    pub fn into_state(self) -> State {
        self.state.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    fn job(&self, game_id: u64, start: &Start) -> Job {
        let (white, black) = self.pairs[cycle(game_id, self.pairs.len())];
        let mut job = Job::plain(
            ScheduledGame {
                game_id,
                round: 1,
                pair: game_id,
                white: Seat(white),
                black: Seat(black),
                opening: start.opening,
            },
            Unit(game_id),
        );
        job.pick = self.config.random_multipv.map(|multipv| game::MultiPvPick {
            diff: multipv.diff,
            probability: multipv.probability,
            seed: mix(mix(self.config.run.seed ^ MULTIPV_SALT) ^ game_id),
        });
        if start.random_plies > 0 {
            job.start = Some(start.position);
            job.tags = vec![("X-RandomPlies".to_string(), start.random_plies.to_string())];
        }
        job
    }

    /// Appends the buffered games that come next, in id order; stops the run at its target.
    fn write_ready(&self, state: &mut State) -> Flow<SelfplayError> {
        while let Some(entry) = state.buffer.remove(&state.write_next) {
            if let Err(err) = state.writer.append(&entry) {
                state.done = true;
                return Flow::Failed(SelfplayError::Games(err));
            }
            state.written_games += 1;
            state.write_next = next_own(self.config, state.write_next + 1);
            if let Some(judge) = state.counter.as_mut() {
                state.kept += entry
                    .positions()
                    .filter(|at| judge.keep(&entry, at))
                    .count() as u64;
            }
            let reached = match self.config.target {
                Target::Positions(n) => state.kept >= n,
                Target::Games(n) => state.write_next > n,
            };
            if reached {
                state.done = true;
                state.buffer.clear();
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// The start of game `id` ([`start::draw`]).
    fn draw_start(&self, id: u64) -> Result<Start, DrawError> {
        let config = self.config;
        start::draw(
            config.run.rules,
            config.run.seed,
            id,
            self.openings,
            &self.sequence,
            config.random_plies,
        )
    }
}

/// What a games file held when the run (re)started.
#[derive(Default)]
pub struct Resumed {
    /// Games in it.
    pub games: u64,
    /// The last game's id (0 for none).
    pub last_id: u64,
    /// The filters that judged them, with `--positions`.
    pub counter: Option<Judge>,
    /// Positions they kept.
    pub kept: u64,
}

/// The 0-based index of game `game_id` (1-based) in a cycle of `len` (> 0) items.
pub fn cycle(game_id: u64, len: usize) -> usize {
    // Below `len`, so it fits in a usize.
    usize::try_from(game_id.saturating_sub(1) % len as u64).unwrap_or(0)
}

/// The first game id from `from` on that `config`'s process plays.
fn next_own(config: &DatagenConfig, from: u64) -> u64 {
    match config.run.shard {
        None => from,
        Some(shard) => {
            let n = u64::from(shard.count());
            let k = u64::from(shard.index());
            // The least id >= from with (id - 1) mod n = k.
            let base = from.saturating_sub(1);
            let offset = (k + n - base % n) % n;
            base + offset + 1
        }
    }
}

/// The games-file entry of a finished game that started at `start`.
pub fn entry_of(game_id: u64, start: &Start, played: &game::PlayedGame) -> GameEntry {
    let mut position = start.position;
    let mut plies = Vec::with_capacity(played.moves.len());
    for (index, &mv) in played.moves.iter().enumerate() {
        let mover: Color = position.side_to_move();
        let score = played.infos.get(index).and_then(|info| info.score);
        plies.push(Ply {
            mv: encode_move(mv),
            score: score_value(mover_score(score), mover),
        });
        position = position.play_unchecked(mv);
    }
    GameEntry {
        game_id,
        start: start.position,
        first_ply: start.random_plies,
        winner: played.winner,
        ending: Ending::of(played.termination),
        termination: played.termination,
        plies,
    }
}

impl Schedule for Selfplay<'_> {
    type Error = SelfplayError;

    fn unit_kind(&self) -> UnitKind {
        UnitKind::GAME
    }

    fn next_unit(&self, after: Option<Unit>) -> Option<Unit> {
        let id = next_own(self.config, after.map_or(1, |unit| unit.0 + 1));
        match self.config.target {
            Target::Games(n) if id > n => None,
            _ => Some(Unit(id)),
        }
    }

    fn games_in(&self, _unit: Unit) -> usize {
        1
    }

    fn recorded(&self, game: &GameRecord) -> Result<RecordedGame, SelfplayError> {
        if !self.config.plays(game.game_id) {
            return Err(SelfplayError::NotScheduled {
                game_id: game.game_id,
            });
        }
        Ok(RecordedGame {
            game_id: game.game_id,
            unit: Unit(game.game_id),
            result: game.result,
        })
    }

    /// No game once the target is reached or a game could not be played; on one machine,
    /// none past the window of games waiting to be written in order.
    fn gate(&self, unit: Unit, _console: &Console) -> Result<Gate, SelfplayError> {
        let state = lock(&self.state);
        if state.done {
            return Ok(Gate::Verdict);
        }
        if self.worker_dir.is_none() && !state.starts.contains_key(&unit.0) {
            let step = self.config.run.shard.map_or(1, |s| u64::from(s.count()));
            if unit.0 >= state.write_next + self.window() * step {
                return Ok(Gate::Wait);
            }
        }
        Ok(Gate::Open)
    }

    fn open(&self, unit: Unit, _recorded: &[RecordedGame]) -> Result<Vec<Job>, SelfplayError> {
        let start = self.draw_start(unit.0).map_err(|err| {
            lock(&self.state).done = true;
            SelfplayError::Draw(err)
        })?;
        lock(&self.state).starts.insert(unit.0, start);
        Ok(vec![self.job(unit.0, &start)])
    }

    /// A worker's directory made again (removed by a clean-up): its games.dat is created
    /// again, empty, and the games it held are played again (games.csv's new file holds
    /// none of them).
    fn remade(&self) -> Result<(), SelfplayError> {
        let Some(dir) = &self.worker_dir else {
            return Ok(());
        };
        let writer = super::formats::games::create(
            &dir.join(super::GAMES_FILE),
            self.config.run.rules,
            self.config.run.board,
        )
        .map_err(SelfplayError::Games)?;
        let mut state = lock(&self.state);
        state.writer = writer;
        state.last_written = 0;
        state.written_games = 0;
        Ok(())
    }

    /// A worker writes the game now, before games.csv records it: to its games.dat, or below
    /// its last game to a file of its own ([`super::workers::file_for`]).
    fn keep(&self, job: &Job, played: &PlayedGame) -> Result<(), SelfplayError> {
        let Some(dir) = &self.worker_dir else {
            return Ok(());
        };
        let mut state = lock(&self.state);
        let id = job.game.game_id;
        let Some(start) = state.starts.get(&id).copied() else {
            return Ok(());
        };
        let entry = entry_of(id, &start, played);
        let written = match super::workers::file_for(dir, id, state.last_written) {
            None => state
                .writer
                .append(&entry)
                .map(|()| state.last_written = id),
            Some(path) => {
                super::formats::games::create(&path, self.config.run.rules, self.config.run.board)
                    .and_then(|mut own| own.append(&entry))
            }
        };
        written.map_err(SelfplayError::Games)
    }

    fn finished(
        &self,
        job: &Job,
        _record: &GameRecord,
        played: &PlayedGame,
        _console: &Console,
    ) -> Flow<SelfplayError> {
        let mut state = lock(&self.state);
        let id = job.game.game_id;
        let Some(start) = state.starts.remove(&id) else {
            return Flow::Continue;
        };
        state.session_plies += played.moves.len() as u64;
        if played.faulty.is_some() {
            state.faults += 1;
        }
        if self.worker_dir.is_some() {
            state.written_games += 1;
            return Flow::Continue;
        }
        if state.done {
            return Flow::Stop;
        }
        state.buffer.insert(id, entry_of(id, &start, played));
        self.write_ready(&mut state)
    }

    /// On one machine a hole in the game ids: nothing after it can be written in order, so
    /// the run stops (`--resume` plays from the hole). A worker's game is another worker's.
    fn not_played(&self, job: &Job) {
        let mut state = lock(&self.state);
        state.starts.remove(&job.game.game_id);
        if self.worker_dir.is_none() {
            state.done = true;
        }
    }

    fn drop_engine(&self, _seat: Seat) -> Vec<Job> {
        lock(&self.state).done = true;
        Vec::new()
    }

    fn score_line(&self) -> String {
        let state = lock(&self.state);
        match self.config.target {
            Target::Positions(n) => format!(
                "{} games written, {} of {n} positions",
                state.written_games, state.kept
            ),
            Target::Games(_) => format!("{} games written", state.written_games),
        }
    }

    fn interim(&self, recorded: u64, total: u64) -> Option<String> {
        let of = match total {
            0 => String::new(),
            total => format!(" of {total}"),
        };
        Some(format!("After {recorded}{of} games: {}", self.score_line()))
    }

    fn refresh_report(&self, _recorded: u64, _total: u64) -> Result<(), arena::ReportError> {
        let dir = self.config.dir();
        // Opened between two appends: the reader sees whole games only.
        let games = {
            let _state = lock(&self.state);
            EntryReader::open(&dir.join(super::GAMES_FILE))?
        };
        super::report::refresh(self.config, games, &dir, &mut lock(&self.report_seen))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_plays_every_nth_game_id() {
        let shard = |k, n| crate::run_dir::Shard::new(k, n).expect("shard");
        let ids = |s| {
            let mut ids = Vec::new();
            let mut id = 0;
            for _ in 0..4 {
                id = next_own_of(Some(s), id + 1);
                ids.push(id);
            }
            ids
        };
        assert_eq!(ids(shard(0, 2)), [1, 3, 5, 7]);
        assert_eq!(ids(shard(1, 2)), [2, 4, 6, 8]);
        assert_eq!(ids(shard(2, 3)), [3, 6, 9, 12]);
    }

    fn next_own_of(shard: Option<crate::run_dir::Shard>, from: u64) -> u64 {
        let config: DatagenConfig = serde_json::from_value(serde_json::json!({
            "event": "e", "engines": [], "rules": "capture-only",
            "openings": {"file": null}, "target": {"games": 1}, "seed": 1,
            "concurrency": 1, "out": "x",
        }))
        .expect("config");
        let mut config = config;
        config.run.shard = shard;
        next_own(&config, from)
    }
}
