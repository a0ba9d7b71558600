//! The proof search against a plain exhaustive minimax, on positions from games played by the
//! bundled search, under both rule sets and at every depth; and the endings it must find.

use super::*;
use crate::bundled::search::{Limits, Searcher};
use crate::rules::Board;
use crate::rules::position::tests::pos;
use bounds::files;
use std::sync::atomic::AtomicBool;

/// A win at ply 0 in [`minimax`]'s scores; a win in `n` plies scores `MATE - n`.
const MATE: i32 = 1000;

/// The plain exhaustive minimax (negamax) to `depth` plies with the rules' own `outcome`, no
/// pruning of any kind: `MATE - n` when the side to move wins in `n` plies at the soonest,
/// `-(MATE - n)` when it loses in `n` plies at the latest, 0 when neither within `depth`.
fn minimax(position: &Position, rules: Rules, depth: u32) -> i32 {
    if let Some(outcome) = position.outcome(rules) {
        return if outcome.winner == position.side_to_move() {
            MATE
        } else {
            -MATE
        };
    }
    if depth == 0 {
        return 0;
    }
    let mut best = -MATE;
    for mv in position.legal_moves(rules) {
        let score = -minimax(&position.play_unchecked(mv), rules, depth - 1);
        // One ply further from the end.
        best = best.max(score - score.signum());
    }
    best
}

/// A verdict reduced to what minimax can tell: `(1, n)` a win in `n`, `(-1, n)` a loss in `n`,
/// `(0, 0)` neither.
type Shape = (i32, u32);

/// The shape of the verdict at `depth` that minimax's `score` at a depth `>= depth` implies.
fn expected(score: i32, depth: u32) -> Shape {
    let plies = (MATE - score.abs()).unsigned_abs();
    if score != 0 && plies <= depth {
        (score.signum(), plies)
    } else {
        (0, 0)
    }
}

/// The shape of `verdict`; `None` for [`Verdict::Unknown`].
fn shape(verdict: &Verdict) -> Option<Shape> {
    match verdict {
        Verdict::Win(line) => Some((1, line.plies)),
        Verdict::Loss(line) => Some((-1, line.plies)),
        Verdict::Open => Some((0, 0)),
        Verdict::Unknown => None,
    }
}

/// Checks that `line` is a legal game from `position` that ends, after exactly `plies` moves
/// (when `complete`), with `winner`'s win for the reason given.
fn check_line(position: &Position, rules: Rules, line: &ProvenLine, complete: bool) {
    let mut at = *position;
    for &mv in &line.line {
        assert!(
            at.outcome(rules).is_none(),
            "{position}: line goes on after the end"
        );
        assert!(
            at.legal_moves(rules).contains(mv),
            "{position} {rules}: {mv} is not legal in {at}"
        );
        at = at.play_unchecked(mv);
    }
    if complete {
        assert_eq!(
            line.line.len(),
            line.plies as usize,
            "{position} {rules}: {line}"
        );
        let outcome = at.outcome(rules).expect("the line ends the game");
        assert_eq!(outcome.winner, line.winner, "{position} {rules}: {line}");
        assert_eq!(outcome.reason, line.ending, "{position} {rules}: {line}");
    }
}

/// Positions from `games` games between two copies of the bundled search at depth 2, a quarter
/// of the moves random (seeded): the last `tail` positions before each end, or with `middle`
/// every 10th position before them.
fn game_positions(rules: Rules, games: usize, tail: usize, middle: bool) -> Vec<Position> {
    let mut rng = fastrand::Rng::with_seed(23);
    let mut searcher = Searcher::new(1);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(2),
        ..Limits::default()
    };
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut history = Vec::new();
        let mut position = Position::startpos();
        while position.outcome(rules).is_none() {
            history.push(position);
            let moves: Vec<Move> = position.legal_moves(rules).iter().collect();
            let mv = if rng.u32(..4) == 0 {
                moves[rng.usize(..moves.len())]
            } else {
                searcher
                    .search(&position, rules, &limits, &stop, &mut |_| {})
                    .best
                    .expect("a move")
            };
            position = position.play_unchecked(mv);
        }
        let split = history.len().saturating_sub(tail);
        if middle {
            positions.extend(history[..split].iter().step_by(10));
        } else {
            positions.extend(&history[split..]);
        }
    }
    positions
}

/// Compares the prover (no budget) with minimax at every depth `1..=plies` on `positions`;
/// returns how many (position, depth) answers were wins, open and losses.
fn compare_with_minimax(positions: &[Position], rules: Rules, plies: u32) -> [u32; 3] {
    let began = std::time::Instant::now();
    let mut counts = [0; 3];
    let mut prover = Prover::new(rules, u64::MAX);
    for position in positions {
        let score = minimax(position, rules, plies);
        for depth in 1..=plies {
            let verdict = prover.prove(position, depth);
            let want = expected(score, depth);
            assert_eq!(
                shape(&verdict),
                Some(want),
                "{position} {rules} at {depth} plies: {verdict:?}, minimax {score}"
            );
            if let Some(line) = verdict.line() {
                check_line(position, rules, line, true);
            }
            counts[(1 - want.0) as usize] += 1;
        }
    }
    eprintln!(
        "{rules}, {} positions, depths 1 to {plies}: {counts:?} in {:.1?}",
        positions.len(),
        began.elapsed()
    );
    counts
}

#[test]
fn capture_only_verdicts_equal_minimax_at_every_depth_to_7_plies() {
    let rules = Rules::CaptureOnly;
    // The last 10 positions of each game (where the proofs are) to 7 plies, and positions
    // from the middle of the games to 5.
    let ends = game_positions(rules, 16, 10, false);
    let [wins, open, losses] = compare_with_minimax(&ends, rules, 7);
    // Not a vacuous comparison: every kind of answer is met, many times.
    assert!(
        wins > 150 && open > 300 && losses > 60,
        "{wins} {open} {losses}"
    );
    let middles = game_positions(rules, 16, 10, true);
    assert!(middles.len() > 60, "{}", middles.len());
    let [_, open, _] = compare_with_minimax(&middles, rules, 5);
    assert!(open > 300, "{open}");
}

#[test]
fn classic_verdicts_equal_minimax_at_every_depth_to_5_plies() {
    let rules = Rules::Classic;
    let ends = game_positions(rules, 16, 10, false);
    let [wins, open, losses] = compare_with_minimax(&ends, rules, 5);
    assert!(
        wins > 100 && open > 300 && losses > 40,
        "{wins} {open} {losses}"
    );
    let middles = game_positions(rules, 16, 10, true);
    let [_, open, _] = compare_with_minimax(&middles, rules, 4);
    assert!(open > 100, "{open}");
}

#[test]
fn with_a_budget_every_answer_but_unknown_agrees_and_the_cost_stays_bounded() {
    for (rules, plies) in [(Rules::CaptureOnly, 7), (Rules::Classic, 5)] {
        let positions = game_positions(rules, 8, 12, false);
        let mut exact = Prover::new(rules, u64::MAX);
        let truth: Vec<Option<Shape>> = positions
            .iter()
            .map(|p| shape(&exact.prove(p, plies)))
            .collect();
        let (mut unknown, mut decided) = (0, 0);
        for budget in [1, 4, 16, 64, 256, 1024] {
            // A fresh prover per position: a table filled by earlier calls would hide the
            // budget's effect.
            for (position, truth) in positions.iter().zip(&truth) {
                let mut prover = Prover::new(rules, budget);
                let verdict = prover.prove(position, plies);
                assert!(
                    prover.nodes() <= 2 * budget,
                    "{} > 2 x {budget}",
                    prover.nodes()
                );
                match shape(&verdict) {
                    None => unknown += 1,
                    Some(answer) => {
                        decided += 1;
                        assert_eq!(Some(answer), *truth, "{position} {rules} budget {budget}");
                        if let Some(line) = verdict.line() {
                            check_line(position, rules, line, false);
                        }
                    }
                }
            }
        }
        assert!(unknown > 50 && decided > 50, "{rules}: {unknown} {decided}");
    }
}

#[test]
fn a_prover_reused_between_calls_gives_the_answers_of_a_fresh_one() {
    let rules = Rules::CaptureOnly;
    let positions = game_positions(rules, 4, 20, false);
    let mut reused = Prover::new(rules, 2_000);
    let (mut decided, mut proven) = (0, 0);
    for position in &positions {
        let fresh = Prover::new(rules, u64::MAX).prove(position, 7);
        match reused.prove(position, 7) {
            Verdict::Unknown => {}
            verdict => {
                assert_eq!(shape(&verdict), shape(&fresh), "{position}");
                decided += 1;
                proven += usize::from(verdict.line().is_some());
            }
        }
    }
    // Not vacuous: most answers are decided, wins and losses among them (measured: 78 of the
    // 80 positions decided, 28 of them proofs).
    assert!(
        decided >= 60 && proven >= 20,
        "{decided} decided, {proven} proven of {}",
        positions.len()
    );
}

/// The verdict on `fen` under `rules` within `plies`, with no budget.
fn prove(fen: &str, rules: Rules, plies: u32) -> Verdict {
    Prover::new(rules, u64::MAX).prove(&pos(fen), plies)
}

/// The proof of a win or a loss, as text; panics on another verdict.
fn proof(fen: &str, rules: Rules, plies: u32) -> String {
    match prove(fen, rules, plies) {
        Verdict::Win(line) | Verdict::Loss(line) => line.to_string(),
        other => panic!("{fen}: {other:?}"),
    }
}

#[test]
fn a_win_that_needs_a_capture() {
    // Blocked on e8, the e7 pawn reaches the goal only by taking d8.
    let fen = "3pp3/4P3/8/8/8/8/7p/8 w";
    assert_eq!(
        proof(fen, Rules::CaptureOnly, 1),
        "White wins in 1 ply: e7d8"
    );
    // Taking the last pawn.
    let fen = "8/8/8/4p3/3P4/8/8/8 w";
    assert_eq!(
        prove(fen, Rules::CaptureOnly, 1),
        Verdict::Win(ProvenLine {
            winner: Color::White,
            plies: 1,
            line: vec!["d4e5".parse().unwrap()],
            ending: Reason::AllCaptured,
        })
    );
    // Blocked on d6, the d5 pawn's only move is to take e6; then it walks in. Black's a-pawn is
    // too far away to win first.
    let fen = "8/p7/3pp3/3P4/8/8/8/8 w";
    assert_eq!(prove(fen, Rules::CaptureOnly, 3), Verdict::Open);
    let Verdict::Win(line) = prove(fen, Rules::CaptureOnly, 5) else {
        panic!("a win in 5 plies")
    };
    assert_eq!((line.plies, line.ending), (5, Reason::GoalRank));
    let white: Vec<String> = line.line.iter().step_by(2).map(Move::to_string).collect();
    assert_eq!(white, ["d5e6", "e6e7", "e7e8"]);
    check_line(&pos(fen), Rules::CaptureOnly, &line, true);
    assert_eq!(minimax(&pos(fen), Rules::CaptureOnly, 5), MATE - 5);
}

#[test]
fn a_defence_that_must_capture() {
    // White threatens e7e8; only d8xe7 stops it.
    let fen = "3p4/p3P3/8/8/8/8/7P/8 b";
    for plies in 1..=4 {
        assert_eq!(
            prove(fen, Rules::CaptureOnly, plies),
            Verdict::Open,
            "{plies}"
        );
    }
    // Without the d8 pawn there is no defence: lost in 2 plies.
    assert_eq!(
        proof("8/p3P3/8/8/8/8/7P/8 b", Rules::CaptureOnly, 4),
        "White wins in 2 plies: a7a6 e7e8"
    );
}

#[test]
fn leaving_the_opponent_without_a_move_wins_under_capture_only_rules() {
    // a3a4 blocks Black's last pawn, which has nothing to capture.
    let fen = "8/8/8/p7/8/P7/8/8 w";
    assert_eq!(
        prove(fen, Rules::CaptureOnly, 1),
        Verdict::Win(ProvenLine {
            winner: Color::White,
            plies: 1,
            line: vec!["a3a4".parse().unwrap()],
            ending: Reason::NoMoves,
        })
    );
    // Under classic rules a5b4 steps aside.
    assert_eq!(prove(fen, Rules::Classic, 1), Verdict::Open);
    // Black to move can only walk into the block: lost in 2 plies.
    let fen = "8/8/p7/8/8/P7/8/8 b";
    assert_eq!(
        prove(fen, Rules::CaptureOnly, 2),
        Verdict::Loss(ProvenLine {
            winner: Color::White,
            plies: 2,
            line: vec!["a6a5".parse().unwrap(), "a3a4".parse().unwrap()],
            ending: Reason::NoMoves,
        })
    );
}

#[test]
fn finished_positions_and_zero_plies_are_open() {
    let mut prover = Prover::new(Rules::CaptureOnly, 100);
    assert_eq!(prover.prove(&pos("8/8/8/8/8/8/p7/8 w"), 5), Verdict::Open);
    assert_eq!(prover.prove(&pos("8/p3P3/8/8/8/8/8/8 w"), 0), Verdict::Open);
    assert_eq!(prover.nodes(), 0);
}

#[test]
fn the_race_bound_and_the_stalemate_bound_hold_on_their_edges() {
    // The d4 pawn needs four moves: a win in 7 plies, not in 5 (Black's h-pawn is far).
    let fen = "7p/8/8/8/3P4/8/8/8 w";
    assert_eq!(prove(fen, Rules::Classic, 5), Verdict::Open);
    assert_eq!(shape(&prove(fen, Rules::Classic, 7)), Some((1, 7)));
    assert_eq!(minimax(&pos(fen), Rules::Classic, 7), MATE - 7);
    assert_eq!(files(0), 0);
    assert_eq!(files(0xFF), 8);
    assert_eq!(files(FILE_H_BITS | 1), 2);
    let full = Board::STANDARD;
    assert_eq!(near_goal(full, Color::White, 1), 0xFF << 48);
    assert_eq!(near_goal(full, Color::Black, 2), 0xFFFF << 8);
    assert_eq!(near_goal(full, Color::White, 9), !(0xFF << 56));
    let small: Board = "5x4".parse().unwrap();
    assert_eq!(near_goal(small, Color::White, 1), 0x0F << 24);
    assert_eq!(near_goal(small, Color::White, 2), 0x0F0F << 16);
    assert_eq!(near_goal(small, Color::Black, 9), 0x0F0F_0F0F << 8);
    assert_eq!(near_goal(small, Color::Black, 0), 0);
}

/// The h-file.
const FILE_H_BITS: u64 = 0x8080_8080_8080_8080;

/// The table of proven facts stops at [`TABLE_SLOTS`] whatever the budget: a proof with no
/// budget worth the name fills it and drops facts for want of room, and the answers stay
/// those of minimax. See: issue 28 (`proof=63,nodes=99999999999999` grew memory without
/// limit).
#[test]
fn the_table_stops_at_its_limit_and_the_answers_stay_exact() {
    let rules = Rules::CaptureOnly;
    let mut prover = Prover::new(rules, 4_000_000);
    // Far from any end: 4 million nodes and no answer, every fact stored.
    assert_eq!(prover.prove(&Position::startpos(), 63), Verdict::Unknown);
    assert_eq!(prover.nodes(), 4_000_000);
    assert_eq!(prover.table.slots.len(), TABLE_SLOTS);
    assert!(prover.table.used <= TABLE_SLOTS);
    assert!(
        prover.table.evicted > 100_000,
        "the limit was reached: {} facts dropped",
        prover.table.evicted
    );
    // The same prover, its table full of other facts, answers as minimax does.
    for position in game_positions(rules, 4, 10, false) {
        let score = minimax(&position, rules, 5);
        for depth in 1..=5 {
            let verdict = prover.prove(&position, depth);
            assert_eq!(
                shape(&verdict),
                Some(expected(score, depth)),
                "{position} at {depth} plies"
            );
            if let Some(line) = verdict.line() {
                check_line(&position, rules, line, true);
            }
        }
    }
    assert_eq!(prover.table.slots.len(), TABLE_SLOTS);
}

/// A time limit per call ends a proof that its node budget would let run on: the answer is
/// unknown, and comes soon after the limit.
#[test]
fn a_time_limit_ends_a_long_proof_as_unknown() {
    let limit = std::time::Duration::from_millis(50);
    let mut prover = Prover::new(Rules::CaptureOnly, u64::MAX).with_time_limit(limit);
    let started = std::time::Instant::now();
    assert_eq!(prover.prove(&Position::startpos(), 63), Verdict::Unknown);
    let took = started.elapsed();
    assert!(took >= limit, "{took:?}");
    // Far sooner than the budget would end it (never), whatever the load.
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    assert!(prover.nodes() > 0);
    // A short proof is not affected.
    assert!(matches!(
        prover.prove(&pos("8/p7/4P3/8/8/8/8/8 w"), 5),
        Verdict::Win(_)
    ));
}
