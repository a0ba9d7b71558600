//! Adjudication: the runner ends a game before the rules do, on the engines' word (resign) or
//! on the rules' own (a proof). Both are off by default.
//!
//! * **Resign** (`--resign movecount=N,score=CP[,twosided=true]`, cutechess-cli's and
//!   fastchess's `-resign`): a side loses once its engine has reported a score of `-CP` or worse
//!   for `N` consecutive moves of its own; with `twosided=true`, only when the opponent's
//!   engine reported `+CP` or better over the same moves. Mate scores count (a mate for the
//!   mover as `+CP` or better, a mate against it as `-CP` or worse), as in fastchess; a move
//!   without a score breaks the run, as cutechess does for book moves. Termination `resign`.
//! * **Proof** (`--adjudicate proof=PLIES[,nodes=N]`): after every move the runner asks its own
//!   rules ([`Prover`]) whether the side to move wins, or is lost, within `PLIES` plies; a proof
//!   ends the game (termination `proof`), an unknown answer (the node budget `N`, default
//!   [`DEFAULT_BUDGET`] and at most [`MAX_PROOF_NODES`], or [`PROOF_TIME_LIMIT`] ran out) lets
//!   it go on. Its memory is bounded whatever the budget
//!   ([`TABLE_SLOTS`](crate::rules::proof::TABLE_SLOTS)). Breakthrough has no draws and no repetitions,
//!   so a proof is final whatever the engines would have played. Proofs come first, then
//!   resignations.
//!
//! Each rule is a small type that is told every move ([`Adjudicator::after_move`]), as
//! fastchess's adjudicators are.

use crate::protocol::Score;
use crate::records::Termination;
use crate::rules::proof::{DEFAULT_BUDGET, Prover, Verdict};
use crate::rules::{ByColor, Color, Position, Rules};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The adjudication rules of a tournament (the `adjudication` table of a config file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjudication {
    /// `--resign`; `None`: games are not resigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<ResignRule>,
    /// `--adjudicate proof=PLIES`; `None`: no proofs are looked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofRule>,
}

impl Adjudication {
    /// True when neither rule is on (the default).
    pub fn is_off(&self) -> bool {
        self.resign.is_none() && self.proof.is_none()
    }
}

/// `--resign movecount=N,score=CP[,twosided=true]`: see the module documentation.
///
/// Parse it from the flag's value ([`FromStr`]: `key=value` tokens separated by commas or
/// spaces); [`Display`](fmt::Display) writes it back. In a config file it is a table,
/// `resign = { movecount = 3, score = 500, twosided = true }`, validated the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ResignFields", into = "ResignFields")]
pub struct ResignRule {
    movecount: u32,
    score: i32,
    twosided: bool,
}

/// [`ResignRule`]'s fields as a config file holds them, before validation.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResignFields {
    movecount: u32,
    score: i64,
    #[serde(default)]
    twosided: bool,
}

/// What `score=` of `--resign` must be.
const RESIGN_SCORE_EXPECTED: &str = "centipawns, at least 1 (the losing side's score is -score \
     or worse; at 0 or less a side would resign a position its engine scores equal)";

impl ResignRule {
    /// A rule resigning after `movecount` moves at `-score` centipawns or worse (and the
    /// opponent at `+score` or better, when `twosided`).
    ///
    /// # Errors
    /// [`AdjudicationSpecError::BadValue`] for `movecount` 0, or a `score` below 1 or beyond
    /// `i32`: at 0 an engine seeing an equal position would resign it.
    pub fn new(movecount: u32, score: i64, twosided: bool) -> Result<Self, AdjudicationSpecError> {
        if movecount == 0 {
            return Err(AdjudicationSpecError::BadValue {
                token: "movecount=0".into(),
                expected: "a whole number of moves, at least 1",
            });
        }
        let score = i32::try_from(score)
            .ok()
            .filter(|score| *score >= 1)
            .ok_or_else(|| AdjudicationSpecError::BadValue {
                token: format!("score={score}"),
                expected: RESIGN_SCORE_EXPECTED,
            })?;
        Ok(ResignRule {
            movecount,
            score,
            twosided,
        })
    }

    /// Consecutive moves needed, at least 1.
    pub fn movecount(&self) -> u32 {
        self.movecount
    }

    /// The score threshold in centipawns, at least 1.
    pub fn score(&self) -> i32 {
        self.score
    }

    /// Whether the winner's engine must agree.
    pub fn twosided(&self) -> bool {
        self.twosided
    }
}

impl TryFrom<ResignFields> for ResignRule {
    type Error = AdjudicationSpecError;

    fn try_from(fields: ResignFields) -> Result<Self, Self::Error> {
        ResignRule::new(fields.movecount, fields.score, fields.twosided)
    }
}

impl From<ResignRule> for ResignFields {
    fn from(rule: ResignRule) -> Self {
        ResignFields {
            movecount: rule.movecount,
            score: i64::from(rule.score),
            twosided: rule.twosided,
        }
    }
}

impl fmt::Display for ResignRule {
    /// `movecount=3,score=500`, then `,twosided=true` when set: the flag's form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "movecount={},score={}", self.movecount, self.score)?;
        if self.twosided {
            f.write_str(",twosided=true")?;
        }
        Ok(())
    }
}

impl FromStr for ResignRule {
    type Err = AdjudicationSpecError;

    /// `movecount=N,score=CP[,twosided=true|false]`, the keys in any order, separated by
    /// commas or whitespace (`"movecount=3 score=500"`).
    ///
    /// # Errors
    /// [`AdjudicationSpecError`] naming the token at fault, or the key missing.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let [movecount, score, twosided] = key_values(spec, &["movecount", "score", "twosided"])?;
        let movecount = movecount.ok_or(AdjudicationSpecError::MissingKey("movecount"))?;
        let score = score.ok_or(AdjudicationSpecError::MissingKey("score"))?;
        let number = |(token, value): (String, String), expected| {
            value
                .parse::<i64>()
                .map_err(|_| AdjudicationSpecError::BadValue { token, expected })
        };
        let movecount_token = movecount.0.clone();
        let movecount = number(movecount, "a whole number of moves, at least 1")?;
        let movecount = u32::try_from(movecount).map_err(|_| AdjudicationSpecError::BadValue {
            token: movecount_token,
            expected: "a whole number of moves, at least 1",
        })?;
        let score = number(score, RESIGN_SCORE_EXPECTED)?;
        let twosided = match twosided {
            None => false,
            Some((_, value)) if value == "true" => true,
            Some((_, value)) if value == "false" => false,
            Some((token, _)) => {
                return Err(AdjudicationSpecError::BadValue {
                    token,
                    expected: "true or false",
                });
            }
        };
        ResignRule::new(movecount, score, twosided)
    }
}

/// `--adjudicate proof=PLIES[,nodes=N]`: see the module documentation. In a config file a
/// table, `proof = { plies = 7, nodes = 20000 }` (`nodes` may be left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ProofFields", into = "ProofFields")]
pub struct ProofRule {
    plies: u32,
    nodes: u64,
}

/// [`ProofRule`]'s fields as a config file holds them, before validation.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProofFields {
    plies: u32,
    #[serde(default = "default_nodes")]
    nodes: u64,
}

fn default_nodes() -> u64 {
    DEFAULT_BUDGET
}

/// The longest proof asked for, in plies: past it a proof costs far more than any game.
pub const MAX_PROOF_PLIES: u32 = 63;

/// The largest node budget per move (`nodes=`): 500 times the default, about half a second at
/// the 50 ns a node of docs/adjudication.md, a few seconds on a loaded machine (2 to 6 million
/// nodes a second measured on 2 cores loaded five times over), which [`PROOF_TIME_LIMIT`] cuts
/// shorter. The prover's memory is bounded whatever the budget (see
/// [`TABLE_SLOTS`](crate::rules::proof::TABLE_SLOTS)).
pub const MAX_PROOF_NODES: u64 = 10_000_000;

/// The longest one proof may take after a move, whatever its node budget: past it the answer
/// is unknown and the game goes on. Budgets up to the default never come near it; it caps what
/// a large budget costs on a slow or loaded machine (then the games' proofs depend on the
/// machine's speed). The proof runs between moves, on neither engine's clock.
pub const PROOF_TIME_LIMIT: Duration = Duration::from_secs(1);

/// What `nodes=` must be.
const NODES_EXPECTED: &str = "a node budget per move, 1 to 10000000";

impl ProofRule {
    /// Proofs of at most `plies` plies, within `nodes` nodes per move.
    ///
    /// # Errors
    /// [`AdjudicationSpecError::BadValue`] for `plies` 0 or above [`MAX_PROOF_PLIES`], or
    /// `nodes` 0 or above [`MAX_PROOF_NODES`].
    pub fn new(plies: u32, nodes: u64) -> Result<Self, AdjudicationSpecError> {
        if plies == 0 || plies > MAX_PROOF_PLIES {
            return Err(AdjudicationSpecError::BadValue {
                token: format!("proof={plies}"),
                expected: "plies, 1 to 63",
            });
        }
        if nodes == 0 || nodes > MAX_PROOF_NODES {
            return Err(AdjudicationSpecError::BadValue {
                token: format!("nodes={nodes}"),
                expected: NODES_EXPECTED,
            });
        }
        Ok(ProofRule { plies, nodes })
    }

    /// The longest proof looked for, in plies.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// The node budget per move.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

impl TryFrom<ProofFields> for ProofRule {
    type Error = AdjudicationSpecError;

    fn try_from(fields: ProofFields) -> Result<Self, Self::Error> {
        ProofRule::new(fields.plies, fields.nodes)
    }
}

impl From<ProofRule> for ProofFields {
    fn from(rule: ProofRule) -> Self {
        ProofFields {
            plies: rule.plies,
            nodes: rule.nodes,
        }
    }
}

impl fmt::Display for ProofRule {
    /// `proof=7`, then `,nodes=N` unless the budget is the default: the flag's form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "proof={}", self.plies)?;
        if self.nodes != DEFAULT_BUDGET {
            write!(f, ",nodes={}", self.nodes)?;
        }
        Ok(())
    }
}

impl FromStr for ProofRule {
    type Err = AdjudicationSpecError;

    /// `proof=PLIES[,nodes=N]`, separated by commas or whitespace.
    ///
    /// # Errors
    /// [`AdjudicationSpecError`] naming the token at fault, or the key missing.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let [plies, nodes] = key_values(spec, &["proof", "nodes"])?;
        let (token, plies) = plies.ok_or(AdjudicationSpecError::MissingKey("proof"))?;
        let plies = plies.parse().map_err(|_| AdjudicationSpecError::BadValue {
            token,
            expected: "plies, 1 to 63",
        })?;
        let nodes = match nodes {
            None => DEFAULT_BUDGET,
            Some((token, nodes)) => nodes.parse().map_err(|_| AdjudicationSpecError::BadValue {
                token,
                expected: NODES_EXPECTED,
            })?,
        };
        ProofRule::new(plies, nodes)
    }
}

/// The `(token, value)` of each of `keys` in `spec` (tokens `key=value` separated by commas
/// or whitespace), in the order of `keys`.
fn key_values<const N: usize>(
    spec: &str,
    keys: &[&'static str; N],
) -> Result<[Option<(String, String)>; N], AdjudicationSpecError> {
    let mut values: [Option<(String, String)>; N] = std::array::from_fn(|_| None);
    let tokens = spec
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|token| !token.is_empty());
    for token in tokens {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| AdjudicationSpecError::NotKeyValue(token.to_string()))?;
        let slot = keys.iter().position(|k| *k == key).ok_or_else(|| {
            AdjudicationSpecError::UnknownKey {
                token: token.to_string(),
                keys: keys.join(", "),
            }
        })?;
        if values[slot].is_some() {
            return Err(AdjudicationSpecError::DuplicateKey(token.to_string()));
        }
        values[slot] = Some((token.to_string(), value.to_string()));
    }
    Ok(values)
}

/// Why a `--resign` or `--adjudicate` value was refused; each variant names the token as the
/// user wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdjudicationSpecError {
    /// A token that is not `key=value`.
    NotKeyValue(String),
    /// A key the flag does not have.
    UnknownKey {
        /// The whole token.
        token: String,
        /// The keys the flag has, comma-separated.
        keys: String,
    },
    /// A key given twice (the second token).
    DuplicateKey(String),
    /// A required key is absent.
    MissingKey(&'static str),
    /// A value out of range or not a number.
    BadValue {
        /// The whole token.
        token: String,
        /// What the value should be.
        expected: &'static str,
    },
}

impl fmt::Display for AdjudicationSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotKeyValue(token) => write!(f, "`{token}` is not of the form key=value"),
            Self::UnknownKey { token, keys } => {
                write!(f, "`{token}` has an unknown key (expected {keys})")
            }
            Self::DuplicateKey(token) => write!(f, "`{token}` repeats a key"),
            Self::MissingKey(key) => write!(f, "`{key}=` is missing"),
            Self::BadValue { token, expected } => write!(f, "`{token}`: expected {expected}"),
        }
    }
}

impl std::error::Error for AdjudicationSpecError {}

/// A game ended by adjudication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjudicated {
    /// The side declared the winner.
    pub winner: Color,
    /// [`Termination::Proof`] or [`Termination::Resign`].
    pub termination: Termination,
    /// What happened, for people and the PGN's final comment: `White wins in 5 plies: e6e7
    /// d8e7 ...`, `Black resigns: -5.00 or worse for 3 moves`.
    pub detail: String,
}

/// The resign rule's count of consecutive moves, per side.
#[derive(Clone, Copy, Debug, Default)]
struct ResignCounts {
    /// Moves in a row each side's engine scored `-CP` or worse.
    losing: ByColor<u32>,
    /// Moves in a row each side's engine scored `+CP` or better.
    winning: ByColor<u32>,
}

/// One game's adjudication: the rules in force and what they have seen so far.
pub struct Adjudicator {
    resign: Option<(ResignRule, ResignCounts)>,
    proof: Option<(ProofRule, Prover)>,
}

impl Adjudicator {
    /// The adjudication of a new game under `rules`.
    pub fn new(adjudication: &Adjudication, rules: Rules) -> Adjudicator {
        Adjudicator {
            resign: adjudication
                .resign
                .map(|rule| (rule, ResignCounts::default())),
            proof: adjudication.proof.map(|rule| {
                let prover = Prover::new(rules, rule.nodes()).with_time_limit(PROOF_TIME_LIMIT);
                (rule, prover)
            }),
        }
    }

    /// True when a rule is on: otherwise [`after_move`](Adjudicator::after_move) never ends a
    /// game.
    pub fn is_on(&self) -> bool {
        self.resign.is_some() || self.proof.is_some()
    }

    /// Told that `mover` just played, reaching `position` (not over by the rules), with its
    /// engine's `score` for the move: the adjudication that ends the game here, if any.
    pub fn after_move(
        &mut self,
        position: &Position,
        mover: Color,
        score: Option<Score>,
    ) -> Option<Adjudicated> {
        let resigned = self
            .resign
            .as_mut()
            .and_then(|(rule, counts)| counts.update(rule, mover, score));
        if let Some((rule, prover)) = &mut self.proof {
            match prover.prove(position, rule.plies()) {
                Verdict::Win(line) | Verdict::Loss(line) => {
                    return Some(Adjudicated {
                        winner: line.winner,
                        termination: Termination::Proof,
                        detail: line.to_string(),
                    });
                }
                Verdict::Open | Verdict::Unknown => {}
            }
        }
        resigned
    }

    /// Nodes the proof search examined after the last move (0 without proof adjudication).
    pub fn proof_nodes(&self) -> u64 {
        self.proof.as_ref().map_or(0, |(_, prover)| prover.nodes())
    }
}

impl ResignCounts {
    /// Counts `mover`'s move with its engine's `score`; the resignation it brings, if any
    /// (of either side: with `twosided`, the opponent's agreement may come last).
    fn update(
        &mut self,
        rule: &ResignRule,
        mover: Color,
        score: Option<Score>,
    ) -> Option<Adjudicated> {
        let (losing, winning) = match score {
            None => (false, false),
            Some(Score::Cp(cp)) => (cp <= -rule.score, cp >= rule.score),
            Some(Score::Mate(moves)) => (moves <= 0, moves > 0),
        };
        let count = |run: u32, on: bool| if on { run.saturating_add(1) } else { 0 };
        self.losing[mover] = count(self.losing[mover], losing);
        self.winning[mover] = count(self.winning[mover], winning);
        [mover, mover.opponent()].into_iter().find_map(|loser| {
            let winner = loser.opponent();
            let lost = self.losing[loser] >= rule.movecount;
            let agreed = !rule.twosided || self.winning[winner] >= rule.movecount;
            (lost && agreed).then(|| Adjudicated {
                winner,
                termination: Termination::Resign,
                detail: resign_detail(rule, loser),
            })
        })
    }
}

/// `Black resigns: -5.00 or worse for 3 moves` (`, White +5.00 or better` when two-sided).
fn resign_detail(rule: &ResignRule, loser: Color) -> String {
    let pawns = f64::from(rule.score) / 100.0;
    let moves = if rule.movecount == 1 { "move" } else { "moves" };
    let mut detail = format!(
        "{loser} resigns: -{pawns:.2} or worse for {} {moves}",
        rule.movecount
    );
    if rule.twosided {
        detail.push_str(&format!(", {} +{pawns:.2} or better", loser.opponent()));
    }
    detail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resign(spec: &str) -> ResignRule {
        spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    #[test]
    fn resign_specs_parse_in_either_separator_and_round_trip() {
        let rule = resign("movecount=3,score=500,twosided=true");
        assert_eq!(
            (rule.movecount(), rule.score(), rule.twosided()),
            (3, 500, true)
        );
        assert_eq!(rule.to_string(), "movecount=3,score=500,twosided=true");
        assert_eq!(resign(&rule.to_string()), rule);
        let spaced = resign("score=500 movecount=3");
        assert_eq!(spaced, ResignRule::new(3, 500, false).unwrap());
        assert_eq!(spaced.to_string(), "movecount=3,score=500");
        assert_eq!(resign("movecount=3, score=1,twosided=false").score(), 1);
    }

    #[test]
    fn bad_resign_specs_name_the_token() {
        let err = |spec: &str| spec.parse::<ResignRule>().unwrap_err().to_string();
        assert_eq!(
            err("movecount=0,score=500"),
            "`movecount=0`: expected a whole number of moves, at least 1"
        );
        let score = "expected centipawns, at least 1 (the losing side's score is -score or \
                     worse; at 0 or less a side would resign a position its engine scores equal)";
        assert_eq!(
            err("movecount=3,score=-500"),
            format!("`score=-500`: {score}")
        );
        // See: issue 28 (every game resigned after one ply, at -0.00).
        assert_eq!(err("movecount=1,score=0"), format!("`score=0`: {score}"));
        assert_eq!(
            err("movecount=-1,score=5"),
            "`movecount=-1`: expected a whole number of moves, at least 1"
        );
        assert_eq!(
            err("movecount=3,score=5,twosided=yes"),
            "`twosided=yes`: expected true or false"
        );
        assert_eq!(err("movecount=3"), "`score=` is missing");
        assert_eq!(err("score=3"), "`movecount=` is missing");
        assert_eq!(
            err("movecount=3,score=5,moves=2"),
            "`moves=2` has an unknown key (expected movecount, score, twosided)"
        );
        assert_eq!(
            err("movecount=3,score"),
            "`score` is not of the form key=value"
        );
        assert_eq!(
            err("movecount=3,score=5,score=6"),
            "`score=6` repeats a key"
        );
        assert_eq!(
            err("movecount=3,score=99999999999"),
            format!("`score=99999999999`: {score}")
        );
    }

    #[test]
    fn proof_specs_parse_and_round_trip() {
        let rule: ProofRule = "proof=7".parse().unwrap();
        assert_eq!((rule.plies(), rule.nodes()), (7, DEFAULT_BUDGET));
        assert_eq!(rule.to_string(), "proof=7");
        let rule: ProofRule = "proof=9,nodes=500".parse().unwrap();
        assert_eq!((rule.plies(), rule.nodes()), (9, 500));
        assert_eq!(rule.to_string(), "proof=9,nodes=500");
        assert_eq!(rule.to_string().parse::<ProofRule>().unwrap(), rule);
        let err = |spec: &str| spec.parse::<ProofRule>().unwrap_err().to_string();
        assert_eq!(err("proof=0"), "`proof=0`: expected plies, 1 to 63");
        assert_eq!(err("proof=64"), "`proof=64`: expected plies, 1 to 63");
        assert_eq!(err("proof=-1"), "`proof=-1`: expected plies, 1 to 63");
        assert_eq!(
            err("proof=5,nodes=0"),
            "`nodes=0`: expected a node budget per move, 1 to 10000000"
        );
        // Beyond the maximum (see: issue 28, its memory grew without limit), and beyond u64.
        assert_eq!(
            err("proof=63,nodes=99999999999999"),
            "`nodes=99999999999999`: expected a node budget per move, 1 to 10000000"
        );
        assert_eq!(
            err("proof=63,nodes=99999999999999999999"),
            "`nodes=99999999999999999999`: expected a node budget per move, 1 to 10000000"
        );
        let most: ProofRule = "proof=63,nodes=10000000".parse().unwrap();
        assert_eq!((most.plies(), most.nodes()), (63, MAX_PROOF_NODES));
        assert_eq!(err("nodes=5"), "`proof=` is missing");
        assert_eq!(
            err("resign=5"),
            "`resign=5` has an unknown key (expected proof, nodes)"
        );
    }

    #[test]
    fn config_tables_are_validated_like_flags() {
        let toml_text = "resign = { movecount = 3, score = 500 }\nproof = { plies = 7 }\n";
        let adjudication: Adjudication = toml::from_str(toml_text).unwrap();
        assert_eq!(adjudication.resign, Some(resign("movecount=3,score=500")));
        assert_eq!(adjudication.proof, Some("proof=7".parse().unwrap()));
        let json = serde_json::to_string(&adjudication).unwrap();
        assert_eq!(
            json,
            r#"{"resign":{"movecount":3,"score":500,"twosided":false},"proof":{"plies":7,"nodes":20000}}"#
        );
        assert_eq!(
            serde_json::from_str::<Adjudication>(&json).unwrap(),
            adjudication
        );
        for (bad, message) in [
            ("resign = { movecount = 0, score = 500 }", "`movecount=0`"),
            ("resign = { movecount = 3, score = -1 }", "`score=-1`"),
            ("proof = { plies = 0 }", "`proof=0`"),
            (
                "proof = { plies = 63, nodes = 10000001 }",
                "`nodes=10000001`: expected a node budget per move, 1 to 10000000",
            ),
            ("proof = { plies = 5, depth = 3 }", "unknown field `depth`"),
        ] {
            let err = toml::from_str::<Adjudication>(bad).unwrap_err().to_string();
            assert!(err.contains(message), "{bad}: {err}");
        }
        assert!(Adjudication::default().is_off());
        assert_eq!(
            serde_json::to_string(&Adjudication::default()).unwrap(),
            "{}"
        );
    }

    /// Feeds the moves `(mover, score)` to a resign rule from `spec`; the index of the move
    /// that ended the game and the adjudication.
    fn resign_after(spec: &str, moves: &[(Color, Option<Score>)]) -> Option<(usize, Adjudicated)> {
        let adjudication = Adjudication {
            resign: Some(resign(spec)),
            proof: None,
        };
        let mut adjudicator = Adjudicator::new(&adjudication, Rules::CaptureOnly);
        let position = Position::startpos();
        moves.iter().enumerate().find_map(|(i, &(mover, score))| {
            adjudicator
                .after_move(&position, mover, score)
                .map(|adjudicated| (i, adjudicated))
        })
    }

    const W: Color = Color::White;
    const B: Color = Color::Black;

    fn cp(cp: i32) -> Option<Score> {
        Some(Score::Cp(cp))
    }

    #[test]
    fn a_side_resigns_after_its_own_moves_in_a_row() {
        // Black's third move at -500 or worse: Black resigns, White's scores do not matter.
        let moves = [
            (W, cp(10)),
            (B, cp(-500)),
            (W, cp(-20)),
            (B, cp(-800)),
            (W, None),
            (B, Some(Score::Mate(-3))),
        ];
        let (at, adjudicated) = resign_after("movecount=3,score=500", &moves).unwrap();
        assert_eq!(at, 5);
        assert_eq!(adjudicated.winner, W);
        assert_eq!(adjudicated.termination, Termination::Resign);
        assert_eq!(
            adjudicated.detail,
            "Black resigns: -5.00 or worse for 3 moves"
        );
        // A move above the threshold, or without a score, breaks the run.
        let mut broken = moves;
        broken[3].1 = cp(-499);
        assert_eq!(resign_after("movecount=3,score=500", &broken), None);
        broken[3].1 = None;
        assert_eq!(resign_after("movecount=3,score=500", &broken), None);
        assert_eq!(
            resign_after("movecount=1,score=1", &[(W, cp(-1))]).map(|(at, a)| (at, a.winner)),
            Some((0, B))
        );
    }

    #[test]
    fn two_sided_resignation_waits_for_the_winner_to_agree() {
        let moves = [
            (W, cp(400)),
            (B, cp(-600)),
            (W, cp(700)),
            (B, cp(-600)),
            (W, Some(Score::Mate(4))),
        ];
        // One-sided: Black resigns at its second move.
        let (at, _) = resign_after("movecount=2,score=500", &moves).unwrap();
        assert_eq!(at, 3);
        // Two-sided: White's 400 breaks its run; White's second move at +500 or better comes
        // after Black's, and decides.
        let (at, adjudicated) =
            resign_after("movecount=2,score=500,twosided=true", &moves).unwrap();
        assert_eq!(at, 4);
        assert_eq!(adjudicated.winner, W);
        assert_eq!(
            adjudicated.detail,
            "Black resigns: -5.00 or worse for 2 moves, White +5.00 or better"
        );
        let mut disagree = moves;
        disagree[4].1 = cp(300);
        assert_eq!(
            resign_after("movecount=2,score=500,twosided=true", &disagree),
            None
        );
    }

    #[test]
    fn a_proof_ends_the_game_with_its_line_before_a_resignation() {
        let adjudication = Adjudication {
            resign: Some(resign("movecount=1,score=1")),
            proof: Some("proof=5".parse().unwrap()),
        };
        let mut adjudicator = Adjudicator::new(&adjudication, Rules::CaptureOnly);
        // White to move wins in 3 plies; Black's -1 would resign it too (score=1).
        let position: Position = "8/p7/4P3/8/8/8/8/8 w".parse().unwrap();
        let adjudicated = adjudicator
            .after_move(&position, B, Some(Score::Cp(-1)))
            .unwrap();
        assert_eq!(
            adjudicated,
            Adjudicated {
                winner: W,
                termination: Termination::Proof,
                detail: "White wins in 3 plies: e6e7 a7a6 e7e8".into(),
            }
        );
        assert!(adjudicator.proof_nodes() > 0);
        // Off: nothing is looked at.
        let mut off = Adjudicator::new(&Adjudication::default(), Rules::CaptureOnly);
        assert_eq!(off.after_move(&position, B, cp(-10_000)), None);
        assert_eq!(off.proof_nodes(), 0);
    }
}
