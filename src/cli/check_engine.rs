//! `bt-arena check-engine`: the protocol and rules checklist of one engine, as text (one line
//! per check, as each group ends) or JSON.

use super::UsageError;
use anyhow::{Result, anyhow};
use bt_arena::check_engine::{self, CheckLines, Group, RunError, Settings};
use bt_arena::engine::{EngineDescription, EngineKeys, Timeouts};
use bt_arena::game::TimeControl;
use bt_arena::rules::Rules;
use clap::{ArgAction, Args};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `bt-arena check-engine`.
#[derive(Args, Debug)]
pub struct CheckEngineArgs {
    /// The engine: cmd=PATH [name=N] [args="A B"] [arg=A] [dir=D] [proto=ugi|uci]
    /// [option.X=Y] [timemargin=MS] (the tolerance of a late move, default 100 ms, as in
    /// tournaments). A search limit key is accepted and not used.
    #[arg(long, required = true, num_args = 1.., action = ArgAction::Set, value_name = "KEY=VALUE")]
    engine: Vec<String>,
    /// Rule set: capture-only (diagonal steps must capture) or classic.
    #[arg(long, default_value_t = Rules::CaptureOnly)]
    rules: Rules,
    /// Skip the mini-match (the slowest check).
    #[arg(long)]
    quick: bool,
    /// Run only these groups, comma-separated: handshake, positions, limits, output, newgame,
    /// movegen, match (a failing handshake is reported anyway).
    #[arg(long, value_delimiter = ',', value_name = "GROUP")]
    only: Vec<Group>,
    /// Seconds one search to a fixed depth or node count, or one perft, may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Seconds the handshake and each isready may take (the tournament runner allows 10).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    ready_timeout: Duration,
    /// Seed of the random perft positions and match openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The mini-match opponent, as --engine (default: bt-random beside bt-arena).
    #[arg(long, num_args = 1.., action = ArgAction::Set, value_name = "KEY=VALUE")]
    opponent: Vec<String>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// A positive number of seconds, decimals allowed.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 86_400.0 => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(format!(
            "'{text}' is not a positive number of seconds (at most a day)"
        )),
    }
}

/// Runs `bt-arena check-engine`: exit 0 when no check failed, 1 when one did.
///
/// # Errors
/// A bad `--engine` or `--opponent`, or a configured option the engine does not declare
/// ([`UsageError`]); an engine that cannot be started.
pub fn run(args: &CheckEngineArgs) -> Result<ExitCode> {
    let spec = engine_description("--engine", &args.engine)?;
    let opponent = if args.opponent.is_empty() {
        bundled_random()
    } else {
        Some(engine_description("--opponent", &args.opponent)?)
    };
    let settings = Settings {
        rules: args.rules,
        quick: args.quick,
        only: args.only.clone(),
        search_timeout: Duration::from_secs(args.timeout),
        seed: args.seed,
    };
    let timeouts = Timeouts {
        handshake: args.ready_timeout,
        ready: args.ready_timeout,
        ..Timeouts::default()
    };
    if !args.json {
        say!(
            "{}",
            check_engine::header(&spec.name, None, spec.proto, args.rules)
        );
    }
    let report = check_engine::run(&spec, timeouts, opponent.as_ref(), &settings, |check| {
        if !args.json {
            out!("{}", CheckLines(check));
        }
    })
    .map_err(|error| match error {
        RunError::BadOption(problem) => UsageError(format!("--engine {problem}")).into(),
        other => anyhow!("{other}"),
    })?;
    if args.json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        say!("{}", report.footer());
    }
    Ok(if report.failed == 0 {
        ExitCode::SUCCESS
    } else {
        super::EXIT_FAILED.into()
    })
}

/// The engine of `flag` from its `key=value` tokens (built first when from source).
fn engine_description(flag: &str, tokens: &[String]) -> Result<EngineDescription> {
    let engine = EngineKeys::parse(tokens)
        .and_then(|keys| keys.into_description(TimeControl::Depth(1)))
        .map_err(|e| UsageError(format!("{flag}: {e}")))?;
    super::bench::built_from_source(engine, None)
}

/// bt-random beside this executable, if it is there.
fn bundled_random() -> Option<EngineDescription> {
    let exe = std::env::current_exe().ok()?;
    let cmd = exe.parent()?.join("bt-random");
    let tokens = [
        format!("cmd={}", cmd.display()),
        "name=bt-random".to_string(),
    ];
    cmd.is_file()
        .then(|| engine_description("--opponent", &tokens).ok())
        .flatten()
}
