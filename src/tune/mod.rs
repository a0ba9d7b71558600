//! `bt-arena tune`: SPSA tuning of engine options, played with the engines, game loop,
//! results files and openings of tournaments.
//!
//! For users (`docs/guide/tuning.md`): SPSA as fishtest and OpenBench do it, repeatable from
//! its seed, resumable after a kill, and spread over machines by shards.
//!
//! - [`params`]: the parameters, from OpenBench's or fishtest's lines, checked against the
//!   engine's options;
//! - [`spsa`]: the gain schedule, one iteration's perturbation and the update (fishtest's and
//!   OpenBench's SPSA, cited there);
//! - [`draw`]: the random draws, each keyed by (seed, iteration), never one stream;
//! - [`iterations`]: tune.csv, a row per finished iteration, and θ rebuilt from it (the order
//!   iterations are applied in);
//! - [`config`]: what defines a tune, saved as tune.json for `--resume`;
//! - [`shard`]: a tune spread over machines sharing one run directory (`--shard K/N`): its
//!   identity, which shard plays which iteration, θ folded over every shard's tune.csv;
//! - [`schedule`]: the iterations as the arena's schedule, overlapping under `--concurrency`
//!   as the lag allows;
//! - [`kind`]: the tune as a kind of run on the one session ([`crate::session`]);
//! - [`report`]: report.html, summary.json and the tuned values as option lines and
//!   OpenBench lines.
//!
//! A tune's run directory holds tune.json, tune.csv, games.csv and games.pgn (the sides named
//! `tune+` and `tune-`), logs/, report.html, summary.json, tuned-options.txt and
//! tuned-params.txt. A sharded tune's directory holds identity.json, a `shard-K/` per shard
//! (tune.json, tune.csv, games.csv, games.pgn, logs/), and the whole tune's report.html,
//! summary.json and tuned values (see [`shard`]).

pub mod config;
pub mod draw;
pub mod iterations;
pub mod kind;
pub mod params;
pub mod report;
pub mod schedule;
pub mod shard;
pub mod spsa;

pub use config::TuneConfig;
pub use kind::{Tune, TuneError, TunePlan, TuneReport};
pub use params::{Origin, ParamKind, ParamsError, TuneParam};
pub use spsa::{Perturbation, SpsaSettings};
