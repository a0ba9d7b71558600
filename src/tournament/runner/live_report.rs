//! The pages of a run while it goes on: report.html and summary.json rewritten from games.csv
//! as games finish (so that reloading the page shows progress; the arena decides when, see
//! [`crate::arena::REPORT_INTERVAL`]) and once more at the end, and run.json (the command
//! line, bt-arena's version, the engines' `id name`s and the machine's load average at the
//! start and the end).

use super::RunError;
use crate::report::Summary;
use crate::report::html::{MachineLoad, RunInfo, RunMeta};
use crate::run::games::{ReadError, summary_of_file, write_run_report};
use crate::run_dir::RunDir;
use crate::stats::Sprt;
use crate::tournament::config::TournamentConfig;
use crate::tournament::prepare::Session;
use crate::{records, report};
use std::path::Path;

/// run.json of the run, kept while it plays.
#[derive(Debug, Default)]
pub(super) struct LiveReport {
    info: RunInfo,
}

impl LiveReport {
    /// Writes run.json for this session (the engines' names as earlier sessions saw them).
    pub(super) fn start(dir: &Path, session: &Session) -> Result<LiveReport, RunError> {
        let info = RunInfo {
            command_line: std::env::args().collect(),
            bt_arena: env!("CARGO_PKG_VERSION").to_string(),
            engines: RunInfo::read(dir)
                .map(|earlier| earlier.engines)
                .unwrap_or_default(),
            builds: session.builds.clone(),
            located: session.located.clone(),
            clock_scale: session.clock_scale.clone(),
            load: MachineLoad::at_start(),
        };
        info.write(dir)?;
        Ok(LiveReport { info })
    }

    /// Keeps the `id name` engine `name` answered, for run.json.
    pub(super) fn note_engine_id(&mut self, name: &str, id: &str) {
        self.info.engines.insert(name.to_string(), id.to_string());
    }

    /// Writes run.json and report.html once more, at the end.
    pub(super) fn finish(
        &self,
        dir: &Path,
        summary: &Summary,
        sprt: Option<&Sprt>,
    ) -> Result<(), RunError> {
        let mut info = self.info.clone();
        if let Some(load) = &mut info.load {
            load.end = MachineLoad::now();
        }
        info.write(dir)?;
        write_run_report(dir, &RunMeta::of_dir(dir), summary, sprt).map_err(RunError::Read)?;
        Ok(())
    }
}

/// Rewrites summary.json and report.html of the run of `config` from its games.csv, the page
/// saying `progress` (games recorded, games of the run).
pub(super) fn refresh(
    config: &TournamentConfig,
    sprt: Option<&Sprt>,
    progress: (u64, u64),
) -> Result<(), ReadError> {
    let dir = config.results_dir();
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut summary = summary_of_file(&RunDir::new(&dir).games_csv(), &names, sprt)?;
    config.session.anchor(&mut summary);
    summary.builds = records::provenance::EngineProvenance::of_engines(&config.engines);
    let meta = RunMeta {
        in_progress: Some(progress),
        ..RunMeta::of_dir(&dir)
    };
    // summary.json follows the page, so it is current as games finish.
    report::write_summary(&dir, &summary)?;
    write_run_report(&dir, &meta, &summary, sprt)
}
