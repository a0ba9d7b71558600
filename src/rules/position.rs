//! Positions, their string form, move generation and move checking.

use super::{Color, Move, Outcome, ParseMoveError, Reason, Rules, Square};
use std::fmt;
use std::str::FromStr;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;
const RANK_1: u64 = 0xFF;
const RANK_8: u64 = RANK_1 << 56;

/// The most pawns a side can have (its 16 at the start).
const MAX_PAWNS: u32 = 16;

/// The three ways a pawn steps forward, indexing [`MoveSet`]'s target sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Straight = 0,
    /// Diagonally towards the a-file.
    West = 1,
    /// Diagonally towards the h-file.
    East = 2,
}

const STEPS: [Step; 3] = [Step::Straight, Step::West, Step::East];

impl Step {
    /// The change of square index for a step by `side`.
    const fn delta(self, side: Color) -> i8 {
        let forward = match side {
            Color::White => 8,
            Color::Black => -8,
        };
        forward
            + match self {
                Step::Straight => 0,
                Step::West => -1,
                Step::East => 1,
            }
    }

    /// The squares reached by stepping every pawn of `pawns` (owned by `side`) this way,
    /// dropping the pawns a diagonal step would take off the board.
    fn advance(self, pawns: u64, side: Color) -> u64 {
        match side {
            Color::White => White::advance(self, pawns),
            Color::Black => Black::advance(self, pawns),
        }
    }
}

/// A side known at compile time, for the move-generation hot paths (perft, search).
pub(crate) trait Side {
    /// The side as a value.
    const COLOR: Color;
    /// The bitboard of this side's goal rank.
    const GOAL: u64;
    /// The other side.
    type Opponent: Side;

    /// The squares reached by stepping every pawn of `pawns` this way, dropping the pawns a
    /// diagonal step would take off the board.
    #[inline(always)]
    fn advance(step: Step, pawns: u64) -> u64 {
        let movers = match step {
            Step::Straight => pawns,
            Step::West => pawns & !FILE_A,
            Step::East => pawns & !FILE_H,
        };
        let delta = step.delta(Self::COLOR);
        if delta > 0 {
            movers << delta
        } else {
            movers >> -delta
        }
    }

    /// The target squares of this side's moves, per [`Step`], with `own` its pawns and `enemy`
    /// the other side's; whether the game is already decided is not looked at.
    #[inline(always)]
    fn targets(own: u64, enemy: u64, rules: Rules) -> [u64; 3] {
        let diagonal_targets = match rules {
            Rules::CaptureOnly => enemy,
            Rules::Classic => !own,
        };
        [
            Self::advance(Step::Straight, own) & !(own | enemy),
            Self::advance(Step::West, own) & diagonal_targets,
            Self::advance(Step::East, own) & diagonal_targets,
        ]
    }

    /// Calls `visit(from, to)` with the one-bit bitboards of each move in `targets`.
    #[inline(always)]
    fn for_each_move(targets: [u64; 3], mut visit: impl FnMut(u64, u64)) {
        for (step, mut set) in STEPS.into_iter().zip(targets) {
            let delta = step.delta(Self::COLOR);
            while set != 0 {
                let to = set & set.wrapping_neg();
                set &= set - 1;
                let from = if delta > 0 { to >> delta } else { to << -delta };
                visit(from, to);
            }
        }
    }
}

/// White as a compile-time [`Side`].
pub(crate) struct White;
/// Black as a compile-time [`Side`].
pub(crate) struct Black;

impl Side for White {
    const COLOR: Color = Color::White;
    const GOAL: u64 = RANK_8;
    type Opponent = Black;
}

impl Side for Black {
    const COLOR: Color = Color::Black;
    const GOAL: u64 = RANK_1;
    type Opponent = White;
}

/// A Breakthrough position: where each side's pawns stand and whose turn it is.
///
/// Build one with [`Position::startpos`], [`Position::new`] or by parsing a position string
/// (`"pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w"`, or `"startpos"`). Every `Position`
/// satisfies: no square holds two pawns, at most 16 pawns a side, not both sides on their goal
/// ranks, and at least one pawn on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pawns: [u64; 2],
    side: Color,
}

impl Position {
    /// The start: White on ranks 1–2, Black on ranks 7–8, White to move.
    pub const fn startpos() -> Position {
        Position {
            pawns: [0xFFFF, 0xFFFF << 48],
            side: Color::White,
        }
    }

    /// A position from bitboards (bit `8 * rank + file`) and the side to move.
    ///
    /// # Errors
    /// [`PositionError`] when a square holds two pawns, a side has more than 16, both sides
    /// stand on their goal ranks, or the board is empty.
    pub fn new(white: u64, black: u64, side: Color) -> Result<Position, PositionError> {
        if white & black != 0 {
            return Err(PositionError::Overlap);
        }
        for (color, pawns) in [(Color::White, white), (Color::Black, black)] {
            if pawns.count_ones() > MAX_PAWNS {
                return Err(PositionError::TooManyPawns {
                    color,
                    count: pawns.count_ones(),
                });
            }
        }
        if white & RANK_8 != 0 && black & RANK_1 != 0 {
            return Err(PositionError::BothOnGoal);
        }
        if white | black == 0 {
            return Err(PositionError::NoPawns);
        }
        Ok(Position {
            pawns: [white, black],
            side,
        })
    }

    /// The pawns of `color` as a bitboard.
    pub const fn pawns(&self, color: Color) -> u64 {
        self.pawns[color.index()]
    }

    /// The side to move.
    pub const fn side_to_move(&self) -> Color {
        self.side
    }

    /// Whose pawn stands on `square`, if any.
    pub fn pawn_at(&self, square: Square) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&color| self.pawns(color) & square.bit() != 0)
    }

    /// True when a pawn stands on its goal rank or a side has no pawns: the game is over
    /// whatever the rules. (A game can also end by [`Reason::NoMoves`].)
    #[inline(always)]
    pub const fn is_decided(&self) -> bool {
        let [white, black] = self.pawns;
        white & RANK_8 != 0 || black & RANK_1 != 0 || white == 0 || black == 0
    }

    /// The result when the game is over in this position under `rules`, `None` while it goes
    /// on. A pawn on its goal rank wins first, then capturing every enemy pawn, then the side to
    /// move loses when it has no legal move.
    pub fn outcome(&self, rules: Rules) -> Option<Outcome> {
        let [white, black] = self.pawns;
        let decided = |winner, reason| Some(Outcome { winner, reason });
        if white & RANK_8 != 0 {
            decided(Color::White, Reason::GoalRank)
        } else if black & RANK_1 != 0 {
            decided(Color::Black, Reason::GoalRank)
        } else if white == 0 {
            decided(Color::Black, Reason::AllCaptured)
        } else if black == 0 {
            decided(Color::White, Reason::AllCaptured)
        } else if self.pseudo_moves(rules).is_empty() {
            decided(self.side.opponent(), Reason::NoMoves)
        } else {
            None
        }
    }

    /// The legal moves under `rules`; empty when the game is over.
    #[inline]
    pub fn legal_moves(&self, rules: Rules) -> MoveSet {
        if self.is_decided() {
            MoveSet::empty(self.side)
        } else {
            self.pseudo_moves(rules)
        }
    }

    /// The moves of the side to move, ignoring whether the game is already decided.
    #[inline(always)]
    pub(crate) fn pseudo_moves(&self, rules: Rules) -> MoveSet {
        let own = self.pawns(self.side);
        let enemy = self.pawns(self.side.opponent());
        MoveSet {
            side: self.side,
            targets: match self.side {
                Color::White => White::targets(own, enemy, rules),
                Color::Black => Black::targets(own, enemy, rules),
            },
        }
    }

    /// The position after `mv`, which must be legal here (as from [`Position::legal_moves`] or
    /// checked by [`Position::check_move`]); an illegal move gives a meaningless position.
    #[inline(always)]
    pub fn play_unchecked(&self, mv: Move) -> Position {
        let us = self.side.index();
        let mut pawns = self.pawns;
        pawns[us] ^= mv.from.bit() | mv.to.bit();
        pawns[1 - us] &= !mv.to.bit();
        Position {
            pawns,
            side: self.side.opponent(),
        }
    }

    /// The position after `mv`, checked under `rules`.
    ///
    /// # Errors
    /// [`IllegalMove`] saying why the move is illegal here.
    pub fn play(&self, rules: Rules, mv: Move) -> Result<Position, IllegalMove> {
        self.check_move(rules, mv)?;
        Ok(self.play_unchecked(mv))
    }

    /// True when `mv` takes an enemy pawn.
    pub fn is_capture(&self, mv: Move) -> bool {
        self.pawns(self.side.opponent()) & mv.to.bit() != 0
    }

    /// Checks `mv` under `rules`.
    ///
    /// # Errors
    /// [`IllegalMove`] with the first reason that applies: the game is over, no pawn of the side
    /// to move on the from-square, not one step forward, a straight step onto an occupied square,
    /// a diagonal step onto one's own pawn, or (under capture-only rules) onto an empty square.
    pub fn check_move(&self, rules: Rules, mv: Move) -> Result<(), IllegalMove> {
        self.illegality(rules, mv)
            .map_or(Ok(()), |reason| Err(IllegalMove { mv, reason }))
    }

    fn illegality(&self, rules: Rules, mv: Move) -> Option<IllegalReason> {
        if let Some(outcome) = self.outcome(rules) {
            return Some(IllegalReason::GameOver(outcome));
        }
        let side = self.side;
        if self.pawns(side) & mv.from.bit() == 0 {
            return Some(IllegalReason::NoPawn(side, mv.from));
        }
        let Some(step) = STEPS
            .into_iter()
            .find(|step| step.advance(mv.from.bit(), side) == mv.to.bit())
        else {
            return Some(IllegalReason::NotForward(side));
        };
        match (step, self.pawn_at(mv.to)) {
            (Step::Straight, None) => None,
            (Step::Straight, Some(_)) => Some(IllegalReason::Blocked(mv.to)),
            (_, Some(color)) if color == side => Some(IllegalReason::OntoOwnPawn(mv.to)),
            (_, Some(_)) => None,
            (_, None) if rules == Rules::CaptureOnly => Some(IllegalReason::DiagonalToEmpty),
            (_, None) => None,
        }
    }

    /// Parses `text` as a move and checks it under `rules`.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when `text` is not of the form `a2a3`, [`MoveError::Illegal`] with
    /// the reason when the move is illegal here.
    pub fn parse_move(&self, rules: Rules, text: &str) -> Result<Move, MoveError> {
        let mv: Move = text.parse().map_err(MoveError::Syntax)?;
        self.check_move(rules, mv).map_err(MoveError::Illegal)?;
        Ok(mv)
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

/// The legal moves of a position as three target bitboards (straight, west, east); the
/// from-square of each move follows from its target. Holds no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveSet {
    side: Color,
    targets: [u64; 3],
}

impl MoveSet {
    const fn empty(side: Color) -> MoveSet {
        MoveSet {
            side,
            targets: [0; 3],
        }
    }

    /// The number of moves.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        let [a, b, c] = self.targets;
        (a.count_ones() + b.count_ones() + c.count_ones()) as usize
    }

    /// True when there is no move.
    pub const fn is_empty(&self) -> bool {
        let [a, b, c] = self.targets;
        a | b | c == 0
    }

    /// True when `mv` is one of the moves.
    pub fn contains(&self, mv: Move) -> bool {
        self.iter().any(|m| m == mv)
    }

    /// The moves: straight steps, then west, then east captures, each by target square.
    #[inline]
    pub fn iter(&self) -> Moves {
        Moves {
            side: self.side,
            targets: self.targets,
            step: 0,
        }
    }
}

impl IntoIterator for MoveSet {
    type Item = Move;
    type IntoIter = Moves;
    fn into_iter(self) -> Moves {
        self.iter()
    }
}

/// Iterator over a [`MoveSet`].
#[derive(Clone, Debug)]
pub struct Moves {
    side: Color,
    targets: [u64; 3],
    step: usize,
}

impl Iterator for Moves {
    type Item = Move;

    #[inline(always)]
    fn next(&mut self) -> Option<Move> {
        while self.step < 3 {
            let targets = &mut self.targets[self.step];
            if *targets != 0 {
                let to = targets.trailing_zeros() as i8;
                *targets &= *targets - 1;
                let from = to - STEPS[self.step].delta(self.side);
                return Some(Move {
                    from: Square(from as u8),
                    to: Square(to as u8),
                });
            }
            self.step += 1;
        }
        None
    }
}

/// Why a position string or a set of bitboards is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// Nothing to parse.
    Empty,
    /// The board part does not have 8 ranks separated by `/`.
    RankCount {
        /// How many ranks were found.
        found: usize,
    },
    /// A rank does not describe exactly 8 squares.
    RankLength {
        /// The rank, 1–8.
        rank: u8,
        /// How many squares it describes.
        squares: usize,
    },
    /// A character that is neither `P`, `p` nor a digit 1–8.
    UnknownCharacter {
        /// The character.
        ch: char,
        /// The rank it stands in, 1–8.
        rank: u8,
    },
    /// No side to move after the board.
    MissingSide,
    /// The side to move is not `w` or `b`.
    BadSide(String),
    /// A side has more than 16 pawns.
    TooManyPawns {
        /// The side.
        color: Color,
        /// How many it has.
        count: u32,
    },
    /// White has a pawn on rank 8 and Black one on rank 1: no game reaches that.
    BothOnGoal,
    /// The board has no pawns at all.
    NoPawns,
    /// A square holds a pawn of each side.
    Overlap,
    /// Something follows `startpos` (moves are not part of a position string).
    AfterStartpos(String),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Empty => write!(f, "empty position string"),
            PositionError::RankCount { found } => write!(
                f,
                "the board has {found} ranks, expected 8 separated by '/'"
            ),
            PositionError::RankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares, expected 8")
            }
            PositionError::UnknownCharacter { ch, rank } => write!(
                f,
                "unknown character '{ch}' in rank {rank} (expected 'P', 'p' or a digit 1-8)"
            ),
            PositionError::MissingSide => {
                write!(
                    f,
                    "missing side to move after the board (expected 'w' or 'b')"
                )
            }
            PositionError::BadSide(side) => {
                write!(f, "bad side to move '{side}' (expected 'w' or 'b')")
            }
            PositionError::TooManyPawns { color, count } => {
                write!(f, "{color} has {count} pawns, at most 16 are allowed")
            }
            PositionError::BothOnGoal => write!(
                f,
                "both sides stand on their goal ranks (White on rank 8, Black on rank 1)"
            ),
            PositionError::NoPawns => write!(f, "the board has no pawns"),
            PositionError::Overlap => write!(f, "a square holds a pawn of each side"),
            PositionError::AfterStartpos(extra) => write!(
                f,
                "unexpected '{extra}' after startpos (a position string holds no moves)"
            ),
        }
    }
}

impl std::error::Error for PositionError {}

impl FromStr for Position {
    type Err = PositionError;

    /// Parses `startpos` or `<board> <side> [ignored fields...]`: the board is ranks 8 to 1
    /// separated by `/`, `P` a white pawn, `p` a black pawn, a digit a run of empty squares;
    /// the side is `w` or `b`. Trailing fields such as Fairy-Stockfish's `- - 0 1` are ignored.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut fields = text.split_whitespace();
        let board = fields.next().ok_or(PositionError::Empty)?;
        if board == "startpos" {
            return match fields.next() {
                None => Ok(Position::startpos()),
                Some(extra) => Err(PositionError::AfterStartpos(extra.to_string())),
            };
        }
        let (white, black) = parse_board(board)?;
        let side = match fields.next() {
            None => return Err(PositionError::MissingSide),
            Some("w") => Color::White,
            Some("b") => Color::Black,
            Some(other) => return Err(PositionError::BadSide(other.to_string())),
        };
        Position::new(white, black, side)
    }
}

/// Parses the board field into (white, black) bitboards.
fn parse_board(board: &str) -> Result<(u64, u64), PositionError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(PositionError::RankCount { found: ranks.len() });
    }
    let mut pawns = [0u64; 2];
    for (row, text) in ranks.into_iter().enumerate() {
        let rank = 7 - row as u8;
        let mut file = 0usize;
        for ch in text.chars() {
            let unknown = PositionError::UnknownCharacter { ch, rank: rank + 1 };
            match ch {
                '1'..='8' => file += ch as usize - '0' as usize,
                'P' | 'p' => {
                    let color = if ch == 'P' {
                        Color::White
                    } else {
                        Color::Black
                    };
                    if file < 8 {
                        pawns[color.index()] |= 1 << (rank as usize * 8 + file);
                    }
                    file += 1;
                }
                _ => return Err(unknown),
            }
        }
        if file != 8 {
            return Err(PositionError::RankLength {
                rank: rank + 1,
                squares: file,
            });
        }
    }
    Ok((pawns[0], pawns[1]))
}

impl fmt::Display for Position {
    /// Writes the position string: ranks 8 to 1, then `w` or `b`, e.g.
    /// `pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let square = Square(rank * 8 + file);
                match self.pawn_at(square) {
                    None => empty += 1,
                    Some(color) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        f.write_str(if color == Color::White { "P" } else { "p" })?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        write!(f, " {}", self.side.letter())
    }
}

impl serde::Serialize for Position {
    /// Serializes the position as its string, e.g.
    /// `"pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w"`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Why a move is illegal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// The game is already over.
    GameOver(Outcome),
    /// The side to move has no pawn on the from-square.
    NoPawn(Color, Square),
    /// The move is not one step straight or diagonally forward for the side to move.
    NotForward(Color),
    /// A straight step onto an occupied square (straight steps never capture).
    Blocked(Square),
    /// A diagonal step onto a pawn of the side to move.
    OntoOwnPawn(Square),
    /// A diagonal step to an empty square, which capture-only rules forbid.
    DiagonalToEmpty,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::GameOver(outcome) => write!(f, "the game is already over: {outcome}"),
            IllegalReason::NoPawn(side, square) => write!(f, "no {side} pawn on {square}"),
            IllegalReason::NotForward(side) => {
                write!(f, "not one step forward for {side}")
            }
            IllegalReason::Blocked(square) => write!(
                f,
                "straight step onto {square}, which is occupied (straight steps never capture)"
            ),
            IllegalReason::OntoOwnPawn(square) => {
                write!(
                    f,
                    "diagonal step onto {square}, which holds a pawn of the mover"
                )
            }
            IllegalReason::DiagonalToEmpty => {
                write!(
                    f,
                    "diagonal move to an empty square under capture-only rules"
                )
            }
        }
    }
}

/// An illegal move and why it is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// Why it is illegal.
    pub reason: IllegalReason,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}: {}", self.mv, self.reason)
    }
}

impl std::error::Error for IllegalMove {}

/// Why a move string was refused by [`Position::parse_move`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not the shape of a move.
    Syntax(ParseMoveError),
    /// A move, but illegal here.
    Illegal(IllegalMove),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(err) => err.fmt(f),
            MoveError::Illegal(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for MoveError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Position {
        text.parse().unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn start_position_string_round_trips() {
        let start = "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w";
        assert_eq!(Position::startpos().to_string(), start);
        assert_eq!(pos(start), Position::startpos());
        assert_eq!(pos("startpos"), Position::startpos());
        assert_eq!(pos(&format!("{start} - - 0 1")), Position::startpos());
    }

    #[test]
    fn position_strings_round_trip() {
        for text in [
            "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w",
            "8/8/8/1p6/P7/8/8/8 b",
            "ppppppp1/p2p2pp/1pp1pp1p/8/2PP3P/5P2/PP2P1P1/PPPPPPPP b",
        ] {
            assert_eq!(pos(text).to_string(), text);
        }
    }

    #[test]
    fn every_malformed_position_is_refused_with_its_reason() {
        let cases = [
            ("", PositionError::Empty),
            ("   ", PositionError::Empty),
            ("8/8/8/8/8/8/8 w", PositionError::RankCount { found: 7 }),
            ("8/8/8/8/8/8/8/8/8 w", PositionError::RankCount { found: 9 }),
            (
                "8/8/7/8/8/8/8/P7 w",
                PositionError::RankLength {
                    rank: 6,
                    squares: 7,
                },
            ),
            (
                "8/8/8/8/8/8/8/P8 w",
                PositionError::RankLength {
                    rank: 1,
                    squares: 9,
                },
            ),
            (
                "8/8/8/8/8/8/8/PPPPPPPPP w",
                PositionError::RankLength {
                    rank: 1,
                    squares: 9,
                },
            ),
            (
                "8/8/8/8/8/8/8/K7 w",
                PositionError::UnknownCharacter { ch: 'K', rank: 1 },
            ),
            (
                "8/8/8/8/8/8/8/07P w",
                PositionError::UnknownCharacter { ch: '0', rank: 1 },
            ),
            (
                "9/8/8/8/8/8/8/P7 w",
                PositionError::UnknownCharacter { ch: '9', rank: 8 },
            ),
            ("8/8/8/8/8/8/8/P7", PositionError::MissingSide),
            ("8/8/8/8/8/8/8/P7 x", PositionError::BadSide("x".into())),
            (
                "8/8/8/8/8/8/8/P7 white",
                PositionError::BadSide("white".into()),
            ),
            (
                "8/8/8/8/8/PPP5/PPPPPPPP/PPPPPPPP w",
                PositionError::TooManyPawns {
                    color: Color::White,
                    count: 19,
                },
            ),
            (
                "pppppppp/pppppppp/p7/8/8/8/8/P7 w",
                PositionError::TooManyPawns {
                    color: Color::Black,
                    count: 17,
                },
            ),
            ("P7/8/8/8/8/8/8/7p b", PositionError::BothOnGoal),
            ("8/8/8/8/8/8/8/8 w", PositionError::NoPawns),
            (
                "startpos moves a2a3",
                PositionError::AfterStartpos("moves".into()),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<Position>(), Err(expected), "{text:?}");
        }
    }

    #[test]
    fn position_errors_name_the_offending_part() {
        let message = |text: &str| text.parse::<Position>().unwrap_err().to_string();
        assert!(message("8/8/8/8/8/8/8/K7 w").contains("'K' in rank 1"));
        assert!(message("8/8/7/8/8/8/8/P7 w").contains("rank 6"));
        assert!(message("8/8/8/8/8/8/8/P7 x").contains("'x'"));
        assert!(message("8/8/8 w").contains("3 ranks"));
    }

    #[test]
    fn bitboard_constructor_refuses_overlap() {
        assert_eq!(
            Position::new(1, 1, Color::White),
            Err(PositionError::Overlap)
        );
    }

    #[test]
    fn start_moves_are_the_eight_straight_steps() {
        let moves: Vec<String> = Position::startpos()
            .legal_moves(Rules::CaptureOnly)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(
            moves,
            [
                "a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "h2h3"
            ]
        );
        assert_eq!(Position::startpos().legal_moves(Rules::Classic).len(), 22);
    }

    #[test]
    fn illegal_moves_say_why() {
        let start = Position::startpos();
        let illegal =
            |position: &Position, rules, text: &str| match position.parse_move(rules, text) {
                Err(MoveError::Illegal(err)) => err.reason,
                other => panic!("{text}: expected an illegal move, got {other:?}"),
            };
        let rules = Rules::CaptureOnly;
        assert_eq!(
            illegal(&start, rules, "a3a4"),
            IllegalReason::NoPawn(Color::White, mv("a3a4").from)
        );
        assert_eq!(
            illegal(&start, rules, "a7a6"),
            IllegalReason::NoPawn(Color::White, mv("a7a6").from)
        );
        assert_eq!(
            illegal(&start, rules, "a2a4"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "b2a1"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "a2c3"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "h2a4"),
            IllegalReason::NotForward(Color::White)
        );
        assert_eq!(
            illegal(&start, rules, "a2b3"),
            IllegalReason::DiagonalToEmpty
        );
        assert_eq!(
            illegal(&start, Rules::Classic, "a1b2"),
            IllegalReason::OntoOwnPawn(mv("a1b2").to)
        );
        assert_eq!(
            illegal(&start, rules, "a1a2"),
            IllegalReason::Blocked(mv("a1a2").to)
        );
        let facing = pos("8/8/8/p7/P7/8/8/8 w");
        assert_eq!(
            illegal(&facing, Rules::Classic, "a4a5"),
            IllegalReason::Blocked(mv("a4a5").to)
        );
        assert_eq!(
            start.parse_move(rules, "a2"),
            Err(MoveError::Syntax(ParseMoveError::BadLength("a2".into())))
        );
        let message = start.parse_move(rules, "a2b3").unwrap_err().to_string();
        assert_eq!(
            message,
            "illegal move a2b3: diagonal move to an empty square under capture-only rules"
        );
    }

    #[test]
    fn legal_moves_and_captures_are_accepted() {
        let position = pos("8/8/8/1p6/P7/8/8/8 w");
        assert_eq!(
            position.parse_move(Rules::CaptureOnly, "a4b5"),
            Ok(mv("a4b5"))
        );
        assert!(position.is_capture(mv("a4b5")));
        assert!(!position.is_capture(mv("a4a5")));
        assert_eq!(
            Position::startpos().parse_move(Rules::Classic, "a2b3"),
            Ok(mv("a2b3"))
        );
        let after = position.play(Rules::CaptureOnly, mv("a4b5")).unwrap();
        assert_eq!(after.to_string(), "8/8/8/1P6/8/8/8/8 b");
    }

    #[test]
    fn black_moves_down_the_board() {
        let position = pos("8/8/8/1p6/P7/8/8/8 b");
        let moves: Vec<String> = position
            .legal_moves(Rules::CaptureOnly)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(moves, ["b5b4", "b5a4"]);
        assert_eq!(position.legal_moves(Rules::Classic).len(), 3);
    }

    #[test]
    fn each_way_a_game_ends() {
        let outcome = |text: &str, rules| pos(text).outcome(rules);
        let won = |winner, reason| Some(Outcome { winner, reason });
        // A pawn reached its far rank.
        assert_eq!(
            outcome("1P6/8/8/8/8/8/p7/8 b", Rules::CaptureOnly),
            won(Color::White, Reason::GoalRank)
        );
        assert_eq!(
            outcome("8/P7/8/8/8/8/8/1p6 w", Rules::Classic),
            won(Color::Black, Reason::GoalRank)
        );
        // Black captured the last white pawn.
        assert_eq!(
            outcome("8/8/8/8/8/8/p7/8 w", Rules::CaptureOnly),
            won(Color::Black, Reason::AllCaptured)
        );
        assert_eq!(
            outcome("8/8/8/8/8/8/P7/8 b", Rules::CaptureOnly),
            won(Color::White, Reason::AllCaptured)
        );
        // Pawns face each other on one file: blocked under capture-only, not under classic.
        assert_eq!(
            outcome("8/8/8/p7/P7/8/8/8 w", Rules::CaptureOnly),
            won(Color::Black, Reason::NoMoves)
        );
        assert_eq!(outcome("8/8/8/p7/P7/8/8/8 w", Rules::Classic), None);
        assert_eq!(outcome("startpos", Rules::CaptureOnly), None);
    }

    #[test]
    fn a_finished_game_has_no_legal_moves() {
        for text in [
            "1P6/8/8/8/8/8/p7/8 b",
            "8/8/8/8/8/8/P7/8 b",
            "P7/8/8/8/8/8/8/8 w",
        ] {
            for rules in Rules::ALL {
                let position = pos(text);
                assert!(position.legal_moves(rules).is_empty(), "{text}");
                let reason = position.check_move(rules, mv("a2a3")).unwrap_err().reason;
                assert!(matches!(reason, IllegalReason::GameOver(_)), "{text}");
            }
        }
        let over = pos("1P6/8/8/8/8/8/p7/8 b")
            .parse_move(Rules::CaptureOnly, "a2a1")
            .unwrap_err()
            .to_string();
        assert_eq!(
            over,
            "illegal move a2a1: the game is already over: White reached rank 8"
        );
    }

    #[test]
    fn generated_moves_pass_the_move_checker_and_nothing_else_does() {
        // Every generated move is legal, and every from/to pair not generated is refused.
        let positions = [
            "startpos",
            "1p2pp1p/2p2ppp/2P5/8/8/3P2P1/1p1P2PP/1PP1PP1P w",
            "pppppppp/1p1p1p1p/2p1p3/p5p1/2P1P3/1P3P2/PP1P2PP/P1PPPPPP b",
        ];
        for text in positions {
            for rules in Rules::ALL {
                let position = pos(text);
                let moves = position.legal_moves(rules);
                for from in 0..64 {
                    for to in 0..64 {
                        let candidate = Move {
                            from: Square::from_index(from).unwrap(),
                            to: Square::from_index(to).unwrap(),
                        };
                        assert_eq!(
                            position.check_move(rules, candidate).is_ok(),
                            moves.contains(candidate),
                            "{text} {rules} {candidate}"
                        );
                    }
                }
            }
        }
    }
}
