#!/bin/bash
# A burst of self-play data on a many-core machine that is free for a short while: eight
# `zwischen datagen` processes share its cores for SECONDS, each appending to its own file in
# OUTDIR (a file holds about 1.7 M positions, some 10 MB, at 2500 nodes a move after 10
# minutes of two threads). Stopping a generator loses at most the games in progress: each
# game is written whole. Each generator's log goes to LOGDIR (by default a new folder made
# with mktemp under $TMPDIR or /tmp, named at the start); the last line of each is printed at
# the end.
#
#   scripts/datagen_burst.sh BINARY SECONDS SEED_BASE OUTDIR [LOGDIR]
#
# Run it from the repository root (the generators read the 3-4 piece tables of
# tests/data/syzygy). Build BINARY for a baseline the burst machine has, not for the machine
# you build on: a `target-cpu=native` build on a processor with AVX-512 dies with "Illegal
# instruction" on one without it (2026-12-04, the first burst). The script stops at once when
# the binary cannot run there, so a wrong build costs seconds, not the machine's time:
#
#   RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR=target/x86-64-v3 cargo build --release
#
# Seeds are SEED_BASE+1 .. SEED_BASE+8 (one per file); give each burst a new SEED_BASE.
set -u
if [ $# -lt 4 ] || [ $# -gt 5 ]; then
  echo "usage: $0 BINARY SECONDS SEED_BASE OUTDIR [LOGDIR]" >&2
  exit 2
fi
binary=$1 seconds=$2 seed_base=$3 outdir=$4
case "$seconds$seed_base" in
  *[!0-9]*) echo "SECONDS and SEED_BASE must be whole numbers" >&2; exit 2 ;;
esac
if [ $# -eq 5 ]; then
  logdir=$5
  mkdir -p "$logdir" || exit 1
else
  logdir=$(mktemp -d "${TMPDIR:-/tmp}/datagen-burst.XXXXXX") || exit 1
fi
threads=$(( $(nproc) / 8 ))
[ "$threads" -lt 1 ] && threads=1
echo "nproc $(nproc): 8 generators x $threads threads for $seconds s; logs in $logdir"
chmod +x "$binary"
if ! "$binary" perft 4 >/dev/null; then
  echo "the binary does not run here; this processor has:"
  grep -m1 '^flags' /proc/cpuinfo
  exit 1
fi
mkdir -p "$outdir"
pids=""
for i in 1 2 3 4 5 6 7 8; do
  seed=$(( seed_base + i ))
  "$binary" datagen --games 10000000 --nodes 2500 --threads "$threads" --seed "$seed" \
    --syzygy-path tests/data/syzygy --out "$outdir/burst-n2500-s$seed.zg" \
    2>"$logdir/burst-$seed.log" &
  pids="$pids $!"
done
sleep "$seconds"
kill $pids 2>/dev/null
wait
for i in 1 2 3 4 5 6 7 8; do tail -n 1 "$logdir/burst-$(( seed_base + i )).log"; done
ls -l "$outdir"
