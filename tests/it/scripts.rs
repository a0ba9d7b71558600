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
    let (bin, ran) = fake_cargo(dir.path());
    // Readable and writable by nobody: the directory, and the fake cargo executable.
    use std::os::unix::fs::PermissionsExt;
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

/// `dir/bin` holding a `cargo` that leaves `dir/ran` behind, so that running anything shows;
/// both paths.
fn fake_cargo(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let ran = dir.join("ran");
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, format!("#!/bin/sh\n: > '{}'\n", ran.display())).unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin, ran)
}

/// Runs `script` (relative to the crate) with bash and `args`, `SLURM_CONF` set to `conf`, as
/// the user `nobody` when the test runs as root (so that nothing of the system can change),
/// with the system's PATH.
fn slurm_script(script: &str, args: &[&str], conf: &Path) -> std::process::Output {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let mut command = match root {
        true => {
            let mut runuser = Command::new("runuser");
            runuser.args(["-u", "nobody", "--", "/bin/bash"]);
            runuser
        }
        false => Command::new("/bin/bash"),
    };
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
        .args(args)
        .env("SLURM_CONF", conf)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("bash runs")
}

/// A directory anyone may write (the scripts run as nobody), holding a slurm.conf that is
/// not bt-arena's.
fn foreign_conf() -> (tempfile::TempDir, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let conf = dir.path().join("slurm.conf");
    std::fs::write(&conf, "ClusterName=theirs\nSlurmctldHost=head\n").unwrap();
    std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o666)).unwrap();
    (dir, conf)
}

/// cluster-up.sh says what it will write, keep and start before it does any of it: run
/// without root's rights, it says so and stops there, the slurm.conf that is not bt-arena's
/// untouched; `--dry-run` says the same and does nothing. The kept copy is named beside it.
// See: issue 39, item 3 (scripts/test overwrote /etc/slurm/slurm.conf with no backup, and said
// what it did only afterwards).
#[test]
fn cluster_up_says_first_that_it_keeps_a_slurm_conf_not_ours() {
    let (_dir, conf) = foreign_conf();
    let before = std::fs::read_to_string(&conf).unwrap();
    let keep = format!(
        "keep {0}, which is not bt-arena's, as {0}.bt-arena-backup-",
        conf.display()
    );
    let write = format!(
        "write {} (bt-arena's one-node cluster, from scripts/slurm/slurm.conf)",
        conf.display()
    );
    let dry = slurm_script("scripts/slurm/cluster-up.sh", &["--dry-run"], &conf);
    let text = String::from_utf8_lossy(&dry.stdout);
    assert_eq!(
        dry.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(&format!("cluster-up: would {keep}")),
        "{text}"
    );
    assert_eq!(lines[1], format!("cluster-up: would {write}"), "{text}");
    let real = slurm_script("scripts/slurm/cluster-up.sh", &[], &conf);
    let text = String::from_utf8_lossy(&real.stdout);
    let stderr = String::from_utf8_lossy(&real.stderr);
    assert_eq!(real.status.code(), Some(1), "{text}{stderr}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(&format!("cluster-up: will {keep}")),
        "{text}"
    );
    assert_eq!(lines[1], format!("cluster-up: will {write}"), "{text}");
    assert!(
        stderr.starts_with("cluster-up: error: run as root"),
        "{stderr}"
    );
    // Nothing was done: the file is as it was, and no copy was made.
    assert_eq!(std::fs::read_to_string(&conf).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(conf.parent().unwrap()).unwrap().count(),
        1
    );
}

/// A slurm.conf that is bt-arena's (an older one) is replaced without a copy kept; and
/// cluster-down.sh puts the kept copy back, saying so first.
#[test]
fn cluster_down_puts_the_kept_slurm_conf_back() {
    let (dir, conf) = foreign_conf();
    std::fs::write(&conf, "ClusterName=btarena\nSlurmctldHost=localhost\n").unwrap();
    let dry = slurm_script("scripts/slurm/cluster-up.sh", &["--dry-run"], &conf);
    let text = String::from_utf8_lossy(&dry.stdout);
    assert!(!text.contains("keep"), "{text}");
    assert!(
        text.starts_with(&format!("cluster-up: would write {} ", conf.display())),
        "{text}"
    );
    let kept = dir
        .path()
        .join("slurm.conf.bt-arena-backup-20261205-120000");
    std::fs::write(&kept, "ClusterName=theirs\n").unwrap();
    let down = slurm_script("scripts/slurm/cluster-down.sh", &["--dry-run"], &conf);
    let text = String::from_utf8_lossy(&down.stdout);
    assert_eq!(down.status.code(), Some(0), "{text}");
    assert!(
        text.lines().any(|line| line
            == format!(
                "cluster-down: would put {} back as {}",
                kept.display(),
                conf.display()
            )),
        "{text}"
    );
    assert!(kept.exists());
}

/// `scripts/test --dry-run` says what it would install, write and start, and runs nothing
/// (not cargo either).
#[test]
fn scripts_test_dry_run_says_what_it_would_do_and_does_nothing() {
    let (dir, conf) = foreign_conf();
    let (bin, ran) = fake_cargo(dir.path());
    let output = Command::new("/bin/bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test"))
        .args(["--dry-run", "--test", "it"])
        .env("SLURM_CONF", &conf)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    // SAFETY: geteuid has no preconditions and cannot fail.
    match unsafe { libc::geteuid() } == 0 {
        true => {
            assert!(
                text.lines().all(|l| l.starts_with("scripts/test: would ")),
                "{text}"
            );
            assert!(
                text.contains(&format!(
                    "scripts/test: would keep {}, which is not bt-arena's",
                    conf.display()
                )),
                "{text}"
            );
        }
        false => assert!(text.starts_with("scripts/test: not root"), "{text}"),
    }
    assert!(!ran.exists(), "scripts/test --dry-run ran cargo");
    assert_eq!(
        std::fs::read_to_string(&conf).unwrap(),
        "ClusterName=theirs\nSlurmctldHost=head\n"
    );
}
