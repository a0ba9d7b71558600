//! `movegen.*`: the engine's perft against the rules, through perft-check
//! ([`crate::perft_check::check_all`], with its walk-down to the exact fault) on the start
//! position and on positions of random games. Skipped, with a notice, when the engine has no
//! `go perft`.

use super::talk::{fence, is, read_until, send};
use super::{CheckResult, Ctx, Evidence, Failure, Finding, Outcome, Session};
use crate::engine::Engine;
use crate::perft_check::{CheckError, CheckSettings, PositionFindings, Target, check_all};
use crate::protocol::{Command, GoLimits, Protocol, Reply};
use crate::rules::Position;
use std::time::Duration;

/// The perft depth of every position, plies.
pub const PERFT_DEPTH: u32 = 4;
/// How many positions of random games are checked besides the start position.
pub const RANDOM_POSITIONS: usize = 4;
/// How long `go perft 1` may take to show whether the engine has `go perft` at all.
pub const PERFT_PROBE: Duration = Duration::from_secs(2);

/// Runs `movegen.perft`.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> Vec<CheckResult> {
    vec![session.check("movegen.perft", |engine| perft(engine, ctx))]
}

/// The perft-check of the start position and of [`RANDOM_POSITIONS`] random positions.
fn perft(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    if let Some(skip) = probe(engine, ctx)? {
        return Ok(skip);
    }
    let mut targets = vec![Target::start(ctx.board, PERFT_DEPTH)];
    targets.extend(Target::random(
        ctx.rules,
        ctx.board,
        RANDOM_POSITIONS,
        ctx.seed,
        PERFT_DEPTH,
    ));
    let settings = CheckSettings {
        rules: ctx.rules,
        limits: GoLimits::depth(1),
        timeout: ctx.search_timeout,
    };
    let report = match check_all(engine, &settings, &targets, |_| {}) {
        Ok(report) => report,
        Err(CheckError::Engine { error, .. }) => return Err(Failure::from(*error)),
        Err(other) => return Ok(Finding::fail(other.to_string())),
    };
    Ok(
        match report.positions.iter().find(|position| !position.passed()) {
            Some(failed) => failure(failed),
            None => Finding::pass(format!(
                "the start position and {RANDOM_POSITIONS} positions of random games (seed {}) at \
             depth {PERFT_DEPTH}: every divide matches the rules ({:.0} ms)",
                ctx.seed, report.total_ms
            )),
        },
    )
}

/// Sends `go perft 1` in the start position (after an `isready` that drains what earlier
/// searches left): `None` when a perft total comes, else the skip (after stopping whatever
/// the engine started and reading up to `readyok`).
pub(super) fn probe(engine: &mut Engine, ctx: &Ctx) -> Result<Option<Finding>, Failure> {
    fence(engine, ctx)?;
    let start = Command::Position {
        start: Position::start(ctx.board),
        moves: Vec::new(),
    }
    .to_line(ctx.protocol);
    let sent = [start.as_str(), "go perft 1"];
    let at = send(engine, ctx, &sent)?;
    let (_, answer) = read_until(engine, at, at + PERFT_PROBE, |line| {
        is(line, "bestmove") || matches!(line.parse(), Ok(Reply::PerftTotal { .. }))
    })?;
    let evidence = Evidence::sent(sent);
    let skip = |why: String, evidence: Evidence| {
        Finding::skip(format!(
            "the engine has no go perft ({why}): move generation not checked"
        ))
        .with(evidence)
    };
    match answer {
        Some((line, _)) if !is(&line, "bestmove") => Ok(None),
        Some((line, after)) => Ok(Some(skip(
            "it answers go perft with a bestmove".into(),
            evidence.received(line, after),
        ))),
        None => {
            send(engine, ctx, &["stop"])?;
            fence(engine, ctx)?;
            Ok(Some(skip(
                format!("no perft total within {} ms", PERFT_PROBE.as_millis()),
                evidence.nothing_after(PERFT_PROBE),
            )))
        }
    }
}

/// The failure for a position whose perft or bestmove is wrong: the walk-down's fault and its
/// first problem.
fn failure(report: &PositionFindings) -> Finding {
    let Some(fault) = &report.fault else {
        let problem = report.bestmove.problem.as_deref().unwrap_or_default();
        return Finding::fail(format!(
            "{} ({}): bestmove {}: {problem}",
            report.source, report.position, report.bestmove.mv
        ));
    };
    let path = if fault.path.is_empty() {
        String::new()
    } else {
        format!(" after {}", fault.path_moves())
    };
    let problem = fault
        .problems
        .first()
        .map_or("disagrees".to_string(), ToString::to_string);
    let summary = format!(
        "{} depth {}: {}; the fault{path}, at depth {}: the engine {problem}",
        report.source,
        report.depth,
        crate::perft_check::render::counts(report.expected, report.reported, true),
        fault.depth
    );
    let sent = match Position::from_fen_any(&fault.position) {
        Ok(start) => vec![
            Command::Position {
                start,
                moves: Vec::new(),
            }
            .to_line(Protocol::Ugi),
            Command::Perft { depth: fault.depth }.to_line(Protocol::Ugi),
        ],
        Err(_) => Vec::new(),
    };
    Finding::fail(summary).with(Evidence::sent(sent))
}
