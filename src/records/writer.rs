//! Appending finished games to games.csv and games.pgn, and repairing the entry a killed
//! runner cut off, so that the two files hold the same games.

use super::csv::{COLUMNS, check_header_line, csv_row, header_line, row_of};
use super::moves::{CommentDetail, MoveInfo};
use super::pgn::{self, PgnStyle};
use super::{GameRecord, GamesReader, RecordsError};
use crate::rules::Rules;
use crate::run_dir::RunDir;
use crate::time_control::TimeControl;
use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// What a complete games.csv ends with: the end of a row.
const CSV_ENDS: &[&[u8]] = &[b"\n"];
/// What a complete games.pgn ends with: a game's result token and the blank line after it.
const PGN_ENDS: &[&[u8]] = &[b"1-0\n\n", b"0-1\n\n"];
/// Longest terminator in [`CSV_ENDS`] and [`PGN_ENDS`]: how much of a file's tail to check.
const LONGEST_END: u64 = 5;
/// Default PGN `Event` tag.
const DEFAULT_EVENT: &str = "bt-arena";

/// Appends finished games to `games.csv` and `games.pgn` of one run directory.
///
/// Each [`append`](ResultsWriter::append) writes the PGN game and then the CSV row, each with
/// one write, and returns only when both are handed to the operating system: a runner killed
/// at any point loses no game already appended (a power cut may). The CSV row is written last,
/// so games.csv is the authority on which games finished; a kill between the two writes can
/// leave a game in games.pgn that games.csv lacks (and that a resumed run plays again).
#[derive(Debug)]
pub struct ResultsWriter {
    csv_path: PathBuf,
    csv: File,
    pgn_path: PathBuf,
    pgn: File,
    style: PgnStyle,
    /// How many of [`COLUMNS`] the header of games.csv has: rows are written with as many
    /// (a file begun by an older release keeps its columns).
    columns: usize,
    /// What [`open`](ResultsWriter::open) repaired, one line each.
    repairs: Vec<String>,
}

impl ResultsWriter {
    /// Opens `dir/games.csv` and `dir/games.pgn` for appending, creating `dir` and the files
    /// as needed and writing the CSV header when games.csv is new or empty. An entry cut off
    /// by a killed runner is removed first: a CSV that does not end in a newline loses its
    /// partial last row, a PGN that does not end with a result and a blank line loses its
    /// partial last game. `rules` names the PGN `Variant`; the PGN `Event` is `bt-arena`
    /// unless set with [`with_event`](ResultsWriter::with_event). A games.csv whose header
    /// lacks the later columns ([`COLUMN_COUNTS`](super::COLUMN_COUNTS)) gets rows without them too.
    ///
    /// # Errors
    /// [`RecordsError::Io`] when the directory or a file cannot be created, read or cut;
    /// [`RecordsError::Malformed`] (line 1) when an existing games.csv has another header.
    pub fn open(dir: &Path, rules: Rules) -> Result<ResultsWriter, RecordsError> {
        fs::create_dir_all(dir)
            .map_err(|e| RecordsError::io(dir, "cannot create the directory", e))?;
        let run = RunDir::new(dir);
        let csv_path = run.games_csv();
        let mut csv = open_for_append(&csv_path)?;
        let cut = cut_partial_entry(&csv_path, &mut csv, CSV_ENDS)?;
        let mut repairs: Vec<String> = cut.describe_row(&csv_path).into_iter().collect();
        let columns = if cut.kept == 0 {
            write_flushed(&csv_path, &mut csv, header_line(&COLUMNS).as_bytes())?;
            COLUMNS.len()
        } else {
            check_header_line(&csv_path, &mut csv)?
        };
        let pgn_path = run.games_pgn();
        let mut pgn = open_for_append(&pgn_path)?;
        let cut = cut_partial_entry(&pgn_path, &mut pgn, PGN_ENDS)?;
        repairs.extend(cut.describe_game(&pgn_path));
        Ok(ResultsWriter {
            csv_path,
            csv,
            pgn_path,
            pgn,
            style: PgnStyle::new(DEFAULT_EVENT, rules),
            columns,
            repairs,
        })
    }

    /// Whether games.csv is still the file this writer appends to: `false` when it was
    /// removed (its directory too, by a clean-up) or another file is in its place. Rows
    /// appended then are lost; the directory is made again with a new writer.
    pub fn is_in_place(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(&self.csv_path), self.csv.metadata()) {
            (Ok(named), Ok(open)) => (named.dev(), named.ino()) == (open.dev(), open.ino()),
            _ => false,
        }
    }

    /// What [`open`](ResultsWriter::open) repaired in files an interrupted session left, one
    /// line each naming the file: a games.csv row without its line end (removed: its game is
    /// played again), a games.pgn game cut off, games.pgn games that games.csv does not hold
    /// (removed) or that it lacks (written again, by [`reconciled`](ResultsWriter::reconciled)),
    /// so that games.pgn holds exactly the games of games.csv.
    pub fn repairs(&self) -> &[String] {
        &self.repairs
    }

    /// Brings games.pgn back to exactly the games of games.csv (see [`repairs`]): removes
    /// the games games.csv does not hold, writes again those it lacks (in the PGN style set
    /// so far: call it after [`with_event`](ResultsWriter::with_event) and the others).
    ///
    /// [`repairs`]: ResultsWriter::repairs
    ///
    /// # Errors
    /// [`RecordsError`] when games.csv or games.pgn cannot be read or written.
    pub fn reconciled(mut self) -> Result<ResultsWriter, RecordsError> {
        let done = reconcile_pgn(&self.csv_path, &self.pgn_path, &self.style)?;
        if !done.is_empty() {
            self.repairs.extend(done);
            self.pgn = open_for_append(&self.pgn_path)?;
        }
        Ok(self)
    }

    /// Sets the PGN `Event` tag of the games appended from now on.
    pub fn with_event(mut self, event: impl Into<String>) -> ResultsWriter {
        self.style.event = event.into();
        self
    }

    /// Sets each engine's limit (by engine name) for the PGN `TimeControl` tags.
    pub fn with_limits(mut self, limits: Vec<(String, TimeControl)>) -> ResultsWriter {
        self.style.limits = limits;
        self
    }

    /// Sets the engines built from source (by name) whose commit, build command and bench
    /// signature the PGN tags record (see [`super::pgn`]).
    pub fn with_builds(
        mut self,
        builds: std::collections::BTreeMap<String, super::provenance::EngineProvenance>,
    ) -> ResultsWriter {
        self.style.builds = builds;
        self
    }

    /// Sets how much the PGN move comments say (default [`CommentDetail::Full`]).
    pub fn with_comments(mut self, comments: CommentDetail) -> ResultsWriter {
        self.style.comments = comments;
        self
    }

    /// The path of games.csv.
    pub fn csv_path(&self) -> &Path {
        &self.csv_path
    }

    /// The path of games.pgn.
    pub fn pgn_path(&self) -> &Path {
        &self.pgn_path
    }

    /// Appends the game to games.pgn and games.csv and flushes both before returning.
    ///
    /// # Errors
    /// [`RecordsError::InvalidRecord`] when a text field holds a line break (nothing is
    /// written); [`RecordsError::Io`] when a write fails.
    pub fn append(&mut self, record: &GameRecord) -> Result<(), RecordsError> {
        let infos = record.move_infos().unwrap_or_default();
        self.append_with(record, &infos)
    }

    /// [`append`](ResultsWriter::append) with the PGN move comments from `infos` (one per
    /// move, with the PVs that games.csv does not keep).
    ///
    /// # Errors
    /// As [`append`](ResultsWriter::append).
    pub fn append_with(
        &mut self,
        record: &GameRecord,
        infos: &[MoveInfo],
    ) -> Result<(), RecordsError> {
        self.append_full(record, infos, None, &[])
    }

    /// [`append_with`](ResultsWriter::append_with), the PGN's final comment saying `ending`
    /// (an adjudication's account, see [`pgn::format_game_ending`]).
    ///
    /// # Errors
    /// As [`append`](ResultsWriter::append).
    pub fn append_with_ending(
        &mut self,
        record: &GameRecord,
        infos: &[MoveInfo],
        ending: Option<&str>,
    ) -> Result<(), RecordsError> {
        self.append_full(record, infos, ending, &[])
    }

    /// [`append_with`](ResultsWriter::append_with) with `tags` (name, value) added to the
    /// game's PGN tags (a tune's parameter values); games.csv gets the same row.
    ///
    /// # Errors
    /// As [`append`](ResultsWriter::append).
    pub fn append_tagged(
        &mut self,
        record: &GameRecord,
        infos: &[MoveInfo],
        tags: &[(String, String)],
    ) -> Result<(), RecordsError> {
        self.append_full(record, infos, None, tags)
    }

    /// Appends the game with its move comments, its final comment `ending` (else the
    /// termination's) and extra PGN `tags`.
    ///
    /// # Errors
    /// As [`append`](ResultsWriter::append).
    pub fn append_full(
        &mut self,
        record: &GameRecord,
        infos: &[MoveInfo],
        ending: Option<&str>,
        tags: &[(String, String)],
    ) -> Result<(), RecordsError> {
        let mut row = csv_row(record)?;
        drop_later_columns(&mut row, COLUMNS.len() - self.columns);
        let game = pgn::format_game_ending(record, infos, ending, &self.style);
        let game = if tags.is_empty() {
            game
        } else {
            pgn::insert_tags(&game, tags)
        };
        write_flushed(&self.pgn_path, &mut self.pgn, game.as_bytes())?;
        write_flushed(&self.csv_path, &mut self.csv, &row)
    }
}

/// Cuts the last `count` columns off a CSV row (newline included), for a games.csv begun by
/// an older release. They hold no comma ([`COLUMN_COUNTS`](super::COLUMN_COUNTS)), so the row's last commas are
/// theirs.
fn drop_later_columns(row: &mut Vec<u8>, count: usize) {
    if count == 0 {
        return;
    }
    let mut cut = row.len();
    for _ in 0..count {
        cut = row[..cut].iter().rposition(|&b| b == b',').unwrap_or(0);
    }
    row.truncate(cut);
    row.push(b'\n');
}

/// Opens (creating) `path` for reading and appending.
fn open_for_append(path: &Path) -> Result<File, RecordsError> {
    OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| RecordsError::io(path, "cannot open", e))
}

/// Writes `bytes` in one call and flushes them to the operating system.
fn write_flushed(path: &Path, file: &mut File, bytes: &[u8]) -> Result<(), RecordsError> {
    file.write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(|e| RecordsError::io(path, "cannot write", e))
}

/// Cuts `file` back to the end of its last complete entry, an entry being complete when it
/// ends with one of `ends`; returns the file's length afterwards. Reads only the tail of a
/// file that is already complete.
fn cut_partial_entry(path: &Path, file: &mut File, ends: &[&[u8]]) -> Result<Cut, RecordsError> {
    let io_error = |e| RecordsError::io(path, "cannot repair", e);
    let tail = read_tail(file, LONGEST_END).map_err(io_error)?;
    let len = file.metadata().map_err(io_error)?.len();
    if tail.is_empty() || ends.iter().any(|end| tail.ends_with(end)) {
        return Ok(Cut {
            kept: len,
            line: 0,
            removed: Vec::new(),
        });
    }
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_end(&mut bytes))
        .map_err(io_error)?;
    let complete = complete_len(&bytes, ends);
    file.set_len(complete as u64).map_err(io_error)?;
    Ok(Cut {
        kept: complete as u64,
        line: bytes[..complete].iter().filter(|&&b| b == b'\n').count() as u64 + 1,
        removed: bytes.split_off(complete),
    })
}

/// What [`cut_partial_entry`] did: the bytes kept, and the entry removed (empty when none)
/// with the line it started on.
struct Cut {
    kept: u64,
    line: u64,
    removed: Vec<u8>,
}

impl Cut {
    /// A line saying what was removed from games.csv: `games.csv, line N: game ID's row had
    /// no line end: removed (...)`; `None` when nothing was.
    fn describe_row(&self, path: &Path) -> Option<String> {
        if self.removed.is_empty() {
            return None;
        }
        let row = row_of(&String::from_utf8_lossy(&self.removed));
        Some(format!(
            "{}, line {}: {row} had no line end (cut off by a kill, or its newline dropped by \
             an editor): removed, and its game is played again",
            path.display(),
            self.line
        ))
    }

    /// A line saying what was removed from games.pgn; `None` when nothing was.
    fn describe_game(&self, path: &Path) -> Option<String> {
        if self.removed.is_empty() {
            return None;
        }
        Some(format!(
            "{}, line {}: a game cut off at the end of the file: removed",
            path.display(),
            self.line
        ))
    }
}

/// Brings games.pgn at `pgn` back to exactly the games of games.csv at `csv`, in its order:
/// a game games.csv does not hold (written to games.pgn by a runner killed before its row
/// was), or a game written twice, is removed, and a game games.pgn lacks (lost, cut off) is
/// written again from its games.csv row in `style` (without the engines' PVs, which games.csv
/// does not keep). A games.pgn holding a game without an `X-GameId` (not bt-arena's) is left
/// alone. The file is rewritten whole or not at all, and only when a game is removed or
/// added. Returns the lines saying what was done.
///
/// # Errors
/// [`RecordsError`] when a file cannot be read or written.
fn reconcile_pgn(csv: &Path, pgn: &Path, style: &PgnStyle) -> Result<Vec<String>, RecordsError> {
    use super::pgn::RawGames;
    let io_error = |e| RecordsError::io(pgn, "cannot read", e);
    let recorded: Vec<u64> = GamesReader::open(csv)?
        .map(|game| game.map(|g| g.game_id))
        .collect::<Result<_, _>>()?;
    let wanted: HashSet<u64> = recorded.iter().copied().collect();
    let mut texts: HashMap<u64, String> = HashMap::new();
    let mut removed = Vec::new();
    for game in RawGames::new(BufReader::new(File::open(pgn).map_err(io_error)?)) {
        let game = game.map_err(io_error)?;
        let Some(id) = game.game_id else {
            return Ok(Vec::new());
        };
        if wanted.contains(&id) && !texts.contains_key(&id) {
            texts.insert(id, game.text);
        } else {
            removed.push(id);
        }
    }
    let added: Vec<u64> = recorded
        .iter()
        .copied()
        .filter(|id| !texts.contains_key(id))
        .collect();
    if removed.is_empty() && added.is_empty() {
        return Ok(Vec::new());
    }
    let rows = GamesReader::open(csv)?;
    super::write_atomically(pgn, super::Existing::Replace, |file| {
        for row in rows {
            let row = row.map_err(io::Error::other)?;
            match texts.remove(&row.game_id) {
                Some(text) => file.write_all(text.as_bytes())?,
                None => {
                    let infos = row.move_infos().unwrap_or_default();
                    file.write_all(pgn::format_game_with(&row, &infos, style).as_bytes())?;
                }
            }
        }
        Ok(())
    })?;
    let ids = |ids: &[u64]| {
        ids.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut done = Vec::new();
    if !removed.is_empty() {
        done.push(format!(
            "{}: {} that games.csv does not hold (written before a kill, or twice) removed: \
             game {}",
            pgn.display(),
            super::plural(removed.len() as u64, "game"),
            ids(&removed)
        ));
    }
    if !added.is_empty() {
        done.push(format!(
            "{}: {} of games.csv missing from it written again from games.csv (without the \
             engines' PVs): game {}",
            pgn.display(),
            super::plural(added.len() as u64, "game"),
            ids(&added)
        ));
    }
    Ok(done)
}

/// The last `n` bytes of `file` (fewer when it is shorter).
fn read_tail(file: &mut File, n: u64) -> io::Result<Vec<u8>> {
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(n)))?;
    let mut tail = Vec::new();
    file.take(n).read_to_end(&mut tail)?;
    Ok(tail)
}

/// Length of the prefix of `bytes` that ends with the last occurrence of one of `ends` (0 when
/// none occurs): the complete entries of a file.
fn complete_len(bytes: &[u8], ends: &[&[u8]]) -> usize {
    ends.iter()
        .filter_map(|end| {
            bytes
                .windows(end.len())
                .rposition(|window| window == *end)
                .map(|start| start + end.len())
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::csv::complete_csv_len;
    use crate::records::tests::record;
    use crate::records::tests::write;
    use crate::records::{GameResult, Termination};
    use crate::records::{GamesReader, read_games};

    fn sample_games() -> Vec<GameRecord> {
        let mut games = vec![
            record(
                1,
                1,
                "alpha",
                "beta",
                GameResult::WhiteWins,
                Termination::GoalRank,
            ),
            record(
                2,
                1,
                "beta",
                "alpha",
                GameResult::WhiteWins,
                Termination::TimeForfeit,
            ),
        ];
        // Text that needs quoting survives the round trip.
        games[1].white = "beta, \"the second\"".into();
        games[1].opening = "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b".into();
        games[1].moves = String::new();
        games[1].plies = 0;
        games[0].black_stray = 2;
        games[1].white_stray = 7;
        games[0].move_info = "35/12/18/10234/120 M-2/-/-/-/3 -/-/-/-/0".into();
        games[0].claims = "pv=1/0".into();
        games[0].move_times = "120345/118000 3120/- 999/-".into();
        games
    }

    #[test]
    fn csv_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let games = sample_games();
        let path = write(dir.path(), &games);
        assert_eq!(read_games(&path).unwrap(), games);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(
            "game_id,round,pair,opening_id,opening,white,black,result,termination,plies,moves,\
             white_ms,black_ms,started,white_stray,black_stray,move_info,claims,move_times\n\
             1,1,1,1,startpos,alpha,beta,1-0,goal-rank,3,a2a3 a7a6 b2b3,1500,1200,\
             2026-11-30T12:00:00Z,0,2,35/12/18/10234/120 M-2/-/-/-/3 -/-/-/-/0,pv=1/0,\
             120345/118000 3120/- 999/-\n"
        ));
        // Reopening appends without a second header.
        let path = write(dir.path(), &games[..1]);
        let again = read_games(&path).unwrap();
        assert_eq!(again.len(), 3);
        assert_eq!(again[2], games[0]);
        let pgn = fs::read_to_string(dir.path().join("games.pgn")).unwrap();
        assert_eq!(pgn.matches("[Event ").count(), 3);
    }

    #[test]
    fn a_cut_off_row_is_removed_on_open_and_skipped_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let games = sample_games();
        let path = write(dir.path(), &games);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"3,2,2,2,startpos,alpha,be").unwrap();
        assert_eq!(read_games(&path).unwrap(), games);
        let pgn_path = dir.path().join("games.pgn");
        let pgn_before = fs::read_to_string(&pgn_path).unwrap();
        let mut pgn = OpenOptions::new().append(true).open(&pgn_path).unwrap();
        pgn.write_all(b"[Event \"bt-arena\"]\n[Site").unwrap();

        let path = write(dir.path(), &games[..1]);
        let mut expected = games.clone();
        expected.push(games[0].clone());
        assert_eq!(read_games(&path).unwrap(), expected);
        let pgn_after = fs::read_to_string(&pgn_path).unwrap();
        assert!(pgn_after.starts_with(&pgn_before));
        assert_eq!(pgn_after.matches("[Site").count(), 3);
        assert!(pgn_after.ends_with("1-0\n\n"));
    }

    #[test]
    fn a_cut_off_header_is_rewritten_and_reads_as_no_games() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        fs::write(&path, "game_id,rou").unwrap();
        assert_eq!(read_games(&path).unwrap(), []);
        fs::write(&path, "").unwrap();
        assert_eq!(read_games(&path).unwrap(), []);
        let games = sample_games();
        write(dir.path(), &games);
        assert_eq!(read_games(&path).unwrap(), games);
    }

    /// The error of reading a games.csv whose second row is `row`.
    fn error_for_row(row: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &sample_games()[..1]);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        writeln!(file, "{row}").unwrap();
        let err = read_games(&path).unwrap_err();
        assert!(
            matches!(err, RecordsError::Malformed { line: 3, .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("{}, line 3: ", path.display())),
            "{message}"
        );
        message
    }

    #[test]
    fn malformed_rows_name_file_line_and_column() {
        let good =
            "2,1,1,1,startpos,beta,alpha,1-0,goal-rank,3,a2a3,10,20,2026-11-30T12:00:00Z,0,0,,,";
        let message = error_for_row(&good.replace("1-0", "1/2-1/2"));
        // serde reports an unknown word without its column, but with the word and the
        // words expected.
        assert!(
            message.ends_with("unknown variant `1/2-1/2`, expected `1-0` or `0-1`"),
            "{message}"
        );
        let message = error_for_row(&good.replace(",3,", ",3x,"));
        assert!(
            message.contains("column `plies`: bad value `3x`"),
            "{message}"
        );
        let message = error_for_row(&good.replace("goal-rank", "forfeit"));
        assert!(message.contains("`forfeit`"), "{message}");
        let message = error_for_row("2,1,1");
        assert!(message.contains("3 fields, expected 19"), "{message}");
    }

    #[test]
    fn a_games_csv_without_the_stray_columns_reads_as_0_and_keeps_its_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = RunDir::new(dir.path()).games_csv();
        let old_header = COLUMNS[..14].join(",");
        let old_row = "1,1,1,1,startpos,alpha,beta,1-0,goal-rank,3,a2a3 a7a6 b2b3,1500,1200,\
                       2026-11-30T12:00:00Z";
        fs::write(&path, format!("{old_header}\n{old_row}\n")).unwrap();
        let mut expected = sample_games();
        expected[0].black_stray = 0;
        expected[0].move_info.clear();
        expected[0].claims.clear();
        expected[0].move_times.clear();
        assert_eq!(read_games(&path).unwrap(), expected[..1]);
        // Resumed: the new row has the file's 14 columns (its stray counts are not recorded).
        write(dir.path(), &sample_games()[1..]);
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[..2], [old_header.as_str(), old_row]);
        assert_eq!(
            lines[2],
            "2,1,1,1,pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b,\"beta, \"\"the second\"\"\",\
             alpha,1-0,time-forfeit,0,,1500,1200,2026-11-30T12:00:00Z"
        );
        expected[1].white_stray = 0;
        assert_eq!(read_games(&path).unwrap(), expected);
    }

    /// A run begun before `move_info` (16 columns), before `claims` (17) or before
    /// `move_times` (18): its rows keep its columns when resumed, and read without what they
    /// lack (the move times of an 18-column file are the whole ms of `move_info`).
    #[test]
    fn a_games_csv_without_the_later_columns_keeps_its_16_17_or_18_columns() {
        for (columns, row_end) in [
            (16, ",2026-11-30T12:00:00Z,0,2"),
            (17, ",0,2,35/12/18/10234/120 M-2/-/-/-/3 -/-/-/-/0"),
            (18, ",0,2,35/12/18/10234/120 M-2/-/-/-/3 -/-/-/-/0,pv=1/0"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = RunDir::new(dir.path()).games_csv();
            let header = COLUMNS[..columns].join(",");
            fs::write(&path, format!("{header}\n")).unwrap();
            let games = sample_games();
            write(dir.path(), &games);
            let text = fs::read_to_string(&path).unwrap();
            assert_eq!(text.lines().next(), Some(header.as_str()));
            assert!(text.lines().nth(1).unwrap().ends_with(row_end), "{text}");
            let mut expected = games;
            if columns == 16 {
                expected[0].move_info.clear();
            }
            if columns < 18 {
                expected[0].claims.clear();
            }
            expected[0].move_times.clear();
            assert_eq!(read_games(&path).unwrap(), expected);
            if columns == 18 {
                let times: Vec<(u64, Option<u64>)> = expected[0]
                    .move_infos()
                    .unwrap()
                    .iter()
                    .map(|info| (info.time_us, info.engine_time_us))
                    .collect();
                assert_eq!(times, [(120_000, None), (3000, None), (0, None)]);
            }
        }
    }

    #[test]
    fn foreign_headers_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        fs::write(&path, "name,score\nalpha,1\n").unwrap();
        let err = read_games(&path).unwrap_err();
        assert!(matches!(err, RecordsError::Malformed { line: 1, .. }));
        assert!(err.to_string().contains("game_id"), "{err}");
        let err = ResultsWriter::open(dir.path(), Rules::Classic).unwrap_err();
        assert!(
            matches!(err, RecordsError::Malformed { line: 1, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn missing_files_and_line_breaks_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nowhere.csv");
        let err = read_games(&path).unwrap_err();
        assert!(matches!(err, RecordsError::Io { .. }));
        assert!(err.to_string().contains("nowhere.csv"), "{err}");

        let mut writer = ResultsWriter::open(dir.path(), Rules::Classic).unwrap();
        let mut game = sample_games().remove(0);
        game.black = "two\nlines".into();
        let err = writer.append(&game).unwrap_err();
        assert_eq!(
            err.to_string(),
            "game 1: column `black` contains a line break"
        );
        assert_eq!(read_games(writer.csv_path()).unwrap(), []);
        assert_eq!(fs::read_to_string(writer.pgn_path()).unwrap(), "");
    }

    /// The reader yields the rows before a bad one, then the error, then nothing.
    #[test]
    fn the_reader_streams_rows_and_stops_at_the_first_error() {
        let dir = tempfile::tempdir().unwrap();
        let games = sample_games();
        let path = write(dir.path(), &games);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        writeln!(file, "3,2,2").unwrap();
        writeln!(file, "4,2,2").unwrap();
        let mut reader = GamesReader::open(&path).unwrap();
        assert_eq!(reader.path(), path);
        assert_eq!(reader.next().unwrap().unwrap(), games[0]);
        assert_eq!(reader.next().unwrap().unwrap(), games[1]);
        let err = reader.next().unwrap().unwrap_err();
        assert!(
            matches!(err, RecordsError::Malformed { line: 4, .. }),
            "{err:?}"
        );
        assert!(reader.next().is_none());
        assert!(GamesReader::open(&dir.path().join("none.csv")).is_err());
    }

    /// A cut-off last row is skipped however long it is (the reader looks for the last
    /// newline backwards, a chunk at a time), and rows appended after opening are not read.
    #[test]
    fn the_reader_stops_at_the_last_complete_row_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        let games = sample_games();
        let path = write(dir.path(), &games);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        let long_moves = "a2a3 ".repeat(30_000);
        write!(
            file,
            "3,2,2,2,startpos,alpha,beta,1-0,goal-rank,1,{long_moves}"
        )
        .unwrap();
        let reader = GamesReader::open(&path).unwrap();
        writeln!(file, ",1,1,2026-11-30T12:00:00Z,0,0,,,").unwrap();
        let read: Vec<GameRecord> = reader.map(Result::unwrap).collect();
        assert_eq!(read, games);
        assert_eq!(read_games(&path).unwrap().len(), 3);
        let one_line = dir.path().join("one.csv");
        fs::write(&one_line, "x".repeat(200_000)).unwrap();
        let mut one_line = File::open(one_line).unwrap();
        assert_eq!(complete_csv_len(&mut one_line).unwrap(), 0);
    }

    #[test]
    fn complete_len_finds_the_last_terminator() {
        assert_eq!(complete_len(b"ab\ncd", CSV_ENDS), 3);
        assert_eq!(complete_len(b"abcd", CSV_ENDS), 0);
        assert_eq!(complete_len(b"x 1-0\n\nab 0-1\n\n[Ev", PGN_ENDS), 15);
    }
}
