//! report.html: one self-contained page (inline CSS, SVG and script; nothing fetched, no
//! server) with the standings and their error bars, the crosstable, per pair the pentanomial
//! histogram, the Elo over games with its 95% band and, with an SPRT, the LLR over games
//! between its bounds; terminations and faults and move times per engine, every opening's
//! results (sortable), the run's metadata, and a game viewer.
//!
//! The numbers are those of summary.json (the same [`Summary`]) and of [`Series`], both
//! computed from the games; this module only lays them out (with [minijinja], which escapes
//! every text, and [`svg`]). The page is written atomically ([`write_report`]), so a
//! browser reloading it during a run sees the last complete version; while a run goes on it
//! reloads itself every [`REFRESH_SECONDS`], keeping the game and move shown (in the URL's
//! `#game=N&ply=P`, N the game number, which also opens the viewer there).

pub mod svg;

use super::Summary;
use super::series::Series;
use crate::records::{self, Existing, GameRecord, RecordsError};
use std::io::Write;
use std::path::Path;

/// How often a page of a run in progress reloads itself, seconds.
pub const REFRESH_SECONDS: u32 = 15;
/// Most games the viewer holds (the latest ones): every game is in games.pgn.
pub const MAX_VIEWER_GAMES: usize = 500;

/// The page's template (minijinja, HTML-escaped).
const TEMPLATE: &str = include_str!("report.html.tmpl");

/// The style every page of bt-arena shares (the tournament's, the tune's, datagen's): colours,
/// the dark header, the navigation bar, cards for sections, tables and charts. Each page adds
/// its own rules after it.
pub const BASE_CSS: &str = include_str!("base.css");

mod games;
mod meta;
mod openings;
mod page;

pub use games::PageGames;
pub use meta::{LOADAVG_ENV, MachineLoad, RunInfo, RunMeta};

/// Everything the page shows.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// The report of the games (what summary.json holds).
    pub summary: &'a Summary,
    /// The series of the same games.
    pub series: &'a Series,
    /// The latest games in recorded order (every file's, one after the other), for the
    /// viewer: it shows the last [`MAX_VIEWER_GAMES`].
    pub games: &'a [GameRecord],
    /// Where they come from.
    pub meta: &'a RunMeta,
}

/// The page's HTML.
///
/// # Errors
/// [`minijinja::Error`] when the template fails to render (a bug: the template is built in).
pub fn render(report: &Report<'_>) -> Result<String, minijinja::Error> {
    let mut env = minijinja::Environment::new();
    env.add_global("base_css", BASE_CSS);
    env.add_template("report.html", TEMPLATE)?;
    let page = page::page(report);
    env.get_template("report.html")?
        .render(minijinja::value::Serde(&page))
}

/// Renders `report` and writes it to `path` atomically.
///
/// # Errors
/// [`RecordsError::Io`] when the file cannot be written (or the template fails).
pub fn write_report(path: &Path, report: &Report<'_>) -> Result<(), RecordsError> {
    let html = render(report)
        .map_err(|e| RecordsError::io(path, "cannot render", std::io::Error::other(e)))?;
    records::write_atomically(path, Existing::Replace, |file| {
        file.write_all(html.as_bytes())
    })
    .map(drop)
}

#[cfg(test)]
mod tests {
    use super::page::{move_info_note, viewer_json};
    use super::*;

    /// The page of `games` with their summary and series, described by `meta`.
    fn page(summary: &Summary, series: &Series, games: &[GameRecord], meta: &RunMeta) -> String {
        render(&Report {
            summary,
            series,
            games,
            meta,
        })
        .unwrap()
    }
    use crate::records::tests::record;
    use crate::records::{GameResult::*, Termination::*};
    use crate::report::series::UnreadableMoveInfo;

    fn sample() -> (Summary, Series, Vec<GameRecord>) {
        let mut games = vec![
            record(1, 1, "a<b>", "c", WhiteWins, GoalRank),
            record(2, 1, "c", "a<b>", WhiteWins, TimeForfeit),
            record(3, 2, "a<b>", "c", BlackWins, Crash),
        ];
        games[0].move_info = "12/3/-/-/20 -/-/-/-/5 M2/4/-/-/7".into();
        let names = ["a<b>".to_string(), "c".to_string()];
        let sprt = "elo0=0 elo1=10".parse().unwrap();
        let summary = Summary::compute(&games, &names, Some(&sprt));
        let series = Series::compute(&summary, &[&games], Some(&sprt));
        (summary, series, games)
    }

    /// After a verdict the pair's block gives the Elo after the stop beside the plain Elo;
    /// without one, not.
    #[test]
    fn the_pair_block_gives_the_elo_after_the_stop_after_a_verdict() {
        let games: Vec<GameRecord> = (1..=12u64)
            .flat_map(|pair| {
                [
                    record(2 * pair - 1, pair, "new", "base", WhiteWins, GoalRank),
                    record(2 * pair, pair, "base", "new", BlackWins, GoalRank),
                ]
            })
            .collect();
        let names = ["new".to_string(), "base".to_string()];
        let sprt = "elo0=0 elo1=200".parse().unwrap();
        let summary = Summary::compute(&games, &names, Some(&sprt));
        let series = Series::compute(&summary, &[&games], Some(&sprt));
        let estimate = summary.pairs[0].sprt.unwrap().after_stop.unwrap();
        let html = page(&summary, &series, &games, &RunMeta::default());
        assert!(
            html.contains(&format!(
                "Elo after the SPRT stop: {estimate} (median-unbiased, 95%)"
            )),
            "{html}"
        );
        let (summary, series, games) = sample();
        let html = page(&summary, &series, &games, &RunMeta::default());
        assert!(!html.contains("after the SPRT stop"));
    }

    /// Every opening is listed (not a first few), worst first, with the book's line; the
    /// table sorts on the page.
    #[test]
    fn the_openings_table_lists_every_opening_worst_first() {
        let mut games = Vec::new();
        for k in 1..=20u64 {
            // Opening o20: three pairs White won twice; the others one pair a won twice.
            for round in 0..if k == 20 { 3 } else { 1 } {
                let pair = 100 * round + k;
                let mut first = record(2 * pair - 1, pair, "a", "b", WhiteWins, GoalRank);
                let mut second = record(2 * pair, pair, "b", "a", BlackWins, GoalRank);
                if k == 20 {
                    second.result = WhiteWins;
                }
                for game in [&mut first, &mut second] {
                    game.opening = format!("o{k}");
                    game.opening_id = k;
                }
                games.extend([first, second]);
            }
        }
        let names = ["a".to_string(), "b".to_string()];
        let summary = Summary::compute(&games, &names, None);
        let series = Series::compute(&summary, &[&games], None);
        let html = page(&summary, &series, &games, &RunMeta::default());
        assert_eq!(html.matches("<tr data-rank=").count(), 20);
        let first = html.find("<tr data-rank=\"0\"><td>20</td><td class=\"name mono\">o20</td>");
        assert!(first.is_some(), "{html}");
        assert!(html.contains("<td class=\"name\">prune</td>"));
        assert_eq!(html.matches(">prune</td>").count(), 1);
        assert!(html.contains(
            "Openings: 20 played, 44 games, 22 pairs; 1-1 (colour decided) 3 of 22 pairs"
        ));
        assert!(html.contains("id=\"openings-table\""));
    }

    #[test]
    fn the_page_holds_every_section_and_escapes_names() {
        let (summary, series, games) = sample();
        let meta = RunMeta {
            title: "demo & test".into(),
            sources: vec!["x/games.csv".into()],
            in_progress: Some((3, 8)),
            ..RunMeta::default()
        };
        let html = page(&summary, &series, &games, &meta);
        for id in [
            "standings",
            "pairs",
            "terminations",
            "times",
            "openings",
            "viewer",
            "run",
        ] {
            assert!(html.contains(&format!("<section id=\"{id}\"")), "{id}");
        }
        assert!(html.contains("demo &amp; test"));
        assert!(html.contains("a&lt;b&gt;"));
        assert!(!html.contains("a<b>"), "a name reaches the page unescaped");
        assert!(html.contains("http-equiv=\"refresh\" content=\"15\""));
        assert!(html.contains("In progress: 3 of 8 games"));
        assert!(html.contains("LLR over games between the SPRT bounds"));
        assert!(
            html.contains("+0.12/3 0.020s"),
            "the viewer has the comments"
        );
        // Nothing is loaded from the network: no remote script, style sheet, image or font.
        for remote in [
            "src=\"http",
            "href=\"http",
            "url(http",
            "src=\"//",
            "href=\"//",
        ] {
            assert!(!html.contains(remote), "the page loads {remote}...");
        }
        assert!(!html.contains("<script src"));
    }

    #[test]
    fn a_pairs_clamped_elo_is_marked_as_a_bound_as_in_the_text_report() {
        // Four complete pairs, all won by a: the pentanomial Elo is the clamp, a floor.
        let games: Vec<GameRecord> = (1..=4)
            .flat_map(|pair| {
                [
                    record(2 * pair - 1, pair, "a", "b", WhiteWins, GoalRank),
                    record(2 * pair, pair, "b", "a", BlackWins, GoalRank),
                ]
            })
            .collect();
        let names = ["a".to_string(), "b".to_string()];
        let summary = Summary::compute(&games, &names, None);
        let series = Series::compute(&summary, &[&games], None);
        let text = summary.to_string();
        assert!(
            text.contains("Elo: >+1199.83 (a floor: one side won every counted game)"),
            "{text}"
        );
        let html = page(&summary, &series, &games, &RunMeta::default());
        assert!(
            html.contains("Elo &gt;+1199.8 (a floor: one side won every counted game), LOS"),
            "{html}"
        );
        assert!(!html.contains("Elo &gt;+1199.8 ±"), "{html}");
    }

    #[test]
    fn a_move_info_that_does_not_read_is_named_with_one_game_in_the_singular() {
        let (summary, _, mut games) = sample();
        games[1].move_info = "1/1/-/-/x".into();
        let sprt = "elo0=0 elo1=10".parse().unwrap();
        let series = Series::compute(&summary, &[&games], Some(&sprt));
        assert_eq!(
            move_info_note(&series.unreadable_move_info).unwrap(),
            "1 game with a move_info column that does not read, left out of the move times. \
             The first: game 2: move_info token `1/1/-/-/x`: bad time."
        );
        assert_eq!(move_info_note(&UnreadableMoveInfo::default()), None);
    }

    #[test]
    fn viewer_json_cannot_close_its_script() {
        let mut game = record(1, 1, "</script><script>x", "b", WhiteWins, GoalRank);
        game.moves = String::new();
        let json = viewer_json(&[game]);
        assert!(!json.contains('<'), "{json}");
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed[0]["white"], "\u{2068}</script><script>x\u{2069}");
    }

    /// A name holding a right-to-left override is isolated wherever the page shows it, so
    /// that it cannot reverse the rest of its line (the viewer's list, the tables, the charts).
    #[test]
    fn every_name_on_the_page_is_isolated() {
        let evil = "\u{202E}evil";
        let mut games = vec![
            record(1, 1, evil, "b", WhiteWins, GoalRank),
            record(2, 1, "b", evil, BlackWins, GoalRank),
        ];
        for game in &mut games {
            game.moves = String::new();
        }
        let names = [evil.to_string(), "b".to_string()];
        let summary = Summary::compute(&games, &names, None);
        let series = Series::compute(&summary, &[&games], None);
        let html = page(&summary, &series, &games, &RunMeta::default());
        let shown = html.matches('\u{202E}').count();
        assert!(shown >= 6, "{shown} times");
        assert_eq!(html.matches("\u{2068}\u{202E}evil\u{2069}").count(), shown);
        // The run's metadata (its command line, config) shows the override as a mark.
        let meta = RunMeta {
            title: "evil\u{202E}event".into(),
            info: Some(RunInfo {
                command_line: vec!["bt-arena".into(), format!("name={evil}")],
                ..RunInfo::default()
            }),
            ..RunMeta::default()
        };
        let html = page(&summary, &series, &games, &meta);
        assert!(html.contains("bt-arena name=&lt;U+202E&gt;evil"), "{html}");
        assert!(html.contains("<title>evil&lt;U+202E&gt;event"), "{html}");
        // The viewer's data (its list's labels, the players' line) isolates it too.
        let viewer = viewer_json(&games);
        assert_eq!(
            viewer.matches("\u{2068}\u{202E}evil\u{2069}").count(),
            4,
            "{viewer}"
        );
    }
}
