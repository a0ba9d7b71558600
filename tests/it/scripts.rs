//! `scripts/test`, the README's test command, as a user who is not root runs it: on a machine
//! missing what the ignored tests need, it prints the two commands to run with sudo (the
//! packages and the Slurm cluster) and exits 1 before running anything.

use std::path::Path;
use std::process::Command;

/// Runs `scripts/test` as a user who is not root (the user `nobody` through `runuser` when
/// the test runs as root), with `PATH` holding only `bin`: the programs the ignored tests need
/// are not found there (bash finds them only in the sbin directories it adds), as on a
/// machine without them. `bin` holds a `cargo` that leaves `ran` behind, so that running
/// anything shows.
// See: issue 28 (the README's `cargo test -- --include-ignored` failed on a fresh machine, and
// the fix was named nowhere near it).
#[test]
fn scripts_test_not_as_root_prints_the_set_up_and_runs_nothing() {
    let dir = tempfile::Builder::new()
        .prefix("bt-arena-scripts-test")
        .tempdir()
        .unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let ran = dir.path().join("ran");
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, format!("#!/bin/sh\n: > '{}'\n", ran.display())).unwrap();
    // Readable and writable by nobody: the directory, and the fake cargo executable.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test");
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    // Found on this PATH: the command's own PATH is bin only.
    let runuser = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|dir| dir.join("runuser"))
        .find(|path| path.is_file());
    let mut command = match root {
        true => {
            let mut runuser =
                Command::new(runuser.expect("runuser (util-linux), to run as nobody"));
            runuser.args(["-u", "nobody", "--", "/bin/bash"]);
            runuser
        }
        false => Command::new("/bin/bash"),
    };
    let output = command
        .arg(&script)
        .arg("--test")
        .arg("it")
        .env_clear()
        .env("PATH", &bin)
        .env("HOME", dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("bash (and runuser, as root) run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}\n{stderr}");
    // The packages whose programs live outside the sbin directories, at least.
    let install = lines[0]
        .strip_prefix("sudo apt-get install -y ")
        .unwrap_or_else(|| panic!("{stdout}"));
    for package in ["git", "chromium", "man-db", "groff"] {
        assert!(
            install.split(' ').any(|word| word == package),
            "{package}: {stdout}"
        );
    }
    assert_eq!(lines[1], "sudo scripts/slurm/cluster-up.sh");
    assert!(
        stderr.starts_with("scripts/test: the ignored tests need what only root can set up"),
        "{stderr}"
    );
    assert!(!ran.exists(), "scripts/test ran cargo:\n{stdout}\n{stderr}");
}
