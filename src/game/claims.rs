//! The engines' claims checked on every move of every game (`docs/guide/checks.md`): the PV
//! replayed by the rules ([`crate::rules::pv`], the checker `check-engine` uses too), `score
//! mate N` proven or refuted by [`Prover`], both sides claiming a mate with the same sign
//! (fastchess#1001), the ponder move, and a mate claimed after a proven loss.
//!
//! [`ClaimChecker::check`] runs after each legal `bestmove`, on the engine's final report for
//! the move (its merged `info`). Without a mate claim it costs a replay of the PV (a move check
//! per PV move); the prover runs only on `score mate N` within [`ClaimChecks::plies`]. What it
//! finds goes to the game's [`GameClaims`] (games.csv's `claims` column) and, once per engine
//! per game and kind, to a warning in words ([`ClaimChecker::finish`]).

use crate::protocol::Score;
use crate::records::claims::{ClaimKind, Finding, GameClaims, Proven, PvFault, sanitize};
use crate::rules::proof::{Prover, Verdict};
use crate::rules::{ByColor, Color, Move, Position, Rules, pv};
use std::fmt;

/// The default of `--check-claims`: mate claims of at most 5 plies (`mate 3`, `mate -2`) are
/// proven. Measured on the claims bt-search makes at depth 3 in 40 games per rule set (`cargo
/// bench --bench harness -- claims`, benches/README.md): 1.4 µs per claim on average under
/// capture-only rules (at most 12 µs), 13 µs under classic rules (99% under 51 µs, at most about
/// 1 ms), none left unknown at [`DEFAULT_CLAIM_NODES`].
pub const DEFAULT_CLAIM_PLIES: u32 = 5;

/// The prover's node budget per mate claim: past it the claim is "not checked".
pub const DEFAULT_CLAIM_NODES: u64 = 20_000;

/// The longest claim `--check-claims` may ask to prove, in plies.
pub const MAX_CLAIM_PLIES: u32 = 15;

/// How far mate claims are checked: `--check-claims PLIES` (0: none; PVs and ponder moves are
/// always checked) and the prover's node budget per claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimChecks {
    /// Mate claims that mean a result within at most this many plies are proven.
    pub plies: u32,
    /// Nodes the prover may examine per claim.
    pub nodes: u64,
}

impl Default for ClaimChecks {
    fn default() -> Self {
        ClaimChecks {
            plies: DEFAULT_CLAIM_PLIES,
            nodes: DEFAULT_CLAIM_NODES,
        }
    }
}

/// What one reply claimed, as the checker takes it.
#[derive(Clone, Copy, Debug)]
pub struct Reply<'a> {
    /// 1-based ply of the move, from the opening.
    pub ply: u32,
    /// The position the engine searched.
    pub position: &'a Position,
    /// The move it played (legal).
    pub bestmove: Move,
    /// Its last score.
    pub score: Option<Score>,
    /// Its last PV, as written.
    pub pv: &'a [String],
    /// Its ponder move, as written.
    pub ponder: Option<&'a str>,
}

/// The plies a `score mate N` speaks of: a win within `2N - 1`, a loss within `-2N`; `None`
/// for `mate 0` (no claim).
pub fn claim_plies(n: i32) -> Option<u32> {
    let n = i64::from(n);
    let plies = match n {
        0 => return None,
        1.. => 2 * n - 1,
        _ => -2 * n,
    };
    u32::try_from(plies).ok()
}

/// The checks of one game in progress.
pub struct ClaimChecker {
    checks: ClaimChecks,
    rules: Rules,
    /// Made at the first mate claim to check (its table is 128 KiB).
    prover: Option<Prover>,
    claims: GameClaims,
    /// The mate claimed on the previous ply, and by whom.
    last_mate: Option<(Color, i32)>,
    /// A proven loss each side claimed, since the last capture.
    lost: ByColor<Option<i32>>,
    /// The warnings in words, first per side and kind.
    warnings: Vec<(Color, ClaimKind, String)>,
}

impl ClaimChecker {
    /// No claim checked yet, under `rules`.
    pub fn new(checks: ClaimChecks, rules: Rules) -> ClaimChecker {
        ClaimChecker {
            checks,
            rules,
            prover: None,
            claims: GameClaims {
                rules,
                ..GameClaims::default()
            },
            last_mate: None,
            lost: ByColor::default(),
            warnings: Vec::new(),
        }
    }

    /// Checks `reply` and returns how many moves of its PV are legal and start with the
    /// `bestmove` (the part the records keep).
    pub fn check(&mut self, reply: &Reply<'_>) -> usize {
        let side = reply.position.side_to_move();
        let kept = self.check_pv(reply, side);
        if let Some(ponder) = reply.ponder {
            self.check_ponder(reply, side, ponder, kept);
        }
        let mate = match reply.score {
            Some(Score::Mate(n)) if n != 0 => Some(n),
            _ => None,
        };
        if let Some(n) = mate {
            self.check_mate(reply, side, n);
        }
        if reply.position.pawns(side.opponent()) & reply.bestmove.to.bit() != 0 {
            self.lost = ByColor::default();
        }
        self.last_mate = mate.map(|n| (side, n));
        kept
    }

    /// The game's claims and the warnings in words (side, text), one per engine and kind.
    pub fn finish(self) -> (GameClaims, Vec<(Color, String)>) {
        let warnings = self.warnings.into_iter().map(|(s, _, w)| (s, w)).collect();
        (self.claims, warnings)
    }

    /// Notes `finding` for `side` at the reply's ply, and a warning unless one of its kind was
    /// given for the side already.
    fn found(&mut self, reply: &Reply<'_>, side: Color, finding: Finding, extra: &str) {
        let kind = finding.kind();
        if !self
            .warnings
            .iter()
            .any(|(s, k, _)| *s == side && *k == kind)
        {
            let text = format!(
                "ply {}, position {}: {finding}{extra}",
                reply.ply, reply.position
            );
            self.warnings.push((side, kind, text));
        }
        self.claims.find(side, reply.ply, finding);
    }

    /// The PV: legal from the position, its first move the `bestmove`.
    fn check_pv(&mut self, reply: &Reply<'_>, side: Color) -> usize {
        if reply.pv.is_empty() {
            return 0;
        }
        self.claims.count(ClaimKind::Pv, side);
        let replay = pv::replay(reply.position, self.rules, reply.pv);
        let finding = match (&replay.bad, replay.legal.first()) {
            (_, Some(&first)) if first != reply.bestmove => Finding::Pv {
                number: 1,
                mv: sanitize(&reply.pv[0]),
                fault: PvFault::NotBest,
            },
            (None, _) => return replay.legal.len(),
            (Some(bad), _) => Finding::Pv {
                number: u32::try_from(bad.index + 1).unwrap_or(u32::MAX),
                mv: sanitize(&bad.text),
                fault: match &bad.why {
                    _ if bad.after_the_end() => PvFault::Over,
                    crate::rules::MoveError::Syntax(_) => PvFault::Syntax,
                    crate::rules::MoveError::Illegal(_) => PvFault::Illegal,
                },
            },
        };
        let kept = match finding {
            Finding::Pv {
                fault: PvFault::NotBest,
                ..
            } => 0,
            _ => replay.legal.len(),
        };
        let extra = format!(
            " (pv {}; kept: {})",
            reply.pv.join(" "),
            crate::records::plural(kept as u64, "move")
        );
        self.found(reply, side, finding, &extra);
        kept
    }

    /// The ponder move: legal after the `bestmove`, the PV's second move when the PV has one.
    fn check_ponder(&mut self, reply: &Reply<'_>, side: Color, ponder: &str, kept: usize) {
        if ponder == crate::protocol::NO_MOVE {
            return;
        }
        self.claims.count(ClaimKind::Ponder, side);
        let after = reply.position.play_unchecked(reply.bestmove);
        let legal = match after.parse_move(self.rules, ponder) {
            Ok(mv) if kept < 2 || reply.pv[1].parse::<Move>().is_ok_and(|second| second == mv) => {
                return;
            }
            Ok(_) => true,
            Err(_) => false,
        };
        let finding = Finding::Ponder {
            mv: sanitize(ponder),
            legal,
        };
        self.found(reply, side, finding, "");
    }

    /// `score mate n`: proven within `--check-claims`, then both sides claiming and a jump.
    fn check_mate(&mut self, reply: &Reply<'_>, side: Color, n: i32) {
        if let Some((by, before)) = self.last_mate
            && by != side
        {
            self.claims.count(ClaimKind::Both, side);
            if (before > 0) == (n > 0) {
                self.found(reply, side, Finding::Both { before, now: n }, "");
            }
        }
        if n > 0
            && let Some(lost) = self.lost[side]
        {
            self.claims.count(ClaimKind::Jump, side);
            self.found(reply, side, Finding::Jump { lost, now: n }, "");
        }
        let Some(plies) = claim_plies(n).filter(|&p| p <= self.checks.plies) else {
            self.claims.unchecked[side] += 1;
            return;
        };
        let (rules, nodes) = (self.rules, self.checks.nodes);
        let prover = self.prover.get_or_insert_with(|| Prover::new(rules, nodes));
        let verdict = prover.prove(reply.position, plies);
        let line = |verdict: &Verdict| -> Vec<String> {
            verdict
                .line()
                .map(|l| l.line.iter().map(Move::to_string).collect())
                .unwrap_or_default()
        };
        let proven = match (&verdict, n > 0) {
            (Verdict::Unknown, _) => {
                self.claims.unchecked[side] += 1;
                return;
            }
            (Verdict::Win(_), true) => None,
            (Verdict::Loss(_), false) => {
                self.lost[side] = Some(n);
                None
            }
            (Verdict::Win(l), false) => Some(Proven::Win(l.plies)),
            (Verdict::Loss(l), true) => Some(Proven::Loss(l.plies)),
            (Verdict::Open, _) => Some(Proven::Open(plies)),
        };
        self.claims.count(ClaimKind::Mate, side);
        if let Some(proven) = proven {
            let finding = Finding::Mate {
                claim: n,
                proven,
                line: line(&verdict),
            };
            let extra = format!(
                "; reproduce: {}",
                Reproduce {
                    position: reply.position,
                    rules: self.rules,
                    plies,
                }
            );
            self.found(reply, side, finding, &extra);
        }
    }
}

/// The command that proves a position again: `bt-arena prove --fen "FEN" --plies N
/// [--rules classic]`.
pub struct Reproduce<'a> {
    /// The position.
    pub position: &'a Position,
    /// The rule set.
    pub rules: Rules,
    /// The plies of the claim.
    pub plies: u32,
}

impl fmt::Display for Reproduce<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bt-arena prove --fen '{}' --plies {}",
            self.position, self.plies
        )?;
        if self.rules != Rules::default() {
            write!(f, " --rules {}", self.rules)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pv(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    fn reply<'a>(
        position: &'a Position,
        bestmove: &str,
        score: Option<Score>,
        pv: &'a [String],
        ponder: Option<&'a str>,
    ) -> Reply<'a> {
        Reply {
            ply: 7,
            position,
            bestmove: bestmove.parse().unwrap(),
            score,
            pv,
            ponder,
        }
    }

    #[test]
    fn an_illegal_pv_keeps_its_legal_prefix_and_warns_once() {
        let start = Position::startpos();
        let mut checker = ClaimChecker::new(ClaimChecks::default(), Rules::CaptureOnly);
        let bad = pv(&["a2a3", "h7h6", "a3a3", "b7b6"]);
        assert_eq!(checker.check(&reply(&start, "a2a3", None, &bad, None)), 2);
        let other = pv(&["b2b3"]);
        assert_eq!(checker.check(&reply(&start, "a2a3", None, &other, None)), 0);
        let good = pv(&["a2a3", "h7h6"]);
        assert_eq!(checker.check(&reply(&start, "a2a3", None, &good, None)), 2);
        let (claims, warnings) = checker.finish();
        assert_eq!(claims.checked(ClaimKind::Pv, Color::White), 3);
        assert_eq!(
            claims.encode(),
            "pv=3/0 w7:pv:3:a3a3:illegal w7:pv:1:b2b3:not-best"
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            warnings[0].1,
            "ply 7, position pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w: PV move 3 'a3a3' is \
             illegal (pv a2a3 h7h6 a3a3 b7b6; kept: 2 moves)"
        );
    }

    #[test]
    fn mate_claims_are_proven_or_refuted() {
        // White to move wins at once (a7a8); Black's pawn is far.
        let won: Position = "8/P7/8/8/8/8/7p/8 w".parse().unwrap();
        let mut checker = ClaimChecker::new(ClaimChecks::default(), Rules::CaptureOnly);
        checker.check(&reply(&won, "a7a8", Some(Score::Mate(1)), &[], None));
        checker.check(&reply(&won, "a7a8", Some(Score::Mate(-1)), &[], None));
        checker.check(&reply(&won, "a7a8", Some(Score::Mate(9)), &[], None));
        let (claims, _) = checker.finish();
        assert_eq!(
            claims.encode(),
            "mate=2/0 mate-unchecked=1/0 w7:mate:-1:win1:a7a8"
        );
    }

    #[test]
    fn an_illegal_ponder_move_is_found() {
        let start = Position::startpos();
        let mut checker = ClaimChecker::new(ClaimChecks::default(), Rules::CaptureOnly);
        let line = pv(&["a2a3", "h7h6"]);
        checker.check(&reply(&start, "a2a3", None, &line, Some("h7h6")));
        checker.check(&reply(&start, "a2a3", None, &line, Some("a2a3")));
        checker.check(&reply(&start, "a2a3", None, &line, Some("g7g6")));
        let (claims, warnings) = checker.finish();
        assert_eq!(
            claims.encode(),
            "pv=3/0 ponder=3/0 w7:ponder:a2a3:illegal w7:ponder:g7g6:not-pv"
        );
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn both_sides_claiming_and_a_jump_after_a_proven_loss_are_warnings() {
        // White (a3) cannot stop Black's b2 pawn: lost within 2 plies.
        let lost: Position = "8/8/8/8/8/P7/1p6/8 w".parse().unwrap();
        let black: Position = "8/8/8/8/P7/8/1p6/8 b".parse().unwrap();
        let mut checker = ClaimChecker::new(ClaimChecks::default(), Rules::CaptureOnly);
        checker.check(&reply(&lost, "a3a4", Some(Score::Mate(-1)), &[], None));
        // Black claims its win: the same result, no finding.
        checker.check(&reply(&black, "b2b1", Some(Score::Mate(1)), &[], None));
        // White now claims its own win after Black's: both claim, and a jump.
        checker.check(&reply(&lost, "a3a4", Some(Score::Mate(2)), &[], None));
        let (claims, warnings) = checker.finish();
        assert_eq!(
            claims.encode(),
            "mate=2/1 both=1/1 jump=1/0 w7:both:1:2 w7:jump:-1:2 w7:mate:2:loss2:a3a4-b2b1"
        );
        assert_eq!(warnings.len(), 3, "{warnings:?}");
    }
}
