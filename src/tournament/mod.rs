//! Tournaments: configuration, the schedule of game pairs, the game loop with clocks and
//! adjudication, and the runner that plays the schedule and keeps every result safe.
//!
//! Data flows one way: config → schedule → games → results (see [`crate::results`]) → report.

pub mod config;
pub mod game;
pub mod runner;
pub mod schedule;

pub use config::{
    ConfigError, EngineKeys, EngineOptions, EngineSpec, Format, OpeningOrder, OpeningsSpec,
    TimeControl, TournamentConfig,
};
pub use runner::{Finish, GivenUp, NotPlayed, Plan, RunError, RunReport, run, saved_config};
