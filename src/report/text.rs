//! The report as text, fastchess style: the game count, the standings, the crosstable (3+
//! engines), a block per pair of engines (Elo, games, pentanomial counts, SPRT) and the faults
//! table. [`Display`](fmt::Display) of [`Summary`] and [`PairSummary`].

use super::summary::{PairSummary, Summary};
use crate::records::plural;
use crate::stats::{Bound, EloModel, SprtDecision};
use std::fmt;

/// Elo with two decimals and a sign, prefixed `>` (a floor), `<` (a ceiling) or `~` (both) for
/// a bound.
fn format_elo(elo: f64, bound: Option<Bound>) -> String {
    let mark = bound.map_or("", Bound::mark);
    // `+ 0.0` prints -0.0 as +0.00.
    format!("{mark}{:+.2}", elo + 0.0)
}

/// A probability as a percentage with two decimals, e.g. `97.72%`.
fn format_percent(probability: f64) -> String {
    format!("{:.2}%", 100.0 * probability)
}

/// `-` for a missing value.
fn or_dash(value: Option<String>) -> String {
    value.unwrap_or_else(|| "-".to_string())
}

impl fmt::Display for Summary {
    /// The report: the game count, the standings table, the crosstable (3+ engines), a block
    /// per pair (Elo, games, pentanomial counts, the LLR line), and the faults table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Games: {}", self.games)?;
        let adjudicated = self.adjudicated;
        if !adjudicated.is_empty() {
            let by = [
                ("proof", adjudicated.proof),
                ("resign", adjudicated.resign),
                ("another tool's rule", adjudicated.other),
            ];
            let by: Vec<String> = by
                .iter()
                .filter(|(_, count)| *count > 0)
                .map(|(rule, count)| format!("{count} by {rule}"))
                .collect();
            write!(
                f,
                " ({} adjudicated: {})",
                adjudicated.total(),
                by.join(", ")
            )?;
        }
        writeln!(f)?;
        writeln!(f)?;
        self.write_standings(f)?;
        if self.engines.len() >= 3 {
            writeln!(f)?;
            write!(f, "{}", super::crosstable::Crosstable::of(self))?;
        }
        for pair in &self.pairs {
            writeln!(f)?;
            write!(f, "{pair}")?;
        }
        writeln!(f)?;
        self.write_faults(f)
    }
}

impl Summary {
    /// Width of the name column: the longest name, at least `min`.
    fn name_width(&self, min: usize) -> usize {
        self.engines.iter().map(String::len).fold(min, usize::max)
    }

    fn write_standings(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.name_width(4);
        writeln!(
            f,
            "{:>4} {:<w$} {:>9} {:>7} {:>6} {:>7} {:>6} {:>6} {:>7}",
            "Rank", "Name", "Elo", "+/-", "Games", "Score", "W", "L", "LOS"
        )?;
        for row in &self.standings {
            writeln!(
                f,
                "{:>4} {:<w$} {:>9} {:>7} {:>6} {:>7} {:>6} {:>6} {:>7}",
                row.rank,
                row.name,
                or_dash(row.elo.map(|elo| format_elo(elo, row.bound))),
                // A bound has no interval: only one side of it is known.
                or_dash(row.error95.map(|e| format!("{e:.2}"))),
                row.games,
                or_dash(row.score_percent.map(|s| format!("{s:.2}%"))),
                row.wins,
                row.losses,
                or_dash(row.los_next.map(format_percent)),
            )?;
        }
        match &self.unrated {
            Some(reason) => writeln!(f, "No ratings: {reason}."),
            None => {
                writeln!(
                    f,
                    "Ratings: the pool's Bradley-Terry Elo (mean 0), +/- its 95% interval; LOS \
                     against the next engine."
                )?;
                if self.standings.iter().any(|row| row.bound.is_some()) {
                    writeln!(
                        f,
                        "A rating marked > is a floor, < a ceiling, ~ both (a one-sided score: \
                         no estimate, no interval)."
                    )?;
                }
                if !self.pairs.is_empty() {
                    writeln!(
                        f,
                        "Each pair below has its own Elo, from its game pairs alone (not the \
                         pool's ratings)."
                    )?;
                }
                if let Some(note) = self.self_play.note() {
                    writeln!(f, "Not rated: {note}.")?;
                }
                Ok(())
            }
        }
    }

    fn write_faults(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.name_width("Losses by fault".len());
        writeln!(
            f,
            "{:<w$} {:>5} {:>7} {:>5} {:>5} {:>6}",
            "Losses by fault", "time", "illegal", "crash", "stall", "stray"
        )?;
        for row in &self.faults {
            writeln!(
                f,
                "{:<w$} {:>5} {:>7} {:>5} {:>5} {:>6}",
                row.name,
                row.time_forfeits,
                row.illegal_moves,
                row.crashes,
                row.stalls,
                row.stray_answers
            )?;
        }
        writeln!(
            f,
            "(stray: lines answering no request, never played; not losses)"
        )
    }
}

impl fmt::Display for PairSummary {
    /// A fastchess-style block:
    ///
    /// ```text
    /// Results of alpha vs beta:
    /// Elo: +34.86 +/- 21.56, LOS: 99.93%
    /// Games: 1000, Wins: 550, Losses: 450, Score: 55.00%
    /// Ptnml(0-2): [100, 0, 250, 0, 150], 500 pairs
    /// LLR: 1.34 (-2.94, 2.94) [0.00, 5.00]
    /// ```
    ///
    /// The Ptnml line names the games in no complete pair (`; 1 unpaired game, in the score
    /// only`); after a verdict, `SPRT: H1 accepted at game 480; 2 games after the decision`;
    /// for a test halted at a missing game, `SPRT: no verdict over the first 40 games (a game
    /// after them is missing); 18 games after it not in the LLR`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let elo = &self.elo;
        writeln!(f, "Results of {} vs {}:", self.first, self.second)?;
        match elo.bound_side() {
            // A one-sided score: the Elo is a bound, with no interval.
            Some(bound) => writeln!(
                f,
                "Elo: {} (a {}: one side won every counted game), LOS: {}",
                format_elo(elo.elo, Some(bound)),
                if bound == Bound::Lower {
                    "floor"
                } else {
                    "ceiling"
                },
                format_percent(elo.los)
            )?,
            None => writeln!(
                f,
                "Elo: {} +/- {:.2}, LOS: {}",
                format_elo(elo.elo, None),
                elo.error95,
                format_percent(elo.los)
            )?,
        }
        let score = (self.games > 0).then(|| self.wins as f64 / self.games as f64);
        writeln!(
            f,
            "Games: {}, Wins: {}, Losses: {}, Score: {}",
            self.games,
            self.wins,
            self.losses,
            or_dash(score.map(format_percent))
        )?;
        let pairs = self.pentanomial.pairs();
        let [ll, ld, wl, wd, ww] = self.pentanomial.as_array();
        let note = match (self.model, self.unpaired) {
            (EloModel::Trinomial, _) => "no complete pairs: Elo from single games".to_string(),
            (EloModel::Pentanomial, 0) => plural(pairs, "pair"),
            (EloModel::Pentanomial, unpaired) => format!(
                "{}; {}, in the score only",
                plural(pairs, "pair"),
                plural(unpaired, "unpaired game")
            ),
        };
        writeln!(f, "Ptnml(0-2): [{ll}, {ld}, {wl}, {wd}, {ww}], {note}")?;
        if let Some(status) = &self.sprt {
            writeln!(f, "{}", status.report)?;
            let accepted = match status.report.decision {
                SprtDecision::AcceptH1 => "H1",
                SprtDecision::AcceptH0 => "H0",
                SprtDecision::Continue if status.games_after > 0 => {
                    // Halted at a missing game (a sharded run read in game-id order).
                    return writeln!(
                        f,
                        "SPRT: no verdict over the first {} (a game after {} is missing); {} \
                         after it not in the LLR",
                        plural(status.games, "game"),
                        if status.games == 1 { "it" } else { "them" },
                        plural(status.games_after, "game")
                    );
                }
                SprtDecision::Continue => return Ok(()),
            };
            write!(f, "SPRT: {accepted} accepted at game {}", status.games)?;
            if status.model != self.model {
                write!(f, " (LLR of single games, before the first complete pair)")?;
            }
            match status.games_after {
                0 => writeln!(f)?,
                after => writeln!(
                    f,
                    "; {} after the decision (not in the LLR)",
                    plural(after, "game")
                )?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::report::Summary;
    use crate::report::summary::tests::{alpha_beta, names, sprt};
    use crate::stats::elo_pentanomial;

    #[test]
    fn the_report_reads_like_fastchess() {
        let summary = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), Some(&sprt()));
        let text = summary.to_string();
        let elo = elo_pentanomial(&[1, 0, 1, 0, 2].into());
        let expected_elo = format!(
            "Elo: {:+.2} +/- {:.2}, LOS: {:.2}%\n",
            elo.elo,
            elo.error95,
            100.0 * elo.los
        );
        assert!(text.starts_with("Games: 9\n\nRank Name"), "{text}");
        assert!(text.contains("Results of alpha vs beta:\n"), "{text}");
        assert!(text.contains(&expected_elo), "{text}");
        assert!(
            text.contains("Elo: +88.69 +/- 710.45, LOS: 72.67%\n"),
            "{text}"
        );
        assert!(
            text.contains("LLR: 0.02 (-2.94, 2.94) [0.00, 5.00]\n"),
            "{text}"
        );
        assert!(
            text.contains("   1 alpha    +19.38  114.20      9  55.56%      5      4  63.03%\n")
        );
        assert!(text.contains("Games: 9, Wins: 5, Losses: 4, Score: 55.56%\n"));
        assert!(
            text.contains(
                "Ptnml(0-2): [1, 0, 1, 0, 2], 4 pairs; 1 unpaired game, in the score only\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("alpha               1       0     1     1      0\n"),
            "{text}"
        );
    }
}
