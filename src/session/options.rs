//! What one session of a run is given that the run's saved config does not keep: they may
//! differ between sessions, shards and workers, and a resumed session may change them.

use crate::arena::CpuList;
use crate::engine::build::BuildCache;
use crate::game::ClaimChecks;
use std::time::Instant;

/// One session's own settings.
#[derive(Clone, Debug, Default)]
pub struct SessionOptions {
    /// No new unit starts after this instant (`--max-time`, counted from the start of the
    /// command, builds included).
    pub deadline: Option<Instant>,
    /// Off a terminal, an interim line every this many recorded games (`--rating-interval`,
    /// fastchess's `-ratinginterval`); 0: never.
    pub rating_interval: u64,
    /// How far the engines' mate claims are checked (`--check-claims`).
    pub checks: ClaimChecks,
    /// The CPUs the engines are pinned to (`--affinity`), checked against the concurrency and
    /// the engines' threads; `None`: not pinned.
    pub affinity: Option<CpuList>,
    /// The build cache engines built from source (`src=`) are built in; `None` when no
    /// engine is.
    pub build_cache: Option<BuildCache>,
}
