//! The engine side of the pipe: what the bundled engines `bt-search` and `bt-random` are made
//! of (the test engine `bt-faulty` speaks through [`crate::protocol`] alone).
//!
//! For users (`docs/guide/engines.md`): bt-search is a real alpha-beta searcher whose bench node
//! count is its build's signature, and bt-random plays a uniformly random legal move.
//!
//! - [`server`]: the UGI/UCI command loop a bundled engine runs ([`server::Brain`],
//!   [`server::serve`]).
//! - [`search`]: the alpha-beta searcher of `bt-search`, also the scorer of the openings
//!   generator.
//! - [`bench`](mod@bench): `bt-search bench`, the searcher's signature (a node count) and speed.
//! - [`codingame`]: `bt-search codingame`, the searcher as a CodinGame bot.

pub mod bench;
pub mod codingame;
pub mod search;
pub mod server;
