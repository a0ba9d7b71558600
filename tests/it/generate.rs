//! `bt-arena generate`: the man pages render in `man` without a warning, and the bash
//! completion script loads in bash and completes subcommands and flags.

use std::path::Path;
use std::process::Command;

use crate::util::bt_arena;

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The man pages bt-arena writes: one per subcommand and one per file format.
const PAGES: [&str; 16] = [
    "bt-arena.1",
    "bt-arena-bench.1",
    "bt-arena-check-engine.1",
    "bt-arena-config.5",
    "bt-arena-elo.1",
    "bt-arena-games.csv.5",
    "bt-arena-generate.1",
    "bt-arena-merge.1",
    "bt-arena-openings.1",
    "bt-arena-openings.5",
    "bt-arena-perft-check.1",
    "bt-arena-perft-suites.5",
    "bt-arena-perft.1",
    "bt-arena-report.1",
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
        format!("16 man pages written to {}\n", out.display())
    );
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = PAGES.iter().map(|p| p.to_string()).collect();
    expected.sort();
    assert_eq!(written, expected);
    for page in PAGES {
        let rendered = man(&out.join(page));
        let (name, section) = page.rsplit_once('.').unwrap();
        assert!(
            rendered.starts_with(&format!("{name}({section})")),
            "{page}:\n{rendered}"
        );
        assert!(rendered.contains("NAME\n"), "{page}:\n{rendered}");
    }
    let tournament = man(&out.join("bt-arena-tournament.1"));
    assert!(tournament.contains("--shard"), "{tournament}");
    let games = man(&out.join("bt-arena-games.csv.5"));
    assert!(games.contains("move_info"), "{games}");
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
        "--concurrency --config"
    );
    assert_eq!(complete("bt-arena elo --sp"), "--sprt");
    assert_eq!(complete("bt-arena generate completions z"), "zsh");
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
