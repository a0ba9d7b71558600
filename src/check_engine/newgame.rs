//! `newgame.*`: after `uginewgame`/`ucinewgame` and `isready`, the same fixed-depth search of
//! the same position gives the same `bestmove` twice. A difference is a warning, not a
//! failure: randomness is allowed, but it makes a bug hard to reproduce.

use super::positions::long_game;
use super::talk::{after, go, judge};
use super::{CheckResult, Ctx, Finding, Outcome, Session};
use crate::engine::Engine;
use crate::protocol::GoLimits;
use crate::rules::Position;

/// The depth of the repeated search, plies.
pub const DETERMINISM_DEPTH: u32 = 5;
/// The ply of the long game searched.
const PLY: usize = 16;

/// Runs `newgame.determinism`.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> Vec<CheckResult> {
    vec![session.check("newgame.determinism", |engine| determinism(engine, ctx))]
}

/// Two searches after a new game each.
fn determinism(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    let game = long_game(ctx.rules);
    let moves = &game[..PLY.min(game.len())];
    let start = Position::startpos();
    let limits = GoLimits::depth(DETERMINISM_DEPTH);
    let mut answers = Vec::new();
    for _ in 0..2 {
        engine.new_game()?;
        let (reply, evidence) = go(engine, &start, moves, &limits, ctx.search_deadline())?;
        if let Some(failure) = judge(ctx, &after(&start, moves), &reply.bestmove, &evidence) {
            return Ok(failure);
        }
        answers.push((reply.bestmove, evidence));
    }
    let (second, evidence) = answers.pop().unwrap_or_default();
    let (first, _) = answers.pop().unwrap_or_default();
    Ok(if first == second {
        Finding::pass(format!(
            "bestmove {first} both times at depth {DETERMINISM_DEPTH} after a new game"
        ))
    } else {
        Finding::warn(format!(
            "bestmove {first}, then {second} at depth {DETERMINISM_DEPTH} after a new game: \
             its games cannot be replayed"
        ))
    }
    .with(evidence))
}
