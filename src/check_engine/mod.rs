//! check-engine: one run that tells an engine author everything their engine does wrong
//! before any match: the handshake and options, positions, search limits, output hygiene,
//! determinism after a new game, the move generator (through [`crate::perft_check`]) and a
//! mini-match under the tournament's own game loop ([`crate::game::play`]).
//!
//! For users (`docs/guide/check-engine.md`): one line per check, PASS, FAIL, WARN or SKIP with
//! the evidence, and exit code 1 when a check failed.
//!
//! Each check is a small function that returns a [`Finding`]: a [`Verdict`] with a one-line
//! summary and the [`Evidence`] (the lines sent, the line received, the time). [`run`] runs the
//! checks in order and collects a [`Checklist`]; rendering it as text ([`Checklist`]'s `Display`) or
//! JSON (serde) is separate from computing it.
//!
//! A CodinGame bot (`proto=codingame`) has a checklist of its own, about its turns ([`bot`]).
//!
//! Processes: the handshake checks run on a process of their own, spoken to line by line
//! ([`Engine::spawn_silent`]), since they set every option to trial values. The other checks
//! share one process started as the runner starts engines ([`Engine::start`], with the rule set
//! and the configured options). A check that fails leaves that process in an unknown state, so
//! it is ended and the next check starts a fresh one.

mod board;
mod bot;
mod handshake;
mod limits;
mod mini_match;
mod movegen;
mod newgame;
mod output;
mod positions;
mod render;
mod solved;
mod talk;

pub use render::{CheckLines, header};

use crate::engine::{Engine, EngineDescription, EngineError, EngineLaunch};
use crate::protocol::Protocol;
use crate::rules::{Board, Rules};
use crate::time_control::whole_ms;
use serde::Serialize;
use std::fmt;
use std::time::{Duration, Instant};

/// The groups of checks, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    /// `handshake.*`: `id name`, `ugiok`/`uciok`, option lines, the rule set, `isready`, options.
    Handshake,
    /// `positions.*`: `go depth 1` in positions of every kind, and finished positions.
    Positions,
    /// `limits.*`: `movetime`, `depth`, `nodes`, the clock, `infinite` and `stop`, `isready`
    /// during a search.
    Limits,
    /// `output.*`: `bestmove` counts, `info` lines, principal variations, monotone counters.
    Output,
    /// `newgame.*`: the same fixed-depth search twice after a new game.
    Newgame,
    /// `movegen.*`: perft-check of the start position and of random positions.
    Movegen,
    /// `board.*` (a board other than 8×8 only): the perft of its start, a game against
    /// itself with every move on the board, and its mate claims in solved positions.
    Board,
    /// `match.*`: game pairs against a reference opponent under the real game loop.
    Match,
}

crate::named_enum!(Group, "check group", [
    Handshake => "handshake",
    Positions => "positions",
    Limits => "limits",
    Output => "output",
    Newgame => "newgame",
    Movegen => "movegen",
    Board => "board",
    Match => "match",
]);

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The engine does what the protocol and the rules ask.
    Pass,
    /// It does not: a tournament would forfeit it, or the protocol document says otherwise.
    Fail,
    /// Allowed, but worth knowing (e.g. a search that is not reproducible).
    Warn,
    /// Not checked: the engine lacks the feature (no `go perft`), or an earlier failure made
    /// the check impossible; the summary says which.
    Skip,
}

impl Verdict {
    /// `PASS`, `FAIL`, `WARN` or `SKIP`.
    pub const fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Warn => "WARN",
            Verdict::Skip => "SKIP",
        }
    }
}

/// What a verdict rests on: the lines sent, the line received, and the time between.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// The lines sent to the engine, in order (the ones the verdict is about).
    pub sent: Vec<String>,
    /// The line received that decided the verdict; `None` when nothing came.
    pub received: Option<String>,
    /// Milliseconds from the last line sent to `received` (or until the wait ended).
    pub ms: Option<u64>,
}

impl Evidence {
    /// Evidence of `sent` lines, nothing received yet.
    pub fn sent<S: Into<String>>(lines: impl IntoIterator<Item = S>) -> Evidence {
        Evidence {
            sent: lines.into_iter().map(Into::into).collect(),
            ..Evidence::default()
        }
    }

    /// With `line` received after `elapsed`.
    pub fn received(mut self, line: impl Into<String>, elapsed: Duration) -> Evidence {
        self.received = Some(line.into());
        self.ms = Some(whole_ms(elapsed));
        self
    }

    /// With nothing received after waiting `waited`.
    pub fn nothing_after(mut self, waited: Duration) -> Evidence {
        self.received = None;
        self.ms = Some(whole_ms(waited));
        self
    }
}

/// The outcome of one check before it is named: verdict, summary, evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The verdict.
    pub verdict: Verdict,
    /// One line for people: what was seen (a measurement for a pass, the fault otherwise).
    pub summary: String,
    /// The exchange the verdict rests on, if one does.
    pub evidence: Option<Evidence>,
}

impl Finding {
    /// A finding with `verdict` and `summary`, without evidence.
    pub fn new(verdict: Verdict, summary: impl Into<String>) -> Finding {
        Finding {
            verdict,
            summary: summary.into(),
            evidence: None,
        }
    }

    /// A pass.
    pub fn pass(summary: impl Into<String>) -> Finding {
        Finding::new(Verdict::Pass, summary)
    }

    /// A failure.
    pub fn fail(summary: impl Into<String>) -> Finding {
        Finding::new(Verdict::Fail, summary)
    }

    /// A warning.
    pub fn warn(summary: impl Into<String>) -> Finding {
        Finding::new(Verdict::Warn, summary)
    }

    /// A skipped check.
    pub fn skip(summary: impl Into<String>) -> Finding {
        Finding::new(Verdict::Skip, summary)
    }

    /// With `evidence`.
    pub fn with(mut self, evidence: Evidence) -> Finding {
        self.evidence = Some(evidence);
        self
    }

    /// The result of check `id`.
    fn named(self, id: &str) -> CheckResult {
        CheckResult {
            id: id.to_string(),
            verdict: self.verdict,
            summary: self.summary,
            evidence: self.evidence,
        }
    }
}

/// An engine error inside a check, with what had been sent: the check fails with it and the
/// engine process is replaced.
#[derive(Debug)]
pub(crate) struct Failure {
    error: Box<EngineError>,
    evidence: Option<Evidence>,
}

impl From<EngineError> for Failure {
    fn from(error: EngineError) -> Failure {
        Failure {
            error: Box::new(error),
            evidence: None,
        }
    }
}

impl Failure {
    /// `error` with `evidence`.
    fn with(error: EngineError, evidence: Evidence) -> Failure {
        Failure {
            error: Box::new(error),
            evidence: Some(evidence),
        }
    }

    /// The failing finding.
    fn finding(self) -> Finding {
        Finding {
            verdict: Verdict::Fail,
            summary: self.error.to_string(),
            evidence: self.evidence,
        }
    }
}

/// What a check function returns: a finding, or an engine error that ends the check.
type Outcome = Result<Finding, Failure>;

/// One check's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckResult {
    /// `<group>.<check>`, e.g. `limits.movetime`.
    pub id: String,
    /// The verdict.
    pub verdict: Verdict,
    /// One line for people.
    pub summary: String,
    /// The exchange the verdict rests on, if one does.
    pub evidence: Option<Evidence>,
}

/// The whole check of one engine: every check run, in order, with its verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Checklist {
    /// The engine's configured name.
    pub engine: String,
    /// The name the engine gave (`id name`), if any.
    pub engine_id: Option<String>,
    /// The protocol spoken.
    pub protocol: Protocol,
    /// The rule set checked.
    pub rules: Rules,
    /// The board checked.
    pub board: Board,
    /// True when the mini-match was skipped (`--quick`).
    pub quick: bool,
    /// The seed of the random positions and openings.
    pub seed: u64,
    /// Every check, in running order.
    pub checks: Vec<CheckResult>,
    /// How many checks passed.
    pub passed: usize,
    /// How many failed.
    pub failed: usize,
    /// How many warned.
    pub warned: usize,
    /// How many were skipped.
    pub skipped: usize,
    /// The time of the whole run, ms.
    pub total_ms: u64,
}

/// How the checks are run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The rule set the engine is checked under.
    pub rules: Rules,
    /// The board every check is played on ([`Board::STANDARD`]: 8×8).
    pub board: Board,
    /// Skip the mini-match.
    pub quick: bool,
    /// The groups to run; all when empty. Handshake failures are reported even when the
    /// handshake group is not asked for, as they explain why the rest is skipped.
    pub only: Vec<Group>,
    /// How long one search to a fixed depth or node count, or one perft, may take.
    pub search_timeout: Duration,
    /// The seed of the random perft positions and match openings.
    pub seed: u64,
}

/// Why the checks could not run at all.
#[derive(Debug)]
pub enum RunError {
    /// The engine cannot be started: it cannot be spawned, or it exits before answering the
    /// handshake.
    CannotStart(EngineError),
    /// A configured option (`option.X=Y`) that the engine does not declare, or a value its
    /// declaration does not allow.
    BadOption(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::CannotStart(error) => write!(f, "the engine cannot be started: {error}"),
            RunError::BadOption(problem) => f.write_str(problem),
        }
    }
}

impl std::error::Error for RunError {}

/// What the checks share: the settings and the engine's limits.
pub(crate) struct Ctx {
    rules: Rules,
    board: Board,
    protocol: Protocol,
    /// How far past a move's time a move may come before a tournament forfeits it, ms.
    margin_ms: u64,
    /// The handshake timeout (`handshake=`).
    handshake_timeout: Duration,
    /// The `isready` timeout (`isready=`).
    ready_timeout: Duration,
    search_timeout: Duration,
    seed: u64,
}

impl Ctx {
    /// What the checks of `spec` share, with `timeouts` and `settings`.
    fn new(
        spec: &EngineDescription,
        timeouts: crate::engine::Timeouts,
        settings: &Settings,
    ) -> Ctx {
        Ctx {
            rules: settings.rules,
            board: settings.board,
            protocol: spec.proto,
            margin_ms: spec.time_margin_ms,
            handshake_timeout: timeouts.handshake,
            ready_timeout: timeouts.ready,
            search_timeout: settings.search_timeout,
            seed: settings.seed,
        }
    }

    /// The deadline of a search to a fixed depth or node count, or of a perft.
    fn search_deadline(&self) -> Instant {
        Instant::now() + self.search_timeout
    }
}

/// Runs the checks on the engine of `spec` (its command, protocol, options and time margin;
/// its search limit is ignored) with the handshake and `isready` timeouts of `timeouts`, and
/// the mini-match against `opponent` (none: the match is skipped with a notice). `on_check` is
/// called with each result as soon as its group is done.
///
/// # Errors
/// [`RunError::CannotStart`] when the engine cannot be spawned or exits before answering the
/// handshake; [`RunError::BadOption`] for a configured option it does not declare or allow.
pub fn run(
    spec: &EngineDescription,
    timeouts: crate::engine::Timeouts,
    opponent: Option<&EngineDescription>,
    settings: &Settings,
    mut on_check: impl FnMut(&CheckResult),
) -> Result<Checklist, RunError> {
    if spec.proto.is_bot() {
        return bot::run(spec, timeouts, opponent, settings, on_check);
    }
    let started = Instant::now();
    let mut config = spec.launch();
    config.timeouts = timeouts;
    let ctx = Ctx::new(spec, timeouts, settings);
    let wanted = |group: Group| settings.only.is_empty() || settings.only.contains(&group);
    let probe = handshake::probe(&config, &ctx)?;
    handshake::check_configured(&config.name, &probe, &config.options)?;
    let mut checks: Vec<CheckResult> = Vec::new();
    let mut record = |results: Vec<CheckResult>| {
        results.iter().for_each(&mut on_check);
        checks.extend(results);
    };
    if wanted(Group::Handshake) || probe.results.iter().any(|r| r.verdict == Verdict::Fail) {
        record(probe.results);
    }
    let mut session = Session {
        config,
        rules: settings.rules,
        board: settings.board,
        engine: None,
        blocked: probe.blocked,
    };
    let groups: [(Group, GroupRun); 6] = [
        (Group::Positions, positions::run),
        (Group::Limits, limits::run),
        (Group::Output, output::run),
        (Group::Newgame, newgame::run),
        (Group::Movegen, movegen::run),
        (Group::Board, board::run),
    ];
    for (group, run_group) in groups {
        if wanted(group) {
            record(run_group(&mut session, &ctx));
        }
    }
    if wanted(Group::Match) {
        let result = mini_match::run(&mut session, &ctx, spec, opponent, settings.quick);
        record(vec![result]);
    }
    Ok(Checklist::new(
        spec,
        probe.id_name,
        settings,
        checks,
        started,
    ))
}

impl Checklist {
    /// The checklist of `spec` (its `id name`, if known) under `settings`: `checks` counted by
    /// verdict, the time since `started`.
    fn new(
        spec: &EngineDescription,
        engine_id: Option<String>,
        settings: &Settings,
        checks: Vec<CheckResult>,
        started: Instant,
    ) -> Checklist {
        let count = |verdict| checks.iter().filter(|c| c.verdict == verdict).count();
        Checklist {
            engine: spec.name.clone(),
            engine_id,
            protocol: spec.proto,
            rules: settings.rules,
            board: settings.board,
            quick: settings.quick,
            seed: settings.seed,
            passed: count(Verdict::Pass),
            failed: count(Verdict::Fail),
            warned: count(Verdict::Warn),
            skipped: count(Verdict::Skip),
            total_ms: whole_ms(started.elapsed()),
            checks,
        }
    }
}

/// A group's checks run on the session.
type GroupRun = fn(&mut Session, &Ctx) -> Vec<CheckResult>;

/// The engine process the checks after the handshake share, started as the runner starts it
/// and replaced after a failed check.
pub(crate) struct Session {
    config: EngineLaunch,
    rules: Rules,
    board: Board,
    engine: Option<Engine>,
    /// Why no engine can be had (the handshake failed, or a start failed): checks are skipped.
    blocked: Option<String>,
}

impl Session {
    /// Runs check `id` with the session's engine (started if needed). A failed check ends the
    /// process; a start that fails fails this check and skips the following ones.
    fn check(&mut self, id: &str, check: impl FnOnce(&mut Engine) -> Outcome) -> CheckResult {
        let engine = match self.engine() {
            Ok(engine) => engine,
            Err(finding) => return finding.named(id),
        };
        let finding = check(engine).unwrap_or_else(Failure::finding);
        if finding.verdict == Verdict::Fail {
            self.engine = None;
        }
        finding.named(id)
    }

    /// The running engine, started if needed; otherwise the finding of the check that needed
    /// it (a failure to start, or a skip once blocked).
    fn engine(&mut self) -> Result<&mut Engine, Finding> {
        if let Some(why) = &self.blocked {
            return Err(Finding::skip(format!("not checked: {why}")));
        }
        if self.engine.is_none() {
            match Engine::start(&self.config, self.rules, self.board) {
                Ok(engine) => self.engine = Some(engine),
                Err(error) => {
                    self.blocked = Some("the engine could not be started (see above)".into());
                    return Err(Finding::fail(format!(
                        "the engine could not be started: {error}"
                    )));
                }
            }
        }
        self.engine
            .as_mut()
            .ok_or_else(|| Finding::skip("no engine"))
    }

    /// Names `finding` `id` (for checks computed without the engine).
    fn result(id: &str, finding: Finding) -> CheckResult {
        finding.named(id)
    }
}
