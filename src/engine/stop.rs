//! Whose signal was it: a child (an engine, a bench, a build) that dies of a signal was either
//! stopped with bt-arena (`scancel`, Kubernetes and a closed terminal signal every process of a
//! job, bt-arena included) or died on its own (an engine that kills itself, a crash, the OOM
//! killer). Only a signal bt-arena itself received stops a run; any other is the child's fault.
//!
//! bt-arena's own handler sets the run's stop flag (the `bt-arena` binary installs it for
//! SIGINT, SIGTERM and SIGHUP before anything is built or played). The signals of one `kill`
//! to a whole job reach the processes in no set order, so the child may be seen dead before the
//! handler has run: [`stopping`] waits [`OWN_SIGNAL_GRACE`] for the flag before it calls the
//! death the child's own.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a child's death by a signal waits for bt-arena's own handler to set the stop flag,
/// before it is taken for the child's own fault.
pub const OWN_SIGNAL_GRACE: Duration = Duration::from_millis(250);

/// How often the flag is looked at while waiting.
const POLL: Duration = Duration::from_millis(5);

/// Whether the run is stopping: `stop` is set, or a child that `died_of_signal` is followed
/// within [`OWN_SIGNAL_GRACE`] by `stop` being set (bt-arena received a signal too). Waits up to
/// that grace only for a death by signal with `stop` still clear.
pub fn stopping(stop: &AtomicBool, died_of_signal: bool) -> bool {
    if stop.load(Ordering::SeqCst) {
        return true;
    }
    if !died_of_signal {
        return false;
    }
    let deadline = Instant::now() + OWN_SIGNAL_GRACE;
    while Instant::now() < deadline {
        std::thread::sleep(POLL);
        if stop.load(Ordering::SeqCst) {
            return true;
        }
    }
    false
}

/// Whether `status` is a death by a signal.
pub fn died_of_signal(status: &std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    status.signal().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_death_by_signal_waits_briefly_for_the_runners_own_handler() {
        let stop = AtomicBool::new(false);
        assert!(!stopping(&stop, false));
        let started = Instant::now();
        assert!(!stopping(&stop, true));
        assert!(started.elapsed() >= OWN_SIGNAL_GRACE);
        // The handler runs a little after the child died: the run is stopping.
        let stop = Arc::new(AtomicBool::new(false));
        let setter = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                stop.store(true, Ordering::SeqCst);
            })
        };
        assert!(stopping(&stop, true));
        setter.join().expect("the setter ends");
        assert!(stopping(&stop, false));
    }
}
