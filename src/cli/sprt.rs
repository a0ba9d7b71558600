//! `bt-arena sprt`: what an SPRT costs before it starts. For true Elo differences, the
//! probability that it passes and the games it takes (the mean by fishtest's calculator, the
//! 95th percentile from simulated SPRTs), with the book's pair profile given or measured from
//! runs.

use super::args::JsonFlag;
use anyhow::{Context, Result, bail};
use bt_arena::stats::calculator::{BookProfile, Calculator, Cost};
use bt_arena::stats::simulation::{PairOdds, Simulated, simulate};
use bt_arena::stats::{Sprt, SprtModel};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena sprt`.
#[derive(Args, Debug)]
pub struct SprtArgs {
    /// The SPRT, as --sprt takes it: elo0=E0,elo1=E1[,alpha=A][,beta=B][,model=M].
    ///
    /// One word, comma-separated, or one quoted string with spaces; the same keys, defaults
    /// and checks as the --sprt of tournament and elo.
    #[arg(value_name = "SPEC", value_parser = super::args::parse_sprt)]
    spec: Sprt,
    /// The book's share of game pairs split 1–1 between engines of even strength (default
    /// 0.5: a book that favours no colour).
    ///
    /// A pair ends 1–1 when the same colour wins both games: the opening, not the engines,
    /// decided it. An unbiased book makes half its pairs 1–1 by chance; a share q above that
    /// is an RMS bias of sqrt((q - 1/2) / 2) (fishtest's), below it no bias. In [0, 1).
    #[arg(long, value_name = "SHARE", value_parser = parse_share, conflicts_with = "runs")]
    one_one: Option<f64>,
    /// Measure the book's RMS bias from the games of these runs (run directories or games
    /// files, as `openings check --runs` reads them).
    #[arg(long, value_name = "DIR", num_args = 1..)]
    runs: Vec<PathBuf>,
    /// The true Elo differences of the table (logistic Elo), comma-separated (default: seven
    /// around the bounds: elo0 - d, elo0 - d/2, elo0, the middle, elo1, elo1 + d/2, elo1 + d,
    /// d = elo1 - elo0).
    #[arg(long, value_name = "E,E,...", value_delimiter = ',', value_parser = parse_elo,
          allow_hyphen_values = true)]
    elo: Vec<f64>,
    /// SPRTs simulated per row for the 95th percentile of the games (0: none).
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    simulations: u32,
    /// Seed of the simulation: the same seed gives the same figures.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    json: JsonFlag,
}

/// A `--one-one` share: a number in `[0, 1)`.
fn parse_share(text: &str) -> Result<f64, String> {
    let share: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    BookProfile::of_one_one_share(share)
        .map(|_| share)
        .map_err(|e| e.to_string())
}

/// An `--elo` value: a number within ±1000.
fn parse_elo(text: &str) -> Result<f64, String> {
    let elo: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    match elo.abs() <= bt_arena::stats::calculator::MAX_TRUE_ELO {
        true => Ok(elo),
        false => Err(format!(
            "a true Elo of {elo} is beyond ±{}",
            bt_arena::stats::calculator::MAX_TRUE_ELO
        )),
    }
}

/// How the book's profile was had.
#[derive(Debug, Serialize)]
struct Book {
    #[serde(flatten)]
    profile: BookProfile,
    /// `1/2 + 2 rms^2`: the share of 1–1 pairs between engines of even strength.
    one_one_share: f64,
    rms_bias_elo: f64,
    /// The per-game variance of the score over pairs, `1/4 - rms^2`.
    variance: f64,
    /// Measured from runs: their complete pairs and the share of them 1–1.
    #[serde(skip_serializing_if = "Option::is_none")]
    measured: Option<Measured>,
}

#[derive(Debug, Serialize)]
struct Measured {
    runs: Vec<PathBuf>,
    pairs: u64,
    one_one_pairs: u64,
}

/// One row: the analytic figures and the simulated ones.
#[derive(Debug, Serialize)]
struct Row {
    #[serde(flatten)]
    cost: Cost,
    #[serde(skip_serializing_if = "Option::is_none")]
    simulated: Option<SimulatedRow>,
}

#[derive(Debug, Serialize)]
struct SimulatedRow {
    #[serde(flatten)]
    figures: Simulated,
    pass_share: f64,
}

/// The whole answer (`--json`).
#[derive(Debug, Serialize)]
struct Answer {
    sprt: String,
    model: SprtModel,
    /// The LLR bounds.
    lower: f64,
    upper: f64,
    /// The hypotheses as logistic Elo (normalized bounds converted with the book).
    elo0_logistic: f64,
    elo1_logistic: f64,
    book: Book,
    simulations: u32,
    seed: u64,
    rows: Vec<Row>,
}

/// Runs `bt-arena sprt`: the table, row by row as they are simulated (text), or all of it as
/// JSON.
///
/// # Errors
/// A run of `--runs` that cannot be read or holds no complete game pair; normalized bounds
/// that are no scores with the book; a true Elo at which the book's bias cannot be simulated.
pub fn run(args: &SprtArgs) -> Result<ExitCode> {
    let stop = super::signals::stop_flag()?;
    // Nothing to stop gently: Ctrl-C (or SIGTERM, SIGHUP) exits at once, also when started
    // with SIGINT ignored (a background job of a script).
    super::signals::exit_at_once_from_now(&stop)?;
    let book = book(args)?;
    let calculator = Calculator::new(args.spec, book.profile)?;
    let elos = match args.elo.is_empty() {
        true => calculator.default_elos(),
        false => args.elo.clone(),
    };
    let (elo0, elo1) = calculator.logistic_bounds();
    let (lower, upper) = args.spec.bounds();
    let mut answer = Answer {
        sprt: args.spec.to_string(),
        model: args.spec.model(),
        lower,
        upper,
        elo0_logistic: elo0,
        elo1_logistic: elo1,
        book,
        simulations: args.simulations,
        seed: args.seed,
        rows: Vec::new(),
    };
    if !args.json.json {
        print_head(&answer, &calculator);
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    for (stream, &elo) in (0..).zip(&elos) {
        let cost = calculator.cost(elo)?;
        let simulated = match args.simulations {
            0 => None,
            runs => {
                let odds = PairOdds::new(elo, calculator.book()).with_context(|| {
                    format!("cannot simulate the SPRT at {elo:+} Elo with this book")
                })?;
                let figures =
                    simulate(&args.spec, &odds, runs as usize, args.seed, stream, threads);
                Some(SimulatedRow {
                    pass_share: figures.pass_share(),
                    figures,
                })
            }
        };
        let row = Row { cost, simulated };
        if !args.json.json {
            say!("{}", row_line(&row));
        }
        answer.rows.push(row);
    }
    if args.json.json {
        say!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        print_foot(&answer);
    }
    Ok(ExitCode::SUCCESS)
}

/// The book of `--one-one` or `--runs` (default: a share of 1/2).
fn book(args: &SprtArgs) -> Result<Book> {
    let (profile, measured) = if args.runs.is_empty() {
        let share = args.one_one.unwrap_or(0.5);
        (BookProfile::of_one_one_share(share)?, None)
    } else {
        let report = super::openings::openings_of_runs(&args.runs, None)?;
        let Some(rms) = report.rms_bias else {
            bail!(
                "the games of {} hold no complete game pair: no pair profile to measure",
                super::openings::list(&args.runs)
            );
        };
        let measured = Measured {
            runs: args.runs.clone(),
            pairs: report.pairs,
            one_one_pairs: report.one_one_pairs,
        };
        let profile = BookProfile::of_rms_bias(rms).with_context(|| {
            format!(
                "the book of {} decides every game by colour",
                super::openings::list(&args.runs)
            )
        })?;
        (profile, Some(measured))
    };
    Ok(Book {
        one_one_share: profile.one_one_share(),
        rms_bias_elo: profile.rms_bias_elo(),
        variance: profile.variance(),
        profile,
        measured,
    })
}

fn print_head(answer: &Answer, calculator: &Calculator) {
    let sprt = calculator.sprt();
    let unit = sprt.model().unit();
    let converted = match sprt.model() {
        SprtModel::Logistic => String::new(),
        SprtModel::Normalized => format!(
            " ({:+.2}, {:+.2} logistic Elo with this book)",
            answer.elo0_logistic, answer.elo1_logistic
        ),
    };
    say!(
        "SPRT {}: H0 {:+.2} {unit}, H1 {:+.2} {unit}{converted}; LLR bounds ({:.2}, {:.2})",
        answer.sprt,
        sprt.elo0(),
        sprt.elo1(),
        answer.lower,
        answer.upper
    );
    let book = &answer.book;
    let source = match &book.measured {
        None => format!(
            "1-1 pairs {:.1}% at even strength",
            100.0 * book.one_one_share
        ),
        Some(measured) => format!(
            "measured from {}: {} of {} pairs 1-1",
            super::openings::list(&measured.runs),
            measured.one_one_pairs,
            measured.pairs
        ),
    };
    say!(
        "Book: {source}; RMS bias {:.3} ({:+.1} Elo); per-game variance {:.4}",
        book.profile.rms_bias,
        book.rms_bias_elo + 0.0,
        book.variance
    );
    say!(
        "{:>9} {:>8} {:>13} {:>13}",
        "true Elo",
        "P(pass)",
        "games (mean)",
        "games (p95)"
    );
}

fn row_line(row: &Row) -> String {
    let p95 = row
        .simulated
        .as_ref()
        .map_or_else(|| "-".to_string(), |s| thousands(s.figures.games_p95));
    format!(
        "{:>+9.2} {:>7.2}% {:>13} {:>13}",
        row.cost.elo + 0.0,
        100.0 * row.cost.pass_probability,
        thousands(whole(row.cost.games)),
        p95
    )
}

fn print_foot(answer: &Answer) {
    say!(
        "P(pass) and the mean: fishtest's SPRT calculator (the LLR as a Brownian motion; true \
         Elo is logistic, as the book shows it)."
    );
    if answer.simulations > 0 {
        say!(
            "95th percentile: {} SPRTs simulated per row over game pairs (bt-arena's own SPRT, \
             seed {}).",
            answer.simulations,
            answer.seed
        );
    }
}

/// `games` rounded to a whole number (0 for what is not a count).
fn whole(games: f64) -> u64 {
    // Finite and below 2^64 after the clamp.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let whole = games.round().clamp(0.0, 1e18) as u64;
    whole
}

/// `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
