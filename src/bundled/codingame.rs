//! The bundled CodinGame bot: bt-search's searcher behind CodinGame's bot protocol
//! (`bt-search codingame`), so that tests and the demo need no outside bot.
//!
//! For users (`docs/guide/codingame.md`, "The bundled bot"): it reads turns as any CodinGame
//! "Breakthrough" bot does ([`crate::protocol::codingame`]), keeps the board from the moves it
//! is told and the ones it plays, and answers each turn with its move and a message
//! (`d7 +0.35`: the depth reached and its score, from its own point of view; `d7 W5`: a win in
//! 5 plies). It writes one line per turn to stderr (nodes and time), as bots do for debugging.
//!
//! - **Time.** It spends `share` percent of the turn's limit (`first_ms` on its first turn,
//!   then `turn_ms`: CodinGame's 1000 and 100 ms by default), counted from the moment it has
//!   read the turn, less the searcher's own overhead; or it searches to a fixed depth.
//! - **Rules.** CodinGame's are classic. It reads the rule set from the lists it is given:
//!   a list that holds a diagonal step to an empty square is classic, one that equals the
//!   capture-only moves of its board and differs from the classic ones is capture-only; a list
//!   that tells neither keeps what it knew (classic at first).
//! - **Safety.** A list of one move is answered with that move at once. Its searched move is
//!   played only when the list holds it; otherwise the list's first move is (a board out of
//!   step with the game's: a bug, which its stderr line then says).

use super::search::{EvalWeights, Limits, SearchScore, Searcher};
use crate::protocol::codingame::{Answer, NO_LAST_MOVE};
use crate::rules::{Move, Position, Rules};
use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// How the bundled bot plays.
#[derive(Clone, Debug, PartialEq)]
pub struct BotSettings {
    /// The limit of its first turn, ms.
    pub first_ms: u64,
    /// The limit of each later turn, ms.
    pub turn_ms: u64,
    /// The percentage of a turn's limit it searches for.
    pub share: u64,
    /// Search to this depth instead of by time.
    pub depth: Option<u32>,
    /// The transposition table, MiB.
    pub hash_mb: usize,
    /// The evaluation's weights.
    pub weights: EvalWeights,
    /// Print the depth and score after each move.
    pub message: bool,
}

impl Default for BotSettings {
    fn default() -> Self {
        BotSettings {
            first_ms: crate::time_control::CODINGAME_FIRST_MS,
            turn_ms: crate::time_control::CODINGAME_TURN_MS,
            share: 60,
            depth: None,
            hash_mb: 16,
            weights: EvalWeights::DEFAULT,
            message: true,
        }
    }
}

/// Plays one game: reads turns from `input` and answers each on `output` (flushed), with a line
/// per turn on `log`, until the input ends.
///
/// # Errors
/// An input or output error, or a turn that does not read (a bad last move or count, or fewer
/// moves than the count): the bot's protocol is broken.
pub fn play(
    settings: &BotSettings,
    input: impl BufRead,
    mut output: impl Write,
    mut log: impl Write,
) -> io::Result<()> {
    let mut searcher = Searcher::new(settings.hash_mb);
    searcher.set_eval_weights(settings.weights);
    let mut position = Position::startpos();
    let mut rules = Rules::Classic;
    let mut lines = input.lines();
    let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    for turn in 1u32.. {
        let Some(last) = lines.next().transpose()? else {
            return Ok(());
        };
        let read = Instant::now();
        if last.trim() != NO_LAST_MOVE {
            let mv: Move = last
                .trim()
                .parse()
                .map_err(|e| bad(format!("turn {turn}: bad last move '{last}': {e}")))?;
            position = position.play_unchecked(mv);
        }
        let count_line = lines.next().transpose()?.unwrap_or_default();
        let count: usize = count_line
            .trim()
            .parse()
            .map_err(|_| bad(format!("turn {turn}: bad count '{count_line}'")))?;
        let mut list = Vec::with_capacity(count);
        for _ in 0..count {
            let line = lines
                .next()
                .transpose()?
                .ok_or_else(|| bad(format!("turn {turn}: fewer moves than {count}")))?;
            let mv: Move = line
                .trim()
                .parse()
                .map_err(|e| bad(format!("turn {turn}: bad move '{line}': {e}")))?;
            list.push(mv);
        }
        rules = rules_of(&position, &list).unwrap_or(rules);
        let (mv, message, note) = choose(settings, &mut searcher, &position, rules, &list, turn);
        let answer = Answer {
            mv: mv.map_or_else(String::new, |mv| mv.to_string()),
            message: message.filter(|_| settings.message),
        };
        match &answer.message {
            Some(message) => writeln!(output, "{} {message}", answer.mv)?,
            None => writeln!(output, "{}", answer.mv)?,
        }
        output.flush()?;
        let _ = writeln!(
            log,
            "bt-search codingame: turn {turn}: {note} in {} ms",
            read.elapsed().as_millis()
        );
        if let Some(mv) = mv {
            position = position.play_unchecked(mv);
        }
    }
    Ok(())
}

/// The move for `position` from `list`, the message, and the stderr note.
fn choose(
    settings: &BotSettings,
    searcher: &mut Searcher,
    position: &Position,
    rules: Rules,
    list: &[Move],
    turn: u32,
) -> (Option<Move>, Option<String>, String) {
    if let [only] = list {
        return (Some(*only), None, "the only move".to_string());
    }
    let limit = match turn {
        1 => settings.first_ms,
        _ => settings.turn_ms,
    };
    let limits = match settings.depth {
        Some(depth) => Limits {
            depth: Some(depth),
            ..Limits::default()
        },
        None => Limits {
            movetime_ms: Some((limit * settings.share / 100).max(1)),
            ..Limits::default()
        },
    };
    let result = searcher.search(
        position,
        rules,
        &limits,
        &AtomicBool::new(false),
        &mut |_| {},
    );
    let message = format!("d{} {}", result.depth, score_text(result.score));
    let note = format!("{rules} rules, {} nodes", result.nodes);
    match result.best.filter(|mv| list.contains(mv)) {
        Some(best) => (Some(best), Some(message), note),
        None => (
            list.first().copied(),
            None,
            format!("{note}; its move is not in the list: the list's first played"),
        ),
    }
}

/// `+0.35`, `-1.20`, `W5` (a win in 5 plies), `L4` (a loss in 4).
fn score_text(score: SearchScore) -> String {
    match score {
        SearchScore::Cp(cp) => {
            let sign = if cp > 0 { "+" } else { "" };
            format!("{sign}{:.2}", f64::from(cp) / 100.0)
        }
        SearchScore::Win(plies) => format!("W{plies}"),
        SearchScore::Loss(plies) => format!("L{plies}"),
    }
}

/// The rule set `list` tells for `position`: classic when it holds a diagonal step to an empty
/// square, capture-only when it is the capture-only moves and not the classic ones; `None`
/// when it tells neither.
pub fn rules_of(position: &Position, list: &[Move]) -> Option<Rules> {
    let quiet_diagonal = |mv: &Move| mv.from.file() != mv.to.file() && !position.is_capture(*mv);
    if list.iter().any(quiet_diagonal) {
        return Some(Rules::Classic);
    }
    let same = |rules: Rules| {
        let legal = position.legal_moves(rules);
        legal.len() == list.len() && list.iter().all(|&mv| legal.contains(mv))
    };
    (same(Rules::CaptureOnly) && !same(Rules::Classic)).then_some(Rules::CaptureOnly)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::codingame::{MoveOrder, Turn};

    fn turn_text(position: &Position, last: Option<&str>, rules: Rules) -> String {
        Turn {
            last: last.map(|mv| mv.parse().unwrap()),
            moves: MoveOrder::CodinGame.moves(position, rules),
        }
        .text()
    }

    #[test]
    fn it_answers_each_turn_from_the_list_and_keeps_the_board() {
        let settings = BotSettings {
            depth: Some(2),
            ..BotSettings::default()
        };
        let start = Position::startpos();
        let after = start.play(Rules::Classic, "d2d3".parse().unwrap()).unwrap();
        // As Black: White's d2d3, then a turn that does not follow (input ends).
        let input = turn_text(&after, Some("d2d3"), Rules::Classic);
        let (mut out, mut log) = (Vec::new(), Vec::new());
        play(&settings, input.as_bytes(), &mut out, &mut log).unwrap();
        let out = String::from_utf8(out).unwrap();
        let answer = Answer::parse(out.lines().next().unwrap()).unwrap();
        let mv: Move = answer.mv.parse().unwrap();
        assert!(after.legal_moves(Rules::Classic).contains(mv), "{out}");
        assert!(answer.message.unwrap().starts_with("d2 "), "{out}");
        let log = String::from_utf8(log).unwrap();
        assert!(
            log.starts_with("bt-search codingame: turn 1: classic rules, "),
            "{log}"
        );
    }

    #[test]
    fn a_list_of_one_move_is_answered_with_it_and_bad_input_is_an_error() {
        let input = "None\n1\nh2h3\n";
        let mut out = Vec::new();
        play(
            &BotSettings::default(),
            input.as_bytes(),
            &mut out,
            io::sink(),
        )
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "h2h3\n");
        let err = play(
            &BotSettings::default(),
            "None\nx\n".as_bytes(),
            io::sink(),
            io::sink(),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "turn 1: bad count 'x'");
        let err = play(
            &BotSettings::default(),
            "None\n2\na2a3\n".as_bytes(),
            io::sink(),
            io::sink(),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "turn 1: fewer moves than 2");
    }

    #[test]
    fn the_rule_set_is_read_from_the_list() {
        let start = Position::startpos();
        let classic = MoveOrder::CodinGame.moves(&start, Rules::Classic);
        let capture_only = MoveOrder::CodinGame.moves(&start, Rules::CaptureOnly);
        assert_eq!(rules_of(&start, &classic), Some(Rules::Classic));
        assert_eq!(rules_of(&start, &capture_only), Some(Rules::CaptureOnly));
        assert_eq!(rules_of(&start, &capture_only[..1]), None);
    }
}
