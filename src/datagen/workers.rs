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
//! Which games are recorded is read from the workers' games files when a worker starts and
//! when it takes a claim over (a worker killed between writing a game and marking it done
//! left it recorded); in between, the `game-N.done` markers say it. The run's games, merged,
//! are byte for byte those of one machine at the same settings.

use super::GAMES_FILE;
use super::formats::games::GamesReader;
use crate::run_dir::RunDir;
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

/// The ids of the games every worker of `run` recorded, as their files stand: a file being
/// written (its last game torn) or unreadable counts up to where it reads.
pub fn recorded(run: &Path) -> IdRanges {
    let mut ids = IdRanges::default();
    let files = games_files(run).ok().flatten().unwrap_or_default();
    for file in files {
        let Ok(reader) = GamesReader::open(&file) else {
            continue;
        };
        for entry in reader {
            match entry {
                Ok(entry) => ids.insert(entry.game_id),
                Err(_) => break,
            }
        }
    }
    ids
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
