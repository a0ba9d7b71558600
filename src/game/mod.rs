//! One game between two running engines: clocks, the move loop and adjudication.
//!
//! For users (`docs/guide/tournaments.md`, "How games end"; `docs/adjudication.md`): the rules
//! end a game, a fault loses it for the side at fault, and resign or proof adjudication may end
//! it sooner.
//!
//! The runner, not the engines, decides how a game ends. Every reply is checked with the
//! reference rules before it is applied: a move that is not a move or is illegal loses
//! (`illegal-move`), as do a late move (`time-forfeit`), an engine that dies (`crash`) or stops
//! answering `isready` (`stall`). Otherwise the rules end the game (`goal-rank`,
//! `all-captured`, `no-moves`), unless an adjudication rule that is on ends it first (`proof`,
//! `resign`: see [`adjudication`]). A `bestmove` that answers no request is never played (the
//! engine fences each `go`, see [`Engine::go`]); the stray lines each engine wrote during the
//! game are reported with it ([`PlayedGame::stray`]) and do not decide it.
//!
//! Every reply's claims are checked as it comes ([`claims`]): the PV, a mate score, the ponder
//! move. They decide nothing either: what is found goes to [`PlayedGame::claims`], and only
//! the legal part of a PV to the records.

use crate::engine::{Engine, EngineDescription, EngineError, SearchReply, StrayOutput};
use crate::protocol::Info;
use crate::records::Termination;
use crate::records::moves::MoveInfo;
use crate::rules::{ByColor, Color, Move, MoveError, Position, Rules};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub mod adjudication;
pub mod claims;

use crate::records::claims::GameClaims;
use crate::time_control;
pub use crate::time_control::{Clocks, Overstep, SideClock, TimeControl, UNCLOCKED_MOVE_TIMEOUT};
pub use adjudication::{Adjudication, Adjudicator, ProofRule, ResignRule};
pub use claims::{ClaimChecker, ClaimChecks};

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGame {
    /// The side that won.
    pub winner: Color,
    /// How the game ended.
    pub termination: Termination,
    /// The moves played, from the opening.
    pub moves: Vec<Move>,
    /// Thinking time used by White and Black: the sum of the exact times from `go` to
    /// `bestmove` their clocks were charged.
    pub used: ByColor<Duration>,
    /// The side whose engine misbehaved (its process should not be reused), if any.
    pub faulty: Option<Color>,
    /// What happened, for people: `White reached rank 8`, `Black's move a7a5 is illegal: ...`.
    pub detail: String,
    /// Output of White's and Black's engine that answered no request, read during the game
    /// (including what the previous game of the same process left unread): never played.
    pub stray: ByColor<StrayOutput>,
    /// What the mover's engine reported for each move of `moves`, and the time it took (its
    /// PV cut to the legal part that starts with the move played).
    pub infos: Vec<MoveInfo>,
    /// The engines' claims checked during the game, and what was found ([`claims`]).
    pub claims: GameClaims,
    /// The findings in words, at most one per engine and kind: (the side, the warning naming
    /// the ply, the position and the claim).
    pub claim_warnings: Vec<(Color, String)>,
}

impl PlayedGame {
    /// The thinking time `side` used, in whole ms (rounded down once, from the exact sum).
    pub fn used_ms(&self, side: Color) -> u64 {
        time_control::whole_ms(self.used[side])
    }
}

/// Why a game was not finished.
#[derive(Debug)]
pub enum Unfinished {
    /// The run is stopping (Ctrl-C): the game is dropped and will be played on resume.
    Interrupted,
}

/// The two players of a game: engines and their specs.
pub struct Players<'a> {
    /// The running engines.
    pub engines: ByColor<&'a mut Engine>,
    /// Their descriptions.
    pub specs: ByColor<&'a EngineDescription>,
}

/// Another move than the engine's `bestmove`, now and then (datagen's `--random-multipv
/// K,DIFF,P`): at each ply, with probability `probability`, the move played is drawn
/// uniformly among the first moves of the engine's MultiPV lines ([`SearchReply::lines`])
/// scored within `diff` centipawns of its best ([`Score::value`]); both draws come from `seed`
/// and the ply, so a game repeats. A reply without lines plays its `bestmove`. The move's
/// recorded score ([`MoveInfo::score`]) is then the score of the line played, not the best
/// line's (and its pv is left empty: only the line's first move is kept).
///
/// [`SearchReply::lines`]: crate::engine::SearchReply::lines
/// [`Score::value`]: crate::protocol::Score::value
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultiPvPick {
    /// Centipawns below the best line a line may score and be drawn.
    pub diff: i32,
    /// The probability of a draw at each ply, in (0, 1].
    pub probability: f64,
    /// The seed of the game's draws.
    pub seed: u64,
}

impl MultiPvPick {
    /// The line whose move to play at `ply` (0-based, from the game's start) for `reply`;
    /// `None`: its `bestmove` (no draw at this ply, or no lines).
    pub fn choose<'r>(
        &self,
        ply: usize,
        reply: &'r crate::engine::SearchReply,
    ) -> Option<&'r crate::engine::PvLine> {
        let mut rng = fastrand::Rng::with_seed(
            self.seed ^ (ply as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let best = reply.lines.first()?;
        if rng.f64() >= self.probability {
            return None;
        }
        let floor = best.score.value().saturating_sub(self.diff);
        let near: Vec<&crate::engine::PvLine> = reply
            .lines
            .iter()
            .filter(|line| line.score.value() >= floor)
            .collect();
        Some(near[rng.usize(..near.len())])
    }
}

/// Plays one game from `opening` under `rules` and the `adjudication` rules, checking `stop`
/// between moves, and collects the engines' stray output ([`PlayedGame::stray`]), what they
/// reported for each move ([`PlayedGame::infos`]) and their claims checked with `checks`
/// ([`PlayedGame::claims`]; each warning is also written to the engine's communication log).
/// With `pick`, some moves are drawn among the engine's best lines instead of its `bestmove`
/// ([`MultiPvPick`]); its claims are still checked against its own `bestmove`.
///
/// # Errors
/// [`Unfinished::Interrupted`] when `stop` is set before the game ends.
pub fn play(
    players: &mut Players<'_>,
    opening: &Position,
    rules: Rules,
    adjudication: &Adjudication,
    pick: Option<&MultiPvPick>,
    checks: ClaimChecks,
    stop: &AtomicBool,
) -> Result<PlayedGame, Unfinished> {
    let mut infos = Vec::new();
    let mut adjudicator = Adjudicator::new(adjudication, rules);
    let mut checker = ClaimChecker::new(checks, rules);
    let mut judges = Judges {
        adjudicator: &mut adjudicator,
        checker: &mut checker,
        pick,
    };
    let played = play_moves(players, opening, rules, &mut judges, stop, &mut infos);
    let stray = ByColor::from_fn(|side| players.engines[side].take_stray());
    let (claims, claim_warnings) = checker.finish();
    for (side, warning) in &claim_warnings {
        players.engines[*side].note(&format!("claims: {warning}"));
    }
    played.map(|game| PlayedGame {
        stray,
        infos,
        claims,
        claim_warnings,
        ..game
    })
}

/// What judges each move besides the rules: adjudication, and the claims checked.
struct Judges<'a> {
    adjudicator: &'a mut Adjudicator,
    checker: &'a mut ClaimChecker,
    /// Datagen's draw among the engine's best lines, if any.
    pick: Option<&'a MultiPvPick>,
}

/// The game itself, as [`play`] describes it, with no stray output recorded yet; what the
/// engines reported for each move played goes to `infos`.
fn play_moves(
    players: &mut Players<'_>,
    opening: &Position,
    rules: Rules,
    judges: &mut Judges<'_>,
    stop: &AtomicBool,
    infos: &mut Vec<MoveInfo>,
) -> Result<PlayedGame, Unfinished> {
    let adjudicator = &mut *judges.adjudicator;
    let mut clocks = Clocks::new(players.specs.map(|spec| {
        SideClock::new(
            spec.effective_limit(),
            Duration::from_millis(spec.time_margin_ms),
        )
    }));
    let mut used = ByColor::<Duration>::default();
    let mut moves = Vec::new();
    let mut position = *opening;
    for side in [Color::White, Color::Black] {
        if let Err(error) = players.engines[side].new_game() {
            stopped_from_outside(&error, stop)?;
            return Ok(fault(side, &error, moves, used));
        }
    }
    loop {
        if let Some(outcome) = position.outcome(rules) {
            return Ok(PlayedGame {
                winner: outcome.winner,
                termination: outcome.reason.into(),
                moves,
                used,
                faulty: None,
                detail: outcome.to_string(),
                stray: Default::default(),
                infos: Vec::new(),
                claims: GameClaims::default(),
                claim_warnings: Vec::new(),
            });
        }
        if stop.load(Ordering::SeqCst) {
            return Err(Unfinished::Interrupted);
        }
        let side = position.side_to_move();
        let limits = clocks.go_limits(side);
        let started = Instant::now();
        let allowed = clocks.allowance(side);
        let reply = players.engines[side].go_or_stop(opening, &moves, &limits, allowed, stop);
        // A bot's turn is charged as CodinGame measures it, from its input's last byte.
        let elapsed = match &reply {
            Ok(SearchReply {
                turn_time: Some(took),
                ..
            }) => *took,
            _ => started.elapsed(),
        };
        used[side] += elapsed;
        let (chosen, bestmove, ponder, info) = match reply {
            Ok(reply) => {
                let chosen = judges
                    .pick
                    .and_then(|pick| pick.choose(moves.len(), &reply))
                    .filter(|line| line.mv != reply.bestmove)
                    .cloned();
                let mut info = move_info(reply.info, elapsed);
                info.message = reply.message;
                (chosen, reply.bestmove, reply.ponder, info)
            }
            Err(error) => {
                stopped_from_outside(&error, stop)?;
                return Ok(fault(side, &error, moves, used));
            }
        };
        if let Err(late) = clocks.charge(side, elapsed) {
            let detail = format!("{} lost on time ({late})", players.specs[side].name);
            return Ok(forfeit(side, Termination::TimeForfeit, detail, moves, used));
        }
        let played = chosen
            .as_ref()
            .map_or_else(|| bestmove.clone(), |line| line.mv.clone());
        match position.parse_move(rules, &played) {
            Ok(mv) => {
                let score = info.score;
                let mut info = info;
                // The claims are the engine's: checked against its own bestmove, whatever a
                // draw among its lines played.
                let own = match played == bestmove {
                    true => mv,
                    false => position.parse_move(rules, &bestmove).unwrap_or(mv),
                };
                let kept = judges.checker.check(&claims::Reply {
                    ply: u32::try_from(moves.len() + 1).unwrap_or(u32::MAX),
                    position: &position,
                    bestmove: own,
                    score,
                    pv: &info.pv,
                    ponder: ponder.as_deref(),
                });
                info.pv.truncate(kept);
                if let Some(line) = &chosen {
                    // The move played is the line's: its score, none of the best line's pv.
                    info.score = Some(line.score);
                    info.pv.clear();
                }
                moves.push(mv);
                infos.push(info);
                position = position.play_unchecked(mv);
                if adjudicator.is_on()
                    && position.outcome(rules).is_none()
                    && let Some(adjudicated) = adjudicator.after_move(&position, side, score)
                {
                    return Ok(PlayedGame {
                        winner: adjudicated.winner,
                        termination: adjudicated.termination,
                        moves,
                        used,
                        faulty: None,
                        detail: adjudicated.detail,
                        stray: Default::default(),
                        infos: Vec::new(),
                        claims: GameClaims::default(),
                        claim_warnings: Vec::new(),
                    });
                }
            }
            Err(error) => {
                let why = match error {
                    MoveError::Syntax(err) => err.to_string(),
                    MoveError::Illegal(err) => err.reason.to_string(),
                };
                let detail = format!("{side}'s move '{played}' is illegal: {why}");
                return Ok(forfeit(side, Termination::IllegalMove, detail, moves, used));
            }
        }
    }
}

/// [`Unfinished::Interrupted`] when an engine's failure is the run being stopped rather than a
/// fault: `stop` is set (bt-arena received SIGINT, SIGTERM or SIGHUP), or the engine died of a
/// signal and `stop` is set within [`crate::engine::stop::OWN_SIGNAL_GRACE`] (`scancel`,
/// Kubernetes and a closed terminal signal every process of a job, and the engine may be seen
/// dead before the runner's handler has run). `--resume` then replays the game, and no engine
/// is charged with a loss it did not cause. An engine that died of a signal bt-arena did not
/// receive (it killed itself, it crashed) is the engine's fault: its game is lost as a crash.
fn stopped_from_outside(error: &EngineError, stop: &AtomicBool) -> Result<(), Unfinished> {
    let died_of_signal = matches!(
        error,
        EngineError::Crashed { status: Some(status), .. } if crate::engine::stop::died_of_signal(status)
    );
    match crate::engine::stop::stopping(stop, died_of_signal) {
        true => Err(Unfinished::Interrupted),
        false => Ok(()),
    }
}

/// What an engine reported for a move (its merged `info`) and the time the move took: the
/// wall time in µs, and the engine's own `time` (ms) in µs.
fn move_info(info: Info, elapsed: Duration) -> MoveInfo {
    MoveInfo {
        score: info.score,
        depth: info.depth,
        seldepth: info.seldepth,
        nodes: info.nodes,
        time_us: u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
        engine_time_us: info.time_ms.map(|ms| ms.saturating_mul(1000)),
        pv: info.pv,
        message: None,
    }
}

/// The game lost by `side` because its engine failed with `error`.
fn fault(
    side: Color,
    error: &EngineError,
    moves: Vec<Move>,
    used: ByColor<Duration>,
) -> PlayedGame {
    let termination = termination_of(error);
    forfeit(side, termination, error.to_string(), moves, used)
}

/// The termination an engine failure counts as.
pub fn termination_of(error: &EngineError) -> Termination {
    match error {
        EngineError::MoveTimeout { .. } | EngineError::TurnTimeout { .. } => {
            Termination::TimeForfeit
        }
        EngineError::ReadyTimeout { .. } => Termination::Stall,
        EngineError::Garbage { .. } | EngineError::LineTooLong { .. } => Termination::IllegalMove,
        _ => Termination::Crash,
    }
}

/// The game lost by `side` by a fault of its engine.
fn forfeit(
    side: Color,
    termination: Termination,
    detail: String,
    moves: Vec<Move>,
    used: ByColor<Duration>,
) -> PlayedGame {
    PlayedGame {
        winner: side.opponent(),
        termination,
        moves,
        used,
        faulty: Some(side),
        detail,
        stray: Default::default(),
        infos: Vec::new(),
        claims: GameClaims::default(),
        claim_warnings: Vec::new(),
    }
}
