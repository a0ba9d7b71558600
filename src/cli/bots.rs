//! What the commands check about CodinGame bots (`proto=codingame`) before any game: the
//! commands bots cannot take part in refuse them saying why, and a run's openings must be
//! positions a game reaches from the start, the only way a bot is told a game.

use bt_arena::engine::EngineDescription;
use bt_arena::openings::{Book, spec::OpeningsSpec};
use bt_arena::rules::{Board, Rules, path};

/// Refuses the first bot among `engines` for `command`, which cannot use one because `why`.
///
/// # Errors
/// A message naming the engine, the command and why (a bad command line, exit 3).
pub(super) fn refuse(
    engines: &[EngineDescription],
    command: &str,
    why: &str,
) -> anyhow::Result<()> {
    match engines.iter().find(|engine| engine.proto.is_bot()) {
        Some(bot) => anyhow::bail!(
            "engine '{}': {command} cannot use a CodinGame bot (proto=codingame): {why}",
            bot.name
        ),
        None => Ok(()),
    }
}

/// With a bot among `engines`, checks that every opening of the book (of `board`) is reached by moves from
/// the start position ([`path::from_start`]): a bot is told a game only as moves, so a game
/// from an opening reaches it as the moves that lead there. A book that cannot be read is left
/// to the run to report.
///
/// # Errors
/// A message naming the bot, the book, the opening's line and what to do.
pub(super) fn check_openings(
    engines: &[EngineDescription],
    openings: &OpeningsSpec,
    rules: Rules,
    board: Board,
) -> anyhow::Result<()> {
    let (Some(bot), Some(file)) = (engines.iter().find(|e| e.proto.is_bot()), &openings.file)
    else {
        return Ok(());
    };
    let Ok(book) = Book::load(file, rules, board) else {
        return Ok(());
    };
    for opening in &book.openings {
        if path::from_start(&opening.position, rules).is_none() {
            anyhow::bail!(
                "engine '{}': a CodinGame bot is told a game only as moves from the start \
                 position, and {}:{} ({}) is reached by no game of at most {} plies under {rules} \
                 rules: give a book of positions that games reach (as `bt-arena openings \
                 generate` writes them)",
                bot.name,
                file.display(),
                opening.line,
                opening.position,
                path::MAX_PLIES
            );
        }
    }
    Ok(())
}
