//! A worker's leases on the units of its run: any number of processes, on any machines
//! sharing the run directory, each leasing the lowest unit nobody plays (a tournament's game
//! pair, a tune's iteration, a datagen run's game; [`super::units`] walks them), playing it
//! and recording it in its own directory (`RUN/worker-ID/`). No server: the leases are files
//! ([`crate::lease`]) in `RUN/claims/`, named by the unit's kind:
//!
//! - `pair-N`: the lease on unit N, created exclusively, naming its worker; touched every
//!   [`heartbeat_of`] the lease time while the worker plays the unit.
//! - `pair-N.done`: the unit was recorded by the worker it names (written atomically once its
//!   games are in that worker's files; a later recording replaces it). For people: no worker
//!   believes it, since what is recorded is read from the games files alone
//!   ([`super::recorded`]).
//! - `pair-N.expired-TOKEN`: a lease taken over after its time (its heartbeat had not moved
//!   for the lease by the taker's clock, or its process is gone from the taker's host); the
//!   unit is played again. Kept for the record.
//!
//! A missing `claims/` directory (removed by a clean-up script) is made again. A worker
//! records a game only while its lease on the game's unit is still its own
//! ([`Leases::holds`]): a worker whose lease was taken over drops the unit's games, so the
//! readers see each game once, and looks at the unit again later (another worker may die
//! before recording it).

use super::schedule::{Unit, UnitKind};
use crate::lease::{Heartbeat, Lease, LeaseWatch, holder_of, retire_stale};
use crate::records::now_rfc3339;
use crate::run_dir::RunDir;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The default lease (`--lease`): a lease whose heartbeat has not moved for this long is
/// taken over. As the build cache's: long beside a heartbeat, short beside a run.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// How often a worker touches its leases: a twelfth of the lease, at most every 5 s.
pub fn heartbeat_of(lease: Duration) -> Duration {
    (lease / 12).min(Duration::from_secs(5))
}

/// What asking for a unit's lease gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leased {
    /// The unit is this worker's to play.
    Mine,
    /// Another worker plays it (its lease is live).
    Held,
}

/// How many units of kind `kind` are leased in the run in `run` (`RUN/claims/KIND-N` files:
/// units being played, by live workers or by dead ones not taken over yet). A run without
/// `claims/` has none.
///
/// # Errors
/// When `RUN/claims/` exists but cannot be listed.
pub fn units_leased(run: &Path, kind: UnitKind) -> io::Result<usize> {
    let entries = match std::fs::read_dir(RunDir::new(run).claims()) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        listed => listed?,
    };
    let prefix = format!("{kind}-");
    let mut leased = 0;
    for entry in entries {
        let name = entry?.file_name();
        let is_lease = name
            .to_str()
            .and_then(|name| name.strip_prefix(&prefix))
            .is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()));
        leased += usize::from(is_lease);
    }
    Ok(leased)
}

/// One worker's leases on the units of its run.
pub struct Leases {
    dir: PathBuf,
    kind: UnitKind,
    worker: String,
    lease: Duration,
    held: Arc<Mutex<HashMap<Unit, Lease>>>,
    /// Other workers' leases being watched for staleness, with the text seen in each.
    watches: Mutex<HashMap<Unit, (LeaseWatch, String)>>,
    stop: Arc<AtomicBool>,
    beating: Option<JoinHandle<()>>,
}

impl Leases {
    /// The leases of worker `worker` on the units (of kind `kind`) of the run in `run`, with
    /// `lease`; starts the heartbeat.
    ///
    /// # Errors
    /// When `RUN/claims/` cannot be created.
    pub fn new(run: &Path, worker: &str, lease: Duration, kind: UnitKind) -> io::Result<Leases> {
        let dir = RunDir::new(run).claims();
        std::fs::create_dir_all(&dir)?;
        let held: Arc<Mutex<HashMap<Unit, Lease>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let beating = {
            let (held, stop) = (held.clone(), stop.clone());
            let every = heartbeat_of(lease);
            std::thread::spawn(move || {
                Heartbeat::run(every, &stop, || {
                    for lease in super::lock(&held).values() {
                        crate::lease::touch(lease.file());
                    }
                });
            })
        };
        Ok(Leases {
            dir,
            kind,
            worker: worker.to_string(),
            lease,
            held,
            watches: Mutex::default(),
            stop,
            beating: Some(beating),
        })
    }

    /// The directory of the leases, `RUN/claims`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn lease_path(&self, unit: Unit) -> PathBuf {
        self.dir.join(format!("{}-{unit}", self.kind))
    }

    fn done_path(&self, unit: Unit) -> PathBuf {
        self.dir.join(format!("{}-{unit}.done", self.kind))
    }

    /// Creates this worker's lease on `unit`, making `claims/` again when it is gone;
    /// `None` when another lease is there.
    fn create(&self, unit: Unit) -> io::Result<Option<Lease>> {
        let path = self.lease_path(unit);
        let extra = [("worker", self.worker.clone()), ("taken", now_rfc3339())];
        match Lease::try_create(&path, &extra) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&self.dir)?;
                Lease::try_create(&path, &extra)
            }
            created => created,
        }
    }

    /// Leases `unit` for this worker: at once when nobody holds it; after the lease time when
    /// another worker's lease has not moved (it is then taken over, and `taken_over` is told
    /// whose it was and for how long it had not moved). A unit this worker holds is its own.
    ///
    /// # Errors
    /// When a lease cannot be created, read or renamed for a reason other than another
    /// worker's being first.
    pub fn take(&self, unit: Unit, taken_over: &mut dyn FnMut(String)) -> io::Result<Leased> {
        if self.holds(unit) {
            return Ok(Leased::Mine);
        }
        if let Some(lease) = self.create(unit)? {
            return Ok(self.keep(unit, lease));
        }
        let path = self.lease_path(unit);
        let seen = std::fs::read_to_string(&path).unwrap_or_default();
        let holder = crate::lease::Holder::parse(&seen);
        let mut watches = super::lock(&self.watches);
        let (watch, text) = watches
            .entry(unit)
            .or_insert_with(|| (LeaseWatch::new(self.lease), seen.clone()));
        // A lease rewritten since it was first seen is another: watched afresh.
        if *text != seen {
            *watch = LeaseWatch::new(self.lease);
            text.clone_from(&seen);
        }
        if !watch.is_stale(&path, holder.as_ref()) {
            return Ok(Leased::Held);
        }
        let still = watch.unchanged_for();
        watches.remove(&unit);
        drop(watches);
        let expired = self.dir.join(format!(
            "{}-{unit}.expired-{}",
            self.kind,
            crate::lease::token()
        ));
        if !retire_stale(&path, &seen, &expired)? {
            // Another worker took it over first.
            return Ok(Leased::Held);
        }
        taken_over(self.takeover_line(unit, holder.as_ref(), still));
        match self.create(unit)? {
            Some(lease) => Ok(self.keep(unit, lease)),
            None => Ok(Leased::Held),
        }
    }

    /// What a takeover of `unit` from `holder` is told as.
    fn takeover_line(
        &self,
        unit: Unit,
        holder: Option<&crate::lease::Holder>,
        still: Duration,
    ) -> String {
        let kind = self.kind;
        match holder {
            Some(holder) if holder.is_dead_here() => format!(
                "{kind} {unit}, claimed by {} pid {}: that process is gone; it is played again \
                 (what it recorded is kept)",
                holder.host(),
                holder.pid
            ),
            Some(holder) => format!(
                "{kind} {unit}, claimed by {} pid {}, unchanged for {} s: its lease expired; it \
                 is played again (what it recorded is kept)",
                holder.host(),
                holder.pid,
                still.as_secs()
            ),
            None => format!(
                "{kind} {unit}: its claim names no worker (truncated or garbage) and has not \
                 changed for {} s: it is played again",
                still.as_secs()
            ),
        }
    }

    fn keep(&self, unit: Unit, lease: Lease) -> Leased {
        super::lock(&self.held).insert(unit, lease);
        Leased::Mine
    }

    /// Whether this worker still holds its lease on `unit` (not taken over by another after
    /// the lease time, nor removed): only then may it record the unit's games.
    pub fn holds(&self, unit: Unit) -> bool {
        super::lock(&self.held)
            .get(&unit)
            .is_some_and(Lease::is_held)
    }

    /// `unit` is recorded: it is marked done (`KIND-N.done`, naming this worker, for people)
    /// and its lease let go of.
    ///
    /// # Errors
    /// When the done marker cannot be written.
    pub fn done(&self, unit: Unit) -> io::Result<()> {
        self.release(unit);
        let mut file = match tempfile::NamedTempFile::new_in(&self.dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&self.dir)?;
                tempfile::NamedTempFile::new_in(&self.dir)?
            }
            made => made?,
        };
        io::Write::write_all(&mut file, format!("{}\n", self.worker).as_bytes())?;
        file.persist(self.done_path(unit)).map_err(|e| e.error)?;
        Ok(())
    }

    /// The worker the done marker of `unit` names, when there is one that names one (for
    /// people and tests: no worker decides by it).
    pub fn done_by(&self, unit: Unit) -> Option<String> {
        let text = std::fs::read_to_string(self.done_path(unit)).ok()?;
        let worker = text.trim();
        (!worker.is_empty() && !worker.contains(['/', '\0'])).then(|| worker.to_string())
    }

    /// Lets go of the lease on `unit` (not played here, or the run stopped), so that another
    /// worker plays it at once rather than after the lease time. A lease that is no longer
    /// this worker's is left where it is.
    pub fn release(&self, unit: Unit) {
        if let Some(lease) = super::lock(&self.held).remove(&unit)
            && lease.is_held()
        {
            let _ = std::fs::remove_file(lease.path());
        }
    }

    /// Lets go of every lease held (the run stopped).
    pub fn release_all(&self) {
        let units: Vec<Unit> = super::lock(&self.held).keys().copied().collect();
        for unit in units {
            self.release(unit);
        }
    }

    /// The holder's text of the lease on `unit`, as it is now (`None` when there is none):
    /// for tests of the takeover rules.
    pub fn holder_of(&self, unit: Unit) -> Option<crate::lease::Holder> {
        holder_of(&self.lease_path(unit))
    }
}

impl Drop for Leases {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(beating) = self.beating.take() {
            let _ = beating.join();
        }
    }
}

/// A new worker's id: `HOST-PID-RANDOM` ([`crate::lease::token`]).
pub fn new_worker_id() -> String {
    crate::lease::token()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leases(run: &Path, worker: &str, lease: Duration) -> Leases {
        Leases::new(run, worker, lease, UnitKind::PAIR).unwrap()
    }

    #[test]
    fn a_unit_is_leased_once_and_taken_over_after_the_lease() {
        let dir = tempfile::tempdir().unwrap();
        let lease = Duration::from_millis(300);
        let first = leases(dir.path(), "a", lease);
        let second = leases(dir.path(), "b", lease);
        let mut told = Vec::new();
        let mut tell = |line: String| told.push(line);
        assert_eq!(first.take(Unit(1), &mut tell).unwrap(), Leased::Mine);
        assert_eq!(second.take(Unit(1), &mut tell).unwrap(), Leased::Held);
        assert_eq!(second.take(Unit(2), &mut tell).unwrap(), Leased::Mine);
        // The first worker's heartbeat keeps pair 1 its own past the lease.
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(second.take(Unit(1), &mut tell).unwrap(), Leased::Held);
        first.done(Unit(1)).unwrap();
        assert_eq!(first.done_by(Unit(1)).as_deref(), Some("a"));
        assert!(!first.holds(Unit(1)) && !dir.path().join("claims/pair-1").exists());
        // The second worker stops beating (as a killed one): pair 2 is taken over.
        drop(second);
        let third = leases(dir.path(), "c", lease);
        assert_eq!(third.take(Unit(2), &mut tell).unwrap(), Leased::Held);
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(third.take(Unit(2), &mut tell).unwrap(), Leased::Mine);
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(told[0].starts_with("pair 2, claimed by "), "{told:?}");
        assert!(third.holds(Unit(2)));
    }

    #[test]
    fn a_worker_whose_lease_was_taken_over_no_longer_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let slow = leases(dir.path(), "slow", Duration::from_secs(3600));
        assert_eq!(slow.take(Unit(5), &mut |_| {}).unwrap(), Leased::Mine);
        // Garbage in place of its lease: another worker's after a takeover.
        std::fs::write(dir.path().join("claims/pair-5"), "garbage").unwrap();
        assert!(!slow.holds(Unit(5)));
        slow.release(Unit(5));
        assert!(
            dir.path().join("claims/pair-5").exists(),
            "not its own to remove"
        );
    }

    #[test]
    fn a_garbage_lease_is_taken_over_after_the_lease() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("claims")).unwrap();
        std::fs::write(dir.path().join("claims/pair-3"), "\u{0}\u{1}garbage").unwrap();
        let worker = leases(dir.path(), "w", Duration::from_millis(200));
        let mut told = Vec::new();
        let take = |told: &mut Vec<String>| worker.take(Unit(3), &mut |l| told.push(l)).unwrap();
        assert_eq!(take(&mut told), Leased::Held);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(take(&mut told), Leased::Mine);
        assert!(told[0].contains("names no worker"), "{told:?}");
        assert!(worker.holds(Unit(3)));
    }

    #[test]
    fn a_removed_claims_directory_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let worker = leases(dir.path(), "w", Duration::from_secs(60));
        std::fs::remove_dir_all(dir.path().join("claims")).unwrap();
        assert_eq!(worker.take(Unit(1), &mut |_| {}).unwrap(), Leased::Mine);
        std::fs::remove_dir_all(dir.path().join("claims")).unwrap();
        worker.done(Unit(1)).unwrap();
        assert_eq!(worker.done_by(Unit(1)).as_deref(), Some("w"));
    }

    /// Two takers that judged one lease stale at the same time: exactly one holds the unit,
    /// whatever the order of their renames and creations (issue: two workers taking over one
    /// expired claim at once both believed they held it).
    #[test]
    fn two_takers_of_one_stale_lease_end_with_one_holder() {
        for _ in 0..50 {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join("claims")).unwrap();
            std::fs::write(dir.path().join("claims/pair-1"), "1 gone-1-00\n").unwrap();
            let lease = Duration::from_millis(1);
            let takers: Vec<Leases> = ["a", "b"]
                .iter()
                .map(|name| leases(dir.path(), name, lease))
                .collect();
            for taker in &takers {
                // Seen once, then stale at the next look.
                assert_eq!(taker.take(Unit(1), &mut |_| {}).unwrap(), Leased::Held);
            }
            std::thread::sleep(Duration::from_millis(5));
            let barrier = std::sync::Barrier::new(2);
            let results: Vec<Leased> = std::thread::scope(|scope| {
                let handles: Vec<_> = takers
                    .iter()
                    .map(|taker| {
                        let barrier = &barrier;
                        scope.spawn(move || {
                            barrier.wait();
                            taker.take(Unit(1), &mut |_| {}).unwrap()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let holders = takers.iter().filter(|t| t.holds(Unit(1))).count();
            let mine = results.iter().filter(|r| **r == Leased::Mine).count();
            assert_eq!(holders, 1, "{results:?}");
            assert!(mine >= 1, "{results:?}");
        }
    }
}
