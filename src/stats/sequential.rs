//! The games of two engines counted one by one in the order they were recorded, and the
//! sequential test (SPRT) on them: its verdict is the first crossing of a bound.
//!
//! One rule chooses the counts the Elo and the LLR come from ([`EloModel`]): game pairs
//! (pentanomial) as soon as one pair is complete, single games (trinomial) before that. So
//! with one game per pairing (`--games 1`) every game counts alone; with game pairs the pairs
//! count from the first complete one on, and a game whose partner is missing (in flight, not
//! played, or the odd game of an odd `--games`) counts in the wins and losses only. The rule
//! reads nothing but the games, in order, so a runner feeding games as they finish and a
//! replay of its games.csv (appended in that same order) count, and decide, alike.

use std::collections::HashMap;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use super::after_stop::{AfterStop, after_stop};
use super::elo::{EloEstimate, elo_pentanomial, elo_trinomial};
use super::pentanomial::Pentanomial;
use super::sprt::{Sprt, SprtDecision, SprtReport};

/// Which counts the Elo and the LLR of two engines' games come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EloModel {
    /// The complete game pairs' counts ([`elo_pentanomial`], [`Sprt::llr_pentanomial`]).
    Pentanomial,
    /// The single games' counts ([`elo_trinomial`], [`Sprt::llr_trinomial`]): no game pair
    /// is complete.
    Trinomial,
}

/// One game from the side of the counted engine (the first of the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The counted engine had White.
    pub white: bool,
    /// The counted engine won (Breakthrough has no draws).
    pub won: bool,
}

/// Counts of the games between two engines, from the first engine's side, fed game by game.
///
/// Two games form a pair when they carry the same pair key (e.g. the pair number of one file)
/// and the counted engine has White in one and Black in the other: a game completes the open
/// game of its key played with the other colours. Memory: one entry per open (incomplete)
/// pair; complete pairs and games are only counted.
#[derive(Debug, Clone)]
pub struct MatchCounts<K> {
    games: u64,
    wins: u64,
    pentanomial: Pentanomial,
    open: HashMap<K, Outcome>,
}

impl<K> Default for MatchCounts<K> {
    fn default() -> Self {
        MatchCounts {
            games: 0,
            wins: 0,
            pentanomial: Pentanomial::default(),
            open: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash> MatchCounts<K> {
    /// Counts one game of pair `pair`; returns `true` when it completes the pair.
    pub fn add(&mut self, pair: K, game: Outcome) -> bool {
        self.games += 1;
        self.wins += u64::from(game.won);
        match self.open.get(&pair) {
            Some(first) if first.white != game.white => {
                self.pentanomial.add_pair(first.won, game.won);
                self.open.remove(&pair);
                true
            }
            Some(_) => false,
            None => {
                self.open.insert(pair, game);
                false
            }
        }
    }

    /// Counts one game as [`add`](Self::add) does; returns `true` when the counts of
    /// [`model`](Self::model) changed, and with them the Elo and the LLR: for every game until
    /// a pair is complete (trinomial), then for each game that completes a pair (pentanomial).
    /// [`SequentialTest`] tests the LLR at each such change.
    pub fn add_changes_estimate(&mut self, pair: K, game: Outcome) -> bool {
        let completed = self.add(pair, game);
        completed || self.model() == EloModel::Trinomial
    }
}

impl<K> MatchCounts<K> {
    /// Forgets the open games (those still waiting for their partner): their partners can no
    /// longer come, e.g. at the end of a file when pairs are matched within a file. They stay
    /// counted, as unpaired games; memory no longer holds them.
    pub fn close_open_pairs(&mut self) {
        self.open = HashMap::new();
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Games the first engine won.
    pub fn wins(&self) -> u64 {
        self.wins
    }

    /// Games the first engine lost.
    pub fn losses(&self) -> u64 {
        self.games - self.wins
    }

    /// Complete game pairs by the first engine's points.
    pub fn pentanomial(&self) -> Pentanomial {
        self.pentanomial
    }

    /// Every game by the first engine's result, `[losses, draws, wins]` (draws stay 0).
    pub fn trinomial(&self) -> [u64; 3] {
        [self.losses(), 0, self.wins]
    }

    /// Games in no complete pair: counted in [`wins`](Self::wins) and
    /// [`losses`](Self::losses), and under [`EloModel::Pentanomial`] nowhere else.
    pub fn unpaired(&self) -> u64 {
        self.games - 2 * self.pentanomial.pairs()
    }

    /// Pentanomial once a pair is complete, trinomial before.
    pub fn model(&self) -> EloModel {
        if !self.pentanomial.is_empty() {
            EloModel::Pentanomial
        } else {
            EloModel::Trinomial
        }
    }

    /// Elo of the first engine minus the second from the counts of [`model`](Self::model).
    pub fn elo(&self) -> EloEstimate {
        match self.model() {
            EloModel::Pentanomial => elo_pentanomial(&self.pentanomial),
            EloModel::Trinomial => elo_trinomial(&self.trinomial()),
        }
    }

    /// LLR of `sprt` from the counts of [`model`](Self::model) (0 without games).
    pub fn llr(&self, sprt: &Sprt) -> f64 {
        match self.model() {
            EloModel::Pentanomial => sprt.llr_pentanomial(&self.pentanomial),
            EloModel::Trinomial => sprt.llr_trinomial(&self.trinomial()),
        }
    }

    /// The counts of [`model`](Self::model): what the Elo and the LLR come from.
    pub fn test_counts(&self) -> TestCounts {
        match self.model() {
            EloModel::Pentanomial => TestCounts::Pentanomial(self.pentanomial),
            EloModel::Trinomial => TestCounts::Trinomial(self.trinomial()),
        }
    }
}

/// The counts an LLR came from: single games or complete game pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestCounts {
    /// `[losses, draws, wins]` of single games.
    Trinomial([u64; 3]),
    /// Complete game pairs.
    Pentanomial(Pentanomial),
}

impl TestCounts {
    /// The cells: three of single games, five of game pairs (`[LL, LD, WL, WD, WW]`).
    pub fn to_vec(&self) -> Vec<u64> {
        match self {
            TestCounts::Trinomial(counts) => counts.to_vec(),
            TestCounts::Pentanomial(counts) => counts.as_array().to_vec(),
        }
    }
}

/// The first crossing of an SPRT bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Verdict {
    /// [`SprtDecision::AcceptH0`] or [`SprtDecision::AcceptH1`].
    pub decision: SprtDecision,
    /// The LLR that crossed the bound.
    pub llr: f64,
    /// Games counted when it crossed, the deciding game included.
    pub games: u64,
    /// The counts the LLR came from.
    pub model: EloModel,
    /// Those counts, at the verdict.
    #[serde(skip)]
    pub counts: TestCounts,
    /// The Elo after the stop ([`after_stop`]), computed from `counts` when the verdict was
    /// reached; `None` for a test halted without one.
    #[serde(skip)]
    pub after_stop: Option<AfterStop>,
}

/// The SPRT's state for a report: the status line at the verdict (or now, without one).
/// Serializes flat: the [`SprtReport`] fields, then `games`, `games_after`, `model`, and after
/// a verdict `after_stop`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SprtStatus {
    /// LLR, bounds, hypotheses and decision: at the verdict when there is one, else over
    /// every game counted (decision [`SprtDecision::Continue`]).
    #[serde(flatten)]
    pub report: SprtReport,
    /// Games counted at the verdict (or where the test was halted without one, see
    /// [`SequentialTest::halt`]); else every game counted.
    pub games: u64,
    /// Games counted after the verdict or the halt (they do not change it); else 0.
    pub games_after: u64,
    /// The counts `report.llr` came from.
    pub model: EloModel,
    /// After a verdict, the median-unbiased Elo and its 95% interval ([`after_stop`]: the
    /// plain Elo overstates a difference a test stopped on); `None` (and left out of JSON)
    /// without a verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_stop: Option<AfterStop>,
}

/// A sequential probability ratio test fed the games of two engines in the order they were
/// recorded. After each game that changes the counts of the [`EloModel`] it compares the LLR
/// with the bounds; the first crossing is the verdict, final: later games are still counted
/// (they are real games) but do not change it.
#[derive(Debug, Clone)]
pub struct SequentialTest<K> {
    sprt: Sprt,
    counts: MatchCounts<K>,
    verdict: Option<Verdict>,
    /// Where the test was halted without a verdict ([`SequentialTest::halt`]): the LLR, games
    /// and model then.
    halted: Option<Verdict>,
}

impl<K: Eq + Hash> SequentialTest<K> {
    /// A test with no games.
    pub fn new(sprt: Sprt) -> Self {
        SequentialTest {
            sprt,
            counts: MatchCounts::default(),
            verdict: None,
            halted: None,
        }
    }

    /// Halts the test without a verdict: the games after this point are counted (they are
    /// real games) but can no longer reach a verdict, and the status reports the LLR at this
    /// point. A reader of a sharded run halts it at the first missing game, since a verdict
    /// needs every game before it. No effect once a verdict is reached or the test halted.
    pub fn halt(&mut self) {
        if self.verdict.is_none() && self.halted.is_none() {
            let llr = self.counts.llr(&self.sprt);
            self.halted = Some(Verdict {
                decision: SprtDecision::Continue,
                llr,
                games: self.counts.games(),
                model: self.counts.model(),
                counts: self.counts.test_counts(),
                after_stop: None,
            });
        }
    }

    /// Counts one game of pair `pair` (see [`MatchCounts::add`]); returns the verdict when
    /// this game reaches it, `None` otherwise (also for every game after it).
    pub fn add(&mut self, pair: K, game: Outcome) -> Option<Verdict> {
        let changed = self.counts.add_changes_estimate(pair, game);
        if self.verdict.is_some() || self.halted.is_some() || !changed {
            return None;
        }
        let llr = self.counts.llr(&self.sprt);
        let decision = self.sprt.decision(llr);
        if decision == SprtDecision::Continue {
            return None;
        }
        let counts = self.counts.test_counts();
        self.verdict = Some(Verdict {
            decision,
            llr,
            games: self.counts.games(),
            model: self.counts.model(),
            counts,
            after_stop: Some(after_stop(&self.sprt, &counts.to_vec())),
        });
        self.verdict
    }
}

impl<K> SequentialTest<K> {
    /// The test's parameters.
    pub fn sprt(&self) -> &Sprt {
        &self.sprt
    }

    /// Every game counted so far, the games after the verdict included.
    pub fn counts(&self) -> &MatchCounts<K> {
        &self.counts
    }

    /// [`MatchCounts::close_open_pairs`] on the counts: the verdict and the LLR do not change
    /// (they count complete pairs and single games only).
    pub fn close_open_pairs(&mut self) {
        self.counts.close_open_pairs();
    }

    /// The counts, without the test: to go on counting the games of two engines when their
    /// SPRT no longer applies.
    pub fn into_counts(self) -> MatchCounts<K> {
        self.counts
    }

    /// The first crossing of a bound, once reached.
    pub fn verdict(&self) -> Option<Verdict> {
        self.verdict
    }

    /// The verdict's decision, or [`SprtDecision::Continue`] without one.
    pub fn decision(&self) -> SprtDecision {
        self.verdict
            .map_or(SprtDecision::Continue, |verdict| verdict.decision)
    }

    /// The status to report (see [`SprtStatus`]).
    pub fn status(&self) -> SprtStatus {
        let status = match self.verdict.or(self.halted) {
            Some(verdict) => SprtStatus {
                report: self.sprt.report(verdict.llr),
                games: verdict.games,
                games_after: self.counts.games() - verdict.games,
                model: verdict.model,
                after_stop: verdict.after_stop,
            },
            // Every change of the counts was tested, so the LLR is within the bounds.
            None => SprtStatus {
                report: self.sprt.report(self.counts.llr(&self.sprt)),
                games: self.counts.games(),
                games_after: 0,
                model: self.counts.model(),
                after_stop: None,
            },
        };
        debug_assert_eq!(status.report.decision, self.decision());
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIN_WHITE: Outcome = Outcome {
        white: true,
        won: true,
    };
    const WIN_BLACK: Outcome = Outcome {
        white: false,
        won: true,
    };
    const LOSS_WHITE: Outcome = Outcome {
        white: true,
        won: false,
    };
    const LOSS_BLACK: Outcome = Outcome {
        white: false,
        won: false,
    };

    fn sprt(spec: &str) -> Sprt {
        spec.parse().unwrap()
    }

    #[test]
    fn a_normalized_status_names_its_elo_model_beside_its_counts_model() {
        let mut test = SequentialTest::new(sprt("elo0=0 elo1=5 model=normalized"));
        test.add(1, WIN_WHITE);
        test.add(1, LOSS_BLACK);
        let text = serde_json::to_string(&test.status()).unwrap();
        assert_eq!(text.matches("\"model\"").count(), 1, "{text}");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["model"], "pentanomial");
        assert_eq!(json["elo_model"], "normalized");
        let llr = sprt("elo0=0 elo1=5 model=normalized").llr_pentanomial(&[0, 0, 1, 0, 0].into());
        assert_eq!(json["llr"], llr);
    }

    #[test]
    fn pairs_join_by_key_and_swapped_colours() {
        let mut counts = MatchCounts::default();
        assert!(!counts.add(1, WIN_WHITE));
        assert!(!counts.add(2, LOSS_WHITE));
        // Same key, same colours: not a partner; the open game stays open.
        assert!(!counts.add(2, WIN_WHITE));
        assert!(counts.add(1, WIN_BLACK));
        assert!(counts.add(2, LOSS_BLACK));
        assert_eq!(counts.pentanomial().as_array(), [1, 0, 0, 0, 1]);
        assert_eq!((counts.games(), counts.wins(), counts.losses()), (5, 3, 2));
        assert_eq!(counts.trinomial(), [2, 0, 3]);
        assert_eq!(counts.unpaired(), 1);
        assert_eq!(counts.model(), EloModel::Pentanomial);
        assert_eq!(counts.elo(), elo_pentanomial(&[1, 0, 0, 0, 1].into()));
    }

    #[test]
    fn the_estimate_changes_with_each_single_game_then_with_each_complete_pair() {
        let mut counts = MatchCounts::default();
        // Trinomial: every game counts.
        assert!(counts.add_changes_estimate(1, WIN_WHITE));
        assert!(counts.add_changes_estimate(2, LOSS_WHITE));
        // Completes pair 1: pentanomial from now on.
        assert!(counts.add_changes_estimate(1, WIN_BLACK));
        assert!(!counts.add_changes_estimate(3, WIN_WHITE));
        assert!(counts.add_changes_estimate(2, LOSS_BLACK));
    }

    #[test]
    fn closed_pairs_stay_unpaired_and_do_not_join_later_games() {
        let mut counts = MatchCounts::default();
        counts.add(1, WIN_WHITE);
        counts.add(2, WIN_WHITE);
        counts.add(2, LOSS_BLACK);
        counts.close_open_pairs();
        assert_eq!((counts.games(), counts.unpaired()), (3, 1));
        // Pair 1's partner after the close starts a new open pair.
        assert!(!counts.add(1, WIN_BLACK));
        assert!(counts.add(1, LOSS_WHITE));
        assert_eq!(counts.pentanomial().as_array(), [0, 0, 2, 0, 0]);
        assert_eq!((counts.games(), counts.unpaired()), (5, 1));
    }

    #[test]
    fn single_games_count_alone_until_a_pair_is_complete() {
        let s = sprt("elo0=0 elo1=20");
        let mut counts = MatchCounts::default();
        assert_eq!(counts.model(), EloModel::Trinomial);
        assert_eq!(counts.llr(&s), 0.0);
        for pair in 1..=3 {
            counts.add(pair, WIN_WHITE);
        }
        assert_eq!(counts.model(), EloModel::Trinomial);
        assert_eq!(counts.llr(&s), s.llr_trinomial(&[0, 0, 3]));
        assert_eq!(counts.elo(), elo_trinomial(&[0, 0, 3]));
        counts.add(3, LOSS_BLACK);
        assert_eq!(counts.model(), EloModel::Pentanomial);
        assert_eq!(counts.llr(&s), s.llr_pentanomial(&[0, 0, 1, 0, 0].into()));
        assert_eq!(counts.unpaired(), 2);
    }

    /// The verdict is the first crossing; a later pair that pulls the LLR back inside the
    /// bounds is counted but does not change it.
    #[test]
    fn the_first_crossing_is_final() {
        let s = sprt("elo0=0 elo1=20");
        let (lower, _) = s.bounds();
        let crossing = (1..)
            .find(|&n| s.llr_pentanomial(&[n, 0, 0, 0, 0].into()) <= lower)
            .unwrap();
        assert!(s.llr_pentanomial(&[crossing, 0, 0, 0, 1].into()) > lower);
        let mut test = SequentialTest::new(s);
        let mut reached = Vec::new();
        for pair in 1..=crossing {
            assert_eq!(test.add(pair, LOSS_WHITE), None);
            reached.extend(test.add(pair, LOSS_BLACK));
        }
        let llr = s.llr_pentanomial(&[crossing, 0, 0, 0, 0].into());
        let at_verdict = [crossing, 0, 0, 0, 0];
        let verdict = Verdict {
            decision: SprtDecision::AcceptH0,
            llr,
            games: 2 * crossing,
            model: EloModel::Pentanomial,
            counts: TestCounts::Pentanomial(at_verdict.into()),
            after_stop: Some(after_stop(&s, &at_verdict)),
        };
        assert_eq!(reached, [verdict]);
        assert_eq!(test.add(0, WIN_WHITE), None);
        assert_eq!(test.add(0, WIN_BLACK), None);
        assert_eq!(test.verdict(), Some(verdict));
        assert_eq!(test.decision(), SprtDecision::AcceptH0);
        assert_eq!(
            test.counts().pentanomial().as_array(),
            [crossing, 0, 0, 0, 1]
        );
        let status = test.status();
        assert_eq!(status.report, s.report(llr));
        assert_eq!((status.games, status.games_after), (2 * crossing, 2));
        // The estimate after the stop is of the counts at the verdict, not of the games after.
        assert_eq!(status.after_stop, verdict.after_stop);
        assert!(status.after_stop.unwrap().elo < 0.0);
    }

    #[test]
    fn single_games_reach_a_verdict() {
        let s = sprt("elo0=0 elo1=200");
        let (_, upper) = s.bounds();
        let crossing = (1..)
            .find(|&n| s.llr_trinomial(&[0, 0, n]) >= upper)
            .unwrap();
        let mut test = SequentialTest::new(s);
        let verdicts: Vec<(u64, Verdict)> = (1..=crossing + 1)
            .filter_map(|pair| test.add(pair, WIN_WHITE).map(|v| (pair, v)))
            .collect();
        let llr = s.llr_trinomial(&[0, 0, crossing]);
        assert_eq!(
            verdicts,
            [(
                crossing,
                Verdict {
                    decision: SprtDecision::AcceptH1,
                    llr,
                    games: crossing,
                    model: EloModel::Trinomial,
                    counts: TestCounts::Trinomial([0, 0, crossing]),
                    after_stop: Some(after_stop(&s, &[0, 0, crossing])),
                }
            )]
        );
        let status = test.status();
        assert_eq!((status.games, status.games_after), (crossing, 1));
        assert_eq!(status.report.llr, llr);
        assert_eq!(status.model, EloModel::Trinomial);
    }

    #[test]
    fn without_a_verdict_the_status_is_the_current_llr() {
        let s = sprt("elo0=0 elo1=5");
        let mut test = SequentialTest::new(s);
        assert_eq!(test.status().report, s.report(0.0));
        test.add(7, WIN_WHITE);
        test.add(7, LOSS_BLACK);
        test.add(8, WIN_BLACK);
        let status = test.status();
        assert_eq!(
            status.report,
            s.report(s.llr_pentanomial(&[0, 0, 1, 0, 0].into()))
        );
        assert_eq!(status.report.decision, SprtDecision::Continue);
        assert_eq!((status.games, status.games_after), (3, 0));
        assert_eq!(test.verdict(), None);
        assert_eq!(status.after_stop, None);
    }

    #[test]
    fn a_halted_test_counts_later_games_but_reaches_no_verdict() {
        let sprt = sprt("elo0=0 elo1=200");
        let mut test = SequentialTest::new(sprt);
        for pair in 1..=2u64 {
            assert_eq!(test.add(pair, WIN_WHITE), None);
            assert_eq!(test.add(pair, WIN_BLACK), None);
        }
        let llr = sprt.llr_pentanomial(&[0, 0, 0, 0, 2].into());
        test.halt();
        for pair in 3..=40u64 {
            assert_eq!(test.add(pair, WIN_WHITE), None);
            assert_eq!(test.add(pair, WIN_BLACK), None);
        }
        let status = test.status();
        assert_eq!(status.report, sprt.report(llr));
        assert_eq!(status.report.decision, SprtDecision::Continue);
        assert_eq!((status.games, status.games_after), (4, 76));
        assert_eq!(test.counts().pentanomial().as_array(), [0, 0, 0, 0, 40]);
        // Unhalted, the same games decide.
        let mut free = SequentialTest::new(sprt);
        let decided = (1..=40u64)
            .flat_map(|pair| [(pair, WIN_WHITE), (pair, WIN_BLACK)])
            .find_map(|(pair, game)| free.add(pair, game));
        assert_eq!(decided.map(|v| v.decision), Some(SprtDecision::AcceptH1));
    }
}
