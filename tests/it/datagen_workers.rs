//! `datagen --worker` (issue 30): any number of workers claim a datagen run's games from a
//! shared directory; the run's games and positions, merged, are the bytes one machine writes.
//! Real processes: bt-arena and bt-search at 200 nodes (deterministic after `uginewgame`).

use crate::util::{SEARCH, bt_arena, bt_arena_command, eventually, path, stderr, stdout};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::Duration;

/// The arguments of a datagen run of `games` games into `out`, with `extra`.
fn args(out: &Path, games: &str, extra: &[&str]) -> Vec<String> {
    let engine = format!("cmd={SEARCH}");
    let mut args = vec![
        "datagen",
        "--engine",
        &engine,
        "nodes=200",
        "--games",
        games,
        "--seed",
        "5",
        "--startpos",
        "--random-plies",
        "2-6",
        "--text",
        "--out",
        path(out),
    ];
    args.extend_from_slice(extra);
    args.iter().map(|s| s.to_string()).collect()
}

fn spawn(args: &[String]) -> Child {
    bt_arena_command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bt-arena starts")
}

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("bt-arena runs")
}

/// The games every worker of `run` wrote so far.
fn written(run: &Path) -> usize {
    bt_arena::datagen::workers::games_files(run)
        .ok()
        .flatten()
        .unwrap_or_default()
        .iter()
        .map(|file| {
            bt_arena::datagen::formats::games::EntryReader::open(file)
                .map_or(0, |reader| reader.take_while(Result::is_ok).count())
        })
        .sum()
}

/// Asserts that the run of workers in `run` holds the bytes of the run on one machine in
/// `single`: its positions (written by the last worker) and its games merged by `convert`.
pub(crate) fn assert_same_bytes(run: &Path, single: &Path) {
    for file in ["positions.bin", "positions.txt"] {
        assert_eq!(
            std::fs::read(run.join(file)).unwrap(),
            std::fs::read(single.join(file)).unwrap(),
            "{file}"
        );
    }
    let merged = run.join("merged.dat");
    let output = bt_arena(&[
        "datagen",
        "convert",
        path(run),
        "--format",
        "games",
        "--out",
        path(&merged),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(single.join("games.dat")).unwrap(),
        "games.dat"
    );
}

#[test]
fn datagen_workers_write_the_bytes_of_one_machine_and_a_late_worker_plays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    let output = bt_arena(&args(&single, "12", &[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let run = dir.path().join("run");
    let workers = [
        spawn(&args(&run, "12", &["--worker"])),
        spawn(&args(&run, "12", &["--worker", "--concurrency", "2"])),
    ];
    for worker in workers {
        let output = finish(worker);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            stdout(&output).contains(": claiming the games of a run of 12 games: bt-search"),
            "{}",
            stdout(&output)
        );
    }
    for game in 1..=12 {
        assert!(run.join(format!("claims/game-{game}.done")).exists());
    }
    assert_same_bytes(&run, &single);
    let late = finish(spawn(&args(&run, "12", &["--worker"])));
    assert_eq!(late.status.code(), Some(0), "{}", stderr(&late));
    assert!(
        stdout(&late).contains(&format!(
            "played no game: every game of the run in {} is recorded",
            run.display()
        )),
        "{}",
        stdout(&late)
    );
    assert_eq!(written(&run), 12, "the late worker played nothing");
    assert_same_bytes(&run, &single);
}

/// A worker stopped (SIGSTOP) mid-game loses its claim after the lease (`--lease 1s`): the
/// other worker, already past it, writes that game into a file of its own (`games-N.dat`, so
/// every games file stays in game-id order), and the stopped one, killed, leaves the run the
/// bytes of one machine.
#[test]
fn a_datagen_worker_stopped_mid_game_has_its_game_written_by_another_in_a_file_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    let output = bt_arena(&args(&single, "30", &[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Stopped while it holds a game (tried again when the stop came between two games).
    let mut attempt = 0;
    let (run, out) = loop {
        attempt += 1;
        let run = dir.path().join(format!("run-{attempt}"));
        let stopped = spawn(&args(&run, "30", &["--worker", "--lease", "1s"]));
        assert!(
            eventually(Duration::from_secs(60), || written(&run) >= 3),
            "three games within a minute"
        );
        let pid = i32::try_from(stopped.id()).unwrap();
        // SAFETY: the child is this test's own bt-arena.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        let other = finish(spawn(&args(&run, "30", &["--worker", "--lease", "1s"])));
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        finish(stopped);
        assert_eq!(other.status.code(), Some(0), "{}", stderr(&other));
        let out = stdout(&other);
        if out.contains("its lease expired") || attempt == 5 {
            break (run, out);
        }
    };
    assert!(out.contains("its lease expired"), "{out}");
    let own_files: Vec<String> = bt_arena::run_dir::RunDir::new(&run)
        .worker_dirs()
        .unwrap()
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir.root()).unwrap().flatten())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("games-"))
        .collect();
    assert_eq!(own_files.len(), 1, "{own_files:?}\n{out}");
    assert_same_bytes(&run, &single);
}

#[test]
fn a_datagen_worker_with_positions_or_other_settings_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let refused = |args: &[String], code: i32, words: &str| {
        let output = bt_arena(args);
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
        assert!(stderr(&output).contains(words), "{}", stderr(&output));
    };
    let mut positions = args(&run, "2", &["--worker"]);
    let at = positions.iter().position(|a| a == "--games").unwrap();
    positions[at] = "--positions".into();
    refused(&positions, 3, "--positions cannot be given with --worker");
    refused(
        &args(&run, "2", &["--worker", "--shard", "0/2"]),
        3,
        "--shard",
    );
    assert!(!run.exists(), "nothing written");
    let output = bt_arena(&args(&run, "2", &["--worker"]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    refused(&args(&run, "3", &["--worker"]), 4, "target");
}

/// The games files decide, not the markers: a worker killed mid-run, a garbage done marker
/// planted for a game nobody played, then every worker directory deleted: the next workers
/// play what the files lack, and the run is one machine's bytes each time.
#[test]
fn datagen_markers_without_their_games_are_not_believed() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    let output = bt_arena(&args(&single, "12", &[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let run = dir.path().join("run");
    let killed = spawn(&args(&run, "12", &["--worker"]));
    assert!(
        eventually(Duration::from_secs(60), || written(&run) >= 3),
        "three games within a minute"
    );
    // SAFETY: the child is this test's own bt-arena.
    unsafe { libc::kill(i32::try_from(killed.id()).unwrap(), libc::SIGKILL) };
    finish(killed);
    std::fs::write(run.join("claims/game-12.done"), "garbage\n").unwrap();
    let output = finish(spawn(&args(&run, "12", &["--worker"])));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(written(&run), 12);
    assert_same_bytes(&run, &single);
    for worker in bt_arena::run_dir::RunDir::new(&run).worker_dirs().unwrap() {
        std::fs::remove_dir_all(worker.root()).unwrap();
    }
    let output = finish(spawn(&args(&run, "12", &["--worker"])));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(written(&run), 12, "every game played again");
    assert_same_bytes(&run, &single);
}

/// A worker stopped past its lease and woken again (SIGSTOP, then SIGCONT) drops the game
/// taken over from it and writes its later ones: neither worker waits on the other forever,
/// and the run is one machine's bytes. Tried again (up to 5 times) until a takeover happened:
/// the other worker says it took the stopped one's game over, and the woken one that it did
/// not record that game.
#[test]
fn a_datagen_worker_woken_after_its_lease_goes_on_without_its_lost_game() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    let output = bt_arena(&args(&single, "30", &[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut attempt = 0;
    loop {
        attempt += 1;
        let run = dir.path().join(format!("run-{attempt}"));
        let mut stopped = spawn(&args(&run, "30", &["--worker", "--lease", "1s"]));
        assert!(
            eventually(Duration::from_secs(60), || written(&run) >= 3),
            "three games within a minute"
        );
        let pid = i32::try_from(stopped.id()).unwrap();
        // SAFETY: the child is this test's own bt-arena.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        let at_stop = written(&run);
        let mut other = spawn(&args(&run, "30", &["--worker", "--lease", "1s"]));
        assert!(
            eventually(Duration::from_secs(60), || written(&run) >= at_stop + 3),
            "the other worker plays on"
        );
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGCONT) };
        let ended = |child: &mut Child| child.try_wait().ok().flatten().is_some();
        assert!(
            eventually(Duration::from_secs(120), || ended(&mut stopped)
                && ended(&mut other)),
            "both workers end"
        );
        let (woken, other) = (finish(stopped), finish(other));
        for output in [&woken, &other] {
            assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
        }
        assert_same_bytes(&run, &single);
        // The game taken over: `game N, claimed by HOST pid P, unchanged for S s: its lease
        // expired`, and the woken worker's `warning: game N not recorded: ...`.
        let taken = stdout(&other).lines().find_map(|line| {
            let (game, rest) = line.strip_prefix("game ")?.split_once(", claimed by ")?;
            rest.contains("its lease expired").then(|| game.to_string())
        });
        if let Some(game) = &taken {
            let woken_out = stdout(&woken);
            assert!(
                woken_out.contains(&format!(
                    "warning: game {game} not recorded: this worker no longer holds the claim \
                     on its game {game}"
                )),
                "attempt {attempt}: {woken_out}\n---\n{}",
                stdout(&other)
            );
            break;
        }
        assert!(
            attempt < 5,
            "no takeover in 5 attempts: {}\n---\n{}",
            stdout(&woken),
            stdout(&other)
        );
    }
}

/// A worker interrupted (Ctrl-C) mid-run exits 130 and lets go of its games; it writes no
/// positions for the run (they would be a part of it, read while others may be writing), only
/// its own. The next worker plays the rest, and the run is one machine's bytes.
#[test]
fn an_interrupted_datagen_worker_writes_no_positions_for_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    let output = bt_arena(&args(&single, "20", &[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let run = dir.path().join("run");
    let stopped = spawn(&args(&run, "20", &["--worker"]));
    assert!(
        eventually(Duration::from_secs(60), || written(&run) >= 3),
        "three games within a minute"
    );
    // SAFETY: the child is this test's own bt-arena.
    unsafe { libc::kill(i32::try_from(stopped.id()).unwrap(), libc::SIGINT) };
    let output = finish(stopped);
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("Interrupted"),
        "{}",
        stderr(&output)
    );
    // Its claims let go at once, not left for the dead-pid shortcut of the next worker.
    assert_eq!(
        crate::workers::live_claims(&run, "game"),
        Vec::<String>::new()
    );
    assert!(
        !run.join("positions.bin").exists(),
        "no positions for the run"
    );
    let worker = &bt_arena::run_dir::RunDir::new(&run).worker_dirs().unwrap()[0];
    assert!(worker.root().join("positions.bin").exists(), "its own");
    let output = finish(spawn(&args(&run, "20", &["--worker"])));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_same_bytes(&run, &single);
}
