//! Helpers the integration tests share: running bt-arena, reading its output, a game record
//! to write, configurations for the bundled engines, checks of processes through the operating
//! system, and finding the outside programs some tests need.

use bt_arena::engine::{EngineLaunch, Timeouts};
use bt_arena::protocol::Protocol;
use bt_arena::records::{GameRecord, GameResult, Termination};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Asserts that `value` matches `pattern` (with its `if` guard), failing with the value's
/// `Debug` form; matches a reference to `value`, so bindings are references. With `=> expr`,
/// gives `expr` evaluated with the pattern's bindings:
/// `let tail = assert_matches!(err, EngineError::Crashed { stderr_tail, .. } => stderr_tail);`
macro_rules! assert_matches {
    ($value:expr, $pattern:pat $(if $guard:expr)? $(=> $then:expr)? $(,)?) => {
        match &$value {
            $pattern $(if $guard)? => ($($then)?),
            other => panic!(
                "expected {}, got {other:?}",
                stringify!($pattern $(if $guard)?)
            ),
        }
    };
}
pub(crate) use assert_matches;

/// The bundled random mover that `cargo test` built.
pub const RANDOM: &str = env!("CARGO_BIN_EXE_bt-random");
/// The bundled alpha-beta engine that `cargo test` built.
pub const SEARCH: &str = env!("CARGO_BIN_EXE_bt-search");
/// The test engine that misbehaves on purpose (`bt-faulty --help` lists its faults).
pub const FAULTY: &str = env!("CARGO_BIN_EXE_bt-faulty");

/// Timeouts roomy enough for a loaded 2-core machine.
pub fn roomy() -> Timeouts {
    Timeouts {
        handshake: Duration::from_secs(10),
        ready: Duration::from_secs(10),
        quit_grace: Duration::from_secs(2),
    }
}

/// Timeouts for tests that expect one to expire.
pub fn short() -> Timeouts {
    Timeouts {
        handshake: Duration::from_millis(300),
        ready: Duration::from_millis(300),
        quit_grace: Duration::from_millis(300),
    }
}

/// The configuration of bt-random speaking `proto`.
pub fn random(proto: Protocol) -> EngineLaunch {
    EngineLaunch {
        name: "random".into(),
        cmd: RANDOM.into(),
        proto,
        timeouts: roomy(),
        ..EngineLaunch::default()
    }
}

/// The configuration of bt-faulty with `--fault fault` and `extra` arguments.
pub fn faulty(fault: &str, extra: &[&str]) -> EngineLaunch {
    let mut args = vec!["--fault".to_string(), fault.to_string()];
    args.extend(extra.iter().map(|arg| arg.to_string()));
    EngineLaunch {
        name: format!("faulty-{fault}"),
        cmd: FAULTY.into(),
        args,
        timeouts: roomy(),
        ..EngineLaunch::default()
    }
}

/// `config` run through `/bin/sh`, which writes its pid (kept by `exec`) to a file in `dir`
/// first: the way to learn the pid of an engine whose start fails. Returns the file.
pub fn recording_pid(config: &mut EngineLaunch, dir: &Path) -> PathBuf {
    let pid_file = dir.join(format!("{}.pid", config.name));
    let mut args = vec![
        "-c".to_string(),
        format!("echo $$ > '{}'; exec \"$0\" \"$@\"", pid_file.display()),
        config.cmd.display().to_string(),
    ];
    args.append(&mut config.args);
    config.args = args;
    config.cmd = "/bin/sh".into();
    pid_file
}

/// The pid written to `pid_file`.
pub fn read_pid(pid_file: &Path) -> u32 {
    let text = std::fs::read_to_string(pid_file).expect("the pid file is written");
    text.trim().parse().expect("the pid file holds a pid")
}

/// True when no process `pid` exists, not even a zombie: it has exited and been reaped.
pub fn is_reaped(pid: u32) -> bool {
    let pid = libc::pid_t::try_from(pid).expect("a pid fits pid_t");
    // SAFETY: signal 0 only checks for existence.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// True when process `pid` runs (exists and is not a zombie).
pub fn is_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Asserts that process `pid` has been reaped.
pub fn assert_reaped(pid: u32) {
    assert!(
        is_reaped(pid),
        "process {pid} is still there (alive or a zombie)"
    );
}

/// The time allowed for a `go` or `go perft`: `ms` milliseconds.
pub fn in_ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// Fairy-Stockfish: where Debian's package puts the binary, else on `PATH`. Fails the test
/// when it is not installed: the tests that call this are `#[ignore]`d, run by
/// `cargo test -- --include-ignored` where it is.
pub fn fairy_stockfish() -> PathBuf {
    installed("/usr/games/fairy-stockfish", "fairy-stockfish")
}

/// A program Debian's package `name` installs at `debian`, else `name` on `PATH`. Fails the
/// test, saying what to install, when neither is there.
pub fn installed(debian: &str, name: &str) -> PathBuf {
    let debian = PathBuf::from(debian);
    if debian.is_file() {
        return debian;
    }
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
        })
        .unwrap_or_else(|| panic!("{name} is not installed: apt-get install {name}"))
}

/// A `bt-arena` command with `args`, from the crate's directory and without input: to spawn,
/// or to change before running it.
pub fn bt_arena_command<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bt-arena"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null());
    command
}

/// Runs bt-arena with `args` from the crate's directory, without input, and waits for it.
pub fn bt_arena<S: AsRef<OsStr>>(args: &[S]) -> Output {
    bt_arena_command(args).output().expect("bt-arena runs")
}

/// bt-arena with environment variables set (its engines inherit them).
pub fn bt_arena_with_env<S: AsRef<OsStr>>(args: &[S], env: &[(&str, &str)]) -> Output {
    bt_arena_command(args)
        .envs(env.iter().copied())
        .output()
        .expect("bt-arena runs")
}

/// What a program wrote to stdout, as text.
/// Polls `done` every 10 ms until it holds or `limit` passes; whether it held.
pub fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    done()
}

/// `text` split at white space, then `extra`: the arguments of a command line.
pub fn words(text: &str, extra: &[&str]) -> Vec<String> {
    text.split_whitespace()
        .chain(extra.iter().copied())
        .map(String::from)
        .collect()
}

/// A (temporary, UTF-8) path as an argument.
pub fn path(dir: &Path) -> &str {
    dir.to_str().expect("a UTF-8 temporary path")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What a program wrote to stderr, as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What a program that must have succeeded wrote to stdout; fails the test with its stderr
/// otherwise.
pub fn success_stdout(output: &Output) -> String {
    assert!(output.status.success(), "{}", stderr(output));
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// A record of game `game_id` of game pair `pair` from the start position, decided on the
/// goal rank after the two plies `a2a3 a7a6`: White wins when `white_wins`, else Black.
pub fn game(game_id: u64, pair: u64, white: &str, black: &str, white_wins: bool) -> GameRecord {
    GameRecord {
        game_id,
        round: 1,
        pair,
        opening_id: pair,
        opening: "startpos".into(),
        white: white.into(),
        black: black.into(),
        result: if white_wins {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        },
        termination: Termination::GoalRank,
        plies: 2,
        moves: "a2a3 a7a6".into(),
        white_ms: 10,
        black_ms: 10,
        started: "2026-11-30T12:00:00Z".into(),
        white_stray: 0,
        black_stray: 0,
        move_info: String::new(),
        claims: String::new(),
        move_times: String::new(),
    }
}

/// `bt-arena tournament` flags of a run that plays the same games every time: two settings of
/// bt-search at depth 2 (deterministic after `uginewgame`), the shipped capture-only book in
/// book order, `rounds` game pairs, seed 11.
pub fn deterministic(rounds: u32) -> String {
    format!(
        "tournament --engine cmd={search} name=full --engine cmd={search} name=material \
         option.Eval=material --each depth=2 --openings file={book} --rounds {rounds} --seed 11",
        search = SEARCH,
        book = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/capture-only.epd"),
    )
}

/// The games of a games.csv without what depends on the clock (start time, time used, the
/// time of each move in `move_info`, the wall and engine times of `move_times`: each token
/// kept as `-`, its count still compared).
pub fn games_of(csv: &Path) -> Vec<bt_arena::records::GameRecord> {
    let mut games = bt_arena::records::read_games(csv).expect("a readable games.csv");
    for game in &mut games {
        game.started.clear();
        game.white_ms = 0;
        game.black_ms = 0;
        game.move_info = game
            .move_info
            .split(' ')
            .map(|token| token.rsplit_once('/').map_or(token, |(rest, _ms)| rest))
            .collect::<Vec<_>>()
            .join(" ");
        game.move_times = game
            .move_times
            .split_whitespace()
            .map(|_| "-")
            .collect::<Vec<_>>()
            .join(" ");
    }
    games
}

/// A text report without what depends on the clock: its latency table, from its `Latency`
/// line to its closing note, and the blank line before it.
pub fn report_without_latency(text: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("Latency ") {
            in_table = true;
            if kept.last() == Some(&"") {
                kept.pop();
            }
        }
        if !in_table {
            kept.push(line);
        }
        if in_table && line.starts_with("(wall time from go to bestmove") {
            in_table = false;
        }
    }
    kept.iter().map(|line| format!("{line}\n")).collect()
}

/// A summary.json (its text) without what depends on the clock: its `latency`.
pub fn summary_without_latency(text: &str) -> serde_json::Value {
    let mut summary: serde_json::Value = serde_json::from_str(text).expect("summary.json");
    if let Some(fields) = summary.as_object_mut() {
        fields.remove("latency");
    }
    summary
}

/// The words of a games.pgn without what depends on the clock: its `Date` tags and the time
/// each move took in the move comments (`0.120s`). Words, not lines: the times' widths move
/// the line breaks.
pub fn pgn_without_dates(path: &Path) -> Vec<String> {
    let is_time = |word: &str| {
        word.trim_end_matches([',', '}'])
            .strip_suffix('s')
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    std::fs::read_to_string(path)
        .expect("a readable games.pgn")
        .lines()
        .filter(|line| !line.starts_with("[Date "))
        .flat_map(str::split_whitespace)
        .map(|word| if is_time(word) { "TIME" } else { word }.to_string())
        .collect()
}

/// Runs git in `dir` (as a committer named `t`, without signing) and returns its output
/// trimmed; panics when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// The complete game pairs among the first `games` rows of the games.csv at `csv`, from the
/// side of `tested`, counted here from the rows.
pub fn pairs_among(csv: &Path, tested: &str, games: usize) -> bt_arena::stats::Pentanomial {
    let rows = bt_arena::records::read_games(csv).expect("a readable games.csv");
    let mut pairs = bt_arena::stats::Pentanomial::default();
    let mut points = std::collections::HashMap::new();
    for game in rows.iter().take(games) {
        let winner = match game.result {
            GameResult::WhiteWins => &game.white,
            GameResult::BlackWins => &game.black,
        };
        let point = u64::from(winner == tested);
        if let Some(first) = points.insert(game.pair, point) {
            points.remove(&game.pair);
            match first + point {
                0 => pairs.ll += 1,
                1 => pairs.wl += 1,
                _ => pairs.ww += 1,
            }
        }
    }
    pairs
}

/// The game at which `sprt` decides over the games of the games.csv at `csv`, in file order,
/// for `tested` (the first engine) by the pentanomial LLR of the pairs complete so far,
/// computed here from the rows (not by the reader the commands share); `None` without a
/// decision.
pub fn sprt_decided_at(csv: &Path, tested: &str, sprt: &bt_arena::stats::Sprt) -> Option<u64> {
    let games = bt_arena::records::read_games(csv).expect("a readable games.csv");
    let (lower, upper) = sprt.bounds();
    let mut pairs = bt_arena::stats::Pentanomial::default();
    let mut points = std::collections::HashMap::new();
    for (count, game) in (1..).zip(&games) {
        let winner = match game.result {
            GameResult::WhiteWins => &game.white,
            GameResult::BlackWins => &game.black,
        };
        let point = u64::from(winner == tested);
        match points.remove(&game.pair) {
            None => {
                points.insert(game.pair, point);
                continue;
            }
            Some(first) => match first + point {
                0 => pairs.ll += 1,
                1 => pairs.wl += 1,
                _ => pairs.ww += 1,
            },
        }
        let llr = sprt.llr_pentanomial(&pairs);
        if llr >= upper || llr <= lower {
            return Some(count);
        }
    }
    None
}
