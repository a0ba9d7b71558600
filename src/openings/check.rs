//! Checking opening books: size, duplicates, the spread of evaluations and of plies, and the
//! side to move.

use super::scorer::{Eval, Scorer};
use super::{Book, Opening, duplicate_lines};
use crate::rules::{Board, Color, Position, Rules};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// The statistics of a book ([`check`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BookReport {
    /// The book file.
    pub file: PathBuf,
    /// The rule set it was loaded and searched under.
    pub rules: Rules,
    /// The board of its positions (left out of the JSON on 8×8; 8×8 for an empty book).
    #[serde(skip_serializing_if = "is_standard")]
    pub board: Board,
    /// The number of openings.
    pub count: usize,
    /// Pairs of 1-based line numbers `(first, repeat)` holding the same position.
    pub duplicates: Vec<(usize, usize)>,
    /// The evaluations by a short search.
    pub eval: EvalSpread,
    /// The plies from the start position.
    pub plies: PlySpread,
    /// Openings with White to move.
    pub white_to_move: usize,
    /// Openings with Black to move.
    pub black_to_move: usize,
}

/// The minimum, maximum, mean and (population) standard deviation of some values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// The smallest value.
    pub min: i64,
    /// The largest value.
    pub max: i64,
    /// The mean.
    pub mean: f64,
    /// The standard deviation (over the values themselves, not a sample estimate).
    pub stddev: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(values: &[i64]) -> Option<Spread> {
        let (min, max) = (*values.iter().min()?, *values.iter().max()?);
        let n = values.len() as f64;
        let mean = values.iter().sum::<i64>() as f64 / n;
        let variance = values
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        Some(Spread {
            min,
            max,
            mean,
            stddev: variance.sqrt(),
        })
    }
}

impl fmt::Display for Spread {
    /// `min -60, max 58, mean 3.1, stddev 29.4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "min {}, max {}, mean {:.1}, stddev {:.1}",
            self.min, self.max, self.mean, self.stddev
        )
    }
}

/// The evaluations of a book's openings, in centipawns from White's point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalSpread {
    /// The depth of the search in plies.
    pub depth: u32,
    /// The spread of the centipawn evaluations; `None` when every opening is proven won.
    pub cp: Option<Spread>,
    /// The share (0 to 1) of all openings evaluated within ±50 centipawns.
    pub within_50: f64,
    /// The share (0 to 1) of all openings evaluated within ±100 centipawns.
    pub within_100: f64,
    /// Openings the search proves won for one side.
    pub proven: Vec<ProvenOpening>,
}

/// An opening the search proves won.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProvenOpening {
    /// Its 1-based line number.
    pub line: usize,
    /// The winner: `White` or `Black`.
    pub winner: String,
}

/// Where an opening's ply count comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PlySource {
    /// A `plies N` field in its comment.
    Comment,
    /// Counted by [`pawn_advances`].
    Counted,
}

/// The lengths of a book's openings in plies from the start position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlySpread {
    /// Openings whose comment gives `plies N`.
    pub from_comments: usize,
    /// Openings without it, whose plies are counted by [`pawn_advances`] (exact when no pawn
    /// was captured, a lower bound otherwise).
    pub counted: usize,
    /// The spread of the ply counts; `None` for a book without openings.
    pub spread: Option<Spread>,
    /// Openings per ply count.
    pub histogram: BTreeMap<u32, usize>,
}

/// True for 8×8, which a report's JSON leaves out.
fn is_standard(board: &Board) -> bool {
    board.is_standard()
}

/// Ranks advanced by both sides' pawns since the start position of the position's board.
/// Every ply advances one pawn one rank, so this is the number of plies played when no pawn
/// was captured, and a lower bound otherwise.
pub fn pawn_advances(position: &Position) -> u32 {
    let rank_sum = |pawns: u64| -> i64 {
        (0..8)
            .map(|rank| rank * i64::from((pawns >> (8 * rank) & 0xFF).count_ones()))
            .sum()
    };
    // At the start, White's pawns on ranks 1-2 (0-based 0 and 1) have a rank sum of one per
    // file (8 on 8 files), and so do Black's counted from the top rank. Each ply adds one to
    // the mover's sum.
    let board = position.board();
    let (files, top) = (i64::from(board.files()), i64::from(board.ranks()) - 1);
    let white = rank_sum(position.pawns(Color::White)) - files;
    let black = top * i64::from(position.pawns(Color::Black).count_ones())
        - rank_sum(position.pawns(Color::Black))
        - files;
    u32::try_from(white.max(0) + black.max(0)).unwrap_or(0)
}

/// The statistics of `book` (loaded under `rules`), its openings scored by a fresh search of
/// `depth` plies each, as the generator scores them.
pub fn check(book: &Book, rules: Rules, depth: u32) -> BookReport {
    let white_to_move = book
        .openings
        .iter()
        .filter(|o| o.position.side_to_move() == Color::White)
        .count();
    BookReport {
        file: book.path.clone(),
        rules,
        board: book
            .openings
            .first()
            .map_or(Board::STANDARD, |o| o.position.board()),
        count: book.openings.len(),
        duplicates: book.duplicates.clone(),
        eval: eval_spread(&book.openings, rules, depth),
        plies: ply_spread(&book.openings),
        white_to_move,
        black_to_move: book.openings.len() - white_to_move,
    }
}

fn eval_spread(openings: &[Opening], rules: Rules, depth: u32) -> EvalSpread {
    let mut scorer = Scorer::new(rules, depth);
    let evals: Vec<(usize, Eval)> = openings
        .iter()
        .map(|o| (o.line, scorer.score(&o.position)))
        .collect();
    let cp: Vec<i64> = evals
        .iter()
        .filter_map(|(_, eval)| eval.cp().map(i64::from))
        .collect();
    let share = |bound: i32| {
        let within = evals.iter().filter(|(_, e)| e.is_balanced(bound)).count();
        within as f64 / openings.len().max(1) as f64
    };
    EvalSpread {
        depth,
        cp: Spread::of(&cp),
        within_50: share(50),
        within_100: share(100),
        proven: evals
            .iter()
            .filter_map(|&(line, eval)| match eval {
                Eval::Proven(winner) => Some(ProvenOpening {
                    line,
                    winner: winner.to_string(),
                }),
                Eval::Cp(_) => None,
            })
            .collect(),
    }
}

/// The ply count of `opening`: its `plies N` comment field, else its pawn advances.
fn plies_of(opening: &Opening) -> (u32, PlySource) {
    opening
        .comment_field("plies")
        .and_then(|value| value.parse().ok())
        .map_or_else(
            || (pawn_advances(&opening.position), PlySource::Counted),
            |plies| (plies, PlySource::Comment),
        )
}

fn ply_spread(openings: &[Opening]) -> PlySpread {
    let plies: Vec<(u32, PlySource)> = openings.iter().map(plies_of).collect();
    let mut histogram = BTreeMap::new();
    for &(n, _) in &plies {
        *histogram.entry(n).or_insert(0) += 1;
    }
    let values: Vec<i64> = plies.iter().map(|&(n, _)| i64::from(n)).collect();
    let from_comments = plies
        .iter()
        .filter(|(_, source)| *source == PlySource::Comment)
        .count();
    PlySpread {
        from_comments,
        counted: plies.len() - from_comments,
        spread: Spread::of(&values),
        histogram,
    }
}

impl fmt::Display for BookReport {
    /// The report as text, one topic a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} openings under {} rules",
            self.file.display(),
            self.count,
            self.rules
        )?;
        match self.board.is_standard() {
            true => writeln!(f)?,
            false => writeln!(f, " on the {} board", self.board)?,
        }
        writeln!(f, "duplicates: {}", duplicates_text(&self.duplicates))?;
        write!(f, "{}", self.eval)?;
        write!(f, "{}", self.plies)?;
        writeln!(
            f,
            "side to move: White {}, Black {}",
            self.white_to_move, self.black_to_move
        )
    }
}

/// `none`, or `2 (line 5 repeats line 3, line 9 repeats line 7)`.
fn duplicates_text(duplicates: &[(usize, usize)]) -> String {
    if duplicates.is_empty() {
        return "none".to_string();
    }
    format!("{} ({})", duplicates.len(), duplicate_lines(duplicates))
}

impl fmt::Display for EvalSpread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spread = self
            .cp
            .map_or_else(|| "no centipawn score".to_string(), |s| s.to_string());
        writeln!(
            f,
            "eval (centipawns for White, depth {}): {spread}; within ±50: {:.1}%, within ±100: {:.1}%",
            self.depth,
            100.0 * self.within_50,
            100.0 * self.within_100
        )?;
        if !self.proven.is_empty() {
            let lines: Vec<String> = self
                .proven
                .iter()
                .map(|p| format!("line {} {}", p.line, p.winner))
                .collect();
            writeln!(f, "proven wins: {}", lines.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for PlySpread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match (self.from_comments, self.counted) {
            (_, 0) => "from the plies comments".to_string(),
            (0, _) => {
                "counted from pawn advances, a lower bound where pawns were captured".to_string()
            }
            (comments, counted) => {
                format!("{comments} from the plies comments, {counted} counted from pawn advances")
            }
        };
        let spread = self.spread.map_or_else(String::new, |s| s.to_string());
        let histogram: Vec<String> = self
            .histogram
            .iter()
            .map(|(plies, count)| format!("{plies}: {count}"))
            .collect();
        writeln!(
            f,
            "plies ({source}): {spread}; openings per ply count {}",
            histogram.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Three openings and a repeat: the start (no plies comment: 0 pawn advances), the position
    /// after a2a3 (comment: 1 ply), the position after a2a3 b7b6 (comment: 2 plies), the start
    /// again (a comment without plies).
    const BOOK: &str = "\
# a tiny book
startpos
pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b ; id \"a\"; plies 1
pppppppp/p1pppppp/1p6/8/8/P7/1PPPPPPP/PPPPPPPP w ; id \"b\"; plies 2
startpos ; again
";

    fn report() -> BookReport {
        let book = Book::parse(
            BOOK,
            Path::new("tiny.epd"),
            Rules::CaptureOnly,
            crate::rules::Board::STANDARD,
        )
        .unwrap();
        check(&book, Rules::CaptureOnly, 3)
    }

    #[test]
    fn counts_duplicates_and_sides_to_move() {
        let report = report();
        assert_eq!(report.count, 4);
        assert_eq!(report.duplicates, vec![(2, 5)]);
        assert_eq!((report.white_to_move, report.black_to_move), (3, 1));
    }

    #[test]
    fn plies_come_from_comments_or_pawn_advances() {
        let plies = report().plies;
        assert_eq!((plies.from_comments, plies.counted), (2, 2));
        assert_eq!(plies.histogram, BTreeMap::from([(0, 2), (1, 1), (2, 1)]));
        let spread = plies.spread.unwrap();
        assert_eq!((spread.min, spread.max), (0, 2));
        assert!((spread.mean - 0.75).abs() < 1e-9);
        let after: Position = "pppppppp/p1pppppp/1p6/8/8/P7/1PPPPPPP/PPPPPPPP w"
            .parse()
            .unwrap();
        assert_eq!(pawn_advances(&after), 2);
        assert_eq!(pawn_advances(&Position::startpos()), 0);
        // On any board: the start is 0, each ply of a pawn one.
        let small = Board::new(6, 5).unwrap();
        let start = Position::start(small);
        assert_eq!(pawn_advances(&start), 0);
        let after = start.play(Rules::Classic, "a2a3".parse().unwrap()).unwrap();
        let after = after.play(Rules::Classic, "e5e4".parse().unwrap()).unwrap();
        assert_eq!(pawn_advances(&after), 2);
    }

    #[test]
    fn evals_match_the_scorer_and_their_shares_add_up() {
        let report = report();
        let book = Book::parse(
            BOOK,
            Path::new("tiny.epd"),
            Rules::CaptureOnly,
            crate::rules::Board::STANDARD,
        )
        .unwrap();
        let mut scorer = Scorer::new(Rules::CaptureOnly, 3);
        let cps: Vec<i64> = book
            .openings
            .iter()
            .map(|o| i64::from(scorer.score(&o.position).cp().unwrap()))
            .collect();
        assert_eq!(report.eval.cp, Spread::of(&cps));
        let within = |bound: i64| cps.iter().filter(|cp| cp.abs() <= bound).count() as f64 / 4.0;
        assert_eq!(report.eval.within_50, within(50));
        assert_eq!(report.eval.within_100, within(100));
        assert!(report.eval.proven.is_empty());
        assert_eq!(report.eval.depth, 3);
    }

    #[test]
    fn proven_wins_are_listed_and_left_out_of_the_spread() {
        let book = Book::parse(
            "8/P7/8/8/8/8/7p/8 w\n",
            Path::new("won.epd"),
            Rules::Classic,
            crate::rules::Board::STANDARD,
        )
        .unwrap();
        let report = check(&book, Rules::Classic, 2);
        assert_eq!(report.eval.cp, None);
        assert_eq!(report.eval.within_100, 0.0);
        assert_eq!(
            report.eval.proven,
            vec![ProvenOpening {
                line: 1,
                winner: "White".into()
            }]
        );
        let text = report.to_string();
        assert!(text.contains("proven wins: line 1 White"), "{text}");
        assert!(text.contains("no centipawn score"), "{text}");
    }

    #[test]
    fn spreads_are_population_statistics() {
        let spread = Spread::of(&[-10, 0, 10, 20]).unwrap();
        assert_eq!((spread.min, spread.max), (-10, 20));
        assert!((spread.mean - 5.0).abs() < 1e-9);
        assert!((spread.stddev - 125f64.sqrt()).abs() < 1e-9);
        assert_eq!(Spread::of(&[]), None);
    }

    #[test]
    fn the_text_report_names_everything() {
        let text = report().to_string();
        assert!(text.starts_with("tiny.epd: 4 openings under capture-only rules\n"));
        assert!(text.contains("duplicates: 1 (line 5 repeats line 2)"));
        assert!(text.contains(
            "plies (2 from the plies comments, 2 counted from pawn advances): min 0, max 2"
        ));
        assert!(text.contains("side to move: White 3, Black 1"));
    }
}
