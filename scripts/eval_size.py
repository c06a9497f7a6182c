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

from uci_process import UciProcess


def positions(binary, games, count):
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "positions.txt")
        subprocess.run([binary, "convert", "--to-text", games, text], check=True, capture_output=True)
        with open(text) as file:
            fens = [line.split(";")[0] for line in file]
    random.Random(1).shuffle(fens)
    return fens[:count]


def evaluations(binary, net, fens):
    engine = UciProcess(binary)
    engine.send("uci")
    engine.wait_for("uciok")
    engine.send(f"setoption name EvalFile value {net}")
    # A net that fails to load leaves the embedded one in use: stop rather than measure it.
    answer = engine.wait_for("info string")
    if not answer.startswith("info string EvalFile: loaded"):
        engine.quit()
        sys.exit(f"{net}: {answer.strip()}")
    values = []
    for fen in fens:
        engine.send(f"position fen {fen}")
        engine.send("eval")
        line = engine.wait_for("NNUE evaluation: ")
        values.append(int(line.split("NNUE evaluation: ")[1].split(" cp")[0]))
    engine.quit()
    return values


def measure(binary, net_a, net_b, games, count=2000, binary_b=None):
    """Prints the comparison and returns the median of |B| / |A|. A build loads only nets of its
    own hidden width: `binary_b`, when given, evaluates B (a build that embeds a net of B's)."""
    fens = positions(binary, games, count)
    a, b = evaluations(binary, net_a, fens), evaluations(binary_b or binary, net_b, fens)
    slope = sum(x * y for x, y in zip(a, b)) / sum(x * x for x in a)
    ratios = sorted(abs(y) / abs(x) for x, y in zip(a, b) if 50 <= abs(x) <= 1500)
    median = ratios[len(ratios) // 2]
    print(f"{len(fens)} positions: slope of B on A {slope:.3f}; "
          f"median |B|/|A| {median:.3f} over {len(ratios)} with |A| 50-1500 cp")
    print(f"mean |A| {sum(map(abs, a)) / len(a):.1f} cp, mean |B| {sum(map(abs, b)) / len(b):.1f} cp")
    return median


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    binary, net_a, net_b, games = sys.argv[1:5]
    measure(binary, net_a, net_b, games, int(sys.argv[5]) if len(sys.argv) == 6 else 2000)


if __name__ == "__main__":
    main()
