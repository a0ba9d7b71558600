//! The solver: who wins a position with perfect play, and in how many plies, proven by
//! search over the reference rules ([`crate::rules`]). Its results are exact, repeatable bit
//! for bit (one thread, no randomness), and serve as an oracle for the prover and for
//! engines. For users: `docs/guide/solve.md` (`bt-arena solve`).
//!
//! # The distance
//!
//! Breakthrough has no draws, so every position is a win for one side. The **distance** is the
//! minimax length of the game in plies: the winner plays the fastest win, the loser the longest
//! resistance. 0 is a finished position; 1 a winning move now; 2 a position whose every move
//! allows a winning move; and so on. Odd distances are wins of the side to move, even ones
//! its losses.
//!
//! # The method
//!
//! Iterative deepening of two exact questions ([`search`]): for `d = 1, 2, 3, ...`, an odd `d`
//! asks whether the side to move wins within `d` plies (`wins`), an even `d` whether every
//! move leaves the opponent a win within `d - 1` (`defence_fails`). The first `d` answered yes
//! is the distance, since every smaller one was answered no. Both questions are AND/OR searches
//! as the prover's ([`crate::rules::proof`], which documents the race bound), plus pruning by
//! threats ([`search`]) and move ordering by the table's best move and a history of moves that
//! proved or refuted. Proven facts are kept in a table of fixed size ([`SolveOptions::hash_mib`])
//! keyed by the whole position: a fact read is never another position's.
//!
//! # Resuming
//!
//! With [`SolveOptions::state`] the solver writes its state (the deepest depth answered no and
//! every fact in the table) to a file when stopped and at least every [`SAVE_EVERY`] between
//! depths, and a later solve of the same position and rules reads it and goes on from the next
//! depth. Facts are exact, so a resumed solve finds the same distance and line.

mod line;
mod search;
mod state;
mod table;

use crate::rules::{Color, Move, Position, Reason, Rules};
use search::{Search, Stopped};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use table::Table;

pub use state::StateError;

/// The table size unless the user gives one, in MiB.
pub const DEFAULT_HASH_MIB: u32 = 256;

/// The largest table accepted, in MiB (64 GiB).
pub const MAX_HASH_MIB: u32 = 65_536;

/// How long a solve with a state file goes between two saves at the end of a depth.
pub const SAVE_EVERY: Duration = Duration::from_secs(10);

/// What a solve is told.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// The rule set.
    pub rules: Rules,
    /// The table's size in MiB (2^20 bytes), 1 to [`MAX_HASH_MIB`].
    pub hash_mib: u32,
    /// When set, the solve stops (within a few ms) with [`SolveError::Stopped`].
    pub stop: Option<Arc<AtomicBool>>,
    /// The state file: read when it exists, written when stopped and between depths (see the
    /// module documentation).
    pub state: Option<PathBuf>,
}

/// One depth of the iterative deepening, answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iteration {
    /// The depth asked, in plies: odd, does the side to move win within it; even, is it lost
    /// within it.
    pub depth: u32,
    /// The answer: `true` ends the solve with `depth` as the distance.
    pub proven: bool,
    /// Nodes of this solve so far (not those of a solve it resumed).
    pub nodes: u64,
    /// Time of this solve so far.
    pub elapsed: Duration,
}

/// A solved position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The position solved.
    pub position: Position,
    /// The rule set.
    pub rules: Rules,
    /// The side that wins with perfect play.
    pub winner: Color,
    /// The distance in plies (see the module documentation); 0 for a finished position.
    pub plies: u32,
    /// The principal line: `plies` moves from the position, the winner's fastest win against
    /// the loser's longest resistance, each the first such move in generation order.
    pub line: Vec<Move>,
    /// How the line ends (how the game ended, for a finished position).
    pub ending: Reason,
    /// Nodes of this solve (the line's included; not those of a solve it resumed).
    pub nodes: u64,
    /// Nodes of the solves it resumed, as their state file says.
    pub earlier_nodes: u64,
    /// The depth a resumed state had answered (0: none).
    pub resumed_at: u32,
    /// The table's memory in bytes.
    pub table_bytes: u64,
    /// Positions in the table at the end.
    pub table_used: u64,
    /// Facts dropped for want of room.
    pub evicted: u64,
    /// Wall-clock time of this solve.
    pub elapsed: Duration,
}

impl Solution {
    /// The side to move of the position: it wins when the distance is odd.
    pub fn side_to_move_wins(&self) -> bool {
        self.winner == self.position.side_to_move()
    }
}

/// Why a solve did not give a solution.
#[derive(Debug)]
pub enum SolveError {
    /// A table size refused: 0, over [`MAX_HASH_MIB`], or memory that cannot be had.
    Hash {
        /// The size asked, MiB.
        mib: u32,
        /// Why it was refused.
        why: String,
    },
    /// The stop flag was set: every depth up to `completed` was answered no.
    Stopped {
        /// The deepest depth answered (no), 0 for none.
        completed: u32,
        /// The state file written, if the solve has one.
        saved: Option<PathBuf>,
    },
    /// The state file could not be read or written, or is another solve's.
    State(StateError),
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Hash { mib, why } => write!(
                f,
                "--hash {mib}: {why} (give 1 to {MAX_HASH_MIB} MiB of memory for the table)"
            ),
            SolveError::Stopped { completed, saved } => {
                write!(f, "stopped after depth {completed}")?;
                match saved {
                    Some(path) => write!(f, "; the state is saved in {}", path.display()),
                    None => f.write_str("; nothing saved (no state file was given)"),
                }
            }
            SolveError::State(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for SolveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SolveError::State(err) => Some(err),
            _ => None,
        }
    }
}

impl From<StateError> for SolveError {
    fn from(err: StateError) -> Self {
        SolveError::State(err)
    }
}

/// A solve of one position: its table, and how far its iterative deepening has come.
pub struct Solver {
    position: Position,
    state: Option<PathBuf>,
    search: Search,
    /// The deepest depth answered no.
    completed: u32,
    /// The depth a state file had answered when read.
    resumed_at: u32,
    earlier_nodes: u64,
}

impl Solver {
    /// A solver of `position` under `options`, its table allocated, and its state file read
    /// when one exists.
    ///
    /// # Errors
    /// [`SolveError::Hash`] for a table size out of range or memory that cannot be had;
    /// [`SolveError::State`] for a state file that cannot be read, is malformed, or is the
    /// state of another position or rule set.
    pub fn new(position: Position, options: &SolveOptions) -> Result<Solver, SolveError> {
        if options.hash_mib > MAX_HASH_MIB {
            return Err(SolveError::Hash {
                mib: options.hash_mib,
                why: format!("more than {MAX_HASH_MIB} MiB"),
            });
        }
        let table = Table::with_mib(options.hash_mib)?;
        let mut solver = Solver {
            position,
            state: options.state.clone(),
            search: Search::new(options.rules, table, options.stop.clone()),
            completed: 0,
            resumed_at: 0,
            earlier_nodes: 0,
        };
        if let Some(path) = &options.state
            && let Some(saved) = state::read(path, &position, options.rules)?
        {
            for (position, facts) in saved.facts {
                solver.search.table.restore(&position, facts);
            }
            solver.completed = saved.completed;
            solver.resumed_at = saved.completed;
            solver.earlier_nodes = saved.nodes;
        }
        Ok(solver)
    }

    /// The deepest depth answered no so far (by this solve or the one it resumed).
    pub fn completed(&self) -> u32 {
        self.completed
    }

    /// Solves the position, calling `on_iteration` after each depth answered.
    ///
    /// # Errors
    /// [`SolveError::Stopped`] when the stop flag was set (the state saved when the solve has
    /// a state file); [`SolveError::State`] when the state file cannot be written.
    pub fn solve(
        &mut self,
        mut on_iteration: impl FnMut(&Iteration),
    ) -> Result<Solution, SolveError> {
        let start = Instant::now();
        let rules = self.search.rules;
        if let Some(outcome) = self.position.outcome(rules) {
            return Ok(self.solution(outcome.winner, 0, Vec::new(), outcome.reason, start));
        }
        let mut saved_at = Instant::now();
        loop {
            let depth = self.completed + 1;
            let proven = match self.ask(depth) {
                Ok(proven) => proven,
                Err(Stopped) => return Err(self.stopped()),
            };
            on_iteration(&Iteration {
                depth,
                proven,
                nodes: self.search.nodes,
                elapsed: start.elapsed(),
            });
            if proven {
                break;
            }
            self.completed = depth;
            if let Some(path) = &self.state
                && saved_at.elapsed() >= SAVE_EVERY
            {
                self.save(path)?;
                saved_at = Instant::now();
            }
        }
        let plies = self.completed + 1;
        let line = match line::principal_line(&mut self.search, &self.position, plies) {
            Ok(line) => line,
            Err(Stopped) => return Err(self.stopped()),
        };
        let mut end = self.position;
        for &mv in &line {
            end = end.play_unchecked(mv);
        }
        let ending = end
            .outcome(rules)
            .map_or(Reason::GoalRank, |outcome| outcome.reason);
        let side = self.position.side_to_move();
        let winner = if plies % 2 == 1 {
            side
        } else {
            side.opponent()
        };
        Ok(self.solution(winner, plies, line, ending, start))
    }

    /// Solves the position when its distance is at most `max_plies`; `None` when every depth
    /// up to `max_plies` was answered no (the distance is longer). The work is bounded by the
    /// depth, not by a clock, so the same position gives the same answer on any machine.
    ///
    /// # Errors
    /// As [`solve`](Self::solve).
    pub fn solve_within(&mut self, max_plies: u32) -> Result<Option<Solution>, SolveError> {
        if self.position.outcome(self.search.rules).is_none() {
            while self.completed < max_plies {
                let depth = self.completed + 1;
                match self.ask(depth) {
                    // Answered again from the table by `solve`, which finds the line.
                    Ok(true) => break,
                    Ok(false) => self.completed = depth,
                    Err(Stopped) => return Err(self.stopped()),
                }
            }
            if self.completed >= max_plies {
                return Ok(None);
            }
        }
        self.solve(|_| {}).map(Some)
    }

    /// The answer at `depth` (see the module documentation).
    fn ask(&mut self, depth: u32) -> Result<bool, Stopped> {
        if depth % 2 == 1 {
            self.search.wins(&self.position, depth)
        } else {
            self.search.defence_fails(&self.position, depth - 1)
        }
    }

    /// The error of a stopped solve, its state saved first when it has a state file.
    fn stopped(&self) -> SolveError {
        if let Some(path) = &self.state
            && let Err(err) = self.save(path)
        {
            return err;
        }
        SolveError::Stopped {
            completed: self.completed,
            saved: self.state.clone(),
        }
    }

    /// Writes the state file at `path`.
    fn save(&self, path: &std::path::Path) -> Result<(), SolveError> {
        Ok(state::write(
            path,
            &state::Header {
                position: self.position,
                rules: self.search.rules,
                completed: self.completed,
                nodes: self.earlier_nodes + self.search.nodes,
            },
            self.search.table.occupied(),
        )?)
    }

    fn solution(
        &self,
        winner: Color,
        plies: u32,
        line: Vec<Move>,
        ending: Reason,
        start: Instant,
    ) -> Solution {
        Solution {
            position: self.position,
            rules: self.search.rules,
            winner,
            plies,
            line,
            ending,
            nodes: self.search.nodes,
            earlier_nodes: self.earlier_nodes,
            resumed_at: self.resumed_at,
            table_bytes: self.search.table.bytes(),
            table_used: self.search.table.used(),
            evicted: self.search.table.evicted(),
            elapsed: start.elapsed(),
        }
    }
}

/// Solves `position` under `rules` with a table of `hash_mib` MiB, no stop flag and no state
/// file: the oracle of the tests and of the prover's checks.
///
/// # Errors
/// [`SolveError::Hash`] for a table size refused.
pub fn solve(position: &Position, rules: Rules, hash_mib: u32) -> Result<Solution, SolveError> {
    let options = SolveOptions {
        rules,
        hash_mib,
        stop: None,
        state: None,
    };
    Solver::new(*position, &options)?.solve(|_| {})
}

/// As [`solve`], for a position whose distance is at most `max_plies` (`None` beyond): the
/// oracle of check-engine's `board.solved`.
///
/// # Errors
/// [`SolveError::Hash`] for a table size refused.
pub fn solve_within(
    position: &Position,
    rules: Rules,
    hash_mib: u32,
    max_plies: u32,
) -> Result<Option<Solution>, SolveError> {
    let options = SolveOptions {
        rules,
        hash_mib,
        stop: None,
        state: None,
    };
    Solver::new(*position, &options)?.solve_within(max_plies)
}

#[cfg(test)]
mod tests;
