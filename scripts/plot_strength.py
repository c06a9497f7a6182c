#!/usr/bin/env python3
"""Draws Zwischen's recorded strength across its network generations and search versions as
an SVG chart (docs/strength.svg) from the table of match results in docs/strength.tsv.

    python3 scripts/plot_strength.py
    python3 scripts/plot_strength.py docs/strength.tsv docs/strength.svg

The left panel has one bar for each step's gate match against the build before it (a new
net or a new search, Elo with its 95 % error) and the chained total over the hand-written
evaluation (the sum of the gains; its band adds the errors in quadrature), with the direct
matches against older builds placed on the chained value of the build they were played
against. The right panel has the results against Stockfish 15.1 at `UCI_Elo` 2850 and at
full strength, 8+0.08 s.

The table is tab-separated with a header line; its columns are step, build, opponent, games,
wdl, elo, error, source and note. The steps come in the order of their first row. The
opponent is `previous` for a step's gate match (exactly one a step; the first step's is the
hand-written evaluation), `sf2850` or `sf-full` for Stockfish, or an earlier step's name for
a direct match against that step's build. An empty error is drawn without an error bar (and
with a hollow marker). Only the standard library is used, and the same table gives the same
bytes.
"""

import argparse
import csv
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "hand-written"

WIDTH, HEIGHT = 800, 450
FONT = "font-family=\"sans-serif\""
# Panels: (left, right) in x, (top, bottom) in y.
LEFT_X = (66, 498)
RIGHT_X = (594, 780)
PLOT_Y = (78, 338)

NET_COLOUR = "#4c78a8"
SEARCH_COLOUR = "#f58518"
CHAIN_COLOUR = "#333333"
DIRECT_COLOUR = "#2e8b57"
SF2850_COLOUR = "#d62728"
SFFULL_COLOUR = "#7b3f9e"
GRID_COLOUR = "#e4e4e4"
TEXT_COLOUR = "#222222"
MUTED_COLOUR = "#666666"
# A white outline under a value's label keeps it readable where it crosses a line.
HALO = ' stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"'


def read_rows(path):
    """The table's rows as dicts, with elo and error as floats (error None where empty)."""
    with open(path, encoding="utf-8", newline="") as file:
        reader = csv.DictReader(file, delimiter="\t")
        needed = {"step", "build", "opponent", "games", "elo", "error"}
        if not needed <= set(reader.fieldnames or []):
            sys.exit(f"{path}: the header needs the columns {', '.join(sorted(needed))}")
        rows = []
        for number, row in enumerate(reader, start=2):
            try:
                row["elo"] = float(row["elo"])
                row["error"] = float(row["error"]) if row["error"].strip() else None
            except ValueError:
                sys.exit(f"{path}:{number}: elo and error must be numbers")
            rows.append(row)
    return rows


def chain(rows):
    """(steps in order, each step's gate row, the chained Elo of each step and its error)."""
    steps = []
    gates = {}
    for row in rows:
        if row["step"] not in steps:
            steps.append(row["step"])
        if row["opponent"] == "previous":
            if row["step"] in gates:
                sys.exit(f"step {row['step']}: more than one gate row (opponent 'previous')")
            gates[row["step"]] = row
    total, variance = {BASELINE: 0.0}, {BASELINE: 0.0}
    before = BASELINE
    for step in steps:
        if step not in gates:
            sys.exit(f"step {step}: no gate row (opponent 'previous')")
        gate = gates[step]
        total[step] = total[before] + gate["elo"]
        variance[step] = variance[before] + (gate["error"] or 0.0) ** 2
        before = step
    return steps, gates, total, {step: math.sqrt(v) for step, v in variance.items()}


def nice_ticks(low, high, count=6):
    """Round tick values covering [low, high] with about `count` intervals."""
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    ticks = []
    value = first
    while value <= last + step / 2:
        ticks.append(round(value, 6))
        value += step
    return ticks


def fmt(value):
    """A coordinate with at most one decimal, without a trailing '.0'."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def signed(value):
    return f"{value:+.0f}".replace("-", "\u2212")


class Svg:
    def __init__(self):
        self.parts = []

    def add(self, text):
        self.parts.append(text)

    def line(self, x1, y1, x2, y2, colour, width=1.0, extra=""):
        self.add(f'<line x1="{fmt(x1)}" y1="{fmt(y1)}" x2="{fmt(x2)}" y2="{fmt(y2)}" '
                 f'stroke="{colour}" stroke-width="{fmt(width)}"{extra}/>')

    def text(self, x, y, content, size=11, anchor="middle", colour=TEXT_COLOUR, extra=""):
        content = content.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.add(f'<text x="{fmt(x)}" y="{fmt(y)}" font-size="{fmt(size)}" '
                 f'text-anchor="{anchor}" fill="{colour}"{extra}>{content}</text>')

    def error_bar(self, x, y_low, y_high, colour, half=4.0):
        self.line(x, y_low, x, y_high, colour, 1.2)
        self.line(x - half, y_low, x + half, y_low, colour, 1.2)
        self.line(x - half, y_high, x + half, y_high, colour, 1.2)

    def marker(self, shape, x, y, colour, hollow=False, size=4.5):
        fill = "#ffffff" if hollow else colour
        style = f'fill="{fill}" stroke="{colour}" stroke-width="1.6"'
        if shape == "circle":
            self.add(f'<circle cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(size)}" {style}/>')
        elif shape == "square":
            s = size * 0.9
            self.add(f'<rect x="{fmt(x - s)}" y="{fmt(y - s)}" width="{fmt(2 * s)}" '
                     f'height="{fmt(2 * s)}" {style}/>')
        else:  # diamond
            s = size * 1.25
            points = f"{fmt(x)},{fmt(y - s)} {fmt(x + s)},{fmt(y)} {fmt(x)},{fmt(y + s)} {fmt(x - s)},{fmt(y)}"
            self.add(f'<polygon points="{points}" {style}/>')

    def document(self):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
                f'viewBox="0 0 {WIDTH} {HEIGHT}" {FONT}>')
        return "\n".join([head, f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>']
                         + self.parts + ["</svg>", ""])


def axes(svg, x_range, ticks, to_y, title, y_label):
    """Grid, y tick labels, the zero line, the panel's title and the y axis label."""
    left, right = x_range
    for tick in ticks:
        y = to_y(tick)
        svg.line(left, y, right, y, GRID_COLOUR)
        svg.text(left - 6, y + 4, signed(tick) if tick else "0", size=10, anchor="end",
                 colour=MUTED_COLOUR)
    svg.line(left, to_y(0), right, to_y(0), "#888888", 1.2)
    svg.line(left, PLOT_Y[0], left, PLOT_Y[1], "#888888")
    svg.text((left + right) / 2, PLOT_Y[0] - 10, title, size=13, extra=' font-weight="bold"')
    middle = (PLOT_Y[0] + PLOT_Y[1]) / 2
    x = left - 44
    svg.text(x, middle, y_label, size=11, colour=MUTED_COLOUR,
             extra=f' transform="rotate(-90 {fmt(x)} {fmt(middle)})"')


def category_label(svg, x, lines):
    """x axis label: the first lines dark, a commit (the last, when it has one) grey."""
    y = PLOT_Y[1] + 15
    for number, (content, muted) in enumerate(lines):
        svg.text(x, y + 12 * number, content, size=9.5 if muted else 10.5,
                 colour=MUTED_COLOUR if muted else TEXT_COLOUR)


def step_lines(step):
    """A step's name over one or two lines ('search-v2' -> 'search', 'v2')."""
    return [(word, False) for word in step.replace("-", " ").split(" ", 1)]


def scale(low, high, ticks):
    """The y mapping of a panel whose values span [low, high] (padded to the ticks)."""
    bottom, top = min(ticks[0], low), max(ticks[-1], high)
    return lambda value: PLOT_Y[1] - (value - bottom) / (top - bottom) * (PLOT_Y[1] - PLOT_Y[0])


def left_panel(svg, rows, steps, gates, total, chained_error):
    categories = [BASELINE] + steps
    width = (LEFT_X[1] - LEFT_X[0]) / len(categories)
    x_of = {name: LEFT_X[0] + width * (i + 0.5) for i, name in enumerate(categories)}
    direct = [row for row in rows if row["opponent"] in total and row["opponent"] != BASELINE
              and row["opponent"] != "previous"]
    values = [0.0]
    for step in categories:
        values += [total[step] - chained_error[step], total[step] + chained_error[step]]
    for step in steps:
        gate = gates[step]
        values.append(gate["elo"] + (gate["error"] or 0.0))
    for row in direct:
        values.append(total[row["opponent"]] + row["elo"] + (row["error"] or 0.0))
    ticks = nice_ticks(min(values), max(values))
    to_y = scale(min(values), max(values), ticks)
    axes(svg, LEFT_X, ticks, to_y, "Gain of each step and chained total",
         "Elo over the hand-written evaluation")

    # The chained total's band, then the bars, then the line on top.
    upper = [(x_of[s], to_y(total[s] + chained_error[s])) for s in categories]
    lower = [(x_of[s], to_y(total[s] - chained_error[s])) for s in reversed(categories)]
    points = " ".join(f"{fmt(x)},{fmt(y)}" for x, y in upper + lower)
    svg.add(f'<polygon points="{points}" fill="{CHAIN_COLOUR}" fill-opacity="0.09" stroke="none"/>')

    bar = width * 0.5
    for step in steps:
        gate = gates[step]
        colour = SEARCH_COLOUR if step.startswith("search") else NET_COLOUR
        x, top, zero = x_of[step], to_y(max(gate["elo"], 0)), to_y(min(gate["elo"], 0))
        svg.add(f'<rect x="{fmt(x - bar / 2)}" y="{fmt(top)}" width="{fmt(bar)}" '
                f'height="{fmt(zero - top)}" fill="{colour}" fill-opacity="0.85"/>')
        high = gate["elo"] + (gate["error"] or 0.0)
        if gate["error"] is not None:
            svg.error_bar(x, to_y(gate["elo"] - gate["error"]), to_y(high), "#333333", 3.5)
        svg.text(x, to_y(high) - 4, signed(gate["elo"]), size=9.5, colour=MUTED_COLOUR,
                 extra=HALO)

    path = " ".join(f"{'M' if i == 0 else 'L'}{fmt(x_of[s])},{fmt(to_y(total[s]))}"
                    for i, s in enumerate(categories))
    svg.add(f'<path d="{path}" fill="none" stroke="{CHAIN_COLOUR}" stroke-width="2"/>')
    for step in categories:
        svg.marker("circle", x_of[step], to_y(total[step]), CHAIN_COLOUR, size=3.2)
    last = categories[-1]
    svg.text(x_of[last] - 10, to_y(total[last]) + 4, signed(total[last]), size=10.5,
             anchor="end", extra=' font-weight="bold"' + HALO)

    for row in direct:
        x, value = x_of[row["step"]] + width * 0.22, total[row["opponent"]] + row["elo"]
        if row["error"] is not None:
            svg.error_bar(x, to_y(value - row["error"]), to_y(value + row["error"]),
                          DIRECT_COLOUR, 3)
        svg.marker("diamond", x, to_y(value), DIRECT_COLOUR, hollow=row["error"] is None)

    category_label(svg, x_of[BASELINE], [("hand-", False), ("written", False)])
    for step in steps:
        category_label(svg, x_of[step], step_lines(step))


def right_panel(svg, rows, steps):
    series = [("sf2850", "circle", SF2850_COLOUR), ("sf-full", "square", SFFULL_COLOUR)]
    results = [row for row in rows if row["opponent"] in ("sf2850", "sf-full")]
    shown = [step for step in steps if any(row["step"] == step for row in results)]
    if not shown:
        return
    width = (RIGHT_X[1] - RIGHT_X[0]) / len(shown)
    x_of = {step: RIGHT_X[0] + width * (i + 0.5) for i, step in enumerate(shown)}
    values = [0.0] + [row["elo"] + sign * (row["error"] or 0.0)
                      for row in results for sign in (-1, 1)]
    ticks = nice_ticks(min(values), max(values))
    to_y = scale(min(values), max(values), ticks)
    axes(svg, RIGHT_X, ticks, to_y, "Against Stockfish 15.1", "Elo against Stockfish")

    for opponent, shape, colour in series:
        points = [row for row in results if row["opponent"] == opponent]
        if len(points) > 1:
            path = " ".join(f"{'M' if i == 0 else 'L'}{fmt(x_of[r['step']])},{fmt(to_y(r['elo']))}"
                            for i, r in enumerate(points))
            svg.add(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.3" '
                    f'stroke-opacity="0.6"/>')
        for row in points:
            x, y = x_of[row["step"]], to_y(row["elo"])
            if row["error"] is not None:
                svg.error_bar(x, to_y(row["elo"] - row["error"]),
                              to_y(row["elo"] + row["error"]), colour)
            svg.marker(shape, x, y, colour, hollow=row["error"] is None)
            svg.text(x + 8, y + 4, signed(row["elo"]), size=9.5, anchor="start", colour=colour,
                     extra=HALO)

    for step in shown:
        builds = sorted({row["build"] for row in results if row["step"] == step})
        category_label(svg, x_of[step], step_lines(step) + [(" ".join(builds), True)])


def legend(svg):
    entries = [
        ("bar", NET_COLOUR, "a new net against the one before"),
        ("bar", SEARCH_COLOUR, "a new search against the one before"),
        ("line", CHAIN_COLOUR, "chained total (band: errors in quadrature)"),
        ("diamond", DIRECT_COLOUR, "a direct match against an older build"),
        ("circle", SF2850_COLOUR, "Stockfish at UCI_Elo 2850"),
        ("square", SFFULL_COLOUR, "Stockfish, full strength (hollow: no error)"),
    ]
    columns = (24, 272, 518)
    for i, (kind, colour, label) in enumerate(entries):
        x, y = columns[i % 3], 410 + 19 * (i // 3)
        if kind == "bar":
            svg.add(f'<rect x="{fmt(x)}" y="{fmt(y - 9)}" width="14" height="10" '
                    f'fill="{colour}" fill-opacity="0.85"/>')
        elif kind == "line":
            svg.add(f'<rect x="{fmt(x - 2)}" y="{fmt(y - 10)}" width="18" height="12" '
                    f'fill="{colour}" fill-opacity="0.09"/>')
            svg.line(x - 2, y - 4, x + 16, y - 4, colour, 2)
            svg.marker("circle", x + 7, y - 4, colour, size=3.2)
        else:
            svg.marker(kind, x + 7, y - 4, colour)
        svg.text(x + 22, y, label, size=11, anchor="start")


def draw(rows):
    steps, gates, total, chained_error = chain(rows)
    svg = Svg()
    svg.text(WIDTH / 2, 26, "Zwischen's strength across its network generations", size=18,
             extra=' font-weight="bold"')
    svg.text(WIDTH / 2, 45, "8+0.08 s a game, 1 thread, Hash 16; Elo with its 95 % error "
             "from each match; data: docs/strength.tsv", size=11, colour=MUTED_COLOUR)
    left_panel(svg, rows, steps, gates, total, chained_error)
    right_panel(svg, rows, steps)
    legend(svg)
    return svg.document()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", nargs="?", default=str(ROOT / "docs" / "strength.tsv"),
                        help="the results table (default: docs/strength.tsv)")
    parser.add_argument("output", nargs="?", default=str(ROOT / "docs" / "strength.svg"),
                        help="the chart to write (default: docs/strength.svg)")
    args = parser.parse_args()
    document = draw(read_rows(args.table))
    with open(args.output, "w", encoding="utf-8", newline="\n") as file:
        file.write(document)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
