//! Perft suites: one position a line with the expected perft count at each listed depth,
//! `<position> ;D1 <count> ;D2 <count> ...`, as chess perft suites.

use super::perft::{PerftOptions, perft};
use super::{Position, PositionError, Rules};
use std::fmt;

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

/// Parses a perft suite: one `<position> ;D1 <count> ;D2 <count> ...` per line; blank lines and
/// lines starting with `#` are skipped.
///
/// # Errors
/// The first bad line, with its number and what is wrong with it.
pub fn parse_suite(text: &str) -> Result<Vec<SuiteEntry>, SuiteError> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(line, text)| {
            parse_suite_line(text)
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

fn parse_suite_line(text: &str) -> Result<(Position, Vec<(u32, u64)>), SuiteErrorReason> {
    let mut fields = text.split(';');
    let position = fields
        .next()
        .unwrap_or_default()
        .parse()
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
        let entries = parse_suite(suite).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].line, 3);
        assert_eq!(entries[0].expected, vec![(1, 8), (2, 64)]);
        assert_eq!(entries[1].line, 4);
        assert_eq!(entries[1].position.to_string(), "8/8/8/1p6/P7/8/8/8 w");
    }

    #[test]
    fn bad_suite_lines_are_named() {
        let error = |text: &str| parse_suite(text).unwrap_err();
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
            SuiteErrorReason::Position(PositionError::RankCount { found: 2 })
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
}
