//! The page's charts as SVG: the ratings with their intervals, and per pair its Elo over games
//! (with the 95% band and the SPRT's elo0 and elo1) and its LLR between the SPRT's bounds.

use super::isolate;
use crate::report::Summary;
use crate::report::html::svg::{self, LineChart, PALETTE, RatingBar, RefLine};
use crate::report::series::{PairSeries, SprtLines};
use crate::stats::Bound;

/// The Elo chart's y axis follows the estimate from this many games on (10 game pairs): one
/// pair's Elo is ±hundreds and would squash the rest of the line.
const ELO_SETTLE_GAMES: f64 = 20.0;

pub(super) fn ratings_svg(summary: &Summary) -> String {
    let names: Vec<String> = summary
        .standings
        .iter()
        .map(|row| isolate(&row.name))
        .collect();
    let bars: Vec<RatingBar<'_>> = summary
        .standings
        .iter()
        .zip(&names)
        .map(|(row, name)| RatingBar {
            name,
            elo: row.elo,
            error95: row.error95,
            note: row.bound.map_or("", Bound::mark),
        })
        .collect();
    svg::rating_bars("Ratings with 95% intervals", &bars)
}

/// The Elo of a pair over its games with the 95% band, and the SPRT's elo0 and elo1 as lines.
pub(super) fn elo_chart(series: &PairSeries) -> String {
    let points: Vec<(f64, f64)> = series
        .points
        .iter()
        .map(|p| (p.games as f64, p.elo))
        .collect();
    let band: Vec<(f64, f64)> = series
        .points
        .iter()
        .map(|p| (p.elo - p.error95, p.elo + p.error95))
        .collect();
    let elo_lines: Vec<RefLine<'_>> = series.sprt.map_or_else(Vec::new, |s| {
        vec![
            RefLine {
                value: s.elo0,
                label: "elo0",
                colour: "#b00",
            },
            RefLine {
                value: s.elo1,
                label: "elo1",
                colour: "#070",
            },
        ]
    });
    svg::line_chart(&LineChart {
        title: "Elo over games with its 95% band",
        points: &points,
        band: Some(&band),
        lines: &elo_lines,
        mark: None,
        x_name: "games",
        y_name: "Elo",
        colour: PALETTE[0],
        settle_x: ELO_SETTLE_GAMES,
    })
}

/// The LLR of a pair over its games between the SPRT's bounds (`lines`), the game where it
/// decided marked.
pub(super) fn llr_chart(series: &PairSeries, lines: SprtLines) -> String {
    let llr: Vec<(f64, f64)> = series
        .points
        .iter()
        .filter_map(|p| p.llr.map(|llr| (p.games as f64, llr)))
        .collect();
    let lower = format!("H0 {:.2}", lines.lower);
    let upper = format!("H1 {:.2}", lines.upper);
    svg::line_chart(&LineChart {
        title: "LLR over games between the SPRT bounds",
        points: &llr,
        band: None,
        lines: &[
            RefLine {
                value: lines.lower,
                label: &lower,
                colour: "#b00",
            },
            RefLine {
                value: lines.upper,
                label: &upper,
                colour: "#070",
            },
        ],
        mark: lines.decided_at.map(|g| (g as f64, "decided")),
        x_name: "games",
        y_name: "LLR",
        colour: PALETTE[1],
        settle_x: 0.0,
    })
}
