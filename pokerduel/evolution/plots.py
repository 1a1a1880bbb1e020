"""``pokerduel plot evolution``: a run's champion against the benchmark panel, generation by generation."""

from __future__ import annotations

import numpy as np


def _smooth(y, w):
    """Trailing moving mean over up to ``w`` generations (shorter at the start)."""
    c = np.cumsum(np.insert(np.asarray(y, float), 0, 0.0))
    idx = np.arange(1, len(y) + 1)
    lo = np.maximum(idx - w, 0)
    return (c[idx] - c[lo]) / (idx - lo)


def describe(cfg) -> str:
    """A run's mode in a few words, for titles and legends."""
    pools = []
    if cfg.opponents:
        pools.append(f"{len(cfg.opponents)} bots")
    if cfg.hall_of_fame:
        pools.append(f"hall {cfg.hall_of_fame}")
    if cfg.fitness == "ane":
        head = "ANE"
    else:
        head = cfg.selector
        pools.insert(0, "population")
    return f"{head} ({' + '.join(pools)}), K={cfg.population}, k={cfg.keep}, {cfg.budget:,} deals/gen"


def plot_evolution_runs(paths, out, dpi: int = 120) -> dict:
    """Several runs (seeds of one mode, or modes): the mean over runs of the champion's panel score against
    the training bots and against the held-out opponents per generation, with a 95% band over runs
    (Student t; runs are independent), one colour per mode. Returns the last generation's means."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy import stats

    from ..infra.figures import save_figure
    from .evolve import load_run

    runs = [load_run(p) for p in paths]
    modes: dict = {}
    for r in runs:
        if r.completed == 0:
            raise ValueError(f"{r.path}: no completed generation to plot")
        key = describe(r.config)
        modes.setdefault(key, []).append(r)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.6), sharex=True)
    summary = {}
    for key, group in modes.items():
        n = min(r.completed for r in group)
        gen = np.arange(1, n + 1)
        summary[key] = {"runs": len(group), "generations": n}
        for ax, part in zip(axes, ("training", "heldout")):
            y = np.stack([r.panel_score(part)[:n] for r in group])
            m = y.mean(axis=0)
            w = max(1, n // 25)
            line, = ax.plot(gen, _smooth(m, w), lw=1.8, label=f"{key} ({len(group)} runs)")
            if len(group) > 1:
                half = stats.t.ppf(0.975, len(group) - 1) * y.std(axis=0, ddof=1) / np.sqrt(len(group))
                ax.fill_between(gen, _smooth(m - half, w), _smooth(m + half, w), color=line.get_color(), alpha=0.15)
            summary[key][part] = float(m[-1])
    for ax, title in zip(axes, ("champion vs the training bots", "champion vs the held-out opponents")):
        ax.set_yscale("symlog", linthresh=100)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xlabel("generation")
        ax.set_ylabel("mean mBB/hand (panel decks)")
        ax.set_title(f"{title}: mean over runs, 95% band", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(2, len(labels)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06 * ((len(labels) + 1) // 2), 1, 1))
    try:
        save_figure(fig, out, dpi)
    finally:
        plt.close(fig)
    return summary


def plot_evolution(path, out, dpi: int = 120) -> dict:
    """Draw the panel curves of the run file ``path`` into ``out`` (PNG, or the format of its suffix); return a
    small summary.

    Left: the champion's mBB/hand against each bot and the held-out players' mean, per generation with
    95% bands (faint) and as a moving mean (bold); symmetric-log scale, since results against the
    Maniac or the random bot are tens of thousands while others are tens. Right: the panel score
    (equal-weight mean over opponents; its band assumes independent matches), moving means of the
    training bots and of the held-out opponents (``EvolutionRun.panel_score``), and the generation of the
    run's champion where it was chosen on validation decks; for the hybrid selector, the share of decisions
    in ML mode.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..infra.figures import save_figure
    from .evolve import load_run

    run = load_run(path)
    n = run.completed
    if n == 0:
        raise ValueError(f"{path}: no completed generation to plot")
    gen = np.arange(1, n + 1)
    mean, ci = run.records["panel_mean"], run.records["panel_ci"]
    names = run.panel_names
    w = max(1, n // 20)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    is_bot = np.array([not nm.startswith("heldout") for nm in names])
    series = [(nm, mean[:, c], ci[:, c]) for c, nm in enumerate(names) if is_bot[c]]
    if (~is_bot).any():
        m = (~is_bot).sum()
        series.append(("held-out players (mean)", mean[:, ~is_bot].mean(axis=1),
                       np.sqrt((ci[:, ~is_bot] ** 2).sum(axis=1)) / m))
    for name, y, half in series:
        line, = ax.plot(gen, _smooth(y, w), lw=1.6, label=name)
        ax.plot(gen, y, lw=0.5, alpha=0.35, color=line.get_color())
        ax.fill_between(gen, y - half, y + half, color=line.get_color(), alpha=0.07)
    ax.set_yscale("symlog", linthresh=100)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("generation")
    ax.set_ylabel("champion's mBB/hand")
    ax.set_title(f"champion vs each panel opponent (bold: {w}-generation moving mean;\n"
                 "faint: per generation with 95% CI)", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    score = mean.mean(axis=1)
    score_ci = np.sqrt((ci ** 2).sum(axis=1)) / ci.shape[1]
    ax2.fill_between(gen, score - score_ci, score + score_ci, color="k", alpha=0.12, label="95% CI")
    ax2.plot(gen, score, lw=0.7, color="k", alpha=0.6, label="panel score (all opponents)")
    ax2.plot(gen, _smooth(score, w), lw=2.2, color="k", label=f"{w}-generation moving mean")
    for group, label in (("training", "training bots"), ("heldout", "held-out opponents")):
        y = run.panel_score(group)
        if not np.all(np.isnan(y)):
            ax2.plot(gen, _smooth(y, w), lw=1.2, label=f"{label} (moving mean)")
    if run.validation is not None:
        ax2.axvline(run.champion_generation, color="tab:red", lw=0.8, ls="--",
                    label=f"the run's champion ({run.champion_label})")
    ax2.set_yscale("symlog", linthresh=100)
    ax2.axhline(0, color="k", lw=0.6)
    ax2.set_xlabel("generation")
    ax2.set_ylabel("mean mBB/hand over the panel")
    cfg = run.config
    ax2.set_title(f"{describe(cfg)}, seed {cfg.seed}", fontsize=9)
    if cfg.selector == "hybrid" and cfg.fitness == "selector":
        ax3 = ax2.twinx()
        ax3.plot(gen, run.records["ml_fraction"], color="tab:gray", lw=0.8, ls=":", label="hybrid: ML share")
        ax3.set_ylim(0, 1.05)
        ax3.set_ylabel("share of decisions in ML-POCBAm mode", color="tab:gray")
        ax3.legend(loc="lower right", fontsize=7)
    ax2.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    try:
        save_figure(fig, out, dpi)
    finally:
        plt.close(fig)
    return {"generations": n, "first_score": float(score[0]), "last_score": float(score[-1]),
            "best_score": float(score.max()), "champion_generation": run.champion_generation}
