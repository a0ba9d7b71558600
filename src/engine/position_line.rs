//! The `position` command of the game an engine is playing, kept from one `go` to the next:
//! a game's next `position` is the last one with the moves played since, so only those are
//! written (a game of `n` plies writes `O(n)` move texts instead of `O(n²)`).

use crate::protocol::{append_moves, write_position};
use crate::rules::{Move, Position};

/// The last `position` line sent and what it says.
#[derive(Debug, Default)]
pub(super) struct PositionLine {
    /// The start position and moves of `line`; `None` before the first.
    start: Option<Position>,
    moves: Vec<Move>,
    line: String,
}

impl PositionLine {
    /// The line of `position` from `start` after `moves`: the text of
    /// [`Command::Position`](crate::protocol::Command::Position)'s
    /// [`to_line`](crate::protocol::Command::to_line). The last line is extended when `moves`
    /// start with the moves it holds from the same start; otherwise it is written anew.
    pub(super) fn update(&mut self, start: &Position, moves: &[Move]) -> &str {
        let kept = self.moves.len();
        let extends = self.start.as_ref() == Some(start)
            && moves.len() >= kept
            && moves[..kept] == self.moves[..];
        if !extends {
            self.line.clear();
            self.moves.clear();
            self.start = Some(*start);
            write_position(&mut self.line, start);
        }
        let new = &moves[self.moves.len()..];
        append_moves(&mut self.line, new, !self.moves.is_empty());
        self.moves.extend_from_slice(new);
        &self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Command, Protocol};
    use crate::rules::Rules;

    #[test]
    fn the_kept_line_is_always_the_commands_own_text() {
        let mut kept = PositionLine::default();
        let opening: Position = "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b"
            .parse()
            .unwrap();
        let mut games = Vec::new();
        for start in [Position::startpos(), opening] {
            let mut position = start;
            let mut moves = Vec::new();
            for _ in 0..12 {
                let mv = position
                    .legal_moves(Rules::CaptureOnly)
                    .iter()
                    .last()
                    .unwrap();
                moves.push(mv);
                position = position.play_unchecked(mv);
            }
            games.push((start, moves));
        }
        // Each game move by move, then a game started afresh, a shorter one, the same again,
        // and another game from the same start (its moves differ).
        let mut calls: Vec<(Position, Vec<Move>)> = Vec::new();
        for (start, moves) in &games {
            for plies in 0..=moves.len() {
                calls.push((*start, moves[..plies].to_vec()));
            }
        }
        let (start, moves) = &games[0];
        calls.push((*start, moves[..3].to_vec()));
        calls.push((*start, moves[..3].to_vec()));
        let mut other = moves[..3].to_vec();
        other[2] = other[1];
        calls.push((*start, other));
        for (start, moves) in calls {
            let expected = Command::Position {
                start,
                moves: moves.clone(),
            }
            .to_line(Protocol::Ugi);
            assert_eq!(kept.update(&start, &moves), expected);
        }
    }
}
