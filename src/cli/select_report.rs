//! `bt-arena elo RUN` and `bt-arena report RUN` on a selection's run directory: its own report
//! rebuilt (`docs/guide/select.md`). Apart from `select`'s file, so that the commands that read
//! runs reach nothing of the kinds of run's command lines.

use anyhow::{Context, Result, anyhow};
use bt_arena::select::{SelectConfig, SelectReport};
use std::path::Path;
use std::process::ExitCode;

/// `bt-arena elo RUN` and `bt-arena report RUN` of a selection: its report rebuilt from the
/// run directory, as text (or JSON) on stdout, or as report.html written to `page`. Returns
/// the selection's exit code.
///
/// # Errors
/// The run's settings or games that cannot be read; a page that cannot be written.
pub fn rebuild(run: &Path, json: bool, page: Option<&Path>) -> Result<ExitCode> {
    let (_, report): (SelectConfig, SelectReport) =
        bt_arena::select::report::read_run(run).map_err(|e| anyhow!(e))?;
    match page {
        Some(page) => {
            bt_arena::select::report::write_page(page, &report)
                .context("cannot write the report")?;
            say!("Report: {}", page.display());
        }
        None if json => out!("{}\n", serde_json::to_string_pretty(&report)?),
        None => out!("{report}"),
    }
    Ok(ExitCode::from(report.exit_code()))
}
