//! A sharded run's recorded SPRT verdict (`RUN/sprt.json`): written once by the first shard
//! to see a bound crossed ([`crate::tournament::shard::sprt`]), read by everyone who reads
//! the run and checked against its games ([`super::games::GameSources::recorded_verdict`]).

use crate::records::RecordsError;
use crate::run_dir::{RunDir, Shard};
use crate::stats::{EloModel, Sprt, SprtDecision, SprtReport};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// The verdict of a sharded run's SPRT, as `RUN/sprt.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedVerdict {
    /// The run whose games reached it (`None` in files written before run ids existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
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
    /// Who saw the crossing first and recorded it: a shard (`K/N`, as files have always
    /// said it) or a worker (`worker ID`).
    pub recorded_by: String,
    /// When, RFC 3339 UTC.
    pub recorded_at: String,
}

impl RecordedVerdict {
    /// Whether this is the verdict of run `run_id` (a file without a run id: of any run) on
    /// test `sprt` (compared parsed, so `alpha=0.05` written out or left implicit is one
    /// test).
    pub fn is_for(&self, run_id: Option<&str>, sprt: &Sprt) -> bool {
        let same_run = match (&self.run_id, run_id) {
            (Some(ours), Some(theirs)) => ours == theirs,
            _ => true,
        };
        same_run
            && self
                .sprt
                .parse::<Sprt>()
                .is_ok_and(|recorded| recorded == *sprt)
    }

    /// Whether `other` is the same verdict (run, test, deciding game and decision), whoever
    /// recorded it and when.
    pub(crate) fn same_verdict(&self, other: &RecordedVerdict) -> bool {
        (&self.run_id, &self.sprt, self.games, self.report.decision)
            == (
                &other.run_id,
                &other.sprt,
                other.games,
                other.report.decision,
            )
    }

    /// `H1` or `H0`.
    pub fn hypothesis(&self) -> &'static str {
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
            "{}\nSPRT: {} accepted at game {} over the games of every {} (recorded by {})",
            self.report,
            self.hypothesis(),
            self.games,
            match self.recorded_by.parse::<Shard>() {
                Ok(_) => "shard",
                Err(_) => "worker",
            },
            match self.recorded_by.parse::<Shard>() {
                Ok(shard) => format!("shard {shard}"),
                Err(_) => self.recorded_by.clone(),
            }
        )
    }
}

/// The verdict recorded in run directory `run`, if any.
///
/// # Errors
/// [`RecordsError::Io`] when the file exists but cannot be read; [`RecordsError::Malformed`]
/// when it is not a verdict.
pub fn read_verdict(run: &Path) -> Result<Option<RecordedVerdict>, RecordsError> {
    let path = RunDir::new(run).sprt_json();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RecordsError::Io {
                path,
                action: "cannot read",
                source,
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| RecordsError::Malformed {
            line: e.line() as u64,
            reason: e.to_string(),
            path,
        })
}
