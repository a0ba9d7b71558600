//! How the rule set reaches an engine: through its `Rules` option, its `UCI_Variant` option, or
//! (when it declares neither) not at all, in which case the runner's judging is the only check.
//! An option the user sets (`option.Rules=`, `option.UCI_Variant=`) overrides the automatic
//! choice.

use super::EngineError;
use crate::protocol::{OptionDecl, OptionKind, RULES_OPTION, VARIANT_OPTION, variant_name};
use crate::rules::Rules;

/// The option through which Fairy-Stockfish loads a variants file (`[name:parent]` sections);
/// an engine declaring it can be given a variant for capture-only rules.
pub const VARIANT_PATH_OPTION: &str = "VariantPath";

/// Why an engine cannot play under a rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its `Rules` option cannot take the rule set: a combo without it, or a type that holds no
    /// rule-set name (check, spin, button). `declared` is the declaration.
    Rules {
        /// The engine's declaration of `Rules`.
        declared: String,
        /// The rule sets it does list, in [`Rules::ALL`] order.
        offered: Vec<Rules>,
    },
    /// It has no `Rules` option and its `UCI_Variant` offers no variant for the rule set.
    Variant {
        /// The engine's declaration of `UCI_Variant`.
        declared: String,
        /// The rule sets whose variant it does offer, in [`Rules::ALL`] order.
        offered: Vec<Rules>,
        /// True when it declares [`VARIANT_PATH_OPTION`], so a variants file can add one.
        variants_file: bool,
    },
}

impl Refusal {
    /// The error that starting the engine named `engine` under `rules` ends with: an
    /// [`EngineError::RulesMismatch`] or an [`EngineError::UnsupportedVariant`], whose message
    /// names the fix.
    pub fn into_error(self, engine: String, rules: Rules) -> EngineError {
        match self {
            Refusal::Rules { declared, offered } => EngineError::RulesMismatch {
                engine,
                rules,
                declared,
                offered,
            },
            Refusal::Variant {
                declared,
                offered,
                variants_file,
            } => EngineError::UnsupportedVariant {
                engine,
                rules,
                declared,
                offered,
                variants_file,
            },
        }
    }
}

/// The `setoption` name/value pairs that put an engine declaring `options` under `rules`,
/// besides the options the user `configured` (name, value):
/// - `Rules` when declared (a combo listing the rule set, or a string);
/// - `UCI_Variant` when declared and the rule set has a UCI variant (`breakthrough` for
///   classic) that it offers.
///
/// An option in `configured` (names compare case-insensitively) is the user's choice: it is
/// neither set again nor checked here, and a configured `UCI_Variant` stands for the rule set.
///
/// # Errors
/// [`Refusal::Rules`] when a declared `Rules` option, not configured, cannot be set to
/// `rules`; [`Refusal::Variant`] when there is no `Rules` option and an unconfigured
/// `UCI_Variant` is declared without a variant for `rules` (capture-only has none).
pub fn rule_settings(
    options: &[OptionDecl],
    rules: Rules,
    configured: &[(String, String)],
) -> Result<Vec<(String, String)>, Refusal> {
    let find = |name: &str| options.iter().find(|decl| decl.is_named(name));
    let is_configured = |decl: &OptionDecl| configured.iter().any(|(name, _)| decl.is_named(name));
    let mut settings = Vec::new();
    let rules_option = find(RULES_OPTION);
    match rules_option {
        Some(decl) if is_configured(decl) => {}
        Some(decl) if accepts(decl, rules.name()) => {
            settings.push((decl.name.clone(), rules.name().to_string()))
        }
        Some(decl) => {
            return Err(Refusal::Rules {
                declared: decl.to_string(),
                offered: offered(|rules| accepts(decl, rules.name())),
            });
        }
        None => {}
    }
    match find(VARIANT_OPTION) {
        Some(decl) if is_configured(decl) => {}
        Some(decl) => match variant_name(rules).filter(|variant| accepts(decl, variant)) {
            Some(variant) => settings.push((decl.name.clone(), variant.to_string())),
            None if rules_option.is_some() => {}
            None => {
                return Err(Refusal::Variant {
                    declared: decl.to_string(),
                    offered: offered(|rules| variant_name(rules).is_some_and(|v| accepts(decl, v))),
                    variants_file: find(VARIANT_PATH_OPTION).is_some(),
                });
            }
        },
        None => {}
    }
    Ok(settings)
}

/// The rule sets for which `takes` holds, in [`Rules::ALL`] order.
fn offered(takes: impl Fn(Rules) -> bool) -> Vec<Rules> {
    Rules::ALL
        .into_iter()
        .filter(|&rules| takes(rules))
        .collect()
}

/// True when `decl` can be set to `value`: a combo listing it, or a string.
fn accepts(decl: &OptionDecl, value: &str) -> bool {
    matches!(
        decl.kind,
        OptionKind::Combo { .. } | OptionKind::String { .. }
    ) && decl.check_value(value).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn combo(name: &str, choices: &[&str]) -> OptionDecl {
        OptionDecl {
            name: name.into(),
            kind: OptionKind::Combo {
                default: choices.first().copied().unwrap_or_default().into(),
                choices: choices.iter().map(|c| c.to_string()).collect(),
            },
        }
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|&(n, v)| (n.into(), v.into())).collect()
    }

    #[test]
    fn rules_option_gets_the_rule_set() {
        let options = [OptionDecl::rules(), OptionDecl::spin("Seed", 0, 0, 9)];
        for rules in Rules::ALL {
            assert_eq!(
                rule_settings(&options, rules, &[]),
                Ok(pairs(&[("Rules", rules.name())]))
            );
        }
        let text = OptionDecl {
            name: "rules".into(),
            kind: OptionKind::String {
                default: "x".into(),
            },
        };
        assert_eq!(
            rule_settings(&[text], Rules::Classic, &[]),
            Ok(pairs(&[("rules", "classic")]))
        );
    }

    #[test]
    fn fixed_rules_option_is_refused() {
        let fixed = combo("Rules", &["classic"]);
        assert!(matches!(
            rule_settings(std::slice::from_ref(&fixed), Rules::CaptureOnly, &[]),
            Err(Refusal::Rules { declared, offered }) if declared.contains("var classic") && offered == vec![Rules::Classic]
        ));
        assert!(rule_settings(&[fixed], Rules::Classic, &[]).is_ok());
        let check = OptionDecl {
            name: "Rules".into(),
            kind: OptionKind::Check { default: true },
        };
        assert!(matches!(
            rule_settings(&[check], Rules::Classic, &[]),
            Err(Refusal::Rules { .. })
        ));
    }

    #[test]
    fn uci_variant_follows_the_rule_set() {
        let variant = combo("UCI_Variant", &["chess", "breakthrough"]);
        assert_eq!(
            rule_settings(std::slice::from_ref(&variant), Rules::Classic, &[]),
            Ok(pairs(&[("UCI_Variant", "breakthrough")]))
        );
        assert_eq!(
            rule_settings(std::slice::from_ref(&variant), Rules::CaptureOnly, &[]),
            Err(Refusal::Variant {
                declared: variant.to_string(),
                offered: vec![Rules::Classic],
                variants_file: false,
            })
        );
        let chess_only = combo("UCI_Variant", &["chess"]);
        assert!(matches!(
            rule_settings(&[chess_only], Rules::Classic, &[]),
            Err(Refusal::Variant { .. })
        ));
        let both = [OptionDecl::rules(), variant];
        assert_eq!(
            rule_settings(&both, Rules::CaptureOnly, &[]),
            Ok(pairs(&[("Rules", "capture-only")]))
        );
        assert_eq!(
            rule_settings(&both, Rules::Classic, &[]),
            Ok(pairs(&[
                ("Rules", "classic"),
                ("UCI_Variant", "breakthrough")
            ]))
        );
    }

    #[test]
    fn configured_options_override_the_automatic_choice() {
        let variant = combo("UCI_Variant", &["chess", "breakthrough"]);
        let path = OptionDecl {
            name: "VariantPath".into(),
            kind: OptionKind::String {
                default: String::new(),
            },
        };
        let fairy = [variant, path];
        assert!(matches!(
            rule_settings(&fairy, Rules::CaptureOnly, &[]),
            Err(Refusal::Variant { offered, variants_file: true, .. }) if offered == vec![Rules::Classic]
        ));
        let user = pairs(&[
            ("VariantPath", "v.ini"),
            ("uci_variant", "breakthrough-capture-only"),
        ]);
        assert_eq!(rule_settings(&fairy, Rules::CaptureOnly, &user), Ok(vec![]));
        assert_eq!(rule_settings(&fairy, Rules::Classic, &user), Ok(vec![]));

        let both = [combo("Rules", &["classic"]), fairy[0].clone()];
        let own_rules = pairs(&[("Rules", "classic")]);
        assert_eq!(
            rule_settings(&both, Rules::CaptureOnly, &own_rules),
            Ok(vec![])
        );
        assert_eq!(
            rule_settings(&both, Rules::Classic, &own_rules),
            Ok(pairs(&[("UCI_Variant", "breakthrough")]))
        );
        let own_variant = pairs(&[("UCI_Variant", "breakthrough")]);
        assert!(matches!(
            rule_settings(&both, Rules::CaptureOnly, &own_variant),
            Err(Refusal::Rules { .. })
        ));
    }

    #[test]
    fn engines_without_either_option_get_nothing() {
        assert_eq!(rule_settings(&[], Rules::CaptureOnly, &[]), Ok(vec![]));
    }
}
