//! How an engine's process is launched: its command, arguments, directory, environment,
//! protocol, options, log files and timeouts outside of searches.

use crate::protocol::Protocol;
use crate::protocol::codingame::MoveOrder;
use std::path::PathBuf;
use std::time::Duration;

/// How long an engine may take outside of searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// From `ugi`/`uci` to `ugiok`/`uciok` (default 10 s).
    pub handshake: Duration,
    /// From `isready` to `readyok` (default 10 s).
    pub ready: Duration,
    /// From `quit` until the engine is killed (default 1 s).
    pub quit_grace: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            handshake: Duration::from_secs(10),
            ready: Duration::from_secs(10),
            quit_grace: Duration::from_secs(1),
        }
    }
}

/// How an engine's process is launched and spoken to (see [`crate::engine::EngineDescription`]
/// for the engine the user described, whose [`launch`](crate::engine::EngineDescription::launch)
/// gives one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineLaunch {
    /// The name used in messages, logs and results.
    pub name: String,
    /// The program, run directly (no shell); a bare name is looked up as
    /// [`crate::engine::locate`] says (a bundled engine beside bt-arena first, then `PATH`).
    pub cmd: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory; the runner's when `None`.
    pub dir: Option<PathBuf>,
    /// Environment variables set for it, besides the runner's own.
    pub env: Vec<(String, String)>,
    /// The protocol it speaks.
    pub proto: Protocol,
    /// A CodinGame bot's order of the legal moves of a turn (`moveorder=`).
    pub move_order: MoveOrder,
    /// Options set after the handshake, in this order (name, value). Each must be declared by
    /// the engine and its value allowed, except that a combo value the engine did not list is
    /// sent with a warning (engines extend combos at run time: Fairy-Stockfish's `UCI_Variant`
    /// after `VariantPath`). `Rules` and `UCI_Variant` are then set from the rule set unless
    /// given here.
    pub options: Vec<(String, String)>,
    /// A file its stderr is appended to; discarded when `None` (the last 2 KiB are always kept
    /// for error messages).
    pub stderr_log: Option<PathBuf>,
    /// A file every protocol line is appended to, both directions, as
    /// `<seconds since the first logged line> <name> <'>' to engine | '<' from engine> <line>`.
    pub comm_log: Option<PathBuf>,
    /// Timeouts outside of searches.
    pub timeouts: Timeouts,
    /// The CPUs it may run on (`--affinity`), set before it starts (so its threads inherit
    /// them); empty: any.
    pub cpus: Vec<usize>,
}
