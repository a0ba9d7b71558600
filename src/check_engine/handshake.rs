//! `handshake.*`: `id name` and `ugiok`/`uciok` in time, option lines that parse, the rule set
//! among the `Rules` (or `UCI_Variant`) choices, `isready` when idle, and every option set to
//! its default and to another value in range without the engine dying. Run on a process of
//! their own, line by line, as the trial values are not the configured ones.

use super::talk::{is, read_until, send};
use super::{CheckResult, Ctx, Evidence, Failure, Finding, RunError, Verdict};
use crate::engine::rule_option::{Refusal, Setup, configured_variants, rule_settings};
use crate::engine::{Engine, EngineError, EngineLaunch, says_unknown};
use crate::protocol::{
    BOARD_OPTION, Command, OptionDecl, OptionKind, RULES_OPTION, Reply, VARIANT_OPTION,
};
use crate::rules::{Board, Rules};

/// What the handshake process showed.
pub(super) struct Probe {
    /// The five `handshake.*` results.
    pub(super) results: Vec<CheckResult>,
    /// The options the engine declared (the lines that parse).
    pub(super) declared: Vec<OptionDecl>,
    /// The engine's `id name`.
    pub(super) id_name: Option<String>,
    /// True when the handshake ended (`ugiok`/`uciok` came).
    pub(super) complete: bool,
    /// Why the other checks cannot run, when a handshake check failed that the runner's own
    /// start would fail on too.
    pub(super) blocked: Option<String>,
}

/// The handshake's lines up to `ugiok`/`uciok`.
struct Handshake {
    lines: Vec<String>,
    /// The closing line and its delay after `ugi`/`uci`; `None` when it did not come.
    ok: Option<(String, std::time::Duration)>,
    /// The line by which the engine said it does not know the command, if it did.
    unknown: Option<String>,
    /// When it did not end: whether the engine answers the other protocol's handshake.
    speaks_other: bool,
    evidence: Evidence,
}

/// Runs the handshake checks on a new process, which is ended afterwards.
///
/// # Errors
/// [`RunError::CannotStart`] when the engine cannot be spawned or its output closes before the
/// handshake ends.
pub(super) fn probe(config: &EngineLaunch, ctx: &Ctx) -> Result<Probe, RunError> {
    let mut engine = Engine::spawn_silent(config).map_err(RunError::CannotStart)?;
    let handshake =
        handshake(&mut engine, ctx).map_err(|failure| RunError::CannotStart(*failure.error))?;
    let (declared, bad_lines) = declarations(&handshake.lines);
    let id_name = handshake.lines.iter().find_map(|line| match line.parse() {
        Ok(Reply::IdName(name)) => Some(name),
        _ => None,
    });
    let mut probe = Probe {
        results: Vec::new(),
        declared,
        id_name,
        complete: handshake.ok.is_some(),
        blocked: None,
    };
    let first = handshake_check(&handshake, probe.id_name.as_deref(), ctx);
    probe.push("handshake.hello", first);
    if !probe.complete {
        let ok = ctx.protocol.ok();
        probe.blocked = Some(format!("the handshake did not end (no {ok})"));
        for id in LATER_CHECKS {
            probe.push(id, Finding::skip(format!("not checked: no {ok}")));
        }
        engine.quit();
        return Ok(probe);
    }
    let parse = options_parse(&bad_lines, probe.declared.len(), &handshake.evidence);
    probe.push(LATER_CHECKS[0], parse);
    let rules = rules_option(config, &probe.declared, ctx.rules, ctx.board);
    if rules.verdict == Verdict::Fail {
        probe.blocked = Some(format!("its options cannot select the {} rules", ctx.rules));
    }
    probe.push(LATER_CHECKS[1], rules);
    let idle = idle_ready(&mut engine, ctx);
    let ready = idle.verdict != Verdict::Fail;
    if !ready && probe.blocked.is_none() {
        probe.blocked = Some("no readyok when idle".to_string());
    }
    probe.push(LATER_CHECKS[2], idle);
    let settable = if ready {
        options_settable(&mut engine, ctx, &probe.declared)
    } else {
        Finding::skip("not checked: no readyok when idle")
    };
    probe.push(LATER_CHECKS[3], settable);
    engine.quit();
    Ok(probe)
}

/// The handshake checks after `handshake.hello`, in order.
const LATER_CHECKS: [&str; 4] = [
    "handshake.options-parse",
    "handshake.rules-option",
    "handshake.isready",
    "handshake.options-settable",
];

impl Probe {
    fn push(&mut self, id: &str, finding: Finding) {
        self.results.push(finding.named(id));
    }
}

/// Sends `ugi`/`uci` and reads up to `ugiok`/`uciok` within the handshake timeout (a line
/// saying the command is unknown ends the wait); when it does not come, sends the other
/// protocol's command and reads up to its `ok` within the same time, to say which protocol
/// the engine speaks.
fn handshake(engine: &mut Engine, ctx: &Ctx) -> Result<Handshake, Failure> {
    let command = Command::Handshake(ctx.protocol).to_line(ctx.protocol);
    let sent = send(engine, ctx, &[&command])?;
    let ok_word = ctx.protocol.ok();
    let (lines, end) = read_until(engine, sent, sent + ctx.handshake_timeout, |line| {
        line.trim() == ok_word || says_unknown(line, &command)
    })?;
    let (ok, unknown) = match end {
        Some((line, _)) if line.trim() != ok_word => (None, Some(line)),
        end => (end, None),
    };
    let evidence = Evidence::sent([command]);
    let evidence = match (&ok, &unknown) {
        (Some((line, after)), _) => evidence.received(line.clone(), *after),
        (None, Some(line)) => evidence.received(line.clone(), sent.elapsed()),
        (None, None) => evidence.nothing_after(sent.elapsed()),
    };
    let speaks_other = ok.is_none() && {
        let other = ctx.protocol.other();
        let sent = send(engine, ctx, &[other.name()])?;
        let (_, answer) = read_until(engine, sent, sent + ctx.handshake_timeout, |line| {
            line.trim() == other.ok()
        })?;
        answer.is_some()
    };
    Ok(Handshake {
        lines,
        ok,
        unknown,
        speaks_other,
        evidence,
    })
}

/// The options that parse, and the `option` lines that do not with the parser's reason.
fn declarations(lines: &[String]) -> (Vec<OptionDecl>, Vec<(String, String)>) {
    let mut declared = Vec::new();
    let mut bad = Vec::new();
    for line in lines.iter().filter(|line| is(line, "option")) {
        match line.parse() {
            Ok(Reply::Option(decl)) => declared.push(decl),
            Ok(_) => {}
            Err(error) => bad.push((line.clone(), error.to_string())),
        }
    }
    (declared, bad)
}

/// `handshake.hello`: `ugiok`/`uciok` within the timeout, after an `id name`.
fn handshake_check(handshake: &Handshake, id_name: Option<&str>, ctx: &Ctx) -> Finding {
    let ok_word = ctx.protocol.ok();
    match (&handshake.ok, id_name) {
        (None, _) => {
            let last = handshake.lines.iter().rev().find(|l| !l.trim().is_empty());
            let last = match (&handshake.unknown, last) {
                (Some(unknown), _) => format!("it answered '{unknown}'"),
                (None, Some(line)) => format!("last line: '{line}'"),
                (None, None) => "last line: nothing".to_string(),
            };
            let other = ctx.protocol.other();
            let advice = match handshake.speaks_other {
                true => format!(
                    "; it answers {} with {}: this engine speaks {}: add proto={}",
                    other.name(),
                    other.ok(),
                    other.upper(),
                    other.name()
                ),
                false => String::new(),
            };
            Finding::fail(format!(
                "no {ok_word} within {} ms of {} ({last}){advice}",
                ctx.handshake_timeout.as_millis(),
                ctx.protocol.name()
            ))
        }
        (Some(_), None) => Finding::fail(format!("no 'id name' before {ok_word}")),
        (Some((_, after)), Some(name)) => Finding::pass(format!(
            "id name {name}; {ok_word} after {} ms",
            after.as_millis()
        )),
    }
    .with(handshake.evidence.clone())
}

/// `handshake.options-parse`: every `option` line parses.
fn options_parse(bad_lines: &[(String, String)], parsed: usize, handshake: &Evidence) -> Finding {
    match bad_lines.first() {
        None => Finding::pass(format!("{parsed} option lines, all parse")),
        Some((line, error)) => Finding::fail(format!(
            "{} of {} option lines do not parse; the first: {error} (the runner ignores it)",
            bad_lines.len(),
            bad_lines.len() + parsed
        ))
        .with(Evidence {
            sent: handshake.sent.clone(),
            received: Some(line.clone()),
            ms: None,
        }),
    }
}

/// `handshake.rules-option`: `Rules` lists the rule set, or `UCI_Variant` its variant; on a
/// board other than 8×8, `Board` lists the board, or `UCI_Variant` a variant of that size (an
/// engine declaring neither is told the size by the FEN of each position).
fn rules_option(
    config: &EngineLaunch,
    declared: &[OptionDecl],
    rules: Rules,
    board: Board,
) -> Finding {
    let (engine, configured) = (config.name.as_str(), config.options.as_slice());
    let configured_rules: Vec<&(String, String)> = configured
        .iter()
        .filter(|(name, _)| {
            [RULES_OPTION, BOARD_OPTION, VARIANT_OPTION]
                .iter()
                .any(|rule_option| name.eq_ignore_ascii_case(rule_option))
        })
        .collect();
    let declaration = |declared: String| Evidence {
        received: Some(declared),
        ..Evidence::default()
    };
    let file_variants = match configured_variants(config, declared) {
        Ok(variants) => variants,
        Err(error) => return Finding::fail(error.to_string()),
    };
    let setup = Setup {
        rules,
        board,
        configured,
        file_variants: file_variants.as_deref(),
    };
    let carries_board = |settings: &[(String, String)]| {
        board.is_standard()
            || settings
                .iter()
                .chain(configured_rules.iter().copied())
                .any(|(name, _)| {
                    name.eq_ignore_ascii_case(BOARD_OPTION)
                        || name.eq_ignore_ascii_case(VARIANT_OPTION)
                })
    };
    match rule_settings(declared, &setup) {
        Ok(settings) if settings.is_empty() && configured_rules.is_empty() => {
            Finding::warn(format!(
                "declares neither Rules nor UCI_Variant: the runner cannot tell it the rule set and \
             assumes it plays {rules}"
            ))
        }
        Ok(settings) => {
            let set: Vec<String> = configured_rules
                .iter()
                .map(|(name, value)| format!("{name} set to {value} by the user"))
                .chain(
                    settings
                        .iter()
                        .map(|(name, value)| format!("{name} offers {value}")),
                )
                .chain((!carries_board(&settings)).then(|| {
                    format!(
                        "no Board option nor variant of {board}: each position's FEN gives the size"
                    )
                }))
                .collect();
            Finding::pass(set.join("; "))
        }
        Err(refusal) => {
            let evidence = declaration(match &refusal {
                Refusal::Rules { declared, .. }
                | Refusal::Board { declared, .. }
                | Refusal::Variant { declared, .. } => declared.clone(),
            });
            let error = refusal.into_error(engine.to_string(), rules, board);
            Finding::fail(error.to_string()).with(evidence)
        }
    }
}

/// `handshake.isready`: `readyok` to `isready` when idle, within the ready timeout.
fn idle_ready(engine: &mut Engine, ctx: &Ctx) -> Finding {
    match ready_after(engine, ctx, &[]) {
        Ok(evidence) => {
            let ms = evidence.ms.unwrap_or_default();
            Finding::pass(format!("readyok after {ms} ms")).with(evidence)
        }
        Err(finding) => finding,
    }
}

/// Sends `lines` then `isready` and waits for `readyok`: its evidence, or the failing finding.
fn ready_after(engine: &mut Engine, ctx: &Ctx, lines: &[&str]) -> Result<Evidence, Finding> {
    let all: Vec<&str> = lines.iter().copied().chain(["isready"]).collect();
    let evidence = Evidence::sent(all.iter().copied());
    let sent = send(engine, ctx, &all)
        .map_err(|failure| Failure::finding(failure).with(evidence.clone()))?;
    let read = read_until(engine, sent, sent + ctx.ready_timeout, |l| is(l, "readyok"));
    match read {
        Ok((_, Some((line, after)))) => Ok(evidence.received(line, after)),
        Ok((_, None)) => Err(Finding::fail(format!(
            "no readyok within {} ms",
            ctx.ready_timeout.as_millis()
        ))
        .with(evidence.nothing_after(sent.elapsed()))),
        Err(error) => Err(Finding::fail(error.to_string()).with(evidence)),
    }
}

/// `handshake.options-settable`: each option set to its default and to another value in range
/// (a button pressed once), each followed by `isready`, without the engine dying or stalling.
fn options_settable(engine: &mut Engine, ctx: &Ctx, declared: &[OptionDecl]) -> Finding {
    let mut settings = 0;
    for decl in declared {
        for value in trial_values(&decl.kind) {
            let line = Command::SetOption {
                name: decl.name.clone(),
                value,
            }
            .to_line(ctx.protocol);
            if let Err(finding) = ready_after(engine, ctx, &[&line]) {
                return Finding {
                    summary: format!("after '{line}': {}", finding.summary),
                    ..finding
                };
            }
            settings += 1;
        }
    }
    Finding::pass(format!(
        "{settings} settings of {} options (defaults and other values in range), readyok after each",
        declared.len()
    ))
}

/// The values an option is tried with: its default, then another allowed value (the minimum,
/// or one above the default; another choice; the other boolean). A button is pressed once; a
/// string is only set to its default (another text could name a file).
fn trial_values(kind: &OptionKind) -> Vec<Option<String>> {
    let other = match kind {
        OptionKind::Check { default } => Some((!default).to_string()),
        OptionKind::Spin { default, min, max } => {
            let other = if min != default {
                *min
            } else {
                default.saturating_add(1)
            };
            (other <= *max && other != *default).then(|| other.to_string())
        }
        OptionKind::Combo { default, choices } => choices
            .iter()
            .find(|choice| !choice.eq_ignore_ascii_case(default))
            .cloned(),
        OptionKind::Button => return vec![None],
        OptionKind::String { .. } => None,
    };
    let default = match kind {
        OptionKind::Check { default } => default.to_string(),
        OptionKind::Spin { default, .. } => default.to_string(),
        OptionKind::Combo { default, .. } | OptionKind::String { default } => default.clone(),
        OptionKind::Button => String::new(),
    };
    let default = (!default.is_empty()).then_some(default);
    [Some(default), other.map(Some)]
        .into_iter()
        .flatten()
        .collect()
}

/// Checks the configured options (`option.X=Y`) against the declarations of a complete
/// handshake, as every command does ([`crate::engine::check_option`]): a combo value the
/// engine did not declare passes here, and is sent with a warning when the engine starts.
///
/// # Errors
/// [`RunError::BadOption`] naming an option the engine does not declare, or a value its
/// declaration does not allow.
pub(super) fn check_configured(
    engine: &str,
    probe: &Probe,
    options: &[(String, String)],
) -> Result<(), RunError> {
    if !probe.complete {
        return Ok(());
    }
    for (name, value) in options {
        match crate::engine::check_option(engine, &probe.declared, name, value) {
            Ok(_) => {}
            Err(EngineError::UnknownOption { .. }) => {
                let names: Vec<&str> = probe.declared.iter().map(|d| d.name.as_str()).collect();
                return Err(RunError::BadOption(format!(
                    "option.{name}: the engine declares no option '{name}' (it declares: {})",
                    names.join(", ")
                )));
            }
            Err(EngineError::BadOptionValue { problem, .. }) => {
                return Err(RunError::BadOption(format!(
                    "option.{name}={value}: {problem}"
                )));
            }
            Err(other) => return Err(RunError::BadOption(other.to_string())),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trial_values_are_the_default_and_another_allowed_value() {
        let spin = |default, min, max| OptionKind::Spin { default, min, max };
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            trial_values(&spin(16, 0, 4096)),
            vec![some("16"), some("0")]
        );
        assert_eq!(trial_values(&spin(1, 1, 512)), vec![some("1"), some("2")]);
        assert_eq!(trial_values(&spin(7, 7, 7)), vec![some("7")]);
        assert_eq!(
            trial_values(&OptionKind::Check { default: false }),
            vec![some("false"), some("true")]
        );
        let combo = OptionKind::Combo {
            default: "full".into(),
            choices: vec!["full".into(), "material".into()],
        };
        assert_eq!(trial_values(&combo), vec![some("full"), some("material")]);
        assert_eq!(trial_values(&OptionKind::Button), vec![None]);
        let empty = OptionKind::String {
            default: String::new(),
        };
        assert_eq!(trial_values(&empty), vec![None]);
    }
}
