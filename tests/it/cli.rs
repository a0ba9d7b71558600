//! The command line itself: every `--help` and `-h` against its snapshot (a change to a flag
//! is a visible diff), the bundled engines' `--help`, cutechess-cli's and fastchess's
//! spellings (working or refused with a hint), the deprecated spellings that still work, and
//! the errors of bad values.
//!
//! The snapshots are the files under `tests/snapshots/help/`: `NAME.long.txt` is
//! `bt-arena SUBCOMMAND --help`, `NAME.short.txt` its `-h` (NAME the subcommand's words joined
//! by `-`, `bt-arena` for the top), `bt-random.txt` and `bt-search.txt` the engines' `--help`.
//! After a change to the command line, rewrite them with
//! `BT_ARENA_UPDATE_SNAPSHOTS=1 cargo test --test it cli::` and review the diff.

use crate::util::{RANDOM, SEARCH, bt_arena, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The environment variable that makes the snapshot tests write the snapshots.
const UPDATE: &str = "BT_ARENA_UPDATE_SNAPSHOTS";

/// The directory of the help snapshots.
fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/help")
}

/// `program args`, with the help's width and environment fixed: 100 columns (stdout is not a
/// terminal), and no build cache variable (its value would show in `--help`).
fn help_of(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .env("COLUMNS", "100")
        .env_remove("BT_ARENA_BUILD_CACHE")
        .output()
        .expect("the program runs")
}

/// Compares `text` with the snapshot `name`, or writes it when [`UPDATE`] is set; returns
/// the names that differ.
fn check_snapshot(name: &str, text: &str, differ: &mut Vec<String>) {
    let path = snapshots().join(name);
    if std::env::var_os(UPDATE).is_some() {
        std::fs::create_dir_all(snapshots()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    match std::fs::read_to_string(&path) {
        Ok(expected) if expected == text => {}
        Ok(expected) => differ.push(format!(
            "{name} differs:\n{}",
            first_difference(&expected, text)
        )),
        Err(_) => differ.push(format!("{name}: no snapshot ({})", path.display())),
    }
}

/// The first line where `expected` and `actual` differ, both shown.
fn first_difference(expected: &str, actual: &str) -> String {
    let (mut e, mut a) = (expected.lines(), actual.lines());
    for number in 1.. {
        match (e.next(), a.next()) {
            (None, None) => break,
            (left, right) if left != right => {
                return format!(
                    "  line {number}\n  snapshot: {}\n  now:      {}",
                    left.unwrap_or("<end>"),
                    right.unwrap_or("<end>")
                );
            }
            _ => {}
        }
    }
    "  (line endings)".to_string()
}

/// The subcommands listed under `Commands:` in a help text (`help` aside).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

/// Every command path from the top (`[]`), each subcommand and each of theirs, as `-h` lists
/// them.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = vec![Vec::new()];
    let mut at = 0;
    while at < paths.len() {
        let path: Vec<String> = paths[at].clone();
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let help = stdout(&help_of(env!("CARGO_BIN_EXE_bt-arena"), &args));
        for sub in subcommands(&help) {
            let mut child = path.clone();
            child.push(sub);
            paths.push(child);
        }
        at += 1;
    }
    paths
}

#[test]
fn every_help_matches_its_snapshot_and_h_is_the_short_one() {
    let paths = command_paths();
    let names: Vec<String> = paths.iter().map(|path| path.join(" ")).collect();
    assert_eq!(
        names,
        [
            "",
            "perft",
            "perft-check",
            "check-engine",
            "tournament",
            "tune",
            "select",
            "datagen",
            "merge",
            "elo",
            "report",
            "prove",
            "solve",
            "openings",
            "sprt",
            "bench",
            "generate",
            "datagen convert",
            "openings generate",
            "openings check",
            "openings build",
            "generate man",
            "generate completions",
        ]
    );
    let mut differ = Vec::new();
    for path in &paths {
        let name = match path.is_empty() {
            true => "bt-arena".to_string(),
            false => path.join("-"),
        };
        let mut texts = Vec::new();
        for (flag, kind) in [("--help", "long"), ("-h", "short")] {
            let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
            args.push(flag);
            let output = help_of(env!("CARGO_BIN_EXE_bt-arena"), &args);
            assert_eq!(output.status.code(), Some(0), "{name} {flag}");
            assert!(output.stderr.is_empty(), "{name} {flag}");
            let text = stdout(&output);
            check_snapshot(&format!("{name}.{kind}.txt"), &text, &mut differ);
            texts.push(text);
        }
        assert!(
            texts[1].len() < texts[0].len(),
            "{name}: -h is not shorter than --help"
        );
        assert!(
            texts[1].contains("Print help (see more with '--help')\n"),
            "{name}: -h does not point to --help"
        );
    }
    assert!(
        differ.is_empty(),
        "{}\n\n(rewrite the snapshots with {UPDATE}=1 cargo test --test it cli::)",
        differ.join("\n")
    );
}

#[test]
fn the_bundled_engines_answer_help_with_their_options() {
    let mut differ = Vec::new();
    for (program, name, options) in [
        (RANDOM, "bt-random", &["Rules", "Seed"][..]),
        (
            SEARCH,
            "bt-search",
            &["Rules", "Hash", "Depth", "Eval", "Pawn"][..],
        ),
    ] {
        let long = help_of(program, &["--help"]);
        assert_eq!(long.status.code(), Some(0), "{name}");
        assert_eq!(stdout(&long), stdout(&help_of(program, &["-h"])), "{name}");
        let text = stdout(&long);
        for option in options {
            assert!(
                text.lines()
                    .any(|line| line.starts_with(&format!("  {option} "))),
                "{name} lists no option {option}:\n{text}"
            );
        }
        let version = concat!(" ", env!("CARGO_PKG_VERSION"), "\n");
        let text = text.replacen(version, " VERSION\n", 1);
        check_snapshot(&format!("{name}.txt"), &text, &mut differ);
        // Another argument is refused (it waited for the protocol before).
        let other = help_of(program, &["--frobnicate"]);
        assert_eq!(other.status.code(), Some(2), "{name}");
        assert!(
            stderr(&other).starts_with(&format!("{name}: unknown arguments '--frobnicate'")),
            "{name}: {}",
            stderr(&other)
        );
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// `bt-search fit --help` gives the fit's help (it read `--help` as a data file), and an
/// unknown flag is refused as one.
// See: issue 39, item 12.
#[test]
fn bt_search_fit_answers_help_and_refuses_unknown_flags() {
    for flag in ["--help", "-h"] {
        let help = help_of(SEARCH, &["fit", flag]);
        assert_eq!(help.status.code(), Some(0), "{}", stderr(&help));
        assert!(
            stdout(&help).contains("Usage: bt-search fit [OPTIONS] [option.NAME=V...] DATA...\n"),
            "{}",
            stdout(&help)
        );
    }
    let other = help_of(SEARCH, &["fit", "--lamda", "0.5", "data.bin"]);
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).starts_with("bt-search: fit: unknown flag '--lamda'\n"),
        "{}",
        stderr(&other)
    );
}

/// The exit code and stderr of `bt-arena args`.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let output = bt_arena(args);
    assert!(output.stdout.is_empty(), "{args:?}: {}", stdout(&output));
    (output.status.code(), stderr(&output))
}

#[test]
fn cutechess_flags_without_a_meaning_get_a_hint_naming_bt_arenas_spelling() {
    let engine = format!("cmd={RANDOM}");
    let cases: [(&[&str], &str); 7] = [
        (
            &["tournament", "-engine", &engine, "-pgnout", "games.pgn"],
            "error: -pgnout: bt-arena writes every game to games.pgn (and games.csv) in the \
             results directory: give it with --out DIR (--pgn-comments says what move comments \
             hold)\n",
        ),
        (
            &["tournament", "--pgnout", "games.pgn"],
            "error: --pgnout: bt-arena writes every game to games.pgn (and games.csv) in the \
             results directory: give it with --out DIR (--pgn-comments says what move comments \
             hold)\n",
        ),
        (
            &[
                "tournament",
                "-draw",
                "movenumber=40",
                "movecount=8",
                "score=10",
            ],
            "error: -draw: Breakthrough has no draws: every game ends in a win\n",
        ),
        (
            &["tournament", "-recover"],
            "error: -recover: bt-arena always restarts a crashed engine (the engine key \
             restart=on restarts it for every game)\n",
        ),
        (
            &["tournament", "-repeat"],
            "error: -repeat: bt-arena plays each opening twice, colours swapped, already: \
             --games 2 (the default) is one game pair\n",
        ),
        (
            &["tournament", "-config", "file=fastchess.json"],
            "error: '-config file=...': bt-arena's --config FILE reads its own TOML or JSON (the \
             fields of a run's config.json), not fastchess's; --resume DIR continues an \
             interrupted run\n",
        ),
        (
            &["-engine", &engine, "-engine", &engine, "-each", "tc=10+0.1"],
            "error: -engine before a subcommand: a tournament is `bt-arena tournament` followed \
             by its flags, e.g. bt-arena tournament -engine cmd=./a -engine cmd=./b -each \
             tc=10+0.1 -rounds 100 (bt-arena --help lists the subcommands)\n",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(refused(args), (Some(3), message.to_string()), "{args:?}");
    }
}

#[test]
fn a_cutechess_command_line_plays_its_tournament() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let a = format!("cmd={RANDOM}");
    let output = bt_arena(&[
        "tournament",
        "-engine",
        &a,
        "name=a",
        "-engine",
        &a,
        "name=b",
        "tc=inf",
        "depth=1",
        "-each",
        "tc=0:05+0.05",
        "proto=uci",
        "-rounds",
        "1",
        "-games",
        "2",
        "-concurrency",
        "1",
        "-srand",
        "42",
        "-tournament",
        "round-robin",
        "-event",
        "cutechess",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("\nSeed: 42 (run "), "{text}");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["seed"], 42);
    assert_eq!(config["event"], "cutechess");
    assert_eq!(config["format"], "roundrobin");
    assert_eq!(
        config["engines"][0]["limit"],
        serde_json::json!({"clock": {"base_ms": 5000, "increment_ms": 50}})
    );
    assert_eq!(
        config["engines"][1]["limit"],
        serde_json::json!({"depth": 1})
    );
    assert_eq!(config["engines"][1]["proto"], "uci");
}

#[test]
fn tc_inf_without_a_limit_and_bad_clocks_are_refused_with_a_hint() {
    let engine = format!("cmd={RANDOM}");
    let cases: [(&str, &str); 3] = [
        (
            "tc=inf",
            "error: --engine #1: tc=inf (no clock) needs a limit that ends each search: add \
             depth=N, nodes=N or st=SECONDS (bt-arena has no unlimited time control)\n",
        ),
        (
            "tc=1:75",
            "error: --engine #1: bad tc '1:75': '75' is not below 60 seconds (in M:SS)\n",
        ),
        (
            "tc=x:10",
            "error: --engine #1: bad tc 'x:10': 'x' is not a whole number of minutes (in M:SS)\n",
        ),
    ];
    for (key, message) in cases {
        let args = [
            "tournament",
            "--engine",
            &engine,
            "name=a",
            key,
            "--engine",
            &engine,
        ];
        assert_eq!(refused(&args), (Some(3), message.to_string()), "{key}");
    }
}

#[test]
fn a_bad_named_value_names_the_accepted_ones() {
    let engine = format!("cmd={RANDOM}");
    let cases: [(&[&str], &str); 5] = [
        (
            &["perft", "--rules", "chess", "2"],
            "error: invalid value 'chess' for '--rules <RULES>': unknown rule set 'chess' \
             (expected capture-only or classic)\n\nFor more information, try '--help'.\n",
        ),
        (
            &["tournament", "--format", "knockout"],
            "error: invalid value 'knockout' for '--format <FORMAT>': unknown format 'knockout' \
             (expected roundrobin or gauntlet)\n\nFor more information, try '--help'.\n",
        ),
        (
            &["tune", "--pgn-comments", "long"],
            "error: invalid value 'long' for '--pgn-comments <DETAIL>': unknown PGN comment \
             detail 'long' (expected full, short or none)\n\nFor more information, try \
             '--help'.\n",
        ),
        (
            &[
                "check-engine",
                "--engine",
                &engine,
                "--only",
                "movegen,bogus",
            ],
            "error: invalid value 'bogus' for '--only <GROUP>': unknown check group 'bogus' \
             (expected handshake, positions, limits, output, newgame, movegen, board or match)\n\nFor \
             more information, try '--help'.\n",
        ),
        (
            &["perft-check", "--engine", &engine, "proto=xboard"],
            "error: --engine: bad value in 'proto=xboard': unknown protocol 'xboard' (expected \
             ugi, uci or codingame)\n",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(refused(args), (Some(3), message.to_string()), "{args:?}");
    }
    // Names are read ignoring case, as engine option values are.
    let output = bt_arena(&["perft", "--rules", "Classic", "1"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("classic rules"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn old_spellings_still_work_and_the_deprecated_ones_say_so() {
    let engine = format!("cmd={RANDOM}");
    // --depth is perft-check's --perft-depth; the engine key depth= its search depth.
    let old = bt_arena(&["perft-check", "--engine", &engine, "--depth", "2", "--json"]);
    let new = bt_arena(&[
        "perft-check",
        "--engine",
        &engine,
        "--perft-depth",
        "2",
        "--json",
    ]);
    for output in [&old, &new] {
        assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["positions"][0]["depth"], 2, "{report}");
    }
    // --ready-timeout: the engine keys handshake= and isready= now.
    let output = bt_arena(&[
        "check-engine",
        "--engine",
        &engine,
        "--only",
        "handshake",
        "--ready-timeout",
        "5",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "warning: --ready-timeout is deprecated: give the engine keys handshake=5 isready=5 \
         (as tournaments take them)\n"
    );
}

#[test]
fn separate_words_of_a_key_list_are_joined_with_a_deprecation_note() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let engine = format!("cmd={RANDOM}");
    let output = bt_arena(&[
        "tournament",
        "--engine",
        &engine,
        "name=a",
        "depth=1",
        "--engine",
        &engine,
        "name=b",
        "depth=1",
        "-resign",
        "movecount=3",
        "score=500",
        "--sprt",
        "elo0=0",
        "elo1=50",
        "alpha=0.1",
        "--rounds",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    // Two games of random moves decide no SPRT.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    // fastchess's spelling, taken silently (issue 39: it warned "deprecated").
    assert!(
        !stderr(&output).contains("deprecated"),
        "{}",
        stderr(&output)
    );
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    assert_eq!(
        config["sprt"], "elo0=0 elo1=50 alpha=0.1 beta=0.05",
        "{config}"
    );
    assert_eq!(config["adjudication"]["resign"]["movecount"], 3, "{config}");
    // A games file named like a key is an input, not a key of the list.
    std::fs::copy(out.join("games.csv"), dir.path().join("alpha=0.2")).unwrap();
    let output = crate::util::bt_arena_command(["elo", "--sprt", "elo0=0", "elo1=50", "alpha=0.2"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("Games: 2\n"),
        "{}",
        stdout(&output)
    );
    // The test is the flag's (elo1=50), over the file's two games.
    assert!(
        stdout(&output).contains(" (-2.94, 2.94) [0.00, 50.00]\n"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_book_generated_without_a_seed_prints_and_records_the_seed_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.epd");
    let args = [
        "openings",
        "generate",
        "--plies",
        "2",
        "--count",
        "3",
        "--search-depth",
        "1",
        "--out",
        book.to_str().unwrap(),
    ];
    let output = bt_arena(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let seed: u64 = text
        .lines()
        .find_map(|line| line.strip_prefix("Seed: "))
        .expect("the seed is printed")
        .parse()
        .unwrap();
    let header = std::fs::read_to_string(&book).unwrap();
    let first = header.lines().next().unwrap();
    assert!(first.ends_with(&format!(" --seed {seed}")), "{first}");
    // The command of its first line makes the same book again, byte for byte.
    std::fs::remove_file(&book).unwrap();
    let seed = seed.to_string();
    let again = bt_arena(&[&args[..], &["--seed", &seed]].concat());
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(&book).unwrap(), header);
}

/// A missing engine executable is a bad command line (exit 3) for every command that starts
/// engines, named the same way, before any engine starts.
#[test]
fn a_missing_engine_is_named_with_exit_3_by_every_command() {
    // The path as given, or made absolute (a tournament saves absolute paths). No word on the
    // bundled engines for the user's own (see: issue 28).
    let expected = "nonexist not found\n";
    for args in [
        &[
            "tournament",
            "--engine",
            "cmd=./nonexist",
            "--engine",
            "cmd=./nonexist",
            "name=b",
        ][..],
        &["check-engine", "--engine", "cmd=./nonexist"],
        &["perft-check", "--engine", "cmd=./nonexist"],
        &["bench", "--engine", "cmd=./nonexist"],
    ] {
        let output = bt_arena(args);
        assert_eq!(
            output.status.code(),
            Some(3),
            "{args:?}: {}",
            stderr(&output)
        );
        let text = stderr(&output);
        assert!(
            text.starts_with("error: engine 'nonexist': executable ") && text.ends_with(expected),
            "{args:?}: {text}"
        );
    }
}

/// Runs bt-arena with `args` from the crate's directory, its stdout a pipe whose reading end
/// is already closed, as `| head -c 10` leaves it once head has its bytes (closed before the
/// start, so that every write finds it closed: no race with the reader).
fn into_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    crate::util::bt_arena_command(args)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("bt-arena runs")
}

/// The commands whose exit code is a verdict or a check keep it when their stdout is closed
/// (`bt-arena elo --sprt ... | head -c 10`), rather than dying of SIGPIPE (141 in a shell) or
/// panicking (101); so do all the others (plain `perft`, `openings check`, `prove`). See: issue
/// 28 (elo gave 141 in 8 or 9 of 10 tries), issue 38 (perft in 5 of 6).
#[test]
fn verdicts_and_checks_keep_their_exit_code_when_stdout_closes() {
    use bt_arena::records::ResultsWriter;
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    // Pairs of new vs base: no SPRT decision (2).
    let games = tempfile::tempdir().unwrap();
    let mut writer =
        ResultsWriter::open(games.path(), bt_arena::rules::Rules::CaptureOnly).unwrap();
    for pair in 1..=6u64 {
        let game = crate::util::game;
        writer
            .append(&game(2 * pair - 1, pair, "new", "base", pair < 5))
            .unwrap();
        writer
            .append(&game(2 * pair, pair, "base", "new", pair > 3))
            .unwrap();
    }
    let csv = writer.csv_path().to_str().unwrap().to_string();
    // One shard of two played: its run is incomplete (5).
    let run = dir.path().join("run");
    let shard = bt_arena(&crate::util::words(
        &format!(
            "tournament --engine cmd={RANDOM} name=a --engine cmd={RANDOM} name=b --each \
             depth=1 --rounds 2 --seed 1 --shard 0/2 --out"
        ),
        &[crate::util::path(&run)],
    ));
    assert_eq!(shard.status.code(), Some(5), "{}", stderr(&shard));
    // A suite with one wrong count (1).
    let suite = dir.path().join("wrong.epd");
    let shipped = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perft/capture-only.epd"),
    )
    .unwrap();
    let line = shipped
        .lines()
        .find(|line| !line.starts_with('#') && !line.trim().is_empty())
        .unwrap();
    // Its position and first two depths, the second one wrong.
    let fields: Vec<&str> = line.split(';').map(str::trim).collect();
    let (depth, count) = fields[2].split_once(' ').unwrap();
    let wrong = count.parse::<u64>().unwrap() + 1;
    std::fs::write(
        &suite,
        format!("{} ;{} ;{depth} {wrong}\n", fields[0], fields[1]),
    )
    .unwrap();
    let page = dir.path().join("page.html");
    let sprt = "elo0=0,elo1=5";
    let cases: [(&[&str], i32); 6] = [
        (&["elo", "--sprt", sprt, &csv], 2),
        (&["elo", "--json", "--sprt", sprt, &csv], 2),
        (
            &[
                "report",
                "--sprt",
                sprt,
                "--out",
                crate::util::path(&page),
                &csv,
            ],
            2,
        ),
        (&["merge", crate::util::path(&run)], 5),
        (&["perft", "--suite", crate::util::path(&suite)], 1),
        (
            &[
                "bench",
                "--engine",
                &format!("cmd={}", crate::util::FAULTY),
                "bench=1",
            ],
            1,
        ),
    ];
    for (args, code) in cases {
        let open = bt_arena(args);
        assert_eq!(
            open.status.code(),
            Some(code),
            "{args:?}: {}",
            stderr(&open)
        );
        assert!(!open.stdout.is_empty(), "{args:?} writes to stdout");
        let closed = into_closed_stdout(args);
        assert_eq!(
            (closed.status.code(), closed.status.signal()),
            (Some(code), None),
            "{args:?} with stdout closed: {}",
            stderr(&closed)
        );
        assert!(!stderr(&closed).contains("panicked"), "{}", stderr(&closed));
    }
    // Those whose code says only that they ran keep it too (issue 38: `perft 4 | head -1`
    // died of SIGPIPE in 5 tries of 6, `openings check ... | head -1` in some): a verdict must
    // not depend on a reader's timing, so no command dies of a closed stdout.
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("openings/capture-only.epd");
    let book = crate::util::path(&book);
    let plain: [&[&str]; 4] = [
        &["perft", "4"],
        &["perft", "3", "--divide"],
        &["openings", "check", "--search-depth", "1", book],
        &["prove", "--fen", "startpos", "3"],
    ];
    for args in plain {
        let closed = into_closed_stdout(args);
        assert_eq!(
            (closed.status.code(), closed.status.signal()),
            (Some(0), None),
            "{args:?} with stdout closed: {}",
            stderr(&closed)
        );
        assert!(closed.stderr.is_empty(), "{args:?}: {}", stderr(&closed));
        // As `| head -1` does: the first line read, then the pipe closed while the command
        // may still be writing. 12 tries each (the old code died in most of them).
        for _ in 0..12 {
            let mut child = crate::util::bt_arena_command(args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("bt-arena runs");
            let mut first = String::new();
            std::io::BufRead::read_line(
                &mut std::io::BufReader::new(child.stdout.take().unwrap()),
                &mut first,
            )
            .unwrap();
            assert!(!first.is_empty(), "{args:?} writes a line");
            let output = child.wait_with_output().unwrap();
            assert_eq!(
                (output.status.code(), output.status.signal()),
                (Some(0), None),
                "{args:?} | head -1: {}",
                stderr(&output)
            );
        }
    }
}

/// A missing bundled engine's message says how it is built or installed; only theirs do.
// See: issue 28 (every missing engine was told about the bundled engines).
#[test]
fn a_missing_bundled_engine_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    let nowhere = dir.path().join("nowhere");
    let engine = |name: &str| format!("cmd={}", nowhere.join(name).display());
    for (cmd, hint) in [
        (
            engine("bt-search"),
            " (bt-search is a bundled engine: `cargo build --release` builds them in \
             target/release)\n",
        ),
        (
            engine("bt-faulty"),
            " (bt-faulty is a bundled engine: `cargo build --release --features test-engines` \
             builds it)\n",
        ),
        (engine("my-new-engine"), "my-new-engine not found\n"),
    ] {
        // A bare name: first_steps.rs (the bundled engines are beside this bt-arena).
        let output = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
            .args(["check-engine", "--engine", &cmd])
            .env("PATH", dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{cmd}: {}", stderr(&output));
        assert!(
            stderr(&output).ends_with(hint),
            "{cmd}: {}",
            stderr(&output)
        );
    }
}

/// The commands of the `Examples:` section of `help`, each with its continuation lines joined
/// (a line ending in ` \` goes on at a deeper indent), or what is wrong with the section: a
/// line wider than `width`, a command line that does not start at 4 spaces or with a command
/// (`bt-arena`, or the shell's `mkdir`), a continuation missing. Captions are at 2 spaces.
fn examples(help: &str, width: usize) -> Result<Vec<String>, String> {
    let mut commands: Vec<String> = Vec::new();
    let mut continued = false;
    for line in help.lines().skip_while(|line| *line != "Examples:").skip(1) {
        if line.chars().count() > width {
            return Err(format!("wider than {width} columns: {line}"));
        }
        let text = line.trim_start();
        let indent = line.len() - text.len();
        if text.is_empty() {
            if continued {
                return Err(format!("a blank line after a continued line: {commands:?}"));
            }
            continue;
        }
        match (continued, indent) {
            (true, indent) if indent > 4 => {
                let last = commands.last_mut().unwrap();
                last.push(' ');
                last.push_str(text);
            }
            (true, _) => return Err(format!("a continuation at indent {indent}: {line}")),
            (false, 2) => {}
            (false, 4) if text.starts_with("bt-arena ") || text.starts_with("mkdir ") => {
                commands.push(text.to_string())
            }
            (false, _) => return Err(format!("not a caption or a command: {line}")),
        }
        continued = text.ends_with(" \\");
        if continued {
            let last = commands.last_mut().unwrap();
            last.truncate(last.len() - 2);
        }
    }
    match continued {
        true => Err("the last line is continued".into()),
        false => Ok(commands),
    }
}

/// The words of `command` as the shell splits them (double quotes kept together), up to a
/// comment, a redirection or a pipe.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    words.push(word);
    words
        .into_iter()
        .filter(|word| !word.is_empty())
        .take_while(|word| !["#", ">", "|", ";"].iter().any(|s| word.starts_with(s)))
        .collect()
}

/// Every `--help` example of every command is one complete command as printed in an
/// 80-column terminal: each line a command or a continuation of one (no example wrapped onto
/// a line of its own), valid shell, its subcommand real and each of its flags one of that
/// subcommand's.
// See: issue 28 (bench --help's second example, wrapped onto two lines without a backslash,
// did nothing when pasted).
#[test]
fn every_help_example_is_one_complete_command_at_80_columns() {
    let paths = command_paths();
    let help = |path: &[String]| -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_bt-arena"))
            .args(path)
            .arg("--help")
            .env("COLUMNS", "80")
            .env_remove("BT_ARENA_BUILD_CACHE")
            .output()
            .unwrap();
        stdout(&output)
    };
    let mut checked = 0;
    for path in &paths {
        let text = help(path);
        let commands = examples(&text, 80).unwrap_or_else(|e| panic!("{path:?}: {e}\n{text}"));
        for command in commands {
            let syntax = Command::new("bash")
                .args(["-n", "-c", &command])
                .output()
                .unwrap();
            assert!(syntax.status.success(), "{command}: {}", stderr(&syntax));
            let words = shell_words(&command);
            if words[0] != "bt-arena" {
                continue;
            }
            // The longest command path the words start with.
            let sub = paths
                .iter()
                .filter(|p| words[1..].starts_with(p))
                .max_by_key(|p| p.len())
                .unwrap();
            assert!(
                !sub.is_empty() || words.len() == 1,
                "{command}: no subcommand"
            );
            let flags = help(sub);
            for word in &words[1 + sub.len()..] {
                if let Some(flag) = word.strip_prefix("--") {
                    let flag = flag.split('=').next().unwrap();
                    assert!(
                        flags.contains(&format!("--{flag} "))
                            || flags.contains(&format!("--{flag}\n")),
                        "{command}: bt-arena {} has no --{flag}",
                        sub.join(" ")
                    );
                }
            }
            checked += 1;
        }
    }
    // The examples of perft, perft-check, check-engine, tournament, tune, merge, elo,
    // report, openings, bench and generate.
    assert!(checked >= 25, "{checked} examples");
}

/// A non-UTF-8 `--out` is a bad command line, refused before anything is written.
// See: issue 28 (refused with exit 4 only after the directory, its .lock and logs/ were made).
#[test]
fn a_non_utf8_out_is_refused_before_anything_is_written() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(std::ffi::OsStr::from_bytes(b"run-\xff"));
    let engine = format!("cmd={RANDOM}");
    for subcommand in ["tournament", "tune"] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bt-arena"));
        command
            .arg(subcommand)
            .args(["--engine", &engine, "depth=1"]);
        match subcommand {
            "tournament" => command.args(["--engine", &engine, "name=b", "--rounds", "1"]),
            _ => command.args(["--param", "X,1,0,2,1,0.1", "--iterations", "1"]),
        };
        let output = command.arg("--out").arg(&out).output().unwrap();
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        assert_eq!(
            stderr(&output),
            format!(
                "error: invalid value '{}' for '--out <DIR>': the path is not valid UTF-8, which \
                 the run's files (JSON, CSV) must be\n",
                out.to_string_lossy()
            ),
            "{subcommand}"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{subcommand}: something was written"
        );
    }
}

/// A negative number given to a numeric flag is read as its value and refused by the flag's
/// own check, naming it.
// See: issue 28 (`--gamma -0.5` said "unexpected argument '-0'").
#[test]
fn negative_numbers_are_values_refused_by_their_flag() {
    let engine = format!("cmd={RANDOM}");
    let tune = |flag: &str, value: &str| -> (Option<i32>, String) {
        let args = [
            "tune",
            "--engine",
            &engine,
            "--param",
            "X,1,0,2,1,0.1",
            "--iterations",
            "1",
            flag,
            value,
        ];
        refused(&args)
    };
    assert_eq!(
        tune("--gamma", "-0.5"),
        (
            Some(3),
            "error: --gamma must be a number >= 0, not -0.5\n".to_string()
        )
    );
    assert_eq!(
        tune("--alpha", "-1"),
        (
            Some(3),
            "error: --alpha must be a number >= 0, not -1\n".to_string()
        )
    );
    let (code, message) = tune("--pairs", "-2");
    assert_eq!(code, Some(3));
    assert!(
        message.starts_with("error: invalid value '-2' for '--pairs <N>'"),
        "{message}"
    );
    let (code, message) = refused(&["tournament", "--rounds", "-1"]);
    assert_eq!(code, Some(3));
    assert!(
        message.starts_with("error: invalid value '-1' for '--rounds <N>'"),
        "{message}"
    );
    let (code, message) = refused(&["perft", "-3"]);
    assert_eq!(code, Some(3));
    assert!(
        message.starts_with("error: invalid value '-3' for '[DEPTH]'"),
        "{message}"
    );
}

/// `prove` takes its plies as perft takes its depth, positional, and perft takes `--depth`
/// as prove takes `--plies`: each spelling of one gives the same output (the positional was
/// refused as an unexpected argument).
// See: issue 39, item 12.
#[test]
fn prove_and_perft_take_their_depth_positional_or_as_a_flag() {
    let fen = "7p/8/8/8/8/8/p7/7P b";
    let positional = bt_arena(&["prove", "--fen", fen, "3"]);
    let flag = bt_arena(&["prove", "--fen", fen, "--plies", "3"]);
    assert_eq!(positional.status.code(), Some(0), "{}", stderr(&positional));
    assert_eq!(stdout(&positional), stdout(&flag));
    assert!(
        stdout(&flag).starts_with("Black to move wins: "),
        "{}",
        stdout(&flag)
    );
    let both = bt_arena(&["prove", "--fen", fen, "--plies", "3", "3"]);
    assert_eq!(both.status.code(), Some(3), "{}", stderr(&both));
    let positional = bt_arena(&["perft", "--divide", "2"]);
    let flag = bt_arena(&["perft", "--divide", "--depth", "2"]);
    assert_eq!(flag.status.code(), Some(0), "{}", stderr(&flag));
    assert_eq!(untimed(&stdout(&positional)), untimed(&stdout(&flag)));
}

/// A perft report without its `time:` line, which differs run to run.
fn untimed(report: &str) -> String {
    report
        .lines()
        .filter(|line| !line.starts_with("time:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `prove` on a finished position says who has won and how (it answered "no forced
/// result"), for a goal rank reached, every pawn captured and a side with no move.
// See: issue 38, item 8.
#[test]
fn prove_on_a_finished_position_says_who_has_won() {
    for (fen, said) in [
        (
            "P7/8/8/8/8/8/p7/8 b",
            "Black to move: the game is over (White reached rank 8): White has won\n",
        ),
        (
            "8/8/8/8/8/8/P7/8 b",
            "Black to move: the game is over (White captured every Black pawn): White has won\n",
        ),
    ] {
        let proved = bt_arena(&["prove", "--fen", fen, "3"]);
        assert_eq!(proved.status.code(), Some(0), "{}", stderr(&proved));
        assert_eq!(stdout(&proved), said, "{fen}");
    }
}

/// `bt-search fit` on data holding no valid position (two records of zeros: no pawns) says
/// so and fails, where it printed the start weights as a fit and exited 0.
// See: issue 38, item 8.
#[test]
fn bt_search_fit_refuses_data_without_a_valid_position() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("zeros.bin");
    std::fs::write(&data, [0u8; 48]).unwrap();
    let fit = help_of(SEARCH, &["fit", data.to_str().unwrap()]);
    assert_eq!(fit.status.code(), Some(1), "{}", stderr(&fit));
    assert_eq!(stdout(&fit), "");
    assert_eq!(
        stderr(&fit),
        format!(
            "bt-search: fit: {} holds no valid position (2 records of 24 bytes, none a position \
             of bt-arena datagen's positions.bin): nothing to fit\n",
            data.display()
        )
    );
}
