//! `positions.*`: `go depth 1` must give a legal `bestmove` after `position startpos`,
//! `position fen`, both with a long `moves` list, with Black to move and with a single legal
//! move; a finished position must get `bestmove (none)` (docs/PROTOCOL.md).

use super::talk::{after, go, judge};
use super::{CheckResult, Ctx, Evidence, Finding, Outcome, Session};
use crate::engine::Engine;
use crate::protocol::GoLimits;
use crate::rules::{Color, Move, Position, Rules};

/// The longest `moves` list sent, in plies. A Breakthrough game cannot pass 177 plies (each
/// side has 88 non-winning pawn steps), so the long game is as long as the rules let it be.
pub const LONG_GAME_PLIES: usize = 200;
/// The seed of the long game under each rule set: the longest of the first 8192 seeds (97
/// plies under capture-only, 156 under classic).
const LONG_GAME_SEEDS: [(Rules, u64); 2] = [(Rules::CaptureOnly, 3678), (Rules::Classic, 285)];
/// The ply of the long game whose position is sent as `position fen` (White to move).
const FEN_PLY: usize = 24;
/// White to move with exactly one legal move, under either rule set: h2 takes on g3.
const ONE_MOVE: &str = "p7/8/8/8/8/6pp/7P/8 w";
/// Finished positions under any rules: White on its goal rank (Black to move), and White
/// without pawns (White to move).
const FINISHED: [&str; 2] = ["P7/8/8/8/8/8/pp6/8 b", "8/pp6/8/8/8/8/8/8 w"];
/// Finished under capture-only rules only: White to move, blocked, with no capture.
const NO_MOVES_CAPTURE_ONLY: &str = "8/8/8/8/8/p7/P7/8 w";

/// A `position` to send: the start and the moves played since.
struct Case {
    start: Position,
    moves: Vec<Move>,
}

impl Case {
    fn at(start: Position) -> Case {
        Case {
            start,
            moves: Vec::new(),
        }
    }
}

/// Runs the `positions.*` checks.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> Vec<CheckResult> {
    let game = long_game(ctx.rules);
    let start = Position::startpos();
    let at_ply = |ply: usize| after(&start, &game[..ply]);
    let cases: Vec<(&str, Vec<Case>)> = vec![
        ("positions.startpos", vec![Case::at(start)]),
        ("positions.fen", vec![Case::at(at_ply(FEN_PLY))]),
        (
            "positions.startpos-moves",
            vec![Case {
                start,
                moves: game.clone(),
            }],
        ),
        (
            "positions.fen-moves",
            vec![Case {
                start: at_ply(FEN_PLY),
                moves: game[FEN_PLY..].to_vec(),
            }],
        ),
        (
            "positions.black-to-move",
            vec![
                Case {
                    start,
                    moves: game[..FEN_PLY + 1].to_vec(),
                },
                Case::at(at_ply(FEN_PLY + 7)),
            ],
        ),
        ("positions.one-legal-move", vec![Case::at(parsed(ONE_MOVE))]),
        (
            "positions.finished",
            finished(ctx.rules).into_iter().map(Case::at).collect(),
        ),
    ];
    cases
        .into_iter()
        .map(|(id, cases)| session.check(id, |engine| check_cases(engine, ctx, &cases)))
        .collect()
}

/// `go depth 1` in each case: a legal move, or `(none)` where there is none.
fn check_cases(engine: &mut Engine, ctx: &Ctx, cases: &[Case]) -> Outcome {
    let mut answers: Vec<String> = Vec::new();
    let mut last: Option<Evidence> = None;
    for case in cases {
        let limits = GoLimits::depth(1);
        let deadline = ctx.search_deadline();
        let (reply, evidence) = go(engine, &case.start, &case.moves, &limits, deadline)?;
        let position = after(&case.start, &case.moves);
        if let Some(failure) = judge(ctx, &position, &reply.bestmove, &evidence) {
            return Ok(failure);
        }
        let plies = case.moves.len();
        let history = if plies > 0 {
            format!(" after {plies} plies of moves")
        } else {
            String::new()
        };
        answers.push(format!(
            "bestmove {}{history} in {} ms",
            reply.bestmove,
            reply.elapsed.as_millis()
        ));
        last = Some(evidence);
    }
    let finding = Finding::pass(answers.join("; "));
    Ok(match last {
        Some(evidence) => finding.with(evidence),
        None => finding,
    })
}

/// A position from one of this module's constants.
fn parsed(text: &str) -> Position {
    text.parse()
        .unwrap_or_else(|err| panic!("a constant position '{text}': {err}"))
}

/// The finished positions of `rules`.
fn finished(rules: Rules) -> Vec<Position> {
    let mut positions: Vec<Position> = FINISHED.iter().map(|text| parsed(text)).collect();
    if rules == Rules::CaptureOnly {
        positions.push(parsed(NO_MOVES_CAPTURE_ONLY));
    }
    positions
}

/// The moves of a long real game under `rules`, at most [`LONG_GAME_PLIES`], leading to a
/// position that goes on with White to move: a game of quiet moves with the seed of
/// [`LONG_GAME_SEEDS`], so always the same game.
pub(super) fn long_game(rules: Rules) -> Vec<Move> {
    let seed = LONG_GAME_SEEDS
        .iter()
        .find(|(seeded, _)| *seeded == rules)
        .map_or(0, |&(_, seed)| seed);
    let mut game = quiet_game(rules, seed);
    // The last move ends the game; keep White to move.
    game.pop();
    game.truncate(LONG_GAME_PLIES);
    if game.len() % 2 == 1 {
        game.pop();
    }
    game
}

/// A game to its end in which the side to move plays a random quiet move (one that neither
/// captures nor can be taken at once) of its rearmost pawns that have one, or any random move
/// when it has no quiet move: pawns advance as a wall, as in long real games.
fn quiet_game(rules: Rules, seed: u64) -> Vec<Move> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut position = Position::startpos();
    let mut moves = Vec::new();
    while position.outcome(rules).is_none() {
        let legal: Vec<Move> = position.legal_moves(rules).iter().collect();
        let mut quiet: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&mv| !position.is_capture(mv) && !exposed(&position, rules, mv))
            .collect();
        let advance = |mv: &Move| match position.side_to_move() {
            Color::White => mv.from.rank(),
            Color::Black => 7 - mv.from.rank(),
        };
        if let Some(rearmost) = quiet.iter().map(advance).min() {
            quiet.retain(|mv| advance(mv) == rearmost);
        }
        let pool = if quiet.is_empty() { &legal } else { &quiet };
        let mv = pool[rng.usize(..pool.len())];
        moves.push(mv);
        position = position.play_unchecked(mv);
    }
    moves
}

/// True when the pawn moved by `mv` can be taken at once.
fn exposed(position: &Position, rules: Rules, mv: Move) -> bool {
    let next = position.play_unchecked(mv);
    next.legal_moves(rules)
        .iter()
        .any(|reply| reply.to == mv.to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_game_is_long_legal_and_ends_with_white_to_move() {
        for rules in Rules::ALL {
            let game = long_game(rules);
            let expected = if rules == Rules::Classic { 154 } else { 96 };
            assert_eq!(game.len(), expected, "{rules}");
            assert_eq!(game.len() % 2, 0);
            let mut position = Position::startpos();
            for &mv in &game {
                position = position.play(rules, mv).expect("a legal move");
            }
            assert!(position.outcome(rules).is_none());
        }
    }

    #[test]
    fn the_fixed_positions_are_what_they_claim() {
        for rules in Rules::ALL {
            assert_eq!(parsed(ONE_MOVE).legal_moves(rules).len(), 1, "{rules}");
            for position in finished(rules) {
                assert!(position.outcome(rules).is_some(), "{rules}: {position}");
            }
        }
        assert!(
            parsed(NO_MOVES_CAPTURE_ONLY)
                .outcome(Rules::Classic)
                .is_none()
        );
    }
}
