//! `bt-arena openings generate|check` end to end with the real binary, the shipped books, and
//! the tournament's warning about a book with repeated positions.

use bt_arena::openings::Book;
use bt_arena::rules::Rules;
use std::path::Path;
use std::process::Output;

use crate::util::{RANDOM, bt_arena_command, stderr, stdout};

/// Runs bt-arena in `dir` with the whitespace-separated arguments of `command`.
fn in_dir(dir: &Path, command: &str) -> Output {
    bt_arena_command(command.split_whitespace())
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A tournament in `dir` between two bt-random engines, one game pair, with `extra` flags.
fn random_pair(dir: &Path, extra: &str) -> Output {
    in_dir(
        dir,
        &format!(
            "tournament --engine cmd={RANDOM} name=a --engine cmd={RANDOM} name=b \
             --each tc=2+0.02 --rounds 1 --games 2 {extra}"
        ),
    )
}

/// A small, fast book: 20 openings of 4 plies under classic rules, scored at depth 2.
fn generate(dir: &Path, seed: u64, extra: &str) -> Output {
    in_dir(
        dir,
        &format!(
            "openings generate --rules classic --plies 4 --count 20 --seed {seed} --depth 2 \
             --out book.epd {extra}"
        ),
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn generation_repeats_from_the_seed_and_records_its_command() {
    let [a, b, c] = [(); 3].map(|()| tempfile::tempdir().unwrap());
    for (dir, seed) in [(&a, 5), (&b, 5), (&c, 6)] {
        let output = generate(dir.path(), seed, "");
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(stdout(&output).starts_with("Wrote 20 openings to book.epd: "));
    }
    let book = read(&a.path().join("book.epd"));
    assert_eq!(book, read(&b.path().join("book.epd")));
    assert_ne!(book, read(&c.path().join("book.epd")));
    assert!(book.starts_with(
        "# bt-arena openings generate --rules classic --plies 4 --count 20 --seed 5 --depth 2 --out book.epd\n"
    ));
    let loaded = Book::load(
        &a.path().join("book.epd"),
        Rules::Classic,
        bt_arena::rules::Board::STANDARD,
    )
    .unwrap();
    assert_eq!(loaded.openings.len(), 20);
    assert!(loaded.duplicates.is_empty());
    for opening in &loaded.openings {
        assert_eq!(opening.comment_field("plies"), Some("4"));
        let eval: i32 = opening.comment_field("eval").unwrap().parse().unwrap();
        assert!(eval.abs() <= bt_arena::openings::DEFAULT_MAX_EVAL);
    }
}

#[test]
fn check_reports_the_generated_book() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), 1, "").status.success());
    let check = "openings check book.epd --rules classic --depth 2";
    let output = in_dir(dir.path(), check);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for expected in [
        "book.epd: 20 openings under classic rules\n",
        "duplicates: none\n",
        "eval (centipawns for White, depth 2): min ",
        "within ±50: 100.0%",
        "plies (from the plies comments): min 4, max 4, mean 4.0, stddev 0.0; openings per ply count 4: 20\n",
        "side to move: White 20, Black 0\n",
    ] {
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
    let output = in_dir(dir.path(), &format!("{check} --json"));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["count"], 20);
    assert_eq!(json["rules"], "classic");
    assert_eq!(json["plies"]["histogram"]["4"], 20);
    assert_eq!(json["eval"]["within_100"], 1.0);
    assert_eq!(json["white_to_move"], 20);
}

#[test]
fn check_lists_duplicates_and_counts_plies_without_comments() {
    let dir = tempfile::tempdir().unwrap();
    let book = "startpos\npppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b\nstartpos ; id \"s\"\n";
    std::fs::write(dir.path().join("dup.epd"), book).unwrap();
    let output = in_dir(dir.path(), "openings check dup.epd --depth 2");
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for expected in [
        "duplicates: 1 (line 3 repeats line 1)\n",
        "plies (counted from pawn advances, a lower bound where pawns were captured): min 0, max 1",
        "side to move: White 2, Black 1\n",
    ] {
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
    let warning = "warning: opening book dup.epd repeats 1 position (line 3 repeats line 1)";
    assert!(stderr(&output).contains(warning));
}

#[test]
fn bad_books_exit_4_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "# header\nstartpos\npppppppp/8 w\n",
            "opening book bad.epd line 3: bad position: the board has 2 ranks",
        ),
        (
            "startpos\n\n8/8/8/p7/P7/8/8/8 w ; blocked\n",
            "opening book bad.epd line 3: the game is already over there: White has no legal move",
        ),
        ("# nothing\n", "opening book bad.epd holds no position"),
    ];
    for (book, message) in cases {
        std::fs::write(dir.path().join("bad.epd"), book).unwrap();
        let output = in_dir(dir.path(), "openings check bad.epd");
        assert_eq!(output.status.code(), Some(4), "{book}");
        assert!(stderr(&output).contains(message), "{}", stderr(&output));
    }
    let output = in_dir(dir.path(), "openings check missing.epd");
    assert_eq!(output.status.code(), Some(4));
    assert!(stderr(&output).contains("cannot read opening book missing.epd"));
}

#[test]
fn a_book_saved_with_a_byte_order_mark_loads_from_the_command_and_in_a_tournament() {
    let dir = tempfile::tempdir().unwrap();
    let book = "\u{feff}startpos\npppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b\n";
    std::fs::write(dir.path().join("bom.epd"), book).unwrap();
    let output = in_dir(dir.path(), "openings check bom.epd --depth 1");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("bom.epd: 2 openings under capture-only rules\n"));
    let output = random_pair(dir.path(), "--openings file=bom.epd --out run");
    assert!(output.status.success(), "{}", stderr(&output));
    let games = bt_arena::records::read_games(&dir.path().join("run/games.csv")).unwrap();
    assert_eq!(
        games[0].opening,
        "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w"
    );
}

#[test]
fn an_existing_book_is_only_replaced_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("book.epd");
    std::fs::write(&path, "startpos\n").unwrap();
    let output = generate(dir.path(), 1, "");
    assert_eq!(output.status.code(), Some(4));
    assert!(stderr(&output).contains("book.epd exists: pass --force to overwrite it"));
    assert_eq!(read(&path), "startpos\n");
    let output = generate(dir.path(), 1, "--force");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(read(&path).starts_with("# bt-arena openings generate"));
}

#[test]
fn generation_gives_up_saying_how_much_it_tried() {
    let dir = tempfile::tempdir().unwrap();
    // One ply from the start reaches only 8 positions under capture-only rules.
    let output = in_dir(
        dir.path(),
        "openings generate --plies 1 --count 9 --seed 1 --out book.epd",
    );
    assert_eq!(output.status.code(), Some(4));
    let message = "cannot generate book.epd: found only 8 of 9 openings after 10000 random \
                   sequences tried (9992 repeated a position";
    assert!(stderr(&output).contains(message), "{}", stderr(&output));
    assert!(!dir.path().join("book.epd").exists());
}

#[test]
fn bad_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for flags in [
        "--plies 0 --out b.epd",
        "--plies 4",
        "--plies 4 --out b.epd --rules chess",
        "--plies 4 --out b.epd --max-eval -5",
        "--plies 4 --out b.epd --depth 0",
    ] {
        let command = format!("openings generate --count 5 --seed 1 {flags}");
        assert_eq!(
            in_dir(dir.path(), &command).status.code(),
            Some(3),
            "{command}"
        );
    }
    assert_eq!(in_dir(dir.path(), "openings check").status.code(), Some(3));
    assert!(!dir.path().join("b.epd").exists());
}

#[test]
fn the_shipped_books_load_under_their_rules_without_duplicates() {
    for rules in Rules::ALL {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("openings")
            .join(format!("{rules}.epd"));
        let book = Book::load(&path, rules, bt_arena::rules::Board::STANDARD).unwrap();
        assert_eq!(book.openings.len(), 500, "{rules}");
        assert!(book.duplicates.is_empty(), "{rules}");
        let header = read(&path).lines().next().unwrap().to_string();
        let command = format!("# bt-arena openings generate --rules {rules} ");
        assert!(header.starts_with(&command), "{header}");
        assert!(
            header.ends_with(&format!("--out openings/{rules}.epd")),
            "{header}"
        );
    }
}

#[test]
fn a_tournament_warns_about_a_book_with_repeats() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dup.epd"), "startpos\nstartpos\n").unwrap();
    let output = random_pair(dir.path(), "--openings file=dup.epd --out run");
    assert!(output.status.success(), "{}", stderr(&output));
    // Paths are made absolute (so that --resume works from anywhere).
    assert!(stdout(&output).contains("/dup.epd (sequential order)"));
    let warning = "/dup.epd repeats 1 position (line 2 repeats line 1)";
    assert!(stderr(&output).contains(warning));
}

#[test]
fn tournaments_from_the_repository_root_start_from_the_shipped_book() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let run = out.path().join("run");
    let output = random_pair(root, &format!("--rules classic --out {}", run.display()));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("/openings/classic.epd (sequential order)"));
    let games = bt_arena::records::read_games(&run.join("games.csv")).unwrap();
    let book = Book::load(
        &root.join("openings/classic.epd"),
        Rules::Classic,
        bt_arena::rules::Board::STANDARD,
    )
    .unwrap();
    assert_eq!(games[0].opening, book.openings[0].position.to_string());
}

/// The book of the games-analysis tests: three openings, the second with Black to move.
const THREE: &str = "\
pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b ; id \"o1\"
pppppppp/1ppppppp/p7/8/8/P7/1PPPPPPP/PPPPPPPP w
pppppppp/pppppppp/8/8/8/1P6/P1PPPPPP/PPPPPPPP b
";

/// Made-up games of `a` against `b` in `dir`/games.csv: opening 1, three pairs White won
/// twice (the colour decided each); opening 2, two pairs `a` won twice; opening 3 never;
/// and one game from a position not in the book.
fn made_up_run(dir: &Path) {
    let positions: Vec<&str> = THREE
        .lines()
        .map(|l| l.split(" ;").next().unwrap())
        .collect();
    let mut games = Vec::new();
    let pairs = [
        (1, true, false),
        (1, true, false),
        (2, true, true),
        (1, true, false),
        (2, true, true),
    ];
    for (k, &(opening, a_won_white, a_won_black)) in (1..).zip(&pairs) {
        let mut first = crate::util::game(2 * k - 1, k, "a", "b", a_won_white);
        let mut second = crate::util::game(2 * k, k, "b", "a", !a_won_black);
        for game in [&mut first, &mut second] {
            game.opening = positions[opening - 1].to_string();
            game.opening_id = opening as u64;
        }
        games.extend([first, second]);
    }
    games.push(crate::util::game(11, 6, "a", "b", true));
    let mut writer = bt_arena::records::ResultsWriter::open(dir, Rules::CaptureOnly).unwrap();
    for game in &games {
        writer.append(game).unwrap();
    }
}

/// The exact table of made-up games: per opening its games, pairs, first player's score,
/// LL / 1-1 / WW, colour decided and p; the book's 1-1 share, RMS bias and prune list.
#[test]
fn check_runs_gives_the_exact_table_of_made_up_games() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("three.epd"), THREE).unwrap();
    made_up_run(&dir.path().join("run"));
    let check = "openings check three.epd --search-depth 1 --runs run";
    let output = in_dir(dir.path(), check);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let games = &text[text.find("\nOpenings:").unwrap() + 1..];
    // The RMS bias of pairs [0, 0, 3, 0, 2] and their games [3, 0, 7] by fishtest's stats
    // page (fishtest at commit b8eecff2, run with Python): var3 - var5_per_game =
    // 0.08977722150973896, rms 0.2996284724617121, +240.42089625615316 Elo.
    let expected = "\
Openings: 2 played, 10 games, 5 pairs; 1-1 (colour decided) 3 of 5 pairs (60.0%); RMS bias 0.300 (+240.4 Elo); prune 1 (first player's score away from 1/2, p <= 0.05)
1 game from positions not in the book, not counted
    id  games pairs first  score    LL   1-1    WW decided        p  opening
     1      6     3 Black   0.0%     0     3     0     yes   0.0313  pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b  prune
     2      4     2 White  50.0%     0     0     2      no   1.0000  pppppppp/1ppppppp/p7/8/8/P7/1PPPPPPP/PPPPPPPP w
     3      0     0 Black      -     0     0     0       -   1.0000  pppppppp/pppppppp/8/8/8/1P6/P1PPPPPP/PPPPPPPP b
";
    assert_eq!(games, expected);
    assert!(
        stderr(&output).contains("warning: 1 game of run from positions not in three.epd"),
        "{}",
        stderr(&output)
    );
    let output = in_dir(dir.path(), &format!("{check} --json"));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let games = &json["games"];
    assert_eq!(games["prune"], serde_json::json!([1]));
    assert_eq!(games["one_one_share"], 0.6);
    let rms = games["rms_bias"].as_f64().unwrap();
    assert!((rms - 0.299_628_472_461_712_1).abs() < 1e-12, "{rms}");
    assert_eq!(games["openings"][0]["first_player"], "Black");
    assert_eq!(games["openings"].as_array().unwrap().len(), 3);
}

/// A run directory that is none, a path that does not exist, a book that is garbage: each an
/// error naming it, exit 4, nothing printed on stdout.
#[test]
fn check_runs_refuses_what_is_no_run_and_a_garbage_book() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("three.epd"), THREE).unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("garbage.epd"), "pppppppp/pppppppp 0-1\n").unwrap();
    made_up_run(&dir.path().join("run"));
    for (command, message) in [
        (
            "openings check three.epd --runs empty",
            "error: --runs empty: empty holds no games.csv and no shard directories\n",
        ),
        (
            "openings check three.epd --runs run missing",
            "error: --runs missing: no such run directory or games file\n",
        ),
        (
            "openings check garbage.epd --runs run",
            "error: opening book garbage.epd line 1: ",
        ),
    ] {
        let output = in_dir(dir.path(), command);
        assert_eq!(output.status.code(), Some(4), "{command}");
        assert!(
            stderr(&output).starts_with(message),
            "{command}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "", "{command}");
    }
}
