//! Searches and perft: `go` (watching the run's stop flag) and `go perft`, each sent behind an
//! `isready` fence in one write, and their answers ([`SearchReply`] with its MultiPV lines,
//! [`PerftReply`]).

use super::process::SendError;
use super::wait::Wait;
use super::{Engine, EngineError};
use crate::protocol::{Command, GoLimits, Info, Reply};
use crate::rules::{Move, Position};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The answer to [`Engine::go`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReply {
    /// The move as the engine wrote it, unchecked: the runner judges it (`(none)` when the
    /// engine found no move).
    pub bestmove: String,
    /// The `ponder` move, if the engine named one.
    pub ponder: Option<String>,
    /// The search's `info` lines merged: the latest depth, score, nodes, pv, ... it reported
    /// for its best line (lines with `multipv` above 1 are left out).
    pub info: Info,
    /// With MultiPV: the lines of the last iteration reported, best first (`multipv 1`, 2,
    /// ...), each with its score and first move; empty when the engine numbered no line.
    pub lines: Vec<PvLine>,
    /// From sending `go` to receiving `bestmove`, by the monotonic clock.
    pub elapsed: Duration,
    /// A CodinGame bot's message after its move, if any (a PGN comment of the move).
    pub message: Option<String>,
    /// A CodinGame bot's turn: from the last byte of the turn's input to the end of its line,
    /// as CodinGame measures it, and what its clock is charged; `None` for a UGI/UCI engine,
    /// whose move is charged from before `go` is written to `bestmove`.
    pub turn_time: Option<Duration>,
}

/// One line of a MultiPV search: its score and the move it starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine {
    /// The line's score, the mover's view.
    pub score: crate::protocol::Score,
    /// Its first move, as the engine wrote it (unchecked).
    pub mv: String,
}

/// Keeps `info`'s line in `lines` when it is numbered (`multipv N`) with a score and a pv:
/// `multipv 1` starts the lines afresh (a new iteration), line N replaces lines N and after.
/// Lines out of order are ignored.
fn keep_line(lines: &mut Vec<PvLine>, info: &Info) {
    let (Some(n), Some(score), Some(mv)) = (info.multipv, info.score, info.pv.first()) else {
        return;
    };
    let at = usize::try_from(n).unwrap_or(usize::MAX).saturating_sub(1);
    if n == 0 || at > lines.len() {
        return;
    }
    lines.truncate(at);
    lines.push(PvLine {
        score,
        mv: mv.clone(),
    });
}

/// The answer to [`Engine::perft`]: perft's divide as the engine reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftReply {
    /// Each root move as the engine wrote it, with its leaf count, in the engine's order.
    pub moves: Vec<(String, u64)>,
    /// The total the engine reported.
    pub total: u64,
    /// From sending `go perft` to receiving the total, by the monotonic clock.
    pub elapsed: Duration,
}

impl Engine {
    /// Sends `isready`, `position` (`start` and `moves`) and `go` with `limits` in one write,
    /// then waits up to `allowed` from now for the `readyok` (the fence: what comes before it
    /// answers no request and is never taken as the move, see [`Engine::take_stray`]) and then
    /// for the first `bestmove` after it. The move is returned as written: the runner judges
    /// it. An engine that does not take the commands in that time also times out.
    ///
    /// # Errors
    /// [`EngineError::ReadyTimeout`] when the time runs out before `readyok`,
    /// [`EngineError::MoveTimeout`] (its `after` is `allowed`, exactly) when it runs out before
    /// `bestmove`, [`EngineError::Garbage`] for a line after `readyok` other than `info`,
    /// `bestmove`, `readyok` or a blank line (or a malformed one), [`EngineError::Crashed`],
    /// [`EngineError::LineTooLong`].
    pub fn go(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &GoLimits,
        allowed: Duration,
    ) -> Result<SearchReply, EngineError> {
        self.go_or_stop(start, moves, limits, allowed, &AtomicBool::new(false))
    }

    /// [`Engine::go`], watching `stop` (the run's stop flag, Ctrl-C) while the engine thinks:
    /// once it is set, the engine is sent `stop` and given [`STOP_GRACE`] to answer with its
    /// `bestmove`; one that does not (it hangs) is killed with its process group, so that a
    /// stop never waits out the move's timeout (60 s at a fixed depth or node count). A
    /// CodinGame bot is given its turn ([`Engine::bot_go`]).
    ///
    /// # Errors
    /// As [`Engine::go`]; [`EngineError::Crashed`] for an engine killed after the grace.
    pub fn go_or_stop(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &GoLimits,
        allowed: Duration,
        stop: &AtomicBool,
    ) -> Result<SearchReply, EngineError> {
        if self.bot.is_some() {
            return self.bot_go(start, moves, allowed);
        }
        let (after, deadline) = (allowed, Instant::now() + allowed);
        let timeout = |engine| EngineError::MoveTimeout { engine, after };
        // The commands are written from buffers kept between moves: `isready`, the game's
        // `position` line extended by the moves since the last `go`, and `go`.
        self.go_line.clear();
        self.go_line.push_str("go");
        limits.write_args(self.protocol, &mut self.go_line);
        let position = self.position.update(start, moves);
        match self
            .process
            .send(&["isready", position, &self.go_line], deadline)
        {
            Ok(()) => self.unanswered_isready += 1,
            Err(SendError::Closed) => return Err(self.died()),
            Err(SendError::Stalled) => return Err(timeout(self.name.clone())),
        }
        let sent = Instant::now();
        self.await_fence(deadline, after)?;
        let mut info = Info::default();
        let mut lines = Vec::new();
        self.wait_or_stop(
            deadline,
            Some(stop),
            timeout,
            |engine, line, reply, at| match reply {
                Ok(Reply::Info(fields)) => {
                    keep_line(&mut lines, &fields);
                    if fields.is_best_line() {
                        info.merge_from(fields);
                    }
                    Ok(Wait::Continue)
                }
                Ok(Reply::BestMove { mv, ponder }) => Ok(Wait::Done(SearchReply {
                    bestmove: mv,
                    ponder,
                    info: std::mem::take(&mut info),
                    lines: std::mem::take(&mut lines),
                    elapsed: at.saturating_duration_since(sent),
                    message: None,
                    turn_time: None,
                })),
                Ok(Reply::ReadyOk) => engine.stray_line(line),
                other => engine.unexpected(line, other, "expected info or bestmove"),
            },
        )
    }

    /// Sends `isready`, `position` and `go perft <depth>` in one write, then waits up to
    /// `allowed` from now for the `readyok` (the fence, as in [`Engine::go`]), then for the
    /// divide lines (`<move>: <count>`) and the total (`nodes N` or `Nodes searched: N`); `info`
    /// and blank lines are skipped.
    ///
    /// # Errors
    /// [`EngineError::ReadyTimeout`] when the time runs out before `readyok`,
    /// [`EngineError::PerftTimeout`] (its `after` is `allowed`, exactly) when it runs out
    /// before the total, [`EngineError::Garbage`] for any other line after `readyok`,
    /// [`EngineError::Crashed`], [`EngineError::LineTooLong`].
    pub fn perft(
        &mut self,
        position: &Position,
        depth: u32,
        allowed: Duration,
    ) -> Result<PerftReply, EngineError> {
        if self.bot.is_some() {
            return Err(EngineError::Unsupported {
                engine: self.name.clone(),
                what: "a CodinGame bot has no perft".to_string(),
            });
        }
        let (after, deadline) = (allowed, Instant::now() + allowed);
        let timeout = |engine| EngineError::PerftTimeout { engine, after };
        let commands = [
            Command::IsReady,
            Command::Position {
                start: *position,
                moves: Vec::new(),
            },
            Command::Perft { depth },
        ];
        self.send(&commands, deadline, timeout)?;
        let sent = Instant::now();
        self.await_fence(deadline, after)?;
        let mut moves = Vec::new();
        self.wait(deadline, timeout, |engine, line, reply, at| match reply {
            Ok(Reply::PerftMove { mv, nodes }) => {
                moves.push((mv, nodes));
                Ok(Wait::Continue)
            }
            Ok(Reply::PerftTotal { nodes }) => Ok(Wait::Done(PerftReply {
                moves: std::mem::take(&mut moves),
                total: nodes,
                elapsed: at.saturating_duration_since(sent),
            })),
            Ok(Reply::Info(_)) => Ok(Wait::Continue),
            Ok(Reply::ReadyOk) => engine.stray_line(line),
            other => engine.unexpected(line, other, "expected '<move>: <count>' or the total"),
        })
    }
}
