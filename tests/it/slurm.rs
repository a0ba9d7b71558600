//! A real Slurm run: scripts/slurm/submit.sh submits a 3-task array job (each task one shard,
//! `--shard auto`) and a dependent merge job to the one-node cluster that
//! scripts/slurm/cluster-up.sh brings up; the merged run must be game for game the unsharded
//! one. `submit.sh tune` submits a 2-task array of tune shards and the job that writes the
//! whole tune's report; every iteration must be played once, θ the fold of all of them.
//! `submit.sh workers` submits a 3-task array of workers (`--worker`): their merged games must
//! be those of one machine.
//!
//! `#[ignore]`d, as it needs the cluster: `cargo test -- --include-ignored` runs it, and it
//! fails, saying why, when Slurm is not installed or its daemons do not answer (scripts/test,
//! the README's test command, installs the packages and starts the daemons as root).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::util::{bt_arena, deterministic, eventually, games_of, pgn_without_dates};

const SUBMIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm/submit.sh");
const CLUSTER_UP: &str = "scripts/slurm/cluster-up.sh";

/// How long the jobs may take, queueing included.
const JOB_LIMIT: Duration = Duration::from_secs(300);

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs `program` with `args`; its output, or `None` when it cannot be started.
fn run(program: &str, args: &[&str]) -> Option<Output> {
    Command::new(program).args(args).output().ok()
}

/// Why Slurm cannot run a job here, if it cannot: not installed, slurmctld not answering,
/// the node not taking jobs.
fn why_no_slurm() -> Option<String> {
    let Some(ping) = run("scontrol", &["ping"]) else {
        return Some("Slurm is not installed (apt-get install slurm-wlm munge)".into());
    };
    if !String::from_utf8_lossy(&ping.stdout).contains("is UP") {
        return Some(format!(
            "slurmctld does not answer ({}): start the cluster with {CLUSTER_UP}",
            text(&ping).trim()
        ));
    }
    let state = run("sinfo", &["-h", "-n", "localhost", "-o", "%T"]).map(|o| text(&o));
    let state = state.unwrap_or_default();
    let ready = ["idle", "mixed", "allocated", "completing"];
    if !ready.iter().any(|s| state.trim_start().starts_with(s)) {
        return Some(format!(
            "node localhost is '{}', not taking jobs: start slurmd with {CLUSTER_UP}",
            state.trim()
        ));
    }
    None
}

/// Fails the test, saying why, unless Slurm can run jobs here.
fn assert_slurm_takes_jobs() {
    if let Some(why) = why_no_slurm() {
        panic!("Slurm cannot run jobs here: {why}");
    }
}

/// A field `key=value` of `scontrol show job` output.
fn field<'a>(show: &'a str, key: &str) -> Option<&'a str> {
    show.split_whitespace()
        .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
}

/// Waits (at most [`JOB_LIMIT`]) until job `id` ends; its `scontrol show job` output. Jobs
/// still running at the limit are cancelled.
fn wait_for_job(id: &str, array: &str) -> String {
    let deadline = Instant::now() + JOB_LIMIT;
    loop {
        let show = run("scontrol", &["show", "job", id]).map_or_else(String::new, |o| text(&o));
        let state = field(&show, "JobState").unwrap_or("?");
        if ![
            "PENDING",
            "RUNNING",
            "CONFIGURING",
            "COMPLETING",
            "REQUEUED",
            "?",
        ]
        .contains(&state)
        {
            return show;
        }
        if Instant::now() > deadline {
            run("scancel", &[array, id]);
            panic!("job {id} did not end within {JOB_LIMIT:?}:\n{show}");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The value of line `<name> job ID` of submit.sh's output.
fn job_id(output: &str, name: &str) -> String {
    output
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name} job ")))
        .unwrap_or_else(|| panic!("no '{name} job' line in:\n{output}"))
        .trim()
        .to_string()
}

/// The job logs in `run`, for a failure message.
fn logs(run: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(run).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("slurm-") {
            text += &format!(
                "--- {name}\n{}",
                std::fs::read_to_string(entry.path()).unwrap_or_default()
            );
        }
    }
    text
}

#[test]
#[ignore = "needs a Slurm cluster taking jobs (scripts/slurm/cluster-up.sh, as root)"]
fn a_slurm_array_of_three_shards_merges_to_the_unsharded_run() {
    assert_slurm_takes_jobs();
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(7);
    let single = dir.path().join("single");
    let mut args: Vec<String> = command.split_whitespace().map(String::from).collect();
    args.extend(["--out".into(), single.display().to_string()]);
    let output = bt_arena(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    let run_dir = dir.path().join("run");
    let mut submit = vec![
        "3".to_string(),
        run_dir.display().to_string(),
        env!("CARGO_BIN_EXE_bt-arena").to_string(),
    ];
    // The tournament's flags, without the subcommand, and without --seed as docs/guide/cluster.md
    // submits them: the shards, started together, must still join one run with one seed
    // (the book is read in order, so the games do not depend on the seed).
    let unseeded = command.replace(" --seed 11", "");
    assert_ne!(unseeded, command);
    submit.extend(unseeded.split_whitespace().skip(1).map(String::from));
    let output = Command::new(SUBMIT)
        .args(&submit)
        .current_dir(dir.path())
        .output()
        .expect("submit.sh runs");
    assert!(output.status.success(), "submit.sh: {}", text(&output));
    let submitted = text(&output);
    let (array, merge) = (job_id(&submitted, "array"), job_id(&submitted, "merge"));
    let show = wait_for_job(&merge, &array);
    assert_eq!(
        (field(&show, "JobState"), field(&show, "ExitCode")),
        (Some("COMPLETED"), Some("0:0")),
        "the merge job:\n{show}\n{}",
        logs(&run_dir)
    );

    for shard in 0..3 {
        let log = std::fs::read_to_string(run_dir.join(format!("slurm-{array}_{shard}.out")))
            .unwrap_or_default();
        assert!(
            log.starts_with(&format!("Shard {shard}/3: Playing ")),
            "array task {shard}:\n{log}"
        );
    }
    let log = std::fs::read_to_string(run_dir.join(format!("slurm-merge-{merge}.out"))).unwrap();
    assert!(
        log.starts_with(&format!(
            "Merged 3 of 3 shards: 14 games in game-id order into {}\n",
            run_dir.display()
        )),
        "{log}"
    );
    assert_eq!(
        games_of(&run_dir.join("games.csv")),
        games_of(&single.join("games.csv"))
    );
    let json = |path: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let identity = json(run_dir.join("identity.json"));
    for shard in 0..3 {
        let config = json(run_dir.join(format!("shard-{shard}/config.json")));
        assert_eq!(
            config["seed"], identity["settings"]["seed"],
            "shard {shard}"
        );
        assert_eq!(config["run_id"], identity["run_id"], "shard {shard}");
    }
    // The same games, the same summary but for the clock's part (the latency per move).
    assert_eq!(
        crate::util::summary_without_latency(
            &std::fs::read_to_string(run_dir.join("summary.json")).unwrap()
        ),
        crate::util::summary_without_latency(
            &std::fs::read_to_string(single.join("summary.json")).unwrap()
        )
    );
    assert_eq!(
        pgn_without_dates(&run_dir.join("games.pgn")),
        pgn_without_dates(&single.join("games.pgn"))
    );
}

#[test]
#[ignore = "needs a Slurm cluster taking jobs (scripts/slurm/cluster-up.sh, as root)"]
fn a_slurm_array_of_two_tune_shards_plays_each_iteration_once_and_reports_the_fold() {
    assert_slurm_takes_jobs();
    let dir = tempfile::tempdir().unwrap();
    let params = crate::tune::weights_file(dir.path());
    let run_dir = dir.path().join("run");
    // Without --seed: the shards, started together, must join one tune with one seed.
    let search = format!("cmd={}", env!("CARGO_BIN_EXE_bt-search"));
    let submit = [
        "tune",
        "2",
        &run_dir.display().to_string(),
        env!("CARGO_BIN_EXE_bt-arena"),
        "--engine",
        &search,
        "depth=2",
        "--params",
        &params.display().to_string(),
        "--iterations",
        "6",
        "--pairs",
        "2",
    ]
    .map(String::from);
    let output = Command::new(SUBMIT)
        .args(&submit)
        .current_dir(dir.path())
        .output()
        .expect("submit.sh runs");
    assert!(output.status.success(), "submit.sh: {}", text(&output));
    let submitted = text(&output);
    let (array, report) = (job_id(&submitted, "array"), job_id(&submitted, "merge"));
    let show = wait_for_job(&report, &array);
    assert_eq!(
        (field(&show, "JobState"), field(&show, "ExitCode")),
        (Some("COMPLETED"), Some("0:0")),
        "the report job:\n{show}\n{}",
        logs(&run_dir)
    );
    for shard in 0..2 {
        let log = std::fs::read_to_string(run_dir.join(format!("slurm-{array}_{shard}.out")))
            .unwrap_or_default();
        assert!(
            log.starts_with(&format!("Shard {shard}/2: "))
                && log.contains(&format!("Shard {shard}/2 done with its iterations")),
            "array task {shard}:\n{log}"
        );
    }
    let theta = crate::tune::assert_sharded_tune(&run_dir, 6);
    let log = std::fs::read_to_string(run_dir.join(format!("slurm-merge-{report}.out"))).unwrap();
    assert!(
        log.starts_with("θ after 6 of 6 iterations of every shard"),
        "{log}"
    );
    let options = std::fs::read_to_string(run_dir.join("tuned-options.txt")).unwrap();
    assert_eq!(
        log.lines().nth(1),
        Some(options.lines().collect::<Vec<_>>().join(" ").as_str())
    );
    assert_eq!(options.lines().count(), theta.len());
    let seed = |shard: u32| {
        bt_arena::session::resume::read_saved::<bt_arena::tune::TuneConfig>(
            &run_dir.join(format!("shard-{shard}")),
        )
        .unwrap()
        .run
        .seed
    };
    assert_eq!(seed(0), seed(1));
    let identity: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("identity.json")).unwrap())
            .unwrap();
    assert_eq!(identity["settings"]["seed"], seed(0));
}

#[test]
#[ignore = "needs a Slurm cluster taking jobs (scripts/slurm/cluster-up.sh, as root)"]
fn a_slurm_array_of_three_workers_merges_to_the_run_of_one_machine() {
    assert_slurm_takes_jobs();
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(7);
    let single = dir.path().join("single");
    let mut args: Vec<String> = command.split_whitespace().map(String::from).collect();
    args.extend(["--out".into(), single.display().to_string()]);
    let output = bt_arena(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    let run_dir = dir.path().join("run");
    // Three workers on a node of two CPUs: at most two run at once, the third joins late.
    let mut submit = vec![
        "workers".to_string(),
        "3".to_string(),
        run_dir.display().to_string(),
        env!("CARGO_BIN_EXE_bt-arena").to_string(),
    ];
    submit.extend(command.split_whitespace().skip(1).map(String::from));
    let output = Command::new(SUBMIT)
        .args(&submit)
        .current_dir(dir.path())
        .output()
        .expect("submit.sh runs");
    assert!(output.status.success(), "submit.sh: {}", text(&output));
    let submitted = text(&output);
    let (array, merge) = (job_id(&submitted, "array"), job_id(&submitted, "merge"));
    let show = wait_for_job(&merge, &array);
    assert_eq!(
        (field(&show, "JobState"), field(&show, "ExitCode")),
        (Some("COMPLETED"), Some("0:0")),
        "the merge job:\n{show}\n{}",
        logs(&run_dir)
    );
    for task in 0..3 {
        let log = std::fs::read_to_string(run_dir.join(format!("slurm-{array}_{task}.out")))
            .unwrap_or_default();
        assert!(log.starts_with("Worker "), "array task {task}:\n{log}");
    }
    let log = std::fs::read_to_string(run_dir.join(format!("slurm-merge-{merge}.out"))).unwrap();
    assert!(
        log.starts_with("Merged 3 workers: 14 games in game-id order into "),
        "{log}"
    );
    assert_eq!(
        games_of(&run_dir.join("games.csv")),
        games_of(&single.join("games.csv"))
    );
}

/// Issue 30's "done when": one run played by three workers on the one-node cluster (two CPUs:
/// at most two run at once), one of them killed with SIGKILL mid-run (`scancel --full -s
/// KILL`) and one added late by a second submission, merges to exactly the games and the
/// verdict (the exit code of `elo`) of a run on one machine.
#[test]
#[ignore = "needs a Slurm cluster taking jobs (scripts/slurm/cluster-up.sh, as root)"]
fn slurm_workers_one_killed_and_one_added_late_merge_to_the_run_of_one_machine() {
    assert_slurm_takes_jobs();
    let dir = tempfile::tempdir().unwrap();
    let command = deterministic(100);
    let single = dir.path().join("single");
    let mut args: Vec<String> = command.split_whitespace().map(String::from).collect();
    args.extend(["--out".into(), single.display().to_string()]);
    let output = bt_arena(&args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    let run_dir = dir.path().join("run");
    let submit_workers = |count: &str| {
        let mut submit = vec![
            "workers".to_string(),
            count.to_string(),
            run_dir.display().to_string(),
            env!("CARGO_BIN_EXE_bt-arena").to_string(),
        ];
        submit.extend(command.split_whitespace().skip(1).map(String::from));
        let output = Command::new(SUBMIT)
            .args(&submit)
            .current_dir(dir.path())
            .output()
            .expect("submit.sh runs");
        assert!(output.status.success(), "submit.sh: {}", text(&output));
        let submitted = text(&output);
        (job_id(&submitted, "array"), job_id(&submitted, "merge"))
    };
    let (first, first_merge) = submit_workers("2");
    let recorded = || crate::workers::rows(&run_dir);
    assert!(
        eventually(Duration::from_secs(120), || recorded() >= 20),
        "20 games within two minutes:\n{}",
        logs(&run_dir)
    );
    let killed = format!("{first}_0");
    let output = run("scancel", &["--full", "-s", "KILL", &killed]).expect("scancel runs");
    assert!(output.status.success(), "scancel: {}", text(&output));
    let at_kill = recorded();
    let (late, late_merge) = submit_workers("1");
    for (merge, array) in [(&first_merge, &first), (&late_merge, &late)] {
        let show = wait_for_job(merge, array);
        assert_eq!(
            (field(&show, "JobState"), field(&show, "ExitCode")),
            (Some("COMPLETED"), Some("0:0")),
            "merge job {merge} (after any end of {array}):\n{show}\n{}",
            logs(&run_dir)
        );
    }
    assert!(
        at_kill < 200,
        "the run ended before the kill ({at_kill} games)"
    );
    let show = run("scontrol", &["show", "job", &killed]).map_or_else(String::new, |o| text(&o));
    assert_ne!(field(&show, "JobState"), Some("COMPLETED"), "{show}");
    let late_log =
        std::fs::read_to_string(run_dir.join(format!("slurm-{late}_0.out"))).unwrap_or_default();
    assert!(
        late_log.starts_with("Worker "),
        "the late worker:\n{late_log}"
    );
    let output = bt_arena(&["merge".to_string(), run_dir.display().to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(
        games_of(&run_dir.join("games.csv")),
        games_of(&single.join("games.csv")),
        "each game once, as one machine plays them"
    );
    let verdict = |dir: &std::path::Path| {
        bt_arena(&["elo".to_string(), dir.display().to_string()])
            .status
            .code()
    };
    assert_eq!(verdict(&run_dir), verdict(&single));
}

#[test]
#[ignore = "needs a Slurm cluster taking jobs (scripts/slurm/cluster-up.sh, as root)"]
fn a_slurm_array_of_two_datagen_shards_merges_into_the_bytes_of_one_machine() {
    assert_slurm_takes_jobs();
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let single = dir.path().join("single");
    let search = format!("cmd={}", env!("CARGO_BIN_EXE_bt-search"));
    let flags = [
        "--engine",
        &search,
        "nodes=200",
        "--games",
        "6",
        "--seed",
        "5",
        "--startpos",
        "--random-plies",
        "2-6",
    ];
    let mut alone = vec!["datagen", "--out", single.to_str().unwrap()];
    alone.extend_from_slice(&flags);
    let output = bt_arena(&alone);
    assert!(output.status.success(), "{}", text(&output));
    let mut submit = vec![
        "datagen".to_string(),
        "2".to_string(),
        run_dir.display().to_string(),
        env!("CARGO_BIN_EXE_bt-arena").to_string(),
    ];
    submit.extend(flags.iter().map(|flag| flag.to_string()));
    let output = Command::new(SUBMIT)
        .args(&submit)
        .current_dir(dir.path())
        .output()
        .expect("submit.sh runs");
    assert!(output.status.success(), "submit.sh: {}", text(&output));
    let submitted = text(&output);
    let (array, merge) = (job_id(&submitted, "array"), job_id(&submitted, "merge"));
    let show = wait_for_job(&merge, &array);
    assert_eq!(
        (field(&show, "JobState"), field(&show, "ExitCode")),
        (Some("COMPLETED"), Some("0:0")),
        "the merge job:\n{show}\n{}",
        logs(&run_dir)
    );
    for file in ["games.dat", "positions.bin"] {
        assert_eq!(
            std::fs::read(run_dir.join(file)).unwrap(),
            std::fs::read(single.join(file)).unwrap(),
            "{file}"
        );
    }
}
