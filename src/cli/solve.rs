//! `bt-arena solve`: the solver ([`bt_arena::solve`]) on the start of a board or any position:
//! who wins with perfect play, in how many plies, the principal line, nodes and memory.

use super::args::{BoardFlag, JsonFlag, RulesFlag};
use super::progress::Progress;
use super::signals::{self, Interrupted};
use anyhow::Result;
use bt_arena::rules::{Board, Color, Position, Rules};
use bt_arena::solve::{
    DEFAULT_HASH_MIB, Iteration, MAX_HASH_MIB, Solution, SolveError, SolveOptions, Solver,
};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bt-arena solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    board: BoardFlag,
    #[command(flatten)]
    rules: RulesFlag,
    /// The position as a FEN (the board's ranks from the top one down, then w or b), or
    /// "startpos" (the start of the --board).
    #[arg(long, value_name = "POSITION", default_value = "startpos")]
    fen: String,
    /// The table of proven facts, in MiB (1 to 65536): the solve's memory.
    ///
    /// A fuller table forgets facts and proves them again: slower, never wrong.
    #[arg(long, value_name = "MiB", default_value_t = DEFAULT_HASH_MIB,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_HASH_MIB)))]
    hash: u32,
    /// Keep the solve's state in FILE, to go on after an interruption.
    ///
    /// Read when it exists (the state of the same board, rules and position; another one's is
    /// refused), written when the solve is stopped (Ctrl-C) and every 10 s or more between
    /// depths (so that a killed solve loses at most the depth it was on). Run the same command
    /// again to go on.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    json: JsonFlag,
}

/// The solved position as `--json` prints it.
#[derive(Serialize)]
struct SolveReport {
    /// The position (its FEN).
    position: Position,
    board: Board,
    rules: Rules,
    /// `white` or `black`.
    winner: String,
    /// The distance in plies (winner fastest, loser longest).
    plies: u32,
    /// The principal line, in move notation.
    line: Vec<String>,
    /// How the line ends: goal-rank, all-captured or no-moves.
    ending: &'static str,
    /// Nodes of this run.
    nodes: u64,
    /// Nodes of the runs it resumed.
    earlier_nodes: u64,
    /// The depth a resumed state had answered (0: none).
    resumed_at: u32,
    /// Wall-clock time of this run, ms.
    time_ms: f64,
    /// The table's memory, bytes.
    table_bytes: u64,
    /// Positions in the table at the end.
    table_positions: u64,
    /// Facts dropped for want of room.
    evicted: u64,
}

/// Runs `bt-arena solve`: progress on stderr (a line per depth), the result on stdout.
///
/// # Errors
/// A FEN of another board (usage), a table size that cannot be had, a state file that cannot
/// be read, written or is another solve's, or an interruption ([`Interrupted`], exit 130).
pub fn run(args: &SolveArgs) -> Result<ExitCode> {
    let position = args.board.position("--fen", &args.fen)?;
    let rules = args.rules.get();
    let stop = signals::stop_flag()?;
    let options = SolveOptions {
        rules,
        hash_mib: args.hash,
        stop: Some(stop),
        state: args.resume.clone(),
    };
    let mut solver = Solver::new(position, &options).map_err(|err| match err {
        SolveError::Hash { .. } => anyhow::Error::from(super::UsageError(err.to_string())),
        err => err.into(),
    })?;
    let json = args.json.json;
    if !json {
        let on = position.board();
        say!(
            "solve of {position} on {on} under {rules} rules, table {} MiB",
            args.hash
        );
    }
    if let Some(path) = &args.resume
        && solver.completed() > 0
    {
        note!(
            "resuming from {}: depths 1 to {} answered",
            path.display(),
            solver.completed()
        );
    }
    let progress = Progress::start("solve");
    let side = position.side_to_move();
    progress.step(format!("depth {}", solver.completed() + 1));
    let result = solver.solve(|iteration| {
        progress.suspend(|| note!("{}", iteration_line(side, iteration)));
        progress.step(format!("depth {}", iteration.depth + 1));
    });
    drop(progress);
    let solution = match result {
        Ok(solution) => solution,
        Err(SolveError::Stopped { completed, saved }) => {
            let next = match saved {
                Some(path) => format!(
                    "the state is saved in {}; go on with: bt-arena {}",
                    path.display(),
                    super::shell_words(std::env::args_os().skip(1))
                ),
                None => "nothing saved (give --resume FILE to keep a solve's state)".into(),
            };
            return Err(
                Interrupted(format!("solve stopped after depth {completed}: {next}")).into(),
            );
        }
        Err(err) => return Err(err.into()),
    };
    if json {
        let report = report(&solution);
        // Strings and numbers: serde_json cannot fail on these.
        say!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        out!("{}", text(&solution));
    }
    Ok(ExitCode::SUCCESS)
}

/// The progress line of one depth: `depth 5: White does not win within 5 plies (1234 nodes,
/// 0.1 s)`.
fn iteration_line(side: Color, iteration: &Iteration) -> String {
    let depth = iteration.depth;
    let unit = if depth == 1 { "ply" } else { "plies" };
    let answer = match (depth % 2 == 1, iteration.proven) {
        (true, true) => format!("{side} wins within {depth} {unit}"),
        (true, false) => format!("{side} does not win within {depth} {unit}"),
        (false, true) => format!("{side} is lost within {depth} {unit}"),
        (false, false) => format!("{side} is not lost within {depth} {unit}"),
    };
    format!(
        "depth {depth}: {answer} ({} nodes, {:.1} s)",
        bt_arena::report::numbers::grouped(iteration.nodes),
        iteration.elapsed.as_secs_f64()
    )
}

/// The text result: who wins in how many plies, the line, nodes, time and memory.
fn text(solution: &Solution) -> String {
    let side = solution.position.side_to_move();
    let plies = solution.plies;
    let unit = if plies == 1 { "ply" } else { "plies" };
    let grouped = bt_arena::report::numbers::grouped;
    if plies == 0 {
        return format!(
            "the game is over: {} has won ({}), distance 0\n",
            solution.winner,
            outcome_reason(solution)
        );
    }
    let whom = if solution.side_to_move_wins() {
        format!("{side} to move wins")
    } else {
        format!("{side} to move is lost")
    };
    let line: Vec<String> = solution.line.iter().map(ToString::to_string).collect();
    let earlier = if solution.earlier_nodes > 0 {
        format!(
            " (and {} before the resume)",
            grouped(solution.earlier_nodes)
        )
    } else {
        String::new()
    };
    format!(
        "{} wins in {plies} {unit} ({whom}; the winner's fastest win against the longest \
         resistance)\nline: {}\nnodes: {}{earlier}, time: {:.1} s, memory: {} MiB table, {} \
         positions in it, {} facts evicted\n",
        solution.winner,
        line.join(" "),
        grouped(solution.nodes),
        solution.elapsed.as_secs_f64(),
        (solution.table_bytes as f64 / f64::from(1 << 20)).round(),
        grouped(solution.table_used),
        grouped(solution.evicted),
    )
}

/// The ending of a finished position, in words.
fn outcome_reason(solution: &Solution) -> String {
    bt_arena::rules::Outcome {
        winner: solution.winner,
        reason: solution.ending,
        board: solution.position.board(),
    }
    .to_string()
}

fn report(solution: &Solution) -> SolveReport {
    SolveReport {
        position: solution.position,
        board: solution.position.board(),
        rules: solution.rules,
        winner: solution.winner.to_string().to_lowercase(),
        plies: solution.plies,
        line: solution.line.iter().map(ToString::to_string).collect(),
        ending: solution.ending.name(),
        nodes: solution.nodes,
        earlier_nodes: solution.earlier_nodes,
        resumed_at: solution.resumed_at,
        time_ms: solution.elapsed.as_secs_f64() * 1e3,
        table_bytes: solution.table_bytes,
        table_positions: solution.table_used,
        evicted: solution.evicted,
    }
}
