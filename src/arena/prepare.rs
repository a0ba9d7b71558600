//! Getting a run's engines ready before any game (a tournament's, a tune's, a datagen's: the
//! run's kind gives its engines and settings), in two steps:
//!
//! 1. [`resolve_sources`], when the run is set up: each engine built from source gets its
//!    commit (a shard joining a run adopts the one the run's identity holds; a saved commit
//!    is never resolved again) and its name `NAME@SHORTHASH`; two engines that are one build
//!    are warned about.
//! 2. [`prepare`], once the config is final: each engine built from source is built (or
//!    found in the build cache, see [`crate::engine::build`]), its build log copied into the
//!    results directory; engines with a signature to give or check are benched (see
//!    [`crate::engine::bench`]): a source-built engine's first bench records its signature in
//!    the config, every later session and shard must match it, as must an engine pinned with
//!    `bench=N`; and with `--scale-tc` the base (last) engine's bench, run as many times at
//!    once as games are played at once, gives the factor both engines' clocks are multiplied
//!    by ([`ClockScale`], recorded in run.json per session and shard).
//!
//! Any failure stops the run before its first game; so does a signal to bt-arena (SIGINT,
//! SIGTERM, SIGHUP: the stop flag given to [`prepare`]), which stops the build or bench in
//! progress with its process group ([`PrepareError::is_interrupted`]).

use crate::engine::EngineDescription;
use crate::engine::bench::{BenchError, BenchRun, run_bench};
use crate::engine::build::{BuildCache, BuildError};
use crate::engine::source::SourceError;
use crate::records::provenance::{ClockScale, EngineProvenance, significant};
use crate::run_dir::RunDir;
use crate::run_dir::identity::RunIdentity;
use crate::time_control::TimeControl;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

pub use crate::run_dir::build_log_name;

/// Why the engines could not be made ready. Each names the engine.
#[derive(Debug)]
pub enum PrepareError {
    /// Its revision cannot be resolved.
    Source {
        /// The engine (its name before the commit is known).
        engine: String,
        /// Why.
        error: SourceError,
    },
    /// Its build failed (or the cache cannot be used); a failed build's log named in the
    /// error is its copy in the results directory.
    Build {
        /// The engine.
        engine: String,
        /// Why.
        error: Box<BuildError>,
    },
    /// The build left no executable at `bin=`.
    MissingExecutable {
        /// The engine.
        engine: String,
        /// Where it was looked for.
        path: PathBuf,
        /// The commit.
        commit: String,
    },
    /// Its bench failed.
    Bench {
        /// The engine.
        engine: String,
        /// Why.
        error: BenchError,
    },
    /// Its bench signature is not the expected one.
    Signature {
        /// The engine.
        engine: String,
        /// The node count it printed.
        got: u64,
        /// The node count expected.
        expected: u64,
    },
    /// `--scale-tc` with a base engine (the last) that has no bench to measure this
    /// machine's speed with.
    NoBenchToScale {
        /// The base engine.
        engine: String,
    },
    /// `--scale-tc` with a base engine whose bench reported a speed of 0 nps.
    ZeroSpeed {
        /// The base engine.
        engine: String,
    },
    /// `--scale-tc` would give an engine a clock below [`SCALED_CLOCK_FLOOR_MS`]: the
    /// reference speed given does not fit this machine (a bad command line).
    ScaledBelowFloor {
        /// The scaling measured.
        scale: Box<ClockScale>,
        /// The engine.
        engine: String,
        /// Its limit as given (unscaled).
        limit: TimeControl,
        /// The scaled clock, e.g. `a base of 0.172 ms and an increment of 0.00172 ms`.
        scaled: String,
    },
    /// A results file cannot be written.
    Io {
        /// The path.
        path: PathBuf,
        /// The operating system's reason.
        error: std::io::Error,
    },
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrepareError::Source { engine, error } => write!(f, "engine '{engine}': {error}"),
            PrepareError::Build { engine, error } => write!(f, "engine '{engine}': {error}"),
            PrepareError::MissingExecutable {
                engine,
                path,
                commit,
            } => write!(
                f,
                "engine '{engine}': the build of commit {commit} left no executable at {} \
                 (check bin=)",
                path.display()
            ),
            PrepareError::Bench { engine, error } => write!(f, "engine '{engine}': {error}"),
            PrepareError::Signature {
                engine,
                got,
                expected,
            } => write!(
                f,
                "engine '{engine}': its bench counts {got} nodes, not the {expected} expected \
                 (bench={expected}, given or recorded in config.json when the run started): this \
                 build does not search as expected (another commit or compiler, a miscompiled or \
                 nondeterministic build), so it does not play"
            ),
            PrepareError::NoBenchToScale { engine } => write!(
                f,
                "--scale-tc: the base engine '{engine}' (the last) has no bench to measure this \
                 machine's speed with"
            ),
            PrepareError::ZeroSpeed { engine } => write!(
                f,
                "--scale-tc: the base engine '{engine}' reported a speed of 0 nps"
            ),
            PrepareError::ScaledBelowFloor {
                scale,
                engine,
                limit,
                scaled,
            } => write!(
                f,
                "--scale-tc {}: the factor x{} ({} nps / this machine's {} nps) gives engine \
                 '{engine}' ({limit}) {scaled}, below the floor of {SCALED_CLOCK_FLOOR_MS} ms: \
                 give a reference speed nearer this machine's, or a longer clock",
                scale.reference_nps,
                significant(scale.factor, 4),
                scale.reference_nps,
                scale.measured_nps
            ),
            PrepareError::Io { path, error } => {
                write!(f, "cannot write {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for PrepareError {}

impl PrepareError {
    /// Whether the engines were not made ready because bt-arena received SIGINT, SIGTERM or
    /// SIGHUP (a build or a bench was stopped): nothing was played and nothing of the build
    /// kept.
    pub fn is_interrupted(&self) -> bool {
        match self {
            PrepareError::Build { error, .. } => matches!(**error, BuildError::Interrupted { .. }),
            PrepareError::Bench { error, .. } => matches!(error, BenchError::Interrupted { .. }),
            _ => false,
        }
    }
}

/// Resolves the revision of every engine built from source whose commit is not known yet
/// (see the module documentation), names each such engine `NAME@SHORTHASH`, and returns the
/// warnings to show: engines that are one build (same commit and build command), and names
/// that had to take their revision to stay apart (`NAME@SHORTHASH (REV)`).
///
/// # Errors
/// [`PrepareError::Source`] for a revision that cannot be resolved (no such revision, not a
/// repository, a dirty work tree, no git).
pub fn resolve_sources(
    engines: &mut [EngineDescription],
    joining: Option<&Path>,
) -> Result<Vec<String>, PrepareError> {
    if let Some(run) = joining {
        adopt_from_run(engines, run);
    }
    let mut named = Vec::new();
    for (index, engine) in engines.iter_mut().enumerate() {
        let resolved = engine
            .resolve_source()
            .map_err(|error| PrepareError::Source {
                engine: engine.name.clone(),
                error,
            })?;
        if resolved {
            named.push(index);
        }
    }
    let mut warnings = Vec::new();
    for (i, a) in engines.iter().enumerate() {
        for b in &engines[i + 1..] {
            if let (Some(x), Some(y)) = (&a.source, &b.source)
                && x.commit == y.commit
                && x.build == y.build
            {
                warnings.push(format!(
                    "engines '{}' and '{}' are one build (commit {}, build {}): they play as the \
                     same engine, so the result measures nothing but noise{}",
                    a.name,
                    b.name,
                    x.commit.as_deref().unwrap_or("?"),
                    x.build
                        .as_deref()
                        .map_or_else(|| "none".to_string(), |b| format!("`{b}`")),
                    if a.args != b.args || a.options != b.options {
                        " (unless their arguments or options make them differ)"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    // Names made alike by one commit (rev=HEAD and rev=main on the same commit) take their
    // revision to stay apart; names given alike stay so, and validation names them.
    let twins: Vec<usize> = named
        .iter()
        .copied()
        .filter(|&index| {
            let name = &engines[index].name;
            engines.iter().filter(|e| &e.name == name).count() > 1
        })
        .collect();
    for index in twins {
        {
            let engine = &mut engines[index];
            let rev = engine
                .source
                .as_ref()
                .map(|s| s.rev.clone())
                .unwrap_or_default();
            engine.name = format!("{} ({rev})", engine.name);
        }
    }
    Ok(warnings)
}

/// A shard or worker joining a run takes the commits (and names and signatures) the run's
/// identity (`RUN/identity.json`, written by the first to start) holds for engines with the same revision,
/// build command and executable: `main` means the same commit on every shard, however late it
/// starts.
fn adopt_from_run(engines: &mut [EngineDescription], run: &Path) {
    let Ok(Some(identity)) = RunIdentity::read(&RunDir::new(run)) else {
        return;
    };
    // A tournament's or datagen run's `engines`, a tune's one `engine`.
    let settings = &identity.settings;
    let saved = match settings.get("engines") {
        Some(engines) => serde_json::from_value::<Vec<EngineDescription>>(engines.clone()),
        None => serde_json::from_value::<EngineDescription>(settings["engine"].clone())
            .map(|engine| vec![engine]),
    };
    let Ok(saved) = saved else {
        return;
    };
    for (ours, theirs) in engines.iter_mut().zip(&saved) {
        let (Some(our_source), Some(their_source)) = (ours.source.as_mut(), &theirs.source) else {
            continue;
        };
        if our_source.commit.is_some()
            || their_source.commit.is_none()
            || our_source.rev != their_source.rev
            || our_source.build != their_source.build
            || ours.cmd != theirs.cmd
        {
            continue;
        }
        our_source.commit = their_source.commit.clone();
        ours.name = if theirs.name.starts_with(&format!("{}@", ours.name)) {
            theirs.name.clone()
        } else {
            our_source.name_at_commit(&ours.name)
        };
        ours.bench = ours.bench.or(theirs.bench);
    }
}

/// What a run's settings ask of its engines' preparation.
#[derive(Clone, Debug, Default)]
pub struct Preparation {
    /// The directory this process writes (builds' logs are copied into its `builds/`).
    pub results_dir: PathBuf,
    /// Games played at once: the base engine's bench runs as many copies at once with
    /// `--scale-tc`.
    pub concurrency: usize,
    /// `--scale-tc REFERENCE_NPS`: scale every engine's clock by this over the base (last)
    /// engine's measured bench speed, nodes per second.
    pub scale_tc: Option<u64>,
}

/// What preparing the engines learnt: each built or benched engine's provenance, by name,
/// and the clock scaling measured with `--scale-tc`.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    /// Provenance of each engine built from source or benched.
    pub builds: BTreeMap<String, EngineProvenance>,
    /// The clock scaling, with `--scale-tc`.
    pub clock_scale: Option<ClockScale>,
}

/// Builds, benches and checks `engines` and scales their clocks as `preparation` asks (see
/// the module documentation), recording the signatures measured for the first time in the
/// engines' `bench` and the scaling in their `clock_scale`. `say` is told each step (one
/// line each).
///
/// # Errors
/// The first [`PrepareError`], before any game.
pub fn prepare(
    engines: &mut [EngineDescription],
    preparation: &Preparation,
    cache: Option<&BuildCache>,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<Prepared, PrepareError> {
    let run = RunDir::new(&preparation.results_dir);
    let base = engines.len().saturating_sub(1);
    let scale_base = preparation.scale_tc.map(|reference| (base, reference));
    let concurrency = preparation.concurrency.max(1);
    let mut builds = BTreeMap::new();
    let mut measured_base = None;
    for (index, engine) in engines.iter_mut().enumerate() {
        let mut provenance = EngineProvenance::of(engine).unwrap_or_default();
        if engine.source.is_some() {
            let Some(cache) = cache else {
                return Err(PrepareError::Build {
                    engine: engine.name.clone(),
                    error: Box::new(BuildError::NoCacheDir),
                });
            };
            let (cached, seconds) = build_engine(engine, cache, Some(&run), stop, say)?;
            provenance.cached = Some(cached);
            provenance.build_seconds = Some(seconds);
        }
        let scaling = scale_base.is_some_and(|(base, _)| base == index);
        if engine.source.is_some() || engine.bench.is_some() || scaling {
            let copies = if scaling { concurrency } else { 1 };
            match bench_engine(engine, copies, !scaling, stop, say)? {
                Some(run) => {
                    provenance.bench = engine.bench;
                    provenance.bench_nps = Some(run.nps);
                    if scaling {
                        measured_base = Some(run);
                    }
                }
                None if scaling => {
                    return Err(PrepareError::NoBenchToScale {
                        engine: engine.name.clone(),
                    });
                }
                None => {}
            }
        }
        if engine.source.is_some() || engine.bench.is_some() {
            builds.insert(engine.name.clone(), provenance);
        }
    }
    let mut prepared = Prepared {
        builds,
        clock_scale: None,
    };
    if let (Some((base, reference)), Some(run)) = (scale_base, measured_base) {
        if run.nps == 0 {
            return Err(PrepareError::ZeroSpeed {
                engine: engines[base].name.clone(),
            });
        }
        let factor = reference as f64 / run.nps as f64;
        let scale = ClockScale {
            reference_nps: reference,
            measured_nps: run.nps,
            benches: run.copies.len(),
            engine: engines[base].name.clone(),
            factor,
        };
        for engine in engines.iter() {
            if let Some(scaled) = below_floor(engine.limit, factor) {
                return Err(PrepareError::ScaledBelowFloor {
                    scale: Box::new(scale),
                    engine: engine.name.clone(),
                    limit: engine.limit,
                    scaled,
                });
            }
        }
        for engine in engines.iter_mut() {
            engine.clock_scale = Some(factor);
        }
        say(format!("Time control scaled {scale}"));
        prepared.clock_scale = Some(scale);
    }
    Ok(prepared)
}

/// The shortest clock `--scale-tc` may give, ms: of a clock's base, of its increment when it
/// has one, and of a move time. Below it a game is decided by the clock, not by the engines
/// (and whole milliseconds would round it to 0).
pub const SCALED_CLOCK_FLOOR_MS: f64 = 1.0;

/// What `limit` scaled by `factor` gives when some of it falls below
/// [`SCALED_CLOCK_FLOOR_MS`] (e.g. `a base of 0.172 ms and an increment of 0.00172 ms`);
/// `None` when it does not, and for depth and node limits, which are not scaled.
fn below_floor(limit: TimeControl, factor: f64) -> Option<String> {
    let ms = |ms: u64| ms as f64 * factor;
    let text = |ms: f64| format!("{} ms", significant(ms, 3));
    let (parts, low) = match limit {
        TimeControl::Clock {
            base_ms,
            increment_ms,
            ..
        } => {
            let (base, increment) = (ms(base_ms), ms(increment_ms));
            let low = base < SCALED_CLOCK_FLOOR_MS
                || (increment_ms > 0 && increment < SCALED_CLOCK_FLOOR_MS);
            let mut parts = format!("a base of {}", text(base));
            if increment_ms > 0 {
                parts.push_str(&format!(" and an increment of {}", text(increment)));
            }
            (parts, low)
        }
        TimeControl::MoveTime(move_ms) => {
            let scaled = ms(move_ms);
            (
                format!("a move time of {}", text(scaled)),
                scaled < SCALED_CLOCK_FLOOR_MS,
            )
        }
        TimeControl::CodinGame { first_ms, turn_ms } => {
            let (first, turn) = (ms(first_ms), ms(turn_ms));
            (
                format!("turns of {} and {}", text(first), text(turn)),
                first.min(turn) < SCALED_CLOCK_FLOOR_MS,
            )
        }
        TimeControl::Depth(_) | TimeControl::Nodes(_) => return None,
    };
    low.then_some(parts)
}

/// Builds `engine` (or finds its build in `cache`), copies the build log into the logs of
/// `run` ([`RunDir::build_log`]) when given, points the engine at its checkout, and returns whether the
/// build was cached and how long it took when made. `say` is told the outcome.
///
/// # Errors
/// [`PrepareError::Build`] (the error of a failed build names the log's copy in `run`, or
/// the cache's log without `run`), [`PrepareError::MissingExecutable`], or
/// [`PrepareError::Io`] when the log cannot be copied.
///
/// # Panics
/// For an engine without a source, or whose source is not resolved yet.
pub fn build_engine(
    engine: &mut EngineDescription,
    cache: &BuildCache,
    run: Option<&RunDir>,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<(bool, f64), PrepareError> {
    let name = engine.name.clone();
    let source = engine
        .source
        .clone()
        .expect("build_engine is called for engines built from source");
    let commit = source.commit.clone().expect("the source is resolved");
    let io = |path: &Path, error| PrepareError::Io {
        path: path.to_path_buf(),
        error,
    };
    if let Some(run) = run {
        std::fs::create_dir_all(run.logs()).map_err(|e| io(&run.logs(), e))?;
    }
    let copy = run.map(|run| run.build_log(&name));
    let started = Instant::now();
    let waiting = |holder: &str| {
        format!(
            "Engine {name}: waiting for the build of commit {commit} that another process is \
             making ({holder})"
        )
    };
    let mut built = cache.build_until(&source, |holder| say(waiting(holder)), stop);
    // A cached build whose executable was removed since (a tidied checkout): nothing was
    // built, so "the build left no executable" would be wrong. Built again, once.
    if let Ok(found) = &built
        && found.cached
        && !found.checkout.join(&engine.cmd).is_file()
    {
        say(format!(
            "Engine {name}: the cached executable {} of commit {commit} is gone; building it \
             again",
            found.checkout.join(&engine.cmd).display()
        ));
        built = cache.clone().rebuilding(true).build_until(
            &source,
            |holder| say(waiting(holder)),
            stop,
        );
    }
    let build = match built {
        Ok(build) => build,
        Err(BuildError::Failed {
            command,
            commit,
            status,
            log,
            tail,
        }) => {
            // The whole log, kept with the run.
            let log = match copy {
                Some(copy) => {
                    std::fs::copy(&log, &copy).map_err(|e| io(&copy, e))?;
                    copy
                }
                None => log,
            };
            return Err(PrepareError::Build {
                engine: name,
                error: Box::new(BuildError::Failed {
                    command,
                    commit,
                    status,
                    log,
                    tail,
                }),
            });
        }
        Err(error) => {
            return Err(PrepareError::Build {
                engine: name,
                error: Box::new(error),
            });
        }
    };
    let log = match copy {
        Some(copy) if build.log.exists() => {
            std::fs::copy(&build.log, &copy).map_err(|e| io(&copy, e))?;
            copy
        }
        _ => build.log.clone(),
    };
    let exe = build.checkout.join(&engine.cmd);
    if !exe.is_file() {
        return Err(PrepareError::MissingExecutable {
            engine: name,
            path: exe,
            commit,
        });
    }
    let command = source
        .build
        .as_deref()
        .map_or_else(|| "no build command".to_string(), |b| format!("`{b}`"));
    if build.cached {
        say(format!(
            "Engine {name}: commit {commit} ({command}) found in the build cache ({}; built in \
             {:.1} s)",
            build.checkout.display(),
            build.record.seconds
        ));
    } else {
        say(format!(
            "Engine {name}: commit {commit} built with {command} in {:.1} s (log: {})",
            started.elapsed().as_secs_f64(),
            log.display()
        ));
    }
    engine.checkout = Some(build.checkout.clone());
    Ok((build.cached, build.record.seconds))
}

/// Runs `engine`'s bench (`copies` at once) and checks or records its signature. Returns
/// `None` when the engine has no bench and `optional` (a source-built engine without a
/// signature to check and not benched for its speed): a warning, its build has no signature.
fn bench_engine(
    engine: &mut EngineDescription,
    copies: usize,
    optional: bool,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<Option<BenchRun>, PrepareError> {
    let name = engine.name.clone();
    let run = match run_bench(&engine.launch(), copies, stop) {
        Ok(run) => run,
        Err(BenchError::NoBench { .. }) if engine.bench.is_none() => {
            if optional {
                say(format!(
                    "warning: engine {name} has no bench (`ENGINE bench` printing `N nodes M \
                     nps`): its build has no signature, so a miscompiled build on another \
                     machine would go unnoticed"
                ));
            }
            return Ok(None);
        }
        Err(error) => {
            return Err(PrepareError::Bench {
                engine: name,
                error,
            });
        }
    };
    match engine.bench {
        Some(expected) if expected != run.nodes => {
            return Err(PrepareError::Signature {
                engine: name,
                got: run.nodes,
                expected,
            });
        }
        Some(_) => say(format!(
            "Engine {name}: bench {run}, the signature expected"
        )),
        None => {
            engine.bench = Some(run.nodes);
            say(format!("Engine {name}: bench {run} (signature recorded)"));
        }
    }
    Ok(Some(run))
}
