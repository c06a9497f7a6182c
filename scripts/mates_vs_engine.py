#!/usr/bin/env python3
"""Mate reporting of any UCI engine on tests/data/mates.epd, by the rules tests/mates.rs checks.

Each position (its mate distance proven by scripts/make_mate_suite.py) is searched with
`go depth 2N + 4` on one thread from a cleared hash; the score of every completed iteration
(no bound) is judged:

  * a mate for the wrong side, or a shorter one than the real one, is wrong at any depth;
  * a mate in one (either way) must be exact from depth 2;
  * once any iteration has reported a mate, depth 2N + 4 must report the exact distance;
  * "exact" counts the positions whose depth-2N+4 score is the exact mate.

    python3 scripts/mates_vs_engine.py --engine /usr/games/stockfish
    python3 scripts/mates_vs_engine.py --engine target/release/zwischen
"""

import argparse

from uci_process import UciProcess


def suite(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                fen, dm = line.split(";dm ")
                yield fen.strip(), int(dm)


def scores(engine, fen, depth):
    """(depth, ('mate'|'cp', value)) of each completed iteration of `go depth`."""
    engine.send("ucinewgame")
    engine.send("isready")
    engine.wait_for("readyok")
    engine.send(f"position fen {fen}")
    engine.send(f"go depth {depth}")
    last = {}
    while True:
        words = engine.read_line().split()
        if words and words[0] == "bestmove":
            return sorted(last.items())
        if not words or words[0] != "info" or "score" not in words or "depth" not in words:
            continue
        if "lowerbound" in words or "upperbound" in words:
            continue
        if "multipv" in words and words[words.index("multipv") + 1] != "1":
            continue
        i = words.index("score")
        last[int(words[words.index("depth") + 1])] = (words[i + 1], int(words[i + 2]))


def problems(dm, scores, depth):
    found = []
    reported = any(kind == "mate" for _, (kind, _) in scores)
    final = dict(scores).get(depth)
    for d, score in scores:
        kind, value = score
        if kind == "mate" and (value * dm < 0 or abs(value) < abs(dm)):
            found.append(f"depth {d}: mate {value}, a mate that does not exist")
        elif abs(dm) == 1 and d >= 2 and score != ("mate", dm):
            found.append(f"depth {d}: {kind} {value}, mate in one not exact from depth 2")
        elif d == depth and reported and score != ("mate", dm):
            found.append(f"depth {d}: {kind} {value}, a mate seen, not exact at 2N + 4")
    if final is None:
        found.append(f"no iteration of depth {depth}")
    return found, final == ("mate", dm)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", default="target/release/zwischen")
    parser.add_argument("--suite", default="tests/data/mates.epd")
    args = parser.parse_args()
    engine = UciProcess(args.engine)
    engine.send("uci")
    engine.wait_for("uciok")
    engine.send("setoption name Threads value 1")
    engine.send("setoption name Hash value 16")
    total = exact = wrong = 0
    for fen, dm in suite(args.suite):
        depth = 2 * abs(dm) + 4
        found, is_exact = problems(dm, scores(engine, fen, depth), depth)
        total += 1
        exact += is_exact
        wrong += bool(found)
        for problem in found:
            print(f"{fen} (dm {dm}): {problem}")
    engine.quit()
    print(f"{args.engine}: {exact}/{total} exact at depth 2N + 4, {wrong} positions break a rule")


if __name__ == "__main__":
    main()
