//! The engine-side server loop, driven line by line through bt-random's stdin and stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use crate::util::RANDOM;

/// bt-random with its pipes, read on a thread so every read has a timeout.
struct Raw {
    child: Child,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Raw {
    fn start() -> Raw {
        let mut child = Command::new(RANDOM)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("bt-random runs");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").expect("written");
    }

    /// The next line, within 10 s.
    fn next(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(10))
            .expect("a line within 10 s")
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.next();
            let done = line.starts_with(prefix);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// Asserts nothing is printed for `ms` milliseconds.
    fn silent_for(&self, ms: u64) {
        if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(ms)) {
            panic!("unexpected line '{line}'");
        }
    }

    /// Waits up to 5 s for the process to exit by itself; true when it exited cleanly.
    fn exits_cleanly(mut self) -> bool {
        for _ in 0..500 {
            if let Some(status) = self.child.try_wait().expect("status") {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for Raw {
    /// Leaves no zombie: kills the engine if it still runs and reaps it.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn handshake_declares_rules_and_options_in_both_protocols() {
    let mut raw = Raw::start();
    raw.send("uci");
    let lines = raw.until("uciok");
    assert!(lines[0].starts_with("id name bt-random"), "{lines:?}");
    assert!(
        lines.contains(
            &"option name Rules type combo default capture-only var capture-only var classic"
                .to_string()
        )
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Seed type spin"))
    );
    raw.send("ugi");
    assert_eq!(raw.until("ugiok").last().map(String::as_str), Some("ugiok"));
    raw.send("quit");
    assert!(raw.exits_cleanly());
}

#[test]
fn bad_commands_and_positions_are_reported_as_info_strings() {
    let mut raw = Raw::start();
    for (command, expected) in [
        ("fly", "info string error in 'fly': unknown command 'fly'"),
        (
            "position startpos moves a2a4",
            "info string error move 1 of the position command: illegal move a2a4",
        ),
        (
            "position fen 8/8 w",
            "info string error in 'position fen 8/8 w': bad position",
        ),
        (
            "setoption name Rules value chess",
            "info string error unknown rule set 'chess'",
        ),
        (
            "setoption name Seed value x",
            "info string error option Seed: 'x' is not an integer",
        ),
        (
            "setoption name Hash value 1",
            "info string error no option named 'Hash'",
        ),
    ] {
        raw.send(command);
        let line = raw.next();
        assert!(line.starts_with(expected), "{command}: {line}");
    }
    raw.send("position startpos moves a2a4");
    raw.send("go movetime 10");
    let lines = raw.until("bestmove");
    assert!(
        lines[1].starts_with("info string error no valid position"),
        "{lines:?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("bestmove (none)"));

    // A malformed position command does not leave the previous position in force.
    raw.send("position startpos");
    raw.send("position startpos moves a2a3 a7a6 zz");
    raw.send("go movetime 10");
    let lines = raw.until("bestmove");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("bestmove (none)"),
        "{lines:?}"
    );
}

#[test]
fn finished_games_get_bestmove_none_and_moves_are_legal() {
    let mut raw = Raw::start();
    raw.send("position fen P7/8/8/8/8/8/p7/8 b");
    raw.send("go depth 1");
    assert_eq!(raw.until("bestmove"), ["bestmove (none)"]);
    raw.send("setoption name Rules value classic");
    raw.send("position fen 8/7p/8/8/8/p7/P7/8 w");
    raw.send("go depth 1");
    assert_eq!(
        raw.until("bestmove").last().map(String::as_str),
        Some("bestmove a2b3")
    );
}

#[test]
fn go_infinite_waits_for_stop_and_isready_is_answered_meanwhile() {
    let mut raw = Raw::start();
    raw.send("position startpos");
    raw.send("go infinite");
    let info = raw.next();
    assert!(info.starts_with("info depth 1"), "{info}");
    raw.silent_for(200);
    raw.send("isready");
    assert_eq!(raw.next(), "readyok");
    raw.send("go depth 1");
    raw.silent_for(100);
    raw.send("stop");
    let best = raw.next();
    assert!(
        best.starts_with("bestmove ") && best != "bestmove (none)",
        "{best}"
    );
    let queued = raw.until("bestmove");
    assert!(
        queued[0].starts_with("info depth 1"),
        "the queued go runs: {queued:?}"
    );
    raw.send("stop");
    raw.silent_for(100);
}

#[test]
fn piped_commands_run_in_order_until_end_of_input() {
    let mut raw = Raw::start();
    for line in [
        "ugi",
        "setoption name Rules value classic",
        "position startpos moves a2a3",
        "go movetime 50",
        "go perft 1",
        "position startpos",
        "go infinite",
    ] {
        raw.send(line);
    }
    raw.stdin = None;
    assert!(raw.until("ugiok").len() > 2);
    let first = raw.until("bestmove");
    assert!(
        first.last().is_some_and(|l| l != "bestmove (none)"),
        "{first:?}"
    );
    let divide = raw.until("nodes");
    assert_eq!(divide.len(), 23, "22 moves under classic rules: {divide:?}");
    assert_eq!(divide.last().map(String::as_str), Some("nodes 22"));
    let infinite = raw.until("bestmove");
    assert!(
        infinite.last().is_some_and(|l| l != "bestmove (none)"),
        "{infinite:?}"
    );
    assert!(raw.exits_cleanly());
}

#[test]
fn go_perft_prints_divide_and_total() {
    let mut raw = Raw::start();
    raw.send("position startpos moves a2a3");
    raw.send("go perft 2");
    let lines = raw.until("nodes");
    assert_eq!(lines.len(), 9, "{lines:?}");
    assert!(lines.contains(&"h7h6: 9".to_string()), "{lines:?}");
    assert_eq!(lines.last().map(String::as_str), Some("nodes 72"));
    raw.send("go perft 0");
    assert_eq!(raw.next(), "nodes 1");
}

#[test]
fn quit_and_end_of_input_end_the_engine() {
    let mut raw = Raw::start();
    raw.send("position startpos");
    raw.send("go infinite");
    raw.send("quit");
    assert!(raw.exits_cleanly());
    let mut raw = Raw::start();
    raw.send("ugi");
    raw.until("ugiok");
    raw.stdin = None;
    assert!(raw.exits_cleanly());
}
