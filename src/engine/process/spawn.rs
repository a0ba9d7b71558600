//! Spawning: the command of an engine (no shell, pipes, a process group of its own, the
//! parent-death signal, CPU affinity), the one long-lived spawner thread every child is
//! started from, and the typed error of a failed spawn.

use crate::engine::EngineError;
use crate::engine::EngineLaunch;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};

/// The command for `launch`: program (see [`crate::engine::locate`]), arguments, directory,
/// environment, pipes, own process group and (Linux) the parent-death signal.
pub(super) fn command(launch: &EngineLaunch) -> Command {
    let mut command = Command::new(crate::engine::locate::to_run(&launch.cmd));
    command
        .args(&launch.args)
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = &launch.dir {
        command.current_dir(dir);
    }
    set_parent_death_signal(&mut command);
    set_affinity(&mut command, &launch.cpus);
    command
}

/// Pins the child to `cpus` before it runs (Linux; none when `cpus` is empty): its threads
/// inherit the mask (`sched_setaffinity`).
#[cfg(target_os = "linux")]
fn set_affinity(command: &mut Command, cpus: &[usize]) {
    if cpus.is_empty() {
        return;
    }
    // SAFETY: an all-zero cpu_set_t is a valid empty set; CPU_SET writes within it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        // SAFETY: `cpu` is below CPU_SETSIZE (checked by the command line).
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: the closure runs between fork and exec and calls only sched_setaffinity (async-
    // signal-safe) on a set built before the fork; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn set_affinity(_command: &mut Command, _cpus: &[usize]) {}

/// A request to the spawner thread: the command, and where to send the child.
type SpawnRequest = (Command, Sender<io::Result<Child>>);

/// Spawns `command` on one thread that lives as long as the runner. The parent-death signal
/// fires when the thread that spawned a child ends, so spawning from there makes it fire only
/// when the runner ends, whichever threads start and use engines.
pub(super) fn spawn_child(command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<Sender<SpawnRequest>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (requests, inbox) = channel::<SpawnRequest>();
        spawn_thread("spawner", move || {
            for (mut command, reply) in inbox {
                let _ = reply.send(command.spawn());
            }
        });
        requests
    });
    let (reply, answer) = channel();
    match spawner.send((command, reply)) {
        Ok(()) => answer
            .recv()
            .unwrap_or_else(|_| Err(io::Error::other("the engine spawner thread is gone"))),
        // No spawner thread could be started: spawn here (the signal then follows this thread).
        Err(std::sync::mpsc::SendError((mut command, _))) => command.spawn(),
    }
}

/// Makes the child receive SIGKILL when the thread that spawned it ends (Linux only).
#[cfg(target_os = "linux")]
pub(super) fn set_parent_death_signal(command: &mut Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
    // functions (prctl, getppid); it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            // The runner died before prctl took effect: do not run as an orphan.
            if u32::try_from(libc::getppid()) != Ok(parent) {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn set_parent_death_signal(_command: &mut Command) {}

/// The typed error for a failed spawn.
pub(super) fn spawn_error(launch: &EngineLaunch, source: io::Error) -> EngineError {
    let engine = launch.name.clone();
    let cmd = launch.cmd.clone();
    if source.kind() == io::ErrorKind::PermissionDenied {
        EngineError::NotExecutable { engine, cmd }
    } else {
        EngineError::Spawn {
            engine,
            cmd,
            source,
        }
    }
}

/// Runs `work` on a named thread; a thread that cannot be created leaves its pipe unserved,
/// which shows up as a timeout or a closed engine.
pub(super) fn spawn_thread(role: &str, work: impl FnOnce() + Send + 'static) {
    let _ = std::thread::Builder::new()
        .name(format!("engine-{role}"))
        .spawn(work);
}
