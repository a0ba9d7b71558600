//! Runner → engine messages: [`Command`].

use super::{GoLimits, Protocol, ProtocolError, expect_end, parse_number};
use crate::rules::{Move, Position};
use std::fmt::Write as _;
use std::str::FromStr;

/// A runner → engine message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `ugi` or `uci`: start the handshake in that protocol.
    Handshake(Protocol),
    /// `setoption name <name> [value <value>]`; a button has no value.
    SetOption {
        /// The option's name, which may contain spaces.
        name: String,
        /// The value, which may contain spaces; `None` for a button.
        value: Option<String>,
    },
    /// `isready`: answered by `readyok` once the engine is idle or searching.
    IsReady,
    /// `uginewgame` / `ucinewgame`: the next position belongs to a new game.
    NewGame,
    /// `position startpos|fen <position> [moves m1 m2 ...]`.
    Position {
        /// The position the moves start from.
        start: Position,
        /// The moves played since, oldest first.
        moves: Vec<Move>,
    },
    /// `go ...`: search the last position within these limits, then answer `bestmove`.
    Go(GoLimits),
    /// `go perft <depth>`: the perft extension; answered by one `<move>: <count>` line per
    /// legal move, then `nodes <total>`.
    Perft {
        /// The depth in plies, at least 1.
        depth: u32,
    },
    /// `stop`: end the search now and answer `bestmove`.
    Stop,
    /// `quit`: exit as soon as possible.
    Quit,
}

impl Command {
    /// The line for `protocol`, without a newline. [`Command::Handshake`] and
    /// [`Command::NewGame`] carry or take their protocol; the clock keywords of `go` follow
    /// `protocol`.
    pub fn to_line(&self, protocol: Protocol) -> String {
        let mut line = String::new();
        self.write_line(protocol, &mut line);
        line
    }

    /// Appends [`to_line`](Command::to_line)'s text to `line`.
    pub fn write_line(&self, protocol: Protocol, line: &mut String) {
        match self {
            Command::Handshake(spoken) => line.push_str(spoken.name()),
            Command::SetOption { name, value } => {
                let _ = write!(line, "setoption name {name}");
                if let Some(value) = value {
                    let _ = write!(line, " value {value}");
                }
            }
            Command::IsReady => line.push_str("isready"),
            Command::NewGame => line.push_str(protocol.new_game()),
            Command::Position { start, moves } => {
                write_position(line, start);
                append_moves(line, moves, false);
            }
            Command::Go(limits) => {
                line.push_str("go");
                limits.write_args(protocol, line);
            }
            Command::Perft { depth } => {
                let _ = write!(line, "go perft {depth}");
            }
            Command::Stop => line.push_str("stop"),
            Command::Quit => line.push_str("quit"),
        }
    }

    /// Reads the words after `setoption`: `name <words> [value <words>]`.
    fn parse_setoption<'a>(
        mut tokens: impl Iterator<Item = &'a str>,
    ) -> Result<Command, ProtocolError> {
        match tokens.next() {
            Some("name") => {}
            Some(token) => {
                return Err(ProtocolError::Unexpected {
                    context: "setoption",
                    token: token.to_string(),
                });
            }
            None => return Err(ProtocolError::MissingValue("setoption".into())),
        }
        let words: Vec<&str> = tokens.collect();
        let (name, value) = match words.iter().position(|&word| word == "value") {
            Some(at) => (&words[..at], Some(words[at + 1..].join(" "))),
            None => (&words[..], None),
        };
        if name.is_empty() {
            return Err(ProtocolError::MissingValue("setoption name".into()));
        }
        Ok(Command::SetOption {
            name: name.join(" "),
            value,
        })
    }

    /// Reads the words after `position`: `startpos|fen <position> [moves ...]`.
    fn parse_position<'a>(
        mut tokens: impl Iterator<Item = &'a str>,
    ) -> Result<Command, ProtocolError> {
        let start = match tokens.next() {
            Some("startpos") => Position::startpos(),
            Some("fen") => {
                let fields: Vec<&str> = tokens.by_ref().take_while(|&t| t != "moves").collect();
                // Any board from 4x4 to 8x8: its size is the FEN's shape.
                let start = Position::from_fen_any(&fields.join(" "))
                    .map_err(ProtocolError::BadPosition)?;
                return Ok(Command::Position {
                    start,
                    moves: parse_moves(tokens)?,
                });
            }
            Some(token) => {
                return Err(ProtocolError::Unexpected {
                    context: "position",
                    token: token.to_string(),
                });
            }
            None => return Err(ProtocolError::MissingValue("position".into())),
        };
        let moves = match tokens.next() {
            None => Vec::new(),
            Some("moves") => parse_moves(tokens)?,
            Some(token) => {
                return Err(ProtocolError::Unexpected {
                    context: "position",
                    token: token.to_string(),
                });
            }
        };
        Ok(Command::Position { start, moves })
    }

    /// Reads the words after `go`: `perft <depth>` or search limits.
    fn parse_go<'a>(
        mut tokens: std::iter::Peekable<impl Iterator<Item = &'a str>>,
    ) -> Result<Command, ProtocolError> {
        if tokens.next_if_eq(&"perft").is_some() {
            let depth = parse_number("perft", tokens.next())?;
            expect_end("go perft", tokens)?;
            return Ok(Command::Perft { depth });
        }
        GoLimits::parse_args(tokens).map(Command::Go)
    }
}

/// Appends `position startpos` or `position fen <start>` to `line`: a `position` command
/// without its moves.
pub(crate) fn write_position(line: &mut String, start: &Position) {
    if *start == Position::startpos() {
        line.push_str("position startpos");
    } else {
        let _ = write!(line, "position fen {start}");
    }
}

/// Appends `moves` to a `position` command in `line`, ` moves` first unless `after_moves` (the
/// line already holds moves).
pub(crate) fn append_moves(line: &mut String, moves: &[Move], after_moves: bool) {
    if !after_moves && !moves.is_empty() {
        line.push_str(" moves");
    }
    for &mv in moves {
        line.push(' ');
        mv.push_to(line);
    }
}

/// Parses every word as a move.
fn parse_moves<'a>(tokens: impl Iterator<Item = &'a str>) -> Result<Vec<Move>, ProtocolError> {
    tokens
        .map(|token| token.parse().map_err(ProtocolError::BadMove))
        .collect()
}

impl FromStr for Command {
    type Err = ProtocolError;

    /// Parses a command in either protocol's spelling (`ugi`/`uci`, `uginewgame`/`ucinewgame`,
    /// `p1time`/`wtime`, ...).
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let mut tokens = line.split_whitespace();
        let word = tokens.next().ok_or(ProtocolError::Empty)?;
        let bare = |command: Command| {
            expect_end("a command without arguments", tokens.clone()).map(|()| command)
        };
        match word {
            "ugi" => bare(Command::Handshake(Protocol::Ugi)),
            "uci" => bare(Command::Handshake(Protocol::Uci)),
            "isready" => bare(Command::IsReady),
            "uginewgame" | "ucinewgame" => bare(Command::NewGame),
            "stop" => bare(Command::Stop),
            "quit" => bare(Command::Quit),
            "setoption" => Command::parse_setoption(tokens),
            "position" => Command::parse_position(tokens),
            "go" => Command::parse_go(tokens.peekable()),
            _ => Err(ProtocolError::UnknownCommand(word.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_err as err;
    use crate::rules::Rules;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    fn sample_commands() -> Result<Vec<Command>, Box<dyn std::error::Error>> {
        let start: Position = "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w".parse()?;
        Ok(vec![
            Command::Handshake(Protocol::Ugi),
            Command::Handshake(Protocol::Uci),
            Command::SetOption {
                name: "Skill Level".into(),
                value: Some("3".into()),
            },
            Command::SetOption {
                name: "Debug Log File".into(),
                value: Some("a b.txt".into()),
            },
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None,
            },
            Command::IsReady,
            Command::NewGame,
            Command::Position {
                start: Position::startpos(),
                moves: vec![],
            },
            Command::Position {
                start: Position::startpos(),
                moves: vec!["a2a3".parse()?, "h7h6".parse()?],
            },
            Command::Position {
                start,
                moves: vec!["c6b7".parse()?],
            },
            Command::Position {
                start,
                moves: vec![],
            },
            Command::Go(GoLimits::default()),
            Command::Go(GoLimits::clock(60_000, 59_000, 100, 200)),
            Command::Go(GoLimits {
                moves_to_go: Some(40),
                ..GoLimits::clock(1, 2, 0, 0)
            }),
            Command::Go(GoLimits::movetime(50)),
            Command::Go(GoLimits::depth(7)),
            Command::Go(GoLimits::nodes(1_000_000)),
            Command::Go(GoLimits {
                infinite: true,
                ..GoLimits::default()
            }),
            Command::Perft { depth: 3 },
            Command::Stop,
            Command::Quit,
        ])
    }

    #[test]
    fn commands_round_trip_in_both_protocols() -> TestResult {
        for protocol in [Protocol::Ugi, Protocol::Uci] {
            for command in sample_commands()? {
                let line = command.to_line(protocol);
                assert_eq!(line.parse::<Command>(), Ok(command), "{line}");
            }
        }
        Ok(())
    }

    #[test]
    fn commands_are_spelled_per_protocol() {
        let go = Command::Go(GoLimits::clock(1000, 2000, 10, 20));
        assert_eq!(
            go.to_line(Protocol::Ugi),
            "go p1time 1000 p2time 2000 p1inc 10 p2inc 20"
        );
        assert_eq!(
            go.to_line(Protocol::Uci),
            "go wtime 1000 btime 2000 winc 10 binc 20"
        );
        assert_eq!(Command::NewGame.to_line(Protocol::Ugi), "uginewgame");
        assert_eq!(Command::NewGame.to_line(Protocol::Uci), "ucinewgame");
        assert_eq!(
            Command::Perft { depth: 4 }.to_line(Protocol::Uci),
            "go perft 4"
        );
        let position = Command::Position {
            start: Position::startpos(),
            moves: vec![],
        };
        assert_eq!(position.to_line(Protocol::Ugi), "position startpos");
    }

    #[test]
    fn other_boards_start_from_a_fen_of_their_size() -> TestResult {
        // Never `startpos` off 8x8: an engine reading `startpos` as 8x8 would play another game.
        let board: crate::rules::Board = "6x5".parse()?;
        let position = Command::Position {
            start: Position::start(board),
            moves: vec!["a2a3".parse()?],
        };
        let line = position.to_line(Protocol::Ugi);
        assert_eq!(
            line,
            "position fen ppppp/ppppp/5/5/PPPPP/PPPPP w moves a2a3"
        );
        assert_eq!(line.parse::<Command>(), Ok(position));
        Ok(())
    }

    #[test]
    fn fen_positions_accept_trailing_fields() -> TestResult {
        let command: Command =
            "position fen pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b - - 1 1 moves a7a6"
                .parse()?;
        let Command::Position { start, moves } = command else {
            panic!("not a position: {command:?}");
        };
        assert_eq!(
            start,
            Position::startpos().play(Rules::default(), "a2a3".parse()?)?
        );
        assert_eq!(moves, vec!["a7a6".parse::<Move>()?]);
        Ok(())
    }

    #[test]
    fn bad_commands_name_the_problem() {
        let err = err::<Command>;
        assert_eq!(err(""), ProtocolError::Empty);
        assert_eq!(err("fly"), ProtocolError::UnknownCommand("fly".into()));
        assert_eq!(
            err("go depth x"),
            ProtocolError::BadNumber {
                key: "depth".into(),
                value: "x".into()
            }
        );
        assert_eq!(
            err("go movetime"),
            ProtocolError::MissingValue("movetime".into())
        );
        assert_eq!(
            err("go mate 3"),
            ProtocolError::Unexpected {
                context: "go",
                token: "mate".into()
            }
        );
        assert!(matches!(err("go perft"), ProtocolError::MissingValue(_)));
        assert!(matches!(
            err("go perft 3 4"),
            ProtocolError::Unexpected { .. }
        ));
        assert!(matches!(
            err("isready now"),
            ProtocolError::Unexpected { .. }
        ));
        assert!(matches!(err("position"), ProtocolError::MissingValue(_)));
        assert!(matches!(
            err("position somewhere"),
            ProtocolError::Unexpected { .. }
        ));
        assert!(matches!(
            err("position startpos a2a3"),
            ProtocolError::Unexpected { .. }
        ));
        assert!(matches!(
            err("position fen 8/8 w"),
            ProtocolError::BadPosition(_)
        ));
        assert!(matches!(
            err("position startpos moves a2a9"),
            ProtocolError::BadMove(_)
        ));
        assert!(matches!(err("setoption"), ProtocolError::MissingValue(_)));
        assert!(matches!(
            err("setoption value 3"),
            ProtocolError::Unexpected { .. }
        ));
        assert!(matches!(
            err("setoption name value 3"),
            ProtocolError::MissingValue(_)
        ));
        assert!(err("go depth x").to_string().contains("'depth'"));
        assert!(err("position fen 8/8 w").to_string().contains("ranks"));
    }
}
