//! A run of workers (`tournament --worker`): processes that claim the run's game pairs from a
//! shared directory, joining and leaving at any time, give the games and the verdict of one
//! machine. Real processes: bt-arena and bt-search at a fixed depth (deterministic after
//! `uginewgame`, so two runs of a schedule play the same games).

use crate::util::{
    bt_arena, bt_arena_command, deterministic, eventually, games_of, path, stderr, stdout, words,
};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::Duration;

/// Starts a worker of `command` on `run` with `extra` flags.
fn spawn_worker(command: &str, run: &Path, extra: &[&str]) -> Child {
    let mut flags = vec!["--worker", "--out", path(run)];
    flags.extend(extra);
    bt_arena_command(words(command, &flags))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bt-arena starts")
}

/// The workers' games merged (`bt-arena merge`), read back.
pub(crate) fn merged(run: &Path) -> Vec<bt_arena::records::GameRecord> {
    let output = bt_arena(&words("merge", &[path(run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    games_of(&run.join("games.csv"))
}

/// The live claims in `run`'s `claims/` (files `KIND-N`, without a marker's suffix).
pub(crate) fn live_claims(run: &Path, kind: &str) -> Vec<String> {
    std::fs::read_dir(run.join("claims"))
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| {
                    name.strip_prefix(kind)
                        .and_then(|rest| rest.strip_prefix('-'))
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The games recorded so far by every worker of `run` (rows of their games.csv).
pub(crate) fn rows(run: &Path) -> usize {
    bt_arena::run_dir::RunDir::new(run)
        .worker_dirs()
        .unwrap_or_default()
        .iter()
        .map(|worker| {
            std::fs::read_to_string(worker.games_csv())
                .map_or(0, |text| text.lines().count().saturating_sub(1))
        })
        .sum()
}

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("bt-arena runs")
}

#[test]
fn workers_started_together_play_the_games_of_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(7);
    let single = dir.path().join("single");
    let output = bt_arena(&words(&command, &["--out", path(&single)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = games_of(&single.join("games.csv"));
    assert_eq!(expected.len(), 14);

    let run = dir.path().join("run");
    // Workers of different speeds: one plays two games at once.
    let workers = [
        spawn_worker(&command, &run, &[]),
        spawn_worker(&command, &run, &["--concurrency", "2"]),
    ];
    for worker in workers {
        let output = finish(worker);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(
            stdout(&output).contains(": claiming game pairs of a run of 14 games: 2 engines"),
            "{}",
            stdout(&output)
        );
    }
    let dirs = bt_arena::run_dir::RunDir::new(&run).worker_dirs().unwrap();
    assert_eq!(dirs.len(), 2);
    // Each pair claimed once and recorded once, by one worker.
    for pair in 1..=7 {
        let done = run.join(format!("claims/pair-{pair}.done"));
        assert!(done.exists(), "pair {pair} done");
    }
    // The worker that ended last wrote the run's merged files.
    assert_eq!(games_of(&run.join("games.csv")), expected);
    let mut games = merged(&run);
    games.sort_by_key(|game| game.game_id);
    assert_eq!(games, expected);
    // `elo` reads the run of workers as one run, with its per-host table.
    let report = stdout(&bt_arena(&words("elo", &[path(&run)])));
    assert!(report.contains("Games: 14,"), "{report}");
    let host = bt_arena::lease::host_name();
    assert!(report.contains("Host "), "{report}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&bt_arena(&words("elo --json", &[path(&run)])))).unwrap();
    let hosts = &json["hosts"];
    assert_eq!(hosts.as_array().map(Vec::len), Some(1), "{json}");
    assert_eq!(
        (&hosts[0]["host"], &hosts[0]["workers"], &hosts[0]["games"]),
        (
            &serde_json::json!(host),
            &serde_json::json!(2),
            &serde_json::json!(14)
        )
    );
    // One host: its score is the pool's, nothing to flag; no bench, no speed.
    assert_eq!(hosts[0]["chi2"], 0.0);
    assert!(hosts[0].get("flagged").is_none());
    assert!(hosts[0].get("bench_nps").is_none(), "{json}");
    assert!(!report.contains("bench nps"), "{report}");
    // The worker directories given one by one are the run of workers too.
    let members: Vec<String> = dirs
        .iter()
        .map(|d| d.root().display().to_string())
        .collect();
    let members: Vec<&str> = members.iter().map(String::as_str).collect();
    let one_by_one = bt_arena(&words("elo", &members));
    assert_eq!(one_by_one.status.code(), Some(0), "{}", stderr(&one_by_one));
    assert!(
        stdout(&one_by_one).contains("Games: 14,"),
        "{}",
        stdout(&one_by_one)
    );
    let mout = dir.path().join("mout");
    let mut merge = vec!["merge", "--out", path(&mout)];
    merge.extend(&members);
    let merged_out = bt_arena(&merge);
    assert_eq!(merged_out.status.code(), Some(0), "{}", stderr(&merged_out));
    assert_eq!(games_of(&mout.join("games.csv")), expected);
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        page.contains("<section id=\"hosts\">"),
        "the merged page's host table"
    );
}

/// kill -9 (its claim names a process gone from this host: taken over at once) and Ctrl-C
/// (its claims let go) of a worker mid-pair: the next worker plays only the pair's game not
/// recorded, and the run is one machine's, each game once.
#[test]
fn a_worker_killed_or_interrupted_mid_pair_has_the_rest_of_its_pair_played_once() {
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(5);
    let single = dir.path().join("single");
    let output = bt_arena(&words(&command, &["--out", path(&single)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = games_of(&single.join("games.csv"));

    for (signal, name) in [(libc::SIGKILL, "killed"), (libc::SIGINT, "interrupted")] {
        // Stopped with a pair cut in half (its second game in flight, dropped): tried again
        // when the second game was recorded before the signal came.
        let mut attempt = 0;
        let (run, at_stop) = loop {
            attempt += 1;
            let run = dir.path().join(format!("{name}-{attempt}"));
            let stopped = spawn_worker(&command, &run, &[]);
            assert!(
                eventually(Duration::from_secs(60), || rows(&run) % 2 == 1),
                "a pair's first game within a minute"
            );
            // SAFETY: the child is this test's own bt-arena.
            unsafe { libc::kill(i32::try_from(stopped.id()).unwrap(), signal) };
            let output = finish(stopped);
            if signal == libc::SIGINT {
                assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
                assert!(stderr(&output).contains("let go"), "{}", stderr(&output));
                // Let go at once, not left for the dead-pid shortcut of the next worker.
                assert_eq!(live_claims(&run, "pair"), Vec::<String>::new(), "{name}");
            }
            let at_stop = rows(&run);
            if at_stop % 2 == 1 || attempt == 5 {
                break (run, at_stop);
            }
        };
        assert!(
            at_stop % 2 == 1 && at_stop < 10,
            "{name}: {at_stop} games at the stop"
        );
        let output = finish(spawn_worker(&command, &run, &[]));
        let out = stdout(&output);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        if signal == libc::SIGKILL {
            let pair = at_stop.div_ceil(2);
            assert!(
                out.contains(&format!("pair {pair}, claimed by "))
                    && out.contains("process is gone"),
                "{out}"
            );
        }
        let mut games = merged(&run);
        games.sort_by_key(|game| game.game_id);
        assert_eq!(
            games, expected,
            "{name}: each game once, as one machine plays them"
        );
    }
}

/// The claims are a cache: with every marker gone, a new worker reads the games recorded and
/// plays nothing again.
#[test]
fn a_run_whose_claims_were_lost_is_not_played_twice() {
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(3);
    let run = dir.path().join("run");
    let output = finish(spawn_worker(&command, &run, &[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::remove_dir_all(run.join("claims")).unwrap();
    let again = finish(spawn_worker(&command, &run, &[]));
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        !stdout(&again).contains("Finished game"),
        "{}",
        stdout(&again)
    );
    assert_eq!(merged(&run).len(), 6);
}

#[test]
fn a_stopped_worker_loses_its_pair_after_the_lease_and_records_nothing_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(3);
    let single = dir.path().join("single");
    let output = bt_arena(&words(&command, &["--out", path(&single)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = games_of(&single.join("games.csv"));

    let run = dir.path().join("run");
    let stalled = spawn_worker(&command, &run, &["--lease", "2s"]);
    assert!(
        eventually(Duration::from_secs(60), || rows(&run) % 2 == 1),
        "a pair's first game within a minute"
    );
    // SIGSTOP: alive (its pid exists) but its heartbeat stops, as a machine that hangs.
    let pid = i32::try_from(stalled.id()).unwrap();
    // SAFETY: the child is this test's own bt-arena.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let at_stop = rows(&run);
    // `elo` on the live run names the straggler, and its lease expired.
    std::thread::sleep(Duration::from_millis(2500));
    let live = bt_arena(&words("elo", &[path(&run)]));
    assert_eq!(live.status.code(), Some(5), "{}", stderr(&live));
    let named = format!(
        "pair {}: claimed by {} pid {pid}, its heartbeat ",
        at_stop.div_ceil(2),
        bt_arena::lease::host_name()
    );
    let line = stderr(&live)
        .lines()
        .find(|line| line.trim_start().starts_with(&named))
        .map(String::from);
    assert!(
        line.is_some_and(
            |line| line.ends_with("s ago: older than the lease, a worker will play it again")
        ),
        "{}",
        stderr(&live)
    );
    assert!(stderr(&live).contains("--worker`"), "{}", stderr(&live));
    let started = std::time::Instant::now();
    let output = finish(spawn_worker(&command, &run, &["--lease", "2s"]));
    let waited = started.elapsed();
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let late = finish(stalled);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains(&format!("pair {}, claimed by ", at_stop.div_ceil(2))),
        "{}",
        stdout(&output)
    );
    assert!(
        waited >= Duration::from_secs(2),
        "the lease was waited: {waited:?}"
    );
    // The stalled worker, woken, finds its claim taken over: its game is not recorded.
    let late_out = stdout(&late);
    assert!(
        late_out.contains("not recorded: this worker no longer holds the claim"),
        "{late_out}"
    );
    let mut games = merged(&run);
    games.sort_by_key(|game| game.game_id);
    assert_eq!(games, expected);
}

#[test]
fn workers_stop_on_the_verdict_of_one_machine_and_a_late_worker_plays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "elo0=0,elo1=100";
    let command = format!("{} --rounds 200 --sprt {spec}", deterministic(1));
    let command = command.replace("--rounds 1 ", "");
    let single = dir.path().join("single");
    let one = bt_arena(&words(&command, &["--out", path(&single)]));
    let one_out = stdout(&one);
    let verdict = one_out
        .lines()
        .find(|line| line.starts_with("SPRT: "))
        .expect("a verdict")
        .to_string();
    let at = verdict.split("at game ").nth(1).unwrap().to_string();

    let run = dir.path().join("run");
    // Workers of different speeds: one plays two games at once.
    let workers = [
        spawn_worker(&command, &run, &[]),
        spawn_worker(&command, &run, &["--concurrency", "2"]),
    ];
    for worker in workers {
        let output = finish(worker);
        assert_eq!(
            output.status.code(),
            one.status.code(),
            "{}",
            stderr(&output)
        );
    }
    let elo = stdout(&bt_arena(&words("elo", &[path(&run)])));
    assert!(
        elo.contains(&format!("accepted at game {at}")),
        "{elo}\n{verdict}"
    );
    // The games up to the verdict are one machine's; after it, at most the run's read-ahead
    // beyond what one machine (1 game at once) played: a worker starts no pair twice the
    // pairs in flight past the first game not recorded, so with 3 games at once (1 + 2)
    // the pairs started before the verdict was known lie within 6 pairs (12 games) of it.
    let at: u64 = at
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap();
    let single_games = games_of(&single.join("games.csv"));
    let mut run_games: Vec<_> = bt_arena::run_dir::RunDir::new(&run)
        .worker_dirs()
        .unwrap()
        .iter()
        .flat_map(|worker| games_of(&worker.games_csv()))
        .collect();
    run_games.sort_by_key(|game| game.game_id);
    let upto = |games: &[bt_arena::records::GameRecord]| -> Vec<bt_arena::records::GameRecord> {
        games.iter().filter(|g| g.game_id <= at).cloned().collect()
    };
    assert_eq!(upto(&run_games), upto(&single_games));
    assert_eq!(upto(&run_games).len() as u64, at);
    let beyond = |games: &[bt_arena::records::GameRecord]| games.len() as u64 - at;
    assert!(
        beyond(&run_games) <= beyond(&single_games) + 12,
        "{} games after the verdict at game {at}, one machine's {}",
        beyond(&run_games),
        beyond(&single_games)
    );
    let late = finish(spawn_worker(&command, &run, &[]));
    assert_eq!(late.status.code(), one.status.code(), "{}", stderr(&late));
    let late_out = stdout(&late);
    assert!(
        late_out.contains("no new game pair starts on worker"),
        "{late_out}"
    );
    assert!(!late_out.contains("Finished game"), "{late_out}");
}

#[test]
fn a_worker_with_other_settings_or_a_static_shard_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = finish(spawn_worker(&deterministic(1), &run, &[]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let other = finish(spawn_worker(&deterministic(2), &run, &[]));
    assert_eq!(other.status.code(), Some(4), "{}", stderr(&other));
    assert!(stderr(&other).contains("rounds"), "{}", stderr(&other));
    // The lease is the run's: named by its flag, in ms.
    let lease = finish(spawn_worker(&deterministic(1), &run, &["--lease", "2s"]));
    assert_eq!(lease.status.code(), Some(4), "{}", stderr(&lease));
    assert!(
        stderr(&lease)
            .contains("field `lease_ms` is 60000 ms (--lease) there, 2000 ms (--lease) here"),
        "{}",
        stderr(&lease)
    );
    let shard = bt_arena(&words(
        &deterministic(1),
        &["--out", path(&run), "--shard", "0/2"],
    ));
    assert_eq!(shard.status.code(), Some(4), "{}", stderr(&shard));
    assert!(
        stderr(&shard).contains("holds a run of workers: join it with the run's flags and --out"),
        "{}",
        stderr(&shard)
    );
    let both = bt_arena(&words(
        &deterministic(1),
        &["--out", path(&run), "--shard", "0/2", "--worker"],
    ));
    assert_eq!(both.status.code(), Some(3), "{}", stderr(&both));
    // A directory holding a tune is no run of workers.
    let tune = dir.path().join("tune");
    std::fs::create_dir_all(&tune).unwrap();
    std::fs::write(tune.join("tune.json"), "{}").unwrap();
    let into_tune = finish(spawn_worker(&deterministic(1), &tune, &[]));
    assert_eq!(into_tune.status.code(), Some(4), "{}", stderr(&into_tune));
    assert!(
        stderr(&into_tune).contains("holds a tune (")
            && stderr(&into_tune).contains("a worker cannot join it"),
        "{}",
        stderr(&into_tune)
    );
    assert!(!tune.join("identity.json").exists() && !tune.join("claims").exists());
    let no_out = bt_arena(&words(&deterministic(1), &["--worker"]));
    assert_eq!(no_out.status.code(), Some(3), "{}", stderr(&no_out));
    assert!(
        stderr(&no_out).contains("--worker needs --out"),
        "{}",
        stderr(&no_out)
    );
    let short = bt_arena(&words(
        &deterministic(1),
        &["--out", path(&run), "--worker", "--lease", "10ms"],
    ));
    assert_eq!(short.status.code(), Some(3), "{}", stderr(&short));
}

/// Per-host speed (issue 30): workers whose clocks are scaled by bench (`--scale-tc`) record
/// the speed they measured; the host's row gives their mean, in the text, summary.json and
/// report.html. bt-faulty's `half-nps` reports exactly half of `--bench-nps`.
#[test]
fn the_host_table_gives_the_bench_speed_its_workers_measured() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let random = format!("cmd={}", crate::util::RANDOM);
    let faulty = format!("cmd={}", crate::util::FAULTY);
    let args = [
        "tournament",
        "--engine",
        &random,
        "name=new",
        "--engine",
        &faulty,
        "name=base",
        "args=--fault half-nps --bench-nps 300000",
        "--each",
        "tc=1+0.01",
        "--rounds",
        "2",
        "--seed",
        "5",
        "--scale-tc",
        "300000",
    ]
    .map(String::from);
    let workers: Vec<Child> = (0..2)
        .map(|_| {
            let mut flags = args.to_vec();
            flags.extend(["--worker", "--out", path(&run)].map(String::from));
            bt_arena_command(flags)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("bt-arena starts")
        })
        .collect();
    for worker in workers {
        let output = finish(worker);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    let report = stdout(&bt_arena(&words("elo", &[path(&run)])));
    let host = bt_arena::lease::host_name();
    let row = report
        .lines()
        .find(|line| line.starts_with(&format!("{host} ")))
        .unwrap_or_else(|| panic!("a row for {host}: {report}"));
    assert!(report.contains("bench nps"), "{report}");
    assert!(row.ends_with(" 150000"), "{row}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&bt_arena(&words("elo --json", &[path(&run)])))).unwrap();
    assert_eq!(json["hosts"][0]["bench_nps"], 150_000, "{json}");
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.contains("<td>150000</td>"), "the page's host row");
}
