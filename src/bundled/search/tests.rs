//! Tests of the searcher through its public API.

use super::*;
use crate::rules::Color;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn position(text: &str) -> Position {
    text.parse().expect("test position")
}

fn depth(plies: u32) -> Limits {
    Limits {
        depth: Some(plies),
        ..Limits::default()
    }
}

/// Searches with a fresh searcher of `hash_mb` MiB, collecting the reports.
fn search_with(
    hash_mb: usize,
    position: &Position,
    rules: Rules,
    limits: &Limits,
) -> (SearchResult, Vec<SearchReport>) {
    let mut reports = Vec::new();
    let stop = AtomicBool::new(false);
    let result = Searcher::new(hash_mb).search(position, rules, limits, &stop, &mut |report| {
        reports.push(report.clone())
    });
    (result, reports)
}

fn search(position: &Position, rules: Rules, limits: &Limits) -> SearchResult {
    search_with(16, position, rules, limits).0
}

fn best(result: &SearchResult) -> String {
    result.best.map(|mv| mv.to_string()).unwrap_or_default()
}

/// A small deterministic generator (xorshift64*), so tests need no extra crate.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// Positions reached by random playouts from the start, finished ones included.
fn random_positions(rules: Rules, count: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng(seed);
    let mut positions = Vec::new();
    while positions.len() < count {
        let mut p = Position::startpos();
        let plies = rng.below(80);
        for _ in 0..plies {
            let moves: Vec<Move> = p.legal_moves(rules).iter().collect();
            if moves.is_empty() {
                break;
            }
            p = p.play_unchecked(moves[rng.below(moves.len())]);
        }
        positions.push(p);
    }
    positions
}

#[test]
fn a_step_onto_the_goal_wins_in_one() {
    for rules in Rules::ALL {
        let result = search(&position("8/P7/8/8/8/8/pppp4/8 w"), rules, &depth(4));
        assert_eq!(best(&result), "a7a8");
        assert_eq!(result.score, SearchScore::Win(1));
        let black = search(&position("pp6/8/8/8/8/8/4p3/1P6 b"), rules, &depth(4));
        assert_eq!(black.score, SearchScore::Win(1), "{rules}");
        assert_eq!(black.best.map(|mv| mv.to.rank()), Some(0));
    }
}

#[test]
fn capturing_the_last_pawn_wins_in_one() {
    let result = search(
        &position("8/8/8/3p4/4P3/8/8/8 w"),
        Rules::CaptureOnly,
        &depth(3),
    );
    assert_eq!(best(&result), "e4d5");
    assert_eq!(result.score, SearchScore::Win(1));
}

#[test]
fn a_forced_win_in_three_plies_is_found_and_preferred_to_a_slower_one() {
    // b6b7 cannot be stopped; c6c7 is taken by d8 and wins only two plies later.
    for rules in Rules::ALL {
        let result = search(&position("3p4/8/1PP5/8/7p/8/8/8 w"), rules, &depth(5));
        assert_eq!(result.score, SearchScore::Win(3), "{rules}");
        assert_eq!(result.pv.len(), 3, "{rules}: {:?}", result.pv);
        assert_eq!(result.pv.first(), result.best.as_ref());
    }
    let result = search(
        &position("3p4/8/1PP5/8/7p/8/8/8 w"),
        Rules::CaptureOnly,
        &depth(5),
    );
    assert_eq!(best(&result), "b6b7");
}

#[test]
fn a_threat_to_reach_the_goal_is_parried_when_it_can_be() {
    // d2 threatens d1; only c1xd2 stops it. a6xb7 is a tempting capture that loses.
    let p = position("8/1p3ppp/P7/8/8/8/3p1PPP/2P5 w");
    for rules in Rules::ALL {
        for plies in [1, 2, 5] {
            let result = search(&p, rules, &depth(plies));
            assert_eq!(best(&result), "c1d2", "{rules} depth {plies}");
            assert!(!matches!(result.score, SearchScore::Loss(_)), "{rules}");
        }
    }
}

#[test]
fn two_threats_that_cannot_both_be_parried_lose_in_two_plies() {
    let p = position("pppp4/8/8/8/8/8/3p2p1/2P5 w");
    let result = search(&p, Rules::CaptureOnly, &depth(3));
    assert_eq!(result.score, SearchScore::Loss(2));
    assert!(
        result.best.is_some(),
        "a legal move is returned even when lost"
    );
}

#[test]
fn finished_positions_have_no_move() {
    for (text, rules, score) in [
        (
            "P7/8/8/8/8/8/pp6/8 b",
            Rules::CaptureOnly,
            SearchScore::Loss(0),
        ),
        ("8/8/8/8/8/8/pp6/8 w", Rules::Classic, SearchScore::Loss(0)),
        (
            "8/8/8/8/8/p7/P7/8 w",
            Rules::CaptureOnly,
            SearchScore::Loss(0),
        ),
    ] {
        let (result, reports) = search_with(1, &position(text), rules, &depth(3));
        assert_eq!(result.best, None, "{text}");
        assert_eq!(result.score, score, "{text}");
        assert!(result.pv.is_empty() && reports.is_empty());
    }
}

#[test]
fn every_move_returned_over_random_positions_is_legal() {
    for (seed, rules) in [(1, Rules::CaptureOnly), (2, Rules::Classic)] {
        for p in random_positions(rules, 150, seed) {
            let limits = Limits {
                depth: Some(4),
                nodes: Some(20_000),
                ..Limits::default()
            };
            let result = search(&p, rules, &limits);
            match result.best {
                None => assert!(p.outcome(rules).is_some(), "{p}: no move in a live game"),
                Some(mv) => {
                    assert_eq!(p.check_move(rules, mv), Ok(()), "{p}");
                    let mut line = p;
                    for &step in &result.pv {
                        assert_eq!(line.check_move(rules, step), Ok(()), "{p}: pv");
                        line = line.play_unchecked(step);
                    }
                }
            }
        }
    }
}

#[test]
fn the_depth_limit_is_respected_and_every_iteration_is_reported() {
    let (result, reports) = search_with(16, &Position::startpos(), Rules::CaptureOnly, &depth(4));
    assert_eq!(result.depth, 4);
    let depths: Vec<u32> = reports.iter().map(|r| r.depth).collect();
    assert_eq!(depths, [1, 2, 3, 4]);
    let last = reports.last().expect("reports");
    assert_eq!((last.nodes, &last.pv), (result.nodes, &result.pv));
    assert!(reports.windows(2).all(|w| w[0].nodes <= w[1].nodes));
    assert!(last.seldepth >= 4);
}

#[test]
fn the_node_limit_is_respected_even_before_the_first_iteration_ends() {
    for nodes in [1, 10, 5_000, 50_000] {
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::default()
        };
        let result = search(&Position::startpos(), Rules::Classic, &limits);
        assert!(result.nodes <= nodes, "{} > {nodes}", result.nodes);
        let mv = result.best.expect("a move");
        assert_eq!(Position::startpos().check_move(Rules::Classic, mv), Ok(()));
    }
}

#[test]
fn a_set_stop_flag_still_gives_a_legal_move() {
    let stop = AtomicBool::new(true);
    let p = position("3p4/8/1PP5/8/7p/8/8/8 w");
    let result = Searcher::new(1).search(&p, Rules::CaptureOnly, &depth(30), &stop, &mut |_| {});
    let mv = result.best.expect("a move");
    assert_eq!(p.check_move(Rules::CaptureOnly, mv), Ok(()));
    assert_eq!(result.depth, 0);
}

#[test]
fn an_infinite_search_stops_promptly_on_the_stop_flag() {
    let stop = Arc::new(AtomicBool::new(false));
    let setter = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, Ordering::Release);
        })
    };
    let started = Instant::now();
    let limits = Limits {
        infinite: true,
        ..Limits::default()
    };
    let result = Searcher::new(4).search(
        &Position::startpos(),
        Rules::CaptureOnly,
        &limits,
        &stop,
        &mut |_| {},
    );
    setter.join().expect("setter thread");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(started.elapsed() >= Duration::from_millis(100));
    assert!(result.best.is_some());
}

#[test]
fn a_move_time_and_a_clock_are_kept() {
    let movetime = Limits {
        movetime_ms: Some(100),
        ..Limits::default()
    };
    let clock = Limits {
        clock: Some(SearchClock {
            remaining_ms: 1_000,
            increment_ms: 0,
            moves_to_go: None,
        }),
        ..Limits::default()
    };
    for limits in [movetime, clock] {
        let started = Instant::now();
        let result = search(&Position::startpos(), Rules::CaptureOnly, &limits);
        assert!(
            started.elapsed() < Duration::from_millis(1_000),
            "{limits:?}"
        );
        assert!(result.best.is_some() && result.depth >= 1);
    }
}

#[test]
fn a_fixed_depth_search_is_deterministic() {
    for rules in Rules::ALL {
        for p in random_positions(rules, 6, 7) {
            let first = search(&p, rules, &depth(5));
            let second = search(&p, rules, &depth(5));
            assert_eq!(first.best, second.best);
            assert_eq!((first.score, first.nodes), (second.score, second.nodes));
            assert_eq!(first.pv, second.pv);
            // A cleared searcher behaves as a new one.
            let mut searcher = Searcher::new(16);
            let stop = AtomicBool::new(false);
            searcher.search(&Position::startpos(), rules, &depth(4), &stop, &mut |_| {});
            searcher.clear();
            let again = searcher.search(&p, rules, &depth(5), &stop, &mut |_| {});
            assert_eq!((again.best, again.nodes), (first.best, first.nodes));
        }
    }
}

#[test]
fn the_table_does_not_change_a_unique_best_move() {
    for (text, rules) in [
        ("3p4/8/1PP5/8/7p/8/8/8 w", Rules::CaptureOnly),
        ("8/1p3ppp/P7/8/8/8/3p1PPP/2P5 w", Rules::CaptureOnly),
        ("8/1p3ppp/P7/8/8/8/3p1PPP/2P5 w", Rules::Classic),
    ] {
        let p = position(text);
        let with = search_with(16, &p, rules, &depth(6)).0;
        let without = search_with(0, &p, rules, &depth(6)).0;
        assert_eq!(with.best, without.best, "{text}");
    }
}

#[test]
fn the_material_evaluation_is_selectable_and_still_takes_wins() {
    let mut searcher = Searcher::new(1);
    searcher.set_eval_kind(EvalKind::Material);
    assert_eq!(searcher.eval_kind(), EvalKind::Material);
    let stop = AtomicBool::new(false);
    let p = position("3p4/8/1PP5/8/7p/8/8/8 w");
    let result = searcher.search(&p, Rules::CaptureOnly, &depth(5), &stop, &mut |_| {});
    assert_eq!(result.score, SearchScore::Win(3));
    assert_eq!(p.side_to_move(), Color::White);
}
