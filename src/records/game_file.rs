//! The games of a file of either kind bt-arena reads: a games.csv, streamed row by row, or a
//! PGN file (bt-arena's, cutechess-cli's, fastchess's), read whole.

use super::pgn::{self, ReadGames};
use super::{GameRecord, GamesReader, RecordsError};
use std::io::Read;
use std::path::Path;

/// The games of a games.csv or PGN file, in file order: an iterator of
/// `Result<GameRecord, RecordsError>`. [`pgn::is_pgn`] tells the kinds apart (a `.pgn`
/// name, or the first character). A games.csv is read one row at a time ([`GamesReader`]); a
/// PGN file is parsed when opened and its games held until they are taken.
#[derive(Debug)]
pub enum GameFile {
    /// A games.csv.
    Csv(GamesReader),
    /// A PGN file's games, and one line per game not counted (see [`ReadGames::skipped`]).
    Pgn {
        /// The games not yet taken.
        games: std::vec::IntoIter<GameRecord>,
        /// `line N: why` for each unfinished or cut-off game.
        skipped: Vec<String>,
        /// Whether the games' ids are bt-arena's `X-GameId` tags ([`ReadGames::ids_tagged`]).
        ids_tagged: bool,
    },
}

impl GameFile {
    /// Opens `path` (for a PGN file: reads and checks every game).
    ///
    /// # Errors
    /// As [`GamesReader::open`] or [`pgn::read_pgn`]: [`RecordsError::Io`] when the file
    /// cannot be read, [`RecordsError::Malformed`] naming the line of a malformed PGN game.
    pub fn open(path: &Path) -> Result<GameFile, RecordsError> {
        let mut head = [0u8; 64];
        let len = std::fs::File::open(path)
            .and_then(|mut file| file.read(&mut head))
            .map_err(|e| RecordsError::io(path, "cannot read", e))?;
        if !pgn::is_pgn(path, &String::from_utf8_lossy(&head[..len])) {
            return GamesReader::open(path).map(GameFile::Csv);
        }
        let ReadGames {
            games,
            skipped,
            ids_tagged,
        } = pgn::read_pgn(path)?;
        Ok(GameFile::Pgn {
            games: games.into_iter(),
            skipped,
            ids_tagged,
        })
    }

    /// The games of the file that are not counted, one line each: `line N: why`. PGN games
    /// unfinished or cut off; the last row of a games.csv when it has no line end
    /// ([`GamesReader::cut_off`]).
    pub fn skipped(&self) -> &[String] {
        match self {
            GameFile::Csv(reader) => reader.skipped(),
            GameFile::Pgn { skipped, .. } => skipped,
        }
    }

    /// Whether a game's id identifies it in its run: always in a games.csv, in a PGN file
    /// when every game has bt-arena's `X-GameId` tag (other tools' PGN has no ids).
    pub fn has_game_ids(&self) -> bool {
        match self {
            GameFile::Csv(_) => true,
            GameFile::Pgn { ids_tagged, .. } => *ids_tagged,
        }
    }
}

impl Iterator for GameFile {
    type Item = Result<GameRecord, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            GameFile::Csv(reader) => reader.next(),
            GameFile::Pgn { games, .. } => games.next().map(Ok),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pgn_and_a_csv_of_the_same_game_read_alike() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("games.csv");
        std::fs::write(
            &csv,
            "game_id,round,pair,opening_id,opening,white,black,result,termination,plies,moves,\
             white_ms,black_ms,started\n1,1,1,1,startpos,a,b,1-0,goal-rank,0,,0,0,\
             2026-11-30T12:00:00Z\n",
        )
        .unwrap();
        let games: Vec<GameRecord> = GameFile::open(&csv).unwrap().map(Result::unwrap).collect();
        assert_eq!(games.len(), 1);
        assert!(GameFile::open(&csv).unwrap().skipped().is_empty());
        let pgn = dir.path().join("x.pgn");
        std::fs::write(&pgn, "[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n*\n").unwrap();
        let file = GameFile::open(&pgn).unwrap();
        assert_eq!(file.skipped().len(), 1, "{:?}", file.skipped());
        assert_eq!(file.count(), 0);
        let err = GameFile::open(&dir.path().join("none.pgn")).unwrap_err();
        assert!(err.to_string().contains("none.pgn"), "{err}");
    }
}
