//! bt-search as a process: its options, its moves through the runner's engine layer, its
//! limits, and `stop` over raw stdin/stdout.

use crate::util::{SEARCH, in_ms, roomy};
use bt_arena::engine::{Engine, EngineLaunch, SearchReply};
use bt_arena::protocol::{GoLimits, OptionKind, Protocol, Score};
use bt_arena::rules::{Board, Move, Position, Rules};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// bt-search speaking `proto` with `options` set.
fn config(proto: Protocol, options: &[(&str, &str)]) -> EngineLaunch {
    EngineLaunch {
        name: "search".into(),
        cmd: SEARCH.into(),
        proto,
        options: options
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect(),
        timeouts: roomy(),
        ..EngineLaunch::default()
    }
}

fn start(options: &[(&str, &str)], rules: Rules) -> Engine {
    Engine::start(&config(Protocol::Ugi, options), rules, Board::STANDARD)
        .unwrap_or_else(|err| panic!("bt-search starts: {err}"))
}

fn position(text: &str) -> Position {
    text.parse().expect("test position")
}

/// The answer to `go` with `limits` in `position`, within 10 s.
fn go(engine: &mut Engine, position: &Position, limits: &GoLimits) -> SearchReply {
    engine
        .go(position, &[], limits, in_ms(10_000))
        .unwrap_or_else(|err| panic!("an answer in {position}: {err}"))
}

#[test]
fn the_options_are_declared() {
    let engine = start(&[], Rules::CaptureOnly);
    assert!(engine.id_name().is_some_and(|n| n.starts_with("bt-search")));
    let kind = |name: &str| {
        engine
            .options()
            .iter()
            .find(|o| o.is_named(name))
            .map(|o| o.kind.clone())
    };
    assert_eq!(
        kind("Hash"),
        Some(OptionKind::Spin {
            default: 16,
            min: 0,
            max: 4096
        })
    );
    assert_eq!(
        kind("Depth"),
        Some(OptionKind::Spin {
            default: 0,
            min: 0,
            max: 100
        })
    );
    assert_eq!(
        kind("Eval"),
        Some(OptionKind::Combo {
            default: "full".into(),
            choices: vec!["full".into(), "material".into()],
        })
    );
}

#[test]
fn whole_games_are_legal_in_both_protocols_rule_sets_and_evaluations() {
    for proto in [Protocol::Ugi, Protocol::Uci] {
        for rules in Rules::ALL {
            for eval in ["full", "material"] {
                let options = [("Hash", "1"), ("Eval", eval)];
                let mut engine = Engine::start(&config(proto, &options), rules, Board::STANDARD)
                    .unwrap_or_else(|err| panic!("bt-search starts: {err}"));
                engine.new_game().expect("new game");
                let start = Position::startpos();
                let (mut current, mut moves) = (start, Vec::<Move>::new());
                while current.outcome(rules).is_none() {
                    let reply = engine
                        .go(&start, &moves, &GoLimits::nodes(3_000), in_ms(10_000))
                        .expect("a move");
                    let mv = current
                        .parse_move(rules, &reply.bestmove)
                        .unwrap_or_else(|err| panic!("{proto:?} {rules} {eval}: {err}"));
                    assert!(reply.info.nodes.is_some_and(|n| n <= 3_000));
                    current = current.play_unchecked(mv);
                    moves.push(mv);
                }
                let over = go(&mut engine, &current, &GoLimits::depth(3));
                assert_eq!(over.bestmove, "(none)");
                assert!(moves.len() > 10, "{} plies", moves.len());
            }
        }
    }
}

#[test]
fn a_win_in_one_is_played_and_reported_as_mate_one() {
    for rules in Rules::ALL {
        let mut engine = start(&[], rules);
        let reply = go(
            &mut engine,
            &position("8/P7/8/8/8/8/pppp4/8 w"),
            &GoLimits::depth(5),
        );
        assert_eq!(reply.bestmove, "a7a8");
        assert_eq!(reply.info.score, Some(Score::Mate(1)));
    }
}

#[test]
fn a_forced_win_in_three_plies_and_a_parry_are_found() {
    let mut engine = start(&[], Rules::CaptureOnly);
    let win = go(
        &mut engine,
        &position("3p4/8/1PP5/8/7p/8/8/8 w"),
        &GoLimits::depth(6),
    );
    assert_eq!(win.bestmove, "b6b7");
    assert_eq!(win.info.score, Some(Score::Mate(2)));
    assert_eq!(win.info.pv.len(), 3, "{:?}", win.info.pv);
    let parry = go(
        &mut engine,
        &position("8/1p3ppp/P7/8/8/8/3p1PPP/2P5 w"),
        &GoLimits::depth(6),
    );
    assert_eq!(parry.bestmove, "c1d2");
    let lost = go(
        &mut engine,
        &position("pppp4/8/8/8/8/8/3p2p1/2P5 w"),
        &GoLimits::depth(4),
    );
    assert_eq!(lost.info.score, Some(Score::Mate(-1)));
}

#[test]
fn depth_nodes_and_the_depth_cap_are_respected() {
    let mut engine = start(&[], Rules::CaptureOnly);
    let start_position = Position::startpos();
    let reply = go(&mut engine, &start_position, &GoLimits::depth(4));
    assert_eq!(reply.info.depth, Some(4));
    let reply = go(&mut engine, &start_position, &GoLimits::nodes(2_000));
    assert!(
        reply.info.nodes.is_some_and(|n| (1..=2_000).contains(&n)),
        "{:?}",
        reply.info
    );
    let mut capped = start(&[("Depth", "2")], Rules::CaptureOnly);
    let reply = go(&mut capped, &start_position, &GoLimits::depth(6));
    assert_eq!(reply.info.depth, Some(2));
    let reply = go(&mut capped, &start_position, &GoLimits::movetime(200));
    assert_eq!(reply.info.depth, Some(2));
}

#[test]
fn a_fixed_depth_answer_is_repeatable() {
    let answer = || {
        let mut engine = start(&[("Hash", "8")], Rules::Classic);
        let reply = go(
            &mut engine,
            &position("1ppp1ppp/p2p4/4p3/1P6/3P1p2/2P5/P3PPPP/PPP2P1P b"),
            &GoLimits::depth(6),
        );
        (reply.bestmove, reply.info.score, reply.info.nodes)
    };
    assert_eq!(answer(), answer());
}

#[test]
fn movetime_and_clock_answers_come_in_time() {
    let mut engine = start(&[], Rules::CaptureOnly);
    let start_position = Position::startpos();
    let reply = go(&mut engine, &start_position, &GoLimits::movetime(100));
    assert!(
        reply.elapsed < Duration::from_millis(1_000),
        "{:?}",
        reply.elapsed
    );
    assert!(
        reply.elapsed >= Duration::from_millis(50),
        "{:?}",
        reply.elapsed
    );
    assert!(reply.info.depth.is_some_and(|d| d >= 1));
    let clock = GoLimits::clock(1_000, 1_000, 0, 0);
    let reply = go(&mut engine, &start_position, &clock);
    assert!(
        reply.elapsed < Duration::from_millis(1_000),
        "{:?}",
        reply.elapsed
    );
}

/// bt-search over raw pipes, read on a thread so every read has a timeout.
struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Raw {
    fn start() -> Raw {
        let mut child = Command::new(SEARCH)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("bt-search runs");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("written");
    }

    /// The first line starting with `prefix` within `limit`, skipping others.
    fn wait_for(&self, prefix: &str, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            if line.starts_with(prefix) {
                return Some(line);
            }
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_infinite_search_answers_promptly_after_stop_only() {
    let mut raw = Raw::start();
    raw.send("uci");
    raw.wait_for("uciok", Duration::from_secs(10))
        .expect("uciok");
    raw.send("position startpos moves a2a3 h7h6");
    raw.send("go infinite");
    assert_eq!(raw.wait_for("bestmove", Duration::from_millis(300)), None);
    let sent = Instant::now();
    raw.send("stop");
    let best = raw
        .wait_for("bestmove", Duration::from_secs(5))
        .expect("bestmove after stop");
    assert!(
        sent.elapsed() < Duration::from_secs(1),
        "{:?}",
        sent.elapsed()
    );
    let mv = best.trim_start_matches("bestmove ").split(' ').next();
    let played = position("pppppppp/ppppppp1/7p/8/8/P7/1PPPPPPP/PPPPPPPP w");
    let mv = mv.map(|mv| played.parse_move(Rules::CaptureOnly, mv));
    assert!(matches!(mv, Some(Ok(_))), "{best}");
    raw.send("quit");
}
