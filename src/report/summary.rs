//! The report of a run, computed: standings with Bradley–Terry ratings, per-pair Elo with
//! pentanomial counts and SPRT, and per-engine faults. Rendered as text by
//! [`text`](super::text) and as JSON (summary.json) by [`json`](super::json).

mod tables;
mod tally;

use super::claims::{ClaimRow, EngineClaims};
use super::latency::EngineLatency;
use super::openings::{OpeningsReport, OpeningsTally};
use crate::records::provenance::EngineProvenance;
use crate::records::{GameRecord, GameSink, Termination};
use crate::rules::{Board, Color};
use crate::stats::{
    self, Bound, EloEstimate, Pentanomial, SequentialTest, Sprt, SprtDecision, SprtStatus,
};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use tables::{engine_faults, pair_summaries, rate_pool, standings};
use tally::{Tally, fault_slot};

/// The report of a set of finished games. Serializes (as summary.json) with the field names
/// below; probabilities are in `[0, 1]`, Elo is logistic Elo.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Finished games counted (all of them, including any an engine played against itself).
    pub games: u64,
    /// Engine names: the tournament's order, then engines seen only in the games.
    pub engines: Vec<String>,
    /// The board the games were played on (`"6x6"`, read from each game's opening: the
    /// shape of its FEN); left out of summary.json on 8×8, so that an 8×8 run's file reads as
    /// before sizes existed. Games of several boards (runs of several sizes read together)
    /// leave it out and list them in [`boards`](Summary::boards).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<Board>,
    /// Every board the games were played on, smallest first, when there are several (else
    /// empty, and left out of summary.json).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<Board>,
    /// One row per engine, best first.
    pub standings: Vec<Standing>,
    /// Why the standings have no ratings (`None` when they have them): no finished games, or
    /// a pool that splits into groups that never met (the groups are named).
    pub unrated: Option<String>,
    /// Games with one name on both sides (an engine against itself, or two engines that give
    /// the same name, e.g. two builds whose `id name` is the same in a PGN): counted in
    /// [`games`](Summary::games) and the faults only, never in a rating or a pair. Left out
    /// of summary.json when there are none.
    #[serde(skip_serializing_if = "SelfPlay::is_empty")]
    pub self_play: SelfPlay,
    /// One entry per pair of engines that met (and, with an SPRT, the pair of the two engines
    /// even before they met), in tournament order.
    pub pairs: Vec<PairSummary>,
    /// Losses by fault (and stray answers) of each engine, in tournament order.
    pub faults: Vec<EngineFaults>,
    /// The engines' claims checked while they played (PVs, mate scores, ponder moves; see
    /// [`super::claims`]), per engine and kind, engines with a claim checked only; left out
    /// of summary.json when there are none (runs before the check, engines without `info`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<EngineClaims>,
    /// The claims found wrong, where (game, ply, position) and what, in game order: the first
    /// [`LISTED_FINDINGS`](super::claims::LISTED_FINDINGS) per engine and kind.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claim_findings: Vec<ClaimRow>,
    /// Each engine's latency per move: the wall time from `go` to `bestmove` less its own
    /// `info time`, median and 99th percentile in µs ([`super::latency`]), engines that
    /// reported a time only; left out of summary.json when there are none (runs before
    /// games.csv's `move_times` column, engines that print no `time`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<EngineLatency>,
    /// Engines built from source (or with a pinned bench), by name: repository, revision,
    /// commit, build command and bench signature. Set by the runner from the config; empty
    /// (and left out of summary.json) otherwise.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub builds: BTreeMap<String, EngineProvenance>,
    /// Games ended by adjudication, by rule; left out of summary.json when there are none.
    #[serde(skip_serializing_if = "AdjudicationCounts::is_empty")]
    pub adjudicated: AdjudicationCounts,
    /// The openings played: per opening and for the book ([`super::openings`]).
    pub openings: OpeningsReport,
    /// The engine the standings' ratings are relative to (`--anchor`: its rating 0, the
    /// others' `error95` that of their difference to it; see [`Summary::anchor_at`]); `None`
    /// (and left out of summary.json): the pool's mean is 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Of a run of workers, each host's games, losses by fault and score test
    /// ([`super::hosts`]); empty (and left out of summary.json) otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<super::hosts::HostHealth>,
    /// One standard error of each difference of two ratings, by name: what
    /// [`Summary::anchor_at`] needs. Not in summary.json.
    #[serde(skip)]
    pub(crate) differences: Option<RatingDifferences>,
}

/// The standard errors of the rating differences of a rated pool.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RatingDifferences {
    /// The rated engines, in the order of the matrix.
    pub(crate) names: Vec<String>,
    /// `std_error[i][j]`: one standard error of `rating_i - rating_j`.
    pub(crate) std_error: Vec<Vec<f64>>,
}

/// Why [`Summary::anchor_at`] cannot anchor the ratings at an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorError {
    /// The name asked for.
    pub anchor: String,
    /// The engines of the report.
    pub engines: Vec<String>,
}

impl std::fmt::Display for AnchorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--anchor {}: no engine of that name has a rating (the engines: {})",
            self.anchor,
            self.engines.join(", ")
        )
    }
}

impl std::error::Error for AnchorError {}

/// Games ended by adjudication, by rule: counted apart from the rules' endings and the
/// faults, all games included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct AdjudicationCounts {
    /// Ended by `--resign` (termination `resign`).
    pub resign: u64,
    /// Ended by a proof of `--adjudicate proof=PLIES` (termination `proof`).
    pub proof: u64,
    /// Ended by another tool's adjudication, read from its PGN (termination `adjudication`).
    pub other: u64,
}

impl AdjudicationCounts {
    /// True when no game was adjudicated.
    pub fn is_empty(&self) -> bool {
        *self == AdjudicationCounts::default()
    }

    /// All adjudicated games.
    pub fn total(&self) -> u64 {
        self.resign + self.proof + self.other
    }

    /// Counts a game that ended by `termination`.
    fn count(&mut self, termination: Termination) {
        match termination {
            Termination::Resign => self.resign += 1,
            Termination::Proof => self.proof += 1,
            Termination::Adjudication => self.other += 1,
            _ => {}
        }
    }
}

/// One row of the standings.
///
/// A game an engine played against itself is not counted here, nor in the pairs and ratings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standing {
    /// 1 for the best; ordered by rating, then by score, then by tournament order (engines
    /// without a rating come after those with one).
    pub rank: usize,
    /// Engine name.
    pub name: String,
    /// Bradley–Terry rating in Elo, the rated engines averaging 0; `None` when the pool is not
    /// rated or the engine has no games.
    pub elo: Option<f64>,
    /// Half-width of the 95% interval of `elo`: 1.96 standard errors; `None` for a bound (only
    /// one side of it is known: no interval).
    pub error95: Option<f64>,
    /// `Some` when `elo` is a bound, not an estimate (e.g. a perfect score): see [`Bound`].
    pub bound: Option<Bound>,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
    /// Share of the games won, in percent; `None` without games.
    pub score_percent: Option<f64>,
    /// Likelihood that this engine is stronger than the next-ranked one (from the ratings);
    /// `None` for the last rated engine and without ratings.
    pub los_next: Option<f64>,
}

pub use crate::stats::EloModel;

/// The games between two engines, from the point of view of `first` (the earlier in
/// tournament order).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairSummary {
    /// The engine the numbers are for.
    pub first: String,
    /// Its opponent.
    pub second: String,
    /// Games between the two.
    pub games: u64,
    /// Games `first` won.
    pub wins: u64,
    /// Games `first` lost.
    pub losses: u64,
    /// Complete game pairs by `first`'s points; serialized as `[LL, LD, WL, WD, WW]` (`LD`
    /// and `WD` stay 0 without draws). A complete pair is two games with the same pair
    /// number in the same file, the engines swapping colours (see [`MatchCounts`]).
    pub pentanomial: Pentanomial,
    /// Games in no complete pair: under [`EloModel::Pentanomial`] they count in `wins` and
    /// `losses` only, not in `elo` nor in the SPRT.
    pub unpaired: u64,
    /// Which counts `elo` (and the SPRT) come from: pentanomial once a pair is complete.
    pub model: EloModel,
    /// Elo of `first` minus `second`, its 95% error and LOS.
    pub elo: EloEstimate,
    /// The SPRT status (`first` the engine tested), when one was asked for: the verdict (the
    /// first crossing of a bound, games replayed in file order) and the games after it.
    pub sprt: Option<SprtStatus>,
}

/// Losses by fault of one engine: how many games it lost by each of the four fault
/// terminations ([`Termination::is_fault`]); and its stray answers, which lose nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EngineFaults {
    /// Engine name.
    pub name: String,
    /// Losses on time (`time-forfeit`).
    pub time_forfeits: u64,
    /// Losses by an illegal move (`illegal-move`).
    pub illegal_moves: u64,
    /// Losses by a crash (`crash`).
    pub crashes: u64,
    /// Losses by a stall (`stall`).
    pub stalls: u64,
    /// Lines it wrote that answered no request (games.csv `white_stray`/`black_stray`): warned
    /// about and never played, not losses.
    pub stray_answers: u64,
}

impl EngineFaults {
    /// No loss by fault yet for engine `name`.
    pub fn none(name: &str) -> EngineFaults {
        EngineFaults {
            name: name.to_string(),
            time_forfeits: 0,
            illegal_moves: 0,
            crashes: 0,
            stalls: 0,
            stray_answers: 0,
        }
    }

    /// Counts a game lost by `termination`; a regular ending counts nothing.
    pub fn add_loss(&mut self, termination: Termination) {
        let slot = match fault_slot(termination) {
            Some(0) => &mut self.time_forfeits,
            Some(1) => &mut self.illegal_moves,
            Some(2) => &mut self.crashes,
            Some(_) => &mut self.stalls,
            None => return,
        };
        *slot += 1;
    }

    /// Losses by fault of every kind.
    pub fn losses(&self) -> u64 {
        self.time_forfeits + self.illegal_moves + self.crashes + self.stalls
    }
}

impl Summary {
    /// What `--strict` fails a run on, one line per engine that misbehaved: its stray lines,
    /// losses by fault and claims found wrong by a check that accuses it
    /// ([`ClaimKind::is_fault`](crate::records::claims::ClaimKind::is_fault)); empty when none did.
    pub fn behaviour_failures(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for faults in &self.faults {
            let claims = self.claims.iter().find(|c| c.name == faults.name);
            let mut what = Vec::new();
            let counts = [
                (faults.stray_answers, "stray lines"),
                (faults.time_forfeits, "losses on time"),
                (faults.illegal_moves, "losses by an illegal move"),
                (faults.crashes, "crashes"),
                (faults.stalls, "stalls"),
            ];
            for (count, name) in counts {
                if count > 0 {
                    what.push(format!("{name}: {count}"));
                }
            }
            for (kind, &count) in claims.iter().flat_map(|c| &c.found) {
                if kind.is_fault() && count > 0 {
                    what.push(format!("{} wrong: {count}", kind.title()));
                }
            }
            if !what.is_empty() {
                lines.push(format!("{}: {}", faults.name, what.join(", ")));
            }
        }
        lines
    }

    /// [`behaviour_failures`](Summary::behaviour_failures) of the games of `files` (games.csv
    /// files, read as one run's: a tune's or a datagen run's; missing ones hold no game),
    /// streamed.
    ///
    /// # Errors
    /// A file that cannot be read or holds a malformed row.
    pub fn behaviour_failures_of(
        files: &[std::path::PathBuf],
    ) -> Result<Vec<String>, crate::records::RecordsError> {
        let mut builder = SummaryBuilder::new(&[], None);
        for file in files.iter().filter(|file| file.exists()) {
            for game in crate::records::GamesReader::open(file)? {
                builder.add(&game?);
            }
            builder.end_file();
        }
        Ok(builder.finish().behaviour_failures())
    }

    /// The report of `games` (one file's games): [`SummaryBuilder`] fed the games in order.
    ///
    /// `engines`: names in the tournament's order (engines with no finished games still
    /// listed; engines found in the games but not here are appended in order of first
    /// appearance, White before Black). `sprt`: when set and there are exactly two engines,
    /// the [`SequentialTest`] of the first against the second over the games in the order
    /// given (the order they were recorded, for its verdict to be the run's).
    /// Never panics: no games or a disconnected pool give standings without ratings and a
    /// note in [`unrated`](Summary::unrated).
    pub fn compute(games: &[GameRecord], engines: &[String], sprt: Option<&Sprt>) -> Summary {
        Summary::compute_shards(&[games], engines, sprt)
    }

    /// [`compute`](Summary::compute) over several files' games (e.g. shards of one run).
    /// Game pairs are matched within a file only, so pair numbers repeated across files do
    /// not join games of different files; the SPRT takes the files one after the other.
    pub fn compute_shards<S: AsRef<[GameRecord]>>(
        shards: &[S],
        engines: &[String],
        sprt: Option<&Sprt>,
    ) -> Summary {
        let mut builder = SummaryBuilder::new(engines, sprt);
        for games in shards {
            for game in games.as_ref() {
                builder.add(game);
            }
            builder.end_file();
        }
        builder.finish()
    }

    /// The standings rated relative to engine `name` (Ordo's anchor): its rating becomes 0 and
    /// the others' ratings their difference to it, each `error95` the 95% interval of that
    /// difference (`None` for the anchor itself); ranks, bounds and LOS are unchanged.
    /// Standings without ratings (see [`unrated`](Summary::unrated)) stay as they are.
    ///
    /// # Errors
    /// [`AnchorError`] when `name` is not a rated engine of the report.
    pub fn anchor_at(&mut self, name: &str) -> Result<(), AnchorError> {
        let error = || AnchorError {
            anchor: name.to_string(),
            engines: self.engines.clone(),
        };
        if self.unrated.is_some() && self.engines.iter().any(|e| e == name) {
            return Ok(());
        }
        let differences = self.differences.as_ref().ok_or_else(error)?;
        let at = |engine: &str| differences.names.iter().position(|n| n == engine);
        let anchor = at(name).ok_or_else(error)?;
        let offset = self
            .standings
            .iter()
            .find(|row| row.name == name)
            .and_then(|row| row.elo)
            .ok_or_else(error)?;
        for row in &mut self.standings {
            let Some(k) = at(&row.name) else { continue };
            row.elo = row.elo.map(|elo| elo - offset);
            if row.bound.is_none() {
                row.error95 =
                    (k != anchor).then(|| stats::z95() * differences.std_error[k][anchor]);
            }
        }
        self.anchor = Some(name.to_string());
        Ok(())
    }

    /// The SPRT decision, when the summary was computed with an SPRT (and two engines): the
    /// verdict's, or [`SprtDecision::Continue`] when no bound was crossed.
    pub fn sprt_decision(&self) -> Option<SprtDecision> {
        self.pairs
            .iter()
            .find_map(|pair| pair.sprt.map(|status| status.report.decision))
    }
}

/// The report computed one game at a time, in the order the games were recorded: what
/// [`Summary::compute`] does, for games that are read (or played) one by one and not kept.
/// Memory holds the engines, the per-engine and per-pair counts, and the game pairs still
/// open in the current file (one game seen, its partner not yet); never the games. (So a file
/// of games that never complete a pair, e.g. from `--games 1`, holds each of them until its
/// end: about 50 bytes a game.)
#[derive(Debug)]
pub struct SummaryBuilder {
    /// Engine names, the given ones first, then by first appearance.
    engines: Vec<String>,
    /// Index of each name in `engines`.
    index: HashMap<String, usize>,
    /// Games added.
    games: u64,
    /// The boards of the games added (8×8 for an opening that does not read).
    boards: std::collections::BTreeSet<Board>,
    tally: Tally,
    openings: OpeningsTally,
}

impl SummaryBuilder {
    /// A report of no games yet: `engines` and `sprt` as for [`Summary::compute`].
    pub fn new(engines: &[String], sprt: Option<&Sprt>) -> SummaryBuilder {
        let mut builder = SummaryBuilder {
            engines: Vec::new(),
            index: HashMap::new(),
            games: 0,
            boards: Default::default(),
            tally: Tally::default(),
            openings: OpeningsTally::new(engines),
        };
        for name in engines {
            builder.engine_index(name);
        }
        // An SPRT between the first two engines, dropped if a third one appears.
        if builder.engines.len() <= 2 {
            builder.tally.sprt = sprt.map(|&sprt| SequentialTest::new(sprt));
        }
        builder
    }

    /// Counts `game`, the next game of the file being read. Game pairs are matched within a
    /// file (pair numbers restart in each): call [`end_file`](Self::end_file) after the last
    /// game of each file.
    pub fn add(&mut self, game: &GameRecord) {
        self.games += 1;
        self.boards
            .insert(game.start().map_or(Board::STANDARD, |p| p.board()));
        let white = self.engine_index(&game.white);
        let black = self.engine_index(&game.black);
        let (winner, loser) = match game.result.winner() {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        self.openings.add(game);
        self.tally.claims.add(game, [white, black]);
        self.tally.latency.add(game, [white, black]);
        self.tally.stray[white] += game.white_stray;
        self.tally.stray[black] += game.black_stray;
        if let Some(slot) = fault_slot(game.termination) {
            self.tally.faults[loser][slot] += 1;
        }
        self.tally.adjudicated.count(game.termination);
        if winner != loser {
            self.tally.wins[winner][loser] += 1;
            self.tally.count_match(white, black, winner, game.pair);
        } else {
            let self_play = &mut self.tally.self_play;
            self_play.games += 1;
            self_play.name.get_or_insert_with(|| game.white.clone());
        }
    }

    /// Ends a file: its open game pairs (a game whose partner has not come) can no longer
    /// complete, so they are forgotten; they stay counted as unpaired games.
    pub fn end_file(&mut self) {
        self.tally.close_open_pairs();
        self.openings.end_file();
    }

    /// Halts the SPRT at a missing game ([`SequentialTest::halt`]): later games count in
    /// the standings and pairs, not in the test.
    pub fn halt_sprt(&mut self) {
        if let Some(test) = &mut self.tally.sprt {
            test.halt();
        }
    }

    /// The report of the games added.
    pub fn finish(mut self) -> Summary {
        if self.engines.len() != 2 {
            self.tally.end_sprt();
        }
        let (engines, tally) = (&self.engines, &self.tally);
        let (claims, claim_findings) = tally.claims.finish();
        let (pool, unrated) = match rate_pool(engines, tally) {
            Ok(pool) => (Some(pool), None),
            Err(note) => (None, Some(note)),
        };
        let (board, boards) = match self.boards.len() {
            0 | 1 => (
                self.boards.first().copied().filter(|b| !b.is_standard()),
                Vec::new(),
            ),
            _ => (None, self.boards.iter().copied().collect()),
        };
        Summary {
            games: self.games,
            board,
            boards,
            standings: standings(engines, tally, pool.as_ref()),
            unrated,
            pairs: pair_summaries(engines, tally),
            faults: engine_faults(engines, tally),
            claims,
            claim_findings,
            latency: tally.latency.finish(engines),
            adjudicated: tally.adjudicated,
            openings: self.openings.finish(),
            self_play: tally.self_play.clone(),
            builds: BTreeMap::new(),
            anchor: None,
            hosts: Vec::new(),
            differences: pool.map(|pool| RatingDifferences {
                names: pool.members.iter().map(|&m| engines[m].clone()).collect(),
                std_error: pool.ratings.diff_std_error,
            }),
            engines: self.engines,
        }
    }

    /// The index of engine `name`, appended to the engines when it is new.
    fn engine_index(&mut self, name: &str) -> usize {
        if let Some(&index) = self.index.get(name) {
            return index;
        }
        let index = self.engines.len();
        self.engines.push(name.to_string());
        self.index.insert(name.to_string(), index);
        self.tally.add_engine();
        self.tally.claims.add_engine(name);
        self.tally.latency.add_engine();
        index
    }
}

impl GameSink for SummaryBuilder {
    fn game(&mut self, game: &GameRecord) {
        self.add(game);
    }

    fn gap(&mut self) {
        self.halt_sprt();
    }

    fn end(&mut self) {
        self.end_file();
    }
}

/// The games with the same name on both sides: how many, and the first such name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SelfPlay {
    /// Games with one name on both sides.
    pub games: u64,
    /// The first such name (`None` without such games).
    pub name: Option<String>,
}

impl SelfPlay {
    /// Whether there are none (summary.json leaves the field out then).
    pub fn is_empty(&self) -> bool {
        self.games == 0
    }

    /// Why such games have no rating, and how to tell the engines apart; `None` without them.
    pub fn note(&self) -> Option<String> {
        let name = self.name.as_deref()?;
        Some(format!(
            "{} with '{name}' on both sides {} in the total only: an engine cannot be rated \
             against itself. Two engines that give one name (two builds whose `id name` is the \
             same) need names of their own: `name=` of --engine, or the PGN's White and Black tags",
            crate::records::plural(self.games, "game"),
            if self.games == 1 { "counts" } else { "count" },
        ))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::records::GameResult::{BlackWins, WhiteWins};
    use crate::records::Termination::{
        AllCaptured, Crash, GoalRank, IllegalMove, NoMoves, Stall, TimeForfeit,
    };
    use crate::records::tests::record;
    use crate::records::{GameResult, Termination};
    use crate::stats::{PairResult, RatingOptions};
    use crate::stats::{assert_close, elo_pentanomial, elo_trinomial};

    pub(crate) type Game = (u64, &'static str, &'static str, GameResult, Termination);

    pub(crate) fn games(list: &[Game]) -> Vec<GameRecord> {
        list.iter()
            .enumerate()
            .map(|(i, &(pair, white, black, result, termination))| {
                record(i as u64 + 1, pair, white, black, result, termination)
            })
            .collect()
    }

    pub(crate) fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    pub(crate) fn sprt() -> Sprt {
        "elo0=0 elo1=5 alpha=0.05 beta=0.05".parse().unwrap()
    }

    /// alpha vs beta: pairs WW, WL, LL, WW and one incomplete pair lost on time; faults.
    pub(crate) fn alpha_beta() -> Vec<GameRecord> {
        games(&[
            (1, "alpha", "beta", WhiteWins, GoalRank),
            (1, "beta", "alpha", BlackWins, IllegalMove),
            (2, "alpha", "beta", WhiteWins, AllCaptured),
            (2, "beta", "alpha", WhiteWins, GoalRank),
            (3, "alpha", "beta", BlackWins, Crash),
            (3, "beta", "alpha", WhiteWins, Stall),
            (4, "beta", "alpha", BlackWins, NoMoves),
            (4, "alpha", "beta", WhiteWins, GoalRank),
            (5, "alpha", "beta", BlackWins, TimeForfeit),
        ])
    }

    #[test]
    fn the_board_is_the_games_and_left_out_on_8x8() {
        let mut games = alpha_beta();
        let plain = Summary::compute(&games, &[], None);
        assert_eq!((plain.board, plain.boards.len()), (None, 0));
        let json = serde_json::to_value(&plain).unwrap();
        assert_eq!((json.get("board"), json.get("boards")), (None, None));
        let six = Board::new(6, 6).unwrap();
        for game in &mut games {
            game.opening = crate::rules::Position::start(six).to_string();
        }
        let small = Summary::compute(&games, &[], None);
        assert_eq!((small.board, small.boards.len()), (Some(six), 0));
        assert_eq!(serde_json::to_value(&small).unwrap()["board"], "6x6");
        games[0].opening = "startpos".into();
        let mixed = Summary::compute(&games, &[], None);
        assert_eq!(mixed.board, None);
        assert_eq!(
            serde_json::to_value(&mixed).unwrap()["boards"],
            serde_json::json!(["6x6", "8x8"])
        );
    }

    #[test]
    fn two_engines_counts_elo_los_and_sprt() {
        let summary = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), Some(&sprt()));
        assert_eq!(summary.games, 9);
        assert_eq!(summary.engines, ["alpha", "beta"]);
        let [pair] = &summary.pairs[..] else {
            panic!("{:?}", summary.pairs)
        };
        assert_eq!(
            (pair.first.as_str(), pair.second.as_str()),
            ("alpha", "beta")
        );
        assert_eq!((pair.games, pair.wins, pair.losses), (9, 5, 4));
        assert_eq!(pair.pentanomial.as_array(), [1, 0, 1, 0, 2]);
        assert_eq!(pair.model, EloModel::Pentanomial);
        assert_eq!(pair.elo, elo_pentanomial(&[1, 0, 1, 0, 2].into()));
        assert_eq!(pair.unpaired, 1);
        let llr = sprt().llr_pentanomial(&[1, 0, 1, 0, 2].into());
        let status = pair.sprt.unwrap();
        assert_eq!(status.report, sprt().report(llr));
        assert_eq!((status.games, status.games_after), (9, 0));
        assert_eq!(summary.sprt_decision(), Some(SprtDecision::Continue));
        let text = summary.to_string();
        assert!(
            text.contains(&format!("LLR: {llr:.2} (-2.94, 2.94) [0.00, 5.00]\n")),
            "{text}"
        );

        let faults: Vec<_> = summary
            .faults
            .iter()
            .map(|f| {
                (
                    f.name.as_str(),
                    f.time_forfeits,
                    f.illegal_moves,
                    f.crashes,
                    f.stalls,
                )
            })
            .collect();
        assert_eq!(faults, [("alpha", 1, 0, 1, 1), ("beta", 0, 1, 0, 0)]);

        let [first, second] = &summary.standings[..] else {
            panic!()
        };
        assert_eq!((first.rank, first.name.as_str()), (1, "alpha"));
        assert_eq!((first.games, first.wins, first.losses), (9, 5, 4));
        assert_close(first.score_percent.unwrap(), 500.0 / 9.0, 1e-9);
        let ratings = stats::rate(
            &["alpha", "beta"],
            &[PairResult {
                i: 0,
                j: 1,
                wins_i: 5,
                wins_j: 4,
            }],
            &RatingOptions::default(),
        )
        .unwrap();
        assert_eq!(first.elo, Some(ratings.engines[0].rating));
        assert_close(first.elo.unwrap(), -second.elo.unwrap(), 1e-9);
        assert_close(
            first.error95.unwrap(),
            1.959964 * ratings.engines[0].std_error,
            1e-4,
        );
        assert_eq!(first.los_next, Some(ratings.los[0][1]));
        assert_eq!(second.los_next, None);
        assert_eq!(summary.unrated, None);
    }

    #[test]
    fn adjudicated_games_are_counted_apart_and_shown_only_when_there_are_some() {
        use crate::records::Termination::{Adjudication, Proof, Resign};
        let plain = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), None);
        assert!(plain.adjudicated.is_empty());
        let json = crate::report::summary_json(&plain);
        assert!(!json.contains("adjudicated"), "{json}");
        assert!(plain.to_string().starts_with("Games: 9\n"));
        let list = games(&[
            (1, "alpha", "beta", WhiteWins, Proof),
            (1, "beta", "alpha", BlackWins, Resign),
            (2, "alpha", "beta", BlackWins, Proof),
            (2, "beta", "alpha", WhiteWins, GoalRank),
            (3, "alpha", "beta", WhiteWins, Adjudication),
        ]);
        let summary = Summary::compute(&list, &names(&["alpha", "beta"]), None);
        assert_eq!(
            summary.adjudicated,
            AdjudicationCounts {
                resign: 1,
                proof: 2,
                other: 1
            }
        );
        assert_eq!(summary.adjudicated.total(), 4);
        // Adjudicated games count as any other in the score and the faults stay empty.
        assert_eq!(
            (summary.standings[0].wins, summary.standings[0].losses),
            (3, 2)
        );
        assert!(
            summary
                .faults
                .iter()
                .all(|f| f.time_forfeits + f.crashes == 0)
        );
        let json: serde_json::Value =
            serde_json::from_str(&crate::report::summary_json(&summary)).unwrap();
        assert_eq!(
            json["adjudicated"],
            serde_json::json!({"resign": 1, "proof": 2, "other": 1})
        );
        let text = summary.to_string();
        assert!(
            text.starts_with(
                "Games: 5 (4 adjudicated: 2 by proof, 1 by resign, 1 by another tool's rule)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn incomplete_pairs_fall_back_to_single_games() {
        let mut list = alpha_beta();
        list.retain(|g| g.game_id % 2 == 1);
        let summary = Summary::compute(&list, &[], Some(&sprt()));
        let pair = &summary.pairs[0];
        assert_eq!(pair.pentanomial.as_array(), [0; 5]);
        assert_eq!(pair.model, EloModel::Trinomial);
        let trinomial = [pair.losses, 0, pair.wins];
        assert_eq!(pair.elo, elo_trinomial(&trinomial));
        let llr = sprt().llr_trinomial(&trinomial);
        assert_eq!(pair.sprt.unwrap().report, sprt().report(llr));
    }

    /// `--games 3`: per round a pair and an unpaired game. The Elo is the pairs' (+0.00 beside
    /// a 4-2 score), and the report says the unpaired games are in the score only.
    #[test]
    fn unpaired_games_are_named_beside_the_pair_elo() {
        let list = games(&[
            (1, "alpha", "beta", WhiteWins, GoalRank),
            (1, "beta", "alpha", WhiteWins, GoalRank),
            (2, "alpha", "beta", WhiteWins, GoalRank),
            (3, "beta", "alpha", BlackWins, GoalRank),
            (3, "alpha", "beta", BlackWins, GoalRank),
            (4, "beta", "alpha", BlackWins, GoalRank),
        ]);
        let summary = Summary::compute(&list, &[], Some(&sprt()));
        let pair = &summary.pairs[0];
        assert_eq!((pair.wins, pair.losses, pair.unpaired), (4, 2, 2));
        assert_eq!(pair.pentanomial.as_array(), [0, 0, 2, 0, 0]);
        assert_eq!(pair.elo, elo_pentanomial(&[0, 0, 2, 0, 0].into()));
        assert_eq!(
            pair.sprt.unwrap().report.llr,
            sprt().llr_pentanomial(&[0, 0, 2, 0, 0].into())
        );
        let text = summary.to_string();
        assert!(text.contains("Elo: +0.00 +/- "), "{text}");
        assert!(
            text.contains(
                "Ptnml(0-2): [0, 0, 2, 0, 0], 2 pairs; 2 unpaired games, in the score only\n"
            ),
            "{text}"
        );
    }

    /// The SPRT verdict is the first crossing in the order the games are given; a later pair
    /// that pulls the LLR back inside the bounds is counted in the report but not the verdict.
    #[test]
    fn the_sprt_verdict_is_the_first_crossing_in_file_order() {
        let sprt: Sprt = "elo0=0 elo1=20".parse().unwrap();
        let (lower, _) = sprt.bounds();
        let lost = (1..)
            .find(|&n| sprt.llr_pentanomial(&[n, 0, 0, 0, 0].into()) <= lower)
            .unwrap();
        assert!(sprt.llr_pentanomial(&[lost, 0, 0, 0, 1].into()) > lower);
        // Pair 1, recorded last, is won twice; pairs 2..=lost+1 are lost twice.
        let mut list: Vec<GameRecord> = (2..=lost + 1)
            .flat_map(|pair| {
                [
                    record(2 * pair - 1, pair, "new", "base", BlackWins, GoalRank),
                    record(2 * pair, pair, "base", "new", WhiteWins, GoalRank),
                ]
            })
            .collect();
        list.push(record(2, 1, "base", "new", BlackWins, GoalRank));
        list.push(record(1, 1, "new", "base", WhiteWins, GoalRank));
        let summary = Summary::compute(&list, &names(&["new", "base"]), Some(&sprt));
        let pair = &summary.pairs[0];
        assert_eq!(pair.pentanomial.as_array(), [lost, 0, 0, 0, 1]);
        let status = pair.sprt.unwrap();
        let llr = sprt.llr_pentanomial(&[lost, 0, 0, 0, 0].into());
        assert_eq!(status.report, sprt.report(llr));
        assert_eq!(status.report.decision, SprtDecision::AcceptH0);
        assert_eq!((status.games, status.games_after), (2 * lost, 2));
        assert_eq!(summary.sprt_decision(), Some(SprtDecision::AcceptH0));
        let text = summary.to_string();
        let expected = format!(
            "{}\nSPRT: H0 accepted at game {}; 2 games after the decision (not in the LLR)\n",
            sprt.report(llr),
            2 * lost
        );
        assert!(text.contains(&expected), "{text}");
        // In game-id order the pair that was won comes first: no game after the decision.
        list.sort_by_key(|g| g.game_id);
        let sorted = Summary::compute(&list, &names(&["new", "base"]), Some(&sprt));
        assert_eq!(sorted.pairs[0].sprt.unwrap().games_after, 0);
    }

    #[test]
    fn shards_do_not_join_pairs_across_files() {
        let list = alpha_beta();
        let (one, two) = (&list[..1], &list[1..2]);
        let joined = Summary::compute(&list[..2], &[], None);
        assert_eq!(joined.pairs[0].pentanomial.as_array(), [0, 0, 0, 0, 1]);
        let sharded = Summary::compute_shards(&[one, two], &[], None);
        assert_eq!(sharded.pairs[0].pentanomial.as_array(), [0; 5]);
        assert_eq!((sharded.pairs[0].wins, sharded.games), (2, 2));
    }

    /// Writes `games` as a games.csv in a new directory `name` under `dir`; returns its path.
    /// An SPRT needs two engines: when a third one appears in the games, the games of the
    /// first two already counted by the test stay in their match.
    #[test]
    fn a_third_engine_ends_the_sprt_and_keeps_its_games() {
        let mut list = alpha_beta();
        list.push(record(10, 6, "alpha", "gamma", WhiteWins, GoalRank));
        list.extend(alpha_beta().into_iter().map(|mut game| {
            game.pair += 10;
            game
        }));
        let without = Summary::compute(&list, &[], None);
        assert_eq!(Summary::compute(&list, &[], Some(&sprt())), without);
        assert_eq!(without.sprt_decision(), None);
        assert_eq!(without.pairs[0].pentanomial.as_array(), [2, 0, 2, 0, 4]);
        let mut builder = SummaryBuilder::new(&names(&["alpha", "beta"]), Some(&sprt()));
        for game in &list {
            builder.add(game);
        }
        assert_eq!(
            builder.finish(),
            Summary::compute(&list, &names(&["alpha"]), None)
        );
    }

    #[test]
    fn three_engines_rank_by_rating_with_los_to_the_next() {
        let list = games(&[
            (1, "a", "b", WhiteWins, GoalRank),
            (1, "b", "a", WhiteWins, GoalRank),
            (2, "a", "c", WhiteWins, GoalRank),
            (2, "c", "a", BlackWins, GoalRank),
            (3, "b", "c", WhiteWins, GoalRank),
            (3, "c", "b", WhiteWins, GoalRank),
            (4, "c", "b", BlackWins, GoalRank),
            (5, "c", "a", WhiteWins, GoalRank),
        ]);
        let summary = Summary::compute(&list, &names(&["c", "b", "a"]), Some(&sprt()));
        let order: Vec<&str> = summary.standings.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order, ["a", "b", "c"]);
        let elos: Vec<f64> = summary.standings.iter().map(|s| s.elo.unwrap()).collect();
        assert!(elos[0] > elos[1] && elos[1] > elos[2], "{elos:?}");
        assert_close(elos.iter().sum::<f64>(), 0.0, 1e-6);
        assert!(
            summary.standings[..2]
                .iter()
                .all(|s| s.los_next.unwrap() > 0.5)
        );
        assert_eq!(summary.standings[2].los_next, None);
        // Pairs in tournament order, from the earlier engine's side; no SPRT with 3 engines.
        let pairs: Vec<(&str, &str, u64, u64)> = summary
            .pairs
            .iter()
            .map(|p| (p.first.as_str(), p.second.as_str(), p.wins, p.losses))
            .collect();
        assert_eq!(
            pairs,
            [("c", "b", 1, 2), ("c", "a", 1, 2), ("b", "a", 1, 1)]
        );
        assert_eq!(summary.pairs[0].pentanomial.as_array(), [0, 0, 1, 0, 0]);
        assert_eq!(summary.pairs[1].pentanomial.as_array(), [1, 0, 0, 0, 0]);
        assert_eq!(summary.sprt_decision(), None);
    }

    #[test]
    fn zero_games_list_the_engines_without_ratings() {
        let summary = Summary::compute(&[], &names(&["new", "base"]), Some(&sprt()));
        assert_eq!(summary.games, 0);
        assert_eq!(summary.unrated.as_deref(), Some("no finished games"));
        let rows: Vec<(usize, &str)> = summary
            .standings
            .iter()
            .map(|s| (s.rank, s.name.as_str()))
            .collect();
        assert_eq!(rows, [(1, "new"), (2, "base")]);
        assert!(
            summary
                .standings
                .iter()
                .all(|s| s.elo.is_none() && s.score_percent.is_none())
        );
        assert_eq!(summary.pairs.len(), 1);
        assert_eq!(summary.pairs[0].sprt.unwrap().report.llr, 0.0);
        // Two engines: the pair's block is the report (standings of no games say nothing).
        let text = summary.to_string();
        assert!(
            text.starts_with("Games: 0\n\nResults of new vs base:\n"),
            "{text}"
        );
        let three = Summary::compute(&[], &names(&["a", "b", "c"]), None).to_string();
        assert!(
            three.contains("No ratings: no finished games.\n"),
            "{three}"
        );
        assert!(
            text.contains("LLR: 0.00 (-2.94, 2.94) [0.00, 5.00]\n"),
            "{text}"
        );
        assert_eq!(Summary::compute(&[], &[], None).standings, []);
    }

    #[test]
    fn an_engine_without_games_is_listed_last_and_the_rest_rated() {
        let summary = Summary::compute(&alpha_beta(), &names(&["idle", "beta", "alpha"]), None);
        let last = &summary.standings[2];
        assert_eq!(
            (last.name.as_str(), last.games, last.elo),
            ("idle", 0, None)
        );
        assert!(summary.standings[..2].iter().all(|s| s.elo.is_some()));
        assert_eq!(summary.standings[1].los_next, None);
        assert_eq!(summary.unrated, None);
    }

    #[test]
    fn a_disconnected_pool_is_reported_not_rated() {
        let list = games(&[
            (1, "a", "b", WhiteWins, GoalRank),
            (1, "b", "a", WhiteWins, GoalRank),
            (2, "c", "d", WhiteWins, GoalRank),
            (3, "d", "c", WhiteWins, GoalRank),
            (3, "c", "d", WhiteWins, GoalRank),
        ]);
        let summary = Summary::compute(&list, &[], None);
        let note = summary.unrated.clone().unwrap();
        assert!(
            note.contains("not connected") && note.contains("{c, d}"),
            "{note}"
        );
        assert!(summary.standings.iter().all(|s| s.elo.is_none()));
        // Ranked by score: c 2/3, then a and b 1/2 in tournament order, then d.
        let order: Vec<&str> = summary.standings.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order, ["c", "a", "b", "d"]);
        assert!(
            summary
                .to_string()
                .contains("No ratings: the pool is not connected")
        );
    }

    #[test]
    fn a_perfect_score_gives_finite_bounds() {
        let list: Vec<GameRecord> = (0..10)
            .map(|i| {
                let (white, black, result) = if i % 2 == 0 {
                    ("strong", "weak", WhiteWins)
                } else {
                    ("weak", "strong", BlackWins)
                };
                record(i, i / 2, white, black, result, GoalRank)
            })
            .collect();
        let summary = Summary::compute(&list, &[], Some(&sprt()));
        let top = &summary.standings[0];
        assert_eq!(
            (top.name.as_str(), top.bound),
            ("strong", Some(Bound::Lower))
        );
        // A bound has no interval, in the text, the JSON and the page alike.
        assert!(top.elo.unwrap().is_finite());
        assert_eq!(top.error95, None);
        assert_eq!(summary.standings[1].bound, Some(Bound::Upper));
        let pair = &summary.pairs[0];
        assert_eq!(pair.pentanomial.as_array(), [0, 0, 0, 0, 5]);
        assert!(pair.elo.bound && pair.elo.elo.is_finite());
        assert_eq!(pair.elo, elo_pentanomial(&[0, 0, 0, 0, 5].into()));
        let text = summary.to_string();
        assert!(text.contains(" >+"), "{text}");
        assert!(
            text.contains("Elo: >+1199.83 (a floor: one side won every counted game)"),
            "{text}"
        );
        let json = serde_json::to_string(&summary).unwrap();
        assert!(!json.contains("NaN") && !json.contains("inf"));
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(json["standings"][0]["error95"], serde_json::Value::Null);
        assert_eq!(json["standings"][0]["bound"], "Lower");
        assert_eq!(json["pairs"][0]["elo"]["error95"], serde_json::Value::Null);
        assert_eq!(json["pairs"][0]["elo"]["bound"], "Lower");
        assert_eq!(json["pairs"][0]["elo"]["elo"].as_f64(), Some(pair.elo.elo));
    }

    #[test]
    fn self_play_counts_only_in_the_total_and_faults() {
        let list = games(&[
            (1, "a", "a", WhiteWins, TimeForfeit),
            (2, "a", "b", WhiteWins, GoalRank),
        ]);
        let summary = Summary::compute(&list, &[], None);
        assert_eq!(summary.games, 2);
        assert_eq!(summary.standings[0].games, 1);
        assert_eq!(summary.faults[0].time_forfeits, 1);
        assert_eq!(summary.pairs.len(), 1);
        assert_eq!(
            summary.self_play,
            SelfPlay {
                games: 1,
                name: Some("a".into())
            }
        );
        let text = summary.to_string();
        assert!(
            text.contains("Not rated: 1 game with 'a' on both sides counts in the total only: "),
            "{text}"
        );
        let json: serde_json::Value = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["self_play"]["games"], 1);
    }

    /// Two builds that both say `id name X`, read from a PGN, are one name: the report says
    /// why there are no ratings and how to name them apart.
    #[test]
    fn games_of_one_name_against_itself_say_why_they_are_not_rated() {
        let list = games(&[
            (1, "X", "X", WhiteWins, GoalRank),
            (1, "X", "X", BlackWins, GoalRank),
            (2, "X", "X", WhiteWins, GoalRank),
        ]);
        let summary = Summary::compute(&list, &[], None);
        assert_eq!(
            summary.unrated.as_deref(),
            Some(
                "no finished games between two engines: 3 games with 'X' on both sides count \
                 in the total only: an engine cannot be rated against itself. Two engines that \
                 give one name (two builds whose `id name` is the same) need names of their \
                 own: `name=` of --engine, or the PGN's White and Black tags"
            )
        );
        let json: serde_json::Value = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["self_play"]["name"], "X");
        // Without such games summary.json has no self_play field.
        let plain = Summary::compute(&games(&[(1, "a", "b", WhiteWins, GoalRank)]), &[], None);
        assert!(
            serde_json::to_value(&plain)
                .unwrap()
                .get("self_play")
                .is_none()
        );
    }

    #[test]
    fn stray_answers_are_summed_per_engine_and_lose_nothing() {
        let mut list = games(&[
            (1, "a", "b", WhiteWins, GoalRank),
            (1, "b", "a", WhiteWins, GoalRank),
        ]);
        (list[0].white_stray, list[0].black_stray) = (3, 0);
        (list[1].white_stray, list[1].black_stray) = (1, 4);
        let summary = Summary::compute(&list, &names(&["a", "b"]), None);
        let stray: Vec<(&str, u64, u64)> = summary
            .faults
            .iter()
            .map(|f| (f.name.as_str(), f.stray_answers, f.illegal_moves))
            .collect();
        assert_eq!(stray, [("a", 7, 0), ("b", 1, 0)]);
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["faults"][0]["stray_answers"], 7);
        let text = summary.to_string();
        assert!(text.contains("stall  stray\n"), "{text}");
        assert!(
            text.contains("\na                   0       0     0     0      7\n"),
            "{text}"
        );
    }
}
