//! The normalized SPRT (`--sprt ...,model=normalized`, bounds in nElo) end to end: the
//! tournament stops at its verdict, `elo` replays the same verdict at the same game, a resumed
//! run comes to it again, and the gate (tests/it/gate.rs) passes the model on. The verdict
//! game is checked against the LLR computed from games.csv, and against the logistic model's,
//! which comes at another game: a model lost on the way would show.

use bt_arena::stats::{Sprt, SprtModel};
use std::path::Path;

use crate::util::{
    bt_arena, deterministic, pairs_among, path, sprt_decided_at, stderr, stdout, words,
};

/// `elo0=0, elo1=50` on `model`'s scale, α = β = 0.05.
fn bounds(model: SprtModel) -> Sprt {
    Sprt::new(0.0, 50.0, 0.05, 0.05)
        .and_then(|sprt| sprt.with_model(model))
        .unwrap()
}

/// Rows of the games.csv in `run`.
fn rows(run: &Path) -> usize {
    std::fs::read_to_string(run.join("games.csv"))
        .unwrap()
        .lines()
        .count()
        - 1
}

#[test]
fn a_normalized_sprt_decides_at_its_game_in_the_run_elo_and_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    // bt-search against its material evaluation, deterministic: the same games every time.
    let command = format!(
        "{} --sprt elo0=0,elo1=50,model=normalized",
        deterministic(200)
    );
    let output = bt_arena(&words(&command, &["--out", path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = run.join("games.csv");
    let normalized = sprt_decided_at(&csv, "full", &bounds(SprtModel::Normalized));
    let logistic = sprt_decided_at(&csv, "full", &bounds(SprtModel::Logistic));
    // The games played decide both models, at different games (measured: 50 and 46).
    assert_eq!(normalized, Some(50));
    assert_eq!(logistic, Some(46));
    let verdict = "SPRT: H1 accepted at game 50\n";
    assert!(stdout(&output).contains(verdict), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("LLR: 3.08 (-2.94, 2.94) [0.00, 50.00] nElo\n"),
        "{}",
        stdout(&output)
    );
    assert_eq!(rows(&run), 50, "no game after the verdict (one at a time)");
    // The Elo after the stop, beside the plain one: of the 25 pairs at the verdict.
    let after_stop = |model: SprtModel, games: usize| {
        let counts = pairs_among(&csv, "full", games).as_array();
        let estimate = bt_arena::stats::after_stop(&bounds(model), &counts);
        format!("\nElo after the SPRT stop: {estimate} (median-unbiased, 95%)\nGames: ")
    };
    let stopped = after_stop(SprtModel::Normalized, 50);
    assert!(stdout(&output).contains(&stopped), "{}", stdout(&output));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["pairs"][0]["sprt"]["elo_model"], "normalized",
        "{summary}"
    );

    // `elo` replays the run's games: the same verdict at the same game, and exit code; the
    // logistic model over the same games decides at its own game.
    let output = bt_arena(&words(
        "elo --sprt elo0=0,elo1=50,model=normalized",
        &[path(&run)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains(verdict), "{}", stdout(&output));
    assert!(stdout(&output).contains(&stopped), "{}", stdout(&output));
    let output = bt_arena(&words("elo --sprt elo0=0,elo1=50", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("SPRT: H1 accepted at game 46;"),
        "{}",
        stdout(&output)
    );
    // Recomputed at that verdict, from its 23 pairs; the games after it do not move it.
    let logistic_stop = after_stop(SprtModel::Logistic, 46);
    assert!(
        stdout(&output).contains(&logistic_stop),
        "{}",
        stdout(&output)
    );
    assert_ne!(logistic_stop, stopped);
    // `report` writes it into report.html.
    let output = bt_arena(&words("report", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    let line = stopped
        .trim_start_matches('\n')
        .trim_end_matches("\nGames: ");
    assert!(html.contains(line), "{line}");

    // Cut back to 40 games and resumed: the run keeps its model and comes to the same verdict
    // at the same game.
    let text = std::fs::read_to_string(&csv).unwrap();
    let kept: Vec<&str> = text.lines().take(41).collect();
    std::fs::write(&csv, kept.join("\n") + "\n").unwrap();
    let output = bt_arena(&words("tournament --resume", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains(verdict), "{}", stdout(&output));
    assert_eq!(rows(&run), 50);
    assert_eq!(
        sprt_decided_at(&csv, "full", &bounds(SprtModel::Normalized)),
        Some(50)
    );
}
