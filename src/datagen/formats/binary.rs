//! The binary positions file (`positions.bin`): one 24-byte little-endian record per
//! position, `#[repr(C)]` without padding, so that a trainer's fixed-size reader (bullet's
//! `FixedSizeDataReader<T>`) loads it as an array of [`PositionRecord`].
//!
//! | offset | size | field | meaning |
//! |---|---|---|---|
//! | 0 | 8 | `white` | White's pawns, bit `8 · rank + file` (a1 = bit 0) |
//! | 8 | 8 | `black` | Black's pawns |
//! | 16 | 2 | `score` | `i16`, White's view ([`super::score_value`]); [`super::NO_SCORE`] none |
//! | 18 | 1 | `result` | 2 White won, 0 Black won (the proven result when `flag` has a distance) |
//! | 19 | 1 | `side` | side to move: 0 White, 1 Black |
//! | 20 | 2 | `ply` | `u16`, plies from the opening (random plies included) |
//! | 22 | 1 | `mv` | the move played ([`super::encode_move`]) |
//! | 23 | 1 | `flag` | low 6 bits: proof distance in plies (0: none); high 2: [`Ending`] |

use super::games::Ending;
use crate::rules::Color;

/// The size of a record, in bytes.
pub const RECORD_SIZE: usize = 24;

/// One position as trainers read it (see the module's table).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PositionRecord {
    /// White's pawns.
    pub white: u64,
    /// Black's pawns.
    pub black: u64,
    /// The score, White's view.
    pub score: i16,
    /// 2 when White won, 0 when Black won.
    pub result: u8,
    /// 0 White to move, 1 Black.
    pub side: u8,
    /// Plies from the opening.
    pub ply: u16,
    /// The move played.
    pub mv: u8,
    /// Proof distance (low 6 bits) and ending (high 2).
    pub flag: u8,
}

const _: () = assert!(std::mem::size_of::<PositionRecord>() == RECORD_SIZE);

impl PositionRecord {
    /// The `result` byte of a game `winner` won.
    pub fn result_of(winner: Color) -> u8 {
        match winner {
            Color::White => 2,
            Color::Black => 0,
        }
    }

    /// The `flag` byte: `proof` plies (at most 63; 0 for none) and the game's `ending`.
    pub fn flag_of(proof: u8, ending: Ending) -> u8 {
        (proof & 0x3F) | ((ending as u8) << 6)
    }

    /// The proof distance in plies (0: not proven).
    pub fn proof(&self) -> u8 {
        self.flag & 0x3F
    }

    /// The record's 24 bytes, little-endian.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut out = [0u8; RECORD_SIZE];
        out[0..8].copy_from_slice(&self.white.to_le_bytes());
        out[8..16].copy_from_slice(&self.black.to_le_bytes());
        out[16..18].copy_from_slice(&self.score.to_le_bytes());
        out[18] = self.result;
        out[19] = self.side;
        out[20..22].copy_from_slice(&self.ply.to_le_bytes());
        out[22] = self.mv;
        out[23] = self.flag;
        out
    }

    /// The record of 24 little-endian bytes.
    pub fn from_bytes(bytes: &[u8; RECORD_SIZE]) -> PositionRecord {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        PositionRecord {
            white: u64_at(0),
            black: u64_at(8),
            score: i16::from_le_bytes([bytes[16], bytes[17]]),
            result: bytes[18],
            side: bytes[19],
            ply: u16::from_le_bytes([bytes[20], bytes[21]]),
            mv: bytes[22],
            flag: bytes[23],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn the_record_is_24_bytes_without_padding_at_the_documented_offsets() {
        assert_eq!(std::mem::size_of::<PositionRecord>(), 24);
        assert_eq!(std::mem::align_of::<PositionRecord>(), 8);
        let offsets = [
            offset_of!(PositionRecord, white),
            offset_of!(PositionRecord, black),
            offset_of!(PositionRecord, score),
            offset_of!(PositionRecord, result),
            offset_of!(PositionRecord, side),
            offset_of!(PositionRecord, ply),
            offset_of!(PositionRecord, mv),
            offset_of!(PositionRecord, flag),
        ];
        assert_eq!(offsets, [0, 8, 16, 18, 19, 20, 22, 23]);
    }

    #[test]
    fn a_record_reads_back_from_its_bytes() {
        let record = PositionRecord {
            white: 0xFFFF,
            black: 0xFFFF << 48,
            score: -35,
            result: 2,
            side: 1,
            ply: 300,
            mv: 0x8C,
            flag: PositionRecord::flag_of(5, Ending::Resign),
        };
        let bytes = record.to_bytes();
        assert_eq!(&bytes[16..24], &[0xDD, 0xFF, 2, 1, 0x2C, 0x01, 0x8C, 0x45]);
        assert_eq!(PositionRecord::from_bytes(&bytes), record);
        assert_eq!(record.proof(), 5);
    }
}
