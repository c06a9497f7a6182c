#!/usr/bin/env python3
"""Makes and tests the next network: snapshot the data, train, embed and build, then match.

Steps, each run once (a finished step leaves DIR/<step>.done, so a rerun goes on where the
last one stopped):

- snapshot: copies the data files into DIR/data with the generators paused (so no file is
  caught half-written), and counts them (DIR/data.txt);
- train: `zwischen train` on the copies (DIR/net.nnue, log DIR/train.log), the generators
  paused when --pause is given (so two training threads get both cores);
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
- gate: the landing test, SPRT [0, 10] at 8+0.08 on both cores with the generators paused
  (DIR/gate-OFFSET.log). A run stopped before the verdict is resumed with
  `--gate-offset GAMES_PLAYED`, and scripts/combine_matches.py combines the logs.

The match and gate steps need a match runner (--match-runner PATH) and an openings file
(--openings FILE, balanced openings as EPD, which you supply). The match runner is not part
of this repository: a python-chess match script such as one you write yourself, or use
fastchess/cutechess-cli (https://github.com/Disservin/fastchess,
https://github.com/cutechess/cutechess) by hand with the same settings. This script runs it
as `python3 RUNNER --engine new=BINARY --engine base=BINARY --option new:Hash=16 --option
base:Hash=16 --openings FILE --pgn FILE` plus `--nodes N` or `--tc 8+0.08`, `--games N`,
`--seed N`, `--concurrency N` and, for the gate, `--opening-offset N --sprt 0 10
--report-every 20 --draw-movenumber 40 --draw-moves 8 --draw-score 10 --resign-moves 4
--resign-score 1000`; scripts/combine_matches.py reads the logs of such a runner (a
`RESULT {...}` line at the end).

    python3 scripts/next_net.py --dir ../nets/gen8 --base ../gen/zwischen-BASE \\
        --data ../gen/n2500-s8301.zwp --data ../gen/n2500-s8302.zwp \\
        --train-args="--hidden 256 --output-buckets 8 --epochs 24 --lr 0.002 --wdl 0.25" --pause \\
        --steps snapshot,train,scale,build,gate --size-games ../gen/validation.zwp \\
        --match-runner ../tools/match.py --openings book.epd

Run it from the checkout (it builds the trainer there first).
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys

import eval_size
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


def snapshot(args):
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
    data = os.path.join(args.dir, "data")
    command = [args.trainer, "train"]
    for name in sorted(os.listdir(data)):
        command += ["--data", os.path.join(data, name)]
    command += ["--out", os.path.join(args.dir, "net.nnue")]
    command += ["--threads", "2", "--seed", "1", "--val-fraction", "0.03", "--batch", "4096"]
    command += ["--mirror", *shlex.split(args.train_args)]
    with Paused(args.pause):
        run(command, log=os.path.join(args.dir, "train.log"))


def scale(args):
    if not args.size_games:
        sys.exit("scale needs --size-games")
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


def build_with(args, net, name):
    """Builds main with `net` embedded, in the worktree; returns the binary, kept as DIR/name."""
    worktree = args.worktree
    if not os.path.isdir(worktree):
        run(["git", "worktree", "add", "--detach", worktree, "main"], cwd=CHECKOUT)
    # --force: the worktree still embeds the net of its last build.
    run(["git", "checkout", "--force", "--detach", "main"], cwd=worktree)
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
    print(bench.strip().splitlines()[-1])


def match_command(args, name):
    return [
        sys.executable, args.match_runner,
        "--engine", f"new={os.path.join(args.dir, 'zwischen-new')}",
        "--engine", f"base={args.base}",
        "--option", "new:Hash=16", "--option", "base:Hash=16",
        "--openings", args.openings,
        "--pgn", os.path.join(args.dir, name + ".pgn"),
    ]


def match(args):
    command = match_command(args, "m10k") + [
        "--nodes", "10000", "--games", "400", "--seed", "7", "--concurrency", str(args.concurrency),
    ]
    run(command, log=os.path.join(args.dir, "m10k.log"))


def gate(args):
    name = f"gate-{args.gate_offset}"
    command = match_command(args, name) + [
        "--tc", "8+0.08", "--games", "1000", "--concurrency", "2", "--seed", "32",
        "--opening-offset", str(args.gate_offset), "--sprt", "0", "10", "--report-every", "20",
        "--draw-movenumber", "40", "--draw-moves", "8", "--draw-score", "10",
        "--resign-moves", "4", "--resign-score", "1000",
    ]
    with Paused(True):
        run(command, log=os.path.join(args.dir, name + ".log"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", required=True, help="where this net's files go")
    parser.add_argument("--data", action="append", default=[], help="a data file (repeat)")
    parser.add_argument("--base", required=True, help="the build with the net to beat")
    parser.add_argument("--train-args", default="--hidden 256 --output-buckets 8 --epochs 24 --lr 0.002 --wdl 0")
    parser.add_argument("--pause", action="store_true", help="pause the generators while training")
    parser.add_argument("--steps", default="snapshot,train,build,match", help=f"of {','.join(STEPS)}")
    parser.add_argument("--size-games", help="a game file for the scale step (held-out games)")
    parser.add_argument("--reference-net", default=os.path.join(CHECKOUT, "src/eval/zwischen.nnue"),
                        help="the net whose evaluation size the scale step matches")
    parser.add_argument("--worktree", default=os.path.join(os.path.dirname(CHECKOUT), "wt-next"),
                        help="the worktree of main that the build step builds in (default: ../wt-next)")
    parser.add_argument("--match-runner", metavar="PATH",
                        help="required for the match and gate steps: a python-chess match script such "
                             "as one you write yourself, run with match-runner arguments (--engine "
                             "NAME=BINARY, --option, --openings, --tc or --nodes, --games, --sprt; "
                             "this script's docstring lists them), or use fastchess/cutechess-cli by hand")
    parser.add_argument("--openings", metavar="FILE",
                        help="required for the match and gate steps: balanced openings (EPD), e.g. book.epd")
    parser.add_argument("--concurrency", type=int, default=1, help="of the 10,000-node match")
    parser.add_argument("--gate-offset", type=int, default=0)
    args = parser.parse_args()
    steps = args.steps.split(",")
    if ("match" in steps or "gate" in steps) and not (args.match_runner and args.openings):
        sys.exit("the match and gate steps need --match-runner PATH and --openings FILE")
    args.dir = os.path.abspath(args.dir)
    args.base = os.path.abspath(args.base)
    os.makedirs(args.dir, exist_ok=True)

    # The trainer: this checkout's build, copied so that later builds do not change it.
    args.trainer = os.path.join(args.dir, "zwischen-trainer")
    if not os.path.exists(args.trainer):
        run(["nice", "-n", "5", "cargo", "build", "--release"], cwd=CHECKOUT)
        shutil.copyfile(os.path.join(CHECKOUT, "target/release/zwischen"), args.trainer)
        os.chmod(args.trainer, 0o755)

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
        if step == "snapshot" and not args.data:
            sys.exit("snapshot needs --data")
        actions[step](args)
        open(marker, "w").close()


if __name__ == "__main__":
    main()
