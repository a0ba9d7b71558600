//! Which positions of the games are written: the filters, each a flag with a stated default,
//! and the count of what each dropped.
//!
//! A position is judged by the first filter that drops it, in this order: its game ended by a
//! fault, `--min-ply`, no score, `--max-score`, `--skip-captures`, `--sample`, then the
//! repeat check (`--dedup`). Every filter is a function of the settings, the seed, the game
//! and the position alone, except the repeat check, which depends on the positions kept
//! before it in game-id order: so the same games give the same positions, whoever reads them.

use super::formats::NO_SCORE;
use super::formats::games::{Ending, GameEntry, GamePosition};
use crate::rules::{Color, Position};
use serde::{Deserialize, Serialize};

/// The filters of a run or a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filters {
    /// Drop positions fewer than this many plies from the opening (default 0).
    #[serde(default)]
    pub min_ply: u16,
    /// Drop positions whose score is beyond ±this, in centipawns (default: none).
    #[serde(default)]
    pub max_score: Option<i16>,
    /// Keep each position with this probability, drawn from (seed, game id, ply) (default 1).
    #[serde(default = "one")]
    pub sample: f64,
    /// Drop positions whose move played captures (default off).
    #[serde(default)]
    pub skip_captures: bool,
    /// Drop positions seen before (approximately: see [`Seen`]; default off).
    #[serde(default)]
    pub dedup: bool,
}

fn one() -> f64 {
    1.0
}

impl Default for Filters {
    fn default() -> Self {
        Filters {
            min_ply: 0,
            max_score: None,
            sample: 1.0,
            skip_captures: false,
            dedup: false,
        }
    }
}

/// Why a position was not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drop {
    /// Its game ended by an engine's fault.
    Fault,
    /// `--min-ply`.
    MinPly,
    /// The engine reported no score.
    NoScore,
    /// `--max-score`.
    MaxScore,
    /// `--skip-captures`.
    Capture,
    /// `--sample`.
    Sample,
    /// `--dedup`.
    Repeat,
}

/// What the filters dropped, by filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drops {
    /// Positions of games ended by a fault.
    pub fault: u64,
    /// `--min-ply`.
    pub min_ply: u64,
    /// Positions without a score.
    pub no_score: u64,
    /// `--max-score`.
    pub max_score: u64,
    /// `--skip-captures`.
    pub captures: u64,
    /// `--sample`.
    pub sample: u64,
    /// `--dedup`.
    pub dedup: u64,
}

impl Drops {
    /// Counts one drop.
    pub fn count(&mut self, drop: Drop) {
        let slot = match drop {
            Drop::Fault => &mut self.fault,
            Drop::MinPly => &mut self.min_ply,
            Drop::NoScore => &mut self.no_score,
            Drop::MaxScore => &mut self.max_score,
            Drop::Capture => &mut self.captures,
            Drop::Sample => &mut self.sample,
            Drop::Repeat => &mut self.dedup,
        };
        *slot += 1;
    }

    /// Every drop.
    pub fn total(&self) -> u64 {
        self.fault
            + self.min_ply
            + self.no_score
            + self.max_score
            + self.captures
            + self.sample
            + self.dedup
    }
}

/// The positions seen, approximately: a Bloom filter of [`SEEN_BITS`] bits (8 MiB) and three
/// hashes, whatever the number of positions. A position never seen is taken for a repeat with
/// probability about `(1 − e^(−3n/m))³` after n positions (m bits): 0.1% at 2 million, 1% at 5
/// million, 5% at 10 million. Memory does not grow with the data.
pub struct Seen {
    bits: Vec<u64>,
}

/// The bits of [`Seen`].
pub const SEEN_BITS: usize = 1 << 26;

impl Seen {
    /// An empty set.
    pub fn new() -> Seen {
        Seen {
            bits: vec![0; SEEN_BITS / 64],
        }
    }

    /// Empties the set, keeping its memory.
    pub fn clear(&mut self) {
        self.bits.fill(0);
    }

    /// Adds `position`; true when it was (probably) there already.
    pub fn insert(&mut self, position: &Position) -> bool {
        let side = match position.side_to_move() {
            Color::White => 0,
            Color::Black => 1,
        };
        let key = mix(mix(position.pawns(Color::White) ^ side) ^ position.pawns(Color::Black));
        let mut present = true;
        for k in 0..3u32 {
            // The low 26 bits: an index below SEEN_BITS.
            let bit = usize::try_from(key.rotate_left(21 * k) % SEEN_BITS as u64).unwrap_or(0);
            let (word, mask) = (bit / 64, 1u64 << (bit % 64));
            present &= self.bits[word] & mask != 0;
            self.bits[word] |= mask;
        }
        present
    }
}

impl Default for Seen {
    fn default() -> Self {
        Seen::new()
    }
}

/// SplitMix64's finaliser: a well-mixed 64-bit function of `x`.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number in [0, 1) drawn from `keys` (each mixed in turn).
pub fn unit(keys: &[u64]) -> f64 {
    let hash = keys.iter().fold(0u64, |acc, &k| mix(acc ^ k));
    (hash >> 11) as f64 / (1u64 << 53) as f64
}

/// A salt that keeps the sample's draws apart from the random plies'.
const SAMPLE_SALT: u64 = 0x5A4D_504C_4500_0001;

/// The filters at work over games in game-id order.
pub struct Judge {
    filters: Filters,
    seed: u64,
    /// Positions seen: kept when dedup is on or repeats are counted.
    seen: Option<Box<Seen>>,
    /// Repeated positions among those the other filters kept.
    pub repeated: u64,
    /// What was dropped.
    pub drops: Drops,
}

impl Judge {
    /// The filters of `filters` with `seed`; `count_repeats` keeps the set of positions seen
    /// even without dedup (8 MiB).
    pub fn new(filters: Filters, seed: u64, count_repeats: bool) -> Judge {
        Judge {
            filters,
            seed,
            seen: (filters.dedup || count_repeats).then(|| Box::new(Seen::new())),
            repeated: 0,
            drops: Drops::default(),
        }
    }

    /// As [`Judge::new`] without counting repeats, taking the set of positions seen that
    /// `--dedup` needs from `spare` (emptied) rather than allocating one: a caller that
    /// judges again and again keeps one set ([`Judge::into_spare`] gives it back).
    pub fn reusing(filters: Filters, seed: u64, spare: &mut Option<Box<Seen>>) -> Judge {
        let seen = filters.dedup.then(|| {
            let mut seen = spare.take().unwrap_or_default();
            seen.clear();
            seen
        });
        // Not `..Judge::new(..)`: that would allocate a set for --dedup, only to drop it.
        Judge {
            filters,
            seed,
            seen,
            repeated: 0,
            drops: Drops::default(),
        }
    }

    /// Gives the set of positions seen back to `spare` (see [`Judge::reusing`]).
    pub fn into_spare(self, spare: &mut Option<Box<Seen>>) {
        if self.seen.is_some() {
            *spare = self.seen;
        }
    }

    /// Whether the position `at` of `game` is written; a drop is counted.
    pub fn keep(&mut self, game: &GameEntry, at: &GamePosition) -> bool {
        match self.judge(game, at) {
            Ok(()) => true,
            Err(drop) => {
                self.drops.count(drop);
                false
            }
        }
    }

    fn judge(&mut self, game: &GameEntry, at: &GamePosition) -> Result<(), Drop> {
        let filters = &self.filters;
        let ply = u64::from(game.first_ply) + at.index as u64;
        if game.ending == Ending::Fault {
            return Err(Drop::Fault);
        }
        if ply < u64::from(filters.min_ply) {
            return Err(Drop::MinPly);
        }
        if at.score == NO_SCORE {
            return Err(Drop::NoScore);
        }
        if filters
            .max_score
            .is_some_and(|max| at.score.unsigned_abs() > max.unsigned_abs())
        {
            return Err(Drop::MaxScore);
        }
        if filters.skip_captures && at.position.is_capture(at.mv) {
            return Err(Drop::Capture);
        }
        if filters.sample < 1.0
            && unit(&[SAMPLE_SALT, self.seed, game.game_id, ply]) >= filters.sample
        {
            return Err(Drop::Sample);
        }
        if let Some(seen) = self.seen.as_mut()
            && seen.insert(&at.position)
        {
            self.repeated += 1;
            if filters.dedup {
                return Err(Drop::Repeat);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seen_set_finds_a_repeat_and_not_a_new_position() {
        let mut seen = Seen::new();
        let start = Position::startpos();
        let after: Position = "pppppppp/pppppppp/8/8/8/4P3/PPPP1PPP/PPPPPPPP b"
            .parse()
            .expect("fen");
        assert!(!seen.insert(&start));
        assert!(!seen.insert(&after));
        assert!(seen.insert(&start));
    }

    #[test]
    fn draws_are_uniform_enough_and_repeatable() {
        let kept = (0..10_000).filter(|&i| unit(&[1, 2, i]) < 0.25).count();
        assert!((2_300..2_700).contains(&kept), "{kept}");
        assert_eq!(unit(&[3, 4]), unit(&[3, 4]));
    }
}
