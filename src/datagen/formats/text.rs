//! The text positions file (`positions.txt`): one line per position, `<fen> | <score> |
//! <result>`, the convention of bullet's and other trainers' text data. The FEN is
//! bt-arena's (board and side to move); the score is White's view in centipawns (mate scores
//! as [`super::mover_score`] maps them); the result is White's: `1.0` White won, `0.0` Black
//! won (the proven result when the position is labelled by proof).

use super::binary::PositionRecord;
use crate::rules::{Board, Color, Position};

/// The line of `record`, a position of `board` (without its newline); `None` when its
/// bitboards are not a position of that board. The FEN is of the board's own shape, so a
/// line says its board.
pub fn line(record: &PositionRecord, board: Board) -> Option<String> {
    let side = match record.side {
        0 => Color::White,
        _ => Color::Black,
    };
    let position = Position::on_board(board, record.white, record.black, side).ok()?;
    let result = match record.result {
        2 => "1.0",
        1 => "0.5",
        _ => "0.0",
    };
    Some(format!("{position} | {} | {result}", record.score))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_fen_score_result() {
        let record = PositionRecord {
            white: 0xFFFF,
            black: 0xFFFF << 48,
            score: 12,
            result: 0,
            side: 0,
            ..PositionRecord::default()
        };
        assert_eq!(
            line(&record, Board::STANDARD).as_deref(),
            Some("pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w | 12 | 0.0")
        );
    }
}
