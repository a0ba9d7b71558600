//! Opening books: the positions tournament games start from.
//!
//! For users (`docs/guide/openings.md`): a book is one position a line; `openings generate`
//! writes a balanced one, the same bytes for the same arguments, and `openings check` examines
//! one.
//!
//! A book (`.epd`) holds one position string per line (as [`Position`] parses it), optionally
//! followed by `;` and a comment such as `id "name"`; blank lines and lines starting with `#`
//! are ignored. Every line is validated on load under the rule set in force.
//!
//! Books are made by [`generate()`] (random move sequences from the start, kept when balanced by
//! a short search) and examined by [`check()`] (size, duplicates, eval and ply spread).

mod check;
mod generate;
mod scorer;
pub mod spec;

/// The shipped opening book of `rules`, as the repository's `openings/<rules>.epd` holds it
/// (built into bt-arena, so that a tournament started anywhere has the book a clone has): 500
/// positions each, made by `openings generate` (the command is its first line).
pub fn shipped_book(rules: Rules) -> &'static str {
    match rules {
        Rules::CaptureOnly => include_str!("../../openings/capture-only.epd"),
        Rules::Classic => include_str!("../../openings/classic.epd"),
    }
}

/// How a config names a shipped book rather than a file: `shipped:capture-only.epd`.
pub const SHIPPED_PREFIX: &str = "shipped:";

/// The name a config gives the shipped book of `rules`: `shipped:<rules>.epd` ([`SHIPPED_PREFIX`]).
/// No file: the text is built in, so a run names the same book on any machine, from any
/// directory, after its directory was moved.
pub fn shipped_book_name(rules: Rules) -> PathBuf {
    PathBuf::from(format!("{SHIPPED_PREFIX}{}.epd", rules.name()))
}

/// The built-in text a `shipped:` book name stands for; `None` for a file's path.
pub fn shipped_text(path: &Path) -> Option<&'static str> {
    let name = path
        .to_str()?
        .strip_prefix(SHIPPED_PREFIX)?
        .strip_suffix(".epd")?;
    name.parse::<Rules>().ok().map(shipped_book)
}

/// The bytes of the book at `path`: a file's, or a shipped book's built-in text.
///
/// # Errors
/// When the file cannot be read.
pub fn book_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    match shipped_text(path) {
        Some(text) => Ok(text.as_bytes().to_vec()),
        None => std::fs::read(path),
    }
}

pub use check::{BookReport, EvalSpread, PlySpread, ProvenOpening, Spread, check, pawn_advances};
pub use generate::{
    DEFAULT_MAX_EVAL, GenerateOptions, Generated, GeneratedOpening, GenerationTally,
    TooFewOpenings, book_text, generate, random_sequence,
};
pub use scorer::{DEFAULT_DEPTH, Eval, Scorer};

use crate::rules::{Board, Position, PositionError, Rules};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// One opening of a book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// 1-based index of the opening in its book (comment and blank lines not counted).
    pub id: u64,
    /// The 1-based line number in the book file.
    pub line: usize,
    /// The position games start from.
    pub position: Position,
    /// The text after `;` on its line, trimmed (e.g. `id "o12"; eval 14`); empty when none.
    pub comment: String,
}

impl Opening {
    /// The value of the field `key` in the comment, whose fields are separated by `;` and
    /// written `key value`: for the comment `id "o12"; eval 14; plies 6`, `plies` gives `6`.
    pub fn comment_field(&self, key: &str) -> Option<&str> {
        self.comment.split(';').find_map(|field| {
            let (name, value) = field.trim().split_once(char::is_whitespace)?;
            (name == key).then(|| value.trim())
        })
    }
}

/// A loaded and validated opening book.
#[derive(Clone, Debug)]
pub struct Book {
    /// The file it was read from.
    pub path: PathBuf,
    /// The openings in file order.
    pub openings: Vec<Opening>,
    /// Pairs of 1-based line numbers `(first, repeat)` holding the same position.
    pub duplicates: Vec<(usize, usize)>,
}

/// Why a book cannot be used.
#[derive(Debug)]
pub enum BookError {
    /// The file cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is not a valid opening.
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: LineError,
    },
    /// The book holds no opening.
    Empty(PathBuf),
}

/// What is wrong with a book line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// Not a valid position string.
    Position(PositionError),
    /// The game is already over in this position under the rule set in force.
    GameOver(String),
    /// A position of another board than the run's (read from its shape).
    Board {
        /// The board of the position.
        found: Board,
        /// The board the book was loaded for.
        expected: Board,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Read { path, source } => {
                write!(f, "cannot read opening book {}: {source}", path.display())
            }
            BookError::Line {
                path,
                line,
                reason: LineError::Board { found, expected },
            } => write!(
                f,
                "opening book {} line {line} is a position of the {found} board, not of \
                 {expected} (--board): give a book of {expected} positions (bt-arena openings \
                 generate --board {expected} writes one), or --board {found}",
                path.display()
            ),
            BookError::Line { path, line, reason } => {
                write!(f, "opening book {} line {line}: ", path.display())?;
                match reason {
                    LineError::Position(err) => write!(f, "bad position: {err}"),
                    LineError::GameOver(outcome) => {
                        write!(f, "the game is already over there: {outcome}")
                    }
                    LineError::Board { found, expected } => {
                        write!(f, "a position of {found}, not {expected}")
                    }
                }
            }
            BookError::Empty(path) => {
                write!(f, "opening book {} holds no position", path.display())
            }
        }
    }
}

impl std::error::Error for BookError {}

impl Book {
    /// Reads and validates the book at `path` under `rules`, every position one of `board`; a
    /// byte-order mark at its start is skipped.
    ///
    /// # Errors
    /// [`BookError`] naming the file (and line) when it cannot be read, a line is not a
    /// position, is a position of another board ([`LineError::Board`], naming both), a
    /// position is already decided under `rules`, or the book is empty.
    pub fn load(path: &Path, rules: Rules, board: Board) -> Result<Book, BookError> {
        if let Some(text) = shipped_text(path) {
            return Book::parse(text, path, rules, board);
        }
        let text = crate::textfile::read_to_string(path).map_err(|source| BookError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Book::parse(&text, path, rules, board)
    }

    /// Parses book text; `path` only names the source in errors.
    ///
    /// # Errors
    /// As [`Book::load`].
    pub fn parse(text: &str, path: &Path, rules: Rules, board: Board) -> Result<Book, BookError> {
        let mut openings = Vec::new();
        let mut seen: HashMap<Position, usize> = HashMap::new();
        let mut duplicates = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let Some((position, comment)) =
                parse_line(raw, rules, board).map_err(|reason| BookError::Line {
                    path: path.to_path_buf(),
                    line,
                    reason,
                })?
            else {
                continue;
            };
            if let Some(&first) = seen.get(&position) {
                duplicates.push((first, line));
            } else {
                seen.insert(position, line);
            }
            openings.push(Opening {
                id: openings.len() as u64 + 1,
                line,
                position,
                comment,
            });
        }
        if openings.is_empty() {
            return Err(BookError::Empty(path.to_path_buf()));
        }
        Ok(Book {
            path: path.to_path_buf(),
            openings,
            duplicates,
        })
    }
}

impl Book {
    /// A warning naming the repeated positions, `None` when every position is distinct: e.g.
    /// `opening book b.epd repeats 2 positions (line 5 repeats line 3, line 9 repeats line 7)`.
    pub fn duplicates_warning(&self) -> Option<String> {
        (!self.duplicates.is_empty()).then(|| {
            let count = self.duplicates.len();
            format!(
                "opening book {} repeats {count} position{} ({})",
                self.path.display(),
                if count == 1 { "" } else { "s" },
                duplicate_lines(&self.duplicates)
            )
        })
    }
}

/// Duplicate pairs `(first, repeat)` as text: `line 5 repeats line 3, line 9 repeats line 7`.
pub fn duplicate_lines(duplicates: &[(usize, usize)]) -> String {
    let pairs: Vec<String> = duplicates
        .iter()
        .map(|(first, repeat)| format!("line {repeat} repeats line {first}"))
        .collect();
    pairs.join(", ")
}

/// One book line of `board`: `None` for a blank or comment line, else the position and its
/// comment. A position whose shape is another board's is told as such ([`LineError::Board`]).
fn parse_line(
    raw: &str,
    rules: Rules,
    board: Board,
) -> Result<Option<(Position, String)>, LineError> {
    let text = raw.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let (position, comment) = text.split_once(';').unwrap_or((text, ""));
    let position =
        Position::from_fen(position, board).map_err(|err| {
            match Position::from_fen_any(position) {
                Ok(other) if other.board() != board => LineError::Board {
                    found: other.board(),
                    expected: board,
                },
                _ => LineError::Position(err),
            }
        })?;
    if let Some(outcome) = position.outcome(rules) {
        return Err(LineError::GameOver(outcome.to_string()));
    }
    Ok(Some((position, comment.trim().to_string())))
}

/// The openings of the book `file` of `board` under `rules` (the start position of `board`
/// alone without a book), and the warning to show when the book holds a position twice.
///
/// # Errors
/// [`BookError`] when the book cannot be read or a line is not an opening of `board`.
pub fn load_openings(
    file: Option<&std::path::Path>,
    rules: crate::rules::Rules,
    board: Board,
) -> Result<(Vec<Opening>, Option<String>), BookError> {
    match file {
        Some(path) => {
            let book = Book::load(path, rules, board)?;
            let warning = book.duplicates_warning();
            Ok((book.openings, warning))
        }
        None => Ok((
            vec![Opening {
                id: 1,
                line: 0,
                position: Position::start(board),
                comment: String::new(),
            }],
            None,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, rules: Rules) -> Result<Book, BookError> {
        Book::parse(text, Path::new("book.epd"), rules, Board::STANDARD)
    }

    #[test]
    fn books_skip_comments_and_keep_ids_lines_and_comments() {
        let text = "# a book\n\nstartpos ; id \"s\"\n8/8/8/1p6/P7/8/8/8 w\nstartpos\n";
        let book = parse(text, Rules::CaptureOnly).unwrap();
        assert_eq!(book.openings.len(), 3);
        assert_eq!(book.openings[0].id, 1);
        assert_eq!(book.openings[0].line, 3);
        assert_eq!(book.openings[0].comment, "id \"s\"");
        assert_eq!(
            book.openings[1].position.to_string(),
            "8/8/8/1p6/P7/8/8/8 w"
        );
        assert_eq!(book.duplicates, vec![(3, 5)]);
        assert_eq!(
            book.duplicates_warning().unwrap(),
            "opening book book.epd repeats 1 position (line 5 repeats line 3)"
        );
        assert_eq!(
            parse("startpos\n", Rules::Classic)
                .unwrap()
                .duplicates_warning(),
            None
        );
    }

    #[test]
    fn a_book_is_of_one_board_and_a_line_of_another_is_named_with_both() {
        let six = Board::new(6, 6).unwrap();
        let text = "# a 6x6 book\nstartpos\npppppp/pppppp/6/1P4/P1PPPP/PPPPPP b\n";
        let book = Book::parse(text, Path::new("b.epd"), Rules::CaptureOnly, six).unwrap();
        assert_eq!(book.openings[0].position, Position::start(six));
        assert_eq!(book.openings[1].position.board(), six);
        let err = Book::parse(
            text,
            Path::new("b.epd"),
            Rules::CaptureOnly,
            Board::STANDARD,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "opening book b.epd line 3 is a position of the 6x6 board, not of 8x8 (--board): \
             give a book of 8x8 positions (bt-arena openings generate --board 8x8 writes one), \
             or --board 6x6"
        );
        // A line no board reads is a bad position, as before.
        let err = Book::parse("pppp/x w\n", Path::new("b.epd"), Rules::CaptureOnly, six)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("opening book b.epd line 1: bad position: "),
            "{err}"
        );
        let (openings, _) = load_openings(None, Rules::Classic, six).unwrap();
        assert_eq!(openings[0].position, Position::start(six));
    }

    #[test]
    fn comment_fields_are_found_by_name() {
        let book = parse("startpos ; id \"o12\"; eval -14;plies  6\n", Rules::Classic).unwrap();
        let opening = &book.openings[0];
        assert_eq!(opening.comment_field("id"), Some("\"o12\""));
        assert_eq!(opening.comment_field("eval"), Some("-14"));
        assert_eq!(opening.comment_field("plies"), Some("6"));
        assert_eq!(opening.comment_field("ply"), None);
    }

    #[test]
    fn bad_lines_name_file_line_and_reason() {
        let err = parse("startpos\n8/8/8 w\n", Rules::CaptureOnly).unwrap_err();
        assert_eq!(
            err.to_string(),
            "opening book book.epd line 2: bad position: the board has 3 ranks, expected 8 separated by '/'"
        );
        // Blocked under capture-only rules, playable under classic rules.
        let blocked = "8/8/8/p7/P7/8/8/8 w";
        let err = parse(blocked, Rules::CaptureOnly).unwrap_err();
        assert_eq!(
            err.to_string(),
            "opening book book.epd line 1: the game is already over there: White has no legal move"
        );
        assert!(parse(blocked, Rules::Classic).is_ok());
        assert!(matches!(
            parse("# nothing\n", Rules::Classic),
            Err(BookError::Empty(_))
        ));
        let err =
            Book::load(Path::new("no/such.epd"), Rules::Classic, Board::STANDARD).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot read opening book no/such.epd")
        );
    }
}
