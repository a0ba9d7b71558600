//! `newgame.*`: after `uginewgame`/`ucinewgame` and `isready`, the same fixed-depth search of
//! the same position gives the same `bestmove` every time (over [`SEARCHES`] searches, so that
//! a random mover does not pass by chance: with 20 legal moves, 1 time in 8,000). A difference is a warning, not a
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
/// How many times the position is searched, each after a new game.
pub const SEARCHES: usize = 4;

/// Runs `newgame.determinism`.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> Vec<CheckResult> {
    vec![session.check("newgame.determinism", |engine| determinism(engine, ctx))]
}

/// [`SEARCHES`] searches after a new game each.
fn determinism(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    let game = long_game(ctx.rules, ctx.board);
    let moves = &game[..PLY.min(game.len())];
    let start = Position::start(ctx.board);
    let limits = GoLimits::depth(DETERMINISM_DEPTH);
    let mut answers = Vec::new();
    for _ in 0..SEARCHES {
        engine.new_game()?;
        let (reply, evidence) = go(engine, &start, moves, &limits, ctx.search_deadline())?;
        if let Some(failure) = judge(ctx, &after(&start, moves), &reply.bestmove, &evidence) {
            return Ok(failure);
        }
        answers.push((reply.bestmove, evidence));
    }
    let (first, first_evidence) = answers.first().cloned().unwrap_or_default();
    let differing = answers.iter().find(|(answer, _)| *answer != first);
    Ok(match differing {
        None => Finding::pass(format!(
            "bestmove {first} all {SEARCHES} times at depth {DETERMINISM_DEPTH} after a new game"
        ))
        .with(first_evidence),
        Some((other, evidence)) => Finding::warn(format!(
            "bestmove {first}, then {other} at depth {DETERMINISM_DEPTH} after a new game: \
             its games cannot be replayed"
        ))
        .with(evidence.clone()),
    })
}
