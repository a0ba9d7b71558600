//! `limits.*`: `go movetime` returns within its time plus the tournament's margin (the worst of
//! several tries is reported), `go depth` and `go nodes` return, a clock with little time left
//! is respected, `go infinite` waits for `stop` and `stop` is answered promptly with a legal
//! move, and `isready` during a search is answered without ending it.

use super::positions::long_game;
use super::talk::{self, after, fence, go, is, judge, read_until, send};
use super::{CheckResult, Ctx, Evidence, Failure, Finding, Outcome, Session};
use crate::engine::{Engine, EngineError};
use crate::protocol::GoLimits;
use crate::rules::{Move, Position};
use crate::time_control::whole_ms;
use std::time::{Duration, Instant};

/// The `go movetime` of the movetime check, ms.
pub const MOVETIME_MS: u64 = 100;
/// How many `go movetime` searches are timed.
pub const MOVETIME_TRIES: usize = 5;
/// The time left on the mover's clock (both clocks, no increment) in the clock check, ms.
pub const CLOCK_LEFT_MS: u64 = 300;
/// How many clock searches are timed (the side to move alternates).
pub const CLOCK_TRIES: usize = 4;
/// The depth of the depth check, plies.
pub const DEPTH: u32 = 4;
/// The node count of the nodes check.
pub const NODES: u64 = 10_000;
/// How long `go infinite` must go without a `bestmove` before `stop` is sent.
pub const INFINITE_HOLD: Duration = Duration::from_millis(500);
/// How soon `bestmove` must follow `stop`.
pub const STOP_ALLOWANCE: Duration = Duration::from_millis(1000);
/// How long a search runs before `isready` is sent, and goes on after `readyok` before `stop`.
pub const ISREADY_HOLD: Duration = Duration::from_millis(200);

/// A position to search: a start and the moves played since.
type Case = (Position, Vec<Move>);

/// Positions of a real game to search: the start, then every 7th ply (both sides to move).
fn tries(ctx: &Ctx, count: usize) -> Vec<Case> {
    let game = long_game(ctx.rules, ctx.board);
    (0..count)
        .map(|i| {
            let ply = (i * 7).min(game.len());
            (Position::start(ctx.board), game[..ply].to_vec())
        })
        .collect()
}

/// Runs the `limits.*` checks.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> Vec<CheckResult> {
    let middle = tries(ctx, 4).pop().unwrap_or_default();
    vec![
        session.check("limits.movetime", |engine| movetime(engine, ctx)),
        session.check("limits.depth", |engine| {
            fixed(engine, ctx, &middle, &GoLimits::depth(DEPTH))
        }),
        session.check("limits.nodes", |engine| {
            fixed(engine, ctx, &middle, &GoLimits::nodes(NODES))
        }),
        session.check("limits.clock", |engine| clock(engine, ctx)),
        session.check("limits.infinite", |engine| infinite(engine, ctx, &middle)),
        session.check("limits.isready-searching", |engine| {
            isready_searching(engine, ctx, &middle)
        }),
    ]
}

/// A timed search: its legal move's delay, or the failing finding.
struct Timed {
    elapsed: Duration,
    evidence: Evidence,
}

/// Runs `limits` in each of `cases` with `allowed` to answer; fails on an illegal move, and
/// returns the slowest answer otherwise. The wait goes on past `allowed` (by the search
/// timeout) so that the overshoot is measured, not cut off. Times compare in whole
/// milliseconds, as the tournament's clock does.
fn slowest(
    engine: &mut Engine,
    ctx: &Ctx,
    cases: &[Case],
    limits: impl Fn(&Position) -> GoLimits,
    allowed: Duration,
) -> Result<Result<Timed, Finding>, Failure> {
    let mut slowest: Option<Timed> = None;
    for (start, moves) in cases {
        let position = after(start, moves);
        let deadline = Instant::now() + allowed + ctx.search_timeout;
        let (reply, evidence) = go(engine, start, moves, &limits(&position), deadline)?;
        if let Some(failure) = judge(ctx, &position, &reply.bestmove, &evidence) {
            return Ok(Err(failure));
        }
        if slowest.as_ref().is_none_or(|s| reply.elapsed > s.elapsed) {
            slowest = Some(Timed {
                elapsed: reply.elapsed,
                evidence,
            });
        }
    }
    Ok(slowest.ok_or_else(|| Finding::skip("no position to search")))
}

/// `limits.movetime`: the worst overshoot of `go movetime` over several tries.
fn movetime(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    let allowed = Duration::from_millis(MOVETIME_MS + ctx.margin_ms);
    let cases = tries(ctx, MOVETIME_TRIES);
    let limits = |_: &Position| GoLimits::movetime(MOVETIME_MS);
    let slowest = match slowest(engine, ctx, &cases, limits, allowed)? {
        Ok(timed) => timed,
        Err(finding) => return Ok(finding),
    };
    let ms = whole_ms(slowest.elapsed);
    let over = ms as i64 - MOVETIME_MS as i64;
    let summary = format!(
        "{} tries of go movetime {MOVETIME_MS}: worst overshoot {over} ms (slowest answer {ms} ms; \
         a tournament forfeits an overshoot beyond {} ms)",
        cases.len(),
        ctx.margin_ms
    );
    Ok(verdict(ms <= MOVETIME_MS + ctx.margin_ms, summary).with(slowest.evidence))
}

/// `limits.clock`: with [`CLOCK_LEFT_MS`] on the clocks and no increment, every answer comes
/// before the mover's flag falls (plus the margin).
fn clock(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    let allowed_ms = CLOCK_LEFT_MS + ctx.margin_ms;
    let allowed = Duration::from_millis(allowed_ms);
    let cases = tries(ctx, CLOCK_TRIES);
    let limits = |_: &Position| GoLimits::clock(CLOCK_LEFT_MS, CLOCK_LEFT_MS, 0, 0);
    let slowest = match slowest(engine, ctx, &cases, limits, allowed)? {
        Ok(timed) => timed,
        Err(finding) => return Ok(finding),
    };
    let ms = whole_ms(slowest.elapsed);
    let summary = format!(
        "{} tries with {CLOCK_LEFT_MS} ms left and no increment: slowest answer {ms} ms (a \
         tournament forfeits beyond {allowed_ms} ms)",
        cases.len(),
    );
    Ok(verdict(ms <= allowed_ms, summary).with(slowest.evidence))
}

/// A pass when `ok`, else a failure, with `summary`.
fn verdict(ok: bool, summary: String) -> Finding {
    if ok {
        Finding::pass(summary)
    } else {
        Finding::fail(summary)
    }
}

/// `limits.depth` and `limits.nodes`: the search returns a legal move within the search
/// timeout.
fn fixed(engine: &mut Engine, ctx: &Ctx, case: &Case, limits: &GoLimits) -> Outcome {
    let (start, moves) = case;
    let (reply, evidence) = go(engine, start, moves, limits, ctx.search_deadline())?;
    let position = after(start, moves);
    if let Some(failure) = judge(ctx, &position, &reply.bestmove, &evidence) {
        return Ok(failure);
    }
    let reported = match (reply.info.depth, reply.info.nodes) {
        (Some(depth), Some(nodes)) => format!(" (info depth {depth}, nodes {nodes})"),
        (Some(depth), None) => format!(" (info depth {depth})"),
        (None, Some(nodes)) => format!(" (info nodes {nodes})"),
        (None, None) => String::new(),
    };
    Ok(Finding::pass(format!(
        "bestmove {} after {} ms{reported}",
        reply.bestmove,
        reply.elapsed.as_millis()
    ))
    .with(evidence))
}

/// Starts `go infinite` in `case` (raw), after an `isready` that drains what earlier searches
/// left: the lines sent and when.
fn start_infinite(
    engine: &mut Engine,
    ctx: &Ctx,
    case: &Case,
) -> Result<(Vec<String>, Instant), Failure> {
    let limits = GoLimits {
        infinite: true,
        ..GoLimits::default()
    };
    fence(engine, ctx)?;
    let lines = talk::search_lines(ctx.protocol, &case.0, &case.1, &limits);
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let sent = send(engine, ctx, &refs)?;
    Ok((lines, sent))
}

/// Reads up to a `bestmove` for at most `wait` from now.
fn bestmove_within(
    engine: &mut Engine,
    since: Instant,
    wait: Duration,
) -> Result<Option<(String, Duration)>, EngineError> {
    let (_, found) = read_until(engine, since, Instant::now() + wait, |l| is(l, "bestmove"))?;
    Ok(found)
}

/// Sends `stop` and reads its `bestmove` within [`STOP_ALLOWANCE`]: the line and its delay,
/// or the failing finding.
fn stop(
    engine: &mut Engine,
    ctx: &Ctx,
    sent: &[String],
) -> Result<Result<(String, Duration), Finding>, Failure> {
    let stopped = send(engine, ctx, &["stop"])?;
    let evidence = Evidence::sent(sent.iter().cloned().chain(["stop".to_string()]));
    Ok(match bestmove_within(engine, stopped, STOP_ALLOWANCE)? {
        Some(found) => Ok(found),
        None => Err(Finding::fail(format!(
            "no bestmove within {} ms of stop",
            STOP_ALLOWANCE.as_millis()
        ))
        .with(evidence.nothing_after(stopped.elapsed()))),
    })
}

/// `limits.infinite`: no `bestmove` for [`INFINITE_HOLD`], then a legal one within
/// [`STOP_ALLOWANCE`] of `stop`.
fn infinite(engine: &mut Engine, ctx: &Ctx, case: &Case) -> Outcome {
    let (sent, at) = start_infinite(engine, ctx, case)?;
    if let Some((line, after_go)) = bestmove_within(engine, at, INFINITE_HOLD)? {
        return Ok(Finding::fail(format!(
            "go infinite answered after {} ms, before any stop",
            after_go.as_millis()
        ))
        .with(Evidence::sent(sent).received(line, after_go)));
    }
    let (line, after_stop) = match stop(engine, ctx, &sent)? {
        Ok(answer) => answer,
        Err(finding) => return Ok(finding),
    };
    let evidence = Evidence::sent(sent.iter().cloned().chain(["stop".to_string()]))
        .received(line.clone(), after_stop);
    let mv = line.split_whitespace().nth(1).unwrap_or_default();
    if let Some(failure) = judge(ctx, &after(&case.0, &case.1), mv, &evidence) {
        return Ok(failure);
    }
    Ok(Finding::pass(format!(
        "no bestmove for {} ms; stop answered after {} ms with {mv}",
        INFINITE_HOLD.as_millis(),
        after_stop.as_millis()
    ))
    .with(evidence))
}

/// `limits.isready-searching`: during `go infinite`, `isready` gets `readyok` with no
/// `bestmove` before it nor for [`ISREADY_HOLD`] after it.
fn isready_searching(engine: &mut Engine, ctx: &Ctx, case: &Case) -> Outcome {
    let (sent, at) = start_infinite(engine, ctx, case)?;
    if bestmove_within(engine, at, ISREADY_HOLD)?.is_some() {
        return Ok(Finding::skip(
            "not checked: the search ended before isready (see limits.infinite)",
        ));
    }
    let asked = send(engine, ctx, &["isready"])?;
    let sent: Vec<String> = sent.into_iter().chain(["isready".to_string()]).collect();
    let (_, answer) = read_until(engine, asked, asked + ctx.ready_timeout, |l| {
        is(l, "readyok") || is(l, "bestmove")
    })?;
    let evidence = Evidence::sent(sent.clone());
    let Some((line, delay)) = answer else {
        return Ok(Finding::fail(format!(
            "no readyok within {} ms of isready during a search",
            ctx.ready_timeout.as_millis()
        ))
        .with(evidence.nothing_after(asked.elapsed())));
    };
    if is(&line, "bestmove") {
        return Ok(
            Finding::fail("isready ended the search: bestmove before readyok")
                .with(evidence.received(line, delay)),
        );
    }
    let evidence = evidence.received(line, delay);
    if let Some((late, _)) = bestmove_within(engine, asked, ISREADY_HOLD)? {
        return Ok(
            Finding::fail(format!("the search ended right after readyok: '{late}'")).with(evidence),
        );
    }
    if let Err(finding) = stop(engine, ctx, &sent)? {
        return Ok(finding);
    }
    Ok(Finding::pass(format!(
        "readyok after {} ms while searching; the search went on until stop",
        delay.as_millis()
    ))
    .with(evidence))
}
