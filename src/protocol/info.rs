//! Search progress: the `info` line ([`Info`]) and its score ([`Score`]).

use super::{ProtocolError, parse_number};
use std::fmt;

/// A search score, from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (`score cp N`).
    Cp(i32),
    /// A forced win in N moves, or a forced loss when negative (`score mate N`).
    Mate(i32),
}

/// The base of [`Score::value`]'s mate scores.
pub const MATE_VALUE: i32 = 32_000;

/// The longest mate distance [`Score::value`] tells apart, in plies.
pub const MAX_MATE_PLIES: i32 = 1_000;

impl Score {
    /// The score as one number, the mover's view: centipawns as they are; `mate N` (N moves)
    /// as `MATE_VALUE - plies` with plies `2N - 1` for a win (N > 0) and `-(MATE_VALUE -
    /// plies)` with plies `2|N|` for a loss (N ≤ 0), distances capped at [`MAX_MATE_PLIES`]:
    /// a sooner win is higher, a later loss is higher.
    pub fn value(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(moves) if moves > 0 => {
                MATE_VALUE
                    - moves
                        .saturating_mul(2)
                        .saturating_sub(1)
                        .min(MAX_MATE_PLIES)
            }
            Score::Mate(moves) => -(MATE_VALUE - moves.saturating_mul(-2).min(MAX_MATE_PLIES)),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

/// The words of an `info` line that start a field this module reads.
const INFO_KEYS: [&str; 9] = [
    "depth", "seldepth", "multipv", "score", "nodes", "nps", "time", "pv", "string",
];

/// The fields of an `info` line that the harness reads; other fields are skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Search depth in plies.
    pub depth: Option<u32>,
    /// Selective depth in plies.
    pub seldepth: Option<u32>,
    /// Which line this is when the engine reports several (`multipv N`, 1 the best); the
    /// line's score and pv are of the N-th best move.
    pub multipv: Option<u32>,
    /// The score of the line.
    pub score: Option<Score>,
    /// Nodes searched so far.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Time searched so far, in ms.
    pub time_ms: Option<u64>,
    /// The principal variation as the engine wrote its moves (not checked).
    pub pv: Vec<String>,
    /// Free text (`info string ...`), always last on the line.
    pub string: Option<String>,
}

impl Info {
    /// An `info string <text>` line.
    pub fn string(text: impl Into<String>) -> Info {
        Info {
            string: Some(text.into()),
            ..Info::default()
        }
    }

    /// True unless the line is not the best one (`multipv N` with N above 1): a search's
    /// report of its best move is folded from these lines only.
    pub fn is_best_line(&self) -> bool {
        self.multipv.is_none_or(|n| n <= 1)
    }

    /// Takes every field that `newer` has, keeping the others: folds a search's info lines
    /// into the latest known depth, score, nodes and pv. `multipv` is not taken (see
    /// [`is_best_line`](Info::is_best_line)).
    pub fn merge(&mut self, newer: &Info) {
        fn take<T: Clone>(old: &mut Option<T>, new: &Option<T>) {
            if new.is_some() {
                old.clone_from(new);
            }
        }
        take(&mut self.depth, &newer.depth);
        take(&mut self.seldepth, &newer.seldepth);
        take(&mut self.score, &newer.score);
        take(&mut self.nodes, &newer.nodes);
        take(&mut self.nps, &newer.nps);
        take(&mut self.time_ms, &newer.time_ms);
        take(&mut self.string, &newer.string);
        if !newer.pv.is_empty() {
            self.pv.clone_from(&newer.pv);
        }
    }

    /// [`merge`](Info::merge), taking `newer`'s fields (its PV moved, not copied).
    pub fn merge_from(&mut self, newer: Info) {
        let pv = newer.pv;
        let newer = Info {
            pv: Vec::new(),
            ..newer
        };
        self.merge(&newer);
        if !pv.is_empty() {
            self.pv = pv;
        }
    }

    /// Reads the words after `info`. `string` takes the rest of `line` as it is written.
    pub(super) fn parse(line: &str) -> Result<Info, ProtocolError> {
        let (fields, string) = match line.split_once(" string") {
            Some((fields, text)) if text.is_empty() || text.starts_with(' ') => {
                (fields, Some(text.trim_start().to_string()))
            }
            _ => (line, None),
        };
        let mut info = Info {
            string,
            ..Info::default()
        };
        let mut tokens = fields.split_whitespace().skip(1).peekable();
        while let Some(key) = tokens.next() {
            match key {
                "depth" => info.depth = Some(parse_number(key, tokens.next())?),
                "seldepth" => info.seldepth = Some(parse_number(key, tokens.next())?),
                "multipv" => info.multipv = Some(parse_number(key, tokens.next())?),
                "nodes" => info.nodes = Some(parse_number(key, tokens.next())?),
                "nps" => info.nps = Some(parse_number(key, tokens.next())?),
                "time" => info.time_ms = Some(parse_number(key, tokens.next())?),
                "score" => info.score = Some(parse_score(&mut tokens)?),
                "pv" => {
                    while let Some(mv) = tokens.next_if(|token| !INFO_KEYS.contains(token)) {
                        info.pv.push(mv.to_string());
                    }
                }
                _ => {} // a field the harness does not read, or a value of one
            }
        }
        Ok(info)
    }
}

/// Reads `cp N` or `mate N` after `score`.
fn parse_score<'a>(tokens: &mut impl Iterator<Item = &'a str>) -> Result<Score, ProtocolError> {
    match tokens.next() {
        Some(key @ "cp") => Ok(Score::Cp(parse_number(key, tokens.next())?)),
        Some(key @ "mate") => Ok(Score::Mate(parse_number(key, tokens.next())?)),
        Some(token) => Err(ProtocolError::Unexpected {
            context: "info score",
            token: token.to_string(),
        }),
        None => Err(ProtocolError::MissingValue("score".into())),
    }
}

impl fmt::Display for Info {
    /// Writes `info [depth D] [seldepth S] [multipv N] [score cp|mate N] [nodes N] [nps N]
    /// [time T] [pv ...] [string ...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("seldepth", self.seldepth.map(u64::from)),
            ("multipv", self.multipv.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(value) = value {
                write!(f, " {key} {value}")?;
            }
        }
        if let Some(score) = self.score {
            write!(f, " score {score}")?;
        }
        for (key, value) in [
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("time", self.time_ms),
        ] {
            if let Some(value) = value {
                write!(f, " {key} {value}")?;
            }
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        if let Some(text) = &self.string {
            write!(f, " string {text}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_merge_keeps_the_latest_of_each_field() {
        let mut info = Info {
            depth: Some(5),
            score: Some(Score::Cp(30)),
            pv: vec!["a2a3".into()],
            ..Info::default()
        };
        info.merge(&Info {
            nodes: Some(99),
            ..Info::default()
        });
        info.merge(&Info::string("x"));
        assert_eq!(info.depth, Some(5));
        assert_eq!(info.score, Some(Score::Cp(30)));
        assert_eq!(info.nodes, Some(99));
        assert_eq!(info.pv, ["a2a3"]);
        let mut moved = info.clone();
        let newer = Info {
            depth: Some(6),
            pv: vec!["b2b3".into()],
            ..Info::default()
        };
        moved.merge_from(newer.clone());
        info.merge(&newer);
        assert_eq!(moved, info);
        moved.merge_from(Info::default());
        assert_eq!(moved, info, "an empty line changes nothing");
    }
}
