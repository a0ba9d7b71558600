//! Reading games back from PGN: bt-arena's games.pgn and the PGN that cutechess-cli, cutegames
//! or fastchess write for Breakthrough engines, as [`GameRecord`]s for the report.
//!
//! Each game needs `White`, `Black` and a result of `1-0` or `0-1` (the `Result` tag, the token
//! that ends the movetext, or both when they agree). The moves are replayed under the rules of
//! the `Variant` tag (`breakthrough` is classic Breakthrough; `breakthrough-capture-only` is
//! bt-arena's rule set; none means classic, which accepts every capture-only game), from the
//! `FEN` tag or the start. Moves may be coordinates (`a2a3`, `a2-a3`, `a2xb3`) or SAN (`a3`,
//! `axb3`). Move comments in the cutechess/fastchess form (`{+0.35/12 0.120s, n=.., sd=..}`)
//! give the per-move data and the time each side used.
//!
//! How a game ended: by the rules when its last position is over (the result must agree);
//! otherwise by bt-arena's word in the final comment (`{time-forfeit: White loses on time}`,
//! `{proof: White wins in 5 plies: ...}`, `{resign: Black resigns ...}`), else by the
//! `Termination` tag (`time forfeit`, `rules infraction` or `illegal move`,
//! `abandoned`, `stalled connection`), else it was adjudicated.
//!
//! Game pairs: bt-arena's own `X-Pair` tag when present; otherwise two consecutive games with
//! the same engines, colours swapped and the same start position form a pair, as Ordo and
//! fastchess pair them.
//!
//! A game that breaks these rules is an error naming the file and the line, as is a game
//! whose result does not come before the next game's tags (a tag after its movetext, a Seven
//! Tag Roster tag given twice, a variation left open). A game with the
//! result `*` (unfinished) or cut off at the end of the file is skipped and said so
//! ([`ReadGames::skipped`]).

use super::lexer::{Game, RawGame, Tokens, split_game};
use crate::records::moves::{self, MoveInfo};
use crate::records::{GameRecord, GameResult, RecordsError, Termination};
use crate::rules::{Board, ByColor, Color, Move, Position, Rules, Square};
use std::path::Path;

/// The games of a file, in file order, and the games not counted.
#[derive(Debug, Default)]
pub struct ReadGames {
    /// The games, with their pair numbers assigned.
    pub games: Vec<GameRecord>,
    /// One line per game skipped: `line N: why` (an unfinished game, a game cut off).
    pub skipped: Vec<String>,
    /// Whether every game read has bt-arena's `X-GameId` tag, so that its
    /// [`game_id`](GameRecord::game_id) identifies it (else games are numbered in file order).
    pub ids_tagged: bool,
}

/// Reads the games of the PGN file `path`.
///
/// # Errors
/// [`RecordsError::Io`] when the file cannot be read; [`RecordsError::Malformed`] with the
/// line of the game (or of the move) at fault: a missing `White` or `Black`, a draw or a
/// result the tags and the movetext disagree on, a result the last position contradicts, an
/// unknown variant, a bad `FEN`, a move that is not legal, an unclosed comment.
pub fn read_pgn(path: &Path) -> Result<ReadGames, RecordsError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| RecordsError::io(path, "cannot read", e))?;
    parse_pgn(&text, path)
}

/// Reads PGN `text` as [`read_pgn`] does; `path` names it in errors.
///
/// # Errors
/// As [`read_pgn`].
pub fn parse_pgn(text: &str, path: &Path) -> Result<ReadGames, RecordsError> {
    let malformed = |line: u64, reason: String| RecordsError::Malformed {
        path: path.to_path_buf(),
        line,
        reason,
    };
    // One game at a time: the tokens of a game are dropped once its record is built, so
    // memory holds the text and the records, not every token of the file.
    let mut tokens = Tokens::new(crate::textfile::strip_bom(text)).peekable();
    let mut out = ReadGames::default();
    let mut pending = Vec::new();
    let mut ordinal = 0u64;
    out.ids_tagged = true;
    while tokens.peek().is_some() {
        ordinal += 1;
        let game = split_game(&mut tokens, ordinal).map_err(|(l, r)| malformed(l, r))?;
        let raw = match game {
            RawGame::Complete(raw) => raw,
            RawGame::CutOff { line } => {
                out.skipped.push(format!(
                    "line {line}: a game cut off at the end of the file"
                ));
                continue;
            }
        };
        out.ids_tagged &= raw.tag("X-GameId").is_some();
        match build_record(&raw, ordinal) {
            Ok(Some(record)) => pending.push(record),
            Ok(None) => out.skipped.push(format!(
                "line {}: game {ordinal} ({} vs {}) is unfinished (`*`)",
                raw.line,
                raw.tag("White").unwrap_or("?"),
                raw.tag("Black").unwrap_or("?")
            )),
            Err((line, reason)) => return Err(malformed(line, reason)),
        }
    }
    out.games = assign_pairs(pending);
    Ok(out)
}

/// The rule set and board a `Variant` tag names: `breakthrough` (also `Breakthrough`),
/// `breakthrough-capture-only`, each with `-RxC` for a board other than 8×8 (as
/// [`super::write::variant_name`] writes it; the board `None` when the name has none);
/// `None` for another variant.
fn read_variant(name: &str) -> Option<(Rules, Option<Board>)> {
    let (base, board) = match name.rsplit_once('-') {
        Some((base, size)) if size.parse::<Board>().is_ok() => (base, size.parse().ok()),
        _ => (name, None),
    };
    let rules = match base {
        "breakthrough" | "Breakthrough" => Rules::Classic,
        "breakthrough-capture-only" => Rules::CaptureOnly,
        _ => return None,
    };
    Some((rules, board))
}

/// The start of `game`: its `FEN` tag (of the board its `Board` tag or its variant `named`
/// says, else of the FEN's own shape), else the start of that board (8×8 when none is said).
///
/// # Errors
/// A bad `Board` tag, a `Board` tag and a variant naming two boards, a FEN that does not
/// read or is of another board than the one said, each naming what.
fn game_start(game: &Game, named: Option<Board>) -> Result<Position, String> {
    let tagged = match game.tag("Board") {
        Some(text) => Some(
            text.parse::<Board>()
                .map_err(|e| format!("bad Board \"{text}\": {e}"))?,
        ),
        None => None,
    };
    let board = match (tagged, named) {
        (Some(tagged), Some(named)) if tagged != named => {
            return Err(format!(
                "Board \"{tagged}\" and Variant \"{}\" name two boards",
                game.tag("Variant").unwrap_or_default()
            ));
        }
        (tagged, named) => tagged.or(named),
    };
    match (game.tag("FEN"), board) {
        (Some(fen), Some(board)) => Position::from_fen(fen, board)
            .map_err(|e| format!("bad FEN \"{fen}\" for the {board} board: {e}")),
        (Some(fen), None) => {
            Position::from_fen_any(fen).map_err(|e| format!("bad FEN \"{fen}\": {e}"))
        }
        (None, board) => Ok(Position::start(board.unwrap_or_default())),
    }
}

/// The record of `game`, the `ordinal`-th in its file; `None` for an unfinished game (`*`).
/// Its pair is 0 unless the game has `X-Pair` ([`assign_pairs`] numbers the others).
///
/// # Errors
/// `(line, reason)`, as [`read_pgn`] lists them.
fn build_record(game: &Game, ordinal: u64) -> Result<Option<GameRecord>, (u64, String)> {
    let at = |reason: String| (game.line, format!("game {ordinal}: {reason}"));
    let white = game.tag("White").ok_or_else(|| at("no White tag".into()))?;
    let black = game.tag("Black").ok_or_else(|| at("no Black tag".into()))?;
    let Some(result) = game_result(game).map_err(at)? else {
        return Ok(None);
    };
    let (rules, named) = game
        .tag("Variant")
        .map_or(Some((Rules::Classic, None)), read_variant)
        .ok_or_else(|| {
            at(format!(
                "Variant \"{}\" is not Breakthrough (breakthrough or \
                 breakthrough-capture-only, with -RxC on another board than 8x8)",
                game.tag("Variant").unwrap_or_default()
            ))
        })?;
    let start = game_start(game, named).map_err(at)?;
    let (moves, last) = replay(game, ordinal, start, rules)?;
    let termination = termination(game, last, rules, result).map_err(at)?;
    let (move_info, used_ms) = move_info_and_times(game, moves.len(), start.side_to_move());
    let number = |name: &str| game.tag(name).and_then(leading_number);
    Ok(Some(GameRecord {
        game_id: number("X-GameId").unwrap_or(ordinal),
        round: number("Round").map_or(0, |r| u32::try_from(r).unwrap_or(u32::MAX)),
        pair: number("X-Pair").unwrap_or(0),
        opening_id: number("X-OpeningId").unwrap_or(0),
        opening: start.to_string(),
        white: white.to_string(),
        black: black.to_string(),
        result,
        termination,
        plies: u32::try_from(moves.len()).unwrap_or(u32::MAX),
        moves: moves
            .iter()
            .map(Move::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        white_ms: used_ms.white,
        black_ms: used_ms.black,
        started: started(game),
        white_stray: 0,
        black_stray: 0,
        move_info,
        claims: game.tag("X-Claims").unwrap_or_default().to_string(),
        // PGN comments give whole ms and no engine time.
        move_times: String::new(),
    }))
}

/// The games.csv `move_info` column of the first `plies` moves of `game`, from their comments
/// (empty when no move has a timed comment; a move without one gets `-/-/-/-/0`), and the
/// time each side used by them, ms: the sum of its moves' times. `first` made the first move.
fn move_info_and_times(game: &Game, plies: usize, first: Color) -> (String, ByColor<u64>) {
    let infos: Vec<Option<MoveInfo>> = (0..plies)
        .map(|i| {
            game.comments[i + 1]
                .iter()
                .find_map(|c| MoveInfo::parse_comment(c))
        })
        .collect();
    let mut used_ms = ByColor::from_fn(|_| 0u64);
    // Every move takes its turn, timed or not (a `{book}` move has no time).
    let movers = std::iter::successors(Some(first), |side| Some(side.opponent()));
    for (info, side) in infos.iter().zip(movers) {
        if let Some(info) = info {
            used_ms[side] += info.time_ms();
        }
    }
    if !infos.iter().any(Option::is_some) {
        return (String::new(), used_ms);
    }
    let filled: Vec<MoveInfo> = infos.into_iter().map(Option::unwrap_or_default).collect();
    (moves::encode_column(&filled), used_ms)
}

/// The game's result; `None` for `*`.
///
/// # Errors
/// A draw, or a `Result` tag the movetext's result token contradicts.
fn game_result(game: &Game) -> Result<Option<GameResult>, String> {
    let token = game.result.1.as_str();
    if let Some(tag) = game.tag("Result").filter(|tag| *tag != token) {
        return Err(format!(
            "the Result tag \"{tag}\" disagrees with the result `{token}` ending the moves \
             (line {})",
            game.result.0
        ));
    }
    match token {
        "1-0" => Ok(Some(GameResult::WhiteWins)),
        "0-1" => Ok(Some(GameResult::BlackWins)),
        "*" => Ok(None),
        other => Err(format!(
            "the result {other} is a draw: Breakthrough has none"
        )),
    }
}

/// The moves of `game` replayed from `start`, and the last position. A last move that is
/// not legal in a game lost by an illegal move is that move: it is left out.
///
/// # Errors
/// `(line, reason)` for another move that is not legal or does not read.
fn replay(
    game: &Game,
    ordinal: u64,
    start: Position,
    rules: Rules,
) -> Result<(Vec<Move>, Position), (u64, String)> {
    let mut position = start;
    let mut moves = Vec::new();
    for (i, (line, text)) in game.moves.iter().enumerate() {
        match resolve_move(&position, rules, text) {
            Ok(mv) => {
                moves.push(mv);
                position = position.play_unchecked(mv);
            }
            Err(_) if i + 1 == game.moves.len() && lost_by_illegal_move(game) => break,
            Err(why) => {
                return Err((
                    *line,
                    format!(
                        "game {ordinal}: move {} `{text}` ({} to move): {why}",
                        i + 1,
                        position.side_to_move()
                    ),
                ));
            }
        }
    }
    Ok((moves, position))
}

/// True when the tags or the final comment say the game was lost by an illegal move.
fn lost_by_illegal_move(game: &Game) -> bool {
    matches!(
        game.tag("Termination"),
        Some("rules infraction" | "illegal move")
    ) || final_word(game) == Some(Termination::IllegalMove)
}

/// The move `text` names in `position`: coordinates (`a2a3`, `a2-a3`, `a2xb3`) or SAN (`a3`,
/// `axb3`, `Pa3`).
///
/// # Errors
/// Why it names no legal move, or more than one.
fn resolve_move(position: &Position, rules: Rules, text: &str) -> Result<Move, String> {
    let plain: String = text.chars().filter(|c| !matches!(c, '-' | 'x')).collect();
    if plain.len() == 4
        && let Ok(mv) = plain.parse::<Move>()
    {
        return position
            .check_move(rules, mv)
            .map(|()| mv)
            .map_err(|e| e.reason.to_string());
    }
    let san = text.strip_prefix('P').unwrap_or(text);
    let capture = san.contains('x');
    let san: String = san.chars().filter(|&c| c != 'x').collect();
    if san.len() < 2 || !san.is_ascii() {
        return Err("not a move".into());
    }
    let (prefix, to) = san.split_at(san.len() - 2);
    let to: Square = to.parse().map_err(|_| "not a move".to_string())?;
    let from_file = prefix.bytes().find(|b| (b'a'..=b'h').contains(b));
    let from_rank = prefix.bytes().find(|b| (b'1'..=b'8').contains(b));
    let candidates: Vec<Move> = position
        .legal_moves(rules)
        .iter()
        .filter(|mv| mv.to == to)
        .filter(|mv| from_file.is_none_or(|f| mv.from.file() == f - b'a'))
        .filter(|mv| from_rank.is_none_or(|r| mv.from.rank() == r - b'1'))
        .filter(|mv| !capture || position.is_capture(*mv))
        .collect();
    match candidates[..] {
        [mv] => Ok(mv),
        [] => Err("no legal move goes there".into()),
        // A pawn move named by its square alone is the straight step, as in chess.
        _ => candidates
            .iter()
            .copied()
            .find(|mv| from_file.is_none() && mv.from.file() == to.file())
            .ok_or_else(|| "more than one legal move goes there".into()),
    }
}

/// bt-arena's termination word in a comment after the last move (`{time-forfeit: ...}`).
fn final_word(game: &Game) -> Option<Termination> {
    game.comments.last()?.iter().find_map(|comment| {
        let (word, _) = comment.split_once(':')?;
        Termination::ALL.into_iter().find(|t| t.name() == word)
    })
}

/// How the game ended (see the module documentation).
///
/// # Errors
/// When the last position is over and its winner is not the result's.
fn termination(
    game: &Game,
    last: Position,
    rules: Rules,
    result: GameResult,
) -> Result<Termination, String> {
    if let Some(outcome) = last.outcome(rules) {
        if GameResult::from_winner(outcome.winner) != result {
            return Err(format!(
                "the result {result} contradicts the last position: {outcome}"
            ));
        }
        return Ok(outcome.reason.into());
    }
    if let Some(word) = final_word(game).filter(|t| t.is_fault() || t.is_adjudication()) {
        return Ok(word);
    }
    Ok(match game.tag("Termination") {
        Some("time forfeit") => Termination::TimeForfeit,
        Some("rules infraction" | "illegal move") => Termination::IllegalMove,
        Some("abandoned" | "emergency" | "death") => Termination::Crash,
        Some("stalled connection") => Termination::Stall,
        _ => Termination::Adjudication,
    })
}

/// `started` from the `Date` tag and the `Time` tag: `2026-11-30T12:00:00Z`, or the date alone
/// (`2026-11-30`) without a time; empty when the date is incomplete.
fn started(game: &Game) -> String {
    let Some(date) = game.tag("Date").filter(|d| !d.contains('?')) else {
        return String::new();
    };
    let date = date.replace('.', "-");
    if humantime::parse_rfc3339(&format!("{date}T00:00:00Z")).is_err() {
        return String::new();
    }
    let time = game
        .tag("Time")
        .filter(|t| t.len() == 8 && !t.contains('?'));
    match time.map(|time| format!("{date}T{time}Z")) {
        Some(text) if humantime::parse_rfc3339(&text).is_ok() => text,
        _ => date,
    }
}

/// The number a tag value starts with (`3` of `3`, `3.1`).
fn leading_number(value: &str) -> Option<u64> {
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Numbers the game pairs: games with `X-Pair` keep it; the others pair two consecutive games
/// with the same engines, colours swapped and the same start (numbers after the largest
/// `X-Pair`); a game with no partner gets a pair of its own.
fn assign_pairs(mut games: Vec<GameRecord>) -> Vec<GameRecord> {
    let tagged: Vec<bool> = games.iter().map(|g| g.pair != 0).collect();
    let mut next = games.iter().map(|g| g.pair).max().unwrap_or(0) + 1;
    let mut i = 0;
    while i < games.len() {
        if tagged[i] {
            i += 1;
            continue;
        }
        games[i].pair = next;
        let partner = i + 1 < games.len()
            && !tagged[i + 1]
            && games[i + 1].white == games[i].black
            && games[i + 1].black == games[i].white
            && games[i + 1].opening == games[i].opening;
        if partner {
            games[i + 1].pair = next;
            i += 1;
        }
        next += 1;
        i += 1;
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::pgn::{RawGames, RawPgnGame, is_pgn};

    fn parse(text: &str) -> Result<ReadGames, RecordsError> {
        parse_pgn(text, Path::new("x.pgn"))
    }

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    const CUTECHESS: &str = "[Event \"?\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\
        [Variant \"breakthrough\"]\n[Termination \"time forfeit\"]\n\n\
        1. a3 {+0.20/5 0.5s} b6 {-0.10/6 0.25s} 2. a4 b5 3. axb5?! {0.00/1 0.1s} {White loses on time} 0-1\n\n\
        [White \"b\"]\n[Black \"a\"]\n[Result \"1-0\"]\n[Variant \"breakthrough\"]\n\n\
        1. a3 (1. b3 c6) b6 $2 2. b3 1-0\n";

    #[test]
    fn cutechess_games_read_with_san_comments_and_consecutive_pairs() {
        let read = parse(CUTECHESS).unwrap();
        assert_eq!(read.skipped, Vec::<String>::new());
        let [first, second] = &read.games[..] else {
            panic!("{:?}", read.games)
        };
        assert_eq!(first.moves, "a2a3 b7b6 a3a4 b6b5 a4b5");
        assert_eq!(first.termination, Termination::TimeForfeit);
        assert_eq!((first.white_ms, first.black_ms), (600, 250));
        assert_eq!(
            first.move_info,
            "20/5/-/-/500 -10/6/-/-/250 -/-/-/-/0 -/-/-/-/0 0/1/-/-/100"
        );
        assert_eq!((first.game_id, second.game_id), (1, 2));
        assert_eq!(first.pair, second.pair);
        assert_eq!(second.moves, "a2a3 b7b6 b2b3");
        assert_eq!(second.termination, Termination::Adjudication);
        assert_eq!(second.move_info, "");
        assert_eq!(first.opening, Position::startpos().to_string());
    }

    /// A move without a timed comment (cutechess's `{book}`) still takes its side's turn: the
    /// times after it go to the side that moved, not to the other one.
    #[test]
    fn a_move_without_a_time_does_not_shift_the_later_times_to_the_other_side() {
        let text = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n\
            1. a3 {book} b6 {0.25s} 2. a4 {0.5s} b5 {0.125s} 1-0\n";
        let game = &parse(text).unwrap().games[0];
        assert_eq!((game.white_ms, game.black_ms), (500, 375));
        assert_eq!(
            game.move_info,
            "-/-/-/-/0 -/-/-/-/250 -/-/-/-/500 -/-/-/-/125"
        );
    }

    #[test]
    fn bt_arena_pgn_reads_back_as_written() {
        use crate::records::pgn::{PgnStyle, format_game};
        use crate::records::tests::record;
        let mut games = vec![
            record(
                5,
                9,
                "x",
                "y",
                GameResult::WhiteWins,
                Termination::TimeForfeit,
            ),
            record(
                2,
                3,
                "y",
                "x",
                GameResult::BlackWins,
                Termination::IllegalMove,
            ),
        ];
        for game in &mut games {
            game.opening = Position::startpos().to_string();
            // PGN keeps the date only.
            game.started = "2026-11-30".into();
        }
        games[0].move_info = "35/12/18/10234/1000 M-2/-/-/-/200 -/-/-/-/300".into();
        games[0].white_ms = 1300;
        games[0].black_ms = 200;
        games[1].opening = "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b".into();
        games[1].moves = "a7a6 b2b3 a6a5".into();
        games[1].white_ms = 0;
        games[1].black_ms = 0;
        let text: String = games
            .iter()
            .map(|g| format_game(g, &PgnStyle::new("e", Rules::CaptureOnly)))
            .collect();
        let read = parse(&text).unwrap();
        assert_eq!(read.games, games);
    }

    #[test]
    fn the_board_comes_from_the_board_tag_the_variant_or_the_fen() {
        let start = |tags: &str| {
            let game = format!("[White \"a\"]\n[Black \"b\"]\n{tags}\n1. a2a3 1-0\n");
            parse(&game).map(|read| read.games[0].opening.clone())
        };
        assert_eq!(
            start("[Variant \"breakthrough-capture-only-5x4\"]\n").unwrap(),
            "pppp/pppp/4/PPPP/PPPP w"
        );
        assert_eq!(
            start("[Board \"5x5\"]\n").unwrap(),
            "ppppp/ppppp/5/PPPPP/PPPPP w"
        );
        assert_eq!(
            start("[FEN \"pppp/pppp/4/PPPP/PPPP w - - 0 1\"]\n[SetUp \"1\"]\n").unwrap(),
            "pppp/pppp/4/PPPP/PPPP w"
        );
        assert_eq!(
            start("[Variant \"breakthrough\"]\n").unwrap(),
            Position::startpos().to_string()
        );
    }

    #[test]
    fn unfinished_and_cut_off_games_are_skipped_and_named() {
        let text =
            "[White \"a\"]\n[Black \"b\"]\n\n1. a2a3 *\n\n[White \"a\"]\n[Black \"b\"]\n\n1. a2a3";
        let read = parse(text).unwrap();
        assert_eq!(read.games, []);
        assert_eq!(
            read.skipped,
            [
                "line 1: game 1 (a vs b) is unfinished (`*`)",
                "line 6: a game cut off at the end of the file"
            ]
        );
    }

    #[test]
    fn malformed_games_name_the_line() {
        assert_eq!(
            error("[White \"a\"]\n\n1. a2a3 1-0"),
            "x.pgn, line 1: game 1: no Black tag"
        );
        assert_eq!(
            error("[White \"a\"]\n[Black \"b\"]\n\n1. a2a3 1/2-1/2"),
            "x.pgn, line 1: game 1: the result 1/2-1/2 is a draw: Breakthrough has none"
        );
        assert_eq!(
            error("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. a2a3\n0-1"),
            "x.pgn, line 1: game 1: the Result tag \"1-0\" disagrees with the result `0-1` \
             ending the moves (line 6)"
        );
        assert_eq!(
            error("[White \"a\"]\n[Black \"b\"]\n[Variant \"chess\"]\n\n1. e4 1-0"),
            "x.pgn, line 1: game 1: Variant \"chess\" is not Breakthrough (breakthrough or \
             breakthrough-capture-only, with -RxC on another board than 8x8)"
        );
        let small = "[White \"a\"]\n[Black \"b\"]\n";
        assert_eq!(
            error(&format!(
                "{small}[Variant \"breakthrough-6x6\"]\n[Board \"6x5\"]\n\n1. a2a3 1-0"
            )),
            "x.pgn, line 1: game 1: Board \"6x5\" and Variant \"breakthrough-6x6\" name two \
             boards"
        );
        assert_eq!(
            error(&format!("{small}[Board \"9x9\"]\n\n1. a2a3 1-0")),
            "x.pgn, line 1: game 1: bad Board \"9x9\": a board of 9 ranks is not supported: \
             ranks and files go from 4 to 8"
        );
        assert_eq!(
            error(&format!(
                "{small}[Board \"6x6\"]\n[FEN \"ppppp/ppppp/5/5/PPPPP/PPPPP w\"]\n\n1. a2a3 1-0"
            )),
            "x.pgn, line 1: game 1: bad FEN \"ppppp/ppppp/5/5/PPPPP/PPPPP w\" for the 6x6 \
             board: rank 6 describes 5 squares, expected 6 (a 6x6 board)"
        );
        assert_eq!(
            error("[White \"a\"]\n[Black \"b\"]\n\n1. a2a3 a7a6\n2. a3a5 1-0"),
            "x.pgn, line 5: game 1: move 3 `a3a5` (White to move): not one step forward for \
             White"
        );
        assert!(
            error("[White \"a\"]\n[Black \"b\"]\n\n1. a2a3 {oops 1-0")
                .contains("line 4: a comment")
        );
        assert!(error("[White a]\n").contains("line 1: `[White a]` is not a tag"));
        let fen = "[White \"a\"]\n[Black \"b\"]\n[FEN \"8/8/8/8/8/8/8/P7 w - - 0 1\"]\n\n0-1";
        assert_eq!(
            error(fen),
            "x.pgn, line 1: game 1: the result 0-1 contradicts the last position: White \
             captured every Black pawn"
        );
    }

    #[test]
    fn a_game_without_its_result_is_not_read_into_the_next_one() {
        // Game 1 lost its movetext: its tags must not take game 2's moves and result.
        let game2 = "[White \"b\"]\n[Black \"a\"]\n[Result \"1-0\"]\n\n1. a2a3 1-0\n";
        let tags_only = format!("[White \"ghost\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n{game2}");
        assert_eq!(
            error(&tags_only),
            "x.pgn, line 1: game 1: no result (1-0, 0-1 or *) before the next game's tags at \
             line 5"
        );
        // Game 1 cut off in its moves.
        let cut = format!("[White \"a\"]\n[Black \"b\"]\n\n1. a2a3 a7a6\n\n{game2}");
        assert_eq!(
            error(&cut),
            "x.pgn, line 1: game 1: no result (1-0, 0-1 or *) before the next game's tags at \
             line 6"
        );
        // A variation left open would swallow every later game.
        let open =
            format!("[White \"a\"]\n[Black \"b\"]\n\n1. a2a3 (1. b2b3 1-0\n\n{game2}{game2}");
        assert_eq!(
            error(&open),
            "x.pgn, line 4: game 1: a variation `(` is never closed (the next game's tags start \
             at line 6)"
        );
        // The second game is numbered as such; tags after a comment between games still read.
        let second =
            format!("{game2}{{between games}}\n{game2}[White \"c\"]\n[Black \"d\"]\n1. a2a3");
        assert_eq!(
            error(&format!("{second}\n{game2}")),
            "x.pgn, line 12: game 3: no result (1-0, 0-1 or *) before the next game's tags at \
             line 15"
        );
        assert_eq!(parse(&second).unwrap().games.len(), 2);
    }

    #[test]
    fn pgn_is_told_from_csv() {
        assert!(is_pgn(Path::new("a.PGN"), ""));
        assert!(is_pgn(Path::new("a.txt"), "\u{feff}\n [Event \"x\"]"));
        assert!(!is_pgn(Path::new("games.csv"), "game_id,round"));
    }

    #[test]
    fn raw_games_split_at_event_tags_after_a_blank_line() {
        let game = |id: u64, comment: &str| {
            format!("[Event \"e\"]\n[X-GameId \"{id}\"]\n\n1. a2a3 {{{comment}}} 1-0\n\n")
        };
        let text = [game(1, "x\n[Event y]"), game(2, ""), game(7, "")].concat();
        let games: Vec<RawPgnGame> = RawGames::new(text.as_bytes())
            .collect::<std::io::Result<_>>()
            .unwrap();
        assert_eq!(
            games.iter().map(|g| g.game_id).collect::<Vec<_>>(),
            [Some(1), Some(2), Some(7)]
        );
        assert_eq!(games[0].text, game(1, "x\n[Event y]"));
        assert_eq!(
            games.iter().map(|g| g.text.as_str()).collect::<String>(),
            text
        );
        let cut = RawGames::new("[Event \"e\"]\n\n1. a2a3".as_bytes())
            .collect::<std::io::Result<Vec<_>>>()
            .unwrap();
        assert_eq!(cut.len(), 1);
        assert_eq!(cut[0].game_id, None);
    }
}
