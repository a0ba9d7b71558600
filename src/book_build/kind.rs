//! A build as a kind of run on the session ([`crate::session`]): its candidates drawn, its
//! games played ([`Measure`]), then the book chosen from every process's games and written
//! ([`BOOK_FILE`], [`CANDIDATES_FILE`]).

use super::schedule::{ForeignGame, Measure, Tally};
use super::{
    BOOK_FILE, BuildConfig, CANDIDATES_FILE, CONFIG_FILE, Candidate, CandidateError,
    CandidateSource,
};
use crate::arena::Schedule;
use crate::engine::EngineDescription;
use crate::records::{RecordsError, read_games};
use crate::rules::Color;
use crate::run::header::RunHeader;
use crate::run::identity::{Identified, RunType, RunTypeInfo};
use crate::run_dir::RunDir;
use crate::session::{Ended, Kind, Opened, RunConfig, SessionError, Setup};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// `bt-arena openings build`: a book of openings kept by measured game pairs.
pub struct Build;

/// Why a build cannot go on, or ends without a book.
#[derive(Debug)]
pub enum BuildError {
    /// The candidates cannot be drawn.
    Candidates(CandidateError),
    /// A recorded game is not the build's.
    Foreign(ForeignGame),
    /// The games cannot be read.
    Records(RecordsError),
    /// The book or the candidates' table cannot be written.
    Write {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Every candidate was measured and none fell in the band.
    NothingKept {
        /// The band, as given.
        band: String,
        /// The candidates measured.
        measured: usize,
        /// How many candidates had each count of White's wins, fewest wins first.
        white_wins: BTreeMap<u64, u64>,
        /// G, the games of one candidate.
        games: u64,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Candidates(err) => err.fmt(f),
            BuildError::Foreign(err) => err.fmt(f),
            BuildError::Records(err) => err.fmt(f),
            BuildError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
            BuildError::NothingKept {
                band,
                measured,
                white_wins,
                games,
            } => {
                let seen: Vec<String> = white_wins
                    .iter()
                    .map(|(wins, n)| format!("{wins}/{games} in {n}"))
                    .collect();
                write!(
                    f,
                    "--band {band} kept none of the {measured} candidates (White's wins: {}): \
                     widen the band, or measure with engines of closer strength",
                    seen.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for BuildError {}

impl From<ForeignGame> for BuildError {
    fn from(err: ForeignGame) -> Self {
        BuildError::Foreign(err)
    }
}

/// Which candidates the book keeps, decided from the games recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The kept candidates' units (1-based) and White's wins, in candidate order.
    pub kept: Vec<(u64, u64)>,
    /// Every candidate measured before the selection ended: unit and White's wins.
    pub measured: Vec<(u64, u64)>,
    /// Whether the book is decided: `count` kept with every candidate before the last kept
    /// measured, or every candidate measured.
    pub decided: bool,
}

/// The selection of `tally`: candidates in order, each kept when measured and in the band,
/// up to `count`; undecided at the first candidate not measured.
pub fn select(config: &BuildConfig, tally: &Tally, candidates: usize) -> Selection {
    let games = config.games_per_candidate();
    let mut selection = Selection {
        kept: Vec::new(),
        measured: Vec::new(),
        decided: true,
    };
    for unit in 1..=candidates as u64 {
        if selection.kept.len() as u64 >= config.count {
            break;
        }
        let Some(wins) = tally.white_wins(unit, games) else {
            selection.decided = false;
            break;
        };
        selection.measured.push((unit, wins));
        if config.band.keeps(wins, games) {
            selection.kept.push((unit, wins));
        }
    }
    selection
}

/// What a build did.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The selection from every game recorded.
    pub selection: Selection,
    /// The candidates drawn.
    pub candidates: usize,
    /// The openings wanted.
    pub wanted: u64,
    /// The book written (`None` while undecided: games are missing).
    pub book: Option<PathBuf>,
    /// The kept openings' plies (random plies only): plies → openings.
    pub plies: BTreeMap<u32, u64>,
}

impl fmt::Display for BuildReport {
    /// `Kept 40 of 112 candidates measured (40 wanted, 500 drawn); plies 4: 13, 5: 14, 6: 13`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let selection = &self.selection;
        write!(
            f,
            "Kept {} of {} candidates measured ({} wanted, {} drawn)",
            selection.kept.len(),
            selection.measured.len(),
            self.wanted,
            self.candidates
        )?;
        if !self.plies.is_empty() {
            let plies: Vec<String> = self
                .plies
                .iter()
                .map(|(p, n)| format!("{p}: {n}"))
                .collect();
            write!(f, "; plies {}", plies.join(", "))?;
        }
        Ok(())
    }
}

impl Identified for BuildConfig {
    const TYPE: RunType = RunType::new(&RunTypeInfo {
        command: "openings build",
        noun: "build",
        file: CONFIG_FILE,
        merge: "write its book with bt-arena openings build --resume {run}",
    });

    fn header(&self) -> &RunHeader {
        &self.run
    }

    fn header_mut(&mut self) -> &mut RunHeader {
        &mut self.run
    }
}

impl RunConfig for BuildConfig {
    fn engines_mut(&mut self) -> &mut [EngineDescription] {
        &mut self.engines
    }

    fn validate(&self) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        self.check().map_err(Into::into)
    }
}

impl Kind for Build {
    type Config = BuildConfig;
    type Schedule<'a> = Measure<'a>;
    type Error = BuildError;
    type Prospect = usize;
    type Outcome = BuildReport;

    fn seats(config: &BuildConfig) -> Vec<EngineDescription> {
        config.engines.clone()
    }

    /// The candidates drawn (their count is the prospect).
    fn open<'a>(
        config: &'a BuildConfig,
        setup: &Setup<'a>,
    ) -> Result<Opened<Measure<'a>, usize>, BuildError> {
        let candidates =
            super::candidates(config, setup.openings).map_err(BuildError::Candidates)?;
        let count = candidates.len();
        Ok(Opened {
            schedule: Measure::new(config, candidates),
            prospect: count,
            repairs: Vec::new(),
            total_games: 0,
        })
    }

    /// Reads every process's games (a worker's: every worker's), chooses the book, and when
    /// it is decided writes it and the candidates' table to the run's directory.
    fn finish(
        config: &BuildConfig,
        schedule: Measure<'_>,
        ended: &Ended,
    ) -> Result<BuildReport, SessionError<BuildError>> {
        let kind = SessionError::Kind;
        let tally = recorded_tally(config, &schedule, &ended.dir).map_err(kind)?;
        let candidates = schedule.candidates();
        let selection = select(config, &tally, candidates.len());
        let mut report = BuildReport {
            candidates: candidates.len(),
            wanted: config.count,
            book: None,
            plies: BTreeMap::new(),
            selection,
        };
        if !report.selection.decided {
            return Ok(report);
        }
        if report.selection.kept.is_empty() {
            let mut white_wins = BTreeMap::new();
            for (_, wins) in &report.selection.measured {
                *white_wins.entry(*wins).or_default() += 1;
            }
            return Err(kind(BuildError::NothingKept {
                band: config.band.to_string(),
                measured: report.selection.measured.len(),
                white_wins,
                games: config.games_per_candidate(),
            }));
        }
        for (unit, _) in &report.selection.kept {
            if let Some(plies) = candidates[index_of(*unit)].plies {
                *report.plies.entry(plies).or_default() += 1;
            }
        }
        let root = &config.run.out;
        let write = |path: PathBuf, text: String| {
            let existing = crate::run_dir::Existing::Replace;
            crate::run_dir::atomic::write_atomically(&path, existing, |file| {
                std::io::Write::write_all(file, text.as_bytes())
            })
            .map(drop)
            .map_err(|source| kind(BuildError::Write { path, source }))
        };
        write(
            root.join(CANDIDATES_FILE),
            candidates_csv(config, candidates, &report.selection),
        )?;
        write(root.join(BOOK_FILE), book_text(config, candidates, &report))?;
        report.book = Some(root.join(BOOK_FILE));
        Ok(report)
    }
}

/// White's wins per candidate from the games recorded in `dir` (of a worker: every worker's
/// of the run).
fn recorded_tally(
    config: &BuildConfig,
    schedule: &Measure<'_>,
    dir: &Path,
) -> Result<Tally, BuildError> {
    let dirs = match config.run.worker {
        Some(_) => RunDir::new(&config.run.out)
            .worker_dirs()
            .map_err(|e| {
                BuildError::Records(RecordsError::Io {
                    path: config.run.out.clone(),
                    action: "cannot list",
                    source: std::io::Error::other(e.to_string()),
                })
            })?
            .into_iter()
            .map(|d| d.root().to_path_buf())
            .collect(),
        None => vec![dir.to_path_buf()],
    };
    let games = config.games_per_candidate();
    let mut tally = Tally::default();
    for dir in dirs {
        let path = RunDir::new(&dir).games_csv();
        if !path.exists() {
            continue;
        }
        for game in read_games(&path).map_err(BuildError::Records)? {
            let recorded = schedule.recorded(&game)?;
            let white_won = recorded.result.winner() == Color::White;
            tally.add(recorded.unit.0, game.game_id, white_won, games, |wins| {
                config.band.keeps(wins, games)
            });
        }
    }
    Ok(tally)
}

/// The book: a header (how it was made, from the settings alone, so that a resumed build
/// writes the same bytes), then each kept candidate as
/// `<position> ; id "o<n>"; plies <p>; white <wins>/<games>; candidate <u>`.
fn book_text(config: &BuildConfig, candidates: &[Candidate], report: &BuildReport) -> String {
    let games = config.games_per_candidate();
    let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
    let source = match config.candidates {
        CandidateSource::RandomPlies { plies, count } => {
            format!("{count} candidates of {plies} random plies")
        }
        CandidateSource::Book => match &config.run.openings.file {
            Some(file) => format!("the openings of {}", file.display()),
            None => "the start position".to_string(),
        },
    };
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# bt-arena openings build, seed {}, {} rules{}: {report}",
        config.run.seed,
        config.run.rules,
        // 8x8 books read as they always have.
        match config.run.board.is_standard() {
            true => String::new(),
            false => format!(" on the {} board", config.run.board),
        }
    );
    let _ = writeln!(
        text,
        "# from {source}; kept when White's score over {games} games between {} is in {}",
        names.join(", "),
        config.band
    );
    let _ = writeln!(
        text,
        "# test engines other than these with it: the book was chosen by their results"
    );
    let _ = writeln!(
        text,
        "# <position> ; id \"o<n>\"; [plies <n>;] white <wins>/<games>; candidate <n>"
    );
    for (n, (unit, wins)) in report.selection.kept.iter().enumerate() {
        let candidate = &candidates[index_of(*unit)];
        let plies = candidate
            .plies
            .map(|p| format!(" plies {p};"))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "{} ; id \"o{}\";{plies} white {wins}/{games}; candidate {unit}",
            candidate.position,
            n + 1
        );
    }
    text
}

/// candidates.csv: `candidate,plies,eval,white_wins,games,kept,position`, one row per
/// candidate measured.
fn candidates_csv(config: &BuildConfig, candidates: &[Candidate], selection: &Selection) -> String {
    let games = config.games_per_candidate();
    let mut text = "candidate,plies,eval,white_wins,games,kept,position\n".to_string();
    for (unit, wins) in &selection.measured {
        let candidate = &candidates[index_of(*unit)];
        let field = |value: Option<String>| value.unwrap_or_default();
        let _ = writeln!(
            text,
            "{unit},{},{},{wins},{games},{},{}",
            field(candidate.plies.map(|p| p.to_string())),
            field(candidate.eval_cp.map(|cp| cp.to_string())),
            selection.kept.iter().any(|(kept, _)| kept == unit),
            candidate.position
        );
    }
    text
}

/// The index in the candidates of unit `unit` (1-based).
fn index_of(unit: u64) -> usize {
    usize::try_from(unit - 1).unwrap_or(usize::MAX)
}
