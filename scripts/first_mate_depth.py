#!/usr/bin/env python3
"""Prints, for each FEN, the first search depth at which the engine reports a mate score.

    python3 scripts/first_mate_depth.py --engine target/release/zwischen --depth 14 \\
        "8/5Pp1/1p1r3p/8/8/8/4p2k/K7 b - - 0 1" \\
        "1n2kb2/5p2/1p3K2/8/1p4Pr/r7/5P1P/5N2 b - - 0 1"

The two FENs are the quiet mates in 2 of tests/mates.rs
(`quiet_mates_in_two_are_reported_by_depth_8`): the mating move is quiet and comes late among
the root's moves. Each search starts from `ucinewgame`, so the result does not depend on the
order of the FENs.
"""

import argparse
import subprocess


def first_mate(engine, fen, depth):
    """(depth, mate in N, first move) of the first line scored as a mate, or None."""
    engine.stdin.write(f"ucinewgame\nposition fen {fen}\ngo depth {depth}\n")
    engine.stdin.flush()
    found = None
    while True:
        words = engine.stdout.readline().split()
        if not words or words[0] == "bestmove":
            return found
        if words[0] != "info" or "score" not in words or "pv" not in words:
            continue
        at = words.index("score")
        if words[at + 1] == "mate" and found is None:
            line_depth = int(words[words.index("depth") + 1])
            found = (line_depth, int(words[at + 2]), words[words.index("pv") + 1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", required=True)
    parser.add_argument("--depth", type=int, default=14)
    parser.add_argument("fens", nargs="+")
    args = parser.parse_args()
    engine = subprocess.Popen([args.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)
    for fen in args.fens:
        found = first_mate(engine, fen, args.depth)
        if found is None:
            print(f"{fen}: no mate by depth {args.depth}")
        else:
            print(f"{fen}: mate {found[1]} ({found[2]}) first at depth {found[0]}")
    engine.stdin.write("quit\n")
    engine.stdin.flush()
    engine.wait()


if __name__ == "__main__":
    main()
