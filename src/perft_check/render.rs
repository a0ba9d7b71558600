//! The renderings of a perft-check's findings, apart from its computation: [`Text`] for people,
//! written as the check goes (a header, each position as soon as it is checked, a summary), and
//! [`Json`], the whole [`PerftCheckFindings`] at the end. Also here: the text of a [`Problem`],
//! which the text rendering and `check-engine` both show.

use super::{Fault, PerftCheckFindings, PositionFindings, Problem};
use crate::rules::{Board, Rules};
use std::fmt;

/// What the first line of the text rendering says, known before any position is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The engine's configured name.
    pub engine: &'a str,
    /// The name the engine gave (`id name`), if any.
    pub engine_id: Option<&'a str>,
    /// The rule set.
    pub rules: Rules,
    /// The board size.
    pub board: Board,
    /// How many positions will be checked.
    pub positions: usize,
    /// The seed of the random games, when some positions come from them.
    pub seed: Option<u64>,
}

/// A rendering of the findings, in three parts so that text can be written while the
/// check goes on. Each part is the exact text to write (possibly empty), ending in a newline.
pub trait Render {
    /// What is written before the first position is checked.
    fn header(&self, header: &Header<'_>) -> String;
    /// What is written as soon as one position is checked.
    fn position(&self, report: &PositionFindings) -> String;
    /// What is written when every position is checked.
    fn report(&self, report: &PerftCheckFindings) -> String;
}

/// The text rendering: the header line, a verdict line per position (with the walk-down, the
/// fault and the bestmove, indented, when it failed), and a summary line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Text;

/// The JSON rendering: the whole [`PerftCheckFindings`], pretty-printed, at the end; nothing before.
#[derive(Clone, Copy, Debug, Default)]
pub struct Json;

impl Render for Text {
    fn header(&self, header: &Header<'_>) -> String {
        let id = header
            .engine_id
            .map_or(String::new(), |id| format!(" ({id})"));
        let positions = header.positions;
        let seed = header.seed.map_or(String::new(), |seed| {
            format!(", random games seeded {seed}")
        });
        let on = if header.board.is_standard() {
            String::new()
        } else {
            format!(" on {}", header.board)
        };
        format!(
            "perft-check of {}{id}{on} under {} rules: {positions} position{}{seed}\n",
            header.engine,
            header.rules,
            if positions == 1 { "" } else { "s" }
        )
    }

    fn position(&self, report: &PositionFindings) -> String {
        PositionText(report).to_string()
    }

    fn report(&self, report: &PerftCheckFindings) -> String {
        SummaryText(report).to_string()
    }
}

impl Render for Json {
    fn header(&self, _: &Header<'_>) -> String {
        String::new()
    }

    fn position(&self, _: &PositionFindings) -> String {
        String::new()
    }

    fn report(&self, report: &PerftCheckFindings) -> String {
        // Every field is a string, a number, a bool, an option or a list of those: serde_json
        // cannot fail on it.
        let json = serde_json::to_string_pretty(report).expect("a report serializes to JSON");
        json + "\n"
    }
}

/// The text of one position's check.
struct PositionText<'a>(&'a PositionFindings);

/// The closing summary line of the text rendering.
struct SummaryText<'a>(&'a PerftCheckFindings);

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Illegal { mv, count, reason } => {
                write!(f, "lists {mv} ({count}), which is illegal: {reason}")
            }
            Problem::Missed {
                mv,
                expected,
                reason,
            } => write!(f, "misses {mv} (expected {expected}), {reason}"),
            Problem::Unparseable { text, count, error } => {
                write!(f, "lists '{text}' ({count}), which is not a move: {error}")
            }
            Problem::Duplicate { mv, times } => write!(f, "lists {mv} {times} times"),
            Problem::WrongCount {
                mv,
                expected,
                reported,
            } => write!(f, "counts {reported} under {mv}, expected {expected}"),
            Problem::Inconsistent {
                mv,
                listed,
                own_perft,
                expected,
            } => write!(
                f,
                "counts {listed} under {mv} (expected {expected}), but its own perft after \
                 {mv} totals {own_perft}: the engine contradicts itself"
            ),
            Problem::BadTotal { total, sum } => write!(
                f,
                "reports a total of {total}, but its divide lines sum to {sum}"
            ),
        }
    }
}

impl fmt::Display for PositionText<'_> {
    /// Writes a line with the verdict and counts, then (on a failure) the walk-down, the fault
    /// and the bestmove, indented; every line ends in a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = self.0;
        let verdict = if report.passed() { "ok  " } else { "FAIL" };
        write!(
            f,
            "{verdict} {}: {} depth {}: {} (first perft {:.3} s",
            report.source,
            report.position,
            report.depth,
            counts(report.expected, report.reported, report.fault.is_some()),
            report.first_perft_ms / 1e3
        )?;
        if report.fault.is_some() {
            write!(f, ", walk-down {:.3} s", report.walk_ms / 1e3)?;
        }
        writeln!(f, ")")?;
        if let Some(fault) = &report.fault {
            write_fault(f, fault)?;
        }
        match &report.bestmove.problem {
            Some(problem) => writeln!(f, "  bestmove {}: {problem}", report.bestmove.mv),
            None if report.fault.is_some() => writeln!(f, "  bestmove {}: ok", report.bestmove.mv),
            None => Ok(()),
        }
    }
}

/// What the counts say: `expected 5, engine 6`; when the totals agree though a fault was
/// found below them, `total 5 as expected, but the moves differ` (a headline of `expected 1,
/// engine 1` read as a pass).
pub(crate) fn counts(expected: u64, reported: u64, fault: bool) -> String {
    match expected == reported && fault {
        true => format!("total {expected} as expected, but the moves differ"),
        false => format!("expected {expected}, engine {reported}"),
    }
}

/// Writes the walk-down and the problems of `fault`, indented.
fn write_fault(f: &mut fmt::Formatter<'_>, fault: &Fault) -> fmt::Result {
    for step in &fault.path {
        writeln!(
            f,
            "  walk-down {}: expected {}, engine {}",
            step.mv, step.expected, step.reported
        )?;
        if let Some(problem) = &step.bad_total {
            writeln!(f, "    and the engine {problem}")?;
        }
    }
    let after = if fault.path.is_empty() {
        "in the checked position".to_string()
    } else {
        format!("after {}", fault.path_moves())
    };
    writeln!(
        f,
        "  fault {after}: {} depth {}",
        fault.position, fault.depth
    )?;
    for problem in &fault.problems {
        writeln!(f, "    the engine {problem}")?;
    }
    Ok(())
}

impl fmt::Display for SummaryText<'_> {
    /// Writes the closing summary line (the positions are printed as they are checked).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = self.0;
        let count = report.positions.len();
        writeln!(
            f,
            "{count} position{} checked: {} passed, {} failed; first perfts {:.3} s, \
             walk-downs {:.3} s, total {:.3} s",
            if count == 1 { "" } else { "s" },
            report.passed,
            report.failed,
            report.first_perft_ms / 1e3,
            report.walk_ms / 1e3,
            report.total_ms / 1e3
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft_check::{BestMove, WalkStep};

    /// A failed check: one step down, where the engine misses a capture and its total is off.
    fn failed() -> PositionFindings {
        PositionFindings {
            source: "suite line 3".into(),
            position: "8/8/8/1p6/P7/8/8/8 w".into(),
            depth: 2,
            expected: 3,
            reported: 2,
            first_perft_ms: 1500.0,
            walk_ms: 250.0,
            total_ms: 2000.0,
            fault: Some(Fault {
                position: "8/8/8/1p6/8/P7/8/8 b".into(),
                path: vec![WalkStep {
                    mv: "a4a5".into(),
                    expected: 2,
                    reported: 1,
                    bad_total: Some(Problem::BadTotal { total: 3, sum: 2 }),
                }],
                depth: 1,
                problems: vec![Problem::Missed {
                    mv: "b5a4".into(),
                    expected: 1,
                    reason: "legal: a capture".into(),
                }],
            }),
            bestmove: BestMove {
                mv: "a4a5".into(),
                problem: None,
            },
        }
    }

    fn passed() -> PositionFindings {
        PositionFindings {
            source: "start position".into(),
            position: "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w".into(),
            depth: 1,
            expected: 8,
            reported: 8,
            first_perft_ms: 1.0,
            walk_ms: 0.0,
            total_ms: 2.0,
            fault: None,
            bestmove: BestMove {
                mv: "a2a3".into(),
                problem: None,
            },
        }
    }

    fn report(positions: Vec<PositionFindings>) -> PerftCheckFindings {
        PerftCheckFindings {
            engine: "faulty".into(),
            engine_id: Some("bt-faulty".into()),
            rules: Rules::CaptureOnly,
            seed: Some(7),
            passed: 1,
            failed: positions.len() - 1,
            first_perft_ms: 1501.0,
            walk_ms: 250.0,
            total_ms: 2002.6,
            positions,
        }
    }

    #[test]
    fn text_shows_the_walk_down_the_fault_and_the_bestmove_of_a_failed_position() {
        assert_eq!(
            Text.position(&failed()),
            "FAIL suite line 3: 8/8/8/1p6/P7/8/8/8 w depth 2: expected 3, engine 2 \
             (first perft 1.500 s, walk-down 0.250 s)\n\
             \x20 walk-down a4a5: expected 2, engine 1\n\
             \x20   and the engine reports a total of 3, but its divide lines sum to 2\n\
             \x20 fault after a4a5: 8/8/8/1p6/8/P7/8/8 b depth 1\n\
             \x20   the engine misses b5a4 (expected 1), legal: a capture\n\
             \x20 bestmove a4a5: ok\n"
        );
        let mut wrong_bestmove = passed();
        wrong_bestmove.bestmove.problem = Some("illegal: no White pawn on a4".into());
        assert_eq!(
            Text.position(&wrong_bestmove),
            "FAIL start position: pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w depth 1: \
             expected 8, engine 8 (first perft 0.001 s)\n\
             \x20 bestmove a2a3: illegal: no White pawn on a4\n"
        );
    }

    #[test]
    fn text_has_a_header_one_line_per_passed_position_and_a_summary() {
        let header = Header {
            engine: "faulty",
            engine_id: Some("bt-faulty"),
            rules: Rules::Classic,
            board: Board::STANDARD,
            positions: 2,
            seed: Some(7),
        };
        assert_eq!(
            Text.header(&header),
            "perft-check of faulty (bt-faulty) under classic rules: 2 positions, \
             random games seeded 7\n"
        );
        let alone = Header {
            engine_id: None,
            positions: 1,
            seed: None,
            ..header
        };
        assert_eq!(
            Text.header(&alone),
            "perft-check of faulty under classic rules: 1 position\n"
        );
        assert_eq!(
            Text.position(&passed()),
            "ok   start position: pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w depth 1: \
             expected 8, engine 8 (first perft 0.001 s)\n"
        );
        assert_eq!(
            Text.report(&report(vec![passed(), failed()])),
            "2 positions checked: 1 passed, 1 failed; first perfts 1.501 s, walk-downs \
             0.250 s, total 2.003 s\n"
        );
    }

    #[test]
    fn json_is_the_whole_report_at_the_end_and_nothing_before() {
        let header = Header {
            engine: "faulty",
            engine_id: None,
            rules: Rules::CaptureOnly,
            board: Board::STANDARD,
            positions: 2,
            seed: None,
        };
        assert_eq!(Json.header(&header), "");
        assert_eq!(Json.position(&failed()), "");
        let text = Json.report(&report(vec![passed(), failed()]));
        assert!(text.ends_with("}\n"), "{text}");
        let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(json["engine_id"], "bt-faulty");
        assert_eq!(json["rules"], "capture-only");
        assert_eq!(json["seed"], 7);
        let fault = &json["positions"][1]["fault"];
        assert_eq!(fault["path"][0]["move"], "a4a5");
        assert_eq!(fault["path"][0]["bad_total"]["kind"], "bad-total");
        assert_eq!(fault["problems"][0]["kind"], "missed");
        assert_eq!(fault["problems"][0]["move"], "b5a4");
        assert!(json["positions"][0]["fault"].is_null());
        assert!(json["positions"][0]["bestmove"]["problem"].is_null());
    }
}
