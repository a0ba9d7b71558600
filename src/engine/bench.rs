//! An engine's bench, in OpenBench's convention: `ENGINE ARGS bench` searches the engine's own
//! fixed positions to a fixed depth, prints its total node count and speed (`N nodes M nps`)
//! and exits. The node count is the build's **signature** (the same search gives the same
//! count on any machine); the speed is the machine's.
//!
//! As OpenBench's worker does (`Client/bench.py`): `copies` benches run at once (one per game
//! played at a time, so the speed is measured under the load the games will put on the
//! machine); every copy must print the same node count (a nondeterministic build is refused);
//! the speed is the mean of the copies'; each may take [`BENCH_TIMEOUT`]. The output is read
//! as OpenBench reads it ([`parse_bench_output`]).

use super::EngineLaunch;
use std::fmt;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
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
/// and arguments followed by `bench`, in its directory with its environment, standard input
/// closed. Each runs in a process group of its own, killed whole on timeout. The counts are
/// read from standard output, else from standard error.
///
/// # Errors
/// A [`BenchError`]: the engine cannot start, runs too long, prints no bench, or its copies
/// disagree on the node count.
pub fn run_bench(launch: &EngineLaunch, copies: usize) -> Result<BenchRun, BenchError> {
    let command = command_line(launch);
    let mut children = Vec::new();
    for _ in 0..copies.max(1) {
        let mut process = Command::new(&launch.cmd);
        process
            .args(&launch.args)
            .arg(BENCH_ARG)
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = &launch.dir {
            process.current_dir(dir);
        }
        match process.spawn() {
            Ok(child) => children.push(child),
            Err(error) => {
                for child in &mut children {
                    kill_group(child);
                }
                return Err(BenchError::Start {
                    command,
                    error: error.to_string(),
                });
            }
        }
    }
    let deadline = Instant::now() + BENCH_TIMEOUT;
    let outputs: Vec<Result<(String, String, String), BenchError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = children
            .into_iter()
            .map(|child| {
                let command = &command;
                scope.spawn(move || wait_output(child, deadline, command))
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
        let (stdout, stderr, status) = output?;
        // Standard output first; what it lacks may be on standard error.
        let (nodes, nps) = parse_bench_output(&stdout);
        let (err_nodes, err_nps) = parse_bench_output(&stderr);
        match (nodes.or(err_nodes), nps.or(err_nps)) {
            (Some(nodes), Some(nps)) => {
                counts.push(nodes);
                speeds.push(nps);
            }
            _ => {
                let both = format!("{stdout}\n{stderr}");
                let lines: Vec<&str> = both.lines().filter(|l| !l.trim().is_empty()).collect();
                let tail = lines[lines.len().saturating_sub(3)..]
                    .iter()
                    .map(|line| line.chars().take(200).collect())
                    .collect();
                return Err(BenchError::NoBench {
                    command,
                    status,
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

/// `CMD ARGS bench`, for messages.
fn command_line(launch: &EngineLaunch) -> String {
    std::iter::once(launch.cmd.display().to_string())
        .chain(launch.args.iter().cloned())
        .chain(std::iter::once(BENCH_ARG.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The output of `child` (stdout and stderr) and how it exited, or a timeout (the process
/// group killed) past `deadline`.
fn wait_output(
    mut child: Child,
    deadline: Instant,
    command: &str,
) -> Result<(String, String, String), BenchError> {
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    std::thread::scope(|scope| {
        let out = scope.spawn(|| read_all(stdout));
        let err = scope.spawn(|| read_all(stderr));
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    kill_group(&mut child);
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(_) => break None,
            }
        };
        // The group is gone or done: a grandchild holding the pipes open is killed with it.
        kill_group(&mut child);
        let (out, err) = (
            out.join().unwrap_or_default(),
            err.join().unwrap_or_default(),
        );
        match status {
            Some(status) => Ok((out, err, status.to_string())),
            None => Err(BenchError::Timeout {
                command: command.to_string(),
            }),
        }
    })
}

/// Everything `pipe` gives until its end, as text (nothing without a pipe).
fn read_all(pipe: Option<impl Read>) -> String {
    let mut bytes = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Kills the process group of `child` (its pid: it was spawned as the group's leader) and
/// reaps the child.
fn kill_group(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill with a negative pid signals the group `pid` leads; no memory involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.wait();
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

    fn shell(script: &str) -> EngineLaunch {
        EngineLaunch {
            name: "sh".into(),
            cmd: "/bin/sh".into(),
            args: vec!["-c".into(), script.into(), "engine".into()],
            ..EngineLaunch::default()
        }
    }

    #[test]
    fn a_bench_runs_as_many_copies_as_asked_and_averages_their_speed() {
        // $1 is `bench`; each copy takes a different speed from its pid's parity.
        let run = run_bench(
            &shell("[ \"$1\" = bench ] || exit 9; echo 'searching'; echo \"777 nodes $(( ($$ % 2) * 100 + 100 )) nps\""),
            3,
        )
        .unwrap();
        assert_eq!(run.nodes, 777);
        assert_eq!(run.copies.len(), 3);
        assert!(
            run.copies.iter().all(|&nps| nps == 100 || nps == 200),
            "{run:?}"
        );
        assert_eq!(run.nps, run.copies.iter().sum::<u64>() / 3);
        let one = run_bench(&shell("echo '5 nodes 10 nps'"), 1).unwrap();
        assert_eq!(one.to_string(), "5 nodes 10 nps");
        // Standard output wins over standard error, which is read when it has the bench.
        let both = run_bench(
            &shell("echo '5 nodes 10 nps'; echo '99 nodes 1 nps' >&2"),
            1,
        );
        assert_eq!(both.unwrap().nodes, 5);
        let stderr = run_bench(&shell("echo 'info'; echo '9 nodes 3 nps' >&2"), 1);
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

    #[test]
    fn engines_without_a_bench_or_with_a_nondeterministic_one_are_named() {
        let err = run_bench(&shell("echo 'unknown command'; exit 2"), 1).unwrap_err();
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
        let err = run_bench(&shell("echo \"$$ nodes 5 nps\""), 2).unwrap_err();
        assert!(
            matches!(&err, BenchError::Nondeterministic { counts, .. } if counts.len() == 2),
            "{err:?}"
        );
        let missing = EngineLaunch {
            cmd: "/nonexistent/engine".into(),
            ..EngineLaunch::default()
        };
        assert!(matches!(
            run_bench(&missing, 1),
            Err(BenchError::Start { .. })
        ));
    }
}
