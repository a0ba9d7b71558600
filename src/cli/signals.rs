//! Stopping on a signal: SIGINT (Ctrl-C), SIGTERM and SIGHUP (what `scancel`, Kubernetes and a
//! closed terminal send) all stop bt-arena the same way, from the first moment of a command
//! that builds, benches or plays (before any build: a build is a child bt-arena stops).
//!
//! - The first signal sets the stop flag: a build or bench in progress is stopped with its
//!   process group, no new game starts, an engine thinking is sent `stop` and ended with its
//!   process group after [`bt_arena::engine::STOP_GRACE`] (a hung engine under a fixed depth
//!   or node count would otherwise keep the stop waiting for its move timeout), and the games
//!   in flight are dropped (replayed by `--resume`); the command exits with
//!   [`EXIT_INTERRUPTED`] within 2 s and says what to do next.
//! - A second signal exits at once with [`EXIT_INTERRUPTED`]; engines, benches and builds die
//!   with bt-arena (their parent-death signal).
//! - Commands with nothing to stop gently once their engines are built (`check-engine`,
//!   `perft-check`) call [`exit_at_once_from_now`]: every later signal exits at once.
//!
//! SIGINT is handled even when bt-arena inherited it ignored: a non-interactive shell starts
//! its background jobs (`bt-arena ... &` in a script) with SIGINT ignored, and bt-arena then
//! played a whole tournament through a `kill -INT`. A run stopped by a signal loses nothing
//! (`--resume` continues it), so bt-arena takes SIGINT as the stop it asks for, wherever it was
//! started; SIGTERM and SIGHUP work in any case.

use anyhow::{Context, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Exit code of a command stopped by a signal (128 + SIGINT, whichever signal it was).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Set once the next signal must exit at once.
static AT_ONCE: AtomicBool = AtomicBool::new(false);

/// The stop flag, with the handler of SIGINT, SIGTERM and SIGHUP installed on the first call
/// (see the module documentation).
///
/// # Errors
/// When the handler cannot be installed.
pub fn stop_flag() -> Result<Arc<AtomicBool>> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(flag) = FLAG.get() {
        return Ok(flag.clone());
    }
    let flag = Arc::new(AtomicBool::new(false));
    let signals = AtomicUsize::new(0);
    let handler_flag = flag.clone();
    ctrlc::set_handler(move || {
        let first = signals.fetch_add(1, Ordering::SeqCst) == 0;
        if first && !AT_ONCE.load(Ordering::SeqCst) {
            handler_flag.store(true, Ordering::SeqCst);
            note!(
                "\nStopping: no new build, bench or game starts, engines thinking are told to \
                 stop (and ended after 0.5 s); press Ctrl-C again to exit at once."
            );
        } else {
            note!("\nInterrupted");
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    })
    .context("cannot install the handler of SIGINT, SIGTERM and SIGHUP")?;
    Ok(FLAG.get_or_init(|| flag).clone())
}

/// From now on a signal exits at once with [`EXIT_INTERRUPTED`] (for a command with nothing
/// to stop gently once its engines are built).
///
/// # Errors
/// [`Interrupted`] when a signal came already (during the build).
pub fn exit_at_once_from_now(stop: &AtomicBool) -> Result<()> {
    AT_ONCE.store(true, Ordering::SeqCst);
    if stop.load(Ordering::SeqCst) {
        return Err(Interrupted("nothing was run".to_string()).into());
    }
    Ok(())
}

/// A command stopped by a signal before it did its work (during a build or a bench): `main`
/// prints `Interrupted: ` and the text, and exits with [`EXIT_INTERRUPTED`].
#[derive(Debug)]
pub struct Interrupted(pub String);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// The error of engines not made ready: [`Interrupted`] when a signal stopped their build or
/// bench (naming what was stopped; nothing was played), else the error itself.
pub fn prepare_error(error: bt_arena::arena::prepare::PrepareError) -> anyhow::Error {
    match error.is_interrupted() {
        true => Interrupted(format!(
            "{error}; nothing was played: run the command again"
        ))
        .into(),
        false => error.into(),
    }
}
