//! The loop's state and what each command does to it.

use super::jobs::{Done, Finished, Work, best_move_reply, checked_move};
use super::{Brain, End, OptionRefused, Output, SearchRequest};
use crate::protocol::{BOARD_OPTION, Command, GoLimits, OptionDecl, Protocol, RULES_OPTION, Reply};
use crate::rules::{Board, Move, Position, Rules};
use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The game as set by the last valid `position`.
#[derive(Clone, Debug)]
pub(super) struct Game {
    /// The current position.
    pub(super) position: Position,
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
    pub(super) fn replay(start: Position, moves: &[Move], rules: Rules) -> Result<Game, String> {
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
pub(super) struct Job {
    /// Tells the search to finish.
    pub(super) stop: Arc<AtomicBool>,
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

/// The loop's state: what the commands so far have set, and the job running.
pub(super) struct Server<B> {
    /// The brain, or `None` while a search has it.
    brain: Option<B>,
    protocol: Protocol,
    rules: Rules,
    /// The board of `position startpos` (the `Board` option); a FEN brings its own size.
    board: Board,
    /// The game of the last `position`, or why it was refused.
    game: Result<Game, String>,
    out: Output,
    /// A job just started, for the acting thread to run once it leaves the lock.
    pub(super) work: Option<Box<Work<B>>>,
    pub(super) job: Option<Job>,
    /// Commands that arrived while a job ran, to run in order once it ends.
    pending: VecDeque<Command>,
    /// True once the input has ended: the loop ends when the pending work is done.
    input_closed: bool,
    /// True after `quit` while a search finishes: the loop ends with its `bestmove`.
    quitting: bool,
    /// True once the loop has ended: nothing more is done.
    pub(super) ended: bool,
}

impl<B> Server<B> {
    /// The state at start: `brain` at home, default protocol and rules, the start position.
    pub(super) fn new(brain: B, out: Output) -> Server<B> {
        Server {
            brain: Some(brain),
            protocol: Protocol::default(),
            rules: Rules::default(),
            board: Board::STANDARD,
            game: Ok(Game::new(Position::startpos())),
            out,
            work: None,
            job: None,
            pending: VecDeque::new(),
            input_closed: false,
            quitting: false,
            ended: false,
        }
    }
}

impl<B: Brain> Server<B> {
    /// Acts on a line of input (see [`Server::handle_line`]); after `quit`, input is ignored.
    pub(super) fn line(&mut self, line: &str) -> End {
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
    pub(super) fn input_ended(&mut self) -> End {
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
    pub(super) fn job_done(&mut self, done: Done<B>) -> End {
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
            Command::Handshake(protocol) => self.handshake(protocol),
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
                // `startpos` (read as 8x8's start) is the start of the board set by `Board`;
                // a FEN of any size is played on its own board.
                let start = match start == Position::startpos() {
                    true => Position::start(self.board),
                    false => start,
                };
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

    fn handshake(&mut self, protocol: Protocol) -> io::Result<()> {
        self.protocol = protocol;
        let Some(brain) = self.brain()? else {
            return Ok(());
        };
        let mut replies = vec![
            Reply::IdName(brain.name().to_string()),
            Reply::IdAuthor(brain.author().to_string()),
            Reply::Option(OptionDecl::rules()),
            Reply::Option(OptionDecl::board()),
        ];
        replies.extend(brain.options().into_iter().map(Reply::Option));
        replies.push(Reply::HandshakeOk(protocol));
        replies
            .into_iter()
            .try_for_each(|reply| self.out.send(reply))
    }

    fn set_option(&mut self, name: &str, value: &str) -> io::Result<()> {
        if name.eq_ignore_ascii_case(BOARD_OPTION) {
            return match value.parse() {
                Ok(board) => {
                    self.board = board;
                    Ok(())
                }
                Err(err) => self.out.error(format_args!("option {BOARD_OPTION}: {err}")),
            };
        }
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
            .map_err(OptionRefused::from)
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
