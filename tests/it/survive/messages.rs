//! What bt-arena says of a run of workers given where it does not fit (issue 38, item 7):
//! each message names what the directory holds and what to do, and the exit code is the same
//! whoever reads the run (an incomplete run is 5 for `elo`, `report` and `merge`).

use crate::util::{RANDOM, bt_arena, deterministic, path, stderr, words};
use std::path::Path;

/// A finished tournament's run of workers (one worker, two game pairs) in `dir/run`.
fn tournament_of_workers(dir: &Path) -> std::path::PathBuf {
    let run = dir.join("run");
    let output = bt_arena(&words(
        &deterministic(2),
        &["--out", path(&run), "--worker", "--lease", "2s"],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    run
}

/// The one worker directory of `run`.
fn the_worker(run: &Path) -> std::path::PathBuf {
    let dirs = bt_arena::run_dir::RunDir::new(run).worker_dirs().unwrap();
    assert_eq!(dirs.len(), 1);
    dirs[0].root().to_path_buf()
}

#[test]
fn merge_names_the_game_a_renamed_copy_of_a_worker_repeats_as_elo_does() {
    let dir = tempfile::tempdir().unwrap();
    let run = tournament_of_workers(dir.path());
    let worker = the_worker(&run);
    let copy = dir.path().join("copy");
    assert!(
        std::process::Command::new("cp")
            .args(["-r", path(&worker), path(&copy)])
            .status()
            .unwrap()
            .success()
    );
    let out = dir.path().join("merged");
    let merge = bt_arena(&["merge", "--out", path(&out), path(&worker), path(&copy)]);
    let elo = bt_arena(&["elo", path(&worker), path(&copy)]);
    let repeated = format!(
        "game 1 of one run comes twice: {}/games.csv line 2 and {}/games.csv line 2",
        worker.display(),
        copy.display()
    );
    for (command, output) in [("merge", &merge), ("elo", &elo)] {
        assert_eq!(
            output.status.code(),
            Some(4),
            "{command}: {}",
            stderr(output)
        );
        assert!(
            stderr(output).contains(&repeated),
            "{command}: {}",
            stderr(output)
        );
    }
    assert!(!out.exists(), "nothing merged");
}

#[test]
fn a_tune_or_datagen_worker_on_a_tournaments_run_of_workers_is_told_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let run = tournament_of_workers(dir.path());
    let config = the_worker(&run).join("config.json");
    let engine = format!("cmd={RANDOM}");
    let tune = bt_arena(&[
        "tune",
        "--engine",
        &engine,
        "--param",
        "x,int,5,0,10,1,0.002",
        "--iterations",
        "2",
        "--out",
        path(&run),
        "--worker",
    ]);
    let datagen = bt_arena(&[
        "datagen",
        "--engine",
        &engine,
        "--games",
        "2",
        "--out",
        path(&run),
        "--worker",
    ]);
    let told = format!(
        "error: {} holds a tournament's run of workers ({}): a worker cannot join it; choose \
         another --out",
        run.display(),
        config.display()
    );
    for (command, output) in [("tune", &tune), ("datagen", &datagen)] {
        assert_eq!(
            output.status.code(),
            Some(4),
            "{command}: {}",
            stderr(output)
        );
        assert_eq!(stderr(output).trim_end(), told, "{command}");
    }
}

#[test]
fn a_tournament_resumed_on_its_run_of_workers_is_told_to_start_a_worker() {
    let dir = tempfile::tempdir().unwrap();
    let run = tournament_of_workers(dir.path());
    let output = bt_arena(&["tournament", "--resume", path(&run)]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let absolute = std::path::absolute(&run).unwrap();
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "error: {} holds a run of workers, which is not resumed: start a worker with the \
             run's flags and --out {0} --worker to play what is missing",
            absolute.display()
        )
    );
}

#[test]
fn a_run_of_workers_with_no_worker_directory_yet_is_incomplete_for_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let run = tournament_of_workers(dir.path());
    // As before its first worker made its directory: the identity alone.
    for entry in std::fs::read_dir(&run).unwrap() {
        let entry = entry.unwrap().path();
        if entry.file_name().unwrap() != "identity.json" {
            let _ = std::fs::remove_dir_all(&entry).or_else(|_| std::fs::remove_file(&entry));
        }
    }
    let told = format!(
        "Incomplete: {} is a run of shards or workers none of which has recorded a game yet \
         ({}/identity.json, no worker or shard directory with games): every game of its \
         schedule is missing; start a worker (the run's flags and --out {0} --worker) or its \
         shards, then read the run again",
        run.display(),
        run.display()
    );
    for command in ["elo", "report", "merge"] {
        let output = bt_arena(&[command, path(&run)]);
        assert_eq!(
            output.status.code(),
            Some(5),
            "{command}: {}",
            stderr(&output)
        );
        assert_eq!(stderr(&output).trim_end(), told, "{command}");
    }
}
