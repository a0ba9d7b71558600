//! The text protocol between the runner and engines, both directions: UGI (cutegames' UCI-style
//! protocol) and UCI, applied to Breakthrough. `docs/PROTOCOL.md` describes the conversation.
//!
//! Runner → engine messages are [`Command`]s: [`Command::to_line`] writes one for a [`Protocol`]
//! and [`Command::from_str`] reads either protocol's spelling, so the engine side parses what the
//! runner writes. Engine → runner messages are [`Reply`]s, written by `Display` and read by
//! `FromStr`. Positions and moves are written exactly as [`crate::rules`] writes them.
//!
//! Parsing is strict about what it understands (a malformed number, position or move is a
//! [`ProtocolError`] naming it) and lenient about what it does not: unknown `info` fields are
//! skipped and unknown engine lines become [`Reply::Other`].

use crate::rules::{Color, Move, ParseMoveError, Position, PositionError, Rules};
use std::fmt::{self, Write as _};
use std::str::FromStr;

/// The name of the engine option that carries the rule set (`capture-only` or `classic`).
pub const RULES_OPTION: &str = "Rules";
/// The UCI option naming the variant (Fairy-Stockfish: `breakthrough` for classic rules).
pub const VARIANT_OPTION: &str = "UCI_Variant";
/// The move text of `bestmove` when the position has no legal move (the game is over).
pub const NO_MOVE: &str = "(none)";

/// The UCI variant name of a rule set, if one exists: `breakthrough` for [`Rules::Classic`];
/// capture-only Breakthrough has none.
pub const fn variant_name(rules: Rules) -> Option<&'static str> {
    match rules {
        Rules::Classic => Some("breakthrough"),
        Rules::CaptureOnly => None,
    }
}

/// Which dialect the runner speaks with an engine.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// UGI: `ugi`/`ugiok`, `uginewgame`, clocks as `p1time p2time p1inc p2inc` (p1 is White).
    #[default]
    Ugi,
    /// UCI: `uci`/`uciok`, `ucinewgame`, clocks as `wtime btime winc binc`.
    Uci,
}

impl Protocol {
    /// Both protocols.
    pub const ALL: [Protocol; 2] = [Protocol::Ugi, Protocol::Uci];

    /// The protocol's name, which is also the handshake command: `ugi` or `uci`.
    pub const fn name(self) -> &'static str {
        match self {
            Protocol::Ugi => "ugi",
            Protocol::Uci => "uci",
        }
    }

    /// The engine's answer that ends the handshake: `ugiok` or `uciok`.
    pub const fn ok(self) -> &'static str {
        match self {
            Protocol::Ugi => "ugiok",
            Protocol::Uci => "uciok",
        }
    }

    /// The new-game command: `uginewgame` or `ucinewgame`.
    pub const fn new_game(self) -> &'static str {
        match self {
            Protocol::Ugi => "uginewgame",
            Protocol::Uci => "ucinewgame",
        }
    }

    /// The `go` keywords for White's time, Black's time, White's and Black's increment.
    const fn clock_keys(self) -> [&'static str; 4] {
        match self {
            Protocol::Ugi => ["p1time", "p2time", "p1inc", "p2inc"],
            Protocol::Uci => ["wtime", "btime", "winc", "binc"],
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Protocol {
    type Err = ProtocolError;

    /// Parses `ugi` or `uci`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Protocol::ALL
            .into_iter()
            .find(|protocol| protocol.name() == s)
            .ok_or_else(|| ProtocolError::UnknownProtocol(s.to_string()))
    }
}

/// What is wrong with a protocol line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// An empty line where a command was expected.
    Empty,
    /// A command word this protocol does not have.
    UnknownCommand(String),
    /// A protocol name other than `ugi` or `uci`.
    UnknownProtocol(String),
    /// A keyword that needs a value is last on the line.
    MissingValue(String),
    /// A keyword whose value is not a number of the expected kind.
    BadNumber {
        /// The keyword, e.g. `depth`.
        key: String,
        /// The text found.
        value: String,
    },
    /// A word that does not belong where it stands.
    Unexpected {
        /// What was being read, e.g. `go`.
        context: &'static str,
        /// The word.
        token: String,
    },
    /// A position string the rules refuse.
    BadPosition(PositionError),
    /// A word in a move list that is not a move.
    BadMove(ParseMoveError),
    /// An `option` declaration that is malformed (the text says how).
    BadOption(String),
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Empty => write!(f, "empty line"),
            ProtocolError::UnknownCommand(word) => write!(f, "unknown command '{word}'"),
            ProtocolError::UnknownProtocol(name) => {
                write!(f, "unknown protocol '{name}' (expected 'ugi' or 'uci')")
            }
            ProtocolError::MissingValue(key) => write!(f, "'{key}' needs a value"),
            ProtocolError::BadNumber { key, value } => {
                write!(f, "'{key}' needs a number, got '{value}'")
            }
            ProtocolError::Unexpected { context, token } => {
                write!(f, "unexpected '{token}' in {context}")
            }
            ProtocolError::BadPosition(err) => write!(f, "bad position: {err}"),
            ProtocolError::BadMove(err) => write!(f, "bad move list: {err}"),
            ProtocolError::BadOption(problem) => write!(f, "bad option declaration: {problem}"),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// Parses the value after `key`, naming both when it is missing or not a `T`.
fn parse_number<T: FromStr>(key: &str, value: Option<&str>) -> Result<T, ProtocolError> {
    let value = value.ok_or_else(|| ProtocolError::MissingValue(key.to_string()))?;
    value.parse().map_err(|_| ProtocolError::BadNumber {
        key: key.to_string(),
        value: value.to_string(),
    })
}

/// Fails with [`ProtocolError::Unexpected`] when `rest` has another word.
fn expect_end<'a>(
    context: &'static str,
    mut rest: impl Iterator<Item = &'a str>,
) -> Result<(), ProtocolError> {
    match rest.next() {
        None => Ok(()),
        Some(token) => Err(ProtocolError::Unexpected {
            context,
            token: token.to_string(),
        }),
    }
}

/// The limits of a search, as sent with `go`. Every field is optional; a `go` with none of
/// them searches until `stop` like `infinite`. Times are milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoLimits {
    /// White's remaining clock time in ms (`p1time` / `wtime`).
    pub white_time_ms: Option<u64>,
    /// Black's remaining clock time in ms (`p2time` / `btime`).
    pub black_time_ms: Option<u64>,
    /// White's increment per move in ms (`p1inc` / `winc`).
    pub white_inc_ms: Option<u64>,
    /// Black's increment per move in ms (`p2inc` / `binc`).
    pub black_inc_ms: Option<u64>,
    /// Moves until the next time control (`movestogo`); none means sudden death.
    pub moves_to_go: Option<u32>,
    /// Search exactly this long, in ms (`movetime`).
    pub movetime_ms: Option<u64>,
    /// Search to this depth in plies (`depth`).
    pub depth: Option<u32>,
    /// Search about this many nodes (`nodes`).
    pub nodes: Option<u64>,
    /// Search until `stop` (`infinite`); `bestmove` is only sent after `stop`.
    pub infinite: bool,
}

impl GoLimits {
    /// Limits of a fixed time per move, in ms.
    pub fn movetime(ms: u64) -> GoLimits {
        GoLimits {
            movetime_ms: Some(ms),
            ..GoLimits::default()
        }
    }

    /// Limits of a fixed depth in plies.
    pub fn depth(plies: u32) -> GoLimits {
        GoLimits {
            depth: Some(plies),
            ..GoLimits::default()
        }
    }

    /// Limits of a node count.
    pub fn nodes(nodes: u64) -> GoLimits {
        GoLimits {
            nodes: Some(nodes),
            ..GoLimits::default()
        }
    }

    /// Clock limits: each side's remaining time and increment, in ms.
    pub fn clock(white_ms: u64, black_ms: u64, white_inc_ms: u64, black_inc_ms: u64) -> GoLimits {
        GoLimits {
            white_time_ms: Some(white_ms),
            black_time_ms: Some(black_ms),
            white_inc_ms: Some(white_inc_ms),
            black_inc_ms: Some(black_inc_ms),
            ..GoLimits::default()
        }
    }

    /// The remaining clock time of `side` in ms, if a clock was sent.
    pub fn time_ms(&self, side: Color) -> Option<u64> {
        match side {
            Color::White => self.white_time_ms,
            Color::Black => self.black_time_ms,
        }
    }

    /// The increment of `side` in ms, if one was sent.
    pub fn inc_ms(&self, side: Color) -> Option<u64> {
        match side {
            Color::White => self.white_inc_ms,
            Color::Black => self.black_inc_ms,
        }
    }

    /// The numeric limits with their keywords in `protocol`, in the order they are written.
    fn numeric_fields(&self, protocol: Protocol) -> [(&'static str, Option<u64>); 8] {
        let [wtime, btime, winc, binc] = protocol.clock_keys();
        [
            (wtime, self.white_time_ms),
            (btime, self.black_time_ms),
            (winc, self.white_inc_ms),
            (binc, self.black_inc_ms),
            ("movestogo", self.moves_to_go.map(u64::from)),
            ("movetime", self.movetime_ms),
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
        ]
    }

    /// Writes ` key value` for each limit set, then ` infinite` when set.
    fn write_args(&self, protocol: Protocol, out: &mut String) {
        for (key, value) in self.numeric_fields(protocol) {
            if let Some(value) = value {
                let _ = write!(out, " {key} {value}");
            }
        }
        if self.infinite {
            out.push_str(" infinite");
        }
    }

    /// Reads `go` arguments in either protocol's spelling.
    fn parse_args<'a>(
        mut tokens: impl Iterator<Item = &'a str>,
    ) -> Result<GoLimits, ProtocolError> {
        let mut limits = GoLimits::default();
        while let Some(key) = tokens.next() {
            if key == "infinite" {
                limits.infinite = true;
                continue;
            }
            let value = tokens.next();
            match key {
                "p1time" | "wtime" => limits.white_time_ms = Some(parse_number(key, value)?),
                "p2time" | "btime" => limits.black_time_ms = Some(parse_number(key, value)?),
                "p1inc" | "winc" => limits.white_inc_ms = Some(parse_number(key, value)?),
                "p2inc" | "binc" => limits.black_inc_ms = Some(parse_number(key, value)?),
                "movestogo" => limits.moves_to_go = Some(parse_number(key, value)?),
                "movetime" => limits.movetime_ms = Some(parse_number(key, value)?),
                "depth" => limits.depth = Some(parse_number(key, value)?),
                "nodes" => limits.nodes = Some(parse_number(key, value)?),
                _ => {
                    return Err(ProtocolError::Unexpected {
                        context: "go",
                        token: key.to_string(),
                    });
                }
            }
        }
        Ok(limits)
    }
}

/// A runner → engine message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `ugi` or `uci`: start the handshake in that protocol.
    Hello(Protocol),
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
    /// The line for `protocol`, without a newline. [`Command::Hello`] and [`Command::NewGame`]
    /// carry or take their protocol; the clock keywords of `go` follow `protocol`.
    pub fn to_line(&self, protocol: Protocol) -> String {
        let mut line = String::new();
        match self {
            Command::Hello(hello) => line.push_str(hello.name()),
            Command::SetOption { name, value } => {
                let _ = write!(line, "setoption name {name}");
                if let Some(value) = value {
                    let _ = write!(line, " value {value}");
                }
            }
            Command::IsReady => line.push_str("isready"),
            Command::NewGame => line.push_str(protocol.new_game()),
            Command::Position { start, moves } => {
                if *start == Position::startpos() {
                    line.push_str("position startpos");
                } else {
                    let _ = write!(line, "position fen {start}");
                }
                if !moves.is_empty() {
                    line.push_str(" moves");
                    for mv in moves {
                        line.push(' ');
                        let _ = write!(line, "{mv}");
                    }
                }
            }
            Command::Go(limits) => {
                line.push_str("go");
                limits.write_args(protocol, &mut line);
            }
            Command::Perft { depth } => {
                let _ = write!(line, "go perft {depth}");
            }
            Command::Stop => line.push_str("stop"),
            Command::Quit => line.push_str("quit"),
        }
        line
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
                let start = fields
                    .join(" ")
                    .parse()
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
            "ugi" => bare(Command::Hello(Protocol::Ugi)),
            "uci" => bare(Command::Hello(Protocol::Uci)),
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

/// A search score, from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (`score cp N`).
    Cp(i32),
    /// A forced win in N moves, or a forced loss when negative (`score mate N`).
    Mate(i32),
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

/// The words of an `info` line that start a field this module reads.
const INFO_KEYS: [&str; 8] = [
    "depth", "seldepth", "score", "nodes", "nps", "time", "pv", "string",
];

/// The fields of an `info` line that the harness reads; other fields are skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Search depth in plies.
    pub depth: Option<u32>,
    /// Selective depth in plies.
    pub seldepth: Option<u32>,
    /// The score of the best line.
    pub score: Option<Score>,
    /// Nodes searched so far.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Time searched so far, in ms.
    pub time_ms: Option<u64>,
    /// The principal variation as the engine wrote its moves (not checked).
    pub pv: Vec<String>,
    /// Free text (`info string ...`), always last on the line.
    pub string: Option<String>,
}

impl Info {
    /// An `info string <text>` line.
    pub fn string(text: impl Into<String>) -> Info {
        Info {
            string: Some(text.into()),
            ..Info::default()
        }
    }

    /// Takes every field that `newer` has, keeping the others: folds a search's info lines
    /// into the latest known depth, score, nodes and pv.
    pub fn merge(&mut self, newer: &Info) {
        fn take<T: Clone>(old: &mut Option<T>, new: &Option<T>) {
            if new.is_some() {
                old.clone_from(new);
            }
        }
        take(&mut self.depth, &newer.depth);
        take(&mut self.seldepth, &newer.seldepth);
        take(&mut self.score, &newer.score);
        take(&mut self.nodes, &newer.nodes);
        take(&mut self.nps, &newer.nps);
        take(&mut self.time_ms, &newer.time_ms);
        take(&mut self.string, &newer.string);
        if !newer.pv.is_empty() {
            self.pv.clone_from(&newer.pv);
        }
    }

    /// Reads the words after `info`. `string` takes the rest of `line` as it is written.
    fn parse(line: &str) -> Result<Info, ProtocolError> {
        let (fields, string) = match line.split_once(" string") {
            Some((fields, text)) if text.is_empty() || text.starts_with(' ') => {
                (fields, Some(text.trim_start().to_string()))
            }
            _ => (line, None),
        };
        let mut info = Info {
            string,
            ..Info::default()
        };
        let mut tokens = fields.split_whitespace().skip(1).peekable();
        while let Some(key) = tokens.next() {
            match key {
                "depth" => info.depth = Some(parse_number(key, tokens.next())?),
                "seldepth" => info.seldepth = Some(parse_number(key, tokens.next())?),
                "nodes" => info.nodes = Some(parse_number(key, tokens.next())?),
                "nps" => info.nps = Some(parse_number(key, tokens.next())?),
                "time" => info.time_ms = Some(parse_number(key, tokens.next())?),
                "score" => info.score = Some(parse_score(&mut tokens)?),
                "pv" => {
                    while let Some(mv) = tokens.next_if(|token| !INFO_KEYS.contains(token)) {
                        info.pv.push(mv.to_string());
                    }
                }
                _ => {} // a field the harness does not read, or a value of one
            }
        }
        Ok(info)
    }
}

/// Reads `cp N` or `mate N` after `score`.
fn parse_score<'a>(tokens: &mut impl Iterator<Item = &'a str>) -> Result<Score, ProtocolError> {
    match tokens.next() {
        Some(key @ "cp") => Ok(Score::Cp(parse_number(key, tokens.next())?)),
        Some(key @ "mate") => Ok(Score::Mate(parse_number(key, tokens.next())?)),
        Some(token) => Err(ProtocolError::Unexpected {
            context: "info score",
            token: token.to_string(),
        }),
        None => Err(ProtocolError::MissingValue("score".into())),
    }
}

impl fmt::Display for Info {
    /// Writes `info [depth D] [seldepth S] [score cp|mate N] [nodes N] [nps N] [time T]
    /// [pv ...] [string ...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("seldepth", self.seldepth.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(value) = value {
                write!(f, " {key} {value}")?;
            }
        }
        if let Some(score) = self.score {
            write!(f, " score {score}")?;
        }
        for (key, value) in [
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("time", self.time_ms),
        ] {
            if let Some(value) = value {
                write!(f, " {key} {value}")?;
            }
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        if let Some(text) = &self.string {
            write!(f, " string {text}")?;
        }
        Ok(())
    }
}

/// The type of an engine option, with its default and range or choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `type check default true|false`.
    Check {
        /// The default value.
        default: bool,
    },
    /// `type spin default D min A max B`: an integer in `min..=max`.
    Spin {
        /// The default value.
        default: i64,
        /// The smallest value allowed.
        min: i64,
        /// The largest value allowed.
        max: i64,
    },
    /// `type combo default D var A var B ...`: one of a list of words.
    Combo {
        /// The default choice.
        default: String,
        /// The choices, in declaration order.
        choices: Vec<String>,
    },
    /// `type button`: an action with no value.
    Button,
    /// `type string default D`: any text (`<empty>` declares an empty default).
    String {
        /// The default value.
        default: String,
    },
}

impl OptionKind {
    /// The type's name in a declaration: `check`, `spin`, `combo`, `button` or `string`.
    pub const fn type_name(&self) -> &'static str {
        match self {
            OptionKind::Check { .. } => "check",
            OptionKind::Spin { .. } => "spin",
            OptionKind::Combo { .. } => "combo",
            OptionKind::Button => "button",
            OptionKind::String { .. } => "string",
        }
    }
}

/// An option an engine declares: `option name <name> type <type> ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    /// The name, which may contain spaces.
    pub name: String,
    /// The type with its default and range or choices.
    pub kind: OptionKind,
}

impl OptionDecl {
    /// The `Rules` option that engines built on [`crate::engine::server`] declare: a combo of
    /// every rule set, defaulting to capture-only.
    pub fn rules() -> OptionDecl {
        OptionDecl {
            name: RULES_OPTION.to_string(),
            kind: OptionKind::Combo {
                default: Rules::default().name().to_string(),
                choices: Rules::ALL.iter().map(|r| r.name().to_string()).collect(),
            },
        }
    }

    /// A spin option: an integer from `min` to `max`.
    pub fn spin(name: &str, default: i64, min: i64, max: i64) -> OptionDecl {
        OptionDecl {
            name: name.to_string(),
            kind: OptionKind::Spin { default, min, max },
        }
    }

    /// True when this option's name is `name`; option names compare case-insensitively.
    pub fn is_named(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
    }

    /// Checks that `value` is acceptable for this option.
    ///
    /// # Errors
    /// A message saying what is wrong: not `true`/`false`, not an integer in range, not one of
    /// the choices, or a value for a button.
    pub fn check_value(&self, value: &str) -> Result<(), String> {
        match &self.kind {
            OptionKind::Check { .. } if value == "true" || value == "false" => Ok(()),
            OptionKind::Check { .. } => Err(format!("'{value}' is not 'true' or 'false'")),
            OptionKind::Spin { min, max, .. } => match value.parse::<i64>() {
                Ok(n) if (*min..=*max).contains(&n) => Ok(()),
                _ => Err(format!("'{value}' is not an integer from {min} to {max}")),
            },
            OptionKind::Combo { choices, .. } => {
                if choices.iter().any(|c| c.eq_ignore_ascii_case(value)) {
                    Ok(())
                } else {
                    Err(format!("'{value}' is not one of: {}", choices.join(", ")))
                }
            }
            OptionKind::Button if value.is_empty() => Ok(()),
            OptionKind::Button => Err("a button takes no value".to_string()),
            OptionKind::String { .. } => Ok(()),
        }
    }

    /// Reads the words after `option`.
    fn parse(line: &str) -> Result<OptionDecl, ProtocolError> {
        let bad = |problem: &str| ProtocolError::BadOption(format!("{problem} in '{line}'"));
        let mut tokens = line.split_whitespace().skip(1);
        if tokens.next() != Some("name") {
            return Err(bad("no 'name'"));
        }
        let words: Vec<&str> = tokens.collect();
        let type_at = words
            .iter()
            .position(|&w| w == "type")
            .ok_or_else(|| bad("no 'type'"))?;
        let name = words[..type_at].join(" ");
        if name.is_empty() {
            return Err(bad("an empty name"));
        }
        let type_name = *words
            .get(type_at + 1)
            .ok_or_else(|| bad("no type after 'type'"))?;
        let fields = OptionFields::parse(&words[type_at + 2..]);
        let kind = match type_name {
            "check" => match fields.default.as_deref() {
                Some("true") => OptionKind::Check { default: true },
                Some("false") => OptionKind::Check { default: false },
                _ => return Err(bad("a check default that is not 'true' or 'false'")),
            },
            "spin" => OptionKind::Spin {
                default: fields.number("default").map_err(|p| bad(&p))?,
                min: fields.number("min").map_err(|p| bad(&p))?,
                max: fields.number("max").map_err(|p| bad(&p))?,
            },
            "combo" => OptionKind::Combo {
                default: fields.default.unwrap_or_default(),
                choices: fields.vars,
            },
            "button" => OptionKind::Button,
            "string" => OptionKind::String {
                default: fields
                    .default
                    .filter(|d| d != "<empty>")
                    .unwrap_or_default(),
            },
            other => return Err(bad(&format!("unknown type '{other}'"))),
        };
        Ok(OptionDecl { name, kind })
    }
}

/// The `default`, `min`, `max` and `var` fields of an option declaration, as text.
#[derive(Default)]
struct OptionFields {
    default: Option<String>,
    min: Option<String>,
    max: Option<String>,
    vars: Vec<String>,
}

impl OptionFields {
    /// Splits `words` at the keywords `default`, `min`, `max`, `var`; a value runs to the next
    /// keyword and may be empty or hold spaces.
    fn parse(words: &[&str]) -> OptionFields {
        let mut fields = OptionFields::default();
        let mut key: Option<&str> = None;
        let mut value: Vec<&str> = Vec::new();
        for word in words.iter().copied().chain([""]) {
            let is_key = matches!(word, "default" | "min" | "max" | "var" | "");
            if !is_key {
                value.push(word);
                continue;
            }
            let text = value.join(" ");
            match key {
                Some("default") => fields.default = Some(text),
                Some("min") => fields.min = Some(text),
                Some("max") => fields.max = Some(text),
                Some(_) => fields.vars.push(text),
                None => {}
            }
            key = Some(word);
            value.clear();
        }
        fields
    }

    /// The integer field `key` (`default`, `min` or `max`); the error says what is wrong.
    fn number(&self, key: &str) -> Result<i64, String> {
        let text = match key {
            "default" => &self.default,
            "min" => &self.min,
            _ => &self.max,
        };
        let text = text
            .as_deref()
            .ok_or_else(|| format!("a spin without '{key}'"))?;
        text.parse()
            .map_err(|_| format!("a spin '{key}' that is not an integer ('{text}')"))
    }
}

impl fmt::Display for OptionDecl {
    /// Writes `option name <name> type <type> [default D] [min A max B] [var C ...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "option name {} type {}",
            self.name,
            self.kind.type_name()
        )?;
        match &self.kind {
            OptionKind::Check { default } => write!(f, " default {default}"),
            OptionKind::Spin { default, min, max } => {
                write!(f, " default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, choices } => {
                write!(f, " default {default}")?;
                choices.iter().try_for_each(|c| write!(f, " var {c}"))
            }
            OptionKind::Button => Ok(()),
            OptionKind::String { default } if default.is_empty() => f.write_str(" default <empty>"),
            OptionKind::String { default } => write!(f, " default {default}"),
        }
    }
}

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
    HelloOk(Protocol),
    /// `readyok`: the answer to `isready`.
    ReadyOk,
    /// `bestmove <move> [ponder <move>]`. The move is kept as written: the runner judges it.
    /// [`NO_MOVE`] (`(none)`) means the engine found no legal move.
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
            ["ugiok"] => Ok(Reply::HelloOk(Protocol::Ugi)),
            ["uciok"] => Ok(Reply::HelloOk(Protocol::Uci)),
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
            Reply::HelloOk(protocol) => f.write_str(protocol.ok()),
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

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    fn sample_commands() -> Result<Vec<Command>, Box<dyn std::error::Error>> {
        let start: Position = "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w".parse()?;
        Ok(vec![
            Command::Hello(Protocol::Ugi),
            Command::Hello(Protocol::Uci),
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
        for protocol in Protocol::ALL {
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

    /// The error parsing `line` as a `T`; panics when it parses.
    fn err<T: FromStr<Err = ProtocolError> + fmt::Debug>(line: &str) -> ProtocolError {
        match line.parse::<T>() {
            Ok(parsed) => panic!("'{line}' parsed as {parsed:?}"),
            Err(err) => err,
        }
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
            Reply::HelloOk(Protocol::Ugi),
            Reply::HelloOk(Protocol::Uci),
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

    #[test]
    fn option_values_are_checked() {
        let seed = OptionDecl::spin("Seed", 0, 0, 100);
        assert!(seed.check_value("100").is_ok());
        assert!(
            seed.check_value("101")
                .is_err_and(|e| e.contains("0 to 100"))
        );
        assert!(seed.check_value("x").is_err());
        let rules = OptionDecl::rules();
        assert!(rules.check_value("classic").is_ok());
        assert!(
            rules
                .check_value("chess")
                .is_err_and(|e| e.contains("capture-only, classic"))
        );
    }

    #[test]
    fn info_merge_keeps_the_latest_of_each_field() {
        let mut info = Info {
            depth: Some(5),
            score: Some(Score::Cp(30)),
            pv: vec!["a2a3".into()],
            ..Info::default()
        };
        info.merge(&Info {
            nodes: Some(99),
            ..Info::default()
        });
        info.merge(&Info::string("x"));
        assert_eq!(info.depth, Some(5));
        assert_eq!(info.score, Some(Score::Cp(30)));
        assert_eq!(info.nodes, Some(99));
        assert_eq!(info.pv, ["a2a3"]);
    }

    #[test]
    fn variants_and_protocol_names() {
        assert_eq!(variant_name(Rules::Classic), Some("breakthrough"));
        assert_eq!(variant_name(Rules::CaptureOnly), None);
        assert_eq!("uci".parse::<Protocol>(), Ok(Protocol::Uci));
        assert!(err::<Protocol>("xboard").to_string().contains("xboard"));
    }
}
