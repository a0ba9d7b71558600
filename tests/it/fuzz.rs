//! The fuzz targets' kept inputs, run under `cargo test` through the same bodies the fuzzer
//! runs (fuzz/src/lib.rs, included here): the corpus each target built, minimized
//! (`fuzz/corpus/TARGET/`), and every input that made one fail (`fuzz/regressions/TARGET/`).
//! docs/guide/testing.md (Fuzzing) says how to fuzz.

use bt_arena::protocol::Score;
use bt_arena::records::moves::{CommentDetail, MoveInfo};
use std::path::Path;

#[path = "../../fuzz/src/lib.rs"]
mod targets;

/// Runs every kept input of fuzz target `name` through it; fails naming the inputs that fail,
/// or when fewer than `min_read` of them were read by the target's parser (so checked).
fn kept_inputs_pass(name: &str, min_read: usize) {
    let (_, body) = targets::TARGETS
        .into_iter()
        .find(|(target, _)| *target == name)
        .expect("a fuzz target of that name");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut inputs = Vec::new();
    for kept in ["corpus", "regressions"] {
        if let Ok(entries) = std::fs::read_dir(root.join(kept).join(name)) {
            inputs.extend(entries.map(|entry| entry.expect("a directory entry").path()));
        }
    }
    inputs.sort();
    assert!(!inputs.is_empty(), "no kept input for fuzz target {name}");
    let mut failed = Vec::new();
    let mut parsed = 0;
    for path in &inputs {
        let data = std::fs::read(path).expect("a kept input reads");
        match std::panic::catch_unwind(|| body(&data)) {
            Ok(read) => parsed += usize::from(read),
            Err(_) => failed.push(path.display().to_string()),
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} inputs fail: {failed:#?}",
        failed.len(),
        inputs.len()
    );
    // The checks ran: a body returns early on an input its parser refuses, so a parser that
    // refused everything would pass every input above.
    assert!(
        parsed >= min_read.max(1),
        "fuzz target {name}: {parsed} of {} kept inputs read, expected at least {min_read}",
        inputs.len()
    );
}

#[test]
fn the_kept_pgn_inputs_pass() {
    // 453 of the 1423 kept inputs read when the floor was set (about half).
    kept_inputs_pass("pgn", 200);
}

#[test]
fn the_kept_fen_inputs_pass() {
    // 57 of the 187 kept inputs read when the floor was set (about half).
    kept_inputs_pass("fen", 25);
}

#[test]
fn the_kept_engine_line_inputs_pass() {
    // 1280 of the 1397 kept inputs read when the floor was set (about half).
    kept_inputs_pass("engine_line", 600);
}

#[test]
fn the_kept_move_info_inputs_pass() {
    // 487 of the 840 kept inputs read when the floor was set (about half).
    kept_inputs_pass("move_info", 240);
}

#[test]
fn the_kept_games_csv_inputs_pass() {
    // 503 of the 681 kept inputs read when the floor was set (about half).
    kept_inputs_pass("games_csv", 250);
}

#[test]
fn the_kept_config_inputs_pass() {
    // 35 of the 4996 kept inputs read when the floor was set (about half).
    kept_inputs_pass("config", 15);
}

#[test]
fn the_kept_epd_inputs_pass() {
    // 288 of the 534 kept inputs read when the floor was set (about half).
    kept_inputs_pass("epd", 140);
}

// What the fuzzers found, one test each, named for the input kept in fuzz/regressions/.

/// move_info `pv-move-with-a-comma`: an engine's PV move with a comma (`info ... pv a2a3, b7b6`)
/// was written as `pv="a2a3, b7b6"`, which reads back as the PV `a2a3` alone (`, ` separates
/// a comment's fields). The comma is dropped as `{`, `}` and `"` are.
#[test]
fn a_pv_move_with_a_comma_reads_back_whole_from_its_comment() {
    let info = MoveInfo {
        score: Some(Score::Cp(19)),
        depth: Some(2),
        pv: vec!["a2a3,".into(), "b7b6".into()],
        ..MoveInfo::default()
    };
    let comment = info.comment(CommentDetail::Full).unwrap();
    assert_eq!(comment, "+0.19/2 0.000s, pv=\"a2a3 b7b6\"");
    assert_eq!(
        MoveInfo::parse_comment(&comment).unwrap().pv,
        ["a2a3", "b7b6"]
    );
}
