//! The engine side of the protocol: a reusable command loop for bundled engines.
//!
//! An engine implements [`Brain`] (its name, options and search) and calls [`serve`]. The loop
//! answers the handshake in either protocol, declares the `Rules` and `Board` options besides
//! the brain's own (a `position fen` of any size from 4×4 to 8×8 is played on its own board;
//! `Board` sets the board of `position startpos`), validates every `position` with the rules, runs `go` while it goes on reading input,
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
//!
//! Files: this one holds the engine's interface ([`Brain`], [`SearchRequest`], [`serve`]);
//! `threads` how the two threads share the input and the jobs, `commands` the loop's state
//! and what each command does to it, `jobs` the searches and perfts run outside the lock.

mod commands;
mod jobs;
mod threads;

use crate::protocol::{GoLimits, Info, OptionDecl};
use crate::rules::{Move, Position, Rules};
use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;
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

/// Why a [`Brain`] refused an option's value: any error, whose `Display` is the message
/// the server reports as `info string error option NAME: MESSAGE`.
pub type OptionRefused = Box<dyn std::error::Error + Send + Sync>;

/// An engine's personality: what [`serve`] needs besides the protocol.
pub trait Brain: Send + 'static {
    /// The engine's name, sent as `id name`.
    fn name(&self) -> &str;
    /// The engine's author, sent as `id author`.
    fn author(&self) -> &str;
    /// The options the engine declares, besides `Rules` and `Board`, which the server declares
    /// and handles.
    fn options(&self) -> Vec<OptionDecl>;
    /// Sets option `name` (as declared) to `value`, which the server has checked against the
    /// declaration. An error message is reported to the runner as `info string error ...`.
    ///
    /// # Errors
    /// Why the value cannot be used (its `Display` is the message the runner reads).
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), OptionRefused>;
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

/// True when an engine's command-line arguments ask for its help: `--help` or `-h`.
pub fn asks_for_help(args: &[String]) -> bool {
    matches!(args, [flag] if flag == "--help" || flag == "-h")
}

/// The text of a bundled engine's `--help`: `about`, how it is run (`usage`: each command
/// line and what it does), and the options its handshake declares (the server's `Rules` and
/// `Board` first, then the brain's), with their types, defaults and ranges or choices.
pub fn help(brain: &dyn Brain, about: &str, usage: &[(&str, &str)]) -> String {
    use crate::protocol::OptionKind;
    let mut text = format!("{}\n{}\n\nUsage:\n", brain.name(), wrap(about, 90));
    let width = usage.iter().map(|(line, _)| line.len()).max().unwrap_or(0);
    for (line, what) in usage {
        text.push_str(&format!("  {line:width$}  {what}\n"));
    }
    text.push_str(
        "\nOptions (set by the runner: setoption name NAME value VALUE, or a tournament's \
         option.NAME=VALUE):\n",
    );
    let options: Vec<OptionDecl> = [OptionDecl::rules(), OptionDecl::board()]
        .into_iter()
        .chain(brain.options())
        .collect();
    let width = options.iter().map(|o| o.name.len()).max().unwrap_or(0);
    for option in &options {
        let detail = match &option.kind {
            OptionKind::Check { default } => format!("check, default {default}"),
            OptionKind::Spin { default, min, max } => {
                format!("spin, default {default} ({min} to {max})")
            }
            OptionKind::Combo { default, choices } => {
                format!("combo, default {default} (one of {})", choices.join(", "))
            }
            OptionKind::Button => "button".to_string(),
            OptionKind::String { default } => format!("string, default '{default}'"),
        };
        text.push_str(&format!("  {:width$}  {detail}\n", option.name));
    }
    text
}

/// `text` with its spaces turned into line breaks so that no line is longer than `width`
/// (a longer word stands alone).
fn wrap(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines.join("\n")
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
    threads::run(brain, input, output)
}

/// How the loop ends: `Some` with the result of [`serve_with`], or `None` to go on.
type End = Option<io::Result<()>>;

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

#[cfg(test)]
mod tests {
    use super::*;
    use commands::Game;
    use std::sync::atomic::Ordering;

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
        fn set_option(&mut self, _: &str, _: &str) -> Result<(), OptionRefused> {
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
