//! Waiting for an engine's answers: the one loop every request reads through (a deadline, the
//! run's stop flag with its grace, the line buffer kept between lines), the `isready` fence
//! that separates a request's answer from what came before it, and the stray and unexpected
//! lines met on the way.

use super::{Engine, EngineError};
use crate::protocol::{ProtocolError, Reply};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long an engine told to `stop` because the run stops (Ctrl-C) has to answer before it
/// is killed ([`Engine::go_or_stop`]).
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// How often a search looks at the run's stop flag ([`Engine::go_or_stop`]).
const STOP_POLL: Duration = Duration::from_millis(50);

/// An engine line as parsed.
pub(super) type ParsedReply = Result<Reply, ProtocolError>;

/// What a wait handler decided about one engine reply.
pub(super) enum Wait<T> {
    /// The awaited answer.
    Done(T),
    /// Keep waiting.
    Continue,
}

impl Engine {
    /// Waits until `deadline` for the `readyok` that answers the `isready` just sent, and
    /// those of earlier ones that timed out (a stall, [`EngineError::ReadyTimeout`] naming
    /// `after`, when they do not come). The engine wrote everything read before it before
    /// answering that `isready`, so none of it answers a request sent with or after it:
    /// `bestmove` lines are counted as stray, others skipped.
    pub(super) fn await_fence(
        &mut self,
        deadline: Instant,
        after: Duration,
    ) -> Result<(), EngineError> {
        let timeout = |engine| EngineError::ReadyTimeout { engine, after };
        self.wait(deadline, timeout, |engine, line, reply, _| match reply {
            Ok(Reply::ReadyOk) => {
                engine.unanswered_isready = engine.unanswered_isready.saturating_sub(1);
                match engine.unanswered_isready {
                    0 => Ok(Wait::Done(())),
                    _ => Ok(Wait::Continue),
                }
            }
            Ok(Reply::BestMove { .. }) => engine.stray_line(line),
            _ => Ok(Wait::Continue),
        })
    }

    /// Counts `line` as stray output and keeps waiting.
    pub(super) fn stray_line<T>(&mut self, line: &str) -> Result<Wait<T>, EngineError> {
        self.stray.note(line);
        Ok(Wait::Continue)
    }

    /// Feeds each engine line to `handle` (the text, its parse, when it arrived) until it is
    /// done, the engine stops, or `deadline` passes (`timeout` builds that error from the
    /// engine's name).
    pub(super) fn wait<T>(
        &mut self,
        deadline: Instant,
        timeout: impl FnOnce(String) -> EngineError,
        handle: impl FnMut(&mut Engine, &str, ParsedReply, Instant) -> Result<Wait<T>, EngineError>,
    ) -> Result<T, EngineError> {
        self.wait_or_stop(deadline, None, timeout, handle)
    }

    /// [`Engine::wait`], looking at `stop` every [`STOP_POLL`]: once it is set, `stop` is
    /// sent and the wait ends at [`STOP_GRACE`] from then at the latest, with the engine's
    /// process group killed and [`EngineError::Crashed`].
    pub(super) fn wait_or_stop<T>(
        &mut self,
        deadline: Instant,
        stop: Option<&AtomicBool>,
        timeout: impl FnOnce(String) -> EngineError,
        mut handle: impl FnMut(&mut Engine, &str, ParsedReply, Instant) -> Result<Wait<T>, EngineError>,
    ) -> Result<T, EngineError> {
        // The line is read into a buffer kept between lines, lent to `handle`.
        let mut line = std::mem::take(&mut self.line);
        // When the engine was told to stop, the end of its grace.
        let mut grace: Option<Instant> = None;
        let result = loop {
            let until = match (stop, grace) {
                (_, Some(grace)) => grace.min(deadline),
                (Some(_), None) => (Instant::now() + STOP_POLL).min(deadline),
                (None, None) => deadline,
            };
            match self.next_line_into(until, &mut line) {
                Err(error) => break Err(error),
                Ok(None) if Instant::now() >= deadline => break Err(timeout(self.name.clone())),
                Ok(None) if grace.is_some_and(|grace| Instant::now() >= grace) => {
                    // Its grace is over: killed now, not after the quit grace.
                    self.process.end_by(Instant::now());
                    break Err(self.died());
                }
                Ok(None) => {
                    if grace.is_none() && stop.is_some_and(|stop| stop.load(Ordering::SeqCst)) {
                        let _ = self.process.send(&["stop"], Instant::now() + STOP_GRACE);
                        grace = Some(Instant::now() + STOP_GRACE);
                    }
                }
                Ok(Some(at)) => match handle(self, &line, line.parse(), at) {
                    Ok(Wait::Done(value)) => break Ok(value),
                    Ok(Wait::Continue) => {}
                    Err(error) => break Err(error),
                },
            }
        };
        self.line = line;
        result
    }

    /// The error for a reply that does not belong in a search or perft: blank lines and `info`
    /// lines the parser cannot read (e.g. `info score cp 12.5`; as cutechess, the runner does not
    /// judge an engine by its info) are skipped, anything else is [`EngineError::Garbage`].
    pub(super) fn unexpected<T>(
        &self,
        line: &str,
        reply: ParsedReply,
        expected: &str,
    ) -> Result<Wait<T>, EngineError> {
        let problem = match reply {
            _ if line.trim().is_empty() => return Ok(Wait::Continue),
            Err(_) if line.split_whitespace().next() == Some("info") => return Ok(Wait::Continue),
            Ok(_) => expected.to_string(),
            Err(err) => err.to_string(),
        };
        Err(EngineError::Garbage {
            engine: self.name.clone(),
            line: line.to_string(),
            problem,
        })
    }
}
