//! The computed report of a perft-check: per position the counts, the walk-down's fault with
//! its [`Problem`]s, and the judged `bestmove`; for the whole check the totals.

use crate::rules::Rules;
use serde::Serialize;
use std::fmt;

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
pub struct WalkStep {
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
    /// The FEN of the position whose divide shows the fault.
    pub position: String,
    /// The moves from the checked position to it, with their counts.
    pub path: Vec<WalkStep>,
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
    /// Where the position comes from (see [`super::Target::source`]).
    pub source: String,
    /// The FEN of the position.
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
pub struct PerftCheckReport {
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

impl fmt::Display for PerftCheckReport {
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
