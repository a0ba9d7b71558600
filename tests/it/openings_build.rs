//! `openings build` (issue 41): a book kept by reference engines' measured game pairs, a run
//! of the arena. Real processes: bt-arena and bt-search at 100 and 300 nodes (deterministic
//! after `uginewgame`), so that a candidate's games are the same in every run.

use crate::util::{SEARCH, bt_arena, bt_arena_command, eventually, games_of, path, stderr, stdout};
use bt_arena::openings::Book;
use bt_arena::rules::{Color, Position, Rules};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::Duration;

/// A build into `out` of `count` openings from candidates of 3-6 random plies, with `extra`.
fn args(out: &Path, count: &str, extra: &[&str]) -> Vec<String> {
    let weak = format!("cmd={SEARCH}");
    let mut args = vec![
        "openings",
        "build",
        "--engine",
        &weak,
        "nodes=100",
        "name=n100",
        "--engine",
        &weak,
        "nodes=300",
        "name=n300",
        "--count",
        count,
        "--plies",
        "3-6",
        "--seed",
        "11",
        "--out",
        path(out),
    ];
    args.extend_from_slice(extra);
    args.iter().map(|s| s.to_string()).collect()
}

/// `args` with the value of `flag` replaced by `value`.
fn with(mut args: Vec<String>, flag: &str, value: &str) -> Vec<String> {
    let at = args.iter().position(|a| a == flag).unwrap();
    args[at + 1] = value.to_string();
    args
}

fn spawn(args: &[String]) -> Child {
    bt_arena_command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bt-arena starts")
}

fn succeeded(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    stdout(output)
}

/// White's wins per candidate, read from the run's games.csv files alone (not the build's
/// own tally): candidate u's games are ids (u - 1) × 2 + 1 and + 2.
fn white_wins(run: &Path) -> BTreeMap<u64, (u64, u64)> {
    let mut files = vec![run.join("games.csv")];
    for entry in std::fs::read_dir(run).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with("worker-") {
            files.push(entry.path().join("games.csv"));
        }
    }
    let mut seen = HashSet::new();
    let mut wins = BTreeMap::new();
    for file in files.iter().filter(|f| f.exists()) {
        for game in games_of(file) {
            if !seen.insert(game.game_id) {
                continue;
            }
            let entry: &mut (u64, u64) = wins.entry((game.game_id - 1) / 2 + 1).or_default();
            entry.0 += u64::from(game.result.winner() == Color::White);
            entry.1 += 1;
        }
    }
    wins
}

/// Checks the book in `run` against its games: every opening legal, not over, no two the
/// same; exactly the first `count` candidates whose pair split 1/2, in candidate order.
fn assert_book_of_games(run: &Path, count: usize) -> String {
    let text = std::fs::read_to_string(run.join("book.epd")).unwrap();
    let book = Book::load(
        &run.join("book.epd"),
        Rules::CaptureOnly,
        bt_arena::rules::Board::STANDARD,
    )
    .unwrap();
    assert_eq!(book.openings.len(), count, "{text}");
    assert!(book.duplicates.is_empty(), "{text}");
    let positions: HashSet<Position> = book.openings.iter().map(|o| o.position).collect();
    assert_eq!(positions.len(), count, "{text}");
    for opening in &book.openings {
        assert_eq!(opening.position.outcome(Rules::CaptureOnly), None, "{text}");
        let plies: u32 = opening.comment_field("plies").unwrap().parse().unwrap();
        assert!((3..=6).contains(&plies), "{text}");
    }
    let wins = white_wins(run);
    let expected: Vec<u64> = wins
        .iter()
        .filter(|(_, (white, games))| *games == 2 && *white == 1)
        .map(|(unit, _)| *unit)
        .take(count)
        .collect();
    let kept: Vec<u64> = book
        .openings
        .iter()
        .map(|o| o.comment_field("candidate").unwrap().parse().unwrap())
        .collect();
    assert_eq!(kept, expected, "{text}");
    // Every candidate before the last kept was measured, and its games started from it.
    let last = *kept.last().unwrap();
    assert!(
        (1..=last).all(|u| wins.get(&u).is_some_and(|w| w.1 == 2)),
        "{wins:?}"
    );
    for opening in &book.openings {
        assert!(opening.comment.contains("white 1/2"), "{text}");
    }
    text
}

#[test]
fn a_build_is_repeatable_from_its_seed_and_keeps_the_first_candidates_the_engines_decide() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let out = succeeded(&bt_arena(&args(&first, "6", &[])));
    assert!(
        out.contains(
            "Building a book: 6 openings from 24 candidates, kept when White's score \
             over 2 games between n100, n300 is in 0.25..0.75; seed 11"
        ),
        "{out}"
    );
    let book = assert_book_of_games(&first, 6);
    // One game at a time, no candidate opens past the 6th kept.
    let last_kept = book.lines().last().unwrap().rsplit(' ').next().unwrap();
    let played = white_wins(&first).keys().max().copied().unwrap();
    assert_eq!(played.to_string(), last_kept, "{book}");
    assert!(out.contains("Kept 6 of "), "{out}");
    assert!(
        out.contains(&format!("Book: {}", first.join("book.epd").display())),
        "{out}"
    );
    // candidates.csv: one row per candidate measured, kept exactly when its pair split.
    let csv = std::fs::read_to_string(first.join("candidates.csv")).unwrap();
    let wins = white_wins(&first);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(
        rows.last().unwrap().contains(",true,"),
        "the last measured is the 6th kept"
    );
    for (n, row) in rows.iter().enumerate() {
        assert!(row.starts_with(&format!("{},", n + 1)), "{row}");
        let fields: Vec<&str> = row.split(',').collect();
        let unit: u64 = fields[0].parse().unwrap();
        assert_eq!(fields[3], wins[&unit].0.to_string(), "{row}");
        assert_eq!(fields[5], (wins[&unit].0 == 1).to_string(), "{row}");
    }
    // The same seed, at another concurrency: the same bytes. Another seed: another book.
    let again = dir.path().join("again");
    succeeded(&bt_arena(&args(&again, "6", &["--concurrency", "2"])));
    assert_eq!(
        std::fs::read_to_string(again.join("book.epd")).unwrap(),
        book
    );
    let other = dir.path().join("other");
    succeeded(&bt_arena(&with(args(&other, "6", &[]), "--seed", "12")));
    assert_ne!(
        std::fs::read_to_string(other.join("book.epd")).unwrap(),
        book
    );
}

#[test]
fn a_build_killed_and_resumed_writes_the_book_of_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    succeeded(&bt_arena(&args(&whole, "12", &[])));
    let book = assert_book_of_games(&whole, 12);
    let run = dir.path().join("run");
    let killed = spawn(&args(&run, "12", &[]));
    assert!(
        eventually(Duration::from_secs(60), || {
            run.join("games.csv").exists() && games_of(&run.join("games.csv")).len() >= 5
        }),
        "five games within a minute"
    );
    // SAFETY: the child is this test's own bt-arena.
    unsafe { libc::kill(i32::try_from(killed.id()).unwrap(), libc::SIGKILL) };
    killed.wait_with_output().unwrap();
    assert!(!run.join("book.epd").exists(), "no book before the end");
    let output = bt_arena(&[
        "openings",
        "build",
        "--resume",
        path(&run),
        "--concurrency",
        "2",
    ]);
    let out = succeeded(&output);
    assert!(out.contains("Resuming a build ("), "{out}");
    assert_eq!(std::fs::read_to_string(run.join("book.epd")).unwrap(), book);
    assert_book_of_games(&run, 12);
}

#[test]
fn build_workers_write_the_book_of_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("single");
    succeeded(&bt_arena(&args(&single, "8", &[])));
    let book = std::fs::read_to_string(single.join("book.epd")).unwrap();
    let run = dir.path().join("run");
    let workers = [
        spawn(&args(&run, "8", &["--worker"])),
        spawn(&args(&run, "8", &["--worker"])),
    ];
    for worker in workers {
        let output = worker.wait_with_output().unwrap();
        let out = succeeded(&output);
        assert!(
            out.contains(": claiming candidates of a build: 8 openings"),
            "{out}"
        );
    }
    assert_eq!(std::fs::read_to_string(run.join("book.epd")).unwrap(), book);
    assert_book_of_games(&run, 8);
}

#[test]
fn a_build_from_a_book_keeps_its_openings_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source.epd");
    let shipped = bt_arena::openings::shipped_book(Rules::CaptureOnly);
    // The first 20 openings of the shipped book, the 3rd twice.
    let lines: Vec<&str> = shipped
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(20)
        .collect();
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(lines[2]);
    text.push('\n');
    std::fs::write(&source, text).unwrap();
    let run = dir.path().join("run");
    let mut build = args(&run, "4", &["--from", path(&source)]);
    let at = build.iter().position(|a| a == "--plies").unwrap();
    build.drain(at..at + 2);
    succeeded(&bt_arena(&build));
    let book = Book::load(
        &run.join("book.epd"),
        Rules::CaptureOnly,
        bt_arena::rules::Board::STANDARD,
    )
    .unwrap();
    let source = Book::load(
        &source,
        Rules::CaptureOnly,
        bt_arena::rules::Board::STANDARD,
    )
    .unwrap();
    let wins = white_wins(&run);
    let expected: Vec<Position> = wins
        .iter()
        .filter(|(_, (white, _))| *white == 1)
        .take(4)
        .map(|(unit, _)| source.openings[*unit as usize - 1].position)
        .collect();
    let kept: Vec<Position> = book.openings.iter().map(|o| o.position).collect();
    assert_eq!(kept, expected);
    assert!(wins.len() <= 20, "the repeat is no candidate: {wins:?}");
}

#[test]
fn bad_build_settings_are_refused_naming_what_and_where() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let refused = |args: &[String], code: i32, words: &str| {
        let output = bt_arena(args);
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
        assert!(stderr(&output).contains(words), "{}", stderr(&output));
    };
    refused(
        &args(&run, "3", &["--band", "0.6..0.7"]),
        3,
        "--band 0.6..0.7 keeps nothing: White's score over the 2 games of a candidate is one \
         of 0.000, 0.500, 1.000",
    );
    refused(
        &args(&run, "3", &["--band", "0.8..0.2"]),
        3,
        "invalid value '0.8..0.2' for '--band <LOW..HIGH>': LOW is above HIGH",
    );
    refused(
        &args(&run, "3", &["--band", "half"]),
        3,
        "expected LOW..HIGH",
    );
    refused(
        &with(args(&run, "3", &[]), "--plies", "0"),
        3,
        "expected N or N-M, 1 to 100",
    );
    refused(&args(&run, "0", &[]), 3, "--count 0: keep at least 1");
    refused(
        &args(&run, "3", &["--shard", "0/2"]),
        3,
        "--shard is not taken by a build",
    );
    let one = [
        "openings",
        "build",
        "--engine",
        &format!("cmd={SEARCH}"),
        "--count",
        "2",
        "--plies",
        "4",
        "--out",
        path(&run),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<_>>();
    refused(&one, 3, "--engine give at least two reference engines");
    let garbage = dir.path().join("garbage.epd");
    std::fs::write(
        &garbage,
        "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w\nnot a position\n",
    )
    .unwrap();
    let mut from = args(&run, "3", &["--from", path(&garbage)]);
    let at = from.iter().position(|a| a == "--plies").unwrap();
    from.drain(at..at + 2);
    refused(
        &from,
        4,
        &format!("opening book {} line 2: bad position", garbage.display()),
    );
    assert!(!run.exists(), "nothing written");
    let not_a_run = dir.path().join("not-a-run");
    std::fs::create_dir(&not_a_run).unwrap();
    refused(
        &[
            "openings".into(),
            "build".into(),
            "--resume".into(),
            path(&not_a_run).into(),
        ],
        4,
        "cannot resume",
    );
}

/// Two engines that play the same moves (bt-search twice at 100 nodes) split no game pair:
/// the colour decides each, so the band keeps none of the candidates, and the build says so
/// with what it saw, and writes no book.
#[test]
fn a_band_that_keeps_no_candidate_ends_the_build_with_what_was_seen() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let engine = format!("cmd={SEARCH}");
    let build: Vec<String> = [
        "openings",
        "build",
        "--engine",
        &engine,
        "nodes=100",
        "name=a",
        "--engine",
        &engine,
        "nodes=100",
        "name=b",
        "--count",
        "3",
        "--plies",
        "4",
        "--candidates",
        "5",
        "--seed",
        "3",
        "--out",
        path(&run),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let output = bt_arena(&build);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let wins = white_wins(&run);
    assert_eq!(wins.len(), 5);
    let white_won_both = wins.values().filter(|w| *w == &(2, 2)).count();
    assert_eq!(
        wins.values().filter(|w| *w == &(0, 2)).count(),
        5 - white_won_both
    );
    let mut seen = Vec::new();
    for (wins, n) in [(0, 5 - white_won_both), (2, white_won_both)] {
        if n > 0 {
            seen.push(format!("{wins}/2 in {n}"));
        }
    }
    assert!(
        stderr(&output).contains(&format!(
            "--band 0.25..0.75 kept none of the 5 candidates (White's wins: {})",
            seen.join(", ")
        )),
        "{}",
        stderr(&output)
    );
    assert!(!run.join("book.epd").exists());
}
