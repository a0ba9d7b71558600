//! Process groups: waiting for a child without reaping it, signalling its whole group, and
//! [`GroupChild`], a child that is not an engine (a build command) started and stopped as a
//! group.

use super::EXIT_POLL;
use super::spawn::{set_parent_death_signal, spawn_child};
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// Waits until child `pid` has exited or `deadline` passes, leaving it unreaped (its pid and
/// process group id stay reserved); whether it has exited.
pub(super) fn wait_unreaped(pid: u32, deadline: Instant) -> bool {
    loop {
        // SAFETY: `waitid` writes only to `info`, a plain C struct owned by this frame.
        let exited = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            let rc = libc::waitid(libc::P_PID, pid, &mut info, flags);
            rc != 0 || info.si_pid() != 0
        };
        if exited || Instant::now() >= deadline {
            return exited;
        }
        std::thread::sleep(EXIT_POLL);
    }
}

/// Sends `signal` to the process group led by child `pid`. Only for an unreaped child, whose
/// ids are still its own.
pub(super) fn signal_group(pid: u32, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: a plain system call on ids reserved by our unreaped child.
        unsafe {
            libc::killpg(pid, signal);
        }
    }
}

/// A child that is not an engine (a build command): started as engines are, in a process
/// group of its own with the parent-death signal (see the module documentation), and stopped
/// as a whole group.
pub(crate) struct GroupChild {
    child: Child,
}

/// How a [`GroupChild`] ended.
#[derive(Debug)]
pub(crate) enum GroupEnd {
    /// It exited by itself (or died of a signal someone else sent).
    Exited(ExitStatus),
    /// `stop` was set: its process group was stopped.
    Stopped,
}

impl GroupChild {
    /// Starts `command` in a process group of its own with the parent-death signal, from the
    /// spawner thread.
    pub(crate) fn spawn(mut command: Command) -> io::Result<GroupChild> {
        command.process_group(0);
        set_parent_death_signal(&mut command);
        spawn_child(command).map(|child| GroupChild { child })
    }

    /// The process id (also its process group's).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the child to exit, looking at `stop` meanwhile. Once `stop` is set, the
    /// child's process group gets SIGTERM, then SIGKILL `grace` later if the child has not
    /// exited; the group is killed and the child reaped either way before [`GroupEnd::Stopped`]
    /// is returned. A child that exits by itself is reaped; what it left running in its group
    /// is left alone.
    ///
    /// # Errors
    /// The operating system's, when the child cannot be waited for.
    pub(crate) fn wait_or_stop(
        &mut self,
        stop: &std::sync::atomic::AtomicBool,
        grace: Duration,
    ) -> io::Result<GroupEnd> {
        use std::sync::atomic::Ordering;
        const POLL: Duration = Duration::from_millis(20);
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(GroupEnd::Exited(status));
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(POLL);
        }
        signal_group(self.pid(), libc::SIGTERM);
        wait_unreaped(self.pid(), Instant::now() + grace);
        signal_group(self.pid(), libc::SIGKILL);
        let _ = self.child.kill();
        self.child.wait()?;
        Ok(GroupEnd::Stopped)
    }
}

impl Drop for GroupChild {
    /// A child still running when its owner is dropped (an error, a panic) is killed with its
    /// group and reaped.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal_group(self.pid(), libc::SIGKILL);
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
