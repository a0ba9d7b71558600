//! The two logs of an engine process: the communication log (every protocol line both ways,
//! and the runner's notes about the engine) and the copy of its stderr, whose last bytes are
//! kept for error messages.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// How many bytes of an engine's stderr are kept for error messages.
const STDERR_TAIL_BYTES: usize = 2048;

/// Which way a logged line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Direction {
    ToEngine,
    FromEngine,
    /// A note of the runner's about the engine (a warning), not a protocol line.
    Note,
}

/// The communication log: every line both ways, one per log line, as
/// `<seconds since the runner's first logged line> <engine name> <'>' to | '<' from> <line>`,
/// and the runner's notes about the engine as `... <engine name> ! <text>`.
#[derive(Clone)]
pub(super) struct CommLog {
    file: Arc<Mutex<File>>,
    engine: Arc<str>,
}

impl CommLog {
    pub(super) fn open(path: &Path, engine: &str) -> io::Result<CommLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(CommLog {
            file: Arc::new(Mutex::new(file)),
            engine: engine.into(),
        })
    }

    /// Appends one record; a failing log never stops a game.
    pub(super) fn record(&self, direction: Direction, line: &str) {
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

/// The most bytes of one engine process's stderr written to its log; the rest is read (so the
/// engine never blocks on a full pipe) but dropped, after a note in the log.
pub const MAX_STDERR_LOG_BYTES: u64 = 16 << 20;

/// Copies stderr to `log` (if any, up to [`MAX_STDERR_LOG_BYTES`]), keeping the last
/// [`STDERR_TAIL_BYTES`] in `tail`.
pub(super) fn copy_stderr(mut stderr: impl Read, mut log: Option<File>, tail: &Mutex<Vec<u8>>) {
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
}
