//! The `--help` of the engine keys (`--engine`, `--each`), in every command that takes
//! engines.

/// The engine keys: the `-h` line of `--engine`.
pub(super) const ENGINE_HELP: &str = "An engine, as KEY=VALUE words: cmd=PATH [name=N] [tc=10+0.1 | depth=N ...] (--help lists every key)";

/// The engine keys, every one with its default: the `--help` of `--engine` in every command.
///
/// Each key on a line of its own and its description below it, every line at most 62
/// columns: what fits beside the indent of an option's text in `--help` (10 columns) and in
/// a man page (14) at 80 columns, so the table keeps its shape in both (each line starts with
/// spaces, which is a line break in roff too; a longer one would wrap out of alignment).
pub(super) const ENGINE_LONG_HELP: &str = "\
An engine, as KEY=VALUE words (cutechess-cli's):
  cmd=PATH
      the executable (a bare name is looked up in PATH;
      bt-search, bt-random, bt-faulty first beside bt-arena)
  name=NAME
      its name in reports (default: the file name of cmd)
  args=\"A B\", arg=A
      arguments: split at spaces, or one at a time (repeat
      arg=)
  dir=DIR
      its working directory (default: bt-arena's)
  proto=ugi|uci|codingame
      the protocol (default ugi); codingame: a CodinGame bot,
      a process per game, no options (args may hold {NAME},
      filled by option.NAME=VALUE or a tune's parameter)
  moveorder=codingame|sorted|shuffled
      a bot's order of the legal moves (default codingame)
  option.NAME=VALUE
      an engine option, sent in the order given
  tc=[MOVES/]BASE[+INC]
      a clock in seconds: 10+0.1, 40/60 (60 s per 40
      moves); BASE also as M:SS (1:00+1); tc=inf: no clock,
      with one of:
  st=SECONDS | depth=N | nodes=N
      a fixed limit per move instead of a clock (default:
      tc=2+0.02 in tournament and tune; depth=1 in
      perft-check; check-engine and bench use none)
  tc=codingame[:FIRST,TURN]
      CodinGame's clock: FIRST ms for the first turn, TURN
      ms for each later one (1000,100; a bot's default)
  timemargin=MS
      grace for a late move before it loses on time
      (default 100; 0 for a bot)
  handshake=SECONDS
      how long the handshake (ugi/uci) may take (default 10)
  isready=SECONDS
      how long each isready may take (default 10)
  restart=on|off
      a new process for every game (default off)
  bench=N
      the node count its bench must print, checked before
      any game

Or built from a git revision, instead of cmd=:
  src=REPO [rev=REF] [build=\"CMD\"] bin=RELPATH
      the repository (a path or URL), the revision (default
      HEAD), the build command (default: none) and the
      executable in the checkout; built once per commit in the
      build cache";

/// `--each`, in every command that has it.
pub(super) const EACH_HELP: &str =
    "Engine keys for every --engine (an engine's own keys win), e.g. --each tc=10+0.1 proto=uci";
