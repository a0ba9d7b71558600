//! The subcommands of the `bt-arena` binary: argument types and how results are printed.

/// `print!` that ignores a closed stdout (`| head`), for the commands that drive engines: the
/// run goes on and quits its engines, the exit code still tells the result, and the results
/// of a tournament are in files anyway. (The other commands die quietly of SIGPIPE.)
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, $($arg)*).and_then(|()| stdout.flush());
    }};
}

/// [`out!`] with a newline.
macro_rules! say {
    ($($arg:tt)*) => {{
        out!("{}\n", format_args!($($arg)*))
    }};
}

pub mod bench;
pub mod check_engine;
pub mod elo;
pub mod merge;
pub mod openings;
pub mod perft;
pub mod perft_check;
pub mod report;
pub mod tournament;

/// Exit code: a check failed (perft mismatch, SPRT accepted H0).
pub const EXIT_FAILED: u8 = 1;
/// Exit code: inconclusive (an SPRT with no decision).
pub const EXIT_INCONCLUSIVE: u8 = 2;
/// Exit code: a bad command line.
pub const EXIT_USAGE: u8 = 3;
/// Exit code: any other error.
pub const EXIT_ERROR: u8 = 4;

/// A command line that parses but makes no sense (an unknown engine key, two engines with one
/// name, a missing engine executable): reported like clap's own errors, with [`EXIT_USAGE`].
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}
