//! Generating opening books: random move sequences from the start position, kept when new,
//! not decided, and balanced by a short search.

use super::scorer::{Eval, Scorer};
use crate::rules::{Board, Position, Rules};
use std::collections::HashSet;
use std::fmt;
use std::fmt::Write as _;

/// The default bound on a kept position's evaluation, in centipawns.
pub const DEFAULT_MAX_EVAL: i32 = 50;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenerateOptions {
    /// The rule set the moves are drawn under and the positions are searched under.
    pub rules: Rules,
    /// The board the sequences are played on, from its start ([`Position::start`]).
    pub board: Board,
    /// The length of every sequence in plies (half-moves) from the start position.
    pub plies: u32,
    /// How many distinct openings to keep.
    pub count: usize,
    /// The seed of the move choices: the same options give the same openings.
    pub seed: u64,
    /// Keep a position only when its evaluation is within this many centipawns of equality.
    pub max_eval_cp: i32,
    /// The depth of the scoring search in plies.
    pub depth: u32,
}

impl GenerateOptions {
    /// How many random sequences are tried before giving up: 100 per opening wanted, and at
    /// least 10,000.
    pub fn max_attempts(&self) -> u64 {
        (self.count as u64).saturating_mul(100).max(10_000)
    }
}

/// One generated opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratedOpening {
    /// The position after the sequence.
    pub position: Position,
    /// Its evaluation in centipawns from White's point of view.
    pub eval_cp: i32,
    /// The length of the sequence that reached it, in plies.
    pub plies: u32,
}

impl GeneratedOpening {
    /// The book line of the opening numbered `id`:
    /// `<position> ; id "o<id>"; eval <cp>; plies <n>`.
    pub fn book_line(&self, id: usize) -> String {
        format!(
            "{} ; id \"o{id}\"; eval {}; plies {}",
            self.position, self.eval_cp, self.plies
        )
    }
}

/// How many random sequences were tried and why the rejected ones were dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenerationTally {
    /// Sequences played.
    pub attempts: u64,
    /// Sequences that reached a position already drawn (kept or rejected).
    pub repeated: u64,
    /// Sequences whose game ended on or before the last ply.
    pub decided: u64,
    /// Positions the search scored beyond the bound, or as won for one side.
    pub unbalanced: u64,
}

impl fmt::Display for GenerationTally {
    /// Reads like `1200 random sequences tried (40 repeated a position, 0 ended the game,
    /// 660 scored out of bounds)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} random sequences tried ({} repeated a position, {} ended the game, {} scored out of bounds)",
            self.attempts, self.repeated, self.decided, self.unbalanced
        )
    }
}

/// The result of [`generate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The openings in the order they were found.
    pub openings: Vec<GeneratedOpening>,
    /// The sequences tried.
    pub tally: GenerationTally,
}

/// Why generation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooFewOpenings {
    /// The count asked for.
    pub wanted: usize,
    /// The openings found.
    pub found: usize,
    /// The sequences tried, [`GenerateOptions::max_attempts`] of them.
    pub tally: GenerationTally,
}

impl fmt::Display for TooFewOpenings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "found only {} of {} openings after {}: ask for fewer, or allow more plies or a larger --max-eval",
            self.found, self.wanted, self.tally
        )
    }
}

impl std::error::Error for TooFewOpenings {}

/// Plays random sequences of `options.plies` uniformly drawn legal moves from the start
/// position (a PRNG seeded with `options.seed`) until `options.count` distinct positions are
/// kept. A position is kept when the game is not over there and a fresh search of
/// `options.depth` plies scores it within `options.max_eval_cp` centipawns of equality.
///
/// # Errors
/// [`TooFewOpenings`] when [`GenerateOptions::max_attempts`] sequences do not yield enough.
pub fn generate(options: &GenerateOptions) -> Result<Generated, TooFewOpenings> {
    let mut rng = fastrand::Rng::with_seed(options.seed);
    let mut scorer = Scorer::new(options.rules, options.depth);
    let mut seen = HashSet::new();
    let mut openings = Vec::with_capacity(options.count);
    let mut tally = GenerationTally::default();
    while openings.len() < options.count {
        if tally.attempts == options.max_attempts() {
            return Err(TooFewOpenings {
                wanted: options.count,
                found: openings.len(),
                tally,
            });
        }
        tally.attempts += 1;
        let Some(position) = random_sequence(&mut rng, options.rules, options.board, options.plies)
        else {
            tally.decided += 1;
            continue;
        };
        if !seen.insert(position) {
            tally.repeated += 1;
            continue;
        }
        match scorer.score(&position) {
            eval @ Eval::Cp(cp) if eval.is_balanced(options.max_eval_cp) => {
                openings.push(GeneratedOpening {
                    position,
                    eval_cp: cp,
                    plies: options.plies,
                })
            }
            _ => tally.unbalanced += 1,
        }
    }
    Ok(Generated { openings, tally })
}

/// The position after `plies` uniformly random legal moves from the start of `board` (drawn
/// from `rng`); `None` when the game is over on or before the last ply. `openings build` draws
/// its candidates with it too.
pub fn random_sequence(
    rng: &mut fastrand::Rng,
    rules: Rules,
    board: Board,
    plies: u32,
) -> Option<Position> {
    let mut position = Position::start(board);
    for _ in 0..plies {
        let moves = position.legal_moves(rules);
        let mv = moves.iter().nth(rng.usize(..moves.len().max(1)))?;
        position = position.play_unchecked(mv);
    }
    position.outcome(rules).is_none().then_some(position)
}

/// The text of a book: each `header` line as a `# ` comment, then one line per opening
/// ([`GeneratedOpening::book_line`], numbered from 1).
pub fn book_text(header: &[String], openings: &[GeneratedOpening]) -> String {
    let mut text = String::new();
    for line in header {
        let _ = writeln!(text, "# {line}");
    }
    for (index, opening) in openings.iter().enumerate() {
        let _ = writeln!(text, "{}", opening.book_line(index + 1));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openings::{Book, pawn_advances};
    use std::path::Path;

    fn options(rules: Rules, seed: u64) -> GenerateOptions {
        GenerateOptions {
            rules,
            board: Board::STANDARD,
            plies: 4,
            count: 30,
            seed,
            max_eval_cp: 80,
            depth: 3,
        }
    }

    #[test]
    fn generation_repeats_from_the_seed_and_differs_with_another() {
        let first = generate(&options(Rules::Classic, 7)).unwrap();
        assert_eq!(generate(&options(Rules::Classic, 7)).unwrap(), first);
        assert_ne!(generate(&options(Rules::Classic, 8)).unwrap(), first);
    }

    #[test]
    fn openings_are_distinct_playable_balanced_and_exactly_that_long() {
        for rules in Rules::ALL {
            let options = options(rules, 1);
            let generated = generate(&options).unwrap();
            assert_eq!(generated.openings.len(), options.count);
            let distinct: HashSet<Position> =
                generated.openings.iter().map(|o| o.position).collect();
            assert_eq!(distinct.len(), options.count);
            let mut scorer = Scorer::new(rules, options.depth);
            for opening in &generated.openings {
                assert_eq!(opening.position.outcome(rules), None);
                assert!(opening.eval_cp.abs() <= options.max_eval_cp);
                assert_eq!(scorer.score(&opening.position), Eval::Cp(opening.eval_cp));
                assert_eq!(opening.plies, options.plies);
                // Every ply advances one pawn one rank, and 4 plies are too few to capture.
                assert_eq!(pawn_advances(&opening.position), options.plies);
            }
            let kept = generated.openings.len() as u64;
            let tally = generated.tally;
            assert_eq!(
                tally.attempts,
                kept + tally.repeated + tally.decided + tally.unbalanced
            );
        }
    }

    #[test]
    fn the_book_text_loads_back_with_its_comments() {
        let generated = generate(&options(Rules::CaptureOnly, 3)).unwrap();
        let header = vec!["bt-arena openings generate ...".to_string()];
        let text = book_text(&header, &generated.openings);
        assert!(text.starts_with("# bt-arena openings generate ...\n"));
        let book = Book::parse(
            &text,
            Path::new("gen.epd"),
            Rules::CaptureOnly,
            crate::rules::Board::STANDARD,
        )
        .unwrap();
        assert!(book.duplicates.is_empty());
        assert_eq!(book.openings.len(), generated.openings.len());
        let first = &generated.openings[0];
        assert_eq!(book.openings[0].position, first.position);
        assert_eq!(
            book.openings[0].comment,
            format!("id \"o1\"; eval {}; plies 4", first.eval_cp)
        );
    }

    #[test]
    fn generation_gives_up_naming_the_attempts() {
        // One ply from the start reaches only 8 positions under capture-only rules.
        let options = GenerateOptions {
            plies: 1,
            count: 9,
            max_eval_cp: 10_000,
            ..options(Rules::CaptureOnly, 1)
        };
        let err = generate(&options).unwrap_err();
        assert_eq!(err.found, 8);
        assert_eq!(err.tally.attempts, 10_000);
        assert_eq!(err.tally.repeated, 10_000 - 8);
        assert!(
            err.to_string()
                .starts_with("found only 8 of 9 openings after 10000 random sequences tried")
        );
    }
}
