//! The subcommands of the `bt-arena` binary: argument types and how results are printed.

pub mod elo;
pub mod perft;

/// Exit code: a check failed (perft mismatch, SPRT accepted H0).
pub const EXIT_FAILED: u8 = 1;
/// Exit code: a bad command line.
pub const EXIT_USAGE: u8 = 3;
/// Exit code: any other error.
pub const EXIT_ERROR: u8 = 4;
