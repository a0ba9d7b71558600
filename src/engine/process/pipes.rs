//! The runner's ends of an engine's stdin and stdout, non-blocking: writing lines by a
//! deadline, and [`LineReader`], which splits stdout into lines on the calling thread. Every
//! wait is a `poll` bounded by a deadline.

use super::logs::{CommLog, Direction};
use super::{EXIT_POLL, MAX_LINE_BYTES, Received, SendError};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::process::{ChildStdin, ChildStdout};
use std::time::Instant;

/// How many bytes are read from stdout at a time.
const READ_CHUNK: usize = 8192;

/// Sets `O_NONBLOCK` on the runner's end of a pipe (the engine's end is another open file
/// and stays blocking).
pub(super) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
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
pub(super) fn write_all_by(
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
pub(super) struct LineReader {
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
    pub(super) fn new(stdout: ChildStdout, log: Option<CommLog>) -> LineReader {
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
    pub(super) fn next(&mut self, deadline: Instant, line: &mut String) -> Option<Received> {
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
