//! The walk over a schedule's units: which game a worker thread plays next, the same for
//! every kind of run, on one machine or as one worker of many.
//!
//! Units open lowest first. A unit some of whose games were recorded before (by an earlier
//! session, or by a worker that died) is finished first, even after a verdict, so that no
//! game pair stays cut in half; only its missing games are played. A unit this session began
//! is played on after the deadline (`--max-time`), and no new unit opens then. With leases
//! (`--worker`, [`super::leases`]) a unit is played only once leased: the walk starts again
//! from the lowest unit not recorded at every look, so a unit whose lease was lost (taken over
//! while this worker was stopped, deleted by a clean-up script) is looked at again, and played
//! again by whoever finds it free. What is recorded is read from the games files alone
//! ([`super::recorded`]).

use super::leases::{Leased, Leases};
use super::recorded::RecordedUnits;
use super::schedule::{Gate, Job, Schedule, Seat, Unit};
use super::{ArenaError, Console, Stopped, lock};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Mutex;

/// A unit this process opened.
#[derive(Debug)]
struct OpenUnit {
    /// Its games not handed out yet.
    jobs: VecDeque<Job>,
    /// Its games handed out and not finished.
    playing: usize,
    /// Begun before this session opened it (games of it recorded): finished whatever the
    /// verdict.
    finishing: bool,
}

/// What a worker thread is told.
#[derive(Debug)]
pub(super) enum Next<E> {
    /// Play this game.
    Play(Job),
    /// Nothing now: ask again after [`super::WAIT_POLL`].
    Wait,
    /// Nothing more for this thread.
    Done(Stopped),
    /// The run failed.
    Failed(ArenaError<E>),
}

/// The walk's state, under one lock.
struct State {
    recorded: RecordedUnits,
    open: BTreeMap<Unit, OpenUnit>,
    /// Units this process will not open again (a game of it could not be played here).
    skipped: BTreeSet<Unit>,
    /// The schedule gave its verdict ([`Gate::Verdict`], [`super::Flow::Verdict`]): why the
    /// walk ends. Whether a unit may open or go on is asked of [`Schedule::gate`] each time.
    verdict: bool,
}

/// The walk over `schedule`'s units, with `leases` for a worker of many.
pub(super) struct Walk<'a, S: Schedule> {
    schedule: &'a S,
    leases: Option<&'a Leases>,
    state: Mutex<State>,
}

impl<'a, S: Schedule> Walk<'a, S> {
    /// The walk of `schedule`, knowing what `recorded` reads (read once already).
    pub(super) fn new(
        schedule: &'a S,
        leases: Option<&'a Leases>,
        recorded: RecordedUnits,
    ) -> Self {
        Walk {
            schedule,
            leases,
            state: Mutex::new(State {
                recorded,
                open: BTreeMap::new(),
                skipped: BTreeSet::new(),
                verdict: false,
            }),
        }
    }

    /// The next game for a worker thread. With `closing` (the deadline passed) only games
    /// of units already open are handed out.
    pub(super) fn next(&self, closing: bool, console: &Console) -> Next<S::Error> {
        let mut state = lock(&self.state);
        match self.next_open(&mut state, console) {
            Ok(Some(job)) => return Next::Play(job),
            Ok(None) => {}
            Err(err) => return Next::Failed(ArenaError::Schedule(err)),
        }
        if closing {
            return Next::Done(Stopped::TimeLimit);
        }
        match state.recorded.absorb(self.schedule) {
            Ok(gone) => {
                for dir in gone {
                    console.say(&format!(
                        "warning: {} is gone: the games it held are played again",
                        dir.display()
                    ));
                }
            }
            Err(err) => return Next::Failed(err.into()),
        }
        self.open_next(&mut state, console)
    }

    /// A game not handed out of the lowest open unit that may go on.
    fn next_open(&self, state: &mut State, console: &Console) -> Result<Option<Job>, S::Error> {
        let mut decided = false;
        let mut found = None;
        for (&unit, open) in &mut state.open {
            if open.jobs.is_empty() {
                continue;
            }
            if !open.finishing {
                match self.schedule.gate(unit, console)? {
                    Gate::Open => {}
                    Gate::Wait => continue,
                    Gate::Verdict => {
                        decided = true;
                        continue;
                    }
                }
            }
            found = open.jobs.pop_front();
            open.playing += 1;
            break;
        }
        state.verdict |= decided;
        Ok(found)
    }

    /// Opens the next unit that may open (leased, for a worker) and hands out its first game.
    fn open_next(&self, state: &mut State, console: &Console) -> Next<S::Error> {
        let mut others = false;
        let candidates: Vec<Unit> = state
            .recorded
            .begun()
            .filter(|unit| !state.open.contains_key(unit))
            .collect();
        let mut walk = candidates.into_iter().map(|unit| (unit, true)).chain(
            std::iter::successors(state.recorded.floor(), |&unit| {
                self.schedule.next_unit(Some(unit))
            })
            .map(|unit| (unit, false)),
        );
        for (unit, begun) in walk.by_ref() {
            if state.open.contains_key(&unit)
                || state.skipped.contains(&unit)
                || state.recorded.is_complete(self.schedule, unit)
            {
                continue;
            }
            let finishing = begun || !state.recorded.of(unit).is_empty();
            let gate = match self.schedule.gate(unit, console) {
                Ok(gate) => gate,
                Err(err) => return Next::Failed(ArenaError::Schedule(err)),
            };
            match gate {
                Gate::Open => {}
                Gate::Wait => return Next::Wait,
                Gate::Verdict if finishing => {}
                Gate::Verdict => {
                    state.verdict = true;
                    break;
                }
            }
            if let Some(leases) = self.leases {
                let mut taken_over = |line: String| console.say(&line);
                match leases.take(unit, &mut taken_over) {
                    Ok(Leased::Mine) => {}
                    Ok(Leased::Held) => {
                        others = true;
                        continue;
                    }
                    Err(source) => {
                        return Next::Failed(ArenaError::Leases {
                            dir: leases.dir().to_path_buf(),
                            source,
                        });
                    }
                }
                // Its last holder records its games before it lets go of it: read them now.
                if let Err(err) = state.recorded.absorb(self.schedule) {
                    return Next::Failed(err.into());
                }
                if state.recorded.is_complete(self.schedule, unit) {
                    leases.release(unit);
                    continue;
                }
            }
            let finishing = finishing || !state.recorded.of(unit).is_empty();
            let jobs = match self.schedule.open(unit, state.recorded.of(unit)) {
                Ok(jobs) => jobs,
                Err(err) => {
                    self.let_go(unit);
                    return Next::Failed(ArenaError::Schedule(err));
                }
            };
            let mut jobs: VecDeque<Job> = jobs.into();
            let Some(first) = jobs.pop_front() else {
                // Nothing left to play: the schedule recorded what it needed.
                if let Err(err) = self.done(unit) {
                    return Next::Failed(err);
                }
                continue;
            };
            state.open.insert(
                unit,
                OpenUnit {
                    jobs,
                    playing: 1,
                    finishing,
                },
            );
            return Next::Play(first);
        }
        // Units other workers hold are waited for (to be played again if their worker dies),
        // after a verdict too: those the walk reached are before it.
        match (others, state.verdict) {
            (true, _) => Next::Wait,
            (false, true) => Next::Done(Stopped::Verdict),
            (false, false) => Next::Done(Stopped::Done),
        }
    }

    /// `unit` is recorded whole by this process: its lease (a worker's) is let go of.
    fn done(&self, unit: Unit) -> Result<(), ArenaError<S::Error>> {
        match self.leases {
            Some(leases) => leases.done(unit).map_err(|source| ArenaError::Leases {
                dir: leases.dir().to_path_buf(),
                source,
            }),
            None => Ok(()),
        }
    }

    /// Lets go of the lease on `unit`, if any.
    fn let_go(&self, unit: Unit) {
        if let Some(leases) = self.leases {
            leases.release(unit);
        }
    }

    /// Whether `job` may be recorded: its unit's lease is still this worker's.
    pub(super) fn may_record(&self, job: &Job) -> bool {
        self.leases.is_none_or(|leases| leases.holds(job.unit))
    }

    /// `job` was recorded: once its unit's games are all recorded, the unit is done.
    ///
    /// # Errors
    /// A worker's done marker that cannot be written.
    pub(super) fn recorded(&self, job: &Job) -> Result<(), ArenaError<S::Error>> {
        let mut state = lock(&self.state);
        let Some(open) = state.open.get_mut(&job.unit) else {
            return Ok(());
        };
        open.playing = open.playing.saturating_sub(1);
        if open.playing > 0 || !open.jobs.is_empty() {
            return Ok(());
        }
        state.open.remove(&job.unit);
        drop(state);
        self.done(job.unit)
    }

    /// `job` finished but its unit's lease is another worker's now: the unit's games left
    /// here are dropped, and the unit is looked at again later (its new holder may die
    /// before recording it).
    pub(super) fn dropped(&self, job: &Job) {
        lock(&self.state).open.remove(&job.unit);
        self.let_go(job.unit);
        self.schedule.not_played(job);
    }

    /// `job` could not be played here (an engine could not start): its unit is not opened
    /// again by this process; a worker lets go of it (another worker plays it).
    pub(super) fn not_played(&self, job: &Job) {
        let mut state = lock(&self.state);
        state.skipped.insert(job.unit);
        if let Some(open) = state.open.get_mut(&job.unit) {
            if self.leases.is_some() {
                open.jobs.clear();
            }
            if open.jobs.is_empty() && open.playing <= 1 {
                state.open.remove(&job.unit);
            }
        }
        drop(state);
        if self.leases.is_some() {
            self.let_go(job.unit);
        }
        self.schedule.not_played(job);
    }

    /// `job` was handed out but is not played (the run stopped first).
    pub(super) fn unplayed(&self, job: &Job) {
        if let Some(open) = lock(&self.state).open.get_mut(&job.unit) {
            open.playing = open.playing.saturating_sub(1);
        }
    }

    /// Engine `seat` was given up: the games queued here that it plays, and those of units
    /// not opened yet ([`Schedule::drop_engine`]).
    pub(super) fn drop_engine(&self, seat: Seat) -> Vec<Job> {
        let mut state = lock(&self.state);
        let mut dropped = Vec::new();
        let mut emptied = Vec::new();
        for (&unit, open) in &mut state.open {
            dropped.extend(open.jobs.iter().filter(|job| job.involves(seat)).cloned());
            open.jobs.retain(|job| !job.involves(seat));
            if open.jobs.is_empty() && open.playing == 0 {
                emptied.push(unit);
            }
        }
        for unit in emptied {
            state.open.remove(&unit);
            state.skipped.insert(unit);
        }
        drop(state);
        dropped.extend(self.schedule.drop_engine(seat));
        dropped
    }

    /// This process's directory was made again: every games file is read again at the next
    /// look ([`RecordedUnits::forget`]).
    pub(super) fn forget_read(&self) {
        lock(&self.state).recorded.forget();
    }

    /// The schedule reached its verdict ([`super::Flow::Verdict`]).
    pub(super) fn verdict(&self) {
        lock(&self.state).verdict = true;
    }

    /// Lets go of every lease held (the run stopped).
    pub(super) fn release_all(&self) {
        if let Some(leases) = self.leases {
            leases.release_all();
        }
    }
}
