//! One game between two running engines: clocks, the move loop and adjudication.
//!
//! The runner, not the engines, decides how a game ends. Every reply is checked with the
//! reference rules before it is applied: a move that is not a move or is illegal loses
//! (`illegal-move`), as do a late move (`time-forfeit`), an engine that dies (`crash`) or stops
//! answering `isready` (`stall`). Otherwise the rules end the game (`goal-rank`,
//! `all-captured`, `no-moves`). A `bestmove` that answers no request is never played (the
//! engine fences each `go`, see [`Engine::go`]); the stray lines each engine wrote during the
//! game are reported with it ([`PlayedGame::stray`]) and do not decide it.

use super::config::{EngineSpec, TimeControl};
use crate::engine::protocol::{GoLimits, Info, Score};
use crate::engine::{Engine, EngineError, StrayOutput};
use crate::results::Termination;
use crate::results::moves::{MoveInfo, MoveScore};
use crate::rules::{Color, Move, MoveError, Position, Rules};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long an engine searching to a fixed depth or node count may take for one move before it
/// loses on time.
pub const UNCLOCKED_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGame {
    /// The side that won.
    pub winner: Color,
    /// How the game ended.
    pub termination: Termination,
    /// The moves played, from the opening.
    pub moves: Vec<Move>,
    /// Thinking time used by White and Black, ms.
    pub used_ms: [u64; 2],
    /// The side whose engine misbehaved (its process should not be reused), if any.
    pub faulty: Option<Color>,
    /// What happened, for people: `White reached rank 8`, `Black's move a7a5 is illegal: ...`.
    pub detail: String,
    /// Output of White's and Black's engine that answered no request, read during the game
    /// (including what the previous game of the same process left unread): never played.
    pub stray: [StrayOutput; 2],
    /// What the mover's engine reported for each move of `moves`, and the time it took.
    pub infos: Vec<MoveInfo>,
}

/// Why a game was not finished.
#[derive(Debug)]
pub enum Unfinished {
    /// The run is stopping (Ctrl-C): the game is dropped and will be played on resume.
    Interrupted,
}

/// A side's clock, in ms; negative once its flag has fallen.
#[derive(Clone, Copy, Debug)]
struct Clock {
    remaining_ms: i64,
    increment_ms: i64,
}

/// The two players of a game: engines and their specs, indexed by [`Color::index`].
pub struct Players<'a> {
    /// The running engines, White first.
    pub engines: [&'a mut Engine; 2],
    /// Their specs, White first.
    pub specs: [&'a EngineSpec; 2],
}

/// Plays one game from `opening` under `rules`, checking `stop` between moves, and collects
/// the engines' stray output ([`PlayedGame::stray`]) and what they reported for each move
/// ([`PlayedGame::infos`]).
///
/// # Errors
/// [`Unfinished::Interrupted`] when `stop` is set before the game ends.
pub fn play(
    players: &mut Players<'_>,
    opening: &Position,
    rules: Rules,
    stop: &AtomicBool,
) -> Result<PlayedGame, Unfinished> {
    let mut infos = Vec::new();
    let played = play_moves(players, opening, rules, stop, &mut infos);
    let stray = [0, 1].map(|side| players.engines[side].take_stray());
    played.map(|game| PlayedGame {
        stray,
        infos,
        ..game
    })
}

/// The game itself, as [`play`] describes it, with no stray output recorded yet; what the
/// engines reported for each move played goes to `infos`.
fn play_moves(
    players: &mut Players<'_>,
    opening: &Position,
    rules: Rules,
    stop: &AtomicBool,
    infos: &mut Vec<MoveInfo>,
) -> Result<PlayedGame, Unfinished> {
    let mut clocks = players.specs.map(|spec| match spec.limit {
        TimeControl::Clock {
            base_ms,
            increment_ms,
        } => Some(Clock {
            remaining_ms: base_ms as i64,
            increment_ms: increment_ms as i64,
        }),
        _ => None,
    });
    let mut used_ms = [0u64; 2];
    let mut moves = Vec::new();
    let mut position = *opening;
    for side in [Color::White, Color::Black] {
        if let Err(error) = players.engines[side.index()].new_game() {
            return Ok(fault(side, &error, moves, used_ms));
        }
    }
    loop {
        if let Some(outcome) = position.outcome(rules) {
            return Ok(PlayedGame {
                winner: outcome.winner,
                termination: outcome.reason.into(),
                moves,
                used_ms,
                faulty: None,
                detail: outcome.to_string(),
                stray: Default::default(),
                infos: Vec::new(),
            });
        }
        if stop.load(Ordering::SeqCst) {
            return Err(Unfinished::Interrupted);
        }
        let side = position.side_to_move();
        let us = side.index();
        let spec = players.specs[us];
        let limits = go_limits(spec.limit, &clocks);
        let started = Instant::now();
        let allowed = move_allowance(spec, clocks[us]);
        let reply = players.engines[us].go(opening, &moves, &limits, allowed);
        let elapsed = started.elapsed();
        used_ms[us] += elapsed.as_millis() as u64;
        let (bestmove, info) = match reply {
            Ok(reply) => (reply.bestmove, move_info(&reply.info, elapsed)),
            Err(error) => return Ok(fault(side, &error, moves, used_ms)),
        };
        if let Some(late) = overstep(spec, &mut clocks[us], elapsed) {
            return Ok(forfeit(
                side,
                Termination::TimeForfeit,
                late,
                moves,
                used_ms,
            ));
        }
        match position.parse_move(rules, &bestmove) {
            Ok(mv) => {
                moves.push(mv);
                infos.push(info);
                position = position.play_unchecked(mv);
            }
            Err(error) => {
                let why = match error {
                    MoveError::Syntax(err) => err.to_string(),
                    MoveError::Illegal(err) => err.reason.to_string(),
                };
                let detail = format!("{side}'s move '{bestmove}' is illegal: {why}");
                return Ok(forfeit(
                    side,
                    Termination::IllegalMove,
                    detail,
                    moves,
                    used_ms,
                ));
            }
        }
    }
}

/// What an engine reported for a move (its merged `info`) and the time the move took.
fn move_info(info: &Info, elapsed: Duration) -> MoveInfo {
    MoveInfo {
        score: info.score.map(|score| match score {
            Score::Cp(cp) => MoveScore::Cp(cp),
            Score::Mate(moves) => MoveScore::Mate(moves),
        }),
        depth: info.depth,
        seldepth: info.seldepth,
        nodes: info.nodes,
        time_ms: elapsed.as_millis() as u64,
        pv: info.pv.clone(),
    }
}

/// The `go` limits for the side to move: both clocks, or the fixed limit.
fn go_limits(limit: TimeControl, clocks: &[Option<Clock>; 2]) -> GoLimits {
    match limit {
        TimeControl::Clock { .. } => {
            let remaining = |c: Option<Clock>| c.map_or(0, |c| c.remaining_ms.max(0) as u64);
            let increment = |c: Option<Clock>| c.map_or(0, |c| c.increment_ms as u64);
            GoLimits::clock(
                remaining(clocks[0]),
                remaining(clocks[1]),
                increment(clocks[0]),
                increment(clocks[1]),
            )
        }
        fixed => fixed.go_limits(),
    }
}

/// How long to wait for a move before the engine loses on time.
fn move_allowance(spec: &EngineSpec, clock: Option<Clock>) -> Duration {
    let margin = Duration::from_millis(spec.time_margin_ms);
    match (spec.limit, clock) {
        (TimeControl::Clock { .. }, Some(clock)) => {
            Duration::from_millis(clock.remaining_ms.max(0) as u64) + margin
        }
        (TimeControl::MoveTime(ms), _) => Duration::from_millis(ms) + margin,
        _ => UNCLOCKED_MOVE_TIMEOUT,
    }
}

/// Charges `elapsed` to the mover's clock and adds the increment; returns a description when
/// the move came too late (beyond the clock or the fixed move time, plus the margin).
fn overstep(spec: &EngineSpec, clock: &mut Option<Clock>, elapsed: Duration) -> Option<String> {
    let elapsed_ms = elapsed.as_millis() as i64;
    let margin = spec.time_margin_ms as i64;
    match (spec.limit, clock.as_mut()) {
        (TimeControl::Clock { .. }, Some(clock)) => {
            clock.remaining_ms -= elapsed_ms;
            if clock.remaining_ms < -margin {
                return Some(format!(
                    "{} lost on time ({} ms over)",
                    spec.name, -clock.remaining_ms
                ));
            }
            clock.remaining_ms = clock.remaining_ms.max(0) + clock.increment_ms;
            None
        }
        (TimeControl::MoveTime(ms), _) if elapsed_ms > ms as i64 + margin => Some(format!(
            "{} lost on time ({elapsed_ms} ms for a {ms} ms move)",
            spec.name
        )),
        _ => None,
    }
}

/// The game lost by `side` because its engine failed with `error`.
fn fault(side: Color, error: &EngineError, moves: Vec<Move>, used_ms: [u64; 2]) -> PlayedGame {
    let termination = termination_of(error);
    forfeit(side, termination, error.to_string(), moves, used_ms)
}

/// The termination an engine failure counts as.
pub fn termination_of(error: &EngineError) -> Termination {
    match error {
        EngineError::MoveTimeout { .. } => Termination::TimeForfeit,
        EngineError::ReadyTimeout { .. } => Termination::Stall,
        EngineError::Garbage { .. } | EngineError::LineTooLong { .. } => Termination::IllegalMove,
        _ => Termination::Crash,
    }
}

/// The game lost by `side` by a fault of its engine.
fn forfeit(
    side: Color,
    termination: Termination,
    detail: String,
    moves: Vec<Move>,
    used_ms: [u64; 2],
) -> PlayedGame {
    PlayedGame {
        winner: side.opponent(),
        termination,
        moves,
        used_ms,
        faulty: Some(side),
        detail,
        stray: Default::default(),
        infos: Vec::new(),
    }
}
