//! How the rule set reaches an engine: through its `Rules` option, its `UCI_Variant` option, or
//! (when it declares neither) not at all, in which case the runner's judging is the only check.

use super::protocol::{OptionDecl, OptionKind, RULES_OPTION, VARIANT_OPTION, variant_name};
use crate::rules::Rules;

/// Why an engine cannot play under a rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its `Rules` option cannot take the rule set: a combo without it, or a type that holds no
    /// rule-set name (check, spin, button). `declared` is the declaration.
    Rules {
        /// The engine's declaration of `Rules`.
        declared: String,
    },
    /// It has no `Rules` option and its `UCI_Variant` offers no variant for the rule set.
    Variant {
        /// The engine's declaration of `UCI_Variant`.
        declared: String,
    },
}

/// The `setoption` name/value pairs that put an engine declaring `options` under `rules`:
/// `Rules` when declared (a combo listing the rule set, or a string), and `UCI_Variant` when
/// declared and the rule set has a UCI variant (`breakthrough` for classic) that it offers.
///
/// # Errors
/// [`Refusal::Rules`] when a declared `Rules` option cannot be set to `rules`;
/// [`Refusal::Variant`] when there is no `Rules` option and `UCI_Variant` is declared without
/// a variant for `rules` (capture-only has none).
pub fn rule_settings(
    options: &[OptionDecl],
    rules: Rules,
) -> Result<Vec<(String, String)>, Refusal> {
    let find = |name: &str| options.iter().find(|decl| decl.is_named(name));
    let mut settings = Vec::new();
    let rules_option = find(RULES_OPTION);
    if let Some(decl) = rules_option {
        if !accepts(decl, rules.name()) {
            return Err(Refusal::Rules {
                declared: decl.to_string(),
            });
        }
        settings.push((decl.name.clone(), rules.name().to_string()));
    }
    if let Some(decl) = find(VARIANT_OPTION) {
        match variant_name(rules).filter(|variant| accepts(decl, variant)) {
            Some(variant) => settings.push((decl.name.clone(), variant.to_string())),
            None if rules_option.is_some() => {}
            None => {
                return Err(Refusal::Variant {
                    declared: decl.to_string(),
                });
            }
        }
    }
    Ok(settings)
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
                rule_settings(&options, rules),
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
            rule_settings(&[text], Rules::Classic),
            Ok(pairs(&[("rules", "classic")]))
        );
    }

    #[test]
    fn fixed_rules_option_is_refused() {
        let fixed = combo("Rules", &["classic"]);
        assert!(matches!(
            rule_settings(std::slice::from_ref(&fixed), Rules::CaptureOnly),
            Err(Refusal::Rules { declared }) if declared.contains("var classic")
        ));
        assert!(rule_settings(&[fixed], Rules::Classic).is_ok());
        let check = OptionDecl {
            name: "Rules".into(),
            kind: OptionKind::Check { default: true },
        };
        assert!(matches!(
            rule_settings(&[check], Rules::Classic),
            Err(Refusal::Rules { .. })
        ));
    }

    #[test]
    fn uci_variant_follows_the_rule_set() {
        let variant = combo("UCI_Variant", &["chess", "breakthrough"]);
        assert_eq!(
            rule_settings(std::slice::from_ref(&variant), Rules::Classic),
            Ok(pairs(&[("UCI_Variant", "breakthrough")]))
        );
        assert!(matches!(
            rule_settings(std::slice::from_ref(&variant), Rules::CaptureOnly),
            Err(Refusal::Variant { .. })
        ));
        let chess_only = combo("UCI_Variant", &["chess"]);
        assert!(matches!(
            rule_settings(&[chess_only], Rules::Classic),
            Err(Refusal::Variant { .. })
        ));
        let both = [OptionDecl::rules(), variant];
        assert_eq!(
            rule_settings(&both, Rules::CaptureOnly),
            Ok(pairs(&[("Rules", "capture-only")]))
        );
        assert_eq!(
            rule_settings(&both, Rules::Classic),
            Ok(pairs(&[
                ("Rules", "classic"),
                ("UCI_Variant", "breakthrough")
            ]))
        );
    }

    #[test]
    fn engines_without_either_option_get_nothing() {
        assert_eq!(rule_settings(&[], Rules::CaptureOnly), Ok(vec![]));
    }
}
