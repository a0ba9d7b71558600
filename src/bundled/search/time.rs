//! Time allocation: from the limits of a search to a soft and a hard deadline.
//!
//! * The **hard** deadline aborts the search wherever it is (checked every 1024 nodes).
//! * The **soft** deadline is checked between iterations: once half of it has passed, a new
//!   iteration would most likely not finish in time, so the search stops with the last one.
//!
//! With a clock, the move gets `remaining / moves_to_go + 3/4 of the increment` as its soft
//! budget, where `moves_to_go` defaults to [`DEFAULT_MOVES_TO_GO`] (Breakthrough games between
//! engines are short), and up to three times that as its hard limit, never more than a third of
//! the remaining time (nine tenths on the last move before a time control) minus
//! [`MOVE_OVERHEAD_MS`] for the process and pipe round trip. A fixed move time is a hard
//! deadline only (the search uses all of it), less the overhead (at most a fifth of it).

use super::Limits;
use std::time::Duration;

/// Moves to plan for when the clock does not say how many remain before the next control.
pub const DEFAULT_MOVES_TO_GO: u64 = 20;

/// Milliseconds kept back for the time the answer takes to reach the arena.
pub const MOVE_OVERHEAD_MS: u64 = 10;

/// When a search must stop, measured from its start; `None` for no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Deadlines {
    /// Do not start a new iteration after half of this.
    pub soft: Option<Duration>,
    /// Abort the search at this time.
    pub hard: Option<Duration>,
}

/// The deadlines for `limits`; the tighter of the move time and the clock wins when both are
/// given, and `infinite` ignores both.
pub(crate) fn deadlines(limits: &Limits) -> Deadlines {
    if limits.infinite {
        return Deadlines {
            soft: None,
            hard: None,
        };
    }
    let movetime = limits
        .movetime_ms
        .map(|ms| ms.saturating_sub(MOVE_OVERHEAD_MS.min(ms / 5)).max(1));
    let clock = limits.clock.map(|clock| {
        let moves_to_go = clock
            .moves_to_go
            .map_or(DEFAULT_MOVES_TO_GO, u64::from)
            .max(1);
        let available = clock.remaining_ms.saturating_sub(MOVE_OVERHEAD_MS);
        let cap = if moves_to_go == 1 {
            available * 9 / 10
        } else {
            available / 3
        };
        let budget = clock.remaining_ms / moves_to_go + clock.increment_ms * 3 / 4;
        let hard = budget.saturating_mul(3).min(cap).max(1);
        (budget.min(hard), hard)
    });
    let hard = match (movetime, clock) {
        (Some(movetime), Some((_, hard))) => Some(movetime.min(hard)),
        (movetime, clock) => movetime.or(clock.map(|(_, hard)| hard)),
    };
    Deadlines {
        soft: clock.map(|(soft, _)| Duration::from_millis(soft)),
        hard: hard.map(Duration::from_millis),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundled::search::SearchClock;

    fn ms(value: u64) -> Option<Duration> {
        Some(Duration::from_millis(value))
    }

    #[test]
    fn no_time_limit_means_no_deadline() {
        let none = deadlines(&Limits::default());
        assert_eq!((none.soft, none.hard), (None, None));
        let infinite = Limits {
            infinite: true,
            movetime_ms: Some(50),
            ..Limits::default()
        };
        assert_eq!(deadlines(&infinite).hard, None);
    }

    #[test]
    fn a_move_time_keeps_a_small_overhead() {
        let limits = |ms| Limits {
            movetime_ms: Some(ms),
            ..Limits::default()
        };
        assert_eq!(deadlines(&limits(100)).hard, ms(90));
        assert_eq!(deadlines(&limits(100)).soft, None);
        assert_eq!(deadlines(&limits(20)).hard, ms(16));
        assert_eq!(deadlines(&limits(0)).hard, ms(1));
    }

    #[test]
    fn a_clock_is_spread_over_the_moves_to_go_with_a_capped_hard_limit() {
        let clock = |remaining_ms, increment_ms, moves_to_go| Limits {
            clock: Some(SearchClock {
                remaining_ms,
                increment_ms,
                moves_to_go,
            }),
            ..Limits::default()
        };
        let d = deadlines(&clock(60_000, 1_000, None));
        assert_eq!(d.soft, ms(3_000 + 750));
        assert_eq!(d.hard, ms(3 * 3_750));
        // Little time left: the hard limit is a third of it.
        let d = deadlines(&clock(300, 1_000, None));
        assert_eq!(d.hard, ms(96));
        assert_eq!(d.soft, ms(96));
        // The last move before the control may use most of the time.
        let d = deadlines(&clock(1_000, 0, Some(1)));
        assert_eq!(d.hard, ms(891));
        // Both a clock and a move time: the tighter wins.
        let mut both = clock(60_000, 0, None);
        both.movetime_ms = Some(500);
        assert_eq!(deadlines(&both).hard, ms(490));
        assert_eq!(deadlines(&both).soft, ms(3_000));
    }
}
