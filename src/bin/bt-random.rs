//! bt-random: a Breakthrough engine that plays a uniformly random legal move.
//!
//! Speaks UGI and UCI through [`bt_arena::bundled::server`]. Option `Seed` (spin, 0 = seed from
//! the system's entropy) makes its choices reproducible; the seed is applied when set and again
//! at every new game, so the same game gets the same moves.

use bt_arena::bundled::server::{Brain, OptionRefused, SearchRequest, asks_for_help, help, serve};
use bt_arena::protocol::{Info, OptionDecl};
use bt_arena::rules::Move;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// The largest seed `Seed` accepts.
const MAX_SEED: i64 = i64::MAX;

/// The random mover: its generator and the `Seed` it restarts from at each new game.
struct RandomBrain {
    rng: fastrand::Rng,
    seed: u64,
}

impl RandomBrain {
    /// A generator from `seed`, or from the system's entropy when it is 0.
    fn generator(seed: u64) -> fastrand::Rng {
        if seed == 0 {
            fastrand::Rng::new()
        } else {
            fastrand::Rng::with_seed(seed)
        }
    }
}

impl Brain for RandomBrain {
    fn name(&self) -> &str {
        concat!("bt-random ", env!("CARGO_PKG_VERSION"))
    }

    fn author(&self) -> &str {
        "the bt-arena developers"
    }

    fn options(&self) -> Vec<OptionDecl> {
        vec![OptionDecl::spin("Seed", 0, 0, MAX_SEED)]
    }

    fn set_option(&mut self, _name: &str, value: &str) -> Result<(), OptionRefused> {
        let seed: u64 = value
            .parse()
            .map_err(|_| format!("'{value}' is not a seed"))?;
        self.seed = seed;
        self.rng = RandomBrain::generator(seed);
        Ok(())
    }

    fn new_game(&mut self) {
        if self.seed != 0 {
            self.rng = RandomBrain::generator(self.seed);
        }
    }

    fn search(
        &mut self,
        request: &SearchRequest,
        _stop: &AtomicBool,
        info: &mut dyn FnMut(Info),
    ) -> Option<Move> {
        let moves: Vec<Move> = request.position.legal_moves(request.rules).iter().collect();
        let best = moves.get(self.rng.usize(..moves.len().max(1))).copied();
        info(Info {
            depth: Some(1),
            nodes: Some(moves.len() as u64),
            pv: best.iter().map(Move::to_string).collect(),
            ..Info::default()
        });
        best
    }

    /// The move is chosen at once, whatever the limits.
    fn searches_at_once(&self) -> bool {
        true
    }
}

/// What `bt-random --help` says before its options.
const ABOUT: &str = "A Breakthrough engine of bt-arena that plays a uniformly random legal \
move, speaking UGI and UCI on stdin and stdout. Seed (0: from the system's entropy) makes its \
games repeatable: the same seed gives the same moves in the same game.";

fn main() -> ExitCode {
    let brain = RandomBrain {
        rng: fastrand::Rng::new(),
        seed: 0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if asks_for_help(&args) {
        print!(
            "{}",
            help(
                &brain,
                ABOUT,
                &[
                    ("bt-random", "the engine: reads ugi or uci on stdin"),
                    ("bt-random --help", "this help (also -h)"),
                ]
            )
        );
        return ExitCode::SUCCESS;
    }
    if !args.is_empty() {
        eprintln!(
            "bt-random: unknown arguments '{}' (it takes none; bt-random --help says more)",
            args.join(" ")
        );
        return ExitCode::from(2);
    }
    match serve(brain) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("bt-random: {err}");
            ExitCode::FAILURE
        }
    }
}
