#!/usr/bin/env python3
"""Zwischen's Syzygy prober against an independent one: python-chess's `chess.syzygy`.

Draws random legal positions (halfmove clock 0, no castling rights; with en-passant rights
where the material allows) for every material that has both a WDL and a DTZ table in the
directory, probes each with `zwischen syzygy-probe` and with python-chess, and counts the
positions whose WDL and DTZ agree. Also reports Zwischen's probe speed on the sample.
Exits non-zero on any disagreement.

    python3 benches/syzygy_vs_python_chess.py --tables /work/tables [--positions 10000]
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
    """A random legal position of `material` (e.g. "KRPvKR"), or None if the draw failed."""
    board = chess.Board(None)
    white, black = material.split("v")
    for color, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in pieces:
            piece = chess.Piece.from_symbol(letter if color == chess.WHITE else letter.lower())
            while True:
                square = rng.randrange(64)
                if board.piece_at(square) is None and not (
                    piece.piece_type == chess.PAWN and chess.square_rank(square) in (0, 7)
                ):
                    board.set_piece_at(square, piece)
                    break
    board.turn = rng.choice((chess.WHITE, chess.BLACK))
    board.castling_rights = 0
    if rng.random() < 0.25:
        add_en_passant(rng, board)
    return board if board.is_valid() else None


def add_en_passant(rng, board):
    """Where the side not to move has a pawn that may just have made a double step next to
    an enemy pawn, sets the en-passant square (only kept when the capture is legal)."""
    them = not board.turn
    for square in board.pieces(chess.PAWN, them):
        rank = chess.square_rank(square)
        if rank != (3 if them == chess.WHITE else 4):
            continue
        behind = square - 8 if them == chess.WHITE else square + 8
        start = square - 16 if them == chess.WHITE else square + 16
        if board.piece_at(behind) is None and board.piece_at(start) is None:
            board.ep_square = behind
            if board.has_legal_en_passant() and rng.random() < 0.8:
                return
            board.ep_square = None


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
