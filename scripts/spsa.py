#!/usr/bin/env python3
"""SPSA tuning of Zwischen's search constants: plays game pairs between two copies of a
tuning build, one a little above and one a little below the current values, and moves the
values toward the side that won.

The build (`cargo build --release --features tune`) has a UCI option for each tunable of
`src/search/params.rs`; `zwischen tunables` lists them with their ranges and final steps,
which this runner takes as they are (or only those named with --param). The schedule is
OpenBench's: with N pairs in all, the perturbation of a value at pair k is
c_end * (N / (k + 1))^0.101 and its learning rate makes the step r_end * c_end^2 at the end.

    cargo build --release --features tune --target-dir target/tune
    python3 scripts/spsa.py --engine target/tune/release/zwischen \\
        --openings openings.epd --pairs 20000 --tc 8+0.08 --concurrency 2 --state spsa.json
    python3 scripts/spsa.py --engine target/tune/release/zwischen \\
        --openings openings.epd --pairs 8000 --nodes 40000 --state docs/spsa/run.json

With --nodes every move searches that many nodes instead of using a clock: games need no
quiet machine, and the time-management tunables (tm_*), which a node count ignores, are
left out. The state file is written after every pair: the schedule the run began with
(pairs, limit, seed, a and c per tunable), the values, the pairs played and a line of values
every 100 pairs. A run given the same file resumes on that schedule, whatever the command
line says about pairs, limit or seed; commit the file to keep a run across machines. Keep
the values it ends with only if an SPRT at 8+0.08 against the current ones confirms them.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time

import chess
import chess.engine

ALPHA = 0.602
GAMMA = 0.101
# Adjudication: a side scored this far ahead by both engines for this many plies wins; a game
# scored within DRAW_SCORE by both for DRAW_PLIES plies after DRAW_MIN_PLY is drawn.
WIN_SCORE, WIN_PLIES = 1000, 6
DRAW_SCORE, DRAW_PLIES, DRAW_MIN_PLY = 10, 12, 80
MAX_PLIES = 400


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", required=True, help="a tuning build of zwischen")
    parser.add_argument("--openings", required=True, help="EPD or FEN file, one a line")
    parser.add_argument("--pairs", type=int, required=True, help="game pairs in the whole run")
    parser.add_argument("--tc", default="8+0.08", help="seconds+increment per game")
    parser.add_argument("--nodes", type=int, help="nodes a move instead of a clock")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--r-end", type=float, default=0.002)
    parser.add_argument("--param", action="append", default=[],
                        help="tune only this tunable (repeatable; default: all)")
    parser.add_argument("--state", required=True, help="JSON file kept to resume")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def load_tunables(engine, wanted, r_end, fixed_nodes):
    """The tunables as `zwischen tunables` lists them: name -> (value, min, max, c_end),
    without those of time management when the games are played at a node count."""
    lines = subprocess.run([engine, "tunables", "--r-end", str(r_end)], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    tunables = {}
    for line in lines:
        name, _, value, low, high, c_end, _ = [f.strip() for f in line.split(",")]
        if fixed_nodes and name.startswith("tm_") and name not in wanted:
            continue
        if not wanted or name in wanted:
            tunables[name] = (float(value), float(low), float(high), float(c_end))
    missing = set(wanted) - set(tunables)
    if missing:
        sys.exit(f"unknown tunables: {', '.join(sorted(missing))}")
    return tunables


def load_openings(path):
    openings = []
    with open(path) as file:
        for line in file:
            fields = line.split()
            if len(fields) >= 4:
                openings.append(" ".join(fields[:4]) + " 0 1")
    if not openings:
        sys.exit(f"no positions in {path}")
    return openings


class Spsa:
    """The values and the schedule; `next_pair` and `record` are called from several
    threads."""

    def __init__(self, args, tunables):
        self.args = args
        self.lock = threading.Lock()
        if os.path.exists(args.state):
            with open(args.state) as file:
                state = json.load(file)
            print(f"resuming {args.state} after {state['finished']} pairs", flush=True)
        else:
            n = args.pairs
            big_a = 0.1 * n
            state = {
                "pairs": n,
                "limit": {"nodes": args.nodes} if args.nodes else {"tc": args.tc},
                "seed": args.seed,
                "big_a": big_a,
                "c": {k: t[3] * n ** GAMMA for k, t in tunables.items()},
                "a": {k: args.r_end * t[3] ** 2 * (big_a + n) ** ALPHA
                      for k, t in tunables.items()},
                "start": {k: t[0] for k, t in tunables.items()},
                "theta": {k: t[0] for k, t in tunables.items()},
                "finished": 0,
                "score": [0, 0, 0],  # pairs won, drawn, lost by the plus side
                "history": [],
            }
        unknown = set(state["theta"]) - set(tunables)
        if unknown:
            sys.exit(f"the build lacks tunables of the run: {', '.join(sorted(unknown))}")
        # The run's own tunables, with the build's ranges.
        self.tunables = {k: tunables[k] for k in state["theta"]}
        self.state = state
        self.pairs = state["pairs"]
        self.seed = state["seed"]
        self.big_a = state["big_a"]
        self.c = state["c"]
        self.a = state["a"]
        self.theta = state["theta"]
        self.started = self.finished = state["finished"]
        self.score = state["score"]

    def clamp(self, name, value):
        _, low, high, _ = self.tunables[name]
        return min(high, max(low, value))

    def next_pair(self):
        """(k, delta, plus values, minus values), or None when all pairs have started."""
        with self.lock:
            if self.started >= self.pairs:
                return None
            k = self.started
            self.started += 1
            rng = random.Random(self.seed * 1_000_003 + k)
            delta = {name: rng.choice((-1, 1)) for name in self.theta}
            plus, minus = {}, {}
            for name, value in self.theta.items():
                step = self.c[name] / (k + 1) ** GAMMA
                plus[name] = round(self.clamp(name, value + step * delta[name]))
                minus[name] = round(self.clamp(name, value - step * delta[name]))
            return k, delta, plus, minus, rng

    def record(self, k, delta, result):
        """result: the plus side's points minus the minus side's over the pair (-2..2)."""
        with self.lock:
            for name in self.theta:
                c_k = self.c[name] / (k + 1) ** GAMMA
                a_k = self.a[name] / (self.big_a + k + 1) ** ALPHA
                self.theta[name] = self.clamp(
                    name, self.theta[name] + a_k / c_k * result * delta[name])
            self.finished += 1
            self.score[0 if result > 0 else 1 if result == 0 else 2] += 1
            self.state["finished"] = self.finished
            if self.finished % 100 == 0:
                self.state["history"].append(
                    {"pairs": self.finished, "score": list(self.score),
                     "theta": {k: round(v, 2) for k, v in self.theta.items()}})
            temporary = self.args.state + ".tmp"
            with open(temporary, "w") as file:
                json.dump(self.state, file, indent=1)
                file.write("\n")
            os.replace(temporary, self.args.state)
            return self.finished


def play_game(engines, fen, limit):
    """engines: [white, black]; limit: {"nodes": N} or {"tc": "base+inc"}. Returns 1, 0 or
    -1 from White's view (a loss on time or an illegal move loses)."""
    nodes = limit.get("nodes")
    base, _, inc = limit.get("tc", "0").partition("+")
    base, inc = float(base), float(inc or 0)
    game = object()  # a new game for python-chess, which then sends `ucinewgame`
    board = chess.Board(fen)
    clocks = [base, base]
    win_streak = draw_streak = 0
    for ply in range(MAX_PLIES):
        outcome = board.outcome(claim_draw=True)
        if outcome:
            return 0 if outcome.winner is None else (1 if outcome.winner else -1)
        mover = 0 if board.turn == chess.WHITE else 1
        if nodes:
            search = chess.engine.Limit(nodes=nodes)
        else:
            search = chess.engine.Limit(white_clock=clocks[0], black_clock=clocks[1],
                                        white_inc=inc, black_inc=inc)
        start = time.monotonic()
        try:
            result = engines[mover].play(board, search, info=chess.engine.INFO_SCORE, game=game)
        except chess.engine.EngineError as error:  # an illegal move, for one
            print(f"error: {error} in {board.fen()}", flush=True)
            return -1 if mover == 0 else 1
        if not nodes:
            clocks[mover] -= time.monotonic() - start
        if clocks[mover] < 0 or result.move is None:
            print(f"{'time forfeit' if result.move else 'no move'} in {board.fen()}", flush=True)
            return -1 if mover == 0 else 1
        clocks[mover] += inc
        score = result.info.get("score")
        white_cp = score.white().score(mate_score=100_000) if score else None
        board.push(result.move)
        if white_cp is None:
            win_streak = draw_streak = 0
            continue
        # Plies in a row with White (positive) or Black (negative) this far ahead.
        if white_cp >= WIN_SCORE:
            win_streak = max(win_streak, 0) + 1
        elif white_cp <= -WIN_SCORE:
            win_streak = min(win_streak, 0) - 1
        else:
            win_streak = 0
        if abs(win_streak) >= WIN_PLIES:
            return 1 if win_streak > 0 else -1
        draw_streak = draw_streak + 1 if abs(white_cp) <= DRAW_SCORE else 0
        if ply >= DRAW_MIN_PLY and draw_streak >= DRAW_PLIES:
            return 0
    return 0


def worker(spsa, args, openings):
    plus = chess.engine.SimpleEngine.popen_uci(args.engine)
    minus = chess.engine.SimpleEngine.popen_uci(args.engine)
    try:
        for engine in (plus, minus):
            engine.configure({"Hash": args.hash})
        while (job := spsa.next_pair()) is not None:
            k, delta, plus_values, minus_values, rng = job
            plus.configure(plus_values)
            minus.configure(minus_values)
            fen = rng.choice(openings)
            limit = spsa.state["limit"]
            result = play_game([plus, minus], fen, limit) - play_game([minus, plus], fen, limit)
            finished = spsa.record(k, delta, result)
            if finished % 10 == 0 or finished == spsa.pairs:
                w, d, l = spsa.score
                values = ", ".join(f"{n}={v:.1f}" for n, v in spsa.theta.items())
                print(f"pair {finished}/{spsa.pairs} (plus side W{w} D{d} L{l}): {values}",
                      flush=True)
    finally:
        plus.quit()
        minus.quit()


def main():
    args = parse_args()
    # A run that resumes keeps its own tunables: it needs the build's ranges for all of them.
    resuming = os.path.exists(args.state)
    tunables = load_tunables(args.engine, [] if resuming else args.param, args.r_end,
                             None if resuming else args.nodes)
    openings = load_openings(args.openings)
    spsa = Spsa(args, tunables)
    threads = [threading.Thread(target=worker, args=(spsa, args, openings))
               for _ in range(args.concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print("final values (params.rs):")
    for name, value in spsa.theta.items():
        default = tunables[name][0]
        mark = "" if round(value) == default else f"   (was {default:.0f})"
        print(f"    {name}: {round(value)}{mark}")


if __name__ == "__main__":
    main()
