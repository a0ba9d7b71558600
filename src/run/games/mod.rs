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
//!   ([`GameSink::gap`](crate::records::GameSink::gap)): a verdict needs every game before it.
//! * A **games file** outside any run is read in file order, as given.
//!
//! A game is identified by its run and its game id (identical moves are not the same game:
//! deterministic engines replay an opening exactly). A game that comes twice (the same file
//! given twice, a run's games.csv given with its own games.pgn, a shard copied under another
//! name, a repeated row) is refused, naming both places. The run of a file is its directory's:
//! the run id of its config.json or identity.json, else the directory itself. Other tools'
//! PGN has no game ids: its games are counted as given. Games of a run are checked against
//! its schedule: a game outside it, or played by other engines than scheduled, is refused.

mod error;
mod read;
mod verdict;

pub use error::ReadError;
pub use verdict::{Recorded, Verdict, describe_missing, id_ranges};

use super::settings::RunSettings;
use crate::records::GameFile;
use crate::records::RecordsError;
use crate::report::html::{self, PageGames, Report, RunMeta};
use crate::report::{Summary, SummaryBuilder};
use crate::run_dir::identity::{RunIdentity, first_difference};
use crate::run_dir::{RunDir, RunKind, Shard};
use crate::stats::Sprt;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a group of games is.
#[derive(Clone, Debug)]
pub enum GroupKind {
    /// A run on one machine, its games.csv read in file order.
    Plain {
        /// The run directory.
        dir: PathBuf,
        /// Its config.json.
        config: Box<RunSettings>,
    },
    /// The shards of a sharded run (all or some of them), read in game-id order.
    Sharded {
        /// The run directory (the first shard's parent).
        dir: PathBuf,
        /// The run's config: the first shard's, without its shard.
        config: Box<RunSettings>,
        /// The run's shard count; `None` for a run of workers, whose workers play any pair.
        count: Option<u32>,
        /// The shards read, by index, with their directories (a run of workers': its workers,
        /// numbered in the order of their directories' names).
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
    pub fn config(&self) -> Option<&RunSettings> {
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
        let mut shards: Vec<(RunSettings, PathBuf, usize)> = Vec::new();
        let mut input_files = Vec::new();
        let mut loose_workers: Vec<(RunSettings, PathBuf)> = Vec::new();
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
                    // A worker's directory given on its own: read with the others given, as
                    // one run of workers.
                    if config.worker.is_some() {
                        loose_workers.push((config, input.to_path_buf()));
                        continue;
                    }
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
                RunKind::Workers(dirs) => {
                    let mut workers = Vec::new();
                    let mut files = Vec::new();
                    for dir in dirs {
                        // A worker killed before it saved its config played nothing.
                        if dir.config_json().exists() {
                            given.once(dir.root())?;
                            workers.push((read_config(&dir)?, dir.root().to_path_buf()));
                        } else if dir.games_csv().is_file() {
                            // A tune's or a datagen run's worker: its games are read as a
                            // file's (its schedule is its iterations, or its games).
                            files.push(dir.games_csv());
                        }
                    }
                    if !workers.is_empty() || files.is_empty() {
                        sources.add_workers(input, workers)?;
                    }
                    for file in files {
                        sources.add_file(&file)?;
                    }
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
                // A tune's games are read as a file's: its iterations are its schedule.
                RunKind::Tune(_) | RunKind::NoRun if run.games_csv().is_file() => {
                    sources.add_file(&run.games_csv())?
                }
                RunKind::Tune(_) | RunKind::NoRun if run.identity_json().is_file() => {
                    return Err(ReadError::NotStarted(input.to_path_buf()));
                }
                RunKind::Tune(_) | RunKind::NoRun => {
                    return Err(ReadError::NoGames(input.to_path_buf()));
                }
            }
        }
        sources.group_shards(shards)?;
        sources.group_workers(loose_workers)?;
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
        mut shards: Vec<(RunSettings, PathBuf, usize)>,
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
    /// give them ([`schedule_order`]).
    ///
    /// # Errors
    /// A games file that cannot be read.
    pub fn engines(&self) -> Result<Vec<String>, ReadError> {
        if let Some(config) = self.single_run().and_then(Group::config) {
            return Ok(config.engines.iter().map(|e| e.name.clone()).collect());
        }
        Ok(schedule_order(&self.files())?)
    }

    /// The run's own SPRT, when the inputs are one run that has one.
    pub fn run_sprt(&self) -> Option<Sprt> {
        self.single_run()?.config()?.sprt
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
        let mut builder = SummaryBuilder::new(engines, sprt);
        let reading = self.read(&mut builder)?;
        let mut summary = builder.finish();
        // A run of workers: each host's games, faults and score test.
        if let Some(GroupKind::Sharded {
            count: None,
            shards,
            ..
        }) = self.single_run().map(|group| &group.kind)
            && let Some(tested) = engines.first()
        {
            let dirs: Vec<&Path> = shards.iter().map(|(_, dir)| dir.as_path()).collect();
            let tallies = crate::run::hosts::tallies(&dirs, tested)?;
            summary.hosts = crate::report::hosts::health(tallies);
        }
        Ok((summary, reading))
    }

    /// Adds the run whose shards are `shards` (configs and directories): one group, after
    /// checking they are shards of one run, each once.
    fn add_sharded(&mut self, shards: Vec<(RunSettings, PathBuf)>) -> Result<(), ReadError> {
        let mut shards = shards;
        shards.sort_by_key(|(config, _)| config.shard.map(Shard::index));
        let (first, first_dir) = shards.first().cloned().ok_or(ReadError::NoShards)?;
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
        let count = Some(first.shard.map_or(1, Shard::count));
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

    /// Groups worker directories given one by one into runs of workers, by the run directory
    /// holding them (their parent).
    ///
    /// # Errors
    /// As [`add_workers`](Self::add_workers).
    fn group_workers(&mut self, workers: Vec<(RunSettings, PathBuf)>) -> Result<(), ReadError> {
        let mut runs: Vec<(PathBuf, Vec<(RunSettings, PathBuf)>)> = Vec::new();
        for (config, dir) in workers {
            let run = RunDir::new(&dir).parent_run().root().to_path_buf();
            match runs.iter_mut().find(|(r, _)| *r == run) {
                Some((_, members)) => members.push((config, dir)),
                None => runs.push((run, vec![(config, dir)])),
            }
        }
        for (run, mut members) in runs {
            members.sort_by(|a, b| a.1.cmp(&b.1));
            self.add_workers(&run, members)?;
        }
        Ok(())
    }

    /// Adds the run of workers in `run`, whose workers are `workers` (configs and
    /// directories): one group, after checking they are workers of one run.
    ///
    /// # Errors
    /// [`ReadError::NotOneRun`] naming two workers whose settings differ, and the field.
    fn add_workers(
        &mut self,
        run: &Path,
        workers: Vec<(RunSettings, PathBuf)>,
    ) -> Result<(), ReadError> {
        let Some((first, first_dir)) = workers.first().cloned() else {
            return Err(ReadError::NotStarted(run.to_path_buf()));
        };
        let mut files = Vec::new();
        let mut keys = Vec::new();
        let mut numbered = Vec::new();
        for (number, (config, dir)) in workers.iter().enumerate() {
            if let Some(difference) = first_difference(&config.identity(), &first.identity(), &[]) {
                return Err(ReadError::NotOneRun {
                    first: first_dir.clone(),
                    second: dir.clone(),
                    difference,
                });
            }
            numbered.push((u32::try_from(number).unwrap_or(u32::MAX), dir.clone()));
            files.push(RunDir::new(dir).games_csv());
            keys.push(self.key_of_dir(dir)?);
        }
        let mut config = first;
        config.worker = None;
        self.groups.push(Group {
            kind: GroupKind::Sharded {
                dir: run.to_path_buf(),
                config: Box::new(config),
                count: None,
                shards: numbered,
            },
            files,
            keys,
        });
        Ok(())
    }

    /// Whether run key `key` is a run's (its id, or a legacy run's directory): its games are
    /// known by their ids. A loose file's key is its folder, which files of several runs may
    /// share: their games are known by content only.
    fn is_run_key(&self, key: usize) -> bool {
        !self.keys[key].starts_with(LOOSE_PREFIX)
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
            Ok(RunKind::Sharded(_) | RunKind::Workers(_)) => match RunIdentity::read(&run)? {
                Some(identity) => identity.run_id,
                None => self::dir_key(dir),
            },
            _ => match RunIdentity::read(&run)? {
                Some(identity) => identity.run_id,
                None => format!("{LOOSE_PREFIX}{}", self::dir_key(dir)),
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

/// The report of the games of `file` alone (a games file, e.g. a runner's own games.csv as
/// it plays), for `engines` with `sprt`, read through the one reader.
///
/// # Errors
/// As [`GameSources::open`] and [`GameSources::read`].
pub fn summary_of_file(
    file: &Path,
    engines: &[String],
    sprt: Option<&Sprt>,
) -> Result<Summary, ReadError> {
    Ok(GameSources::open(&[file])?.summary(engines, sprt)?.0)
}

/// Writes `dir/report.html` for the games of the run directory `dir` (its games.csv, read
/// through the one reader) and their `summary` (computed with `sprt`), described by `meta`
/// (e.g. [`RunMeta::of_dir`]).
///
/// # Errors
/// As [`GameSources::read`]; [`ReadError::Results`] when the page cannot be written.
pub fn write_run_report(
    dir: &Path,
    meta: &RunMeta,
    summary: &Summary,
    sprt: Option<&Sprt>,
) -> Result<(), ReadError> {
    let run = RunDir::new(dir);
    let mut page = PageGames::new(summary, sprt);
    GameSources::open(&[run.games_csv()])?.read(&mut page)?;
    let (series, games) = page.finish(summary);
    html::write_report(
        &run.report_html(),
        &Report {
            summary,
            series: &series,
            games: &games,
            meta,
        },
    )?;
    Ok(())
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

/// The prefix of the key of a folder that is no run: its files' games are told apart by content.
const LOOSE_PREFIX: &str = "loose:";

/// The run key of games with no run id: their directory, canonical.
fn dir_key(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    format!("dir:{}", dir.display())
}

/// The config.json of run directory `run`.
fn read_config(run: &RunDir) -> Result<RunSettings, ReadError> {
    RunSettings::read(&run.config_json()).map_err(ReadError::Config)
}

/// The engines of games.csv `files` in schedule order: by game id (then file order, White
/// before Black) within the first file, then the engines first met in each later file, in
/// the same order. Game 1's White is the tournament's first engine, the one an SPRT tests,
/// whichever game was written first. Streams games.csv files; memory holds the names only
/// (and a PGN file's games while it is read).
///
/// # Errors
/// The first error of a [`GameFile`] on the files, in order.
fn schedule_order<P: AsRef<Path>>(files: &[P]) -> Result<Vec<String>, RecordsError> {
    let mut names: Vec<String> = Vec::new();
    for path in files {
        // Engines new in this file, with the (game id, row, side) where each is first met.
        let mut first_met: HashMap<String, (u64, usize, usize)> = HashMap::new();
        for (row, game) in GameFile::open(path.as_ref())?.enumerate() {
            let game = game?;
            for (side, name) in [&game.white, &game.black].into_iter().enumerate() {
                if names.contains(name) {
                    continue;
                }
                let at = (game.game_id, row, side);
                match first_met.get_mut(name) {
                    Some(first) => *first = (*first).min(at),
                    None => {
                        first_met.insert(name.clone(), at);
                    }
                }
            }
        }
        let mut new: Vec<(String, (u64, usize, usize))> = first_met.into_iter().collect();
        new.sort_by_key(|&(_, at)| at);
        names.extend(new.into_iter().map(|(name, _)| name));
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::GameRecord;
    use crate::records::GameResult::{BlackWins, WhiteWins};
    use crate::records::Termination::GoalRank;
    use crate::records::tests::{record, write};

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    /// Reading files through the reader gives the report of the same games read into
    /// memory: pairs within a file, the SPRT over the files in order.
    #[test]
    fn files_read_give_the_report_of_the_games_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let pair = |id: u64, first: &str, second: &str| {
            [
                record(2 * id - 1, id, first, second, WhiteWins, GoalRank),
                record(2 * id, id, second, first, BlackWins, GoalRank),
            ]
        };
        let first: Vec<GameRecord> = (1..=6).flat_map(|id| pair(id, "alpha", "beta")).collect();
        let second = vec![
            record(1, 1, "beta", "alpha", WhiteWins, GoalRank),
            record(2, 1, "alpha", "beta", BlackWins, GoalRank),
            record(3, 2, "alpha", "gamma", WhiteWins, GoalRank),
        ];
        let files = [
            write(&dir.path().join("one"), &first),
            write(&dir.path().join("two"), &second),
        ];
        let engines = names(&["beta", "alpha"]);
        let sprt: Sprt = "elo0=0 elo1=200".parse().unwrap();
        let sources = GameSources::open(&files).unwrap();
        for sprt in [None, Some(sprt)] {
            let (read, reading) = sources.summary(&engines, sprt.as_ref()).unwrap();
            let in_memory = Summary::compute_shards(&[&first, &second], &engines, sprt.as_ref());
            assert_eq!(read, in_memory);
            assert_eq!(reading.games, 15);
            assert_eq!(read.engines, ["beta", "alpha", "gamma"]);
        }
        let only_first = summary_of_file(&files[0], &engines, Some(&sprt)).unwrap();
        assert_eq!(only_first, Summary::compute(&first, &engines, Some(&sprt)));
        assert!(only_first.sprt_decision().is_some());
        let missing = dir.path().join("missing.csv");
        let err = GameSources::open(&[&files[0], &missing])
            .and_then(|sources| sources.summary(&engines, None))
            .unwrap_err();
        assert!(err.to_string().contains("missing.csv"), "{err}");
    }

    #[test]
    fn engines_of_files_come_in_schedule_order() {
        let dir = tempfile::tempdir().unwrap();
        let first = [
            record(3, 2, "c", "a", WhiteWins, GoalRank),
            record(1, 1, "b", "c", WhiteWins, GoalRank),
            record(2, 1, "c", "b", WhiteWins, GoalRank),
        ];
        let second = [
            record(1, 1, "e", "a", WhiteWins, GoalRank),
            record(1, 1, "d", "e", WhiteWins, GoalRank),
        ];
        let files = [
            write(&dir.path().join("one"), &first),
            write(&dir.path().join("two"), &second),
        ];
        assert_eq!(schedule_order(&files).unwrap(), ["b", "c", "a", "e", "d"]);
        assert_eq!(schedule_order(&files[1..]).unwrap(), ["e", "a", "d"]);
        let none: [&Path; 0] = [];
        assert_eq!(schedule_order(&none).unwrap(), Vec::<String>::new());
        assert_eq!(
            GameSources::open(&files).unwrap().engines().unwrap(),
            ["b", "c", "a", "e", "d"]
        );
    }
}
