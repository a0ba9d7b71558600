//! Move checking: whether a move is legal in a position under a rule set, and if not, why
//! ([`IllegalReason`]).

use super::movegen::{STEPS, Step};
use super::{Board, Color, Move, Outcome, ParseMoveError, Position, Rules, Square};
use std::fmt;

impl Position {
    /// Checks `mv` under `rules`.
    ///
    /// # Errors
    /// [`IllegalMove`] with the first reason that applies: the game is over, a square off the
    /// board (a smaller one than 8×8), no pawn of the side to move on the from-square, not one step forward, a straight step onto an occupied square,
    /// a diagonal step onto one's own pawn, or (under capture-only rules) onto an empty square.
    pub fn check_move(&self, rules: Rules, mv: Move) -> Result<(), IllegalMove> {
        self.illegality(rules, mv)
            .map_or(Ok(()), |reason| Err(IllegalMove { mv, reason }))
    }

    fn illegality(&self, rules: Rules, mv: Move) -> Option<IllegalReason> {
        if let Some(outcome) = self.outcome(rules) {
            return Some(IllegalReason::GameOver(outcome));
        }
        let board = self.board();
        if let Some(off) = [mv.from, mv.to]
            .into_iter()
            .find(|&square| !board.contains(square))
        {
            return Some(IllegalReason::OffBoard(off, board));
        }
        let side = self.side_to_move();
        if self.pawns(side) & mv.from.bit() == 0 {
            return Some(IllegalReason::NoPawn(side, mv.from));
        }
        let Some(step) = STEPS
            .into_iter()
            .find(|step| step.advance(mv.from.bit(), side) == mv.to.bit())
        else {
            return Some(IllegalReason::NotForward(side));
        };
        match (step, self.pawn_at(mv.to)) {
            (Step::Straight, None) => None,
            (Step::Straight, Some(_)) => Some(IllegalReason::Blocked(mv.to)),
            (_, Some(color)) if color == side => Some(IllegalReason::OntoOwnPawn(mv.to)),
            (_, Some(_)) => None,
            (_, None) if rules == Rules::CaptureOnly => Some(IllegalReason::DiagonalToEmpty),
            (_, None) => None,
        }
    }

    /// Parses `text` as a move and checks it under `rules`.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when `text` is not of the form `a2a3`, [`MoveError::Illegal`] with
    /// the reason when the move is illegal here.
    pub fn parse_move(&self, rules: Rules, text: &str) -> Result<Move, MoveError> {
        let mv: Move = text.parse().map_err(MoveError::Syntax)?;
        self.check_move(rules, mv).map_err(MoveError::Illegal)?;
        Ok(mv)
    }
}

/// Why a move is illegal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// The game is already over.
    GameOver(Outcome),
    /// A square of the move is off the board (one smaller than 8×8).
    OffBoard(Square, Board),
    /// The side to move has no pawn on the from-square.
    NoPawn(Color, Square),
    /// The move is not one step straight or diagonally forward for the side to move.
    NotForward(Color),
    /// A straight step onto an occupied square (straight steps never capture).
    Blocked(Square),
    /// A diagonal step onto a pawn of the side to move.
    OntoOwnPawn(Square),
    /// A diagonal step to an empty square, which capture-only rules forbid.
    DiagonalToEmpty,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::GameOver(outcome) => write!(f, "the game is already over: {outcome}"),
            IllegalReason::OffBoard(square, board) => write!(
                f,
                "{square} is off the {board} board (files a-{}, ranks 1-{})",
                board.last_file(),
                board.ranks()
            ),
            IllegalReason::NoPawn(side, square) => write!(f, "no {side} pawn on {square}"),
            IllegalReason::NotForward(side) => {
                write!(f, "not one step forward for {side}")
            }
            IllegalReason::Blocked(square) => write!(
                f,
                "straight step onto {square}, which is occupied (straight steps never capture)"
            ),
            IllegalReason::OntoOwnPawn(square) => {
                write!(
                    f,
                    "diagonal step onto {square}, which holds a pawn of the mover"
                )
            }
            IllegalReason::DiagonalToEmpty => {
                write!(
                    f,
                    "diagonal move to an empty square under capture-only rules"
                )
            }
        }
    }
}

/// An illegal move and why it is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: IllegalReason,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}: {}", self.mv, self.reason)
    }
}

impl std::error::Error for IllegalMove {}

/// Why a move string was refused by [`Position::parse_move`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not the shape of a move.
    Syntax(ParseMoveError),
    /// A move, but illegal here.
    Illegal(IllegalMove),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(err) => err.fmt(f),
            MoveError::Illegal(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for MoveError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::tests::{mv, pos};

    #[test]
    fn illegal_moves_say_why() {
        let start = Position::startpos();
        let illegal =
            |position: &Position, rules, text: &str| match position.parse_move(rules, text) {
                Err(MoveError::Illegal(err)) => err.reason,
                other => panic!("{text}: expected an illegal move, got {other:?}"),
            };
        let rules = Rules::CaptureOnly;
        assert_eq!(
            illegal(&start, rules, "a3a4"),
            IllegalReason::NoPawn(Color::White, mv("a3a4").from)
        );
        assert_eq!(
            illegal(&start, rules, "a7a6"),
            IllegalReason::NoPawn(Color::White, mv("a7a6").from)
        );
        assert_eq!(
            illegal(&start, rules, "a2a4"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "b2a1"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "a2c3"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "h2a4"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "a2b3"),
            IllegalReason::DiagonalToEmpty
        );
        assert_eq!(
            illegal(&start, Rules::Classic, "a1b2"),
            IllegalReason::OntoOwnPawn(mv("a1b2").to)
        );
        assert_eq!(
            illegal(&start, rules, "a1a2"),
            IllegalReason::Blocked(mv("a1a2").to)
        );
        let facing = pos("8/8/8/p7/P7/8/8/8 w");
        assert_eq!(
            illegal(&facing, Rules::Classic, "a4a5"),
            IllegalReason::Blocked(mv("a4a5").to)
        );
        assert_eq!(
            start.parse_move(rules, "a2"),
            Err(MoveError::Syntax(ParseMoveError::BadLength("a2".into())))
        );
        let message = start.parse_move(rules, "a2b3").unwrap_err().to_string();
        assert_eq!(
            message,
            "illegal move a2b3: diagonal move to an empty square under capture-only rules"
        );
    }

    #[test]
    fn a_move_off_a_smaller_board_is_illegal_with_its_square() {
        let board: Board = "6x6".parse().unwrap();
        let start = Position::start(board);
        for rules in Rules::ALL {
            let err = start.parse_move(rules, "f2g3").unwrap_err();
            assert_eq!(
                err.to_string(),
                "illegal move f2g3: g3 is off the 6x6 board (files a-f, ranks 1-6)"
            );
            assert_eq!(
                start.check_move(rules, mv("g2g3")).unwrap_err().reason,
                IllegalReason::OffBoard(mv("g2g3").from, board)
            );
        }
        // White on rank 5 of a 5-rank board has won: no step to rank 6 exists.
        let high = Position::from_fen("P3/4/4/1p2/4 b", "5x4".parse().unwrap()).unwrap();
        assert_eq!(
            high.outcome(Rules::Classic).unwrap().to_string(),
            "White reached rank 5"
        );
        assert!(
            Position::start(board)
                .parse_move(Rules::Classic, "f2e3")
                .is_ok()
        );
    }

    #[test]
    fn legal_moves_and_captures_are_accepted() {
        let position = pos("8/8/8/1p6/P7/8/8/8 w");
        assert_eq!(
            position.parse_move(Rules::CaptureOnly, "a4b5"),
            Ok(mv("a4b5"))
        );
        assert!(position.is_capture(mv("a4b5")));
        assert!(!position.is_capture(mv("a4a5")));
        assert_eq!(
            Position::startpos().parse_move(Rules::Classic, "a2b3"),
            Ok(mv("a2b3"))
        );
        let after = position.play(Rules::CaptureOnly, mv("a4b5")).unwrap();
        assert_eq!(after.to_string(), "8/8/8/1P6/8/8/8/8 b");
    }

    #[test]
    fn a_finished_game_has_no_legal_moves() {
        for text in [
            "1P6/8/8/8/8/8/p7/8 b",
            "8/8/8/8/8/8/P7/8 b",
            "P7/8/8/8/8/8/8/8 w",
        ] {
            for rules in Rules::ALL {
                let position = pos(text);
                assert!(position.legal_moves(rules).is_empty(), "{text}");
                let reason = position.check_move(rules, mv("a2a3")).unwrap_err().reason;
                assert!(matches!(reason, IllegalReason::GameOver(_)), "{text}");
            }
        }
        let over = pos("1P6/8/8/8/8/8/p7/8 b")
            .parse_move(Rules::CaptureOnly, "a2a1")
            .unwrap_err()
            .to_string();
        assert_eq!(
            over,
            "illegal move a2a1: the game is already over: White reached rank 8"
        );
    }
}
