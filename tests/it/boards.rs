//! Every board from 4×4 to 8×8 (`--board RxC`): perft against the tables of
//! `tests/perft/boards/` (written by `scripts/perft-boards.py`, a move generator of its own),
//! through the library and through `bt-arena perft`, and the errors of a bad size or a FEN of
//! another shape.

use bt_arena::rules::perft::{self, PerftOptions};
use bt_arena::rules::{Board, Position, Rules};

use crate::util::bt_arena;

/// The path of the perft table of `board` under `rules`, from the crate's directory.
fn table_path(board: Board, rules: Rules) -> String {
    format!("tests/perft/boards/{board}-{}.epd", rules.name())
}

fn table(board: Board, rules: Rules) -> Vec<perft::SuiteEntry> {
    let path = format!(
        "{}/{}",
        env!("CARGO_MANIFEST_DIR"),
        table_path(board, rules)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    perft::parse_suite(&text, board).unwrap()
}

#[test]
fn perft_of_every_board_under_both_rules_equals_its_table() {
    let mut checked = 0;
    for board in Board::all() {
        for rules in Rules::ALL {
            let entries = table(board, rules);
            assert_eq!(entries.len(), 3, "{board} {rules}");
            assert_eq!(entries[0].position, Position::start(board));
            for entry in &entries {
                for &(depth, expected) in &entry.expected {
                    let count =
                        perft::perft(&entry.position, rules, depth, PerftOptions::default());
                    assert_eq!(
                        count, expected,
                        "{board} {rules} {} D{depth}",
                        entry.position
                    );
                    checked += 1;
                }
            }
        }
    }
    // 25 boards, 2 rule sets, 3 positions each, their depths.
    assert_eq!(checked, 806);
}

#[test]
fn threads_and_the_table_count_the_same_on_a_small_board() {
    let board: Board = "6x5".parse().unwrap();
    let start = Position::start(board);
    for rules in Rules::ALL {
        let plain = perft::perft(&start, rules, 6, PerftOptions::default());
        let shared = PerftOptions {
            threads: 2,
            hash_mb: 1,
        };
        assert_eq!(perft::perft(&start, rules, 6, shared), plain, "{rules}");
    }
}

#[test]
fn the_command_counts_and_checks_suites_on_any_board() {
    let output = bt_arena(&[
        "perft", "--board", "6x5", "--rules", "classic", "--json", "3",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["board"], "6x5");
    assert_eq!(report["position"], "ppppp/ppppp/5/5/PPPPP/PPPPP w");
    assert_eq!(report["depths"][2]["nodes"], 2331);
    let output = bt_arena(&["perft", "--board", "5x7", "1"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with(
            "perft of ppppppp/ppppppp/7/PPPPPPP/PPPPPPP w on 5x7 under capture-only rules\n"
        ),
        "{text}"
    );
    let path = table_path("7x4".parse().unwrap(), Rules::Classic);
    let output = bt_arena(&[
        "perft", "--board", "7x4", "--rules", "classic", "--suite", &path,
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains(" 0 failed\n"), "{text}");
    // The table of one board read for another: the line and the rank that does not fit.
    let output = bt_arena(&["perft", "--board", "7x5", "--suite", &path]);
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(
        error.contains(&format!("bad perft suite {path}"))
            && error.contains(
                "line 3: bad position: rank 7 describes 4 squares, expected 5 (a 7x5 board)"
            ),
        "{error}"
    );
}

#[test]
fn a_bad_board_size_or_a_fen_of_another_shape_is_refused_naming_it() {
    for (size, reason) in [
        (
            "9x9",
            "a board of 9 ranks is not supported: ranks and files go from 4 to 8",
        ),
        (
            "3x8",
            "a board of 3 ranks is not supported: ranks and files go from 4 to 8",
        ),
        (
            "8",
            "bad board size '8': expected RANKSxFILES, e.g. 6x6 or 6x5 (each 4 to 8)",
        ),
    ] {
        let output = bt_arena(&["perft", "--board", size, "2"]);
        assert_eq!(output.status.code(), Some(3), "{size}");
        let error = String::from_utf8(output.stderr).unwrap();
        assert!(
            error.contains(&format!(
                "invalid value '{size}' for '--board <RxC>': {reason}"
            )),
            "{error}"
        );
    }
    let output = bt_arena(&[
        "perft",
        "--board",
        "6x6",
        "--fen",
        "ppppp/ppppp/5/5/PPPPP/PPPPP w",
        "2",
    ]);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(
        error.contains(
            "--fen 'ppppp/ppppp/5/5/PPPPP/PPPPP w' is no position of the 6x6 board: \
             rank 6 describes 5 squares, expected 6 (a 6x6 board)"
        ),
        "{error}"
    );
}
