//! The fuzz targets' kept inputs, run under `cargo test` through the same bodies the fuzzer
//! runs (fuzz/src/lib.rs, included here): the corpus each target built, minimized
//! (`fuzz/corpus/TARGET/`), and every input that made one fail (`fuzz/regressions/TARGET/`).
//! README.md (Tests) says how to fuzz.

use std::path::Path;

#[path = "../../fuzz/src/lib.rs"]
mod targets;

/// Runs every kept input of fuzz target `name` through it; fails naming the inputs that fail.
fn kept_inputs_pass(name: &str) {
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
    let failed: Vec<String> = inputs
        .iter()
        .filter(|path| {
            let data = std::fs::read(path).expect("a kept input reads");
            std::panic::catch_unwind(|| body(&data)).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} inputs fail: {failed:#?}",
        failed.len(),
        inputs.len()
    );
}

#[test]
fn the_kept_pgn_inputs_pass() {
    kept_inputs_pass("pgn");
}

#[test]
fn the_kept_fen_inputs_pass() {
    kept_inputs_pass("fen");
}

#[test]
fn the_kept_engine_line_inputs_pass() {
    kept_inputs_pass("engine_line");
}

#[test]
fn the_kept_move_info_inputs_pass() {
    kept_inputs_pass("move_info");
}

#[test]
fn the_kept_games_csv_inputs_pass() {
    kept_inputs_pass("games_csv");
}

#[test]
fn the_kept_config_inputs_pass() {
    kept_inputs_pass("config");
}

#[test]
fn the_kept_epd_inputs_pass() {
    kept_inputs_pass("epd");
}

