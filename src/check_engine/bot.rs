//! check-engine of a CodinGame bot (`proto=codingame`): a bot has no handshake, option or
//! search limit to check, so its checklist is about its turns. It plays [`GAMES`] games from
//! the start position against random moves (seeded by `--seed`), half as White, half as
//! Black, each on a fresh process at its clock (`tc=codingame` unless given another), and the
//! checks read them:
//!
//! - `positions.as-white`: its first turn as White (`None`) is answered with a move of the
//!   list;
//! - `positions.as-black`: so is its first turn as Black (White's first move);
//! - `positions.random-play`: every turn of every game is answered with a move of its list;
//! - `limits.first-turn`: its first turns within the first turn's limit;
//! - `limits.keeps-time`: its later turns within the turn's limit, with the 95th percentile
//!   (nearest rank) and the maximum of their times reported against the limit: what loses a
//!   bot its games on CodinGame; a maximum above 80% of the limit is a warning (a slower
//!   server forfeits it);
//! - `output.one-line`: no line beyond its move (stray lines are a warning);
//! - `match.mini-match`: game pairs against the opponent under the tournament's game loop
//!   ([`super::mini_match`]), the second pair from an opening (told by forced turns).
//!
//! The UGI/UCI groups a bot has no part in (`handshake`, `newgame`, `movegen`) are reported as
//! skipped when `--only` asks for them.

use super::{
    CheckResult, Checklist, Ctx, Evidence, Finding, Group, RunError, Session, Settings, Verdict,
};
use crate::engine::{Engine, EngineDescription, EngineError, StrayOutput, Timeouts};
use crate::game::TimeControl;
use crate::protocol::codingame::{MoveOrder, Turn};
use crate::rules::{Color, Move, Position};
use crate::time_control::{CODINGAME_FIRST_MS, CODINGAME_TURN_MS, whole_ms};
use std::time::{Duration, Instant};

/// The games played against random moves (half as White, half as Black).
pub const GAMES: usize = 4;

/// The share of the turn's limit above which the slowest turn is a warning, in percent.
pub const WARN_PERCENT: u64 = 80;

/// One turn of the games: its game, number, the bot's side, what it was told and what it
/// answered, how long it took.
#[derive(Debug)]
struct TurnRecord {
    game: usize,
    turn: u32,
    side: Color,
    told: Turn,
    answer: String,
    legal: bool,
    took: Duration,
}

/// What the games showed: every turn answered, the error that ended a game early (with the
/// turn it came at), the stray lines.
#[derive(Debug, Default)]
struct Games {
    turns: Vec<TurnRecord>,
    errors: Vec<(usize, Color, Turn, EngineError)>,
    stray: StrayOutput,
}

/// Runs the bot's checklist (see the module documentation).
///
/// # Errors
/// [`RunError::CannotStart`] when the bot cannot be spawned; [`RunError::BadOption`] for an
/// option that fills no placeholder of its arguments.
pub(super) fn run(
    spec: &EngineDescription,
    timeouts: Timeouts,
    opponent: Option<&EngineDescription>,
    settings: &Settings,
    mut on_check: impl FnMut(&CheckResult),
) -> Result<Checklist, RunError> {
    let started = Instant::now();
    let mut config = spec.launch();
    config.timeouts = timeouts;
    let ctx = Ctx::new(spec, timeouts, settings);
    let mut engine =
        Engine::start(&config, settings.rules, settings.board).map_err(|error| match error {
            EngineError::UnknownOption { .. } | EngineError::BadOptionValue { .. } => {
                RunError::BadOption(error.to_string())
            }
            error => RunError::CannotStart(error),
        })?;
    let (first_ms, turn_ms) = match spec.limit {
        TimeControl::CodinGame { first_ms, turn_ms } => (first_ms, turn_ms),
        TimeControl::MoveTime(ms) => (ms, ms),
        _ => (CODINGAME_FIRST_MS, CODINGAME_TURN_MS),
    };
    let limits = Limits {
        first: Duration::from_millis(first_ms),
        turn: Duration::from_millis(turn_ms),
        margin: Duration::from_millis(spec.time_margin_ms),
    };
    let wanted = |group: Group| settings.only.is_empty() || settings.only.contains(&group);
    let mut checks: Vec<CheckResult> = Vec::new();
    let mut record = |results: Vec<CheckResult>| {
        results.iter().for_each(&mut on_check);
        checks.extend(results);
    };
    for (group, id) in [
        (Group::Handshake, "handshake.bot"),
        (Group::Newgame, "newgame.bot"),
        (Group::Movegen, "movegen.bot"),
    ] {
        if !settings.only.is_empty() && settings.only.contains(&group) {
            let why = "not checked: a CodinGame bot has no handshake, new game or perft";
            record(vec![Finding::skip(why).named(id)]);
        }
    }
    let needs_games = [Group::Positions, Group::Limits, Group::Output]
        .into_iter()
        .any(wanted);
    if needs_games {
        let games = play_games(&mut engine, &ctx, &limits, spec.move_order);
        engine.quit();
        if wanted(Group::Positions) {
            record(positions(&games));
        }
        if wanted(Group::Limits) {
            record(times(&games, &limits));
        }
        if wanted(Group::Output) {
            record(vec![one_line(&games.stray)]);
        }
    } else {
        engine.quit();
    }
    if wanted(Group::Match) {
        let mut session = Session {
            config,
            rules: settings.rules,
            board: settings.board,
            engine: None,
            blocked: None,
        };
        let result = super::mini_match::run(&mut session, &ctx, spec, opponent, settings.quick);
        record(vec![result]);
    }
    Ok(Checklist::new(spec, None, settings, checks, started))
}

/// The bot's clock: its first turn's limit, each later turn's, and the margin.
struct Limits {
    first: Duration,
    turn: Duration,
    margin: Duration,
}

/// Plays [`GAMES`] games of the bot against random moves, each on a fresh process, until the
/// game ends or the bot fails.
fn play_games(engine: &mut Engine, ctx: &Ctx, limits: &Limits, order: MoveOrder) -> Games {
    let mut games = Games::default();
    let mut rng = fastrand::Rng::with_seed(ctx.seed);
    for game in 1..=GAMES {
        let side = match game % 2 {
            1 => Color::White,
            _ => Color::Black,
        };
        if let Err(error) = engine.new_game() {
            let turn = Turn {
                last: None,
                moves: Vec::new(),
            };
            games.errors.push((game, side, turn, error));
            continue;
        }
        let start = Position::startpos();
        let (mut position, mut moves, mut turn) = (start, Vec::<Move>::new(), 0u32);
        while position.outcome(ctx.rules).is_none() {
            if position.side_to_move() != side {
                let legal: Vec<Move> = position.legal_moves(ctx.rules).iter().collect();
                let mv = legal[rng.usize(..legal.len())];
                moves.push(mv);
                position = position.play_unchecked(mv);
                continue;
            }
            turn += 1;
            let allowed = match turn {
                1 => limits.first,
                _ => limits.turn,
            } + limits.margin;
            let told = Turn {
                last: moves.last().copied(),
                moves: order.moves(&position, ctx.rules),
            };
            let reply = engine.go(&start, &moves, &Default::default(), allowed);
            match reply {
                Ok(reply) => {
                    let played = reply.bestmove.parse::<Move>().ok();
                    let legal = played.is_some_and(|mv| told.moves.contains(&mv));
                    games.turns.push(TurnRecord {
                        game,
                        turn,
                        side,
                        told,
                        answer: reply.bestmove,
                        legal,
                        took: reply.turn_time.unwrap_or(reply.elapsed),
                    });
                    match played.filter(|_| legal) {
                        Some(mv) => {
                            moves.push(mv);
                            position = position.play_unchecked(mv);
                        }
                        None => break,
                    }
                }
                Err(error) => {
                    games.errors.push((game, side, told, error));
                    break;
                }
            }
        }
        let stray = engine.take_stray();
        games.stray.lines += stray.lines;
        if games.stray.first.is_none() {
            games.stray.first = stray.first;
        }
    }
    games
}

/// The turn's input as evidence: the last move, the count, the moves on one line.
fn told(turn: &Turn) -> Evidence {
    let lines = turn.lines();
    let moves: Vec<&str> = lines.iter().skip(2).map(String::as_str).collect();
    Evidence::sent([
        lines[0].clone(),
        lines[1].clone(),
        format!("{} (one a line)", moves.join(" ")),
    ])
}

/// The finding of a turn that was not answered with a move of its list, or of the error that
/// ended a game at `turn`'s input.
fn bad_turn(record: &TurnRecord) -> Finding {
    Finding::fail(format!(
        "game {} ({}), turn {}: '{}' is not among the {} moves of the list",
        record.game,
        record.side,
        record.turn,
        record.answer,
        record.told.moves.len()
    ))
    .with(told(&record.told).received(record.answer.clone(), record.took))
}

/// The finding of `error`, which ended game `game` at the turn `turn` was told.
fn failed(game: usize, side: Color, turn: &Turn, error: &EngineError) -> Finding {
    Finding::fail(format!("game {game} ({side}): {error}")).with(told(turn))
}

/// `positions.as-white`, `.as-black`, `.random-play`. A turn that timed out is the limits'
/// checks' business: the turns before it count here.
fn positions(games: &Games) -> Vec<CheckResult> {
    let timed_out = |error: &EngineError| matches!(error, EngineError::TurnTimeout { .. });
    // Game 1 is played as White, game 2 as Black.
    let first = |game: usize, id: &str| {
        let record = games.turns.iter().find(|r| r.game == game && r.turn == 1);
        let error = games.errors.iter().find(|(g, ..)| *g == game);
        let finding = match (record, error) {
            (Some(record), _) if record.legal => Finding::pass(format!(
                "{} from the {} moves of its first turn ({}) in {} ms",
                record.answer,
                record.told.moves.len(),
                record.told.lines()[0],
                whole_ms(record.took)
            )),
            (Some(record), _) => bad_turn(record),
            (None, Some((.., error))) if timed_out(error) => {
                Finding::skip("not checked: its first turn timed out (see limits.first-turn)")
            }
            (None, Some((game, side, turn, error))) => failed(*game, *side, turn, error),
            (None, None) => Finding::skip("not checked: no first turn was played"),
        };
        finding.named(id)
    };
    let other = games.errors.iter().find(|(.., error)| !timed_out(error));
    let every = match (games.turns.iter().find(|r| !r.legal), other) {
        (Some(record), _) => bad_turn(record),
        (None, Some((game, side, turn, error))) => failed(*game, *side, turn, error),
        (None, None) if games.turns.is_empty() => {
            Finding::skip("not checked: no turn was answered in time (see limits.first-turn)")
        }
        (None, None) => {
            let cut = match games.errors.len() {
                0 => String::new(),
                n => format!(" ({n} of the games cut short by a turn out of time)"),
            };
            Finding::pass(format!(
                "{} turns in {GAMES} games against random moves, every answer from the \
                 list{cut}",
                games.turns.len()
            ))
        }
    };
    vec![
        first(1, "positions.as-white"),
        first(2, "positions.as-black"),
        every.named("positions.random-play"),
    ]
}

/// `limits.first-turn` and `limits.keeps-time`.
fn times(games: &Games, limits: &Limits) -> Vec<CheckResult> {
    let late = |first: bool| {
        games.errors.iter().find(|(.., error)| {
            matches!(error, EngineError::TurnTimeout { turn, .. } if (*turn == 1) == first)
        })
    };
    let ms = |d: Duration| whole_ms(d);
    let firsts: Vec<&TurnRecord> = games.turns.iter().filter(|r| r.turn == 1).collect();
    let first = match (late(true), firsts.iter().max_by_key(|r| r.took)) {
        (Some((game, side, turn, error)), _) => failed(*game, *side, turn, error),
        (None, Some(slowest)) if slowest.took > limits.first + limits.margin => {
            over(slowest, limits.first)
        }
        (None, Some(slowest)) => Finding::pass(format!(
            "{} first turns, the slowest {} ms of {} ms",
            firsts.len(),
            ms(slowest.took),
            ms(limits.first)
        )),
        (None, None) => Finding::skip("not checked: no first turn was played"),
    };
    let mut later: Vec<&TurnRecord> = games.turns.iter().filter(|r| r.turn > 1).collect();
    later.sort_by_key(|r| r.took);
    // The 95th percentile by the nearest-rank method: the value at rank ⌈0.95·n⌉.
    let rank = (later.len() * 95).div_ceil(100).max(1);
    let summary = |slowest: &TurnRecord| {
        format!(
            "{} later turns: 95th percentile {} ms, max {} ms, of {} ms",
            later.len(),
            ms(later[rank - 1].took),
            ms(slowest.took),
            ms(limits.turn)
        )
    };
    let keeps = match (late(false), later.last()) {
        (Some((game, side, turn, error)), slowest) => {
            let played = slowest.map_or(String::new(), |slowest| {
                format!(" (before it, {})", summary(slowest))
            });
            let Finding {
                summary, evidence, ..
            } = failed(*game, *side, turn, error);
            Finding {
                verdict: Verdict::Fail,
                summary: format!("{summary}{played}"),
                evidence,
            }
        }
        (None, None) => Finding::skip("not checked: no turn after the first was played"),
        (None, Some(slowest)) if slowest.took > limits.turn + limits.margin => {
            over(slowest, limits.turn)
        }
        (None, Some(slowest)) if ms(slowest.took) * 100 > ms(limits.turn) * WARN_PERCENT => {
            Finding::warn(format!(
                "{}: the slowest is above {WARN_PERCENT}% of the limit, which a slower machine \
                 (CodinGame's) may forfeit",
                summary(slowest)
            ))
        }
        (None, Some(slowest)) => Finding::pass(summary(slowest)),
    };
    vec![
        first.named("limits.first-turn"),
        keeps.named("limits.keeps-time"),
    ]
}

/// The finding of a turn answered after its limit (and the margin).
fn over(record: &TurnRecord, limit: Duration) -> Finding {
    Finding::fail(format!(
        "game {} ({}), turn {}: answered in {} ms, over its {} ms: CodinGame forfeits a bot for \
         that",
        record.game,
        record.side,
        record.turn,
        whole_ms(record.took),
        whole_ms(limit)
    ))
    .with(told(&record.told).received(record.answer.clone(), record.took))
}

/// `output.one-line`: nothing beyond the move.
fn one_line(stray: &StrayOutput) -> CheckResult {
    let finding = match stray.lines {
        0 => Finding::pass("one line a turn, nothing more"),
        _ => Finding::warn(format!(
            "{stray} beyond its moves: never played, but CodinGame would read the next as the \
             next turn's answer"
        )),
    };
    finding.named("output.one-line")
}
