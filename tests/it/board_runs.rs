//! Runs of every kind on a board other than 8×8 (`--board RxC`): a 6×6 tournament between two
//! settings of bt-search (every game replayed by the rules from games.csv and from the PGN,
//! the board in config.json, run.json, summary.json and the PGN tags), books of a size
//! (`openings generate --board`) and a book of another size refused, a datagen run on 5×5, a
//! tune on 7×7, a selection on 5×5, a 6×6 tournament against Fairy-Stockfish's 6×6 variant,
//! and the refusals: a bad `--board`, `--board` with `--resume`, a shard of another board.

use bt_arena::datagen::formats::games::EntryReader;
use bt_arena::openings::Book;
use bt_arena::records::pgn::read_pgn;
use bt_arena::records::{GameRecord, read_games};
use bt_arena::rules::{Board, Position, Rules};
use std::path::Path;

use crate::util::{SEARCH, bt_arena, fairy_stockfish, path, stderr, words};

fn board(text: &str) -> Board {
    text.parse().expect("a board")
}

fn json(file: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    serde_json::from_str(&text).expect("JSON")
}

/// `openings generate --board BOARD` of `count` openings of 4 plies, seed 1, into `out`.
fn generate(board: &str, count: u32, out: &Path) {
    let output = bt_arena(&words(
        &format!("openings generate --board {board} --plies 4 --count {count} --seed 1"),
        &["--out", path(out)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// Replays `game` by `rules` from its opening, which must be a position of `board`: every move
/// legal, the last one ending the game with the recorded winner, the termination the rules'.
fn assert_replays(game: &GameRecord, rules: Rules, board: Board) {
    let mut position = Position::from_fen(&game.opening, board)
        .unwrap_or_else(|e| panic!("game {}: opening {}: {e}", game.game_id, game.opening));
    for mv in game.moves.split_whitespace() {
        assert_eq!(
            position.outcome(rules),
            None,
            "game {} over early",
            game.game_id
        );
        position = position
            .play(rules, mv.parse().expect("a move"))
            .unwrap_or_else(|err| panic!("game {}: {err}", game.game_id));
    }
    let outcome = position
        .outcome(rules)
        .unwrap_or_else(|| panic!("game {} ended by {}", game.game_id, game.termination));
    assert_eq!(
        game.result.winner(),
        outcome.winner,
        "game {}",
        game.game_id
    );
    assert_eq!(
        game.termination,
        bt_arena::records::Termination::from(outcome.reason),
        "game {}",
        game.game_id
    );
    assert_eq!(game.plies as usize, game.moves.split_whitespace().count());
}

/// The games of games.csv and games.pgn in `run`, which must be the same games: ids, engines,
/// openings, moves, results and terminations.
fn games_of_both(run: &Path) -> Vec<GameRecord> {
    let csv = read_games(&run.join("games.csv")).expect("games.csv");
    let pgn = read_pgn(&run.join("games.pgn")).expect("games.pgn").games;
    assert_eq!(csv.len(), pgn.len());
    for (a, b) in csv.iter().zip(&pgn) {
        let key = |g: &GameRecord| {
            (
                g.game_id,
                g.white.clone(),
                g.black.clone(),
                g.opening.clone(),
                g.moves.clone(),
                g.result,
                g.termination,
            )
        };
        assert_eq!(key(a), key(b));
    }
    csv
}

#[test]
fn a_6x6_tournament_of_two_bt_search_settings_is_played_and_recorded_on_6x6() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("6x6.epd");
    generate("6x6", 10, &book);
    let six = board("6x6");
    let text = std::fs::read_to_string(&book).unwrap();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("# 10 openings under capture-only rules on the 6x6 board: 4 random plies"),
        "{text}"
    );
    let loaded = Book::load(&book, Rules::CaptureOnly, six).expect("a 6x6 book");
    assert_eq!(loaded.openings.len(), 10);
    assert!(loaded.openings.iter().all(|o| o.position.board() == six));

    let run = dir.path().join("run");
    let output = bt_arena(&words(
        &format!(
            "tournament --board 6x6 --engine cmd={SEARCH} name=full --engine cmd={SEARCH} \
             name=material option.Eval=material --each depth=2 --rounds 3 --seed 4 --log"
        ),
        &[
            "--openings",
            &format!("file={}", path(&book)),
            "--out",
            path(&run),
        ],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.starts_with(
            "Playing 6 games: 2 engines, 3 rounds, capture-only rules on 6x6, 1 at a time;"
        ),
        "{out}"
    );

    let games = games_of_both(&run);
    assert_eq!(games.len(), 6);
    let openings: Vec<Position> = loaded.openings.iter().map(|o| o.position).collect();
    for game in &games {
        assert_replays(game, Rules::CaptureOnly, six);
        // The book's first openings, in order, a game pair each.
        let pair = usize::try_from(game.pair).unwrap();
        assert_eq!(game.opening, openings[pair - 1].to_string());
    }

    // The PGN says the board, and the goal rank is the board's.
    let pgn = std::fs::read_to_string(run.join("games.pgn")).unwrap();
    assert_eq!(
        pgn.matches(
            "[Variant \"breakthrough-capture-only-6x6\"]\n[Board \"6x6\"]\n[SetUp \"1\"]\n[FEN \""
        )
        .count(),
        6,
        "{pgn}"
    );
    for game in &games {
        let fen = format!("[FEN \"{} - - 0 1\"]", game.opening);
        assert!(pgn.contains(&fen), "{fen}");
    }
    let goals = pgn.matches("{goal-rank: White reaches rank 6}").count()
        + pgn.matches("{goal-rank: Black reaches rank 1}").count();
    let by_goal = games
        .iter()
        .filter(|g| g.termination == bt_arena::records::Termination::GoalRank)
        .count();
    assert_eq!(goals, by_goal);
    assert!(!pgn.contains("reaches rank 8"));

    // Each engine was told the board (bt-search declares a Board option).
    for name in ["full", "material"] {
        let log = std::fs::read_to_string(run.join(format!("logs/{name}-0.log"))).unwrap();
        assert_eq!(
            log.matches(&format!("{name} > setoption name Board value 6x6\n"))
                .count(),
            1,
            "{log}"
        );
    }

    // The board in the run's files.
    assert_eq!(json(&run.join("config.json"))["board"], "6x6");
    assert_eq!(json(&run.join("run.json"))["board"], "6x6");
    let summary = json(&run.join("summary.json"));
    assert_eq!(summary["board"], "6x6");
    assert_eq!(summary["games"], 6);
    assert_eq!(summary.get("boards"), None);
    let report = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        report.contains("\"ranks\":6,\"files\":6"),
        "the viewer's games"
    );

    // `elo` reads the PGN back at its size.
    let output = bt_arena(&["elo", "--json", path(&run.join("games.pgn"))]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let read: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(read["board"], "6x6");
    assert_eq!(read["games"], 6);
}

#[test]
fn an_8x8_run_names_no_board_in_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = bt_arena(&words(
        &format!(
            "tournament --engine cmd={SEARCH} name=a --engine cmd={SEARCH} name=b --each depth=1"
        ),
        &["--out", path(&run)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for file in ["config.json", "run.json", "summary.json"] {
        assert_eq!(json(&run.join(file)).get("board"), None, "{file}");
    }
    let pgn = std::fs::read_to_string(run.join("games.pgn")).unwrap();
    assert!(!pgn.contains("[Board "), "{pgn}");
    assert_eq!(
        pgn.matches("[Variant \"breakthrough-capture-only\"]")
            .count(),
        2
    );
}

#[test]
fn a_book_of_another_board_is_refused_naming_both_the_file_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("6x6.epd");
    generate("6x6", 3, &book);
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("openings/capture-only.epd");
    // The shipped 8x8 book on 6x6; the 6x6 book on 8x8; an 8x8 line in a 6x6 book.
    let mixed = dir.path().join("mixed.epd");
    let mut text = std::fs::read_to_string(&book).unwrap();
    text.push_str("pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w\n");
    std::fs::write(&mixed, text).unwrap();
    let cases: [(&str, &Path, usize, &str, &str); 3] = [
        ("--board 6x6", &shipped, 4, "8x8", "6x6"),
        ("", &book, 4, "6x6", "8x8"),
        ("--board 6x6", &mixed, 7, "8x8", "6x6"),
    ];
    for (flag, file, line, found, run_board) in cases {
        let run = dir.path().join("run");
        let output = bt_arena(&words(
            &format!("tournament {flag} --engine cmd={SEARCH} name=a --engine cmd={SEARCH} name=b"),
            &[
                "--openings",
                &format!("file={}", path(file)),
                "--out",
                path(&run),
            ],
        ));
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        assert_eq!(
            stderr(&output),
            format!(
                "error: opening book {} line {line} is a position of the {found} board, not \
                 of {run_board} (--board): give a book of {run_board} positions (bt-arena \
                 openings generate --board {run_board} writes one), or --board {found}\n",
                file.display()
            )
        );
        assert!(!run.exists(), "no run directory");
    }
    // The shipped book (`--openings` without file=) is of 8x8.
    let output = bt_arena(&words(
        &format!(
            "tournament --board 6x6 --engine cmd={SEARCH} name=a --engine cmd={SEARCH} name=b"
        ),
        &["--openings", "order=random"],
    ));
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "error: --openings without file= takes the shipped book, which is of the 8x8 board, and \
         this run plays on 6x6: give file= a book of 6x6 positions (bt-arena openings generate \
         --board 6x6 writes one)\n"
    );
    // `openings check` reads a book at the board given.
    let output = bt_arena(&["openings", "check", "--board", "6x6", path(&book)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = bt_arena(&["openings", "check", path(&book)]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("line 4 is a position of the 6x6 board, not of 8x8 (--board)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_bad_board_is_refused_on_every_run_command() {
    let cases = [
        (
            "9x9",
            "a board of 9 ranks is not supported: ranks and files go from 4 to 8",
        ),
        (
            "3x8",
            "a board of 3 ranks is not supported: ranks and files go from 4 to 8",
        ),
        (
            "8",
            "bad board size '8': expected RANKSxFILES, e.g. 6x6 or 6x5 (each 4 to 8)",
        ),
    ];
    for command in [
        "tournament",
        "tune",
        "datagen",
        "select",
        "openings generate",
        "openings build",
    ] {
        for (given, why) in cases {
            let output = bt_arena(&words(&format!("{command} --board {given}"), &[]));
            assert_eq!(output.status.code(), Some(3), "{command} {given}");
            assert_eq!(
                stderr(&output),
                format!(
                    "error: invalid value '{given}' for '--board <RxC>': {why}\n\nFor more \
                     information, try '--help'.\n"
                ),
                "{command}"
            );
        }
    }
}

#[test]
fn a_run_keeps_its_board_on_resume_and_a_shard_of_another_board_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let command = format!(
        "tournament --engine cmd={SEARCH} name=a --engine cmd={SEARCH} name=b --each depth=1 \
         --rounds 2 --seed 3"
    );
    let output = bt_arena(&words(
        &format!("{command} --board 5x5"),
        &["--out", path(&run)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let before = std::fs::read(run.join("games.csv")).unwrap();
    for given in ["8x8", "5x5"] {
        let output = bt_arena(&["tournament", "--resume", path(&run), "--board", given]);
        assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
        assert_eq!(
            stderr(&output),
            format!(
                "error: --board {given} cannot be given with --resume: the run in {} plays on \
                 5x5 as saved in {}, and a run keeps its board (start a new run for another \
                 board)\n",
                run.display(),
                run.join("config.json").display()
            )
        );
    }
    // A resume without --board plays on 5x5 (nothing left: the run is complete).
    let output = bt_arena(&["tournament", "--resume", path(&run)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(std::fs::read(run.join("games.csv")).unwrap(), before);

    // Shards of one run: shard 1 on another board is refused before it plays.
    let sharded = dir.path().join("sharded");
    let shard = |board: &str, k: u32| {
        bt_arena(&words(
            &format!("{command} --board {board} --shard {k}/2"),
            &["--out", path(&sharded)],
        ))
    };
    let output = shard("6x6", 0);
    assert_eq!(output.status.code(), Some(5), "{}", stderr(&output));
    let output = shard("5x5", 1);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "error: shard 1/2 cannot join the run in {}: {} was saved with other settings: \
             field `board` is \"6x6\" there, \"5x5\" here. The shards or workers of one run \
             must be started with the same settings; to start another run, choose another \
             --out or remove that run's files from {0}\n",
            sharded.display(),
            sharded.join("identity.json").display()
        )
    );
    assert!(!sharded.join("shard-1").exists(), "nothing written");
}

#[test]
fn a_datagen_run_on_5x5_writes_its_board_in_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let output = bt_arena(&words(
        &format!(
            "datagen --board 5x5 --engine cmd={SEARCH} nodes=100 --games 4 --seed 2 \
             --random-plies 2-4 --text"
        ),
        &["--out", path(&run)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let five = board("5x5");
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("capture-only rules on 5x5"), "{out}");
    assert_eq!(json(&run.join("datagen.json"))["board"], "5x5");
    assert_eq!(json(&run.join("run.json"))["board"], "5x5");
    // games.dat: the board in its header (bytes 10 and 11), every game replayed on 5x5.
    let bytes = std::fs::read(run.join("games.dat")).unwrap();
    assert_eq!(&bytes[8..16], &[1, 0, 5, 5, 0, 0, 0, 0]);
    let reader = EntryReader::open(&run.join("games.dat")).unwrap();
    assert_eq!(reader.board(), five);
    let games: Vec<_> = reader.map(|g| g.expect("a good game")).collect();
    assert_eq!(games.len(), 4);
    let mut positions = 0;
    for game in &games {
        assert_eq!(game.start.board(), five);
        positions += game.positions().count();
    }
    // positions.txt: FENs of 5x5, one per binary record.
    let text = std::fs::read_to_string(run.join("positions.txt")).unwrap();
    let binary = std::fs::metadata(run.join("positions.bin")).unwrap().len();
    assert_eq!(text.lines().count() as u64, binary / 24);
    assert!(text.lines().count() > 0 && text.lines().count() <= positions);
    for line in text.lines() {
        let fen = line.split(" | ").next().unwrap();
        assert_eq!(
            Position::from_fen(fen, five).map(|p| p.board()),
            Ok(five),
            "{line}"
        );
    }
    // games.csv: every game replayed on 5x5.
    for game in read_games(&run.join("games.csv")).unwrap() {
        assert_replays(&game, Rules::CaptureOnly, five);
    }
    // A games file of another board is refused by convert, naming both.
    let other = dir.path().join("other");
    let output = bt_arena(&words(
        &format!("datagen --engine cmd={SEARCH} nodes=100 --games 1 --seed 2"),
        &["--out", path(&other)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let merged = dir.path().join("merged.txt");
    let output = bt_arena(&[
        "datagen",
        "convert",
        path(&run.join("games.dat")),
        path(&other.join("games.dat")),
        "--format",
        "text",
        "--out",
        path(&merged),
    ]);
    assert_ne!(output.status.code(), Some(0));
    assert!(
        stderr(&output).contains(&format!(
            "{} holds games of the 8x8 board, {} of 5x5",
            other.join("games.dat").display(),
            run.join("games.dat").display()
        )),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_tune_on_7x7_plays_its_games_on_7x7() {
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("params.csv");
    std::fs::write(&params, "Tempo,10,-20,40,3,0.002\n").unwrap();
    let run = dir.path().join("tune");
    let output = bt_arena(&words(
        &format!(
            "tune --board 7x7 --engine cmd={SEARCH} depth=1 --iterations 2 --pairs 1 --seed 17"
        ),
        &["--params", path(&params), "--out", path(&run)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("capture-only rules on 7x7"), "{out}");
    assert_eq!(json(&run.join("tune.json"))["board"], "7x7");
    let games = games_of_both(&run);
    assert_eq!(games.len(), 4);
    for game in &games {
        assert_replays(game, Rules::CaptureOnly, board("7x7"));
        assert_eq!(game.opening, Position::start(board("7x7")).to_string());
    }
}

#[test]
fn a_selection_on_5x5_plays_its_games_on_5x5() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("5x5.epd");
    generate("5x5", 6, &book);
    let run = dir.path().join("select");
    let output = bt_arena(&words(
        &format!(
            "select --board 5x5 --engine cmd={SEARCH} name=base depth=1 --engine cmd={SEARCH} \
             name=a depth=2 --engine cmd={SEARCH} name=b depth=3 --base base --budget 12 \
             --indifference 50 --confidence 0.9 --seed 3"
        ),
        &[
            "--openings",
            &format!("file={}", path(&book)),
            "--out",
            path(&run),
        ],
    ));
    assert!(
        matches!(output.status.code(), Some(0..=2)),
        "{}",
        stderr(&output)
    );
    assert_eq!(json(&run.join("select.json"))["board"], "5x5");
    assert_eq!(json(&run.join("run.json"))["board"], "5x5");
    let games = read_games(&run.join("games.csv")).unwrap();
    assert!(!games.is_empty());
    for game in &games {
        assert_replays(game, Rules::CaptureOnly, board("5x5"));
    }
}

#[test]
fn a_book_built_on_5x5_is_a_book_of_5x5() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("build");
    let output = bt_arena(&words(
        &format!(
            "openings build --board 5x5 --engine cmd={SEARCH} nodes=100 name=a --engine \
             cmd={SEARCH} nodes=300 name=b --count 2 --plies 2-3 --seed 11"
        ),
        &["--out", path(&run)],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let five = board("5x5");
    assert_eq!(json(&run.join("build.json"))["board"], "5x5");
    let text = std::fs::read_to_string(run.join("book.epd")).unwrap();
    assert!(
        text.starts_with(
            "# bt-arena openings build, seed 11, capture-only rules on the 5x5 board: "
        ),
        "{text}"
    );
    let book = Book::load(&run.join("book.epd"), Rules::CaptureOnly, five).expect("a 5x5 book");
    assert_eq!(book.openings.len(), 2);
    for game in read_games(&run.join("games.csv")).unwrap() {
        assert_replays(&game, Rules::CaptureOnly, five);
    }
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn a_6x6_tournament_against_fairy_stockfish_breakthrough_6x6() {
    let variants = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/engines/fairy-stockfish/variants.ini"
    );
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("6x6.epd");
    generate("6x6", 4, &book);
    let run = dir.path().join("run");
    let fsf = fairy_stockfish();
    let output = bt_arena(&words(
        &format!(
            "tournament --board 6x6 --rules classic --engine cmd={} name=fsf proto=uci \
             depth=3 option.VariantPath={variants} option.UCI_Variant=breakthrough-6x6 \
             --engine cmd={SEARCH} name=search depth=3 --rounds 2 --seed 1",
            fsf.display()
        ),
        &[
            "--openings",
            &format!("file={}", path(&book)),
            "--out",
            path(&run),
        ],
    ));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = games_of_both(&run);
    assert_eq!(games.len(), 4);
    for game in &games {
        assert_replays(game, Rules::Classic, board("6x6"));
    }
    let pgn = std::fs::read_to_string(run.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Variant \"breakthrough-6x6\"]").count(), 4);
    assert_eq!(json(&run.join("summary.json"))["board"], "6x6");
}
