//! What a run shows of the machine under the engines (docs/guide/checks.md, "The machine"):
//! each move's wall time and the engine's own time kept in µs (games.csv's `move_times`), the
//! latency per engine rebuilt from them by `report`; losses on time named as an overloaded
//! machine's when the load average is above the cores.

use crate::claims::faulty_with_args_against_search;
use crate::util::{FAULTY, SEARCH, bt_arena, bt_arena_command, stderr, stdout};
use bt_arena::rules::Position;
use serde_json::Value;

/// bt-faulty's `unclocked-delay` sleeps 25 ms before each move and says `time 0`: each of its
/// moves has a latency of at least 25,000 µs, counted for it alone; bt-search's own `time`
/// leaves it a small one. The table is rebuilt from games.csv by `elo` and `report`.
#[test]
fn latency_is_the_wall_time_less_the_engines_own_time_per_engine() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let faulty = ["--fault", "unclocked-delay", "--delay-ms", "25"];
    let (games, code) = faulty_with_args_against_search(&faulty, &out, &[]);
    assert_eq!(code, 0);
    let csv = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().ends_with(",claims,move_times"),
        "{csv}"
    );
    // Each mover's times, from the records.
    let mut faulty_plies = 0;
    let mut search_plies = 0;
    for game in games {
        let infos = game.move_infos().unwrap();
        assert_eq!(infos.len(), game.plies as usize);
        let first = game.opening.parse::<Position>().unwrap().side_to_move();
        for (ply, info) in infos.iter().enumerate() {
            let mover = if ply % 2 == 0 {
                first
            } else {
                first.opponent()
            };
            if game.name_of(mover) == "faulty" {
                faulty_plies += 1;
                assert_eq!(info.engine_time_us, Some(0), "game {}", game.game_id);
                assert!(info.time_us >= 25_000, "game {}: {info:?}", game.game_id);
            } else {
                search_plies += 1;
                let engine = info.engine_time_us.expect("bt-search reports its time");
                assert_eq!(engine % 1000, 0, "the engine's ms, in µs");
            }
        }
    }
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let latency = summary["latency"].as_array().expect("a latency table");
    let row = |name: &str| {
        latency
            .iter()
            .find(|row| row["name"] == name)
            .unwrap_or_else(|| panic!("no latency of {name}: {latency:?}"))
            .clone()
    };
    let (faulty, search) = (row("faulty"), row("search"));
    assert_eq!(faulty["moves"], faulty_plies);
    assert_eq!(search["moves"], search_plies);
    let median = faulty["median_us"].as_i64().unwrap();
    let p99 = faulty["p99_us"].as_i64().unwrap();
    assert!(median >= 25_000, "{faulty}");
    assert!(
        p99 >= median && faulty["max_us"].as_i64().unwrap() >= p99,
        "{faulty}"
    );
    // bt-search's clock is its own wall time: its latency is far below the delay.
    assert!(search["median_us"].as_i64().unwrap() < 25_000, "{search}");
    // The text report (`elo`'s, from games.csv) shows the same figures.
    let printed = stdout(&bt_arena(&["elo", out.to_str().unwrap()]));
    let line = printed
        .lines()
        .find(|line| line.starts_with("faulty") && line.contains(&median.to_string()))
        .unwrap_or_else(|| panic!("no latency line for faulty:\n{printed}"));
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        [
            "faulty".to_string(),
            faulty_plies.to_string(),
            median.to_string(),
            p99.to_string(),
            faulty["max_us"].to_string()
        ]
    );
    // `elo --json` and `report` rebuild them from games.csv.
    let elo = bt_arena(&["elo", "--json", out.to_str().unwrap()]);
    let rebuilt: Value = serde_json::from_str(&stdout(&elo)).unwrap();
    assert_eq!(rebuilt["latency"], summary["latency"]);
    std::fs::remove_file(out.join("report.html")).unwrap();
    let report = bt_arena(&["report", out.to_str().unwrap()]);
    assert!(report.status.success(), "{}", stderr(&report));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h3 id=\"latency\">Latency</h3>"));
    assert!(
        html.contains(&format!(
            "<td>{faulty_plies}</td><td>{median}</td><td>{p99}</td>"
        )),
        "the latency table of report.html"
    );
}

/// bt-arena with bt-faulty `slow` (200 ms a move, at 0.05 s a move: every game a loss on time
/// at its first move of faulty's) against bt-search, 6 games one at a time, the machine's load
/// read from a file holding `load`; its stdout.
fn forfeits_at_load(dir: &std::path::Path, load: &str) -> String {
    let loadavg = dir.join(format!("loadavg-{load}"));
    std::fs::write(&loadavg, format!("{load} {load} {load} 1/100 4242\n")).unwrap();
    let output = bt_arena_command([
        "tournament",
        "--engine",
        &format!("cmd={FAULTY}"),
        "name=faulty",
        "arg=--fault",
        "arg=slow",
        "arg=--delay-ms",
        "arg=200",
        "--engine",
        &format!("cmd={SEARCH}"),
        "name=search",
        "--each",
        "st=0.05",
        "--rounds",
        "3",
        "--out",
        dir.join(format!("run-{load}")).to_str().unwrap(),
    ])
    .env(bt_arena::report::html::LOADAVG_ENV, &loadavg)
    .output()
    .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

/// Losses on time that rise while the load average is above the cores are named once, with
/// the load and the cores; on a machine below its cores they are the engine's, and nothing
/// more is said.
#[test]
fn losses_on_time_on_an_overloaded_machine_are_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let printed = forfeits_at_load(dir.path(), "999.00");
    assert_eq!(
        printed.matches("lost by fault (time-forfeit)").count(),
        6,
        "{printed}"
    );
    let named: Vec<&str> = printed
        .lines()
        .filter(|line| line.contains("overloaded"))
        .collect();
    let cores = if cores == 1 {
        "1 core".to_string()
    } else {
        format!("{cores} cores")
    };
    assert_eq!(
        named,
        [format!(
            "warning: 2 losses on time in the last 2 games while the load average is 999.0 on \
             {cores}: the machine is overloaded, not necessarily the engine"
        )]
    );
    let printed = forfeits_at_load(dir.path(), "0.10");
    assert_eq!(
        printed.matches("lost by fault (time-forfeit)").count(),
        6,
        "{printed}"
    );
    assert!(!printed.contains("overloaded"), "{printed}");
}
