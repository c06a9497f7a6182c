#!/usr/bin/env python3
"""Start-up time and memory of the engine process (Linux: reads /proc).

1. `uci` -> `uciok` time, process start included, over 50 starts.
2. For several Hash sizes and each `Threads` of --threads: resident memory (RSS) when
   idle and after three 4-second searches, against the budget of Hash + 32 MiB, and the
   number of threads the process has.

    python3 scripts/resources.py [--engine target/release/zwischen] [--threads 1,2,8]
        [--hash 1,16,64,256,1024]
"""

import argparse
import statistics
import time

from uci_process import UciProcess

POSITIONS = [
    "startpos",
    "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
]


def status_field(pid, name):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    return 0


class Engine(UciProcess):
    def rss_mib(self):
        return status_field(self.process.pid, "VmRSS") / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="target/release/zwischen")
    parser.add_argument("--threads", default="1",
                        help="the Threads values to measure memory at, e.g. 1,2,8")
    parser.add_argument("--hash", default="1,16,64,256,1024",
                        help="the Hash sizes (MiB) to measure memory at")
    args = parser.parse_args()

    startup_ms = []
    for _ in range(50):
        start = time.perf_counter()
        engine = Engine(args.engine)
        engine.send("uci")
        engine.wait_for("uciok")
        startup_ms.append((time.perf_counter() - start) * 1000)
        engine.quit()
    print(f"uci -> uciok, process start included, 50 starts: "
          f"median {statistics.median(startup_ms):.1f} ms, max {max(startup_ms):.1f} ms")

    for search_threads, hash_mib in [(t, h) for t in map(int, args.threads.split(","))
                                     for h in map(int, args.hash.split(","))]:
        engine = Engine(args.engine)
        engine.send("uci")
        engine.wait_for("uciok")
        engine.send(f"setoption name Threads value {search_threads}")
        engine.send(f"setoption name Hash value {hash_mib}")
        engine.send("isready")
        engine.wait_for("readyok")
        idle = engine.rss_mib()
        peak = idle
        for position in POSITIONS:
            engine.send(f"position {position}")
            engine.send("go movetime 4000")
            engine.wait_for("bestmove")
            peak = max(peak, engine.rss_mib())
        threads = status_field(engine.process.pid, "Threads")
        engine.quit()
        print(f"Threads {search_threads}, Hash {hash_mib:5} MiB: RSS idle {idle:7.1f} MiB, after searching {peak:7.1f} MiB "
              f"(budget {hash_mib + 32} MiB), {threads} threads")


if __name__ == "__main__":
    main()
