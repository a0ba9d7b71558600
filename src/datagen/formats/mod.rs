//! The files of a datagen run: the compact games file ([`games`]), the primary record from
//! which every other is made; the fixed-size binary records trainers read ([`binary`]); and
//! the text lines ([`text`]). `docs/formats/datagen.md` documents their bytes.
//!
//! What the formats share lives here: a move in one byte ([`encode_move`]) and a score in an
//! `i16` from White's point of view ([`score_value`]).

pub mod binary;
pub mod games;
pub mod text;

use crate::protocol::Score;
use crate::rules::{Color, Move, Position, Square};

/// The `i16` score of a position the engine reported no score for.
pub const NO_SCORE: i16 = i16::MIN;

/// The base of mate scores: a forced win in `p` plies is `MATE - p`, a forced loss in `p`
/// plies `-(MATE - p)` ([`Score::value`]).
pub use crate::protocol::MATE_VALUE as MATE;

/// The longest mate distance a score keeps, in plies (longer ones are written as this).
pub use crate::protocol::MAX_MATE_PLIES;

/// The largest centipawn score kept; larger ones are clamped to it, so that every centipawn
/// score is below every mate score (`MATE - MAX_MATE_PLIES`).
pub const MAX_CP: i32 = 30_000;

/// The `i16` of an engine's score, from the mover's point of view: centipawns clamped to
/// ±[`MAX_CP`]; `mate N` (N moves) as `±(MATE - plies)` with plies `2N - 1` for a win (N > 0)
/// and `2|N|` for a loss (N ≤ 0); [`NO_SCORE`] for none.
pub fn mover_score(score: Option<Score>) -> i16 {
    let value = match score {
        None => return NO_SCORE,
        Some(Score::Cp(cp)) => cp.clamp(-MAX_CP, MAX_CP),
        Some(mate) => mate.value(),
    };
    i16::try_from(value).unwrap_or(NO_SCORE)
}

/// `score` (the mover's point of view, as [`mover_score`]) from White's point of view: negated
/// when Black moves; [`NO_SCORE`] stays.
pub fn score_value(score: i16, mover: Color) -> i16 {
    match (score, mover) {
        (NO_SCORE, _) | (_, Color::White) => score,
        (score, Color::Black) => -score,
    }
}

/// The byte of a move of the side to move of `position`: the from-square (0 = a1 … 63 = h8)
/// in the low 6 bits, the direction in the high 2: 0 straight ahead, 1 diagonally towards the
/// a-file, 2 diagonally towards the h-file. `mv` must be a pawn step of the side to move.
pub fn encode_move(mv: Move) -> u8 {
    let direction = match i16::from(mv.to.file()) - i16::from(mv.from.file()) {
        0 => 0,
        -1 => 1,
        _ => 2,
    };
    mv.from.index() | (direction << 6)
}

/// The move of `byte` ([`encode_move`]) for the side to move of `position`; `None` when the
/// byte names no step on the board (direction 3, or off an edge).
pub fn decode_move(byte: u8, position: &Position) -> Option<Move> {
    let from = Square::from_index(byte & 0x3F)?;
    let file = match byte >> 6 {
        0 => from.file(),
        1 => from.file().checked_sub(1)?,
        2 => from.file() + 1,
        _ => return None,
    };
    let rank = match position.side_to_move() {
        Color::White => from.rank() + 1,
        Color::Black => from.rank().checked_sub(1)?,
    };
    Some(Move {
        from,
        to: Square::new(file, rank)?,
    })
}

/// The byte of a side in every format: 0 White, 1 Black.
pub fn color_byte(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The FNV-1a 32-bit hash of `bytes` (the games file's record checksum).
pub fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811C_9DC5_u32, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_map_to_one_documented_scale() {
        assert_eq!(mover_score(None), NO_SCORE);
        assert_eq!(mover_score(Some(Score::Cp(35))), 35);
        assert_eq!(mover_score(Some(Score::Cp(99_999))), 30_000);
        assert_eq!(mover_score(Some(Score::Mate(1))), 31_999);
        assert_eq!(mover_score(Some(Score::Mate(3))), 31_995);
        assert_eq!(mover_score(Some(Score::Mate(-2))), -31_996);
        assert_eq!(mover_score(Some(Score::Mate(0))), -32_000);
        assert_eq!(mover_score(Some(Score::Mate(100_000))), 31_000);
        assert_eq!(score_value(35, Color::Black), -35);
        assert_eq!(score_value(NO_SCORE, Color::Black), NO_SCORE);
    }

    #[test]
    fn every_legal_move_round_trips_through_its_byte() {
        for fen in [
            "startpos",
            "8/8/3p4/2P1P3/8/8/8/8 w",
            "8/8/3p4/2P1P3/8/8/8/8 b",
            "p7/8/8/8/8/8/8/7P b",
        ] {
            let position: Position = fen.parse().expect("fen");
            for rules in [
                crate::rules::Rules::CaptureOnly,
                crate::rules::Rules::Classic,
            ] {
                for mv in position.legal_moves(rules) {
                    assert_eq!(
                        decode_move(encode_move(mv), &position),
                        Some(mv),
                        "{fen} {mv}"
                    );
                }
            }
        }
        let start = Position::startpos();
        assert_eq!(encode_move("e2e3".parse().expect("move")), 12);
        assert_eq!(encode_move("e2d3".parse().expect("move")), 12 | 0x40);
        assert_eq!(encode_move("e2f3".parse().expect("move")), 12 | 0x80);
        assert_eq!(decode_move(0xC0 | 12, &start), None);
        assert_eq!(
            decode_move(0x40 | 8, &start),
            None,
            "a2 has no step towards the a-file"
        );
    }
}
