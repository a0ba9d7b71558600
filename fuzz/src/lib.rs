//! The bodies of bt-arena's fuzz targets, one per parser of outside input: each takes the
//! fuzzer's bytes, runs the parser, and checks what must hold of its answer (no panic, and a
//! value that writes back and reads again the same). `fuzz_targets/*.rs` hands libFuzzer's
//! input to them; `tests/it/fuzz.rs` includes this file and runs every kept input (the corpus
//! and the crashes found) through them under `cargo test`.
//!
//! Inputs are bytes: parsers that read text get them as UTF-8 with invalid bytes replaced (as
//! the engine process layer reads engine output), parsers that read files get them as written.

use bt_arena::openings::Book;
use bt_arena::protocol::Reply;
use bt_arena::records::claims::GameClaims;
use bt_arena::records::moves::{self, CommentDetail, MoveInfo};
use bt_arena::records::pgn::parse_pgn;
use bt_arena::records::pgn::{PgnStyle, format_game};
use bt_arena::records::{GameRecord, ResultsWriter, read_games};
use bt_arena::rules::suite::parse_suite;
use bt_arena::rules::{Board, Position, Rules};
use bt_arena::tournament::TournamentConfig;
use std::path::{Path, PathBuf};

/// A fuzz target's body: the fuzzer's input in, a panic when something is wrong; out, whether
/// the parser accepted the input (so its checks ran), which the regression test counts: a
/// parser that refused every kept input would pass them all unchecked.
pub type Target = fn(&[u8]) -> bool;

/// The fuzz targets by name, for the regression test that runs the kept inputs.
pub const TARGETS: [(&str, Target); 7] = [
    ("pgn", pgn),
    ("fen", fen),
    ("engine_line", engine_line),
    ("move_info", move_info),
    ("games_csv", games_csv),
    ("config", config),
    ("epd", epd),
];

/// The PGN reader (`elo`, `report` and `merge` read other tools' PGN files): no panic; every
/// game it reads is whole (its plies are its moves, legal from its opening, with at most one
/// `move_info` token each); and the games it reads, written as bt-arena writes games.pgn,
/// read back the same.
pub fn pgn(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let Ok(read) = parse_pgn(&text, Path::new("fuzz.pgn")) else {
        return false;
    };
    for game in &read.games {
        assert_whole(game);
    }
    // Classic rules: they accept every capture-only game.
    let style = PgnStyle::new("fuzz", Rules::Classic);
    let written: String = read
        .games
        .iter()
        .map(|game| format_game(game, &style))
        .collect();
    let again = parse_pgn(&written, Path::new("written.pgn"))
        .unwrap_or_else(|err| panic!("{err}:\n{written}"));
    assert_eq!(again.games, read.games, "{written}");
    assert_eq!(again.skipped, Vec::<String>::new(), "{written}");
    !read.games.is_empty()
}

/// A game record as readers give it: its moves legal from its opening under its rules
/// (capture-only games are classic games too), as many as its plies.
fn assert_whole(game: &GameRecord) {
    let moves: Vec<&str> = game.moves.split_whitespace().collect();
    assert_eq!(moves.len(), game.plies as usize, "{game:?}");
    let mut position: Position = game.opening.parse().expect("the opening reads");
    for mv in moves {
        let mv = position
            .parse_move(Rules::Classic, mv)
            .unwrap_or_else(|err| panic!("{err}: {game:?}"));
        position = position.play_unchecked(mv);
    }
    let infos = moves::decode_column(&game.move_info).expect("the move_info column reads");
    assert!(infos.len() <= game.plies as usize, "{game:?}");
}

/// FEN (opening books, perft suites, the `FEN` tag, `position fen`): no panic, and a position
/// that reads writes a FEN that reads back to it; its moves and outcome are computed without
/// panic under both rule sets.
pub fn fen(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let Ok(position) = text.parse::<Position>() else {
        return false;
    };
    let written = position.to_string();
    assert_eq!(written.parse::<Position>(), Ok(position), "{written}");
    for rules in Rules::ALL {
        let moves = position.legal_moves(rules);
        assert_eq!(
            position.outcome(rules).is_some(),
            moves.is_empty() || position.is_decided()
        );
        for mv in moves.iter() {
            let next = position.play(rules, mv).expect("a generated move is legal");
            assert_eq!(position.parse_move(rules, &mv.to_string()), Ok(mv));
            assert_ne!(next.side_to_move(), position.side_to_move());
        }
    }
    true
}

/// Engine output, line by line (`id`, `option`, `info`, `bestmove`, perft lines): no panic,
/// and a line that reads writes back (its `Display`) to a line that reads the same.
pub fn engine_line(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let mut read = false;
    for line in text.split('\n') {
        let Ok(reply) = line.parse::<Reply>() else {
            continue;
        };
        read = true;
        if let Reply::Option(option) = &reply {
            // A value for it, checked as a configured option is.
            let _ = option.check_value(line);
        }
        let written = reply.to_string();
        assert_eq!(
            written.parse::<Reply>().as_ref(),
            Ok(&reply),
            "{line:?} -> {written:?}"
        );
    }
    read
}

/// games.csv's `move_info` column and the PGN move comment it becomes, its `claims` column
/// and its `move_times` column: no panic; a column that reads writes back the same column; a comment (or score)
/// that reads writes a comment that reads the same.
pub fn move_info(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let mut read = false;
    if let Ok(claims) = GameClaims::decode(&text) {
        let column = claims.encode();
        assert_eq!(
            GameClaims::decode(&column).as_ref(),
            Ok(&claims),
            "{column}"
        );
    }
    if let Ok(infos) = moves::decode_column(&text) {
        read = !infos.is_empty();
        let column = moves::encode_column(&infos);
        assert_eq!(
            moves::decode_column(&column).as_ref(),
            Ok(&infos),
            "{column}"
        );
    }
    if let Ok(times) = moves::decode_times(&text) {
        read |= !times.is_empty();
        let infos: Vec<MoveInfo> = times
            .iter()
            .map(|&(time_us, engine_time_us)| MoveInfo {
                time_us,
                engine_time_us,
                ..MoveInfo::default()
            })
            .collect();
        let column = moves::encode_times(&infos);
        assert_eq!(
            moves::decode_times(&column).as_ref(),
            Ok(&times),
            "{column}"
        );
    }
    if let Some(info) = MoveInfo::parse_comment(&text) {
        read = true;
        for detail in [CommentDetail::Full, CommentDetail::Short] {
            let comment = info.comment(detail).expect("a comment");
            let again = MoveInfo::parse_comment(&comment)
                .unwrap_or_else(|| panic!("{comment:?} does not read"));
            assert_eq!(again.comment(detail).as_ref(), Some(&comment), "{info:?}");
        }
    }
    if let Some(score) = moves::parse_score_pgn(&text) {
        read = true;
        let written = moves::score_pgn(score);
        assert_eq!(moves::parse_score_pgn(&written), Some(score), "{written}");
    }
    read
}

/// A games.csv file (`elo`, `report`, `merge`, resume): no panic, and the games that read,
/// written again as a run writes them (as `merge` writes the shards' games), read back the
/// same. (A row is not checked against the rules when read, and its move_info column is read
/// only by the report, which names the games where it does not read.)
pub fn games_csv(data: &[u8]) -> bool {
    let path = scratch("games.csv");
    std::fs::write(&path, data).expect("the scratch file is written");
    let Ok(games) = read_games(&path) else {
        return false;
    };
    let dir = scratch("rewritten");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the scratch directory is made");
    let mut writer = ResultsWriter::open(&dir, Rules::CaptureOnly).expect("a writer");
    let written: Vec<&GameRecord> = games
        .iter()
        .filter(|game| writer.append(game).is_ok())
        .collect();
    let csv = writer.csv_path().to_path_buf();
    drop(writer);
    let again = read_games(&csv).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(again.iter().collect::<Vec<_>>(), written);
    !games.is_empty()
}

/// A tournament config file, TOML or (a run's config.json, read on resume) JSON, chosen by the
/// first byte: no panic, and a config that reads, saved as config.json, reads back equal.
pub fn config(data: &[u8]) -> bool {
    let Some((&kind, text)) = data.split_first() else {
        return false;
    };
    let path = scratch(if kind % 2 == 0 {
        "run.toml"
    } else {
        "config.json"
    });
    std::fs::write(&path, text).expect("the scratch file is written");
    let Ok(config) = TournamentConfig::read(&path) else {
        return false;
    };
    let saved = scratch("saved/config.json");
    let json = serde_json::to_string_pretty(&config).expect("a config writes as JSON");
    std::fs::write(&saved, &json).expect("the scratch file is written");
    let again = TournamentConfig::read(&saved).unwrap_or_else(|err| panic!("{err}: {json}"));
    assert_eq!(again, config, "{json}");
    true
}

/// Opening books and perft suites, the EPD-like files users give: no panic; a book that reads
/// holds positions the game goes on from under its rules, whose FENs read back; a suite that
/// reads has a count at one depth at least on each line.
pub fn epd(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let mut read = false;
    for rules in Rules::ALL {
        let Ok(book) = Book::parse(
            &text,
            Path::new("fuzz.epd"),
            rules,
            bt_arena::rules::Board::STANDARD,
        ) else {
            continue;
        };
        read |= !book.openings.is_empty();
        let _ = book.duplicates_warning();
        for opening in &book.openings {
            assert_eq!(opening.position.outcome(rules), None, "{opening:?}");
            let fen = opening.position.to_string();
            assert_eq!(fen.parse::<Position>(), Ok(opening.position), "{fen}");
            let _ = opening.comment_field("eval");
        }
    }
    if let Ok(entries) = parse_suite(&text, Board::STANDARD) {
        read |= !entries.is_empty();
        assert!(entries.iter().all(|entry| !entry.expected.is_empty()));
    }
    read
}

/// A file of this thread's scratch directory (in /dev/shm when there is one: the fuzzer
/// writes a file per input), its parent directories made.
fn scratch(name: &str) -> PathBuf {
    thread_local! {
        static DIR: tempfile::TempDir = {
            let shm = Path::new("/dev/shm");
            let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
            tempfile::Builder::new()
                .prefix("bt-arena-fuzz-")
                .tempdir_in(base)
                .expect("a scratch directory")
        };
    }
    let path = DIR.with(|dir| dir.path().join(name));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("the scratch directory is made");
    }
    path
}
