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
    /// Write the man pages into DIR.
    ///
    /// bt-arena(1), one bt-arena-SUBCOMMAND(1) per subcommand, and one page per file format
    /// (games.csv, config files, opening books, perft suites, section 5). View one with
    /// `man -l DIR/bt-arena-tournament.1`.
    Man {
        /// The directory to write the pages into (created if needed).
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
const FORMATS: [(&str, &str); 4] = [
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
];

/// Runs `bt-arena generate` for `command`, the whole command line's definition.
///
/// # Errors
/// A page that cannot be written (naming it).
pub fn run(args: &GenerateArgs, command: clap::Command) -> Result<ExitCode> {
    match &args.what {
        What::Man { dir } => {
            let written = write_man_pages(command, dir)?;
            println!("{} man pages written to {}", written.len(), dir.display());
        }
        What::Completions { shell } => print!("{}", completions(*shell, command)),
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
pub fn completions(shell: Shell, mut command: clap::Command) -> String {
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name.clone(), &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        Shell::Bash => script.replace(&name.replace('-', "__subcmd__"), &name.replace('-', "__")),
        _ => script,
    }
}

/// Writes every man page into `dir`; returns their paths.
///
/// # Errors
/// A directory or page that cannot be written.
pub fn write_man_pages(command: clap::Command, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    let mut write = |name: &str, section: &str, text: Vec<u8>| -> Result<()> {
        let path = dir.join(format!("{name}.{section}"));
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        Ok(())
    };
    let command = command.version(env!("CARGO_PKG_VERSION"));
    let top = command.get_name().to_string();
    write(&top, "1", render(&command)?)?;
    for sub in command.get_subcommands() {
        let name = format!("{top}-{}", sub.get_name());
        let sub = sub
            .clone()
            .name(name.clone())
            .version(env!("CARGO_PKG_VERSION"));
        write(&name, "1", render(&sub)?)?;
    }
    for (name, markdown) in FORMATS {
        write(name, "5", mandown::convert(markdown, name, 5).into_bytes())?;
    }
    Ok(written)
}

/// The man page of `command`.
fn render(command: &clap::Command) -> Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .context("cannot render a man page")?;
    Ok(page)
}
