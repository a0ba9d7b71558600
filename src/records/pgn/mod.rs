//! PGN: games.pgn as the runner writes it ([`write`](mod@write)) and any PGN read back ([`read`](mod@read)),
//! bt-arena's own or another tool's, split into games by one lexer ([`RawGames`]).

mod lexer;
pub mod read;
pub mod write;

pub use lexer::{RawGames, RawPgnGame, is_pgn};
pub use read::{ReadGames, parse_pgn, read_pgn};
pub use write::*;
