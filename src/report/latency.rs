//! The latency of each engine's moves: the wall time from `go` to `bestmove` minus the time
//! the engine says it took (its last `info ... time`), as fastchess's `-show-latency` shows
//! it. It is the pipe, the scheduling of the engine's process and whatever the engine does
//! outside its own clock: on a machine too slow or too loaded for the time control it grows
//! before the time forfeits come. Built from games.csv's `move_times` column alone
//! ([`crate::records::moves`]), so `bt-arena report` and `elo` rebuild it from the records;
//! moves whose engine reported no `time`, and files older than the column, count nothing.

use super::distribution::Counts;
use crate::records::GameRecord;
use crate::records::moves;
use serde::Serialize;
use std::fmt;

/// One engine's latency per move: wall time − the engine's own time, µs (to three
/// significant digits: exact under 1,000 µs, `1234` counted as `1230`). A move whose engine
/// `time` (whole ms, perhaps rounded up) exceeds the wall time measured by the runner counts
/// 0: its latency is below the engine's resolution (a negative median read as a bug).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineLatency {
    /// Engine name.
    pub name: String,
    /// Moves with both times.
    pub moves: u64,
    /// Median, µs (nearest rank).
    pub median_us: i64,
    /// 99th percentile, µs (nearest rank).
    pub p99_us: i64,
    /// The largest, µs.
    pub max_us: i64,
}

/// The latencies of a set of games, by engine index.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LatencyTally {
    engines: Vec<Counts>,
}

impl LatencyTally {
    /// Makes room for one more engine.
    pub(crate) fn add_engine(&mut self) {
        self.engines.push(Counts::default());
    }

    /// Counts the moves of `game` that have both times, its engines at `seats` (White's,
    /// Black's index); a game whose `move_times` or opening does not read counts nothing.
    pub(crate) fn add(&mut self, game: &GameRecord, seats: [usize; 2]) {
        if game.move_times.is_empty() {
            return;
        }
        let Some(first) = game.start() else {
            return;
        };
        let Ok(times) = moves::decode_times(&game.move_times) else {
            return;
        };
        let first = first.side_to_move().index();
        for (ply, (wall, engine)) in times.into_iter().enumerate() {
            if let Some(engine) = engine {
                // An engine's own time in whole ms, rounded up, can exceed the wall time:
                // the latency is then below the engine's resolution, counted as 0.
                let latency = (i128::from(wall) - i128::from(engine)).max(0);
                let latency = i64::try_from(latency).unwrap_or(i64::MAX);
                self.engines[seats[(first + ply) % 2]].add(latency);
            }
        }
    }

    /// The engines' rows, `names` in index order, engines with a latency only.
    pub(crate) fn finish(&self, names: &[String]) -> Vec<EngineLatency> {
        self.engines
            .iter()
            .zip(names)
            .filter(|(counts, _)| counts.moves() > 0)
            .map(|(counts, name)| EngineLatency {
                name: name.clone(),
                moves: counts.moves(),
                median_us: counts.percentile(50),
                p99_us: counts.percentile(99),
                max_us: counts.max(),
            })
            .collect()
    }
}

/// The latency table of the text report.
pub(crate) struct LatencyText<'a> {
    pub(crate) engines: &'a [EngineLatency],
    /// Width of the name column.
    pub(crate) width: usize,
}

impl fmt::Display for LatencyText<'_> {
    /// ```text
    /// Latency    moves  median µs   99% µs   max µs
    /// search      1374        182      611     2050
    /// (wall time from go to bestmove − the engine's own info time: pipe and scheduling)
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.width.max("Latency".len());
        writeln!(
            f,
            "{:width$}  {:>7}  {:>9}  {:>7}  {:>7}",
            "Latency", "moves", "median µs", "99% µs", "max µs"
        )?;
        for engine in self.engines {
            writeln!(
                f,
                "{:width$}  {:>7}  {:>9}  {:>7}  {:>7}",
                engine.name, engine.moves, engine.median_us, engine.p99_us, engine.max_us
            )?;
        }
        writeln!(
            f,
            "(wall time from go to bestmove − the engine's own info time: pipe and scheduling; \
             0 where the engine's time, in whole ms, exceeds the wall time)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::record;
    use crate::records::{GameResult, Termination};

    #[test]
    fn latency_is_wall_time_less_the_engines_own_time_per_mover() {
        let mut game = record(1, 1, "a", "b", GameResult::WhiteWins, Termination::GoalRank);
        // a (White) plays plies 1 and 3, b ply 2; b reports no time.
        game.move_times = "10250/10000 5000/- 2400/1000".into();
        let mut tally = LatencyTally::default();
        tally.add_engine();
        tally.add_engine();
        tally.add(&game, [0, 1]);
        // From a position with Black to move, b plays plies 1 and 3.
        game.opening = "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP b".into();
        game.move_times = "1100/1000 900/- 1234/0".into();
        tally.add(&game, [0, 1]);
        let rows = tally.finish(&["a".into(), "b".into()]);
        assert_eq!(
            rows,
            [
                EngineLatency {
                    name: "a".into(),
                    moves: 2,
                    median_us: 1400,
                    p99_us: 1400,
                    max_us: 1400
                },
                EngineLatency {
                    name: "b".into(),
                    moves: 2,
                    median_us: 1230,
                    p99_us: 1230,
                    max_us: 1230
                },
            ]
        );
        // An older file, and a column that does not read, count nothing.
        game.move_times = String::new();
        tally.add(&game, [0, 1]);
        game.move_times = "x/1".into();
        tally.add(&game, [0, 1]);
        assert_eq!(tally.finish(&["a".into(), "b".into()]), rows);
    }

    /// Fairy-Stockfish's `info time` is whole ms: a move of 500 µs wall time it reports as
    /// 1 ms has a latency below its resolution, counted 0, not -500 µs (issue 39).
    #[test]
    fn an_engine_time_above_the_wall_time_counts_zero() {
        let mut game = record(1, 1, "a", "b", GameResult::WhiteWins, Termination::GoalRank);
        game.move_times = "500/1000 700/- 400/1000".into();
        let mut tally = LatencyTally::default();
        tally.add_engine();
        tally.add_engine();
        tally.add(&game, [0, 1]);
        let rows = tally.finish(&["a".into(), "b".into()]);
        assert_eq!((rows[0].median_us, rows[0].max_us), (0, 0));
    }
}
