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

use super::EngineLaunch;
use super::error::EngineError;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest line read from an engine, in bytes; a longer one ends the reading.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// How many bytes of an engine's stderr are kept for error messages.
const STDERR_TAIL_BYTES: usize = 2048;
/// How many bytes are read from stdout at a time.
const READ_CHUNK: usize = 8192;
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

/// Which way a logged line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    ToEngine,
    FromEngine,
    /// A note of the runner's about the engine (a warning), not a protocol line.
    Note,
}

/// The communication log: every line both ways, one per log line, as
/// `<seconds since the runner's first logged line> <engine name> <'>' to | '<' from> <line>`,
/// and the runner's notes about the engine as `... <engine name> ! <text>`.
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
            Direction::Note => '!',
        };
        let record = format!("{seconds:10.3} {} {arrow} {line}\n", self.engine);
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let _ = file.write_all(record.as_bytes());
    }
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

/// Waits until child `pid` has exited or `deadline` passes, leaving it unreaped (its pid and
/// process group id stay reserved); whether it has exited.
fn wait_unreaped(pid: u32, deadline: Instant) -> bool {
    loop {
        // SAFETY: `waitid` writes only to `info`, a plain C struct owned by this frame.
        let exited = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            let rc = libc::waitid(libc::P_PID, pid, &mut info, flags);
            rc != 0 || info.si_pid() != 0
        };
        if exited || Instant::now() >= deadline {
            return exited;
        }
        std::thread::sleep(EXIT_POLL);
    }
}

/// Sends `signal` to the process group led by child `pid`. Only for an unreaped child, whose
/// ids are still its own.
fn signal_group(pid: u32, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: a plain system call on ids reserved by our unreaped child.
        unsafe {
            libc::killpg(pid, signal);
        }
    }
}

/// A child that is not an engine (a build command): started as engines are, in a process
/// group of its own with the parent-death signal (see the module documentation), and stopped
/// as a whole group.
pub(crate) struct GroupChild {
    child: Child,
}

/// How a [`GroupChild`] ended.
#[derive(Debug)]
pub(crate) enum GroupEnd {
    /// It exited by itself (or died of a signal someone else sent).
    Exited(ExitStatus),
    /// `stop` was set: its process group was stopped.
    Stopped,
}

impl GroupChild {
    /// Starts `command` in a process group of its own with the parent-death signal, from the
    /// spawner thread.
    pub(crate) fn spawn(mut command: Command) -> io::Result<GroupChild> {
        command.process_group(0);
        set_parent_death_signal(&mut command);
        spawn_child(command).map(|child| GroupChild { child })
    }

    /// The process id (also its process group's).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the child to exit, looking at `stop` meanwhile. Once `stop` is set, the
    /// child's process group gets SIGTERM, then SIGKILL `grace` later if the child has not
    /// exited; the group is killed and the child reaped either way before [`GroupEnd::Stopped`]
    /// is returned. A child that exits by itself is reaped; what it left running in its group
    /// is left alone.
    ///
    /// # Errors
    /// The operating system's, when the child cannot be waited for.
    pub(crate) fn wait_or_stop(
        &mut self,
        stop: &std::sync::atomic::AtomicBool,
        grace: Duration,
    ) -> io::Result<GroupEnd> {
        use std::sync::atomic::Ordering;
        const POLL: Duration = Duration::from_millis(20);
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(GroupEnd::Exited(status));
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(POLL);
        }
        signal_group(self.pid(), libc::SIGTERM);
        wait_unreaped(self.pid(), Instant::now() + grace);
        signal_group(self.pid(), libc::SIGKILL);
        let _ = self.child.kill();
        self.child.wait()?;
        Ok(GroupEnd::Stopped)
    }
}

impl Drop for GroupChild {
    /// A child still running when its owner is dropped (an error, a panic) is killed with its
    /// group and reaped.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal_group(self.pid(), libc::SIGKILL);
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
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

/// The command for `launch`: program (see [`super::locate`]), arguments, directory, environment, pipes, own process
/// group and (Linux) the parent-death signal.
fn command(launch: &EngineLaunch) -> Command {
    let mut command = Command::new(super::locate::to_run(&launch.cmd));
    command
        .args(&launch.args)
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = &launch.dir {
        command.current_dir(dir);
    }
    set_parent_death_signal(&mut command);
    set_affinity(&mut command, &launch.cpus);
    command
}

/// Pins the child to `cpus` before it runs (Linux; none when `cpus` is empty): its threads
/// inherit the mask (`sched_setaffinity`).
#[cfg(target_os = "linux")]
fn set_affinity(command: &mut Command, cpus: &[usize]) {
    if cpus.is_empty() {
        return;
    }
    // SAFETY: an all-zero cpu_set_t is a valid empty set; CPU_SET writes within it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        // SAFETY: `cpu` is below CPU_SETSIZE (checked by the command line).
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: the closure runs between fork and exec and calls only sched_setaffinity (async-
    // signal-safe) on a set built before the fork; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_affinity(_command: &mut Command, _cpus: &[usize]) {}

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
fn spawn_error(launch: &EngineLaunch, source: io::Error) -> EngineError {
    let engine = launch.name.clone();
    let cmd = launch.cmd.clone();
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

/// Sets `O_NONBLOCK` on the runner's end of a pipe (the engine's end is another open file
/// and stays blocking).
fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor owned by a live `ChildStdin`/`ChildStdout`.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Waits until `fd` is ready for `events` (`POLLIN`, `POLLOUT`) or `deadline` passes; false
/// when it passes. Readiness includes errors and hang-ups, which the next read or write
/// reports.
fn wait_ready(fd: RawFd, events: libc::c_short, deadline: Instant) -> bool {
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return false;
        }
        // Rounded up, so the wait never ends before the deadline.
        let ms = remaining.as_micros().div_ceil(1000);
        let timeout = libc::c_int::try_from(ms).unwrap_or(libc::c_int::MAX);
        let mut poll_fd = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: `poll_fd` is one valid pollfd owned by this frame.
        let ready = unsafe { libc::poll(&mut poll_fd, 1, timeout) };
        match ready {
            0 => {}
            1.. => return true,
            _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            // Unexpected: wait a little and let the caller retry, still within the deadline.
            _ => {
                std::thread::sleep(EXIT_POLL.min(remaining));
                return true;
            }
        }
    }
}

/// Writes all of `bytes` to the non-blocking `stdin`, waiting for room until `deadline`.
fn write_all_by(
    stdin: &mut ChildStdin,
    mut bytes: &[u8],
    deadline: Instant,
) -> Result<(), SendError> {
    while !bytes.is_empty() {
        match stdin.write(bytes) {
            Ok(0) => return Err(SendError::Closed),
            Ok(n) => bytes = &bytes[n..],
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                if !wait_ready(stdin.as_raw_fd(), libc::POLLOUT, deadline) {
                    return Err(SendError::Stalled);
                }
            }
            // EPIPE (the engine closed its stdin or exited) or another error.
            Err(_) => return Err(SendError::Closed),
        }
    }
    Ok(())
}

/// Whether the engine's stdout can still give lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadState {
    Open,
    /// End of output (or a read error): what is buffered is given, then `Closed`.
    Ended,
    /// A line was too long: nothing more is read or given.
    Stopped,
}

/// The engine's stdout, split into lines on the calling thread.
struct LineReader {
    stdout: ChildStdout,
    /// Bytes read and not yet given: `buffer[start..end]`. The buffer beyond `end` is room
    /// for the next read, zeroed once when the buffer grows (not before every read: zeroing a
    /// whole chunk per read was most of the runner's work per move).
    buffer: Vec<u8>,
    start: usize,
    end: usize,
    /// Where to look for the next newline (the bytes before it have none).
    scanned: usize,
    state: ReadState,
    log: Option<CommLog>,
}

impl LineReader {
    fn new(stdout: ChildStdout, log: Option<CommLog>) -> LineReader {
        LineReader {
            stdout,
            buffer: vec![0; READ_CHUNK],
            start: 0,
            end: 0,
            scanned: 0,
            state: ReadState::Open,
            log,
        }
    }

    /// The next line (its text put in `line`, cleared first), or how the output ended; `None`
    /// when `deadline` passes first. What has already arrived is given even after the
    /// deadline.
    fn next(&mut self, deadline: Instant, line: &mut String) -> Option<Received> {
        loop {
            if self.state == ReadState::Stopped {
                return Some(Received::Closed);
            }
            let newline = self.buffer[self.scanned..self.end]
                .iter()
                .position(|&b| b == b'\n');
            if let Some(at) = newline {
                let end = self.scanned + at;
                self.scanned = end + 1;
                return Some(self.give(end, end + 1, line));
            }
            self.scanned = self.end;
            if self.end - self.start > MAX_LINE_BYTES {
                return Some(self.too_long());
            }
            if self.state == ReadState::Ended {
                let end = self.end;
                return Some(if end > self.start {
                    self.give(end, end, line)
                } else {
                    Received::Closed
                });
            }
            if !self.fill(deadline) {
                return None;
            }
        }
    }

    /// The line in `start..end` (lossy UTF-8, a trailing CR removed) into `line`, logged; the
    /// next line starts at `next`.
    fn give(&mut self, end: usize, next: usize, line: &mut String) -> Received {
        if end - self.start > MAX_LINE_BYTES {
            return self.too_long();
        }
        line.clear();
        let bytes = &self.buffer[self.start..end];
        match std::str::from_utf8(bytes) {
            Ok(text) => line.push_str(text),
            Err(_) => line.push_str(&String::from_utf8_lossy(bytes)),
        }
        let kept = line.trim_end_matches('\r').len();
        line.truncate(kept);
        self.start = next;
        if let Some(log) = &self.log {
            log.record(Direction::FromEngine, line);
        }
        Received::Line(Instant::now())
    }

    fn too_long(&mut self) -> Received {
        if let Some(log) = &self.log {
            log.record(Direction::FromEngine, "<a line too long: reading stopped>");
        }
        self.state = ReadState::Stopped;
        self.buffer = Vec::new();
        (self.start, self.end, self.scanned) = (0, 0, 0);
        Received::TooLong
    }

    /// Reads what the engine wrote, waiting until `deadline` for something to come; false
    /// when the deadline passes first. Sets `Ended` at end of output or on a read error.
    fn fill(&mut self, deadline: Instant) -> bool {
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        if self.buffer.len() - self.end < READ_CHUNK {
            self.buffer.resize(self.end + READ_CHUNK, 0);
        }
        loop {
            match self.stdout.read(&mut self.buffer[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    if n == 0 {
                        self.state = ReadState::Ended;
                    }
                    return true;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                    if !wait_ready(self.stdout.as_raw_fd(), libc::POLLIN, deadline) {
                        return false;
                    }
                }
                Err(_) => {
                    self.state = ReadState::Ended;
                    return true;
                }
            }
        }
    }
}

/// The most bytes of one engine process's stderr written to its log; the rest is read (so the
/// engine never blocks on a full pipe) but dropped, after a note in the log.
pub const MAX_STDERR_LOG_BYTES: u64 = 16 << 20;

/// Copies stderr to `log` (if any, up to [`MAX_STDERR_LOG_BYTES`]), keeping the last
/// [`STDERR_TAIL_BYTES`] in `tail`.
fn copy_stderr(mut stderr: impl Read, mut log: Option<File>, tail: &Mutex<Vec<u8>>) {
    let mut buffer = [0u8; 4096];
    let mut logged = 0u64;
    loop {
        let n = match stderr.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        if let Some(file) = log.as_mut() {
            if logged + n as u64 > MAX_STDERR_LOG_BYTES {
                let _ = writeln!(
                    file,
                    "\n[bt-arena: stderr log cut at {MAX_STDERR_LOG_BYTES} bytes]"
                );
                log = None;
            } else {
                let _ = file.write_all(&buffer[..n]);
                logged += n as u64;
            }
        }
        let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
        tail.extend_from_slice(&buffer[..n]);
        let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_log_is_cut_at_its_cap_and_the_tail_kept() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("stderr.log");
        let log = File::create(&path).expect("log created");
        let flood = vec![b'x'; usize::try_from(MAX_STDERR_LOG_BYTES + 100_000).expect("fits")];
        let tail = Mutex::new(Vec::new());
        copy_stderr(&flood[..], Some(log), &tail);
        let written = std::fs::read(&path).expect("log read");
        assert!(written.len() as u64 <= MAX_STDERR_LOG_BYTES + 100);
        assert!(written.ends_with(b"bytes]\n"));
        assert_eq!(tail.lock().expect("tail").len(), STDERR_TAIL_BYTES);
    }

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
