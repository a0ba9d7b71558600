//! Each game's start position: its opening (the book's, in the run's order, or the start
//! position) and then `--random-plies` uniformly random legal plies, all drawn from (seed,
//! game id) so that a game starts where it would in any session, on any shard.
//!
//! A draw whose random plies end the game, or leave the side to move lost or winning at once
//! (the prover finds a result within 2 plies), is drawn again from the same stream.

use super::RandomPlies;
use super::filters::mix;
use crate::openings::Opening;
use crate::rules::proof::{Prover, Verdict};
use crate::rules::{Position, Rules};

/// Draws of random plies tried for one game before giving up.
pub const MAX_DRAWS: u32 = 1000;

/// The node budget of the check that a drawn position is not decided within 2 plies.
const CHECK_NODES: u64 = 10_000;

/// A salt that keeps these draws apart from the sample's.
const SALT: u64 = 0x5354_4152_5400_0001;

/// Where a game starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    /// The opening's index in the book.
    pub opening: usize,
    /// The position after the random plies.
    pub position: Position,
    /// The random plies played from the opening.
    pub random_plies: u16,
}

/// Every one of [`MAX_DRAWS`] draws of a game's random plies ended or decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawError {
    /// The game.
    pub game_id: u64,
    /// The random plies asked for.
    pub random: RandomPlies,
    /// The opening's id in the book.
    pub opening: u64,
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "game {}: every one of {MAX_DRAWS} draws of {} random plies from opening {} \
             ended or decided the game: give fewer --random-plies",
            self.game_id, self.random, self.opening
        )
    }
}

impl std::error::Error for DrawError {}

/// The start of game `game_id` (1-based): opening `sequence[(game_id - 1) mod len]`, then
/// its random plies drawn from (`seed`, `game_id`).
///
/// # Errors
/// [`DrawError`] when [`MAX_DRAWS`] draws all ended or decided the game.
pub fn draw(
    rules: Rules,
    seed: u64,
    game_id: u64,
    openings: &[Opening],
    sequence: &[usize],
    random: Option<RandomPlies>,
) -> Result<Start, DrawError> {
    let index = sequence[super::schedule::cycle(game_id, sequence.len())];
    let opening = &openings[index];
    let Some(random) = random.filter(|r| r.max > 0) else {
        return Ok(Start {
            opening: index,
            position: opening.position,
            random_plies: 0,
        });
    };
    let mut rng = fastrand::Rng::with_seed(mix(mix(seed ^ SALT) ^ game_id));
    for _ in 0..MAX_DRAWS {
        let plies = rng.u16(random.min..=random.max);
        if let Some(position) = walk(opening.position, rules, plies, &mut rng)
            && (plies == 0 || !decided_at_once(&position, rules))
        {
            return Ok(Start {
                opening: index,
                position,
                random_plies: plies,
            });
        }
    }
    Err(DrawError {
        game_id,
        random,
        opening: opening.id,
    })
}

/// `plies` random legal plies from `position`; `None` when they end the game.
fn walk(
    mut position: Position,
    rules: Rules,
    plies: u16,
    rng: &mut fastrand::Rng,
) -> Option<Position> {
    for _ in 0..plies {
        let moves: Vec<_> = position.legal_moves(rules).iter().collect();
        let mv = *moves.get(rng.usize(..moves.len().max(1)))?;
        position = position.play_unchecked(mv);
        if position.outcome(rules).is_some() {
            return None;
        }
    }
    Some(position)
}

/// Whether the side to move of `position` wins or is lost within 2 plies.
fn decided_at_once(position: &Position, rules: Rules) -> bool {
    matches!(
        Prover::new(rules, CHECK_NODES).prove(position, 2),
        Verdict::Win(_) | Verdict::Loss(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start_only() -> Vec<Opening> {
        vec![Opening {
            id: 1,
            line: 1,
            position: Position::startpos(),
            comment: String::new(),
        }]
    }

    #[test]
    fn a_draw_is_a_function_of_seed_and_game_id() {
        let openings = start_only();
        let random = Some(RandomPlies { min: 4, max: 8 });
        let draw = |seed, id| draw(Rules::CaptureOnly, seed, id, &openings, &[0], random);
        let first = draw(1, 5).expect("drawn");
        assert_eq!(first, draw(1, 5).expect("drawn"));
        assert!((4..=8).contains(&first.random_plies));
        assert_ne!(
            (1..=8)
                .map(|id| draw(1, id).expect("drawn").position)
                .collect::<Vec<_>>(),
            (1..=8)
                .map(|id| draw(2, id).expect("drawn").position)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_drawn_position_is_never_decided_within_two_plies() {
        let openings = start_only();
        let random = Some(RandomPlies { min: 40, max: 60 });
        for id in 1..=20 {
            let start = draw(Rules::CaptureOnly, 7, id, &openings, &[0], random).expect("drawn");
            assert!(start.position.outcome(Rules::CaptureOnly).is_none());
            assert!(
                !decided_at_once(&start.position, Rules::CaptureOnly),
                "game {id}"
            );
        }
    }
}
