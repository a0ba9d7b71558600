//! Takeover is atomic (issue 38, item 6): two workers released at the same instant onto one
//! expired claim end with exactly one holder, and the unit is recorded once.
//!
//! A run of one unit whose claim names a live process that never touches it (this test's own
//! process: not a dead one, so only the lease makes it stale). Two workers start in one
//! process group and look at the claim (it is live: each watches it); the group is stopped
//! (SIGSTOP) past the lease, then continued with one signal: both wake at the same instant,
//! both judge the claim stale at their next look, and both try to take it over.

use super::{Fleet, Kind, MARGIN};
use crate::util::{bt_arena, eventually, stderr};
use std::time::Duration;

/// Times the race is run for each kind (each about 3 s); `BT_ARENA_RACES` sets another
/// count (to measure the race: the test prints what it saw).
const REPETITIONS: usize = 8;

/// What one race gave.
struct Race {
    /// Workers that said they took the claim over.
    takers: usize,
    /// The ids of the games the workers recorded, sorted (each of the unit's once, or a
    /// game recorded twice).
    ids: Vec<u64>,
}

/// One race on `kind`.
fn race_once(kind: Kind, dir: &std::path::Path, attempt: usize) -> Race {
    let run = dir.join(format!("run-{attempt}"));
    let claims = run.join("claims");
    std::fs::create_dir_all(&claims).unwrap();
    let me = std::process::id();
    let host = bt_arena::lease::host_name();
    std::fs::write(
        claims.join(format!("{}-1", kind.unit())),
        format!("{me} {host}-{me}-0badcafe\nworker the-test\n"),
    )
    .unwrap();
    let args = kind.args_of(1, &run, &["--worker", "--lease", "1s"]);
    let mut fleet = Fleet::new(dir);
    let first = fleet.spawn(&args, Some(0));
    let group = fleet.pid(first);
    let second = fleet.spawn(&args, Some(group));
    assert!(
        eventually(MARGIN, || [first, second]
            .iter()
            .all(|&w| fleet.stdout(w).contains("claiming"))),
        "both workers start"
    );
    // Both look at the live claim (every 20 ms while they wait for it).
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: the group of this test's own children.
    unsafe { libc::killpg(group, libc::SIGSTOP) };
    std::thread::sleep(Duration::from_millis(1400));
    // SAFETY: as above.
    unsafe { libc::killpg(group, libc::SIGCONT) };
    let ended = [first, second].map(|worker| fleet.wait(worker, MARGIN));
    for one in &ended {
        assert!(matches!(one.code, Some(0 | 2)), "{ended:?}");
    }
    let taken = format!(
        "{} 1, claimed by {host} pid {me}, unchanged for",
        kind.unit()
    );
    let takers = ended
        .iter()
        .filter(|one| one.stdout.contains(&taken))
        .count();
    // Each game of the unit recorded once, by the workers together.
    let mut ids: Vec<u64> = bt_arena::run_dir::RunDir::new(&run)
        .worker_dirs()
        .unwrap()
        .iter()
        .filter_map(|dir| bt_arena::records::read_games(&dir.games_csv()).ok())
        .flatten()
        .map(|game| game.game_id)
        .collect();
    ids.sort_unstable();
    let once = ids == kind.games_of_unit(1).collect::<Vec<_>>();
    if kind == Kind::Tournament && once {
        let merge = bt_arena(&["merge", crate::util::path(&run)]);
        assert!(
            matches!(merge.status.code(), Some(0 | 2)),
            "{}",
            stderr(&merge)
        );
    }
    Race { takers, ids }
}

/// The race run [`REPETITIONS`] times on `kind`: each time one worker took the claim over
/// and each game of the unit is recorded once.
fn two_workers_released_at_once_onto_one_expired_claim(kind: Kind) {
    let times = std::env::var("BT_ARENA_RACES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(REPETITIONS);
    let dir = tempfile::tempdir().unwrap();
    let races: Vec<Race> = (0..times)
        .map(|attempt| race_once(kind, dir.path(), attempt))
        .collect();
    let both = races.iter().filter(|race| race.takers > 1).count();
    let twice = races
        .iter()
        .filter(|race| race.ids.windows(2).any(|pair| pair[0] == pair[1]))
        .count();
    println!(
        "{kind:?}: {times} races: both workers took over in {both}, a game recorded twice in \
         {twice}"
    );
    for (attempt, race) in races.iter().enumerate() {
        assert_eq!(
            race.takers, 1,
            "race {attempt}: one worker took the claim over"
        );
        assert_eq!(
            race.ids,
            kind.games_of_unit(1).collect::<Vec<_>>(),
            "race {attempt}: each game once"
        );
    }
}

#[test]
fn two_tournament_workers_released_at_once_onto_one_expired_claim_end_with_one_holder() {
    two_workers_released_at_once_onto_one_expired_claim(Kind::Tournament);
}

#[test]
fn two_tune_workers_released_at_once_onto_one_expired_claim_end_with_one_holder() {
    two_workers_released_at_once_onto_one_expired_claim(Kind::Tune);
}

#[test]
fn two_datagen_workers_released_at_once_onto_one_expired_claim_end_with_one_holder() {
    two_workers_released_at_once_onto_one_expired_claim(Kind::Datagen);
}
