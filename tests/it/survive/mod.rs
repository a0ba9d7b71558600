//! Workers that survive their own failures (issue 38): the ordinary accidents of a cluster,
//! played with real processes on each kind of run (a tournament's game pairs, a tune's
//! iterations, datagen's games): a worker stopped past its lease (SIGSTOP) and woken after its
//! taker died, a claim deleted or overwritten under a worker alone, `claims/` removed while
//! workers play, a worker directory removed (a dead worker's, a live one's own), markers that
//! lie, a worker killed between its own record and games.csv, two workers released at once
//! onto one expired claim. Each run must end complete and equal to one machine's games
//! (tournament), θ (tune) or bytes (datagen), within the lease and a margin: every wait has a
//! limit that fails the test, and every process a test started is killed when it fails.
//!
//! The engines are bt-faulty's `tunable` mode with `Seed` set (deterministic: bt-search's move
//! at depth 2, or a random one drawn from the seed), each move delayed by up to
//! [`JITTER_MS`] ms (timing only), so that a worker can be caught in the middle of a unit.

mod dirs;
mod leases;
mod messages;
mod race;

use crate::util::{FAULTY, bt_arena, bt_arena_command, eventually, games_of, path, stderr};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Each engine move is delayed by up to this many ms (`BT_FAULTY_JITTER_MS`).
const JITTER_MS: &str = "30";
/// The workers' lease (`--lease`).
pub(crate) const LEASE: &str = "2s";
/// [`LEASE`] as a duration.
pub(crate) const LEASE_TIME: Duration = Duration::from_secs(2);
/// How long a run of workers may take beyond its leases (a loaded 2-core machine) before
/// the test fails rather than waits.
pub(crate) const MARGIN: Duration = Duration::from_secs(180);

/// A kind of run the scenarios are played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tournament,
    Tune,
    Datagen,
}

impl Kind {
    /// What its units are called (in lease files and messages).
    pub(crate) fn unit(self) -> &'static str {
        match self {
            Kind::Tournament => "pair",
            Kind::Tune => "iteration",
            Kind::Datagen => "game",
        }
    }

    /// Units of its run.
    pub(crate) fn units(self) -> u64 {
        match self {
            Kind::Tournament | Kind::Tune => 6,
            Kind::Datagen => 12,
        }
    }

    /// Games of each unit.
    pub(crate) fn games_per_unit(self) -> u64 {
        match self {
            Kind::Tournament | Kind::Tune => 2,
            Kind::Datagen => 1,
        }
    }

    /// The game ids of `unit`.
    pub(crate) fn games_of_unit(self, unit: u64) -> std::ops::RangeInclusive<u64> {
        let per = self.games_per_unit();
        (unit - 1) * per + 1..=unit * per
    }

    /// The command line of its run into `out` (on one machine), with `extra` flags.
    pub(crate) fn args(self, out: &Path, extra: &[&str]) -> Vec<String> {
        self.args_of(self.units(), out, extra)
    }

    /// The command line of its run of `units` units into `out`, with `extra` flags.
    pub(crate) fn args_of(self, units: u64, out: &Path, extra: &[&str]) -> Vec<String> {
        let faulty = format!("cmd={FAULTY}");
        let (rounds, games) = (
            units.to_string(),
            (units * self.games_per_unit()).to_string(),
        );
        let mut args: Vec<String> = match self {
            Kind::Tournament => [
                "tournament",
                "--engine",
                &faulty,
                "name=new",
                "args=--fault tunable",
                "option.Seed=5",
                "option.KnobA=150",
                "option.KnobB=-100",
                "--engine",
                &faulty,
                "name=base",
                "args=--fault tunable",
                "option.Seed=5",
                "--each",
                "depth=2",
                "--rounds",
                &rounds,
                "--seed",
                "3",
                "--sprt",
                "elo0=0,elo1=5",
                "--out",
                path(out),
            ]
            .map(String::from)
            .to_vec(),
            // Two iterations in flight at once: two workers play side by side (one in a
            // tune of one iteration: the lag is at most the iterations).
            Kind::Tune => {
                let lag = if units >= 2 { "2" } else { "1" };
                crate::tune::knob_tune(out, u32::try_from(units).unwrap(), &["--lag", lag])
            }
            Kind::Datagen => [
                "datagen",
                "--engine",
                &faulty,
                "args=--fault tunable --score-cp 7",
                "option.Seed=5",
                "--games",
                &games,
                "--seed",
                "5",
                "--startpos",
                "--random-plies",
                "2-6",
                "--text",
                "--out",
                path(out),
            ]
            .map(String::from)
            .to_vec(),
        };
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }

    /// The command line of a worker of the run in `run` (lease [`LEASE`]), with `extra`.
    pub(crate) fn worker(self, run: &Path, extra: &[&str]) -> Vec<String> {
        let mut flags = vec!["--worker", "--lease", LEASE];
        flags.extend_from_slice(extra);
        self.args(run, &flags)
    }

    /// The run on one machine, played once for every test (the directory and its exit code).
    pub(crate) fn reference(self) -> &'static (PathBuf, i32) {
        static DONE: [OnceLock<(PathBuf, i32)>; 3] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        DONE[self as usize].get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("survive-{self:?}"));
            let _ = std::fs::remove_dir_all(&dir);
            let output = bt_arena(&self.args(&dir, &[]));
            let code = output.status.code().expect("an exit code");
            assert!(code == 0 || code == 2, "{}", stderr(&output));
            (dir, code)
        })
    }

    /// The exit code of its run on one machine (a worker finding the run complete exits
    /// with it).
    pub(crate) fn code(self) -> i32 {
        self.reference().1
    }

    /// Asserts that the run of workers in `run` is complete and equal to one machine's: its
    /// games (merged, each once), its θ (each iteration once, as one machine's) or its bytes.
    pub(crate) fn assert_one_machines(self, run: &Path) {
        let (single, code) = self.reference();
        match self {
            Kind::Tournament => {
                let merge = bt_arena(&["merge", path(run)]);
                assert_eq!(merge.status.code(), Some(*code), "{}", stderr(&merge));
                let mut games = games_of(&run.join("games.csv"));
                games.sort_by_key(|game| game.game_id);
                assert_eq!(games, games_of(&single.join("games.csv")));
            }
            Kind::Tune => {
                crate::tune::assert_one_machines_tune(run, single, self.units());
                assert_eq!(
                    std::fs::read_to_string(run.join("tuned-options.txt")).unwrap(),
                    std::fs::read_to_string(single.join("tuned-options.txt")).unwrap()
                );
            }
            Kind::Datagen => crate::datagen_workers::assert_same_bytes(run, single),
        }
    }
}

/// The ids of the games the workers of `run` recorded (rows of their games.csv).
pub(crate) fn recorded_ids(run: &Path) -> BTreeSet<u64> {
    bt_arena::run_dir::RunDir::new(run)
        .worker_dirs()
        .unwrap_or_default()
        .iter()
        .filter_map(|dir| bt_arena::records::read_games(&dir.games_csv()).ok())
        .flatten()
        .map(|game| game.game_id)
        .collect()
}

/// Whether every game of `unit` of `kind` is recorded in `run`.
pub(crate) fn unit_recorded(kind: Kind, run: &Path, unit: u64) -> bool {
    let ids = recorded_ids(run);
    kind.games_of_unit(unit).all(|id| ids.contains(&id))
}

/// The pid the lease on `unit` of `kind` in `run` names (`claims/KIND-N`), when there is one
/// that names one.
pub(crate) fn holder(kind: Kind, run: &Path, unit: u64) -> Option<i32> {
    let claim = run.join(format!("claims/{}-{unit}", kind.unit()));
    bt_arena::lease::holder_of(&claim).map(|holder| holder.pid)
}

/// The units of `kind` in `run` whose lease names process `pid`.
pub(crate) fn held_by(kind: Kind, run: &Path, pid: i32) -> Vec<u64> {
    let prefix = format!("{}-", kind.unit());
    let Ok(entries) = std::fs::read_dir(run.join("claims")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix(&prefix)?.parse::<u64>().ok()
        })
        .filter(|&unit| holder(kind, run, unit) == Some(pid))
        .collect()
}

/// The directory of the worker whose process is `pid` (`RUN/worker-HOST-PID-RANDOM`), once
/// it exists.
pub(crate) fn worker_dir(run: &Path, pid: i32) -> Option<PathBuf> {
    let infix = format!("-{pid}-");
    bt_arena::run_dir::RunDir::new(run)
        .worker_dirs()
        .ok()?
        .into_iter()
        .map(|dir| dir.root().to_path_buf())
        .find(|dir| {
            dir.file_name()
                .is_some_and(|name| name.to_string_lossy().contains(&infix))
        })
}

/// How a worker ended.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// A started worker: its process, where its output goes, how it ended.
struct Started {
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
    status: Option<ExitStatus>,
}

/// The processes a test started: each waited for with a limit that fails the test; every one
/// still running is killed (woken first, if stopped) when the test ends, failed or not.
pub(crate) struct Fleet {
    dir: PathBuf,
    started: Vec<Started>,
}

impl Fleet {
    /// Starts no process yet; outputs go to files in `dir`.
    pub(crate) fn new(dir: &Path) -> Fleet {
        Fleet {
            dir: dir.to_path_buf(),
            started: Vec::new(),
        }
    }

    /// Starts bt-arena with `args` (engines' moves jittered), in process group `group`
    /// (`Some(0)`: a new group of its own); returns its index.
    pub(crate) fn spawn(&mut self, args: &[String], group: Option<i32>) -> usize {
        let index = self.started.len();
        let stdout = self.dir.join(format!("worker-{index}.out"));
        let stderr = self.dir.join(format!("worker-{index}.err"));
        let mut command = bt_arena_command(args);
        command
            .env("BT_FAULTY_JITTER_MS", JITTER_MS)
            .stdout(Stdio::from(std::fs::File::create(&stdout).unwrap()))
            .stderr(Stdio::from(std::fs::File::create(&stderr).unwrap()));
        if let Some(group) = group {
            std::os::unix::process::CommandExt::process_group(&mut command, group);
        }
        let child = command.spawn().expect("bt-arena starts");
        self.started.push(Started {
            child,
            stdout,
            stderr,
            status: None,
        });
        index
    }

    /// The pid of process `index`.
    pub(crate) fn pid(&self, index: usize) -> i32 {
        i32::try_from(self.started[index].child.id()).unwrap()
    }

    /// Sends `signal` to process `index`.
    pub(crate) fn signal(&self, index: usize, signal: i32) {
        // SAFETY: the pid is this test's own child, not yet waited for.
        unsafe { libc::kill(self.pid(index), signal) };
    }

    /// What process `index` wrote to stdout so far.
    pub(crate) fn stdout(&self, index: usize) -> String {
        std::fs::read_to_string(&self.started[index].stdout).unwrap_or_default()
    }

    /// Whether process `index` has ended.
    pub(crate) fn has_ended(&mut self, index: usize) -> bool {
        let started = &mut self.started[index];
        if started.status.is_none() {
            started.status = started.child.try_wait().expect("a child to wait for");
        }
        started.status.is_some()
    }

    /// Waits for process `index` to end, at most `limit`: the test fails past it (naming what
    /// every process wrote).
    pub(crate) fn wait(&mut self, index: usize, limit: Duration) -> Ended {
        let deadline = Instant::now() + limit;
        while !self.has_ended(index) {
            if Instant::now() >= deadline {
                panic!(
                    "process {index} still running after {limit:?}:\n{}",
                    self.outputs()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let started = &self.started[index];
        Ended {
            code: started.status.and_then(|status| status.code()),
            stdout: std::fs::read_to_string(&started.stdout).unwrap_or_default(),
            stderr: std::fs::read_to_string(&started.stderr).unwrap_or_default(),
        }
    }

    /// Waits for process `index` to end within `limit` and for it to exit with `code`.
    pub(crate) fn expect(&mut self, index: usize, limit: Duration, code: i32) -> Ended {
        let ended = self.wait(index, limit);
        assert_eq!(ended.code, Some(code), "process {index}: {ended:?}");
        ended
    }

    /// Kills process `index` (kill -9) and waits for it.
    pub(crate) fn kill(&mut self, index: usize) {
        self.signal(index, libc::SIGKILL);
        self.wait(index, Duration::from_secs(30));
    }

    /// The outputs of every process, for a failure's message.
    pub(crate) fn outputs(&self) -> String {
        self.started
            .iter()
            .enumerate()
            .map(|(index, started)| {
                format!(
                    "--- process {index} (pid {}) stdout:\n{}\n--- stderr:\n{}",
                    started.child.id(),
                    std::fs::read_to_string(&started.stdout).unwrap_or_default(),
                    std::fs::read_to_string(&started.stderr).unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for started in &mut self.started {
            if started.status.is_none() && started.child.try_wait().ok().flatten().is_none() {
                let pid = i32::try_from(started.child.id()).unwrap_or(0);
                // SAFETY: this test's own child, not yet waited for.
                unsafe {
                    libc::kill(pid, libc::SIGCONT);
                    libc::kill(pid, libc::SIGKILL);
                }
                let _ = started.child.wait();
            }
        }
    }
}

/// Starts a worker of `kind` on `run` and stops it (SIGSTOP) while it holds a unit not yet
/// recorded whole (tried again when the stop came between units); returns the worker and
/// its unit.
pub(crate) fn stopped_holding(fleet: &mut Fleet, kind: Kind, run: &Path) -> (usize, u64) {
    let worker = fleet.spawn(&kind.worker(run, &[]), None);
    let pid = fleet.pid(worker);
    for _ in 0..50 {
        assert!(
            eventually(MARGIN, || !held_by(kind, run, pid).is_empty()
                || fleet_ended(fleet, worker)),
            "the worker holds a unit"
        );
        assert!(
            !fleet.has_ended(worker),
            "it ended before it could be stopped"
        );
        fleet.signal(worker, libc::SIGSTOP);
        if let Some(&unit) = held_by(kind, run, pid)
            .iter()
            .find(|&&unit| !unit_recorded(kind, run, unit))
        {
            return (worker, unit);
        }
        fleet.signal(worker, libc::SIGCONT);
        std::thread::sleep(Duration::from_millis(fastrand_ms()));
    }
    panic!("never stopped while it held a unit");
}

/// Whether process `worker` of `fleet` ended (for use inside a closure borrowing nothing
/// else mutably).
fn fleet_ended(fleet: &mut Fleet, worker: usize) -> bool {
    fleet.has_ended(worker)
}

/// A pause of 10 to 200 ms, drawn from the clock: a stop tried again lands elsewhere.
fn fastrand_ms() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    10 + u64::from(nanos) % 190
}
