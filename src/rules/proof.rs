//! Proofs of short forced wins: an exact, bounded AND/OR search on the reference rules, the
//! engine of proof adjudication.
//!
//! [`Prover::prove`] answers, for the side to move of a position that is not over, one of
//!
//! * [`Verdict::Win`]: it has a forced win within `plies` plies: a move such that every reply
//!   leaves it a forced win, down to a goal-rank arrival, the capture of the last enemy pawn,
//!   or the opponent left without a legal move on its turn. The win is the shortest one, and
//!   the [`ProvenLine`] plays it against the longest defence.
//! * [`Verdict::Loss`]: every move it has leaves the opponent such a win within `plies - 1`
//!   plies (it is lost within `plies` plies); the line is its longest defence.
//! * [`Verdict::Open`]: neither (exactly: no forced result within `plies` plies).
//! * [`Verdict::Unknown`]: the node budget ran out first. Nothing is guessed.
//!
//! Depths are counted in plies everywhere: a win "in 1 ply" is a winning move now, "in 3
//! plies" a move, any reply, then a winning move. Breakthrough has no draws and no repetitions,
//! so a proof is final whatever the engines would have played.
//!
//! # The search
//!
//! `wins(p, d)`: the side to move in `p` wins within `d` plies. It does at once when one of its
//! moves ends the game ([`Prover`]'s "winning move": onto the goal rank, taking the last enemy
//! pawn, or leaving the opponent without a move). Otherwise, for `d >= 3`, when some move `m`
//! makes `defence_fails(p + m, d - 2)`: the opponent has no winning move and every one of its
//! replies `r` gives `wins(p + m + r, d - 2)`. The root asks `wins` for `d = 1, 3, 5, ...` (the
//! first success is the shortest win), then `defence_fails(p, d - 1)` for `d = 2, 4, ...` (a
//! loss within `d`; the first success is the longest defence).
//!
//! Exact pruning (each argued below and checked against a plain minimax by the tests):
//!
//! * **Race bound**: a side with `k` moves left (`d = 2k - 1`) can only win if it has a pawn
//!   within `k` ranks of its goal, or the opponent has at most `k` pawns, or (capture-only
//!   rules) it can block the opponent completely: see `Prover::may_win`.
//! * **No stalemate under classic rules**: the opponent's most advanced pawn always has a
//!   diagonal step (to an empty square or a capture; no pawn of its own stands further
//!   ahead), so a side never runs out of moves and that ending is looked for only under
//!   capture-only rules.
//! * **Transpositions**: proven facts (`wins` and `defence_fails` true or false at a depth)
//!   are kept in a table keyed by the position, reused between depths and, in one
//!   [`Prover`], between calls: they hold whatever the budget. The table has at most
//!   [`TABLE_SLOTS`] slots; once full, a new fact takes the place of an old one, which is
//!   proven again if it is needed again.
//!
//! # Cost
//!
//! One call examines at most `budget` positions (nodes) for the verdict, then at most `budget`
//! more to find the longest defence for the line (past that the line follows the proof's own
//! moves and may end sooner than the proven length). A node is a few bitboard operations and a
//! table probe; `cargo bench --bench harness` measures the cost per move of a game. With
//! [`Prover::with_time_limit`] a call also stops at its time limit (twice: the verdict, then the
//! line). Memory is at most the table's 8 MiB ([`TABLE_SLOTS`]), whatever the budget: the
//! search itself is a recursion of at most 254 plies.

use super::{Color, Move, Position, Reason, Rules, Square};
use std::fmt;
use std::time::{Duration, Instant};

/// The node budget per call of proof adjudication unless the user chooses one. Measured after
/// every move of 40 games per rule set between bundled searchers (`cargo bench --bench harness
/// -- proof`): at 7 plies it left 1 answer of 4,870 unknown (classic rules; none under
/// capture-only), at about 0.1 ms a move on average and at most a few ms.
pub const DEFAULT_BUDGET: u64 = 20_000;

/// The most slots the table of proven facts has, whatever the node budget: 2^18 slots of 32
/// bytes, 8 MiB per prover (one per game in play). The table starts at [`FIRST_SLOTS`] and
/// doubles as it fills; at its most, a new fact takes the slot of one it collides with. Facts
/// are exact, so one lost costs only the time to prove it again.
pub const TABLE_SLOTS: usize = 1 << 18;

/// The slots of a new table (128 KiB).
const FIRST_SLOTS: usize = 1 << 12;

/// The slots a position may take: the [`WAYS`] slots of its bucket.
const WAYS: usize = 4;

/// How many nodes pass between two looks at the clock when a call has a time limit.
const CLOCK_NODES: u64 = 1 << 10;

/// The answer of [`Prover::prove`] for the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move has a forced win within the plies asked.
    Win(ProvenLine),
    /// The side to move is lost within the plies asked.
    Loss(ProvenLine),
    /// No forced result within the plies asked, either way (exact).
    Open,
    /// The node budget ran out before an answer.
    Unknown,
}

impl Verdict {
    /// The proven line of a win or a loss; `None` for [`Verdict::Open`] and
    /// [`Verdict::Unknown`].
    pub fn line(&self) -> Option<&ProvenLine> {
        match self {
            Verdict::Win(line) | Verdict::Loss(line) => Some(line),
            Verdict::Open | Verdict::Unknown => None,
        }
    }
}

/// A proven result: who wins, in how many plies at most against any defence, and one line of
/// play that shows it (the fastest win against the longest defence).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenLine {
    /// The side that wins.
    pub winner: Color,
    /// The proven length in plies: the winner wins within this many plies, whatever the loser
    /// plays; and not sooner against the best defence.
    pub plies: u32,
    /// Moves from the position asked about to the end of the game. Its length is `plies` unless
    /// the budget for finding the longest defence ran out (then it may be shorter).
    pub line: Vec<Move>,
    /// How the line ends.
    pub ending: Reason,
}

impl fmt::Display for ProvenLine {
    /// `White wins in 5 plies: e6e7 d8e7 f6f7 e7f6 f7f8` (the form of the PGN comment).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.plies == 1 { "ply" } else { "plies" };
        write!(f, "{} wins in {} {unit}:", self.winner, self.plies)?;
        for mv in &self.line {
            write!(f, " {mv}")?;
        }
        Ok(())
    }
}

/// The search ran out of nodes.
struct OutOfBudget;

/// The most moves a position can have: 16 pawns, three steps each.
const MAX_MOVES: usize = 48;

/// A placeholder filling the unused slots of a move array.
const NO_MOVE: Move = Move {
    from: Square(0),
    to: Square(0),
};

/// A proof search under one rule set: its table of proven facts, kept from one call to the
/// next (they are exact, whatever the budget), and its node budget per call.
///
/// ```
/// use bt_arena::rules::proof::{Prover, Verdict};
/// use bt_arena::rules::{Color, Rules};
///
/// // White's pawn on e6 walks in: Black's a-pawn is too far away to stop it or to win first.
/// let position = "8/p7/4P3/8/8/8/8/8 w".parse()?;
/// let mut prover = Prover::new(Rules::CaptureOnly, 10_000);
/// let Verdict::Win(proof) = prover.prove(&position, 5) else { panic!("a win") };
/// assert_eq!((proof.winner, proof.plies), (Color::White, 3));
/// assert_eq!(proof.to_string(), "White wins in 3 plies: e6e7 a7a6 e7e8");
/// // Two plies are not enough; the other side, to move, is lost within 4.
/// assert_eq!(prover.prove(&position, 2), Verdict::Open);
/// let black_to_move = "8/p3P3/8/8/8/8/8/8 b".parse()?;
/// assert!(matches!(prover.prove(&black_to_move, 4), Verdict::Loss(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Prover {
    rules: Rules,
    budget: u64,
    /// The longest a call may take (see [`Prover::with_time_limit`]).
    time_limit: Option<Duration>,
    nodes: u64,
    limit: u64,
    /// When the current call must give up, with a time limit.
    deadline: Option<Instant>,
    table: Table,
}

impl Prover {
    /// A prover under `rules` that examines at most `budget` nodes per call for the verdict
    /// (and as many more for the line; see the module documentation).
    pub fn new(rules: Rules, budget: u64) -> Prover {
        Prover {
            rules,
            budget,
            time_limit: None,
            nodes: 0,
            limit: 0,
            deadline: None,
            table: Table::new(),
        }
    }

    /// The prover with a time limit per call besides its node budget: past `limit` (by the
    /// monotonic clock, looked at every 1024 nodes) the verdict is [`Verdict::Unknown`], and a
    /// proven line stops after as long again (see the module documentation). Proofs are then
    /// no longer a function of the position alone: a slower machine may give up where a faster
    /// one proves.
    pub fn with_time_limit(mut self, limit: Duration) -> Prover {
        self.time_limit = Some(limit);
        self
    }

    /// The rule set.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The node budget per call.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// Nodes examined by the last call of [`prove`](Prover::prove), the line's included.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the side to move of `position` wins, or is lost, within `plies` plies (see
    /// [`Verdict`]). A position that is already over, or `plies` 0, is [`Verdict::Open`]: the
    /// rules, not a proof, end such a game.
    pub fn prove(&mut self, position: &Position, plies: u32) -> Verdict {
        self.nodes = 0;
        self.limit = self.budget;
        self.deadline = self.time_limit.map(|limit| Instant::now() + limit);
        if plies == 0 || position.outcome(self.rules).is_some() {
            return Verdict::Open;
        }
        let plies = plies.min(u32::from(u8::MAX - 1));
        match self.verdict(position, plies) {
            Ok(Some((true, depth))) => {
                self.for_the_line();
                Verdict::Win(self.line(position, depth, true))
            }
            Ok(Some((false, depth))) => {
                self.for_the_line();
                Verdict::Loss(self.line(position, depth, false))
            }
            Ok(None) => Verdict::Open,
            Err(OutOfBudget) => Verdict::Unknown,
        }
    }

    /// `(true, d)` for the shortest win `d <= plies`, `(false, d)` for the longest defence of a
    /// loss within `plies`, `None` for neither.
    fn verdict(
        &mut self,
        position: &Position,
        plies: u32,
    ) -> Result<Option<(bool, u32)>, OutOfBudget> {
        for depth in (1..=plies).step_by(2) {
            if self.wins(position, depth)? {
                return Ok(Some((true, depth)));
            }
        }
        for depth in (2..=plies).step_by(2) {
            if self.defence_fails(position, depth - 1)? {
                return Ok(Some((false, depth)));
            }
        }
        Ok(None)
    }

    /// A budget for the line of a proven verdict: as many nodes again, and as long again.
    fn for_the_line(&mut self) {
        self.limit = self.nodes.saturating_add(self.budget);
        self.deadline = self.time_limit.map(|limit| Instant::now() + limit);
    }

    /// Counts a node.
    fn visit(&mut self) -> Result<(), OutOfBudget> {
        if self.nodes >= self.limit {
            return Err(OutOfBudget);
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_NODES)
            && self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
        {
            // No more nodes in this call (nor in the line's budget, which starts afresh).
            self.limit = self.nodes;
            return Err(OutOfBudget);
        }
        Ok(())
    }

    /// Whether the side to move of `position` (not over) wins within `depth` plies.
    fn wins(&mut self, position: &Position, depth: u32) -> Result<bool, OutOfBudget> {
        self.visit()?;
        if winning_move(position, self.rules).is_some() {
            return Ok(true);
        }
        if depth < 3 || !may_win(position, position.side_to_move(), depth, self.rules) {
            return Ok(false);
        }
        let facts = self.facts(position);
        if u32::from(facts.win) <= depth {
            return Ok(true);
        }
        if u32::from(facts.no_win) >= depth {
            return Ok(false);
        }
        let mut won = false;
        for mv in self.ordered_moves(position, Role::Attacker) {
            if self.defence_fails(&position.play_unchecked(mv), depth - 2)? {
                won = true;
                break;
            }
        }
        let facts = self.table.entry(position);
        let depth = depth_u8(depth);
        if won {
            facts.win = facts.win.min(depth);
        } else {
            facts.no_win = facts.no_win.max(depth);
        }
        Ok(won)
    }

    /// Whether every move of the side to move of `position` (not over) leaves the opponent a
    /// win within `depth` plies: the side to move is lost within `depth + 1` plies.
    fn defence_fails(&mut self, position: &Position, depth: u32) -> Result<bool, OutOfBudget> {
        self.visit()?;
        // The side to move's moves never bring the opponent's race bound within reach (they
        // move none of its pawns, take none of their own, and a capture takes one enemy pawn
        // for at most one file less).
        let attacker = position.side_to_move().opponent();
        if !may_win(position, attacker, depth, self.rules)
            || winning_move(position, self.rules).is_some()
        {
            return Ok(false);
        }
        let facts = self.facts(position);
        if u32::from(facts.lost) <= depth {
            return Ok(true);
        }
        if u32::from(facts.not_lost) >= depth {
            return Ok(false);
        }
        // No move of the side to move ends the game, so every reply leaves a position that is
        // not over and whose side to move has a move.
        let mut failed = true;
        for mv in self.ordered_moves(position, Role::Defender) {
            if !self.wins(&position.play_unchecked(mv), depth)? {
                failed = false;
                break;
            }
        }
        let facts = self.table.entry(position);
        let depth = depth_u8(depth);
        if failed {
            facts.lost = facts.lost.min(depth);
        } else {
            facts.not_lost = facts.not_lost.max(depth);
        }
        Ok(failed)
    }

    /// What the table knows about `position`.
    fn facts(&self, position: &Position) -> Facts {
        self.table.get(position)
    }

    /// The moves of `position`, the most promising first: for the attacker, captures and
    /// pawns nearest their goal; for the defender, captures of the most advanced enemy pawns,
    /// then its own pawns nearest their goal.
    fn ordered_moves(&self, position: &Position, role: Role) -> Picker {
        let side = position.side_to_move();
        let enemy = position.pawns(side.opponent());
        let board = position.board();
        let mut picker = Picker {
            moves: [NO_MOVE; MAX_MOVES],
            scores: [0; MAX_MOVES],
            count: 0,
        };
        for mv in position.pseudo_moves(self.rules) {
            let advance = board.relative_rank(side, mv.to.rank());
            let score = if mv.to.bit() & enemy != 0 {
                // A capture: how far the captured pawn had come towards its own goal.
                match role {
                    Role::Attacker => 16 + advance,
                    Role::Defender => 16 + (board.ranks() - 1 - advance),
                }
            } else {
                advance
            };
            picker.moves[picker.count] = mv;
            picker.scores[picker.count] = score;
            picker.count += 1;
        }
        picker
    }

    /// The line of a proven result at the root: `won` with the shortest win in `depth` plies,
    /// else lost with the longest defence of `depth` plies. Each winning move is one the table
    /// proved; each defence is the reply that delays the win most (searched within the
    /// remaining budget; past it, the first reply the proof refuted).
    fn line(&mut self, position: &Position, depth: u32, won: bool) -> ProvenLine {
        let winner = if won {
            position.side_to_move()
        } else {
            position.side_to_move().opponent()
        };
        let mut line = Vec::new();
        let mut position = *position;
        // Plies the winner still needs, counted from a position where the winner moves.
        let mut left = depth;
        if !won && let Some(mv) = self.longest_defence(&position, depth - 1) {
            line.push(mv);
            position = position.play_unchecked(mv);
            left = depth - 1;
        }
        loop {
            if let Some(mv) = winning_move(&position, self.rules) {
                line.push(mv);
                position = position.play_unchecked(mv);
                break;
            }
            let Some(mv) = self.proven_move(&position, left) else {
                break;
            };
            line.push(mv);
            position = position.play_unchecked(mv);
            let Some(reply) = self.longest_defence(&position, left - 2) else {
                break;
            };
            line.push(reply);
            position = position.play_unchecked(reply);
            left -= 2;
        }
        let ending = position
            .outcome(self.rules)
            .map_or(Reason::GoalRank, |outcome| outcome.reason);
        ProvenLine {
            winner,
            plies: depth,
            line,
            ending,
        }
    }

    /// A move of the winner in `position` after which the defence fails within `left - 2`
    /// plies, as the proof found it (searched again if the table lost it).
    fn proven_move(&mut self, position: &Position, left: u32) -> Option<Move> {
        if left < 3 {
            return None;
        }
        let mut fallback = None;
        for mv in self.ordered_moves(position, Role::Attacker) {
            let after = position.play_unchecked(mv);
            if u32::from(self.facts(&after).lost) <= left - 2 {
                return Some(mv);
            }
            if fallback.is_none() && matches!(self.defence_fails(&after, left - 2), Ok(true)) {
                fallback = Some(mv);
            }
        }
        fallback
    }

    /// The loser's reply in `position` that puts off the winner's win longest, the winner
    /// needing at most `left` plies after it: the reply whose shortest win is the longest
    /// (searched while the budget lasts, else the first reply).
    fn longest_defence(&mut self, position: &Position, left: u32) -> Option<Move> {
        let mut best: Option<(u32, Move)> = None;
        for mv in self.ordered_moves(position, Role::Defender) {
            let after = position.play_unchecked(mv);
            let mut shortest = 0;
            for depth in (1..=left).step_by(2) {
                match self.wins(&after, depth) {
                    Ok(true) => {
                        shortest = depth;
                        break;
                    }
                    Ok(false) => {}
                    Err(OutOfBudget) => return best.map(|(_, mv)| mv).or(Some(mv)),
                }
            }
            if best.is_none_or(|(longest, _)| shortest > longest) {
                best = Some((shortest, mv));
            }
        }
        best.map(|(_, mv)| mv)
    }
}

/// The moves of a node, given best first one at a time: a selection, not a sort, since a
/// node often stops after its first moves. Ties come in generation order.
struct Picker {
    moves: [Move; MAX_MOVES],
    scores: [u8; MAX_MOVES],
    count: usize,
}

impl Iterator for Picker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let live = &self.scores[..self.count];
        let best = (0..live.len()).rev().max_by_key(|&i| live[i])?;
        let mv = self.moves[best];
        // The rest keep their order.
        self.moves.copy_within(best + 1..self.count, best);
        self.scores.copy_within(best + 1..self.count, best);
        self.count -= 1;
        Some(mv)
    }
}

/// Which side of the proof a move ordering is for.
#[derive(Clone, Copy)]
enum Role {
    /// The side trying to win.
    Attacker,
    /// The side trying not to lose in time.
    Defender,
}

mod bounds;
mod table;
pub(crate) use bounds::{depth_u8, may_win, near_goal, winning_move};
use table::{Facts, Table};

#[cfg(test)]
mod tests;
