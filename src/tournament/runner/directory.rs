//! The results directory of a run: the saved config and, on resume, the games
//! already recorded.

use super::RunError;
use crate::records;
use crate::run_dir::RunDir;
use crate::tournament::config::TournamentConfig;
use crate::tournament::schedule::{ScheduledGame, recorded_ids};
use std::collections::HashSet;
use std::path::Path;

/// The ids of the games already in `games_csv` (none when it does not exist yet).
///
/// # Errors
/// When the file holds a game twice, a game id outside the schedule, or a game whose engines
/// are not the scheduled ones: a resume must not count foreign or repeated games.
pub(super) fn recorded_games(
    config: &TournamentConfig,
    scheduled: &[ScheduledGame],
    games_csv: &Path,
) -> Result<HashSet<u64>, RunError> {
    if !games_csv.exists() {
        return Ok(HashSet::new());
    }
    let games = records::read_games(games_csv)?;
    recorded_ids(config, scheduled, &games).map_err(|(game_id, why)| {
        RunError::Config(format!(
            "cannot resume: {} game {game_id}: {why}",
            games_csv.display()
        ))
    })
}

/// Writes the effective config as `config.json` in the results directory.
pub(super) fn save_config(config: &TournamentConfig) -> Result<(), RunError> {
    let dir = RunDir::new(config.results_dir());
    let path = dir.config_json();
    std::fs::create_dir_all(dir.logs())
        .map_err(|e| RunError::Config(format!("cannot write {}: {e}", path.display())))?;
    // Whole or not at all: the other shards of a run read it while this one starts.
    records::write_json(&path, config, records::Existing::Replace)?;
    Ok(())
}

/// Reads the config saved in a results directory, for `--resume`.
///
/// # Errors
/// A message naming the file when it is missing or malformed.
pub fn saved_config(dir: &Path) -> Result<TournamentConfig, String> {
    TournamentConfig::read(&RunDir::new(dir).config_json())
        .map_err(|e| format!("cannot resume {}: {e}", dir.display()))
}
