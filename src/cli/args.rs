//! The flags several subcommands share, each defined once with one help text and one parser
//! (`#[command(flatten)]`): the engine keys (`--engine`, `--each`), `--rules`, `--json`, the two
//! `--seed` policies, `--timeout`, `--sprt`, the build cache flags (`--build-cache`,
//! `--rebuild`), `--anchor` and the games inputs of `elo` and `report`; and the value parser of
//! every named value ([`named`]).
//!
//! The seed policies: a command that makes a run (tournament, tune, openings generate) draws
//! a seed unless one is given, prints it and saves it with what it makes ([`RunSeed`]); a command
//! that judges an engine (perft-check, check-engine) uses a fixed seed unless one is given, so
//! that the same engine gets the same verdict ([`JudgeSeed`]).

use super::UsageError;
use super::engine_help::{EACH_HELP, ENGINE_HELP, ENGINE_LONG_HELP};
use bt_arena::engine::build::{BuildCache, BuildError};
use bt_arena::engine::{EngineDescription, EngineKeys};
use bt_arena::game::{ClaimChecks, TimeControl};
use bt_arena::named::Named;
use bt_arena::records::moves::CommentDetail;
use bt_arena::rules::{Board, Position, Rules};
use bt_arena::stats::Sprt;
use bt_arena::time_control::UNCLOCKED_MOVE_TIMEOUT;
use clap::Args;
use clap::builder::{PossibleValue, TypedValueParser};
use std::ffi::OsStr;
use std::marker::PhantomData;
use std::path::PathBuf;

/// The value parser of a [`Named`] value: its names (and aliases) as clap's possible values, in
/// `--help` and the shell completions, and the one error of an unknown name
/// ([`bt_arena::named::UnknownName`]: the value given and the names accepted).
pub fn named<T: Named + Send + Sync>() -> NamedParser<T> {
    NamedParser(PhantomData)
}

/// See [`named`].
#[derive(Clone, Copy, Debug)]
pub struct NamedParser<T>(PhantomData<fn() -> T>);

impl<T: Named + Send + Sync + Clone> TypedValueParser for NamedParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // clap's error for a value its parser refused, with UnknownName's message.
        clap::builder::StringValueParser::new()
            .try_map(|text| T::from_name(&text))
            .parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(T::all().iter().map(|value| {
            PossibleValue::new(value.name()).aliases(value.aliases().iter().copied())
        })))
    }
}

/// The value parser of a path bt-arena records in its files (`--out` of a run): a non-UTF-8
/// path is refused as a bad command line before anything is written, since the run's
/// config.json (JSON, UTF-8) could not hold it.
pub fn utf8_path() -> Utf8PathParser {
    Utf8PathParser
}

/// See [`utf8_path`].
#[derive(Clone, Copy, Debug)]
pub struct Utf8PathParser;

impl TypedValueParser for Utf8PathParser {
    type Value = PathBuf;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<PathBuf, clap::Error> {
        match value.to_str() {
            Some("") | None => {
                let flag = arg.map_or_else(|| "the path".to_string(), |arg| arg.to_string());
                let why = match value.is_empty() {
                    true => "a path is required",
                    false => {
                        "the path is not valid UTF-8, which the run's files (JSON, CSV) must be"
                    }
                };
                Err(clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    format!(
                        "invalid value '{}' for '{flag}': {why}\n",
                        value.to_string_lossy()
                    ),
                )
                .with_cmd(command))
            }
            Some(path) => Ok(PathBuf::from(path)),
        }
    }
}

/// `command` with every flag and positional that takes a value, in it and in its subcommands,
/// reading a negative number as its value: `--gamma -0.5` is then refused by the flag's own
/// check, naming it, and `--rounds -1` by its parser, where clap would otherwise take `-0` for
/// an unknown flag ("unexpected argument '-0'"). bt-arena has no flag spelled as a number.
pub fn negative_numbers_as_values(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| match arg.get_action().takes_values() {
            true => arg.allow_negative_numbers(true),
            false => arg,
        })
        .mut_subcommands(negative_numbers_as_values)
}

/// `--engine` (repeatable) and `--each`: the engines of a tournament, a tune or a bench.
#[derive(Debug, Clone, Default)]
pub struct EngineFlags {
    /// The words of each `--engine`, one list per flag.
    pub engine: Vec<Vec<String>>,
    /// The words of `--each` (all of them, when it is given several times).
    pub each: Vec<String>,
}

// Written out rather than derived: the words of each `--engine` are kept apart (clap's derive
// would need its unstable `Vec<Vec<T>>`).
impl clap::Args for EngineFlags {
    fn augment_args(command: clap::Command) -> clap::Command {
        let words = |id: &'static str| {
            clap::Arg::new(id)
                .long(id)
                .num_args(1..)
                .action(clap::ArgAction::Append)
                .value_name("KEY=VALUE")
        };
        command
            .arg(
                words("engine")
                    .help(ENGINE_HELP)
                    .long_help(ENGINE_LONG_HELP),
            )
            .arg(words("each").help(EACH_HELP))
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl clap::FromArgMatches for EngineFlags {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let groups = matches
            .get_occurrences::<String>("engine")
            .map(|groups| groups.map(|group| group.cloned().collect()).collect())
            .unwrap_or_default();
        let each = matches
            .get_many::<String>("each")
            .map(|words| words.cloned().collect())
            .unwrap_or_default();
        Ok(EngineFlags {
            engine: groups,
            each,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl EngineFlags {
    /// Each `--engine` with the keys of `--each` under its own, described; `default_limit`
    /// for an engine given no limit.
    ///
    /// # Errors
    /// A [`UsageError`] naming the flag (`--engine #2`, `--each`) and the key at fault.
    pub fn descriptions(
        &self,
        default_limit: TimeControl,
    ) -> Result<Vec<EngineDescription>, UsageError> {
        let each = self.each_keys()?;
        self.engine
            .iter()
            .enumerate()
            .map(|(index, tokens)| {
                describe(tokens, &each, default_limit)
                    .map_err(|e| UsageError(format!("--engine #{}: {e}", index + 1)))
            })
            .collect()
    }

    /// The keys of `--each`.
    ///
    /// # Errors
    /// A [`UsageError`] naming the key at fault.
    pub fn each_keys(&self) -> Result<EngineKeys, UsageError> {
        EngineKeys::parse(&self.each).map_err(|e| UsageError(format!("--each: {e}")))
    }
}

/// `--engine` given once: the engine perft-check and check-engine judge.
#[derive(Args, Debug, Clone)]
pub struct OneEngine {
    #[arg(long, required = true, num_args = 1.., value_name = "KEY=VALUE", help = ENGINE_HELP,
          long_help = ENGINE_LONG_HELP)]
    pub engine: Vec<String>,
}

impl OneEngine {
    /// The engine described; `default_limit` when it is given no limit.
    ///
    /// # Errors
    /// A [`UsageError`] naming the key at fault.
    pub fn description(&self, default_limit: TimeControl) -> Result<EngineDescription, UsageError> {
        engine_description("--engine", &self.engine, default_limit)
    }
}

/// The engine of `flag` from its `key=value` tokens, as every command reads them.
///
/// # Errors
/// A [`UsageError`] naming `flag` and the key at fault.
pub fn engine_description(
    flag: &str,
    tokens: &[String],
    default_limit: TimeControl,
) -> Result<EngineDescription, UsageError> {
    describe(tokens, &EngineKeys::default(), default_limit)
        .map_err(|e| UsageError(format!("{flag}: {e}")))
}

/// The one reading of an engine's keys for every command: `tokens` over `each`, then
/// described.
pub fn describe(
    tokens: &[String],
    each: &EngineKeys,
    default_limit: TimeControl,
) -> Result<EngineDescription, bt_arena::engine::DescriptionError> {
    EngineKeys::parse(tokens)
        .and_then(|keys| keys.with_defaults(each).into_description(default_limit))
}

/// `--rules`, in every command that plays or counts moves.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct RulesFlag {
    /// Rule set (default capture-only).
    ///
    /// Under capture-only rules a diagonal step must capture; under classic rules it may also
    /// go to an empty square. A straight step always goes to an empty square.
    #[arg(long, value_name = "RULES", value_parser = named::<Rules>())]
    pub rules: Option<Rules>,
}

impl RulesFlag {
    /// The rule set given, else capture-only.
    pub fn get(self) -> Rules {
        self.rules.unwrap_or_default()
    }
}

/// `--board`: the board size of the commands that count, play or solve positions.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct BoardFlag {
    /// Board size: RANKSxFILES, each from 4 to 8 (default 8x8).
    ///
    /// White starts on ranks 1-2 and moves first, Black on the top two ranks; each side's goal
    /// is the far rank. Squares keep their names (a1 bottom-left), and a FEN gives the board's
    /// own ranks from the top one down, e.g. pppppp/pppppp/6/6/PPPPPP/PPPPPP w on 6x6. A run that
    /// plays games keeps its board (saved with it; --resume takes no --board), tells its
    /// engines, and needs a book of that board: off 8x8, without --openings, its games start
    /// from the board's start position (the shipped books are 8x8).
    #[arg(long, value_name = "RxC")]
    pub board: Option<Board>,
}

impl BoardFlag {
    /// The board given, else 8×8.
    pub fn get(self) -> Board {
        self.board.unwrap_or_default()
    }

    /// `fen` (or `startpos`) read as a position of this board.
    ///
    /// # Errors
    /// A [`UsageError`] for a malformed FEN or one of another board's shape, naming `flag` and
    /// the rank.
    pub fn position(self, flag: &str, fen: &str) -> Result<Position, UsageError> {
        let board = self.get();
        Position::from_fen(fen, board).map_err(|err| {
            UsageError(format!(
                "{flag} '{fen}' is no position of the {board} board: {err}"
            ))
        })
    }
}

/// `--openings` of the commands that play games (tournament, tune).
#[derive(Args, Debug, Clone, Default)]
pub struct OpeningsFlag {
    /// Opening book: file=PATH [order=sequential|random].
    ///
    /// Default: the shipped book of the rule set in sequential order: openings/<rules>.epd of
    /// the working directory when it has one (a clone), else the same book built into
    /// bt-arena, named shipped:<rules>.epd (file=shipped:classic.epd names one anywhere). Both
    /// games of a pair start from the same opening; order=random shuffles the book by the seed.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub openings: Vec<String>,
}

/// `--pgn-comments` of the commands that write games.pgn (tournament, tune).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct PgnCommentsFlag {
    /// What the move comments of games.pgn say: full, short or none (default full).
    ///
    /// full: score/depth, time, nodes, seldepth and PV; short: score/depth and time; none: no
    /// move comments (the comment saying how the game ended stays).
    #[arg(long, value_name = "DETAIL", value_parser = named::<CommentDetail>())]
    pub pgn_comments: Option<CommentDetail>,
}

/// `--json`, in every command that prints a report.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct JsonFlag {
    /// Print the report as JSON instead of text.
    ///
    /// One JSON document on stdout, with the fields of the text report.
    #[arg(long)]
    pub json: bool,
}

/// The shard of a `--shard` value (`K/N`, `auto`, `auto/N`; see [`Shard::from_arg`]), its
/// variables read from the environment.
///
/// # Errors
/// A [`UsageError`] naming the value and what is wrong with it.
pub fn parse_shard(text: Option<&str>) -> Result<Option<bt_arena::run_dir::Shard>, UsageError> {
    text.map(|text| {
        bt_arena::run_dir::Shard::from_arg(text, |name| std::env::var(name).ok())
            .map_err(|e| UsageError(format!("--shard {text}: {e}")))
    })
    .transpose()
}

/// `--worker` and `--lease`: this process one of a run of workers
/// ([`bt_arena::arena::leases`]), for every kind of run.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct WorkerFlags {
    /// Be one of any number of workers on the run in --out (elastic: start and stop them
    /// anywhere, at any time).
    ///
    /// A worker claims the lowest unit of the run nobody plays (a tournament's game pair, a
    /// tune's iteration; a file in <out>/claims/), plays it into
    /// <out>/worker-HOST-PID-RANDOM/, and goes on until every unit is recorded (or a
    /// tournament's shared SPRT decides); it waits while other workers play the last units, to
    /// play them again if their worker dies. Every worker gives the run's settings and --out;
    /// the results are those of one machine. See docs/guide/cluster.md.
    #[arg(long, conflicts_with = "shard")]
    pub worker: bool,
    /// With --worker: how long a claim may go without its heartbeat before another worker
    /// plays its unit again, e.g. 60s, 5m (default 60s; at least 1s).
    ///
    /// Part of the run's settings: every worker gives the same. A worker killed on the host of
    /// another is noticed at once; on another host, after the lease.
    #[arg(long, value_name = "DURATION", value_parser = parse_lease, requires = "worker")]
    pub lease: Option<std::time::Duration>,
}

impl WorkerFlags {
    /// With `--worker`, this worker's new id ([`bt_arena::arena::leases::new_worker_id`]) and
    /// the lease in ms; `None` without.
    ///
    /// # Errors
    /// `--worker` without `--out` (`out_given` false): the run directory must be shared.
    pub fn worker(&self, out_given: bool) -> anyhow::Result<Option<(String, u64)>> {
        if !self.worker {
            return Ok(None);
        }
        if !out_given {
            return Err(anyhow::anyhow!(
                "--worker needs --out DIR: the run directory every worker of the run shares"
            ));
        }
        let lease = self.lease.unwrap_or(bt_arena::arena::leases::DEFAULT_LEASE);
        Ok(Some((
            bt_arena::arena::leases::new_worker_id(),
            u64::try_from(lease.as_millis()).unwrap_or(u64::MAX),
        )))
    }
}

/// A `--lease`: a duration of at least 1 s and at most a day.
fn parse_lease(text: &str) -> Result<std::time::Duration, String> {
    let lease = humantime::parse_duration(text).map_err(|e| e.to_string())?;
    match lease {
        lease if lease < std::time::Duration::from_secs(1) => {
            Err("a lease below 1s would take units from workers that are alive".into())
        }
        lease if lease > std::time::Duration::from_secs(86_400) => {
            Err("a lease above a day would hold a dead worker's unit that long".into())
        }
        lease => Ok(lease),
    }
}

/// `--seed` of a command that makes a run: drawn unless given, printed and saved.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct RunSeed {
    /// Seed of every random choice (default: drawn at random).
    ///
    /// The seed is printed and saved with what the command makes (a run's config.json, a
    /// tune's tune.json, a book's header), so that it can be made again.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

impl RunSeed {
    /// The seed given, else one drawn at random.
    pub fn get_or_draw(self) -> u64 {
        self.seed.unwrap_or_else(|| fastrand::u64(..))
    }
}

/// The seed a judging command uses when none is given.
pub const JUDGE_SEED: u64 = 1;

/// `--seed` of a command that judges an engine: fixed unless given.
#[derive(Args, Debug, Clone, Copy)]
pub struct JudgeSeed {
    /// Seed of the random positions and openings.
    ///
    /// Fixed unless given, so that the same engine gets the same verdict; printed with the
    /// report.
    #[arg(long, value_name = "N", default_value_t = JUDGE_SEED)]
    pub seed: u64,
}

/// `--timeout` of the commands that judge an engine: one search to a fixed depth or node
/// count, or one perft, as long as a tournament allows a fixed-depth move.
#[derive(Args, Debug, Clone, Copy)]
pub struct SearchTimeout {
    /// Seconds one search to a fixed depth or node count, or one perft, may take.
    ///
    /// Past it the engine counts as failed. A tournament allows a move at a fixed depth or
    /// node count as long.
    #[arg(long, value_name = "SECONDS", default_value_t = UNCLOCKED_MOVE_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

impl SearchTimeout {
    /// The timeout.
    pub fn get(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.timeout)
    }
}

/// The `-h` line of `--sprt`.
const SPRT_HELP: &str =
    "SPRT of the first engine against the second: elo0=E0,elo1=E1[,alpha=A][,beta=B][,model=M]";

/// `--sprt` in every command that tests or replays one.
const SPRT_LONG_HELP: &str = "SPRT of the first engine against the second (needs exactly two \
engines): one word, comma-separated (--sprt elo0=0,elo1=5), or one quoted string with spaces \
(--sprt \"elo0=0 elo1=5\"). Keys: elo0 and elo1, the hypotheses in Elo; alpha and beta, the \
error rates (default 0.05 each); model=logistic|normalized, how elo0 and elo1 are read (default \
logistic).

The verdict is the first crossing of a bound, game by game in the order played or read: a \
tournament stops there (games in flight are recorded, not counted); elo and report replay the \
games given (default: the run's own SPRT, when they are one run).";

/// `--sprt`: tournament, elo and report.
#[derive(Args, Debug, Clone, Default)]
pub struct SprtFlag {
    #[arg(long, value_name = "elo0=E0,elo1=E1,...", help = SPRT_HELP, long_help = SPRT_LONG_HELP,
          value_parser = parse_sprt)]
    pub sprt: Option<Sprt>,
}

/// An SPRT specification, with the error of [`Sprt`]'s parser: what `--sprt` and `bt-arena
/// sprt` take.
pub fn parse_sprt(text: &str) -> Result<Sprt, String> {
    text.parse().map_err(|e| format!("{e}"))
}

/// `--build-cache` and `--rebuild`: every command that builds engines from source (src=):
/// tournament, bench, check-engine and perft-check.
#[derive(Args, Debug, Clone, Default)]
pub struct BuildFlags {
    /// Where engines built from source (src=) are built (default $BT_ARENA_BUILD_CACHE, else
    /// ~/.cache/bt-arena/builds).
    ///
    /// One build is kept per commit and build command. An empty BT_ARENA_BUILD_CACHE (a blank
    /// CI variable) counts as unset. A tournament records the cache in its config.json and
    /// --resume uses it again; --build-cache given with --resume overrides it.
    #[arg(long, value_name = "DIR")]
    pub build_cache: Option<PathBuf>,
    /// Build engines from source (src=) again even when the build cache has them.
    ///
    /// Each commit and build command is built once more, replacing the cached build (or a
    /// damaged cache entry).
    #[arg(long)]
    pub rebuild: bool,
}

impl BuildFlags {
    /// The build cache: `--build-cache`, else [`bt_arena::engine::build::CACHE_ENV`], else the default
    /// ([`BuildCache::locate`]); with `--rebuild`, rebuilding.
    ///
    /// # Errors
    /// [`BuildError::NoCacheDir`] when there is no cache directory to use.
    pub fn cache(&self) -> Result<BuildCache, BuildError> {
        self.cache_of_run(None, false)
    }

    /// The build cache of a run saved with the cache `saved`: `--build-cache` when it was
    /// given (`on_command_line`), else `saved`, else as [`cache`](BuildFlags::cache) (the
    /// variable [`bt_arena::engine::build::CACHE_ENV`] when set and not empty, else the default).
    ///
    /// # Errors
    /// [`BuildError::NoCacheDir`] when there is no cache directory to use.
    pub fn cache_of_run(
        &self,
        saved: Option<&std::path::Path>,
        on_command_line: bool,
    ) -> Result<BuildCache, BuildError> {
        let given = match on_command_line {
            true => self.build_cache.as_deref(),
            false => saved.or(self.build_cache.as_deref()),
        };
        Ok(BuildCache::locate(given)?.rebuilding(self.rebuild))
    }
}

/// `--check-claims` and `--strict` of the commands that play games (tournament, tune,
/// datagen): what a session checks of the engines and whether their misbehaviour fails it.
/// Settings of a session, not of the run: neither changes a game, so `--resume` takes them
/// (each session's own; the run's records keep what was found).
#[derive(Args, Debug, Clone, Default)]
pub struct ChecksFlags {
    /// Prove the engines' mate claims of at most PLIES plies (default 5; 0: none).
    ///
    /// Every move's PV and ponder move are replayed by the rules; a `score mate N` (a win
    /// within 2N-1 plies, a loss within -2N) of at most PLIES plies is proven by the rules'
    /// prover (20000 nodes at most; past it the claim is "not checked"). What is false is
    /// warned about and counted in the report's claims table (docs/guide/checks.md).
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(0..=15))]
    pub check_claims: Option<u32>,
    /// Exit 6 ("checks failed") after the run when an engine misbehaved.
    ///
    /// Stray lines, illegal PVs, false mate claims, illegal ponder moves, a loss on time, by
    /// an illegal move, a crash or a stall each fail the run; it plays on, and its report
    /// (and verdict) is printed and kept as usual (fastchess's -strict, for CI).
    #[arg(long)]
    pub strict: bool,
}

impl ChecksFlags {
    /// The claim checks of `--check-claims` (the default's when not given).
    pub fn claim_checks(&self) -> ClaimChecks {
        let mut checks = ClaimChecks::default();
        if let Some(plies) = self.check_claims {
            checks.plies = plies;
        }
        checks
    }
}

/// `--anchor` of the commands that rate a pool (tournament, elo, report).
#[derive(Args, Debug, Clone, Default)]
pub struct AnchorFlag {
    /// Rate the pool relative to this engine (its rating 0), as Ordo's anchor.
    ///
    /// Default: the pool's mean is 0. The ± of each engine is then the 95% interval of its
    /// difference to the anchor. With two engines the text report gives the pair's Elo only.
    #[arg(long, value_name = "NAME")]
    pub anchor: Option<String>,
}

impl AnchorFlag {
    /// The engine of `engines` that `--anchor` names: the one of that name, else the only
    /// engine built from source whose name is it followed by `@COMMIT`.
    ///
    /// # Errors
    /// A [`UsageError`] naming the anchor and the engines when none (or several) match.
    pub fn resolve(&self, engines: &[String]) -> Result<Option<String>, UsageError> {
        let Some(anchor) = &self.anchor else {
            return Ok(None);
        };
        if engines.contains(anchor) {
            return Ok(Some(anchor.clone()));
        }
        let built: Vec<&String> = engines
            .iter()
            .filter(|e| {
                e.strip_prefix(anchor.as_str())
                    .is_some_and(|r| r.starts_with('@'))
            })
            .collect();
        match built.as_slice() {
            [only] => Ok(Some((*only).clone())),
            _ => Err(UsageError(format!(
                "--anchor {anchor}: no engine of that name (the engines: {})",
                engines.join(", ")
            ))),
        }
    }

    /// Rates `summary`'s pool relative to the engine `--anchor` names, if given.
    ///
    /// # Errors
    /// A [`UsageError`] when no engine of the report has that name or a rating.
    pub fn apply(&self, summary: &mut bt_arena::report::Summary) -> Result<(), UsageError> {
        if let Some(name) = self.resolve(&summary.engines)? {
            summary
                .anchor_at(&name)
                .map_err(|e| UsageError(e.to_string()))?;
        }
        Ok(())
    }
}

/// The games `elo` and `report` read.
#[derive(Args, Debug, Clone, Default)]
pub struct GamesInputs {
    /// Run directories (a run on one machine, a sharded run, or shard directories of one run),
    /// games.csv files, or PGN files (bt-arena's, cutechess-cli's, fastchess's).
    ///
    /// Each game is counted once: a game given twice is refused. A run on one machine is read in
    /// file order, a sharded run in game-id order; game pairs are matched within a run or file
    /// (in a PGN without bt-arena's X-Pair tags: two consecutive games, colours swapped, same
    /// start); engines are listed in the run's order, else by first appearance.
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,
}

/// `--resign` and `--adjudicate`: the adjudication of every kind of run (a run's setting,
/// saved with it).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct AdjudicationFlags {
    /// Resign adjudication (default off): movecount=N,score=CP[,twosided=true].
    ///
    /// As cutechess-cli and fastchess: a side loses once its engine reported a score of -CP or
    /// worse for N moves of its own in a row (with twosided=true, the opponent's +CP or better
    /// over the same moves too); mate scores count, moves without a score break the run. One
    /// word, comma-separated, or one quoted string with spaces.
    #[arg(long, value_name = "movecount=N,score=CP", value_parser = parse_resign)]
    pub resign: Option<bt_arena::game::ResignRule>,
    /// Proof adjudication (default off): proof=PLIES[,nodes=N].
    ///
    /// After every move, end the game when the rules prove that the side to move wins, or is
    /// lost, within PLIES plies (an exact search of at most N nodes a move, default 20000; past
    /// it the game goes on). One word, comma-separated, or one quoted string with spaces.
    #[arg(long, value_name = "proof=PLIES[,nodes=N]", value_parser = parse_proof)]
    pub adjudicate: Option<bt_arena::game::ProofRule>,
}

impl AdjudicationFlags {
    /// The rules given, over those of `base` (a config file's).
    pub fn over(&self, base: bt_arena::game::Adjudication) -> bt_arena::game::Adjudication {
        bt_arena::game::Adjudication {
            resign: self.resign.or(base.resign),
            proof: self.adjudicate.or(base.proof),
        }
    }
}

/// A `--resign` rule, with the error of its parser.
pub fn parse_resign(text: &str) -> Result<bt_arena::game::ResignRule, String> {
    text.parse().map_err(|e| format!("{e}"))
}

/// An `--adjudicate` or `--label` rule, with the error of its parser.
pub fn parse_proof(text: &str) -> Result<bt_arena::game::ProofRule, String> {
    text.parse().map_err(|e| format!("{e}"))
}
