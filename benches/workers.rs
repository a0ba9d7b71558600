//! What a run of workers (`tournament --worker`) costs beside static shards: claims per second
//! on the local disk, the harness's time per game with 2 workers against 2 static shards at
//! `st=0.01`, and how long a run waits for the pair of a worker stopped mid-run (SIGSTOP, as a
//! machine that hangs) against a static shard stopped the same way. Run with
//! `cargo bench --bench workers`; the figures are in benches/README.md.

use bt_arena::arena::leases::{Leased, Leases};
use bt_arena::arena::{Unit, UnitKind};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BT_ARENA: &str = env!("CARGO_BIN_EXE_bt-arena");
const SEARCH: &str = env!("CARGO_BIN_EXE_bt-search");

fn main() {
    claims_per_second();
    time_per_game();
    straggler_cost();
}

/// Claims a pair and marks it done, 10,000 times, in a temporary directory.
fn claims_per_second() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let leases =
        Leases::new(dir.path(), "bench", Duration::from_secs(60), UnitKind::PAIR).expect("leases");
    let pairs = 10_000u64;
    let started = Instant::now();
    for pair in 1..=pairs {
        assert_eq!(leases.take(Unit(pair), &mut |_| {}).unwrap(), Leased::Mine);
        leases.done(Unit(pair)).unwrap();
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "claims: {pairs} pairs claimed and marked done in {seconds:.2} s: {:.0} a second, {:.0} µs each",
        pairs as f64 / seconds,
        seconds * 1e6 / pairs as f64
    );
}

fn flags(rounds: u32) -> Vec<String> {
    format!(
        "tournament --engine cmd={SEARCH} name=a --engine cmd={SEARCH} name=b option.Eval=material \
         --each st=0.01 --rounds {rounds} --seed 7"
    )
    .split_whitespace()
    .map(String::from)
    .collect()
}

fn spawn(args: &[String], extra: &[&str]) -> Child {
    Command::new(BT_ARENA)
        .args(args)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("bt-arena starts")
}

/// Wall time of a 200-game run over two processes, as workers and as static shards.
fn time_per_game() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rounds = 100;
    let args = flags(rounds);
    for kind in ["workers", "shards"] {
        let run = dir.path().join(kind);
        let out = run.display().to_string();
        let started = Instant::now();
        let children: Vec<Child> = (0..2)
            .map(|k| match kind {
                "workers" => spawn(&args, &["--out", &out, "--worker"]),
                _ => spawn(&args, &["--out", &out, "--shard", &format!("{k}/2")]),
            })
            .collect();
        for mut child in children {
            child.wait().expect("bt-arena ends");
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{kind}: {} games at st=0.01 over 2 processes in {seconds:.2} s: {:.1} ms a game",
            2 * rounds,
            seconds * 1000.0 / f64::from(2 * rounds)
        );
    }
}

fn rows(dirs: &[std::path::PathBuf]) -> usize {
    dirs.iter()
        .map(|dir| {
            std::fs::read_to_string(dir.join("games.csv"))
                .map_or(0, |text| text.lines().count().saturating_sub(1))
        })
        .sum()
}

fn members(run: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(run)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "claims"))
                .collect()
        })
        .unwrap_or_default()
}

/// One of 3 processes stopped (SIGSTOP) after 10 games: how long until every game of a 60-game
/// run is recorded, with workers (lease 5 s) and with static shards (never, until resumed:
/// measured up to a limit).
fn straggler_cost() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rounds = 30;
    let args = flags(rounds);
    let limit = Duration::from_secs(60);
    for kind in ["workers", "shards"] {
        let run = dir.path().join(kind);
        let out = run.display().to_string();
        let mut children: Vec<Child> = (0..3)
            .map(|k| match kind {
                "workers" => spawn(&args, &["--out", &out, "--worker", "--lease", "5s"]),
                _ => spawn(&args, &["--out", &out, "--shard", &format!("{k}/3")]),
            })
            .collect();
        while rows(&members(&run)) < 10 {
            std::thread::sleep(Duration::from_millis(5));
        }
        let stopped = i32::try_from(children[0].id()).expect("a pid");
        // SAFETY: our own child.
        unsafe { libc::kill(stopped, libc::SIGSTOP) };
        let at = Instant::now();
        let all = 2 * rounds as usize;
        while rows(&members(&run)) < all && at.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(20));
        }
        let waited = at.elapsed();
        let done = rows(&members(&run));
        // SAFETY: as above.
        unsafe { libc::kill(stopped, libc::SIGKILL) };
        for child in &mut children {
            let _ = child.kill();
            let _ = child.wait();
        }
        match done >= all {
            true => println!(
                "{kind}: one of 3 stopped after 10 games: the run had every game {:.1} s later",
                waited.as_secs_f64()
            ),
            false => println!(
                "{kind}: one of 3 stopped after 10 games: {done} of {all} games after {} s \
                 (the stopped one's wait until it is resumed)",
                limit.as_secs()
            ),
        }
    }
}
