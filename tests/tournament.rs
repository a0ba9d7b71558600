//! `bt-arena tournament` end to end, with the real bundled engines and the faulty test engine.

use bt_arena::results::{GameRecord, GameResult, Termination, read_games};
use bt_arena::rules::{Color, Position, Rules};
use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const RANDOM: &str = env!("CARGO_BIN_EXE_bt-random");
const SEARCH: &str = env!("CARGO_BIN_EXE_bt-search");
const FAULTY: &str = env!("CARGO_BIN_EXE_bt-faulty");

fn bt_arena(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn args(text: &str, out: &Path) -> Vec<String> {
    let mut args: Vec<String> = text
        .replace("RANDOM", RANDOM)
        .replace("SEARCH", SEARCH)
        .replace("FAULTY", FAULTY)
        .split_whitespace()
        .map(String::from)
        .collect();
    args.extend(["--out".to_string(), out.display().to_string()]);
    args
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Replays a recorded game with the reference rules: every move legal, the recorded result and
/// termination the ones the rules give (for games decided on the board).
fn replay(game: &GameRecord, rules: Rules) {
    let mut position: Position = game.opening.parse().unwrap();
    let moves: Vec<&str> = game.moves.split_whitespace().collect();
    assert_eq!(moves.len() as u32, game.plies);
    for mv in moves {
        position = position
            .play(rules, mv.parse().unwrap())
            .unwrap_or_else(|e| panic!("game {}: {e}", game.game_id));
    }
    match position.outcome(rules) {
        Some(outcome) => {
            assert_eq!(game.result, GameResult::from_winner(outcome.winner));
            assert_eq!(game.termination, Termination::from(outcome.reason));
        }
        None => assert!(
            game.termination.is_fault(),
            "game {} unfinished",
            game.game_id
        ),
    }
}

#[test]
fn a_round_robin_records_every_game_in_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=r1 option.Seed=1 --engine cmd=RANDOM name=r2 option.Seed=2 \
         --engine cmd=SEARCH name=s option.Depth=1 --each tc=5+0.05 --rounds 2 --concurrency 2 --seed 9",
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    assert_eq!(games.len(), 12);
    let ids: HashSet<u64> = games.iter().map(|g| g.game_id).collect();
    assert_eq!(ids, (1..=12).collect());
    for game in &games {
        replay(game, Rules::CaptureOnly);
        let partner = games
            .iter()
            .find(|g| g.pair == game.pair && g.game_id != game.game_id)
            .unwrap();
        assert_eq!(partner.opening, game.opening);
        assert_eq!(
            (partner.white.as_str(), partner.black.as_str()),
            (game.black.as_str(), game.white.as_str())
        );
    }
    let text = stdout(&output);
    assert!(text.contains("Finished game 1 ("), "{text}");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Variant ").count(), 12);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(summary.is_object());
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["seed"], 9);
}

fn faulty_run(fault: &str, limit: &str) -> (Vec<GameRecord>, Output) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        &format!(
            "tournament --engine cmd=FAULTY name=faulty arg=--fault arg={fault} --engine cmd=RANDOM name=random \
             --each {limit} --rounds 2"
        ),
        &out,
    ));
    let games = read_games(&out.join("games.csv")).unwrap_or_default();
    (games, output)
}

fn assert_all_lost_by_faulty(games: &[GameRecord], termination: Termination) {
    assert_eq!(games.len(), 4);
    for game in games {
        let loser = match game.result.winner() {
            Color::White => &game.black,
            Color::Black => &game.white,
        };
        assert_eq!(loser, "faulty", "game {}", game.game_id);
        assert_eq!(game.termination, termination, "game {}", game.game_id);
    }
}

#[test]
fn illegal_and_unparseable_moves_lose() {
    for fault in ["illegal-move", "unparseable-move", "garbage"] {
        let (games, output) = faulty_run(fault, "tc=5+0.05");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{fault}: {}",
            stderr(&output)
        );
        assert_all_lost_by_faulty(&games, Termination::IllegalMove);
    }
}

#[test]
fn a_crash_loses_and_the_next_game_gets_a_fresh_process() {
    let (games, output) = faulty_run("crash-mid-game", "tc=5+0.05");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_all_lost_by_faulty(&games, Termination::Crash);
}

#[test]
fn a_silent_engine_loses_on_time() {
    let start = Instant::now();
    let (games, output) = faulty_run("no-bestmove", "st=0.2 timemargin=100");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_all_lost_by_faulty(&games, Termination::TimeForfeit);
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// The stray lines the faulty engine's games must record, in game order, given the moves it
/// made in each: what `fault` prints (see bt-faulty) and when the runner reads it (at its next
/// request to the process: one worker, one process for all games).
fn expected_stray(fault: &str, moves: &[u64]) -> Vec<u64> {
    let first = |k: usize, first_game: u64, later: u64| if k == 0 { first_game } else { later };
    moves
        .iter()
        .enumerate()
        .map(|(k, &moved)| match fault {
            // Once per game, after the readyok of the new game.
            "bestmove-before-go" => 1,
            // Each answer twice: the repeat of a game's last move is read in the next game.
            "double-bestmove" => moved - first(k, 1, 0),
            // Before every readyok: the start, the new game and the fence of each move.
            "bestmove-on-isready" => first(k, 2, 1) + moved,
            _ => unreachable!("{fault}"),
        })
        .collect()
}

#[test]
fn stray_bestmoves_are_never_played_and_counted_per_engine() {
    for fault in [
        "bestmove-before-go",
        "double-bestmove",
        "bestmove-on-isready",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let output = bt_arena(&args(
            &format!(
                "tournament --engine cmd=FAULTY name=faulty arg=--fault arg={fault} \
                 --engine cmd=RANDOM name=random --each tc=5+0.05 --rounds 2"
            ),
            &out,
        ));
        assert_eq!(
            output.status.code(),
            Some(0),
            "{fault}: {}",
            stderr(&output)
        );
        let games = read_games(&out.join("games.csv")).unwrap();
        assert_eq!(games.len(), 4, "{fault}");
        let mut moves = Vec::new();
        let mut recorded = Vec::new();
        for game in &games {
            // Every move legal in its position, every game decided on the board.
            replay(game, Rules::CaptureOnly);
            assert!(!game.termination.is_fault(), "{fault}: {game:?}");
            let plies = u64::from(game.plies);
            let (faulty_moves, faulty, random) = if game.white == "faulty" {
                (plies.div_ceil(2), game.white_stray, game.black_stray)
            } else {
                (plies / 2, game.black_stray, game.white_stray)
            };
            assert_eq!(random, 0, "{fault}: {game:?}");
            moves.push(faulty_moves);
            recorded.push(faulty);
        }
        let expected = expected_stray(fault, &moves);
        assert_eq!(recorded, expected, "{fault}: moves {moves:?}");
        let text = stdout(&output);
        let counted = match expected[0] {
            1 => "1 line answering no request ('".to_string(),
            n => format!("{n} lines answering no request (the first '"),
        };
        let line = match fault {
            "double-bestmove" => "bestmove ",
            _ => "bestmove a2a3'",
        };
        let warning = format!("warning: game 1: faulty wrote {counted}{line}");
        assert!(
            text.contains(&warning),
            "{fault}: no '{warning}' in:\n{text}"
        );
        assert_eq!(
            text.matches(" answering no request ").count(),
            expected.iter().filter(|&&n| n > 0).count(),
            "{fault}: {text}"
        );
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        let faults = &summary["faults"];
        assert_eq!(faults[0]["name"], "faulty");
        assert_eq!(
            faults[0]["stray_answers"],
            expected.iter().sum::<u64>(),
            "{fault}"
        );
        assert_eq!(faults[0]["illegal_moves"], 0, "{fault}");
        assert_eq!(faults[1]["stray_answers"], 0, "{fault}");
    }
}

#[test]
fn an_engine_that_cannot_start_leaves_its_games_unplayed() {
    let (games, output) = faulty_run("exit-at-start", "tc=5+0.05");
    assert_eq!(output.status.code(), Some(4), "{}", stdout(&output));
    assert!(games.is_empty());
    assert!(
        stderr(&output).contains("not played"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_flags_and_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let cases = [
        (
            "tournament --engine cmd=RANDOM colour=red --engine cmd=RANDOM name=b",
            "unknown engine key 'colour'",
        ),
        (
            "tournament --engine cmd=RANDOM --engine cmd=RANDOM",
            "two engines are named 'bt-random'",
        ),
        (
            "tournament --engine cmd=/no/such/engine name=a --engine cmd=RANDOM",
            "executable /no/such/engine not found",
        ),
        (
            "tournament --engine cmd=RANDOM name=a tc=fast --engine cmd=RANDOM",
            "bad tc 'fast'",
        ),
        (
            "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --openings file=/no/book.epd",
            "cannot read opening book /no/book.epd",
        ),
    ];
    for (command, message) in cases {
        let output = bt_arena(&args(command, &out));
        assert!(
            matches!(output.status.code(), Some(3) | Some(4)),
            "{command}"
        );
        assert!(
            stderr(&output).contains(message),
            "{command}: {}",
            stderr(&output)
        );
    }
    let output = bt_arena(&[
        "tournament".into(),
        "--resume".into(),
        "/no/such/run".into(),
    ]);
    assert_eq!(output.status.code(), Some(4));
    assert!(
        stderr(&output).contains("/no/such/run"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn sprt_stops_the_run_and_sets_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let run = |first: &str, second: &str, out: &str| {
        bt_arena(&args(
            &format!(
                "tournament --engine cmd={first} --engine cmd={second} --each depth=2 --rounds 200 \
                 --sprt elo0=0 elo1=200 alpha=0.05 beta=0.05"
            ),
            &dir.path().join(out),
        ))
    };
    let better = run("SEARCH", "RANDOM", "h1");
    assert_eq!(better.status.code(), Some(0), "{}", stderr(&better));
    assert!(stdout(&better).contains("LLR: "), "{}", stdout(&better));
    let worse = run("RANDOM", "SEARCH", "h0");
    assert_eq!(worse.status.code(), Some(1), "{}", stderr(&worse));
    let games = read_games(&dir.path().join("h0/games.csv")).unwrap();
    assert!(
        games.len() < 400,
        "the SPRT should stop long before the game limit"
    );
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // The engines run in their own working directory, so the test can find them in /proc.
    let engine_dir = dir.path().join("engines");
    std::fs::create_dir(&engine_dir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args(
            &format!(
                "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --each st=0.02 dir={} \
                 --rounds 30 --seed 3 --concurrency 2",
                engine_dir.display()
            ),
            &out,
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let csv = out.join("games.csv");
    let deadline = Instant::now() + Duration::from_secs(30);
    while read_games(&csv).map_or(0, |g| g.len()) < 5 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let orphans = || processes_in(&engine_dir);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !orphans().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        orphans(),
        Vec::<u32>::new(),
        "engines outlived the killed runner"
    );
    let before = read_games(&csv).unwrap().len();
    assert!((5..60).contains(&before), "{before} games before the kill");

    let output = bt_arena(&[
        "tournament".into(),
        "--resume".into(),
        out.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&csv).unwrap();
    assert_eq!(games.len(), 60);
    let ids: HashSet<u64> = games.iter().map(|g| g.game_id).collect();
    assert_eq!(ids, (1..=60).collect());
}

/// Processes whose working directory is `dir`.
fn processes_in(dir: &Path) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .collect()
}

#[test]
fn a_config_file_describes_the_whole_tournament_and_flags_override_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("run.toml");
    std::fs::write(
        &config,
        format!(
            r#"event = "from-file"
format = "gauntlet"
rules = "classic"
rounds = 1
games = 2
seed = 11

[[engines]]
name = "r1"
cmd = "{RANDOM}"
limit = {{ depth = 1 }}

[[engines]]
name = "r2"
cmd = "{RANDOM}"
limit = {{ move-time = 50 }}
options = {{ Seed = "3" }}

[[engines]]
name = "r3"
cmd = "{RANDOM}"
limit = {{ clock = {{ base_ms = 5000, increment_ms = 50 }} }}
"#
        ),
    )
    .unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        &format!("tournament --config {} --rounds 2", config.display()),
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    // Gauntlet: r1 meets r2 and r3, 2 games each per round, 2 rounds.
    assert_eq!(games.len(), 8);
    assert!(games.iter().all(|g| g.white == "r1" || g.black == "r1"));
    for game in &games {
        replay(game, Rules::Classic);
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    assert_eq!(saved["event"], "from-file");
    assert_eq!(saved["rounds"], 2);
    assert_eq!(saved["rules"], "classic");

    std::fs::write(&config, "rounds = 1\n[[engines]]\nname = \"x\"\n").unwrap();
    let output = bt_arena(&args(
        &format!("tournament --config {}", config.display()),
        &out,
    ));
    assert_eq!(
        output.status.code(),
        Some(4),
        "a malformed file is not a bad flag"
    );
    assert!(stderr(&output).contains("run.toml"), "{}", stderr(&output));
}

#[test]
fn resume_writes_where_it_is_told_and_checks_what_it_finds() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --each depth=1 --rounds 2 --event Weekly",
        &first,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        std::fs::read_to_string(first.join("games.pgn"))
            .unwrap()
            .contains("[Event \"Weekly\"]")
    );

    // Moved elsewhere with its last game lost: the resume plays that game there.
    let moved = dir.path().join("moved");
    std::fs::rename(&first, &moved).unwrap();
    let csv = moved.join("games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(&csv, kept.join("\n") + "\n").unwrap();
    let output = bt_arena(&[
        "tournament".into(),
        "--resume".into(),
        moved.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read_games(&csv).unwrap().len(), 4);
    assert!(!first.exists(), "the resume wrote to the old directory");

    // A repeated game is refused, not counted.
    let text = std::fs::read_to_string(&csv).unwrap();
    let repeated = text.lines().nth(1).unwrap().to_string();
    std::fs::write(&csv, format!("{text}{repeated}\n")).unwrap();
    let output = bt_arena(&[
        "tournament".into(),
        "--resume".into(),
        moved.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(4));
    assert!(
        stderr(&output).contains("recorded twice"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_decided_sprt_run_plays_no_more_games_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        "tournament --engine cmd=SEARCH name=s --engine cmd=RANDOM name=r --each depth=2 --rounds 200 \
         --sprt elo0=0 elo1=200 alpha=0.05 beta=0.05",
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let played = read_games(&out.join("games.csv")).unwrap().len();
    let output = bt_arena(&[
        "tournament".into(),
        "--resume".into(),
        out.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read_games(&out.join("games.csv")).unwrap().len(), played);
}
