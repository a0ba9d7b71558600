//! The runner's side of CodinGame's bot protocol (`proto=codingame`): an [`Engine`] whose
//! process is a CodinGame bot, driven by the same calls as a UGI/UCI engine ([`Engine::start`],
//! [`Engine::new_game`], [`Engine::go`], [`Engine::take_stray`], [`Engine::quit`]), so that a
//! bot plays in every command that plays games. The lines are in
//! [`crate::protocol::codingame`].
//!
//! For users (`docs/guide/codingame.md`):
//!
//! - **A process per game.** A bot lives for one game, as on CodinGame: a game gets a fresh
//!   process (the one started ahead, if it has had no turn), whatever `restart=` says. A bot
//!   has no handshake: it is spawned, and its first turn is its first input. Ending it closes
//!   its input and kills its process group at once (there is nothing left to say).
//! - **A turn** is the opponent's last move (`None` on White's first turn), the number of legal
//!   moves under the rules in force and the moves in the engine's `moveorder=`, in one write;
//!   the bot answers one line, its move and an optional message. The time charged is from the
//!   last byte of the turn's input to the end of the answer line, as CodinGame measures it
//!   ([`SearchReply::turn_time`](super::SearchReply::turn_time)).
//! - **Games from an opening.** A bot knows a game only as moves from the start position. A
//!   game that starts from another position (an opening book's) reaches the bot as moves that
//!   lead there ([`crate::rules::path`]): its own moves among them as turns whose list holds that
//!   move alone ("forced turns"), the opponent's as the last move of its next turn. Forced
//!   turns are not on the clock; each must be answered, with its one move, within the
//!   handshake timeout (`handshake=`, 10 s).
//! - **Stray lines.** Lines the bot writes after its move are read before its next turn is
//!   written (and at the end of the game): counted as stray ([`Engine::take_stray`]), never
//!   played. A line that comes only once the next turn is written is that turn's answer, as on
//!   CodinGame.
//! - **Faults**, named as for any engine: no answer within the turn's time
//!   ([`EngineError::TurnTimeout`]), an exit ([`EngineError::Crashed`]), an empty line
//!   ([`EngineError::Garbage`]); a move not in the list loses as an illegal move when the
//!   runner judges it.
//! - **No options**: a bot's arguments may hold placeholders ([`arguments`]), which stand for
//!   options (`option.NAME=VALUE`, a tune's parameters). [`Engine::options`] declares each as
//!   a string option.

pub mod arguments;

use super::process::Process;
use super::{DescriptionError, Engine, EngineError, EngineLaunch, SearchReply};
use crate::protocol::Info;
use crate::protocol::codingame::{Answer, MoveOrder, Turn};
use crate::protocol::{OptionDecl, OptionKind};
use crate::rules::{Color, Move, Position, Rules};
use crate::time_control::TimeControl;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Checks the keys of a bot's description: no depth or node `limit` (a bot is told no limit),
/// no `bench` (it has none), and `options` only for the placeholders of its `args`.
///
/// # Errors
/// [`DescriptionError::BotLimit`], [`DescriptionError::BotBench`] or
/// [`DescriptionError::BotOption`]: the refusal, naming the key.
pub(super) fn check_keys(
    limit: Option<TimeControl>,
    bench: Option<u64>,
    args: &[String],
    options: &super::EngineOptions,
) -> Result<(), DescriptionError> {
    if let Some(limit @ (TimeControl::Depth(_) | TimeControl::Nodes(_))) = limit {
        return Err(DescriptionError::BotLimit { limit });
    }
    if bench.is_some() {
        return Err(DescriptionError::BotBench);
    }
    let placeholders = arguments::placeholders(args);
    match options
        .pairs()
        .iter()
        .find(|(name, _)| !placeholders.iter().any(|p| p.eq_ignore_ascii_case(name)))
    {
        Some((name, value)) => Err(DescriptionError::BotOption {
            name: name.clone(),
            value: value.clone(),
        }),
        None => Ok(()),
    }
}

/// What the runner knows of a bot besides its process.
#[derive(Debug)]
pub(crate) struct Bot {
    /// How its processes are launched; the arguments with their placeholders.
    launch: EngineLaunch,
    /// The rule set whose legal moves it is given.
    rules: Rules,
    /// The order of the legal moves of a turn.
    order: MoveOrder,
    /// The value of each placeholder: the configured options, then those set since.
    values: Vec<(String, String)>,
    /// The values the running process was started with.
    process_values: Vec<(String, String)>,
    /// The game as the running process knows it: the moves from the start position it was
    /// told, and its own answers.
    told: Vec<Move>,
    /// The side the running process plays, once it has had a turn.
    color: Option<Color>,
    /// The turns the running process has answered (forced ones included).
    turns: u32,
    /// The moves that lead to each start position met, found once.
    paths: HashMap<Position, Vec<Move>>,
}

impl Engine {
    /// [`Engine::start`] for a bot: checks the configured options against the placeholders of
    /// its arguments and spawns the process of its first game (no handshake). Under rules
    /// other than classic, warns once that the bot was written for classic rules.
    ///
    /// # Errors
    /// [`EngineError::UnknownOption`] for an option that is no placeholder,
    /// [`EngineError::BadOptionValue`] for a placeholder without a value, or as
    /// [`Process::spawn`].
    pub(super) fn start_bot(launch: &EngineLaunch, rules: Rules) -> Result<Engine, EngineError> {
        let names = arguments::placeholders(&launch.args);
        if let Some((option, _)) = launch
            .options
            .iter()
            .find(|(given, _)| !names.iter().any(|name| name.eq_ignore_ascii_case(given)))
        {
            return Err(EngineError::UnknownOption {
                engine: launch.name.clone(),
                option: option.clone(),
            });
        }
        let bot = Bot {
            launch: launch.clone(),
            rules,
            order: launch.move_order,
            values: launch.options.clone(),
            process_values: launch.options.clone(),
            told: Vec::new(),
            color: None,
            turns: 0,
            paths: HashMap::new(),
        };
        let mut engine = Engine::spawn_silent(&bot.launch_now()?)?;
        engine.options = names
            .iter()
            .map(|name| OptionDecl {
                name: name.clone(),
                kind: OptionKind::String {
                    default: bot.value(name).unwrap_or_default().to_string(),
                },
            })
            .collect();
        engine.started = true;
        engine.bot = Some(Box::new(bot));
        if rules != Rules::Classic {
            engine.warn(format!(
                "engine '{}': a CodinGame bot is written for CodinGame's classic rules; under \
                 {rules} rules it is given only the moves they allow (a diagonal step must \
                 capture)",
                launch.name
            ));
        }
        Ok(engine)
    }

    /// [`Engine::new_game`] and [`Engine::is_ready`] for a bot: a new game gets a fresh
    /// process unless the running one has had no turn and has the values set since.
    pub(super) fn bot_ready(&mut self, new_game: bool) -> Result<(), EngineError> {
        match &self.bot {
            Some(bot) if new_game && (bot.turns > 0 || bot.process_values != bot.values) => {
                self.respawn()
            }
            _ => Ok(()),
        }
    }

    /// [`Engine::set_options`] for a bot: keeps the values of its placeholders, for its next
    /// process.
    ///
    /// # Errors
    /// [`EngineError::UnknownOption`] for a name that is no placeholder.
    pub(super) fn bot_set_options(
        &mut self,
        options: &[(String, String)],
    ) -> Result<(), EngineError> {
        for (name, value) in options {
            if !self.options.iter().any(|decl| decl.is_named(name)) {
                return Err(EngineError::UnknownOption {
                    engine: self.name.clone(),
                    option: name.clone(),
                });
            }
            if let Some(bot) = self.bot.as_mut() {
                bot.values
                    .retain(|(given, _)| !given.eq_ignore_ascii_case(name));
                bot.values.push((name.clone(), value.clone()));
            }
        }
        Ok(())
    }

    /// [`Engine::go`] for a bot: its turn in the position after `moves` from `start`, within
    /// `allowed` from the last byte of the turn's input. The running process goes on when it
    /// knows the game so far and plays the side to move; otherwise a fresh one is told the game
    /// by forced turns first (see the module documentation).
    ///
    /// # Errors
    /// [`EngineError::TurnTimeout`], [`EngineError::Crashed`], [`EngineError::Garbage`] (an
    /// empty line; a forced turn answered with another move), [`EngineError::LineTooLong`],
    /// [`EngineError::Unsupported`] for a start position no game reaches, or as
    /// [`Process::spawn`].
    pub(super) fn bot_go(
        &mut self,
        start: &Position,
        moves: &[Move],
        allowed: Duration,
    ) -> Result<SearchReply, EngineError> {
        let mut path = self.path_to(start)?;
        path.extend_from_slice(moves);
        let color = match path.len() % 2 {
            0 => Color::White,
            _ => Color::Black,
        };
        let goes_on = self.bot.as_ref().is_some_and(|bot| {
            bot.process_values == bot.values
                && (bot.turns == 0 || bot.color == Some(color))
                && path.starts_with(&bot.told)
        });
        if !goes_on {
            self.respawn()?;
        }
        let told = self.bot.as_ref().map_or(0, |bot| bot.told.len());
        let forced = self.timeouts.handshake;
        for ply in (told..path.len()).filter(|ply| ply % 2 == path.len() % 2) {
            let turn = Turn {
                last: ply.checked_sub(1).map(|last| path[last]),
                moves: vec![path[ply]],
            };
            let (answer, _) = self.turn(&turn, forced)?;
            if answer.mv != path[ply].to_string() {
                return Err(EngineError::Garbage {
                    engine: self.name.clone(),
                    line: answer.mv,
                    problem: format!(
                        "not {}, the only move of that turn (a move of the game's opening, \
                         told as a turn of one move)",
                        path[ply]
                    ),
                });
            }
        }
        let position = moves
            .iter()
            .fold(*start, |position, &mv| position.play_unchecked(mv));
        let (rules, order) = self
            .bot
            .as_ref()
            .map_or((Rules::Classic, MoveOrder::CodinGame), |bot| {
                (bot.rules, bot.order)
            });
        let turn = Turn {
            last: path.last().copied(),
            moves: order.moves(&position, rules),
        };
        let (answer, took) = self.turn(&turn, allowed)?;
        if let Some(bot) = self.bot.as_mut() {
            bot.color = Some(color);
            bot.told = path;
            bot.told.extend(answer.mv.parse::<Move>().ok());
        }
        Ok(SearchReply {
            bestmove: answer.mv,
            ponder: None,
            info: Info::default(),
            lines: Vec::new(),
            elapsed: took,
            message: answer.message,
            turn_time: Some(took),
        })
    }

    /// [`Engine::take_stray`] for a bot: first reads what it wrote since its last answer.
    pub(super) fn bot_drain(&mut self) {
        let _ = self.read_stray();
    }

    /// Writes `turn` in one write and reads the answer line, which must end within `allowed`
    /// of the input's last byte; lines already written before are read first, as stray.
    /// Returns the answer and the time it took.
    fn turn(&mut self, turn: &Turn, allowed: Duration) -> Result<(Answer, Duration), EngineError> {
        self.read_stray()?;
        let number = self.bot.as_ref().map_or(1, |bot| bot.turns + 1);
        let timeout = |engine| EngineError::TurnTimeout {
            engine,
            turn: number,
            after: allowed,
        };
        let lines = turn.lines();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        self.write_lines(&lines, Instant::now() + allowed, timeout)?;
        let sent = Instant::now();
        let mut line = std::mem::take(&mut self.line);
        let read = self.next_line_into(sent + allowed, &mut line);
        let answer = match read {
            Ok(Some(at)) => match Answer::parse(&line) {
                Some(answer) => Ok((answer, at.saturating_duration_since(sent))),
                None => Err(EngineError::Garbage {
                    engine: self.name.clone(),
                    line: line.clone(),
                    problem: "an empty line: no move".to_string(),
                }),
            },
            Ok(None) => Err(timeout(self.name.clone())),
            Err(error) => Err(error),
        };
        self.line = line;
        if let Some(bot) = self.bot.as_mut() {
            bot.turns = number;
        }
        answer
    }

    /// Counts as stray every line the bot has written and the runner not read yet.
    fn read_stray(&mut self) -> Result<(), EngineError> {
        let mut line = std::mem::take(&mut self.line);
        let result = loop {
            match self.next_line_into(Instant::now(), &mut line) {
                Ok(Some(_)) => self.stray.note(&line),
                Ok(None) => break Ok(()),
                Err(error) => break Err(error),
            }
        };
        self.line = line;
        result
    }

    /// The moves from the start position to `start` (none for the start itself), found once.
    fn path_to(&mut self, start: &Position) -> Result<Vec<Move>, EngineError> {
        if *start == Position::startpos() {
            return Ok(Vec::new());
        }
        let name = self.name.clone();
        let Some(bot) = self.bot.as_mut() else {
            return Ok(Vec::new());
        };
        if let Some(path) = bot.paths.get(start) {
            return Ok(path.clone());
        }
        let path = crate::rules::path::from_start(start, bot.rules).ok_or_else(|| {
            EngineError::Unsupported {
                engine: name,
                what: format!(
                    "a CodinGame bot knows a game only as moves from the start position, and \
                     no game under {} rules reaches {start} within {} plies",
                    bot.rules,
                    crate::rules::path::MAX_PLIES
                ),
            }
        })?;
        bot.paths.insert(*start, path.clone());
        Ok(path)
    }

    /// Ends the running process and starts a fresh one with the values set.
    fn respawn(&mut self) -> Result<(), EngineError> {
        let Some(bot) = self.bot.as_mut() else {
            return Ok(());
        };
        let launch = bot.launch_now()?;
        bot.process_values = bot.values.clone();
        bot.told.clear();
        bot.color = None;
        bot.turns = 0;
        self.process.end_by(Instant::now());
        self.process = Process::spawn(&launch)?;
        Ok(())
    }
}

impl Bot {
    /// The value given to placeholder `name`, if any.
    fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(given, _)| given.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Its launch with the placeholders of its arguments filled.
    ///
    /// # Errors
    /// [`EngineError::BadOptionValue`] naming a placeholder without a value.
    fn launch_now(&self) -> Result<EngineLaunch, EngineError> {
        let args = arguments::substitute(&self.launch.args, &self.values).map_err(|missing| {
            EngineError::BadOptionValue {
                engine: self.launch.name.clone(),
                option: missing.name.clone(),
                problem: missing.to_string(),
            }
        })?;
        Ok(EngineLaunch {
            args,
            ..self.launch.clone()
        })
    }
}

impl Drop for Engine {
    /// A bot's process is ended at once, without the `quit` a UGI/UCI engine is told.
    fn drop(&mut self) {
        if self.bot.is_some() {
            self.process.end_by(Instant::now());
        }
    }
}
