//! The SPRT calculator against simulation: `cargo bench --bench sprt_calculator [-- RUNS
//! [SPEC]]` (default 10,000 SPRTs a row, `elo0=0 elo1=5`).
//!
//! At five true Elos (elo0 - d/2, elo0, the middle, elo1, elo1 + d/2, `d = elo1 - elo0`) and
//! two pair profiles (a book that favours no colour, half its pairs 1–1 between engines of
//! even strength; and a biased one, 70% 1–1), it prints the calculator's probability of
//! passing and mean games (`bt-arena sprt`, fishtest's Brownian approximation) beside those of
//! RUNS SPRTs simulated with bt-arena's own test over game pairs drawn from the profile, with
//! the simulation's standard errors and how many of them apart the two are; and the simulated
//! 95th percentile of the games. Results go to stderr; it exits with 1 when a figure is more
//! than 4 standard errors from the simulation's (3 is the test's tolerance at 1,000 a row).

use bt_arena::stats::Sprt;
use bt_arena::stats::calculator::{BookProfile, Calculator};
use bt_arena::stats::simulation::{PairOdds, simulate};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let runs: usize = args
        .first()
        .map_or(10_000, |n| n.parse().expect("RUNS: a count"));
    let spec: Sprt = args
        .get(1)
        .map_or("elo0=0 elo1=5", String::as_str)
        .parse()
        .expect("SPEC: an SPRT");
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    eprintln!("{spec}: {runs} simulated SPRTs a row, {threads} threads");
    eprintln!(
        "{:>6} {:>8} {:>8} {:>16} {:>6} {:>9} {:>18} {:>6} {:>9} {:>7}",
        "1-1", "Elo", "P calc", "P sim", "z", "games", "games sim", "z", "p95 sim", "s"
    );
    let mut worst: f64 = 0.0;
    let started = Instant::now();
    for share in [0.5, 0.7] {
        let book = BookProfile::of_one_one_share(share).expect("a share");
        let calculator = Calculator::new(spec, book).expect("a calculator");
        let (e0, e1) = calculator.logistic_bounds();
        let d = e1 - e0;
        for (row, elo) in [e0 - d / 2.0, e0, (e0 + e1) / 2.0, e1, e1 + d / 2.0]
            .into_iter()
            .enumerate()
        {
            let clock = Instant::now();
            let cost = calculator.cost(elo).expect("an Elo");
            let odds = PairOdds::new(elo, &book).expect("odds");
            let sim = simulate(&spec, &odds, runs, 1, row as u64, threads);
            let n = runs as f64;
            let p = cost.pass_probability;
            let p_error = (p * (1.0 - p) / n).sqrt();
            let games_error = sim.games_sd / n.sqrt();
            let z_p = (sim.pass_share() - p) / p_error;
            let z_games = (sim.games_mean - cost.games) / games_error;
            worst = worst.max(z_p.abs()).max(z_games.abs());
            eprintln!(
                "{share:>6.2} {elo:>+8.2} {:>7.2}% {:>7.2}% ±{:>5.2}% {z_p:>+6.1} {:>9.0} {:>9.0} ±{:>6.0} {z_games:>+6.1} {:>9} {:>7.1}",
                100.0 * p,
                100.0 * sim.pass_share(),
                100.0 * p_error,
                cost.games,
                sim.games_mean,
                games_error,
                sim.games_p95,
                clock.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "largest difference: {worst:.1} standard errors; {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if worst > 4.0 {
        std::process::exit(1);
    }
}
