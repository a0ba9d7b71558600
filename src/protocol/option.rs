//! Engine options: the `option` declaration ([`OptionDecl`], [`OptionKind`]) and the check of
//! a value against it.

use super::{BOARD_OPTION, ProtocolError, RULES_OPTION};
use crate::rules::{Board, Rules};
use std::fmt;

/// The type of an engine option, with its default and range or choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `type check default true|false`.
    Check {
        /// The default value.
        default: bool,
    },
    /// `type spin default D min A max B`: an integer in `min..=max`.
    Spin {
        /// The default value.
        default: i64,
        /// The smallest value allowed.
        min: i64,
        /// The largest value allowed.
        max: i64,
    },
    /// `type combo default D var A var B ...`: one of a list of words.
    Combo {
        /// The default choice.
        default: String,
        /// The choices, in declaration order.
        choices: Vec<String>,
    },
    /// `type button`: an action with no value.
    Button,
    /// `type string default D`: any text (`<empty>` declares an empty default).
    String {
        /// The default value.
        default: String,
    },
}

impl OptionKind {
    /// The type's name in a declaration: `check`, `spin`, `combo`, `button` or `string`.
    pub const fn type_name(&self) -> &'static str {
        match self {
            OptionKind::Check { .. } => "check",
            OptionKind::Spin { .. } => "spin",
            OptionKind::Combo { .. } => "combo",
            OptionKind::Button => "button",
            OptionKind::String { .. } => "string",
        }
    }
}

/// An option an engine declares: `option name <name> type <type> ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    /// The name, which may contain spaces.
    pub name: String,
    /// The type with its default and range or choices.
    pub kind: OptionKind,
}

/// A value an option does not take ([`OptionDecl::check_value`]): the value, and the option's
/// kind it is refused by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueRefused {
    /// The value given.
    pub value: String,
    /// The option's type and range.
    pub kind: OptionKind,
}

impl fmt::Display for ValueRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = &self.value;
        match &self.kind {
            OptionKind::Check { .. } => write!(f, "'{value}' is not 'true' or 'false'"),
            OptionKind::Spin { min, max, .. } => {
                write!(f, "'{value}' is not an integer from {min} to {max}")
            }
            OptionKind::Combo { choices, .. } => {
                write!(f, "'{value}' is not one of: {}", choices.join(", "))
            }
            OptionKind::Button => f.write_str("a button takes no value"),
            OptionKind::String { .. } => write!(f, "'{value}' is refused"),
        }
    }
}

impl std::error::Error for ValueRefused {}

impl OptionDecl {
    /// The `Rules` option that engines built on [`crate::bundled::server`] declare: a combo of
    /// every rule set, defaulting to capture-only.
    pub fn rules() -> OptionDecl {
        OptionDecl {
            name: RULES_OPTION.to_string(),
            kind: OptionKind::Combo {
                default: Rules::default().name().to_string(),
                choices: Rules::ALL.iter().map(|r| r.name().to_string()).collect(),
            },
        }
    }

    /// The `Board` option that engines built on [`crate::bundled::server`] declare: a combo of
    /// every board from 4×4 to 8×8 (`RxC`, ranks × files), defaulting to `8x8`.
    pub fn board() -> OptionDecl {
        OptionDecl {
            name: BOARD_OPTION.to_string(),
            kind: OptionKind::Combo {
                default: Board::STANDARD.to_string(),
                choices: Board::all().map(|board| board.to_string()).collect(),
            },
        }
    }

    /// A spin option: an integer from `min` to `max`.
    pub fn spin(name: &str, default: i64, min: i64, max: i64) -> OptionDecl {
        OptionDecl {
            name: name.to_string(),
            kind: OptionKind::Spin { default, min, max },
        }
    }

    /// True when this option's name is `name`; option names compare case-insensitively.
    pub fn is_named(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
    }

    /// Checks that `value` is acceptable for this option.
    ///
    /// # Errors
    /// [`ValueRefused`]: not `true`/`false`, not an integer in range, not one of the
    /// choices, or a value for a button.
    pub fn check_value(&self, value: &str) -> Result<(), ValueRefused> {
        let refused = || ValueRefused {
            value: value.to_string(),
            kind: self.kind.clone(),
        };
        match &self.kind {
            OptionKind::Check { .. } if value == "true" || value == "false" => Ok(()),
            OptionKind::Spin { min, max, .. } => match value.parse::<i64>() {
                Ok(n) if (*min..=*max).contains(&n) => Ok(()),
                _ => Err(refused()),
            },
            OptionKind::Combo { choices, .. }
                if choices.iter().any(|c| c.eq_ignore_ascii_case(value)) =>
            {
                Ok(())
            }
            OptionKind::Button if value.is_empty() => Ok(()),
            OptionKind::String { .. } => Ok(()),
            _ => Err(refused()),
        }
    }

    /// Reads the words after `option`.
    pub(super) fn parse(line: &str) -> Result<OptionDecl, ProtocolError> {
        let bad = |problem: &str| ProtocolError::BadOption(format!("{problem} in '{line}'"));
        let mut tokens = line.split_whitespace().skip(1);
        if tokens.next() != Some("name") {
            return Err(bad("no 'name'"));
        }
        let words: Vec<&str> = tokens.collect();
        let type_at = words
            .iter()
            .position(|&w| w == "type")
            .ok_or_else(|| bad("no 'type'"))?;
        let name = words[..type_at].join(" ");
        if name.is_empty() {
            return Err(bad("an empty name"));
        }
        let type_name = *words
            .get(type_at + 1)
            .ok_or_else(|| bad("no type after 'type'"))?;
        let fields = OptionFields::parse(&words[type_at + 2..]);
        let kind = match type_name {
            "check" => match fields.default.as_deref() {
                Some("true") => OptionKind::Check { default: true },
                Some("false") => OptionKind::Check { default: false },
                _ => return Err(bad("a check default that is not 'true' or 'false'")),
            },
            "spin" => OptionKind::Spin {
                default: fields.number("default").map_err(|p| bad(&p))?,
                min: fields.number("min").map_err(|p| bad(&p))?,
                max: fields.number("max").map_err(|p| bad(&p))?,
            },
            "combo" => OptionKind::Combo {
                default: fields.default.unwrap_or_default(),
                choices: fields.vars,
            },
            "button" => OptionKind::Button,
            "string" => OptionKind::String {
                default: fields
                    .default
                    .filter(|d| d != "<empty>")
                    .unwrap_or_default(),
            },
            other => return Err(bad(&format!("unknown type '{other}'"))),
        };
        Ok(OptionDecl { name, kind })
    }
}

/// The `default`, `min`, `max` and `var` fields of an option declaration, as text.
#[derive(Default)]
struct OptionFields {
    default: Option<String>,
    min: Option<String>,
    max: Option<String>,
    vars: Vec<String>,
}

impl OptionFields {
    /// Splits `words` at the keywords `default`, `min`, `max`, `var`; a value runs to the next
    /// keyword and may be empty or hold spaces.
    fn parse(words: &[&str]) -> OptionFields {
        let mut fields = OptionFields::default();
        let mut key: Option<&str> = None;
        let mut value: Vec<&str> = Vec::new();
        for word in words.iter().copied().chain([""]) {
            let is_key = matches!(word, "default" | "min" | "max" | "var" | "");
            if !is_key {
                value.push(word);
                continue;
            }
            let text = value.join(" ");
            match key {
                Some("default") => fields.default = Some(text),
                Some("min") => fields.min = Some(text),
                Some("max") => fields.max = Some(text),
                Some(_) => fields.vars.push(text),
                None => {}
            }
            key = Some(word);
            value.clear();
        }
        fields
    }

    /// The integer field `key` (`default`, `min` or `max`); the error says what is wrong.
    fn number(&self, key: &str) -> Result<i64, String> {
        let text = match key {
            "default" => &self.default,
            "min" => &self.min,
            _ => &self.max,
        };
        let text = text
            .as_deref()
            .ok_or_else(|| format!("a spin without '{key}'"))?;
        text.parse()
            .map_err(|_| format!("a spin '{key}' that is not an integer ('{text}')"))
    }
}

impl fmt::Display for OptionDecl {
    /// Writes `option name <name> type <type> [default D] [min A max B] [var C ...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "option name {} type {}",
            self.name,
            self.kind.type_name()
        )?;
        match &self.kind {
            OptionKind::Check { default } => write!(f, " default {default}"),
            OptionKind::Spin { default, min, max } => {
                write!(f, " default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, choices } => {
                write!(f, " default {default}")?;
                choices.iter().try_for_each(|c| write!(f, " var {c}"))
            }
            OptionKind::Button => Ok(()),
            OptionKind::String { default } if default.is_empty() => f.write_str(" default <empty>"),
            OptionKind::String { default } => write!(f, " default {default}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_values_are_checked() {
        let seed = OptionDecl::spin("Seed", 0, 0, 100);
        assert!(seed.check_value("100").is_ok());
        assert!(
            seed.check_value("101")
                .is_err_and(|e| e.to_string().contains("0 to 100"))
        );
        assert!(seed.check_value("x").is_err());
        let rules = OptionDecl::rules();
        assert!(rules.check_value("classic").is_ok());
        assert!(
            rules
                .check_value("chess")
                .is_err_and(|e| e.to_string().contains("capture-only, classic"))
        );
    }
}
