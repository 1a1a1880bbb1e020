"""PBO on poker: tune a rule-based player by duels against a fixed opponent panel.

A duel between two parameter settings a and b plays each against every panel opponent with
``play_duplicate`` on the same decks (the same seed for a and b: common random numbers); y = 1 when a's
chips summed over the panel exceed b's (an exact tie is a fair coin). PBO (dueling-Thompson sampling by
default) proposes the duels and reports its Condorcet winner. A large-sample evaluation of every grid
setting against the panel (``--truth-deals`` per opponent, one seed for all) says how good the pick is.

Families: ``candid-statistician`` (1-D: the exponent of o = HS**exponent, log grid on [--emin, --emax]);
``hothead-maniac`` (2-D: unraised and raised raise sizes, 0.5 to 4 pots in half-pot steps).

    nice -n 10 python scripts/pbo_poker.py [--family candid-statistician] [--duels 100] [--deals 500]
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import sys
import time

import numpy as np

FAMILIES = ("candid-statistician", "hothead-maniac")
PANEL = "calling-machine,hothead-maniac,scared-limper,candid-statistician,random"


def family_grid(args):
    """Unit-cube grid, the parameter values at each grid point, a player factory and labels."""
    from pokerduel.bandits.pbo_functions import unit_grid
    from pokerduel.players.base import candid_statistician, hothead_maniac

    if args.family == "candid-statistician":
        unit = unit_grid(1, args.grid)
        values = args.emin * (args.emax / args.emin) ** unit  # log-spaced exponents
        return unit, values, lambda v: candid_statistician(float(v[0])), ("exponent",)
    sizes = np.arange(1, 9) / 2.0  # 0.5 .. 4 pots; the kernel uses whole half-pots
    unit = unit_grid(2, len(sizes))
    values = sizes[0] + unit * (sizes[-1] - sizes[0])
    return unit, values, lambda v: hothead_maniac(float(v[0]), float(v[1])), ("unraised pots", "raised pots")


def panel_chips(player, panel, deals, seed):
    """Chips of ``player`` summed over the panel, each match on the decks of ``seed + k``."""
    from pokerduel.play.matches import play_duplicate

    return int(sum(play_duplicate(player, opp, deals, seed=seed + k).samples.sum() for k, opp in enumerate(panel)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", default="candid-statistician")
    ap.add_argument("--panel", default=PANEL, help="comma-separated bot names")
    ap.add_argument("--method", default="pbo-dts")
    ap.add_argument("--duels", type=int, default=100)
    ap.add_argument("--init", type=int, default=5)
    ap.add_argument("--deals", type=int, default=500, help="duplicate deals per panel opponent per duel")
    ap.add_argument("--grid", type=int, default=33, help="grid points (candid-statistician)")
    ap.add_argument("--emin", type=float, default=1.0)
    ap.add_argument("--emax", type=float, default=64.0)
    ap.add_argument("--truth-deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--out-dir", default="docs/results")
    args = ap.parse_args()
    from pokerduel.bandits.pbo import METHODS, make_policy, run_trial
    from pokerduel.players.base import BOTS

    panel = args.panel.split(",")
    problems = []
    if args.family not in FAMILIES:
        problems.append(f"--family must be one of {', '.join(FAMILIES)}")
    if any(p not in BOTS for p in panel):
        problems.append(f"--panel names must be among {', '.join(BOTS)}")
    if args.method not in METHODS:
        problems.append(f"--method must be one of {', '.join(METHODS)}")
    if min(args.duels, args.deals, args.truth_deals, args.init) < 1 or args.grid < 2 or not 0 < args.emin < args.emax:
        problems.append("--duels, --deals, --truth-deals, --init must be >= 1, --grid >= 2, 0 < --emin < --emax")
    if problems:
        print("usage error: " + "; ".join(problems), file=sys.stderr)
        sys.exit(2)

    unit, values, make, labels = family_grid(args)
    G = len(unit)
    ss = np.random.SeedSequence(args.seed)
    duel_rng, init_rng, policy_rng = (np.random.default_rng(s) for s in ss.spawn(3))
    n_played = [0]

    def duel(i, j):
        seed = int(duel_rng.integers(1, 2**40))
        a = panel_chips(make(values[i]), panel, args.deals, seed)
        b = panel_chips(make(values[j]), panel, args.deals, seed)
        n_played[0] += 1
        return int(a > b) if a != b else int(duel_rng.random() < 0.5)

    t0 = time.perf_counter()
    init = []
    for _ in range(args.init):
        i, j = (int(v) for v in init_rng.integers(G, size=2))
        init.append((i, j, duel(i, j)))
    policy = make_policy(args.method, unit, policy_rng, **({"optimize_every": 5} if args.method.startswith("pbo-") else {}))
    guesses, asked, _ = run_trial(policy, duel, init, args.duels)
    search_secs = time.perf_counter() - t0

    t1 = time.perf_counter()  # large-sample check: every grid setting against the panel on the same decks
    truth = np.array([[play_duplicate_mbb(make(v), opp, args.truth_deals, args.seed * 1000 + k)
                       for k, opp in enumerate(panel)] for v in values])
    truth_secs = time.perf_counter() - t1
    mean = truth[:, :, 0].mean(axis=1)
    half = np.sqrt((truth[:, :, 1] ** 2).sum(axis=1)) / len(panel)  # 95% half-width of the panel mean
    best = int(np.argmax(mean))
    pick = int(guesses[-1])
    rank = int((mean > mean[pick]).sum()) + 1

    def fmt(k):
        return ", ".join(f"{lab} {values[k][d]:.3g}" for d, lab in enumerate(labels))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pokerduel.selectors.studies import atomic_savefig

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    if len(labels) == 1:
        x = values[:, 0]
        axes[0].errorbar(x, mean, yerr=half, fmt="o-", ms=3, label="vs panel, large sample")
        axes[0].axvline(values[pick, 0], color="red", ls="--", label=f"PBO pick ({fmt(pick)})")
        axes[0].set_xscale("log")
        axes[0].set_xlabel(labels[0])
        if hasattr(policy, "scores"):
            policy.fit()
            axes[1].plot(x, policy.scores, "o-", ms=3)
            axes[1].set_xscale("log")
            axes[1].set_xlabel(labels[0])
            axes[1].set_ylabel("soft-Copeland score after the last duel")
    else:
        side = int(round(np.sqrt(G)))
        im = axes[0].imshow(mean.reshape(side, side).T, origin="lower", extent=(0.25, 4.25, 0.25, 4.25))
        fig.colorbar(im, ax=axes[0])
        axes[0].plot(*values[pick], "r*", ms=14, label=f"PBO pick ({fmt(pick)})")
        axes[0].set_xlabel(labels[0])
        axes[0].set_ylabel(labels[1])
        if hasattr(policy, "scores"):
            policy.fit()
            im = axes[1].imshow(policy.scores.reshape(side, side).T, origin="lower", extent=(0.25, 4.25, 0.25, 4.25))
            fig.colorbar(im, ax=axes[1])
            axes[1].set_title("soft-Copeland score after the last duel", fontsize=9)
    axes[0].set_title("mbb/hand vs the panel (mean over opponents)", fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"PBO ({args.method}) tuning the {args.family}: {args.duels} duels of {args.deals} deals "
                 f"per opponent", fontsize=10)
    fig.tight_layout()
    name = f"pbo_poker_{args.family}"
    os.makedirs(args.out_dir, exist_ok=True)
    atomic_savefig(fig, os.path.join(args.out_dir, f"{name}.png"))

    marks = sorted({0, 10, 25, 50, args.duels // 2, args.duels} & set(range(args.duels + 1)))
    lines = [f"# PBO on poker: tuning the {args.family}", "",
             f"`nice -n 10 python scripts/pbo_poker.py --family {args.family} --method {args.method} "
             f"--duels {args.duels} --init {args.init} --deals {args.deals} --truth-deals {args.truth_deals} "
             f"--seed {args.seed}`" + (f" (grid {args.grid} exponents, log-spaced on [{args.emin:g}, {args.emax:g}])"
                                       if len(labels) == 1 else " (grid 8 x 8 raise sizes)"),
             "", f"Panel: {', '.join(panel)}. A duel plays both candidates against every panel member for "
             f"{args.deals} duplicate deals on the same decks; the one with more chips over the panel wins.",
             f"Search: {args.init + args.duels} duels, {search_secs:.0f} s; large-sample check "
             f"({args.truth_deals} deals per opponent for each of the {G} settings): {truth_secs:.0f} s "
             "(shared, loaded 2-core machine).", "",
             f"- PBO's pick after the last duel: **{fmt(pick)}**: {mean[pick]:.0f} ± {half[pick]:.0f} mbb/hand "
             f"against the panel (rank {rank} of {G} on the large sample).",
             f"- Best setting on the large sample: {fmt(best)}: {mean[best]:.0f} ± {half[best]:.0f} mbb/hand.",
             "", "Pick after n duels: " + "; ".join(f"{n}: {fmt(int(guesses[n]))} ({mean[guesses[n]]:.0f})"
                                                   for n in marks) + ".", "",
             "| setting | " + " | ".join(panel) + " | panel mean |", "|---|" + "---|" * (len(panel) + 1)]
    order = np.argsort(-mean)
    shown = list(order[:5]) + ([pick] if pick not in order[:5] else [])
    if len(labels) == 1:
        shown = sorted(set(shown) | set(range(0, G, 4)))
    for k in shown:
        star = " (pick)" if k == pick else ""
        lines.append(f"| {fmt(k)}{star} | " + " | ".join(f"{truth[k, o, 0]:.0f}" for o in range(len(panel)))
                     + f" | {mean[k]:.0f} ± {half[k]:.0f} |")
    text = "\n".join(lines)
    with open(os.path.join(args.out_dir, f"{name}.md"), "w") as f:
        f.write(text + "\n")
    print(text)


def play_duplicate_mbb(player, opp, deals, seed):
    """(mean, 95% half-width) of ``player``'s mbb/hand against ``opp``."""
    from pokerduel.play.matches import play_duplicate

    return play_duplicate(player, opp, deals, seed=seed).mbb_per_hand()


if __name__ == "__main__":
    main()
