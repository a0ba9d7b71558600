//! The page model: every number and text of report.html, laid out for the template
//! (`report.html.tmpl`) from a [`Report`].

mod charts;
mod viewer;

pub(super) use viewer::viewer_json;

use super::svg::{self, PALETTE};
use super::{REFRESH_SECONDS, Report};
use crate::records::{self, Termination, plural};
use crate::report::crosstable::Crosstable;
use crate::report::series::{PairSeries, Series, UnreadableMoveInfo};
use crate::report::{PairSummary, Summary};
use crate::stats::{Bound, Pentanomial, SprtDecision};
use charts::{elo_chart, llr_chart, ratings_svg};
use serde::Serialize;
use viewer::viewer_note;

/// The template's context.
#[derive(Serialize)]
pub(super) struct Page {
    title: String,
    status: String,
    refresh: Option<u32>,
    /// A class (`h1`, `h0`, `running`) and the line.
    verdict: Option<(&'static str, String)>,
    ratings_svg: String,
    /// With two engines ([`Summary::one_match`]): the pair, `a vs b`, whose Elo is the
    /// match's one figure; the standings are then labelled as the pool's ratings.
    one_match: Option<String>,
    /// What the ratings are relative to: `mean 0`, or the anchor (`--anchor`).
    ratings_basis: String,
    unrated: Option<String>,
    /// Why games of one name against itself are not rated, when the pool is.
    self_play: Option<String>,
    standings: Vec<StandingRow>,
    crosstable: Option<CrossRows>,
    pairs: Vec<PairBlock>,
    termination_names: Vec<&'static str>,
    terminations: Vec<TerminationRow>,
    /// A run of workers' per-host table ([`crate::report::hosts`]); empty otherwise.
    hosts: Vec<HostRow>,
    move_times: Vec<MoveTimeRow>,
    /// Each engine's latency per move ([`crate::report::latency`]); empty without one.
    latency: Vec<LatencyRow>,
    /// The claims table (engine, kind, checked, found, not checked) and the findings.
    claim_rows: Vec<ClaimTableRow>,
    claim_findings: Vec<crate::report::claims::ClaimRow>,
    move_info_note: Option<String>,
    openings: super::openings::Section,
    viewer_json: String,
    viewer_note: String,
    meta: Vec<(String, String)>,
    config: Option<String>,
}

#[derive(Serialize)]
struct HostRow {
    host: String,
    workers: u64,
    games: u64,
    time: u64,
    crash: u64,
    stall: u64,
    illegal: u64,
    score: String,
    p_value: String,
    /// The host's bench speed, nodes per second, or `-`.
    bench_nps: String,
    flagged: Option<String>,
}

/// The per-host rows of a run of workers.
fn host_rows(summary: &crate::report::Summary) -> Vec<HostRow> {
    summary
        .hosts
        .iter()
        .map(|host| HostRow {
            host: host.tally.host.clone(),
            workers: host.tally.workers,
            games: host.tally.games,
            time: host.tally.time_forfeits,
            crash: host.tally.crashes,
            stall: host.tally.stalls,
            illegal: host.tally.illegal_moves,
            score: format!("{:.3}", host.score),
            p_value: crate::report::numbers::p_value(host.p_value),
            bench_nps: host
                .tally
                .bench_nps
                .map_or_else(|| "-".to_string(), |nps| nps.to_string()),
            flagged: host.flagged.clone(),
        })
        .collect()
}

#[derive(Serialize)]
struct StandingRow {
    rank: usize,
    name: String,
    elo: String,
    error: String,
    games: u64,
    wins: u64,
    losses: u64,
    score: String,
    los: String,
}

#[derive(Serialize)]
struct CrossRows {
    names: Vec<String>,
    rows: Vec<(String, Vec<(String, &'static str)>)>,
}

#[derive(Serialize)]
struct PairBlock {
    title: String,
    lines: Vec<String>,
    ptnml_svg: String,
    elo_svg: String,
    llr_svg: Option<String>,
}

#[derive(Serialize)]
struct TerminationRow {
    name: String,
    cells: Vec<String>,
    faults: u64,
    stray: u64,
}

#[derive(Serialize)]
struct ClaimTableRow {
    name: String,
    kind: &'static str,
    checked: u64,
    found: u64,
    unchecked: String,
}

#[derive(Serialize)]
struct MoveTimeRow {
    name: String,
    moves: u64,
    /// The unit of the figures and the chart: `µs` when the buckets are under 1 ms, else `ms`.
    unit: &'static str,
    mean: String,
    median: String,
    p90: String,
    max: String,
    /// Every move's time was 0 (whole ms of a file older than games.csv's `move_times`, e.g.
    /// at a fixed node count): the chart would say nothing.
    all_under_1ms: bool,
    svg: String,
}

/// A row of the latency table: an engine's wall time less its own time per move, µs.
#[derive(Serialize)]
struct LatencyRow {
    name: String,
    moves: u64,
    median: i64,
    p99: i64,
    max: i64,
}

pub(super) fn page(report: &Report<'_>) -> Page {
    let summary = report.summary;
    let shown = shown_terminations(report.series);
    Page {
        title: show_controls(&report.meta.title),
        status: status_line(report),
        refresh: report.meta.in_progress.map(|_| REFRESH_SECONDS),
        verdict: verdict(summary),
        ratings_svg: ratings_svg(summary),
        one_match: summary
            .one_match()
            .then(|| &summary.pairs[0])
            .map(|pair| format!("{} vs {}", isolate(&pair.first), isolate(&pair.second))),
        ratings_basis: match &summary.anchor {
            Some(anchor) => format!(
                "relative to {} (its rating 0; ± is the 95% interval of the difference to it)",
                isolate(anchor)
            ),
            None => "mean 0".to_string(),
        },
        unrated: summary.unrated.clone(),
        self_play: summary
            .self_play
            .note()
            .filter(|_| summary.unrated.is_none()),
        standings: standings(summary),
        crosstable: (summary.engines.len() >= 3).then(|| cross_rows(summary)),
        pairs: summary
            .pairs
            .iter()
            .zip(&report.series.pairs)
            .map(|(pair, series)| pair_block(pair, series))
            .collect(),
        termination_names: shown.iter().map(|&k| Termination::ALL[k].name()).collect(),
        terminations: termination_rows(report, &shown),
        hosts: host_rows(summary),
        move_times: move_time_rows(report.series),
        latency: summary
            .latency
            .iter()
            .map(|engine| LatencyRow {
                name: isolate(&engine.name),
                moves: engine.moves,
                median: engine.median_us,
                p99: engine.p99_us,
                max: engine.max_us,
            })
            .collect(),
        claim_rows: claim_rows(summary),
        claim_findings: summary.claim_findings.clone(),
        move_info_note: move_info_note(&report.series.unreadable_move_info),
        openings: super::openings::section(&summary.openings),
        viewer_json: viewer_json(report.games),
        viewer_note: viewer_note(report),
        // Texts that hold names (a command line, the config) show their direction marks.
        meta: meta_rows(report)
            .into_iter()
            .map(|(key, value)| (show_controls(&key), show_controls(&value)))
            .collect(),
        config: report
            .meta
            .config
            .as_ref()
            .and_then(|c| serde_json::to_string_pretty(c).ok())
            .map(|text| show_controls(&text)),
    }
}

/// `in progress: 12 of 48 games` or `finished: 48 games`, with the time written.
fn status_line(report: &Report<'_>) -> String {
    let now = records::now_rfc3339();
    match report.meta.in_progress {
        Some((done, of)) => format!("In progress: {done} of {of} games (updated {now})"),
        None => format!("{} (written {now})", plural(report.summary.games, "game")),
    }
}

/// The SPRT's state, when there is one: its decision, or its LLR while it has none.
fn verdict(summary: &Summary) -> Option<(&'static str, String)> {
    let pair = summary.pairs.iter().find(|p| p.sprt.is_some())?;
    let status = pair.sprt?;
    let (class, accepted) = match status.report.decision {
        SprtDecision::AcceptH1 => ("h1", "H1 accepted"),
        SprtDecision::AcceptH0 => ("h0", "H0 accepted"),
        SprtDecision::Continue => {
            return Some(("running", format!("SPRT, no decision: {}", status.report)));
        }
    };
    Some((
        class,
        format!(
            "SPRT {accepted} at game {}: {} vs {}, {}",
            status.games,
            isolate(&pair.first),
            isolate(&pair.second),
            status.report
        ),
    ))
}

/// An engine's name isolated from the text around it (U+2068 FIRST STRONG ISOLATE ... U+2069
/// POP DIRECTIONAL ISOLATE), as every name on the page is: a name holding a right-to-left
/// mark or override (U+202E) would otherwise reverse the rest of its line. Marks rather than
/// `<bdi>` because names also go into `<option>`s, SVG text and the viewer's script.
pub(super) fn isolate(name: &str) -> String {
    format!("\u{2068}{name}\u{2069}")
}

/// `text` with its directional formatting characters (U+202A..U+202E, U+2066..U+2069, U+200E,
/// U+200F, U+061C) shown as `<U+202E>`: in a text that holds a name among other words (a command
/// line, the config), an override would reverse the rest of the text, which isolation does not
/// prevent inside the name's own text. Names set apart ([`isolate`]) keep theirs, isolated.
pub(super) fn show_controls(text: &str) -> String {
    let is_control = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}');
    if !text.contains(is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| match c {
            c if is_control(c) => format!("<U+{:04X}>", u32::from(c)),
            c => c.to_string(),
        })
        .collect()
}

/// Elo with a sign and one decimal, marked `>`/`<`/`~` when it is a bound.
fn elo_text(elo: f64, bound: Option<Bound>) -> String {
    format!("{}{:+.1}", bound.map_or("", Bound::mark), elo + 0.0)
}

fn standings(summary: &Summary) -> Vec<StandingRow> {
    let dash = |text: Option<String>| text.unwrap_or_else(|| "-".to_string());
    summary
        .standings
        .iter()
        .map(|row| StandingRow {
            rank: row.rank,
            name: isolate(&row.name),
            elo: dash(row.elo.map(|e| elo_text(e, row.bound))),
            error: dash(row.error95.map(|e| format!("{e:.1}"))),
            games: row.games,
            wins: row.wins,
            losses: row.losses,
            score: dash(row.score_percent.map(|s| format!("{s:.1}%"))),
            los: dash(row.los_next.map(|l| format!("{:.1}%", 100.0 * l))),
        })
        .collect()
}

fn cross_rows(summary: &Summary) -> CrossRows {
    let table = Crosstable::of(summary);
    let rows = table
        .names
        .iter()
        .zip(&table.cells)
        .map(|(name, cells)| {
            let cells = cells
                .iter()
                .map(|cell| {
                    let class = match cell {
                        Some((w, l)) if w > l => "ahead",
                        Some((w, l)) if w < l => "behind",
                        Some(_) => "even",
                        None => "none",
                    };
                    (Crosstable::cell_text(*cell), class)
                })
                .collect();
            (isolate(name), cells)
        })
        .collect();
    CrossRows {
        names: table.names.iter().map(|name| isolate(name)).collect(),
        rows,
    }
}

/// A pair's block: its numbers as lines, its pentanomial bars, its Elo chart and, with an
/// SPRT, its LLR chart.
fn pair_block(pair: &PairSummary, series: &PairSeries) -> PairBlock {
    let Pentanomial { ll, wl, ww, .. } = pair.pentanomial;
    let labels = ["LL 0".to_string(), "WL 1".to_string(), "WW 2".to_string()];
    PairBlock {
        title: format!("{} vs {}", isolate(&pair.first), isolate(&pair.second)),
        lines: pair_lines(pair),
        ptnml_svg: svg::bars(
            "Game pairs by points",
            &labels,
            &[ll, wl, ww],
            PALETTE[0],
            240,
        ),
        elo_svg: elo_chart(series),
        llr_svg: series.sprt.map(|lines| llr_chart(series, lines)),
    }
}

/// A pair's numbers, as the text report gives them: Elo (a bound marked) with its error and
/// LOS; games, wins, losses and score; the pentanomial counts; the SPRT's line.
fn pair_lines(pair: &PairSummary) -> Vec<String> {
    let elo = &pair.elo;
    let score = match pair.games {
        0 => "-".to_string(),
        games => format!("{:.1}%", 100.0 * pair.wins as f64 / games as f64),
    };
    let Pentanomial { ll, ld, wl, wd, ww } = pair.pentanomial;
    let interval = match elo.bound_side() {
        // A one-sided score: the Elo is a bound, with no interval.
        Some(Bound::Lower) => " (a floor: one side won every counted game)".to_string(),
        Some(_) => " (a ceiling: one side won every counted game)".to_string(),
        None => format!(" ± {:.1}", elo.error95),
    };
    let mut lines = vec![
        format!(
            "Pair Elo {}{interval}, LOS {:.1}%",
            elo_text(elo.elo, elo.bound_side()),
            100.0 * elo.los
        ),
        format!(
            "Games {}: {}, {}, score {score}",
            pair.games,
            plural(pair.wins, "win"),
            plural(pair.losses, "loss")
        ),
        format!(
            "Ptnml(0-2) [{ll}, {ld}, {wl}, {wd}, {ww}]{}",
            match pair.unpaired {
                0 => String::new(),
                n => format!(", {n} unpaired"),
            }
        ),
    ];
    if let Some(status) = pair.sprt {
        lines.push(status.report.to_string());
        lines.extend(
            status
                .after_stop
                .as_ref()
                .map(crate::report::text::after_stop_text),
        );
    }
    lines
}

/// The terminations some game ended by, as indices into [`Termination::ALL`]: the columns of
/// the terminations table.
fn shown_terminations(series: &Series) -> Vec<usize> {
    (0..Termination::ALL.len())
        .filter(|&k| {
            series
                .engines
                .iter()
                .any(|e| e.wins_by[k] + e.losses_by[k] > 0)
        })
        .collect()
}

/// Per engine, `wins / losses` by each termination of `shown` ([`shown_terminations`]), its
/// losses by fault and its stray lines.
fn termination_rows(report: &Report<'_>, shown: &[usize]) -> Vec<TerminationRow> {
    report
        .series
        .engines
        .iter()
        .zip(&report.summary.faults)
        .map(|(engine, faults)| TerminationRow {
            name: isolate(&engine.name),
            cells: shown
                .iter()
                .map(|&k| format!("{} / {}", engine.wins_by[k], engine.losses_by[k]))
                .collect(),
            faults: faults.time_forfeits + faults.illegal_moves + faults.crashes + faults.stalls,
            stray: faults.stray_answers,
        })
        .collect()
}

fn move_time_rows(series: &Series) -> Vec<MoveTimeRow> {
    series
        .engines
        .iter()
        .enumerate()
        .map(|(k, engine)| {
            let times = &engine.move_times;
            // µs while the buckets are under 1 ms; else ms (the buckets are whole ms then).
            let (unit, scale) = match times.bucket_us < 1000 {
                true => ("µs", 1),
                false => ("ms", 1000),
            };
            let show = |us: u64| match scale {
                1 => us.to_string(),
                _ => format!("{:.1}", us as f64 / 1000.0),
            };
            let labels: Vec<String> = (0..times.histogram.len())
                .map(|b| match b {
                    0 => "0".to_string(),
                    b if b == times.histogram.len() - 1 => {
                        format!("{}+", b as u64 * times.bucket_us / scale)
                    }
                    b if b % 5 == 0 => format!("{}", b as u64 * times.bucket_us / scale),
                    _ => String::new(),
                })
                .collect();
            MoveTimeRow {
                name: isolate(&engine.name),
                moves: times.moves,
                unit,
                mean: match scale {
                    1 => format!("{:.0}", times.mean_us),
                    _ => format!("{:.1}", times.mean_us / 1000.0),
                },
                median: show(times.median_us),
                p90: show(times.p90_us),
                max: show(times.max_us),
                all_under_1ms: times.moves > 0 && times.max_us == 0,
                svg: svg::bars(
                    &format!("Time per move of {}, {unit}", isolate(&engine.name)),
                    &labels,
                    &times.histogram,
                    PALETTE[k % PALETTE.len()],
                    420,
                ),
            }
        })
        .collect()
}

/// What the move times leave out, when a game's `move_info` does not read: `1 game with a
/// move_info column that does not read, left out of the move times. The first: game 7: ...`.
pub(super) fn move_info_note(unreadable: &UnreadableMoveInfo) -> Option<String> {
    (unreadable.games > 0).then(|| {
        format!(
            "{} with a move_info column that does not read, left out of the move times. The \
             first: {}.",
            plural(unreadable.games, "game"),
            unreadable.first.as_deref().unwrap_or("?")
        )
    })
}

/// The claims table's rows: per engine, the kinds checked or found.
fn claim_rows(summary: &Summary) -> Vec<ClaimTableRow> {
    use crate::named::Named;
    use crate::records::claims::ClaimKind;
    let mut rows = Vec::new();
    for engine in &summary.claims {
        for &kind in ClaimKind::all() {
            let unchecked = (kind == ClaimKind::Mate).then_some(engine.mate_unchecked);
            let (checked, found) = (engine.checked.get(&kind), engine.found.get(&kind));
            if checked.is_none() && found.is_none() && unchecked.unwrap_or(0) == 0 {
                continue;
            }
            rows.push(ClaimTableRow {
                name: isolate(&engine.name),
                kind: kind.title(),
                checked: checked.copied().unwrap_or(0),
                found: found.copied().unwrap_or(0),
                unchecked: unchecked.map(|n| n.to_string()).unwrap_or_default(),
            });
        }
    }
    rows
}

fn meta_rows(report: &Report<'_>) -> Vec<(String, String)> {
    let meta = report.meta;
    let mut rows = vec![("Games from".to_string(), meta.sources.join(", "))];
    if let Some((first, last)) = &report.series.started {
        rows.push(("First game started".into(), first.clone()));
        rows.push(("Last game started".into(), last.clone()));
    }
    rows.push(("Report written".into(), records::now_rfc3339()));
    if let Some(config) = &meta.config {
        for key in [
            "event", "rules", "board", "format", "rounds", "games", "seed", "sprt",
        ] {
            let value = &config[key];
            if !value.is_null() {
                let text = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                rows.push((key.to_string(), text));
            }
        }
        if let Some(book) = config["openings"]["file"].as_str() {
            rows.push(("openings".into(), book.to_string()));
        }
    }
    if let Some(info) = &meta.info {
        if !info.command_line.is_empty() {
            rows.push(("Command line".into(), info.command_line.join(" ")));
        }
        if !info.bt_arena.is_empty() {
            rows.push(("Run by".into(), format!("bt-arena {}", info.bt_arena)));
        }
        for (name, id) in &info.engines {
            rows.push((format!("Engine {name}"), id.clone()));
        }
        for (name, build) in &info.builds {
            rows.push((format!("Source of {name}"), build.to_string()));
        }
        if let Some(scale) = &info.clock_scale {
            rows.push(("Time control scaled".into(), scale.to_string()));
        }
        if let Some(load) = &info.load {
            rows.push(("Load average".into(), load.to_string()));
        }
    }
    rows.push((
        "Report by".into(),
        format!("bt-arena {}", env!("CARGO_PKG_VERSION")),
    ));
    rows
}
