//! Fairy-Stockfish, an outside UCI engine, under classic rules: handshake, moves judged by our
//! rules, and its perft against ours. Skipped (with a message) when it is not installed, except
//! under CI (env `CI` set), where its absence fails the test.

use bt_arena::engine::protocol::{GoLimits, Protocol};
use bt_arena::engine::{Engine, EngineConfig, EngineError, Timeouts};
use bt_arena::rules::perft::{PerftOptions, divide};
use bt_arena::rules::{Position, Rules};
use std::collections::BTreeMap;
use std::time::Duration;

mod common;

/// Its configuration, or `None` when it is missing outside CI.
fn config() -> Option<EngineConfig> {
    let cmd = common::fairy_stockfish_or_skip()?;
    Some(EngineConfig {
        name: "fairy-stockfish".into(),
        cmd,
        proto: Protocol::Uci,
        timeouts: Timeouts {
            handshake: Duration::from_secs(20),
            ready: Duration::from_secs(20),
            quit_grace: Duration::from_secs(2),
        },
        ..EngineConfig::default()
    })
}

/// The time allowed for a `go` or `go perft`.
fn seconds(seconds: u64) -> Duration {
    Duration::from_secs(seconds)
}

#[test]
fn fairy_stockfish_plays_legal_classic_moves() {
    let Some(config) = config() else { return };
    let mut engine =
        Engine::start(&config, Rules::Classic).unwrap_or_else(|err| panic!("start failed: {err}"));
    assert!(
        engine
            .id_name()
            .is_some_and(|name| name.starts_with("Fairy-Stockfish")),
        "{:?}",
        engine.id_name()
    );
    engine.new_game().expect("a new game");
    let start = Position::startpos();
    let (mut position, mut moves) = (start, Vec::new());
    for _ in 0..8 {
        if position.outcome(Rules::Classic).is_some() {
            break;
        }
        let reply = engine
            .go(&start, &moves, &GoLimits::movetime(50), seconds(10))
            .expect("a move");
        let mv = position
            .parse_move(Rules::Classic, &reply.bestmove)
            .unwrap_or_else(|err| panic!("after {moves:?}: {err}"));
        assert!(reply.info.depth.is_some_and(|d| d > 0), "{:?}", reply.info);
        position = position.play_unchecked(mv);
        moves.push(mv);
    }
    assert_eq!(moves.len(), 8);
    let pid = engine.pid();
    let status = engine.quit().expect("reaped");
    assert!(status.success(), "{status} (pid {pid})");
}

#[test]
fn fairy_stockfish_perft_matches_ours() {
    let Some(config) = config() else { return };
    let mut engine =
        Engine::start(&config, Rules::Classic).unwrap_or_else(|err| panic!("start failed: {err}"));
    let positions = [
        Position::startpos(),
        "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w"
            .parse()
            .expect("a position"),
    ];
    for position in positions {
        let reply = engine.perft(&position, 3, seconds(60)).expect("perft");
        let ours: BTreeMap<String, u64> =
            divide(&position, Rules::Classic, 3, PerftOptions::default())
                .into_iter()
                .map(|(mv, count)| (mv.to_string(), count))
                .collect();
        let theirs: BTreeMap<String, u64> = reply.moves.into_iter().collect();
        assert_eq!(theirs, ours, "{position}");
        assert_eq!(reply.total, ours.values().sum::<u64>());
    }
}

#[test]
fn fairy_stockfish_is_refused_under_capture_only() {
    let Some(config) = config() else { return };
    let err = Engine::start(&config, Rules::CaptureOnly).expect_err("no variant");
    assert!(
        matches!(
            err,
            EngineError::UnsupportedVariant {
                rules: Rules::CaptureOnly,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("UCI_Variant"), "{err}");
}
