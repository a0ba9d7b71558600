//! `bt-arena perft-check` with real engine processes: each planted perft bug of bt-faulty is
//! found at the exact position and move (the expectations are computed from the rules here, and
//! the paths were checked by hand), correct engines pass, and failures get their exit codes.

use bt_arena::rules::{Color, IllegalReason, Move, Position, Rules};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

use crate::util::{FAULTY, RANDOM, bt_arena, bt_arena_command, fairy_stockfish};

/// Runs `bt-arena perft-check` with `args` from the crate's directory.
fn perft_check(args: &[&str]) -> Output {
    bt_arena(&[&["perft-check"], args].concat())
}

/// The `--engine` tokens of bt-faulty with `fault`.
fn faulty(fault: &str) -> [String; 2] {
    [format!("cmd={FAULTY}"), format!("args=--fault {fault}")]
}

/// Runs a check with `--json`, asserts its exit code and returns the report.
fn json_check(engine: &[String], args: &[&str], code: i32) -> Value {
    let mut all: Vec<&str> = vec!["--json", "--engine"];
    all.extend(engine.iter().map(String::as_str));
    all.extend(args);
    let output = perft_check(&all);
    assert_eq!(output.status.code(), Some(code), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("a JSON report")
}

/// The only checked position's fault.
fn only_fault(report: &Value) -> &Value {
    assert_eq!(report["positions"].as_array().map(Vec::len), Some(1));
    let fault = &report["positions"][0]["fault"];
    assert!(fault.is_object(), "no fault in {report:#}");
    fault
}

fn position(text: &str) -> Position {
    text.parse().expect("a position")
}

fn path_moves(fault: &Value) -> Vec<&str> {
    let path = fault["path"].as_array().expect("a path");
    path.iter()
        .filter_map(|step| step["move"].as_str())
        .collect()
}

/// The position after playing `moves` (checked by the rules) from `start`.
fn replay(start: Position, moves: &[&str], rules: Rules) -> Position {
    moves.iter().fold(start, |position, text| {
        let mv = position.parse_move(rules, text).expect("a legal move");
        position.play_unchecked(mv)
    })
}

/// The problems of `kind` as (move, reason) pairs.
fn problems(fault: &Value, kind: &str) -> BTreeSet<(String, String)> {
    let all = fault["problems"].as_array().expect("problems");
    all.iter()
        .filter(|problem| problem["kind"] == kind)
        .map(|problem| {
            let text = |key: &str| problem[key].as_str().unwrap_or_default().to_string();
            (text("move"), text("reason"))
        })
        .collect()
}

fn moves_with_reason(
    moves: impl IntoIterator<Item = Move>,
    reason: impl Fn(Move) -> String,
) -> BTreeSet<(String, String)> {
    moves
        .into_iter()
        .map(|mv| (mv.to_string(), reason(mv)))
        .collect()
}

#[test]
fn a_missing_edge_capture_is_found_four_plies_down() {
    let report = json_check(&faulty("perft-missing-edge-capture"), &[], 1);
    let fault = only_fault(&report);
    // From the start, the first capture is on ply 5; the walk follows the smallest miscounted
    // subtree: the a-pawn meets the b-pawn.
    let path = path_moves(fault);
    assert_eq!(path, ["a2a3", "b7b6", "a3a4", "b6b5"]);
    let here = replay(Position::startpos(), &path, Rules::CaptureOnly);
    assert_eq!(fault["position"], here.to_string());
    assert_eq!(
        fault["position"],
        "pppppppp/p1pppppp/8/1p6/P7/8/1PPPPPPP/PPPPPPPP w"
    );
    assert_eq!(fault["depth"], 1);
    let on_edge = |mv: Move| {
        [mv.from, mv.to]
            .iter()
            .any(|s| s.file() == 0 || s.file() == 7)
    };
    let edge_captures = here
        .legal_moves(Rules::CaptureOnly)
        .iter()
        .filter(|&mv| here.is_capture(mv) && on_edge(mv));
    let expected = moves_with_reason(edge_captures, |_| "legal: a capture".to_string());
    assert_eq!(problems(fault, "missed"), expected);
    assert_eq!(expected.len(), 1, "a4b5 only");
    assert_eq!(fault["problems"].as_array().map(Vec::len), Some(1));
    assert!(report["positions"][0]["first_perft_ms"].as_f64() > Some(0.0));

    let mut args = vec!["--engine".to_string()];
    args.extend(faulty("perft-missing-edge-capture"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = perft_check(&args);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("FAIL start position"), "{text}");
    assert!(
        text.contains("walk-down a2a3: expected 6264, engine 6263"),
        "{text}"
    );
    assert!(
        text.contains("fault after a2a3 b7b6 a3a4 b6b5: pppppppp/p1pppppp/8/1p6/P7/8/1PPPPPPP/PPPPPPPP w depth 1"),
        "{text}"
    );
    assert!(
        text.contains("the engine misses a4b5 (expected 1), legal: a capture"),
        "{text}"
    );
    assert!(
        text.contains("1 position checked: 0 passed, 1 failed"),
        "{text}"
    );
}

#[test]
fn diagonal_steps_to_empty_squares_are_illegal_at_the_root() {
    let report = json_check(&faulty("perft-diagonal-empty"), &["--depth", "3"], 1);
    let fault = only_fault(&report);
    let start = Position::startpos();
    assert_eq!(fault["position"], start.to_string());
    assert!(path_moves(fault).is_empty());
    assert_eq!(fault["depth"], 3);
    let capture_only = start.legal_moves(Rules::CaptureOnly);
    let diagonal_to_empty = start
        .legal_moves(Rules::Classic)
        .iter()
        .filter(|&mv| !capture_only.contains(mv));
    let expected = moves_with_reason(diagonal_to_empty, |_| {
        IllegalReason::DiagonalToEmpty.to_string()
    });
    assert_eq!(expected.len(), 14);
    assert!(expected.contains(&(
        "a2b3".to_string(),
        "diagonal move to an empty square under capture-only rules".to_string()
    )));
    assert_eq!(problems(fault, "illegal"), expected);
    assert!(problems(fault, "missed").is_empty());
}

/// Writes a one-line suite into `dir` and returns its path as a string.
fn suite(dir: &Path, line: &str) -> String {
    let path = dir.join("suite.epd");
    std::fs::write(&path, format!("# a test position\n{line}\n")).expect("the suite is written");
    path.display().to_string()
}

#[test]
fn moves_after_the_end_of_the_game_are_illegal_because_it_is_over() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // White's a7a8 wins; the faulty engine lets Black answer h2h1.
    let suite = suite(dir.path(), "8/P7/8/8/8/8/7p/8 w ;D1 1 ;D2 0");
    let report = json_check(&faulty("perft-after-game-over"), &["--suite", &suite], 1);
    let fault = only_fault(&report);
    assert_eq!(report["positions"][0]["source"], "suite line 2");
    assert_eq!(path_moves(fault), ["a7a8"]);
    assert_eq!(fault["path"][0]["expected"], 0);
    assert_eq!(fault["path"][0]["reported"], 1);
    let here = replay(
        position("8/P7/8/8/8/8/7p/8 w"),
        &["a7a8"],
        Rules::CaptureOnly,
    );
    assert_eq!(fault["position"], here.to_string());
    assert_eq!(fault["position"], "P7/8/8/8/8/8/7p/8 b");
    let h2h1: Move = "h2h1".parse().expect("a move");
    let reason = here
        .check_move(Rules::CaptureOnly, h2h1)
        .expect_err("the game is over")
        .reason
        .to_string();
    assert_eq!(reason, "the game is already over: White reached rank 8");
    assert_eq!(
        problems(fault, "illegal"),
        BTreeSet::from([("h2h1".to_string(), reason)])
    );
}

#[test]
fn seeded_random_games_reach_the_after_game_over_bug() {
    let engine = faulty("perft-after-game-over");
    let args = ["--random", "10", "--seed", "1"];
    let report = json_check(&engine, &args, 1);
    assert_eq!(report["seed"], 1);
    let positions = report["positions"].as_array().expect("positions");
    assert_eq!(positions.len(), 10);
    let faults: Vec<&Value> = positions
        .iter()
        .map(|checked| &checked["fault"])
        .filter(|fault| fault.is_object())
        .collect();
    assert!(!faults.is_empty(), "{report:#}");
    for fault in faults {
        let here = position(fault["position"].as_str().expect("a position"));
        let outcome = here.outcome(Rules::CaptureOnly).expect("a finished game");
        let reason = format!("the game is already over: {outcome}");
        let illegal = problems(fault, "illegal");
        assert!(!illegal.is_empty());
        assert!(illegal.iter().all(|(_, why)| *why == reason), "{fault:#}");
    }
    // The same seed gives the same positions and faults (timings aside).
    let again = json_check(&engine, &args, 1);
    let findings = |report: &Value| -> Vec<String> {
        let positions = report["positions"].as_array().cloned().unwrap_or_default();
        positions
            .iter()
            .map(|checked| {
                format!(
                    "{} {} {}",
                    checked["source"], checked["position"], checked["fault"]
                )
            })
            .collect()
    };
    assert_eq!(findings(&again), findings(&report));
}

#[test]
fn a_generator_for_the_wrong_side_is_found_one_ply_down() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Black has 8 pawns (bt-faulty's default trigger) and 4 moves; White has 8.
    let start = "pppp4/pppp4/8/8/8/8/PPPPPPPP/8 w";
    let suite = suite(dir.path(), &format!("{start} ;D1 8 ;D2 32"));
    let report = json_check(&faulty("perft-wrong-side"), &["--suite", &suite], 1);
    let fault = only_fault(&report);
    // Every White move shows 8 instead of 4: the first in move order is followed.
    assert_eq!(path_moves(fault), ["a2a3"]);
    let here = replay(position(start), &["a2a3"], Rules::CaptureOnly);
    assert_eq!(fault["position"], here.to_string());
    assert_eq!(fault["position"], "pppp4/pppp4/8/8/8/P7/1PPPPPPP/8 b");
    let (white, black) = (here.pawns(Color::White), here.pawns(Color::Black));
    let white_to_move = Position::new(white, black, Color::White).expect("a position");
    let whites_moves = white_to_move.legal_moves(Rules::CaptureOnly);
    let expected_illegal =
        moves_with_reason(whites_moves, |mv| format!("no Black pawn on {}", mv.from));
    assert_eq!(expected_illegal.len(), 8);
    assert_eq!(problems(fault, "illegal"), expected_illegal);
    let expected_missed = moves_with_reason(here.legal_moves(Rules::CaptureOnly), |_| {
        "legal: a straight step".to_string()
    });
    assert_eq!(expected_missed.len(), 4);
    assert_eq!(problems(fault, "missed"), expected_missed);
}

#[test]
fn an_illegal_bestmove_fails_the_check_though_perft_matches() {
    let report = json_check(&faulty("illegal-move"), &["--depth", "2"], 1);
    let checked = &report["positions"][0];
    assert!(checked["fault"].is_null());
    assert_eq!(checked["expected"], 64);
    assert_eq!(checked["reported"], 64);
    // bt-faulty plays the first move of the side not to move.
    assert_eq!(checked["bestmove"]["move"], "a7a6");
    assert_eq!(
        checked["bestmove"]["problem"],
        "illegal: no White pawn on a7"
    );
    assert_eq!(report["failed"], 1);
}

#[test]
fn bt_random_passes_the_start_suites_and_random_positions() {
    let engine = [format!("cmd={RANDOM}")];
    let report = json_check(&engine, &[], 0);
    assert_eq!(report["positions"][0]["source"], "start position");
    assert_eq!(report["positions"][0]["expected"], 50118);
    assert_eq!(report["positions"][0]["reported"], 50118);

    let args = [
        "--suite",
        "tests/perft/capture-only.epd",
        "--random",
        "5",
        "--seed",
        "7",
    ];
    let report = json_check(&engine, &args, 0);
    assert_eq!(
        (&report["seed"], &report["passed"]),
        (&7.into(), &19.into())
    );
    assert_eq!(report["failed"], 0);
    let positions = report["positions"].as_array().expect("positions");
    assert_eq!(positions.len(), 14 + 5);
    // The seed's five random games, each cut at a ply, counted right (by our perft) and
    // reported so.
    let sources: Vec<&str> = positions[14..]
        .iter()
        .map(|p| p["source"].as_str().unwrap())
        .collect();
    assert_eq!(
        sources,
        [
            "random game 1, ply 11",
            "random game 2, ply 72",
            "random game 3, ply 12",
            "random game 4, ply 70",
            "random game 5, ply 76"
        ]
    );
    for checked in positions {
        let at = position(checked["position"].as_str().unwrap());
        let depth = checked["depth"].as_u64().unwrap() as u32;
        let count =
            bt_arena::rules::perft::perft(&at, Rules::CaptureOnly, depth, Default::default());
        assert_eq!(checked["expected"], count, "{checked}");
        assert_eq!(checked["reported"], count, "{checked}");
    }

    let args = [
        "--rules",
        "classic",
        "--suite",
        "tests/perft/classic.epd",
        "--depth",
        "4",
    ];
    let report = json_check(&engine, &args, 0);
    assert_eq!(report["passed"], 6);
}

#[test]
fn a_suite_saved_with_a_byte_order_mark_is_read() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("bom.epd");
    std::fs::write(&path, "\u{feff}startpos ;D1 8 ;D2 64\n").expect("the suite is written");
    let engine = [format!("cmd={RANDOM}")];
    let report = json_check(&engine, &["--suite", path.to_str().unwrap()], 0);
    assert_eq!(report["positions"][0]["source"], "suite line 1");
    assert_eq!(report["positions"][0]["reported"], 64);
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_passes_under_classic_rules() {
    let cmd = fairy_stockfish();
    let engine = [format!("cmd={}", cmd.display()), "proto=uci".to_string()];
    let args = [
        "--rules",
        "classic",
        "--depth",
        "4",
        "--suite",
        "tests/perft/classic.epd",
        "--random",
        "3",
    ];
    let report = json_check(&engine, &args, 0);
    assert_eq!(report["passed"], 6 + 3);
    let report = json_check(&engine, &["--rules", "classic", "--depth", "4"], 0);
    assert_eq!(report["positions"][0]["expected"], 256036);
}

#[test]
fn an_engine_that_crashes_mid_check_is_an_error() {
    let engine = "args=--fault crash-mid-game --after 2";
    let output = perft_check(&[
        "--engine",
        &format!("cmd={FAULTY}"),
        engine,
        "--random",
        "5",
        "--seed",
        "3",
    ]);
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches("\nok   random game").count(), 2, "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("error: while checking random game 3, ply "),
        "{stderr}"
    );
    assert!(stderr.contains("engine 'bt-faulty': crashed"), "{stderr}");
    assert!(stderr.contains("crashing after 2 moves"), "{stderr}");
}

#[test]
fn a_perft_that_takes_too_long_suggests_a_lower_depth() {
    // bt-faulty's naive generator needs about a minute for depth 9; the reference, a fraction
    // of a second.
    let output = perft_check(&[
        "--engine",
        &format!("cmd={FAULTY}"),
        "--depth",
        "9",
        "--timeout",
        "1",
    ]);
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.ends_with(
            "error: while checking start position (pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w) \
             at depth 9: engine 'bt-faulty': no perft total within 1000 ms; perft counts grow \
             about tenfold with each ply: try a lower --perft-depth (or a longer --timeout)\n"
        ),
        "{stderr}"
    );
}

#[test]
fn bad_command_lines_suites_and_engines_get_their_exit_codes() {
    let random = format!("cmd={RANDOM}");
    let cases: [(&[&str], i32, &str); 6] = [
        (
            &["--engine", &random, "colour=red"],
            3,
            "unknown engine key 'colour'",
        ),
        (
            &["--engine", &random, "--depth", "0"],
            3,
            "invalid value '0' for '--perft-depth <PLIES>': 0 is not in 1..=64",
        ),
        (&["--engine", &random, "--seed", "1"], 3, "--random"),
        (
            &["--engine", "cmd=/no/such/engine"],
            3,
            "error: engine 'engine': executable /no/such/engine not found",
        ),
        (
            &["--engine", &random, "--suite", "tests/perft/classic.epd"],
            4,
            "suite line 6: D6 lists 149264638, but the capture-only rules count 484684; \
             the classic rules give that count: a suite for classic rules? (try --rules classic)\n",
        ),
        (
            &["--engine", &random, "--suite", "no/such.epd"],
            4,
            "cannot read perft suite no/such.epd",
        ),
    ];
    for (args, code, message) in cases {
        let output = perft_check(args);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }

    // A suite with no position checks nothing: an error, not a pass.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let empty = dir.path().join("empty.epd");
    std::fs::write(&empty, "# nothing here\n").expect("the suite is written");
    let output = perft_check(&["--engine", &random, "--suite", empty.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("holds no position"), "{stderr}");

    // A count no rule set gives gets no hint about rule sets.
    let wrong = suite(dir.path(), "startpos ;D2 65");
    let output = perft_check(&["--engine", &random, "--suite", &wrong]);
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.ends_with("suite line 2: D2 lists 65, but the capture-only rules count 64\n"),
        "{stderr}"
    );
}

/// `bt-arena COMMAND... | head -1`: reads one line of stdout, closes the pipe and returns the
/// exit code and stderr of the rest of the run.
fn first_line_then_close(args: &[&str]) -> (Option<i32>, String) {
    use std::io::{BufRead, BufReader, Read};
    let mut child = bt_arena_command(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(!line.is_empty());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), stderr)
}

/// A closed stdout (`| head -1`) does not kill the commands that drive engines with a panic:
/// they finish, quit the engine and exit with their verdict.
#[test]
fn a_closed_stdout_is_not_a_crash() {
    let engine = format!("cmd={RANDOM}");
    for args in [
        vec![
            "perft-check",
            "--engine",
            &engine,
            "--random",
            "20",
            "--seed",
            "7",
        ],
        vec![
            "check-engine",
            "--engine",
            &engine,
            "--only",
            "handshake,positions",
        ],
    ] {
        let (code, stderr) = first_line_then_close(&args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Totals that agree over moves that differ: the headline says so, not `expected 1, engine 1`
/// under a FAIL. Black to move with one pawn: bt-faulty's `perft-wrong-side` lists White's
/// one move for Black's one.
// See: issue 39, item 8.
#[test]
fn a_headline_of_equal_totals_over_different_moves_says_the_moves_differ() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let suite = suite(dir.path(), "p7/8/8/8/8/8/8/P7 b ;D1 1");
    let output = perft_check(&[
        "--engine",
        &format!("cmd={FAULTY}"),
        "args=--fault perft-wrong-side --pawns 1",
        "--suite",
        &suite,
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let headline = text
        .lines()
        .find(|line| line.starts_with("FAIL "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        headline.contains(
            ": p7/8/8/8/8/8/8/P7 b depth 1: total 1 as expected, but the moves differ (first perft "
        ),
        "{headline}"
    );
    assert!(
        text.contains("    the engine misses a8a7 (expected 1), legal: a straight step"),
        "{text}"
    );
}

/// A generator that takes 8×8's file mask on every board: right on 8×8 and under capture-only
/// rules (no enemy pawn stands off the board), found at the root on a board of 6 files under
/// classic rules, each extra move named with the square off the board.
#[test]
fn a_file_mask_taken_from_8x8_is_found_only_on_a_narrower_board() {
    let engine = faulty("perft-file-mask-8x8");
    let passed = json_check(&engine, &["--rules", "classic", "--depth", "3"], 0);
    assert_eq!(passed["failed"], 0);
    let args = ["--board", "6x6", "--depth", "3"];
    let passed = json_check(&engine, &args, 0);
    assert_eq!(passed["failed"], 0);
    let report = json_check(
        &engine,
        &["--rules", "classic", "--board", "6x6", "--depth", "3"],
        1,
    );
    let fault = only_fault(&report);
    assert_eq!(fault["position"], "pppppp/pppppp/6/6/PPPPPP/PPPPPP w");
    assert_eq!(fault["depth"], 3);
    assert!(path_moves(fault).is_empty());
    let off = |square: &str| format!("{square} is off the 6x6 board (files a-f, ranks 1-6)");
    let expected: BTreeSet<(String, String)> = [
        ("f1g2".to_string(), off("g2")),
        ("f2g3".to_string(), off("g3")),
    ]
    .into();
    assert_eq!(problems(fault, "illegal"), expected, "{fault:#}");
    assert_eq!(fault["problems"].as_array().map(Vec::len), Some(2));
    // The text names the board.
    let mut all = vec!["--engine".to_string()];
    all.extend(engine);
    all.extend(["--rules", "classic", "--board", "6x6", "--depth", "2"].map(String::from));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let output = perft_check(&all);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("perft-check of ")
            && text
                .lines()
                .next()
                .unwrap()
                .contains(" on 6x6 under classic rules: 1 position"),
        "{text}"
    );
    assert!(
        text.contains("the engine lists f2g3 (18), which is illegal: g3 is off the 6x6 board"),
        "{text}"
    );
}
