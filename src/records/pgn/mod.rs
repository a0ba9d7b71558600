//! PGN: games.pgn as the runner writes it ([`write`](mod@write)) and any PGN read back ([`read`](mod@read)),
//! bt-arena's own or another tool's, split into games by one lexer ([`RawGames`]).

pub mod read;
pub mod write;

pub use read::{RawGames, RawPgnGame, ReadGames, is_pgn, parse_pgn, read_pgn};
pub use write::*;
