//! `bt-arena tune`: SPSA tuning of engine options, played by the same engines, games and
//! results files as tournaments.
//!
//! - [`params`]: the parameters, from OpenBench's or fishtest's lines, checked against the
//!   engine's options;
//! - [`spsa`]: the gain schedule, one iteration's perturbation and the update (fishtest's and
//!   OpenBench's SPSA, cited there);
//! - [`draw`]: the random draws, each keyed by (seed, iteration), never one stream.

pub mod config;
pub mod draw;
pub mod iterations;
pub mod params;
pub mod report;
pub mod runner;
pub mod spsa;

pub use config::TuneConfig;
pub use params::{Origin, ParamKind, ParamsError, TuneParam};
pub use runner::{TuneError, TuneFinish, TunePlan, TuneReport, run};
pub use spsa::{Perturbation, SpsaSettings};
