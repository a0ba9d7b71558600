//! `bt-arena datagen convert`: games files (or run directories, of a sharded run every
//! shard's, of a run of workers every worker's) rewritten as binary records, text lines or
//! one merged games file, with filters, without running any engine.

use super::datagen::FilterFlags;
use anyhow::{Result, anyhow};
use bt_arena::datagen::convert::{self, Sink, Sinks};
use bt_arena::datagen::filters::Filters;
use bt_arena::datagen::formats::games;
use bt_arena::datagen::{DatagenConfig, GAMES_FILE};
use bt_arena::run_dir::RunDir;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena datagen convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Games files (games.dat) or datagen run directories, merged in game-id order.
    ///
    /// A run directory gives its games.dat; a sharded run's directory gives every shard's,
    /// so the positions come out as one machine's run would have written them.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// The file to write.
    #[arg(long, value_name = "FILE", required = true)]
    pub out: PathBuf,
    /// What to write: binary (24-byte records), text or games (one merged games file).
    ///
    /// binary: positions.bin's records (docs/formats/datagen.md); text: `<fen> | <score> |
    /// <result>` lines; games: the games read, as one games file (filters do not apply).
    #[arg(long, value_name = "FORMAT", default_value = "binary",
          value_parser = ["binary", "text", "games"])]
    pub format: String,
    #[command(flatten)]
    pub filters: FilterFlags,
    /// Stop after N positions.
    #[arg(long, value_name = "N")]
    pub positions: Option<u64>,
    /// The seed of --sample's draws (default: the run's, from its datagen.json; else 0).
    ///
    /// Of a run directory, the run's filters, label and --positions are the defaults too;
    /// the flags given override them (--skip-captures and --dedup add to them).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

/// The games files of `input`: itself, every worker's of a run of workers, a run directory's
/// games.dat, or every shard's.
fn games_files(input: &Path) -> Result<Vec<PathBuf>> {
    if !input.is_dir() {
        return Ok(vec![input.to_path_buf()]);
    }
    if let Some(files) = bt_arena::datagen::workers::games_files(input)? {
        return Ok(files);
    }
    let own = input.join(GAMES_FILE);
    if own.exists() {
        return Ok(vec![own]);
    }
    let shards = RunDir::new(input).shard_dirs()?;
    if shards.is_empty() {
        return Err(anyhow!(
            "{}: no {GAMES_FILE}, and no shard directories",
            input.display()
        ));
    }
    Ok(shards
        .iter()
        .map(|(_, dir)| dir.root().join(GAMES_FILE))
        .filter(|file| file.exists())
        .collect())
}

/// The settings of the first run directory among `inputs` (shard 0's when sharded), if any.
fn run_config(inputs: &[PathBuf]) -> Option<DatagenConfig> {
    let dir = inputs.iter().find(|input| input.is_dir())?;
    bt_arena::session::resume::read_saved::<DatagenConfig>(dir)
        .ok()
        .or_else(|| {
            let shards = RunDir::new(dir).shard_dirs().ok()?;
            let first = match shards.first() {
                Some((_, shard)) => shard.clone(),
                None => RunDir::new(dir).worker_dirs().ok()?.into_iter().next()?,
            };
            bt_arena::session::resume::read_saved::<DatagenConfig>(first.root()).ok()
        })
}

/// Runs `bt-arena datagen convert`: a run directory's own filters, label, seed and
/// `--positions` are the defaults, which the flags given override (or add to).
pub fn run(args: &ConvertArgs) -> Result<ExitCode> {
    let base = run_config(&args.inputs)
        .map(|config| config.convert_settings())
        .unwrap_or(convert::Settings {
            filters: Filters::default(),
            seed: 0,
            label: None,
            limit: None,
        });
    let settings = convert::Settings {
        filters: args.filters.filters(base.filters)?,
        seed: args.seed.unwrap_or(base.seed),
        label: args.filters.label.or(base.label),
        limit: args.positions.or(base.limit),
    };
    let mut files = Vec::new();
    for input in &args.inputs {
        files.extend(games_files(input)?);
    }
    let ((rules, board), games) = convert::merged(&files)?;
    let mut sinks = Sinks::default();
    match args.format.as_str() {
        "binary" => sinks.binary = Some(Sink::create(&args.out)?),
        "text" => sinks.text = Some(Sink::create(&args.out)?),
        _ => sinks.games = Some((args.out.clone(), games::create(&args.out, rules, board)?)),
    }
    let summary = convert::convert(games, rules, &settings, &mut sinks)?;
    sinks.finish()?;
    say!("{summary}");
    say!("Written: {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
