#!/usr/bin/env python3
"""Lazy SMP scaling: time to depth and nodes/second with 1 and with 2 threads.

Searches the first positions of the bench set (src/tools/bench.rs) to a fixed depth with each
thread count, a fresh 64 MiB hash per position, and reports the total and median speed-up.

    python3 scripts/threads.py [--engine target/release/zwischen] [--depth 16] [--positions 12]
"""

import argparse
import pathlib
import re
import statistics
import time

from uci_process import UciProcess

BENCH_SOURCE = pathlib.Path(__file__).resolve().parent.parent / "src" / "tools" / "bench.rs"


def bench_fens(count):
    text = BENCH_SOURCE.read_text()
    return re.findall(r'^\s*"([^"]+ [wb] [^"]+)",', text, re.M)[:count]


def run(command, threads, fens, depth):
    engine = UciProcess(command)
    engine.send(f"setoption name Threads value {threads}")
    engine.send("setoption name Hash value 64")
    seconds, speeds = [], []
    for fen in fens:
        engine.send("ucinewgame")
        engine.send(f"position fen {fen}")
        engine.send("isready")
        engine.wait_for("readyok")
        start = time.perf_counter()
        engine.send(f"go depth {depth}")
        last_info = ""
        while not (line := engine.read_line()).startswith("bestmove"):
            if line.startswith("info depth"):
                last_info = line
        seconds.append(time.perf_counter() - start)
        nps = re.search(r" nps (\d+)", last_info)
        speeds.append(int(nps.group(1)) if nps else 0)
    engine.quit()
    return seconds, speeds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="target/release/zwischen")
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--positions", type=int, default=12)
    args = parser.parse_args()
    fens = bench_fens(args.positions)
    one_time, one_nps = run(args.engine, 1, fens, args.depth)
    two_time, two_nps = run(args.engine, 2, fens, args.depth)
    print(f"{len(fens)} bench positions, depth {args.depth}")
    print(f"1 thread : {sum(one_time):.1f} s, median {statistics.median(one_nps) / 1e6:.2f} Mnps")
    print(f"2 threads: {sum(two_time):.1f} s, median {statistics.median(two_nps) / 1e6:.2f} Mnps")
    ratios = [a / b for a, b in zip(one_time, two_time)]
    print(f"time-to-depth speed-up: {sum(one_time) / sum(two_time):.2f}x in total, "
          f"{statistics.median(ratios):.2f}x median per position; "
          f"nps ratio {statistics.median(two_nps) / statistics.median(one_nps):.2f}x")


if __name__ == "__main__":
    main()
