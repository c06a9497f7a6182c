#!/usr/bin/env python3
"""Checks Zwischen's `UCI_Elo` labels against Stockfish's own `UCI_Elo` scale.

For each label, Zwischen with `UCI_LimitStrength=true, UCI_Elo=L` plays Stockfish limited to
the same number (2+0.02 s by default, the scale the labels were set on; 100 games, colours
swapped per opening pair) through fastchess, the public match runner
(https://github.com/Disservin/fastchess). A label is off when the 95 % interval of the Elo
difference does not contain 0; the script then says which way to move the anchor in
`src/search/strength.rs` (a positive difference means the setting plays stronger than its
label, so the label's level must come down).

    python3 scripts/calibrate_elo.py --fastchess /path/to/fastchess \\
        --engine target/release/zwischen --stockfish /usr/games/stockfish \\
        --openings openings/balanced-6to8ply.epd --labels 1500,2000 --games 100

Run it after every new net: the node budgets of the levels buy more with a stronger net.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import fastchess_report

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_match(args, label):
    """Plays one label's match; returns (wins, draws, losses, elo, error) for Zwischen."""
    command = [
        args.fastchess,
        "-engine", f"cmd={args.engine}", "name=zwischen",
        "option.UCI_LimitStrength=true", f"option.UCI_Elo={label}",
        "-engine", f"cmd={args.stockfish}", "name=stockfish",
        "option.UCI_LimitStrength=true", f"option.UCI_Elo={label}",
        "-each", f"tc={args.tc}", "option.Hash=16", "option.Threads=1",
        "-rounds", str(args.games // 2), "-games", "2", "-repeat",
        "-concurrency", str(args.concurrency),
        "-openings", f"file={args.openings}", "format=epd", "order=random",
        "-srand", str(args.seed),
    ]
    if args.pgn:
        command += ["-pgnout", f"file={args.pgn}-{label}.pgn"]
    print(" ".join(command), flush=True)
    # fastchess writes its state (config.json) into the working directory: keep it out of
    # the checkout.
    with tempfile.TemporaryDirectory() as scratch:
        output = subprocess.run(
            command, capture_output=True, text=True, check=False, cwd=scratch
        ).stdout
    result = fastchess_report.parse(output)
    if result is None:
        sys.exit(f"fastchess gave no result for {label}; its output ends:\n{output[-2000:]}")
    wins, draws, losses = result["w"], result["d"], result["l"]
    elo, error = result["elo"], result["error"]
    return wins, draws, losses, elo, error


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fastchess", default="fastchess", help="the fastchess binary (default: on PATH)")
    parser.add_argument("--engine", required=True, help="the Zwischen binary")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--openings", default=os.path.join(CHECKOUT, "openings/balanced-6to8ply.epd"),
                        help="EPD file of start positions (default: the repository's balanced openings)")
    parser.add_argument("--labels", default="1500,2000", help="comma-separated UCI_Elo values")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--tc", default="2+0.02")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pgn", help="write each label's games to PGN-<label>.pgn")
    args = parser.parse_args()
    # fastchess runs in a scratch directory, so the paths it gets must not be relative.
    args.engine = os.path.abspath(args.engine)
    args.openings = os.path.abspath(args.openings)
    if args.pgn:
        args.pgn = os.path.abspath(args.pgn)
    for tool in ("fastchess", "stockfish"):
        if os.path.sep in getattr(args, tool):
            setattr(args, tool, os.path.abspath(getattr(args, tool)))

    rows = []
    for label in (int(x) for x in args.labels.split(",")):
        wins, draws, losses, elo, error = run_match(args, label)
        verdict = "ok"
        if elo - error > 0:
            verdict = "stronger than its label: lower its anchor"
        elif elo + error < 0:
            verdict = "weaker than its label: raise its anchor"
        rows.append((label, wins, draws, losses, elo, error, verdict))
        print(f"UCI_Elo {label}: W{wins} D{draws} L{losses}, {elo:+.1f} +/- {error:.1f}: {verdict}",
              flush=True)
    print("\n| UCI_Elo | W-D-L | Elo vs Stockfish at the same UCI_Elo | verdict |")
    print("|---|---|---|---|")
    for label, wins, draws, losses, elo, error, verdict in rows:
        print(f"| {label} | {wins}-{draws}-{losses} | {elo:+.1f} ± {error:.1f} | {verdict} |")


if __name__ == "__main__":
    main()
