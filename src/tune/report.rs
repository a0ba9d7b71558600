//! What a tune shows and hands back, rewritten as iterations finish and once at the end:
//!
//! - `report.html`: fishtest's table (name, current, start, min, max, c_k, c_end, r_k, r_end),
//!   each parameter's path as a percentage of [MIN, MAX] (as fishtest's chart) and absolute,
//!   θ as engine options and in OpenBench's format, the last iterations, the settings;
//! - `summary.json`: the same numbers for programs;
//! - `tuned-options.txt`: θ as `option.NAME=VALUE` lines, ready for `--engine`;
//! - `tuned-params.txt`: θ in OpenBench's input format, to start the next tune from (`--params`).
//!
//! All are written whole or not at all, so a tune can be stopped at any time with what it has.

use super::config::TuneConfig;
use super::iterations::{IterationRecord, theta_path};
use super::params::{ParamKind, TuneParam};
use crate::records::{Existing, RecordsError, write_atomically, write_json};
use crate::report::html::svg::{self, LineChart, RefLine};
use crate::run_dir::RunDir;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// report.html.
pub use crate::run_dir::REPORT_HTML;
/// summary.json.
pub use crate::run_dir::SUMMARY_JSON;
/// θ as `option.NAME=VALUE` lines.
pub use crate::run_dir::TUNED_OPTIONS;
/// θ in OpenBench's input format.
pub use crate::run_dir::TUNED_PARAMS;

/// Seconds after which a browser reloads report.html while the tune runs.
const REFRESH_SECONDS: u32 = 15;
/// Iterations listed in report.html's table of the last iterations.
const LAST_ITERATIONS: usize = 20;

const TEMPLATE: &str = include_str!("report.html.tmpl");

/// A tune as it stands: its config, its finished iterations (by iteration number) and θ.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The tune.
    pub config: TuneConfig,
    /// The finished iterations, in increasing iteration number.
    pub records: Vec<IterationRecord>,
    /// θ after them.
    pub theta: Vec<f64>,
    /// True while the tune runs (report.html then reloads itself).
    pub in_progress: bool,
    /// Losses by fault of tune+ and tune− over the directory's games (a shard's: its own).
    pub faults: Vec<crate::report::EngineFaults>,
}

/// One parameter in fishtest's table, in numbers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamState {
    /// The option name.
    pub name: String,
    /// `int` or `float`.
    pub kind: ParamKind,
    /// θ now.
    pub value: f64,
    /// The start.
    pub start: f64,
    /// MIN.
    pub min: f64,
    /// MAX.
    pub max: f64,
    /// c_k of the next iteration.
    pub c_k: f64,
    /// C_END.
    pub c_end: f64,
    /// r_k of the next iteration.
    pub r_k: f64,
    /// R_END.
    pub r_end: f64,
}

impl Snapshot {
    /// The iteration the gains of the table are those of: the next one, at most I (as
    /// OpenBench's digest gives them "as if a workload were assigned now").
    pub fn next_k(&self) -> u64 {
        (self.records.len() as u64 + 1).min(self.config.spsa.iterations)
    }

    /// tune+'s wins and losses over the finished iterations.
    pub fn score(&self) -> (u64, u64) {
        self.records.iter().fold((0, 0), |(w, l), r| {
            (w + u64::from(r.wins), l + u64::from(r.losses))
        })
    }

    /// Every parameter's numbers for fishtest's table.
    pub fn params(&self) -> Vec<ParamState> {
        let settings = &self.config.spsa;
        let k = self.next_k();
        self.config
            .params
            .iter()
            .zip(&self.theta)
            .map(|(param, &value)| ParamState {
                name: param.name.clone(),
                kind: param.kind,
                value,
                start: param.start,
                min: param.min,
                max: param.max,
                c_k: settings.c_k(param, k),
                c_end: param.c_end,
                r_k: settings.r_k(param, k),
                r_end: param.r_end,
            })
            .collect()
    }

    /// θ as `option.NAME=VALUE` lines (integers rounded).
    pub fn option_lines(&self) -> Vec<String> {
        self.config
            .params
            .iter()
            .zip(&self.theta)
            .map(|(param, &value)| format!("option.{}={}", param.name, param.format_value(value)))
            .collect()
    }

    /// θ as OpenBench input lines (integers rounded), the other fields as declared.
    pub fn openbench_lines(&self) -> Vec<String> {
        self.config
            .params
            .iter()
            .zip(&self.theta)
            .map(|(param, &value)| param.openbench_line(value))
            .collect()
    }

    /// The one-line status: iterations, games, score.
    pub fn status(&self) -> String {
        let (wins, losses) = self.score();
        let state = if self.in_progress {
            "in progress"
        } else if self.records.len() as u64 == self.config.spsa.iterations {
            "finished"
        } else {
            "stopped (continue with --resume)"
        };
        format!(
            "{} of {} iterations, {state}; {} games: tune+ {wins} - {losses} tune-",
            self.records.len(),
            self.config.spsa.iterations,
            wins + losses
        )
    }
}

/// summary.json's contents.
#[derive(Serialize)]
struct SummaryJson<'a> {
    event: &'a str,
    iterations: u64,
    finished: usize,
    in_progress: bool,
    games: u64,
    wins: u64,
    losses: u64,
    pairs: u32,
    big_a: f64,
    alpha: f64,
    gamma: f64,
    seed: u64,
    params: Vec<ParamState>,
    options: Vec<String>,
    openbench: Vec<String>,
    faults: &'a [crate::report::EngineFaults],
}

/// Counts `game`'s loss by fault, if it is one, into `faults` (tune+'s, then tune−'s).
pub fn count_fault(
    faults: &mut [crate::report::EngineFaults; 2],
    game: &crate::records::GameRecord,
) {
    if game.termination.is_fault() {
        let loser = usize::from(game.winner_name() == super::config::PLUS);
        faults[loser].add_loss(game.termination);
    }
}

/// No loss by fault yet, for tune+ and tune−.
pub fn no_faults() -> [crate::report::EngineFaults; 2] {
    [super::config::PLUS, super::config::MINUS].map(crate::report::EngineFaults::none)
}

/// Losses by fault of tune+ and tune− over the games of `files` (games.csv files; missing
/// ones hold no game), streamed.
///
/// # Errors
/// A file that cannot be read or holds a malformed row.
pub fn read_faults(
    files: &[std::path::PathBuf],
) -> Result<Vec<crate::report::EngineFaults>, RecordsError> {
    let mut faults = no_faults();
    for file in files.iter().filter(|file| file.exists()) {
        for game in crate::records::GamesReader::open(file)? {
            count_fault(&mut faults, &game?);
        }
    }
    Ok(faults.to_vec())
}

/// summary.json of `snapshot`, as pretty JSON.
pub fn summary_json(snapshot: &Snapshot) -> serde_json::Value {
    let (wins, losses) = snapshot.score();
    let spsa = &snapshot.config.spsa;
    let summary = SummaryJson {
        event: &snapshot.config.run.event,
        iterations: spsa.iterations,
        finished: snapshot.records.len(),
        in_progress: snapshot.in_progress,
        games: wins + losses,
        wins,
        losses,
        pairs: spsa.pairs,
        big_a: spsa.big_a(),
        alpha: spsa.alpha,
        gamma: spsa.gamma,
        seed: snapshot.config.run.seed,
        params: snapshot.params(),
        options: snapshot.option_lines(),
        openbench: snapshot.openbench_lines(),
        faults: &snapshot.faults,
    };
    serde_json::to_value(summary).unwrap_or_default()
}

/// Writes report.html, summary.json, tuned-options.txt and tuned-params.txt of `snapshot` to
/// `dir`, each atomically.
///
/// # Errors
/// [`RecordsError::Io`] naming the file that cannot be written.
pub fn write_all(dir: &Path, snapshot: &Snapshot) -> Result<(), RecordsError> {
    let lines = |lines: Vec<String>| {
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        move |file: &mut std::fs::File| file.write_all(text.as_bytes())
    };
    write_atomically(
        &RunDir::new(dir).tuned_options(),
        Existing::Replace,
        lines(snapshot.option_lines()),
    )?;
    write_atomically(
        &RunDir::new(dir).tuned_params(),
        Existing::Replace,
        lines(snapshot.openbench_lines()),
    )?;
    write_json(
        &RunDir::new(dir).summary_json(),
        &summary_json(snapshot),
        Existing::Replace,
    )?;
    let path = RunDir::new(dir).report_html();
    let page = html(snapshot)
        .map_err(|e| RecordsError::io(&path, "cannot render", std::io::Error::other(e)))?;
    write_atomically(&path, Existing::Replace, |file| {
        file.write_all(page.as_bytes())
    })?;
    Ok(())
}

/// A number for the table: whole numbers as they are, others with 4 decimals when at least
/// 1 in size, else with 4 significant digits.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{:.0}", value + 0.0)
    } else if value.abs() >= 1.0 {
        format!("{value:.4}")
    } else {
        let (mut digits, mut scaled) = (4, value.abs());
        while scaled < 0.1 && digits < 12 {
            scaled *= 10.0;
            digits += 1;
        }
        format!("{value:.digits$}")
    }
}

/// A parameter's bound or start: as declared.
fn declared(param: &TuneParam, value: f64) -> String {
    match param.kind {
        ParamKind::Int => param.format_value(value),
        ParamKind::Float => number(value),
    }
}

/// report.html of `snapshot`.
///
/// # Errors
/// [`minijinja::Error`] when the built-in template fails to render (a bug).
pub fn html(snapshot: &Snapshot) -> Result<String, minijinja::Error> {
    let config = &snapshot.config;
    let path = theta_path(&config.params, &snapshot.records);
    let table: Vec<_> = snapshot
        .params()
        .iter()
        .zip(&config.params)
        .map(|(state, param)| {
            minijinja::context! {
                name => state.name.clone(),
                current => number(state.value),
                start => declared(param, state.start),
                min => declared(param, state.min),
                max => declared(param, state.max),
                c_k => number(state.c_k),
                c_end => number(state.c_end),
                r_k => number(state.r_k),
                r_end => number(state.r_end),
            }
        })
        .collect();
    let charts: Vec<String> = config
        .params
        .iter()
        .enumerate()
        .map(|(index, param)| absolute_chart(param, index, &path))
        .collect();
    let iterations: Vec<_> = snapshot
        .records
        .iter()
        .rev()
        .take(LAST_ITERATIONS)
        .map(|record| {
            let games = 2 * u64::from(config.spsa.pairs);
            minijinja::context! {
                iteration => record.step.iteration,
                games => format!("{}-{}", record.first_game, record.first_game + games - 1),
                wins => record.wins,
                losses => record.losses,
                finished => record.finished.clone(),
            }
        })
        .collect();
    let engine = &config.engine;
    let mut command = engine.cmd.display().to_string();
    for arg in &engine.args {
        command.push(' ');
        command.push_str(arg);
    }
    let fixed: Vec<String> = engine
        .options
        .pairs()
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let settings = vec![
        ("engine", command),
        ("limit", engine.limit.to_string()),
        ("fixed options", fixed.join(" ")),
        ("iterations", config.spsa.iterations.to_string()),
        ("game pairs per iteration", config.spsa.pairs.to_string()),
        (
            "A, α, γ",
            format!(
                "{} ({} × I), {}, {}",
                config.spsa.big_a(),
                config.spsa.a_ratio,
                config.spsa.alpha,
                config.spsa.gamma
            ),
        ),
        ("seed", config.run.seed.to_string()),
        ("rules", config.run.rules.to_string()),
        (
            "openings",
            config.run.openings.file.as_ref().map_or_else(
                || "the start position".to_string(),
                |file| file.display().to_string(),
            ),
        ),
        ("concurrency", config.run.concurrency.to_string()),
        ("lag", config.lag.to_string()),
    ];
    let mut env = minijinja::Environment::new();
    env.add_global("base_css", crate::report::html::BASE_CSS);
    env.add_template("tune.html", TEMPLATE)?;
    env.get_template("tune.html")?.render(minijinja::context! {
        refresh => snapshot.in_progress.then_some(REFRESH_SECONDS),
        event => config.run.event.clone(),
        status => snapshot.status(),
        table => table,
        next_k => snapshot.next_k(),
        percent_svg => percent_chart(&config.params, &path),
        charts => charts,
        options => snapshot.option_lines().join("\n"),
        openbench => snapshot.openbench_lines().join("\n"),
        iterations => iterations,
        settings => settings,
        faults => snapshot.faults.iter().map(|f| minijinja::context! {
            name => f.name.clone(),
            time => f.time_forfeits,
            illegal => f.illegal_moves,
            crash => f.crashes,
            stall => f.stalls,
            stray => f.stray_answers,
        }).collect::<Vec<_>>(),
    })
}

/// Parameter `index`'s θ over the iterations of `path`, absolute, with its start marked.
fn absolute_chart(param: &TuneParam, index: usize, path: &[(u64, Vec<f64>)]) -> String {
    let points: Vec<(f64, f64)> = path
        .iter()
        .map(|(iteration, theta)| (*iteration as f64, theta[index]))
        .collect();
    let points = if path.len() > 1 { points } else { Vec::new() };
    svg::line_chart(&LineChart {
        title: &format!("{} over the iterations", param.name),
        points: &points,
        band: None,
        lines: &[RefLine {
            value: param.start,
            label: "start",
            colour: "#999999",
        }],
        mark: None,
        x_name: "iteration",
        y_name: &param.name,
        colour: svg::PALETTE[index % svg::PALETTE.len()],
        settle_x: 0.0,
    })
}

/// Every parameter's θ as a percentage of its [MIN, MAX] over the iterations of `path`, one
/// line each (colours of [`svg::PALETTE`], dashed from the ninth parameter on), with a legend.
fn percent_chart(params: &[TuneParam], path: &[(u64, Vec<f64>)]) -> String {
    let (width, left, right, top) = (760.0, 44.0, 16.0, 12.0);
    let plot_height = 240.0;
    let legend_rows = params.len().div_ceil(4) as f64;
    let height = top + plot_height + 34.0 + 16.0 * legend_rows;
    let bottom = top + plot_height;
    let mut out = format!(
        "<svg class=\"chart percent\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" \
         height=\"{height}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\
         <title>Parameters as a percentage of [MIN, MAX] over the iterations</title>"
    );
    let x_max = path.last().map_or(1.0, |(k, _)| *k as f64).max(1.0);
    let x = |k: f64| left + (width - left - right) * k / x_max;
    let y = |percent: f64| bottom - plot_height * percent / 100.0;
    for percent in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = write!(
            out,
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"grid\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" class=\"tick\">{percent}%</text>",
            width - right,
            y(percent),
            y(percent),
            left - 4.0,
            y(percent) + 4.0
        );
    }
    let _ = write!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" class=\"axis\">iteration (0 to {x_max})</text>",
        width - right,
        bottom + 16.0
    );
    for (index, param) in params.iter().enumerate() {
        let colour = svg::PALETTE[index % svg::PALETTE.len()];
        let dash = if index >= svg::PALETTE.len() {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        let span = param.max - param.min;
        let percent = |value: f64| {
            if span > 0.0 {
                100.0 * (value - param.min) / span
            } else {
                50.0
            }
        };
        if path.len() > 1 {
            let points: Vec<String> = path
                .iter()
                .map(|(k, theta)| format!("{:.1},{:.1}", x(*k as f64), y(percent(theta[index]))))
                .collect();
            let _ = write!(
                out,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"{dash}/>",
                points.join(" ")
            );
        }
        let (column, row) = ((index % 4) as f64, (index / 4) as f64);
        let (lx, ly) = (left + column * 180.0, bottom + 34.0 + row * 16.0);
        let _ = write!(
            out,
            "<line x1=\"{lx}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" \
             stroke-width=\"2\"{dash}/><text x=\"{:.1}\" y=\"{ly}\">{}</text>",
            lx + 18.0,
            ly - 4.0,
            ly - 4.0,
            lx + 22.0,
            svg::escape(&param.name)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::run::header::RunHeader;
    use crate::tune::params::parse_line;
    use crate::tune::spsa::{SpsaSettings, perturb};

    fn snapshot(records: usize) -> Snapshot {
        let params: Vec<TuneParam> = [
            "Pawn, int, 100, 0, 200, 10, 0.002",
            "Scale, float, 0.5, 0, 2, 0.2, 0.002",
        ]
        .iter()
        .map(|line| parse_line(line).unwrap().unwrap())
        .collect();
        let config = TuneConfig {
            run: RunHeader {
                event: "t<1>".into(),
                rules: Default::default(),
                openings: Default::default(),
                seed: 3,
                concurrency: 1,
                out: "/tmp/x".into(),
                log: false,
                shard: None,
                worker: None,
                lease_ms: None,
                ..RunHeader::default()
            },
            engine: EngineKeys::parse(&["cmd=/bin/engine", "option.Hash=1"])
                .unwrap()
                .into_description(TimeControl::Nodes(500))
                .unwrap(),
            params: params.clone(),
            spsa: SpsaSettings::new(4),
            lag: 1,
            pgn_comments: Default::default(),
            unknown: Default::default(),
        };
        let mut theta = vec![100.0, 0.5];
        let mut list = Vec::new();
        for k in 1..=records as u64 {
            let step = perturb(&config.spsa, &params, &theta, k, 3);
            crate::tune::spsa::update(&params, &mut theta, &step, 12, 4);
            list.push(IterationRecord {
                step,
                first_game: 16 * (k - 1) + 1,
                wins: 12,
                losses: 4,
                finished: "2026-01-01T00:00:00Z".into(),
            });
        }
        Snapshot {
            config,
            records: list,
            theta,
            in_progress: true,
            faults: Vec::new(),
        }
    }

    #[test]
    fn the_results_give_theta_as_options_openbench_lines_and_json() {
        let mut snap = snapshot(2);
        snap.theta = vec![117.6, 0.625];
        assert_eq!(
            snap.option_lines(),
            ["option.Pawn=118", "option.Scale=0.625"]
        );
        assert_eq!(
            snap.openbench_lines(),
            [
                "Pawn, int, 118, 0, 200, 10, 0.002",
                "Scale, float, 0.625, 0, 2, 0.2, 0.002"
            ]
        );
        assert_eq!(snap.score(), (24, 8));
        assert_eq!(snap.next_k(), 3);
        let json = summary_json(&snap);
        assert_eq!(json["finished"], 2);
        assert_eq!(json["games"], 32);
        assert_eq!(json["params"][0]["value"], 117.6);
        // The next iteration's gains by hand (Python; I = 4, A = 0.4, k = 3): c_3 = 10 · 4^0.101
        // / 3^0.101, r_3 = a_3 / c_3² with a_3 = 0.002 · 100 · 4.4^0.602 / 3.4^0.602.
        let near = |value: &serde_json::Value, expected: f64| {
            value
                .as_f64()
                .is_some_and(|v| (v - expected).abs() <= 1e-12 * expected)
        };
        let pawn = &json["params"][0];
        assert!(near(&pawn["c_k"], 10.294_821_299_210_609), "{pawn}");
        assert!(near(&pawn["r_k"], 0.002_203_944_095_001_309), "{pawn}");
        let scale = &json["params"][1];
        assert!(near(&scale["c_k"], 0.205_896_425_984_212_2), "{scale}");
        assert!(near(&scale["r_k"], 0.002_203_944_095_001_308_3), "{scale}");
        assert_eq!(json["options"][1], "option.Scale=0.625");
        assert_eq!(
            snap.status(),
            "2 of 4 iterations, in progress; 32 games: tune+ 24 - 8 tune-"
        );
        snap.in_progress = false;
        assert_eq!(
            snap.status(),
            "2 of 4 iterations, stopped (continue with --resume); 32 games: tune+ 24 - 8 tune-"
        );
    }

    #[test]
    fn the_page_has_fishtests_table_and_both_paths() {
        let snap = snapshot(3);
        let page = html(&snap).unwrap();
        assert!(
            page.contains("<title>t&lt;1&gt; – bt-arena tune</title>"),
            "{page}"
        );
        assert!(page.contains("http-equiv=\"refresh\" content=\"15\""));
        // By hand (Python; I = 4, seed 3, three iterations won 12–4 by θ+ from θ = (100, 0.5)):
        // θ = 99.32646925030414; the next iteration's c_4 = 10 · 4^0.101 / 4^0.101 = 10 and
        // r_4 = R_END = 0.002 (the schedule ends at C_END and R_END).
        let row = "<tr><td class=\"name\">Pawn</td><td>99.3265</td><td>100</td><td>0</td><td>200</td><td>10</td><td>10</td><td>0.002000</td><td>0.002000</td></tr>";
        assert!(page.contains(row), "{row}\n{page}");
        // One line per parameter in the percentage chart, one absolute chart each.
        assert_eq!(page.matches("<polyline").count(), 4);
        assert_eq!(page.matches("class=\"chart line\"").count(), 2);
        assert!(page.contains("<pre>option.Pawn="));
        assert!(page.contains("<td>3</td><td>33-48</td><td>12</td><td>4</td>"));
        assert!(!html(&snapshot(0)).unwrap().contains("<polyline"));
    }

    #[test]
    fn numbers_are_short_and_exact_when_whole() {
        assert_eq!(number(100.0), "100");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(103.214_56), "103.2146");
        assert_eq!(number(0.002), "0.002000");
        assert_eq!(number(0.000_315_5), "0.0003155");
    }
}
