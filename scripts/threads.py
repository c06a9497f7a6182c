#!/usr/bin/env python3
"""Lazy SMP scaling and the hash table: time to depth with each hash size and thread count.

Searches the first positions of the bench set (src/tools/bench.rs) to the deepest of --depths
with each --hash size and --threads count, a fresh hash per position (`ucinewgame`), and
reports for each depth the total time to complete it over the positions and the median
nodes a second; with several thread counts also each count's speed-up over the first.

    python3 scripts/threads.py [--engine target/release/zwischen] [--depths 18,22]
        [--hash 64] [--threads 1,2] [--positions 12]

`--hash 16,64,256` measures every size in turn. A position whose search has not reached a
depth within --limit seconds is stopped there and counts as missing at the depths beyond.
"""

import argparse
import pathlib
import re
import statistics

from uci_process import UciProcess

BENCH_SOURCE = pathlib.Path(__file__).resolve().parent.parent / "src" / "tools" / "bench.rs"


def bench_fens(count):
    text = BENCH_SOURCE.read_text()
    return re.findall(r'^\s*"([^"]+ [wb] [^"]+)",', text, re.M)[:count]


def numbers(text):
    return [int(part) for part in text.split(",")]


def search(engine, fen, depth, limit_ms):
    """Milliseconds at which each depth was completed, and the last nodes-a-second figure."""
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.send("isready")
    engine.wait_for("readyok")
    engine.send(f"go depth {depth} movetime {limit_ms}")
    completed, nps = {}, 0
    while not (line := engine.read_line()).startswith("bestmove"):
        match = re.match(r"info depth (\d+) .*? multipv 1 score \S+ -?\d+ (?!lowerbound|upperbound)", line)
        if match and " time " in line:
            reached = int(match.group(1))
            completed.setdefault(reached, int(re.search(r" time (\d+)", line).group(1)))
            nps = int(re.search(r" nps (\d+)", line).group(1))
    return completed, nps


def run(command, hash_mb, threads, fens, depths, limit_ms):
    engine = UciProcess(command)
    engine.send(f"setoption name Threads value {threads}")
    engine.send(f"setoption name Hash value {hash_mb}")
    engine.send("setoption name UCI_Chess960 value true")
    results = [search(engine, fen, max(depths), limit_ms) for fen in fens]
    engine.quit()
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="target/release/zwischen")
    parser.add_argument("--depths", "--depth", type=numbers, default=[16])
    parser.add_argument("--hash", type=numbers, default=[64], help="MiB, comma-separated")
    parser.add_argument("--threads", type=numbers, default=[1, 2])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--limit", type=float, default=120.0, help="seconds a position at most")
    args = parser.parse_args()
    fens = bench_fens(args.positions)
    print(f"{len(fens)} bench positions; seconds to complete each depth, all positions together")
    for hash_mb in args.hash:
        baseline = None
        for threads in args.threads:
            results = run(args.engine, hash_mb, threads, fens, args.depths, int(args.limit * 1000))
            totals = {}
            for depth in args.depths:
                times = [completed.get(depth) for completed, _ in results]
                totals[depth] = None if None in times else sum(times) / 1000
            median_nps = statistics.median(nps for _, nps in results) / 1e6
            cells = []
            for depth in args.depths:
                total = totals[depth]
                cell = f"depth {depth} " + ("missing" if total is None else f"{total:.2f} s")
                if baseline and total and baseline.get(depth):
                    cell += f" ({baseline[depth] / total:.2f}x)"
                cells.append(cell)
            print(f"Hash {hash_mb:>4} MiB, {threads} thread{'s' if threads > 1 else ' '}: "
                  + ", ".join(cells) + f"; median {median_nps:.2f} Mnps", flush=True)
            baseline = baseline or totals


if __name__ == "__main__":
    main()
