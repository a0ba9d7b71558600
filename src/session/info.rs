//! run.json, for every kind of run: the command line of the session that last ran the run,
//! bt-arena's version, the engines' `id name`s, their builds, the clock scaling and the
//! machine's load at the start and the end of the session.

use crate::arena::prepare::Prepared;
use crate::engine::EngineDescription;
use crate::records::RecordsError;
use crate::report::html::{MachineLoad, RunInfo};
use crate::rules::Board;
use std::collections::BTreeMap;
use std::path::Path;

/// run.json while the session plays.
#[derive(Debug)]
pub(super) struct LiveInfo {
    info: RunInfo,
}

impl LiveInfo {
    /// Writes run.json in `dir` for this session of a run on `board`, of the engines of
    /// `seats` (the engines' names as earlier sessions saw them, where each given by a bare
    /// name was found).
    pub(super) fn start(
        dir: &Path,
        board: Board,
        prepared: &Prepared,
        seats: &[EngineDescription],
    ) -> Result<LiveInfo, RecordsError> {
        let info = RunInfo {
            command_line: std::env::args().collect(),
            bt_arena: env!("CARGO_PKG_VERSION").to_string(),
            board: (!board.is_standard()).then_some(board),
            engines: RunInfo::read(dir)
                .map(|earlier| earlier.engines)
                .unwrap_or_default(),
            builds: prepared.builds.clone(),
            located: seats
                .iter()
                .filter(|engine| engine.source.is_none())
                .map(|engine| (engine, crate::engine::locate::locate(&engine.cmd)))
                .filter(|(_, located)| located.was_looked_up())
                .map(|(engine, located)| (engine.name.clone(), located.to_string()))
                .collect(),
            clock_scale: prepared.clock_scale.clone(),
            load: MachineLoad::at_start(),
        };
        info.write(dir)?;
        Ok(LiveInfo { info })
    }

    /// Writes run.json again as it stands (in a directory made again).
    pub(super) fn write(&self, dir: &Path) -> Result<(), RecordsError> {
        self.info.write(dir)
    }

    /// Writes run.json once more at the end: the engines' `id name`s this session heard
    /// (`ids`, by configured name) and the load now.
    pub(super) fn finish(
        &mut self,
        dir: &Path,
        ids: &BTreeMap<String, String>,
    ) -> Result<(), RecordsError> {
        self.info
            .engines
            .extend(ids.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Some(load) = &mut self.info.load {
            load.end = MachineLoad::now();
        }
        self.info.write(dir)
    }
}
