//! Tournaments: configuration, the engines made ready before any game ([`prepare`]: built
//! from source, benched, clocks scaled), the schedule of game pairs, and the runner that plays
//! the schedule (each game by [`crate::game`]) and keeps every result safe.
//!
//! For users (`docs/guide/tournaments.md`, `docs/guide/sprt.md`, `docs/guide/cluster.md`):
//! engines play game pairs from a book, every result is kept as it finishes, a run resumes
//! exactly, and shards of one run merge to the result of one machine.
//!
//! Data flows one way: config → schedule → games → records (see [`crate::records`]) → report ([`crate::report`]).
//!
//! * [`config`]: a tournament's settings, saved as config.json;
//! * [`identity`]: a tournament's settings as a run's identity knows them (the identity is
//!   decided and joined in [`crate::run::identity`]);
//! * [`prepare`]: the engines made ready before any game (built from source, benched, clocks
//!   scaled);
//! * [`schedule`]: every game of a tournament, fixed by its config and seed;
//! * [`resume`]: what `--resume` continues and the settings a resumed session may change;
//! * [`runner`]: the schedule of game pairs on the arena ([`crate::arena`]), resume and the
//!   SPRT that stops it;
//! * [`shard`]: one tournament over many machines and its shared SPRT.
//!
//! Reading a run (its games, its verdict, the merge of its shards) is [`crate::run`]'s, below
//! this module.

pub mod config;
pub mod identity;
pub mod prepare;
pub mod resume;
pub mod runner;
pub mod schedule;
pub mod shard;

pub use config::{ConfigError, Format, OpeningOrder, OpeningsSpec, SeedOrigin, TournamentConfig};
pub use runner::{Finish, GivenUp, NotPlayed, Plan, RunError, RunReport, run, saved_config};
pub use shard::Shard;
