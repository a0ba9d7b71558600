//! What the runner found when it checked the engines' claims during one game (see
//! `docs/guide/checks.md`): how many claims of each kind it checked for each side, and every
//! finding, with the ply it was made at. Written as games.csv's `claims` column, so that
//! `bt-arena report` rebuilds the claims table from the records alone.
//!
//! The column is a list of tokens separated by single spaces (empty: nothing checked, and the
//! column of every run begun before it). A count is `KIND=WHITE/BLACK` (`pv=40/38`, counts of 0
//! on both sides left out, `mate-unchecked` for the mate claims that could not be checked); a
//! finding is `SIDE PLY:KIND:FIELDS`, written without the space:
//!
//! | token | meaning |
//! |---|---|
//! | `w12:pv:3:a2a4:illegal` | White's PV at ply 12: its 3rd move `a2a4` is illegal (`syntax`: not a move; `over`: after the game's end; `not-best`: the 1st move is not the `bestmove`) |
//! | `b13:mate:2:loss5:a2a3-b7b6-...` | Black's `score mate 2` at ply 13 is false: the rules prove the side to move lost within 5 plies (the proof's line follows); `open3`: no forced result within 3 plies; `win3`: a loss claim, and the side wins within 3 |
//! | `w14:both:2:3` | at ply 14 White claims `mate 3` after Black claimed `mate 2`: each its own win (same sign, fastchess#1001) |
//! | `b15:ponder:a2a3:illegal` | Black's ponder move is illegal after its move (`not-pv`: legal, but not the PV's 2nd move) |
//! | `rules=classic` | the findings were judged under classic rules (left out under capture-only) |
//! | `w16:jump:-2:3` | White claims `mate 3` after its proven loss (`mate -2`) with no capture since: a warning only |
//!
//! Plies are 1-based, counted from the opening (ply 1 is the first move played). Engine text
//! (moves) is kept only as letters, digits and parentheses, at most 12 characters: the column
//! holds no comma, quote or space inside a token, so it never needs CSV quoting.

use crate::rules::{ByColor, Color, Rules};
use std::fmt::{self, Write};

/// The kinds of claims checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimKind {
    /// The PV is legal from the position and starts with the `bestmove`.
    Pv,
    /// A `score mate N` is what the rules prove.
    Mate,
    /// Two consecutive moves do not both claim a mate with the same sign.
    Both,
    /// The `ponder` move is legal after the `bestmove` and is the PV's second move.
    Ponder,
    /// A side does not claim its own mate after its proven loss with no capture between.
    Jump,
}

crate::named_enum!(ClaimKind, "claim kind", [
    Pv => "pv",
    Mate => "mate",
    Both => "both",
    Ponder => "ponder",
    Jump => "jump",
]);

impl ClaimKind {
    /// Where the kind's counts are kept.
    const fn slot(self) -> usize {
        self as usize
    }

    /// What the table calls it: `PV legal`, `mate claims`, ...
    pub const fn title(self) -> &'static str {
        match self {
            ClaimKind::Pv => "PV legal",
            ClaimKind::Mate => "mate claims",
            ClaimKind::Both => "both sides claiming",
            ClaimKind::Ponder => "ponder move",
            ClaimKind::Jump => "score jumps",
        }
    }

    /// True for the kinds whose finding is an engine's fault (`--strict` fails the run on
    /// them); both sides claiming and score jumps accuse no one.
    pub const fn is_fault(self) -> bool {
        matches!(self, ClaimKind::Pv | ClaimKind::Mate | ClaimKind::Ponder)
    }
}

/// What is wrong with a PV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvFault {
    /// A move illegal where it stands.
    Illegal,
    /// Not a move at all.
    Syntax,
    /// A move after the end of the game.
    Over,
    /// Its first move is not the `bestmove`.
    NotBest,
}

crate::named_enum!(PvFault, "PV fault", [
    Illegal => "illegal",
    Syntax => "syntax",
    Over => "over",
    NotBest => "not-best",
]);

/// What the rules prove about a position of a false mate claim, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    /// It wins within this many plies.
    Win(u32),
    /// It is lost within this many plies.
    Loss(u32),
    /// No forced result within this many plies.
    Open(u32),
}

/// One finding of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// A PV that is not legal: the 1-based number of its first bad move, the move, why.
    Pv {
        /// 1-based number of the move in the PV.
        number: u32,
        /// The move as the engine wrote it (sanitized, see the module documentation).
        mv: String,
        /// What is wrong.
        fault: PvFault,
    },
    /// A false `score mate N`: the claim, what the rules prove, the proof's line.
    Mate {
        /// The engine's N.
        claim: i32,
        /// What the rules prove instead.
        proven: Proven,
        /// The proof's line (empty for [`Proven::Open`]).
        line: Vec<String>,
    },
    /// Two consecutive moves claiming a mate with the same sign: the earlier N, this N.
    Both {
        /// The N the opponent claimed on the move before.
        before: i32,
        /// The N claimed now.
        now: i32,
    },
    /// A ponder move that is illegal after the `bestmove` or not the PV's second move.
    Ponder {
        /// The move (sanitized).
        mv: String,
        /// False: illegal; true: legal but not the PV's second move.
        legal: bool,
    },
    /// A mate claimed for itself after a proven loss claim with no capture since.
    Jump {
        /// The loss claimed (and proven) before (negative).
        lost: i32,
        /// The N claimed now.
        now: i32,
    },
}

impl Finding {
    /// The kind of check that found it.
    pub fn kind(&self) -> ClaimKind {
        match self {
            Finding::Pv { .. } => ClaimKind::Pv,
            Finding::Mate { .. } => ClaimKind::Mate,
            Finding::Both { .. } => ClaimKind::Both,
            Finding::Ponder { .. } => ClaimKind::Ponder,
            Finding::Jump { .. } => ClaimKind::Jump,
        }
    }
}

impl fmt::Display for Finding {
    /// The finding in words: `PV move 3 'a2a4' is illegal`, `score mate 2 is false: the
    /// side to move is lost within 5 plies (a2a3 b7b6 ...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Pv { number, mv, fault } => match fault {
                PvFault::NotBest => write!(f, "the PV starts with '{mv}', not the bestmove"),
                PvFault::Illegal => write!(f, "PV move {number} '{mv}' is illegal"),
                PvFault::Syntax => write!(f, "PV move {number} '{mv}' is not a move"),
                PvFault::Over => write!(f, "PV move {number} '{mv}' comes after the game's end"),
            },
            Finding::Mate {
                claim,
                proven,
                line,
            } => {
                write!(f, "score mate {claim} is false: ")?;
                match proven {
                    Proven::Win(p) => write!(f, "the side to move wins within {p} plies")?,
                    Proven::Loss(p) => write!(f, "the side to move is lost within {p} plies")?,
                    Proven::Open(p) => write!(f, "no forced result within {p} plies")?,
                }
                if !line.is_empty() {
                    write!(f, " ({})", line.join(" "))?;
                }
                Ok(())
            }
            Finding::Both { before, now } => write!(
                f,
                "score mate {now} after the opponent's score mate {before}: both claim {}",
                if *now > 0 {
                    "their own win"
                } else {
                    "their own loss"
                }
            ),
            Finding::Ponder { mv, legal: false } => {
                write!(f, "ponder move '{mv}' is illegal after the bestmove")
            }
            Finding::Ponder { mv, legal: true } => {
                write!(f, "ponder move '{mv}' is not the PV's second move")
            }
            Finding::Jump { lost, now } => write!(
                f,
                "score mate {now} after its proven score mate {lost}, with no capture between"
            ),
        }
    }
}

/// A finding at a ply, by a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyFinding {
    /// The side whose engine made the claim.
    pub side: Color,
    /// 1-based ply of the move the claim came with, from the opening.
    pub ply: u32,
    /// What was found.
    pub finding: Finding,
}

/// The checks of one game: counts per kind and side, and the findings in ply order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameClaims {
    /// Claims checked, by [`ClaimKind`] (in `ClaimKind::ALL`'s order) and side.
    pub checked: [ByColor<u32>; 5],
    /// Mate claims not checked (longer than `--check-claims`, or the prover's budget ran out),
    /// by side.
    pub unchecked: ByColor<u32>,
    /// The findings, in ply order.
    pub findings: Vec<PlyFinding>,
    /// The rule set the findings were judged by: written (`rules=classic`) only when it is
    /// not the default and there are findings, for their reproduction lines.
    pub rules: Rules,
}

impl GameClaims {
    /// Counts one claim of `kind` checked for `side`.
    pub fn count(&mut self, kind: ClaimKind, side: Color) {
        self.checked[kind.slot()][side] += 1;
    }

    /// Claims of `kind` checked for `side`.
    pub fn checked(&self, kind: ClaimKind, side: Color) -> u32 {
        self.checked[kind.slot()][side]
    }

    /// Records `finding` for `side` at 1-based `ply`.
    pub fn find(&mut self, side: Color, ply: u32, finding: Finding) {
        self.findings.push(PlyFinding { side, ply, finding });
    }

    /// True when nothing was checked or found.
    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
            && self.unchecked == ByColor::default()
            && self.checked.iter().all(|c| *c == ByColor::default())
    }

    /// The games.csv column (see the module documentation).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if self.rules != Rules::default() && !self.findings.is_empty() {
            let _ = write!(out, "rules={} ", self.rules);
        }
        let mut counts: Vec<(&str, ByColor<u32>)> = ClaimKind::ALL
            .iter()
            .map(|kind| (kind.name(), self.checked[kind.slot()]))
            .collect();
        counts.push(("mate-unchecked", self.unchecked));
        for (name, count) in counts {
            if count.white + count.black > 0 {
                let _ = write!(out, "{name}={}/{} ", count.white, count.black);
            }
        }
        for found in &self.findings {
            let side = if found.side == Color::White { 'w' } else { 'b' };
            let _ = write!(out, "{side}{}:{}:", found.ply, found.finding.kind());
            match &found.finding {
                Finding::Pv { number, mv, fault } => write!(out, "{number}:{mv}:{fault}"),
                Finding::Mate {
                    claim,
                    proven,
                    line,
                } => {
                    let (word, plies) = match proven {
                        Proven::Win(p) => ("win", p),
                        Proven::Loss(p) => ("loss", p),
                        Proven::Open(p) => ("open", p),
                    };
                    write!(out, "{claim}:{word}{plies}:{}", line.join("-"))
                }
                Finding::Both { before, now } => write!(out, "{before}:{now}"),
                Finding::Ponder { mv, legal } => {
                    write!(out, "{mv}:{}", if *legal { "not-pv" } else { "illegal" })
                }
                Finding::Jump { lost, now } => write!(out, "{lost}:{now}"),
            }
            .ok();
            out.push(' ');
        }
        out.pop();
        out
    }

    /// Reads the column back.
    ///
    /// # Errors
    /// The first token that does not read, naming it.
    pub fn decode(column: &str) -> Result<GameClaims, super::moves::ColumnError> {
        let mut claims = GameClaims::default();
        for token in column.split_whitespace() {
            let bad = |what: &'static str| super::moves::ColumnError::token("claims", token, what);
            if let Some((name, counts)) = token.split_once('=') {
                if name == "rules" {
                    claims.rules = counts.parse().map_err(|_| bad("unknown rules"))?;
                    continue;
                }
                let (white, black) = counts
                    .split_once('/')
                    .and_then(|(w, b)| Some((w.parse().ok()?, b.parse().ok()?)))
                    .ok_or_else(|| bad("expected KIND=WHITE/BLACK"))?;
                let count = ByColor { white, black };
                match name {
                    "mate-unchecked" => claims.unchecked = count,
                    _ => {
                        let kind: ClaimKind = name.parse().map_err(|_| bad("unknown kind"))?;
                        claims.checked[kind.slot()] = count;
                    }
                }
                continue;
            }
            claims
                .findings
                .push(decode_finding(token).ok_or_else(|| bad("unreadable"))?);
        }
        if claims.findings.is_empty() {
            // The rule set is written for the findings only.
            claims.rules = Rules::default();
        }
        Ok(claims)
    }
}

/// One finding token.
fn decode_finding(token: &str) -> Option<PlyFinding> {
    let side = match token.as_bytes().first()? {
        b'w' => Color::White,
        b'b' => Color::Black,
        _ => return None,
    };
    let mut fields = token[1..].split(':');
    let ply = fields.next()?.parse().ok()?;
    let kind: ClaimKind = fields.next()?.parse().ok()?;
    let mut next = || fields.next();
    let finding = match kind {
        ClaimKind::Pv => Finding::Pv {
            number: next()?.parse().ok()?,
            mv: next()?.to_string(),
            fault: next()?.parse().ok()?,
        },
        ClaimKind::Mate => {
            let claim = next()?.parse().ok()?;
            let proof = next()?;
            let split = proof.find(|c: char| c.is_ascii_digit())?;
            let plies = proof[split..].parse().ok()?;
            let proven = match &proof[..split] {
                "win" => Proven::Win(plies),
                "loss" => Proven::Loss(plies),
                "open" => Proven::Open(plies),
                _ => return None,
            };
            let line = next()?
                .split('-')
                .filter(|mv| !mv.is_empty())
                .map(str::to_string)
                .collect();
            Finding::Mate {
                claim,
                proven,
                line,
            }
        }
        ClaimKind::Both => Finding::Both {
            before: next()?.parse().ok()?,
            now: next()?.parse().ok()?,
        },
        ClaimKind::Ponder => Finding::Ponder {
            mv: next()?.to_string(),
            legal: match next()? {
                "illegal" => false,
                "not-pv" => true,
                _ => return None,
            },
        },
        ClaimKind::Jump => Finding::Jump {
            lost: next()?.parse().ok()?,
            now: next()?.parse().ok()?,
        },
    };
    Some(PlyFinding { side, ply, finding })
}

/// Engine text as a finding keeps it: letters, digits and parentheses only, at most 12
/// characters, `?` when nothing is left.
pub fn sanitize(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '(' || *c == ')')
        .take(12)
        .collect();
    if kept.is_empty() { "?".into() } else { kept }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_round_trips_every_kind() {
        let mut claims = GameClaims::default();
        claims.checked[ClaimKind::Pv.slot()] = ByColor {
            white: 40,
            black: 38,
        };
        claims.count(ClaimKind::Mate, Color::Black);
        claims.unchecked.white = 1;
        let findings = [
            (
                Color::White,
                12,
                Finding::Pv {
                    number: 3,
                    mv: "a2a4".into(),
                    fault: PvFault::Illegal,
                },
            ),
            (
                Color::Black,
                13,
                Finding::Mate {
                    claim: 2,
                    proven: Proven::Loss(5),
                    line: vec!["a2a3".into(), "b7b6".into()],
                },
            ),
            (
                Color::Black,
                15,
                Finding::Mate {
                    claim: -1,
                    proven: Proven::Open(2),
                    line: vec![],
                },
            ),
            (Color::White, 14, Finding::Both { before: 2, now: 3 }),
            (
                Color::Black,
                15,
                Finding::Ponder {
                    mv: "a2a3".into(),
                    legal: false,
                },
            ),
            (Color::White, 16, Finding::Jump { lost: -2, now: 3 }),
        ];
        for (side, ply, finding) in findings {
            claims.find(side, ply, finding);
        }
        let column = claims.encode();
        assert_eq!(
            column,
            "pv=40/38 mate=0/1 mate-unchecked=1/0 w12:pv:3:a2a4:illegal \
             b13:mate:2:loss5:a2a3-b7b6 b15:mate:-1:open2: w14:both:2:3 \
             b15:ponder:a2a3:illegal w16:jump:-2:3"
        );
        assert_eq!(GameClaims::decode(&column).unwrap(), claims);
        claims.rules = Rules::Classic;
        let column = claims.encode();
        assert!(column.starts_with("rules=classic pv=40/38 "), "{column}");
        assert_eq!(GameClaims::decode(&column).unwrap(), claims);
        assert_eq!(GameClaims::decode("").unwrap(), GameClaims::default());
        assert_eq!(
            GameClaims::decode("pv=1").unwrap_err().to_string(),
            "claims token `pv=1`: expected KIND=WHITE/BLACK"
        );
        assert_eq!(
            GameClaims::decode("w3:pv:x").unwrap_err().to_string(),
            "claims token `w3:pv:x`: unreadable"
        );
        assert_eq!(sanitize("a2,\"a3"), "a2a3");
        assert_eq!(sanitize(",,"), "?");
    }
}
