//! The report of a run: what is computed from its games and how it is shown. One thing under
//! one name: the [`Summary`] (standings, per-pair Elo with pentanomial counts and SPRT, faults;
//! `summary.rs`), computed once ([`Summary::compute`], or game by game with
//! [`SummaryBuilder`] as the games are read), and its renderings: text (`text.rs`, the
//! summary's [`Display`](std::fmt::Display), fastchess style), JSON (summary.json, `json.rs`:
//! [`summary_json`], [`write_summary`]) and report.html ([`html`], with the [`series`] over
//! the games and the [`crosstable`]).
//!
//! For users (`docs/guide/results.md`): summary.json, the text report and report.html show one
//! computation of the standings, per-pair Elo, pentanomial counts and SPRT.

pub mod claims;
pub mod crosstable;
mod distribution;
mod faults;
pub mod hosts;
pub mod html;
mod json;
pub mod latency;
pub mod numbers;
pub mod openings;
pub mod series;
mod standings;
mod summary;
mod text;

pub use json::{summary_json, write_summary};
pub use summary::{
    AdjudicationCounts, AnchorError, EloModel, EngineFaults, PairSummary, SelfPlay, Standing,
    Summary, SummaryBuilder,
};
pub use text::interim_lines;
