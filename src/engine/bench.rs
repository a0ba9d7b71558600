//! An engine's bench, in OpenBench's convention: `ENGINE ARGS bench` searches the engine's own
//! fixed positions to a fixed depth, prints its total node count and speed (`N nodes M nps`)
//! and exits. The node count is the build's **signature** (the same search gives the same
//! count on any machine); the speed is the machine's.
//!
//! As OpenBench's worker does (`Client/bench.py`): `copies` benches run at once (one per game
//! played at a time, so the speed is measured under the load the games will put on the
//! machine); every copy must print the same node count (a nondeterministic build is refused);
//! the speed is the mean of the copies'; each may take [`BENCH_TIMEOUT`]. The output is read
//! as OpenBench reads it ([`parse_bench_output`]). A bench is spawned as every engine is
//! (`Process`: a process group of its own, the parent-death signal), so none outlives
//! bt-arena.

use super::process::{Process, Received};
use super::{EngineError, EngineLaunch};
use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long one bench may take (OpenBench's `MAX_BENCH_TIME_SECONDS`).
pub const BENCH_TIMEOUT: Duration = Duration::from_secs(60);

/// The argument that asks an engine for its bench.
pub const BENCH_ARG: &str = "bench";

/// What the benches of one engine measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchRun {
    /// The node count every copy printed: the signature.
    pub nodes: u64,
    /// The mean of the copies' speeds, nodes per second.
    pub nps: u64,
    /// Each copy's speed, nodes per second.
    pub copies: Vec<u64>,
}

impl fmt::Display for BenchRun {
    /// `N nodes M nps`, and `(mean of K benches at once)` for more than one copy.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} nodes {} nps", self.nodes, self.nps)?;
        if self.copies.len() > 1 {
            write!(f, " (mean of {} benches at once)", self.copies.len())?;
        }
        Ok(())
    }
}

/// Why an engine's bench gave no signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// The engine could not be started.
    Start {
        /// The command line.
        command: String,
        /// The operating system's reason.
        error: String,
    },
    /// The bench ran longer than [`BENCH_TIMEOUT`] (and was killed).
    Timeout {
        /// The command line.
        command: String,
    },
    /// The engine printed no node count or no speed: it has no bench.
    NoBench {
        /// The command line.
        command: String,
        /// How it exited.
        status: String,
        /// Its last lines of output (stdout, then stderr).
        tail: Vec<String>,
    },
    /// The copies printed different node counts: the build is not deterministic.
    Nondeterministic {
        /// The command line.
        command: String,
        /// The node counts, one per copy.
        counts: Vec<u64>,
    },
    /// bt-arena received SIGINT, SIGTERM or SIGHUP during the bench (its copies were killed).
    Interrupted {
        /// The command line.
        command: String,
    },
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Start { command, error } => write!(f, "cannot run `{command}`: {error}"),
            BenchError::Timeout { command } => write!(
                f,
                "`{command}` ran longer than {} s and was stopped",
                BENCH_TIMEOUT.as_secs()
            ),
            BenchError::NoBench {
                command,
                status,
                tail,
            } => {
                write!(
                    f,
                    "the engine has no bench: `{command}` printed no `N nodes M nps` line \
                     ({status}). OpenBench's convention: `ENGINE bench` searches fixed positions \
                     to a fixed depth, prints its node count and speed, and exits"
                )?;
                match tail.as_slice() {
                    [] => f.write_str("; it printed nothing"),
                    lines => write!(f, "; its last output: {}", lines.join(" | ")),
                }
            }
            BenchError::Interrupted { command } => {
                write!(f, "`{command}` was stopped by a signal to bt-arena")
            }
            BenchError::Nondeterministic { command, counts } => write!(
                f,
                "`{command}` is not deterministic: {} benches at once counted {} nodes",
                counts.len(),
                counts
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl std::error::Error for BenchError {}

/// Runs `copies` (at least 1) benches of the engine `launch` describes at once: its command
/// and arguments followed by `bench`, in its directory with its environment, its standard input
/// closed. Each is started as an engine is ([`Process`]: a process group of its own, the
/// parent-death signal) and killed with its group on timeout or when `stop` is set. The counts
/// are read from standard output (its last [`KEPT_LINES`] lines), else from the last 2 KiB of
/// standard error.
///
/// # Errors
/// A [`BenchError`]: the engine cannot start, runs too long, prints no bench, or its copies
/// disagree on the node count; [`BenchError::Interrupted`] when `stop` is set (bt-arena
/// received SIGINT, SIGTERM or SIGHUP) before they finish.
pub fn run_bench(
    launch: &EngineLaunch,
    copies: usize,
    stop: &AtomicBool,
) -> Result<BenchRun, BenchError> {
    let command = command_line(launch);
    let mut bench = launch.clone();
    bench.args.push(BENCH_ARG.to_string());
    // Its output is no protocol and is not logged.
    (bench.comm_log, bench.stderr_log) = (None, None);
    let mut processes = Vec::new();
    for _ in 0..copies.max(1) {
        match Process::spawn(&bench) {
            Ok(mut process) => {
                process.close_stdin();
                processes.push(process);
            }
            // The copies started are ended when `processes` is dropped.
            Err(error) => {
                return Err(BenchError::Start {
                    command,
                    error: start_error(error),
                });
            }
        }
    }
    let deadline = Instant::now() + BENCH_TIMEOUT;
    let outputs: Vec<Result<BenchOutput, BenchError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = processes
            .into_iter()
            .map(|process| {
                let command = &command;
                scope.spawn(move || read_bench(process, deadline, stop, command))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle.join().unwrap_or_else(|_| {
                    Err(BenchError::Timeout {
                        command: command.clone(),
                    })
                })
            })
            .collect()
    });
    let mut counts = Vec::new();
    let mut speeds = Vec::new();
    for output in outputs {
        let output = output?;
        // Standard output first; what it lacks may be on standard error.
        let (nodes, nps) = parse_bench_output(&output.stdout);
        let (err_nodes, err_nps) = parse_bench_output(&output.stderr);
        match (nodes.or(err_nodes), nps.or(err_nps)) {
            (Some(nodes), Some(nps)) => {
                counts.push(nodes);
                speeds.push(nps);
            }
            _ => {
                let both = format!("{}\n{}", output.stdout, output.stderr);
                let lines: Vec<&str> = both.lines().filter(|l| !l.trim().is_empty()).collect();
                let tail = lines[lines.len().saturating_sub(3)..]
                    .iter()
                    .map(|line| line.chars().take(200).collect())
                    .collect();
                return Err(BenchError::NoBench {
                    command,
                    status: output.status,
                    tail,
                });
            }
        }
    }
    if counts.iter().any(|&count| count != counts[0]) {
        return Err(BenchError::Nondeterministic { command, counts });
    }
    let nps = speeds.iter().sum::<u64>() / speeds.len() as u64;
    Ok(BenchRun {
        nodes: counts[0],
        nps,
        copies: speeds,
    })
}

/// The lines of a bench's standard output kept: its last ones, where the totals are.
pub const KEPT_LINES: usize = 1000;

/// What one bench printed and how it exited.
struct BenchOutput {
    /// Its last [`KEPT_LINES`] lines of standard output.
    stdout: String,
    /// The end of its standard error.
    stderr: String,
    /// How it exited (`exit status: 0`).
    status: String,
}

/// The reason a bench could not start, from the error of its spawn.
fn start_error(error: EngineError) -> String {
    match error {
        EngineError::Spawn { source, .. } => source.to_string(),
        EngineError::NotExecutable { .. } => "permission denied (not executable)".to_string(),
        other => other.to_string(),
    }
}

/// `CMD ARGS bench`, for messages.
fn command_line(launch: &EngineLaunch) -> String {
    std::iter::once(launch.cmd.display().to_string())
        .chain(launch.args.iter().cloned())
        .chain(std::iter::once(BENCH_ARG.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How often a bench that prints nothing looks at `stop`.
const STOP_POLL: Duration = Duration::from_millis(50);

/// What the bench `process` prints until it closes its output, and how it exits; a timeout
/// past `deadline`, or [`BenchError::Interrupted`] once `stop` is set (the process and its
/// group killed either way).
fn read_bench(
    mut process: Process,
    deadline: Instant,
    stop: &AtomicBool,
    command: &str,
) -> Result<BenchOutput, BenchError> {
    let mut lines = VecDeque::new();
    let mut line = String::new();
    loop {
        if stop.load(Ordering::SeqCst) {
            process.end_by(Instant::now());
            return Err(BenchError::Interrupted {
                command: command.to_string(),
            });
        }
        match process.recv_into((Instant::now() + STOP_POLL).min(deadline), &mut line) {
            Some(Received::Line(_)) => {
                if lines.len() == KEPT_LINES {
                    lines.pop_front();
                }
                lines.push_back(std::mem::take(&mut line));
            }
            // A line too long stops the reading: what came before it is kept.
            Some(Received::TooLong | Received::Closed) => break,
            None if Instant::now() >= deadline => {
                process.end_by(Instant::now());
                return Err(BenchError::Timeout {
                    command: command.to_string(),
                });
            }
            None => {}
        }
    }
    // Its output is closed: it has exited or is about to, within the bench's time.
    let status = process.end_by(deadline);
    let killed = status.is_some_and(|status| super::stop::died_of_signal(&status));
    if super::stop::stopping(stop, killed) {
        return Err(BenchError::Interrupted {
            command: command.to_string(),
        });
    }
    Ok(BenchOutput {
        stdout: Vec::from(lines).join("\n"),
        stderr: process.stderr_tail(),
        status: status.map_or_else(|| "not reaped".to_string(), |status| status.to_string()),
    })
}

/// The node count and speed in a bench's output, read as OpenBench's worker reads them: from
/// the last line up, every character but letters and digits taken as a space, the first
/// node count found (`N nodes`, `nodes N` or `nodes searched N`, case-insensitive) and the
/// first speed found (`N nps`, `nps N` or `nodes second N`, as in Stockfish's
/// `Nodes/second : N`), each independently, leftmost in its line. Words are compared whole.
pub fn parse_bench_output(output: &str) -> (Option<u64>, Option<u64>) {
    use Token::{Number, Word};
    const NODES: [&[Token]; 3] = [
        &[Number, Word("nodes")],
        &[Word("nodes"), Number],
        &[Word("nodes"), Word("searched"), Number],
    ];
    const NPS: [&[Token]; 3] = [
        &[Number, Word("nps")],
        &[Word("nps"), Number],
        &[Word("nodes"), Word("second"), Number],
    ];
    let mut nodes = None;
    let mut nps = None;
    for line in output.lines().rev() {
        let cleaned: String = line
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    ' '
                }
            })
            .collect();
        let words: Vec<&str> = cleaned.split_whitespace().collect();
        nodes = nodes.or_else(|| first_match(&words, &NODES));
        nps = nps.or_else(|| first_match(&words, &NPS));
        if nodes.is_some() && nps.is_some() {
            break;
        }
    }
    (nodes, nps)
}

/// One word of a pattern of [`parse_bench_output`].
#[derive(Clone, Copy)]
enum Token {
    /// A whole number: the value the pattern reads.
    Number,
    /// This word.
    Word(&'static str),
}

/// The number of the leftmost match of any of `patterns` in `words` (at one position, the
/// first pattern that matches).
fn first_match(words: &[&str], patterns: &[&[Token]]) -> Option<u64> {
    (0..words.len()).find_map(|start| {
        patterns.iter().find_map(|pattern| {
            let window = words.get(start..start + pattern.len())?;
            let mut value = None;
            for (token, word) in pattern.iter().zip(window) {
                match token {
                    Token::Number => value = Some(word.parse::<u64>().ok()?),
                    Token::Word(expected) if word == expected => {}
                    Token::Word(_) => return None,
                }
            }
            value
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_output_is_read_as_openbench_reads_it() {
        assert_eq!(
            parse_bench_output("1234 nodes 5678 nps\n"),
            (Some(1234), Some(5678))
        );
        // Stockfish's summary.
        let stockfish = "info depth 13 nodes 99 nps 5\n===========================\n\
                         Total time (ms) : 1500\nNodes searched  : 2345678\nNodes/second    : 1563785\n";
        assert_eq!(
            parse_bench_output(stockfish),
            (Some(2345678), Some(1563785))
        );
        // Per-position lines above the total do not count: the last line wins.
        let ours =
            "position  1:      10 nodes  pppppppp/... w\ndepth 10, 750 ms\n1500 nodes 2000 nps\n";
        assert_eq!(parse_bench_output(ours), (Some(1500), Some(2000)));
        // Ethereal's `OVERALL: N nodes M nps`, with punctuation around.
        assert_eq!(
            parse_bench_output("OVERALL:  7000 nodes,   9000 nps.\n"),
            (Some(7000), Some(9000))
        );
        assert_eq!(
            parse_bench_output("Bench: 42 nodes\nnps: 7"),
            (Some(42), Some(7))
        );
        assert_eq!(parse_bench_output("ugiok\nnothing here\n"), (None, None));
        assert_eq!(parse_bench_output("12 nodesearched 5"), (None, None));
    }

    /// [`run_bench`] with no stop.
    fn run_bench_now(launch: &EngineLaunch, copies: usize) -> Result<BenchRun, BenchError> {
        run_bench(launch, copies, &AtomicBool::new(false))
    }

    fn shell(script: &str) -> EngineLaunch {
        EngineLaunch {
            name: "sh".into(),
            cmd: "/bin/sh".into(),
            args: vec!["-c".into(), script.into(), "engine".into()],
            ..EngineLaunch::default()
        }
    }

    /// The start and end times (ns since the epoch) each copy of a bench wrote to its slot
    /// directory `slot1`, `slot2`, ... under `dir`.
    fn copy_times(dir: &std::path::Path, copies: usize) -> Vec<(u128, u128)> {
        (1..=copies)
            .map(|slot| {
                let read = |name: &str| -> u128 {
                    let file = dir.join(format!("slot{slot}")).join(name);
                    let text = std::fs::read_to_string(&file)
                        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                    text.trim().parse().expect("a time in ns")
                };
                (read("start"), read("end"))
            })
            .collect()
    }

    #[test]
    fn a_bench_runs_as_many_copies_as_asked_and_averages_their_speed() {
        // Each copy takes the first free slot (mkdir is atomic), records when it started, waits
        // until all three have started (for at most 10 s), records when it ended, and prints
        // its slot's speed: 100, 200 and 600 nps, whose mean (300) is none of them.
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            "[ \"$1\" = bench ] || exit 9; d='{}'; i=1; \
             while ! mkdir \"$d/slot$i\" 2>/dev/null; do i=$((i + 1)); done; \
             date +%s%N > \"$d/slot$i/start\"; n=0; \
             while [ $(ls -d \"$d\"/slot* | wc -l) -lt 3 ] && [ $n -lt 1000 ]; do \
             sleep 0.01; n=$((n + 1)); done; \
             date +%s%N > \"$d/slot$i/end\"; echo 'searching'; \
             case $i in 1) nps=100;; 2) nps=200;; *) nps=600;; esac; echo \"777 nodes $nps nps\"",
            dir.path().display()
        );
        let run = run_bench_now(&shell(&script), 3).unwrap();
        assert_eq!(run.nodes, 777);
        let mut speeds = run.copies.clone();
        speeds.sort_unstable();
        assert_eq!(speeds, [100, 200, 600], "{run:?}");
        assert_eq!(run.nps, 300, "{run:?}");
        // The copies ran at the same time: each started before any ended.
        let times = copy_times(dir.path(), 3);
        let last_start = times.iter().map(|t| t.0).max().unwrap();
        let first_end = times.iter().map(|t| t.1).min().unwrap();
        assert!(last_start < first_end, "not at once: {times:?}");
        let one = run_bench_now(&shell("echo '5 nodes 10 nps'"), 1).unwrap();
        assert_eq!(one.to_string(), "5 nodes 10 nps");
        // Standard output wins over standard error, which is read when it has the bench.
        let both = run_bench_now(
            &shell("echo '5 nodes 10 nps'; echo '99 nodes 1 nps' >&2"),
            1,
        );
        assert_eq!(both.unwrap().nodes, 5);
        let stderr = run_bench_now(&shell("echo 'info'; echo '9 nodes 3 nps' >&2"), 1);
        assert_eq!(stderr.unwrap().nodes, 9);
        assert_eq!(
            BenchRun {
                nodes: 5,
                nps: 10,
                copies: vec![10, 10]
            }
            .to_string(),
            "5 nodes 10 nps (mean of 2 benches at once)"
        );
    }

    /// A bench in progress is stopped once `stop` is set (bt-arena received a signal): its
    /// process is killed and the error says so.
    #[test]
    fn a_bench_is_stopped_when_the_stop_flag_is_set() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let launch = shell(&format!(
            "echo $$ > '{}'; exec sleep 1000",
            pid_file.display()
        ));
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let setter = {
            let stop = std::sync::Arc::clone(&stop);
            let pid_file = pid_file.clone();
            std::thread::spawn(move || {
                while !std::fs::read_to_string(&pid_file).is_ok_and(|t| t.ends_with('\n')) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                stop.store(true, Ordering::SeqCst);
            })
        };
        let err = run_bench(&launch, 1, &stop).unwrap_err();
        setter.join().unwrap();
        assert!(matches!(err, BenchError::Interrupted { .. }), "{err:?}");
        assert!(
            err.to_string()
                .ends_with("bench` was stopped by a signal to bt-arena"),
            "{err}"
        );
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SAFETY: signal 0 only checks for existence; the process was reaped by the bench.
        let gone = unsafe { libc::kill(pid, 0) } == -1;
        assert!(gone, "the bench's process {pid} was killed and reaped");
    }

    #[test]
    fn engines_without_a_bench_or_with_a_nondeterministic_one_are_named() {
        let err = run_bench_now(&shell("echo 'unknown command'; exit 2"), 1).unwrap_err();
        assert_eq!(
            err,
            BenchError::NoBench {
                command: "/bin/sh -c echo 'unknown command'; exit 2 engine bench".into(),
                status: "exit status: 2".into(),
                tail: vec!["unknown command".into()],
            }
        );
        assert!(
            err.to_string()
                .contains("the engine has no bench: `/bin/sh"),
            "{err}"
        );
        assert!(
            err.to_string()
                .ends_with("; its last output: unknown command"),
            "{err}"
        );
        let err = run_bench_now(&shell("echo \"$$ nodes 5 nps\""), 2).unwrap_err();
        assert!(
            matches!(&err, BenchError::Nondeterministic { counts, .. } if counts.len() == 2),
            "{err:?}"
        );
        let missing = EngineLaunch {
            cmd: "/nonexistent/engine".into(),
            ..EngineLaunch::default()
        };
        assert!(matches!(
            run_bench_now(&missing, 1),
            Err(BenchError::Start { .. })
        ));
    }
}
