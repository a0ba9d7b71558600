//! Move ordering: the transposition-table move first, then captures (of the most advanced enemy
//! pawns first), then steps onto the goal or the rank before it (threats), then the two killer moves of
//! the ply, then the other moves by their history score (Schaeffer's history heuristic with the
//! "gravity" update of Stockfish, which keeps scores within `±HISTORY_MAX`).

use crate::rules::{Color, Move, MoveSet, Position};

/// The most moves a position can have: 16 pawns, three steps each.
const MAX_MOVES: usize = 48;

const TT_MOVE: i32 = 4_000_000;
const CAPTURE: i32 = 3_000_000;
const THREAT: i32 = 2_500_000;
const KILLER: i32 = 2_000_000;
/// Moves ordered below this are plain quiet moves, candidates for reductions.
pub(crate) const QUIET_LIMIT: i32 = KILLER;
const HISTORY_MAX: i32 = 1 << 16;

/// The moves of a node with their ordering scores, handed out best first.
pub(crate) struct MoveList {
    moves: [(Option<Move>, i32); MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// The moves of `moves` in `position` scored for ordering at `ply`; with `tactical_only`,
    /// only the captures and the steps onto the rank before the goal (threats to win).
    pub fn new(
        position: &Position,
        moves: MoveSet,
        tt_move: Option<Move>,
        heuristics: &Heuristics,
        ply: usize,
        tactical_only: bool,
    ) -> MoveList {
        let mut list = MoveList {
            moves: [(None, 0); MAX_MOVES],
            len: 0,
        };
        for mv in moves {
            let capture = position.is_capture(mv);
            let score = heuristics.score(position, mv, capture, tt_move, ply);
            if tactical_only && score < THREAT {
                continue;
            }
            list.moves[list.len] = (Some(mv), score);
            list.len += 1;
        }
        list
    }

    /// The remaining move with the highest score (the first of equals, in generation order) and
    /// its score, removed from the list.
    pub fn pick(&mut self) -> Option<(Move, i32)> {
        let remaining = &mut self.moves[..self.len];
        let (mut best, mut best_score) = (0, i32::MIN);
        for (index, &(_, score)) in remaining.iter().enumerate() {
            if score > best_score {
                (best, best_score) = (index, score);
            }
        }
        if remaining.is_empty() {
            return None;
        }
        let (mv, score) = remaining[best];
        // Keep the generation order of the rest: shift instead of swapping.
        remaining[best..].rotate_left(1);
        self.len -= 1;
        mv.map(|mv| (mv, score))
    }
}

/// Killer moves and history scores, reset at the start of every search.
pub(crate) struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    /// `history[side][from][to]`.
    history: Box<[[[i32; 64]; 64]; 2]>,
}

impl Heuristics {
    /// Empty heuristics for searches of up to `max_ply` plies.
    pub fn new(max_ply: usize) -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; max_ply],
            history: Box::new([[[0; 64]; 64]; 2]),
        }
    }

    /// The ordering score of `mv` in `position` at `ply`.
    fn score(
        &self,
        position: &Position,
        mv: Move,
        capture: bool,
        tt_move: Option<Move>,
        ply: usize,
    ) -> i32 {
        let side = position.side_to_move();
        let board = position.board();
        // Ranks counted from the side's home rank, as on 8×8: the goal is 7 on every board.
        let relative_rank = |side, rank| board.relative_rank(side, rank) + 8 - board.ranks();
        let advance = i32::from(relative_rank(side, mv.to.rank()));
        if tt_move == Some(mv) {
            TT_MOVE
        } else if capture {
            // The enemy pawn nearest to our home rank first, then the most advanced capturer.
            let victim = i32::from(relative_rank(side.opponent(), mv.to.rank()));
            CAPTURE + 100 * victim + advance
        } else if advance >= 6 {
            // A step onto the goal (which the search plays before ordering) or next to it.
            THREAT + advance
        } else if let Some(slot) = self.killers[ply].iter().position(|&k| k == Some(mv)) {
            KILLER + 1 - slot as i32
        } else {
            self.history(side, mv)
        }
    }

    fn history(&self, side: Color, mv: Move) -> i32 {
        self.history[side.index()][usize::from(mv.from.index())][usize::from(mv.to.index())]
    }

    /// Records that the quiet move `mv` of `side` refuted a node at `ply` searched to `depth`
    /// plies, after the quiet moves `tried` failed to.
    pub fn reward(
        &mut self,
        side: Color,
        mv: Move,
        tried: &[Option<Move>],
        ply: usize,
        depth: i32,
    ) {
        let killers = &mut self.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let bonus = (depth * depth).min(HISTORY_MAX / 4);
        self.nudge(side, mv, bonus);
        for &other in tried.iter().flatten() {
            self.nudge(side, other, -bonus);
        }
    }

    /// Moves a history score towards `±HISTORY_MAX` by `bonus`, less the closer it already is.
    fn nudge(&mut self, side: Color, mv: Move, bonus: i32) {
        let entry = &mut self.history[side.index()][usize::from(mv.from.index())]
            [usize::from(mv.to.index())];
        *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn moves_come_out_tt_move_then_captures_then_threats_then_killers_then_history() {
        let position: Position = "8/1P6/8/8/3p4/2P1P3/8/8 w".parse().expect("position");
        let moves = position.legal_moves(Rules::CaptureOnly);
        let mv = |text: &str| text.parse::<Move>().expect("move");
        let mut heuristics = Heuristics::new(4);
        heuristics.reward(Color::White, mv("e3e4"), &[Some(mv("c3c4"))], 1, 3);
        let mut list = MoveList::new(&position, moves, Some(mv("c3c4")), &heuristics, 1, false);
        let order: Vec<String> = std::iter::from_fn(|| list.pick())
            .map(|(m, _)| m.to_string())
            .collect();
        assert_eq!(order, ["c3c4", "e3d4", "c3d4", "b7b8", "e3e4"]);
        let mut tactical = MoveList::new(&position, moves, None, &heuristics, 1, true);
        let tactical: Vec<String> = std::iter::from_fn(|| tactical.pick())
            .map(|(m, _)| m.to_string())
            .collect();
        assert_eq!(tactical, ["e3d4", "c3d4", "b7b8"]);
    }
}
