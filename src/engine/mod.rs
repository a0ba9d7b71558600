//! Engines: the protocol spoken with them, the engine-side command loop for bundled engines,
//! and (for the runner) engine processes.
//!
//! - [`protocol`]: every message of UGI and UCI as applied to Breakthrough, both directions.
//! - [`server`]: the command loop a bundled engine runs ([`server::Brain`], [`server::serve`]).

pub mod protocol;
pub mod server;
