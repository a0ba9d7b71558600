//! Getting a tournament's engines ready before any game: the arena's preparation
//! ([`crate::arena::prepare`]) of the tournament's engines, with its settings, recorded in
//! the session.

use super::TournamentConfig;
pub use super::config::Session;
pub use crate::arena::prepare::{
    Preparation, PrepareError, Prepared, SCALED_CLOCK_FLOOR_MS, build_engine, build_log_name,
};
use crate::engine::build::BuildCache;
use std::sync::atomic::AtomicBool;

/// Resolves the revisions of the engines of `config` built from source (a shard joining a
/// run adopts the commits its identity holds), as [`crate::arena::prepare::resolve_sources`].
///
/// # Errors
/// [`PrepareError::Source`] for a revision that cannot be resolved.
pub fn resolve_sources(config: &mut TournamentConfig) -> Result<Vec<String>, PrepareError> {
    let joining = config.shard.map(|_| config.out.clone());
    crate::arena::prepare::resolve_sources(&mut config.engines, joining.as_deref())
}

/// Builds, benches and checks the engines of `config` and scales their clocks
/// ([`crate::arena::prepare::prepare`]), recording what it learnt in `config.session`, with
/// where the engines given by a bare name were found.
///
/// # Errors
/// The first [`PrepareError`], before any game.
pub fn prepare(
    config: &mut TournamentConfig,
    cache: Option<&BuildCache>,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<(), PrepareError> {
    let preparation = Preparation {
        results_dir: config.results_dir(),
        concurrency: config.concurrency,
        scale_tc: config.scale_tc,
    };
    let prepared =
        crate::arena::prepare::prepare(&mut config.engines, &preparation, cache, stop, say)?;
    config.session.builds = prepared.builds;
    config.session.clock_scale = prepared.clock_scale;
    config.session.located = config
        .engines
        .iter()
        .filter(|engine| engine.source.is_none())
        .map(|engine| (engine, crate::engine::locate::locate(&engine.cmd)))
        .filter(|(_, located)| located.was_looked_up())
        .map(|(engine, located)| (engine.name.clone(), located.to_string()))
        .collect();
    Ok(())
}
