//! `bt-arena sprt`, the calculator, end to end: the table and its JSON, repeatable from the
//! seed, the book measured from a run, and the bad inputs refused as `--sprt` refuses them.

use bt_arena::stats::Sprt;
use bt_arena::stats::calculator::{BookProfile, Calculator};

use crate::util::{bt_arena, stderr, stdout};

/// The analytic table, exactly: fishtest's calculator's figures (as the unit tests check
/// them against its sprt.js) at the chosen Elos.
#[test]
fn the_table_of_an_unbiased_book() {
    let output = bt_arena(&[
        "sprt",
        "elo0=0,elo1=5",
        "--elo",
        "-2.5,0,2.5,5,7.5",
        "--simulations",
        "0",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "\
SPRT elo0=0 elo1=5 alpha=0.05 beta=0.05: H0 +0.00 Elo, H1 +5.00 Elo; LLR bounds (-2.94, 2.94)
Book: 1-1 pairs 50.0% at even strength; RMS bias 0.000 (+0.0 Elo); per-game variance 0.2500
 true Elo  P(pass)  games (mean)   games (p95)
    -2.50    0.28%        14,140             -
    +0.00    5.00%        25,594             -
    +2.50   50.00%        41,867             -
    +5.00   95.00%        25,594             -
    +7.50   99.72%        14,142             -
P(pass) and the mean: fishtest's SPRT calculator (the LLR as a Brownian motion; true Elo is logistic, as the book shows it).
"
    );
}

/// `--json` holds the figures the library computes, and the simulated ones; the same seed
/// gives the same figures, another seed others.
#[test]
fn json_and_the_simulation_repeat_from_the_seed() {
    let args = |seed: &str| {
        bt_arena(&[
            "sprt",
            "elo0=0,elo1=20,model=normalized",
            "--one-one",
            "0.6",
            "--elo",
            "0,10,20",
            "--simulations",
            "200",
            "--seed",
            seed,
            "--json",
        ])
    };
    let output = args("5");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let sprt: Sprt = "elo0=0 elo1=20 model=normalized".parse().unwrap();
    let book = BookProfile::of_one_one_share(0.6).unwrap();
    let calculator = Calculator::new(sprt, book).unwrap();
    // (JSON's numbers read back to the last bit or so.)
    let close = |value: &serde_json::Value, expected: f64| {
        let value = value.as_f64().unwrap();
        assert!(
            (value - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "{value} {expected}"
        );
    };
    close(&json["book"]["one_one_share"], 0.6);
    close(&json["book"]["rms_bias"], book.rms_bias);
    close(&json["elo1_logistic"], calculator.logistic_bounds().1);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (row, elo) in rows.iter().zip([0.0, 10.0, 20.0]) {
        let cost = calculator.cost(elo).unwrap();
        close(&row["elo"], elo);
        close(&row["pass_probability"], cost.pass_probability);
        close(&row["games"], cost.games);
        assert_eq!(row["simulated"]["runs"], 200);
        assert!(row["simulated"]["games_p95"].as_u64().unwrap() > 0);
    }
    assert_eq!(args("5").stdout, output.stdout);
    assert_ne!(args("6").stdout, output.stdout);
}

/// `--runs`: the book's RMS bias measured from a run's games, as `openings check --runs`
/// measures it.
#[test]
fn the_book_measured_from_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let mut writer =
        bt_arena::records::ResultsWriter::open(&run, bt_arena::rules::Rules::CaptureOnly).unwrap();
    // Ten pairs: six 1-1 (White won both), two won twice by a, two lost twice.
    for pair in 1..=10u64 {
        let (a_white, a_black) = match pair {
            1..=6 => (true, false),
            7 | 8 => (true, true),
            _ => (false, false),
        };
        let mut first = crate::util::game(2 * pair - 1, pair, "a", "b", a_white);
        let mut second = crate::util::game(2 * pair, pair, "b", "a", !a_black);
        first.opening = format!("o{pair}");
        second.opening = format!("o{pair}");
        writer.append(&first).unwrap();
        writer.append(&second).unwrap();
    }
    drop(writer);
    let calculate = |extra: &[&str]| {
        let mut args = vec!["sprt", "elo0=0,elo1=5", "--runs", run.to_str().unwrap()];
        args.extend(["--simulations", "0"]);
        args.extend(extra);
        bt_arena(&args)
    };
    let output = calculate(&["--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rms2 = bt_arena::stats::calculator::rms_bias_squared(&[2, 0, 6, 0, 2].into()).unwrap();
    assert!((json["book"]["rms_bias"].as_f64().unwrap() - rms2.sqrt()).abs() < 1e-12);
    assert_eq!(json["book"]["measured"]["pairs"], 10);
    assert_eq!(json["book"]["measured"]["one_one_pairs"], 6);
    let output = calculate(&[]);
    assert!(
        stdout(&output).contains(&format!(
            "Book: measured from {}: 6 of 10 pairs 1-1; RMS bias 0.224 (",
            run.display()
        )),
        "{}",
        stdout(&output)
    );
}

/// Bounds, error rates and models refused as `--sprt` refuses them (exit 3, the same words);
/// a share, an Elo, runs that are none.
#[test]
fn bad_inputs_are_refused_naming_what() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let empty = empty.to_str().unwrap();
    for (args, code, message) in [
        (
            vec!["elo0=5,elo1=0"],
            3,
            "error: invalid value 'elo0=5,elo1=0' for '<SPEC>': invalid SPRT parameters: \
             elo1=0 must be greater than elo0=5",
        ),
        (
            vec!["elo0=0,elo1=0"],
            3,
            "elo1=0 must be greater than elo0=0",
        ),
        (
            vec!["elo0=0,elo1=5,alpha=1.5"],
            3,
            "invalid SPRT parameters: alpha=1.5 must be strictly between 0 and 1",
        ),
        (
            vec!["elo0=0,elo1=5,alpha=0.6,beta=0.5"],
            3,
            "alpha=0.6 plus beta=0.5 must be below 1",
        ),
        (
            vec!["elo0=0,elo1=5,beta=0"],
            3,
            "beta=0 must be strictly between 0 and 1",
        ),
        (
            vec!["elo0=0,elo1=5,model=bayesian"],
            3,
            "SPRT token `model=bayesian` names no model",
        ),
        (
            vec!["elo0=0,elo1=5", "--one-one", "1"],
            3,
            "a share of 1-1 game pairs of 1 is not in [0, 1)",
        ),
        (
            vec!["elo0=0,elo1=5", "--elo", "0,5000"],
            3,
            "a true Elo of 5000 is beyond ±1000",
        ),
        (
            vec!["elo0=0,elo1=5", "--runs", empty],
            4,
            "holds no games.csv and no shard directories",
        ),
    ] {
        let mut words = vec!["sprt"];
        words.extend(args.iter());
        let output = bt_arena(&words);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        assert!(
            stderr(&output).contains(message),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "", "{args:?}");
    }
    // The same words as --sprt's.
    let output = bt_arena(&["elo", "--sprt", "elo0=0,elo1=5,alpha=1.5", "x.csv"]);
    assert!(
        stderr(&output)
            .contains("invalid SPRT parameters: alpha=1.5 must be strictly between 0 and 1")
    );
}
