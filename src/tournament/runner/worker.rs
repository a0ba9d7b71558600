//! A worker thread: takes games from the run's queue and plays them with the engine processes
//! it owns, started when first needed and replaced after a fault (or every game with
//! `restart=on`).

use super::Shared;
use crate::engine::{Engine, EngineDescription, EngineError, EngineLaunch};
use crate::game::{self, Players, Unfinished};
use crate::openings::Opening;
use crate::records::{self, GameRecord, GameResult};
use crate::rules::{ByColor, Color};
use crate::run_dir::RunDir;
use crate::tournament::config::TournamentConfig;
use crate::tournament::schedule::ScheduledGame;

/// One worker thread and the engine processes it owns.
pub(super) struct Worker<'a> {
    shared: &'a Shared<'a>,
    id: usize,
    engines: Vec<Option<Engine>>,
}

impl<'a> Worker<'a> {
    pub(super) fn new(shared: &'a Shared<'a>, id: usize) -> Worker<'a> {
        Worker {
            shared,
            id,
            engines: shared.config.engines.iter().map(|_| None).collect(),
        }
    }

    pub(super) fn run(mut self) {
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
        let started = records::now_rfc3339();
        let (white, black) = two_mut(&mut self.engines, game.white, game.black);
        let (Some(white), Some(black)) = (white.as_mut(), black.as_mut()) else {
            return;
        };
        let seats = ByColor {
            white: game.white,
            black: game.black,
        };
        let mut players = Players {
            engines: ByColor { white, black },
            specs: seats.map(|index| &config.engines[index]),
        };
        let played = game::play(
            &mut players,
            &opening.position,
            config.rules,
            &config.adjudication,
            self.shared.stop,
        );
        match played {
            Ok(played) => {
                let record = game_record(config, &game, opening, &played, started);
                self.shared.record(&record, &played, &game);
                self.shared.refresh_report();
                for side in [Color::White, Color::Black] {
                    let stray = &played.stray[side];
                    if stray.lines > 0 {
                        let name = &config.engines[seats[side]].name;
                        self.shared.say(&format!(
                            "warning: game {}: {name} wrote {stray}; none was played",
                            game.game_id
                        ));
                    }
                }
                if let Some(side) = played.faulty {
                    self.retire(seats[side]);
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
            let launch = launch(
                self.shared.config,
                &self.shared.config.engines[index],
                self.id,
            );
            let engine = Engine::start(&launch, self.shared.config.rules)?;
            self.shared.started(index);
            self.shared.note_engine_id(index, engine.id_name());
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

/// How to launch the engine `spec` describes for worker `worker`: logs under `<out>/logs/`.
pub(crate) fn launch(
    config: &TournamentConfig,
    spec: &EngineDescription,
    worker: usize,
) -> EngineLaunch {
    let dir = RunDir::new(config.results_dir());
    EngineLaunch {
        stderr_log: Some(dir.engine_stderr_log(&spec.name, worker)),
        comm_log: config.log.then(|| dir.engine_comm_log(&spec.name, worker)),
        ..spec.launch()
    }
}

pub use crate::run_dir::file_safe;

/// The games.csv row of a finished game.
pub(crate) fn game_record(
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
    }
}
