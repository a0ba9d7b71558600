//! The engine's conversation line by line, for tools that judge the conversation itself
//! (`bt-arena check-engine`): spawn without a handshake, write any line, read each line as it
//! comes. [`Engine::start`], [`Engine::go`] and the other typed calls are built on the same two
//! primitives, so the deadlines, the line cap and the crash reports are the same.
//!
//! Mixing raw lines with the typed calls is allowed as long as every search the raw side starts
//! is finished (its `bestmove` read) before a typed call: a typed call reads the next lines as
//! its own answers.

use super::process::{Output, Process, Received, SendError};
use super::{Engine, EngineError, EngineLaunch, MAX_LINE_BYTES, StrayOutput};
use crate::rules::Board;
use std::time::Instant;

impl Engine {
    /// Spawns the engine and says nothing to it: no handshake, no options. Use
    /// [`Engine::send_lines`] and [`Engine::next_line`] to talk to it. Until the handshake
    /// would have ended, its exit is reported as [`EngineError::ExitedAtStart`].
    ///
    /// # Errors
    /// [`EngineError::Spawn`], [`EngineError::NotExecutable`], [`EngineError::Io`] (log files).
    pub fn spawn_silent(launch: &EngineLaunch) -> Result<Engine, EngineError> {
        Ok(Engine {
            name: launch.name.clone(),
            protocol: launch.proto,
            timeouts: launch.timeouts,
            board: Board::STANDARD,
            process: Process::spawn(launch)?,
            id_name: None,
            id_author: None,
            options: Vec::new(),
            warnings: Vec::new(),
            started: false,
            stray: StrayOutput::default(),
            unanswered_isready: 0,
            position: Default::default(),
            bot: None,
            go_line: String::new(),
            line: String::new(),
        })
    }

    /// Writes `lines` as they are, each with a newline, in one write when the pipe has room.
    ///
    /// # Errors
    /// [`EngineError::ReadyTimeout`] when the engine does not take them by `deadline` (its
    /// input stays full: it stalls; nothing more is written to it afterwards),
    /// [`EngineError::Crashed`] (or [`EngineError::ExitedAtStart`]) when its input is closed.
    pub fn send_lines(&mut self, lines: &[&str], deadline: Instant) -> Result<(), EngineError> {
        let after = deadline.saturating_duration_since(Instant::now());
        self.write_lines(lines, deadline, |engine| EngineError::ReadyTimeout {
            engine,
            after,
        })
    }

    /// The next line the engine writes (without its line ending) and when it arrived; `None`
    /// when `deadline` passes first. Lines already received are given even after `deadline`.
    ///
    /// # Errors
    /// [`EngineError::Crashed`] (or [`EngineError::ExitedAtStart`]) when its output has
    /// closed, [`EngineError::LineTooLong`] for a line over [`MAX_LINE_BYTES`].
    pub fn next_line(
        &mut self,
        deadline: Instant,
    ) -> Result<Option<(String, Instant)>, EngineError> {
        match self.process.recv(deadline) {
            None => Ok(None),
            Some(Output::Line(line, at)) => Ok(Some((line, at))),
            Some(Output::Closed) => Err(self.died()),
            Some(Output::TooLong) => Err(EngineError::LineTooLong {
                engine: self.name.clone(),
                limit_bytes: MAX_LINE_BYTES,
            }),
        }
    }

    /// [`next_line`](Engine::next_line) into `line` (cleared first): when the next line
    /// arrived, `None` when `deadline` passes first. A caller that reads many lines keeps one
    /// buffer for them.
    ///
    /// # Errors
    /// As [`next_line`](Engine::next_line).
    pub(super) fn next_line_into(
        &mut self,
        deadline: Instant,
        line: &mut String,
    ) -> Result<Option<Instant>, EngineError> {
        match self.process.recv_into(deadline, line) {
            None => Ok(None),
            Some(Received::Line(at)) => Ok(Some(at)),
            Some(Received::Closed) => Err(self.died()),
            Some(Received::TooLong) => Err(EngineError::LineTooLong {
                engine: self.name.clone(),
                limit_bytes: MAX_LINE_BYTES,
            }),
        }
    }

    /// Writes `lines`; an engine that does not take them by `deadline` gets the error
    /// `timeout` builds from its name, one whose input is closed has crashed.
    pub(super) fn write_lines(
        &mut self,
        lines: &[&str],
        deadline: Instant,
        timeout: impl FnOnce(String) -> EngineError,
    ) -> Result<(), EngineError> {
        match self.process.send(lines, deadline) {
            Ok(()) => Ok(()),
            Err(SendError::Closed) => Err(self.died()),
            Err(SendError::Stalled) => Err(timeout(self.name.clone())),
        }
    }
}
