//! The `Examples:` sections of each subcommand's `--help` (clap's `after_long_help`), taken
//! from the everyday uses. `-h` leaves them out.

/// `bt-arena --help`: the exit codes every subcommand shares.
pub const TOP: &str = "\
Exit codes:
  0  success (an SPRT accepted H1, or a run complete without one)
  1  a check failed: a perft mismatch, an SPRT that accepted H0, a bench signature not the one given
  2  inconclusive: no SPRT decision over the whole schedule, or --max-time stopped the run first
  3  a bad command line (a flag of cutechess-cli or fastchess bt-arena has no use for gets a hint)
  4  any other error: a missing or malformed file, an engine that failed, a failed build
  5  a run incomplete (games of its schedule missing), with no verdict yet
  6  checks failed (--strict): an engine misbehaved (stray lines, illegal PVs, false claims,
     losses by fault); the run played on and its verdict is printed
  130  interrupted by Ctrl-C (continue with --resume DIR)

`bt-arena COMMAND --help` describes a command and its flags, with examples; -h summarizes them.";

/// `bt-arena tournament --help`.
pub const TOURNAMENT: &str = "\
Examples:
  Compare a new version with the base by an SPRT (exit 0 H1 accepted, 1 H0, 2
  no decision):
    bt-arena tournament --engine cmd=./new name=new \\
      --engine cmd=./base name=base \\
      --each tc=8+0.08 --rounds 2000 --concurrency 2 --sprt elo0=0,elo1=5

  A round-robin of three engines at a fixed depth, from the shipped book:
    bt-arena tournament --engine cmd=./a --engine cmd=./b --engine cmd=./c \\
      --each depth=6 --rounds 50

  Continue an interrupted run (--concurrency, --log and --max-time may change):
    bt-arena tournament --resume results/new-vs-base

  One shard of a run on a cluster, a Slurm array task (every shard the same
  flags; the first decides the seed), then the shards joined:
    bt-arena tournament ... --out /shared/runs/x --shard auto
    bt-arena merge /shared/runs/x

  The bundled engines' demonstration:
    bt-arena tournament";

/// `bt-arena elo --help`.
pub const ELO: &str = "\
Examples:
  The report and verdict of a run, as merge and report give them (exit 0, 1, 2
  or 5):
    bt-arena elo results/new-vs-base

  An SPRT replayed over games files (bt-arena's, cutechess-cli's, fastchess's):
    bt-arena elo --sprt elo0=0,elo1=5 games.csv
    bt-arena elo --json cutechess.pgn";

/// `bt-arena merge --help`.
pub const MERGE: &str = "\
Examples:
  Join the shards of a run in its directory (exit: the run's verdict; 5 when
  games are missing):
    bt-arena merge /shared/runs/x

  Shards collected from machines that shared no directory:
    bt-arena merge --out merged runner0/shard-0 runner1/shard-1";

/// `bt-arena report --help`.
pub const REPORT: &str = "\
Examples:
  The page of a run (report.html in it):
    bt-arena report results/new-vs-base

  A page of another tool's games:
    bt-arena report cutechess.pgn --out page.html";

/// `bt-arena perft --help`.
pub const PERFT: &str = "\
Examples:
  Counts and speed for depths 1 to 6, then per root move:
    bt-arena perft 6
    bt-arena perft --divide 5

  Check the rules against a suite (exit 1 on a mismatch):
    bt-arena perft --suite tests/perft/capture-only.epd";

/// `bt-arena perft-check --help`.
pub const PERFT_CHECK: &str = "\
Examples:
  An engine's move generator against the rules, walked down to the faulty
  position (the engine key depth=N is the depth of the searches whose bestmove
  is judged):
    bt-arena perft-check --engine cmd=./my-engine --perft-depth 5
    bt-arena perft-check --engine cmd=./my-engine \\
      --suite tests/perft/capture-only.epd --random 20";

/// `bt-arena check-engine --help`.
pub const CHECK_ENGINE: &str = "\
Examples:
  Every check, one line each (exit 1 when one fails):
    bt-arena check-engine --engine cmd=./my-engine
    bt-arena check-engine --engine cmd=./my-engine --quick --json";

/// `bt-arena tune --help`.
pub const TUNE: &str = "\
Examples:
  Tune bt-search's weights at a fast fixed limit, then continue after an
  interruption:
    bt-arena tune --engine cmd=bt-search nodes=2000 --params weights.txt \\
      --iterations 2000 --concurrency 2 --out results/tune
    bt-arena tune --resume results/tune";

/// `bt-arena select --help`.
pub const SELECT: &str = "\
Examples:
  The best of three settings of an option, against the current one, 5 Elo
  apart or more (exit 0: the chosen one beats the base, 1: none does):
    bt-arena select --engine cmd=./engine name=base \\
      --engine cmd=./engine name=x10 option.X=10 \\
      --engine cmd=./engine name=x20 option.X=20 \\
      --engine cmd=./engine name=x30 option.X=30 \\
      --base base --each nodes=2000 --indifference 5 --confidence 0.95 \\
      --concurrency 2 --out results/x

  At most 20000 games (exit 2 with who leads when they run out):
    bt-arena select ... --budget 20000

  Continue it after an interruption, or rebuild its report from the directory:
    bt-arena select --resume results/x
    bt-arena elo results/x
    bt-arena report results/x";

/// `bt-arena datagen --help`.
pub const DATAGEN: &str = "\
Examples:
  A million positions of bt-search at 5000 nodes, 8-12 random plies from the
  start position, two games at a time; then the text of the same games, quiet
  positions only:
    bt-arena datagen --engine cmd=bt-search nodes=5000 --positions 1000000 \\
      --startpos --random-plies 8-12 --concurrency 2 --out results/data
    bt-arena datagen convert results/data --format text --skip-captures \\
      --out quiet.txt";

/// `bt-arena openings --help`.
pub const OPENINGS: &str = "\
Examples:
  A book of 500 balanced positions 4 plies deep, then its statistics:
    bt-arena openings generate --rules classic --plies 4 --count 500 \\
      --seed 1 --out book.epd
    bt-arena openings check --rules classic book.epd

  What the shipped book's openings did in two runs, and which to prune:
    bt-arena openings check openings/capture-only.epd --runs results/a results/b";

/// `bt-arena sprt --help`.
pub const SPRT: &str = "\
Examples:
  The cost of [0, 5] on an unbiased book, at seven true Elos:
    bt-arena sprt elo0=0,elo1=5

  Normalized bounds, on a book measured from a run, at chosen Elos, as JSON:
    bt-arena sprt elo0=0,elo1=2,model=normalized --runs results/a \\
      --elo -1,0,1,2,3 --json";

/// `bt-arena generate --help`.
pub const GENERATE: &str = "\
Examples:
  The man pages where man finds them (man1/ and man5/ under the directory):
    bt-arena generate man ~/.local/share/man
  Bash completion, loaded by bash-completion in new shells:
    mkdir -p ~/.local/share/bash-completion/completions
    bt-arena generate completions bash \\
      > ~/.local/share/bash-completion/completions/bt-arena";

/// `bt-arena bench --help`.
pub const BENCH: &str = "\
Examples:
  An engine's bench signature and speed (OpenBench's `ENGINE bench`):
    bt-arena bench --engine cmd=bt-search
  A build of a commit, checked against its known signature (exit 1 when it
  differs):
    bt-arena bench --engine src=. rev=main build=\"cargo build --release\" \\
      bin=target/release/my-engine bench=8081473";

/// `bt-arena prove --help`.
pub const SOLVE: &str = "\
Examples:
  Prove 5x5 under classic rules a win for the second player in 26 plies (20 minutes or more):
    bt-arena solve --board 5x5 --rules classic
  A long solve that can be stopped (Ctrl-C) and resumed by the same command:
    bt-arena solve --board 6x5 --rules classic --hash 4096 --resume 6x5.state
  Solve a position of 5x5, with the result as JSON:
    bt-arena solve --board 5x5 --fen '5/1p1pp/2P2/PP3/5 b' --json";

pub const PROVE: &str = "\
Examples:
  Check a false mate claim the claims table names (it prints its reproduction line):
    bt-arena prove --fen '8/P7/8/8/8/8/7p/8 w' --plies 3";
