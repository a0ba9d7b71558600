//! The decision code of a selection: which candidates still play, which one is chosen, and
//! whether it beats the base. It reads nothing and writes nothing: the run's schedule, its
//! report and the simulation (`select::simulate`) all feed it the same rounds, so a run, its
//! report rebuilt from the run directory and a simulated selection decide alike.
//!
//! **Rounds.** In round `r` every candidate still in plays one game pair against the base,
//! from the round's opening; after the chosen one is known, it plays alone until its test
//! against the base decides. The procedure decides only once a round is complete
//! ([`Procedure::round`]), never on whichever game finished first.
//!
//! **Elimination** (Paulson's sequential elimination, 1964, with the triangular region of
//! Fabian, 1974, as the fully sequential procedure of Kim and Nelson, 2001, uses it). With
//! `P_ir` the points (0, 1 or 2) candidate `i` took from its pair of round `r`, `W_il(r) =
//! Σ_{t≤r} (P_lt − P_it)` the lead of `l` over `i`, and `S²_il` the sample variance of
//! `P_lt − P_it` over those rounds, candidate `i` is eliminated by `l` after round
//! `r ≥` [`FIRST_STAGE`] when
//!
//! ```text
//! W_il(r) > max(0, a_il − λ_il r),   a_il = h² S²_il / (2 δ_il),   λ_il = δ_il / 2,
//! h² = 2 ln((k − 1) / (2 (1 − P*)))
//! ```
//!
//! `k` the number of candidates, `P*` the confidence, and `δ_il` the indifference zone in pair
//! points: twice the score a candidate `δ` Elo better gains at the higher of the two
//! candidates' current scores (`2 (L(e) − L(e − δ))`, `L` the logistic score). Where the
//! region has closed (`a_il − λ_il r ≤ 0`), a tie goes to the candidate given first, so equal
//! candidates end it: after at most `2 a / δ` rounds, `a` at the largest variance (4 pair
//! points²).
//!
//! **The guarantee.** For a walk of normal steps with the variance known, Fabian's bound gives
//! `P(the best is eliminated by l) ≤ (1 − P*) / (k − 1)` whenever the best is at least `δ`
//! better than `l`, hence `P(the best is chosen) ≥ P*` whenever it is `δ` better than the
//! second (Kim and Nelson 2001, theorem 1, as the first-stage size grows). Game pairs are not
//! normal and their variance is estimated as the run goes: the bound holds as `δ` shrinks
//! (the functional central limit theorem), as fishtest's SPRT's error rates do, and is
//! measured by simulation (docs/guide/select.md).
//!
//! **The base.** Each candidate has its own SPRT against the base, `elo0 = 0`, `elo1 = δ`,
//! `alpha = (1 − P*) / k` (one share of the error for each candidate, so that whichever is
//! chosen, a false "beats the base" has probability at most `1 − P*`), `beta = 1 − P*`,
//! followed pair by pair from round 1 (its first crossing stands). The chosen one plays on
//! alone until its test decides. With `budget` games, no round starts that would go past it.

use crate::stats::{Pentanomial, Sprt, SprtDecision, elo_from_score, logistic_score};

/// Rounds played by every candidate before the first elimination: the variances are then
/// estimated from 16 pairs at least.
pub const FIRST_STAGE: u64 = 16;

/// The settings a selection is decided by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    /// Candidates, at least 2.
    pub candidates: usize,
    /// The indifference zone, logistic Elo, `> 0`.
    pub indifference: f64,
    /// The probability of choosing the best, in `(0, 1)`.
    pub confidence: f64,
    /// At most this many games, when given.
    pub budget: Option<u64>,
}

impl Rule {
    /// `1 − P*`, the error allowed, without the noise of the subtraction (`1 − 0.9` is
    /// `0.1`, not `0.09999999999999998`).
    pub fn error(&self) -> f64 {
        ((1.0 - self.confidence) * 1e12).round() / 1e12
    }

    /// `h²` of the triangular region: `2 ln((k − 1) / (2 (1 − P*)))`, at least 0 (a
    /// confidence so low that choosing the leader after the first stage meets it).
    pub fn h2(&self) -> f64 {
        let k = self.candidates.max(2) as f64;
        (2.0 * ((k - 1.0) / (2.0 * self.error())).ln()).max(0.0)
    }

    /// Each candidate's SPRT against the base: `elo0 = 0`, `elo1 = δ`, `alpha = (1 − P*) / k`,
    /// `beta = 1 − P*`.
    ///
    /// # Errors
    /// The SPRT's refusal of settings that make none (`δ` beyond its limit).
    pub fn base_test(&self) -> Result<Sprt, crate::stats::SprtSpecError> {
        let error = self.error();
        Sprt::new(
            0.0,
            self.indifference,
            error / self.candidates.max(1) as f64,
            error,
        )
    }

    /// The games of one round with `players` candidates playing.
    pub fn round_games(players: usize) -> u64 {
        2 * players as u64
    }
}

/// Why a candidate left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elimination {
    /// After this round.
    pub round: u64,
    /// By this candidate (index).
    pub by: usize,
    /// Its lead, pair points.
    pub lead: i64,
    /// The bound the lead passed, pair points (0 once the region has closed).
    pub bound: f64,
}

/// A candidate's test against the base, decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BaseVerdict {
    /// H1 (it beats the base) or H0 (it does not).
    pub decision: SprtDecision,
    /// After this many pairs.
    pub pairs: u64,
    /// Its pairs then.
    pub counts: Pentanomial,
    /// The LLR then.
    pub llr: f64,
}

/// How a selection ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ending {
    /// The chosen one is known and its test against the base decided.
    Decided {
        /// The chosen candidate.
        chosen: usize,
        /// Whether it beats the base (its test accepted H1).
        beats_base: bool,
    },
    /// The next round would pass the budget.
    Budget,
}

/// One candidate's standing.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Its pairs against the base.
    pub counts: Pentanomial,
    /// Its points, pair by pair (0, 1, 2), in round order.
    pub points: Vec<u8>,
    /// Sum of `points`.
    pub total: i64,
    /// When and by whom it was eliminated.
    pub eliminated: Option<Elimination>,
}

impl Standing {
    /// Its mean score per game against the base (1/2 before any pair).
    pub fn score(&self) -> f64 {
        match self.points.len() {
            0 => 0.5,
            n => self.total as f64 / (2 * n) as f64,
        }
    }
}

/// A selection in progress: the state after the rounds fed so far.
#[derive(Clone, Debug)]
pub struct Procedure {
    rule: Rule,
    sprt: Sprt,
    h2: f64,
    standings: Vec<Standing>,
    /// `Σ_r P_ir P_lr` over the rounds both played, row-major `k × k`.
    cross: Vec<u64>,
    /// Rounds complete.
    rounds: u64,
    /// Games of those rounds.
    games: u64,
    /// The chosen one and the round it was known after.
    chosen: Option<(usize, u64)>,
    /// The chosen one's test, once decided.
    verdict: Option<BaseVerdict>,
    ending: Option<(Ending, u64)>,
}

/// What a round changed, in the order it happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A candidate was eliminated.
    Eliminated {
        /// The candidate.
        candidate: usize,
        /// How.
        how: Elimination,
    },
    /// The last one in is chosen.
    Chosen {
        /// The candidate.
        candidate: usize,
        /// After this round.
        round: u64,
    },
    /// The chosen one's test against the base decided.
    BaseDecided {
        /// The candidate.
        candidate: usize,
        /// The verdict.
        verdict: BaseVerdict,
    },
    /// The selection ended.
    Ended(Ending),
}

/// Why a round cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoundError {
    /// Points for other candidates than those that play the round.
    NotThePlayers {
        /// Who plays it.
        players: Vec<usize>,
        /// Who was given.
        given: Vec<usize>,
    },
    /// Pair points above 2.
    BadPoints(u8),
    /// The selection has ended.
    Ended,
}

impl std::fmt::Display for RoundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoundError::NotThePlayers { players, given } => write!(
                f,
                "a round of candidates {given:?}, but candidates {players:?} play it"
            ),
            RoundError::BadPoints(points) => write!(f, "{points} points from one game pair"),
            RoundError::Ended => f.write_str("a round after the selection ended"),
        }
    }
}

impl std::error::Error for RoundError {}

impl Procedure {
    /// A selection by `rule`, before its first round.
    ///
    /// # Errors
    /// The base test's refusal (an indifference beyond the SPRT's limit).
    pub fn new(rule: Rule) -> Result<Procedure, crate::stats::SprtSpecError> {
        let k = rule.candidates;
        let standing = Standing {
            counts: Pentanomial::default(),
            points: Vec::new(),
            total: 0,
            eliminated: None,
        };
        Ok(Procedure {
            sprt: rule.base_test()?,
            h2: rule.h2(),
            rule,
            standings: vec![standing; k],
            cross: vec![0; k * k],
            rounds: 0,
            games: 0,
            chosen: None,
            verdict: None,
            ending: None,
        })
    }

    /// The rule.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// The test each candidate has against the base.
    pub fn base_test(&self) -> &Sprt {
        &self.sprt
    }

    /// Rounds complete.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Games of the rounds complete.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Every candidate's standing, by index.
    pub fn standings(&self) -> &[Standing] {
        &self.standings
    }

    /// The chosen one and the round after which it was known.
    pub fn chosen(&self) -> Option<(usize, u64)> {
        self.chosen
    }

    /// The chosen one's test against the base, once decided.
    pub fn verdict(&self) -> Option<&BaseVerdict> {
        self.verdict.as_ref()
    }

    /// How it ended, and after which round.
    pub fn ending(&self) -> Option<(Ending, u64)> {
        self.ending
    }

    /// The candidates still in, by index.
    pub fn remaining(&self) -> Vec<usize> {
        (0..self.standings.len())
            .filter(|&i| self.standings[i].eliminated.is_none())
            .collect()
    }

    /// Who plays the next round: the candidates still in (the chosen one alone once known);
    /// none once the selection ended.
    pub fn players(&self) -> Vec<usize> {
        match self.ending {
            Some(_) => Vec::new(),
            None => self.remaining(),
        }
    }

    /// The leader: the candidate in with the most points (the first given among equals).
    pub fn leader(&self) -> usize {
        self.remaining()
            .into_iter()
            .max_by(|&a, &b| {
                self.standings[a]
                    .total
                    .cmp(&self.standings[b].total)
                    .then(b.cmp(&a))
            })
            .unwrap_or(0)
    }

    /// Takes the next round: `points[j]` the points candidate `players()[j]` took from its
    /// pair. Returns what it changed.
    ///
    /// # Errors
    /// [`RoundError`]: points for other candidates than those playing, points above 2, a
    /// round after the end.
    pub fn round(&mut self, players: &[usize], points: &[u8]) -> Result<Vec<Event>, RoundError> {
        if self.ending.is_some() {
            return Err(RoundError::Ended);
        }
        let expected = self.players();
        if players != expected.as_slice() || points.len() != players.len() {
            return Err(RoundError::NotThePlayers {
                players: expected,
                given: players.to_vec(),
            });
        }
        if let Some(&bad) = points.iter().find(|&&p| p > 2) {
            return Err(RoundError::BadPoints(bad));
        }
        let k = self.standings.len();
        for (a, (&i, &p)) in players.iter().zip(points).enumerate() {
            let standing = &mut self.standings[i];
            standing.points.push(p);
            standing.total += i64::from(p);
            standing.counts.add_pair(p >= 1, p == 2);
            for (&l, &q) in players[a..].iter().zip(&points[a..]) {
                self.cross[i * k + l] += u64::from(p) * u64::from(q);
            }
        }
        self.rounds += 1;
        self.games += Rule::round_games(players.len());
        let mut events = Vec::new();
        if self.chosen.is_none() {
            self.screen(&mut events);
        }
        if let Some((chosen, _)) = self.chosen {
            self.follow_base_test(chosen, &mut events);
        }
        self.check_budget(&mut events);
        Ok(events)
    }

    /// Eliminates the candidates some other candidate in leads by more than the bound, all
    /// judged against those in before the round (Kim and Nelson's screening).
    fn screen(&mut self, events: &mut Vec<Event>) {
        let remaining = self.remaining();
        if remaining.len() > 1 && self.rounds >= FIRST_STAGE {
            let mut out = Vec::new();
            for &i in &remaining {
                if let Some(how) = remaining
                    .iter()
                    .filter(|&&l| l != i)
                    .find_map(|&l| self.beaten(i, l))
                {
                    out.push((i, how));
                }
            }
            for (candidate, how) in out {
                self.standings[candidate].eliminated = Some(how);
                events.push(Event::Eliminated { candidate, how });
            }
        }
        if let [last] = self.remaining()[..] {
            self.chosen = Some((last, self.rounds));
            events.push(Event::Chosen {
                candidate: last,
                round: self.rounds,
            });
        }
    }

    /// Whether `l` eliminates `i` after the rounds so far, and how.
    fn beaten(&self, i: usize, l: usize) -> Option<Elimination> {
        let (si, sl) = (&self.standings[i], &self.standings[l]);
        let lead = sl.total - si.total;
        if lead < 0 {
            return None;
        }
        let bound = self.bound(i, l);
        let wins = lead as f64 > bound || (lead == 0 && bound == 0.0 && l < i);
        wins.then_some(Elimination {
            round: self.rounds,
            by: l,
            lead,
            bound,
        })
    }

    /// The bound `max(0, a_il − λ_il r)` of the pair `i`, `l` after the rounds so far, pair
    /// points.
    pub fn bound(&self, i: usize, l: usize) -> f64 {
        let r = self.rounds as f64;
        let delta = self.zone(i, l);
        let a = self.h2 * self.variance(i, l) / (2.0 * delta);
        (a - delta / 2.0 * r).max(0.0)
    }

    /// The indifference zone of the pair `i`, `l` in pair points: `2 (L(e) − L(e − δ))` at
    /// the Elo `e` of the higher of their scores.
    pub fn zone(&self, i: usize, l: usize) -> f64 {
        let score = self.standings[i].score().max(self.standings[l].score());
        let elo = elo_from_score(score);
        2.0 * (logistic_score(elo) - logistic_score(elo - self.rule.indifference))
    }

    /// The sample variance of `P_lr − P_ir` over the rounds so far, pair points² (0 before
    /// two rounds).
    pub fn variance(&self, i: usize, l: usize) -> f64 {
        let n = self.rounds;
        if n < 2 {
            return 0.0;
        }
        let k = self.standings.len();
        let (a, b) = (i.min(l), i.max(l));
        let squares = |x: usize| self.cross[x * k + x] as f64;
        let sum_d2 = squares(i) + squares(l) - 2.0 * self.cross[a * k + b] as f64;
        let sum_d = (self.standings[l].total - self.standings[i].total) as f64;
        let n = n as f64;
        ((sum_d2 - sum_d * sum_d / n) / (n - 1.0)).max(0.0)
    }

    /// Follows the chosen one's test against the base: when it is chosen, its pairs are
    /// replayed from round 1 to find the test's first crossing; after that, pair by pair.
    fn follow_base_test(&mut self, chosen: usize, events: &mut Vec<Event>) {
        if self.verdict.is_none() {
            let standing = &self.standings[chosen];
            let verdict = match self.chosen {
                Some((_, round)) if round == self.rounds => {
                    first_crossing(&self.sprt, &standing.points)
                }
                _ => decided(&self.sprt, standing.counts),
            };
            if let Some(verdict) = verdict {
                self.verdict = Some(verdict);
                events.push(Event::BaseDecided {
                    candidate: chosen,
                    verdict,
                });
            }
        }
        if self.verdict.is_some() {
            let beats_base = self.beats_base();
            self.end(Ending::Decided { chosen, beats_base }, events);
        }
    }

    fn beats_base(&self) -> bool {
        self.verdict
            .is_some_and(|v| v.decision == SprtDecision::AcceptH1)
    }

    /// Ends the selection once the next round would pass the budget.
    fn check_budget(&mut self, events: &mut Vec<Event>) {
        if self.ending.is_some() {
            return;
        }
        if let Some(budget) = self.rule.budget
            && self.games + Rule::round_games(self.players().len()) > budget
        {
            self.end(Ending::Budget, events);
        }
    }

    fn end(&mut self, ending: Ending, events: &mut Vec<Event>) {
        self.ending = Some((ending, self.rounds));
        events.push(Event::Ended(ending));
    }
}

/// The verdict of `sprt` on `counts`, when it has one.
fn decided(sprt: &Sprt, counts: Pentanomial) -> Option<BaseVerdict> {
    let llr = sprt.llr_pentanomial(&counts);
    let decision = sprt.decision(llr);
    (decision != SprtDecision::Continue).then_some(BaseVerdict {
        decision,
        pairs: counts.pairs(),
        counts,
        llr,
    })
}

/// The first crossing of `sprt` over the pairs worth `points`, in order.
pub fn first_crossing(sprt: &Sprt, points: &[u8]) -> Option<BaseVerdict> {
    let mut counts = Pentanomial::default();
    points.iter().find_map(|&p| {
        counts.add_pair(p >= 1, p == 2);
        decided(sprt, counts)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(candidates: usize, budget: Option<u64>) -> Rule {
        Rule {
            candidates,
            indifference: 50.0,
            confidence: 0.9,
            budget,
        }
    }

    /// Feeds `rounds` rounds, candidate `c`'s points in round `r` being `points(c, r)`, and
    /// returns every event with its round.
    fn play(
        procedure: &mut Procedure,
        rounds: u64,
        points: impl Fn(usize, u64) -> u8,
    ) -> Vec<(u64, Event)> {
        let mut events = Vec::new();
        for r in 1..=rounds {
            let players = procedure.players();
            if players.is_empty() {
                break;
            }
            let taken: Vec<u8> = players.iter().map(|&c| points(c, r)).collect();
            let round = procedure.round(&players, &taken).unwrap();
            events.extend(round.into_iter().map(|e| (r, e)));
        }
        events
    }

    #[test]
    fn the_bound_is_kim_and_nelsons_triangle() {
        let mut procedure = Procedure::new(rule(2, None)).unwrap();
        let first = [2u8, 1, 1, 2, 0, 1, 2, 1, 1, 1];
        let second = [1u8, 1, 0, 1, 1, 2, 0, 1, 0, 1];
        assert!(
            play(&mut procedure, 10, |c, r| [first, second][c]
                [usize::try_from(r).unwrap() - 1])
            .is_empty()
        );
        // The differences second − first, their sample variance, by hand.
        let d: Vec<f64> = first
            .iter()
            .zip(&second)
            .map(|(&a, &b)| f64::from(b) - f64::from(a))
            .collect();
        let mean = d.iter().sum::<f64>() / 10.0;
        let variance = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 9.0;
        assert!((procedure.variance(0, 1) - variance).abs() < 1e-12);
        assert!((variance - 14.0 / 15.0).abs() < 1e-15);
        // The zone at the higher score (12 points of 20: 0.6).
        let elo = crate::stats::elo_from_score(0.6);
        let zone = 2.0 * (logistic_score(elo) - logistic_score(elo - 50.0));
        assert!((procedure.zone(0, 1) - zone).abs() < 1e-15);
        let h2 = 2.0 * (1.0f64 / (2.0 * 0.1)).ln();
        let bound = h2 * variance / (2.0 * zone) - zone / 2.0 * 10.0;
        assert!((procedure.bound(0, 1) - bound).abs() < 1e-9);
        assert!((procedure.bound(1, 0) - bound).abs() < 1e-9, "symmetric");
    }

    #[test]
    fn a_candidate_ahead_every_round_eliminates_the_others_after_the_first_stage() {
        let mut procedure = Procedure::new(rule(3, None)).unwrap();
        let events = play(&mut procedure, 100, |c, _| [2, 1, 0][c]);
        // Pairs all won: each moves the LLR a bounded step (the regularized sample).
        let test = procedure.base_test();
        let verdict = first_crossing(test, &[2; 100]).expect("100 pairs won twice decide");
        assert_eq!(
            (verdict.decision, verdict.pairs),
            (SprtDecision::AcceptH1, 25)
        );
        let out = |candidate, lead| Event::Eliminated {
            candidate,
            how: Elimination {
                round: 16,
                by: 0,
                lead,
                bound: 0.0,
            },
        };
        let chosen = Event::Chosen {
            candidate: 0,
            round: 16,
        };
        let decided = Event::BaseDecided {
            candidate: 0,
            verdict,
        };
        let ended = Event::Ended(Ending::Decided {
            chosen: 0,
            beats_base: true,
        });
        assert_eq!(
            events,
            [
                (16, out(1, 16)),
                (16, out(2, 32)),
                (16, chosen),
                (25, decided),
                (25, ended)
            ]
        );
        // 16 rounds of three pairs, then 9 of the chosen one's alone.
        assert_eq!(
            (procedure.rounds(), procedure.games()),
            (25, 16 * 6 + 9 * 2)
        );
        assert!(procedure.players().is_empty());
        assert_eq!(procedure.round(&[], &[]), Err(RoundError::Ended));
    }

    #[test]
    fn a_test_that_crossed_before_the_choice_stands_and_ends_the_selection_with_it() {
        let mut procedure = Procedure::new(rule(2, None)).unwrap();
        // Candidate 0 splits every pair with the base; candidate 1 loses every pair.
        let events = play(&mut procedure, 1000, |c, _| [1, 0][c]);
        let split = first_crossing(procedure.base_test(), &[1; 1000]).unwrap();
        assert_eq!(split.decision, SprtDecision::AcceptH0);
        // Its test crossed before it was chosen: the selection ends when it is.
        assert_eq!(split.pairs, 15);
        assert_eq!(procedure.chosen(), Some((0, 16)));
        assert_eq!(
            procedure.ending(),
            Some((
                Ending::Decided {
                    chosen: 0,
                    beats_base: false
                },
                16
            ))
        );
        assert_eq!(procedure.games(), 16 * 4);
        assert_eq!(procedure.verdict(), Some(&split));
        assert_eq!(events.last().unwrap().0, 16);
    }

    #[test]
    fn equal_candidates_end_at_the_first_stage_the_first_given_kept() {
        let mut procedure = Procedure::new(rule(2, None)).unwrap();
        // The same points every round: no difference, no variance, the region closed.
        play(&mut procedure, 16, |_, r| (r % 3) as u8);
        let standings = procedure.standings();
        assert_eq!(standings[0].eliminated, None);
        assert_eq!(
            standings[1].eliminated,
            Some(Elimination {
                round: 16,
                by: 0,
                lead: 0,
                bound: 0.0
            })
        );
        assert_eq!(procedure.chosen(), Some((0, 16)));
    }

    #[test]
    fn no_round_starts_past_the_budget() {
        // Three rounds of two pairs: 12 games; a fourth would make 16.
        let mut procedure = Procedure::new(rule(2, Some(15))).unwrap();
        let events = play(&mut procedure, 10, |_, _| 1);
        assert_eq!(events, [(3, Event::Ended(Ending::Budget))]);
        assert_eq!((procedure.rounds(), procedure.games()), (3, 12));
        assert_eq!(procedure.chosen(), None);
        assert_eq!(procedure.leader(), 0);
    }

    #[test]
    fn a_round_of_other_players_or_points_is_refused() {
        let mut procedure = Procedure::new(rule(3, None)).unwrap();
        assert_eq!(
            procedure.round(&[0, 1], &[1, 1]),
            Err(RoundError::NotThePlayers {
                players: vec![0, 1, 2],
                given: vec![0, 1]
            })
        );
        assert_eq!(
            procedure.round(&[0, 1, 2], &[1, 3, 1]),
            Err(RoundError::BadPoints(3))
        );
        assert_eq!(procedure.rounds(), 0);
    }

    #[test]
    fn the_rule_states_its_errors_without_rounding_noise() {
        let rule = rule(4, None);
        assert_eq!(rule.error(), 0.1);
        let test = rule.base_test().unwrap();
        assert_eq!((test.elo0(), test.elo1(), test.beta()), (0.0, 50.0, 0.1));
        assert!((test.alpha() - 0.025).abs() < 1e-15);
        assert!((rule.h2() - 2.0 * 15f64.ln()).abs() < 1e-12);
        // A confidence so low that the leader after the first stage meets it.
        let low = Rule {
            confidence: 0.3,
            candidates: 2,
            ..rule
        };
        assert_eq!(low.h2(), 0.0);
    }
}
