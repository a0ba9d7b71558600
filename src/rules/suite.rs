//! Perft suites: one position a line with the expected perft count at each listed depth,
//! `<position> ;D1 <count> ;D2 <count> ...`, as chess perft suites. Read one with
//! [`read_suite`] (or [`parse_suite`] from text) and check it against the reference rules with
//! [`check_suite`].

use super::perft::{PerftOptions, perft};
use super::{Board, Position, PositionError, Rules};
use crate::textfile;
use serde::Serialize;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// One line of a perft suite: a position and the expected count at each listed depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteEntry {
    /// The 1-based line number in the suite file.
    pub line: usize,
    /// The position.
    pub position: Position,
    /// `(depth in plies, expected leaf count)`, in file order.
    pub expected: Vec<(u32, u64)>,
}

/// A suite line that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteError {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: SuiteErrorReason,
}

/// What is wrong with a suite line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SuiteErrorReason {
    /// The position is not valid.
    Position(PositionError),
    /// A field after the position is not of the form `D<depth> <count>`.
    BadField(String),
    /// The line lists no depth.
    NoDepths,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.reason {
            SuiteErrorReason::Position(err) => write!(f, "bad position: {err}"),
            SuiteErrorReason::BadField(field) => {
                write!(
                    f,
                    "bad field '{field}' (expected 'D<depth> <count>', e.g. 'D3 576')"
                )
            }
            SuiteErrorReason::NoDepths => write!(f, "no ';D<depth> <count>' fields"),
        }
    }
}

impl std::error::Error for SuiteError {}

/// Parses a perft suite of positions of `board`: one `<position> ;D1 <count> ;D2 <count> ...`
/// per line; blank lines and lines starting with `#` are skipped.
///
/// # Errors
/// The first bad line, with its number and what is wrong with it (a position of another
/// board's shape among them).
pub fn parse_suite(text: &str, board: Board) -> Result<Vec<SuiteEntry>, SuiteError> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(line, text)| {
            parse_suite_line(text, board)
                .map_err(|reason| SuiteError { line, reason })
                .map(|(position, expected)| SuiteEntry {
                    line,
                    position,
                    expected,
                })
        })
        .collect()
}

/// The hint for a suite count that the rule set in force does not give but another rule set
/// does: the suite was most likely written for that rule set. Its text, `the classic rules give
/// that count: a suite for classic rules? (try --rules classic)`, is shared by `perft --suite`
/// and `perft-check --suite`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherRulesHint(pub Rules);

impl OtherRulesHint {
    /// The hint for a suite that lists `listed` leaves `depth` plies below `position`, a count
    /// `rules` do not give: the first other rule set that gives it, or `None` when none does
    /// (the count is wrong, or the generator is). Costs one perft per other rule set.
    pub fn find(position: &Position, rules: Rules, depth: u32, listed: u64) -> Option<Self> {
        Rules::ALL
            .into_iter()
            .filter(|&other| other != rules)
            .find(|&other| perft(position, other, depth, PerftOptions::default()) == listed)
            .map(OtherRulesHint)
    }
}

impl fmt::Display for OtherRulesHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules = self.0;
        write!(
            f,
            "the {rules} rules give that count: a suite for {rules} rules? (try --rules {rules})"
        )
    }
}

/// Why a perft suite file cannot be used.
#[derive(Debug)]
pub enum SuiteFileError {
    /// The file cannot be read, or is not UTF-8.
    Read {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        source: io::Error,
    },
    /// A line is malformed.
    Parse {
        /// The file.
        path: PathBuf,
        /// The first bad line.
        source: SuiteError,
    },
    /// The file holds no position (only blank lines and comments).
    Empty {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for SuiteFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteFileError::Read { path, .. } => {
                write!(f, "cannot read perft suite {}", path.display())
            }
            SuiteFileError::Parse { path, .. } => {
                write!(f, "bad perft suite {}", path.display())
            }
            SuiteFileError::Empty { path } => {
                write!(f, "perft suite {} holds no position", path.display())
            }
        }
    }
}

impl std::error::Error for SuiteFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SuiteFileError::Read { source, .. } => Some(source),
            SuiteFileError::Parse { source, .. } => Some(source),
            SuiteFileError::Empty { .. } => None,
        }
    }
}

/// Reads the perft suite of positions of `board` at `path` (a byte-order mark at its start is
/// skipped), for `perft --suite` and `perft-check --suite`.
///
/// # Errors
/// [`SuiteFileError`]: the file cannot be read, a line is malformed (a position of another
/// board among them), or the suite holds no position.
pub fn read_suite(path: &Path, board: Board) -> Result<Vec<SuiteEntry>, SuiteFileError> {
    let text = textfile::read_to_string(path).map_err(|source| SuiteFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let entries = parse_suite(&text, board).map_err(|source| SuiteFileError::Parse {
        path: path.to_path_buf(),
        source,
    })?;
    if entries.is_empty() {
        return Err(SuiteFileError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(entries)
}

/// The check of one listed depth of a suite line: the suite's expected count against the
/// count of the reference rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DepthCheck {
    /// The 1-based line number in the suite file.
    pub line: usize,
    /// The position (serialized as its FEN).
    pub position: Position,
    /// The depth in plies.
    pub depth: u32,
    /// The suite's expected count.
    pub expected: u64,
    /// The count of the reference rules.
    pub actual: u64,
    /// True when the two counts are equal.
    pub pass: bool,
}

/// The hint for a failed suite line whose expected count another rule set gives, at the line's
/// shallowest failed depth: `line 7 D1: the classic rules give that count: ...`. Serialized as
/// that text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuiteHint {
    /// The 1-based line number in the suite file.
    pub line: usize,
    /// The depth in plies.
    pub depth: u32,
    /// The rule set that gives the expected count.
    pub hint: OtherRulesHint,
}

impl fmt::Display for SuiteHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} D{}: {}", self.line, self.depth, self.hint)
    }
}

impl Serialize for SuiteHint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The check of a perft suite against the reference rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SuiteCheck {
    /// The rule set of the reference counts.
    pub rules: Rules,
    /// Every depth checked, line by line, each line's depths in file order.
    pub checks: Vec<DepthCheck>,
    /// How many checks passed.
    pub passed: usize,
    /// How many failed.
    pub failed: usize,
    /// The hint of the first failed line whose expected count another rule set gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<SuiteHint>,
    /// How many suite lines were checked (not in the JSON).
    #[serde(skip)]
    pub lines: usize,
}

/// Checks every line of a suite under `rules`: each listed depth up to `max_depth` (every
/// listed depth when `None`), counted with `options`. Calls `on_line` with each line and its
/// checks (none when every depth of the line is deeper than `max_depth`) as soon as the line
/// is checked.
pub fn check_suite(
    entries: &[SuiteEntry],
    rules: Rules,
    max_depth: Option<u32>,
    options: PerftOptions,
    mut on_line: impl FnMut(&SuiteEntry, &[DepthCheck]),
) -> SuiteCheck {
    let mut checks = Vec::new();
    let mut hint = None;
    for entry in entries {
        let line_checks = check_entry(entry, rules, max_depth, options);
        on_line(entry, &line_checks);
        hint = hint.or_else(|| other_rules_hint(rules, entry, &line_checks));
        checks.extend(line_checks);
    }
    let failed = checks.iter().filter(|check| !check.pass).count();
    SuiteCheck {
        rules,
        passed: checks.len() - failed,
        failed,
        checks,
        hint,
        lines: entries.len(),
    }
}

/// The checks of the depths of `entry` up to `max_depth`.
fn check_entry(
    entry: &SuiteEntry,
    rules: Rules,
    max_depth: Option<u32>,
    options: PerftOptions,
) -> Vec<DepthCheck> {
    entry
        .expected
        .iter()
        .filter(|&&(depth, _)| max_depth.is_none_or(|max| depth <= max))
        .map(|&(depth, expected)| {
            let actual = perft(&entry.position, rules, depth, options);
            DepthCheck {
                line: entry.line,
                position: entry.position,
                depth,
                expected,
                actual,
                pass: actual == expected,
            }
        })
        .collect()
}

/// The hint for the first (shallowest) failed check of `entry`, when another rule set gives
/// its expected count.
fn other_rules_hint(rules: Rules, entry: &SuiteEntry, checks: &[DepthCheck]) -> Option<SuiteHint> {
    let failed = checks
        .iter()
        .filter(|check| !check.pass)
        .min_by_key(|check| check.depth)?;
    let hint = OtherRulesHint::find(&entry.position, rules, failed.depth, failed.expected)?;
    Some(SuiteHint {
        line: entry.line,
        depth: failed.depth,
        hint,
    })
}

fn parse_suite_line(
    text: &str,
    board: Board,
) -> Result<(Position, Vec<(u32, u64)>), SuiteErrorReason> {
    let mut fields = text.split(';');
    let position = Position::from_fen(fields.next().unwrap_or_default(), board)
        .map_err(SuiteErrorReason::Position)?;
    let expected = fields
        .map(parse_depth_field)
        .collect::<Result<Vec<_>, _>>()?;
    if expected.is_empty() {
        return Err(SuiteErrorReason::NoDepths);
    }
    Ok((position, expected))
}

fn parse_depth_field(field: &str) -> Result<(u32, u64), SuiteErrorReason> {
    let bad = || SuiteErrorReason::BadField(field.trim().to_string());
    let (depth, count) = field.trim().split_once(' ').ok_or_else(bad)?;
    let depth = depth.strip_prefix('D').ok_or_else(bad)?;
    Ok((
        depth.parse().map_err(|_| bad())?,
        count.trim().parse().map_err(|_| bad())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_lines_parse_with_or_without_spaces_around_fields() {
        let suite = "# comment\n\nstartpos ;D1 8 ;D2 64\n8/8/8/1p6/P7/8/8/8 w;D1 2;D2 1\n";
        let entries = parse_suite(suite, Board::STANDARD).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].line, 3);
        assert_eq!(entries[0].expected, vec![(1, 8), (2, 64)]);
        assert_eq!(entries[1].line, 4);
        assert_eq!(entries[1].position.to_string(), "8/8/8/1p6/P7/8/8/8 w");
    }

    #[test]
    fn bad_suite_lines_are_named() {
        let error = |text: &str| parse_suite(text, Board::STANDARD).unwrap_err();
        assert_eq!(
            error("startpos ;D1 8\nstartpos ;X1 8"),
            SuiteError {
                line: 2,
                reason: SuiteErrorReason::BadField("X1 8".into())
            }
        );
        assert_eq!(
            error("startpos ;D1 eight").reason,
            SuiteErrorReason::BadField("D1 eight".into())
        );
        assert_eq!(
            error("startpos ;D1").reason,
            SuiteErrorReason::BadField("D1".into())
        );
        assert_eq!(error("startpos").reason, SuiteErrorReason::NoDepths);
        assert_eq!(
            error("8/8 w ;D1 1").reason,
            SuiteErrorReason::Position(PositionError::RankCount {
                found: 2,
                board: Board::STANDARD,
            })
        );
        assert_eq!(
            error("\n\nstartpos ;D1 x").to_string(),
            "line 3: bad field 'D1 x' (expected 'D<depth> <count>', e.g. 'D3 576')"
        );
    }

    #[test]
    fn a_count_of_the_other_rule_set_names_it() {
        let start = Position::startpos();
        let hint = OtherRulesHint::find(&start, Rules::CaptureOnly, 2, 484);
        assert_eq!(hint, Some(OtherRulesHint(Rules::Classic)));
        assert_eq!(
            hint.unwrap().to_string(),
            "the classic rules give that count: a suite for classic rules? (try --rules classic)"
        );
        assert_eq!(
            OtherRulesHint::find(&start, Rules::Classic, 2, 64),
            Some(OtherRulesHint(Rules::CaptureOnly))
        );
        assert_eq!(OtherRulesHint::find(&start, Rules::Classic, 2, 65), None);
    }

    #[test]
    fn a_suite_is_checked_line_by_line_up_to_the_depth_cap() {
        let entries = parse_suite(
            "startpos ;D1 8 ;D2 65 ;D3 576\n\
             pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP b ;D1 22 ;D2 484\n\
             8/8/8/1p6/P7/8/8/8 w ;D4 1",
            Board::STANDARD,
        )
        .unwrap();
        let mut seen = Vec::new();
        let check = check_suite(
            &entries,
            Rules::CaptureOnly,
            Some(2),
            PerftOptions::default(),
            |entry, checks| seen.push((entry.line, checks.len())),
        );
        assert_eq!(seen, [(1, 2), (2, 2), (3, 0)]);
        let counts: Vec<_> = check
            .checks
            .iter()
            .map(|c| (c.line, c.depth, c.expected, c.actual, c.pass))
            .collect();
        assert_eq!(
            counts,
            [
                (1, 1, 8, 8, true),
                (1, 2, 65, 64, false),
                (2, 1, 22, 8, false),
                (2, 2, 484, 64, false),
            ]
        );
        assert_eq!((check.passed, check.failed, check.lines), (1, 3, 3));
        // Line 1's 65 is no rule set's count; line 2 is a classic line, named at its D1.
        let hint = check.hint.expect("a hint");
        assert_eq!(
            hint.to_string(),
            "line 2 D1: the classic rules give that count: a suite for classic rules? \
             (try --rules classic)"
        );
        let json = serde_json::to_value(&check).unwrap();
        assert_eq!(json["rules"], "capture-only");
        assert_eq!(
            json["checks"][0]["position"],
            "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w"
        );
        assert_eq!(json["hint"], hint.to_string());
        assert_eq!(json.get("lines"), None);
        let all = check_suite(
            &entries[..1],
            Rules::CaptureOnly,
            None,
            PerftOptions::default(),
            |_, _| {},
        );
        assert_eq!((all.checks.len(), all.hint), (3, None));
        assert_eq!(serde_json::to_value(&all).unwrap().get("hint"), None);
    }

    #[test]
    fn suite_files_that_cannot_be_used_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.epd");
        let error = read_suite(&missing, Board::STANDARD).unwrap_err();
        assert!(matches!(error, SuiteFileError::Read { .. }), "{error:?}");
        assert_eq!(
            error.to_string(),
            format!("cannot read perft suite {}", missing.display())
        );
        let bad = dir.path().join("bad.epd");
        std::fs::write(&bad, "startpos ;D1 8\nstartpos ;D2 x\n").unwrap();
        let error = read_suite(&bad, Board::STANDARD).unwrap_err();
        let cause = std::error::Error::source(&error).map(ToString::to_string);
        assert_eq!(
            cause.as_deref(),
            Some("line 2: bad field 'D2 x' (expected 'D<depth> <count>', e.g. 'D3 576')")
        );
        let empty = dir.path().join("empty.epd");
        std::fs::write(&empty, "\u{feff}# nothing\n\n").unwrap();
        assert_eq!(
            read_suite(&empty, Board::STANDARD).unwrap_err().to_string(),
            format!("perft suite {} holds no position", empty.display())
        );
        let bom = dir.path().join("bom.epd");
        std::fs::write(&bom, "\u{feff}startpos ;D1 8\n").unwrap();
        assert_eq!(
            read_suite(&bom, Board::STANDARD).unwrap()[0].position,
            Position::startpos()
        );
    }
}
