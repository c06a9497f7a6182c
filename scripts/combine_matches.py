#!/usr/bin/env python3
"""Adds up several runs of the same match, e.g. one log per interrupted run.

It prints the combined result: W-D-L, the pentanomial pair counts, Elo with its 95 %
interval (from the pairs) and, with --sprt, the log-likelihood ratio of the combined games
(logistic Elo bounds, the normal approximation of the pentanomial model).

    python3 scripts/combine_matches.py --sprt 0 10 gate-0.log gate-120.log

It reads two kinds of log:

- fastchess's output (https://github.com/Disservin/fastchess, as scripts/next_net.py writes
  it: the command on a first line starting with `+ `, then fastchess's report; see
  scripts/fastchess_report.py): the last `Results of A vs B` report's W-D-L and `Ptnml(0-2)`
  pairs. fastchess counts a game only once both games of its opening are done, so a report
  holds whole pairs only.
- the logs of the python-chess match runner that played Zwischen's older matches (not
  published): a line `RESULT {"w": W, "d": D, "l": L, "penta": [5 counts], "games": N,
  "engines": [A, B]}` at the end (an interrupted run writes one too) and one line a game,
  `[i/n] WHITE vs BLACK (op K): RESULT ...`.

The runs must pit the same two engines in the same order and use disjoint openings
(fastchess's `-openings ... start=N+1` with the same `-srand`, next_net.py's --gate-offset N;
the old runner's `--opening-offset N`), or the games are not independent.

An interrupted run may stop between the two games of an opening. `--complete-pairs` counts
from the per-game lines instead: only openings whose both games a log has, so a resumed run
may start again at the first unfinished opening; an opening complete in two logs is an
error. For fastchess, games 2k-1 and 2k are the run's opening k, counted from the `start=`
of the command line at the log's top (1 when absent).
"""

import argparse
import json
import math
import re
import sys

import fastchess_report


def result_of(path):
    with open(path, encoding="utf-8") as log:
        text = log.read()
    lines = [line for line in text.splitlines() if line.startswith("RESULT ")]
    if lines:
        return json.loads(lines[-1][len("RESULT "):])
    report = fastchess_report.parse(text)
    if report is None or report["penta"] is None:
        sys.exit(f"{path}: neither a RESULT line nor a fastchess report with Ptnml(0-2) pairs")
    return {"w": report["w"], "d": report["d"], "l": report["l"], "penta": report["penta"],
            "games": report["games"], "engines": list(report["engines"])}


START = re.compile(r"^\+ .*-openings .*?\bstart=(\d+)")


GAME = re.compile(r"^\[\d+/\d+\] (\S+) vs (\S+) \(op (\d+)\): (1-0|0-1|1/2-1/2) ")


def complete_pairs(path, first):
    """The result dict of a log's complete pairs (games counted for engine `first`, or for
    the engine named first in the log when None)."""
    games = {}
    with open(path, encoding="utf-8") as log:
        lines = log.read().splitlines()
    played = [(white, op, result) for white, _black, op, result in
              (GAME.match(line).groups() for line in lines if GAME.match(line))]
    if not played:
        # fastchess: games 2k-1 and 2k share the run's k-th opening; game 1's white is the
        # engine named first (the lines come in the order the games end).
        start = next((int(m.group(1)) for m in map(START.match, lines) if m), 1)
        played = [(white, str(start + (number - 1) // 2), result)
                  for number, white, _black, result in sorted(fastchess_report.games(lines))
                  if result != "*"]
    for white, op, result in played:
        first = first or white
        points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
        games.setdefault(int(op), []).append(points if white == first else 1.0 - points)
    pairs = {op: points for op, points in games.items() if len(points) == 2}
    dropped = sorted(op for op in games if op not in pairs)
    if dropped:
        print(f"{path}: openings {dropped} left out (not both games)")
    flat = [p for points in pairs.values() for p in points]
    penta = [0] * 5
    for points in pairs.values():
        penta[round(2 * sum(points))] += 1
    result = {"w": flat.count(1.0), "d": flat.count(0.5), "l": flat.count(0.0), "penta": penta,
              "games": len(flat), "engines": [first], "ops": set(pairs)}
    return result, first


def score_of(elo):
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score):
    score = min(max(score, 1e-6), 1.0 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"))
    parser.add_argument("--complete-pairs", action="store_true",
                        help="count only openings with both games, from the per-game lines")
    args = parser.parse_args()

    if args.complete_pairs:
        results, first, seen = [], None, set()
        for path in args.logs:
            result, first = complete_pairs(path, first)
            if seen & result["ops"]:
                sys.exit(f"openings {sorted(seen & result['ops'])} complete in two logs")
            seen |= result["ops"]
            results.append(result)
    else:
        results = [result_of(path) for path in args.logs]
    engines = {tuple(r["engines"]) for r in results}
    if len(engines) != 1:
        sys.exit(f"the runs pit different engines: {sorted(engines)}")
    wins = sum(r["w"] for r in results)
    draws = sum(r["d"] for r in results)
    losses = sum(r["l"] for r in results)
    # Pairs scoring 0, 0.5, 1, 1.5 and 2 points for the first engine.
    penta = [sum(r["penta"][i] for r in results) for i in range(5)]
    pairs = sum(penta)
    for path, r in zip(args.logs, results):
        print(f"{path}: {r['games']} games +{r['w']} ={r['d']} -{r['l']}, pairs {r['penta']}")
    print(f"combined: {wins + draws + losses} games +{wins} ={draws} -{losses}, "
          f"{pairs} pairs {penta}")
    if pairs < 2:
        return
    points = [i / 4.0 for i in range(5)]
    mean = sum(p * n for p, n in zip(points, penta)) / pairs
    variance = sum(n * (p - mean) ** 2 for p, n in zip(points, penta)) / pairs
    error = 1.96 * math.sqrt(variance / pairs)
    elo = elo_of(mean)
    low, high = elo_of(mean - error), elo_of(mean + error)
    print(f"score {100 * mean:.1f} %, Elo {elo:+.1f} (95 % interval {low:+.1f} to {high:+.1f}, "
          f"+/- {(high - low) / 2:.1f}) from the pairs")
    if args.sprt and variance > 0:
        s0, s1 = score_of(args.sprt[0]), score_of(args.sprt[1])
        # The usual normal approximation of the pentanomial log-likelihood ratio.
        llr = pairs * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
        bound = math.log((1 - 0.05) / 0.05)
        verdict = "H1" if llr >= bound else "H0" if llr <= -bound else "inconclusive"
        print(f"SPRT [{args.sprt[0]:g}, {args.sprt[1]:g}]: LLR {llr:.2f} "
              f"(bounds +/- {bound:.2f}): {verdict}")


if __name__ == "__main__":
    main()
