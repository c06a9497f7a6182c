#!/usr/bin/env python3
"""Perft speed of Zwischen against Stockfish's `go perft`, measured the same way for both.

Both engines run as UCI processes; for each position the script times the exchange
`go perft N` -> `Nodes searched: ...` (start-up excluded), alternating the engines, and
reports the median nodes/second of each and their ratio. Single thread, no hash for both
(Stockfish's perft uses neither).

    python3 scripts/perft_vs_stockfish.py [--zwischen target/release/zwischen]
        [--stockfish /usr/games/stockfish] [--runs 5]
"""

import argparse
import statistics
import time

from uci_process import UciProcess

CASES = [
    ("startpos", "startpos", 6),
    ("kiwipete", "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
]


class Engine(UciProcess):
    def __init__(self, command):
        super().__init__(command)
        self.send("uci")
        self.wait_for("uciok")

    def perft(self, position, depth):
        self.send(f"position {position}")
        self.send("isready")
        self.wait_for("readyok")
        start = time.perf_counter()
        self.send(f"go perft {depth}")
        line = self.wait_for("Nodes searched")
        seconds = time.perf_counter() - start
        return int(line.split(":")[1]), seconds

    def close(self):
        self.send("quit")
        self.process.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zwischen", default="target/release/zwischen")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    engines = {"zwischen": Engine(args.zwischen), "stockfish": Engine(args.stockfish)}
    for name, position, depth in CASES:
        rates = {engine: [] for engine in engines}
        nodes_seen = {}
        for _ in range(args.runs):
            for engine_name, engine in engines.items():
                nodes, seconds = engine.perft(position, depth)
                nodes_seen.setdefault(engine_name, nodes)
                rates[engine_name].append(nodes / seconds)
        if len(set(nodes_seen.values())) != 1:
            raise SystemExit(f"{name}: node counts differ: {nodes_seen}")
        z = statistics.median(rates["zwischen"])
        s = statistics.median(rates["stockfish"])
        print(f"{name} depth {depth} ({nodes_seen['zwischen']} nodes): "
              f"zwischen {z / 1e6:.0f} Mnps, stockfish {s / 1e6:.0f} Mnps, ratio {z / s:.2f}")
    for engine in engines.values():
        engine.close()


if __name__ == "__main__":
    main()
