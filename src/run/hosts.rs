//! The per-host tallies of a run of workers ([`crate::report::hosts`]): each worker's
//! games.csv and the bench speed in its run.json, by the host its id names
//! (`worker-HOST-PID-RANDOM`).

use crate::records::{GamesReader, RecordsError, Termination};
use crate::report::hosts::HostTally;
use crate::run_dir::{RunDir, WORKER_PREFIX};
use std::path::Path;

/// The tallies of the hosts of the run of workers whose worker directories are `workers`,
/// with `tested` the engine whose points are counted, sorted by host.
///
/// # Errors
/// A worker's games.csv that cannot be read.
pub fn tallies(workers: &[&Path], tested: &str) -> Result<Vec<HostTally>, RecordsError> {
    let mut hosts: Vec<HostTally> = Vec::new();
    // Each host's workers' bench speeds, by index in `hosts`.
    let mut speeds: Vec<Vec<u64>> = Vec::new();
    for dir in workers {
        let host = host_of(dir);
        let index = match hosts.iter().position(|h| h.host == host) {
            Some(index) => index,
            None => {
                hosts.push(HostTally {
                    host,
                    ..HostTally::default()
                });
                speeds.push(Vec::new());
                hosts.len() - 1
            }
        };
        let tally = &mut hosts[index];
        tally.workers += 1;
        if let Some(nps) = bench_nps(dir) {
            speeds[index].push(nps);
        }
        let games = RunDir::new(dir).games_csv();
        if !games.exists() {
            continue;
        }
        for game in GamesReader::open(&games)? {
            let game = game?;
            tally.games += 1;
            tally.points += u64::from(game.winner_name() == tested);
            match game.termination {
                Termination::TimeForfeit => tally.time_forfeits += 1,
                Termination::Crash => tally.crashes += 1,
                Termination::Stall => tally.stalls += 1,
                Termination::IllegalMove => tally.illegal_moves += 1,
                _ => {}
            }
        }
    }
    for (tally, speeds) in hosts.iter_mut().zip(&speeds) {
        let count = speeds.len() as u64;
        tally.bench_nps = (count > 0).then(|| speeds.iter().sum::<u64>() / count);
    }
    hosts.sort_by(|a, b| a.host.cmp(&b.host));
    Ok(hosts)
}

/// The bench speed the worker in `dir` measured (its run.json): `--scale-tc`'s, else the
/// fastest of its engines' benches; `None` when it benched nothing.
fn bench_nps(dir: &Path) -> Option<u64> {
    let info = crate::report::html::RunInfo::read(dir)?;
    match &info.clock_scale {
        Some(scale) => Some(scale.measured_nps),
        None => info.builds.values().filter_map(|b| b.bench_nps).max(),
    }
}

/// The host a worker directory's name gives (`worker-HOST-PID-RANDOM`), or its name.
fn host_of(dir: &Path) -> String {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = name.strip_prefix(WORKER_PREFIX).unwrap_or(&name);
    let mut parts = id.rsplitn(3, '-');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(_random), Some(_pid), Some(host)) => host.to_string(),
        _ => id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_directory_names_its_host() {
        assert_eq!(
            host_of(Path::new("/r/worker-node17-4410-0a1b2c3d")),
            "node17"
        );
        assert_eq!(host_of(Path::new("/r/worker-a-b-12-ff")), "a-b");
        assert_eq!(host_of(Path::new("/r/worker-odd")), "odd");
    }
}
