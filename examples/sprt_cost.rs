//! Games to an SPRT verdict, by simulation: the SPRT run many times over game pairs drawn from
//! pentanomial frequencies measured in real games, under the logistic and the normalized model.
//!
//! ```sh
//! cargo run --release --example sprt_cost -- --ptnml 12,0,75,0,63 --bounds 0,5 --runs 1000
//! ```
//!
//! `--ptnml LL,LD,WL,WD,WW`: the measured counts of game pairs (e.g. the `Ptnml(0-2)` line of a
//! run's report); pairs are drawn independently with these frequencies. `--bounds E0,E1`: the
//! hypotheses, in Elo for the logistic model and in nElo for the normalized one (the same
//! numbers, as users type them). `--runs N` (default 1000) SPRTs per model, each stopped at the
//! first crossing of a bound or at `--max-pairs` (default 20000, "no decision"); `--seed S`
//! (default 1); `--alpha`, `--beta` (default 0.05). Printed per model: how many runs accepted
//! H1, H0 or neither, and the games to the verdict (twice the pairs): mean, 10th, 50th and
//! 90th percentile. The frequencies' own logistic Elo and nElo come first.

use bt_arena::stats::{
    Pentanomial, Sprt, SprtDecision, SprtModel, elo_pentanomial, nelo_pentanomial,
};

/// The command line, parsed.
struct Options {
    ptnml: [u64; 5],
    bounds: (f64, f64),
    runs: usize,
    max_pairs: u64,
    seed: u64,
    alpha: f64,
    beta: f64,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        ptnml: [0; 5],
        bounds: (0.0, 5.0),
        runs: 1000,
        max_pairs: 20_000,
        seed: 1,
        alpha: 0.05,
        beta: 0.05,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut given_ptnml = false;
    for pair in args.chunks(2) {
        let [flag, value] = pair else {
            return Err(format!("{} needs a value", pair[0]));
        };
        let number = |text: &str| -> Result<f64, String> {
            text.parse()
                .map_err(|_| format!("{flag}: '{text}' is not a number"))
        };
        match flag.as_str() {
            "--ptnml" => {
                let cells: Vec<u64> = value
                    .split(',')
                    .map(|c| {
                        c.trim()
                            .parse()
                            .map_err(|_| format!("--ptnml: bad count '{c}'"))
                    })
                    .collect::<Result<_, _>>()?;
                options.ptnml = cells
                    .try_into()
                    .map_err(|_| "--ptnml needs five counts LL,LD,WL,WD,WW".to_string())?;
                given_ptnml = true;
            }
            "--bounds" => {
                let (e0, e1) = value
                    .split_once(',')
                    .ok_or("--bounds needs E0,E1".to_string())?;
                options.bounds = (number(e0)?, number(e1)?);
            }
            "--runs" => options.runs = number(value)? as usize,
            "--max-pairs" => options.max_pairs = number(value)? as u64,
            "--seed" => options.seed = number(value)? as u64,
            "--alpha" => options.alpha = number(value)?,
            "--beta" => options.beta = number(value)?,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if !given_ptnml || options.ptnml.iter().sum::<u64>() == 0 {
        return Err("--ptnml LL,LD,WL,WD,WW is required (counts of measured game pairs)".into());
    }
    Ok(options)
}

/// One SPRT over pairs drawn from `cumulative` (the cells' cumulative counts): the decision
/// and the pairs it took (`max_pairs` and `Continue` when no bound was crossed).
fn one_run(
    sprt: &Sprt,
    cumulative: &[u64; 5],
    max_pairs: u64,
    rng: &mut fastrand::Rng,
) -> (SprtDecision, u64) {
    let total = cumulative[4];
    let mut counts = [0u64; 5];
    for pairs in 1..=max_pairs {
        let draw = rng.u64(..total);
        let cell = cumulative.iter().position(|&c| draw < c).unwrap_or(4);
        counts[cell] += 1;
        let llr = sprt.llr_pentanomial(&Pentanomial::from(counts));
        match sprt.decision(llr) {
            SprtDecision::Continue => {}
            decision => return (decision, pairs),
        }
    }
    (SprtDecision::Continue, max_pairs)
}

/// The `q`-quantile of `sorted` (ascending, not empty).
fn quantile(sorted: &[u64], q: f64) -> u64 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let index = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[index]
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("error: {message}");
            std::process::exit(3);
        }
    };
    let measured = Pentanomial::from(options.ptnml);
    let elo = elo_pentanomial(&measured);
    let nelo = nelo_pentanomial(&measured);
    println!(
        "Ptnml {:?} ({} pairs): {:+.1} +/- {:.1} Elo, {:+.1} +/- {:.1} nElo",
        options.ptnml,
        options.ptnml.iter().sum::<u64>(),
        elo.elo,
        elo.error95,
        nelo.nelo,
        nelo.error95
    );
    let mut cumulative = options.ptnml;
    for i in 1..5 {
        cumulative[i] += cumulative[i - 1];
    }
    let (elo0, elo1) = options.bounds;
    for model in SprtModel::ALL {
        let sprt = Sprt::new(elo0, elo1, options.alpha, options.beta)
            .and_then(|sprt| sprt.with_model(model))
            .unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(3);
            });
        let mut rng = fastrand::Rng::with_seed(options.seed);
        let (mut h1, mut h0, mut open) = (0, 0, 0);
        let mut games = Vec::with_capacity(options.runs);
        for _ in 0..options.runs {
            let (decision, pairs) = one_run(&sprt, &cumulative, options.max_pairs, &mut rng);
            match decision {
                SprtDecision::AcceptH1 => h1 += 1,
                SprtDecision::AcceptH0 => h0 += 1,
                SprtDecision::Continue => open += 1,
            }
            games.push(2 * pairs);
        }
        games.sort_unstable();
        let mean = games.iter().sum::<u64>() as f64 / games.len() as f64;
        println!(
            "{model:<10} [{elo0}, {elo1}] {}: {} runs: H1 {h1}, H0 {h0}, no decision {open}; \
             games to the verdict: mean {mean:.0}, p10 {}, median {}, p90 {}",
            model.unit(),
            options.runs,
            quantile(&games, 0.1),
            quantile(&games, 0.5),
            quantile(&games, 0.9)
        );
    }
}
