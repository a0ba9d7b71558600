//! `match.*`: a few game pairs at a fast clock against a reference opponent (bt-random), played
//! by the tournament's own game loop ([`crate::game::play`]): the engine must not
//! lose a game by time forfeit, illegal move, crash or stall. A CodinGame bot plays at its own
//! clock (`tc=codingame` unless given another); the second pair's opening reaches it by
//! forced turns.

use super::{CheckResult, Ctx, Evidence, Finding, Outcome, Session};
use crate::engine::{Engine, EngineDescription};
use crate::game::TimeControl;
use crate::game::{Players, play};
use crate::protocol::Command;
use crate::rules::{Board, ByColor, Color, Position, Rules};
use std::sync::atomic::AtomicBool;

/// How many game pairs are played (each opening once with each colour).
pub const MATCH_PAIRS: usize = 2;
/// The clock of every game: 2 s plus 20 ms a move.
pub const MATCH_TC: TimeControl = TimeControl::Clock {
    base_ms: 2000,
    increment_ms: 20,
    moves: None,
};
/// The random plies of the openings after the first pair (which starts from the start).
pub const OPENING_PLIES: usize = 4;

/// Runs `match.mini-match`, or skips it with `--quick` or without an opponent.
pub(super) fn run(
    session: &mut Session,
    ctx: &Ctx,
    spec: &EngineDescription,
    opponent: Option<&EngineDescription>,
    quick: bool,
) -> CheckResult {
    const ID: &str = "match.mini-match";
    if quick {
        return Session::result(ID, Finding::skip("skipped (--quick)"));
    }
    let Some(opponent) = opponent else {
        return Session::result(ID, Finding::skip("skipped: no opponent engine was found"));
    };
    session.check(ID, |engine| mini_match(engine, ctx, spec, opponent))
}

/// The game pairs; fails at the first game the engine loses by its own fault.
fn mini_match(
    engine: &mut Engine,
    ctx: &Ctx,
    spec: &EngineDescription,
    opponent: &EngineDescription,
) -> Outcome {
    let mut rival = match Engine::start(&opponent.launch(), ctx.rules, ctx.board) {
        Ok(rival) => rival,
        Err(error) => {
            return Ok(Finding::skip(format!(
                "the opponent could not be started: {error}"
            )));
        }
    };
    let ours = EngineDescription {
        limit: match spec.proto.is_bot() {
            true => spec.limit,
            false => MATCH_TC,
        },
        ..spec.clone()
    };
    let theirs = EngineDescription {
        limit: MATCH_TC,
        ..opponent.clone()
    };
    let stop = AtomicBool::new(false);
    let mut rng = fastrand::Rng::with_seed(ctx.seed);
    let (mut won, mut plies, mut games) = (0, 0, 0);
    for pair in 0..MATCH_PAIRS {
        let opening = match pair {
            0 => Position::start(ctx.board),
            _ => random_opening(ctx.rules, ctx.board, &mut rng),
        };
        for side in [Color::White, Color::Black] {
            games += 1;
            let mut players = match side {
                Color::White => Players {
                    engines: ByColor {
                        white: &mut *engine,
                        black: &mut rival,
                    },
                    specs: ByColor {
                        white: &ours,
                        black: &theirs,
                    },
                },
                Color::Black => Players {
                    engines: ByColor {
                        white: &mut rival,
                        black: &mut *engine,
                    },
                    specs: ByColor {
                        white: &theirs,
                        black: &ours,
                    },
                },
            };
            let Ok(game) = play(
                &mut players,
                &opening,
                ctx.rules,
                &Default::default(),
                None,
                Default::default(),
                &stop,
            ) else {
                return Ok(Finding::skip("the match was interrupted"));
            };
            let where_ = format!("game {games} ({} as {side}, from {opening})", spec.name);
            let evidence = || {
                let line = Command::Position {
                    start: opening,
                    moves: game.moves.clone(),
                }
                .to_line(ctx.protocol);
                Evidence::sent([line])
            };
            match game.faulty {
                Some(faulty) if faulty == side => {
                    return Ok(Finding::fail(format!(
                        "{where_}: lost by {} after {} plies: {}",
                        game.termination,
                        game.moves.len(),
                        game.detail
                    ))
                    .with(evidence()));
                }
                Some(_) => {
                    return Ok(Finding::warn(format!(
                        "{where_}: the opponent failed: {}",
                        game.detail
                    ))
                    .with(evidence()));
                }
                None => {}
            }
            won += usize::from(game.winner == side);
            plies += game.moves.len();
        }
    }
    rival.quit();
    Ok(Finding::pass(format!(
        "{games} games at {} against {}: {won} won, {} lost, {plies} plies; no time \
         forfeit, illegal move, crash or stall",
        ours.limit,
        opponent.name,
        games - won
    )))
}

/// The position after [`OPENING_PLIES`] random legal moves from the start of `board` (fewer if the game
/// would end).
fn random_opening(rules: Rules, board: Board, rng: &mut fastrand::Rng) -> Position {
    let mut position = Position::start(board);
    for _ in 0..OPENING_PLIES {
        let moves = position.legal_moves(rules);
        let Some(mv) = moves.iter().nth(rng.usize(..moves.len().max(1))) else {
            break;
        };
        let next = position.play_unchecked(mv);
        if next.outcome(rules).is_some() {
            break;
        }
        position = next;
    }
    position
}
