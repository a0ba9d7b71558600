//! games.csv, the authority on which games of a run finished: its columns, reading it back
//! row by row, and the row format the writer appends ([`csv_row`]).

use super::{GameRecord, RecordsError};
use csv::StringRecord;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The columns of games.csv, in order: the fields of [`GameRecord`]. Columns were added at
/// the end over time ([`COLUMN_COUNTS`]): a file without the later ones still reads (as 0 and
/// empty) and a run directory begun without them keeps its columns when resumed.
pub const COLUMNS: [&str; 19] = [
    "game_id",
    "round",
    "pair",
    "opening_id",
    "opening",
    "white",
    "black",
    "result",
    "termination",
    "plies",
    "moves",
    "white_ms",
    "black_ms",
    "started",
    "white_stray",
    "black_stray",
    "move_info",
    "claims",
    "move_times",
];

/// How many of [`COLUMNS`] a games.csv may have, oldest first: the first release's 14, then
/// `white_stray` and `black_stray`, then `move_info`, then `claims`, then `move_times` (each
/// move's wall time and the engine's own time, in µs). The later columns hold no comma and no
/// quote (unsigned integers; `move_info` and `move_times` tokens, see [`super::moves`];
/// `claims` tokens, see [`super::claims`]).
pub const COLUMN_COUNTS: [usize; 5] = [14, 16, 17, 18, 19];

/// Reads the games of a games.csv, in file order: [`GamesReader`] collected.
///
/// # Errors
/// As [`GamesReader::open`] and [`GamesReader`]'s items: the first error met.
pub fn read_games(path: &Path) -> Result<Vec<GameRecord>, RecordsError> {
    GamesReader::open(path)?.collect()
}

/// The games of a games.csv read one row at a time, in file order: an iterator of
/// `Result<GameRecord, RecordsError>` whose memory does not grow with the file.
///
/// Columns are matched by the header's names (extra columns are ignored; the later columns of
/// [`COLUMN_COUNTS`] may be missing and then read as 0 or empty). The file is read up to the
/// end of its last complete line, as long as it was when opened: a last row without its newline
/// (cut off by a killed runner, being written, or stripped of its newline by an editor) is not
/// read, and [`cut_off`](GamesReader::cut_off) says so, naming its game; an empty file, or one
/// cut off inside the header, holds no games. A byte-order mark at the start is skipped (by
/// the csv reader). [`next_position`](GamesReader::next_position) and
/// [`seek`](GamesReader::seek) let a reader come back to a row (to read several files in
/// game-id order).
///
/// An item is [`RecordsError::Io`] when the file cannot be read, or
/// [`RecordsError::Malformed`] with the 1-based line and the reason (naming the bad value,
/// and its column where the parser tells it) for a row with the wrong number of fields or a
/// value that does not parse. The iterator ends after its first error.
pub struct GamesReader {
    path: PathBuf,
    /// `None` once the rows are exhausted or an error was returned.
    csv: Option<csv::Reader<File>>,
    /// Bytes of complete lines: rows starting here or later are not read.
    complete: u64,
    headers: StringRecord,
    row: StringRecord,
    /// The last row, when it lacks its newline: `line N: ...` naming it.
    cut_off: Option<String>,
}

impl GamesReader {
    /// Opens `path` and reads its header.
    ///
    /// # Errors
    /// [`RecordsError::Io`] when the file cannot be opened or read;
    /// [`RecordsError::Malformed`] (line 1) for a header lacking a column.
    pub fn open(path: &Path) -> Result<GamesReader, RecordsError> {
        let io_error = |e| RecordsError::io(path, "cannot read", e);
        let mut file = File::open(path).map_err(io_error)?;
        let complete = complete_csv_len(&mut file).map_err(io_error)?;
        let length = file.metadata().map_err(io_error)?.len();
        let mut reader = GamesReader {
            path: path.to_path_buf(),
            csv: None,
            complete,
            headers: StringRecord::new(),
            row: StringRecord::new(),
            cut_off: None,
        };
        if complete == 0 {
            return Ok(reader);
        }
        if length > complete {
            reader.cut_off = Some(describe_cut_off(&mut file, complete).map_err(io_error)?);
        }
        let mut csv = csv::Reader::from_reader(file);
        reader.headers = csv
            .headers()
            .map_err(|e| malformed(path, &e, None))?
            .clone();
        check_columns(path, &reader.headers)?;
        reader.csv = Some(csv);
        Ok(reader)
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The row left out because it lacks its newline, if any, as `line N: why` (naming its
    /// game id): a row cut off by a kill may still parse (its last column cut at a token), so
    /// it is never counted; `--resume` plays its game again.
    pub fn cut_off(&self) -> Option<&str> {
        self.cut_off.as_deref()
    }

    /// [`cut_off`](GamesReader::cut_off) as a list of the lines not counted (none or one).
    pub fn skipped(&self) -> &[String] {
        self.cut_off.as_slice()
    }

    /// Where the next row starts (`None` once the rows are exhausted), for
    /// [`seek`](GamesReader::seek).
    pub fn next_position(&self) -> Option<csv::Position> {
        self.csv.as_ref().map(|csv| csv.position().clone())
    }

    /// The 1-based line of the row read last (0 before any).
    pub fn line(&self) -> u64 {
        self.row.position().map_or(0, csv::Position::line)
    }

    /// Goes back (or forward) to the row starting at `position`, one that
    /// [`next_position`](GamesReader::next_position) gave for this file.
    ///
    /// # Errors
    /// [`RecordsError::Io`] when the file cannot be read there, or the rows were exhausted.
    pub fn seek(&mut self, position: &csv::Position) -> Result<(), RecordsError> {
        let Some(csv) = &mut self.csv else {
            return Err(RecordsError::io(
                &self.path,
                "cannot read",
                io::Error::other("the file was read to its end"),
            ));
        };
        if csv.position().byte() == position.byte() {
            return Ok(());
        }
        csv.seek(position.clone())
            .map_err(|e| RecordsError::io(&self.path, "cannot read", io::Error::other(e)))
    }

    /// The next row, `None` at the end of the complete rows.
    fn next_game(&mut self) -> Result<Option<GameRecord>, RecordsError> {
        let Some(csv) = &mut self.csv else {
            return Ok(None);
        };
        if csv.position().byte() >= self.complete {
            return Ok(None);
        }
        let path = &self.path;
        if !csv
            .read_record(&mut self.row)
            .map_err(|e| malformed(path, &e, None))?
        {
            return Ok(None);
        }
        self.row
            .deserialize(Some(&self.headers))
            .map(Some)
            .map_err(|e| malformed(path, &e, Some((&self.headers, &self.row))))
    }
}

/// `game ID's row` for the start of a games.csv row, when its first field (the game id) is
/// whole (a comma follows it); else `a row` (the cut may have fallen inside the id).
pub(super) fn row_of(text: &str) -> String {
    match text.split_once(',').map(|(id, _)| id.parse::<u64>()) {
        Some(Ok(id)) => format!("game {id}'s row"),
        _ => "a row".to_string(),
    }
}

/// `line N: game ID's row has no line end ...` for the row of `file` from byte `start` to its
/// end (the game id is its first field, as far as it reads).
fn describe_cut_off(file: &mut File, start: u64) -> io::Result<String> {
    let mut head = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    let lines = BufReader::new(&mut *file).take(start).split(b'\n').count();
    file.seek(SeekFrom::Start(start))?;
    (&mut *file).take(32).read_to_end(&mut head)?;
    file.seek(SeekFrom::Start(0))?;
    let game = row_of(&String::from_utf8_lossy(&head));
    Ok(format!(
        "line {}: {game} has no line end (cut off by a kill, or its newline dropped by an \
         editor; `--resume` plays it again)",
        lines + 1
    ))
}

impl std::fmt::Debug for GamesReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GamesReader")
            .field("path", &self.path)
            .field("open", &self.csv.is_some())
            .finish()
    }
}

impl Iterator for GamesReader {
    type Item = Result<GameRecord, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        let next = self.next_game();
        if !matches!(next, Ok(Some(_))) {
            self.csv = None;
        }
        next.transpose()
    }
}

/// How many bytes of a CSV file hold complete lines: its length up to and including its last
/// newline (0 without one). Reads the file backwards from its end until it finds one, so only
/// the last (partial) line is read.
pub(super) fn complete_csv_len(file: &mut File) -> io::Result<u64> {
    const CHUNK: u64 = 64 * 1024;
    let mut end = file.metadata()?.len();
    let mut buffer = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        buffer.clear();
        file.seek(SeekFrom::Start(start))?;
        (&mut *file).take(end - start).read_to_end(&mut buffer)?;
        if let Some(at) = buffer.iter().rposition(|&b| b == b'\n') {
            file.seek(SeekFrom::Start(0))?;
            return Ok(start + at as u64 + 1);
        }
        end = start;
    }
    file.seek(SeekFrom::Start(0))?;
    Ok(0)
}

/// The header line of a games.csv with `columns`, newline included.
pub(super) fn header_line(columns: &[&str]) -> String {
    format!("{}\n", columns.join(","))
}

/// The columns every games.csv has: those of the first release.
fn legacy_columns() -> &'static [&'static str] {
    &COLUMNS[..COLUMN_COUNTS[0]]
}

/// Checks that the first line of an existing games.csv is our header (after a byte-order mark,
/// if the file was saved with one), or the header of an older release; returns how many of
/// [`COLUMNS`] it has ([`COLUMN_COUNTS`]).
pub(super) fn check_header_line(path: &Path, file: &mut File) -> Result<usize, RecordsError> {
    let mut first = String::new();
    file.seek(SeekFrom::Start(0))
        .and_then(|_| BufReader::new(&mut *file).read_line(&mut first))
        .map_err(|e| RecordsError::io(path, "cannot read", e))?;
    let first = crate::textfile::strip_bom(&first);
    if let Some(&count) = COLUMN_COUNTS
        .iter()
        .find(|&&count| first == header_line(&COLUMNS[..count]))
    {
        return Ok(count);
    }
    Err(RecordsError::Malformed {
        path: path.to_path_buf(),
        line: 1,
        reason: format!(
            "the header is `{}`, expected `{}`",
            first.trim_end(),
            header_line(&COLUMNS).trim_end()
        ),
    })
}

/// Checks that a header read back names every column of [`COLUMNS`] but the
/// later columns ([`COLUMN_COUNTS`]).
pub(super) fn check_columns(path: &Path, headers: &StringRecord) -> Result<(), RecordsError> {
    let missing: Vec<&str> = legacy_columns()
        .iter()
        .copied()
        .filter(|column| !headers.iter().any(|h| h == *column))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(RecordsError::Malformed {
        path: path.to_path_buf(),
        line: 1,
        reason: format!(
            "the header lacks the column(s) {}: not a bt-arena games.csv",
            missing.join(", ")
        ),
    })
}

/// One CSV row for `record`, newline included.
///
/// # Errors
/// [`RecordsError::InvalidRecord`] when a text field holds a line break.
pub(super) fn csv_row(record: &GameRecord) -> Result<Vec<u8>, RecordsError> {
    let text_fields = [
        ("opening", &record.opening),
        ("white", &record.white),
        ("black", &record.black),
        ("moves", &record.moves),
        ("started", &record.started),
        ("move_info", &record.move_info),
        ("claims", &record.claims),
        ("move_times", &record.move_times),
    ];
    if let Some((column, _)) = text_fields
        .iter()
        .find(|(_, text)| text.contains(['\n', '\r']))
    {
        return Err(RecordsError::InvalidRecord {
            game_id: record.game_id,
            reason: format!("column `{column}` contains a line break"),
        });
    }
    let invalid = |reason: String| RecordsError::InvalidRecord {
        game_id: record.game_id,
        reason,
    };
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    writer
        .serialize(record)
        .map_err(|e| invalid(e.to_string()))?;
    writer.into_inner().map_err(|e| invalid(e.to_string()))
}

/// [`RecordsError::Malformed`] for a CSV error; `row` (the header and the row being
/// deserialized) lets the reason name the column and its value.
pub(super) fn malformed(
    path: &Path,
    err: &csv::Error,
    row: Option<(&StringRecord, &StringRecord)>,
) -> RecordsError {
    let line = err.position().map_or(1, |p| p.line());
    let reason = match err.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields, expected {expected_len}"),
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
        csv::ErrorKind::Deserialize { err, .. } => {
            let field = err.field().and_then(|i| usize::try_from(i).ok());
            match (field, row) {
                (Some(i), Some((headers, row))) => format!(
                    "column `{}`: bad value `{}`: {}",
                    headers.get(i).unwrap_or("?"),
                    row.get(i).unwrap_or(""),
                    err.kind()
                ),
                _ => err.kind().to_string(),
            }
        }
        _ => err.to_string(),
    };
    RecordsError::Malformed {
        path: path.to_path_buf(),
        line,
        reason,
    }
}
