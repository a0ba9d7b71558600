//! Memory and time of the commands that read runs over many games:
//! `cargo bench --bench report_memory [-- GAMES... [COMMAND...]]` (default 1000000 and
//! 4000000 games, every command; e.g. `-- 4000000 elo` measures `elo` alone).
//!
//! For each count it writes synthetic games (two engines, a 60-ply move list per game, its
//! `move_info` and its `move_times`: about 2.4 kB a row, like a real run's) to a temporary directory, then runs the
//! release `bt-arena` on them as child processes and reports their wall time and peak
//! resident set size (`ru_maxrss` of the child from `wait4`):
//! * one games.csv of game pairs with colours swapped (`--games 2`, the usual run): `elo` and
//!   `report`;
//! * a run of four shards (config.json and games.csv each, one run id): `elo`, `report` and
//!   `merge`;
//! * at the first count only, one games.csv of single games that each have their own pair
//!   number (`--games 1`: no pair ever completes, so every game stays an open pair).
//!
//! Each command is measured on 100,000 games too, its base (the page's bounded parts full); at the largest count the bench
//! checks that the peak is at most that base plus 16 bytes a game (the reader keeps a bit a
//! game id, 8 bytes a loose game's content hash, 12 bytes a sharded run's row), and exits
//! with 1 when it is not. Set `BT_ARENA_BIN` to measure another build of bt-arena (e.g. an
//! older one). Results go to stderr. Machines here are shared and noisy: the figures are to
//! report; the budget has room for the noise.

use bt_arena::records::COLUMNS;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Plies in every synthetic game.
const PLIES: usize = 60;

/// Bytes a game the commands may keep beyond their base.
const BYTES_A_GAME: i64 = 16;

/// Games of the base measure of each command: enough that the page's bounded parts (its
/// latest 500 games, its chart points, the book's openings) are full.
const BASE_GAMES: u64 = 100_000;

/// Writes a games.csv of `games` games at `path`: engines `new` and `base` alternating
/// colours, random results and moves from a fixed seed; two games per pair number when
/// `paired`, else one.
fn write_games_csv(path: &Path, games: u64, paired: bool) -> std::io::Result<()> {
    write_rows(
        path,
        (1..=games).map(|id| (id, if paired { id.div_ceil(2) } else { id })),
    )
}

/// Writes the games (game id, pair) of `games` as a games.csv at `path` (see
/// [`write_games_csv`]): game ids odd have `new` as White.
fn write_rows(path: &Path, games: impl Iterator<Item = (u64, u64)>) -> std::io::Result<()> {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(out, "{}", COLUMNS.join(","))?;
    let mut moves = String::with_capacity(PLIES * 5);
    let mut move_info = String::with_capacity(PLIES * 20);
    let mut move_times = String::with_capacity(PLIES * 14);
    for (game_id, pair) in games {
        let (white, black) = if game_id % 2 == 1 {
            ("new", "base")
        } else {
            ("base", "new")
        };
        let result = if rng.bool() { "1-0" } else { "0-1" };
        moves.clear();
        move_info.clear();
        move_times.clear();
        for ply in 0..PLIES {
            if ply > 0 {
                move_info.push(' ');
                move_times.push(' ');
            }
            let score = rng.i32(-300..300);
            let (depth, nodes, ms) = (rng.u32(8..20), rng.u64(1000..200_000), rng.u64(5..400));
            move_info.push_str(&format!("{score}/{depth}/{}/{nodes}/{ms}", depth + 6));
            let wall_us = ms * 1000 + rng.u64(0..1000);
            move_times.push_str(&format!("{wall_us}/{}", wall_us / 1000 * 1000 - 1000));
            let file = char::from(b'a' + rng.u8(0..8));
            let rank = rng.u8(1..8);
            let step = if ply % 2 == 0 { 1 } else { -1 };
            let to_file = char::from(b'a' + rng.u8(0..8));
            let to_rank = (i16::from(rank) + step).clamp(1, 8);
            if ply > 0 {
                moves.push(' ');
            }
            moves.push_str(&format!("{file}{rank}{to_file}{to_rank}"));
        }
        writeln!(
            out,
            "{game_id},{round},{pair},{opening},pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w,\
             {white},{black},{result},goal-rank,{PLIES},{moves},{white_ms},{black_ms},\
             2026-11-30T12:00:00Z,0,0,{move_info},,{move_times}",
            round = pair,
            opening = 1 + pair % 500,
            white_ms = rng.u64(1000..9000),
            black_ms = rng.u64(1000..9000),
        )?;
    }
    out.flush()
}

/// Writes a run of four shards of `games` game pairs' games in `run` (`shard-K/config.json`
/// with one run id, and `shard-K/games.csv` with the shard's pairs), as `bt-arena tournament
/// --shard K/4` leaves it: a round-robin of `new` and `base`, one pair a round.
fn write_sharded_run(run: &Path, games: u64) -> std::io::Result<()> {
    let pairs = games / 2;
    for shard in 0..4u64 {
        let dir = run.join(format!("shard-{shard}"));
        std::fs::create_dir_all(&dir)?;
        let engine = |name: &str| serde_json::json!({"name": name, "cmd": "/bin/true", "limit": {"nodes": 1000}});
        let config = serde_json::json!({
            "event": "bench", "engines": [engine("new"), engine("base")], "rounds": pairs,
            "games": 2, "seed": 1, "shard": format!("{shard}/4"), "run_id": "00000000000000be",
        });
        std::fs::write(dir.join("config.json"), config.to_string())?;
        // The shard's games.pgn, as merge reads it (each game's text, known by its id).
        let mut pgn = BufWriter::new(std::fs::File::create(dir.join("games.pgn"))?);
        for pair in (1..=pairs).filter(|pair| (pair - 1) % 4 == shard) {
            for id in [2 * pair - 1, 2 * pair] {
                writeln!(
                    pgn,
                    "[Event \"bench\"]\n[X-GameId \"{id}\"]\n[Result \"1-0\"]\n\n1. a2a3 1-0\n"
                )?;
            }
        }
        pgn.flush()?;
        let mine = (1..=pairs).filter(|pair| (pair - 1) % 4 == shard);
        write_rows(
            &dir.join("games.csv"),
            mine.flat_map(|pair| [(2 * pair - 1, pair), (2 * pair, pair)]),
        )?;
    }
    Ok(())
}

/// Runs `bin COMMAND FILE` and returns its wall time and peak resident set size in KiB.
#[allow(
    clippy::zombie_processes,
    reason = "wait4 reaps the child, with its rusage"
)]
fn measure(bin: &Path, command: &str, file: &Path) -> (Duration, i64) {
    let start = Instant::now();
    let child = Command::new(bin)
        .arg(command)
        .arg(file)
        .stdout(Stdio::null())
        .spawn()
        .expect("bt-arena starts");
    let pid = i32::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "bt-arena {command} failed: status {status}"
    );
    // ru_maxrss is in KiB on Linux.
    (elapsed, usage.ru_maxrss)
}

/// What is measured: a kind of input, written for a count of games, and the commands run on
/// it.
struct Input {
    name: &'static str,
    write: fn(&Path, u64) -> std::io::Result<()>,
    commands: &'static [&'static str],
}

/// The inputs measured at every count.
const INPUTS: [Input; 2] = [
    Input {
        name: "one games.csv, game pairs",
        write: |dir, games| write_games_csv(&dir.join("games.csv"), games, true),
        commands: &["elo", "report"],
    },
    Input {
        name: "a run of 4 shards",
        write: write_sharded_run,
        commands: &["elo", "report", "merge"],
    },
];

/// Single games, measured at the first count only.
const SINGLES: Input = Input {
    name: "one games.csv, single games",
    write: |dir, games| write_games_csv(&dir.join("games.csv"), games, false),
    commands: &["elo", "report"],
};

/// The path a command reads in `dir`: a run's directory, or its games.csv.
fn target(dir: &Path) -> PathBuf {
    let csv = dir.join("games.csv");
    if csv.exists() && !dir.join("shard-0").exists() {
        csv
    } else {
        dir.to_path_buf()
    }
}

/// Measures `input` at `games` games: each command's time and peak (of those in `only`, when
/// any), with its base (its peak at [`BASE_GAMES`] games) and the bytes a game beyond the
/// peak of the count before (`before`, by command, updated). Returns whether every command
/// kept within the base plus [`BYTES_A_GAME`] a game.
fn measure_input(
    bin: &Path,
    input: &Input,
    games: u64,
    only: &[String],
    before: &mut std::collections::HashMap<String, (u64, i64)>,
) -> bool {
    let base_dir = tempfile::tempdir().expect("a temporary directory");
    (input.write)(base_dir.path(), BASE_GAMES).expect("games written");
    let dir = tempfile::tempdir().expect("a temporary directory");
    (input.write)(dir.path(), games).expect("games written");
    let size: u64 = walk(dir.path())
        .iter()
        .map(|f| f.metadata().map_or(0, |m| m.len()))
        .sum();
    let mut within = true;
    for command in input.commands {
        if !only.is_empty() && !only.iter().any(|c| c == command) {
            continue;
        }
        let (_, base_kib) = measure(bin, command, &target(base_dir.path()));
        let (elapsed, max_rss_kib) = measure(bin, command, &target(dir.path()));
        let beyond = (max_rss_kib - base_kib) * 1024;
        let per_game = beyond as f64 / games as f64;
        let ok = beyond <= BYTES_A_GAME * games as i64;
        within &= ok;
        let key = format!("{}: {command}", input.name);
        let slope =
            before
                .insert(key, (games, max_rss_kib))
                .map_or_else(String::new, |(n, kib)| {
                    format!(
                        "; {:.1} bytes a game more than at {n}",
                        (max_rss_kib - kib) as f64 * 1024.0 / (games - n) as f64
                    )
                });
        eprintln!(
            "{command} over {games} games, {} ({:.0} MB of games): {:.2} s, peak RSS {:.1} MiB \
             (base {:.1} MiB at {BASE_GAMES} games; {per_game:.1} bytes a game beyond it{}{slope})",
            input.name,
            size as f64 / 1e6,
            elapsed.as_secs_f64(),
            max_rss_kib as f64 / 1024.0,
            base_kib as f64 / 1024.0,
            if ok { "" } else { ": OVER BUDGET" }
        );
    }
    within
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn main() {
    let bin = std::env::var_os("BT_ARENA_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_bt-arena")),
        PathBuf::from,
    );
    // `cargo bench` passes `--bench`; the other arguments are game counts and, optionally,
    // the commands to measure (all by default).
    let (counts, only): (Vec<String>, Vec<String>) = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .partition(|arg| arg.parse::<u64>().is_ok());
    let counts: Vec<u64> = counts.iter().filter_map(|c| c.parse().ok()).collect();
    let counts = if counts.is_empty() {
        vec![1_000_000, 4_000_000]
    } else {
        counts
    };
    eprintln!("bt-arena: {}", bin.display());
    let largest = counts.iter().copied().max().unwrap_or(0);
    let mut within = true;
    let mut before = std::collections::HashMap::new();
    for (index, &games) in counts.iter().enumerate() {
        for input in &INPUTS {
            let ok = measure_input(&bin, input, games, &only, &mut before);
            within &= ok || games < largest;
        }
        if index == 0 {
            measure_input(&bin, &SINGLES, games, &only, &mut before);
        }
    }
    if !within {
        eprintln!(
            "a command over {largest} games kept more than {BYTES_A_GAME} bytes a game beyond \
             its base"
        );
        std::process::exit(1);
    }
}
