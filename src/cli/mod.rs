//! The subcommands of the `bt-arena` binary: argument types and how results are printed.

/// `print!` that ignores a closed stdout (`| head`). Every command writes its stdout through
/// it, and none dies of SIGPIPE (Rust's default: ignored): a command keeps its exit code when
/// its reader goes away, whatever the reader's timing, so that a verdict or a check never
/// turns into 141 (issue 38). The command goes on (a run quits its engines), and the results
/// of a tournament are in files anyway.
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

/// `eprintln!` that ignores a closed stderr (`2>&1 | head`): a warning or a verdict's note
/// that cannot be shown must not turn the exit code into a panic's.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

pub mod args;
pub mod argv;
pub mod bench;
mod bots;
pub mod check_engine;
pub mod datagen;
pub mod datagen_convert;
pub mod elo;
mod engine_help;
pub mod examples;
pub mod executables;
pub mod generate;
pub mod merge;
pub mod openings;
pub mod openings_build;
pub mod perft;
pub mod perft_check;
pub mod progress;
pub mod prove;
pub mod report;
pub mod select;
pub mod select_report;
pub mod session;
pub mod signals;
pub mod solve;
pub mod sprt;
pub mod tournament;
pub mod tune;

/// Exit code: a check failed (perft mismatch, SPRT accepted H0).
pub const EXIT_FAILED: u8 = 1;
/// Exit code: inconclusive (an SPRT with no decision).
pub const EXIT_INCONCLUSIVE: u8 = 2;
/// Exit code: a bad command line.
pub const EXIT_USAGE: u8 = 3;
/// Exit code: any other error.
pub const EXIT_ERROR: u8 = 4;
/// Exit code: the run is incomplete (games of its schedule missing) and has no verdict yet.
pub const EXIT_INCOMPLETE: u8 = 5;
/// Exit code: with `--strict`, an engine misbehaved (stray lines, illegal PVs, false claims,
/// losses by fault); the verdict is printed all the same.
pub const EXIT_CHECKS_FAILED: u8 = 6;

/// With `--strict`, [`EXIT_CHECKS_FAILED`] when an engine misbehaved: `failures` (one line per
/// engine, [`bt_arena::report::Summary::behaviour_failures`]) named on stderr; `None` without
/// `--strict` or failures (the run's own exit code stands).
pub fn checks_failed(strict: bool, failures: &[String]) -> Option<ExitCode> {
    if !strict || failures.is_empty() {
        return None;
    }
    note!("Checks failed (--strict):");
    for line in failures {
        note!("  {line}");
    }
    Some(EXIT_CHECKS_FAILED.into())
}

use bt_arena::run::games::{GameSources, Recorded, RunReading, Verdict, describe_missing};
use bt_arena::stats::SprtDecision;
use std::process::ExitCode;

/// The exit code of a verdict, the same whichever command reads the run: 0 H1 accepted (or
/// a complete run without SPRT), 1 H0 accepted, 2 no decision over a complete run,
/// [`EXIT_INCOMPLETE`] games missing and no verdict.
pub fn verdict_code(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Accepted(SprtDecision::AcceptH0) => EXIT_FAILED,
        Verdict::Accepted(_) | Verdict::Complete => 0,
        Verdict::NoDecision => EXIT_INCONCLUSIVE,
        Verdict::Incomplete { .. } => EXIT_INCOMPLETE,
    }
}

/// The first long flag of `command` (a subcommand's definition) given on the command line in
/// `given` and not in `allowed`: with `--resume`, the flags that could change the games.
pub fn flag_given_outside(
    command: &clap::Command,
    given: &clap::ArgMatches,
    allowed: &[&str],
) -> Option<String> {
    command
        .get_arguments()
        .filter_map(|arg| arg.get_long().map(|long| (arg.get_id().as_str(), long)))
        .find(|&(id, flag)| {
            !allowed.contains(&flag)
                && given.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
        })
        .map(|(_, flag)| flag.to_string())
}

/// Prints a sharded run's recorded verdict when its games bear it out, or on stderr why it
/// is ignored.
pub fn print_recorded(recorded: &Recorded) {
    match recorded {
        Recorded::None => {}
        Recorded::Agrees(verdict) => say!("{verdict}"),
        Recorded::Ignored(why) => note!("warning: {why}"),
    }
}

/// Says what a reading concludes beyond the report (the games not counted, the games
/// missing and how to play them, a run with no decision) and gives the verdict's exit code
/// ([`verdict_code`]). `notes` on stdout go with the text report (not with JSON).
pub fn conclude(
    sources: &GameSources,
    reading: &RunReading,
    verdict: Verdict,
    notes: bool,
) -> ExitCode {
    for line in &reading.skipped {
        note!("warning: {line}: not counted");
    }
    let missing = reading.missing_games();
    match verdict {
        Verdict::Accepted(_) if missing > 0 && notes => say!(
            "{} of the schedule not played after the SPRT verdict",
            bt_arena::records::plural(missing as u64, "game")
        ),
        Verdict::Incomplete { tested } => {
            note!(
                "Incomplete: {} of the schedule {} missing{}; play {}, then read the run again:",
                bt_arena::records::plural(missing as u64, "game"),
                if missing == 1 { "is" } else { "are" },
                if tested {
                    ", so the run has no verdict yet"
                } else {
                    ""
                },
                if missing == 1 { "it" } else { "them" }
            );
            for line in describe_missing(sources, reading) {
                note!("  {line}");
            }
        }
        Verdict::NoDecision if sources.single_run().is_some() => {
            note!("SPRT: no decision over every game of the schedule");
        }
        Verdict::NoDecision => note!("SPRT: no decision over the games read"),
        _ => {}
    }
    ExitCode::from(verdict_code(verdict))
}

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

/// A run read before any of its shards or workers recorded a game: reported as
/// `Incomplete: ...`, with [`EXIT_INCOMPLETE`], as any incomplete run whoever reads it.
#[derive(Debug)]
pub struct IncompleteRun(pub String);

impl std::fmt::Display for IncompleteRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IncompleteRun {}

/// The arguments as one shell command line, quoting those that need it.
pub(super) fn shell_words(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let quote = |arg: std::ffi::OsString| {
        let arg = arg.to_string_lossy().into_owned();
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=+:,@%".contains(c));
        if plain {
            arg
        } else {
            format!("'{}'", arg.replace('\'', r"'\''"))
        }
    };
    args.map(quote).collect::<Vec<_>>().join(" ")
}
