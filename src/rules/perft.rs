//! Perft: counting the leaf nodes of the move tree, the standard check of a move generator.
//!
//! `perft(d)` is the number of move sequences of exactly `d` plies from a position; a position
//! where the game is over has no children (it still counts as a leaf at the last ply). Counting is
//! bulk at the last ply (the number of legal moves, by popcount) and allocates nothing per node.
//! Work is split over threads by expanding the first plies into jobs; an optional transposition
//! table ([`PerftOptions::hash_mb`]) keyed by a Zobrist hash and the remaining depth shares
//! subtree counts between transpositions.
//!
//! The perft-suite format (`<position> ;D1 n ;D2 n ...`, as chess perft suites) is in
//! [`super::suite`]; its items are re-exported here, where they were first.

use super::movegen::{Black, Side, White};
use super::{Board, Color, Move, Position, Rules};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

pub use super::suite::{OtherRulesHint, SuiteEntry, SuiteError, SuiteErrorReason, parse_suite};

/// How a perft run is carried out (never what it counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftOptions {
    /// Worker threads, at least 1.
    pub threads: usize,
    /// Size of the transposition table in MiB; 0 for none.
    pub hash_mb: usize,
}

impl Default for PerftOptions {
    fn default() -> Self {
        PerftOptions {
            threads: 1,
            hash_mb: 0,
        }
    }
}

/// The number of leaf nodes `depth` plies below `position` under `rules`.
/// `perft(_, _, 0, _)` is 1.
pub fn perft(position: &Position, rules: Rules, depth: u32, options: PerftOptions) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide(position, rules, depth, options)
        .iter()
        .map(|&(_, count)| count)
        .sum()
}

/// For each legal root move, in move-generation order, the leaf count `depth - 1` plies below
/// the position it leads to: perft's divide. Empty when `depth` is 0 or the game is over.
pub fn divide(
    position: &Position,
    rules: Rules,
    depth: u32,
    options: PerftOptions,
) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let root_moves: Vec<Move> = position.legal_moves(rules).iter().collect();
    let jobs = split_into_jobs(position, rules, &root_moves, depth, options.threads);
    let table = (options.hash_mb > 0).then(|| PerftTable::new(options.hash_mb));
    let counts: Vec<AtomicU64> = root_moves.iter().map(|_| AtomicU64::new(0)).collect();
    let next_job = AtomicUsize::new(0);
    let work = || {
        while let Some(job) = jobs.get(next_job.fetch_add(1, Ordering::Relaxed)) {
            let count = count_leaves(&job.position, rules, job.depth, table.as_ref());
            counts[job.root].fetch_add(count, Ordering::Relaxed);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..options.threads.max(1) {
            scope.spawn(work);
        }
        work();
    });
    root_moves
        .into_iter()
        .zip(counts)
        .map(|(mv, count)| (mv, count.into_inner()))
        .collect()
}

/// A subtree to count: the position, the remaining depth and the root move it descends from.
struct Job {
    root: usize,
    position: Position,
    depth: u32,
}

/// Jobs that split the tree finely enough to keep `threads` busy: the root moves, expanded ply
/// by ply while there are fewer than 32 jobs a thread and at least 3 plies left in each.
fn split_into_jobs(
    position: &Position,
    rules: Rules,
    root_moves: &[Move],
    depth: u32,
    threads: usize,
) -> Vec<Job> {
    let mut jobs: Vec<Job> = root_moves
        .iter()
        .enumerate()
        .map(|(root, &mv)| Job {
            root,
            position: position.play_unchecked(mv),
            depth: depth - 1,
        })
        .collect();
    while threads > 1
        && !jobs.is_empty()
        && jobs.len() < 32 * threads
        && jobs.iter().all(|job| job.depth >= 3)
    {
        jobs = jobs
            .into_iter()
            .flat_map(|job| {
                let moves = job.position.legal_moves(rules);
                moves.into_iter().map(move |mv| Job {
                    root: job.root,
                    position: job.position.play_unchecked(mv),
                    depth: job.depth - 1,
                })
            })
            .collect();
    }
    jobs
}

/// Leaf count `depth` plies below `position`, through `table` when there is one.
fn count_leaves(position: &Position, rules: Rules, depth: u32, table: Option<&PerftTable>) -> u64 {
    if depth == 0 {
        return 1;
    }
    if position.is_decided() {
        return 0;
    }
    let hash = table.map_or(0, |_| zobrist(position));
    let board = position.board();
    if board.is_standard() {
        walk(position, rules, depth, hash, &Walk { table, shape: Full })
    } else {
        let shape = Masks {
            squares: board.squares(),
            goals: [board.goal(Color::White), board.goal(Color::Black)],
        };
        walk(position, rules, depth, hash, &Walk { table, shape })
    }
}

/// The perft recursion started for the side to move of `position` (not decided).
fn walk<G: Shape>(
    position: &Position,
    rules: Rules,
    depth: u32,
    hash: u64,
    walk: &Walk<'_, G>,
) -> u64 {
    let (white, black) = (position.pawns(Color::White), position.pawns(Color::Black));
    match (position.side_to_move(), walk.table) {
        (Color::White, None) => count::<White, false, G>(white, black, rules, depth, hash, walk),
        (Color::Black, None) => count::<Black, false, G>(black, white, rules, depth, hash, walk),
        (Color::White, Some(_)) => count::<White, true, G>(white, black, rules, depth, hash, walk),
        (Color::Black, Some(_)) => count::<Black, true, G>(black, white, rules, depth, hash, walk),
    }
}

/// The board's squares and goal ranks as the perft recursion sees them: constants on 8×8
/// ([`Full`]), masks read at run time on a smaller board ([`Masks`]). One recursion serves both;
/// on 8×8 the masks fold away, so its speed is that of a generator written for 8×8 alone.
trait Shape {
    /// The squares of the board.
    fn squares(&self) -> u64;
    /// The goal rank of `S` as a bitboard.
    fn goal<S: Side>(&self) -> u64;
}

/// The 8×8 board.
struct Full;

impl Shape for Full {
    #[inline(always)]
    fn squares(&self) -> u64 {
        u64::MAX
    }

    #[inline(always)]
    fn goal<S: Side>(&self) -> u64 {
        Board::STANDARD.goal(S::COLOR)
    }
}

/// A board smaller than 8×8: its squares and its goal ranks (White's, Black's).
struct Masks {
    squares: u64,
    goals: [u64; 2],
}

impl Shape for Masks {
    #[inline(always)]
    fn squares(&self) -> u64 {
        self.squares
    }

    #[inline(always)]
    fn goal<S: Side>(&self) -> u64 {
        self.goals[S::COLOR.index()]
    }
}

/// What stays the same through one perft walk: the transposition table, if any, and the
/// board's shape.
struct Walk<'a, G> {
    table: Option<&'a PerftTable>,
    shape: G,
}

/// The perft recursion for side `S` to move, with `own` its pawns and `enemy` the other side's,
/// in a position where the game is not decided, `depth` >= 1. With `HASHED`, `hash` is the
/// Zobrist hash of the position and counts of 3 plies or more go through the walk's table;
/// without, both are ignored and cost nothing.
fn count<S: Side, const HASHED: bool, G: Shape>(
    own: u64,
    enemy: u64,
    rules: Rules,
    depth: u32,
    hash: u64,
    walk: &Walk<'_, G>,
) -> u64 {
    let squares = walk.shape.squares();
    let targets = S::targets(own, enemy, rules, squares);
    if depth == 1 {
        return targets.iter().map(|set| u64::from(set.count_ones())).sum();
    }
    let cached = HASHED && depth >= 3;
    let key = hash ^ DEPTH_KEYS[depth as usize % DEPTH_KEYS.len()];
    if cached && let Some(count) = walk.table.and_then(|table| table.probe(key)) {
        return count;
    }
    // A move onto the goal rank, or one that takes the last enemy pawn, ends the game: its
    // subtree has no leaves below this ply.
    let goal = walk.shape.goal::<S>();
    let mut total = 0;
    S::for_each_move(targets, |from, to| {
        let child_own = enemy & !to;
        if to & goal != 0 || child_own == 0 {
            return;
        }
        let child_enemy = own ^ from ^ to;
        total += if depth == 2 {
            S::Opponent::targets(child_own, child_enemy, rules, squares)
                .iter()
                .map(|set| u64::from(set.count_ones()))
                .sum()
        } else {
            let child_hash = if HASHED {
                hash ^ zobrist_delta(S::COLOR, from, to, enemy & to != 0)
            } else {
                0
            };
            count::<S::Opponent, HASHED, G>(
                child_own,
                child_enemy,
                rules,
                depth - 1,
                child_hash,
                walk,
            )
        };
    });
    if cached && let Some(table) = walk.table {
        table.store(key, total);
    }
    total
}

/// splitmix64, as a `const fn`: the generator of the Zobrist keys (Vigna, 2014).
const fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Zobrist keys: 64 squares for each side, then the key of "Black to move".
const PAWN_KEYS: [[u64; 64]; 2] = {
    let mut keys = [[0; 64]; 2];
    let mut i = 0;
    while i < 128 {
        keys[i / 64][i % 64] = splitmix64(i as u64);
        i += 1;
    }
    keys
};
const BLACK_TO_MOVE_KEY: u64 = splitmix64(128);

/// Keys mixed in for the remaining depth, so one table holds counts of several depths.
const DEPTH_KEYS: [u64; 64] = {
    let mut keys = [0; 64];
    let mut i = 0;
    while i < 64 {
        keys[i] = splitmix64(1000 + i as u64);
        i += 1;
    }
    keys
};

/// The Zobrist hash of a position: the xor of the keys of its pawns and of the side to move.
pub fn zobrist(position: &Position) -> u64 {
    let mut hash = match position.side_to_move() {
        Color::White => 0,
        Color::Black => BLACK_TO_MOVE_KEY,
    };
    for color in [Color::White, Color::Black] {
        let mut pawns = position.pawns(color);
        while pawns != 0 {
            hash ^= PAWN_KEYS[color.index()][pawns.trailing_zeros() as usize];
            pawns &= pawns - 1;
        }
    }
    hash
}

/// What a move by `side` from the one-bit bitboard `from` to `to` (taking a pawn when
/// `capture`) xors into the Zobrist hash.
#[inline(always)]
pub(crate) fn zobrist_delta(side: Color, from: u64, to: u64, capture: bool) -> u64 {
    let (from, to) = (from.trailing_zeros() as usize, to.trailing_zeros() as usize);
    let own = &PAWN_KEYS[side.index()];
    let mut delta = own[from] ^ own[to] ^ BLACK_TO_MOVE_KEY;
    if capture {
        delta ^= PAWN_KEYS[side.opponent().index()][to];
    }
    delta
}

/// A lock-free transposition table of subtree counts shared by the perft threads.
///
/// Each entry holds `key ^ count` and `count`; a torn entry written by two threads at once fails
/// the xor check and reads as a miss (Hyatt and Mann's lockless hashing).
struct PerftTable {
    entries: Box<[(AtomicU64, AtomicU64)]>,
    mask: usize,
}

impl PerftTable {
    /// A table of the largest power-of-two number of 16-byte entries that fits in `mb` MiB.
    fn new(mb: usize) -> PerftTable {
        let wanted = (mb.saturating_mul(1 << 20) / 16).max(1);
        let len = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        PerftTable {
            entries: (0..len)
                .map(|_| (AtomicU64::new(0), AtomicU64::new(0)))
                .collect(),
            mask: len - 1,
        }
    }

    /// The entry of `key`: its low bits.
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the key is cut to its low bits on purpose, as the mask does"
    )]
    fn entry(&self, key: u64) -> &(AtomicU64, AtomicU64) {
        &self.entries[key as usize & self.mask]
    }

    fn probe(&self, key: u64) -> Option<u64> {
        let (check, count) = self.entry(key);
        let count = count.load(Ordering::Relaxed);
        (check.load(Ordering::Relaxed) ^ count == key && count != 0).then_some(count)
    }

    fn store(&self, key: u64, count: u64) {
        let (check, stored) = self.entry(key);
        check.store(key ^ count, Ordering::Relaxed);
        stored.store(count, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divide_sums_to_perft_and_threads_and_hash_agree() {
        let position: Position = "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w"
            .parse()
            .unwrap();
        let plain = PerftOptions::default();
        let expected = perft(&position, Rules::Classic, 4, plain);
        assert_eq!(expected, 121_264);
        for options in [
            PerftOptions {
                threads: 2,
                hash_mb: 0,
            },
            PerftOptions {
                threads: 1,
                hash_mb: 1,
            },
            PerftOptions {
                threads: 3,
                hash_mb: 1,
            },
        ] {
            let moves = divide(&position, Rules::Classic, 4, options);
            assert_eq!(moves.len(), 21);
            assert_eq!(moves.iter().map(|&(_, n)| n).sum::<u64>(), expected);
            assert_eq!(perft(&position, Rules::Classic, 4, options), expected);
        }
    }

    #[test]
    fn depth_zero_is_one_leaf_and_finished_games_have_none_below() {
        let finished: Position = "8/8/8/8/8/8/8/p7 w".parse().unwrap();
        let options = PerftOptions::default();
        assert_eq!(perft(&finished, Rules::CaptureOnly, 0, options), 1);
        assert_eq!(perft(&finished, Rules::CaptureOnly, 3, options), 0);
        assert!(divide(&finished, Rules::CaptureOnly, 3, options).is_empty());
        let two = PerftOptions {
            threads: 2,
            hash_mb: 1,
        };
        assert_eq!(perft(&finished, Rules::Classic, 5, two), 0);
    }

    #[test]
    fn zobrist_updates_match_a_fresh_hash() {
        let mut position = Position::startpos();
        let mut hash = zobrist(&position);
        for _ in 0..12 {
            let Some(mv) = position.legal_moves(Rules::Classic).iter().last() else {
                break;
            };
            let capture = position.is_capture(mv);
            hash ^= zobrist_delta(position.side_to_move(), mv.from.bit(), mv.to.bit(), capture);
            position = position.play_unchecked(mv);
            assert_eq!(hash, zobrist(&position));
        }
    }
}
