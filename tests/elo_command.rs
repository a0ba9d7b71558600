//! `bt-arena elo` on games.csv files written by the library: text and JSON reports, shards,
//! SPRT, and the exit codes for a missing file, a malformed row and a bad command line.

use bt_arena::results::{GameRecord, GameResult, ResultsWriter, Termination};
use bt_arena::rules::Rules;
use bt_arena::stats::{Sprt, elo_pentanomial};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bt_arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args)
        .output()
        .unwrap()
}

fn game(game_id: u64, pair: u64, white: &str, black: &str, white_wins: bool) -> GameRecord {
    GameRecord {
        game_id,
        round: 1,
        pair,
        opening_id: pair,
        opening: "startpos".into(),
        white: white.into(),
        black: black.into(),
        result: if white_wins {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        },
        termination: Termination::GoalRank,
        plies: 2,
        moves: "a2a3 a7a6".into(),
        white_ms: 10,
        black_ms: 10,
        started: "2026-11-30T12:00:00Z".into(),
        white_stray: 0,
        black_stray: 0,
    }
}

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

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
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
    let elo = elo_pentanomial(&[1, 0, 2, 0, 3]);
    assert!(text.starts_with("Games: 12\n"), "{text}");
    assert!(text.contains("Results of new vs base:\n"), "{text}");
    assert!(
        text.contains(&format!(
            "Elo: {:+.2} +/- {:.2}, LOS: {:.2}%\n",
            elo.elo,
            elo.error95,
            100.0 * elo.los
        )),
        "{text}"
    );
    assert!(text.contains("Games: 12, Wins: 8, Losses: 4, Score: 66.67%\n"));
    assert!(text.contains("Ptnml(0-2): [1, 0, 2, 0, 3], 6 pairs\n"));
    let sprt: Sprt = sprt.parse().unwrap();
    let line = sprt.report(sprt.llr_pentanomial(&[1, 0, 2, 0, 3]));
    assert!(text.contains(&format!("{line}\n")), "{text}");
    let rank_one = text.lines().find(|l| l.starts_with("   1 ")).unwrap();
    assert!(rank_one.contains(" new "), "{rank_one}");
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
    }
    let second = write_run(two.path(), &rest);
    let output = bt_arena(&[
        "elo",
        "--json",
        first.to_str().unwrap(),
        second.to_str().unwrap(),
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["games"], 12);
    assert_eq!(json["engines"], serde_json::json!(["new", "base"]));
    let pair = &json["pairs"][0];
    assert_eq!(
        (pair["wins"].as_u64(), pair["losses"].as_u64()),
        (Some(8), Some(4))
    );
    assert_eq!(pair["pentanomial"], serde_json::json!([1, 0, 2, 0, 3]));
    let elo = elo_pentanomial(&[1, 0, 2, 0, 3]);
    assert!((pair["elo"]["elo"].as_f64().unwrap() - elo.elo).abs() < 1e-9);
    assert!(pair["sprt"].is_null());
    assert_eq!(json["standings"][0]["name"], "new");
    assert_eq!(json["standings"][0]["wins"], 8);

    // The same file twice: pairs stay within a file, so the counts double.
    let output = bt_arena(&[
        "elo",
        "--json",
        first.to_str().unwrap(),
        first.to_str().unwrap(),
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        json["pairs"][0]["pentanomial"],
        serde_json::json!([0, 0, 0, 0, 6])
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
        "3,1,2,2,startpos,new,base,1-0,goal-rank,two,a2a3,1,1,2026-11-30T12:00:00Z,0,0\n",
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
