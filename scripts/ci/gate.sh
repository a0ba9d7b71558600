#!/usr/bin/env bash
# gate.sh: the CI gate of an engine's repository. Builds two revisions of the engine with
# bt-arena (engines built from source: src= rev= build= bin=, through bt-arena's build cache),
# checks their bench, plays an SPRT of the head revision against the base one, and exits
# with the verdict. report.html, games.pgn, games.csv, summary.json and the build logs stay in
# the run's directory under the output directory, to keep as the job's artifacts.
#
# Each (base commit, head commit, settings) has a directory of its own, OUT/BASE-HEAD-SETTINGS
# (12 digits of each commit, 8 of a hash of the settings that make the games): the gate run
# again with the same arguments resumes it, so it continues an interrupted run or reports the
# verdict of a finished one without playing a game again. Other commits or settings start
# another directory.
#
# Usage:
#   gate.sh --base REV --bin RELPATH [--head REV] [--repo PATH|URL] [--build "CMD"]
#           [--sprt "elo0=0 elo1=5 alpha=0.05 beta=0.05"] [--rounds N] [--max-time DURATION]
#           [--limit "tc=8+0.08"] [--concurrency N] [--openings FILE] [--rules RULES]
#           [--out DIR] [--bt-arena PATH] [--build-cache DIR] [--strict]
#           [-- MORE TOURNAMENT FLAGS]
#
#   --repo       the engine's git repository, a path or a URL (default: .)
#   --base       the revision tested against (e.g. origin/main); required
#   --head       the revision tested (default: HEAD)
#   --build      the build command, run by sh in a checkout of each revision (default: none)
#   --bin        the engine's executable in the checkout once built; required
#   --sprt       the SPRT bounds (default: elo0=0 elo1=5 alpha=0.05 beta=0.05; a
#                non-regression test is e.g. "elo0=-10 elo1=0")
#   --rounds     the budget in game pairs (default: 2000)
#   --max-time   a wall-clock budget (e.g. 45m): no new game pair starts after it
#   --limit      each engine's search limit, an --engine key (default: tc=8+0.08)
#   --concurrency games at a time (default: the number of CPUs)
#   --openings   an opening book (default: 1000 openings generated into the output directory)
#   --rules      capture-only (default) or classic
#   --out        the output directory, holding one run directory per commits and settings
#                (default: gate-results)
#   --bt-arena   the bt-arena executable (default: bt-arena on PATH)
#   --build-cache where builds are kept (default: $BT_ARENA_BUILD_CACHE, else ~/.cache/bt-arena/builds)
#   --strict     exit 6 when an engine misbehaved (stray lines, illegal PVs, false mate claims,
#                illegal ponder moves, losses by fault), whatever the verdict (bt-arena's
#                tournament --strict; docs/guide/checks.md)
#
# Exit codes (bt-arena's): 0 H1 accepted (head is better; with non-regression bounds: no
# regression), 1 H0 accepted (reject), 2 no decision within the budget, 3 a bad command line,
# 4 a failed build (its command, commit and last log lines on stderr; the whole log in the
# run directory's logs/) or any other error, 6 with --strict: an engine misbehaved (the
# verdict is printed all the same).
set -uo pipefail

usage() {
  sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  exit 3
}

repo=. base= head=HEAD build= bin= sprt="elo0=0 elo1=5 alpha=0.05 beta=0.05" rounds=2000
max_time= limit="tc=8+0.08" concurrency= openings= rules=capture-only out=gate-results
bt_arena=bt-arena build_cache= strict=
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --head) head=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --sprt) sprt=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --max-time) max_time=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --openings) openings=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bt-arena) bt_arena=$2; shift 2 ;;
    --build-cache) build_cache=$2; shift 2 ;;
    --strict) strict=yes; shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "gate.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
if [ -z "$base" ] || [ -z "$bin" ]; then
  echo "gate.sh: --base REV and --bin RELPATH are required" >&2
  usage
fi
if ! command -v "$bt_arena" >/dev/null 2>&1; then
  echo "gate.sh: bt-arena not found ('$bt_arena'): install it (cargo install --path BT_ARENA_CHECKOUT) or pass --bt-arena PATH" >&2
  exit 4
fi
if [ -z "$concurrency" ]; then
  concurrency=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
fi

# The commit a revision names: in the repository itself, or as its remote lists it.
commit_of() {
  local rev=$1
  if [ -d "$repo" ]; then
    git -C "$repo" rev-parse --verify --quiet "$rev^{commit}"
  elif [[ $rev =~ ^[0-9a-f]{40}$ ]]; then
    echo "$rev"
  else
    git ls-remote -- "$repo" "$rev" 2>/dev/null | head -1 | cut -f1 | grep .
  fi
}
base_commit=$(commit_of "$base") || {
  echo "gate.sh: --base $base is not a commit of $repo" >&2
  exit 3
}
head_commit=$(commit_of "$head") || {
  echo "gate.sh: --head $head is not a commit of $repo" >&2
  exit 3
}

mkdir -p "$out" || exit 4
if [ -z "$openings" ]; then
  openings="$out/openings.epd"
  if [ ! -s "$openings" ]; then
    "$bt_arena" openings generate --rules "$rules" --plies 8 --count 1000 --seed 1 \
      --out "$openings" >/dev/null || exit 4
  fi
fi

# What makes the games (not --concurrency, --max-time, --build-cache or where things go).
settings=$(printf '%s\0' "$repo" "$build" "$bin" "$sprt" "$rounds" "$limit" "$openings" "$rules" "$@" |
  git hash-object --stdin) || exit 4
run="$out/${base_commit:0:12}-${head_commit:0:12}-${settings:0:8}"

each=(bin="$bin" "$limit")
[ -n "$build" ] && each+=(build="$build")
session=(--concurrency "$concurrency")
[ -n "$max_time" ] && session+=(--max-time "$max_time")
[ -n "$build_cache" ] && session+=(--build-cache "$build_cache")
[ -n "$strict" ] && session+=(--strict)

echo "gate: $head against $base of $repo, SPRT $sprt, at most $rounds game pairs${max_time:+ or $max_time}"
# A run of these commits and settings that reached its verdict (or played its whole schedule)
# is reported as it stands: `bt-arena elo` exits with the verdict, and with 5 while games of
# the schedule are missing (an interrupted run, which is resumed).
finished=
if [ -f "$run/config.json" ]; then
  "$bt_arena" elo "$run" >/dev/null 2>&1
  case $? in 0|1|2) finished=yes ;; esac
fi
if [ -n "$finished" ]; then
  echo "gate: $run already holds the verdict of these commits and settings; no game is played"
  "$bt_arena" elo "$run"
elif [ -f "$run/config.json" ]; then
  # The same commits and settings, cut short: continue the run.
  echo "gate: resuming $run (these commits and settings were started before)"
  "$bt_arena" tournament --resume "$run" "${session[@]}"
else
  echo "gate: results in $run"
  "$bt_arena" tournament \
    --engine src="$repo" rev="$head" name=head \
    --engine src="$repo" rev="$base" name=base \
    --each "${each[@]}" --rules "$rules" --rounds "$rounds" --games 2 \
    --openings file="$openings" order=random --sprt "$sprt" --event gate --out "$run" \
    "${session[@]}" "$@"
fi
status=$?
case $status in
  0) verdict="PASS: H1 accepted (head is better than base by the SPRT's bounds)" ;;
  1) verdict="FAIL: H0 accepted (head is not better than base by the SPRT's bounds)" ;;
  2) verdict="NO DECISION within the budget" ;;
  3) verdict="ERROR: a bad command line" ;;
  6) verdict="FAIL: checks failed (--strict): an engine misbehaved, named above with the verdict" ;;
  *) verdict="ERROR (exit $status): see above" ;;
esac
# Only what is there: no page after a build that failed, no logs before a build.
[ -d "$run/logs" ] && [ "$status" -gt 3 ] && verdict="$verdict; build logs in $run/logs/"
[ -f "$run/report.html" ] && verdict="$verdict; report: $run/report.html"
echo "gate: $verdict"
exit $status
