#!/usr/bin/env python3
"""Runs and looks after the self-play data generators (`zwischen datagen`).

Each generator is one niced process on one thread that appends whole games to its file, so a
stopped generator resumes by starting it again with a new seed (the engine mixes the seed with
the file's size, so the games differ anyway). They survive the shell that started them (setsid)
and log next to their file (FILE.log).

    python3 scripts/datagen.py start --binary /work/data/zwischen-fe50c25 \\
        --out /work/data/gen4-games-n5000-s3201.zg --seed 3201 --nodes 5000 \\
        --tables /work/data/tables
    python3 scripts/datagen.py list            # running generators and their files
    python3 scripts/datagen.py pause           # SIGSTOP all (for a timed match or a training)
    python3 scripts/datagen.py resume          # SIGCONT all
    python3 scripts/datagen.py stop            # end all (games in progress are lost)
    python3 scripts/datagen.py count --binary B FILE...   # positions and bytes per file

A bare machine first needs `cargo build --release`, the binary copied out of the checkout
(/work/data/zwischen-<commit>) and the 3-4 piece tables: `cp tests/data/syzygy/* DIR`.
"""

import argparse
import os
import signal
import subprocess
import sys


def generators():
    """(pid, argv) of every running `zwischen ... datagen` process."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                argv = [part.decode(errors="replace") for part in file.read().split(b"\0") if part]
        except OSError:
            continue
        if "datagen" in argv[1:2] and "--out" in argv:
            found.append((int(entry), argv))
    return found


def state(pid):
    """The kernel's one-letter process state (R, S, T for stopped ...)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


def start(args):
    command = [
        "nice", "-n", "19", os.path.abspath(args.binary), "datagen",
        "--games", "10000000", "--nodes", str(args.nodes), "--threads", "1",
        "--seed", str(args.seed), "--out", os.path.abspath(args.out),
    ]
    if args.tables:
        command += ["--syzygy-path", os.path.abspath(args.tables)]
    for pid, argv in generators():
        if os.path.abspath(argv[argv.index("--out") + 1]) == os.path.abspath(args.out):
            sys.exit(f"generator {pid} already writes {args.out}")
    with open(args.out + ".log", "a") as log:
        log.write(" ".join(command) + "\n")
        log.flush()
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
        )
    print(f"started {process.pid}: {' '.join(command)}")


def signal_all(sig, verb):
    for pid, argv in generators():
        os.kill(pid, sig)
        print(f"{verb} {pid} ({argv[argv.index('--out') + 1]})")


def count(args):
    total_positions = total_bytes = 0
    for path in args.files:
        output = subprocess.run(
            [args.binary, "convert", "--to-text", path, "/dev/null"],
            capture_output=True, text=True, check=True,
        ).stdout
        positions = int(output.split()[0])
        size = os.path.getsize(path)
        total_positions += positions
        total_bytes += size
        print(f"{path}: {positions:,} positions, {size:,} bytes, {size / max(positions, 1):.2f} B/pos")
    if len(args.files) > 1:
        print(f"total: {total_positions:,} positions, {total_bytes:,} bytes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    start_parser = commands.add_parser("start", help="start one generator")
    start_parser.add_argument("--binary", required=True, help="a Zwischen binary outside the checkout")
    start_parser.add_argument("--out", required=True, help="the games file, appended to")
    start_parser.add_argument("--seed", type=int, required=True)
    start_parser.add_argument("--nodes", type=int, default=5000)
    start_parser.add_argument("--tables", help="Syzygy tables that end games early")
    for name in ("list", "pause", "resume", "stop"):
        commands.add_parser(name)
    count_parser = commands.add_parser("count", help="positions in game or record files")
    count_parser.add_argument("--binary", required=True)
    count_parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    if args.command == "start":
        start(args)
    elif args.command == "list":
        for pid, argv in generators():
            print(f"{pid} {state(pid)} {' '.join(argv)}")
    elif args.command == "pause":
        signal_all(signal.SIGSTOP, "paused")
    elif args.command == "resume":
        signal_all(signal.SIGCONT, "resumed")
    elif args.command == "stop":
        # A stopped process must run again to see the TERM.
        signal_all(signal.SIGCONT, "resumed")
        signal_all(signal.SIGTERM, "ended")
    else:
        count(args)


if __name__ == "__main__":
    main()
