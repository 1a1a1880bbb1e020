"""Champions' test results as the docs tabulate them: per run, the mean over runs, and one arm against another.

Reads the ``--json`` files of ``champion_matches.py`` (one for the training bots, one for the held-out bots,
or both in one) and prints a markdown table: each run's mean ± 95 % interval over its matches against every
opponent, in bold where it is short of ASHE 1.0's Table 2 interval (a training bot: the champion's interval
lies wholly below Table 2's) or loses to a held-out bot (its interval lies wholly below zero), and whether it
has **both halves** of the goal (Table 2 within the intervals on all four bots, a win or tie against every
held-out bot). Below: the mean over runs, and how far that mean is from Table 2's, with an interval that
counts the uncertainty of both (Welch: ASHE 1.0's interval is over its 21 runs).

Every run in a ``champion_matches.py`` file plays the same matches (one deck seed), so a mean over runs
carries the luck of those decks once for all of them. Where the runs share their matches, its interval
counts that luck as well as the runs' spread (two-way random effects, runs and matches, with Satterthwaite's
degrees of freedom); a t interval over the runs' means alone would leave it out.

``--versus`` reads a second arm's files; runs pair by their file's name (``seed45.h5`` with ``seed45.h5``; with
``--pair-by-file`` also ``seed45.h5:champion:G`` with ``seed45.h5``: another champion of the same run), and
the paired differences (this arm minus the other, 95 % interval over the paired runs, and their shared
matches where both arms played the same ones) are printed in bold where the interval excludes zero.

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
from scipy.stats import t as t_dist

from pokerduel.evolution.evolve import ASHE1_TABLE2, ASHE1_TABLE2_CI
from pokerduel.players.base import HELDOUT_BOTS, TRAINING_BOTS

#: ASHE 1.0's Table 2 is over 21 independent runs
ASHE1_RUNS = 21


def read_arm(paths) -> dict:
    """``{run name: {opponent: {"mean", "ci", "matches", "decks"}}}`` merged from ``champion_matches.py --json``
    files; a run is named by its file's name (``RUN.h5:champion:G`` keeps its suffix), so two arms' runs of one
    seed pair. ``decks`` is the file's (deck seed, deals): runs with equal ``decks`` played the same matches."""
    out: dict = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if "results" not in data:
            raise ValueError(f"{path} is not a champion_matches.py --json file (no 'results')")
        decks = (data.get("seed"), data.get("deals"))
        for run, opps in data["results"].items():
            out.setdefault(Path(run).name, {}).update({o: {**r, "decks": decks} for o, r in opps.items()})
    return out


def by_file(arm: dict) -> dict:
    """``arm`` with each run named by its file alone (``seed45.h5:champion:G`` as ``seed45.h5``), so that another
    champion of a run pairs with the run's own; two champions of one run in one arm are an error."""
    out: dict = {}
    for name, results in arm.items():
        key = name.split(":")[0]
        if key in out:
            raise ValueError(f"two champions of {key} in one arm; --pair-by-file needs one a run")
        out[key] = results
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


def over_runs(x) -> tuple[float, float, float]:
    """Mean over runs, its standard error and degrees of freedom. ``x`` is a runs × matches array of every
    run's results on the same matches (the SE counts the matches' shared luck: two-way random effects,
    Satterthwaite), or one value per run (runs on independent decks: the SE of a mean over runs)."""
    x = np.asarray(x, np.float64)
    if x.ndim == 2 and x.shape[1] < 2:
        x = x.mean(axis=1)
    if len(x) < 2:
        return float(x.mean()) if x.size else float("nan"), float("nan"), float("nan")
    if x.ndim == 1:
        return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))), float(len(x) - 1)
    r, j = x.shape
    runs, matches = x.mean(axis=1), x.mean(axis=0)
    ms_run, ms_match = j * runs.var(ddof=1), r * matches.var(ddof=1)
    ms_res = float(((x - runs[:, None] - matches[None, :] + x.mean()) ** 2).sum() / ((r - 1) * (j - 1)))
    if ms_match <= ms_res:  # no luck shared by the matches beyond the residual: the runs' means alone
        return float(x.mean()), float(np.sqrt(ms_run / (r * j))), float(r - 1)
    var = (ms_run + ms_match - ms_res) / (r * j)
    df = (ms_run + ms_match - ms_res) ** 2 / (ms_run ** 2 / (r - 1) + ms_match ** 2 / (j - 1)
                                             + ms_res ** 2 / ((r - 1) * (j - 1)))
    return float(x.mean()), float(np.sqrt(var)), float(df)


def interval(estimate) -> tuple[float, float]:
    """Mean and 95 % half-width of an ``over_runs`` estimate."""
    mean, se, df = estimate
    return mean, float(t_dist.ppf(0.975, df) * se) if np.isfinite(se) else float("nan")


def results_of(runs, opponent: str):
    """The runs' results against ``opponent`` for ``over_runs``: every match where all runs played the same
    matches (one deck seed and deal count, as many matches), else each run's mean."""
    rs = [runs[r][opponent] for r in runs if opponent in runs[r]]
    shapes = {(r.get("decks"), len(r.get("matches", ()))) for r in rs}
    if len(shapes) == 1:
        ((decks, n),) = shapes
        if decks is not None and None not in decks and n >= 2:
            return np.array([r["matches"] for r in rs], np.float64)
    return np.array([r["mean"] for r in rs], np.float64)


def _run_means(x: np.ndarray) -> np.ndarray:
    return x if x.ndim == 1 else x.mean(axis=1)


def versus_table2(estimate, bot: str) -> tuple[float, float]:
    """An ``over_runs`` estimate minus Table 2's mean against ``bot``, with a 95 % interval from both standard
    errors (Welch-Satterthwaite degrees of freedom; Table 2's standard error from its interval over 21 runs)."""
    mean, se1, df1 = estimate
    if not np.isfinite(se1):
        return mean - ASHE1_TABLE2[bot], float("nan")
    se2 = ASHE1_TABLE2_CI[bot] / t_dist.ppf(0.975, ASHE1_RUNS - 1)
    df = (se1 ** 2 + se2 ** 2) ** 2 / (se1 ** 4 / df1 + se2 ** 4 / (ASHE1_RUNS - 1))
    return mean - ASHE1_TABLE2[bot], float(t_dist.ppf(0.975, df) * np.hypot(se1, se2))


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
        cells = [_cell(*interval(over_runs(results_of(runs, o)))) for o in opps]
        return f"| {label} | " + " | ".join(cells) + f" | {count} of {len(runs)} both |"

    lines.append(mean_row(f"mean of the {len(arm)} (95 % interval over runs and shared matches)", arm, both))
    cells = [_cell(*versus_table2(over_runs(results_of(arm, o)), o)) if o in ASHE1_TABLE2 else "" for o in opps]
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
            both_arms = [r for r in common if o in arm[r] and o in v[r]]
            a, b = results_of({r: arm[r] for r in both_arms}, o), results_of({r: v[r] for r in both_arms}, o)
            same_matches = a.shape == b.shape and (a.ndim == 1 or arm[both_arms[0]][o]["decks"]
                                                   == v[both_arms[0]][o]["decks"])
            m, c = interval(over_runs(a - b if same_matches else _run_means(a) - _run_means(b)))
            cells.append(_cell(m, c, bool(np.isfinite(c) and abs(m) > c)))
        lines.append("| paired by run, this arm minus --versus | " + " | ".join(cells) + " | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="champion_matches.py --json files of one arm")
    ap.add_argument("--versus", nargs="+", default=None, help="the other arm's files (runs pair by file name)")
    ap.add_argument("--pair-by-file", action="store_true",
                    help="name runs by their file alone (RUN.h5:champion:G as RUN.h5), to pair two champions of a run")
    args = ap.parse_args(argv)
    name = by_file if args.pair_by_file else (lambda arm: arm)
    try:
        print(table(name(read_arm(args.files)), name(read_arm(args.versus)) if args.versus else None))
    except (OSError, ValueError, KeyError) as err:
        ap.error(str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
