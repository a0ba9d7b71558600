//! `bt-arena perft`: counts per depth, divide, and perft suites.

use anyhow::{Context, Result, bail};
use bt_arena::rules::perft::{self, OtherRulesHint, PerftOptions, SuiteEntry};
use bt_arena::rules::{Position, Rules};
use bt_arena::textfile;
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `bt-arena perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Deepest depth in plies. Required unless --suite is given; with --suite, the deepest depth
    /// checked (default: every depth the suite lists).
    #[arg(required_unless_present = "suite")]
    depth: Option<u32>,
    /// Rule set: capture-only (diagonal steps must capture) or classic.
    #[arg(long, default_value_t = Rules::CaptureOnly)]
    rules: Rules,
    /// Position string (ranks 8 to 1, then w or b), or "startpos".
    #[arg(long, value_name = "POSITION", default_value = "startpos")]
    fen: Position,
    /// Print the count under each root move (`a2a3: N`), then the total.
    #[arg(long)]
    divide: bool,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,
    /// Transposition table size in MiB (0: none).
    #[arg(long, value_name = "MB", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=16384))]
    hash: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Check every line of a perft suite (`<position> ;D1 n ;D2 n ...`); exit 1 on a mismatch.
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
/// An unreadable or malformed suite file.
pub fn run(args: &PerftArgs) -> Result<ExitCode> {
    if let Some(path) = &args.suite {
        return run_suite(args, path);
    }
    let Some(depth) = args.depth else {
        unreachable!("clap requires a DEPTH without --suite");
    };
    if args.divide {
        print_divide(args, depth)?;
    } else {
        print_depths(args, depth)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One timed perft count.
#[derive(Serialize)]
struct Timed {
    depth: u32,
    nodes: u64,
    time_ms: f64,
    nodes_per_second: Option<f64>,
}

fn timed(position: &Position, rules: Rules, depth: u32, options: PerftOptions) -> Timed {
    let start = Instant::now();
    let nodes = perft::perft(position, rules, depth, options);
    let seconds = start.elapsed().as_secs_f64();
    Timed {
        depth,
        nodes,
        time_ms: seconds * 1e3,
        nodes_per_second: (seconds > 0.0).then(|| nodes as f64 / seconds),
    }
}

fn print_depths(args: &PerftArgs, max_depth: u32) -> Result<()> {
    if !args.json {
        println!("perft of {} under {} rules", args.fen, args.rules);
        println!(
            "{:>5} {:>16} {:>12} {:>14}",
            "depth", "nodes", "time (s)", "nodes/s"
        );
    }
    let mut rows = Vec::new();
    // Depth 0 has one leaf, the position itself.
    for depth in max_depth.min(1)..=max_depth {
        let row = timed(&args.fen, args.rules, depth, args.options());
        if !args.json {
            let nps = row
                .nodes_per_second
                .map_or("-".to_string(), |nps| format!("{nps:.3e}"));
            println!(
                "{:>5} {:>16} {:>12.3} {:>14}",
                row.depth,
                row.nodes,
                row.time_ms / 1e3,
                nps
            );
        }
        rows.push(row);
    }
    if args.json {
        #[derive(Serialize)]
        struct Report<'a> {
            position: String,
            rules: &'a str,
            depths: Vec<Timed>,
        }
        let report = Report {
            position: args.fen.to_string(),
            rules: args.rules.name(),
            depths: rows,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

fn print_divide(args: &PerftArgs, depth: u32) -> Result<()> {
    let start = Instant::now();
    let moves = perft::divide(&args.fen, args.rules, depth, args.options());
    let time_ms = start.elapsed().as_secs_f64() * 1e3;
    // Depth 0 has no moves below the root and one leaf, the position itself.
    let total: u64 = if depth == 0 {
        1
    } else {
        moves.iter().map(|&(_, count)| count).sum()
    };
    if args.json {
        #[derive(Serialize)]
        struct MoveCount {
            #[serde(rename = "move")]
            mv: String,
            nodes: u64,
        }
        #[derive(Serialize)]
        struct Report<'a> {
            position: String,
            rules: &'a str,
            depth: u32,
            moves: Vec<MoveCount>,
            total: u64,
            time_ms: f64,
        }
        let report = Report {
            position: args.fen.to_string(),
            rules: args.rules.name(),
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
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for (mv, count) in &moves {
            println!("{mv}: {count}");
        }
        println!();
        println!("total: {total}");
        println!("time: {:.3} s", time_ms / 1e3);
    }
    Ok(())
}

/// The check of one depth of one suite line.
#[derive(Serialize)]
struct SuiteCheck {
    line: usize,
    position: String,
    depth: u32,
    expected: u64,
    actual: u64,
    pass: bool,
}

/// Reads the perft suite at `path` (a byte-order mark at its start is skipped), for
/// `perft --suite` and `perft-check --suite`.
///
/// # Errors
/// The file cannot be read, a line is malformed, or the suite holds no position.
pub fn read_suite(path: &Path) -> Result<Vec<SuiteEntry>> {
    let text = textfile::read_to_string(path)
        .with_context(|| format!("cannot read perft suite {}", path.display()))?;
    let entries =
        perft::parse_suite(&text).with_context(|| format!("bad perft suite {}", path.display()))?;
    if entries.is_empty() {
        bail!("perft suite {} holds no position", path.display());
    }
    Ok(entries)
}

fn run_suite(args: &PerftArgs, path: &Path) -> Result<ExitCode> {
    let entries = read_suite(path)?;
    let mut checks = Vec::new();
    let mut hint = None;
    for entry in &entries {
        let line_checks = check_entry(args, entry);
        if !args.json {
            print_entry(entry, &line_checks);
        }
        hint = hint.or_else(|| other_rules_hint(args.rules, entry, &line_checks));
        checks.extend(line_checks);
    }
    if checks.is_empty() {
        bail!(
            "nothing checked: every depth in {} is deeper than {}",
            path.display(),
            args.depth.unwrap_or_default()
        );
    }
    let failed = checks.iter().filter(|check| !check.pass).count();
    if args.json {
        #[derive(Serialize)]
        struct Report<'a> {
            suite: String,
            rules: &'a str,
            checks: Vec<SuiteCheck>,
            passed: usize,
            failed: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            hint: Option<String>,
        }
        let report = Report {
            suite: path.display().to_string(),
            rules: args.rules.name(),
            passed: checks.len() - failed,
            failed,
            checks,
            hint,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} lines, {} checks: {} passed, {failed} failed",
            entries.len(),
            checks.len(),
            checks.len() - failed
        );
        if let Some(hint) = hint {
            println!("hint: {hint}");
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        super::EXIT_FAILED.into()
    })
}

fn check_entry(args: &PerftArgs, entry: &SuiteEntry) -> Vec<SuiteCheck> {
    entry
        .expected
        .iter()
        .filter(|&&(depth, _)| args.depth.is_none_or(|max| depth <= max))
        .map(|&(depth, expected)| {
            let actual = perft::perft(&entry.position, args.rules, depth, args.options());
            SuiteCheck {
                line: entry.line,
                position: entry.position.to_string(),
                depth,
                expected,
                actual,
                pass: actual == expected,
            }
        })
        .collect()
}

/// The hint for the first (shallowest) failed check of `entry`, when another rule set gives
/// its expected count: `line 7 D1: the classic rules give that count: ...`.
fn other_rules_hint(rules: Rules, entry: &SuiteEntry, checks: &[SuiteCheck]) -> Option<String> {
    let failed = checks
        .iter()
        .filter(|check| !check.pass)
        .min_by_key(|check| check.depth)?;
    let hint = OtherRulesHint::find(&entry.position, rules, failed.depth, failed.expected)?;
    Some(format!("line {} D{}: {hint}", entry.line, failed.depth))
}

fn print_entry(entry: &SuiteEntry, checks: &[SuiteCheck]) {
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
    println!("line {}: {}  {verdict}", entry.line, entry.position);
}
