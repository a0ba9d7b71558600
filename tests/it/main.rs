//! bt-arena's integration tests: one test binary (as ripgrep has), one module per concern, the
//! helpers they share in [`util`]. One binary links once: a change to the library relinks one
//! test executable, not fifteen.
//!
//! Run one concern with `cargo test --test it MODULE::` (e.g. `cargo test --test it engine::`),
//! or one test by its name. The tests that need an outside program (Fairy-Stockfish, Chromium, a
//! Slurm cluster) are `#[ignore]`d with what they need as the reason; `cargo test --
//! --include-ignored` runs them too, and fails them when it is missing; `scripts/test` sets up
//! what they need first (as root), then runs them all.
//!
//! `cli::` compares every `--help` and `-h` with its snapshot under `tests/snapshots/help/`;
//! after a change to the command line, `BT_ARENA_UPDATE_SNAPSHOTS=1 cargo test --test it cli::`
//! rewrites them (review the diff).

mod util;
mod workers;

mod adjudication;
mod affinity;
mod board_runs;
mod boards;
mod check_engine;
mod claims;
mod cli;
mod codingame;
mod datagen;
mod datagen_workers;
mod docs;
mod elo_command;
mod engine;
mod engine_boards;
mod fairy_stockfish;
mod faulty_cli;
mod first_steps;
mod fuzz;
mod gate;
mod generate;
mod machine;
mod memory;
mod one_run;
mod openings;
mod openings_build;
mod perft;
mod perft_check;
mod pgn;
mod report_html;
mod scripts;
mod search;
mod select;
mod server;
mod session;
mod shard;
mod slurm;
mod solve;
mod solve_oracle;
mod source_engines;
mod sprt;
mod sprt_calculator;
mod survive;
mod tournament;
mod toy_kind;
mod tune;
