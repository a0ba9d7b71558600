//! The engine side of the protocol: a reusable command loop for bundled engines.
//!
//! An engine implements [`Brain`] (its name, options and search) and calls [`serve`]. The loop
//! answers the handshake in either protocol, declares the `Rules` option besides the brain's
//! own, answers `isready` at any time, validates every `position` with the rules, runs `go` on a
//! worker thread (so `stop`, `isready` and `quit` are answered while it thinks), answers
//! `go perft N` with the reference move generator, and quits on `quit` or end of input.
//!
//! Errors in commands are reported as `info string error <what>` and the command is ignored.
//! The loop never prints an illegal `bestmove`: it checks the brain's move with the rules, falls
//! back to the first legal move (after an `info string error`), and prints `bestmove (none)`
//! when the position has no legal move.

use super::protocol::{
    Command, GoLimits, Info, NO_MOVE, OptionDecl, Protocol, RULES_OPTION, Reply,
};
use crate::rules::perft::{PerftOptions, divide};
use crate::rules::{Move, Position, Rules};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
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
}

/// Runs the command loop on stdin and stdout until `quit` or end of input.
///
/// # Errors
/// An I/O error writing to stdout (the runner has gone).
pub fn serve(brain: impl Brain) -> io::Result<()> {
    serve_with(brain, io::BufReader::new(io::stdin()), io::stdout())
}

/// Runs the command loop on `input` and `output` until `quit` or end of input. A search or
/// perft still running at `quit` is told to stop but not waited for.
///
/// # Errors
/// An I/O error writing to `output`.
pub fn serve_with<B, R, W>(brain: B, input: R, output: W) -> io::Result<()>
where
    B: Brain,
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let (events, receiver) = channel();
    spawn_reader(input, events.clone());
    let mut server = Server {
        brain: Some(brain),
        protocol: Protocol::default(),
        rules: Rules::default(),
        game: Ok(Game::new(Position::startpos())),
        out: Output(Arc::new(Mutex::new(Box::new(output)))),
        events,
        job: None,
    };
    let result = server.run(&receiver);
    if let Some(job) = &server.job {
        job.stop.store(true, Ordering::Relaxed);
    }
    result
}

/// Something for the loop to act on.
enum Event<B> {
    /// A line of input, without its newline.
    Line(String),
    /// The input has ended.
    Eof,
    /// A search finished: the brain comes back with its move.
    SearchDone(B, Option<Move>),
    /// A perft finished (its lines are printed).
    PerftDone,
}

/// Reads `input` line by line into `events` on its own thread.
fn spawn_reader<B: Send + 'static, R: BufRead + Send + 'static>(
    mut input: R,
    events: Sender<Event<B>>,
) {
    std::thread::spawn(move || {
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match input.read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buffer).trim_end().to_string();
                    if events.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = events.send(Event::Eof);
    });
}

/// The output, shared with the worker threads; each line is written whole and flushed.
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

/// A search or perft running on a worker thread.
struct Job {
    /// Tells the search to finish.
    stop: Arc<AtomicBool>,
    /// What the search was asked (`None` for perft): its move is checked against it.
    search: Option<SearchRequest>,
    /// Whether `stop` (or `quit`) has been received: an `infinite` search's move waits for it.
    stopped: bool,
    /// The move of an `infinite` search that finished before `stop`.
    held: Option<Move>,
}

/// Whether the loop goes on.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct Server<B> {
    /// The brain, or `None` while a search thread has it.
    brain: Option<B>,
    protocol: Protocol,
    rules: Rules,
    /// The game of the last `position`, or why it was refused.
    game: Result<Game, String>,
    out: Output,
    events: Sender<Event<B>>,
    job: Option<Job>,
}

impl<B: Brain> Server<B> {
    fn run(&mut self, receiver: &Receiver<Event<B>>) -> io::Result<()> {
        while let Ok(event) = receiver.recv() {
            match event {
                Event::Line(line) => {
                    if self.handle_line(&line)? == Flow::Quit {
                        break;
                    }
                }
                Event::Eof => break,
                Event::SearchDone(brain, best) => self.finish_search(brain, best)?,
                Event::PerftDone => self.job = None,
            }
        }
        Ok(())
    }

    fn handle_line(&mut self, line: &str) -> io::Result<Flow> {
        if line.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        let command = match line.parse::<Command>() {
            Ok(command) => command,
            Err(err) => {
                self.out.error(format_args!("in '{line}': {err}"))?;
                return Ok(Flow::Continue);
            }
        };
        match command {
            Command::Hello(protocol) => self.hello(protocol)?,
            Command::SetOption { name, value } => {
                self.set_option(&name, value.as_deref().unwrap_or_default())?
            }
            Command::IsReady => self.out.send(Reply::ReadyOk)?,
            Command::NewGame => self.new_game()?,
            Command::Position { start, moves } => {
                self.game = Game::replay(start, &moves, self.rules);
                if let Err(err) = &self.game {
                    self.out.error(err)?;
                }
            }
            Command::Go(limits) => self.go(limits)?,
            Command::Perft { depth } => self.perft(depth)?,
            Command::Stop => self.stop()?,
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }

    /// The brain when no search holds it; otherwise reports that `what` must wait.
    fn idle_brain(&mut self, what: &str) -> io::Result<Option<&mut B>> {
        match self.brain.as_mut() {
            Some(brain) => Ok(Some(brain)),
            None => {
                self.out
                    .error(format_args!("{what} ignored while searching"))?;
                Ok(None)
            }
        }
    }

    fn hello(&mut self, protocol: Protocol) -> io::Result<()> {
        self.protocol = protocol;
        let Some(brain) = self.idle_brain(protocol.name())? else {
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
        let Some(brain) = self.idle_brain("setoption")? else {
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

    fn new_game(&mut self) -> io::Result<()> {
        if let Some(brain) = self.idle_brain(self.protocol.new_game())? {
            brain.new_game();
        }
        Ok(())
    }

    /// The current game, or reports why there is none.
    fn current_game(&self) -> io::Result<Option<Game>> {
        match &self.game {
            Ok(game) => Ok(Some(game.clone())),
            Err(err) => {
                self.out.error(format_args!("no valid position: {err}"))?;
                Ok(None)
            }
        }
    }

    fn go(&mut self, limits: GoLimits) -> io::Result<()> {
        if self.job.is_some() {
            return self.out.error("go ignored while searching");
        }
        let Some(game) = self.current_game()? else {
            return self.out.send(best_move_reply(None));
        };
        if game.position.legal_moves(self.rules).is_empty() {
            return self.out.send(best_move_reply(None));
        }
        let Some(mut brain) = self.brain.take() else {
            return self.out.error("go ignored: no engine available");
        };
        let request = SearchRequest {
            position: game.position,
            history: game.history,
            rules: self.rules,
            limits,
            started: Instant::now(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (thread_stop, thread_request) = (Arc::clone(&stop), request.clone());
        let (events, out) = (self.events.clone(), self.out.clone());
        std::thread::spawn(move || {
            let mut info = |info: Info| {
                let _ = out.send(info);
            };
            let best = brain.search(&thread_request, &thread_stop, &mut info);
            let _ = events.send(Event::SearchDone(brain, best));
        });
        self.job = Some(Job {
            stop,
            search: Some(request),
            stopped: false,
            held: None,
        });
        Ok(())
    }

    /// Checks the brain's move and prints it, or holds it until `stop` for `go infinite`.
    fn finish_search(&mut self, brain: B, best: Option<Move>) -> io::Result<()> {
        self.brain = Some(brain);
        let Some(job) = self.job.as_mut() else {
            return Ok(());
        };
        let Some(request) = &job.search else {
            return Ok(());
        };
        let legal = request.position.legal_moves(request.rules);
        let checked = match best {
            Some(mv) if legal.contains(mv) => Some(mv),
            _ => {
                let fallback = legal.iter().next();
                let chosen = best.map_or_else(|| "no move".to_string(), |mv| mv.to_string());
                self.out.error(format_args!(
                    "the search returned {chosen}, not a legal move; playing the first legal move"
                ))?;
                fallback
            }
        };
        if request.limits.infinite && !job.stopped {
            job.held = checked;
            return Ok(());
        }
        self.job = None;
        self.out.send(best_move_reply(checked))
    }

    fn stop(&mut self) -> io::Result<()> {
        let Some(job) = self.job.as_mut() else {
            return Ok(());
        };
        job.stop.store(true, Ordering::Relaxed);
        job.stopped = true;
        if self.brain.is_some() && job.search.is_some() {
            let held = job.held;
            self.job = None;
            return self.out.send(best_move_reply(held));
        }
        Ok(())
    }

    /// Runs `go perft <depth>` on a worker thread with the reference move generator.
    fn perft(&mut self, depth: u32) -> io::Result<()> {
        if self.job.is_some() {
            return self.out.error("go perft ignored while searching");
        }
        let Some(game) = self.current_game()? else {
            return self.out.send(Reply::PerftTotal { nodes: 0 });
        };
        let (rules, events, out) = (self.rules, self.events.clone(), self.out.clone());
        std::thread::spawn(move || {
            let _ = print_divide(&out, &game.position, rules, depth);
            let _ = events.send(Event::PerftDone);
        });
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
