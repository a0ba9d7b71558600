//! The transposition table: search results by Zobrist hash, kept between searches.
//!
//! The table is an array of buckets of two 16-byte entries, indexed by the low bits of the hash;
//! an entry keeps the whole 64-bit hash to reject other positions. Replacement is the two-tier
//! scheme of Belle, Crafty and Fruit: slot 0 keeps the deepest result; a new result goes there
//! when it is for the same position, at least as deep, or the entry dates from an earlier search,
//! and the entry it displaces moves down to slot 1; any other result overwrites slot 1, which is
//! always replaced. Win and loss scores are stored relative to the node (distance from it, not
//! from the root) so they stay true wherever the position turns up again.

use super::score::WIN_BOUND;
use crate::rules::{Move, Square};

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScoreBound {
    /// The true value.
    Exact,
    /// The true value is at least the score (the search failed high).
    Lower,
    /// The true value is at most the score (the search failed low).
    Upper,
}

/// A stored result, with its score already relative to the probing node's ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The best or refuting move found, if any.
    pub mv: Option<Move>,
    /// The score in centipawns or as a win/loss at the probing ply.
    pub score: i32,
    /// The remaining depth in plies the result was searched to.
    pub depth: i32,
    /// What the score says.
    pub bound: ScoreBound,
}

impl Hit {
    /// True when the stored result decides a node searched to `depth` with window
    /// `(alpha, beta)` without searching it.
    pub fn cuts(&self, depth: i32, alpha: i32, beta: i32) -> bool {
        self.depth >= depth
            && match self.bound {
                ScoreBound::Exact => true,
                ScoreBound::Lower => self.score >= beta,
                ScoreBound::Upper => self.score <= alpha,
            }
    }
}

/// One slot: 16 bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    /// `from | to << 6 | 1 << 12`, or 0 for no move.
    mv: u16,
    score: i16,
    depth: u8,
    /// 0 empty, else 1 + the [`ScoreBound`] index; plus the generation shifted left by 2.
    meta: u8,
}

const BUCKET_SLOTS: usize = 2;
type Bucket = [Entry; BUCKET_SLOTS];

/// The transposition table; see the module documentation for its layout and replacement.
pub(crate) struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: u8,
}

impl TranspositionTable {
    /// A table of the largest power-of-two number of buckets that fits in `mb` MiB; no table at
    /// all (every probe misses) for 0.
    pub fn new(mb: usize) -> TranspositionTable {
        let bytes = mb.saturating_mul(1 << 20);
        let wanted = bytes / std::mem::size_of::<Bucket>();
        let len = if wanted == 0 {
            0
        } else {
            1usize << (usize::BITS - 1 - wanted.leading_zeros())
        };
        TranspositionTable {
            buckets: vec![Bucket::default(); len],
            generation: 0,
        }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.buckets.fill(Bucket::default());
        self.generation = 0;
    }

    /// Marks the start of a new search: older entries become the first to be replaced.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 0x3F;
    }

    fn bucket(&self, key: u64) -> Option<usize> {
        (!self.buckets.is_empty()).then(|| key as usize & (self.buckets.len() - 1))
    }

    /// The result stored for the position with hash `key`, probed at `ply` plies from the root.
    pub fn probe(&self, key: u64, ply: usize) -> Option<Hit> {
        let bucket = &self.buckets[self.bucket(key)?];
        let entry = bucket
            .iter()
            .find(|entry| entry.key == key && entry.meta & 3 != 0)?;
        Some(Hit {
            mv: decode_move(entry.mv),
            score: from_table(i32::from(entry.score), ply),
            depth: i32::from(entry.depth),
            bound: match entry.meta & 3 {
                1 => ScoreBound::Exact,
                2 => ScoreBound::Lower,
                _ => ScoreBound::Upper,
            },
        })
    }

    /// Stores a result for the position with hash `key` at `ply` plies from the root. Without a
    /// move, the move already stored for the same position is kept.
    pub fn store(
        &mut self,
        key: u64,
        ply: usize,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: ScoreBound,
    ) {
        let Some(index) = self.bucket(key) else {
            return;
        };
        let generation = self.generation;
        let bucket = &mut self.buckets[index];
        let kept_move = bucket
            .iter()
            .find(|entry| entry.key == key)
            .map_or(0, |entry| entry.mv);
        let entry = Entry {
            key,
            mv: mv.map_or(kept_move, encode_move),
            score: to_table(score, ply).clamp(i16::MIN.into(), i16::MAX.into()) as i16,
            depth: depth.clamp(0, u8::MAX.into()) as u8,
            meta: (generation << 2)
                | match bound {
                    ScoreBound::Exact => 1,
                    ScoreBound::Lower => 2,
                    ScoreBound::Upper => 3,
                },
        };
        let [deep, always] = bucket;
        if deep.key == key || deep.meta >> 2 != generation || i32::from(deep.depth) <= depth {
            if deep.key != key && deep.meta & 3 != 0 {
                *always = *deep;
            }
            *deep = entry;
        } else {
            *always = entry;
        }
    }

    /// How full the table is in permille: the share of entries written by the current search
    /// among the first 1000 buckets (the UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = &self.buckets[..self.buckets.len().min(1000)];
        if sample.is_empty() {
            return 0;
        }
        let used = sample
            .iter()
            .flatten()
            .filter(|entry| entry.meta & 3 != 0 && entry.meta >> 2 == self.generation)
            .count();
        (used * 1000 / (sample.len() * BUCKET_SLOTS)) as u32
    }
}

fn encode_move(mv: Move) -> u16 {
    u16::from(mv.from.index()) | u16::from(mv.to.index()) << 6 | 1 << 12
}

fn decode_move(code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    Some(Move {
        from: Square::from_index((code & 0x3F) as u8)?,
        to: Square::from_index((code >> 6 & 0x3F) as u8)?,
    })
}

/// A score as stored: wins and losses counted from the node at `ply`, not from the root.
fn to_table(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= WIN_BOUND {
        score + ply
    } else if score <= -WIN_BOUND {
        score - ply
    } else {
        score
    }
}

/// The inverse of [`to_table`].
fn from_table(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= WIN_BOUND {
        score - ply
    } else if score <= -WIN_BOUND {
        score + ply
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::search::score::{loss_in, win_in};

    fn mv(text: &str) -> Move {
        text.parse().expect("test move")
    }

    #[test]
    fn a_table_of_one_mib_holds_a_power_of_two_of_buckets_and_zero_mib_none() {
        let table = TranspositionTable::new(1);
        assert_eq!(std::mem::size_of::<Bucket>(), 32);
        assert_eq!(table.buckets.len(), (1 << 20) / 32);
        let mut none = TranspositionTable::new(0);
        none.store(7, 0, Some(mv("a2a3")), 5, 3, ScoreBound::Exact);
        assert_eq!(none.probe(7, 0), None);
        assert_eq!(none.hashfull(), 0);
    }

    #[test]
    fn stored_results_come_back_with_win_scores_moved_to_the_probing_ply() {
        let mut table = TranspositionTable::new(1);
        table.store(42, 3, Some(mv("b2c3")), win_in(7), 4, ScoreBound::Lower);
        let hit = table.probe(42, 5).expect("stored");
        assert_eq!(hit.mv, Some(mv("b2c3")));
        assert_eq!(hit.score, win_in(9));
        assert_eq!((hit.depth, hit.bound), (4, ScoreBound::Lower));
        table.store(43, 2, None, loss_in(6), 1, ScoreBound::Upper);
        assert_eq!(table.probe(43, 0).map(|hit| hit.score), Some(loss_in(4)));
        assert_eq!(table.probe(44, 0), None);
    }

    #[test]
    fn the_deep_slot_keeps_deep_results_and_displaced_entries_move_down() {
        let mut table = TranspositionTable::new(1);
        let stride = table.buckets.len() as u64;
        let (a, b, c) = (5, 5 + stride, 5 + 2 * stride); // one bucket
        table.store(a, 0, Some(mv("a2a3")), 10, 8, ScoreBound::Exact);
        table.store(b, 0, None, 20, 2, ScoreBound::Exact); // shallower: slot 1
        assert!(table.probe(a, 0).is_some() && table.probe(b, 0).is_some());
        table.store(c, 0, None, 30, 3, ScoreBound::Exact); // shallower: replaces b in slot 1
        assert!(table.probe(a, 0).is_some() && table.probe(c, 0).is_some());
        assert_eq!(table.probe(b, 0), None);
        table.new_search();
        table.store(b, 0, None, 40, 1, ScoreBound::Exact); // a is old: b takes slot 0, a moves down
        assert_eq!(table.probe(b, 0).map(|hit| hit.score), Some(40));
        assert_eq!(table.probe(a, 0).map(|hit| hit.depth), Some(8));
        assert_eq!(table.probe(c, 0), None);
        // A result without a move keeps the stored move.
        table.store(b, 0, Some(mv("h2h3")), 41, 2, ScoreBound::Exact);
        table.store(b, 0, None, 42, 3, ScoreBound::Upper);
        assert_eq!(table.probe(b, 0).and_then(|hit| hit.mv), Some(mv("h2h3")));
    }
}
