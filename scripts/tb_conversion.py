#!/usr/bin/env python3
"""Table wins played out: can an engine convert them within the 50-move rule?

Generates hard won starts from the Syzygy tables (for each material, the longest DTZ among
random positions in which the side to move wins), then plays each with the engine under test
on the winning side against a defender at a fixed time a move, and counts the starts that end
in mate. The game is adjudicated by the rules only (see `adjudicate`).

    pip install chess
    python3 scripts/tb_conversion.py --engine target/release/zwischen \
        --engine-option SyzygyPath=tests/data/syzygy --defender /usr/games/stockfish \
        --starts 40 --movetime 100

Without --engine-option SyzygyPath the same starts measure conversion without tables; with
--engine /usr/games/stockfish, Stockfish's own rate. The starts depend only on --seed,
--starts and the tables, so runs with different engines play the same positions. Two KQvKR
starts that were once reported as drawn by repetition (see docs/syzygy.md) are always
included.
"""

import argparse
import random
import sys

import chess
import chess.engine
import chess.syzygy

MATERIALS = ["KQvKR", "KRvK", "KBNvK", "KPvK", "KQvKQ"]
REPORTED_STARTS = ["4Q1K1/8/8/8/8/8/3k4/6r1 w - - 0 1", "8/K7/8/1Q3rk1/8/8/8/8 w - - 0 1"]
PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
          "N": chess.KNIGHT, "P": chess.PAWN}


def random_position(material, rng):
    """A random legal position with `material` (strong side first), strong side to move."""
    strong, weak = material.split("v")
    while True:
        board = chess.Board(None)
        colour = rng.choice([chess.WHITE, chess.BLACK])
        squares = rng.sample(range(64), len(strong) + len(weak))
        for letters, side in ((strong, colour), (weak, not colour)):
            for letter in letters:
                square = squares.pop()
                if letter == "P" and chess.square_rank(square) in (0, 7):
                    break
                board.set_piece_at(square, chess.Piece(PIECES[letter], side))
        board.turn = colour
        if len(board.piece_map()) == len(material) - 1 and board.is_valid():
            return board


def hard_starts(tables, material, count, samples, rng):
    """`count` starts with `material`, each the longest win (by DTZ) of `samples` tries."""
    starts = []
    while len(starts) < count:
        best, best_dtz = None, 0
        for _ in range(samples):
            board = random_position(material, rng)
            if tables.probe_wdl(board) != 2:
                continue
            dtz = tables.probe_dtz(board)
            if dtz > best_dtz and not board.is_game_over():
                best, best_dtz = board, dtz
        if best is not None:
            starts.append((best.fen(), best_dtz))
    return starts


def adjudicate(board, strong):
    """How the game has ended, or None. Draws are those the defender gets by the rules: a
    position on the board for the third time, 100 plies without a capture or pawn move, or a
    threefold repetition the defender can claim with its next move (FIDE 9.2). The winning
    side never claims, so a repetition only it could claim does not end the game."""
    outcome = board.outcome(claim_draw=False)
    if outcome is not None:
        return "mate" if outcome.winner == strong else outcome.termination.name.lower()
    if board.is_repetition(3):
        return "threefold repetition"
    if board.halfmove_clock >= 100:
        return "fifty moves"
    if board.turn != strong and board.can_claim_threefold_repetition():
        return "threefold repetition claimed"
    return None


def play(attacker, defender, fen, movetime):
    """Plays `fen` out; returns (outcome, plies) with outcome 'mate' or why it was not."""
    board = chess.Board(fen)
    strong = board.turn
    limit = chess.engine.Limit(time=movetime / 1000)
    while True:
        ending = adjudicate(board, strong)
        if ending is not None:
            return ending, board.ply()
        engine = attacker if board.turn == strong else defender
        move = engine.play(board, limit).move
        if move is None or move not in board.legal_moves:
            return "illegal move", board.ply()
        board.push(move)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", required=True, help="the engine that converts (the winning side)")
    p.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--defender", default="/usr/games/stockfish")
    p.add_argument("--tables", default="tests/data/syzygy", help="tables to make the starts from")
    p.add_argument("--starts", type=int, default=40, help="starts for each material")
    p.add_argument("--samples", type=int, default=200, help="random positions tried per start")
    p.add_argument("--movetime", type=int, default=100, help="milliseconds a move, both sides")
    p.add_argument("--seed", type=int, default=25)
    args = p.parse_args()

    rng = random.Random(args.seed)
    with chess.syzygy.open_tablebase(args.tables) as tables:
        starts = [(fen, tables.probe_dtz(chess.Board(fen)), "KQvKR") for fen in REPORTED_STARTS]
        for material in MATERIALS:
            starts += [(fen, dtz, material)
                       for fen, dtz in hard_starts(tables, material, args.starts, args.samples, rng)]

    attacker = chess.engine.SimpleEngine.popen_uci(args.engine)
    for option in args.engine_option:
        name, value = option.split("=", 1)
        attacker.configure({name: value})
    defender = chess.engine.SimpleEngine.popen_uci(args.defender)
    converted = {}
    failures = []
    for number, (fen, dtz, material) in enumerate(starts, 1):
        result, plies = play(attacker, defender, fen, args.movetime)
        done, total = converted.get(material, (0, 0))
        converted[material] = (done + (result == "mate"), total + 1)
        if result != "mate":
            failures.append((fen, dtz, result, plies))
        print(f"{number}/{len(starts)} {material} dtz {dtz} {result} after {plies} plies: {fen}",
              flush=True)
    attacker.quit()
    defender.quit()

    print()
    for material, (done, total) in converted.items():
        print(f"{material}: {done}/{total} converted")
    done = sum(d for d, _ in converted.values())
    total = sum(t for _, t in converted.values())
    print(f"all: {done}/{total} converted")
    for fen, dtz, result, plies in failures:
        print(f"not converted: {fen} (dtz {dtz}): {result} after {plies} plies")
    return 0 if done == total else 1


if __name__ == "__main__":
    sys.exit(main())
