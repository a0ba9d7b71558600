//! The report of a run: standings with Bradley–Terry ratings, per-pair Elo with pentanomial
//! counts and SPRT, and per-engine faults; printed as text and written as summary.json.

use super::{GameRecord, ResultsError, Termination};
use crate::stats::{
    self, Bound, EloEstimate, MatchCounts, Outcome, PairResult, RatingOptions, Ratings,
    SequentialTest, Sprt, SprtDecision, SprtStatus,
};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// File name of the summary inside a run directory.
const SUMMARY_FILE: &str = "summary.json";

/// The report of a set of finished games. Serializes (as summary.json) with the field names
/// below; probabilities are in `[0, 1]`, Elo is logistic Elo.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Finished games counted (all of them, including any an engine played against itself).
    pub games: u64,
    /// Engine names: the tournament's order, then engines seen only in the games.
    pub engines: Vec<String>,
    /// One row per engine, best first.
    pub standings: Vec<Standing>,
    /// Why the standings have no ratings (`None` when they have them): no finished games, or
    /// a pool that splits into groups that never met (the groups are named).
    pub unrated: Option<String>,
    /// One entry per pair of engines that met (and, with an SPRT, the pair of the two engines
    /// even before they met), in tournament order.
    pub pairs: Vec<PairSummary>,
    /// Losses by fault (and stray answers) of each engine, in tournament order.
    pub faults: Vec<EngineFaults>,
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
    /// Half-width of the 95% interval of `elo`: 1.96 standard errors.
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
    /// Complete game pairs by `first`'s points, `[LL, LD, WL, WD, WW]` (the middle cells
    /// without draws: `LD` and `WD` stay 0). A complete pair is two games with the same pair
    /// number in the same file, the engines swapping colours (see [`MatchCounts`]).
    pub pentanomial: [u64; 5],
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

impl Summary {
    /// The report of `games` (one file's games).
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
        let engines = merged_engines(engines, shards);
        let sprt = sprt.filter(|_| engines.len() == 2);
        let tally = Tally::new(&engines, shards, sprt);
        let (pool, unrated) = match rate_pool(&engines, &tally) {
            Ok(pool) => (Some(pool), None),
            Err(note) => (None, Some(note)),
        };
        Summary {
            games: shards.iter().map(|s| s.as_ref().len() as u64).sum(),
            standings: standings(&engines, &tally, pool.as_ref()),
            unrated,
            pairs: pair_summaries(&engines, &tally),
            faults: engine_faults(&engines, &tally),
            engines,
        }
    }

    /// The SPRT decision, when the summary was computed with an SPRT (and two engines): the
    /// verdict's, or [`SprtDecision::Continue`] when no bound was crossed.
    pub fn sprt_decision(&self) -> Option<SprtDecision> {
        self.pairs
            .iter()
            .find_map(|pair| pair.sprt.map(|status| status.report.decision))
    }
}

/// Writes `summary` as pretty JSON to `dir/summary.json`, atomically: to a temporary file in
/// `dir`, synced, then renamed over the old summary.
///
/// # Errors
/// [`ResultsError::Io`] when the temporary file cannot be created, written or renamed.
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<(), ResultsError> {
    let path = dir.join(SUMMARY_FILE);
    let mut json = serde_json::to_vec_pretty(summary)
        .map_err(|e| ResultsError::io(&path, "cannot write", e.into()))?;
    json.push(b'\n');
    super::write_atomically(&path, &json)
}

/// `given` without repeats, then the other engines of `shards` by first appearance.
fn merged_engines<S: AsRef<[GameRecord]>>(given: &[String], shards: &[S]) -> Vec<String> {
    let mut engines: Vec<String> = Vec::new();
    let seen = shards
        .iter()
        .flat_map(|s| s.as_ref())
        .flat_map(|g| [&g.white, &g.black]);
    for name in given.iter().chain(seen) {
        if !engines.contains(name) {
            engines.push(name.clone());
        }
    }
    engines
}

/// A game pair's key: the file's index among the shards and the pair number.
type PairKey = (usize, u64);

/// Counts of the games, by engine index (tournament order).
struct Tally {
    /// `wins[i][j]`: games `i` won against `j` (self-play excluded).
    wins: Vec<Vec<u64>>,
    /// `matches[(i, j)]` for `i < j`: the games of `i` against `j`, from `i`'s side, except
    /// those of the SPRT pair.
    matches: HashMap<(usize, usize), MatchCounts<PairKey>>,
    /// The SPRT of engine 0 against engine 1, fed their games in order.
    sprt: Option<SequentialTest<PairKey>>,
    /// Losses by fault per engine: `[time-forfeit, illegal-move, crash, stall]`.
    faults: Vec<[u64; 4]>,
    /// Stray answers per engine.
    stray: Vec<u64>,
}

impl Tally {
    fn new<S: AsRef<[GameRecord]>>(engines: &[String], shards: &[S], sprt: Option<&Sprt>) -> Tally {
        let n = engines.len();
        let index: HashMap<&str, usize> = engines
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), i))
            .collect();
        let mut tally = Tally {
            wins: vec![vec![0; n]; n],
            matches: HashMap::new(),
            sprt: sprt.map(|&sprt| SequentialTest::new(sprt)),
            faults: vec![[0; 4]; n],
            stray: vec![0; n],
        };
        for (shard, games) in shards.iter().enumerate() {
            for game in games.as_ref() {
                tally.count_game(&index, game);
                tally.count_match(&index, (shard, game.pair), game);
            }
        }
        tally
    }

    /// Counts one game's win, fault and stray answers.
    fn count_game(&mut self, index: &HashMap<&str, usize>, game: &GameRecord) {
        self.stray[index[game.white.as_str()]] += game.white_stray;
        self.stray[index[game.black.as_str()]] += game.black_stray;
        let (winner, loser) = (index[game.winner_name()], index[game.loser_name()]);
        if winner != loser {
            self.wins[winner][loser] += 1;
        }
        if let Some(slot) = fault_slot(game.termination) {
            self.faults[loser][slot] += 1;
        }
    }

    /// Counts a game of two distinct engines in their match (or the SPRT), from the side of
    /// the earlier in tournament order.
    fn count_match(&mut self, index: &HashMap<&str, usize>, pair: PairKey, game: &GameRecord) {
        let (white, black) = (index[game.white.as_str()], index[game.black.as_str()]);
        if white == black {
            return;
        }
        let first = white.min(black);
        let outcome = Outcome {
            white: white == first,
            won: index[game.winner_name()] == first,
        };
        match &mut self.sprt {
            Some(test) if (first, white.max(black)) == (0, 1) => {
                test.add(pair, outcome);
            }
            _ => {
                self.matches
                    .entry((first, white.max(black)))
                    .or_default()
                    .add(pair, outcome);
            }
        }
    }

    /// The games of engines `i < j`.
    fn match_counts(&self, i: usize, j: usize) -> Option<&MatchCounts<PairKey>> {
        match &self.sprt {
            Some(test) if (i, j) == (0, 1) => Some(test.counts()),
            _ => self.matches.get(&(i, j)),
        }
    }

    /// Games between `i` and `j`.
    fn games_between(&self, i: usize, j: usize) -> u64 {
        self.wins[i][j] + self.wins[j][i]
    }

    /// `(wins, losses)` of engine `i` over all its games.
    fn record_of(&self, i: usize) -> (u64, u64) {
        let wins = self.wins[i].iter().sum();
        let losses = self.wins.iter().map(|row| row[i]).sum();
        (wins, losses)
    }
}

/// Index of a fault termination in [`Tally::faults`]; `None` for a regular ending.
fn fault_slot(termination: Termination) -> Option<usize> {
    match termination {
        Termination::TimeForfeit => Some(0),
        Termination::IllegalMove => Some(1),
        Termination::Crash => Some(2),
        Termination::Stall => Some(3),
        Termination::GoalRank
        | Termination::AllCaptured
        | Termination::NoMoves
        | Termination::Adjudication => None,
    }
}

/// Ratings of the engines that have games.
struct Pool {
    /// Engine indices of the rated engines, in the order of `ratings.engines`.
    members: Vec<usize>,
    ratings: Ratings,
}

impl Pool {
    /// Position of engine `engine` in the ratings.
    fn slot(&self, engine: usize) -> Option<usize> {
        self.members.iter().position(|&m| m == engine)
    }
}

/// Bradley–Terry ratings (mean 0) of the engines with games; the reason as text when there
/// are none.
fn rate_pool(engines: &[String], tally: &Tally) -> Result<Pool, String> {
    let members: Vec<usize> = (0..engines.len())
        .filter(|&i| (0..engines.len()).any(|j| tally.games_between(i, j) > 0))
        .collect();
    if members.is_empty() {
        return Err("no finished games".to_string());
    }
    let names: Vec<&str> = members.iter().map(|&m| engines[m].as_str()).collect();
    let mut results = Vec::new();
    for (i, &a) in members.iter().enumerate() {
        for (j, &b) in members.iter().enumerate().skip(i + 1) {
            if tally.games_between(a, b) > 0 {
                results.push(PairResult {
                    i,
                    j,
                    wins_i: tally.wins[a][b],
                    wins_j: tally.wins[b][a],
                });
            }
        }
    }
    let ratings =
        stats::rate(&names, &results, &RatingOptions::default()).map_err(|err| err.to_string())?;
    Ok(Pool { members, ratings })
}

/// The standings, best first.
fn standings(engines: &[String], tally: &Tally, pool: Option<&Pool>) -> Vec<Standing> {
    let slot = |e: usize| pool.and_then(|p| p.slot(e).map(|k| (p, k)));
    let rows: Vec<Standing> = (0..engines.len())
        .map(|e| {
            let (wins, losses) = tally.record_of(e);
            let games = wins + losses;
            let rating = slot(e).map(|(p, k)| &p.ratings.engines[k]);
            Standing {
                rank: 0,
                name: engines[e].clone(),
                elo: rating.map(|r| r.rating),
                error95: rating.map(|r| stats::z95() * r.std_error),
                bound: rating.and_then(|r| r.bound),
                games,
                wins,
                losses,
                score_percent: (games > 0).then(|| 100.0 * wins as f64 / games as f64),
                los_next: None,
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..engines.len()).collect();
    let key = |e: usize| {
        let row = &rows[e];
        (
            row.elo.unwrap_or(f64::NEG_INFINITY),
            row.score_percent.unwrap_or(-1.0),
        )
    };
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        kb.0.total_cmp(&ka.0)
            .then(kb.1.total_cmp(&ka.1))
            .then(a.cmp(&b))
    });
    let los_next = |at: usize| {
        let (pool, k) = slot(order[at])?;
        let (_, next) = slot(*order.get(at + 1)?)?;
        Some(pool.ratings.los[k][next])
    };
    order
        .iter()
        .enumerate()
        .map(|(at, &e)| Standing {
            rank: at + 1,
            los_next: los_next(at),
            ..rows[e].clone()
        })
        .collect()
}

/// The pairs that met, plus the SPRT pair (engines 0 and 1) when there is an SPRT.
fn pair_summaries(engines: &[String], tally: &Tally) -> Vec<PairSummary> {
    let n = engines.len();
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let sprt = tally.sprt.as_ref().filter(|_| (i, j) == (0, 1));
            if tally.games_between(i, j) > 0 || sprt.is_some() {
                let empty = MatchCounts::default();
                let counts = tally.match_counts(i, j).unwrap_or(&empty);
                pairs.push(PairSummary {
                    first: engines[i].clone(),
                    second: engines[j].clone(),
                    games: counts.games(),
                    wins: counts.wins(),
                    losses: counts.losses(),
                    pentanomial: counts.pentanomial(),
                    unpaired: counts.unpaired(),
                    model: counts.model(),
                    elo: counts.elo(),
                    sprt: sprt.map(SequentialTest::status),
                });
            }
        }
    }
    pairs
}

/// Losses by fault and stray answers of every engine.
fn engine_faults(engines: &[String], tally: &Tally) -> Vec<EngineFaults> {
    engines
        .iter()
        .zip(tally.faults.iter().zip(&tally.stray))
        .map(
            |(name, (&[time_forfeits, illegal_moves, crashes, stalls], &stray_answers))| {
                EngineFaults {
                    name: name.clone(),
                    time_forfeits,
                    illegal_moves,
                    crashes,
                    stalls,
                    stray_answers,
                }
            },
        )
        .collect()
}

/// Elo with two decimals and a sign, prefixed `>` (a floor), `<` (a ceiling) or `~` (both) for
/// a bound.
fn format_elo(elo: f64, bound: Option<Bound>) -> String {
    let mark = bound.map_or("", Bound::mark);
    // `+ 0.0` prints -0.0 as +0.00.
    format!("{mark}{:+.2}", elo + 0.0)
}

/// A probability as a percentage with two decimals, e.g. `97.72%`.
fn format_percent(probability: f64) -> String {
    format!("{:.2}%", 100.0 * probability)
}

/// `1 game`, `2 games`.
fn plural(count: u64, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
}

/// `-` for a missing value.
fn or_dash(value: Option<String>) -> String {
    value.unwrap_or_else(|| "-".to_string())
}

impl fmt::Display for Summary {
    /// The report: the game count, the standings table, the crosstable (3+ engines), a block
    /// per pair (Elo, games, pentanomial counts, the LLR line), and the faults table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Games: {}", self.games)?;
        writeln!(f)?;
        self.write_standings(f)?;
        if self.engines.len() >= 3 {
            writeln!(f)?;
            write!(f, "{}", super::crosstable::Crosstable::of(self))?;
        }
        for pair in &self.pairs {
            writeln!(f)?;
            write!(f, "{pair}")?;
        }
        writeln!(f)?;
        self.write_faults(f)
    }
}

impl Summary {
    /// Width of the name column: the longest name, at least `min`.
    fn name_width(&self, min: usize) -> usize {
        self.engines.iter().map(String::len).fold(min, usize::max)
    }

    fn write_standings(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.name_width(4);
        writeln!(
            f,
            "{:>4} {:<w$} {:>9} {:>7} {:>6} {:>7} {:>6} {:>6} {:>7}",
            "Rank", "Name", "Elo", "+/-", "Games", "Score", "W", "L", "LOS"
        )?;
        for row in &self.standings {
            writeln!(
                f,
                "{:>4} {:<w$} {:>9} {:>7} {:>6} {:>7} {:>6} {:>6} {:>7}",
                row.rank,
                row.name,
                or_dash(row.elo.map(|elo| format_elo(elo, row.bound))),
                or_dash(row.error95.map(|e| format!("{e:.2}"))),
                row.games,
                or_dash(row.score_percent.map(|s| format!("{s:.2}%"))),
                row.wins,
                row.losses,
                or_dash(row.los_next.map(format_percent)),
            )?;
        }
        match &self.unrated {
            Some(reason) => writeln!(f, "No ratings: {reason}."),
            None => writeln!(
                f,
                "Ratings: Bradley-Terry Elo, mean 0, +/- 95%; LOS against the next engine."
            ),
        }
    }

    fn write_faults(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.name_width("Losses by fault".len());
        writeln!(
            f,
            "{:<w$} {:>5} {:>7} {:>5} {:>5} {:>6}",
            "Losses by fault", "time", "illegal", "crash", "stall", "stray"
        )?;
        for row in &self.faults {
            writeln!(
                f,
                "{:<w$} {:>5} {:>7} {:>5} {:>5} {:>6}",
                row.name,
                row.time_forfeits,
                row.illegal_moves,
                row.crashes,
                row.stalls,
                row.stray_answers
            )?;
        }
        writeln!(
            f,
            "(stray: lines answering no request, never played; not losses)"
        )
    }
}

impl fmt::Display for PairSummary {
    /// A fastchess-style block:
    ///
    /// ```text
    /// Results of alpha vs beta:
    /// Elo: +34.86 +/- 21.56, LOS: 99.93%
    /// Games: 1000, Wins: 550, Losses: 450, Score: 55.00%
    /// Ptnml(0-2): [100, 0, 250, 0, 150], 500 pairs
    /// LLR: 1.34 (-2.94, 2.94) [0.00, 5.00]
    /// ```
    ///
    /// The Ptnml line names the games in no complete pair (`; 1 unpaired game, in the score
    /// only`); after a verdict, `SPRT: H1 accepted at game 480; 2 games after the decision`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let elo = &self.elo;
        let bound = elo.bound.then_some(if elo.elo > 0.0 {
            Bound::Lower
        } else {
            Bound::Upper
        });
        writeln!(f, "Results of {} vs {}:", self.first, self.second)?;
        writeln!(
            f,
            "Elo: {} +/- {:.2}, LOS: {}",
            format_elo(elo.elo, bound),
            elo.error95,
            format_percent(elo.los)
        )?;
        let score = (self.games > 0).then(|| self.wins as f64 / self.games as f64);
        writeln!(
            f,
            "Games: {}, Wins: {}, Losses: {}, Score: {}",
            self.games,
            self.wins,
            self.losses,
            or_dash(score.map(format_percent))
        )?;
        let [ll, ld, wl, wd, ww] = self.pentanomial;
        let pairs = ll + ld + wl + wd + ww;
        let note = match (self.model, self.unpaired) {
            (EloModel::Trinomial, _) => "no complete pairs: Elo from single games".to_string(),
            (EloModel::Pentanomial, 0) => plural(pairs, "pair"),
            (EloModel::Pentanomial, unpaired) => format!(
                "{}; {}, in the score only",
                plural(pairs, "pair"),
                plural(unpaired, "unpaired game")
            ),
        };
        writeln!(f, "Ptnml(0-2): [{ll}, {ld}, {wl}, {wd}, {ww}], {note}")?;
        if let Some(status) = &self.sprt {
            writeln!(f, "{}", status.report)?;
            let accepted = match status.report.decision {
                SprtDecision::AcceptH1 => "H1",
                SprtDecision::AcceptH0 => "H0",
                SprtDecision::Continue => return Ok(()),
            };
            write!(f, "SPRT: {accepted} accepted at game {}", status.games)?;
            if status.model != self.model {
                write!(f, " (LLR of single games, before the first complete pair)")?;
            }
            match status.games_after {
                0 => writeln!(f)?,
                after => writeln!(
                    f,
                    "; {} after the decision (not in the LLR)",
                    plural(after, "game")
                )?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::GameResult::{BlackWins, WhiteWins};
    use crate::results::Termination::{
        AllCaptured, Crash, GoalRank, IllegalMove, NoMoves, Stall, TimeForfeit,
    };
    use crate::results::tests::record;
    use crate::results::{GameResult, Termination};
    use crate::stats::{assert_close, elo_pentanomial, elo_trinomial};

    type Game = (u64, &'static str, &'static str, GameResult, Termination);

    fn games(list: &[Game]) -> Vec<GameRecord> {
        list.iter()
            .enumerate()
            .map(|(i, &(pair, white, black, result, termination))| {
                record(i as u64 + 1, pair, white, black, result, termination)
            })
            .collect()
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn sprt() -> Sprt {
        "elo0=0 elo1=5 alpha=0.05 beta=0.05".parse().unwrap()
    }

    /// alpha vs beta: pairs WW, WL, LL, WW and one incomplete pair lost on time; faults.
    fn alpha_beta() -> Vec<GameRecord> {
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
        assert_eq!(pair.pentanomial, [1, 0, 1, 0, 2]);
        assert_eq!(pair.model, EloModel::Pentanomial);
        assert_eq!(pair.elo, elo_pentanomial(&[1, 0, 1, 0, 2]));
        assert_eq!(pair.unpaired, 1);
        let llr = sprt().llr_pentanomial(&[1, 0, 1, 0, 2]);
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
    fn incomplete_pairs_fall_back_to_single_games() {
        let mut list = alpha_beta();
        list.retain(|g| g.game_id % 2 == 1);
        let summary = Summary::compute(&list, &[], Some(&sprt()));
        let pair = &summary.pairs[0];
        assert_eq!(pair.pentanomial, [0; 5]);
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
        assert_eq!(pair.pentanomial, [0, 0, 2, 0, 0]);
        assert_eq!(pair.elo, elo_pentanomial(&[0, 0, 2, 0, 0]));
        assert_eq!(
            pair.sprt.unwrap().report.llr,
            sprt().llr_pentanomial(&[0, 0, 2, 0, 0])
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
            .find(|&n| sprt.llr_pentanomial(&[n, 0, 0, 0, 0]) <= lower)
            .unwrap();
        assert!(sprt.llr_pentanomial(&[lost, 0, 0, 0, 1]) > lower);
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
        assert_eq!(pair.pentanomial, [lost, 0, 0, 0, 1]);
        let status = pair.sprt.unwrap();
        let llr = sprt.llr_pentanomial(&[lost, 0, 0, 0, 0]);
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
        assert_eq!(joined.pairs[0].pentanomial, [0, 0, 0, 0, 1]);
        let sharded = Summary::compute_shards(&[one, two], &[], None);
        assert_eq!(sharded.pairs[0].pentanomial, [0; 5]);
        assert_eq!((sharded.pairs[0].wins, sharded.games), (2, 2));
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
        assert_eq!(summary.pairs[0].pentanomial, [0, 0, 1, 0, 0]);
        assert_eq!(summary.pairs[1].pentanomial, [1, 0, 0, 0, 0]);
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
        let text = summary.to_string();
        assert!(text.contains("No ratings: no finished games.\n"), "{text}");
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
        assert!(top.elo.unwrap().is_finite() && top.error95.unwrap().is_finite());
        assert_eq!(summary.standings[1].bound, Some(Bound::Upper));
        let pair = &summary.pairs[0];
        assert_eq!(pair.pentanomial, [0, 0, 0, 0, 5]);
        assert!(pair.elo.bound && pair.elo.elo.is_finite());
        assert_eq!(pair.elo, elo_pentanomial(&[0, 0, 0, 0, 5]));
        let text = summary.to_string();
        assert!(text.contains(" >+"), "{text}");
        assert!(text.contains("Elo: >+1199.83 +/- "), "{text}");
        let json = serde_json::to_string(&summary).unwrap();
        assert!(!json.contains("NaN") && !json.contains("inf"));
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

    #[test]
    fn the_report_reads_like_fastchess() {
        let summary = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), Some(&sprt()));
        let text = summary.to_string();
        let elo = elo_pentanomial(&[1, 0, 1, 0, 2]);
        let expected_elo = format!(
            "Elo: {:+.2} +/- {:.2}, LOS: {:.2}%\n",
            elo.elo,
            elo.error95,
            100.0 * elo.los
        );
        assert!(text.starts_with("Games: 9\n\nRank Name"), "{text}");
        assert!(text.contains("Results of alpha vs beta:\n"), "{text}");
        assert!(text.contains(&expected_elo), "{text}");
        assert!(
            text.contains("Elo: +88.69 +/- 710.45, LOS: 72.67%\n"),
            "{text}"
        );
        assert!(
            text.contains("LLR: 0.02 (-2.94, 2.94) [0.00, 5.00]\n"),
            "{text}"
        );
        assert!(
            text.contains("   1 alpha    +19.38  114.20      9  55.56%      5      4  63.03%\n")
        );
        assert!(text.contains("Games: 9, Wins: 5, Losses: 4, Score: 55.56%\n"));
        assert!(
            text.contains(
                "Ptnml(0-2): [1, 0, 1, 0, 2], 4 pairs; 1 unpaired game, in the score only\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("alpha               1       0     1     1      0\n"),
            "{text}"
        );
    }

    #[test]
    fn summary_json_is_written_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let summary = Summary::compute(&alpha_beta(), &[], Some(&sprt()));
        write_summary(dir.path(), &summary).unwrap();
        write_summary(dir.path(), &summary).unwrap();
        let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(entries.len(), 1);
        let text = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["games"], 9);
        assert_eq!(
            json["pairs"][0]["pentanomial"],
            serde_json::json!([1, 0, 1, 0, 2])
        );
        assert_eq!(json["pairs"][0]["model"], "pentanomial");
        assert_eq!(json["standings"][0]["name"], "alpha");
        let err = write_summary(&dir.path().join("missing"), &summary).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
    }
}
