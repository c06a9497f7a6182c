#!/usr/bin/env python3
"""Copies data/manifest.tsv into the documents that quote it: the table of chunks in
docs/data.md ("Data kept", with its total and the bytes a position below it) and the count
in the README's data paragraph.

    python3 scripts/data_docs.py           # rewrite them from the manifest
    python3 scripts/data_docs.py --check   # exit 1 (changing nothing) if they are out of date

Run it after `zwischen data add`, before committing data/.
"""

import argparse
import os
import re
import sys

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE_HEAD = "| File | Positions | Games | Build | Nodes | Seed | Bytes |\n|---|---|---|---|---|---|---|\n"
# "N training positions (G games) in S MB", wherever the README's lines break it.
README_COUNT = re.compile(r"[\d,]+(\s+)training(\s+)positions(\s+)\([\d,]+(\s+)games\)(\s+)in(\s+)"
                          r"[\d.]+(\s+)MB")
OVERALL = re.compile(r"\d+\.\d\d bytes a training position overall")


def manifest():
    with open(os.path.join(CHECKOUT, "data", "manifest.tsv")) as file:
        return [line.rstrip("\n").split("\t") for line in file
                if line.strip() and not line.startswith("#")]


def grouped(number):
    return f"{int(number):,}"


def data_md(text, rows):
    lines = []
    positions = games = size = 0
    for name, count, played, _plies, nbytes, build, nodes, seed, _date, _sha in rows:
        lines.append(f"| `{name}` | {grouped(count)} | {grouped(played)} | {build} | {nodes} | "
                     f"{seed} | {grouped(nbytes)} |")
        positions, games, size = positions + int(count), games + int(played), size + int(nbytes)
    lines.append(f"| **Total** | **{grouped(positions)}** | **{grouped(games)}** | | | | "
                 f"**{grouped(size)}** |")
    start = text.index(TABLE_HEAD) + len(TABLE_HEAD)
    end = text.index("\n", text.index("| **Total**", start)) + 1
    text = text[:start] + "\n".join(lines) + "\n" + text[end:]
    text = OVERALL.sub(f"{size / positions:.2f} bytes a training position overall", text, count=1)
    return text, (positions, games, size)


def readme(text, totals):
    positions, games, size = totals
    if not README_COUNT.search(text):
        sys.exit("README.md: the data paragraph's count was not found")

    def new(match):
        gaps = match.groups()
        return (f"{grouped(positions)}{gaps[0]}training{gaps[1]}positions{gaps[2]}"
                f"({grouped(games)}{gaps[3]}games){gaps[4]}in{gaps[5]}{size / 1e6:.1f}{gaps[6]}MB")

    return README_COUNT.sub(new, text, count=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report whether they are current")
    args = parser.parse_args()
    stale = []
    paths = [os.path.join(CHECKOUT, "docs", "data.md"), os.path.join(CHECKOUT, "README.md")]
    with open(paths[0]) as file:
        old_data = file.read()
    new_data, totals = data_md(old_data, manifest())
    with open(paths[1]) as file:
        old_readme = file.read()
    new_readme = readme(old_readme, totals)
    for path, old, new in [(paths[0], old_data, new_data), (paths[1], old_readme, new_readme)]:
        if old == new:
            continue
        stale.append(os.path.relpath(path, CHECKOUT))
        if not args.check:
            with open(path, "w") as file:
                file.write(new)
    positions, games, size = totals
    print(f"{positions} positions, {games} games, {size} bytes ({size / positions:.2f} bytes a position); "
          + (("out of date: " if args.check else "rewritten: ") + ", ".join(stale) if stale else "up to date"))
    if args.check and stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
