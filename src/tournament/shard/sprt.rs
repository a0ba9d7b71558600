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
//! Every shard computes the verdict itself from the games on the shared filesystem, so it
//! stops at its next pair boundary once the games reach one, and never on a verdict whose
//! games it cannot read. The first shard to reach it records it in `RUN/sprt.json`, once and
//! atomically (written to a temporary file, then linked to its name only if no file has that
//! name, which works over NFS), naming the run id and the test: a file left by another run
//! or another test is replaced, never honoured.

use super::super::config::TournamentConfig;
use crate::arena::UnitKind;
use crate::arena::leases::units_leased;
use crate::records::{Existing, GameRecord, GamesTail, RecordsError, now_rfc3339, write_json};
use crate::run::settings::Plan;
use crate::run_dir::RunDir;
use crate::stats::{Outcome, SequentialTest, Sprt};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use crate::run::recorded::{RecordedVerdict, read_verdict};

/// The shared SPRT of one shard: the test over every shard's games in game-id order, and the
/// verdict once recorded. Memory: the games recorded past the first one missing.
#[derive(Debug)]
pub struct SprtWatcher {
    run: PathBuf,
    run_id: Option<String>,
    /// Who records a verdict it finds: a shard (`K/N`) or a worker (`worker ID`).
    member: String,
    /// A run of workers: their directories are looked for at each look (workers join at any
    /// time); `false`: the shards' tails are fixed.
    workers: bool,
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
    /// The pairs this member started at or after the first game not counted (a pair is
    /// never cut in half).
    started: BTreeSet<u64>,
    /// The schedule: the pair of each game.
    plan: Plan,
}

/// Whether a shard or worker may start a game pair ([`SprtWatcher::may_start`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedGate {
    /// Start it.
    Start,
    /// Not yet: a worker is as far ahead of the first game not recorded as the run's
    /// [read-ahead](SprtWatcher::may_start) allows.
    Wait,
    /// The games reach a verdict: no new pair starts.
    Verdict,
}

impl SprtWatcher {
    /// The watcher of a shard or a worker with an SPRT; `None` for a config of neither or
    /// without a (valid) SPRT.
    pub fn for_config(config: &TournamentConfig, plan: Plan) -> Option<SprtWatcher> {
        let sprt: Sprt = config.sprt?;
        let run = RunDir::new(&config.run.out);
        let (member, tails) = match (config.run.shard, &config.run.worker) {
            (Some(shard), _) => (
                shard.to_string(),
                (0..shard.count())
                    .map(|index| GamesTail::new(run.shard(index).games_csv()))
                    .collect(),
            ),
            (None, Some(worker)) => (format!("worker {worker}"), Vec::new()),
            (None, None) => return None,
        };
        Some(SprtWatcher {
            tails,
            run: config.run.out.clone(),
            run_id: config.run.run_id.clone(),
            member,
            workers: config.run.worker.is_some(),
            tested: config.engines.first()?.name.clone(),
            pending: BTreeMap::new(),
            next_game: 1,
            test: SequentialTest::new(sprt),
            verdict: None,
            started: BTreeSet::new(),
            plan,
        })
    }

    /// Whether this shard or worker may start a game of pair `pair`: a game of a pair it
    /// started always (a pair is never cut in half); the first game of another pair only
    /// when, after a [`look`](Self::look), no verdict is recorded, and, for a worker, only
    /// within the run's read-ahead: fewer than `2 × (L + 1)` pairs past the pair of the first
    /// game not recorded, `L` the pairs leased in the run ([`units_leased`]). The verdict is
    /// counted in game-id order, so a slow worker's game holds it back; without the bound,
    /// fast workers would play on past a verdict that the slow game then completes. With it,
    /// the pairs started before the verdict was known lie within `2 × C` pairs of it, `C` the
    /// run's concurrency. Static shards have no read-ahead: they may run one after another.
    ///
    /// # Errors
    /// As [`look`](Self::look); `RUN/claims/` that cannot be listed.
    pub fn may_start(&mut self, pair: u64) -> Result<SharedGate, RecordsError> {
        if self.started.contains(&pair) {
            return Ok(SharedGate::Start);
        }
        if self.look()?.is_some() {
            return Ok(SharedGate::Verdict);
        }
        let first_missing = self
            .plan
            .game(self.next_game)
            .map_or(u64::MAX, |game| game.pair);
        if self.workers && pair >= first_missing.saturating_add(self.read_ahead()?) {
            return Ok(SharedGate::Wait);
        }
        self.started.retain(|&started| started >= first_missing);
        self.started.insert(pair);
        Ok(SharedGate::Start)
    }

    /// The read-ahead of a run of workers, in pairs past the pair of the first game not
    /// recorded: twice the pairs leased plus one.
    fn read_ahead(&self) -> Result<u64, RecordsError> {
        let leased =
            units_leased(&self.run, UnitKind::PAIR).map_err(|source| RecordsError::Io {
                path: RunDir::new(&self.run).claims(),
                action: "cannot list",
                source,
            })?;
        Ok(2 * (leased as u64 + 1))
    }

    /// Looks for a verdict: the one the games recorded so far reach (read in game-id order
    /// up to the first game missing), which it then records in `RUN/sprt.json` (when another
    /// shard recorded the same verdict first, its record is kept).
    ///
    /// # Errors
    /// A games.csv or sprt.json that cannot be read or is malformed; a verdict that cannot
    /// be written.
    pub fn look(&mut self) -> Result<Option<&RecordedVerdict>, RecordsError> {
        if self.verdict.is_none()
            && let Some(verdict) = self.count_new_games()?
        {
            self.verdict = Some(record_verdict(&self.run, verdict)?);
        }
        Ok(self.verdict.as_ref())
    }

    /// The verdict, once a [`look`](Self::look) found it.
    pub fn verdict(&self) -> Option<&RecordedVerdict> {
        self.verdict.as_ref()
    }

    /// Reads every shard's new games and counts them in game-id order up to the first one
    /// missing; the verdict when a game reaches it.
    fn count_new_games(&mut self) -> Result<Option<RecordedVerdict>, RecordsError> {
        while !self.read_new_games()? {
            // A worker's games.csv read from is gone (its directory removed): its games are
            // not recorded any more, and the test is counted again from what the files hold.
            self.tails.clear();
            self.pending.clear();
            self.next_game = 1;
            self.test = SequentialTest::new(*self.test.sprt());
        }
        while let Some((pair, outcome)) = self.pending.remove(&self.next_game) {
            self.next_game += 1;
            if let Some(verdict) = self.test.add(pair, outcome) {
                let counts = self.test.counts();
                return Ok(Some(RecordedVerdict {
                    run_id: self.run_id.clone(),
                    sprt: self.test.sprt().to_string(),
                    report: self.test.sprt().report(verdict.llr),
                    games: verdict.games,
                    model: verdict.model,
                    pentanomial: counts.pentanomial().into(),
                    wins: counts.wins(),
                    losses: counts.losses(),
                    recorded_by: self.member.clone(),
                    recorded_at: now_rfc3339(),
                }));
            }
        }
        Ok(None)
    }
}

impl SprtWatcher {
    /// Reads every shard's new games into `pending`; `false` when a worker's games.csv read
    /// from before is gone.
    fn read_new_games(&mut self) -> Result<bool, RecordsError> {
        if self.workers {
            self.follow_new_workers()?;
        }
        for tail in &mut self.tails {
            let games = match tail.read_new() {
                Ok(games) => games,
                Err(RecordsError::Io { source, .. })
                    if self.workers && source.kind() == std::io::ErrorKind::NotFound =>
                {
                    return Ok(false);
                }
                Err(err) => return Err(err),
            };
            for game in games {
                if game.game_id >= self.next_game {
                    let outcome = outcome_for(&self.tested, &game);
                    self.pending.insert(game.game_id, (game.pair, outcome));
                }
            }
        }
        Ok(true)
    }

    /// Follows the games.csv of every worker directory not followed yet.
    fn follow_new_workers(&mut self) -> Result<(), RecordsError> {
        let workers = RunDir::new(&self.run)
            .worker_dirs()
            .map_err(|e| RecordsError::Io {
                path: self.run.clone(),
                action: "cannot list",
                source: std::io::Error::other(e.to_string()),
            })?;
        for worker in workers {
            let games = worker.games_csv();
            if !self.tails.iter().any(|tail| tail.path() == games) {
                self.tails.push(GamesTail::new(games));
            }
        }
        Ok(())
    }
}

/// A game from the side of engine `tested`.
fn outcome_for(tested: &str, game: &GameRecord) -> Outcome {
    Outcome {
        white: game.white == tested,
        won: game.winner_name() == tested,
    }
}

/// Records `verdict` as `run/sprt.json` unless the same verdict is there already (recorded by
/// another shard first: that record is kept and returned); a file holding another verdict
/// (of another run or test, left in a reused directory) is replaced.
fn record_verdict(run: &Path, verdict: RecordedVerdict) -> Result<RecordedVerdict, RecordsError> {
    let path = RunDir::new(run).sprt_json();
    if write_json(&path, &verdict, Existing::Keep)? {
        return Ok(verdict);
    }
    // A record that does not read is replaced as a stale one is.
    match read_verdict(run) {
        Ok(Some(recorded)) if recorded.same_verdict(&verdict) => Ok(recorded),
        _ => {
            write_json(&path, &verdict, Existing::Replace)?;
            Ok(verdict)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::record;
    use crate::records::{GameResult, ResultsWriter, Termination};
    use crate::rules::Rules;
    use crate::stats::SprtDecision;
    use crate::tournament::shard::test_config;

    /// The watcher of `config`, over its schedule.
    fn watcher_of(config: &TournamentConfig) -> Option<SprtWatcher> {
        let plan = Plan::new(
            config.format,
            config.engines.len(),
            config.rounds,
            config.games,
        );
        SprtWatcher::for_config(config, plan)
    }

    fn config(run: &Path, shard: &str) -> TournamentConfig {
        let mut config = test_config(run, shard);
        config.sprt = Some("elo0=0 elo1=200".parse().unwrap());
        config.run.run_id = Some("run-a".into());
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
        // The shard that plays the deciding pair lags; the other plays well past it.
        let lagging = u32::try_from((deciding - 1) % 2).unwrap();
        let ahead = 1 - lagging;
        let mut watcher = watcher_of(&config(run, &format!("{lagging}/2"))).unwrap();
        let (mut behind, mut front) = (writer(run, lagging), writer(run, ahead));
        let pairs_of = |shard: u32, last: u64| {
            (1..=last).filter(move |pair| (pair - 1) % 2 == u64::from(shard))
        };
        for pair in pairs_of(ahead, 2 * deciding) {
            for game in pair_won(pair) {
                front.append(&game).unwrap();
            }
        }
        let first = pairs_of(lagging, deciding).next().unwrap();
        assert_eq!(watcher.may_start(first).unwrap(), SharedGate::Start);
        assert_eq!(
            watcher.may_start(first).unwrap(),
            SharedGate::Start,
            "the pair's second game"
        );
        assert_eq!(watcher.look().unwrap(), None);
        for pair in pairs_of(lagging, deciding - 1) {
            for game in pair_won(pair) {
                behind.append(&game).unwrap();
            }
        }
        assert_eq!(
            watcher.look().unwrap(),
            None,
            "the deciding pair {deciding} is missing"
        );
        assert!(!run.join("sprt.json").exists());
        assert_eq!(watcher.may_start(deciding).unwrap(), SharedGate::Start);
        for game in pair_won(deciding) {
            behind.append(&game).unwrap();
        }
        let verdict = watcher.look().unwrap().unwrap().clone();
        assert_eq!(verdict.games, 2 * deciding);
        assert_eq!(verdict.pentanomial, [0, 0, 0, 0, deciding]);
        assert_eq!((verdict.wins, verdict.losses), (2 * deciding, 0));
        assert_eq!(verdict.report, sprt.report(verdict.report.llr));
        assert_eq!(verdict.report.decision, SprtDecision::AcceptH1);
        assert_eq!(verdict.recorded_by.to_string(), format!("{lagging}/2"));
        assert_eq!(verdict.run_id.as_deref(), Some("run-a"));
        assert_eq!(read_verdict(run).unwrap(), Some(verdict.clone()));
        assert_eq!(watcher.may_start(99).unwrap(), SharedGate::Verdict);
        assert!(
            verdict.to_string().ends_with(&format!(
                "SPRT: H1 accepted at game {} over the games of every shard (recorded by \
                 shard {lagging}/2)",
                2 * deciding
            )),
            "{verdict}"
        );

        // The other shard reaches the same verdict from the games and keeps the record.
        let mut other = watcher_of(&config(run, &format!("{ahead}/2"))).unwrap();
        assert_eq!(other.may_start(2).unwrap(), SharedGate::Verdict);
        assert_eq!(other.verdict(), Some(&verdict));
    }

    #[test]
    fn a_worker_reads_ahead_of_the_first_missing_game_by_twice_the_pairs_leased() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let mut config = config(run, "0/1");
        config.run.shard = None;
        config.run.worker = Some("a".into());
        let mut watcher = watcher_of(&config).unwrap();
        // Another worker recorded pairs 2 to 5; pair 1 is missing.
        let mut other = ResultsWriter::open(&run.join("worker-b"), Rules::CaptureOnly).unwrap();
        for pair in 2..=5 {
            for game in pair_won(pair) {
                other.append(&game).unwrap();
            }
        }
        // No lease: two pairs from pair 1.
        assert_eq!(watcher.may_start(2).unwrap(), SharedGate::Start);
        assert_eq!(watcher.may_start(3).unwrap(), SharedGate::Wait);
        // Two pairs leased (done markers and expired leases are not): six pairs.
        let claims = RunDir::new(run).claims();
        std::fs::create_dir_all(&claims).unwrap();
        for name in [
            "pair-1",
            "pair-7",
            "pair-3.done",
            "pair-4.expired-x",
            "tune-9",
        ] {
            std::fs::write(claims.join(name), "").unwrap();
        }
        assert_eq!(watcher.may_start(6).unwrap(), SharedGate::Start);
        assert_eq!(watcher.may_start(7).unwrap(), SharedGate::Wait);
        // A pair started is never held back, whatever the read-ahead.
        std::fs::remove_file(claims.join("pair-7")).unwrap();
        assert_eq!(watcher.may_start(6).unwrap(), SharedGate::Start);
        // Pair 1 recorded: the first missing game is pair 6's.
        for game in pair_won(1) {
            other.append(&game).unwrap();
        }
        assert_eq!(watcher.may_start(9).unwrap(), SharedGate::Start);
        assert_eq!(watcher.may_start(10).unwrap(), SharedGate::Wait);
        // Static shards have no read-ahead.
        let mut shard = watcher_of(&super::tests::config(run, "1/2")).unwrap();
        assert_eq!(shard.may_start(40).unwrap(), SharedGate::Start);
    }

    /// Pairs 1 to `pairs`, each won twice by `new`, recorded by the two shards of `run`.
    fn play_both_shards(run: &Path, pairs: u64) {
        let mut shards = [writer(run, 0), writer(run, 1)];
        for pair in 1..=pairs {
            for game in pair_won(pair) {
                shards[usize::from(pair % 2 == 0)].append(&game).unwrap();
            }
        }
    }

    #[test]
    fn a_verdict_left_by_another_run_neither_stops_a_shard_nor_stays() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let mut stale = config(run, "0/2");
        stale.run.run_id = Some("old-run".into());
        let mut watcher = watcher_of(&stale).unwrap();
        play_both_shards(run, 30);
        let old = watcher.look().unwrap().unwrap().clone();
        assert_eq!(old.run_id.as_deref(), Some("old-run"));
        // The shards are removed; a new run in the same directory plays no game yet.
        std::fs::remove_dir_all(run.join("shard-0")).unwrap();
        std::fs::remove_dir_all(run.join("shard-1")).unwrap();
        let mut fresh = watcher_of(&config(run, "0/2")).unwrap();
        assert_eq!(
            fresh.may_start(1).unwrap(),
            SharedGate::Start,
            "no game reaches a verdict"
        );
        assert_eq!(fresh.look().unwrap(), None);
        assert!(!old.is_for(Some("run-a"), &"elo0=0 elo1=200".parse().unwrap()));
        assert!(old.is_for(
            Some("old-run"),
            &"elo0=0 elo1=200 alpha=0.05".parse().unwrap()
        ));
        // Its own verdict, once reached, replaces the stale record.
        play_both_shards(run, 30);
        let new = fresh.look().unwrap().unwrap().clone();
        assert_eq!(new.run_id.as_deref(), Some("run-a"));
        assert_eq!(read_verdict(run).unwrap(), Some(new));
    }

    #[test]
    fn a_malformed_verdict_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sprt.json"), "{\"sprt\": 1}").unwrap();
        let err = read_verdict(dir.path()).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!(
                "{}, line 1: ",
                dir.path().join("sprt.json").display()
            )),
            "{err}"
        );
        assert_eq!(read_verdict(&dir.path().join("none")).unwrap(), None);
    }
}
