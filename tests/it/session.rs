//! The one session every kind of run is played on: what a tournament, a tune and a datagen
//! run each get alike (run.json, a book's digest in the identity, `--max-time`, `--affinity`,
//! the flags `--resume` takes). Each of these was once a kind's alone.

use crate::util::{RANDOM, SEARCH, bt_arena, path, stderr, success_stdout};
use std::path::Path;

/// `bt-arena tune` of bt-search at 100 nodes, one parameter, 2 iterations of 1 game pair.
fn tune(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tune",
        "--engine",
        &format!("cmd={SEARCH}"),
        "nodes=100",
        "--param",
        "Tempo, int, 10, -20, 40, 3, 0.05",
        "--iterations",
        "2",
        "--pairs",
        "1",
        "--seed",
        "1",
        "--out",
        path(out),
    ]
    .map(String::from)
    .into();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// `bt-arena datagen` of bt-search at 100 nodes from the start position after 2-6 random
/// plies, seed 5.
fn datagen(out: &Path, games: u32, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "datagen",
        "--engine",
        &format!("cmd={SEARCH}"),
        "nodes=100",
        "--games",
        &games.to_string(),
        "--seed",
        "5",
        "--startpos",
        "--random-plies",
        "2-6",
        "--out",
        path(out),
    ]
    .map(String::from)
    .into();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// A tournament of bt-random against bt-search at depth 1, one round.
fn tournament(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tournament",
        "--engine",
        &format!("cmd={RANDOM}"),
        "--engine",
        &format!("cmd={SEARCH}"),
        "--each",
        "depth=1",
        "--out",
        path(out),
    ]
    .map(String::from)
    .into();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A book of two openings of capture-only rules, at `path`.
fn book(path: &Path, second: &str) {
    std::fs::write(
        path,
        format!("pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w\n{second}\n",),
    )
    .unwrap();
}

#[test]
fn every_kind_writes_run_json_with_its_command_line_version_and_engines() {
    let dir = tempfile::tempdir().unwrap();
    let runs = [
        (dir.path().join("t"), tournament(&dir.path().join("t"), &[])),
        (dir.path().join("u"), tune(&dir.path().join("u"), &[])),
        (dir.path().join("d"), datagen(&dir.path().join("d"), 2, &[])),
    ];
    for (out, args) in &runs {
        success_stdout(&bt_arena(args));
        let info = json(&out.join("run.json"));
        assert_eq!(info["command_line"][1], args[0], "{info}");
        assert_eq!(
            info["command_line"].as_array().unwrap().len(),
            args.len() + 1,
            "{info}"
        );
        assert_eq!(info["bt_arena"], env!("CARGO_PKG_VERSION"));
        let engines = info["engines"].as_object().unwrap();
        assert!(
            engines
                .values()
                .any(|id| id.as_str() == Some("bt-search 0.1.0")),
            "{}: {info}",
            args[0]
        );
        assert!(info["load"]["end"].is_array(), "{info}");
    }
}

#[test]
fn a_tune_resumed_after_its_book_changed_is_refused_as_a_tournament_is() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("book.epd");
    book(&openings, "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b");
    let file = format!("file={}", openings.display());
    let out = dir.path().join("tune");
    let first = bt_arena(&tune(&out, &["--openings", &file, "--max-time", "1ms"]));
    assert_eq!(first.status.code(), Some(2), "{}", stderr(&first));
    let digest = json(&out.join("tune.json"))["openings"]["digest"].clone();
    assert_eq!(
        digest.as_str().map(str::len),
        Some(64),
        "the book's SHA-256"
    );
    book(&openings, "pppppppp/pppppppp/8/8/8/7P/PPPPPPP1/PPPPPPPP b");
    let resumed = bt_arena(&["tune", "--resume", path(&out)]);
    assert_eq!(resumed.status.code(), Some(4), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains(&format!(
            "the book {} changed since the run started (its SHA-256 was {}",
            openings.display(),
            digest.as_str().unwrap()
        )),
        "{}",
        stderr(&resumed)
    );
    // A shard joining a sharded tune with another book names the digest.
    let run = dir.path().join("sharded");
    let other = dir.path().join("other.epd");
    book(&other, "pppppppp/pppppppp/8/8/8/2P5/PP1PPPPP/PPPPPPPP b");
    let shard = |book: &Path, k: &str| {
        let file = format!("file={}", book.display());
        bt_arena(&tune(
            &run,
            &["--openings", &file, "--shard", k, "--max-time", "1ms"],
        ))
    };
    assert_eq!(shard(&openings, "0/2").status.code(), Some(2));
    let refused = shard(&other, "1/2");
    assert_eq!(refused.status.code(), Some(4), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("field `openings.digest`"),
        "{}",
        stderr(&refused)
    );
    // The same book at another path is the same tune.
    let moved = dir.path().join("moved.epd");
    std::fs::copy(&openings, &moved).unwrap();
    assert_eq!(shard(&moved, "1/2").status.code(), Some(2));
}

#[test]
fn datagen_stopped_by_max_time_resumes_to_the_bytes_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    success_stdout(&bt_arena(&datagen(&whole, 200, &[])));
    let stopped = dir.path().join("stopped");
    let output = bt_arena(&datagen(
        &stopped,
        200,
        &["--max-time", "300ms", "--concurrency", "2"],
    ));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("Time limit reached (--max-time): no new game started after it; ")
            && stderr(&output).contains(&format!(
                "continue with `bt-arena datagen --resume {}`",
                stopped.display()
            )),
        "{}",
        stderr(&output)
    );
    let kept = crate::util::games_of(&stopped.join("games.csv")).len();
    assert!(kept < 200, "the time limit stopped the run: {kept} games");
    let resumed = bt_arena(&["datagen", "--resume", path(&stopped)]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    for file in ["games.dat", "positions.bin"] {
        assert_eq!(
            std::fs::read(whole.join(file)).unwrap(),
            std::fs::read(stopped.join(file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn datagens_resume_refusal_lists_the_flags_its_help_lists_under_session() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    success_stdout(&bt_arena(&datagen(&out, 2, &[])));
    let refused = bt_arena(&["datagen", "--resume", path(&out), "--games", "5"]);
    assert_eq!(refused.status.code(), Some(3));
    let message = stderr(&refused);
    let listed: Vec<&str> = message
        .split("(only ")
        .nth(1)
        .and_then(|rest| rest.split(" may be given)").next())
        .expect("the flags a resumed run takes")
        .split(", ")
        .collect();
    let help = success_stdout(&bt_arena(&["datagen", "-h"]));
    let session = help
        .split("Session (what --resume may change):")
        .nth(1)
        .expect("the help's Session heading");
    let in_help: Vec<&str> = session
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with("--"))
        .filter_map(|line| line.split([' ', '<', '[']).next())
        .collect();
    assert_eq!(listed, in_help);
    for flag in [
        "--log",
        "--max-time",
        "--affinity",
        "--check-claims",
        "--strict",
    ] {
        assert!(listed.contains(&flag), "{listed:?}");
    }
    // A flag of that list is taken: the finished run resumes and plays nothing more.
    let again = bt_arena(&["datagen", "--resume", path(&out), "--log", "--strict"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

#[test]
fn tune_and_datagen_refuse_an_affinity_too_short_as_a_tournament_does() {
    let dir = tempfile::tempdir().unwrap();
    let flags = ["--concurrency", "2", "--affinity", "0-2"];
    let outs = ["t", "u", "d"].map(|name| dir.path().join(name));
    let runs = [
        (&outs[0], tournament(&outs[0], &flags)),
        (&outs[1], tune(&outs[1], &flags)),
        (&outs[2], datagen(&outs[2], 2, &flags)),
    ];
    for (out, args) in &runs {
        let output = bt_arena(args);
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        assert!(
            stderr(&output).contains(
                "--affinity: 2 games at a time x 2 engines x 1 thread need 4 CPUs, the list has 3"
            ),
            "{}",
            stderr(&output)
        );
        assert!(!out.exists(), "{}", out.display());
    }
}

/// An engine that appends its own `Cpus_allowed_list` to `file`, then is bt-search at 100
/// nodes: for `tune` and `datagen`, which take one engine.
#[cfg(target_os = "linux")]
fn recording(file: &Path) -> Vec<String> {
    vec![
        "cmd=/bin/sh".into(),
        "arg=-c".into(),
        format!(
            "arg=grep Cpus_allowed_list /proc/self/status >> {}; exec {SEARCH}",
            file.display()
        ),
    ]
}

#[test]
#[cfg(target_os = "linux")]
fn tune_and_datagen_pin_each_engine_of_a_game_to_its_own_cpu() {
    let dir = tempfile::tempdir().unwrap();
    for kind in ["tune", "datagen"] {
        let masks = dir.path().join(format!("{kind}.txt"));
        let out = dir.path().join(kind);
        let mut args = match kind {
            "tune" => tune(&out, &["--affinity", "0,1"]),
            _ => datagen(&out, 2, &["--affinity", "0,1"]),
        };
        // The engine's keys, in place of bt-search's command.
        let at = args
            .iter()
            .position(|a| a == &format!("cmd={SEARCH}"))
            .unwrap();
        args.splice(at..=at, recording(&masks));
        let output = bt_arena(&args);
        assert_eq!(output.status.code(), Some(0), "{kind}: {}", stderr(&output));
        let mut lines: Vec<String> = std::fs::read_to_string(&masks)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        // Each starts its engine once more, unpinned, first: a tune to check its options,
        // datagen to see that it reports scores.
        lines.remove(0);
        lines.sort();
        assert_eq!(
            lines,
            ["Cpus_allowed_list:\t0", "Cpus_allowed_list:\t1"],
            "{kind}"
        );
    }
}
