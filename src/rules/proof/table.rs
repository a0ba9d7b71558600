//! The table of proven facts of the proof search: positions and what is proven about them,
//! in buckets of [`WAYS`] slots, growing up to [`TABLE_SLOTS`].

use super::{FIRST_SLOTS, TABLE_SLOTS, WAYS};
use crate::rules::{Color, Position};

/// What the table knows about a position (its side to move), depths in plies: `wins` true at
/// every depth `>= win`, false at every depth `<= no_win`; `defence_fails` likewise.
#[derive(Clone, Copy)]
pub(super) struct Facts {
    pub(super) win: u8,
    pub(super) no_win: u8,
    pub(super) lost: u8,
    pub(super) not_lost: u8,
}

impl Default for Facts {
    fn default() -> Self {
        Facts {
            win: u8::MAX,
            no_win: 0,
            lost: u8::MAX,
            not_lost: 0,
        }
    }
}

/// The hash of a position: its two bitboards and side folded into one word, mixed by one
/// multiplication.
pub(super) fn hash(position: &Position) -> u64 {
    let white = position.pawns(Color::White);
    let black = position.pawns(Color::Black);
    let side = u64::from(position.side_to_move() == Color::Black);
    let word = white ^ black.rotate_left(29) ^ side.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let h = word.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^ (h >> 32)
}

/// One slot of the [`Table`]: a position and its facts, or nothing.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    position: Option<Position>,
    facts: Facts,
}

impl Slot {
    const EMPTY: Slot = Slot {
        position: None,
        facts: Facts {
            win: u8::MAX,
            no_win: 0,
            lost: u8::MAX,
            not_lost: 0,
        },
    };
}

/// The proven facts, by position: at most [`TABLE_SLOTS`] slots in buckets of [`WAYS`]
/// (see [`TABLE_SLOTS`]).
pub(super) struct Table {
    pub(super) slots: Vec<Slot>,
    /// Slots holding a position.
    pub(super) used: usize,
    /// Facts dropped for want of room, since the prover was made.
    pub(super) evicted: u64,
}

impl Table {
    pub(super) fn new() -> Table {
        Table {
            slots: vec![Slot::EMPTY; FIRST_SLOTS],
            used: 0,
            evicted: 0,
        }
    }

    /// The first slot of `position`'s bucket.
    fn bucket(&self, position: &Position) -> usize {
        // The table's size is a power of two, at least WAYS: the masked hash fits.
        let mask = (self.slots.len() - 1) & !(WAYS - 1);
        usize::try_from(hash(position) & mask as u64).unwrap_or_default()
    }

    /// The facts known about `position` (none: the defaults).
    pub(super) fn get(&self, position: &Position) -> Facts {
        let start = self.bucket(position);
        self.slots[start..start + WAYS]
            .iter()
            .find(|slot| slot.position.as_ref() == Some(position))
            .map_or_else(Facts::default, |slot| slot.facts)
    }

    /// The facts of `position`, to update: its slot, else a free one of its bucket (the table
    /// grown first when half full and below [`TABLE_SLOTS`]), else, at the table's most, the
    /// slot of another position of the bucket, whose facts are dropped.
    pub(super) fn entry(&mut self, position: &Position) -> &mut Facts {
        if 2 * self.used >= self.slots.len() && self.slots.len() < TABLE_SLOTS {
            self.grow();
        }
        loop {
            let start = self.bucket(position);
            let bucket = &self.slots[start..start + WAYS];
            if let Some(at) = bucket
                .iter()
                .position(|slot| slot.position.as_ref() == Some(position))
            {
                return &mut self.slots[start + at].facts;
            }
            let at = match bucket.iter().position(|slot| slot.position.is_none()) {
                Some(free) => {
                    self.used += 1;
                    free
                }
                None if self.slots.len() < TABLE_SLOTS => {
                    self.grow();
                    continue;
                }
                None => {
                    self.evicted += 1;
                    // Which of the bucket's positions goes: by the newcomer's hash, so that
                    // no slot of a bucket is always the one replaced.
                    usize::try_from(hash(position) >> 60).unwrap_or_default() % WAYS
                }
            };
            self.slots[start + at] = Slot {
                position: Some(*position),
                facts: Facts::default(),
            };
            return &mut self.slots[start + at].facts;
        }
    }

    /// Doubles the slots (up to [`TABLE_SLOTS`]) and places every fact again.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).min(TABLE_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::EMPTY; size]);
        self.used = 0;
        for slot in old {
            if let Some(position) = slot.position {
                *self.entry(&position) = slot.facts;
            }
        }
    }
}
