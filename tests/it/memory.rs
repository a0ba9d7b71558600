//! Memory of the commands that read runs: `bt-arena elo` over N and then 4N games, of a loose
//! games.csv and of a run of four shards, must not grow by more than 16 bytes a game (the
//! reader keeps a bit a game id, an 8-byte content hash a loose game, 12 bytes a row of a
//! sharded run; never the games). `bt-arena datagen` of N and 10N games must peak alike.
//! Peak resident memory is the child's `ru_maxrss`, from `wait4`; the sizes are small enough
//! for a debug build to read in seconds.

use bt_arena::records::COLUMNS;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// Games of the smaller reading; the larger one reads four times as many.
const GAMES: u64 = 25_000;
/// Bytes a game the reader may keep (the budget).
const BYTES_A_GAME: i64 = 16;
/// What may differ between two readings whatever the games: the allocator's rounding of a
/// vector grown by doubling and copied once, buffers.
const SLACK: i64 = 1024 * 1024;

/// Writes the games `pairs` (pair numbers) of a two-engine run as games.csv rows to `path`:
/// game `2p − 1` `new` against `base`, game `2p` colours swapped, as the run's schedule has
/// them.
fn write_games(path: &Path, pairs: impl Iterator<Item = u64>) {
    // The rows below have a field for each column (the last three, move data, claims and move
    // times, empty).
    assert_eq!(COLUMNS.len(), 19, "a row of write_games per column");
    let mut out = BufWriter::new(std::fs::File::create(path).expect("games.csv"));
    writeln!(out, "{}", COLUMNS.join(",")).unwrap();
    for pair in pairs {
        for (game_id, white, black, result) in [
            (2 * pair - 1, "new", "base", "1-0"),
            (
                2 * pair,
                "base",
                "new",
                if pair % 3 == 0 { "1-0" } else { "0-1" },
            ),
        ] {
            writeln!(
                out,
                "{game_id},{pair},{pair},1,pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w,\
                 {white},{black},{result},goal-rank,2,a2a3 a7a6,10,10,2026-12-01T00:00:00Z,0,0,,,"
            )
            .unwrap();
        }
    }
    out.flush().unwrap();
}

/// Writes a run of four shards of `games` games in `run`: each shard's config.json (one run
/// id, engines `new` and `base`) and games.csv with its pairs.
fn write_sharded_run(run: &Path, games: u64) {
    let pairs = games / 2;
    for shard in 0..4 {
        let dir = run.join(format!("shard-{shard}"));
        std::fs::create_dir_all(&dir).unwrap();
        let engine = |name: &str| serde_json::json!({"name": name, "cmd": "/bin/true", "limit": {"depth": 1}});
        let config = serde_json::json!({
            "event": "memory", "engines": [engine("new"), engine("base")], "rounds": pairs,
            "games": 2, "seed": 1, "shard": format!("{shard}/4"), "run_id": "00000000000000aa",
        });
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
        write_games(
            &dir.join("games.csv"),
            (1..=pairs).filter(|pair| (pair - 1) % 4 == shard),
        );
    }
}

/// The peak resident memory, in bytes, of `bt-arena elo INPUT`, which must exit 0.
fn elo_peak_bytes(input: &Path) -> i64 {
    peak_bytes(&["elo".as_ref(), input.as_os_str()])
}

/// The peak resident memory, in bytes, of `bt-arena ARGS`, which must exit 0.
#[allow(
    clippy::zombie_processes,
    reason = "wait4 reaps the child, with its rusage"
)]
fn peak_bytes(args: &[&std::ffi::OsStr]) -> i64 {
    let child = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .expect("bt-arena starts");
    let pid = i32::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "bt-arena {args:?} failed: status {status}"
    );
    // ru_maxrss is in KiB on Linux.
    usage.ru_maxrss * 1024
}

/// Asserts that reading 4N games (`large`) peaks at most 16 bytes a game (and the slack)
/// above reading N (`small`).
fn assert_flat(what: &str, small: &Path, large: &Path) {
    let (at_n, at_4n) = (elo_peak_bytes(small), elo_peak_bytes(large));
    let more_games = 3 * GAMES as i64;
    let allowed = BYTES_A_GAME * more_games + SLACK;
    assert!(
        at_4n - at_n <= allowed,
        "elo over {what}: {} KiB at {GAMES} games, {} KiB at {} games: {:.1} bytes a game more, \
         more than {BYTES_A_GAME} (and {} KiB of slack)",
        at_n / 1024,
        at_4n / 1024,
        4 * GAMES,
        (at_4n - at_n) as f64 / more_games as f64,
        SLACK / 1024
    );
}

#[test]
fn elo_over_a_games_file_keeps_at_most_16_bytes_a_game() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (small, large) = (dir.path().join("small.csv"), dir.path().join("large.csv"));
    write_games(&small, 1..=GAMES / 2);
    write_games(&large, 1..=2 * GAMES);
    assert_flat("a loose games.csv", &small, &large);
}

#[test]
fn elo_over_a_sharded_run_keeps_at_most_16_bytes_a_game() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (small, large) = (dir.path().join("small"), dir.path().join("large"));
    write_sharded_run(&small, GAMES);
    write_sharded_run(&large, 4 * GAMES);
    assert_flat("a run of four shards", &small, &large);
}

/// `bt-arena datagen --dedup` of N and then 10N games (bt-search at 100 nodes, 2 at a time,
/// about 7,600 and 76,000 positions played) peaks within [`SLACK`] of each other: nothing it
/// keeps grows with the positions (its report refreshed as it plays included).
#[test]
fn datagen_memory_does_not_grow_with_the_positions() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let search = format!("cmd={}", env!("CARGO_BIN_EXE_bt-search"));
    let peak = |games: &str| {
        let out = dir.path().join(games);
        let args = [
            "datagen",
            "--engine",
            &search,
            "nodes=100",
            // The engines' own memory (ru_maxrss counts the children reaped) well below.
            "option.Hash=1",
            "--games",
            games,
            "--seed",
            "1",
            "--concurrency",
            "2",
            // Its set of positions seen (8 MiB) kept once, not per refresh of report.html.
            "--dedup",
            "--out",
            out.to_str().unwrap(),
        ];
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        peak_bytes(&args)
    };
    let (small, large) = (peak("100"), peak("1000"));
    assert!(
        large - small <= SLACK,
        "datagen: {} KiB at 100 games, {} KiB at 1000",
        small / 1024,
        large / 1024
    );
}
