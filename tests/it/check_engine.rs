//! `bt-arena check-engine` run as a user runs it, against the bundled engines (every check
//! passes), Fairy-Stockfish, and each fault planted in bt-faulty (caught by the check made for
//! it). Faulty engines run only the group of their check (`--only`) with short timeouts, so the
//! file stays quick.

use serde_json::Value;

use crate::util::{FAULTY, RANDOM, SEARCH, bt_arena, fairy_stockfish};

/// A finished run: its exit code, the JSON report (when there is one), and stderr.
struct Run {
    code: i32,
    report: Value,
    stderr: String,
}

impl Run {
    /// The check with `id`.
    fn check(&self, id: &str) -> &Value {
        self.report["checks"]
            .as_array()
            .and_then(|checks| checks.iter().find(|c| c["id"] == id))
            .unwrap_or_else(|| panic!("no check {id} in {:#}", self.report))
    }

    /// The verdict of check `id`: `pass`, `fail`, `warn` or `skip`.
    fn verdict(&self, id: &str) -> &str {
        self.check(id)["verdict"].as_str().unwrap_or_default()
    }

    /// The summary of check `id`.
    fn summary(&self, id: &str) -> &str {
        self.check(id)["summary"].as_str().unwrap_or_default()
    }

    /// The ids of the checks with `verdict`.
    fn with_verdict(&self, verdict: &str) -> Vec<&str> {
        self.report["checks"]
            .as_array()
            .map(|checks| {
                checks
                    .iter()
                    .filter(|c| c["verdict"] == verdict)
                    .filter_map(|c| c["id"].as_str())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Asserts check `id` failed with a summary containing `text`.
    fn assert_fails(&self, id: &str, text: &str) {
        assert_eq!(self.verdict(id), "fail", "{id}: {:#}", self.check(id));
        assert!(
            self.summary(id).contains(text),
            "{id}: {:#}",
            self.check(id)
        );
        assert_eq!(self.code, 1, "{}", self.stderr);
    }
}

/// Runs `bt-arena check-engine --json` with `args`.
fn check_engine(args: &[&str]) -> Run {
    let output = bt_arena(&[&["check-engine", "--json"], args].concat());
    let stdout = String::from_utf8_lossy(&output.stdout);
    Run {
        code: output.status.code().unwrap_or(-1),
        report: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs bt-faulty with `fault` (and `extra` arguments) through the checks of `only`, with
/// short timeouts.
fn faulty(fault: &str, extra: &[&str], only: &str) -> Run {
    let cmd = format!("cmd={}", FAULTY);
    let args = format!("args=--fault {fault} {}", extra.join(" "));
    check_engine(&[
        "--engine",
        &cmd,
        &args,
        "handshake=1",
        "isready=1",
        "--only",
        only,
        "--timeout",
        "2",
    ])
}

/// Asserts every check of `run` passed, it has `count` checks, and the exit code is 0.
fn assert_all_pass(run: &Run, count: usize) {
    let not_passed: Vec<String> = run.report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["verdict"] != "pass")
        .map(|c| format!("{} {}: {}", c["verdict"], c["id"], c["summary"]))
        .collect();
    assert!(not_passed.is_empty(), "{not_passed:#?}");
    assert_eq!(run.report["checks"].as_array().map(Vec::len), Some(count));
    assert_eq!(run.report["failed"], 0);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn bt_search_passes_every_check_with_the_mini_match() {
    let cmd = format!("cmd={}", SEARCH);
    let run = check_engine(&["--engine", &cmd]);
    assert_all_pass(&run, 25);
    assert_eq!(run.report["engine"], "bt-search");
    assert_eq!(run.report["protocol"], "ugi");
    assert_eq!(run.report["rules"], "capture-only");
    assert!(
        run.summary("match.mini-match")
            .starts_with("4 games at tc=2+0.02 against bt-random: 4 won")
    );
    assert_eq!(
        run.summary("handshake.rules-option"),
        "Rules offers capture-only"
    );
    assert!(
        run.summary("positions.startpos-moves")
            .contains("after 96 plies of moves")
    );
    assert!(run.summary("output.pv-legal").contains("all legal"));
}

#[test]
fn bt_random_with_a_seed_passes_every_check_under_classic_rules_over_uci() {
    let cmd = format!("cmd={}", RANDOM);
    let run = check_engine(&[
        "--engine",
        &cmd,
        "proto=uci",
        "option.Seed=5",
        "--rules",
        "classic",
    ]);
    assert_all_pass(&run, 25);
    assert_eq!(
        run.summary("handshake.rules-option"),
        "Rules offers classic"
    );
    assert!(run.summary("handshake.hello").contains("uciok after"));
    assert!(
        run.summary("positions.startpos-moves")
            .contains("after 154 plies of moves")
    );
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_passes_every_check_under_classic_rules() {
    let path = fairy_stockfish();
    let cmd = format!("cmd={}", path.display());
    let run = check_engine(&["--engine", &cmd, "proto=uci", "--rules", "classic"]);
    assert_all_pass(&run, 25);
    assert_eq!(
        run.summary("handshake.rules-option"),
        "UCI_Variant offers breakthrough"
    );
    assert!(
        run.report["engine_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("Fairy-Stockfish")),
        "{}",
        run.report["engine_id"]
    );
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_has_no_capture_only_variant() {
    let path = fairy_stockfish();
    let cmd = format!("cmd={}", path.display());
    let run = check_engine(&["--engine", &cmd, "proto=uci", "--quick"]);
    run.assert_fails(
        "handshake.rules-option",
        "use --rules classic, or give it a variants file defining breakthrough-capture-only: \
         option.VariantPath=FILE, bt-arena then sets UCI_Variant to breakthrough-capture-only",
    );
    assert_eq!(run.with_verdict("fail"), ["handshake.rules-option"]);
    assert_eq!(run.verdict("positions.startpos"), "skip");
    assert_eq!(run.verdict("movegen.perft"), "skip");
}

#[test]
fn no_ugiok_fails_the_hello_and_skips_the_rest() {
    let run = faulty("no-ugiok", &[], "handshake,positions");
    run.assert_fails("handshake.hello", "no ugiok within 1000 ms of ugi");
    assert_eq!(run.with_verdict("fail"), ["handshake.hello"]);
    assert_eq!(run.with_verdict("pass"), Vec::<&str>::new());
    assert_eq!(
        run.summary("positions.startpos"),
        "not checked: the handshake did not end (no ugiok)"
    );
}

#[test]
fn a_malformed_option_line_fails_options_parse() {
    let run = faulty("bad-option-line", &[], "handshake");
    run.assert_fails("handshake.options-parse", "a spin without 'max'");
    let evidence = &run.check("handshake.options-parse")["evidence"];
    assert_eq!(
        evidence["received"],
        "option name Hash type spin default 16 min 1"
    );
    assert_eq!(run.with_verdict("fail"), ["handshake.options-parse"]);
}

#[test]
fn a_rules_option_without_the_rule_set_fails_rules_option() {
    let run = faulty("fixed-rules", &[], "handshake,positions");
    run.assert_fails(
        "handshake.rules-option",
        "its Rules option cannot be set to 'capture-only'",
    );
    let evidence = &run.check("handshake.rules-option")["evidence"];
    assert_eq!(
        evidence["received"],
        "option name Rules type combo default classic var classic"
    );
    assert_eq!(run.verdict("positions.fen"), "skip");
}

#[test]
fn no_readyok_fails_isready() {
    let run = faulty("no-readyok", &[], "handshake");
    run.assert_fails("handshake.isready", "no readyok within 1000 ms");
    assert_eq!(run.verdict("handshake.options-settable"), "skip");
}

#[test]
fn an_engine_dying_on_an_option_value_fails_options_settable() {
    let run = faulty("option-crash", &[], "handshake");
    run.assert_fails(
        "handshake.options-settable",
        "after 'setoption name Seed value 1': engine 'bt-faulty': exited",
    );
    assert!(
        run.summary("handshake.options-settable")
            .contains("crashing on Seed 1")
    );
    assert_eq!(run.with_verdict("fail"), ["handshake.options-settable"]);
}

#[test]
fn illegal_moves_fail_every_position() {
    let run = faulty("illegal-move", &[], "positions");
    for id in [
        "positions.startpos",
        "positions.fen",
        "positions.startpos-moves",
        "positions.fen-moves",
        "positions.black-to-move",
        "positions.one-legal-move",
    ] {
        run.assert_fails(id, "illegal: no ");
    }
    run.assert_fails(
        "positions.finished",
        "bestmove a1a1: illegal: the game is already over",
    );
    assert_eq!(
        run.summary("positions.startpos"),
        "bestmove a7a6: illegal: no White pawn on a7"
    );
    let evidence = &run.check("positions.startpos")["evidence"];
    assert_eq!(
        evidence["sent"],
        serde_json::json!(["position startpos", "go depth 1"])
    );
    assert_eq!(evidence["received"], "bestmove a7a6");
}

#[test]
fn a_capped_moves_list_fails_the_long_positions_only() {
    let run = faulty("moves-cap", &[], "positions");
    run.assert_fails("positions.startpos-moves", "illegal");
    run.assert_fails("positions.fen-moves", "illegal");
    assert_eq!(
        run.with_verdict("fail"),
        ["positions.startpos-moves", "positions.fen-moves"]
    );
}

#[test]
fn white_moves_for_black_fail_black_to_move() {
    let run = faulty("black-plays-white", &[], "positions");
    run.assert_fails("positions.black-to-move", "illegal: no Black pawn on");
    assert_eq!(run.verdict("positions.startpos"), "pass");
    assert_eq!(run.verdict("positions.fen-moves"), "pass");
}

#[test]
fn a_move_in_a_finished_position_fails_finished() {
    let run = faulty("move-after-game-over", &[], "positions");
    run.assert_fails(
        "positions.finished",
        "bestmove a2a1: illegal: the game is already over: White reached rank 8",
    );
    assert_eq!(run.with_verdict("fail"), ["positions.finished"]);
}

#[test]
fn a_slow_engine_fails_movetime_with_its_worst_overshoot() {
    let run = faulty("slow", &["--delay-ms", "250"], "limits");
    run.assert_fails(
        "limits.movetime",
        "5 tries of go movetime 100: worst overshoot ",
    );
    // The slowest answer, as the evidence times it: 250 ms of sleep at least.
    let ms = run.check("limits.movetime")["evidence"]["ms"]
        .as_u64()
        .expect("the time of the slowest answer");
    assert!(ms >= 250, "{ms}");
    assert_eq!(
        run.summary("limits.movetime"),
        format!(
            "5 tries of go movetime 100: worst overshoot {} ms (slowest answer {ms} ms; a \
             tournament forfeits an overshoot beyond 100 ms)",
            ms - 100
        )
    );
    assert_eq!(run.verdict("limits.depth"), "pass");
}

#[test]
fn overrunning_the_clock_fails_clock() {
    let run = faulty("clock-overrun", &[], "limits");
    run.assert_fails(
        "limits.clock",
        "4 tries with 300 ms left and no increment: slowest answer ",
    );
    // It thinks for the 300 ms left plus 300 ms.
    let ms = run.check("limits.clock")["evidence"]["ms"]
        .as_u64()
        .expect("the time of the slowest answer");
    assert!(ms >= 600, "{ms}");
    assert_eq!(
        run.summary("limits.clock"),
        format!(
            "4 tries with 300 ms left and no increment: slowest answer {ms} ms (a tournament \
             forfeits beyond 400 ms)"
        )
    );
    assert_eq!(run.verdict("limits.movetime"), "pass");
}

#[test]
fn ignoring_depth_fails_depth_and_ignoring_nodes_fails_nodes() {
    let depth = faulty("ignore-depth", &[], "limits");
    depth.assert_fails("limits.depth", "no bestmove within");
    assert_eq!(depth.verdict("limits.nodes"), "pass");
    let nodes = faulty("ignore-nodes", &[], "limits");
    nodes.assert_fails("limits.nodes", "no bestmove within");
    assert_eq!(nodes.verdict("limits.depth"), "pass");
}

#[test]
fn answering_go_infinite_at_once_fails_infinite() {
    let run = faulty("infinite-returns", &[], "limits");
    run.assert_fails("limits.infinite", "before any stop");
    assert_eq!(
        run.summary("limits.isready-searching"),
        "not checked: the search ended before isready (see limits.infinite)"
    );
    assert_eq!(run.verdict("limits.isready-searching"), "skip");
}

#[test]
fn ending_the_search_on_isready_fails_isready_searching() {
    let run = faulty("isready-ends-search", &[], "limits");
    run.assert_fails(
        "limits.isready-searching",
        "isready ended the search: bestmove before readyok",
    );
    assert_eq!(run.verdict("limits.infinite"), "pass");
    assert_eq!(
        run.check("limits.isready-searching")["evidence"]["sent"]
            .as_array()
            .and_then(|sent| sent.last())
            .and_then(Value::as_str),
        Some("isready")
    );
}

#[test]
fn each_output_fault_fails_its_own_check() {
    let double = faulty("double-bestmove", &[], "output");
    double.assert_fails("output.bestmove-count", "a second bestmove for one go");
    let bad = faulty("bad-info", &[], "output");
    bad.assert_fails("output.info-parse", "'depth' needs a number, got 'one'");
    assert_eq!(bad.with_verdict("fail"), ["output.info-parse"]);
    let pv = faulty("illegal-pv", &[], "output");
    pv.assert_fails("output.pv-legal", "pv move 2 ");
    assert_eq!(pv.with_verdict("fail"), ["output.pv-legal"]);
    let counters = faulty("nodes-decrease", &[], "output");
    counters.assert_fails(
        "output.info-monotone",
        "nodes falls from 200 to 100 within one search",
    );
    assert_eq!(counters.with_verdict("fail"), ["output.info-monotone"]);
}

#[test]
fn a_random_mover_warns_on_determinism_without_failing() {
    // A random mover's four answers coincide by chance (1 in k³ for k legal moves, which
    // happened once in the suite's runs): up to three runs, the first that warns is judged.
    let run = (0..3)
        .map(|_| faulty("none", &[], "newgame,output"))
        .find(|run| run.verdict("newgame.determinism") != "pass")
        .expect("three runs of a random mover, each four times the same bestmove");
    assert_eq!(run.verdict("newgame.determinism"), "warn");
    assert!(
        run.summary("newgame.determinism")
            .contains("its games cannot be replayed")
    );
    assert_eq!(run.verdict("output.info-parse"), "warn");
    assert_eq!(run.report["failed"], 0);
    assert_eq!(run.code, 0, "warnings do not fail: {}", run.stderr);
}

#[test]
fn a_perft_bug_fails_movegen_with_the_walk_down_and_no_perft_is_skipped() {
    let buggy = faulty("perft-missing-edge-capture", &[], "movegen");
    buggy.assert_fails("movegen.perft", "the engine misses ");
    assert!(buggy.summary("movegen.perft").contains("legal: a capture"));
    let none = faulty("no-perft", &[], "movegen");
    assert_eq!(none.verdict("movegen.perft"), "skip");
    assert_eq!(
        none.summary("movegen.perft"),
        "the engine has no go perft (it answers go perft with a bestmove): move generation not checked"
    );
    assert_eq!(none.code, 0);
}

#[test]
fn a_crash_in_a_game_fails_the_mini_match() {
    let run = faulty("crash-mid-game", &["--after", "10"], "match");
    run.assert_fails("match.mini-match", "lost by crash after 20 plies");
    assert!(
        run.summary("match.mini-match")
            .contains("crashing after 10 moves as asked")
    );
}

#[test]
fn the_text_report_shows_the_evidence_of_what_failed() {
    let cmd = format!("cmd={}", FAULTY);
    let output = bt_arena(&[
        "check-engine",
        "--engine",
        &cmd,
        "args=--fault infinite-returns",
        "--only",
        "limits",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "check-engine of bt-faulty: ugi, capture-only rules, seed 1"
    );
    let at = lines
        .iter()
        .position(|l| l.starts_with("FAIL limits.infinite "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        lines[at + 1].starts_with("       > position startpos moves "),
        "{text}"
    );
    assert_eq!(lines[at + 2], "       > go infinite");
    assert!(lines[at + 3].starts_with("       < bestmove "), "{text}");
    assert!(lines[at].contains("go infinite answered after"), "{text}");
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("6 checks: 4 passed, 1 failed, 0 warned, 1 skipped")),
        "{text}"
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn an_engine_that_cannot_start_exits_4_and_a_missing_one_or_a_bad_option_exits_3() {
    let exits = faulty("exit-at-start", &[], "handshake");
    assert_eq!(exits.code, 4);
    assert!(
        exits.stderr.contains("exiting at start as asked"),
        "{}",
        exits.stderr
    );
    // A missing executable is a bad command line, as for every command.
    let missing = check_engine(&["--engine", "cmd=/nonexistent/engine"]);
    assert_eq!(missing.code, 3);
    assert!(
        missing
            .stderr
            .contains("error: engine 'engine': executable /nonexistent/engine not found"),
        "{}",
        missing.stderr
    );
    let cmd = format!("cmd={}", SEARCH);
    let unknown = check_engine(&["--engine", &cmd, "option.Nope=1", "--quick"]);
    assert_eq!(unknown.code, 3);
    assert!(
        unknown
            .stderr
            .contains("option.Nope: the engine declares no option 'Nope'"),
        "{}",
        unknown.stderr
    );
    let bad_group = check_engine(&["--engine", &cmd, "--only", "bogus"]);
    assert_eq!(bad_group.code, 3);
}
