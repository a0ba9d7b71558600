//! A new kind of run in one file, on the one session: engine A plays engine B, one game a
//! unit (colours alternating, openings from the shipped book in order), until A loses a game
//! or `--games N` are played. Its config, its schedule and its report are all it writes: the
//! session gives it resume, shards, workers (`--worker`), `--max-time`, run.json and every
//! check of the arena. docs/guide/arena.md walks through it; tests/it/toy_kind.rs plays it
//! alone and as three workers, one killed mid-run.
//!
//! ```text
//! cargo run --features test-engines --bin bt-toy-kind -- --out DIR --a 'cmd=PATH nodes=50'
//!     --b 'cmd=PATH' [--games N] [--concurrency N] [--worker] [--resume]
//! ```

use bt_arena::arena::{
    Console, Flow, Gate, Job, RecordedGame, Schedule, ScheduledGame, Seat, Unit, UnitKind,
};
use bt_arena::engine::{EngineDescription, EngineKeys};
use bt_arena::game::{PlayedGame, TimeControl};
use bt_arena::records::GameRecord;
use bt_arena::run::header::RunHeader;
use bt_arena::run::identity::{Identified, RunType, RunTypeInfo, SeedOrigin};
use bt_arena::session::{Ended, Kind, Opened, RunConfig, SessionError, SessionOptions, Setup};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The config: the settings every kind shares, and its own.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ToyConfig {
    #[serde(flatten)]
    run: RunHeader,
    engines: Vec<EngineDescription>,
    games: u64,
}

impl Identified for ToyConfig {
    const TYPE: RunType = RunType::new(&RunTypeInfo {
        command: "toy",
        noun: "toy run",
        file: "toy.json",
        merge: "merge them with bt-arena merge {run}",
    });
    fn header(&self) -> &RunHeader {
        &self.run
    }
    fn header_mut(&mut self) -> &mut RunHeader {
        &mut self.run
    }
}

impl RunConfig for ToyConfig {
    fn engines_mut(&mut self) -> &mut [EngineDescription] {
        &mut self.engines
    }
    fn validate(&self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        Ok(())
    }
}

/// The schedule: game u is unit u; A (seat 0) is White in odd games. No unit opens past A's
/// first loss, read from every process's games in unit order.
struct UntilLoss<'a> {
    config: &'a ToyConfig,
    books: usize,
    first_loss: AtomicU64,
}

impl Schedule for UntilLoss<'_> {
    type Error = std::io::Error;

    fn unit_kind(&self) -> UnitKind {
        UnitKind::GAME
    }
    fn next_unit(&self, after: Option<Unit>) -> Option<Unit> {
        let unit = after.map_or(1, |unit| unit.0 + 1);
        (unit <= self.config.games).then_some(Unit(unit))
    }
    fn games_in(&self, _unit: Unit) -> usize {
        1
    }
    fn recorded(&self, game: &GameRecord) -> Result<RecordedGame, std::io::Error> {
        let unit = Unit(game.game_id);
        Ok(RecordedGame {
            game_id: game.game_id,
            unit,
            result: game.result,
        })
    }
    fn observed(&self, game: &RecordedGame) {
        let a_white = game.game_id % 2 == 1;
        if (game.result.winner() == bt_arena::rules::Color::White) != a_white {
            self.first_loss.fetch_min(game.game_id, Ordering::SeqCst);
        }
    }
    fn gate(&self, unit: Unit, _: &Console) -> Result<Gate, std::io::Error> {
        let stop = self.first_loss.load(Ordering::SeqCst) < unit.0;
        Ok(if stop { Gate::Verdict } else { Gate::Open })
    }
    fn open(&self, unit: Unit, _: &[RecordedGame]) -> Result<Vec<Job>, std::io::Error> {
        let (white, black) = if unit.0 % 2 == 1 { (0, 1) } else { (1, 0) };
        let opening = usize::try_from(unit.0 - 1).unwrap_or(0) % self.books;
        let game = ScheduledGame {
            game_id: unit.0,
            round: 1,
            pair: unit.0,
            white: Seat(white),
            black: Seat(black),
            opening,
        };
        Ok(vec![Job::plain(game, unit)])
    }
    fn finished(&self, _: &Job, _: &GameRecord, _: &PlayedGame, _: &Console) -> Flow<Self::Error> {
        Flow::Continue
    }
    fn score_line(&self) -> String {
        match self.first_loss.load(Ordering::SeqCst) {
            u64::MAX => "A has not lost".to_string(),
            game => format!("A lost game {game}"),
        }
    }
}

/// The kind: its schedule and its report (the first loss, on stdout).
struct Toy;

impl Kind for Toy {
    type Config = ToyConfig;
    type Schedule<'a> = UntilLoss<'a>;
    type Error = std::io::Error;
    type Prospect = ();
    type Outcome = String;

    fn seats(config: &ToyConfig) -> Vec<EngineDescription> {
        config.engines.clone()
    }
    fn open<'a>(
        config: &'a ToyConfig,
        setup: &Setup<'a>,
    ) -> Result<Opened<UntilLoss<'a>, ()>, std::io::Error> {
        let schedule = UntilLoss {
            config,
            books: setup.openings.len(),
            first_loss: AtomicU64::new(u64::MAX),
        };
        Ok(Opened {
            schedule,
            prospect: (),
            repairs: Vec::new(),
            total_games: config.games,
        })
    }
    fn finish(
        _: &ToyConfig,
        schedule: UntilLoss<'_>,
        _: &Ended,
    ) -> Result<String, SessionError<std::io::Error>> {
        Ok(schedule.score_line())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        let at = args.iter().position(|a| a == flag)?;
        args.get(at + 1).cloned()
    };
    // An engine as `--engine` takes it: `cmd=PATH nodes=200 ...` (depth=1 by default).
    let engine = |name: &str, keys: String| {
        let mut tokens: Vec<String> = keys.split_whitespace().map(String::from).collect();
        tokens.push(format!("name={name}"));
        EngineKeys::parse(&tokens).and_then(|keys| keys.into_description(TimeControl::Depth(1)))
    };
    let out = std::path::absolute(value("--out").ok_or("--out DIR")?)?;
    let resume = args.iter().any(|a| a == "--resume");
    let mut config: ToyConfig = match resume {
        true => bt_arena::session::resume::read_saved(&out)?,
        false => ToyConfig {
            run: RunHeader {
                seed: 1,
                openings: bt_arena::openings::spec::OpeningsSpec {
                    file: Some(bt_arena::openings::shipped_book_name(Default::default())),
                    ..Default::default()
                },
                out,
                ..RunHeader::default()
            },
            engines: vec![
                engine("A", value("--a").ok_or("--a KEYS")?)?,
                engine("B", value("--b").ok_or("--b KEYS")?)?,
            ],
            games: value("--games").map_or(Ok(20), |n| n.parse())?,
        },
    };
    config.run.concurrency = value("--concurrency").map_or(Ok(1), |n| n.parse())?;
    if args.iter().any(|a| a == "--worker") {
        config.run.worker = Some(bt_arena::arena::leases::new_worker_id());
        config.run.lease_ms = Some(60_000);
    }
    let start = match resume {
        true => bt_arena::session::RunStart::Resume,
        false => bt_arena::session::RunStart::Fresh(SeedOrigin::Given),
    };
    let stop = AtomicBool::new(false);
    let options = SessionOptions::default();
    let ending = bt_arena::session::run::<Toy>(
        &mut config,
        start,
        &options,
        &stop,
        &mut |line| eprintln!("{line}"),
        |_| {},
    )?;
    println!(
        "{}: {} games this session",
        ending.outcome, ending.ended.recorded
    );
    Ok(())
}
