//! The after-stop estimate against fishtest's own figures, over 45 combinations of counts,
//! bounds, error rates and models.
//!
//! Source of the reference values: fishtest (github.com/official-stockfish/fishtest, commit
//! b8eecff220b562a0dc2c4e68d1fa02521e06d72c, 2026-08-22), `server/fishtest/stats/sprt.py`:
//! `sprt(alpha, beta, elo0, elo1, elo_model)`, `.set_state(counts)`, `.analytics(0.05)`,
//! whose `elo`, `ci`, `LOS`, `LLR` and `clamped` are the fields below; run with Python 3.11.7,
//! scipy 1.17.1 and numpy 2.4.6. The counts of the first crossings are where fishtest's
//! `LLRcalc.LLR_logistic` (or `LLR_normalized`) first left Wald's bounds over the sequence of
//! game pairs (or games) that [`Sequence`] describes.

use super::*;
use crate::stats::sequential::{Outcome, SequentialTest};

mod logistic;
mod normalized;

/// Every reference value: logistic Elo's, then normalized Elo's.
fn vectors() -> impl Iterator<Item = &'static Vector> + Clone {
    logistic::VECTORS.iter().chain(normalized::VECTORS.iter())
}

/// What a combination exercises.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// The counts where a test's LLR first crossed a bound.
    FirstCrossing,
    /// Counts far past a bound: the approximate LLR is set on the bound.
    Overshoot,
    /// Every pair (or game) won, or lost.
    OneSided,
    /// A test within its bounds (the function is defined there too; reports show it only
    /// after a verdict).
    Running,
}

/// A deterministic sequence of outcomes: outcome `i` (from 1) is the first `k` with
/// `weyl(i) < thresholds[k]`, `weyl(i) = i * 2654435761 mod 2^32`; with three thresholds a
/// game pair lost twice, split 1–1 or won twice, with two a game lost or won.
#[derive(Debug, Clone, Copy)]
struct Sequence {
    thresholds: &'static [u64],
    /// The pairs (or games) to the first crossing.
    steps: u64,
}

#[derive(Debug, Clone, Copy)]
struct Vector {
    kind: Kind,
    model: SprtModel,
    alpha: f64,
    beta: f64,
    elo0: f64,
    elo1: f64,
    counts: &'static [u64],
    sequence: Option<Sequence>,
    elo: f64,
    ci: [f64; 2],
    los: f64,
    llr: f64,
    clamped: bool,
}

impl Vector {
    fn sprt(&self) -> Sprt {
        Sprt::new(self.elo0, self.elo1, self.alpha, self.beta)
            .and_then(|sprt| sprt.with_model(self.model))
            .unwrap()
    }
}

/// Elo agrees with fishtest's to this (the requirement).
const ELO_TOLERANCE: f64 = 1e-6;

#[test]
fn the_estimate_equals_fishtests_over_every_combination() {
    for (k, vector) in vectors().enumerate() {
        let got = after_stop(&vector.sprt(), vector.counts);
        let context = format!("vector {k}: {vector:?}\ngot {got:?}");
        assert!(
            (got.elo - vector.elo).abs() <= ELO_TOLERANCE,
            "elo: {context}"
        );
        for side in 0..2 {
            assert!(
                (got.ci[side] - vector.ci[side]).abs() <= ELO_TOLERANCE,
                "ci: {context}"
            );
        }
        assert!((got.los - vector.los).abs() <= 1e-9, "los: {context}");
        assert!((got.llr - vector.llr).abs() <= 1e-9, "llr: {context}");
        assert_eq!(got.clamped, vector.clamped, "clamped: {context}");
    }
    let kinds = |kind| vectors().filter(|v| v.kind == kind).count();
    assert!(kinds(Kind::FirstCrossing) >= 20 && kinds(Kind::Overshoot) >= 4);
    assert!(kinds(Kind::OneSided) >= 4 && kinds(Kind::Running) >= 2);
    assert!(vectors().any(|v| v.model == SprtModel::Normalized && v.counts.len() == 3));
}

/// The first crossings, replayed through bt-arena's own sequential test: it stops where
/// fishtest's LLR first crossed, and its verdict carries the counts the estimate comes from.
#[test]
fn a_test_stopped_at_its_first_crossing_gives_fishtests_estimate() {
    let mut replayed = 0;
    for vector in vectors().filter(|v| v.kind == Kind::FirstCrossing) {
        let sequence = vector.sequence.unwrap();
        let pairs = vector.counts.len() == 5;
        let mut test = SequentialTest::new(vector.sprt());
        let mut verdict = None;
        for i in 1..=sequence.steps {
            let weyl = (i * 2_654_435_761) % (1 << 32);
            let outcome = sequence.thresholds.iter().position(|&t| weyl < t).unwrap();
            // A pair: the tested engine's White game, then its Black game; a game: its own key.
            let games: &[(u64, Outcome)] = match (pairs, outcome) {
                (true, 0) => &[(i, lost(true)), (i, lost(false))],
                (true, 1) => &[(i, won(true)), (i, lost(false))],
                (true, _) => &[(i, won(true)), (i, won(false))],
                (false, 0) => &[(i, lost(i % 2 == 1))],
                (false, _) => &[(i, won(i % 2 == 1))],
            };
            for &(key, game) in games {
                assert!(verdict.is_none(), "decided before step {i}: {vector:?}");
                verdict = test.add(key, game);
            }
        }
        let verdict = verdict.unwrap_or_else(|| panic!("no verdict: {vector:?}"));
        assert_eq!(verdict.counts.to_vec(), vector.counts, "{vector:?}");
        let estimate = test.status().after_stop.unwrap();
        assert!((estimate.elo - vector.elo).abs() <= ELO_TOLERANCE);
        assert!((estimate.ci[0] - vector.ci[0]).abs() <= ELO_TOLERANCE);
        assert!((estimate.ci[1] - vector.ci[1]).abs() <= ELO_TOLERANCE);
        replayed += 1;
    }
    assert_eq!(replayed, 23);
}

fn won(white: bool) -> Outcome {
    Outcome { white, won: true }
}

fn lost(white: bool) -> Outcome {
    Outcome { white, won: false }
}

/// The estimate corrects the stop's selection: after an H1 at its first crossing it is below
/// the plain maximum-likelihood Elo, after an H0 above it, and its interval holds it.
#[test]
fn the_estimate_is_pulled_back_from_the_plain_one() {
    for vector in vectors().filter(|v| v.kind == Kind::FirstCrossing) {
        let plain = match *vector.counts {
            [ll, ld, wl, wd, ww] => crate::stats::elo_pentanomial(&[ll, ld, wl, wd, ww].into()).elo,
            [l, d, w] => crate::stats::elo_trinomial(&[l, d, w]).elo,
            _ => unreachable!(),
        };
        let got = after_stop(&vector.sprt(), vector.counts);
        assert!(got.ci[0] < got.elo && got.elo < got.ci[1], "{got:?}");
        if got.llr > 0.0 {
            assert!(got.elo < plain, "H1: {} not below {plain}", got.elo);
        } else {
            assert!(got.elo > plain, "H0: {} not above {plain}", got.elo);
        }
    }
}
