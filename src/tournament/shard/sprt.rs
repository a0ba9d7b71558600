//! One SPRT over the games of every shard, kept on the shared filesystem alone.
//!
//! Before a shard starts a game pair it reads what the shards (itself included) appended to
//! their games.csv since its last look ([`GamesTail`]) and feeds the SPRT the games **in
//! game-id order, up to the first game no shard has recorded yet**. So the test sees the
//! games in the order of the schedule, whatever the shards' pace: its verdict is the first
//! crossing of a bound in game-id order, the verdict a single machine playing the schedule in
//! order reaches, and the one `bt-arena elo --sprt` computes over the merged games.csv (which
//! is in game-id order). A game never recorded (not played, or in flight when a shard was
//! stopped) holds the test back until a resumed shard plays it.
//!
//! The first shard to see a bound crossed records the verdict in `RUN/sprt.json`, once and
//! atomically: written to a temporary file, then linked to its name only if no file has that
//! name (works over NFS). Every shard stops at its next pair boundary once the file exists.

use super::super::config::TournamentConfig;
use super::Shard;
use crate::results::{Existing, GameRecord, GamesTail, ResultsError, now_rfc3339, write_json};
use crate::stats::{EloModel, Outcome, SequentialTest, Sprt, SprtDecision, SprtReport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The file in the run directory that holds the verdict of the shared SPRT.
pub const SPRT_FILE: &str = "sprt.json";

/// The verdict of a sharded run's SPRT, as `RUN/sprt.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedVerdict {
    /// The test, `elo0=.. elo1=.. alpha=.. beta=..`.
    pub sprt: String,
    /// The LLR at the verdict, the bounds, the hypotheses and the decision (`AcceptH0` or
    /// `AcceptH1`); serialized flat.
    #[serde(flatten)]
    pub report: SprtReport,
    /// Games counted: games 1 to `games` of the schedule, the deciding game last.
    pub games: u64,
    /// Which counts the LLR came from.
    pub model: EloModel,
    /// Complete game pairs by the tested engine's points, `[LL, LD, WL, WD, WW]`.
    pub pentanomial: [u64; 5],
    /// Games the tested (first) engine won.
    pub wins: u64,
    /// Games it lost.
    pub losses: u64,
    /// The shard that saw the crossing first and recorded it.
    pub recorded_by: Shard,
    /// When, RFC 3339 UTC.
    pub recorded_at: String,
}

impl RecordedVerdict {
    /// `H1` or `H0`.
    fn hypothesis(&self) -> &'static str {
        match self.report.decision {
            SprtDecision::AcceptH1 => "H1",
            SprtDecision::AcceptH0 => "H0",
            SprtDecision::Continue => "no hypothesis",
        }
    }
}

impl fmt::Display for RecordedVerdict {
    /// `LLR: 2.97 (-2.94, 2.94) [0.00, 200.00]` and, on a second line, `SPRT: H1 accepted at
    /// game 54 over the games of every shard (recorded by shard 1/3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\nSPRT: {} accepted at game {} over the games of every shard (recorded by shard {})",
            self.report,
            self.hypothesis(),
            self.games,
            self.recorded_by
        )
    }
}

/// The verdict recorded in run directory `run`, if any.
///
/// # Errors
/// [`ResultsError::Io`] when the file exists but cannot be read; [`ResultsError::Malformed`]
/// when it is not a verdict.
pub fn read_verdict(run: &Path) -> Result<Option<RecordedVerdict>, ResultsError> {
    let path = run.join(SPRT_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ResultsError::Io {
                path,
                action: "cannot read",
                source,
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ResultsError::Malformed {
            line: e.line() as u64,
            reason: e.to_string(),
            path,
        })
}

/// The shared SPRT of one shard: the test over every shard's games in game-id order, and the
/// verdict once recorded. Memory: the games recorded past the first one missing.
#[derive(Debug)]
pub struct SprtWatcher {
    run: PathBuf,
    shard: Shard,
    /// The engine tested (the first).
    tested: String,
    /// Every shard's games.csv.
    tails: Vec<GamesTail>,
    /// Games read but not yet counted (a game before them is missing): id → (pair, outcome).
    pending: BTreeMap<u64, (u64, Outcome)>,
    /// The first game id not counted yet.
    next_game: u64,
    test: SequentialTest<u64>,
    verdict: Option<RecordedVerdict>,
    /// The pair of the game this shard started last.
    last_pair: Option<u64>,
}

impl SprtWatcher {
    /// The watcher of a shard with an SPRT; `None` for a config without a shard or without
    /// a (valid) SPRT.
    pub fn for_config(config: &TournamentConfig) -> Option<SprtWatcher> {
        let shard = config.shard?;
        let sprt: Sprt = config.sprt?;
        let run = config.out.clone();
        Some(SprtWatcher {
            tails: (0..shard.count())
                .map(|index| {
                    let dir = format!("{}{index}", super::layout::SHARD_PREFIX);
                    GamesTail::new(run.join(dir).join(crate::results::GAMES_CSV))
                })
                .collect(),
            run,
            shard,
            tested: config.engines.first()?.name.clone(),
            pending: BTreeMap::new(),
            next_game: 1,
            test: SequentialTest::new(sprt),
            verdict: None,
            last_pair: None,
        })
    }

    /// Whether this shard may start a game of pair `pair`: a game of the pair it started
    /// last always (a pair is never cut in half); the first game of another pair only when,
    /// after a [`look`](Self::look), no verdict is recorded.
    ///
    /// # Errors
    /// As [`look`](Self::look).
    pub fn may_start(&mut self, pair: u64) -> Result<bool, ResultsError> {
        if self.last_pair == Some(pair) {
            return Ok(true);
        }
        if self.look()?.is_some() {
            return Ok(false);
        }
        self.last_pair = Some(pair);
        Ok(true)
    }

    /// Looks for a verdict: the one in `RUN/sprt.json`, else the one the games recorded so
    /// far reach, which it then records there (when another shard was first, its verdict is
    /// kept).
    ///
    /// # Errors
    /// A games.csv or sprt.json that cannot be read or is malformed; a verdict that cannot
    /// be written.
    pub fn look(&mut self) -> Result<Option<&RecordedVerdict>, ResultsError> {
        if self.verdict.is_none() {
            self.verdict = match read_verdict(&self.run)? {
                Some(recorded) => Some(recorded),
                None => self.count_new_games()?.map_or(Ok(None), |verdict| {
                    record_verdict(&self.run, verdict).map(Some)
                })?,
            };
        }
        Ok(self.verdict.as_ref())
    }

    /// The verdict, once a [`look`](Self::look) found it.
    pub fn verdict(&self) -> Option<&RecordedVerdict> {
        self.verdict.as_ref()
    }

    /// Reads every shard's new games and counts them in game-id order up to the first one
    /// missing; the verdict when a game reaches it.
    fn count_new_games(&mut self) -> Result<Option<RecordedVerdict>, ResultsError> {
        for tail in &mut self.tails {
            for game in tail.read_new()? {
                if game.game_id >= self.next_game {
                    let outcome = outcome_for(&self.tested, &game);
                    self.pending.insert(game.game_id, (game.pair, outcome));
                }
            }
        }
        while let Some((pair, outcome)) = self.pending.remove(&self.next_game) {
            self.next_game += 1;
            if let Some(verdict) = self.test.add(pair, outcome) {
                let counts = self.test.counts();
                return Ok(Some(RecordedVerdict {
                    sprt: self.test.sprt().to_string(),
                    report: self.test.sprt().report(verdict.llr),
                    games: verdict.games,
                    model: verdict.model,
                    pentanomial: counts.pentanomial().into(),
                    wins: counts.wins(),
                    losses: counts.losses(),
                    recorded_by: self.shard,
                    recorded_at: now_rfc3339(),
                }));
            }
        }
        Ok(None)
    }
}

/// A game from the side of engine `tested`.
fn outcome_for(tested: &str, game: &GameRecord) -> Outcome {
    Outcome {
        white: game.white == tested,
        won: game.winner_name() == tested,
    }
}

/// Records `verdict` as `run/sprt.json` unless a verdict is there already; returns the
/// verdict the file holds.
fn record_verdict(run: &Path, verdict: RecordedVerdict) -> Result<RecordedVerdict, ResultsError> {
    if write_json(&run.join(SPRT_FILE), &verdict, Existing::Keep)? {
        return Ok(verdict);
    }
    read_verdict(run)?.ok_or_else(|| ResultsError::Io {
        path: run.join(SPRT_FILE),
        action: "cannot read",
        source: std::io::ErrorKind::NotFound.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::tests::record;
    use crate::results::{GameResult, ResultsWriter, Termination};
    use crate::rules::Rules;
    use crate::tournament::shard::test_config;

    fn config(run: &Path, shard: &str) -> TournamentConfig {
        let mut config = test_config(run, shard);
        config.sprt = Some("elo0=0 elo1=200".parse().unwrap());
        config
    }

    /// Game pair `pair` (games `2 pair - 1` and `2 pair`) in which `new` wins both.
    fn pair_won(pair: u64) -> [GameRecord; 2] {
        let game = |id, white, black, result| {
            let mut game = record(id, pair, white, black, result, Termination::GoalRank);
            game.opening_id = pair;
            game
        };
        [
            game(2 * pair - 1, "new", "base", GameResult::WhiteWins),
            game(2 * pair, "base", "new", GameResult::BlackWins),
        ]
    }

    fn writer(run: &Path, shard: u32) -> ResultsWriter {
        ResultsWriter::open(&run.join(format!("shard-{shard}")), Rules::CaptureOnly).unwrap()
    }

    #[test]
    fn the_test_counts_in_game_id_order_and_waits_for_a_missing_game() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let sprt: Sprt = "elo0=0 elo1=200".parse().unwrap();
        let (_, upper) = sprt.bounds();
        let deciding = (1..)
            .find(|&n| sprt.llr_pentanomial(&[0, 0, 0, 0, n].into()) >= upper)
            .unwrap();
        let mut watcher = SprtWatcher::for_config(&config(run, "0/2")).unwrap();
        let (mut shard0, mut shard1) = (writer(run, 0), writer(run, 1));
        // Shard 1 plays the even pairs well past the deciding one; shard 0 lags at pair 1.
        for pair in (2..=2 * deciding).step_by(2) {
            for game in pair_won(pair) {
                shard1.append(&game).unwrap();
            }
        }
        assert!(watcher.may_start(1).unwrap());
        assert!(watcher.may_start(1).unwrap(), "the pair's second game");
        assert_eq!(watcher.look().unwrap(), None);
        let mut play = |pair| {
            for game in pair_won(pair) {
                shard0.append(&game).unwrap();
            }
        };
        for pair in (1..deciding).step_by(2) {
            play(pair);
        }
        if deciding % 2 == 1 {
            assert_eq!(
                watcher.look().unwrap(),
                None,
                "the deciding pair is missing"
            );
            assert!(watcher.may_start(deciding).unwrap());
            play(deciding);
        }
        let verdict = watcher.look().unwrap().unwrap().clone();
        assert_eq!(verdict.games, 2 * deciding);
        assert_eq!(verdict.pentanomial, [0, 0, 0, 0, deciding]);
        assert_eq!((verdict.wins, verdict.losses), (2 * deciding, 0));
        assert_eq!(verdict.report, sprt.report(verdict.report.llr));
        assert_eq!(verdict.report.decision, SprtDecision::AcceptH1);
        assert_eq!(verdict.recorded_by.to_string(), "0/2");
        assert_eq!(read_verdict(run).unwrap(), Some(verdict.clone()));
        assert!(!watcher.may_start(99).unwrap());
        assert!(
            verdict
                .to_string()
                .ends_with(&format!("SPRT: H1 accepted at game {} over the games of every shard (recorded by shard 0/2)", 2 * deciding)),
            "{verdict}"
        );

        // Shard 1 finds the verdict recorded and keeps it, whatever it would compute.
        let mut other = SprtWatcher::for_config(&config(run, "1/2")).unwrap();
        assert!(!other.may_start(2).unwrap());
        assert_eq!(other.verdict(), Some(&verdict));
        // A second recording keeps the first.
        let mut second = verdict.clone();
        second.recorded_by = "1/2".parse().unwrap();
        assert_eq!(record_verdict(run, second).unwrap(), verdict);
    }

    #[test]
    fn a_malformed_verdict_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(SPRT_FILE), "{\"sprt\": 1}").unwrap();
        let err = read_verdict(dir.path()).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "{}, line 1: ",
                dir.path().join(SPRT_FILE).display()
            )),
            "{err}"
        );
        assert_eq!(read_verdict(&dir.path().join("none")).unwrap(), None);
    }
}
