//! The counts a [`SummaryBuilder`](super::SummaryBuilder) keeps as games come one at a time:
//! wins by engine against engine, each match's game pairs (or the SPRT's), losses by fault,
//! stray answers, claims, latency, adjudications and self-play.

use super::AdjudicationCounts;
use super::SelfPlay;
use crate::records::Termination;
use crate::report::claims::ClaimsTally;
use crate::report::latency::LatencyTally;
use crate::stats::{MatchCounts, Outcome, SequentialTest};
use std::collections::HashMap;

/// A game pair's key: its pair number (within the file being read).
pub(super) type PairKey = u64;

/// Counts of the games, by engine index (tournament order).
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// `wins[i][j]`: games `i` won against `j` (self-play excluded).
    pub(super) wins: Vec<Vec<u64>>,
    /// `matches[(i, j)]` for `i < j`: the games of `i` against `j`, from `i`'s side, except
    /// those of the SPRT pair.
    pub(super) matches: HashMap<(usize, usize), MatchCounts<PairKey>>,
    /// The SPRT of engine 0 against engine 1, fed their games in order.
    pub(super) sprt: Option<SequentialTest<PairKey>>,
    /// Losses by fault per engine: `[time-forfeit, illegal-move, crash, stall]`.
    pub(super) faults: Vec<[u64; 4]>,
    /// Stray answers per engine.
    pub(super) stray: Vec<u64>,
    /// The engines' claims checked.
    pub(super) claims: ClaimsTally,
    /// The engines' latency per move.
    pub(super) latency: LatencyTally,
    /// Games adjudicated, by rule.
    pub(super) adjudicated: AdjudicationCounts,
    /// Games with one name on both sides.
    pub(super) self_play: SelfPlay,
}

impl Tally {
    /// Makes room for one more engine; with a third engine the SPRT ends.
    pub(super) fn add_engine(&mut self) {
        for row in &mut self.wins {
            row.push(0);
        }
        self.wins.push(vec![0; self.wins.len() + 1]);
        self.faults.push([0; 4]);
        self.stray.push(0);
        if self.wins.len() > 2 {
            self.end_sprt();
        }
    }

    /// Forgets the open game pairs of every match and of the SPRT.
    pub(super) fn close_open_pairs(&mut self) {
        self.matches
            .values_mut()
            .for_each(MatchCounts::close_open_pairs);
        if let Some(test) = &mut self.sprt {
            test.close_open_pairs();
        }
    }

    /// Drops the SPRT, its games counted on as the match of engines 0 and 1.
    pub(super) fn end_sprt(&mut self) {
        if let Some(test) = self.sprt.take() {
            self.matches.insert((0, 1), test.into_counts());
        }
    }

    /// Counts a game of two distinct engines in their match (or the SPRT), from the side of
    /// the earlier in tournament order.
    pub(super) fn count_match(&mut self, white: usize, black: usize, winner: usize, pair: PairKey) {
        let (first, second) = (white.min(black), white.max(black));
        let outcome = Outcome {
            white: white == first,
            won: winner == first,
        };
        match &mut self.sprt {
            Some(test) if (first, second) == (0, 1) => {
                test.add(pair, outcome);
            }
            _ => {
                self.matches
                    .entry((first, second))
                    .or_default()
                    .add(pair, outcome);
            }
        }
    }

    /// The games of engines `i < j`.
    pub(super) fn match_counts(&self, i: usize, j: usize) -> Option<&MatchCounts<PairKey>> {
        match &self.sprt {
            Some(test) if (i, j) == (0, 1) => Some(test.counts()),
            _ => self.matches.get(&(i, j)),
        }
    }

    /// Games between `i` and `j`.
    pub(super) fn games_between(&self, i: usize, j: usize) -> u64 {
        self.wins[i][j] + self.wins[j][i]
    }

    /// `(wins, losses)` of engine `i` over all its games.
    pub(super) fn record_of(&self, i: usize) -> (u64, u64) {
        let wins = self.wins[i].iter().sum();
        let losses = self.wins.iter().map(|row| row[i]).sum();
        (wins, losses)
    }
}

/// Index of a fault termination in [`Tally::faults`]; `None` for a regular ending.
pub(super) fn fault_slot(termination: Termination) -> Option<usize> {
    match termination {
        Termination::TimeForfeit => Some(0),
        Termination::IllegalMove => Some(1),
        Termination::Crash => Some(2),
        Termination::Stall => Some(3),
        Termination::GoalRank
        | Termination::AllCaptured
        | Termination::NoMoves
        | Termination::Resign
        | Termination::Proof
        | Termination::Adjudication => None,
    }
}
