#!/usr/bin/env python3
"""Builds tests/data/mates.epd: positions with an exactly known mate distance, for tests/mates.rs.

Candidates come from games an engine plays against a weaker copy of itself (from the openings
of perft-suites/standard.epd, so the games differ): every position where the engine claims a
mate within `--max-moves` + 1 moves, and the last plies before every checkmate (so that mates
the engine misses are proposed too). The engine only proposes; each distance written is proven
here by an exhaustive AND/OR search over python-chess's legal moves, independent of the
engine's search:

  * "dm N" (N > 0): the side to move mates in N moves and in no fewer;
  * "dm -N": the side to move is mated in N moves of the opponent however it defends
    (every move allows a mate in at most N, and some move allows none in fewer than N).

The game's result says which side to try to prove the win for. A candidate whose proof needs
more than `--node-budget` nodes is dropped; proving stops after `--max-seconds`. A class that
is still empty takes the colour-mirrored copy of a position of the other side to move (the
same distance, proven again). The set keeps up to `--per-class` positions, from different
games, for each class (distance, side to move).

    pip install chess
    python3 scripts/make_mate_suite.py --engine target/release/zwischen [--games 60]
        [--seed 1] [--out tests/data/mates.epd]

The committed set was made with the defaults and the engine at d1f75f6 (the games, and so the
candidates, depend on the engine; the proofs do not).
"""

import argparse
import random
import sys
import time

import chess
import chess.engine


class OutOfBudget(Exception):
    pass


class Solver:
    """Exact mate distances by exhaustive search, with a table of proven (position, n) facts."""

    def __init__(self, budget):
        self.budget = budget
        self.nodes = 0
        self.table = {}

    def count(self):
        self.nodes += 1
        if self.nodes > self.budget:
            raise OutOfBudget()

    def mates_in(self, board, n):
        """Whether the side to move can mate in at most `n` moves."""
        key = (board._transposition_key(), n)
        if key in self.table:
            return self.table[key]
        self.count()
        moves = list(board.legal_moves)
        checks = [m for m in moves if board.gives_check(m)]
        # A mate in one is always a check; longer mates try checks first, they are forcing.
        candidates = checks if n == 1 else checks + [m for m in moves if m not in checks]
        found = False
        for move in candidates:
            board.push(move)
            if board.is_checkmate():
                found = True
            elif n > 1 and self.all_replies_lose(board, n - 1):
                found = True
            board.pop()
            if found:
                break
        self.table[key] = found
        return found

    def all_replies_lose(self, board, n):
        """Whether every move of the side to move allows a mate in at most `n`."""
        self.count()
        moves = list(board.legal_moves)
        if not moves:
            return False  # stalemate (checkmate is caught by the caller)
        if board.halfmove_clock >= 99 or board.is_insufficient_material():
            return False
        for move in moves:
            board.push(move)
            lost = self.mates_in(board, n)
            board.pop()
            if not lost:
                return False
        return True

    def mate_distance(self, board, limit):
        """N if the side to move mates in N <= `limit` moves and no fewer, else None."""
        for n in range(1, limit + 1):
            if self.mates_in(board, n):
                return n
        return None

    def mated_distance(self, board, limit):
        """N if the side to move is mated in N <= `limit` moves whatever it plays, else None."""
        moves = list(board.legal_moves)
        if not moves:
            return None
        # The opponent's shortest mate after each move; the best defence makes it longest.
        longest = 0
        for move in moves:
            board.push(move)
            shortest = None if board.is_checkmate() else self.mate_distance(board, limit)
            board.pop()
            if shortest is None:
                return None
            longest = max(longest, shortest)
        return longest


def openings():
    with open("perft-suites/standard.epd") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fen = line.split(";")[0].strip()
            board = chess.Board(fen if len(fen.split()) == 6 else fen + " 0 1")
            # Usable starts: a game that could be real (no extra queens: the suite has test
            # positions with a dozen), with play ahead.
            real = all(len(board.pieces(chess.QUEEN, c)) <= 1 and len(board.pieces(chess.PAWN, c))
                       + len(board.pieces(chess.QUEEN, c)) <= 9 for c in chess.COLORS)
            if board.is_valid() and real and not board.is_game_over() \
                    and len(board.piece_map()) >= 12:
                yield board.fen()


def candidates(engine_path, games, seed, max_moves):
    """{FEN: (game number, whether the side to move is expected to win)}."""
    rng = random.Random(seed)
    starts = list(openings())
    found = {}
    engine = chess.engine.SimpleEngine.popen_uci(engine_path)
    try:
        for game in range(games):
            board = chess.Board(rng.choice(starts))
            strong = rng.choice([chess.WHITE, chess.BLACK])
            while not board.is_game_over() and board.fullmove_number < 150:
                nodes = 20000 if board.turn == strong else 300
                result = engine.play(board, chess.engine.Limit(nodes=nodes),
                                     info=chess.engine.INFO_SCORE)
                score = result.info.get("score")
                if score is not None:
                    mate = score.relative.mate()
                    if mate is not None and 0 < abs(mate) <= max_moves + 1:
                        found.setdefault(board.fen(), (game, mate > 0))
                # An occasional random move by the weak side makes the games more varied.
                if board.turn != strong and rng.random() < 0.1:
                    board.push(rng.choice(list(board.legal_moves)))
                else:
                    board.push(result.move)
            if board.is_checkmate():
                final = board.copy()
                for _ in range(min(2 * max_moves + 1, len(final.move_stack))):
                    final.pop()
                    found.setdefault(final.fen(), (game, final.turn != board.turn))
            print(f"game {game + 1}/{games}: {board.result()}, {len(found)} candidates",
                  file=sys.stderr)
    finally:
        engine.quit()
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", default="target/release/zwischen")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-moves", type=int, default=5)
    parser.add_argument("--per-class", type=int, default=2)
    parser.add_argument("--node-budget", type=int, default=50_000)
    parser.add_argument("--extra", nargs="*", default=["8/8/8/8/8/6q1/P4k2/7K w - - 0 1"],
                        help="FENs to verify and include whatever the games give")
    parser.add_argument("--max-seconds", type=float, default=1500,
                        help="time for proofs, after the games")
    parser.add_argument("--out", default="tests/data/mates.epd")
    args = parser.parse_args()

    found = candidates(args.engine, args.games, args.seed, args.max_moves)
    chosen = []
    classes = {}
    # Each class takes its positions from different games where it can; no more proofs once
    # every class is full.
    rng = random.Random(args.seed)
    fens = sorted(found)
    rng.shuffle(fens)
    for fen in args.extra:
        found[fen] = (-1, None)
    fens = list(args.extra) + fens
    wanted = 2 * 2 * args.max_moves
    deadline = time.monotonic() + args.max_seconds
    for fen in fens:
        if sum(len(games) >= args.per_class for games in classes.values()) == wanted:
            break
        if time.monotonic() > deadline:
            print("out of time for proofs", file=sys.stderr)
            break
        board = chess.Board(fen)
        if board.halfmove_clock > 60:
            continue  # keep the fifty-move rule out of the picture
        game, winning = found[fen]
        solver = Solver(args.node_budget)
        try:
            dm = None
            if winning is not False:
                dm = solver.mate_distance(board, args.max_moves)
            if dm is None and winning is not True:
                lost = solver.mated_distance(board, args.max_moves)
                dm = -lost if lost else None
        except OutOfBudget:
            print(f"over budget: {fen}", file=sys.stderr)
            continue
        if dm is None:
            continue
        games = classes.setdefault((dm, board.turn), set())
        if game >= 0 and (len(games) >= args.per_class or game in games):
            continue
        games.add(game)
        chosen.append((fen, dm))
        print(f"dm {dm:+d} ({solver.nodes} nodes): {fen}", file=sys.stderr)

    # A class still empty takes the colour-mirrored copy of a position of the same distance
    # with the other side to move (proven again all the same).
    for (dm, turn), games in list(classes.items()):
        if not classes.get((dm, not turn)):
            fen = next(f for f, d in chosen if d == dm and chess.Board(f).turn == turn)
            mirrored = chess.Board(fen).mirror()
            solver = Solver(10 * args.node_budget)
            try:
                proven = (solver.mate_distance(mirrored, args.max_moves) if dm > 0
                          else -(solver.mated_distance(mirrored, args.max_moves) or 0))
            except OutOfBudget:
                proven = None
            if proven == dm:
                classes[(dm, not turn)] = {-2}
                chosen.append((mirrored.fen(), dm))
                print(f"dm {dm:+d} (mirrored, {solver.nodes} nodes): {mirrored.fen()}",
                      file=sys.stderr)

    chosen.sort(key=lambda item: (abs(item[1]), item[1] < 0, item[0]))
    with open(args.out, "w") as f:
        f.write("# Positions with an exact mate distance, made by scripts/make_mate_suite.py\n")
        f.write("# (engine games propose, an exhaustive search over python-chess moves proves).\n")
        f.write("# Format: FEN ;dm N  -- N > 0: the side to move mates in N moves and no fewer;\n")
        f.write("# N < 0: the side to move is mated in -N moves whatever it plays.\n")
        for fen, dm in chosen:
            f.write(f"{fen} ;dm {dm}\n")
    missing = [(n, side) for n in range(-args.max_moves, args.max_moves + 1) if n != 0
               for side in ("w", "b") if not classes.get((n, side == "w"))]
    print(f"{len(chosen)} positions written to {args.out}; classes without one: {missing}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
