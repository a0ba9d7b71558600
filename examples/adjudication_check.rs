//! What adjudication saves, and how often it is wrong, measured on real games.
//!
//! ```sh
//! # On a run played without adjudication: where each rule would have ended each game.
//! cargo run --release --example adjudication_check -- shadow results/plain \
//!     proof=5 proof=7 proof=9 resign:movecount=3,score=500,twosided=true
//! # On a run played with adjudication: its adjudicated games played on to the end.
//! cargo run --release --example adjudication_check -- replay results/proof
//! ```
//!
//! `shadow DIR RULE...` feeds every game of `DIR/games.csv` (rules from `DIR/config.json`),
//! move by move with the scores the engines reported, to the runner's own [`Adjudicator`]
//! under each rule (`proof=PLIES[,nodes=N]`, or `resign:` and a `--resign` value). The game
//! went on to the end over the board, so the first move where a rule fires says what it would
//! have saved (the plies after it, and the time the engines spent on them, from `move_info`)
//! and whether its verdict was the game's result.
//!
//! `replay DIR` takes every game of `DIR/games.csv` that ended by `proof` or `resign`, starts
//! the run's two engines again (from `DIR/config.json`) and plays the game on from the
//! position it was adjudicated in, the same engines on the same sides, without adjudication,
//! to the rules' end; and counts the games whose winner over the board is not the adjudicated
//! one. The engines start each continuation with fresh clocks.

use bt_arena::engine::Engine;
use bt_arena::game::adjudication::{Adjudication, Adjudicator};
use bt_arena::game::{self, Players};
use bt_arena::records::moves::decode_column;
use bt_arena::records::{GameRecord, Termination, read_games};
use bt_arena::rules::{ByColor, Color, Position, Rules};
use bt_arena::tournament::TournamentConfig;

/// The config saved in the run directory `dir`.
fn saved_config(dir: &std::path::Path) -> Result<TournamentConfig, String> {
    bt_arena::session::resume::read_saved(dir).map_err(|e| e.to_string())
}
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// A rule of the command line, as an [`Adjudication`] with one rule on.
fn parse_rule(text: &str) -> Result<Adjudication, String> {
    let mut adjudication = Adjudication::default();
    if let Some(spec) = text.strip_prefix("resign:") {
        adjudication.resign = Some(spec.parse().map_err(|e| format!("{text}: {e}"))?);
    } else {
        adjudication.proof = Some(text.parse().map_err(|e| format!("{text}: {e}"))?);
    }
    Ok(adjudication)
}

/// Where a rule would have ended one game: the plies played before it fired, and its winner.
fn first_adjudication(
    game: &GameRecord,
    rules: Rules,
    adjudication: &Adjudication,
) -> Result<Option<(usize, Color)>, String> {
    let mut position: Position = game.opening.parse().map_err(|e| format!("{e}"))?;
    let infos = decode_column(&game.move_info).map_err(|e| e.to_string())?;
    let mut adjudicator = Adjudicator::new(adjudication, rules);
    for (ply, mv) in game.moves.split_whitespace().enumerate() {
        let mover = position.side_to_move();
        let mv = mv.parse().map_err(|e| format!("{e}"))?;
        position = position
            .play(rules, mv)
            .map_err(|e| format!("game {}: {e}", game.game_id))?;
        if position.outcome(rules).is_some() {
            break;
        }
        let score = infos.get(ply).and_then(|info| info.score);
        if let Some(adjudicated) = adjudicator.after_move(&position, mover, score) {
            return Ok(Some((ply + 1, adjudicated.winner)));
        }
    }
    Ok(None)
}

/// The time the moves from ply `from` on took, ms.
fn time_after(game: &GameRecord, from: usize) -> u64 {
    decode_column(&game.move_info)
        .map(|infos| infos.iter().skip(from).map(|info| info.time_ms()).sum())
        .unwrap_or(0)
}

fn shadow(dir: &Path, rules_given: &[String]) -> Result<(), String> {
    let config = saved_config(dir)?;
    let games = read_games(&dir.join("games.csv")).map_err(|e| e.to_string())?;
    let plies: u64 = games.iter().map(|g| u64::from(g.plies)).sum();
    let time: u64 = games.iter().map(|g| g.white_ms + g.black_ms).sum();
    println!(
        "{}: {} games, {plies} plies, {:.1} s of engine time ({} rules)",
        dir.display(),
        games.len(),
        time as f64 / 1000.0,
        config.run.rules
    );
    for text in rules_given {
        let adjudication = parse_rule(text)?;
        let (mut ended, mut wrong, mut saved_plies, mut saved_ms) = (0, 0, 0u64, 0u64);
        let mut wrong_games = Vec::new();
        for game in &games {
            if let Some((ply, winner)) = first_adjudication(game, config.run.rules, &adjudication)?
            {
                ended += 1;
                saved_plies += u64::from(game.plies) - ply as u64;
                saved_ms += time_after(game, ply);
                if winner != game.result.winner() {
                    wrong += 1;
                    wrong_games.push(game.game_id);
                }
            }
        }
        println!(
            "{text}: ends {ended} of {} games early, saving {saved_plies} plies ({:.1}%) and \
             {:.1} s of engine time ({:.1}%); wrong verdicts {wrong}{}",
            games.len(),
            100.0 * saved_plies as f64 / plies as f64,
            saved_ms as f64 / 1000.0,
            100.0 * saved_ms as f64 / time as f64,
            if wrong_games.is_empty() {
                String::new()
            } else {
                format!(" (games {wrong_games:?})")
            }
        );
    }
    Ok(())
}

/// The engines of `config` started again, by name.
fn start_engines(config: &TournamentConfig) -> Result<Vec<Engine>, String> {
    config
        .engines
        .iter()
        .map(|spec| {
            Engine::start(
                &spec.launch(),
                config.run.rules,
                bt_arena::rules::Board::STANDARD,
            )
            .map_err(|e| e.to_string())
        })
        .collect()
}

fn replay(dir: &Path) -> Result<(), String> {
    let config = saved_config(dir)?;
    let games = read_games(&dir.join("games.csv")).map_err(|e| e.to_string())?;
    let mut engines = start_engines(&config)?;
    let index = |name: &str| {
        config
            .engines
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| format!("no engine {name} in the config"))
    };
    let stop = AtomicBool::new(false);
    for termination in [Termination::Proof, Termination::Resign] {
        let (mut played, mut wrong, mut plies) = (0, 0, 0usize);
        for game in games.iter().filter(|g| g.termination == termination) {
            let mut position: Position = game.opening.parse().map_err(|e| format!("{e}"))?;
            for mv in game.moves.split_whitespace() {
                position = position.play_unchecked(mv.parse().map_err(|e| format!("{e}"))?);
            }
            let (white, black) = (index(&game.white)?, index(&game.black)?);
            let (low, high) = engines.split_at_mut(white.max(black));
            let (white_engine, black_engine) = if white < black {
                (&mut low[white], &mut high[0])
            } else {
                (&mut high[0], &mut low[black])
            };
            let mut players = Players {
                engines: ByColor {
                    white: white_engine,
                    black: black_engine,
                },
                specs: ByColor {
                    white: &config.engines[white],
                    black: &config.engines[black],
                },
            };
            let result = game::play(
                &mut players,
                &position,
                config.run.rules,
                &Adjudication::default(),
                None,
                game::ClaimChecks::default(),
                &stop,
            )
            .map_err(|_| "interrupted".to_string())?;
            played += 1;
            plies += result.moves.len();
            if result.winner != game.result.winner() {
                wrong += 1;
                println!(
                    "game {}: adjudicated {} ({termination}), played on: {} wins by {} after {} \
                     plies",
                    game.game_id,
                    game.result,
                    result.winner,
                    result.termination,
                    result.moves.len()
                );
            }
            if result.faulty.is_some() {
                // A misbehaving engine is replaced, as the runner does.
                engines = start_engines(&config)?;
            }
        }
        if played > 0 {
            println!(
                "{termination}: {played} games played on from the adjudicated position, {plies} \
                 plies in all; the adjudicated winner lost {wrong} of them"
            );
        }
    }
    for engine in engines {
        engine.quit();
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [mode, dir, rules @ ..] if mode == "shadow" && !rules.is_empty() => {
            shadow(Path::new(dir), rules)
        }
        [mode, dir] if mode == "replay" => replay(Path::new(dir)),
        _ => Err("usage: adjudication_check shadow DIR RULE... | replay DIR".to_string()),
    };
    if let Err(message) = result {
        eprintln!("error: {message}");
        std::process::exit(3);
    }
}
