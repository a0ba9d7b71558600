//! The report as text, fastchess style: the game count, the standings (3+ engines: with two,
//! the pair's block is the one figure, as fastchess prints it), the crosstable (3+ engines), a
//! block per pair of engines (Elo, games, pentanomial counts, SPRT), the openings (the book's
//! line and those to prune) and the faults table.
//! [`Display`](fmt::Display) of [`Summary`] and [`PairSummary`]; [`interim_lines`], the
//! one-line-per-pair report of a run in progress on a CI log.

use super::openings::OpeningsReport;
use super::summary::{PairSummary, Summary};
use crate::records::plural;
use crate::stats::{AfterStop, Bound, EloModel, SprtDecision};
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

/// The after-stop estimate as the reports label it, `Elo after the SPRT stop: +12.34 [+3.21,
/// +21.05] (median-unbiased, 95%)`: beside the plain Elo, which a stop on a lucky run
/// overstates.
pub(crate) fn after_stop_text(estimate: &AfterStop) -> String {
    format!("Elo after the SPRT stop: {estimate} (median-unbiased, 95%)")
}

/// `-` for a missing value.
fn or_dash(value: Option<String>) -> String {
    value.unwrap_or_else(|| "-".to_string())
}

impl fmt::Display for Summary {
    /// The report: the game count, the standings table (unless [`Summary::one_match`]), the
    /// crosstable (3+ engines), a block per pair (Elo, games, pentanomial counts, the LLR
    /// line), the openings (the book's line and those to prune), and the faults table.
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
        if self.one_match() {
            // The pair's block below is the one Elo of the match: the pool's ratings of two
            // engines are half its difference each, a second figure to misread.
            if let Some(note) = self.self_play.note() {
                writeln!(f)?;
                writeln!(f, "Not rated: {note}.")?;
            }
        } else {
            writeln!(f)?;
            self.write_standings(f)?;
        }
        if self.engines.len() >= 3 {
            writeln!(f)?;
            write!(f, "{}", super::crosstable::Crosstable::of(self))?;
        }
        for pair in &self.pairs {
            writeln!(f)?;
            write!(f, "{pair}")?;
        }
        self.write_openings(f)?;
        writeln!(f)?;
        self.write_faults(f)?;
        if !self.claims.is_empty() {
            writeln!(f)?;
            let table = super::claims::ClaimsText {
                engines: &self.claims,
                rows: &self.claim_findings,
            };
            write!(f, "{table}")?;
        }
        if !self.latency.is_empty() {
            writeln!(f)?;
            let table = super::latency::LatencyText {
                engines: &self.latency,
                width: self.name_width(0),
            };
            write!(f, "{table}")?;
        }
        if !self.hosts.is_empty() {
            writeln!(f)?;
            self.write_hosts(f)?;
        }
        Ok(())
    }
}

impl Summary {
    /// Whether the report is of one match: two engines that met (or are under an SPRT), so
    /// that the pair's block says all the standings would, in one figure.
    pub fn one_match(&self) -> bool {
        self.engines.len() == 2 && self.pairs.len() == 1
    }

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
                match &self.anchor {
                    Some(anchor) => writeln!(
                        f,
                        "Ratings: the pool's Bradley-Terry Elo relative to {anchor} (its rating \
                         0), +/- the 95% interval of the difference to it; LOS against the next \
                         engine."
                    )?,
                    None => writeln!(
                        f,
                        "Ratings: the pool's Bradley-Terry Elo (mean 0), +/- its 95% interval; \
                         LOS against the next engine."
                    )?,
                }
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

    /// The per-host table of a run of workers: games, losses by fault, the tested engine's
    /// score and its χ² p-value against the pool's, and the hosts flagged.
    fn write_hosts(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self
            .hosts
            .iter()
            .map(|h| h.tally.host.len())
            .max()
            .unwrap_or(0)
            .max("Host".len());
        // The bench speed column, when a host measured one.
        let speeds = self.hosts.iter().any(|h| h.tally.bench_nps.is_some());
        let nps_header = if speeds { " bench nps" } else { "" };
        writeln!(
            f,
            "{:<w$} {:>7} {:>5} {:>4} {:>5} {:>5} {:>7} {:>6} {:>8}{nps_header}",
            "Host", "workers", "games", "time", "crash", "stall", "illegal", "score", "p"
        )?;
        for host in &self.hosts {
            let t = &host.tally;
            let nps = match (speeds, t.bench_nps) {
                (false, _) => String::new(),
                (true, Some(nps)) => format!(" {nps:>9}"),
                (true, None) => format!(" {:>9}", "-"),
            };
            writeln!(
                f,
                "{:<w$} {:>7} {:>5} {:>4} {:>5} {:>5} {:>7} {:>6.3} {:>8}{nps}",
                t.host,
                t.workers,
                t.games,
                t.time_forfeits,
                t.crashes,
                t.stalls,
                t.illegal_moves,
                host.score,
                super::numbers::p_value(host.p_value)
            )?;
        }
        for host in self.hosts.iter().filter(|h| h.flagged.is_some()) {
            writeln!(
                f,
                "Flagged: {}: {}",
                host.tally.host,
                host.flagged.as_deref().unwrap_or_default()
            )?;
        }
        writeln!(
            f,
            "(score: the first engine's; p: its χ² against the pooled score; flagged when p · hosts < 0.01 or losses by fault exceed 3 times the other hosts' rate{})",
            if speeds {
                "; bench nps: the speed its workers measured"
            } else {
                ""
            }
        )
    }

    /// The book's line and the openings to prune (the first
    /// [`TEXT_PRUNE_ROWS`](super::openings::TEXT_PRUNE_ROWS)); nothing without games.
    fn write_openings(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let openings = &self.openings;
        if openings.games == 0 {
            return Ok(());
        }
        writeln!(f)?;
        writeln!(f, "{}", openings.book_line())?;
        let prune = openings.openings.iter().filter(|o| o.prune);
        let shown = super::openings::TEXT_PRUNE_ROWS.min(openings.prune.len());
        if shown > 0 {
            write!(f, "{}", OpeningsReport::table(prune.take(shown)))?;
        }
        if shown < openings.prune.len() {
            writeln!(
                f,
                "(the first {shown} of {} to prune; every opening in summary.json and report.html)",
                openings.prune.len()
            )?;
        }
        Ok(())
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

/// The report of a run in progress as a CI log shows it, one line per pair of engines (as
/// cutechess's score lines): the games recorded of those scheduled, then the pair's games, its
/// Elo with the 95% interval (or its bound, as the full report gives it), and with an SPRT its
/// LLR line:
///
/// ```text
/// Interim (10 of 120 games): new vs base: 10 games, Elo: +34.86 +/- 70.12, LLR: 0.41 (-2.94, 2.94) [0.00, 5.00]
/// ```
///
/// `scheduled` 0: the schedule's length is not known (`Interim (10 games)`). No line for a
/// report without pairs, nor for a pair whose SPRT has decided: its verdict was said, and the
/// full report follows.
pub fn interim_lines(summary: &Summary, recorded: u64, scheduled: u64) -> Vec<String> {
    let head = match scheduled {
        0 => format!("Interim ({})", plural(recorded, "game")),
        total => format!("Interim ({recorded} of {total} games)"),
    };
    summary
        .pairs
        .iter()
        .filter(|pair| {
            pair.sprt
                .as_ref()
                .is_none_or(|status| status.report.decision == SprtDecision::Continue)
        })
        .map(|pair| {
            let elo = match pair.games {
                0 => "Elo: -".to_string(),
                _ => format!("Elo: {}", pair.elo_text()),
            };
            // A pair with a verdict has no interim line: no after-stop estimate here (the
            // progress line and the report give it).
            let llr = pair
                .sprt
                .map(|status| format!(", {}", status.report))
                .unwrap_or_default();
            format!(
                "{head}: {} vs {}: {}, {elo}{llr}",
                pair.first,
                pair.second,
                plural(pair.games, "game")
            )
        })
        .collect()
}

impl PairSummary {
    /// The pair's Elo with its 95% interval, `+34.86 +/- 21.56`, or for a one-sided score
    /// the bound, `>+1199.83 (a floor: one side won every counted game)`.
    fn elo_text(&self) -> String {
        let elo = &self.elo;
        match elo.bound_side() {
            // A one-sided score: the Elo is a bound, with no interval.
            Some(bound) => format!(
                "{} (a {}: one side won every counted game)",
                format_elo(elo.elo, Some(bound)),
                if bound == Bound::Lower {
                    "floor"
                } else {
                    "ceiling"
                }
            ),
            None if self.games < FEW_GAMES => format!(
                "{} +/- {:.2} (from {}: too few for the error bar to mean much)",
                format_elo(elo.elo, None),
                elo.error95,
                plural(self.games, "game")
            ),
            None => format!("{} +/- {:.2}", format_elo(elo.elo, None), elo.error95),
        }
    }
}

/// Below this many games a pair's error bar is said to mean little: its variance is
/// estimated from the games themselves (the pentanomial's from under 10 game pairs), and a
/// handful of alike results gives a narrow bar that says nothing (`+0.00 +/- 17.00` from 4
/// games).
pub const FEW_GAMES: u64 = 20;

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
    /// only`); after a verdict, the Elo after the stop below the Elo line ([`after_stop_text`])
    /// and `SPRT: H1 accepted at game 480; 2 games after the decision`;
    /// for a test halted at a missing game, `SPRT: no verdict over the first 40 games (a game
    /// after them is missing); 18 games after it not in the LLR`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Results of {} vs {}:", self.first, self.second)?;
        writeln!(
            f,
            "Elo: {}, LOS: {}",
            self.elo_text(),
            format_percent(self.elo.los)
        )?;
        if let Some(estimate) = self.sprt.and_then(|status| status.after_stop) {
            writeln!(f, "{}", after_stop_text(&estimate))?;
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
    use crate::records::GameResult::{BlackWins, WhiteWins};
    use crate::records::Termination::GoalRank;
    use crate::report::Summary;
    use crate::report::summary::tests::{Game, alpha_beta, games, names, sprt};
    use crate::stats::{SprtDecision, elo_pentanomial, z95};

    /// alpha and beta's games, and gamma's against both (every engine won and lost a game
    /// against each other: no rating is a bound).
    fn three_engines() -> Summary {
        let mut all = alpha_beta();
        let gamma: [Game; 8] = [
            (6, "gamma", "alpha", WhiteWins, GoalRank),
            (6, "alpha", "gamma", WhiteWins, GoalRank),
            (7, "gamma", "alpha", BlackWins, GoalRank),
            (7, "alpha", "gamma", WhiteWins, GoalRank),
            (8, "gamma", "beta", WhiteWins, GoalRank),
            (8, "beta", "gamma", BlackWins, GoalRank),
            (9, "gamma", "beta", BlackWins, GoalRank),
            (9, "beta", "gamma", BlackWins, GoalRank),
        ];
        all.extend(games(&gamma));
        for (i, game) in all.iter_mut().enumerate() {
            game.game_id = i as u64 + 1;
        }
        Summary::compute(&all, &names(&["alpha", "beta", "gamma"]), None)
    }

    /// Two engines: the pair's block is the one figure, as fastchess prints a match (the
    /// pool's ratings would be a second Elo, half the difference each).
    #[test]
    fn the_report_of_two_engines_reads_like_fastchess() {
        let summary = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), Some(&sprt()));
        let text = summary.to_string();
        let elo = elo_pentanomial(&[1, 0, 1, 0, 2].into());
        let expected_elo = format!(
            "Elo: {:+.2} +/- {:.2} (from 9 games: too few for the error bar to mean much), \
             LOS: {:.2}%\n",
            elo.elo,
            elo.error95,
            100.0 * elo.los
        );
        assert!(
            text.starts_with("Games: 9\n\nResults of alpha vs beta:\n"),
            "{text}"
        );
        assert!(!text.contains("Rank"), "{text}");
        assert!(!text.contains("Ratings:"), "{text}");
        assert_eq!(text.matches("Elo:").count(), 1, "{text}");
        assert!(text.contains(&expected_elo), "{text}");
        assert!(
            text.contains(
                "Elo: +88.69 +/- 710.45 (from 9 games: too few for the error bar to mean much), \
                 LOS: 72.67%\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("LLR: 0.02 (-2.94, 2.94) [0.00, 5.00]\n"),
            "{text}"
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

    /// Three engines: the standings with their note; anchored (Ordo's habit), the anchor's
    /// rating is 0 and each other's ± is that of its difference to it.
    #[test]
    fn the_standings_of_three_engines_are_anchored_on_request() {
        let mut summary = three_engines();
        let text = summary.to_string();
        assert!(text.starts_with("Games: 17\n\nRank Name"), "{text}");
        assert!(
            text.contains("Ratings: the pool's Bradley-Terry Elo (mean 0), +/- its 95% interval"),
            "{text}"
        );
        assert!(
            text.contains("Each pair below has its own Elo, from its game pairs alone"),
            "{text}"
        );
        let before = summary.standings.clone();
        let elo_of = |rows: &[crate::report::Standing], name: &str| {
            rows.iter().find(|r| r.name == name).unwrap().clone()
        };
        summary.anchor_at("beta").unwrap();
        assert_eq!(summary.anchor.as_deref(), Some("beta"));
        let beta = elo_of(&summary.standings, "beta");
        assert_eq!((beta.elo, beta.error95), (Some(0.0), None));
        let differences = summary.differences.clone().unwrap();
        let at = |name: &str| differences.names.iter().position(|n| n == name).unwrap();
        for name in ["alpha", "gamma"] {
            let (old, new) = (elo_of(&before, name), elo_of(&summary.standings, name));
            let shift = old.elo.unwrap() - elo_of(&before, "beta").elo.unwrap();
            assert!((new.elo.unwrap() - shift).abs() < 1e-9, "{name}");
            let error = z95() * differences.std_error[at(name)][at("beta")];
            assert!((new.error95.unwrap() - error).abs() < 1e-9, "{name}");
            assert_eq!((new.rank, new.los_next), (old.rank, old.los_next));
        }
        let text = summary.to_string();
        assert!(
            text.contains("Ratings: the pool's Bradley-Terry Elo relative to beta (its rating 0)"),
            "{text}"
        );
        assert!(
            text.contains("   3 beta      +0.00       -     13 "),
            "{text}"
        );
        assert!(text.contains("Each pair below has its own Elo"), "{text}");
        let err = summary.anchor_at("delta").unwrap_err();
        assert_eq!(
            err.to_string(),
            "--anchor delta: no engine of that name has a rating (the engines: alpha, beta, gamma)"
        );
    }

    /// On a CI log, a line per pair: games, Elo and, with an SPRT, the LLR with its bounds.
    #[test]
    fn an_interim_report_is_a_line_per_pair() {
        let two = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), Some(&sprt()));
        assert_eq!(
            super::interim_lines(&two, 9, 40),
            [
                "Interim (9 of 40 games): alpha vs beta: 9 games, Elo: +88.69 +/- 710.45 \
                 (from 9 games: too few for the error bar to mean much), \
                 LLR: 0.02 (-2.94, 2.94) [0.00, 5.00]"
            ]
        );
        // After the SPRT's verdict, no interim line: the verdict was said (issue 39). Wide
        // hypotheses and error rates (bounds at ±0.2): the first games decide.
        let quick: crate::stats::Sprt = "elo0=-300 elo1=300 alpha=0.45 beta=0.45".parse().unwrap();
        let decided = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), Some(&quick));
        let status = decided.pairs[0].sprt.as_ref().unwrap();
        assert_ne!(status.report.decision, SprtDecision::Continue, "{status:?}");
        assert_eq!(super::interim_lines(&decided, 9, 40), Vec::<String>::new());
        let lines = super::interim_lines(&three_engines(), 17, 0);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].starts_with("Interim (17 games): alpha vs beta: 9 games, Elo: "));
        assert!(lines[2].starts_with("Interim (17 games): beta vs gamma: 4 games, Elo: "));
        assert!(lines.iter().all(|line| !line.contains("LLR")), "{lines:?}");
    }

    /// After a verdict the Elo after the stop stands beside the plain Elo, in the text
    /// report, the interim line and summary.json; without a verdict it is nowhere.
    #[test]
    fn the_elo_after_the_stop_is_shown_after_a_verdict_only() {
        let sprt: crate::stats::Sprt = "elo0=0 elo1=200".parse().unwrap();
        // new wins every pair; one more pair after the verdict.
        let won: Vec<Game> = (1..=12)
            .flat_map(|pair| {
                [
                    (pair, "new", "base", WhiteWins, GoalRank),
                    (pair, "base", "new", BlackWins, GoalRank),
                ]
            })
            .collect();
        let summary = Summary::compute(&games(&won), &names(&["new", "base"]), Some(&sprt));
        let status = summary.pairs[0].sprt.unwrap();
        assert_eq!(status.report.decision, crate::stats::SprtDecision::AcceptH1);
        let at_verdict = [0, 0, 0, 0, status.games / 2];
        let estimate = crate::stats::after_stop(&sprt, &at_verdict);
        assert_eq!(status.after_stop, Some(estimate));
        let line = format!("Elo after the SPRT stop: {estimate} (median-unbiased, 95%)");
        let text = summary.to_string();
        let elo_line = format!(
            "Elo: {}, LOS: 100.00%\n{line}\nGames: 24,",
            summary.pairs[0].elo_text()
        );
        assert!(text.contains(&elo_line), "{text}");
        // No interim line after a verdict, so none carries the estimate.
        assert_eq!(super::interim_lines(&summary, 24, 24), Vec::<String>::new());
        let json: serde_json::Value =
            serde_json::from_str(&crate::report::summary_json(&summary)).unwrap();
        let after = &json["pairs"][0]["sprt"]["after_stop"];
        assert_eq!(after["elo"], estimate.elo);
        assert_eq!(after["ci"], serde_json::json!(estimate.ci));
        assert_eq!(after["clamped"], estimate.clamped);
        // A one-sided stop: the plain Elo is a floor; the estimate a finite figure under it.
        assert!(summary.pairs[0].elo.bound && estimate.elo < summary.pairs[0].elo.elo);

        let running = Summary::compute(&alpha_beta(), &names(&["alpha", "beta"]), Some(&sprt));
        assert_eq!(running.pairs[0].sprt.unwrap().after_stop, None);
        assert!(!running.to_string().contains("after the SPRT stop"));
        assert!(!super::interim_lines(&running, 9, 9)[0].contains("after the SPRT stop"));
        assert!(!crate::report::summary_json(&running).contains("after_stop"));
    }

    /// The book's line and the openings to prune, between the pairs and the faults; the
    /// list stops at TEXT_PRUNE_ROWS.
    #[test]
    fn the_openings_to_prune_follow_the_pairs() {
        let mut list: Vec<Game> = Vec::new();
        for pair in 1..=36 {
            // Openings 1..=12, three pairs each, every game won by White.
            list.push((pair, "alpha", "beta", WhiteWins, GoalRank));
            list.push((pair, "beta", "alpha", WhiteWins, GoalRank));
        }
        let mut all = games(&list);
        for game in &mut all {
            game.opening_id = (game.pair - 1) % 12 + 1;
            game.opening = format!("o{}", game.opening_id);
        }
        let summary = Summary::compute(&all, &names(&["alpha", "beta"]), None);
        assert_eq!(summary.openings.prune.len(), 12);
        let text = summary.to_string();
        let from = text
            .find("\nOpenings: 12 played, 72 games, 36 pairs;")
            .unwrap();
        let block = &text[from..text.find("\nLosses by fault").unwrap()];
        assert_eq!(block.matches("  prune\n").count(), 10, "{block}");
        assert!(
            block.ends_with(
                "(the first 10 of 12 to prune; every opening in summary.json and report.html)\n"
            ),
            "{block}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&crate::report::summary_json(&summary)).unwrap();
        assert_eq!(json["openings"]["openings"].as_array().unwrap().len(), 12);
        assert_eq!(json["openings"]["openings"][0]["first_player"], "White");
        assert_eq!(json["openings"]["one_one_share"], 1.0);
        let empty = Summary::compute(&[], &names(&["alpha", "beta"]), None);
        assert!(!empty.to_string().contains("Openings"));
    }
}
