//! A tournament's pages while it plays: report.html and summary.json rewritten from games.csv
//! as games finish (so that reloading the page shows progress; the arena decides when, see
//! [`crate::arena::REPORT_INTERVAL`]).

use crate::report::html::RunMeta;
use crate::run::games::{ReadError, summary_of_file, write_run_report};
use crate::run_dir::RunDir;
use crate::stats::Sprt;
use crate::tournament::config::TournamentConfig;
use crate::{records, report};

/// Rewrites summary.json and report.html of the run of `config` from its games.csv, the page
/// saying `progress` (games recorded, games of the run).
///
/// # Errors
/// games.csv cannot be read, or the files cannot be written.
pub fn refresh(
    config: &TournamentConfig,
    sprt: Option<&Sprt>,
    progress: (u64, u64),
) -> Result<(), ReadError> {
    let dir = config.results_dir();
    let mut summary = summary_of_file(&RunDir::new(&dir).games_csv(), &config.names(), sprt)?;
    anchor(config, &mut summary);
    summary.builds = records::provenance::EngineProvenance::of_engines(&config.engines);
    let meta = RunMeta {
        in_progress: Some(progress),
        ..RunMeta::of_dir(&dir)
    };
    // summary.json follows the page, so it is current as games finish.
    report::write_summary(&dir, &summary)?;
    write_run_report(&dir, &meta, &summary, sprt)
}

/// Rates `summary`'s pool relative to `config`'s anchor (`--anchor`), when there is one (a
/// summary whose pool does not rate it is left as it is).
pub fn anchor(config: &TournamentConfig, summary: &mut report::Summary) {
    if let Some(name) = &config.anchor {
        let _ = summary.anchor_at(name);
    }
}
