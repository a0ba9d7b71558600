//! What the commands that play a run (`tournament`, `tune`, `datagen`) share: the flags of a
//! session ([`SessionFlags`]), which are exactly the flags a resumed run may change, the
//! resume itself, and how a session's end is told and given its exit code.
//!
//! Which flags `--resume` takes is said where each flag is defined: a flag is a session's when
//! it is listed under the help heading [`SESSION_HEADING`] (the flags of [`SessionFlags`], and
//! a kind's own, such as a tournament's `--anchor`). The help shows them under that heading,
//! and the refusal of any other flag lists them, both from the command's definition.

use super::UsageError;
use super::args::{BuildFlags, ChecksFlags};
use super::signals::{EXIT_INTERRUPTED, Interrupted};
use anyhow::{Context, Result, anyhow};
use bt_arena::arena::{CpuList, Stopped};
use bt_arena::run::header::RunHeader;
use bt_arena::run::identity::Identified;
use bt_arena::session::{self, Ended, Kind, RunConfig, RunStart, SessionError, SessionOptions};
use clap::{ArgMatches, Args};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The help heading of the flags a resumed run may change.
pub const SESSION_HEADING: &str = "Session (what --resume may change)";

/// The flags of one session of a run, the same for every kind: none changes the games, so a
/// resumed run takes them (and no other flag).
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = SESSION_HEADING)]
pub struct SessionFlags {
    /// Games played at the same time (default 1); the results are the same at any.
    ///
    /// A tune's iterations overlap as its --lag allows.
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Log every engine's protocol traffic under <out>/logs/.
    #[arg(long)]
    pub log: bool,
    /// Play one shard of the run, into <out>/shard-K/: its units u with (u-1) mod N = K.
    ///
    /// A unit is a tournament's game pair, a tune's iteration, a datagen run's game (K from
    /// 0). `auto` takes K and N from a Slurm array task (SLURM_ARRAY_TASK_ID,
    /// SLURM_ARRAY_TASK_COUNT), `auto/N` takes K from a Kubernetes Indexed Job
    /// (JOB_COMPLETION_INDEX) or a Slurm array task. With --resume, which shard to continue.
    #[arg(long, value_name = "K/N|auto|auto/N")]
    pub shard: Option<String>,
    /// Start no new unit after this long, e.g. 45m, 2h, 90s (default: no limit).
    ///
    /// Counted from the start, builds included; the units begun (a game pair, an iteration,
    /// a game) are finished and kept. The run then exits with 2 (no verdict yet); --resume
    /// continues it.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub max_time: Option<Duration>,
    #[command(flatten)]
    pub build: BuildFlags,
    /// Print an interim line every N games when stdout is not a terminal (0: none).
    ///
    /// On a CI log or in a file, every N recorded games: a tournament's games so far, Elo
    /// with its 95% interval and, with --sprt, the LLR and its bounds (as cutechess's score
    /// lines, at fastchess's -ratinginterval); datagen's games and positions (a tune prints a
    /// line per iteration instead). The full report comes once, at the end. On a terminal the
    /// progress line shows it instead.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub rating_interval: u64,
    #[command(flatten)]
    pub checks: ChecksFlags,
    /// Pin each game's engines to CPUs of their own (all, or a list such as 0-3,6).
    ///
    /// Each game played at once gets 2 x option.Threads CPUs of the list in turn (1 thread
    /// when not given), half for each engine, set before the engine starts (its threads
    /// inherit them). A list too short for --concurrency is refused (as fastchess's
    /// -use-affinity). Linux only.
    #[arg(long, value_name = "CPUS", num_args = 0..=1, default_missing_value = "all",
          value_parser = parse_cpus)]
    pub affinity: Option<CpuList>,
}

/// An `--affinity` list, with the error of its parser.
fn parse_cpus(text: &str) -> Result<CpuList, String> {
    CpuList::parse(text).map_err(|e| e.to_string())
}

impl SessionFlags {
    /// The value of `--shard`, resolved (`auto` from the environment).
    ///
    /// # Errors
    /// A [`UsageError`] naming the value or the variable at fault.
    pub fn shard(&self) -> Result<Option<bt_arena::run_dir::Shard>, UsageError> {
        super::args::parse_shard(self.shard.as_deref())
    }
}

/// The long flags of `command` (a subcommand's definition) a resumed run takes: `--resume`
/// and those under [`SESSION_HEADING`], in the order of the help.
pub fn resume_flags(command: &clap::Command) -> Vec<String> {
    let mut flags = vec!["resume".to_string()];
    flags.extend(
        command
            .get_arguments()
            .filter(|arg| arg.get_help_heading() == Some(SESSION_HEADING))
            .filter_map(|arg| arg.get_long().map(str::to_string)),
    );
    flags
}

/// A [`UsageError`] naming the first flag given with `--resume` that a resumed run does not
/// take, and listing those it takes; `saved` is the file the run continues from.
///
/// # Errors
/// The refusal.
pub fn refuse_on_resume(command: &clap::Command, given: &ArgMatches, saved: &Path) -> Result<()> {
    let allowed = resume_flags(command);
    let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
    if let Some(flag) = super::flag_given_outside(command, given, &allowed) {
        let list: Vec<String> = allowed[1..].iter().map(|f| format!("--{f}")).collect();
        return Err(UsageError(format!(
            "--{flag} cannot be given with --resume: the run continues exactly as saved in {}, \
             so that every game belongs to one run (only {} may be given)",
            saved.display(),
            list.join(", ")
        ))
        .into());
    }
    Ok(())
}

/// The saved config of kind `C` of the run in `dir` (of its shard `--shard K/N`, or of the
/// shard whose directory `dir` is), writing to the run's directory wherever it was started,
/// with `--concurrency` and `--log` applied; any other flag given is refused.
///
/// # Errors
/// A [`UsageError`] for a flag a resumed run does not take, a bad `--shard` or one that is
/// not the saved one, a sharded run resumed without `--shard`, bad settings; an error naming
/// `dir` when its config cannot be read.
pub fn resumed<C: RunConfig>(
    dir: &Path,
    flags: &SessionFlags,
    command: &clap::Command,
    given: &ArgMatches,
) -> Result<C> {
    let shard = flags.shard()?;
    let saved = shard.map_or_else(
        || bt_arena::run_dir::RunDir::new(dir),
        |s| bt_arena::run_dir::RunDir::new(dir).shard(s.index()),
    );
    let board = given
        .try_get_one::<bt_arena::rules::Board>("board")
        .ok()
        .flatten()
        .copied();
    if board.is_none() {
        refuse_on_resume(command, given, &saved.root().join(C::TYPE.file))?;
    }
    let dir = std::path::absolute(dir).context("cannot resolve a path")?;
    let mut config: C = session::resume::saved(&dir, shard).map_err(|e| match e {
        e if e.is_usage() => anyhow::Error::from(UsageError(e.to_string())),
        bt_arena::run::resume::ResumeError::Unreadable(_) => anyhow!("cannot resume: {e}"),
        e => anyhow!(e),
    })?;
    if let Some(board) = board {
        // The board is the run's: named beside the one given.
        return Err(UsageError(format!(
            "--board {board} cannot be given with --resume: the {} in {} plays on {} as saved \
             in {}, and a run keeps its board (start a new run for another board)",
            C::TYPE.noun(),
            dir.display(),
            config.header().board,
            saved.root().join(C::TYPE.file).display()
        ))
        .into());
    }
    config
        .header_mut()
        .resume_with(flags.concurrency, flags.log);
    config
        .validate()
        .map_err(|e| UsageError(format!("--resume {}: {e}", dir.display())))?;
    Ok(config)
}

/// The shared settings of a new run: `--concurrency`, `--log`, `--shard`, `--worker` and
/// `--lease` applied to `header`.
///
/// # Errors
/// A [`UsageError`] for a bad `--shard`, or `--worker` without `--out`.
pub fn apply_new(
    header: &mut RunHeader,
    flags: &SessionFlags,
    workers: &super::args::WorkerFlags,
    out_given: bool,
) -> Result<()> {
    if let Some(concurrency) = flags.concurrency {
        header.concurrency = concurrency;
    }
    header.log |= flags.log;
    header.shard = flags.shard()?.or(header.shard);
    if let Some((worker, lease_ms)) = workers
        .worker(out_given)
        .map_err(|e| UsageError(format!("{e:#}")))?
    {
        header.worker = Some(worker);
        header.lease_ms = Some(lease_ms);
    }
    Ok(())
}

/// Resolves the revisions of `config`'s engines built from source (a new run's, before its
/// settings are checked: names taken from commits must not collide), warnings on stderr.
///
/// # Errors
/// A [`UsageError`] for a revision that cannot be resolved.
pub fn resolve_sources<C: RunConfig>(config: &mut C) -> Result<()> {
    session::resolve_sources(config, &mut |line| note!("{line}"))
        .map_err(|e| UsageError(e.to_string()).into())
}

/// The session's own settings from its flags: the deadline (counted from `started`), the
/// interim lines, the claim checks, the CPUs (checked against the concurrency and the
/// engines' threads), and the build cache when an engine of `config` is built from source (a
/// resumed run's own unless `--build-cache` is given on the command line; recorded in the
/// config).
///
/// # Errors
/// A [`UsageError`] for an `--affinity` too short; an error when there is no cache to build
/// in.
pub fn options<C: RunConfig>(
    config: &mut C,
    flags: &SessionFlags,
    given: &ArgMatches,
    started: Instant,
) -> Result<SessionOptions> {
    let seats_threads = bt_arena::arena::engine_threads(config.engines_mut());
    if let Some(list) = &flags.affinity {
        list.check(config.header().concurrency, seats_threads)
            .map_err(|e| UsageError(e.to_string()))?;
    }
    let build_cache = match config.engines_mut().iter().any(|e| e.source.is_some()) {
        true => {
            let on_command_line =
                given.value_source("build_cache") == Some(clap::parser::ValueSource::CommandLine);
            let saved = config.header().build_cache.clone();
            let cache = flags
                .build
                .cache_of_run(saved.as_deref(), on_command_line)?;
            config.header_mut().build_cache = Some(cache.root().to_path_buf());
            Some(cache)
        }
        false => None,
    };
    Ok(SessionOptions {
        deadline: flags.max_time.map(|limit| started + limit),
        rating_interval: flags.rating_interval,
        checks: flags.checks.claim_checks(),
        affinity: flags.affinity.clone(),
        build_cache,
    })
}

/// Runs the session of kind `K` ([`session::run`]), its preparation's lines said (warnings on
/// stderr), its errors told apart: a bad command line (exit 3), a signal during a build or
/// bench (exit 130), any other (exit 4).
///
/// # Errors
/// The session's error, as above.
pub fn play<K: Kind>(
    config: &mut K::Config,
    start: RunStart,
    options: &SessionOptions,
    stop: &AtomicBool,
    announce: impl FnOnce(session::Announcement<'_, K::Config, K::Prospect>),
) -> Result<session::SessionEnd<K::Outcome>> {
    let mut say = |line: String| match line.strip_prefix("warning: ") {
        Some(_) => note!("{line}"),
        None => say!("{line}"),
    };
    session::run::<K>(config, start, options, stop, &mut say, announce).map_err(session_error)
}

/// A session's error as the command line tells it.
fn session_error<E: std::error::Error + Send + Sync + 'static>(
    err: SessionError<E>,
) -> anyhow::Error {
    if err.is_interrupted() {
        return Interrupted(format!("{err}; nothing was played: run the command again")).into();
    }
    if err.is_usage() {
        return UsageError(err.to_string()).into();
    }
    anyhow!(err)
}

/// The exit code of a session that did not end with its run's verdict, with what to do next
/// said on stderr: stopped by a signal ([`EXIT_INTERRUPTED`]), by `--max-time` (2), or with
/// games not played ([`super::EXIT_ERROR`]); `None` when the run played on to its end (the
/// kind's verdict decides). `units` names what a worker was playing (`game pairs`); `pending`
/// is said of a run stopped by the time limit (`no SPRT decision; `).
pub fn stop_code<C: Identified>(
    config: &C,
    ended: &Ended,
    units: &str,
    pending: &str,
) -> Option<ExitCode> {
    let header = config.header();
    let resume = session::resume_command(header, C::TYPE);
    match ended.stopped {
        Stopped::Interrupted if header.worker.is_some() => {
            note!(
                "Interrupted: the {units} this worker was playing were let go (their games \
                 recorded are kept); any worker of the run plays the rest, e.g. `{resume}`"
            );
            Some(EXIT_INTERRUPTED.into())
        }
        Stopped::Interrupted => {
            note!("Interrupted: continue with `{resume}`");
            Some(EXIT_INTERRUPTED.into())
        }
        Stopped::TimeLimit => {
            note!(
                "Time limit reached (--max-time): no new {} started after it; {} recorded; \
                 {pending}continue with `{resume}`",
                units.trim_end_matches('s'),
                bt_arena::records::plural(ended.earlier + ended.recorded, "game")
            );
            Some(super::EXIT_INCONCLUSIVE.into())
        }
        _ if !ended.not_played.is_empty() => {
            report_unplayed(ended, &resume);
            Some(super::EXIT_ERROR.into())
        }
        _ => None,
    }
}

/// Says on stderr which games were not played: one error per engine given up, and a warning
/// for games left by start failures that passed.
fn report_unplayed(ended: &Ended, resume: &str) {
    for given_up in &ended.given_up {
        let games = ended
            .not_played
            .iter()
            .filter(|game| game.engine == given_up.engine)
            .count();
        let because = if given_up.recurs {
            "This fails at every start".to_string()
        } else {
            format!("{} failed starts in a row", given_up.failures)
        };
        note!(
            "error: {}. {because}, so its {games} games were not played: fix it, then continue with `{resume}`",
            given_up.error
        );
    }
    let others: Vec<_> = ended
        .not_played
        .iter()
        .filter(|game| ended.given_up.iter().all(|g| g.engine != game.engine))
        .collect();
    if let Some(first) = others.first() {
        note!(
            "warning: {} games were not played (`{resume}` plays them); the first because {}",
            others.len(),
            first.why
        );
    }
}
