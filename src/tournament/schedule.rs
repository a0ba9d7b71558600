//! The order of a tournament's openings: game pair p (from 1) plays the opening numbered
//! `(p - 1) mod len` of the book's order (sequential, or a seeded shuffle), both games of the
//! pair from it with colours swapped. Who plays whom in each pair is the run's [`Plan`]
//! ([`crate::run::settings`]), computed from the config alone, so a resumed run or a shard
//! rebuilds the same schedule.
//!
//! [`Plan`]: crate::run::settings::Plan

pub use crate::openings::spec::opening_sequence;
pub use crate::run::settings::pairings;
