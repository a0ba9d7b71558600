//! One run, one verdict (issue 18): a run directory's games read the same way by every
//! command (`merge`, `elo`, `report`, the runner), a sharded run's identity decided once,
//! a verdict standing only on every game before it, each game counted once, and results
//! files repaired on resume. Real processes: bt-arena and the bundled engines.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use crate::util::{
    RANDOM, SEARCH, bt_arena, deterministic, eventually, path, stderr, stdout, words,
};

/// The `SPRT: ...` and `LLR: ...` lines of a text report.
fn sprt_lines(output: &Output) -> Vec<String> {
    stdout(output)
        .lines()
        .filter(|line| line.starts_with("SPRT: ") || line.starts_with("LLR: "))
        .map(String::from)
        .collect()
}

/// Rows of a games.csv (without the header).
fn rows(csv: &Path) -> usize {
    std::fs::read_to_string(csv).unwrap().lines().count() - 1
}

/// Starts bt-arena with `args` and `env` in the background.
fn spawn(args: &[String], env: &[(&str, &str)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bt-arena starts")
}

/// Waits (up to a minute) until `file` exists.
fn wait_for(file: &Path) {
    let appeared = eventually(Duration::from_secs(60), || file.exists());
    assert!(appeared, "{} never appeared", file.display());
}

/// `bt-search` against `bt-random` at depth 2 with an SPRT that H1 accepts within a few
/// pairs, `rounds` pairs, seed 5.
fn strong_against_random(rounds: u32) -> String {
    format!(
        "tournament --engine cmd={SEARCH} name=search --engine cmd={RANDOM} name=random \
         --each depth=2 --rounds {rounds} --seed 5 --sprt elo0=0,elo1=200"
    )
}

// Case 1: a run whose shard never started has no verdict, whatever its games say, and says
// which games are missing and how to play them; once they are, every command agrees.
#[test]
fn a_run_missing_a_shard_has_no_verdict_until_it_is_played() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = strong_against_random(20);
    let first = bt_arena(&words(&command, &["--out", path(&run), "--shard", "0/2"]));
    // Shard 0 waits for game 3 (shard 1's) before the test can go on: it plays its 20 games.
    assert_eq!(first.status.code(), Some(5), "{}", stderr(&first));
    assert_eq!(rows(&run.join("shard-0/games.csv")), 20);
    let missing = format!(
        "Incomplete: 20 games of the schedule are missing, so the run has no verdict yet; play \
         them, then read the run again:\n  shard 1/2: 20 games (3-4, 7-8, 11-12, 15-16, 19-20, \
         23-24, ...): it never started: run the tournament's command with `--out {} --shard \
         1/2`\n",
        run.display()
    );
    assert!(stderr(&first).ends_with(&missing), "{}", stderr(&first));
    let page = dir.path().join("page.html");
    for args in [
        words("merge", &[path(&run)]),
        words("elo", &[path(&run)]),
        words("elo --sprt elo0=0,elo1=200", &[path(&run)]),
        words("report", &[path(&run), "--out", path(&page)]),
    ] {
        let output = bt_arena(&args);
        assert_eq!(
            output.status.code(),
            Some(5),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).ends_with(&missing),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stdout(&output).contains("accepted"), "{}", stdout(&output));
    }
    let listed = bt_arena(&words("elo", &[path(&run)]));
    assert!(
        stdout(&listed).contains(
            "SPRT: no verdict over the first 2 games (a game after them is \
             missing); 18 games after it not in the LLR\n"
        ),
        "{}",
        stdout(&listed)
    );

    // The other shard plays: the shared test goes on over both, decides, and every reader
    // gives that verdict.
    let second = bt_arena(&words(&command, &["--out", path(&run), "--shard", "1/2"]));
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let merged = bt_arena(&words("merge", &[path(&run)]));
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    let verdict = sprt_lines(&merged);
    assert!(
        verdict[1].starts_with("SPRT: H1 accepted at game "),
        "{verdict:?}"
    );
    for args in [
        words("elo", &[path(&run)]),
        words(
            "elo --sprt elo0=0,elo1=200",
            &[path(&run.join("games.csv"))],
        ),
    ] {
        let output = bt_arena(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(sprt_lines(&output)[..2], verdict[..2], "{args:?}");
    }
}

// Case 2: one complete two-shard run gives one verdict and one exit code to every reader.
#[test]
fn every_reader_of_a_sharded_run_gives_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = format!(
        "tournament --engine cmd={RANDOM} name=a --engine cmd={RANDOM} name=b --each depth=1 \
         --rounds 300 --sprt elo0=-40,elo1=0"
    );
    let shards: Vec<Child> = (0..2)
        .map(|k| {
            spawn(
                &words(
                    &command,
                    &["--out", path(&run), "--shard", &format!("{k}/2")],
                ),
                &[],
            )
        })
        .collect();
    let outputs: Vec<Output> = shards
        .into_iter()
        .map(|child| child.wait_with_output().unwrap())
        .collect();
    // A shard that ends while the other still plays sees the run incomplete (5); the last
    // one sees it whole.
    for output in &outputs {
        assert!(
            matches!(output.status.code(), Some(0..=2 | 5)),
            "{}",
            stderr(output)
        );
    }
    let merged = bt_arena(&words("merge", &[path(&run)]));
    let code = merged.status.code();
    assert!(matches!(code, Some(0..=2)), "{}", stderr(&merged));
    assert!(outputs.iter().any(|o| o.status.code() == code));
    let verdict = sprt_lines(&merged);
    assert!(!verdict.is_empty(), "{}", stdout(&merged));
    let x = dir.path().join("x.html");
    let readers = [
        words("elo", &[path(&run)]),
        words("elo --sprt elo0=-40,elo1=0", &[path(&run)]),
        words("elo --sprt", &["elo0=-40 elo1=0 alpha=0.05", path(&run)]),
        words(
            "elo",
            &[path(&run.join("shard-1")), path(&run.join("shard-0"))],
        ),
        words(
            "elo --sprt elo0=-40,elo1=0",
            &[path(&run.join("games.csv"))],
        ),
    ];
    for args in readers {
        let output = bt_arena(&args);
        assert_eq!(output.status.code(), code, "{args:?}: {}", stderr(&output));
        assert_eq!(
            sprt_lines(&output)[..verdict.len().min(2)],
            verdict[..verdict.len().min(2)],
            "{args:?}"
        );
    }
    for args in [
        words("report", &[path(&run)]),
        words(
            "report",
            &[
                path(&run.join("shard-1")),
                path(&run.join("shard-0")),
                "--out",
                path(&x),
            ],
        ),
    ] {
        let output = bt_arena(&args);
        assert_eq!(output.status.code(), code, "{args:?}: {}", stderr(&output));
    }
    // The page of the shards given one by one counts the run's games, as the run's page.
    let games_line = |page: &Path| {
        let text = std::fs::read_to_string(page).unwrap();
        let at = text.find(" games (written").expect("the games line");
        let start = text[..at].rfind(|c: char| !c.is_ascii_digit()).unwrap() + 1;
        text[start..at].to_string()
    };
    assert_eq!(games_line(&run.join("report.html")), games_line(&x));
}

// Case 3: a run directory reused after its shards were removed: a shard with other settings
// is refused before it plays, naming the field, and the old verdict never stops it.
#[test]
fn a_reused_run_directory_refuses_other_settings_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = strong_against_random(20);
    // Shard 0 alone is incomplete (5); shard 1 completes the run, which H1 accepts (0).
    play_two_shards(&command, &run);
    assert!(run.join("sprt.json").exists());
    for k in 0..2 {
        std::fs::remove_dir_all(run.join(format!("shard-{k}"))).unwrap();
    }
    let other = format!(
        "tournament --engine cmd={RANDOM} name=r1 --engine cmd={RANDOM} name=r2 --each depth=1 \
         --rounds 20 --seed 5 --sprt elo0=-10,elo1=10"
    );
    let output = bt_arena(&words(&other, &["--out", path(&run), "--shard", "0/2"]));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let expected = format!(
        "error: shard 0/2 cannot join the run in {}: {} was saved with other settings: field \
         `engines[0].cmd` is \"{SEARCH}\" there, \"{RANDOM}\" here. The shards or workers of one run must \
         be started with the same settings; to start another run, choose another --out or \
         remove that run's files from {0}\n",
        run.display(),
        run.join("identity.json").display()
    );
    assert_eq!(stderr(&output), expected);
    assert!(!run.join("shard-0").exists(), "nothing written");
    // The same settings join the run; its old verdict, without the games that reached it,
    // does not stop the shard: it plays, and the verdict is reached again from its games.
    let output = bt_arena(&words(&command, &["--out", path(&run), "--shard", "0/2"]));
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    assert_eq!(rows(&run.join("shard-0/games.csv")), 20);
}

// Case 4: shards started together without --seed join one run with one seed; shards started
// together with other settings: the later is refused before it plays. The race is made
// deterministic: the first shard is held between its look for the run's identity and its
// creation of one (BT_ARENA_TEST_IDENTITY_GATE) while the second starts.
#[test]
fn shards_racing_to_start_a_run_get_one_identity() {
    let dir = tempfile::tempdir().unwrap();
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/capture-only.epd");
    let unseeded = |depth: u32| {
        format!(
            "tournament --engine cmd={SEARCH} name=full --engine cmd={SEARCH} name=material \
             option.Eval=material --each depth={depth} --openings file={book} order=random \
             --rounds 6"
        )
    };
    for (second_depth, same) in [(2, true), (3, false)] {
        let run = dir.path().join(format!("run{second_depth}"));
        let gate = dir.path().join(format!("gate{second_depth}"));
        let held = spawn(
            &words(&unseeded(2), &["--out", path(&run), "--shard", "0/2"]),
            &[("BT_ARENA_TEST_IDENTITY_GATE", path(&gate))],
        );
        wait_for(&gate.with_extension("waiting"));
        assert!(
            !run.join("identity.json").exists(),
            "the held shard saw no identity"
        );
        let second = bt_arena(&words(
            &unseeded(second_depth),
            &["--out", path(&run), "--shard", "1/2"],
        ));
        assert_eq!(second.status.code(), Some(5), "{}", stderr(&second));
        std::fs::write(&gate, "").unwrap();
        let first = held.wait_with_output().unwrap();
        let identity: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("identity.json")).unwrap())
                .unwrap();
        assert_eq!(identity["created_by"], "shard 1/2");
        if same {
            assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
            for k in 0..2 {
                let config: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(run.join(format!("shard-{k}/config.json"))).unwrap(),
                )
                .unwrap();
                assert_eq!(config["seed"], identity["settings"]["seed"], "shard {k}");
                assert_eq!(config["run_id"], identity["run_id"], "shard {k}");
            }
            let merged = bt_arena(&words("merge", &[path(&run)]));
            assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
            assert!(
                stdout(&merged).starts_with("Merged 2 of 2 shards: 12 games in game-id order"),
                "{}",
                stdout(&merged)
            );
        } else {
            assert_eq!(first.status.code(), Some(4), "{}", stderr(&first));
            assert!(
                stderr(&first).contains(
                    "was saved with other settings: field `engines[0].limit.depth` is 3 there, \
                     2 here"
                ),
                "{}",
                stderr(&first)
            );
            assert!(
                !run.join("shard-0").exists(),
                "the refused shard wrote nothing"
            );
        }
    }
}

/// A finished run on one machine of `deterministic(7)`: 14 games.
fn finished_run(dir: &Path) -> PathBuf {
    let run = dir.join("single");
    let output = bt_arena(&words(&deterministic(7), &["--out", path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    run
}

// Case 5: a game that comes twice is refused, naming both places: the same file twice, a
// repeated row, a run's games.csv with its own games.pgn, a copied shard directory.
#[test]
fn a_game_read_twice_is_refused_naming_both_places() {
    let dir = tempfile::tempdir().unwrap();
    let run = finished_run(dir.path());
    let csv = run.join("games.csv");
    let pgn = run.join("games.pgn");
    let output = bt_arena(&words("elo", &[path(&csv), path(&csv)]));
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "error: {} is given twice: its games would be counted twice\n",
            csv.display()
        )
    );
    let output = bt_arena(&words("elo", &[path(&csv), path(&pgn)]));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).starts_with(&format!(
            "error: cannot read the games: game 1 of one run comes twice: {} line 2 and {} (game \
             1 of the file)",
            csv.display(),
            pgn.display()
        )),
        "{}",
        stderr(&output)
    );
    let output = bt_arena(&words("elo", &[path(&run), path(&pgn)]));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    // A copy of the run's games kept elsewhere holds the same games: known by their content.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::copy(&pgn, elsewhere.join("kept.pgn")).unwrap();
    let output = bt_arena(&words(
        "elo",
        &[path(&run), path(&elsewhere.join("kept.pgn"))],
    ));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("game 1 of one run comes twice"),
        "{}",
        stderr(&output)
    );
    // Two runs' files downloaded into one folder are two runs' games, not one's twice.
    let other = dir.path().join("other");
    let output = bt_arena(&words(
        // Another draw of the book: a deterministic replay would be the same games.
        &deterministic(7).replace("--seed 11", "--seed 12 --openings order=random"),
        &["--out", path(&other)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let downloads = dir.path().join("downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    std::fs::copy(&csv, downloads.join("run1.csv")).unwrap();
    std::fs::copy(other.join("games.csv"), downloads.join("run2.csv")).unwrap();
    let output = bt_arena(&words(
        "elo",
        &[
            path(&downloads.join("run1.csv")),
            path(&downloads.join("run2.csv")),
        ],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("Games: 28\n"),
        "{}",
        stdout(&output)
    );

    let copy = dir.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let third = text.lines().nth(3).unwrap();
    std::fs::write(copy.join("games.csv"), format!("{text}{third}\n")).unwrap();
    let output = bt_arena(&words("elo", &[path(&copy.join("games.csv"))]));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let file = copy.join("games.csv");
    assert!(
        stderr(&output).starts_with(&format!(
            "error: cannot read the games: game 3 of one run comes twice: {} line 4 and {0} line \
             16",
            file.display()
        )),
        "{}",
        stderr(&output)
    );

    let sharded = dir.path().join("sharded");
    play_two_shards(&deterministic(7), &sharded);
    let copied = sharded.join("shard-5");
    std::fs::create_dir_all(&copied).unwrap();
    for file in ["config.json", "games.csv"] {
        std::fs::copy(sharded.join("shard-0").join(file), copied.join(file)).unwrap();
    }
    for args in [
        words("elo", &[path(&sharded)]),
        words("merge", &[path(&sharded)]),
    ] {
        let output = bt_arena(&args);
        assert_eq!(
            output.status.code(),
            Some(4),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(&format!(
                "{} and {} are both shard 0/2",
                sharded.join("shard-0").display(),
                copied.display()
            )),
            "{}",
            stderr(&output)
        );
    }
}

// Case 6: killed between a game's PGN and its CSV row, then resumed: games.pgn is brought
// back to exactly the games of games.csv, and the game replayed is in it once.
#[test]
fn a_resume_brings_games_pgn_back_to_the_games_of_games_csv() {
    let dir = tempfile::tempdir().unwrap();
    let run = finished_run(dir.path());
    let csv = run.join("games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let kept: Vec<&str> = text.lines().collect();
    // Game 14's row never written; its PGN was. The engines are deterministic, so the replay
    // plays the same moves: the stale record is marked by its move times (7.777 s each, which
    // no move of the replay takes) to tell it from the replay's.
    std::fs::write(&csv, kept[..kept.len() - 1].join("\n") + "\n").unwrap();
    let pgn_path = run.join("games.pgn");
    let pgn = std::fs::read_to_string(&pgn_path).unwrap();
    let at = pgn.find("[X-GameId \"14\"]").expect("game 14 in games.pgn");
    let (before, game_14) = pgn.split_at(at);
    let end = game_14.find("[Event ").unwrap_or(game_14.len());
    let marked = marked_times(&game_14[..end]);
    assert_ne!(marked, game_14[..end], "game 14's PGN has move times");
    std::fs::write(&pgn_path, format!("{before}{marked}{}", &game_14[end..])).unwrap();
    let output = bt_arena(&words("tournament --resume", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!(
            "warning: {}: 1 game that games.csv does not hold (written before a kill, or twice) \
             removed: game 14\n",
            run.join("games.pgn").display()
        )),
        "{}",
        stderr(&output)
    );
    let pgn = std::fs::read_to_string(run.join("games.pgn")).unwrap();
    let mut ids: Vec<u64> = pgn
        .lines()
        .filter_map(|line| line.strip_prefix("[X-GameId \""))
        .map(|rest| rest.trim_end_matches("\"]").parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 14);
    ids.sort_unstable();
    assert_eq!(ids, (1..=14).collect::<Vec<u64>>());
    assert_eq!(rows(&csv), 14);
    // Game 14's PGN record is the replay's: its move times are those of its new CSV row.
    let times = |game: &bt_arena::records::GameRecord| -> Vec<u64> {
        bt_arena::records::moves::decode_column(&game.move_info)
            .unwrap()
            .iter()
            .map(|info| info.time_ms)
            .collect()
    };
    let from_csv = bt_arena::records::read_games(&csv).unwrap();
    let from_pgn = bt_arena::records::pgn::read_pgn(&run.join("games.pgn")).unwrap();
    let replayed = |games: &[bt_arena::records::GameRecord]| {
        let game = games.iter().find(|g| g.game_id == 14).expect("game 14");
        times(game)
    };
    let (row, record) = (replayed(&from_csv), replayed(&from_pgn.games));
    assert!(!row.is_empty() && !row.contains(&7777), "{row:?}");
    assert_eq!(record, row, "game 14's PGN record is not the replay's");
}

/// The text of a game's PGN record with each move time (`0.120s`) replaced by `7.777s`.
fn marked_times(record: &str) -> String {
    record
        .split(' ')
        .map(|word| {
            let (time, rest) = word.split_at(word.find(['s']).unwrap_or(0));
            let is_time = !time.is_empty()
                && time.contains('.')
                && time.chars().all(|c| c.is_ascii_digit() || c == '.');
            if is_time {
                format!("7.777{rest}")
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

// Case 7: a last row without its newline is never counted silently: every reader warns,
// naming the file and the game, and --resume replays the game.
#[test]
fn a_last_row_without_its_newline_is_named_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let run = finished_run(dir.path());
    let csv = run.join("games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, text.trim_end_matches('\n')).unwrap();
    let line = format!(
        "warning: {}, line 15: game 14's row has no line end (cut off by a kill, or its newline \
         dropped by an editor; `--resume` plays it again): not counted\n",
        csv.display()
    );
    for args in [words("elo", &[path(&run)]), words("elo", &[path(&csv)])] {
        let output = bt_arena(&args);
        assert!(
            stderr(&output).starts_with(&line),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stdout(&output).contains("Games: 13,"),
            "{}",
            stdout(&output)
        );
    }
    // Read as a run, game 14 is missing: incomplete.
    assert_eq!(
        bt_arena(&words("elo", &[path(&run)])).status.code(),
        Some(5)
    );
    let output = bt_arena(&words("tournament --resume", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!(
            "warning: {}, line 15: game 14's row had no line end (cut off by a kill, or its \
             newline dropped by an editor): removed, and its game is played again\n",
            csv.display()
        )),
        "{}",
        stderr(&output)
    );
    assert!(
        stdout(&output).contains("Resuming 1 of 14 games (13 recorded)"),
        "{}",
        stdout(&output)
    );
    assert_eq!(rows(&csv), 14);
    let output = bt_arena(&words("elo", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
}

/// A complete two-shard run of `deterministic(7)` in `dir/name`.
fn sharded_run(dir: &Path, name: &str) -> PathBuf {
    let run = dir.join(name);
    play_two_shards(&deterministic(7), &run);
    run
}

/// Plays `command` as shards 0/2 and 1/2 of the run `run`, one after the other: shard 0 alone
/// is incomplete (exit 5), shard 1 completes the run (exit 0, or its verdict's code: 0 for H1).
fn play_two_shards(command: &str, run: &Path) {
    for (k, code) in [(0, 5), (1, 0)] {
        let output = bt_arena(&words(
            command,
            &["--out", path(run), "--shard", &format!("{k}/2")],
        ));
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
    }
}

// Found by an adversarial pass: the same file or directory under another name is given
// twice; shards of different runs given one by one are refused by every reader alike.
#[test]
fn inputs_given_twice_or_of_different_runs_are_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let run = sharded_run(dir.path(), "run");
    let csv = run.join("shard-0/games.csv");
    let link = dir.path().join("hard.csv");
    std::fs::hard_link(&csv, &link).unwrap();
    let shard = run.join("shard-0");
    let again = format!("{}/../shard-0", shard.display());
    for args in [
        words("elo", &[path(&csv), path(&link)]),
        words("elo", &[path(&shard), &again]),
        words("elo", &[path(&run), path(&shard)]),
    ] {
        let output = bt_arena(&args);
        assert_eq!(
            output.status.code(),
            Some(3),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("is given twice"),
            "{}",
            stderr(&output)
        );
    }
    // Shard 1 of another run (another seed) beside shard 0 of this one.
    let other = dir.path().join("other");
    let output = bt_arena(&words(
        &deterministic(7).replace("--seed 11", "--seed 12"),
        &["--out", path(&other), "--shard", "1/2"],
    ));
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    let page = dir.path().join("x.html");
    let merged = dir.path().join("merged");
    let (a, b) = (path(&shard).to_string(), other.join("shard-1"));
    for args in [
        words("elo", &[&a, path(&b)]),
        words("report", &[&a, path(&b), "--out", path(&page)]),
        words("merge --out", &[path(&merged), &a, path(&b)]),
    ] {
        let output = bt_arena(&args);
        assert_eq!(
            output.status.code(),
            Some(4),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(&format!(
                "{a} and {} are not shards of one run: field `seed` is 11 there, 12 here",
                b.display()
            )),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // A merge never writes into another run's directory.
    let output = bt_arena(&words("merge --out", &[path(&other), path(&run)]));
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("it holds a run"),
        "{}",
        stderr(&output)
    );
}

// Found by an adversarial pass: a recorded verdict the games do not bear out (stale, edited,
// unreadable) is never shown as the verdict; a shard killed before saving its config never
// started.
#[test]
fn the_verdict_is_the_games_whatever_sprt_json_and_half_started_shards_say() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = strong_against_random(20);
    play_two_shards(&command, &run);
    let record = run.join("sprt.json");
    let text = std::fs::read_to_string(&record).unwrap();
    let honest = bt_arena(&words("elo", &[path(&run)]));
    assert!(stdout(&honest).contains("over the games of every shard (recorded by shard"));
    std::fs::write(&record, text.replace("\"AcceptH1\"", "\"AcceptH0\"")).unwrap();
    let output = bt_arena(&words("elo", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stdout(&output).contains("H0"), "{}", stdout(&output));
    assert!(
        stderr(&output).contains(&format!(
            "warning: {} records H0 at game ",
            record.display()
        )),
        "{}",
        stderr(&output)
    );
    std::fs::write(&record, "not json").unwrap();
    for args in [words("elo", &[path(&run)]), words("merge", &[path(&run)])] {
        let output = bt_arena(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("the record is ignored"),
            "{}",
            stderr(&output)
        );
    }
    // A shard directory without its config (killed as it started) never started.
    std::fs::create_dir_all(run.join("shard-2")).unwrap();
    let output = bt_arena(&words("elo", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

// Found by an adversarial pass: a decided run resumed after its last row lost its newline
// plays that game again (a pair is never cut in half), and games.pgn gets back the games it
// lost; a cut inside the game id names no game.
#[test]
fn a_resume_after_the_verdict_finishes_its_pairs_and_restores_games_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = format!(
        "tournament --engine cmd={SEARCH} name=search --engine cmd={RANDOM} name=random \
         --each depth=2 --rounds 40 --seed 5 --sprt elo0=0,elo1=200"
    );
    let output = bt_arena(&words(&command, &["--out", path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = run.join("games.csv");
    let rows_before = rows(&csv);
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, text.trim_end_matches('\n')).unwrap();
    let pgn = run.join("games.pgn");
    std::fs::remove_file(&pgn).unwrap();
    let output = bt_arena(&words("tournament --resume", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("had no line end"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("missing from it written again from games.csv"),
        "{}",
        stderr(&output)
    );
    assert_eq!(rows(&csv), rows_before, "the pair's game is played again");
    // Every game once, none missing: the ids are exactly 1..=n, in games.csv and games.pgn.
    let mut ids: Vec<u64> = std::fs::read_to_string(&pgn)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("[X-GameId \""))
        .map(|rest| rest.trim_end_matches("\"]").parse().unwrap())
        .collect();
    ids.sort_unstable();
    let all: Vec<u64> = (1..=rows_before as u64).collect();
    assert_eq!(ids, all);
    let mut csv_ids: Vec<u64> = bt_arena::records::read_games(&csv)
        .unwrap()
        .iter()
        .map(|g| g.game_id)
        .collect();
    csv_ids.sort_unstable();
    assert_eq!(csv_ids, all);
    // A cut inside the game id: the game is not named.
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, format!("{text}1")).unwrap();
    let output = bt_arena(&words("elo", &[path(&run)]));
    assert!(
        stderr(&output).contains(": a row has no line end"),
        "{}",
        stderr(&output)
    );
}

// Found by an adversarial pass: a book changed between two shards' starts is another run.
#[test]
fn a_book_changed_under_a_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/capture-only.epd");
    std::fs::copy(shipped, &book).unwrap();
    let command = format!(
        "tournament --engine cmd={RANDOM} name=a --engine cmd={RANDOM} name=b --each depth=1 \
         --rounds 4 --seed 3 --openings file={}",
        book.display()
    );
    let run = dir.path().join("run");
    let output = bt_arena(&words(&command, &["--out", path(&run), "--shard", "0/2"]));
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    let text = std::fs::read_to_string(&book).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    std::fs::write(&book, lines.join("\n") + "\n").unwrap();
    let output = bt_arena(&words(&command, &["--out", path(&run), "--shard", "1/2"]));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("field `openings.digest`"),
        "{}",
        stderr(&output)
    );
    let output = bt_arena(&words(
        "tournament --resume",
        &[path(&run), "--shard", "0/2"],
    ));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("changed since the run started"),
        "{}",
        stderr(&output)
    );
}

/// One shard of a complete run, given alone, has no verdict (its run's other games are not
/// read), and the note says where the other shard is rather than that it never started.
#[test]
fn a_shard_given_alone_names_the_shard_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = sharded_run(dir.path(), "run");
    let output = bt_arena(&words("elo", &[path(&run.join("shard-0"))]));
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!(
            ": not given: it is in {}; give the run directory {} for every shard",
            run.join("shard-1").display(),
            run.display()
        )),
        "{}",
        stderr(&output)
    );
    let output = bt_arena(&words("elo", &[path(&run)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// Two runs of deterministic engines play the same games: as run directories they are two
/// runs (each given once), counted both; a run's config.json used as a template starts a run
/// of its own (its own run id).
#[test]
fn two_runs_of_the_same_games_are_two_runs() {
    let dir = tempfile::tempdir().unwrap();
    let first = finished_run(dir.path());
    let second = dir.path().join("again");
    let output = bt_arena(&words(&deterministic(7), &["--out", path(&second)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = bt_arena(&words("elo", &[path(&first), path(&second)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("Games: 28\n"),
        "{}",
        stdout(&output)
    );
    let template = dir.path().join("template");
    let output = bt_arena(&words(
        "tournament --config",
        &[path(&first.join("config.json")), "--out", path(&template)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let run_id = |run: &Path| -> serde_json::Value {
        let text = std::fs::read_to_string(run.join("config.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["run_id"].clone()
    };
    assert_ne!(run_id(&template), run_id(&first));
    let output = bt_arena(&words("elo", &[path(&first), path(&template)]));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("Games: 28\n"),
        "{}",
        stdout(&output)
    );
}
