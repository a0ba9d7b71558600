//! What a run's processes have recorded, by unit, read from their games.csv files alone: the
//! one reader that decides which games of a unit are still to play, on one machine (its own
//! games.csv, recorded by earlier sessions and this one) and for workers (every worker's).
//! Markers and leases are never believed over the games: a unit whose games were lost is
//! played again, and a unit whose marker was lost is not played twice.
//!
//! Memory: the games of the units from the lowest one not complete on (the floor); units
//! below it are complete and forgotten. Files are read in bounded chunks as they grow.

use super::schedule::{RecordedGame, Schedule, Unit};
use crate::records::{GamesReader, GamesTail, RecordsError};
use crate::run_dir::RunDir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// At most this many bytes of a games.csv are read at a time.
const CHUNK: u64 = 4 << 20;

/// Whose games are read.
#[derive(Clone, Debug)]
enum Scope {
    /// One directory's games.csv (a run on one machine, a shard).
    Own(PathBuf),
    /// Every worker directory of the run (`RUN/worker-*`), as they appear.
    Workers(PathBuf),
}

/// The games recorded so far, by unit.
#[derive(Debug)]
pub struct RecordedUnits {
    scope: Scope,
    /// The files followed, by directory.
    tails: Vec<(PathBuf, GamesTail)>,
    /// The games of the units from the floor on.
    by_unit: BTreeMap<Unit, Vec<RecordedGame>>,
    /// This process's lowest unit not known complete; `None` past its last (every unit of
    /// it is complete), or before the first read.
    floor: Option<Unit>,
    /// Whether the floor is known (after the first read).
    started: bool,
    /// Games read by the first read ([`RecordedUnits::start`]).
    count: u64,
    /// Everything is read again at the next look ([`RecordedUnits::forget`]).
    stale: bool,
}

/// Why the recorded games cannot be read.
#[derive(Debug)]
pub enum RecordedError<E> {
    /// A games.csv (or the run directory) cannot be read.
    Records(RecordsError),
    /// A game that must not be counted.
    Game(BadGame<E>),
    /// The schedule cannot read its own records again ([`Schedule::reread`]).
    Schedule(E),
}

/// A recorded game that must not be counted: a resume or a worker would count foreign or
/// repeated games.
#[derive(Debug)]
pub struct BadGame<E> {
    /// The games.csv holding it.
    pub path: PathBuf,
    /// Its id.
    pub game_id: u64,
    /// Why.
    pub fault: GameFault<E>,
}

/// What is wrong with a recorded game.
#[derive(Debug)]
pub enum GameFault<E> {
    /// The schedule does not play it (files of another run or shard), with the schedule's
    /// reason.
    NotOfSchedule(E),
    /// It is recorded twice in the file.
    Twice,
}

impl<E: std::fmt::Display> std::fmt::Display for BadGame<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot resume: {} game {}: ",
            self.path.display(),
            self.game_id
        )?;
        match &self.fault {
            GameFault::NotOfSchedule(why) => why.fmt(f),
            GameFault::Twice => f.write_str("recorded twice"),
        }
    }
}

impl RecordedUnits {
    /// The games of the directory `dir` alone (nothing read yet).
    pub fn own(dir: &Path) -> RecordedUnits {
        RecordedUnits::new(Scope::Own(dir.to_path_buf()))
    }

    /// The games of every worker of the run in `run` (nothing read yet).
    pub fn workers(run: &Path) -> RecordedUnits {
        RecordedUnits::new(Scope::Workers(run.to_path_buf()))
    }

    fn new(scope: Scope) -> RecordedUnits {
        RecordedUnits {
            scope,
            tails: Vec::new(),
            by_unit: BTreeMap::new(),
            floor: None,
            started: false,
            count: 0,
            stale: false,
        }
    }

    /// The first read, before any game is played: every game recorded so far, each of this
    /// process's own directory also handed to [`Schedule::resumed`] in file order (streamed).
    ///
    /// # Errors
    /// As [`absorb`](RecordedUnits::absorb).
    pub fn start<S: Schedule>(&mut self, schedule: &S) -> Result<(), RecordedError<S::Error>> {
        self.reset(schedule);
        if let Scope::Own(dir) = self.scope.clone() {
            let games_csv = RunDir::new(&dir).games_csv();
            let mut tail = GamesTail::new(&games_csv);
            if games_csv.exists() {
                for game in GamesReader::open(&games_csv).map_err(RecordedError::Records)? {
                    let game = game.map_err(RecordedError::Records)?;
                    schedule.resumed(&game);
                }
            }
            // The rows handed over are read again below, by unit.
            loop {
                let games = tail.read_some(CHUNK).map_err(RecordedError::Records)?;
                if games.is_empty() {
                    break;
                }
                self.count += games.len() as u64;
                self.take(schedule, &games_csv, &games, true)?;
            }
            self.tails.push((dir, tail));
            self.advance(schedule);
            return Ok(());
        }
        self.absorb(schedule).map(drop)
    }

    /// Reads what was recorded since the last look (of workers, by workers that joined
    /// since too). A worker directory removed takes its games with it: everything is read
    /// again (the schedule's own records first, [`Schedule::reread`]), and its units are
    /// played again. Returns the directories found gone.
    ///
    /// # Errors
    /// [`RecordedError::Records`] for a file or directory that cannot be read;
    /// [`RecordedError::Game`] for a game not of the schedule, or repeated;
    /// [`RecordedError::Schedule`] when the schedule cannot read its records again.
    pub fn absorb<S: Schedule>(
        &mut self,
        schedule: &S,
    ) -> Result<Vec<PathBuf>, RecordedError<S::Error>> {
        let dirs = self.dirs().map_err(RecordedError::Records)?;
        // A directory read from that is no longer there, or whose games.csv is gone (or is
        // another file: the directory was made again).
        let gone: Vec<PathBuf> = self
            .tails
            .iter()
            .filter(|(dir, tail)| tail.taken() > 0 && (!dirs.contains(dir) || tail.is_gone()))
            .map(|(dir, _)| dir.clone())
            .collect();
        if !gone.is_empty() || self.stale {
            schedule.reread().map_err(RecordedError::Schedule)?;
        }
        if !gone.is_empty() || self.stale || !self.started {
            self.reset(schedule);
        }
        for dir in dirs {
            if !self.tails.iter().any(|(known, _)| *known == dir) {
                let tail = GamesTail::new(RunDir::new(&dir).games_csv());
                self.tails.push((dir, tail));
            }
        }
        for index in 0..self.tails.len() {
            loop {
                let games = match self.tails[index].1.read_some(CHUNK) {
                    Ok(games) => games,
                    // Removed while being read: found gone at the next look.
                    Err(RecordsError::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::NotFound =>
                    {
                        break;
                    }
                    Err(err) => return Err(RecordedError::Records(err)),
                };
                if games.is_empty() {
                    break;
                }
                let path = self.tails[index].1.path().to_path_buf();
                let own = matches!(self.scope, Scope::Own(_));
                self.take(schedule, &path, &games, own)?;
            }
        }
        self.advance(schedule);
        Ok(gone)
    }

    /// Games of this process's own directory read by the first read (recorded by earlier
    /// sessions).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Everything is read again at the next look (the schedule's own records first): this
    /// process's directory was made again, and what the schedule decides by changed.
    pub fn forget(&mut self) {
        self.stale = true;
    }

    /// Forgets everything read: every file is read again from its start.
    fn reset<S: Schedule>(&mut self, schedule: &S) {
        self.stale = false;
        self.tails.clear();
        self.by_unit.clear();
        self.floor = schedule.next_unit(None);
        self.started = true;
    }

    /// The directories whose games are read.
    fn dirs(&self) -> Result<Vec<PathBuf>, RecordsError> {
        match &self.scope {
            Scope::Own(dir) => Ok(vec![dir.clone()]),
            Scope::Workers(run) => RunDir::new(run)
                .worker_dirs()
                .map(|dirs| dirs.iter().map(|d| d.root().to_path_buf()).collect())
                .map_err(|e| RecordsError::Io {
                    path: run.clone(),
                    action: "cannot list",
                    source: std::io::Error::other(e.to_string()),
                }),
        }
    }

    /// Takes `games` read from `path`; `strict`: a game twice is an error (one directory's
    /// file), else it counts once (workers' files read again).
    fn take<S: Schedule>(
        &mut self,
        schedule: &S,
        path: &Path,
        games: &[crate::records::GameRecord],
        strict: bool,
    ) -> Result<(), RecordedError<S::Error>> {
        let bad = |game_id, fault| {
            RecordedError::Game(BadGame {
                path: path.to_path_buf(),
                game_id,
                fault,
            })
        };
        for game in games {
            let recorded = schedule
                .recorded(game)
                .map_err(|why| bad(game.game_id, GameFault::NotOfSchedule(why)))?;
            if self.floor.is_none_or(|floor| recorded.unit < floor) {
                continue;
            }
            let games = self.by_unit.entry(recorded.unit).or_default();
            if games.iter().any(|g| g.game_id == recorded.game_id) {
                if strict {
                    return Err(bad(game.game_id, GameFault::Twice));
                }
                continue;
            }
            games.push(recorded);
            schedule.observed(&recorded);
        }
        Ok(())
    }

    /// Moves the floor up over the units the schedule finds complete, forgetting them.
    pub fn advance<S: Schedule>(&mut self, schedule: &S) {
        while let Some(floor) = self.floor {
            if !schedule.is_complete(floor, self.of(floor)) {
                return;
            }
            self.by_unit.remove(&floor);
            self.floor = schedule.next_unit(Some(floor));
        }
    }

    /// This process's lowest unit not known complete (every unit of it below is); `None`
    /// once every unit is.
    pub fn floor(&self) -> Option<Unit> {
        self.floor
    }

    /// The games of `unit` recorded so far (none for a unit below the floor: they are
    /// forgotten, and the unit is complete).
    pub fn of(&self, unit: Unit) -> &[RecordedGame] {
        self.by_unit.get(&unit).map_or(&[], Vec::as_slice)
    }

    /// Whether `unit` is complete: below the floor, or complete by its games.
    pub fn is_complete<S: Schedule>(&self, schedule: &S, unit: Unit) -> bool {
        self.floor.is_none_or(|floor| unit < floor) || schedule.is_complete(unit, self.of(unit))
    }

    /// The units from the floor on with games recorded, in order.
    pub fn begun(&self) -> impl Iterator<Item = Unit> + '_ {
        self.by_unit.keys().copied()
    }
}
