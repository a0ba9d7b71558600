//! `output.*`: what an engine prints around its searches. No `bestmove` without a `go` and
//! exactly one per `go`, nothing but `info` and `bestmove` during a search; `info` lines that
//! parse; principal variations that are legal from the searched position (the first illegal
//! move is named); `nodes` and `time` that never fall within a search.
//!
//! The transcripts are gathered once, line by line ([`gather`]); each check is a pure function
//! of them.

use super::talk::{fence, is, read_until, search_lines, send};
use super::{CheckResult, Ctx, Evidence, Failure, Finding, Session, Verdict};
use crate::engine::Engine;
use crate::engine::EngineError;
use crate::protocol::{Command, GoLimits, Info, Reply};
use crate::rules::pv::problem as pv_problem;
use crate::rules::{Position, Rules};
use std::time::Duration;

/// The depth of the first transcribed search (from the start position), plies.
pub const SEARCH_DEPTH: u32 = 4;
/// The `movetime` of the second transcribed search (Black to move in a real game), ms.
pub const SEARCH_MOVETIME_MS: u64 = 200;
/// The ply of the long game the second search starts from.
const SECOND_PLY: usize = 31;

/// One search as the engine answered it.
#[derive(Clone, Debug, Default)]
pub(super) struct Search {
    /// The position searched.
    pub(super) position: Position,
    /// The `position` and `go` lines.
    pub(super) sent: Vec<String>,
    /// Every line from `go` up to and including the `bestmove`.
    pub(super) lines: Vec<String>,
    /// The lines after the `bestmove`, up to the `readyok` of an `isready` sent after it.
    pub(super) after: Vec<String>,
}

/// The transcripts the checks read.
#[derive(Clone, Debug, Default)]
pub(super) struct Transcripts {
    /// The lines sent with no `go`: a new game and a `position`, then `isready`.
    pub(super) idle_sent: Vec<String>,
    /// What came before `readyok`.
    pub(super) idle: Vec<String>,
    /// The searches.
    pub(super) searches: Vec<Search>,
}

/// The check ids, in order.
const IDS: [&str; 4] = [
    "output.bestmove-count",
    "output.info-parse",
    "output.pv-legal",
    "output.info-monotone",
];

/// Runs the `output.*` checks: gathers the transcripts (a failure to do so fails the first
/// check and skips the others), then judges them.
pub(super) fn run(session: &mut Session, ctx: &Ctx) -> Vec<CheckResult> {
    let mut transcripts = None;
    let first = session.check(IDS[0], |engine| {
        let gathered = gather(engine, ctx)?;
        let finding = bestmove_count(&gathered);
        transcripts = Some(gathered);
        Ok(finding)
    });
    let Some(transcripts) = transcripts else {
        let why = format!("not checked: {} did not complete", IDS[0]);
        let mut results = vec![first];
        results.extend(
            IDS[1..]
                .iter()
                .map(|id| Session::result(id, Finding::skip(why.clone()))),
        );
        return results;
    };
    vec![
        first,
        Session::result(IDS[1], info_parse(&transcripts)),
        Session::result(IDS[2], pv_legal(&transcripts, ctx.rules)),
        Session::result(IDS[3], info_monotone(&transcripts)),
    ]
}

/// Sends `isready` (to drain what earlier checks left), a new game and a `position` without
/// `go`, then two searches, each followed by `isready`, and keeps every line.
fn gather(engine: &mut Engine, ctx: &Ctx) -> Result<Transcripts, Failure> {
    fence(engine, ctx)?;
    let idle_sent = vec![
        Command::NewGame.to_line(ctx.protocol),
        Command::Position {
            start: Position::start(ctx.board),
            moves: Vec::new(),
        }
        .to_line(ctx.protocol),
    ];
    let refs: Vec<&str> = idle_sent.iter().map(String::as_str).collect();
    send(engine, ctx, &refs)?;
    let idle = fence(engine, ctx)?;
    let game = super::positions::long_game(ctx.rules, ctx.board);
    let start = Position::start(ctx.board);
    let ply = SECOND_PLY.min(game.len());
    let cases = [
        (start, GoLimits::depth(SEARCH_DEPTH)),
        (
            super::talk::after(&start, &game[..ply]),
            GoLimits::movetime(SEARCH_MOVETIME_MS),
        ),
    ];
    let mut searches = Vec::new();
    for (position, limits) in cases {
        searches.push(search(engine, ctx, position, &limits)?);
    }
    Ok(Transcripts {
        idle_sent,
        idle,
        searches,
    })
}

/// One search, raw: its lines up to `bestmove`, then those up to the `readyok` of `isready`.
/// A line other than `info` or `bestmove` ends it as [`EngineError::Garbage`], as in a game.
fn search(
    engine: &mut Engine,
    ctx: &Ctx,
    position: Position,
    limits: &GoLimits,
) -> Result<Search, Failure> {
    let sent = search_lines(ctx.protocol, &position, &[], limits);
    let refs: Vec<&str> = sent.iter().map(String::as_str).collect();
    let at = send(engine, ctx, &refs)?;
    let deadline = at + ctx.search_timeout + Duration::from_millis(limits.movetime_ms.unwrap_or(0));
    let (mut lines, best) = read_until(engine, at, deadline, |l| {
        is(l, "bestmove") || !allowed_in_search(l)
    })?;
    let best = match best {
        Some((line, _)) if is(&line, "bestmove") => line,
        Some((line, after)) => {
            let error = EngineError::Garbage {
                engine: engine.name().to_string(),
                line: line.clone(),
                problem: "expected info or bestmove".to_string(),
            };
            return Err(Failure::with(
                error,
                Evidence::sent(sent).received(line, after),
            ));
        }
        None => {
            let waited = at.elapsed();
            let error = EngineError::MoveTimeout {
                engine: engine.name().to_string(),
                after: waited,
            };
            return Err(Failure::with(
                error,
                Evidence::sent(sent).nothing_after(waited),
            ));
        }
    };
    lines.push(best);
    let after = fence(engine, ctx)?;
    Ok(Search {
        position,
        sent,
        lines,
        after,
    })
}

/// True for a line the runner accepts during a search: `info` (even one it cannot read), a
/// `bestmove`, or a blank line.
fn allowed_in_search(line: &str) -> bool {
    line.trim().is_empty() || is(line, "info") || is(line, "bestmove")
}

/// Evidence: `sent` then `isready`... and the `received` line.
fn seen(sent: &[String], line: &str) -> Evidence {
    Evidence {
        sent: sent.to_vec(),
        received: Some(line.to_string()),
        ms: None,
    }
}

/// `output.bestmove-count`: no `bestmove` without `go`, one per `go`, and only `info` and
/// `bestmove` lines around searches.
pub(super) fn bestmove_count(transcripts: &Transcripts) -> Finding {
    let with_isready = |sent: &[String]| -> Vec<String> {
        sent.iter()
            .cloned()
            .chain(["isready".to_string()])
            .collect()
    };
    if let Some(line) = transcripts.idle.iter().find(|l| is(l, "bestmove")) {
        return Finding::fail("a bestmove without any go")
            .with(seen(&with_isready(&transcripts.idle_sent), line));
    }
    for search in &transcripts.searches {
        if let Some(line) = search.after.iter().find(|l| is(l, "bestmove")) {
            return Finding::fail("a second bestmove for one go")
                .with(seen(&with_isready(&search.sent), line));
        }
        let stray = search.lines.iter().chain(&search.after);
        if let Some(line) = stray.into_iter().find(|l| !allowed_in_search(l)) {
            return Finding::fail(
                "a line that is neither info nor bestmove around a search (the runner forfeits \
                 a game for it)",
            )
            .with(seen(&search.sent, line));
        }
    }
    Finding::pass(format!(
        "one bestmove for each of {} searches, none without go",
        transcripts.searches.len()
    ))
}

/// The `info` lines of a search with their parse.
fn infos(search: &Search) -> impl Iterator<Item = (&String, Result<Reply, String>)> {
    search
        .lines
        .iter()
        .chain(&search.after)
        .filter(|line| is(line, "info"))
        .map(|line| (line, line.parse::<Reply>().map_err(|e| e.to_string())))
}

/// The parsed `info` fields of a search's lines up to its `bestmove`, with each line.
fn parsed_infos(search: &Search) -> Vec<(&String, Info)> {
    search
        .lines
        .iter()
        .filter_map(|line| match line.parse() {
            Ok(Reply::Info(info)) => Some((line, info)),
            _ => None,
        })
        .collect()
}

/// `output.info-parse`: every `info` line parses (a warning when there is none).
pub(super) fn info_parse(transcripts: &Transcripts) -> Finding {
    let mut count = 0;
    let mut fields: Vec<&str> = Vec::new();
    for search in &transcripts.searches {
        for (line, parsed) in infos(search) {
            count += 1;
            match parsed {
                Ok(Reply::Info(info)) => note_fields(&info, &mut fields),
                Ok(_) => {}
                Err(error) => {
                    return Finding::fail(format!(
                        "an info line does not parse: {error} (the runner skips it)"
                    ))
                    .with(seen(&search.sent, line));
                }
            }
        }
    }
    if count == 0 {
        return Finding::warn("no info lines: depth, score, nodes and pv are never reported");
    }
    Finding::pass(format!(
        "{count} info lines parse; fields seen: {}",
        fields.join(", ")
    ))
}

/// Adds the names of the fields `info` has to `seen`, once each, in a fixed order.
fn note_fields(info: &Info, seen: &mut Vec<&'static str>) {
    let present = [
        ("depth", info.depth.is_some()),
        ("seldepth", info.seldepth.is_some()),
        ("score", info.score.is_some()),
        ("nodes", info.nodes.is_some()),
        ("nps", info.nps.is_some()),
        ("time", info.time_ms.is_some()),
        ("pv", !info.pv.is_empty()),
        ("string", info.string.is_some()),
    ];
    for (name, has) in present {
        if has && !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen.sort_by_key(|name| present.iter().position(|(n, _)| n == name));
}

/// `output.pv-legal`: every pv is a legal sequence from the searched position.
pub(super) fn pv_legal(transcripts: &Transcripts, rules: Rules) -> Finding {
    let mut count = 0;
    let mut longest = 0;
    for search in &transcripts.searches {
        for (line, info) in parsed_infos(search)
            .into_iter()
            .filter(|(_, i)| !i.pv.is_empty())
        {
            count += 1;
            longest = longest.max(info.pv.len());
            if let Some(problem) = pv_problem(&search.position, rules, &info.pv) {
                return Finding::fail(problem).with(seen(&search.sent, line));
            }
        }
    }
    if count == 0 {
        return Finding::warn("no info line has a pv: nothing to check");
    }
    Finding::pass(format!(
        "{count} pvs, all legal (the longest {longest} plies)"
    ))
}

/// `output.info-monotone`: `nodes` and `time` never fall within a search.
pub(super) fn info_monotone(transcripts: &Transcripts) -> Finding {
    let mut counted = 0;
    for search in &transcripts.searches {
        let infos = parsed_infos(search);
        for (name, field) in [
            ("nodes", (|i: &Info| i.nodes) as fn(&Info) -> Option<u64>),
            ("time", |i: &Info| i.time_ms),
        ] {
            let mut previous: Option<u64> = None;
            for (line, info) in &infos {
                let Some(value) = field(info) else { continue };
                counted += 1;
                if let Some(before) = previous.filter(|&before| value < before) {
                    return Finding::fail(format!(
                        "{name} falls from {before} to {value} within one search"
                    ))
                    .with(seen(&search.sent, line));
                }
                previous = Some(value);
            }
        }
    }
    if counted == 0 {
        return Finding::new(
            Verdict::Warn,
            "no info line reports nodes or time: nothing to check",
        );
    }
    Finding::pass(format!("nodes and time never fall ({counted} values)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcripts(lines: &[&str], after: &[&str]) -> Transcripts {
        Transcripts {
            searches: vec![Search {
                position: Position::startpos(),
                sent: vec!["position startpos".into(), "go depth 2".into()],
                lines: lines.iter().map(|l| l.to_string()).collect(),
                after: after.iter().map(|l| l.to_string()).collect(),
            }],
            ..Transcripts::default()
        }
    }

    #[test]
    fn bestmove_counts_and_stray_lines_are_found() {
        let good = transcripts(&["info depth 1 pv a2a3", "bestmove a2a3"], &[]);
        assert_eq!(bestmove_count(&good).verdict, Verdict::Pass);
        let twice = transcripts(&["bestmove a2a3"], &["bestmove a2a3"]);
        let finding = bestmove_count(&twice);
        assert_eq!(finding.summary, "a second bestmove for one go");
        assert_eq!(
            finding.evidence.and_then(|e| e.received).as_deref(),
            Some("bestmove a2a3")
        );
        let stray = transcripts(&["thinking...", "bestmove a2a3"], &[]);
        assert_eq!(bestmove_count(&stray).verdict, Verdict::Fail);
        let mut idle = good.clone();
        idle.idle = vec!["bestmove a2a3".into()];
        assert_eq!(bestmove_count(&idle).summary, "a bestmove without any go");
    }

    #[test]
    fn info_lines_are_parsed_and_counted() {
        let good = transcripts(
            &[
                "info depth 1 score cp 5 nodes 20 time 1 pv a2a3",
                "bestmove a2a3",
            ],
            &[],
        );
        let finding = info_parse(&good);
        assert_eq!(finding.verdict, Verdict::Pass);
        assert_eq!(
            finding.summary,
            "1 info lines parse; fields seen: depth, score, nodes, time, pv"
        );
        let bad = transcripts(&["info depth one", "bestmove a2a3"], &[]);
        let finding = info_parse(&bad);
        assert_eq!(
            finding.summary,
            "an info line does not parse: 'depth' needs a number, got 'one' (the runner skips it)"
        );
        assert_eq!(
            info_parse(&transcripts(&["bestmove a2a3"], &[])).verdict,
            Verdict::Warn
        );
    }

    #[test]
    fn the_first_illegal_pv_move_is_named() {
        let pv = |moves: &[&str]| moves.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        let start = Position::startpos();
        assert_eq!(
            pv_problem(&start, Rules::CaptureOnly, &pv(&["a2a3", "h7h6", "a3a4"])),
            None
        );
        assert_eq!(
            pv_problem(&start, Rules::CaptureOnly, &pv(&["a2a3", "a2a3"])).as_deref(),
            Some("pv move 2 'a2a3' is illegal after a2a3: no Black pawn on a2")
        );
        let bad = transcripts(&["info depth 2 pv a2a3 a2a3", "bestmove a2a3"], &[]);
        assert_eq!(pv_legal(&bad, Rules::CaptureOnly).verdict, Verdict::Fail);
    }

    #[test]
    fn falling_counters_are_found() {
        let good = transcripts(
            &[
                "info depth 1 nodes 10 time 1",
                "info depth 2 nodes 30 time 1",
                "bestmove a2a3",
            ],
            &[],
        );
        assert_eq!(info_monotone(&good).verdict, Verdict::Pass);
        let bad = transcripts(
            &[
                "info depth 1 nodes 200 time 5",
                "info depth 2 nodes 100 time 3",
                "bestmove a2a3",
            ],
            &[],
        );
        assert_eq!(
            info_monotone(&bad).summary,
            "nodes falls from 200 to 100 within one search"
        );
    }
}
