//! A selection's report, rebuilt from the games of its run directory through the same code
//! that decided the run ([`Feed`]): the text report, summary.json and report.html
//! ([`super::page`]). The run writes them as it plays and at its end; `bt-arena elo RUN` and
//! `bt-arena report RUN` rebuild them from the directory alone.
//!
//! Each candidate's Elo against the base is its pairs' ([`elo_pentanomial`]): the same
//! estimate as `bt-arena elo --anchor BASE` gives over the run's games (a candidate meets only
//! the base, so the pool's ratings are its score's), with its fixed-sample 95% error bar.

use super::config::{SELECT_JSON, SelectConfig};
use super::feed::{Feed, Layout};
use super::procedure::{BaseVerdict, Ending, Procedure, first_crossing};
use crate::records::{Existing, GamesReader, RecordsError, write_json};
use crate::rules::Color;
use crate::run_dir::{RunDir, RunDirError};
use crate::stats::{EloEstimate, Pentanomial, SprtDecision, elo_pentanomial};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// At most this many rounds are sampled for the charts of report.html and summary.json's
/// `history` (each candidate's last round too).
const HISTORY_POINTS: u64 = 120;

/// Why a selection's report cannot be made.
#[derive(Debug)]
pub enum ReportError {
    /// A games file or the report cannot be read or written.
    Records(RecordsError),
    /// The run directory cannot be listed.
    RunDir(RunDirError),
    /// Its select.json cannot be read.
    Config(crate::session::resume::SavedError),
    /// The directory holds no selection.
    NotASelection(PathBuf),
    /// A game of the run played by other engines than its place says.
    Foreign {
        /// The games file.
        path: PathBuf,
        /// The game.
        game_id: u64,
    },
    /// The decision code refused a round (a bug).
    Round(super::procedure::RoundError),
    /// The base test's settings (an indifference the SPRT refuses).
    Test(crate::stats::SprtSpecError),
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Records(err) => err.fmt(f),
            ReportError::RunDir(err) => err.fmt(f),
            ReportError::Config(err) => err.fmt(f),
            ReportError::NotASelection(dir) => write!(
                f,
                "{} holds no selection: no {SELECT_JSON} in it or its worker directories",
                dir.display()
            ),
            ReportError::Foreign { path, game_id } => write!(
                f,
                "{}: game {game_id} was not played by the engines its place in the selection \
                 says (files of another run?)",
                path.display()
            ),
            ReportError::Round(err) => err.fmt(f),
            ReportError::Test(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for ReportError {}

impl From<RecordsError> for ReportError {
    fn from(err: RecordsError) -> Self {
        ReportError::Records(err)
    }
}

/// The words of a test's decision: `H1 accepted (it beats the base)`.
pub fn decision_words(decision: SprtDecision) -> &'static str {
    match decision {
        SprtDecision::AcceptH1 => "H1 accepted (it beats the base)",
        SprtDecision::AcceptH0 => "H0 accepted (it does not beat the base)",
        SprtDecision::Continue => "no decision yet",
    }
}

/// Why a candidate left, in words: `lead 21 pair points > bound 20.9`, or, for a tie once
/// the triangular region has closed, `tied once the region closed: the first given stays`.
pub fn why_left(lead: i64, bound: f64) -> String {
    match (lead, bound) {
        (0, bound) if bound <= 0.0 => {
            "tied once the region closed: the first given stays".to_string()
        }
        _ => format!("lead {lead} pair points > bound {bound:.1}"),
    }
}

/// How a candidate left, by name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Left {
    /// After this round.
    pub round: u64,
    /// Eliminated by this candidate.
    pub by: String,
    /// Its lead, pair points.
    pub lead: i64,
    /// The bound the lead passed, pair points.
    pub bound: f64,
}

/// One candidate in the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CandidateReport {
    /// Its name.
    pub name: String,
    /// Its game pairs against the base taken by the selection.
    pub pairs: u64,
    /// Its pairs by points, `[LL, LD, WL, WD, WW]`.
    pub pentanomial: Pentanomial,
    /// Its Elo against the base (logistic) with the fixed-sample 95% error bar.
    pub elo: EloEstimate,
    /// `chosen`, `in` (still playing) or `eliminated`.
    pub status: &'static str,
    /// When and by whom it was eliminated.
    pub eliminated: Option<Left>,
    /// Its test against the base over its pairs: the first crossing, if any.
    pub base_test: Option<TestResult>,
}

impl CandidateReport {
    /// Its Elo in words: `+12.3 ± 4.5`, or `+300.0 (bound)` when every pair went one way.
    pub fn elo_text(&self) -> String {
        match self.elo.bound {
            true => format!("{:+.1} (bound)", self.elo.elo),
            false => format!("{:+.1} ± {:.1}", self.elo.elo, self.elo.error95),
        }
    }

    /// Its status in words: `chosen`, `in`, or when and why it was eliminated.
    pub fn status_text(&self) -> String {
        match &self.eliminated {
            Some(left) => format!(
                "eliminated after round {} by {} ({})",
                left.round,
                left.by,
                why_left(left.lead, left.bound)
            ),
            None => self.status.to_string(),
        }
    }
}

/// A test against the base, decided.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TestResult {
    /// `H1` or `H0`.
    pub decision: &'static str,
    /// After this many pairs.
    pub pairs: u64,
    /// The LLR then.
    pub llr: f64,
    /// The Elo at the stop, median-unbiased, and its 95% interval (fishtest's after-stop
    /// estimate).
    pub after_stop: Option<crate::stats::after_stop::AfterStop>,
}

impl TestResult {
    fn of(verdict: &BaseVerdict, procedure: &Procedure) -> TestResult {
        let test = procedure.base_test();
        TestResult {
            decision: match verdict.decision {
                SprtDecision::AcceptH1 => "H1",
                _ => "H0",
            },
            pairs: verdict.pairs,
            llr: verdict.llr,
            after_stop: Some(crate::stats::after_stop::after_stop(
                test,
                &verdict.counts.as_array(),
            )),
        }
    }
}

/// The Elo of every candidate still playing at a round, for the charts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryPoint {
    /// The round.
    pub round: u64,
    /// By candidate: `[elo, low, high]` (the 95% interval) after this round, `None` once it
    /// has left (or before its first pair).
    pub elo: Vec<Option<[f64; 3]>>,
}

/// How the selection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Chosen, and its test against the base decided.
    Decided,
    /// The budget ran out first.
    Budget,
    /// Still playing (or stopped before its end: `--resume` continues it).
    InProgress,
}

/// A selection's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SelectReport {
    /// `select`.
    pub kind: &'static str,
    /// The event.
    pub event: String,
    /// The base.
    pub base: String,
    /// `--indifference`, Elo.
    pub indifference: f64,
    /// `--confidence`.
    pub confidence: f64,
    /// `--budget`, games.
    pub budget: Option<u64>,
    /// Each candidate's test against the base, as an `--sprt` spec.
    pub base_test: String,
    /// How it stands.
    pub status: Status,
    /// The chosen candidate, once known.
    pub chosen: Option<String>,
    /// The round after which it was known.
    pub chosen_round: Option<u64>,
    /// Whether it beats the base, once its test decided.
    pub beats_base: Option<bool>,
    /// The leader when the budget ran out (or now, in progress).
    pub leader: String,
    /// Rounds taken.
    pub rounds: u64,
    /// Games taken by the selection.
    pub games: u64,
    /// Games read that the selection does not take.
    pub extra_games: u64,
    /// The candidates, in the order given.
    pub candidates: Vec<CandidateReport>,
    /// Each candidate's Elo round by round, sampled.
    pub history: Vec<HistoryPoint>,
}

impl SelectReport {
    /// The report of `config`'s selection over `games` (game id, whether the candidate won;
    /// any order, each once).
    ///
    /// # Errors
    /// [`ReportError::Test`] for settings the base test refuses; [`ReportError::Round`] (a
    /// bug).
    pub fn build(
        config: &SelectConfig,
        games: impl IntoIterator<Item = (u64, bool)>,
    ) -> Result<SelectReport, ReportError> {
        let mut feed = Feed::new(Procedure::new(config.rule()).map_err(ReportError::Test)?);
        for (game_id, won) in games {
            feed.add(game_id, won).map_err(ReportError::Round)?;
        }
        Ok(SelectReport::of(config, &feed))
    }

    fn of(config: &SelectConfig, feed: &Feed) -> SelectReport {
        let procedure = feed.procedure();
        let names: Vec<String> = config
            .candidates()
            .into_iter()
            .map(|i| config.engines[i].name.clone())
            .collect();
        let test = procedure.base_test();
        let chosen = procedure.chosen();
        let candidates = procedure
            .standings()
            .iter()
            .enumerate()
            .map(|(i, standing)| CandidateReport {
                name: names[i].clone(),
                pairs: standing.counts.pairs(),
                pentanomial: standing.counts,
                elo: elo_pentanomial(&standing.counts),
                status: match (standing.eliminated, chosen) {
                    (Some(_), _) => "eliminated",
                    (None, Some((c, _))) if c == i => "chosen",
                    _ => "in",
                },
                eliminated: standing.eliminated.map(|how| Left {
                    round: how.round,
                    by: names[how.by].clone(),
                    lead: how.lead,
                    bound: how.bound,
                }),
                base_test: first_crossing(test, &standing.points)
                    .map(|verdict| TestResult::of(&verdict, procedure)),
            })
            .collect();
        let (status, beats_base) = match procedure.ending() {
            Some((Ending::Decided { beats_base, .. }, _)) => (Status::Decided, Some(beats_base)),
            Some((Ending::Budget, _)) => (Status::Budget, None),
            None => (Status::InProgress, None),
        };
        SelectReport {
            kind: "select",
            event: config.run.event.clone(),
            base: config.base.clone(),
            indifference: config.indifference,
            confidence: config.confidence,
            budget: config.budget,
            base_test: test.to_string(),
            status,
            chosen: chosen.map(|(c, _)| names[c].clone()),
            chosen_round: chosen.map(|(_, round)| round),
            beats_base,
            leader: names[procedure.leader()].clone(),
            rounds: procedure.rounds(),
            games: procedure.games(),
            extra_games: feed.extra(),
            candidates,
            history: history(procedure),
        }
    }

    /// The exit code of the selection: 0 chosen and beats the base, 1 chosen and none does,
    /// 2 the budget ran out (or it has not ended).
    pub fn exit_code(&self) -> u8 {
        match (self.status, self.beats_base) {
            (Status::Decided, Some(true)) => 0,
            (Status::Decided, _) => 1,
            _ => 2,
        }
    }

    /// The sentence of the answer: the chosen one and whether it beats the base.
    pub fn answer(&self) -> String {
        match (self.status, &self.chosen, self.beats_base) {
            (Status::Decided, Some(chosen), Some(true)) => {
                format!("{chosen} is the best candidate, and it beats {}", self.base)
            }
            (Status::Decided, Some(chosen), _) => format!(
                "none beats {}: the best candidate, {chosen}, does not",
                self.base
            ),
            (Status::Budget, _, _) => format!(
                "no answer within the budget of {} games: {} leads, with no guarantee",
                self.budget.unwrap_or(0),
                self.leader
            ),
            (_, Some(chosen), _) => format!(
                "{chosen} is the best candidate; its test against {} has not decided yet",
                self.base
            ),
            _ => format!("not decided yet: {} leads", self.leader),
        }
    }
}

/// Each candidate's Elo and 95% interval at sampled rounds (about [`HISTORY_POINTS`], and
/// every candidate's last round).
fn history(procedure: &Procedure) -> Vec<HistoryPoint> {
    let rounds = procedure.rounds();
    let step = rounds.div_ceil(HISTORY_POINTS).max(1);
    let mut sampled: Vec<u64> = (1..=rounds).filter(|r| r % step == 0).collect();
    for standing in procedure.standings() {
        sampled.push(standing.points.len() as u64);
    }
    sampled.retain(|&r| r > 0);
    sampled.sort_unstable();
    sampled.dedup();
    let standings = procedure.standings();
    let mut counts = vec![Pentanomial::default(); standings.len()];
    let mut played = vec![0usize; standings.len()];
    sampled
        .into_iter()
        .map(|round| {
            let elo = standings
                .iter()
                .enumerate()
                .map(|(c, standing)| {
                    let upto = usize::try_from(round).unwrap_or(usize::MAX);
                    if standing.points.len() < upto {
                        return None;
                    }
                    for &p in &standing.points[played[c]..upto] {
                        counts[c].add_pair(p >= 1, p == 2);
                    }
                    played[c] = upto;
                    let estimate = elo_pentanomial(&counts[c]);
                    let error = estimate.error95;
                    Some([estimate.elo, estimate.elo - error, estimate.elo + error])
                })
                .collect();
            HistoryPoint { round, elo }
        })
        .collect()
}

impl fmt::Display for SelectReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let budget = self
            .budget
            .map(|b| format!(", budget {b} games"))
            .unwrap_or_default();
        writeln!(
            f,
            "Selection of the best of {} candidates against {}: indifference {} Elo, \
             confidence {}{budget}",
            self.candidates.len(),
            self.base,
            self.indifference,
            self.confidence
        )?;
        writeln!(f, "Answer: {}", self.answer())?;
        if let (Some(chosen), Some(round)) = (&self.chosen, self.chosen_round) {
            writeln!(
                f,
                "Chosen: {chosen}, the last candidate in after round {round}"
            )?;
        }
        if let Some(chosen) = self.candidates.iter().find(|c| c.status == "chosen") {
            match &chosen.base_test {
                Some(test) => {
                    writeln!(
                        f,
                        "Its test against {} ({}): {} after {} pairs, LLR {:.2}",
                        self.base, self.base_test, test.decision, test.pairs, test.llr
                    )?;
                    if let Some(after) = &test.after_stop {
                        writeln!(
                            f,
                            "Its Elo against {} after the stop: {after} (median-unbiased, 95%)",
                            self.base
                        )?;
                    }
                }
                None => writeln!(
                    f,
                    "Its test against {} ({}): no decision yet",
                    self.base, self.base_test
                )?,
            }
        }
        writeln!(
            f,
            "Rounds {}, games {}{}",
            self.rounds,
            self.games,
            match self.extra_games {
                0 => String::new(),
                n => format!(" ({n} more games read that the selection does not take)"),
            }
        )?;
        writeln!(f)?;
        let width = self
            .candidates
            .iter()
            .map(|c| c.name.chars().count())
            .max()
            .unwrap_or(4)
            .max(9);
        writeln!(
            f,
            "{:<width$} {:>6} {:>16} {:>6} {:>6} {:>6}  status",
            "candidate", "pairs", "Elo vs base", "LL", "1-1", "WW"
        )?;
        for c in &self.candidates {
            let (elo, status) = (c.elo_text(), c.status_text());
            writeln!(
                f,
                "{:<width$} {:>6} {:>16} {:>6} {:>6} {:>6}  {status}",
                c.name, c.pairs, elo, c.pentanomial.ll, c.pentanomial.wl, c.pentanomial.ww
            )?;
        }
        writeln!(f)?;
        write!(f, "{}", guarantee(self))
    }
}

/// The guarantee of the procedure, in words, with its assumptions.
pub fn guarantee(report: &SelectReport) -> String {
    let k = report.candidates.len();
    let error = 1.0 - report.confidence;
    format!(
        "Guarantee: whenever the best candidate is at least {} Elo better than the second, it \
         is chosen with probability at least {}; a candidate that does not beat {} is said to \
         beat it with probability at most {error:.3} (each candidate's test has alpha {:.4}); \
         one at least {0} Elo better than {2} is said not to with probability at most \
         {error:.3}. Assumed: game pairs against {2}, each lost twice, split or won twice \
         (no draws), independent of every other (docs/guide/select.md).\n",
        report.indifference,
        report.confidence,
        report.base,
        error / k.max(1) as f64
    )
}

/// The directories of the run in `run` that hold its games: itself (one machine) and its
/// workers', sorted.
///
/// # Errors
/// [`ReportError::RunDir`] when it cannot be listed.
fn game_dirs(run: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut dirs = vec![run.to_path_buf()];
    dirs.extend(
        RunDir::new(run)
            .worker_dirs()
            .map_err(ReportError::RunDir)?
            .into_iter()
            .map(|dir| dir.root().to_path_buf()),
    );
    Ok(dirs)
}

/// The selection's saved settings in `run`: its select.json, or a worker's.
///
/// # Errors
/// [`ReportError::NotASelection`] without one; [`ReportError::Config`] for one that does
/// not read.
pub fn saved_config(run: &Path) -> Result<SelectConfig, ReportError> {
    for dir in game_dirs(run)? {
        if dir.join(SELECT_JSON).is_file() {
            let mut config: SelectConfig =
                crate::session::resume::read_saved(&dir).map_err(ReportError::Config)?;
            config.run.out = run.to_path_buf();
            config.run.worker = None;
            return Ok(config);
        }
    }
    Err(ReportError::NotASelection(run.to_path_buf()))
}

/// Whether `dir` holds a selection (on one machine, or of workers).
pub fn is_selection(dir: &Path) -> bool {
    dir.is_dir()
        && game_dirs(dir).is_ok_and(|dirs| dirs.iter().any(|d| d.join(SELECT_JSON).is_file()))
}

/// The report of the selection in `run`, read from every games.csv of it (each game once).
///
/// # Errors
/// [`ReportError`]: no selection, settings or games that cannot be read, a game not of it.
pub fn read_run(run: &Path) -> Result<(SelectConfig, SelectReport), ReportError> {
    let config = saved_config(run)?;
    let layout = Layout {
        candidates: config.candidates().len(),
    };
    let names = config.names();
    let (base, seats) = (config.base_index(), config.candidates());
    let mut games: BTreeMap<u64, bool> = BTreeMap::new();
    for dir in game_dirs(run)? {
        let path = RunDir::new(&dir).games_csv();
        if !path.is_file() {
            continue;
        }
        for game in GamesReader::open(&path)? {
            let game = game?;
            let (_, candidate) = layout.place(Layout::unit_of_game(game.game_id));
            let (white, black) = match Layout::candidate_white(game.game_id) {
                true => (seats[candidate], base),
                false => (base, seats[candidate]),
            };
            if game.white != names[white] || game.black != names[black] {
                return Err(ReportError::Foreign {
                    path,
                    game_id: game.game_id,
                });
            }
            let white_won = game.result.winner() == Color::White;
            let won = white_won == Layout::candidate_white(game.game_id);
            games.entry(game.game_id).or_insert(won);
        }
    }
    let report = SelectReport::build(&config, games)?;
    Ok((config, report))
}

/// Writes summary.json and report.html of the selection of `config` into its run directory
/// (the run's, for a worker), rebuilt from its games; `live` while it plays (the page
/// reloads itself).
///
/// # Errors
/// [`ReportError`]: the games cannot be read, the files cannot be written.
pub fn write_run(config: &SelectConfig, live: bool) -> Result<SelectReport, ReportError> {
    let run = &config.run.out;
    let (_, report) = read_run(run)?;
    write_files(run, &report, live)?;
    Ok(report)
}

/// Writes summary.json and report.html of `report` into `dir`.
///
/// # Errors
/// [`ReportError::Records`] naming the file that cannot be written.
pub fn write_files(dir: &Path, report: &SelectReport, live: bool) -> Result<(), ReportError> {
    let run = RunDir::new(dir);
    write_json(&run.summary_json(), report, Existing::Replace)?;
    super::page::write(&run.report_html(), report, live)?;
    Ok(())
}

/// Writes report.html of `report` to `path` (of a selection that is not playing).
///
/// # Errors
/// [`ReportError::Records`] naming the file that cannot be written.
pub fn write_page(path: &Path, report: &SelectReport) -> Result<(), ReportError> {
    super::page::write(path, report, false)?;
    Ok(())
}
