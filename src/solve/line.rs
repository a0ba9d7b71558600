//! The principal line of a solved position: the winner's fastest win against the loser's
//! longest resistance, each move the first in generation order that keeps the distance, so
//! that the line is a function of the position and the rules alone (not of the table's
//! contents, the history or a resumed solve).

use super::search::{Search, Stopped};
use crate::rules::proof::winning_move;
use crate::rules::{Move, Position};

/// The line from `root`, whose side to move wins in exactly `plies` plies when `plies` is odd
/// and is lost in exactly `plies` when it is even (`plies` as the solve proved it).
pub(super) fn principal_line(
    search: &mut Search,
    root: &Position,
    plies: u32,
) -> Result<Vec<Move>, Stopped> {
    let mut line = Vec::new();
    let mut position = *root;
    let mut left = plies;
    while left > 0 {
        let moves = search.answering_moves(&position);
        let chosen = if left == 1 {
            // The winner ends the game.
            winning_move(&position, search.rules)
        } else if left % 2 == 1 {
            // The winner, to win in exactly `left`: no move wins sooner, so the first after
            // which every reply loses within `left - 2` more plies.
            first(&moves, |mv| {
                search.defence_fails(&position.play_unchecked(mv), left - 2)
            })?
        } else if left == 2 {
            // The loser, every move losing at once.
            moves.first().copied()
        } else {
            // The loser: the first reply after which the winner needs all `left - 1` plies.
            first(&moves, |mv| {
                Ok(!search.wins(&position.play_unchecked(mv), left - 3)?)
            })?
        };
        let Some(mv) = chosen else {
            // Never: the distance was proven. The line stops rather than guess.
            break;
        };
        line.push(mv);
        position = position.play_unchecked(mv);
        left -= 1;
    }
    Ok(line)
}

/// The first of `moves` for which `test` holds.
fn first(
    moves: &[Move],
    mut test: impl FnMut(Move) -> Result<bool, Stopped>,
) -> Result<Option<Move>, Stopped> {
    for &mv in moves {
        if test(mv)? {
            return Ok(Some(mv));
        }
    }
    Ok(None)
}
