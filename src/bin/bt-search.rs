//! bt-search: the bundled alpha-beta engine, [`bt_arena::bundled::search`] behind the UGI/UCI loop of
//! [`bt_arena::bundled::server`].
//!
//! Options, besides the server's `Rules`:
//!
//! * `Hash` (spin, MiB, default 16, 0 = no transposition table): the table size; setting it
//!   empties the table.
//! * `Depth` (spin, plies, default 0 = no cap): the deepest iteration whatever `go` says, a way
//!   to weaken the engine.
//! * `Eval` (combo `full` / `material`, default `full`): the evaluation.
//! * `MultiPV` (spin, default 1): the best lines reported per iteration, each `info` line
//!   with its `multipv N` (the search is the plain one at 1).
//! * the full evaluation's weights, one spin option each in centipawns (`Pawn`, `Advance1`
//!   ... `Advance6`, `HomeGuard`, `Hanging`, ..., `Race`, `RaceMove`: see
//!   [`EvalWeights::OPTIONS`]), defaulting to the values the engine plays with, for tuning.
//!
//! `bt-search codingame [--first-ms MS] [--turn-ms MS] [--share PERCENT] [--depth N] [--hash MB]
//! [--quiet] [option.NAME=V ...]` is the same searcher as a CodinGame bot
//! ([`bt_arena::bundled::codingame`]): it plays one game over CodinGame's bot protocol, searching
//! for a share of each turn's limit (or to a fixed depth), with the evaluation's weights given as
//! `option.NAME=V` words.
//!
//! `bt-search bench [DEPTH]` searches the bench positions of [`bt_arena::bundled::bench`] to
//! DEPTH plies (default [`BENCH_DEPTH`]), prints one line per position and then
//! `N nodes M nps` (OpenBench's convention: the node count is the build's signature), and exits.
//!
//! `go` limits map to [`Limits`]: the clock of the side to move (`p1time`/`wtime` etc.),
//! `movestogo`, `movetime`, `depth`, `nodes`, `infinite`. The time between `go` arriving and the
//! search starting is taken off the move time and the clock.

use bt_arena::bundled::bench::{BENCH_DEPTH, BENCH_HASH_MB, BENCH_POSITIONS, bench};
use bt_arena::bundled::search::{
    EvalKind, EvalWeights, Limits, MAX_DEPTH, SearchClock, SearchReport, SearchScore, Searcher,
};
use bt_arena::bundled::server::{Brain, OptionRefused, SearchRequest, asks_for_help, help, serve};
use bt_arena::protocol::{self, Info, OptionDecl, OptionKind};
use bt_arena::rules::Move;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// The default `Hash` in MiB.
const DEFAULT_HASH_MB: i64 = 16;
/// The largest `Hash` in MiB.
const MAX_HASH_MB: i64 = 4096;
/// The most lines `MultiPV` reports (a position has at most 48 moves).
const MAX_MULTIPV: u32 = 48;

/// The searcher and the depth cap of option `Depth` (0: none).
struct SearchBrain {
    searcher: Searcher,
    depth_cap: u32,
}

impl Brain for SearchBrain {
    fn name(&self) -> &str {
        concat!("bt-search ", env!("CARGO_PKG_VERSION"))
    }

    fn author(&self) -> &str {
        "the bt-arena developers"
    }

    fn options(&self) -> Vec<OptionDecl> {
        vec![
            OptionDecl::spin("Hash", DEFAULT_HASH_MB, 0, MAX_HASH_MB),
            OptionDecl::spin("Depth", 0, 0, i64::from(MAX_DEPTH)),
            OptionDecl::spin("MultiPV", 1, 1, i64::from(MAX_MULTIPV)),
            OptionDecl {
                name: "Eval".to_string(),
                kind: OptionKind::Combo {
                    default: EvalKind::default().name().to_string(),
                    choices: EvalKind::ALL.iter().map(|k| k.name().to_string()).collect(),
                },
            },
        ]
        .into_iter()
        .chain(weight_options())
        .collect()
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), OptionRefused> {
        let number = || {
            value
                .parse::<u32>()
                .map_err(|_| format!("'{value}' is not a non-negative integer"))
        };
        match name {
            "Hash" => self.searcher.set_hash_mb(number()? as usize),
            "Depth" => self.depth_cap = number()?,
            "MultiPV" => self.searcher.set_multipv(number()?.clamp(1, MAX_MULTIPV)),
            "Eval" => self
                .searcher
                .set_eval_kind(value.parse().map_err(|err| format!("{err}"))?),
            _ if EvalWeights::option(name).is_some() => {
                let mut weights = *self.searcher.eval_weights();
                let weight = value
                    .parse()
                    .map_err(|_| format!("'{value}' is not an integer"))?;
                weights.set(name, weight)?;
                self.searcher.set_eval_weights(weights);
            }
            _ => return Err(format!("no option named '{name}'").into()),
        }
        Ok(())
    }

    fn new_game(&mut self) {
        self.searcher.clear();
    }

    fn search(
        &mut self,
        request: &SearchRequest,
        stop: &AtomicBool,
        info: &mut dyn FnMut(Info),
    ) -> Option<Move> {
        let limits = limits(request, self.depth_cap);
        let multipv = self.searcher.multipv() > 1;
        let mut report = |report: &SearchReport| info(info_line(report, multipv));
        self.searcher
            .search(&request.position, request.rules, &limits, stop, &mut report)
            .best
    }
}

/// The evaluation weights as spin options, defaulting to the weights the engine plays with.
fn weight_options() -> impl Iterator<Item = OptionDecl> {
    EvalWeights::OPTIONS.iter().map(|option| {
        OptionDecl::spin(
            option.name,
            i64::from(option.default_value()),
            i64::from(option.min),
            i64::from(option.max),
        )
    })
}

/// The search limits for `request`, with the depth capped at `depth_cap` plies (0: no cap).
fn limits(request: &SearchRequest, depth_cap: u32) -> Limits {
    let go = &request.limits;
    let side = request.position.side_to_move();
    let lag_ms = u64::try_from(request.started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let cap = (depth_cap > 0).then_some(depth_cap);
    Limits {
        depth: match (go.depth, cap) {
            (Some(depth), Some(cap)) => Some(depth.min(cap)),
            (depth, cap) => depth.or(cap),
        },
        nodes: go.nodes,
        movetime_ms: go.movetime_ms.map(|ms| ms.saturating_sub(lag_ms)),
        clock: go.time_ms(side).map(|remaining_ms| SearchClock {
            remaining_ms: remaining_ms.saturating_sub(lag_ms),
            increment_ms: go.inc_ms(side).unwrap_or(0),
            moves_to_go: go.moves_to_go,
        }),
        infinite: go.infinite,
    }
}

/// The `info` line of an iteration's report; with `multipv_on` (MultiPV above 1) every line
/// says its `multipv` number, the best one's included.
fn info_line(report: &SearchReport, multipv_on: bool) -> Info {
    Info {
        depth: Some(report.depth),
        seldepth: Some(report.seldepth),
        multipv: (report.multipv > 1 || multipv_on).then_some(report.multipv),
        score: Some(protocol_score(report.score)),
        nodes: Some(report.nodes),
        nps: Some(report.nps),
        time_ms: Some(report.time_ms),
        pv: report.pv.iter().map(Move::to_string).collect(),
        string: None,
    }
}

/// A search score as the protocol writes it: centipawns or mate in moves.
fn protocol_score(score: SearchScore) -> protocol::Score {
    match score.mate_moves() {
        Some(moves) => protocol::Score::Mate(moves),
        None => protocol::Score::Cp(score.internal()),
    }
}

/// What `bt-search --help` says before its options.
const ABOUT: &str = "The alpha-beta engine bundled with bt-arena, speaking UGI and UCI on \
stdin and stdout. Hash is the transposition table in MiB (0: none), Depth caps every search \
(0: no cap), Eval chooses the evaluation (material: pawns only, a weak opponent), and the \
others are the full evaluation's weights in centipawns, for tuning.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let brain = SearchBrain {
        searcher: Searcher::new(DEFAULT_HASH_MB as usize),
        depth_cap: 0,
    };
    if asks_for_help(&args) {
        let bench = format!(
            "the bench: searches {} positions to DEPTH plies (default {BENCH_DEPTH}), prints \
             N nodes M nps",
            BENCH_POSITIONS.len()
        );
        print!(
            "{}",
            help(
                &brain,
                ABOUT,
                &[
                    ("bt-search", "the engine: reads ugi or uci on stdin"),
                    ("bt-search bench [DEPTH]", &bench),
                    (
                        "bt-search codingame [FLAGS]",
                        "the CodinGame bot: one game over CodinGame's protocol; --first-ms MS and \
                         --turn-ms MS the turns' limits (1000, 100), --share PERCENT of them \
                         searched (60), --depth N instead, --hash MB (16), --quiet (no message), \
                         option.NAME=V the weights",
                    ),
                    (
                        "bt-search fit DATA...",
                        "fits the weights to datagen's positions.bin (Texel's method; --lambda \
                         L, --epochs N, --rate R, start option.NAME=V) and prints them",
                    ),
                    ("bt-search --help", "this help (also -h)"),
                ]
            )
        );
        return ExitCode::SUCCESS;
    }
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => match serve(brain) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("bt-search: {err}");
                ExitCode::FAILURE
            }
        },
        ["fit", ..] => run_fit(&args[1..]),
        ["codingame", ..] => run_codingame(&args[1..]),
        ["bench"] => run_bench(BENCH_DEPTH),
        ["bench", depth] => match depth.parse::<u32>() {
            Ok(depth @ 1..=MAX_DEPTH) => run_bench(depth),
            _ => usage(&format!("bad bench depth '{depth}' (1 to {MAX_DEPTH})")),
        },
        _ => usage(&format!("unknown arguments '{}'", args.join(" "))),
    }
}

/// `bt-search fit --help`.
const FIT_HELP: &str = "\
Fits bt-search's evaluation weights to positions of `bt-arena datagen` (positions.bin,
24-byte records) by Texel's method, from the default weights or the option.NAME=V words
given, and prints K, the error before and after, and the weights as option.NAME=V words.

Usage: bt-search fit [OPTIONS] [option.NAME=V...] DATA...

Options:
  --lambda L   the weight of the game's result against the search score (0 to 1; default 0.5)
  --epochs N   passes of gradient descent (default 300)
  --rate R     the learning rate (above 0; default 1)
  -h, --help   this help
";

/// `bt-search fit`: reads the files of 24-byte records given, fits the weights from the
/// defaults (or the `option.NAME=V` words given), and prints K, the error before and after,
/// and the weights as one line of `option.NAME=V` words.
fn run_fit(args: &[String]) -> ExitCode {
    use bt_arena::bundled::search::fit;
    let mut files = Vec::new();
    let (mut lambda, mut epochs, mut rate) = (0.5f64, 300u32, 1.0f64);
    let mut start = EvalWeights::DEFAULT;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let value =
            |words: &mut std::slice::Iter<String>| words.next().cloned().unwrap_or_default();
        let parsed = match word.as_str() {
            "--lambda" => value(&mut words)
                .parse()
                .map(|v| lambda = v)
                .is_ok_and(|()| (0.0..=1.0).contains(&lambda)),
            "--epochs" => value(&mut words).parse().map(|v| epochs = v).is_ok(),
            "--rate" => value(&mut words)
                .parse()
                .map(|v| rate = v)
                .is_ok_and(|()| rate > 0.0),
            "--help" | "-h" => {
                print!("{FIT_HELP}");
                return ExitCode::SUCCESS;
            }
            flag if flag.starts_with('-') => {
                return usage(&format!("fit: unknown flag '{flag}'"));
            }
            option if option.starts_with("option.") => {
                let (name, value) = option["option.".len()..]
                    .split_once('=')
                    .unwrap_or(("", ""));
                match value
                    .parse()
                    .map_err(|_| format!("bad value '{value}'"))
                    .and_then(|v| start.set(name, v).map_err(|err| err.to_string()))
                {
                    Ok(()) => true,
                    Err(err) => return usage(&format!("{option}: {err}")),
                }
            }
            file => {
                files.push(file.to_string());
                true
            }
        };
        if !parsed {
            return usage(&format!(
                "bad value for {word} (--lambda 0 to 1, --epochs N, --rate > 0)"
            ));
        }
    }
    if files.is_empty() {
        return usage("fit needs DATA files (positions.bin of bt-arena datagen)");
    }
    let mut samples = Vec::new();
    let mut records = 0;
    for file in &files {
        let bytes = match std::fs::read(file) {
            Ok(bytes) if bytes.len() % 24 == 0 => bytes,
            Ok(bytes) => {
                return usage(&format!(
                    "{file}: {} bytes, not whole 24-byte records",
                    bytes.len()
                ));
            }
            Err(err) => return usage(&format!("cannot read {file}: {err}")),
        };
        records += bytes.len() / 24;
        samples.extend(
            bytes
                .chunks_exact(24)
                .filter_map(|chunk| fit::sample(chunk.try_into().ok()?)),
        );
    }
    if samples.is_empty() {
        // A fit of nothing would print the start weights as if fitted.
        eprintln!(
            "bt-search: fit: {} {} no valid position ({records} records of 24 bytes, none a \
             position of bt-arena datagen's positions.bin): nothing to fit",
            files.join(", "),
            if files.len() == 1 { "holds" } else { "hold" }
        );
        return ExitCode::FAILURE;
    }
    let fitted = fit::fit(&samples, &start, lambda, epochs, rate);
    let words: Vec<String> = EvalWeights::OPTIONS
        .iter()
        .map(|o| {
            format!(
                "option.{}={}",
                o.name,
                fitted.weights.get(o.name).unwrap_or(0)
            )
        })
        .collect();
    // A closed stdout (`| head -1`) ends it quietly, as the bench.
    use std::io::Write;
    let _ = writeln!(
        std::io::stdout().lock(),
        "{} positions, K {:.1}, error {:.6} -> {:.6}\n{}",
        samples.len(),
        fitted.k,
        fitted.error.0,
        fitted.error.1,
        words.join(" ")
    );
    ExitCode::SUCCESS
}

/// `bt-search codingame`: the CodinGame bot, on stdin and stdout (its notes on stderr).
fn run_codingame(args: &[String]) -> ExitCode {
    use bt_arena::bundled::codingame::{BotSettings, play};
    let mut settings = BotSettings::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let mut number = |low: u64, high: u64| {
            words
                .next()
                .and_then(|value| value.parse::<u64>().ok())
                .filter(|value| (low..=high).contains(value))
                .ok_or_else(|| format!("{word} needs a whole number from {low} to {high}"))
        };
        let parsed = match word.as_str() {
            "--first-ms" => number(1, 3_600_000).map(|ms| settings.first_ms = ms),
            "--turn-ms" => number(1, 3_600_000).map(|ms| settings.turn_ms = ms),
            "--share" => number(1, 100).map(|share| settings.share = share),
            "--depth" => number(1, u64::from(MAX_DEPTH)).map(|d| settings.depth = Some(d as u32)),
            "--hash" => number(0, MAX_HASH_MB as u64).map(|mb| settings.hash_mb = mb as usize),
            "--quiet" => {
                settings.message = false;
                Ok(())
            }
            option if option.starts_with("option.") => {
                let (name, value) = option["option.".len()..]
                    .split_once('=')
                    .unwrap_or(("", ""));
                value
                    .parse()
                    .map_err(|_| format!("bad value '{value}'"))
                    .and_then(|v| settings.weights.set(name, v).map_err(|err| err.to_string()))
                    .map_err(|err| format!("{option}: {err}"))
            }
            other => Err(format!("unknown codingame flag '{other}'")),
        };
        if let Err(problem) = parsed {
            return usage(&problem);
        }
    }
    let stdin = std::io::stdin().lock();
    match play(
        &settings,
        stdin,
        std::io::stdout().lock(),
        std::io::stderr(),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bt-search codingame: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `bt-search bench`: one line per position, then `N nodes M nps`. A closed stdout (`| head`)
/// ends it quietly.
fn run_bench(depth: u32) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let mut searcher = Searcher::new(BENCH_HASH_MB);
    let result = bench(&mut searcher, depth, |index, position, nodes| {
        let _ = writeln!(
            out,
            "position {:>2}: {nodes:>10} nodes  {position}",
            index + 1
        );
    });
    let _ = writeln!(
        out,
        "depth {depth}, {} ms\n{result}",
        result.elapsed.as_millis()
    );
    ExitCode::SUCCESS
}

/// A bad command line: the message and the usage, exit status 2.
fn usage(problem: &str) -> ExitCode {
    eprintln!(
        "bt-search: {problem}\nusage: bt-search               (the UGI/UCI engine, on stdin and stdout)\n       \
         bt-search bench [DEPTH]  (the bench: N nodes M nps)\n       \
         bt-search codingame ...  (a CodinGame bot: see --help)\n       \
         bt-search fit DATA...    (fit the weights to datagen positions)\n       \
         bt-search --help         (its options)"
    );
    ExitCode::from(2)
}
