//! What report.html shows beyond the [`Summary`]: series over the games (Elo and LLR of each
//! pair after each game), terminations and move times per engine. (The openings' results are
//! the summary's, [`super::openings`].)
//! Computed here, once, from the games in recorded order; the page only draws them.

use super::Summary;
use super::distribution::Counts;
use crate::records::{GameRecord, GameSink, Termination};
use crate::stats::{MatchCounts, Outcome, Sprt};
use serde::Serialize;
use std::collections::HashMap;

/// Most points kept in a series: longer ones are thinned evenly (the last point is kept).
pub const MAX_POINTS: usize = 400;

/// The series and tables of report.html.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// One per pair of [`Summary::pairs`], in that order.
    pub pairs: Vec<PairSeries>,
    /// One per engine of [`Summary::engines`], in that order.
    pub engines: Vec<EngineGames>,
    /// Games whose games.csv `move_info` does not read (their move times are left out).
    pub unreadable_move_info: UnreadableMoveInfo,
    /// When the earliest and the latest game started ([`GameRecord::started`], compared as
    /// text), if any game says.
    pub started: Option<(String, String)>,
}

/// The games whose `move_info` column does not read, or has not one token per move.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UnreadableMoveInfo {
    /// How many.
    pub games: u64,
    /// The first one's game number and error: `game 7: move_info has 4 tokens where moves has 3`.
    pub first: Option<String>,
}

/// The Elo (and, with an SPRT, the LLR) of one pair after each game that changed its counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairSeries {
    /// The engine the numbers are for ([`super::PairSummary::first`]).
    pub first: String,
    /// Its opponent.
    pub second: String,
    /// The points, by games counted (at most [`MAX_POINTS`]).
    pub points: Vec<SeriesPoint>,
    /// The SPRT's bounds and hypotheses, when the pair has one.
    pub sprt: Option<SprtLines>,
}

/// The estimate after `games` games of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SeriesPoint {
    /// Games counted.
    pub games: u64,
    /// Elo of `first` minus `second`.
    pub elo: f64,
    /// Half-width of its 95% interval, Elo; 0 while the games are one-sided (the estimate is
    /// then a bound, with no interval: see [`EloEstimate::bound`](crate::stats::EloEstimate::bound)).
    pub error95: f64,
    /// The SPRT's log-likelihood ratio, with an SPRT.
    pub llr: Option<f64>,
}

/// The fixed lines of an LLR chart.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SprtLines {
    /// Lower bound (accept H0).
    pub lower: f64,
    /// Upper bound (accept H1).
    pub upper: f64,
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// Games counted when a bound was first crossed, if one was.
    pub decided_at: Option<u64>,
}

/// How one engine's games ended, and how long its moves took.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineGames {
    /// Engine name.
    pub name: String,
    /// Games won, by termination, in the order of [`Termination::ALL`].
    pub wins_by: Vec<u64>,
    /// Games lost, by termination, in the same order.
    pub losses_by: Vec<u64>,
    /// Its move times (from games.csv `move_times` in µs, else the whole ms of `move_info`).
    pub move_times: MoveTimes,
}

/// The distribution of one engine's time per move (wall time from `go` to `bestmove`), in µs
/// to three significant digits (exact under 1,000 µs, `1234` counted as `1230`); whole ms (times 1000) for games of
/// a file older than games.csv's `move_times` column, or read from PGN.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveTimes {
    /// Moves with a recorded time (a move of a PGN game without a timed comment counts as
    /// 0 µs).
    pub moves: u64,
    /// Mean, µs.
    pub mean_us: f64,
    /// Median, µs: of the `moves` times in order, the one at rank `(moves - 1) / 2` (from 0,
    /// rounded half up); 0 without moves.
    pub median_us: u64,
    /// 90th percentile, µs: the time at rank `(moves - 1) × 0.9`, rounded as the median's.
    pub p90_us: u64,
    /// Longest, µs.
    pub max_us: u64,
    /// Moves per bucket: bucket `k` holds times in `[k * bucket_us, (k + 1) * bucket_us)`, the
    /// last also everything longer; the same buckets for every engine ([`HISTOGRAM_BUCKETS`]).
    pub histogram: Vec<u64>,
    /// Width of a bucket, µs (at least 1): under 1,000 when the moves are short, else a
    /// whole number of ms.
    pub bucket_us: u64,
}

/// Buckets of a move-time histogram.
pub const HISTOGRAM_BUCKETS: usize = 20;

impl Series {
    /// The series of `shards` (each a file's games, in recorded order), for the engines and
    /// pairs of `summary` (computed from the same games with the same `sprt`). Game pairs are
    /// matched within a file, as the summary matches them. [`SeriesBuilder`] does the same
    /// for games read one at a time.
    pub fn compute<S: AsRef<[GameRecord]>>(
        summary: &Summary,
        shards: &[S],
        sprt: Option<&Sprt>,
    ) -> Series {
        let mut builder = SeriesBuilder::new(summary, sprt);
        for games in shards {
            for game in games.as_ref() {
                builder.add(game);
            }
            builder.end_file();
        }
        builder.finish(summary)
    }
}

/// The series computed one game at a time, in recorded order, as [`Series::compute`] does,
/// for games that are read one by one and not kept. Memory holds the counts, at most
/// 2 × [`MAX_POINTS`] points per pair (thinned as they come: every other point is dropped
/// each time the limit is reached), one count per distinct move time (µs, to three significant
/// digits) per engine, and the game pairs open in the current file; never the games.
#[derive(Debug)]
pub struct SeriesBuilder {
    /// Engine index by name ([`Summary::engines`]).
    index: HashMap<String, usize>,
    pairs: Vec<PairTrack>,
    engines: Vec<EngineTrack>,
    unreadable: UnreadableMoveInfo,
    started: Option<(String, String)>,
}

impl SeriesBuilder {
    /// No games yet, for the engines and pairs of `summary` (computed with `sprt`).
    pub fn new(summary: &Summary, sprt: Option<&Sprt>) -> SeriesBuilder {
        let index: HashMap<String, usize> = summary
            .engines
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), i))
            .collect();
        let pairs = summary
            .pairs
            .iter()
            .map(|pair| PairTrack {
                engines: (index[&pair.first], index[&pair.second]),
                counts: MatchCounts::default(),
                points: Vec::new(),
                stride: 1,
                changes: 0,
                last: None,
                sprt: pair.sprt.and(sprt.copied()),
            })
            .collect();
        SeriesBuilder {
            engines: summary
                .engines
                .iter()
                .map(|_| EngineTrack::default())
                .collect(),
            index,
            pairs,
            unreadable: UnreadableMoveInfo::default(),
            started: None,
        }
    }

    /// Counts `game`, the next game of the file being read (a game of an engine the summary
    /// does not know is left out). Call [`end_file`](Self::end_file) after each file.
    pub fn add(&mut self, game: &GameRecord) {
        let engine = |name: &str| self.index.get(name).copied();
        let (Some(white), Some(black), Some(winner)) = (
            engine(&game.white),
            engine(&game.black),
            engine(game.winner_name()),
        ) else {
            return;
        };
        let slot = Termination::ALL
            .iter()
            .position(|t| *t == game.termination)
            .unwrap_or(0);
        self.engines[winner].wins_by[slot] += 1;
        self.engines[if winner == white { black } else { white }].losses_by[slot] += 1;
        if let Err(error) = add_move_times(game, [white, black], &mut self.engines) {
            self.unreadable.games += 1;
            self.unreadable
                .first
                .get_or_insert_with(|| format!("game {}: {error}", game.game_id));
        }
        self.note_start(&game.started);
        let first = white.min(black);
        if let Some(track) = self
            .pairs
            .iter_mut()
            .find(|t| t.engines == (first, white.max(black)))
        {
            track.add(
                game.pair,
                Outcome {
                    white: white == first,
                    won: winner == first,
                },
            );
        }
    }

    /// Widens the span of start times to `started` (RFC 3339 UTC times sort as text).
    fn note_start(&mut self, started: &str) {
        if started.is_empty() {
            return;
        }
        match &mut self.started {
            None => self.started = Some((started.to_string(), started.to_string())),
            Some((first, last)) => {
                if started < first.as_str() {
                    *first = started.to_string();
                }
                if started > last.as_str() {
                    *last = started.to_string();
                }
            }
        }
    }

    /// Ends a file: its open game pairs can no longer complete (pair numbers restart in the
    /// next file).
    pub fn end_file(&mut self) {
        for track in &mut self.pairs {
            track.counts.close_open_pairs();
        }
    }

    /// Games are missing before the next one: the LLR series stops here, as the SPRT of a
    /// reading in game-id order does (see [`GameSink::gap`]).
    pub fn gap(&mut self) {
        for track in &mut self.pairs {
            track.sprt = None;
        }
    }

    /// The series of the games added, for `summary` (the one given to
    /// [`new`](Self::new)).
    pub fn finish(self, summary: &Summary) -> Series {
        let bucket_us = bucket_width(&self.engines);
        Series {
            pairs: self
                .pairs
                .into_iter()
                .zip(&summary.pairs)
                .map(|(track, pair)| track.finish(pair))
                .collect(),
            engines: self
                .engines
                .into_iter()
                .zip(&summary.engines)
                .map(|(track, name)| track.finish(name, bucket_us))
                .collect(),
            unreadable_move_info: self.unreadable,
            started: self.started,
        }
    }
}

impl GameSink for SeriesBuilder {
    fn game(&mut self, game: &GameRecord) {
        self.add(game);
    }

    fn gap(&mut self) {
        SeriesBuilder::gap(self);
    }

    fn end(&mut self) {
        self.end_file();
    }
}

/// A pair's counts as they grow.
#[derive(Debug)]
struct PairTrack {
    engines: (usize, usize),
    /// Keyed by pair number within the file being read.
    counts: MatchCounts<u64>,
    /// Every `stride`-th point since the first (fewer than 2 × [`MAX_POINTS`]).
    points: Vec<SeriesPoint>,
    /// Changes of the counts between two points kept.
    stride: u64,
    /// Changes of the counts so far.
    changes: u64,
    /// The latest point, kept whatever the stride.
    last: Option<SeriesPoint>,
    sprt: Option<Sprt>,
}

impl PairTrack {
    /// Counts a game; adds a point when the counts the Elo comes from changed (every game
    /// until a pair is complete, then every completed pair), as the SPRT tests them.
    fn add(&mut self, pair: u64, outcome: Outcome) {
        if !self.counts.add_changes_estimate(pair, outcome) {
            return;
        }
        let elo = self.counts.elo();
        let point = SeriesPoint {
            games: self.counts.games(),
            elo: elo.elo,
            error95: if elo.bound { 0.0 } else { elo.error95 },
            llr: self.sprt.map(|sprt| self.counts.llr(&sprt)),
        };
        if self.changes.is_multiple_of(self.stride) {
            self.points.push(point);
            if self.points.len() == 2 * MAX_POINTS {
                // Keep points 0, 2, 4, ...: every (2 × stride)-th change.
                self.points = self.points.iter().copied().step_by(2).collect();
                self.stride *= 2;
            }
        }
        self.changes += 1;
        self.last = Some(point);
    }

    fn finish(self, pair: &super::PairSummary) -> PairSeries {
        let sprt = pair.sprt.map(|status| SprtLines {
            lower: status.report.lower,
            upper: status.report.upper,
            elo0: status.report.elo0,
            elo1: status.report.elo1,
            decided_at: (status.report.decision != crate::stats::SprtDecision::Continue)
                .then_some(status.games),
        });
        let mut points = self.points;
        if let Some(last) = self.last
            && points.last() != Some(&last)
        {
            points.push(last);
        }
        PairSeries {
            first: pair.first.clone(),
            second: pair.second.clone(),
            points: thin(points, MAX_POINTS),
            sprt,
        }
    }
}

/// At most `max` of `points`, evenly spread, the last always kept.
fn thin<T: Copy>(points: Vec<T>, max: usize) -> Vec<T> {
    if points.len() <= max || max < 2 {
        return points;
    }
    let last = points.len() - 1;
    (0..max).map(|k| points[k * last / (max - 1)]).collect()
}

/// An engine's terminations and move times as they are counted.
#[derive(Debug, Default)]
struct EngineTrack {
    wins_by: [u64; Termination::ALL.len()],
    losses_by: [u64; Termination::ALL.len()],
    /// Moves by their time, µs.
    times: Counts,
}

impl EngineTrack {
    fn finish(self, name: &str, bucket_us: u64) -> EngineGames {
        let times = &self.times;
        let mut histogram = vec![0u64; HISTOGRAM_BUCKETS];
        for (us, moves) in times.iter() {
            let bucket =
                usize::try_from(us.max(0).unsigned_abs() / bucket_us).unwrap_or(usize::MAX);
            histogram[bucket.min(HISTOGRAM_BUCKETS - 1)] += moves;
        }
        let us = |value: i64| value.max(0).unsigned_abs();
        EngineGames {
            name: name.to_string(),
            wins_by: self.wins_by.to_vec(),
            losses_by: self.losses_by.to_vec(),
            move_times: MoveTimes {
                moves: times.moves(),
                mean_us: times.mean(),
                median_us: us(times.percentile(50)),
                p90_us: us(times.percentile(90)),
                max_us: us(times.max()),
                histogram,
                bucket_us,
            },
        }
    }
}

/// Adds the move times of `game` (from its `move_info` and `move_times`; none when it has
/// none) to its engines, White's and Black's by index.
///
/// # Errors
/// The columns' error when they do not read, or when they have not one token per move
/// (nothing is added).
fn add_move_times(
    game: &GameRecord,
    sides: [usize; 2],
    engines: &mut [EngineTrack],
) -> Result<(), crate::records::moves::ColumnError> {
    let times = crate::records::moves::wall_times_us(&game.move_info, &game.move_times)?;
    let plies = game.moves.split_whitespace().count();
    if !times.is_empty() && times.len() != plies {
        return Err(crate::records::moves::ColumnError::Lengths {
            column: "move_info",
            found: times.len(),
            other: "moves",
            expected: plies,
        });
    }
    let first = game
        .opening
        .parse::<crate::rules::Position>()
        .map_or(0, |p| p.side_to_move().index());
    for (ply, &time) in times.iter().enumerate() {
        let us = i64::try_from(time).unwrap_or(i64::MAX);
        engines[sides[(first + ply) % 2]].times.add(us);
    }
    Ok(())
}

/// The histogram bucket width shared by all engines, µs: the 99th percentile of every move
/// time over the buckets, so that a few very long moves do not squeeze the rest into one
/// bucket; a whole number of ms once it reaches 1 ms.
fn bucket_width(engines: &[EngineTrack]) -> u64 {
    let mut all = Counts::default();
    for engine in engines {
        all.merge(&engine.times);
    }
    let top = all.percentile(99).max(0).unsigned_abs();
    let width = (top + 1).div_ceil(HISTOGRAM_BUCKETS as u64).max(1);
    match width < 1000 {
        true => width,
        false => width.div_ceil(1000) * 1000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::record;
    use crate::records::{GameResult::*, Termination::*};

    /// The summary and series of `games` between `a` and `b`.
    fn compute(games: &[GameRecord], sprt: Option<&Sprt>) -> (Summary, Series) {
        let names = ["a".to_string(), "b".to_string()];
        let summary = Summary::compute(games, &names, sprt);
        let series = Series::compute(&summary, &[games], sprt);
        (summary, series)
    }

    fn games() -> Vec<GameRecord> {
        let mut games = vec![
            record(1, 1, "a", "b", WhiteWins, GoalRank),
            record(2, 1, "b", "a", WhiteWins, TimeForfeit),
            record(3, 2, "a", "b", WhiteWins, GoalRank),
            record(4, 2, "b", "a", BlackWins, AllCaptured),
            record(5, 3, "a", "b", BlackWins, Crash),
        ];
        games[0].move_info = "1/1/-/-/10 2/1/-/-/30 3/1/-/-/20".into();
        games[2].opening = "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b".into();
        games[3].opening = games[2].opening.clone();
        games[2].move_info = "1/1/-/-/500 2/1/-/-/7 3/1/-/-/8".into();
        games[4].move_info = "1/1/-/-/9 oops".into();
        games
    }

    #[test]
    fn pair_series_follow_the_summarys_counts() {
        let games = games();
        let sprt: Sprt = "elo0=0 elo1=10".parse().unwrap();
        let (summary, series) = compute(&games, Some(&sprt));
        let pair = &series.pairs[0];
        // Game 1 alone (trinomial), then pairs 1 and 2 complete (pentanomial); game 5 opens
        // pair 3 and changes nothing.
        let games_at: Vec<u64> = pair.points.iter().map(|p| p.games).collect();
        assert_eq!(games_at, [1, 2, 4]);
        let last = pair.points.last().unwrap();
        let pentanomial = summary.pairs[0].pentanomial;
        assert_eq!(
            pentanomial,
            crate::stats::Pentanomial::from([0, 0, 1, 0, 1])
        );
        assert_eq!(
            last.elo,
            crate::stats::elo_pentanomial(&pentanomial).elo,
            "the point after the last change is the summary's estimate"
        );
        assert_eq!(last.llr, Some(sprt.llr_pentanomial(&pentanomial)));
        let lines = pair.sprt.unwrap();
        assert_eq!((lines.lower, lines.upper), sprt.bounds());
        assert_eq!(lines.decided_at, None);
    }

    /// Shards repeat pair numbers: a game of one file never completes a pair of another, in
    /// the series as in the summary, so the last point is the summary's estimate and LLR.
    #[test]
    fn pairs_are_matched_within_each_file_as_in_the_summary() {
        let sprt: Sprt = "elo0=0 elo1=10".parse().unwrap();
        // Each file: pair 1 complete (a wins both), then the first game of pair 2.
        let shard = |first_id: u64, last: GameRecord| {
            vec![
                record(first_id, 1, "a", "b", WhiteWins, GoalRank),
                record(first_id + 1, 1, "b", "a", BlackWins, GoalRank),
                last,
            ]
        };
        let files = [
            shard(1, record(3, 2, "a", "b", BlackWins, GoalRank)),
            // Pair 2's other colours, but in another file: no pair.
            shard(4, record(6, 2, "b", "a", WhiteWins, GoalRank)),
        ];
        let names = ["a".to_string(), "b".to_string()];
        let summary = Summary::compute_shards(&files, &names, Some(&sprt));
        let series = Series::compute(&summary, &files, Some(&sprt));
        let pair = &summary.pairs[0];
        assert_eq!((pair.pentanomial.ww, pair.unpaired), (2, 2));
        let last = series.pairs[0].points.last().unwrap();
        // The last change of the counts: the second file's pair 1.
        assert_eq!(last.games, 5);
        assert_eq!(last.elo, pair.elo.elo);
        assert_eq!(last.llr, Some(pair.sprt.unwrap().report.llr));
    }

    #[test]
    fn terminations_and_move_times_per_engine() {
        let (_, series) = compute(&games(), None);
        let [a, b] = &series.engines[..] else {
            panic!()
        };
        assert_eq!(a.wins_by, [2, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(a.losses_by, [0, 0, 0, 0, 1, 1, 0, 0, 0, 0]);
        assert_eq!(b.wins_by, [0, 0, 0, 0, 1, 1, 0, 0, 0, 0]);
        assert_eq!(b.losses_by, [2, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        // Game 1: a (White) 10, 20; b 30. Game 3 from a position with Black to move:
        // b 500, 8; a 7.
        assert_eq!((a.move_times.moves, b.move_times.moves), (3, 3));
        assert_eq!(
            (a.move_times.median_us, a.move_times.max_us),
            (10_000, 20_000)
        );
        assert_eq!(
            (b.move_times.median_us, b.move_times.max_us),
            (30_000, 500_000)
        );
        assert_eq!(b.move_times.mean_us, 538_000.0 / 3.0);
        // 20 buckets up to the 99th percentile of all moves (500 ms): 26 ms each.
        assert_eq!(a.move_times.bucket_us, 26_000);
        assert_eq!(a.move_times.histogram[0], 3);
        let mut expected = vec![0; HISTOGRAM_BUCKETS];
        (expected[0], expected[1], expected[19]) = (1, 1, 1);
        assert_eq!(b.move_times.histogram, expected);
        assert_eq!(thin((0..1000).collect(), 5), [0, 249, 499, 749, 999]);
    }

    #[test]
    fn a_move_info_column_with_other_than_one_token_per_move_is_left_out() {
        let mut games = games();
        // Game 1 has 3 moves: a fourth token would give a's times a move it did not play.
        games[0].move_info = "1/1/-/-/10 2/1/-/-/30 3/1/-/-/20 4/1/-/-/9999".into();
        games[2].move_info = "1/1/-/-/500".into();
        let (_, series) = compute(&games, None);
        assert_eq!(
            series.unreadable_move_info,
            UnreadableMoveInfo {
                games: 3,
                first: Some("game 1: move_info has 4 tokens where moves has 3".to_string())
            }
        );
        let [a, b] = &series.engines[..] else {
            panic!()
        };
        assert_eq!((a.move_times.moves, b.move_times.moves), (0, 0));
    }

    /// A long run keeps at most `MAX_POINTS` points, evenly spread, from the first game to
    /// the last, while the builder never holds more than twice that many.
    #[test]
    fn a_long_series_is_thinned_as_it_grows() {
        let mut games: Vec<GameRecord> = (1..=5000u64)
            .map(|id| {
                let (white, black) = if id % 2 == 1 { ("a", "b") } else { ("b", "a") };
                let result = if id % 3 == 0 { BlackWins } else { WhiteWins };
                record(id, id.div_ceil(2), white, black, result, GoalRank)
            })
            .collect();
        games[7].started = "2026-11-29T08:00:00Z".into();
        games[4990].started = "2026-12-01T09:30:00Z".into();
        let names = ["a".to_string(), "b".to_string()];
        let summary = Summary::compute(&games, &names, None);
        let mut builder = SeriesBuilder::new(&summary, None);
        for game in &games {
            builder.add(game);
            assert!(builder.pairs[0].points.len() < 2 * MAX_POINTS);
        }
        builder.end_file();
        let series = builder.finish(&summary);
        let at: Vec<u64> = series.pairs[0].points.iter().map(|p| p.games).collect();
        assert_eq!(at.len(), MAX_POINTS);
        assert_eq!((at[0], at[at.len() - 1]), (1, 5000));
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
        // Evenly spread: no gap more than twice the even one (5000 games / 400 points).
        let widest = at.windows(2).map(|w| w[1] - w[0]).max().unwrap();
        assert!(widest <= 2 * 5000 / 400 + 2, "{widest}");
        let last = series.pairs[0].points.last().unwrap();
        assert_eq!(last.elo, summary.pairs[0].elo.elo);
        // The span of start times covers every game, not only those the viewer keeps.
        assert_eq!(
            series.started,
            Some(("2026-11-29T08:00:00Z".into(), "2026-12-01T09:30:00Z".into()))
        );
    }

    #[test]
    fn move_times_in_us_come_from_the_move_times_column() {
        let mut games = games();
        // Game 1's moves in µs: a 1234 and 250, b 9.
        games[0].move_times = "1234/1000 9/- 250/-".into();
        let (_, series) = compute(&games, None);
        let [a, b] = &series.engines[..] else {
            panic!()
        };
        // a: 1230 (three digits), 250, and game 3's 7 ms; b: 9, and game 3's 500 and 8 ms.
        assert_eq!((a.move_times.median_us, a.move_times.max_us), (1230, 7000));
        assert_eq!(
            (b.move_times.median_us, b.move_times.max_us),
            (8000, 500_000)
        );
        // The 99th percentile of all moves is 500 ms: buckets of whole ms.
        assert_eq!(a.move_times.bucket_us, 26_000);
        // Short moves only: buckets under 1 ms.
        for game in &mut games {
            game.move_info.clear();
            game.move_times.clear();
        }
        games[0].move_times = "1234/1000 9/- 250/-".into();
        games[0].move_info = "-/-/-/-/1 -/-/-/-/0 -/-/-/-/0".into();
        let (_, series) = compute(&games, None);
        assert_eq!(series.engines[0].move_times.bucket_us, 62);
        assert_eq!(series.engines[0].move_times.histogram[4], 1);
        assert_eq!(series.engines[0].move_times.histogram[19], 1);
    }
}
