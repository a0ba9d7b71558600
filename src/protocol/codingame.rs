//! CodinGame's bot protocol, both directions: the lines of one turn (runner → bot) and the
//! bot's answer (bot → runner), as CodinGame's "Breakthrough" arena states them.
//!
//! For users (`docs/guide/codingame.md`): each turn a bot reads the opponent's last move (or
//! `None` when it moves first), the number of legal moves and the moves, one a line, and
//! answers one line: its move, optionally followed by a space and a short message.
//!
//! CodinGame does not document the order of the legal moves, and bots in the wild depend on it
//! (one public bot takes its colour from whether the first move of its first turn is `a2b3`).
//! [`MoveOrder::CodinGame`] is the order this crate gives by default: the one fact known
//! (White's first list starts with `a2b3`) fixes it only in part, and the rest is this crate's
//! choice, written down here and in the guide: the mover's pawns square by square from a1 to
//! h8 (rank 1 first, files a to h within a rank), and from each pawn the step towards the
//! h-file first, then the straight step, then the step towards the a-file.
//! [`MoveOrder::Sorted`] (alphabetical) and [`MoveOrder::Shuffled`] (a permutation that
//! depends on the position alone) are there to check that a bot does not depend on it.

use crate::rules::{Color, Move, Position, Rules};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The first line of a bot's first turn when it moves first.
pub const NO_LAST_MOVE: &str = "None";

/// The order of the legal moves of a turn (the engine key `moveorder=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveOrder {
    /// As CodinGame gives them, as far as known (see the module documentation): from-squares
    /// a1, b1, ..., h1, a2, ..., h8; from each, towards the h-file, straight, towards the
    /// a-file.
    #[default]
    #[serde(rename = "codingame")]
    CodinGame,
    /// Alphabetical, as text: `a2a3` before `a2b3` before `b2a3`.
    Sorted,
    /// A permutation drawn from the position (the same list for the same position, another
    /// for another): for checking that a bot depends on no order.
    Shuffled,
}

crate::named_enum!(MoveOrder, "move order", [CodinGame => "codingame", Sorted => "sorted", Shuffled => "shuffled"]);

impl MoveOrder {
    /// The legal moves of `position` under `rules` in this order.
    pub fn moves(self, position: &Position, rules: Rules) -> Vec<Move> {
        let mut moves: Vec<Move> = position.legal_moves(rules).iter().collect();
        match self {
            MoveOrder::CodinGame => {
                // The step towards the h-file first (0), then straight (1), then towards the
                // a-file (2).
                let direction =
                    |mv: &Move| 1 - (i16::from(mv.to.file()) - i16::from(mv.from.file()));
                moves.sort_by_key(|mv| (mv.from.index(), direction(mv)));
            }
            MoveOrder::Sorted => moves.sort_by_key(|mv| mv.to_ascii()),
            MoveOrder::Shuffled => {
                moves.sort_by_key(|mv| mv.to_ascii());
                let seed = position.pawns(Color::White).rotate_left(17)
                    ^ position.pawns(Color::Black)
                    ^ (position.side_to_move() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                fastrand::Rng::with_seed(seed).shuffle(&mut moves);
            }
        }
        moves
    }
}

/// One turn's input to a bot, as lines: the opponent's last move (`None` when there is none:
/// the bot moves first), the number of legal moves, and the moves, one a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The opponent's last move; `None` on White's first turn.
    pub last: Option<Move>,
    /// The legal moves, in the order given.
    pub moves: Vec<Move>,
}

impl Turn {
    /// The turn's lines, without line endings.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::with_capacity(self.moves.len() + 2);
        lines.push(
            self.last
                .map_or_else(|| NO_LAST_MOVE.to_string(), |mv| mv.to_string()),
        );
        lines.push(self.moves.len().to_string());
        lines.extend(self.moves.iter().map(Move::to_string));
        lines
    }

    /// The turn as text, each line ending in a newline: what the bot reads.
    pub fn text(&self) -> String {
        let mut text = String::new();
        for line in self.lines() {
            // Writing to a String cannot fail.
            let _ = writeln!(text, "{line}");
        }
        text
    }
}

/// A bot's answer line: the move as written (unchecked: the runner judges it) and the message
/// after it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The first word of the line.
    pub mv: String,
    /// The rest of the line after the white space that follows the move, trimmed; `None` when
    /// empty.
    pub message: Option<String>,
}

impl Answer {
    /// Reads an answer line: its first word is the move, the rest (trimmed) the message.
    /// `None` for a line with no word (empty or blank): no move at all.
    pub fn parse(line: &str) -> Option<Answer> {
        let line = line.trim();
        let (mv, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        if mv.is_empty() {
            return None;
        }
        let rest = rest.trim();
        Some(Answer {
            mv: mv.to_string(),
            message: (!rest.is_empty()).then(|| rest.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    fn texts(moves: &[Move]) -> Vec<String> {
        moves.iter().map(Move::to_string).collect()
    }

    #[test]
    fn whites_first_list_starts_with_a2b3_and_follows_the_documented_order() {
        let start = Position::startpos();
        let moves = texts(&MoveOrder::CodinGame.moves(&start, Rules::Classic));
        assert_eq!(moves.len(), 22);
        assert_eq!(
            &moves[..7],
            ["a2b3", "a2a3", "b2c3", "b2b3", "b2a3", "c2d3", "c2c3"]
        );
        assert_eq!(moves.last().map(String::as_str), Some("h2g3"));
        let capture_only = texts(&MoveOrder::CodinGame.moves(&start, Rules::CaptureOnly));
        assert_eq!(capture_only[..3], ["a2a3", "b2b3", "c2c3"]);
        let black = start.play(Rules::Classic, "a2b3".parse().unwrap()).unwrap();
        let moves = texts(&MoveOrder::CodinGame.moves(&black, Rules::Classic));
        // Rank 7 before rank 8 (whose pawns are blocked), towards the h-file first.
        assert_eq!(&moves[..3], ["a7b6", "a7a6", "b7c6"]);
        assert_eq!(moves.len(), 22);
    }

    #[test]
    fn sorted_and_shuffled_orders_hold_the_same_moves() {
        let start = Position::startpos();
        let sorted = texts(&MoveOrder::Sorted.moves(&start, Rules::Classic));
        assert_eq!(&sorted[..3], ["a2a3", "a2b3", "b2a3"]);
        let shuffled = texts(&MoveOrder::Shuffled.moves(&start, Rules::Classic));
        assert_ne!(shuffled, sorted);
        assert_eq!(
            shuffled,
            texts(&MoveOrder::Shuffled.moves(&start, Rules::Classic))
        );
        let mut again = shuffled.clone();
        again.sort();
        assert_eq!(again, sorted);
        assert_eq!("SORTED".parse::<MoveOrder>(), Ok(MoveOrder::Sorted));
        assert_eq!(
            "random".parse::<MoveOrder>().unwrap_err().to_string(),
            "unknown move order 'random' (expected codingame, sorted or shuffled)"
        );
    }

    #[test]
    fn a_turn_is_the_last_move_the_count_and_the_moves() {
        let turn = Turn {
            last: None,
            moves: vec!["a2b3".parse().unwrap(), "a2a3".parse().unwrap()],
        };
        assert_eq!(turn.text(), "None\n2\na2b3\na2a3\n");
        let turn = Turn {
            last: Some("h2h3".parse().unwrap()),
            moves: vec!["a7a6".parse().unwrap()],
        };
        assert_eq!(turn.lines(), ["h2h3", "1", "a7a6"]);
    }

    #[test]
    fn an_answer_is_a_move_and_an_optional_message() {
        assert_eq!(
            Answer::parse("a2a3"),
            Some(Answer {
                mv: "a2a3".into(),
                message: None
            })
        );
        assert_eq!(
            Answer::parse("a2a3   depth 7,  +0.35 \r"),
            Some(Answer {
                mv: "a2a3".into(),
                message: Some("depth 7,  +0.35".into())
            })
        );
        assert_eq!(Answer::parse("  "), None);
        assert_eq!(Answer::parse(""), None);
        assert_eq!(
            Answer::parse("hello world").map(|a| a.mv),
            Some("hello".into())
        );
    }
}
