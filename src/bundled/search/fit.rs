//! Texel's method for the full evaluation's weights: fit them to positions of
//! `bt-arena datagen` (24-byte records, `docs/formats/datagen.md`).
//!
//! The evaluation is linear in its 30 weights (each term is a weight times a count; only the
//! clamp at [`super::EVAL_LIMIT`] is not), so each position is read once into its features,
//! the evaluation with each weight alone set to 1. The fit then minimises the mean of
//! `(σ(eval / K) − target)²` with `σ(x) = 1 / (1 + e^−x)` (Texel's error, Peter Österlund
//! 2014; Andrew Grant, "Evaluation & Tuning in Chess Engines", 2020), where `target = λ ·
//! result + (1 − λ) · σ(score / K)` blends the game's (or the proven) result with the
//! engine's search score, all from the side to move's view. K is fitted first, alone, so that
//! σ(score / K) predicts the results best: it pins the evaluation's scale. The weights then
//! follow Adam (Kingma and Ba 2015) over the whole data, each kept in its option's range.
//!
//! Memory: 30 floats per position (120 bytes): the data is read whole.

use super::eval::{EvalKind, static_eval};
use super::weights::EvalWeights;
use crate::rules::{Color, Position};

/// The number of weights.
pub const WEIGHTS: usize = EvalWeights::OPTIONS.len();

/// A record's score meaning none (`i16::MIN`).
const NO_SCORE: i16 = i16::MIN;

/// Scores beyond this are mates (or the last centipawns before them): left out of the fit of
/// K and capped for the target.
const MAX_CP: i16 = 30_000;

/// One position: its features and what the fit aims at.
#[derive(Clone, Debug)]
pub struct Sample {
    features: [f32; WEIGHTS],
    /// The result for the side to move: 1 won, 0 lost.
    result: f32,
    /// The engine's score for the side to move, centipawns (capped at ±[`MAX_CP`]).
    score: f32,
}

/// The weights with every one at 0.
fn zero() -> EvalWeights {
    let mut weights = EvalWeights::DEFAULT;
    for option in &EvalWeights::OPTIONS {
        let _ = weights.set(option.name, 0);
    }
    weights
}

/// The features of `position`: the evaluation (side to move's view) with each weight alone
/// set to 1.
pub fn features(position: &Position) -> [f32; WEIGHTS] {
    let base = zero();
    let at_zero = static_eval(position, EvalKind::Full, &base);
    std::array::from_fn(|i| {
        let mut weights = base;
        let _ = weights.set(EvalWeights::OPTIONS[i].name, 1);
        (static_eval(position, EvalKind::Full, &weights) - at_zero) as f32
    })
}

/// The sample of one 24-byte record; `None` without a score, or when the bitboards are not a
/// position or the position is over.
pub fn sample(record: &[u8; 24]) -> Option<Sample> {
    let white = u64::from_le_bytes(record[0..8].try_into().ok()?);
    let black = u64::from_le_bytes(record[8..16].try_into().ok()?);
    let score = i16::from_le_bytes([record[16], record[17]]);
    if score == NO_SCORE {
        return None;
    }
    let side = match record[19] {
        0 => Color::White,
        _ => Color::Black,
    };
    let position = Position::new(white, black, side).ok()?;
    if position.is_decided() {
        return None;
    }
    let white_won = record[18] == 2;
    let (result, score) = match side {
        Color::White => (white_won, score),
        Color::Black => (!white_won, score.saturating_neg()),
    };
    Some(Sample {
        features: features(&position),
        result: if result { 1.0 } else { 0.0 },
        score: f32::from(score.clamp(-MAX_CP, MAX_CP)),
    })
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The K (centipawns per unit of the logistic) with which σ(score / K) predicts the results
/// best: a golden-section search over [10, 10000] of the mean squared error, positions with
/// mate scores left out.
pub fn fit_k(samples: &[Sample]) -> f64 {
    let error = |k: f64| {
        let (sum, n) = samples
            .iter()
            .filter(|s| s.score.abs() < f32::from(MAX_CP))
            .fold((0.0, 0usize), |(sum, n), s| {
                let d = sigmoid(f64::from(s.score) / k) - f64::from(s.result);
                (sum + d * d, n + 1)
            });
        sum / n.max(1) as f64
    };
    let (mut low, mut high) = (10f64.ln(), 10_000f64.ln());
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if error(a.exp()) < error(b.exp()) {
            high = b;
        } else {
            low = a;
        }
    }
    ((low + high) / 2.0).exp()
}

/// What a fit found.
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The weights, rounded and in their options' ranges.
    pub weights: EvalWeights,
    /// K.
    pub k: f64,
    /// The mean squared error at the start and at the end.
    pub error: (f64, f64),
}

/// Fits the weights to `samples` from `start` over `epochs` passes of Adam with step `rate`
/// (centipawns), the target blending results and scores by `lambda` (1: results only).
pub fn fit(samples: &[Sample], start: &EvalWeights, lambda: f64, epochs: u32, rate: f64) -> Fitted {
    let k = fit_k(samples);
    let targets: Vec<f64> = samples
        .iter()
        .map(|s| lambda * f64::from(s.result) + (1.0 - lambda) * sigmoid(f64::from(s.score) / k))
        .collect();
    let options = &EvalWeights::OPTIONS;
    let mut w: Vec<f64> = options
        .iter()
        .map(|o| f64::from(start.get(o.name).unwrap_or(0)))
        .collect();
    let error_of = |w: &[f64], gradient: Option<&mut [f64]>| {
        let mut sum = 0.0;
        let mut grad = vec![0.0; WEIGHTS];
        for (s, &t) in samples.iter().zip(&targets) {
            let eval: f64 = s
                .features
                .iter()
                .zip(w)
                .map(|(&f, &w)| f64::from(f) * w)
                .sum();
            let p = sigmoid(eval / k);
            let d = p - t;
            sum += d * d;
            let common = 2.0 * d * p * (1.0 - p) / k;
            for (g, &f) in grad.iter_mut().zip(&s.features) {
                *g += common * f64::from(f);
            }
        }
        let n = samples.len().max(1) as f64;
        if let Some(out) = gradient {
            for (o, g) in out.iter_mut().zip(grad) {
                *o = g / n;
            }
        }
        sum / n
    };
    let first = error_of(&w, None);
    let (mut m, mut v) = (vec![0.0; WEIGHTS], vec![0.0; WEIGHTS]);
    let (beta1, beta2) = (0.9f64, 0.999f64);
    let mut gradient = vec![0.0; WEIGHTS];
    for epoch in 1..=epochs {
        error_of(&w, Some(&mut gradient));
        for i in 0..WEIGHTS {
            m[i] = beta1 * m[i] + (1.0 - beta1) * gradient[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * gradient[i] * gradient[i];
            let m_hat = m[i] / (1.0 - beta1.powi(epoch as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(epoch as i32));
            w[i] -= rate * m_hat / (v_hat.sqrt() + 1e-12);
            w[i] = w[i].clamp(f64::from(options[i].min), f64::from(options[i].max));
        }
    }
    let mut weights = *start;
    for (option, &value) in options.iter().zip(&w) {
        let _ = weights.set(option.name, value.round() as i32);
    }
    let rounded: Vec<f64> = options
        .iter()
        .map(|o| f64::from(weights.get(o.name).unwrap_or(0)))
        .collect();
    Fitted {
        weights,
        k,
        error: (first, error_of(&rounded, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_features_rebuild_the_evaluation_at_any_weights() {
        for fen in [
            "startpos",
            "6p1/2p5/1pP5/p5Pp/P1P2P2/1P2p2P/6P1/8 w",
            "1ppppppp/8/p3p1p1/p1P2p1p/P4P1P/PP4P1/2P5/1P2PPPP b",
        ] {
            let position: Position = fen.parse().unwrap();
            let f = features(&position);
            for weights in [EvalWeights::DEFAULT, zero()] {
                let linear: f32 = EvalWeights::OPTIONS
                    .iter()
                    .zip(&f)
                    .map(|(o, &f)| f * weights.get(o.name).unwrap() as f32)
                    .sum();
                assert_eq!(
                    linear as i32,
                    static_eval(&position, EvalKind::Full, &weights),
                    "{fen}"
                );
            }
        }
    }
}
