//! What a long command is doing while it waits on an engine (`perft-check`'s perfts,
//! `bench`'s benches), so that it is never silent for long: on a terminal, a spinner on stderr
//! naming the step and its time (indicatif, as the tournament's progress line); off a
//! terminal (a CI log), a line on stderr for a step still going after [`FIRST_NOTE`], then
//! every [`NEXT_NOTE`]. A step that ends sooner leaves no line off a terminal: the command's
//! own line per step says it.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Off a terminal, how long a step goes before a line says it is still going.
pub const FIRST_NOTE: Duration = Duration::from_secs(5);

/// The environment variable that sets [`FIRST_NOTE`] in whole seconds: the docs' test sets it
/// high, so that the examples' output does not depend on how loaded the machine running them
/// is. Never needed otherwise.
pub const FIRST_NOTE_ENV: &str = "BT_ARENA_PROGRESS_NOTE_SECONDS";

/// Off a terminal, how often a line says so again.
pub const NEXT_NOTE: Duration = Duration::from_secs(15);

/// The step being waited on: what it is, since when, and how many lines said so.
struct Step {
    text: String,
    since: Instant,
    notes: u32,
}

/// The progress of a command; dropped, it stops and clears its line.
pub struct Progress {
    bar: ProgressBar,
    step: Arc<Mutex<Option<Step>>>,
    done: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl Progress {
    /// The progress of `command` (`perft-check`), which names its lines off a terminal.
    pub fn start(command: &'static str) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = match terminal {
            true => {
                let bar = ProgressBar::new_spinner();
                if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
                    bar.set_style(style);
                }
                bar.enable_steady_tick(Duration::from_millis(100));
                bar
            }
            false => ProgressBar::hidden(),
        };
        let step: Arc<Mutex<Option<Step>>> = Arc::new(Mutex::new(None));
        let done = Arc::new(AtomicBool::new(false));
        let first = std::env::var(FIRST_NOTE_ENV)
            .ok()
            .and_then(|seconds| seconds.parse().ok())
            .map_or(FIRST_NOTE, Duration::from_secs);
        let ticker = (!terminal).then(|| {
            let (step, done) = (Arc::clone(&step), Arc::clone(&done));
            std::thread::spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(100));
                    let mut step = step.lock().unwrap_or_else(PoisonError::into_inner);
                    let Some(step) = step.as_mut() else { continue };
                    let due = first + NEXT_NOTE * step.notes;
                    let elapsed = step.since.elapsed();
                    if elapsed >= due {
                        step.notes += 1;
                        eprintln!("{command}: still {}: {} s", step.text, elapsed.as_secs());
                    }
                }
            })
        });
        Progress {
            bar,
            step,
            done,
            ticker,
        }
    }

    /// Starts waiting on the step `text` (`checking position 3 of 34 ...`).
    pub fn step(&self, text: String) {
        self.bar.set_message(text.clone());
        self.bar.reset_elapsed();
        *self.step.lock().unwrap_or_else(PoisonError::into_inner) = Some(Step {
            text,
            since: Instant::now(),
            notes: 0,
        });
    }

    /// Runs `print` (a line of the command's own output) with the spinner out of the way.
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        self.bar.suspend(print)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
        self.bar.finish_and_clear();
    }
}
