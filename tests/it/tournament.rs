//! `bt-arena tournament` end to end, with the real bundled engines and the faulty test engine.

use bt_arena::records::{GameRecord, GameResult, Termination, read_games};
use bt_arena::rules::{Color, Position, Rules};
use bt_arena::stats::Sprt;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{
    FAULTY, RANDOM, SEARCH, bt_arena, bt_arena_command, bt_arena_with_env, stderr, stdout,
};

/// `bt-arena tournament --resume DIR` followed by `flags`.
fn resume(dir: &Path, flags: &str) -> Output {
    let mut args = vec![
        "tournament".to_string(),
        "--resume".to_string(),
        dir.display().to_string(),
    ];
    args.extend(flags.split_whitespace().map(String::from));
    bt_arena(&args)
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
    // summary.json is the report `elo --json` computes from the run's games.csv.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let elo = bt_arena(&["elo", "--json", out.join("games.csv").to_str().unwrap()]);
    assert_eq!(elo.status.code(), Some(0), "{}", stderr(&elo));
    let replayed: serde_json::Value = serde_json::from_slice(&elo.stdout).unwrap();
    assert_eq!(summary, replayed);
    assert_eq!(summary["games"], 12);
    assert_eq!(summary["pairs"].as_array().map(Vec::len), Some(3));
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

/// An engine that dies of a signal bt-arena did not receive (here it kills itself with SIGTERM
/// after 5 moves) has crashed: each game is lost by it, named, counted in "Losses by fault",
/// and the run goes on to its end; only a signal bt-arena itself receives stops a run. See:
/// issue 28 (such an engine stopped every run and every resume with 130).
#[test]
fn an_engine_that_kills_itself_with_sigterm_crashes_and_the_run_goes_on() {
    let (games, output) = faulty_run("sigterm-mid-game arg=--after arg=5", "tc=5+0.05");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_all_lost_by_faulty(&games, Termination::Crash);
    let out = stdout(&output);
    assert!(
        out.contains("{engine 'faulty': crashed: exited (signal: 15 (SIGTERM))"),
        "{out}"
    );
    let faults = out
        .lines()
        .skip_while(|line| !line.starts_with("Losses by fault"))
        .find(|line| line.starts_with("faulty "))
        .unwrap_or_else(|| panic!("a line of faults for faulty in {out}"));
    let counts: Vec<&str> = faults.split_whitespace().collect();
    assert_eq!(counts, ["faulty", "0", "0", "4", "0", "0"], "{out}");
    assert!(
        !stderr(&output).contains("Interrupted"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_silent_engine_loses_on_time() {
    let start = Instant::now();
    let (games, output) = faulty_run("no-bestmove", "st=0.2 timemargin=100");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_all_lost_by_faulty(&games, Termination::TimeForfeit);
    // The limit is the move time plus the margin, printed as given (not one below).
    let detail = "{engine 'faulty': no bestmove within 300 ms of go}\n";
    assert_eq!(
        stdout(&output).matches(detail).count(),
        4,
        "{}",
        stdout(&output)
    );
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// The lines of stderr that report an error.
fn error_lines(output: &Output) -> Vec<String> {
    stderr(output)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(String::from)
        .collect()
}

/// The lines of `text` that report a game not played.
fn not_played_lines(text: &str) -> usize {
    text.lines().filter(|l| l.contains(" not played: ")).count()
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
fn an_engine_that_cannot_start_is_given_up_and_resume_retries_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // bt-faulty takes its fault from the environment: the resume runs without it.
    let output = bt_arena_with_env(
        &args(
            "tournament --engine cmd=FAULTY name=faulty --engine cmd=RANDOM name=random \
             --each depth=1 --rounds 20",
            &out,
        ),
        &[("BT_FAULTY_FAULT", "exit-at-start")],
    );
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let text = stdout(&output);
    // An exit during start-up may pass: three tries, then the other 37 games are dropped.
    assert_eq!(not_played_lines(&text), 3, "{text}");
    assert!(
        text.contains("Giving up engine 'faulty' after 3 failed starts: its 37 other queued games are not played"),
        "{text}"
    );
    let errors = error_lines(&output);
    assert_eq!(errors.len(), 1, "{}", stderr(&output));
    assert!(
        errors[0]
            .starts_with("error: engine 'faulty': exited during startup: exited (exit status: 3)"),
        "{}",
        errors[0]
    );
    assert!(
        errors[0].contains(&format!(
            ". 3 failed starts in a row, so its 40 games were not played: fix it, then continue with `bt-arena tournament --resume {}`",
            out.display()
        )),
        "{}",
        errors[0]
    );
    assert_eq!(read_games(&out.join("games.csv")).unwrap().len(), 0);

    let output = resume(&out, "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    let ids: HashSet<u64> = games.iter().map(|g| g.game_id).collect();
    assert_eq!(ids, (1..=40).collect());
}

#[test]
fn a_start_failure_that_recurs_stops_after_one_game_and_timeouts_after_three() {
    let dir = tempfile::tempdir().unwrap();
    // (engine keys, not-played lines, the start error)
    let cases = [
        (
            "cmd=SEARCH name=x option.Evall=material",
            1,
            "error: engine 'x': it has no option named 'Evall'. This fails at every start, so its 400 games were not played:",
        ),
        (
            "cmd=SEARCH name=x option.Hash=99999",
            1,
            "error: engine 'x': bad value for option 'Hash'",
        ),
        (
            "cmd=FAULTY name=x arg=--fault arg=no-ugiok handshake=0.2",
            3,
            "error: engine 'x': no ugiok/uciok within 200 ms of the handshake. 3 failed starts in a row, so its 400 games were not played:",
        ),
        (
            "cmd=FAULTY name=x arg=--fault arg=no-readyok isready=0.2",
            3,
            "error: engine 'x': no readyok within 200 ms of isready (it stalls). 3 failed starts in a row, so its 400 games were not played:",
        ),
    ];
    for (index, (keys, lines, error)) in cases.into_iter().enumerate() {
        let out = dir.path().join(format!("run{index}"));
        let output = bt_arena(&args(
            &format!(
                "tournament --engine {keys} --engine cmd=RANDOM name=random --each depth=1 --rounds 200"
            ),
            &out,
        ));
        assert_eq!(output.status.code(), Some(4), "{keys}: {}", stderr(&output));
        assert_eq!(not_played_lines(&stdout(&output)), lines, "{keys}");
        let errors = error_lines(&output);
        assert_eq!(errors.len(), 1, "{keys}: {}", stderr(&output));
        assert!(errors[0].starts_with(error), "{keys}: {}", errors[0]);
    }
}

#[test]
fn other_engines_play_on_when_one_is_given_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        "tournament --engine cmd=SEARCH name=bad option.Evall=1 --engine cmd=RANDOM name=r1 \
         --engine cmd=RANDOM name=r2 --each depth=1 --rounds 2 --concurrency 2",
        &out,
    ));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    // r1 and r2 meet in 2 of the 6 games a round.
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g.white != "bad" && g.black != "bad"));
    assert!(
        stderr(&output).contains("so its 8 games were not played"),
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
        (
            "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --sprt elo0=zero,elo1=5",
            "invalid value 'elo0=zero,elo1=5' for '--sprt <elo0=E0,elo1=E1,...>': SPRT token \
             `elo0=zero` has a value that is not a number",
        ),
        (
            "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --engine cmd=RANDOM name=c --sprt elo0=0,elo1=5",
            "--sprt needs exactly two engines",
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
    let output = bt_arena(&["tournament", "--resume", "/no/such/run"]);
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
                 --sprt elo0=0,elo1=200,alpha=0.05,beta=0.05"
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

/// The first crossing of `sprt`'s bounds over `games` in file order, for engine `tested`,
/// computed here from the rule docs/guide/sprt.md gives: single games (trinomial) until a game pair is
/// complete, complete pairs (pentanomial) from then on. `(games counted, LLR)`.
fn first_crossing(games: &[GameRecord], tested: &str, sprt: &Sprt) -> Option<(usize, f64)> {
    let (lower, upper) = sprt.bounds();
    let mut open: HashMap<u64, bool> = HashMap::new();
    let (mut pentanomial, mut trinomial) = ([0u64; 5], [0u64; 3]);
    for (index, game) in games.iter().enumerate() {
        let won = game.winner_name() == tested;
        trinomial[2 * usize::from(won)] += 1;
        match open.remove(&game.pair) {
            Some(first) => pentanomial[2 * (usize::from(first) + usize::from(won))] += 1,
            None => {
                open.insert(game.pair, won);
            }
        }
        let llr = if pentanomial.iter().any(|&c| c > 0) {
            sprt.llr_pentanomial(&pentanomial.into())
        } else {
            sprt.llr_trinomial(&trinomial)
        };
        if llr <= lower || llr >= upper {
            return Some((index + 1, llr));
        }
    }
    None
}

/// The issue's run: with `--games 1` no pair is ever complete. The running test and the report
/// both count single games, so the run stops at the first crossing.
#[test]
fn an_sprt_over_single_games_stops_at_the_first_crossing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let spec = "elo0=0 elo1=200 alpha=0.05 beta=0.05";
    let output = bt_arena(&args(
        &format!(
            "tournament --engine cmd=SEARCH name=s --engine cmd=RANDOM name=r --each depth=2 \
             --games 1 --rounds 100 --sprt {spec}"
        ),
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    assert!(games.len() < 100, "the run went on: {} games", games.len());
    let sprt: Sprt = spec.parse().unwrap();
    let (at, llr) = first_crossing(&games, "s", &sprt).expect("a crossing");
    assert_eq!(
        at,
        games.len(),
        "one game at a time: none after the decision"
    );
    let text = stdout(&output);
    let line = sprt.report(llr);
    assert!(
        text.contains(&format!("SPRT decided at game {at}: {line};")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "no complete pairs: Elo from single games\n{line}\nSPRT: H1 accepted at game {at}\n"
        )),
        "{text}"
    );
}

/// With two games at a time, games still in flight at the decision are recorded after it.
/// The running test, the report, the exit code and `elo --sprt` on games.csv agree on the
/// verdict: the first crossing in file order. `--sprt` takes one quoted string too.
#[test]
fn the_running_verdict_is_the_reports_and_the_replays() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let spec = "elo0=0 elo1=20";
    let mut command = args(
        "tournament --engine cmd=RANDOM name=r --engine cmd=SEARCH name=s --each depth=2 \
         --rounds 200 --concurrency 2",
        &out,
    );
    command.extend(["--sprt".to_string(), spec.to_string()]);
    let output = bt_arena(&command);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    let sprt: Sprt = spec.parse().unwrap();
    let (at, llr) = first_crossing(&games, "r", &sprt).expect("a crossing");
    assert!(games.len() - at <= 1, "at most one game in flight");
    let line = sprt.report(llr);
    let text = stdout(&output);
    assert!(
        text.contains(&format!("SPRT decided at game {at}: {line};")),
        "{text}"
    );
    let verdict = match games.len() - at {
        0 => format!("{line}\nSPRT: H0 accepted at game {at}\n"),
        _ => format!(
            "{line}\nSPRT: H0 accepted at game {at}; 1 game after the decision (not in the LLR)\n"
        ),
    };
    assert!(text.contains(&verdict), "{text}");
    let csv = out.join("games.csv").display().to_string();
    let replay = bt_arena(&[
        "elo".into(),
        "--sprt".into(),
        "elo0=0".into(),
        "elo1=20".into(),
        csv,
    ]);
    assert_eq!(replay.status.code(), Some(1), "{}", stderr(&replay));
    assert!(stdout(&replay).contains(&verdict), "{}", stdout(&replay));
}

#[test]
fn a_killed_run_resumes_without_losing_or_repeating_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // The engines run in their own working directory, so the test can find them in /proc.
    let engine_dir = dir.path().join("engines");
    std::fs::create_dir(&engine_dir).unwrap();
    let mut child = bt_arena_command(args(
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
    wait_for_games(&csv, 5);
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

    let output = resume(&out, "");
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

/// The `go` lines sent to an engine in its `--log` file, as both sides' time (White's, Black's)
/// and `movestogo`, grouped by game.
fn clocks_sent(log: &str) -> Vec<Vec<([u64; 2], u64)>> {
    let mut games: Vec<Vec<([u64; 2], u64)>> = Vec::new();
    for line in log.lines() {
        let Some((_, sent)) = line.split_once(" > ") else {
            continue;
        };
        let words: Vec<&str> = sent.split_whitespace().collect();
        let value = |key: &str| {
            let at = words.iter().position(|word| *word == key)?;
            words.get(at + 1)?.parse::<u64>().ok()
        };
        match words.first() {
            Some(&"uginewgame") | Some(&"ucinewgame") => games.push(Vec::new()),
            Some(&"go") => {
                let times = [["p1time", "wtime"], ["p2time", "btime"]]
                    .map(|keys| keys.iter().find_map(|key| value(key)).unwrap());
                let moves_to_go = value("movestogo").unwrap_or_else(|| panic!("{line}"));
                games.last_mut().unwrap().push((times, moves_to_go));
            }
            _ => {}
        }
    }
    games
}

/// The clock of `engine` in each game of a `4/1+0` run, checked against the time each of its
/// moves took (games.csv's `move_info`, whole ms): each game starts at 1000 ms and movestogo 4;
/// a move costs its time exactly and movestogo counts down; the fourth move of a period
/// refills the clock by 1000 ms and movestogo starts at 4 again. Times on the wire are whole
/// ms rounded down, so a clock may show 1 ms less than the whole-ms difference.
fn assert_periods_of_four(engine: &str, games: &[GameRecord], log: &str) {
    let sent = clocks_sent(log);
    assert_eq!(sent.len(), games.len(), "{engine}: {log}");
    for (game, goes) in games.iter().zip(&sent) {
        let side = if game.white == engine { 0 } else { 1 };
        assert_eq!([&game.white, &game.black][side], engine);
        let infos = bt_arena::records::moves::decode_column(&game.move_info).unwrap();
        // The opening's side to move plays ply 0 of move_info.
        let first = if game.opening.parse::<Position>().unwrap().side_to_move() == Color::White {
            0
        } else {
            1
        };
        let used: Vec<u64> = infos
            .iter()
            .skip((side + 2 - first) % 2)
            .step_by(2)
            .map(|info| info.time_ms())
            .collect();
        let what = format!(
            "{engine} in game {}: sent {goes:?}, used {used:?}",
            game.game_id
        );
        assert_eq!(goes.len(), used.len(), "{what}");
        // A side plays at least 5 moves in any game: a period ends and the next begins.
        assert!(goes.len() >= 5, "{what}");
        for (index, &(times, moves_to_go)) in goes.iter().enumerate() {
            assert_eq!(moves_to_go, 4 - index as u64 % 4, "{what}");
            let time = times[side];
            if index == 0 {
                assert_eq!(time, 1000, "{what}");
                continue;
            }
            let refill = if index % 4 == 0 { 1000 } else { 0 };
            let expected = (goes[index - 1].0[side] + refill)
                .checked_sub(used[index - 1])
                .unwrap();
            assert!(
                time == expected || time + 1 == expected,
                "move {index}: {time} ms, expected {expected}: {what}"
            );
        }
    }
}

/// Runs with moves per period (`tc=4/1+0`): bt-random on both sides, one over UGI and one over
/// UCI, answers at once, so the games are quick and the clocks are checked to the
/// millisecond against the time each move took.
#[test]
fn a_clock_of_moves_per_period_sends_movestogo_and_refills_each_period() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=ugi option.Seed=1 --engine cmd=RANDOM name=uci \
         proto=uci option.Seed=2 --each tc=4/1+0 --rounds 2 --log --seed 3",
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut games = read_games(&out.join("games.csv")).unwrap();
    games.sort_by_key(|game| game.game_id);
    assert_eq!(games.len(), 4);
    for game in &games {
        replay(game, Rules::CaptureOnly);
        assert!(
            !game.termination.is_fault(),
            "game {}: {:?}",
            game.game_id,
            game.termination
        );
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    let limit = serde_json::json!({"clock": {"base_ms": 1000, "increment_ms": 0, "moves": 4}});
    assert_eq!(saved["engines"][0]["limit"], limit);
    assert_eq!(saved["engines"][1]["limit"], limit);
    for engine in ["ugi", "uci"] {
        let log = std::fs::read_to_string(out.join(format!("logs/{engine}-0.log"))).unwrap();
        assert_periods_of_four(engine, &games, &log);
    }
    let uci = std::fs::read_to_string(out.join("logs/uci-0.log")).unwrap();
    assert!(uci.contains("> go wtime 1000 btime "), "{uci}");

    let config = dir.path().join("periods.toml");
    std::fs::write(
        &config,
        format!(
            "rounds = 1\n[[engines]]\nname = \"a\"\ncmd = \"{RANDOM}\"\n\
             limit = {{ clock = {{ moves = 4, base_ms = 1000, increment_ms = 0 }} }}\n\
             [[engines]]\nname = \"b\"\ncmd = \"{RANDOM}\"\n\
             limit = {{ clock = {{ moves = 4, base_ms = 1000, increment_ms = 0 }} }}\n"
        ),
    )
    .unwrap();
    let from_file = dir.path().join("from-file");
    let output = bt_arena(&args(
        &format!("tournament --config {} --log", config.display()),
        &from_file,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut games = read_games(&from_file.join("games.csv")).unwrap();
    games.sort_by_key(|game| game.game_id);
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|game| !game.termination.is_fault()));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(from_file.join("config.json")).unwrap())
            .unwrap();
    assert_eq!(saved["engines"][0]["limit"], limit);
    for engine in ["a", "b"] {
        let log = std::fs::read_to_string(from_file.join(format!("logs/{engine}-0.log"))).unwrap();
        assert_periods_of_four(engine, &games, &log);
    }
    std::fs::write(
        &config,
        format!(
            "[[engines]]\ncmd = \"{RANDOM}\"\nname = \"a\"\n\
             limit = {{ clock = {{ moves = 0, base_ms = 1, increment_ms = 0 }} }}\n"
        ),
    )
    .unwrap();
    let output = bt_arena(&args(
        &format!("tournament --config {}", config.display()),
        &dir.path().join("zero"),
    ));
    assert_eq!(output.status.code(), Some(4));
    assert!(
        stderr(&output).contains("periods.toml"),
        "{}",
        stderr(&output)
    );
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM --engine cmd=RANDOM tc=0/60",
        &out,
    ));
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("bad tc '0/60': '0' is not a positive whole number of moves"),
        "{}",
        stderr(&output)
    );
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
fn configs_and_games_csv_saved_with_a_byte_order_mark_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("run.toml");
    let engines = format!(
        "[[engines]]\nname = \"a\"\ncmd = \"{RANDOM}\"\nlimit = {{ depth = 1 }}\n\
         [[engines]]\nname = \"b\"\ncmd = \"{RANDOM}\"\nlimit = {{ depth = 1 }}\n"
    );
    std::fs::write(&toml, format!("\u{feff}rounds = 1\ngames = 2\n{engines}")).unwrap();
    let json = dir.path().join("run.json");
    let engine =
        |name: &str| format!(r#"{{"name": "{name}", "cmd": "{RANDOM}", "limit": {{"depth": 1}}}}"#);
    std::fs::write(
        &json,
        format!(
            "\u{feff}{{\"rounds\": 1, \"games\": 2, \"engines\": [{}, {}]}}",
            engine("a"),
            engine("b")
        ),
    )
    .unwrap();
    for (config, run) in [(&toml, "toml-run"), (&json, "json-run")] {
        let out = dir.path().join(run);
        let output = bt_arena(&args(
            &format!("tournament --config {}", config.display()),
            &out,
        ));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(read_games(&out.join("games.csv")).unwrap().len(), 2);
    }

    // A games.csv saved again with a mark (as spreadsheet programs do) resumes.
    let csv = dir.path().join("json-run/games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let kept: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(&csv, format!("\u{feff}{}\n", kept.join("\n"))).unwrap();
    let output = bt_arena(&[
        "tournament".into(),
        "--resume".into(),
        dir.path().join("json-run").display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read_games(&csv).unwrap().len(), 2);
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
    let output = resume(&moved, "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read_games(&csv).unwrap().len(), 4);
    assert!(!first.exists(), "the resume wrote to the old directory");

    // A repeated game is refused, not counted.
    let text = std::fs::read_to_string(&csv).unwrap();
    let repeated = text.lines().nth(1).unwrap().to_string();
    std::fs::write(&csv, format!("{text}{repeated}\n")).unwrap();
    let output = resume(&moved, "");
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
         --sprt elo0=0,elo1=200,alpha=0.05,beta=0.05",
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let played = read_games(&out.join("games.csv")).unwrap().len();
    let output = resume(&out, "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(read_games(&out.join("games.csv")).unwrap().len(), played);
}

#[test]
fn resume_takes_only_the_flags_that_cannot_change_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --each depth=1 --rounds 2 --event Weekly",
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = out.join("games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(&csv, kept.join("\n") + "\n").unwrap();
    let config = std::fs::read_to_string(out.join("config.json")).unwrap();

    for flags in [
        "--event Other",
        "--rounds 5",
        "--seed 1",
        "--engine cmd=RANDOM",
        "--concurrency 2 --rules classic",
    ] {
        let output = resume(&out, flags);
        assert_eq!(output.status.code(), Some(3), "{flags}");
        let flag = flags
            .split_whitespace()
            .rfind(|w| w.starts_with("--"))
            .unwrap();
        assert!(
            stderr(&output).contains(&format!(
                "error: {flag} cannot be given with --resume: the run continues exactly as saved in {}",
                out.join("config.json").display()
            )),
            "{flags}: {}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty(), "{flags}: {}", stdout(&output));
    }
    assert_eq!(
        read_games(&csv).unwrap().len(),
        2,
        "a refused resume played"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("config.json")).unwrap(),
        config
    );

    let output = resume(&out, "--concurrency 0");
    assert_eq!(output.status.code(), Some(3));
    assert!(
        stderr(&output).contains("concurrency must be at least 1"),
        "{}",
        stderr(&output)
    );

    let output = resume(&out, "--concurrency 2 --log");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with(&format!(
            "Resuming 2 of 4 games (2 recorded): 2 engines, 2 rounds, capture-only rules, 2 at a time; results in {}\n",
            out.display()
        )),
        "{}",
        stdout(&output)
    );
    assert_eq!(read_games(&csv).unwrap().len(), 4);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    assert_eq!(
        (saved["concurrency"].clone(), saved["log"].clone()),
        (2.into(), true.into())
    );
    assert_eq!(saved["event"], "Weekly");
    let logs: Vec<String> = std::fs::read_dir(out.join("logs"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".log") && !name.ends_with("stderr.log"))
        .collect();
    assert!(!logs.is_empty(), "--log on resume wrote no protocol log");
}

#[test]
fn a_resume_whose_engine_can_no_longer_run_stops_at_once() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("engine");
    std::fs::copy(RANDOM, &engine).unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        &format!(
            "tournament --engine cmd={} name=gone --engine cmd=RANDOM name=b --each depth=1 --rounds 10",
            engine.display()
        ),
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = out.join("games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, text.lines().next().unwrap().to_string() + "\n").unwrap();
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o644)).unwrap();

    let output = resume(&out, "");
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert_eq!(not_played_lines(&stdout(&output)), 1, "{}", stdout(&output));
    assert!(
        stderr(&output).contains(&format!(
            "error: engine 'gone': '{}' is not an executable file. This fails at every start, so its 20 games were not played:",
            engine.display()
        )),
        "{}",
        stderr(&output)
    );
}

#[test]
fn fatal_errors_come_before_any_start_up_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let engines = "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --each depth=1";
    let assert_silent_failure = |output: &Output, message: &str| {
        assert_eq!(output.status.code(), Some(4), "{}", stderr(output));
        assert!(stderr(output).contains(message), "{}", stderr(output));
        assert!(
            stdout(output).is_empty(),
            "start-up lines before a fatal error: {}",
            stdout(output)
        );
    };

    // A missing book.
    let output = bt_arena(&args(
        &format!("{engines} --openings file=/no/book.epd"),
        &out,
    ));
    assert_silent_failure(&output, "cannot read opening book /no/book.epd");

    // Another runner holds the lock.
    std::fs::create_dir_all(&out).unwrap();
    let lock = std::fs::File::create(out.join(".lock")).unwrap();
    lock.try_lock().unwrap();
    let output = bt_arena(&args(engines, &out));
    assert_silent_failure(&output, "another bt-arena is running on");
    drop(lock);

    // A directory that already holds games.
    let output = bt_arena(&args(engines, &out));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output)
            .starts_with("Playing 2 games: 2 engines, 1 round, capture-only rules, 1 at a time;"),
        "{}",
        stdout(&output)
    );
    let output = bt_arena(&args(engines, &out));
    assert_silent_failure(
        &output,
        "already holds a run: continue it with `bt-arena tournament --resume",
    );
}

/// Two runs with the default --out started in the same second get two directories, not an
/// "already holds games" refusal of the second. Made certain rather than left to timing: the
/// directories of every second of the next two minutes, with `-2`, exist before the runs, so
/// each run takes `-3`, or `-4` when the other run already took `-3` in that second.
#[test]
fn runs_started_in_the_same_second_get_their_own_directories() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // `dup-YYYYMMDD-HHMMSS`, UTC, as the runner names a run of event `dup`.
    let base = |time: std::time::SystemTime| {
        let stamp: String = humantime::format_rfc3339_seconds(time)
            .to_string()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        format!("dup-{}-{}", &stamp[..8], &stamp[8..])
    };
    let now = std::time::SystemTime::now();
    let mut taken = HashSet::new();
    for second in 0..120 {
        let name = base(now + Duration::from_secs(second));
        for name in [name.clone(), format!("{name}-2")] {
            std::fs::create_dir_all(results.join(&name)).unwrap();
            taken.insert(name);
        }
    }
    let run = || {
        bt_arena_command(
            format!(
                "tournament --engine cmd={RANDOM} name=a --engine cmd={RANDOM} name=b \
                 --each depth=1 --rounds 1 --event dup"
            )
            .split_whitespace(),
        )
        .current_dir(dir.path())
        .output()
        .unwrap()
    };
    let mut runs = Vec::new();
    for _ in 0..2 {
        let output = run();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let new: Vec<String> = std::fs::read_dir(&results)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| !taken.contains(name))
            .collect();
        assert_eq!(new.len(), 1, "{new:?}");
        assert!(results.join(&new[0]).join("games.csv").is_file(), "{new:?}");
        taken.insert(new[0].clone());
        runs.push(new[0].clone());
    }
    let (second, suffix) = runs[0].rsplit_once('-').unwrap();
    assert_eq!(
        suffix, "3",
        "{runs:?} (a run that started two minutes late gets no suffix)"
    );
    let expected = match runs[1].strip_prefix(second) {
        Some(_) => format!("{second}-4"),
        None => format!("{}-3", runs[1].rsplit_once('-').unwrap().0),
    };
    assert_eq!(runs[1], expected, "{runs:?}");
}

/// Outside a terminal (here a pipe), the report of the games so far is printed every
/// `--rating-interval` games as one line per pair (games, Elo, LLR with its bounds), as
/// cutechess's score lines: the figures `elo` gives for the same games, in recorded order. The
/// full report comes once, at the end.
#[test]
fn an_interim_report_is_one_line_every_rating_interval_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=a option.Seed=1 --engine cmd=RANDOM name=b \
         option.Seed=2 --rounds 3 --seed 5 --rating-interval 4 --sprt elo0=0,elo1=5",
        &out,
    ));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stdout(&output);
    let interim: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("Interim"))
        .collect();
    // The line is the report of the first four games recorded.
    let csv = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let first_four: String = csv
        .lines()
        .take(5)
        .map(|line| format!("{line}\n"))
        .collect();
    let partial = dir.path().join("first-four.csv");
    std::fs::write(&partial, first_four).unwrap();
    let elo = crate::util::stdout(&bt_arena(&[
        "elo",
        "--sprt",
        "elo0=0,elo1=5",
        crate::util::path(&partial),
    ]));
    let figure = |prefix: &str| {
        elo.lines()
            .find(|line| line.starts_with(prefix))
            .unwrap_or_else(|| panic!("{elo}"))
            .to_string()
    };
    let expected = format!(
        "Interim (4 of 6 games): a vs b: 4 games, {}, {}",
        figure("Elo: ").split(", LOS").next().unwrap(),
        figure("LLR: ")
    );
    assert_eq!(interim, [expected.as_str()], "{text}");
    // The full report once, at the end.
    assert_eq!(text.matches("Losses by fault").count(), 1, "{text}");
    assert_eq!(text.matches("Results of a vs b:").count(), 1, "{text}");

    let quiet = dir.path().join("quiet");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --rounds 3 --seed 5 \
         --rating-interval 0",
        &quiet,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stdout(&output).contains("Interim"));

    // Not at the last game: the final report follows at once. Three engines: a line per pair
    // that met.
    let thirds = dir.path().join("thirds");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --engine \
         cmd=RANDOM name=c --rounds 1 --seed 5 --rating-interval 3",
        &thirds,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let interim: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("Interim"))
        .collect();
    assert!(
        (1..=3).contains(&interim.len())
            && interim
                .iter()
                .all(|line| line.starts_with("Interim (3 of 6 games): ")),
        "{text}"
    );
    assert_eq!(text.matches("Losses by fault").count(), 1, "{text}");
}

/// `--anchor NAME` (Ordo's habit): the standings, summary.json and report.html rate the pool
/// relative to NAME; a name that is no engine is refused before any game.
#[test]
fn anchor_rates_the_standings_relative_to_an_engine() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=a option.Seed=1 --engine cmd=RANDOM name=b \
         option.Seed=2 --engine cmd=RANDOM name=c option.Seed=3 --rounds 2 --seed 5 \
         --anchor b",
        &out,
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("Ratings: the pool's Bradley-Terry Elo relative to b (its rating 0)"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|line| line.split_whitespace().nth(1) == Some("b"))
        .unwrap_or_else(|| panic!("{text}"));
    let elo = row.split_whitespace().nth(2).unwrap();
    assert!(elo.ends_with("+0.00"), "{row}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["anchor"], "b");
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        page.contains("relative to \u{2068}b\u{2069}"),
        "report.html"
    );

    let refused = dir.path().join("refused");
    let output = bt_arena(&args(
        "tournament --engine cmd=RANDOM name=a --engine cmd=RANDOM name=b --anchor z",
        &refused,
    ));
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("error: --anchor z: no engine of that name (the engines: a, b)"),
        "{}",
        stderr(&output)
    );
    assert!(!refused.join("games.csv").exists());
}

/// Started outside the repository (after `cargo install`), a tournament plays the shipped book
/// built into bt-arena (`shipped:capture-only.epd` in its config): the same positions as the
/// repository's, so fixed-depth engines do not replay one game pair; no file is written for
/// it, and the run resumes after its directory was moved.
#[test]
fn outside_the_repository_the_built_in_book_is_played() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let args = args(
        "tournament --engine cmd=SEARCH name=a --engine cmd=SEARCH name=b option.Eval=material \
         --each depth=1 --rounds 3 --seed 4",
        &out,
    );
    let output = bt_arena_command(&args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output)
            .contains("Openings: shipped:capture-only.epd (built in, sequential order)\n"),
        "{}",
        stdout(&output)
    );
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["openings"]["file"], "shipped:capture-only.epd");
    assert!(!out.join("capture-only.epd").exists());
    let games = read_games(&out.join("games.csv")).unwrap();
    let openings: HashSet<&str> = games.iter().map(|g| g.opening.as_str()).collect();
    assert_eq!(openings.len(), 3, "one opening per game pair");
    // The same tournament from the repository plays the same games: one book, one digest.
    let here = dir.path().join("here");
    let from_repo = bt_arena(&args_with_out(&args, &here));
    assert_eq!(from_repo.status.code(), Some(0), "{}", stderr(&from_repo));
    let replayed = read_games(&here.join("games.csv")).unwrap();
    let moves = |games: &[GameRecord]| -> Vec<String> {
        games
            .iter()
            .map(|g| format!("{} {}", g.opening, g.moves))
            .collect()
    };
    assert_eq!(moves(&replayed), moves(&games));
    // Moved (rows removed), it resumes from anywhere and plays the same games again.
    let moved = dir.path().join("moved");
    std::fs::rename(&out, &moved).unwrap();
    let text = std::fs::read_to_string(moved.join("games.csv")).unwrap();
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(moved.join("games.csv"), kept.join("\n") + "\n").unwrap();
    let output = resume(&moved, "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        moves(&read_games(&moved.join("games.csv")).unwrap()),
        moves(&games)
    );
}

/// `args` with its `--out` replaced by `out`.
fn args_with_out(args: &[String], out: &Path) -> Vec<String> {
    let mut args = args.to_vec();
    let at = args.iter().position(|a| a == "--out").unwrap();
    args[at + 1] = out.display().to_string();
    args
}

/// SIGTERM (what `scancel` and Kubernetes send before SIGKILL) stops a run as Ctrl-C does: no
/// new game, exit 130 naming the command that continues it; `--resume` plays the rest.
#[test]
fn sigterm_stops_a_run_as_ctrl_c_does_and_resume_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let child = bt_arena_command(args(
        "tournament --engine cmd=SEARCH name=a --engine cmd=SEARCH name=b option.Eval=material \
         --each nodes=3000 --rounds 30 --seed 3 --concurrency 2",
        &out,
    ))
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let csv = out.join("games.csv");
    wait_for_games(&csv, 3);
    let pid = i32::try_from(child.id()).unwrap();
    // As scancel does: the signal to every process of the job, the engines too.
    for target in std::iter::once(pid).chain(children_of(pid)) {
        // SAFETY: sends a signal to our own child process or one of its children.
        unsafe { libc::kill(target, libc::SIGTERM) };
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(&format!(
            "Interrupted: continue with `bt-arena tournament --resume {}`",
            out.display()
        )),
        "{}",
        stderr(&output)
    );
    // An engine killed by the stop signal lost no game: the games in flight were dropped.
    let games = read_games(&csv).unwrap();
    assert!(
        games.iter().all(|g| g.termination != Termination::Crash),
        "{games:?}"
    );
    let output = resume(&out, "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&csv).unwrap();
    assert_eq!(games.len(), 60);
    assert!(games.iter().all(|g| g.termination != Termination::Crash));
}

/// The processes whose parent is `pid`.
fn children_of(pid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/stat")).is_ok_and(|stat| {
                // The parent's pid is the second field after the command in parentheses.
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<i32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

/// Waits (at most 30 s) until the games.csv at `csv` holds `count` games.
fn wait_for_games(csv: &Path, count: usize) {
    crate::util::eventually(Duration::from_secs(30), || {
        read_games(csv).map_or(0, |g| g.len()) >= count
    });
}
