//! Leases on a shared directory: who is doing a piece of work (building an engine, playing a
//! unit of a run), safe on NFS, with no server and no agreement between hosts' clocks. (An
//! engine's *claims* are something else: the mate scores and PVs it reports, `game::claims`.)
//!
//! A lease is a file created exclusively and whole (written to a temporary file, then
//! hard-linked to its name: `link` fails when the name exists, atomically on NFS too, where
//! `flock` is unreliable) holding its holder, `PID TOKEN` with the token `HOST-PID-RANDOM`
//! ([`token`]). The holder touches it (its modification time) every heartbeat
//! ([`Heartbeat`]). Another process judges it stale ([`LeaseWatch::is_stale`]) at once when
//! its holder is a process of the observer's own host that no longer exists, or when the
//! file has not changed for the stale age **by the observer's own clock**: what is compared
//! is whether the modification time moved, never its value against the observer's time, so a
//! holder whose clock is minutes off is judged as fairly as any other. fishtest takes work
//! back from workers whose heartbeats stop in the same way, with a server in the middle.
//!
//! A stale lease is taken over by renaming it aside ([`retire_stale`]) and checking that what
//! was renamed is the very lease judged stale: two takers that judged it stale at once
//! cannot both end up holding the work.
//!
//! Used by the build cache ([`crate::engine::build`]) and by the workers of a run
//! ([`crate::arena::leases`]). For users: `docs/guide/cluster.md` (Workers: elastic runs) and
//! `docs/guide/source-engines.md` (the build cache).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// A lease this process holds: the file it created, and the token written in it.
#[derive(Debug)]
pub struct Lease {
    path: PathBuf,
    file: File,
    token: String,
}

impl Lease {
    /// Creates the lease `path` exclusively, writing `PID TOKEN` and then `extra` lines
    /// (each `KEY VALUE`, e.g. the time it was taken); `None` when a lease already exists.
    ///
    /// # Errors
    /// When the file cannot be created for another reason, or written.
    pub fn try_create(path: &Path, extra: &[(&str, String)]) -> io::Result<Option<Lease>> {
        let token = token();
        let mut text = format!("{} {token}\n", std::process::id());
        if let Some(namespace) = pid_namespace() {
            text.push_str(&format!("pidns {namespace}\n"));
        }
        for (key, value) in extra {
            text.push_str(&format!("{key} {value}\n"));
        }
        // Written whole beside it, then linked in place: a lease is never seen half written
        // (its holder stopped or killed between creating and writing it).
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        let mut whole = tempfile::NamedTempFile::new_in(dir.unwrap_or(Path::new(".")))?;
        whole.write_all(text.as_bytes())?;
        // Readable by the other workers, as every file of a run (a temporary file is private).
        whole
            .as_file()
            .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
        match std::fs::hard_link(whole.path(), path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(None),
            Err(e) => return Err(e),
        }
        Ok(Some(Lease {
            path: path.to_path_buf(),
            file: whole.into_file(),
            token,
        }))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its token (`HOST-PID-RANDOM`).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The file, to touch ([`Heartbeat`]).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Whether the file at its path is still this lease (not taken over: removed, or
    /// replaced by another holder's).
    pub fn is_held(&self) -> bool {
        holder_of(&self.path).is_some_and(|holder| holder.token == self.token)
    }
}

/// Takes the stale lease at `path` out of the way: renames it to `expired` and checks that
/// the file renamed is the one judged stale, whose text was `seen`. When another taker was
/// quicker (what was renamed is its fresh lease), that lease is put back and `false` is
/// returned; `false` too when the lease is gone already. After `true` the caller may create
/// its own lease at `path` ([`Lease::try_create`], which another taker may still win).
///
/// # Errors
/// When the lease cannot be renamed for another reason than being gone.
pub fn retire_stale(path: &Path, seen: &str, expired: &Path) -> io::Result<bool> {
    match std::fs::rename(path, expired) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    }
    let moved = std::fs::read_to_string(expired).unwrap_or_default();
    if moved == seen {
        return Ok(true);
    }
    // Another taker's lease, created after the stale one was judged: back in place (unless
    // a later one is there already, which then holds the work).
    let _ = std::fs::hard_link(expired, path);
    let _ = std::fs::remove_file(expired);
    Ok(false)
}

/// Who a lease file names: its first line, `PID TOKEN`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The holder's process id.
    pub pid: i32,
    /// Its token, `HOST-PID-RANDOM`.
    pub token: String,
    /// Its PID namespace (`pidns` line), when the lease names one: a pid means a process only
    /// within it (containers sharing a host name do not share pids).
    pub pid_namespace: Option<String>,
}

impl Holder {
    /// The holder named by `text` (a lease file's contents); `None` when its first line is not
    /// `PID TOKEN` (a lease being written, truncated or garbage).
    pub fn parse(text: &str) -> Option<Holder> {
        let mut words = text.lines().next()?.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        let token = words.next()?.to_string();
        let pid_namespace = text
            .lines()
            .find_map(|line| line.strip_prefix("pidns "))
            .map(|namespace| namespace.trim().to_string());
        Some(Holder {
            pid,
            token,
            pid_namespace,
        })
    }

    /// The holder's host, from its token (`HOST-PID-RANDOM`).
    pub fn host(&self) -> &str {
        let mut parts = self.token.rsplitn(3, '-');
        let (_random, _pid) = (parts.next(), parts.next());
        parts.next().unwrap_or("")
    }

    /// Whether the holder was a process of this host (and of this PID namespace, when the
    /// lease names one) that no longer exists.
    pub fn is_dead_here(&self) -> bool {
        let same_namespace = match &self.pid_namespace {
            Some(theirs) => pid_namespace().is_some_and(|ours| ours == *theirs),
            None => true,
        };
        self.host() == host_name() && same_namespace && !process_exists(self.pid)
    }
}

/// The holder the lease file at `path` names; `None` when it is missing, unreadable or does
/// not name one.
pub fn holder_of(path: &Path) -> Option<Holder> {
    Holder::parse(&std::fs::read_to_string(path).ok()?)
}

/// A token naming one holder: host, pid and a random number.
pub fn token() -> String {
    format!(
        "{}-{}-{:08x}",
        host_name(),
        std::process::id(),
        fastrand::u32(..)
    )
}

/// This machine's host name (`unknown` when it cannot be read), with only letters, digits,
/// `-` and `.`.
pub fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it or
    // truncates, and we stop at the first NUL.
    let rc = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    let name: String = String::from_utf8_lossy(&buffer[..end])
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if rc != 0 || name.is_empty() {
        "unknown".to_string()
    } else {
        name
    }
}

/// This process's PID namespace (`pid:[4026531836]`, the link `/proc/self/ns/pid`), when
/// it can be read.
pub fn pid_namespace() -> Option<String> {
    std::fs::read_link("/proc/self/ns/pid")
        .ok()
        .map(|link| link.to_string_lossy().into_owned())
}

/// Whether process `pid` exists on this machine.
pub fn process_exists(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Touches lease files every `every` until `done`: the heartbeat others judge them by.
pub struct Heartbeat;

impl Heartbeat {
    /// Calls `beat` (touching the leases held) every `every` until `done` is set, polling
    /// `done` every 50 ms at most.
    pub fn run(every: Duration, done: &AtomicBool, mut beat: impl FnMut()) {
        let mut last = Instant::now();
        while !done.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50).min(every));
            if last.elapsed() >= every {
                beat();
                last = Instant::now();
            }
        }
    }
}

/// Sets `file`'s modification time to now (a heartbeat); a failure is ignored: the lease
/// then looks stale to others, who take it over.
pub fn touch(file: &File) {
    let _ = file.set_modified(SystemTime::now());
}

/// What an observer saw of one lease file: its modification time, and since when (by the
/// observer's clock) it has not changed.
#[derive(Debug)]
pub struct LeaseWatch {
    stale_after: Duration,
    seen: Option<(Option<SystemTime>, Instant)>,
}

impl LeaseWatch {
    /// A watch that judges a lease stale once it has not changed for `stale_after`.
    pub fn new(stale_after: Duration) -> LeaseWatch {
        LeaseWatch {
            stale_after,
            seen: None,
        }
    }

    /// Whether the lease at `path`, naming `holder` (`None` when it names none: truncated or
    /// garbage), was left by a holder that died: a process of this host that no longer
    /// exists, or a file unchanged for the stale age since this watch first looked.
    pub fn is_stale(&mut self, path: &Path, holder: Option<&Holder>) -> bool {
        if holder.is_some_and(Holder::is_dead_here) {
            return true;
        }
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        match self.seen {
            Some((seen, since)) if seen == modified => since.elapsed() >= self.stale_after,
            _ => {
                self.seen = Some((modified, Instant::now()));
                false
            }
        }
    }

    /// How long the lease has looked unchanged to this watch.
    pub fn unchanged_for(&self) -> Duration {
        self.seen
            .map_or(Duration::ZERO, |(_, since)| since.elapsed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_exclusive_and_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claim");
        let lease = Lease::try_create(&path, &[("taken", "now".into())])
            .unwrap()
            .unwrap();
        assert!(Lease::try_create(&path, &[]).unwrap().is_none());
        let holder = holder_of(&path).unwrap();
        assert_eq!(holder.pid, std::process::id() as i32);
        assert_eq!(holder.token, lease.token());
        assert_eq!(holder.host(), host_name());
        assert!(lease.is_held() && !holder.is_dead_here());
        std::fs::remove_file(&path).unwrap();
        assert!(!lease.is_held());
    }

    /// The takeover race, step by step: two takers judge one lease stale from the same text;
    /// the first retires it and creates its own; the second's rename then moves the first's
    /// fresh lease, which it must put back and not take.
    #[test]
    fn a_second_taker_of_one_stale_lease_puts_the_first_takers_lease_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pair-1");
        std::fs::write(&path, "1 gone-1-00\n").unwrap();
        let seen = std::fs::read_to_string(&path).unwrap();
        let aside = |taker: &str| dir.path().join(format!("pair-1.expired-{taker}"));
        assert!(retire_stale(&path, &seen, &aside("a")).unwrap());
        let first = Lease::try_create(&path, &[]).unwrap().unwrap();
        assert!(!retire_stale(&path, &seen, &aside("b")).unwrap());
        assert!(first.is_held(), "the first taker's lease is back in place");
        assert_eq!(holder_of(&path).unwrap().token, first.token());
        assert!(Lease::try_create(&path, &[]).unwrap().is_none());
        assert!(!aside("b").exists());
        assert_eq!(std::fs::read_to_string(aside("a")).unwrap(), seen);
    }

    #[test]
    fn garbage_names_no_holder() {
        assert_eq!(Holder::parse(""), None);
        assert_eq!(Holder::parse("x y"), None);
        assert_eq!(Holder::parse("12"), None);
        let holder = Holder::parse("12 node17-12-0000abcd\ntaken x\n").unwrap();
        assert_eq!((holder.pid, holder.host()), (12, "node17"));
        assert_eq!(Holder::parse("1 a-b-c-1-ff").unwrap().host(), "a-b-c");
        // A lease from another PID namespace of this host is never judged by its pid.
        let other = Holder::parse(&format!(
            "999999999 {}-999999999-00\npidns pid:[1]\n",
            host_name()
        ))
        .unwrap();
        assert_eq!(other.pid_namespace.as_deref(), Some("pid:[1]"));
        assert!(!other.is_dead_here());
        let ours = Holder {
            pid_namespace: pid_namespace(),
            ..other
        };
        assert!(ours.is_dead_here());
    }

    #[test]
    fn an_untouched_lease_goes_stale_by_the_watchers_clock_and_a_touched_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claim");
        let lease = Lease::try_create(&path, &[]).unwrap().unwrap();
        let holder = holder_of(&path);
        let mut watch = LeaseWatch::new(Duration::from_millis(300));
        assert!(!watch.is_stale(&path, holder.as_ref()));
        // A holder whose clock is an hour behind still beats: the time moves.
        for _ in 0..4 {
            std::thread::sleep(Duration::from_millis(120));
            let _ = lease.file().set_modified(
                SystemTime::now() - Duration::from_secs(3600) + watch.unchanged_for(),
            );
            assert!(!watch.is_stale(&path, holder.as_ref()));
        }
        std::thread::sleep(Duration::from_millis(400));
        assert!(watch.is_stale(&path, holder.as_ref()));
    }

    #[test]
    fn a_lease_of_a_dead_process_of_this_host_is_stale_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claim");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id() as i32;
        child.wait().unwrap();
        std::fs::write(&path, format!("{dead} {}-{dead}-00000000\n", host_name())).unwrap();
        let holder = holder_of(&path);
        assert!(LeaseWatch::new(Duration::from_secs(3600)).is_stale(&path, holder.as_ref()));
    }
}
