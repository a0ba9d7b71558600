//! report.html of a datagen run: the summary ([`DatagenSummary`]) as a page a person reads,
//! its score and ply histograms drawn with the tournament report's bar charts
//! ([`crate::report::html::svg::bars`]). One self-contained file, no script. It is written
//! while the run plays ([`refresh`], from the games file as it stands, as often as the arena
//! refreshes a tournament's page) and once more at the end of each session ([`write`]).

use super::DatagenConfig;
use super::convert;
use super::filters::Seen;
use super::formats::games::EntryReader;
use super::summary::{Bucket, DatagenSummary};
use crate::records::{Existing, RecordsError};
use crate::report::html::svg::{self, escape};
use crate::run_dir::RunDir;
use std::fmt::Write;
use std::path::Path;

/// Writes report.html in `dir`, atomically: the page of `summary` for the run of `config`;
/// `live` for a page written while the run plays.
///
/// # Errors
/// [`RecordsError::Io`] naming the file.
pub fn write(
    config: &DatagenConfig,
    summary: &DatagenSummary,
    dir: &Path,
    live: bool,
) -> Result<(), RecordsError> {
    let page = html(config, summary, live);
    crate::records::write_atomically(&RunDir::new(dir).report_html(), Existing::Replace, |out| {
        std::io::Write::write_all(out, page.as_bytes())
    })?;
    Ok(())
}

/// Writes report.html in `dir` while the run plays, from `games` (its games file, opened
/// between two games: whole games only): the positions the games written so far give under
/// the run's filters ([`convert::count`]). Proof labels (a search per position, too dear to
/// repeat at every refresh) and repeats (a set of 8 MiB, which memory would keep) are left
/// out: the page at the end counts them. With `--dedup`, its set of positions seen is
/// `spare`, kept from one refresh to the next.
///
/// # Errors
/// The games file cannot be read, or the page cannot be written.
pub fn refresh(
    config: &DatagenConfig,
    games: EntryReader,
    dir: &Path,
    spare: &mut Option<Box<Seen>>,
) -> Result<(), crate::arena::ReportError> {
    let settings = convert::Settings {
        label: None,
        ..config.convert_settings()
    };
    let summary = convert::count(games, config.run.rules, &settings, spare)?;
    write(config, &summary, dir, true)?;
    Ok(())
}

/// A bucket's short label under its bar: its lower end (`-50` for `-50..0`), `<-1000` for
/// the first, `150+` for the last.
fn label(range: &str) -> String {
    match range.split_once("..") {
        Some(("", to)) => format!("<{to}"),
        Some((from, "")) => format!("{from}+"),
        Some((from, _)) => from.to_string(),
        None => range.to_string(),
    }
}

/// The page of `summary` for the run of `config`; `live`: written while the run plays (it
/// says so).
pub fn html(config: &DatagenConfig, summary: &DatagenSummary, live: bool) -> String {
    let engines: Vec<String> = config.engines.iter().map(|e| escape(&e.name)).collect();
    let mut page = String::new();
    // The other pages' style, header and navigation (crate::report::html::BASE_CSS).
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{event} – bt-arena datagen</title>\n<style>\n{css}</style>\n</head>\n<body>\n\
         <header>\n  <h1>{event}: training data</h1>\n  \
         <div class=\"status\">{engines}, {rules} rules, seed {seed}{live}</div>\n</header>\n\
         <nav>\n  <a href=\"#summary\">Summary</a><a href=\"#scores\">Scores</a>\
         <a href=\"#plies\">Plies</a>\n</nav>\n<main>\n",
        css = crate::report::html::BASE_CSS,
        event = escape(&config.run.event),
        engines = engines.join(", "),
        rules = config.run.rules,
        seed = config.run.seed,
        live = match live {
            true =>
                ". In progress: the games written so far (refreshed as the run plays; \
                     repeats and proof labels are counted when it ends)",
            false => "",
        },
    );
    let d = &summary.dropped;
    let rows: [(&str, u64); 17] = [
        ("games", summary.games),
        ("positions played", summary.positions_played),
        ("positions written", summary.positions),
        ("White won", summary.results.white),
        ("Black won", summary.results.black),
        ("ended by the rules", summary.endings.board),
        ("resigned", summary.endings.resign),
        ("ended by proof", summary.endings.proof),
        ("ended by a fault (not written)", summary.endings.fault),
        ("dropped: min-ply", d.min_ply),
        ("dropped: no score", d.no_score),
        ("dropped: max-score", d.max_score),
        ("dropped: captures", d.captures),
        ("dropped: sample", d.sample),
        ("dropped: dedup", d.dedup),
        ("repeated positions (approximate)", summary.repeated),
        ("proven by --label", summary.proven_total()),
    ];
    page.push_str("<section id=\"summary\">\n  <h2>Summary</h2>\n  <table>");
    // Repeats and proofs are counted at the end only.
    let counted = rows.len() - if live { 2 } else { 0 };
    for (name, value) in rows.into_iter().take(counted) {
        let _ = write!(
            page,
            "<tr><th class=\"name\">{name}</th><td>{value}</td></tr>"
        );
    }
    if let Some(rate) = summary.positions_per_second {
        let _ = write!(
            page,
            "<tr><th class=\"name\">positions/s searched</th><td>{rate:.1}</td></tr>"
        );
    }
    page.push_str("</table>\n</section>\n");
    for (id, title, buckets, colour) in [
        (
            "scores",
            "Positions by score (White's view, cp)",
            &summary.scores,
            svg::PALETTE[0],
        ),
        ("plies", "Positions by ply", &summary.plies, svg::PALETTE[2]),
    ] {
        let (labels, counts): (Vec<String>, Vec<u64>) = buckets
            .iter()
            .map(|b: &Bucket| (label(&b.range), b.positions))
            .unzip();
        let _ = write!(
            page,
            "<section id=\"{id}\">\n  <h2>{title}</h2>\n  <figure>{}</figure>\n</section>\n",
            svg::bars(title, &labels, &counts, colour, 900)
        );
    }
    page.push_str("</main>\n");
    page.push_str("</body>\n</html>\n");
    page
}
