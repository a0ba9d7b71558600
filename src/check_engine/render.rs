//! The text report: a header, one line per check (its verdict, id and summary) with the
//! evidence of every check that did not pass indented below it, and a closing count.

use super::{CheckResult, Checklist, Verdict};
use crate::protocol::Protocol;
use crate::rules::{Board, Rules};
use std::fmt;

/// The longest sent line shown in the text report, in characters (JSON has them whole).
const MAX_SHOWN: usize = 120;
/// The width of the id column: the longest id, `handshake.options-settable`.
const ID_WIDTH: usize = 26;

/// `line` cut to [`MAX_SHOWN`] characters, saying how much was left out.
fn shown(line: &str) -> String {
    match line.char_indices().nth(MAX_SHOWN) {
        Some((at, _)) => format!(
            "{}... ({} more characters)",
            &line[..at],
            line[at..].chars().count()
        ),
        None => line.to_string(),
    }
}

/// The first line of the report: `check-engine of <name> (<id name>): <protocol>, <rules>
/// rules, seed <seed>` (the seed of the random positions and openings).
pub fn header(
    engine: &str,
    engine_id: Option<&str>,
    protocol: Protocol,
    rules: Rules,
    board: Board,
    seed: u64,
) -> String {
    let id = engine_id.map_or(String::new(), |id| format!(" ({id})"));
    let size = match board.is_standard() {
        true => String::new(),
        false => format!(", {board} board"),
    };
    format!("check-engine of {engine}{id}: {protocol}, {rules} rules{size}, seed {seed}")
}

/// One check as text: `VERDICT id  summary`, then for a check that did not pass its evidence,
/// indented: `> sent` lines and `< received (N ms)` (`< nothing` when nothing came). Every line
/// ends in a newline.
pub struct CheckLines<'a>(pub &'a CheckResult);

impl fmt::Display for CheckLines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let check = self.0;
        let label = check.verdict.label();
        writeln!(f, "{label} {:ID_WIDTH$}  {}", check.id, check.summary)?;
        let Some(evidence) = check.evidence.as_ref() else {
            return Ok(());
        };
        if check.verdict == Verdict::Pass {
            return Ok(());
        }
        for line in &evidence.sent {
            writeln!(f, "       > {}", shown(line))?;
        }
        let time = evidence
            .ms
            .map_or(String::new(), |ms| format!("  ({ms} ms)"));
        match &evidence.received {
            Some(line) => writeln!(f, "       < {}{time}", shown(line)),
            None if evidence.ms.is_some() => writeln!(f, "       < nothing{time}"),
            None => Ok(()),
        }
    }
}

impl Checklist {
    /// The closing line: the counts and the time.
    pub fn footer(&self) -> String {
        format!(
            "{} checks: {} passed, {} failed, {} warned, {} skipped ({:.1} s)",
            self.checks.len(),
            self.passed,
            self.failed,
            self.warned,
            self.skipped,
            self.total_ms as f64 / 1e3
        )
    }
}

impl fmt::Display for Checklist {
    /// The whole report: header, checks, footer.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.engine_id.as_deref();
        writeln!(
            f,
            "{}",
            header(
                &self.engine,
                id,
                self.protocol,
                self.rules,
                self.board,
                self.seed,
            )
        )?;
        for check in &self.checks {
            write!(f, "{}", CheckLines(check))?;
        }
        writeln!(f, "{}", self.footer())
    }
}
