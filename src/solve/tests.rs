use super::*;
use crate::rules::Board;

fn board(text: &str) -> Board {
    text.parse().unwrap()
}

#[test]
fn a_finished_position_is_won_at_distance_zero() {
    let position = Position::from_fen("4/P3/4/4/p3 b", board("5x4")).unwrap();
    let solution = solve(&position, Rules::Classic, 1).unwrap();
    assert_eq!((solution.winner, solution.plies), (Color::Black, 0));
    assert!(solution.line.is_empty());
    assert_eq!(solution.ending, Reason::GoalRank);
}

#[test]
fn a_pawn_race_is_won_by_the_side_ahead() {
    // White's e-pawn is two steps from rank 5; Black's a-pawn three from rank 1.
    let position = Position::from_fen("4/p3/3P/4/4 w", board("5x4")).unwrap();
    let solution = solve(&position, Rules::CaptureOnly, 1).unwrap();
    assert_eq!((solution.winner, solution.plies), (Color::White, 3));
    let line: Vec<String> = solution.line.iter().map(ToString::to_string).collect();
    assert_eq!(line, ["d3d4", "a4a3", "d4d5"]);
    // Black to move loses too, one ply longer.
    let black = Position::from_fen("4/p3/3P/4/4 b", board("5x4")).unwrap();
    let solution = solve(&black, Rules::CaptureOnly, 1).unwrap();
    assert_eq!((solution.winner, solution.plies), (Color::White, 4));
}

#[test]
fn table_sizes_out_of_range_are_refused() {
    let position = Position::start(board("4x4"));
    for mib in [0, MAX_HASH_MIB + 1] {
        let err = solve(&position, Rules::Classic, mib).unwrap_err();
        assert!(matches!(err, SolveError::Hash { .. }), "{err}");
        assert!(
            err.to_string().starts_with(&format!("--hash {mib}: ")),
            "{err}"
        );
    }
}

#[test]
fn a_stopped_solve_resumes_from_its_state_to_the_same_solution() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state");
    let position = Position::start(board("4x5"));
    let whole = solve(&position, Rules::Classic, 4).unwrap();
    // Stopped before its first node: nothing answered, the state saved.
    let stop = Arc::new(AtomicBool::new(true));
    let options = SolveOptions {
        rules: Rules::Classic,
        hash_mib: 4,
        stop: Some(stop.clone()),
        state: Some(path.clone()),
    };
    let mut solver = Solver::new(position, &options).unwrap();
    let mut depths = 0;
    // The flag is looked at every 4096 nodes: the shallow depths are answered first.
    let err = solver.solve(|_| depths += 1).unwrap_err();
    let SolveError::Stopped { completed, saved } = err else {
        panic!("{err}")
    };
    assert_eq!(
        (completed, saved.as_deref()),
        (depths, Some(path.as_path()))
    );
    stop.store(false, std::sync::atomic::Ordering::SeqCst);
    let mut resumed = Solver::new(position, &options).unwrap();
    assert_eq!(resumed.completed(), completed);
    let again = resumed.solve(|_| {}).unwrap();
    assert_eq!((again.winner, again.plies), (whole.winner, whole.plies));
    assert_eq!(again.line, whole.line);
    assert_eq!(again.resumed_at, completed);
    // Another rule set's solve refuses the file.
    let classic = SolveOptions {
        rules: Rules::CaptureOnly,
        ..options
    };
    let err = Solver::new(position, &classic).err().unwrap();
    assert!(
        err.to_string()
            .contains("its rules is classic, this solve's is capture-only"),
        "{err}"
    );
}
