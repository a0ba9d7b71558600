//! Perft throughput: `cargo bench --bench perft`.
//!
//! Prints leaf nodes per second for perft(9) of the start position under capture-only rules on
//! one and two threads (best of five runs), and the time of perft(11) with a transposition table.
//! A figure to report, not a test: machines here are shared and noisy.

use bt_arena::rules::perft::{PerftOptions, perft};
use bt_arena::rules::{Position, Rules};
use std::time::Instant;

fn best_of(runs: usize, depth: u32, options: PerftOptions) -> (u64, f64) {
    let start = Position::startpos();
    (0..runs)
        .map(|_| {
            let clock = Instant::now();
            let nodes = perft(&start, Rules::CaptureOnly, depth, options);
            (nodes, clock.elapsed().as_secs_f64())
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((0, 0.0))
}

fn main() {
    for threads in [1, 2] {
        let (nodes, seconds) = best_of(
            5,
            9,
            PerftOptions {
                threads,
                hash_mb: 0,
            },
        );
        println!(
            "perft(9) capture-only, {threads} thread(s): {nodes} nodes in {seconds:.3} s = {:.3e} nodes/s",
            nodes as f64 / seconds
        );
    }
    for (threads, hash_mb) in [(2, 0), (2, 256)] {
        let (nodes, seconds) = best_of(1, 11, PerftOptions { threads, hash_mb });
        println!(
            "perft(11) capture-only, {threads} threads, hash {hash_mb} MiB: {nodes} nodes in {seconds:.2} s"
        );
    }
}
