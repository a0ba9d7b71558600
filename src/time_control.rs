//! Time controls: how long an engine may think ([`TimeControl`], the `tc=`, `st=`, `depth=`
//! and `nodes=` engine keys), and the clocks of a game that keep them ([`Clocks`]).
//!
//! For users (`docs/guide/tournaments.md`, "Clocks"): the runner keeps the clocks, a move is
//! charged from `go` to `bestmove`, and the margin is grace, never time on the clock.
//!
//! The runner, not the engine, keeps the time: a move is charged the exact time from `go` to
//! `bestmove` ([`Clocks::charge`]); the increment is added after the move; the margin
//! (`timemargin=`) is grace for a late move, never time on the clock.

use crate::protocol::GoLimits;
use crate::rules::{ByColor, Color};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::num::NonZeroU32;
use std::time::Duration;

/// How long an engine searching to a fixed depth or node count may take for one move before it
/// loses on time.
pub const UNCLOCKED_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long an engine may think: the search limit sent with every `go`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeControl {
    /// A clock: `base_ms` for the game (or for every `moves` moves) plus `increment_ms` after
    /// each move (`tc=BASE+INC` or `tc=MOVES/BASE+INC`, in seconds on the command line).
    Clock {
        /// Time for the whole game, or for each period of `moves` moves, ms.
        base_ms: u64,
        /// Time added after each move, ms.
        increment_ms: u64,
        /// Moves per period (cutechess's `40/60`): after each `moves` moves of a side, its
        /// clock gets `base_ms` more, and `go` sends the moves left as `movestogo`. `None`:
        /// the base is for the whole game (sudden death).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moves: Option<NonZeroU32>,
    },
    /// A fixed time per move, ms (`st=SECONDS`).
    MoveTime(u64),
    /// A fixed depth in plies (`depth=N`).
    Depth(u32),
    /// A fixed number of nodes (`nodes=N`).
    Nodes(u64),
    /// CodinGame's clock (`tc=codingame`, `tc=codingame:FIRST,TURN` in ms): a side's first
    /// turn may take `first_ms`, every later one `turn_ms`; unused time is not kept. Sent to a
    /// UGI/UCI engine as `movetime` of the turn's limit.
    #[serde(rename = "codingame")]
    CodinGame {
        /// The limit of a side's first turn, ms (CodinGame: 1000).
        first_ms: u64,
        /// The limit of every later turn, ms (CodinGame: 100).
        turn_ms: u64,
    },
}

/// CodinGame's limit of a bot's first turn, ms.
pub const CODINGAME_FIRST_MS: u64 = 1000;
/// CodinGame's limit of a bot's later turns, ms.
pub const CODINGAME_TURN_MS: u64 = 100;

/// The word of `tc=` that names CodinGame's clock.
const CODINGAME_TC: &str = "codingame";

/// Why a time given to `tc=`, `st=` or a timeout is refused: the text and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockError {
    /// The whole value given (`tc=`'s).
    pub text: String,
    /// What is wrong.
    pub problem: ClockProblem,
}

/// What is wrong with a time ([`ClockError`]); each names the part at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockProblem {
    /// Not a number of seconds.
    NotSeconds(String),
    /// Negative, or beyond a billion seconds.
    OutOfRange(String),
    /// `M:SS` minutes that are not a whole number.
    NotMinutes(String),
    /// `M:SS` seconds of 60 or more.
    SecondsOver60(String),
    /// A time beyond a billion seconds.
    TooLong(String),
    /// `MOVES/` that is not a positive whole number.
    NotMoves(String),
    /// A base of 0: the first move would have no time.
    ZeroBase,
    /// `codingame:` not followed by two positive whole numbers of ms.
    CodinGame,
}

impl fmt::Display for ClockProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockProblem::NotSeconds(v) => write!(f, "'{v}' is not a number of seconds"),
            ClockProblem::OutOfRange(v) => {
                write!(f, "'{v}' is not a non-negative number of seconds")
            }
            ClockProblem::NotMinutes(v) => {
                write!(f, "'{v}' is not a whole number of minutes (in M:SS)")
            }
            ClockProblem::SecondsOver60(v) => write!(f, "'{v}' is not below 60 seconds (in M:SS)"),
            ClockProblem::TooLong(v) => write!(f, "'{v}' is too long a time"),
            ClockProblem::NotMoves(v) => write!(f, "'{v}' is not a positive whole number of moves"),
            ClockProblem::ZeroBase => f.write_str("the base time must be more than 0 ms"),
            ClockProblem::CodinGame => f.write_str(
                "expected codingame or codingame:FIRST,TURN, the limits of the first and of \
                 each later turn in whole ms (codingame:1000,100 is CodinGame's)",
            ),
        }
    }
}

impl fmt::Display for ClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad tc '{}': {}", self.text, self.problem)
    }
}

impl std::error::Error for ClockError {}

impl TimeControl {
    /// Parses `[MOVES/]BASE[+INC]`, times in seconds (decimals allowed): `10+0.1`, `8`, or
    /// cutechess's `40/60+0.6` (60 s for every 40 moves, 0.6 s added after each move). BASE
    /// may also be minutes and seconds, as cutechess-cli and fastchess write it: `0:10+0.1`
    /// is `10+0.1`, `1:30` is `90`.
    ///
    /// # Errors
    /// [`ClockError`] naming the bad value, or a base of 0 (the first move would have no
    /// time).
    pub fn parse_clock(text: &str) -> Result<TimeControl, ClockError> {
        let bad = |problem| ClockError {
            text: text.to_string(),
            problem,
        };
        let (moves, clock) = match text.split_once('/') {
            Some((moves, clock)) => (Some(parse_moves(moves).map_err(bad)?), clock),
            None => (None, text),
        };
        let (base, increment) = clock.split_once('+').unwrap_or((clock, "0"));
        let base_ms = base_to_ms(base).map_err(bad)?;
        if base_ms == 0 {
            // The increment comes after a move (cutechess): the first move has the base alone.
            return Err(bad(ClockProblem::ZeroBase));
        }
        Ok(TimeControl::Clock {
            base_ms,
            increment_ms: seconds_to_ms(increment).map_err(bad)?,
            moves,
        })
    }
}

impl TimeControl {
    /// CodinGame's own clock: 1000 ms for a side's first turn, 100 ms for each later one.
    pub const fn codingame() -> TimeControl {
        TimeControl::CodinGame {
            first_ms: CODINGAME_FIRST_MS,
            turn_ms: CODINGAME_TURN_MS,
        }
    }

    /// Reads `tc=codingame` (CodinGame's 1000 ms first turn and 100 ms later turns) or
    /// `tc=codingame:FIRST,TURN`, both in whole ms (`codingame:1000,200`); `None` for a value
    /// that does not start with `codingame` (a clock, for [`parse_clock`](Self::parse_clock)).
    ///
    /// # Errors
    /// [`ClockProblem::CodinGame`]: not two positive whole numbers of ms after the colon.
    pub fn parse_codingame(text: &str) -> Option<Result<TimeControl, ClockError>> {
        let rest = text.strip_prefix(CODINGAME_TC)?;
        if rest.is_empty() {
            return Some(Ok(TimeControl::codingame()));
        }
        let bad = || ClockError {
            text: text.to_string(),
            problem: ClockProblem::CodinGame,
        };
        let limits = rest.strip_prefix(':').and_then(|ms| ms.split_once(','));
        let ms = |text: &str| text.trim().parse::<u64>().ok().filter(|&ms| ms > 0);
        Some(match limits.map(|(first, turn)| (ms(first), ms(turn))) {
            Some((Some(first_ms), Some(turn_ms))) => {
                Ok(TimeControl::CodinGame { first_ms, turn_ms })
            }
            _ => Err(bad()),
        })
    }

    /// This limit with its times multiplied by `factor` (OpenBench's time control scaling by
    /// machine speed): a clock's base and increment, or a move time, each rounded to the
    /// millisecond; a depth or node limit is returned as it is. A non-finite or negative
    /// factor leaves the limit unchanged.
    pub fn scaled(self, factor: f64) -> TimeControl {
        if !factor.is_finite() || factor < 0.0 {
            return self;
        }
        // Rounded and clamped to u64's range (a float-to-int `as` saturates).
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let scale = |ms: u64| (ms as f64 * factor).round() as u64;
        match self {
            TimeControl::Clock {
                base_ms,
                increment_ms,
                moves,
            } => TimeControl::Clock {
                base_ms: scale(base_ms),
                increment_ms: scale(increment_ms),
                moves,
            },
            TimeControl::MoveTime(ms) => TimeControl::MoveTime(scale(ms)),
            TimeControl::CodinGame { first_ms, turn_ms } => TimeControl::CodinGame {
                first_ms: scale(first_ms),
                turn_ms: scale(turn_ms),
            },
            fixed @ (TimeControl::Depth(_) | TimeControl::Nodes(_)) => fixed,
        }
    }

    /// The PGN `TimeControl` tag value, as cutechess-cli and fastchess write it: a clock as
    /// `BASE+INC` in seconds (`10+0.1`; `8` without an increment), with its moves per period in
    /// front (`40/60+0.6`); `-` for a fixed limit per move (time, depth or nodes), which the
    /// `X-Limit` tag then names with [`Display`](fmt::Display) (`st=0.5`, `depth=3`).
    pub fn pgn_tag(&self) -> String {
        match self {
            TimeControl::Clock {
                base_ms,
                increment_ms,
                moves,
            } => clock_text(*base_ms, *increment_ms, *moves, false),
            _ => "-".to_string(),
        }
    }

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
                moves,
            } => write!(
                f,
                "tc={}",
                clock_text(*base_ms, *increment_ms, *moves, true)
            ),
            TimeControl::MoveTime(ms) => write!(f, "st={}", Seconds(*ms)),
            TimeControl::CodinGame {
                first_ms: CODINGAME_FIRST_MS,
                turn_ms: CODINGAME_TURN_MS,
            } => write!(f, "tc={CODINGAME_TC}"),
            TimeControl::CodinGame { first_ms, turn_ms } => {
                write!(f, "tc={CODINGAME_TC}:{first_ms},{turn_ms}")
            }
            TimeControl::Depth(depth) => write!(f, "depth={depth}"),
            TimeControl::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

/// A clock as `[MOVES/]BASE+INC` in seconds (`40/60+0.6`); without `+INC` when the increment
/// is 0, unless `with_zero_increment`.
fn clock_text(
    base_ms: u64,
    increment_ms: u64,
    moves: Option<NonZeroU32>,
    with_zero_increment: bool,
) -> String {
    let period = moves.map_or(String::new(), |moves| format!("{moves}/"));
    if increment_ms == 0 && !with_zero_increment {
        format!("{period}{}", Seconds(base_ms))
    } else {
        format!("{period}{}+{}", Seconds(base_ms), Seconds(increment_ms))
    }
}

/// Milliseconds written as seconds, exactly and without trailing zeros: `2`, `0.02`, `1.5`.
struct Seconds(u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (seconds, ms) = (self.0 / 1000, self.0 % 1000);
        if ms == 0 {
            write!(f, "{seconds}")
        } else {
            let fraction = format!("{ms:03}");
            write!(f, "{seconds}.{}", fraction.trim_end_matches('0'))
        }
    }
}

/// Seconds (a non-negative decimal) to milliseconds, rounded to the nearest.
pub(crate) fn seconds_to_ms(text: &str) -> Result<u64, ClockProblem> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| ClockProblem::NotSeconds(text.to_string()))?;
    let negative = || ClockProblem::OutOfRange(text.to_string());
    if !(0.0..=1e9).contains(&seconds) {
        return Err(negative());
    }
    let exact = Duration::try_from_secs_f64(seconds).map_err(|_| negative())?;
    Ok(whole_ms(exact.saturating_add(Duration::from_micros(500))))
}

/// A clock's base: seconds, or `M:SS` minutes and seconds (`1:30`, `0:10.5`).
fn base_to_ms(text: &str) -> Result<u64, ClockProblem> {
    let Some((minutes, seconds)) = text.split_once(':') else {
        return seconds_to_ms(text);
    };
    let minutes: u64 = minutes
        .trim()
        .parse()
        .map_err(|_| ClockProblem::NotMinutes(minutes.to_string()))?;
    let seconds_ms = seconds_to_ms(seconds)?;
    if seconds_ms >= 60_000 {
        return Err(ClockProblem::SecondsOver60(seconds.to_string()));
    }
    minutes
        .checked_mul(60_000)
        .and_then(|ms| ms.checked_add(seconds_ms))
        .filter(|&ms| ms <= 1_000_000_000_000)
        .ok_or_else(|| ClockProblem::TooLong(text.to_string()))
}

/// The moves of a period: a positive whole number.
fn parse_moves(text: &str) -> Result<NonZeroU32, ClockProblem> {
    text.trim()
        .parse()
        .map_err(|_| ClockProblem::NotMoves(text.to_string()))
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
        /// The refill every so many moves, if the control has periods.
        period: Option<Period>,
    },
    /// A fixed time per move: every move gets all of it, and unused time is not kept.
    MoveTime(Duration),
    /// CodinGame's clock: `first` for the side's first turn, `turn` for each later one.
    CodinGame {
        /// The first turn's limit.
        first: Duration,
        /// Each later turn's limit.
        turn: Duration,
        /// The side's turns played so far in the game.
        played: u32,
    },
    /// A fixed depth in plies: the engine decides when to stop.
    Depth(u32),
    /// A fixed number of nodes: the engine decides when to stop.
    Nodes(u64),
}

impl Budget {
    /// The limit of the next turn under CodinGame's clock (the first turn's until one is
    /// played); zero for other budgets.
    fn turn_limit(&self) -> Duration {
        match *self {
            Budget::CodinGame {
                first,
                turn,
                played,
            } => match played {
                0 => first,
                _ => turn,
            },
            _ => Duration::ZERO,
        }
    }
}

/// The periods of a `MOVES/BASE` clock: `base` more after every `moves` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Period {
    /// Added to the clock at the end of each period.
    base: Duration,
    /// Moves per period.
    moves: NonZeroU32,
    /// Moves left in this period, this one included (`movestogo`).
    moves_left: NonZeroU32,
}

impl Period {
    /// Counts a move played: at the end of the period, `left` gets the base again and a new
    /// period starts.
    fn count_move(&mut self, left: &mut Duration) {
        match NonZeroU32::new(self.moves_left.get() - 1) {
            Some(moves_left) => self.moves_left = moves_left,
            None => {
                *left = left.saturating_add(self.base);
                self.moves_left = self.moves;
            }
        }
    }
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
    /// Turn `turn` (the side's, from 1) took `used` of its `limit` (CodinGame's clock).
    Turn {
        /// The side's turn, from 1.
        turn: u32,
        /// The time the turn took.
        used: Duration,
        /// The turn's limit.
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
            Overstep::Turn { turn, used, limit } => write!(
                f,
                "{} ms on its turn {turn}, of {} ms",
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
                moves,
            } => Budget::Clock {
                left: Duration::from_millis(base_ms),
                increment: Duration::from_millis(increment_ms),
                period: moves.map(|moves| Period {
                    base: Duration::from_millis(base_ms),
                    moves,
                    moves_left: moves,
                }),
            },
            TimeControl::MoveTime(ms) => Budget::MoveTime(Duration::from_millis(ms)),
            TimeControl::CodinGame { first_ms, turn_ms } => Budget::CodinGame {
                first: Duration::from_millis(first_ms),
                turn: Duration::from_millis(turn_ms),
                played: 0,
            },
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
    /// (the increment comes after the move), the fixed time per move or the turn's limit under
    /// CodinGame's clock (the first turn's, then each later turn's), plus the margin; a fixed
    /// depth or node count has [`UNCLOCKED_MOVE_TIMEOUT`].
    pub fn allowance(&self) -> Duration {
        match self.budget {
            Budget::Clock { left, .. } => left.saturating_add(self.margin),
            Budget::MoveTime(limit) => limit.saturating_add(self.margin),
            Budget::CodinGame { .. } => self.budget.turn_limit().saturating_add(self.margin),
            Budget::Depth(_) | Budget::Nodes(_) => UNCLOCKED_MOVE_TIMEOUT,
        }
    }

    /// Charges a move that took `used` (from `go` to `bestmove`, exactly): the clock loses
    /// `used` (down to zero at most: an overdraft within the margin is forgiven, not owed),
    /// then gains the increment, and the base again when the move ends a period.
    ///
    /// # Errors
    /// [`Overstep`] when `used` is beyond the time left (or the fixed time per move, or the
    /// turn's limit) plus the margin; the clock is then left as it was. A fixed depth or node count is never late
    /// here (the engine is given [`UNCLOCKED_MOVE_TIMEOUT`] to answer).
    pub fn charge(&mut self, used: Duration) -> Result<(), Overstep> {
        let margin = self.margin;
        let turn_limit = self.budget.turn_limit();
        match &mut self.budget {
            Budget::Clock {
                left,
                increment,
                period,
            } => {
                if used > left.saturating_add(margin) {
                    return Err(Overstep::Clock { over: used - *left });
                }
                *left = left.saturating_sub(used).saturating_add(*increment);
                if let Some(period) = period {
                    period.count_move(left);
                }
                Ok(())
            }
            Budget::MoveTime(limit) if used > limit.saturating_add(margin) => {
                Err(Overstep::MoveTime {
                    used,
                    limit: *limit,
                })
            }
            Budget::CodinGame { played, .. } => {
                let limit = turn_limit;
                let turn = played.saturating_add(1);
                if used > limit.saturating_add(margin) {
                    return Err(Overstep::Turn { turn, used, limit });
                }
                *played = turn;
                Ok(())
            }
            Budget::MoveTime(_) | Budget::Depth(_) | Budget::Nodes(_) => Ok(()),
        }
    }

    /// Time left and increment for `go`, in whole ms (rounded down): a side without a clock
    /// shows 0 and 0.
    fn clock_ms(&self) -> (u64, u64) {
        match self.budget {
            Budget::Clock {
                left, increment, ..
            } => (whole_ms(left), whole_ms(increment)),
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
    /// (a side playing without a clock shows 0) and, with periods, the moves left in the
    /// mover's (`movestogo`); otherwise the side's fixed limit.
    pub fn go_limits(&self, side: Color) -> GoLimits {
        match self.0[side].budget {
            Budget::Clock { period, .. } => {
                let (white_ms, white_inc_ms) = self.0.white.clock_ms();
                let (black_ms, black_inc_ms) = self.0.black.clock_ms();
                GoLimits {
                    moves_to_go: period.map(|period| period.moves_left.get()),
                    ..GoLimits::clock(white_ms, black_ms, white_inc_ms, black_inc_ms)
                }
            }
            Budget::MoveTime(limit) => GoLimits::movetime(whole_ms(limit)),
            budget @ Budget::CodinGame { .. } => GoLimits::movetime(whole_ms(budget.turn_limit())),
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
pub fn whole_ms(duration: Duration) -> u64 {
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

    #[test]
    fn moves_to_go_counts_down_and_each_period_refills_the_clock() {
        let mut clocks = clocks("tc=3/1+0.1");
        let with_moves = |white_ms, black_ms, moves_to_go| GoLimits {
            moves_to_go: Some(moves_to_go),
            ..GoLimits::clock(white_ms, black_ms, 100, 100)
        };
        assert_eq!(clocks.go_limits(Color::White), with_moves(1000, 1000, 3));
        clocks.charge(Color::White, ms(200)).unwrap();
        assert_eq!(clocks.go_limits(Color::Black), with_moves(900, 1000, 3));
        assert_eq!(clocks.go_limits(Color::White), with_moves(900, 1000, 2));
        clocks.charge(Color::White, ms(200)).unwrap();
        assert_eq!(clocks.go_limits(Color::White), with_moves(800, 1000, 1));
        assert_eq!(clocks.allowance(Color::White), ms(800 + 100));
        clocks.charge(Color::White, ms(300)).unwrap();
        assert_eq!(clocks.side(Color::White).left(), Some(ms(500 + 100 + 1000)));
        assert_eq!(clocks.go_limits(Color::White), with_moves(1600, 1000, 3));
        let late = clocks.charge(Color::Black, ms(1101));
        assert_eq!(late, Err(Overstep::Clock { over: ms(101) }));
        assert_eq!(clocks.go_limits(Color::Black), with_moves(1600, 1000, 3));
    }

    #[test]
    fn a_period_without_increment_refills_only_at_its_end() {
        let mut clocks = clocks("tc=2/0.5");
        for _ in 0..4 {
            clocks.charge(Color::Black, ms(400)).unwrap();
            assert_eq!(clocks.side(Color::Black).left(), Some(ms(100)));
            assert_eq!(clocks.go_limits(Color::Black).moves_to_go, Some(1));
            clocks.charge(Color::Black, ms(150)).unwrap();
            assert_eq!(clocks.side(Color::Black).left(), Some(ms(500)));
        }
        let limits = clocks.go_limits(Color::Black);
        assert_eq!(
            (
                limits.moves_to_go,
                limits.black_time_ms,
                limits.black_inc_ms
            ),
            (Some(2), Some(500), Some(0))
        );
    }

    #[test]
    fn codingames_clock_gives_the_first_turn_its_own_limit() {
        let mut clocks = Clocks::new(ByColor::from_fn(|_| {
            SideClock::new(TimeControl::codingame(), Duration::ZERO)
        }));
        assert_eq!(clocks.allowance(Color::White), ms(1000));
        assert_eq!(clocks.go_limits(Color::White), GoLimits::movetime(1000));
        assert_eq!(clocks.charge(Color::White, ms(900)), Ok(()));
        assert_eq!(clocks.allowance(Color::White), ms(100));
        assert_eq!(clocks.go_limits(Color::White), GoLimits::movetime(100));
        assert_eq!(clocks.allowance(Color::Black), ms(1000));
        assert_eq!(clocks.charge(Color::White, ms(100)), Ok(()));
        let late = clocks.charge(Color::White, Duration::from_micros(100_001));
        assert_eq!(
            late,
            Err(Overstep::Turn {
                turn: 3,
                used: Duration::from_micros(100_001),
                limit: ms(100)
            })
        );
        assert_eq!(
            late.unwrap_err().to_string(),
            "100 ms on its turn 3, of 100 ms"
        );
        assert_eq!(clocks.side(Color::White).left(), None);
        let mut margin = SideClock::new(TimeControl::codingame(), ms(60));
        assert_eq!(margin.charge(ms(1060)), Ok(()));
        assert_eq!(margin.charge(ms(150)), Ok(()));
        assert_eq!(margin.allowance(), ms(160));
        assert!(margin.charge(ms(161)).is_err());
    }

    #[test]
    fn codingames_clock_is_written_as_it_is_read() {
        let parse = |text: &str| TimeControl::parse_codingame(text);
        assert_eq!(parse("codingame"), Some(Ok(TimeControl::codingame())));
        let wider = TimeControl::CodinGame {
            first_ms: 1000,
            turn_ms: 200,
        };
        assert_eq!(parse("codingame:1000,200"), Some(Ok(wider)));
        assert_eq!(TimeControl::codingame().to_string(), "tc=codingame");
        assert_eq!(wider.to_string(), "tc=codingame:1000,200");
        assert_eq!(wider.pgn_tag(), "-");
        assert_eq!(parse("10+0.1"), None);
        for bad in [
            "codingame:",
            "codingame:100",
            "codingame:0,100",
            "codingame:1s,100ms",
            "codingamex",
        ] {
            assert_eq!(
                parse(bad),
                Some(Err(ClockError {
                    text: bad.to_string(),
                    problem: ClockProblem::CodinGame
                })),
                "{bad}"
            );
        }
        assert_eq!(
            TimeControl::codingame().scaled(2.0),
            TimeControl::CodinGame {
                first_ms: 2000,
                turn_ms: 200
            }
        );
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Engine {
            limit: TimeControl,
        }
        let json = serde_json::to_string(&Engine { limit: wider }).unwrap();
        assert_eq!(
            json,
            r#"{"limit":{"codingame":{"first_ms":1000,"turn_ms":200}}}"#
        );
        assert_eq!(serde_json::from_str::<Engine>(&json).unwrap().limit, wider);
    }

    #[test]
    fn clock_syntax_parses_and_prints_back() {
        let parse = |text: &str| TimeControl::parse_clock(text).unwrap();
        let moves = NonZeroU32::new(40);
        assert_eq!(
            parse("40/60+0.6"),
            TimeControl::Clock {
                base_ms: 60_000,
                increment_ms: 600,
                moves
            }
        );
        assert_eq!(
            parse("40/60"),
            TimeControl::Clock {
                base_ms: 60_000,
                increment_ms: 0,
                moves
            }
        );
        for (text, shown) in [
            ("40/60+0.6", "tc=40/60+0.6"),
            ("40/60", "tc=40/60+0"),
            ("10+0.1", "tc=10+0.1"),
            ("8", "tc=8+0"),
            ("2+0.02", "tc=2+0.02"),
            ("0.001+1.25", "tc=0.001+1.25"),
        ] {
            assert_eq!(parse(text).to_string(), shown);
            assert_eq!(parse(&shown["tc=".len()..]), parse(text));
        }
        assert_eq!(TimeControl::MoveTime(1500).to_string(), "st=1.5");
        assert_eq!(TimeControl::MoveTime(250).to_string(), "st=0.25");
        assert_eq!(TimeControl::Depth(3).to_string(), "depth=3");
        let with_moves = parse("40/60+0.6").go_limits();
        assert_eq!(with_moves.moves_to_go, Some(40));
        assert_eq!(with_moves.white_time_ms, Some(60_000));
    }

    #[test]
    fn a_base_in_minutes_and_seconds_is_read_as_cutechess_writes_it() {
        let parse = |text: &str| TimeControl::parse_clock(text).unwrap();
        assert_eq!(parse("0:10+0.1"), parse("10+0.1"));
        assert_eq!(parse("1:00+1"), parse("60+1"));
        assert_eq!(parse("40/1:30"), parse("40/90"));
        assert_eq!(parse("2:05.5"), parse("125.5"));
        let err = |text: &str| TimeControl::parse_clock(text).unwrap_err().to_string();
        assert_eq!(
            err("1:60"),
            "bad tc '1:60': '60' is not below 60 seconds (in M:SS)"
        );
        assert_eq!(
            err("x:10"),
            "bad tc 'x:10': 'x' is not a whole number of minutes (in M:SS)"
        );
        assert_eq!(
            err("1:2:3"),
            "bad tc '1:2:3': '2:3' is not a number of seconds"
        );
        assert_eq!(
            err("10+0:01"),
            "bad tc '10+0:01': '0:01' is not a number of seconds"
        );
    }

    #[test]
    fn bad_clocks_are_named() {
        let err = |text: &str| TimeControl::parse_clock(text).unwrap_err().to_string();
        // No time for the first move (the increment comes after it).
        for zero in ["0", "0+0.1", "40/0", "0:00+1"] {
            assert_eq!(
                err(zero),
                format!("bad tc '{zero}': the base time must be more than 0 ms")
            );
        }
        assert_eq!(
            err("0/60"),
            "bad tc '0/60': '0' is not a positive whole number of moves"
        );
        assert_eq!(
            err("x/60+1"),
            "bad tc 'x/60+1': 'x' is not a positive whole number of moves"
        );
        assert_eq!(err("40/"), "bad tc '40/': '' is not a number of seconds");
        assert_eq!(
            err("40/60/2"),
            "bad tc '40/60/2': '60/2' is not a number of seconds"
        );
        assert_eq!(
            err("40/-1"),
            "bad tc '40/-1': '-1' is not a non-negative number of seconds"
        );
    }

    #[test]
    fn seconds_round_to_the_nearest_ms() {
        for (text, expected) in [
            ("0.3", 300),
            ("0.0005", 1),
            ("0.0004", 0),
            ("1e-3", 1),
            ("8", 8000),
            (" 2.5 ", 2500),
        ] {
            assert_eq!(seconds_to_ms(text), Ok(expected), "{text}");
        }
        assert!(seconds_to_ms("NaN").is_err());
        assert!(seconds_to_ms("inf").is_err());
    }

    #[test]
    fn periods_are_saved_in_config_files_and_sudden_death_as_before() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Engine {
            limit: TimeControl,
        }
        let periods = Engine {
            limit: TimeControl::parse_clock("40/60+0.6").unwrap(),
        };
        let json = serde_json::to_string(&periods).unwrap();
        assert_eq!(
            json,
            r#"{"limit":{"clock":{"base_ms":60000,"increment_ms":600,"moves":40}}}"#
        );
        assert_eq!(serde_json::from_str::<Engine>(&json).unwrap(), periods);
        let toml_text = "limit = { clock = { moves = 40, base_ms = 60000, increment_ms = 600 } }";
        assert_eq!(toml::from_str::<Engine>(toml_text).unwrap(), periods);
        assert_eq!(
            toml::from_str::<Engine>(&toml::to_string(&periods).unwrap()).unwrap(),
            periods
        );
        let sudden = r#"{"limit":{"clock":{"base_ms":2000,"increment_ms":20}}}"#;
        let old: Engine = serde_json::from_str(sudden).unwrap();
        assert_eq!(old.limit, TimeControl::parse_clock("2+0.02").unwrap());
        assert_eq!(serde_json::to_string(&old).unwrap(), sudden);
        let zero = r#"{"limit":{"clock":{"base_ms":1,"increment_ms":0,"moves":0}}}"#;
        assert!(serde_json::from_str::<Engine>(zero).is_err());
    }
}
