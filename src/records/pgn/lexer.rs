//! The PGN lexer: a text split into tokens ([`Tokens`]) and the tokens into games
//! ([`split_game`]) for the reader, and a games.pgn split into games as written
//! ([`RawGames`]) for the runner's repairs and `merge`.

use std::path::Path;

/// One game of a games.pgn as written: its text, from its `[Event` tag to the start of the
/// next game, and its `X-GameId` when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawPgnGame {
    /// The game's text, its blank line after the movetext included.
    pub text: String,
    /// Its `X-GameId` tag, when it has one.
    pub game_id: Option<u64>,
}

/// The games of a games.pgn written by bt-arena, one at a time and as written (not parsed):
/// an iterator of `io::Result<RawPgnGame>` whose memory holds one game. A game starts with
/// a line beginning `[Event ` at the start of the file or after a blank line (a line of a
/// long comment may also start with `[Event `: an engine's PV is not checked). Text before
/// the first game is a game of its own, without an id.
#[derive(Debug)]
pub struct RawGames<R> {
    lines: R,
    /// The first line of the next game, read with the game before.
    next_start: Option<String>,
    done: bool,
    /// The byte at which the next game starts.
    offset: u64,
}

impl<R: std::io::BufRead> RawGames<R> {
    /// The games of `reader`.
    pub fn new(reader: R) -> RawGames<R> {
        RawGames {
            lines: reader,
            next_start: None,
            done: false,
            offset: 0,
        }
    }

    /// The byte of the text at which the next game starts: the bytes of the games returned
    /// so far, from where the reader started (or was [sought](RawGames::seek)).
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl<R: std::io::BufRead + std::io::Seek> RawGames<R> {
    /// Goes to the game starting at byte `offset` (one that [`offset`](RawGames::offset)
    /// gave); nothing is read when the next game starts there.
    ///
    /// # Errors
    /// The reader's, when it cannot seek.
    pub fn seek(&mut self, offset: u64) -> std::io::Result<()> {
        if offset != self.offset || self.done {
            self.lines.seek(std::io::SeekFrom::Start(offset))?;
            self.next_start = None;
            self.done = false;
            self.offset = offset;
        }
        Ok(())
    }
}

impl<R: std::io::BufRead> Iterator for RawGames<R> {
    type Item = std::io::Result<RawPgnGame>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut text = self.next_start.take().unwrap_or_default();
        loop {
            let mut line = String::new();
            match self.lines.read_line(&mut line) {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(_) => {}
            }
            let starts_game =
                line.starts_with("[Event ") && (text.is_empty() || text.ends_with("\n\n"));
            if starts_game && !text.is_empty() {
                self.next_start = Some(line);
                break;
            }
            text.push_str(&line);
        }
        if text.is_empty() {
            return None;
        }
        self.offset += text.len() as u64;
        let game_id = text
            .split_once("\n[X-GameId \"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .and_then(|(id, _)| id.parse().ok());
        Some(Ok(RawPgnGame { text, game_id }))
    }
}

/// True when `path` holds PGN rather than CSV: a `.pgn` name, or text whose first
/// non-blank character starts a tag, a comment or an escape line.
pub fn is_pgn(path: &Path, head: &str) -> bool {
    let named = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("pgn"));
    let first = crate::textfile::strip_bom(head).trim_start().chars().next();
    named || matches!(first, Some('[' | '%' | ';' | '{'))
}

/// A lexical token of PGN, with its line.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    /// `[Name "value"]`.
    Tag(String, String),
    /// `{text}`, line breaks made spaces.
    Comment(String),
    /// A move, move number, NAG or result.
    Word(String),
    /// `(`: a variation starts.
    Open,
    /// `)`: it ends.
    Close,
}

/// The tokens of a PGN text with their 1-based lines, read as they are asked for; an item
/// is `Err((line, reason))` for an unclosed comment or a tag that is not `[Name "value"]`
/// (the text is not read further).
pub(super) struct Tokens<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u64,
    at_line_start: bool,
    failed: bool,
}

impl<'a> Tokens<'a> {
    pub(super) fn new(text: &'a str) -> Tokens<'a> {
        Tokens {
            chars: text.chars().peekable(),
            line: 1,
            at_line_start: true,
            failed: false,
        }
    }

    /// The comment after its `{`, up to its `}`.
    fn comment(&mut self) -> Result<Located, LineError> {
        let start = self.line;
        let mut body = String::new();
        loop {
            match self.chars.next() {
                Some('}') => break,
                Some('\n') => {
                    self.line += 1;
                    body.push(' ');
                }
                Some(other) => body.push(other),
                None => return Err((start, "a comment `{` is never closed".into())),
            }
        }
        Ok((start, Token::Comment(body.trim().to_string())))
    }

    /// The tag after its `[`, up to its `]` on the same line.
    fn tag(&mut self) -> Result<Located, LineError> {
        let line = self.line;
        let mut body = String::new();
        let mut in_string = false;
        loop {
            match self.chars.next() {
                Some('\\') if in_string => body.extend(self.chars.next()),
                Some('"') => {
                    in_string = !in_string;
                    body.push('"');
                }
                Some(']') if !in_string => break,
                Some('\n') | None => {
                    return Err((line, "a tag `[` is not closed on its line".into()));
                }
                Some(other) => body.push(other),
            }
        }
        let tag = parse_tag(&body).ok_or_else(|| {
            (
                line,
                format!("`[{body}]` is not a tag of the form [Name \"value\"]"),
            )
        })?;
        Ok((line, tag))
    }

    /// The word starting with `first`: up to whitespace or a character that starts another
    /// token.
    fn word(&mut self, first: char) -> Located {
        let mut word = String::from(first);
        while let Some(&next) = self.chars.peek() {
            if next.is_whitespace() || "{}[]();".contains(next) {
                break;
            }
            word.push(next);
            self.chars.next();
        }
        (self.line, Token::Word(word))
    }
}

impl Iterator for Tokens<'_> {
    type Item = Result<Located, LineError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        while let Some(c) = self.chars.next() {
            let token = match c {
                '\n' => {
                    self.line += 1;
                    self.at_line_start = true;
                    continue;
                }
                '%' if self.at_line_start => {
                    skip_line(&mut self.chars);
                    None
                }
                ';' => {
                    skip_line(&mut self.chars);
                    None
                }
                '{' => Some(self.comment()),
                '[' => Some(self.tag()),
                '(' => Some(Ok((self.line, Token::Open))),
                ')' => Some(Ok((self.line, Token::Close))),
                c if c.is_whitespace() => None,
                c => Some(Ok(self.word(c))),
            };
            self.at_line_start = false;
            if let Some(token) = token {
                self.failed = token.is_err();
                return Some(token);
            }
        }
        None
    }
}

/// Skips to the end of the line (the newline stays, to be counted).
fn skip_line(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.peek().is_some_and(|&c| c != '\n') {
        chars.next();
    }
}

/// `Name "value"` (escapes already removed from the value) as a tag.
fn parse_tag(body: &str) -> Option<Token> {
    let (name, value) = body.trim().split_once(char::is_whitespace)?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some(Token::Tag(name.to_string(), value.to_string()))
}

/// One game's tokens.
#[derive(Debug)]
pub(super) struct Game {
    /// The line of its first token.
    pub(super) line: u64,
    pub(super) tags: Vec<(String, String)>,
    /// The movetext outside variations: moves (with their lines) and the comments after each
    /// (`comments[0]` are those before the first move).
    pub(super) moves: Vec<(u64, String)>,
    pub(super) comments: Vec<Vec<String>>,
    /// The result token and its line.
    pub(super) result: (u64, String),
}

impl Game {
    pub(super) fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A game as split from the tokens.
pub(super) enum RawGame {
    /// Ended by a result token.
    Complete(Game),
    /// The tokens ran out first.
    CutOff {
        /// The line the game starts on.
        line: u64,
    },
}

/// The results that end a movetext.
pub(super) const RESULT_TOKENS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// A reason and the line it is about.
pub(super) type LineError = (u64, String);

/// A token and its line.
pub(super) type Located = (u64, Token);

/// The tags that a game has once (the Seven Tag Roster): one seen again starts the next game.
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// The first game of `tokens` (which has one more token at least), its tokens taken; it is
/// game `ordinal` of the file.
///
/// # Errors
/// A token's error; and `(line, "game N: reason")` when the tags of the next game come before
/// this one's result (its movetext or its result lost, or a variation `(` left open): the two
/// games would otherwise be read as one, with the first one's tags and the second one's
/// moves.
pub(super) fn split_game(
    tokens: &mut std::iter::Peekable<Tokens<'_>>,
    ordinal: u64,
) -> Result<RawGame, LineError> {
    let line = match tokens.peek() {
        Some(Ok((line, _))) => *line,
        _ => 0,
    };
    let mut game = Game {
        line,
        tags: Vec::new(),
        moves: Vec::new(),
        comments: vec![Vec::new()],
        result: (line, String::new()),
    };
    let mut depth = 0usize;
    // The line of the outermost open variation, and whether the movetext has begun.
    let mut open_at = line;
    let mut in_movetext = false;
    for token in tokens {
        let (token_line, token) = token?;
        match token {
            Token::Tag(..) if depth > 0 => {
                return Err((
                    open_at,
                    format!(
                        "game {ordinal}: a variation `(` is never closed (the next game's tags \
                         start at line {token_line})"
                    ),
                ));
            }
            Token::Tag(name, _)
                if in_movetext
                    || (ROSTER.contains(&name.as_str()) && game.tag(&name).is_some()) =>
            {
                return Err((
                    line,
                    format!(
                        "game {ordinal}: no result (1-0, 0-1 or *) before the next game's tags \
                         at line {token_line}"
                    ),
                ));
            }
            Token::Open => {
                if depth == 0 {
                    open_at = token_line;
                }
                depth += 1;
                in_movetext = true;
            }
            Token::Close => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            Token::Tag(name, value) => game.tags.push((name, value)),
            Token::Comment(text) => game.comments.last_mut().unwrap().push(text),
            Token::Word(word) if RESULT_TOKENS.contains(&word.as_str()) => {
                game.result = (token_line, word);
                return Ok(RawGame::Complete(game));
            }
            Token::Word(word) => {
                in_movetext = true;
                if let Some(mv) = move_text(&word) {
                    game.moves.push((token_line, mv.to_string()));
                    game.comments.push(Vec::new());
                }
            }
        }
    }
    Ok(RawGame::CutOff { line })
}

/// The move in a movetext word, without its number and annotations (`12.a2a3!` gives
/// `a2a3`); `None` for a move number alone (`12.`, `12...`) or a NAG (`$1`).
fn move_text(word: &str) -> Option<&str> {
    let word = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let word = word.trim_end_matches(['!', '?', '+', '#']);
    (!word.is_empty() && !word.starts_with('$')).then_some(word)
}
