//! The engine process layer against real processes: bt-random for the normal paths, bt-faulty
//! for every failure path, and the operating system for what is left behind.

use crate::util::*;
use bt_arena::engine::{Engine, EngineError, EngineLaunch, MAX_LINE_BYTES, StrayOutput};
use bt_arena::protocol::{GoLimits, Info, Protocol, Score};
use bt_arena::rules::perft::{PerftOptions, divide};
use bt_arena::rules::{Board, MoveError, Position, Rules};
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

/// Starts `config` under `rules`, failing the test with the error's message.
fn start(config: &EngineLaunch, rules: Rules) -> Engine {
    Engine::start(config, rules, Board::STANDARD)
        .unwrap_or_else(|err| panic!("start failed: {err}"))
}

/// The error of starting `config` under `rules`, with the pid the engine had; the engine must
/// be reaped by then.
fn start_error(mut config: EngineLaunch, rules: Rules) -> EngineError {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pid_file = recording_pid(&mut config, dir.path());
    let err = match Engine::start(&config, rules, Board::STANDARD) {
        Ok(engine) => panic!("{} started: {:?}", config.name, engine.id_name()),
        Err(err) => err,
    };
    assert_reaped(read_pid(&pid_file));
    err
}

/// Plays a whole game with the engine on both sides; checks every move with the rules and
/// returns the number of plies.
fn play_game(engine: &mut Engine, rules: Rules, limits: &GoLimits) -> usize {
    engine.new_game().expect("new game");
    let start = Position::startpos();
    let (mut position, mut moves) = (start, Vec::new());
    while position.outcome(rules).is_none() {
        let reply = engine
            .go(&start, &moves, limits, in_ms(10_000))
            .expect("a move");
        let mv = position
            .parse_move(rules, &reply.bestmove)
            .unwrap_or_else(|err| panic!("bad move after {moves:?}: {err}"));
        assert_eq!(reply.info.depth, Some(1));
        assert_eq!(reply.info.pv, std::slice::from_ref(&reply.bestmove));
        position = position.play_unchecked(mv);
        moves.push(mv);
    }
    let reply = engine
        .go(&start, &moves, limits, in_ms(10_000))
        .expect("an answer");
    assert_eq!(reply.bestmove, "(none)");
    moves.len()
}

#[test]
fn bt_random_plays_whole_games_in_both_protocols_and_rule_sets() {
    for proto in [Protocol::Ugi, Protocol::Uci] {
        for rules in Rules::ALL {
            let mut engine = start(&random(proto), rules);
            assert!(engine.id_name().is_some_and(|n| n.starts_with("bt-random")));
            assert_eq!(engine.id_author(), Some("the bt-arena developers"));
            assert!(engine.options().iter().any(|o| o.is_named("Seed")));
            let pid = engine.pid();
            let plies = play_game(&mut engine, rules, &GoLimits::clock(1000, 1000, 10, 10));
            assert!(plies > 10, "{plies} plies");
            let status = engine.quit().expect("reaped");
            assert!(status.success(), "{status}");
            assert_reaped(pid);
        }
    }
}

#[test]
fn seeded_engines_repeat_their_games() {
    let game = |seed: &str| {
        let mut config = random(Protocol::Ugi);
        config.options = vec![("Seed".into(), seed.into())];
        let mut engine = start(&config, Rules::CaptureOnly);
        let start = Position::startpos();
        let mut moves = Vec::new();
        for _ in 0..8 {
            let reply = engine
                .go(&start, &moves, &GoLimits::depth(1), in_ms(10_000))
                .expect("a move");
            moves.push(reply.bestmove.parse().expect("a move"));
        }
        moves
    };
    assert_eq!(game("12345"), game("12345"));
}

#[test]
fn the_rules_option_reaches_the_engine() {
    // White's only pawn is blocked straight ahead: it can move only diagonally to empty squares.
    let blocked: Position = "8/7p/8/8/8/p7/P7/8 w".parse().expect("a position");
    let limits = GoLimits::movetime(10);
    let mut classic = start_with(Rules::Classic);
    let reply = classic
        .go(&blocked, &[], &limits, in_ms(10_000))
        .expect("a move");
    assert_eq!(reply.bestmove, "a2b3");
    let mut capture_only = start_with(Rules::CaptureOnly);
    let reply = capture_only
        .go(&blocked, &[], &limits, in_ms(10_000))
        .expect("an answer");
    assert_eq!(reply.bestmove, "(none)");

    fn start_with(rules: Rules) -> Engine {
        start(&random(Protocol::Uci), rules)
    }
}

#[test]
fn perft_extension_matches_the_reference() {
    let positions = [
        Position::startpos(),
        "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w"
            .parse()
            .expect("a position"),
    ];
    for config in [random(Protocol::Ugi), faulty("none", &[])] {
        for rules in Rules::ALL {
            let mut engine = start(&config, rules);
            for position in &positions {
                let reply = engine.perft(position, 3, in_ms(30_000)).expect("perft");
                let expected = divide(position, rules, 3, PerftOptions::default());
                let expected: BTreeMap<String, u64> =
                    expected.iter().map(|(m, n)| (m.to_string(), *n)).collect();
                let got: BTreeMap<String, u64> = reply.moves.iter().cloned().collect();
                assert_eq!(got, expected, "{} {rules} {position}", config.name);
                assert_eq!(reply.total, expected.values().sum::<u64>());
            }
        }
    }
}

/// The perft total bt-faulty with `fault` reports for `position`, and the reference's.
fn faulty_perft(fault: &str, extra: &[&str], rules: Rules, fen: &str, depth: u32) -> (u64, u64) {
    let position: Position = fen.parse().expect("a position");
    let mut engine = start(&faulty(fault, extra), rules);
    let reply = engine
        .perft(&position, depth, in_ms(30_000))
        .expect("perft");
    let expected = bt_arena::rules::perft::perft(&position, rules, depth, PerftOptions::default());
    (reply.total, expected)
}

#[test]
fn faulty_perft_generators_miss_the_reference() {
    let edge = "pppppppp/8/8/8/8/8/8/PPPPPPPP w";
    assert_eq!(
        faulty_perft("none", &[], Rules::CaptureOnly, edge, 2),
        (64, 64)
    );
    let contact = "8/8/8/p6p/P6P/8/8/8 w";
    let (got, expected) = faulty_perft("none", &[], Rules::CaptureOnly, contact, 1);
    assert_eq!(got, expected);
    let contact = "8/8/8/1p4p1/P6P/8/8/8 w";
    let (got, expected) = faulty_perft(
        "perft-missing-edge-capture",
        &[],
        Rules::CaptureOnly,
        contact,
        1,
    );
    assert_eq!((got, expected), (2, 4), "a4b5 and h4g5 are missed");
    let (got, expected) = faulty_perft(
        "perft-diagonal-empty",
        &[],
        Rules::CaptureOnly,
        "startpos",
        1,
    );
    assert_eq!((got, expected), (22, 8));
    let (got, expected) = faulty_perft("perft-diagonal-empty", &[], Rules::Classic, "startpos", 2);
    assert_eq!(got, expected, "classic rules are unaffected");
    let over = "P7/8/8/8/8/8/p7/8 b";
    let (got, expected) = faulty_perft("perft-after-game-over", &[], Rules::CaptureOnly, over, 1);
    assert_eq!((got, expected), (1, 0));
    // Black to move with 8 pawns; White has 7.
    let black_eight = "pppppppp/8/8/8/8/8/PPPPPPP1/8 b";
    let wrong = |pawns: &str| {
        faulty_perft(
            "perft-wrong-side",
            &["--pawns", pawns],
            Rules::CaptureOnly,
            black_eight,
            1,
        )
    };
    assert_eq!(wrong("8"), (7, 8), "White's 7 steps in place of Black's 8");
    assert_eq!(wrong("7"), (8, 8), "the bug needs exactly N black pawns");
}

#[test]
fn missing_command_is_a_spawn_error() {
    let mut config = random(Protocol::Ugi);
    config.cmd = "/nonexistent/bt-engine".into();
    let err =
        Engine::start(&config, Rules::CaptureOnly, Board::STANDARD).expect_err("no such command");
    assert_matches!(err, EngineError::Spawn { .. });
    assert!(err.to_string().contains("/nonexistent/bt-engine"), "{err}");
}

#[test]
fn non_executable_files_are_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("engine.txt");
    std::fs::write(&file, "not a program").expect("written");
    for cmd in [file, dir.path().to_path_buf()] {
        let mut config = random(Protocol::Ugi);
        config.cmd = cmd;
        let err = Engine::start(&config, Rules::CaptureOnly, Board::STANDARD)
            .expect_err("not executable");
        assert_matches!(err, EngineError::NotExecutable { .. });
    }
}

#[test]
fn exit_at_start_is_reported_with_status_and_stderr() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut config = faulty("exit-at-start", &[]);
    config.stderr_log = Some(dir.path().join("stderr.log"));
    let err = start_error(config.clone(), Rules::CaptureOnly);
    let (status, stderr_tail) = assert_matches!(
        err,
        EngineError::ExitedAtStart { status, stderr_tail, .. } => (status, stderr_tail)
    );
    assert_eq!(status.and_then(|s| s.code()), Some(3));
    assert!(stderr_tail.contains("exiting at start"), "{stderr_tail}");
    assert!(err.to_string().contains("faulty-exit-at-start"), "{err}");
    let log = std::fs::read_to_string(dir.path().join("stderr.log")).expect("a stderr log");
    assert!(log.contains("exiting at start"), "{log}");
}

#[test]
fn missing_ugiok_is_a_handshake_timeout() {
    let mut config = faulty("no-ugiok", &[]);
    config.timeouts = short();
    let err = start_error(config, Rules::CaptureOnly);
    assert_matches!(err, EngineError::HandshakeTimeout { .. });
}

#[test]
fn missing_readyok_is_a_ready_timeout() {
    let mut config = faulty("no-readyok", &[]);
    config.timeouts = short();
    let err = start_error(config, Rules::CaptureOnly);
    assert_matches!(err, EngineError::ReadyTimeout { .. });
}

#[test]
fn a_fixed_rules_option_is_refused_and_a_matching_one_accepted() {
    let err = start_error(faulty("fixed-rules", &[]), Rules::CaptureOnly);
    let (rules, declared) = assert_matches!(
        err,
        EngineError::RulesMismatch { rules, declared, .. } => (rules, declared)
    );
    assert_eq!(*rules, Rules::CaptureOnly);
    assert!(declared.contains("var classic"), "{declared}");
    assert!(
        err.to_string().ends_with(
            "(it declares 'option name Rules type combo default classic var classic'): use \
             --rules classic, or set option.Rules=VALUE to choose its value yourself (the runner \
             judges every move by 'capture-only' rules)"
        ),
        "{err}"
    );
    start(&faulty("fixed-rules", &[]), Rules::Classic).quit();
}

#[test]
fn a_rules_option_the_user_sets_overrides_the_rule_set() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut config = faulty("fixed-rules", &[]);
    config.options = vec![("rules".into(), "classic".into())];
    config.comm_log = Some(dir.path().join("comm.log"));
    let engine = start(&config, Rules::CaptureOnly);
    assert!(engine.warnings().is_empty(), "{:?}", engine.warnings());
    engine.quit();
    let log = std::fs::read_to_string(dir.path().join("comm.log")).expect("a log");
    let setoptions: Vec<&str> = log
        .lines()
        .filter_map(|record| record.split_once(" > setoption ").map(|(_, rest)| rest))
        .collect();
    assert_eq!(setoptions, ["name Rules value classic"], "{log}");
}

#[test]
fn an_undeclared_combo_value_is_sent_with_a_warning() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut config = random(Protocol::Ugi);
    config.name = "search".into();
    config.cmd = SEARCH.into();
    config.options = vec![("eval".into(), "neural".into())];
    config.comm_log = Some(dir.path().join("comm.log"));
    let engine = start(&config, Rules::CaptureOnly);
    let expected = "engine 'search': option 'Eval': value 'neural' is not among the values it \
                    declared; sent anyway (an engine may add values at run time, as \
                    Fairy-Stockfish does for UCI_Variant after VariantPath)";
    assert_eq!(engine.warnings(), [expected]);
    engine.quit();
    let log = std::fs::read_to_string(dir.path().join("comm.log")).expect("a log");
    let at = |text: &str| {
        log.find(text)
            .unwrap_or_else(|| panic!("no '{text}' in {log}"))
    };
    assert!(
        at(&format!("search ! warning: {expected}")) < at("> setoption name Eval value neural")
    );
}

#[test]
fn configured_options_are_checked_against_the_declarations() {
    let mut config = random(Protocol::Ugi);
    config.options = vec![("Hash".into(), "16".into())];
    let err = start_error(config.clone(), Rules::CaptureOnly);
    assert_matches!(err, EngineError::UnknownOption { option, .. } if option == "Hash");
    config.options = vec![("seed".into(), "-5".into())];
    let err = start_error(config, Rules::CaptureOnly);
    assert_matches!(err, EngineError::BadOptionValue { option, .. } if option == "Seed");
}

#[test]
fn a_crash_mid_game_is_reported_with_its_status() {
    let mut engine = start(
        &faulty("crash-mid-game", &["--after", "2"]),
        Rules::CaptureOnly,
    );
    let pid = engine.pid();
    let start = Position::startpos();
    let mut moves = Vec::new();
    for _ in 0..2 {
        let reply = engine
            .go(&start, &moves, &GoLimits::movetime(10), in_ms(10_000))
            .expect("a move");
        moves.push(reply.bestmove.parse().expect("a move"));
    }
    let err = engine
        .go(&start, &moves, &GoLimits::movetime(10), in_ms(10_000))
        .expect_err("a crash");
    let (status, stderr_tail) = assert_matches!(
        err,
        EngineError::Crashed { status, stderr_tail, .. } => (status, stderr_tail)
    );
    assert_eq!(status.and_then(|s| s.code()), Some(2));
    assert!(
        stderr_tail.contains("crashing after 2 moves"),
        "{stderr_tail}"
    );
    assert_reaped(pid);
    // Talking to a crashed engine keeps failing the same way.
    assert_matches!(engine.is_ready(), Err(EngineError::Crashed { .. }));
}

#[test]
fn a_hung_engine_times_out_and_is_killed_on_quit() {
    let mut config = faulty("no-bestmove", &[]);
    config.timeouts.quit_grace = Duration::from_millis(300);
    let mut engine = start(&config, Rules::CaptureOnly);
    let pid = engine.pid();
    let began = Instant::now();
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &GoLimits::movetime(10),
            in_ms(300),
        )
        .expect_err("no move");
    assert_matches!(err, EngineError::MoveTimeout { .. });
    assert!(began.elapsed() >= Duration::from_millis(300));
    assert!(is_running(pid));
    let status = engine.quit().expect("reaped");
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status}");
    assert!(began.elapsed() < Duration::from_secs(5));
    assert_reaped(pid);
}

#[test]
fn dropping_an_engine_ends_it() {
    let mut config = faulty("no-bestmove", &[]);
    config.timeouts.quit_grace = Duration::from_millis(100);
    let engine = start(&config, Rules::CaptureOnly);
    let pid = engine.pid();
    drop(engine);
    assert_reaped(pid);
    let engine = start(&random(Protocol::Ugi), Rules::CaptureOnly);
    let pid = engine.pid();
    drop(engine);
    assert_reaped(pid);
}

#[test]
fn slow_engines_answer_late_and_miss_short_deadlines() {
    let mut engine = start(&faulty("slow", &["--delay-ms", "300"]), Rules::CaptureOnly);
    let reply = engine
        .go(
            &Position::startpos(),
            &[],
            &GoLimits::movetime(10),
            in_ms(10_000),
        )
        .expect("a move");
    assert!(
        reply.elapsed >= Duration::from_millis(300),
        "{:?}",
        reply.elapsed
    );
    assert!(
        reply.elapsed < Duration::from_secs(5),
        "{:?}",
        reply.elapsed
    );
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &GoLimits::movetime(10),
            in_ms(100),
        )
        .expect_err("too slow");
    assert_matches!(err, EngineError::MoveTimeout { .. });
}

#[test]
fn garbage_instead_of_a_move_is_reported() {
    let mut engine = start(&faulty("garbage", &[]), Rules::CaptureOnly);
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &GoLimits::movetime(10),
            in_ms(10_000),
        )
        .expect_err("garbage");
    let line = assert_matches!(err, EngineError::Garbage { line, .. } => line);
    assert!(line.contains("garbage instead of a move"), "{line}");
}

/// The position after `moves` from the start position, and those moves.
fn after(moves: &[&str]) -> (Position, Vec<bt_arena::rules::Move>) {
    let mut position = Position::startpos();
    let mut played = Vec::new();
    for mv in moves {
        let mv = mv.parse().expect("a move");
        position = position.play(Rules::CaptureOnly, mv).expect("a legal move");
        played.push(mv);
    }
    (position, played)
}

/// The answer of `engine` to `go` after `moves` from the start position, which must be a legal
/// move there (a stale answer to an earlier position is not).
fn legal_answer(
    engine: &mut Engine,
    moves: &[&str],
    allowed: Duration,
) -> Result<String, EngineError> {
    let (position, played) = after(moves);
    let reply = engine.go(&Position::startpos(), &played, &GoLimits::depth(1), allowed)?;
    let verdict = position.parse_move(Rules::CaptureOnly, &reply.bestmove);
    assert!(
        verdict.is_ok(),
        "after {moves:?}: '{}' {verdict:?}",
        reply.bestmove
    );
    Ok(reply.bestmove)
}

/// `lines` stray lines, the first `first`.
fn stray(lines: u64, first: &str) -> StrayOutput {
    StrayOutput {
        lines,
        first: Some(first.to_string()),
    }
}

#[test]
fn a_bestmove_before_any_go_is_never_played() {
    let mut engine = start(&faulty("bestmove-before-go", &[]), Rules::CaptureOnly);
    engine.new_game().expect("new game");
    assert_eq!(engine.take_stray(), StrayOutput::default());
    // `bestmove a2a3` came after the readyok: a White move, while Black is to move.
    let reply = legal_answer(&mut engine, &["a2a3"], in_ms(10_000)).expect("a move");
    assert_eq!(engine.take_stray(), stray(1, "bestmove a2a3"));
    legal_answer(&mut engine, &["a2a3", &reply], in_ms(10_000)).expect("a move");
    assert_eq!(engine.take_stray(), StrayOutput::default());
}

#[test]
fn a_second_bestmove_for_one_go_is_never_played_nor_read_as_perft() {
    let mut engine = start(&faulty("double-bestmove", &[]), Rules::CaptureOnly);
    let white = legal_answer(&mut engine, &[], in_ms(10_000)).expect("a move");
    assert_eq!(engine.take_stray(), StrayOutput::default());
    // The repeated White move must not answer a position where Black is to move.
    let black = legal_answer(&mut engine, &["a2a3"], in_ms(10_000)).expect("a move");
    assert_eq!(engine.take_stray(), stray(1, &format!("bestmove {white}")));
    let perft = engine
        .perft(&Position::startpos(), 1, in_ms(10_000))
        .expect("perft");
    assert_eq!((perft.moves.len(), perft.total), (8, 8));
    assert_eq!(engine.take_stray(), stray(1, &format!("bestmove {black}")));
}

#[test]
fn a_bestmove_while_the_runner_waits_for_readyok_is_counted_and_never_played() {
    let mut engine = start(&faulty("bestmove-on-isready", &[]), Rules::CaptureOnly);
    assert_eq!(engine.take_stray(), stray(1, "bestmove a2a3"));
    engine.is_ready().expect("readyok");
    engine.new_game().expect("new game");
    legal_answer(&mut engine, &["a2a3"], in_ms(10_000)).expect("a move");
    assert_eq!(engine.take_stray(), stray(3, "bestmove a2a3"));
}

#[test]
fn late_answers_to_timed_out_requests_are_never_played() {
    let mut engine = start(&faulty("slow", &["--delay-ms", "500"]), Rules::CaptureOnly);
    // It sleeps 500 ms on each go, reading nothing meanwhile.
    let err = legal_answer(&mut engine, &[], in_ms(100)).expect_err("too slow");
    assert_matches!(
        err,
        EngineError::MoveTimeout { .. } | EngineError::ReadyTimeout { .. }
    );
    let err = legal_answer(&mut engine, &["a2a3"], in_ms(100)).expect_err("asleep");
    assert_matches!(err, EngineError::ReadyTimeout { .. });
    // The answers to both (a White and a Black move) come first: neither answers this go.
    legal_answer(&mut engine, &["a2a3", "h7h6"], in_ms(10_000)).expect("a move");
    assert_eq!(engine.take_stray().lines, 2);
}

#[test]
fn illegal_and_unparseable_moves_reach_the_runner_as_written() {
    let start_pos = Position::startpos();
    let mut engine = start(&faulty("illegal-move", &[]), Rules::CaptureOnly);
    let reply = engine
        .go(&start_pos, &[], &GoLimits::movetime(10), in_ms(10_000))
        .expect("an answer");
    let verdict = start_pos.parse_move(Rules::CaptureOnly, &reply.bestmove);
    assert_matches!(verdict, Err(MoveError::Illegal(_)));
    let mut engine = start(&faulty("unparseable-move", &[]), Rules::CaptureOnly);
    let reply = engine
        .go(&start_pos, &[], &GoLimits::movetime(10), in_ms(10_000))
        .expect("an answer");
    assert_eq!(reply.bestmove, "z9z0");
    let verdict = start_pos.parse_move(Rules::CaptureOnly, &reply.bestmove);
    assert_matches!(verdict, Err(MoveError::Syntax(_)));
}

#[test]
fn a_huge_line_is_cut_off_and_the_engine_killed() {
    let mut config = faulty("huge-line", &[]);
    config.timeouts.quit_grace = Duration::from_millis(200);
    let mut engine = start(&config, Rules::CaptureOnly);
    let pid = engine.pid();
    let err = engine
        .go(
            &Position::startpos(),
            &[],
            &GoLimits::movetime(10),
            in_ms(10_000),
        )
        .expect_err("a huge line");
    assert_matches!(
        err,
        EngineError::LineTooLong { limit_bytes, .. } if *limit_bytes == MAX_LINE_BYTES
    );
    engine.quit();
    assert_reaped(pid);
}

#[test]
fn engines_run_in_their_own_process_group() {
    let engine = start(&random(Protocol::Ugi), Rules::CaptureOnly);
    let pid = libc::pid_t::try_from(engine.pid()).expect("a pid");
    // SAFETY: plain queries of process ids.
    let (engine_group, own_group) = unsafe { (libc::getpgid(pid), libc::getpgid(0)) };
    assert_eq!(engine_group, pid);
    assert_ne!(engine_group, own_group);
}

#[test]
fn the_comm_log_records_both_directions() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("comm.log");
    let mut config = random(Protocol::Ugi);
    config.name = "logged".into();
    config.comm_log = Some(log.clone());
    let mut engine = start(&config, Rules::Classic);
    let reply = engine
        .go(
            &Position::startpos(),
            &[],
            &GoLimits::depth(1),
            in_ms(10_000),
        )
        .expect("a move");
    engine.quit();
    let text = std::fs::read_to_string(&log).expect("a log");
    let records: Vec<(f64, &str, &str)> = text
        .lines()
        .map(|record| {
            let mut fields = record.trim_start().splitn(4, ' ');
            let seconds = fields.next().and_then(|s| s.parse().ok()).expect("a time");
            assert_eq!(fields.next(), Some("logged"), "{record}");
            let arrow = fields.next().expect("a direction");
            (seconds, arrow, fields.next().unwrap_or_default())
        })
        .collect();
    let expected = [
        (">", "ugi"),
        ("<", "ugiok"),
        (">", "setoption name Rules value classic"),
        (">", "isready"),
        ("<", "readyok"),
        (">", "isready"),
        (">", "position startpos"),
        (">", "go depth 1"),
        ("<", "readyok"),
        ("<", &format!("bestmove {}", reply.bestmove)),
        (">", "quit"),
    ];
    let mut rest = records.iter();
    for (arrow, line) in expected {
        assert!(
            rest.any(|&(_, a, l)| a == arrow && l == line),
            "no '{arrow} {line}' in order in:\n{text}"
        );
    }
    assert!(
        records.windows(2).all(|w| w[0].0 <= w[1].0),
        "times ascend:\n{text}"
    );
}

#[test]
fn search_info_is_parsed_into_fields() {
    let mut engine = start(&random(Protocol::Uci), Rules::CaptureOnly);
    let reply = engine
        .go(
            &Position::startpos(),
            &[],
            &GoLimits::nodes(100),
            in_ms(10_000),
        )
        .expect("a move");
    assert_eq!(reply.info.depth, Some(1));
    assert_eq!(
        reply.info.nodes,
        Some(8),
        "8 legal moves under capture-only"
    );
    assert_eq!(reply.info.score, None::<Score>);
}

#[test]
fn engines_outlive_the_thread_that_started_them() {
    let mut engine = std::thread::spawn(|| start(&random(Protocol::Ugi), Rules::CaptureOnly))
        .join()
        .expect("the starting thread ends");
    std::thread::sleep(Duration::from_millis(100));
    assert!(is_running(engine.pid()));
    engine.is_ready().expect("still there");
}

/// An engine that writes malformed `info` lines before a legal `bestmove`: each line is
/// skipped whole (none of its fields is taken, nor overwrites an earlier line's), the move is
/// taken.
#[test]
fn malformed_info_lines_are_skipped() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = dir.path().join("chatty.sh");
    let malformed = "echo 'info depth 5 score cp 12.5'; echo 'info nodes -1 depth 6'; \
                     echo 'info depth 99999999999999999999999 nodes 7'";
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nwhile read -r line; do case \"$line\" in\n\
             ugi) echo 'id name chatty'; echo ugiok;;\n\
             isready) echo readyok;;\n\
             'go depth 1') {malformed}; echo 'bestmove a2a3';;\n\
             'go depth 2') echo 'info depth 3 nodes 50 score cp 20'; {malformed}; \
             echo 'bestmove b2b3';;\n\
             quit) exit 0;;\n\
             esac; done\n"
        ),
    )
    .expect("script written");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let config = EngineLaunch {
        name: "chatty".into(),
        cmd: script,
        timeouts: roomy(),
        ..EngineLaunch::default()
    };
    let mut engine = start(&config, Rules::CaptureOnly);
    let go = |engine: &mut Engine, depth| {
        engine
            .go(
                &Position::startpos(),
                &[],
                &GoLimits::depth(depth),
                in_ms(10_000),
            )
            .expect("a move despite the bad info lines")
    };
    let reply = go(&mut engine, 1);
    assert_eq!(reply.bestmove, "a2a3");
    assert_eq!(reply.info, Info::default());
    let reply = go(&mut engine, 2);
    assert_eq!(reply.bestmove, "b2b3");
    let good = Info {
        depth: Some(3),
        nodes: Some(50),
        score: Some(Score::Cp(20)),
        ..Info::default()
    };
    assert_eq!(reply.info, good);
    engine.quit();
}
