//! `positions.*`: `go depth 1` must give a legal `bestmove` after `position startpos`,
//! `position fen`, both with a long `moves` list, with Black to move and with a single legal
//! move; a finished position must get `bestmove (none)` (docs/PROTOCOL.md).

use super::talk::{after, go, judge};
use super::{CheckResult, Ctx, Evidence, Finding, Outcome, Session};
use crate::engine::Engine;
use crate::protocol::GoLimits;
use crate::rules::{Board, Color, Move, Position, Rules};

/// The longest `moves` list sent, in plies. A Breakthrough game cannot pass 177 plies (each
/// side has 88 non-winning pawn steps), so the long game is as long as the rules let it be.
pub const LONG_GAME_PLIES: usize = 200;
/// The seed of the long game under each rule set: the longest of the first 8192 seeds (97
/// plies under capture-only, 156 under classic).
const LONG_GAME_SEEDS: [(Rules, u64); 2] = [(Rules::CaptureOnly, 3678), (Rules::Classic, 285)];
/// The ply of the long game whose position is sent as `position fen` (White to move) on 8×8;
/// on a smaller board, the even ply nearest the middle of its long game.
const FEN_PLY: usize = 24;
/// How many seeds are tried for the long game of a board other than 8×8 (the longest game
/// is kept).
const OTHER_BOARD_SEEDS: u64 = 64;

/// A pawn on `file` and `rank` (0-based), as a bitboard bit.
const fn at(file: u8, rank: u8) -> u64 {
    1 << (8 * rank + file)
}

/// The positions of this module on `board`, built the same way on every board (on 8×8, the
/// FENs in the comments).
fn fixed(board: Board, white: u64, black: u64, side: Color) -> Position {
    Position::on_board(board, white, black, side)
        .unwrap_or_else(|err| panic!("a fixed position on {board}: {err}"))
}

/// White to move with exactly one legal move, under either rule set: the last file's pawn on
/// rank 2 takes on the file before it (8×8: `p7/8/8/8/8/6pp/7P/8 w`, h2 takes on g3).
fn one_move(board: Board) -> Position {
    let (top, last) = (board.ranks() - 1, board.files() - 1);
    let black = at(0, top) | at(last - 1, 2) | at(last, 2);
    fixed(board, at(last, 1), black, Color::White)
}

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
    let game = long_game(ctx.rules, ctx.board);
    let start = Position::start(ctx.board);
    let fen_ply = fen_ply(ctx.board, game.len());
    let at_ply = |ply: usize| after(&start, &game[..ply]);
    let cases: Vec<(&str, Vec<Case>)> = vec![
        ("positions.startpos", vec![Case::at(start)]),
        ("positions.fen", vec![Case::at(at_ply(fen_ply))]),
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
                start: at_ply(fen_ply),
                moves: game[fen_ply..].to_vec(),
            }],
        ),
        (
            "positions.black-to-move",
            vec![
                Case {
                    start,
                    moves: game[..fen_ply + 1].to_vec(),
                },
                Case::at(at_ply((fen_ply + 7).min(game.len() - 1))),
            ],
        ),
        (
            "positions.one-legal-move",
            vec![Case::at(one_move(ctx.board))],
        ),
        (
            "positions.finished",
            finished(ctx.rules, ctx.board)
                .into_iter()
                .map(Case::at)
                .collect(),
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

/// The ply of the long game of `plies` plies sent as `position fen`: [`FEN_PLY`] on 8×8, else
/// the even ply nearest its middle.
fn fen_ply(board: Board, plies: usize) -> usize {
    match board.is_standard() {
        true => FEN_PLY.min(plies),
        false => plies / 4 * 2,
    }
}

/// The finished positions of `rules` on `board`, under any rules: White on its goal rank
/// (Black to move; 8×8: `P7/8/8/8/8/8/pp6/8 b`), and White without pawns (White to move;
/// `8/pp6/8/8/8/8/8/8 w`); under capture-only rules also White to move, blocked, with no
/// capture (`8/8/8/8/8/p7/P7/8 w`).
fn finished(rules: Rules, board: Board) -> Vec<Position> {
    let top = board.ranks() - 1;
    let mut positions = vec![
        fixed(board, at(0, top), at(0, 1) | at(1, 1), Color::Black),
        fixed(board, 0, at(0, top - 1) | at(1, top - 1), Color::White),
    ];
    if rules == Rules::CaptureOnly {
        positions.push(fixed(board, at(0, 1), at(0, 2), Color::White));
    }
    positions
}

/// The moves of a long real game under `rules`, at most [`LONG_GAME_PLIES`], leading to a
/// position that goes on with White to move: a game of quiet moves with the seed of
/// [`LONG_GAME_SEEDS`], so always the same game.
///
/// On another board than 8×8, the longest of the games of the first [`OTHER_BOARD_SEEDS`]
/// seeds (the first of equals).
pub(super) fn long_game(rules: Rules, board: Board) -> Vec<Move> {
    let mut game = match board.is_standard() {
        true => {
            let seed = LONG_GAME_SEEDS
                .iter()
                .find(|(seeded, _)| *seeded == rules)
                .map_or(0, |&(_, seed)| seed);
            quiet_game(rules, board, seed)
        }
        false => (0..OTHER_BOARD_SEEDS)
            .map(|seed| quiet_game(rules, board, seed))
            .rev()
            .max_by_key(Vec::len)
            .unwrap_or_default(),
    };
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
fn quiet_game(rules: Rules, board: Board, seed: u64) -> Vec<Move> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut position = Position::start(board);
    let mut moves = Vec::new();
    while position.outcome(rules).is_none() {
        let legal: Vec<Move> = position.legal_moves(rules).iter().collect();
        let mut quiet: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&mv| !position.is_capture(mv) && !exposed(&position, rules, mv))
            .collect();
        let advance = |mv: &Move| board.relative_rank(position.side_to_move(), mv.from.rank());
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
            let game = long_game(rules, Board::STANDARD);
            let expected = if rules == Rules::Classic { 154 } else { 96 };
            assert_eq!(game.len(), expected, "{rules}");
            for board in Board::all() {
                let game = long_game(rules, board);
                assert_eq!(game.len() % 2, 0);
                // Long enough for the fen and black-to-move cases.
                assert!(game.len() >= 4, "{rules} {board}: {}", game.len());
                let mut position = Position::start(board);
                for &mv in &game {
                    position = position.play(rules, mv).expect("a legal move");
                }
                assert!(position.outcome(rules).is_none());
            }
        }
    }

    #[test]
    fn the_fixed_positions_are_what_they_claim() {
        let text = |positions: Vec<Position>| -> Vec<String> {
            positions.iter().map(Position::to_string).collect()
        };
        // On 8x8, the positions these checks always sent.
        assert_eq!(
            one_move(Board::STANDARD).to_string(),
            "p7/8/8/8/8/6pp/7P/8 w"
        );
        assert_eq!(
            text(finished(Rules::CaptureOnly, Board::STANDARD)),
            [
                "P7/8/8/8/8/8/pp6/8 b",
                "8/pp6/8/8/8/8/8/8 w",
                "8/8/8/8/8/p7/P7/8 w"
            ]
        );
        for board in Board::all() {
            for rules in Rules::ALL {
                let one = one_move(board);
                assert_eq!(one.legal_moves(rules).len(), 1, "{rules} {board}");
                assert!(one.outcome(rules).is_none(), "{rules} {board}");
                for position in finished(rules, board) {
                    assert!(position.outcome(rules).is_some(), "{rules}: {position}");
                }
            }
            let blocked = finished(Rules::CaptureOnly, board)[2];
            assert!(blocked.outcome(Rules::Classic).is_none());
        }
    }
}
