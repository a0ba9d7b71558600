//! Time forfeits named for what they may be: a machine overloaded while the engines play. On a
//! machine whose load average is above its cores, engines wait for a core and lose on time
//! without being at fault (on this project's 2-core machines a heavy neighbour makes
//! `st=0.05` games forfeit at 160 ms). When the losses on time rise while the load is above
//! the cores, the run says so once, naming both, so that a CI log reads "forfeits because the
//! machine was overloaded", not only "the engine lost on time".

use std::collections::VecDeque;

/// The games looked back on: the losses on time counted are those of the last this many.
pub const FORFEIT_WINDOW: usize = 20;

/// Losses on time within [`FORFEIT_WINDOW`] games that make a rise (one may be the engine's
/// own doing; two in a short stretch of games rarely are).
pub const FORFEITS_TO_WARN: usize = 2;

/// Whether `forfeits` losses on time in the last games, with the machine's 1-minute load
/// average at `load` on `cores` cores, say the machine is overloaded: at least
/// [`FORFEITS_TO_WARN`] of them while the load is above the cores.
pub fn overloaded(forfeits: usize, load: f64, cores: usize) -> bool {
    forfeits >= FORFEITS_TO_WARN && load > cores as f64
}

/// The losses on time of the last [`FORFEIT_WINDOW`] games, and whether this rise was warned
/// about.
#[derive(Debug, Clone)]
pub struct OverloadWatch {
    cores: usize,
    /// One entry per recent game, oldest first: whether it was lost on time.
    recent: VecDeque<bool>,
    /// The present rise was warned about: no warning again until the window holds no loss
    /// on time.
    warned: bool,
}

impl OverloadWatch {
    /// No game yet, on a machine of `cores` cores.
    pub fn new(cores: usize) -> OverloadWatch {
        OverloadWatch {
            cores,
            recent: VecDeque::with_capacity(FORFEIT_WINDOW),
            warned: false,
        }
    }

    /// Counts a finished game (`time_forfeit`: it was lost on time) and returns the warning
    /// when the losses on time rose while the machine is overloaded ([`overloaded`]), once
    /// per rise: again only after [`FORFEIT_WINDOW`] games in a row without one. `load` gives
    /// the 1-minute load average (`None` where it cannot be read); it is asked only when the
    /// forfeits call for it.
    pub fn game(
        &mut self,
        time_forfeit: bool,
        load: impl FnOnce() -> Option<f64>,
    ) -> Option<String> {
        if self.recent.len() == FORFEIT_WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(time_forfeit);
        let forfeits = self.recent.iter().filter(|&&lost| lost).count();
        if forfeits == 0 {
            self.warned = false;
        }
        if self.warned || forfeits < FORFEITS_TO_WARN {
            return None;
        }
        let load = load()?;
        if !overloaded(forfeits, load, self.cores) {
            return None;
        }
        self.warned = true;
        Some(format!(
            "warning: {} on time in the last {} while the load average is {load:.1} on {}: \
             the machine is overloaded, not necessarily the engine",
            crate::records::plural(forfeits as u64, "loss"),
            crate::records::plural(self.recent.len() as u64, "game"),
            crate::records::plural(self.cores as u64, "core"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overloaded_takes_two_forfeits_and_a_load_above_the_cores() {
        assert!(overloaded(2, 2.1, 2));
        assert!(!overloaded(2, 2.0, 2));
        assert!(!overloaded(1, 9.0, 2));
        assert!(overloaded(5, 16.5, 16));
    }

    /// Feeds `games` (true: lost on time) at `load`; the warnings, by the game they came after.
    fn warnings(watch: &mut OverloadWatch, games: &[bool], load: f64) -> Vec<(usize, String)> {
        games
            .iter()
            .enumerate()
            .filter_map(|(i, &lost)| watch.game(lost, || Some(load)).map(|w| (i + 1, w)))
            .collect()
    }

    #[test]
    fn a_rise_of_forfeits_on_an_overloaded_machine_is_named_once() {
        let mut watch = OverloadWatch::new(2);
        let mut games = vec![false; 5];
        games.extend([true, false, true, true, true]);
        assert_eq!(
            warnings(&mut watch, &games, 5.2),
            [(
                8,
                "warning: 2 losses on time in the last 8 games while the load average is 5.2 on \
                 2 cores: the machine is overloaded, not necessarily the engine"
                    .to_string()
            )]
        );
        // The same rise goes on: nothing more, until 20 games without a loss on time.
        assert_eq!(warnings(&mut watch, &[false; 19], 5.2), []);
        assert_eq!(warnings(&mut watch, &[true, true], 5.2), []);
        let quiet = warnings(&mut watch, &[false; 20], 5.2);
        assert_eq!(quiet, []);
        let again = warnings(&mut watch, &[true, false, true], 3.0);
        assert_eq!(again.len(), 1);
        assert!(
            again[0].1.starts_with(
                "warning: 2 losses on time in the last 20 games while the load average is 3.0"
            ),
            "{again:?}"
        );
    }

    #[test]
    fn forfeits_on_a_machine_not_overloaded_are_the_engines_and_say_nothing() {
        let mut watch = OverloadWatch::new(2);
        assert_eq!(warnings(&mut watch, &[true; 10], 1.9), []);
        // An unreadable load says nothing either.
        assert_eq!(watch.game(true, || None), None);
        // Once the load rises during the same rise of forfeits, it is named.
        assert_eq!(
            watch.game(true, || Some(2.5)).unwrap(),
            "warning: 12 losses on time in the last 12 games while the load average is 2.5 on 2 \
             cores: the machine is overloaded, not necessarily the engine"
        );
        // The load is read only when the forfeits call for it.
        let mut fresh = OverloadWatch::new(2);
        assert_eq!(fresh.game(false, || panic!("read for no forfeit")), None);
        assert_eq!(fresh.game(true, || panic!("read for one forfeit")), None);
    }
}
