//! The limits of a search, as sent with `go`.

use super::{Protocol, ProtocolError, parse_number};
use crate::rules::Color;
use std::fmt::Write as _;

/// The limits of a search, as sent with `go`. Every field is optional; a `go` with none of
/// them searches until `stop` like `infinite`. Times are milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoLimits {
    /// White's remaining clock time in ms (`p1time` / `wtime`).
    pub white_time_ms: Option<u64>,
    /// Black's remaining clock time in ms (`p2time` / `btime`).
    pub black_time_ms: Option<u64>,
    /// White's increment per move in ms (`p1inc` / `winc`).
    pub white_inc_ms: Option<u64>,
    /// Black's increment per move in ms (`p2inc` / `binc`).
    pub black_inc_ms: Option<u64>,
    /// Moves until the next time control (`movestogo`); none means sudden death.
    pub moves_to_go: Option<u32>,
    /// Search exactly this long, in ms (`movetime`).
    pub movetime_ms: Option<u64>,
    /// Search to this depth in plies (`depth`).
    pub depth: Option<u32>,
    /// Search about this many nodes (`nodes`).
    pub nodes: Option<u64>,
    /// Search until `stop` (`infinite`); `bestmove` is only sent after `stop`.
    pub infinite: bool,
}

impl GoLimits {
    /// Limits of a fixed time per move, in ms.
    pub fn movetime(ms: u64) -> GoLimits {
        GoLimits {
            movetime_ms: Some(ms),
            ..GoLimits::default()
        }
    }

    /// Limits of a fixed depth in plies.
    pub fn depth(plies: u32) -> GoLimits {
        GoLimits {
            depth: Some(plies),
            ..GoLimits::default()
        }
    }

    /// Limits of a node count.
    pub fn nodes(nodes: u64) -> GoLimits {
        GoLimits {
            nodes: Some(nodes),
            ..GoLimits::default()
        }
    }

    /// Clock limits: each side's remaining time and increment, in ms.
    pub fn clock(white_ms: u64, black_ms: u64, white_inc_ms: u64, black_inc_ms: u64) -> GoLimits {
        GoLimits {
            white_time_ms: Some(white_ms),
            black_time_ms: Some(black_ms),
            white_inc_ms: Some(white_inc_ms),
            black_inc_ms: Some(black_inc_ms),
            ..GoLimits::default()
        }
    }

    /// The remaining clock time of `side` in ms, if a clock was sent.
    pub fn time_ms(&self, side: Color) -> Option<u64> {
        match side {
            Color::White => self.white_time_ms,
            Color::Black => self.black_time_ms,
        }
    }

    /// The increment of `side` in ms, if one was sent.
    pub fn inc_ms(&self, side: Color) -> Option<u64> {
        match side {
            Color::White => self.white_inc_ms,
            Color::Black => self.black_inc_ms,
        }
    }

    /// The numeric limits with their keywords in `protocol`, in the order they are written.
    fn numeric_fields(&self, protocol: Protocol) -> [(&'static str, Option<u64>); 8] {
        let [wtime, btime, winc, binc] = protocol.clock_keys();
        [
            (wtime, self.white_time_ms),
            (btime, self.black_time_ms),
            (winc, self.white_inc_ms),
            (binc, self.black_inc_ms),
            ("movestogo", self.moves_to_go.map(u64::from)),
            ("movetime", self.movetime_ms),
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
        ]
    }

    /// Writes ` key value` for each limit set, then ` infinite` when set.
    pub(crate) fn write_args(&self, protocol: Protocol, out: &mut String) {
        for (key, value) in self.numeric_fields(protocol) {
            if let Some(value) = value {
                let _ = write!(out, " {key} {value}");
            }
        }
        if self.infinite {
            out.push_str(" infinite");
        }
    }

    /// Reads `go` arguments in either protocol's spelling.
    pub(super) fn parse_args<'a>(
        mut tokens: impl Iterator<Item = &'a str>,
    ) -> Result<GoLimits, ProtocolError> {
        let mut limits = GoLimits::default();
        while let Some(key) = tokens.next() {
            if key == "infinite" {
                limits.infinite = true;
                continue;
            }
            let value = tokens.next();
            match key {
                "p1time" | "wtime" => limits.white_time_ms = Some(parse_number(key, value)?),
                "p2time" | "btime" => limits.black_time_ms = Some(parse_number(key, value)?),
                "p1inc" | "winc" => limits.white_inc_ms = Some(parse_number(key, value)?),
                "p2inc" | "binc" => limits.black_inc_ms = Some(parse_number(key, value)?),
                "movestogo" => limits.moves_to_go = Some(parse_number(key, value)?),
                "movetime" => limits.movetime_ms = Some(parse_number(key, value)?),
                "depth" => limits.depth = Some(parse_number(key, value)?),
                "nodes" => limits.nodes = Some(parse_number(key, value)?),
                _ => {
                    return Err(ProtocolError::Unexpected {
                        context: "go",
                        token: key.to_string(),
                    });
                }
            }
        }
        Ok(limits)
    }
}
