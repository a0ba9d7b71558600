//! Exact perft counts for both rule sets, from the shipped suites (computed by an independent
//! implementation), through the library and through the `bt-arena perft` command.

use bt_arena::rules::perft::{self, PerftOptions};
use bt_arena::rules::{Board, Rules};

use crate::util::bt_arena;

fn suite(rules: Rules) -> Vec<perft::SuiteEntry> {
    let path = format!(
        "{}/tests/perft/{}.epd",
        env!("CARGO_MANIFEST_DIR"),
        rules.name()
    );
    let text = std::fs::read_to_string(&path).unwrap();
    perft::parse_suite(&text, Board::STANDARD).unwrap()
}

fn check_suite(rules: Rules, options: PerftOptions) {
    let entries = suite(rules);
    assert!(entries.len() >= 6);
    for entry in entries {
        for (depth, expected) in entry.expected {
            let actual = perft::perft(&entry.position, rules, depth, options);
            assert_eq!(actual, expected, "line {} D{depth}", entry.line);
        }
    }
}

#[test]
fn capture_only_counts_match_the_reference() {
    check_suite(
        Rules::CaptureOnly,
        PerftOptions {
            threads: 2,
            hash_mb: 0,
        },
    );
}

#[test]
fn classic_counts_match_the_reference() {
    check_suite(
        Rules::Classic,
        PerftOptions {
            threads: 2,
            hash_mb: 0,
        },
    );
}

#[test]
fn counts_through_the_transposition_table_match_the_reference() {
    check_suite(
        Rules::Classic,
        PerftOptions {
            threads: 1,
            hash_mb: 16,
        },
    );
    let start = bt_arena::rules::Position::startpos();
    let hashed = PerftOptions {
        threads: 2,
        hash_mb: 64,
    };
    assert_eq!(
        perft::perft(&start, Rules::CaptureOnly, 11, hashed),
        64_204_687_182
    );
}

#[test]
fn the_command_prints_counts_per_depth_and_divide() {
    let output = bt_arena(&["perft", "4"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let counts: Vec<&str> = text
        .lines()
        .skip(2)
        .map(|line| line.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(counts, ["8", "64", "576", "5184"]);

    let output = bt_arena(&["perft", "--divide", "--rules", "classic", "2"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("a2a3: 22\n"), "{text}");
    assert!(text.contains("\ntotal: 484\n"), "{text}");
}

#[test]
fn the_command_gives_json() {
    let output = bt_arena(&["perft", "--json", "--divide", "3"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["total"], 576);
    assert_eq!(report["moves"][0]["move"], "a2a3");
    assert_eq!(report["rules"], "capture-only");
    let output = bt_arena(&["perft", "--json", "2"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["depths"][1]["nodes"], 64);
}

#[test]
fn the_command_checks_suites_and_fails_on_a_mismatch() {
    let output = bt_arena(&["perft", "--suite", "tests/perft/capture-only.epd", "7"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    // Every line of the suite, each at its depths up to 7.
    let entries = suite(Rules::CaptureOnly);
    let checks: usize = entries
        .iter()
        .map(|entry| {
            entry
                .expected
                .iter()
                .filter(|(depth, _)| *depth <= 7)
                .count()
        })
        .sum();
    assert_eq!((entries.len(), checks), (14, 81));
    assert!(
        text.ends_with("\n14 lines, 81 checks: 81 passed, 0 failed\n"),
        "{text}"
    );
    assert_eq!(text.matches("  ok (").count(), 14, "{text}");

    // The capture-only suite checked under classic rules must fail, with exit code 1.
    let output = bt_arena(&[
        "perft",
        "--rules",
        "classic",
        "--suite",
        "tests/perft/capture-only.epd",
        "3",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("FAIL: D1 expected 8 got 22"), "{text}");
    // ... with the hint perft-check gives for a suite of the other rule set.
    let hint = "line 7 D1: the capture-only rules give that count: \
                a suite for capture-only rules? (try --rules capture-only)";
    assert!(
        text.ends_with(&format!(" failed\nhint: {hint}\n")),
        "{text}"
    );
    let output = bt_arena(&[
        "perft",
        "--json",
        "--rules",
        "classic",
        "--suite",
        "tests/perft/capture-only.epd",
        "1",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["hint"], hint);

    // A count no rule set gives is a plain failure.
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong.epd");
    std::fs::write(&wrong, "startpos ;D1 8 ;D2 65\n").unwrap();
    let output = bt_arena(&["perft", "--suite", wrong.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.ends_with("FAIL: D2 expected 65 got 64\n1 lines, 2 checks: 1 passed, 1 failed\n"),
        "{text}"
    );
    let output = bt_arena(&["perft", "--json", "--suite", wrong.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report.get("hint"), None);
}

#[test]
fn a_suite_saved_with_a_byte_order_mark_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("bom.epd");
    std::fs::write(&suite, "\u{feff}startpos ;D1 8 ;D2 64\n").unwrap();
    let output = bt_arena(&["perft", "--suite", suite.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.ends_with("1 lines, 2 checks: 2 passed, 0 failed\n"),
        "{text}"
    );
}

#[test]
fn bad_input_gets_a_clear_error_and_exit_code() {
    let output = bt_arena(&["perft", "--fen", "8/8/8/8/8/8/8/K7 w", "3"]);
    assert_eq!(output.status.code(), Some(3));
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(text.contains("unknown character 'K' in rank 1"), "{text}");

    let output = bt_arena(&["perft", "--suite", "no/such/suite.epd"]);
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(
        text.contains("cannot read perft suite no/such/suite.epd"),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.epd");
    std::fs::write(&bad, "startpos ;D1 8\nstartpos ;D2 sixty-four\n").unwrap();
    let output = bt_arena(&["perft", "--suite", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4));
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(text.contains("line 2: bad field 'D2 sixty-four'"), "{text}");

    let empty = dir.path().join("empty.epd");
    std::fs::write(&empty, "# nothing\n").unwrap();
    let output = bt_arena(&["perft", "--suite", empty.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("holds no position")
    );

    let output = bt_arena(&["perft"]);
    assert_eq!(
        output.status.code(),
        Some(3),
        "a missing depth is a bad command line"
    );
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("the following required arguments were not provided:\n  <DEPTH>")
    );
    let output = bt_arena(&["perft", "--rules", "chess", "2"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("unknown rule set 'chess'")
    );
    let output = bt_arena(&["perft", "--threads", "0", "2"]);
    assert_eq!(output.status.code(), Some(3));
}
