//! Losses by fault per engine: games lost on time, by an illegal move, a crash or a stall,
//! and the stray answers that lose nothing.

use crate::records::Termination;
use serde::Serialize;

/// Losses by fault of one engine: how many games it lost by each of the four fault
/// terminations ([`Termination::is_fault`]); and its stray answers, which lose nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineFaults {
    /// Engine name.
    pub name: String,
    /// Losses on time (`time-forfeit`).
    pub time_forfeits: u64,
    /// Losses by an illegal move (`illegal-move`).
    pub illegal_moves: u64,
    /// Losses by a crash (`crash`).
    pub crashes: u64,
    /// Losses by a stall (`stall`).
    pub stalls: u64,
    /// Lines it wrote that answered no request (games.csv `white_stray`/`black_stray`): warned
    /// about and never played, not losses.
    pub stray_answers: u64,
}

impl EngineFaults {
    /// No loss by fault yet for engine `name`.
    pub fn none(name: &str) -> EngineFaults {
        EngineFaults {
            name: name.to_string(),
            time_forfeits: 0,
            illegal_moves: 0,
            crashes: 0,
            stalls: 0,
            stray_answers: 0,
        }
    }

    /// Counts a game lost by `termination`; a regular ending counts nothing.
    pub fn add_loss(&mut self, termination: Termination) {
        let slot = match fault_slot(termination) {
            Some(0) => &mut self.time_forfeits,
            Some(1) => &mut self.illegal_moves,
            Some(2) => &mut self.crashes,
            Some(_) => &mut self.stalls,
            None => return,
        };
        *slot += 1;
    }

    /// Losses by fault of every kind.
    pub fn losses(&self) -> u64 {
        self.time_forfeits + self.illegal_moves + self.crashes + self.stalls
    }
}

/// Index of a fault termination among the four counted per engine (`[time-forfeit,
/// illegal-move, crash, stall]`); `None` for a regular ending.
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

/// Losses by fault (`faults[e]`, by [`fault_slot`]) and stray answers (`stray[e]`) of every
/// engine `e`.
pub(super) fn engine_faults(
    engines: &[String],
    faults: &[[u64; 4]],
    stray: &[u64],
) -> Vec<EngineFaults> {
    engines
        .iter()
        .zip(faults.iter().zip(stray))
        .map(
            |(name, (&[time_forfeits, illegal_moves, crashes, stalls], &stray_answers))| {
                EngineFaults {
                    name: name.clone(),
                    time_forfeits,
                    illegal_moves,
                    crashes,
                    stalls,
                    stray_answers,
                }
            },
        )
        .collect()
}
