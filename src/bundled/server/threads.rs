//! The loop's two threads: each reads input and acts on it until a line starts a job, then
//! leaves the input to the other thread and runs the job (see the notes of [`super`]).

use super::commands::Server;
use super::jobs::{Done, Work, run_work};
use super::{Brain, End, Output};
use std::io::{self, BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};

/// Runs the command loop of [`super::serve_with`]: starts the two threads and waits for the
/// loop's end.
pub(super) fn run<B, R, W>(brain: B, input: R, output: W) -> io::Result<()>
where
    B: Brain,
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let out = Output(Arc::new(Mutex::new(Box::new(output))));
    let shared = Arc::new(Shared {
        server: Mutex::new(Server::new(brain, out.clone())),
        input: Mutex::new(Input {
            reader: input,
            buffer: Vec::new(),
            ended: false,
        }),
        out,
    });
    let (ending, ended) = channel();
    for name in ["commands-1", "commands-2"] {
        let (shared, ending) = (Arc::clone(&shared), ending.clone());
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let run = std::panic::AssertUnwindSafe(|| shared.run_thread(&ending));
                if std::panic::catch_unwind(run).is_err() {
                    let _ = ending.send(Err(io::Error::other("internal: a thread panicked")));
                }
            })?;
    }
    drop(ending);
    // The threads report the end (a panic too); all gone without a word cannot happen, but
    // ends the loop as an error rather than a hang.
    let result = ended
        .recv()
        .unwrap_or_else(|_| Err(io::Error::other("the engine's threads are gone")));
    let mut server = lock(&shared.server);
    server.ended = true;
    if let Some(job) = &server.job {
        job.stop.store(true, Ordering::Relaxed);
    }
    result
}

/// Locks the loop's state, the input or the output, also after a panic elsewhere.
fn lock<T: ?Sized>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a thread does after acting on the loop's state.
enum Next<B> {
    /// Run this job (a search or perft the action started).
    Run(Box<Work<B>>),
    /// Go on.
    Continue,
    /// The loop has ended.
    Ended,
}

/// The input, read by one thread at a time.
struct Input<R> {
    reader: R,
    /// The line being read, reused.
    buffer: Vec<u8>,
    /// True once the input has ended (or failed): nothing more is read.
    ended: bool,
}

/// What the loop's two threads share. Each thread reads input and acts on it until a line
/// starts a job; it then leaves the input to the other thread (so `isready`, `stop` and `quit`
/// are still answered at once), runs the job itself, and goes back to reading when no queued
/// job follows. A move thus costs one thread wake-up in the engine, as `isready` does.
struct Shared<B, R> {
    server: Mutex<Server<B>>,
    input: Mutex<Input<R>>,
    out: Output,
}

impl<B: Brain, R: BufRead> Shared<B, R> {
    fn run_thread(&self, ending: &Sender<io::Result<()>>) {
        while let Some(work) = self.read_until_work(ending) {
            let mut next = Next::Run(work);
            while let Next::Run(work) = next {
                next = self.run_job(work, ending);
            }
            if let Next::Ended = next {
                return;
            }
        }
    }

    /// Runs `act` on the loop's state unless the loop has ended, and takes the job it started;
    /// reports the loop's end on `ending` when `act` ends it.
    fn act_on(
        &self,
        ending: &Sender<io::Result<()>>,
        act: impl FnOnce(&mut Server<B>) -> End,
    ) -> Next<B> {
        let mut server = lock(&self.server);
        if server.ended {
            return Next::Ended;
        }
        if let Some(result) = act(&mut server) {
            server.ended = true;
            let _ = ending.send(result);
            return Next::Ended;
        }
        server.work.take().map_or(Next::Continue, Next::Run)
    }

    /// Reads lines and acts on them, holding the input, until one starts a job (returned: the
    /// input is then free for the other thread); `None` when the input or the loop ends. A job
    /// that ends at once (see [`Brain::searches_at_once`]) is run here, holding the input.
    fn read_until_work(&self, ending: &Sender<io::Result<()>>) -> Option<Box<Work<B>>> {
        let mut input = lock(&self.input);
        loop {
            if input.ended {
                return None;
            }
            let Input { reader, buffer, .. } = &mut *input;
            buffer.clear();
            let mut next = match reader.read_until(b'\n', buffer) {
                Ok(0) | Err(_) => {
                    input.ended = true;
                    self.act_on(ending, Server::input_ended)
                }
                Ok(_) => {
                    let line = String::from_utf8_lossy(buffer);
                    self.act_on(ending, |server| server.line(line.trim_end()))
                }
            };
            loop {
                match next {
                    Next::Run(work) if work.at_once() => next = self.run_job(work, ending),
                    Next::Run(work) => return Some(work),
                    Next::Continue => break,
                    Next::Ended => return None,
                }
            }
        }
    }

    /// Runs `work` and acts on its end; what to do next (a job a queued command started).
    fn run_job(&self, work: Box<Work<B>>, ending: &Sender<io::Result<()>>) -> Next<B> {
        let what = work.name();
        let run = std::panic::AssertUnwindSafe(|| run_work(*work, &self.out));
        let done = std::panic::catch_unwind(run).unwrap_or(Done::Panicked(what));
        self.act_on(ending, |server| server.job_done(done))
    }
}
