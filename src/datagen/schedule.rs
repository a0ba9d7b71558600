//! Datagen as a [`Schedule`] on the arena: game ids handed out in order (of a shard, its own:
//! `(id - 1) mod N = K`), each with its start position ([`super::start`]) and its seats, and
//! every finished game appended to the games file **in game-id order**: a game that ends
//! before an earlier one waits in a buffer. The buffer is bounded: no game id more than
//! [`Selfplay::window`] ids past the first one not yet written is handed out (the schedule
//! answers [`Next::Wait`]), so memory does not grow with the run, and the file is the same
//! byte for byte at any `--concurrency`.
//!
//! With `--positions N`, the filters are run over each game as it is written, and the run
//! stops at the game that brings the positions to N: games after it are neither written nor
//! started.

use super::filters::{Judge, Seen, mix};
use super::formats::games::{Ending, GameEntry, GamesReader, GamesWriter, Ply};
use super::formats::{encode_move, mover_score, score_value};
use super::start::{self, Start};
use super::workers::{self, IdRanges};
use super::{DatagenConfig, Target};
use crate::arena::claims::UnitClaims;
use crate::arena::{self, Console, Flow, Job, Next, Schedule, ScheduledGame, lock};
use crate::game;
use crate::openings::Opening;
use crate::records::GameRecord;
use crate::rules::Color;
use crate::run_dir::RunDir;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

/// A salt that keeps the MultiPV draws apart from the others.
const MULTIPV_SALT: u64 = 0x4D55_4C54_4950_5601;

/// The datagen schedule.
pub struct Selfplay<'a> {
    config: &'a DatagenConfig,
    openings: &'a [Opening],
    sequence: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    state: Mutex<State>,
    /// The live report's set of positions seen (with `--dedup`), kept between refreshes.
    report_seen: Mutex<Option<Box<Seen>>>,
    /// A worker's claims on the run's games (`--worker`, [`super::workers`]): it plays only
    /// the games it claims.
    pub claims: Option<Claimed>,
}

impl Claimed {
    /// Whether game `id` is marked done by a worker whose directory is there: a marker of a
    /// worker directory deleted (its games with it), or naming none, is not believed.
    fn marked_done(&self, id: u64) -> bool {
        self.claims
            .done_by(id)
            .is_some_and(|worker| RunDir::new(&self.run).worker(&worker).root().is_dir())
    }
}

/// A worker's claims and what it knows of the run's recorded games.
pub struct Claimed {
    /// The claims on the games (`game-N`).
    pub claims: UnitClaims,
    /// The run directory shared by the workers.
    pub run: std::path::PathBuf,
    /// This worker's directory.
    pub dir: std::path::PathBuf,
    /// The games any worker recorded, as last read from their files.
    pub recorded: Mutex<IdRanges>,
}

/// What the schedule keeps between games.
pub struct State {
    /// The next own game id to hand out.
    next_id: u64,
    /// The next own game id to append to the games file.
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
    /// The first error: a games file that cannot be written, a start that cannot be drawn.
    pub error: Option<String>,
    /// A worker's games claimed and not written yet, by id.
    mine: BTreeSet<u64>,
    /// A worker's lowest game id not known recorded.
    cursor: u64,
    /// The last game id in the worker's games.dat (0: none).
    last_written: u64,
}

impl<'a> Selfplay<'a> {
    /// The schedule of `config` over `openings`, continuing after the games `writer`'s file
    /// holds: `written` games, the last of id `last_id` (0 for none), with `counter` having
    /// judged them (with `--positions`) and kept `kept` positions.
    pub fn new(
        config: &'a DatagenConfig,
        openings: &'a [Opening],
        writer: GamesWriter,
        resumed: Resumed,
    ) -> Selfplay<'a> {
        let sequence = crate::tournament::schedule::opening_sequence(
            config.openings.order,
            openings.len(),
            config.seed,
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
                next_id: first,
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
                error: None,
                mine: BTreeSet::new(),
                cursor: 1,
                last_written: resumed.last_id,
            }),
            report_seen: Mutex::new(None),
            claims: None,
        }
    }

    /// How many own game ids past the first unwritten one may be in flight or waiting.
    pub fn window(&self) -> u64 {
        2 * self.config.concurrency as u64 + 2
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
                white,
                black,
                opening: start.opening,
            },
            game_id,
        );
        job.pick = self.config.random_multipv.map(|multipv| game::MultiPvPick {
            diff: multipv.diff,
            probability: multipv.probability,
            seed: mix(mix(self.config.seed ^ MULTIPV_SALT) ^ game_id),
        });
        if start.random_plies > 0 {
            job.start = Some(start.position);
            job.tags = vec![("X-RandomPlies".to_string(), start.random_plies.to_string())];
        }
        job
    }

    /// Appends the buffered games that come next, in id order; stops the run at its target.
    fn write_ready(&self, state: &mut State) -> Flow {
        while let Some(entry) = state.buffer.remove(&state.write_next) {
            if let Err(err) = state.writer.append(&entry) {
                state.error.get_or_insert(err.to_string());
                state.done = true;
                return Flow::Stop;
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
}

impl Selfplay<'_> {
    /// A worker's next game: the lowest game of the run no worker recorded or holds, claimed
    /// (a claim taken over is first checked against the games files: a worker killed after
    /// writing a game, before marking it done, recorded it). [`Next::Wait`] while this
    /// worker's games wait to be written in order ([`Selfplay::window`]) or other workers
    /// hold the games left (to play them again if their worker dies); [`Next::Done`] once
    /// every game is recorded or claimed by this worker.
    fn next_claimed(&self, state: &mut State, claimed: &Claimed) -> Next {
        if state.mine.len() as u64 >= self.window() {
            return Next::Wait;
        }
        let Target::Games(last) = self.config.target else {
            return Next::Done;
        };
        let mut others = false;
        let mut id = state.cursor;
        while id <= last {
            let recorded = lock(&claimed.recorded).contains(id) || claimed.marked_done(id);
            if recorded || state.mine.contains(&id) {
                if recorded && id == state.cursor {
                    state.cursor += 1;
                }
                id += 1;
                continue;
            }
            let mut taken_over = false;
            let claim = claimed.claims.claim(id, 1, &mut |line| {
                taken_over = true;
                println!("{line}");
            });
            match claim {
                Ok(crate::arena::claims::Claimed::Mine) => {
                    if taken_over {
                        *lock(&claimed.recorded) = workers::recorded(&claimed.run);
                        if lock(&claimed.recorded).contains(id) {
                            // Written by the worker that died before marking it.
                            if let Err(err) = claimed.claims.recorded(id) {
                                state.error.get_or_insert(err.to_string());
                                return Next::Done;
                            }
                            continue;
                        }
                    }
                    return self.start_claimed(state, claimed, id);
                }
                Ok(crate::arena::claims::Claimed::Held) => {
                    others = true;
                    id += 1;
                }
                Err(err) => {
                    state.error.get_or_insert(format!(
                        "cannot claim a game in {}: {err}",
                        RunDir::new(&claimed.run).claims().display()
                    ));
                    state.done = true;
                    return Next::Done;
                }
            }
        }
        if others { Next::Wait } else { Next::Done }
    }

    /// The start of game `id` ([`start::draw`]).
    fn draw_start(&self, id: u64) -> Result<Start, String> {
        let config = self.config;
        start::draw(
            config.rules,
            config.seed,
            id,
            self.openings,
            &self.sequence,
            config.random_plies,
        )
    }

    /// Starts game `id`, claimed by this worker.
    fn start_claimed(&self, state: &mut State, claimed: &Claimed, id: u64) -> Next {
        match self.draw_start(id) {
            Ok(start) => {
                state.mine.insert(id);
                state.starts.insert(id, start);
                Next::Play(self.job(id, &start))
            }
            Err(err) => {
                claimed.claims.release(id);
                state.error.get_or_insert(err);
                state.done = true;
                Next::Done
            }
        }
    }

    /// Writes a worker's finished games that come next among its own, in id order: to its
    /// games.dat, or below its last game to a file of their own ([`workers::file_for`]); a
    /// game whose claim was taken over (this worker stalled past the lease) is dropped.
    fn write_claimed(&self, state: &mut State, claimed: &Claimed) -> Flow {
        while let Some(&first) = state.mine.first() {
            let Some(entry) = state.buffer.remove(&first) else {
                break;
            };
            state.mine.remove(&first);
            if !claimed.claims.holds(first) {
                println!(
                    "warning: game {first} not written: the claim on it was taken over by \
                     another worker, which plays it again"
                );
                continue;
            }
            let written = match workers::file_for(&claimed.dir, first, state.last_written) {
                None => state
                    .writer
                    .append(&entry)
                    .map(|()| state.last_written = first),
                Some(path) => super::formats::games::create(&path, self.config.rules)
                    .and_then(|mut own| own.append(&entry)),
            };
            let marked = written
                .map_err(|e| e.to_string())
                .and_then(|()| claimed.claims.recorded(first).map_err(|e| e.to_string()));
            // This worker knows what it wrote, marker or not.
            lock(&claimed.recorded).insert(first);
            if let Err(err) = marked {
                state.error.get_or_insert(err);
                state.done = true;
                return Flow::Stop;
            }
            state.written_games += 1;
        }
        Flow::Continue
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
    match config.shard {
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
    fn next(&self, _closing: bool) -> Next {
        let mut state = lock(&self.state);
        if state.done {
            return Next::Done;
        }
        if let Some(claimed) = &self.claims {
            return self.next_claimed(&mut state, claimed);
        }
        let id = state.next_id;
        if let Target::Games(n) = self.config.target
            && id > n
        {
            return Next::Done;
        }
        let step = self.config.shard.map_or(1, |s| u64::from(s.count()));
        if id >= state.write_next + self.window() * step {
            return Next::Wait;
        }
        match self.draw_start(id) {
            Ok(start) => {
                state.next_id = next_own(self.config, id + 1);
                state.starts.insert(id, start);
                Next::Play(self.job(id, &start))
            }
            Err(err) => {
                state.error.get_or_insert(err);
                state.done = true;
                Next::Done
            }
        }
    }

    fn finished(
        &self,
        job: &Job,
        _record: &GameRecord,
        played: &game::PlayedGame,
        _console: &Console,
    ) -> Flow {
        let mut state = lock(&self.state);
        let id = job.game.game_id;
        let Some(start) = state.starts.remove(&id) else {
            return Flow::Continue;
        };
        if state.done {
            return Flow::Stop;
        }
        state.session_plies += played.moves.len() as u64;
        if played.faulty.is_some() {
            state.faults += 1;
        }
        state.buffer.insert(id, entry_of(id, &start, played));
        match &self.claims {
            Some(claimed) => self.write_claimed(&mut state, claimed),
            None => self.write_ready(&mut state),
        }
    }

    fn not_played(&self, job: &Job) {
        // A hole in the game ids: nothing after it can be written in order. The run stops;
        // --resume plays from the hole.
        let mut state = lock(&self.state);
        state.starts.remove(&job.game.game_id);
        state.done = true;
        if let Some(claimed) = &self.claims {
            // Another worker plays it, and the games of this one not written.
            state.mine.remove(&job.game.game_id);
            claimed.claims.release_all();
        }
    }

    fn may_record(&self, job: &Job) -> bool {
        self.claims
            .as_ref()
            .is_none_or(|claimed| claimed.claims.holds(job.game.game_id))
    }

    fn dropped(&self, job: &Job) {
        let Some(claimed) = &self.claims else {
            return;
        };
        // Another worker plays it: the games after it are written without it.
        let mut state = lock(&self.state);
        let id = job.game.game_id;
        state.starts.remove(&id);
        state.mine.remove(&id);
        claimed.claims.release(id);
        self.write_claimed(&mut state, claimed);
    }

    fn drop_engine(&self, _engine: usize) -> Vec<Job> {
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

    fn interim(&self, _recorded: u64, _total: u64) -> Option<String> {
        None
    }

    fn refresh_report(&self, _recorded: u64, _total: u64) -> Result<(), arena::ReportError> {
        let dir = self.config.dir();
        // Opened between two appends: the reader sees whole games only.
        let games = {
            let _state = lock(&self.state);
            GamesReader::open(&dir.join(super::GAMES_FILE))?
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
        next_own(&DatagenConfig { shard, ..config }, from)
    }
}
