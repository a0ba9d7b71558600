//! The schedule: every game of a tournament, in order, fixed by the config and its seed.
//!
//! Each round plays `games` games for every pairing (round-robin: every two engines; gauntlet:
//! the first engine against each other one). Games come in pairs: both games of a pair start
//! from the same opening with colours swapped. The schedule depends only on the config, so a
//! resumed run rebuilds it and skips the games already recorded.

use super::config::TournamentConfig;
pub use crate::openings::spec::opening_sequence;
use crate::records::GameRecord;
use crate::run::settings::Plan;
use std::collections::{HashMap, HashSet};

pub use crate::arena::ScheduledGame;

pub use crate::run::settings::pairings;

/// Every game of the tournament in `config`, with a book of `book_len` openings (1 for the
/// start position alone): the games of its [`Plan`], each pair with its opening.
pub fn schedule(config: &TournamentConfig, book_len: usize) -> Vec<ScheduledGame> {
    let openings = opening_sequence(config.openings.order, book_len.max(1), config.seed);
    let plan = Plan::new(
        config.format,
        config.engines.len(),
        config.rounds,
        config.games,
    );
    (1..=plan.len())
        .filter_map(|game_id| plan.game(game_id))
        .map(|game| ScheduledGame {
            game_id: game.game_id,
            round: game.round,
            pair: game.pair,
            white: game.white,
            black: game.black,
            opening: openings
                [usize::try_from(game.pair - 1).unwrap_or(usize::MAX) % openings.len()],
        })
        .collect()
}

/// The games `config` plays: its shard's pairs of the [`schedule`] (the pairs `p` with
/// `(p - 1) mod N = K` for shard `K/N`), or the whole schedule without a shard.
pub fn shard_games(config: &TournamentConfig, book_len: usize) -> Vec<ScheduledGame> {
    let mut games = schedule(config, book_len);
    if let Some(shard) = config.shard {
        games.retain(|game| shard.plays_pair(game.pair));
    }
    games
}

/// The ids of recorded `games`, checked against `scheduled` (the games `config` plays).
///
/// # Errors
/// The first game at fault, with why: its id is not in `scheduled`, it was played by other
/// engines than scheduled, or it is recorded twice. Games of another run or shard, or
/// repeated, must not be counted.
pub fn recorded_ids(
    config: &TournamentConfig,
    scheduled: &[ScheduledGame],
    games: &[GameRecord],
) -> Result<HashSet<u64>, (u64, String)> {
    let slots: HashMap<u64, &ScheduledGame> = scheduled.iter().map(|s| (s.game_id, s)).collect();
    let mut done = HashSet::new();
    for game in games {
        let bad = |why: String| (game.game_id, why);
        let Some(slot) = slots.get(&game.game_id) else {
            return Err(bad(match config.shard {
                Some(shard) => format!("not in shard {shard}'s part of the schedule"),
                None => "not in this tournament's schedule".to_string(),
            }));
        };
        let expected = (
            &config.engines[slot.white].name,
            &config.engines[slot.black].name,
        );
        if (&game.white, &game.black) != expected {
            return Err(bad(format!(
                "played by {} vs {}, scheduled as {} vs {}",
                game.white, game.black, expected.0, expected.1
            )));
        }
        if !done.insert(game.game_id) {
            return Err(bad("recorded twice".to_string()));
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKeys;
    use crate::game::TimeControl;
    use crate::tournament::Format;
    use crate::tournament::config::{OpeningOrder, OpeningsSpec};
    use std::path::PathBuf;

    fn config(engines: usize, format: Format, rounds: u32, games: u32) -> TournamentConfig {
        TournamentConfig {
            run: RunHeader {
                event: "t".into(),
                rules: Default::default(),
                openings: OpeningsSpec::default(),
                concurrency: 1,
                seed: 1,
                out: PathBuf::new(),
                shard: None,
                worker: None,
                lease_ms: None,
                log: false,
                build_cache: None,
                run_id: None,
                adjudication: Default::default(),
            },
            engines: (0..engines)
                .map(|i| {
                    EngineKeys::parse(&["cmd=x", &format!("name=e{i}")])
                        .unwrap()
                        .into_description(TimeControl::Depth(1))
                        .unwrap()
                })
                .collect(),
            format,
            rounds,
            games,
            sprt: None,
            pgn_comments: Default::default(),
            scale_tc: None,
            anchor: None,
            unknown: Default::default(),
        }
    }

    #[test]
    fn round_robin_and_gauntlet_pairings() {
        assert_eq!(
            pairings(Format::RoundRobin, 3),
            vec![(0, 1), (0, 2), (1, 2)]
        );
        assert_eq!(pairings(Format::Gauntlet, 4), vec![(0, 1), (0, 2), (0, 3)]);
    }

    #[test]
    fn pairs_share_an_opening_and_swap_colours() {
        let games = schedule(&config(3, Format::RoundRobin, 2, 2), 10);
        assert_eq!(games.len(), 12);
        for pair in games.chunks(2) {
            assert_eq!(pair[0].pair, pair[1].pair);
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!(
                (pair[0].white, pair[0].black),
                (pair[1].black, pair[1].white)
            );
        }
        let ids: Vec<u64> = games.iter().map(|g| g.game_id).collect();
        assert_eq!(ids, (1..=12).collect::<Vec<_>>());
        assert_eq!(games[6].round, 2);
        let openings: Vec<usize> = games.iter().step_by(2).map(|g| g.opening).collect();
        assert_eq!(openings, [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn random_order_is_a_seeded_permutation() {
        let mut random = config(2, Format::Gauntlet, 5, 2);
        random.openings.order = OpeningOrder::Random;
        let first = schedule(&random, 5);
        assert_eq!(first, schedule(&random, 5));
        let mut used: Vec<usize> = first.iter().step_by(2).map(|g| g.opening).collect();
        assert_ne!(used, [0, 1, 2, 3, 4]);
        used.sort();
        assert_eq!(used, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn an_odd_number_of_games_leaves_a_half_pair_whose_colours_alternate() {
        let games = schedule(&config(2, Format::RoundRobin, 1, 3), 1);
        let pairs: Vec<u64> = games.iter().map(|g| g.pair).collect();
        assert_eq!(pairs, [1, 1, 2]);
        let single = schedule(&config(2, Format::RoundRobin, 4, 1), 1);
        let whites: Vec<usize> = single.iter().map(|g| g.white).collect();
        assert_eq!(whites, [0, 1, 0, 1]);
    }
}
