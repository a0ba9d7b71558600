//! The handshake: `ugi` (or `uci`), the engine's `id` and `option` lines, then `ugiok` (or
//! `uciok`). An engine that does not speak the protocol configured (`proto=`, UGI by
//! default) is tried once with the other: a UCI engine given without `proto=uci` answers
//! `ugi` with `Unknown command: ugi` (Fairy-Stockfish, Stockfish) or with nothing, and `uci`
//! with `uciok`. It is then spoken to in the protocol it answered, with a warning that says
//! so and names the key that skips the try; later starts of the same command in this process
//! use that protocol at once.

use super::wait::Wait;
use super::{Engine, EngineError, EngineLaunch};
use crate::protocol::{Command, Protocol, Reply};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

/// How one try of the handshake ended.
enum Try {
    /// `ugiok` or `uciok`: the protocol it closed.
    Done(Protocol),
    /// The engine said it does not know the command: its line.
    Unknown(String),
    /// Nothing that ends it within the handshake timeout.
    Silent,
}

/// The protocol a command (program and arguments) answered in this process when it was not
/// the one configured.
type Spoken = BTreeMap<(PathBuf, Vec<String>), Protocol>;

/// What each command turned out to speak, for its later starts.
static SPOKEN: Mutex<Spoken> = Mutex::new(BTreeMap::new());

/// [`SPOKEN`], locked.
fn spoken() -> std::sync::MutexGuard<'static, Spoken> {
    SPOKEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The words of a line by which an engine says it does not know a command.
const UNKNOWN_WORDS: [&str; 5] = [
    "unknown",
    "unrecognized",
    "unrecognised",
    "invalid",
    "unsupported",
];

/// True when `line` says the command `sent` (`ugi`, `uci`) is unknown: a word of
/// [`UNKNOWN_WORDS`] and the command as a word of its own, in any case
/// (`Unknown command: ugi`, `Unknown command: 'ugi'. Type help for more information.`).
pub fn says_unknown(line: &str, sent: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let mut words = lower.split(|c: char| !c.is_ascii_alphanumeric());
    let mut words_again = words.clone();
    words.any(|word| UNKNOWN_WORDS.contains(&word)) && words_again.any(|word| word == sent)
}

impl Engine {
    /// Runs the handshake in the configured protocol (or the one this command answered
    /// before in this process); an engine that answers it with an unknown-command line, or
    /// not at all, gets one try of the other protocol, for as long again. Either `ugiok` or
    /// `uciok` then ends it, and the engine is spoken to in that protocol from then on, with
    /// a warning (see the module documentation).
    ///
    /// # Errors
    /// [`EngineError::HandshakeTimeout`] (nothing answered either try),
    /// [`EngineError::HandshakeRefused`] (the unknown-command line, and no answer to the
    /// other), or the errors of a crash or a stall writing to it.
    pub(super) fn handshake(&mut self, launch: &EngineLaunch) -> Result<(), EngineError> {
        let key = (launch.cmd.clone(), launch.args.clone());
        if let Some(&protocol) = spoken().get(&key) {
            self.protocol = protocol;
        }
        let first = self.protocol;
        let tried = match self.try_handshake(first, &[first])? {
            Try::Done(_) => return Ok(()),
            tried => tried,
        };
        // What the first try read is not the engine's answer to the second.
        self.id_name = None;
        self.id_author = None;
        self.options.clear();
        let other = first.other();
        match self.try_handshake(other, &[first, other])? {
            // A late answer to the first try.
            Try::Done(protocol) if protocol == first => Ok(()),
            Try::Done(protocol) => {
                let answer = match &tried {
                    Try::Unknown(line) => format!("answered {} with '{line}'", first.name()),
                    _ => format!(
                        "did not answer {} within {} ms",
                        first.name(),
                        self.timeouts.handshake.as_millis()
                    ),
                };
                self.warn(format!(
                    "engine '{}' {answer}, and {} with {}: it speaks {3}, and is spoken to in {3} \
                     (add proto={1} to its --engine to skip the try)",
                    self.name,
                    protocol.name(),
                    protocol.ok(),
                    protocol.upper(),
                ));
                self.protocol = protocol;
                spoken().insert(key, protocol);
                Ok(())
            }
            _ => Err(match tried {
                Try::Unknown(line) => EngineError::HandshakeRefused {
                    engine: self.name.clone(),
                    protocol: first,
                    line,
                },
                _ => EngineError::HandshakeTimeout {
                    engine: self.name.clone(),
                    after: self.timeouts.handshake,
                },
            }),
        }
    }

    /// Sends the handshake command of `protocol` and reads `id`, `option` and a closing
    /// `ugiok`/`uciok` of one of `accepted`, skipping other lines (banners, malformed
    /// options) and counting a `bestmove` as stray, until the handshake timeout; a line
    /// saying the command is unknown ends it.
    fn try_handshake(
        &mut self,
        protocol: Protocol,
        accepted: &[Protocol],
    ) -> Result<Try, EngineError> {
        let after = self.timeouts.handshake;
        let deadline = Instant::now() + after;
        let timeout = |engine| EngineError::HandshakeTimeout { engine, after };
        self.send(&[Command::Handshake(protocol)], deadline, timeout)?;
        let sent = Command::Handshake(protocol).to_line(protocol);
        let read = self.wait(deadline, timeout, |engine, line, reply, _| {
            match reply {
                Ok(Reply::IdName(name)) => engine.id_name = Some(name),
                Ok(Reply::IdAuthor(author)) => engine.id_author = Some(author),
                Ok(Reply::Option(decl)) => engine.options.push(decl),
                Ok(Reply::HandshakeOk(answered)) if accepted.contains(&answered) => {
                    return Ok(Wait::Done(Try::Done(answered)));
                }
                Ok(Reply::BestMove { .. }) => engine.stray.note(line),
                _ if says_unknown(line, &sent) => {
                    return Ok(Wait::Done(Try::Unknown(line.trim().to_string())));
                }
                _ => {}
            }
            Ok(Wait::Continue)
        });
        match read {
            Err(EngineError::HandshakeTimeout { .. }) => Ok(Try::Silent),
            read => read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::says_unknown;

    #[test]
    fn an_unknown_command_line_names_the_command_as_a_word() {
        assert!(says_unknown("Unknown command: ugi", "ugi"));
        assert!(says_unknown(
            "Unknown command: 'ugi'. Type help for more information.",
            "ugi"
        ));
        assert!(says_unknown("info string unrecognized command uci", "uci"));
        assert!(!says_unknown("Unknown command: ugi", "uci"));
        assert!(!says_unknown("Unknown command: ugix", "ugi"));
        assert!(!says_unknown(
            "Fairy-Stockfish 11.1 LB by Fabian Fichter",
            "ugi"
        ));
    }
}
