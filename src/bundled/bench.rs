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

/// The depth each bench position is searched to, in plies: about a second of one core in
/// all on the development machine (a release build: 8,081,473 nodes in 0.85 s of CPU time).
pub const BENCH_DEPTH: u32 = 13;

/// The transposition table of a bench search, MiB (bt-search's default `Hash`).
pub const BENCH_HASH_MB: usize = 16;

/// The positions of the bench (capture-only rules): the start, four openings of the shipped
/// book, and seven positions from games of bt-search against its material-only self (after
/// 21 to 47 plies), White or Black to move.
pub const BENCH_POSITIONS: [&str; 12] = [
    "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w",
    "pppppppp/pppp1p2/4p1pp/8/8/1P3P2/PPPPP1PP/P1PPPPPP w",
    "pppppp1p/ppppp1pp/5pp1/8/4P3/5P2/PPPP2PP/PPPPPPPP w",
    "pppppppp/1p1ppppp/2p5/p7/8/2PPP3/PP3PPP/PPPPPPPP w",
    "pppppppp/p1pp1p1p/1p2p1p1/8/8/2PP4/PPP1PPPP/PP1PPPPP w",
    "pppppppp/3p3p/1p3p2/p2P3P/8/PP6/5P2/PPPPPPPP b",
    "pppppppp/6pp/P4p2/2p1p2P/P2p2P1/3P4/4PP2/PPPP1PPP b",
    "1ppppppp/p7/p2p1pp1/P2Pp3/4P1PP/8/1P6/P1PPPPPP b",
    "pppppppp/8/8/3ppp2/Pp5p/1P1PPP1P/1PPPPPPP/8 w",
    "5ppp/p1ppp3/p2p1p2/P2Pp1pP/4P1P1/2P5/8/P2PPPPP w",
    "4pppp/2pp4/pp1p3p/p2P1p1P/P1P2P2/5PP1/8/PP1PP2P b",
    "1p2pppp/p1pp4/P6p/P1p4P/8/3PP3/1P4P1/P4P1P b",
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
