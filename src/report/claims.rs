//! The claims table of a report: per engine and kind of check ([`ClaimKind`]), how many claims
//! were checked and how many were found wrong, with the findings' positions; built from
//! games.csv's `claims` column alone ([`crate::records::claims`]), so `bt-arena report`
//! rebuilds it from the records.

use crate::game::claims::{Reproduce, claim_plies};
use crate::records::GameRecord;
use crate::records::claims::{ClaimKind, Finding, GameClaims};
use crate::rules::{Color, Position};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// The findings listed per engine and kind; past it they are counted, not listed.
pub const LISTED_FINDINGS: u64 = 20;

/// The checks of one engine's claims.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EngineClaims {
    /// Engine name.
    pub name: String,
    /// Claims checked, by kind (`pv`, `mate`, `both`, `ponder`, `jump`); kinds never checked
    /// are left out.
    pub checked: BTreeMap<ClaimKind, u64>,
    /// Claims found wrong (or, for `both` and `jump`, warned about), by kind.
    pub found: BTreeMap<ClaimKind, u64>,
    /// Mate claims not checked: longer than `--check-claims`, or the prover's budget ran out.
    pub mate_unchecked: u64,
}

impl EngineClaims {
    /// Findings that are the engine's fault (`--strict` fails the run on them).
    pub fn faults(&self) -> u64 {
        self.found
            .iter()
            .filter(|(kind, _)| kind.is_fault())
            .map(|(_, n)| n)
            .sum()
    }
}

/// One finding, where it was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimRow {
    /// The game (games.csv's `game_id`).
    pub game_id: u64,
    /// 1-based ply of the move the claim came with.
    pub ply: u32,
    /// The engine that made it.
    pub engine: String,
    /// The kind of check.
    pub kind: ClaimKind,
    /// The position the engine searched (FEN).
    pub position: String,
    /// What was found, in words.
    pub finding: String,
    /// For a false mate claim: the command that proves the position again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
}

/// The claims of a set of games, engine by engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ClaimsTally {
    pub(crate) engines: Vec<EngineClaims>,
    pub(crate) rows: Vec<ClaimRow>,
}

impl ClaimsTally {
    /// Makes room for one more engine.
    pub(crate) fn add_engine(&mut self, name: &str) {
        self.engines.push(EngineClaims {
            name: name.to_string(),
            ..EngineClaims::default()
        });
    }

    /// Counts `game`'s claims, its engines at `seats` (White's, Black's index); a column that
    /// does not read counts nothing.
    pub(crate) fn add(&mut self, game: &GameRecord, seats: [usize; 2]) {
        if game.claims.is_empty() {
            return;
        }
        let Ok(claims) = GameClaims::decode(&game.claims) else {
            return;
        };
        let seat = |side: Color| seats[side.index()];
        for kind in <ClaimKind as crate::named::Named>::all() {
            for side in [Color::White, Color::Black] {
                let checked = u64::from(claims.checked(*kind, side));
                if checked > 0 {
                    *self.engines[seat(side)].checked.entry(*kind).or_default() += checked;
                }
            }
        }
        for side in [Color::White, Color::Black] {
            self.engines[seat(side)].mate_unchecked += u64::from(claims.unchecked[side]);
        }
        for found in &claims.findings {
            let engine = &mut self.engines[seat(found.side)];
            let kind = found.finding.kind();
            let count = engine.found.entry(kind).or_default();
            *count += 1;
            if *count > LISTED_FINDINGS {
                continue;
            }
            let name = engine.name.clone();
            let position = position_at(game, found.ply);
            let reproduce = match (&found.finding, position) {
                (Finding::Mate { claim, .. }, Some(position)) => Some(
                    Reproduce {
                        position: &position,
                        rules: claims.rules,
                        plies: claim_plies(*claim).unwrap_or(1),
                    }
                    .to_string(),
                ),
                _ => None,
            };
            self.rows.push(ClaimRow {
                game_id: game.game_id,
                ply: found.ply,
                engine: name,
                kind,
                position: position.map_or_else(|| "?".into(), |p| p.to_string()),
                finding: found.finding.to_string(),
                reproduce,
            });
        }
    }

    /// The engines' rows, those with a claim checked only.
    pub(crate) fn finish(&self) -> (Vec<EngineClaims>, Vec<ClaimRow>) {
        let engines = self
            .engines
            .iter()
            .filter(|e| !e.checked.is_empty() || !e.found.is_empty() || e.mate_unchecked > 0)
            .cloned()
            .collect();
        let mut rows = self.rows.clone();
        rows.sort_by_key(|row| (row.game_id, row.ply));
        (engines, rows)
    }
}

/// The position before `ply` (1-based) of `game`: its opening and the moves before;
/// `None` when the record does not replay.
fn position_at(game: &GameRecord, ply: u32) -> Option<Position> {
    let mut position = game.start()?;
    let before = usize::try_from(ply).ok()?.checked_sub(1)?;
    for text in game.moves.split_whitespace().take(before) {
        let mv = text.parse().ok()?;
        position = position.play_unchecked(mv);
    }
    Some(position)
}

/// The claims table as text: one line per engine and kind checked, then the findings.
pub struct ClaimsText<'a> {
    /// The engines' counts.
    pub engines: &'a [EngineClaims],
    /// The findings listed.
    pub rows: &'a [ClaimRow],
}

impl fmt::Display for ClaimsText<'_> {
    /// `Claims checked  kind  checked  found  not checked`, a line per engine and kind, then
    /// the findings (`game 3 ply 12: faulty: ... (position FEN)`, a reproduction line under
    /// false mate claims).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let title = "Claims checked";
        let w = self
            .engines
            .iter()
            .map(|e| e.name.len())
            .chain([title.len()])
            .max()
            .unwrap_or(title.len());
        let line = |f: &mut fmt::Formatter<'_>, cells: [&str; 5]| {
            let text = format!(
                "{:<w$}  {:<19} {:>7} {:>5} {:>11}",
                cells[0], cells[1], cells[2], cells[3], cells[4]
            );
            writeln!(f, "{}", text.trim_end())
        };
        line(f, [title, "kind", "checked", "found", "not checked"])?;
        for engine in self.engines {
            let kinds = <ClaimKind as crate::named::Named>::all();
            for kind in kinds.iter().filter(|k| {
                engine.checked.contains_key(k)
                    || engine.found.contains_key(k)
                    || (**k == ClaimKind::Mate && engine.mate_unchecked > 0)
            }) {
                let unchecked = match kind {
                    ClaimKind::Mate => engine.mate_unchecked.to_string(),
                    _ => String::new(),
                };
                let checked = engine.checked.get(kind).copied().unwrap_or(0).to_string();
                let found = engine.found.get(kind).copied().unwrap_or(0).to_string();
                line(
                    f,
                    [&engine.name, kind.title(), &checked, &found, &unchecked],
                )?;
            }
        }
        for row in self.rows {
            writeln!(
                f,
                "  game {} ply {}: {}: {} (position {})",
                row.game_id, row.ply, row.engine, row.finding, row.position
            )?;
            if let Some(command) = &row.reproduce {
                writeln!(f, "    reproduce: {command}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::records::GameResult::WhiteWins;
    use crate::records::Termination::GoalRank;
    use crate::records::tests::record;
    use crate::report::Summary;

    /// Two games of alpha (White) against beta whose moves are `a2a3 a7a6 b2b3`: beta's PV
    /// at ply 2 is illegal, alpha's mate claim at ply 3 false (classic rules); a third game's
    /// column does not read and counts nothing.
    #[test]
    fn the_table_counts_per_engine_and_kind_and_places_each_finding() {
        let mut games = vec![
            record(1, 1, "alpha", "beta", WhiteWins, GoalRank),
            record(2, 1, "beta", "alpha", WhiteWins, GoalRank),
            record(3, 2, "alpha", "beta", WhiteWins, GoalRank),
        ];
        for game in &mut games {
            game.moves = "a2a3 a7a6 b2b3".into();
            game.plies = 3;
        }
        games[0].claims = "rules=classic pv=2/1 mate=1/0 b2:pv:2:a7a6:illegal \
                           w3:mate:1:open1:"
            .into();
        games[1].claims = "pv=1/1 mate-unchecked=0/2".into();
        games[2].claims = "pv=x".into();
        let summary = Summary::compute(&games, &[], None);
        let table: Vec<_> = summary
            .claims
            .iter()
            .map(|e| {
                (
                    e.name.as_str(),
                    e.checked.values().copied().collect::<Vec<_>>(),
                    e.found.values().copied().collect::<Vec<_>>(),
                    e.mate_unchecked,
                )
            })
            .collect();
        // alpha: PVs 2 + 1 (as Black in game 2), 1 mate claim found false, 2 unchecked.
        assert_eq!(
            table,
            [
                ("alpha", vec![3, 1], vec![1], 2),
                ("beta", vec![2], vec![1], 0)
            ]
        );
        let rows = &summary.claim_findings;
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].game_id, rows[0].ply, rows[0].engine.as_str()),
            (1, 2, "beta")
        );
        assert_eq!(
            rows[0].position,
            "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b"
        );
        assert_eq!(rows[0].finding, "PV move 2 'a7a6' is illegal");
        assert_eq!(
            rows[1].reproduce.as_deref(),
            Some(
                "bt-arena prove --fen 'pppppppp/1ppppppp/p7/8/8/P7/1PPPPPPP/PPPPPPPP w' \
                 --plies 1 --rules classic"
            )
        );
        let text = summary.to_string();
        assert!(
            text.contains("alpha           mate claims               1     1           2\n"),
            "{text}"
        );
        assert!(
            text.contains("    reproduce: bt-arena prove --fen"),
            "{text}"
        );
        assert_eq!(
            summary.behaviour_failures(),
            ["alpha: mate claims wrong: 1", "beta: PV legal wrong: 1"]
        );
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["claims"][0]["checked"]["pv"], 3);
        assert_eq!(json["claim_findings"][1]["kind"], "mate");
    }
}
