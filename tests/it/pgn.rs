//! games.pgn as other tools read it, and `bt-arena elo` on PGN files: a real run's PGN gives
//! the counts of its games.csv; another tool's PGN is paired as Ordo and fastchess pair it;
//! malformed games are named with file and line; Fairy-Stockfish reads the FEN tag.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{RANDOM, SEARCH, bt_arena, fairy_stockfish, stderr, stdout};

/// A three-engine round-robin at depth 1, two games at a time (so game pairs may finish out of
/// order), from the shipped capture-only book; returns the results directory.
fn small_run(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("run");
    let text = format!(
        "tournament --engine cmd={SEARCH} name=search --engine cmd={RANDOM} name=random \
         option.Seed=4 --engine cmd={SEARCH} name=search-material option.Eval=material \
         --each depth=1 --rounds 2 --concurrency 2 --seed 5 --out {}",
        out.display()
    );
    let output = bt_arena(&text.split_whitespace().collect::<Vec<_>>());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    out
}

#[test]
fn elo_on_a_runs_pgn_gives_the_counts_of_its_games_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = small_run(dir.path());
    let csv = bt_arena(&[
        "elo",
        "--json",
        &out.join("games.csv").display().to_string(),
    ]);
    let pgn = bt_arena(&[
        "elo",
        "--json",
        &out.join("games.pgn").display().to_string(),
    ]);
    assert_eq!(csv.status.code(), Some(0), "{}", stderr(&csv));
    assert_eq!(pgn.status.code(), Some(0), "{}", stderr(&pgn));
    // games.pgn keeps each move's whole ms (cutechess's comments), not the engine's own
    // time: it has no latency, and otherwise the same report.
    let mut from_csv: serde_json::Value = serde_json::from_str(&stdout(&csv)).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&stdout(&pgn)).unwrap();
    assert_eq!(from_csv["latency"].as_array().map(Vec::len), Some(2));
    assert_eq!(summary.get("latency"), None);
    from_csv.as_object_mut().unwrap().remove("latency");
    assert_eq!(summary, from_csv);
    assert_eq!(summary["games"], 12);
    let pairs = summary["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    for pair in pairs {
        let pentanomial: u64 = pair["pentanomial"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!((pair["games"].as_u64(), pentanomial), (Some(4), 2));
    }

    let text = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(
        text.matches("[TimeControl \"-\"]\n[X-Limit \"depth=1\"]\n")
            .count(),
        12
    );
    assert_eq!(
        text.matches("[Variant \"breakthrough-capture-only\"]")
            .count(),
        12
    );
    assert_eq!(text.matches("[Termination \"normal\"]").count(), 12);
    // bt-search reports score, depth, nodes, seldepth and PV for every move it plays: each of
    // its moves has them all in its comment.
    let mut checked = 0;
    for (tags, movetext) in pgn_games(&text) {
        let first = match tags.get("FEN") {
            Some(fen) if fen.ends_with(" b") => 1,
            _ => 0,
        };
        for (ply, (mv, comment)) in moves_with_comments(&movetext).iter().enumerate() {
            let mover = &tags[["White", "Black"][(first + ply) % 2]];
            if !mover.starts_with("search") {
                continue;
            }
            let comment = comment.as_deref().unwrap_or_default();
            let (score, rest) = comment.split_once("/1 ").unwrap_or_default();
            assert!(
                bt_arena::records::moves::parse_score_pgn(score).is_some()
                    && rest.contains("s, n=")
                    && rest.contains(", sd=")
                    && rest.contains(", pv=\""),
                "{mover}'s move {mv}: {{{comment}}} in {movetext}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 12 * 10, "{checked} moves of bt-search");
}

/// The games of a PGN text: each one's tags (name, value) and its movetext.
fn pgn_games(text: &str) -> Vec<(HashMap<String, String>, String)> {
    let mut games: Vec<(HashMap<String, String>, String)> = Vec::new();
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix('[') {
            if games
                .last()
                .is_none_or(|(_, movetext)| !movetext.is_empty())
            {
                games.push(Default::default());
            }
            let (name, value) = tag.split_once(' ').unwrap();
            let value = value.trim_end_matches(']').trim_matches('"');
            games
                .last_mut()
                .unwrap()
                .0
                .insert(name.into(), value.into());
        } else if !line.is_empty() {
            let movetext = &mut games.last_mut().unwrap().1;
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    games
}

#[test]
fn a_cutechess_pgn_is_rated_with_consecutive_pairs_and_mixed_with_csv() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("cutechess.pgn");
    let game = |white: &str, black: &str, result: &str, moves: &str| {
        format!(
            "[Event \"?\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\
             [Variant \"breakthrough\"]\n[Termination \"adjudication\"]\n\n{moves} {result}\n\n"
        )
    };
    let mut text = String::new();
    // Pairs: new wins both, then one each, then new loses both; an odd game at the end.
    for (first, second) in [("1-0", "0-1"), ("1-0", "1-0"), ("0-1", "1-0")] {
        text += &game("new", "base", first, "1. a3 {+0.10/3 0.05s} b6");
        text += &game("base", "new", second, "1. a3 b6");
    }
    text += &game("new", "base", "1-0", "1. b3");
    text += &game("new", "base", "*", "1. c3");
    std::fs::write(&pgn, text).unwrap();
    let output = bt_arena(&["elo", "--json", &pgn.display().to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(summary["games"], 7);
    assert_eq!(
        summary["pairs"][0]["pentanomial"],
        serde_json::json!([1, 0, 1, 0, 1])
    );
    assert_eq!(summary["pairs"][0]["unpaired"], 1);
    assert_eq!(
        (
            summary["pairs"][0]["first"].as_str(),
            summary["pairs"][0]["wins"].as_u64()
        ),
        (Some("new"), Some(4))
    );
    assert!(
        stderr(&output).contains(&format!(
            "warning: {}, line 64: game 8 (new vs base) is unfinished (`*`): not counted",
            pgn.display()
        )),
        "{}",
        stderr(&output)
    );

    // The same games with a run's games.csv: both files' games count, pairs within a file.
    let out = small_run(dir.path());
    let mixed = bt_arena(&[
        "elo",
        "--json",
        &pgn.display().to_string(),
        &out.join("games.csv").display().to_string(),
    ]);
    assert_eq!(mixed.status.code(), Some(0), "{}", stderr(&mixed));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&mixed)).unwrap();
    assert_eq!(summary["games"], 19);
    assert_eq!(summary["engines"].as_array().unwrap().len(), 5);
}

#[test]
fn a_malformed_pgn_game_is_named_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("bad.pgn");
    std::fs::write(
        &pgn,
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. a2a3 1-0\n\n\
         [White \"b\"]\n[Black \"a\"]\n[Result \"0-1\"]\n\n1. a2a3 a7a6\n2. a3a5 0-1\n",
    )
    .unwrap();
    let output = bt_arena(&["elo", &pgn.display().to_string()]);
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(
        stderr(&output).trim_end(),
        format!(
            "error: cannot read the games: {}, line 12: game 2: move 3 `a3a5` (White to move): \
             not one step forward for White",
            pgn.display()
        )
    );
}

/// Fairy-Stockfish echoes the FEN of `position fen FEN` (its `d` command's `Fen:` line).
fn fairy_stockfish_fen(cmd: &Path, fen: &str) -> String {
    let mut child = Command::new(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let script = format!(
        "uci\nsetoption name UCI_Variant value breakthrough\nposition fen {fen}\nd\nquit\n"
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.lines()
        .find_map(|line| line.strip_prefix("Fen: "))
        .unwrap_or_else(|| panic!("no Fen line in {text}"))
        .to_string()
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn fairy_stockfish_reads_the_fen_tags_as_written() {
    let cmd = fairy_stockfish();
    let dir = tempfile::tempdir().unwrap();
    let out = small_run(dir.path());
    let text = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let fens: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("[FEN \"")?.strip_suffix("\"]"))
        .collect();
    assert_eq!(fens.len(), 12);
    for fen in fens.iter().step_by(4) {
        assert_eq!(fen.split(' ').count(), 6, "{fen}");
        assert_eq!(fairy_stockfish_fen(&cmd, fen), *fen);
    }
}

/// The moves of a bt-arena movetext with the comment after each (`None` where there is none);
/// move numbers, the closing comment and the result are left out.
fn moves_with_comments(movetext: &str) -> Vec<(String, Option<String>)> {
    let mut moves: Vec<(String, Option<String>)> = Vec::new();
    let mut rest = movetext;
    while let Some(c) = rest.chars().next() {
        if c == '{' {
            let end = rest.find('}').unwrap();
            if let Some(last) = moves.last_mut().filter(|m| m.1.is_none()) {
                last.1 = Some(rest[1..end].replace('\n', " "));
            }
            rest = &rest[end + 1..];
        } else if c.is_whitespace() {
            rest = &rest[1..];
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[..end];
            if !word.ends_with('.') && !["1-0", "0-1"].contains(&word) {
                moves.push((word.to_string(), None));
            }
            rest = &rest[end..];
        }
    }
    moves
}

#[test]
#[ignore = "needs fairy-stockfish (apt-get install fairy-stockfish)"]
fn comments_of_a_multipv_engine_are_those_of_its_best_line() {
    let fsf = fairy_stockfish();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // With MultiPV=3 each depth ends with the third-best line (`multipv 3`), whose pv starts
    // with another move than the one played.
    let text = format!(
        "tournament --rules classic --engine cmd={} name=fsf proto=uci option.MultiPV=3 \
         --engine cmd={RANDOM} name=random --each depth=3 --rounds 1 --games 2 --out {}",
        fsf.display(),
        out.display()
    );
    let output = bt_arena(&text.split_whitespace().collect::<Vec<_>>());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    let mut checked = 0;
    for game in pgn.split("[Event ").skip(1) {
        let fsf_moves_first = game.contains("[White \"fsf\"]");
        let movetext = game.split("\n\n").nth(1).unwrap();
        let moves = moves_with_comments(movetext);
        assert!(moves.len() > 4, "{movetext}");
        for (mv, comment) in moves.iter().skip(usize::from(!fsf_moves_first)).step_by(2) {
            let comment = comment.as_deref().unwrap_or_default();
            assert!(comment.contains("/3 "), "{mv} {{{comment}}}");
            assert!(
                comment.contains(&format!("pv=\"{mv}")),
                "the pv of the move played: {mv} {{{comment}}}"
            );
            checked += 1;
        }
    }
    assert!(checked > 4, "{pgn}");
}

/// Two builds that both say `id name X` are one name in a PGN: `elo` says why there are no
/// ratings and how to name them apart, instead of "no finished games".
#[test]
fn a_pgn_of_two_engines_with_one_name_says_why_it_has_no_ratings() {
    let dir = tempfile::tempdir().unwrap();
    let out = small_run(dir.path());
    let pgn = std::fs::read_to_string(out.join("games.pgn"))
        .unwrap()
        .replace("\"search\"]", "\"X\"]")
        .replace("\"random\"]", "\"X\"]")
        .replace("\"search-material\"]", "\"X\"]");
    let games = pgn.matches("[White \"X\"]").count();
    assert_eq!(games, 12, "{pgn}");
    let file = dir.path().join("one-name.pgn");
    std::fs::write(&file, pgn).unwrap();
    let output = bt_arena(&["elo", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(&format!(
            "No ratings: no finished games between two engines: {games} games with 'X' on both \
             sides count in the total only: an engine cannot be rated against itself. Two \
             engines that give one name (two builds whose `id name` is the same) need names of \
             their own: `name=` of --engine, or the PGN's White and Black tags.\n"
        )),
        "{text}"
    );
}
