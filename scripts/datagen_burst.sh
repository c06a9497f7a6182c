#!/bin/bash
# A burst of self-play data on a borrowed many-core machine (the device machine): eight
# `zwischen datagen` processes share its cores for SECONDS, each appending to its own file in
# OUTDIR (at most eight files come back from that machine, 16 MiB each: a file holds about
# 1.7 M positions at 2500 nodes a move in 10 minutes of two threads, so eight stay far under).
# Stopping a generator loses at most the games in progress: each game is written whole.
#
#   scripts/datagen_burst.sh BINARY SECONDS SEED_BASE OUTDIR
#
# Build BINARY for a baseline the borrowed machine has, not for this one: the default
# `target-cpu=native` here includes AVX-512, and such a binary dies on that machine with
# "Illegal instruction" (2026-12-04, the first burst). The script stops at once when the binary
# cannot run there, so a wrong build costs seconds, not the lease:
#
#   RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR=/tmp/tgt-v3 cargo build --release
#
# Seeds are SEED_BASE+1 .. SEED_BASE+8 (one per file); give each burst a new SEED_BASE.
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 BINARY SECONDS SEED_BASE OUTDIR" >&2
  exit 2
fi
binary=$1 seconds=$2 seed_base=$3 outdir=$4
threads=$(( $(nproc) / 8 ))
[ "$threads" -lt 1 ] && threads=1
echo "nproc $(nproc): 8 generators x $threads threads for $seconds s"
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
    2>"/tmp/burst-$seed.log" &
  pids="$pids $!"
done
sleep "$seconds"
kill $pids 2>/dev/null
wait
for i in 1 2 3 4 5 6 7 8; do tail -n 1 "/tmp/burst-$(( seed_base + i )).log"; done
ls -l "$outdir"
