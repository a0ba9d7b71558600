//! Memory and time of the report over a large games.csv:
//! `cargo bench --bench report_memory [-- GAMES...]` (default 100000 and 1000000).
//!
//! For each count it writes a synthetic games.csv of that many games to a temporary directory
//! (two engines, a 60-ply move list per game and its `move_info`: about 1.6 kB a row, like a
//! real run's), then runs the release `bt-arena elo` and `bt-arena report` on it as child
//! processes and reports their wall time and peak resident set size (`ru_maxrss` of the child
//! from `wait4`). Two files per count: game pairs
//! with colours swapped (`--games 2`, the usual run), and single games that each have their
//! own pair number (`--games 1`: no pair ever completes, so every game stays an open pair).
//! Set `BT_ARENA_BIN` to measure another build of bt-arena (e.g. an older one).
//!
//! Results go to stderr. Figures to report, not tests: machines here are shared and noisy.

use bt_arena::records::COLUMNS;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Plies in every synthetic game.
const PLIES: usize = 60;

/// Writes a games.csv of `games` games at `path`: engines `new` and `base` alternating
/// colours, random results and moves from a fixed seed; two games per pair number when
/// `paired`, else one.
fn write_games_csv(path: &Path, games: u64, paired: bool) -> std::io::Result<()> {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    writeln!(out, "{}", COLUMNS.join(","))?;
    let mut moves = String::with_capacity(PLIES * 5);
    let mut move_info = String::with_capacity(PLIES * 20);
    for game_id in 1..=games {
        let pair = if paired { game_id.div_ceil(2) } else { game_id };
        let (white, black) = if game_id % 2 == 1 {
            ("new", "base")
        } else {
            ("base", "new")
        };
        let result = if rng.bool() { "1-0" } else { "0-1" };
        moves.clear();
        move_info.clear();
        for ply in 0..PLIES {
            if ply > 0 {
                move_info.push(' ');
            }
            let score = rng.i32(-300..300);
            let (depth, nodes, ms) = (rng.u32(8..20), rng.u64(1000..200_000), rng.u64(5..400));
            move_info.push_str(&format!("{score}/{depth}/{}/{nodes}/{ms}", depth + 6));
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
             2026-11-30T12:00:00Z,0,0,{move_info}",
            round = 1 + (game_id - 1) / 1000,
            opening = 1 + pair % 500,
            white_ms = rng.u64(1000..9000),
            black_ms = rng.u64(1000..9000),
        )?;
    }
    out.flush()
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

fn main() {
    let bin = std::env::var_os("BT_ARENA_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_bt-arena")),
        PathBuf::from,
    );
    // `cargo bench` passes `--bench`; the other arguments are game counts.
    let counts: Vec<u64> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .map(|arg| arg.parse().expect("a number of games"))
        .collect();
    let counts = if counts.is_empty() {
        vec![100_000, 1_000_000]
    } else {
        counts
    };
    eprintln!("bt-arena: {}", bin.display());
    for games in counts {
        for (paired, kind) in [(true, "game pairs"), (false, "single games")] {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let file = dir.path().join("games.csv");
            write_games_csv(&file, games, paired).expect("games.csv written");
            let size = std::fs::metadata(&file).expect("games.csv").len();
            for command in ["elo", "report"] {
                let (elapsed, max_rss_kib) = measure(&bin, command, &file);
                eprintln!(
                    "{command} over {games} games, {kind} ({:.0} MB games.csv): {:.2} s, peak \
                     RSS {:.1} MiB",
                    size as f64 / 1e6,
                    elapsed.as_secs_f64(),
                    max_rss_kib as f64 / 1024.0
                );
            }
            let page = std::fs::metadata(dir.path().join("report.html")).map_or(0, |m| m.len());
            eprintln!("report.html: {:.2} MB", page as f64 / 1e6);
        }
    }
}
