//! `bt-arena elo` on games.csv files written by the library: text and JSON reports, shards,
//! SPRT, and the exit codes for a missing file, a malformed row and a bad command line.

use bt_arena::records::{GameRecord, ResultsWriter};
use bt_arena::rules::Rules;
use bt_arena::stats::{Sprt, elo_pentanomial};
use std::path::{Path, PathBuf};

use crate::util::{bt_arena, game, success_stdout};

/// Pairs 1..=n of `new` vs `base`: new wins both games of pairs 1-3, one of pairs 4-5, none
/// of pair 6; pentanomial [1, 0, 2, 0, 3] from new's side, 8 wins and 4 losses.
fn pairs() -> Vec<GameRecord> {
    let mut games = Vec::new();
    for pair in 1..=6u64 {
        let (first, second) = match pair {
            1..=3 => (true, false),
            4 | 5 => (true, true),
            _ => (false, true),
        };
        games.push(game(2 * pair - 1, pair, "new", "base", first));
        games.push(game(2 * pair, pair, "base", "new", second));
    }
    games
}

fn write_run(dir: &Path, games: &[GameRecord]) -> PathBuf {
    let mut writer = ResultsWriter::open(dir, Rules::CaptureOnly).unwrap();
    for game in games {
        writer.append(game).unwrap();
    }
    writer.csv_path().to_path_buf()
}

#[test]
fn text_report_of_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write_run(dir.path(), &pairs());
    let sprt = "elo0=0 elo1=5 alpha=0.05 beta=0.05";
    let output = bt_arena(&["elo", "--sprt", sprt, csv.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "no SPRT decision: inconclusive"
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let elo = elo_pentanomial(&[1, 0, 2, 0, 3].into());
    assert!(text.starts_with("Games: 12\n"), "{text}");
    assert!(text.contains("Results of new vs base:\n"), "{text}");
    assert!(
        text.contains(&format!(
            "Elo: {:+.2} +/- {:.2} (from 12 games: too few for the error bar to mean much), \
             LOS: {:.2}%\n",
            elo.elo,
            elo.error95,
            100.0 * elo.los
        )),
        "{text}"
    );
    assert!(text.contains("Games: 12, Wins: 8, Losses: 4, Score: 66.67%\n"));
    assert!(text.contains("Ptnml(0-2): [1, 0, 2, 0, 3], 6 pairs\n"));
    let sprt: Sprt = sprt.parse().unwrap();
    let line = sprt.report(sprt.llr_pentanomial(&[1, 0, 2, 0, 3].into()));
    assert!(text.contains(&format!("{line}\n")), "{text}");
    // One match: the pair's Elo is the one figure (no pool standings, as fastchess prints it).
    assert!(!text.contains("Rank"), "{text}");
    assert_eq!(text.matches("Elo:").count(), 1, "{text}");
}

/// Three engines: the standings, rated relative to `--anchor` (its rating 0) when asked; an
/// anchor that is no engine of the games is a bad command line.
#[test]
fn anchor_rates_the_pool_relative_to_one_engine() {
    let dir = tempfile::tempdir().unwrap();
    let mut games = pairs();
    for (k, (white, black, white_wins)) in [
        ("third", "new", true),
        ("new", "third", true),
        ("third", "base", true),
        ("base", "third", false),
        ("third", "new", false),
        ("new", "third", false),
        ("base", "third", true),
        ("third", "base", false),
    ]
    .into_iter()
    .enumerate()
    {
        let id = 13 + k as u64;
        games.push(game(id, 7 + k as u64 / 2, white, black, white_wins));
    }
    let csv = write_run(dir.path(), &games);
    let path = csv.to_str().unwrap();
    let plain = success_stdout(&bt_arena(&["elo", path]));
    assert!(plain.contains("Rank Name"), "{plain}");
    assert!(plain.contains("Bradley-Terry Elo (mean 0)"), "{plain}");
    let anchored = success_stdout(&bt_arena(&["elo", "--anchor", "base", path]));
    let row = |text: &str, name: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{text}"));
        line.split_whitespace().map(str::to_string).collect()
    };
    assert_eq!(row(&anchored, "base")[2..4], ["+0.00", "-"], "{anchored}");
    let elo = |text: &str, name: &str| row(text, name)[2].parse::<f64>().unwrap();
    let difference = elo(&plain, "new") - elo(&plain, "base");
    assert!(
        (elo(&anchored, "new") - difference).abs() < 0.02,
        "{anchored}"
    );
    assert!(
        anchored.contains("Bradley-Terry Elo relative to base (its rating 0)"),
        "{anchored}"
    );
    let json = success_stdout(&bt_arena(&["elo", "--json", "--anchor", "base", path]));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["anchor"], "base");
    let output = bt_arena(&["elo", "--anchor", "nobody", path]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        crate::util::stderr(&output).contains(
            "error: --anchor nobody: no engine of that name (the engines: new, base, third)"
        ),
        "{}",
        crate::util::stderr(&output)
    );
}

#[test]
fn json_report_of_two_shards() {
    let games = pairs();
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Both shards use pair numbers 1..=3 and game ids 1..=6 for different games.
    let first = write_run(one.path(), &games[..6]);
    let mut rest = games[6..].to_vec();
    for (i, game) in rest.iter_mut().enumerate() {
        game.game_id = i as u64 + 1;
        game.pair -= 3;
        // Another run's games, played another day.
        game.started = "2026-11-29T12:00:00Z".into();
    }
    let second = write_run(two.path(), &rest);
    let output = bt_arena(&[
        "elo",
        "--json",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
    ]);
    let json: serde_json::Value = serde_json::from_str(&success_stdout(&output)).unwrap();
    assert_eq!(json["games"], 12);
    assert_eq!(json["engines"], serde_json::json!(["new", "base"]));
    let pair = &json["pairs"][0];
    assert_eq!(
        (pair["wins"].as_u64(), pair["losses"].as_u64()),
        (Some(8), Some(4))
    );
    assert_eq!(pair["pentanomial"], serde_json::json!([1, 0, 2, 0, 3]));
    let elo = elo_pentanomial(&[1, 0, 2, 0, 3].into());
    assert!((pair["elo"]["elo"].as_f64().unwrap() - elo.elo).abs() < 1e-9);
    assert!(pair["sprt"].is_null());
    assert_eq!(json["standings"][0]["name"], "new");
    assert_eq!(json["standings"][0]["wins"], 8);

    // The same file twice would count its games twice: refused (see: issue 18, case 5).
    let output = bt_arena(&[
        "elo",
        "--json",
        first.to_str().unwrap(),
        first.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "error: {} is given twice: its games would be counted twice\n",
            first.display()
        )
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn a_games_csv_saved_with_a_byte_order_mark_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write_run(dir.path(), &pairs());
    let plain = success_stdout(&bt_arena(&["elo", "--json", csv.to_str().unwrap()]));
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, format!("\u{feff}{text}")).unwrap();
    let output = bt_arena(&["elo", "--json", csv.to_str().unwrap()]);
    assert_eq!(success_stdout(&output), plain);

    // Line numbers in errors still count from the header.
    std::fs::write(&csv, format!("\u{feff}{text}1,2,3\n")).unwrap();
    let output = bt_arena(&["elo", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}, line 14: ", csv.display())),
        "{stderr}"
    );
}

#[test]
fn a_missing_file_exits_4_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-games.csv");
    let output = bt_arena(&["elo", missing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(missing.to_str().unwrap()), "{stderr}");
}

#[test]
fn a_malformed_row_exits_4_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write_run(dir.path(), &pairs()[..2]);
    let mut text = std::fs::read_to_string(&csv).unwrap();
    text.push_str(
        "3,1,2,2,startpos,new,base,1-0,goal-rank,two,a2a3,1,1,2026-11-30T12:00:00Z,0,0,,,\n",
    );
    std::fs::write(&csv, text).unwrap();
    let output = bt_arena(&["elo", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}, line 4: column `plies`", csv.display())),
        "{stderr}"
    );
}

#[test]
fn bad_command_lines_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write_run(dir.path(), &pairs());
    let csv = csv.to_str().unwrap();
    for args in [
        vec!["elo"],
        vec!["elo", "--sprt", "elo0=5 elo1=0", csv],
        vec!["elo", "--sprt", "elo1", csv],
        vec!["elo", "--frobnicate", csv],
    ] {
        let output = bt_arena(&args);
        assert_eq!(output.status.code(), Some(3), "{args:?}");
    }
}

/// The run: `--sprt elo0=0 elo1=20 --concurrency 2` crossed the lower bound, then a game
/// in flight completed a pair that pulled the LLR back inside the bounds. games.csv is in
/// completion order, so the pair won twice (pair 1, game ids 1 and 2) comes last. The replay
/// reaches the run's verdict and exit code and counts the 2 games after it.
#[test]
fn the_sprt_verdict_is_the_first_crossing_in_file_order() {
    let spec = "elo0=0 elo1=20";
    let sprt: Sprt = spec.parse().unwrap();
    let (lower, upper) = sprt.bounds();
    let lost = (1..)
        .find(|&n| sprt.llr_pentanomial(&[n, 0, 0, 0, 0].into()) <= lower)
        .unwrap();
    let pulled_back = sprt.llr_pentanomial(&[lost, 0, 0, 0, 1].into());
    assert!(lower < pulled_back && pulled_back < upper, "{pulled_back}");
    let mut games: Vec<GameRecord> = (2..=lost + 1)
        .flat_map(|pair| {
            [
                game(2 * pair - 1, pair, "new", "base", false),
                game(2 * pair, pair, "base", "new", true),
            ]
        })
        .collect();
    games.push(game(2, 1, "base", "new", false));
    games.push(game(1, 1, "new", "base", true));
    let dir = tempfile::tempdir().unwrap();
    let csv = write_run(dir.path(), &games);
    let csv = csv.to_str().unwrap();

    let output = bt_arena(&["elo", "--sprt", spec, csv]);
    assert_eq!(output.status.code(), Some(1), "H0 accepted");
    let text = String::from_utf8(output.stdout).unwrap();
    let llr = sprt.llr_pentanomial(&[lost, 0, 0, 0, 0].into());
    let expected = format!(
        "Ptnml(0-2): [{lost}, 0, 0, 0, 1], {} pairs\n{}\nSPRT: H0 accepted at game {}; 2 games after the decision (not in the LLR)\n",
        lost + 1,
        sprt.report(llr),
        2 * lost
    );
    assert!(text.contains(&expected), "{text}");
    assert!(text.contains(" new "), "{text}");

    let output = bt_arena(&["elo", "--json", "--sprt", spec, csv]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let status = &json["pairs"][0]["sprt"];
    assert_eq!(status["llr"].as_f64(), Some(llr));
    assert_eq!(status["decision"], "AcceptH0");
    assert_eq!(status["games"], 2 * lost);
    assert_eq!(status["games_after"], 2);
    assert_eq!(status["model"], "pentanomial");
    assert_eq!(json["pairs"][0]["first"], "new");
}

/// `--games 1`: no pair is ever complete, so every game counts alone; the first crossing is
/// the verdict.
#[test]
fn single_games_replay_to_a_trinomial_verdict() {
    let spec = "elo0=0 elo1=200";
    let sprt: Sprt = spec.parse().unwrap();
    let (_, upper) = sprt.bounds();
    let won = (1..)
        .find(|&n| sprt.llr_trinomial(&[0, 0, n]) >= upper)
        .unwrap();
    let games: Vec<GameRecord> = (1..=won + 1)
        .map(|id| {
            let new_white = id % 2 == 1;
            let (white, black) = if new_white {
                ("new", "base")
            } else {
                ("base", "new")
            };
            game(id, id, white, black, new_white)
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let csv = write_run(dir.path(), &games);
    let output = bt_arena(&["elo", "--sprt", spec, csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "H1 accepted");
    let text = String::from_utf8(output.stdout).unwrap();
    let expected = format!(
        "no complete pairs: Elo from single games\n{}\nSPRT: H1 accepted at game {won}; 1 game after the decision (not in the LLR)\n",
        sprt.report(sprt.llr_trinomial(&[0, 0, won]))
    );
    assert!(text.contains(&expected), "{text}");
}

/// No SPRT can be computed without exactly two engines: a usage error, never 0 (H1 accepted).
#[test]
fn sprt_without_two_engines_exits_3_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, Vec<GameRecord>, &str); 3] = [
        ("none", vec![], "the file holds no games"),
        (
            "one",
            vec![game(1, 1, "solo", "solo", true)],
            "the file holds games of one engine (solo)",
        ),
        (
            "three",
            vec![
                game(1, 1, "a", "b", true),
                game(2, 2, "a", "c", true),
                game(3, 3, "b", "c", false),
            ],
            "the file holds games of 3 engines (a, b, c)",
        ),
    ];
    for (name, games, why) in cases {
        let csv = write_run(&dir.path().join(name), &games);
        // `report` refuses it alike, writing no page.
        let page = dir.path().join(format!("{name}.html"));
        for command in ["elo", "report"] {
            let mut args = vec![command, "--sprt", "elo0=0 elo1=5", csv.to_str().unwrap()];
            if command == "report" {
                args.extend(["--out", page.to_str().unwrap()]);
            }
            let output = bt_arena(&args);
            assert_eq!(output.status.code(), Some(3), "{command} {name}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains(&format!(
                    "--sprt needs the games of exactly two engines; {why}"
                )),
                "{command} {name}: {stderr}"
            );
            assert!(output.stdout.is_empty(), "{command} {name}");
        }
        assert!(!page.exists(), "{name}");
    }
}

/// `--sprt` takes one word, comma-separated, or one quoted string, before or after the files;
/// separate words (fastchess's form) work too, silently.
#[test]
fn sprt_takes_tokens_or_one_string() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write_run(dir.path(), &pairs());
    let csv = csv.to_str().unwrap();
    let reference = bt_arena(&["elo", "--sprt", "elo0=0 elo1=5 alpha=0.1", csv]);
    assert_eq!(reference.status.code(), Some(2));
    let sprt: Sprt = "elo0=0 elo1=5 alpha=0.1".parse().unwrap();
    let llr = sprt.llr_pentanomial(&[1, 0, 2, 0, 3].into());
    let line = sprt.report(llr);
    // alpha=0.1 with the default beta=0.05: LLR bounds ln(beta / (1 - alpha)) = -2.89 and
    // ln((1 - beta) / alpha) = 2.25 (fishtest's), not the default's +-2.94.
    let (lower, upper) = ((0.05f64 / 0.9).ln(), (0.95f64 / 0.1).ln());
    assert_eq!(
        line.to_string(),
        format!("LLR: {llr:.2} (-2.89, 2.25) [0.00, 5.00]")
    );
    let text = String::from_utf8_lossy(&reference.stdout);
    assert!(text.contains(&format!("{line}\n")), "{text}");
    for args in [
        vec!["elo", "--sprt", "elo0=0", "elo1=5", "alpha=0.1", csv],
        vec!["elo", csv, "--sprt", "elo0=0", "elo1=5", "alpha=0.1"],
        vec!["elo", "--sprt", "elo0=0 elo1=5", "alpha=0.1", csv, "--json"],
    ] {
        let output = bt_arena(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        if args.last() != Some(&"--json") {
            assert_eq!(output.stdout, reference.stdout, "{args:?}");
            continue;
        }
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let status = &json["pairs"][0]["sprt"];
        let close = |key: &str, value: f64| {
            status[key]
                .as_f64()
                .is_some_and(|got| (got - value).abs() < 1e-12)
        };
        assert!(close("lower", lower) && close("upper", upper), "{status}");
        assert!(close("elo0", 0.0) && close("elo1", 5.0), "{status}");
        assert_eq!(status["llr"].as_f64(), Some(llr), "{status}");
        assert_eq!(status["decision"], "Continue", "{status}");
    }
    // The files are still required, and a bad token is named.
    let output = bt_arena(&["elo", "--sprt", "elo0=0", "elo1=5"]);
    assert_eq!(output.status.code(), Some(3));
    let output = bt_arena(&["elo", "--sprt", "elo0=0,gamma=1", csv]);
    assert_eq!(output.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&output.stderr).contains("`gamma=1`"));
    // As separate words, only the SPRT's own keys are joined: gamma=1 is a file, and the
    // specification lacks elo1.
    let output = bt_arena(&["elo", "--sprt", "elo0=0", "gamma=1", csv]);
    assert_eq!(output.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&output.stderr).contains("lacks `elo1=`"));
}
