//! What can go wrong with an engine process, as one typed error.

use crate::protocol::Protocol;
use crate::rules::{Board, Rules};
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

/// An engine misbehaved or could not be run. Every variant names the engine (its configured
/// name) so the message stands alone. After any of these the engine is in an unknown state:
/// drop it (or [`super::Engine::quit`]) and start a new one.
#[derive(Debug)]
pub enum EngineError {
    /// The command could not be started (not found, or another OS error).
    Spawn {
        /// The engine's configured name.
        engine: String,
        /// The command.
        cmd: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The command exists but may not be executed (no execute permission, or a directory).
    NotExecutable {
        /// The engine's configured name.
        engine: String,
        /// The command.
        cmd: PathBuf,
    },
    /// The engine exited (closed its output) before the handshake and first `readyok` ended.
    ExitedAtStart {
        /// The engine's configured name.
        engine: String,
        /// How it exited, if it did.
        status: Option<ExitStatus>,
        /// The last bytes it wrote to stderr.
        stderr_tail: String,
    },
    /// No `ugiok`/`uciok` within the handshake timeout.
    HandshakeTimeout {
        /// The engine's configured name.
        engine: String,
        /// How long it was given.
        after: Duration,
    },
    /// The engine answered the handshake command with a line saying it does not know it
    /// (`Unknown command: ugi`), and the other protocol's handshake failed too.
    HandshakeRefused {
        /// The engine's configured name.
        engine: String,
        /// The protocol configured (`proto=`).
        protocol: Protocol,
        /// The engine's answer.
        line: String,
    },
    /// No `readyok` within the ready timeout: the engine stalls.
    ReadyTimeout {
        /// The engine's configured name.
        engine: String,
        /// How long it was given.
        after: Duration,
    },
    /// The engine exited (closed its output) after a successful start.
    Crashed {
        /// The engine's configured name.
        engine: String,
        /// How it exited, if it did.
        status: Option<ExitStatus>,
        /// The last bytes it wrote to stderr.
        stderr_tail: String,
    },
    /// No `bestmove` before the deadline.
    MoveTimeout {
        /// The engine's configured name.
        engine: String,
        /// How long it was given from `go`.
        after: Duration,
    },
    /// A CodinGame bot's answer to turn `turn` did not end before the deadline.
    TurnTimeout {
        /// The engine's configured name.
        engine: String,
        /// The bot's turn, from 1 (its forced turns included).
        turn: u32,
        /// How long it was given from the last byte of the turn's input.
        after: Duration,
    },
    /// What was asked cannot be done with this engine (a CodinGame bot has no perft).
    Unsupported {
        /// The engine's configured name.
        engine: String,
        /// What cannot be done, and why.
        what: String,
    },
    /// No perft total before the deadline.
    PerftTimeout {
        /// The engine's configured name.
        engine: String,
        /// How long it was given from `go perft`.
        after: Duration,
    },
    /// A line that is not a valid answer where it came (e.g. instead of `bestmove`).
    Garbage {
        /// The engine's configured name.
        engine: String,
        /// The line (cut to 200 characters in messages).
        line: String,
        /// What was wrong with it.
        problem: String,
    },
    /// A line longer than the limit: the engine's output is no longer read.
    LineTooLong {
        /// The engine's configured name.
        engine: String,
        /// The limit in bytes.
        limit_bytes: usize,
    },
    /// The engine declares a `Rules` option that cannot be set to the rule set in force (and
    /// the user did not set it).
    RulesMismatch {
        /// The engine's configured name.
        engine: String,
        /// The rule set in force.
        rules: Rules,
        /// The engine's declaration of the option.
        declared: String,
        /// The rule sets the option does list.
        offered: Vec<Rules>,
    },
    /// The engine declares a `Board` option that cannot be set to the board in force (and the
    /// user did not set it).
    BoardMismatch {
        /// The engine's configured name.
        engine: String,
        /// The board in force.
        board: Board,
        /// The engine's declaration of the option.
        declared: String,
        /// The boards the option does list.
        offered: Vec<Board>,
    },
    /// The engine declares `UCI_Variant` without a variant for the rule set in force on the
    /// board in force (and no `Rules` option; the user set neither).
    UnsupportedVariant {
        /// The engine's configured name.
        engine: String,
        /// The rule set in force.
        rules: Rules,
        /// The board in force.
        board: Board,
        /// The engine's declaration of the option.
        declared: String,
        /// The rule sets whose variant it does offer.
        offered: Vec<Rules>,
        /// True when it declares `VariantPath`: a variants file can define the variant.
        variants_file: bool,
    },
    /// The configuration sets an option the engine does not declare.
    UnknownOption {
        /// The engine's configured name.
        engine: String,
        /// The option's name.
        option: String,
    },
    /// The configuration gives an option a value its declaration does not allow.
    BadOptionValue {
        /// The engine's configured name.
        engine: String,
        /// The option's name.
        option: String,
        /// What is wrong with the value.
        problem: String,
    },
    /// An I/O error talking to the engine or opening its log files.
    Io {
        /// The engine's configured name.
        engine: String,
        /// What was being done.
        context: String,
        /// The OS error.
        source: io::Error,
    },
}

impl EngineError {
    /// The configured name of the engine concerned.
    pub fn engine(&self) -> &str {
        match self {
            EngineError::Spawn { engine, .. }
            | EngineError::NotExecutable { engine, .. }
            | EngineError::ExitedAtStart { engine, .. }
            | EngineError::HandshakeTimeout { engine, .. }
            | EngineError::HandshakeRefused { engine, .. }
            | EngineError::ReadyTimeout { engine, .. }
            | EngineError::Crashed { engine, .. }
            | EngineError::MoveTimeout { engine, .. }
            | EngineError::TurnTimeout { engine, .. }
            | EngineError::Unsupported { engine, .. }
            | EngineError::PerftTimeout { engine, .. }
            | EngineError::Garbage { engine, .. }
            | EngineError::LineTooLong { engine, .. }
            | EngineError::RulesMismatch { engine, .. }
            | EngineError::BoardMismatch { engine, .. }
            | EngineError::UnsupportedVariant { engine, .. }
            | EngineError::UnknownOption { engine, .. }
            | EngineError::BadOptionValue { engine, .. }
            | EngineError::Io { engine, .. } => engine,
        }
    }
}

impl EngineError {
    /// True when starting the engine again would fail the same way, so a runner should stop
    /// trying: the command cannot be run ([`EngineError::NotExecutable`], or
    /// [`EngineError::Spawn`] for any reason but a passing lack of resources: out of memory,
    /// too many processes, the executable being written), or the engine refuses the
    /// configuration ([`EngineError::UnknownOption`], [`EngineError::BadOptionValue`],
    /// [`EngineError::RulesMismatch`], [`EngineError::BoardMismatch`],
    /// [`EngineError::UnsupportedVariant`]) or both protocols
    /// ([`EngineError::HandshakeRefused`]).
    ///
    /// Also true for [`EngineError::Unsupported`]: it is not a passing failure.
    ///
    /// False for failures that may pass (a handshake or `isready` timeout on a loaded machine,
    /// an exit during start-up, an I/O error on a log file) and for errors of a started engine.
    pub fn recurs_at_start(&self) -> bool {
        match self {
            EngineError::Spawn { source, .. } => !matches!(
                source.kind(),
                io::ErrorKind::OutOfMemory
                    | io::ErrorKind::WouldBlock
                    | io::ErrorKind::Interrupted
                    | io::ErrorKind::ResourceBusy
                    | io::ErrorKind::ExecutableFileBusy
            ),
            EngineError::NotExecutable { .. }
            | EngineError::UnknownOption { .. }
            | EngineError::BadOptionValue { .. }
            | EngineError::RulesMismatch { .. }
            | EngineError::BoardMismatch { .. }
            | EngineError::UnsupportedVariant { .. }
            | EngineError::Unsupported { .. }
            | EngineError::HandshakeRefused { .. } => true,
            _ => false,
        }
    }
}

/// Writes `exited with <status>` or `closed its output`, then the stderr tail if any.
fn write_exit(f: &mut fmt::Formatter<'_>, status: &Option<ExitStatus>, tail: &str) -> fmt::Result {
    match status {
        Some(status) => write!(f, "exited ({status})")?,
        None => write!(f, "closed its output")?,
    }
    if !tail.trim().is_empty() {
        write!(f, "; its stderr ends with: {}", tail.trim())?;
    }
    Ok(())
}

/// `use --rules A or B, or ` naming the rule sets in `offered`; nothing when there are none.
fn write_other_rules(f: &mut fmt::Formatter<'_>, offered: &[Rules]) -> fmt::Result {
    if offered.is_empty() {
        return Ok(());
    }
    let choices: Vec<String> = offered.iter().map(|r| format!("--rules {r}")).collect();
    write!(f, "use {}, or ", choices.join(" or "))
}

/// At most the first 200 characters of `line`, marked when cut.
fn shorten(line: &str) -> String {
    const MAX_CHARS: usize = 200;
    match line.char_indices().nth(MAX_CHARS) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_string(),
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "engine '{}': ", self.engine())?;
        match self {
            EngineError::Spawn { cmd, source, .. } => {
                write!(f, "cannot start '{}': {source}", cmd.display())
            }
            EngineError::NotExecutable { cmd, .. } => {
                write!(f, "'{}' is not an executable file", cmd.display())
            }
            EngineError::ExitedAtStart {
                status,
                stderr_tail,
                ..
            } => {
                write!(f, "exited during startup: ")?;
                write_exit(f, status, stderr_tail)
            }
            EngineError::HandshakeTimeout { after, .. } => write!(
                f,
                "no ugiok/uciok within {} ms of the handshake",
                after.as_millis()
            ),
            EngineError::HandshakeRefused { protocol, line, .. } => write!(
                f,
                "it answered {} with '{line}', and {} with no {} either: it speaks neither \
                 UGI nor UCI as bt-arena does",
                protocol.name(),
                protocol.other().name(),
                protocol.other().ok()
            ),
            EngineError::ReadyTimeout { after, .. } => write!(
                f,
                "no readyok within {} ms of isready (it stalls)",
                after.as_millis()
            ),
            EngineError::Crashed {
                status,
                stderr_tail,
                ..
            } => {
                write!(f, "crashed: ")?;
                write_exit(f, status, stderr_tail)
            }
            EngineError::MoveTimeout { after, .. } => {
                write!(f, "no bestmove within {} ms of go", after.as_millis())
            }
            EngineError::TurnTimeout { turn, after, .. } => write!(
                f,
                "no move within {} ms of the input of its turn {turn}",
                after.as_millis()
            ),
            EngineError::Unsupported { what, .. } => f.write_str(what),
            EngineError::PerftTimeout { after, .. } => {
                write!(f, "no perft total within {} ms", after.as_millis())
            }
            EngineError::Garbage { line, problem, .. } => {
                write!(f, "sent '{}': {problem}", shorten(line))
            }
            EngineError::LineTooLong { limit_bytes, .. } => {
                write!(f, "sent a line longer than {limit_bytes} bytes")
            }
            EngineError::RulesMismatch {
                rules,
                declared,
                offered,
                ..
            } => {
                write!(
                    f,
                    "its Rules option cannot be set to '{rules}' (it declares '{}'): ",
                    shorten(declared)
                )?;
                write_other_rules(f, offered)?;
                write!(
                    f,
                    "set option.Rules=VALUE to choose its value yourself (the runner judges \
                     every move by '{rules}' rules)"
                )
            }
            EngineError::BoardMismatch {
                board,
                declared,
                offered,
                ..
            } => {
                write!(
                    f,
                    "its Board option cannot be set to '{board}' (it declares '{}'): ",
                    shorten(declared)
                )?;
                if !offered.is_empty() {
                    let choices: Vec<String> =
                        offered.iter().map(|b| format!("--board {b}")).collect();
                    write!(f, "use {}, or ", choices.join(" or "))?;
                }
                write!(
                    f,
                    "set option.Board=VALUE to choose its value yourself (the runner judges \
                     every move on {board})"
                )
            }
            EngineError::UnsupportedVariant {
                rules,
                board,
                offered,
                variants_file,
                ..
            } => {
                let variant = crate::protocol::variant_name(*rules, *board);
                write!(
                    f,
                    "its UCI_Variant option offers no variant for '{rules}' rules"
                )?;
                if !board.is_standard() {
                    write!(f, " on {board} ({variant})")?;
                }
                if !offered.is_empty() {
                    let names: Vec<&str> = offered.iter().map(|r| r.name()).collect();
                    write!(f, " (it knows {} Breakthrough only)", names.join(" and "))?;
                }
                write!(f, ": ")?;
                write_other_rules(f, offered)?;
                if *variants_file {
                    write!(
                        f,
                        "give it a variants file defining {variant}: option.VariantPath=FILE, \
                         bt-arena then sets UCI_Variant to {variant} (bt-arena ships \
                         engines/fairy-stockfish/variants.ini, which defines it), or name the \
                         variant yourself: option.UCI_Variant=NAME"
                    )
                } else {
                    write!(
                        f,
                        "name a variant of it that plays {rules} rules on {board}: \
                         option.UCI_Variant=NAME"
                    )
                }
            }
            EngineError::UnknownOption { option, .. } => {
                write!(f, "it has no option named '{option}'")
            }
            EngineError::BadOptionValue {
                option, problem, ..
            } => write!(f, "bad value for option '{option}': {problem}"),
            EngineError::Io {
                context, source, ..
            } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for EngineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EngineError::Spawn { source, .. } | EngineError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(kind: io::ErrorKind) -> EngineError {
        EngineError::Spawn {
            engine: "e".into(),
            cmd: "x".into(),
            source: io::Error::from(kind),
        }
    }

    #[test]
    fn configuration_failures_recur_and_passing_ones_do_not() {
        let engine = || "e".to_string();
        let recurring = [
            spawn(io::ErrorKind::NotFound),
            EngineError::NotExecutable {
                engine: engine(),
                cmd: "x".into(),
            },
            EngineError::UnknownOption {
                engine: engine(),
                option: "Evall".into(),
            },
            EngineError::BadOptionValue {
                engine: engine(),
                option: "Eval".into(),
                problem: "not a choice".into(),
            },
        ];
        for err in &recurring {
            assert!(err.recurs_at_start(), "{err}");
        }
        let passing = [
            spawn(io::ErrorKind::OutOfMemory),
            spawn(io::ErrorKind::ExecutableFileBusy),
            EngineError::HandshakeTimeout {
                engine: engine(),
                after: Duration::from_secs(10),
            },
            EngineError::ReadyTimeout {
                engine: engine(),
                after: Duration::from_secs(10),
            },
            EngineError::ExitedAtStart {
                engine: engine(),
                status: None,
                stderr_tail: String::new(),
            },
            EngineError::MoveTimeout {
                engine: engine(),
                after: Duration::from_secs(1),
            },
        ];
        for err in &passing {
            assert!(!err.recurs_at_start(), "{err}");
        }
    }
}
