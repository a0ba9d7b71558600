//! Tournaments: configuration, the engines made ready before any game ([`prepare`]: built
//! from source, benched, clocks scaled), the schedule of game pairs, and the runner that plays
//! the schedule (each game by [`crate::game`]) and keeps every result safe.
//!
//! Data flows one way: config → schedule → games → results (see [`crate::results`]) → report.

pub mod config;
pub mod prepare;
pub mod runner;
pub mod schedule;
pub mod shard;

pub use config::{ConfigError, Format, OpeningOrder, OpeningsSpec, TournamentConfig};
pub use runner::{Finish, GivenUp, NotPlayed, Plan, RunError, RunReport, run, saved_config};
pub use shard::Shard;
