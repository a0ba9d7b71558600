//! Positions from games: the games file(s) read in game-id order, filtered, labelled by proof
//! when asked, and written as binary records and text lines, with the summary of what was
//! written. A run does this at its end; `bt-arena datagen convert` does it with other
//! filters, without running any engine. Memory: one game per input file, the proof table
//! (at most 8 MiB) and the repeat set (8 MiB), whatever the number of positions.

use super::filters::{Filters, Judge, Seen};
use super::formats::binary::PositionRecord;
use super::formats::games::{EntryReader, GameEntry, GamesError};
use super::formats::text;
use super::summary::DatagenSummary;
use crate::game::ProofRule;
use crate::rules::proof::{Prover, Verdict};
use crate::rules::{Board, Color, Rules};
use std::io::{self, BufWriter, Write};
use std::iter::Peekable;
use std::path::{Path, PathBuf};

/// How games become positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The filters.
    pub filters: Filters,
    /// The seed of `--sample`'s draws.
    pub seed: u64,
    /// Label each written position by proof (`--label proof=PLIES[,nodes=N]`).
    pub label: Option<ProofRule>,
    /// Stop after this many positions (`--positions N`).
    pub limit: Option<u64>,
}

/// Why games could not be converted.
#[derive(Debug)]
pub enum ConvertError {
    /// A games file cannot be read, or is bad.
    Games(GamesError),
    /// An output cannot be written.
    Write(PathBuf, io::Error),
    /// Two games files of different rule sets.
    MixedRules {
        /// The file whose rules differ.
        file: PathBuf,
        /// Its rules.
        rules: Rules,
        /// The first file.
        first: PathBuf,
        /// The first file's rules.
        first_rules: Rules,
    },
    /// Games files of two boards.
    MixedBoards {
        /// The file whose board differs.
        file: PathBuf,
        /// Its board.
        board: Board,
        /// The first file.
        first: PathBuf,
        /// The first file's board.
        first_board: Board,
    },
    /// A game out of game-id order, or given twice.
    OutOfOrder {
        /// The game's id.
        game: u64,
        /// The id of the game before it.
        after: u64,
    },
    /// A worker's games.csv cannot be read.
    Records(crate::records::RecordsError),
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvertError::Games(err) => err.fmt(f),
            ConvertError::Write(path, err) => write!(f, "cannot write {}: {err}", path.display()),
            ConvertError::MixedRules {
                file,
                rules,
                first,
                first_rules,
            } => write!(
                f,
                "{} holds games of {rules} rules, {} of {first_rules} rules",
                file.display(),
                first.display()
            ),
            ConvertError::MixedBoards {
                file,
                board,
                first,
                first_board,
            } => write!(
                f,
                "{} holds games of the {board} board, {} of {first_board}",
                file.display(),
                first.display()
            ),
            ConvertError::OutOfOrder { game, after } => write!(
                f,
                "game {game} comes after game {after}: the games must be in game-id order, each once"
            ),
            ConvertError::Records(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for ConvertError {}

impl From<GamesError> for ConvertError {
    fn from(err: GamesError) -> Self {
        ConvertError::Games(err)
    }
}

/// An output file, written to a temporary file beside it and put in place by
/// [`Sink::finish`]: a reader never sees half of one.
pub struct Sink {
    path: PathBuf,
    out: BufWriter<tempfile::NamedTempFile>,
}

impl Sink {
    /// A sink that will become `path`.
    ///
    /// # Errors
    /// [`ConvertError::Write`] when the temporary file cannot be created.
    pub fn create(path: &Path) -> Result<Sink, ConvertError> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        let file = tempfile::NamedTempFile::new_in(dir.unwrap_or(Path::new(".")))
            .map_err(|e| ConvertError::Write(path.to_path_buf(), e))?;
        Ok(Sink {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), ConvertError> {
        self.out
            .write_all(bytes)
            .map_err(|e| ConvertError::Write(self.path.clone(), e))
    }

    /// Flushes the file and moves it to its path.
    ///
    /// # Errors
    /// [`ConvertError::Write`].
    pub fn finish(self) -> Result<(), ConvertError> {
        let path = self.path;
        let file = self
            .out
            .into_inner()
            .map_err(|e| ConvertError::Write(path.clone(), e.into_error()))?;
        // Readable by others, as every file of a run (a temporary file is private).
        file.as_file()
            .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
            .map_err(|e| ConvertError::Write(path.clone(), e))?;
        file.persist(&path)
            .map_err(|e| ConvertError::Write(path.clone(), e.error))?;
        Ok(())
    }
}

/// Where positions go.
#[derive(Default)]
pub struct Sinks {
    /// The binary records.
    pub binary: Option<Sink>,
    /// The text lines.
    pub text: Option<Sink>,
    /// The games read, rewritten as one games file (a merge).
    pub games: Option<(PathBuf, super::formats::games::GamesWriter)>,
}

impl Sinks {
    /// Puts every file in place.
    ///
    /// # Errors
    /// [`ConvertError::Write`].
    pub fn finish(self) -> Result<(), ConvertError> {
        for sink in [self.binary, self.text].into_iter().flatten() {
            sink.finish()?;
        }
        Ok(())
    }
}

/// The games of `files` (each in game-id order) merged into one game-id order: the order of
/// a run on one machine, for the files of its shards or workers. A worker's games file gives
/// only the games its games.csv records ([`super::workers::recorded_ids`]): a worker killed
/// between writing a game and recording it left one another worker played again.
///
/// # Errors
/// The files' rule sets or boards differ; a file or a worker's games.csv cannot be read.
pub fn merged(files: &[PathBuf]) -> Result<((Rules, Board), MergedEntries), ConvertError> {
    let mut readers = Vec::new();
    let mut rules = None;
    let mut board = None;
    let mut recorded: Vec<(PathBuf, Option<super::workers::IdRanges>)> = Vec::new();
    for file in files {
        let reader = EntryReader::open(file)?;
        match rules {
            Some(first_rules) if first_rules != reader.rules() => {
                return Err(ConvertError::MixedRules {
                    file: file.clone(),
                    rules: reader.rules(),
                    first: files[0].clone(),
                    first_rules,
                });
            }
            _ => rules = Some(reader.rules()),
        }
        match board {
            Some(first_board) if first_board != reader.board() => {
                return Err(ConvertError::MixedBoards {
                    file: file.clone(),
                    board: reader.board(),
                    first: files[0].clone(),
                    first_board,
                });
            }
            _ => board = Some(reader.board()),
        }
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let ids = match recorded.iter().find(|(known, _)| *known == dir) {
            Some((_, ids)) => ids.clone(),
            None => {
                let ids = super::workers::recorded_ids(&dir).map_err(ConvertError::Records)?;
                recorded.push((dir, ids.clone()));
                ids
            }
        };
        readers.push((reader.peekable(), ids));
    }
    Ok((
        (rules.unwrap_or_default(), board.unwrap_or_default()),
        MergedEntries { readers },
    ))
}

/// Games from several files in game-id order ([`merged`]).
pub struct MergedEntries {
    readers: Vec<(Peekable<EntryReader>, Option<super::workers::IdRanges>)>,
}

impl Iterator for MergedEntries {
    type Item = Result<GameEntry, GamesError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut best: Option<(usize, u64)> = None;
        for (index, (reader, recorded)) in self.readers.iter_mut().enumerate() {
            // Entries of a worker's file its games.csv does not record are not the run's.
            while let Some(Ok(entry)) = reader.peek()
                && recorded
                    .as_ref()
                    .is_some_and(|ids| !ids.contains(entry.game_id))
            {
                reader.next();
            }
            match reader.peek() {
                Some(Ok(entry)) if best.is_none_or(|(_, id)| entry.game_id < id) => {
                    best = Some((index, entry.game_id));
                }
                Some(Err(_)) => return reader.next(),
                _ => {}
            }
        }
        best.and_then(|(index, _)| self.readers[index].0.next())
    }
}

/// Writes the positions of `games` (in game-id order, under `rules`) to `sinks` as `settings`
/// say, and counts them.
///
/// # Errors
/// [`ConvertError`]: a bad games file, an output that cannot be written, a game id that does
/// not increase.
pub fn convert(
    games: impl Iterator<Item = Result<GameEntry, GamesError>>,
    rules: Rules,
    settings: &Settings,
    sinks: &mut Sinks,
) -> Result<DatagenSummary, ConvertError> {
    let mut judge = Judge::new(settings.filters, settings.seed, true);
    convert_judged(games, rules, settings, sinks, &mut judge)
}

/// Counts what [`convert`] would write of `games`, writing nothing and without counting
/// repeated positions ([`DatagenSummary::repeated`] stays 0): the set of positions seen
/// (8 MiB) is kept only when `--dedup` needs one, and then taken from `spare` and given back,
/// so that counting again and again keeps one.
///
/// # Errors
/// [`ConvertError`]: a bad games file, a game id that does not increase.
pub fn count(
    games: impl Iterator<Item = Result<GameEntry, GamesError>>,
    rules: Rules,
    settings: &Settings,
    spare: &mut Option<Box<Seen>>,
) -> Result<DatagenSummary, ConvertError> {
    let mut judge = Judge::reusing(settings.filters, settings.seed, spare);
    let counted = convert_judged(games, rules, settings, &mut Sinks::default(), &mut judge);
    judge.into_spare(spare);
    counted
}

/// [`convert`] with the filters of `judge`.
fn convert_judged(
    games: impl Iterator<Item = Result<GameEntry, GamesError>>,
    rules: Rules,
    settings: &Settings,
    sinks: &mut Sinks,
    judge: &mut Judge,
) -> Result<DatagenSummary, ConvertError> {
    let mut summary = DatagenSummary::new();
    let mut last_id = 0;
    for game in games {
        if settings
            .limit
            .is_some_and(|limit| summary.positions >= limit)
        {
            break;
        }
        let game = game?;
        if game.game_id <= last_id {
            return Err(ConvertError::OutOfOrder {
                game: game.game_id,
                after: last_id,
            });
        }
        last_id = game.game_id;
        summary.game(&game);
        if let Some((path, writer)) = sinks.games.as_mut() {
            writer
                .append(&game)
                .map_err(|e| ConvertError::Write(path.clone(), io::Error::other(e.to_string())))?;
        }
        write_game(&game, rules, settings, judge, &mut summary, sinks)?;
    }
    summary.dropped = judge.drops;
    summary.repeated = judge.repeated;
    Ok(summary)
}

/// Writes the positions of one game that the filters keep.
fn write_game(
    game: &GameEntry,
    rules: Rules,
    settings: &Settings,
    judge: &mut Judge,
    summary: &mut DatagenSummary,
    sinks: &mut Sinks,
) -> Result<(), ConvertError> {
    // One prover per game: its verdicts depend on the game alone, whoever reads it.
    let mut prover = settings.label.map(|rule| Prover::new(rules, rule.nodes()));
    for at in game.positions() {
        if settings
            .limit
            .is_some_and(|limit| summary.positions >= limit)
        {
            break;
        }
        if !judge.keep(game, &at) {
            continue;
        }
        let (winner, proof) = match (prover.as_mut(), settings.label) {
            (Some(prover), Some(rule)) => match prover.prove(&at.position, rule.plies()) {
                Verdict::Win(line) | Verdict::Loss(line) => {
                    (line.winner, u8::try_from(line.plies).unwrap_or(63))
                }
                Verdict::Open | Verdict::Unknown => (game.winner, 0),
            },
            _ => (game.winner, 0),
        };
        let ply = u32::from(game.first_ply) + u32::try_from(at.index).unwrap_or(u32::MAX);
        let record = PositionRecord {
            white: at.position.pawns(Color::White),
            black: at.position.pawns(Color::Black),
            score: at.score,
            result: PositionRecord::result_of(winner),
            side: super::formats::color_byte(at.position.side_to_move()),
            ply: u16::try_from(ply).unwrap_or(u16::MAX),
            mv: super::formats::encode_move(at.mv),
            flag: PositionRecord::flag_of(proof, game.ending),
        };
        if let Some(sink) = sinks.binary.as_mut() {
            sink.write(&record.to_bytes())?;
        }
        if let Some(sink) = sinks.text.as_mut()
            && let Some(line) = text::line(&record, at.position.board())
        {
            sink.write(line.as_bytes())?;
            sink.write(b"\n")?;
        }
        summary.written(at.score, ply, proof);
    }
    Ok(())
}
