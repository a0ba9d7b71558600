//! What a page knows of its run beyond the games: run.json ([`RunInfo`], written by the
//! runner) and the metadata read from a run directory ([`RunMeta`]).

use crate::records::provenance::{ClockScale, EngineProvenance};
use crate::records::{self, Existing, RecordsError};
use crate::run_dir::RunDir;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What the runner knows of a run that its files do not say: saved as run.json.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The command line of the session that last ran (or resumed) the run, as words.
    #[serde(default)]
    pub command_line: Vec<String>,
    /// The bt-arena version that ran it.
    #[serde(default)]
    pub bt_arena: String,
    /// The board the run plays on (`"6x6"`), as its config says; left out on 8×8 (and in the
    /// run.json of runs before sizes existed, all 8×8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<crate::rules::Board>,
    /// Each engine's `id name`, by configured name, as far as known.
    #[serde(default)]
    pub engines: BTreeMap<String, String>,
    /// Engines built from source (or with a pinned bench), by name: commit, build command,
    /// bench signature, and this session's bench speed and build (cached or made, how long).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub builds: BTreeMap<String, EngineProvenance>,
    /// Where each engine given by a bare `cmd=` name was found in this session, by name:
    /// `/opt/bt/bt-search (beside bt-arena)` or `/usr/bin/my-engine (from PATH)`
    /// ([`crate::engine::locate`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub located: BTreeMap<String, String>,
    /// This session's time control scaling (`--scale-tc`), each shard its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_scale: Option<ClockScale>,
    /// The machine's load when this session started and ended (Linux's `/proc/loadavg`): a
    /// load above its cores explains time forfeits. Left out where it cannot be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<MachineLoad>,
}

/// The environment variable naming a file read instead of `/proc/loadavg` (same format:
/// `5.20 4.10 3.00 ...`), for tests that need a machine overloaded on demand (the arena's
/// warning of forfeits on an overloaded machine, [`crate::arena::overload`]).
pub const LOADAVG_ENV: &str = "BT_ARENA_TEST_LOADAVG";

/// The load average of the machine a session ran on, at its start and its end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineLoad {
    /// The cores the runner may use (`available_parallelism`).
    pub cores: usize,
    /// The 1-, 5- and 15-minute load averages when the session started.
    pub start: [f64; 3],
    /// The same when it ended; `None` while it plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<[f64; 3]>,
}

impl MachineLoad {
    /// The load averages now, from `/proc/loadavg` (or the file [`LOADAVG_ENV`] names);
    /// `None` where it cannot be read.
    pub fn now() -> Option<[f64; 3]> {
        let path = std::env::var_os(LOADAVG_ENV).unwrap_or_else(|| "/proc/loadavg".into());
        let text = std::fs::read_to_string(path).ok()?;
        let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
        Some([fields.next()??, fields.next()??, fields.next()??])
    }

    /// The load now, as a session's start; `None` where it cannot be read.
    pub fn at_start() -> Option<MachineLoad> {
        Some(MachineLoad {
            cores: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            start: MachineLoad::now()?,
            end: None,
        })
    }
}

impl std::fmt::Display for MachineLoad {
    /// `7.84 6.83 5.62 at the start, 2.01 3.10 4.00 at the end, on 2 cores`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c] = self.start;
        write!(f, "{a:.2} {b:.2} {c:.2} at the start")?;
        if let Some([a, b, c]) = self.end {
            write!(f, ", {a:.2} {b:.2} {c:.2} at the end")?;
        }
        write!(f, ", on {} cores", self.cores)
    }
}

impl RunInfo {
    /// The run.json of `dir`, if it has a readable one.
    pub fn read(dir: &Path) -> Option<RunInfo> {
        let text = std::fs::read_to_string(RunDir::new(dir).run_json()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes `dir/run.json` atomically.
    ///
    /// # Errors
    /// [`RecordsError::Io`] when it cannot be written.
    pub fn write(&self, dir: &Path) -> Result<(), RecordsError> {
        records::write_json(&RunDir::new(dir).run_json(), self, Existing::Replace).map(drop)
    }
}

/// Where the games come from and what is known of the run, for the page's header and its
/// metadata section.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunMeta {
    /// The page's title: the event, or the file names.
    pub title: String,
    /// The files the games were read from.
    pub sources: Vec<String>,
    /// The run's config.json, when there is one.
    pub config: Option<serde_json::Value>,
    /// The run's run.json, when there is one.
    pub info: Option<RunInfo>,
    /// `(games recorded, games scheduled)` while the run goes on; `None` once it is over (or
    /// unknown).
    pub in_progress: Option<(u64, u64)>,
}

impl RunMeta {
    /// The metadata of a sharded run, from its shard directory `shard`: that shard's config
    /// without its `shard` field, and its run.json.
    pub fn of_shard_run(shard: &Path) -> RunMeta {
        let mut meta = RunMeta::of_dir(shard);
        if let Some(config) = meta.config.as_mut().and_then(|c| c.as_object_mut()) {
            config.remove("shard");
        }
        meta
    }

    /// The metadata of the run directory `dir` (its config.json and run.json, when readable),
    /// titled by the config's event or the directory's name.
    pub fn of_dir(dir: &Path) -> RunMeta {
        let run = RunDir::new(dir);
        let config: Option<serde_json::Value> = std::fs::read_to_string(run.config_json())
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
        let title = config
            .as_ref()
            .and_then(|c| c["event"].as_str().map(str::to_string))
            .unwrap_or_else(|| {
                dir.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into())
            });
        RunMeta {
            title,
            sources: vec![run.games_csv().display().to_string()],
            config,
            info: RunInfo::read(dir),
            in_progress: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_reads_as_the_run_page_shows_it() {
        let load = MachineLoad {
            cores: 2,
            start: [7.84, 6.83, 5.625],
            end: Some([2.0, 3.1, 4.0]),
        };
        assert_eq!(
            load.to_string(),
            "7.84 6.83 5.62 at the start, 2.00 3.10 4.00 at the end, on 2 cores"
        );
        let json = serde_json::to_string(&load).unwrap();
        assert_eq!(serde_json::from_str::<MachineLoad>(&json).unwrap(), load);
        if std::path::Path::new("/proc/loadavg").exists() {
            assert!(MachineLoad::at_start().is_some());
        }
    }
}
