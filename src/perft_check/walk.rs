//! The walk-down: from a position whose perft the engine miscounts, follow a miscounted move one
//! ply down at a time until the engine's divide itself shows the fault ([`Fault`]).

use super::{Checker, Fault, Problem, Target, WalkStep};
use crate::engine::{EngineError, PerftReply};
use crate::rules::perft::{self, PerftOptions};
use crate::rules::{Move, Position, Rules};
use std::collections::BTreeMap;

impl Checker<'_> {
    /// The reference divide.
    pub(super) fn reference(&self, position: &Position, depth: u32) -> Vec<(Move, u64)> {
        perft::divide(
            position,
            self.settings.rules,
            depth,
            PerftOptions::default(),
        )
    }

    /// The engine's divide.
    pub(super) fn perft(
        &mut self,
        position: &Position,
        depth: u32,
    ) -> Result<PerftReply, EngineError> {
        self.engine.perft(position, depth, self.settings.timeout)
    }

    /// The engine's divide compared with the reference.
    pub(super) fn compare(
        &self,
        position: &Position,
        reference: &[(Move, u64)],
        reply: &PerftReply,
    ) -> Comparison {
        Comparison::new(position, self.settings.rules, reference, reply)
    }

    /// Walks down from the mismatching `first` comparison at `target` to the exact fault.
    pub(super) fn walk(
        &mut self,
        target: &Target,
        first: Comparison,
    ) -> Result<Fault, EngineError> {
        let (mut position, mut depth, mut comparison) = (target.position, target.depth, first);
        let mut path: Vec<WalkStep> = Vec::new();
        loop {
            let Some((mv, step)) = comparison.next_step(depth) else {
                return Ok(Fault {
                    position: position.to_string(),
                    path,
                    depth,
                    problems: comparison.into_problems(depth),
                });
            };
            let child = position.play_unchecked(mv);
            let reference = self.reference(&child, depth - 1);
            let reply = self.perft(&child, depth - 1)?;
            let child_comparison = self.compare(&child, &reference, &reply);
            if child_comparison.is_clean() {
                let inconsistent = Problem::Inconsistent {
                    mv: step.mv,
                    listed: step.reported,
                    own_perft: reply.total,
                    expected: step.expected,
                };
                return Ok(Fault {
                    position: position.to_string(),
                    path,
                    depth,
                    problems: [inconsistent].into_iter().chain(step.bad_total).collect(),
                });
            }
            path.push(step);
            (position, depth, comparison) = (child, depth - 1, child_comparison);
        }
    }
}

/// The engine's divide compared with the reference in one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Comparison {
    /// Problems that show the fault here: illegal, missed, unparseable and duplicate moves.
    direct: Vec<Problem>,
    /// Legal moves the engine lists with a count other than the reference's, in reference
    /// order.
    miscounted: Vec<(Move, WalkStep)>,
    /// A total that is not the sum of the lines.
    bad_total: Option<Problem>,
}

/// A move the engine lists: its text, its count and how many times it is listed.
struct Listed<'a> {
    text: &'a str,
    count: u64,
    times: usize,
}

impl Comparison {
    /// Compares the engine's `reply` in `position` with the `reference` divide under `rules`
    /// (both at the same depth).
    fn new(
        position: &Position,
        rules: Rules,
        reference: &[(Move, u64)],
        reply: &PerftReply,
    ) -> Comparison {
        let (listed, mut direct) = parse_divide(reply);
        let expected: BTreeMap<Move, u64> = reference.iter().copied().collect();
        for (&mv, entry) in &listed {
            if entry.times > 1 {
                direct.push(Problem::Duplicate {
                    mv: entry.text.to_string(),
                    times: entry.times,
                });
            }
            if !expected.contains_key(&mv) {
                direct.push(Problem::Illegal {
                    mv: entry.text.to_string(),
                    count: entry.count,
                    reason: illegal_reason(position, rules, mv),
                });
            }
        }
        let mut miscounted = Vec::new();
        for &(mv, expected) in reference {
            match listed.get(&mv) {
                None => direct.push(Problem::Missed {
                    mv: mv.to_string(),
                    expected,
                    reason: legal_kind(position, mv).to_string(),
                }),
                Some(entry) if entry.count != expected => miscounted.push((
                    mv,
                    WalkStep {
                        mv: entry.text.to_string(),
                        expected,
                        reported: entry.count,
                        bad_total: None,
                    },
                )),
                Some(_) => {}
            }
        }
        let sum = reply
            .moves
            .iter()
            .fold(0u64, |sum, &(_, count)| sum.saturating_add(count));
        let bad_total = (sum != reply.total).then_some(Problem::BadTotal {
            total: reply.total,
            sum,
        });
        Comparison {
            direct,
            miscounted,
            bad_total,
        }
    }

    /// True when the engine's divide and total agree with the reference.
    pub(super) fn is_clean(&self) -> bool {
        self.direct.is_empty() && self.miscounted.is_empty() && self.bad_total.is_none()
    }

    /// The move to walk down next: when nothing here shows the fault directly and `depth` is
    /// above 1, the miscounted move the engine gave the smallest count (the cheapest subtree
    /// for it; the first in reference order among equals), with this divide's bad total.
    fn next_step(&self, depth: u32) -> Option<(Move, WalkStep)> {
        if !self.direct.is_empty() || depth <= 1 {
            return None;
        }
        let (mv, step) = self
            .miscounted
            .iter()
            .min_by_key(|(_, step)| step.reported)?;
        let bad_total = self.bad_total.clone();
        Some((
            *mv,
            WalkStep {
                bad_total,
                ..step.clone()
            },
        ))
    }

    /// Every problem found here, for a walk-down that ends here at `depth`: the direct ones,
    /// else the wrong counts when no move can be walked down (depth 1), then a bad total.
    fn into_problems(self, depth: u32) -> Vec<Problem> {
        let mut problems = self.direct;
        if problems.is_empty() && depth <= 1 {
            problems.extend(
                self.miscounted
                    .into_iter()
                    .map(|(_, step)| Problem::WrongCount {
                        mv: step.mv,
                        expected: step.expected,
                        reported: step.reported,
                    }),
            );
        }
        problems.extend(self.bad_total);
        problems
    }
}

/// The engine's divide lines by move (the first count of a move listed twice), and a problem
/// for each line whose move does not parse.
fn parse_divide(reply: &PerftReply) -> (BTreeMap<Move, Listed<'_>>, Vec<Problem>) {
    let mut listed: BTreeMap<Move, Listed<'_>> = BTreeMap::new();
    let mut unparseable = Vec::new();
    for (text, count) in &reply.moves {
        match text.parse::<Move>() {
            Ok(mv) => {
                listed
                    .entry(mv)
                    .or_insert(Listed {
                        text,
                        count: *count,
                        times: 0,
                    })
                    .times += 1;
            }
            Err(error) => unparseable.push(Problem::Unparseable {
                text: text.clone(),
                count: *count,
                error: error.to_string(),
            }),
        }
    }
    (listed, unparseable)
}

/// Why `rules` forbid `mv` in `position` (the [`crate::rules::IllegalReason`] as text).
fn illegal_reason(position: &Position, rules: Rules, mv: Move) -> String {
    match position.check_move(rules, mv) {
        Err(error) => error.reason.to_string(),
        Ok(()) => "not generated by the reference rules".to_string(),
    }
}

/// What kind of legal move `mv` is in `position`, for a move the engine missed.
fn legal_kind(position: &Position, mv: Move) -> &'static str {
    if position.is_capture(mv) {
        "legal: a capture"
    } else if mv.from.file() == mv.to.file() {
        "legal: a straight step"
    } else {
        "legal: a diagonal step to an empty square"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn position(text: &str) -> Position {
        text.parse().expect("a position")
    }

    fn reply(moves: &[(&str, u64)], total: u64) -> PerftReply {
        PerftReply {
            moves: moves.iter().map(|&(mv, n)| (mv.to_string(), n)).collect(),
            total,
            elapsed: Duration::ZERO,
        }
    }

    /// The reference divide as `(move text, count)` lines.
    fn reference_lines(position: &Position, rules: Rules, depth: u32) -> Vec<(String, u64)> {
        perft::divide(position, rules, depth, PerftOptions::default())
            .into_iter()
            .map(|(mv, n)| (mv.to_string(), n))
            .collect()
    }

    fn compare(position: &Position, rules: Rules, depth: u32, reply: &PerftReply) -> Comparison {
        let reference = perft::divide(position, rules, depth, PerftOptions::default());
        Comparison::new(position, rules, &reference, reply)
    }

    #[test]
    fn the_reference_divide_compares_clean() {
        let start = Position::startpos();
        let lines = reference_lines(&start, Rules::Classic, 3);
        let total = lines.iter().map(|(_, n)| n).sum();
        let lines: Vec<(&str, u64)> = lines.iter().map(|(m, n)| (m.as_str(), *n)).collect();
        assert!(compare(&start, Rules::Classic, 3, &reply(&lines, total)).is_clean());
    }

    #[test]
    fn illegal_missed_unparseable_and_duplicate_moves_are_named() {
        // White a4 facing Black b5: a4a5 (straight) and a4b5 (capture) are legal.
        let here = position("8/8/8/1p6/P7/8/8/8 w");
        let engine = reply(&[("a4a5", 1), ("a4a5", 1), ("a4b4", 1), ("a4-b5", 1)], 4);
        let comparison = compare(&here, Rules::CaptureOnly, 1, &engine);
        assert_eq!(
            comparison.direct,
            [
                Problem::Unparseable {
                    text: "a4-b5".into(),
                    count: 1,
                    error: "bad move 'a4-b5': expected four characters like 'a2a3' \
                            (from square, to square)"
                        .into(),
                },
                Problem::Illegal {
                    mv: "a4b4".into(),
                    count: 1,
                    reason: "not one step forward for White".into(),
                },
                Problem::Duplicate {
                    mv: "a4a5".into(),
                    times: 2
                },
                Problem::Missed {
                    mv: "a4b5".into(),
                    expected: 1,
                    reason: "legal: a capture".into(),
                },
            ]
        );
        assert_eq!(comparison.next_step(1), None);
    }

    #[test]
    fn a_total_that_is_not_the_sum_is_a_problem_even_when_the_lines_match() {
        let start = Position::startpos();
        let lines = reference_lines(&start, Rules::CaptureOnly, 2);
        let lines: Vec<(&str, u64)> = lines.iter().map(|(m, n)| (m.as_str(), *n)).collect();
        let comparison = compare(&start, Rules::CaptureOnly, 2, &reply(&lines, 65));
        assert!(!comparison.is_clean());
        assert_eq!(comparison.next_step(2), None);
        assert_eq!(
            comparison.into_problems(2),
            [Problem::BadTotal { total: 65, sum: 64 }]
        );
    }

    #[test]
    fn the_walk_follows_the_smallest_miscount_and_depth_one_names_wrong_counts() {
        let start = Position::startpos();
        let mut lines = reference_lines(&start, Rules::CaptureOnly, 2);
        lines[0].1 = 9; // a2a3
        lines[3].1 = 7; // d2d3
        let total = lines.iter().map(|(_, n)| n).sum();
        let lines: Vec<(&str, u64)> = lines.iter().map(|(m, n)| (m.as_str(), *n)).collect();
        let comparison = compare(&start, Rules::CaptureOnly, 2, &reply(&lines, total));
        let (mv, step) = comparison.next_step(2).expect("a move to walk down");
        assert_eq!(
            (mv.to_string(), step.expected, step.reported),
            ("d2d3".into(), 8, 7)
        );
        assert_eq!(
            comparison.into_problems(1)[0],
            Problem::WrongCount {
                mv: "a2a3".into(),
                expected: 8,
                reported: 9
            }
        );
    }

    #[test]
    fn moves_in_a_finished_game_are_illegal_because_it_is_over() {
        let over = position("P7/8/8/8/8/8/7p/8 b");
        let comparison = compare(&over, Rules::CaptureOnly, 1, &reply(&[("h2h1", 1)], 1));
        assert_eq!(
            comparison.direct,
            [Problem::Illegal {
                mv: "h2h1".into(),
                count: 1,
                reason: "the game is already over: White reached rank 8".into(),
            }]
        );
    }
}
