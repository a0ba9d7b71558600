//! CodinGame bots as engines (`proto=codingame`), with real processes: the bundled bot
//! (`bt-search codingame`) and bt-faulty's CodinGame mode (`--codingame`) in tournaments,
//! SPRTs, tunes and check-engine; the exact input a bot reads; its clock; its faults; and the
//! commands that refuse bots.

use crate::util::{FAULTY, RANDOM, SEARCH, bt_arena, path, stderr, stdout};
use bt_arena::protocol::codingame::{MoveOrder, Turn};
use bt_arena::records::{GameRecord, GameResult, Termination, read_games};
use bt_arena::rules::{Color, Move, Position, Rules};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Where the clock is not the point: a margin no load on a shared machine uses up (CodinGame's
/// limits, 1000 and 100 ms with no margin, are met by a few ms on an idle machine; a loaded one
/// can hold a process back for as long).
const ROOMY: &str = "--each timemargin=5000";

/// A book holding the start position alone: games as on CodinGame, no forced turns.
fn start_book(dir: &Path) -> PathBuf {
    let book = dir.join("start.epd");
    std::fs::write(&book, "startpos\n").expect("the book is written");
    book
}

/// The words of a command line: `text` split at white space, then `extra` as they are.
fn args(text: &str, extra: &[&str]) -> Vec<String> {
    text.split_whitespace()
        .map(String::from)
        .chain(extra.iter().map(|s| s.to_string()))
        .collect()
}

/// A tournament into `out` of `engines` (each a list of `--engine` words) with `flags`.
fn tournament(out: &Path, engines: &[Vec<String>], flags: &str) -> Output {
    let mut words = args(&format!("tournament --out {} {flags}", path(out)), &[]);
    for engine in engines {
        words.push("--engine".to_string());
        words.extend(engine.iter().cloned());
    }
    bt_arena(&words)
}

/// One round (two games) of `bot` against bt-random into `out`, classic rules, from the
/// openings of `book`, with `extra` flags; the run must exit 0. Its output and games.
fn against_random(
    out: &Path,
    bot: Vec<String>,
    book: &Path,
    extra: &str,
) -> (Output, Vec<GameRecord>) {
    let flags = format!(
        "--rules classic --rounds 1 --openings file={} {extra}",
        path(book)
    );
    let output = tournament(out, &[bot, random()], &flags);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    assert_eq!(games.len(), 2);
    (output, games)
}

/// bt-faulty as a CodinGame bot named `name` with `faulty` arguments and other `keys`.
fn faulty_bot(name: &str, faulty: &str, keys: &[&str]) -> Vec<String> {
    let mut words = vec![
        format!("cmd={FAULTY}"),
        format!("name={name}"),
        "proto=codingame".to_string(),
        format!("args=--codingame {faulty}"),
    ];
    words.extend(keys.iter().map(|k| k.to_string()));
    words
}

/// bt-random over UGI, named `random`.
fn random() -> Vec<String> {
    vec![format!("cmd={RANDOM}"), "name=random".to_string()]
}

/// The position after `moves` from `start`, each judged by `rules`.
fn replay(start: &Position, moves: &[Move], rules: Rules) -> Position {
    moves.iter().fold(*start, |position, &mv| {
        position
            .play(rules, mv)
            .unwrap_or_else(|err| panic!("{mv} in {position}: {err}"))
    })
}

/// The moves of a game.
fn moves_of(game: &GameRecord) -> Vec<Move> {
    game.moves
        .split_whitespace()
        .map(|mv| mv.parse().expect("a move"))
        .collect()
}

/// Asserts that `game` is what the rules say: every move legal; a game ended by the rules
/// ends in the position its moves reach, with that winner; a fault is the loser's, after
/// legal moves. Also one `move_info` and one `move_times` token per ply.
fn assert_replays(game: &GameRecord, rules: Rules) {
    let start: Position = game.opening.parse().expect("an opening");
    let moves = moves_of(game);
    assert_eq!(moves.len() as u32, game.plies);
    let end = replay(&start, &moves, rules);
    let winner = match game.result {
        GameResult::WhiteWins => Color::White,
        GameResult::BlackWins => Color::Black,
    };
    match end.outcome(rules) {
        Some(outcome) => {
            assert_eq!(outcome.winner, winner, "game {}", game.game_id);
            assert!(!game.termination.is_fault(), "game {}", game.game_id);
        }
        None => {
            assert!(game.termination.is_fault(), "game {}", game.game_id);
            assert_eq!(
                end.side_to_move(),
                winner.opponent(),
                "game {}",
                game.game_id
            );
        }
    }
    let tokens = |column: &str| column.split_whitespace().count();
    assert_eq!(
        tokens(&game.move_info),
        moves.len(),
        "game {}",
        game.game_id
    );
    assert_eq!(
        tokens(&game.move_times),
        moves.len(),
        "game {}",
        game.game_id
    );
}

#[test]
fn the_bundled_bot_plays_bt_search_over_ugi_and_every_game_replays_by_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let bot = args(
        &format!("cmd={SEARCH} name=bot proto=codingame"),
        &["args=codingame --depth 2"],
    );
    let ugi = args(&format!("cmd={SEARCH} name=ugi nodes=300"), &[]);
    let output = tournament(
        &out,
        &[bot, ugi],
        &format!("--rules classic --rounds 3 {ROOMY}"),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    assert_eq!(games.len(), 6);
    for game in &games {
        assert_replays(game, Rules::Classic);
        // The shipped book's openings reach the bot as forced turns.
        assert_ne!(game.opening, Position::startpos().to_string());
        assert!(!game.termination.is_fault(), "{game:?}");
        // Every move has its wall time; the bot reports no time of its own.
        let bot_white = game.white == "bot";
        for (ply, token) in game.move_times.split_whitespace().enumerate() {
            let (wall, own) = token.split_once('/').expect("WALL/ENGINE");
            assert!(wall.parse::<u64>().is_ok(), "{token}");
            assert_eq!(own == "-", (ply % 2 == 0) == bot_white, "{token}");
        }
    }
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[X-WhiteLimit \"tc=codingame\"]").count(), 3);
    // Each bot move's message (its depth and score) is a PGN comment, not in games.csv.
    assert!(pgn.contains(", msg=\"d2 "), "{pgn}");
    let csv = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(!csv.contains("d2 +0.") && !csv.contains("d2 -0."), "{csv}");
    let log = std::fs::read_to_string(out.join("logs/bot-0.stderr.log")).unwrap();
    assert!(
        log.contains("bt-search codingame: turn 1: the only move"),
        "{log}"
    );
}

/// The turns a bot playing `side` was told in `game` (from the start position), in `order`.
fn expected_turns(game: &GameRecord, side: Color, order: MoveOrder, rules: Rules) -> Vec<String> {
    let moves = moves_of(game);
    let mut lines = Vec::new();
    let mut position = Position::startpos();
    for (ply, &mv) in moves.iter().enumerate() {
        if position.side_to_move() == side {
            let turn = Turn {
                last: ply.checked_sub(1).map(|last| moves[last]),
                moves: order.moves(&position, rules),
            };
            lines.extend(turn.lines());
        }
        position = position.play_unchecked(mv);
    }
    // The bot's last turn, when the game ended on its move or the opponent's fault, is not
    // counted here: games below end by the rules on a move of either side.
    if position.outcome(rules).is_none() && position.side_to_move() == side {
        panic!(
            "game {} ended on the bot's turn without a result",
            game.game_id
        );
    }
    lines
}

#[test]
fn a_bot_reads_none_the_count_and_the_legal_moves_in_the_order_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let book = start_book(dir.path());
    for order in [MoveOrder::CodinGame, MoveOrder::Sorted] {
        let out = dir.path().join(format!("run-{order}"));
        let echo = dir.path().join(format!("echo-{order}.txt"));
        // The echo file is given through a placeholder of the arguments, filled by an option.
        let bot = faulty_bot(
            "echo",
            "--seed 7 --echo {Echo}",
            &[
                &format!("option.Echo={}", path(&echo)),
                &format!("moveorder={order}"),
            ],
        );
        let (_, games) = against_random(&out, bot, &book, ROOMY);
        let mut expected = Vec::new();
        let mut starts = Vec::new();
        for game in &games {
            assert_replays(game, Rules::Classic);
            let side = match game.white.as_str() {
                "echo" => Color::White,
                _ => Color::Black,
            };
            starts.push(expected.len());
            expected.extend(expected_turns(game, side, order, Rules::Classic));
        }
        let read = std::fs::read_to_string(&echo).unwrap();
        let read: Vec<&str> = read.lines().collect();
        assert_eq!(read, expected, "{order}");
        // As White (game 1) it reads None first; as Black (game 2), White's first move.
        assert_eq!(games[0].white, "echo");
        assert_eq!(read[starts[0]], "None");
        let first_white = games[1].moves.split_whitespace().next().unwrap();
        assert_eq!(read[starts[1]], first_white);
        if order == MoveOrder::CodinGame {
            assert_eq!(&read[1..4], ["22", "a2b3", "a2a3"]);
        } else {
            assert_eq!(&read[1..4], ["22", "a2a3", "a2b3"]);
        }
    }
}

#[test]
fn a_game_from_an_opening_reaches_the_bot_as_forced_turns_of_one_move() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let echo = dir.path().join("echo.txt");
    let opening = "pppppppp/1ppp1ppp/1p1p4/8/8/4P1P1/PPPP1PP1/PPPPPPPP w";
    let book = dir.path().join("one.epd");
    std::fs::write(&book, format!("{opening}\n")).unwrap();
    let bot = faulty_bot("echo", &format!("--seed 7 --echo {}", path(&echo)), &[]);
    let (_, games) = against_random(&out, bot, &book, ROOMY);
    assert_eq!(games[0].white, "echo");
    // Game 1, as White: four plies lead to the opening, two of them its own, told as turns of
    // one move; then its first real turn, with the opening's 27 legal moves.
    let read = std::fs::read_to_string(&echo).unwrap();
    let lines: Vec<&str> = read.lines().collect();
    assert_eq!(lines[0], "None");
    assert_eq!(lines[1], "1");
    assert_eq!(lines[4], "1");
    let told: Vec<Move> = [lines[2], lines[3], lines[5], lines[6]]
        .iter()
        .map(|mv| mv.parse().unwrap())
        .collect();
    assert_eq!(
        replay(&Position::startpos(), &told, Rules::Classic).to_string(),
        opening
    );
    let legal = MoveOrder::CodinGame.moves(&opening.parse().unwrap(), Rules::Classic);
    assert_eq!(lines[7], legal.len().to_string());
    let listed: Vec<String> = legal.iter().map(Move::to_string).collect();
    assert_eq!(&lines[8..8 + legal.len()], listed);
    for game in &games {
        assert_replays(game, Rules::Classic);
        assert_eq!(game.opening, opening);
    }
}

/// A run of bt-faulty's `slow-turn` bot (`faulty` its arguments, `keys` its other keys)
/// against bt-random from the start, two games; the games.
fn slow_run(dir: &Path, name: &str, faulty: &str, keys: &[&str]) -> Vec<GameRecord> {
    let out = dir.join(name);
    let _ = std::fs::remove_dir_all(&out);
    let book = start_book(dir);
    let bot = faulty_bot(
        "slow",
        &format!("--seed 3 --fault slow-turn {faulty}"),
        keys,
    );
    against_random(&out, bot, &book, "").1
}

#[test]
fn codingames_clock_forfeits_a_late_turn_and_the_limits_can_be_widened() {
    let dir = tempfile::tempdir().unwrap();
    // 150 ms on turn 3 at 100 ms a turn: lost on time there, as White (ply 5) and as Black
    // (ply 6), whatever the load.
    // (A loaded machine may hold an instant turn back past 100 ms first: then it is tried
    // again, up to 3 times.)
    let at_turn_3 = |games: &[GameRecord]| {
        games.iter().zip([4, 5]).all(|(game, plies)| {
            game.termination == Termination::TimeForfeit && game.plies == plies
        })
    };
    let late = (1..=3)
        .map(|_| slow_run(dir.path(), "late", "--turn 3 --delay-ms 150", &[]))
        .find(|games| at_turn_3(games));
    let late = late.expect("lost on time at turn 3 in one of 3 runs");
    for game in &late {
        assert_replays(game, Rules::Classic);
    }
    // Not with 200 ms a turn, nor with a margin of 60 ms, nor 900 ms on the first turn. These
    // leave 50, 10 and 100 ms for the machine: a loaded one can hold a process back for longer
    // (and its instant turns for over 100 ms), so a run that loses on time is tried again, up
    // to 3 times; a loss is only ever a turn over its limit and margin (the message says by
    // how much).
    for (name, faulty, keys) in [
        (
            "wider",
            "--turn 3 --delay-ms 150",
            &["tc=codingame:1000,200"][..],
        ),
        ("margin", "--turn 3 --delay-ms 150", &["timemargin=60"][..]),
        ("first", "--turn 1 --delay-ms 900", &[][..]),
    ] {
        let kept = (1..=3).find_map(|attempt| {
            let games = slow_run(dir.path(), name, faulty, keys);
            games
                .iter()
                .all(|game| !game.termination.is_fault())
                .then_some((attempt, games))
        });
        let (attempt, games) = kept.unwrap_or_else(|| panic!("{name}: lost on time 3 times"));
        if attempt > 1 {
            eprintln!("{name}: played without a loss on attempt {attempt}");
        }
        for game in &games {
            assert_replays(game, Rules::Classic);
            // The slow turn was played: as White it is ply 5 (turn 3) or 1 (turn 1).
            assert!(game.plies > 5, "{name}: {game:?}");
        }
    }
}

#[test]
fn a_bots_faults_are_named_losses_or_warnings_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let book = start_book(dir.path());
    // Where the clock is not the fault, it is kept out of the way.
    let roomy = ["timemargin=5000"];
    for (fault, termination, words) in [
        (
            "crash-mid-game --after 2",
            Some(Termination::Crash),
            "crashed: exited",
        ),
        (
            "garbage",
            Some(Termination::IllegalMove),
            "'#@!%&' is illegal",
        ),
        ("illegal-move", Some(Termination::IllegalMove), "is illegal"),
        (
            "no-bestmove",
            Some(Termination::TimeForfeit),
            "no move within 1000 ms",
        ),
        (
            "extra-lines",
            None,
            "lines answering no request (the first 'debug: this line",
        ),
    ] {
        let out = dir.path().join(fault.split_whitespace().next().unwrap());
        let keys = match fault {
            "no-bestmove" => &[][..],
            _ => &roomy[..],
        };
        let bot = faulty_bot("bot", &format!("--seed 3 --fault {fault}"), keys);
        // Faults do not change the exit code.
        let (output, games) = against_random(&out, bot, &book, "");
        let text = format!("{}{}", stdout(&output), stderr(&output));
        assert!(text.contains(words), "{fault}: {text}");
        for game in &games {
            assert_replays(game, Rules::Classic);
            let bot_side = match game.white.as_str() {
                "bot" => Color::White,
                _ => Color::Black,
            };
            match termination {
                Some(termination) => {
                    assert_eq!(game.termination, termination, "{fault}: {game:?}");
                    assert_eq!(game.result.winner(), bot_side.opponent(), "{fault}");
                    let warning = format!("bot lost by fault ({termination})");
                    assert!(text.contains(&warning), "{fault}: {text}");
                }
                None => {
                    // Two stray lines after each of its moves, none played.
                    let turns = (game.plies + u32::from(bot_side == Color::White)) / 2;
                    let stray = match bot_side {
                        Color::White => game.white_stray,
                        Color::Black => game.black_stray,
                    };
                    assert_eq!(stray, u64::from(2 * turns), "{game:?}");
                    assert!(!game.termination.is_fault(), "{game:?}");
                }
            }
        }
    }
}

#[test]
fn a_bot_flooding_its_stderr_is_drained_and_never_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let book = start_book(dir.path());
    // 1 MiB of stderr a turn, 16 times what a pipe holds: a bot left undrained would block.
    let bot = faulty_bot(
        "flood",
        "--seed 3 --fault stderr-flood",
        &["tc=codingame:2000,2000"],
    );
    let (_, games) = against_random(&out, bot, &book, "");
    let mut bot_turns = 0;
    for game in &games {
        assert!(!game.termination.is_fault(), "{game:?}");
        bot_turns += (game.plies + u32::from(game.white == "flood")) / 2;
    }
    let log = std::fs::metadata(out.join("logs/flood-0.stderr.log")).unwrap();
    // Each game's process writes its own 1 MiB a turn (up to 16 MiB a process).
    assert!(
        log.len() >= u64::from(bot_turns.min(16)) << 20,
        "{}",
        log.len()
    );
}

#[test]
fn an_sprt_between_two_settings_of_the_bundled_bot_decides() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let bot = |name: &str, depth: u32| {
        args(
            &format!("cmd={SEARCH} name={name} proto=codingame"),
            &[&format!("args=codingame --depth {depth} --quiet")],
        )
    };
    let output = tournament(
        &out,
        &[bot("deep", 3), bot("shallow", 1)],
        &format!("--rules classic --rounds 200 --sprt elo0=0,elo1=100 {ROOMY}"),
    );
    // 0: H1 accepted, the deeper bot is stronger.
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    let sprt = bt_arena::stats::Sprt::new(0.0, 100.0, 0.05, 0.05).unwrap();
    let decided = crate::util::sprt_decided_at(&out.join("games.csv"), "deep", &sprt);
    assert_eq!(decided, Some(games.len() as u64));
    assert!(games.len() < 400, "{}", games.len());
    assert!(
        stdout(&output).contains("H1 accepted"),
        "{}",
        stdout(&output)
    );
    for game in &games {
        assert_replays(game, Rules::Classic);
    }
}

#[test]
fn a_tune_of_a_bots_argument_constants_recovers_the_detuned_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tune");
    let mut words = args(
        &format!(
            "tune --param KnobA,0,-1000,1000,60,0.05 --param KnobB,0,-1000,1000,60,0.05 \
             --iterations 40 --pairs 4 --seed 3 --rules classic \
             --openings file=openings/classic.epd order=random --out {}",
            path(&out)
        ),
        &[],
    );
    words.extend(["--engine".to_string()]);
    words.extend(faulty_bot(
        "bot",
        "--fault tunable --target-a 300 --target-b -200 --seed 5 --knob-a {KnobA} \
         --knob-b {KnobB}",
        &[],
    ));
    let output = bt_arena(&words);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let tuned = std::fs::read_to_string(out.join("tuned-options.txt")).unwrap();
    let value = |name: &str| -> f64 {
        tuned
            .split_whitespace()
            .find_map(|word| word.strip_prefix(&format!("option.{name}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {tuned}"))
    };
    let (a, b) = (value("KnobA"), value("KnobB"));
    let distance = ((a - 300.0).powi(2) + (b + 200.0).powi(2)).sqrt();
    let start = (300.0f64.powi(2) + 200.0f64.powi(2)).sqrt();
    // From 361 away to within a quarter of that.
    assert!(
        distance < start / 4.0,
        "KnobA {a}, KnobB {b}: {distance:.0} from the target"
    );
    eprintln!("tuned KnobA {a}, KnobB {b}: {distance:.0} from (300, -200), from {start:.0}");
    // The games' PGN tags name the values each side played.
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert!(pgn.contains("[X-WhiteOptions \"KnobA="), "{pgn}");
}

/// check-engine of `engine` (its `--engine` words) with `flags`: its exit code and output.
fn check(engine: &[String], flags: &str) -> (Option<i32>, String) {
    let mut words = args(&format!("check-engine {flags} --engine"), &[]);
    words.extend(engine.iter().cloned());
    let output = bt_arena(&words);
    (output.status.code(), stdout(&output) + &stderr(&output))
}

#[test]
fn check_engine_passes_the_bundled_bot_and_reports_its_turn_times() {
    // The margin keeps a loaded machine's delays from failing the check; the turn times are
    // still reported against 100 ms (a warning above 80 ms).
    let bot = args(
        &format!("cmd={SEARCH} name=bot proto=codingame timemargin=5000"),
        &["args=codingame --depth 3"],
    );
    let (code, text) = check(&bot, "--rules classic");
    assert_eq!(code, Some(0), "{text}");
    for line in [
        "check-engine of bot: codingame, classic rules, seed 1",
        "PASS positions.as-white          ",
        "from the 22 moves of its first turn (None)",
        "PASS positions.as-black          ",
        "PASS positions.random-play       ",
        "turns in 4 games against random moves, every answer from the list",
        "PASS limits.first-turn           4 first turns, the slowest ",
        " limits.keeps-time           ",
        "later turns: 95th percentile ",
        ", of 100 ms",
        "PASS output.one-line             one line a turn, nothing more",
        "PASS match.mini-match            4 games at tc=codingame against bt-random",
        "7 checks: ",
        " passed, 0 failed, ",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
    let keeps = text
        .lines()
        .find(|l| l.contains("limits.keeps-time"))
        .unwrap();
    assert!(
        keeps.starts_with("PASS ") || keeps.starts_with("WARN "),
        "{text}"
    );
}

#[test]
fn check_engine_names_each_fault_of_a_bot() {
    for (faulty, code, line) in [
        (
            "--fault slow-turn --turn 1 --delay-ms 1200",
            1,
            "FAIL limits.first-turn           game 1 (White): engine 'bot': no move within 1000 \
             ms of the input of its turn 1",
        ),
        (
            "--fault slow-turn --turn 3 --delay-ms 150",
            1,
            "FAIL limits.keeps-time           game 1 (White): engine 'bot': no move within 100 \
             ms of the input of its turn 3",
        ),
        (
            "--fault illegal-move",
            1,
            "FAIL positions.as-white          game 1 (White), turn 1: ",
        ),
        (
            "--fault garbage",
            1,
            "FAIL positions.random-play       game 1 (White), turn 1: '#@!%&' is not among the \
             22 moves of the list",
        ),
        (
            "--fault crash-mid-game --after 2",
            1,
            "FAIL positions.random-play       game 1 (White): engine 'bot': crashed: exited \
             (exit status: 2); its stderr ends with: bt-faulty: crashing on turn 3 as asked",
        ),
        (
            "--fault no-bestmove",
            1,
            "FAIL limits.first-turn           game 1 (White): engine 'bot': no move within 1000 \
             ms of the input of its turn 1",
        ),
        (
            "--fault extra-lines",
            0,
            "WARN output.one-line             ",
        ),
    ] {
        // Where the clock is not the fault, it is kept out of the way.
        let keys = match faulty.contains("slow-turn") || faulty.contains("no-bestmove") {
            true => &[][..],
            false => &["timemargin=5000"][..],
        };
        let bot = faulty_bot("bot", &format!("--seed 2 {faulty}"), keys);
        let (got, text) = check(&bot, "--rules classic --quick");
        assert_eq!(got, Some(code), "{faulty}: {text}");
        assert!(text.contains(line), "{faulty}: {line:?} in {text}");
    }
}

#[test]
fn commands_that_cannot_use_a_bot_refuse_it_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let bot = format!("cmd={SEARCH} name=bot proto=codingame");
    for (command, why) in [
        (
            format!("bench --engine {bot}"),
            "bench cannot use a CodinGame bot (proto=codingame): a bot has no bench",
        ),
        (
            format!("perft-check --engine {bot}"),
            "perft-check cannot use a CodinGame bot (proto=codingame): a bot has no perft",
        ),
        (
            format!(
                "datagen --engine {bot} --games 2 --out {}",
                path(&dir.path().join("d"))
            ),
            "datagen cannot use a CodinGame bot (proto=codingame): datagen keeps each move's \
             score, and a bot reports none",
        ),
        (
            format!("tournament --engine {bot} depth=3 --engine cmd={RANDOM}"),
            "depth=3: a CodinGame bot is told no limit",
        ),
        (
            format!("tournament --engine {bot} option.Hash=16 --engine cmd={RANDOM}"),
            "option.Hash=16: a CodinGame bot has no options",
        ),
        (
            format!("tournament --engine cmd={RANDOM} moveorder=sorted --engine {bot}"),
            "moveorder=sorted is for a CodinGame bot (proto=codingame)",
        ),
        (
            format!("tournament --engine {bot} tc=codingame:100 --engine cmd={RANDOM}"),
            "bad tc 'codingame:100': expected codingame or codingame:FIRST,TURN",
        ),
    ] {
        let output = bt_arena(&args(&command, &[]));
        assert_eq!(
            output.status.code(),
            Some(3),
            "{command}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(why),
            "{command}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_book_position_no_game_reaches_is_refused_for_a_bot() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("odd.epd");
    std::fs::write(
        &book,
        "startpos\npppppppp/pppppppp/8/8/8/P7/1PPPPPPP/1PPPPPPP w\n",
    )
    .unwrap();
    let bot = args(
        &format!("cmd={SEARCH} name=bot proto=codingame"),
        &["args=codingame"],
    );
    let flags = format!("--openings file={}", path(&book));
    let output = tournament(&dir.path().join("run"), &[bot, random()], &flags);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let expected = format!(
        "engine 'bot': a CodinGame bot is told a game only as moves from the start position, and \
         {}:2 (pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/1PPPPPPP w) is reached by no game of at \
         most 40 plies",
        path(&book)
    );
    assert!(stderr(&output).contains(&expected), "{}", stderr(&output));
}
