//! The crosstable: each engine's score against each other one, from the pairs of a
//! [`Summary`]; printed under the text standings (3+ engines) and drawn in report.html.

use super::Summary;
use std::fmt;

/// Wins and losses of every engine against every other, engines in the standings' order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crosstable {
    /// Engine names, best first.
    pub names: Vec<String>,
    /// `cells[r][c]`: `(wins, losses)` of engine `r` against engine `c`; `None` on the
    /// diagonal and for engines that did not meet.
    pub cells: Vec<Vec<Option<(u64, u64)>>>,
}

impl Crosstable {
    /// The crosstable of `summary`'s pairs.
    pub fn of(summary: &Summary) -> Crosstable {
        let names: Vec<String> = summary.standings.iter().map(|s| s.name.clone()).collect();
        let at = |name: &str| names.iter().position(|n| n == name);
        let mut cells = vec![vec![None; names.len()]; names.len()];
        for pair in summary.pairs.iter().filter(|p| p.games > 0) {
            if let (Some(a), Some(b)) = (at(&pair.first), at(&pair.second)) {
                cells[a][b] = Some((pair.wins, pair.losses));
                cells[b][a] = Some((pair.losses, pair.wins));
            }
        }
        Crosstable { names, cells }
    }

    /// The text of one cell: `3/4` (wins of games), `-` when they did not meet.
    pub fn cell_text(cell: Option<(u64, u64)>) -> String {
        match cell {
            Some((wins, losses)) => format!("{wins}/{}", wins + losses),
            None => "-".to_string(),
        }
    }
}

impl fmt::Display for Crosstable {
    /// A table of `wins/games` with the engines numbered as the standings rank them:
    ///
    /// ```text
    /// Crosstable (wins/games of the row against the column):
    ///    Name          1      2      3
    ///  1 alpha         -    3/4    4/4
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.names.iter().map(String::len).fold(4, usize::max);
        let column = self
            .cells
            .iter()
            .flatten()
            .map(|c| Self::cell_text(*c).len())
            .fold(3, usize::max)
            + 2;
        writeln!(f, "Crosstable (wins/games of the row against the column):")?;
        write!(f, "{:>3} {:<width$}", "", "Name")?;
        for k in 1..=self.names.len() {
            write!(f, "{k:>column$}")?;
        }
        writeln!(f)?;
        for (r, name) in self.names.iter().enumerate() {
            write!(f, "{:>3} {name:<width$}", r + 1)?;
            for cell in &self.cells[r] {
                write!(f, "{:>column$}", Self::cell_text(*cell))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::tests::record;
    use crate::records::{GameResult::*, Termination::GoalRank};

    #[test]
    fn three_engines_in_standings_order() {
        let games = vec![
            record(1, 1, "a", "b", WhiteWins, GoalRank),
            record(2, 1, "b", "a", BlackWins, GoalRank),
            record(3, 2, "a", "c", WhiteWins, GoalRank),
            record(4, 2, "c", "a", WhiteWins, GoalRank),
            record(5, 3, "b", "c", WhiteWins, GoalRank),
            record(6, 3, "c", "b", BlackWins, GoalRank),
        ];
        let names = ["c".to_string(), "b".to_string(), "a".to_string()];
        let summary = Summary::compute(&games, &names, None);
        let table = Crosstable::of(&summary);
        assert_eq!(table.names, ["a", "b", "c"]);
        assert_eq!(
            table.cells,
            [
                [None, Some((2, 0)), Some((1, 1))],
                [Some((0, 2)), None, Some((2, 0))],
                [Some((1, 1)), Some((0, 2)), None],
            ]
        );
        assert_eq!(
            table.to_string(),
            "Crosstable (wins/games of the row against the column):\n\
             \x20   Name    1    2    3\n\
             \x20 1 a       -  2/2  1/2\n\
             \x20 2 b     0/2    -  2/2\n\
             \x20 3 c     1/2  0/2    -\n"
        );
    }
}
