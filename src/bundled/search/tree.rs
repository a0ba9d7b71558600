//! The search proper: iterative deepening, the root, principal-variation search and
//! quiescence. See the parent module for what it does; the comments here say how.

use super::board::{self, can_win_at_once, winning_move};
use super::eval::{EvalKind, evaluate_with, static_eval};
use super::ordering::{Heuristics, MoveList, QUIET_LIMIT};
use super::score::{INFINITY, SearchScore, WIN_BOUND, loss_in, win_in};
use super::time::{Deadlines, deadlines};
use super::tt::{ScoreBound, TranspositionTable};
use super::weights::EvalWeights;
use super::{Limits, MAX_DEPTH, SearchReport, SearchResult};
use crate::rules::perft::{zobrist, zobrist_delta};
use crate::rules::{Move, Position, Rules};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The deepest ply a line can reach (iterations, extensions and quiescence included).
const MAX_PLY: usize = 128;
/// The stop flag and the clock are read every this many nodes.
const CHECK_EVERY: u64 = 1024;
/// Reverse futility pruning: a node `depth` plies from the horizon whose static evaluation
/// beats beta by this many centipawns a ply is cut.
const FUTILITY_MARGIN: i32 = 120;
/// At most this many plies of depth are pruned by reverse futility.
const FUTILITY_DEPTH: i32 = 3;
/// The most moves a node has (16 pawns, three steps each).
const MAX_MOVES: usize = 48;

/// One search: its limits, counters and per-search tables.
pub(crate) struct Search<'a> {
    rules: Rules,
    eval: EvalKind,
    weights: &'a EvalWeights,
    table: &'a mut TranspositionTable,
    stop: &'a AtomicBool,
    max_depth: u32,
    node_limit: u64,
    deadlines: Deadlines,
    start: Instant,
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    heuristics: Heuristics,
    /// The triangular principal-variation table: row `ply` is the line from that ply.
    pv: Vec<[Option<Move>; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
}

impl<'a> Search<'a> {
    /// A search under `rules` with evaluation `eval` and its `weights`, through `table`, within
    /// `limits`, reading `stop`. The clock starts now.
    pub fn new(
        rules: Rules,
        eval: EvalKind,
        weights: &'a EvalWeights,
        table: &'a mut TranspositionTable,
        limits: &Limits,
        stop: &'a AtomicBool,
    ) -> Search<'a> {
        Search {
            rules,
            eval,
            weights,
            table,
            stop,
            max_depth: limits.depth.map_or(MAX_DEPTH, |d| d.clamp(1, MAX_DEPTH)),
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            deadlines: deadlines(limits),
            start: Instant::now(),
            nodes: 0,
            seldepth: 0,
            aborted: false,
            heuristics: Heuristics::new(MAX_PLY),
            pv: vec![[None; MAX_PLY]; MAX_PLY],
            pv_len: [0; MAX_PLY],
        }
    }

    /// Iterative deepening from depth 1 until a limit, keeping the last completed iteration's
    /// result (or a better root move the aborted iteration proved).
    pub fn run(
        mut self,
        position: &Position,
        multipv: u32,
        report: &mut dyn FnMut(&SearchReport),
    ) -> SearchResult {
        let moves = position.legal_moves(self.rules);
        if moves.is_empty() {
            let over = evaluate_with(position, self.rules, self.eval, self.weights);
            return self.result(None, SearchScore::from_internal(over), 0, Vec::new());
        }
        if let Some(mv) = winning_move(position, self.rules) {
            let result = self.result(Some(mv), SearchScore::Win(1), 1, vec![mv]);
            report(&self.report(&result));
            return result;
        }
        let hash = zobrist(position);
        let tt_move = self.table.probe(hash, 0).and_then(|hit| hit.mv);
        let mut list = MoveList::new(position, moves, tt_move, &self.heuristics, 0, false);
        let mut root: Vec<Move> = std::iter::from_fn(|| list.pick())
            .map(|(mv, _)| mv)
            .collect();
        let fallback = root[0];
        let static_score =
            SearchScore::from_internal(static_eval(position, self.eval, self.weights));
        let mut best = self.result(Some(fallback), static_score, 0, vec![fallback]);
        for depth in 1..=self.max_depth {
            let score = self.root(position, hash, &mut root, depth as i32);
            if self.aborted {
                if best.best != Some(root[0]) {
                    // The unfinished iteration proved a better move than the last one's.
                    best = self.result(
                        Some(root[0]),
                        SearchScore::from_internal(score),
                        best.depth,
                        self.root_pv(),
                    );
                    // Its last report must be of the move it plays: the runner checks that
                    // the last PV starts with the bestmove (docs/guide/checks.md).
                    report(&self.report(&best));
                }
                break;
            }
            best = self.result(
                Some(root[0]),
                SearchScore::from_internal(score),
                depth,
                self.root_pv(),
            );
            report(&self.report(&best));
            self.other_lines(position, hash, &mut root, depth, multipv, report);
            if self.aborted || self.finished(best.score, depth) {
                break;
            }
        }
        self.result(best.best, best.score, best.depth, best.pv)
    }

    /// Lines 2 to `multipv` of the iteration of `depth` plies just completed: the root searched
    /// again without the moves of the lines before, each line's best moved to its place in
    /// `root`, and reported. An aborted search reports no further line.
    fn other_lines(
        &mut self,
        position: &Position,
        hash: u64,
        root: &mut [Move],
        depth: u32,
        multipv: u32,
        report: &mut dyn FnMut(&SearchReport),
    ) {
        let lines = (multipv as usize).min(root.len());
        for line in 1..lines {
            let score = self.root(position, hash, &mut root[line..], depth as i32);
            if self.aborted {
                return;
            }
            let result = self.result(
                Some(root[line]),
                SearchScore::from_internal(score),
                depth,
                self.root_pv(),
            );
            let mut line_report = self.report(&result);
            line_report.multipv = line as u32 + 1;
            report(&line_report);
        }
    }

    /// True when no further iteration should start after one of `depth` plies scoring `score`:
    /// a win or loss proven within the depth, or half of the soft time budget used.
    fn finished(&self, score: SearchScore, depth: u32) -> bool {
        let proven = match score {
            SearchScore::Win(plies) | SearchScore::Loss(plies) => plies <= depth,
            SearchScore::Cp(_) => false,
        };
        proven
            || self
                .deadlines
                .soft
                .is_some_and(|soft| self.start.elapsed() >= soft / 2)
    }

    /// The root of an iteration of `depth` plies: every move is searched (the first with a full
    /// window, the others with a null window and a re-search when they beat the best). The best
    /// move moves to the front of `moves` as soon as it is proven; the others keep their order.
    /// Returns the best score (when aborted, the best proven so far, or `-INFINITY`).
    fn root(&mut self, position: &Position, hash: u64, moves: &mut [Move], depth: i32) -> i32 {
        self.pv_len[0] = 0;
        let (mut alpha, beta) = (-INFINITY, INFINITY);
        let order = moves.to_vec();
        for (index, &mv) in order.iter().enumerate() {
            let child = position.play_unchecked(mv);
            let child_hash = child_hash(position, hash, mv);
            let mut score = if index == 0 {
                -INFINITY
            } else {
                -self.negamax(&child, child_hash, depth - 1, -alpha - 1, -alpha, 1)
            };
            if index == 0 || (score > alpha && !self.aborted) {
                score = -self.negamax(&child, child_hash, depth - 1, -beta, -alpha, 1);
            }
            if self.aborted {
                break;
            }
            if score > alpha {
                alpha = score;
                self.update_pv(0, mv);
                if let Some(at) = moves.iter().position(|&m| m == mv) {
                    moves[..=at].rotate_right(1);
                }
            }
        }
        alpha
    }

    /// Principal-variation search of `position` (hash `hash`) `depth` plies deep at `ply`,
    /// within `(alpha, beta)`; fail-soft.
    fn negamax(
        &mut self,
        position: &Position,
        hash: u64,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        if depth <= 0 {
            return self.quiesce(position, alpha, beta, ply);
        }
        if let Some(score) = self.enter(position, ply) {
            return score;
        }
        if ply >= MAX_PLY - 1 {
            return static_eval(position, self.eval, self.weights);
        }
        // Mate-distance pruning: no line from here ends sooner than the next plies allow.
        alpha = alpha.max(loss_in(ply + 2));
        beta = beta.min(win_in(ply + 1));
        if alpha >= beta {
            return alpha;
        }
        let pv_node = beta - alpha > 1;
        let hit = self.table.probe(hash, ply);
        if !pv_node && let Some(hit) = hit.filter(|hit| hit.cuts(depth, alpha, beta)) {
            return hit.score;
        }
        let threatened = board::threatened(position, self.rules);
        if !pv_node && !threatened && depth <= FUTILITY_DEPTH && beta.abs() < WIN_BOUND {
            let eval = static_eval(position, self.eval, self.weights);
            if eval - FUTILITY_MARGIN * depth >= beta {
                return eval;
            }
        }
        // A threat to parry extends the node by one ply, as chess engines extend checks.
        let search_depth = depth + i32::from(threatened);
        let side = position.side_to_move();
        let tt_move = hit.and_then(|hit| hit.mv);
        let moves = position.pseudo_moves(self.rules);
        let mut list = MoveList::new(position, moves, tt_move, &self.heuristics, ply, false);
        let alpha_start = alpha;
        let (mut best, mut best_move) = (-INFINITY, None);
        let mut quiets_tried = [None; MAX_MOVES];
        let (mut searched, mut quiet_count, mut unparried) = (0, 0, None);
        while let Some((mv, order)) = list.pick() {
            let child = position.play_unchecked(mv);
            if threatened && can_win_at_once(&child, self.rules) {
                unparried = unparried.or(Some(mv));
                continue;
            }
            let child_hash = child_hash(position, hash, mv);
            let quiet = order < QUIET_LIMIT;
            let reduction = if quiet && !threatened && search_depth >= 3 && searched >= 3 {
                1 + i32::from(search_depth >= 6 && searched >= 8)
            } else {
                0
            };
            let score = self.child_score(
                &child,
                child_hash,
                search_depth - 1,
                reduction,
                searched == 0,
                (alpha, beta),
                ply,
            );
            if self.aborted {
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    self.update_pv(ply, mv);
                    if alpha >= beta {
                        if quiet {
                            let tried = &quiets_tried[..quiet_count];
                            self.heuristics.reward(side, mv, tried, ply, search_depth);
                        }
                        break;
                    }
                }
            }
            if quiet {
                quiets_tried[quiet_count] = Some(mv);
                quiet_count += 1;
            }
        }
        best = self.count_unparried(position, ply, best, unparried);
        let bound = if best >= beta {
            ScoreBound::Lower
        } else if best > alpha_start {
            ScoreBound::Exact
        } else {
            ScoreBound::Upper
        };
        self.table.store(hash, ply, best_move, best, depth, bound);
        best
    }

    /// The score of a child `depth` plies deep: the first move with the full window; a later one
    /// with a null window, `reduction` plies shallower, re-searched at full depth when it beats
    /// alpha and with the full window when it also stays below beta (PVS, as in Stockfish).
    #[allow(clippy::too_many_arguments)]
    fn child_score(
        &mut self,
        child: &Position,
        child_hash: u64,
        depth: i32,
        reduction: i32,
        first: bool,
        (alpha, beta): (i32, i32),
        ply: usize,
    ) -> i32 {
        if first {
            return -self.negamax(child, child_hash, depth, -beta, -alpha, ply + 1);
        }
        let null_window = |search: &mut Self, depth| {
            -search.negamax(child, child_hash, depth, -alpha - 1, -alpha, ply + 1)
        };
        let mut score = null_window(self, depth - reduction);
        if score > alpha && reduction > 0 {
            score = null_window(self, depth);
        }
        if score > alpha && score < beta {
            score = -self.negamax(child, child_hash, depth, -beta, -alpha, ply + 1);
        }
        score
    }

    /// Quiescence search at `ply` within `(alpha, beta)`: the static evaluation stands unless a
    /// capture or a step onto the rank before the goal (a threat to win) beats it; under a
    /// threat, every parrying move is searched instead and there is no standing pat.
    fn quiesce(&mut self, position: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if let Some(score) = self.enter(position, ply) {
            return score;
        }
        if ply >= MAX_PLY - 1 {
            return static_eval(position, self.eval, self.weights);
        }
        let threatened = board::threatened(position, self.rules);
        let mut best = if threatened {
            -INFINITY
        } else {
            let stand_pat = static_eval(position, self.eval, self.weights);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            stand_pat
        };
        let moves = position.pseudo_moves(self.rules);
        let mut list = MoveList::new(position, moves, None, &self.heuristics, ply, !threatened);
        let mut unparried = None;
        while let Some((mv, _)) = list.pick() {
            let child = position.play_unchecked(mv);
            if threatened && can_win_at_once(&child, self.rules) {
                unparried = unparried.or(Some(mv));
                continue;
            }
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.count_unparried(position, ply, best, unparried)
    }

    /// The score of a node at `ply` whose searched moves score `best`, counting `unparried`, the
    /// first of the moves skipped because they leave a win at once to the opponent: they lose in
    /// 2 plies. When that is the best there is, the line shows the move and the winning reply.
    fn count_unparried(
        &mut self,
        position: &Position,
        ply: usize,
        best: i32,
        unparried: Option<Move>,
    ) -> i32 {
        let lost = loss_in(ply + 2);
        let Some(mv) = unparried.filter(|_| best < lost) else {
            return best;
        };
        let reply = winning_move(&position.play_unchecked(mv), self.rules);
        self.pv[ply][..2].copy_from_slice(&[Some(mv), reply]);
        self.pv_len[ply] = 1 + usize::from(reply.is_some());
        lost
    }

    /// What every node does first: clear its PV, check the limits (`Some(0)` once aborted),
    /// count itself, and score the end of the game: a win at once for the side to move, or
    /// a loss when it has no move.
    fn enter(&mut self, position: &Position, ply: usize) -> Option<i32> {
        self.pv_len[ply] = 0;
        if self.out_of_budget() {
            return Some(0);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        let us = position.side_to_move();
        let (own, enemy) = (position.pawns(us), position.pawns(us.opponent()));
        let size = position.board();
        let targets = board::targets(size, us, own, enemy, self.rules);
        if targets == [0; 3] {
            return Some(loss_in(ply));
        }
        if board::wins_at_once(size, us, targets, enemy) {
            if let Some(mv) = winning_move(position, self.rules) {
                self.pv[ply][0] = Some(mv);
                self.pv_len[ply] = 1;
            }
            return Some(win_in(ply + 1));
        }
        None
    }

    /// True once the search must stop: the node limit, or (read every [`CHECK_EVERY`] nodes)
    /// the stop flag or the hard deadline.
    fn out_of_budget(&mut self) -> bool {
        if !self.aborted {
            self.aborted = self.nodes >= self.node_limit
                || (self.nodes.is_multiple_of(CHECK_EVERY)
                    && (self.stop.load(Ordering::Relaxed)
                        || self
                            .deadlines
                            .hard
                            .is_some_and(|hard| self.start.elapsed() >= hard)));
        }
        self.aborted
    }

    /// Makes `mv` followed by the child's line the line at `ply`.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len.get(ply + 1).copied().unwrap_or(0);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[0] = Some(mv);
        if let Some(child) = tail.first() {
            row[1..=child_len].copy_from_slice(&child[..child_len]);
        }
        self.pv_len[ply] = child_len + 1;
    }

    fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn result(
        &self,
        best: Option<Move>,
        score: SearchScore,
        depth: u32,
        pv: Vec<Move>,
    ) -> SearchResult {
        SearchResult {
            best,
            score,
            depth,
            seldepth: self.seldepth as u32,
            nodes: self.nodes,
            time_ms: self.elapsed_ms(),
            pv,
        }
    }

    fn report(&self, result: &SearchResult) -> SearchReport {
        let micros = self.start.elapsed().as_micros().max(1);
        SearchReport {
            depth: result.depth,
            seldepth: result.seldepth.max(result.depth),
            score: result.score,
            nodes: result.nodes,
            nps: (u128::from(result.nodes) * 1_000_000 / micros) as u64,
            time_ms: result.time_ms,
            hashfull: self.table.hashfull(),
            pv: result.pv.clone(),
            multipv: 1,
        }
    }
}

/// The hash of the position after `mv` in `position`, whose hash is `hash`.
fn child_hash(position: &Position, hash: u64, mv: Move) -> u64 {
    hash ^ zobrist_delta(
        position.side_to_move(),
        mv.from.bit(),
        mv.to.bit(),
        position.is_capture(mv),
    )
}
