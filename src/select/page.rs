//! A selection's report.html: the answer, each candidate's Elo against the base with its
//! error bar, its test against the base and how it left, a chart per candidate of its Elo
//! round by round with the round it left marked, the guarantee and the settings.

use super::report::{SelectReport, Status, guarantee};
use crate::records::{Existing, RecordsError, write_atomically};
use crate::report::html::svg::{self, LineChart, RatingBar, RefLine};
use std::io::Write as _;
use std::path::Path;

const TEMPLATE: &str = include_str!("report.html.tmpl");

/// The colours of the candidates' charts, in turn.
const COLOURS: [&str; 6] = [
    "#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280", "#4a5568",
];

/// report.html of `report`; `live` while the selection plays (the page reloads itself).
///
/// # Errors
/// The template's error (a bug).
pub fn html(report: &SelectReport, live: bool) -> Result<String, minijinja::Error> {
    let rows: Vec<_> = report
        .candidates
        .iter()
        .map(|c| {
            let elo = c.elo_text();
            let test = match &c.base_test {
                Some(test) => format!("{} after {} pairs", test.decision, test.pairs),
                None => "no decision".to_string(),
            };
            let status = c.status_text();
            minijinja::context! {
                name => c.name.clone(),
                pairs => c.pairs,
                elo => elo,
                ll => c.pentanomial.ll,
                wl => c.pentanomial.wl,
                ww => c.pentanomial.ww,
                test => test,
                status => status,
            }
        })
        .collect();
    let bars: Vec<RatingBar<'_>> = report
        .candidates
        .iter()
        .map(|c| RatingBar {
            name: &c.name,
            elo: (c.pairs > 0).then_some(c.elo.elo),
            error95: (!c.elo.bound).then_some(c.elo.error95),
            note: if c.elo.bound { "bound " } else { "" },
        })
        .collect();
    let after_stop = report
        .candidates
        .iter()
        .find(|c| c.status == "chosen")
        .and_then(|c| Some((c, c.base_test.as_ref()?.after_stop?)))
        .map(|(c, after)| {
            format!(
                "{}'s Elo after its test stopped: {after} (median-unbiased, 95%: the interval \
                 is valid after the sequential stop).",
                c.name
            )
        })
        .unwrap_or_default();
    let verdict_class = match (report.status, report.beats_base) {
        (Status::Decided, Some(true)) => "h1",
        (Status::Decided, _) => "h0",
        _ => "",
    };
    let settings = vec![
        ("base", report.base.clone()),
        ("indifference", format!("{} Elo", report.indifference)),
        ("confidence", report.confidence.to_string()),
        (
            "budget",
            report
                .budget
                .map_or_else(|| "none".to_string(), |b| format!("{b} games")),
        ),
        ("test against the base", report.base_test.clone()),
        ("rounds", report.rounds.to_string()),
        ("games", report.games.to_string()),
    ];
    let mut env = minijinja::Environment::new();
    env.add_global("base_css", crate::report::html::BASE_CSS);
    env.add_template("select.html", TEMPLATE)?;
    env.get_template("select.html")?
        .render(minijinja::context! {
            refresh => live.then_some(crate::report::html::REFRESH_SECONDS),
            event => report.event.clone(),
            count => report.candidates.len(),
            base => report.base.clone(),
            answer => report.answer(),
            verdict_class => verdict_class,
            rows => rows,
            after_stop => after_stop,
            bars => svg::rating_bars(&format!("Elo against {}", report.base), &bars),
            charts => charts(report),
            guarantee => guarantee(report).trim_start_matches("Guarantee: ").trim_end().to_string(),
            settings => settings,
        })
}

/// A chart per candidate: its Elo after each round sampled, its 95% band, the base's line and
/// the round it left (or was chosen) marked.
fn charts(report: &SelectReport) -> Vec<String> {
    report
        .candidates
        .iter()
        .enumerate()
        .map(|(c, candidate)| {
            let samples: Vec<(f64, [f64; 3])> = report
                .history
                .iter()
                .filter_map(|point| Some((point.round as f64, point.elo[c]?)))
                .collect();
            let points: Vec<(f64, f64)> = samples.iter().map(|(x, e)| (*x, e[0])).collect();
            let band: Vec<(f64, f64)> = samples.iter().map(|(_, e)| (e[1], e[2])).collect();
            let mark = match (&candidate.eliminated, report.chosen_round) {
                (Some(left), _) => Some((left.round as f64, "eliminated")),
                (None, Some(round)) if candidate.status == "chosen" => {
                    Some((round as f64, "chosen"))
                }
                _ => None,
            };
            svg::line_chart(&LineChart {
                title: &format!("{} against {}, round by round", candidate.name, report.base),
                points: &points,
                band: Some(&band),
                lines: &[RefLine {
                    value: 0.0,
                    label: &report.base,
                    colour: "#888",
                }],
                mark,
                x_name: "round",
                y_name: &format!("{} Elo", candidate.name),
                colour: COLOURS[c % COLOURS.len()],
                settle_x: 16.0,
            })
        })
        .collect()
}

/// Writes report.html of `report` to `path`, whole or not at all.
///
/// # Errors
/// [`RecordsError::Io`] naming the file.
pub fn write(path: &Path, report: &SelectReport, live: bool) -> Result<(), RecordsError> {
    let page = html(report, live)
        .map_err(|e| RecordsError::io(path, "cannot render", std::io::Error::other(e)))?;
    write_atomically(path, Existing::Replace, |file| {
        file.write_all(page.as_bytes())
    })?;
    Ok(())
}
