//! `bt-search bench`: the bundled searcher's signature and speed, in OpenBench's convention.
//!
//! A fixed set of positions ([`BENCH_POSITIONS`], capture-only rules) is searched one after
//! the other to a fixed depth ([`BENCH_DEPTH`]), each from an emptied transposition table of
//! the default size. The search is deterministic for a depth limit (see
//! [`crate::bundled::search`]), so the total node count is the same on every machine for the
//! same search code and settings: it is the build's **signature**, and any change to the search
//! or the evaluation changes it. The time gives the machine's speed in nodes per second.
//!
//! The last line printed is `N nodes M nps`, the form OpenBench's workers (and
//! `bt-arena bench`) read.

use super::search::{Limits, Searcher};
use crate::rules::{Position, Rules};
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The depth each bench position is searched to, in plies: about a second in all on one
/// core of the development machine (a release build).
pub const BENCH_DEPTH: u32 = 10;

/// The transposition table of a bench search, MiB (bt-search's default `Hash`).
pub const BENCH_HASH_MB: usize = 16;

/// The positions of the bench: the start, openings of the shipped capture-only book, and
/// middle games and endings from games of bt-search against itself (White or Black to move).
pub const BENCH_POSITIONS: [&str; 12] = [
    "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w",
    "pppppppp/pppp1p2/4p1pp/8/8/1P3P2/PPPPP1PP/P1PPPPPP w",
    "pppppp1p/ppppp1pp/5pp1/8/4P3/5P2/PPPP2PP/PPPPPPPP w",
    "pppppppp/1p1ppppp/2p5/p7/8/2PPP3/PP3PPP/PPPPPPPP w",
    "pppppppp/p1pp1p1p/1p2p1p1/8/8/2PP4/PPP1PPPP/PP1PPPPP w",
    "pppppppp/1ppppp1p/p7/6p1/8/4P1P1/PPPPPP1P/PPPP1PPP b",
    "ppp1pppp/1pp2pp1/3p3p/p3p3/2P2P2/P2PP1P1/1P3P1P/PPPPPPP1 w",
    "1pppppp1/p1p3pp/3pp3/2p2p2/P1P1P3/1P3PP1/3P3P/PPPPPPPP b",
    "2pp1pp1/pp3p1p/2p1p1p1/p7/3PP2P/PP3P2/2P3P1/PPPPPP1P w",
    "3p1p2/p1pp1p1p/1p2p3/2p3p1/P2P1P2/2P1P1P1/1P5P/PPP2PP1 b",
    "6p1/pp3p1p/2p1p3/3p4/1P1P2P1/P3P3/5P1P/2PP2P1 w",
    "8/2p3pp/p2pp3/1p6/4PP2/1P4P1/P6P/8 b",
];

/// What a bench measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes searched over every position: the signature.
    pub nodes: u64,
    /// The time the searches took, together.
    pub elapsed: Duration,
}

impl BenchResult {
    /// Nodes per second over the whole bench (0 when no time was measured).
    pub fn nps(&self) -> u64 {
        match self.elapsed.as_micros() {
            0 => 0,
            micros => {
                u64::try_from(u128::from(self.nodes) * 1_000_000 / micros).unwrap_or(u64::MAX)
            }
        }
    }
}

impl fmt::Display for BenchResult {
    /// `N nodes M nps`, OpenBench's form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} nodes {} nps", self.nodes, self.nps())
    }
}

/// Searches every position of [`BENCH_POSITIONS`] to `depth` plies under capture-only rules
/// with `searcher`, emptying its table before each; `each` is called after each position
/// with its index, the position and its node count.
///
/// # Panics
/// Never: the positions are valid (a unit test reads them all).
pub fn bench(
    searcher: &mut Searcher,
    depth: u32,
    mut each: impl FnMut(usize, &Position, u64),
) -> BenchResult {
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for (index, fen) in BENCH_POSITIONS.iter().enumerate() {
        let position: Position = fen.parse().expect("the bench positions are valid");
        searcher.clear();
        let started = Instant::now();
        let result = searcher.search(&position, Rules::CaptureOnly, &limits, &stop, &mut |_| {});
        elapsed += started.elapsed();
        nodes += result.nodes;
        each(index, &position, result.nodes);
    }
    BenchResult { nodes, elapsed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_positions_are_valid_and_unfinished() {
        for fen in BENCH_POSITIONS {
            let position: Position = fen.parse().unwrap();
            assert_eq!(position.outcome(Rules::CaptureOnly), None, "{fen}");
            assert_eq!(position.to_string(), fen);
        }
    }

    /// The signature is the node count alone: the same for two searchers, whatever the time.
    #[test]
    fn a_bench_is_deterministic_and_printed_as_openbench_reads_it() {
        let run = || bench(&mut Searcher::new(BENCH_HASH_MB), 3, |_, _, _| {});
        let (first, second) = (run(), run());
        assert_eq!(first.nodes, second.nodes);
        assert!(first.nodes > 0);
        let mut seen = Vec::new();
        let third = bench(&mut Searcher::new(1), 3, |index, _, nodes| {
            seen.push((index, nodes))
        });
        assert_eq!(seen.len(), BENCH_POSITIONS.len());
        assert_eq!(seen.iter().map(|(_, n)| n).sum::<u64>(), third.nodes);
        let shown = BenchResult {
            nodes: 1_500_000,
            elapsed: Duration::from_millis(750),
        };
        assert_eq!(shown.to_string(), "1500000 nodes 2000000 nps");
        let instant = BenchResult {
            nodes: 5,
            elapsed: Duration::ZERO,
        };
        assert_eq!(instant.nps(), 0);
    }
}
