//! `bt-arena tune` and what it tunes: bt-search's evaluation weights as options, and SPSA runs
//! driving the real runner and engines (reproducible, resumable, converging).

mod common;

use bt_arena::bundled::search::EvalWeights;
use bt_arena::engine::{Engine, EngineLaunch};
use bt_arena::protocol::{GoLimits, OptionKind, Protocol};
use bt_arena::rules::{Position, Rules};
use common::{in_ms, roomy};

/// bt-search over UGI with `options` set, started for `rules`.
fn search_engine(options: &[(String, String)], rules: Rules) -> Engine {
    let launch = EngineLaunch {
        name: "search".into(),
        cmd: env!("CARGO_BIN_EXE_bt-search").into(),
        proto: Protocol::Ugi,
        options: options.to_vec(),
        timeouts: roomy(),
        ..EngineLaunch::default()
    };
    Engine::start(&launch, rules).unwrap_or_else(|err| panic!("bt-search starts: {err}"))
}

/// The best move and node count of a depth-7 search of each of `positions`, each after
/// `uginewgame`.
fn answers(engine: &mut Engine, positions: &[&str]) -> Vec<(String, Option<u64>)> {
    positions
        .iter()
        .map(|text| {
            let position: Position = text.parse().expect("test position");
            engine.new_game().expect("new game");
            let reply = engine
                .go(&position, &[], &GoLimits::depth(7), in_ms(20_000))
                .unwrap_or_else(|err| panic!("an answer in {text}: {err}"));
            (reply.bestmove, reply.info.nodes)
        })
        .collect()
}

const POSITIONS: [&str; 4] = [
    "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w",
    "2pppp1p/pp6/1p1Pppp1/1P6/p2p1P1p/P2P2p1/P1P1P2P/1PP2PP1 b",
    "p1pp4/1p2pppp/p1p1p1p1/3p4/PPp1P1P1/P7/1P1P1PP1/2P1PP1P w",
    "ppp2pp1/pp1p3p/2pppppp/2P1p3/7P/PP3P2/PPPPPPP1/3PP1PP b",
];

#[test]
fn bt_search_declares_its_weights_and_plays_the_same_with_every_weight_set_to_its_default() {
    let plain = search_engine(&[], Rules::CaptureOnly);
    for option in EvalWeights::OPTIONS {
        let declared = plain.options().iter().find(|o| o.is_named(option.name));
        assert_eq!(
            declared.map(|o| o.kind.clone()),
            Some(OptionKind::Spin {
                default: i64::from(option.default_value()),
                min: i64::from(option.min),
                max: i64::from(option.max),
            }),
            "{}",
            option.name
        );
    }
    let mut plain = plain;
    let defaults: Vec<(String, String)> = EvalWeights::OPTIONS
        .iter()
        .map(|o| (o.name.to_string(), o.default_value().to_string()))
        .collect();
    let mut explicit = search_engine(&defaults, Rules::CaptureOnly);
    let expected = answers(&mut plain, &POSITIONS);
    assert_eq!(answers(&mut explicit, &POSITIONS), expected);
    // The same searches with one weight changed differ: the options are read.
    let detuned = [("SafeAdvance5".to_string(), "200".to_string())];
    let mut other = search_engine(&detuned, Rules::CaptureOnly);
    assert_ne!(answers(&mut other, &POSITIONS), expected);
}
