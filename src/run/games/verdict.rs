//! A run's verdict as its games give it, its recorded verdict checked against them, and
//! what is missing.

use super::{GameSources, GroupKind, RunReading};
use crate::records;
use crate::report::Summary;
use crate::run::recorded::{RecordedVerdict, read_verdict};
use crate::run_dir::{RunDir, Shard};
use crate::stats::SprtDecision;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

impl GameSources {
    /// The verdict recorded by the shared SPRT of the only run read (its `sprt.json`),
    /// checked against `summary`, the report its games give: a record of another run or test
    /// is not this run's ([`Recorded::None`]); a record the games do not bear out (a stale
    /// file, an edited one) or that does not read is [`Recorded::Ignored`]. The verdict is
    /// always the games'.
    pub fn recorded_verdict(&self, summary: &Summary) -> Recorded {
        let Some(GroupKind::Sharded { dir, config, .. }) = self.single_run().map(|g| &g.kind)
        else {
            return Recorded::None;
        };
        let path = RunDir::new(dir).sprt_json();
        let record = match read_verdict(dir) {
            Ok(Some(record)) => record,
            Ok(None) => return Recorded::None,
            Err(err) => return Recorded::Ignored(format!("{err}: the record is ignored")),
        };
        let Some(sprt) = summary
            .pairs
            .first()
            .and_then(|pair| pair.sprt.map(|status| (status, config.sprt)))
        else {
            return Recorded::None;
        };
        let (status, test) = sprt;
        if !test.is_some_and(|test| record.is_for(config.run_id.as_deref(), &test)) {
            return Recorded::None;
        }
        if (status.report.decision, status.games) == (record.report.decision, record.games) {
            Recorded::Agrees(record)
        } else {
            Recorded::Ignored(format!(
                "{} records {} at game {}, which the games read do not give: the record is \
                 ignored (the verdict is the games')",
                path.display(),
                record.hypothesis(),
                record.games
            ))
        }
    }
}

/// A sharded run's recorded verdict (`sprt.json`), checked against its games (see
/// [`GameSources::recorded_verdict`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Recorded {
    /// No record for this run and test.
    None,
    /// The record agrees with the verdict the games give.
    Agrees(RecordedVerdict),
    /// A record the games do not bear out, or that does not read: why it is ignored.
    Ignored(String),
}

/// A run's verdict as its games give it: the same whichever command reads the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The SPRT accepted a hypothesis (H1 or H0), every game before its deciding game read.
    Accepted(SprtDecision),
    /// The SPRT reached no decision, and no game of the schedule is missing (or the games
    /// are files, whose schedule is unknown).
    NoDecision,
    /// Games of the schedule are missing and no verdict stands: the run is incomplete.
    Incomplete {
        /// Whether the run is tested by an SPRT (which has no verdict yet).
        tested: bool,
    },
    /// No SPRT, and no game missing.
    Complete,
}

impl Verdict {
    /// The verdict of a reading: its summary's SPRT decision (which the reading halted at the
    /// first missing game, so that a decision stands on every game before it), else
    /// incomplete when games are missing.
    pub fn of(summary: &Summary, reading: &RunReading) -> Verdict {
        match summary.sprt_decision() {
            Some(decision @ (SprtDecision::AcceptH1 | SprtDecision::AcceptH0)) => {
                Verdict::Accepted(decision)
            }
            decision if reading.missing_games() > 0 => Verdict::Incomplete {
                tested: decision.is_some(),
            },
            Some(SprtDecision::Continue) => Verdict::NoDecision,
            None => Verdict::Complete,
        }
    }
}

/// The missing games of each run read, by shard, with the first ranges of ids and how to
/// play them: `shard 1/2: 20 games (3-4, 7-8, ...): bt-arena tournament --resume RUN --shard
/// 1/2`, one line per shard (or per run on one machine).
pub fn describe_missing(sources: &GameSources, reading: &RunReading) -> Vec<String> {
    let mut lines = Vec::new();
    for (group, missing) in sources.groups().iter().zip(&reading.missing) {
        if missing.is_empty() {
            continue;
        }
        let dir = group
            .dir()
            .unwrap_or(Path::new("RUN"))
            .display()
            .to_string();
        let mut by_shard: BTreeMap<Option<u32>, (Option<Shard>, Vec<u64>)> = BTreeMap::new();
        for game in missing {
            let entry = by_shard
                .entry(game.shard.map(Shard::index))
                .or_insert((game.shard, Vec::new()));
            entry.1.push(game.game_id);
        }
        for (shard, ids) in by_shard.into_values() {
            let games = format!(
                "{} ({})",
                records::plural(ids.len() as u64, "game"),
                id_ranges(&ids)
            );
            lines.push(match (shard, &group.kind) {
                (Some(shard), GroupKind::Sharded { shards, .. }) => {
                    let started = shards.iter().any(|(k, _)| *k == shard.index());
                    // A shard beside those given, not given itself.
                    let beside = group
                        .dir()
                        .map(|dir| RunDir::new(dir).shard(shard.index()))
                        .filter(|beside| beside.config_json().exists());
                    let how = match (started, beside) {
                        (true, _) => format!(
                            "continue with `bt-arena tournament --resume {dir} --shard {shard}` \
                             (unless it is still playing)"
                        ),
                        (false, Some(beside)) => format!(
                            "not given: it is in {}; give the run directory {dir} for every \
                             shard",
                            beside.root().display()
                        ),
                        (false, None) => format!(
                            "it never started: run the tournament's command with `--out {dir} \
                             --shard {shard}`"
                        ),
                    };
                    format!("shard {shard}: {games}: {how}")
                }
                (
                    _,
                    GroupKind::Sharded {
                        count: None,
                        config,
                        ..
                    },
                ) => {
                    let lease = config.lease_ms.map(Duration::from_millis);
                    let mut line = format!(
                        "{dir}: {games}: played by the workers still running, or start one with \
                         the run's flags and `--out {dir} --worker`"
                    );
                    for claim in claimed_pairs(&RunDir::new(&dir), lease) {
                        line.push_str(&format!("\n  {claim}"));
                    }
                    line
                }
                _ => format!(
                    "{dir}: {games}: continue with `bt-arena tournament --resume {dir}` (unless \
                     it is still playing)"
                ),
            });
        }
    }
    lines
}

/// The pairs of the run of workers in `run` claimed and not recorded, the first
/// [`MAX_RANGES`] of them, each with its worker and how long ago its heartbeat last moved (by
/// this machine's clock: only as right as the two clocks agree), named expired when older
/// than `lease`.
fn claimed_pairs(run: &RunDir, lease: Option<Duration>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(run.claims()) else {
        return Vec::new();
    };
    let mut pairs: Vec<(u64, std::path::PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let pair = name.to_str()?.strip_prefix("pair-")?.parse().ok()?;
            Some((pair, entry.path()))
        })
        .filter(|(pair, _)| !run.claims().join(format!("pair-{pair}.done")).exists())
        .collect();
    pairs.sort();
    let mut lines: Vec<String> = pairs
        .iter()
        .take(MAX_RANGES)
        .map(|(pair, path)| {
            let age = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|at| at.elapsed().ok())
                .unwrap_or_default();
            let who = match crate::lease::holder_of(path) {
                Some(holder) => format!("claimed by {} pid {}", holder.host(), holder.pid),
                None => "claimed by no worker it names (truncated or garbage)".to_string(),
            };
            let expired = match lease {
                Some(lease) if age > lease => ": older than the lease, a worker will play it again",
                _ => "",
            };
            format!(
                "pair {pair}: {who}, its heartbeat {} s ago{expired}",
                age.as_secs()
            )
        })
        .collect();
    if pairs.len() > MAX_RANGES {
        lines.push(format!("... {} pairs claimed in all", pairs.len()));
    }
    lines
}

/// Most ranges [`id_ranges`] names.
const MAX_RANGES: usize = 6;

/// Ascending ids as ranges, the first `MAX_RANGES` of them: `1-4, 7, 9-10`, or
/// `1-2, 4-5, 7-8, 10-11, 13-14, 16-17, ...`.
pub fn id_ranges(ids: &[u64]) -> String {
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for &id in ids {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == id => *end = id,
            _ => ranges.push((id, id)),
        }
    }
    let mut named: Vec<String> = ranges
        .iter()
        .take(MAX_RANGES)
        .map(|&(start, end)| match start == end {
            true => start.to_string(),
            false => format!("{start}-{end}"),
        })
        .collect();
    if ranges.len() > MAX_RANGES {
        named.push("...".to_string());
    }
    named.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_as_ranges() {
        assert_eq!(id_ranges(&[1, 2, 3, 4, 7, 9, 10]), "1-4, 7, 9-10");
        assert_eq!(id_ranges(&[5]), "5");
        assert_eq!(id_ranges(&[]), "");
        let pairs: Vec<u64> = (1..=10).flat_map(|p| [3 * p - 2, 3 * p - 1]).collect();
        assert_eq!(id_ranges(&pairs), "1-2, 4-5, 7-8, 10-11, 13-14, 16-17, ...");
    }
}
