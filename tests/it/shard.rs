//! One tournament over several shards (`tournament --shard K/N`), merged with `bt-arena merge`:
//! game for game the unsharded run; shards sharing a directory stop on one SPRT verdict.
//! Real processes: bt-arena and the bundled engines (bt-search at a fixed depth is
//! deterministic after `uginewgame`, so two runs of a schedule play the same games).

use bt_arena::records::read_games;
use bt_arena::tournament::shard::sprt::RecordedVerdict;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{
    RANDOM, SEARCH, bt_arena, bt_arena_with_env, deterministic, games_of, path, pgn_without_dates,
    report_without_latency, stderr, stdout, summary_without_latency, words,
};

/// Runs `command` once per shard of `count`, all at the same time, into `run`; the outputs by
/// shard index.
fn run_shards(command: &str, run: &Path, count: u32) -> Vec<Output> {
    let children: Vec<_> = (0..count)
        .map(|index| {
            Command::new(env!("CARGO_BIN_EXE_bt-arena"))
                .args(words(
                    command,
                    &["--out", path(run), "--shard", &format!("{index}/{count}")],
                ))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("bt-arena starts")
        })
        .collect();
    children
        .into_iter()
        .map(|child| child.wait_with_output().expect("bt-arena runs"))
        .collect()
}

#[test]
fn sharded_runs_merge_to_the_unsharded_run_game_for_game() {
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(7);
    let single = dir.path().join("single");
    let output = bt_arena(&words(&command, &["--out", path(&single)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = games_of(&single.join("games.csv"));
    assert_eq!(expected.len(), 14);
    let summary = std::fs::read_to_string(single.join("summary.json")).unwrap();
    // The latency is the machine's at the time, not the games'.
    let report = report_without_latency(&stdout(&bt_arena(&words("elo", &[path(&single)]))));

    for count in 1..=3u32 {
        let run = dir.path().join(format!("run{count}"));
        let outputs = run_shards(&command, &run, count);
        // A shard done before another is incomplete (5); the last one done sees the run
        // complete (0).
        assert!(outputs.iter().any(|o| o.status.code() == Some(0)));
        for (index, output) in outputs.iter().enumerate() {
            assert!(
                matches!(output.status.code(), Some(0 | 5)),
                "{}",
                stderr(output)
            );
            let shard_dir = run.join(format!("shard-{index}"));
            let games = games_of(&shard_dir.join("games.csv"));
            let index = index as u64;
            assert!(
                games
                    .iter()
                    .all(|game| (game.pair - 1) % u64::from(count) == index),
                "shard {index}/{count} played another shard's pair"
            );
            let pairs = (7 + u64::from(count) - 1 - index) / u64::from(count);
            assert_eq!(games.len() as u64, 2 * pairs, "both games of each pair");
            for name in [
                "games.pgn",
                "summary.json",
                "config.json",
                "logs",
                "report.html",
            ] {
                assert!(shard_dir.join(name).exists(), "{name}");
            }
            assert!(
                stdout(output).contains(&format!("Shard {index}/{count}: Playing ")),
                "{}",
                stdout(output)
            );
        }
        // `elo` reads the shards of a run directory merged in game-id order.
        assert_eq!(
            report_without_latency(&stdout(&bt_arena(&words("elo", &[path(&run)])))),
            report
        );
        // So does `report`, before any merge.
        let page = dir.path().join(format!("shards{count}.html"));
        let output = bt_arena(&words("report", &[path(&run), "--out", path(&page)]));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let page = std::fs::read_to_string(&page).unwrap();
        assert!(page.contains("14 games (written"), "{page}");
        let merged = bt_arena(&words("merge", &[path(&run)]));
        assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
        assert!(
            stdout(&merged).starts_with(&format!(
                "Merged {count} of {count} shards: 14 games in game-id order into {}\n",
                run.display()
            )),
            "{}",
            stdout(&merged)
        );
        assert_eq!(games_of(&run.join("games.csv")), expected, "{count} shards");
        assert_eq!(
            summary_without_latency(&std::fs::read_to_string(run.join("summary.json")).unwrap()),
            summary_without_latency(&summary)
        );
        assert_eq!(
            pgn_without_dates(&run.join("games.pgn")),
            pgn_without_dates(&single.join("games.pgn"))
        );
        let page = std::fs::read_to_string(run.join("report.html")).unwrap();
        assert!(page.contains("14 games (written"), "the merged run's page");
        // Described by the shards' config and run.json, without a shard of its own.
        assert!(page.contains("Command line"), "run.json of a shard");
        assert!(
            !page.contains("&quot;shard&quot;"),
            "no shard in the run's config"
        );
        // A second merge replaces the merged files rather than appending to them.
        let again = bt_arena(&words("merge", &[path(&run)]));
        assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
        assert_eq!(games_of(&run.join("games.csv")), expected);
        assert!(!stderr(&again).contains("warning"), "{}", stderr(&again));
        if count == 3 {
            // A shard's games.pgn lost: its games' PGN comes from games.csv, and merge says so.
            std::fs::remove_file(run.join("shard-1").join("games.pgn")).unwrap();
            let lost = bt_arena(&words("merge", &[path(&run)]));
            assert_eq!(lost.status.code(), Some(0), "{}", stderr(&lost));
            assert!(
                stderr(&lost).contains(
                    "warning: 4 games missing from their shard's games.pgn (game 3, ...): their \
                     PGN was written from games.csv, without the engines' PVs"
                ),
                "{}",
                stderr(&lost)
            );
            assert_eq!(games_of(&run.join("games.csv")), expected);
        }
    }
}

#[test]
fn a_shard_refuses_to_join_a_run_of_other_settings_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = deterministic(2);
    let first = bt_arena(&words(&command, &["--out", path(&run), "--shard", "0/3"]));
    assert_eq!(first.status.code(), Some(5), "{}", stderr(&first));
    let cases = [
        (
            command.replace("--seed 11", "--seed 12"),
            "1/3",
            "field `seed` is 11 there, 12 here",
        ),
        (
            command.replace("depth=2", "depth=3"),
            "2/3",
            "field `engines[0].limit.depth` is 2 there, 3 here",
        ),
        (
            command.clone(),
            "1/2",
            "field `shard` is 3 shards there, 2 shards here",
        ),
    ];
    for (other, shard, field) in cases {
        let output = bt_arena(&words(&other, &["--out", path(&run), "--shard", shard]));
        assert_eq!(
            output.status.code(),
            Some(4),
            "{shard}: {}",
            stderr(&output)
        );
        let expected = format!(
            "error: shard {shard} cannot join the run in {}: {} was saved with other settings: \
             {field}. The shards or workers of one run must be started with the same settings; \
             to start \
             another run, choose another --out or remove that run's files from {0}\n",
            run.display(),
            run.join("identity.json").display()
        );
        assert_eq!(stderr(&output), expected);
        assert!(
            !run.join(format!("shard-{}", &shard[..1]))
                .join("games.csv")
                .exists()
        );
    }
    // An unsharded run and a sharded one do not share a directory.
    let output = bt_arena(&words(&command, &["--out", path(&run)]));
    assert_eq!(output.status.code(), Some(4));
    assert!(
        stderr(&output).contains("holds a sharded run"),
        "{}",
        stderr(&output)
    );
    let single = dir.path().join("single");
    assert_eq!(
        bt_arena(&words(&command, &["--out", path(&single)]))
            .status
            .code(),
        Some(0)
    );
    let output = bt_arena(&words(
        &command,
        &["--out", path(&single), "--shard", "0/2"],
    ));
    assert_eq!(output.status.code(), Some(4));
    assert!(
        stderr(&output).contains("holds a run on one machine"),
        "{}",
        stderr(&output)
    );
}

/// Flags, environment variables, the exit code and the message on stderr (when not 0).
type Case = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    i32,
    String,
);

#[test]
fn bad_shards_and_resumes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = deterministic(2);
    let cases: [Case; 5] = [
        (
            &["--shard", "3/3"],
            &[],
            3,
            "error: --shard 3/3: shard index 3 is out of range: the shards of 3 are numbered 0 \
             to 2\n"
                .to_string(),
        ),
        (
            &["--shard", "auto"],
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
            3,
            "error: --shard auto: SLURM_ARRAY_TASK_ID=3: shard index 3 is out of range: the \
             shards of 3 are numbered 0 to 2 (submit the array as --array=0-2)\n"
                .to_string(),
        ),
        (
            &["--shard", "auto/2"],
            &[("JOB_COMPLETION_INDEX", "one")],
            3,
            "error: --shard auto/2: JOB_COMPLETION_INDEX=one is not a whole number\n".to_string(),
        ),
        (
            &["--shard", "auto/2"],
            &[("JOB_COMPLETION_INDEX", "1")],
            5,
            String::new(),
        ),
        (&["--shard", "0/2"], &[], 0, String::new()),
    ];
    for (flags, env, code, message) in cases {
        let mut args = words(&command, &["--out", path(&run)]);
        args.extend(flags.iter().map(|flag| flag.to_string()));
        let output = bt_arena_with_env(&args, env);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{flags:?}: {}",
            stderr(&output)
        );
        if code == 3 {
            assert_eq!(stderr(&output), message);
        }
    }
    assert_eq!(games_of(&run.join("shard-1/games.csv")).len(), 2);
    let resume = |flags: &[&str]| bt_arena(&words("tournament --resume", flags));
    let output = resume(&[path(&run)]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        stderr(&output),
        format!(
            "error: {} holds the shards of a sharded run: resume one with --resume {0} --shard \
             K/N (or --shard auto)\n",
            run.display()
        )
    );
    let output = resume(&[path(&run), "--shard", "1/3"]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        stderr(&output),
        format!(
            "error: --shard 1/3: {} was saved as shard 1/2\n",
            run.join("shard-1/config.json").display()
        )
    );
    let output = resume(&[path(&run), "--shard", "0/2", "--rounds", "3"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(stderr(&output).contains("--rounds cannot be given with --resume"));
    std::fs::remove_dir_all(run.join("shard-1")).unwrap();
    let output = resume(&[path(&run), "--shard", "1/2"]);
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(
        stderr(&output),
        format!(
            "error: shard 1/2 of {0} has not started ({1} does not exist): start it with the \
             tournament's settings and --out {0} --shard 1/2\n",
            run.display(),
            run.join("shard-1/config.json").display()
        )
    );
}

/// The number of games in `csv` (0 while it does not exist).
fn recorded(csv: &Path) -> usize {
    read_games(csv).map_or(0, |games| games.len())
}

#[test]
fn a_killed_shard_resumes_and_the_run_merges_complete() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = format!(
        "tournament --engine cmd={SEARCH} name=a --engine cmd={SEARCH} name=b --each st=0.01 \
         --rounds 10 --seed 3 --concurrency 2"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(words(&command, &["--out", path(&run), "--shard", "1/2"]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let csv = run.join("shard-1/games.csv");
    let deadline = Instant::now() + Duration::from_secs(60);
    while recorded(&csv) < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL, as a pre-empted job gets after its grace time
    child.wait().unwrap();
    let before = recorded(&csv);
    assert!((2..10).contains(&before), "{before} games before the kill");
    // `--shard auto` in the array task that is run again.
    let env = [
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    let output = bt_arena_with_env(
        &words("tournament --resume", &[path(&run), "--shard", "auto"]),
        &env,
    );
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with(&format!("Shard 1/2: Resuming {} of 10 games", 10 - before)),
        "{}",
        stdout(&output)
    );
    let ids: Vec<u64> = read_games(&csv)
        .unwrap()
        .iter()
        .map(|g| g.game_id)
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, [3, 4, 7, 8, 11, 12, 15, 16, 19, 20]);

    let merged = bt_arena(&words("merge", &[path(&run)]));
    assert_eq!(merged.status.code(), Some(5), "shard 0 has not run");
    assert!(
        stderr(&merged).ends_with(&format!(
            "Incomplete: 10 games of the schedule are missing; play them, then read the run \
             again:\n  shard 0/2: 10 games (1-2, 5-6, 9-10, 13-14, \
             17-18): it never started: run the tournament's command with `--out {} --shard \
             0/2`\n",
            run.display()
        )),
        "{}",
        stderr(&merged)
    );
    let output = bt_arena(&words(&command, &["--out", path(&run), "--shard", "0/2"]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let merged = bt_arena(&words("merge", &[path(&run)]));
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    let ids: Vec<u64> = read_games(&run.join("games.csv"))
        .unwrap()
        .iter()
        .map(|g| g.game_id)
        .collect();
    assert_eq!(ids, (1..=20).collect::<Vec<_>>());
}

/// Copies the files of directory `from` (not its subdirectories) to `to`.
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn merge_refuses_shards_of_other_runs_and_repeated_games() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = format!(
        "tournament --engine cmd={RANDOM} name=a --engine cmd={RANDOM} name=b --each depth=1 \
         --rounds 6 --seed 3"
    );
    for output in run_shards(&command, &run, 3) {
        assert!(
            matches!(output.status.code(), Some(0 | 5)),
            "{}",
            stderr(&output)
        );
    }
    let shard = |k: u32| run.join(format!("shard-{k}"));
    let merge = |args: &[&str]| bt_arena(&words("merge", args));
    let fails_with = |output: Output, code: i32, message: &str| {
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
        assert!(stderr(&output).contains(message), "{}", stderr(&output));
    };

    // Shards in other directories, merged with --out; a shard given twice.
    let elsewhere = dir.path().join("elsewhere/shard-0");
    copy_files(&shard(0), &elsewhere);
    let out = dir.path().join("merged");
    let output = merge(&[
        "--out",
        path(&out),
        path(&elsewhere),
        path(&shard(1)),
        path(&shard(2)),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(recorded(&out.join("games.csv")), 12);
    fails_with(
        merge(&["--out", path(&out), path(&run), path(&elsewhere)]),
        4,
        &format!(
            "error: {} and {} are both shard 0/3",
            shard(0).display(),
            elsewhere.display()
        ),
    );
    fails_with(
        merge(&[path(&shard(0)), path(&shard(1))]),
        3,
        "with --out DIR",
    );
    fails_with(
        merge(&["--out", path(&shard(0)), path(&shard(1))]),
        3,
        &format!(
            "it holds a run ({})",
            shard(0).join("config.json").display()
        ),
    );

    // A shard of another run.
    let config = elsewhere.join("config.json");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("\"seed\": 3", "\"seed\": 4")).unwrap();
    fails_with(
        merge(&["--out", path(&out), path(&shard(1)), path(&elsewhere)]),
        4,
        &format!(
            "error: {} and {} are not shards of one run: field `seed` is 3 there, 4 here",
            shard(1).display(),
            elsewhere.display()
        ),
    );

    // A game in the wrong shard, and a game recorded twice.
    let csv = |k: u32| shard(k).join("games.csv");
    let rows = |k: u32| -> Vec<String> {
        std::fs::read_to_string(csv(k))
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    };
    let append = |k: u32, row: &str| {
        let text = std::fs::read_to_string(csv(k)).unwrap();
        std::fs::write(csv(k), format!("{text}{row}\n")).unwrap();
    };
    let original = std::fs::read_to_string(csv(1)).unwrap();
    let lines = rows(1).len();
    let foreign = (
        rows(0)[1].clone(),
        format!(
            "error: {} line {}: game 1 is of shard 0/3's pairs, not of shard 1/3's",
            csv(1).display(),
            lines + 1
        ),
    );
    let repeated = (
        rows(1)[2].clone(),
        format!(
            "error: game 4 of one run comes twice: {} line 3 and {0} line {}",
            csv(1).display(),
            lines + 1
        ),
    );
    for (row, message) in [foreign, repeated] {
        append(1, &row);
        fails_with(merge(&[path(&run)]), 4, &message);
        std::fs::write(csv(1), &original).unwrap();
    }

    // A shard missing: its games are listed, the others merged.
    std::fs::remove_dir_all(shard(1)).unwrap();
    fails_with(
        merge(&[path(&run)]),
        5,
        &format!(
            "Incomplete: 4 games of the schedule are missing; play them, then read the run \
             again:\n  shard 1/3: 4 games (3-4, 9-10): it never started: \
             run the tournament's command with `--out {} --shard 1/3`\n",
            run.display()
        ),
    );
    assert_eq!(recorded(&run.join("games.csv")), 8);
}

/// The SPRT of `elo --json --sprt spec` over `csv`: `pairs[0].sprt`.
fn replayed_sprt(spec: &str, csv: &Path) -> serde_json::Value {
    let output = bt_arena(&words("elo --json --sprt", &[spec, path(csv)]));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    summary["pairs"][0]["sprt"].clone()
}

/// The merged games.csv cut after game `last`, written to `to`.
fn cut_after(csv: &Path, last: u64, to: &Path) {
    let text = std::fs::read_to_string(csv).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(index, line)| {
            *index == 0 || line.split(',').next().unwrap().parse::<u64>().unwrap() <= last
        })
        .map(|(_, line)| line)
        .collect();
    std::fs::write(to, kept.join("\n") + "\n").unwrap();
}

#[test]
fn shards_sharing_a_directory_stop_together_on_one_sprt_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "elo0=0 elo1=200";
    // (first engine, second engine, exit code: H1 0, H0 1)
    for (first, second, code) in [(SEARCH, RANDOM, 0), (RANDOM, SEARCH, 1)] {
        let run = dir.path().join(format!("run{code}"));
        let command = format!(
            "tournament --engine cmd={first} name=first --engine cmd={second} name=second \
             --each depth=2 --rounds 200 --seed 5 --sprt {spec}"
        );
        let outputs = run_shards(&command, &run, 3);
        let verdict: RecordedVerdict =
            serde_json::from_str(&std::fs::read_to_string(run.join("sprt.json")).unwrap()).unwrap();
        for (index, output) in outputs.iter().enumerate() {
            assert_eq!(output.status.code(), Some(code), "{}", stderr(output));
            assert!(
                stdout(output).contains(&format!(
                    "{verdict}; no new game pair starts on shard {index}/3"
                )),
                "{}",
                stdout(output)
            );
            // The run stopped at the verdict: no shard played its whole part of the schedule
            // (200 pairs: 67, 67 and 66 for shards 0, 1 and 2).
            let games = recorded(&run.join(format!("shard-{index}/games.csv")));
            let part = if index == 2 { 132 } else { 134 };
            assert!(games < part, "shard {index} played on: {games} games");
            assert!(
                games as u64 * 3 > verdict.games / 2,
                "shard {index}: {games} games"
            );
        }
        let merged = bt_arena(&words("merge", &[path(&run)]));
        assert_eq!(merged.status.code(), Some(code), "{}", stderr(&merged));
        assert!(stdout(&merged).contains(&format!("{verdict}\n")));
        let listed = bt_arena(&words("elo", &[path(&run)]));
        assert_eq!(listed.status.code(), Some(code), "{}", stderr(&listed));
        assert!(stdout(&listed).contains(&format!("{verdict}\n")));

        // The verdict is elo --sprt's over the merged games: over all of them, and over
        // those up to the deciding game (then with no game after it).
        let csv = run.join("games.csv");
        let cut = run.join("cut.csv");
        cut_after(&csv, verdict.games, &cut);
        for replayed in [replayed_sprt(spec, &csv), replayed_sprt(spec, &cut)] {
            assert_eq!(replayed["llr"].as_f64(), Some(verdict.report.llr));
            assert_eq!(replayed["games"].as_u64(), Some(verdict.games));
            assert_eq!(
                replayed["decision"],
                serde_json::to_value(verdict.report.decision).unwrap()
            );
        }
        assert_eq!(replayed_sprt(spec, &cut)["games_after"], 0);
        let counts = serde_json::from_str::<serde_json::Value>(
            &String::from_utf8(bt_arena(&words("elo --json --sprt", &[spec, path(&cut)])).stdout)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            counts["pairs"][0]["pentanomial"],
            serde_json::to_value(verdict.pentanomial).unwrap()
        );

        // A decided run plays no more games on resume, and exits with the verdict.
        let before = recorded(&run.join("shard-1/games.csv"));
        let output = bt_arena(&words(
            "tournament --resume",
            &[path(&run), "--shard", "1/3"],
        ));
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
        assert_eq!(recorded(&run.join("shard-1/games.csv")), before);
    }
}

/// A CI matrix: shards on machines that share no directory cannot stop early; each plays its
/// games and exits 5 (the run is incomplete where it looks), and `merge --out` replays the SPRT
/// over the merged games in game-id order, exiting with that verdict.
#[test]
fn shards_without_a_shared_directory_merge_to_the_replayed_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "elo0=0 elo1=200";
    let command = format!(
        "tournament --engine cmd={SEARCH} name=s --engine cmd={RANDOM} name=r --each depth=2 \
         --rounds 12 --seed 5 --sprt {spec}"
    );
    let mut shards = Vec::new();
    for index in 0..2 {
        let runner = dir.path().join(format!("runner{index}"));
        let shard = format!("{index}/2");
        let output = bt_arena(&words(
            &command,
            &["--out", path(&runner), "--shard", &shard],
        ));
        assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
        let other = format!("{}/2", 1 - index);
        let ranges = match index {
            0 => "3-4, 7-8, 11-12, 15-16, 19-20, 23-24",
            _ => "1-2, 5-6, 9-10, 13-14, 17-18, 21-22",
        };
        assert!(
            stderr(&output).contains(&format!(
                "shard {other}: 12 games ({ranges}): it never started: run the tournament's \
                 command with `--out {} --shard {other}`",
                runner.display()
            )),
            "{}",
            stderr(&output)
        );
        assert_eq!(
            recorded(&runner.join(format!("shard-{index}/games.csv"))),
            12
        );
        shards.push(runner.join(format!("shard-{index}")));
    }
    let out = dir.path().join("merged");
    let merged = bt_arena(&words(
        "merge --out",
        &[path(&out), path(&shards[1]), path(&shards[0])],
    ));
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    assert!(
        !out.join("sprt.json").exists(),
        "no shard recorded a verdict"
    );
    let replayed = replayed_sprt(spec, &out.join("games.csv"));
    assert_eq!(replayed["decision"], "AcceptH1");
    let games = replayed["games"].as_u64().unwrap();
    assert!(
        stdout(&merged).contains(&format!(
            "SPRT: H1 accepted at game {games}; {} games after the decision",
            24 - games
        )),
        "{}",
        stdout(&merged)
    );
}

/// Inputs of merge that do not exist are named as such, every one, with nothing written.
// See: issue 28 (merge's own --help example on missing paths said "are not the shards of one
// run").
#[test]
fn merge_names_inputs_that_do_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let merge = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bt-arena"))
            .arg("merge")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let output = merge(&["--out", "merged", "runner0/shard-0", "runner1/shard-1"]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "error: runner0/shard-0 and runner1/shard-1 do not exist\n"
    );
    std::fs::create_dir_all(dir.path().join("runner0/shard-0")).unwrap();
    let output = merge(&["--out", "merged", "runner0/shard-0", "runner1/shard-1"]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert_eq!(stderr(&output), "error: runner1/shard-1 does not exist\n");
    assert!(!dir.path().join("merged").exists());
}
