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
mod position_line;
mod process;
pub mod rule_option;
pub mod source;
pub mod stop;

pub use description::{
    DEFAULT_TIME_MARGIN_MS, DescriptionError, EngineDescription, EngineKeys, EngineOptions, KEYS,
};
pub use error::EngineError;
pub use handshake::says_unknown;
pub use launch::{EngineLaunch, Timeouts};
pub use process::MAX_LINE_BYTES;
pub use source::EngineSource;

use crate::protocol::{
    Command, GoLimits, Info, OptionDecl, OptionKind, Protocol, ProtocolError, Reply,
};
use crate::rules::{Move, Position, Rules};
use position_line::PositionLine;
use process::{Process, SendError};
use rule_option::rule_settings;
use std::collections::BTreeSet;
use std::process::ExitStatus;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// How long an engine told to `stop` because the run stops (Ctrl-C) has to answer before it
/// is killed ([`Engine::go_or_stop`]).
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// How often a search looks at the run's stop flag ([`Engine::go_or_stop`]).
const STOP_POLL: Duration = Duration::from_millis(50);

/// An engine line as parsed.
type ParsedReply = Result<Reply, ProtocolError>;

/// What a wait handler decided about one engine reply.
enum Wait<T> {
    /// The awaited answer.
    Done(T),
    /// Keep waiting.
    Continue,
}

/// A running engine the runner talks to.
#[derive(Debug)]
pub struct Engine {
    name: String,
    protocol: Protocol,
    timeouts: Timeouts,
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
    pub fn start(launch: &EngineLaunch, rules: Rules) -> Result<Engine, EngineError> {
        if launch.proto.is_bot() {
            return Engine::start_bot(launch, rules);
        }
        let mut engine = Engine::spawn_silent(launch)?;
        engine.handshake(launch)?;
        for (name, value) in &launch.options {
            engine.set_option(name, value)?;
        }
        let settings = rule_settings(&engine.options, rules, &launch.options)
            .map_err(|refusal| refusal.into_error(engine.name.clone(), rules))?;
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

    /// Waits until `deadline` for the `readyok` that answers the `isready` just sent, and
    /// those of earlier ones that timed out (a stall, [`EngineError::ReadyTimeout`] naming
    /// `after`, when they do not come). The engine wrote everything read before it before
    /// answering that `isready`, so none of it answers a request sent with or after it:
    /// `bestmove` lines are counted as stray, others skipped.
    fn await_fence(&mut self, deadline: Instant, after: Duration) -> Result<(), EngineError> {
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
    fn stray_line<T>(&mut self, line: &str) -> Result<Wait<T>, EngineError> {
        self.stray.note(line);
        Ok(Wait::Continue)
    }

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

    /// Says `quit`, waits up to the quit grace, then kills the engine's process group and
    /// reaps it. Returns how it ended (`None` if it could not be reaped). Dropping an
    /// [`Engine`] does the same.
    pub fn quit(mut self) -> Option<ExitStatus> {
        match self.bot {
            Some(_) => self.process.end_by(Instant::now()),
            None => self.process.quit(),
        }
    }

    /// Sends `setoption` for a configured option after checking it against the declaration
    /// ([`check_option`]); a combo value it did not declare is sent with a warning.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let checked = check_option(&self.name, &self.options, name, value)?;
        let decl_name = checked.decl.name.clone();
        if let Some(warning) = checked.warning {
            self.warn(warning);
        }
        let command = Command::SetOption {
            name: decl_name,
            value: (!value.is_empty()).then(|| value.to_string()),
        };
        self.send_setup(&command)
    }

    /// Sets `options` (name, value) in order, checked against the engine's declarations as
    /// at start, then waits for `readyok`: for a runner that changes options between games
    /// (a tune plays other parameter values every iteration).
    ///
    /// # Errors
    /// [`EngineError::UnknownOption`], [`EngineError::BadOptionValue`], or as
    /// [`Engine::is_ready`].
    pub fn set_options(&mut self, options: &[(String, String)]) -> Result<(), EngineError> {
        if self.bot.is_some() {
            return self.bot_set_options(options);
        }
        for (name, value) in options {
            self.set_option(name, value)?;
        }
        self.is_ready()
    }

    /// Keeps `warning`, writes it to the communication log and prints it to stderr unless
    /// this process printed it before (engines restarted for each game would repeat it).
    fn warn(&mut self, warning: String) {
        static PRINTED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
        self.process.note(&format!("warning: {warning}"));
        let mut printed = PRINTED.lock().unwrap_or_else(|p| p.into_inner());
        if printed.insert(warning.clone()) {
            eprintln!("warning: {warning}");
        }
        self.warnings.push(warning);
    }

    /// Writes a setup command (`setoption`), which the engine must take within the ready
    /// timeout.
    fn send_setup(&mut self, command: &Command) -> Result<(), EngineError> {
        let after = self.timeouts.ready;
        self.send(
            std::slice::from_ref(command),
            Instant::now() + after,
            |engine| EngineError::ReadyTimeout { engine, after },
        )
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

    /// Feeds each engine line to `handle` (the text, its parse, when it arrived) until it is
    /// done, the engine stops, or `deadline` passes (`timeout` builds that error from the
    /// engine's name).
    fn wait<T>(
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
    fn wait_or_stop<T>(
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
    fn unexpected<T>(
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

/// A configured option checked against the engine's declarations ([`check_option`]).
#[derive(Debug)]
pub struct CheckedOption<'a> {
    /// The declaration the option sets (its name as the engine spells it).
    pub decl: &'a OptionDecl,
    /// Why the value is sent though the declaration does not list it, when it does not.
    pub warning: Option<String>,
}

/// The one check of a configured option (`option.NAME=VALUE`) against the options an engine
/// declared, for every command that starts engines (a tournament, a tune, perft-check,
/// check-engine): the name must be declared (compared case-insensitively) and the value allowed
/// by its declaration, except that a combo value the engine did not declare is sent with a
/// warning, since an engine may add values at run time (Fairy-Stockfish adds the variants of
/// its `VariantPath` file to `UCI_Variant`).
///
/// # Errors
/// [`EngineError::UnknownOption`] for a name the engine does not declare,
/// [`EngineError::BadOptionValue`] for a value its (non-combo) declaration does not allow.
pub fn check_option<'a>(
    engine: &str,
    declared: &'a [OptionDecl],
    name: &str,
    value: &str,
) -> Result<CheckedOption<'a>, EngineError> {
    let Some(decl) = declared.iter().find(|decl| decl.is_named(name)) else {
        return Err(EngineError::UnknownOption {
            engine: engine.to_string(),
            option: name.to_string(),
        });
    };
    let warning = match decl.check_value(value) {
        Ok(()) => None,
        Err(_) if matches!(decl.kind, OptionKind::Combo { .. }) => Some(format!(
            "engine '{engine}': option '{}': value '{value}' is not among the values it \
             declared; sent anyway (an engine may add values at run time, as Fairy-Stockfish \
             does for UCI_Variant after VariantPath)",
            decl.name
        )),
        Err(problem) => {
            return Err(EngineError::BadOptionValue {
                engine: engine.to_string(),
                option: decl.name.clone(),
                problem: problem.to_string(),
            });
        }
    };
    Ok(CheckedOption { decl, warning })
}
