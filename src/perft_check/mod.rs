//! perft-check: finds the exact bug in an engine's move generator.
//!
//! For users (`docs/guide/perft.md`, "perft-check"): an engine's perft against the rules,
//! walked down to the exact move its generator gets wrong.
//!
//! For each [`Target`] (a position and a depth) the engine's perft divide (`go perft N`,
//! through [`Engine::perft`]) is compared with the reference [`crate::rules::perft::divide`].
//! On a mismatch the check walks down: it plays a root move whose count differs and asks for
//! the divide one ply shallower, until the divide itself shows the fault: moves the engine lists
//! that the rules forbid (each with its [`crate::rules::IllegalReason`]), legal moves it misses,
//! move strings that are not moves, a move listed twice, a wrong count at depth 1, or a count
//! the engine contradicts with its own perft one ply down. A total that is not the sum of the
//! divide lines is reported wherever it shows.
//!
//! Each step is one ply shallower and follows the miscounted move with the smallest count the
//! engine reported, so the walk-down costs about as much as the first perft at most. The
//! engine's `bestmove` in each target position is judged too (engines whose perft and search
//! disagree).
//!
//! Here: the entry [`check_all`], its settings and errors. The positions to check are in
//! `targets.rs`, the walk-down in `walk.rs`, the findings ([`PerftCheckFindings`]) in
//! `findings.rs`, and its text and JSON renderings in [`render`].

use crate::engine::{Engine, EngineError};
use crate::protocol::{GoLimits, NO_MOVE};
use crate::rules::suite::OtherRulesHint;
use crate::rules::{MoveError, Position, Rules};
use std::fmt;
use std::time::{Duration, Instant};

mod findings;
pub mod render;
pub(crate) mod targets;
mod walk;

pub use findings::{BestMove, Fault, PerftCheckFindings, PositionFindings, Problem, WalkStep};
pub use targets::Target;

/// How the check is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckSettings {
    /// The rule set the engine is checked against (the engine must have been started with it).
    pub rules: Rules,
    /// The limits of the search whose `bestmove` is judged in each target position.
    pub limits: GoLimits,
    /// How long one perft or one search may take before the engine counts as failed.
    pub timeout: Duration,
}

/// Why the check could not be finished.
#[derive(Debug)]
pub enum CheckError {
    /// The engine failed (crashed, timed out, sent garbage) while a target was checked. A perft
    /// that timed out gets the hint to lower `--perft-depth` or raise `--timeout`.
    Engine {
        /// The target's source.
        source: String,
        /// The target's position.
        position: Position,
        /// The target's perft depth in plies.
        depth: u32,
        /// What the engine did.
        error: Box<EngineError>,
    },
    /// A suite line's expected count is not what the reference rules give (a wrong suite, or
    /// the wrong `--rules`).
    SuiteCount {
        /// The target's source (`suite line N`).
        source: String,
        /// The depth.
        depth: u32,
        /// The suite's expected count.
        expected: u64,
        /// The reference count.
        reference: u64,
        /// The rule set.
        rules: Rules,
        /// The other rule set that gives the expected count, if one does.
        hint: Option<OtherRulesHint>,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Engine {
                source,
                position,
                depth,
                error,
            } => {
                write!(
                    f,
                    "while checking {source} ({position}) at depth {depth}: {error}"
                )?;
                if matches!(**error, EngineError::PerftTimeout { .. }) {
                    write!(
                        f,
                        "; perft counts grow about tenfold with each ply: try a lower --perft-depth \
                         (or a longer --timeout)"
                    )?;
                }
                Ok(())
            }
            CheckError::SuiteCount {
                source,
                depth,
                expected,
                reference,
                rules,
                hint,
            } => {
                write!(
                    f,
                    "{source}: D{depth} lists {expected}, but the {rules} rules count {reference}"
                )?;
                match hint {
                    Some(hint) => write!(f, "; {hint}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// The message of [`CheckError::Engine`] includes the engine's error, so it has no `source`.
impl std::error::Error for CheckError {}

/// Checks every target with `engine`, which must have been started under `settings.rules`,
/// calling `on_position` with each target's findings as soon as it is done.
///
/// # Errors
/// The first [`CheckError`]: the engine failed, or a suite's expected count disagrees with the
/// rules.
pub fn check_all(
    engine: &mut Engine,
    settings: &CheckSettings,
    targets: &[Target],
    mut on_position: impl FnMut(&PositionFindings),
) -> Result<PerftCheckFindings, CheckError> {
    let started = Instant::now();
    let mut checker = Checker { engine, settings };
    let mut positions = Vec::with_capacity(targets.len());
    for target in targets {
        let report = checker.check(target)?;
        on_position(&report);
        positions.push(report);
    }
    let failed = positions.iter().filter(|report| !report.passed()).count();
    Ok(PerftCheckFindings {
        engine: checker.engine.name().to_string(),
        engine_id: checker.engine.id_name().map(str::to_string),
        rules: settings.rules,
        seed: None,
        passed: positions.len() - failed,
        failed,
        first_perft_ms: positions.iter().map(|report| report.first_perft_ms).sum(),
        walk_ms: positions.iter().map(|report| report.walk_ms).sum(),
        total_ms: millis(started.elapsed()),
        positions,
    })
}

/// A duration in milliseconds.
fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// One engine under check.
struct Checker<'a> {
    engine: &'a mut Engine,
    settings: &'a CheckSettings,
}

impl Checker<'_> {
    /// Checks one target: the first perft, the walk-down on a mismatch, then the bestmove.
    fn check(&mut self, target: &Target) -> Result<PositionFindings, CheckError> {
        let started = Instant::now();
        let engine_error = |error| CheckError::Engine {
            source: target.source.clone(),
            position: target.position,
            depth: target.depth,
            error: Box::new(error),
        };
        let reference = self.reference(&target.position, target.depth);
        let reference_total = reference.iter().map(|&(_, count)| count).sum();
        self.check_suite_count(target, reference_total)?;
        self.engine.new_game().map_err(engine_error)?;
        let reply = self
            .perft(&target.position, target.depth)
            .map_err(engine_error)?;
        let walk_started = Instant::now();
        let comparison = self.compare(&target.position, &reference, &reply);
        let fault = if comparison.is_clean() {
            None
        } else {
            Some(self.walk(target, comparison).map_err(engine_error)?)
        };
        let walk_ms = fault
            .as_ref()
            .map_or(0.0, |_| millis(walk_started.elapsed()));
        let bestmove = self.bestmove(&target.position).map_err(engine_error)?;
        Ok(PositionFindings {
            source: target.source.clone(),
            position: target.position.to_string(),
            depth: target.depth,
            expected: reference_total,
            reported: reply.total,
            first_perft_ms: millis(reply.elapsed),
            walk_ms,
            total_ms: millis(started.elapsed()),
            fault,
            bestmove,
        })
    }

    /// Fails when the suite's expected count of the target is not the reference count.
    fn check_suite_count(&self, target: &Target, reference: u64) -> Result<(), CheckError> {
        match target.expected {
            Some(expected) if expected != reference => Err(CheckError::SuiteCount {
                source: target.source.clone(),
                depth: target.depth,
                expected,
                reference,
                rules: self.settings.rules,
                hint: OtherRulesHint::find(
                    &target.position,
                    self.settings.rules,
                    target.depth,
                    expected,
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Runs a short search in `position` and judges its `bestmove`.
    fn bestmove(&mut self, position: &Position) -> Result<BestMove, EngineError> {
        let reply = self
            .engine
            .go(position, &[], &self.settings.limits, self.settings.timeout)?;
        let problem = judge_bestmove(position, self.settings.rules, &reply.bestmove);
        Ok(BestMove {
            mv: reply.bestmove,
            problem,
        })
    }
}

/// Why `text` is not an acceptable `bestmove` in `position`; `None` when it is a legal move,
/// or `(none)` in a finished game.
pub fn judge_bestmove(position: &Position, rules: Rules, text: &str) -> Option<String> {
    if text == NO_MOVE {
        let count = position.legal_moves(rules).len();
        return (count > 0).then(|| format!("no move, but the position has {count} legal moves"));
    }
    match position.parse_move(rules, text) {
        Ok(_) => None,
        Err(MoveError::Syntax(error)) => Some(format!("not a move: {error}")),
        Err(MoveError::Illegal(error)) => Some(format!("illegal: {}", error.reason)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(text: &str) -> Position {
        text.parse().expect("a position")
    }

    #[test]
    fn bestmoves_are_judged_by_the_rules() {
        let start = Position::startpos();
        let judge = |text| judge_bestmove(&start, Rules::CaptureOnly, text);
        assert_eq!(judge("a2a3"), None);
        assert_eq!(
            judge("a2b3").as_deref(),
            Some("illegal: diagonal move to an empty square under capture-only rules")
        );
        assert!(judge("z9z0").is_some_and(|why| why.starts_with("not a move")));
        assert_eq!(
            judge(NO_MOVE).as_deref(),
            Some("no move, but the position has 8 legal moves")
        );
        let over = position("P7/8/8/8/8/8/7p/8 b");
        assert_eq!(judge_bestmove(&over, Rules::CaptureOnly, NO_MOVE), None);
    }
}
