//! Runs of workers: any number of processes, on any machines sharing the run directory, each
//! claiming the lowest unit of the run's schedule nobody plays (a tournament's game pair, a
//! tune's iteration, a datagen run's game), playing it and recording it in its own directory
//! (`RUN/worker-ID/`). No server: the claims are files ([`crate::claim`]) in `RUN/claims/`,
//! named by the unit ([`UnitClaims::new`]'s `unit`, e.g. `pair`):
//!
//! - `pair-N`: the claim on unit N, created exclusively, naming its worker; touched every
//!   [`heartbeat_of`] the lease while the worker plays the unit.
//! - `pair-N.done`: the unit is recorded, by the worker it names (written atomically once its
//!   games are in that worker's files; a later recording of the unit replaces it).
//! - `pair-N.expired-TOKEN`: a claim taken over after the lease (its heartbeat had not moved
//!   for the lease by the taker's clock, or its process is gone from the taker's host); the
//!   unit is played again. Kept for the record.
//!
//! A worker records a game only while its claim on the game's unit is still its own
//! ([`UnitClaims::holds`]): a worker whose claim was taken over drops the unit's games, so the
//! readers see each game once. Which games are recorded is read from the workers' games.csv
//! ([`RecordedGames`]), never from markers: the games of a unit taken over that were recorded
//! are kept and only the others played. A game depends only on the seed, the schedule and its
//! unit, never on who played it: any mix of workers, kills and restarts gives the games one
//! machine gives (with deterministic engines).

use crate::claim::{Claim, ClaimWatch, Heartbeat, holder_of};
use crate::records::{GameRecord, GameResult, now_rfc3339};
use crate::run_dir::RunDir;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// The default lease (`--lease`): a claim whose heartbeat has not moved for this long is
/// taken over. As the build cache's claims: long beside a heartbeat, short beside a run.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// How often a worker touches its claims: a twelfth of the lease, at most every 5 s.
pub fn heartbeat_of(lease: Duration) -> Duration {
    (lease / 12).min(Duration::from_secs(5))
}

/// What claiming a unit gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claimed {
    /// The unit is this worker's to play.
    Mine,
    /// Another worker plays it (its claim is live).
    Held,
}

/// A claim this worker holds, and the games of its unit still to record.
struct HeldUnit {
    claim: Claim,
    left: usize,
}

/// One worker's claims on the units (game units, iterations, games) of its run.
pub struct UnitClaims {
    dir: PathBuf,
    kind: &'static str,
    worker: String,
    lease: Duration,
    held: Arc<Mutex<HashMap<u64, HeldUnit>>>,
    watches: Mutex<HashMap<u64, ClaimWatch>>,
    stop: Arc<AtomicBool>,
    beating: Option<JoinHandle<()>>,
    recorded: Mutex<RecordedGames>,
}

impl UnitClaims {
    /// The claims of worker `worker` on the units of the run in `run`, with `lease`; starts
    /// the heartbeat. `kind` names the units in file names and messages (`pair`,
    /// `iteration`, `game`); `unit_of` gives a recorded game's unit (its pair, its round).
    ///
    /// # Errors
    /// When `RUN/claims/` cannot be created.
    pub fn new(
        run: &Path,
        worker: &str,
        lease: Duration,
        kind: &'static str,
        unit_of: fn(&GameRecord) -> u64,
    ) -> io::Result<UnitClaims> {
        let dir = RunDir::new(run).claims();
        std::fs::create_dir_all(&dir)?;
        let held: Arc<Mutex<HashMap<u64, HeldUnit>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let beating = {
            let (held, stop) = (held.clone(), stop.clone());
            let every = heartbeat_of(lease);
            std::thread::spawn(move || {
                Heartbeat::run(every, &stop, || {
                    for held in crate::arena::lock(&held).values() {
                        crate::claim::touch(held.claim.file());
                    }
                });
            })
        };
        Ok(UnitClaims {
            dir,
            kind,
            worker: worker.to_string(),
            lease,
            held,
            watches: Mutex::default(),
            stop,
            beating: Some(beating),
            recorded: Mutex::new(RecordedGames::new(run, unit_of)),
        })
    }

    /// Reads what the run's workers recorded since the last look ([`RecordedGames`]).
    ///
    /// # Errors
    /// As [`RecordedGames::absorb`].
    pub fn absorb(&self) -> Result<(), crate::records::RecordsError> {
        crate::arena::lock(&self.recorded).absorb()
    }

    /// The games of `unit` any worker recorded, as last read.
    pub fn recorded_of(&self, unit: u64) -> Vec<RecordedGame> {
        crate::arena::lock(&self.recorded).of(unit).to_vec()
    }

    /// Forgets what was read of the games of every unit below `floor`: the schedule asks
    /// about none of them again ([`RecordedGames::forget_below`]).
    pub fn forget_below(&self, floor: u64) {
        crate::arena::lock(&self.recorded).forget_below(floor);
    }

    /// Forgets what was read of `unit`'s games ([`RecordedGames::forget`]).
    pub fn forget(&self, unit: u64) {
        crate::arena::lock(&self.recorded).forget(unit);
    }

    fn claim_path(&self, unit: u64) -> PathBuf {
        self.dir.join(format!("{}-{unit}", self.kind))
    }

    fn done_path(&self, unit: u64) -> PathBuf {
        self.dir.join(format!("{}-{unit}.done", self.kind))
    }

    /// Claims `unit`, of `games` games, for this worker: at once when nobody holds it; after
    /// the lease when another worker's claim has not moved (it is then taken over, and
    /// `taken_over` is told whose it was and for how long it had not moved).
    ///
    /// # Errors
    /// When a claim cannot be created, read or renamed for a reason other than another
    /// worker's being first.
    pub fn claim(
        &self,
        unit: u64,
        games: usize,
        taken_over: &mut dyn FnMut(String),
    ) -> io::Result<Claimed> {
        if self.holds(unit) {
            return Ok(Claimed::Mine);
        }
        let path = self.claim_path(unit);
        let extra = [("worker", self.worker.clone()), ("taken", now_rfc3339())];
        if let Some(claim) = Claim::try_create(&path, &extra)? {
            return Ok(self.take(unit, claim, games));
        }
        let holder = holder_of(&path);
        let mut watches = crate::arena::lock(&self.watches);
        let watch = watches
            .entry(unit)
            .or_insert_with(|| ClaimWatch::new(self.lease));
        if !watch.is_stale(&path, holder.as_ref()) {
            return Ok(Claimed::Held);
        }
        let still = watch.unchanged_for();
        watches.remove(&unit);
        drop(watches);
        let dead = holder
            .as_ref()
            .is_some_and(crate::claim::Holder::is_dead_here);
        let token = crate::claim::token();
        match std::fs::rename(
            &path,
            self.dir
                .join(format!("{}-{unit}.expired-{token}", self.kind)),
        ) {
            Ok(()) => {}
            // Another worker took it over first.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Claimed::Held),
            Err(e) => return Err(e),
        }
        let kind = self.kind;
        taken_over(match holder {
            Some(holder) if dead => format!(
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
        });
        match Claim::try_create(&path, &extra)? {
            Some(claim) => Ok(self.take(unit, claim, games)),
            None => Ok(Claimed::Held),
        }
    }

    fn take(&self, unit: u64, claim: Claim, games: usize) -> Claimed {
        crate::arena::lock(&self.held).insert(unit, HeldUnit { claim, left: games });
        Claimed::Mine
    }

    /// Whether this worker still holds its claim on `unit` (not taken over by another after
    /// the lease): only then may it record the unit's games.
    pub fn holds(&self, unit: u64) -> bool {
        crate::arena::lock(&self.held)
            .get(&unit)
            .is_some_and(|held| held.claim.is_held())
    }

    /// Whether `unit` is marked done (`KIND-N.done`): recorded by the worker the marker names.
    /// A cache: a schedule whose records can be read decides by them.
    pub fn is_done(&self, unit: u64) -> bool {
        self.done_path(unit).exists()
    }

    /// The worker the done marker of `unit` names, when it is marked done and names one.
    pub fn done_by(&self, unit: u64) -> Option<String> {
        let text = std::fs::read_to_string(self.done_path(unit)).ok()?;
        let worker = text.trim();
        (!worker.is_empty() && !worker.contains(['/', '\0'])).then(|| worker.to_string())
    }

    /// Whether this worker holds a claim on `unit` it has not finished.
    pub fn playing(&self, unit: u64) -> bool {
        crate::arena::lock(&self.held).contains_key(&unit)
    }

    /// A game of `unit` is recorded: once the unit's last is, the unit is marked done
    /// (`KIND-N.done`, naming this worker) and its claim let go of.
    ///
    /// # Errors
    /// When the done marker cannot be written.
    pub fn recorded(&self, unit: u64) -> io::Result<()> {
        let mut held = crate::arena::lock(&self.held);
        let Some(entry) = held.get_mut(&unit) else {
            return Ok(());
        };
        entry.left = entry.left.saturating_sub(1);
        if entry.left > 0 {
            return Ok(());
        }
        held.remove(&unit);
        drop(held);
        self.mark_done(unit)
    }

    /// Writes `KIND-N.done`, naming this worker, atomically; it replaces a marker left by an
    /// earlier recording (of a worker whose records were lost and played again here), so that
    /// the marker names the worker whose records hold the unit now.
    fn mark_done(&self, unit: u64) -> io::Result<()> {
        let mut file = tempfile::NamedTempFile::new_in(&self.dir)?;
        io::Write::write_all(&mut file, format!("{}\n", self.worker).as_bytes())?;
        file.persist(self.done_path(unit)).map_err(|e| e.error)?;
        Ok(())
    }

    /// Lets go of the claim on `unit` (not played, or dropped when the run stopped), so that
    /// another worker plays it at once rather than after the lease.
    pub fn release(&self, unit: u64) {
        if let Some(held) = crate::arena::lock(&self.held).remove(&unit)
            && held.claim.is_held()
        {
            let _ = std::fs::remove_file(held.claim.path());
        }
    }

    /// Lets go of every claim not finished (the run stopped).
    pub fn release_all(&self) {
        let units: Vec<u64> = crate::arena::lock(&self.held).keys().copied().collect();
        for unit in units {
            self.release(unit);
        }
    }
}

impl Drop for UnitClaims {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(beating) = self.beating.take() {
            let _ = beating.join();
        }
    }
}

/// A game a worker recorded, as a worker deciding what to play needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedGame {
    /// Its id.
    pub game_id: u64,
    /// Its result.
    pub result: GameResult,
}

/// The games every worker of a run has recorded, read from their games.csv as the files grow
/// (each worker's file followed from where it was last read; workers joining later are
/// followed as they appear), by unit: which games of a unit are recorded is decided by the
/// games, never by a marker, so a unit whose marker was lost is not played twice and a unit
/// whose games were lost is played again by the next worker to start.
pub struct RecordedGames {
    run: PathBuf,
    unit_of: fn(&GameRecord) -> u64,
    tails: Vec<crate::records::GamesTail>,
    by_unit: HashMap<u64, Vec<RecordedGame>>,
}

impl RecordedGames {
    /// Follows the workers of the run in `run` (nothing read yet); `unit_of` gives a game's
    /// unit.
    pub fn new(run: &Path, unit_of: fn(&GameRecord) -> u64) -> RecordedGames {
        RecordedGames {
            run: run.to_path_buf(),
            unit_of,
            tails: Vec::new(),
            by_unit: HashMap::new(),
        }
    }

    /// Reads what every worker recorded since the last look.
    ///
    /// # Errors
    /// A worker's games.csv that cannot be read, or the run directory that cannot be listed.
    pub fn absorb(&mut self) -> Result<(), crate::records::RecordsError> {
        let workers =
            RunDir::new(&self.run)
                .worker_dirs()
                .map_err(|e| crate::records::RecordsError::Io {
                    path: self.run.clone(),
                    action: "cannot list",
                    source: io::Error::other(e.to_string()),
                })?;
        for worker in workers {
            let games = worker.games_csv();
            if !self.tails.iter().any(|tail| tail.path() == games) {
                self.tails.push(crate::records::GamesTail::new(games));
            }
        }
        for tail in &mut self.tails {
            for game in tail.read_new()? {
                self.by_unit
                    .entry((self.unit_of)(&game))
                    .or_default()
                    .push(RecordedGame {
                        game_id: game.game_id,
                        result: game.result,
                    });
            }
        }
        Ok(())
    }

    /// The games of `unit` recorded so far, by any worker.
    pub fn of(&self, unit: u64) -> &[RecordedGame] {
        self.by_unit.get(&unit).map_or(&[], Vec::as_slice)
    }

    /// Forgets `unit`'s games: the unit is played or being played, never asked about again
    /// (so memory holds only the units recorded ahead of this worker's place).
    pub fn forget(&mut self, unit: u64) {
        self.by_unit.remove(&unit);
    }

    /// Forgets the games of every unit below `floor`, the schedule's lowest unit still to
    /// decide: games read after their unit was passed (this worker's own, read back from its
    /// games.csv) would otherwise be kept for the whole run.
    pub fn forget_below(&mut self, floor: u64) {
        self.by_unit.retain(|&unit, _| unit >= floor);
    }
}

/// A new worker's id: `HOST-PID-RANDOM` ([`crate::claim::token`]).
pub fn new_worker_id() -> String {
    crate::claim::token()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(run: &Path, worker: &str, lease: Duration) -> UnitClaims {
        UnitClaims::new(run, worker, lease, "pair", |game| game.pair).unwrap()
    }

    #[test]
    fn a_pair_is_claimed_once_recorded_once_and_taken_over_after_the_lease() {
        let dir = tempfile::tempdir().unwrap();
        let lease = Duration::from_millis(300);
        let first = claims(dir.path(), "a", lease);
        let second = claims(dir.path(), "b", lease);
        let mut told = Vec::new();
        let mut tell = |line: String| told.push(line);
        assert_eq!(first.claim(1, 2, &mut tell).unwrap(), Claimed::Mine);
        assert_eq!(second.claim(1, 2, &mut tell).unwrap(), Claimed::Held);
        assert_eq!(second.claim(2, 2, &mut tell).unwrap(), Claimed::Mine);
        // The first worker's heartbeat keeps pair 1 its own past the lease.
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(second.claim(1, 2, &mut tell).unwrap(), Claimed::Held);
        let done = dir.path().join("claims/pair-1.done");
        first.recorded(1).unwrap();
        assert!(!done.exists() && first.playing(1));
        first.recorded(1).unwrap();
        assert!(done.exists() && !first.playing(1));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("claims/pair-1.done")).unwrap(),
            "a\n"
        );
        // The second worker stops beating (as a killed one): pair 2 is taken over.
        drop(second);
        let third = claims(dir.path(), "c", lease);
        assert_eq!(third.claim(2, 2, &mut tell).unwrap(), Claimed::Held);
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(third.claim(2, 2, &mut tell).unwrap(), Claimed::Mine);
        assert_eq!(told.len(), 1, "{told:?}");
        assert!(told[0].starts_with("pair 2, claimed by "), "{told:?}");
        assert!(third.holds(2));
    }

    #[test]
    fn games_read_below_the_floor_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let worker = RunDir::new(dir.path()).worker("w");
        std::fs::create_dir_all(worker.root()).unwrap();
        let mut writer =
            crate::records::ResultsWriter::open(worker.root(), crate::rules::Rules::default())
                .unwrap();
        for pair in 1..=3 {
            for game in [2 * pair - 1, 2 * pair] {
                writer
                    .append(&crate::records::tests::record(
                        game,
                        pair,
                        "a",
                        "b",
                        crate::records::GameResult::WhiteWins,
                        crate::records::Termination::GoalRank,
                    ))
                    .unwrap();
            }
        }
        drop(writer);
        let mut recorded = RecordedGames::new(dir.path(), |game| game.pair);
        recorded.absorb().unwrap();
        assert_eq!(recorded.by_unit.len(), 3);
        recorded.forget_below(3);
        assert_eq!(recorded.by_unit.keys().copied().collect::<Vec<_>>(), [3]);
        assert_eq!(recorded.of(3).len(), 2);
    }

    #[test]
    fn a_worker_whose_claim_was_taken_over_no_longer_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let slow = claims(dir.path(), "slow", Duration::from_secs(3600));
        assert_eq!(slow.claim(5, 2, &mut |_| {}).unwrap(), Claimed::Mine);
        // Garbage in place of its claim: another worker's after a takeover.
        std::fs::write(dir.path().join("claims/pair-5"), "garbage").unwrap();
        assert!(!slow.holds(5));
        slow.release(5);
        assert!(
            dir.path().join("claims/pair-5").exists(),
            "not its own to remove"
        );
    }

    #[test]
    fn a_garbage_claim_is_taken_over_after_the_lease() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("claims")).unwrap();
        std::fs::write(dir.path().join("claims/pair-3"), "\u{0}\u{1}garbage").unwrap();
        let worker = claims(dir.path(), "w", Duration::from_millis(200));
        let mut told = Vec::new();
        assert_eq!(
            worker.claim(3, 2, &mut |l| told.push(l)).unwrap(),
            Claimed::Held
        );
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            worker.claim(3, 2, &mut |l| told.push(l)).unwrap(),
            Claimed::Mine
        );
        assert!(told[0].contains("names no worker"), "{told:?}");
        assert!(worker.holds(3) && worker.playing(3));
    }
}
