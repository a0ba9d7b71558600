//! bt-arena: an engine tournament and perft testing harness for Breakthrough, in the spirit of
//! cutechess-cli and fastchess. The `bt-arena` binary is a thin command line over this library.
//!
//! For users, the guide says the same by task: `README.md` is the front door (one example per
//! job, the exit codes), `docs/README.md` indexes the guide pages under `docs/guide/`, and the
//! module map below names each module's page. Every example there that shows its output is run
//! by `tests/it/docs.rs`.
//!
//! # Module map
//!
//! Data flows one way: command line → config → schedule → games → records → statistics →
//! report.
//!
//! | module | concern | guide |
//! |---|---|---|
//! | [`rules`] | the reference rules: [`rules::Position`] (a FEN), moves, legality with reasons, outcomes, perft and perft suites | `docs/guide/rules.md`, `docs/guide/perft.md` |
//! | [`protocol`] | the wire format both sides speak: commands, replies, `info`, options, `go` limits (UGI and UCI) | `docs/PROTOCOL.md`, `docs/guide/engines.md` |
//! | [`engine`] | the runner's side of the pipe: an engine as the user described it, its process, the handshake, errors; engines built from git revisions and their bench | `docs/guide/engines.md`, `docs/guide/source-engines.md` |
//! | [`bundled`] | the engine side of the pipe: the command loop and the search of the bundled engines | `docs/guide/engines.md` |
//! | [`time_control`] | a time control (clock, moves per period, move time, depth, nodes) and its live clocks, in ms | `docs/guide/tournaments.md` (Clocks) |
//! | [`game`] | one game: the move loop and adjudication, over [`time_control`]'s clocks | `docs/guide/tournaments.md`, `docs/adjudication.md` |
//! | [`arena`] | the one runner: workers and seats (engines started, given option values, replaced, given up), games.csv and games.pgn, warnings, stopping, progress; plays what a schedule asks | `docs/guide/arena.md` |
//! | [`tournament`] | config, the engines made ready (built, benched, clocks scaled), the schedule of game pairs (round-robin, gauntlet, shards), the runner that plays it | `docs/guide/tournaments.md`, `docs/guide/cluster.md` |
//! | [`tune`] | SPSA tuning of engine options (fishtest's and OpenBench's algorithm), resumable and reproducible | `docs/guide/tuning.md` |
//! | [`datagen`] | self-play positions for training evaluations: the games file, 24-byte binary records, text lines, filters, proof labels, repeatable and sharded | `docs/guide/datagen.md`, `docs/formats/datagen.md` |
//! | [`openings`] | opening books: reading, generating and checking them | `docs/guide/openings.md` |
//! | [`book_build`] | `openings build`: books kept by reference engines' measured game pairs, a kind of run on the session | `docs/guide/openings.md` |
//! | [`records`] | the record of a finished game and its files: games.csv (appended, repaired, read back, tailed), games.pgn (written and read, with other tools' PGN) | `docs/guide/results.md` |
//! | [`report`] | the report of a run, computed once from its records ([`report::Summary`]) and rendered as text, summary.json and report.html | `docs/guide/results.md` |
//! | [`run`] | reading runs, below the kinds of run that play them: a run's settings and schedule shape, its identity (tournaments and tunes), the one reader of its games and its verdict, the merge of shards | `docs/guide/results.md`, `docs/guide/cluster.md` |
//! | [`lease`] | leases on a shared directory: files created exclusively, a heartbeat, stale judged by the observer's clock (the build cache, workers claiming game pairs) | `docs/guide/cluster.md` |
//! | [`run_dir`] | a run directory's layout, its kind (one machine, sharded, one shard), a run's identity, atomic writes | `docs/guide/results.md`, `docs/guide/cluster.md` |
//! | [`stats`] | Elo, LOS, pentanomial counts, SPRT (fishtest's formulas), Bradley–Terry ratings | `docs/guide/sprt.md` |
//! | [`perft_check`] | an engine's perft against the rules, walked down to the faulty position | `docs/guide/perft.md` |
//! | [`check_engine`] | the protocol and rules checklist for engine authors | `docs/guide/check-engine.md` |
//! | [`solve`] | the solver: who wins a small board (or any position) with perfect play and in how many plies, exactly; the oracle of the prover and of engines | `docs/guide/solve.md` |
//! | [`named`] | values named by a word (rule sets, protocols, formats): one trait, one macro, one error | `docs/guide/tournaments.md` |
//! | [`textfile`] | reading the text files users hand in as editors save them (a byte-order mark) | `docs/guide/rules.md` (Files) |
//!
//! # Glossary
//!
//! - **UGI / UCI**: the text protocols spoken over an engine's stdin and stdout (UGI is
//!   cutegames' UCI for games other than chess). The **handshake** is `ugi` → `ugiok` (or
//!   `uci` → `uciok`); an engine answers each `go` with a **bestmove**.
//! - **Ply**: one move of one side. **Perft** counts the leaves of the move tree to a depth in
//!   plies; **divide** gives that count per root move.
//! - **FEN**: the board string, ranks 8 to 1 (`P` White, `p` Black, digits for empty
//!   squares), then the side to move: `pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w`.
//! - **Game pair**: two games from the same opening with colours swapped; the unit of an
//!   engine test. **Round-robin**: everyone meets everyone; **gauntlet**: the first engine
//!   meets each other one.
//! - **Pentanomial** counts: game pairs by the tested engine's points (0, 1 or 2; with no draws
//!   in Breakthrough the cells for ½ and 1½ stay empty): `[LL, LD, WL, WD, WW]`.
//! - **Elo** (logistic), its 95% error bar, and **LOS**: the likelihood of superiority.
//! - **SPRT**: the sequential probability ratio test between two Elo hypotheses (elo0, elo1);
//!   its **LLR** (log-likelihood ratio) is followed game by game until it crosses a bound.
//! - **Adjudication**: the runner, not the engines, ends every game by its own rules; on
//!   request also before the rules do, on the engines' scores (resign) or on a proof by the
//!   rules of a forced win ([`rules::proof`], [`game::adjudication`]).
//! - **Bench** (OpenBench's convention): `ENGINE bench` searches fixed positions to a fixed
//!   depth and prints `N nodes M nps`; the node count is the build's **signature**, the speed
//!   the machine's. Engines built from a git revision (`src=`, [`engine::build`]) are checked
//!   by it, and `--scale-tc` scales clocks by it ([`tournament::prepare`]).
//!
//! # Examples
//!
//! Perft of the start position under the default (capture-only) rules:
//!
//! ```
//! use bt_arena::rules::perft::{PerftOptions, perft};
//! use bt_arena::rules::{Position, Rules};
//!
//! let start = Position::startpos();
//! assert_eq!(perft(&start, Rules::CaptureOnly, 4, PerftOptions::default()), 5184);
//! ```
//!
//! Parsing a FEN, playing a move, and the rules' verdict on an illegal one:
//!
//! ```
//! use bt_arena::rules::{Color, Position, Rules};
//!
//! let position: Position = "pppppppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPPPPP w".parse()?;
//! let mv = position.parse_move(Rules::CaptureOnly, "a2a3")?;
//! let after = position.play_unchecked(mv);
//! assert_eq!(after.side_to_move(), Color::Black);
//! // A diagonal step to an empty square is a capture-only rules violation.
//! assert!(position.parse_move(Rules::CaptureOnly, "a2b3").is_err());
//! assert!(position.parse_move(Rules::Classic, "a2b3").is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Elo from pentanomial counts (fishtest's formula):
//!
//! ```
//! use bt_arena::stats::{Pentanomial, elo_pentanomial};
//!
//! // 500 game pairs: 100 both lost, 250 one win each, 150 both won.
//! let pairs = Pentanomial { ll: 100, ld: 0, wl: 250, wd: 0, ww: 150 };
//! let estimate = elo_pentanomial(&pairs);
//! assert!((estimate.elo - 34.86).abs() < 0.01);
//! assert!((estimate.error95 - 21.56).abs() < 0.01);
//! assert!((estimate.los - 0.9993).abs() < 0.0001);
//! ```

#![warn(missing_docs)]
#![warn(clippy::cast_possible_truncation)]

pub mod arena;
pub mod book_build;
pub mod bundled;
pub mod check_engine;
pub mod datagen;
pub mod engine;
pub mod game;
pub mod lease;
pub mod named;
pub mod openings;
pub mod perft_check;
pub mod protocol;
pub mod records;
pub mod report;
pub mod rules;
pub mod run;
pub mod run_dir;
pub mod select;
pub mod session;
pub mod solve;
pub mod stats;
pub mod textfile;
pub mod time_control;
pub mod tournament;
pub mod tune;
