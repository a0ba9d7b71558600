//! Missing directories are a state, not an error; markers are never believed over the games
//! (issue 38, items 4 and 5): a worker directory removed is read as "its games are not
//! recorded" and they are played again, by the others or (its own) by the worker itself,
//! which makes it again; a done marker naming a live worker whose files lack the unit is not
//! believed; an entry a worker wrote before it was killed, whose games.csv row it never
//! wrote, is not the run's.

use super::{Fleet, Kind, MARGIN, recorded_ids, worker_dir};
use crate::util::eventually;
use std::path::Path;

/// The games `pid`'s worker recorded in `run`.
fn recorded_by(run: &Path, pid: i32) -> usize {
    worker_dir(run, pid)
        .and_then(|dir| bt_arena::records::read_games(&dir.join("games.csv")).ok())
        .map_or(0, |games| games.len())
}

/// Item 4, a dead worker's directory: A and B play; A is killed (kill -9) and its directory
/// removed (a clean-up); B reads A's games as not recorded, plays them again and ends the run.
fn a_dead_workers_removed_directory_is_played_again(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let mut fleet = Fleet::new(dir.path());
    let (a, b) = (
        fleet.spawn(&kind.worker(&run, &[]), None),
        fleet.spawn(&kind.worker(&run, &[]), None),
    );
    let (a_pid, b_pid) = (fleet.pid(a), fleet.pid(b));
    assert!(
        eventually(MARGIN, || recorded_by(&run, a_pid) >= 2
            && recorded_by(&run, b_pid) >= 2),
        "both workers record games"
    );
    let a_dir = worker_dir(&run, a_pid).unwrap();
    fleet.kill(a);
    std::fs::remove_dir_all(&a_dir).unwrap();
    let ended = fleet.expect(b, MARGIN, kind.code());
    let gone = format!(
        "warning: {} is gone: the games it held are played again",
        a_dir.display()
    );
    assert!(ended.stdout.contains(&gone), "{ended:?}");
    kind.assert_one_machines(&run);
}

#[test]
fn a_dead_tournament_workers_removed_directory_is_played_again() {
    a_dead_workers_removed_directory_is_played_again(Kind::Tournament);
}

#[test]
fn a_dead_tune_workers_removed_directory_is_played_again() {
    a_dead_workers_removed_directory_is_played_again(Kind::Tune);
}

#[test]
fn a_dead_datagen_workers_removed_directory_is_played_again() {
    a_dead_workers_removed_directory_is_played_again(Kind::Datagen);
}

/// Item 4, a live worker's own directory: removed while the worker plays alone; it makes the
/// directory again and says so, plays again what it had recorded there, and ends the run.
fn a_worker_remakes_its_removed_directory(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let mut fleet = Fleet::new(dir.path());
    let worker = fleet.spawn(&kind.worker(&run, &[]), None);
    let pid = fleet.pid(worker);
    assert!(
        eventually(MARGIN, || recorded_by(&run, pid) >= 3),
        "three games recorded"
    );
    let own = worker_dir(&run, pid).unwrap();
    remove_live(&own);
    let ended = fleet.expect(worker, MARGIN, kind.code());
    let remade = format!(
        "warning: {} was removed: made again; the games it held are played again",
        own.display()
    );
    assert!(ended.stdout.contains(&remade), "{ended:?}");
    assert!(own.join("games.csv").is_file(), "made again");
    kind.assert_one_machines(&run);
}

#[test]
fn a_tournament_worker_remakes_its_removed_directory() {
    a_worker_remakes_its_removed_directory(Kind::Tournament);
}

#[test]
fn a_tune_worker_remakes_its_removed_directory() {
    a_worker_remakes_its_removed_directory(Kind::Tune);
}

#[test]
fn a_datagen_worker_remakes_its_removed_directory() {
    a_worker_remakes_its_removed_directory(Kind::Datagen);
}

/// Item 5: done markers naming the live worker (and garbage) planted for units nobody has
/// played: the worker plays them all (the issue: datagen believed such a marker and its run
/// was silently short).
fn markers_without_their_games_are_not_believed(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let mut fleet = Fleet::new(dir.path());
    let worker = fleet.spawn(&kind.worker(&run, &[]), None);
    let pid = fleet.pid(worker);
    assert!(
        eventually(MARGIN, || worker_dir(&run, pid).is_some()),
        "its directory"
    );
    let own = worker_dir(&run, pid).unwrap();
    let id = own.file_name().unwrap().to_string_lossy()["worker-".len()..].to_string();
    let last = kind.units();
    std::fs::create_dir_all(run.join("claims")).unwrap();
    for (unit, text) in [(last, format!("{id}\n")), (last - 1, "garbage\n".into())] {
        std::fs::write(
            run.join(format!("claims/{}-{unit}.done", kind.unit())),
            text,
        )
        .unwrap();
    }
    fleet.expect(worker, MARGIN, kind.code());
    let ids = recorded_ids(&run);
    assert!(
        kind.games_of_unit(last).all(|game| ids.contains(&game)),
        "{ids:?}"
    );
    kind.assert_one_machines(&run);
}

#[test]
fn tournament_markers_without_their_games_are_not_believed() {
    markers_without_their_games_are_not_believed(Kind::Tournament);
}

#[test]
fn tune_markers_without_their_games_are_not_believed() {
    markers_without_their_games_are_not_believed(Kind::Tune);
}

#[test]
fn datagen_markers_naming_a_live_worker_without_their_games_are_not_believed() {
    markers_without_their_games_are_not_believed(Kind::Datagen);
}

/// Removes the directory `dir` a live worker writes in, as `rm -rf` run again would: a file
/// the worker creates during the removal leaves the directory not empty, and it is removed
/// again.
fn remove_live(dir: &Path) {
    for _ in 0..50 {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {}
            Err(e) => panic!("{}: {e}", dir.display()),
        }
    }
    panic!("{} could not be removed", dir.display());
}

/// Removes the last line of the file at `path` (not its header).
fn drop_last_line(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 1, "{}: {text}", path.display());
    lines.pop();
    let mut kept = lines.join("\n");
    kept.push('\n');
    std::fs::write(path, kept).unwrap();
}

/// Item 5, the order of a worker's writes: a worker killed (kill -9) between its own record
/// of a game and games.csv's row (datagen's games.dat entry, a tournament's PGN game, both
/// written first), or between a tune iteration's last game and its tune.csv row (written
/// after): the files as such a kill leaves them. The next worker plays the game again (or
/// writes the row), and only what games.csv records is the run's.
fn a_worker_killed_between_its_records_leaves_the_run_whole(kind: Kind) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let mut fleet = Fleet::new(dir.path());
    let killed = fleet.spawn(&kind.worker(&run, &[]), None);
    let pid = fleet.pid(killed);
    let enough = kind.games_per_unit() * 2 + 1;
    assert!(
        eventually(MARGIN, || recorded_by(&run, pid) as u64 >= enough),
        "games recorded"
    );
    fleet.kill(killed);
    let own = worker_dir(&run, pid).unwrap();
    match kind {
        Kind::Tune => drop_last_line(&own.join("tune.csv")),
        Kind::Tournament | Kind::Datagen => drop_last_line(&own.join("games.csv")),
    }
    let next = fleet.spawn(&kind.worker(&run, &[]), None);
    fleet.expect(next, MARGIN, kind.code());
    kind.assert_one_machines(&run);
}

#[test]
fn a_tournament_worker_killed_between_pgn_and_csv_leaves_the_run_whole() {
    a_worker_killed_between_its_records_leaves_the_run_whole(Kind::Tournament);
}

#[test]
fn a_tune_worker_killed_before_its_row_leaves_the_run_whole() {
    a_worker_killed_between_its_records_leaves_the_run_whole(Kind::Tune);
}

#[test]
fn a_datagen_worker_killed_between_games_dat_and_csv_leaves_the_run_whole() {
    a_worker_killed_between_its_records_leaves_the_run_whole(Kind::Datagen);
}
