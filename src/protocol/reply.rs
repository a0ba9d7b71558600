//! Engine → runner messages: [`Reply`].

use super::{Info, OptionDecl, Protocol, ProtocolError, parse_number};
use std::fmt;
use std::str::FromStr;

/// An engine → runner message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `id name <name>`.
    IdName(String),
    /// `id author <author>`.
    IdAuthor(String),
    /// `option name ... type ...`: an option the engine accepts.
    Option(OptionDecl),
    /// `ugiok` or `uciok`: the handshake is over.
    HandshakeOk(Protocol),
    /// `readyok`: the answer to `isready`.
    ReadyOk,
    /// `bestmove <move> [ponder <move>]`. The move is kept as written: the runner judges it.
    /// [`NO_MOVE`](crate::protocol::NO_MOVE) (`(none)`) means the engine found no legal move.
    BestMove {
        /// The move as the engine wrote it.
        mv: String,
        /// The expected reply, if the engine named one.
        ponder: Option<String>,
    },
    /// `info ...`: search progress.
    Info(Info),
    /// `<move>: <count>`: one root move of `go perft` and its leaf count.
    PerftMove {
        /// The move as the engine wrote it.
        mv: String,
        /// The leaf count below it.
        nodes: u64,
    },
    /// `nodes <total>` (or Stockfish's `Nodes searched: <total>`): the end of `go perft`.
    PerftTotal {
        /// The total leaf count.
        nodes: u64,
    },
    /// Any other line, blank lines included, as written.
    Other(String),
}

impl Reply {
    /// Reads `bestmove <move> [ponder <move>]`.
    fn parse_bestmove(line: &str) -> Result<Reply, ProtocolError> {
        let mut tokens = line.split_whitespace().skip(1);
        let mv = tokens
            .next()
            .ok_or_else(|| ProtocolError::MissingValue("bestmove".into()))?
            .to_string();
        let ponder = match tokens.next() {
            None => None,
            Some("ponder") => tokens.next().map(str::to_string),
            Some(token) => {
                return Err(ProtocolError::Unexpected {
                    context: "bestmove",
                    token: token.to_string(),
                });
            }
        };
        Ok(Reply::BestMove { mv, ponder })
    }

    /// Reads a perft divide line `<move>: <count>` or total `nodes N` / `Nodes searched: N`;
    /// `None` when the line is neither.
    fn parse_perft(tokens: &[&str]) -> Option<Result<Reply, ProtocolError>> {
        let count = |key: &str, value: &str| parse_number::<u64>(key, Some(value));
        match *tokens {
            ["nodes", value] => {
                Some(count("nodes", value).map(|nodes| Reply::PerftTotal { nodes }))
            }
            ["Nodes", "searched:", value] => {
                Some(count("Nodes searched:", value).map(|nodes| Reply::PerftTotal { nodes }))
            }
            [mv, value] if mv.len() > 1 && mv.ends_with(':') => {
                let mv = &mv[..mv.len() - 1];
                Some(count(mv, value).map(|nodes| Reply::PerftMove {
                    mv: mv.to_string(),
                    nodes,
                }))
            }
            _ => None,
        }
    }
}

impl FromStr for Reply {
    type Err = ProtocolError;

    /// Parses an engine line; a line this module does not know is [`Reply::Other`], a known
    /// one that is malformed is an error.
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        // The lines of every move first, without collecting the words. Split at ASCII
        // whitespace only, for speed: a line these words do not match this way is read below
        // as before, and one they match splits the same way at any whitespace.
        let mut words = line.split_ascii_whitespace();
        match (words.next(), words.next()) {
            (Some("readyok"), None) => return Ok(Reply::ReadyOk),
            (Some("bestmove"), _) => return Reply::parse_bestmove(line),
            (Some("info"), _) => return Info::parse(line.trim()).map(Reply::Info),
            _ => {}
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let rest_after = |words: usize| {
            line.split_whitespace()
                .skip(words)
                .collect::<Vec<_>>()
                .join(" ")
        };
        match tokens[..] {
            ["id", "name", ..] => Ok(Reply::IdName(rest_after(2))),
            ["id", "author", ..] => Ok(Reply::IdAuthor(rest_after(2))),
            ["option", ..] => OptionDecl::parse(line).map(Reply::Option),
            ["ugiok"] => Ok(Reply::HandshakeOk(Protocol::Ugi)),
            ["uciok"] => Ok(Reply::HandshakeOk(Protocol::Uci)),
            ["readyok"] => Ok(Reply::ReadyOk),
            ["bestmove", ..] => Reply::parse_bestmove(line),
            ["info", ..] => Info::parse(line.trim()).map(Reply::Info),
            _ => Reply::parse_perft(&tokens).unwrap_or_else(|| Ok(Reply::Other(line.to_string()))),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::IdName(name) => write!(f, "id name {name}"),
            Reply::IdAuthor(author) => write!(f, "id author {author}"),
            Reply::Option(decl) => decl.fmt(f),
            Reply::HandshakeOk(protocol) => f.write_str(protocol.ok()),
            Reply::ReadyOk => f.write_str("readyok"),
            Reply::BestMove { mv, ponder: None } => write!(f, "bestmove {mv}"),
            Reply::BestMove {
                mv,
                ponder: Some(ponder),
            } => write!(f, "bestmove {mv} ponder {ponder}"),
            Reply::Info(info) => info.fmt(f),
            Reply::PerftMove { mv, nodes } => write!(f, "{mv}: {nodes}"),
            Reply::PerftTotal { nodes } => write!(f, "nodes {nodes}"),
            Reply::Other(line) => f.write_str(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_err as err;
    use crate::protocol::{NO_MOVE, OptionKind, Score};

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn the_lines_of_every_move_read_alike_whatever_the_whitespace() {
        let em = '\u{2003}';
        for (line, expected) in [
            (format!("readyok{em}"), Ok(Reply::ReadyOk)),
            (format!("{em}readyok"), Ok(Reply::ReadyOk)),
            (" readyok\t".to_string(), Ok(Reply::ReadyOk)),
            (
                format!("bestmove{em}a2a3"),
                Ok(Reply::BestMove {
                    mv: "a2a3".into(),
                    ponder: None,
                }),
            ),
            (
                "bestmove a2a3\tponder b7b6".to_string(),
                Ok(Reply::BestMove {
                    mv: "a2a3".into(),
                    ponder: Some("b7b6".into()),
                }),
            ),
            (
                format!("info{em}depth 3"),
                Ok(Reply::Info(Info {
                    depth: Some(3),
                    ..Info::default()
                })),
            ),
            (
                "readyok now".to_string(),
                Ok(Reply::Other("readyok now".into())),
            ),
        ] {
            assert_eq!(line.parse::<Reply>(), expected, "{line:?}");
        }
    }

    #[test]
    fn replies_round_trip() -> TestResult {
        let replies = [
            Reply::IdName("bt-random 0.1".into()),
            Reply::IdAuthor("The bt-arena developers".into()),
            Reply::Option(OptionDecl::rules()),
            Reply::Option(OptionDecl::spin("Seed", 0, 0, 1 << 40)),
            Reply::Option(OptionDecl {
                name: "Own Book".into(),
                kind: OptionKind::Check { default: false },
            }),
            Reply::Option(OptionDecl {
                name: "Clear Hash".into(),
                kind: OptionKind::Button,
            }),
            Reply::Option(OptionDecl {
                name: "Book File".into(),
                kind: OptionKind::String {
                    default: "my book.bin".into(),
                },
            }),
            Reply::Option(OptionDecl {
                name: "Log".into(),
                kind: OptionKind::String {
                    default: String::new(),
                },
            }),
            Reply::HandshakeOk(Protocol::Ugi),
            Reply::HandshakeOk(Protocol::Uci),
            Reply::ReadyOk,
            Reply::BestMove {
                mv: "a2a3".into(),
                ponder: None,
            },
            Reply::BestMove {
                mv: "a2b3".into(),
                ponder: Some("h7g6".into()),
            },
            Reply::BestMove {
                mv: NO_MOVE.into(),
                ponder: None,
            },
            Reply::Info(Info {
                depth: Some(3),
                seldepth: Some(5),
                multipv: Some(2),
                score: Some(Score::Cp(-12)),
                nodes: Some(1234),
                nps: Some(5000),
                time_ms: Some(17),
                pv: vec!["a2a3".into(), "b7b6".into()],
                string: Some("hello  there".into()),
            }),
            Reply::Info(Info {
                score: Some(Score::Mate(-3)),
                ..Info::default()
            }),
            Reply::Info(Info::string("error bad move")),
            Reply::PerftMove {
                mv: "a2a3".into(),
                nodes: 22,
            },
            Reply::PerftTotal { nodes: 506 },
            Reply::Other("Fairy-Stockfish 11.1 LB 64 by Fabian Fichter".into()),
            Reply::Other(String::new()),
        ];
        for reply in replies {
            let line = reply.to_string();
            assert_eq!(line.parse::<Reply>()?, reply, "{line}");
        }
        Ok(())
    }

    #[test]
    fn fairy_stockfish_lines_parse() -> TestResult {
        let info: Reply = "info depth 7 seldepth 8 multipv 1 score cp 10 nodes 8899 nps 240513 \
             tbhits 0 time 37 pv h2g3 b7b6 g3f4"
            .parse()?;
        let Reply::Info(info) = info else {
            panic!("not info: {info:?}");
        };
        assert_eq!(info.depth, Some(7));
        assert_eq!(info.multipv, Some(1));
        assert_eq!(info.score, Some(Score::Cp(10)));
        assert_eq!(info.nodes, Some(8899));
        assert_eq!(info.time_ms, Some(37));
        assert_eq!(info.pv, ["h2g3", "b7b6", "g3f4"]);
        assert_eq!(
            "Nodes searched: 506".parse::<Reply>()?,
            Reply::PerftTotal { nodes: 506 }
        );
        assert_eq!(
            "a7a6: 23".parse::<Reply>()?,
            Reply::PerftMove {
                mv: "a7a6".into(),
                nodes: 23
            }
        );
        let variant: Reply = "option name UCI_Variant type combo default chess var 3check \
             var breakthrough var chess"
            .parse()?;
        let Reply::Option(decl) = variant else {
            panic!("not an option: {variant:?}");
        };
        assert!(decl.is_named("uci_variant"));
        assert!(decl.check_value("breakthrough").is_ok());
        assert!(decl.check_value("capture-only").is_err());
        assert_eq!(
            "option name Debug Log File type string default ".parse::<Reply>()?,
            Reply::Option(OptionDecl {
                name: "Debug Log File".into(),
                kind: OptionKind::String {
                    default: String::new()
                }
            })
        );
        assert_eq!(
            "option name SyzygyPath type string default <empty>".parse::<Reply>()?,
            Reply::Option(OptionDecl {
                name: "SyzygyPath".into(),
                kind: OptionKind::String {
                    default: String::new()
                }
            })
        );
        Ok(())
    }

    #[test]
    fn bad_replies_name_the_problem() {
        let err = err::<Reply>;
        assert!(matches!(err("bestmove"), ProtocolError::MissingValue(_)));
        assert!(matches!(
            err("bestmove a2a3 b7b6"),
            ProtocolError::Unexpected { .. }
        ));
        assert!(matches!(
            err("info depth deep"),
            ProtocolError::BadNumber { .. }
        ));
        assert!(matches!(
            err("info score lots"),
            ProtocolError::Unexpected { .. }
        ));
        assert!(matches!(err("a2a3: many"), ProtocolError::BadNumber { .. }));
        assert!(matches!(err("nodes -1"), ProtocolError::BadNumber { .. }));
        assert!(err("option name X").to_string().contains("no 'type'"));
        assert!(err("option type spin").to_string().contains("no 'name'"));
        assert!(
            err("option name X type dial")
                .to_string()
                .contains("'dial'")
        );
        assert!(
            err("option name X type spin default 1 max 2")
                .to_string()
                .contains("'min'")
        );
        assert!(
            err("option name X type check default maybe")
                .to_string()
                .contains("check")
        );
    }
}
