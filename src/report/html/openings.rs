//! The Openings section of report.html: every opening of the summary's
//! [`OpeningsReport`], worst first, in a table the page sorts by any column.

use crate::report::openings::{OpeningRow, OpeningsReport};
use serde::Serialize;

/// The section's note and rows.
#[derive(Serialize)]
pub(super) struct Section {
    note: String,
    rows: Vec<Row>,
}

/// One opening, its cells as shown and (`*_v`) as sorted.
#[derive(Serialize)]
struct Row {
    id: u64,
    opening: String,
    games: u64,
    pairs: u64,
    first: String,
    score: String,
    /// The first player's score, `-1` without games (sorted first ascending).
    score_v: f64,
    ll: u64,
    one_one: u64,
    ww: u64,
    decided: &'static str,
    p: String,
    p_v: f64,
    prune: bool,
}

/// The section of `report`.
pub(super) fn section(report: &OpeningsReport) -> Section {
    let note = if report.games == 0 {
        "No games yet.".to_string()
    } else {
        format!(
            "{}. A game pair that ends 1–1 was won by the same colour twice: the opening, not \
             the engines, decided it (an opening that favours neither colour does so half the \
             time between engines of even strength). The first player is the side to move in \
             the opening; prune marks an opening whose first player's score is away from 1/2 \
             by the two-sided binomial test (p ≤ 0.05). Click a column to sort by it.",
            report.book_line()
        )
    };
    Section {
        note,
        rows: report.openings.iter().map(row).collect(),
    }
}

fn row(opening: &OpeningRow) -> Row {
    Row {
        id: opening.id,
        opening: opening.opening.clone(),
        games: opening.games,
        pairs: opening.pairs,
        first: opening.first_player.to_string(),
        score: opening
            .first_player_score
            .map_or_else(|| "-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
        score_v: opening.first_player_score.unwrap_or(-1.0),
        ll: opening.ll,
        one_one: opening.one_one,
        ww: opening.ww,
        decided: match opening.colour_decided {
            Some(true) => "yes",
            Some(false) => "no",
            None => "-",
        },
        p: format!("{:.4}", opening.p_value),
        p_v: opening.p_value,
        prune: opening.prune,
    }
}
