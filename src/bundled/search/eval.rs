//! Static evaluation in centipawns from the side to move's point of view.
//!
//! The full evaluation ([`EvalKind::Full`]) adds, for each side and subtracts the other's:
//!
//! * material: [`PAWN`] a pawn;
//! * advancement: a bonus by rank that grows towards the goal, and a bonus for pawns still on
//!   the home rank (they guard the squares in front of it);
//! * safety: a penalty for pawns the enemy can take without a recapture (attacked and not
//!   defended, or attacked twice and defended once), a bonus for advanced pawns that are safe;
//! * passed pawns: no enemy pawn ahead on the same or a neighbouring file;
//! * unstoppable pawns: no enemy pawn in the cone ahead (`|file distance| <= rank distance`),
//!   which no enemy pawn can ever block or capture (each enemy move closes the file distance
//!   by at most one while the rank distance shrinks by one). When the side to move has an
//!   unstoppable pawn no farther from its goal than every enemy pawn, or the opponent has one
//!   strictly nearer than every pawn of the side to move, the race is decided and scores about
//!   [`RACE`] (still an evaluation, never a proven win);
//! * a small bonus for the side to move (tempo).
//!
//! Pawns one step from the goal are the search's business: it detects a win at once and a
//! threat to parry before it evaluates (see the `tree` module).
//!
//! [`EvalKind::Material`] counts pawns only: a deliberately weak evaluation to pit against.
//! Both are symmetric: the score of a position is minus the score of its colour-flipped twin.
//!
//! The full evaluation's weights are [`EvalWeights`] (engine options of `bt-search`, see the
//! `weights` module); [`EvalWeights::DEFAULT`] holds the values it was written with.

use super::score::WIN;
use super::weights::{EVAL_LIMIT, EvalWeights};
use crate::rules::{Black, Color, Position, Rules, Side, Step, White};

/// Which evaluation the search uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EvalKind {
    /// Material, advancement, safety, passed and unstoppable pawns, tempo.
    #[default]
    Full,
    /// Material only.
    Material,
}

crate::named_enum!(EvalKind, "evaluation", [Full => "full", Material => "material"]);

/// The value of a pawn in centipawns.
pub const PAWN: i32 = 100;

/// About the value of a decided pawn race, in centipawns (minus 20 a move the race takes).
pub const RACE: i32 = 2_500;

/// For a pawn moving up from each square: the squares `dy >= 1` ranks ahead and at most `dy`
/// files aside. No enemy pawn outside it can ever block or take the pawn.
const CONE: [u64; 64] = ahead_masks(true);
/// For a pawn moving up from each square: the squares ahead on its own and neighbouring files.
const SPAN: [u64; 64] = ahead_masks(false);

/// The masks of [`CONE`] (`widening`) or [`SPAN`].
const fn ahead_masks(widening: bool) -> [u64; 64] {
    let mut masks = [0; 64];
    let mut square = 0;
    while square < 64 {
        let (file, rank) = ((square % 8) as i32, (square / 8) as i32);
        let mut target: usize = 0;
        while target < 64 {
            let (f, r) = ((target % 8) as i32, (target / 8) as i32);
            let (dx, dy) = ((f - file).abs(), r - rank);
            let reach = if widening { dy } else { 1 };
            if dy >= 1 && dx <= reach {
                masks[square] |= 1 << target;
            }
            target += 1;
        }
        square += 1;
    }
    masks
}

/// The evaluation of `position` under `rules` in centipawns from the side to move's point of
/// view, with the default weights. A finished position scores `WIN` (the side to move has won)
/// or `-WIN` (lost), see [`super::score::WIN`].
pub fn evaluate(position: &Position, rules: Rules, kind: EvalKind) -> i32 {
    evaluate_with(position, rules, kind, &EvalWeights::DEFAULT)
}

/// [`evaluate`] with the full evaluation's weights `weights`. An unfinished position scores at
/// most [`EVAL_LIMIT`] in absolute value, whatever the weights.
pub fn evaluate_with(
    position: &Position,
    rules: Rules,
    kind: EvalKind,
    weights: &EvalWeights,
) -> i32 {
    match position.outcome(rules) {
        Some(outcome) if outcome.winner == position.side_to_move() => WIN,
        Some(_) => -WIN,
        None => static_eval(position, kind, weights),
    }
}

/// The evaluation of a position whose game is not over: the rule set does not enter the terms.
/// It is clamped to [`EVAL_LIMIT`] (at the default weights no position comes near it).
pub(crate) fn static_eval(position: &Position, kind: EvalKind, weights: &EvalWeights) -> i32 {
    let us = position.side_to_move();
    let (own, enemy) = (position.pawns(us), position.pawns(us.opponent()));
    // A board of fewer ranks than 8 stands on the low ranks of the bitboard: lifting it by
    // `lift` bits puts its top rank on the 8th, so that on every board the side moving up
    // starts on rank `8 - ranks` and reaches its goal on rank 8, and the per-rank weights count
    // the ranks left to the goal as on 8x8 (0 on 8x8: the same evaluation).
    let lift = 8 * (8 - u32::from(position.board().ranks()));
    // Orient the board so the side to move moves up (towards rank 8).
    let (own, enemy) = match us {
        Color::White => (own << lift, enemy << lift),
        Color::Black => (own.swap_bytes(), enemy.swap_bytes()),
    };
    match kind {
        EvalKind::Material => PAWN * (own.count_ones() as i32 - enemy.count_ones() as i32),
        EvalKind::Full => full(own, enemy, lift, weights).clamp(-EVAL_LIMIT, EVAL_LIMIT),
    }
}

/// The full evaluation with the side to move's pawns `own` moving up and `enemy` moving down,
/// both lifted by `lift` bits (see [`static_eval`]).
fn full(own: u64, enemy: u64, lift: u32, weights: &EvalWeights) -> i32 {
    // The other side's view: mirrored rank-wise, then lifted again.
    let flip = |pawns: u64| pawns.swap_bytes() << lift;
    let us = side_terms(own, enemy, lift, weights);
    let them = side_terms(flip(enemy), flip(own), lift, weights);
    us.score - them.score + weights.tempo + race(&us, &them, weights)
}

/// What [`side_terms`] finds for one side.
struct SideTerms {
    /// The sum of the side's terms in centipawns.
    score: i32,
    /// Moves the nearest pawn needs to reach the goal (a lower bound on when the side can win).
    nearest: u32,
    /// Moves the nearest unstoppable pawn needs; `NO_PAWN` when there is none.
    unstoppable: u32,
}

const NO_PAWN: u32 = u32::MAX;

/// The terms of the side whose pawns `own` move up, against `enemy` moving down, on a board
/// lifted by `lift` bits: its home rank is rank `lift / 8` (0-based), its goal rank 7.
fn side_terms(own: u64, enemy: u64, lift: u32, weights: &EvalWeights) -> SideTerms {
    let attacks = |step| White::advance(step, own);
    let enemy_attacks = |step| Black::advance(step, enemy);
    let (defended_once, defended_twice) = (
        attacks(Step::West) | attacks(Step::East),
        attacks(Step::West) & attacks(Step::East),
    );
    let (attacked_once, attacked_twice) = (
        enemy_attacks(Step::West) | enemy_attacks(Step::East),
        enemy_attacks(Step::West) & enemy_attacks(Step::East),
    );
    let hanging = own & ((attacked_once & !defended_once) | (attacked_twice & !defended_twice));
    let safe = own & !hanging;

    let mut score = weights.pawn * own.count_ones() as i32
        + weights.home_guard * (own & (0xFF << lift)).count_ones() as i32
        - weights.hanging * hanging.count_ones() as i32;
    let home = (lift / 8) as usize;
    for rank in home + 1..7 {
        let row = 0xFFu64 << (8 * rank);
        score += weights.advance[rank] * (own & row).count_ones() as i32
            + weights.safe_advance[rank] * (safe & row).count_ones() as i32;
    }

    let mut unstoppable = NO_PAWN;
    let mut pawns = own;
    while pawns != 0 {
        let square = pawns.trailing_zeros() as usize;
        pawns &= pawns - 1;
        let rank = square / 8;
        if SPAN[square] & enemy == 0 {
            score += weights.passed[rank];
            if CONE[square] & enemy == 0 {
                score += weights.unstoppable[rank];
                unstoppable = unstoppable.min(7 - rank as u32);
            }
        }
    }
    let nearest = if own == 0 {
        NO_PAWN
    } else {
        7 - (63 - own.leading_zeros()) / 8
    };
    SideTerms {
        score,
        nearest,
        unstoppable,
    }
}

/// The race bonus for the side to move (`us`) against `them`: it moves first, so it wins the
/// race when its unstoppable pawn needs no more moves than any enemy pawn, and loses it when
/// an enemy unstoppable pawn needs fewer moves than every one of its pawns.
fn race(us: &SideTerms, them: &SideTerms, weights: &EvalWeights) -> i32 {
    if us.unstoppable != NO_PAWN && us.unstoppable <= them.nearest {
        weights.race - weights.race_move * us.unstoppable as i32
    } else if them.unstoppable != NO_PAWN && them.unstoppable < us.nearest {
        -(weights.race - weights.race_move * them.unstoppable as i32)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(text: &str) -> Position {
        text.parse().expect("test position")
    }

    /// The position with colours swapped and the board mirrored rank-wise.
    fn flipped(position: &Position) -> Position {
        let (white, black) = (position.pawns(Color::White), position.pawns(Color::Black));
        Position::new(
            black.swap_bytes(),
            white.swap_bytes(),
            position.side_to_move().opponent(),
        )
        .expect("a flipped position is valid")
    }

    #[test]
    fn the_start_is_worth_the_tempo_and_material_counts_pawns() {
        let start = Position::startpos();
        assert_eq!(
            evaluate(&start, Rules::CaptureOnly, EvalKind::Full),
            EvalWeights::DEFAULT.tempo
        );
        assert_eq!(evaluate(&start, Rules::CaptureOnly, EvalKind::Material), 0);
        let up = position("pppppppp/ppppppp1/8/8/8/8/PPPPPPPP/PPPPPPPP b");
        assert_eq!(evaluate(&up, Rules::Classic, EvalKind::Material), -PAWN);
    }

    #[test]
    fn the_evaluation_is_colour_symmetric() {
        for text in [
            "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w",
            "1ppp1ppp/p2p4/4p3/1P6/3P1p2/2P5/P3PPPP/PPP2P1P b",
            "8/2p5/8/8/3P4/8/5ppp/8 w",
        ] {
            let p = position(text);
            for kind in EvalKind::ALL {
                assert_eq!(
                    static_eval(&p, kind, &EvalWeights::DEFAULT),
                    static_eval(&flipped(&p), kind, &EvalWeights::DEFAULT),
                    "{text} {kind}"
                );
            }
        }
    }

    #[test]
    fn every_board_evaluates_colour_symmetrically_with_its_own_goal() {
        for board in crate::rules::Board::all() {
            let lift = 8 * (8 - u32::from(board.ranks()));
            let start = Position::start(board);
            assert_eq!(
                static_eval(&start, EvalKind::Full, &EvalWeights::DEFAULT),
                EvalWeights::DEFAULT.tempo,
                "{board}"
            );
            // A White pawn one rank short of the goal, a Black one at home: White's race.
            let top = u32::from(board.ranks()) - 1;
            let white = 1u64 << (8 * (top - 1));
            let black = 1u64 << (8 * top + u32::from(board.files()) - 1);
            let racing = Position::on_board(board, white, black, Color::Black).unwrap();
            let mirrored = Position::on_board(
                board,
                black.swap_bytes() >> lift,
                white.swap_bytes() >> lift,
                Color::White,
            )
            .unwrap();
            let eval = |p: &Position| static_eval(p, EvalKind::Full, &EvalWeights::DEFAULT);
            assert_eq!(eval(&racing), eval(&mirrored), "{board}");
            assert!(eval(&racing) < -RACE / 2, "{board}: {}", eval(&racing));
        }
    }

    #[test]
    fn finished_positions_score_a_win_or_a_loss() {
        let lost = position("8/8/8/8/8/8/8/p7 w"); // Black on rank 1, no White pawns.
        assert_eq!(evaluate(&lost, Rules::CaptureOnly, EvalKind::Full), -WIN);
        let blocked = position("8/8/8/8/8/p7/P7/8 w"); // White cannot move under capture-only.
        assert_eq!(evaluate(&blocked, Rules::CaptureOnly, EvalKind::Full), -WIN);
        assert!(evaluate(&blocked, Rules::Classic, EvalKind::Full).abs() < WIN);
    }

    #[test]
    fn advanced_safe_and_unstoppable_pawns_are_worth_more() {
        let eval = |text| static_eval(&position(text), EvalKind::Full, &EvalWeights::DEFAULT);
        // The same pawns, one White pawn further up.
        assert!(eval("pppp4/8/8/8/4P3/8/8/PPP5 w") > eval("pppp4/8/8/8/8/4P3/8/PPP5 w"));
        // A pawn defended by another is worth more than one hanging.
        assert!(eval("8/8/3p4/4P3/3P4/8/8/8 w") > eval("8/8/3p4/4P3/2P5/8/8/8 w"));
        // An unstoppable White pawn wins the race against a slower Black pawn.
        let race = eval("8/8/8/P7/8/8/7p/8 w");
        assert!(race < -RACE / 2, "{race}");
        let ahead = eval("8/8/P7/8/8/7p/8/8 w");
        assert!(ahead > RACE / 2, "{ahead}");
    }
}
