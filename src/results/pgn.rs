//! PGN text of a finished game, as games.pgn holds it.
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
//! [SetUp "1"]                         these two only when the opening is not the start
//! [FEN "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b"]
//! [Termination "goal-rank"]           the kebab-case `Termination` name
//! [PlyCount "3"]
//! ```
//!
//! a blank line, the numbered moves (`1. a2a3 a7a6 2. b2b3`, or `1... a7a6 2. ...` when Black
//! moves first) wrapped at 79 columns, a comment saying how the game ended
//! (`{White reaches rank 8}`), the result, and a blank line.

use super::GameRecord;
use crate::rules::{Color, Position, Rules};

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

/// The PGN text of one game (see the module documentation), ending in a blank line. `event`
/// is the `Event` tag.
pub fn format_game(record: &GameRecord, rules: Rules, event: &str) -> String {
    let opening = record.opening.parse::<Position>().ok();
    let mut text = String::new();
    let mut tag = |name: &str, value: &str| {
        text.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    };
    tag("Event", event);
    tag("Site", "?");
    tag("Date", &pgn_date(&record.started));
    tag("Round", &record.round.to_string());
    tag("White", &record.white);
    tag("Black", &record.black);
    tag("Result", record.result.as_str());
    tag("Variant", variant(rules));
    if opening != Some(Position::startpos()) {
        let fen = opening.map_or_else(|| record.opening.clone(), |p| p.to_string());
        tag("SetUp", "1");
        tag("FEN", &fen);
    }
    tag("Termination", record.termination.name());
    tag("PlyCount", &record.plies.to_string());
    text.push('\n');
    let first_mover = opening.map_or(Color::White, |p| p.side_to_move());
    text.push_str(&movetext(record, first_mover));
    text.push_str("\n\n");
    text
}

/// The movetext: numbered moves, the ending as a comment, the result; wrapped, no final
/// newline.
fn movetext(record: &GameRecord, first_mover: Color) -> String {
    let mut units = move_units(&record.moves, first_mover);
    let ending = record.termination.describe(record.result.winner());
    units.push(format!("{{{ending}}}"));
    units.push(record.result.as_str().to_string());
    wrap(&units, LINE_WIDTH)
}

/// The moves as wrapping units: `1. a2a3`, `a7a6`, `2. b2b3`, ... (`1... a7a6` first when
/// Black moves first).
fn move_units(moves: &str, first_mover: Color) -> Vec<String> {
    let offset = usize::from(first_mover == Color::Black);
    moves
        .split_whitespace()
        .enumerate()
        .map(|(i, mv)| {
            let ply = i + offset;
            let number = ply / 2 + 1;
            match (ply % 2, i) {
                (0, _) => format!("{number}. {mv}"),
                (_, 0) => format!("{number}... {mv}"),
                _ => mv.to_string(),
            }
        })
        .collect()
}

/// Joins `units` with spaces into lines of at most `width` characters (a longer unit gets a
/// line of its own).
fn wrap(units: &[String], width: usize) -> String {
    let mut text = String::new();
    let mut line_len = 0;
    for unit in units {
        if line_len > 0 && line_len + 1 + unit.len() > width {
            text.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            text.push(' ');
            line_len += 1;
        }
        text.push_str(unit);
        line_len += unit.len();
    }
    text
}

/// `YYYY.MM.DD` from an RFC 3339 time, `????.??.??` when `started` is not one.
fn pgn_date(started: &str) -> String {
    match (humantime::parse_rfc3339_weak(started), started.get(..10)) {
        (Ok(_), Some(date)) => date.replace('-', "."),
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
    use crate::results::tests::record;
    use crate::results::{GameResult, Termination};

    #[test]
    fn a_known_game_from_the_start() {
        let game = record(
            7,
            4,
            "alpha",
            "beta \"b\"",
            GameResult::WhiteWins,
            Termination::GoalRank,
        );
        assert_eq!(
            format_game(&game, Rules::Classic, "test event"),
            "[Event \"test event\"]\n\
             [Site \"?\"]\n\
             [Date \"2026.11.30\"]\n\
             [Round \"1\"]\n\
             [White \"alpha\"]\n\
             [Black \"beta \\\"b\\\"\"]\n\
             [Result \"1-0\"]\n\
             [Variant \"breakthrough\"]\n\
             [Termination \"goal-rank\"]\n\
             [PlyCount \"3\"]\n\
             \n\
             1. a2a3 a7a6 2. b2b3 {White reaches rank 8} 1-0\n\
             \n"
        );
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
        let text = format_game(&game, Rules::CaptureOnly, "bt-arena");
        assert!(text.contains("[Date \"????.??.??\"]\n"), "{text}");
        assert!(text.contains("[Variant \"breakthrough-capture-only\"]\n"));
        assert!(text.contains(
            "[SetUp \"1\"]\n[FEN \"pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b\"]\n\
             [Termination \"illegal-move\"]\n"
        ));
        assert!(
            text.ends_with("\n\n1... a7a6 2. b2b3 a6a5 {White makes an illegal move} 0-1\n\n"),
            "{text}"
        );
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
        let text = format_game(&game, Rules::Classic, "e");
        let movetext = text.split("\n\n").nth(1).unwrap();
        assert!(movetext.lines().count() > 2);
        assert!(movetext.lines().all(|line| line.len() <= 79), "{movetext}");
        assert!(movetext.starts_with("1. a2a3 a2a3 2. a2a3"));
        assert!(!movetext.lines().any(|line| line.ends_with('.')));
        assert!(movetext.ends_with("{Black captures every White pawn} 0-1"));
    }
}
