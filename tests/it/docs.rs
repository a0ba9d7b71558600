//! The docs, checked: every example in README.md, docs/**/*.md and benches/README.md is run, and
//! every relative link leads somewhere, so the docs cannot drift from what bt-arena does.
//!
//! An example is a fenced block of language `console`, written as a terminal shows it:
//!
//! - `$ COMMAND` runs COMMAND with `sh` (pipes, `$PWD`, `;` work); a line ending in `\`, or a
//!   next line starting with `>` (the shell's second prompt), continues it. The lines after it, up to the next `$`, are
//!   what it must print, stdout and stderr together as a terminal shows them. A line `...`
//!   stands for any number of lines (none included), `[..]` for any text within a line
//!   (times, seeds, temporary paths). A command must exit with 0: an example that shows
//!   another exit code says so in the shell, `bt-arena ...; echo "exit $?"`.
//! - ```` ```console,ignore ```` marks an example not run; its first line must say why:
//!   `# not run: needs a Slurm cluster`. The test counts them and lists the reasons.
//!
//! Each page's examples run in order in one session: a temporary directory holding copies of
//! the repository's inputs the docs name (`openings/`, `tests/perft/`, `engines/`,
//! `scripts/ci/`, `docs/bt-search-detuned.txt`) and an empty `results/`, as if run from the
//! repository's root (and what they leave there must be what `git status` does not show:
//! under `results/`, inputs unchanged), with
//! the binaries `cargo test` built (`bt-arena`, `bt-search`, `bt-random`, `bt-faulty`) first on
//! `PATH`, as `cargo install --path .` puts them, and `HOME` in the session (git's identity
//! for commits, bt-arena's build cache): nothing is written into the repository.
//!
//! Blocks of `sh` (or `bash`, `shell`) may hold only commands that build or test this
//! repository, `cargo` and `scripts/test` (the test itself runs under cargo); the README's test
//! command must be the one `.ci/run` runs, `scripts/test`, which runs every test. A block of any other language (`text`, `toml`, ...) must not hold a
//! `$ ` line: a command shown there would escape the test.
//!
//! Own code rather than trycmd: the sessions (the repository's inputs, `PATH`, `HOME`), the
//! not-run reasons and the counts are what this needs, and a block parser (pulldown-cmark, the
//! CommonMark parser mandown already uses) plus a line matcher is all the rest.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The crate's root: the docs' paths are relative to it.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The repository's inputs a session holds, copied (read-only for the docs' purposes).
const INPUTS: [&str; 5] = [
    "openings",
    "tests/perft",
    "engines",
    "scripts/ci",
    "docs/bt-search-detuned.txt",
];

/// The longest an example's command may take before the test kills it and fails: a guard
/// against a hang, far above what any example takes (the longest, a few seconds on a quiet
/// machine, took over a minute on one shared with two builds).
const COMMAND_LIMIT: Duration = Duration::from_secs(300);

/// One example command: where it is, what it runs, what it must print.
#[derive(Debug, Clone, PartialEq)]
struct Step {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// A fenced block the test looks at.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    /// A `console` block: commands run in order.
    Run { line: usize, steps: Vec<Step> },
    /// A `console,ignore` block, with the reason it is not run.
    NotRun { line: usize, reason: String },
    /// A `sh` block of cargo commands.
    Cargo { line: usize, commands: Vec<String> },
}

/// The blocks of a page, or what is wrong with them (`line N: ...`).
fn blocks(text: &str) -> Result<Vec<Block>, Vec<String>> {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut open: Option<(String, usize, String)> = None;
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                open = Some((info.to_string(), line_of(text, range.start), String::new()));
            }
            Event::Text(body) => {
                if let Some((_, _, content)) = &mut open {
                    content.push_str(&body);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((info, line, content)) = open.take() {
                    match block(&info, line, &content) {
                        Ok(Some(block)) => found.push(block),
                        Ok(None) => {}
                        Err(problem) => problems.push(format!("line {line}: {problem}")),
                    }
                }
            }
            _ => {}
        }
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems)
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// The block of a fence with info string `info` starting at `line` (the fence's line), or
/// `None` for a block that shows no command.
fn block(info: &str, line: usize, content: &str) -> Result<Option<Block>, String> {
    let mut words = info.split([',', ' ']).filter(|word| !word.is_empty());
    let language = words.next().unwrap_or("");
    let flags: Vec<&str> = words.collect();
    match language {
        "console" if flags.contains(&"ignore") => {
            let first = content.lines().next().unwrap_or("");
            match first.strip_prefix("# not run:").map(str::trim) {
                Some(reason) if is_allowed_reason(reason) => Ok(Some(Block::NotRun {
                    line,
                    reason: reason.to_string(),
                })),
                Some(reason) if !reason.is_empty() => Err(format!(
                    "`# not run: {reason}` is not a reason to leave an example out; the \
                     reasons are: {}",
                    NOT_RUN_REASONS.join("; ")
                )),
                _ => Err(format!(
                    "an example marked not run must say why on its first line, \
                     `# not run: REASON`; it begins {first:?}"
                )),
            }
        }
        "console" => steps(line, content).map(|steps| Some(Block::Run { line, steps })),
        "sh" | "bash" | "shell" => {
            let commands = joined(content);
            match commands.iter().find(|command| !is_cargo(command)) {
                Some(other) => Err(format!(
                    "`{other}` in a {language} block: only cargo commands and scripts/test \
                     may go there; show it in a console block (run, or marked not run with the \
                     reason)"
                )),
                None => Ok(Some(Block::Cargo { line, commands })),
            }
        }
        _ => match content.lines().find(|text| text.starts_with("$ ")) {
            Some(command) => Err(format!(
                "`{command}` in a {language:?} block would never run: \
                 make it a console block"
            )),
            None => Ok(None),
        },
    }
}

/// The reasons an example may be left out of the run, as its `# not run:` line gives them:
/// what the session cannot have, or a cost no test run can pay. Anything else is run.
const NOT_RUN_REASONS: [&str; 4] = [
    "needs ...: something outside the session (a cluster, other machines, an outside program, \
     the reader's own engine or repository)",
    "N games ... minutes (or hours): longer than a test run",
    "clones and builds ...: the network and a compiler",
    "cargo test inside cargo test",
];

/// Whether `reason` is one of [`NOT_RUN_REASONS`].
fn is_allowed_reason(reason: &str) -> bool {
    let games = reason.split_once(" games").is_some_and(|(count, _)| {
        !count.is_empty() && count.chars().all(|c| c.is_ascii_digit() || c == ',')
    });
    let long = reason.contains("minute") || reason.contains("hour");
    (reason.starts_with("needs ") && reason.len() > "needs ".len())
        || (games && long)
        || reason.starts_with("clones and builds ")
        || reason == "cargo test inside cargo test"
}

/// The commands of a shell block: comment and blank lines dropped, `\` continuations joined.
fn joined(content: &str) -> Vec<String> {
    let mut commands: Vec<String> = Vec::new();
    let mut continued = false;
    for text in content.lines() {
        let text = text.trim();
        if continued {
            if let Some(last) = commands.last_mut() {
                last.push(' ');
                last.push_str(text.trim_end_matches('\\').trim());
            }
        } else if !text.is_empty() && !text.starts_with('#') {
            commands.push(text.trim_end_matches('\\').trim().to_string());
        }
        continued = text.ends_with('\\');
    }
    commands
}

/// A command that runs cargo (after `NAME=VALUE` environment settings), itself or through
/// `scripts/test`.
fn is_cargo(command: &str) -> bool {
    command
        .split_whitespace()
        .find(|word| !word.contains('='))
        .is_some_and(|word| word == "cargo" || word == "scripts/test")
}

/// The commands of a console block starting at `line`, each with its expected output.
fn steps(line: usize, content: &str) -> Result<Vec<Step>, String> {
    let mut steps: Vec<Step> = Vec::new();
    let mut continues = false;
    for (index, text) in content.lines().enumerate() {
        let number = line + 1 + index;
        let prompt = (text == ">" || text.starts_with("> "))
            && steps.last().is_some_and(|step| step.expected.is_empty());
        if continues || prompt {
            let step = steps.last_mut().expect("a command to continue");
            step.command.push('\n');
            step.command.push_str(if continues {
                text
            } else {
                text[1..].trim_start()
            });
        } else if let Some(command) = text.strip_prefix("$ ") {
            steps.push(Step {
                line: number,
                command: command.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(text.trim_end().to_string());
        } else {
            return Err(format!(
                "line {number}: output {text:?} before any `$ ` command (a block marked \
                 not run is ```console,ignore)"
            ));
        }
        continues =
            steps.last().is_some_and(|step| step.expected.is_empty()) && text.ends_with('\\');
    }
    if steps.is_empty() {
        return Err("a console block without a `$ ` command".into());
    }
    Ok(steps)
}

/// Whether `actual` matches `expected`: line for line, a line `...` matching any number of
/// lines, `[..]` any text within a line; trailing blank lines and spaces do not count.
fn matches(expected: &[String], actual: &str) -> bool {
    let actual: Vec<&str> = actual.lines().map(str::trim_end).collect();
    lines_match(trimmed(expected), trimmed(&actual))
}

/// `lines` without the blank lines at their end.
fn trimmed<S: AsRef<str>>(lines: &[S]) -> &[S] {
    let end = lines
        .iter()
        .rposition(|line| !line.as_ref().trim().is_empty())
        .map_or(0, |last| last + 1);
    &lines[..end]
}

fn lines_match<S: AsRef<str>>(expected: &[S], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.as_ref() == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual.split_first().is_some_and(|(line, others)| {
            line_matches(first.as_ref(), line) && lines_match(rest, others)
        }),
    }
}

/// Whether `line` matches `pattern`, in which `[..]` stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == line;
    };
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// A temporary directory standing for the repository's root, as the docs' examples expect it.
struct Session {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
}

impl Session {
    fn new() -> Session {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for input in INPUTS {
            copy(&Path::new(ROOT).join(input), &dir.path().join(input));
        }
        // As in a clone: results/ is tracked (its .gitkeep) and ignored within.
        std::fs::create_dir(dir.path().join("results")).expect("results/");
        std::fs::write(
            dir.path().join(".gitconfig"),
            "[user]\n\tname = docs\n\temail = docs@example.org\n[init]\n\tdefaultBranch = main\n\
             [commit]\n\tgpgsign = false\n",
        )
        .expect("a .gitconfig");
        let bin = Path::new(env!("CARGO_BIN_EXE_bt-arena"))
            .parent()
            .expect("the binaries' directory")
            .to_path_buf();
        let inherited = std::env::var_os("PATH").unwrap_or_default();
        let path =
            std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&inherited)))
                .expect("a PATH");
        Session { dir, path }
    }

    /// What the examples left in the repository's root that `git status` would show: any
    /// entry but the inputs (each unchanged), `results/` (which .gitignore covers) and the
    /// session's own `HOME` files (`.gitconfig`, `.cache`).
    fn left_behind(&self) -> Vec<String> {
        let mut left: Vec<String> = std::fs::read_dir(self.dir.path())
            .expect("the session's directory")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| {
                let input = INPUTS
                    .iter()
                    .any(|input| input.split('/').next() == Some(name));
                !input && ![".gitconfig", ".cache", ".config", "results"].contains(&name.as_str())
            })
            .collect();
        for input in INPUTS {
            if !same_tree(&Path::new(ROOT).join(input), &self.dir.path().join(input)) {
                left.push(format!("a changed {input}"));
            }
        }
        left.sort();
        left
    }

    /// Runs `command` with `sh` in the session; its output (stdout and stderr as they came)
    /// and exit status, or why it was stopped.
    fn run(&self, command: &str) -> (String, Option<i32>) {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(self.dir.path())
            .env("PATH", &self.path)
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            // The output of a long wait's progress depends on the machine's load: none here.
            .env("BT_ARENA_PROGRESS_NOTE_SECONDS", "3600")
            .env_remove("BT_ARENA_BUILD_CACHE")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("SLURM_ARRAY_TASK_COUNT")
            .env_remove("JOB_COMPLETION_INDEX")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("sh runs");
        let mut stdout = child.stdout.take().expect("a piped stdout");
        let reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stdout.read_to_end(&mut bytes);
            bytes
        });
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("waits for sh") {
                break status.code();
            }
            if started.elapsed() > COMMAND_LIMIT {
                let group = libc::pid_t::try_from(child.id()).expect("a pid");
                // SAFETY: signals the process group this command was started in.
                unsafe { libc::kill(-group, libc::SIGKILL) };
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let output = reader.join().expect("the reader thread");
        (String::from_utf8_lossy(&output).into_owned(), status)
    }
}

/// Whether the file or directory `copy` holds what `original` does, no more, no less.
fn same_tree(original: &Path, copy: &Path) -> bool {
    if original.is_dir() {
        let names = |dir: &Path| -> Vec<std::ffi::OsString> {
            let mut names: Vec<_> = std::fs::read_dir(dir)
                .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
                .unwrap_or_default();
            names.sort();
            names
        };
        let ours = names(original);
        ours == names(copy)
            && ours
                .iter()
                .all(|name| same_tree(&original.join(name), &copy.join(name)))
    } else {
        std::fs::read(original).ok() == std::fs::read(copy).ok()
    }
}

/// Copies the file or directory `from` to `to`.
fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("a directory in the session");
        for entry in std::fs::read_dir(from).expect("a readable directory") {
            let entry = entry.expect("a directory entry");
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().expect("a parent")).expect("a directory");
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    }
}

/// Runs the examples of `blocks` (of page `page`) in one session; the failures, each
/// described with its place, command, expected and actual output.
fn run_page(page: &str, blocks: &[Block]) -> Vec<String> {
    let session = Session::new();
    let mut failures = Vec::new();
    for block in blocks {
        let Block::Run { steps, .. } = block else {
            continue;
        };
        for step in steps {
            let started = Instant::now();
            let (output, status) = session.run(&step.command);
            let problem = match status {
                None => Some(format!("killed after {} s", COMMAND_LIMIT.as_secs())),
                Some(0) if matches(&step.expected, &output) => None,
                Some(0) => Some("printed other output".to_string()),
                Some(code) => Some(format!(
                    "exited with {code}: show the code in the example \
                     (`...; echo \"exit $?\"`) when it is meant"
                )),
            };
            if let Some(problem) = problem {
                failures.push(format!(
                    "{page}:{}: {problem} ({:.1} s)\n$ {}\n--- the docs show:\n{}\n--- it printed:\n{}",
                    step.line,
                    started.elapsed().as_secs_f64(),
                    step.command,
                    step.expected.join("\n"),
                    output.trim_end()
                ));
            }
        }
    }
    failures.extend(session.left_behind().into_iter().map(|entry| {
        format!(
            "{page}: its examples leave {entry} in the repository's root: write it under \
             results/ (ignored by git), so that `git status` stays clean"
        )
    }));
    failures
}

/// The pages checked, relative to the root: README.md, benches/README.md and docs/**/*.md.
fn pages() -> Vec<String> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a readable directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&Path::new(ROOT).join("docs"), &mut found);
    let mut pages: Vec<String> = found
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(ROOT).expect("under the root");
            relative.to_str().expect("a UTF-8 path").to_string()
        })
        .collect();
    pages.sort();
    pages.insert(0, "benches/README.md".into());
    pages.insert(0, "README.md".into());
    pages
}

fn read(page: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(page))
        .unwrap_or_else(|e| panic!("cannot read {page}: {e}"))
}

#[test]
fn every_example_runs_and_prints_what_the_docs_show() {
    let started = Instant::now();
    let mut problems = Vec::new();
    let mut parsed = Vec::new();
    // DOCS_ONLY=perft runs the pages whose path holds `perft` (while writing one).
    let only = std::env::var("DOCS_ONLY").unwrap_or_default();
    for page in pages().into_iter().filter(|page| page.contains(&only)) {
        match blocks(&read(&page)) {
            Ok(found) => parsed.push((page, found)),
            Err(found) => problems.extend(found.into_iter().map(|p| format!("{page}: {p}"))),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = parsed
            .iter()
            .filter(|(_, found)| found.iter().any(|b| matches!(b, Block::Run { .. })))
            .map(|(page, found)| scope.spawn(move || run_page(page, found)))
            .collect();
        runs.into_iter()
            .flat_map(|run| run.join().expect("a page's run"))
            .collect()
    });

    let all = || {
        parsed
            .iter()
            .flat_map(|(page, found)| found.iter().map(move |b| (page, b)))
    };
    let run = all()
        .filter(|(_, b)| matches!(b, Block::Run { .. }))
        .count();
    let commands: usize = all()
        .map(|(_, b)| match b {
            Block::Run { steps, .. } => steps.len(),
            _ => 0,
        })
        .sum();
    let not_run: Vec<String> = all()
        .filter_map(|(page, b)| match b {
            Block::NotRun { line, reason } => Some(format!("  {page}:{line}: {reason}")),
            _ => None,
        })
        .collect();
    let cargo = all()
        .filter(|(_, b)| matches!(b, Block::Cargo { .. }))
        .count();
    let report = format!(
        "docs: {run} examples run ({commands} commands) in {:.1} s; {} marked not run:\n{}\n\
         {cargo} blocks of cargo commands (not run under cargo test)",
        started.elapsed().as_secs_f64(),
        not_run.len(),
        not_run.join("\n")
    );
    println!("{report}");
    assert!(
        failures.is_empty(),
        "{} of the docs' commands failed:\n\n{}\n\n{report}",
        failures.len(),
        failures.join("\n\n")
    );
    // A DOCS_ONLY that matches no page, or pages without an example, runs nothing: a failure.
    assert!(
        run > 0,
        "no example found (DOCS_ONLY={only:?} matches {} pages): {report}",
        parsed.len()
    );
}

#[test]
fn an_example_is_left_out_only_for_a_listed_reason() {
    for reason in [
        "needs a Slurm cluster",
        "300 games at 2 s + 0.02 s take over 20 minutes a run",
        "32,000 games, about 7 minutes on two cores",
        "clones and builds Fairy-Stockfish (network, a C++ compiler, minutes)",
        "cargo test inside cargo test",
    ] {
        let content = format!("# not run: {reason}\n$ bt-arena tournament\n");
        assert_eq!(
            block("console,ignore", 3, &content),
            Ok(Some(Block::NotRun {
                line: 3,
                reason: reason.to_string()
            })),
            "{reason}"
        );
    }
    for reason in [
        "flaky",
        "needs",
        "slow",
        "300 games",
        "takes minutes",
        "output differs on this machine",
    ] {
        let content = format!("# not run: {reason}\n$ bt-arena tournament\n");
        let err = block("console,ignore", 3, &content).unwrap_err();
        assert!(
            err.starts_with(&format!("`# not run: {reason}` is not a reason")),
            "{reason}: {err}"
        );
    }
    assert!(block("console,ignore", 3, "$ bt-arena tournament\n").is_err());
}

#[test]
fn readme_test_command_is_the_one_ci_runs() {
    let readme = blocks(&read("README.md")).expect("README.md's blocks");
    let ci = read(".ci/run");
    let tests: Vec<&String> = readme
        .iter()
        .filter_map(|b| match b {
            Block::Cargo { commands, .. } => Some(commands),
            _ => None,
        })
        .flatten()
        .filter(|command| command.starts_with("scripts/test"))
        .collect();
    assert!(
        !tests.is_empty(),
        "README.md shows no `scripts/test` in a sh block"
    );
    for command in tests {
        let command = command.split(" #").next().expect("a command").trim();
        assert!(
            ci.lines().any(|line| line.trim() == command),
            "README.md's test command `{command}` is not a line of .ci/run"
        );
    }
    // Nothing else in the README runs the ignored tests: without scripts/test's set-up they
    // fail on a fresh machine (see: issue 28).
    let unprepared: Vec<&String> = readme
        .iter()
        .filter_map(|b| match b {
            Block::Cargo { commands, .. } => Some(commands),
            _ => None,
        })
        .flatten()
        .filter(|command| {
            command.starts_with("cargo test") && command.contains("--include-ignored")
        })
        .collect();
    assert!(
        unprepared.is_empty(),
        "README.md runs the ignored tests without their set-up: {unprepared:?} (use scripts/test)"
    );
    // It runs every test, the ignored ones too.
    let script = read("scripts/test");
    assert!(
        script
            .lines()
            .any(|line| line == r#"cargo test "$@" -- --include-ignored || status=$?"#),
        "scripts/test does not end with `cargo test -- --include-ignored`"
    );
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `text`'s headings (a repeated one gets `-1`, `-2`, ... as on GitHub) and
/// its links (their targets, with the line of each).
fn anchors_and_links(text: &str) -> (HashSet<String>, Vec<(usize, String)>) {
    let mut anchors = HashSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = &mut heading {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = anchor(&heading.take().unwrap_or_default());
                let count = seen.entry(base.clone()).or_insert(0);
                anchors.insert(if *count == 0 {
                    base.clone()
                } else {
                    format!("{base}-{count}")
                });
                *count += 1;
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                links.push((line_of(text, range.start), dest_url.to_string()));
            }
            _ => {}
        }
    }
    (anchors, links)
}

#[test]
fn relative_links_lead_to_files_and_headings_that_exist() {
    let mut broken = Vec::new();
    let mut pages = pages();
    pages.push("docs/PROTOCOL.md".into());
    for page in pages {
        let text = read(&page);
        let (own, links) = anchors_and_links(&text);
        for (line, target) in links {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let anchors = if file.is_empty() {
                own.clone()
            } else {
                let path = Path::new(ROOT)
                    .join(&page)
                    .parent()
                    .expect("a page's directory")
                    .join(file);
                if !path.exists() {
                    broken.push(format!("{page}:{line}: {target}: no such file"));
                    continue;
                }
                if fragment.is_empty() || path.extension().is_none_or(|ext| ext != "md") {
                    continue;
                }
                anchors_and_links(&std::fs::read_to_string(&path).expect("a page")).0
            };
            if !fragment.is_empty() && !anchors.contains(fragment) {
                broken.push(format!("{page}:{line}: {target}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn examples_not_run_need_a_reason_and_commands_need_a_console_block() {
    let page = "Text.\n\n```console,ignore\n# not run: needs a Slurm cluster\n$ sbatch x\n```\n\n\
                ```console\n$ echo a \\\n  b\na b\n$ cat <<'END'\n> x\n> END\nx\n```\n\n\
                ```sh\ncargo build --release   # build\nRUSTC_BOOTSTRAP=1 cargo fuzz run pgn\n```\n\n\
                ```toml\nrounds = 2\n```\n";
    assert_eq!(
        blocks(page).expect("a valid page"),
        vec![
            Block::NotRun {
                line: 3,
                reason: "needs a Slurm cluster".into()
            },
            Block::Run {
                line: 8,
                steps: vec![
                    Step {
                        line: 9,
                        command: "echo a \\\n  b".into(),
                        expected: vec!["a b".into()],
                    },
                    Step {
                        line: 12,
                        command: "cat <<'END'\nx\nEND".into(),
                        expected: vec!["x".into()],
                    },
                ],
            },
            Block::Cargo {
                line: 18,
                commands: vec![
                    "cargo build --release   # build".into(),
                    "RUSTC_BOOTSTRAP=1 cargo fuzz run pgn".into()
                ],
            },
        ]
    );

    let no_reason = "```console,ignore\n$ sbatch x\n```\n";
    let problems = blocks(no_reason).expect_err("no reason given");
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("line 1: an example marked not run must say why"),
        "{problems:?}"
    );
    let empty_reason = "```console,ignore\n# not run:\n$ sbatch x\n```\n";
    assert!(blocks(empty_reason).is_err());

    let hidden = "```text\n$ bt-arena perft 3\n```\n";
    let problems = blocks(hidden).expect_err("a command in a text block");
    assert!(problems[0].contains("would never run"), "{problems:?}");
    let shell = "```sh\nbt-arena perft 3\n```\n";
    let problems = blocks(shell).expect_err("a bt-arena command in a sh block");
    assert!(problems[0].contains("only cargo commands"), "{problems:?}");
    let orphan = "```console\nout\n$ echo\n```\n";
    let problems = blocks(orphan).expect_err("output before a command");
    assert!(
        problems[0].contains("before any `$ ` command"),
        "{problems:?}"
    );
}

#[test]
fn elisions_stand_for_lines_and_for_text_within_a_line() {
    let lines = |text: &str| text.lines().map(String::from).collect::<Vec<_>>();
    assert!(matches(&lines("a\n...\nd"), "a\nb\nc\nd\n"));
    assert!(matches(&lines("a\n...\nb"), "a\nb"));
    assert!(matches(&lines("...\nc"), "a\nb\nc"));
    assert!(matches(
        &lines("took [..] s, [..] nodes"),
        "took 0.12 s, 5184 nodes  "
    ));
    assert!(matches(&lines("a\n\n"), "a\n"));
    assert!(!matches(&lines("a\n...\nd"), "a\nb\nc"));
    assert!(!matches(&lines("a"), "a\nb"));
    assert!(!matches(&lines("a\nb"), "a"));
    assert!(!matches(&lines("took [..] s"), "took 1 ms"));
    assert!(!matches(&lines("[..]x[..]x"), "x"));
}

#[test]
fn an_example_whose_output_changed_fails_with_both_outputs() {
    let page = "```console\n$ echo 5184\n5184\n$ echo 5185\n5184\n$ false\n```\n";
    let failures = run_page("page.md", &blocks(page).expect("a valid page"));
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert!(
        failures[0].starts_with("page.md:4: printed other output"),
        "{}",
        failures[0]
    );
    assert!(
        failures[0].ends_with("$ echo 5185\n--- the docs show:\n5184\n--- it printed:\n5185"),
        "{}",
        failures[0]
    );
    assert!(
        failures[1].starts_with("page.md:6: exited with 1"),
        "{}",
        failures[1]
    );
}

/// The `docs/...md` paths named in `text` (the crate's and modules' docs name their guide page
/// so, as text: rustdoc has no link to a file of the repository).
fn guide_paths(text: &str) -> Vec<String> {
    text.split('`')
        .filter(|word| word.starts_with("docs/") && word.ends_with(".md"))
        .map(String::from)
        .collect()
}

#[test]
fn the_crate_and_every_top_level_module_name_guide_pages_that_exist() {
    let src = Path::new(ROOT).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let mut files = vec![("lib.rs".to_string(), lib.clone())];
    for line in lib.lines() {
        let Some(module) = line
            .strip_prefix("pub mod ")
            .and_then(|rest| rest.strip_suffix(';'))
        else {
            continue;
        };
        let path = [format!("{module}/mod.rs"), format!("{module}.rs")]
            .into_iter()
            .find(|path| src.join(path).is_file())
            .unwrap_or_else(|| panic!("no source file for module {module}"));
        let text = std::fs::read_to_string(src.join(&path)).expect("a module's source");
        files.push((path, text));
    }
    let mut problems = Vec::new();
    for (path, text) in &files {
        let docs: String = text
            .lines()
            .take_while(|line| line.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        let named = guide_paths(&docs);
        if named.is_empty() {
            problems.push(format!("src/{path}: its docs name no page of docs/"));
        }
        for page in named {
            if !Path::new(ROOT).join(&page).is_file() {
                problems.push(format!("src/{path}: {page} does not exist"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(files.len() > 10, "{} modules found", files.len() - 1);
}

/// The README gives the first build's cost in one sentence of one kind of figure: minutes on
/// 2 cores for the release binaries and the tests, and the size of target/ (it mixed CPU
/// time, wall time on a loaded machine and a user's timings in two sentences).
// See: issue 39, item 4.
#[test]
fn the_readme_gives_the_first_builds_cost_in_one_sentence() {
    let readme = read("README.md");
    let start = readme
        .find("The first build")
        .expect("the README says how long the first build takes");
    let sentence = &readme[start..start + readme[start..].find(". ").expect("a sentence end")];
    let words: Vec<&str> = sentence.split_whitespace().collect();
    assert_eq!(
        words.join(" "),
        "The first build on 2 cores takes about 5 minutes for the release binaries and 4 for \
         the tests, and target/ grows to about 3 GB"
    );
    assert!(
        !readme.contains("CPU time"),
        "the README mixes kinds of figure again"
    );
}
