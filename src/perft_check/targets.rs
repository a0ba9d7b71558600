//! The positions perft-check checks ([`Target`]): the start position, the lines of a perft
//! suite, and positions of random games.

use crate::rules::suite::SuiteEntry;
use crate::rules::{Board, Position, Rules};

/// A position to check and the perft depth to check it at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Where the position comes from, for people: `start position`, `suite line 7`,
    /// `random game 2, ply 31`.
    pub source: String,
    /// The position.
    pub position: Position,
    /// The perft depth in plies, at least 1.
    pub depth: u32,
    /// The suite's expected count at this depth, if the target is a suite line that lists one:
    /// it must equal the reference count.
    pub expected: Option<u64>,
}

impl Target {
    /// The start position of `board` at `depth` plies (at least 1).
    pub fn start(board: Board, depth: u32) -> Target {
        Target {
            source: "start position".to_string(),
            position: Position::start(board),
            depth: depth.max(1),
            expected: None,
        }
    }

    /// One target per suite line: its deepest listed depth capped at `max_depth` (at least 1),
    /// with the line's expected count at that depth, if it lists one.
    pub fn from_suite(entries: &[SuiteEntry], max_depth: u32) -> Vec<Target> {
        entries
            .iter()
            .map(|entry| {
                let deepest = entry.expected.iter().map(|&(depth, _)| depth).max();
                let depth = deepest.unwrap_or(max_depth).min(max_depth).max(1);
                Target {
                    source: format!("suite line {}", entry.line),
                    position: entry.position,
                    depth,
                    expected: entry
                        .expected
                        .iter()
                        .find(|&&(listed_depth, _)| listed_depth == depth)
                        .map(|&(_, count)| count),
                }
            })
            .collect()
    }

    /// `count` positions at `depth` plies (at least 1), one from each of `count` games of
    /// uniformly random legal moves under `rules` from the start position of `board`, at a ply
    /// drawn uniformly among the plies after the start and before the end of the game. The same
    /// `seed` gives the same positions.
    pub fn random(rules: Rules, board: Board, count: usize, seed: u64, depth: u32) -> Vec<Target> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (1..=count)
            .map(|game| {
                let line = random_game(rules, board, &mut rng);
                let ply = if line.len() > 1 {
                    rng.usize(1..line.len())
                } else {
                    0
                };
                Target {
                    source: format!("random game {game}, ply {ply}"),
                    position: line[ply],
                    depth: depth.max(1),
                    expected: None,
                }
            })
            .collect()
    }
}

/// The positions of one game of random legal moves from the start, up to (not including) the
/// position where it ends; never empty.
pub(crate) fn random_game(rules: Rules, board: Board, rng: &mut fastrand::Rng) -> Vec<Position> {
    let mut line = Vec::new();
    let mut position = Position::start(board);
    while position.outcome(rules).is_none() {
        line.push(position);
        let moves = position.legal_moves(rules);
        let Some(mv) = moves.iter().nth(rng.usize(..moves.len())) else {
            break;
        };
        position = position.play_unchecked(mv);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::suite;

    #[test]
    fn suite_lines_are_checked_at_their_deepest_depth_up_to_the_cap() {
        let entries = suite::parse_suite(
            "startpos ;D1 8 ;D2 64 ;D3 576\n8/8/8/1p6/P7/8/8/8 w ;D7 1",
            Board::STANDARD,
        )
        .expect("a suite");
        let targets = Target::from_suite(&entries, 2);
        assert_eq!(
            targets
                .iter()
                .map(|t| (t.source.as_str(), t.depth, t.expected))
                .collect::<Vec<_>>(),
            [("suite line 1", 2, Some(64)), ("suite line 2", 2, None)]
        );
    }

    #[test]
    fn random_targets_repeat_with_their_seed_and_are_unfinished_games() {
        let targets = Target::random(Rules::CaptureOnly, Board::STANDARD, 6, 42, 3);
        assert_eq!(
            targets,
            Target::random(Rules::CaptureOnly, Board::STANDARD, 6, 42, 3)
        );
        assert_ne!(
            targets,
            Target::random(Rules::CaptureOnly, Board::STANDARD, 6, 43, 3)
        );
        for target in &targets {
            assert!(target.position.outcome(Rules::CaptureOnly).is_none());
            assert!(
                target.source.starts_with("random game "),
                "{}",
                target.source
            );
            assert_eq!(target.depth, 3);
        }
    }
}
