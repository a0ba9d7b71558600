//! The state file of a solve: what a stopped solve knew, to go on from (see the module
//! documentation of [`super`]).
//!
//! Format (version 1): the line `bt-arena solve state 1`, a line of JSON naming the solve
//! (`{"board":"5x5","rules":"classic","position":"<FEN>","completed":17,"nodes":123}`:
//! `completed` the deepest depth answered no, `nodes` the nodes spent so far), then the table's
//! facts as 24-byte records to the end of the file: the White and Black bitboards (u64,
//! little-endian, bit `8 * rank + file`), the depths `win`, `no_win`, `lost`, `not_lost`, the
//! best move's from and to squares (0..64; equal for none), flags (bit 0 set, bit 1 Black to
//! move) and a zero byte.

use super::table::{Facts, SLOT_BYTES, Slot};
use crate::rules::{Board, Position, Rules};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The first line of a state file.
const MAGIC: &str = "bt-arena solve state 1";

/// The state file's JSON line.
#[derive(Serialize, Deserialize)]
struct HeaderJson {
    board: Board,
    rules: Rules,
    position: String,
    completed: u32,
    nodes: u64,
}

/// What a state file says besides its facts.
pub(super) struct Header {
    pub(super) position: Position,
    pub(super) rules: Rules,
    pub(super) completed: u32,
    pub(super) nodes: u64,
}

/// A state file read.
pub(super) struct Saved {
    pub(super) completed: u32,
    pub(super) nodes: u64,
    pub(super) facts: Vec<(Position, Facts)>,
}

/// Why a state file could not be used.
#[derive(Debug)]
pub enum StateError {
    /// Reading or writing it failed.
    Io {
        /// The state file.
        path: PathBuf,
        /// What was being done: `read` or `write`.
        doing: &'static str,
        /// The error of the system.
        source: std::io::Error,
    },
    /// It is not a state file of this version, or it is cut short or damaged.
    Malformed {
        /// The state file.
        path: PathBuf,
        /// What is wrong, and where.
        why: String,
    },
    /// It is the state of another solve.
    OtherSolve {
        /// The state file.
        path: PathBuf,
        /// What differs: `board`, `rules` or `position`.
        what: &'static str,
        /// This solve's.
        ours: String,
        /// The file's.
        theirs: String,
    },
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Io {
                path,
                doing,
                source,
            } => {
                write!(
                    f,
                    "cannot {doing} the solve state {}: {source}",
                    path.display()
                )
            }
            StateError::Malformed { path, why } => write!(
                f,
                "{} is no solve state bt-arena can read: {why}",
                path.display()
            ),
            StateError::OtherSolve {
                path,
                what,
                ours,
                theirs,
            } => write!(
                f,
                "{} is the state of another solve: its {what} is {theirs}, this solve's is \
                 {ours} (give another file, or remove it to start afresh)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for StateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StateError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Writes the state at `path` (through a temporary file renamed over it: a solve killed while
/// writing leaves the previous state whole).
pub(super) fn write<'a>(
    path: &Path,
    header: &Header,
    slots: impl Iterator<Item = &'a Slot>,
) -> Result<(), StateError> {
    let io = |source| StateError::Io {
        path: path.to_path_buf(),
        doing: "write",
        source,
    };
    let json = HeaderJson {
        board: header.position.board(),
        rules: header.rules,
        position: header.position.to_string(),
        completed: header.completed,
        nodes: header.nodes,
    };
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    let temporary = PathBuf::from(name);
    let mut out = BufWriter::new(std::fs::File::create(&temporary).map_err(io)?);
    // A header of strings and numbers: serde_json cannot fail on it.
    let line = serde_json::to_string(&json).unwrap_or_default();
    writeln!(out, "{MAGIC}\n{line}").map_err(io)?;
    for slot in slots {
        out.write_all(&slot.to_bytes()).map_err(io)?;
    }
    out.into_inner()
        .map_err(|err| io(err.into_error()))?
        .sync_all()
        .map_err(io)?;
    std::fs::rename(&temporary, path).map_err(io)
}

/// The state at `path` for a solve of `position` under `rules`; `None` when there is no such
/// file.
pub(super) fn read(
    path: &Path,
    position: &Position,
    rules: Rules,
) -> Result<Option<Saved>, StateError> {
    let mut bytes = Vec::new();
    match std::fs::File::open(path).and_then(|mut file| file.read_to_end(&mut bytes)) {
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StateError::Io {
                path: path.to_path_buf(),
                doing: "read",
                source,
            });
        }
    }
    let malformed = |why: String| StateError::Malformed {
        path: path.to_path_buf(),
        why,
    };
    let mut lines = bytes.splitn(3, |&byte| byte == b'\n');
    let magic = lines.next().unwrap_or_default();
    if magic != MAGIC.as_bytes() {
        return Err(malformed(format!("its first line is not '{MAGIC}'")));
    }
    let json = lines.next().unwrap_or_default();
    let header: HeaderJson = serde_json::from_slice(json)
        .map_err(|err| malformed(format!("line 2 is not the solve's JSON: {err}")))?;
    let records = lines.next().unwrap_or_default();
    let other = |what, ours: String, theirs: String| StateError::OtherSolve {
        path: path.to_path_buf(),
        what,
        ours,
        theirs,
    };
    let board = position.board();
    if header.board != board {
        return Err(other("board", board.to_string(), header.board.to_string()));
    }
    if header.rules != rules {
        return Err(other("rules", rules.to_string(), header.rules.to_string()));
    }
    if header.position != position.to_string() {
        return Err(other("position", position.to_string(), header.position));
    }
    if records.len() % SLOT_BYTES != 0 {
        return Err(malformed(format!(
            "its facts are {} bytes, not a whole number of {SLOT_BYTES}-byte records (cut short?)",
            records.len()
        )));
    }
    let mut facts = Vec::with_capacity(records.len() / SLOT_BYTES);
    for (index, record) in records.chunks_exact(SLOT_BYTES).enumerate() {
        let bad = || malformed(format!("fact {} is damaged", index + 1));
        let record: &[u8; SLOT_BYTES] = record.try_into().map_err(|_| bad())?;
        let slot = Slot::from_bytes(record).ok_or_else(bad)?;
        let at =
            Position::on_board(board, slot.white, slot.black, slot.side()).map_err(|_| bad())?;
        facts.push((at, slot.facts));
    }
    Ok(Some(Saved {
        completed: header.completed,
        nodes: header.nodes,
        facts,
    }))
}
