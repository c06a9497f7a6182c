"""Reads the report that fastchess (https://github.com/Disservin/fastchess) prints for a match
of two engines: the result of the last report in its output (W-D-L, pentanomial pairs, Elo,
SPRT) and the per-game lines. Shared by calibrate_elo.py, next_net.py and combine_matches.py.

fastchess's default output ("-output format=fastchess"), at every rating interval and at the
end:

    Results of new vs base (8+0.08, 1t, 16MB, balanced-6to8ply.epd):
    Elo: 12.34 +/- 5.67, nElo: 20.11 +/- 9.24
    LOS: 99.99 %, DrawRatio: 48.00 %, PairsRatio: 1.50
    Games: 200, Wins: 70, Losses: 50, Draws: 80, Points: 110.0 (55.00 %)
    Ptnml(0-2): [3, 20, 48, 24, 5], WL/DD Ratio: 0.80
    LLR: 1.23 (41.8%) (-2.94, 2.94) [0.00, 10.00]

and for each game `Finished game 7 (new vs base): 1-0 {White mates}` (white first, the
result from white's side). Games 2k-1 and 2k of a `-games 2` match share opening k.
"""

import re

MATCHUP = re.compile(r"Results of (\S+) vs (\S+) \(")
GAMES = re.compile(r"Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)")
# "Elo: E +/- e, nElo: N +/- n": the logistic Elo, not the normalised nElo after it.
ELO = re.compile(r"(?<!n)Elo: (-?[\d.]+|-?inf|-?nan) \+/- ([\d.]+|inf|-?nan)")
LOS = re.compile(r"LOS: ([\d.]+|-?nan) %")
PENTA = re.compile(r"Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\]")
LLR = re.compile(r"LLR: (-?[\d.]+|-?inf|-?nan) \([^)]*\) \((-?[\d.]+), (-?[\d.]+)\) "
                 r"\[(-?[\d.]+), (-?[\d.]+)\]")
GAME = re.compile(r"^Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|1/2-1/2|\*)")


def parse(output):
    """The last report in `output`, from the first engine's side, as a dict: `engines`
    (first, second), `games`, `w`, `d`, `l`, `elo`, `error`, `los` (%), `penta` (pairs
    scoring 0, 0.5, 1, 1.5 and 2 points for the first engine), and with an SPRT also `llr`,
    `bounds` (lower, upper), `sprt` (elo0, elo1) and `verdict` ("H0", "H1" or
    "inconclusive"). None when `output` holds no report."""
    starts = [m.start() for m in MATCHUP.finditer(output)]
    if not starts:
        return None
    report = output[starts[-1]:]
    games, elo = GAMES.search(report), ELO.search(report)
    if not games or not elo:
        return None
    total, wins, losses, draws = (int(x) for x in games.groups())
    result = {
        "engines": MATCHUP.match(report).groups(),
        "games": total, "w": wins, "d": draws, "l": losses,
        "elo": float(elo.group(1)), "error": float(elo.group(2)),
        "los": None, "penta": None,
    }
    los = LOS.search(report)
    if los:
        result["los"] = float(los.group(1))
    penta = PENTA.search(report)
    if penta:
        result["penta"] = [int(x) for x in penta.groups()]
    llr = LLR.search(report)
    if llr:
        value, lower, upper, elo0, elo1 = (float(x) for x in llr.groups())
        # Judged from the LLR and its bounds: fastchess's closing "SPRT ... completed - H1 was
        # accepted" line also appears when the games run out before a verdict.
        verdict = "H1" if value >= upper else "H0" if value <= lower else "inconclusive"
        result.update(llr=value, bounds=(lower, upper), sprt=(elo0, elo1), verdict=verdict)
    return result


def games(lines):
    """The per-game lines of fastchess's output: (game number, white, black, result)."""
    found = []
    for line in lines:
        match = GAME.match(line)
        if match:
            number, white, black, result = match.groups()
            found.append((int(number), white, black, result))
    return found


def summary(result):
    """One line: W-D-L, Elo with its 95 % error, the pairs and the SPRT's verdict."""
    first, second = result["engines"]
    line = (f"{first} vs {second}: {result['games']} games W{result['w']} D{result['d']} "
            f"L{result['l']}, Elo {result['elo']:+.1f} +/- {result['error']:.1f}")
    if result["penta"]:
        line += f", pentanomial {result['penta']}"
    if "llr" in result:
        elo0, elo1 = result["sprt"]
        line += (f", SPRT [{elo0:g}, {elo1:g}] LLR {result['llr']:.2f} "
                 f"({result['bounds'][0]:g}, {result['bounds'][1]:g}): {result['verdict']}")
    return line
