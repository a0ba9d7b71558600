//! `bt-arena generate`: the man pages render in `man` without a warning, and the bash
//! completion script loads in bash and completes subcommands and flags.

use std::path::Path;
use std::process::Command;

use crate::util::bt_arena;

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The man pages bt-arena writes: one per subcommand and one per file format.
const PAGES: [&str; 22] = [
    "bt-arena.1",
    "bt-arena-bench.1",
    "bt-arena-check-engine.1",
    "bt-arena-config.5",
    "bt-arena-datagen.1",
    "bt-arena-datagen.5",
    "bt-arena-elo.1",
    "bt-arena-games.csv.5",
    "bt-arena-generate.1",
    "bt-arena-merge.1",
    "bt-arena-openings.1",
    "bt-arena-openings.5",
    "bt-arena-perft-check.1",
    "bt-arena-perft-suites.5",
    "bt-arena-perft.1",
    "bt-arena-prove.1",
    "bt-arena-report.1",
    "bt-arena-select.1",
    "bt-arena-solve.1",
    "bt-arena-sprt.1",
    "bt-arena-tournament.1",
    "bt-arena-tune.1",
];

#[test]
#[ignore = "needs man and groff (apt-get install man-db groff)"]
fn every_man_page_renders_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man");
    let output = bt_arena(&args(&["generate", "man", out.to_str().unwrap()]));
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "22 man pages written to {} and {}\n",
            out.join("man1").display(),
            out.join("man5").display()
        )
    );
    // Section N's pages in manN/, as man looks for them (see: issue 28, where the section-5
    // pages went into the man1/ given, and `man 5 bt-arena-config` found nothing).
    let mut written: Vec<String> = ["man1", "man5"]
        .iter()
        .flat_map(|section| {
            std::fs::read_dir(out.join(section))
                .unwrap()
                .map(move |entry| {
                    format!("{section}/{}", entry.unwrap().file_name().to_string_lossy())
                })
        })
        .collect();
    written.sort();
    let mut expected: Vec<String> = PAGES
        .iter()
        .map(|page| format!("man{}/{page}", page.rsplit_once('.').unwrap().1))
        .collect();
    expected.sort();
    assert_eq!(written, expected);
    for page in PAGES {
        let (name, section) = page.rsplit_once('.').unwrap();
        let rendered = man(&out.join(format!("man{section}")).join(page));
        assert!(
            rendered.starts_with(&format!("{name}({section})")),
            "{page}:\n{rendered}"
        );
        assert!(rendered.contains("NAME\n"), "{page}:\n{rendered}");
    }
    let tournament = man(&out.join("man1/bt-arena-tournament.1"));
    assert!(tournament.contains("--shard"), "{tournament}");
    let games = man(&out.join("man5/bt-arena-games.csv.5"));
    assert!(games.contains("move_info"), "{games}");
    // man finds them by name under the directory given, as under ~/.local/share/man.
    let found = Command::new("man")
        .args(["5", "bt-arena-config"])
        .env("MANPATH", &out)
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .output()
        .expect("man runs");
    assert!(
        found.status.success(),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    assert!(String::from_utf8_lossy(&found.stdout).contains("bt-arena-config"));
}

/// A subcommand's synopsis is the command as typed, with its arguments' value names; the
/// table of engine keys keeps its alignment at 80 columns.
// See: issue 28 (the synopsis was `bt-arena-tournament [--engine] [--each] ...`, a command
// that does not exist with flags that take no values; the key table wrapped out of line).
#[test]
#[ignore = "needs man and groff (apt-get install man-db groff)"]
fn man_synopses_are_the_commands_and_the_engine_keys_stay_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man");
    let output = bt_arena(&args(&["generate", "man", out.to_str().unwrap()]));
    assert_eq!(output.status.code(), Some(0));
    let synopsis = |page: &str| -> String {
        let text = man(&out.join("man1").join(page));
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| *l == "SYNOPSIS").unwrap();
        lines[at + 1].trim().to_string()
    };
    assert_eq!(
        synopsis("bt-arena-tournament.1"),
        "bt-arena tournament [OPTIONS]"
    );
    assert_eq!(
        synopsis("bt-arena-merge.1"),
        "bt-arena merge [OPTIONS] <INPUT>..."
    );
    assert_eq!(
        synopsis("bt-arena-perft-check.1"),
        "bt-arena perft-check [OPTIONS] --engine <KEY=VALUE>..."
    );
    // Every line of the key table, as --help prints it, is a line of the page, indented
    // alike: nothing wrapped or filled.
    let help = bt_arena(&args(&["tournament", "--help"]));
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let table: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.contains("An engine, as KEY=VALUE words"))
        .take_while(|l| !l.contains("--each <KEY=VALUE>"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(table.len() > 30, "{help}");
    let page = man(&out.join("man1/bt-arena-tournament.1"));
    let indent = |line: &str| line.len() - line.trim_start().len();
    let first = page
        .lines()
        .find(|l| l.trim() == table[0].trim())
        .unwrap_or_else(|| panic!("{page}"));
    let shift = indent(first) as isize - indent(table[0]) as isize;
    for line in &table {
        let want = usize::try_from(indent(line) as isize + shift).unwrap();
        let expected = format!("{}{}", " ".repeat(want), line.trim());
        assert!(
            page.lines().any(|l| l.trim_end() == expected),
            "not a line of the page: {expected:?}\n{page}"
        );
    }
}

/// The page rendered by `man -l` at 80 columns; fails on any warning from man or groff.
fn man(page: &Path) -> String {
    let output = Command::new("man")
        .args(["--warnings", "-l"])
        .arg(page)
        .env("MANWIDTH", "80")
        .output()
        .expect("man runs");
    assert!(output.status.success(), "{}", page.display());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "",
        "warnings rendering {}",
        page.display()
    );
    // Bold and underline come as overstrikes (`N\x08N`): keep the letters.
    let text = String::from_utf8_lossy(&output.stdout);
    let mut plain = String::new();
    for c in text.chars() {
        if c == '\x08' {
            plain.pop();
        } else {
            plain.push(c);
        }
    }
    plain
}

#[test]
fn the_bash_completion_completes_subcommands_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bt-arena.bash");
    let output = bt_arena(&args(&["generate", "completions", "bash"]));
    assert_eq!(output.status.code(), Some(0));
    std::fs::write(&script, &output.stdout).unwrap();
    let complete = |words: &str| -> String {
        let words: Vec<&str> = words.split(' ').collect();
        let cword = words.len() - 1;
        let shell = format!(
            "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; _bt__arena bt-arena '{}' '{}'; \
             echo \"${{COMPREPLY[@]}}\"",
            script.display(),
            words.join(" "),
            words[cword],
            words[cword - 1]
        );
        let output = Command::new("bash").args(["-c", &shell]).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    };
    assert_eq!(complete("bt-arena tourn"), "tournament");
    assert_eq!(complete("bt-arena perft-c"), "perft-check");
    assert_eq!(
        complete("bt-arena tournament --con"),
        "--config --concurrency"
    );
    assert_eq!(complete("bt-arena elo --sp"), "--sprt");
    assert_eq!(complete("bt-arena generate completions z"), "zsh");
    // The words of --engine and --each are engine keys, not file names (see: issue 28).
    assert_eq!(complete("bt-arena tournament --engine cm"), "cmd=");
    assert_eq!(complete("bt-arena tournament --engine cmd=x na"), "name=");
    assert_eq!(
        complete("bt-arena tournament --engine cmd=x name=a t"),
        "tc= timemargin="
    );
    assert_eq!(complete("bt-arena tournament --each n"), "name= nodes=");
    assert_eq!(complete("bt-arena tune --engine cmd=x d"), "dir= depth=");
    assert_eq!(complete("bt-arena bench --engine src"), "src=");
    assert_eq!(
        complete("bt-arena check-engine --engine proto=u"),
        "proto=ugi proto=uci"
    );
    assert_eq!(
        complete("bt-arena tournament --engine restart=o"),
        "restart=on restart=off"
    );
    // Past another flag, the keys end.
    assert_eq!(
        complete("bt-arena tournament --engine cmd=x --rounds 3 n"),
        ""
    );
    assert_eq!(complete("bt-arena elo n"), "");
}

#[test]
fn other_shells_get_their_scripts() {
    for (shell, marker) in [
        ("zsh", "#compdef bt-arena"),
        ("fish", "complete -c bt-arena"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let output = bt_arena(&args(&["generate", "completions", shell]));
        assert_eq!(output.status.code(), Some(0), "{shell}");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains(marker),
            "{shell}"
        );
    }
    let output = bt_arena(&args(&["generate", "completions", "tcsh"]));
    assert_eq!(output.status.code(), Some(3));
}

/// The format pages (section 5) set inline code in the code font without the markdown's
/// backticks around it (they showed as `` `config.json` ``).
// See: issue 39, item 12.
#[test]
fn format_pages_show_no_markdown_backticks() {
    let dir = tempfile::tempdir().unwrap();
    let output = bt_arena(&["generate", "man", dir.path().to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    for page in PAGES.iter().filter(|page| page.ends_with(".5")) {
        let roff = std::fs::read_to_string(dir.path().join("man5").join(page)).unwrap();
        assert!(roff.contains("\\f[CR]"), "{page}: no code font");
        let ticks: Vec<&str> = roff
            .lines()
            .filter(|line| line.contains("`\\f[CR]") || line.contains("\\fP`"))
            .collect();
        assert!(ticks.is_empty(), "{page}: {ticks:#?}");
    }
}
