//! `bt-arena prove`: the rules' prover ([`bt_arena::rules::proof`]) on one position, the
//! command a false mate claim's reproduction line names (docs/guide/checks.md).

use super::args::{BoardFlag, RulesFlag};
use anyhow::Result;
use bt_arena::game::claims::DEFAULT_CLAIM_NODES;
use bt_arena::rules::Position;
use bt_arena::rules::proof::{Prover, Verdict};
use clap::Args;
use std::process::ExitCode;

/// Arguments of `bt-arena prove`.
#[derive(Args, Debug)]
pub struct ProveArgs {
    /// The position as a FEN (the board's ranks from the top one down, then w or b), or
    /// "startpos" (the start of the --board).
    #[arg(long, value_name = "POSITION")]
    fen: String,
    #[command(flatten)]
    board: BoardFlag,
    /// PLIES as a flag.
    #[arg(long = "plies", id = "plies_flag", value_name = "PLIES",
          value_parser = clap::value_parser!(u32).range(1..=63),
          required_unless_present = "plies")]
    plies_flag: Option<u32>,
    /// The longest forced result looked for, in plies (1 to 63); or --plies PLIES.
    #[arg(value_name = "PLIES", value_parser = clap::value_parser!(u32).range(1..=63),
          conflicts_with = "plies_flag")]
    plies: Option<u32>,
    /// The most positions the prover examines (as --check-claims does, by default).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CLAIM_NODES,
          value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    #[command(flatten)]
    rules: RulesFlag,
}

/// Runs `bt-arena prove`: prints the verdict for the side to move (a win, a loss, no forced
/// result within the plies, or unknown when the node budget ran out) and the proven line, or,
/// for a finished position, who has won and how;
/// exit 0 whatever the verdict.
///
/// # Errors
/// A FEN that is no position of the --board (a usage error naming the rank).
pub fn run(args: &ProveArgs) -> Result<ExitCode> {
    let position: Position = args.board.position("--fen", &args.fen)?;
    let side = position.side_to_move();
    let mut prover = Prover::new(args.rules.get(), args.nodes);
    let plies = args.plies.or(args.plies_flag).unwrap_or(1);
    // A finished position: who has won, not a search for a forced result.
    if let Some(outcome) = position.outcome(args.rules.get()) {
        say!(
            "{side} to move: the game is over ({outcome}): {} has won",
            outcome.winner
        );
        return Ok(ExitCode::SUCCESS);
    }
    match prover.prove(&position, plies) {
        Verdict::Win(line) => say!("{side} to move wins: {line}"),
        Verdict::Loss(line) => say!("{side} to move is lost: {line}"),
        Verdict::Open => say!("{side} to move: no forced result within {plies} plies"),
        Verdict::Unknown => say!(
            "{side} to move: unknown (the prover's {} nodes ran out; give more with --nodes)",
            args.nodes
        ),
    }
    Ok(ExitCode::SUCCESS)
}
