//! Opening books built from measured game pairs (`bt-arena openings build`): a kind of run on
//! the one session ([`crate::session`]).
//!
//! For users (`docs/guide/openings.md`, "Build a book"): candidate positions (random plies
//! from the start, or an existing book's openings) are each played by reference engines, a
//! game pair per pair of engines (and per `rounds`); a candidate is kept when White's score
//! over its games falls in a band near equality. In a game without draws, a pair that the
//! colour decided (1–1: each side won with White) tells nothing about the engines; an opening
//! whose pairs the engines decide carries information. The book keeps the first `count`
//! candidates kept, in candidate order, so that it depends on the settings alone (not on the
//! order games ended in): the same seed gives the same book, resumed or played by workers.
//!
//! The engines that build a book must not be the ones later tested with it: the openings
//! were chosen by those engines' results, which biases a test of the same engines.
//!
//! The unit is the **candidate** (`claims/candidate-N` for workers); candidate `u`'s games
//! have ids `(u - 1) × G + 1 ..= u × G`, G = [`BuildConfig::games_per_candidate`].
//!
//! The files of the run directory: build.json (the config), games.csv and games.pgn (every
//! game), and at the end book.epd (the book) and candidates.csv (every candidate measured).

pub mod kind;
mod schedule;

pub use kind::{Build, BuildError, BuildReport, Selection, select};
pub use schedule::{ForeignGame, Measure, Tally};

use crate::engine::EngineDescription;
use crate::openings::{Eval, Opening, Scorer};
use crate::rules::Position;
use crate::run::header::RunHeader;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::str::FromStr;

/// The file a build's config is saved to.
pub const CONFIG_FILE: &str = "build.json";
/// The book a finished build writes, in the run directory.
pub const BOOK_FILE: &str = "book.epd";
/// Every candidate measured, one CSV row each, in the run directory.
pub const CANDIDATES_FILE: &str = "candidates.csv";
/// At most this many random sequences are drawn for one candidate before giving up.
pub const ATTEMPTS_PER_CANDIDATE: u32 = 1000;

/// The band of White's score (wins over games, in [0, 1]) a kept candidate's games fall in,
/// both ends included: `0.25..0.75`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// The lowest score kept.
    pub low: f64,
    /// The highest score kept.
    pub high: f64,
}

impl Band {
    /// The default band: 0.25..0.75. Between two engines and one game pair, it keeps the pairs
    /// one engine won twice (White's score ½) and drops those the colour decided (0 or 1).
    pub const DEFAULT: Band = Band {
        low: 0.25,
        high: 0.75,
    };

    /// Whether `white_wins` of `games` is in the band (exactly, in integers: `low × games ≤
    /// white_wins ≤ high × games` up to 1e-9).
    pub fn keeps(self, white_wins: u64, games: u64) -> bool {
        let wins = white_wins as f64;
        let games = games as f64;
        wins >= self.low * games - 1e-9 && wins <= self.high * games + 1e-9
    }

    /// The scores `k / games` in the band, as win counts k.
    pub fn kept_counts(self, games: u64) -> Vec<u64> {
        (0..=games).filter(|&k| self.keeps(k, games)).collect()
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.low, self.high)
    }
}

impl FromStr for Band {
    type Err = SettingError;

    /// `LOW..HIGH`, both in [0, 1], LOW ≤ HIGH.
    fn from_str(text: &str) -> Result<Band, SettingError> {
        let bad = |why: &str| SettingError::new("--band", format!("{text}: {why}"));
        let (low, high) = text
            .split_once("..")
            .ok_or_else(|| bad("expected LOW..HIGH, e.g. 0.25..0.75"))?;
        let number = |word: &str| {
            word.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| bad(&format!("`{word}` is not a score in [0, 1]")))
        };
        let band = Band {
            low: number(low)?,
            high: number(high)?,
        };
        match band.low <= band.high {
            true => Ok(band),
            false => Err(bad("LOW is above HIGH")),
        }
    }
}

/// How many random plies a candidate is drawn with: `N`, or `N-M` (spread evenly: candidate
/// `i` has `N + (i mod (M - N + 1))`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlyRange {
    /// The fewest plies.
    pub min: u32,
    /// The most plies.
    pub max: u32,
}

impl PlyRange {
    /// The plies of the candidate in slot `slot` (0-based).
    pub fn of_slot(self, slot: u64) -> u32 {
        let span = u64::from(self.max - self.min) + 1;
        self.min + u32::try_from(slot % span).unwrap_or(0)
    }
}

impl fmt::Display for PlyRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.min == self.max {
            true => write!(f, "{}", self.min),
            false => write!(f, "{}-{}", self.min, self.max),
        }
    }
}

impl FromStr for PlyRange {
    type Err = SettingError;

    /// `N` or `N-M`, 1 ≤ N ≤ M ≤ 100.
    fn from_str(text: &str) -> Result<PlyRange, SettingError> {
        let bad = || SettingError::new("--plies", format!("{text}: expected N or N-M, 1 to 100"));
        let (min, max) = text.split_once('-').unwrap_or((text, text));
        let number = |word: &str| word.trim().parse::<u32>().map_err(|_| bad());
        let range = PlyRange {
            min: number(min)?,
            max: number(max)?,
        };
        match 1 <= range.min && range.min <= range.max && range.max <= 100 {
            true => Ok(range),
            false => Err(bad()),
        }
    }
}

/// Where the candidates come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateSource {
    /// `count` distinct positions after random plies from the start position (drawn from the
    /// run's seed), not over.
    RandomPlies {
        /// The plies of each.
        plies: PlyRange,
        /// How many candidates.
        count: u64,
    },
    /// The openings of the run's book (`openings.file`), in file order, repeats skipped.
    Book,
}

/// The settings of a build, saved to [`CONFIG_FILE`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BuildConfig {
    /// The settings every kind of run shares (flattened: the same fields in build.json). Its
    /// book is the candidates' with [`CandidateSource::Book`], else none.
    #[serde(flatten)]
    pub run: RunHeader,
    /// The reference engines: every pair of them plays a game pair from each candidate.
    pub engines: Vec<EngineDescription>,
    /// Where the candidates come from.
    pub candidates: CandidateSource,
    /// How many openings the book keeps (the first kept, in candidate order).
    pub count: u64,
    /// White's score that keeps a candidate.
    pub band: Band,
    /// Game pairs per pair of engines per candidate (more than 1 only tells something of
    /// engines that do not always play the same moves, e.g. at a clock).
    pub rounds: u32,
    /// Drop candidates the bundled search scores beyond ±CP centipawns before any game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_eval: Option<i32>,
    /// The depth of that search, in plies.
    #[serde(default = "default_depth")]
    pub search_depth: u32,
    /// Fields that are none of the above: refused by [`BuildConfig::check`].
    #[serde(flatten, skip_serializing)]
    pub unknown: BTreeMap<String, serde_json::Value>,
}

fn default_depth() -> u32 {
    crate::openings::DEFAULT_DEPTH
}

/// A setting a build refuses, naming the flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingError {
    /// The flag (or saved field) at fault, e.g. `--band`.
    pub flag: String,
    /// Why, with the value.
    pub why: String,
}

impl SettingError {
    fn new(flag: &str, why: String) -> SettingError {
        SettingError {
            flag: flag.to_string(),
            why,
        }
    }

    /// The reason alone, without the value it begins with (as a flag's parser reports it,
    /// after the value).
    pub fn reason(&self) -> &str {
        self.why
            .split_once(": ")
            .map_or(self.why.as_str(), |(_, why)| why)
    }
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.flag, self.why)
    }
}

impl std::error::Error for SettingError {}

impl BuildConfig {
    /// The pairs of engines (seats `i < j`) in the order their game pairs are played.
    pub fn engine_pairs(&self) -> Vec<(usize, usize)> {
        let n = self.engines.len();
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    }

    /// G, the games of one candidate: 2 × rounds per pair of engines.
    pub fn games_per_candidate(&self) -> u64 {
        self.engine_pairs().len() as u64 * 2 * u64::from(self.rounds)
    }

    /// Checks what serde cannot: unknown fields, at least two engines of distinct names, a
    /// count and rounds of at least 1, no shards (a build runs on one machine or as workers),
    /// and a band that holds some score of G games.
    ///
    /// # Errors
    /// [`SettingError`] naming the flag.
    pub fn check(&self) -> Result<(), SettingError> {
        if let Some(field) = self.unknown.keys().next() {
            return Err(SettingError::new(field, "is no setting of a build".into()));
        }
        if self.engines.len() < 2 {
            return Err(SettingError::new(
                "--engine",
                "give at least two reference engines: each pair of them plays a game pair \
                 from every candidate"
                    .into(),
            ));
        }
        let mut names = HashSet::new();
        if let Some(engine) = self.engines.iter().find(|e| !names.insert(&e.name)) {
            return Err(SettingError::new(
                "--engine",
                format!(
                    "name={} is given twice: give each engine a name of its own",
                    engine.name
                ),
            ));
        }
        if self.count == 0 {
            return Err(SettingError::new("--count", "0: keep at least 1".into()));
        }
        if self.rounds == 0 {
            return Err(SettingError::new("--rounds", "0: play at least 1".into()));
        }
        if let CandidateSource::RandomPlies { count: 0, .. } = self.candidates {
            return Err(SettingError::new(
                "--candidates",
                "0: draw at least 1".into(),
            ));
        }
        if self.run.shard.is_some() {
            return Err(SettingError::new(
                "--shard",
                "is not taken by a build: run it on one machine, or as workers (--worker)".into(),
            ));
        }
        let games = self.games_per_candidate();
        if self.band.kept_counts(games).is_empty() {
            let scores: Vec<String> = (0..=games)
                .map(|k| format!("{:.3}", k as f64 / games as f64))
                .collect();
            return Err(SettingError::new(
                "--band",
                format!(
                    "{} keeps nothing: White's score over the {games} games of a candidate is one of {}",
                    self.band,
                    scores.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

/// A candidate position, measured by its unit's games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The position its games start from.
    pub position: Position,
    /// The random plies that reached it (`None` for a book's opening).
    pub plies: Option<u32>,
    /// With [`CandidateSource::Book`], its 0-based index in the book (its games' opening);
    /// else 0 (the games start from [`Candidate::position`] over the start position).
    pub opening: usize,
    /// Its score by the bundled search, centipawns for White, with `max_eval`.
    pub eval_cp: Option<i32>,
}

/// Why the candidates cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CandidateError {
    /// Random plies found no new position, not over (and within `max_eval`), for a slot in
    /// [`ATTEMPTS_PER_CANDIDATE`] draws.
    TooFew {
        /// The candidates drawn.
        found: u64,
        /// The candidates asked for.
        wanted: u64,
        /// The plies of the slot that failed.
        plies: u32,
    },
    /// The book holds no position that is not over (and within `max_eval`).
    EmptyBook {
        /// Its openings.
        openings: usize,
    },
}

impl fmt::Display for CandidateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CandidateError::TooFew {
                found,
                wanted,
                plies,
            } => write!(
                f,
                "--candidates {wanted}: only {found} distinct positions found ({ATTEMPTS_PER_CANDIDATE} \
                 draws of {plies} plies gave no new one): ask for fewer, allow more --plies or a \
                 larger --max-eval"
            ),
            CandidateError::EmptyBook { openings } => write!(
                f,
                "--from: none of the book's {openings} openings is a candidate (each is over, \
                 a repeat, or scored beyond --max-eval)"
            ),
        }
    }
}

impl std::error::Error for CandidateError {}

/// The candidates of `config`, the same for the same settings: with random plies, drawn by a
/// PRNG seeded with the run's seed, candidate `i` (0-based) of `min + i mod (max − min + 1)`
/// plies, each new and not over; from a book, its openings not over, repeats skipped. With
/// `max_eval`, only those the bundled search (`search_depth` plies) scores within ±CP.
///
/// # Errors
/// [`CandidateError`] when too few are found.
pub fn candidates(
    config: &BuildConfig,
    book: &[Opening],
) -> Result<Vec<Candidate>, CandidateError> {
    let rules = config.run.rules;
    let mut scorer = config
        .max_eval
        .map(|cp| (Scorer::new(rules, config.search_depth), cp));
    let mut seen = HashSet::new();
    let mut eval_ok = |position: &Position| match &mut scorer {
        None => Some(None),
        Some((scorer, bound)) => match scorer.score(position) {
            eval @ Eval::Cp(cp) if eval.is_balanced(*bound) => Some(Some(cp)),
            _ => None,
        },
    };
    match config.candidates {
        CandidateSource::Book => {
            let mut found = Vec::new();
            for (index, opening) in book.iter().enumerate() {
                let position = opening.position;
                if position.outcome(rules).is_some() || !seen.insert(position) {
                    continue;
                }
                if let Some(eval_cp) = eval_ok(&position) {
                    found.push(Candidate {
                        position,
                        plies: None,
                        opening: index,
                        eval_cp,
                    });
                }
            }
            match found.is_empty() {
                true => Err(CandidateError::EmptyBook {
                    openings: book.len(),
                }),
                false => Ok(found),
            }
        }
        CandidateSource::RandomPlies { plies, count } => {
            let mut rng = fastrand::Rng::with_seed(config.run.seed);
            let mut found = Vec::new();
            for slot in 0..count {
                let plies = plies.of_slot(slot);
                let drawn = (0..ATTEMPTS_PER_CANDIDATE).find_map(|_| {
                    let position =
                        crate::openings::random_sequence(&mut rng, rules, config.run.board, plies)?;
                    seen.insert(position).then_some(())?;
                    let eval_cp = eval_ok(&position)?;
                    Some(Candidate {
                        position,
                        plies: Some(plies),
                        opening: 0,
                        eval_cp,
                    })
                });
                match drawn {
                    Some(candidate) => found.push(candidate),
                    None => {
                        return Err(CandidateError::TooFew {
                            found: slot,
                            wanted: count,
                            plies,
                        });
                    }
                }
            }
            Ok(found)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(band: Band, engines: usize, rounds: u32) -> BuildConfig {
        let engine = |n: usize| {
            let keys = ["cmd=x".to_string(), format!("name=e{n}")];
            crate::engine::EngineKeys::parse(&keys)
                .and_then(|keys| keys.into_description(crate::game::TimeControl::Depth(1)))
                .unwrap()
        };
        BuildConfig {
            run: RunHeader::default(),
            engines: (0..engines).map(engine).collect(),
            candidates: CandidateSource::RandomPlies {
                plies: PlyRange { min: 2, max: 4 },
                count: 30,
            },
            count: 3,
            band,
            rounds,
            max_eval: None,
            search_depth: 2,
            unknown: BTreeMap::new(),
        }
    }

    #[test]
    fn bands_and_plies_parse_and_refuse_with_the_flag_named() {
        assert_eq!("0.25..0.75".parse::<Band>().unwrap(), Band::DEFAULT);
        assert_eq!(Band::DEFAULT.kept_counts(2), vec![1]);
        assert_eq!(Band::DEFAULT.kept_counts(6), vec![2, 3, 4]);
        assert_eq!(Band::DEFAULT.kept_counts(4), vec![1, 2, 3]);
        let err = "0.9..0.1".parse::<Band>().unwrap_err();
        assert_eq!(err.to_string(), "--band 0.9..0.1: LOW is above HIGH");
        assert_eq!(err.reason(), "LOW is above HIGH");
        assert!(
            "1.5..2"
                .parse::<Band>()
                .unwrap_err()
                .why
                .contains("`1.5` is not a score")
        );
        assert_eq!(
            "4-7".parse::<PlyRange>().unwrap(),
            PlyRange { min: 4, max: 7 }
        );
        assert_eq!("6".parse::<PlyRange>().unwrap().to_string(), "6");
        let spread: Vec<u32> = (0..6)
            .map(|slot| PlyRange { min: 4, max: 6 }.of_slot(slot))
            .collect();
        assert_eq!(spread, [4, 5, 6, 4, 5, 6]);
        for bad in ["0", "7-5", "3-101", "x"] {
            assert!(bad.parse::<PlyRange>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_games_of_a_candidate_follow_the_engines_and_rounds() {
        assert_eq!(config(Band::DEFAULT, 2, 1).games_per_candidate(), 2);
        assert_eq!(config(Band::DEFAULT, 3, 1).games_per_candidate(), 6);
        assert_eq!(config(Band::DEFAULT, 3, 2).games_per_candidate(), 12);
        assert_eq!(
            config(Band::DEFAULT, 3, 1).engine_pairs(),
            [(0, 1), (0, 2), (1, 2)]
        );
        let narrow = Band {
            low: 0.6,
            high: 0.7,
        };
        let err = config(narrow, 2, 1).check().unwrap_err();
        assert_eq!(
            err.to_string(),
            "--band 0.6..0.7 keeps nothing: White's score over the 2 games of a candidate is \
             one of 0.000, 0.500, 1.000"
        );
        assert_eq!(config(narrow, 3, 1).check(), Ok(()), "4/6 is in it");
    }

    #[test]
    fn candidates_are_repeatable_distinct_not_over_and_spread_over_the_plies() {
        let config = config(Band::DEFAULT, 2, 1);
        let first = candidates(&config, &[]).unwrap();
        assert_eq!(first, candidates(&config, &[]).unwrap());
        assert_eq!(first.len(), 30);
        let positions: HashSet<Position> = first.iter().map(|c| c.position).collect();
        assert_eq!(positions.len(), 30);
        for (slot, candidate) in first.iter().enumerate() {
            assert_eq!(candidate.plies, Some(2 + u32::try_from(slot % 3).unwrap()));
            assert_eq!(candidate.position.outcome(config.run.rules), None);
        }
    }

    #[test]
    fn the_selection_keeps_the_first_in_the_band_in_candidate_order() {
        let config = config(Band::DEFAULT, 2, 1);
        let keeps = |wins| config.band.keeps(wins, 2);
        let mut tally = schedule::Tally::default();
        // Candidates 1..=6: White won 2, 1, 0, 1, (one game only), 1.
        for (unit, results) in [
            (1, vec![true, true]),
            (2, vec![true, false]),
            (3, vec![false, false]),
            (4, vec![false, true]),
            (5, vec![true]),
            (6, vec![true, false]),
        ] {
            for (k, won) in results.into_iter().enumerate() {
                tally.add(unit, (unit - 1) * 2 + k as u64 + 1, won, 2, keeps);
            }
        }
        let selection = select(&config, &tally, 10);
        assert_eq!(selection.kept, [(2, 1), (4, 1)]);
        assert_eq!(selection.measured, [(1, 2), (2, 1), (3, 0), (4, 1)]);
        assert!(!selection.decided, "candidate 5 is not measured");
        assert_eq!(tally.kept_below(6), 2);
        assert_eq!(tally.kept(), 3);
        tally.add(5, 10, false, 2, keeps);
        let selection = select(&config, &tally, 10);
        assert_eq!(selection.kept, [(2, 1), (4, 1), (5, 1)]);
        assert!(selection.decided, "3 kept, every candidate before measured");
        // The same game read twice counts once.
        tally.add(5, 10, false, 2, keeps);
        assert_eq!(select(&config, &tally, 10).kept.len(), 3);
    }
}
