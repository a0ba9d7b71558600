//! Move generation: the moves of the side to move as three bitboards of targets ([`MoveSet`]),
//! and the compile-time sides ([`Side`]) the hot paths of perft and search use.

use super::{Color, Move, Position, Rules, Square};

/// The a-file as a bitboard.
pub(super) const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The h-file as a bitboard.
const FILE_H: u64 = FILE_A << 7;

/// The three ways a pawn steps forward, indexing [`MoveSet`]'s target sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Straight = 0,
    /// Diagonally towards the a-file.
    West = 1,
    /// Diagonally towards the h-file.
    East = 2,
}

pub(super) const STEPS: [Step; 3] = [Step::Straight, Step::West, Step::East];

impl Step {
    /// The change of square index for a step by `side`.
    const fn delta(self, side: Color) -> i8 {
        let forward = match side {
            Color::White => 8,
            Color::Black => -8,
        };
        forward
            + match self {
                Step::Straight => 0,
                Step::West => -1,
                Step::East => 1,
            }
    }

    /// The squares reached by stepping every pawn of `pawns` (owned by `side`) this way,
    /// dropping the pawns a diagonal step would take off the board.
    pub(super) fn advance(self, pawns: u64, side: Color) -> u64 {
        match side {
            Color::White => White::advance(self, pawns),
            Color::Black => Black::advance(self, pawns),
        }
    }
}

/// A side known at compile time, for the move-generation hot paths (perft, search).
pub(crate) trait Side {
    /// The side as a value.
    const COLOR: Color;
    /// The other side.
    type Opponent: Side;

    /// The squares reached by stepping every pawn of `pawns` this way, dropping the pawns a
    /// diagonal step would take off the board.
    #[inline(always)]
    fn advance(step: Step, pawns: u64) -> u64 {
        let movers = match step {
            Step::Straight => pawns,
            Step::West => pawns & !FILE_A,
            Step::East => pawns & !FILE_H,
        };
        let delta = step.delta(Self::COLOR);
        if delta > 0 {
            movers << delta
        } else {
            movers >> -delta
        }
    }

    /// The target squares of this side's moves, per [`Step`], with `own` its pawns, `enemy`
    /// the other side's and `squares` the board's squares ([`Board::squares`](super::Board::squares)),
    /// in a position where the game is not decided.
    ///
    /// A diagonal step east from the last file of a smaller board lands outside `squares`:
    /// classic rules mask it (capture-only ones need not: no enemy pawn stands there). A
    /// straight step never leaves the board in a position not decided: only a pawn on its goal
    /// rank would step past it.
    #[inline(always)]
    fn targets(own: u64, enemy: u64, rules: Rules, squares: u64) -> [u64; 3] {
        let diagonal_targets = match rules {
            Rules::CaptureOnly => enemy,
            Rules::Classic => squares & !own,
        };
        [
            Self::advance(Step::Straight, own) & !(own | enemy),
            Self::advance(Step::West, own) & diagonal_targets,
            Self::advance(Step::East, own) & diagonal_targets,
        ]
    }

    /// Calls `visit(from, to)` with the one-bit bitboards of each move in `targets`.
    #[inline(always)]
    fn for_each_move(targets: [u64; 3], mut visit: impl FnMut(u64, u64)) {
        for (step, mut set) in STEPS.into_iter().zip(targets) {
            let delta = step.delta(Self::COLOR);
            while set != 0 {
                let to = set & set.wrapping_neg();
                set &= set - 1;
                let from = if delta > 0 { to >> delta } else { to << -delta };
                visit(from, to);
            }
        }
    }
}

/// White as a compile-time [`Side`].
pub(crate) struct White;
/// Black as a compile-time [`Side`].
pub(crate) struct Black;

impl Side for White {
    const COLOR: Color = Color::White;
    type Opponent = Black;
}

impl Side for Black {
    const COLOR: Color = Color::Black;
    type Opponent = White;
}

impl Position {
    /// The legal moves under `rules`; empty when the game is over.
    #[inline]
    pub fn legal_moves(&self, rules: Rules) -> MoveSet {
        if self.is_decided() {
            MoveSet::empty(self.side_to_move())
        } else {
            self.pseudo_moves(rules)
        }
    }

    /// The moves of the side to move, ignoring whether the game is already decided.
    #[inline(always)]
    pub(crate) fn pseudo_moves(&self, rules: Rules) -> MoveSet {
        let side = self.side_to_move();
        let own = self.pawns(side);
        let enemy = self.pawns(side.opponent());
        let squares = self.board().squares();
        MoveSet {
            side,
            targets: match side {
                Color::White => White::targets(own, enemy, rules, squares),
                Color::Black => Black::targets(own, enemy, rules, squares),
            },
        }
    }
}

/// The legal moves of a position as three target bitboards (straight, west, east); the
/// from-square of each move follows from its target. Holds no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveSet {
    side: Color,
    targets: [u64; 3],
}

impl MoveSet {
    const fn empty(side: Color) -> MoveSet {
        MoveSet {
            side,
            targets: [0; 3],
        }
    }

    /// The number of moves.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        let [a, b, c] = self.targets;
        (a.count_ones() + b.count_ones() + c.count_ones()) as usize
    }

    /// True when there is no move.
    pub const fn is_empty(&self) -> bool {
        let [a, b, c] = self.targets;
        a | b | c == 0
    }

    /// True when `mv` is one of the moves.
    pub fn contains(&self, mv: Move) -> bool {
        self.iter().any(|m| m == mv)
    }

    /// The moves: straight steps, then west, then east captures, each by target square.
    #[inline]
    pub fn iter(&self) -> Moves {
        Moves {
            side: self.side,
            targets: self.targets,
            step: 0,
        }
    }
}

impl IntoIterator for MoveSet {
    type Item = Move;
    type IntoIter = Moves;
    fn into_iter(self) -> Moves {
        self.iter()
    }
}

/// Iterator over a [`MoveSet`].
#[derive(Clone, Debug)]
pub struct Moves {
    side: Color,
    targets: [u64; 3],
    step: usize,
}

impl Iterator for Moves {
    type Item = Move;

    #[inline(always)]
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the trailing zeros of a non-zero u64 are fewer than 64"
    )]
    fn next(&mut self) -> Option<Move> {
        while self.step < 3 {
            let targets = &mut self.targets[self.step];
            if *targets != 0 {
                let to = targets.trailing_zeros() as i8;
                *targets &= *targets - 1;
                let from = to - STEPS[self.step].delta(self.side);
                return Some(Move {
                    from: Square(from as u8),
                    to: Square(to as u8),
                });
            }
            self.step += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::tests::pos;

    #[test]
    fn start_moves_are_the_eight_straight_steps() {
        let moves: Vec<String> = Position::startpos()
            .legal_moves(Rules::CaptureOnly)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(
            moves,
            [
                "a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "h2h3"
            ]
        );
        assert_eq!(Position::startpos().legal_moves(Rules::Classic).len(), 22);
    }

    #[test]
    fn black_moves_down_the_board() {
        let position = pos("8/8/8/1p6/P7/8/8/8 b");
        let moves: Vec<String> = position
            .legal_moves(Rules::CaptureOnly)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(moves, ["b5b4", "b5a4"]);
        assert_eq!(position.legal_moves(Rules::Classic).len(), 3);
    }

    #[test]
    fn generated_moves_pass_the_move_checker_and_nothing_else_does() {
        // Every generated move is legal, and every from/to pair not generated is refused.
        let positions = [
            "startpos",
            "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w",
            "pppppppp/1p1p1p1p/2p1p3/p5p1/2P1P3/1P3P2/PP1P2PP/P1PPPPPP b",
        ];
        for text in positions {
            for rules in Rules::ALL {
                let position = pos(text);
                let moves = position.legal_moves(rules);
                for from in 0..64 {
                    for to in 0..64 {
                        let candidate = Move {
                            from: Square::from_index(from).unwrap(),
                            to: Square::from_index(to).unwrap(),
                        };
                        assert_eq!(
                            position.check_move(rules, candidate).is_ok(),
                            moves.contains(candidate),
                            "{text} {rules} {candidate}"
                        );
                    }
                }
            }
        }
    }
}
