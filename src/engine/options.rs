//! Engine options: the configured ones set in order, each checked against what the engine
//! declared by the one check every command shares ([`check_option`]), and the warnings a
//! check gives (printed once per runner process).

use super::{Engine, EngineError};
use crate::protocol::{Command, OptionDecl, OptionKind};
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Instant;

impl Engine {
    /// Sends `setoption` for a configured option after checking it against the declaration
    /// ([`check_option`]); a combo value it did not declare is sent with a warning.
    pub(super) fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let checked = check_option(&self.name, &self.options, name, value)?;
        let decl_name = checked.decl.name.clone();
        if let Some(warning) = checked.warning {
            self.warn(warning);
        }
        let command = Command::SetOption {
            name: decl_name,
            value: (!value.is_empty()).then(|| value.to_string()),
        };
        self.send_setup(&command)
    }

    /// Sets `options` (name, value) in order, checked against the engine's declarations as
    /// at start, then waits for `readyok`: for a runner that changes options between games
    /// (a tune plays other parameter values every iteration).
    ///
    /// # Errors
    /// [`EngineError::UnknownOption`], [`EngineError::BadOptionValue`], or as
    /// [`Engine::is_ready`].
    pub fn set_options(&mut self, options: &[(String, String)]) -> Result<(), EngineError> {
        if self.bot.is_some() {
            return self.bot_set_options(options);
        }
        for (name, value) in options {
            self.set_option(name, value)?;
        }
        self.is_ready()
    }

    /// Keeps `warning`, writes it to the communication log and prints it to stderr unless
    /// this process printed it before (engines restarted for each game would repeat it).
    pub(super) fn warn(&mut self, warning: String) {
        static PRINTED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
        self.process.note(&format!("warning: {warning}"));
        let mut printed = PRINTED.lock().unwrap_or_else(|p| p.into_inner());
        if printed.insert(warning.clone()) {
            eprintln!("warning: {warning}");
        }
        self.warnings.push(warning);
    }

    /// Writes a setup command (`setoption`), which the engine must take within the ready
    /// timeout.
    pub(super) fn send_setup(&mut self, command: &Command) -> Result<(), EngineError> {
        let after = self.timeouts.ready;
        self.send(
            std::slice::from_ref(command),
            Instant::now() + after,
            |engine| EngineError::ReadyTimeout { engine, after },
        )
    }
}

/// A configured option checked against the engine's declarations ([`check_option`]).
#[derive(Debug)]
pub struct CheckedOption<'a> {
    /// The declaration the option sets (its name as the engine spells it).
    pub decl: &'a OptionDecl,
    /// Why the value is sent though the declaration does not list it, when it does not.
    pub warning: Option<String>,
}

/// The one check of a configured option (`option.NAME=VALUE`) against the options an engine
/// declared, for every command that starts engines (a tournament, a tune, perft-check,
/// check-engine): the name must be declared (compared case-insensitively) and the value allowed
/// by its declaration, except that a combo value the engine did not declare is sent with a
/// warning, since an engine may add values at run time (Fairy-Stockfish adds the variants of
/// its `VariantPath` file to `UCI_Variant`).
///
/// # Errors
/// [`EngineError::UnknownOption`] for a name the engine does not declare,
/// [`EngineError::BadOptionValue`] for a value its (non-combo) declaration does not allow.
pub fn check_option<'a>(
    engine: &str,
    declared: &'a [OptionDecl],
    name: &str,
    value: &str,
) -> Result<CheckedOption<'a>, EngineError> {
    let Some(decl) = declared.iter().find(|decl| decl.is_named(name)) else {
        return Err(EngineError::UnknownOption {
            engine: engine.to_string(),
            option: name.to_string(),
        });
    };
    let warning = match decl.check_value(value) {
        Ok(()) => None,
        Err(_) if matches!(decl.kind, OptionKind::Combo { .. }) => Some(format!(
            "engine '{engine}': option '{}': value '{value}' is not among the values it \
             declared; sent anyway (an engine may add values at run time, as Fairy-Stockfish \
             does for UCI_Variant after VariantPath)",
            decl.name
        )),
        Err(problem) => {
            return Err(EngineError::BadOptionValue {
                engine: engine.to_string(),
                option: decl.name.clone(),
                problem: problem.to_string(),
            });
        }
    };
    Ok(CheckedOption { decl, warning })
}
