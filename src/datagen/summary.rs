//! What a datagen run wrote, counted once while its positions are written
//! ([`super::convert`]), then rendered as summary.json and as text.

use super::filters::Drops;
use super::formats::games::{Ending, GameEntry};
use crate::rules::Color;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// The upper bounds of the score histogram's buckets, centipawns from White's view (the last
/// bucket has none; mate scores fall in the first and last).
pub const SCORE_EDGES: [i32; 11] = [-1000, -500, -250, -100, -50, 0, 50, 100, 250, 500, 1000];

/// The width of the ply histogram's buckets; the last, [`PLY_BUCKETS`]`- 1`, has every longer
/// ply.
pub const PLY_WIDTH: u32 = 10;

/// The buckets of the ply histogram.
pub const PLY_BUCKETS: usize = 16;

/// One bucket of a histogram.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// Its range, e.g. `-50..0` (from included, to excluded) or `1000..`.
    pub range: String,
    /// Positions written in it.
    pub positions: u64,
}

/// Games counted by colour of the winner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByWinner {
    /// Games White won.
    pub white: u64,
    /// Games Black won.
    pub black: u64,
}

/// Games counted by how their result came.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByEnding {
    /// By the rules.
    pub board: u64,
    /// By resign adjudication.
    pub resign: u64,
    /// By proof adjudication.
    pub proof: u64,
    /// By an engine's fault (their positions are not written).
    pub fault: u64,
}

/// Everything summary.json says.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DatagenSummary {
    /// Games read (in the games file, up to the last one a position was written from).
    pub games: u64,
    /// Games by winner (faulted games excluded).
    pub results: ByWinner,
    /// Games by how their result came.
    pub endings: ByEnding,
    /// Positions in those games (one per ply the engines played).
    pub positions_played: u64,
    /// Positions written.
    pub positions: u64,
    /// Positions dropped, by filter.
    pub dropped: Drops,
    /// Positions the other filters kept that were (approximately) seen before.
    pub repeated: u64,
    /// Positions labelled by proof (`--label`), by proven distance in plies.
    pub proven: BTreeMap<u8, u64>,
    /// Written positions by score, White's view.
    pub scores: Vec<Bucket>,
    /// Written positions by ply from the opening.
    pub plies: Vec<Bucket>,
    /// Positions the engines searched per second of this session's play (`None` for a
    /// conversion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions_per_second: Option<f64>,
    /// Wall time of this session's play, seconds (`None` for a conversion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

impl DatagenSummary {
    /// An empty summary with its histograms' buckets.
    pub fn new() -> DatagenSummary {
        let mut scores = Vec::new();
        let mut from: Option<i32> = None;
        for &edge in &SCORE_EDGES {
            scores.push(bucket(from, Some(edge)));
            from = Some(edge);
        }
        scores.push(bucket(from, None));
        let width = PLY_WIDTH as i32;
        let plies = (0..PLY_BUCKETS)
            .map(|i| {
                let from = i32::try_from(i).unwrap_or(0) * width;
                let last = i + 1 == PLY_BUCKETS;
                bucket(Some(from), (!last).then_some(from + width))
            })
            .collect();
        DatagenSummary {
            scores,
            plies,
            ..DatagenSummary::default()
        }
    }

    /// Counts a game read.
    pub fn game(&mut self, game: &GameEntry) {
        self.games += 1;
        self.positions_played += game.plies.len() as u64;
        let endings = &mut self.endings;
        match game.ending {
            Ending::Board => endings.board += 1,
            Ending::Resign => endings.resign += 1,
            Ending::Proof => endings.proof += 1,
            Ending::Fault => endings.fault += 1,
        }
        match (game.ending, game.winner) {
            (Ending::Fault, _) => {}
            (_, Color::White) => self.results.white += 1,
            (_, Color::Black) => self.results.black += 1,
        }
    }

    /// Counts a position written with `score` (White's view) at `ply`, proven in `proof`
    /// plies (0: not proven).
    pub fn written(&mut self, score: i16, ply: u32, proof: u8) {
        self.positions += 1;
        let at = SCORE_EDGES
            .iter()
            .position(|&edge| i32::from(score) < edge)
            .unwrap_or(SCORE_EDGES.len());
        self.scores[at].positions += 1;
        let at = ((ply / PLY_WIDTH) as usize).min(PLY_BUCKETS - 1);
        self.plies[at].positions += 1;
        if proof > 0 {
            *self.proven.entry(proof).or_default() += 1;
        }
    }

    /// Positions proven, at any distance.
    pub fn proven_total(&self) -> u64 {
        self.proven.values().sum()
    }
}

fn bucket(from: Option<i32>, to: Option<i32>) -> Bucket {
    let end = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_default();
    Bucket {
        range: format!("{}..{}", end(from), end(to)),
        positions: 0,
    }
}

impl fmt::Display for DatagenSummary {
    /// The text summary: counts, then the histograms as bars.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.dropped;
        writeln!(
            f,
            "Positions: {} written of {} played, from {} games",
            self.positions, self.positions_played, self.games
        )?;
        if let Some(rate) = self.positions_per_second {
            writeln!(f, "Speed: {rate:.1} positions/s searched")?;
        }
        writeln!(
            f,
            "Outcomes: White won {}, Black won {}; by the rules {}, resign {}, proof {}, fault {} (not written)",
            self.results.white,
            self.results.black,
            self.endings.board,
            self.endings.resign,
            self.endings.proof,
            self.endings.fault
        )?;
        writeln!(
            f,
            "Dropped: fault {}, min-ply {}, no score {}, max-score {}, captures {}, sample {}, dedup {}",
            d.fault, d.min_ply, d.no_score, d.max_score, d.captures, d.sample, d.dedup
        )?;
        writeln!(f, "Repeated positions (approximate): {}", self.repeated)?;
        if !self.proven.is_empty() {
            let by: Vec<String> = self
                .proven
                .iter()
                .map(|(plies, n)| format!("{plies}: {n}"))
                .collect();
            writeln!(
                f,
                "Proven: {} (by plies {})",
                self.proven_total(),
                by.join(", ")
            )?;
        }
        histogram(f, "Scores (White's view)", &self.scores)?;
        histogram(f, "Plies", &self.plies)
    }
}

/// A histogram as lines of bars, 40 characters for the largest bucket; empty buckets at the
/// ends left out.
fn histogram(f: &mut fmt::Formatter<'_>, title: &str, buckets: &[Bucket]) -> fmt::Result {
    writeln!(f, "{title}:")?;
    let most = buckets
        .iter()
        .map(|b| b.positions)
        .max()
        .unwrap_or(0)
        .max(1);
    let first = buckets.iter().position(|b| b.positions > 0).unwrap_or(0);
    let last = buckets.iter().rposition(|b| b.positions > 0).unwrap_or(0);
    for bucket in buckets.iter().take(last + 1).skip(first) {
        let bar = "#".repeat(usize::try_from((bucket.positions * 40).div_ceil(most)).unwrap_or(40));
        let line = format!("  {:>12} {:>8} {bar}", bucket.range, bucket.positions);
        writeln!(f, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_fall_in_their_buckets() {
        let mut summary = DatagenSummary::new();
        assert_eq!(summary.scores.len(), 12);
        assert_eq!(summary.scores[0].range, "..-1000");
        assert_eq!(summary.scores[11].range, "1000..");
        assert_eq!(summary.plies[15].range, "150..");
        summary.written(-50, 9, 0);
        summary.written(31_999, 200, 3);
        assert_eq!(summary.scores[5].positions, 1, "-50 is in -50..0");
        assert_eq!(summary.scores[11].positions, 1);
        assert_eq!(summary.plies[0].positions, 1);
        assert_eq!(summary.plies[15].positions, 1);
        assert_eq!(summary.proven_total(), 1);
    }
}
