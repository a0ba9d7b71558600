#!/usr/bin/env bash
# Stops the one-node Slurm cluster scripts/slurm/cluster-up.sh started (slurmd, slurmctld,
# munged, each by its pid file) and puts back the slurm.conf it kept aside, the latest
# slurm.conf.bt-arena-backup-DATE, when there is one; bt-arena's own slurm.conf is left
# otherwise. The Debian packages stay installed (apt-get remove them if you wish).
#
#   scripts/slurm/cluster-down.sh [--dry-run]
#
# It says what it does before doing it; --dry-run says it and does nothing. SLURM_CONF names
# another file than /etc/slurm/slurm.conf, as for cluster-up.sh. Needs root.
set -euo pipefail

dry=no
case "${1:-}" in
  --dry-run) dry=yes ;;
  "") ;;
  *) echo "usage: $0 [--dry-run]" >&2; exit 2 ;;
esac

say() { echo "cluster-down: $*"; }
die() { echo "cluster-down: error: $*" >&2; exit 1; }

etc_conf="${SLURM_CONF:-/etc/slurm/slurm.conf}"

# The pid of a daemon that runs, from its pid file; nothing when it does not.
pid_of() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && cat "$1"; }

stops=()
for daemon in slurmd:/run/slurmd.pid slurmctld:/run/slurmctld.pid munged:/run/munge/munged.pid; do
  if pid="$(pid_of "${daemon#*:}")"; then stops+=("${daemon%%:*}:$pid"); fi
done
backup="$(ls -1 "$etc_conf".bt-arena-backup-* 2>/dev/null | sort | tail -n 1 || true)"

plan=()
for stop in "${stops[@]}"; do plan+=("stop ${stop%%:*} (pid ${stop#*:})"); done
if [ -n "$backup" ]; then plan+=("put $backup back as $etc_conf"); fi
if [ ${#plan[@]} -eq 0 ]; then
  say "no daemon of the cluster runs and no slurm.conf was kept aside: nothing to do"
fi
for step in "${plan[@]}"; do
  if [ "$dry" = yes ]; then say "would $step"; else say "will $step"; fi
done
[ "$dry" = no ] || exit 0
[ ${#plan[@]} -gt 0 ] || exit 0
[ "$(id -u)" = 0 ] || die "run as root (the daemons and their files are the system's)"

for stop in "${stops[@]}"; do
  kill "${stop#*:}" 2>/dev/null || true
done
# Each daemon ends within a few seconds of SIGTERM; one that does not is killed.
for stop in "${stops[@]}"; do
  for _ in $(seq 50); do kill -0 "${stop#*:}" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "${stop#*:}" 2>/dev/null; then
    kill -KILL "${stop#*:}" 2>/dev/null || true
    say "killed ${stop%%:*} (it did not end within 5 s of SIGTERM)"
  else
    say "stopped ${stop%%:*}"
  fi
done
if [ -n "$backup" ]; then
  mv "$backup" "$etc_conf"
  say "put $backup back as $etc_conf"
fi
