//! `bt-arena generate`: man pages and shell completions, generated from the same flag
//! definitions as `--help` (clap_mangen, clap_complete), as ripgrep does with `rg --generate`.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use clap_complete::Shell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `bt-arena generate`.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    #[command(subcommand)]
    what: What,
}

/// What to generate.
#[derive(Subcommand, Debug)]
enum What {
    /// Write the man pages under DIR, as man expects them: DIR/man1/ and DIR/man5/.
    ///
    /// bt-arena(1) and one bt-arena-SUBCOMMAND(1) per subcommand in DIR/man1/, one page per
    /// file format (games.csv, config files, opening books, perft suites) in DIR/man5/. With
    /// DIR ~/.local/share/man (on man's path), `man bt-arena-tournament` and `man 5
    /// bt-arena-config` find them; elsewhere, `MANPATH=DIR man 5 bt-arena-config`.
    Man {
        /// The directory whose man1/ and man5/ get the pages (created if needed).
        #[arg(default_value = ".", value_name = "DIR")]
        dir: PathBuf,
    },
    /// Print a completion script for SHELL on stdout.
    ///
    /// E.g. `bt-arena generate completions bash >
    /// ~/.local/share/bash-completion/completions/bt-arena`.
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: Shell,
    },
}

/// The file formats' pages: (name, markdown source). The same text is in docs/formats/.
const FORMATS: [(&str, &str); 5] = [
    (
        "bt-arena-games.csv",
        include_str!("../../docs/formats/games-csv.md"),
    ),
    (
        "bt-arena-config",
        include_str!("../../docs/formats/config.md"),
    ),
    (
        "bt-arena-openings",
        include_str!("../../docs/formats/openings.md"),
    ),
    (
        "bt-arena-perft-suites",
        include_str!("../../docs/formats/perft-suites.md"),
    ),
    (
        "bt-arena-datagen",
        include_str!("../../docs/formats/datagen.md"),
    ),
];

/// Runs `bt-arena generate` for `command`, the whole command line's definition.
///
/// # Errors
/// A page that cannot be written (naming it).
pub fn run(args: &GenerateArgs, command: clap::Command) -> Result<ExitCode> {
    match &args.what {
        What::Man { dir } => {
            let written = write_man_pages(command, dir)?;
            say!(
                "{} man pages written to {} and {}",
                written.len(),
                dir.join("man1").display(),
                dir.join("man5").display()
            );
        }
        What::Completions { shell } => out!("{}", completions(*shell, command)),
    }
    Ok(ExitCode::SUCCESS)
}

/// The completion script of `command` for `shell`.
///
/// clap_complete's bash script spells the states of a hyphenated command (`bt-arena`) two
/// ways, `bt__arena__subcmd__tournament` where it walks the words and
/// `bt__subcmd__arena__subcmd__tournament` in the arms that complete them, so nothing past
/// the subcommand would complete (clap-rs/clap issue 6421): the arms are respelled as the
/// walk spells them. A no-op once clap_complete spells them alike.
///
/// In bash, the words of `--engine` and `--each` complete as engine keys (`cmd=`, `tc=`,
/// `nodes=`, ...: [`ENGINE_KEYS_BASH`]), where clap_complete would offer file names.
pub fn completions(shell: Shell, mut command: clap::Command) -> String {
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name.clone(), &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        Shell::Bash => {
            let script = script.replace(&name.replace('-', "__subcmd__"), &name.replace('-', "__"));
            // Every subcommand's arm looks at the word before the cursor in a `case`; the
            // engine keys are tried first.
            let hook = "            case \"${prev}\" in\n";
            let keys = ENGINE_KEYS_BASH.replace("KEYS", &bt_arena::engine::KEYS.join(" "));
            format!(
                "{keys}\n{}",
                script.replace(
                    hook,
                    &format!("            _bt_arena_engine_keys && return 0\n{hook}")
                )
            )
        }
        _ => script,
    }
}

/// The bash function that completes the words of `--engine` and `--each` (or cutechess-cli's
/// `-engine`, `-each`): a word with no `=` yet completes as an engine key (KEYS, with no space
/// after it), the value of `cmd=`, `dir=`, `src=` as a file name, of `proto=`, `moveorder=` and
/// `restart=` as their words. Status 1 when the word is not one of theirs. bash splits words at `=` too
/// (COMP_WORDBREAKS) when completing interactively: a value then comes after a word `=`.
const ENGINE_KEYS_BASH: &str = r#"# The words of --engine and --each: engine keys (bt-arena's addition to clap_complete's script).
_bt_arena_engine_keys() {
    local i key value
    for (( i = COMP_CWORD - 1; i > 1; i-- )); do
        case "${COMP_WORDS[i]}" in
            --engine|--each|-engine|-each) break ;;
            -*) return 1 ;;
        esac
    done
    (( i > 1 )) || return 1
    if [[ "${cur}" == "=" ]]; then
        key="${prev}"
        value=""
    elif [[ "${prev}" == "=" ]]; then
        key="${COMP_WORDS[COMP_CWORD-2]}"
        value="${cur}"
    elif [[ "${cur}" == *=* ]]; then
        key="${cur%%=*}"
        value="${cur#*=}"
    else
        COMPREPLY=( $(compgen -W "KEYS" -- "${cur}") )
        compopt -o nospace 2>/dev/null
        return 0
    fi
    case "${key}" in
        cmd|dir|src) COMPREPLY=( $(compgen -f -- "${value}") ) ;;
        proto) COMPREPLY=( $(compgen -W "ugi uci codingame" -- "${value}") ) ;;
        moveorder) COMPREPLY=( $(compgen -W "codingame sorted shuffled" -- "${value}") ) ;;
        restart) COMPREPLY=( $(compgen -W "on off" -- "${value}") ) ;;
        *) COMPREPLY=() ;;
    esac
    # Typed as one word (no break at =), the value keeps its key in front.
    if [[ "${cur}" == ?*=* ]]; then
        COMPREPLY=( "${COMPREPLY[@]/#/${key}=}" )
    fi
    return 0
}
"#;

/// Writes every man page under `dir`, section N's in `dir/manN/` (the layout `man` searches
/// under each directory of its path); returns their paths.
///
/// # Errors
/// A directory or page that cannot be written.
pub fn write_man_pages(command: clap::Command, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut write = |name: &str, section: &str, text: Vec<u8>| -> Result<()> {
        let section_dir = dir.join(format!("man{section}"));
        std::fs::create_dir_all(&section_dir)
            .with_context(|| format!("cannot create {}", section_dir.display()))?;
        let path = section_dir.join(format!("{name}.{section}"));
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        Ok(())
    };
    let mut command = command.version(env!("CARGO_PKG_VERSION"));
    // Built, the subcommands know the words that call them (`bt-arena tournament`).
    command.build();
    let top = command.get_name().to_string();
    write(&top, "1", render(&command)?)?;
    // Built, clap adds its `help` subcommand, which has no page of its own.
    for sub in command
        .get_subcommands()
        .filter(|sub| sub.get_name() != "help")
    {
        let name = format!("{top}-{}", sub.get_name());
        // The synopsis is the command as typed, as its -h gives it (`bt-arena tournament
        // [OPTIONS]`), not the page's name with every flag valueless.
        let usage = sub.clone().render_usage().to_string();
        let usage = usage.trim().trim_start_matches("Usage:").trim().to_string();
        let sub = sub
            .clone()
            .name(name.clone())
            .override_usage(usage)
            .version(env!("CARGO_PKG_VERSION"));
        write(&name, "1", render(&sub)?)?;
    }
    for (name, markdown) in FORMATS {
        let page = without_code_ticks(&mandown::convert(markdown, name, 5));
        write(name, "5", page.into_bytes())?;
    }
    Ok(written)
}

/// `roff` without the backticks mandown leaves around inline code, which it also sets in
/// the code font (`` `\f[CR]config.json\fP` ``): a man page showed them as they are written
/// in the markdown.
fn without_code_ticks(roff: &str) -> String {
    roff.replace("`\\f[CR]", "\\f[CR]").replace("\\fP`", "\\fP")
}

/// The man page of `command`.
fn render(command: &clap::Command) -> Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .context("cannot render a man page")?;
    Ok(page)
}
