//! PGN text of a finished game, as games.pgn holds it, in the conventions of cutechess-cli
//! and fastchess, so that other tools read it.
//!
//! One game is the tags
//!
//! ```text
//! [Event "bt-arena"]
//! [Site "?"]
//! [Date "2026.11.30"]                 from `started`; "????.??.??" when that is not RFC 3339
//! [Round "1"]
//! [White "alpha"]
//! [Black "beta"]
//! [Result "1-0"]
//! [Variant "breakthrough"]            see `variant`
//! [Board "6x6"]                       only on a board other than 8×8 (see `variant_name`)
//! [SetUp "1"]                         these two only when the opening is not the 8×8 start;
//! [FEN "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b - - 0 1"]   six fields of Fairy-Stockfish
//! [TimeControl "10+0.1"]              PGN standard: BASE+INC in seconds, `-` for a fixed limit;
//! [X-Limit "depth=3"]                 ... which this tag then names (see `TimeControl::pgn_tag`)
//! [Termination "normal"]              PGN standard value (`Termination::pgn_tag`)
//! [PlyCount "3"]
//! [X-GameId "7"]                      bt-arena's game number, game pair and opening number:
//! [X-Pair "4"]                        pairs are told apart even when games finish out of order
//! [X-OpeningId "4"]
//! ```
//!
//! An engine built from source adds `X-WhiteCommit`/`X-BlackCommit` (the full commit hash),
//! `X-WhiteBuild`/`X-BlackBuild` (the build command) and `X-WhiteBench`/`X-BlackBench` (the
//! bench signature), after `X-OpeningId`, for the side it played (see [`PgnStyle::builds`]).
//! A game whose engines' claims were checked adds `X-Claims`, games.csv's `claims` column (see
//! [`crate::records::claims`]), last.
//!
//! When the two engines have different limits, `WhiteTimeControl` and `BlackTimeControl` (and
//! `X-WhiteLimit`, `X-BlackLimit`) replace `TimeControl` (and `X-Limit`), as cutechess-cli and
//! fastchess write them. Then a blank line, the numbered moves (`1. a2a3 a7a6 2. b2b3`, or
//! `1... a7a6 2. ...` when Black moves first), each followed by its comment
//! (`{+0.35/12 0.120s, n=10234, sd=18, pv="a7a6 b2b3"}`, see [`crate::records::moves`]; trimmed or left
//! out with [`CommentDetail`]), wrapped at 79 columns, a comment with bt-arena's termination word
//! and how the game ended (`{goal-rank: White reaches rank 8}`; an adjudication's own account
//! when the game was just played, e.g. `{proof: White wins in 5 plies: e6e7 d8e7 f6f7 e7f6
//! f7f8}`), the result, and a blank line.

use crate::records::GameRecord;
use crate::records::moves::{CommentDetail, MoveInfo};
use crate::records::provenance::EngineProvenance;
use crate::rules::{Board, Color, Position, Rules};
use crate::time_control::TimeControl;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Longest movetext line.
const LINE_WIDTH: usize = 79;

/// The PGN `Variant` tag of a rule set: `breakthrough` for [`Rules::Classic`],
/// `breakthrough-capture-only` for [`Rules::CaptureOnly`] (a name of our own: no other program
/// knows that rule set).
pub const fn variant(rules: Rules) -> &'static str {
    match rules {
        Rules::Classic => "breakthrough",
        Rules::CaptureOnly => "breakthrough-capture-only",
    }
}

/// The PGN `Variant` tag of a game under `rules` on `board`: [`variant`] on 8×8, else the
/// name of that board's variant in the Fairy-Stockfish variants file bt-arena ships
/// (`engines/fairy-stockfish/variants.ini`): `breakthrough-6x6`, `breakthrough-capture-only-6x5`
/// (what cutechess-cli writes when it plays that variant).
pub fn variant_name(rules: Rules, board: Board) -> String {
    match board.is_standard() {
        true => variant(rules).to_string(),
        false => format!("{}-{board}", variant(rules)),
    }
}

/// The fixed limit of `limit` for the `X-Limit` tags (`st=0.5`, `depth=3`), `None` for a
/// clock (see [`TimeControl::pgn_tag`]).
fn fixed(limit: &TimeControl) -> Option<String> {
    match limit {
        TimeControl::Clock { .. } => None,
        fixed => Some(fixed.to_string()),
    }
}

/// How the games of a run are written.
#[derive(Clone, Debug, PartialEq)]
pub struct PgnStyle {
    /// The `Event` tag.
    pub event: String,
    /// The rule set (the `Variant` tag).
    pub rules: Rules,
    /// Each engine's limit, by engine name; an engine not listed gets no time control tag.
    pub limits: Vec<(String, TimeControl)>,
    /// How much each move's comment says.
    pub comments: CommentDetail,
    /// Engines built from source (or with a pinned bench), by engine name: their commit,
    /// build command and bench signature become `X-WhiteCommit`, `X-WhiteBuild`,
    /// `X-WhiteBench` (and `X-Black...`) tags.
    pub builds: BTreeMap<String, EngineProvenance>,
}

impl PgnStyle {
    /// Event `event`, rule set `rules`, no limits, full comments.
    pub fn new(event: impl Into<String>, rules: Rules) -> PgnStyle {
        PgnStyle {
            event: event.into(),
            rules,
            limits: Vec::new(),
            comments: CommentDetail::Full,
            builds: BTreeMap::new(),
        }
    }

    /// The limit of engine `name`.
    fn limit(&self, name: &str) -> Option<&TimeControl> {
        self.limits.iter().find(|(n, _)| n == name).map(|(_, l)| l)
    }
}

/// The six-field FEN of a position, as Fairy-Stockfish writes it for Breakthrough:
/// `<board> <side> - - 0 1` (no castling, no en passant; the clocks start afresh).
pub fn fen(position: &Position) -> String {
    format!("{position} - - 0 1")
}

/// The PGN text of one game (see the module documentation), ending in a blank line; the move
/// comments come from the record's `move_info` (which keeps no PV; a column that does not
/// read gives no move comments).
pub fn format_game(record: &GameRecord, style: &PgnStyle) -> String {
    // PGN comments carry whole ms: `move_info` alone says them (not `move_times`' µs).
    let infos = crate::records::moves::decode_column(&record.move_info).unwrap_or_default();
    format_game_with(record, &infos, style)
}

/// [`format_game`] with the move comments from `infos` (one per move, PVs included) instead
/// of the record's `move_info`.
pub fn format_game_with(record: &GameRecord, infos: &[MoveInfo], style: &PgnStyle) -> String {
    format_game_ending(record, infos, None, style)
}

/// [`format_game_with`], the final comment saying `ending` after the termination word instead
/// of [`Termination::describe`](crate::records::Termination::describe)'s sentence: an adjudication's
/// own account (`{proof: White wins in 5 plies: e6e7 d8e7 ...}`), which games.csv does not
/// keep.
pub fn format_game_ending(
    record: &GameRecord,
    infos: &[MoveInfo],
    ending: Option<&str>,
    style: &PgnStyle,
) -> String {
    let opening = record.start();
    let board = opening.map_or(Board::STANDARD, |p| p.board());
    let mut text = String::new();
    let mut tag = |name: &str, value: &str| {
        // Writing to a String cannot fail.
        let _ = writeln!(text, "[{name} \"{}\"]", escape(value));
    };
    tag("Event", &style.event);
    tag("Site", "?");
    tag("Date", &pgn_date(&record.started));
    tag("Round", &record.round.to_string());
    tag("White", &record.white);
    tag("Black", &record.black);
    tag("Result", record.result.as_str());
    tag("Variant", &variant_name(style.rules, board));
    if !board.is_standard() {
        // A reader that knows no variants file learns the size here and from the FEN.
        tag("Board", &board.to_string());
    }
    if opening != Some(Position::startpos()) {
        let fen = opening.map_or_else(|| record.opening.clone(), |p| fen(&p));
        tag("SetUp", "1");
        tag("FEN", &fen);
    }
    match (style.limit(&record.white), style.limit(&record.black)) {
        (Some(white), Some(black)) if white == black => {
            tag("TimeControl", &white.pgn_tag());
            if let Some(limit) = fixed(white) {
                tag("X-Limit", &limit);
            }
        }
        (white, black) => {
            for (side, limit) in [("White", white), ("Black", black)] {
                if let Some(limit) = limit {
                    tag(&format!("{side}TimeControl"), &limit.pgn_tag());
                    if let Some(fixed) = fixed(limit) {
                        tag(&format!("X-{side}Limit"), &fixed);
                    }
                }
            }
        }
    }
    tag("Termination", record.termination.pgn_tag());
    tag("PlyCount", &record.plies.to_string());
    tag("X-GameId", &record.game_id.to_string());
    tag("X-Pair", &record.pair.to_string());
    tag("X-OpeningId", &record.opening_id.to_string());
    for (side, name) in [("White", &record.white), ("Black", &record.black)] {
        if let Some(build) = style.builds.get(name) {
            if let Some(commit) = &build.commit {
                tag(&format!("X-{side}Commit"), commit);
            }
            if let Some(command) = &build.build {
                tag(&format!("X-{side}Build"), command);
            }
            if let Some(bench) = build.bench {
                tag(&format!("X-{side}Bench"), &bench.to_string());
            }
        }
    }
    if !record.claims.is_empty() {
        tag("X-Claims", &record.claims);
    }
    text.push('\n');
    let first_mover = opening.map_or(Color::White, |p| p.side_to_move());
    text.push_str(&movetext(
        record,
        infos,
        ending,
        first_mover,
        board,
        style.comments,
    ));
    text.push_str("\n\n");
    text
}

/// `game` (the text of one game, as [`format_game_with`] writes it) with `tags` (name,
/// value) added after its own tags, e.g. the parameter values of a tune's game.
pub fn insert_tags(game: &str, tags: &[(String, String)]) -> String {
    let end = game.find("\n\n").map_or(game.len(), |at| at + 1);
    let mut text = String::with_capacity(game.len() + 64 * tags.len());
    text.push_str(&game[..end]);
    for (name, value) in tags {
        // Writing to a String cannot fail.
        let _ = writeln!(text, "[{name} \"{}\"]", escape(value));
    }
    text.push_str(&game[end..]);
    text
}

/// The movetext: numbered moves with their comments from `infos` (none past its end), the
/// ending as a comment (`ending`, or the termination's sentence on `board`), the result;
/// wrapped, no final newline.
fn movetext(
    record: &GameRecord,
    infos: &[MoveInfo],
    ending: Option<&str>,
    first_mover: Color,
    board: Board,
    detail: CommentDetail,
) -> String {
    let mut text = Wrapped::new(LINE_WIDTH);
    // Each unit is written here first, then wrapped: one buffer for the whole game.
    let mut unit = String::new();
    for (i, mv) in record.moves.split_whitespace().enumerate() {
        unit.clear();
        write_move_unit(&mut unit, i, mv, first_mover);
        text.push(&unit);
        unit.clear();
        if let Some(info) = infos.get(i) {
            unit.push('{');
            if info.write_comment(detail, &mut unit) {
                unit.push('}');
                text.push(&unit);
            }
        }
    }
    unit.clear();
    let _ = write!(unit, "{{{}: ", record.termination.name());
    match ending {
        // A brace would end the comment early.
        Some(ending) => unit.extend(ending.chars().filter(|c| !matches!(c, '{' | '}'))),
        None => unit.push_str(&record.termination.describe(record.result.winner(), board)),
    }
    unit.push('}');
    text.push(&unit);
    text.push(record.result.as_str());
    text.text
}

/// The comment of each move of `record` (`None` where there is none), for the game viewer.
pub fn move_comments(record: &GameRecord, detail: CommentDetail) -> Vec<Option<String>> {
    // Comments carry whole ms: `move_info` alone says them (not `move_times`' µs).
    let infos = crate::records::moves::decode_column(&record.move_info).unwrap_or_default();
    (0..record.moves.split_whitespace().count())
        .map(|i| {
            infos
                .get(i)
                .and_then(|info: &MoveInfo| info.comment(detail))
        })
        .collect()
}

/// Appends the unit of the `i`-th move `mv`: `1. a2a3`, `a7a6`, `2. b2b3`, ... (`1... a7a6`
/// first when Black moves first).
fn write_move_unit(out: &mut String, i: usize, mv: &str, first_mover: Color) {
    let ply = i + usize::from(first_mover == Color::Black);
    let number = ply / 2 + 1;
    // Writing to a String cannot fail.
    let _ = match (ply % 2, i) {
        (0, _) => write!(out, "{number}. {mv}"),
        (_, 0) => write!(out, "{number}... {mv}"),
        _ => write!(out, "{mv}"),
    };
}

/// Text joined by spaces into lines of at most `width` bytes (a longer unit gets a line of its
/// own; a longer comment is broken at its spaces).
struct Wrapped {
    text: String,
    line_len: usize,
    width: usize,
}

impl Wrapped {
    fn new(width: usize) -> Wrapped {
        Wrapped {
            text: String::new(),
            line_len: 0,
            width,
        }
    }

    /// Adds `unit`, broken at its spaces when it is a comment longer than the width.
    fn push(&mut self, unit: &str) {
        if unit.len() > self.width && unit.starts_with('{') {
            for piece in unit.split(' ') {
                self.push_piece(piece);
            }
        } else {
            self.push_piece(unit);
        }
    }

    fn push_piece(&mut self, piece: &str) {
        if self.line_len > 0 && self.line_len + 1 + piece.len() > self.width {
            self.text.push('\n');
            self.line_len = 0;
        } else if self.line_len > 0 {
            self.text.push(' ');
            self.line_len += 1;
        }
        self.text.push_str(piece);
        self.line_len += piece.len();
    }
}

/// `YYYY.MM.DD` from an RFC 3339 time or a date (`2026-11-30`), `????.??.??` when `started`
/// is neither.
fn pgn_date(started: &str) -> String {
    match started.get(..10) {
        Some(date) if humantime::parse_rfc3339(&format!("{date}T00:00:00Z")).is_ok() => {
            date.replace('-', ".")
        }
        _ => "????.??.??".to_string(),
    }
}

/// A PGN string-token body: `\` and `"` escaped with a backslash.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::record;
    use crate::records::{GameResult, Termination};

    fn style(rules: Rules) -> PgnStyle {
        PgnStyle::new("test event", rules)
    }

    #[test]
    fn a_known_game_from_the_start() {
        let mut game = record(
            7,
            4,
            "alpha",
            "beta \"b\"",
            GameResult::WhiteWins,
            Termination::GoalRank,
        );
        game.move_info = "35/12/18/10234/120 M-2/-/-/-/3".into();
        let mut style = style(Rules::Classic);
        let clock = TimeControl::parse_clock("10+0.1").unwrap();
        style.limits = vec![("alpha".into(), clock), ("beta \"b\"".into(), clock)];
        assert_eq!(
            format_game(&game, &style),
            "[Event \"test event\"]\n\
             [Site \"?\"]\n\
             [Date \"2026.11.30\"]\n\
             [Round \"1\"]\n\
             [White \"alpha\"]\n\
             [Black \"beta \\\"b\\\"\"]\n\
             [Result \"1-0\"]\n\
             [Variant \"breakthrough\"]\n\
             [TimeControl \"10+0.1\"]\n\
             [Termination \"normal\"]\n\
             [PlyCount \"3\"]\n\
             [X-GameId \"7\"]\n\
             [X-Pair \"4\"]\n\
             [X-OpeningId \"4\"]\n\
             \n\
             1. a2a3 {+0.35/12 0.120s, n=10234, sd=18} a7a6 {-M4/0 0.003s} 2. b2b3\n\
             {goal-rank: White reaches rank 8} 1-0\n\
             \n"
        );
        style.comments = CommentDetail::Short;
        assert!(format_game(&game, &style).contains("1. a2a3 {+0.35/12 0.120s} a7a6"));
        style.comments = CommentDetail::None;
        assert!(format_game(&game, &style).contains("\n1. a2a3 a7a6 2. b2b3 {goal-rank: "));
    }

    #[test]
    fn a_game_from_an_opening_with_black_to_move() {
        let mut game = record(
            8,
            4,
            "beta",
            "alpha",
            GameResult::BlackWins,
            Termination::IllegalMove,
        );
        game.opening = "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b - - 0 1".into();
        game.moves = "a7a6 b2b3 a6a5".into();
        game.started = "yesterday".into();
        let mut style = style(Rules::CaptureOnly);
        style.limits = vec![
            ("beta".into(), TimeControl::Depth(3)),
            ("alpha".into(), TimeControl::parse_clock("8").unwrap()),
        ];
        let text = format_game(&game, &style);
        assert!(text.contains("[Date \"????.??.??\"]\n"), "{text}");
        assert!(text.contains("[Variant \"breakthrough-capture-only\"]\n"));
        assert!(
            text.contains(
                "[SetUp \"1\"]\n\
                 [FEN \"pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b - - 0 1\"]\n\
                 [WhiteTimeControl \"-\"]\n\
                 [X-WhiteLimit \"depth=3\"]\n\
                 [BlackTimeControl \"8\"]\n\
                 [Termination \"rules infraction\"]\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                "\n\n1... a7a6 2. b2b3 a6a5 {illegal-move: White makes an illegal move} 0-1\n\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn fixed_limits_are_a_dash_and_an_x_tag() {
        let game = record(1, 1, "a", "b", GameResult::WhiteWins, Termination::Crash);
        let mut style = style(Rules::Classic);
        let st = TimeControl::MoveTime(500);
        style.limits = vec![("a".into(), st), ("b".into(), st)];
        let text = format_game(&game, &style);
        assert!(
            text.contains(
                "[TimeControl \"-\"]\n[X-Limit \"st=0.5\"]\n[Termination \"abandoned\"]\n"
            ),
            "{text}"
        );
        let tag = |tc: &str| TimeControl::parse_clock(tc).unwrap().pgn_tag();
        assert_eq!(tag("60+0.6"), "60+0.6");
        assert_eq!(tag("40/60+0.6"), "40/60+0.6");
        assert_eq!(tag("0.5+0.02"), "0.5+0.02");
        assert_eq!(tag("2"), "2");
        assert_eq!(tag("2+0"), "2");
    }

    #[test]
    fn an_adjudication_ends_with_its_own_account_and_reads_back() {
        use crate::records::pgn::parse_pgn;
        let mut game = record(3, 2, "a", "b", GameResult::WhiteWins, Termination::Proof);
        game.moves = "e2e3 d7d6 e3e4".into();
        let style = style(Rules::CaptureOnly);
        let proof = "White wins in 5 plies: e4e5 d6e5 f2f3 e5e4 f3{f4}";
        let text = format_game_ending(&game, &[], Some(proof), &style);
        assert!(text.contains("[Termination \"adjudication\"]\n"), "{text}");
        assert!(
            text.ends_with(
                "1. e2e3 d7d6 2. e3e4 {proof: White wins in 5 plies: e4e5 d6e5 f2f3 e5e4 f3f4}\n\
                 1-0\n\n"
            ),
            "{text}"
        );
        // Without its account (written again from games.csv), the sentence.
        let plain = format_game(&game, &style);
        assert!(
            plain.contains("{proof: White wins by proof} 1-0"),
            "{plain}"
        );
        game.termination = Termination::Resign;
        game.result = GameResult::BlackWins;
        let resigned = format_game_ending(
            &game,
            &[],
            Some("White resigns: -5.00 or worse for 3 moves"),
            &style,
        );
        assert!(resigned.contains("{resign: White resigns: -5.00 or worse for 3 moves} 0-1"));
        for (text, termination) in [
            (&text, Termination::Proof),
            (&plain, Termination::Proof),
            (&resigned, Termination::Resign),
        ] {
            let read = parse_pgn(text, std::path::Path::new("g.pgn")).unwrap();
            assert_eq!(read.games.len(), 1);
            assert_eq!(read.games[0].termination, termination, "{text}");
            assert_eq!(read.games[0].moves, "e2e3 d7d6 e3e4");
        }
    }

    #[test]
    fn long_movetext_wraps_at_79_columns() {
        let mut game = record(
            1,
            1,
            "a",
            "b",
            GameResult::BlackWins,
            Termination::AllCaptured,
        );
        game.moves = vec!["a2a3"; 40].join(" ");
        game.move_info = vec!["-/-/-/-/1"; 40].join(" ");
        let text = format_game(&game, &style(Rules::Classic));
        let movetext = text.split("\n\n").nth(1).unwrap();
        assert!(movetext.lines().count() > 2);
        assert!(movetext.lines().all(|line| line.len() <= 79), "{movetext}");
        assert!(movetext.starts_with("1. a2a3 {0.001s} a2a3 {0.001s} 2. a2a3"));
        assert!(!movetext.lines().any(|line| line.ends_with('.')));
        assert!(movetext.ends_with("{all-captured: Black captures every White pawn} 0-1"));
    }

    #[test]
    fn engines_built_from_source_tag_their_commit_build_and_bench() {
        let game = record(
            3,
            2,
            "new@1a2b3c4",
            "base",
            GameResult::BlackWins,
            Termination::GoalRank,
        );
        let mut style = style(Rules::CaptureOnly);
        style.builds.insert(
            "new@1a2b3c4".into(),
            EngineProvenance {
                commit: Some("1a2b3c4".into()),
                build: Some("make EXE=\"x\"".into()),
                bench: Some(4242),
                ..EngineProvenance::default()
            },
        );
        style.builds.insert(
            "base".into(),
            EngineProvenance {
                bench: Some(77),
                ..EngineProvenance::default()
            },
        );
        let text = format_game(&game, &style);
        assert!(
            text.contains(
                "[X-OpeningId \"2\"]\n[X-WhiteCommit \"1a2b3c4\"]\n\
                 [X-WhiteBuild \"make EXE=\\\"x\\\"\"]\n[X-WhiteBench \"4242\"]\n\
                 [X-BlackBench \"77\"]\n\n"
            ),
            "{text}"
        );
    }
}
