//! The findings of a perft-check: per position the counts, the walk-down's fault with
//! its [`Problem`]s, and the judged `bestmove`; for the whole check the totals. Rendered as
//! text or JSON by [`super::render`].

use crate::rules::Rules;
use serde::Serialize;

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
pub struct PositionFindings {
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

impl PositionFindings {
    /// True when the perft matched and the bestmove is acceptable.
    pub fn passed(&self) -> bool {
        self.fault.is_none() && self.bestmove.problem.is_none()
    }
}

/// The check of every target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerftCheckFindings {
    /// The engine's configured name.
    pub engine: String,
    /// The name the engine gave (`id name`), if any.
    pub engine_id: Option<String>,
    /// The rule set.
    pub rules: Rules,
    /// The seed of the random positions, when some were drawn (set by the caller).
    pub seed: Option<u64>,
    /// Each target's check, in order.
    pub positions: Vec<PositionFindings>,
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
