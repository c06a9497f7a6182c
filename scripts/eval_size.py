#!/usr/bin/env python3
"""Compares how large two nets' static evaluations are, over positions of a game file.

    python3 scripts/eval_size.py BINARY NET_A NET_B GAMES [COUNT]

Prints the least-squares slope of B's evaluations on A's and the median of |B| / |A| over the
positions where |A| is 50-1500 cp. Self-play search scores run larger than the static
evaluation of the net that searched, so a net trained on them evaluates larger (about 13 % from
gen4 to its successors); `scripts/net_scale.py NET OUT 400/RATIO` then brings it back to size.
"""

import os
import random
import subprocess
import sys
import tempfile


def positions(binary, games, count):
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "positions.txt")
        subprocess.run([binary, "convert", "--to-text", games, text], check=True, capture_output=True)
        with open(text) as file:
            fens = [line.split(";")[0] for line in file]
    random.Random(1).shuffle(fens)
    return fens[:count]


def evaluations(binary, net, fens):
    script = f"uci\nsetoption name EvalFile value {net}\nisready\n"
    script += "".join(f"position fen {fen}\neval\n" for fen in fens) + "quit\n"
    out = subprocess.run([binary], input=script, capture_output=True, text=True, check=True).stdout
    marker = "NNUE evaluation: "
    values = [int(line.split(marker)[1].split(" cp")[0]) for line in out.splitlines() if line.startswith(marker)]
    if len(values) != len(fens):
        sys.exit(f"{net}: {len(values)} evaluations for {len(fens)} positions")
    return values


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    binary, net_a, net_b, games = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) == 6 else 2000
    fens = positions(binary, games, count)
    a, b = evaluations(binary, net_a, fens), evaluations(binary, net_b, fens)
    slope = sum(x * y for x, y in zip(a, b)) / sum(x * x for x in a)
    ratios = sorted(abs(y) / abs(x) for x, y in zip(a, b) if 50 <= abs(x) <= 1500)
    print(f"{len(fens)} positions: slope of B on A {slope:.3f}; "
          f"median |B|/|A| {ratios[len(ratios) // 2]:.3f} over {len(ratios)} with |A| 50-1500 cp")
    print(f"mean |A| {sum(map(abs, a)) / len(a):.1f} cp, mean |B| {sum(map(abs, b)) / len(b):.1f} cp")


if __name__ == "__main__":
    main()
