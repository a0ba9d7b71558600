#!/usr/bin/env bash
# Brings up a one-node Slurm cluster on this machine, for testing bt-arena's Slurm jobs
# (tests/it/slurm.rs): munged, slurmctld and slurmd, configured by scripts/slurm/slurm.conf with
# the node `localhost` and this machine's CPU count. Idempotent: starts only what is not
# running, and waits (at most 60 s) until the node takes jobs.
#
#   scripts/slurm/cluster-up.sh [--dry-run]
#
# It says what it does before doing it; --dry-run says it and does nothing (any user). A
# slurm.conf already there that is not bt-arena's (no `ClusterName=btarena`) is kept beside
# it, as slurm.conf.bt-arena-backup-DATE, before ours is written; scripts/slurm/cluster-down.sh
# stops the daemons and puts it back. SLURM_CONF, which Slurm itself reads, names another
# file than /etc/slurm/slurm.conf.
#
# Needs root and the Debian packages slurm-wlm and munge (apt-get install slurm-wlm munge).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

dry=no
case "${1:-}" in
  --dry-run) dry=yes ;;
  "") ;;
  *) echo "usage: $0 [--dry-run]" >&2; exit 2 ;;
esac

say() { echo "cluster-up: $*"; }
die() { echo "cluster-up: error: $*" >&2; exit 1; }

etc_conf="${SLURM_CONF:-/etc/slurm/slurm.conf}"

# Running: a process with the pid in its pid file.
running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# The configuration, with this machine's CPU count (a node configured with more CPUs than it
# has is drained).
conf="$(mktemp)"
trap 'rm -f "$conf"' EXIT
sed "s/^NodeName=localhost CPUs=[0-9]*/NodeName=localhost CPUs=$(nproc)/" "$here/slurm.conf" >"$conf"
backup=""
if [ -e "$etc_conf" ] && ! cmp -s "$conf" "$etc_conf" && ! grep -q '^ClusterName=btarena$' "$etc_conf"; then
  backup="$etc_conf.bt-arena-backup-$(date -u +%Y%m%d-%H%M%S)"
fi

# What will be done, said first.
plan=()
if [ -n "$backup" ]; then
  plan+=("keep $etc_conf, which is not bt-arena's, as $backup")
fi
if ! cmp -s "$conf" "$etc_conf" 2>/dev/null; then
  plan+=("write $etc_conf (bt-arena's one-node cluster, from scripts/slurm/slurm.conf)")
fi
[ -s /etc/munge/munge.key ] || plan+=("create /etc/munge/munge.key")
start=()
{ command -v munge >/dev/null && munge -n 2>/dev/null | unmunge >/dev/null 2>&1; } || start+=(munged)
running /run/slurmctld.pid || start+=(slurmctld)
running /run/slurmd.pid || start+=(slurmd)
if [ ${#start[@]} -gt 0 ]; then
  plan+=("start ${start[*]} (scripts/slurm/cluster-down.sh stops them)")
fi
if [ ${#plan[@]} -eq 0 ]; then
  say "the cluster is configured and its daemons run: nothing to do"
fi
for step in "${plan[@]}"; do
  if [ "$dry" = yes ]; then say "would $step"; else say "will $step"; fi
done
[ "$dry" = no ] || exit 0

[ "$(id -u)" = 0 ] || die "run as root (the daemons and their directories are the system's)"
for tool in munged slurmctld slurmd scontrol sinfo; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found: apt-get install slurm-wlm munge"
done

mkdir -p "$(dirname "$etc_conf")" /var/spool/slurmd /var/spool/slurmctld /var/log/slurm /run/munge

changed=no
if [ -n "$backup" ]; then
  cp -p "$etc_conf" "$backup"
  say "kept $etc_conf as $backup"
fi
if ! cmp -s "$conf" "$etc_conf"; then
  install -m 644 "$conf" "$etc_conf"
  changed=yes
  say "installed $etc_conf"
fi

# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds=$1; shift
  for _ in $(seq $((seconds * 5))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  "$@"
}

# munge: the key (the Debian package makes one at installation), then the daemon.
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
  say "created /etc/munge/munge.key"
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  munged --force
  say "started munged"
fi
munge_works() { munge -n | unmunge; }
wait_for 10 munge_works >/dev/null || die "munged does not answer (see its log under /var/log/munge)"

ctld_up() { scontrol ping | grep -q 'is UP'; }
if running /run/slurmctld.pid && ctld_up >/dev/null 2>&1; then
  if [ "$changed" = yes ]; then scontrol reconfigure && say "reconfigured slurmctld"; fi
else
  slurmctld
  say "started slurmctld"
fi
wait_for 30 ctld_up || die "slurmctld is not up: see /var/log/slurm/slurmctld.log"

if ! running /run/slurmd.pid; then
  slurmd -N localhost
  say "started slurmd"
fi

node_state() { sinfo -h -n localhost -o %T; }
node_ready() { node_state | grep -Eq '^(idle|mixed|allocated|completing)'; }
if ! wait_for 30 node_ready >/dev/null; then
  # A node that was down (e.g. slurmd restarted after a reboot) returns to service.
  scontrol update nodename=localhost state=resume 2>/dev/null || true
  wait_for 30 node_ready >/dev/null \
    || die "node localhost is $(node_state) instead of idle: see /var/log/slurm/slurmd.log"
fi
say "node localhost is $(node_state); sinfo:"
sinfo
