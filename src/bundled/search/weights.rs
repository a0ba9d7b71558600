//! The weights of the full evaluation, each one an engine option of `bt-search`, so that they
//! can be tuned (`bt-arena tune`) without rebuilding the engine.
//!
//! [`EvalWeights::default`] holds the values the evaluation was written with; at the defaults
//! the engine plays exactly as it did when the weights were constants. Every weight is a spin
//! option named in [`EvalWeights::OPTIONS`] (`Pawn`, `Advance1` ... `Advance6`, `HomeGuard`,
//! `Hanging`, `SafeAdvance1` ... `SafeAdvance6`, `Passed1` ... `Passed6`, `Unstoppable1` ...
//! `Unstoppable6`, `Tempo`, `Race`, `RaceMove`), all in centipawns. A per-rank weight `XN`
//! is the bonus for a pawn `N` ranks in front of its home rank (rank 0 is the home rank, 7 the
//! goal: a pawn there has won, so neither has a weight; rank 0 has none either, its bonus is the
//! separate `HomeGuard`).

use super::eval::{PAWN, RACE};

/// The most a static evaluation scores, in centipawns, whatever the weights: far below a
/// proven win ([`super::WIN`] less the longest distance), so that no weights can make an
/// evaluation read as a win or loss.
pub const EVAL_LIMIT: i32 = 20_000;

/// The weights of [`super::EvalKind::Full`], in centipawns. Arrays are indexed by the rank
/// counted from the pawn's home rank (0 = home, 7 = goal); their entries 0 and 7 are not
/// options and stay 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EvalWeights {
    /// A pawn's value (the material evaluation always counts [`PAWN`]).
    pub pawn: i32,
    /// Bonus by rank for every pawn.
    pub advance: [i32; 8],
    /// Bonus for each pawn on its home rank (it guards the squares in front of it).
    pub home_guard: i32,
    /// Penalty for a pawn the enemy can take without losing one back.
    pub hanging: i32,
    /// Bonus by rank for a pawn that is not hanging.
    pub safe_advance: [i32; 8],
    /// Bonus by rank for a passed pawn (no enemy pawn ahead on its or a neighbouring file).
    pub passed: [i32; 8],
    /// Bonus by rank for an unstoppable pawn, on top of the passed bonus.
    pub unstoppable: [i32; 8],
    /// Bonus for having the move.
    pub tempo: i32,
    /// About the value of a decided pawn race.
    pub race: i32,
    /// What a decided race loses per move it takes, so that shorter races score higher.
    pub race_move: i32,
}

/// Why a weight cannot be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightError {
    /// No weight has the name given.
    Unknown(String),
    /// A value outside the weight's range.
    OutOfRange {
        /// The weight.
        name: &'static str,
        /// Its least value.
        min: i32,
        /// Its greatest value.
        max: i32,
        /// The value given.
        value: i32,
    },
}

impl std::fmt::Display for WeightError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WeightError::Unknown(name) => write!(f, "no weight named '{name}'"),
            WeightError::OutOfRange {
                name,
                min,
                max,
                value,
            } => write!(f, "{name} must be from {min} to {max}, not {value}"),
        }
    }
}

impl std::error::Error for WeightError {}

impl EvalWeights {
    /// The weights the evaluation was written with (the engine's defaults).
    pub const DEFAULT: EvalWeights = EvalWeights {
        pawn: PAWN,
        advance: [0, 4, 9, 15, 25, 40, 65, 0],
        home_guard: 10,
        hanging: 18,
        safe_advance: [0, 0, 0, 4, 12, 28, 55, 0],
        passed: [0, 0, 5, 10, 20, 35, 55, 0],
        unstoppable: [0, 10, 20, 35, 60, 100, 160, 0],
        tempo: 10,
        race: RACE,
        race_move: 20,
    };

    /// Every weight as an option: name, range, and where it lives. The names are those of the
    /// engine options, in the order the engine declares them.
    pub const OPTIONS: [WeightOption; 30] = {
        use WeightSlot::{
            Advance, Hanging, HomeGuard, Passed, Pawn, Race, RaceMove, SafeAdvance, Tempo,
            Unstoppable,
        };
        const W: i32 = 1_000;
        [
            WeightOption::new("Pawn", Pawn, 0, W),
            WeightOption::new("Advance1", Advance(1), -W, W),
            WeightOption::new("Advance2", Advance(2), -W, W),
            WeightOption::new("Advance3", Advance(3), -W, W),
            WeightOption::new("Advance4", Advance(4), -W, W),
            WeightOption::new("Advance5", Advance(5), -W, W),
            WeightOption::new("Advance6", Advance(6), -W, W),
            WeightOption::new("HomeGuard", HomeGuard, -W, W),
            WeightOption::new("Hanging", Hanging, -W, W),
            WeightOption::new("SafeAdvance1", SafeAdvance(1), -W, W),
            WeightOption::new("SafeAdvance2", SafeAdvance(2), -W, W),
            WeightOption::new("SafeAdvance3", SafeAdvance(3), -W, W),
            WeightOption::new("SafeAdvance4", SafeAdvance(4), -W, W),
            WeightOption::new("SafeAdvance5", SafeAdvance(5), -W, W),
            WeightOption::new("SafeAdvance6", SafeAdvance(6), -W, W),
            WeightOption::new("Passed1", Passed(1), -W, W),
            WeightOption::new("Passed2", Passed(2), -W, W),
            WeightOption::new("Passed3", Passed(3), -W, W),
            WeightOption::new("Passed4", Passed(4), -W, W),
            WeightOption::new("Passed5", Passed(5), -W, W),
            WeightOption::new("Passed6", Passed(6), -W, W),
            WeightOption::new("Unstoppable1", Unstoppable(1), -W, W),
            WeightOption::new("Unstoppable2", Unstoppable(2), -W, W),
            WeightOption::new("Unstoppable3", Unstoppable(3), -W, W),
            WeightOption::new("Unstoppable4", Unstoppable(4), -W, W),
            WeightOption::new("Unstoppable5", Unstoppable(5), -W, W),
            WeightOption::new("Unstoppable6", Unstoppable(6), -W, W),
            WeightOption::new("Tempo", Tempo, -W, W),
            WeightOption::new("Race", Race, 0, 10 * W),
            WeightOption::new("RaceMove", RaceMove, -W, W),
        ]
    };

    /// The weight of option `name` (case-insensitive), or `None` when no weight has that name.
    pub fn get(&self, name: &str) -> Option<i32> {
        let option = EvalWeights::option(name)?;
        Some(*self.slot(option.slot))
    }

    /// Sets the weight of option `name` (case-insensitive) to `value`.
    ///
    /// # Errors
    /// [`WeightError`] when no weight has that name or `value` is outside the option's range.
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), WeightError> {
        let option =
            EvalWeights::option(name).ok_or_else(|| WeightError::Unknown(name.to_string()))?;
        if !(option.min..=option.max).contains(&value) {
            return Err(WeightError::OutOfRange {
                name: option.name,
                min: option.min,
                max: option.max,
                value,
            });
        }
        *self.slot_mut(option.slot) = value;
        Ok(())
    }

    /// The declaration of the weight named `name` (case-insensitive).
    pub fn option(name: &str) -> Option<&'static WeightOption> {
        EvalWeights::OPTIONS
            .iter()
            .find(|option| option.name.eq_ignore_ascii_case(name))
    }

    fn slot(&self, slot: WeightSlot) -> &i32 {
        match slot {
            WeightSlot::Pawn => &self.pawn,
            WeightSlot::Advance(rank) => &self.advance[rank],
            WeightSlot::HomeGuard => &self.home_guard,
            WeightSlot::Hanging => &self.hanging,
            WeightSlot::SafeAdvance(rank) => &self.safe_advance[rank],
            WeightSlot::Passed(rank) => &self.passed[rank],
            WeightSlot::Unstoppable(rank) => &self.unstoppable[rank],
            WeightSlot::Tempo => &self.tempo,
            WeightSlot::Race => &self.race,
            WeightSlot::RaceMove => &self.race_move,
        }
    }

    fn slot_mut(&mut self, slot: WeightSlot) -> &mut i32 {
        match slot {
            WeightSlot::Pawn => &mut self.pawn,
            WeightSlot::Advance(rank) => &mut self.advance[rank],
            WeightSlot::HomeGuard => &mut self.home_guard,
            WeightSlot::Hanging => &mut self.hanging,
            WeightSlot::SafeAdvance(rank) => &mut self.safe_advance[rank],
            WeightSlot::Passed(rank) => &mut self.passed[rank],
            WeightSlot::Unstoppable(rank) => &mut self.unstoppable[rank],
            WeightSlot::Tempo => &mut self.tempo,
            WeightSlot::Race => &mut self.race,
            WeightSlot::RaceMove => &mut self.race_move,
        }
    }
}

impl Default for EvalWeights {
    fn default() -> Self {
        EvalWeights::DEFAULT
    }
}

/// One weight as an engine option: a spin from `min` to `max` whose default is the weight's
/// value in [`EvalWeights::DEFAULT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightOption {
    /// The option name.
    pub name: &'static str,
    /// The smallest value accepted.
    pub min: i32,
    /// The largest value accepted.
    pub max: i32,
    slot: WeightSlot,
}

impl WeightOption {
    const fn new(name: &'static str, slot: WeightSlot, min: i32, max: i32) -> WeightOption {
        WeightOption {
            name,
            min,
            max,
            slot,
        }
    }

    /// The default value: the weight in [`EvalWeights::DEFAULT`].
    pub fn default_value(&self) -> i32 {
        *EvalWeights::DEFAULT.slot(self.slot)
    }
}

/// Which field (and rank) of [`EvalWeights`] an option sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum WeightSlot {
    Pawn,
    Advance(usize),
    HomeGuard,
    Hanging,
    SafeAdvance(usize),
    Passed(usize),
    Unstoppable(usize),
    Tempo,
    Race,
    RaceMove,
}

#[cfg(test)]
mod tests {
    use super::super::{EvalKind, Limits, SearchScore, Searcher, evaluate, evaluate_with};
    use super::*;
    use crate::rules::{Move, Position, Rules};
    use std::sync::atomic::AtomicBool;

    /// splitmix64: a deterministic sequence for the positions below.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `count` positions of random playouts from the start, of up to 69 plies.
    fn playouts(rules: Rules, count: usize, seed: u64) -> Vec<Position> {
        let mut state = seed;
        let mut out = Vec::new();
        while out.len() < count {
            let mut p = Position::startpos();
            let plies = next(&mut state) % 70;
            for _ in 0..plies {
                let moves: Vec<Move> = p.legal_moves(rules).iter().collect();
                if moves.is_empty() {
                    break;
                }
                p = p.play_unchecked(moves[(next(&mut state) % moves.len() as u64) as usize]);
            }
            out.push(p);
        }
        out
    }

    /// A hash of the full evaluation of 2000 playout positions under `weights`.
    fn evaluation_hash(rules: Rules, weights: &EvalWeights) -> u64 {
        playouts(rules, 2000, 7).iter().fold(0, |hash, position| {
            let score = evaluate_with(position, rules, EvalKind::Full, weights);
            hash.wrapping_mul(0x100_0000_01B3) ^ (i64::from(score) as u64)
        })
    }

    /// Best move, score and nodes of a depth-8 search of six unfinished playout positions.
    fn searches(rules: Rules, weights: &EvalWeights) -> Vec<(String, SearchScore, u64)> {
        let positions = playouts(rules, 40, 11);
        let unfinished = positions.iter().filter(|p| p.outcome(rules).is_none());
        unfinished
            .take(6)
            .map(|position| {
                let mut searcher = Searcher::new(16);
                searcher.set_eval_weights(*weights);
                let limits = Limits {
                    depth: Some(8),
                    ..Limits::default()
                };
                let result = searcher.search(
                    position,
                    rules,
                    &limits,
                    &AtomicBool::new(false),
                    &mut |_| {},
                );
                let best = result.best.map(|mv| mv.to_string()).unwrap_or_default();
                (best, result.score, result.nodes)
            })
            .collect()
    }

    // The expected values below were printed by the same code run on the evaluation as it
    // was before its weights became options (commit d2b7cd6): at the defaults, every
    // evaluation, best move, score and node count is unchanged.
    #[test]
    fn at_the_default_weights_evaluations_and_searches_are_those_of_the_constants() {
        let defaults = EvalWeights::default();
        assert_eq!(
            evaluation_hash(Rules::CaptureOnly, &defaults),
            0x2c78_7ab5_4dcb_d52c
        );
        assert_eq!(
            evaluation_hash(Rules::Classic, &defaults),
            0xef6a_c0c8_f294_4353
        );
        let position = Position::startpos();
        assert_eq!(
            evaluate(&position, Rules::CaptureOnly, EvalKind::Full),
            evaluate_with(&position, Rules::CaptureOnly, EvalKind::Full, &defaults)
        );
        let expected = |list: &[(&str, SearchScore, u64)]| -> Vec<(String, SearchScore, u64)> {
            list.iter()
                .map(|(best, score, nodes)| (best.to_string(), *score, *nodes))
                .collect()
        };
        use SearchScore::{Cp, Loss, Win};
        assert_eq!(
            searches(Rules::CaptureOnly, &defaults),
            expected(&[
                ("c8c7", Cp(328), 12631),
                ("d3d4", Cp(18), 37780),
                ("d7d6", Cp(20), 14019),
                ("f2f3", Cp(-105), 18154),
                ("a4a3", Win(5), 747),
                ("d6c5", Cp(132), 11436),
            ])
        );
        assert_eq!(
            searches(Rules::Classic, &defaults),
            expected(&[
                ("c7c8", Win(1), 0),
                ("e3d4", Cp(13), 415230),
                ("a6b5", Cp(100), 104755),
                ("g3h2", Win(3), 112),
                ("g6f7", Loss(6), 4537),
                ("d2d3", Cp(14), 91693),
            ])
        );
    }

    #[test]
    fn other_weights_change_the_evaluation() {
        let mut weights = EvalWeights::default();
        weights.set("SafeAdvance4", 30).expect("in range");
        assert_ne!(
            evaluation_hash(Rules::CaptureOnly, &weights),
            0x2c78_7ab5_4dcb_d52c
        );
        // The start position: 16 pawns a side cancel, the tempo is what is left.
        let mut tempo = EvalWeights::default();
        tempo.set("tempo", 37).expect("in range");
        let start = Position::startpos();
        assert_eq!(
            evaluate_with(&start, Rules::CaptureOnly, EvalKind::Full, &tempo),
            37
        );
    }

    #[test]
    fn no_weights_make_an_evaluation_look_like_a_win() {
        let mut weights = EvalWeights::default();
        for option in EvalWeights::OPTIONS {
            weights
                .set(option.name, option.max)
                .expect("the maximum is in range");
        }
        // White: eight pawns far advanced and unstoppable, Black one pawn at home.
        let position: Position = "7p/PPPPPPP1/8/8/8/8/8/8 b".parse().expect("position");
        let score = evaluate_with(&position, Rules::CaptureOnly, EvalKind::Full, &weights);
        assert_eq!(score, -EVAL_LIMIT);
    }

    #[test]
    fn options_read_and_write_their_weight_and_refuse_values_out_of_range() {
        let mut weights = EvalWeights::default();
        assert_eq!(weights.get("Advance3"), Some(15));
        assert_eq!(weights.get("unstoppable6"), Some(160));
        assert_eq!(weights.get("Race"), Some(RACE));
        assert_eq!(weights.get("Advance7"), None);
        weights.set("Passed2", -40).expect("in range");
        assert_eq!(weights.passed, [0, 0, -40, 10, 20, 35, 55, 0]);
        assert_eq!(
            weights.set("Pawn", -1).map_err(|err| err.to_string()),
            Err("Pawn must be from 0 to 1000, not -1".to_string())
        );
        assert_eq!(
            weights.set("Knight", 300).map_err(|err| err.to_string()),
            Err("no weight named 'Knight'".to_string())
        );
        let names: Vec<&str> = EvalWeights::OPTIONS.iter().map(|o| o.name).collect();
        assert_eq!(names.len(), 30);
        for option in EvalWeights::OPTIONS {
            let default = option.default_value();
            assert!(
                (option.min..=option.max).contains(&default),
                "{}",
                option.name
            );
            assert_eq!(EvalWeights::DEFAULT.get(option.name), Some(default));
        }
    }
}
