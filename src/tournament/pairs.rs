//! A tournament's game pairs as the arena's [`Schedule`]: round-robin and gauntlet pairs
//! ([`Plan`]), each pair's opening from the book's order, and the SPRT that stops the run:
//! this machine's own, fed in the order the games are recorded, or on a shard or worker the
//! run's shared one over every process's games ([`SprtWatcher`]). The unit is the game pair;
//! a pair cut in half is finished first, and no new pair starts once the SPRT has a verdict.

use super::config::TournamentConfig;
use super::shard::sprt::{SharedGate, SprtWatcher};
use super::tally::RunTally;
use crate::arena::{
    Console, Flow, Gate, Job, RecordedGame, Schedule, ScheduledGame, Seat, Unit, UnitKind, lock,
};
use crate::game::PlayedGame;
use crate::openings::spec::opening_sequence;
use crate::records::{GameRecord, RecordsError};
use crate::rules::Color;
use crate::run::settings::{Pairing, Plan};
use crate::run_dir::RunDir;
use crate::stats::{SequentialTest, Sprt};
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Why a tournament stops: a game that is not of its schedule, or the shared SPRT's files.
#[derive(Debug)]
pub enum PairsError {
    /// A recorded game the schedule does not play.
    NotScheduled(NotScheduled),
    /// The shards' or workers' games cannot be read for the shared SPRT, or its verdict
    /// cannot be recorded.
    SharedSprt(RecordsError),
    /// The run's report cannot be read or written.
    Report(crate::run::games::ReadError),
}

/// Why a recorded game is not of a tournament's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotScheduled {
    /// Its id is outside the schedule.
    OutOfSchedule,
    /// Its pair is another shard's.
    OtherShard(crate::run_dir::Shard),
    /// Other engines played it than scheduled.
    OtherEngines {
        /// White and Black as recorded.
        played: (String, String),
        /// White and Black as scheduled.
        scheduled: (String, String),
    },
}

impl fmt::Display for PairsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairsError::NotScheduled(NotScheduled::OutOfSchedule) => {
                f.write_str("not in this tournament's schedule")
            }
            PairsError::NotScheduled(NotScheduled::OtherShard(shard)) => {
                write!(f, "not in shard {shard}'s part of the schedule")
            }
            PairsError::NotScheduled(NotScheduled::OtherEngines { played, scheduled }) => write!(
                f,
                "played by {} vs {}, scheduled as {} vs {}",
                played.0, played.1, scheduled.0, scheduled.1
            ),
            PairsError::SharedSprt(err) => err.fmt(f),
            PairsError::Report(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for PairsError {}

/// The game pairs of a tournament (or of its shard, or played by one of its workers).
pub struct Pairs<'a> {
    config: &'a TournamentConfig,
    plan: Plan,
    /// The book's order: pair p (from 1) plays opening `sequence[(p - 1) % len]`.
    sequence: Vec<usize>,
    names: Vec<String>,
    tally: Mutex<RunTally>,
    /// The run's SPRT, on one machine; `None` on a shard or worker (theirs is `watcher`).
    pub(super) sprt: Option<Sprt>,
    watcher: Option<Mutex<SprtWatcher>>,
    /// The SPRT has a verdict: no new pair starts.
    decided: AtomicBool,
    /// The highest pair opened (for the games of an engine given up).
    opened_through: AtomicU64,
    /// Engines given up: their games of pairs not opened yet are left out.
    dropped: Mutex<Vec<Seat>>,
}

impl<'a> Pairs<'a> {
    /// The schedule of `config` with a book of `book_len` openings (1: the start position).
    pub fn new(config: &'a TournamentConfig, book_len: usize) -> Pairs<'a> {
        let sprt = config.sprt.filter(|_| !config.run.is_spread());
        let plan = Plan::new(
            config.format,
            config.engines.len(),
            config.rounds,
            config.games,
        );
        Pairs {
            config,
            watcher: SprtWatcher::for_config(config, plan.clone()).map(Mutex::new),
            plan,
            sequence: opening_sequence(config.run.openings.order, book_len.max(1), config.run.seed),
            names: config.names(),
            tally: Mutex::new(RunTally::new(sprt.map(SequentialTest::new))),
            sprt,
            decided: AtomicBool::new(false),
            opened_through: AtomicU64::new(0),
            dropped: Mutex::new(Vec::new()),
        }
    }

    /// Games in the schedule of this process (a shard's part of it).
    pub fn own_games(&self) -> u64 {
        (1..=self.plan.pairs())
            .filter(|&pair| self.plays(Unit(pair)))
            .map(|pair| self.plan.pair_games(pair).len() as u64)
            .sum()
    }

    /// Whether `pair` is this process's: every pair on one machine or for a worker, every
    /// Nth on a shard.
    fn plays(&self, pair: Unit) -> bool {
        self.config
            .run
            .shard
            .is_none_or(|shard| shard.plays_pair(pair.0))
    }

    fn engine_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The job of game `game` of the plan.
    fn job(&self, game: Pairing) -> Job {
        let opening = self.sequence
            [usize::try_from(game.pair - 1).unwrap_or(usize::MAX) % self.sequence.len()];
        Job::plain(
            ScheduledGame {
                game_id: game.game_id,
                round: game.round,
                pair: game.pair,
                white: Seat(game.white),
                black: Seat(game.black),
                opening,
            },
            Unit(game.pair),
        )
    }

    /// What the shared SPRT (a shard's or worker's) says of starting `pair`; once it has a
    /// verdict, says so once on `console`.
    fn shared_sprt_gate(&self, pair: Unit, console: &Console) -> Result<Gate, PairsError> {
        let Some(watcher) = &self.watcher else {
            return Ok(Gate::Open);
        };
        let mut watcher = lock(watcher);
        match watcher.may_start(pair.0).map_err(PairsError::SharedSprt)? {
            SharedGate::Start => return Ok(Gate::Open),
            SharedGate::Wait => return Ok(Gate::Wait),
            SharedGate::Verdict => {}
        }
        if let Some(verdict) = watcher
            .verdict()
            .filter(|_| !self.decided.swap(true, Ordering::SeqCst))
        {
            console.say(&format!(
                "{verdict}; no new game pair starts on {}",
                self.config.run.member()
            ));
        }
        self.decided.store(true, Ordering::SeqCst);
        Ok(Gate::Verdict)
    }

    /// A shard's or worker's last look at the shared SPRT once its games are done (its last
    /// games may decide it).
    ///
    /// # Errors
    /// The shards' games cannot be read, or the verdict cannot be recorded.
    pub fn last_look(&self) -> Result<(), PairsError> {
        if let Some(watcher) = &self.watcher {
            lock(watcher).look().map_err(PairsError::SharedSprt)?;
        }
        Ok(())
    }

    /// Whether game `game` plays an engine given up.
    fn plays_dropped(&self, job: &Job) -> bool {
        lock(&self.dropped).iter().any(|&seat| job.involves(seat))
    }
}

impl Schedule for Pairs<'_> {
    type Error = PairsError;

    fn unit_kind(&self) -> UnitKind {
        UnitKind::PAIR
    }

    fn next_unit(&self, after: Option<Unit>) -> Option<Unit> {
        let mut pair = after.map_or(Unit(1), Unit::next);
        if let Some(shard) = self.config.run.shard {
            // The least pair from here with (pair - 1) mod N = K.
            let (n, k) = (u64::from(shard.count()), u64::from(shard.index()));
            let base = pair.0 - 1;
            pair = Unit(base + (k + n - base % n) % n + 1);
        }
        (pair.0 <= self.plan.pairs()).then_some(pair)
    }

    fn games_in(&self, unit: Unit) -> usize {
        self.plan.pair_games(unit.0).len()
    }

    fn recorded(&self, game: &GameRecord) -> Result<RecordedGame, PairsError> {
        let not = |why| Err(PairsError::NotScheduled(why));
        let Some(slot) = self.plan.game(game.game_id) else {
            return not(NotScheduled::OutOfSchedule);
        };
        if let Some(shard) = self.config.run.shard
            && !shard.plays_pair(slot.pair)
        {
            return not(NotScheduled::OtherShard(shard));
        }
        let scheduled = (&self.names[slot.white], &self.names[slot.black]);
        if (&game.white, &game.black) != scheduled {
            return not(NotScheduled::OtherEngines {
                played: (game.white.clone(), game.black.clone()),
                scheduled: (scheduled.0.clone(), scheduled.1.clone()),
            });
        }
        Ok(RecordedGame {
            game_id: game.game_id,
            unit: Unit(slot.pair),
            result: game.result,
        })
    }

    /// Counts the games of an earlier session into the tally, in file order, so that the
    /// progress line's score and a resumed SPRT continue from them (a decided SPRT plays no
    /// game).
    fn resumed(&self, game: &GameRecord) {
        let white = self.engine_index(&game.white);
        if let (Some(white), Some(winner)) = (white, self.engine_index(game.winner_name())) {
            let mut tally = lock(&self.tally);
            tally.add(game.pair, white, winner);
            if tally.decided() {
                self.decided.store(true, Ordering::SeqCst);
            }
        }
    }

    /// No new pair once the SPRT (this machine's or the shared one) has a verdict.
    fn gate(&self, unit: Unit, console: &Console) -> Result<Gate, PairsError> {
        if self.decided.load(Ordering::SeqCst) {
            return Ok(Gate::Verdict);
        }
        self.shared_sprt_gate(unit, console)
    }

    fn open(&self, unit: Unit, recorded: &[RecordedGame]) -> Result<Vec<Job>, PairsError> {
        self.opened_through.fetch_max(unit.0, Ordering::SeqCst);
        Ok(self
            .plan
            .pair_games(unit.0)
            .into_iter()
            .filter(|game| recorded.iter().all(|r| r.game_id != game.game_id))
            .map(|game| self.job(game))
            .filter(|job| !self.plays_dropped(job))
            .collect())
    }

    /// Counts the game, prints its line, and feeds the SPRT: once it reaches its verdict no
    /// new pair starts (games in flight are finished and recorded).
    fn finished(
        &self,
        job: &Job,
        record: &GameRecord,
        played: &PlayedGame,
        console: &Console,
    ) -> Flow<PairsError> {
        let game = &job.game;
        let winner = match played.winner {
            Color::White => game.white,
            Color::Black => game.black,
        };
        console.say(&format!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            record.game_id, record.white, record.black, record.result, played.detail
        ));
        let verdict = lock(&self.tally).add(record.pair, game.white.index(), winner.index());
        if let (Some(verdict), Some(sprt)) = (verdict, &self.sprt) {
            self.decided.store(true, Ordering::SeqCst);
            console.say(&format!(
                "SPRT decided at game {}: {}; games in flight are finished and recorded",
                verdict.games,
                sprt.report(verdict.llr)
            ));
            return Flow::Verdict;
        }
        Flow::Continue
    }

    /// The games the engine plays in the pairs not opened yet; they are left out when their
    /// pairs open.
    fn drop_engine(&self, seat: Seat) -> Vec<Job> {
        lock(&self.dropped).push(seat);
        let from = Unit(self.opened_through.load(Ordering::SeqCst));
        std::iter::successors(self.next_unit(Some(from)), |&unit| {
            self.next_unit(Some(unit))
        })
        .flat_map(|unit| self.plan.pair_games(unit.0))
        .map(|game| self.job(game))
        .filter(|job| job.involves(seat))
        .collect()
    }

    fn score_line(&self) -> String {
        lock(&self.tally).score_line(&self.names)
    }

    /// A line per pair of engines ([`crate::report::interim_lines`]: games, Elo, LLR), as
    /// cutechess's score lines; the full report comes at the end.
    fn interim(&self, recorded: u64, total: u64) -> Option<String> {
        let games_csv = RunDir::new(self.config.results_dir()).games_csv();
        match crate::run::games::summary_of_file(&games_csv, &self.names, self.sprt.as_ref()) {
            Ok(summary) => {
                let lines = crate::report::interim_lines(&summary, recorded, total);
                (!lines.is_empty()).then(|| lines.join("\n"))
            }
            Err(err) => Some(format!("warning: no interim report: {err}")),
        }
    }

    fn refresh_report(&self, recorded: u64, total: u64) -> Result<(), crate::arena::ReportError> {
        super::live::refresh(self.config, self.sprt.as_ref(), (recorded, total))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::records::tests::record;
    use crate::records::{GameResult::*, Termination};

    /// Engines `a` and `b` at depth 1, 3 rounds of a game pair.
    fn two_engines() -> TournamentConfig {
        let engine = |name: &str| {
            EngineKeys::parse(&["cmd=unused", &format!("name={name}")])
                .and_then(|keys| keys.into_description(TimeControl::Depth(1)))
                .unwrap()
        };
        let mut config = TournamentConfig::new(vec![engine("a"), engine("b")]);
        config.rounds = 3;
        config.run.seed = 1;
        config
    }

    /// `schedule` resumed after games 1-4 of `a` against `b`: `a` wins 3 (pairs WW and WL
    /// from its side).
    fn after_four_games(schedule: &Pairs<'_>) {
        for game in [
            record(1, 1, "a", "b", WhiteWins, Termination::GoalRank),
            record(2, 1, "b", "a", BlackWins, Termination::GoalRank),
            record(3, 2, "a", "b", BlackWins, Termination::AllCaptured),
            record(4, 2, "b", "a", BlackWins, Termination::GoalRank),
        ] {
            schedule.resumed(&game);
            assert_eq!(schedule.recorded(&game).unwrap().unit, Unit(game.pair));
        }
    }

    #[test]
    fn a_resumed_score_starts_at_the_recorded_games() {
        let config = two_engines();
        let schedule = Pairs::new(&config, 1);
        after_four_games(&schedule);
        assert_eq!(schedule.score_line(), "a 3, b 1");
    }

    #[test]
    fn with_an_sprt_the_score_shows_the_llr_and_bounds() {
        let mut config = two_engines();
        let sprt: Sprt = "elo0=0 elo1=5".parse().unwrap();
        config.sprt = Some(sprt);
        let schedule = Pairs::new(&config, 1);
        after_four_games(&schedule);
        // Pairs WW and WL for a.
        let llr = sprt.llr_pentanomial(&crate::stats::Pentanomial::from([0, 0, 1, 0, 1]));
        assert_eq!(
            schedule.score_line(),
            format!("a 3, b 1  LLR {llr:.2} (-2.94, 2.94)")
        );
        assert!(llr > 0.0 && llr < 2.94, "{llr}");
    }

    #[test]
    fn pairs_share_an_opening_and_swap_colours_and_a_recorded_game_is_not_played_again() {
        let mut config = two_engines();
        config.engines.push(config.engines[0].clone());
        config.engines[2].name = "c".into();
        config.rounds = 2;
        let schedule = Pairs::new(&config, 10);
        let units: Vec<Unit> =
            std::iter::successors(schedule.next_unit(None), |&u| schedule.next_unit(Some(u)))
                .collect();
        assert_eq!(units.len(), 6);
        let mut openings = Vec::new();
        for unit in units {
            let jobs = schedule.open(unit, &[]).unwrap();
            let [first, second] = &jobs[..] else {
                panic!("a pair of two games: {jobs:?}");
            };
            assert_eq!(first.game.opening, second.game.opening);
            assert_eq!(
                (first.game.white, first.game.black),
                (second.game.black, second.game.white)
            );
            assert_eq!(first.game.game_id + 1, second.game.game_id);
            openings.push(first.game.opening);
        }
        assert_eq!(openings, [0, 1, 2, 3, 4, 5]);
        let recorded = [RecordedGame {
            game_id: 3,
            unit: Unit(2),
            result: WhiteWins,
        }];
        let left = schedule.open(Unit(2), &recorded).unwrap();
        assert_eq!(left.iter().map(|j| j.game.game_id).collect::<Vec<_>>(), [4]);
    }

    #[test]
    fn a_shard_plays_every_nth_pair_and_refuses_games_of_another() {
        let mut config = two_engines();
        config.rounds = 7;
        config.run.shard = Some("1/3".parse().unwrap());
        let schedule = Pairs::new(&config, 1);
        let units: Vec<u64> =
            std::iter::successors(schedule.next_unit(None), |&u| schedule.next_unit(Some(u)))
                .map(|unit| unit.0)
                .collect();
        assert_eq!(units, [2, 5]);
        assert_eq!(schedule.own_games(), 4);
        let foreign = record(1, 1, "a", "b", WhiteWins, Termination::GoalRank);
        assert_eq!(
            schedule.recorded(&foreign).unwrap_err().to_string(),
            "not in shard 1/3's part of the schedule"
        );
        let swapped = record(3, 2, "b", "a", WhiteWins, Termination::GoalRank);
        assert_eq!(
            schedule.recorded(&swapped).unwrap_err().to_string(),
            "played by b vs a, scheduled as a vs b"
        );
    }
}
