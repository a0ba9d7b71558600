//! The solver as the prover's oracle: on every position of the solved boards' principal lines
//! and on a sample of positions from each board, `rules::proof` (what `bt-arena prove` and
//! proof adjudication run) never names the wrong winner, and a distance it claims is the
//! solver's.

use bt_arena::rules::proof::{Prover, Verdict};
use bt_arena::rules::{Board, Move, Position, Rules};
use bt_arena::solve::{self, Solution};

use crate::solve::FIVE_BY_FIVE_CAPTURE_ONLY_LINE;
use crate::util::{bt_arena, stdout};

/// The plies the prover is asked for: as proof adjudication's deepest setting allows, and
/// more than the short endings of the sampled positions.
const PLIES: u32 = 15;

/// The prover's nodes per call.
const NODES: u64 = 200_000;

/// What the prover said, checked against the solver: `Some(true)` a proven result, `Some(false)`
/// no forced result within the plies or out of nodes (both allowed), a panic for a
/// contradiction.
fn agrees(prover: &mut Prover, position: &Position, exact: &Solution) -> bool {
    let side = position.side_to_move();
    let verdict = prover.prove(position, PLIES);
    match verdict {
        Verdict::Win(line) | Verdict::Loss(line) => {
            let won = line.winner == side;
            assert_eq!(
                (line.winner, line.plies),
                (exact.winner, exact.plies),
                "{position} ({} rules): the prover says {line}, the solver {} in {}",
                exact.rules,
                exact.winner,
                exact.plies
            );
            assert_eq!(won, exact.side_to_move_wins());
            true
        }
        Verdict::Open => {
            assert!(
                exact.plies > PLIES,
                "{position} ({} rules): the prover found no forced result within {PLIES} \
                 plies; the solver: {} in {}",
                exact.rules,
                exact.winner,
                exact.plies
            );
            false
        }
        Verdict::Unknown => false,
    }
}

/// A few positions of `board` by seeded random play from the start: one every third ply of
/// each game, games of distinct seeds (an LCG, so that the sample is the same every run).
fn sample(board: Board, rules: Rules, games: u64) -> Vec<Position> {
    let mut positions = Vec::new();
    for seed in 0..games {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut position = Position::start(board);
        let mut ply = 0;
        while position.outcome(rules).is_none() {
            let moves: Vec<_> = position.legal_moves(rules).iter().collect();
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let pick = usize::try_from((state >> 33) % moves.len() as u64).unwrap();
            position = position.play_unchecked(moves[pick]);
            ply += 1;
            if ply % 3 == 0 && position.outcome(rules).is_none() {
                positions.push(position);
            }
        }
    }
    positions
}

#[test]
fn the_prover_never_contradicts_the_solver_on_the_solved_boards() {
    let mut proven = 0;
    let mut checked = 0;
    for (size, rules) in [
        ("4x4", Rules::CaptureOnly),
        ("4x4", Rules::Classic),
        ("4x5", Rules::CaptureOnly),
        ("4x5", Rules::Classic),
        ("5x4", Rules::CaptureOnly),
        ("5x4", Rules::Classic),
        ("5x5", Rules::CaptureOnly),
    ] {
        let board: Board = size.parse().unwrap();
        let mut prover = Prover::new(rules, NODES);
        // The principal line of the start, every position on it; on 5x5 the line the solver
        // test checks, from its 9th ply (the first ones cost a whole solve each).
        let (line, from): (Vec<Move>, usize) = if size == "5x5" {
            let line = FIVE_BY_FIVE_CAPTURE_ONLY_LINE.split_whitespace();
            (line.map(|mv| mv.parse().unwrap()).collect(), 8)
        } else {
            (
                solve::solve(&Position::start(board), rules, 64)
                    .unwrap()
                    .line,
                0,
            )
        };
        let mut on_line = vec![Position::start(board)];
        for mv in line {
            on_line.push(on_line.last().unwrap().play(rules, mv).unwrap());
        }
        on_line.pop();
        let on_line = &on_line[from..];
        for position in on_line.iter().chain(&sample(board, rules, 8)) {
            let exact = solve::solve(position, rules, 16).unwrap();
            proven += usize::from(agrees(&mut prover, position, &exact));
            checked += 1;
        }
    }
    assert_eq!((checked, proven), (283, 232));
}

#[test]
fn prove_takes_a_board_and_agrees_with_solve_there() {
    // Black to move on 5x5 under classic rules: the solver's result, then the prover's.
    let fen = "5/1p1pp/2P2/PP3/5 b";
    let solved = bt_arena(&[
        "solve", "--board", "5x5", "--rules", "classic", "--fen", fen, "--json",
    ]);
    assert_eq!(solved.status.code(), Some(0), "{solved:?}");
    let solved: serde_json::Value = serde_json::from_str(&stdout(&solved)).unwrap();
    let proved = bt_arena(&[
        "prove", "--board", "5x5", "--rules", "classic", "--fen", fen, "--plies", "15",
    ]);
    assert_eq!(proved.status.code(), Some(0), "{proved:?}");
    let plies = solved["plies"].as_u64().unwrap();
    let winner = solved["winner"].as_str().unwrap();
    let said = stdout(&proved);
    assert!(
        said.contains(&format!("wins in {plies} plies")),
        "{said} / {solved}"
    );
    assert!(
        said.to_lowercase().contains(&format!("{winner} wins in")),
        "{said} / {solved}"
    );
    // A FEN of another shape is refused naming the board and the rank.
    let output = bt_arena(&[
        "prove",
        "--board",
        "5x5",
        "--fen",
        "8/8/8/8/8/8/P7/8 w",
        "3",
    ]);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert!(crate::util::stderr(&output).contains("is no position of the 5x5 board"));
}
