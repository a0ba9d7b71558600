//! A selection's rounds as the arena's [`Schedule`]: the unit is one candidate's game pair of
//! a round ([`Layout`]); the rounds after round `r` are known once every pair of round `r` is
//! recorded, by any process of the run ([`Schedule::observed`]), and wait for it until then
//! ([`Gate::Wait`]). So who plays, and the choice, depend on the games alone, never on which
//! finished first: at any concurrency, over workers, after a kill and `--resume`.

use super::SelectError;
use super::config::SelectConfig;
use super::feed::{Feed, Layout};
use super::procedure::{Ending, Event, Procedure};
use crate::arena::{
    Console, Flow, Gate, Job, RecordedGame, Schedule, ScheduledGame, Seat, Unit, UnitKind, lock,
};
use crate::game::PlayedGame;
use crate::openings::spec::opening_sequence;
use crate::records::GameRecord;
use crate::stats::elo_from_score;
use std::sync::Mutex;

/// A selection's unit: one candidate's game pair of a round (`claims/pair-N`).
pub const UNIT: UnitKind = UnitKind::PAIR;

/// The rounds of a selection.
pub struct Rounds<'a> {
    config: &'a SelectConfig,
    names: Vec<String>,
    base: Seat,
    /// Each candidate's seat, in the order given.
    seats: Vec<Seat>,
    /// The book's order: round r plays opening `sequence[(r - 1) % len]`.
    sequence: Vec<usize>,
    state: Mutex<State>,
}

struct State {
    feed: Feed,
    /// What the rounds taken changed, not said yet.
    unsaid: Vec<String>,
    /// An engine was given up, or a game could not be played on this machine: no round
    /// opens any more.
    halted: bool,
}

impl<'a> Rounds<'a> {
    /// The rounds of `config` over a book of `book_len` openings.
    ///
    /// # Errors
    /// [`SelectError::Test`] for an indifference the SPRT against the base refuses.
    pub fn new(config: &'a SelectConfig, book_len: usize) -> Result<Rounds<'a>, SelectError> {
        let procedure = Procedure::new(config.rule()).map_err(SelectError::Test)?;
        Ok(Rounds {
            config,
            names: config.names(),
            base: Seat(config.base_index()),
            seats: config.candidates().into_iter().map(Seat).collect(),
            sequence: opening_sequence(config.run.openings.order, book_len.max(1), config.run.seed),
            state: Mutex::new(State {
                feed: Feed::new(procedure),
                unsaid: Vec::new(),
                halted: false,
            }),
        })
    }

    fn layout(&self) -> Layout {
        Layout {
            candidates: self.seats.len(),
        }
    }

    /// The selection as the games recorded so far decide it.
    pub fn procedure(&self) -> Procedure {
        lock(&self.state).feed.procedure().clone()
    }

    /// The games of `unit`: White and Black's seats of its first and second game.
    fn games(&self, unit: Unit) -> [(u64, Seat, Seat); 2] {
        let (_, candidate) = self.layout().place(unit);
        let seat = self.seats[candidate];
        [
            (2 * unit.0 - 1, seat, self.base),
            (2 * unit.0, self.base, seat),
        ]
    }

    /// Says what the rounds taken changed.
    fn say_unsaid(&self, console: &Console) {
        let lines = std::mem::take(&mut lock(&self.state).unsaid);
        for line in lines {
            console.say(&line);
        }
    }

    /// The line saying what `event` of round `round` means.
    fn describe(&self, round: u64, event: &Event, procedure: &Procedure) -> String {
        let name = |candidate: usize| &self.names[self.seats[candidate].index()];
        let test = procedure.base_test();
        match event {
            Event::Eliminated { candidate, how } => format!(
                "Round {round}: {} eliminated by {} ({})",
                name(*candidate),
                name(how.by),
                super::report::why_left(how.lead, how.bound)
            ),
            Event::Chosen { candidate, .. } => format!(
                "Round {round}: {} chosen, the last candidate in; it plays on against {} \
                 until its test decides",
                name(*candidate),
                self.config.base
            ),
            Event::BaseDecided { candidate, verdict } => format!(
                "{}'s test against {}: {} after {} pairs, {}",
                name(*candidate),
                self.config.base,
                super::report::decision_words(verdict.decision),
                verdict.pairs,
                test.report(verdict.llr)
            ),
            Event::Ended(Ending::Decided { chosen, beats_base }) => format!(
                "Selection decided after round {round}: {} {}",
                name(*chosen),
                match beats_base {
                    true => format!("is the best candidate and beats {}", self.config.base),
                    false => format!("is the best candidate; none beats {}", self.config.base),
                }
            ),
            Event::Ended(Ending::Budget) => format!(
                "Budget reached after round {round}: the next round would pass {} games",
                self.config.budget.unwrap_or(0)
            ),
        }
    }
}

impl Schedule for Rounds<'_> {
    type Error = SelectError;

    fn unit_kind(&self) -> UnitKind {
        UNIT
    }

    fn next_unit(&self, after: Option<Unit>) -> Option<Unit> {
        Some(after.map_or(Unit(1), Unit::next))
    }

    fn games_in(&self, _unit: Unit) -> usize {
        2
    }

    fn recorded(&self, game: &GameRecord) -> Result<RecordedGame, SelectError> {
        let unit = Layout::unit_of_game(game.game_id);
        let (_, white, black) = self.games(unit)[usize::from(game.game_id.is_multiple_of(2))];
        let scheduled = (&self.names[white.index()], &self.names[black.index()]);
        if (&game.white, &game.black) != scheduled {
            return Err(SelectError::NotScheduled {
                game_id: game.game_id,
                played: (game.white.clone(), game.black.clone()),
                scheduled: (scheduled.0.clone(), scheduled.1.clone()),
            });
        }
        Ok(RecordedGame {
            game_id: game.game_id,
            unit,
            result: game.result,
        })
    }

    /// Takes the game into its round; a round complete is decided at once.
    fn observed(&self, game: &RecordedGame) {
        let white_won = game.result.winner() == crate::rules::Color::White;
        let candidate_won = white_won == Layout::candidate_white(game.game_id);
        let mut state = lock(&self.state);
        let events = match state.feed.add(game.game_id, candidate_won) {
            Ok(events) => events,
            Err(err) => {
                state.unsaid.push(format!("warning: {err}"));
                Vec::new()
            }
        };
        let procedure = state.feed.procedure().clone();
        for (round, event) in &events {
            let line = self.describe(*round, event, &procedure);
            state.unsaid.push(line);
        }
    }

    /// Complete when both games are recorded, or when its candidate does not play its round.
    fn is_complete(&self, unit: Unit, games: &[RecordedGame]) -> bool {
        if games.len() >= 2 {
            return true;
        }
        let (round, candidate) = self.layout().place(unit);
        lock(&self.state).feed.plays(candidate, round) == Some(false)
    }

    /// A round opens once the rounds before it are decided; none after the end.
    fn gate(&self, unit: Unit, console: &Console) -> Result<Gate, SelectError> {
        self.say_unsaid(console);
        let (round, _) = self.layout().place(unit);
        let state = lock(&self.state);
        let procedure = state.feed.procedure();
        if state.halted || procedure.ending().is_some_and(|(_, last)| round > last) {
            return Ok(Gate::Verdict);
        }
        Ok(match round > procedure.rounds() + 1 {
            true => Gate::Wait,
            false => Gate::Open,
        })
    }

    fn open(&self, unit: Unit, recorded: &[RecordedGame]) -> Result<Vec<Job>, SelectError> {
        let (round, candidate) = self.layout().place(unit);
        if lock(&self.state).feed.plays(candidate, round) != Some(true) {
            return Ok(Vec::new());
        }
        let opening =
            self.sequence[usize::try_from(round - 1).unwrap_or(usize::MAX) % self.sequence.len()];
        Ok(self
            .games(unit)
            .into_iter()
            .filter(|(id, _, _)| recorded.iter().all(|r| r.game_id != *id))
            .map(|(game_id, white, black)| {
                Job::plain(
                    ScheduledGame {
                        game_id,
                        round: u32::try_from(round).unwrap_or(u32::MAX),
                        pair: unit.0,
                        white,
                        black,
                        opening,
                    },
                    unit,
                )
            })
            .collect())
    }

    fn finished(
        &self,
        _job: &Job,
        record: &GameRecord,
        played: &PlayedGame,
        console: &Console,
    ) -> Flow<SelectError> {
        console.say(&format!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            record.game_id, record.white, record.black, record.result, played.detail
        ));
        self.say_unsaid(console);
        Flow::Continue
    }

    /// A game that cannot be played on this machine leaves its round incomplete: no round
    /// opens any more (a worker leaves it to the others).
    fn not_played(&self, _job: &Job) {
        if self.config.run.worker.is_none() {
            lock(&self.state).halted = true;
        }
    }

    /// An engine given up: no round opens any more.
    fn drop_engine(&self, _seat: Seat) -> Vec<Job> {
        lock(&self.state).halted = true;
        Vec::new()
    }

    fn score_line(&self) -> String {
        let state = lock(&self.state);
        let procedure = state.feed.procedure();
        let name = |candidate: usize| &self.names[self.seats[candidate].index()];
        let elo = |candidate: usize| elo_from_score(procedure.standings()[candidate].score());
        match procedure.chosen() {
            Some((chosen, round)) => {
                let test = procedure.base_test();
                let counts = procedure.standings()[chosen].counts;
                format!(
                    "{} chosen at round {round}; against {}: {:+.1} Elo, {}",
                    name(chosen),
                    self.config.base,
                    elo(chosen),
                    test.report(test.llr_pentanomial(&counts))
                )
            }
            None => {
                let leader = procedure.leader();
                format!(
                    "round {}: {} of {} in, leader {} {:+.1} Elo against {}",
                    procedure.rounds(),
                    procedure.remaining().len(),
                    self.seats.len(),
                    name(leader),
                    elo(leader),
                    self.config.base
                )
            }
        }
    }

    fn interim(&self, recorded: u64, _total: u64) -> Option<String> {
        Some(format!("Games {recorded}: {}", self.score_line()))
    }

    fn refresh_report(&self, _recorded: u64, _total: u64) -> Result<(), crate::arena::ReportError> {
        super::report::write_run(self.config, true)?;
        Ok(())
    }
}
