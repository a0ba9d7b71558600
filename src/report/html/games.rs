//! The games as the page takes them: one at a time ([`PageGames`], a [`GameSink`]), into the
//! series and the viewer's latest games.

use super::MAX_VIEWER_GAMES;
use crate::records::{GameRecord, GameSink};
use crate::report::Summary;
use crate::report::series::{Series, SeriesBuilder};
use crate::stats::Sprt;
use std::collections::VecDeque;

/// What the page needs of the games, taken one at a time as a [`GameSink`]: the series (see
/// [`SeriesBuilder`]) and the latest [`MAX_VIEWER_GAMES`] games, in the order read. Memory
/// does not grow with the games.
#[derive(Debug)]
pub struct PageGames {
    builder: SeriesBuilder,
    latest: VecDeque<GameRecord>,
}

impl PageGames {
    /// No games yet, for `summary` (computed from the same games with `sprt`).
    pub fn new(summary: &Summary, sprt: Option<&Sprt>) -> PageGames {
        PageGames {
            builder: SeriesBuilder::new(summary, sprt),
            latest: VecDeque::with_capacity(MAX_VIEWER_GAMES),
        }
    }

    /// The series and the latest games, in the order read.
    pub fn finish(self, summary: &Summary) -> (Series, Vec<GameRecord>) {
        (self.builder.finish(summary), self.latest.into())
    }
}

impl GameSink for PageGames {
    fn game(&mut self, game: &GameRecord) {
        self.builder.add(game);
        if self.latest.len() == MAX_VIEWER_GAMES {
            self.latest.pop_front();
        }
        self.latest.push_back(game.clone());
    }

    fn gap(&mut self) {
        self.builder.gap();
    }

    fn end(&mut self) {
        self.builder.end_file();
    }
}
