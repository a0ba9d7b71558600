//! The solver's table of proven facts: a fixed number of slots ([`Table::with_mib`]), in
//! buckets of [`WAYS`], keyed by the whole position (two bitboards and the side to move), so
//! that a fact is never read for another position.

use super::SolveError;
use crate::rules::{Color, Move, Position, Square};

/// The slots a position may take: the [`WAYS`] slots of its bucket.
pub(super) const WAYS: usize = 4;

/// A depth no fact reaches ("never proven").
pub(super) const NEVER: u8 = u8::MAX;

/// What is proven about a position for its side to move, depths in plies: it wins within
/// every depth `>= win` and within none `<= no_win`; it is lost (every move leaves the
/// opponent a win) within every depth `>= lost` and within none `<= not_lost` (those two
/// count the opponent's plies after the move, as `defence_fails` does). `best` is the move that
/// proved a win or refuted a loss (`from == to`: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Facts {
    pub(super) win: u8,
    pub(super) no_win: u8,
    pub(super) lost: u8,
    pub(super) not_lost: u8,
    pub(super) best: [u8; 2],
}

impl Facts {
    pub(super) const NONE: Facts = Facts {
        win: NEVER,
        no_win: 0,
        lost: NEVER,
        not_lost: 0,
        best: [0, 0],
    };

    /// The move that proved a win or refuted a loss, if any.
    pub(super) fn best(self) -> Option<Move> {
        let [from, to] = self.best;
        if from == to {
            return None;
        }
        Some(Move {
            from: Square::from_index(from)?,
            to: Square::from_index(to)?,
        })
    }

    /// How much work the facts stand for: the deepest depth they name (the slot of the least
    /// worth is the one replaced).
    fn worth(self) -> u8 {
        let proven = |depth: u8| if depth == NEVER { 0 } else { depth };
        proven(self.win)
            .max(proven(self.lost))
            .max(self.no_win)
            .max(self.not_lost)
    }
}

/// One slot: a position (`used` false: none) and its facts. 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) white: u64,
    pub(super) black: u64,
    pub(super) facts: Facts,
    /// Bit 0: the slot holds a position; bit 1: Black is to move.
    pub(super) flags: u8,
    _pad: u8,
}

/// The size of a [`Slot`] in bytes, as the state file stores it.
pub(super) const SLOT_BYTES: usize = 24;
const _: () = assert!(std::mem::size_of::<Slot>() == SLOT_BYTES);

const USED: u8 = 1;
const BLACK: u8 = 2;

impl Slot {
    const EMPTY: Slot = Slot {
        white: 0,
        black: 0,
        facts: Facts::NONE,
        flags: 0,
        _pad: 0,
    };

    /// The slot of `position` holding `facts`.
    pub(super) fn new(position: &Position, facts: Facts) -> Slot {
        Slot {
            white: position.pawns(Color::White),
            black: position.pawns(Color::Black),
            facts,
            flags: USED | key_side(position),
            _pad: 0,
        }
    }

    fn holds(&self, position: &Position) -> bool {
        self.flags == USED | key_side(position)
            && self.white == position.pawns(Color::White)
            && self.black == position.pawns(Color::Black)
    }

    /// The slot as the state file stores it: the bitboards, then the facts, little-endian.
    pub(super) fn to_bytes(self) -> [u8; SLOT_BYTES] {
        let mut bytes = [0; SLOT_BYTES];
        bytes[..8].copy_from_slice(&self.white.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.black.to_le_bytes());
        let f = self.facts;
        bytes[16..24].copy_from_slice(&[
            f.win, f.no_win, f.lost, f.not_lost, f.best[0], f.best[1], self.flags, 0,
        ]);
        bytes
    }

    /// The slot of [`Slot::to_bytes`]; `None` for one that holds no position.
    pub(super) fn from_bytes(bytes: &[u8; SLOT_BYTES]) -> Option<Slot> {
        let word = |at: usize| {
            let mut w = [0; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let flags = bytes[22];
        (flags & USED != 0 && flags & !(USED | BLACK) == 0 && bytes[20] < 64 && bytes[21] < 64)
            .then(|| Slot {
                white: word(0),
                black: word(8),
                facts: Facts {
                    win: bytes[16],
                    no_win: bytes[17],
                    lost: bytes[18],
                    not_lost: bytes[19],
                    best: [bytes[20], bytes[21]],
                },
                flags,
                _pad: 0,
            })
    }

    /// The side to move of the slot's position.
    pub(super) fn side(&self) -> Color {
        if self.flags & BLACK != 0 {
            Color::Black
        } else {
            Color::White
        }
    }
}

fn key_side(position: &Position) -> u8 {
    match position.side_to_move() {
        Color::White => 0,
        Color::Black => BLACK,
    }
}

/// The hash of a position: its bitboards and side mixed (splitmix64's finalizer).
fn hash(position: &Position) -> u64 {
    let mut h = position.pawns(Color::White)
        ^ position.pawns(Color::Black).rotate_left(31)
        ^ u64::from(key_side(position)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

/// The memory available for new allocations without swapping, in MiB: `MemAvailable` of
/// `/proc/meminfo` (Linux); `None` where there is no such file. A table is written whole when
/// it is made, so one larger than this would drive the machine into swap or out of memory.
fn available_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text
        .lines()
        .find(|line| line.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib >> 10)
}

/// The proven facts by position, in a fixed number of slots: once a bucket is full, a new
/// position takes the slot of the one whose facts are worth least (the shallowest), which is
/// proven again if it is needed again. Facts are exact, so a lost one costs only time.
pub(super) struct Table {
    slots: Vec<Slot>,
    /// Slots holding a position.
    used: u64,
    /// Facts dropped for want of room.
    evicted: u64,
}

impl Table {
    /// A table of `mib` MiB (2^20 bytes): as many buckets of [`WAYS`] slots of 24 bytes as fit.
    ///
    /// # Errors
    /// [`SolveError::Hash`] for 0 MiB or when the memory cannot be had.
    pub(super) fn with_mib(mib: u32) -> Result<Table, SolveError> {
        let bytes = usize::try_from(u64::from(mib) << 20).map_err(|_| SolveError::Hash {
            mib,
            why: "more than this machine can address".into(),
        })?;
        if let Some(available) = available_mib()
            && u64::from(mib) > available
        {
            return Err(SolveError::Hash {
                mib,
                why: format!("more than the {available} MiB of memory available on this machine"),
            });
        }
        let buckets = bytes / (SLOT_BYTES * WAYS);
        if buckets == 0 {
            return Err(SolveError::Hash {
                mib,
                why: "the table needs at least 1 MiB".into(),
            });
        }
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(buckets * WAYS)
            .map_err(|err| SolveError::Hash {
                mib,
                why: format!("cannot allocate it ({err})"),
            })?;
        slots.resize(buckets * WAYS, Slot::EMPTY);
        Ok(Table {
            slots,
            used: 0,
            evicted: 0,
        })
    }

    /// The table's memory in bytes.
    pub(super) fn bytes(&self) -> u64 {
        (self.slots.len() * SLOT_BYTES) as u64
    }

    /// Slots holding a position.
    pub(super) fn used(&self) -> u64 {
        self.used
    }

    /// Facts dropped for want of room.
    pub(super) fn evicted(&self) -> u64 {
        self.evicted
    }

    /// The first slot of `position`'s bucket.
    fn bucket(&self, position: &Position) -> usize {
        let buckets = (self.slots.len() / WAYS) as u128;
        // The high half of hash × buckets: uniform over the buckets, whatever their count.
        let index = (u128::from(hash(position)) * buckets) >> 64;
        usize::try_from(index).unwrap_or_default() * WAYS
    }

    /// The facts known about `position` (none: [`Facts::NONE`]).
    pub(super) fn get(&self, position: &Position) -> Facts {
        let start = self.bucket(position);
        self.slots[start..start + WAYS]
            .iter()
            .find(|slot| slot.holds(position))
            .map_or(Facts::NONE, |slot| slot.facts)
    }

    /// Records `update` applied to the facts of `position`.
    pub(super) fn update(&mut self, position: &Position, update: impl FnOnce(&mut Facts)) {
        let start = self.bucket(position);
        let bucket = &mut self.slots[start..start + WAYS];
        if let Some(slot) = bucket.iter_mut().find(|slot| slot.holds(position)) {
            update(&mut slot.facts);
            return;
        }
        let at = match bucket.iter().position(|slot| slot.flags & USED == 0) {
            Some(free) => {
                self.used += 1;
                free
            }
            None => {
                self.evicted += 1;
                (0..WAYS)
                    .min_by_key(|&at| bucket[at].facts.worth())
                    .unwrap_or_default()
            }
        };
        let mut facts = Facts::NONE;
        update(&mut facts);
        bucket[at] = Slot::new(position, facts);
    }

    /// Puts a slot read from a state file in its place (as [`Table::update`] would).
    pub(super) fn restore(&mut self, position: &Position, facts: Facts) {
        self.update(position, |known| *known = facts);
    }

    /// The slots holding a position, in table order.
    pub(super) fn occupied(&self) -> impl Iterator<Item = &Slot> {
        self.slots.iter().filter(|slot| slot.flags & USED != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Board;

    #[test]
    fn facts_are_kept_by_whole_position_and_the_least_worth_goes() {
        let mut table = Table::with_mib(1).unwrap();
        assert_eq!(table.bytes(), (1 << 20) / 96 * 96);
        let start = Position::start(Board::new(5, 5).unwrap());
        table.update(&start, |facts| facts.no_win = 7);
        assert_eq!(table.get(&start).no_win, 7);
        let other = start.play_unchecked("a2a3".parse().unwrap());
        assert_eq!(table.get(&other), Facts::NONE);
        assert_eq!(table.used(), 1);
        let slot = Slot::new(&start, table.get(&start));
        assert_eq!(Slot::from_bytes(&slot.to_bytes()), Some(slot));
        assert_eq!(Slot::from_bytes(&[0; SLOT_BYTES]), None);
        assert!(matches!(
            Table::with_mib(0),
            Err(SolveError::Hash { mib: 0, .. })
        ));
    }
}
