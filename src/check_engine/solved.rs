//! `board.solved` (a board other than 8×8): positions the solver ([`crate::solve`]) proves,
//! searched by the engine; a `score mate N` that contradicts the proof (the wrong winner, or
//! a result faster than the minimax distance allows) fails the check. Centipawn scores are
//! estimates and are not judged; an engine that claims no mate passes with that said.
//!
//! The positions come from seeded games of random legal moves on the board (`--seed`): from
//! each, the positions a few plies before its end, kept when the solver proves them within
//! [`MAX_PLIES`] (so the same positions on any machine).

use super::talk::go;
use super::{CheckResult, Ctx, Finding, Outcome, Session};
use crate::engine::Engine;
use crate::game::claims::claim_plies;
use crate::perft_check::targets::random_game;
use crate::protocol::{GoLimits, Score};
use crate::solve::{Solution, solve_within};

/// Positions searched by the engine.
pub const POSITIONS: usize = 8;
/// The longest distance solved for the check, plies.
pub const MAX_PLIES: u32 = 9;
/// The engine's search of each position: `go depth DEPTH`.
pub const DEPTH: u32 = 5;
/// The solver's table for each position, MiB.
const HASH_MIB: u32 = 16;
/// Random games tried for positions before giving up on more.
const GAMES: usize = 64;

/// Runs `board.solved`.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> CheckResult {
    session.check("board.solved", |engine| solved(engine, ctx))
}

/// The solved positions of the check: from each seeded random game, the positions 2 to 8
/// plies before its end that the solver proves within [`MAX_PLIES`], up to [`POSITIONS`].
fn solved_positions(ctx: &Ctx) -> Vec<Solution> {
    let mut rng = fastrand::Rng::with_seed(ctx.seed);
    let mut found: Vec<Solution> = Vec::new();
    for _ in 0..GAMES {
        let line = random_game(ctx.rules, ctx.board, &mut rng);
        let before_end = rng.usize(2..=8).min(line.len());
        let position = line[line.len() - before_end];
        if found.iter().any(|known| known.position == position) {
            continue;
        }
        if let Ok(Some(solution)) = solve_within(&position, ctx.rules, HASH_MIB, MAX_PLIES) {
            found.push(solution);
        }
        if found.len() == POSITIONS {
            break;
        }
    }
    found
}

/// `board.solved`: each solved position searched at [`DEPTH`]; its mate claim judged.
fn solved(engine: &mut Engine, ctx: &Ctx) -> Outcome {
    let positions = solved_positions(ctx);
    if positions.is_empty() {
        return Ok(Finding::skip(format!(
            "no position of {} random games on {} solved within {MAX_PLIES} plies",
            GAMES, ctx.board
        )));
    }
    let mut claims = 0;
    for solution in &positions {
        engine.new_game()?;
        let limits = GoLimits::depth(DEPTH);
        let (reply, evidence) = go(
            engine,
            &solution.position,
            &[],
            &limits,
            ctx.search_deadline(),
        )?;
        let Some(Score::Mate(n)) = reply.info.score else {
            continue;
        };
        let Some(plies) = claim_plies(n) else {
            continue;
        };
        claims += 1;
        if let Some(wrong) = contradiction(solution, n, plies) {
            return Ok(Finding::fail(format!(
                "{}: the engine claims mate {n} ({wrong}); solved: {}",
                solution.position,
                proof(solution)
            ))
            .with(evidence));
        }
    }
    let distances = positions.iter().map(|s| s.plies);
    let (low, high) = (
        distances.clone().min().unwrap_or(0),
        distances.max().unwrap_or(0),
    );
    Ok(Finding::pass(format!(
        "{} positions of {} solved ({low} to {high} plies) searched at depth {DEPTH}: {}",
        positions.len(),
        ctx.board,
        match claims {
            0 => "no mate claimed".to_string(),
            n => format!("{n} mate claims, none against the proof"),
        }
    )))
}

/// Why `score mate n` (a result within `plies`) contradicts `solution`, if it does: the
/// wrong winner, or a result faster than the minimax distance.
fn contradiction(solution: &Solution, n: i32, plies: u32) -> Option<String> {
    let wins = solution.side_to_move_wins();
    let claim = match n > 0 {
        true => format!("a win within {plies} plies"),
        false => format!("a loss within {plies} plies"),
    };
    match (n > 0, wins) {
        (true, false) | (false, true) => Some(format!(
            "{claim}, but the side to move {}",
            match wins {
                true => "wins",
                false => "loses",
            }
        )),
        _ if plies < solution.plies => Some(format!("{claim}, faster than any forced result")),
        _ => None,
    }
}

/// The solver's result, in words.
fn proof(solution: &Solution) -> String {
    let plies = solution.plies;
    format!(
        "{} wins in {plies} {}",
        solution.winner,
        if plies == 1 { "ply" } else { "plies" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Board, Position, Rules};

    #[test]
    fn a_claim_of_the_wrong_winner_or_a_faster_result_contradicts_the_proof() {
        let board = Board::new(4, 4).unwrap();
        // White to move: its pawn on b3 reaches rank 4 at once.
        let position = Position::from_fen("p3/1P2/4/4 w", board).unwrap();
        let solution = solve_within(&position, Rules::CaptureOnly, 1, 9)
            .unwrap()
            .unwrap();
        assert_eq!(
            (solution.winner, solution.plies),
            (crate::rules::Color::White, 1)
        );
        assert_eq!(contradiction(&solution, 1, 1), None);
        assert_eq!(
            contradiction(&solution, 3, 5),
            None,
            "a slower win is not wrong"
        );
        assert!(
            contradiction(&solution, -1, 2)
                .unwrap()
                .contains("the side to move wins")
        );
        // White's pawn needs two moves, Black's three: a win in 3 plies, not 1.
        let position = Position::from_fen("3p/4/1P2/4 w", board).unwrap();
        let solution = solve_within(&position, Rules::CaptureOnly, 1, 9)
            .unwrap()
            .unwrap();
        assert_eq!(
            (solution.winner, solution.plies),
            (crate::rules::Color::White, 3)
        );
        assert_eq!(contradiction(&solution, 2, 3), None);
        assert!(
            contradiction(&solution, 1, 1)
                .unwrap()
                .ends_with("faster than any forced result")
        );
    }
}
