//! Fairy-Stockfish, an outside UCI engine: under classic rules (its own `breakthrough`), and
//! under capture-only rules with the variants file the project ships
//! (`engines/fairy-stockfish/variants.ini`): handshake, options in the order given, moves judged
//! by our rules, its perft against ours, tournaments run from flags and config files. Each test
//! is `#[ignore]`d, as it needs Fairy-Stockfish installed: `cargo test -- --include-ignored`
//! runs them, and fails them when it is missing.

use bt_arena::engine::{Engine, EngineError, EngineLaunch, Timeouts};
use bt_arena::protocol::{GoLimits, Protocol};
use bt_arena::records::{GameRecord, Termination, read_games};
use bt_arena::rules::perft::{PerftOptions, divide};
use bt_arena::rules::{Board, Color, Position, Rules};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::util::{RANDOM, assert_matches, bt_arena, fairy_stockfish, stderr, stdout};

/// The variants file shipped with the project, defining `breakthrough-capture-only`.
const VARIANTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/engines/fairy-stockfish/variants.ini"
);
const CAPTURE_ONLY_VARIANT: &str = "breakthrough-capture-only";

/// Its configuration.
fn config() -> EngineLaunch {
    EngineLaunch {
        name: "fairy-stockfish".into(),
        cmd: fairy_stockfish(),
        proto: Protocol::Uci,
        timeouts: Timeouts {
            handshake: Duration::from_secs(20),
            ready: Duration::from_secs(20),
            quit_grace: Duration::from_secs(2),
        },
        ..EngineLaunch::default()
    }
}

/// Its configuration with the shipped variants file loaded and the capture-only variant chosen,
/// in that order.
fn capture_only_config() -> EngineLaunch {
    let mut config = config();
    config.options = vec![
        ("VariantPath".into(), VARIANTS.into()),
        ("UCI_Variant".into(), CAPTURE_ONLY_VARIANT.into()),
    ];
    config
}

/// The time allowed for a `go` or `go perft`.
fn seconds(seconds: u64) -> Duration {
    Duration::from_secs(seconds)
}

/// Plays up to `plies` moves from the start position with the engine on both sides, each one
/// judged by `rules`; returns how many were played (fewer when the game ended).
fn self_play(engine: &mut Engine, rules: Rules, plies: usize) -> usize {
    engine.new_game().expect("a new game");
    let start = Position::startpos();
    let (mut position, mut moves) = (start, Vec::new());
    while moves.len() < plies && position.outcome(rules).is_none() {
        let reply = engine
            .go(&start, &moves, &GoLimits::movetime(30), seconds(10))
            .expect("a move");
        let mv = position
            .parse_move(rules, &reply.bestmove)
            .unwrap_or_else(|err| panic!("after {moves:?}: {err}"));
        assert!(reply.info.depth.is_some_and(|d| d > 0), "{:?}", reply.info);
        position = position.play_unchecked(mv);
        moves.push(mv);
    }
    moves.len()
}

/// Asserts that the engine's perft divide at `depth` equals ours under `rules` in each position.
fn assert_perft_matches(engine: &mut Engine, rules: Rules, positions: &[&str], depth: u32) {
    for text in positions {
        let position: Position = text.parse().expect("a position");
        let reply = engine.perft(&position, depth, seconds(60)).expect("perft");
        let ours: BTreeMap<String, u64> = divide(&position, rules, depth, PerftOptions::default())
            .into_iter()
            .map(|(mv, count)| (mv.to_string(), count))
            .collect();
        let theirs: BTreeMap<String, u64> = reply.moves.into_iter().collect();
        assert_eq!(theirs, ours, "{position}");
        assert_eq!(reply.total, ours.values().sum::<u64>());
    }
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_plays_legal_classic_moves() {
    let config = config();
    let mut engine = Engine::start(&config, Rules::Classic, Board::STANDARD)
        .unwrap_or_else(|err| panic!("start failed: {err}"));
    assert!(
        engine
            .id_name()
            .is_some_and(|name| name.starts_with("Fairy-Stockfish")),
        "{:?}",
        engine.id_name()
    );
    assert_eq!(self_play(&mut engine, Rules::Classic, 8), 8);
    let pid = engine.pid();
    let status = engine.quit().expect("reaped");
    assert!(status.success(), "{status} (pid {pid})");
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_perft_matches_ours() {
    let config = config();
    let mut engine = Engine::start(&config, Rules::Classic, Board::STANDARD)
        .unwrap_or_else(|err| panic!("start failed: {err}"));
    let positions = [
        "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w",
        "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w",
    ];
    assert_perft_matches(&mut engine, Rules::Classic, &positions, 3);
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_is_refused_under_capture_only_with_the_fix_named() {
    let config = config();
    let err = Engine::start(&config, Rules::CaptureOnly, Board::STANDARD).expect_err("no variant");
    assert_matches!(
        err,
        EngineError::UnsupportedVariant {
            rules: Rules::CaptureOnly,
            offered,
            variants_file: true,
            ..
        } if offered == &[Rules::Classic]
    );
    assert_eq!(
        err.to_string(),
        "engine 'fairy-stockfish': its UCI_Variant option offers no variant for 'capture-only' \
         rules (it knows classic Breakthrough only): use --rules classic, or give it a variants \
         file defining breakthrough-capture-only: option.VariantPath=FILE, bt-arena then sets \
         UCI_Variant to breakthrough-capture-only (bt-arena ships \
         engines/fairy-stockfish/variants.ini, which defines it), or name the variant yourself: \
         option.UCI_Variant=NAME"
    );
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_with_the_variants_file_plays_capture_only() {
    let config = capture_only_config();
    let mut engine = Engine::start(&config, Rules::CaptureOnly, Board::STANDARD)
        .unwrap_or_else(|err| panic!("start failed: {err}"));
    assert_eq!(engine.warnings().len(), 1, "{:?}", engine.warnings());
    let warning = &engine.warnings()[0];
    for part in [
        "engine 'fairy-stockfish'",
        "option 'UCI_Variant'",
        "value 'breakthrough-capture-only'",
        "sent anyway",
    ] {
        assert!(warning.contains(part), "{warning}");
    }
    assert!(self_play(&mut engine, Rules::CaptureOnly, 40) >= 20);
    let positions = [
        "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w",
        "pppp1pp1/p1ppp2p/1p2p1pp/8/P4p1P/3PPPP1/PPP5/1PPPPPPP w",
        "ppp3pp/3ppp2/3p1ppp/p1p1pP2/P1p3PP/2P1P3/PP1P1P1P/1P1PP1P1 b",
        "8/8/8/1p6/P7/8/8/8 w",
        "P7/8/8/8/8/8/7p/8 b",
    ];
    assert_perft_matches(&mut engine, Rules::CaptureOnly, &positions, 4);
    engine.quit();
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

/// The `--engine` keys of Fairy-Stockfish with the shipped variants file, options in order.
fn capture_only_keys(cmd: &Path) -> String {
    format!(
        "cmd={} name=fsf proto=uci depth=3 option.VariantPath={VARIANTS} \
         option.UCI_Variant={CAPTURE_ONLY_VARIANT}",
        cmd.display()
    )
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_with_the_variants_file_passes_perft_check() {
    let cmd = fairy_stockfish();
    let output = bt_arena(&words(&format!(
        "perft-check --json --rules capture-only --depth 5 --suite tests/perft/capture-only.epd \
         --random 3 --seed 5 --engine {}",
        capture_only_keys(&cmd)
    )));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a report");
    let suite_lines = std::fs::read_to_string("tests/perft/capture-only.epd")
        .expect("the suite")
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .count();
    assert_eq!(report["passed"], suite_lines + 3);
    assert_eq!(report["failed"], 0);
}

/// The README's capture-only setup (VariantPath, then a UCI_Variant value Fairy-Stockfish
/// declares only once the file is loaded) is taken alike by check-engine, perft-check and a
/// tournament: sent with one warning, never refused (check-engine refused it with exit 3).
#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn check_engine_takes_the_variants_file_setup_with_the_warning_tournaments_give() {
    let cmd = fairy_stockfish();
    let output = bt_arena(&words(&format!(
        "check-engine --quick --only handshake,positions,movegen --engine {}",
        capture_only_keys(&cmd)
    )));
    let errors = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{errors}\n{}",
        stdout(&output)
    );
    let text = stdout(&output);
    assert!(
        text.starts_with("check-engine of fsf: uci, capture-only rules, seed 1\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "handshake.rules-option      UCI_Variant set to breakthrough-capture-only by the user"
        ),
        "{text}"
    );
    assert_eq!(
        errors,
        "warning: engine 'fsf': option 'UCI_Variant': value 'breakthrough-capture-only' is not \
         among the values it declared; sent anyway (an engine may add values at run time, as \
         Fairy-Stockfish does for UCI_Variant after VariantPath)\n"
    );
}

/// Asserts that every game was played legally by capture-only rules to a finish on the board.
fn assert_finished_legally(games: &[GameRecord]) {
    for game in games {
        let mut position: Position = game.opening.parse().expect("a position");
        for mv in game.moves.split_whitespace() {
            position = position
                .play(Rules::CaptureOnly, mv.parse().expect("a move"))
                .unwrap_or_else(|err| panic!("game {}: {err}", game.game_id));
        }
        let outcome = position
            .outcome(Rules::CaptureOnly)
            .unwrap_or_else(|| panic!("game {} ended by {}", game.game_id, game.termination));
        assert_eq!(game.result.winner(), outcome.winner);
    }
}

/// The lines of `log` with `marker` (`>`, `<` or `!`) after the time and engine name.
fn log_lines(log: &Path, marker: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_else(|err| panic!("{}: {err}", log.display()))
        .lines()
        .filter_map(|record| {
            let mut fields = record.trim_start().splitn(4, ' ');
            let _seconds = fields.next();
            let _engine = fields.next();
            (fields.next() == Some(marker)).then(|| fields.next().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn a_capture_only_tournament_sends_fairy_stockfish_options_in_the_order_given() {
    let cmd = fairy_stockfish();
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().join("run");
    let output = bt_arena(&words(&format!(
        "tournament --rules capture-only --games 4 --log --seed 3 --engine {} \
         --engine cmd={RANDOM} name=random depth=1 --out {}",
        capture_only_keys(&cmd),
        out.display()
    )));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).expect("games");
    assert_eq!(games.len(), 4);
    assert_finished_legally(&games);
    let errors = stderr(&output);
    let warnings: Vec<&str> = errors
        .lines()
        .filter(|line| line.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{errors}");
    assert!(
        warnings[0].starts_with(
            "warning: engine 'fsf': option 'UCI_Variant': value 'breakthrough-capture-only' is \
             not among the values it declared; sent anyway"
        ),
        "{}",
        warnings[0]
    );
    let log = out.join("logs/fsf-0.log");
    let sent: Vec<String> = log_lines(&log, ">")
        .into_iter()
        .filter(|line| line.starts_with("setoption"))
        .collect();
    assert_eq!(
        sent,
        [
            format!("setoption name VariantPath value {VARIANTS}"),
            format!("setoption name UCI_Variant value {CAPTURE_ONLY_VARIANT}"),
        ]
    );
    let notes = log_lines(&log, "!");
    assert_eq!(notes, [warnings[0].to_string()]);
    let saved =
        bt_arena::session::resume::read_saved::<bt_arena::tournament::TournamentConfig>(&out)
            .expect("config.json, as --resume reads it");
    assert_eq!(
        saved.engines[0].options.pairs(),
        [
            ("VariantPath".to_string(), VARIANTS.to_string()),
            ("UCI_Variant".to_string(), CAPTURE_ONLY_VARIANT.to_string()),
        ]
    );
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn a_config_file_keeps_the_order_of_fairy_stockfish_options() {
    let cmd = fairy_stockfish();
    let dir = tempfile::tempdir().expect("a directory");
    let out = dir.path().join("run");
    let config = dir.path().join("run.toml");
    std::fs::write(
        &config,
        format!(
            r#"
rules = "capture-only"
games = 2
out = "{}"

[[engines]]
name = "fsf"
cmd = "{}"
proto = "uci"
options = {{ VariantPath = "{VARIANTS}", UCI_Variant = "{CAPTURE_ONLY_VARIANT}", Hash = "8" }}
limit = {{ depth = 2 }}

[[engines]]
name = "random"
cmd = "{RANDOM}"
limit = {{ depth = 1 }}
"#,
            out.display(),
            cmd.display()
        ),
    )
    .expect("a config file");
    let output = bt_arena(&words(&format!(
        "tournament --config {} --log",
        config.display()
    )));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).expect("games");
    assert_eq!(games.len(), 2);
    assert_finished_legally(&games);
    let sent: Vec<String> = log_lines(&out.join("logs/fsf-0.log"), ">")
        .into_iter()
        .filter_map(|line| {
            line.strip_prefix("setoption name ")
                .and_then(|rest| rest.split(' ').next().map(String::from))
        })
        .collect();
    assert_eq!(sent, ["VariantPath", "UCI_Variant", "Hash"]);
}

/// An opening where each side's only capture-only move is a straight step, while classic rules
/// let a pawn step diagonally onto its goal rank: White b7a8/b7c8, Black g2f1/g2h1.
const DIAGONAL_WIN_OPENING: &str = "1p6/1P6/8/3p4/8/4P3/6p1/6P1 w";

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_told_to_play_classic_under_capture_only_loses_by_its_diagonal_steps() {
    let cmd = fairy_stockfish();
    let dir = tempfile::tempdir().expect("a directory");
    let book = dir.path().join("book.epd");
    std::fs::write(&book, format!("{DIAGONAL_WIN_OPENING}\n")).expect("a book");
    let out = dir.path().join("run");
    let output = bt_arena(&words(&format!(
        "tournament --rules capture-only --games 2 --openings file={} \
         --engine cmd={} name=fsf proto=uci depth=3 option.UCI_Variant=breakthrough \
         --engine cmd={RANDOM} name=random depth=1 --out {}",
        book.display(),
        cmd.display(),
        out.display()
    )));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).expect("games");
    assert_eq!(games.len(), 2);
    let stdout = String::from_utf8_lossy(&output.stdout);
    for game in &games {
        assert_eq!(game.termination, Termination::IllegalMove, "{stdout}");
        assert_eq!(game.loser_name(), "fsf", "{stdout}");
        let (side, moves) = if game.white == "fsf" {
            (Color::White, ["b7a8", "b7c8"])
        } else {
            (Color::Black, ["g2f1", "g2h1"])
        };
        let finished = stdout
            .lines()
            .find(|line| line.starts_with(&format!("Finished game {} ", game.game_id)))
            .unwrap_or_else(|| panic!("game {} in {stdout}", game.game_id));
        assert!(
            moves.iter().any(|mv| finished.contains(&format!(
                "{{{side}'s move '{mv}' is illegal: diagonal move to an empty square under \
                 capture-only rules}}"
            ))),
            "{finished}"
        );
    }
}

/// Every board from 4x4 to 7x8 other than 8x8, under both rule sets: Fairy-Stockfish with the
/// shipped variants file (`breakthrough-RxC`, `breakthrough-capture-only-RxC`) counts every
/// line of the board's perft table (tests/perft/boards/) to depth 4 as bt-arena does, through
/// `bt-arena perft-check --board`. 6x6 and 7x7 classic are upstream's `breakthrough6` and
/// `breakthrough7`, which the Debian build does not ship.
#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn boards_agree_with_bt_arenas_perft() {
    let fairy = crate::util::fairy_stockfish();
    let variants = format!(
        "{}/engines/fairy-stockfish/variants.ini",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut boards = 0;
    for board in bt_arena::rules::Board::all().filter(|board| !board.is_standard()) {
        for rules in Rules::ALL {
            let variant = match rules {
                Rules::Classic => format!("breakthrough-{board}"),
                Rules::CaptureOnly => format!("breakthrough-capture-only-{board}"),
            };
            let suite = format!("tests/perft/boards/{board}-{}.epd", rules.name());
            let output = crate::util::bt_arena(&[
                "perft-check",
                "--board",
                &board.to_string(),
                "--rules",
                rules.name(),
                "--suite",
                &suite,
                "--depth",
                "4",
                "--engine",
                &format!("cmd={}", fairy.display()),
                "proto=uci",
                &format!("option.VariantPath={variants}"),
                &format!("option.UCI_Variant={variant}"),
            ]);
            let text = String::from_utf8_lossy(&output.stdout);
            assert_eq!(
                output.status.code(),
                Some(0),
                "{board} {rules}: {text} {output:?}"
            );
            assert!(
                text.contains("3 positions checked: 3 passed, 0 failed"),
                "{board} {rules}: {text}"
            );
            boards += 1;
        }
    }
    assert_eq!(boards, 48);
}
