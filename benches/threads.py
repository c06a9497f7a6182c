#!/usr/bin/env python3
"""Lazy SMP scaling: time to depth and nodes/second with 1 and with 2 threads.

Searches the first positions of the bench set (src/bench.rs) to a fixed depth with each
thread count, a fresh 64 MiB hash per position, and reports the total and median speed-up.

    python3 benches/threads.py [--engine target/release/zwischen] [--depth 16] [--positions 12]
"""

import argparse
import pathlib
import re
import statistics
import subprocess
import time

BENCH_SOURCE = pathlib.Path(__file__).resolve().parent.parent / "src" / "bench.rs"


def bench_fens(count):
    text = BENCH_SOURCE.read_text()
    return re.findall(r'^\s*"([^"]+ [wb] [^"]+)",', text, re.M)[:count]


def run(engine, threads, fens, depth):
    process = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, bufsize=1)

    def send(line):
        process.stdin.write(line + "\n")
        process.stdin.flush()

    def wait_for(prefix):
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            if line.startswith(prefix):
                return line

    send(f"setoption name Threads value {threads}")
    send("setoption name Hash value 64")
    seconds, speeds = [], []
    for fen in fens:
        send("ucinewgame")
        send(f"position fen {fen}")
        send("isready")
        wait_for("readyok")
        start = time.perf_counter()
        send(f"go depth {depth}")
        last_info = ""
        while True:
            line = process.stdout.readline()
            if line.startswith("info depth"):
                last_info = line
            if line.startswith("bestmove") or not line:
                break
        seconds.append(time.perf_counter() - start)
        nps = re.search(r" nps (\d+)", last_info)
        speeds.append(int(nps.group(1)) if nps else 0)
    send("quit")
    process.wait()
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
