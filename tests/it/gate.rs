//! scripts/ci/gate.sh end to end, on a git repository the test creates: its commits hold a
//! small engine (bt-search behind a wrapper script that caps every search at a depth the
//! commit sets), built by a trivial build command that counts its runs. The gate must accept
//! the stronger commit, reject a weakened one, stop with exit 4 and the log of a broken build,
//! reuse its build cache on a second run, and, run again with the same arguments, resume its
//! run directory (one per commits and settings) to report the verdict without playing again.

use crate::util::{git, sprt_decided_at};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The wrapper: `bench` runs bt-search's bench to the commit's depth, and every `go` becomes
/// `go depth DEPTH` (so games are deterministic whatever the clock).
const ENGINE_IN: &str = r#"#!/bin/sh
# A small engine: bt-search with every search capped at DEPTH plies.
DEPTH=@DEPTH@
if [ "$1" = bench ]; then exec "@BT_SEARCH@" bench "$DEPTH"; fi
while IFS= read -r line; do
  case "$line" in
    go*) echo "go depth $DEPTH" ;;
    *) echo "$line" ;;
  esac
done | exec "@BT_SEARCH@"
"#;

/// The build: the engine from the template and the commit's `depth` file; each run appends
/// the commit to `$BUILD_COUNTER`.
const BUILD_SH: &str = r#"echo "building $BT_ARENA_COMMIT"
echo "$BT_ARENA_COMMIT" >> "${BUILD_COUNTER:-/dev/null}"
sed -e "s|@BT_SEARCH@|$BT_SEARCH|" -e "s|@DEPTH@|$(cat depth)|" engine.in > engine
chmod +x engine
"#;

/// The engine's repository: `base` (depth 2, tagged), `main` (depth 4), branch `weak` from
/// base (depth 1), branch `broken` from base (a build that fails). Returns the hashes of
/// main, weak and broken.
fn engine_repo(dir: &Path) -> (String, String, String) {
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(dir.join("engine.in"), ENGINE_IN).unwrap();
    std::fs::write(dir.join("build.sh"), BUILD_SH).unwrap();
    let commit = |depth: &str, message: &str| {
        std::fs::write(dir.join("depth"), depth).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "--quiet", "-m", message]);
        git(dir, &["rev-parse", "HEAD"])
    };
    commit("2\n", "base: depth 2");
    git(dir, &["tag", "base"]);
    let main = commit("4\n", "deeper: depth 4");
    git(dir, &["checkout", "--quiet", "-b", "weak", "base"]);
    let weak = commit("1\n", "weaker: depth 1");
    git(dir, &["checkout", "--quiet", "-b", "broken", "base"]);
    std::fs::write(
        dir.join("build.sh"),
        "echo 'compiling engine.c'\necho \"engine.c:12: error: expected ';'\" >&2\nexit 2\n",
    )
    .unwrap();
    let broken = commit("3\n", "broken build");
    git(dir, &["checkout", "--quiet", "main"]);
    (main, weak, broken)
}

/// Runs the gate on `repo` (head `head` against base `base`) into `out`, with the build
/// cache `cache` and the build counter `counter`.
fn gate(repo: &Path, head: &str, out: &Path, cache: &Path, counter: &Path) -> Output {
    gate_with(repo, head, out, cache, counter, &[])
}

/// [`gate`] with more of the gate's own flags (`extra`).
fn gate_with(
    repo: &Path,
    head: &str,
    out: &Path,
    cache: &Path,
    counter: &Path,
    extra: &[&str],
) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ci/gate.sh");
    Command::new("bash")
        .arg(script)
        .args([
            "--base",
            "base",
            "--head",
            head,
            "--build",
            "sh build.sh",
            "--bin",
            "engine",
        ])
        .args([
            "--sprt",
            "elo0=0 elo1=100",
            "--rounds",
            "100",
            "--limit",
            "tc=10+0.1",
        ])
        .args([
            "--concurrency",
            "2",
            "--bt-arena",
            env!("CARGO_BIN_EXE_bt-arena"),
        ])
        .arg("--out")
        .arg(out)
        .arg("--build-cache")
        .arg(cache)
        .args(extra)
        .args(["--", "--seed", "1"])
        .current_dir(repo)
        .env("BT_SEARCH", env!("CARGO_BIN_EXE_bt-search"))
        .env("BUILD_COUNTER", counter)
        .output()
        .expect("gate.sh runs")
}

/// The run directory the gate made in `out`: its only directory.
fn run_dir(out: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The commits the builds counted, one per line.
fn builds(counter: &Path) -> Vec<String> {
    std::fs::read_to_string(counter)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

struct Setup {
    _dirs: tempfile::TempDir,
    repo: PathBuf,
    cache: PathBuf,
    counter: PathBuf,
    root: PathBuf,
    main: String,
    weak: String,
    broken: String,
}

fn setup() -> Setup {
    let dirs = tempfile::tempdir().unwrap();
    let root = dirs.path().to_path_buf();
    let repo = root.join("my-engine");
    std::fs::create_dir(&repo).unwrap();
    let (main, weak, broken) = engine_repo(&repo);
    Setup {
        repo,
        cache: root.join("cache"),
        counter: root.join("builds.txt"),
        root,
        main,
        weak,
        broken,
        _dirs: dirs,
    }
}

#[test]
fn the_gate_accepts_a_stronger_commit_and_a_second_run_builds_nothing() {
    let s = setup();
    let base = git(&s.repo, &["rev-parse", "base"]);
    let out = s.root.join("first");
    let first = gate(&s.repo, "HEAD", &out, &s.cache, &s.counter);
    let stdout = text(&first.stdout);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&first.stderr)
    );
    assert!(stdout.contains("SPRT: H1 accepted"), "{stdout}");
    assert!(stdout.contains("gate: PASS: H1 accepted"), "{stdout}");
    let mut built = builds(&s.counter);
    built.sort();
    let mut expected = vec![s.main.clone(), base.clone()];
    expected.sort();
    assert_eq!(built, expected);
    // The artifacts: the page and the games, tagged with the commits played.
    let head_name = format!("head@{}", &s.main[..7]);
    // One directory per commits and settings.
    let run = run_dir(&out);
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!("{}-{}-", &base[..12], &s.main[..12])),
        "{name}"
    );
    assert!(
        stdout.contains(&format!("report: {}/report.html", run.display())),
        "{stdout}"
    );
    let out = run;
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        page.contains(&format!("Source of {head_name}")),
        "report.html"
    );
    assert!(page.contains(&s.main), "report.html names the commit");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(pgn.contains(&format!("[White \"{head_name}\"]")));
    assert!(pgn.contains(&format!("[X-WhiteCommit \"{}\"]", s.main)));
    assert!(pgn.contains(&format!("[X-BlackCommit \"{base}\"]")));
    assert!(pgn.contains("[X-WhiteBuild \"sh build.sh\"]"));
    assert!(
        out.join("logs")
            .join(format!("build-{}.log", head_name.replace('@', "_")))
            .is_file()
    );

    // A second gate on the same commits: both builds come from the cache.
    let again = gate(
        &s.repo,
        "HEAD",
        &s.root.join("second"),
        &s.cache,
        &s.counter,
    );
    let stdout = text(&again.stdout);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&again.stderr)
    );
    assert_eq!(builds(&s.counter).len(), 2, "nothing was built again");
    assert_eq!(
        stdout.matches("found in the build cache").count(),
        2,
        "{stdout}"
    );
}

#[test]
fn the_gate_rejects_a_weakened_commit_and_run_again_reports_it_without_playing() {
    let s = setup();
    let out = s.root.join("weak");
    // Cut short (the builds outlast the budget): no game, no decision.
    let cut = gate_with(
        &s.repo,
        "weak",
        &out,
        &s.cache,
        &s.counter,
        &["--max-time", "1ms"],
    );
    let stdout = text(&cut.stdout);
    assert_eq!(cut.status.code(), Some(2), "{stdout}{}", text(&cut.stderr));
    assert!(
        stdout.contains("gate: NO DECISION within the budget; report: "),
        "{stdout}"
    );
    // Run again with the same settings (a budget is not one): the run is continued.
    let output = gate(&s.repo, "weak", &out, &s.cache, &s.counter);
    assert!(
        text(&output.stdout).contains(&format!("gate: resuming {}", run_dir(&out).display())),
        "{}",
        text(&output.stdout)
    );
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}\n{}",
        text(&output.stderr)
    );
    assert!(stdout.contains("SPRT: H0 accepted"), "{stdout}");
    assert!(stdout.contains("gate: FAIL: H0 accepted"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir(&out).join("summary.json")).unwrap())
            .unwrap();
    let name = format!("head@{}", &s.weak[..7]);
    assert_eq!(summary["builds"][&name]["commit"], s.weak.as_str());
    assert_eq!(summary["builds"][&name]["rev"], "weak");
    assert!(summary["builds"][&name]["bench"].as_u64().is_some());

    // A CI job re-run locally: the same arguments resume the run of the same commits and
    // settings, which reports its verdict and plays no game.
    let run = run_dir(&out);
    let played = std::fs::read_to_string(run.join("games.csv")).unwrap();
    let again = gate(&s.repo, "weak", &out, &s.cache, &s.counter);
    let stdout = text(&again.stdout);
    assert_eq!(
        again.status.code(),
        Some(1),
        "{stdout}\n{}",
        text(&again.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "gate: {} already holds the verdict of these commits and settings; no game is played",
            run.display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains("SPRT: H0 accepted"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "gate: FAIL: H0 accepted (head is not better than base by the SPRT's bounds); \
             report: {}/report.html",
            run.display()
        )),
        "{stdout}"
    );
    assert!(
        std::fs::read_to_string(run.join("games.csv")).unwrap() == played,
        "no game was played again"
    );
    assert_eq!(run_dir(&out), run, "the same directory");
}

#[test]
fn a_broken_build_stops_the_gate_with_exit_4_and_its_log() {
    let s = setup();
    let out = s.root.join("broken");
    let output = gate(&s.repo, "broken", &out, &s.cache, &s.counter);
    let stderr = text(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(4),
        "{}\n{stderr}",
        text(&output.stdout)
    );
    let name = format!("head@{}", &s.broken[..7]);
    let run = run_dir(&out);
    let log = run
        .join("logs")
        .join(format!("build-{}.log", name.replace('@', "_")));
    assert!(
        stderr.contains(&format!(
            "error: engine '{name}': the build failed (exit status: 2): `sh build.sh` at commit {}; \
             the last lines of its log ({}):",
            s.broken,
            log.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("  | compiling engine.c\n  | engine.c:12: error: expected ';'"),
        "{stderr}"
    );
    let kept = std::fs::read_to_string(&log).unwrap();
    assert!(kept.contains("engine.c:12: error: expected ';'"), "{kept}");
    assert!(!run.join("games.csv").exists(), "no game was played");
    // It names what exists: the logs, and no page.
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(&format!(
            "gate: ERROR (exit 4): see above; build logs in {}/logs/\n",
            run.display()
        )),
        "{stdout}"
    );
    assert!(!run.join("report.html").exists());
    assert!(!stdout.contains("report.html"), "{stdout}");
    // Run again: the build is tried again and fails the same way (the directory holds no
    // games to trip over).
    let again = gate(&s.repo, "broken", &out, &s.cache, &s.counter);
    assert_eq!(again.status.code(), Some(4), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("the build failed (exit status: 2)"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(run_dir(&out), run);
}

/// Rows of the games.csv in the run directory `run`.
fn games(run: &Path) -> usize {
    std::fs::read_to_string(run.join("games.csv"))
        .unwrap()
        .lines()
        .count()
        - 1
}

#[test]
fn the_gate_without_a_decision_exits_2_when_its_rounds_or_its_time_run_out() {
    let s = setup();
    // Two game pairs cannot decide [0, 5]: a pair moves the LLR by at most about 0.014.
    let out = s.root.join("rounds");
    let flags = ["--sprt", "elo0=0 elo1=5", "--rounds", "2"];
    let output = gate_with(&s.repo, "HEAD", &out, &s.cache, &s.counter, &flags);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{stdout}\n{}",
        text(&output.stderr)
    );
    // Two pairs won twice by head: the LLR is still within its bounds, no verdict.
    assert!(
        stdout.contains("LLR: 0.03 (-2.94, 2.94) [0.00, 5.00]\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("SPRT: H"), "{stdout}");
    let run = run_dir(&out);
    assert!(
        stdout.contains(&format!(
            "gate: NO DECISION within the budget; report: {}/report.html",
            run.display()
        )),
        "{stdout}"
    );
    assert_eq!(games(&run), 4);
    // --max-time: [0, 2] needs over 1,000 game pairs whatever the engines, far more than
    // 2 s can play; the rounds are not what stops it.
    let out = s.root.join("time");
    let flags = [
        "--sprt",
        "elo0=0 elo1=2",
        "--rounds",
        "5000",
        "--max-time",
        "2s",
    ];
    let output = gate_with(&s.repo, "HEAD", &out, &s.cache, &s.counter, &flags);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("Time limit reached (--max-time): no new game pair started after it"),
        "{stderr}"
    );
    assert!(
        stdout.contains("gate: NO DECISION within the budget"),
        "{stdout}"
    );
    let played = games(&run_dir(&out));
    assert!((2..10_000).contains(&played), "{played} games");
    // Both gates used the builds of the first.
    assert_eq!(builds(&s.counter).len(), 2);
}

#[test]
fn the_gate_passes_a_normalized_sprt_on() {
    let s = setup();
    let out = s.root.join("normalized");
    // One game at a time: the games, and so the verdict's game, are the same on every run.
    let flags = [
        "--sprt",
        "elo0=0 elo1=50 model=normalized",
        "--concurrency",
        "1",
    ];
    let output = gate_with(&s.repo, "HEAD", &out, &s.cache, &s.counter, &flags);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&output.stderr)
    );
    let head = format!("head@{}", &s.main[..7]);
    let sprt = |model| {
        bt_arena::stats::Sprt::new(0.0, 50.0, 0.05, 0.05)
            .and_then(|sprt| sprt.with_model(model))
            .unwrap()
    };
    let csv = run_dir(&out).join("games.csv");
    let normalized = sprt_decided_at(&csv, &head, &sprt(bt_arena::stats::SprtModel::Normalized));
    let logistic = sprt_decided_at(&csv, &head, &sprt(bt_arena::stats::SprtModel::Logistic));
    let at = normalized.expect("the games decide the normalized SPRT");
    assert_ne!(
        logistic, normalized,
        "the models must decide apart to tell them apart"
    );
    assert!(
        stdout.contains(&format!("SPRT: H1 accepted at game {at}\n")),
        "{stdout}"
    );
    assert!(stdout.contains("[0.00, 50.00] nElo\n"), "{stdout}");
    assert!(stdout.contains("gate: PASS: H1 accepted"), "{stdout}");
}
