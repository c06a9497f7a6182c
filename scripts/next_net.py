#!/usr/bin/env python3
"""Makes and tests the next network: snapshot the data, train, embed and build, then match.

Steps, each run once (a finished step leaves DIR/<step>.done, so a rerun goes on where the
last one stopped):

- snapshot: with --chunks N, checks the first N chunks of data/manifest.tsv against their
  SHA-256 and lists them in DIR/data.txt (committed chunks never change, so N names the
  training data exactly); with --data FILE instead, copies the files into DIR/data with the
  generators paused (so no file is caught half-written) and counts them (DIR/data.txt);
- train: `zwischen train` on those chunks, in the manifest's order, or on the copies
  (DIR/net.nnue, log DIR/train.log), the generators paused when --pause is given (so two
  training threads get both cores); validated on --val-data FILE (repeat) or else the
  data's last 3 %, with mirrored copies (`--mirror`) unless --train-args mirror the inputs
  (`--king-mirror`). The trainer's result depends only on the data, its
  order, the arguments (--threads among them) and the seed; DIR/lineage.txt records the
  trainer's commit and the exact command;
- scale: brings DIR/net.nnue's evaluations to the size of the net main embeds (--reference-net)
  over the positions of --size-games: a net trained on self-play scores evaluates larger than
  the net that played (about 13 % from gen4 on), and the search's margins are tuned to the
  old size. The trained net stays as DIR/net-trained.nnue; DIR/net.nnue gets the output scale
  400 / (median ratio of the absolute evaluations) (scripts/eval_size.py, scripts/net_scale.py;
  a net of another hidden width is evaluated by a build that embeds it, DIR/zwischen-sizing);
- build: embeds DIR/net.nnue in a worktree of main (--worktree, made or reset here), builds it
  and keeps the binary as DIR/zwischen-new and its `bench` as DIR/bench.txt;
- match: the new build against --base at 10,000 nodes a move, 400 games (DIR/m10k.log): a
  sanity check only, since it has misjudged changes of the evaluation's size
  (docs/network-history.md, "The output scale");
- gate: the landing test, SPRT [0, 10] (logistic Elo, pentanomial) at 8+0.08 on both cores
  with the generators paused, at most 1000 games (DIR/gate-OFFSET.log). A run stopped before
  the verdict is resumed with `--gate-offset N`, N the openings before the first one the
  stopped run did not finish (its games 2N+1 and 2N+2), and `scripts/combine_matches.py
  --complete-pairs --sprt 0 10 DIR/gate-*.log` adds the runs up.

Both play through fastchess (https://github.com/Disservin/fastchess; --fastchess PATH, by
default `fastchess` on PATH) from the balanced openings of openings/balanced-6to8ply.epd
(--openings FILE for others), 1 thread and Hash 16 each, colours reversed per opening. The
gate runs

    fastchess -engine cmd=DIR/zwischen-new name=new -engine cmd=BASE name=base \\
      -each tc=8+0.08 option.Hash=16 option.Threads=1 -rounds 500-OFFSET -games 2 -repeat \\
      -concurrency 2 -openings file=openings/balanced-6to8ply.epd format=epd order=random \\
      start=OFFSET+1 -srand 32 -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 model=logistic \\
      -resign movecount=4 score=1000 -draw movenumber=40 movecount=8 score=10 \\
      -pgnout file=DIR/gate-OFFSET.pgn -config outname=DIR/gate-OFFSET.json

(the match: `-each nodes=10000`, `-rounds 200`, `-srand 7`, --concurrency, no SPRT and no
adjudication). Each step writes fastchess's output to its log and prints the result: W-D-L,
Elo with its 95 % error, the pentanomial pairs and the SPRT's verdict (also written to
DIR/lineage.txt).

    python3 scripts/next_net.py --dir ../nets/gen8 --base ../gen/zwischen-BASE --chunks 44 \\
        --train-args="--hidden 256 --output-buckets 8 --epochs 24 --lr 0.002 --wdl 0.25" --pause \\
        --steps snapshot,train,scale,build,gate

Run it from the checkout (it builds the trainer there first).
"""

import argparse
import hashlib
import os
import shlex
import shutil
import subprocess
import sys

import data_docs
import eval_size
import fastchess_report
from net_scale import HIDDEN_AT, SCALE_AT, header_field

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(HERE)
DATAGEN = os.path.join(HERE, "datagen.py")
STEPS = ["snapshot", "train", "scale", "build", "match", "gate"]


def run(command, log=None, cwd=None):
    print("+", " ".join(shlex.quote(part) for part in command), flush=True)
    if log is None:
        subprocess.run(command, check=True, cwd=cwd)
        return
    with open(log, "a") as out:
        out.write("+ " + " ".join(command) + "\n")
        out.flush()
        subprocess.run(command, check=True, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)


def generators(verb):
    subprocess.run([sys.executable, DATAGEN, verb], check=True)


class Paused:
    """Generators paused for the duration of a `with` block (when `active`)."""

    def __init__(self, active):
        self.active = active

    def __enter__(self):
        if self.active:
            generators("pause")

    def __exit__(self, *_):
        if self.active:
            generators("resume")


def manifest_chunks(count):
    """The first `count` chunks of data/manifest.tsv: (path, positions, the manifest line)."""
    rows = data_docs.manifest()
    if not 0 < count <= len(rows):
        sys.exit(f"--chunks {count}: data/manifest.tsv lists {len(rows)} chunks")
    return [(os.path.join(CHECKOUT, "data", row[0]), int(row[1]), "\t".join(row)) for row in rows[:count]]


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def snapshot_chunks(args):
    chunks = manifest_chunks(args.chunks)
    for path, _, line in chunks:
        if sha256(path) != line.split("\t")[-1]:
            sys.exit(f"{path}: its SHA-256 differs from data/manifest.tsv's")
    positions = sum(count for _, count, _ in chunks)
    with open(os.path.join(args.dir, "data.txt"), "w") as file:
        file.write(f"the first {len(chunks)} chunks of data/manifest.tsv, {positions} positions:\n")
        file.writelines(line + "\n" for _, _, line in chunks)
    print(f"{len(chunks)} chunks, {positions} positions, checked against data/manifest.tsv")


def head_commit(checkout):
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, check=True,
                          capture_output=True, text=True).stdout.strip()


def git_state():
    """The checkout's commit, with `+changes` if its tracked files differ from it."""
    commit = head_commit(CHECKOUT)
    changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=CHECKOUT,
                             check=True, capture_output=True, text=True).stdout.strip()
    return commit + ("+changes" if changed else "")


def snapshot(args):
    if args.chunks:
        snapshot_chunks(args)
        return
    data = os.path.join(args.dir, "data")
    os.makedirs(data, exist_ok=True)
    with Paused(True):
        for path in args.data:
            shutil.copyfile(path, os.path.join(data, os.path.basename(path)))
    copies = [os.path.join(data, os.path.basename(path)) for path in args.data]
    counts = subprocess.run(
        [sys.executable, DATAGEN, "count", "--binary", args.trainer, *copies],
        check=True, capture_output=True, text=True,
    ).stdout
    with open(os.path.join(args.dir, "data.txt"), "w") as file:
        file.write(counts)
    print(counts, end="")


def train(args):
    command = [args.trainer, "train"]
    if args.chunks:
        # Relative paths, so that the recorded command runs from any clone.
        for path, _, _ in manifest_chunks(args.chunks):
            command += ["--data", os.path.relpath(path, CHECKOUT)]
    else:
        data = os.path.join(args.dir, "data")
        for name in sorted(os.listdir(data)):
            command += ["--data", os.path.join(data, name)]
    command += ["--out", os.path.join(args.dir, "net.nnue")]
    command += ["--threads", "2", "--seed", str(args.seed), "--batch", "4096"]
    if args.val_data:
        # The trainer leaves a validation file that is among the chunks out of training.
        for path in args.val_data:
            command += ["--val-data", os.path.relpath(path, CHECKOUT)]
    else:
        command += ["--val-fraction", "0.03"]
    train_args = shlex.split(args.train_args)
    # Mirrored copies unless the inputs are mirrored (gen8's lineage command relies on them).
    if "--king-mirror" not in train_args:
        command.append("--mirror")
    command += train_args
    with open(os.path.join(args.dir, "lineage.txt"), "a") as file:
        file.write(f"trainer: zwischen at {args.trainer_commit}\n")
        file.write("train: " + " ".join(shlex.quote(part) for part in ["zwischen", *command[1:]]) + "\n")
    with Paused(args.pause):
        run(command, log=os.path.join(args.dir, "train.log"), cwd=CHECKOUT)


def scale(args):
    if not args.size_games:
        if not args.chunks:
            sys.exit("scale needs --size-games (or --chunks, whose last chunk it then uses)")
        args.size_games = manifest_chunks(args.chunks)[-1][0]
    net = os.path.join(args.dir, "net.nnue")
    trained = os.path.join(args.dir, "net-trained.nnue")
    if not os.path.exists(trained):
        shutil.copyfile(net, trained)
    old = header_field(trained, SCALE_AT)
    sizing_binary = None
    if header_field(trained, HIDDEN_AT) != header_field(args.reference_net, HIDDEN_AT):
        # A build reads only nets of the width it embeds: size the new net with a build of it.
        sizing_binary = build_with(args, trained, "zwischen-sizing")
    ratio = eval_size.measure(args.trainer, args.reference_net, trained, args.size_games,
                              binary_b=sizing_binary)
    new = round(old / ratio)
    run([sys.executable, os.path.join(HERE, "net_scale.py"), trained, net, str(new)])
    with open(os.path.join(args.dir, "scale.txt"), "w") as file:
        file.write(f"median size ratio {ratio:.3f} against {args.reference_net}: scale {old} -> {new}\n")
    with open(os.path.join(args.dir, "lineage.txt"), "a") as file:
        file.write(f"scale: median size ratio {ratio:.3f} over {os.path.basename(args.size_games)} "
                   f"against {os.path.basename(args.reference_net)}: output scale {old} -> {new}\n")


def build_with(args, net, name):
    """Builds main with `net` embedded, in the worktree; returns the binary, kept as DIR/name."""
    worktree = args.worktree
    if not os.path.isdir(worktree):
        run(["git", "worktree", "add", "--detach", worktree, "main"], cwd=CHECKOUT)
    # --force: the worktree still embeds the net of its last build.
    run(["git", "checkout", "--force", "--detach", "main"], cwd=worktree)
    args.build_commit = head_commit(worktree)
    shutil.copyfile(net, os.path.join(worktree, "src/eval/zwischen.nnue"))
    run(["nice", "-n", "5", "cargo", "build", "--release"], cwd=worktree)
    binary = os.path.join(args.dir, name)
    shutil.copyfile(os.path.join(worktree, "target/release/zwischen"), binary)
    os.chmod(binary, 0o755)
    return binary


def build(args):
    binary = build_with(args, os.path.join(args.dir, "net.nnue"), "zwischen-new")
    bench = subprocess.run([binary, "bench"], check=True, capture_output=True, text=True).stdout
    with open(os.path.join(args.dir, "bench.txt"), "w") as file:
        file.write(bench)
    with open(os.path.join(args.dir, "lineage.txt"), "a") as file:
        file.write(f"build: main at {args.build_commit} with DIR/net.nnue as src/eval/zwischen.nnue, "
                   f"{bench.strip().splitlines()[-1]}\n")
    print(bench.strip().splitlines()[-1])


GATE_SPRT = (0, 10)  # logistic Elo; fastchess counts the pentanomial pairs
GATE_GAMES = 1000


def fastchess_command(args, name, limit, games, seed, concurrency, offset=0):
    """fastchess: the new build against --base, `games` games from the openings after the
    first `offset`, colours reversed per opening; the games go to DIR/name.pgn."""
    return [
        args.fastchess,
        "-engine", f"cmd={os.path.join(args.dir, 'zwischen-new')}", "name=new",
        "-engine", f"cmd={args.base}", "name=base",
        "-each", limit, "option.Hash=16", "option.Threads=1",
        "-rounds", str(games // 2), "-games", "2", "-repeat",
        "-concurrency", str(concurrency),
        "-openings", f"file={args.openings}", "format=epd", "order=random", f"start={offset + 1}",
        "-srand", str(seed),
        "-pgnout", f"file={os.path.join(args.dir, name + '.pgn')}",
        # fastchess keeps its state (for `-config file=...`) beside the log, not in the cwd.
        "-config", f"outname={os.path.join(args.dir, name + '.json')}",
    ]


def play(args, name, command):
    """Runs a fastchess command into DIR/name.log; prints its result and adds it to the lineage."""
    log = os.path.join(args.dir, name + ".log")
    run(command, log=log, cwd=args.dir)
    with open(log, encoding="utf-8") as file:
        result = fastchess_report.parse(file.read())
    if result is None:
        sys.exit(f"{log}: fastchess reported no result")
    line = fastchess_report.summary(result)
    print(f"{name}: {line}")
    with open(os.path.join(args.dir, "lineage.txt"), "a") as file:
        file.write(f"{name}: {line}\n")
    return result


def match(args):
    command = fastchess_command(args, "m10k", "nodes=10000", 400, 7, args.concurrency)
    play(args, "m10k", command)


def gate(args):
    name = f"gate-{args.gate_offset}"
    games = GATE_GAMES - 2 * args.gate_offset
    if games < 2:
        sys.exit(f"--gate-offset {args.gate_offset}: the gate plays {GATE_GAMES // 2} openings")
    command = fastchess_command(args, name, "tc=8+0.08", games, 32, 2, args.gate_offset) + [
        "-sprt", f"elo0={GATE_SPRT[0]}", f"elo1={GATE_SPRT[1]}", "alpha=0.05", "beta=0.05",
        "model=logistic",
        "-resign", "movecount=4", "score=1000",
        "-draw", "movenumber=40", "movecount=8", "score=10",
    ]
    with Paused(True):
        play(args, name, command)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", required=True, help="where this net's files go")
    parser.add_argument("--chunks", type=int, metavar="N",
                        help="train on the first N chunks of data/manifest.tsv")
    parser.add_argument("--data", action="append", default=[],
                        help="instead of --chunks: a data file outside data/ (repeat)")
    parser.add_argument("--seed", type=int, default=1, help="the trainer's seed")
    parser.add_argument("--val-data", action="append", default=[], metavar="FILE",
                        help="validate on these games (repeat; the fixed validation set of "
                             "docs/network.md) instead of the last 3 %% of the data")
    parser.add_argument("--base", help="the build with the net to beat (match and gate steps)")
    parser.add_argument("--train-args", default="--hidden 256 --output-buckets 8 --epochs 24 --lr 0.002 --wdl 0")
    parser.add_argument("--pause", action="store_true", help="pause the generators while training")
    parser.add_argument("--steps", default="snapshot,train,build,match", help=f"of {','.join(STEPS)}")
    parser.add_argument("--size-games", help="a game file for the scale step (held-out games)")
    parser.add_argument("--reference-net", default=os.path.join(CHECKOUT, "src/eval/zwischen.nnue"),
                        help="the net whose evaluation size the scale step matches")
    parser.add_argument("--worktree", default=os.path.join(os.path.dirname(CHECKOUT), "wt-next"),
                        help="the worktree of main that the build step builds in (default: ../wt-next)")
    parser.add_argument("--fastchess", metavar="PATH", default="fastchess",
                        help="the fastchess binary that plays the match and gate steps "
                             "(https://github.com/Disservin/fastchess; default: fastchess on PATH)")
    parser.add_argument("--openings", metavar="FILE",
                        default=os.path.join(CHECKOUT, "openings/balanced-6to8ply.epd"),
                        help="the openings of the match and gate steps, EPD "
                             "(default: openings/balanced-6to8ply.epd)")
    parser.add_argument("--concurrency", type=int, default=1, help="of the 10,000-node match")
    parser.add_argument("--gate-offset", type=int, default=0, metavar="N",
                        help="resume a stopped gate: skip the first N openings (those whose both "
                             "games the stopped run finished)")
    args = parser.parse_args()
    steps = args.steps.split(",")
    if ("match" in steps or "gate" in steps) and not args.base:
        sys.exit("the match and gate steps need --base BINARY")
    if args.chunks and args.data:
        sys.exit("give --chunks or --data, not both")
    args.dir = os.path.abspath(args.dir)
    args.base = args.base and os.path.abspath(args.base)
    # fastchess runs in DIR, so the paths it gets must not be relative.
    args.openings = os.path.abspath(args.openings)
    if os.path.sep in args.fastchess:
        args.fastchess = os.path.abspath(args.fastchess)
    os.makedirs(args.dir, exist_ok=True)

    # The trainer: this checkout's build, copied so that later builds do not change it.
    args.trainer = os.path.join(args.dir, "zwischen-trainer")
    if not os.path.exists(args.trainer):
        run(["nice", "-n", "5", "cargo", "build", "--release"], cwd=CHECKOUT)
        shutil.copyfile(os.path.join(CHECKOUT, "target/release/zwischen"), args.trainer)
        os.chmod(args.trainer, 0o755)
        with open(os.path.join(args.dir, "trainer-commit.txt"), "w") as file:
            file.write(git_state() + "\n")
    with open(os.path.join(args.dir, "trainer-commit.txt")) as file:
        args.trainer_commit = file.read().strip()

    actions = {
        "snapshot": snapshot, "train": train, "scale": scale, "build": build, "match": match, "gate": gate,
    }
    for step in steps:
        if step not in actions:
            sys.exit(f"unknown step {step}: one of {','.join(STEPS)}")
        marker = os.path.join(args.dir, f"{step}.done" if step != "gate" else f"gate-{args.gate_offset}.done")
        if os.path.exists(marker):
            print(f"{step}: done before")
            continue
        if step == "snapshot" and not (args.data or args.chunks):
            sys.exit("snapshot needs --chunks or --data")
        actions[step](args)
        open(marker, "w").close()


if __name__ == "__main__":
    main()
