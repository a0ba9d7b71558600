//! Harness overhead and scaling: `cargo bench --bench harness [-- GAMES_FOR_MEMORY]`.
//!
//! 1. The floor: a bare pipe round trip to a child process (`isready` → `readyok` with a
//!    running bt-random, and a line echoed by `cat`), timed over many round trips; against it,
//!    one `Engine::go` to bt-random at `depth=1` (the fenced `isready` + `position` + `go`
//!    write, `readyok`, `bestmove`). Five interleaved trials each, medians reported.
//! 2. The harness cost per move: a tournament of bt-random vs bt-random at `depth=1` (an
//!    instant engine), wall time divided by plies played, at concurrency 1 and 2, and at
//!    concurrency 1 with `--adjudicate proof=7`; beside it the runner's own CPU time per move
//!    (`getrusage` of this process, which runs the tournament: the engines are children and
//!    not counted), user and system.
//! 3. Memory: the resident set size sampled while a long run plays (default 20,000 games; pass
//!    100000 for the figure in the issue).
//! 4. The proof search of proof adjudication ([`Prover`]), as the runner calls it: after every
//!    move of 40 games per rule set between two bundled searchers (depth 3, one move in eight
//!    random), one prover per game. Per limit in plies: microseconds and nodes per move (mean,
//!    99th percentile, most), the calls that found a proof, the plies a proof would have cut
//!    from each game, and the answers left unknown at [`DEFAULT_BUDGET`].
//!
//! 5. The mate claims checked on every move (`--check-claims`, [`ClaimChecks`]): in the
//!    positions of part 4's games where the searcher (depth 3) claims `score mate N` within
//!    the default plies, the prover's time per claim at the default node budget, one prover
//!    per game as in the runner (mean, 99th percentile, most), and the claims left unknown.
//!
//! `cargo bench --bench harness -- proof` runs part 4 alone, `-- claims` part 5, `-- loop`
//! parts 1 and 2.
//! Results go to stderr (the runner prints one line per game on stdout: send it to /dev/null).
//! Figures to report, not tests: machines here are shared and noisy.

use bt_arena::bundled::search::{Limits, Searcher};
use bt_arena::engine::{Engine, EngineKeys, EngineLaunch};
use bt_arena::game::claims::claim_plies;
use bt_arena::game::{Adjudication, ClaimChecks, TimeControl};
use bt_arena::protocol::GoLimits;
use bt_arena::records::read_games;
use bt_arena::rules::proof::{DEFAULT_BUDGET, Prover, Verdict};
use bt_arena::rules::{Board, Move, Position, Rules};
use bt_arena::run_dir::RunDir;
use bt_arena::session::{RunStart, SessionOptions};
use bt_arena::tournament::{SeedOrigin, Tournament, TournamentConfig};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

const RANDOM: &str = env!("CARGO_BIN_EXE_bt-random");

/// Mean time of one line written to `cmd` and one line read back, over `trips` trips.
fn round_trip(cmd: &str, args: &[&str], setup: &[&str], send: &str, trips: u32) -> Duration {
    let mut child = Command::new(cmd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    for command in setup {
        writeln!(stdin, "{command}").expect("write");
    }
    stdin.flush().expect("flush");
    let start = Instant::now();
    for _ in 0..trips {
        writeln!(stdin, "{send}").expect("write");
        stdin.flush().expect("flush");
        loop {
            line.clear();
            stdout.read_line(&mut line).expect("read");
            if line.trim() == "readyok" || send != "isready" {
                break;
            }
        }
    }
    let elapsed = start.elapsed() / trips;
    drop(stdin);
    let _ = child.wait();
    elapsed
}

/// Mean time of one `Engine::go` to bt-random at `depth=1` from the start position, over
/// `trips` moves.
fn go_round_trip(trips: u32) -> Duration {
    let config = EngineLaunch {
        name: "bt-random".into(),
        cmd: RANDOM.into(),
        ..EngineLaunch::default()
    };
    let mut engine =
        Engine::start(&config, Rules::default(), Board::STANDARD).expect("bt-random starts");
    let (start, limits) = (Position::startpos(), GoLimits::depth(1));
    let began = Instant::now();
    for _ in 0..trips {
        engine
            .go(&start, &[], &limits, Duration::from_secs(10))
            .expect("a move");
    }
    let elapsed = began.elapsed() / trips;
    engine.quit();
    elapsed
}

/// The median of `samples`.
fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn config(
    games_per_pair_round: u32,
    rounds: u32,
    concurrency: usize,
    out: PathBuf,
) -> TournamentConfig {
    let engine = |name: &str| {
        EngineKeys::parse(&[format!("cmd={RANDOM}"), format!("name={name}")])
            .and_then(|keys| keys.into_description(TimeControl::Depth(1)))
            .expect("engine spec")
    };
    let mut config = TournamentConfig::new(vec![engine("a"), engine("b")]);
    config.run.event = "bench".into();
    config.run.concurrency = concurrency;
    config.run.seed = 1;
    config.run.out = out;
    config.rounds = rounds;
    config.games = games_per_pair_round;
    config
}

/// The CPU time this process (every thread, not its children) has used: (user, system).
fn own_cpu() -> (Duration, Duration) {
    // SAFETY: getrusage writes only to `usage`, a plain C struct owned by this frame.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.unsigned_abs())
            + Duration::from_micros(t.tv_usec.unsigned_abs())
    };
    (time(usage.ru_utime), time(usage.ru_stime))
}

/// What a tournament cost: wall seconds, plies played, and the runner's own CPU time (this
/// process; the engines are other processes), user and system.
struct Cost {
    seconds: f64,
    plies: u64,
    user: Duration,
    system: Duration,
}

/// Plays `games` games of bt-random against itself at `depth=1` with `adjudication`.
fn tournament(games: u32, concurrency: usize, adjudication: Adjudication) -> Cost {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = config(2, games / 2, concurrency, dir.path().join("run"));
    config.run.adjudication = adjudication;
    let (user, system) = own_cpu();
    let start = Instant::now();
    let fresh = RunStart::Fresh(SeedOrigin::Given);
    let options = SessionOptions::default();
    bt_arena::session::run::<Tournament>(
        &mut config,
        fresh,
        &options,
        &AtomicBool::new(false),
        &mut |_| {},
        |_| {},
    )
    .expect("run");
    let seconds = start.elapsed().as_secs_f64();
    let (user_after, system_after) = own_cpu();
    let games = read_games(&RunDir::new(&config.run.out).games_csv()).expect("games.csv");
    Cost {
        seconds,
        plies: games.iter().map(|game| u64::from(game.plies)).sum(),
        user: user_after - user,
        system: system_after - system,
    }
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmRSS:"))
                .and_then(|line| line.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// The positions of `games` games between two bundled searchers at depth 3 (one move in eight
/// random, seeded), game by game, each from the start to its last position before the end.
fn searched_games(rules: Rules, games: usize) -> Vec<Vec<Position>> {
    let mut rng = fastrand::Rng::with_seed(2026);
    let mut searcher = Searcher::new(16);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(3),
        ..Limits::default()
    };
    (0..games)
        .map(|_| {
            let mut positions = Vec::new();
            let mut position = Position::startpos();
            while position.outcome(rules).is_none() {
                positions.push(position);
                let moves: Vec<Move> = position.legal_moves(rules).iter().collect();
                let mv = if rng.u32(..8) == 0 {
                    moves[rng.usize(..moves.len())]
                } else {
                    let result = searcher.search(&position, rules, &limits, &stop, &mut |_| {});
                    result.best.expect("a move")
                };
                position = position.play_unchecked(mv);
            }
            positions
        })
        .collect()
}

/// The `q`-quantile of `sorted` (ascending).
fn quantile<T: Copy>(sorted: &[T], q: f64) -> T {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let index = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[index]
}

/// Part 4: the proof search's cost per move, as described in the module documentation.
fn proof_cost() {
    for rules in Rules::ALL {
        let games = searched_games(rules, 40);
        let moves: usize = games.iter().map(Vec::len).sum();
        eprintln!("proof, {rules}: {} games, {moves} positions", games.len());
        for plies in [3, 5, 7, 9] {
            for budget in [u64::MAX, DEFAULT_BUDGET] {
                let (mut micros, mut nodes) = (Vec::new(), Vec::new());
                let (mut proofs, mut unknown, mut cut) = (0, 0, 0);
                for game in &games {
                    let mut prover = Prover::new(rules, budget);
                    let mut first = None;
                    for (ply, position) in game.iter().enumerate() {
                        let began = Instant::now();
                        let verdict = prover.prove(position, plies);
                        micros.push(began.elapsed().as_secs_f64() * 1e6);
                        nodes.push(prover.nodes());
                        match verdict {
                            Verdict::Win(_) | Verdict::Loss(_) => {
                                proofs += 1;
                                first.get_or_insert(ply);
                            }
                            Verdict::Unknown => unknown += 1,
                            Verdict::Open => {}
                        }
                    }
                    cut += first.map_or(0, |ply| game.len() - ply);
                }
                micros.sort_by(f64::total_cmp);
                nodes.sort_unstable();
                let mean = micros.iter().sum::<f64>() / micros.len() as f64;
                let mean_nodes = nodes.iter().sum::<u64>() as f64 / nodes.len() as f64;
                let budget = if budget == u64::MAX {
                    "no budget".to_string()
                } else {
                    format!("budget {budget}")
                };
                eprintln!(
                    "  proof={plies}, {budget}: {mean:.1} µs per move (p99 {:.0}, max {:.0}), \
                     nodes mean {mean_nodes:.0} (p99 {}, max {}); {proofs} proofs, {unknown} \
                     unknown; a proof would cut {cut} of {moves} plies ({:.1}%)",
                    quantile(&micros, 0.99),
                    quantile(&micros, 1.0),
                    quantile(&nodes, 0.99),
                    quantile(&nodes, 1.0),
                    100.0 * cut as f64 / moves as f64
                );
            }
        }
    }
}

/// Part 5: the prover's cost per mate claim, as described in the module documentation, at
/// the default node budget and at ten times more and less.
fn claims_cost() {
    let checks = ClaimChecks::default();
    for rules in Rules::ALL {
        let games = searched_games(rules, 40);
        let mut searcher = Searcher::new(16);
        let stop = AtomicBool::new(false);
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let mut claims = Vec::new();
        let mut beyond = 0;
        for (index, game) in games.iter().enumerate() {
            for position in game {
                let result = searcher.search(position, rules, &limits, &stop, &mut |_| {});
                let Some(n) = result.score.mate_moves() else {
                    continue;
                };
                match claim_plies(n).filter(|&p| p <= checks.plies) {
                    Some(plies) => claims.push((index, *position, plies)),
                    None => beyond += 1,
                }
            }
        }
        for nodes in [checks.nodes * 10, checks.nodes, checks.nodes / 10] {
            let (mut micros, mut unknown) = (Vec::new(), 0);
            let mut prover = (usize::MAX, Prover::new(rules, nodes));
            for &(game, position, plies) in &claims {
                if prover.0 != game {
                    prover = (game, Prover::new(rules, nodes));
                }
                let began = Instant::now();
                let verdict = prover.1.prove(&position, plies);
                micros.push(began.elapsed().as_secs_f64() * 1e6);
                unknown += u32::from(verdict == Verdict::Unknown);
            }
            micros.sort_by(f64::total_cmp);
            let mean = micros.iter().sum::<f64>() / micros.len().max(1) as f64;
            eprintln!(
                "claims, {rules}: {} mate claims within {} plies proven at {nodes} nodes: \
                 {mean:.1} µs per claim (p99 {:.0}, max {:.0}); {unknown} unknown; {beyond} \
                 longer claims not checked",
                micros.len(),
                checks.plies,
                quantile(&micros, 0.99),
                quantile(&micros, 1.0),
            );
        }
    }
}

fn main() {
    if std::env::args().any(|arg| arg == "proof") {
        proof_cost();
        return;
    }
    if std::env::args().any(|arg| arg == "claims") {
        claims_cost();
        return;
    }
    let trips = 4_000;
    let (mut floors, mut echoes, mut goes) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        floors.push(round_trip(RANDOM, &[], &["ugi"], "isready", trips));
        echoes.push(round_trip("cat", &[], &[], "hello", trips));
        goes.push(go_round_trip(trips));
    }
    let (isready, echo, go) = (median(floors), median(echoes), median(goes));
    eprintln!(
        "floor: isready round trip to bt-random {:.1} µs, echo through cat {:.1} µs",
        isready.as_secs_f64() * 1e6,
        echo.as_secs_f64() * 1e6
    );
    eprintln!(
        "engine: Engine::go to bt-random depth=1 {:.1} µs per move ({:.2}x the isready floor)",
        go.as_secs_f64() * 1e6,
        go.as_secs_f64() / isready.as_secs_f64()
    );

    let proof = Adjudication {
        proof: Some("proof=7".parse().expect("a proof rule")),
        ..Adjudication::default()
    };
    for (concurrency, adjudication, label) in [
        (1, Adjudication::default(), ""),
        (2, Adjudication::default(), ""),
        (1, proof, ", --adjudicate proof=7"),
    ] {
        let cost = tournament(1000, concurrency, adjudication);
        let plies = cost.plies;
        let per_move = cost.seconds / plies as f64;
        let micros = |d: Duration| d.as_secs_f64() * 1e6 / plies as f64;
        eprintln!(
            "bt-random vs bt-random depth=1, concurrency {concurrency}{label}: 1000 games, {plies} plies in {:.2} s = {:.1} µs per move ({:.2}x the isready floor), {:.0} games/s; the runner's own CPU {:.1} µs per move (user {:.1}, system {:.1})",
            cost.seconds,
            per_move * 1e6,
            per_move / isready.as_secs_f64(),
            1000.0 / cost.seconds,
            micros(cost.user + cost.system),
            micros(cost.user),
            micros(cost.system),
        );
    }

    if std::env::args().any(|arg| arg == "loop") {
        return;
    }
    let games: u32 = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(20_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = config(2, games / 2, 2, dir.path().join("run"));
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let start = Instant::now();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                eprintln!(
                    "memory: {:>6.1} s  RSS {} KiB",
                    start.elapsed().as_secs_f64(),
                    rss_kib()
                );
                std::thread::sleep(Duration::from_secs(5));
            }
        });
        let fresh = RunStart::Fresh(SeedOrigin::Given);
        let _ = bt_arena::session::run::<Tournament>(
            &mut config,
            fresh,
            &SessionOptions::default(),
            &AtomicBool::new(false),
            &mut |_| {},
            |_| {},
        )
        .expect("run");
        done.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    eprintln!(
        "memory: after {games} games and the final report, RSS {} KiB",
        rss_kib()
    );
    proof_cost();
}
