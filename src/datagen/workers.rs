//! A datagen run of workers (`datagen --worker`): its games claimed one at a time
//! ([`crate::arena::claims`], `RUN/claims/game-N`), each worker writing the games it plays into
//! its own directory `RUN/worker-ID/`:
//!
//! - `games.dat`: its games in increasing game id (it claims the lowest game nobody holds, and
//!   writes its games in the order of their ids);
//! - `games-N.dat`: game N alone, when N is below the last game of its games.dat (a game it
//!   took over from a dead worker, or one another worker let go of), so that every games file
//!   is in game-id order and the run's games merge in game order ([`super::convert::merged`]).
//!
//! Which games are recorded is read from the workers' games.csv, as for every kind of run
//! ([`crate::arena::recorded`]): a worker writes a game to its games file before games.csv
//! records it, and the run's games are merged from the entries whose worker's games.csv
//! holds them ([`recorded_ids`]): a worker killed between the two left an entry that another
//! worker played again. The run's games, merged, are byte for byte those of one machine at
//! the same settings.

use super::GAMES_FILE;
use crate::records::{GamesReader, RecordsError};
use crate::run_dir::{RunDir, WORKER_PREFIX};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A set of game ids held as ranges, so that a run's recorded games cost memory by their gaps,
/// not their number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdRanges {
    /// Inclusive ranges `start → end`, disjoint and not touching.
    ranges: BTreeMap<u64, u64>,
}

impl IdRanges {
    /// Adds `id`, merging it with the ranges it touches.
    pub fn insert(&mut self, id: u64) {
        if self.contains(id) {
            return;
        }
        let before = self
            .ranges
            .range(..id)
            .next_back()
            .filter(|&(_, &end)| end + 1 == id)
            .map(|(&start, _)| start);
        let after = id
            .checked_add(1)
            .and_then(|next| self.ranges.get(&next).map(|&end| (next, end)));
        let start = before.unwrap_or(id);
        let end = match after {
            Some((next, end)) => {
                self.ranges.remove(&next);
                end
            }
            None => id,
        };
        self.ranges.insert(start, end);
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: u64) -> bool {
        self.ranges
            .range(..=id)
            .next_back()
            .is_some_and(|(_, &end)| id <= end)
    }
}

/// The games files of a worker directory: its games.dat and its `games-N.dat` files.
pub fn worker_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| {
                    name == GAMES_FILE || (name.starts_with("games-") && name.ends_with(".dat"))
                })
        })
        .collect();
    files.sort();
    files
}

/// The games files of the run in `run` when it is a run of workers (every worker's, each in
/// game-id order); `None` when it has no worker directory.
///
/// # Errors
/// When `run` cannot be listed.
pub fn games_files(run: &Path) -> Result<Option<Vec<PathBuf>>, crate::run_dir::RunDirError> {
    let workers = RunDir::new(run).worker_dirs()?;
    if workers.is_empty() {
        return Ok(None);
    }
    Ok(Some(
        workers
            .iter()
            .flat_map(|worker| worker_files(worker.root()))
            .collect(),
    ))
}

/// The ids of the games the games.csv of worker directory `dir` records; `None` for a
/// directory that is no worker's (a run on one machine, a shard: their games file is theirs
/// whole).
///
/// # Errors
/// The games.csv cannot be read.
pub fn recorded_ids(dir: &Path) -> Result<Option<IdRanges>, RecordsError> {
    let is_worker = dir
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with(WORKER_PREFIX));
    if !is_worker {
        return Ok(None);
    }
    let mut ids = IdRanges::default();
    let games_csv = RunDir::new(dir).games_csv();
    if games_csv.exists() {
        for game in GamesReader::open(&games_csv)? {
            ids.insert(game?.game_id);
        }
    }
    Ok(Some(ids))
}

/// The file game `game_id` goes to in the worker directory `dir` whose games.dat ends with game
/// `last` (0: empty): games.dat when it comes after, else a file of its own.
pub fn file_for(dir: &Path, game_id: u64, last: u64) -> Option<PathBuf> {
    (game_id <= last).then(|| dir.join(format!("games-{game_id}.dat")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_held_as_ranges_that_merge() {
        let mut ids = IdRanges::default();
        for id in [1, 2, 3, 7, 5, 6, 10] {
            ids.insert(id);
        }
        assert_eq!(
            ids.ranges.iter().map(|(&a, &b)| (a, b)).collect::<Vec<_>>(),
            [(1, 3), (5, 7), (10, 10)]
        );
        ids.insert(4);
        assert_eq!(
            ids.ranges.iter().map(|(&a, &b)| (a, b)).collect::<Vec<_>>(),
            [(1, 7), (10, 10)]
        );
        assert!(ids.contains(1) && ids.contains(7) && ids.contains(10));
        assert!(!ids.contains(0) && !ids.contains(8) && !ids.contains(11));
    }

    #[test]
    fn a_game_below_the_last_goes_to_its_own_file() {
        let dir = Path::new("/r/worker-a");
        assert_eq!(file_for(dir, 5, 4), None);
        assert_eq!(
            file_for(dir, 3, 4),
            Some(PathBuf::from("/r/worker-a/games-3.dat"))
        );
    }
}
