//! Principal variations replayed by the rules: the one PV checker, used by `check-engine`
//! (`output.pv-legal`) and by the game loop on every move ([`crate::game::claims`]).
//!
//! A PV is legal up to its first move that is not a move, is illegal in the position reached,
//! or comes after the end of the game (the rules give [`IllegalReason::GameOver`] for it).

use super::{IllegalReason, Move, MoveError, Position, Rules};

/// A PV as the rules read it: its legal prefix and, when it does not end there, the first
/// move that is not legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvReplay {
    /// The moves from the position up to (not including) the first bad one.
    pub legal: Vec<Move>,
    /// The first bad move, if any.
    pub bad: Option<BadPvMove>,
}

/// The first move of a PV that is not legal where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPvMove {
    /// 0-based index of the move in the PV (its number is one more).
    pub index: usize,
    /// The move as the engine wrote it.
    pub text: String,
    /// Why it is not legal.
    pub why: MoveError,
}

impl BadPvMove {
    /// True when the game was already over before this move (the PV runs past the end).
    pub fn after_the_end(&self) -> bool {
        matches!(&self.why, MoveError::Illegal(err) if matches!(err.reason, IllegalReason::GameOver(_)))
    }

    /// The reason in words: `not a move: ...` or the rules' reason.
    pub fn reason(&self) -> String {
        match &self.why {
            MoveError::Syntax(err) => format!("not a move: {err}"),
            MoveError::Illegal(err) => err.reason.to_string(),
        }
    }
}

/// Replays `pv` (moves as the engine wrote them) from `position` under `rules`, stopping at
/// the first move that is not legal. Costs one move check per PV move, no allocation beyond
/// the prefix.
pub fn replay(position: &Position, rules: Rules, pv: &[String]) -> PvReplay {
    let mut position = *position;
    let mut legal = Vec::with_capacity(pv.len());
    for (index, text) in pv.iter().enumerate() {
        match position.parse_move(rules, text) {
            Ok(mv) => {
                legal.push(mv);
                position = position.play_unchecked(mv);
            }
            Err(why) => {
                let text = text.clone();
                let bad = Some(BadPvMove { index, text, why });
                return PvReplay { legal, bad };
            }
        }
    }
    PvReplay { legal, bad: None }
}

/// Why `pv` is not a legal sequence from `position`, in words: `pv move 2 'a2a3' is illegal
/// after a2a3: no Black pawn on a2`; `None` when it is legal.
pub fn problem(position: &Position, rules: Rules, pv: &[String]) -> Option<String> {
    let bad = replay(position, rules, pv).bad?;
    let before = match bad.index {
        0 => "in the searched position".to_string(),
        index => format!("after {}", pv[..index].join(" ")),
    };
    Some(format!(
        "pv move {} '{}' is illegal {before}: {}",
        bad.index + 1,
        bad.text,
        bad.reason()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pv(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn the_legal_prefix_stops_at_the_first_bad_move_and_at_the_end() {
        let start = Position::startpos();
        let replay = replay(&start, Rules::CaptureOnly, &pv(&["a2a3", "h7h6", "a3a3"]));
        assert_eq!(replay.legal.len(), 2);
        let bad = replay.bad.unwrap();
        assert_eq!((bad.index, bad.text.as_str()), (2, "a3a3"));
        assert!(!bad.after_the_end());
        // A White pawn one step from rank 8: the PV's move after the win is past the end.
        let near: Position = "8/P7/8/8/8/8/7p/8 w".parse().unwrap();
        let replay = super::replay(&near, Rules::CaptureOnly, &pv(&["a7a8", "h2h1"]));
        assert_eq!(replay.legal.len(), 1);
        assert!(replay.bad.unwrap().after_the_end());
        assert_eq!(
            super::replay(&start, Rules::CaptureOnly, &pv(&["a2a3"])).bad,
            None
        );
    }
}
