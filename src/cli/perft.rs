//! `bt-arena perft`: counts per depth, divide, and perft suites.
//!
//! Each mode computes one report ([`PerftReport`]), which is rendered as text (a line as soon
//! as each depth or suite line is counted, then the rest) or as JSON (the whole report at the
//! end) by one [`Render`] chosen once.

use super::args::{BoardFlag, JsonFlag, RulesFlag};
use anyhow::{Result, bail};
use bt_arena::rules::perft::{self, PerftOptions};
use bt_arena::rules::suite::{self, DepthCheck, SuiteCheck, SuiteEntry};
use bt_arena::rules::{Board, Position, Rules};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

impl PerftArgs {
    /// The depth, given as DEPTH or `--depth`.
    fn depth(&self) -> Option<u32> {
        self.depth.or(self.depth_flag)
    }
}

/// Arguments of `bt-arena perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Perft depth in plies: the counts at every depth up to it.
    ///
    /// Required unless --suite is given; with --suite, the deepest depth checked (default:
    /// every depth the suite lists).
    #[arg(required_unless_present_any = ["suite", "depth_flag"])]
    depth: Option<u32>,
    /// The depth as a flag, as `prove --plies` and `perft-check --depth` take theirs.
    #[arg(
        long = "depth",
        id = "depth_flag",
        value_name = "DEPTH",
        conflicts_with = "depth"
    )]
    depth_flag: Option<u32>,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: BoardFlag,
    /// The position as a FEN (the board's ranks from the top one down, then w or b), or
    /// "startpos" (the start of the --board).
    #[arg(long, value_name = "POSITION", default_value = "startpos")]
    fen: String,
    /// Print the count under each root move (`a2a3: N`), then the total.
    #[arg(long)]
    divide: bool,
    /// Worker threads.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,
    /// Transposition table size in MiB (0: none).
    #[arg(long, value_name = "MB", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=16384))]
    hash: u32,
    #[command(flatten)]
    json: JsonFlag,
    /// Check every line of a perft suite; exit 1 on a mismatch.
    ///
    /// A suite line is `<position> ;D1 n ;D2 n ...`: a position and its expected counts.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "divide"])]
    suite: Option<PathBuf>,
}

impl PerftArgs {
    fn options(&self) -> PerftOptions {
        PerftOptions {
            threads: usize::from(self.threads),
            hash_mb: self.hash as usize,
        }
    }
}

/// Runs `bt-arena perft`.
///
/// # Errors
/// An unreadable or malformed suite file, or a suite none of whose depths is within `DEPTH`.
pub fn run(args: &PerftArgs) -> Result<ExitCode> {
    let render: &dyn Render = if args.json.json { &Json } else { &Text };
    let position = args.board.position("--fen", &args.fen)?;
    let report = match (&args.suite, args.depth()) {
        (Some(path), _) => PerftReport::Suite(check_suite(args, path, |entry, checks| {
            out!("{}", render.suite_line(entry, checks));
        })?),
        (None, Some(depth)) if args.divide => PerftReport::Divide(divide(args, &position, depth)),
        (None, Some(depth)) => {
            out!("{}", render.depths_header(&position, args.rules.get()));
            PerftReport::Depths(count_depths(args, &position, depth, |count| {
                out!("{}", render.depth(count));
            }))
        }
        (None, None) => unreachable!("clap requires a DEPTH without --suite"),
    };
    out!("{}", render.report(&report));
    Ok(match &report {
        PerftReport::Suite(suite) if suite.check.failed > 0 => super::EXIT_FAILED.into(),
        _ => ExitCode::SUCCESS,
    })
}

/// What `bt-arena perft` computed, in one of its modes. Its JSON is the mode's report.
#[derive(Serialize)]
#[serde(untagged)]
enum PerftReport {
    /// `perft DEPTH`: the count at each depth.
    Depths(DepthsReport),
    /// `perft --divide DEPTH`: the count under each root move.
    Divide(DivideReport),
    /// `perft --suite FILE`: the suite's expected counts checked.
    Suite(SuiteReport),
}

/// The counts of one position at each depth up to the deepest.
#[derive(Serialize)]
struct DepthsReport {
    /// The position (serialized as its FEN).
    position: Position,
    /// The board size, `8x8`.
    board: Board,
    rules: Rules,
    depths: Vec<DepthCount>,
}

/// One timed perft count.
#[derive(Serialize)]
struct DepthCount {
    /// Plies.
    depth: u32,
    /// Leaf nodes.
    nodes: u64,
    /// Wall-clock time of the count, ms.
    time_ms: f64,
    /// Leaf nodes per second; `None` when the count took no measurable time.
    nodes_per_second: Option<f64>,
}

/// The divide of one position: the count under each root move, in move-generation order.
#[derive(Serialize)]
struct DivideReport {
    /// The position (serialized as its FEN).
    position: Position,
    /// The board size, `8x8`.
    board: Board,
    rules: Rules,
    /// Plies.
    depth: u32,
    moves: Vec<MoveCount>,
    /// The sum of the moves' counts (1 at depth 0: the position itself).
    total: u64,
    /// Wall-clock time of the divide, ms.
    time_ms: f64,
}

/// One line of a divide.
#[derive(Serialize)]
struct MoveCount {
    #[serde(rename = "move")]
    mv: String,
    /// Leaf nodes under the move.
    nodes: u64,
}

/// A suite checked, with the file it came from.
#[derive(Serialize)]
struct SuiteReport {
    /// The suite file, as given.
    suite: String,
    #[serde(flatten)]
    check: SuiteCheck,
}

/// Counts `position` at each depth up to `max_depth` (only depth 0 when it is 0), calling
/// `on_depth` with each count as soon as it is known.
fn count_depths(
    args: &PerftArgs,
    position: &Position,
    max_depth: u32,
    mut on_depth: impl FnMut(&DepthCount),
) -> DepthsReport {
    // Depth 0 has one leaf, the position itself.
    let depths = (max_depth.min(1)..=max_depth)
        .map(|depth| {
            let count = timed(position, args.rules.get(), depth, args.options());
            on_depth(&count);
            count
        })
        .collect();
    DepthsReport {
        position: *position,
        board: position.board(),
        rules: args.rules.get(),
        depths,
    }
}

/// The perft count of `position` at `depth`, timed.
fn timed(position: &Position, rules: Rules, depth: u32, options: PerftOptions) -> DepthCount {
    let start = Instant::now();
    let nodes = perft::perft(position, rules, depth, options);
    let seconds = start.elapsed().as_secs_f64();
    DepthCount {
        depth,
        nodes,
        time_ms: seconds * 1e3,
        nodes_per_second: (seconds > 0.0).then(|| nodes as f64 / seconds),
    }
}

/// The divide of `position` at `depth`.
fn divide(args: &PerftArgs, position: &Position, depth: u32) -> DivideReport {
    let start = Instant::now();
    let moves = perft::divide(position, args.rules.get(), depth, args.options());
    let time_ms = start.elapsed().as_secs_f64() * 1e3;
    // Depth 0 has no moves below the root and one leaf, the position itself.
    let total: u64 = if depth == 0 {
        1
    } else {
        moves.iter().map(|&(_, count)| count).sum()
    };
    DivideReport {
        position: *position,
        board: position.board(),
        rules: args.rules.get(),
        depth,
        moves: moves
            .iter()
            .map(|&(mv, nodes)| MoveCount {
                mv: mv.to_string(),
                nodes,
            })
            .collect(),
        total,
        time_ms,
    }
}

/// Checks the suite at `path` up to `args.depth()`, calling `on_line` with each line as soon as
/// it is checked.
fn check_suite(
    args: &PerftArgs,
    path: &Path,
    on_line: impl FnMut(&SuiteEntry, &[DepthCheck]),
) -> Result<SuiteReport> {
    let entries = suite::read_suite(path, args.board.get())?;
    let check = suite::check_suite(
        &entries,
        args.rules.get(),
        args.depth(),
        args.options(),
        on_line,
    );
    if check.checks.is_empty() {
        bail!(
            "nothing checked: every depth in {} is deeper than {}",
            path.display(),
            args.depth().unwrap_or_default()
        );
    }
    Ok(SuiteReport {
        suite: path.display().to_string(),
        check,
    })
}

/// A rendering of what `bt-arena perft` computes, in parts so that text can be written while
/// the counts go on. Each part is the exact text to write (possibly empty).
trait Render {
    /// What is written before the first count of `perft DEPTH`.
    fn depths_header(&self, position: &Position, rules: Rules) -> String;
    /// What is written as soon as one depth of `perft DEPTH` is counted.
    fn depth(&self, count: &DepthCount) -> String;
    /// What is written as soon as one suite line is checked.
    fn suite_line(&self, entry: &SuiteEntry, checks: &[DepthCheck]) -> String;
    /// What is written when the report is complete.
    fn report(&self, report: &PerftReport) -> String;
}

/// Text for people: a table row per depth, the divide lines and total, a line per suite line
/// and a summary.
struct Text;

/// JSON: the whole report at the end; nothing before.
struct Json;

impl Render for Text {
    fn depths_header(&self, position: &Position, rules: Rules) -> String {
        let board = position.board();
        let on = if board.is_standard() {
            String::new()
        } else {
            format!(" on {board}")
        };
        format!(
            "perft of {position}{on} under {rules} rules\n{:>5} {:>16} {:>12} {:>14}\n",
            "depth", "nodes", "time (ms)", "nodes/s"
        )
    }

    fn depth(&self, count: &DepthCount) -> String {
        let nps = count.nodes_per_second.map_or("-".to_string(), |nps| {
            bt_arena::report::numbers::grouped(nps.round() as u64)
        });
        format!(
            "{:>5} {:>16} {:>12.3} {:>14}\n",
            count.depth,
            count.nodes,
            // In ms: perft counts the last ply's moves without playing them, so shallow depths
            // take well under a millisecond.
            count.time_ms,
            nps
        )
    }

    fn suite_line(&self, entry: &SuiteEntry, checks: &[DepthCheck]) -> String {
        let failures: Vec<String> = checks
            .iter()
            .filter(|check| !check.pass)
            .map(|check| {
                format!(
                    "D{} expected {} got {}",
                    check.depth, check.expected, check.actual
                )
            })
            .collect();
        let verdict = if failures.is_empty() {
            format!("ok ({} depths)", checks.len())
        } else {
            format!("FAIL: {}", failures.join(", "))
        };
        format!("line {}: {}  {verdict}\n", entry.line, entry.position)
    }

    fn report(&self, report: &PerftReport) -> String {
        match report {
            // Every depth is written as it is counted.
            PerftReport::Depths(_) => String::new(),
            PerftReport::Divide(divide) => {
                let lines: String = divide
                    .moves
                    .iter()
                    .map(|count| format!("{}: {}\n", count.mv, count.nodes))
                    .collect();
                format!(
                    "{lines}\ntotal: {}\ntime: {:.3} s\n",
                    divide.total,
                    divide.time_ms / 1e3
                )
            }
            PerftReport::Suite(suite) => {
                let check = &suite.check;
                let summary = format!(
                    "{} lines, {} checks: {} passed, {} failed\n",
                    check.lines,
                    check.checks.len(),
                    check.passed,
                    check.failed
                );
                match &check.hint {
                    Some(hint) => format!("{summary}hint: {hint}\n"),
                    None => summary,
                }
            }
        }
    }
}

impl Render for Json {
    fn depths_header(&self, _: &Position, _: Rules) -> String {
        String::new()
    }

    fn depth(&self, _: &DepthCount) -> String {
        String::new()
    }

    fn suite_line(&self, _: &SuiteEntry, _: &[DepthCheck]) -> String {
        String::new()
    }

    fn report(&self, report: &PerftReport) -> String {
        // Strings, numbers, bools, options and lists of them: serde_json cannot fail on these.
        serde_json::to_string_pretty(report).expect("a perft report serializes to JSON") + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> SuiteEntry {
        suite::parse_suite("\n8/8/8/1p6/P7/8/8/8 w ;D1 2 ;D2 3", Board::STANDARD).unwrap()[0]
            .clone()
    }

    #[test]
    fn text_names_each_failed_depth_of_a_suite_line() {
        let entry = entry();
        let check = |depth, expected, actual| DepthCheck {
            line: 2,
            position: entry.position,
            depth,
            expected,
            actual,
            pass: expected == actual,
        };
        assert_eq!(
            Text.suite_line(&entry, &[check(1, 2, 2), check(2, 3, 3)]),
            "line 2: 8/8/8/1p6/P7/8/8/8 w  ok (2 depths)\n"
        );
        assert_eq!(
            Text.suite_line(&entry, &[check(1, 2, 2), check(2, 3, 4)]),
            "line 2: 8/8/8/1p6/P7/8/8/8 w  FAIL: D2 expected 3 got 4\n"
        );
        assert_eq!(Json.suite_line(&entry, &[check(1, 2, 2)]), "");
    }

    #[test]
    fn text_and_json_render_one_divide_report() {
        let report = PerftReport::Divide(DivideReport {
            position: entry().position,
            board: Board::STANDARD,
            rules: Rules::CaptureOnly,
            depth: 1,
            moves: vec![
                MoveCount {
                    mv: "a4a5".into(),
                    nodes: 1,
                },
                MoveCount {
                    mv: "a4b5".into(),
                    nodes: 1,
                },
            ],
            total: 2,
            time_ms: 1250.0,
        });
        assert_eq!(
            Text.report(&report),
            "a4a5: 1\na4b5: 1\n\ntotal: 2\ntime: 1.250 s\n"
        );
        assert_eq!(
            Json.report(&report),
            r#"{
  "position": "8/8/8/1p6/P7/8/8/8 w",
  "board": "8x8",
  "rules": "capture-only",
  "depth": 1,
  "moves": [
    {
      "move": "a4a5",
      "nodes": 1
    },
    {
      "move": "a4b5",
      "nodes": 1
    }
  ],
  "total": 2,
  "time_ms": 1250.0
}
"#
        );
    }
}
