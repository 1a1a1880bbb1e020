"""``pokerduel evolve``: neuroevolution of ASHE players with a top-k selector choosing the survivors."""

from __future__ import annotations

import json
import os
import sys
import time

import click
import numpy as np

from ._errors import stopped_run
from ._outputs import check_output
from ._settings import player_settings


class _Progress:
    """Generation, best panel score, samples/s and ETA on stderr (in place on a terminal)."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, info):
        if "validating" in info:
            final = (f"; then the first {info['finalists']} on {info['final_deals']:,} more"
                     if info["finalists"] else "")
            if info.get("averages"):
                final += (f"; then the means of the last {', '.join(map(str, info['averages']))} generations' "
                          f"champions on {info['average_deals']:,}")
            if info.get("raising_ranges"):
                final += (f"; then the champion at raising ranges {', '.join(map(str, info['raising_ranges']))} on "
                          f"{info['average_deals']:,}")
            self.stream.write(f"choosing the run's champion: the last {info['validating']} generations' champions, "
                              f"{info['deals']:,} duplicate deals against each training opponent{final}\n")
            self.stream.flush()
            return
        g, G = info["generation"], info["generations"]
        rate = info["samples"] / info["selector_seconds"] if info["selector_seconds"] > 0 else 0.0
        per_gen = info["elapsed"] / info["done_here"]
        eta = time.strftime("%H:%M:%S", time.gmtime((G - g) * per_gen))
        line = (f"generation {g}/{G}  champion {info['panel_score']:+.0f} mBB/hand (best "
                f"{info['best_panel_score']:+.0f})  {rate:,.0f} samples/s  {per_gen:.1f} s/gen  ETA {eta}")
        if self.tty:
            self.stream.write("\r" + line.ljust(100) + ("\n" if g == G else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _parse_options(pairs):
    out = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r}: expected NAME=VALUE", param_hint="--selector-option")
        try:
            out[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            out[key.replace("-", "_")] = value
    return out


def _parse_numbers(text, hint, kind=float):
    """Comma-separated numbers of ``kind`` (None stays None); anything else is a usage error."""
    if text is None:
        return None
    try:
        return tuple(kind(x) for x in text.split(","))
    except ValueError:
        what = "whole numbers" if kind is int else "numbers"
        raise click.BadParameter(f"{text!r}: expected comma-separated {what}", param_hint=hint) from None


def _parse_targets(text, hint="--targets"):
    if text is None:
        return None
    try:
        return tuple(None if x.strip() == "-" else float(x) for x in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected comma-separated numbers (mBB/hand) or '-' for none",
                                 param_hint=hint) from None


#: config fields that a command-line option other than their namesake sets
_PARAM = {"init_low": "init_range", "init_high": "init_range"}


@click.command("evolve")
@click.option("--preset", type=click.Choice(["ashe1", "generalist", "refine", "table2", "scratch"]), default=None,
              help="A named set of options; options given explicitly override it. ashe1: ASHE 1.0 exactly "
                   "(--fitness ane --opponents the four ASHE 1.0 bots --deals 500 --population 50 --keep 15 "
                   "--generations 250). generalist: ASHE 1.0's fitness and hands from the hand-built player "
                   "(--init handbuilt --init-range -0.1 0.1), against the four bots and handbuilt plus "
                   "--hall-of-fame 4 --pool-weights 0 0.1 1, --deals 222. refine: the generalist's opponents and "
                   "hands from the reader-steady player (--init reader-steady --read-raises --read-reraises "
                   "--lookahead) with small noise and mutation (--init-range -0.03 0.03 --rate-start 0.05 "
                   "--sigma-start 0.1). table2: refine with ASHE 1.0's Table 2 means as targets and the Maniac "
                   "weighted 2 (--targets 998.6,40368,36158,9800,- --opponent-weights 1,1,2,1,1), ASHE 1.0's 500 deals "
                   "against each bot (--opponent-deals 500,500,500,500,222), the run's champion "
                   "the one of all 250 generations' least short of the targets on validation decks "
                   "(--validate-window 250 --validate-rule shortfall). scratch: table2's opponents, hands and aim "
                   "from random weights near zero with anchored estimators and refine's mutation (--init random "
                   "--init-range -0.03 0.03 --anchored --read-aggression --call-option --option-reraise "
                   "--raising-range 0.5), its champion the mean of the last 50, 25 or 10 generations' champions where "
                   "that reaches the lower ends of Table 2's intervals (--average-windows 50,25,10 --average-floors "
                   "996,38379,34670,8153,-), played at the widest raising range that still does "
                   "(--champion-raising-ranges 1,0.75,0.6).")
@click.option("--fitness", type=click.Choice(["selector", "ane"]), default="selector", show_default=True,
              help="selector: a top-k selector spends --budget samples on the population; ane: every player "
                   "plays every fixed opponent --deals duplicate deals on common decks, fitness = ASHE 1.0's "
                   "Average Normalized Earnings.")
@click.option("--opponents", default="", metavar="SPECS",
              help="Comma-separated training opponents: bots (e.g. scared-limper,calling-machine,hothead-maniac,"
                   "candid-statistician) or bots with their rule constants (candid-statistician(exponent=15)), "
                   "FILE.h5:INDEX of a population or run file, RUN.h5:champion[:G]  "
                   "[default: none].")
@click.option("--hall-of-fame", type=click.IntRange(min=0), default=0, show_default=True,
              help="Frozen champions of earlier generations every player also plays.")
@click.option("--hall-policy", type=click.Choice(["last", "best"]), default="last", show_default=True,
              help="last: the latest champions; best: those with the best results against the training opponents.")
@click.option("--opponent-weights", default=None, metavar="W1,W2,...",
              help="Relative weights of the training opponents within their pool, one per opponent (normalised to "
                   "sum to 1); with --fitness ane they weigh each opponent's normalized earnings  [default: equal].")
@click.option("--targets", default=None, metavar="T1,T2,...",
              help="With --fitness ane: per training opponent (in --opponents order), the mBB/hand up to which "
                   "ANE credits earnings against it ('-': no target), so that evolution does not trade one "
                   "opponent below its target for a surplus against another  [default: none].")
@click.option("--opponent-deals", default=None, metavar="D1,D2,...",
              help="With --fitness ane: per training opponent (in --opponents order), the duplicate deals each "
                   "player plays against it; the hall of fame's members keep --deals  [default: --deals].")
@click.option("--validate-window", type=click.IntRange(min=0), default=0, show_default=True,
              help="After the last generation, re-score the champions of this many last generations on fresh decks "
                   "against the training opponents and make the best the run's champion (0: the last "
                   "generation's champion; at least --generations: every generation's).")
@click.option("--validate-matches", type=click.IntRange(min=1), default=8, show_default=True,
              help="Matches of --panel-deals deals per re-scored champion and training opponent.")
@click.option("--validate-rule", type=click.Choice(["ane", "shortfall"]), default="ane", show_default=True,
              help="How the re-scored champions are ranked: the run's fitness (ANE with its targets and opponent "
                   "weights), or the smallest worst shortfall below --targets, each in units of its target (ties: "
                   "ANE).")
@click.option("--validate-finalists", type=click.IntRange(min=0), default=0, show_default=True,
              help="Re-score the first this many of those champions (0: none; else at least 2) on "
                   "--validate-final-matches matches of 500 deals on other fresh decks; the best of them there, "
                   "by --validate-rule, is the run's champion.")
@click.option("--validate-final-matches", type=click.IntRange(min=1), default=20, show_default=True,
              help="Matches of 500 deals (1,000 hands) per finalist and training opponent.")
@click.option("--average-windows", default=None, metavar="W1,W2,...",
              help="After validation, the mean genome of the last W generations' champions, for each W in this "
                   "order (widest first), plays --average-matches matches of 500 deals against each training "
                   "opponent on fresh decks; the first that reaches every --average-floors value is the run's "
                   "champion, else the validated one ('none': off)  [default: none].")
@click.option("--average-floors", default=None, metavar="F1,F2,...",
              help="Per training opponent (in --opponents order), the mBB/hand an averaged champion, or the "
                   "champion at a raising range, must reach ('-': no floor)  [default: --targets].")
@click.option("--average-matches", type=click.IntRange(min=1), default=50, show_default=True,
              help="Matches of 500 deals per averaged champion (or raising range) and training opponent.")
@click.option("--champion-raising-ranges", default=None, metavar="R1,R2,...",
              help="With --anchored: the run's champion, once chosen, plays --average-matches matches of 500 deals "
                   "against each training opponent on fresh decks at each of these raising ranges in this order "
                   "(widest first, each wider than --raising-range), and keeps the first that reaches every "
                   "--average-floors value, else the run's own ('none': off)  [default: none].")
@click.option("--pool-weights", nargs=3, type=float, default=(1.0, 1.0, 1.0), show_default=True,
              metavar="POP HALL OPP", help="Weights of the population, hall-of-fame and training-opponent pools "
                                           "in the fitness.")
@click.option("--deals", type=click.IntRange(min=1), default=500, show_default=True,
              help="Duplicate deals per player and fixed opponent with --fitness ane (500 deals = 1,000 hands).")
@click.option("--matches", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --fitness ane: play those deals as this many matches, each from fresh memories "
                   "(1: ASHE 1.0's single match); must divide --deals.")
@click.option("--population", type=click.IntRange(min=3), default=50, show_default=True, help="Players per generation.")
@click.option("--generations", type=click.IntRange(min=1), default=250, show_default=True)
@click.option("--keep", type=click.IntRange(min=2), default=15, show_default=True,
              help="Survivors per generation (the selector's k).")
@click.option("--selector", type=click.Choice(["uniform", "pocbam", "ml-pocbam", "hybrid", "select-top", "pbr", "ar"]),
              default=None, help="Top-k selector  [default: pocbam with --fitness selector and fixed opponents "
                                 "(--opponents or --hall-of-fame), else hybrid].")
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help="Duplicate-deal samples per generation  [default: (n0 + 1) * K(K-1)/2].")
@click.option("--n0", type=click.IntRange(min=0), default=None,
              help="Warm-up samples per pair  [default: the selector's least: 1 uniform, 2 POCBAm/ML/hybrid/PBR, "
                   "0 select-top/AR].")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="Consecutive samples of the pair each selector decision picks (fewer model fits).")
@click.option("--lag", type=click.IntRange(min=0), default=None,
              help="Samples still pending at a selector decision: deals play in a second thread while the "
                   "selector decides (uniform, pocbam, ml-pocbam, hybrid)  [default: 8, or 8 batches if more, for "
                   "pocbam, ml-pocbam and hybrid, 0 otherwise; 0 is the paper's method].")
@click.option("--lag-thread/--lag-inline", default=True, show_default=True,
              help="With a lag: play the deals in a second thread while the selector decides, or between its "
                   "decisions in one thread (the same run file; faster where no core is free).")
@click.option("--refit-every", type=click.IntRange(min=1), default=None,
              help="ML-POCBAm and hybrid decisions per refit of the Thurstone model  [default: 8 for them; "
                   "1 is the paper's method].")
@click.option("--batch", type=click.IntRange(min=1), default=None,
              help="Samples per selector decision with fixed opponents: the next BATCH samples take one decision's "
                   "best pairs (pocbam, ml-pocbam, hybrid)  [default: 8 for them with --fitness selector and "
                   "--opponents or --hall-of-fame, else 1; 1 is the paper's method].")
@click.option("--selector-option", "selector_options", multiple=True, metavar="NAME=VALUE",
              help="Extra selector option, e.g. threshold=0.17 (repeatable).")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--hidden", type=click.IntRange(min=1), default=10, show_default=True, help="LSTM cells per estimator.")
@click.option("--prt-capacity", type=click.IntRange(min=2), default=1024, show_default=True,
              help="PRT nodes per opponent and half (memory per sampled pair ~0.6 MB at 1024).")
@player_settings
@click.option("--reset/--continue-matches", default=False, show_default=True,
              help="Fresh memories every deal instead of a continuing match per pair.")
@click.option("--common-decks/--own-decks", default=False, show_default=True,
              help="With --fitness selector and fixed opponents: every candidate meets each fixed opponent on the "
                   "same decks (common random numbers, as --fitness ane always does).")
@click.option("--rate-start", type=float, default=0.25, show_default=True, help="Initial per-gene mutation rate.")
@click.option("--rate-end", type=float, default=0.05, show_default=True, help="Final per-gene mutation rate.")
@click.option("--sigma-start", type=float, default=0.5, show_default=True, help="Initial mutation strength.")
@click.option("--sigma-end", type=float, default=0.1, show_default=True, help="Final mutation strength.")
@click.option("--decay", type=float, default=0.0, show_default=True,
              help="Weight decay: every mutated genome first shrinks towards the all-zero genome by this share "
                   "(in [0, 1)), so that genes the fitness does not test stay near zero; meant with --anchored, "
                   "whose all-zero genome is its estimators' anchors.")
@click.option("--init", default="random",
              type=click.Choice(["random", "handbuilt", "patient", "reader", "reader-folds", "reader-steady", "reader-river"]),
              show_default=True,
              help="Generation 0: random weights, or a hand-made genome (handbuilt: the reference player; patient: "
                   "raises with a margin when facing a bet; reader: patient, and weighs its hand against what the "
                   "opponent showed; reader-folds: reader, and where a betting sequence is new expects the folds "
                   "the street has shown; reader-steady: reader-folds, reading showdowns only after about 30 of "
                   "them; reader-river: reader-steady, raising freely on the river) plus the --init-range noise.")
@click.option("--freeze-init/--evolve-init", default=False, show_default=True,
              help="Keep the hand-made --init genome's weights as designed (no noise, no mutation); evolution "
                   "changes only the others.")
@click.option("--init-range", nargs=2, type=float, default=(-1.0, 1.0), show_default=True,
              help="Generation-0 weights (or noise, with a hand-made --init) uniform on [LOW, HIGH] (core paper: "
                   "[-1, 1]).")
@click.option("--hs-samples", type=click.IntRange(min=1), default=None,
              help="Monte Carlo roll-outs of hand strength on flop and turn  [default: the engine's 1000].")
@click.option("--panel-bots", default=None,
              help="Comma-separated bots of the benchmark panel  [default: the four ASHE 1.0 bots, random and the "
                   "held-out bots tight-aggressive, loose-passive, bluffer, check-raiser, pot-odds].")
@click.option("--panel-deals", type=click.IntRange(min=2), default=250, show_default=True,
              help="Duplicate deals per benchmark-panel match.")
@click.option("--panel-heldout", type=click.IntRange(min=0), default=0, show_default=True,
              help="Held-out generation-0 players in the benchmark panel.")
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Run file (HDF5) to write.")
@click.option("--resume", is_flag=True, help="Continue the run in OUT (same config) from its last generation.")
@click.option("--overwrite", is_flag=True, help="Replace OUT even if it holds another run.")
@click.option("--backend", type=click.Choice(["serial", "multiprocess", "dask"]), default="multiprocess",
              show_default=True, help="Where the benchmark-panel matches are played.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Worker processes  [default: all cores].")
@click.option("--scheduler", default=None, help="Dask scheduler address tcp://HOST:PORT.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
@click.pass_context
def evolve(ctx, preset, fitness, opponents, hall_of_fame, hall_policy, opponent_weights, targets, opponent_deals,
           validate_window, validate_matches, validate_rule, validate_finalists, validate_final_matches,
           average_windows, average_floors, average_matches, champion_raising_ranges, pool_weights,
           deals, matches, population, generations, keep, selector, budget, n0, repeat, lag, lag_thread, refit_every,
           batch, selector_options, seed, hidden, prt_capacity, calling_range, explore, read_raises, read_reraises,
           lookahead, read_aggression, mark_reraises, call_option, anchored, option_range, raising_range,
           option_reraise, model, decision_output, raise_sizes, reset, common_decks,
           rate_start, rate_end, sigma_start, sigma_end, decay, init, freeze_init, init_range,
           hs_samples, panel_bots, panel_deals, panel_heldout, out, resume, overwrite, backend, workers, scheduler,
           as_json):
    """Evolve ASHE players: each generation a top-k selector picks the survivors, TSER makes the rest.

    Every generation is checkpointed atomically to OUT; after an interruption, the same command with
    --resume continues exactly as an uninterrupted run would.
    """
    from ..evolution import evolve as ev
    from ..infra.parallel import DASK_HINT, get_backend
    from ..players.base import split_specs

    options = dict(
        fitness=fitness, opponents=split_specs(opponents), hall_of_fame=hall_of_fame,
        hall_policy=hall_policy, pool_weights=tuple(pool_weights), deals=deals, matches=matches,
        opponent_weights=_parse_numbers(opponent_weights, "--opponent-weights"), targets=_parse_targets(targets),
        opponent_deals=_parse_numbers(opponent_deals, "--opponent-deals", int),
        validate_window=validate_window, validate_matches=validate_matches, validate_rule=validate_rule,
        validate_finalists=validate_finalists, validate_final_matches=validate_final_matches,
        average_windows=() if average_windows in (None, "none") else _parse_numbers(average_windows,
                                                                                   "--average-windows", int),
        average_floors=_parse_targets(average_floors, "--average-floors"), average_matches=average_matches,
        champion_raising_ranges=() if champion_raising_ranges in (None, "none") else _parse_numbers(
            champion_raising_ranges, "--champion-raising-ranges"),
        population=population, generations=generations, keep=keep, selector=selector, budget=budget, n0=n0,
        repeat=repeat, lag=lag, refit_every=refit_every, batch=batch, seed=seed, hidden=hidden,
        prt_capacity=prt_capacity,
        calling_range=calling_range, explore=explore, read_raises=read_raises, read_reraises=read_reraises,
        lookahead=lookahead, read_aggression=read_aggression, mark_reraises=mark_reraises, call_option=call_option,
        anchored=anchored, option_range=option_range, raising_range=raising_range, option_reraise=option_reraise,
        model=model, decision_output=decision_output, raise_sizes=raise_sizes, reset=reset,
        common_decks=common_decks,
        panel_deals=panel_deals, panel_heldout=panel_heldout,
        init=init, freeze_init=freeze_init, init_low=init_range[0], init_high=init_range[1],
        rate_start=rate_start, rate_end=rate_end, sigma_start=sigma_start, sigma_end=sigma_end, decay=decay,
        **({} if hs_samples is None else {"hs_samples": hs_samples}),
        **({} if panel_bots is None else {"panel_bots": split_specs(panel_bots)}))
    given = {name for name in ctx.params if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT}
    options.update({k: v for k, v in ev.PRESETS.get(preset, {}).items() if _PARAM.get(k, k) not in given})
    if not (options["average_windows"] or options["champion_raising_ranges"]) and "average_floors" not in given:
        # --average-windows none (and no raising ranges): no floors either
        options["average_floors"] = None
    try:
        cfg = ev.config_from_options(selector_options=_parse_options(selector_options), **options)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    check_output(out, "--out", overwrite=overwrite, kind=ev.FORMAT)
    try:
        runner = get_backend(backend, workers=workers, scheduler=scheduler)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    except ImportError:
        raise click.UsageError(DASK_HINT) from None
    except ConnectionError as err:
        raise click.ClickException(str(err)) from None
    if resume and not os.path.exists(out):
        click.echo(f"{out} does not exist: nothing to resume, starting a new run", err=True)
    try:
        with runner:
            report = ev.run_evolution(cfg, out, runner, resume=resume, overwrite=overwrite,
                                      progress=None if as_json else _Progress(), lag_thread=lag_thread)
    except ev.ConfigMismatch as err:
        raise click.UsageError(str(err)) from None
    except ev.CorruptFile as err:
        raise click.ClickException(str(err)) from None
    except KeyboardInterrupt as err:
        raise stopped_run(out, cfg.generations, err) from None
    run = report.run
    t = run.records["timing"]
    score = run.panel_score()
    # the first generation of this call loads (or, on a fresh clone, compiles) the numba kernels: left out
    warm = t[report.resumed_from + 1:] if report.generations_run > 1 else t[report.resumed_from:]
    overhead = (warm[:, 1].sum() - warm[:, 2].sum()) / max(warm[:, 2].sum(), 1e-12) if len(warm) else float("nan")
    # fitness ane plays its matches on the backend's workers (engine seconds add up over them): report speed
    hands_per_s = 2 * cfg.budget * len(warm) / max(warm[:, 1].sum(), 1e-12) if len(warm) else float("nan")
    info = {"out": str(out), "generations": run.completed, "generations_run": report.generations_run,
            "resumed_from": report.resumed_from, "seconds": report.seconds, "budget": cfg.budget, "n0": cfg.n0,
            "final_panel_score": float(score[-1]) if len(score) else None,
            "best_panel_score": float(score.max()) if len(score) else None,
            "champion_generation": run.champion_generation if run.completed else None,
            "champion_average": run.champion_average if run.completed else None,
            "champion_raising_range": run.champion_settings.raising_range if run.completed else None,
            "backend": runner.describe(),
            **({"evaluation_hands_per_second": float(hands_per_s)} if cfg.fitness == "ane"
               else {"selector_overhead": float(overhead)})}
    if as_json:
        click.echo(json.dumps(info))
        return
    resumed = f", resumed at generation {report.resumed_from}" if report.resumed_from else ""
    click.echo(f"wrote {out}: {run.completed}/{cfg.generations} generations ({report.generations_run} run here"
               f"{resumed}) in {report.seconds:.1f} s; " + (
                   f"fitness ane against {cfg.n_fixed} fixed opponents" if cfg.fitness == "ane" else cfg.selector)
               + f", budget {cfg.budget:,} duplicate deals/generation")
    if len(score):
        names = run.panel_names
        last, ci = run.champion_panel()
        which = "last champion"
        if run.champion_average:
            which = (f"the run's champion ({run.champion_label}: the widest of windows "
                     f"{', '.join(map(str, cfg.average_windows))} at its floors on fresh decks)")
        elif run.validation is not None:
            n = len(run.validation["generations"])
            among = f"all {n}" if n == run.completed else f"the last {n}"
            by = ", by its shortfall below the targets" if cfg.validate_rule == "shortfall" else ""
            final = (f", then of the first {cfg.validate_finalists} on more decks" if cfg.validate_finalists else "")
            none = ", no averaged champion at its floors" if cfg.average_windows else ""
            which = (f"the run's champion ({run.champion_label}, the best of {among} on validation decks{final}{by}"
                     f"{none})")
        click.echo(f"{which} on the panel's decks ({cfg.panel_deals:,} duplicate deals per opponent, "
                   "mBB/hand with 95% CI):")
        if cfg.champion_raising_ranges:
            rho, tried = run.champion_settings.raising_range, ", ".join(f"{r:g}" for r in cfg.champion_raising_ranges)
            click.echo(f"  raising range {rho:g}: " + (f"the widest of {tried} at its floors on fresh decks"
                                                        if rho != cfg.raising_range else
                                                        f"the run's, none of {tried} at its floors on fresh decks"))
        groups = {"training": run.panel_columns("training"), "held-out": run.panel_columns("heldout")}
        groups["other"] = np.array([c for c in range(len(names)) if not any(c in g for g in groups.values())])
        for label, cols in groups.items():
            for c in cols:
                click.echo(f"  {label:9} {names[c]:22} {last[c]:>+9,.0f} ± {ci[c]:,.0f}")
        for label, group in (("training bots", "training"), ("held-out", "heldout")):
            part = run.panel_score(group)
            if not np.all(np.isnan(part)):
                click.echo(f"  mean vs the {label}: generation 1 {part[0]:+,.0f}, last {part[-1]:+,.0f}")
        speed = (f"evaluation {hands_per_s:,.0f} hands/s" if cfg.fitness == "ane"
                 else f"selector overhead {100 * overhead:.1f}% of engine time")
        warm_note = " (generations after the first, which compiles the kernels)" if report.generations_run > 1 else ""
        click.echo(f"panel score: generation 1 {score[0]:+.0f}, last {score[-1]:+.0f}, best {score.max():+.0f}; "
                   f"{speed}{warm_note}")
