//! Reading the games of [`GameSources`]: each run on one machine and each file in file
//! order, each sharded run in game-id order, every game once and checked against its run's
//! schedule.
//!
//! Memory does not hold the games, and little per game:
//! * a run's games are known by their run and game id: one bit a game id ([`IdSet`]) finds a
//!   game read twice;
//! * loose files' games (no run: two runs' files may share a folder) are known by their
//!   content: when any is read, each game's 64-bit content hash (8 bytes), sorted at the end,
//!   finds the candidates, and a second pass over the files compares them exactly and names
//!   both places;
//! * a sharded run is read in game-id order from where each row starts: 12 bytes a game
//!   (its id and its file and byte offset), sorted by id.
//!
//! Where a game read twice was read first is found again by reading the files, on that error
//! alone.

use super::{GameSources, Group, GroupKind, Missing, ReadError, RunReading};
use crate::records::{GameFile, GameRecord, GameSink, GamesReader, RecordsError};
use crate::run::rows::Rows;
use crate::run::settings::{Plan, RunSettings};
use crate::run_dir::Shard;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

impl GameSources {
    /// Reads every game once into `sink`: each run on one machine and each file in file
    /// order, each sharded run in game-id order with a [`GameSink::gap`] before the first
    /// game that follows a missing one; [`GameSink::end`] after each group. Memory: a bit a
    /// game id of a run, 8 bytes a game when loose files are read (their content hashes),
    /// 12 bytes a game of a sharded run while it is read (where each row starts); never the
    /// games (a PGN file's games are held while it is read).
    ///
    /// # Errors
    /// [`ReadError`]: a file that cannot be read or holds a malformed game, a game that
    /// comes twice or is not of its run's schedule. A game that comes twice in loose files is
    /// found once every game was read (and given to `sink`).
    pub fn read(&self, sink: &mut dyn GameSink) -> Result<RunReading, ReadError> {
        let mut reading = RunReading::default();
        let loose = self
            .groups
            .iter()
            .any(|g| matches!(g.kind, GroupKind::File));
        let mut seen = Seen::new(loose);
        for group in &self.groups {
            let schedule = group
                .config()
                .map(|config| Schedule::of(config, &group.kind));
            if let GroupKind::Sharded { .. } = group.kind {
                self.read_in_id_order(group, schedule.as_ref(), &mut seen, &mut reading, sink)?;
            } else {
                for (file, &key) in group.files.iter().zip(&group.keys) {
                    if group.config().is_some() && !file.exists() {
                        continue; // a run that has not finished a game yet
                    }
                    let mut games = GameFile::open(file)?;
                    note_skipped(file, games.skipped(), &mut reading);
                    // A run's games are known by its id and theirs; loose files' games (no run
                    // id: two runs' files may share a folder) by content alone.
                    let run_key = (games.has_game_ids() && self.is_run_key(key)).then_some(key);
                    let index = seen.open(file, run_key);
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
                        seen.insert(index, &game, &place)?;
                        reading.games += 1;
                        sink.game(&game);
                    }
                }
                sink.end();
                reading.missing.push(match (&schedule, group.keys.first()) {
                    (Some(schedule), Some(&key)) => schedule.missing(|id| seen.has(key, id)),
                    _ => Vec::new(),
                });
            }
        }
        seen.check_contents()?;
        Ok(reading)
    }

    /// Reads a sharded run's games in game-id order: first where each row starts (checking
    /// every game), then the rows in order.
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
        let mut rows = Rows::new(schedule.map_or(u64::MAX, |s| s.plan.len()));
        for (index, (file, &key)) in group.files.iter().zip(&group.keys).enumerate() {
            if !file.exists() {
                readers.push(None);
                continue;
            }
            let mut reader = GamesReader::open(file)?;
            note_skipped(file, reader.skipped(), reading);
            let seen_index = seen.open(file, Some(key));
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
                seen.insert(seen_index, &game, &place)?;
                rows.push(game.game_id, index, position.byte())
                    .map_err(|problem| ReadError::Index {
                        file: file.to_path_buf(),
                        problem,
                    })?;
            }
            readers.push(Some(GamesReader::open(file)?));
        }
        rows.sort();
        let mut next_id = 1;
        let mut gapped = false;
        for (game_id, index, byte) in rows.iter() {
            if game_id != next_id && !gapped {
                sink.gap();
                gapped = true;
            }
            next_id = game_id + 1;
            let reader = readers[index]
                .as_mut()
                .expect("a file with rows has a reader");
            let mut position = csv::Position::new();
            position.set_byte(byte);
            reader.seek(&position)?;
            let game = reader
                .next()
                .transpose()?
                .filter(|game| game.game_id == game_id)
                .ok_or_else(|| RecordsError::Malformed {
                    path: group.files[index].clone(),
                    line: 0,
                    reason: format!(
                        "the file changed while it was read (game {game_id}'s row at byte {byte})"
                    ),
                })?;
            reading.games += 1;
            sink.game(&game);
        }
        sink.end();
        reading.missing.push(match (schedule, group.keys.first()) {
            (Some(schedule), Some(&key)) => schedule.missing(|id| seen.has(key, id)),
            _ => Vec::new(),
        });
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

/// Ids in blocks of this many, one bit each.
const BLOCK_IDS: u64 = 4096;

/// A set of game ids: one bit an id, in blocks of [`BLOCK_IDS`] ids (512 bytes) made as ids
/// reach them: the ids of a run, dense from 1, cost a bit each.
#[derive(Debug, Default)]
struct IdSet {
    blocks: HashMap<u64, Box<[u64; (BLOCK_IDS / 64) as usize]>>,
}

impl IdSet {
    /// The word and bit of `id` in its block.
    fn bit(id: u64) -> (usize, u64) {
        let at = id % BLOCK_IDS;
        ((at / 64) as usize, 1 << (at % 64))
    }

    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: u64) -> bool {
        let block = self
            .blocks
            .entry(id / BLOCK_IDS)
            .or_insert_with(|| Box::new([0; (BLOCK_IDS / 64) as usize]));
        let (word, mask) = IdSet::bit(id);
        let new = block[word] & mask == 0;
        block[word] |= mask;
        new
    }

    fn contains(&self, id: u64) -> bool {
        let (word, mask) = IdSet::bit(id);
        self.blocks
            .get(&(id / BLOCK_IDS))
            .is_some_and(|block| block[word] & mask != 0)
    }
}

/// The games read so far, as far as telling a game read twice needs them: the ids of each
/// run's games ([`IdSet`], by run key), and when loose files are read, every game's content
/// hash ([`fingerprint`], with whether it was a loose file's game). The files read, in
/// order, with the run their games are known by (`None`: by content), to find a game's place
/// again.
struct Seen {
    files: Vec<(PathBuf, Option<usize>)>,
    ids: HashMap<usize, IdSet>,
    /// `fingerprint << 1 | loose`, in reading order until sorted; `None` when no loose file
    /// is read (a run's games are then told apart by their ids alone).
    contents: Option<Vec<u64>>,
}

impl Seen {
    /// Nothing read yet; content hashes kept when `loose` files are among those read.
    fn new(loose: bool) -> Seen {
        Seen {
            files: Vec::new(),
            ids: HashMap::new(),
            contents: loose.then(Vec::new),
        }
    }

    /// Notes that `file` is read next, its games known by run `key` (`None`: by content);
    /// returns its index.
    fn open(&mut self, file: &Path, key: Option<usize>) -> usize {
        self.files.push((file.to_path_buf(), key));
        self.files.len() - 1
    }

    /// Whether game `id` of run `key` was read.
    fn has(&self, key: usize, id: u64) -> bool {
        self.ids.get(&key).is_some_and(|ids| ids.contains(id))
    }

    /// Notes `game`, read at `place` of file `file` (an index of [`open`](Seen::open)).
    ///
    /// # Errors
    /// [`ReadError::Duplicate`] when the file's run has this game id already, naming where
    /// it was read first.
    fn insert(
        &mut self,
        file: usize,
        game: &GameRecord,
        place: &Place<'_>,
    ) -> Result<(), ReadError> {
        let key = self.files[file].1;
        if let Some(key) = key
            && !self.ids.entry(key).or_default().insert(game.game_id)
        {
            let first =
                self.find(|(_, k), other| *k == Some(key) && other.game_id == game.game_id)?;
            return Err(ReadError::Duplicate {
                game_id: game.game_id,
                first: first.map_or_else(|| "an earlier file".to_string(), |(place, _)| place),
                second: place.to_string(),
            });
        }
        if let Some(contents) = &mut self.contents {
            contents.push(fingerprint(game) << 1 | u64::from(key.is_none()));
        }
        Ok(())
    }

    /// The place (and game) of the first game read that `wanted` accepts with its file,
    /// read again from the files.
    ///
    /// # Errors
    /// A file that cannot be read again.
    fn find(
        &self,
        mut wanted: impl FnMut(&(PathBuf, Option<usize>), &GameRecord) -> bool,
    ) -> Result<Option<(String, GameRecord)>, ReadError> {
        let mut found = None;
        self.each_game(|file, place, game| {
            if wanted(&self.files[file], game) {
                found = Some((place.to_string(), game.clone()));
            }
            found.is_none()
        })?;
        Ok(found)
    }

    /// Reads every file read so far again, in order, giving `each` the file's index, where
    /// each game is and the game, until `each` returns false.
    fn each_game(
        &self,
        mut each: impl FnMut(usize, &Place<'_>, &GameRecord) -> bool,
    ) -> Result<(), ReadError> {
        for (index, (file, _)) in self.files.iter().enumerate() {
            let mut games = GameFile::open(file)?;
            let mut ordinal = 0;
            while let Some(game) = games.next() {
                let game = game?;
                ordinal += 1;
                let row = match &games {
                    GameFile::Csv(reader) => Row::Line(reader.line()),
                    GameFile::Pgn { .. } => Row::Game(ordinal),
                };
                if !each(index, &Place { file, row }, &game) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Checks the content hashes for a loose file's game that came twice, or that is a run's
    /// game read too: sorted, the hashes two games share are the candidates; a second
    /// reading finds, in reading order, the first game whose content came before (compared
    /// exactly, so that two games whose hashes collide are not one).
    ///
    /// # Errors
    /// [`ReadError::Duplicate`] naming both places of the first such game.
    fn check_contents(&mut self) -> Result<(), ReadError> {
        let Some(mut contents) = self.contents.take() else {
            return Ok(());
        };
        contents.sort_unstable();
        let mut candidates: Vec<u64> = contents
            .chunk_by(|a, b| a >> 1 == b >> 1)
            .filter(|run| run.len() > 1 && run.iter().any(|hash| hash & 1 == 1))
            .map(|run| run[0] >> 1)
            .collect();
        drop(contents);
        if candidates.is_empty() {
            return Ok(());
        }
        candidates.shrink_to_fit();
        // The first game of each candidate hash: its file, row, and whether it is loose.
        let mut first: HashMap<u64, (usize, Row, bool)> = HashMap::new();
        let mut duplicate = None;
        let mut failed = None;
        self.each_game(|file, place, game| {
            let hash = fingerprint(game) & (u64::MAX >> 1);
            if candidates.binary_search(&hash).is_err() {
                return true;
            }
            let loose = self.files[file].1.is_none();
            let Some(&(first_file, first_row, first_loose)) = first.get(&hash) else {
                first.insert(hash, (file, place.row, loose));
                return true;
            };
            if !(loose || first_loose) {
                return true;
            }
            // The earlier game, read again, compared exactly.
            let earlier = self.game_at(first_file, first_row);
            match earlier {
                Ok(Some(earlier)) if same_content(&earlier, game) => {
                    duplicate = Some(ReadError::Duplicate {
                        game_id: game.game_id,
                        first: Place {
                            file: &self.files[first_file].0,
                            row: first_row,
                        }
                        .to_string(),
                        second: place.to_string(),
                    });
                    false
                }
                Ok(_) => true,
                Err(err) => {
                    failed = Some(err);
                    false
                }
            }
        })?;
        match (failed, duplicate) {
            (Some(err), _) => Err(err),
            (None, Some(err)) => Err(err),
            (None, None) => Ok(()),
        }
    }

    /// The game at `row` of file `file` (an index of [`open`](Seen::open)), read again.
    ///
    /// # Errors
    /// The file cannot be read again.
    fn game_at(&self, file: usize, row: Row) -> Result<Option<GameRecord>, ReadError> {
        let mut games = GameFile::open(&self.files[file].0)?;
        let mut ordinal = 0;
        while let Some(game) = games.next() {
            let game = game?;
            ordinal += 1;
            let here = match (&games, row) {
                (GameFile::Csv(reader), Row::Line(line)) => reader.line() == line,
                (GameFile::Pgn { .. }, Row::Game(number)) => ordinal == number,
                _ => false,
            };
            if here {
                return Ok(Some(game));
            }
        }
        Ok(None)
    }
}

/// What makes a game that game wherever it is written (games.csv or PGN): its id, engines,
/// opening, moves, result and day (a PGN's `Date`: games.pgn keeps no time of day). Two runs'
/// game 1 differ in their moves or day but for a deterministic replay, which is why games
/// known by their run are not compared by content with another run's.
fn content(game: &GameRecord) -> impl std::hash::Hash + PartialEq + '_ {
    let day = game.started.get(..10).unwrap_or(&game.started);
    (
        game.game_id,
        &game.white,
        &game.black,
        &game.opening,
        &game.moves,
        game.result,
        day,
    )
}

/// Whether two games have the same [`content`].
fn same_content(a: &GameRecord, b: &GameRecord) -> bool {
    content(a) == content(b)
}

/// A 64-bit hash of a game's [`content`].
fn fingerprint(game: &GameRecord) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    content(game).hash(&mut hasher);
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
                GroupKind::Sharded { count, .. } => *count,
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

    /// The scheduled games for which `present` is false, in game-id order, with their
    /// shards. Nothing is allocated but the list.
    fn missing(&self, present: impl Fn(u64) -> bool) -> Vec<Missing> {
        (1..=self.plan.len())
            .filter(|&id| !present(id))
            .filter_map(|id| self.plan.game(id))
            .map(|game| Missing {
                game_id: game.game_id,
                shard: self.owner(game.pair),
            })
            .collect()
    }
}
