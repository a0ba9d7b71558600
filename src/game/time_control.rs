//! Time controls: how long an engine may think ([`TimeControl`], the `tc=`, `st=`, `depth=`
//! and `nodes=` engine keys), and the clocks of a game that keep them ([`Clocks`]).
//!
//! The runner, not the engine, keeps the time: a move is charged the exact time from `go` to
//! `bestmove` ([`Clocks::charge`]); the increment is added after the move; the margin
//! (`timemargin=`) is grace for a late move, never time on the clock.

use crate::engine::protocol::GoLimits;
use crate::rules::{ByColor, Color};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// How long an engine searching to a fixed depth or node count may take for one move before it
/// loses on time.
pub const UNCLOCKED_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long an engine may think: the search limit sent with every `go`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeControl {
    /// A clock: `base_ms` for the game plus `increment_ms` after each move (`tc=BASE+INC`, in
    /// seconds on the command line).
    Clock {
        /// Time for the whole game, ms.
        base_ms: u64,
        /// Time added after each move, ms.
        increment_ms: u64,
    },
    /// A fixed time per move, ms (`st=SECONDS`).
    MoveTime(u64),
    /// A fixed depth in plies (`depth=N`).
    Depth(u32),
    /// A fixed number of nodes (`nodes=N`).
    Nodes(u64),
}

impl TimeControl {
    /// Parses `BASE+INC` or `BASE` in seconds (decimals allowed), e.g. `10+0.1` or `8`.
    ///
    /// # Errors
    /// A message naming the bad value.
    pub fn parse_clock(text: &str) -> Result<TimeControl, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        Ok(TimeControl::Clock {
            base_ms: seconds_to_ms(base).map_err(|e| format!("bad tc '{text}': {e}"))?,
            increment_ms: seconds_to_ms(increment).map_err(|e| format!("bad tc '{text}': {e}"))?,
        })
    }
}

impl TimeControl {
    /// The `go` limits of this control for a position searched on its own: a clock as both
    /// sides' full base time and increment, any other control as its fixed limit.
    pub fn go_limits(self) -> GoLimits {
        let fresh = SideClock::new(self, Duration::ZERO);
        Clocks::new(ByColor::from_fn(|_| fresh)).go_limits(Color::White)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Clock {
                base_ms,
                increment_ms,
            } => write!(
                f,
                "tc={}+{}",
                *base_ms as f64 / 1e3,
                *increment_ms as f64 / 1e3
            ),
            TimeControl::MoveTime(ms) => write!(f, "st={}", *ms as f64 / 1e3),
            TimeControl::Depth(depth) => write!(f, "depth={depth}"),
            TimeControl::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

/// Seconds (a non-negative decimal) to whole milliseconds.
pub(crate) fn seconds_to_ms(text: &str) -> Result<u64, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(0.0..=1e9).contains(&seconds) {
        return Err(format!("'{text}' is not a non-negative number of seconds"));
    }
    Ok((seconds * 1e3).round() as u64)
}

/// One side's time control in a game and what is left of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideClock {
    /// How late a move may be before it loses on time: grace, never added to the clock.
    margin: Duration,
    /// The limit and its live state.
    budget: Budget,
}

/// A time control with its live state: only a clock has time that runs down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Budget {
    /// A game clock.
    Clock {
        /// Time left on the clock.
        left: Duration,
        /// Added after each move.
        increment: Duration,
    },
    /// A fixed time per move: every move gets all of it, and unused time is not kept.
    MoveTime(Duration),
    /// A fixed depth in plies: the engine decides when to stop.
    Depth(u32),
    /// A fixed number of nodes: the engine decides when to stop.
    Nodes(u64),
}

/// A move that came too late: beyond the clock (or the fixed time per move) and the margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overstep {
    /// The move took `over` more than was left on the clock.
    Clock {
        /// The time used beyond what was left on the clock.
        over: Duration,
    },
    /// The move took `used` of a fixed `limit` per move.
    MoveTime {
        /// The time the move took.
        used: Duration,
        /// The fixed time per move.
        limit: Duration,
    },
}

impl fmt::Display for Overstep {
    /// `N ms over` or `N ms for a M ms move`, in whole ms rounded down.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Overstep::Clock { over } => write!(f, "{} ms over", over.as_millis()),
            Overstep::MoveTime { used, limit } => write!(
                f,
                "{} ms for a {} ms move",
                used.as_millis(),
                limit.as_millis()
            ),
        }
    }
}

impl SideClock {
    /// A side's clock at the start of a game under `control`, with `margin` of grace for a
    /// late move.
    pub fn new(control: TimeControl, margin: Duration) -> SideClock {
        let budget = match control {
            TimeControl::Clock {
                base_ms,
                increment_ms,
            } => Budget::Clock {
                left: Duration::from_millis(base_ms),
                increment: Duration::from_millis(increment_ms),
            },
            TimeControl::MoveTime(ms) => Budget::MoveTime(Duration::from_millis(ms)),
            TimeControl::Depth(depth) => Budget::Depth(depth),
            TimeControl::Nodes(nodes) => Budget::Nodes(nodes),
        };
        SideClock { margin, budget }
    }

    /// The time left on this side's clock; `None` when it plays without a clock.
    pub fn left(&self) -> Option<Duration> {
        match self.budget {
            Budget::Clock { left, .. } => Some(left),
            _ => None,
        }
    }

    /// How long the next move may take before it loses on time: the time left on the clock
    /// (the increment comes after the move) or the fixed time per move, plus the margin; a
    /// fixed depth or node count has [`UNCLOCKED_MOVE_TIMEOUT`].
    pub fn allowance(&self) -> Duration {
        match self.budget {
            Budget::Clock { left, .. } => left.saturating_add(self.margin),
            Budget::MoveTime(limit) => limit.saturating_add(self.margin),
            Budget::Depth(_) | Budget::Nodes(_) => UNCLOCKED_MOVE_TIMEOUT,
        }
    }

    /// Charges a move that took `used` (from `go` to `bestmove`, exactly): the clock loses
    /// `used` (down to zero at most: an overdraft within the margin is forgiven, not owed),
    /// then gains the increment.
    ///
    /// # Errors
    /// [`Overstep`] when `used` is beyond the time left (or the fixed time per move) plus the
    /// margin; the clock is then left as it was. A fixed depth or node count is never late
    /// here (the engine is given [`UNCLOCKED_MOVE_TIMEOUT`] to answer).
    pub fn charge(&mut self, used: Duration) -> Result<(), Overstep> {
        let margin = self.margin;
        match &mut self.budget {
            Budget::Clock { left, increment } => {
                if used > left.saturating_add(margin) {
                    return Err(Overstep::Clock { over: used - *left });
                }
                *left = left.saturating_sub(used).saturating_add(*increment);
                Ok(())
            }
            Budget::MoveTime(limit) if used > limit.saturating_add(margin) => {
                Err(Overstep::MoveTime {
                    used,
                    limit: *limit,
                })
            }
            Budget::MoveTime(_) | Budget::Depth(_) | Budget::Nodes(_) => Ok(()),
        }
    }

    /// Time left and increment for `go`, in whole ms (rounded down): a side without a clock
    /// shows 0 and 0.
    fn clock_ms(&self) -> (u64, u64) {
        match self.budget {
            Budget::Clock { left, increment } => (whole_ms(left), whole_ms(increment)),
            _ => (0, 0),
        }
    }
}

/// The clocks of both sides of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks(ByColor<SideClock>);

impl Clocks {
    /// Both sides' clocks at the start of a game.
    pub fn new(sides: ByColor<SideClock>) -> Clocks {
        Clocks(sides)
    }

    /// The clock of `side`.
    pub fn side(&self, side: Color) -> &SideClock {
        &self.0[side]
    }

    /// The `go` limits for `side` to move: with a clock, both sides' time left and increments
    /// (a side playing without a clock shows 0); otherwise the side's fixed limit.
    pub fn go_limits(&self, side: Color) -> GoLimits {
        match self.0[side].budget {
            Budget::Clock { .. } => {
                let (white_ms, white_inc_ms) = self.0.white.clock_ms();
                let (black_ms, black_inc_ms) = self.0.black.clock_ms();
                GoLimits::clock(white_ms, black_ms, white_inc_ms, black_inc_ms)
            }
            Budget::MoveTime(limit) => GoLimits::movetime(whole_ms(limit)),
            Budget::Depth(depth) => GoLimits::depth(depth),
            Budget::Nodes(nodes) => GoLimits::nodes(nodes),
        }
    }

    /// How long `side`'s next move may take before it loses on time ([`SideClock::allowance`]).
    pub fn allowance(&self, side: Color) -> Duration {
        self.0[side].allowance()
    }

    /// Charges `side`'s move that took `used` ([`SideClock::charge`]).
    ///
    /// # Errors
    /// [`Overstep`] when the move came too late.
    pub fn charge(&mut self, side: Color, used: Duration) -> Result<(), Overstep> {
        self.0[side].charge(used)
    }
}

/// `duration` in whole milliseconds, rounded down (saturating: no clock comes near the limit).
pub(crate) fn whole_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARGIN: Duration = Duration::from_millis(100);

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    /// Both sides under `control` with the 100 ms margin.
    fn clocks(control: &str) -> Clocks {
        let control = match control.split_once('=') {
            Some(("tc", clock)) => TimeControl::parse_clock(clock).unwrap(),
            Some(("st", seconds)) => TimeControl::MoveTime(seconds_to_ms(seconds).unwrap()),
            Some(("depth", depth)) => TimeControl::Depth(depth.parse().unwrap()),
            Some(("nodes", nodes)) => TimeControl::Nodes(nodes.parse().unwrap()),
            _ => panic!("not a control: {control}"),
        };
        Clocks::new(ByColor::from_fn(|_| SideClock::new(control, MARGIN)))
    }

    #[test]
    fn the_increment_is_added_after_the_move() {
        let mut clocks = clocks("tc=1+0.1");
        assert_eq!(
            clocks.go_limits(Color::White),
            GoLimits::clock(1000, 1000, 100, 100)
        );
        assert_eq!(clocks.allowance(Color::White), ms(1100));
        assert_eq!(clocks.charge(Color::White, ms(300)), Ok(()));
        assert_eq!(clocks.side(Color::White).left(), Some(ms(700 + 100)));
        assert_eq!(clocks.allowance(Color::White), ms(800 + 100));
        assert_eq!(
            clocks.go_limits(Color::Black),
            GoLimits::clock(800, 1000, 100, 100)
        );
        assert_eq!(clocks.side(Color::Black).left(), Some(ms(1000)));
    }

    #[test]
    fn a_move_is_charged_the_exact_time_it_took() {
        let mut clocks = clocks("tc=1+0");
        let used = Duration::from_micros(300_600);
        for _ in 0..3 {
            clocks.charge(Color::White, used).unwrap();
        }
        assert_eq!(
            clocks.side(Color::White).left(),
            Some(Duration::from_micros(98_200))
        );
        assert_eq!(
            clocks.go_limits(Color::White),
            GoLimits::clock(98, 1000, 0, 0)
        );
    }

    #[test]
    fn the_margin_is_grace_not_credit() {
        let mut clocks = clocks("tc=1+0.05");
        assert_eq!(clocks.charge(Color::White, ms(1050)), Ok(()));
        assert_eq!(clocks.side(Color::White).left(), Some(ms(50)));
        assert_eq!(clocks.allowance(Color::White), ms(50 + 100));
        let late = clocks.charge(Color::White, ms(151)).unwrap_err();
        assert_eq!(late, Overstep::Clock { over: ms(101) });
        assert_eq!(late.to_string(), "101 ms over");
        assert_eq!(clocks.side(Color::White).left(), Some(ms(50)));
        assert_eq!(clocks.charge(Color::White, ms(150)), Ok(()));
        assert_eq!(clocks.side(Color::White).left(), Some(ms(50)));
        let just_late = Duration::from_micros(150_001);
        assert_eq!(
            clocks.charge(Color::White, just_late),
            Err(Overstep::Clock {
                over: Duration::from_micros(100_001)
            })
        );
    }

    #[test]
    fn a_fixed_time_per_move_does_not_accumulate() {
        let mut clocks = clocks("st=0.5");
        assert_eq!(clocks.go_limits(Color::White), GoLimits::movetime(500));
        assert_eq!(clocks.allowance(Color::White), ms(600));
        assert_eq!(clocks.charge(Color::White, ms(10)), Ok(()));
        assert_eq!(clocks.allowance(Color::White), ms(600));
        assert_eq!(clocks.go_limits(Color::White), GoLimits::movetime(500));
        assert_eq!(clocks.side(Color::White).left(), None);
        assert_eq!(clocks.charge(Color::White, ms(600)), Ok(()));
        assert_eq!(clocks.allowance(Color::White), ms(600));
        let late = clocks.charge(Color::White, ms(601)).unwrap_err();
        assert_eq!(
            late,
            Overstep::MoveTime {
                used: ms(601),
                limit: ms(500)
            }
        );
        assert_eq!(late.to_string(), "601 ms for a 500 ms move");
    }

    #[test]
    fn depth_and_nodes_limits_have_the_unclocked_allowance() {
        for (control, limits) in [
            ("depth=4", GoLimits::depth(4)),
            ("nodes=10000", GoLimits::nodes(10_000)),
        ] {
            let mut clocks = clocks(control);
            assert_eq!(clocks.go_limits(Color::Black), limits);
            assert_eq!(clocks.allowance(Color::Black), UNCLOCKED_MOVE_TIMEOUT);
            assert_eq!(clocks.charge(Color::Black, Duration::from_secs(59)), Ok(()));
            assert_eq!(clocks.allowance(Color::Black), UNCLOCKED_MOVE_TIMEOUT);
            assert_eq!(clocks.side(Color::Black).left(), None);
        }
    }

    #[test]
    fn a_clock_shows_an_unclocked_opponent_as_zero() {
        let clocks = Clocks::new(ByColor {
            white: SideClock::new(TimeControl::parse_clock("2+0.02").unwrap(), MARGIN),
            black: SideClock::new(TimeControl::Depth(3), MARGIN),
        });
        assert_eq!(
            clocks.go_limits(Color::White),
            GoLimits::clock(2000, 0, 20, 0)
        );
        assert_eq!(clocks.go_limits(Color::Black), GoLimits::depth(3));
    }

    #[test]
    fn a_control_searched_alone_sends_its_full_limits() {
        let clock = TimeControl::parse_clock("8+0.08").unwrap();
        assert_eq!(clock.go_limits(), GoLimits::clock(8000, 8000, 80, 80));
        assert_eq!(
            TimeControl::MoveTime(250).go_limits(),
            GoLimits::movetime(250)
        );
        assert_eq!(TimeControl::Nodes(7).go_limits(), GoLimits::nodes(7));
    }
}
