//! A new kind of run costs a config, a schedule and a report: `bt-toy-kind`
//! (src/bin/bt-toy-kind.rs, docs/guide/arena.md) is one, written on the one session with no
//! lease, claim or resume code of its own. Played alone and as three workers of one run, one of
//! them killed mid-run, it plays the same games up to its stop rule (engine A's first loss).

use crate::util::{SEARCH, eventually, games_of};
use bt_arena::records::GameRecord;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const TOY: &str = env!("CARGO_BIN_EXE_bt-toy-kind");

/// The toy's command: A is bt-search at 2000 nodes, B at 200 (A loses its 8th game first), at
/// most 40 games.
fn toy(out: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(TOY);
    command
        .args(["--out", out.to_str().unwrap()])
        .args(["--a", &format!("cmd={SEARCH} nodes=2000")])
        .args(["--b", &format!("cmd={SEARCH} nodes=200")])
        .args(["--games", "40"])
        .args(extra)
        .stdin(Stdio::null());
    command
}

fn finished(output: &Output) -> String {
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    text
}

/// A game as the comparison takes it: who played, how it ended, the moves.
fn played(game: &GameRecord) -> (u64, String, String, String, String) {
    (
        game.game_id,
        game.white.clone(),
        game.black.clone(),
        game.result.to_string(),
        game.moves.clone(),
    )
}

/// Every worker's games of the run in `run`, in game-id order (none before the first worker
/// has made the directory).
fn merged(run: &Path) -> Vec<GameRecord> {
    let Ok(entries) = std::fs::read_dir(run) else {
        return Vec::new();
    };
    let mut games: Vec<GameRecord> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|dir| dir.join("games.csv").exists())
        .flat_map(|dir| games_of(&dir.join("games.csv")))
        .collect();
    games.sort_by_key(|game| game.game_id);
    games
}

/// Whether A lost `game` (A is White in odd games).
fn a_lost(game: &GameRecord) -> bool {
    let a_white = game.game_id % 2 == 1;
    (game.result == bt_arena::records::GameResult::WhiteWins) != a_white
}

#[test]
fn a_toy_kind_plays_alone_and_as_three_workers_one_killed_to_the_same_games() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("alone");
    let report = finished(&toy(&alone, &[]).output().unwrap());
    let one: Vec<GameRecord> = games_of(&alone.join("games.csv"));
    let loss = one.iter().position(a_lost).expect("A loses a game of 40") + 1;
    assert_eq!(one.len(), loss, "one machine stops at A's first loss");
    assert_eq!(
        report.trim(),
        format!("A lost game {loss}: {loss} games this session")
    );
    assert!(
        loss >= 3,
        "a run long enough to kill a worker in: {loss} games"
    );

    let run: PathBuf = dir.path().join("workers");
    let mut workers: Vec<_> = (0..3)
        .map(|_| {
            toy(&run, &["--worker"])
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    // One worker killed mid-run, once the run has recorded a game.
    let recorded = eventually(Duration::from_secs(60), || !merged(&run).is_empty());
    assert!(recorded, "the workers record games");
    workers[0].kill().unwrap();
    workers[0].wait().unwrap();
    // A worker waiting for ever on the killed one's unit fails the test, not hangs it.
    let ended = eventually(Duration::from_secs(120), || {
        workers[1..]
            .iter_mut()
            .all(|worker| worker.try_wait().unwrap().is_some())
    });
    if !ended {
        for worker in &mut workers {
            let _ = worker.kill();
        }
    }
    let outputs: Vec<Output> = workers
        .drain(1..)
        .map(|worker| worker.wait_with_output().unwrap())
        .collect();
    assert!(ended, "a worker still waits after 2 minutes");
    for output in &outputs {
        finished(output);
    }
    let games = merged(&run);
    let up_to_loss: Vec<_> = games
        .iter()
        .take_while(|g| g.game_id <= loss as u64)
        .map(played)
        .collect();
    assert_eq!(up_to_loss, one.iter().map(played).collect::<Vec<_>>());
    // Each game once, and past the loss no more than the games in flight when it was read.
    let ids: Vec<u64> = games.iter().map(|g| g.game_id).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    assert!(
        games.len() <= loss + 3,
        "{} games past game {loss}",
        games.len() - loss
    );
}
