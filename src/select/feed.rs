//! The games of a selection laid out and fed to its procedure in round order: the one place
//! that knows which unit, round and candidate a game id is, so that the run's schedule and its
//! report (rebuilt from the run directory) take the same rounds.
//!
//! **Layout.** With `k` candidates, the game pair of candidate `c` (counted from 0) in round
//! `r` (counted from 1) is unit `u = (r − 1) k + c + 1`, its games `2u − 1` (the candidate
//! White) and `2u` (the base White), both from the round's opening. A candidate eliminated, or every candidate
//! but the chosen one, leaves its units of later rounds unplayed: the ids are fixed by the
//! layout alone, whoever plays.

use super::procedure::{Event, Procedure, RoundError};
use crate::arena::Unit;
use std::collections::BTreeMap;

/// Where the games of a selection of `candidates` candidates are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Candidates, at least 1.
    pub candidates: usize,
}

impl Layout {
    /// The unit of candidate `candidate`'s pair in round `round`.
    pub fn unit(self, round: u64, candidate: usize) -> Unit {
        Unit((round - 1) * self.candidates as u64 + candidate as u64 + 1)
    }

    /// The round and candidate of `unit`.
    pub fn place(self, unit: Unit) -> (u64, usize) {
        let k = self.candidates as u64;
        let index = unit.0.saturating_sub(1);
        // A candidate's index, below `candidates`.
        #[allow(clippy::cast_possible_truncation)]
        let candidate = (index % k) as usize;
        (index / k + 1, candidate)
    }

    /// The unit of game `game_id`.
    pub fn unit_of_game(game_id: u64) -> Unit {
        Unit(game_id.div_ceil(2))
    }

    /// Whether the candidate plays White in game `game_id` (the first of its pair).
    pub fn candidate_white(game_id: u64) -> bool {
        game_id % 2 == 1
    }
}

/// A selection fed its games as they come (in any order): each round is taken once all its
/// pairs are in.
#[derive(Clone, Debug)]
pub struct Feed {
    layout: Layout,
    procedure: Procedure,
    /// Results of the games of rounds not taken yet, by unit: whether the candidate won its
    /// first and its second game.
    pending: BTreeMap<Unit, [Option<bool>; 2]>,
    /// Games read that the selection does not take: of a candidate that does not play the
    /// round, or of a round after the end.
    extra: u64,
}

impl Feed {
    /// The selection of `procedure`, fed nothing yet.
    pub fn new(procedure: Procedure) -> Feed {
        Feed {
            layout: Layout {
                candidates: procedure.rule().candidates,
            },
            procedure,
            pending: BTreeMap::new(),
            extra: 0,
        }
    }

    /// The procedure as fed so far.
    pub fn procedure(&self) -> &Procedure {
        &self.procedure
    }

    /// The layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Games read that the selection does not take.
    pub fn extra(&self) -> u64 {
        self.extra
    }

    /// Whether `candidate` plays round `round`: `None` while that is not known (the rounds
    /// before it are not all in).
    pub fn plays(&self, candidate: usize, round: u64) -> Option<bool> {
        let done = self.procedure.rounds();
        if round <= done {
            let played = self.procedure.standings()[candidate].points.len() as u64;
            return Some(played >= round);
        }
        (round == done + 1).then(|| self.procedure.players().contains(&candidate))
    }

    /// Takes game `game_id`, won by the candidate or not, and every round it completes.
    /// Returns what those rounds changed, each with its round; a game already taken (read
    /// again) changes nothing.
    ///
    /// # Errors
    /// [`RoundError`] from the procedure (a bug: the feed gives it only its players).
    pub fn add(
        &mut self,
        game_id: u64,
        candidate_won: bool,
    ) -> Result<Vec<(u64, Event)>, RoundError> {
        let unit = Layout::unit_of_game(game_id);
        let (round, candidate) = self.layout.place(unit);
        match self.plays(candidate, round) {
            Some(false) => {
                self.extra += 1;
                return Ok(Vec::new());
            }
            // Taken already (read again after a worker's directory went).
            Some(true) if round <= self.procedure.rounds() => return Ok(Vec::new()),
            _ => {}
        }
        let slot = usize::from(!Layout::candidate_white(game_id));
        self.pending.entry(unit).or_default()[slot] = Some(candidate_won);
        self.fold()
    }

    /// Takes every round whose pairs are all in, in order.
    fn fold(&mut self) -> Result<Vec<(u64, Event)>, RoundError> {
        let mut events = Vec::new();
        loop {
            let players = self.procedure.players();
            if players.is_empty() {
                break;
            }
            let round = self.procedure.rounds() + 1;
            let points: Option<Vec<u8>> = players
                .iter()
                .map(|&c| match self.pending.get(&self.layout.unit(round, c)) {
                    Some([Some(first), Some(second)]) => Some(u8::from(*first) + u8::from(*second)),
                    _ => None,
                })
                .collect();
            let Some(points) = points else { break };
            for &c in &players {
                self.pending.remove(&self.layout.unit(round, c));
            }
            let taken = self.procedure.round(&players, &points)?;
            events.extend(taken.into_iter().map(|event| (round, event)));
        }
        // Games of a round taken that nobody plays (none in a run's own files).
        if self.procedure.ending().is_some() {
            self.extra += self
                .pending
                .values()
                .map(|games| games.iter().flatten().count() as u64)
                .sum::<u64>();
            self.pending.clear();
        }
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::procedure::Rule;

    #[test]
    fn units_and_games_are_laid_out_by_round_and_candidate() {
        let layout = Layout { candidates: 3 };
        assert_eq!(layout.unit(1, 0), Unit(1));
        assert_eq!(layout.unit(2, 2), Unit(6));
        assert_eq!(layout.place(Unit(6)), (2, 2));
        assert_eq!(layout.place(Unit(7)), (3, 0));
        assert_eq!(Layout::unit_of_game(11), Unit(6));
        assert_eq!(Layout::unit_of_game(12), Unit(6));
        assert!(Layout::candidate_white(11) && !Layout::candidate_white(12));
    }

    #[test]
    fn a_round_is_taken_once_all_its_pairs_are_in_whatever_their_order() {
        let rule = Rule {
            candidates: 2,
            indifference: 50.0,
            confidence: 0.9,
            budget: None,
        };
        let mut feed = Feed::new(Procedure::new(rule).unwrap());
        // Round 2's games first, then round 1's.
        for (game, won) in [(5, true), (8, false), (6, true), (7, true)] {
            assert!(feed.add(game, won).unwrap().is_empty());
        }
        assert_eq!(feed.procedure().rounds(), 0);
        assert_eq!(feed.plays(1, 2), None);
        feed.add(1, true).unwrap();
        feed.add(2, false).unwrap();
        feed.add(3, false).unwrap();
        assert_eq!(
            feed.procedure().rounds(),
            0,
            "candidate 1's pair is half in"
        );
        feed.add(4, false).unwrap();
        assert_eq!(feed.procedure().rounds(), 2);
        let standings = feed.procedure().standings();
        assert_eq!(standings[0].points, [1, 2]);
        assert_eq!(standings[1].points, [0, 1]);
        // Read again: nothing changes.
        feed.add(4, true).unwrap();
        assert_eq!(feed.procedure().standings()[1].points, [0, 1]);
        assert_eq!(feed.plays(0, 3), Some(true));
    }
}
