//! A worker thread: takes jobs from the schedule and plays them with the engine processes it
//! owns, one seat per engine, started when first needed, given the job's option values when
//! they changed, and replaced after a fault (or every game with `restart=on`).

use super::{Floor, Job, Schedule, Seat};
use crate::engine::{Engine, EngineDescription, EngineError, EngineLaunch};
use crate::game::{self, Players, Unfinished};
use crate::openings::Opening;
use crate::records::{self, GameRecord, GameResult};
use crate::rules::{ByColor, Color};
use crate::run_dir::RunDir;
use std::path::Path;

/// A running engine and the option values last set on it.
struct Process {
    engine: Engine,
    values: Vec<(String, String)>,
}

/// One worker thread and the engine processes it owns.
pub(super) struct Worker<'a, S: Schedule> {
    floor: &'a Floor<'a, S>,
    id: usize,
    seats: Vec<Option<Process>>,
}

impl<'a, S: Schedule> Worker<'a, S> {
    pub(super) fn new(floor: &'a Floor<'a, S>, id: usize) -> Worker<'a, S> {
        Worker {
            floor,
            id,
            seats: floor.arena.engines.iter().map(|_| None).collect(),
        }
    }

    pub(super) fn run(mut self) {
        while let Some(job) = self.floor.next_job() {
            self.play(&job);
        }
        for process in self.seats.iter_mut().filter_map(Option::take) {
            process.engine.quit();
        }
    }

    fn play(&mut self, job: &Job) {
        let floor = self.floor;
        let arena = floor.arena;
        let game = job.game;
        if floor.skip_if_given_up(job) {
            return;
        }
        let seats = ByColor {
            white: game.white,
            black: game.black,
        };
        for side in [Color::White, Color::Black] {
            if let Err(error) = self.make_ready(seats[side], &job.values[side]) {
                floor.start_failed(job, seats[side], &error);
                return;
            }
        }
        let opening = &match job.start {
            Some(position) => Opening {
                position,
                ..arena.openings[game.opening].clone()
            },
            None => arena.openings[game.opening].clone(),
        };
        let started = records::now_rfc3339();
        let (white, black) = two_mut(&mut self.seats, game.white.index(), game.black.index());
        let (Some(white), Some(black)) = (white.as_mut(), black.as_mut()) else {
            return;
        };
        let mut players = Players {
            engines: ByColor {
                white: &mut white.engine,
                black: &mut black.engine,
            },
            specs: seats.map(|seat| &arena.engines[seat.index()]),
        };
        let played = game::play(
            &mut players,
            &opening.position,
            arena.rules,
            arena.adjudication,
            job.pick.as_ref(),
            arena.checks,
            arena.stop,
        );
        match played {
            Ok(played) => {
                let record = game_record(arena.engines, &game, opening, &played, started);
                floor.record(job, &record, &played);
                if let Some(side) = played.faulty {
                    self.retire(seats[side]);
                }
            }
            Err(Unfinished::Interrupted) => floor.walk.unplayed(job),
        }
        for seat in [game.white, game.black] {
            if arena.engines[seat.index()].restart {
                self.retire(seat);
            }
        }
    }

    /// Makes engine `seat` ready with `values` set: started unless a process is running,
    /// given the values when they changed. A process that refuses the values is replaced
    /// once, in case it was the process and not the values.
    fn make_ready(&mut self, seat: Seat, values: &[(String, String)]) -> Result<(), EngineError> {
        let index = seat.index();
        for attempt in 0..2 {
            if self.seats[index].is_none() {
                let arena = self.floor.arena;
                let mut launch = launch(&arena.dir, arena.log, &arena.engines[index], self.id);
                if let Some(list) = &arena.affinity {
                    let threads = super::engine_threads(arena.engines);
                    launch.cpus = list.cpus_of(threads, self.id, index);
                }
                let engine = Engine::start(&launch, arena.rules, arena.board)?;
                self.floor.started(seat);
                self.floor.engine_started(seat, engine.id_name());
                self.seats[index] = Some(Process {
                    engine,
                    values: Vec::new(),
                });
            }
            let Some(process) = self.seats[index].as_mut() else {
                continue;
            };
            if process.values == values {
                return Ok(());
            }
            match process.engine.set_options(values) {
                Ok(()) => {
                    process.values = values.to_vec();
                    return Ok(());
                }
                Err(err) if attempt == 1 => return Err(err),
                Err(_) => self.retire(seat),
            }
        }
        Ok(())
    }

    /// Quits engine `seat`'s process; the next game starts a fresh one.
    fn retire(&mut self, seat: Seat) {
        if let Some(process) = self.seats[seat.index()].take() {
            process.engine.quit();
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

/// How to launch the engine `spec` describes for worker `worker` of the run writing `dir`:
/// its stderr (and with `log` its protocol traffic) under `<dir>/logs/`, named by
/// [`RunDir`].
pub fn launch(dir: &Path, log: bool, spec: &EngineDescription, worker: usize) -> EngineLaunch {
    let run = RunDir::new(dir);
    EngineLaunch {
        stderr_log: Some(run.engine_stderr_log(&spec.name, worker)),
        comm_log: log.then(|| run.engine_comm_log(&spec.name, worker)),
        ..spec.launch()
    }
}

/// The games.csv row of a finished game of `engines` (the seats' names).
pub fn game_record(
    engines: &[EngineDescription],
    game: &super::ScheduledGame,
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
        white: engines[game.white.index()].name.clone(),
        black: engines[game.black.index()].name.clone(),
        result: GameResult::from_winner(played.winner),
        termination: played.termination,
        plies: u32::try_from(played.moves.len()).unwrap_or(u32::MAX),
        moves: played
            .moves
            .iter()
            .map(|mv| mv.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        white_ms: played.used_ms(Color::White),
        black_ms: played.used_ms(Color::Black),
        started,
        white_stray: played.stray.white.lines,
        black_stray: played.stray.black.lines,
        move_info: records::moves::encode_column(&played.infos),
        claims: played.claims.encode(),
        move_times: records::moves::encode_times(&played.infos),
    }
}
