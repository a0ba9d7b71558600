//! `bt-arena solve` and the solver ([`bt_arena::solve`]): exact results and distances of the
//! small boards, checked against an independent minimax on 4×4; the principal lines replayed
//! by the rules; bad input; a finished position; an interrupted solve resumed.

use bt_arena::rules::{Board, Color, Position, Rules};
use bt_arena::solve::{self, Solution};
use std::collections::HashMap;

use crate::util::{bt_arena, stderr, stdout};

fn board(text: &str) -> Board {
    text.parse().unwrap()
}

/// The result of `position` by plain minimax over every move, memoized by position: `(true,
/// n)` the side to move wins in `n` plies, `(false, n)` it is lost in `n`; the winner takes the
/// shortest win, the loser the longest. Written apart from the solver: no pruning, no table of
/// fixed size, the rules' own move list and outcome.
fn minimax(
    position: &Position,
    rules: Rules,
    memo: &mut HashMap<Position, (bool, u32)>,
) -> (bool, u32) {
    if let Some(outcome) = position.outcome(rules) {
        return (outcome.winner == position.side_to_move(), 0);
    }
    if let Some(&known) = memo.get(position) {
        return known;
    }
    let mut fastest_win: Option<u32> = None;
    let mut longest_loss = 0;
    for mv in position.legal_moves(rules) {
        let (they_win, plies) = minimax(&position.play_unchecked(mv), rules, memo);
        if they_win {
            longest_loss = longest_loss.max(plies + 1);
        } else {
            fastest_win = Some(fastest_win.map_or(plies + 1, |win| win.min(plies + 1)));
        }
    }
    let result = fastest_win.map_or((false, longest_loss), |plies| (true, plies));
    memo.insert(*position, result);
    result
}

/// Checks that `solution`'s line is legal, `plies` long and ends the game with the winner's win.
fn assert_line_plays_out(solution: &Solution) {
    let mut position = solution.position;
    assert_eq!(solution.line.len() as u32, solution.plies);
    for &mv in &solution.line {
        position = position.play(solution.rules, mv).unwrap();
    }
    let outcome = position
        .outcome(solution.rules)
        .expect("the line ends the game");
    assert_eq!(outcome.winner, solution.winner);
    assert_eq!(outcome.reason, solution.ending);
}

#[test]
fn the_solver_agrees_with_plain_minimax_on_every_position_of_4x4() {
    let start = Position::start(board("4x4"));
    for rules in Rules::ALL {
        let mut memo = HashMap::new();
        let (wins, plies) = minimax(&start, rules, &mut memo);
        // Every position the game from the start can reach (memoized: not over), in a fixed
        // order; every 37th solved on its own, the start included.
        let reachable = memo.len();
        let mut positions: Vec<_> = memo.into_iter().collect();
        positions.sort_by_key(|(position, _)| position.to_string());
        let mut sample: Vec<_> = positions.into_iter().step_by(37).collect();
        sample.push((start, (wins, plies)));
        let mut checked = 0;
        for (position, (wins, plies)) in &sample {
            let solution = solve::solve(position, rules, 1).unwrap();
            let side = position.side_to_move();
            let winner = if *wins { side } else { side.opponent() };
            assert_eq!(
                (solution.winner, solution.plies),
                (winner, *plies),
                "{position} under {rules} rules"
            );
            assert_line_plays_out(&solution);
            checked += 1;
        }
        assert_eq!(
            (rules, reachable, checked),
            (rules, expected_checks(rules).0, expected_checks(rules).1)
        );
    }
}

/// How many 4×4 positions the game reaches (not over), and how many of them the test above
/// checks (every 37th, and the start).
fn expected_checks(rules: Rules) -> (usize, usize) {
    match rules {
        Rules::CaptureOnly => (261_116, 7_059),
        Rules::Classic => (1_171_074, 31_652),
    }
}

/// The solve of the start of `size` under `rules`, with a table of `mib` MiB.
fn solve_start(size: &str, rules: Rules, mib: u32) -> Solution {
    let solution = solve::solve(&Position::start(board(size)), rules, mib).unwrap();
    assert_line_plays_out(&solution);
    solution
}

#[test]
fn boards_up_to_5x4_have_their_exact_winner_and_distance() {
    use Color::{Black, White};
    use Rules::{CaptureOnly, Classic};
    for (size, rules, winner, plies) in [
        ("4x4", CaptureOnly, White, 15),
        ("4x4", Classic, Black, 14),
        ("4x5", CaptureOnly, White, 15),
        ("4x5", Classic, Black, 16),
        ("5x4", CaptureOnly, Black, 24),
        ("5x4", Classic, Black, 22),
    ] {
        let solution = solve_start(size, rules, 64);
        assert_eq!(
            (solution.winner, solution.plies),
            (winner, plies),
            "{size} {rules}"
        );
    }
}

/// The principal line of 5×5 under capture-only rules (White wins in 31 plies), as the solver
/// finds it (the test below) and docs/guide/solve.md gives it.
pub(crate) const FIVE_BY_FIVE_CAPTURE_ONLY_LINE: &str = "a2a3 e4e3 d2e3 d4e3 d1d2 b4a3 b2a3 \
    b5b4 a1a2 e5e4 d2d3 e4d3 e2d3 c4d3 c2d3 e3e2 c1c2 c5c4 d3c4 d5c4 a3b4 a5b4 b1b2 b4b3 c2b3 \
    a4b3 a2a3 c4c3 a3a4 c3c2 a4a5";

#[test]
fn five_by_five_capture_only_is_a_first_player_win_in_31_plies_the_same_each_time() {
    let first = solve_start("5x5", Rules::CaptureOnly, 256);
    assert_eq!((first.winner, first.plies), (Color::White, 31));
    let line: Vec<String> = first.line.iter().map(ToString::to_string).collect();
    assert_eq!(line.join(" "), FIVE_BY_FIVE_CAPTURE_ONLY_LINE);
}

#[test]
fn another_table_size_changes_the_work_not_the_result_or_the_line() {
    // 64 MiB holds 5x4's classic solve; 1 MiB forgets facts all along.
    let roomy = solve_start("5x4", Rules::Classic, 64);
    let cramped = solve_start("5x4", Rules::Classic, 1);
    assert!(cramped.evicted > roomy.evicted);
    assert_ne!(cramped.nodes, roomy.nodes);
    assert_eq!(
        (cramped.winner, cramped.plies, &cramped.line),
        (roomy.winner, roomy.plies, &roomy.line)
    );
}

/// The opt-in of the 5×5 classic solve (22 minutes in a release build on a loaded 2-core
/// machine, more in a test build; the figure is in docs/guide/solve.md).
const FIVE_BY_FIVE_CLASSIC: &str = "BT_ARENA_SOLVE_5X5_CLASSIC";

#[test]
fn five_by_five_classic_is_a_second_player_win_when_opted_in() {
    if std::env::var_os(FIVE_BY_FIVE_CLASSIC).is_none() {
        eprintln!("skipped: set {FIVE_BY_FIVE_CLASSIC}=1 to solve 5x5 under classic rules");
        return;
    }
    let solution = solve_start("5x5", Rules::Classic, 2048);
    assert_eq!((solution.winner, solution.plies), (Color::Black, 26));
    let line: Vec<String> = solution.line.iter().map(ToString::to_string).collect();
    assert_eq!(
        line.join(" "),
        "a2a3 b4a3 b2a3 b5b4 a1b2 b4a3 b2a3 a5b4 a3b4 c5b4 e2d3 a4a3 d3c4 d5c4 d2d3 e4d3 c2d3 \
         c4d3 e1d2 b4b3 d2c3 a3a2 b1a2 b3a2 c1c2 a2a1"
    );
}

#[test]
fn bad_sizes_fens_and_table_sizes_are_refused_naming_them() {
    for (size, reason) in [
        (
            "9x9",
            "a board of 9 ranks is not supported: ranks and files go from 4 to 8",
        ),
        (
            "3x8",
            "a board of 3 ranks is not supported: ranks and files go from 4 to 8",
        ),
        (
            "8",
            "bad board size '8': expected RANKSxFILES, e.g. 6x6 or 6x5 (each 4 to 8)",
        ),
    ] {
        let output = bt_arena(&["solve", "--board", size]);
        assert_eq!(output.status.code(), Some(3), "{size}");
        let error = stderr(&output);
        assert!(
            error.contains(&format!(
                "invalid value '{size}' for '--board <RxC>': {reason}"
            )),
            "{error}"
        );
    }
    let output = bt_arena(&[
        "solve",
        "--board",
        "5x5",
        "--fen",
        "pppp/pppp/4/PPPP/PPPP w",
    ]);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let error = stderr(&output);
    assert!(
        error.contains(
            "--fen 'pppp/pppp/4/PPPP/PPPP w' is no position of the 5x5 board: rank 5 describes \
             4 squares, expected 5 (a 5x5 board)"
        ),
        "{error}"
    );
    for hash in ["0", "65537", "lots"] {
        let output = bt_arena(&["solve", "--board", "4x4", "--hash", hash]);
        assert_eq!(output.status.code(), Some(3), "{hash}");
        let error = stderr(&output);
        assert!(
            error.contains(&format!("invalid value '{hash}' for '--hash <MiB>'")),
            "{error}"
        );
    }
    // Within the range but more than the machine has (this one has less than 64 GiB).
    let output = bt_arena(&["solve", "--board", "4x4", "--hash", "65536"]);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let error = stderr(&output);
    assert!(
        error.contains("error: --hash 65536: more than the ")
            && error.contains(" MiB of memory available on this machine (give 1 to 65536 MiB"),
        "{error}"
    );
}

#[test]
fn a_finished_position_is_won_at_distance_zero() {
    let output = bt_arena(&[
        "solve",
        "--board",
        "5x4",
        "--fen",
        "4/P3/4/4/p3 b",
        "--rules",
        "classic",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        stdout(&output),
        "solve of 4/P3/4/4/p3 b on 5x4 under classic rules, table 256 MiB\n\
         the game is over: Black has won (Black reached rank 1), distance 0\n"
    );
}

#[test]
fn json_names_the_winner_the_distance_and_the_line() {
    let output = bt_arena(&[
        "solve", "--board", "4x4", "--rules", "classic", "--hash", "4", "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["board"], "4x4");
    assert_eq!(report["rules"], "classic");
    assert_eq!(report["position"], "pppp/pppp/PPPP/PPPP w");
    assert_eq!(report["winner"], "black");
    assert_eq!(report["plies"], 14);
    assert_eq!(
        report["line"]
            .as_array()
            .unwrap()
            .iter()
            .map(|mv| mv.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" "),
        "b2a3 b4a3 c2b3 c4b3 d2c3 d4c3 a2b3 a4b3 a1a2 b3b2 c1b2 d3d2 b2b3 d2c1"
    );
    assert_eq!(report["ending"], "goal-rank");
    assert_eq!(report["table_bytes"], 4 * (1 << 20) / 96 * 96);
    // Progress goes to stderr, a line per depth.
    let progress = stderr(&output);
    assert!(
        progress.contains("depth 13: White does not win within 13 plies ("),
        "{progress}"
    );
    assert!(
        progress.contains("depth 14: White is lost within 14 plies ("),
        "{progress}"
    );
}

#[test]
fn an_interrupted_solve_resumes_to_the_same_result_and_line() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("5x4.state");
    let state_arg = state.to_str().unwrap();
    let args = [
        "solve", "--board", "5x4", "--rules", "classic", "--hash", "16", "--json",
    ];
    let whole = bt_arena(&args);
    assert_eq!(whole.status.code(), Some(0), "{whole:?}");
    let whole: serde_json::Value = serde_json::from_str(&stdout(&whole)).unwrap();
    let mut resumable = args.to_vec();
    resumable.extend(["--resume", state_arg]);
    let mut child = crate::util::bt_arena_command(&resumable)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // Stopped once depth 16 is answered: the deeper depths take most of the time.
    for line in lines.by_ref() {
        if line.unwrap().starts_with("depth 16:") {
            break;
        }
    }
    let pid = i32::try_from(child.id()).unwrap();
    let sent = std::time::Instant::now();
    // SAFETY: kill(2) on the child this test started.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let status = child.wait().unwrap();
    let stopped_in = sent.elapsed();
    assert_eq!(status.code(), Some(130));
    assert!(
        stopped_in < std::time::Duration::from_secs(2),
        "{stopped_in:?}"
    );
    let said: Vec<String> = lines.map(Result::unwrap).collect();
    let said = said.join("\n");
    assert!(
        said.contains(&format!(
            "the state is saved in {state_arg}; go on with: bt-arena solve --board 5x4"
        )),
        "{said}"
    );
    assert!(state.exists());
    let resumed = bt_arena(&resumable);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert!(stderr(&resumed).contains(&format!("resuming from {state_arg}: depths 1 to ")));
    let resumed: serde_json::Value = serde_json::from_str(&stdout(&resumed)).unwrap();
    assert_eq!(resumed["plies"], 22);
    for key in ["winner", "plies", "line", "ending"] {
        assert_eq!(resumed[key], whole[key], "{key}");
    }
    assert!(resumed["resumed_at"].as_u64().unwrap() >= 16, "{resumed}");
    assert!(resumed["earlier_nodes"].as_u64().unwrap() > 0, "{resumed}");
}
