//! `bt-arena select`: real bt-search processes at fixed node counts (deterministic after
//! `uginewgame`, so a run is repeatable game for game), the choice, its exit code, its report
//! rebuilt by `elo` and `report`, repeatability over concurrency, workers, kill -9 and
//! `--resume`, bad input; and the guarantee measured by simulation through the run's own
//! decision code.

use crate::util::{SEARCH, bt_arena, bt_arena_command, games_of, path, stderr, stdout, words};
use bt_arena::records::GameRecord;
use bt_arena::select::procedure::Rule;
use bt_arena::select::simulate::{Pool, select_once, tally};
use bt_arena::stats::calculator::BookProfile;
use std::path::Path;
use std::process::Stdio;

const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/capture-only.epd");

/// Flags of a selection: the base bt-search at `base` nodes, a candidate at each of `nodes`
/// (named `nN`), indifference 50 Elo, confidence 0.9, the shipped book in order, seed 3.
fn selection(base: u32, nodes: &[u32], extra: &str) -> String {
    let mut flags = format!("select --engine cmd={SEARCH} name=base nodes={base}");
    for (i, n) in nodes.iter().enumerate() {
        flags.push_str(&format!(" --engine cmd={SEARCH} name=c{i}n{n} nodes={n}"));
    }
    flags.push_str(&format!(
        " --base base --indifference 50 --confidence 0.9 --openings file={BOOK} --seed 3 {extra}"
    ));
    flags
}

fn run(flags: &str, out: &Path) -> std::process::Output {
    bt_arena(&words(flags, &["--out", path(out)]))
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Every game of the run in `out` (its own games.csv and its workers'), by game id.
fn all_games(out: &Path) -> Vec<GameRecord> {
    let mut dirs = vec![out.to_path_buf()];
    dirs.extend(
        bt_arena::run_dir::RunDir::new(out)
            .worker_dirs()
            .unwrap()
            .into_iter()
            .map(|d| d.root().to_path_buf()),
    );
    let mut games: Vec<GameRecord> = dirs
        .iter()
        .filter(|d| d.join("games.csv").is_file())
        .flat_map(|d| games_of(&d.join("games.csv")))
        .collect();
    games.sort_by_key(|g| g.game_id);
    games
}

/// What a repeat must give again: each game's id, players, opening, moves and result.
fn played(games: &[GameRecord]) -> Vec<(u64, String, String, String, String, String)> {
    games
        .iter()
        .map(|g| {
            (
                g.game_id,
                g.white.clone(),
                g.black.clone(),
                g.opening.clone(),
                g.moves.clone(),
                g.result.to_string(),
            )
        })
        .collect()
}

#[test]
fn a_pool_of_bt_search_settings_chooses_the_most_nodes_and_it_beats_the_base_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let flags = selection(100, &[50, 400, 100], "--concurrency 2");
    let output = run(&flags, &out);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    assert!(
        text.contains("Answer: c1n400 is the best candidate, and it beats base\n"),
        "{text}"
    );
    let json = summary(&out);
    assert_eq!(json["status"], "decided");
    assert_eq!(json["chosen"], "c1n400");
    assert_eq!(json["beats_base"], true);
    let rounds = json["rounds"].as_u64().unwrap();
    let games = json["games"].as_u64().unwrap();
    // Every game recorded is one the selection took, two a pair.
    assert_eq!(all_games(&out).len() as u64, games);
    assert_eq!(json["extra_games"], 0);
    let candidates = json["candidates"].as_array().unwrap();
    let pairs: Vec<u64> = candidates
        .iter()
        .map(|c| c["pairs"].as_u64().unwrap())
        .collect();
    assert_eq!(2 * pairs.iter().sum::<u64>(), games);
    // The chosen one played every round; the others left at one round, after the first stage.
    let chosen_round = json["chosen_round"].as_u64().unwrap();
    assert_eq!(pairs[1], rounds);
    for i in [0, 2] {
        let c = &candidates[i];
        assert_eq!(c["status"], "eliminated");
        let left = c["eliminated"]["round"].as_u64().unwrap();
        assert!((16..=chosen_round).contains(&left), "{c}");
        assert_eq!(pairs[i], left);
        assert!(
            c["eliminated"]["lead"].as_f64().unwrap() > c["eliminated"]["bound"].as_f64().unwrap()
        );
    }
    assert_eq!(candidates[1]["status"], "chosen");
    assert_eq!(candidates[1]["base_test"]["decision"], "H1");
    // Its test decided at the last round: its pairs.
    assert_eq!(
        candidates[1]["base_test"]["pairs"].as_u64().unwrap(),
        rounds.max(chosen_round)
    );
    // The strongest measured above the base, the weakest below.
    assert!(candidates[1]["elo"]["elo"].as_f64().unwrap() > 0.0);
    assert!(candidates[0]["elo"]["elo"].as_f64().unwrap() < 0.0);
    assert!(
        std::fs::read_to_string(out.join("report.html"))
            .unwrap()
            .contains("c1n400")
    );

    // `elo RUN` prints the report the run printed; `--json` is summary.json; `report RUN`
    // writes the page; each exits with the selection's code.
    let elo = bt_arena(&["elo", path(&out)]);
    assert_eq!(elo.status.code(), Some(0), "{}", stderr(&elo));
    let report_text = stdout(&elo);
    assert!(report_text.starts_with("Selection of the best of 3 candidates against base"));
    assert!(text.contains(&report_text), "{text}\n----\n{report_text}");
    let elo_json = bt_arena(&["elo", "--json", path(&out)]);
    assert_eq!(elo_json.status.code(), Some(0));
    let rebuilt: serde_json::Value = serde_json::from_str(&stdout(&elo_json)).unwrap();
    assert_eq!(rebuilt, json);
    let page = dir.path().join("page.html");
    let report = bt_arena(&["report", path(&out), "--out", path(&page)]);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    assert_eq!(
        std::fs::read_to_string(&page).unwrap(),
        std::fs::read_to_string(out.join("report.html")).unwrap()
    );
}

#[test]
fn a_pool_of_the_base_itself_says_none_beats_the_base_with_exit_1_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let flags = selection(100, &[100, 100, 100], "--budget 2000");
    let output = run(&flags, &out);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}{}", stderr(&output));
    assert!(
        text.contains("Answer: none beats base: the best candidate, c0n100, does not\n"),
        "{text}"
    );
    let json = summary(&out);
    assert_eq!(json["status"], "decided");
    assert_eq!(json["beats_base"], false);
    // Equal candidates (the same games, 1-1 every pair) end at the first stage: the first given
    // kept, the others eliminated at round 16 with no lead.
    assert_eq!(json["chosen_round"], 16);
    assert_eq!(json["candidates"][1]["eliminated"]["round"], 16);
    assert_eq!(json["candidates"][1]["eliminated"]["lead"], 0);
    assert!(
        text.contains(
            "Round 16: c1n100 eliminated by c0n100 (tied once the region closed: the first \
             given stays)\n"
        ),
        "{text}"
    );
    let games = json["games"].as_u64().unwrap();
    assert!(games <= 2000, "{games}");
    assert_eq!(all_games(&out).len() as u64, games);
    let pairs = json["candidates"][0]["pairs"].as_u64().unwrap();
    assert_eq!(games, 2 * (16 * 3 + pairs - 16));
    assert_eq!(json["candidates"][0]["base_test"]["decision"], "H0");
    assert_eq!(
        json["candidates"][0]["pentanomial"][2].as_u64(),
        Some(pairs)
    );
    let elo = bt_arena(&["elo", path(&out)]);
    assert_eq!(elo.status.code(), Some(1));
}

#[test]
fn a_budget_that_runs_out_first_says_who_leads_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // Four rounds of three pairs: 24 games; a fifth would pass 25.
    let output = run(&selection(100, &[50, 400, 100], "--budget 25"), &out);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(2), "{text}{}", stderr(&output));
    assert!(
        text.contains("no answer within the budget of 25 games: "),
        "{text}"
    );
    let json = summary(&out);
    assert_eq!(
        (json["status"].as_str(), json["games"].as_u64()),
        (Some("budget"), Some(24))
    );
    assert_eq!(json["rounds"], 4);
    assert_eq!(all_games(&out).len(), 24);
    assert_eq!(bt_arena(&["elo", path(&out)]).status.code(), Some(2));
}

#[test]
fn a_selection_repeats_at_concurrency_1_and_2_and_over_two_workers() {
    let dir = tempfile::tempdir().unwrap();
    let flags = selection(100, &[50, 400, 100], "");
    let one = dir.path().join("one");
    let output = run(&format!("{flags} --concurrency 1"), &one);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let two = dir.path().join("two");
    let output = run(&format!("{flags} --concurrency 2"), &two);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = played(&all_games(&one));
    assert_eq!(played(&all_games(&two)), expected);
    assert_eq!(summary(&two), summary(&one));

    let workers = dir.path().join("workers");
    let spawn = || {
        bt_arena_command(words(&flags, &["--worker", "--out", path(&workers)]))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    assert_eq!(played(&all_games(&workers)), expected);
    let elo = bt_arena(&["elo", "--json", path(&workers)]);
    assert_eq!(elo.status.code(), Some(0));
    let rebuilt: serde_json::Value = serde_json::from_str(&stdout(&elo)).unwrap();
    let mut alone = summary(&one);
    alone["event"] = rebuilt["event"].clone();
    assert_eq!(rebuilt, alone);
}

#[test]
fn a_selection_killed_with_sigkill_and_resumed_gives_the_games_and_choice_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    // More nodes: slow enough to be killed in the middle.
    let flags = selection(400, &[200, 1600, 400], "--concurrency 2");
    let whole = dir.path().join("whole");
    let output = run(&flags, &whole);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let killed = dir.path().join("killed");
    let mut child = bt_arena_command(words(&flags, &["--out", path(&killed)]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rows = || {
        std::fs::read_to_string(killed.join("games.csv"))
            .map_or(0, |t| t.lines().count().saturating_sub(1))
    };
    assert!(crate::util::eventually(
        std::time::Duration::from_secs(120),
        || rows() >= 40
    ));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let at_kill = rows();
    let expected = played(&all_games(&whole));
    assert!(at_kill < expected.len(), "{at_kill} of {}", expected.len());
    let output = bt_arena(&["select", "--resume", path(&killed)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(played(&all_games(&killed)), expected);
    let mut resumed = summary(&killed);
    resumed["event"] = summary(&whole)["event"].clone();
    assert_eq!(resumed, summary(&whole));
}

#[test]
fn bad_settings_are_refused_with_exit_3_and_no_run_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let base = format!("select --engine cmd={SEARCH} name=base nodes=50");
    let two = format!("{base} --engine cmd={SEARCH} name=a --engine cmd={SEARCH} name=b");
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{base} --engine cmd={SEARCH} name=a --base base"),
            "error: select needs at least two candidates besides the base, got 1: give each \
             with --engine, and the base with --base NAME\n",
        ),
        (
            format!("{two} --base nobody"),
            "error: --base nobody names no engine (the engines are base, a, b)\n",
        ),
        (
            format!("{two} --base base --confidence 1"),
            "error: --confidence 1 must be strictly between 0 and 1 (e.g. 0.95)\n",
        ),
        (
            format!("{two} --base base --confidence 0"),
            "error: --confidence 0 must be strictly between 0 and 1 (e.g. 0.95)\n",
        ),
        (
            format!("{two} --base base --confidence -0.5"),
            "error: --confidence -0.5 must be strictly between 0 and 1 (e.g. 0.95)\n",
        ),
        (
            format!("{two} --base base --indifference 0"),
            "error: --indifference 0 must be above 0 and at most 1000 Elo (the smallest \
             difference worth telling apart, e.g. 5)\n",
        ),
        (
            format!("{two} --base base --indifference -5"),
            "error: --indifference -5 must be above 0 and at most 1000 Elo (the smallest \
             difference worth telling apart, e.g. 5)\n",
        ),
        (
            format!("{two} --base base --budget 3"),
            "error: --budget 3 is below one round of the selection: 4 games (a game pair for \
             each candidate)\n",
        ),
    ];
    for (flags, message) in cases {
        let output = run(&flags, &out);
        assert_eq!(
            output.status.code(),
            Some(3),
            "{flags}: {}",
            stderr(&output)
        );
        assert_eq!(stderr(&output), message, "{flags}");
        assert!(!out.exists(), "{flags}: a run directory was left");
    }
}

/// The guarantee at N = 4, in its least favourable configuration (the best exactly
/// `--indifference` above the three others): over 5,000 selections the share of correct
/// choices must reach 94%. A procedure that chose right 93% of the time (2 points short of
/// its 95%) would pass this with probability 0.3% (2.8 standard errors); one at 95% fails it
/// with probability 0.07%. The seed fixes the draws: the count is exact.
#[test]
fn simulated_selections_of_four_choose_the_best_with_the_stated_confidence() {
    let delta = 25.0;
    let pool = Pool {
        elos: vec![2.0 * delta, delta, delta, delta],
        book: BookProfile::of_rms_bias(0.0).unwrap(),
    };
    let rule = Rule {
        candidates: 4,
        indifference: delta,
        confidence: 0.95,
        budget: None,
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let result = tally(&pool, 5000, 40, threads, |rng| {
        select_once(rule, &pool, rng).unwrap()
    });
    assert_eq!(result.runs, 5000);
    assert_eq!(result.none, 0, "no budget: every selection chooses");
    assert!(
        result.correct_share() >= 0.94,
        "{} of 5000 correct: {:.4} ± {:.4}",
        result.correct,
        result.correct_share(),
        result.correct_error()
    );
}

#[test]
fn max_time_stops_a_selection_with_exit_2_and_resume_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // The base itself three times at 2000 nodes: hundreds of games, more than 2 s.
    let flags = selection(2000, &[2000, 2000, 2000], "--max-time 2s");
    let output = run(&flags, &out);
    let (text, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(2), "{text}{err}");
    assert!(err.contains("Time limit reached (--max-time)"), "{err}");
    assert!(text.contains("Answer: not decided yet: "), "{text}");
    assert_eq!(summary(&out)["status"], "in_progress");
    let games = all_games(&out).len();
    assert!(games > 0 && games < 16 * 6, "{games}");
    let output = bt_arena(&["select", "--resume", path(&out)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(summary(&out)["chosen"], "c0n2000");
}
