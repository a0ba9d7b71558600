//! bt-arena: an engine tournament and perft testing harness for Breakthrough.
//!
//! The library holds one module per concern; the `bt-arena` binary is a thin
//! command line over it.

pub mod bundled;
pub mod check_engine;
pub mod engine;
pub mod game;
pub mod openings;
pub mod perft_check;
pub mod protocol;
pub mod results;
pub mod rules;
pub mod stats;
pub mod textfile;
pub mod tournament;
