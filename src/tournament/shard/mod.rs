//! One tournament spread over many machines: shard `K/N` ([`Shard`]) plays the game pairs `p`
//! of the full schedule with `(p - 1) mod N = K`, writing `RUN/shard-K/` of a run directory
//! `RUN` shared by every shard (NFS on a cluster, a volume in Kubernetes).
//!
//! * [`crate::run_dir`]: the run directory's layout and the [`Shard`] type;
//! * [`crate::run::identity`]: the run's identity, decided by the first shard and joined by
//!   the others;
//! * [`sprt`]: one SPRT over every shard's games, read from the shared directory, and its
//!   verdict recorded once in `RUN/sprt.json`;
//! * [`crate::run::merge`]: the shards joined back into one run, game for game the unsharded
//!   one.
//!
//! The schedule depends only on the config and its seed, so every shard builds the same one
//! and keeps its own pairs: same game ids, rounds, openings and colours as the unsharded run,
//! both games of a pair on one shard.

pub mod sprt;

pub use crate::run_dir::{K8S_INDEX, SLURM_COUNT, SLURM_INDEX, Shard};

/// A config for the tests: engines `new` and `base` (depth 2), 100 rounds of game pairs,
/// seed 7, results in `run`, shard `shard` (`K/N`).
#[cfg(test)]
pub(crate) fn test_config(run: &std::path::Path, shard: &str) -> super::TournamentConfig {
    use super::config::{Format, OpeningsSpec};
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::run::header::RunHeader;
    let engine = |name: &str| {
        EngineKeys::parse(&["cmd=/bin/x", &format!("name={name}")])
            .and_then(|keys| keys.into_description(TimeControl::Depth(2)))
            .unwrap()
    };
    super::TournamentConfig {
        run: RunHeader {
            event: "e".into(),
            rules: crate::rules::Rules::CaptureOnly,
            board: crate::rules::Board::STANDARD,
            openings: OpeningsSpec::default(),
            concurrency: 1,
            seed: 7,
            out: run.to_path_buf(),
            shard: Some(shard.parse().unwrap()),
            worker: None,
            lease_ms: None,
            log: false,
            build_cache: None,
            run_id: None,
            adjudication: Default::default(),
        },
        engines: vec![engine("new"), engine("base")],
        format: Format::RoundRobin,
        rounds: 100,
        games: 2,
        sprt: None,
        pgn_comments: Default::default(),
        scale_tc: None,
        anchor: None,
        unknown: Default::default(),
    }
}
