//! Engines built from git revisions (`src=`, `rev=`, `build=`, `bin=`), their bench
//! signatures, `bt-arena bench`, `--scale-tc` and `--max-time`, through the bt-arena binary.

use crate::util::git;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A repository `engine` whose commits hold a script running bt-search capped at a depth;
/// `depths` gives one commit each on `main`. Returns the repository and the hashes.
fn repo(root: &Path, depths: &[u32]) -> (PathBuf, Vec<String>) {
    let dir = root.join("engine");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "--quiet", "--initial-branch=main"]);
    let commits = depths
        .iter()
        .map(|depth| {
            let script = format!(
                "#!/bin/sh\n[ \"$1\" = bench ] && exec '{search}' bench {depth}\n\
                 while IFS= read -r line; do case \"$line\" in go*) echo 'go depth {depth}';; \
                 *) echo \"$line\";; esac; done | exec '{search}'\n",
                search = env!("CARGO_BIN_EXE_bt-search")
            );
            std::fs::write(dir.join("engine.sh"), script).unwrap();
            git(&dir, &["add", "-A"]);
            git(
                &dir,
                &["commit", "--quiet", "-m", &format!("depth {depth}")],
            );
            git(&dir, &["rev-parse", "HEAD"])
        })
        .collect();
    (dir, commits)
}

const BUILD: &str = "build=cp engine.sh engine && chmod +x engine";

fn bt_arena(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("bt-arena runs")
}

/// bt-arena with a home directory of its own (`home`) and no build cache in the environment:
/// the default cache is `home/.cache/bt-arena/builds`.
fn bt_arena_at_home(args: &[&str], cwd: &Path, home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("BT_ARENA_BUILD_CACHE")
        .output()
        .expect("bt-arena runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The games recorded in `dir`'s games.csv.
fn games(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("games.csv"))
        .map_or(0, |text| text.lines().count().saturating_sub(1))
}

#[test]
fn bt_search_bench_prints_one_signature_whatever_the_machine() {
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_bt-search"))
            .args(["bench", "6"])
            .output()
            .unwrap();
        assert!(output.status.success());
        let stdout = text(&output.stdout);
        let last = stdout.lines().last().unwrap().to_string();
        let words: Vec<&str> = last.split(' ').collect();
        assert_eq!(words.len(), 4, "{last}");
        assert_eq!((words[1], words[3]), ("nodes", "nps"), "{last}");
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with("position")).count(),
            12
        );
        words[0].parse::<u64>().unwrap()
    };
    assert_eq!(run(), run());
    let bad = Command::new(env!("CARGO_BIN_EXE_bt-search"))
        .args(["bench", "x"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("bad bench depth 'x'"));
}

#[test]
fn bench_prints_signatures_and_names_engines_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[3]);
    let cache = dir.path().join("cache");
    let src = format!("src={}", repo.display());
    let args = [
        "bench",
        "--build-cache",
        cache.to_str().unwrap(),
        "--engine",
        &src,
        BUILD,
        "bin=engine",
    ];
    let output = bt_arena(&args, dir.path());
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("engine@{}: ", &commits[0][..7])))
        .unwrap_or_else(|| panic!("{stdout}"));
    let nodes: u64 = line.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(line.ends_with(" nps"), "{line}");
    // Pinned right passes, pinned wrong fails with exit 1.
    let pinned = format!("bench={nodes}");
    let mut ok = args.to_vec();
    ok.push(&pinned);
    assert!(bt_arena(&ok, dir.path()).status.success());
    let mut wrong = args.to_vec();
    wrong.push("bench=1");
    let output = bt_arena(&wrong, dir.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains(&format!(
            "its bench counts {nodes} nodes, not the 1 of bench=1"
        )),
        "{}",
        text(&output.stderr)
    );
    // An engine without a bench.
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    let output = bt_arena(&["bench", "--engine", &random], dir.path());
    assert_eq!(output.status.code(), Some(4));
    assert!(
        text(&output.stderr).contains("error: engine 'bt-random': the engine has no bench: `"),
        "{}",
        text(&output.stderr)
    );
}

/// The base engine benches at half the reference speed: both clocks are doubled, and the
/// factor is in run.json, the PGN's time control and report.html.
#[test]
fn scale_tc_doubles_the_clocks_of_a_machine_half_as_fast() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let faulty = format!("cmd={}", env!("CARGO_BIN_EXE_bt-faulty"));
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    let output = bt_arena(
        &[
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
            "1",
            "--concurrency",
            "2",
            "--scale-tc",
            "300000",
            "--log",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(
        stdout.contains(
            "Time control scaled x2.000 (reference 300000 nps / measured 150000 nps: base's \
             bench, 2 at once)"
        ),
        "{stdout}"
    );
    let run = json(&out.join("run.json"));
    assert_eq!(
        run["clock_scale"],
        serde_json::json!({"reference_nps": 300000, "measured_nps": 150000, "benches": 2,
                           "engine": "base", "factor": 2.0})
    );
    assert_eq!(run["builds"]["base"]["bench_nps"], 150_000);
    // The saved config keeps the unscaled clock and the reference; the games had twice it.
    let config = json(&out.join("config.json"));
    assert_eq!(config["scale_tc"], 300_000);
    assert_eq!(config["engines"][1]["limit"]["clock"]["base_ms"], 1000);
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[TimeControl \"2+0.02\"]").count(), 2, "{pgn}");
    let log = std::fs::read_dir(out.join("logs"))
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| {
            e.file_name().to_string_lossy().starts_with("base-")
                && e.file_name().to_string_lossy().ends_with(".log")
                && !e.file_name().to_string_lossy().contains("stderr")
        })
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .unwrap();
    // The increments sent are doubled (the times left depend on the moves' times).
    assert!(log.contains(" p1inc 20 p2inc 20"), "{log}");
    assert!(!log.contains(" p1inc 10 "), "{log}");
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("Time control scaled"));
    // A base engine without a bench cannot be scaled by.
    let output = bt_arena(
        &[
            "tournament",
            "--engine",
            &faulty,
            "name=a",
            "--engine",
            &random,
            "name=b",
            "--scale-tc",
            "1000",
            "--out",
            dir.path().join("no").to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(4));
    assert!(
        text(&output.stderr).contains(
            "error: --scale-tc: the base engine 'b' (the last) has no bench to measure this \
             machine's speed with"
        ),
        "{}",
        text(&output.stderr)
    );
    // Refused with the error alone: no warning besides it, on either stream (the preparation's
    // warnings, such as "engine b has no bench", are steps it reports on stdout; others go
    // to stderr).
    for stream in [&output.stdout, &output.stderr] {
        assert!(!text(stream).contains("warning"), "{}", text(stream));
    }
}

#[test]
fn max_time_starts_no_new_pair_after_it_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let faulty = format!("cmd={}", env!("CARGO_BIN_EXE_bt-faulty"));
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    let began = std::time::Instant::now();
    let output = bt_arena(
        &[
            "tournament",
            "--engine",
            &faulty,
            "name=slow",
            "args=--fault slow --delay-ms 20",
            "--engine",
            &random,
            "--each",
            "tc=60",
            "--rounds",
            "500",
            "--max-time",
            "2s",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    let elapsed = began.elapsed();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let played = games(&out);
    assert!(
        (2..1000).contains(&played) && played.is_multiple_of(2),
        "{played} games"
    );
    // No pair started more than 2 s after the first game did (the budget runs from the
    // command's start, before the first game; `started` is in whole seconds, rounded down).
    let records = bt_arena::records::read_games(&out.join("games.csv")).unwrap();
    let second = |game: &bt_arena::records::GameRecord| {
        humantime::parse_rfc3339(&game.started)
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let first = records.iter().map(second).min().unwrap();
    let mut pairs = std::collections::BTreeMap::new();
    for game in &records {
        let start = pairs.entry(game.pair).or_insert(u64::MAX);
        *start = (*start).min(second(game));
    }
    assert!(
        pairs.values().all(|&start| start <= first + 2),
        "pairs started at {pairs:?} (s), the first game at {first}"
    );
    // And the command ended within the budget, a pair's length and a roomy allowance for
    // starting and stopping engines on a loaded machine: not a minute late.
    let longest_pair: u64 = pairs
        .keys()
        .map(|pair| {
            records
                .iter()
                .filter(|g| g.pair == *pair)
                .map(|g| g.white_ms + g.black_ms)
                .sum::<u64>()
        })
        .max()
        .unwrap();
    let bound = std::time::Duration::from_millis(2_000 + longest_pair + 30_000);
    assert!(
        elapsed < bound,
        "{elapsed:?} for --max-time 2s (bound {bound:?})"
    );
    assert!(stderr.contains(&format!(
        "Time limit reached (--max-time): no new game pair started after it; {played} games recorded; continue with `bt-arena tournament --resume {}`",
        out.display()
    )), "{stderr}");
    // --max-time may be given on resume: the budget of that session.
    let resumed = bt_arena(
        &[
            "tournament",
            "--resume",
            out.to_str().unwrap(),
            "--max-time",
            "2s",
        ],
        dir.path(),
    );
    assert_eq!(resumed.status.code(), Some(2), "{}", text(&resumed.stderr));
    assert!(games(&out) > played);
}

/// rev=main resolves once: a run cut short and resumed after main moved plays the commit it
/// started with, checked by its recorded signature, from the build cache.
#[test]
fn a_resumed_run_keeps_its_commit_after_the_branch_moves() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2, 3]);
    let out = dir.path().join("out");
    let cache = dir.path().join("cache");
    let src = format!("src={}", repo.display());
    let slow = format!("cmd={}", env!("CARGO_BIN_EXE_bt-faulty"));
    let first = bt_arena(
        &[
            "tournament",
            "--engine",
            &src,
            "rev=main",
            BUILD,
            "bin=engine",
            "--engine",
            &slow,
            "args=--fault slow --delay-ms 20",
            "--each",
            "tc=60",
            "--rounds",
            "300",
            "--max-time",
            "2s",
            "--build-cache",
            cache.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(first.status.code(), Some(2), "{}", text(&first.stderr));
    let name = format!("engine@{}", &commits[1][..7]);
    let config = json(&out.join("config.json"));
    assert_eq!(config["engines"][0]["name"], name.as_str());
    assert_eq!(
        config["engines"][0]["source"]["commit"],
        commits[1].as_str()
    );
    let bench = config["engines"][0]["bench"]
        .as_u64()
        .expect("the signature is recorded");
    // main moves on; the resumed run does not follow it.
    std::fs::write(repo.join("engine.sh"), "#!/bin/sh\nexit 1\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "moved"]);
    let resumed = bt_arena(
        &[
            "tournament",
            "--resume",
            out.to_str().unwrap(),
            "--max-time",
            "2s",
            "--build-cache",
            cache.to_str().unwrap(),
        ],
        dir.path(),
    );
    let stdout = text(&resumed.stdout);
    assert_eq!(
        resumed.status.code(),
        Some(2),
        "{stdout}{}",
        text(&resumed.stderr)
    );
    assert!(stdout.contains(&format!("Engine {name}: commit {} (`cp engine.sh engine && chmod +x engine`) found in the build cache", commits[1])), "{stdout}");
    assert!(
        stdout.contains(&format!("Engine {name}: bench {bench} nodes")),
        "{stdout}"
    );
    assert!(stdout.contains("the signature expected"), "{stdout}");
    assert_eq!(
        json(&out.join("config.json"))["engines"][0]["source"]["commit"],
        commits[1].as_str()
    );
}

/// The build cache a run was started with is in its config.json: --resume builds into it (here
/// finds its builds there) rather than the default cache; --build-cache given with --resume
/// overrides it.
#[test]
fn a_resumed_run_uses_the_build_cache_it_was_started_with() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let (out, cache, home) = (
        dir.path().join("out"),
        dir.path().join("cache"),
        dir.path().join("home"),
    );
    let src = format!("src={}", repo.display());
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    // --max-time 1ms: the build outlasts it, so no game starts and the run stops, resumable.
    let first = bt_arena_at_home(
        &[
            "tournament",
            "--engine",
            &src,
            BUILD,
            "bin=engine",
            "--engine",
            &random,
            "--each",
            "depth=1",
            "--rounds",
            "2",
            "--max-time",
            "1ms",
            "--build-cache",
            cache.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
        &home,
    );
    assert_eq!(first.status.code(), Some(2), "{}", text(&first.stderr));
    let saved = json(&out.join("config.json"));
    assert_eq!(saved["build_cache"], cache.to_str().unwrap());
    let found = format!(
        "Engine engine@{}: commit {} (`cp engine.sh engine && chmod +x engine`) found in the \
         build cache ({}/",
        &commits[0][..7],
        commits[0],
        cache.display()
    );
    let resume = |extra: &[&str]| {
        let mut args = vec!["tournament", "--resume", out.to_str().unwrap()];
        args.extend(extra);
        bt_arena_at_home(&args, dir.path(), &home)
    };
    let resumed = resume(&["--max-time", "1ms"]);
    let stdout = text(&resumed.stdout);
    assert_eq!(resumed.status.code(), Some(2), "{}", text(&resumed.stderr));
    assert!(stdout.contains(&found), "{stdout}");
    assert!(
        !home.join(".cache").exists(),
        "nothing was built in the default cache"
    );
    // --build-cache overrides the saved one (and is saved in its place); played to the end.
    let other = dir.path().join("other-cache");
    let resumed = resume(&["--build-cache", other.to_str().unwrap()]);
    let stdout = text(&resumed.stdout);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert!(
        stdout.contains(" built with `cp engine.sh engine"),
        "{stdout}"
    );
    assert!(other.is_dir());
    assert_eq!(
        json(&out.join("config.json"))["build_cache"],
        other.to_str().unwrap()
    );
    assert_eq!(games(&out), 4);
}

/// A damaged cache entry names itself and both remedies (exit 4); --rebuild, which every
/// command that builds takes, builds it again.
#[test]
fn a_damaged_cache_entry_is_named_and_rebuild_builds_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let cache = dir.path().join("cache");
    let src = format!("src={}", repo.display());
    let bench = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            "--build-cache",
            cache.to_str().unwrap(),
            "--engine",
            &src,
            BUILD,
            "bin=engine",
        ];
        args.extend(extra);
        bt_arena(&args, dir.path())
    };
    let first = bench(&[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let entries: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let [entry] = &entries[..] else {
        panic!("{entries:?}")
    };
    std::fs::write(entry.join("build.json"), "").unwrap();
    let damaged = bench(&[]);
    assert_eq!(damaged.status.code(), Some(4), "{}", text(&damaged.stderr));
    assert!(
        text(&damaged.stderr).contains(&format!(
            "the cache entry {} is damaged (build.json is empty); remove {0} or run with \
             --rebuild",
            entry.display()
        )),
        "{}",
        text(&damaged.stderr)
    );
    let rebuilt = bench(&["--rebuild"]);
    assert!(rebuilt.status.success(), "{}", text(&rebuilt.stderr));
    assert!(
        text(&rebuilt.stderr).contains(&format!(
            "Engine engine@{}: commit {} built with",
            &commits[0][..7],
            commits[0]
        )),
        "{}",
        text(&rebuilt.stderr)
    );
    assert!(bench(&[]).status.success(), "the entry is sound again");
    // Every command that builds takes --rebuild (and the cache), and builds again.
    for command in ["check-engine", "perft-check", "tournament", "tune"] {
        let mut args = vec![
            command,
            "--rebuild",
            "--build-cache",
            cache.to_str().unwrap(),
            "--engine",
            &src,
            BUILD,
            "bin=engine",
        ];
        let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
        let out = dir.path().join(format!("out-{command}"));
        let out_arg = format!("{}", out.display());
        match command {
            "tournament" => args.extend([
                "--engine",
                random.as_str(),
                "--each",
                "depth=1",
                "--out",
                out_arg.as_str(),
            ]),
            "check-engine" => args.push("--quick"),
            "tune" => args.extend([
                "depth=1",
                "--param",
                "Tempo, int, 10, 0, 20, 2, 0.05",
                "--iterations",
                "1",
                "--out",
                out_arg.as_str(),
            ]),
            _ => {}
        }
        let output = bt_arena(&args, dir.path());
        let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
        // (The wrapper turns every go into a search, so perft-check fails its perft: the build
        // is what is looked at here.)
        assert_ne!(output.status.code(), Some(3), "{command}: {all}");
        assert!(
            all.contains(" built with `cp engine.sh"),
            "{command}: {all}"
        );
    }
}

#[test]
fn a_signature_that_is_not_the_expected_one_stops_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let out = dir.path().join("out");
    let src = format!("src={}", repo.display());
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    let cache = dir.path().join("cache");
    let output = bt_arena(
        &[
            "tournament",
            "--engine",
            &src,
            BUILD,
            "bin=engine",
            "bench=12345",
            "--engine",
            &random,
            "--build-cache",
            cache.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(4));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "error: engine 'engine@{}': its bench counts ",
            &commits[0][..7]
        )) && stderr.contains("nodes, not the 12345 expected (bench=12345"),
        "{stderr}"
    );
    assert!(!out.join("games.csv").exists());
}

/// Shards of one run: a shard started after main moved adopts the commit the run's identity
/// holds; one whose build gives another signature than the identity's does not play.
#[test]
fn later_shards_adopt_the_commit_and_check_the_signature() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let run = dir.path().join("run");
    let cache = dir.path().join("cache");
    let src = format!("src={}", repo.display());
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    let shard = |k: &str| {
        bt_arena(
            &[
                "tournament",
                "--engine",
                &src,
                "rev=main",
                BUILD,
                "bin=engine",
                "--engine",
                &random,
                "--each",
                "tc=10",
                "--rounds",
                "2",
                "--seed",
                "3",
                "--build-cache",
                cache.to_str().unwrap(),
                "--out",
                run.to_str().unwrap(),
                "--shard",
                k,
            ],
            dir.path(),
        )
    };
    // A shard that ends before the others exits with 5 (the run is not complete yet).
    let first = shard("0/3");
    assert_eq!(first.status.code(), Some(5), "{}", text(&first.stderr));
    std::fs::write(repo.join("engine.sh"), "#!/bin/sh\nexit 1\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "moved"]);
    // With two game pairs, shards 0 and 1 play the whole schedule.
    let second = shard("1/3");
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let saved = json(&run.join("shard-1/config.json"));
    assert_eq!(saved["engines"][0]["source"]["commit"], commits[0].as_str());
    assert_eq!(
        saved["engines"][0]["name"],
        format!("engine@{}", &commits[0][..7])
    );
    // A run whose identity holds another signature: this build may not join it.
    let path = run.join("identity.json");
    let mut identity = json(&path);
    assert_eq!(
        identity["settings"]["engines"][0]["source"]["commit"],
        commits[0].as_str()
    );
    identity["settings"]["engines"][0]["bench"] = 7.into();
    std::fs::write(&path, identity.to_string()).unwrap();
    let third = shard("2/3");
    assert_eq!(third.status.code(), Some(4));
    assert!(
        text(&third.stderr).contains("nodes, not the 7 expected"),
        "{}",
        text(&third.stderr)
    );
    assert!(!run.join("shard-2/games.csv").exists());
}

#[test]
fn revisions_that_cannot_be_built_as_named_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2, 3]);
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    let src = format!("src={}", repo.display());
    let tournament = |engine: &[&str]| {
        let mut args = vec!["tournament", "--engine"];
        args.extend_from_slice(engine);
        args.extend_from_slice(&["--engine", &random, "--out", "never"]);
        bt_arena(&args, dir.path())
    };
    let output = tournament(&[&src, "rev=nope", "bin=engine"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        text(&output.stderr).contains("rev=nope is not a commit of"),
        "{}",
        text(&output.stderr)
    );
    // A dirty work tree is not a commit.
    std::fs::write(repo.join("engine.sh"), "edited").unwrap();
    let output = tournament(&[&src, "bin=engine"]);
    assert_eq!(output.status.code(), Some(3));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "rev=HEAD is commit {} of {}, whose work tree has uncommitted changes (M engine.sh)",
            &commits[1][..7],
            repo.display()
        )),
        "{stderr}"
    );
    assert!(!dir.path().join("never").exists());
    // HEAD and main are one commit: a warning, and the names take their revision.
    git(&repo, &["checkout", "--quiet", "--", "engine.sh"]);
    let out = dir.path().join("twins");
    let output = bt_arena(
        &[
            "tournament",
            "--engine",
            &src,
            "rev=HEAD",
            BUILD,
            "bin=engine",
            "--engine",
            &src,
            "rev=main",
            BUILD,
            "bin=engine",
            "--each",
            "tc=10",
            "--build-cache",
            dir.path().join("cache").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    let short = &commits[1][..7];
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(&format!(
            "warning: engines 'engine@{short}' and 'engine@{short}' are one build (commit {}",
            commits[1]
        )),
        "{}",
        text(&output.stderr)
    );
    let config = json(&out.join("config.json"));
    assert_eq!(
        config["engines"][0]["name"],
        format!("engine@{short} (HEAD)")
    );
    assert_eq!(
        config["engines"][1]["name"],
        format!("engine@{short} (main)")
    );
}

/// A cached build whose executable was removed since (a tidied checkout) is built again and
/// said so: nothing was built, so "the build left no executable (check bin=)" would be wrong.
/// A bin= that names nothing is still that error, after one build.
#[test]
fn a_cached_executable_removed_is_built_again() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let cache = dir.path().join("cache");
    let src = format!("src={}", repo.display());
    let bench = |bin: &str| {
        let args = [
            "bench",
            "--build-cache",
            cache.to_str().unwrap(),
            "--engine",
            &src,
            BUILD,
            bin,
        ];
        bt_arena(&args, dir.path())
    };
    let first = bench("bin=engine");
    assert!(first.status.success(), "{}", text(&first.stderr));
    let entries: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let [entry] = &entries[..] else {
        panic!("{entries:?}")
    };
    let checkout = std::fs::read_dir(entry)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|path| path.is_dir())
        .unwrap();
    let exe = checkout.join("engine");
    std::fs::remove_file(&exe).unwrap();
    let again = bench("bin=engine");
    let stderr = text(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "Engine engine@{}: the cached executable {} of commit {} is gone; building it again",
            &commits[0][..7],
            exe.display(),
            commits[0]
        )),
        "{stderr}"
    );
    assert!(stderr.contains(" built with `cp engine.sh"), "{stderr}");
    assert!(!stderr.contains("check bin="), "{stderr}");
    // Found in the cache once more, executable and all.
    let third = bench("bin=engine");
    assert!(
        text(&third.stderr).contains("found in the build cache"),
        "{}",
        text(&third.stderr)
    );
    // A bin= naming nothing the build makes: built again once, then named as such.
    let wrong = bench("bin=nothing");
    let stderr = text(&wrong.stderr);
    assert_eq!(wrong.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("building it again"), "{stderr}");
    assert!(stderr.contains("left no executable at"), "{stderr}");
    assert!(stderr.contains("(check bin=)"), "{stderr}");
}

/// check-engine and perft-check build engines from source too (here: a revision that is not
/// one, refused as a bad command line before anything is built).
#[test]
fn check_engine_and_perft_check_take_engines_built_from_source() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, _) = repo(dir.path(), &[2]);
    let src = format!("src={}", repo.display());
    for command in ["check-engine", "perft-check"] {
        let output = bt_arena(
            &[command, "--engine", &src, "rev=v9", "bin=engine"],
            dir.path(),
        );
        assert_eq!(output.status.code(), Some(3), "{command}");
        assert!(
            text(&output.stderr).contains(&format!(
                "error: engine 'engine': rev=v9 is not a commit of {}: no such branch, tag or commit",
                repo.display()
            )),
            "{command}: {}",
            text(&output.stderr)
        );
    }
}

/// A tune takes an engine built from source as a tournament does: built once into the
/// cache, its commit saved in tune.json, the same build reused when the tune is resumed.
#[test]
fn a_tune_builds_its_engine_from_source_and_resumes_with_the_same_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let out = dir.path().join("tune");
    let cache = dir.path().join("cache");
    let src = format!("src={}", repo.display());
    let tune = |iterations: &str| {
        bt_arena(
            &[
                "tune",
                "--engine",
                &src,
                "rev=main",
                BUILD,
                "bin=engine",
                "--param",
                "Tempo, int, 10, -20, 40, 3, 0.05",
                "--iterations",
                iterations,
                "--pairs",
                "1",
                "--seed",
                "1",
                "--build-cache",
                cache.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            dir.path(),
        )
    };
    let first = tune("2");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let config = json(&out.join("tune.json"));
    assert_eq!(config["engine"]["source"]["commit"], commits[0].as_str());
    assert_eq!(config["engine"]["name"], "tune");
    assert_eq!(games(&out), 4);
    let builds = || std::fs::read_dir(&cache).unwrap().count();
    let cached = builds();
    // A new commit on main does not change a resumed tune's engine.
    std::fs::write(repo.join("engine.sh"), "#!/bin/sh\nexit 1\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "broken"]);
    let resumed = bt_arena(
        &[
            "tune",
            "--resume",
            out.to_str().unwrap(),
            "--build-cache",
            cache.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert_eq!(builds(), cached, "the resumed tune reuses its build");
}

/// Waits (at most `limit`) for `child` to exit; its output, or `None` (then it is killed).
fn wait_at_most(mut child: std::process::Child, limit: std::time::Duration) -> Option<Output> {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// SIGINT, SIGTERM and SIGHUP sent to bt-arena while it builds an engine stop it within a
/// couple of seconds, whichever command builds: exit 130 with a message naming the build, the
/// build's process group gone (its shell and the shell's child), no game played, nothing of the
/// build left in the cache; the next run builds afresh and plays. bt-arena is started with
/// SIGINT ignored, as a non-interactive shell starts its background jobs (`bt-arena ... &`).
/// See: issue 27 (no handler before the build: bt-arena died at once with no word and the
/// build went on as an orphan, or SIGINT was ignored and the whole tournament played).
#[test]
fn a_signal_during_a_build_stops_the_build_and_plays_nothing() {
    use crate::util::{is_running, read_pid};
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let cache = dir.path().join("cache");
    // The build is slow while `slow` exists: it writes its shell's pid and its child's, and
    // waits for the child.
    let (slow, shell_pid, child_pid) = (
        dir.path().join("slow"),
        dir.path().join("build.pid"),
        dir.path().join("sleep.pid"),
    );
    let build = format!(
        "build=if [ -e {} ]; then echo $$ > {}; sleep 1000 & echo $! > {}; wait; fi; cp engine.sh \
         engine && chmod +x engine",
        slow.display(),
        shell_pid.display(),
        child_pid.display()
    );
    let src = format!("src={}", repo.display());
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    let out = dir.path().join("run");
    let tournament: Vec<&str> = vec![
        "tournament",
        "--engine",
        &src,
        &build,
        "bin=engine",
        "--engine",
        &random,
        "name=random",
        "--each",
        "depth=1",
        "--rounds",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    let bench: Vec<&str> = vec!["bench", "--engine", &src, &build, "bin=engine"];
    let check: Vec<&str> = vec!["check-engine", "--engine", &src, &build, "bin=engine"];
    let perft: Vec<&str> = vec!["perft-check", "--engine", &src, &build, "bin=engine"];
    let tune_out = dir.path().join("tune");
    let tune: Vec<&str> = vec![
        "tune",
        "--engine",
        &src,
        &build,
        "bin=engine",
        "--param",
        "Tempo, int, 10, -20, 40, 3, 0.05",
        "--iterations",
        "1",
        "--out",
        tune_out.to_str().unwrap(),
    ];
    let cases = [
        (&tournament, libc::SIGINT),
        (&tournament, libc::SIGTERM),
        (&tournament, libc::SIGHUP),
        (&bench, libc::SIGTERM),
        (&check, libc::SIGINT),
        (&perft, libc::SIGHUP),
        (&tune, libc::SIGINT),
    ];
    let key_dir = cache.join(format!("{}-", commits[0]));
    for (args, signal) in cases {
        std::fs::write(&slow, "").unwrap();
        let _ = std::fs::remove_file(&shell_pid);
        let _ = std::fs::remove_file(&child_pid);
        // SIGINT ignored, as in a script's background job; exec keeps the disposition.
        let child = Command::new("sh")
            .arg("-c")
            .arg("trap '' INT; exec \"$@\"")
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_bt-arena"))
            .args(args.iter())
            .current_dir(dir.path())
            .env("BT_ARENA_BUILD_CACHE", &cache)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = crate::util::eventually(std::time::Duration::from_secs(60), || {
            child_pid.exists()
                && std::fs::read_to_string(&child_pid).is_ok_and(|t| t.ends_with('\n'))
        });
        assert!(started, "{args:?}: the build started");
        let (shell, sleep) = (read_pid(&shell_pid), read_pid(&child_pid));
        let signalled = std::time::Instant::now();
        // SAFETY: a signal to our own child process.
        unsafe { libc::kill(i32::try_from(child.id()).unwrap(), signal) };
        let output = wait_at_most(child, std::time::Duration::from_secs(30))
            .unwrap_or_else(|| panic!("{args:?}: signal {signal} did not stop bt-arena"));
        let took = signalled.elapsed();
        let stderr = text(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(130),
            "{args:?} {signal}: {stderr}"
        );
        // The engine's name: NAME@SHORTHASH, a tune's engine `tune`.
        let name = match args[0] {
            "tune" => "tune".to_string(),
            _ => format!("engine@{}", &commits[0][..7]),
        };
        assert!(
            stderr.contains(&format!(
                "Interrupted: engine '{name}': the build of commit {} was stopped by a signal to \
                 bt-arena (the build cache keeps nothing of it); nothing was played: run the \
                 command again",
                commits[0]
            )),
            "{args:?} {signal}: {stderr}"
        );
        eprintln!("{} signal {signal}: exit 130 after {took:?}", args[0]);
        // The build's process group is gone: its shell and the shell's child.
        for pid in [shell, sleep] {
            assert!(
                crate::util::eventually(std::time::Duration::from_secs(10), || !is_running(pid)),
                "{args:?} {signal}: process {pid} of the build still runs"
            );
        }
        assert_eq!(games(&out), 0, "{args:?}: no game played");
        assert_eq!(games(&tune_out), 0, "{args:?}: no game played");
        // Nothing of the build in the cache: no checkout, no build.json, no claim.
        for entry in std::fs::read_dir(&cache).unwrap() {
            let entry = entry.unwrap().path();
            assert!(
                entry
                    .display()
                    .to_string()
                    .starts_with(&key_dir.display().to_string())
            );
            let left: Vec<String> = std::fs::read_dir(&entry)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert!(
                left.is_empty(),
                "{args:?} {signal}: {left:?} left in {}",
                entry.display()
            );
        }
    }
    // The next run builds afresh and plays.
    std::fs::remove_file(&slow).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(tournament.iter())
        .current_dir(dir.path())
        .env("BT_ARENA_BUILD_CACHE", &cache)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains(&format!("commit {} built with", commits[0])),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(games(&out), 2);
}

/// A bench's process dies with bt-arena, even when bt-arena is killed with SIGKILL: benches are
/// spawned as engines are, with the parent-death signal. See: issue 27 (bench had its own
/// spawning, without it).
#[test]
fn a_bench_dies_with_bt_arena_killed_by_sigkill() {
    use crate::util::{is_running, read_pid};
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("bench.pid");
    let engine = dir.path().join("engine");
    std::fs::write(
        &engine,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 1000\n",
            pid_file.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&engine, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(["bench", "--engine", &format!("cmd={}", engine.display())])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = crate::util::eventually(std::time::Duration::from_secs(30), || {
        std::fs::read_to_string(&pid_file).is_ok_and(|text| text.ends_with('\n'))
    });
    assert!(started, "the bench started");
    let bench = read_pid(&pid_file);
    child.kill().unwrap();
    child.wait().unwrap();
    let died = crate::util::eventually(std::time::Duration::from_secs(10), || !is_running(bench));
    if !died {
        // SAFETY: the orphan is the test's own bench process.
        unsafe { libc::kill(i32::try_from(bench).unwrap(), libc::SIGKILL) };
    }
    assert!(died, "the bench {bench} outlived bt-arena");
}

/// Three `bt-arena bench` processes (not threads) of one commit and build command share a
/// build cache: the first builds, the two others wait for its build (they say so) and use it.
/// The build waits (a minute at most) for a file the test creates once both others are
/// waiting, so they are sure to find the build under way.
#[test]
fn builders_in_separate_processes_build_once() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::sync::mpsc;
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let cache = dir.path().join("cache");
    let counter = dir.path().join("builds.txt");
    let release = dir.path().join("release");
    let build = format!(
        "build=n=0; while [ ! -e '{}' ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); \
         done; echo built >> '{}'; cp engine.sh engine && chmod +x engine",
        release.display(),
        counter.display()
    );
    let src = format!("src={}", repo.display());
    let (lines, heard) = mpsc::channel::<(usize, String)>();
    let spawn = |index: usize| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
            .args(["bench", "--build-cache", cache.to_str().unwrap()])
            .args(["--engine", &src, &build, "bin=engine"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("bt-arena starts");
        let stderr = child.stderr.take().unwrap();
        let lines = lines.clone();
        let reader = std::thread::spawn(move || {
            let mut all = String::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = lines.send((index, line.clone()));
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        (child, reader)
    };
    let first = spawn(0);
    // The first holds the claim before the others start.
    let entry_claim = || {
        std::fs::read_dir(&cache)
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| entry.path().join("claim").exists())
    };
    assert!(crate::util::eventually(
        std::time::Duration::from_secs(60),
        entry_claim
    ));
    let others = [spawn(1), spawn(2)];
    let mut waiting = std::collections::BTreeSet::new();
    while waiting.len() < 2 {
        let (index, line) = heard
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the other builders say they wait");
        if line.contains("waiting for the build of commit") {
            waiting.insert(index);
        }
    }
    assert_eq!(waiting.into_iter().collect::<Vec<_>>(), [1, 2]);
    std::fs::write(&release, "").unwrap();
    let name = format!("engine@{}: ", &commits[0][..7]);
    let mut signatures = Vec::new();
    for (child, reader) in std::iter::once(first).chain(others) {
        let output = child.wait_with_output().unwrap();
        let stderr = reader.join().unwrap();
        let stdout = text(&output.stdout);
        assert!(output.status.success(), "{stdout}{stderr}");
        let line = stdout
            .lines()
            .find(|line| line.starts_with(&name))
            .unwrap_or_else(|| panic!("{stdout}{stderr}"));
        signatures.push(line.split(' ').nth(1).unwrap().to_string());
    }
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "built\n");
    assert!(
        signatures.iter().all(|s| *s == signatures[0]),
        "{signatures:?}"
    );
}

/// `bt-arena bench` of the commit of `repo` with the build command `build`, as a child with
/// the stale age of claims set to `stale` seconds; stderr piped.
fn bench_process(dir: &Path, repo: &Path, build: &str, stale: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(["bench", "--build-cache"])
        .arg(dir.join("cache"))
        .args(["--engine", &format!("src={}", repo.display()), build])
        .arg("bin=engine")
        .env(bt_arena::engine::build::STALE_CLAIM_ENV, stale)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bt-arena starts")
}

/// Waits (a minute at most) for `child` to end; kills it and fails if it does not.
fn finish(mut child: std::process::Child) -> Output {
    let ended = crate::util::eventually(std::time::Duration::from_secs(60), || {
        child.try_wait().unwrap().is_some()
    });
    if !ended {
        let _ = child.kill();
        let output = child.wait_with_output().unwrap();
        panic!("still running after a minute: {}", text(&output.stderr));
    }
    child.wait_with_output().unwrap()
}

/// A claim left by a builder on another host (so no pid can be checked) and never touched
/// again is taken over once untouched for the stale age (here 1 s, by BT_ARENA_STALE_CLAIM),
/// not before.
#[test]
fn a_claim_untouched_for_the_stale_age_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let counter = dir.path().join("builds.txt");
    let build = format!(
        "build=echo built >> '{}'; cp engine.sh engine && chmod +x engine",
        counter.display()
    );
    // The entry's claim, as a builder on host `elsewhere` left it (its key: a first build).
    let first = bench_process(dir.path(), &repo, &build, "1");
    assert!(finish(first).status.success());
    let entry = std::fs::read_dir(dir.path().join("cache"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.join("build.json").exists())
        .expect("a cache entry");
    std::fs::remove_file(entry.join("build.json")).unwrap();
    std::fs::write(entry.join("claim"), "4242 elsewhere-4242-0badcafe\n").unwrap();
    let began = std::time::Instant::now();
    let output = finish(bench_process(dir.path(), &repo, &build, "1"));
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("waiting for the build of commit")
            && stderr.contains("(4242 elsewhere-4242-0badcafe)"),
        "{stderr}"
    );
    assert!(
        began.elapsed() >= std::time::Duration::from_secs(1),
        "taken over before the claim was 1 s old: {:?}",
        began.elapsed()
    );
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "built\nbuilt\n");
    assert!(!entry.join("claim").exists());
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with(&format!("engine@{}: ", &commits[0][..7])),
        "{stdout}"
    );
}

/// A builder whose build outlasts the stale age many times over keeps its claim fresh: a
/// second process waits for it all along and builds nothing.
#[test]
fn a_long_build_keeps_its_claim_by_its_heartbeat() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, _) = repo(dir.path(), &[2]);
    let counter = dir.path().join("builds.txt");
    let release = dir.path().join("release");
    let build = format!(
        "build=n=0; while [ ! -e '{}' ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); \
         done; echo built >> '{}'; cp engine.sh engine && chmod +x engine",
        release.display(),
        counter.display()
    );
    // Stale after 0.5 s: the builder touches its claim about every 40 ms.
    let first = bench_process(dir.path(), &repo, &build, "0.5");
    let claimed = crate::util::eventually(std::time::Duration::from_secs(60), || {
        std::fs::read_dir(dir.path().join("cache"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| entry.path().join("claim").exists())
    });
    assert!(claimed, "the first builder never claimed the entry");
    let second = bench_process(dir.path(), &repo, &build, "0.5");
    // Eight stale ages while the build runs: a claim without a heartbeat is taken over.
    std::thread::sleep(std::time::Duration::from_secs(4));
    std::fs::write(&release, "").unwrap();
    let (first, second) = (finish(first), finish(second));
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(
        text(&second.stderr).contains("waiting for the build of commit"),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "built\n");
}

/// An empty BT_ARENA_BUILD_CACHE (a blank CI variable) is unset: the cache is the default one
/// under HOME; a set one is used, and --build-cache wins over it.
// See: issue 28 (every tournament and bench failed with "a value is required for
// '--build-cache'").
#[test]
fn an_empty_build_cache_variable_counts_as_unset() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, _) = repo(dir.path(), &[2]);
    let home = dir.path().join("home");
    let src = format!("src={}", repo.display());
    let bench = |env: &str, flag: Option<&Path>| {
        let mut args = vec!["bench", "--engine", &src, BUILD, "bin=engine"];
        let flag = flag.map(|dir| dir.display().to_string());
        if let Some(dir) = &flag {
            args.extend(["--build-cache", dir]);
        }
        let output = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
            .args(&args)
            .current_dir(dir.path())
            .env("HOME", &home)
            .env_remove("XDG_CACHE_HOME")
            .env("BT_ARENA_BUILD_CACHE", env)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "BT_ARENA_BUILD_CACHE={env:?}: {}",
            text(&output.stderr)
        );
    };
    let entries = |cache: &Path| std::fs::read_dir(cache).map_or(0, |dir| dir.count());
    bench("", None);
    assert_eq!(entries(&home.join(".cache/bt-arena/builds")), 1);
    let set = dir.path().join("set");
    bench(set.to_str().unwrap(), None);
    assert_eq!(entries(&set), 1);
    let given = dir.path().join("given");
    bench(set.to_str().unwrap(), Some(&given));
    assert_eq!(entries(&given), 1);
    // The tournament reads it alike (and tune, whose flag is the same).
    let output = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args([
            "tournament",
            "--engine",
            &src,
            BUILD,
            "bin=engine",
            "name=a",
            "--engine",
            &format!("cmd={}", env!("CARGO_BIN_EXE_bt-random")),
            "--each",
            "depth=1",
            "--rounds",
            "1",
            "--out",
            dir.path().join("run").to_str().unwrap(),
        ])
        .current_dir(dir.path())
        .env("HOME", &home)
        .env_remove("XDG_CACHE_HOME")
        .env("BT_ARENA_BUILD_CACHE", "")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

/// A scaled clock below 1 ms is refused naming the factor and the clock; a small factor is
/// printed with four significant digits.
// See: issue 28 (`--scale-tc 1000` on a fast machine printed "x0.000", wrote TimeControl "0"
// and played with a 0.086 ms clock).
#[test]
fn scale_tc_refuses_a_clock_below_1_ms_and_prints_small_factors() {
    let dir = tempfile::tempdir().unwrap();
    let faulty = format!("cmd={}", env!("CARGO_BIN_EXE_bt-faulty"));
    let random = format!("cmd={}", env!("CARGO_BIN_EXE_bt-random"));
    // bt-faulty's half-nps bench says 150000 nps.
    let tournament = |limit: &str, reference: &str, out: &str| {
        bt_arena(
            &[
                "tournament",
                "--engine",
                &random,
                "name=new",
                "--engine",
                &faulty,
                "name=base",
                "args=--fault half-nps --bench-nps 300000",
                "--each",
                limit,
                "--rounds",
                "1",
                "--scale-tc",
                reference,
                "--out",
                dir.path().join(out).to_str().unwrap(),
            ],
            dir.path(),
        )
    };
    let output = tournament("tc=1+0.01", "30", "tiny");
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "error: --scale-tc 30: the factor x0.0002000 (30 nps / this machine's 150000 nps) gives \
         engine 'new' (tc=1+0.01) a base of 0.200 ms and an increment of 0.00200 ms, below the \
         floor of 1 ms: give a reference speed nearer this machine's, or a longer clock\n"
    );
    let output = tournament("st=0.1", "1000", "tiny-st");
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("gives engine 'new' (st=0.1) a move time of 0.667 ms"),
        "{}",
        text(&output.stderr)
    );
    // x0.006667: st=1 becomes 6.667 ms (7 ms played).
    let output = tournament("st=1", "1000", "small");
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(
        stdout.contains(
            "Time control scaled x0.006667 (reference 1000 nps / measured 150000 nps: base's \
             bench, 1 at once)"
        ),
        "{stdout}"
    );
    let pgn = std::fs::read_to_string(dir.path().join("small/games.pgn")).unwrap();
    assert_eq!(pgn.matches("[X-Limit \"st=0.007\"]").count(), 2, "{pgn}");
}

/// `bt-arena datagen` (in `dir`) of the engine built from `repo` at `main` (BUILD, `bin=engine`),
/// seed 1, from the start position, building into `cache`, into `out`, with `extra`.
fn datagen_from_source(
    dir: &Path,
    repo: &Path,
    cache: &Path,
    out: &Path,
    extra: &[&str],
) -> Output {
    let src = format!("src={}", repo.display());
    let mut args = vec![
        "datagen",
        "--engine",
        &src,
        "rev=main",
        BUILD,
        "bin=engine",
        "--seed",
        "1",
        "--startpos",
        "--build-cache",
        cache.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    bt_arena(&args, dir)
}

/// Datagen takes engines built from source as a tournament does: built into the cache, its
/// commit, bench signature and build cache saved in datagen.json (the first two in the run's
/// identity); a shard that starts after `main` moved adopts the run's commit, and `--resume`
/// reuses the build from the cache it was started with.
#[test]
fn datagen_builds_its_engine_from_source_and_its_shards_adopt_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let out = dir.path().join("data");
    let cache = dir.path().join("cache");
    let datagen = |shard: &str| {
        let extra = ["--games", "4", "--random-plies", "2", "--shard", shard];
        datagen_from_source(dir.path(), &repo, &cache, &out, &extra)
    };
    let first = datagen("0/2");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let stdout = text(&first.stdout);
    let short = &commits[0][..7];
    assert!(
        stdout.contains(&format!("Engine engine@{short}: commit {short}")),
        "{stdout}"
    );
    let saved = json(&out.join("shard-0/datagen.json"));
    assert_eq!(saved["engines"][0]["source"]["commit"], commits[0].as_str());
    assert_eq!(saved["engines"][0]["name"], format!("engine@{short}"));
    // `bt-search bench 2`'s signature.
    assert_eq!(saved["engines"][0]["bench"], 846);
    let identity = json(&out.join("identity.json"));
    assert_eq!(
        identity["settings"]["engines"][0]["source"]["commit"],
        commits[0].as_str()
    );
    let builds = || std::fs::read_dir(&cache).unwrap().count();
    let cached = builds();
    // main moves on: the second shard still plays the run's commit.
    std::fs::write(repo.join("engine.sh"), "#!/bin/sh\nexit 1\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "broken"]);
    let second = datagen("1/2");
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let theirs = json(&out.join("shard-1/datagen.json"));
    assert_eq!(theirs["engines"], saved["engines"]);
    assert_eq!(builds(), cached, "the second shard reuses the build");
    // --resume builds into the cache the run was started with (recorded in datagen.json),
    // not the default one of its home.
    assert_eq!(saved["build_cache"], cache.to_str().unwrap());
    let home = dir.path().join("home");
    let resumed = bt_arena_at_home(
        &[
            "datagen",
            "--resume",
            out.to_str().unwrap(),
            "--shard",
            "0/2",
        ],
        dir.path(),
        &home,
    );
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert_eq!(builds(), cached, "the resumed shard reuses the build");
    assert!(!home.join(".cache").exists());
    // Every game of the run is there, two per shard, and every one replays by the rules.
    let merged = dir.path().join("all.dat");
    let output = bt_arena(
        &[
            "datagen",
            "convert",
            out.to_str().unwrap(),
            "--format",
            "games",
            "--out",
            merged.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let ids: Vec<u64> = bt_arena::datagen::formats::games::EntryReader::open(&merged)
        .unwrap()
        .map(|game| game.unwrap().game_id)
        .collect();
    assert_eq!(ids, [1, 2, 3, 4]);
}

/// An engine built from source that reports no score is refused as any (exit 3), once built;
/// the directory its build log went to is removed: a run that never started leaves nothing.
#[test]
fn datagen_refuses_a_built_engine_without_scores_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("random");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = bench ] && exec '{search}' bench 2\nexec '{random}'\n",
        search = env!("CARGO_BIN_EXE_bt-search"),
        random = env!("CARGO_BIN_EXE_bt-random")
    );
    std::fs::write(repo.join("engine.sh"), script).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "--quiet", "-m", "a random mover"]);
    let out = dir.path().join("data");
    let cache = dir.path().join("cache");
    let output = datagen_from_source(dir.path(), &repo, &cache, &out, &["--games", "1"]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("reported no score"),
        "{}",
        text(&output.stderr)
    );
    assert!(
        text(&output.stdout).contains("built with"),
        "{}",
        text(&output.stdout)
    );
    assert!(!out.exists());
}

/// A datagen worker joining a run adopts the run's commit as a shard does: here after `main`
/// moved to a commit whose engine fails; it finds every game recorded and plays none.
#[test]
fn a_datagen_worker_joining_a_run_adopts_its_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, _) = repo(dir.path(), &[2]);
    let out = dir.path().join("data");
    let cache = dir.path().join("cache");
    let worker = || {
        datagen_from_source(
            dir.path(),
            &repo,
            &cache,
            &out,
            &["--games", "2", "--worker"],
        )
    };
    let first = worker();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    std::fs::write(repo.join("engine.sh"), "#!/bin/sh\nexit 1\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "broken"]);
    let late = worker();
    assert_eq!(late.status.code(), Some(0), "{}", text(&late.stderr));
    assert!(
        text(&late.stdout).contains("played no game: every game of the run in"),
        "{}",
        text(&late.stdout)
    );
}

/// A tune of an engine built from source resumed from another home directory (another
/// machine's user, a CI runner) builds in the cache the tune was started with, not in that
/// home's default: it builds nothing.
#[test]
fn a_tune_resumed_from_another_home_reuses_its_build_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, _) = repo(dir.path(), &[2]);
    let (out, cache) = (dir.path().join("tune"), dir.path().join("cache"));
    let src = format!("src={}", repo.display());
    let first = bt_arena_at_home(
        &[
            "tune",
            "--engine",
            &src,
            BUILD,
            "bin=engine",
            "--param",
            "Tempo, int, 10, -20, 40, 3, 0.05",
            "--iterations",
            "2",
            "--pairs",
            "1",
            "--seed",
            "1",
            "--max-time",
            "1ms",
            "--build-cache",
            cache.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
        &dir.path().join("home-a"),
    );
    assert_eq!(first.status.code(), Some(2), "{}", text(&first.stderr));
    assert_eq!(
        json(&out.join("tune.json"))["build_cache"],
        cache.to_str().unwrap()
    );
    let other_home = dir.path().join("home-b");
    let resumed = bt_arena_at_home(
        &["tune", "--resume", out.to_str().unwrap()],
        dir.path(),
        &other_home,
    );
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    let stdout = text(&resumed.stdout);
    assert!(stdout.contains("found in the build cache"), "{stdout}");
    assert!(!stdout.contains(" built with `"), "{stdout}");
    assert!(
        !other_home.join(".cache").exists(),
        "nothing built in the other home's cache"
    );
    assert_eq!(games(&out), 4);
}

/// A shard of a tune joining after the engine's branch moved plays the commit the tune started
/// with, as a tournament's shard does.
#[test]
fn a_tune_shard_joining_after_the_branch_moved_adopts_the_tunes_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, commits) = repo(dir.path(), &[2]);
    let run = dir.path().join("tune");
    let cache = dir.path().join("cache");
    let src = format!("src={}", repo.display());
    let shard = |k: &str| {
        bt_arena(
            &[
                "tune",
                "--engine",
                &src,
                "rev=main",
                BUILD,
                "bin=engine",
                "--param",
                "Tempo, int, 10, -20, 40, 3, 0.05",
                "--iterations",
                "2",
                "--pairs",
                "1",
                "--seed",
                "1",
                "--build-cache",
                cache.to_str().unwrap(),
                "--out",
                run.to_str().unwrap(),
                "--shard",
                k,
            ],
            dir.path(),
        )
    };
    // Shard 0 plays iteration 1 and waits for nothing (its θ is the start's).
    let first = shard("0/2");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    std::fs::write(repo.join("engine.sh"), "#!/bin/sh\nexit 1\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "moved"]);
    let second = shard("1/2");
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let saved = json(&run.join("shard-1/tune.json"));
    assert_eq!(saved["engine"]["source"]["commit"], commits[0].as_str());
    assert_eq!(saved["engine"]["name"], "tune");
}
