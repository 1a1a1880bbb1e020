"""Champions' test results as the docs tabulate them: per run, the mean over runs, and one arm against another.

Reads the ``--json`` files of ``champion_matches.py`` (one for the training bots, one for the held-out bots,
or both in one) and prints a markdown table: each run's mean ± 95 % interval over its matches against every
opponent, in bold where it is short of ASHE 1.0's Table 2 interval (a training bot: the champion's interval
lies wholly below Table 2's) or loses to a held-out bot (its interval lies wholly below zero), and whether it
has **both halves** of the goal (Table 2 within the intervals on all four bots, a win or tie against every
held-out bot). Below: the mean over runs (95 % t interval over runs), and how far that mean is from Table 2's,
with an interval that counts the uncertainty of both (Welch: ASHE 1.0's interval is over its 21 runs).

``--versus`` reads a second arm's files; runs pair by their file's name (``seed45.h5`` with ``seed45.h5``), and
the paired differences (this arm minus the other, 95 % t interval over the paired runs) are printed in bold
where the interval excludes zero.

    python scripts/champion_matches.py runs/t2/seed*.h5 --matches 20 --json t2_train.json
    python scripts/champion_matches.py runs/t2/seed*.h5 --matches 5 --json t2_held.json \\
        --opponents tight-aggressive,loose-passive,bluffer,check-raiser,pot-odds
    python scripts/champion_table.py t2_train.json t2_held.json --versus base_train.json base_held.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from champion_matches import summarise
from scipy.stats import t as t_dist

from pokerduel.evolution.evolve import ASHE1_TABLE2, ASHE1_TABLE2_CI
from pokerduel.players.base import HELDOUT_BOTS, TRAINING_BOTS

#: ASHE 1.0's Table 2 is over 21 independent runs
ASHE1_RUNS = 21


def read_arm(paths) -> dict:
    """``{run name: {opponent: {"mean", "ci"}}}`` merged from ``champion_matches.py --json`` files; a run is
    named by its file's name (``RUN.h5:champion:G`` keeps its suffix), so two arms' runs of one seed pair."""
    out: dict = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if "results" not in data:
            raise ValueError(f"{path} is not a champion_matches.py --json file (no 'results')")
        for run, opps in data["results"].items():
            out.setdefault(Path(run).name, {}).update(opps)
    return out


def meets(result: dict, opponent: str) -> bool:
    """Whether a result's interval reaches Table 2's interval (a training bot) or zero (any other opponent)."""
    floor = ASHE1_TABLE2[opponent] - ASHE1_TABLE2_CI[opponent] if opponent in ASHE1_TABLE2 else 0.0
    return result["mean"] + result["ci"] >= floor


def halves(results: dict) -> tuple[bool, bool]:
    """(Table 2 within the intervals on every training bot, a win or tie against every held-out bot) of one
    run's results; an opponent missing from the results fails its half."""
    return (all(b in results and meets(results[b], b) for b in TRAINING_BOTS),
            all(b in results and meets(results[b], b) for b in HELDOUT_BOTS))


def t_interval(x) -> tuple[float, float]:
    """Mean and the half-width of its 95 % t interval (NaN with fewer than two values)."""
    if len(x) < 2:
        return float(np.mean(x)) if len(x) else float("nan"), float("nan")
    s = summarise(x)
    return s["mean"], s["ci"]


def versus_table2(x, bot: str) -> tuple[float, float]:
    """The mean of ``x`` minus Table 2's against ``bot``, with a 95 % interval from both standard errors
    (Welch-Satterthwaite degrees of freedom; Table 2's standard error from its interval over 21 runs)."""
    x = np.asarray(x, np.float64)
    if len(x) < 2:
        return float(x.mean() - ASHE1_TABLE2[bot]) if len(x) else float("nan"), float("nan")
    se1 = x.std(ddof=1) / np.sqrt(len(x))
    se2 = ASHE1_TABLE2_CI[bot] / t_dist.ppf(0.975, ASHE1_RUNS - 1)
    df = (se1 ** 2 + se2 ** 2) ** 2 / (se1 ** 4 / (len(x) - 1) + se2 ** 4 / (ASHE1_RUNS - 1))
    return float(x.mean() - ASHE1_TABLE2[bot]), float(t_dist.ppf(0.975, df) * np.hypot(se1, se2))


def _cell(mean: float, ci: float, bold: bool = False) -> str:
    text = f"{mean:+,.0f} ± {ci:,.0f}".replace("-", "−")  # the docs' minus sign
    return f"**{text}**" if bold else text


def table(arm: dict, versus: dict | None = None) -> str:
    """The markdown table of one arm (and its paired differences with ``versus``)."""
    opps = [o for o in (*TRAINING_BOTS, *HELDOUT_BOTS) if any(o in r for r in arm.values())]
    lines = ["| run | " + " | ".join(opps) + " | Table 2 / held-out |", "|---" * (len(opps) + 2) + "|"]
    both = 0
    for name, res in arm.items():
        t2, ho = halves(res)
        both += t2 and ho
        cells = []
        for o in opps:
            if o not in res:
                cells.append("")
                continue
            cells.append(_cell(res[o]["mean"], res[o]["ci"], not meets(res[o], o)))
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {'yes' if t2 else 'no'} / {'yes' if ho else 'no'} |")

    def mean_row(label, runs, count):
        cells = [_cell(*t_interval([runs[r][o]["mean"] for r in runs if o in runs[r]])) for o in opps]
        return f"| {label} | " + " | ".join(cells) + f" | {count} of {len(runs)} both |"

    lines.append(mean_row(f"mean of the {len(arm)} (95 % t interval over runs)", arm, both))
    cells = [_cell(*versus_table2([r[o]["mean"] for r in arm.values() if o in r], o)) if o in ASHE1_TABLE2 else ""
             for o in opps]
    lines.append("| the mean minus Table 2's (95 % interval of both, Welch) | " + " | ".join(cells) + " | |")
    if versus is not None:
        common = [r for r in arm if r in versus]
        if not common:
            raise ValueError("no run of --versus pairs with a run of this arm (runs pair by file name)")
        v = {r: versus[r] for r in common}
        vboth = sum(all(halves(v[r])) for r in common)
        lines.append(mean_row(f"--versus, the same {len(common)} runs", v, vboth))
        cells = []
        for o in opps:
            d = [arm[r][o]["mean"] - v[r][o]["mean"] for r in common if o in arm[r] and o in v[r]]
            m, c = t_interval(d)
            cells.append(_cell(m, c, bool(np.isfinite(c) and abs(m) > c)))
        lines.append("| paired by run, this arm minus --versus | " + " | ".join(cells) + " | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="champion_matches.py --json files of one arm")
    ap.add_argument("--versus", nargs="+", default=None, help="the other arm's files (runs pair by file name)")
    args = ap.parse_args(argv)
    try:
        print(table(read_arm(args.files), read_arm(args.versus) if args.versus else None))
    except (OSError, ValueError, KeyError) as err:
        ap.error(str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
