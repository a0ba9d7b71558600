//! Resign and proof adjudication end to end: `bt-arena tournament --resign ... --adjudicate
//! proof=PLIES` with the bundled engines, from the command line and from a config file.

use bt_arena::protocol::Score;
use bt_arena::records::moves::decode_column;
use bt_arena::records::pgn::read_pgn;
use bt_arena::records::{GameRecord, Termination, read_games};
use bt_arena::rules::proof::{DEFAULT_BUDGET, Prover, Verdict};
use bt_arena::rules::{Color, Move, Position, Rules};
use std::path::Path;
use std::process::Output;

use crate::util::{bt_arena, deterministic, stdout};

const SEARCH: &str = env!("CARGO_BIN_EXE_bt-search");
const RANDOM: &str = env!("CARGO_BIN_EXE_bt-random");

/// `text` split into arguments, then `--out out`.
fn args(text: &str, out: &Path) -> Vec<String> {
    let mut args: Vec<String> = text.split_whitespace().map(String::from).collect();
    args.extend(["--out".to_string(), out.display().to_string()]);
    args
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The position a recorded game ended in, its moves replayed with the rules.
fn last_position(game: &GameRecord, rules: Rules) -> Position {
    let mut position: Position = game.opening.parse().unwrap();
    for mv in game.moves.split_whitespace() {
        position = position
            .play(rules, mv.parse().unwrap())
            .unwrap_or_else(|e| panic!("game {}: {e}", game.game_id));
    }
    position
}

/// The final comment of each game of a games.pgn, in file order: `{proof: ...}`.
fn final_comments(pgn: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(pgn).unwrap();
    text.split("[Event ")
        .skip(1)
        .map(|game| {
            let start = game.rfind('{').expect("a final comment");
            let end = start + game[start..].find('}').expect("a closed comment");
            game[start + 1..end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The summary.json of a run, parsed.
fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn proof_adjudication_ends_games_with_a_line_the_rules_confirm() {
    for rules in Rules::ALL {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let flags = format!(
            "tournament --engine cmd={SEARCH} name=search depth=2 --engine cmd={RANDOM} \
             name=random depth=1 --rounds 4 --seed 3 --rules {rules} --adjudicate proof=5"
        );
        let output = bt_arena(&args(&flags, &out));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("Adjudication: --adjudicate proof=5\n"),
            "{stdout}"
        );
        let games = read_games(&out.join("games.csv")).unwrap();
        assert_eq!(games.len(), 8);
        let comments = final_comments(&out.join("games.pgn"));
        let mut proofs = 0;
        for (game, comment) in games.iter().zip(&comments) {
            // Neither late nor missed: a prover of the run's budget, asked after every move
            // as the game's own is, proves no earlier position of any game.
            let first_proof = first_proven_ply(game, rules, 5, DEFAULT_BUDGET);
            let last = game.plies as usize - 1;
            match game.termination {
                Termination::Proof => {
                    assert_eq!(
                        first_proof,
                        Some(last),
                        "game {}: {}",
                        game.game_id,
                        game.moves
                    )
                }
                _ => assert_eq!(first_proof, None, "game {}: {}", game.game_id, game.moves),
            }
            let position = last_position(game, rules);
            if game.termination != Termination::Proof {
                assert!(position.outcome(rules).is_some(), "game {}", game.game_id);
                continue;
            }
            proofs += 1;
            // The game stopped before the rules ended it, at a position the rules prove.
            assert!(position.outcome(rules).is_none());
            let winner = game.result.winner();
            let verdict = Prover::new(rules, u64::MAX).prove(&position, 5);
            let line = verdict.line().expect("a proven position");
            assert_eq!(line.winner, winner, "game {}", game.game_id);
            assert_eq!(*comment, format!("proof: {line}"), "game {}", game.game_id);
            // The comment's line is legal from the last position and ends in the winner's win.
            let (_, moves) = comment
                .split_once("plies: ")
                .or(comment.split_once("ply: "))
                .unwrap();
            let mut at = position;
            for mv in moves.split(' ') {
                at = at.play(rules, mv.parse::<Move>().unwrap()).unwrap();
            }
            assert_eq!(at.outcome(rules).map(|o| o.winner), Some(winner));
            assert!(line.plies <= 5);
            if matches!(verdict, Verdict::Win(_)) {
                assert_eq!(position.side_to_move(), winner);
            }
        }
        assert!(proofs >= 4, "{rules}: {proofs} proofs of 8 games");
        let summary = summary(&out);
        assert_eq!(summary["adjudicated"]["proof"], proofs);
        assert_eq!(summary["adjudicated"]["resign"], 0);
        // Read back from the PGN, the games end the same way.
        let read = read_pgn(&out.join("games.pgn")).unwrap();
        let terminations: Vec<Termination> = read.games.iter().map(|g| g.termination).collect();
        let written: Vec<Termination> = games.iter().map(|g| g.termination).collect();
        assert_eq!(terminations, written);
        let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
        assert_eq!(
            pgn.matches("[Termination \"adjudication\"]").count(),
            proofs
        );
        // The terminations table: a `proof` column, and each engine's wins / losses by proof.
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        let table = terminations_table(&html);
        let column = table[0]
            .iter()
            .position(|name| name == "proof")
            .unwrap_or_else(|| panic!("no proof column: {table:?}"));
        for name in ["search", "random"] {
            let by_proof = games.iter().filter(|g| g.termination == Termination::Proof);
            let wins = by_proof.clone().filter(|g| winner_name(g) == name).count();
            let losses = by_proof.count() - wins;
            let row = table
                .iter()
                .find(|row| row[0] == name)
                .unwrap_or_else(|| panic!("no row for {name}: {table:?}"));
            assert_eq!(
                row[column],
                format!("{wins} / {losses}"),
                "{name}: {table:?}"
            );
        }
    }
}

/// The name of the engine that won `game`.
fn winner_name(game: &GameRecord) -> &str {
    match game.result.winner() {
        Color::White => &game.white,
        Color::Black => &game.black,
    }
}

/// The ply (from 0) after which a prover of `budget` nodes, asked after every move of `game`
/// for a proof within `plies` plies as proof adjudication asks (one prover for the game, the
/// positions the rules end left out), first proves a result; `None` if it never does.
fn first_proven_ply(game: &GameRecord, rules: Rules, plies: u32, budget: u64) -> Option<usize> {
    let mut prover = Prover::new(rules, budget);
    let mut position: Position = game.opening.parse().unwrap();
    for (ply, mv) in game.moves.split_whitespace().enumerate() {
        position = position.play(rules, mv.parse().unwrap()).unwrap();
        if position.outcome(rules).is_none() && prover.prove(&position, plies).line().is_some() {
            return Some(ply);
        }
    }
    None
}

/// The rows of report.html's terminations table, cells as text, the header first.
fn terminations_table(html: &str) -> Vec<Vec<String>> {
    let start = html
        .find("<section id=\"terminations\">")
        .expect("a terminations section");
    let section = &html[start..];
    let section = &section[..section.find("</table>").expect("a table")];
    section
        .split("<tr>")
        .skip(1)
        .map(|row| {
            row.split(['<', '>'])
                .collect::<Vec<_>>()
                .windows(2)
                .filter(|pair| pair[0].starts_with("td") || pair[0].starts_with("th"))
                // Names are set apart by Unicode isolates (U+2068 ... U+2069); `/` is escaped.
                .map(|pair| {
                    pair[1]
                        .trim()
                        .trim_matches(['\u{2068}', '\u{2069}'])
                        .replace("&#x2f;", "/")
                })
                .collect()
        })
        .collect()
}

/// The scores `side` reported for its moves of `game`, in order (`None` for a move without one).
fn scores_of(game: &GameRecord, side: Color) -> Vec<Option<Score>> {
    let first: Position = game.opening.parse().unwrap();
    let offset = usize::from(first.side_to_move() != side);
    decode_column(&game.move_info)
        .unwrap()
        .into_iter()
        .skip(offset)
        .step_by(2)
        .map(|info| info.score)
        .collect()
}

/// True when `score` is `-cp` or worse for the mover (a mate against it included).
fn losing(score: Option<Score>, cp: i32) -> bool {
    match score {
        Some(Score::Cp(value)) => value <= -cp,
        Some(Score::Mate(moves)) => moves <= 0,
        None => false,
    }
}

/// The first ply (from 0) of `game` after which a side's engine has scored `-cp` or worse for
/// `movecount` of its own moves in a row (a move without a score breaks the run), and that
/// side; `None` when no side ever has.
fn first_resignation(game: &GameRecord, movecount: usize, cp: i32) -> Option<(usize, Color)> {
    let first: Position = game.opening.parse().unwrap();
    let infos = decode_column(&game.move_info).unwrap();
    assert_eq!(infos.len(), game.plies as usize, "game {}", game.game_id);
    let mut run = [0, 0];
    for (ply, info) in infos.iter().enumerate() {
        let mover = if ply % 2 == 0 {
            first.side_to_move()
        } else {
            first.side_to_move().opponent()
        };
        let side = usize::from(mover == Color::Black);
        run[side] = if losing(info.score, cp) {
            run[side] + 1
        } else {
            0
        };
        if run[side] >= movecount {
            return Some((ply, mover));
        }
    }
    None
}

#[test]
fn resign_adjudication_ends_games_on_the_losers_own_scores() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let flags = format!("{} --resign movecount=2,score=300", deterministic(4));
    let output = bt_arena(&args(&flags, &out));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let games = read_games(&out.join("games.csv")).unwrap();
    let comments = final_comments(&out.join("games.pgn"));
    let mut resigned = 0;
    for (game, comment) in games.iter().zip(&comments) {
        // None missed, none early: the game ends at the first move after which a side has
        // scored -300 or worse on 2 moves of its own in a row (by the rules at that move when
        // they end it there), and goes on to the rules' end if no side ever has.
        let last = game.plies as usize - 1;
        match (game.termination, first_resignation(game, 2, 300)) {
            (Termination::Resign, point) => {
                let loser = game.result.winner().opponent();
                assert_eq!(point, Some((last, loser)), "game {}", game.game_id);
            }
            (_, Some((ply, side))) => assert_eq!(
                ply, last,
                "game {}: {side}'s resignation after ply {ply} was missed",
                game.game_id
            ),
            (_, None) => {}
        }
        let position = last_position(game, Rules::CaptureOnly);
        if game.termination != Termination::Resign {
            assert!(position.outcome(Rules::CaptureOnly).is_some());
            continue;
        }
        resigned += 1;
        let loser = game.result.winner().opponent();
        let scores = scores_of(game, loser);
        // The loser's last two scores are -300 or worse, and the one before is not (else it
        // would have resigned a move earlier).
        let n = scores.len();
        assert!(
            losing(scores[n - 1], 300) && losing(scores[n - 2], 300),
            "{scores:?}"
        );
        assert!(n < 3 || !losing(scores[n - 3], 300), "{scores:?}");
        assert_eq!(
            *comment,
            format!("resign: {loser} resigns: -3.00 or worse for 2 moves")
        );
    }
    assert!(resigned >= 2, "{resigned} resignations of {}", games.len());
    assert_eq!(summary(&out)["adjudicated"]["resign"], resigned);
    let read = read_pgn(&out.join("games.pgn")).unwrap();
    let back: Vec<Termination> = read.games.iter().map(|g| g.termination).collect();
    let written: Vec<Termination> = games.iter().map(|g| g.termination).collect();
    assert_eq!(back, written);

    // Without adjudication the same games go on to the rules' end.
    let plain = dir.path().join("plain");
    let output = bt_arena(&args(&deterministic(4), &plain));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let full = read_games(&plain.join("games.csv")).unwrap();
    assert!(full.iter().all(|g| !g.termination.is_adjudication()));
    for (short, long) in games.iter().zip(&full) {
        assert!(
            long.moves.starts_with(&short.moves),
            "game {}",
            short.game_id
        );
    }
    let config = std::fs::read_to_string(plain.join("config.json")).unwrap();
    assert!(!config.contains("adjudication"), "{config}");
}

#[test]
fn a_config_file_sets_both_rules_and_a_resumed_run_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("run.toml");
    std::fs::write(
        &config,
        format!(
            "rounds = 3\nseed = 5\n\
             [adjudication]\n\
             resign = {{ movecount = 2, score = 100, twosided = true }}\n\
             proof = {{ plies = 3, nodes = 5000 }}\n\
             [[engines]]\nname = \"full\"\ncmd = \"{SEARCH}\"\nlimit = {{ depth = 2 }}\n\
             [[engines]]\nname = \"material\"\ncmd = \"{SEARCH}\"\nlimit = {{ depth = 2 }}\n\
             options = {{ Eval = \"material\" }}\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("run");
    let flags = format!("tournament --config {}", config.display());
    let output = bt_arena(&args(&flags, &out));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "Adjudication: --adjudicate proof=3,nodes=5000, --resign \
             movecount=2,score=100,twosided=true\n"
        ),
        "{stdout}"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("config.json")).unwrap()).unwrap();
    assert_eq!(
        saved["adjudication"],
        serde_json::json!({
            "resign": {"movecount": 2, "score": 100, "twosided": true},
            "proof": {"plies": 3, "nodes": 5000}
        })
    );
    let games = read_games(&out.join("games.csv")).unwrap();
    assert_eq!(games.len(), 6);
    for game in &games {
        if game.termination == Termination::Resign {
            // Two-sided: the winner's last two scores agree.
            let scores = scores_of(game, game.result.winner());
            let agree = |s: Option<Score>| match s {
                Some(Score::Cp(cp)) => cp >= 100,
                Some(Score::Mate(moves)) => moves > 0,
                None => false,
            };
            let n = scores.len();
            assert!(agree(scores[n - 1]) && agree(scores[n - 2]), "{scores:?}");
        }
    }
    // Both rules ended games (the two-sided check above ran).
    let ended_by = |termination| {
        games
            .iter()
            .filter(|g| g.termination == termination)
            .count()
    };
    assert!(
        ended_by(Termination::Resign) >= 1 && ended_by(Termination::Proof) >= 1,
        "{} resigned, {} proven",
        ended_by(Termination::Resign),
        ended_by(Termination::Proof)
    );

    // A resumed run reads the rules back from config.json and plays on with them.
    let kept: Vec<String> = std::fs::read_to_string(out.join("games.csv"))
        .unwrap()
        .lines()
        .take(3)
        .map(String::from)
        .collect();
    std::fs::write(out.join("games.csv"), format!("{}\n", kept.join("\n"))).unwrap();
    let kept_ids: Vec<u64> = read_games(&out.join("games.csv"))
        .unwrap()
        .iter()
        .map(|g| g.game_id)
        .collect();
    // The games replayed include adjudicated ones: the rules came back from config.json.
    let replayed = |g: &&GameRecord| !kept_ids.contains(&g.game_id);
    assert!(
        games
            .iter()
            .filter(replayed)
            .any(|g| g.termination.is_adjudication()),
        "kept {kept_ids:?}"
    );
    let output = bt_arena(&[
        "tournament".into(),
        "--resume".into(),
        out.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let resumed = read_games(&out.join("games.csv")).unwrap();
    let by_id = |games: &[GameRecord]| {
        let mut list: Vec<(u64, Termination, String)> = games
            .iter()
            .map(|g| (g.game_id, g.termination, g.moves.clone()))
            .collect();
        list.sort_by_key(|g| g.0);
        list
    };
    assert_eq!(by_id(&resumed), by_id(&games));
    assert!(
        resumed
            .iter()
            .filter(replayed)
            .any(|g| g.termination.is_adjudication())
    );
}

#[test]
fn bad_adjudication_values_exit_3_and_name_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    for (flag, message) in [
        (
            "--resign movecount=0,score=500",
            "invalid value 'movecount=0,score=500' for '--resign <movecount=N,score=CP>': \
             `movecount=0`: expected a whole number of moves, at least 1",
        ),
        (
            "--resign movecount=3,score=-500",
            "invalid value 'movecount=3,score=-500' for '--resign <movecount=N,score=CP>': \
             `score=-500`: expected centipawns, at least 1",
        ),
        // See: issue 28 (score=0 resigned every game after one ply, at -0.00).
        (
            "--resign movecount=1,score=0",
            "invalid value 'movecount=1,score=0' for '--resign <movecount=N,score=CP>': \
             `score=0`: expected centipawns, at least 1 (the losing side's score is -score or \
             worse; at 0 or less a side would resign a position its engine scores equal)",
        ),
        (
            "--resign movecount=3",
            "invalid value 'movecount=3' for '--resign <movecount=N,score=CP>': `score=` is \
             missing",
        ),
        (
            "--adjudicate proof=0",
            "invalid value 'proof=0' for '--adjudicate <proof=PLIES[,nodes=N]>': `proof=0`: \
             expected plies, 1 to 63",
        ),
        (
            // See: issue 28 (its memory grew without limit, SIGTERM did not stop it).
            "--adjudicate proof=63,nodes=99999999999999",
            "invalid value 'proof=63,nodes=99999999999999' for '--adjudicate \
             <proof=PLIES[,nodes=N]>': `nodes=99999999999999`: expected a node budget per move, \
             1 to 10000000",
        ),
        (
            "--adjudicate plies=5",
            "invalid value 'plies=5' for '--adjudicate <proof=PLIES[,nodes=N]>': `plies=5` has \
             an unknown key (expected proof, nodes)",
        ),
    ] {
        let flags = format!(
            "tournament --engine cmd={RANDOM} --engine cmd={RANDOM} name=other depth=1 {flag}"
        );
        let output = bt_arena(&args(&flags, &out));
        assert_eq!(output.status.code(), Some(3), "{flag}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(message),
            "{flag}: {}",
            stderr(&output)
        );
        assert!(!out.exists(), "{flag}: nothing is played");
    }
    // One quoted string with spaces is one value.
    let flags =
        format!("tournament --engine cmd={RANDOM} --engine cmd={RANDOM} name=other depth=1");
    let mut quoted = args(&flags, &out);
    quoted.extend(["--resign".into(), "movecount=3 score=500".into()]);
    let output = bt_arena(&quoted);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let saved = std::fs::read_to_string(out.join("config.json")).unwrap();
    assert!(saved.contains("\"movecount\": 3"), "{saved}");
    // In a config file a bad value is a bad file (exit 4, as for the file's other fields).
    let config = dir.path().join("bad.toml");
    std::fs::write(
        &config,
        format!(
            "[adjudication]\nproof = {{ plies = 0 }}\n\
             [[engines]]\ncmd = \"{RANDOM}\"\nname = \"a\"\nlimit = {{ depth = 1 }}\n\
             [[engines]]\ncmd = \"{RANDOM}\"\nname = \"b\"\nlimit = {{ depth = 1 }}\n"
        ),
    )
    .unwrap();
    let flags = format!("tournament --config {}", config.display());
    let output = bt_arena(&args(&flags, &dir.path().join("bad")));
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("bad.toml") && stderr(&output).contains("`proof=0`"),
        "{}",
        stderr(&output)
    );
}

/// The largest proof settings are taken, and played: the longest proof and the largest node
/// budget, from a book of endings (a few pawns, so the games are short). See: issue 28.
#[test]
fn the_largest_proof_settings_are_played() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let book = dir.path().join("endings.epd");
    std::fs::write(&book, "8/p7/4P3/8/8/8/8/8 w\n1p6/8/8/8/8/8/6P1/8 b\n").unwrap();
    let flags = format!(
        "tournament --engine cmd={SEARCH} name=search depth=1 --engine cmd={RANDOM} \
         name=random depth=1 --rounds 2 --seed 3 --openings file={} \
         --adjudicate proof=63,nodes=10000000",
        book.display()
    );
    let output = bt_arena(&args(&flags, &out));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("Adjudication: --adjudicate proof=63,nodes=10000000\n"),
        "{}",
        stdout(&output)
    );
    let games = read_games(&out.join("games.csv")).unwrap();
    assert_eq!(games.len(), 4);
    assert!(
        games.iter().any(|g| g.termination == Termination::Proof),
        "{games:?}"
    );
}
