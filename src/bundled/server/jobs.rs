//! The jobs run outside the lock: a search (the brain's) and perft's divide (the reference
//! move generator's), with the `bestmove` they end in.

use super::{Brain, Output, SearchRequest};
use crate::protocol::{Info, NO_MOVE, Reply};
use crate::rules::perft::{PerftOptions, divide};
use crate::rules::{Move, Position, Rules};
use std::io;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// How a job ended.
pub(super) enum Done<B> {
    /// A search finished: the brain comes back with its move.
    Search(B, Finished),
    /// A search or perft panicked (`what` names it): the brain is lost.
    Panicked(&'static str),
    /// A perft finished (its lines are printed).
    Perft,
}

/// How a search finished.
pub(super) enum Finished {
    /// The brain's move, unchecked: an `infinite` search's move is checked and printed or held
    /// by the loop.
    Move(Option<Move>),
    /// The searching thread checked the move and printed `bestmove` at once; how that went.
    Printed(io::Result<()>),
}

/// A job for a thread to run outside the lock.
pub(super) enum Work<B> {
    /// Run a search; the brain comes back with [`Done::Search`].
    Search {
        brain: B,
        request: SearchRequest,
        stop: Arc<AtomicBool>,
        /// The brain's [`Brain::searches_at_once`].
        at_once: bool,
    },
    /// Print perft's divide, then report [`Done::Perft`].
    Perft {
        position: Position,
        rules: Rules,
        depth: u32,
    },
}

impl<B> Work<B> {
    /// True for a job that ends at once: it may run while the input waits.
    pub(super) fn at_once(&self) -> bool {
        matches!(self, Work::Search { at_once: true, .. })
    }

    pub(super) fn name(&self) -> &'static str {
        match self {
            Work::Search { .. } => "search",
            Work::Perft { .. } => "perft",
        }
    }
}

/// Runs one job; what to report when it is done.
pub(super) fn run_work<B: Brain>(work: Work<B>, out: &Output) -> Done<B> {
    match work {
        Work::Search {
            mut brain,
            request,
            stop,
            ..
        } => {
            let mut info = |info: Info| {
                let _ = out.send(info);
            };
            let best = brain.search(&request, &stop, &mut info);
            if request.limits.infinite {
                return Done::Search(brain, Finished::Move(best));
            }
            let printed = checked_move(&request, best, out)
                .and_then(|checked| out.send(best_move_reply(checked)));
            Done::Search(brain, Finished::Printed(printed))
        }
        Work::Perft {
            position,
            rules,
            depth,
        } => {
            let _ = print_divide(out, &position, rules, depth);
            Done::Perft
        }
    }
}

/// `best` if it is legal in the searched position; otherwise (after an `info string error`)
/// the first legal move.
pub(super) fn checked_move(
    request: &SearchRequest,
    best: Option<Move>,
    out: &Output,
) -> io::Result<Option<Move>> {
    let legal = request.position.legal_moves(request.rules);
    match best {
        Some(mv) if legal.contains(mv) => Ok(Some(mv)),
        _ => {
            let chosen = best.map_or_else(|| "no move".to_string(), |mv| mv.to_string());
            out.error(format_args!(
                "the search returned {chosen}, not a legal move; playing the first legal move"
            ))?;
            Ok(legal.iter().next())
        }
    }
}

/// Prints perft's divide of `position`: `<move>: <count>` per legal move, then `nodes <total>`.
fn print_divide(out: &Output, position: &Position, rules: Rules, depth: u32) -> io::Result<()> {
    if depth == 0 {
        return out.send(Reply::PerftTotal { nodes: 1 });
    }
    let counts = divide(position, rules, depth, PerftOptions::default());
    for &(mv, nodes) in &counts {
        out.send(Reply::PerftMove {
            mv: mv.to_string(),
            nodes,
        })?;
    }
    let nodes = counts.iter().map(|&(_, nodes)| nodes).sum();
    out.send(Reply::PerftTotal { nodes })
}

/// The `bestmove` line for `best` (`bestmove (none)` when there is no move).
pub(super) fn best_move_reply(best: Option<Move>) -> Reply {
    Reply::BestMove {
        mv: best.map_or_else(|| NO_MOVE.to_string(), |mv| mv.to_string()),
        ponder: None,
    }
}
