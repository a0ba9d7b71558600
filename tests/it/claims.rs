//! The engines' claims checked on every move of a tournament (docs/guide/checks.md): bt-faulty's
//! false claims each counted under its kind at the position it was made in, no false alarm
//! from bt-search, the claims table round-tripping through `report`, and `--strict`.

use crate::util::{FAULTY, SEARCH, bt_arena, stderr, stdout};
use bt_arena::records::claims::{ClaimKind, Finding, GameClaims, PvFault};
use bt_arena::records::{GameRecord, read_games};
use bt_arena::rules::proof::{Prover, Verdict};
use bt_arena::rules::{Color, Move, Position, Rules};
use serde_json::Value;
use std::path::Path;

/// Plays `faulty` (bt-faulty with `--fault MODE`) against bt-search at 300 nodes, 2 game pairs
/// with seed 5, into `out`; returns the games and bt-arena's exit code.
fn faulty_against_search(mode: &str, out: &Path, extra: &[&str]) -> (Vec<GameRecord>, i32) {
    faulty_with_args_against_search(&["--fault", mode], out, extra)
}

/// [`faulty_against_search`] with bt-faulty given the arguments `faulty`.
pub(crate) fn faulty_with_args_against_search(
    faulty: &[&str],
    out: &Path,
    extra: &[&str],
) -> (Vec<GameRecord>, i32) {
    let mut args: Vec<String> = [
        "tournament",
        "--engine",
        &format!("cmd={FAULTY}"),
        "name=faulty",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(faulty.iter().map(|arg| format!("arg={arg}")));
    args.extend(
        [
            "--engine",
            &format!("cmd={SEARCH}"),
            "name=search",
            "--each",
            "nodes=300",
            "--rounds",
            "2",
            "--seed",
            "5",
            "--out",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    args.extend(extra.iter().map(|s| s.to_string()));
    let output = bt_arena(&args);
    let code = output.status.code().unwrap_or(-1);
    // Without --strict the exit code is the run's (no SPRT: 0), whatever the engine did.
    assert_eq!(code, 0, "{}", stderr(&output));
    (read_games(&out.join("games.csv")).unwrap(), code)
}

/// The positions of `game` before each of its moves, with the move and its 1-based ply.
fn positions(game: &GameRecord) -> Vec<(u32, Position, Move)> {
    let mut position: Position = game.opening.parse().unwrap();
    let mut list = Vec::new();
    for (i, text) in game.moves.split_whitespace().enumerate() {
        let mv: Move = text.parse().unwrap();
        list.push((i as u32 + 1, position, mv));
        position = position.play_unchecked(mv);
    }
    list
}

/// The side `name` played in `game`.
fn side_of(game: &GameRecord, name: &str) -> Color {
    if game.white == name {
        Color::White
    } else {
        Color::Black
    }
}

/// For each of faulty's moves (ply, position, move) and its findings of `kind`, calls
/// `check`; returns (faulty's moves, findings of `kind`).
fn faulty_findings(
    games: &[GameRecord],
    kind: ClaimKind,
    mut check: impl FnMut(&Position, Move, Option<&Finding>),
) -> (u32, u32) {
    let (mut moves, mut found) = (0, 0);
    for game in games {
        let side = side_of(game, "faulty");
        let claims = GameClaims::decode(&game.claims).unwrap();
        for (ply, position, mv) in positions(game) {
            if position.side_to_move() != side {
                continue;
            }
            moves += 1;
            let finding = claims
                .findings
                .iter()
                .find(|f| f.ply == ply && f.finding.kind() == kind)
                .map(|f| {
                    assert_eq!(f.side, side, "game {} ply {ply}", game.game_id);
                    &f.finding
                });
            found += u32::from(finding.is_some());
            check(&position, mv, finding);
        }
    }
    // `found == moves` must not pass on games in which faulty never moved.
    assert!(moves > 0, "faulty moved in none of {} games", games.len());
    (moves, found)
}

/// summary.json as written by the run, against what is read back from the records: `bt-arena
/// elo --json`'s claims tables must be the written ones, and the page `bt-arena report` writes
/// must count, per engine, the claims checked and found that summary.json counts.
fn claims_round_trip(out: &Path) -> Value {
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let elo = bt_arena(&["elo", "--json", out.to_str().unwrap()]);
    assert_eq!(elo.status.code(), Some(0), "{}", stderr(&elo));
    let read: Value = serde_json::from_str(&stdout(&elo)).unwrap();
    assert_eq!(written["claims"], read["claims"]);
    assert_eq!(written["claim_findings"], read["claim_findings"]);
    let report = bt_arena(&["report", out.to_str().unwrap()]);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    let engines = written["claims"].as_array().unwrap();
    for engine in engines {
        let name = engine["name"].as_str().unwrap();
        let total = |field: &str| -> u64 {
            engine[field]
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum()
        };
        assert_eq!(
            page_claims(&page, name),
            (total("checked"), total("found")),
            "the page's claims of {name}"
        );
    }
    written
}

/// The claims `engine` has on the page's "Claims checked" table: (checked, found), summed over
/// its rows (one per kind of claim).
fn page_claims(page: &str, engine: &str) -> (u64, u64) {
    let table = &page[page.find("id=\"claims\"").expect("a claims section")..];
    let table = &table[..table.find("</table>").unwrap()];
    let start = format!("<tr><td class=\"name\">\u{2068}{engine}\u{2069}</td>");
    let mut sums = (0, 0);
    for row in table.split(start.as_str()).skip(1) {
        let cells: Vec<u64> = row
            .split("<td>")
            .skip(1)
            .map(|cell| cell.split("</td>").next().unwrap())
            .filter_map(|cell| cell.parse().ok())
            .collect();
        sums.0 += cells[0];
        sums.1 += cells[1];
    }
    sums
}

/// The count summary.json gives for `engine`'s `field` (`checked`, `found`) of `kind`.
fn count(summary: &Value, engine: &str, field: &str, kind: &str) -> u64 {
    summary["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == engine)
        .and_then(|e| e[field][kind].as_u64())
        .unwrap_or(0)
}

#[test]
fn an_illegal_pv_is_found_at_its_move_and_only_its_legal_prefix_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let (games, _) = faulty_against_search("illegal-pv", &out, &[]);
    let (moves, found) = faulty_findings(&games, ClaimKind::Pv, |_, mv, finding| {
        // Its PV plays its move twice: the second is illegal, and is that move.
        let expected = Finding::Pv {
            number: 2,
            mv: mv.to_string(),
            fault: PvFault::Illegal,
        };
        assert_eq!(finding, Some(&expected));
    });
    assert_eq!(found, moves);
    let summary = claims_round_trip(&out);
    assert_eq!(count(&summary, "faulty", "found", "pv"), u64::from(moves));
    assert_eq!(count(&summary, "faulty", "checked", "pv"), u64::from(moves));
    assert_eq!(count(&summary, "search", "found", "pv"), 0);
    // games.pgn keeps only the legal prefix: faulty's PV comments hold one move.
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    for game in &games {
        for (_, _, mv) in positions(game) {
            assert!(!pgn.contains(&format!("pv=\"{mv} {mv}\"")), "{mv}");
        }
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("id=\"claims\""));
}

#[test]
fn false_mate_claims_are_refuted_by_the_prover_at_their_positions() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let (games, _) = faulty_against_search("false-mate", &out, &[]);
    let mut prover = Prover::new(Rules::CaptureOnly, 200_000);
    let mut lost = 0;
    let (_, found) = faulty_findings(&games, ClaimKind::Mate, |position, _, finding| {
        // bt-faulty claims `mate 2` exactly where the rules prove it lost within 6 plies.
        let is_lost = matches!(prover.prove(position, 6), Verdict::Loss(_));
        lost += u32::from(is_lost);
        assert_eq!(finding.is_some(), is_lost, "{position}");
        if let Some(finding) = finding {
            assert!(
                matches!(finding, Finding::Mate { claim: 2, .. }),
                "{finding:?}"
            );
        }
    });
    assert!(
        found > 0,
        "no position lost within 6 plies: the test proves nothing"
    );
    assert_eq!(found, lost);
    let summary = claims_round_trip(&out);
    assert_eq!(count(&summary, "faulty", "found", "mate"), u64::from(found));
    assert_eq!(count(&summary, "search", "found", "mate"), 0);
    // The reproduction line runs and says what the claim denies.
    let finding = summary["claim_findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "mate")
        .unwrap();
    let command = finding["reproduce"].as_str().unwrap();
    let fen = command.split('\'').nth(1).unwrap();
    let plies = command.rsplit(' ').next().unwrap();
    let proved = bt_arena(&["prove", "--fen", fen, "--plies", plies]);
    let text = stdout(&proved);
    assert!(
        text.contains("is lost") || text.contains("no forced result"),
        "{text}"
    );
}

#[test]
fn a_claim_of_the_opponents_win_is_refuted_where_it_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let (games, _) = faulty_against_search("opponent-mate", &out, &[]);
    let mut prover = Prover::new(Rules::CaptureOnly, 200_000);
    let (moves, found) = faulty_findings(&games, ClaimKind::Mate, |position, _, finding| {
        let lost_at_once = matches!(prover.prove(position, 2), Verdict::Loss(_));
        assert_eq!(finding.is_some(), !lost_at_once, "{position}");
        if let Some(finding) = finding {
            assert!(
                matches!(finding, Finding::Mate { claim: -1, .. }),
                "{finding:?}"
            );
        }
    });
    assert!(found > 0 && found <= moves);
    let summary = claims_round_trip(&out);
    assert_eq!(count(&summary, "faulty", "found", "mate"), u64::from(found));
}

#[test]
fn an_illegal_ponder_move_is_found_at_its_move() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let (games, _) = faulty_against_search("illegal-ponder", &out, &[]);
    let (moves, found) = faulty_findings(&games, ClaimKind::Ponder, |_, mv, finding| {
        let expected = Finding::Ponder {
            mv: mv.to_string(),
            legal: false,
        };
        assert_eq!(finding, Some(&expected));
    });
    assert_eq!(found, moves);
    let summary = claims_round_trip(&out);
    assert_eq!(
        count(&summary, "faulty", "found", "ponder"),
        u64::from(moves)
    );
    assert_eq!(
        count(&summary, "faulty", "checked", "ponder"),
        u64::from(moves)
    );
}

/// No false alarm: bt-search at several depths and at a node count (its search then stops
/// mid-iteration) makes no claim the checks refute over 108 games.
#[test]
fn bt_search_makes_no_false_claim() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut args: Vec<String> = Vec::new();
    for (name, limit) in [
        ("d1", "depth=1"),
        ("d2", "depth=2"),
        ("d3", "depth=3"),
        ("n300", "nodes=300"),
    ] {
        args.extend(
            [
                "--engine",
                &format!("cmd={SEARCH}"),
                &format!("name={name}"),
                limit,
            ]
            .map(String::from),
        );
    }
    let mut command: Vec<String> = vec!["tournament".into()];
    command.extend(args);
    command.extend(
        [
            "--rounds",
            "9",
            "--concurrency",
            "2",
            "--seed",
            "3",
            "--strict",
            "--out",
        ]
        .map(String::from),
    );
    command.push(out.to_str().unwrap().to_string());
    let output = bt_arena(&command);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let summary = claims_round_trip(&out);
    assert_eq!(summary["games"], 108);
    assert_eq!(summary.get("claim_findings"), None, "{summary:#}");
    let mut mates = 0;
    for engine in summary["claims"].as_array().unwrap() {
        assert_eq!(engine["found"], serde_json::json!({}), "{engine}");
        mates += engine["checked"]["mate"].as_u64().unwrap_or(0);
    }
    assert!(mates >= 20, "only {mates} mate claims checked");
}

/// `--strict`: an SPRT run otherwise clean but for stray lines exits 6 after its verdict;
/// without `--strict` it exits with the verdict (0, H1 accepted); a clean run with
/// `--strict` exits with the verdict too.
#[test]
fn strict_fails_a_run_with_stray_lines_and_keeps_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let run = |faulty: &str, strict: bool, out: &str| {
        let mut args: Vec<String> = format!(
            "tournament --engine cmd={SEARCH} name=search depth=2 --engine cmd={FAULTY} \
             name=faulty arg=--fault arg={faulty} --rounds 100 --seed 2 \
             --sprt elo0=0,elo1=300,alpha=0.05,beta=0.05"
        )
        .split_whitespace()
        .map(String::from)
        .collect();
        if strict {
            args.push("--strict".into());
        }
        args.extend(["--out".into(), dir.path().join(out).display().to_string()]);
        bt_arena(&args)
    };
    let plain = run("bestmove-before-go", false, "plain");
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let strict = run("bestmove-before-go", true, "strict");
    assert_eq!(strict.status.code(), Some(6), "{}", stderr(&strict));
    assert!(
        stdout(&strict).contains("H1 accepted"),
        "{}",
        stdout(&strict)
    );
    let why = stderr(&strict);
    assert!(why.contains("Checks failed (--strict):"), "{why}");
    assert!(why.contains("  faulty: stray lines: "), "{why}");
    assert!(!why.contains("  search:"), "{why}");
    let clean = run("none", true, "clean");
    assert_eq!(clean.status.code(), Some(0), "{}", stderr(&clean));
}
