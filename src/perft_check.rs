//! perft-check: finds the exact bug in an engine's move generator.
//!
//! For each [`Target`] (a position and a depth) the engine's perft divide (`go perft N`, through
//! [`Engine::perft`]) is compared with the reference [`perft::divide`]. On a mismatch the check
//! walks down: it plays a root move whose count differs and asks for the divide one ply
//! shallower, until the divide itself shows the fault: moves the engine lists that the rules
//! forbid (each with its [`crate::rules::IllegalReason`]), legal moves it misses, move strings
//! that are not moves, a move listed twice, a wrong count at depth 1, or a count the engine
//! contradicts with its own perft one ply down. A total that is not the sum of the divide lines
//! is reported wherever it shows.
//!
//! Each step is one ply shallower and follows the miscounted move with the smallest count the
//! engine reported, so the walk-down costs about as much as the first perft at most. The
//! engine's `bestmove` in each target position is judged too (engines whose perft and search
//! disagree).

use crate::engine::{Engine, EngineError, PerftReply};
use crate::protocol::{GoLimits, NO_MOVE};
use crate::rules::perft::{self, OtherRulesHint, PerftOptions, SuiteEntry};
use crate::rules::{Move, MoveError, Position, Rules};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

/// A position to check and the perft depth to check it at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Where the position comes from, for people: `start position`, `suite line 7`,
    /// `random game 2, ply 31`.
    pub source: String,
    /// The position.
    pub position: Position,
    /// The perft depth in plies, at least 1.
    pub depth: u32,
    /// The count a suite lists for this depth, if any: it must equal the reference count.
    pub listed: Option<u64>,
}

impl Target {
    /// The start position at `depth` plies (at least 1).
    pub fn start(depth: u32) -> Target {
        Target {
            source: "start position".to_string(),
            position: Position::startpos(),
            depth: depth.max(1),
            listed: None,
        }
    }

    /// One target per suite line: its deepest listed depth capped at `max_depth` (at least 1),
    /// with the count the line lists for that depth, if it lists one.
    pub fn from_suite(entries: &[SuiteEntry], max_depth: u32) -> Vec<Target> {
        entries
            .iter()
            .map(|entry| {
                let deepest = entry.expected.iter().map(|&(depth, _)| depth).max();
                let depth = deepest.unwrap_or(max_depth).min(max_depth).max(1);
                Target {
                    source: format!("suite line {}", entry.line),
                    position: entry.position,
                    depth,
                    listed: entry
                        .expected
                        .iter()
                        .find(|&&(listed_depth, _)| listed_depth == depth)
                        .map(|&(_, count)| count),
                }
            })
            .collect()
    }

    /// `count` positions at `depth` plies (at least 1), one from each of `count` games of
    /// uniformly random legal moves under `rules` from the start position, at a ply drawn
    /// uniformly among the plies after the start and before the end of the game. The same
    /// `seed` gives the same positions.
    pub fn random(rules: Rules, count: usize, seed: u64, depth: u32) -> Vec<Target> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (1..=count)
            .map(|game| {
                let line = random_game(rules, &mut rng);
                let ply = if line.len() > 1 {
                    rng.usize(1..line.len())
                } else {
                    0
                };
                Target {
                    source: format!("random game {game}, ply {ply}"),
                    position: line[ply],
                    depth: depth.max(1),
                    listed: None,
                }
            })
            .collect()
    }
}

/// The positions of one game of random legal moves from the start, up to (not including) the
/// position where it ends; never empty.
fn random_game(rules: Rules, rng: &mut fastrand::Rng) -> Vec<Position> {
    let mut line = Vec::new();
    let mut position = Position::startpos();
    while position.outcome(rules).is_none() {
        line.push(position);
        let moves = position.legal_moves(rules);
        let Some(mv) = moves.iter().nth(rng.usize(..moves.len())) else {
            break;
        };
        position = position.play_unchecked(mv);
    }
    line
}

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

/// Something wrong with the engine's divide in one position, found by comparing it with the
/// reference rules. Moves are written as the engine wrote them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Problem {
    /// The engine lists a move the rules forbid here.
    Illegal {
        /// The move.
        #[serde(rename = "move")]
        mv: String,
        /// The count the engine gives it.
        count: u64,
        /// Why the rules forbid it (an [`crate::rules::IllegalReason`], e.g. `diagonal move to
        /// an empty square under capture-only rules`).
        reason: String,
    },
    /// The engine misses a legal move.
    Missed {
        /// The move.
        #[serde(rename = "move")]
        mv: String,
        /// Its reference count.
        expected: u64,
        /// What kind of legal move it is: `legal: a capture`, `legal: a straight step` or
        /// `legal: a diagonal step to an empty square`.
        reason: String,
    },
    /// A divide line whose move is not a move at all.
    Unparseable {
        /// The text the engine wrote for the move.
        text: String,
        /// The count the engine gives it.
        count: u64,
        /// Why it is not a move.
        error: String,
    },
    /// The engine lists a move more than once.
    Duplicate {
        /// The move.
        #[serde(rename = "move")]
        mv: String,
        /// How many times it is listed.
        times: usize,
    },
    /// A legal move with a wrong count at depth 1, where every count is 1.
    WrongCount {
        /// The move.
        #[serde(rename = "move")]
        mv: String,
        /// The reference count.
        expected: u64,
        /// The engine's count.
        reported: u64,
    },
    /// The engine's count under a move differs from the reference, but its own perft of the
    /// position after the move (one ply shallower) agrees with the reference: the engine
    /// contradicts itself (a hashing or state bug rather than a move-generation bug).
    Inconsistent {
        /// The move.
        #[serde(rename = "move")]
        mv: String,
        /// The count the engine listed under the move.
        listed: u64,
        /// The total of its own perft of the position after the move.
        own_perft: u64,
        /// The reference count.
        expected: u64,
    },
    /// The engine's total is not the sum of its divide lines.
    BadTotal {
        /// The total the engine reported.
        total: u64,
        /// The sum of its divide lines (saturating at `u64::MAX`).
        sum: u64,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Illegal { mv, count, reason } => {
                write!(f, "lists {mv} ({count}), which is illegal: {reason}")
            }
            Problem::Missed {
                mv,
                expected,
                reason,
            } => write!(f, "misses {mv} (expected {expected}), {reason}"),
            Problem::Unparseable { text, count, error } => {
                write!(f, "lists '{text}' ({count}), which is not a move: {error}")
            }
            Problem::Duplicate { mv, times } => write!(f, "lists {mv} {times} times"),
            Problem::WrongCount {
                mv,
                expected,
                reported,
            } => write!(f, "counts {reported} under {mv}, expected {expected}"),
            Problem::Inconsistent {
                mv,
                listed,
                own_perft,
                expected,
            } => write!(
                f,
                "counts {listed} under {mv} (expected {expected}), but its own perft after \
                 {mv} totals {own_perft}: the engine contradicts itself"
            ),
            Problem::BadTotal { total, sum } => write!(
                f,
                "reports a total of {total}, but its divide lines sum to {sum}"
            ),
        }
    }
}

/// One move of the walk-down: the move played and the counts under it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Its reference count.
    pub expected: u64,
    /// The engine's count.
    pub reported: u64,
    /// A [`Problem::BadTotal`] of the divide this move was taken from, if its total was not
    /// the sum of its lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bad_total: Option<Problem>,
}

/// Where the walk-down ended: the exact fault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fault {
    /// The position string of the position whose divide shows the fault.
    pub position: String,
    /// The moves from the checked position to it, with their counts.
    pub path: Vec<Step>,
    /// The perft depth asked there, in plies.
    pub depth: u32,
    /// What is wrong there; never empty.
    pub problems: Vec<Problem>,
}

impl Fault {
    /// The moves of the path, space-separated (empty at the checked position itself).
    pub fn path_moves(&self) -> String {
        let moves: Vec<&str> = self.path.iter().map(|step| step.mv.as_str()).collect();
        moves.join(" ")
    }
}

/// The engine's `bestmove` in a target position, judged by the rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BestMove {
    /// The move as the engine wrote it (`(none)` when it found none).
    #[serde(rename = "move")]
    pub mv: String,
    /// Why it is wrong; `None` when it is a legal move, or `(none)` in a finished game.
    pub problem: Option<String>,
}

/// The check of one target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionReport {
    /// Where the position comes from (see [`Target::source`]).
    pub source: String,
    /// The position string.
    pub position: String,
    /// The perft depth checked, in plies.
    pub depth: u32,
    /// The reference total.
    pub expected: u64,
    /// The engine's total.
    pub reported: u64,
    /// The engine's time for the first perft (from `go perft` to its total), ms.
    pub first_perft_ms: f64,
    /// The time of the walk-down after it (0 when the first perft matched), ms.
    pub walk_ms: f64,
    /// The time of the whole check of this position (perfts, walk-down, bestmove), ms.
    pub total_ms: f64,
    /// The exact fault, when the engine's perft disagrees with the reference.
    pub fault: Option<Fault>,
    /// The engine's `bestmove` here.
    pub bestmove: BestMove,
}

impl PositionReport {
    /// True when the perft matched and the bestmove is acceptable.
    pub fn passed(&self) -> bool {
        self.fault.is_none() && self.bestmove.problem.is_none()
    }
}

impl fmt::Display for PositionReport {
    /// Writes a line with the verdict and counts, then (on a failure) the walk-down, the fault
    /// and the bestmove, indented; every line ends in a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.passed() { "ok  " } else { "FAIL" };
        write!(
            f,
            "{verdict} {}: {} depth {}: expected {}, engine {} (first perft {:.3} s",
            self.source,
            self.position,
            self.depth,
            self.expected,
            self.reported,
            self.first_perft_ms / 1e3
        )?;
        if self.fault.is_some() {
            write!(f, ", walk-down {:.3} s", self.walk_ms / 1e3)?;
        }
        writeln!(f, ")")?;
        if let Some(fault) = &self.fault {
            write_fault(f, fault)?;
        }
        match &self.bestmove.problem {
            Some(problem) => writeln!(f, "  bestmove {}: {problem}", self.bestmove.mv),
            None if self.fault.is_some() => writeln!(f, "  bestmove {}: ok", self.bestmove.mv),
            None => Ok(()),
        }
    }
}

/// Writes the walk-down and the problems of `fault`, indented.
fn write_fault(f: &mut fmt::Formatter<'_>, fault: &Fault) -> fmt::Result {
    for step in &fault.path {
        writeln!(
            f,
            "  walk-down {}: expected {}, engine {}",
            step.mv, step.expected, step.reported
        )?;
        if let Some(problem) = &step.bad_total {
            writeln!(f, "    and the engine {problem}")?;
        }
    }
    let after = if fault.path.is_empty() {
        "in the checked position".to_string()
    } else {
        format!("after {}", fault.path_moves())
    };
    writeln!(
        f,
        "  fault {after}: {} depth {}",
        fault.position, fault.depth
    )?;
    for problem in &fault.problems {
        writeln!(f, "    the engine {problem}")?;
    }
    Ok(())
}

/// The check of every target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The engine's configured name.
    pub engine: String,
    /// The name the engine gave (`id name`), if any.
    pub engine_id: Option<String>,
    /// The rule set.
    pub rules: Rules,
    /// The seed of the random positions, when some were drawn (set by the caller).
    pub seed: Option<u64>,
    /// Each target's check, in order.
    pub positions: Vec<PositionReport>,
    /// How many targets passed.
    pub passed: usize,
    /// How many failed.
    pub failed: usize,
    /// The engine's time for the first perfts of all targets, ms.
    pub first_perft_ms: f64,
    /// The time of all walk-downs, ms.
    pub walk_ms: f64,
    /// The time of the whole check, ms.
    pub total_ms: f64,
}

impl fmt::Display for Report {
    /// Writes the closing summary line (the positions are printed as they are checked).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.positions.len();
        writeln!(
            f,
            "{count} position{} checked: {} passed, {} failed; first perfts {:.3} s, \
             walk-downs {:.3} s, total {:.3} s",
            if count == 1 { "" } else { "s" },
            self.passed,
            self.failed,
            self.first_perft_ms / 1e3,
            self.walk_ms / 1e3,
            self.total_ms / 1e3
        )
    }
}

/// Why the check could not be finished.
#[derive(Debug)]
pub enum CheckError {
    /// The engine failed (crashed, timed out, sent garbage) while a target was checked. A perft
    /// that timed out gets the hint to lower `--depth` or raise `--timeout`.
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
    /// A suite line lists a count the reference rules do not give (a wrong suite, or the
    /// wrong `--rules`).
    SuiteCount {
        /// The target's source (`suite line N`).
        source: String,
        /// The depth.
        depth: u32,
        /// The count the line lists.
        listed: u64,
        /// The reference count.
        reference: u64,
        /// The rule set.
        rules: Rules,
        /// The other rule set that gives the listed count, if one does.
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
                        "; perft counts grow about tenfold with each ply: try a lower --depth \
                         (or a longer --timeout)"
                    )?;
                }
                Ok(())
            }
            CheckError::SuiteCount {
                source,
                depth,
                listed,
                reference,
                rules,
                hint,
            } => {
                write!(
                    f,
                    "{source}: D{depth} lists {listed}, but the {rules} rules count {reference}"
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
/// calling `on_position` with each target's report as soon as it is done.
///
/// # Errors
/// The first [`CheckError`]: the engine failed, or a suite count disagrees with the rules.
pub fn check_all(
    engine: &mut Engine,
    settings: &CheckSettings,
    targets: &[Target],
    mut on_position: impl FnMut(&PositionReport),
) -> Result<Report, CheckError> {
    let started = Instant::now();
    let mut checker = Checker { engine, settings };
    let mut positions = Vec::with_capacity(targets.len());
    for target in targets {
        let report = checker.check(target)?;
        on_position(&report);
        positions.push(report);
    }
    let failed = positions.iter().filter(|report| !report.passed()).count();
    Ok(Report {
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
    fn check(&mut self, target: &Target) -> Result<PositionReport, CheckError> {
        let started = Instant::now();
        let engine_error = |error| CheckError::Engine {
            source: target.source.clone(),
            position: target.position,
            depth: target.depth,
            error: Box::new(error),
        };
        let reference = self.reference(&target.position, target.depth);
        let expected = reference.iter().map(|&(_, count)| count).sum();
        self.check_listed(target, expected)?;
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
        Ok(PositionReport {
            source: target.source.clone(),
            position: target.position.to_string(),
            depth: target.depth,
            expected,
            reported: reply.total,
            first_perft_ms: millis(reply.elapsed),
            walk_ms,
            total_ms: millis(started.elapsed()),
            fault,
            bestmove,
        })
    }

    /// Fails when the target's suite line lists a count other than the reference's.
    fn check_listed(&self, target: &Target, reference: u64) -> Result<(), CheckError> {
        match target.listed {
            Some(listed) if listed != reference => Err(CheckError::SuiteCount {
                source: target.source.clone(),
                depth: target.depth,
                listed,
                reference,
                rules: self.settings.rules,
                hint: OtherRulesHint::find(
                    &target.position,
                    self.settings.rules,
                    target.depth,
                    listed,
                ),
            }),
            _ => Ok(()),
        }
    }

    /// The reference divide.
    fn reference(&self, position: &Position, depth: u32) -> Vec<(Move, u64)> {
        perft::divide(
            position,
            self.settings.rules,
            depth,
            PerftOptions::default(),
        )
    }

    /// The engine's divide.
    fn perft(&mut self, position: &Position, depth: u32) -> Result<PerftReply, EngineError> {
        self.engine.perft(position, depth, self.settings.timeout)
    }

    /// The engine's divide compared with the reference.
    fn compare(
        &self,
        position: &Position,
        reference: &[(Move, u64)],
        reply: &PerftReply,
    ) -> Comparison {
        Comparison::new(position, self.settings.rules, reference, reply)
    }

    /// Walks down from the mismatching `first` comparison at `target` to the exact fault.
    fn walk(&mut self, target: &Target, first: Comparison) -> Result<Fault, EngineError> {
        let (mut position, mut depth, mut comparison) = (target.position, target.depth, first);
        let mut path: Vec<Step> = Vec::new();
        loop {
            let Some((mv, step)) = comparison.next_step(depth) else {
                return Ok(Fault {
                    position: position.to_string(),
                    path,
                    depth,
                    problems: comparison.into_problems(depth),
                });
            };
            let child = position.play_unchecked(mv);
            let reference = self.reference(&child, depth - 1);
            let reply = self.perft(&child, depth - 1)?;
            let child_comparison = self.compare(&child, &reference, &reply);
            if child_comparison.is_clean() {
                let inconsistent = Problem::Inconsistent {
                    mv: step.mv,
                    listed: step.reported,
                    own_perft: reply.total,
                    expected: step.expected,
                };
                return Ok(Fault {
                    position: position.to_string(),
                    path,
                    depth,
                    problems: [inconsistent].into_iter().chain(step.bad_total).collect(),
                });
            }
            path.push(step);
            (position, depth, comparison) = (child, depth - 1, child_comparison);
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

/// The engine's divide compared with the reference in one position.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Comparison {
    /// Problems that show the fault here: illegal, missed, unparseable and duplicate moves.
    direct: Vec<Problem>,
    /// Legal moves the engine lists with a count other than the reference's, in reference
    /// order.
    miscounted: Vec<(Move, Step)>,
    /// A total that is not the sum of the lines.
    bad_total: Option<Problem>,
}

/// A move the engine lists: its text, its count and how many times it is listed.
struct Listed<'a> {
    text: &'a str,
    count: u64,
    times: usize,
}

impl Comparison {
    /// Compares the engine's `reply` in `position` with the `reference` divide under `rules`
    /// (both at the same depth).
    fn new(
        position: &Position,
        rules: Rules,
        reference: &[(Move, u64)],
        reply: &PerftReply,
    ) -> Comparison {
        let (listed, mut direct) = parse_divide(reply);
        let expected: BTreeMap<Move, u64> = reference.iter().copied().collect();
        for (&mv, entry) in &listed {
            if entry.times > 1 {
                direct.push(Problem::Duplicate {
                    mv: entry.text.to_string(),
                    times: entry.times,
                });
            }
            if !expected.contains_key(&mv) {
                direct.push(Problem::Illegal {
                    mv: entry.text.to_string(),
                    count: entry.count,
                    reason: illegal_reason(position, rules, mv),
                });
            }
        }
        let mut miscounted = Vec::new();
        for &(mv, expected) in reference {
            match listed.get(&mv) {
                None => direct.push(Problem::Missed {
                    mv: mv.to_string(),
                    expected,
                    reason: legal_kind(position, mv).to_string(),
                }),
                Some(entry) if entry.count != expected => miscounted.push((
                    mv,
                    Step {
                        mv: entry.text.to_string(),
                        expected,
                        reported: entry.count,
                        bad_total: None,
                    },
                )),
                Some(_) => {}
            }
        }
        let sum = reply
            .moves
            .iter()
            .fold(0u64, |sum, &(_, count)| sum.saturating_add(count));
        let bad_total = (sum != reply.total).then_some(Problem::BadTotal {
            total: reply.total,
            sum,
        });
        Comparison {
            direct,
            miscounted,
            bad_total,
        }
    }

    /// True when the engine's divide and total agree with the reference.
    fn is_clean(&self) -> bool {
        self.direct.is_empty() && self.miscounted.is_empty() && self.bad_total.is_none()
    }

    /// The move to walk down next: when nothing here shows the fault directly and `depth` is
    /// above 1, the miscounted move the engine gave the smallest count (the cheapest subtree
    /// for it; the first in reference order among equals), with this divide's bad total.
    fn next_step(&self, depth: u32) -> Option<(Move, Step)> {
        if !self.direct.is_empty() || depth <= 1 {
            return None;
        }
        let (mv, step) = self
            .miscounted
            .iter()
            .min_by_key(|(_, step)| step.reported)?;
        let bad_total = self.bad_total.clone();
        Some((
            *mv,
            Step {
                bad_total,
                ..step.clone()
            },
        ))
    }

    /// Every problem found here, for a walk-down that ends here at `depth`: the direct ones,
    /// else the wrong counts when no move can be walked down (depth 1), then a bad total.
    fn into_problems(self, depth: u32) -> Vec<Problem> {
        let mut problems = self.direct;
        if problems.is_empty() && depth <= 1 {
            problems.extend(
                self.miscounted
                    .into_iter()
                    .map(|(_, step)| Problem::WrongCount {
                        mv: step.mv,
                        expected: step.expected,
                        reported: step.reported,
                    }),
            );
        }
        problems.extend(self.bad_total);
        problems
    }
}

/// The engine's divide lines by move (the first count of a move listed twice), and a problem
/// for each line whose move does not parse.
fn parse_divide(reply: &PerftReply) -> (BTreeMap<Move, Listed<'_>>, Vec<Problem>) {
    let mut listed: BTreeMap<Move, Listed<'_>> = BTreeMap::new();
    let mut unparseable = Vec::new();
    for (text, count) in &reply.moves {
        match text.parse::<Move>() {
            Ok(mv) => {
                listed
                    .entry(mv)
                    .or_insert(Listed {
                        text,
                        count: *count,
                        times: 0,
                    })
                    .times += 1;
            }
            Err(error) => unparseable.push(Problem::Unparseable {
                text: text.clone(),
                count: *count,
                error: error.to_string(),
            }),
        }
    }
    (listed, unparseable)
}

/// Why `rules` forbid `mv` in `position` (the [`crate::rules::IllegalReason`] as text).
fn illegal_reason(position: &Position, rules: Rules, mv: Move) -> String {
    match position.check_move(rules, mv) {
        Err(error) => error.reason.to_string(),
        Ok(()) => "not generated by the reference rules".to_string(),
    }
}

/// What kind of legal move `mv` is in `position`, for a move the engine missed.
fn legal_kind(position: &Position, mv: Move) -> &'static str {
    if position.is_capture(mv) {
        "legal: a capture"
    } else if mv.from.file() == mv.to.file() {
        "legal: a straight step"
    } else {
        "legal: a diagonal step to an empty square"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(text: &str) -> Position {
        text.parse().expect("a position")
    }

    fn reply(moves: &[(&str, u64)], total: u64) -> PerftReply {
        PerftReply {
            moves: moves.iter().map(|&(mv, n)| (mv.to_string(), n)).collect(),
            total,
            elapsed: Duration::ZERO,
        }
    }

    /// The reference divide as `(move text, count)` lines.
    fn reference_lines(position: &Position, rules: Rules, depth: u32) -> Vec<(String, u64)> {
        perft::divide(position, rules, depth, PerftOptions::default())
            .into_iter()
            .map(|(mv, n)| (mv.to_string(), n))
            .collect()
    }

    fn compare(position: &Position, rules: Rules, depth: u32, reply: &PerftReply) -> Comparison {
        let reference = perft::divide(position, rules, depth, PerftOptions::default());
        Comparison::new(position, rules, &reference, reply)
    }

    #[test]
    fn the_reference_divide_compares_clean() {
        let start = Position::startpos();
        let lines = reference_lines(&start, Rules::Classic, 3);
        let total = lines.iter().map(|(_, n)| n).sum();
        let lines: Vec<(&str, u64)> = lines.iter().map(|(m, n)| (m.as_str(), *n)).collect();
        assert!(compare(&start, Rules::Classic, 3, &reply(&lines, total)).is_clean());
    }

    #[test]
    fn illegal_missed_unparseable_and_duplicate_moves_are_named() {
        // White a4 facing Black b5: a4a5 (straight) and a4b5 (capture) are legal.
        let here = position("8/8/8/1p6/P7/8/8/8 w");
        let engine = reply(&[("a4a5", 1), ("a4a5", 1), ("a4b4", 1), ("a4-b5", 1)], 4);
        let comparison = compare(&here, Rules::CaptureOnly, 1, &engine);
        assert_eq!(
            comparison.direct,
            [
                Problem::Unparseable {
                    text: "a4-b5".into(),
                    count: 1,
                    error: "bad move 'a4-b5': expected four characters like 'a2a3' \
                            (from square, to square)"
                        .into(),
                },
                Problem::Illegal {
                    mv: "a4b4".into(),
                    count: 1,
                    reason: "not one step forward for White".into(),
                },
                Problem::Duplicate {
                    mv: "a4a5".into(),
                    times: 2
                },
                Problem::Missed {
                    mv: "a4b5".into(),
                    expected: 1,
                    reason: "legal: a capture".into(),
                },
            ]
        );
        assert_eq!(comparison.next_step(1), None);
    }

    #[test]
    fn a_total_that_is_not_the_sum_is_a_problem_even_when_the_lines_match() {
        let start = Position::startpos();
        let lines = reference_lines(&start, Rules::CaptureOnly, 2);
        let lines: Vec<(&str, u64)> = lines.iter().map(|(m, n)| (m.as_str(), *n)).collect();
        let comparison = compare(&start, Rules::CaptureOnly, 2, &reply(&lines, 65));
        assert!(!comparison.is_clean());
        assert_eq!(comparison.next_step(2), None);
        assert_eq!(
            comparison.into_problems(2),
            [Problem::BadTotal { total: 65, sum: 64 }]
        );
    }

    #[test]
    fn the_walk_follows_the_smallest_miscount_and_depth_one_names_wrong_counts() {
        let start = Position::startpos();
        let mut lines = reference_lines(&start, Rules::CaptureOnly, 2);
        lines[0].1 = 9; // a2a3
        lines[3].1 = 7; // d2d3
        let total = lines.iter().map(|(_, n)| n).sum();
        let lines: Vec<(&str, u64)> = lines.iter().map(|(m, n)| (m.as_str(), *n)).collect();
        let comparison = compare(&start, Rules::CaptureOnly, 2, &reply(&lines, total));
        let (mv, step) = comparison.next_step(2).expect("a move to walk down");
        assert_eq!(
            (mv.to_string(), step.expected, step.reported),
            ("d2d3".into(), 8, 7)
        );
        assert_eq!(
            comparison.into_problems(1)[0],
            Problem::WrongCount {
                mv: "a2a3".into(),
                expected: 8,
                reported: 9
            }
        );
    }

    #[test]
    fn moves_in_a_finished_game_are_illegal_because_it_is_over() {
        let over = position("P7/8/8/8/8/8/7p/8 b");
        let comparison = compare(&over, Rules::CaptureOnly, 1, &reply(&[("h2h1", 1)], 1));
        assert_eq!(
            comparison.direct,
            [Problem::Illegal {
                mv: "h2h1".into(),
                count: 1,
                reason: "the game is already over: White reached rank 8".into(),
            }]
        );
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

    #[test]
    fn suite_lines_are_checked_at_their_deepest_depth_up_to_the_cap() {
        let entries =
            perft::parse_suite("startpos ;D1 8 ;D2 64 ;D3 576\n8/8/8/1p6/P7/8/8/8 w ;D7 1")
                .expect("a suite");
        let targets = Target::from_suite(&entries, 2);
        assert_eq!(
            targets
                .iter()
                .map(|t| (t.source.as_str(), t.depth, t.listed))
                .collect::<Vec<_>>(),
            [("suite line 1", 2, Some(64)), ("suite line 2", 2, None)]
        );
    }

    #[test]
    fn random_targets_repeat_with_their_seed_and_are_unfinished_games() {
        let targets = Target::random(Rules::CaptureOnly, 6, 42, 3);
        assert_eq!(targets, Target::random(Rules::CaptureOnly, 6, 42, 3));
        assert_ne!(targets, Target::random(Rules::CaptureOnly, 6, 43, 3));
        for target in &targets {
            assert!(target.position.outcome(Rules::CaptureOnly).is_none());
            assert!(
                target.source.starts_with("random game "),
                "{}",
                target.source
            );
            assert_eq!(target.depth, 3);
        }
    }
}
