//! A run's identity, decided once when the run starts and joined by every shard: one path for
//! tournaments and tunes ([`Identified`]), with one error ([`IdentityError`]).
//!
//! A run on one machine is identified by its own file (config.json, tune.json), to which a
//! tournament adds a run id. A sharded run's identity is `RUN/identity.json`
//! ([`RunIdentity`]), created by the first shard to start, atomically and exclusively, with
//! the seed drawn for it; every later shard (and every resume) joins it only if its settings
//! match, comparing parsed values ([`Identified::identity`]), and takes the run's seed when
//! it was given none. Shards started at the same instant without `--seed` thus play with one
//! seed, and a shard started with other settings is refused before it plays, naming the
//! field. Sharded tournaments begun before identities existed (shard directories, no
//! identity.json) are joined by comparing the shards' saved settings
//! ([`Identified::saved_shard`]), and then given an identity.

use super::header::{RunHeader, identity_of};
use crate::records::now_rfc3339;
use crate::run_dir::identity::{Difference, RunIdentity, first_difference, new_run_id};
use crate::run_dir::{RunDir, RunDirError, RunKind, SHARD_PREFIX};
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Environment variable for tests of the race between shards: when set to a path `GATE`, a
/// shard about to create a run's identity writes `GATE.waiting` and waits (up to a minute)
/// until `GATE` exists. A test can so hold a shard between its look for an identity and its
/// creation of one, and start another shard in between. Never set outside tests.
pub const TEST_GATE: &str = "BT_ARENA_TEST_IDENTITY_GATE";

/// Where a run's seed came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedOrigin {
    /// Given (`--seed`, a config file, a saved config): a shard with another seed is another
    /// run.
    Given,
    /// Drawn at random because none was given: a shard joining a run takes the run's.
    Drawn,
}

/// Which kind of run: the file that marks one on one machine, and the words of messages
/// ([`RunTypeInfo`]). A kind of run is one constant of this type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunType(&'static RunTypeInfo);

/// What a [`RunType`] says of its kind.
#[derive(Debug, PartialEq, Eq)]
pub struct RunTypeInfo {
    /// The subcommand that plays it (`tournament`).
    pub command: &'static str,
    /// What messages call it (`run`, `tune`).
    pub noun: &'static str,
    /// The file its settings are saved to, in the directory of each process.
    pub file: &'static str,
    /// How its shards or workers are read back as one, after "or": `join them with bt-arena
    /// merge {run}` (`{run}` stands for the run's directory).
    pub merge: &'static str,
}

impl std::ops::Deref for RunType {
    type Target = RunTypeInfo;
    fn deref(&self) -> &RunTypeInfo {
        self.0
    }
}

impl RunType {
    /// A kind of run described by `info` (a new kind's: `RunType::new(&RunTypeInfo { .. })`).
    pub const fn new(info: &'static RunTypeInfo) -> RunType {
        RunType(info)
    }

    /// `bt-arena tournament`: config.json.
    pub const TOURNAMENT: RunType = RunType(&RunTypeInfo {
        command: "tournament",
        noun: "run",
        file: crate::run_dir::CONFIG_JSON,
        merge: "join them with bt-arena merge {run}",
    });
    /// `bt-arena tune`: tune.json.
    pub const TUNE: RunType = RunType(&RunTypeInfo {
        command: "tune",
        noun: "tune",
        file: crate::run_dir::TUNE_JSON,
        merge: "rewrite its report with --resume {run}",
    });
    /// `bt-arena datagen`: datagen.json.
    pub const DATAGEN: RunType = RunType(&RunTypeInfo {
        command: "datagen",
        noun: "datagen run",
        file: crate::run_dir::DATAGEN_JSON,
        merge: "write its positions with bt-arena datagen convert {run}",
    });

    /// The file that marks a run of this type on one machine in `run`.
    pub fn own_file(self, run: &RunDir) -> PathBuf {
        run.root().join(self.file)
    }

    /// `run`, `tune`, `datagen run`.
    pub fn noun(self) -> &'static str {
        self.noun
    }
}

/// The settings of a run that joins an identity: every kind's config, through the settings
/// all kinds share ([`RunHeader`]).
pub trait Identified: serde::Serialize + Sized {
    /// The type of run.
    const TYPE: RunType;
    /// The settings every kind shares.
    fn header(&self) -> &RunHeader;
    /// The same, to take the run's seed and id.
    fn header_mut(&mut self) -> &mut RunHeader;
    /// The settings that make the games, as JSON with the seed among them: what every shard
    /// of one run must share ([`identity_of`] the config as saved).
    fn identity(&self) -> Value {
        identity_of(
            serde_json::to_value(self).unwrap_or(Value::Null),
            self.header().shard,
        )
    }
    /// The settings saved by the shard in `dir` of a run begun before identities existed, if
    /// it saved any, made comparable with `self` (e.g. a book digest it could not know).
    ///
    /// # Errors
    /// [`IdentityError::ShardConfig`] when they cannot be read.
    fn saved_shard(&self, _dir: &RunDir) -> Result<Option<(PathBuf, Self)>, IdentityError> {
        Ok(None)
    }
}

/// Why a run (a tournament or a tune) cannot start in its directory.
#[derive(Debug)]
pub enum IdentityError {
    /// The run directory or a file in it cannot be read or written.
    RunDir(RunDirError),
    /// A saved config of another shard cannot be read: the kind's own error reading it
    /// (which names the file).
    ShardConfig(Box<dyn std::error::Error + Send + Sync>),
    /// A run on one machine given a directory that holds a sharded run.
    HoldsShards {
        /// The directory.
        run: PathBuf,
        /// The type of the run refused.
        of: RunType,
    },
    /// A worker given a directory that holds another kind of run (what it holds).
    NotWorkers {
        /// The directory.
        run: PathBuf,
        /// What it holds, e.g. `a tune (tune.json)`.
        holds: String,
    },
    /// A run of workers' directory given to a process that is not a worker.
    HoldsWorkers {
        /// The directory.
        run: PathBuf,
    },
    /// A shard given a directory that holds a run on one machine.
    HoldsUnsharded {
        /// The directory.
        run: PathBuf,
        /// The type of the run refused.
        of: RunType,
    },
    /// A shard whose settings differ from the run's identity (or, for a run begun before
    /// identities, from another shard's saved config).
    Differs {
        /// The shard or worker refused (`shard 0/2`, `worker ID`).
        member: String,
        /// The file it was compared with.
        with: PathBuf,
        /// The first field that differs.
        difference: Box<Difference>,
        /// The type of the run.
        of: RunType,
    },
    /// A shard whose saved config belongs to another run than the directory's identity.
    OtherRun {
        /// The shard or worker refused (`shard 0/2`, `worker ID`).
        member: String,
        /// Its run id.
        ours: String,
        /// The run id in identity.json.
        theirs: String,
        /// The identity file.
        with: PathBuf,
    },
}

impl fmt::Display for IdentityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdentityError::RunDir(err) => err.fmt(f),
            IdentityError::ShardConfig(err) => err.fmt(f),
            IdentityError::NotWorkers { run, holds } => write!(
                f,
                "{} holds {holds}: a worker cannot join it; choose another --out",
                run.display()
            ),
            IdentityError::HoldsWorkers { run } => write!(
                f,
                "{} holds a run of workers: join it with the run's flags and --out {0} --worker, \
                 or merge it with bt-arena merge {0}",
                run.display()
            ),
            IdentityError::HoldsShards { run, of } => write!(
                f,
                "{} holds a sharded {}: continue a shard with --resume {0} --shard K/N, or {}",
                run.display(),
                of.noun,
                of.merge.replace("{run}", &run.display().to_string())
            ),
            IdentityError::HoldsUnsharded { run, of } => write!(
                f,
                "{} holds a {} on one machine ({}): a shard cannot join it; choose another --out",
                run.display(),
                of.noun(),
                of.own_file(&RunDir::new(run)).display()
            ),
            IdentityError::Differs {
                member,
                with,
                difference,
                of,
            } => write!(
                f,
                "{member} cannot join the {} in {}: {} was saved with other settings: \
                 {difference}. The shards or workers of one {0} must be started with the same settings; \
                 to start another {0}, choose another --out or remove that {0}'s files from {1}",
                of.noun(),
                run_of(with).display(),
                with.display()
            ),
            IdentityError::OtherRun {
                member,
                ours,
                theirs,
                with,
            } => write!(
                f,
                "{member} belongs to run {ours}, but {} is run {theirs}: its directory was \
                 copied from another run; move it out of {}",
                with.display(),
                run_of(with).display()
            ),
        }
    }
}

impl std::error::Error for IdentityError {}

impl From<RunDirError> for IdentityError {
    fn from(err: RunDirError) -> Self {
        IdentityError::RunDir(err)
    }
}

/// The run directory holding a file of it.
fn run_of(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap_or(file);
    match dir.file_name().and_then(|name| name.to_str()) {
        Some(name) if name.starts_with(SHARD_PREFIX) => dir.parent().unwrap_or(dir).to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// Decides or joins the identity of the run `config` starts or resumes, before anything is
/// written: a run on one machine gets a run id (unless it has one, or its type keeps none)
/// after a check that its directory holds no sharded run; a shard joins the identity of its
/// run directory, creating it if it is the first, and takes the run's run id and, when
/// `seed` was [`SeedOrigin::Drawn`], the run's seed.
///
/// # Errors
/// [`IdentityError`]: a directory holding another kind of run, a shard whose settings differ
/// from the run's (naming the field), a shard of another run, a file that cannot be read or
/// written.
pub fn establish<C: Identified>(config: &mut C, seed: SeedOrigin) -> Result<(), IdentityError> {
    let run = RunDir::new(&config.header().out);
    let shard = match (config.header().shard, config.header().worker.clone()) {
        (Some(shard), _) => shard,
        (None, Some(worker)) => {
            let member = format!("worker {worker}");
            return join_as_member(config, seed, member, &run);
        }
        (None, None) => {
            if !run.worker_dirs()?.is_empty() {
                return Err(IdentityError::HoldsWorkers {
                    run: config.header().out.clone(),
                });
            }
            if !run.shard_dirs()?.is_empty() || run.identity_json().exists() {
                return Err(IdentityError::HoldsShards {
                    run: config.header().out.clone(),
                    of: C::TYPE,
                });
            }
            config.header_mut().run_id.get_or_insert_with(new_run_id);
            return Ok(());
        }
    };
    if !run.worker_dirs()?.is_empty() {
        return Err(IdentityError::HoldsWorkers {
            run: config.header().out.clone(),
        });
    }
    let member = format!("shard {shard}");
    if C::TYPE.own_file(&run).exists() {
        return Err(IdentityError::HoldsUnsharded {
            run: config.header().out.clone(),
            of: C::TYPE,
        });
    }
    let identity = match RunIdentity::read(&run)? {
        Some(identity) => identity,
        None => {
            join_saved_shards(config, seed, &member, &run)?;
            pause_for_tests();
            let created_by = member.clone();
            let mut identity = RunIdentity::new(config.identity(), created_by, now_rfc3339());
            // A run whose identity.json was lost keeps the id its shards saved.
            if let Some(id) = &config.header().run_id {
                identity.run_id.clone_from(id);
            }
            identity.create_or_read(&run)?.0
        }
    };
    join(config, seed, member, &identity, &run)
}

/// A worker joining its run of workers: the run's identity, created by the first worker
/// (as a sharded run's is by its first shard), or joined when its settings match.
fn join_as_member<C: Identified>(
    config: &mut C,
    seed: SeedOrigin,
    member: String,
    run: &RunDir,
) -> Result<(), IdentityError> {
    let holds = match run.kind()? {
        RunKind::NoRun => None,
        RunKind::Workers(dirs) => other_kinds_workers::<C>(&dirs),
        RunKind::Plain => Some(format!(
            "a run on one machine ({})",
            run.config_json().display()
        )),
        RunKind::Shard(_) | RunKind::Sharded(_) => Some("a sharded run".to_string()),
        RunKind::Tune(_) => Some(format!("a tune ({})", run.tune_json().display())),
    };
    // A datagen run's own file, or an identity without worker directories (a sharded run's
    // whose shards have not started).
    let holds = holds.or_else(|| {
        run.datagen_json()
            .exists()
            .then(|| format!("a datagen run ({})", run.datagen_json().display()))
    });
    if let Some(holds) = holds {
        return Err(IdentityError::NotWorkers {
            run: config.header().out.clone(),
            holds,
        });
    }
    let identity = match RunIdentity::read(run)? {
        Some(identity) => identity,
        None => {
            pause_for_tests();
            let identity = RunIdentity::new(config.identity(), member.clone(), now_rfc3339());
            identity.create_or_read(run)?.0
        }
    };
    join(config, seed, member, &identity, run)
}

/// What a run of workers in `dirs` holds when its workers are of another kind than `C`
/// (`a tournament's run of workers (RUN/worker-ID/config.json)`): none of them saved `C`'s
/// settings file and one saved another kind's. `None` when they are `C`'s (or saved
/// nothing yet).
fn other_kinds_workers<C: Identified>(dirs: &[RunDir]) -> Option<String> {
    if dirs.iter().any(|dir| C::TYPE.own_file(dir).exists()) {
        return None;
    }
    [RunType::TOURNAMENT, RunType::TUNE, RunType::DATAGEN]
        .into_iter()
        .filter(|kind| kind.file != C::TYPE.file)
        .find_map(|kind| {
            let file = dirs
                .iter()
                .map(|dir| kind.own_file(dir))
                .find(|f| f.exists())?;
            let noun = match kind.command {
                "tournament" => "tournament",
                _ => kind.noun,
            };
            Some(format!("a {noun}'s run of workers ({})", file.display()))
        })
}

/// The top-level fields left out of a comparison of settings: the seed when it was drawn.
fn ignored(seed: SeedOrigin) -> &'static [&'static str] {
    match seed {
        SeedOrigin::Given => &[],
        SeedOrigin::Drawn => &["seed"],
    }
}

/// Joins `identity`: the settings must match (all but the seed when it was drawn); the run's
/// seed and run id are taken.
fn join<C: Identified>(
    config: &mut C,
    seed: SeedOrigin,
    member: String,
    identity: &RunIdentity,
    run: &RunDir,
) -> Result<(), IdentityError> {
    if let Some(difference) =
        first_difference(&config.identity(), &identity.settings, ignored(seed))
    {
        return Err(IdentityError::Differs {
            member,
            with: run.identity_json(),
            difference: Box::new(difference),
            of: C::TYPE,
        });
    }
    if let Some(seed) = identity.settings["seed"].as_u64() {
        config.header_mut().seed = seed;
    }
    match &config.header().run_id {
        Some(ours) if *ours != identity.run_id => Err(IdentityError::OtherRun {
            member,
            ours: ours.clone(),
            theirs: identity.run_id.clone(),
            with: run.identity_json(),
        }),
        _ => {
            config.header_mut().run_id = Some(identity.run_id.clone());
            Ok(())
        }
    }
}

/// For a run without identity.json (begun before identities existed, or whose file was
/// lost): checks `config` against every shard's saved settings (all but the seed when it was
/// drawn, taking theirs), and takes their run id.
fn join_saved_shards<C: Identified>(
    config: &mut C,
    seed: SeedOrigin,
    member: &str,
    run: &RunDir,
) -> Result<(), IdentityError> {
    for (_, dir) in run.shard_dirs()? {
        let Some((path, theirs)) = config.saved_shard(&dir)? else {
            continue;
        };
        if let Some(difference) =
            first_difference(&config.identity(), &theirs.identity(), ignored(seed))
        {
            return Err(IdentityError::Differs {
                member: member.to_string(),
                with: path,
                difference: Box::new(difference),
                of: C::TYPE,
            });
        }
        config.header_mut().seed = theirs.header().seed;
        if config.header().run_id.is_none() {
            config
                .header_mut()
                .run_id
                .clone_from(&theirs.header().run_id);
        }
    }
    Ok(())
}

/// The pause of [`TEST_GATE`], when it is set.
fn pause_for_tests() {
    let Some(gate) = std::env::var_os(TEST_GATE).map(PathBuf::from) else {
        return;
    };
    let _ = std::fs::write(gate.with_extension("waiting"), b"");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !gate.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}
