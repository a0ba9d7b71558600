//! The solver's search: `wins(p, d)`, the side to move of `p` wins within `d` plies, and
//! `defence_fails(p, d)`, every move of the side to move leaves the opponent such a win,
//! over the table of proven facts ([`super::table`]).
//!
//! Besides the prover's race bound ([`crate::rules::proof`]), the search prunes by
//! **threats**: a pawn one step from its goal with a move onto it wins on its next ply unless
//! it is taken first. The side to move (with no winning move of its own) can only take it, or,
//! under capture-only rules, move away the home-rank pawn its capture would land on; a pawn
//! never moves back onto its home rank, so nothing else stops the threat. Every other move loses
//! at once, so it is not tried: it is never a win and never the longest defence. Under classic
//! rules two such pawns cannot both be taken in one move: the side to move is lost.

use super::table::Table;
use crate::rules::proof::{depth_u8, may_win, near_goal, winning_move};
use crate::rules::{Black, Color, Move, Position, Rules, Side, White};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The search was told to stop (its stop flag was set).
#[derive(Debug)]
pub(super) struct Stopped;

/// How many nodes pass between two looks at the stop flag.
const STOP_NODES: u64 = 1 << 12;

/// The most moves a position has: 16 pawns, three steps each.
const MAX_MOVES: usize = 48;

/// Which side of the proof a move ordering is for.
#[derive(Clone, Copy)]
enum Role {
    /// The side trying to win.
    Attacker,
    /// The side trying not to lose in time.
    Defender,
}

/// The search state: rules, table, node count, stop flag and the history of moves that
/// proved or refuted (for move ordering; it changes only the order, never a result).
pub(super) struct Search {
    pub(super) rules: Rules,
    pub(super) table: Table,
    pub(super) nodes: u64,
    stop: Option<Arc<AtomicBool>>,
    /// By side, then `64 * from + to`.
    history: Vec<u32>,
}

impl Search {
    pub(super) fn new(rules: Rules, table: Table, stop: Option<Arc<AtomicBool>>) -> Search {
        Search {
            rules,
            table,
            nodes: 0,
            stop,
            history: vec![0; 2 * 64 * 64],
        }
    }

    /// Counts a node; every [`STOP_NODES`] looks at the stop flag.
    fn visit(&mut self) -> Result<(), Stopped> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_NODES)
            && self
                .stop
                .as_ref()
                .is_some_and(|stop| stop.load(Ordering::Relaxed))
        {
            return Err(Stopped);
        }
        Ok(())
    }

    /// Whether the side to move of `position` (not over) wins within `depth` plies.
    pub(super) fn wins(&mut self, position: &Position, depth: u32) -> Result<bool, Stopped> {
        self.visit()?;
        if winning_move(position, self.rules).is_some() {
            return Ok(true);
        }
        let side = position.side_to_move();
        if depth < 3 || !may_win(position, side, depth, self.rules) {
            return Ok(false);
        }
        let facts = self.table.get(position);
        if u32::from(facts.win) <= depth {
            return Ok(true);
        }
        if u32::from(facts.no_win) >= depth {
            return Ok(false);
        }
        let Some(answer) = self.answers(position, side.opponent()) else {
            return Ok(false);
        };
        let answer = self.within_three(position, depth, answer);
        let mut won = None;
        for mv in self.ordered(position, Role::Attacker, facts.best(), answer) {
            if self.defence_fails(&position.play_unchecked(mv), depth - 2)? {
                won = Some(mv);
                break;
            }
        }
        let depth8 = depth_u8(depth);
        match won {
            Some(mv) => {
                self.reward(side, mv, depth);
                self.table.update(position, |facts| {
                    facts.win = facts.win.min(depth8);
                    facts.best = [mv.from.index(), mv.to.index()];
                });
            }
            None => self
                .table
                .update(position, |facts| facts.no_win = facts.no_win.max(depth8)),
        }
        Ok(won.is_some())
    }

    /// Whether every move of the side to move of `position` (not over) leaves the opponent a
    /// win within `depth` plies: the side to move is lost within `depth + 1` plies.
    pub(super) fn defence_fails(
        &mut self,
        position: &Position,
        depth: u32,
    ) -> Result<bool, Stopped> {
        self.visit()?;
        let side = position.side_to_move();
        if !may_win(position, side.opponent(), depth, self.rules)
            || winning_move(position, self.rules).is_some()
        {
            return Ok(false);
        }
        let facts = self.table.get(position);
        if u32::from(facts.lost) <= depth {
            return Ok(true);
        }
        if u32::from(facts.not_lost) >= depth {
            return Ok(false);
        }
        let Some(answer) = self.answers(position, side.opponent()) else {
            return Ok(true);
        };
        let mut held = None;
        for mv in self.ordered(position, Role::Defender, facts.best(), answer) {
            if !self.wins(&position.play_unchecked(mv), depth)? {
                held = Some(mv);
                break;
            }
        }
        let depth8 = depth_u8(depth);
        match held {
            Some(mv) => {
                self.reward(side, mv, depth);
                self.table.update(position, |facts| {
                    facts.not_lost = facts.not_lost.max(depth8);
                    facts.best = [mv.from.index(), mv.to.index()];
                });
            }
            None => self
                .table
                .update(position, |facts| facts.lost = facts.lost.min(depth8)),
        }
        Ok(held.is_none())
    }

    /// The moves of the side to move of `position` that do not lose at once to a threat of
    /// `threat_side` (see the module documentation), as a filter on a move: `Some(Answer::Any)`
    /// with no threat, `Some(Answer::Only{..})` the squares a move must land on or leave,
    /// `None` when no move can answer (two threats under classic rules).
    fn answers(&self, position: &Position, threat_side: Color) -> Option<Answer> {
        let board = position.board();
        let threats = position.pawns(threat_side) & near_goal(board, threat_side, 1);
        if threats == 0 {
            return Some(Answer::Any);
        }
        let mover = position.pawns(threat_side.opponent());
        let squares = board.squares();
        let goal = board.goal(threat_side);
        let targets = match threat_side {
            Color::White => White::targets(threats, mover, self.rules, squares),
            Color::Black => Black::targets(threats, mover, self.rules, squares),
        }
        .map(|set| set & goal);
        // The threatening pawns: each target stepped back.
        let back = |set: u64, delta: i8| {
            if delta > 0 {
                set >> delta
            } else {
                set << -delta
            }
        };
        let forward: i8 = if threat_side == Color::White { 8 } else { -8 };
        let takers = back(targets[0], forward)
            | back(targets[1], forward - 1)
            | back(targets[2], forward + 1);
        if takers == 0 {
            return Some(Answer::Any);
        }
        let leave = match self.rules {
            Rules::CaptureOnly => (targets[1] | targets[2]) & mover,
            Rules::Classic if takers.count_ones() >= 2 => return None,
            Rules::Classic => 0,
        };
        Some(Answer::Only {
            land: takers,
            leave,
        })
    }

    /// Under classic rules, a win within 3 plies (none sooner) needs a move onto the rank
    /// before the goal, or a capture when the opponent has two pawns: every pawn on that rank
    /// has a move onto the goal (a diagonal step onto a square its side never holds), so with
    /// no winning move now none stands there, the opponent's move brings none, and there is no
    /// win by leaving the opponent without a move under these rules (the prover's argument).
    /// Narrows `answer` to those moves at `depth` 3 or 4.
    fn within_three(&self, position: &Position, depth: u32, answer: Answer) -> Answer {
        if self.rules != Rules::Classic || depth >= 5 {
            return answer;
        }
        let side = position.side_to_move();
        let enemy = position.pawns(side.opponent());
        let mut onto = near_goal(position.board(), side, 1);
        if enemy.count_ones() <= 2 {
            onto |= enemy;
        }
        match answer {
            Answer::Any => Answer::Only {
                land: onto,
                leave: 0,
            },
            // Under classic rules a threat is answered only by taking the pawn.
            Answer::Only { land, .. } => Answer::Only {
                land: land & onto,
                leave: 0,
            },
        }
    }

    /// The moves of `position` that `answer` allows, the most promising first: the table's
    /// best move, then by history, then (attacker) captures and pawns nearest their goal or
    /// (defender) captures of the most advanced enemy pawns, then its own pawns nearest their
    /// goal.
    fn ordered(
        &self,
        position: &Position,
        role: Role,
        best: Option<Move>,
        answer: Answer,
    ) -> Picker {
        let side = position.side_to_move();
        let enemy = position.pawns(side.opponent());
        let board = position.board();
        let history = &self.history[side.index() * 4096..][..4096];
        let mut picker = Picker {
            moves: [best.unwrap_or(NO_MOVE); MAX_MOVES],
            scores: [0; MAX_MOVES],
            count: 0,
        };
        for mv in position.pseudo_moves(self.rules) {
            if !answer.allows(mv) {
                continue;
            }
            let score = if Some(mv) == best {
                u64::MAX
            } else {
                let advance = board.relative_rank(side, mv.to.rank());
                let statik = if mv.to.bit() & enemy != 0 {
                    match role {
                        Role::Attacker => 16 + advance,
                        Role::Defender => 16 + (board.ranks() - 1 - advance),
                    }
                } else {
                    advance
                };
                let heat = history[usize::from(mv.from.index()) * 64 + usize::from(mv.to.index())];
                (u64::from(heat) << 8) | u64::from(statik)
            };
            picker.moves[picker.count] = mv;
            picker.scores[picker.count] = score;
            picker.count += 1;
        }
        picker
    }

    /// Credits `mv` of `side` with proving or refuting at `depth`.
    fn reward(&mut self, side: Color, mv: Move, depth: u32) {
        let at =
            side.index() * 4096 + usize::from(mv.from.index()) * 64 + usize::from(mv.to.index());
        self.history[at] = self.history[at].saturating_add(depth * depth);
    }

    /// The moves of `position` in generation order that answer the opponent's threats (all of
    /// them when none does): the order of the principal line, which must not depend on
    /// history.
    pub(super) fn answering_moves(&self, position: &Position) -> Vec<Move> {
        let answer = self
            .answers(position, position.side_to_move().opponent())
            .unwrap_or(Answer::Any);
        let moves = position.pseudo_moves(self.rules);
        let answering: Vec<Move> = moves.iter().filter(|&mv| answer.allows(mv)).collect();
        if answering.is_empty() {
            // Every move loses at once: all of them.
            return moves.iter().collect();
        }
        answering
    }
}

/// Which moves answer the opponent's threats.
#[derive(Clone, Copy)]
enum Answer {
    /// No threat: every move.
    Any,
    /// A move landing on one of `land` (taking a threatening pawn) or leaving one of `leave`
    /// (a home-rank pawn a threatening capture would land on).
    Only { land: u64, leave: u64 },
}

impl Answer {
    fn allows(self, mv: Move) -> bool {
        match self {
            Answer::Any => true,
            Answer::Only { land, leave } => mv.to.bit() & land != 0 || mv.from.bit() & leave != 0,
        }
    }
}

/// A placeholder filling the unused slots of a move array.
const NO_MOVE: Move = {
    let Some(a1) = crate::rules::Square::new(0, 0) else {
        panic!("a1 is a square")
    };
    Move { from: a1, to: a1 }
};

/// The moves of a node, given best first one at a time: a selection, not a sort, since a node
/// often stops after its first moves. Ties come in generation order.
struct Picker {
    moves: [Move; MAX_MOVES],
    scores: [u64; MAX_MOVES],
    count: usize,
}

impl Iterator for Picker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let live = &self.scores[..self.count];
        let best = (0..live.len()).rev().max_by_key(|&i| live[i])?;
        let mv = self.moves[best];
        self.moves.copy_within(best + 1..self.count, best);
        self.scores.copy_within(best + 1..self.count, best);
        self.count -= 1;
        Some(mv)
    }
}
