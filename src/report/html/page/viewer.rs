//! The game viewer's data: the latest games (at most [`MAX_VIEWER_GAMES`]) with their moves,
//! comments and the claims found wrong, as JSON safe inside the page's `<script>`, and the
//! note of how many games it holds.

use super::isolate;
use crate::records::moves::CommentDetail;
use crate::records::{self, GameRecord, pgn, plural};
use crate::report::html::{MAX_VIEWER_GAMES, Report};
use crate::rules::{Board, Position};
use serde::Serialize;

/// One game of the viewer.
#[derive(Serialize)]
struct ViewerGame {
    /// Its game number ([`GameRecord::game_id`]): the `N` of the URL's `#game=N`.
    id: u64,
    label: String,
    white: String,
    black: String,
    result: &'static str,
    ending: String,
    opening: String,
    /// The game began from a position other than the start of its board.
    from_book: bool,
    /// The ranks of its board (the shape of its opening; 8 when that does not read).
    ranks: u8,
    /// The files of its board.
    files: u8,
    moves: Vec<String>,
    comments: Vec<Option<String>>,
    /// The claims found wrong, by 1-based ply: the viewer marks those moves.
    claims: Vec<(u32, String)>,
}

/// How many games the viewer holds, of how many.
pub(super) fn viewer_note(report: &Report<'_>) -> String {
    let shown = report.games.len().min(MAX_VIEWER_GAMES) as u64;
    match report.summary.games {
        total if total > shown => {
            format!("The latest {shown} of {total} games; every game is in games.pgn.")
        }
        total => format!("{}.", plural(total, "game")),
    }
}

/// The viewer's games (the last [`MAX_VIEWER_GAMES`] of `games`) as JSON, safe inside a
/// `<script>` element.
pub(in crate::report::html) fn viewer_json(games: &[GameRecord]) -> String {
    let first = games.len().saturating_sub(MAX_VIEWER_GAMES);
    let list: Vec<ViewerGame> = games[first..]
        .iter()
        .map(|game| (game, game.start()))
        .map(|(game, start)| ViewerGame {
            id: game.game_id,
            label: format!(
                "Game {}: {} vs {}, {} ({})",
                game.game_id,
                isolate(&game.white),
                isolate(&game.black),
                game.result,
                game.termination
            ),
            white: isolate(&game.white),
            black: isolate(&game.black),
            result: game.result.as_str(),
            ending: format!(
                "{}: {}",
                game.termination,
                game.termination.describe(
                    game.result.winner(),
                    start.map_or(Board::STANDARD, |p| p.board())
                )
            ),
            opening: start.map_or_else(|| game.opening.clone(), |p| p.to_string()),
            from_book: start.is_none_or(|p| p != Position::start(p.board())),
            ranks: start.map_or(8, |p| p.board().ranks()),
            files: start.map_or(8, |p| p.board().files()),
            moves: game.moves.split_whitespace().map(str::to_string).collect(),
            comments: pgn::move_comments(game, CommentDetail::Full),
            claims: viewer_claims(game),
        })
        .collect();
    // `<` only occurs inside JSON strings, where `\u003c` means the same: no `</script>` or
    // `<!--` can end or confuse the script element.
    serde_json::to_string(&list)
        .unwrap_or_else(|_| "[]".to_string())
        .replace('<', "\\u003c")
}

/// The findings of `game`'s claims column, by ply, in words (`White: PV move 3 ...`).
fn viewer_claims(game: &GameRecord) -> Vec<(u32, String)> {
    let Ok(claims) = records::claims::GameClaims::decode(&game.claims) else {
        return Vec::new();
    };
    claims
        .findings
        .iter()
        .map(|found| (found.ply, format!("{}: {}", found.side, found.finding)))
        .collect()
}
