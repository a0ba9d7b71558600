//! The one reader of games: run directories, shard directories and games files (games.csv,
//! PGN), each game once and in the order its run's sequential test takes them. `merge`,
//! `elo`, `report` and the runner's final report all read through it, so they replay the
//! same games in the same order and reach the same verdict.
//!
//! * A **run on one machine** is read from its games.csv in file order: the order the games
//!   finished in, which is the order the runner fed its SPRT (also after a resume).
//! * A **sharded run** (`RUN`, or shard directories given one by one and grouped by their
//!   identity) is read from its shards' games.csv in game-id order, the order its shared SPRT
//!   takes them; the ids of the schedule that no shard recorded are
//!   [missing](RunReading::missing), and the test halts at the first of them
//!   ([`GameSink::gap`]): a verdict needs every game before it.
//! * A **games file** outside any run is read in file order, as given.
//!
//! A game is identified by its run and its game id (identical moves are not the same game:
//! deterministic engines replay an opening exactly). A game that comes twice (the same file
//! given twice, a run's games.csv given with its own games.pgn, a shard copied under another
//! name, a repeated row) is refused, naming both places. The run of a file is its directory's:
//! the run id of its config.json or identity.json, else the directory itself. Other tools'
//! PGN has no game ids: its games are counted as given. Games of a run are checked against
//! its schedule: a game outside it, or played by other engines than scheduled, is refused.

use super::config::TournamentConfig;
use super::schedule::{ScheduledGame, schedule};
use super::shard::sprt::{RecordedVerdict, read_verdict};
use crate::results::{self, GameFile, GameRecord, GameSink, GamesReader, ResultsError, Summary};
use crate::run_dir::identity::{Difference, RunIdentity, first_difference};
use crate::run_dir::{RunDir, RunDirError, RunKind, Shard};
use crate::stats::{Sprt, SprtDecision};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why games cannot be read.
#[derive(Debug)]
pub enum ReadError {
    /// A games file that cannot be read or holds a malformed game.
    Results(ResultsError),
    /// A run directory that cannot be read.
    RunDir(RunDirError),
    /// A config.json that cannot be read.
    Config(String),
    /// The same file (or a directory holding it) given twice.
    GivenTwice(PathBuf),
    /// A directory holding neither games nor shards.
    NoGames(PathBuf),
    /// Two shard directories whose configs differ: not shards of one run.
    NotOneRun {
        /// The first shard directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
        /// The first differing field.
        difference: Difference,
    },
    /// Two directories holding the same shard of one run.
    ShardTwice {
        /// The shard.
        shard: Shard,
        /// The first directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// A game read twice: its run and game id, and both places (`FILE line N`).
    Duplicate {
        /// The game id.
        game_id: u64,
        /// Where it was read first.
        first: String,
        /// Where it came again.
        second: String,
    },
    /// A game of a run that its schedule (or its shard's part of it) does not hold.
    Foreign {
        /// Where it is (`FILE line N`).
        place: String,
        /// The game id.
        game_id: u64,
        /// Why it is not the run's.
        why: String,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Results(err) => err.fmt(f),
            ReadError::RunDir(err) => err.fmt(f),
            ReadError::Config(err) => f.write_str(err),
            ReadError::GivenTwice(path) => write!(
                f,
                "{} is given twice: its games would be counted twice",
                path.display()
            ),
            ReadError::NoGames(dir) => write!(
                f,
                "{} holds no games.csv and no shard directories",
                dir.display()
            ),
            ReadError::NotOneRun {
                first,
                second,
                difference,
            } => write!(
                f,
                "{} and {} are not shards of one run: {difference}",
                first.display(),
                second.display()
            ),
            ReadError::ShardTwice {
                shard,
                first,
                second,
            } => write!(
                f,
                "{} and {} are both shard {shard} (a copied shard directory?): its games would \
                 be counted twice",
                first.display(),
                second.display()
            ),
            ReadError::Duplicate {
                game_id,
                first,
                second,
            } => write!(
                f,
                "game {game_id} of one run comes twice: {first} and {second}; give each file or \
                 run once (a run's games.csv and its games.pgn hold the same games)"
            ),
            ReadError::Foreign {
                place,
                game_id,
                why,
            } => write!(f, "{place}: game {game_id} is {why}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<ResultsError> for ReadError {
    fn from(err: ResultsError) -> Self {
        ReadError::Results(err)
    }
}

impl From<RunDirError> for ReadError {
    fn from(err: RunDirError) -> Self {
        ReadError::RunDir(err)
    }
}

/// What a group of games is.
#[derive(Clone, Debug)]
pub enum GroupKind {
    /// A run on one machine, its games.csv read in file order.
    Plain {
        /// The run directory.
        dir: PathBuf,
        /// Its config.json.
        config: Box<TournamentConfig>,
    },
    /// The shards of a sharded run (all or some of them), read in game-id order.
    Sharded {
        /// The run directory (the first shard's parent).
        dir: PathBuf,
        /// The run's config: the first shard's, without its shard.
        config: Box<TournamentConfig>,
        /// The run's shard count.
        count: u32,
        /// The shards read, by index, with their directories.
        shards: Vec<(u32, PathBuf)>,
    },
    /// A games file outside any run (or given on its own), read in file order.
    File,
}

/// Games read together: one run, or one file.
#[derive(Clone, Debug)]
pub struct Group {
    /// What the games are.
    pub kind: GroupKind,
    /// The games files, in reading order (a sharded run's by shard index).
    pub files: Vec<PathBuf>,
    /// The run each file's games belong to (an index into the reading's run keys), or `None`
    /// when the file's games have no ids (other tools' PGN).
    keys: Vec<usize>,
}

impl Group {
    /// The run's config, for a run.
    pub fn config(&self) -> Option<&TournamentConfig> {
        match &self.kind {
            GroupKind::Plain { config, .. } | GroupKind::Sharded { config, .. } => Some(config),
            GroupKind::File => None,
        }
    }

    /// The run directory, for a run.
    pub fn dir(&self) -> Option<&Path> {
        match &self.kind {
            GroupKind::Plain { dir, .. } | GroupKind::Sharded { dir, .. } => Some(dir),
            GroupKind::File => None,
        }
    }
}

/// Inputs resolved into groups of games, ready to be read (any number of times).
#[derive(Clone, Debug)]
pub struct GameSources {
    groups: Vec<Group>,
    /// Run keys: a run id, or `dir:PATH` for games without one.
    keys: Vec<String>,
}

/// A game of the schedule that no file read holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missing {
    /// Its game id.
    pub game_id: u64,
    /// The shard that plays it (sharded runs).
    pub shard: Option<Shard>,
}

/// What a reading found besides the games: per run, the games missing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReading {
    /// Games read.
    pub games: u64,
    /// Games of each run's schedule that no file holds, by group (empty for files).
    pub missing: Vec<Vec<Missing>>,
    /// Games read but not counted, one line each (`FILE, line N: why`): PGN games unfinished
    /// or cut off, a games.csv row without its line end.
    pub skipped: Vec<String>,
}

impl RunReading {
    /// Every missing game, over all runs.
    pub fn missing_games(&self) -> usize {
        self.missing.iter().map(Vec::len).sum()
    }
}

impl GameSources {
    /// Resolves `inputs`: run directories (on one machine or sharded), shard directories
    /// (grouped into runs by their config), and games files.
    ///
    /// # Errors
    /// [`ReadError`]: a path given twice, a directory without games, shards of different runs
    /// or the same shard twice, a config.json or identity.json that does not read.
    pub fn open<P: AsRef<Path>>(inputs: &[P]) -> Result<GameSources, ReadError> {
        let mut sources = GameSources {
            groups: Vec::new(),
            keys: Vec::new(),
        };
        let mut given = Given::default();
        // The shards, each with the input it came from: a sharded run directory's shards
        // are one run, and so are the shard directories given one by one.
        let mut shards: Vec<(TournamentConfig, PathBuf, usize)> = Vec::new();
        let mut input_files = Vec::new();
        for (source, input) in inputs.iter().enumerate() {
            let input = input.as_ref();
            given.once(input)?;
            if !input.is_dir() {
                sources.add_file(input)?;
                input_files.push(input.to_path_buf());
                continue;
            }
            let run = RunDir::new(input);
            match run.kind()? {
                RunKind::Plain => {
                    let config = read_config(&run)?;
                    let key = sources.key_of_dir(input)?;
                    sources.groups.push(Group {
                        kind: GroupKind::Plain {
                            dir: input.to_path_buf(),
                            config: Box::new(config),
                        },
                        files: vec![run.games_csv()],
                        keys: vec![key],
                    });
                }
                RunKind::Shard(_) => {
                    shards.push((read_config(&run)?, input.to_path_buf(), usize::MAX))
                }
                RunKind::Sharded(dirs) => {
                    for (_, dir) in dirs {
                        // A shard killed before it saved its config never started.
                        if dir.config_json().exists() {
                            given.once(dir.root())?;
                            shards.push((read_config(&dir)?, dir.root().to_path_buf(), source));
                        }
                    }
                }
                RunKind::NoRun if run.games_csv().is_file() => {
                    sources.add_file(&run.games_csv())?
                }
                RunKind::NoRun => return Err(ReadError::NoGames(input.to_path_buf())),
            }
        }
        sources.group_shards(shards)?;
        // A run's games.csv given as a file too.
        for file in sources.files() {
            if !input_files.contains(&file) {
                given.once(&file)?;
            }
        }
        Ok(sources)
    }

    /// Adds the games file `file`, outside any run.
    fn add_file(&mut self, file: &Path) -> Result<(), ReadError> {
        let key = self.key_of_dir(&parent_of(file))?;
        self.groups.push(Group {
            kind: GroupKind::File,
            files: vec![file.to_path_buf()],
            keys: vec![key],
        });
        Ok(())
    }

    /// Groups `shards` (config, directory, the input they came from: `usize::MAX` for a shard
    /// directory given on its own) into runs by their settings: shards of one run started in
    /// directories that share nothing (a CI matrix) have the same settings, seed included.
    /// The shards of one sharded run directory, and the shard directories given one by one,
    /// must be of one run.
    ///
    /// # Errors
    /// [`ReadError::NotOneRun`] naming two shards of one input that differ, and the field.
    fn group_shards(
        &mut self,
        mut shards: Vec<(TournamentConfig, PathBuf, usize)>,
    ) -> Result<(), ReadError> {
        while let Some((config, _, _)) = shards.first() {
            let identity = config.identity();
            let (run, rest): (Vec<_>, Vec<_>) = shards
                .into_iter()
                .partition(|(c, _, _)| first_difference(&c.identity(), &identity, &[]).is_none());
            if let Some((other, dir, _)) = rest
                .iter()
                .find(|(_, _, source)| run.iter().any(|(_, _, s)| s == source))
            {
                let (first, first_dir, _) = &run[0];
                return Err(ReadError::NotOneRun {
                    first: first_dir.clone(),
                    second: dir.clone(),
                    difference: first_difference(&other.identity(), &first.identity(), &[])
                        .expect("shards in different groups differ"),
                });
            }
            shards = rest;
            self.add_sharded(run.into_iter().map(|(c, d, _)| (c, d)).collect())?;
        }
        Ok(())
    }

    /// The groups, in reading order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// Every games file, in reading order.
    pub fn files(&self) -> Vec<PathBuf> {
        self.groups
            .iter()
            .flat_map(|group| group.files.iter().cloned())
            .collect()
    }

    /// The only run read, when the inputs are one run (on one machine or sharded).
    pub fn single_run(&self) -> Option<&Group> {
        match &self.groups[..] {
            [group] if group.config().is_some() => Some(group),
            _ => None,
        }
    }

    /// The engines in the run's order (its config), else in schedule order as the files
    /// give them ([`results::schedule_order`]).
    ///
    /// # Errors
    /// A games file that cannot be read.
    pub fn engines(&self) -> Result<Vec<String>, ReadError> {
        if let Some(config) = self.single_run().and_then(Group::config) {
            return Ok(config.engines.iter().map(|e| e.name.clone()).collect());
        }
        Ok(results::schedule_order(&self.files())?)
    }

    /// The run's own SPRT, when the inputs are one run that has one.
    pub fn run_sprt(&self) -> Option<Sprt> {
        self.single_run()?.config()?.sprt
    }

    /// The verdict recorded by the shared SPRT of the only run read (its `sprt.json`),
    /// checked against `summary`, the report its games give: a record of another run or test
    /// is not this run's ([`Recorded::None`]); a record the games do not bear out (a stale
    /// file, an edited one) or that does not read is [`Recorded::Ignored`]. The verdict is
    /// always the games'.
    pub fn recorded_verdict(&self, summary: &Summary) -> Recorded {
        let Some(GroupKind::Sharded { dir, config, .. }) = self.single_run().map(|g| &g.kind)
        else {
            return Recorded::None;
        };
        let path = RunDir::new(dir).sprt_json();
        let record = match read_verdict(dir) {
            Ok(Some(record)) => record,
            Ok(None) => return Recorded::None,
            Err(err) => return Recorded::Ignored(format!("{err}: the record is ignored")),
        };
        let Some(sprt) = summary
            .pairs
            .first()
            .and_then(|pair| pair.sprt.map(|status| (status, config.sprt)))
        else {
            return Recorded::None;
        };
        let (status, test) = sprt;
        if !test.is_some_and(|test| record.is_for(config.run_id.as_deref(), &test)) {
            return Recorded::None;
        }
        if (status.report.decision, status.games) == (record.report.decision, record.games) {
            Recorded::Agrees(record)
        } else {
            Recorded::Ignored(format!(
                "{} records {} at game {}, which the games read do not give: the record is \
                 ignored (the verdict is the games')",
                path.display(),
                record.hypothesis(),
                record.games
            ))
        }
    }

    /// The report of the games for `engines`, with `sprt` (see [`Summary::compute`]), and
    /// what the reading found.
    ///
    /// # Errors
    /// As [`read`](GameSources::read).
    pub fn summary(
        &self,
        engines: &[String],
        sprt: Option<&Sprt>,
    ) -> Result<(Summary, RunReading), ReadError> {
        let mut builder = results::SummaryBuilder::new(engines, sprt);
        let reading = self.read(&mut builder)?;
        Ok((builder.finish(), reading))
    }

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
                            if has_ids {
                                seen.insert(key, game.game_id, &place)?;
                            }
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
                seen.insert(key, game.game_id, &place)?;
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
                .ok_or_else(|| ResultsError::Malformed {
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

    /// Adds the run whose shards are `shards` (configs and directories): one group, after
    /// checking they are shards of one run, each once.
    fn add_sharded(&mut self, shards: Vec<(TournamentConfig, PathBuf)>) -> Result<(), ReadError> {
        let mut shards = shards;
        shards.sort_by_key(|(config, _)| config.shard.map(Shard::index));
        let (first, first_dir) = shards
            .first()
            .cloned()
            .ok_or_else(|| ReadError::Config("no shard directories to read".to_string()))?;
        let mut indexed: Vec<(u32, PathBuf)> = Vec::new();
        let mut files = Vec::new();
        let mut keys = Vec::new();
        for (config, dir) in &shards {
            if let Some(difference) = first_difference(&config.identity(), &first.identity(), &[]) {
                return Err(ReadError::NotOneRun {
                    first: first_dir.clone(),
                    second: dir.clone(),
                    difference,
                });
            }
            let shard = config.shard.expect("a shard's config has its shard");
            if let Some((_, twin)) = indexed.iter().find(|(k, _)| *k == shard.index()) {
                return Err(ReadError::ShardTwice {
                    shard,
                    first: twin.clone(),
                    second: dir.clone(),
                });
            }
            indexed.push((shard.index(), dir.clone()));
            files.push(RunDir::new(dir).games_csv());
            keys.push(self.key_of_dir(dir)?);
        }
        let count = first.shard.map_or(1, Shard::count);
        let mut config = first;
        config.shard = None;
        self.groups.push(Group {
            kind: GroupKind::Sharded {
                dir: RunDir::new(&first_dir).parent_run().root().to_path_buf(),
                config: Box::new(config),
                count,
                shards: indexed,
            },
            files,
            keys,
        });
        Ok(())
    }

    /// The run key of the games in directory `dir`: the run id of its config.json (a run, a
    /// shard) or identity.json (a sharded run's merged files); of a shard begun before run
    /// ids, its run directory; else the directory itself.
    fn key_of_dir(&mut self, dir: &Path) -> Result<usize, ReadError> {
        let run = RunDir::new(dir);
        let key = match run.kind() {
            Ok(RunKind::Plain | RunKind::Shard(_)) => {
                let config = crate::run_dir::read_json(&run.config_json())?;
                match config.as_ref().and_then(|c| c["run_id"].as_str()) {
                    Some(id) => id.to_string(),
                    None if matches!(run.kind(), Ok(RunKind::Shard(_))) => {
                        self::dir_key(run.parent_run().root())
                    }
                    None => self::dir_key(dir),
                }
            }
            _ => match RunIdentity::read(&run)? {
                Some(identity) => identity.run_id,
                None => self::dir_key(dir),
            },
        };
        Ok(match self.keys.iter().position(|k| *k == key) {
            Some(index) => index,
            None => {
                self.keys.push(key);
                self.keys.len() - 1
            }
        })
    }
}

/// The files and directories given or read so far, by device and inode: the same file under
/// another spelling (a symbolic link, `../`, a hard link) is the same file.
#[derive(Default)]
struct Given {
    seen: Vec<(u64, u64)>,
}

impl Given {
    /// Notes `path`; a path seen before is [`ReadError::GivenTwice`]. A path that does not
    /// exist (yet) is not noted.
    fn once(&mut self, path: &Path) -> Result<(), ReadError> {
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = std::fs::metadata(path) else {
            return Ok(());
        };
        let id = (meta.dev(), meta.ino());
        if self.seen.contains(&id) {
            return Err(ReadError::GivenTwice(path.to_path_buf()));
        }
        self.seen.push(id);
        Ok(())
    }
}

/// The directory holding `file` (`.` for a bare name).
fn parent_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The run key of games with no run id: their directory, canonical.
fn dir_key(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    format!("dir:{}", dir.display())
}

/// The config.json of run directory `run`.
fn read_config(run: &RunDir) -> Result<TournamentConfig, ReadError> {
    TournamentConfig::read(&run.config_json()).map_err(|e| ReadError::Config(e.to_string()))
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

/// The games read so far, by run key and game id, with where they were read.
#[derive(Default)]
struct Seen {
    places: HashMap<(usize, u64), String>,
}

impl Seen {
    /// Notes game `game_id` of run `key` read at `place`.
    fn insert(&mut self, key: usize, game_id: u64, place: &Place<'_>) -> Result<(), ReadError> {
        match self.places.entry((key, game_id)) {
            std::collections::hash_map::Entry::Occupied(first) => Err(ReadError::Duplicate {
                game_id,
                first: first.get().clone(),
                second: place.to_string(),
            }),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(place.to_string());
                Ok(())
            }
        }
    }
}

/// A run's schedule, as far as a reader checks games against it (the book is not needed:
/// ids, pairs and engines do not depend on it).
struct Schedule {
    games: Vec<ScheduledGame>,
    engines: Vec<String>,
    /// The shard count of a sharded run.
    count: Option<u32>,
}

impl Schedule {
    fn of(config: &TournamentConfig, kind: &GroupKind) -> Schedule {
        Schedule {
            games: schedule(config, 1),
            engines: config.engines.iter().map(|e| e.name.clone()).collect(),
            count: match kind {
                GroupKind::Sharded { count, .. } => Some(*count),
                _ => None,
            },
        }
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
        let slot = usize::try_from(game.game_id)
            .ok()
            .and_then(|id| id.checked_sub(1))
            .and_then(|index| self.games.get(index))
            .ok_or_else(|| foreign("not in the run's schedule".to_string()))?;
        let expected = (&self.engines[slot.white], &self.engines[slot.black]);
        if (&game.white, &game.black) != expected {
            return Err(foreign(format!(
                "played by {} vs {}, scheduled as {} vs {}",
                game.white, game.black, expected.0, expected.1
            )));
        }
        if let (Some(count), Some(shard)) = (self.count, shard) {
            let owner = u32::try_from((slot.pair - 1) % u64::from(count)).unwrap_or(u32::MAX);
            if owner != shard {
                return Err(foreign(format!(
                    "of shard {owner}/{count}'s pairs, not of shard {shard}/{count}'s"
                )));
            }
        }
        Ok(())
    }

    /// The scheduled games not among `recorded`, in game-id order, with their shards.
    fn missing(&self, recorded: &[u64]) -> Vec<Missing> {
        let mut present = vec![false; self.games.len()];
        for &id in recorded {
            if let Some(slot) = usize::try_from(id)
                .ok()
                .and_then(|id| id.checked_sub(1))
                .and_then(|index| present.get_mut(index))
            {
                *slot = true;
            }
        }
        self.games
            .iter()
            .zip(present)
            .filter(|(_, present)| !present)
            .map(|(game, _)| Missing {
                game_id: game.game_id,
                shard: self.count.and_then(|count| {
                    let index = u32::try_from((game.pair - 1) % u64::from(count)).ok()?;
                    Shard::new(index, count).ok()
                }),
            })
            .collect()
    }
}

/// A sharded run's recorded verdict (`sprt.json`), checked against its games (see
/// [`GameSources::recorded_verdict`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// No record for this run and test.
    None,
    /// The record agrees with the verdict the games give.
    Agrees(RecordedVerdict),
    /// A record the games do not bear out, or that does not read: why it is ignored.
    Ignored(String),
}

/// A run's verdict as its games give it: the same whichever command reads the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The SPRT accepted a hypothesis (H1 or H0), every game before its deciding game read.
    Accepted(SprtDecision),
    /// The SPRT reached no decision, and no game of the schedule is missing (or the games
    /// are files, whose schedule is unknown).
    NoDecision,
    /// Games of the schedule are missing and no verdict stands: the run is incomplete.
    Incomplete {
        /// Whether the run is tested by an SPRT (which has no verdict yet).
        tested: bool,
    },
    /// No SPRT, and no game missing.
    Complete,
}

impl Verdict {
    /// The verdict of a reading: its summary's SPRT decision (which the reading halted at the
    /// first missing game, so that a decision stands on every game before it), else
    /// incomplete when games are missing.
    pub fn of(summary: &Summary, reading: &RunReading) -> Verdict {
        match summary.sprt_decision() {
            Some(decision @ (SprtDecision::AcceptH1 | SprtDecision::AcceptH0)) => {
                Verdict::Accepted(decision)
            }
            decision if reading.missing_games() > 0 => Verdict::Incomplete {
                tested: decision.is_some(),
            },
            Some(SprtDecision::Continue) => Verdict::NoDecision,
            None => Verdict::Complete,
        }
    }
}

/// The missing games of each run read, by shard, with the first ranges of ids and how to
/// play them: `shard 1/2: 20 games (3-4, 7-8, ...): bt-arena tournament --resume RUN --shard
/// 1/2`, one line per shard (or per run on one machine).
pub fn describe_missing(sources: &GameSources, reading: &RunReading) -> Vec<String> {
    let mut lines = Vec::new();
    for (group, missing) in sources.groups().iter().zip(&reading.missing) {
        if missing.is_empty() {
            continue;
        }
        let dir = group
            .dir()
            .unwrap_or(Path::new("RUN"))
            .display()
            .to_string();
        let mut by_shard: BTreeMap<Option<u32>, (Option<Shard>, Vec<u64>)> = BTreeMap::new();
        for game in missing {
            let entry = by_shard
                .entry(game.shard.map(Shard::index))
                .or_insert((game.shard, Vec::new()));
            entry.1.push(game.game_id);
        }
        for (shard, ids) in by_shard.into_values() {
            let games = format!(
                "{} ({})",
                results::plural(ids.len() as u64, "game"),
                id_ranges(&ids)
            );
            lines.push(match (shard, &group.kind) {
                (Some(shard), GroupKind::Sharded { shards, .. }) => {
                    let started = shards.iter().any(|(k, _)| *k == shard.index());
                    let how = match started {
                        true => format!(
                            "continue with `bt-arena tournament --resume {dir} --shard {shard}`"
                        ),
                        false => format!(
                            "it never started: run the tournament's command with `--out {dir} \
                             --shard {shard}`"
                        ),
                    };
                    format!("shard {shard}: {games}: {how}")
                }
                _ => format!("{dir}: {games}: continue with `bt-arena tournament --resume {dir}`"),
            });
        }
    }
    lines
}

/// Most ranges [`id_ranges`] names.
const MAX_RANGES: usize = 6;

/// Ascending ids as ranges, the first [`MAX_RANGES`] of them: `1-4, 7, 9-10`, or
/// `1-2, 4-5, 7-8, 10-11, 13-14, 16-17, ...`.
pub fn id_ranges(ids: &[u64]) -> String {
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for &id in ids {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == id => *end = id,
            _ => ranges.push((id, id)),
        }
    }
    let mut named: Vec<String> = ranges
        .iter()
        .take(MAX_RANGES)
        .map(|&(start, end)| match start == end {
            true => start.to_string(),
            false => format!("{start}-{end}"),
        })
        .collect();
    if ranges.len() > MAX_RANGES {
        named.push("...".to_string());
    }
    named.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_as_ranges() {
        assert_eq!(id_ranges(&[1, 2, 3, 4, 7, 9, 10]), "1-4, 7, 9-10");
        assert_eq!(id_ranges(&[5]), "5");
        assert_eq!(id_ranges(&[]), "");
        let pairs: Vec<u64> = (1..=10).flat_map(|p| [3 * p - 2, 3 * p - 1]).collect();
        assert_eq!(id_ranges(&pairs), "1-2, 4-5, 7-8, 10-11, 13-14, 16-17, ...");
    }
}
