//! What an engine said about each of its moves: the last score, depth, selective depth, nodes,
//! time and principal variation it reported, and the time the move took; written three ways.
//!
//! * games.csv column `move_info`: one token per ply, separated by single spaces, each
//!   `SCORE/DEPTH/SELDEPTH/NODES/MS` with `-` for what the engine did not report; `SCORE` is
//!   centipawns (`35`, `-12`) or `M` and the engine's mate count (`M3`, `M-2`); `MS` the
//!   move's wall time in whole ms. No PV (it would make every row long). E.g.
//!   `35/12/18/10234/120 -/-/-/-/3`.
//! * games.csv column `move_times` (since the 19-column format): one token per ply,
//!   `WALL/ENGINE` in µs: the wall time from `go` to `bestmove` and the engine's own `info
//!   time` (ms by the protocol, times 1000), `-` when it reported none. E.g.
//!   `120345/118000 3120/-`. Their difference is the latency of the move: the pipe, the
//!   scheduling and whatever the engine does outside its own clock
//!   ([`crate::report::latency`]). Both columns' tokens hold no comma and no quote, so they
//!   never need CSV quoting.
//! * A PGN move comment ([`MoveInfo::comment`]) in the cutechess/fastchess form:
//!   `+0.35/12 0.120s`, with `, n=10234, sd=18, pv="a7a6 b2b3"` after it in
//!   [`CommentDetail::Full`].
//! * The game viewer of report.html shows the same comment text.
//!
//! Scores are the engine's own, from the mover's point of view (as cutechess and fastchess
//! write them). A mate is written as cutechess writes it: `+M9` when the mover mates in 9 plies
//! (`score mate 5`), `-M8` when it is mated in 8 plies (`score mate -4`).

use crate::protocol::Score;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::str::FromStr;

/// The cutechess form of an engine's score of its move (its own, the mover's, point of
/// view): `+0.35`, `-1.20`, `0.00`, `+M9`, `-M8` (mates in plies).
pub fn score_pgn(score: Score) -> String {
    let mut text = String::new();
    write_score_pgn(score, &mut text);
    text
}

/// Appends [`score_pgn`]'s text to `out`.
pub fn write_score_pgn(score: Score, out: &mut String) {
    // Writing to a String cannot fail.
    let _ = match score {
        Score::Cp(cp) => {
            let sign = if cp > 0 { "+" } else { "" };
            write!(out, "{sign}{:.2}", f64::from(cp) / 100.0)
        }
        // In i64: twice an engine's `score mate N` may not fit an i32.
        Score::Mate(moves) if moves > 0 => write!(out, "+M{}", 2 * i64::from(moves) - 1),
        Score::Mate(moves) => write!(out, "-M{}", -2 * i64::from(moves)),
    };
}

/// Reads [`score_pgn`]'s form back (a mate in plies becomes moves again); `None` when `text`
/// is not a score.
pub fn parse_score_pgn(text: &str) -> Option<Score> {
    if let Some(plies) = text.strip_prefix("+M") {
        let plies: i64 = plies.parse().ok()?;
        return i32::try_from(plies / 2 + plies % 2).ok().map(Score::Mate);
    }
    if let Some(plies) = text.strip_prefix("-M") {
        let plies: i64 = plies.parse().ok()?;
        return i32::try_from(-(plies / 2)).ok().map(Score::Mate);
    }
    let pawns: f64 = text.parse().ok()?;
    let cp = (pawns * 100.0).round();
    #[allow(clippy::cast_possible_truncation)] // in i32's range, checked
    (cp.abs() <= f64::from(i32::MAX)).then_some(Score::Cp(cp as i32))
}

/// How much a PGN move comment says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommentDetail {
    /// Score, depth and time, then nodes, selective depth and PV when the engine gave them:
    /// `{+0.35/12 0.120s, n=10234, sd=18, pv="a7a6 b2b3"}`.
    #[default]
    Full,
    /// Score, depth and time only: `{+0.35/12 0.120s}`.
    Short,
    /// No move comments (the comment saying how the game ended stays).
    None,
}

crate::named_enum!(CommentDetail, "PGN comment detail", [Full => "full", Short => "short", None => "none"]);

/// What the engine reported for one move, and the time it took.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveInfo {
    /// The last score reported, mover's view.
    pub score: Option<Score>,
    /// The last depth reported, plies.
    pub depth: Option<u32>,
    /// The last selective depth reported, plies.
    pub seldepth: Option<u32>,
    /// The last node count reported.
    pub nodes: Option<u64>,
    /// Wall time from sending `go` to reading the `bestmove` (the time charged to the
    /// clock), µs.
    pub time_us: u64,
    /// The engine's own time for the move: the last `info ... time` it reported (whole ms by
    /// the protocol) in µs, a multiple of 1000; `None` when it reported none.
    pub engine_time_us: Option<u64>,
    /// The last principal variation reported, moves as the engine wrote them (not kept in
    /// games.csv).
    pub pv: Vec<String>,
    /// A CodinGame bot's message after its move (free text: kept in the PGN comment with
    /// [`CommentDetail::Full`], never in games.csv).
    pub message: Option<String>,
}

impl MoveInfo {
    /// [`time_us`](MoveInfo::time_us) in whole ms, rounded down (games.csv's `move_info`, the
    /// PGN comment).
    pub const fn time_ms(&self) -> u64 {
        self.time_us / 1000
    }

    /// The PGN comment's text (without braces): `+0.35/12 0.120s` (depth 0 when not reported;
    /// just `0.120s` without a score), then with [`CommentDetail::Full`] `, n=.., sd=..,
    /// pv=".."` for what was reported, and a bot's message as `, msg=".."` (without braces,
    /// quotes and control characters). `None` with [`CommentDetail::None`]. The PV loses any
    /// `{`, `}` or `"` (they would end the comment or its quotes), `,` (`, ` separates the
    /// comment's fields: a move `a2a3,` would cut the PV short when read back) and control
    /// characters (NUL, escape sequences: PGN is printable text).
    pub fn comment(&self, detail: CommentDetail) -> Option<String> {
        let mut text = String::new();
        self.write_comment(detail, &mut text).then_some(text)
    }

    /// Appends [`comment`](MoveInfo::comment)'s text to `out`; false (and nothing written)
    /// with [`CommentDetail::None`].
    pub fn write_comment(&self, detail: CommentDetail, out: &mut String) -> bool {
        if detail == CommentDetail::None {
            return false;
        }
        // Writing to a String cannot fail.
        if let Some(score) = self.score {
            write_score_pgn(score, out);
            let _ = write!(out, "/{} ", self.depth.unwrap_or(0));
        }
        // Seconds with three decimals, from whole ms: `0.120s`.
        let ms = self.time_ms();
        let _ = write!(out, "{}.{:03}s", ms / 1000, ms % 1000);
        if detail == CommentDetail::Full {
            if let Some(nodes) = self.nodes {
                let _ = write!(out, ", n={nodes}");
            }
            if let Some(seldepth) = self.seldepth {
                let _ = write!(out, ", sd={seldepth}");
            }
            // Commas go too: a PV move with one would read back cut (a fuzz finding).
            let printable = |c: char| !("{}\",".contains(c) || c.is_control());
            let mut moves = self.pv.iter().filter(|mv| mv.chars().any(printable));
            if let Some(first) = moves.next() {
                out.push_str(", pv=\"");
                out.extend(first.chars().filter(|&c| printable(c)));
                for mv in moves {
                    out.push(' ');
                    out.extend(mv.chars().filter(|&c| printable(c)));
                }
                out.push('"');
            }
            if let Some(message) = &self.message {
                out.push_str(", msg=\"");
                out.extend(message.chars().filter(|&c| printable(c) || c == ','));
                out.push('"');
            }
        }
        true
    }

    /// Reads a PGN move comment in the form of [`comment`](MoveInfo::comment) (cutechess's
    /// `+0.35/12 0.120s`, fastchess's `, n=.., sd=..`, and `pv=".."`); `None` when the comment
    /// does not start with a score and depth or a time (it is some other remark).
    pub fn parse_comment(comment: &str) -> Option<MoveInfo> {
        let mut parts = comment.trim().split(", ");
        let head = parts.next()?;
        let mut info = MoveInfo::default();
        let time = match head.split_once(' ') {
            Some((score_depth, time)) => {
                let (score, depth) = score_depth.split_once('/').unwrap_or((score_depth, ""));
                info.score = Some(parse_score_pgn(score)?);
                info.depth = depth.parse().ok().filter(|&d| d > 0);
                time
            }
            None => head,
        };
        info.time_us = parse_seconds_ms(time)?.checked_mul(1000)?;
        for part in parts {
            match part.split_once('=') {
                Some(("n", nodes)) => info.nodes = nodes.parse().ok(),
                Some(("sd", seldepth)) => info.seldepth = seldepth.parse().ok(),
                Some(("pv", pv)) => {
                    info.pv = pv
                        .trim_matches('"')
                        .split_whitespace()
                        .map(str::to_string)
                        .collect();
                }
                _ => {}
            }
        }
        Some(info)
    }
}

/// `0.120s` (or `0.12s`, `1s`) as ms; `None` otherwise.
fn parse_seconds_ms(text: &str) -> Option<u64> {
    crate::time_control::seconds_to_ms(text.strip_suffix('s')?).ok()
}

/// The games.csv `move_info` column of a game's moves (see the module documentation).
pub fn encode_column(infos: &[MoveInfo]) -> String {
    let mut column = String::with_capacity(infos.len() * 16);
    for (i, info) in infos.iter().enumerate() {
        if i > 0 {
            column.push(' ');
        }
        match info.score {
            None => column.push('-'),
            Some(Score::Cp(cp)) => push_signed(&mut column, i64::from(cp)),
            Some(Score::Mate(moves)) => {
                column.push('M');
                push_signed(&mut column, i64::from(moves));
            }
        }
        column.push('/');
        for value in [
            info.depth.map(u64::from),
            info.seldepth.map(u64::from),
            info.nodes,
        ] {
            match value {
                Some(value) => push_number(&mut column, value),
                None => column.push('-'),
            }
            column.push('/');
        }
        push_number(&mut column, info.time_ms());
    }
    column
}

/// Appends `value` in decimal to `out`: the columns' numbers, per ply of every game, without
/// the formatting machinery (a third of the cost of writing the columns).
fn push_number(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    // ASCII digits only.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// [`push_number`] of a signed value.
fn push_signed(out: &mut String, value: i64) {
    if value < 0 {
        out.push('-');
    }
    push_number(out, value.unsigned_abs());
}

/// The games.csv `move_times` column of a game's moves: `WALL/ENGINE` per ply, µs (see the
/// module documentation).
pub fn encode_times(infos: &[MoveInfo]) -> String {
    let mut column = String::with_capacity(infos.len() * 14);
    for (i, info) in infos.iter().enumerate() {
        if i > 0 {
            column.push(' ');
        }
        push_number(&mut column, info.time_us);
        column.push('/');
        match info.engine_time_us {
            Some(engine) => push_number(&mut column, engine),
            None => column.push('-'),
        }
    }
    column
}

/// A column of games.csv that does not read (`move_info`, `move_times`, `claims`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnError {
    /// A token that is not what its column holds.
    Token {
        /// The column.
        column: &'static str,
        /// The token.
        token: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// Two columns that must have one token per ply have not as many.
    Lengths {
        /// The column with `found` tokens.
        column: &'static str,
        /// Its tokens.
        found: usize,
        /// The other column.
        other: &'static str,
        /// The other's tokens.
        expected: usize,
    },
}

impl ColumnError {
    /// `token` of `column` is not what it holds: `problem`.
    pub fn token(column: &'static str, token: &str, problem: &'static str) -> ColumnError {
        ColumnError::Token {
            column,
            token: token.to_string(),
            problem,
        }
    }
}

impl std::fmt::Display for ColumnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ColumnError::Token {
                column,
                token,
                problem,
            } => write!(f, "{column} token `{token}`: {problem}"),
            ColumnError::Lengths {
                column,
                found,
                other,
                expected,
            } => write!(
                f,
                "{column} has {found} tokens where {other} has {expected}"
            ),
        }
    }
}

impl std::error::Error for ColumnError {}

/// The moves of a game's `move_info` column, their times replaced by those of its
/// `move_times` column when it has one (a games.csv of 19 columns): the wall time in µs and
/// the engine's own time. An empty `move_times` (an older file, a game read from PGN) leaves
/// the ms of `move_info` (as µs) and no engine time.
///
/// # Errors
/// As [`decode_column`]; a `move_times` token that is not `WALL/ENGINE`, or a `move_times`
/// column with another number of tokens than `move_info`.
pub fn decode_columns(move_info: &str, move_times: &str) -> Result<Vec<MoveInfo>, ColumnError> {
    let mut infos = decode_column(move_info)?;
    if move_times.is_empty() {
        return Ok(infos);
    }
    let times = decode_times(move_times)?;
    if times.len() != infos.len() {
        return Err(ColumnError::Lengths {
            column: "move_times",
            found: times.len(),
            other: "move_info",
            expected: infos.len(),
        });
    }
    for (info, (wall, engine)) in infos.iter_mut().zip(times) {
        (info.time_us, info.engine_time_us) = (wall, engine);
    }
    Ok(infos)
}

/// The wall time of each move, µs: from `move_times` when the record has it, else from
/// `move_info`'s whole ms. Cheaper than [`decode_columns`] for a reader that needs only the
/// times (the report's move-time charts): one column is parsed, not two.
///
/// # Errors
/// As [`decode_times`] or [`decode_column`].
pub fn wall_times_us(move_info: &str, move_times: &str) -> Result<Vec<u64>, ColumnError> {
    if move_times.is_empty() {
        return Ok(decode_column(move_info)?
            .iter()
            .map(|info| info.time_us)
            .collect());
    }
    move_times
        .split_whitespace()
        .map(|token| decode_times_token(token).map(|(wall, _)| wall))
        .collect()
}

/// Reads a `move_times` column back: per ply, the wall time and the engine's own time (if
/// reported), µs.
///
/// # Errors
/// The first token that is not `WALL/ENGINE`.
pub fn decode_times(column: &str) -> Result<Vec<(u64, Option<u64>)>, ColumnError> {
    column.split_whitespace().map(decode_times_token).collect()
}

/// One `WALL/ENGINE` token of the `move_times` column, µs.
fn decode_times_token(token: &str) -> Result<(u64, Option<u64>), ColumnError> {
    let bad = || ColumnError::token("move_times", token, "expected WALL/ENGINE in µs");
    let (wall, engine) = token.split_once('/').ok_or_else(bad)?;
    let wall = wall.parse().map_err(|_| bad())?;
    let engine = match engine {
        "-" => None,
        _ => Some(engine.parse().map_err(|_| bad())?),
    };
    Ok((wall, engine))
}

/// Reads a `move_info` column back (an empty column gives no moves).
///
/// # Errors
/// The first token that is not `SCORE/DEPTH/SELDEPTH/NODES/MS`, with what is wrong.
pub fn decode_column(column: &str) -> Result<Vec<MoveInfo>, ColumnError> {
    column.split_whitespace().map(decode_token).collect()
}

/// One token of the `move_info` column.
fn decode_token(token: &str) -> Result<MoveInfo, ColumnError> {
    // Built only on an error: this runs for every ply of every game a report reads.
    let bad = |what: &'static str| ColumnError::token("move_info", token, what);
    let mut fields = token.split('/');
    let (Some(score), Some(depth), Some(seldepth), Some(nodes), Some(ms), None) = (
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
    ) else {
        return Err(bad("expected SCORE/DEPTH/SELDEPTH/NODES/MS"));
    };
    fn opt<T: FromStr>(field: &str) -> Result<Option<T>, ()> {
        match field {
            "-" => Ok(None),
            _ => field.parse().map(Some).map_err(|_| ()),
        }
    }
    let score = match score {
        "-" => None,
        _ => Some(match score.strip_prefix('M') {
            Some(moves) => Score::Mate(moves.parse().map_err(|_| bad("bad mate score"))?),
            None => Score::Cp(score.parse().map_err(|_| bad("bad score"))?),
        }),
    };
    Ok(MoveInfo {
        score,
        depth: opt(depth).map_err(|()| bad("bad depth"))?,
        seldepth: opt(seldepth).map_err(|()| bad("bad seldepth"))?,
        nodes: opt(nodes).map_err(|()| bad("bad nodes"))?,
        // In µs: a time of ms beyond u64's µs is no time.
        time_us: ms
            .parse::<u64>()
            .ok()
            .and_then(|ms| ms.checked_mul(1000))
            .ok_or_else(|| bad("bad time"))?,
        engine_time_us: None,
        message: None,
        pv: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> MoveInfo {
        MoveInfo {
            score: Some(Score::Cp(35)),
            depth: Some(12),
            seldepth: Some(18),
            nodes: Some(10234),
            time_us: 120_000,
            engine_time_us: None,
            pv: vec!["a7a6".into(), "b2b3".into()],
            message: None,
        }
    }

    #[test]
    fn scores_are_written_as_cutechess_writes_them() {
        let texts: Vec<String> = [
            Score::Cp(35),
            Score::Cp(-120),
            Score::Cp(0),
            Score::Mate(5),
            Score::Mate(-4),
            Score::Mate(1),
        ]
        .iter()
        .map(|score| score_pgn(*score))
        .collect();
        assert_eq!(texts, ["+0.35", "-1.20", "0.00", "+M9", "-M8", "+M1"]);
        for text in &texts {
            assert_eq!(parse_score_pgn(text).map(score_pgn).unwrap(), *text);
        }
        assert_eq!(parse_score_pgn("+M9"), Some(Score::Mate(5)));
        assert_eq!(parse_score_pgn("-M8"), Some(Score::Mate(-4)));
        assert_eq!(parse_score_pgn("book"), None);
    }

    #[test]
    fn extreme_mate_scores_neither_overflow_nor_change() {
        // Any i32 is a valid `score mate N`; twice it is not an i32.
        for moves in [i32::MAX, i32::MIN, 1 << 30, -(1 << 30), 0] {
            let text = score_pgn(Score::Mate(moves));
            assert_eq!(parse_score_pgn(&text), Some(Score::Mate(moves)), "{text}");
        }
        assert_eq!(score_pgn(Score::Mate(i32::MAX)), "+M4294967293");
        assert_eq!(score_pgn(Score::Mate(i32::MIN)), "-M4294967296");
        assert_eq!(parse_score_pgn("+M9223372036854775807"), None);
        assert_eq!(parse_score_pgn("+M4294967297"), None);
    }

    #[test]
    fn comments_in_each_detail_and_back() {
        let info = full();
        assert_eq!(
            info.comment(CommentDetail::Full).unwrap(),
            "+0.35/12 0.120s, n=10234, sd=18, pv=\"a7a6 b2b3\""
        );
        assert_eq!(
            info.comment(CommentDetail::Short).unwrap(),
            "+0.35/12 0.120s"
        );
        assert_eq!(info.comment(CommentDetail::None), None);
        assert_eq!(
            MoveInfo::parse_comment(&info.comment(CommentDetail::Full).unwrap()),
            Some(info.clone())
        );
        let bare = MoveInfo {
            time_us: 7000,
            ..MoveInfo::default()
        };
        assert_eq!(bare.comment(CommentDetail::Full).unwrap(), "0.007s");
        assert_eq!(MoveInfo::parse_comment("0.007s"), Some(bare));
        // cutechess's own comments read too; other remarks do not.
        let cute = MoveInfo::parse_comment("-M8 1.5s").unwrap();
        assert_eq!(
            (cute.score, cute.depth, cute.time_us),
            (Some(Score::Mate(-4)), None, 1_500_000)
        );
        assert_eq!(MoveInfo::parse_comment("book"), None);
        assert_eq!(MoveInfo::parse_comment("White reaches rank 8"), None);
        // A PV cannot end the comment.
        let mut odd = full();
        odd.pv = vec!["a7}a6".into(), "\"".into(), "b\0\u{1b}[31m2b3".into()];
        assert!(
            odd.comment(CommentDetail::Full)
                .unwrap()
                .ends_with("pv=\"a7a6 b[31m2b3\""),
            "{:?}",
            odd.comment(CommentDetail::Full)
        );
    }

    #[test]
    fn a_bots_message_is_kept_in_the_full_comment_and_out_of_the_column() {
        let info = MoveInfo {
            time_us: 42_000,
            message: Some("d7 +0.35, {sure} \"yes\"\u{7}".into()),
            ..MoveInfo::default()
        };
        assert_eq!(
            info.comment(CommentDetail::Full).unwrap(),
            "0.042s, msg=\"d7 +0.35, sure yes\""
        );
        assert_eq!(info.comment(CommentDetail::Short).unwrap(), "0.042s");
        assert_eq!(encode_column(std::slice::from_ref(&info)), "-/-/-/-/42");
        let back = MoveInfo::parse_comment(&info.comment(CommentDetail::Full).unwrap()).unwrap();
        assert_eq!(back.time_us, 42_000);
    }

    #[test]
    fn the_csv_column_round_trips_without_the_pv() {
        let mate = MoveInfo {
            score: Some(Score::Mate(-2)),
            time_us: 3000,
            ..MoveInfo::default()
        };
        let column = encode_column(&[full(), mate.clone()]);
        assert_eq!(column, "35/12/18/10234/120 M-2/-/-/-/3");
        assert!(!column.contains([',', '"']));
        let mut expected = full();
        expected.pv.clear();
        assert_eq!(decode_column(&column).unwrap(), [expected, mate]);
        assert_eq!(decode_column("").unwrap(), []);
        assert_eq!(
            decode_column("35/12/18/10234/120 x/1")
                .unwrap_err()
                .to_string(),
            "move_info token `x/1`: expected SCORE/DEPTH/SELDEPTH/NODES/MS"
        );
        assert_eq!(
            decode_column("35/1x/-/-/1").unwrap_err().to_string(),
            "move_info token `35/1x/-/-/1`: bad depth"
        );
        // More ms than u64's µs hold: no time.
        assert_eq!(
            decode_column("-/-/-/-/18446744073709552")
                .unwrap_err()
                .to_string(),
            "move_info token `-/-/-/-/18446744073709552`: bad time"
        );
        assert_eq!(MoveInfo::parse_comment("18446744073709552s"), None);
    }

    #[test]
    fn move_times_keep_the_wall_time_and_the_engine_time_in_us() {
        let infos = [
            MoveInfo {
                time_us: 120_345,
                engine_time_us: Some(118_000),
                ..full()
            },
            MoveInfo {
                time_us: 999,
                ..MoveInfo::default()
            },
        ];
        let (info, times) = (encode_column(&infos), encode_times(&infos));
        // move_info keeps whole ms (rounded down); move_times the µs.
        assert_eq!(info, "35/12/18/10234/120 -/-/-/-/0");
        assert_eq!(times, "120345/118000 999/-");
        let read = decode_columns(&info, &times).unwrap();
        assert_eq!(
            read.iter()
                .map(|i| (i.time_us, i.engine_time_us))
                .collect::<Vec<_>>(),
            [(120_345, Some(118_000)), (999, None)]
        );
        // A file without move_times: the ms of move_info, no engine time.
        let old = decode_columns(&info, "").unwrap();
        assert_eq!(
            old.iter()
                .map(|i| (i.time_us, i.engine_time_us))
                .collect::<Vec<_>>(),
            [(120_000, None), (0, None)]
        );
        assert_eq!(
            decode_columns(&info, "1/2").unwrap_err().to_string(),
            "move_times has 1 tokens where move_info has 2"
        );
        assert_eq!(
            decode_columns(&info, "1/2 3").unwrap_err().to_string(),
            "move_times token `3`: expected WALL/ENGINE in µs"
        );
        assert_eq!(
            decode_columns(&info, "1/2 3/x").unwrap_err().to_string(),
            "move_times token `3/x`: expected WALL/ENGINE in µs"
        );
    }
}
