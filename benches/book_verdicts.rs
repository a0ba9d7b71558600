//! Games to an SPRT verdict with each book: `cargo bench --bench book_verdicts [-- RUNS]`
//! (default 30 SPRTs a book; minutes on 2 cores).
//!
//! The tested pair: bt-search at 1000 nodes a move against bt-search at 800 (a known small
//! difference, about +47 Elo over the shipped book), `--sprt elo0=0,elo1=25`, the book in
//! random order drawn from the seed, `--concurrency 2`. The books:
//!
//! - the shipped book (`shipped:capture-only.epd`: 500 openings of 6 random plies, kept within
//!   ±30 cp by a depth-6 search);
//! - a book built by `bt-arena openings build` with other engines (bt-search at 400 and 600
//!   nodes), from candidates made the same way (6 random plies, `--max-eval 30
//!   --search-depth 6`), 500 openings, kept when their game pair split (the default band).
//!
//! bt-search at a node count plays the same moves every time, so an SPRT's games differ from
//! another's only by the order of the openings (the seed): each opening's game pair has one
//! outcome per book. For each book it prints the mean and median games to the verdict with
//! their standard errors (the median's by bootstrap), the share of correct verdicts (H1: 1000
//! nodes is the stronger), the book's share of 1–1 pairs between the tested engines over all
//! its SPRTs' games (`openings check --runs`), and the machine's load before and after.
//! Results go to stderr; the run directories stay in a temporary directory printed first.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const BT_ARENA: &str = env!("CARGO_BIN_EXE_bt-arena");
const SEARCH: &str = env!("CARGO_BIN_EXE_bt-search");
const SPRT: &str = "elo0=0,elo1=25";

fn main() {
    let runs: u64 = std::env::args()
        .skip(1)
        .find(|arg| arg != "--bench")
        .map_or(30, |n| n.parse().expect("RUNS: a count"));
    let dir = tempfile::Builder::new()
        .prefix("book-verdicts-")
        .tempdir()
        .expect("a temporary directory")
        .keep();
    eprintln!("runs in {}; load {}", dir.display(), load());
    let started = Instant::now();
    let built = build_book(&dir);
    eprintln!(
        "built {} in {:.0} s: {}",
        built.display(),
        started.elapsed().as_secs_f64(),
        first_line(&built)
    );
    let books = [
        ("shipped", PathBuf::from("shipped:capture-only.epd")),
        ("built", built),
    ];
    let mut means = Vec::new();
    for (name, book) in &books {
        let clock = Instant::now();
        let mut games = Vec::new();
        let mut correct = 0;
        let mut dirs = Vec::new();
        for seed in 1..=runs {
            let out = dir.join(format!("{name}-{seed}"));
            let (verdict, at) = sprt(book, seed, &out);
            correct += u64::from(verdict == "H1");
            games.push(at as f64);
            dirs.push(out);
        }
        let n = games.len() as f64;
        let mean = games.iter().sum::<f64>() / n;
        let sd = (games.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let median = median(&games);
        let median_error = bootstrap_median_error(&games);
        let p = correct as f64 / n;
        eprintln!(
            "{name:>8}: {runs} SPRTs, games to the verdict mean {mean:.0} ± {:.0}, median {median:.0} ± {median_error:.0}, \
             min {:.0}, max {:.0}; correct (H1) {correct}/{runs} = {:.1}% ± {:.1}%; {:.0} s",
            sd / n.sqrt(),
            games.iter().cloned().fold(f64::INFINITY, f64::min),
            games.iter().cloned().fold(0.0, f64::max),
            100.0 * p,
            100.0 * (p * (1.0 - p) / n).sqrt(),
            clock.elapsed().as_secs_f64()
        );
        eprintln!("{name:>8}: {}", one_one(book, &dirs));
        means.push((mean, sd / n.sqrt()));
    }
    let ((shipped, e0), (built, e1)) = (means[0], means[1]);
    let saved = 1.0 - built / shipped;
    let error = (built / shipped) * ((e0 / shipped).powi(2) + (e1 / built).powi(2)).sqrt();
    eprintln!(
        "the built book took {:.1}% ± {:.1}% fewer games (mean); load {}; {:.0} s in all",
        100.0 * saved,
        100.0 * error,
        load(),
        started.elapsed().as_secs_f64()
    );
}

/// Builds the book of other engines into `dir/build`, returning its book.epd.
fn build_book(dir: &Path) -> PathBuf {
    let out = dir.join("build");
    let engine = format!("cmd={SEARCH}");
    let status = Command::new(BT_ARENA)
        .args([
            "openings",
            "build",
            "--engine",
            &engine,
            "nodes=400",
            "name=n400",
        ])
        .args(["--engine", &engine, "nodes=600", "name=n600"])
        .args(["--count", "500", "--plies", "6", "--max-eval", "30"])
        .args(["--search-depth", "6", "--seed", "1", "--concurrency", "2"])
        .args(["--rating-interval", "0", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("bt-arena runs");
    assert!(status.success(), "openings build failed");
    out.join("book.epd")
}

/// One SPRT from `book` with `seed` into `out`: its verdict (`H1`, `H0`) and the game it
/// was reached at.
fn sprt(book: &Path, seed: u64, out: &Path) -> (String, u64) {
    let engine = format!("cmd={SEARCH}");
    let openings = format!("file={}", book.display());
    let output = Command::new(BT_ARENA)
        .args([
            "tournament",
            "--engine",
            &engine,
            "nodes=1000",
            "name=n1000",
        ])
        .args(["--engine", &engine, "nodes=800", "name=n800"])
        .args(["--openings", &openings, "order=random", "--rounds", "20000"])
        .args([
            "--sprt",
            SPRT,
            "--concurrency",
            "2",
            "--rating-interval",
            "0",
        ])
        .args(["--seed", &seed.to_string(), "--out"])
        .arg(out)
        .output()
        .expect("bt-arena runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("SPRT: "))
        .unwrap_or_else(|| panic!("no verdict in {}:\n{text}", out.display()));
    // `H1 accepted at game 346; 1 game after the decision (not in the LLR)`
    let words: Vec<&str> = line.split([' ', ';']).collect();
    let at = words[4].parse().expect("a game");
    (words[0].to_string(), at)
}

/// The line of `openings check BOOK --runs DIRS` on the book as a whole.
fn one_one(book: &Path, dirs: &[PathBuf]) -> String {
    let output = Command::new(BT_ARENA)
        .args(["openings", "check"])
        .arg(book)
        .arg("--runs")
        .args(dirs)
        .output()
        .expect("bt-arena runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find(|line| line.starts_with("Openings: "))
        .unwrap_or_default()
        .to_string()
}

fn first_line(book: &Path) -> String {
    std::fs::read_to_string(book)
        .expect("the book")
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n % 2 {
        1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The standard error of the median: the standard deviation of 2,000 bootstrap medians
/// (resampled with a fixed seed).
fn bootstrap_median_error(values: &[f64]) -> f64 {
    let mut rng = fastrand::Rng::with_seed(1);
    let medians: Vec<f64> = (0..2000)
        .map(|_| {
            let sample: Vec<f64> = (0..values.len())
                .map(|_| values[rng.usize(..values.len())])
                .collect();
            median(&sample)
        })
        .collect();
    let mean = medians.iter().sum::<f64>() / medians.len() as f64;
    (medians.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (medians.len() as f64 - 1.0)).sqrt()
}

/// The machine's load averages (1, 5, 15 minutes).
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_string())
}
