//! The shards of a run joined back into one: read through the one reader of a run's games
//! ([`GameSources`]: checked to be shards of one run, each game once, in game-id order, the
//! games of the schedule no shard recorded named), and written as one games.csv, games.pgn,
//! summary.json and report.html: game for game those of the unsharded run.

use super::games::{GameSources, Group, GroupKind, ReadError, Recorded, RunReading};
use super::recorded::read_verdict;
use super::rows::Rows;
use super::settings::RunSettings;
use crate::records::pgn::RawGames;
use crate::records::{GameRecord, GameSink, RecordsError, ResultsWriter};
use crate::report::Summary;
use crate::report::html::{self, RunMeta};
use crate::run_dir::RunDir;
use crate::run_dir::identity::first_difference;
use crate::stats::Sprt;
use crate::{records, report};
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

/// The shards of one run, resolved and ready to merge.
#[derive(Debug)]
pub struct MergedRun {
    /// The shards' games.
    pub sources: GameSources,
    /// The run's config: the first shard's, without its shard.
    pub config: RunSettings,
    /// The run's shard count; `None` for a run of workers.
    pub count: Option<u32>,
    /// The shards read, by index, with their directories.
    pub shards: Vec<(u32, PathBuf)>,
    /// The run directory (the first shard's parent).
    pub dir: PathBuf,
}

/// What a merge wrote and found.
#[derive(Debug)]
pub struct Merged {
    /// The report of the merged games.
    pub summary: Summary,
    /// What reading the shards found: the games missing.
    pub reading: RunReading,
    /// Games whose PGN was written from games.csv because their shard's games.pgn lacks
    /// them (without the engines' PVs), in game-id order.
    pub without_shard_pgn: Vec<u64>,
    /// The run's recorded verdict, checked against the games.
    pub recorded: Recorded,
}

/// Why shards cannot be merged.
#[derive(Debug)]
pub enum MergeError {
    /// The games cannot be read (see [`ReadError`]).
    Read(ReadError),
    /// A results file cannot be read or written.
    Results(RecordsError),
    /// The inputs are not the shards of exactly one run.
    NotShards(String),
    /// Inputs that do not exist, in the order given.
    Missing(Vec<PathBuf>),
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Read(err) => err.fmt(f),
            MergeError::Results(err) => err.fmt(f),
            MergeError::NotShards(why) => f.write_str(why),
            MergeError::Missing(paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                match names.as_slice() {
                    [one] => write!(f, "{one} does not exist"),
                    [first @ .., last] => {
                        write!(f, "{} and {last} do not exist", first.join(", "))
                    }
                    [] => f.write_str("no inputs"),
                }
            }
        }
    }
}

impl std::error::Error for MergeError {}

impl From<ReadError> for MergeError {
    fn from(err: ReadError) -> Self {
        MergeError::Read(err)
    }
}

impl From<RecordsError> for MergeError {
    fn from(err: RecordsError) -> Self {
        MergeError::Results(err)
    }
}

impl MergedRun {
    /// The shards in `inputs`: a sharded run directory, or shard directories (or run
    /// directories standing for their shards) of one run.
    ///
    /// # Errors
    /// [`MergeError`]: inputs that do not exist (all of them named), inputs that are not the
    /// shards of exactly one run, or as [`GameSources::open`].
    pub fn open<P: AsRef<Path>>(inputs: &[P]) -> Result<MergedRun, MergeError> {
        let missing: Vec<PathBuf> = inputs
            .iter()
            .map(|input| input.as_ref())
            .filter(|input| !input.exists())
            .map(Path::to_path_buf)
            .collect();
        if !missing.is_empty() {
            return Err(MergeError::Missing(missing));
        }
        let sources = GameSources::open(inputs)?;
        let described = || {
            inputs
                .iter()
                .map(|p| p.as_ref().display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let group = match sources.groups() {
            [group] => group.clone(),
            [] => {
                return Err(MergeError::NotShards(
                    "no shard directories to merge".into(),
                ));
            }
            [first, second, ..] => {
                // The same games given twice (a worker directory and a renamed copy of it):
                // the game repeated is named, as `elo` names it.
                sources.read(&mut Ignore)?;
                return Err(not_one_run(first, second, described()));
            }
        };
        let GroupKind::Sharded {
            dir,
            config,
            count,
            shards,
        } = group.kind
        else {
            return Err(MergeError::NotShards(match group.kind {
                GroupKind::Plain { dir, .. } => format!(
                    "{} is a run on one machine: there is nothing to merge (`bt-arena elo {0}` \
                     and `bt-arena report {0}` read it)",
                    dir.display()
                ),
                _ => format!(
                    "{} holds no shard directories (shard-0, shard-1, ...)",
                    described()
                ),
            }));
        };
        Ok(MergedRun {
            config: *config,
            count,
            shards,
            dir,
            sources,
        })
    }

    /// The run's SPRT, when it has one between two engines.
    pub fn sprt(&self) -> Option<Sprt> {
        self.config.sprt
    }

    /// The engines in tournament order.
    pub fn engines(&self) -> Vec<String> {
        self.config.engine_names()
    }

    /// Writes the merged games.csv (in game-id order), games.pgn (each game's text from its
    /// shard's games.pgn where that has it), summary.json and report.html (described by the
    /// first shard's config.json and run.json) to `out`, each replacing the file there whole
    /// (a merge can be repeated as the shards go on); and the run's recorded verdict, when the
    /// games bear it out, as `out/sprt.json` when `out` does not hold it yet.
    ///
    /// # Errors
    /// [`MergeError`]: a shard's file that cannot be read or holds a game twice or a foreign
    /// one; a results file that cannot be written.
    pub fn write(&self, out: &Path) -> Result<Merged, MergeError> {
        let io_error = |action, source| RecordsError::Io {
            path: out.to_path_buf(),
            action,
            source,
        };
        std::fs::create_dir_all(out).map_err(|e| io_error("cannot create the directory", e))?;
        let staging = tempfile::tempdir_in(out).map_err(|e| io_error("cannot write", e))?;
        let staged = RunDir::new(staging.path());
        let mut writer = Appender {
            writer: self.config.results_writer(staging.path())?,
            error: None,
        };
        self.sources.read(&mut writer)?;
        if let Some(err) = writer.error {
            return Err(err.into());
        }
        drop(writer);
        let without_shard_pgn = restore_shard_pgn(&staged.games_pgn(), &self.shards)?;
        let target = RunDir::new(out);
        for (from, to) in [
            (staged.games_csv(), target.games_csv()),
            (staged.games_pgn(), target.games_pgn()),
        ] {
            std::fs::rename(from, to).map_err(|e| io_error("cannot write", e))?;
        }
        let (mut summary, reading) = self
            .sources
            .summary(&self.engines(), self.sprt().as_ref())?;
        summary.builds = records::provenance::EngineProvenance::of_engines(&self.config.engines);
        report::write_summary(out, &summary)?;
        // The run's config.json and run.json are its shards'.
        let meta = RunMeta {
            sources: vec![target.games_csv().display().to_string()],
            ..self.shards.first().map_or_else(
                || RunMeta::of_dir(out),
                |(_, dir)| RunMeta::of_shard_run(dir),
            )
        };
        let mut page = html::PageGames::new(&summary, self.sprt().as_ref());
        self.sources.read(&mut page)?;
        let (series, games) = page.finish(&summary);
        html::write_report(
            &target.report_html(),
            &html::Report {
                summary: &summary,
                series: &series,
                games: &games,
                meta: &meta,
            },
        )?;
        let recorded = self.sources.recorded_verdict(&summary);
        if let Recorded::Agrees(verdict) = &recorded
            && read_verdict(out).ok().flatten().as_ref() != Some(verdict)
        {
            records::write_json(&target.sprt_json(), verdict, records::Existing::Replace)?;
        }
        Ok(Merged {
            summary,
            reading,
            without_shard_pgn,
            recorded,
        })
    }
}

/// Why two groups of games are not one run: the first field in which their first shards'
/// configs differ ([`ReadError::NotOneRun`]), or that they are not both shards.
fn not_one_run(first: &Group, second: &Group, described: String) -> MergeError {
    let first_shard = |group: &Group| match &group.kind {
        GroupKind::Sharded { shards, .. } => shards.first().map(|(_, dir)| dir.clone()),
        _ => None,
    };
    let (Some(a), Some(b)) = (first_shard(first), first_shard(second)) else {
        return MergeError::NotShards(format!("{described} are not the shards of one run"));
    };
    let config = |dir: &Path| RunSettings::read(&RunDir::new(dir).config_json()).ok();
    match (config(&a), config(&b)) {
        (Some(ours), Some(theirs)) => {
            match first_difference(&theirs.identity(), &ours.identity(), &[]) {
                Some(difference) => MergeError::Read(ReadError::NotOneRun {
                    first: a,
                    second: b,
                    difference,
                }),
                None => MergeError::NotShards(format!("{described} are not the shards of one run")),
            }
        }
        _ => MergeError::NotShards(format!("{described} are not the shards of one run")),
    }
}

/// A [`GameSink`] that keeps nothing: the games are read for the reader's checks alone.
struct Ignore;

impl GameSink for Ignore {
    fn game(&mut self, _game: &GameRecord) {}

    fn gap(&mut self) {}

    fn end(&mut self) {}
}

/// A [`GameSink`] appending every game to a games.csv and games.pgn.
struct Appender {
    writer: ResultsWriter,
    error: Option<RecordsError>,
}

impl GameSink for Appender {
    fn game(&mut self, game: &GameRecord) {
        if self.error.is_none()
            && let Err(err) = self.writer.append(game)
        {
            self.error = Some(err);
        }
    }

    fn gap(&mut self) {}

    fn end(&mut self) {}
}

/// Rewrites the merged games.pgn at `path` (written from games.csv) with each game's text
/// from the games.pgn of its shard (in `shards`) where that has it: games.csv does not keep
/// the engines' PVs, the shard's PGN does. Returns the ids of the games no shard's PGN had.
/// Streamed: memory holds where each shard's game starts (12 bytes a game, [`Rows`]) and one
/// game's text.
///
/// # Errors
/// A games.pgn that cannot be read or written.
fn restore_shard_pgn(path: &Path, shards: &[(u32, PathBuf)]) -> Result<Vec<u64>, RecordsError> {
    let open = |path: &Path| -> Result<RawGames<BufReader<File>>, RecordsError> {
        let file = File::open(path).map_err(|e| RecordsError::io(path, "cannot read", e))?;
        Ok(RawGames::new(BufReader::new(file)))
    };
    let mut starts = Rows::new(u64::from(u32::MAX));
    let mut readers = Vec::new();
    let pgns: Vec<PathBuf> = shards
        .iter()
        .map(|(_, dir)| RunDir::new(dir).games_pgn())
        .filter(|pgn| pgn.exists())
        .collect();
    for (index, pgn) in pgns.iter().enumerate() {
        let mut games = open(pgn)?;
        loop {
            let offset = games.offset();
            let Some(game) = games.next() else { break };
            let game = game.map_err(|e| RecordsError::io(pgn, "cannot read", e))?;
            if let Some(id) = game.game_id
                && starts.push(id, index, offset).is_err()
            {
                // An id no schedule of 32-bit ids holds, or a file too large to point into:
                // the game's PGN is written from games.csv.
                continue;
            }
        }
        readers.push(open(pgn)?);
    }
    starts.sort();
    let mut missing = Vec::new();
    let merged = open(path)?;
    records::write_atomically(path, records::Existing::Replace, |file| {
        let mut out = std::io::BufWriter::new(file);
        for game in merged {
            let game = game?;
            let text = match game.game_id.and_then(|id| starts.find(id)) {
                Some((index, offset)) => {
                    let reader = &mut readers[index];
                    reader.seek(offset)?;
                    match reader.next().transpose()? {
                        Some(shard_game) if shard_game.game_id == game.game_id => shard_game.text,
                        _ => {
                            return Err(std::io::Error::other(format!(
                                "{} changed while it was read",
                                pgns[index].display()
                            )));
                        }
                    }
                }
                None => {
                    missing.extend(game.game_id);
                    game.text
                }
            };
            out.write_all(text.as_bytes())?;
        }
        out.flush()
    })?;
    Ok(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_pgn_splits_into_whole_games_whatever_the_pvs_say() {
        use crate::records::moves::{CommentDetail, MoveInfo};
        use crate::records::pgn::{PgnStyle, format_game_with};
        use crate::records::tests::record;
        use crate::records::{GameResult, Termination};
        use crate::rules::Rules;
        // A PV long enough to wrap, whose words start lines with `[Event ` and `[X-GameId `.
        let pv: Vec<String> = ["a2a3", "[Event", "x]", "[X-GameId", "77]"]
            .iter()
            .cycle()
            .take(200)
            .map(|w| w.to_string())
            .collect();
        let info = MoveInfo {
            time_us: 1000,
            pv,
            ..MoveInfo::default()
        };
        let mut style = PgnStyle::new("e", Rules::Classic);
        style.comments = CommentDetail::Full;
        let games: Vec<String> = [1, 2]
            .into_iter()
            .map(|id| {
                let game = record(
                    id,
                    1,
                    "a",
                    "b",
                    GameResult::WhiteWins,
                    Termination::GoalRank,
                );
                format_game_with(&game, &[info.clone(), info.clone(), info.clone()], &style)
            })
            .collect();
        assert!(games[0].contains("\n[Event x] [X-GameId"), "{}", games[0]);
        let text = games.concat();
        let split: Vec<(Option<u64>, String)> = RawGames::new(text.as_bytes())
            .map(|game| game.map(|g| (g.game_id, g.text)))
            .collect::<std::io::Result<_>>()
            .unwrap();
        assert_eq!(
            split,
            [(Some(1), games[0].clone()), (Some(2), games[1].clone())]
        );
    }
}
