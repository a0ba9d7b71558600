//! The arithmetic of SPSA as fishtest and OpenBench do it: the gain schedule, one iteration's
//! perturbation (flips, rounding, clipping) and the update. No games here: see
//! [`super::runner`].
//!
//! Sources: fishtest `server/fishtest/spsa_handler.py` (`_generate_data`,
//! `__update_spsa_data`); OpenBench `OpenBench/spsa_utils.py` (`create_spsa_run`,
//! `spsa_workload_assignment_dict`) and `Client/worker.py` (the delta it reports); both descend
//! from Joona Kiiski's SPSA tuner for Stockfish. The method is Spall's ("Implementation of
//! the simultaneous perturbation algorithm for stochastic optimization", IEEE Trans.
//! Aerospace and Electronic Systems 34(3), 1998), where α = 0.602 and γ = 0.101 come from.
//!
//! For a tune of I iterations, a parameter with C_END and R_END has, at iteration k (from 1):
//!
//! ```text
//! c   = C_END · I^γ                      c_k = c / k^γ        (c_I = C_END)
//! a   = R_END · C_END² · (A + I)^α       a_k = a / (A + k)^α  (a_I = R_END · C_END²)
//! r_k = a_k / c_k²                                            (r_I = R_END)
//! ```
//!
//! with A = 0.1 · I unless set. For an integer parameter c_k is at least 0.5 (OpenBench's
//! floor), and r_k uses the floored c_k.
//!
//! Why the floor: integers are played at floor(x + u), with one u ∈ [0, 1) drawn per
//! parameter and shared by θ+ and θ− (OpenBench; AndyGrant in Stockfish PR #4776). With
//! c_k ≥ 0.5 the two sides are 2·c_k ≥ 1 apart before rounding, so with a shared u they
//! round at least 1 apart: every iteration plays a real difference (unless a bound clips
//! one side). With a smaller c_k, or with each side rounded on its own, both sides could be
//! played at the same integer, and the games would measure nothing while the update still
//! moved θ as if they had.
//!
//! The update, per parameter, with W and L θ+'s wins and losses over the iteration's games:
//!
//! ```text
//! θ ← clip(θ + a_k · (W − L) / (c_k · Δ))        = clip(θ + r_k · c_k · (W − L) · Δ)
//! ```
//!
//! the second form being fishtest's and OpenBench's (Δ = ±1, so 1/Δ = Δ). Breakthrough has no
//! draws: a game pair won once by each side adds nothing; only pairs won twice by one side
//! move θ.

use super::draw;
use super::params::{ParamKind, TuneParam};
use crate::run::header::SettingError;
use serde::{Deserialize, Serialize};

/// The smallest c_k of an integer parameter (OpenBench's floor; see the module docs).
pub const INT_C_FLOOR: f64 = 0.5;

/// The settings of the SPSA schedule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpsaSettings {
    /// I, the number of iterations the gains are scheduled over.
    pub iterations: u64,
    /// Game pairs per iteration (OpenBench's default: 8).
    pub pairs: u32,
    /// A / I (A = 0.1 · I by default, OpenBench's `A_ratio`).
    pub a_ratio: f64,
    /// α, the decay exponent of a_k (0.602).
    pub alpha: f64,
    /// γ, the decay exponent of c_k (0.101).
    pub gamma: f64,
}

impl SpsaSettings {
    /// The default pairs per iteration.
    pub const DEFAULT_PAIRS: u32 = 8;
    /// The default A / I.
    pub const DEFAULT_A_RATIO: f64 = 0.1;
    /// The default α.
    pub const DEFAULT_ALPHA: f64 = 0.602;
    /// The default γ.
    pub const DEFAULT_GAMMA: f64 = 0.101;
    /// The most iterations a tune takes (fishtest's longest tunes are well under it; a tune
    /// keeps its finished iterations in memory for its report).
    pub const MAX_ITERATIONS: u64 = 1_000_000;
    /// The most game pairs an iteration takes.
    pub const MAX_PAIRS: u32 = 100_000;

    /// The defaults for a tune of `iterations` iterations.
    pub fn new(iterations: u64) -> SpsaSettings {
        SpsaSettings {
            iterations,
            pairs: SpsaSettings::DEFAULT_PAIRS,
            a_ratio: SpsaSettings::DEFAULT_A_RATIO,
            alpha: SpsaSettings::DEFAULT_ALPHA,
            gamma: SpsaSettings::DEFAULT_GAMMA,
        }
    }

    /// Checks what the schedule needs: at least one iteration and one pair, A ≥ 0, α and γ
    /// finite and ≥ 0.
    ///
    /// # Errors
    /// [`SettingError`] naming the setting.
    pub fn validate(&self) -> Result<(), SettingError> {
        let range = |setting, max: u64, given: u64| SettingError::OutOfRange {
            setting,
            min: "1".into(),
            max: max.to_string(),
            given: given.to_string(),
        };
        if self.iterations == 0 || self.iterations > Self::MAX_ITERATIONS {
            return Err(range("--iterations", Self::MAX_ITERATIONS, self.iterations));
        }
        if self.pairs == 0 || self.pairs > Self::MAX_PAIRS {
            return Err(range(
                "--pairs",
                u64::from(Self::MAX_PAIRS),
                u64::from(self.pairs),
            ));
        }
        for (setting, given) in [
            ("--a-ratio", self.a_ratio),
            ("--alpha", self.alpha),
            ("--gamma", self.gamma),
        ] {
            if !given.is_finite() || given < 0.0 {
                return Err(SettingError::Negative { setting, given });
            }
        }
        Ok(())
    }

    /// A = a_ratio · I.
    pub fn big_a(&self) -> f64 {
        self.a_ratio * self.iterations as f64
    }

    /// The constants c and a of `param`'s schedule.
    pub fn gains(&self, param: &TuneParam) -> Gains {
        let i = self.iterations as f64;
        Gains {
            c: param.c_end * i.powf(self.gamma),
            a: param.r_end * param.c_end * param.c_end * (self.big_a() + i).powf(self.alpha),
        }
    }

    /// c_k of `param` at iteration `k` (from 1), floored at [`INT_C_FLOOR`] for an integer.
    pub fn c_k(&self, param: &TuneParam, k: u64) -> f64 {
        let c_k = self.gains(param).c / (k as f64).powf(self.gamma);
        match param.kind {
            ParamKind::Int => c_k.max(INT_C_FLOOR),
            ParamKind::Float => c_k,
        }
    }

    /// a_k of `param` at iteration `k` (from 1).
    pub fn a_k(&self, param: &TuneParam, k: u64) -> f64 {
        self.gains(param).a / (self.big_a() + k as f64).powf(self.alpha)
    }

    /// r_k = a_k / c_k² of `param` at iteration `k`, with the floored c_k.
    pub fn r_k(&self, param: &TuneParam, k: u64) -> f64 {
        let c_k = self.c_k(param, k);
        self.a_k(param, k) / (c_k * c_k)
    }
}

/// The constants of one parameter's schedule: c_k = c / k^γ, a_k = a / (A + k)^α.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// c = C_END · I^γ.
    pub c: f64,
    /// a = R_END · C_END² · (A + I)^α.
    pub a: f64,
}

/// One iteration's perturbation: the θ it starts from, the draws, the gains, and the values
/// θ+ (`plus`) and θ− (`minus`) played; one entry per parameter, in declaration order.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// The iteration, from 1.
    pub iteration: u64,
    /// θ when the iteration started.
    pub theta: Vec<f64>,
    /// Δ = ±1.
    pub flips: Vec<i8>,
    /// c_k (floored for integers).
    pub c_k: Vec<f64>,
    /// a_k.
    pub a_k: Vec<f64>,
    /// θ + c_k·Δ, rounded (integers) and clipped to [MIN, MAX].
    pub plus: Vec<f64>,
    /// θ − c_k·Δ, rounded (integers) and clipped to [MIN, MAX].
    pub minus: Vec<f64>,
}

/// The perturbation of `iteration` from `theta`, with the draws of `seed`: flips and rounding
/// offsets keyed by (seed, iteration, parameter) ([`draw`]).
pub fn perturb(
    settings: &SpsaSettings,
    params: &[TuneParam],
    theta: &[f64],
    iteration: u64,
    seed: u64,
) -> Perturbation {
    let mut perturbation = Perturbation {
        iteration,
        theta: theta.to_vec(),
        flips: Vec::with_capacity(params.len()),
        c_k: Vec::with_capacity(params.len()),
        a_k: Vec::with_capacity(params.len()),
        plus: Vec::with_capacity(params.len()),
        minus: Vec::with_capacity(params.len()),
    };
    for (index, (param, &value)) in params.iter().zip(theta).enumerate() {
        let flip = draw::flip(seed, iteration, index as u64);
        let c_k = settings.c_k(param, iteration);
        let shift = c_k * f64::from(flip);
        let u = draw::unit(seed, iteration, index as u64);
        let (plus, minus) = played_pair(param, value, shift, u);
        perturbation.flips.push(flip);
        perturbation.c_k.push(c_k);
        perturbation.a_k.push(settings.a_k(param, iteration));
        perturbation.plus.push(plus);
        perturbation.minus.push(minus);
    }
    perturbation
}

/// The values θ+ and θ− played for `param` at `theta` perturbed by `shift` = c_k·Δ: an
/// integer rounded as OpenBench does, floor(x + u) with the one `u` for both sides, then both
/// clipped to [MIN, MAX] (OpenBench rounds, then clips).
pub fn played_pair(param: &TuneParam, theta: f64, shift: f64, u: f64) -> (f64, f64) {
    let (plus, minus) = (theta + shift, theta - shift);
    let (plus, minus) = match param.kind {
        ParamKind::Int => ((plus + u).floor(), (minus + u).floor()),
        ParamKind::Float => (plus, minus),
    };
    (clip(param, plus), clip(param, minus))
}

/// `value` clipped to `param`'s [MIN, MAX].
pub fn clip(param: &TuneParam, value: f64) -> f64 {
    value.clamp(param.min, param.max)
}

/// What an iteration changes in a parameter before clipping: a_k · (W − L) / (c_k · Δ).
pub fn increment(a_k: f64, c_k: f64, flip: i8, wins: u32, losses: u32) -> f64 {
    a_k * (f64::from(wins) - f64::from(losses)) / (c_k * f64::from(flip))
}

/// The same increment in fishtest's and OpenBench's form, R · c · (W − L) · Δ with R = a_k /
/// c_k²: equal to [`increment`] up to rounding (a test shows it).
pub fn increment_fishtest(r_k: f64, c_k: f64, flip: i8, wins: u32, losses: u32) -> f64 {
    r_k * c_k * (f64::from(wins) - f64::from(losses)) * f64::from(flip)
}

/// Applies a finished iteration to `theta`: each parameter moves by its [`increment`] and is
/// clipped to [MIN, MAX].
pub fn update(
    params: &[TuneParam],
    theta: &mut [f64],
    step: &Perturbation,
    wins: u32,
    losses: u32,
) {
    for (index, param) in params.iter().enumerate() {
        let change = increment(
            step.a_k[index],
            step.c_k[index],
            step.flips[index],
            wins,
            losses,
        );
        theta[index] = clip(param, theta[index] + change);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::params::parse_line;

    fn param(text: &str) -> TuneParam {
        parse_line(text).unwrap().unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
    }

    // The expected numbers below were computed by hand (with Python's float arithmetic):
    // I = 100, A = 10, α = 0.602, γ = 0.101, C_END = 10, R_END = 0.002.
    #[test]
    fn the_gain_schedule_matches_hand_computed_values() {
        let settings = SpsaSettings::new(100);
        assert_eq!(settings.big_a(), 10.0);
        let pawn = param("Pawn, int, 100, 0, 200, 10, 0.002");
        let gains = settings.gains(&pawn);
        // c = 10 · 100^0.101, a = 0.002 · 100 · 110^0.602.
        assert!(close(gains.c, 15.922_087_270_511_703), "{}", gains.c);
        assert!(close(gains.a, 3.388_038_931_674_512_5), "{}", gains.a);
        // k = 1: c_1 = c, a_1 = a / 11^0.602, r_1 = a_1 / c_1².
        assert!(close(settings.c_k(&pawn, 1), 15.922_087_270_511_703));
        assert!(close(settings.a_k(&pawn, 1), 0.799_889_499_522_194_9));
        assert!(close(settings.r_k(&pawn, 1), 0.003_155_222_539_398_696_3));
        // k = I: c_I = C_END, a_I = R_END · C_END², r_I = R_END.
        assert!(close(settings.c_k(&pawn, 100), 10.0));
        assert!(close(settings.a_k(&pawn, 100), 0.2));
        assert!(close(settings.r_k(&pawn, 100), 0.002));
        // k = 37, between.
        assert!(close(settings.c_k(&pawn, 37), 11.056_346_119_871_08));
        assert!(close(settings.a_k(&pawn, 37), 0.333_691_759_302_931));
    }

    #[test]
    fn an_integer_c_k_is_floored_at_one_half_and_r_k_uses_the_floor() {
        let settings = SpsaSettings::new(100);
        let small = param("Tempo, int, 10, 0, 20, 0.2, 0.002");
        let real = param("Scale, float, 1, 0, 2, 0.2, 0.002");
        assert_eq!(settings.c_k(&small, 100), 0.5);
        assert!(close(settings.c_k(&real, 100), 0.2));
        // a_100 = 0.002 · 0.04 = 0.00008; r = a / 0.25 for the integer, / 0.04 for the real.
        assert!(close(settings.r_k(&small, 100), 0.000_08 / 0.25));
        assert!(close(settings.r_k(&real, 100), 0.002));
    }

    #[test]
    fn integers_round_as_floor_of_x_plus_a_shared_u_then_clip() {
        let pawn = param("Pawn, int, 100, 0, 101, 10, 0.002");
        assert_eq!(played_pair(&pawn, 100.3, 0.5, 0.1), (100.0, 99.0));
        assert_eq!(played_pair(&pawn, 100.3, 0.5, 0.25), (101.0, 100.0));
        assert_eq!(played_pair(&pawn, 100.3, -0.5, 0.25), (100.0, 101.0));
        // Clipped after rounding: 100.3 + 2 + 0.9 rounds to 103, clipped to 101.
        assert_eq!(played_pair(&pawn, 100.3, 2.0, 0.9), (101.0, 99.0));
        // With c_k >= 0.5 and one u, the sides are always at least 1 apart.
        for step in 0..1000 {
            let u = f64::from(step) / 1000.0;
            let (plus, minus) = played_pair(&pawn, 50.37, 0.5, u);
            assert!(plus - minus >= 1.0, "u = {u}: {plus} {minus}");
        }
        let real = param("Scale, float, 1, 0, 2, 0.2, 0.002");
        assert_eq!(played_pair(&real, 1.9, 0.2, 0.7), (2.0, 1.7));
    }

    #[test]
    fn the_update_equals_the_fishtest_and_openbench_form() {
        let settings = SpsaSettings::new(100);
        let pawn = param("Pawn, int, 100, 0, 200, 10, 0.002");
        for k in [1, 2, 37, 100] {
            for (flip, wins, losses) in [(1, 9, 4), (-1, 9, 4), (1, 2, 7), (-1, 0, 16), (1, 5, 5)] {
                let (a_k, c_k, r_k) = (
                    settings.a_k(&pawn, k),
                    settings.c_k(&pawn, k),
                    settings.r_k(&pawn, k),
                );
                let ours = increment(a_k, c_k, flip, wins, losses);
                let theirs = increment_fishtest(r_k, c_k, flip, wins, losses);
                assert!(close(ours, theirs), "k {k}: {ours} {theirs}");
            }
        }
        // By hand, k = 1, W − L = 3, Δ = −1: −3 · 0.7998894995221949 / 15.922087270511703.
        let step = perturb(&settings, std::slice::from_ref(&pawn), &[100.0], 1, 5);
        let mut theta = [100.0];
        let flipped = Perturbation {
            flips: vec![-1],
            ..step
        };
        update(std::slice::from_ref(&pawn), &mut theta, &flipped, 7, 4);
        assert!(
            close(theta[0], 100.0 - 0.150_713_185_890_574_78),
            "{}",
            theta[0]
        );
        // A 1–1 pair, or any W = L, moves nothing.
        update(std::slice::from_ref(&pawn), &mut theta, &flipped, 8, 8);
        assert!(close(theta[0], 100.0 - 0.150_713_185_890_574_78));
        // Clipped to [MIN, MAX].
        let mut high = [199.9];
        let up = Perturbation {
            flips: vec![1],
            ..flipped
        };
        update(std::slice::from_ref(&pawn), &mut high, &up, 16, 0);
        assert_eq!(high, [200.0]);
    }

    // The draws and values below were computed by hand (Python, from the formulas of the
    // module docs and of `draw`): I = 100, k = 3, c_3 = 10 · 100^0.101 / 3^0.101 =
    // 14.249865108837486 for Pawn and 0.28499730217674973 for Scale; a_3 = 0.002 · C_END² ·
    // 110^0.602 / 13^0.602.
    #[test]
    fn a_perturbation_is_keyed_by_seed_and_iteration() {
        let settings = SpsaSettings::new(100);
        let params = [
            param("Pawn, int, 100, 0, 200, 10, 0.002"),
            param("Scale, float, 1, 0, 2, 0.2, 0.002"),
        ];
        let theta = [100.0, 1.0];
        let first = perturb(&settings, &params, &theta, 3, 42);
        assert_eq!(first, perturb(&settings, &params, &theta, 3, 42));
        assert_eq!(first.iteration, 3);
        assert_eq!(first.theta, theta);
        assert!(close(first.c_k[0], 14.249_865_108_837_486), "{first:?}");
        assert!(close(first.c_k[1], 0.284_997_302_176_749_73), "{first:?}");
        assert!(close(first.a_k[0], 0.723_360_007_245_847_3), "{first:?}");
        assert!(
            close(first.a_k[1], 0.000_289_344_002_898_338_93),
            "{first:?}"
        );
        // Seed 42: Δ = (−1, −1); Pawn's u = 0.38017939355921: 100 − 14.2499 + u = 86.13 → 86,
        // 100 + 14.2499 + u = 114.63 → 114.
        assert_eq!(first.flips, [-1, -1]);
        assert_eq!((first.plus[0], first.minus[0]), (86.0, 114.0));
        assert!(close(first.plus[1], 0.715_002_697_823_250_2), "{first:?}");
        assert!(close(first.minus[1], 1.284_997_302_176_749_8), "{first:?}");
        // Seed 4 draws other flips and offsets: Δ = (+1, +1); Pawn's u = 0.04201875594413:
        // 114.25 + u → 114, 85.75 + u = 85.79 → 85 (with seed 42's u it would be 86).
        let other = perturb(&settings, &params, &theta, 3, 4);
        assert_eq!(other.flips, [1, 1]);
        assert_eq!((other.plus[0], other.minus[0]), (114.0, 85.0));
        assert!(close(other.plus[1], 1.284_997_302_176_749_8), "{other:?}");
        assert!(close(other.minus[1], 0.715_002_697_823_250_2), "{other:?}");
        assert_eq!(other.c_k, first.c_k);
        // Another iteration draws afresh (over 64 iterations some flip differs).
        let others: Vec<Vec<i8>> = (4..68)
            .map(|k| perturb(&settings, &params, &theta, k, 42).flips)
            .collect();
        assert!(others.iter().any(|flips| *flips != first.flips));
    }

    #[test]
    fn settings_are_validated() {
        assert_eq!(SpsaSettings::new(10).validate(), Ok(()));
        assert_eq!(
            SpsaSettings::new(0).validate().map_err(|e| e.to_string()),
            Err("--iterations must be from 1 to 1000000, not 0".to_string())
        );
        // A count beyond the stated maximum is refused before anything is allocated for it.
        assert_eq!(
            SpsaSettings::new(99_999_999_999)
                .validate()
                .map_err(|e| e.to_string()),
            Err("--iterations must be from 1 to 1000000, not 99999999999".to_string())
        );
        assert_eq!(SpsaSettings::new(1_000_000).validate(), Ok(()));
        let mut settings = SpsaSettings::new(10);
        settings.pairs = 100_001;
        assert_eq!(
            settings.validate().map_err(|e| e.to_string()),
            Err("--pairs must be from 1 to 100000, not 100001".to_string())
        );
        let mut settings = SpsaSettings::new(10);
        settings.alpha = -0.1;
        assert_eq!(
            settings.validate().map_err(|e| e.to_string()),
            Err("--alpha must be a number >= 0, not -0.1".to_string())
        );
    }
}
