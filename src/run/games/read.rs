//! Reading the games of [`GameSources`]: each run on one machine and each file in file
//! order, each sharded run in game-id order, every game once and checked against its run's
//! schedule.

use super::{GameSources, Group, GroupKind, Missing, ReadError, RunReading};
use crate::records::{GameFile, GameRecord, GameSink, GamesReader, RecordsError};
use crate::run::settings::{Plan, RunSettings};
use crate::run_dir::Shard;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

impl GameSources {
    /// Reads every game once into `sink`: each run on one machine and each file in file
    /// order, each sharded run in game-id order with a [`GameSink::gap`] before the first
    /// game that follows a missing one; [`GameSink::end`] after each group. Memory: the ids
    /// read (for the duplicate check) and, for a sharded run, where each row starts; never
    /// the games (a PGN file's games are held while it is read).
    ///
    /// # Errors
    /// [`ReadError`]: a file that cannot be read or holds a malformed game, a game that
    /// comes twice or is not of its run's schedule.
    pub fn read(&self, sink: &mut dyn GameSink) -> Result<RunReading, ReadError> {
        let mut reading = RunReading::default();
        let mut seen = Seen::default();
        for group in &self.groups {
            let schedule = group
                .config()
                .map(|config| Schedule::of(config, &group.kind));
            let mut recorded = Vec::new();
            match &group.kind {
                GroupKind::Sharded { .. } => {
                    self.read_in_id_order(group, schedule.as_ref(), &mut seen, &mut reading, sink)?;
                }
                _ => {
                    for (file, &key) in group.files.iter().zip(&group.keys) {
                        if group.config().is_some() && !file.exists() {
                            continue; // a run that has not finished a game yet
                        }
                        let mut games = GameFile::open(file)?;
                        let has_ids = games.has_game_ids();
                        note_skipped(file, games.skipped(), &mut reading);
                        let mut ordinal = 0;
                        while let Some(game) = games.next() {
                            let game = game?;
                            ordinal += 1;
                            let row = match &games {
                                GameFile::Csv(reader) => Row::Line(reader.line()),
                                GameFile::Pgn { .. } => Row::Game(ordinal),
                            };
                            let place = Place { file, row };
                            if let Some(schedule) = &schedule {
                                schedule.check(&game, &place, None)?;
                            }
                            // A run's games are known by its id and theirs; loose files' games
                            // (no run id: two runs' files may share a folder) by content alone.
                            let run_key = (has_ids && self.is_run_key(key)).then_some(key);
                            seen.insert(run_key, &game, &place)?;
                            recorded.push(game.game_id);
                            reading.games += 1;
                            sink.game(&game);
                        }
                    }
                    sink.end();
                }
            }
            let missing = match &schedule {
                Some(schedule) if !matches!(group.kind, GroupKind::Sharded { .. }) => {
                    schedule.missing(&recorded)
                }
                _ => Vec::new(),
            };
            if !matches!(group.kind, GroupKind::Sharded { .. }) {
                reading.missing.push(missing);
            }
        }
        Ok(reading)
    }

    /// Reads a sharded run's games in game-id order: first where each row starts, then the
    /// rows in order.
    fn read_in_id_order(
        &self,
        group: &Group,
        schedule: Option<&Schedule>,
        seen: &mut Seen,
        reading: &mut RunReading,
        sink: &mut dyn GameSink,
    ) -> Result<(), ReadError> {
        let shards: &[(u32, PathBuf)] = match &group.kind {
            GroupKind::Sharded { shards, .. } => shards,
            _ => &[],
        };
        let mut readers = Vec::new();
        let mut rows: Vec<(u64, usize, csv::Position)> = Vec::new();
        for (index, (file, &key)) in group.files.iter().zip(&group.keys).enumerate() {
            if !file.exists() {
                readers.push(None);
                continue;
            }
            let mut reader = GamesReader::open(file)?;
            note_skipped(file, reader.skipped(), reading);
            while let Some(position) = reader.next_position() {
                let Some(game) = reader.next() else { break };
                let game = game?;
                let place = Place {
                    file,
                    row: Row::Line(reader.line()),
                };
                if let Some(schedule) = schedule {
                    schedule.check(&game, &place, shards.get(index).map(|(k, _)| *k))?;
                }
                seen.insert(Some(key), &game, &place)?;
                rows.push((game.game_id, index, position));
            }
            readers.push(Some(GamesReader::open(file)?));
        }
        rows.sort_by_key(|&(game_id, _, _)| game_id);
        let mut next_id = 1;
        let mut gapped = false;
        for (game_id, index, position) in &rows {
            if *game_id != next_id && !gapped {
                sink.gap();
                gapped = true;
            }
            next_id = game_id + 1;
            let reader = readers[*index]
                .as_mut()
                .expect("a file with rows has a reader");
            reader.seek(position)?;
            let game = reader
                .next()
                .transpose()?
                .ok_or_else(|| RecordsError::Malformed {
                    path: group.files[*index].clone(),
                    line: position.line(),
                    reason: "the file changed while it was read".to_string(),
                })?;
            reading.games += 1;
            sink.game(&game);
        }
        sink.end();
        let recorded: Vec<u64> = rows.iter().map(|&(id, _, _)| id).collect();
        reading.missing.push(
            schedule
                .map(|schedule| schedule.missing(&recorded))
                .unwrap_or_default(),
        );
        Ok(())
    }
}

/// Adds a file's `skipped` lines to the reading, naming the file.
fn note_skipped(file: &Path, skipped: &[String], reading: &mut RunReading) {
    reading.skipped.extend(
        skipped
            .iter()
            .map(|line| format!("{}, {line}", file.display())),
    );
}

/// Where a game was read.
struct Place<'a> {
    file: &'a Path,
    row: Row,
}

/// A game's place in its file.
#[derive(Clone, Copy)]
enum Row {
    /// The line of a games.csv row.
    Line(u64),
    /// The game's number in a PGN file.
    Game(u64),
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.row {
            Row::Line(line) => write!(f, "{} line {line}", self.file.display()),
            Row::Game(game) => write!(f, "{} (game {game} of the file)", self.file.display()),
        }
    }
}

/// The games read so far, with where they were read: by run key and game id (games of a run),
/// and by content (every game: a run's game in a copy of its file kept elsewhere is the same
/// game). A place is kept as its file's index and its row (16 bytes a game, not its text).
#[derive(Default)]
struct Seen {
    files: Vec<PathBuf>,
    places: HashMap<(usize, u64), (usize, Row)>,
    /// Where each content was read first, and whether there it was a loose file's game.
    contents: HashMap<u64, ((usize, Row), bool)>,
}

impl Seen {
    /// Notes `game`, of run `key` when it is known by its run (`None` for a loose file's
    /// game), read at `place`.
    ///
    /// # Errors
    /// [`ReadError::Duplicate`] when the run's game id was read before, or a game of the same
    /// content ([`fingerprint`]) with this game or that one in a loose file.
    fn insert(
        &mut self,
        key: Option<usize>,
        game: &GameRecord,
        place: &Place<'_>,
    ) -> Result<(), ReadError> {
        let duplicate = |seen: &Seen, (file, row): (usize, Row)| ReadError::Duplicate {
            game_id: game.game_id,
            first: Place {
                file: &seen.files[file],
                row,
            }
            .to_string(),
            second: place.to_string(),
        };
        if let Some(key) = key
            && let Some(&first) = self.places.get(&(key, game.game_id))
        {
            return Err(duplicate(self, first));
        }
        // Two runs' games are told apart by their runs (deterministic engines replay the same
        // games); a loose file's game is the same game as one of the same content.
        let content = fingerprint(game);
        let loose = key.is_none();
        if let Some(&(first, first_loose)) = self.contents.get(&content)
            && (loose || first_loose)
        {
            return Err(duplicate(self, first));
        }
        if self.files.last().is_none_or(|file| file != place.file) {
            self.files.push(place.file.to_path_buf());
        }
        let here = (self.files.len() - 1, place.row);
        if let Some(key) = key {
            self.places.insert((key, game.game_id), here);
        }
        self.contents.entry(content).or_insert((here, loose));
        Ok(())
    }
}

/// A hash of what makes a game that game wherever it is written (games.csv or PGN): its id,
/// engines, opening, moves, result and day (a PGN's `Date`: games.pgn keeps no time of day).
/// Two runs' game 1 differ in their moves or day but for a deterministic replay, which is why
/// games known by their run are not compared by content with another run's.
fn fingerprint(game: &GameRecord) -> u64 {
    use std::hash::{Hash, Hasher};
    let day = game.started.get(..10).unwrap_or(&game.started);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (
        game.game_id,
        &game.white,
        &game.black,
        &game.opening,
        &game.moves,
        game.result,
        day,
    )
        .hash(&mut hasher);
    hasher.finish()
}

/// A run's schedule, as far as a reader checks games against it (the book is not needed:
/// ids, pairs and engines do not depend on it). Each game is computed from its id: nothing
/// is kept per game.
struct Schedule {
    plan: Plan,
    engines: Vec<String>,
    /// The shard count of a sharded run.
    count: Option<u32>,
}

impl Schedule {
    fn of(config: &RunSettings, kind: &GroupKind) -> Schedule {
        Schedule {
            plan: config.plan(),
            engines: config.engine_names(),
            count: match kind {
                GroupKind::Sharded { count, .. } => Some(*count),
                _ => None,
            },
        }
    }

    /// The shard of a sharded run that plays pair `pair`.
    fn owner(&self, pair: u64) -> Option<Shard> {
        let count = self.count?;
        let index = u32::try_from((pair - 1) % u64::from(count)).ok()?;
        Shard::new(index, count).ok()
    }

    /// Checks that `game` is one of the schedule, played by the scheduled engines (and, read
    /// from shard `shard`'s file, of that shard's pairs).
    fn check(
        &self,
        game: &GameRecord,
        place: &Place<'_>,
        shard: Option<u32>,
    ) -> Result<(), ReadError> {
        let foreign = |why: String| ReadError::Foreign {
            place: place.to_string(),
            game_id: game.game_id,
            why,
        };
        let slot = self
            .plan
            .game(game.game_id)
            .ok_or_else(|| foreign("not in the run's schedule".to_string()))?;
        let expected = (&self.engines[slot.white], &self.engines[slot.black]);
        if (&game.white, &game.black) != expected {
            return Err(foreign(format!(
                "played by {} vs {}, scheduled as {} vs {}",
                game.white, game.black, expected.0, expected.1
            )));
        }
        if let (Some(owner), Some(shard)) = (self.owner(slot.pair), shard)
            && owner.index() != shard
        {
            let count = owner.count();
            return Err(foreign(format!(
                "of shard {owner}'s pairs, not of shard {shard}/{count}'s"
            )));
        }
        Ok(())
    }

    /// The scheduled games not among `recorded`, in game-id order, with their shards.
    fn missing(&self, recorded: &[u64]) -> Vec<Missing> {
        let mut present = vec![false; usize::try_from(self.plan.len()).unwrap_or(usize::MAX)];
        for &id in recorded {
            if let Some(slot) = usize::try_from(id)
                .ok()
                .and_then(|id| id.checked_sub(1))
                .and_then(|index| present.get_mut(index))
            {
                *slot = true;
            }
        }
        present
            .iter()
            .enumerate()
            .filter(|(_, present)| !**present)
            .filter_map(|(index, _)| self.plan.game(index as u64 + 1))
            .map(|game| Missing {
                game_id: game.game_id,
                shard: self.owner(game.pair),
            })
            .collect()
    }
}
