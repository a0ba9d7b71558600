//! A worker's claims are its own to take back (issue 38, items 1 to 3): a worker that lost
//! its claim (taken over while it was stopped, deleted, overwritten, `claims/` removed) drops
//! the games it cannot record and looks at the unit again: when nobody holds it, it plays it.

use super::{Fleet, Kind, LEASE_TIME, MARGIN, held_by, holder, stopped_holding, unit_recorded};
use crate::util::eventually;

/// The warning of a worker that finished a game of `unit` after losing its claim.
fn dropped(kind: Kind, unit: u64) -> String {
    format!(
        "not recorded: this worker no longer holds the claim on its {} {unit}",
        kind.unit()
    )
}

/// Item 1: worker A stopped (SIGSTOP) past the lease; B takes A's unit over and is killed
/// (kill -9) before it records it; A, woken and alone, drops its game, finds the unit's
/// holder gone and plays the unit itself (the issue: a tournament exited 5 with the pair
/// missing, a tune waited for ever).
fn a_worker_whose_taker_died_takes_its_unit_back(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 1..=4 {
        let run = dir.path().join(format!("run-{attempt}"));
        let mut fleet = Fleet::new(dir.path());
        let (a, unit) = stopped_holding(&mut fleet, kind, &run);
        let b = fleet.spawn(&kind.worker(&run, &[]), None);
        let b_pid = fleet.pid(b);
        let taken = eventually(LEASE_TIME + MARGIN, || {
            holder(kind, &run, unit) == Some(b_pid) || unit_recorded(kind, &run, unit)
        });
        assert!(taken, "B takes the unit over within the lease and a margin");
        fleet.kill(b);
        if unit_recorded(kind, &run, unit) {
            // B recorded the unit before it was killed: not the case tested; again.
            continue;
        }
        fleet.signal(a, libc::SIGCONT);
        let ended = fleet.expect(a, MARGIN, kind.code());
        assert!(ended.stdout.contains(&dropped(kind, unit)), "{ended:?}");
        let retaken = format!(
            "{} {unit}, claimed by {} pid {b_pid}: that process is gone; it is played again",
            kind.unit(),
            bt_arena::lease::host_name()
        );
        assert!(ended.stdout.contains(&retaken), "{ended:?}");
        kind.assert_one_machines(&run);
        return;
    }
    panic!("B never took the unit over before recording it");
}

#[test]
fn a_tournament_worker_whose_taker_died_takes_its_pair_back() {
    a_worker_whose_taker_died_takes_its_unit_back(Kind::Tournament);
}

#[test]
fn a_tune_worker_whose_taker_died_takes_its_iteration_back() {
    a_worker_whose_taker_died_takes_its_unit_back(Kind::Tune);
}

#[test]
fn a_datagen_worker_whose_taker_died_takes_its_game_back() {
    a_worker_whose_taker_died_takes_its_unit_back(Kind::Datagen);
}

/// What happens to a live claim under a worker alone.
#[derive(Clone, Copy, Debug)]
enum Accident {
    /// Removed (a clean-up script).
    Deleted,
    /// Overwritten with garbage in place (an NFS hiccup, a stray redirection).
    Garbled,
}

/// Item 2: the live claim of a worker alone deleted or overwritten while it plays the unit:
/// the worker drops the game it finishes (nobody else plays it), claims the unit again (at
/// once when the claim is gone, after the lease when garbage is there) and plays it.
fn a_lone_workers_lost_claim_is_taken_back(kind: Kind, accident: Accident) {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 1..=4 {
        let run = dir.path().join(format!("run-{attempt}"));
        let mut fleet = Fleet::new(dir.path());
        let (worker, unit) = stopped_holding(&mut fleet, kind, &run);
        let claim = run.join(format!("claims/{}-{unit}", kind.unit()));
        match accident {
            Accident::Deleted => std::fs::remove_file(&claim).unwrap(),
            Accident::Garbled => std::fs::write(&claim, "\u{0}garbage\n").unwrap(),
        }
        fleet.signal(worker, libc::SIGCONT);
        let ended = fleet.expect(worker, LEASE_TIME + MARGIN, kind.code());
        if !ended.stdout.contains(&dropped(kind, unit)) {
            // Its game of the unit was recorded before the claim was lost: again.
            assert!(unit_recorded(kind, &run, unit));
            continue;
        }
        if let Accident::Garbled = accident {
            let retaken = format!(
                "{} {unit}: its claim names no worker (truncated or garbage) and has not changed \
                 for ",
                kind.unit()
            );
            let line = ended.stdout.lines().find(|line| line.starts_with(&retaken));
            assert!(
                line.is_some_and(|line| line.ends_with(" s: it is played again")),
                "{ended:?}"
            );
        }
        kind.assert_one_machines(&run);
        return;
    }
    panic!("the claim was never lost with a game of its unit in flight");
}

#[test]
fn a_lone_tournament_worker_whose_claim_is_deleted_plays_its_pair_again() {
    a_lone_workers_lost_claim_is_taken_back(Kind::Tournament, Accident::Deleted);
}

#[test]
fn a_lone_tournament_worker_whose_claim_is_garbled_plays_its_pair_again() {
    a_lone_workers_lost_claim_is_taken_back(Kind::Tournament, Accident::Garbled);
}

#[test]
fn a_lone_tune_worker_whose_claim_is_deleted_plays_its_iteration_again() {
    a_lone_workers_lost_claim_is_taken_back(Kind::Tune, Accident::Deleted);
}

#[test]
fn a_lone_tune_worker_whose_claim_is_garbled_plays_its_iteration_again() {
    a_lone_workers_lost_claim_is_taken_back(Kind::Tune, Accident::Garbled);
}

#[test]
fn a_lone_datagen_worker_whose_claim_is_deleted_plays_its_game_again() {
    a_lone_workers_lost_claim_is_taken_back(Kind::Datagen, Accident::Deleted);
}

#[test]
fn a_lone_datagen_worker_whose_claim_is_garbled_plays_its_game_again() {
    a_lone_workers_lost_claim_is_taken_back(Kind::Datagen, Accident::Garbled);
}

/// Item 3: `claims/` removed (`rm -rf`) while two workers hold units: both drop the games
/// they cannot record, make `claims/` again at their next claim, and end the run.
fn workers_remake_a_removed_claims_directory(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let mut fleet = Fleet::new(dir.path());
    let workers = [
        fleet.spawn(&kind.worker(&run, &[]), None),
        fleet.spawn(&kind.worker(&run, &[]), None),
    ];
    let pids = workers.map(|worker| fleet.pid(worker));
    assert!(
        eventually(MARGIN, || pids
            .iter()
            .all(|&pid| !held_by(kind, &run, pid).is_empty())),
        "both workers hold a unit"
    );
    std::fs::remove_dir_all(run.join("claims")).unwrap();
    let mut dropped_games = 0;
    for worker in workers {
        let ended = fleet.expect(worker, MARGIN, kind.code());
        assert!(!ended.stderr.contains("cannot"), "{ended:?}");
        dropped_games += ended.stdout.matches("not recorded: this worker").count();
    }
    assert!(
        dropped_games >= 1,
        "a game in flight was dropped: {}",
        fleet.outputs()
    );
    assert!(run.join("claims").is_dir());
    kind.assert_one_machines(&run);
}

#[test]
fn tournament_workers_remake_a_removed_claims_directory() {
    workers_remake_a_removed_claims_directory(Kind::Tournament);
}

#[test]
fn tune_workers_remake_a_removed_claims_directory() {
    workers_remake_a_removed_claims_directory(Kind::Tune);
}

#[test]
fn datagen_workers_remake_a_removed_claims_directory() {
    workers_remake_a_removed_claims_directory(Kind::Datagen);
}
