//! `tournament --affinity`: each engine's CPU mask, as the operating system reports it in
//! `/proc/PID/status` (Linux), and the refusal of a list too short for the concurrency.

use crate::util::{RANDOM, bt_arena, stderr};

/// An engine that appends its own `Cpus_allowed_list` (the shell keeps its pid through `exec`)
/// to `file`, then is bt-random at depth 1.
fn recording(name: &str, file: &std::path::Path) -> Vec<String> {
    vec![
        "--engine".into(),
        "cmd=/bin/sh".into(),
        "arg=-c".into(),
        format!(
            "arg=grep Cpus_allowed_list /proc/self/status >> {}; exec {RANDOM}",
            file.display()
        ),
        format!("name={name}"),
        "depth=1".into(),
    ]
}

#[test]
#[cfg(target_os = "linux")]
fn each_engine_of_a_game_runs_on_its_own_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    let mut args = vec!["tournament".to_string()];
    args.extend(recording("a", &a));
    args.extend(recording("b", &b));
    let out = dir.path().join("run");
    args.extend(
        [
            "--rounds",
            "1",
            "--affinity",
            "0,1",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from),
    );
    let output = bt_arena(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let masks = |file: &std::path::Path| std::fs::read_to_string(file).unwrap();
    // One process per engine (restart=off), started once.
    assert_eq!(masks(&a), "Cpus_allowed_list:\t0\n");
    assert_eq!(masks(&b), "Cpus_allowed_list:\t1\n");
}

#[test]
fn a_list_too_short_for_the_concurrency_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = bt_arena(&[
        "tournament",
        "--engine",
        &format!("cmd={RANDOM}"),
        "--engine",
        &format!("cmd={RANDOM}"),
        "name=other",
        "--concurrency",
        "2",
        "--affinity",
        "0-2",
        "--out",
        dir.path().join("run").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains(
            "--affinity: 2 games at a time x 2 engines x 1 thread need 4 CPUs, the list has 3"
        ),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join("run").join("games.csv").exists());
}
