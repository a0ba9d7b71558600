//! Engines as the runner sees them: processes it starts and talks to. The messages both sides
//! exchange are in [`crate::protocol`]; the engine side of bundled engines in
//! [`crate::bundled`].
//!
//! For users (`docs/guide/engines.md`, `docs/guide/source-engines.md`): an engine is a command
//! speaking UGI or UCI, or a git revision bt-arena builds, caches and checks by its bench.
//!
//! - [`Engine`]: a running engine process the runner talks to. Every wait has a deadline and
//!   every misbehaviour ends in an [`EngineError`]; an engine never outlives its `Engine`
//!   (see [`Engine::quit`]) nor the runner (see the process notes below).
//!
//! Attribution: `go` and `go perft` go out behind an `isready` in the same write (the fence),
//! and nothing the engine writes before the matching `readyok` is taken as the answer. A
//! `bestmove` (or `readyok`) that answers no pending request is never played: it is counted as
//! [`StrayOutput`] (see [`Engine::take_stray`] and docs/PROTOCOL.md, "Output that answers no
//! request").
//!
//! - [`source`], [`build`], [`bench`](mod@bench): an engine built from a git revision (its commit
//!   resolved once), the build cache it is built in, and its bench (OpenBench's `ENGINE bench`:
//!   the build's signature and the machine's speed).
//!
//! Process notes: engines, and their benches, are spawned without a shell, each in its own
//! process group (a terminal Ctrl-C reaches the runner, not the engines, which the runner then
//! quits); on Linux each gets `PR_SET_PDEATHSIG(SIGKILL)`, so it dies with the runner even when
//! the runner is killed. Spawning happens on one long-lived thread, so an [`Engine`] may be
//! started and used on any thread. A build command (`sh -c`) is spawned the same way and
//! stopped as a whole group when the run's stop flag is set ([`build::BuildCache::build_until`]).
//! [`stop`] tells a child's death by a signal bt-arena received (the run stops) from one it did
//! not (the child's fault).

pub mod bench;
pub mod build;
pub mod codingame;
mod description;
mod error;
mod handshake;
mod launch;
mod lines;
pub mod locate;
mod options;
mod position_line;
mod process;
pub mod rule_option;
mod search;
pub mod source;
pub mod stop;
mod wait;

pub use description::{
    DEFAULT_TIME_MARGIN_MS, DescriptionError, EngineDescription, EngineKeys, EngineOptions, KEYS,
    OsError,
};
pub use error::EngineError;
pub use handshake::says_unknown;
pub use launch::{EngineLaunch, Timeouts};
pub use options::{CheckedOption, check_option};
pub use process::MAX_LINE_BYTES;
pub use search::{PerftReply, PvLine, SearchReply};
pub use source::EngineSource;
pub use wait::STOP_GRACE;

use crate::protocol::{Command, OptionDecl, Protocol};
use crate::rules::{Board, Rules};
use position_line::PositionLine;
use process::Process;
use rule_option::{Setup, rule_settings};
use std::process::ExitStatus;
use std::time::Instant;

/// Answer lines an engine wrote that answered no pending request: a `bestmove` read before
/// the `readyok` that fences a request (before any `go`, a second `bestmove` for one `go`, a
/// `bestmove` while the runner waits for `readyok`), or a `readyok` while none is pending.
/// None of them is ever played or charged as a move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StrayOutput {
    /// How many such lines.
    pub lines: u64,
    /// The first of them, as written.
    pub first: Option<String>,
}

impl StrayOutput {
    /// Counts `line`, keeping it if it is the first.
    fn note(&mut self, line: &str) {
        self.lines += 1;
        self.first.get_or_insert_with(|| line.to_string());
    }
}

impl std::fmt::Display for StrayOutput {
    /// `1 line answering no request ('bestmove a2a3')`, `3 lines ... (the first 'bestmove a2a3')`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let first = self.first.as_deref().unwrap_or_default();
        match self.lines {
            1 => write!(f, "1 line answering no request ('{first}')"),
            n => write!(f, "{n} lines answering no request (the first '{first}')"),
        }
    }
}

/// A running engine the runner talks to.
#[derive(Debug)]
pub struct Engine {
    name: String,
    protocol: Protocol,
    timeouts: Timeouts,
    /// The board its games are on (see [`Engine::start`]).
    board: Board,
    process: Process,
    id_name: Option<String>,
    id_author: Option<String>,
    options: Vec<OptionDecl>,
    /// Warnings about its configuration (see [`Engine::warnings`]).
    warnings: Vec<String>,
    /// True once the handshake and the first `readyok` are done (errors say crashed, not
    /// exited during startup).
    started: bool,
    /// Stray answers read since the last [`Engine::take_stray`].
    stray: StrayOutput,
    /// `isready` commands sent and not yet answered: a fence is passed at the `readyok` that
    /// brings this to 0, so a late `readyok` of an earlier fence that timed out never passes a
    /// later one.
    unanswered_isready: u64,
    /// The last `position` line sent, extended by the next moves of the same game.
    position: PositionLine,
    /// A CodinGame bot's state (see [`codingame`]); `None` for a UGI/UCI engine.
    bot: Option<Box<codingame::Bot>>,
    /// Room for the `go` line, reused from move to move.
    go_line: String,
    /// Room for the line being read, reused from line to line.
    line: String,
}

impl Engine {
    /// Spawns the engine, runs the handshake, sets the configured options in order and the
    /// rule set (`Rules`, `UCI_Variant`, unless configured; see [`rule_option::rule_settings`]),
    /// then waits for `readyok`. A configured combo value the engine did not declare is sent
    /// anyway, with a warning (see [`Engine::warnings`]).
    ///
    /// # Errors
    /// [`EngineError::Spawn`], [`EngineError::NotExecutable`], [`EngineError::ExitedAtStart`],
    /// [`EngineError::HandshakeTimeout`], [`EngineError::ReadyTimeout`],
    /// [`EngineError::LineTooLong`], [`EngineError::RulesMismatch`],
    /// [`EngineError::UnsupportedVariant`], [`EngineError::UnknownOption`],
    /// [`EngineError::BadOptionValue`], [`EngineError::Io`] (log files). The process is ended
    /// before the error is returned.
    ///
    /// `board` is the board the engine's games and positions are on ([`Board::STANDARD`] for
    /// 8×8): a position of another size is always sent as `position fen <FEN of that size>`
    /// (never `startpos`).
    pub fn start(launch: &EngineLaunch, rules: Rules, board: Board) -> Result<Engine, EngineError> {
        if launch.proto.is_bot() {
            if !board.is_standard() {
                return Err(EngineError::Unsupported {
                    engine: launch.name.clone(),
                    what: format!(
                        "a CodinGame bot plays the 8x8 board of CodinGame's arena, not {board}"
                    ),
                });
            }
            return Engine::start_bot(launch, rules);
        }
        let mut engine = Engine::spawn_silent(launch)?;
        engine.board = board;
        engine.handshake(launch)?;
        for (name, value) in &launch.options {
            engine.set_option(name, value)?;
        }
        let file_variants = rule_option::configured_variants(launch, &engine.options)?;
        let setup = Setup {
            rules,
            board,
            configured: &launch.options,
            file_variants: file_variants.as_deref(),
        };
        let settings = rule_settings(&engine.options, &setup)
            .map_err(|refusal| refusal.into_error(engine.name.clone(), rules, board))?;
        for (name, value) in settings {
            engine.send_setup(&Command::SetOption {
                name,
                value: Some(value),
            })?;
        }
        engine.is_ready()?;
        engine.started = true;
        Ok(engine)
    }

    /// The configured name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The board it was started for.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The name the engine gave (`id name`), if any.
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    /// The author the engine gave (`id author`), if any.
    pub fn id_author(&self) -> Option<&str> {
        self.id_author.as_deref()
    }

    /// The options the engine declared.
    pub fn options(&self) -> &[OptionDecl] {
        &self.options
    }

    /// The warnings about its configuration, each naming the engine, option and value: a
    /// configured combo value it did not declare. Each was also printed to stderr (once per
    /// runner process) and written to the communication log, if there is one.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The protocol spoken with it.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Writes a note of the runner's (a warning about the engine's output) to its
    /// communication log, when it has one (`--log`).
    pub fn note(&self, text: &str) {
        self.process.note(text);
    }

    /// The stray answers read since the last call (or the start), which are then forgotten.
    /// Output is read only while the runner waits for an answer, so a stray line is counted
    /// by the next request to this engine (one after the last request of a process is never
    /// read).
    pub fn take_stray(&mut self) -> StrayOutput {
        if self.bot.is_some() {
            self.bot_drain();
        }
        std::mem::take(&mut self.stray)
    }

    /// Tells the engine a new game starts (`uginewgame`/`ucinewgame`) and waits for `readyok`.
    ///
    /// # Errors
    /// As [`Engine::is_ready`].
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.ready_after(Some(Command::NewGame))
    }

    /// Sends `isready` and waits up to the ready timeout for `readyok`, skipping other lines;
    /// a `bestmove` meanwhile answers no request and is counted as stray.
    ///
    /// # Errors
    /// [`EngineError::ReadyTimeout`], [`EngineError::Crashed`] (or
    /// [`EngineError::ExitedAtStart`] during [`Engine::start`]), [`EngineError::LineTooLong`].
    pub fn is_ready(&mut self) -> Result<(), EngineError> {
        self.ready_after(None)
    }

    /// Sends `first` (if any) and `isready` in one write, then waits for `readyok` as
    /// [`Engine::is_ready`] does; writing counts against the ready timeout.
    fn ready_after(&mut self, first: Option<Command>) -> Result<(), EngineError> {
        if self.bot.is_some() {
            return self.bot_ready(first.is_some());
        }
        let after = self.timeouts.ready;
        let deadline = Instant::now() + after;
        let timeout = |engine| EngineError::ReadyTimeout { engine, after };
        let commands: Vec<Command> = first.into_iter().chain([Command::IsReady]).collect();
        self.send(&commands, deadline, timeout)?;
        self.await_fence(deadline, after)
    }

    /// Says `quit`, waits up to the quit grace, then kills the engine's process group and
    /// reaps it. Returns how it ended (`None` if it could not be reaped). Dropping an
    /// [`Engine`] does the same.
    pub fn quit(mut self) -> Option<ExitStatus> {
        match self.bot {
            Some(_) => self.process.end_by(Instant::now()),
            None => self.process.quit(),
        }
    }

    /// Writes `commands` in this engine's protocol, in one write when the pipe has room, and
    /// counts the `isready` among them as unanswered. An engine that does not take them by
    /// `deadline` gets the error `timeout` builds from its name; one whose stdin is closed has
    /// crashed.
    fn send(
        &mut self,
        commands: &[Command],
        deadline: Instant,
        timeout: impl FnOnce(String) -> EngineError,
    ) -> Result<(), EngineError> {
        let lines: Vec<String> = commands
            .iter()
            .map(|command| command.to_line(self.protocol))
            .collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        self.write_lines(&lines, deadline, timeout)?;
        let fences = commands.iter().filter(|c| **c == Command::IsReady).count();
        self.unanswered_isready += fences as u64;
        Ok(())
    }

    /// The error for an engine whose output or input has closed: it is ended and reaped, and
    /// the error carries its exit status and stderr tail.
    fn died(&mut self) -> EngineError {
        let status = self.process.end();
        let engine = self.name.clone();
        let stderr_tail = self.process.stderr_tail();
        if self.started {
            EngineError::Crashed {
                engine,
                status,
                stderr_tail,
            }
        } else {
            EngineError::ExitedAtStart {
                engine,
                status,
                stderr_tail,
            }
        }
    }
}
