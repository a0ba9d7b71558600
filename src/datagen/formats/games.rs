//! The games file (`games.dat`): every game of a datagen run, compact and lossless, appended
//! and flushed as each game is written, in game-id order. It is the primary record: the
//! binary and text positions are made from it ([`crate::datagen::convert`]), and the shards
//! of a run merge through it (the positions carry no game id).
//!
//! Layout (little-endian; `docs/formats/datagen.md` has the table): a 16-byte header
//! ([`MAGIC`], the version, the rule set, the board's ranks and files, 0 and 0 on 8×8), then
//! one record per game:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | `u32` length of the rest of the record |
//! | 8 | `u64` game id |
//! | 8 + 8 + 1 | the start position: White's and Black's bitboards, side to move (0 White) |
//! | 1 | winner (0 White, 1 Black) |
//! | 1 | how the game ended ([`Ending`]) |
//! | 1 | termination (index in [`Termination::ALL`]) |
//! | 2 | `u16` plies before the start position (random plies from the opening) |
//! | 2 | `u16` plies played, n |
//! | 3n | per ply: the move byte ([`super::encode_move`]), the `i16` score (White's view) |
//! | 4 | `u32` FNV-1a of the record after its length field, up to here |
//!
//! A record cut short (kill -9 during a write) or whose checksum fails at the end of the
//! file is a torn tail: [`GamesWriter::open`] cuts it, with a warning, and the game is played
//! again.

use super::{color_byte, decode_move, fnv1a};
use crate::records::Termination;
use crate::rules::{Board, Color, Move, Position, Rules};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// The first 8 bytes of a games file.
pub const MAGIC: &[u8; 8] = b"BTGAMES\0";

/// The version of the layout, byte 8 of the header.
pub const VERSION: u8 = 1;

/// The header's length in bytes.
pub const HEADER_LEN: usize = 16;

/// The bytes of a record besides its plies: length, fixed fields, checksum.
const FIXED_LEN: usize = 4 + 8 + 17 + 3 + 2 + 2 + 4;

/// The most plies a record holds (a game of Breakthrough has fewer than 200).
pub const MAX_PLIES: usize = 4096;

/// How a game's result came, as the formats record it (2 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// The rules ended it: a goal rank, every pawn captured, no legal move.
    Board = 0,
    /// Resign adjudication (`--resign`).
    Resign = 1,
    /// Proof adjudication (`--adjudicate proof=PLIES`).
    Proof = 2,
    /// An engine's fault (crash, stall, time forfeit, illegal move): its positions are never
    /// written.
    Fault = 3,
}

impl Ending {
    /// Every ending, by code.
    pub const ALL: [Ending; 4] = [Ending::Board, Ending::Resign, Ending::Proof, Ending::Fault];

    /// How a game that ended by `termination` ended.
    pub fn of(termination: Termination) -> Ending {
        match termination {
            Termination::GoalRank | Termination::AllCaptured | Termination::NoMoves => {
                Ending::Board
            }
            Termination::Resign => Ending::Resign,
            Termination::Proof => Ending::Proof,
            _ => Ending::Fault,
        }
    }

    /// The name in summaries: `board`, `resign`, `proof`, `fault`.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Board => "board",
            Ending::Resign => "resign",
            Ending::Proof => "proof",
            Ending::Fault => "fault",
        }
    }
}

/// One ply of a game: the move played and the score the mover's engine reported for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The move, as [`super::encode_move`] writes it.
    pub mv: u8,
    /// The score from White's point of view ([`super::score_value`]), or
    /// [`super::NO_SCORE`].
    pub score: i16,
}

/// One game of the games file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEntry {
    /// The game's id in the run (1-based).
    pub game_id: u64,
    /// The position the engines started from (the opening after its random plies).
    pub start: Position,
    /// Plies played before `start` from the opening (the random plies).
    pub first_ply: u16,
    /// The side that won.
    pub winner: Color,
    /// How the result came.
    pub ending: Ending,
    /// How the game ended, exactly.
    pub termination: Termination,
    /// The plies played by the engines.
    pub plies: Vec<Ply>,
}

/// One position of a game, as replayed by [`GameEntry::positions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamePosition {
    /// The index of the ply in the game (0 for the start position).
    pub index: usize,
    /// The position before the move.
    pub position: Position,
    /// The move played in it.
    pub mv: Move,
    /// Its score, White's view.
    pub score: i16,
}

impl GameEntry {
    /// The record's bytes (length field and checksum included).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FIXED_LEN + 3 * self.plies.len());
        let rest = FIXED_LEN - 4 + 3 * self.plies.len();
        out.extend_from_slice(&u32::try_from(rest).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&self.game_id.to_le_bytes());
        out.extend_from_slice(&self.start.pawns(Color::White).to_le_bytes());
        out.extend_from_slice(&self.start.pawns(Color::Black).to_le_bytes());
        out.push(color_byte(self.start.side_to_move()));
        out.push(color_byte(self.winner));
        out.push(self.ending as u8);
        let termination = Termination::ALL
            .iter()
            .position(|&t| t == self.termination)
            .and_then(|index| u8::try_from(index).ok())
            .unwrap_or(0);
        out.push(termination);
        out.extend_from_slice(&self.first_ply.to_le_bytes());
        let plies = u16::try_from(self.plies.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&plies.to_le_bytes());
        for ply in &self.plies {
            out.push(ply.mv);
            out.extend_from_slice(&ply.score.to_le_bytes());
        }
        let checksum = fnv1a(&out[4..]);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// The game from the bytes of a record after its length field (`body`, checksum
    /// included), played on `board`, its moves checked under `rules`.
    ///
    /// # Errors
    /// A message saying what is wrong: a checksum, a field or a move.
    pub(crate) fn from_body(body: &[u8], rules: Rules, board: Board) -> Result<GameEntry, String> {
        if body.len() < FIXED_LEN - 4 {
            return Err(format!("a record of {} bytes is too short", body.len()));
        }
        let (data, sum) = body.split_at(body.len() - 4);
        if fnv1a(data) != u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]) {
            return Err("checksum mismatch".to_string());
        }
        let u64_at = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap_or([0; 8]));
        let u16_at = |at: usize| u16::from_le_bytes([data[at], data[at + 1]]);
        let color = |byte: u8, what: &str| match byte {
            0 => Ok(Color::White),
            1 => Ok(Color::Black),
            other => Err(format!("bad {what} {other}")),
        };
        let side = color(data[24], "side to move")?;
        let start = Position::on_board(board, u64_at(8), u64_at(16), side)
            .map_err(|e| format!("bad start position: {e}"))?;
        let winner = color(data[25], "winner")?;
        let ending = *Ending::ALL
            .get(usize::from(data[26]))
            .ok_or_else(|| format!("bad ending {}", data[26]))?;
        let termination = *Termination::ALL
            .get(usize::from(data[27]))
            .ok_or_else(|| format!("bad termination {}", data[27]))?;
        let first_ply = u16_at(28);
        let count = usize::from(u16_at(30));
        let moves = &data[32..];
        if moves.len() != 3 * count {
            return Err(format!("{count} plies but {} bytes of moves", moves.len()));
        }
        let plies = moves
            .chunks_exact(3)
            .map(|chunk| Ply {
                mv: chunk[0],
                score: i16::from_le_bytes([chunk[1], chunk[2]]),
            })
            .collect();
        let entry = GameEntry {
            game_id: u64_at(0),
            start,
            first_ply,
            winner,
            ending,
            termination,
            plies,
        };
        entry.check(rules)?;
        Ok(entry)
    }

    /// Every position of the game with its move, replayed from the start.
    ///
    /// # Panics
    /// Never for an entry read by [`GameEntry::from_body`] or made from legal moves.
    pub fn positions(&self) -> impl Iterator<Item = GamePosition> + '_ {
        let mut position = self.start;
        self.plies.iter().enumerate().map(move |(index, ply)| {
            let mv = decode_move(ply.mv, &position).expect("a checked move");
            let here = GamePosition {
                index,
                position,
                mv,
                score: ply.score,
            };
            position = position.play_unchecked(mv);
            here
        })
    }

    /// Checks that every move is legal under `rules` and that only the last ends the game.
    fn check(&self, rules: Rules) -> Result<(), String> {
        let mut position = self.start;
        for (index, ply) in self.plies.iter().enumerate() {
            if position.outcome(rules).is_some() {
                return Err(format!("ply {} follows the end of the game", index + 1));
            }
            let mv = decode_move(ply.mv, &position)
                .ok_or_else(|| format!("ply {}: bad move byte {:#04x}", index + 1, ply.mv))?;
            position = position
                .play(rules, mv)
                .map_err(|e| format!("ply {}: {e}", index + 1))?;
        }
        Ok(())
    }
}

/// Why a games file cannot be read.
#[derive(Debug)]
pub enum GamesError {
    /// It cannot be opened, read or written.
    Io(PathBuf, io::Error),
    /// It is not a games file, or a record in it is bad (not at the end).
    Malformed {
        /// The file.
        path: PathBuf,
        /// The byte offset of the header or record at fault.
        offset: u64,
        /// What is wrong.
        what: String,
    },
}

impl std::fmt::Display for GamesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GamesError::Io(path, err) => write!(f, "{}: {err}", path.display()),
            GamesError::Malformed { path, offset, what } => {
                write!(f, "{}: byte {offset}: {what}", path.display())
            }
        }
    }
}

impl std::error::Error for GamesError {}

/// The header of a games file of `rules` on `board`: bytes 10 and 11 its ranks and files,
/// both 0 on 8×8 (as in every file written before sizes existed).
fn header(rules: Rules, board: Board) -> [u8; HEADER_LEN] {
    let mut bytes = [0u8; HEADER_LEN];
    bytes[..8].copy_from_slice(MAGIC);
    bytes[8] = VERSION;
    bytes[9] = match rules {
        Rules::CaptureOnly => 0,
        Rules::Classic => 1,
    };
    if !board.is_standard() {
        bytes[10] = board.ranks();
        bytes[11] = board.files();
    }
    bytes
}

/// The board of a header, checked: 8×8 for 0 and 0.
fn board_of(bytes: &[u8; HEADER_LEN]) -> Result<Board, String> {
    match (bytes[10], bytes[11]) {
        (0, 0) => Ok(Board::STANDARD),
        (ranks, files) => Board::new(ranks, files).map_err(|e| format!("bad board: {e}")),
    }
}

/// The rule set and board of a header, checked.
fn variant_of(bytes: &[u8; HEADER_LEN]) -> Result<(Rules, Board), String> {
    Ok((rules_of(bytes)?, board_of(bytes)?))
}

/// The rule set of a header, checked.
fn rules_of(bytes: &[u8; HEADER_LEN]) -> Result<Rules, String> {
    if &bytes[..8] != MAGIC {
        return Err("not a bt-arena games file (bad magic)".to_string());
    }
    if bytes[8] != VERSION {
        return Err(format!(
            "games file version {} (this bt-arena reads {VERSION})",
            bytes[8]
        ));
    }
    match bytes[9] {
        0 => Ok(Rules::CaptureOnly),
        1 => Ok(Rules::Classic),
        other => Err(format!("bad rule set {other}")),
    }
}

/// What a read found at a record's place.
enum Next {
    /// A game.
    Game(GameEntry),
    /// The end of the file.
    End,
    /// A torn tail starting here: `what` went wrong.
    Torn(String),
}

/// A games file read one game at a time (memory: one game).
pub struct EntryReader {
    path: PathBuf,
    input: BufReader<File>,
    rules: Rules,
    board: Board,
    /// Bytes read: the offset of the next record.
    offset: u64,
    len: u64,
}

impl EntryReader {
    /// Opens `path` and reads its header.
    ///
    /// # Errors
    /// [`GamesError`] naming the file.
    pub fn open(path: &Path) -> Result<EntryReader, GamesError> {
        let io = |e| GamesError::Io(path.to_path_buf(), e);
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let mut input = BufReader::new(file);
        let mut bytes = [0u8; HEADER_LEN];
        input
            .read_exact(&mut bytes)
            .map_err(|_| GamesError::Malformed {
                path: path.to_path_buf(),
                offset: 0,
                what: "shorter than the 16-byte header".to_string(),
            })?;
        let (rules, board) = variant_of(&bytes).map_err(|what| GamesError::Malformed {
            path: path.to_path_buf(),
            offset: 0,
            what,
        })?;
        Ok(EntryReader {
            path: path.to_path_buf(),
            input,
            rules,
            board,
            offset: HEADER_LEN as u64,
            len,
        })
    }

    /// The rule set the file's games were played under.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The board the file's games were played on.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read_next(&mut self) -> Result<Next, GamesError> {
        if self.offset >= self.len {
            return Ok(Next::End);
        }
        let io = |e| GamesError::Io(self.path.clone(), e);
        let remaining = self.len - self.offset;
        if remaining < 4 {
            return Ok(Next::Torn(format!("{remaining} bytes, not a record")));
        }
        let mut word = [0u8; 4];
        self.input.read_exact(&mut word).map_err(io)?;
        let rest = u64::from(u32::from_le_bytes(word));
        if rest > (FIXED_LEN + 3 * MAX_PLIES) as u64 {
            return Err(self.malformed(format!("a record of {rest} bytes")));
        }
        if rest > remaining - 4 {
            return Ok(Next::Torn(format!(
                "a record of {} bytes cut after {remaining}",
                rest + 4
            )));
        }
        // At most FIXED_LEN + 3 · MAX_PLIES bytes (checked above).
        let mut body = vec![0u8; usize::try_from(rest).unwrap_or(0)];
        self.input.read_exact(&mut body).map_err(io)?;
        let at_end = self.offset + 4 + rest == self.len;
        match GameEntry::from_body(&body, self.rules, self.board) {
            Ok(entry) => {
                self.offset += 4 + rest;
                Ok(Next::Game(entry))
            }
            Err(what) if at_end => Ok(Next::Torn(what)),
            Err(what) => Err(self.malformed(what)),
        }
    }

    fn malformed(&self, what: String) -> GamesError {
        GamesError::Malformed {
            path: self.path.clone(),
            offset: self.offset,
            what,
        }
    }
}

impl Iterator for EntryReader {
    type Item = Result<GameEntry, GamesError>;

    /// The next game; a torn tail is an error here (only [`GamesWriter::open`] cuts one).
    fn next(&mut self) -> Option<Self::Item> {
        match self.read_next() {
            Ok(Next::Game(entry)) => Some(Ok(entry)),
            Ok(Next::End) => None,
            Ok(Next::Torn(what)) => {
                let err = self.malformed(format!("torn record ({what}): resume the run to cut it"));
                self.offset = self.len;
                Some(Err(err))
            }
            Err(err) => {
                self.offset = self.len;
                Some(Err(err))
            }
        }
    }
}

/// A games file open for appending.
pub struct GamesWriter {
    path: PathBuf,
    file: File,
}

/// What [`GamesWriter::open`] found in an existing file.
#[derive(Debug, Default)]
pub struct Reopened {
    /// The warning for a torn tail it cut, if any.
    pub cut: Option<String>,
}

impl GamesWriter {
    /// Opens `path` for appending games of `rules` on `board`: creates it with its header, or
    /// reads it through (handing each game to `each`, in file order) and cuts a torn tail.
    ///
    /// # Errors
    /// [`GamesError`]: the file cannot be read or written, is not a games file of `rules` and
    /// `board`, or holds a bad record before its end.
    pub fn open(
        path: &Path,
        (rules, board): (Rules, Board),
        mut each: impl FnMut(GameEntry),
    ) -> Result<(GamesWriter, Reopened), GamesError> {
        let io = |e| GamesError::Io(path.to_path_buf(), e);
        let mut reopened = Reopened::default();
        let exists = path.exists() && std::fs::metadata(path).map_err(io)?.len() > 0;
        if exists {
            let mut reader = EntryReader::open(path)?;
            if reader.rules != rules {
                return Err(
                    reader.malformed(format!("games of {} rules, not {rules}", reader.rules))
                );
            }
            if reader.board != board {
                return Err(
                    reader.malformed(format!("games of the {} board, not {board}", reader.board))
                );
            }
            loop {
                match reader.read_next()? {
                    Next::Game(entry) => each(entry),
                    Next::End => break,
                    Next::Torn(what) => {
                        let cut = reader.len - reader.offset;
                        reopened.cut = Some(format!(
                            "{}: cut a torn record at byte {} ({what}; {cut} bytes): its game is played again",
                            path.display(),
                            reader.offset
                        ));
                        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
                        file.set_len(reader.offset).map_err(io)?;
                        file.sync_all().map_err(io)?;
                        break;
                    }
                }
            }
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        if !exists {
            file.set_len(0).map_err(io)?;
            file.write_all(&header(rules, board)).map_err(io)?;
            file.flush().map_err(io)?;
        }
        Ok((
            GamesWriter {
                path: path.to_path_buf(),
                file,
            },
            reopened,
        ))
    }

    /// Appends `entry` in one write, and flushes it.
    ///
    /// # Errors
    /// [`GamesError::Io`] naming the file.
    pub fn append(&mut self, entry: &GameEntry) -> Result<(), GamesError> {
        self.file
            .write_all(&entry.to_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| GamesError::Io(self.path.clone(), e))
    }
}

/// A new games file of `rules` on `board` at `path`, written whole by `write` (for merges and
/// samples).
///
/// # Errors
/// [`GamesError::Io`] naming the file.
pub fn create(path: &Path, rules: Rules, board: Board) -> Result<GamesWriter, GamesError> {
    let io = |e| GamesError::Io(path.to_path_buf(), e);
    let mut file = File::create(path).map_err(io)?;
    file.write_all(&header(rules, board)).map_err(io)?;
    Ok(GamesWriter {
        path: path.to_path_buf(),
        file,
    })
}

#[cfg(test)]
mod tests {
    use super::super::encode_move;
    use super::*;

    fn game(id: u64) -> GameEntry {
        let mut position = Position::startpos();
        let mut plies = Vec::new();
        for (i, text) in ["e2e3", "d7d6", "e3e4"].iter().enumerate() {
            let mv: Move = text.parse().expect("move");
            plies.push(Ply {
                mv: encode_move(mv),
                score: i16::try_from(i).unwrap() * 10 - 5,
            });
            position = position.play_unchecked(mv);
        }
        GameEntry {
            game_id: id,
            start: Position::startpos(),
            first_ply: 2,
            winner: Color::Black,
            ending: Ending::Resign,
            termination: Termination::Resign,
            plies,
        }
    }

    #[test]
    fn a_record_round_trips_and_is_checked() {
        let entry = game(7);
        let bytes = entry.to_bytes();
        assert_eq!(bytes.len(), FIXED_LEN + 9);
        // docs/formats/datagen.md: the length field holds 36 + 3n, the bytes after it.
        let rest = u32::from_le_bytes(bytes[..4].try_into().unwrap());
        assert_eq!((rest, bytes.len()), (36 + 3 * 3, 4 + 36 + 3 * 3));
        assert_eq!(
            GameEntry::from_body(&bytes[4..], Rules::CaptureOnly, Board::STANDARD),
            Ok(entry.clone())
        );
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        assert_eq!(
            GameEntry::from_body(&bad[4..], Rules::CaptureOnly, Board::STANDARD),
            Err("checksum mismatch".to_string())
        );
        let positions: Vec<String> = entry.positions().map(|p| p.mv.to_string()).collect();
        assert_eq!(positions, ["e2e3", "d7d6", "e3e4"]);
    }

    #[test]
    fn the_header_holds_the_board_and_a_file_of_another_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("games.dat");
        let small = Board::new(6, 5).unwrap();
        let (writer, _) = GamesWriter::open(&path, (Rules::Classic, small), |_| {}).expect("open");
        drop(writer);
        let bytes = std::fs::read(&path).expect("read");
        assert_eq!(&bytes[8..], &[VERSION, 1, 6, 5, 0, 0, 0, 0]);
        assert_eq!(EntryReader::open(&path).expect("open").board(), small);
        let err = GamesWriter::open(&path, (Rules::Classic, Board::STANDARD), |_| {})
            .err()
            .expect("refused")
            .to_string();
        assert!(
            err.ends_with("byte 16: games of the 6x5 board, not 8x8"),
            "{err}"
        );
        // 8x8 keeps the header of every file before sizes: bytes 10 and 11 zero.
        assert_eq!(&header(Rules::Classic, Board::STANDARD)[10..], &[0; 6]);
        let mut bad = header(Rules::Classic, small);
        bad[10] = 9;
        assert_eq!(
            board_of(&bad),
            Err(
                "bad board: a board of 9 ranks is not supported: ranks and files go from 4 to 8"
                    .to_string()
            )
        );
    }

    #[test]
    fn a_torn_tail_is_cut_and_the_games_before_it_kept() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("games.dat");
        let (mut writer, _) =
            GamesWriter::open(&path, (Rules::CaptureOnly, Board::STANDARD), |_| {}).expect("open");
        writer.append(&game(1)).expect("append");
        writer.append(&game(2)).expect("append");
        drop(writer);
        let full = std::fs::metadata(&path).expect("meta").len();
        let file = OpenOptions::new().write(true).open(&path).expect("open");
        file.set_len(full - 5).expect("cut");
        let mut seen = Vec::new();
        let (_, reopened) = GamesWriter::open(&path, (Rules::CaptureOnly, Board::STANDARD), |e| {
            seen.push(e.game_id)
        })
        .expect("open");
        assert_eq!(seen, [1]);
        let cut = reopened.cut.expect("a warning");
        assert!(
            cut.contains(&format!("byte {}", HEADER_LEN + FIXED_LEN + 9)),
            "{cut}"
        );
        let ids: Vec<u64> = EntryReader::open(&path)
            .expect("read")
            .map(|e| e.expect("game").game_id)
            .collect();
        assert_eq!(ids, [1]);
    }
}
