//! `bt-arena tune` and what it tunes: bt-search's evaluation weights as options, and SPSA runs
//! driving the real runner and engines (reproducible, resumable, converging).

use crate::util::{in_ms, roomy};
use bt_arena::bundled::search::EvalWeights;
use bt_arena::engine::{Engine, EngineLaunch};
use bt_arena::protocol::{GoLimits, OptionKind, Protocol};
use bt_arena::records::Termination;
use bt_arena::rules::{Board, Position, Rules};
use bt_arena::tune::iterations::{self, IterationRecord, IterationsFile, theta_after};
use bt_arena::tune::{Perturbation, TuneConfig};
use std::path::{Path, PathBuf};

/// bt-search over UGI with `options` set, started for `rules`.
fn search_engine(options: &[(String, String)], rules: Rules) -> Engine {
    let launch = EngineLaunch {
        name: "search".into(),
        cmd: env!("CARGO_BIN_EXE_bt-search").into(),
        proto: Protocol::Ugi,
        options: options.to_vec(),
        timeouts: roomy(),
        ..EngineLaunch::default()
    };
    Engine::start(&launch, rules, Board::STANDARD)
        .unwrap_or_else(|err| panic!("bt-search starts: {err}"))
}

/// The best move and node count of a depth-7 search of each of `positions`, each after
/// `uginewgame`.
fn answers(engine: &mut Engine, positions: &[&str]) -> Vec<(String, Option<u64>)> {
    positions
        .iter()
        .map(|text| {
            let position: Position = text.parse().expect("test position");
            engine.new_game().expect("new game");
            let reply = engine
                .go(&position, &[], &GoLimits::depth(7), in_ms(20_000))
                .unwrap_or_else(|err| panic!("an answer in {text}: {err}"));
            (reply.bestmove, reply.info.nodes)
        })
        .collect()
}

const POSITIONS: [&str; 4] = [
    "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w",
    "2pppp1p/pp6/1p1Pppp1/1P6/p2p1P1p/P2P2p1/P1P1P2P/1PP2PP1 b",
    "p1pp4/1p2pppp/p1p1p1p1/3p4/PPp1P1P1/P7/1P1P1PP1/2P1PP1P w",
    "ppp2pp1/pp1p3p/2pppppp/2P1p3/7P/PP3P2/PPPPPPP1/3PP1PP b",
];

#[test]
fn bt_search_declares_its_weights_and_plays_the_same_with_every_weight_set_to_its_default() {
    let plain = search_engine(&[], Rules::CaptureOnly);
    for option in EvalWeights::OPTIONS {
        let declared = plain.options().iter().find(|o| o.is_named(option.name));
        assert_eq!(
            declared.map(|o| o.kind.clone()),
            Some(OptionKind::Spin {
                default: i64::from(option.default_value()),
                min: i64::from(option.min),
                max: i64::from(option.max),
            }),
            "{}",
            option.name
        );
    }
    let mut plain = plain;
    let defaults: Vec<(String, String)> = EvalWeights::OPTIONS
        .iter()
        .map(|o| (o.name.to_string(), o.default_value().to_string()))
        .collect();
    let mut explicit = search_engine(&defaults, Rules::CaptureOnly);
    let expected = answers(&mut plain, &POSITIONS);
    assert_eq!(answers(&mut explicit, &POSITIONS), expected);
    // The same searches with one weight changed differ: the options are read.
    let detuned = [("SafeAdvance5".to_string(), "200".to_string())];
    let mut other = search_engine(&detuned, Rules::CaptureOnly);
    assert_ne!(answers(&mut other, &POSITIONS), expected);
}

/// A parameters file of three bt-search weights in `dir`.
pub(crate) fn weights_file(dir: &Path) -> PathBuf {
    let path = dir.join("weights.txt");
    let text = "# bt-search weights\n\
                Pawn, int, 100, 50, 200, 10, 0.002\n\
                Tempo,10,-20,40,3,0.002\n\
                SafeAdvance5, int, 28, 0, 100, 5, 0.002\n";
    std::fs::write(&path, text).expect("write the parameters file");
    path
}

/// `bt-arena tune` flags of a deterministic tune of bt-search (depth 2, `iterations` of two
/// game pairs, seed 17) into `out`, with `extra` flags.
fn search_tune(params: &Path, out: &Path, iterations: u32, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tune",
        "--engine",
        &format!("cmd={}", env!("CARGO_BIN_EXE_bt-search")),
        "depth=2",
        "--params",
        &params.display().to_string(),
        "--iterations",
        &iterations.to_string(),
        "--pairs",
        "2",
        "--seed",
        "17",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Runs bt-arena with `args`, asserting it exits with `code`; returns its stdout and stderr.
fn run_expecting(args: &[String], code: i32) -> (String, String) {
    let output = crate::util::bt_arena(args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert_eq!(output.status.code(), Some(code), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The tune of `dir` (its tune.json) and its finished iterations, in file order.
pub(crate) fn iterations(dir: &Path) -> (TuneConfig, Vec<IterationRecord>) {
    let config = bt_arena::session::resume::read_saved::<TuneConfig>(dir).expect("tune.json reads");
    let path = dir.join(iterations::TUNE_CSV);
    let text = std::fs::read_to_string(&path).expect("tune.csv reads");
    let (_, by_number) =
        IterationsFile::open(dir, &config.params, config.spsa.iterations).expect("tune.csv opens");
    let order: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|line| {
            line.split(',')
                .next()
                .unwrap_or_default()
                .parse()
                .expect("an iteration")
        })
        .collect();
    let records = order.iter().map(|k| by_number[k].clone()).collect();
    (config, records)
}

/// What must be equal between two runs: each iteration's number, θ, flips, gains, values
/// played and score (not the time it finished, nor its game ids).
pub(crate) fn comparable(records: &[IterationRecord]) -> Vec<(Perturbation, u32, u32)> {
    let mut list: Vec<_> = records
        .iter()
        .map(|r| (r.step.clone(), r.wins, r.losses))
        .collect();
    list.sort_by_key(|(step, _, _)| step.iteration);
    list
}

#[test]
fn a_tune_repeated_with_the_same_seed_gives_the_same_theta_at_every_iteration_bit_for_bit() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let params = weights_file(dir.path());
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let (stdout, _) = run_expecting(&search_tune(&params, &first, 6, &[]), 0);
    run_expecting(&search_tune(&params, &second, 6, &[]), 0);
    let (config, records) = iterations(&first);
    let (_, again) = iterations(&second);
    assert_eq!(records.len(), 6);
    assert_eq!(comparable(&records), comparable(&again));
    assert_eq!(
        crate::util::games_of(&first.join("games.csv")),
        crate::util::games_of(&second.join("games.csv"))
    );
    // At --concurrency 1 each iteration starts from θ after all the ones before it.
    for (index, record) in records.iter().enumerate() {
        assert_eq!(record.step.iteration, index as u64 + 1);
        assert_eq!(
            record.step.theta,
            theta_after(&config.params, &records[..index])
        );
        assert_eq!(record.first_game, 4 * index as u64 + 1);
        assert_eq!(record.wins + record.losses, 4);
    }
    let theta = theta_after(&config.params, &records);
    assert_ne!(theta, vec![100.0, 10.0, 28.0], "the tune moved nothing");
    // The tuned values, as option lines, in OpenBench's format and in summary.json.
    let options: Vec<String> = config
        .params
        .iter()
        .zip(&theta)
        .map(|(p, &v)| format!("option.{}={}", p.name, p.format_value(v)))
        .collect();
    let text = |name: &str| std::fs::read_to_string(first.join(name)).expect(name);
    assert_eq!(
        text("tuned-options.txt"),
        format!("{}\n", options.join("\n"))
    );
    assert!(stdout.contains(&options.join(" ")), "{stdout}");
    let openbench = text("tuned-params.txt");
    assert_eq!(
        openbench.lines().next(),
        Some(
            format!(
                "Pawn, int, {}, 50, 200, 10, 0.002",
                config.params[0].format_value(theta[0])
            )
            .as_str()
        )
    );
    let summary: serde_json::Value =
        serde_json::from_str(&text("summary.json")).expect("summary.json is JSON");
    assert_eq!(summary["finished"], 6);
    assert_eq!(summary["games"], 24);
    assert_eq!(summary["params"][1]["name"], "Tempo");
    assert_eq!(summary["params"][1]["value"], theta[1]);
    // Each game's values are in its PGN tags: game 1 has tune+ White, game 2 tune− White.
    let pgn = text("games.pgn");
    let values = |values: &[f64]| -> String {
        config
            .params
            .iter()
            .zip(values)
            .map(|(p, &v)| format!("{}={}", p.name, p.format_value(v)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let step = &records[0].step;
    let first_game = format!(
        "[X-TuneIteration \"1\"]\n[X-WhiteOptions \"{}\"]\n[X-BlackOptions \"{}\"]\n",
        values(&step.plus),
        values(&step.minus)
    );
    let second_game = format!(
        "[X-TuneIteration \"1\"]\n[X-WhiteOptions \"{}\"]\n[X-BlackOptions \"{}\"]\n",
        values(&step.minus),
        values(&step.plus)
    );
    assert_eq!(pgn.find(&first_game), pgn.find("[X-TuneIteration"));
    assert!(pgn.contains(&second_game), "{second_game}");
    assert_eq!(pgn.matches("[X-TuneIteration").count(), 24);
    let html = text("report.html");
    assert!(html.contains("<td class=\"name\">SafeAdvance5</td>"));
    assert!(html.contains("6 of 6 iterations, finished"));
}

#[test]
fn a_tune_killed_with_sigkill_and_resumed_ends_with_the_theta_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let params = weights_file(dir.path());
    let (whole, killed) = (dir.path().join("whole"), dir.path().join("killed"));
    // nodes=3000 rather than depth=2, and 4 game pairs an iteration: slow enough to be killed
    // with games of an unfinished iteration recorded.
    let args = |out: &Path| -> Vec<String> {
        let mut args: Vec<String> = search_tune(&params, out, 12, &[])
            .into_iter()
            .map(|arg| {
                if arg == "depth=2" {
                    "nodes=3000".to_string()
                } else {
                    arg
                }
            })
            .collect();
        let pairs = args.iter().position(|a| a == "--pairs").expect("--pairs") + 1;
        args[pairs] = "4".to_string();
        args
    };
    run_expecting(&args(&whole), 0);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args(&killed))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("bt-arena starts");
    let rows = || {
        std::fs::read_to_string(killed.join(iterations::TUNE_CSV))
            .map_or(0, |text| text.lines().count().saturating_sub(1))
    };
    let games = || {
        std::fs::read_to_string(killed.join("games.csv"))
            .map_or(0, |text| text.lines().count().saturating_sub(1))
    };
    // Killed once games.csv holds 1 to 3 games past the last whole iteration (8 games each).
    let cut = || {
        let (rows, games) = (rows(), games());
        rows >= 2 && (1..=3).contains(&games.saturating_sub(8 * rows))
    };
    assert!(
        crate::util::eventually(std::time::Duration::from_secs(120), cut),
        "games of an unfinished iteration within two minutes"
    );
    child.kill().expect("SIGKILL"); // Child::kill sends SIGKILL on Unix.
    child.wait().expect("the killed bt-arena is reaped");
    let at_kill = rows();
    let before = crate::util::games_of(&killed.join("games.csv"));
    let cut_off: Vec<_> = before
        .iter()
        .filter(|g| g.round as usize > at_kill)
        .cloned()
        .collect();
    assert!(
        (1..=3).contains(&cut_off.len()) && at_kill < 12,
        "{} games of unfinished iterations, {at_kill} iterations",
        cut_off.len()
    );
    let (stdout, _) = run_expecting(
        &[
            "tune".to_string(),
            "--resume".to_string(),
            killed.display().to_string(),
        ],
        0,
    );
    assert!(
        stdout.contains(&format!("({at_kill} iterations finished)")),
        "{stdout}"
    );
    let (config, resumed) = iterations(&killed);
    let (_, uninterrupted) = iterations(&whole);
    assert_eq!(resumed.len(), 12);
    assert_eq!(comparable(&resumed), comparable(&uninterrupted));
    assert_eq!(
        theta_after(&config.params, &resumed),
        theta_after(&config.params, &uninterrupted)
    );
    // The cut-off games stay as they were and count in their iteration: the resumed run
    // played only the games missing, each id once, 1..=96 as the uninterrupted run's.
    let after = crate::util::games_of(&killed.join("games.csv"));
    for game in &cut_off {
        assert_eq!(
            after.iter().filter(|g| g.game_id == game.game_id).count(),
            1
        );
        assert!(after.contains(game), "game {} changed", game.game_id);
    }
    let mut ids: Vec<u64> = after.iter().map(|g| g.game_id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=96).collect::<Vec<u64>>());
    let cut_iteration = u64::from(cut_off[0].round);
    let record = resumed
        .iter()
        .find(|r| r.step.iteration == cut_iteration)
        .expect("the cut-off iteration finished");
    let plus_wins = after
        .iter()
        .filter(|g| u64::from(g.round) == cut_iteration && g.winner_name() == "tune+")
        .count();
    assert_eq!(record.wins as usize, plus_wins);
    assert_eq!(record.first_game, (cut_iteration - 1) * 8 + 1);
}

#[test]
fn a_tune_moves_bt_faultys_knobs_toward_the_strongest_setting() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let mut args = knob_tune(
        &out,
        40,
        &[
            "--openings",
            "file=openings/capture-only.epd",
            "order=random",
        ],
    );
    let pairs = args.iter().position(|a| a == "--pairs").expect("--pairs") + 1;
    args[pairs] = "4".to_string();
    run_expecting(&args, 0);
    let (config, records) = iterations(&out);
    let theta = theta_after(&config.params, &records);
    let distance = |a: f64, b: f64| ((a - 300.0).powi(2) + (b + 200.0).powi(2)).sqrt();
    let start = distance(0.0, 0.0);
    let end = distance(theta[0], theta[1]);
    // From 361 away to within a quarter of that, each knob on the target's side of its start.
    assert!(end < start / 4.0, "θ = {theta:?}: {end:.0} from the target");
    assert!(theta[0] > 150.0 && theta[1] < -100.0, "θ = {theta:?}");
}

/// Flags of a tune of bt-faulty's knobs (deterministic moves: `option.Seed=5`) of
/// `iterations` iterations of one game pair into `out`, with `extra` flags.
pub(crate) fn knob_tune(out: &Path, iterations: u32, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "tune",
        "--engine",
        &format!("cmd={}", env!("CARGO_BIN_EXE_bt-faulty")),
        "args=--fault tunable --target-a 300 --target-b -200",
        "option.Seed=5",
        "--param",
        "KnobA, int, 0, -1000, 1000, 60, 0.05",
        "--param",
        "KnobB, int, 0, -1000, 1000, 60, 0.05",
        "--iterations",
        &iterations.to_string(),
        "--pairs",
        "1",
        "--seed",
        "3",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Asserts that each of `records` started from θ after exactly iterations 1..k−`lag`.
fn assert_lagged(config: &TuneConfig, records: &[IterationRecord], lag: u64) {
    for record in records {
        let k = record.step.iteration;
        let before: Vec<&IterationRecord> = records
            .iter()
            .filter(|r| r.step.iteration + lag <= k)
            .collect();
        assert_eq!(
            before.len() as u64,
            k.saturating_sub(lag),
            "iteration {k}: the iterations it starts from are all recorded"
        );
        assert_eq!(
            record.step.theta,
            theta_after(&config.params, before),
            "iteration {k} started from θ after iterations 1..{}",
            k.saturating_sub(lag)
        );
    }
}

#[test]
fn a_tune_at_any_concurrency_repeats_bit_for_bit_whatever_the_timing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (one, four) = (dir.path().join("one"), dir.path().join("four"));
    // At --concurrency 1 with --lag 2, then at --concurrency 4 (one game pair an iteration:
    // the default lag is 2) with every move delayed by a random 0-40 ms.
    run_expecting(&knob_tune(&one, 10, &["--lag", "2"]), 0);
    let output = crate::util::bt_arena_with_env(
        &knob_tune(&four, 10, &["--concurrency", "4"]),
        &[("BT_FAULTY_JITTER_MS", "40")],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let (config, records) = iterations(&four);
    let (_, sequential) = iterations(&one);
    assert_eq!(config.lag, 2);
    assert_eq!(records.len(), 10);
    assert_eq!(comparable(&records), comparable(&sequential));
    assert_lagged(&config, &records, 2);
    // Iteration 2 started before iteration 1 finished: both from the start values.
    assert_eq!(records[0].step.theta, records[1].step.theta);
    // Iterations were in flight at once: a game of a later iteration (one pair each) was
    // recorded, at its end, before a game of an earlier one.
    let iteration_order: Vec<u64> = bt_arena::records::read_games(&four.join("games.csv"))
        .expect("games.csv")
        .iter()
        .map(|game| game.game_id.div_ceil(2))
        .collect();
    assert!(
        iteration_order.windows(2).any(|w| w[0] > w[1]),
        "iterations in the order their games were recorded: {iteration_order:?}"
    );
    assert_eq!(
        crate::util::games_of(&one.join("games.csv"))
            .into_iter()
            .map(|g| (g.game_id, g.moves))
            .collect::<std::collections::BTreeMap<_, _>>(),
        crate::util::games_of(&four.join("games.csv"))
            .into_iter()
            .map(|g| (g.game_id, g.moves))
            .collect::<std::collections::BTreeMap<_, _>>()
    );
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(four.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    assert_eq!(
        summary["params"][0]["value"],
        theta_after(&config.params, &records)[0]
    );
}

/// Flags of a tune of bt-faulty's `Seed` option (bt-faulty run with `faulty` flags) of
/// `iterations` iterations of one game pair into `out`.
fn seed_tune(out: &Path, faulty: &str, iterations: u32) -> Vec<String> {
    [
        "tune",
        "--engine",
        &format!("cmd={}", env!("CARGO_BIN_EXE_bt-faulty")),
        &format!("args={faulty}"),
        "--param",
        "Seed, int, 50, 0, 1000, 10, 0.05",
        "--iterations",
        &iterations.to_string(),
        "--pairs",
        "1",
        "--seed",
        "1",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn a_tune_of_an_engine_that_crashes_counts_and_shows_its_faults() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let args = seed_tune(&out, "--fault crash-mid-game --after 2", 2);
    // Faults alone do not change the exit code (a tournament's rule): every game is played.
    let (stdout, _) = run_expecting(&args, 0);
    // Each side moves twice, then crashes on its third move: every game is a crash, by the
    // side to move at ply 5 (White: tune+ in games 1 and 3, tune- in 2 and 4).
    assert_eq!(
        stdout.matches("lost by fault (crash)").count(),
        4,
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: game 1: tune+ lost by fault (crash)"),
        "{stdout}"
    );
    assert!(stdout.contains("Losses by fault  time  illegal  crash  stall  stray"));
    assert!(
        stdout.contains("tune+               0        0      2      0      0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("tune-               0        0      2      0      0"),
        "{stdout}"
    );
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    assert_eq!(summary["faults"][0]["name"], "tune+");
    assert_eq!(summary["faults"][0]["crashes"], 2);
    assert_eq!(summary["faults"][1]["crashes"], 2);
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(
        html.contains("<tr><td class=\"name\">tune+</td><td>0</td><td>0</td><td>2</td>"),
        "the page's faults table"
    );
}

/// `--strict` fails a tune whose engine misbehaved with exit 6 ("checks failed"), naming
/// each side's faults, its θ written as usual; a resumed session takes `--strict` and
/// `--check-claims` (settings of a session) and judges every game of the directory.
#[test]
fn strict_fails_a_tune_of_an_engine_that_crashes_with_exit_6() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let mut args = seed_tune(&out, "--fault crash-mid-game --after 2", 2);
    args.push("--strict".into());
    let (stdout, stderr) = run_expecting(&args, 6);
    assert!(stdout.contains("θ after 2 of 2 iterations"), "{stdout}");
    let failed = "Checks failed (--strict):\n  tune+: crashes: 2\n  tune-: crashes: 2\n";
    assert!(stderr.ends_with(failed), "{stderr}");
    let resume = |extra: &[&str]| {
        let mut args: Vec<String> = ["tune", "--resume", &out.display().to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let (_, stderr) = run_expecting(&resume(&["--strict", "--check-claims", "3"]), 6);
    assert!(stderr.ends_with(failed), "{stderr}");
    run_expecting(&resume(&["--check-claims", "3"]), 0);
}

/// An engine that stops answering mid-game (bt-faulty `hang-mid-game` hangs on its third `go`) loses on
/// time, as in a tournament: the runner ends it, starts a fresh one for the next game, and
/// counts the loss as a fault of the side that hung (as fishtest counts a crash), warned
/// about and shown; the tune goes on and ends.
#[test]
fn a_tune_of_an_engine_that_stalls_forfeits_on_time_and_goes_on() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let mut args = seed_tune(&out, "--fault hang-mid-game --after 2", 2);
    args.extend(["--each".to_string(), "tc=0.3+0.01".to_string()]);
    let (stdout, _) = run_expecting(&args, 0);
    assert_eq!(
        stdout.matches("lost by fault (time-forfeit)").count(),
        4,
        "{stdout}"
    );
    assert!(
        stdout.contains("warning: game 1: tune+ lost by fault (time-forfeit)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("tune+               2        0      0      0      0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("tune-               2        0      0      0      0"),
        "{stdout}"
    );
    // Every game counted, each a win of the side that did not hang: 1 − 1 in each iteration.
    let (_, records) = iterations(&out);
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| (r.wins, r.losses) == (1, 1)));
    let games = crate::util::games_of(&out.join("games.csv"));
    assert_eq!(games.len(), 4);
    // bt-faulty counts its moves across games: White hangs at ply 5 of game 1; Black, which
    // moved twice in it, hangs on its first move of game 2 (as White), and so on.
    let ends: Vec<(u32, Termination)> = games.iter().map(|g| (g.plies, g.termination)).collect();
    let forfeit = Termination::TimeForfeit;
    assert_eq!(
        ends,
        [(4, forfeit), (0, forfeit), (4, forfeit), (0, forfeit)]
    );
}

#[test]
fn a_tune_whose_engine_refuses_its_values_plays_nothing_and_says_why() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    // option-crash exits when Seed is set to anything but 0: every value is refused.
    let args = seed_tune(&out, "--fault option-crash", 3);
    let (stdout, stderr) = run_expecting(&args, 4);
    assert!(stdout.contains("Game 1 not played"), "{stdout}");
    assert!(
        stderr.contains(&format!(
            "(`bt-arena tune --resume {}` plays them)",
            out.display()
        )),
        "{stderr}"
    );
    assert!(
        !out.join("games.csv").exists() || crate::util::games_of(&out.join("games.csv")).is_empty()
    );
    let (_, records) = iterations(&out);
    assert!(records.is_empty());
}

#[test]
fn a_tune_stops_at_max_time_with_theta_so_far_and_exit_2() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let output = crate::util::bt_arena_with_env(
        &knob_tune(&out, 1000, &["--max-time", "2s"]),
        &[("BT_FAULTY_JITTER_MS", "20")],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("Time limit reached (--max-time)"),
        "{stderr}"
    );
    let (config, records) = iterations(&out);
    assert!(
        !records.is_empty() && records.len() < 1000,
        "{}",
        records.len()
    );
    // θ so far is written, and the iterations begun were finished.
    let theta = theta_after(&config.params, &records);
    let options: String = config
        .params
        .iter()
        .zip(&theta)
        .map(|(p, &v)| format!("option.{}={}\n", p.name, p.format_value(v)))
        .collect();
    assert_eq!(
        std::fs::read_to_string(out.join("tuned-options.txt")).expect("tuned-options.txt"),
        options
    );
    assert_eq!(
        crate::util::games_of(&out.join("games.csv")).len(),
        2 * records.len()
    );
}

#[test]
fn a_tune_of_an_engine_writing_stray_lines_is_warned_about() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let args = seed_tune(&out, "--fault bestmove-before-go", 1);
    let (stdout, _) = run_expecting(&args, 0);
    assert!(stdout.contains("warning: game 1: tune+ wrote"), "{stdout}");
    assert!(stdout.contains("none was played"), "{stdout}");
}

#[test]
fn an_iteration_count_beyond_the_maximum_is_refused_before_anything_is_allocated() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let mut args = knob_tune(&out, 1, &[]);
    let at = args
        .iter()
        .position(|a| a == "--iterations")
        .expect("--iterations")
        + 1;
    args[at] = "99999999999".to_string();
    let (_, stderr) = run_expecting(&args, 3);
    assert!(
        stderr.contains("--iterations must be from 1 to 1000000, not 99999999999"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn parameters_the_engine_cannot_take_are_refused_naming_the_file_and_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("tune");
    let refused = |text: &str| -> String {
        let params = dir.path().join("p.txt");
        std::fs::write(&params, text).expect("write");
        let (_, stderr) = run_expecting(&search_tune(&params, &out, 2, &[]), 3);
        assert!(!out.join("tune.csv").exists());
        stderr.replace(&params.display().to_string(), "p.txt")
    };
    assert_eq!(
        refused("Pawn,100,50,200,10,0.002\nKnight,300,0,900,20,0.002\n"),
        "error: p.txt:2: the engine declares no option 'Knight'\n"
    );
    assert_eq!(
        refused("Tempo, float, 10, 0, 20, 1, 0.002\n"),
        "error: p.txt:1: 'Tempo' is a spin option (an integer): declare it int, not float\n"
    );
    assert_eq!(
        refused("Pawn,100,50,200,10,0.002\nTempo,10,40,20,2,0.002\n"),
        "error: p.txt:2: MIN 40 is greater than MAX 20 ('Tempo,10,40,20,2,0.002')\n"
    );
    assert_eq!(
        refused("Pawn,100,0,2000,10,0.002\n"),
        "error: p.txt:1: [MIN, MAX] = [0, 2000] is not within the engine's range of 'Pawn', \
         [0, 1000]\n"
    );
    // See: issue 28: MIN = MAX would measure nothing; an OpenBench line without R_END was
    // read as fishtest's, with VALUE 'int'.
    assert_eq!(
        refused("Pawn,100,50,200,10,0.002\nTempo, int, 10, 10, 10, 2, 0.002\n"),
        "error: p.txt:2: MIN and MAX are both 10: the parameter cannot move, so θ+ and θ− \
         would be the same and nothing would be measured ('Tempo, int, 10, 10, 10, 2, 0.002')\n"
    );
    assert_eq!(
        refused("Tempo, int, 30, -20, 40, 3\n"),
        "error: p.txt:1: 6 fields: an OpenBench line ('int' is its kind) has 7, NAME, \
         int|float, VALUE, MIN, MAX, C_END, R_END; R_END missing ('Tempo, int, 30, -20, 40, 3')\n"
    );
    // A finished tune cannot be overwritten, and --resume takes no other settings. A trailing
    // comment is a comment, as --help says (issue 28: it was read as part of R_END).
    let params = weights_file(dir.path());
    let commented = std::fs::read_to_string(&params)
        .unwrap()
        .replace("0.002\nTempo", "0.002  # the material weight\nTempo");
    std::fs::write(&params, commented).unwrap();
    run_expecting(&search_tune(&params, &out, 1, &[]), 0);
    let (_, again) = run_expecting(&search_tune(&params, &out, 1, &[]), 4);
    assert!(
        again.contains(&format!(
            "already holds a tune: continue it with `bt-arena tune --resume {}`",
            out.display()
        )),
        "{again}"
    );
    let resume = [
        "tune",
        "--resume",
        &out.display().to_string(),
        "--iterations",
        "5",
    ];
    let (_, stderr) = run_expecting(&resume.map(String::from), 3);
    assert!(
        stderr.starts_with("error: --iterations cannot be given with --resume"),
        "{stderr}"
    );
}

/// The tune.csv records of every shard of the sharded tune in `run`, by shard index, each
/// sorted by iteration, with the tune (shard 0's tune.json).
fn shard_iterations(run: &Path, shards: u32) -> (TuneConfig, Vec<Vec<IterationRecord>>) {
    let config = bt_arena::session::resume::read_saved::<TuneConfig>(&run.join("shard-0"))
        .expect("shard 0's tune.json");
    let records = (0..shards)
        .map(|k| {
            let path = run.join(format!("shard-{k}")).join(iterations::TUNE_CSV);
            IterationsFile::read(&path, &config.params, config.spsa.iterations)
                .expect("a shard's tune.csv")
                .into_values()
                .collect()
        })
        .collect();
    (config, records)
}

/// Asserts the invariants of a finished 2-shard tune of `total` iterations in `run`: each
/// iteration played once, by shard ((i − 1) mod 2); each started from θ after exactly
/// iterations 1..i−L of both shards (L the tune's lag), so a shard that never read the
/// other's tune.csv fails; RUN's tuned-options.txt and summary.json give the fold of all of
/// them in iteration order.
pub(crate) fn assert_sharded_tune(run: &Path, total: u64) -> Vec<f64> {
    let (config, shards) = shard_iterations(run, 2);
    for (k, records) in shards.iter().enumerate() {
        let numbers: Vec<u64> = records.iter().map(|r| r.step.iteration).collect();
        let expected: Vec<u64> = (1..=total).filter(|i| (i - 1) % 2 == k as u64).collect();
        assert_eq!(numbers, expected, "shard {k}'s iterations");
    }
    let all: Vec<IterationRecord> = shards.iter().flatten().cloned().collect();
    assert_lagged(&config, &all, config.lag);
    let theta = theta_after(&config.params, shards.iter().flatten());
    let options: String = config
        .params
        .iter()
        .zip(&theta)
        .map(|(p, &v)| format!("option.{}={}\n", p.name, p.format_value(v)))
        .collect();
    assert_eq!(
        std::fs::read_to_string(run.join("tuned-options.txt")).expect("RUN/tuned-options.txt"),
        options
    );
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.join("summary.json")).expect("RUN/summary.json"),
    )
    .expect("summary.json is JSON");
    assert_eq!(summary["finished"], total);
    theta
}

/// `bt-arena tune` started in the background with `args`.
fn spawn_tune(args: &[String]) -> std::process::Child {
    crate::util::bt_arena_command(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bt-arena starts")
}

/// Waits for `child`, asserting it exits with `code`; returns its stdout.
fn wait_expecting(child: std::process::Child, code: i32) -> String {
    let output = child.wait_with_output().expect("bt-arena ends");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(code),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// `args` without `--seed S`.
fn without_seed(args: Vec<String>) -> Vec<String> {
    let at = args.iter().position(|a| a == "--seed").expect("a --seed");
    let mut args = args;
    args.drain(at..at + 2);
    args
}

#[test]
fn two_shards_on_one_directory_play_every_iteration_once_and_fold_to_the_runs_theta() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let params = weights_file(dir.path());
    let run = dir.path().join("run");
    let shard = |k: &str, extra: &[&str]| {
        let mut flags = vec!["--shard", k];
        flags.extend(extra);
        search_tune(&params, &run, 6, &flags)
    };
    let first = spawn_tune(&shard("0/2", &[]));
    assert!(
        crate::util::eventually(std::time::Duration::from_secs(30), || run
            .join("identity.json")
            .exists()),
        "shard 0 writes the tune's identity"
    );
    // Without --seed, shard 1 takes the tune's.
    let second = spawn_tune(&without_seed(shard("1/2", &[])));
    let out0 = wait_expecting(first, 0);
    let out1 = wait_expecting(second, 0);
    assert!(out0.contains("Shard 0/2: tuning 3 parameters"), "{out0}");
    assert!(out1.contains("seed 17;"), "{out1}");
    assert_eq!(
        bt_arena::session::resume::read_saved::<TuneConfig>(&run.join("shard-1"))
            .expect("tune.json")
            .run
            .seed,
        17
    );
    let theta = assert_sharded_tune(&run, 6);

    // The whole tune's files, written again from the shards' alone.
    let options = std::fs::read_to_string(run.join("tuned-options.txt")).expect("options");
    std::fs::remove_file(run.join("tuned-options.txt")).expect("remove");
    std::fs::remove_file(run.join("summary.json")).expect("remove");
    let resume = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "tune".to_string(),
            "--resume".into(),
            run.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let (stdout, _) = run_expecting(&resume(&[]), 0);
    assert!(
        stdout.contains("θ after 6 of 6 iterations of every shard"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(run.join("tuned-options.txt")).expect("options"),
        options
    );
    assert_eq!(assert_sharded_tune(&run, 6), theta);
    let (_, stderr) = run_expecting(&resume(&["--concurrency", "2"]), 3);
    assert!(
        stderr.contains("--concurrency cannot be given with --resume"),
        "{stderr}"
    );

    // Shards started with other settings are refused before they play, naming the field.
    let (_, stderr) = run_expecting(&shard("1/2", &["--gamma", "0.2"]), 4);
    assert!(
        stderr.contains(&format!(
            "shard 1/2 cannot join the tune in {}: {} was saved with other settings: field \
             `spsa.gamma` is 0.101 there, 0.2 here",
            run.display(),
            run.join("identity.json").display()
        )),
        "{stderr}"
    );
    let (_, stderr) = run_expecting(&shard("2/3", &[]), 4);
    assert!(
        stderr.contains("field `shard` is 2 shards there, 3 shards here"),
        "{stderr}"
    );
    assert!(!run.join("shard-2").exists());
    // Nor may a tune on one machine be started in it, nor a shard in a tune on one machine.
    let (_, stderr) = run_expecting(&search_tune(&params, &run, 6, &[]), 4);
    assert!(stderr.contains("holds a sharded tune"), "{stderr}");
    let plain = dir.path().join("plain");
    run_expecting(&search_tune(&params, &plain, 1, &[]), 0);
    let (_, stderr) = run_expecting(&search_tune(&params, &plain, 1, &["--shard", "0/2"]), 4);
    assert!(stderr.contains("holds a tune on one machine"), "{stderr}");
}

#[test]
fn a_shard_killed_with_sigkill_resumes_and_the_tune_still_plays_each_iteration_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let params = weights_file(dir.path());
    let run = dir.path().join("run");
    // nodes=3000 rather than depth=2: slow enough to be killed in the middle.
    let shard = |k: &str| -> Vec<String> {
        search_tune(&params, &run, 8, &["--shard", k])
            .into_iter()
            .map(|arg| {
                if arg == "depth=2" {
                    "nodes=3000".into()
                } else {
                    arg
                }
            })
            .collect()
    };
    let mut killed = spawn_tune(&shard("0/2"));
    let rows = || {
        std::fs::read_to_string(run.join("shard-0").join(iterations::TUNE_CSV))
            .map_or(0, |text| text.lines().count().saturating_sub(1))
    };
    assert!(
        crate::util::eventually(std::time::Duration::from_secs(60), || rows() >= 1),
        "an iteration of shard 0 within a minute"
    );
    let other = spawn_tune(&shard("1/2"));
    killed.kill().expect("SIGKILL"); // Child::kill sends SIGKILL on Unix.
    killed.wait().expect("the killed bt-arena is reaped");
    let at_kill = rows();
    assert!(at_kill < 4, "shard 0 ended before the kill");
    // With the lag, shard 1 waits for shard 0's iterations: it ends once shard 0 is resumed.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let resume = [
        "tune".to_string(),
        "--resume".into(),
        run.display().to_string(),
        "--shard".into(),
        "0/2".into(),
    ];
    let (stdout, _) = run_expecting(&resume, 0);
    wait_expecting(other, 0);
    assert!(
        stdout.contains("Shard 0/2: joining a tune of 3 parameters ("),
        "{stdout}"
    );
    assert_sharded_tune(&run, 8);
    // The shards, one killed and resumed, played the tune one machine plays at their lag.
    let single = dir.path().join("single");
    let one_machine: Vec<String> = search_tune(&params, &single, 8, &["--lag", "2"])
        .into_iter()
        .map(|arg| {
            if arg == "depth=2" {
                "nodes=3000".into()
            } else {
                arg
            }
        })
        .collect();
    run_expecting(&one_machine, 0);
    let (_, shards) = shard_iterations(&run, 2);
    let all: Vec<IterationRecord> = shards.into_iter().flatten().collect();
    assert_eq!(comparable(&all), comparable(&iterations(&single).1));
    // A shard resumed as another shard's number is refused.
    let mut wrong = resume.to_vec();
    wrong[4] = "0/3".into();
    let (_, stderr) = run_expecting(&wrong, 3);
    assert!(
        stderr.contains("--shard 0/3: ") && stderr.contains("tune.json was saved as shard 0/2"),
        "{stderr}"
    );
}

/// `bt-arena report` never replaces a tune's own page (SPSA's), whatever games it is given.
#[test]
fn report_refuses_to_replace_a_tunes_page() {
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("params.txt");
    std::fs::write(&params, "Tempo, int, 30, -20, 40, 3, 0.05\n").unwrap();
    let out = dir.path().join("tune");
    run_expecting(&search_tune(&params, &out, 1, &[]), 0);
    let page = std::fs::read(out.join("report.html")).unwrap();
    let (tune, pgn) = (out.display().to_string(), out.join("games.pgn"));
    for args in [
        vec!["report".to_string(), tune.clone()],
        vec!["report".to_string(), pgn.display().to_string()],
    ] {
        let (_, stderr) = run_expecting(&args, 3);
        assert_eq!(
            stderr,
            format!(
                "error: {} is the page of the tune in {tune}: a report of games would replace \
                 it; give another --out (`bt-arena tune --resume {tune}` rewrites the tune's \
                 page)\n",
                out.join("report.html").display()
            ),
            "{args:?}"
        );
    }
    assert_eq!(std::fs::read(out.join("report.html")).unwrap(), page);
}

/// The command inside the first pair of backticks of `text`.
fn advised(text: &str) -> Vec<String> {
    let start = text.find('`').expect("an advised command") + 1;
    let end = start + text[start..].find('`').expect("its end");
    let command = &text[start..end];
    let rest = command
        .strip_prefix("bt-arena ")
        .expect("a bt-arena command");
    rest.split_whitespace().map(String::from).collect()
}

/// A finished shard started again says how to continue it, and the advice works when pasted;
/// a shard's own directory may be given with its --shard or without; a tune on one machine
/// resumed with --shard is a bad command line naming what it holds. See: issue 28 (the advice
/// was refused, --shard looked for shard-0/shard-0, and a missing path gave exit 4).
#[test]
fn a_finished_shards_advice_works_when_pasted() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = dir.path().join("run");
    let (first, second) = (
        spawn_tune(&knob_tune(&run, 4, &["--shard", "0/2"])),
        spawn_tune(&knob_tune(&run, 4, &["--shard", "1/2"])),
    );
    wait_expecting(first, 0);
    wait_expecting(second, 0);
    let (_, stderr) = run_expecting(&knob_tune(&run, 4, &["--shard", "0/2"]), 4);
    let advice = advised(&stderr);
    assert_eq!(
        advice,
        [
            "tune",
            "--resume",
            &run.display().to_string(),
            "--shard",
            "0/2"
        ],
        "{stderr}"
    );
    let (stdout, _) = run_expecting(&advice, 0);
    assert!(stdout.contains("θ after 4 of 4 iterations"), "{stdout}");
    let shard_dir = run.join("shard-0").display().to_string();
    for extra in [&["--shard", "0/2"][..], &[]] {
        let mut args = vec!["tune".to_string(), "--resume".into(), shard_dir.clone()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let (stdout, _) = run_expecting(&args, 0);
        assert!(
            stdout.contains("θ after 4 of 4 iterations"),
            "{extra:?}: {stdout}"
        );
    }
    let plain = dir.path().join("plain");
    run_expecting(&knob_tune(&plain, 1, &[]), 0);
    let args = [
        "tune",
        "--resume",
        &plain.display().to_string(),
        "--shard",
        "0/2",
    ];
    let (_, stderr) = run_expecting(&args.map(String::from), 3);
    assert!(
        stderr.contains("tune.json was saved as an unsharded run"),
        "{stderr}"
    );
}

/// SIGTERM and Ctrl-C (SIGINT; SIGHUP alike) stop a tune with 130 and the command that
/// continues it; the games in flight are dropped, and the resumed tune ends as an
/// uninterrupted one.
#[test]
fn a_tune_stopped_by_sigterm_or_ctrl_c_resumes_to_the_uninterrupted_theta() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let whole = dir.path().join("whole");
    run_expecting(&knob_tune(&whole, 12, &["--concurrency", "2"]), 0);
    for (signal, name) in [(libc::SIGTERM, "sigterm"), (libc::SIGINT, "sigint")] {
        let stopped = dir.path().join(name);
        stop_and_resume(&stopped, signal);
        let (_, resumed) = iterations(&stopped);
        assert_eq!(
            comparable(&resumed),
            comparable(&iterations(&whole).1),
            "{name}"
        );
        let mut ids: Vec<u64> = crate::util::games_of(&stopped.join("games.csv"))
            .iter()
            .map(|g| g.game_id)
            .collect();
        ids.sort_unstable();
        assert_eq!(
            ids,
            (1..=24).collect::<Vec<u64>>(),
            "{name}: each game once"
        );
    }
}

/// Starts the 12-iteration knob tune into `out`, sends it `signal` after its second
/// iteration, checks it stops with 130 and the advice to resume, and resumes it.
fn stop_and_resume(out: &Path, signal: i32) {
    let child = crate::util::bt_arena_command(knob_tune(out, 12, &["--concurrency", "2"]))
        .env("BT_FAULTY_JITTER_MS", "30")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bt-arena starts");
    let rows = || {
        std::fs::read_to_string(out.join(iterations::TUNE_CSV))
            .map_or(0, |text| text.lines().count().saturating_sub(1))
    };
    assert!(
        crate::util::eventually(std::time::Duration::from_secs(60), || rows() >= 2),
        "two iterations within a minute"
    );
    // SAFETY: the child is this test's own bt-arena.
    unsafe { libc::kill(i32::try_from(child.id()).unwrap(), signal) };
    let output = child.wait_with_output().expect("bt-arena ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "signal {signal}: {stderr}");
    assert!(
        stderr.contains(&format!(
            "Interrupted: continue with `bt-arena tune --resume {}`",
            out.display()
        )),
        "{stderr}"
    );
    assert!(rows() < 12, "the tune ended before the signal");
    run_expecting(&advised(&stderr), 0);
}

/// The finished iterations of every worker of the tune in `run`, read from their tune.csv.
pub(crate) fn worker_iterations(run: &Path) -> Vec<IterationRecord> {
    let mut all = Vec::new();
    for dir in bt_arena::run_dir::RunDir::new(run).worker_dirs().unwrap() {
        let Ok(config) = bt_arena::session::resume::read_saved::<TuneConfig>(dir.root()) else {
            continue;
        };
        let records = IterationsFile::read(&dir.tune_csv(), &config.params, config.spsa.iterations)
            .expect("a worker's tune.csv reads");
        all.extend(records.into_values());
    }
    all
}

/// The ids of the games every worker of `run` recorded, sorted.
pub(crate) fn worker_game_ids(run: &Path) -> Vec<u64> {
    let mut ids: Vec<u64> = bt_arena::run_dir::RunDir::new(run)
        .worker_dirs()
        .unwrap()
        .iter()
        .filter(|dir| dir.games_csv().exists())
        .flat_map(|dir| crate::util::games_of(&dir.games_csv()))
        .map(|game| game.game_id)
        .collect();
    ids.sort_unstable();
    ids
}

/// Workers of a tune (issue 30): two started together, of different concurrency, play every
/// iteration once between them, each from θ after exactly iterations 1..i−L of both, so the
/// tune is one machine's bit for bit (θ at every iteration, each iteration's games and result);
/// `tune --resume RUN` writes the whole tune's values again; a worker started after the end
/// plays nothing and says so.
#[test]
fn workers_of_a_tune_play_each_iteration_once_and_repeat_one_machines_theta() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let whole = dir.path().join("whole");
    run_expecting(&knob_tune(&whole, 12, &["--lag", "2"]), 0);
    let run = dir.path().join("run");
    // Five at once, their engines' moves jittered (each iteration's claim left by a worker
    // that ended must not be taken over as a dead one's: it was replayed, recorded twice).
    let spawn = |extra: &[&str]| {
        let mut flags = vec!["--lag", "2", "--worker"];
        flags.extend(extra);
        crate::util::bt_arena_command(knob_tune(&run, 12, &flags))
            .env("BT_FAULTY_JITTER_MS", "30")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("bt-arena starts")
    };
    let workers = [
        spawn(&[]),
        spawn(&["--concurrency", "2"]),
        spawn(&[]),
        spawn(&[]),
        spawn(&[]),
    ];
    for worker in workers {
        let out = wait_expecting(worker, 0);
        assert!(
            out.contains(": claiming iterations of a tune of 2 parameters"),
            "{out}"
        );
    }
    assert_one_machines_tune(&run, &whole, 12);
    for iteration in 1..=12 {
        assert!(
            run.join(format!("claims/iteration-{iteration}.done"))
                .exists()
        );
    }
    let tuned = std::fs::read_to_string(whole.join("tuned-options.txt")).unwrap();
    assert_eq!(
        std::fs::read_to_string(run.join("tuned-options.txt")).unwrap(),
        tuned
    );
    let (stdout, _) = run_expecting(
        &["tune", "--resume", &run.display().to_string()].map(String::from),
        0,
    );
    // `elo` reads the workers' games as the tune's.
    let (elo, _) = run_expecting(&["elo", &run.display().to_string()].map(String::from), 0);
    assert!(elo.starts_with("Games: 24\n"), "{elo}");
    assert!(
        stdout.contains("θ after 12 of 12 iterations of every worker"),
        "{stdout}"
    );

    let late = wait_expecting(
        spawn_tune(&knob_tune(&run, 12, &["--lag", "2", "--worker"])),
        0,
    );
    assert!(
        late.contains(&format!(
            "every iteration of the tune in {} is finished: it plays nothing",
            run.display()
        )),
        "{late}"
    );
    assert_eq!(worker_game_ids(&run), (1..=24).collect::<Vec<u64>>());
}

/// A tune worker killed with kill -9 mid-iteration (one of its iteration's two games
/// recorded): the next worker takes the iteration over at once (its process is gone from this
/// host), plays only its missing game, writes its row, and the tune is one machine's.
#[test]
fn a_tune_worker_killed_mid_iteration_has_only_its_missing_game_played_again() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let whole = dir.path().join("whole");
    run_expecting(&knob_tune(&whole, 8, &[]), 0);
    let mut attempt = 0;
    let (run, at_stop) = loop {
        attempt += 1;
        let run = dir.path().join(format!("run-{attempt}"));
        let child = crate::util::bt_arena_command(knob_tune(&run, 8, &["--worker"]))
            .env("BT_FAULTY_JITTER_MS", "30")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("bt-arena starts");
        assert!(
            crate::util::eventually(std::time::Duration::from_secs(60), || {
                let rows = crate::workers::rows(&run);
                rows % 2 == 1 && rows >= 3
            }),
            "an iteration's first game within a minute"
        );
        // SAFETY: the child is this test's own bt-arena.
        unsafe { libc::kill(i32::try_from(child.id()).unwrap(), libc::SIGKILL) };
        child.wait_with_output().expect("bt-arena ends");
        let at_stop = crate::workers::rows(&run);
        if at_stop % 2 == 1 || attempt == 5 {
            break (run, at_stop);
        }
    };
    assert!(
        at_stop % 2 == 1 && at_stop < 16,
        "{at_stop} games at the kill"
    );
    let out = wait_expecting(spawn_tune(&knob_tune(&run, 8, &["--worker"])), 0);
    let cut = u64::try_from(at_stop.div_ceil(2)).unwrap();
    assert!(
        out.contains(&format!("iteration {cut}, claimed by ")) && out.contains("process is gone"),
        "{out}"
    );
    assert_one_machines_tune(&run, &whole, 8);
}

/// Asserts that the workers of `run` recorded each of the `total` iterations, and each of its
/// games, once, and that their iterations are those of the tune on one machine in `whole`.
pub(crate) fn assert_one_machines_tune(run: &Path, whole: &Path, total: u64) {
    assert_eq!(
        worker_game_ids(run),
        (1..=2 * total).collect::<Vec<u64>>(),
        "each game once"
    );
    let played = worker_iterations(run);
    assert_eq!(played.len() as u64, total, "each iteration once");
    assert_eq!(comparable(&played), comparable(&iterations(whole).1));
}

/// A tune worker is refused before it plays: other settings than the tune's (exit 4, naming
/// the field), a worker on a tune on one machine, and bad command lines (exit 3): no --out,
/// --shard or --resume with --worker.
#[test]
fn a_tune_worker_with_other_settings_or_a_bad_command_line_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = dir.path().join("run");
    run_expecting(&knob_tune(&run, 2, &["--worker"]), 0);
    let (_, stderr) = run_expecting(&knob_tune(&run, 3, &["--worker"]), 4);
    assert!(stderr.contains("iterations"), "{stderr}");
    let single = dir.path().join("single");
    run_expecting(&knob_tune(&single, 1, &[]), 0);
    let (_, stderr) = run_expecting(&knob_tune(&single, 1, &["--worker"]), 4);
    assert!(
        stderr.contains("a tune (") && stderr.contains("tune.json"),
        "{stderr}"
    );
    let mut no_out = knob_tune(&run, 2, &["--worker"]);
    let at = no_out.iter().position(|arg| arg == "--out").unwrap();
    no_out.drain(at..at + 2);
    let (_, stderr) = run_expecting(&no_out, 3);
    assert!(stderr.contains("--worker needs --out DIR"), "{stderr}");
    run_expecting(&knob_tune(&run, 2, &["--worker", "--shard", "0/2"]), 3);
    let resume = ["tune", "--resume", &run.display().to_string(), "--worker"].map(String::from);
    run_expecting(&resume, 3);
    run_expecting(&knob_tune(&run, 2, &["--worker", "--lease", "10ms"]), 3);
}

/// Whether a worker's output `out` shows it taking over a dead worker's iteration after it
/// had finished a later one (so it had opened later iterations, from later θ).
fn took_over_an_older_iteration(out: &str) -> bool {
    let mut latest_finished = 0;
    for line in out.lines() {
        if let Some(finished) = line.strip_prefix("Iteration ") {
            let k: u64 = finished.split('/').next().unwrap().parse().unwrap();
            latest_finished = latest_finished.max(k);
        } else if let Some(taken) = line.strip_prefix("iteration ")
            && line.contains("that process is gone")
        {
            let k: u64 = taken.split(',').next().unwrap().parse().unwrap();
            return latest_finished > k;
        }
    }
    false
}

/// A tune worker killed with kill -9 while another worker plays on: the other takes its
/// iteration over at once and plays it from θ after exactly iterations 1..i−L, though it has
/// opened later iterations since (it used the θ of the later ones); the tune is one machine's.
#[test]
fn a_tune_worker_killed_beside_another_has_its_iteration_played_from_the_lagged_theta() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let whole = dir.path().join("whole");
    run_expecting(&knob_tune(&whole, 12, &["--lag", "2"]), 0);
    let spawn_slow = |run: &Path| {
        crate::util::bt_arena_command(knob_tune(run, 12, &["--lag", "2", "--worker"]))
            .env("BT_FAULTY_JITTER_MS", "30")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("bt-arena starts")
    };
    let mut attempt = 0;
    let (run, out) = loop {
        attempt += 1;
        let run = dir.path().join(format!("run-{attempt}"));
        let (killed, other) = (spawn_slow(&run), spawn_slow(&run));
        assert!(
            crate::util::eventually(std::time::Duration::from_secs(60), || {
                crate::workers::rows(&run) >= 6
            }),
            "six games within a minute"
        );
        // SAFETY: the child is this test's own bt-arena.
        unsafe { libc::kill(i32::try_from(killed.id()).unwrap(), libc::SIGKILL) };
        killed.wait_with_output().expect("bt-arena ends");
        let out = wait_expecting(other, 0);
        if took_over_an_older_iteration(&out) || attempt == 5 {
            break (run, out);
        }
    };
    assert!(took_over_an_older_iteration(&out), "{out}");
    assert_one_machines_tune(&run, &whole, 12);
}
