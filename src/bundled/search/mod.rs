//! A game-tree searcher for Breakthrough under both rule sets: the brain of the bundled engine
//! `bt-search` and the scorer of the openings generator.
//!
//! The search is iterative-deepening principal-variation search (negamax alpha-beta with null
//! windows after the first move, as in Stockfish) with:
//!
//! * exact game-end handling: at every node, a move that wins at once (onto the goal rank, or
//!   taking the last enemy pawn) is found before anything else and scores a win in `n` plies;
//!   a side with no move has lost. When the opponent threatens to win at once, only the moves
//!   that parry the threat are searched, and the node is extended by one ply (as chess engines
//!   extend checks); with no parry it is a loss in 2 plies;
//! * a quiescence search of captures and steps onto the rank before the goal at the horizon,
//!   which never stands pat against a threat;
//! * a transposition table ([`Searcher::new`], replacement in the `tt` module);
//! * move ordering: the table's move, captures, threats, killers, history (`ordering` module);
//! * late move reductions of quiet moves and reverse futility pruning near the leaves;
//! * the evaluation of [`evaluate`] ([`EvalKind::Full`], its weights [`EvalWeights`] settable)
//!   or material only ([`EvalKind::Material`]).
//!
//! Limits ([`Limits`]) combine: depth, nodes, a fixed move time, a clock (soft and hard
//! deadlines from the `time` module), or none (until the stop flag). The search reads the stop
//! flag and the clock every 1024 nodes. It is deterministic for a depth or node limit: the same
//! position, limits and table contents give the same result; a new or [`Searcher::clear`]ed
//! searcher starts from the same table contents.

// The search narrows small values in its hot path: squares (0..64) to files and ranks, plies
// and killer slots (bounded by the maximum depth) to scores, clamped scores and depths to the
// table's i16/u8 fields, a hash key masked to the table's size, times and node rates to u64.
// Each is bounded by construction or clamped just before, so no cast truncates.
#![allow(clippy::cast_possible_truncation)]

mod board;
mod eval;
pub mod fit;
mod ordering;
mod score;
mod time;
mod tree;
mod tt;
mod weights;

#[cfg(test)]
mod tests;

pub use eval::{EvalKind, PAWN, RACE, evaluate, evaluate_with};
pub use score::{SearchScore, WIN};
pub use time::{DEFAULT_MOVES_TO_GO, MOVE_OVERHEAD_MS};
pub use weights::{EVAL_LIMIT, EvalWeights, WeightOption};

use crate::rules::{Move, Position, Rules};
use std::sync::atomic::AtomicBool;
use tt::TranspositionTable;

/// The deepest iteration a search starts, in plies.
pub const MAX_DEPTH: u32 = 100;

/// The time left on the clock of the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchClock {
    /// Milliseconds left.
    pub remaining_ms: u64,
    /// Milliseconds added after each move.
    pub increment_ms: u64,
    /// Moves until the next time control, when the time control has one.
    pub moves_to_go: Option<u32>,
}

/// When a search stops. Limits combine: the search stops at the first one reached. With none
/// at all, it runs until the stop flag is set or it reaches [`MAX_DEPTH`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in plies (capped at [`MAX_DEPTH`]; 0 counts as 1).
    pub depth: Option<u32>,
    /// Stop once this many nodes are searched.
    pub nodes: Option<u64>,
    /// Search for this many milliseconds (less a small overhead, see the `time` module).
    pub movetime_ms: Option<u64>,
    /// Plan the time from the side to move's clock.
    pub clock: Option<SearchClock>,
    /// Ignore the move time and clock: search until the stop flag (or the depth or node limit,
    /// or a proven result). Holding the answer until `stop`, as UCI's `go infinite` requires,
    /// is the protocol loop's business ([`crate::bundled::server`]).
    pub infinite: bool,
}

/// The progress report sent after each completed iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReport {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// The deepest ply reached, quiescence and extensions included.
    pub seldepth: u32,
    /// The score of the best move for the side to move.
    pub score: SearchScore,
    /// Nodes searched since the search started.
    pub nodes: u64,
    /// Nodes per second since the search started.
    pub nps: u64,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// The transposition table's fill in permille (UCI `hashfull`).
    pub hashfull: u32,
    /// The principal variation, starting with the best move.
    pub pv: Vec<Move>,
    /// Which line this is (1 the best; above 1 only with [`Searcher::set_multipv`]).
    pub multipv: u32,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play: `None` only when the game is over (no legal move). When stopped before
    /// any iteration completed, the first move in ordering (a capture or an advance).
    pub best: Option<Move>,
    /// The score of `best` for the side to move; in a finished position, the game's result
    /// (`Loss(0)` when the side to move has lost).
    pub score: SearchScore,
    /// The depth of the last completed iteration in plies (0 when none completed).
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds spent.
    pub time_ms: u64,
    /// The principal variation, starting with `best` (empty when `best` is `None`).
    pub pv: Vec<Move>,
}

/// A searcher: its transposition table (kept from one search to the next) and settings.
pub struct Searcher {
    table: TranspositionTable,
    hash_mb: usize,
    eval: EvalKind,
    weights: EvalWeights,
    multipv: u32,
}

impl Searcher {
    /// A searcher with a transposition table of `hash_mb` MiB (0: no table) and the full
    /// evaluation.
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            table: TranspositionTable::new(hash_mb),
            hash_mb,
            eval: EvalKind::default(),
            weights: EvalWeights::DEFAULT,
            multipv: 1,
        }
    }

    /// The lines reported per iteration (MultiPV): 1, the best only.
    pub fn multipv(&self) -> u32 {
        self.multipv
    }

    /// Reports the `lines` best root moves per iteration (at least 1): after each completed
    /// iteration the root is searched again without the lines already found, and each line is
    /// reported ([`SearchReport::multipv`]). With 1, the search is the plain one.
    pub fn set_multipv(&mut self, lines: u32) {
        self.multipv = lines.max(1);
    }

    /// The table size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// Replaces the table by an empty one of `hash_mb` MiB (0: no table).
    pub fn set_hash_mb(&mut self, hash_mb: usize) {
        // Free the old table before allocating the new one.
        self.table = TranspositionTable::new(0);
        self.table = TranspositionTable::new(hash_mb);
        self.hash_mb = hash_mb;
    }

    /// The evaluation in use.
    pub fn eval_kind(&self) -> EvalKind {
        self.eval
    }

    /// Switches the evaluation.
    pub fn set_eval_kind(&mut self, kind: EvalKind) {
        self.eval = kind;
    }

    /// The weights of the full evaluation.
    pub fn eval_weights(&self) -> &EvalWeights {
        &self.weights
    }

    /// Sets the weights of the full evaluation (the table is kept: call [`Searcher::clear`]
    /// for searches that do not depend on what was searched before).
    pub fn set_eval_weights(&mut self, weights: EvalWeights) {
        self.weights = weights;
    }

    /// Empties the table (a new game), so the next search behaves as a new searcher's.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Searches `position` under `rules` within `limits`, or until `stop` becomes true, calling
    /// `report` after each completed iteration. Returns the best move found, `None` only when
    /// the game is over.
    pub fn search(
        &mut self,
        position: &Position,
        rules: Rules,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchReport),
    ) -> SearchResult {
        self.table.new_search();
        tree::Search::new(
            rules,
            self.eval,
            &self.weights,
            &mut self.table,
            limits,
            stop,
        )
        .run(position, self.multipv, report)
    }
}
