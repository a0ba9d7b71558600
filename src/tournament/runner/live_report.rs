//! The pages of a run while it goes on: report.html rewritten from games.csv as games finish
//! (so that reloading it shows progress) and once more at the end, and run.json (the command
//! line, bt-arena's version and the engines' `id name`s).

use super::{RunError, Shared, lock};
use crate::report::Summary;
use crate::report::html::{RunInfo, RunMeta};
use crate::run::games::{summary_of_file, write_run_report};
use crate::run_dir::RunDir;
use crate::stats::Sprt;
use crate::tournament::prepare::Session;
use crate::{records, report};
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

/// How often report.html is rewritten while games finish: after the first game, then at most
/// once per this interval, or per [`REPORT_COST_FACTOR`] times the last rewrite's duration when
/// that is longer (a run of many fast games spends at most a tenth of one worker's time on
/// it); and at the end.
pub const REPORT_INTERVAL: Duration = Duration::from_secs(2);

/// See [`REPORT_INTERVAL`].
pub const REPORT_COST_FACTOR: u32 = 10;

/// The state of report.html and run.json during the run.
#[derive(Debug, Default)]
pub(super) struct LiveReport {
    /// When report.html was last written.
    last: Option<Instant>,
    /// How long that took.
    cost: Duration,
    /// run.json, with the engine identities learnt so far.
    info: RunInfo,
    /// Set once a failure to write report.html was reported (it is not fatal).
    warned: bool,
}

impl LiveReport {
    /// The run.json of this session in `dir`: its command line and bt-arena's version, with
    /// the engine identities an earlier session learnt; written at once.
    ///
    /// # Errors
    /// [`RunError::Results`] when run.json cannot be written.
    /// The builds and clock scaling of `session` go into it too.
    pub(super) fn start(dir: &Path, session: &Session) -> Result<LiveReport, RunError> {
        let info = RunInfo {
            command_line: std::env::args().collect(),
            bt_arena: env!("CARGO_PKG_VERSION").to_string(),
            engines: RunInfo::read(dir)
                .map(|earlier| earlier.engines)
                .unwrap_or_default(),
            builds: session.builds.clone(),
            clock_scale: session.clock_scale.clone(),
        };
        info.write(dir)?;
        Ok(LiveReport {
            info,
            ..LiveReport::default()
        })
    }

    /// Writes run.json and the final report.html of the run directory `dir`, whose games'
    /// report is `summary` (computed with `sprt`).
    ///
    /// # Errors
    /// [`RunError::Results`] when games.csv cannot be read or a file cannot be written.
    pub(super) fn finish(
        &self,
        dir: &Path,
        summary: &Summary,
        sprt: Option<&Sprt>,
    ) -> Result<(), RunError> {
        self.info.write(dir)?;
        write_run_report(dir, &RunMeta::of_dir(dir), summary, sprt).map_err(RunError::Read)?;
        Ok(())
    }
}

impl Shared<'_> {
    /// Notes for run.json that engine `index` names itself `id_name`.
    pub(super) fn note_engine_id(&self, index: usize, id_name: Option<&str>) {
        if let Some(id) = id_name {
            let name = self.config.engines[index].name.clone();
            lock(&self.live).info.engines.insert(name, id.to_string());
        }
    }

    /// Prints the report of the games recorded so far (the text report, as at the end) when
    /// stdout is not a terminal and the games recorded are a multiple of the session's
    /// `rating_interval`: a CI log shows the Elo and the LLR as the run goes, as fastchess's
    /// `-ratinginterval` does. On a terminal the progress line shows the score instead; at the
    /// last game or once a verdict is reached, the final report says it.
    pub(super) fn interim_report(&self) {
        let interval = self.config.session.rating_interval;
        let recorded = self.progress.position();
        // The last game, or a verdict reached: the final report follows at once.
        let last = recorded == self.progress.length().unwrap_or(0)
            || self.sprt_stop.load(std::sync::atomic::Ordering::SeqCst);
        if interval == 0
            || !recorded.is_multiple_of(interval)
            || last
            || std::io::stdout().is_terminal()
        {
            return;
        }
        let dir = self.config.results_dir();
        let names: Vec<String> = self.config.engines.iter().map(|e| e.name.clone()).collect();
        let sprt = self.sprt.as_ref();
        match summary_of_file(&RunDir::new(&dir).games_csv(), &names, sprt) {
            Ok(summary) => self.say(&format!(
                "Interim report after {recorded} of {} games:\n{summary}",
                self.progress.length().unwrap_or(0)
            )),
            Err(err) => self.say(&format!("warning: no interim report: {err}")),
        }
    }

    /// Rewrites report.html and summary.json from games.csv, unless it was written too recently (see
    /// [`REPORT_INTERVAL`]) or another worker is writing it. A failure is warned about once
    /// and does not stop the run.
    pub(super) fn refresh_report(&self) {
        let Ok(mut live) = self.live.try_lock() else {
            return;
        };
        let wait = REPORT_INTERVAL.max(live.cost * REPORT_COST_FACTOR);
        if live.last.is_some_and(|at| at.elapsed() < wait) {
            return;
        }
        let started = Instant::now();
        let dir = self.config.results_dir();
        let progress = (
            self.progress.position(),
            self.progress.length().unwrap_or(0),
        );
        let sprt = self.sprt.as_ref();
        let names: Vec<String> = self.config.engines.iter().map(|e| e.name.clone()).collect();
        let written = summary_of_file(&RunDir::new(&dir).games_csv(), &names, sprt).and_then(
            |mut summary| {
                summary.builds =
                    records::provenance::EngineProvenance::of_engines(&self.config.engines);
                let meta = RunMeta {
                    in_progress: Some(progress),
                    ..RunMeta::of_dir(&dir)
                };
                // summary.json follows the page, so it is current as games finish.
                report::write_summary(&dir, &summary)?;
                write_run_report(&dir, &meta, &summary, sprt)
            },
        );
        live.last = Some(Instant::now());
        live.cost = started.elapsed();
        if let Err(err) = written
            && !live.warned
        {
            live.warned = true;
            self.say(&format!("warning: report.html not updated: {err}"));
        }
    }
}
