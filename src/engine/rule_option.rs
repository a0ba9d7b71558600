//! How the rule set and the board reach an engine: through its `Rules` and `Board` options,
//! its `UCI_Variant` option, or (when it declares none) not at all, in which case positions
//! are the only carrier of the board (a FEN of its size) and the runner's judging the only
//! check. An option the user sets (`option.Rules=`, `option.Board=`, `option.UCI_Variant=`)
//! overrides the automatic choice.

use super::{EngineError, EngineLaunch};
use crate::protocol::{
    BOARD_OPTION, OptionDecl, OptionKind, RULES_OPTION, VARIANT_OPTION, variant_name,
};
use crate::rules::{Board, Rules};
use std::io;
use std::path::Path;

/// The option through which Fairy-Stockfish loads a variants file (`[name:parent]` sections);
/// an engine declaring it can be given a variant for capture-only rules and other boards.
pub const VARIANT_PATH_OPTION: &str = "VariantPath";

/// Why an engine cannot play under a rule set on a board.
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
    /// Its `Board` option cannot take the board: a combo without it, or a type that holds no
    /// size (check, spin, button).
    Board {
        /// The engine's declaration of `Board`.
        declared: String,
        /// The boards it does list, in [`Board::all`] order.
        offered: Vec<Board>,
    },
    /// It has no `Rules` option and its `UCI_Variant` offers no variant for the rule set on
    /// the board (see [`variant_name`]).
    Variant {
        /// The engine's declaration of `UCI_Variant`.
        declared: String,
        /// The rule sets whose variant on the board it does offer, in [`Rules::ALL`] order.
        offered: Vec<Rules>,
        /// True when it declares [`VARIANT_PATH_OPTION`], so a variants file can add one.
        variants_file: bool,
    },
}

impl Refusal {
    /// The error that starting the engine named `engine` under `rules` on `board` ends with:
    /// an [`EngineError::RulesMismatch`], [`EngineError::BoardMismatch`] or
    /// [`EngineError::UnsupportedVariant`], whose message names the fix.
    pub fn into_error(self, engine: String, rules: Rules, board: Board) -> EngineError {
        match self {
            Refusal::Rules { declared, offered } => EngineError::RulesMismatch {
                engine,
                rules,
                declared,
                offered,
            },
            Refusal::Board { declared, offered } => EngineError::BoardMismatch {
                engine,
                board,
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
                board,
                declared,
                offered,
                variants_file,
            },
        }
    }
}

/// What the runner knows of the game an engine is set up for.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// The rule set in force.
    pub rules: Rules,
    /// The board.
    pub board: Board,
    /// The options the user configured (name, value), in order.
    pub configured: &'a [(String, String)],
    /// The variants defined by the file the user gave to `VariantPath` (see
    /// [`variants_in_file`]); `None` when none was given.
    pub file_variants: Option<&'a [String]>,
}

/// The `setoption` name/value pairs that put an engine declaring `options` under
/// `setup.rules` on `setup.board`, besides the options the user configured:
/// - `Rules` when declared (a combo listing the rule set, or a string);
/// - `Board` when declared (a combo listing the board as `RxC`, or a string), unless the board
///   is 8×8 and so is the option's default (8×8 conversations are as before `Board` existed);
/// - `UCI_Variant` when declared and it offers [`variant_name`] of the rule set and board: a
///   choice it declares, or a variant of the file given to `VariantPath`.
///
/// An option in `configured` (names compare case-insensitively) is the user's choice: it is
/// neither set again nor checked here, and a configured `UCI_Variant` stands for the rule set
/// and the board.
///
/// # Errors
/// [`Refusal::Rules`] when a declared `Rules` option, not configured, cannot be set to
/// the rule set; [`Refusal::Board`] likewise for `Board`; [`Refusal::Variant`] when there is
/// no `Rules` option and an unconfigured `UCI_Variant` offers no variant for the rule set on
/// the board.
pub fn rule_settings(
    options: &[OptionDecl],
    setup: &Setup,
) -> Result<Vec<(String, String)>, Refusal> {
    let find = |name: &str| options.iter().find(|decl| decl.is_named(name));
    let is_configured =
        |decl: &OptionDecl| setup.configured.iter().any(|(name, _)| decl.is_named(name));
    let mut settings = Vec::new();
    let rules_option = find(RULES_OPTION);
    match rules_option {
        Some(decl) if is_configured(decl) => {}
        Some(decl) if accepts(decl, setup.rules.name()) => {
            settings.push((decl.name.clone(), setup.rules.name().to_string()))
        }
        Some(decl) => {
            return Err(Refusal::Rules {
                declared: decl.to_string(),
                offered: offered(|rules| accepts(decl, rules.name())),
            });
        }
        None => {}
    }
    let size = setup.board.to_string();
    match find(BOARD_OPTION) {
        Some(decl) if is_configured(decl) => {}
        // 8x8 on an option whose default is 8x8: nothing to send.
        Some(decl) if setup.board.is_standard() && default_of(decl) == Some(size.as_str()) => {}
        Some(decl) if accepts(decl, &size) => settings.push((decl.name.clone(), size)),
        Some(decl) => {
            return Err(Refusal::Board {
                declared: decl.to_string(),
                offered: Board::all()
                    .filter(|board| accepts(decl, &board.to_string()))
                    .collect(),
            });
        }
        None => {}
    }
    let in_file = |variant: &str| {
        setup
            .file_variants
            .is_some_and(|names| names.iter().any(|name| name == variant))
    };
    let variant_of = |rules| variant_name(rules, setup.board);
    let offers = |decl: &OptionDecl, variant: &str| accepts(decl, variant) || in_file(variant);
    match find(VARIANT_OPTION) {
        Some(decl) if is_configured(decl) => {}
        Some(decl) if offers(decl, &variant_of(setup.rules)) => {
            settings.push((decl.name.clone(), variant_of(setup.rules)))
        }
        Some(_) if rules_option.is_some() => {}
        Some(decl) => {
            return Err(Refusal::Variant {
                declared: decl.to_string(),
                offered: offered(|rules| offers(decl, &variant_of(rules))),
                variants_file: find(VARIANT_PATH_OPTION).is_some(),
            });
        }
        None => {}
    }
    Ok(settings)
}

/// The value the user configured for the option `name` (compared case-insensitively), the
/// last one when given twice.
pub fn configured_value<'a>(configured: &'a [(String, String)], name: &str) -> Option<&'a str> {
    configured
        .iter()
        .rev()
        .find(|(given, _)| given.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// The variants of the file the user gave to `VariantPath` (see [`variants_in_file`]), read
/// only when the engine declares `UCI_Variant` (among `options`) and the user did not set it:
/// the runner then picks the variant. `None` when there is no such file to read.
///
/// # Errors
/// [`EngineError::Io`] when the file cannot be read.
pub fn configured_variants(
    launch: &EngineLaunch,
    options: &[OptionDecl],
) -> Result<Option<Vec<String>>, EngineError> {
    let configured = |name| configured_value(&launch.options, name);
    let declared = options.iter().any(|decl| decl.is_named(VARIANT_OPTION));
    let path = match configured(VARIANT_PATH_OPTION) {
        Some(path) if declared && configured(VARIANT_OPTION).is_none() => path,
        _ => return Ok(None),
    };
    variants_in_file(path.as_ref(), launch.dir.as_deref())
        .map(Some)
        .map_err(|source| EngineError::Io {
            engine: launch.name.clone(),
            context: format!(
                "cannot read the variants file '{path}' given to option {VARIANT_PATH_OPTION} \
                 (to choose its UCI_Variant)"
            ),
            source,
        })
}

/// The variants a Fairy-Stockfish variants file defines: the names of its sections
/// (`[name]` or `[name:parent]`), in order. A relative `path` is taken from `dir` (the
/// engine's working directory) when there is one, as the engine opens it.
///
/// # Errors
/// The I/O error of reading the file.
pub fn variants_in_file(path: &Path, dir: Option<&Path>) -> io::Result<Vec<String>> {
    let path = match dir {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    };
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter_map(|line| line.trim().strip_prefix('['))
        .filter_map(|section| section.split([':', ']']).next())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .collect())
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

/// The default of a combo or string option.
fn default_of(decl: &OptionDecl) -> Option<&str> {
    match &decl.kind {
        OptionKind::Combo { default, .. } | OptionKind::String { default } => {
            Some(default.as_str())
        }
        _ => None,
    }
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

    /// The settings on 8×8 without a variants file.
    fn settle(
        options: &[OptionDecl],
        rules: Rules,
        configured: &[(String, String)],
    ) -> Result<Vec<(String, String)>, Refusal> {
        on(options, rules, Board::STANDARD, configured, None)
    }

    fn on(
        options: &[OptionDecl],
        rules: Rules,
        board: Board,
        configured: &[(String, String)],
        file_variants: Option<&[String]>,
    ) -> Result<Vec<(String, String)>, Refusal> {
        let setup = Setup {
            rules,
            board,
            configured,
            file_variants,
        };
        rule_settings(options, &setup)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|&(n, v)| (n.into(), v.into())).collect()
    }

    #[test]
    fn rules_option_gets_the_rule_set() {
        let options = [OptionDecl::rules(), OptionDecl::spin("Seed", 0, 0, 9)];
        for rules in Rules::ALL {
            assert_eq!(
                settle(&options, rules, &[]),
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
            settle(&[text], Rules::Classic, &[]),
            Ok(pairs(&[("rules", "classic")]))
        );
    }

    #[test]
    fn fixed_rules_option_is_refused() {
        let fixed = combo("Rules", &["classic"]);
        assert!(matches!(
            settle(std::slice::from_ref(&fixed), Rules::CaptureOnly, &[]),
            Err(Refusal::Rules { declared, offered }) if declared.contains("var classic") && offered == vec![Rules::Classic]
        ));
        assert!(settle(&[fixed], Rules::Classic, &[]).is_ok());
        let check = OptionDecl {
            name: "Rules".into(),
            kind: OptionKind::Check { default: true },
        };
        assert!(matches!(
            settle(&[check], Rules::Classic, &[]),
            Err(Refusal::Rules { .. })
        ));
    }

    #[test]
    fn uci_variant_follows_the_rule_set() {
        let variant = combo("UCI_Variant", &["chess", "breakthrough"]);
        assert_eq!(
            settle(std::slice::from_ref(&variant), Rules::Classic, &[]),
            Ok(pairs(&[("UCI_Variant", "breakthrough")]))
        );
        assert_eq!(
            settle(std::slice::from_ref(&variant), Rules::CaptureOnly, &[]),
            Err(Refusal::Variant {
                declared: variant.to_string(),
                offered: vec![Rules::Classic],
                variants_file: false,
            })
        );
        let chess_only = combo("UCI_Variant", &["chess"]);
        assert!(matches!(
            settle(&[chess_only], Rules::Classic, &[]),
            Err(Refusal::Variant { .. })
        ));
        let both = [OptionDecl::rules(), variant];
        assert_eq!(
            settle(&both, Rules::CaptureOnly, &[]),
            Ok(pairs(&[("Rules", "capture-only")]))
        );
        assert_eq!(
            settle(&both, Rules::Classic, &[]),
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
            settle(&fairy, Rules::CaptureOnly, &[]),
            Err(Refusal::Variant { offered, variants_file: true, .. }) if offered == vec![Rules::Classic]
        ));
        let user = pairs(&[
            ("VariantPath", "v.ini"),
            ("uci_variant", "breakthrough-capture-only"),
        ]);
        assert_eq!(settle(&fairy, Rules::CaptureOnly, &user), Ok(vec![]));
        assert_eq!(settle(&fairy, Rules::Classic, &user), Ok(vec![]));

        let both = [combo("Rules", &["classic"]), fairy[0].clone()];
        let own_rules = pairs(&[("Rules", "classic")]);
        assert_eq!(settle(&both, Rules::CaptureOnly, &own_rules), Ok(vec![]));
        assert_eq!(
            settle(&both, Rules::Classic, &own_rules),
            Ok(pairs(&[("UCI_Variant", "breakthrough")]))
        );
        let own_variant = pairs(&[("UCI_Variant", "breakthrough")]);
        assert!(matches!(
            settle(&both, Rules::CaptureOnly, &own_variant),
            Err(Refusal::Rules { .. })
        ));
    }

    #[test]
    fn board_option_gets_the_board_off_8x8_or_off_its_default() {
        let six: Board = "6x6".parse().unwrap();
        let options = [OptionDecl::rules(), OptionDecl::board()];
        // 8x8 with an 8x8 default: nothing more than before the option existed.
        assert_eq!(
            settle(&options, Rules::Classic, &[]),
            Ok(pairs(&[("Rules", "classic")]))
        );
        assert_eq!(
            on(&options, Rules::Classic, six, &[], None),
            Ok(pairs(&[("Rules", "classic"), ("Board", "6x6")]))
        );
        let small_default = combo("board", &["5x5", "8x8"]);
        assert_eq!(
            settle(std::slice::from_ref(&small_default), Rules::Classic, &[]),
            Ok(pairs(&[("board", "8x8")]))
        );
        assert_eq!(
            on(
                std::slice::from_ref(&small_default),
                Rules::Classic,
                six,
                &[],
                None
            ),
            Err(Refusal::Board {
                declared: small_default.to_string(),
                offered: vec!["5x5".parse().unwrap(), Board::STANDARD],
            })
        );
        let user = pairs(&[("Board", "6x6")]);
        assert_eq!(
            on(&[small_default], Rules::Classic, six, &user, None),
            Ok(vec![])
        );
        let spin = OptionDecl::spin("Board", 8, 4, 8);
        assert!(matches!(
            on(&[spin], Rules::Classic, six, &[], None),
            Err(Refusal::Board { offered, .. }) if offered.is_empty()
        ));
    }

    #[test]
    fn uci_variant_takes_the_variant_of_the_board_from_the_variants_file() {
        let six: Board = "6x6".parse().unwrap();
        let fairy = [
            combo("UCI_Variant", &["chess", "breakthrough"]),
            OptionDecl {
                name: "VariantPath".into(),
                kind: OptionKind::String {
                    default: String::new(),
                },
            },
        ];
        let file: Vec<String> = ["breakthrough-capture-only", "breakthrough-6x6"]
            .map(String::from)
            .into();
        let path = pairs(&[("VariantPath", "v.ini")]);
        let with_file = |rules, board| on(&fairy, rules, board, &path, Some(&file));
        assert_eq!(
            with_file(Rules::Classic, six),
            Ok(pairs(&[("UCI_Variant", "breakthrough-6x6")]))
        );
        assert_eq!(
            with_file(Rules::CaptureOnly, Board::STANDARD),
            Ok(pairs(&[("UCI_Variant", "breakthrough-capture-only")]))
        );
        assert_eq!(
            with_file(Rules::Classic, Board::STANDARD),
            Ok(pairs(&[("UCI_Variant", "breakthrough")]))
        );
        assert_eq!(
            with_file(Rules::CaptureOnly, six),
            Err(Refusal::Variant {
                declared: fairy[0].to_string(),
                offered: vec![Rules::Classic],
                variants_file: true,
            })
        );
        // Without the file, no size but 8x8.
        assert!(matches!(
            on(&fairy, Rules::Classic, six, &[], None),
            Err(Refusal::Variant { offered, .. }) if offered.is_empty()
        ));
    }

    #[test]
    fn variants_files_are_read_for_their_section_names() {
        let dir = tempfile::tempdir().unwrap();
        let text = "# c\n[breakthrough-capture-only:breakthrough]\nx = 1\n[mine]\n [b-6x6:b]\n";
        std::fs::write(dir.path().join("v.ini"), text).unwrap();
        assert_eq!(
            variants_in_file(Path::new("v.ini"), Some(dir.path())).unwrap(),
            vec!["breakthrough-capture-only", "mine", "b-6x6"]
        );
        assert!(variants_in_file(Path::new("v.ini"), None).is_err());
    }

    #[test]
    fn engines_without_either_option_get_nothing() {
        assert_eq!(settle(&[], Rules::CaptureOnly, &[]), Ok(vec![]));
    }
}
