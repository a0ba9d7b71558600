//! Tournaments: what is theirs alone, on the one session ([`crate::session`]) that sets up,
//! plays and finishes every kind of run: the config, round-robin and gauntlet game pairs, the
//! SPRT that stops them, and the report.
//!
//! For users (`docs/guide/tournaments.md`, `docs/guide/sprt.md`, `docs/guide/cluster.md`):
//! engines play game pairs from a book, every result is kept as it finishes, a run resumes
//! exactly, and shards of one run merge to the result of one machine.
//!
//! Data flows one way: config → session → schedule → arena → records (see
//! [`crate::records`]) → report ([`crate::report`]).
//!
//! * [`config`]: a tournament's settings, saved as config.json;
//! * [`pairs`]: its game pairs as the arena's schedule ([`crate::arena::Schedule`]), with the
//!   SPRT that stops it;
//! * [`kind`]: the tournament as a kind of run on the one session ([`crate::session`]), and
//!   its report at the end;
//! * [`live`]: its report while it plays;
//! * [`schedule`]: the book's order of a tournament's pairs;

//! * [`shard`]: one tournament over many machines and its shared SPRT.
//!
//! Reading a run (its games, its verdict, the merge of its shards) is [`crate::run`]'s, below
//! this module.

pub mod config;
pub mod kind;
pub mod live;
pub mod pairs;
pub mod schedule;
pub mod shard;
mod tally;

pub use config::{ConfigError, Format, OpeningOrder, OpeningsSpec, SeedOrigin, TournamentConfig};
pub use kind::{Tournament, TournamentReport};
pub use shard::Shard;
