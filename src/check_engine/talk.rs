//! The exchanges the checks share: a typed search with its evidence, a judged `bestmove`,
//! reading raw lines until one of a kind, and the `isready` fence.

use super::{Ctx, Evidence, Failure, Finding};
use crate::engine::{Engine, EngineError, SearchReply};
use crate::perft_check::judge_bestmove;
use crate::protocol::{Command, GoLimits, Protocol};
use crate::rules::{Move, Position};
use std::time::{Duration, Instant};

/// True when the first word of `line` is `word`.
pub(super) fn is(line: &str, word: &str) -> bool {
    line.split_whitespace().next() == Some(word)
}

/// The `position` and `go` lines of a search in `protocol`.
pub(super) fn search_lines(
    protocol: Protocol,
    start: &Position,
    moves: &[Move],
    limits: &GoLimits,
) -> Vec<String> {
    let position = Command::Position {
        start: *start,
        moves: moves.to_vec(),
    };
    [position, Command::Go(limits.clone())]
        .iter()
        .map(|command| command.to_line(protocol))
        .collect()
}

/// The position after `moves` (legal ones) from `start`.
pub(super) fn after(start: &Position, moves: &[Move]) -> Position {
    moves
        .iter()
        .fold(*start, |position, &mv| position.play_unchecked(mv))
}

/// A search through [`Engine::go`] until `deadline`, with its evidence (the `position` and
/// `go` lines, the `bestmove` line and the time from `go` to it).
pub(super) fn go(
    engine: &mut Engine,
    start: &Position,
    moves: &[Move],
    limits: &GoLimits,
    deadline: Instant,
) -> Result<(SearchReply, Evidence), Failure> {
    let evidence = Evidence::sent(search_lines(engine.protocol(), start, moves, limits));
    let sent = Instant::now();
    match engine.go(
        start,
        moves,
        limits,
        deadline.saturating_duration_since(sent),
    ) {
        Ok(reply) => {
            let line = format!("bestmove {}", reply.bestmove);
            let evidence = evidence.received(line, reply.elapsed);
            Ok((reply, evidence))
        }
        Err(error) => {
            let evidence = match &error {
                EngineError::Garbage { line, .. } => {
                    evidence.received(line.clone(), sent.elapsed())
                }
                _ => evidence.nothing_after(sent.elapsed()),
            };
            Err(Failure::with(error, evidence))
        }
    }
}

/// A failing finding when `bestmove` is not acceptable in `position` (not a move, illegal, or
/// `(none)` while moves exist); `None` when it is.
pub(super) fn judge(
    ctx: &Ctx,
    position: &Position,
    bestmove: &str,
    evidence: &Evidence,
) -> Option<Finding> {
    judge_bestmove(position, ctx.rules, bestmove).map(|problem| {
        Finding::fail(format!("bestmove {bestmove}: {problem}")).with(evidence.clone())
    })
}

/// A raw line the engine wrote and how long after the reference instant it came.
pub(super) type Heard = (String, Duration);

/// Reads lines until one makes `done` true (returned apart, with its delay after `since`) or
/// `deadline` passes; the lines before it are returned in order.
pub(super) fn read_until(
    engine: &mut Engine,
    since: Instant,
    deadline: Instant,
    done: impl Fn(&str) -> bool,
) -> Result<(Vec<String>, Option<Heard>), EngineError> {
    let mut before = Vec::new();
    while let Some((line, at)) = engine.next_line(deadline)? {
        if done(&line) {
            return Ok((before, Some((line, at.saturating_duration_since(since)))));
        }
        before.push(line);
    }
    Ok((before, None))
}

/// Sends `lines` (raw), allowing the ready timeout for the engine to take them.
pub(super) fn send(engine: &mut Engine, ctx: &Ctx, lines: &[&str]) -> Result<Instant, Failure> {
    engine.send_lines(lines, Instant::now() + ctx.ready_timeout)?;
    Ok(Instant::now())
}

/// Sends `isready` and reads up to `readyok`, within the ready timeout: the lines before it.
///
/// # Errors
/// A [`Failure`] (ready timeout, crash) whose evidence is the `isready` and the wait.
pub(super) fn fence(engine: &mut Engine, ctx: &Ctx) -> Result<Vec<String>, Failure> {
    let sent = send(engine, ctx, &["isready"])?;
    let (before, ready) = read_until(engine, sent, sent + ctx.ready_timeout, |l| is(l, "readyok"))?;
    match ready {
        Some(_) => Ok(before),
        None => Err(Failure::with(
            EngineError::ReadyTimeout {
                engine: engine.name().to_string(),
                after: ctx.ready_timeout,
            },
            Evidence::sent(["isready"]).nothing_after(sent.elapsed()),
        )),
    }
}
