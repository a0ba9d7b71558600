//! `bt-arena check-engine`: the protocol and rules checklist of one engine, as text (one line
//! per check, as each group ends) or JSON.

use super::UsageError;
use super::args::{
    BoardFlag, BuildFlags, JsonFlag, JudgeSeed, OneEngine, RulesFlag, SearchTimeout, named,
};
use anyhow::{Result, anyhow};
use bt_arena::check_engine::{self, CheckLines, Group, RunError, Settings};
use bt_arena::engine::EngineDescription;
use bt_arena::game::TimeControl;
use clap::{ArgAction, Args};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Arguments of `bt-arena check-engine`.
#[derive(Args, Debug)]
pub struct CheckEngineArgs {
    #[command(flatten)]
    engine: OneEngine,
    #[command(flatten)]
    rules: RulesFlag,
    #[command(flatten)]
    board: BoardFlag,
    /// Skip the mini-match (the slowest check).
    #[arg(long)]
    quick: bool,
    /// Run only these groups, comma-separated (a failing handshake is reported anyway).
    #[arg(long, value_delimiter = ',', value_name = "GROUP", value_parser = named::<Group>())]
    only: Vec<Group>,
    #[command(flatten)]
    timeout: SearchTimeout,
    /// Deprecated: the engine keys handshake=SECONDS isready=SECONDS say it (default 10 each).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, hide = true)]
    ready_timeout: Option<Duration>,
    #[command(flatten)]
    seed: JudgeSeed,
    /// The mini-match opponent, with the keys of --engine (default: bt-random beside
    /// bt-arena).
    #[arg(long, num_args = 1.., action = ArgAction::Set, value_name = "KEY=VALUE")]
    opponent: Vec<String>,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    build: BuildFlags,
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
    // Before anything is built: a signal stops the build; once built, it exits at once.
    let stop = super::signals::stop_flag()?;
    let rules = args.rules.get();
    let json = args.json.json;
    let mut spec = engine_description("--engine", &args.engine.engine, &args.build, &stop)?;
    if let Some(ready) = args.ready_timeout {
        note!(
            "warning: --ready-timeout is deprecated: give the engine keys handshake={0} \
             isready={0} (as tournaments take them)",
            ready.as_secs_f64()
        );
        let ms = bt_arena::time_control::whole_ms(ready);
        spec.handshake_timeout_ms = ms;
        spec.ready_timeout_ms = ms;
    }
    let opponent = if args.opponent.is_empty() {
        bundled_random()
    } else {
        Some(engine_description(
            "--opponent",
            &args.opponent,
            &args.build,
            &stop,
        )?)
    };
    super::signals::exit_at_once_from_now(&stop)?;
    let engines: Vec<EngineDescription> =
        [spec.clone()].into_iter().chain(opponent.clone()).collect();
    super::executables::check_commands(&engines).map_err(|e| UsageError(format!("{e:#}")))?;
    let settings = Settings {
        rules,
        board: args.board.get(),
        quick: args.quick,
        only: args.only.clone(),
        search_timeout: args.timeout.get(),
        seed: args.seed.seed,
    };
    let timeouts = spec.launch().timeouts;
    if !json {
        say!(
            "{}",
            check_engine::header(
                &spec.name,
                None,
                spec.proto,
                rules,
                settings.board,
                settings.seed
            )
        );
    }
    let report = check_engine::run(&spec, timeouts, opponent.as_ref(), &settings, |check| {
        if !json {
            out!("{}", CheckLines(check));
        }
    })
    .map_err(|error| match error {
        RunError::BadOption(problem) => UsageError(format!("--engine {problem}")).into(),
        other => anyhow!("{other}"),
    })?;
    if json {
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

/// The engine of `flag` from its `key=value` tokens (built first when from source); its
/// search limit is not used.
fn engine_description(
    flag: &str,
    tokens: &[String],
    build: &BuildFlags,
    stop: &AtomicBool,
) -> Result<EngineDescription> {
    let engine = super::args::engine_description(flag, tokens, TimeControl::Depth(1))?;
    super::bench::built_from_source(engine, build, stop)
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
        .then(|| {
            engine_description(
                "--opponent",
                &tokens,
                &BuildFlags::default(),
                &AtomicBool::new(false),
            )
            .ok()
        })
        .flatten()
}
