//! Engines on boards other than 8×8: how the size reaches them (the exact lines sent), the
//! bundled engines playing every size, bt-faulty's faults on 6×6, check-engine --board, and
//! an engine that cannot take the size.

use crate::util::*;
use bt_arena::engine::{Engine, EngineError, EngineLaunch};
use bt_arena::protocol::GoLimits;
use bt_arena::rules::{Board, Color, Position, Rules};
use serde_json::Value;
use std::path::Path;

fn board(text: &str) -> Board {
    text.parse().expect("a board")
}

/// The lines the runner sent (`>` records) in a communication log, in order.
fn sent_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .expect("the communication log")
        .lines()
        .filter_map(|line| {
            let mut words = line.trim_start().splitn(4, ' ');
            let (_, _, way, text) = (words.next()?, words.next()?, words.next()?, words.next()?);
            (way == ">").then(|| text.to_string())
        })
        .collect()
}

/// Starts `config` on `board` under `rules` with a communication log, plays one move from the
/// start and quits: the lines sent, and the move.
fn first_move_lines(mut config: EngineLaunch, rules: Rules, board: Board) -> (Vec<String>, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let log = dir.path().join("comm.log");
    config.comm_log = Some(log.clone());
    let mut engine =
        Engine::start(&config, rules, board).unwrap_or_else(|err| panic!("start: {err}"));
    engine.new_game().expect("new game");
    let start = Position::start(board);
    let reply = engine
        .go(&start, &[], &GoLimits::depth(1), in_ms(10_000))
        .expect("a move");
    start
        .parse_move(rules, &reply.bestmove)
        .unwrap_or_else(|err| panic!("{}: {err}", reply.bestmove));
    engine.quit();
    (sent_lines(&log), reply.bestmove)
}

fn search_launch() -> EngineLaunch {
    EngineLaunch {
        name: "search".into(),
        cmd: SEARCH.into(),
        timeouts: roomy(),
        ..EngineLaunch::default()
    }
}

#[test]
fn a_board_option_engine_is_told_the_size_and_8x8_is_told_nothing_new() {
    let (lines, _) = first_move_lines(search_launch(), Rules::Classic, board("6x6"));
    assert_eq!(
        lines,
        [
            "ugi",
            "setoption name Rules value classic",
            "setoption name Board value 6x6",
            "isready",
            "uginewgame",
            "isready",
            "isready",
            "position fen pppppp/pppppp/6/6/PPPPPP/PPPPPP w",
            "go depth 1",
            "quit",
        ]
    );
    // 8x8: the Board option keeps its default, so not a line more than before it existed.
    let (lines, _) = first_move_lines(search_launch(), Rules::Classic, Board::STANDARD);
    assert_eq!(
        lines,
        [
            "ugi",
            "setoption name Rules value classic",
            "isready",
            "uginewgame",
            "isready",
            "isready",
            "position startpos",
            "go depth 1",
            "quit",
        ]
    );
    // An engine without a Board option (bt-faulty) is told the size by the FEN alone.
    let (lines, _) = first_move_lines(faulty("none", &[]), Rules::CaptureOnly, board("5x4"));
    assert_eq!(
        lines,
        [
            "ugi",
            "setoption name Rules value capture-only",
            "isready",
            "uginewgame",
            "isready",
            "isready",
            "position fen pppp/pppp/4/PPPP/PPPP w",
            "go depth 1",
            "quit",
        ]
    );
}

#[test]
fn a_board_option_that_cannot_take_the_size_is_refused_naming_engine_size_and_offer() {
    let config = faulty("fixed-board", &[]);
    let err = match Engine::start(&config, Rules::CaptureOnly, board("6x6")) {
        Ok(_) => panic!("started on 6x6 with a Board option offering 8x8 only"),
        Err(err) => err,
    };
    assert!(matches!(err, EngineError::BoardMismatch { .. }), "{err:?}");
    assert!(err.recurs_at_start());
    assert_eq!(
        err.to_string(),
        "engine 'faulty-fixed-board': its Board option cannot be set to '6x6' (it declares \
         'option name Board type combo default 8x8 var 8x8'): use --board 8x8, or set \
         option.Board=VALUE to choose its value yourself (the runner judges every move on 6x6)"
    );
    // On 8x8 it starts, and the user's own value is not checked.
    Engine::start(&config, Rules::CaptureOnly, Board::STANDARD)
        .expect("starts on 8x8")
        .quit();
    let mut configured = config.clone();
    configured.options = vec![("Board".into(), "8x8".into())];
    Engine::start(&configured, Rules::CaptureOnly, board("6x6"))
        .expect("the user's value wins")
        .quit();
    // perft-check says it too, and exits 1.
    let engine = format!("cmd={FAULTY}");
    let output = bt_arena(&[
        "perft-check",
        "--board",
        "6x6",
        "--engine",
        &engine,
        "args=--fault fixed-board",
        "--depth",
        "2",
    ]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("its Board option cannot be set to '6x6'"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bt_search_and_bt_random_play_legal_games_on_every_board_to_7x7_under_both_rules() {
    let mut random = random(bt_arena::protocol::Protocol::Ugi);
    random.options = vec![("Seed".into(), "7".into())];
    let mut plies_seen = 0;
    for board in Board::all().filter(|b| b.ranks() <= 7 && b.files() <= 7) {
        for rules in Rules::ALL {
            let mut search = Engine::start(&search_launch(), rules, board).expect("bt-search");
            let mut other = Engine::start(&random, rules, board).expect("bt-random");
            let start = Position::start(board);
            let (mut position, mut moves) = (start, Vec::new());
            search.new_game().expect("new game");
            other.new_game().expect("new game");
            while position.outcome(rules).is_none() {
                let engine = match position.side_to_move() {
                    Color::White => &mut search,
                    Color::Black => &mut other,
                };
                let reply = engine
                    .go(&start, &moves, &GoLimits::depth(2), in_ms(10_000))
                    .expect("a move");
                let mv = position
                    .parse_move(rules, &reply.bestmove)
                    .unwrap_or_else(|err| {
                        panic!("{board} {rules}: {} after {moves:?}: {err}", reply.bestmove)
                    });
                position = position.play_unchecked(mv);
                moves.push(mv);
            }
            // bt-search (White, depth 2) beats a random mover on every board.
            let outcome = position.outcome(rules).expect("over");
            assert_eq!(outcome.winner, Color::White, "{board} {rules}: {moves:?}");
            plies_seen += moves.len();
            search.quit();
            other.quit();
        }
    }
    assert!(plies_seen > 32 * 3, "{plies_seen}");
}

/// Every group of checks but `limits`, whose clock checks are tested on 8x8 in
/// tests/it/check_engine.rs and can fail on a loaded machine (its movetime is 100 ms).
const NO_TIMING: &str = "handshake,positions,output,newgame,movegen,board,match";

/// check-engine --json on `board` with `engine` (words of --engine), `only` groups.
fn check_on(board: &str, engine: &[&str], extra: &[&str]) -> (i32, Value) {
    let args = [
        &["check-engine", "--json", "--board", board, "--engine"][..],
        engine,
        extra,
    ]
    .concat();
    let output = bt_arena(&args);
    let report = serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|err| panic!("{err}: {}", stderr(&output)));
    (output.status.code().unwrap_or(-1), report)
}

/// The verdict of check `id` in a check-engine report, with its summary.
fn verdict(report: &Value, id: &str) -> (String, String) {
    let check = report["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|check| check["id"] == id))
        .unwrap_or_else(|| panic!("no check {id} in {report}"));
    (
        check["verdict"].as_str().unwrap_or_default().to_string(),
        check["summary"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn check_engine_passes_the_bundled_engines_on_other_boards() {
    let search = format!("cmd={SEARCH}");
    let random = format!("cmd={RANDOM}");
    for (board, engine, rules) in [
        ("6x6", &search, "capture-only"),
        ("5x7", &search, "classic"),
        ("4x4", &random, "classic"),
        ("7x5", &random, "capture-only"),
    ] {
        let (code, report) = check_on(
            board,
            &[engine.as_str()],
            &["--rules", rules, "--opponent", &random, "--only", NO_TIMING],
        );
        assert_eq!(code, 0, "{board} {engine}: {report:#}");
        assert_eq!(report["board"], board);
        assert_eq!(report["failed"], 0, "{report:#}");
        assert_eq!(report["checks"].as_array().map(Vec::len), Some(22));
        let (pass, summary) = verdict(&report, "handshake.rules-option");
        assert_eq!(pass, "pass");
        assert!(
            summary.contains(&format!("Board offers {board}")),
            "{summary}"
        );
        assert_eq!(verdict(&report, "board.perft").0, "pass");
        assert_eq!(verdict(&report, "board.moves").0, "pass");
        assert_eq!(verdict(&report, "board.solved").0, "pass");
    }
    // The perft of 6x6 capture-only's start as the rules count it (tests/perft/boards).
    let (_, report) = check_on("6x6", &[&search], &["--only", "board"]);
    assert_eq!(
        verdict(&report, "board.perft").1,
        "perft 1 to 3 of the 6x6 start: 6, 36, 256 as the rules count"
    );
    // On 8x8 there is no board group.
    let (code, report) = check_on("8x8", &[&search], &["--only", "board,movegen"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|check| check["id"].as_str())
        .collect();
    assert_eq!(ids, ["movegen.perft"]);
}

/// `board.solved`: mate claims judged against positions the solver proves. bt-search's
/// claims agree with the proofs; bt-faulty's false ones (a win claimed in a lost position, a
/// loss claimed in a won one) are reported with the position and the proof.
#[test]
fn check_engine_reports_a_mate_claim_that_contradicts_a_solved_position() {
    let search = format!("cmd={SEARCH}");
    let (code, report) = check_on("5x5", &[&search], &["--only", "board"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        verdict(&report, "board.solved"),
        (
            "pass".to_string(),
            "8 positions of 5x5 solved (1 to 6 plies) searched at depth 5: 8 mate claims, none \
             against the proof"
                .to_string()
        )
    );
    let faulty = format!("cmd={FAULTY}");
    for (fault, claim) in [
        (
            "false-mate",
            "the engine claims mate 2 (a win within 3 plies, but the side to move loses); solved: White wins in 6 plies",
        ),
        (
            "opponent-mate",
            "the engine claims mate -1 (a loss within 2 plies, but the side to move wins); solved: Black wins in 1 ply",
        ),
    ] {
        let args = format!("args=--fault {fault}");
        let (code, report) = check_on("5x5", &[&faulty, &args], &["--only", "board"]);
        assert_eq!(code, 1, "{fault}: {report:#}");
        let (fail, summary) = verdict(&report, "board.solved");
        assert_eq!(fail, "fail", "{fault}");
        assert!(summary.ends_with(claim), "{fault}: {summary}");
    }
}

#[test]
fn check_engine_reports_an_engine_that_ignores_the_board() {
    let engine = format!("cmd={FAULTY}");
    let (code, report) = check_on(
        "6x6",
        &[&engine, "args=--fault ignores-board"],
        &["--only", "board"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        verdict(&report, "board.perft"),
        (
            "fail".to_string(),
            "perft 1 of the 6x6 start: the engine counts 8, the rules 6, 8x8's count: it \
             ignores the board's size (it was told 6x6 by the FEN of each position)"
                .to_string()
        )
    );
    let (fail, summary) = verdict(&report, "board.moves");
    assert_eq!(fail, "fail");
    assert!(
        summary.contains("is off the 6x6 board (files a-f, ranks 1-6)")
            && summary.ends_with(
                "it ignores the board's size (it was told 6x6 by the FEN of each position)"
            ),
        "{summary}"
    );
    // A Board option that cannot take the size fails the handshake, naming the fix.
    let (code, report) = check_on(
        "6x6",
        &[&engine, "args=--fault fixed-board"],
        &["--only", "handshake"],
    );
    assert_eq!(code, 1);
    let (fail, summary) = verdict(&report, "handshake.rules-option");
    assert_eq!(fail, "fail");
    assert!(
        summary.contains("its Board option cannot be set to '6x6'")
            && summary.contains("--board 8x8"),
        "{summary}"
    );
}

#[test]
fn bt_faulty_keeps_its_faults_on_6x6() {
    let engine = format!("cmd={FAULTY}");
    for (fault, group, check) in [
        ("moves-cap", "positions", "positions.startpos-moves"),
        ("black-plays-white", "positions", "positions.black-to-move"),
        ("move-after-game-over", "positions", "positions.finished"),
        ("ignore-depth", "limits", "limits.depth"),
        ("infinite-returns", "limits", "limits.infinite"),
        ("double-bestmove", "output", "output.bestmove-count"),
        ("bad-info", "output", "output.info-parse"),
        ("illegal-pv", "output", "output.pv-legal"),
        ("perft-missing-edge-capture", "movegen", "movegen.perft"),
        ("perft-after-game-over", "movegen", "movegen.perft"),
        ("illegal-move", "board", "board.moves"),
    ] {
        let args = format!("args=--fault {fault}");
        let (code, report) = check_on(
            "6x6",
            &[&engine, &args, "handshake=2", "isready=2"],
            &["--only", group, "--timeout", "2"],
        );
        assert_eq!(code, 1, "{fault}: {report:#}");
        assert_eq!(verdict(&report, check).0, "fail", "{fault}: {report:#}");
    }
}

/// The variants file bt-arena ships for Fairy-Stockfish, by its absolute path.
fn variants_file() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines/fairy-stockfish/variants.ini");
    path.display().to_string()
}

fn fairy(options: &[(&str, &str)]) -> EngineLaunch {
    EngineLaunch {
        name: "fsf".into(),
        cmd: fairy_stockfish(),
        proto: bt_arena::protocol::Protocol::Uci,
        options: options
            .iter()
            .map(|&(name, value)| (name.to_string(), value.to_string()))
            .collect(),
        timeouts: roomy(),
        ..EngineLaunch::default()
    }
}

#[test]
#[ignore = "needs /usr/games/fairy-stockfish"]
fn fairy_stockfish_gets_the_variant_of_the_board_from_the_shipped_file() {
    let file = variants_file();
    let six = board("6x6");
    for (rules, variant) in [
        (Rules::Classic, "breakthrough-6x6"),
        (Rules::CaptureOnly, "breakthrough-capture-only-6x6"),
    ] {
        let (lines, _) = first_move_lines(fairy(&[("VariantPath", &file)]), rules, six);
        assert_eq!(
            lines,
            [
                "uci".to_string(),
                format!("setoption name VariantPath value {file}"),
                format!("setoption name UCI_Variant value {variant}"),
                "isready".into(),
                "ucinewgame".into(),
                "isready".into(),
                "isready".into(),
                "position fen pppppp/pppppp/6/6/PPPPPP/PPPPPP w".into(),
                "go depth 1".into(),
                "quit".into(),
            ]
        );
    }
    // On 8x8 the file's capture-only variant is chosen too (once the user had to name it).
    let (lines, _) = first_move_lines(
        fairy(&[("VariantPath", &file)]),
        Rules::CaptureOnly,
        Board::STANDARD,
    );
    assert_eq!(
        lines[..3],
        [
            "uci".to_string(),
            format!("setoption name VariantPath value {file}"),
            "setoption name UCI_Variant value breakthrough-capture-only".to_string(),
        ]
    );
    assert!(
        lines.contains(&"position startpos".to_string()),
        "{lines:?}"
    );
    // Without the file it is refused on 6x6, the fix named.
    let err = match Engine::start(&fairy(&[]), Rules::Classic, six) {
        Ok(_) => panic!("started on 6x6 without a variants file"),
        Err(err) => err,
    };
    assert_eq!(
        err.to_string(),
        "engine 'fsf': its UCI_Variant option offers no variant for 'classic' rules on 6x6 \
         (breakthrough-6x6): give it a variants file defining breakthrough-6x6: \
         option.VariantPath=FILE, bt-arena then sets UCI_Variant to breakthrough-6x6 (bt-arena \
         ships engines/fairy-stockfish/variants.ini, which defines it), or name the variant \
         yourself: option.UCI_Variant=NAME"
    );
    // A file that cannot be read is named.
    let err = match Engine::start(
        &fairy(&[("VariantPath", "/nonexistent/v.ini")]),
        Rules::Classic,
        six,
    ) {
        Ok(_) => panic!("started with an unreadable variants file"),
        Err(err) => err,
    };
    assert!(
        err.to_string()
            .starts_with("engine 'fsf': cannot read the variants file '/nonexistent/v.ini' given to option VariantPath"),
        "{err}"
    );
}

#[test]
#[ignore = "needs /usr/games/fairy-stockfish"]
fn check_engine_passes_fairy_stockfish_on_6x6_and_5x5_and_reports_it_told_8x8() {
    let cmd = format!("cmd={}", fairy_stockfish().display());
    let path = format!("option.VariantPath={}", variants_file());
    for size in ["6x6", "5x5"] {
        for rules in ["classic", "capture-only"] {
            let (code, report) = check_on(
                size,
                &[&cmd, "proto=uci", &path],
                &["--rules", rules, "--quick", "--only", NO_TIMING],
            );
            assert_eq!(code, 0, "{size} {rules}: {report:#}");
            assert_eq!(report["failed"], 0);
            assert_eq!(report["passed"], 21, "{report:#}");
            assert_eq!(verdict(&report, "board.solved").0, "pass", "{size} {rules}");
            let (_, summary) = verdict(&report, "handshake.rules-option");
            let variant = match rules {
                "classic" => format!("breakthrough-{size}"),
                _ => format!("breakthrough-capture-only-{size}"),
            };
            assert_eq!(summary, format!("UCI_Variant offers {variant}"));
        }
    }
    // Told 8x8's variant by the user, it plays 8x8 on a 6x6 position: both board checks fail.
    let (code, report) = check_on(
        "6x6",
        &[&cmd, "proto=uci", "option.UCI_Variant=breakthrough"],
        &["--rules", "classic", "--only", "board"],
    );
    assert_eq!(code, 1);
    assert_eq!(verdict(&report, "board.perft").0, "fail");
    assert_eq!(verdict(&report, "board.moves").0, "fail");
}
