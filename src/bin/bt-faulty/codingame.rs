//! bt-faulty as a CodinGame bot (`--codingame`): it reads CodinGame's turns (the opponent's
//! last move or `None`, the count, the moves) and answers a random move of the list, or
//! misbehaves as its fault says (the list is in the binary's documentation).

use crate::fault::Fault;
use crate::ugi::{TUNABLE_DEPTH, opponent_move, random_share};
use crate::{Settings, jitter, say};
use bt_arena::bundled::codingame::rules_of;
use bt_arena::bundled::search::{Limits, Searcher};
use bt_arena::protocol::codingame::NO_LAST_MOVE;
use bt_arena::rules::{Move, Position, Rules};
use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// `extra-lines`: what it writes after its move.
const EXTRA_LINES: [&str; 2] = ["debug: this line is not a move", "h2h3"];
/// `stderr-flood`: the bytes written to stderr every turn.
const FLOOD_BYTES: usize = 1 << 20;
/// `huge-line`: the size of its answer line.
const HUGE_LINE_BYTES: usize = 4 << 20;

/// The faults a CodinGame bot can have (the others concern UGI/UCI).
const BOT_FAULTS: [Fault; 15] = [
    Fault::None,
    Fault::ExitAtStart,
    Fault::CrashMidGame,
    Fault::SigtermMidGame,
    Fault::NoBestmove,
    Fault::HangMidGame,
    Fault::Slow,
    Fault::SlowTurn,
    Fault::Garbage,
    Fault::IllegalMove,
    Fault::UnparseableMove,
    Fault::HugeLine,
    Fault::ExtraLines,
    Fault::StderrFlood,
    Fault::Tunable,
];

/// Plays one game as a CodinGame bot until its input ends; exit status 2 for a fault that is
/// not a bot's.
pub(crate) fn play(settings: Settings) -> ExitCode {
    if !BOT_FAULTS.contains(&settings.fault) {
        let names: Vec<String> = BOT_FAULTS.iter().map(|fault| fault.name()).collect();
        eprintln!(
            "bt-faulty: --fault {} is not a CodinGame bot's (with --codingame: {})",
            settings.fault.name(),
            names.join(", ")
        );
        return ExitCode::from(2);
    }
    let mut echo = settings.echo.as_ref().and_then(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()
    });
    let mut rng = settings
        .seed
        .map_or_else(fastrand::Rng::new, fastrand::Rng::with_seed);
    let mut searcher = Searcher::new(1);
    let mut position = Position::startpos();
    let mut rules = Rules::Classic;
    let mut lines = io::stdin().lock().lines();
    let mut next = || {
        let line = lines.next()?.ok()?;
        if let Some(file) = echo.as_mut() {
            let _ = writeln!(file, "{line}");
        }
        Some(line)
    };
    for turn in 1u32.. {
        let Some(last) = next() else { break };
        if let Ok(mv) = last.trim().parse::<Move>() {
            position = position.play_unchecked(mv);
        } else if last.trim() != NO_LAST_MOVE {
            eprintln!("bt-faulty: bad last move '{last}'");
        }
        let count: usize = next().and_then(|n| n.trim().parse().ok()).unwrap_or(0);
        let list: Vec<Move> = (0..count)
            .filter_map(|_| next())
            .filter_map(|line| line.trim().parse().ok())
            .collect();
        rules = rules_of(&position, &list).unwrap_or(rules);
        misbehave(&settings, turn);
        let mv = match settings.fault {
            Fault::Tunable if list.len() > 1 => {
                let knobs = [settings.knob_a, settings.knob_b];
                match rng.f64() < random_share(&settings, knobs) {
                    true => list[rng.usize(..list.len())],
                    false => searched(&mut searcher, &position, rules, &list),
                }
            }
            _ if list.is_empty() => {
                // No move to choose from: never in a game.
                say("a2a3");
                continue;
            }
            _ => list[rng.usize(..list.len())],
        };
        let answer = match settings.fault {
            Fault::Garbage => "#@!%& garbage instead of a move".to_string(),
            Fault::IllegalMove => not_in(&list, &position),
            Fault::UnparseableMove => "z9z0".to_string(),
            Fault::HugeLine => format!("{mv} {}", "x".repeat(HUGE_LINE_BYTES)),
            _ => format!("{mv} turn {turn}"),
        };
        match settings.fault {
            // In one write, as a bot that prints several lines and flushes once.
            Fault::ExtraLines => {
                let text = format!("{answer}\n{}\n", EXTRA_LINES.join("\n"));
                let mut out = io::stdout().lock();
                if out
                    .write_all(text.as_bytes())
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    return ExitCode::SUCCESS;
                }
            }
            _ => say(answer),
        }
        position = position.play_unchecked(mv);
    }
    ExitCode::SUCCESS
}

/// The fault's misbehaviour at turn `turn` before the answer: a crash, a hang, a delay, a flood
/// of stderr; nothing for the others.
fn misbehave(settings: &Settings, turn: u32) {
    if settings.jitter_ms > 0 {
        std::thread::sleep(jitter(settings.jitter_ms));
    }
    let after = turn > settings.after_moves;
    match settings.fault {
        Fault::CrashMidGame if after => {
            eprintln!("bt-faulty: crashing on turn {turn} as asked");
            std::process::exit(2);
        }
        Fault::SigtermMidGame if after => {
            eprintln!("bt-faulty: killing itself with SIGTERM on turn {turn} as asked");
            // SAFETY: a signal to this process itself; SIGTERM's default action ends it.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGTERM);
            }
            hang();
        }
        Fault::HangMidGame if after => hang(),
        Fault::NoBestmove => hang(),
        Fault::Slow => std::thread::sleep(settings.delay),
        Fault::SlowTurn if turn == settings.turn => std::thread::sleep(settings.delay),
        Fault::StderrFlood => {
            let mut err = io::stderr().lock();
            let _ = err.write_all(&vec![b'x'; FLOOD_BYTES]);
            let _ = writeln!(err);
        }
        _ => {}
    }
}

/// Sleeps for ever, reading nothing more.
fn hang() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// A well-formed move that is not in `list`: one of the opponent's, or the first move of the
/// list backwards.
fn not_in(list: &[Move], position: &Position) -> String {
    opponent_move(position)
        .filter(|mv| !list.contains(mv))
        .or_else(|| {
            list.first().map(|mv| Move {
                from: mv.to,
                to: mv.from,
            })
        })
        .map_or_else(|| "a1a1".to_string(), |mv| mv.to_string())
}

/// tunable: bt-search's move at depth 2, when the list holds it (else the list's first).
fn searched(searcher: &mut Searcher, position: &Position, rules: Rules, list: &[Move]) -> Move {
    let limits = Limits {
        depth: Some(TUNABLE_DEPTH),
        ..Limits::default()
    };
    searcher.clear();
    let stop = AtomicBool::new(false);
    let result = searcher.search(position, rules, &limits, &stop, &mut |_| {});
    result
        .best
        .filter(|mv| list.contains(mv))
        .unwrap_or(list[0])
}
