#!/usr/bin/env python3
"""Runs and looks after the self-play data generators (`zwischen datagen`).

Each generator is one niced process on one thread that appends whole games to its game pack,
a block of 100 games at a time, so a stopped generator resumes by starting it again with a new
seed (the engine mixes the seed with the file's size, so the games differ anyway). They
survive the shell that started them (setsid) and log next to their file (FILE.log). Their
files live outside the checkout (here ../gen); `zwischen data add` turns them into chunks of
data/ (see docs/data.md).

    cargo build --release && mkdir -p ../gen/tables && cp tests/data/syzygy/* ../gen/tables
    cp target/release/zwischen ../gen/zwischen-$(git rev-parse --short HEAD)
    python3 scripts/datagen.py start --binary ../gen/zwischen-COMMIT \\
        --out ../gen/n2500-s101.zwp --seed 101 --nodes 2500 --tables ../gen/tables
    python3 scripts/datagen.py list            # running generators and their files
    python3 scripts/datagen.py pause           # SIGSTOP all (for a timed match or a training)
    python3 scripts/datagen.py resume          # SIGCONT all
    python3 scripts/datagen.py stop            # clean stop: games in progress end, last block written
    python3 scripts/datagen.py collect --restart   # stop, `zwischen data add` each pack, restart
    python3 scripts/datagen.py count --binary B FILE...   # positions and bytes per file
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time


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


def lower_autogroup(pid):
    """Where Linux groups processes by session for scheduling (autogroup, on by default in
    most distributions), `nice` counts only inside the group: a generator in a session of
    its own would take an equal share of the CPU from a match or a GUI whatever its nice
    value. Its group gets the lowest priority too; elsewhere there is nothing to do."""
    try:
        with open(f"/proc/{pid}/autogroup", "w") as file:
            file.write("19")
    except OSError:
        pass


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
    lower_autogroup(process.pid)
    print(f"started {process.pid}: {' '.join(command)}")


def signal_all(sig, verb):
    for pid, argv in generators():
        os.kill(pid, sig)
        print(f"{verb} {pid} ({argv[argv.index('--out') + 1]})")


def stop(wait):
    """Asks every generator to stop cleanly (FILE.stop: it finishes its games in progress and
    writes its last block), then ends those still running after `wait` seconds."""
    running = generators()
    for pid, argv in running:
        out = argv[argv.index("--out") + 1]
        open(out + ".stop", "w").close()
        os.kill(pid, signal.SIGCONT)
        print(f"asked {pid} to stop ({out})")
    pids = {pid for pid, _ in running}
    deadline = time.time() + wait
    while time.time() < deadline and pids & {pid for pid, _ in generators()}:
        time.sleep(0.5)
    for pid, argv in generators():
        if pid in pids:
            os.kill(pid, signal.SIGTERM)
            print(f"ended {pid} ({argv[argv.index('--out') + 1]}): it did not stop in {wait} s")


def argument(argv, name, default=None):
    """The value after `name` in a generator's command line."""
    return argv[argv.index(name) + 1] if name in argv else default


def collect(args):
    """Stops every generator cleanly, adds each one's pack to the data folder (`zwischen data
    add`, with the seed, nodes and the build named in its binary `zwischen-COMMIT`), renames
    the pack FILE.added so it is never added twice, and with --restart starts each generator
    again on a new file with a new seed (a seed never used before: the current Unix time plus
    its number, so a rebuilt machine cannot replay old games)."""
    running = [argv for _, argv in generators()]
    if not running:
        sys.exit("no generator is running")
    stop(args.wait)
    base_seed = int(time.time())
    for number, argv in enumerate(running):
        binary = argv[argv.index("datagen") - 1]
        out, seed, nodes = argument(argv, "--out"), argument(argv, "--seed"), argument(argv, "--nodes")
        match = re.search(r"zwischen-([0-9a-f]{7,40})$", binary)
        if not match:
            sys.exit(f"{binary}: the build is named by a binary zwischen-COMMIT; add {out} by hand")
        if os.path.getsize(out) > 8:
            command = [binary, "data", "add", out, "--build", match.group(1), "--nodes", nodes,
                       "--seed", seed, "--date", time.strftime("%Y-%m-%d"), "--dir", args.data]
            result = subprocess.run(command, capture_output=True, text=True)
            print(result.stdout.strip() or result.stderr.strip())
            if result.returncode != 0:
                sys.exit(f"adding {out} failed; nothing restarted")
            os.rename(out, out + ".added")
        if args.restart:
            new_seed = base_seed + number
            new_out = os.path.join(os.path.dirname(out), f"n{nodes}-s{new_seed}.zwp")
            args_start = argparse.Namespace(binary=binary, out=new_out, seed=new_seed,
                                            nodes=int(nodes), tables=argument(argv, "--syzygy-path"))
            start(args_start)


def count(args):
    """Positions and bytes of game packs (`zwischen data stats`) or older data files."""
    total_positions = total_bytes = 0
    for path in args.files:
        with open(path, "rb") as file:
            pack = file.read(8) == b"ZWPACK1\n"
        if pack:
            output = subprocess.run(
                [args.binary, "data", "stats", path], capture_output=True, text=True
            ).stdout
            positions = int(output.strip().splitlines()[-1].split()[0])
        else:
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
    for name in ("list", "pause", "resume"):
        commands.add_parser(name)
    stop_parser = commands.add_parser("stop", help="stop every generator cleanly")
    stop_parser.add_argument("--wait", type=float, default=120, help="seconds before a kill")
    collect_parser = commands.add_parser("collect", help="stop, add every pack to data/, restart")
    collect_parser.add_argument("--data", default="data", help="the data folder (default: data)")
    collect_parser.add_argument("--restart", action="store_true", help="start them again, new seeds")
    collect_parser.add_argument("--wait", type=float, default=120, help="seconds before a kill")
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
        stop(args.wait)
    elif args.command == "collect":
        collect(args)
    else:
        count(args)


if __name__ == "__main__":
    main()
