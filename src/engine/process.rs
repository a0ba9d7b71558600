//! An engine as an operating-system process: spawning without a shell, the threads that carry
//! its stdin, stdout and stderr, the communication log, and ending it without leaving a zombie
//! or an orphan.
//!
//! - Each engine runs in its own process group, so a Ctrl-C in the terminal reaches the runner
//!   only; the runner decides when engines stop.
//! - On Linux each engine gets `PR_SET_PDEATHSIG(SIGKILL)`, so it is killed when the runner
//!   dies, even by SIGKILL. The signal follows the thread that forked, so every engine is
//!   spawned from one long-lived spawner thread: engines may be started and used on any thread.
//! - Ending an engine kills its whole process group (helpers it started too) before reaping it.

use super::EngineConfig;
use super::error::EngineError;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest line read from an engine, in bytes; a longer one ends the reading.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// How many bytes of an engine's stderr are kept for error messages.
const STDERR_TAIL_BYTES: usize = 2048;
/// How many unread stdout lines are buffered before the engine's writes block.
const LINE_QUEUE: usize = 4096;
/// How long to wait for the end of an ended engine's stderr.
const STDERR_DRAIN: Duration = Duration::from_millis(200);
/// How often the exit of an engine is polled while waiting for it.
const EXIT_POLL: Duration = Duration::from_millis(5);

/// What the stdout thread reports.
#[derive(Debug)]
pub(crate) enum Output {
    /// A line, without its line ending, and when it arrived.
    Line(String, Instant),
    /// A line longer than [`MAX_LINE_BYTES`]; nothing more is read.
    TooLong,
    /// The engine closed its stdout (it has usually exited).
    Closed,
}

/// Which way a logged line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    ToEngine,
    FromEngine,
}

/// The communication log: every line both ways, one per log line, as
/// `<seconds since the runner's first logged line> <engine name> <'>' to | '<' from> <line>`.
#[derive(Clone)]
struct CommLog {
    file: Arc<Mutex<File>>,
    engine: Arc<str>,
}

impl CommLog {
    fn open(path: &Path, engine: &str) -> io::Result<CommLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(CommLog {
            file: Arc::new(Mutex::new(file)),
            engine: engine.into(),
        })
    }

    /// Appends one record; a failing log never stops a game.
    fn record(&self, direction: Direction, line: &str) {
        static EPOCH: OnceLock<Instant> = OnceLock::new();
        let seconds = EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64();
        let arrow = match direction {
            Direction::ToEngine => '>',
            Direction::FromEngine => '<',
        };
        let record = format!("{seconds:10.3} {} {arrow} {line}\n", self.engine);
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let _ = file.write_all(record.as_bytes());
    }
}

/// A running engine process and the threads around it.
pub(crate) struct Process {
    engine: String,
    child: Child,
    /// Lines to write to the engine's stdin (by the writer thread, so a stuck engine never
    /// blocks the runner); `None` once closed.
    stdin: Option<Sender<String>>,
    lines: Receiver<Output>,
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
    /// Starts `config.cmd` with its arguments, directory and environment: no shell, a process
    /// group of its own, the parent-death signal, stdin/stdout piped, stderr to the log.
    pub(crate) fn spawn(config: &EngineConfig) -> Result<Process, EngineError> {
        let io_error = |context: String| {
            move |source| EngineError::Io {
                engine: config.name.clone(),
                context,
                source,
            }
        };
        let log = match &config.comm_log {
            Some(path) => Some(
                CommLog::open(path, &config.name)
                    .map_err(io_error(format!("opening the log {}", path.display())))?,
            ),
            None => None,
        };
        let stderr_log = match &config.stderr_log {
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
            spawn_child(command(config)).map_err(|source| spawn_error(config, source))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io_error("taking the pipes".into())(io::Error::other(
                "a pipe is missing",
            )));
        };
        let (line_sender, lines) = sync_channel(LINE_QUEUE);
        spawn_thread("stdout", {
            let log = log.clone();
            move || read_lines(stdout, &line_sender, log.as_ref())
        });
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let (stderr_alive, stderr_done) = channel::<()>();
        spawn_thread("stderr", {
            let tail = Arc::clone(&stderr_tail);
            move || {
                copy_stderr(stderr, stderr_log, &tail);
                drop(stderr_alive);
            }
        });
        let (stdin_sender, stdin_lines) = channel();
        spawn_thread("stdin", move || write_lines(stdin, &stdin_lines));
        Ok(Process {
            engine: config.name.clone(),
            child,
            stdin: Some(stdin_sender),
            lines,
            stderr_tail,
            stderr_done,
            log,
            quit_grace: config.timeouts.quit_grace,
            reaped: None,
        })
    }

    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Queues `line` for the engine's stdin and logs it. False when the engine's stdin is
    /// closed (it has exited or been told to quit).
    pub(crate) fn send(&self, line: &str) -> bool {
        if let Some(log) = &self.log {
            log.record(Direction::ToEngine, line);
        }
        self.stdin
            .as_ref()
            .is_some_and(|stdin| stdin.send(line.to_string()).is_ok())
    }

    /// The next output of the engine, waiting until `deadline`; `None` when it passes first.
    pub(crate) fn recv(&self, deadline: Instant) -> Option<Output> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(timeout) {
            Ok(output) => Some(output),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Output::Closed),
        }
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
        self.stdin = None;
        if self.reaped.is_none() {
            self.wait_unreaped(Instant::now() + self.quit_grace);
            self.kill_group();
            self.reaped = self.child.wait().ok();
        }
        self.reaped
    }

    /// Says `quit`, then ends the engine as [`Process::end`] does.
    pub(crate) fn quit(&mut self) -> Option<ExitStatus> {
        if self.reaped.is_none() {
            self.send("quit");
        }
        self.end()
    }

    /// Waits until the process has exited or `deadline` passes, leaving it unreaped so that
    /// its pid and process group id stay reserved for [`Process::kill_group`].
    fn wait_unreaped(&self, deadline: Instant) {
        let pid: libc::id_t = self.pid();
        loop {
            // SAFETY: `waitid` writes only to `info`, a plain C struct owned by this frame.
            let exited = unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
                let rc = libc::waitid(libc::P_PID, pid, &mut info, flags);
                rc != 0 || info.si_pid() != 0
            };
            if exited || Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(EXIT_POLL);
        }
    }

    /// SIGKILL to the engine's process group and to the engine itself (in case it left the
    /// group). Only called while the engine is unreaped, so the ids are still its own.
    fn kill_group(&mut self) {
        if let Ok(pid) = libc::pid_t::try_from(self.pid()) {
            // SAFETY: plain system calls on ids reserved by our unreaped child.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
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

/// The command for `config`: program, arguments, directory, environment, pipes, own process
/// group and (Linux) the parent-death signal.
fn command(config: &EngineConfig) -> Command {
    let mut command = Command::new(&config.cmd);
    command
        .args(&config.args)
        .envs(config.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = &config.dir {
        command.current_dir(dir);
    }
    set_parent_death_signal(&mut command);
    command
}

/// A request to the spawner thread: the command, and where to send the child.
type SpawnRequest = (Command, Sender<io::Result<Child>>);

/// Spawns `command` on one thread that lives as long as the runner. The parent-death signal
/// fires when the thread that spawned a child ends, so spawning from there makes it fire only
/// when the runner ends, whichever threads start and use engines.
fn spawn_child(command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<Sender<SpawnRequest>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (requests, inbox) = channel::<SpawnRequest>();
        spawn_thread("spawner", move || {
            for (mut command, reply) in inbox {
                let _ = reply.send(command.spawn());
            }
        });
        requests
    });
    let (reply, answer) = channel();
    match spawner.send((command, reply)) {
        Ok(()) => answer
            .recv()
            .unwrap_or_else(|_| Err(io::Error::other("the engine spawner thread is gone"))),
        // No spawner thread could be started: spawn here (the signal then follows this thread).
        Err(std::sync::mpsc::SendError((mut command, _))) => command.spawn(),
    }
}

/// Makes the child receive SIGKILL when the thread that spawned it ends (Linux only).
#[cfg(target_os = "linux")]
fn set_parent_death_signal(command: &mut Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
    // functions (prctl, getppid); it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            // The runner died before prctl took effect: do not run as an orphan.
            if u32::try_from(libc::getppid()) != Ok(parent) {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_parent_death_signal(_command: &mut Command) {}

/// The typed error for a failed spawn.
fn spawn_error(config: &EngineConfig, source: io::Error) -> EngineError {
    let engine = config.name.clone();
    let cmd = config.cmd.clone();
    if source.kind() == io::ErrorKind::PermissionDenied {
        EngineError::NotExecutable { engine, cmd }
    } else {
        EngineError::Spawn {
            engine,
            cmd,
            source,
        }
    }
}

/// Runs `work` on a named thread; a thread that cannot be created leaves its pipe unserved,
/// which shows up as a timeout or a closed engine.
fn spawn_thread(role: &str, work: impl FnOnce() + Send + 'static) {
    let _ = std::thread::Builder::new()
        .name(format!("engine-{role}"))
        .spawn(work);
}

/// Writes each queued line and a newline to the engine until the queue closes or a write
/// fails; closing stdin on return tells the engine its input ended.
fn write_lines(mut stdin: ChildStdin, lines: &Receiver<String>) {
    for line in lines {
        let written = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if written.is_err() {
            return;
        }
    }
}

/// Reads stdout into `lines`, line by line, logging each; stops at end of output, at a read
/// error (reported as closed) or at a line longer than [`MAX_LINE_BYTES`].
fn read_lines(stdout: impl Read, lines: &SyncSender<Output>, log: Option<&CommLog>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        let (complete, used) = match reader.fill_buf() {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
            Ok([]) => {
                if !line.is_empty() {
                    let _ = emit_line(&line, lines, log);
                }
                break;
            }
            Ok(buffer) => match buffer.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    line.extend_from_slice(&buffer[..end]);
                    (true, end + 1)
                }
                None => {
                    line.extend_from_slice(buffer);
                    (false, buffer.len())
                }
            },
        };
        reader.consume(used);
        if line.len() > MAX_LINE_BYTES {
            if let Some(log) = log {
                log.record(Direction::FromEngine, "<a line too long: reading stopped>");
            }
            let _ = lines.send(Output::TooLong);
            return;
        }
        if complete {
            if emit_line(&line, lines, log).is_err() {
                return;
            }
            line.clear();
        }
    }
    let _ = lines.send(Output::Closed);
}

/// Sends one line (lossy UTF-8, line ending trimmed) and logs it.
fn emit_line(
    bytes: &[u8],
    lines: &SyncSender<Output>,
    log: Option<&CommLog>,
) -> Result<(), std::sync::mpsc::SendError<Output>> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\r').to_string();
    if let Some(log) = log {
        log.record(Direction::FromEngine, &text);
    }
    lines.send(Output::Line(text, Instant::now()))
}

/// Copies stderr to `log` (if any), keeping the last [`STDERR_TAIL_BYTES`] in `tail`.
fn copy_stderr(mut stderr: impl Read, mut log: Option<File>, tail: &Mutex<Vec<u8>>) {
    let mut buffer = [0u8; 4096];
    loop {
        let n = match stderr.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        if let Some(file) = log.as_mut() {
            let _ = file.write_all(&buffer[..n]);
        }
        let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
        tail.extend_from_slice(&buffer[..n]);
        let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..excess);
    }
}
