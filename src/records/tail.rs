//! Reading a games.csv while another process appends to it: each look reads only the rows
//! appended since the last one.

use super::csv::{check_columns, malformed};
use super::{GameRecord, RecordsError};
use csv::StringRecord;
use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A games.csv read as it grows (by a runner in another process, possibly on another machine
/// over NFS: the file is opened afresh at each look). Only complete rows (ending in a newline)
/// are taken; a row still being written is taken at a later look. Memory: the header.
#[derive(Debug)]
pub struct GamesTail {
    path: PathBuf,
    /// Bytes taken so far: the header and complete rows.
    offset: u64,
    /// Lines taken so far, for the line numbers of errors.
    lines: u64,
    /// The header, once read.
    headers: Option<StringRecord>,
    /// The file rows were taken from (device and inode): a file put in its place (its
    /// directory removed and made again) is another, whose rows were never taken.
    file: Option<(u64, u64)>,
}

impl GamesTail {
    /// A reader of `path` that has taken nothing yet.
    pub fn new(path: impl Into<PathBuf>) -> GamesTail {
        GamesTail {
            path: path.into(),
            offset: 0,
            lines: 0,
            headers: None,
            file: None,
        }
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many bytes of the file were taken (0: nothing yet).
    pub fn taken(&self) -> u64 {
        self.offset
    }

    /// Whether the file read from is gone: removed, or another file in its place (its
    /// directory removed and made again). Its rows taken are then no longer recorded.
    pub fn is_gone(&self) -> bool {
        let Some(read) = self.file.filter(|_| self.offset > 0) else {
            return false;
        };
        std::fs::metadata(&self.path).map_or(true, |meta| identity(&meta) != read)
    }

    /// The games appended since the last call (every game at the first), in file order. A
    /// file that does not exist yet holds no games.
    ///
    /// # Errors
    /// [`RecordsError::Io`] when the file cannot be read (of kind `NotFound` when the file
    /// read from is gone, or another is in its place: [`is_gone`](GamesTail::is_gone));
    /// [`RecordsError::Malformed`] (with the file's line number) for a bad header or row, or
    /// a file that became shorter than what was already taken (rewritten: its games cannot
    /// be counted again).
    pub fn read_new(&mut self) -> Result<Vec<GameRecord>, RecordsError> {
        self.read_some(u64::MAX)
    }

    /// As [`read_new`](GamesTail::read_new), reading at most about `max_bytes` of the file
    /// (whole rows, at least one): a caller reading a large file loops until it returns no
    /// game, with memory bounded by `max_bytes`.
    ///
    /// # Errors
    /// As [`read_new`](GamesTail::read_new).
    pub fn read_some(&mut self, max_bytes: u64) -> Result<Vec<GameRecord>, RecordsError> {
        let bytes = match self.read_appended(max_bytes) {
            Ok((bytes, file)) => {
                if self.offset == 0 {
                    self.file = Some(file);
                }
                bytes
            }
            Err(e) if e.kind() == ErrorKind::NotFound && self.offset == 0 => return Ok(Vec::new()),
            Err(e) => return Err(self.io_error(e)),
        };
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let chunk = &bytes[..complete];
        if chunk.is_empty() {
            return Ok(Vec::new());
        }
        let headers = match &self.headers {
            Some(headers) => headers.clone(),
            None => {
                let mut reader = csv::Reader::from_reader(chunk);
                let headers = reader
                    .headers()
                    .map_err(|e| malformed(&self.path, &e, None))?
                    .clone();
                check_columns(&self.path, &headers)?;
                headers
            }
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(self.headers.is_none())
            .from_reader(chunk);
        let mut games = Vec::new();
        for row in reader.records() {
            let row = row.map_err(|e| self.at_line(malformed(&self.path, &e, None)))?;
            let game = row
                .deserialize(Some(&headers))
                .map_err(|e| self.at_line(malformed(&self.path, &e, Some((&headers, &row)))))?;
            games.push(game);
        }
        self.headers = Some(headers);
        self.offset += complete as u64;
        self.lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(games)
    }

    /// The bytes from the offset to the end of the file, or to the end of the first line
    /// ending past `max_bytes` of them, and the file's identity.
    fn read_appended(&self, max_bytes: u64) -> std::io::Result<(Vec<u8>, (u64, u64))> {
        let mut file = File::open(&self.path)?;
        let meta = file.metadata()?;
        if self.offset > 0 && self.file.is_some_and(|read| read != identity(&meta)) {
            return Err(std::io::Error::new(
                ErrorKind::NotFound,
                "another file is in its place (its directory was removed and made again)",
            ));
        }
        let len = meta.len();
        if len < self.offset {
            return Err(std::io::Error::other(format!(
                "it shrank to {len} bytes after {} were read: rewritten while being read",
                self.offset
            )));
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = Vec::new();
        (&mut file).take(max_bytes).read_to_end(&mut bytes)?;
        if bytes.len() as u64 == max_bytes {
            // Up to the end of the line cut.
            let mut rest = std::io::BufReader::new(file);
            std::io::BufRead::read_until(&mut rest, b'\n', &mut bytes)?;
        }
        Ok((bytes, identity(&meta)))
    }

    fn io_error(&self, source: std::io::Error) -> RecordsError {
        RecordsError::Io {
            path: self.path.clone(),
            action: "cannot read",
            source,
        }
    }

    /// `error` with its line counted from the start of the file rather than of the chunk.
    fn at_line(&self, mut error: RecordsError) -> RecordsError {
        if let RecordsError::Malformed { line, .. } = &mut error {
            *line += self.lines;
        }
        error
    }
}

/// A file's device and inode: which file it is, whatever its name.
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::record;
    use crate::records::{GameResult, ResultsWriter, Termination};
    use crate::rules::Rules;
    use std::io::Write;

    #[test]
    fn each_look_takes_the_complete_rows_appended_since_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let mut tail = GamesTail::new(dir.path().join("games.csv"));
        assert_eq!(tail.read_new().unwrap(), []);
        let mut writer = ResultsWriter::open(dir.path(), Rules::CaptureOnly).unwrap();
        assert_eq!(tail.read_new().unwrap(), []);
        let games: Vec<GameRecord> = (1..=3)
            .map(|id| {
                record(
                    id,
                    1,
                    "a",
                    "b",
                    GameResult::WhiteWins,
                    Termination::GoalRank,
                )
            })
            .collect();
        writer.append(&games[0]).unwrap();
        writer.append(&games[1]).unwrap();
        assert_eq!(tail.read_new().unwrap(), games[..2]);
        assert_eq!(tail.read_new().unwrap(), []);
        // A row being written is taken once complete.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(tail.path())
            .unwrap();
        file.write_all(b"3,1,1,1,startpos,a,b,1-0,goal-").unwrap();
        assert_eq!(tail.read_new().unwrap(), []);
        file.write_all(b"rank,3,a2a3 a7a6 b2b3,1500,1200,2026-11-30T12:00:00Z,0,0,,,\n")
            .unwrap();
        assert_eq!(tail.read_new().unwrap(), games[2..]);
    }

    #[test]
    fn bad_rows_are_named_by_their_line_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = ResultsWriter::open(dir.path(), Rules::CaptureOnly).unwrap();
        let game = record(1, 1, "a", "b", GameResult::WhiteWins, Termination::GoalRank);
        writer.append(&game).unwrap();
        let mut tail = GamesTail::new(writer.csv_path());
        assert_eq!(tail.read_new().unwrap().len(), 1);
        writer.append(&game).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(tail.path())
            .unwrap();
        file.write_all(b"3,1,1\n").unwrap();
        let err = tail.read_new().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}, line 4: 3 fields, expected 19", tail.path().display())
        );
        std::fs::write(tail.path(), "").unwrap();
        let err = tail.read_new().unwrap_err().to_string();
        assert!(err.contains("rewritten while being read"), "{err}");
    }
}
