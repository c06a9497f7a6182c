#!/usr/bin/env python3
"""Zwischen's Syzygy prober against an independent one: python-chess's `chess.syzygy`.

Draws random legal positions (halfmove clock 0, no castling rights; with a legal en-passant
capture in half the positions where both sides have pawns) for every material that has both a WDL and a DTZ table in the
directory, probes each with `zwischen syzygy-probe` and with python-chess, and counts the
positions whose WDL and DTZ agree. Also reports Zwischen's probe speed on the sample.
Exits non-zero on any disagreement.

    python3 scripts/syzygy_vs_python_chess.py --tables tests/data/syzygy [--positions 10000]
        [--zwischen target/release/zwischen] [--seed 1] [--write-reference FILE]

--write-reference writes "FEN;WDL;DTZ" lines (python-chess's values) for the regression test
tests/syzygy.rs.
"""

import argparse
import os
import random
import subprocess
import sys

import chess
import chess.syzygy


def materials(directory):
    names = {os.path.splitext(f)[0] for f in os.listdir(directory) if f.endswith(".rtbw")}
    return sorted(n for n in names if os.path.exists(os.path.join(directory, n + ".rtbz")))


def random_position(rng, material):
    """A random legal position of `material` (e.g. "KRPvKR"), or None if the draw failed.
    With pawns on both sides, every other position is set up for an en-passant capture."""
    board = chess.Board(None)
    board.turn = rng.choice((chess.WHITE, chess.BLACK))
    white, black = material.split("v")
    if "P" in white and "P" in black and rng.random() < 0.5:
        # The side not to move has just pushed a pawn two squares, next to an enemy pawn.
        them = not board.turn
        file = rng.randrange(8)
        side = rng.choice([f for f in (file - 1, file + 1) if 0 <= f < 8])
        rank = 3 if them == chess.WHITE else 4
        board.set_piece_at(chess.square(file, rank), chess.Piece(chess.PAWN, them))
        board.set_piece_at(chess.square(side, rank), chess.Piece(chess.PAWN, board.turn))
        board.ep_square = chess.square(file, rank - 1 if them == chess.WHITE else rank + 1)
        white, black = white.replace("P", "", 1), black.replace("P", "", 1)
    for color, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in pieces:
            piece = chess.Piece.from_symbol(letter if color == chess.WHITE else letter.lower())
            while True:
                square = rng.randrange(64)
                if board.piece_at(square) is None and square != board.ep_square and not (
                    piece.piece_type == chess.PAWN and chess.square_rank(square) in (0, 7)
                ):
                    board.set_piece_at(square, piece)
                    break
    board.castling_rights = 0
    if board.ep_square is not None and not board.has_legal_en_passant():
        board.ep_square = None
    return board if board.is_valid() else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", required=True)
    parser.add_argument("--positions", type=int, default=10000)
    parser.add_argument("--zwischen", default="target/release/zwischen")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write-reference")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    names = materials(args.tables)
    if not names:
        sys.exit(f"no tables with both WDL and DTZ files in {args.tables}")
    boards = []
    while len(boards) < args.positions:
        board = random_position(rng, rng.choice(names))
        if board is not None:
            boards.append(board)
    fens = [board.fen() for board in boards]

    run = subprocess.run(
        [args.zwischen, "syzygy-probe", "--syzygy-path", args.tables, "--speed-rounds", "3"],
        input="\n".join(fens) + "\n", capture_output=True, text=True, check=True)
    ours = run.stdout.splitlines()
    print(run.stderr.strip())

    with chess.syzygy.open_tablebase(args.tables) as tables:
        theirs = [(tables.probe_wdl(b), tables.probe_dtz(b)) for b in boards]

    wdl_agree = dtz_agree = en_passant = 0
    disagreements = []
    for fen, board, mine, (wdl, dtz) in zip(fens, boards, ours, theirs):
        en_passant += board.ep_square is not None
        parts = mine.split()
        my_wdl, my_dtz = (int(parts[0]), int(parts[1])) if len(parts) == 2 else (None, None)
        wdl_agree += my_wdl == wdl
        dtz_agree += my_dtz == dtz
        if (my_wdl, my_dtz) != (wdl, dtz):
            disagreements.append(f"{fen}: zwischen {mine}, python-chess {wdl} {dtz}")
    n = len(boards)
    print(f"{n} positions over {len(names)} materials ({en_passant} with en passant): "
          f"WDL agrees {wdl_agree}/{n} ({100 * wdl_agree / n:.2f} %), "
          f"DTZ agrees {dtz_agree}/{n} ({100 * dtz_agree / n:.2f} %)")
    for line in disagreements[:20]:
        print(line)

    if args.write_reference:
        with open(args.write_reference, "w") as out:
            for fen, (wdl, dtz) in zip(fens, theirs):
                out.write(f"{fen};{wdl};{dtz}\n")
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
