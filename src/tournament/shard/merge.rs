//! The shards of a run joined back into one: checked to belong to one run, their games in
//! game-id order, the games of the schedule no shard recorded, and the merged games.csv,
//! games.pgn and summary.json: game for game those of the unsharded run.

use super::super::config::TournamentConfig;
use super::super::runner::CONFIG_FILE;
use super::super::schedule::{recorded_ids, schedule, shard_games};
use super::Shard;
use super::layout::{first_difference, shard_dirs};
use super::sprt::{RecordedVerdict, SPRT_FILE, read_verdict};
use crate::results::html::{self, RunMeta};
use crate::results::{self, GAMES_CSV, GAMES_PGN, GameRecord, ResultsError, Summary};
use crate::stats::Sprt;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The shards of one run, read and checked.
#[derive(Debug)]
pub struct MergedRun {
    /// The run's config: the first shard's, without its shard.
    pub config: TournamentConfig,
    /// The shards read, by index, with their directories.
    pub shards: Vec<(Shard, PathBuf)>,
    /// Every game of every shard, in game-id order.
    pub games: Vec<GameRecord>,
    /// The games of the schedule no shard recorded, in game-id order, with the index of the
    /// shard that plays them.
    pub missing: Vec<(u64, u32)>,
    /// The verdict of the shared SPRT, when the run directory holding the shards recorded
    /// one (`sprt.json`).
    pub verdict: Option<RecordedVerdict>,
}

/// Reads the shards in run directory `run` (its `shard-K` directories).
///
/// # Errors
/// As [`read_shards`]; also when `run` holds no shard directory.
pub fn read_run(run: &Path) -> Result<MergedRun, String> {
    let dirs: Vec<PathBuf> = shard_dirs(run)?.into_iter().map(|(_, dir)| dir).collect();
    if dirs.is_empty() {
        return Err(format!(
            "{} holds no shard directories (shard-0, shard-1, ...)",
            run.display()
        ));
    }
    read_shards(&dirs)
}

/// Reads the shard directories `dirs` (each with the config.json and games.csv a shard
/// wrote) and checks that they are shards of one run: their configs agree (see
/// [`first_difference`]), no shard is given twice, and each games.csv holds only games of
/// its shard's part of the schedule, once each (so no game appears twice).
///
/// Shards not given are not an error: their games are [`missing`](MergedRun::missing).
/// The book is not read (it may not be at hand where shards are merged): game ids, pairs
/// and engines do not depend on it.
///
/// # Errors
/// A message naming the directory or file at fault and why.
pub fn read_shards(dirs: &[PathBuf]) -> Result<MergedRun, String> {
    let mut shards: Vec<(TournamentConfig, PathBuf)> = Vec::new();
    for dir in dirs {
        let config = shard_config(dir)?;
        if let Some((first, first_dir)) = shards.first()
            && let Some(difference) = first_difference(&config, first)
        {
            return Err(format!(
                "{} and {} are not shards of one run: {difference}",
                first_dir.display(),
                dir.display()
            ));
        }
        if let Some((_, twin)) = shards.iter().find(|(c, _)| c.shard == config.shard) {
            return Err(format!(
                "{} and {} are both shard {}",
                twin.display(),
                dir.display(),
                config.shard.map(|s| s.to_string()).unwrap_or_default()
            ));
        }
        shards.push((config, dir.clone()));
    }
    shards.sort_by_key(|(config, _)| config.shard.map(Shard::index));
    let mut games = Vec::new();
    for (config, dir) in &shards {
        games.extend(shard_games_checked(config, dir)?);
    }
    games.sort_by_key(|game| game.game_id);
    let (mut config, _) = shards
        .first()
        .ok_or("no shard directories to merge")?
        .clone();
    let count = config.shard.map_or(1, Shard::count);
    config.shard = None;
    let recorded: HashSet<u64> = games.iter().map(|game| game.game_id).collect();
    let missing = schedule(&config, 1)
        .into_iter()
        .filter(|game| !recorded.contains(&game.game_id))
        .map(|game| {
            (
                game.game_id,
                u32::try_from((game.pair - 1) % u64::from(count)).unwrap_or(u32::MAX),
            )
        })
        .collect();
    Ok(MergedRun {
        verdict: recorded_verdict(&shards)?,
        config,
        shards: shards
            .into_iter()
            .filter_map(|(config, dir)| Some((config.shard?, dir)))
            .collect(),
        games,
        missing,
    })
}

/// The config a shard saved in `dir`.
fn shard_config(dir: &Path) -> Result<TournamentConfig, String> {
    let path = dir.join(CONFIG_FILE);
    if !path.is_file() {
        return Err(format!(
            "{} is not a shard directory: it has no {CONFIG_FILE}",
            dir.display()
        ));
    }
    let config = TournamentConfig::read(&path).map_err(|e| e.to_string())?;
    if config.shard.is_none() {
        return Err(format!(
            "{} is not a shard's: it has no `shard` field (an unsharded run)",
            path.display()
        ));
    }
    Ok(config)
}

/// The games in shard directory `dir`, checked against the shard's part of the schedule.
fn shard_games_checked(config: &TournamentConfig, dir: &Path) -> Result<Vec<GameRecord>, String> {
    let path = dir.join(GAMES_CSV);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let games = results::read_games(&path).map_err(|e| e.to_string())?;
    recorded_ids(config, &shard_games(config, 1), &games).map_err(|(game_id, why)| {
        format!("cannot merge: {} game {game_id}: {why}", path.display())
    })?;
    Ok(games)
}

/// The verdict recorded in the run directories holding the shards, if any.
fn recorded_verdict(
    shards: &[(TournamentConfig, PathBuf)],
) -> Result<Option<RecordedVerdict>, String> {
    let runs: Vec<&Path> = shards.iter().filter_map(|(_, dir)| dir.parent()).collect();
    for run in runs {
        if let Some(verdict) = read_verdict(run).map_err(|e| e.to_string())? {
            return Ok(Some(verdict));
        }
    }
    Ok(None)
}

impl MergedRun {
    /// The run's SPRT, when it has one between two engines.
    pub fn sprt(&self) -> Option<Sprt> {
        self.config.sprt
    }

    /// The report of the merged games (engines in tournament order; with the run's SPRT,
    /// replayed in game-id order).
    pub fn summary(&self) -> Summary {
        let names: Vec<String> = self.config.engines.iter().map(|e| e.name.clone()).collect();
        let mut summary = Summary::compute(&self.games, &names, self.sprt().as_ref());
        summary.builds = results::provenance::EngineProvenance::of_engines(&self.config.engines);
        summary
    }

    /// The missing games by shard, each with its first ranges:
    /// `shard 0/3: 2 games (13-14); shard 2/3: 4 games (5-6, 11-12)`.
    pub fn describe_missing(&self) -> String {
        let mut by_shard: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        for &(game_id, shard) in &self.missing {
            by_shard.entry(shard).or_default().push(game_id);
        }
        let count = self.shards.first().map_or(1, |(shard, _)| shard.count());
        by_shard
            .iter()
            .map(|(shard, ids)| {
                format!(
                    "shard {shard}/{count}: {} ({})",
                    results::plural(ids.len() as u64, "game"),
                    id_ranges(ids)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Writes the merged games.csv (in game-id order), games.pgn (each game's text from its
    /// shard's games.pgn where that has it), summary.json and report.html (described by the
    /// first shard's config.json and run.json) to `out`, each replacing the file there whole
    /// (a merge can be repeated as the shards go on); and the recorded verdict as
    /// `out/sprt.json` when `out` does not hold it yet. Returns the summary and how many
    /// games' PGN was written from games.csv because their shard's games.pgn lacks them
    /// (without the engines' PVs).
    ///
    /// # Errors
    /// A results file that cannot be written, or a shard's games.pgn that cannot be read.
    pub fn write(&self, out: &Path) -> Result<(Summary, u64), ResultsError> {
        let io_error = |action, source| ResultsError::Io {
            path: out.to_path_buf(),
            action,
            source,
        };
        std::fs::create_dir_all(out).map_err(|e| io_error("cannot create the directory", e))?;
        let staging = tempfile::tempdir_in(out).map_err(|e| io_error("cannot write", e))?;
        let mut writer = self.config.results_writer(staging.path())?;
        for game in &self.games {
            writer.append(game)?;
        }
        drop(writer);
        let without_shard_pgn = restore_shard_pgn(&staging.path().join(GAMES_PGN), &self.shards)?;
        for file in [GAMES_CSV, GAMES_PGN] {
            std::fs::rename(staging.path().join(file), out.join(file))
                .map_err(|e| io_error("cannot write", e))?;
        }
        let summary = self.summary();
        results::write_summary(out, &summary)?;
        // The run's config.json and run.json are its shards'.
        let meta = RunMeta {
            sources: vec![out.join(GAMES_CSV).display().to_string()],
            ..self.shards.first().map_or_else(
                || RunMeta::of_dir(out),
                |(_, dir)| RunMeta::of_shard_run(dir),
            )
        };
        html::write_run_report(out, &meta, &summary, self.sprt().as_ref())?;
        if let Some(verdict) = &self.verdict
            && read_verdict(out)?.as_ref() != Some(verdict)
        {
            results::write_json(&out.join(SPRT_FILE), verdict, results::Existing::Replace)?;
        }
        Ok((summary, without_shard_pgn))
    }
}

/// Rewrites the merged games.pgn at `path` (written from games.csv) with each game's text
/// from the games.pgn of its shard (in `shards`) where that has it: games.csv does not keep
/// the engines' PVs, the shard's PGN does. Returns how many games no shard's PGN had.
///
/// # Errors
/// A games.pgn that cannot be read or written.
fn restore_shard_pgn(path: &Path, shards: &[(Shard, PathBuf)]) -> Result<u64, ResultsError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|e| ResultsError::io(path, "cannot read", e))
    };
    let mut shard_texts = Vec::new();
    for (_, dir) in shards {
        let pgn = dir.join(GAMES_PGN);
        if pgn.exists() {
            shard_texts.push(read(&pgn)?);
        }
    }
    let from_shards: HashMap<u64, &str> = shard_texts
        .iter()
        .flat_map(|text| pgn_games_by_id(text))
        .collect();
    let rendered = read(path)?;
    let mut missing = 0;
    let merged: String = pgn_games_by_id(&rendered)
        .map(|(id, game)| {
            from_shards.get(&id).copied().unwrap_or_else(|| {
                missing += 1;
                game
            })
        })
        .collect();
    std::fs::write(path, merged).map_err(|e| ResultsError::io(path, "cannot write", e))?;
    Ok(missing)
}

/// The games of a games.pgn written by bt-arena, in file order, each with its `X-GameId`:
/// the text from its `[Event` tag to the next game's (a game without the tag is left out).
/// A game starts the file or follows the blank line that ends the game before: a line of a
/// long comment may also start with `[Event ` (an engine's PV is not checked).
fn pgn_games_by_id(text: &str) -> impl Iterator<Item = (u64, &str)> {
    let mut starts: Vec<usize> = text
        .match_indices("[Event ")
        .map(|(at, _)| at)
        .filter(|&at| at == 0 || text[..at].ends_with("\n\n"))
        .collect();
    starts.push(text.len());
    let games: Vec<&str> = starts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    games.into_iter().filter_map(|game| {
        let (_, rest) = game.split_once("\n[X-GameId \"")?;
        let id = rest.split_once('"')?.0.parse().ok()?;
        Some((id, game))
    })
}

/// Most ranges [`id_ranges`] names.
const MAX_RANGES: usize = 6;

/// Ascending ids as ranges, the first [`MAX_RANGES`] of them: `1-4, 7, 9-10`, or
/// `1-2, 4-5, 7-8, 10-11, 13-14, 16-17, ...`.
fn id_ranges(ids: &[u64]) -> String {
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
    fn shard_pgn_splits_into_whole_games_whatever_the_pvs_say() {
        use crate::results::moves::{CommentDetail, MoveInfo};
        use crate::results::pgn::{PgnStyle, format_game_with};
        use crate::results::tests::record;
        use crate::results::{GameResult, Termination};
        use crate::rules::Rules;
        // A PV long enough to wrap, whose words start lines with `[Event ` and `[X-GameId `.
        let pv: Vec<String> = ["a2a3", "[Event", "x]", "[X-GameId", "77]"]
            .iter()
            .cycle()
            .take(200)
            .map(|w| w.to_string())
            .collect();
        let info = MoveInfo {
            time_ms: 1,
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
        let split: Vec<(u64, &str)> = pgn_games_by_id(&text).collect();
        assert_eq!(split, [(1, games[0].as_str()), (2, games[1].as_str())]);
    }

    #[test]
    fn ids_read_as_ranges() {
        assert_eq!(id_ranges(&[1, 2, 3, 4, 7, 9, 10]), "1-4, 7, 9-10");
        assert_eq!(id_ranges(&[5]), "5");
        assert_eq!(id_ranges(&[]), "");
        let pairs: Vec<u64> = (1..=10).flat_map(|p| [3 * p - 2, 3 * p - 1]).collect();
        assert_eq!(id_ranges(&pairs), "1-2, 4-5, 7-8, 10-11, 13-14, 16-17, ...");
    }
}
