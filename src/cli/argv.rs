//! The command line as users of cutechess-cli and fastchess write it, rewritten before clap
//! reads it ([`rewrite`]), so that their scripts either work or are told bt-arena's spelling:
//!
//! - a single-dash long flag (`-engine`, `-each`, `-rounds`, `-concurrency`) is the
//!   subcommand's double-dash flag when it has one;
//! - a flag of theirs that bt-arena spells otherwise is renamed (`-srand` is `--seed`,
//!   `-tournament` is `--format`), and one with no bt-arena meaning (`-pgnout`, `-draw`,
//!   `-recover`) is refused with a hint naming what bt-arena does instead; any other
//!   single-dash word is refused as typed (`unknown flag '-bogus'`);
//! - the key lists of `--sprt`, `--resign` and `--adjudicate` are one word (`elo0=0,elo1=5`);
//!   given as separate words (`--sprt elo0=0 elo1=5`, fastchess's form, which users of the
//!   field type), the following words that are `KEY=VALUE` with one of the flag's own keys are
//!   joined to it, silently. No command has to guess where such a list ends.
//!
//! Nothing after `--` is rewritten.

use super::UsageError;
use std::ffi::OsString;

/// The command line to give clap, and the notes to print on stderr first (deprecated forms).
#[derive(Debug, PartialEq, Eq)]
pub struct Rewritten {
    /// The arguments, the program's name first.
    pub args: Vec<OsString>,
    /// What was rewritten that its user should write otherwise.
    pub notes: Vec<String>,
}

/// What bt-arena makes of a flag of cutechess-cli or fastchess spelled otherwise, or not had.
enum Foreign {
    /// bt-arena's long flag of the same meaning.
    Renamed(&'static str),
    /// No flag of that meaning: what bt-arena does instead.
    Hint(&'static str),
}

/// The flags of cutechess-cli and fastchess that bt-arena spells otherwise or does not have,
/// by their name without dashes. The others of theirs are bt-arena's (`-engine`, `-each`,
/// `-rounds`, `-games`, `-concurrency`, `-openings`, `-sprt`, `-resign`, `-event`, `-seed`).
const FOREIGN: &[(&str, Foreign)] = &[
    ("srand", Foreign::Renamed("seed")),
    ("tournament", Foreign::Renamed("format")),
    ("ratinginterval", Foreign::Renamed("rating-interval")),
    (
        "tc",
        Foreign::Hint(
            "a time control is an engine key: --each tc=10+0.1 for every engine (or tc= in \
             one --engine); also st=SECONDS, depth=N, nodes=N",
        ),
    ),
    (
        "pgnout",
        Foreign::Hint(
            "bt-arena writes every game to games.pgn (and games.csv) in the results \
             directory: give it with --out DIR (--pgn-comments says what move comments hold)",
        ),
    ),
    (
        "epdout",
        Foreign::Hint("bt-arena writes no EPD file: the games are in games.pgn in --out DIR"),
    ),
    (
        "draw",
        Foreign::Hint("Breakthrough has no draws: every game ends in a win"),
    ),
    (
        "maxmoves",
        Foreign::Hint(
            "a Breakthrough game always ends (pawns only move forward): there is no move limit",
        ),
    ),
    ("tb", Foreign::Hint(TABLEBASES)),
    ("tbpieces", Foreign::Hint(TABLEBASES)),
    ("tbignore50", Foreign::Hint(TABLEBASES)),
    ("tbadjudicate", Foreign::Hint(TABLEBASES)),
    (
        "recover",
        Foreign::Hint(
            "bt-arena always restarts a crashed engine (the engine key restart=on restarts it \
             for every game)",
        ),
    ),
    (
        "repeat",
        Foreign::Hint(
            "bt-arena plays each opening twice, colours swapped, already: --games 2 (the \
             default) is one game pair",
        ),
    ),
    ("noswap", Foreign::Hint(COLOURS)),
    ("reverse", Foreign::Hint(COLOURS)),
    (
        "variant",
        Foreign::Hint("bt-arena plays Breakthrough: --rules capture-only or --rules classic"),
    ),
    (
        "debug",
        Foreign::Hint("--log writes every engine's protocol traffic under <out>/logs/"),
    ),
    (
        "recovery",
        Foreign::Hint("--resume DIR continues an interrupted run where it stopped"),
    ),
    (
        "autosaveinterval",
        Foreign::Hint(
            "bt-arena saves every game as it ends; --resume DIR continues an interrupted run",
        ),
    ),
    (
        "output",
        Foreign::Hint(
            "bt-arena's report is its own: text, summary.json and report.html in --out DIR \
             (bt-arena elo and bt-arena report read cutechess-cli's and fastchess's PGN)",
        ),
    ),
    (
        "report",
        Foreign::Hint("bt-arena's reports always give the pentanomial counts"),
    ),
    (
        "pgnin",
        Foreign::Hint("--openings file=BOOK.epd (bt-arena's books are EPD files)"),
    ),
    (
        "epdin",
        Foreign::Hint("--openings file=BOOK.epd order=sequential|random"),
    ),
    (
        "bookmode",
        Foreign::Hint("bt-arena has no engine books: --openings file=BOOK.epd gives the openings"),
    ),
    (
        "wait",
        Foreign::Hint("bt-arena starts the next game at once"),
    ),
    (
        "site",
        Foreign::Hint("bt-arena writes no Site tag; --event NAME names the run"),
    ),
    (
        "scoreinterval",
        Foreign::Hint(
            "--rating-interval N prints the report every N games when stdout is not a \
             terminal; on a terminal the progress line shows the score",
        ),
    ),
    (
        "use-affinity",
        Foreign::Hint(
            "bt-arena does not pin engines to cores: --concurrency N sets the games at once",
        ),
    ),
    (
        "show-latency",
        Foreign::Hint(
            "every move's time, from the go sent to the bestmove read, is in games.csv \
             (move_info), games.pgn's comments and report.html's move times",
        ),
    ),
    ("randomseed", Foreign::Hint(SEED)),
    ("seeds", Foreign::Hint(SEED)),
];

/// The hint for seed flags.
const SEED: &str = "--seed N: every random choice follows it (drawn at random and saved when not \
    given; --openings order=random shuffles the book by it)";

/// The hint for tablebase flags.
const TABLEBASES: &str = "bt-arena has no tablebases: --adjudicate proof=PLIES ends a game \
    the rules prove won within PLIES plies";

/// The hint for flags that change the colours of a pair.
const COLOURS: &str = "the games of a pair always swap colours (--games 2, the default)";

/// Flags that take a key list as one word, with the keys that may follow as separate words.
const KEY_LISTS: &[(&str, &[&str])] = &[
    ("sprt", &["elo0", "elo1", "alpha", "beta", "model"]),
    ("resign", &["movecount", "score", "twosided"]),
    ("adjudicate", &["proof", "nodes"]),
];

/// Flags whose cutechess-cli or fastchess form takes other words than bt-arena's: refused
/// with a hint when their value starts so (fastchess's `-config file=X`, `-log file=X`).
const FOREIGN_VALUES: &[(&str, &str, &str)] = &[
    (
        "config",
        "file=",
        "bt-arena's --config FILE reads its own TOML or JSON (the fields of a run's \
         config.json), not fastchess's; --resume DIR continues an interrupted run",
    ),
    (
        "log",
        "file=",
        "--log (no value) writes every engine's protocol traffic under <out>/logs/",
    ),
];

/// Rewrites `args` (the program's name first) for `command`, bt-arena's whole command line:
/// see the module documentation.
///
/// # Errors
/// A [`UsageError`] with a hint for a flag of cutechess-cli or fastchess that bt-arena does
/// not have, for fastchess's `-config file=X` and `-log file=X`, and for a tournament's flags
/// given before any subcommand (cutechess-cli has none).
pub fn rewrite(command: &clap::Command, args: Vec<OsString>) -> Result<Rewritten, UsageError> {
    // No form is deprecated today; a note of one goes here.
    let notes = Vec::new();
    let mut out = Vec::with_capacity(args.len());
    let mut words = args.into_iter();
    out.extend(words.next());
    let mut current = command;
    let mut path = vec![command.get_name().to_string()];
    while let Some(word) = words.next() {
        let Some(text) = word.to_str().map(str::to_string) else {
            out.push(word);
            continue;
        };
        if text == "--" {
            out.push(word);
            out.extend(words.by_ref());
            break;
        }
        if !text.starts_with('-') {
            if let Some(sub) = current.find_subcommand(&text) {
                current = sub;
                path.push(sub.get_name().to_string());
            }
            out.push(word);
            continue;
        }
        let Some((name, inline)) = long_flag(&text) else {
            out.push(word);
            continue;
        };
        let single_dash = !text.starts_with("--");
        if path.len() == 1
            && let Some(hint) = before_subcommand(command, name, &text)
        {
            return Err(UsageError(hint));
        }
        let flag = match resolve(current, name, &path).map_err(|hint| {
            UsageError(format!(
                "{}: {hint}",
                text.split('=').next().unwrap_or(&text)
            ))
        })? {
            Some(flag) => flag,
            // Not bt-arena's, nor cutechess-cli's or fastchess's: named as typed.
            None if single_dash => {
                return Err(UsageError(format!(
                    "unknown flag '{}': `{}` has no --{name} (see its --help)",
                    text.split('=').next().unwrap_or(&text),
                    path.join(" ")
                )));
            }
            None => {
                out.push(word);
                continue;
            }
        };
        if let Some(&(_, prefix, hint)) = FOREIGN_VALUES.iter().find(|(f, _, _)| *f == flag) {
            let value = inline.map(str::to_string).or_else(|| {
                words
                    .as_slice()
                    .first()
                    .and_then(|w| w.to_str())
                    .map(String::from)
            });
            if value.is_some_and(|v| v.starts_with(prefix)) {
                return Err(UsageError(format!("'{text} {prefix}...': {hint}")));
            }
        }
        match KEY_LISTS.iter().find(|(f, _)| *f == flag) {
            Some(&(_, keys)) => {
                let mut list = match inline {
                    Some(value) => value.to_string(),
                    None => match words.as_slice().first().and_then(|w| w.to_str()) {
                        Some(value) if !value.starts_with('-') => {
                            let value = value.to_string();
                            words.next();
                            value
                        }
                        _ => {
                            out.push(format!("--{flag}").into());
                            continue;
                        }
                    },
                };
                // Joined silently: fastchess's form, what users of the field type.
                while let Some(next) = words.as_slice().first().and_then(|w| w.to_str()) {
                    if !is_key_word(next, keys) {
                        break;
                    }
                    list.push(',');
                    list.push_str(next);
                    words.next();
                }
                out.push(format!("--{flag}").into());
                out.push(list.into());
            }
            None => out.push(
                match inline {
                    Some(value) => format!("--{flag}={value}"),
                    None => format!("--{flag}"),
                }
                .into(),
            ),
        }
    }
    Ok(Rewritten { args: out, notes })
}

/// The name and inline value of a long flag, `--name[=value]` or `-name[=value]`: a name of
/// two characters or more starting with a letter (so `-h`, `-5` and `-` are not).
fn long_flag(text: &str) -> Option<(&str, Option<&str>)> {
    let body = text.strip_prefix("--").or_else(|| text.strip_prefix('-'))?;
    let (name, value) = match body.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (body, None),
    };
    let mut chars = name.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.len() >= 2
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    well_formed.then_some((name, value))
}

/// bt-arena's long flag for `name` in `command` (the subcommand at `path`): its own flag, or
/// the flag a cutechess-cli or fastchess name stands for; `None` when it is neither.
///
/// # Errors
/// The hint for a flag of theirs bt-arena does not have.
fn resolve(command: &clap::Command, name: &str, path: &[String]) -> Result<Option<String>, String> {
    let has = |flag: &str| {
        command.get_arguments().any(|arg| {
            arg.get_long() == Some(flag)
                || arg
                    .get_all_aliases()
                    .is_some_and(|aliases| aliases.contains(&flag))
        }) || matches!(flag, "help" | "version") && flag_is_builtin(command, flag)
    };
    if has(name) {
        return Ok(Some(name.to_string()));
    }
    let lowered = name.to_ascii_lowercase();
    match FOREIGN.iter().find(|(foreign, _)| *foreign == lowered) {
        Some((_, Foreign::Renamed(flag))) if has(flag) => Ok(Some((*flag).to_string())),
        Some((_, Foreign::Renamed(flag))) => Err(format!("`{}` has no --{flag}", path.join(" "))),
        Some((_, Foreign::Hint(hint))) => Err((*hint).to_string()),
        None => Ok(None),
    }
}

/// Whether clap gives `command` its `--help` or `--version`.
fn flag_is_builtin(command: &clap::Command, flag: &str) -> bool {
    match flag {
        "help" => !command.is_disable_help_flag_set(),
        _ => command.get_version().is_some() && !command.is_disable_version_flag_set(),
    }
}

/// The hint for a tournament's flag (or a cutechess-cli one) `name`, written `given`, given
/// before any subcommand: cutechess-cli's command line is a tournament's.
fn before_subcommand(command: &clap::Command, name: &str, given: &str) -> Option<String> {
    let tournament = command.find_subcommand("tournament")?;
    let lowered = name.to_ascii_lowercase();
    let known = tournament
        .get_arguments()
        .any(|arg| arg.get_long() == Some(name))
        || FOREIGN.iter().any(|(foreign, _)| *foreign == lowered);
    (known && !matches!(name, "help" | "version")).then(|| {
        format!(
            "{} before a subcommand: a tournament is `bt-arena tournament` followed by its \
             flags, e.g. bt-arena tournament -engine cmd=./a -engine cmd=./b -each tc=10+0.1 \
             -rounds 100 (bt-arena --help lists the subcommands)",
            given.split('=').next().unwrap_or(given)
        )
    })
}

/// Whether `word` is `KEY=VALUE` with KEY one of `keys`, and no file of that name.
fn is_key_word(word: &str, keys: &[&str]) -> bool {
    word.split_once('=')
        .is_some_and(|(key, _)| keys.contains(&key))
        // A file of that name (`elo --sprt elo0=0 elo1=5 alpha=0.1`, a games file) is an input.
        && !std::path::Path::new(word).exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction, Command};

    /// A command line shaped like bt-arena's: a tournament, an elo with files, a nested
    /// subcommand.
    fn cli() -> Command {
        let flag = |name: &'static str| Arg::new(name).long(name);
        Command::new("bt-arena")
            .version("1")
            .subcommand(
                Command::new("tournament")
                    .arg(flag("engine").num_args(1..).action(ArgAction::Append))
                    .arg(flag("each").num_args(1..))
                    .arg(flag("rounds"))
                    .arg(flag("seed"))
                    .arg(flag("format"))
                    .arg(flag("sprt"))
                    .arg(flag("resign"))
                    .arg(flag("config"))
                    .arg(flag("log").action(ArgAction::SetTrue))
                    .arg(flag("pgn-comments")),
            )
            .subcommand(
                Command::new("elo")
                    .arg(flag("sprt"))
                    .arg(Arg::new("inputs").num_args(1..)),
            )
            .subcommand(
                Command::new("openings")
                    .subcommand(Command::new("generate").arg(flag("search-depth").alias("depth"))),
            )
    }

    fn run(line: &str) -> Result<(String, Vec<String>), String> {
        let args = line.split(' ').map(OsString::from).collect();
        rewrite(&cli(), args)
            .map(|r| {
                let words: Vec<String> = r
                    .args
                    .iter()
                    .map(|w| w.to_string_lossy().into_owned())
                    .collect();
                (words.join(" "), r.notes)
            })
            .map_err(|e| e.0)
    }

    fn same(line: &str) -> String {
        run(line).unwrap().0
    }

    #[test]
    fn single_dash_long_flags_are_the_subcommands_own() {
        assert_eq!(
            same(
                "bt-arena tournament -engine cmd=a name=a -engine cmd=b -each tc=0:10+0.1 -rounds 10"
            ),
            "bt-arena tournament --engine cmd=a name=a --engine cmd=b --each tc=0:10+0.1 --rounds 10"
        );
        assert_eq!(
            same("bt-arena openings generate -depth 3"),
            "bt-arena openings generate --depth 3"
        );
        // bt-arena's own spelling, short flags, numbers and `-` are left alone.
        for line in [
            "bt-arena tournament --engine cmd=a --rounds 10 -h",
            "bt-arena elo -- -rounds",
            "bt-arena elo - -5",
            "bt-arena -V",
        ] {
            assert_eq!(same(line), line);
        }
        // Not a flag of the subcommand: refused as typed.
        assert_eq!(
            run("bt-arena elo -frobnicate x").unwrap_err(),
            "unknown flag '-frobnicate': `bt-arena elo` has no --frobnicate (see its --help)"
        );
        assert_eq!(
            same("bt-arena tournament -help"),
            "bt-arena tournament --help"
        );
    }

    #[test]
    fn their_names_are_renamed_or_refused_with_a_hint() {
        assert_eq!(
            same("bt-arena tournament -srand 7 -tournament gauntlet"),
            "bt-arena tournament --seed 7 --format gauntlet"
        );
        assert_eq!(
            run("bt-arena tournament --pgnout games.pgn"),
            Err(
                "--pgnout: bt-arena writes every game to games.pgn (and games.csv) in the \
                 results directory: give it with --out DIR (--pgn-comments says what move \
                 comments hold)"
                    .to_string()
            )
        );
        assert_eq!(
            run("bt-arena tournament -draw movenumber=40 movecount=8 score=10"),
            Err("-draw: Breakthrough has no draws: every game ends in a win".to_string())
        );
        assert_eq!(
            run("bt-arena tournament -ratinginterval 10"),
            Err("-ratinginterval: `bt-arena tournament` has no --rating-interval".to_string())
        );
        assert_eq!(
            run("bt-arena tournament -config file=fastchess.json"),
            Err(
                "'-config file=...': bt-arena's --config FILE reads its own TOML or JSON (the \
                 fields of a run's config.json), not fastchess's; --resume DIR continues an \
                 interrupted run"
                    .to_string()
            )
        );
        assert_eq!(
            same("bt-arena tournament -config run.toml -log"),
            "bt-arena tournament --config run.toml --log"
        );
    }

    #[test]
    fn key_lists_as_separate_words_are_joined_silently() {
        assert_eq!(
            run("bt-arena tournament --sprt elo0=0,elo1=5 --rounds 2"),
            Ok((
                "bt-arena tournament --sprt elo0=0,elo1=5 --rounds 2".to_string(),
                vec![]
            ))
        );
        let (line, notes) =
            run("bt-arena elo --sprt elo0=0 elo1=5 alpha=0.1 games.csv elo0=x.csv").unwrap();
        assert_eq!(
            line,
            "bt-arena elo --sprt elo0=0,elo1=5,alpha=0.1 games.csv elo0=x.csv"
        );
        // fastchess's form, taken without a note (issue 39).
        assert_eq!(notes, Vec::<String>::new());
        assert_eq!(
            same("bt-arena tournament -resign movecount=3 score=400 -sprt=elo0=0 elo1=5"),
            "bt-arena tournament --resign movecount=3,score=400 --sprt elo0=0,elo1=5"
        );
        // An unknown key ends the list: it is the next word (a file to elo).
        assert_eq!(
            same("bt-arena elo --sprt elo0=0 gamma=1"),
            "bt-arena elo --sprt elo0=0 gamma=1"
        );
        // No value: clap says so.
        assert_eq!(same("bt-arena elo --sprt"), "bt-arena elo --sprt");
    }

    #[test]
    fn a_tournament_without_its_subcommand_gets_a_hint() {
        let hint = run("bt-arena -engine cmd=a -engine cmd=b").unwrap_err();
        assert!(
            hint.starts_with("-engine before a subcommand: a tournament is `bt-arena tournament`"),
            "{hint}"
        );
        assert!(
            run("bt-arena -pgnout x")
                .unwrap_err()
                .starts_with("-pgnout before")
        );
        assert_eq!(same("bt-arena -version"), "bt-arena --version");
    }
}
