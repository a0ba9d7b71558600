//! `bt-arena select` measured: `cargo bench --bench select [-- sim [RUNS [ELO]]]` and
//! `cargo bench --bench select -- engines`. The figures are in docs/guide/select.md.
//!
//! * `sim` (the default): pools of 4, 8 and 16 candidates of known strength, RUNS (default
//!   2,000) simulated selections each at `--indifference ELO` (default 5) and `--confidence
//!   0.95`, decided by the run's own decision code over game pairs drawn from the no-draw
//!   pentanomial model. Two pools each: a spread (the best `2δ` above the base, each next one
//!   `2δ` below the one before) and the hard case (the best `2δ` above the base, every other
//!   exactly `δ` below it: the least favourable configuration of the guarantee). Beside each:
//!   one SPRT per candidate against the base (`elo0=0 elo1=δ alpha=beta=0.05`, each to its
//!   verdict, games added up) and the round-robin of the candidates with the fewest game pairs
//!   per pairing (of a doubling search, then halving the step) whose probability of a correct
//!   choice reaches the selection's.
//! * `engines`: bt-search at 250, 500, 1000 and 2000 nodes as candidates and at 500 nodes as
//!   the base, `--indifference 20`: `bt-arena select` beside one `bt-arena tournament --sprt
//!   elo0=0,elo1=20,alpha=0.05,beta=0.05` per candidate, on this machine, one after another:
//!   games and wall time of each.

use bt_arena::select::procedure::Rule;
use bt_arena::select::simulate::{Pool, Tally, round_robin, select_once, sprt_each, tally};
use bt_arena::stats::Sprt;
use bt_arena::stats::calculator::BookProfile;
use std::process::Command;
use std::time::Instant;

const BT_ARENA: &str = env!("CARGO_BIN_EXE_bt-arena");
const SEARCH: &str = env!("CARGO_BIN_EXE_bt-search");

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    match args.first().map(String::as_str) {
        None | Some("sim") => {
            let runs = args
                .get(1)
                .map_or(2000, |n| n.parse().expect("RUNS: a count"));
            let elo = args
                .get(2)
                .map_or(5.0, |e| e.parse().expect("ELO: a number"));
            simulations(runs, elo);
        }
        Some("engines") => engines(),
        Some(other) => panic!("unknown section {other}: sim or engines"),
    }
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn row(what: &str, t: &Tally, seconds: f64) {
    eprintln!(
        "  {what:<24} P(correct) {:>6.2}% ± {:>4.2}%  games mean {:>9.0}  p95 {:>9}  ({seconds:.0} s)",
        100.0 * t.correct_share(),
        100.0 * t.correct_error(),
        t.games_mean,
        t.games_p95
    );
}

fn simulations(runs: usize, delta: f64) {
    let book = BookProfile::of_rms_bias(0.0).expect("a book");
    let sprt = Sprt::new(0.0, delta, 0.05, 0.05).expect("an SPRT");
    eprintln!(
        "{runs} simulated selections a pool, --indifference {delta} --confidence 0.95, {} threads",
        threads()
    );
    for k in [4usize, 8, 16] {
        let spread: Vec<f64> = (0..k).map(|i| 2.0 * delta * (1.0 - i as f64)).collect();
        let hard: Vec<f64> = (0..k)
            .map(|i| if i == 0 { 2.0 * delta } else { delta })
            .collect();
        for (name, elos) in [("spread", spread), ("hard", hard)] {
            let pool = Pool { elos, book };
            eprintln!("N = {k}, {name}: {:?}", pool.elos);
            let rule = Rule {
                candidates: k,
                indifference: delta,
                confidence: 0.95,
                budget: None,
            };
            let clock = Instant::now();
            let select = tally(&pool, runs, 1, threads(), |rng| {
                select_once(rule, &pool, rng).expect("a rule")
            });
            row("select", &select, clock.elapsed().as_secs_f64());
            let clock = Instant::now();
            let each = tally(&pool, runs, 2, threads(), |rng| {
                sprt_each(&sprt, &pool, rng)
            });
            row(
                "one SPRT per candidate",
                &each,
                clock.elapsed().as_secs_f64(),
            );
            let clock = Instant::now();
            let (pairs, rr) = smallest_round_robin(&pool, runs, select.correct_share());
            row(
                &format!("round-robin, {pairs} pairs"),
                &rr,
                clock.elapsed().as_secs_f64(),
            );
            eprintln!(
                "  games of one SPRT per candidate / select: {:.2}; round-robin / select: {:.2}",
                each.games_mean / select.games_mean,
                rr.games_mean / select.games_mean
            );
        }
    }
}

/// The round-robin with the fewest pairs per pairing (doubling, then halving the step: to
/// within an eighth) whose share of correct choices reaches `target`.
fn smallest_round_robin(pool: &Pool, runs: usize, target: f64) -> (u64, Tally) {
    let of = |pairs: u64| {
        tally(pool, runs, 3, threads(), |rng| {
            round_robin(pool, pairs, rng)
        })
    };
    let mut high = 1u64;
    let mut best = of(high);
    while best.correct_share() < target && high < 1 << 20 {
        high *= 2;
        best = of(high);
    }
    let mut low = high / 2;
    while high - low > (high / 8).max(1) {
        let middle = (low + high) / 2;
        let t = of(middle);
        if t.correct_share() >= target {
            (high, best) = (middle, t);
        } else {
            low = middle;
        }
    }
    (high, best)
}

/// One bt-arena run: its exit code, the games it recorded and its wall time.
fn play(args: &[String]) -> (i32, usize, f64) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("run");
    let clock = Instant::now();
    let status = Command::new(BT_ARENA)
        .args(args)
        .args(["--out", &out.display().to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("bt-arena runs");
    let seconds = clock.elapsed().as_secs_f64();
    let games = std::fs::read_to_string(out.join("games.csv"))
        .map_or(0, |text| text.lines().count().saturating_sub(1));
    (status.code().unwrap_or(-1), games, seconds)
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

fn engines() {
    let nodes = [250u32, 500, 1000, 2000];
    let base = 500;
    let mut flags = format!("select --engine cmd={SEARCH} name=base nodes={base}");
    for n in nodes {
        flags.push_str(&format!(" --engine cmd={SEARCH} name=n{n} nodes={n}"));
    }
    flags.push_str(" --base base --indifference 20 --confidence 0.95 --concurrency 2 --seed 5");
    let (code, games, seconds) = play(&words(&flags));
    eprintln!("select: exit {code}, {games} games, {seconds:.0} s");
    let (mut all_games, mut all_seconds) = (0, 0.0);
    for n in nodes {
        let flags = format!(
            "tournament --engine cmd={SEARCH} name=n{n} nodes={n} --engine cmd={SEARCH} \
             name=base nodes={base} --sprt elo0=0,elo1=20,alpha=0.05,beta=0.05 --rounds 20000 \
             --concurrency 2 --seed 5"
        );
        let (code, games, seconds) = play(&words(&flags));
        eprintln!("SPRT n{n} against base: exit {code}, {games} games, {seconds:.0} s");
        all_games += games;
        all_seconds += seconds;
    }
    eprintln!(
        "one SPRT per candidate: {all_games} games, {all_seconds:.0} s; select: {games} games, \
         {seconds:.0} s"
    );
}
