//! `board.*`, on a board other than 8×8 only: does the engine play the board it is given, or
//! 8×8 whatever it is told? Its perft of the board's start (`board.perft`) and a game against
//! itself from that start (`board.moves`), and its mate claims in positions the solver proves
//! (`board.solved`, [`super::solved`]). An engine whose `Board` option cannot take the size
//! fails `handshake.rules-option` before these run.

use super::talk::{after, go, judge};
use super::{CheckResult, Ctx, Finding, Outcome, Session};
use crate::engine::{Engine, EngineError};
use crate::protocol::{Command, GoLimits};
use crate::rules::perft::{PerftOptions, perft as count};
use crate::rules::{Move, Position};

/// The deepest perft of the start compared, plies: depth 1 already tells most boards from 8×8.
pub const PERFT_DEPTH: u32 = 3;
/// The longest game the engine plays against itself in `board.moves`, plies.
pub const GAME_PLIES: usize = 60;

/// Runs the `board.*` checks; none on 8×8.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> Vec<CheckResult> {
    if ctx.board.is_standard() {
        return Vec::new();
    }
    vec![
        session.check("board.perft", |engine| start_perft(engine, ctx)),
        session.check("board.moves", |engine| self_play(engine, ctx)),
        super::solved::run(session, ctx),
    ]
}

/// `board.perft`: the engine's perft of the board's start at depths 1 to [`PERFT_DEPTH`]
/// against the rules'; a count that is 8×8's says the engine ignores the size.
fn start_perft(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    if let Some(skip) = super::movegen::probe(engine, ctx)? {
        return Ok(skip);
    }
    let (start, board) = (Position::start(ctx.board), ctx.board);
    let mut counts = Vec::new();
    for depth in 1..=PERFT_DEPTH {
        let sent: Vec<String> = [
            Command::Position {
                start,
                moves: Vec::new(),
            },
            Command::Perft { depth },
        ]
        .iter()
        .map(|command| command.to_line(ctx.protocol))
        .collect();
        let evidence = super::Evidence::sent(sent);
        let reply = match engine.perft(&start, depth, ctx.search_timeout) {
            Ok(reply) => reply,
            Err(error) => return Err(super::Failure::with(error, evidence)),
        };
        let evidence = evidence.received(format!("nodes {}", reply.total), reply.elapsed);
        let expected = count(&start, ctx.rules, depth, PerftOptions::default());
        if reply.total != expected {
            let standard = count(
                &Position::startpos(),
                ctx.rules,
                depth,
                PerftOptions::default(),
            );
            let why = match reply.total == standard {
                true => format!(
                    ", 8x8's count: it ignores the board's size (it was told {board} by {})",
                    told(engine)
                ),
                false => String::new(),
            };
            return Ok(Finding::fail(format!(
                "perft {depth} of the {board} start: the engine counts {}, the rules {expected}{why}",
                reply.total
            ))
            .with(evidence));
        }
        counts.push(format!("{expected}"));
    }
    Ok(Finding::pass(format!(
        "perft 1 to {PERFT_DEPTH} of the {board} start: {} as the rules count",
        counts.join(", ")
    )))
}

/// `board.moves`: a game against itself from the board's start at `go depth 1`, to its end or
/// [`GAME_PLIES`]: every move legal on the board; a move off it says the engine ignores the
/// size.
fn self_play(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    let (start, board) = (Position::start(ctx.board), ctx.board);
    let mut moves: Vec<Move> = Vec::new();
    engine.new_game()?;
    let mut position = start;
    while position.outcome(ctx.rules).is_none() && moves.len() < GAME_PLIES {
        let limits = GoLimits::depth(1);
        let (reply, evidence) = go(engine, &start, &moves, &limits, ctx.search_deadline())?;
        if let Some(failure) = judge(ctx, &position, &reply.bestmove, &evidence) {
            let off = reply
                .bestmove
                .parse::<Move>()
                .is_ok_and(|mv| !board.contains(mv.from) || !board.contains(mv.to));
            return Ok(match off {
                true => Finding {
                    summary: format!(
                        "{} (ply {} of a game on {board}): it ignores the board's size (it was \
                         told {board} by {})",
                        failure.summary,
                        moves.len() + 1,
                        told(engine)
                    ),
                    ..failure
                },
                false => failure,
            });
        }
        let mv: Move = reply.bestmove.parse().map_err(|_| EngineError::Garbage {
            engine: engine.name().to_string(),
            line: reply.bestmove.clone(),
            problem: "not a move".into(),
        })?;
        moves.push(mv);
        position = after(&start, &moves);
    }
    let end = match position.outcome(ctx.rules) {
        Some(outcome) => format!("{} won", outcome.winner),
        None => format!("stopped at {GAME_PLIES} plies"),
    };
    Ok(Finding::pass(format!(
        "a game against itself on {board} at depth 1: {} plies, every move on the board and \
         legal ({end})",
        moves.len()
    )))
}

/// How the engine was told the board: its `Board` option, its `UCI_Variant`, or the FEN of
/// each position.
fn told(engine: &Engine) -> &'static str {
    let declares = |name| engine.options().iter().any(|decl| decl.is_named(name));
    match (
        declares(crate::protocol::BOARD_OPTION),
        declares(crate::protocol::VARIANT_OPTION),
    ) {
        (true, _) => "its Board option",
        (false, true) => "its UCI_Variant",
        (false, false) => "the FEN of each position",
    }
}
