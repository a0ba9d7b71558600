//! What a book's openings did in the games played from them: per opening the games, the game
//! pairs, the first player's score, the pairs lost twice, split 1–1 and won twice, and whether
//! the colour decided them; for the book, the share of 1–1 pairs, fishtest's RMS bias and the
//! openings to prune. In report.html, summary.json and the text report of a run, and in
//! `bt-arena openings check BOOK --runs DIR...` over any runs.
//!
//! In a game without draws a game pair (the same opening, the engines swapping colours) that
//! ends 1–1 was won by the same colour twice: it says nothing about which engine is stronger.
//! Between engines of even strength an opening that favours no colour gives 1–1 pairs half the
//! time, by chance; one that favours a colour by `b` (its first player scores `1/2 + b`) gives
//! them with chance `1/2 + 2 b^2`, and then the pairs that are not 1–1 carry the information.
//! fishtest's RMS bias ([`rms_bias_squared`]) estimates the root mean square of `b` over the
//! book's openings.
//!
//! **The first player** of an opening is the side to move in its position. **Colour decided**:
//! every complete pair from the opening ended 1–1. **Prune**: the first player's score differs
//! from 1/2 at the [`PRUNE_LEVEL`] level by the exact two-sided binomial test of its wins over
//! the opening's games (the engines swap colours within a pair, so a stronger engine does not
//! move the first player's share; two engines of different strength make the test
//! conservative). Without draws that needs at least 3 pairs all won by one colour.

use crate::records::{GameRecord, GameSink, plural};
use crate::rules::{Color, Position};
use crate::stats::calculator::rms_bias_squared;
use crate::stats::{Pentanomial, elo_from_score};
use serde::Serialize;
use statrs::distribution::{Binomial, DiscreteCDF};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// The level of the test that marks an opening to prune: 5%.
pub const PRUNE_LEVEL: f64 = 0.05;

/// Most openings to prune listed by the text report of a run (all are in summary.json and
/// report.html).
pub const TEXT_PRUNE_ROWS: usize = 10;

/// One opening's games.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpeningRow {
    /// Its number in the book (0 when unknown, e.g. from another tool's PGN).
    pub id: u64,
    /// The position.
    pub opening: String,
    /// The side to move in the position: `White` or `Black`.
    #[serde(serialize_with = "colour_name")]
    pub first_player: Color,
    /// Games played from it.
    pub games: u64,
    /// Complete game pairs (the same engines, colours swapped).
    pub pairs: u64,
    /// Games its first player won.
    pub first_player_wins: u64,
    /// The first player's score, `first_player_wins / games`; `None` without games.
    pub first_player_score: Option<f64>,
    /// Pairs lost twice, from the side of the pair's first engine (in the run's order).
    pub ll: u64,
    /// Pairs split 1–1: the same colour won both games.
    pub one_one: u64,
    /// Pairs won twice.
    pub ww: u64,
    /// Every complete pair ended 1–1; `None` without a complete pair.
    pub colour_decided: Option<bool>,
    /// The two-sided binomial test's p-value of the first player's wins against a share of
    /// 1/2 (1 without games).
    pub p_value: f64,
    /// `p_value <= ` [`PRUNE_LEVEL`].
    pub prune: bool,
}

/// The book's openings and the book as a whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpeningsReport {
    /// Every opening (with a book: every one of it, played or not), worst first: by p-value,
    /// then by share of 1–1 pairs (highest first), games (most first) and number.
    pub openings: Vec<OpeningRow>,
    /// Openings with games.
    pub played: usize,
    /// Games counted.
    pub games: u64,
    /// Complete game pairs.
    pub pairs: u64,
    /// Pairs split 1–1.
    pub one_one_pairs: u64,
    /// `one_one_pairs / pairs`: the share of colour-decided pairs; `None` without pairs.
    pub one_one_share: Option<f64>,
    /// fishtest's RMS bias in score units (its square pooled over the matchups, a pair of
    /// engines in a file or run, each weighted by its pairs: engines of different strength
    /// are not mixed; 0 when the estimate is negative); `None` without pairs.
    pub rms_bias: Option<f64>,
    /// The RMS bias as Elo, `elo(1/2 + rms_bias)`.
    pub rms_bias_elo: Option<f64>,
    /// The numbers of the openings to prune, worst first.
    pub prune: Vec<u64>,
    /// Games from positions that are not in the book (with a book only; else 0).
    pub not_in_book: u64,
}

/// The openings' games as they are counted, one game at a time, in the order read; pairs are
/// matched within a file by pair number. Memory: one row per opening, one entry per pair still
/// open in the current file.
#[derive(Debug, Default)]
pub struct OpeningsTally {
    /// Engine index by name: the order the pairs' first engine is chosen by.
    engines: HashMap<String, usize>,
    rows: Vec<Tally>,
    /// Row by the text of a game's `opening` column.
    row_of: HashMap<String, usize>,
    /// With a book: row by position, and no row for other positions.
    book: Option<HashMap<Position, usize>>,
    /// Open pairs of the file being read: pair number to the first game.
    open: HashMap<u64, OpenGame>,
    /// Pairs `[LL, 1–1, WW]` by file (or run read as one) and pair of engines (indices, the
    /// first lower): the same names in two runs may be other engines.
    matchups: BTreeMap<(usize, usize, usize), [u64; 3]>,
    /// Files ended so far: the file of [`matchups`](Self::matchups).
    files: usize,
    not_in_book: u64,
}

#[derive(Debug)]
struct Tally {
    id: u64,
    opening: String,
    first_player: Color,
    games: u64,
    first_player_wins: u64,
    /// `[LL, 1–1, WW]`.
    pairs: [u64; 3],
}

#[derive(Debug, Clone, Copy)]
struct OpenGame {
    row: usize,
    engines: (usize, usize),
    /// The pair's first engine won.
    first_won: bool,
}

impl OpeningsTally {
    /// No games yet; `engines` in the run's order (others are added as they come).
    pub fn new(engines: &[String]) -> OpeningsTally {
        let mut tally = OpeningsTally::default();
        for name in engines {
            tally.engine(name);
        }
        tally
    }

    /// No games yet, for the openings of a book, `(number, position)` in book order: each
    /// has a row, played or not; games from other positions are only counted
    /// ([`OpeningsReport::not_in_book`]).
    pub fn for_book(engines: &[String], openings: &[(u64, Position)]) -> OpeningsTally {
        let mut tally = OpeningsTally::new(engines);
        let mut book = HashMap::new();
        for &(id, position) in openings {
            book.entry(position).or_insert_with(|| {
                tally.rows.push(Tally::new(
                    id,
                    position.to_string(),
                    position.side_to_move(),
                ));
                tally.rows.len() - 1
            });
        }
        tally.book = Some(book);
        tally
    }

    fn engine(&mut self, name: &str) -> usize {
        let next = self.engines.len();
        *self.engines.entry(name.to_string()).or_insert(next)
    }

    /// The row of `game`'s opening; `None` for a position not in the book.
    fn row(&mut self, game: &GameRecord) -> Option<usize> {
        if let Some(&row) = self.row_of.get(&game.opening) {
            return Some(row);
        }
        let position = game.start();
        let row = match (&self.book, position) {
            (Some(book), Some(position)) => *book.get(&position)?,
            (Some(_), None) => return None,
            (None, _) => {
                let first = position.map_or(Color::White, |p| p.side_to_move());
                self.rows
                    .push(Tally::new(game.opening_id, game.opening.clone(), first));
                self.rows.len() - 1
            }
        };
        self.row_of.insert(game.opening.clone(), row);
        Some(row)
    }

    /// Counts `game`, the next of the file being read.
    pub fn add(&mut self, game: &GameRecord) {
        let Some(row) = self.row(game) else {
            self.not_in_book += 1;
            return;
        };
        let (white, black) = (self.engine(&game.white), self.engine(&game.black));
        let winner = game.result.winner();
        let tally = &mut self.rows[row];
        tally.games += 1;
        tally.first_player_wins += u64::from(winner == tally.first_player);
        if white == black {
            return;
        }
        let engines = (white.min(black), white.max(black));
        let first_won = (winner == Color::White) == (white == engines.0);
        match self.open.remove(&game.pair) {
            Some(open) if open.row == row && open.engines == engines => {
                let cell = usize::from(open.first_won) + usize::from(first_won);
                self.rows[row].pairs[cell] += 1;
                let matchup = (self.files, engines.0, engines.1);
                self.matchups.entry(matchup).or_default()[cell] += 1;
            }
            _ => {
                self.open.insert(
                    game.pair,
                    OpenGame {
                        row,
                        engines,
                        first_won,
                    },
                );
            }
        }
    }

    /// Ends a file (or a run read as one): its open pairs can no longer complete, and the
    /// next file's engines are another matchup for the RMS bias, whatever their names.
    pub fn end_file(&mut self) {
        self.open.clear();
        self.files += 1;
    }

    /// The report of the games counted.
    pub fn finish(self) -> OpeningsReport {
        let mut openings: Vec<OpeningRow> = self.rows.into_iter().map(Tally::finish).collect();
        openings.sort_by(|a, b| {
            a.p_value
                .total_cmp(&b.p_value)
                .then(one_one_share(b).total_cmp(&one_one_share(a)))
                .then(b.games.cmp(&a.games))
                .then(a.id.cmp(&b.id))
                .then(a.opening.cmp(&b.opening))
        });
        let pairs: u64 = openings.iter().map(|o| o.pairs).sum();
        let one_one_pairs: u64 = openings.iter().map(|o| o.one_one).sum();
        let rms_bias = pooled_rms_bias(self.matchups.values());
        OpeningsReport {
            played: openings.iter().filter(|o| o.games > 0).count(),
            games: openings.iter().map(|o| o.games).sum(),
            pairs,
            one_one_pairs,
            one_one_share: (pairs > 0).then(|| one_one_pairs as f64 / pairs as f64),
            rms_bias,
            rms_bias_elo: rms_bias.map(|rms| elo_from_score(0.5 + rms)),
            prune: openings.iter().filter(|o| o.prune).map(|o| o.id).collect(),
            openings,
            not_in_book: self.not_in_book,
        }
    }
}

impl GameSink for OpeningsTally {
    fn game(&mut self, game: &GameRecord) {
        self.add(game);
    }

    fn gap(&mut self) {}

    fn end(&mut self) {
        self.end_file();
    }
}

impl Tally {
    fn new(id: u64, opening: String, first_player: Color) -> Tally {
        Tally {
            id,
            opening,
            first_player,
            games: 0,
            first_player_wins: 0,
            pairs: [0; 3],
        }
    }

    fn finish(self) -> OpeningRow {
        let [ll, one_one, ww] = self.pairs;
        let pairs = ll + one_one + ww;
        let p_value = binomial_p_value(self.first_player_wins, self.games);
        OpeningRow {
            id: self.id,
            opening: self.opening,
            first_player: self.first_player,
            games: self.games,
            pairs,
            first_player_wins: self.first_player_wins,
            first_player_score: (self.games > 0)
                .then(|| self.first_player_wins as f64 / self.games as f64),
            ll,
            one_one,
            ww,
            colour_decided: (pairs > 0).then_some(one_one == pairs),
            p_value,
            prune: p_value <= PRUNE_LEVEL,
        }
    }
}

/// A colour as its name, `White` or `Black`.
fn colour_name<S: serde::Serializer>(colour: &Color, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(colour)
}

/// The share of an opening's pairs that ended 1–1 (0 without pairs).
fn one_one_share(row: &OpeningRow) -> f64 {
    row.one_one as f64 / row.pairs.max(1) as f64
}

/// The exact two-sided p-value of `wins` successes in `games` trials against a chance of 1/2:
/// twice the smaller tail, at most 1 (1 without games).
pub fn binomial_p_value(wins: u64, games: u64) -> f64 {
    if games == 0 {
        return 1.0;
    }
    let binomial = Binomial::new(0.5, games).expect("a chance of 1/2 is valid");
    let lower = binomial.cdf(wins);
    let upper = if wins == 0 {
        1.0
    } else {
        binomial.sf(wins - 1)
    };
    (2.0 * lower.min(upper)).min(1.0)
}

/// fishtest's RMS bias pooled over pairs of engines (`[LL, 1–1, WW]` each): the mean of their
/// squared RMS bias weighted by their pairs, its root (0 when negative); `None` without pairs.
fn pooled_rms_bias<'a>(matchups: impl Iterator<Item = &'a [u64; 3]>) -> Option<f64> {
    let (mut sum, mut pairs) = (0.0, 0u64);
    for &[ll, one_one, ww] in matchups {
        let counts = Pentanomial::from([ll, 0, one_one, 0, ww]);
        if let Some(rms2) = rms_bias_squared(&counts) {
            let n = counts.pairs();
            sum += rms2 * n as f64;
            pairs += n;
        }
    }
    (pairs > 0).then(|| (sum / pairs as f64).max(0.0).sqrt())
}

impl OpeningsReport {
    /// The book's line: `Openings: 12 played, 96 games, 48 pairs; 1-1 (colour decided) 27 of
    /// 48 pairs (56.2%); RMS bias 0.180 (+63.4 Elo); prune 2 (first player's score away
    /// from 1/2, p <= 0.05)`.
    pub fn book_line(&self) -> String {
        if self.games == 0 {
            return "Openings: no games".to_string();
        }
        let mut line = format!(
            "Openings: {} played, {}, {}",
            self.played,
            plural(self.games, "game"),
            plural(self.pairs, "pair")
        );
        if let (Some(share), Some(rms), Some(elo)) =
            (self.one_one_share, self.rms_bias, self.rms_bias_elo)
        {
            line += &format!(
                "; 1-1 (colour decided) {} of {} pairs ({:.1}%); RMS bias {rms:.3} ({:+.1} Elo)",
                self.one_one_pairs,
                self.pairs,
                100.0 * share,
                elo + 0.0
            );
        }
        line + &format!(
            "; prune {} (first player's score away from 1/2, p <= {PRUNE_LEVEL})",
            self.prune.len()
        )
    }

    /// The table of `rows` (a header, then a line each).
    pub fn table<'a>(rows: impl IntoIterator<Item = &'a OpeningRow>) -> String {
        let mut text = format!(
            "{:>6} {:>6} {:>5} {:>5} {:>6} {:>5} {:>5} {:>5} {:>7} {:>8}  {}\n",
            "id", "games", "pairs", "first", "score", "LL", "1-1", "WW", "decided", "p", "opening"
        );
        for row in rows {
            text += &format!(
                "{:>6} {:>6} {:>5} {:>5} {:>6} {:>5} {:>5} {:>5} {:>7} {:>8}  {}{}\n",
                row.id,
                row.games,
                row.pairs,
                row.first_player.to_string(),
                row.first_player_score
                    .map_or_else(|| "-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
                row.ll,
                row.one_one,
                row.ww,
                match row.colour_decided {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "-",
                },
                format!("{:.4}", row.p_value),
                row.opening,
                if row.prune { "  prune" } else { "" }
            );
        }
        text
    }
}

impl fmt::Display for OpeningsReport {
    /// The book's line and every opening's row, worst first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.book_line())?;
        if self.not_in_book > 0 {
            writeln!(
                f,
                "{} from positions not in the book, not counted",
                plural(self.not_in_book, "game")
            )?;
        }
        write!(f, "{}", OpeningsReport::table(&self.openings))
    }
}

#[cfg(test)]
mod tests;
