//! The book analysis on made-up games with known outcomes per opening.

use super::*;
use crate::records::GameResult::{BlackWins, WhiteWins};
use crate::records::Termination::GoalRank;
use crate::records::tests::record;
use crate::stats::assert_close;

/// Four openings: 1 and 3 with White to move, 2 and 4 with Black to move.
fn book() -> Vec<(u64, Position)> {
    [
        "startpos",
        "pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b",
        "pppppppp/1ppppppp/p7/8/8/P7/1PPPPPPP/PPPPPPPP w",
        "pppppppp/pppppppp/8/8/8/1P6/P1PPPPPP/PPPPPPPP b",
    ]
    .iter()
    .zip(1..)
    .map(|(fen, id)| (id, fen.parse().unwrap()))
    .collect()
}

/// The games of `a` against `b`: for each pair, its opening (book number) and who won the
/// game in which `a` had White, then the game in which `b` had White.
fn games(pairs: &[(u64, bool, bool)]) -> Vec<GameRecord> {
    let book = book();
    let mut games = Vec::new();
    for (k, &(opening, a_won_white, a_won_black)) in (1..).zip(pairs) {
        let position = book.iter().find(|(id, _)| *id == opening).unwrap().1;
        let mut first = record(2 * k - 1, k, "a", "b", WhiteWins, GoalRank);
        first.result = if a_won_white { WhiteWins } else { BlackWins };
        let mut second = record(2 * k, k, "b", "a", WhiteWins, GoalRank);
        second.result = if a_won_black { BlackWins } else { WhiteWins };
        for game in [&mut first, &mut second] {
            game.opening = position.to_string();
            game.opening_id = opening;
        }
        games.extend([first, second]);
    }
    games
}

/// Opening 1: four pairs, each won by White twice (1–1): the colour decided every one.
/// Opening 2 (Black to move): a won twice, twice; then a pair Black won twice. Opening 3
/// (White to move): a lost twice (each colour won once), and a lone game White won. Opening
/// 4: not played.
fn made_up() -> Vec<GameRecord> {
    let mut games = games(&[
        (1, true, false),
        (1, true, false),
        (2, true, true),
        (1, true, false),
        (2, false, true),
        (3, false, false),
        (2, true, true),
        (1, true, false),
    ]);
    let mut lone = record(17, 9, "a", "b", WhiteWins, GoalRank);
    lone.opening = book()[2].1.to_string();
    lone.opening_id = 3;
    games.push(lone);
    // A game from a position that is not in the book.
    let mut stray = record(18, 10, "b", "a", BlackWins, GoalRank);
    stray.opening = "pppppppp/pppppppp/8/8/8/7P/PPPPPPP1/PPPPPPPP b".into();
    games.push(stray);
    games
}

fn report_of(games: &[GameRecord]) -> OpeningsReport {
    let mut tally = OpeningsTally::for_book(&["a".into(), "b".into()], &book());
    for game in games {
        tally.add(game);
    }
    tally.end_file();
    tally.finish()
}

#[test]
fn the_exact_table_rms_bias_and_prune_list() {
    let report = report_of(&made_up());
    type Row = (u64, u64, u64, u64, [u64; 3], Option<bool>);
    let rows: Vec<Row> = report
        .openings
        .iter()
        .map(|o| {
            let cells = [o.ll, o.one_one, o.ww];
            (
                o.id,
                o.games,
                o.pairs,
                o.first_player_wins,
                cells,
                o.colour_decided,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            // White won all 8 games: p = 2 / 2^8.
            (1, 8, 4, 8, [0, 4, 0], Some(true)),
            // Black to move: it won 1 + 1 + 2 of 6 games.
            (2, 6, 3, 4, [0, 1, 2], Some(false)),
            // White won a game of the pair and the lone one.
            (3, 3, 1, 2, [1, 0, 0], Some(false)),
            (4, 0, 0, 0, [0, 0, 0], None),
        ]
    );
    let p: Vec<f64> = report.openings.iter().map(|o| o.p_value).collect();
    assert_close(p[0], 2.0 / 256.0, 1e-12);
    // 4 of 6: twice P(X >= 4) = 2 (15 + 6 + 1) / 64.
    assert_close(p[1], 44.0 / 64.0, 1e-12);
    assert_eq!((p[2], p[3]), (1.0, 1.0));
    assert_eq!(report.prune, [1]);
    assert_eq!(
        (
            report.played,
            report.games,
            report.pairs,
            report.one_one_pairs
        ),
        (3, 17, 8, 5)
    );
    assert_eq!(report.not_in_book, 1);
    assert_eq!(report.one_one_share, Some(5.0 / 8.0));
    // fishtest's RMS bias of the pairs [1, 0, 5, 0, 2] and their games [7, 0, 9]; without
    // draws q / 2 - s (1 - s) = 5/16 - (9/16)(7/16), to the regularization.
    let rms = report.rms_bias.unwrap();
    assert_close(rms * rms, 5.0 / 16.0 - 63.0 / 256.0, 1e-4);
    // fishtest's figures for these counts: its stats page's `var3 - var5_per_game`, `rms_bias`
    // and `rms_bias_elo` (fishtest at commit b8eecff2, run with Python).
    assert_close(rms * rms, 0.066_402_830_521_060_83, 1e-15);
    assert_close(rms, 0.257_687_466_751_995_6, 1e-15);
    assert_close(report.rms_bias_elo.unwrap(), 198.045_690_203_111_75, 1e-9);
    assert_eq!(
        report.to_string(),
        format!(
            "Openings: 3 played, 17 games, 8 pairs; 1-1 (colour decided) 5 of 8 pairs (62.5%); \
             RMS bias {rms:.3} (+{:.1} Elo); prune 1 (first player's score away from 1/2, \
             p <= 0.05)\n\
             1 game from positions not in the book, not counted\n\
             \x20   id  games pairs first  score    LL   1-1    WW decided        p  opening\n\
             \x20    1      8     4 White 100.0%     0     4     0     yes   0.0078  \
             pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w  prune\n\
             \x20    2      6     3 Black  66.7%     0     1     2      no   0.6875  \
             pppppppp/pppppppp/8/8/8/P7/1PPPPPPP/PPPPPPPP b\n\
             \x20    3      3     1 White  66.7%     1     0     0      no   1.0000  \
             pppppppp/1ppppppp/p7/8/8/P7/1PPPPPPP/PPPPPPPP w\n\
             \x20    4      0     0 Black      -     0     0     0       -   1.0000  \
             pppppppp/pppppppp/8/8/8/1P6/P1PPPPPP/PPPPPPPP b\n",
            report.rms_bias_elo.unwrap()
        )
    );
}

/// Without a book the rows are the openings played, numbered as the games say; a game of an
/// engine against itself counts in its opening's games, in no pair.
#[test]
fn without_a_book_the_openings_played() {
    let mut games = made_up();
    games.pop();
    let mut own = record(19, 11, "a", "a", WhiteWins, GoalRank);
    own.opening = games[0].opening.clone();
    games.push(own);
    let mut tally = OpeningsTally::new(&["a".into(), "b".into()]);
    for game in &games {
        tally.add(game);
    }
    let report = tally.finish();
    let ids: Vec<(u64, u64, u64)> = report
        .openings
        .iter()
        .map(|o| (o.id, o.games, o.pairs))
        .collect();
    assert_eq!(ids, [(1, 9, 4), (2, 6, 3), (3, 3, 1)]);
    assert_eq!(report.not_in_book, 0);
}

/// Pairs are matched within a file: a pair number repeated in the next file is another pair.
#[test]
fn pairs_do_not_join_across_files() {
    let games = games(&[(1, true, false)]);
    let mut tally = OpeningsTally::for_book(&[], &book());
    tally.add(&games[0]);
    tally.end_file();
    tally.add(&games[1]);
    let report = tally.finish();
    assert_eq!((report.games, report.pairs), (2, 0));
    assert_eq!(report.rms_bias, None);
    assert_eq!(report.one_one_share, None);
    assert!(
        report
            .book_line()
            .ends_with("2 games, 0 pairs; prune 0 (first player's score away from 1/2, p <= 0.05)"),
        "{}",
        report.book_line()
    );
}

#[test]
fn binomial_p_values() {
    assert_eq!(binomial_p_value(0, 0), 1.0);
    assert_eq!(binomial_p_value(1, 2), 1.0);
    assert_close(binomial_p_value(0, 6), 2.0 / 64.0, 1e-12);
    assert_close(binomial_p_value(6, 6), 2.0 / 64.0, 1e-12);
    assert_close(binomial_p_value(2, 10), 2.0 * 56.0 / 1024.0, 1e-12);
    // Five of five is not enough at 5%; six of six is.
    assert!(binomial_p_value(5, 5) > PRUNE_LEVEL && binomial_p_value(6, 6) <= PRUNE_LEVEL);
}

/// Two runs whose engines have the same names but not the same strength: the RMS bias is
/// pooled over each run's own pairs, not over the mixture (which would read the difference
/// of strengths as the absence of bias).
#[test]
fn the_rms_bias_is_pooled_over_each_files_engines() {
    // File 1: a won twice in three pairs, one 1-1; file 2: the same, b winning.
    let first = games(&[
        (1, true, true),
        (2, true, true),
        (3, true, true),
        (4, true, false),
    ]);
    let second = games(&[
        (1, false, false),
        (2, false, false),
        (3, false, false),
        (4, true, false),
    ]);
    let mut tally = OpeningsTally::for_book(&["a".into(), "b".into()], &book());
    for (file, games) in [first, second].iter().enumerate() {
        for game in games {
            let mut game = game.clone();
            game.pair += 10 * file as u64;
            tally.add(&game);
        }
        tally.end_file();
    }
    let report = tally.finish();
    let each = rms_bias_squared(&[0, 0, 1, 0, 3].into()).unwrap();
    let mirrored = rms_bias_squared(&[3, 0, 1, 0, 0].into()).unwrap();
    assert_close(each, mirrored, 1e-12);
    assert_close(report.rms_bias.unwrap(), each.sqrt(), 1e-12);
    assert!(rms_bias_squared(&[3, 0, 2, 0, 3].into()).unwrap() < 0.0);
}
