#!/usr/bin/env python3
"""Endgames with and without Syzygy tables: Zwischen against Stockfish (no tables).

Zwischen plays the stronger side of won KBN v K, KR v K and KQ v KR starts (it must mate
within the 50-move rule) and the defending side of drawn KRP v KR starts (it must hold the
draw), once with its tables (SyzygyPath) and once without. Both engines search a fixed
number of nodes per move, so the load of the machine cannot change a game. The game ends
by mate, stalemate, dead material, a position's third occurrence or the 50-move rule (100
plies without capture or pawn move, unless the 100th mates), as a GUI adjudicates; not by
python-chess's claim_draw, which also ends a game where the side to move *could* claim
with a move it need not play. Where the tables cover a position, every Zwischen move is also checked to
keep the position's WDL (python-chess's prober).

    python3 scripts/syzygy_endgames.py --tables ../tables
        [--starts tests/data/syzygy_endgames.txt] [--nodes 50000] [--stockfish-nodes 50000]
        [--zwischen target/release/zwischen] [--stockfish /usr/games/stockfish]

    # New start positions (needs the tables of the four materials):
    python3 scripts/syzygy_endgames.py --tables ../tables --make-starts 10 > FILE

../tables stands for a directory with the 3-4 piece tables (as in tests/data/syzygy) and
KRPvKR with the 5-piece tables it promotes into, made with the public generator as
tests/data/syzygy/README.md describes.
"""

import argparse
import random
import sys

import chess
import chess.engine
import chess.syzygy

# Material (the side Zwischen plays first), what Zwischen must achieve, and a start filter.
SETS = {
    "KBNvK": "win",
    "KRvK": "win",
    "KQvKR": "win",
    "KRPvKR": "draw",
}


def place(rng, material):
    board = chess.Board(None)
    white, black = material.split("v")
    for color, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in pieces:
            piece = chess.Piece.from_symbol(letter if color == chess.WHITE else letter.lower())
            while True:
                square = rng.randrange(64)
                if board.piece_at(square) is None and not (
                    piece.piece_type == chess.PAWN and chess.square_rank(square) in (0, 1, 7)
                ):
                    board.set_piece_at(square, piece)
                    break
    board.castling_rights = 0
    return board


def make_starts(tables, count, seed):
    """Hard starts, Zwischen to move: no capture on the board; wins far from zeroing (DTZ);
    drawn KRP v KR positions (Zwischen defends with Black's rook) where at least three of
    Zwischen's moves would lose."""
    rng = random.Random(seed)
    min_dtz = {"KBNvK": 40, "KRvK": 20, "KQvKR": 30}
    for material, goal in SETS.items():
        found = 0
        while found < count:
            board = place(rng, material)
            board.turn = chess.WHITE if goal == "win" else chess.BLACK
            if not board.is_valid() or any(board.is_capture(m) for m in board.legal_moves):
                continue
            wdl = tables.probe_wdl(board)
            if goal == "win" and (wdl != 2 or tables.probe_dtz(board) < min_dtz[material]):
                continue
            if goal == "draw":
                if wdl != 0 or losing_moves(tables, board) < 3:
                    continue
            print(f"{material};{board.fen()}")
            found += 1


def losing_moves(tables, board):
    count = 0
    for move in board.legal_moves:
        board.push(move)
        if probe(tables, board) == 2:
            count += 1
        board.pop()
    return count


def play(start_fen, zwischen_white, zwischen, stockfish, nodes, sf_nodes, tables):
    """Plays one game; returns (result from Zwischen's view: 1, 0.5, 0; WDL-changing moves)."""
    board = chess.Board(start_fen)
    zwischen_color = board.turn if zwischen_white is None else zwischen_white
    bad_moves = 0
    while game_over(board) is None:
        if board.turn == zwischen_color:
            before = probe(tables, board)
            move = zwischen.play(board, chess.engine.Limit(nodes=nodes)).move
            board.push(move)
            after = probe(tables, board)
            if before is not None and after is not None and -after < before:
                bad_moves += 1
        else:
            board.push(stockfish.play(board, chess.engine.Limit(nodes=sf_nodes)).move)
    winner, _ = game_over(board)
    if winner is None:
        return 0.5, bad_moves, board
    return (1.0 if winner == zwischen_color else 0.0), bad_moves, board


def game_over(board):
    """(winner or None, how) once the game is over, else None."""
    if board.is_checkmate():
        return not board.turn, "checkmate"
    if board.is_stalemate():
        return None, "stalemate"
    if board.is_insufficient_material():
        return None, "dead position"
    if board.is_repetition(3):
        return None, "threefold repetition"
    if board.halfmove_clock >= 100:
        return None, "50-move rule"
    return None


def probe(tables, board):
    if tables is None:
        return None
    try:
        return tables.probe_wdl(board)
    except (KeyError, chess.syzygy.MissingTableError):
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", required=True)
    parser.add_argument("--starts", default="tests/data/syzygy_endgames.txt")
    parser.add_argument("--nodes", type=int, default=50000)
    parser.add_argument("--stockfish-nodes", type=int, default=50000)
    parser.add_argument("--zwischen", default="target/release/zwischen")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--make-starts", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="one material, e.g. KQvKR")
    args = parser.parse_args()

    tables = chess.syzygy.open_tablebase(args.tables)
    if args.make_starts:
        make_starts(tables, args.make_starts, args.seed)
        return

    starts = []
    with open(args.starts) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                material, fen = line.strip().split(";")
                if args.only is None or material == args.only:
                    starts.append((material, fen))

    stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    stockfish.configure({"Threads": 1, "Hash": 16})
    failed = False
    for with_tables in (True, False):
        zwischen = chess.engine.SimpleEngine.popen_uci(args.zwischen)
        zwischen.configure({"Hash": 16, "SyzygyPath": args.tables if with_tables else "<empty>"})
        label = "with tables" if with_tables else "without tables"
        by_set = {}
        for material, fen in starts:
            goal = SETS[material]
            zwischen.protocol.send_line("ucinewgame")
            stockfish.protocol.send_line("ucinewgame")
            score, bad, board = play(fen, None, zwischen, stockfish, args.nodes,
                                     args.stockfish_nodes, tables)
            ok = score == 1.0 if goal == "win" else score >= 0.5
            total = by_set.setdefault(material, [0, 0, 0])
            total[0] += ok
            total[1] += 1
            total[2] += bad
            print(f"  {label:14} {material:6} {fen:40} -> {'ok' if ok else 'FAILED'} "
                  f"({game_over(board)[1]}, "
                  f"{len(board.move_stack)} plies, WDL-losing moves {bad})", flush=True)
        for material, (ok, n, bad) in by_set.items():
            goal = "converted" if SETS[material] == "win" else "held"
            print(f"{label}: {material} {goal} {ok}/{n}, moves that lowered the WDL: {bad}",
                  flush=True)
            if with_tables and (ok < n or bad > 0):
                failed = True
        zwischen.quit()
    stockfish.quit()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
