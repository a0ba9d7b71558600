//! The engine side of the protocol: a reusable command loop for bundled engines.
//!
//! An engine implements [`Brain`] (its name, options and search) and calls [`serve`]. The loop
//! answers the handshake in either protocol, declares the `Rules` option besides the brain's
//! own, validates every `position` with the rules, runs `go` while it goes on reading input,
//! answers `go perft N` with the reference move generator (the same way), and quits on `quit`
//! or end of input. `isready`, `stop` and `quit` are answered at once, also while a search
//! runs; other commands that arrive meanwhile are queued and run in order after it (as
//! Stockfish does), so piped input works as expected.
//!
//! Threads: two threads share the work, acting on the loop's state under one lock. The one
//! holding the input reads lines and acts on each at once; when a line starts a search (or
//! perft) it leaves the input to the other thread, runs the search itself, prints its
//! `bestmove`, takes up the queued commands, and then waits for the input in turn. The thread
//! that called [`serve_with`] waits for the loop to end. So a move costs one thread wake-up
//! in the engine, as `isready` does, plus waking the other thread to take the input: a thread
//! started per search, or each line passed on to another thread, would cost more than a fast
//! engine's whole move. A brain whose searches return at once ([`Brain::searches_at_once`])
//! has them run without handing over the input at all.
//!
//! Errors in commands are reported as `info string error <what>` and the command is ignored.
//! The loop never prints an illegal `bestmove`: it checks the brain's move with the rules, falls
//! back to the first legal move (after an `info string error`), and prints `bestmove (none)`
//! when the position has no legal move.

use crate::protocol::{
    Command, GoLimits, Info, NO_MOVE, OptionDecl, Protocol, RULES_OPTION, Reply,
};
use crate::rules::perft::{PerftOptions, divide};
use crate::rules::{Move, Position, Rules};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a search is asked to do: the position with its history, the rules and the limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchRequest {
    /// The position to move in.
    pub position: Position,
    /// The positions before `position` in this game, oldest (the start position) first.
    pub history: Vec<Position>,
    /// The rule set in force.
    pub rules: Rules,
    /// The limits sent with `go`.
    pub limits: GoLimits,
    /// When `go` arrived: the search's clock starts here.
    pub started: Instant,
}

/// An engine's personality: what [`serve`] needs besides the protocol.
pub trait Brain: Send + 'static {
    /// The engine's name, sent as `id name`.
    fn name(&self) -> &str;
    /// The engine's author, sent as `id author`.
    fn author(&self) -> &str;
    /// The options the engine declares, besides `Rules`, which the server declares and handles.
    fn options(&self) -> Vec<OptionDecl>;
    /// Sets option `name` (as declared) to `value`, which the server has checked against the
    /// declaration. An error message is reported to the runner as `info string error ...`.
    ///
    /// # Errors
    /// A message saying why the value cannot be used.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String>;
    /// Forgets what belongs to the previous game (hash tables, history heuristics).
    fn new_game(&mut self);
    /// Searches `request.position`, which has at least one legal move, within
    /// `request.limits`, returning soon after `stop` becomes true. Progress goes through `info`.
    /// Returns the best move; `None` or an illegal move makes the server play the first legal
    /// move instead (and report an error).
    fn search(
        &mut self,
        request: &SearchRequest,
        stop: &AtomicBool,
        info: &mut dyn FnMut(Info),
    ) -> Option<Move>;
    /// True when every search returns at once, whatever its limits (it never waits for the
    /// clock or for `stop`). The server then runs searches on the thread that reads the input,
    /// without handing the input to the other thread first, which makes a move cost about as
    /// much as `isready`; a command sent during such a search is read right after it. False
    /// by default.
    fn searches_at_once(&self) -> bool {
        false
    }
}

/// Runs the command loop on stdin and stdout until `quit` or end of input.
///
/// # Errors
/// An I/O error writing to stdout (the runner has gone), or a search that panicked.
pub fn serve(brain: impl Brain) -> io::Result<()> {
    serve_with(brain, io::BufReader::new(io::stdin()), io::stdout())
}

/// Runs the command loop on `input` and `output` until `quit` or end of input. At `quit` a
/// running search is stopped and its `bestmove` printed, a running perft is abandoned and
/// queued commands are dropped; at end of input queued commands are run first (an `infinite`
/// search is stopped, as no `stop` can come).
///
/// # Errors
/// An I/O error writing to `output`, or a search that panicked (after an `info string error`).
pub fn serve_with<B, R, W>(brain: B, input: R, output: W) -> io::Result<()>
where
    B: Brain,
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let out = Output(Arc::new(Mutex::new(Box::new(output))));
    let shared = Arc::new(Shared {
        server: Mutex::new(Server {
            brain: Some(brain),
            protocol: Protocol::default(),
            rules: Rules::default(),
            game: Ok(Game::new(Position::startpos())),
            out: out.clone(),
            work: None,
            job: None,
            pending: VecDeque::new(),
            input_closed: false,
            quitting: false,
            ended: false,
        }),
        input: Mutex::new(Input {
            reader: input,
            buffer: Vec::new(),
            ended: false,
        }),
        out,
    });
    let (ending, ended) = channel();
    for name in ["commands-1", "commands-2"] {
        let (shared, ending) = (Arc::clone(&shared), ending.clone());
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let run = std::panic::AssertUnwindSafe(|| shared.run_thread(&ending));
                if std::panic::catch_unwind(run).is_err() {
                    let _ = ending.send(Err(io::Error::other("internal: a thread panicked")));
                }
            })?;
    }
    drop(ending);
    // The threads report the end (a panic too); all gone without a word cannot happen, but
    // ends the loop as an error rather than a hang.
    let result = ended
        .recv()
        .unwrap_or_else(|_| Err(io::Error::other("the engine's threads are gone")));
    let mut server = lock(&shared.server);
    server.ended = true;
    if let Some(job) = &server.job {
        job.stop.store(true, Ordering::Relaxed);
    }
    result
}

/// Locks the loop's state, the input or the output, also after a panic elsewhere.
fn lock<T: ?Sized>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How the loop ends: `Some` with the result of [`serve_with`], or `None` to go on.
type End = Option<io::Result<()>>;

/// What a thread does after acting on the loop's state.
enum Next<B> {
    /// Run this job (a search or perft the action started).
    Run(Box<Work<B>>),
    /// Go on.
    Continue,
    /// The loop has ended.
    Ended,
}

/// The input, read by one thread at a time.
struct Input<R> {
    reader: R,
    /// The line being read, reused.
    buffer: Vec<u8>,
    /// True once the input has ended (or failed): nothing more is read.
    ended: bool,
}

/// What the loop's two threads share. Each thread reads input and acts on it until a line
/// starts a job; it then leaves the input to the other thread (so `isready`, `stop` and `quit`
/// are still answered at once), runs the job itself, and goes back to reading when no queued
/// job follows. A move thus costs one thread wake-up in the engine, as `isready` does.
struct Shared<B, R> {
    server: Mutex<Server<B>>,
    input: Mutex<Input<R>>,
    out: Output,
}

impl<B: Brain, R: BufRead> Shared<B, R> {
    fn run_thread(&self, ending: &Sender<io::Result<()>>) {
        while let Some(work) = self.read_until_work(ending) {
            let mut next = Next::Run(work);
            while let Next::Run(work) = next {
                next = self.run_job(work, ending);
            }
            if let Next::Ended = next {
                return;
            }
        }
    }

    /// Runs `act` on the loop's state unless the loop has ended, and takes the job it started;
    /// reports the loop's end on `ending` when `act` ends it.
    fn act_on(
        &self,
        ending: &Sender<io::Result<()>>,
        act: impl FnOnce(&mut Server<B>) -> End,
    ) -> Next<B> {
        let mut server = lock(&self.server);
        if server.ended {
            return Next::Ended;
        }
        if let Some(result) = act(&mut server) {
            server.ended = true;
            let _ = ending.send(result);
            return Next::Ended;
        }
        server.work.take().map_or(Next::Continue, Next::Run)
    }

    /// Reads lines and acts on them, holding the input, until one starts a job (returned: the
    /// input is then free for the other thread); `None` when the input or the loop ends. A job
    /// that ends at once (see [`Brain::searches_at_once`]) is run here, holding the input.
    fn read_until_work(&self, ending: &Sender<io::Result<()>>) -> Option<Box<Work<B>>> {
        let mut input = lock(&self.input);
        loop {
            if input.ended {
                return None;
            }
            let Input { reader, buffer, .. } = &mut *input;
            buffer.clear();
            let mut next = match reader.read_until(b'\n', buffer) {
                Ok(0) | Err(_) => {
                    input.ended = true;
                    self.act_on(ending, Server::input_ended)
                }
                Ok(_) => {
                    let line = String::from_utf8_lossy(buffer);
                    self.act_on(ending, |server| server.line(line.trim_end()))
                }
            };
            loop {
                match next {
                    Next::Run(work) if work.at_once() => next = self.run_job(work, ending),
                    Next::Run(work) => return Some(work),
                    Next::Continue => break,
                    Next::Ended => return None,
                }
            }
        }
    }

    /// Runs `work` and acts on its end; what to do next (a job a queued command started).
    fn run_job(&self, work: Box<Work<B>>, ending: &Sender<io::Result<()>>) -> Next<B> {
        let what = work.name();
        let run = std::panic::AssertUnwindSafe(|| run_work(*work, &self.out));
        let done = std::panic::catch_unwind(run).unwrap_or(Done::Panicked(what));
        self.act_on(ending, |server| server.job_done(done))
    }
}

/// How a job ended.
enum Done<B> {
    /// A search finished: the brain comes back with its move.
    Search(B, Finished),
    /// A search or perft panicked (`what` names it): the brain is lost.
    Panicked(&'static str),
    /// A perft finished (its lines are printed).
    Perft,
}

/// How a search finished.
enum Finished {
    /// The brain's move, unchecked: an `infinite` search's move is checked and printed or held
    /// by the loop.
    Move(Option<Move>),
    /// The searching thread checked the move and printed `bestmove` at once; how that went.
    Printed(io::Result<()>),
}

/// A job for a thread to run outside the lock.
enum Work<B> {
    /// Run a search; the brain comes back with [`Done::Search`].
    Search {
        brain: B,
        request: SearchRequest,
        stop: Arc<AtomicBool>,
        /// The brain's [`Brain::searches_at_once`].
        at_once: bool,
    },
    /// Print perft's divide, then report [`Done::Perft`].
    Perft {
        position: Position,
        rules: Rules,
        depth: u32,
    },
}

impl<B> Work<B> {
    /// True for a job that ends at once: it may run while the input waits.
    fn at_once(&self) -> bool {
        matches!(self, Work::Search { at_once: true, .. })
    }

    fn name(&self) -> &'static str {
        match self {
            Work::Search { .. } => "search",
            Work::Perft { .. } => "perft",
        }
    }
}

/// Runs one job; what to report when it is done.
fn run_work<B: Brain>(work: Work<B>, out: &Output) -> Done<B> {
    match work {
        Work::Search {
            mut brain,
            request,
            stop,
            ..
        } => {
            let mut info = |info: Info| {
                let _ = out.send(info);
            };
            let best = brain.search(&request, &stop, &mut info);
            if request.limits.infinite {
                return Done::Search(brain, Finished::Move(best));
            }
            let printed = checked_move(&request, best, out)
                .and_then(|checked| out.send(best_move_reply(checked)));
            Done::Search(brain, Finished::Printed(printed))
        }
        Work::Perft {
            position,
            rules,
            depth,
        } => {
            let _ = print_divide(out, &position, rules, depth);
            Done::Perft
        }
    }
}

/// `best` if it is legal in the searched position; otherwise (after an `info string error`)
/// the first legal move.
fn checked_move(
    request: &SearchRequest,
    best: Option<Move>,
    out: &Output,
) -> io::Result<Option<Move>> {
    let legal = request.position.legal_moves(request.rules);
    match best {
        Some(mv) if legal.contains(mv) => Ok(Some(mv)),
        _ => {
            let chosen = best.map_or_else(|| "no move".to_string(), |mv| mv.to_string());
            out.error(format_args!(
                "the search returned {chosen}, not a legal move; playing the first legal move"
            ))?;
            Ok(legal.iter().next())
        }
    }
}

/// The output, shared by the threads; each line is written whole and flushed.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    fn send(&self, line: impl std::fmt::Display) -> io::Result<()> {
        let mut out = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        writeln!(out, "{line}")?;
        out.flush()
    }

    fn error(&self, message: impl std::fmt::Display) -> io::Result<()> {
        self.send(Info::string(format!("error {message}")))
    }
}

/// The game as set by the last valid `position`.
#[derive(Clone, Debug)]
struct Game {
    /// The current position.
    position: Position,
    /// The positions before it, oldest first.
    history: Vec<Position>,
}

impl Game {
    fn new(start: Position) -> Game {
        Game {
            position: start,
            history: Vec::new(),
        }
    }

    /// The game after playing `moves` from `start` under `rules`, each checked.
    fn replay(start: Position, moves: &[Move], rules: Rules) -> Result<Game, String> {
        let mut game = Game::new(start);
        for (ply, &mv) in moves.iter().enumerate() {
            let next = game
                .position
                .play(rules, mv)
                .map_err(|err| format!("move {} of the position command: {err}", ply + 1))?;
            game.history.push(game.position);
            game.position = next;
        }
        Ok(game)
    }
}

/// A search or perft being run (by the thread that does not hold the input).
struct Job {
    /// Tells the search to finish.
    stop: Arc<AtomicBool>,
    /// What the search was asked (`None` for perft): its move is checked against it.
    search: Option<SearchRequest>,
    /// Whether `stop` has been received (or no more input can come): an `infinite` search's
    /// move waits for it.
    stopped: bool,
    /// The move of an `infinite` search that finished before `stop`.
    held: Option<Move>,
}

impl Job {
    /// True for a search that runs until `stop`.
    fn is_infinite(&self) -> bool {
        self.search.as_ref().is_some_and(|s| s.limits.infinite)
    }
}

/// Whether the loop goes on.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Server<B> {
    /// The brain, or `None` while a search has it.
    brain: Option<B>,
    protocol: Protocol,
    rules: Rules,
    /// The game of the last `position`, or why it was refused.
    game: Result<Game, String>,
    out: Output,
    /// A job just started, for the acting thread to run once it leaves the lock.
    work: Option<Box<Work<B>>>,
    job: Option<Job>,
    /// Commands that arrived while a job ran, to run in order once it ends.
    pending: VecDeque<Command>,
    /// True once the input has ended: the loop ends when the pending work is done.
    input_closed: bool,
    /// True after `quit` while a search finishes: the loop ends with its `bestmove`.
    quitting: bool,
    /// True once the loop has ended: nothing more is done.
    ended: bool,
}

impl<B: Brain> Server<B> {
    /// Acts on a line of input (see [`Server::handle_line`]); after `quit`, input is ignored.
    fn line(&mut self, line: &str) -> End {
        if self.quitting {
            return None;
        }
        match self.handle_line(line) {
            Ok(Flow::Continue) => None,
            Ok(Flow::Quit) => self.quit(),
            Err(err) => Some(Err(err)),
        }
    }

    /// Acts on the end of input: queued commands still run, an `infinite` search is stopped.
    fn input_ended(&mut self) -> End {
        if self.quitting {
            return None;
        }
        self.input_closed = true;
        if let Err(err) = self.stop_infinite_without_input() {
            return Some(Err(err));
        }
        self.end_when_idle()
    }

    /// Acts on the end of a job: the brain comes home, queued commands run.
    fn job_done(&mut self, done: Done<B>) -> End {
        let finished = match done {
            Done::Search(brain, finished) => self.finish_search(brain, finished),
            Done::Perft => {
                self.job = None;
                Ok(())
            }
            Done::Panicked(what) => return Some(self.panicked(what)),
        };
        if let Err(err) = finished {
            return Some(Err(err));
        }
        if self.quitting {
            return self.job.is_none().then_some(Ok(()));
        }
        if let Err(err) = self.run_pending() {
            return Some(Err(err));
        }
        self.end_when_idle()
    }

    /// Ends the loop once the input has ended and nothing is left to do.
    fn end_when_idle(&self) -> End {
        (self.input_closed && self.job.is_none() && self.pending.is_empty()).then_some(Ok(()))
    }

    /// Reports a search (or perft) that panicked and ends the loop with an error: without its
    /// brain the engine cannot go on, and exiting lets the runner see a crash at once.
    fn panicked(&self, what: &str) -> io::Result<()> {
        self.out
            .error(format_args!("the {what} panicked; the engine exits"))?;
        Err(io::Error::other(format!("the {what} panicked")))
    }

    /// Answers `isready`, `stop` and `quit` at once; runs other commands now when idle, or
    /// queues them behind the running job and earlier queued commands.
    fn handle_line(&mut self, line: &str) -> io::Result<Flow> {
        if line.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        match line.parse::<Command>() {
            Err(err) => {
                if line.split_whitespace().next() == Some("position") {
                    // A `go` after a broken `position` must not search the previous one.
                    self.game = Err(format!("the last position command was malformed: {err}"));
                }
                self.out.error(format_args!("in '{line}': {err}"))?
            }
            Ok(Command::IsReady) => self.out.send(Reply::ReadyOk)?,
            Ok(Command::Stop) => self.stop()?,
            Ok(Command::Quit) => return Ok(Flow::Quit),
            Ok(command) if self.job.is_some() || !self.pending.is_empty() => {
                self.pending.push_back(command)
            }
            Ok(command) => self.execute(command)?,
        }
        Ok(Flow::Continue)
    }

    /// Runs queued commands until one starts a job or none is left.
    fn run_pending(&mut self) -> io::Result<()> {
        while self.job.is_none() {
            let Some(command) = self.pending.pop_front() else {
                break;
            };
            self.execute(command)?;
        }
        Ok(())
    }

    /// Runs a command that needs the engine idle.
    fn execute(&mut self, command: Command) -> io::Result<()> {
        match command {
            Command::Hello(protocol) => self.hello(protocol),
            Command::SetOption { name, value } => {
                self.set_option(&name, value.as_deref().unwrap_or_default())
            }
            Command::NewGame => {
                if let Some(brain) = self.brain.as_mut() {
                    brain.new_game();
                }
                Ok(())
            }
            Command::Position { start, moves } => {
                self.game = Game::replay(start, &moves, self.rules);
                match &self.game {
                    Ok(_) => Ok(()),
                    Err(err) => self.out.error(err),
                }
            }
            Command::Go(limits) => self.go(limits),
            Command::Perft { depth } => self.perft(depth),
            Command::IsReady => self.out.send(Reply::ReadyOk),
            Command::Stop => self.stop(),
            Command::Quit => Ok(()),
        }
    }

    /// The brain, which is home whenever no job runs; an internal error is reported if not.
    fn brain(&mut self) -> io::Result<Option<&mut B>> {
        if self.brain.is_none() {
            self.out.error("internal: the engine is busy")?;
        }
        Ok(self.brain.as_mut())
    }

    fn hello(&mut self, protocol: Protocol) -> io::Result<()> {
        self.protocol = protocol;
        let Some(brain) = self.brain()? else {
            return Ok(());
        };
        let mut replies = vec![
            Reply::IdName(brain.name().to_string()),
            Reply::IdAuthor(brain.author().to_string()),
            Reply::Option(OptionDecl::rules()),
        ];
        replies.extend(brain.options().into_iter().map(Reply::Option));
        replies.push(Reply::HelloOk(protocol));
        replies
            .into_iter()
            .try_for_each(|reply| self.out.send(reply))
    }

    fn set_option(&mut self, name: &str, value: &str) -> io::Result<()> {
        if name.eq_ignore_ascii_case(RULES_OPTION) {
            return match value.parse() {
                Ok(rules) => {
                    self.rules = rules;
                    Ok(())
                }
                Err(err) => self.out.error(err),
            };
        }
        let Some(brain) = self.brain()? else {
            return Ok(());
        };
        let Some(decl) = brain.options().into_iter().find(|d| d.is_named(name)) else {
            return self.out.error(format_args!("no option named '{name}'"));
        };
        let result = decl
            .check_value(value)
            .and_then(|()| brain.set_option(&decl.name, value));
        match result {
            Ok(()) => Ok(()),
            Err(err) => self.out.error(format_args!("option {}: {err}", decl.name)),
        }
    }

    /// Starts a search of the current position (run once the lock is left), or answers
    /// `bestmove (none)` at once when there is no valid position or no legal move.
    fn go(&mut self, limits: GoLimits) -> io::Result<()> {
        let game = match &self.game {
            Ok(game) => game.clone(),
            Err(err) => {
                self.out.error(format_args!("no valid position: {err}"))?;
                return self.out.send(best_move_reply(None));
            }
        };
        if game.position.legal_moves(self.rules).is_empty() {
            return self.out.send(best_move_reply(None));
        }
        let Some(brain) = self.brain.take() else {
            return self.out.error("internal: the engine is busy");
        };
        let request = SearchRequest {
            position: game.position,
            history: game.history,
            rules: self.rules,
            limits,
            started: Instant::now(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let work = Work::Search {
            at_once: brain.searches_at_once(),
            brain,
            request: request.clone(),
            stop: Arc::clone(&stop),
        };
        self.work = Some(Box::new(work));
        self.job = Some(Job {
            stop,
            search: Some(request),
            stopped: false,
            held: None,
        });
        self.stop_infinite_without_input()
    }

    /// Takes the brain back. A move already printed ends the job; an `infinite` search's
    /// move is checked and printed, or held until `stop`.
    fn finish_search(&mut self, brain: B, finished: Finished) -> io::Result<()> {
        self.brain = Some(brain);
        let best = match finished {
            Finished::Printed(printed) => {
                self.job = None;
                return printed;
            }
            Finished::Move(best) => best,
        };
        let Some(job) = self.job.as_mut() else {
            return Ok(());
        };
        let Some(request) = &job.search else {
            return Ok(());
        };
        let checked = checked_move(request, best, &self.out)?;
        if request.limits.infinite && !job.stopped {
            job.held = checked;
            return Ok(());
        }
        self.job = None;
        self.out.send(best_move_reply(checked))
    }

    /// Tells the running search to finish; prints the held move of an `infinite` search that
    /// already finished.
    fn stop(&mut self) -> io::Result<()> {
        let Some(job) = self.job.as_mut() else {
            return Ok(());
        };
        job.stop.store(true, Ordering::Relaxed);
        job.stopped = true;
        if self.brain.is_some() && job.search.is_some() {
            let held = job.held;
            self.job = None;
            self.out.send(best_move_reply(held))?;
            return self.run_pending();
        }
        Ok(())
    }

    /// Stops an `infinite` search once the input has ended, as no `stop` can come.
    fn stop_infinite_without_input(&mut self) -> io::Result<()> {
        if self.input_closed && self.job.as_ref().is_some_and(Job::is_infinite) {
            return self.stop();
        }
        Ok(())
    }

    /// Ends the loop on `quit`: a running search is stopped and the loop ends once its
    /// `bestmove` is printed; a running perft and queued commands are dropped.
    fn quit(&mut self) -> End {
        self.pending.clear();
        if self.job.as_ref().is_none_or(|job| job.search.is_none()) {
            return Some(Ok(()));
        }
        self.quitting = true;
        if let Err(err) = self.stop() {
            return Some(Err(err));
        }
        self.job.is_none().then_some(Ok(()))
    }

    /// Starts `go perft <depth>` with the reference move generator (run once the lock is left).
    fn perft(&mut self, depth: u32) -> io::Result<()> {
        let game = match &self.game {
            Ok(game) => game.clone(),
            Err(err) => {
                self.out.error(format_args!("no valid position: {err}"))?;
                return self.out.send(Reply::PerftTotal { nodes: 0 });
            }
        };
        let work = Work::Perft {
            position: game.position,
            rules: self.rules,
            depth,
        };
        self.work = Some(Box::new(work));
        self.job = Some(Job {
            stop: Arc::new(AtomicBool::new(false)),
            search: None,
            stopped: false,
            held: None,
        });
        Ok(())
    }
}

/// Prints perft's divide of `position`: `<move>: <count>` per legal move, then `nodes <total>`.
fn print_divide(out: &Output, position: &Position, rules: Rules, depth: u32) -> io::Result<()> {
    if depth == 0 {
        return out.send(Reply::PerftTotal { nodes: 1 });
    }
    let counts = divide(position, rules, depth, PerftOptions::default());
    for &(mv, nodes) in &counts {
        out.send(Reply::PerftMove {
            mv: mv.to_string(),
            nodes,
        })?;
    }
    let nodes = counts.iter().map(|&(_, nodes)| nodes).sum();
    out.send(Reply::PerftTotal { nodes })
}

/// The `bestmove` line for `best` (`bestmove (none)` when there is no move).
fn best_move_reply(best: Option<Move>) -> Reply {
    Reply::BestMove {
        mv: best.map_or_else(|| NO_MOVE.to_string(), |mv| mv.to_string()),
        ponder: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A brain whose search answers with `reply`.
    struct Scripted {
        reply: fn(&SearchRequest) -> Option<Move>,
        at_once: bool,
    }

    impl Brain for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }
        fn author(&self) -> &str {
            "tests"
        }
        fn options(&self) -> Vec<OptionDecl> {
            Vec::new()
        }
        fn set_option(&mut self, _: &str, _: &str) -> Result<(), String> {
            Ok(())
        }
        fn new_game(&mut self) {}
        fn search(
            &mut self,
            request: &SearchRequest,
            stop: &AtomicBool,
            _: &mut dyn FnMut(Info),
        ) -> Option<Move> {
            // An `infinite` search runs until `stop` (10 s at most, so a broken test ends),
            // unless the brain answers at once.
            if request.limits.infinite && !self.at_once {
                let until = Instant::now() + std::time::Duration::from_secs(10);
                while !stop.load(Ordering::Relaxed) && Instant::now() < until {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            (self.reply)(request)
        }
        fn searches_at_once(&self) -> bool {
            self.at_once
        }
    }

    /// Output written by the server, readable by the test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let mut buffer = self.0.lock().unwrap_or_else(|p| p.into_inner());
            buffer.extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Runs `input` through the server with a brain answering `reply`: the result and output.
    fn run(reply: fn(&SearchRequest) -> Option<Move>, input: &str) -> (io::Result<()>, String) {
        run_brain(
            Scripted {
                reply,
                at_once: false,
            },
            input,
        )
    }

    /// Runs `input` through the server with `brain`: the result and output.
    fn run_brain(brain: Scripted, input: &str) -> (io::Result<()>, String) {
        let output = Captured::default();
        let input = io::Cursor::new(input.as_bytes().to_vec());
        let result = serve_with(brain, input, output.clone());
        let bytes = output.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        (result, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[test]
    fn illegal_or_missing_moves_are_replaced_by_a_legal_one() {
        let illegal = |_: &SearchRequest| "a2a4".parse().ok();
        let none = |_: &SearchRequest| None;
        for reply in [illegal as fn(&SearchRequest) -> Option<Move>, none] {
            let (result, output) = run(reply, "position startpos\ngo depth 1\n");
            assert!(result.is_ok());
            let lines: Vec<&str> = output.lines().collect();
            assert_eq!(lines.len(), 2, "{output}");
            assert!(lines[0].starts_with("info string error the search returned"));
            let mv = lines[1].strip_prefix("bestmove ").unwrap_or_default();
            assert!(
                Position::startpos()
                    .parse_move(Rules::default(), mv)
                    .is_ok(),
                "{output}"
            );
        }
    }

    #[test]
    fn the_search_sees_the_position_history_and_rules() {
        let check = |request: &SearchRequest| {
            let start = Position::startpos();
            let ok = request.rules == Rules::Classic
                && request.history.len() == 2
                && request.history[0] == start
                && request.limits == GoLimits::depth(3);
            ok.then(|| request.position.legal_moves(request.rules).iter().last())
                .flatten()
        };
        let (_, output) = run(
            check,
            "setoption name Rules value classic\nposition startpos moves a2b3 h7g6\ngo depth 3\n",
        );
        let moves: Result<Vec<Move>, _> = ["a2b3", "h7g6"].iter().map(|m| m.parse()).collect();
        let game = moves
            .ok()
            .and_then(|moves| Game::replay(Position::startpos(), &moves, Rules::Classic).ok());
        let last = game.and_then(|g| g.position.legal_moves(Rules::Classic).iter().last());
        assert_eq!(Some(output), last.map(|mv| format!("bestmove {mv}\n")));
    }

    #[test]
    fn while_a_search_runs_isready_is_answered_and_other_commands_wait_for_it() {
        let input = "go infinite\nisready\nposition startpos moves a2a3\ngo depth 1\nstop\n";
        let (result, output) = run(first_legal, input);
        assert!(result.is_ok());
        let start = Position::startpos();
        let after = "a2a3"
            .parse()
            .ok()
            .and_then(|mv| start.play(Rules::default(), mv).ok());
        let expected = [
            "readyok".to_string(),
            format!("bestmove {}", first_move(Some(start))),
            format!("bestmove {}", first_move(after)),
        ];
        assert_eq!(output.lines().collect::<Vec<_>>(), expected, "{output}");
    }

    #[test]
    fn searches_at_once_run_in_input_order() {
        let brain = Scripted {
            reply: first_legal,
            at_once: true,
        };
        let input = "go depth 1\nisready\ngo infinite\nisready\nstop\n";
        let (result, output) = run_brain(brain, input);
        assert!(result.is_ok());
        let best = format!("bestmove {}", first_move(Some(Position::startpos())));
        let expected = [best.as_str(), "readyok", "readyok", best.as_str()];
        assert_eq!(output.lines().collect::<Vec<_>>(), expected, "{output}");
    }

    #[test]
    fn quit_stops_a_running_search_and_prints_its_move() {
        let (result, output) = run(first_legal, "go infinite\nquit\nisready\n");
        assert!(result.is_ok());
        let expected = format!("bestmove {}\n", first_move(Some(Position::startpos())));
        assert_eq!(output, expected);
    }

    fn first_legal(request: &SearchRequest) -> Option<Move> {
        request.position.legal_moves(request.rules).iter().next()
    }

    /// The first legal move in `position` under the default rules, as text.
    fn first_move(position: Option<Position>) -> String {
        position
            .and_then(|p| p.legal_moves(Rules::default()).iter().next())
            .map_or_else(String::new, |mv| mv.to_string())
    }

    #[test]
    fn a_panicking_search_ends_the_engine_with_an_error() {
        let panics = |_: &SearchRequest| -> Option<Move> { panic!("a bug in the search") };
        let (result, output) = run(panics, "position startpos\ngo depth 1\nisready\n");
        assert!(result.is_err());
        assert!(
            output.contains("info string error the search panicked"),
            "{output}"
        );
    }
}
