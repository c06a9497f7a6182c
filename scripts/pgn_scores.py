#!/usr/bin/env python3
"""Turns match PGNs into `FEN;result;score` lines for `zwischen convert` and `zwischen fit-wdl`.

The PGNs need the score after each move as `{+0.35/18 0.493s}` (score/depth time), as
fastchess and cutechess-cli write them (and the python-chess match runner of Zwischen's
older matches did).

Each line is the position after a move, the game's result from White's view (1.0, 0.5,
0.0) and the mover's search score turned to White's view in centipawns. Mate scores and
moves without a score (book moves) are left out, and so are the moves of engines not named
with --engine (to fit the model of one engine, take games where it played both sides or
name it).

    python3 scripts/pgn_scores.py games.pgn --out scores.txt
    zwischen convert scores.txt scores.bin && zwischen fit-wdl --data scores.bin
"""

import argparse
import re

import chess.pgn

SCORE = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)/\d+")
RESULTS = {"1-0": "1.0", "1/2-1/2": "0.5", "0-1": "0.0"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--engine", action="append", default=[],
                        help="only this engine's moves (the PGN White/Black name); repeatable")
    args = parser.parse_args()
    lines = games = 0
    with open(args.out, "w") as out:
        for path in args.pgn:
            with open(path) as handle:
                while (game := chess.pgn.read_game(handle)) is not None:
                    result = RESULTS.get(game.headers.get("Result", "*"))
                    if result is None:
                        continue
                    games += 1
                    names = {chess.WHITE: game.headers.get("White"),
                             chess.BLACK: game.headers.get("Black")}
                    board = game.board()
                    for node in game.mainline():
                        mover = board.turn
                        board.push(node.move)
                        match = SCORE.match(node.comment or "")
                        if match is None or (args.engine and names[mover] not in args.engine):
                            continue
                        pawns = float(match.group(1))
                        if abs(pawns) >= 100:  # a mate, written as a huge number
                            continue
                        centipawns = round(pawns * 100)
                        white_view = centipawns if mover == chess.WHITE else -centipawns
                        out.write(f"{board.fen()};{result};{white_view}\n")
                        lines += 1
    print(f"{games} games, {lines} scored positions -> {args.out}")


if __name__ == "__main__":
    main()
