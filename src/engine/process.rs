//! An engine as an operating-system process: spawning without a shell, talking to it through
//! its stdin and stdout, the thread that keeps its stderr, the communication log, and ending it
//! without leaving a zombie or an orphan.
//!
//! - Lines are written to stdin and read from stdout by the calling thread, with no thread in
//!   between (a thread hop costs more than a fast engine's whole move). Both pipes are
//!   non-blocking on the runner's side and every wait for them is a `poll` bounded by a
//!   deadline, so an engine that stops reading or writing never blocks the runner.
//! - Each engine runs in its own process group, so a Ctrl-C in the terminal reaches the runner
//!   only; the runner decides when engines stop.
//! - On Linux each engine gets `PR_SET_PDEATHSIG(SIGKILL)`, so it is killed when the runner
//!   dies, even by SIGKILL. The signal follows the thread that forked, so every engine is
//!   spawned from one long-lived spawner thread: engines may be started and used on any thread.
//! - Ending an engine kills its whole process group (helpers it started too) before reaping it.

mod group;
mod logs;
mod pipes;
mod spawn;

use super::EngineLaunch;
use super::error::EngineError;
pub(crate) use group::{GroupChild, GroupEnd};
use group::{signal_group, wait_unreaped};
use logs::{CommLog, Direction, copy_stderr};
use pipes::{LineReader, set_nonblocking, write_all_by};
use spawn::{command, spawn_child, spawn_error, spawn_thread};
use std::fs::OpenOptions;
use std::io;
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, ExitStatus};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest line read from an engine, in bytes; a longer one ends the reading.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// How long to wait for the end of an ended engine's stderr.
const STDERR_DRAIN: Duration = Duration::from_millis(200);
/// How often the exit of an engine is polled while waiting for it.
const EXIT_POLL: Duration = Duration::from_millis(5);

/// What the engine's stdout gave.
#[derive(Debug)]
pub(crate) enum Output {
    /// A line, without its line ending, and when it arrived.
    Line(String, Instant),
    /// A line longer than [`MAX_LINE_BYTES`]; nothing more is read.
    TooLong,
    /// The engine closed its stdout (it has usually exited).
    Closed,
}

/// What [`Process::recv_into`] received: [`Output`] with the line's text in the caller's
/// buffer.
#[derive(Debug)]
pub(crate) enum Received {
    /// A line (its text is in the buffer) and when it arrived.
    Line(Instant),
    /// As [`Output::TooLong`].
    TooLong,
    /// As [`Output::Closed`].
    Closed,
}

/// Why lines could not be written to the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendError {
    /// Its stdin is closed: it has exited (or been told to quit).
    Closed,
    /// It did not take the bytes before the deadline (its stdin pipe stayed full); nothing
    /// more is written to it.
    Stalled,
}

/// A running engine process, its pipes and the stderr thread.
pub(crate) struct Process {
    engine: String,
    child: Child,
    /// The engine's stdin, non-blocking; `None` once closed.
    stdin: Option<ChildStdin>,
    /// True once a write missed its deadline: nothing more is written.
    stalled: bool,
    stdout: LineReader,
    /// The bytes of the lines being sent, reused.
    send_buffer: Vec<u8>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    /// Disconnects when the stderr thread has copied everything.
    stderr_done: Receiver<()>,
    log: Option<CommLog>,
    /// How long `quit` waits before killing, also when dropped.
    quit_grace: Duration,
    /// Set once the process is reaped: its pid may then belong to someone else.
    reaped: Option<ExitStatus>,
}

impl Process {
    /// Starts `launch.cmd` with its arguments, directory and environment: no shell, a process
    /// group of its own, the parent-death signal, stdin/stdout piped, stderr to the log.
    pub(crate) fn spawn(launch: &EngineLaunch) -> Result<Process, EngineError> {
        let io_error = |context: String| {
            move |source| EngineError::Io {
                engine: launch.name.clone(),
                context,
                source,
            }
        };
        let log = match &launch.comm_log {
            Some(path) => Some(
                CommLog::open(path, &launch.name)
                    .map_err(io_error(format!("opening the log {}", path.display())))?,
            ),
            None => None,
        };
        let stderr_log = match &launch.stderr_log {
            Some(path) => Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(io_error(format!(
                        "opening the stderr log {}",
                        path.display()
                    )))?,
            ),
            None => None,
        };
        let mut child =
            spawn_child(command(launch)).map_err(|source| spawn_error(launch, source))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io_error("taking the pipes".into())(io::Error::other(
                "a pipe is missing",
            )));
        };
        if let Err(source) =
            set_nonblocking(stdin.as_raw_fd()).and_then(|()| set_nonblocking(stdout.as_raw_fd()))
        {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io_error("making the pipes non-blocking".into())(source));
        }
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let (stderr_alive, stderr_done) = channel::<()>();
        spawn_thread("stderr", {
            let tail = Arc::clone(&stderr_tail);
            move || {
                copy_stderr(stderr, stderr_log, &tail);
                drop(stderr_alive);
            }
        });
        Ok(Process {
            engine: launch.name.clone(),
            child,
            stdin: Some(stdin),
            stalled: false,
            stdout: LineReader::new(stdout, log.clone()),
            send_buffer: Vec::new(),
            stderr_tail,
            stderr_done,
            log,
            quit_grace: launch.timeouts.quit_grace,
            reaped: None,
        })
    }

    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `lines` to the engine's stdin, each with a newline, in one write when the pipe
    /// has room, and logs them; waits for room until `deadline` at the latest.
    pub(crate) fn send(&mut self, lines: &[&str], deadline: Instant) -> Result<(), SendError> {
        if let Some(log) = &self.log {
            for line in lines {
                log.record(Direction::ToEngine, line);
            }
        }
        if self.stalled {
            return Err(SendError::Stalled);
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(SendError::Closed);
        };
        self.send_buffer.clear();
        for line in lines {
            self.send_buffer.extend_from_slice(line.as_bytes());
            self.send_buffer.push(b'\n');
        }
        let written = write_all_by(stdin, &self.send_buffer, deadline);
        self.stalled = written == Err(SendError::Stalled);
        written
    }

    /// Writes a note of the runner's (a warning) to the communication log, if there is one.
    pub(crate) fn note(&self, text: &str) {
        if let Some(log) = &self.log {
            log.record(Direction::Note, text);
        }
    }

    /// The next output of the engine, waiting until `deadline`; `None` when it passes first.
    pub(crate) fn recv(&mut self, deadline: Instant) -> Option<Output> {
        let mut line = String::new();
        self.recv_into(deadline, &mut line)
            .map(|received| match received {
                Received::Line(at) => Output::Line(line, at),
                Received::TooLong => Output::TooLong,
                Received::Closed => Output::Closed,
            })
    }

    /// [`recv`](Process::recv) with the line's text put in `line` (cleared first), so that a
    /// reader of many lines keeps one buffer.
    pub(crate) fn recv_into(&mut self, deadline: Instant, line: &mut String) -> Option<Received> {
        self.stdout.next(deadline, line)
    }

    /// The last bytes the engine wrote to stderr, as text; once the engine has ended, after
    /// waiting briefly for the rest of its stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        if self.reaped.is_some() {
            let _ = self.stderr_done.recv_timeout(STDERR_DRAIN);
        }
        let tail = self.stderr_tail.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&tail).into_owned()
    }

    /// Closes stdin, waits up to the quit grace for the engine to exit by itself, then kills
    /// its process group and reaps it. Returns how it ended (`None` if it could not be reaped).
    pub(crate) fn end(&mut self) -> Option<ExitStatus> {
        self.end_by(Instant::now() + self.quit_grace)
    }

    /// Closes the engine's stdin (it reads end of file): for a process that is given no input
    /// (a bench).
    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// [`Process::end`], waiting for the engine to exit by itself until `deadline`.
    pub(crate) fn end_by(&mut self, deadline: Instant) -> Option<ExitStatus> {
        self.stdin = None;
        if self.reaped.is_none() {
            self.wait_unreaped(deadline);
            self.kill_group();
            self.reaped = self.child.wait().ok();
        }
        self.reaped
    }

    /// Says `quit`, then ends the engine as [`Process::end`] does (writing `quit` counts
    /// against the quit grace).
    pub(crate) fn quit(&mut self) -> Option<ExitStatus> {
        if self.reaped.is_none() {
            let deadline = Instant::now() + self.quit_grace;
            let _ = self.send(&["quit"], deadline);
            return self.end_by(deadline);
        }
        self.end()
    }

    /// Waits until the process has exited or `deadline` passes, leaving it unreaped so that
    /// its pid and process group id stay reserved for [`Process::kill_group`].
    fn wait_unreaped(&self, deadline: Instant) {
        wait_unreaped(self.pid(), deadline);
    }

    /// SIGKILL to the engine's process group and to the engine itself (in case it left the
    /// group). Only called while the engine is unreaped, so the ids are still its own.
    fn kill_group(&mut self) {
        signal_group(self.pid(), libc::SIGKILL);
        let _ = self.child.kill();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.quit();
    }
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process")
            .field("engine", &self.engine)
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process running `script` under `sh`, quit briefly.
    fn spawn_sh(script: &str) -> Process {
        let launch = EngineLaunch {
            name: "sh".into(),
            cmd: "sh".into(),
            args: vec!["-c".into(), script.into()],
            timeouts: super::super::Timeouts {
                quit_grace: Duration::from_millis(100),
                ..Default::default()
            },
            ..Default::default()
        };
        match Process::spawn(&launch) {
            Ok(process) => process,
            Err(err) => panic!("sh runs: {err}"),
        }
    }

    fn line(output: Option<Output>) -> Option<String> {
        match output {
            Some(Output::Line(text, _)) => Some(text),
            _ => None,
        }
    }

    #[test]
    fn lines_are_split_without_line_endings_and_a_last_partial_line_is_kept() {
        let mut process = spawn_sh("printf 'a\\r\\nb\\n\\nc'");
        let deadline = Instant::now() + Duration::from_secs(10);
        let lines: Vec<Option<String>> = (0..4).map(|_| line(process.recv(deadline))).collect();
        let expected = ["a", "b", "", "c"].map(|s| Some(s.to_string()));
        assert_eq!(lines, expected);
        assert!(matches!(process.recv(deadline), Some(Output::Closed)));
        assert!(matches!(process.recv(deadline), Some(Output::Closed)));
    }

    #[test]
    fn reading_a_silent_engine_times_out_at_the_deadline() {
        let mut process = spawn_sh("sleep 10");
        let started = Instant::now();
        assert!(process.recv(started + Duration::from_millis(100)).is_none());
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
    }

    #[test]
    fn a_line_too_long_stops_the_reading() {
        let mut process = spawn_sh("head -c 100000 /dev/zero | tr '\\0' x; echo; echo after");
        let deadline = Instant::now() + Duration::from_secs(10);
        assert!(matches!(process.recv(deadline), Some(Output::TooLong)));
        assert!(matches!(process.recv(deadline), Some(Output::Closed)));
    }

    #[test]
    fn writes_to_an_engine_that_does_not_read_stall_at_the_deadline() {
        let mut process = spawn_sh("sleep 10");
        let huge = "x".repeat(1 << 20);
        let started = Instant::now();
        let sent = process.send(&[&huge], started + Duration::from_millis(200));
        assert_eq!(sent, Err(SendError::Stalled));
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(200), "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
        // Nothing more is written, and quitting does not wait for the pipe.
        assert_eq!(
            process.send(&["isready"], Instant::now() + Duration::from_secs(10)),
            Err(SendError::Stalled)
        );
        let quitting = Instant::now();
        assert!(process.quit().is_some());
        assert!(quitting.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn writes_to_an_exited_engine_report_it_closed() {
        let mut process = spawn_sh("exec 0<&-; sleep 10");
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut sent = Ok(());
        for _ in 0..100 {
            sent = process.send(&["isready"], deadline);
            if sent.is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(sent, Err(SendError::Closed));
        assert_eq!(process.send(&["isready"], deadline), Err(SendError::Closed));
    }
}
