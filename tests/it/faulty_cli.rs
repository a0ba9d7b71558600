//! The command line of the faulty test engine bt-faulty: its help lists every fault with what it
//! does, a fault it does not know is refused with the valid ones, and the fault may come from
//! the environment.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::util::FAULTY;

/// Runs bt-faulty with `args` and `env` (name, value), writing `input` to its stdin.
fn bt_faulty(args: &[&str], env: &[(&str, &str)], input: &str) -> Output {
    let mut child = Command::new(FAULTY)
        .args(args)
        .env_remove("BT_FAULTY_FAULT")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bt-faulty starts");
    let mut stdin = child.stdin.take().expect("a stdin pipe");
    // An engine that exits at once closes the pipe: that write may fail.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("bt-faulty ends")
}

#[test]
fn help_lists_every_fault_with_what_it_does() {
    let output = bt_faulty(&["--help"], &[], "");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let help = String::from_utf8(output.stdout).unwrap();
    for line in [
        "- none: ",
        "- crash-mid-game: ",
        "Exits with status 2 on the `go` after `--after N` moves",
        "- perft-missing-edge-capture: ",
        "Its perft misses captures from or onto the a- and h-files",
        "[env: BT_FAULTY_FAULT=]",
        "--delay-ms <MS>",
    ] {
        assert!(help.contains(line), "{line:?} in {help}");
    }
    // Every fault the short help names has its line in the long help.
    let short = String::from_utf8(bt_faulty(&["-h"], &[], "").stdout).unwrap();
    // The list may be wrapped over lines.
    let short = short.split_whitespace().collect::<Vec<_>>().join(" ");
    let names = short
        .split_once("[possible values: ")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(names, _)| names.split(", ").collect::<Vec<_>>())
        .expect("-h lists the possible faults");
    assert!(names.len() >= 16, "{names:?}");
    for name in names {
        assert!(help.contains(&format!("- {name}: ")), "{name} in {help}");
    }
}

#[test]
fn an_unknown_fault_is_refused_with_the_valid_ones() {
    let output = bt_faulty(&["--fault", "nonsense"], &[], "");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("invalid value 'nonsense' for '--fault <FAULT>'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[possible values: none, exit-at-start, no-ugiok, "),
        "{stderr}"
    );
    let output = bt_faulty(&["--after", "three"], &[], "");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[test]
fn the_fault_comes_from_the_environment_unless_the_flag_names_one() {
    let env = [("BT_FAULTY_FAULT", "exit-at-start")];
    let output = bt_faulty(&[], &env, "");
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("exiting at start as asked"));

    let output = bt_faulty(&["--fault", "slow", "--delay-ms", "1"], &env, "ugi\nquit\n");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("id name bt-faulty (slow)\n"), "{stdout}");
    assert!(stdout.ends_with("ugiok\n"), "{stdout}");
}
