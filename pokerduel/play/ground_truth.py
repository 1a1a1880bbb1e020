"""Ground truth: every pair of each population plays a long duplicate match (core paper §7, Fig 7).

**Seeds.** Everything derives from one seed through ``numpy.random.SeedSequence`` spawn keys:
population ``p``'s genomes from ``SeedSequence(seed, spawn_key=(0, p))`` (its first 64-bit word is the
population seed given to ``new_population``), the decks and player randomness of pair ``i < j`` of
population ``p`` from ``SeedSequence(seed, spawn_key=(1, p, i, j))`` (stored in ``pair_seed``). A pair's
result therefore depends on the seed and its identity alone: serial, any number of workers and any
order of completion give bit-identical files, and adding populations leaves earlier ones unchanged.
Pairs are independent matches (different decks), so replayed samples of different pairs are
independent, as a selection study's oracle assumes.

**Resuming: a checkpoint folder of per-pair files, assembled once at the end.** While the job runs,
each finished pair is written to ``OUT.parts/pair-P-I-J.npz`` (write to a temporary name, fsync,
``os.replace``), next to a ``manifest.json`` holding the job's config. The final file is written once,
compressed, through ``storage.atomic_h5``, and the folder is then removed. Why this rather than
rewriting the h5 file after each batch: a finished pair costs one small write whatever the size of
the job (rewriting a compressed 450-pair file after every pair is quadratic work, and batching it
would lose more work on a kill); a SIGKILL at any moment loses only the pairs in flight, because a
part file exists under its final name only once complete; and ``OUT`` itself is always either absent,
the previous file, or a complete new one. Every part carries the config digest, its pair identity
and a CRC32 of its samples, and is loaded with ``allow_pickle=False``: a part that is unreadable,
from another config or damaged is reported, never silently reused.

**Rules on rerun** (``run_ground_truth``): a checkpoint folder with the same config is resumed; one
with another config is refused (``ConfigMismatch``) unless ``overwrite``; an existing complete ``OUT``
with the same config is reused as is (nothing is replayed); with another config it is refused unless
``overwrite``; an unreadable ``OUT`` or part raises ``CorruptFile``.

**File** (format ``pokerduel.ground_truth`` 1): root attributes ``config`` (JSON: seed, hands, deals,
hs_samples, per population its source, settings, size and genome digest), ``seed``, ``inputs`` (JSON:
population file paths), timing attributes of the run that finished it; one group ``popNN`` per
population with ``genomes``, ``mean``/``var``/``hand_var``/``count``/``invalid_actions``/``pair_seed``
(K×K), ``pairs`` (n_pairs×2, ``i < j``) and ``samples`` (n_pairs × deals int32: player ``i``'s chips over
the two hands of each deal; gzip, shuffle and Fletcher-32 checksums), ``borda``, ``ranking`` and the
summary attributes ``negative_upper`` and ``intransitive_triplets``. ``load_ground_truth`` reads it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .. import __version__
from ..infra.storage import atomic_h5, open_checked, plain_attrs, stamp
from ..players.genomes import AsheSettings
from ..players.hand_strength import DEFAULT_SAMPLES
from .populations import Population, load_population, new_population
from .tournament import borda_ranking, intransitive_triplets, negative_upper  # noqa: F401 (re-exported)

FORMAT, FORMAT_VERSION = "pokerduel.ground_truth", 1
MANIFEST = "manifest.json"


class ConfigMismatch(ValueError):
    """An existing output or checkpoint was made with another configuration."""


class CorruptFile(ValueError):
    """An existing output or checkpoint file cannot be trusted."""


# ----------------------------------------------------------------------------------------- seeds and plan


def _seed_word(seed: int, *key: int) -> int:
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1, np.uint64)[0])


def population_seed(seed: int, p: int) -> int:
    """The ``new_population`` seed of population ``p``."""
    return _seed_word(seed, 0, p)


def pair_seed(seed: int, p: int, i: int, j: int) -> int:
    """The ``play_duplicate`` seed of pair ``i < j`` of population ``p``."""
    return _seed_word(seed, 1, p, i, j)


def _genome_digest(pop: Population) -> str:
    return hashlib.sha256(np.ascontiguousarray(pop.genomes, dtype="<f4").tobytes()).hexdigest()


@dataclass
class Job:
    """What to play: the populations, deals per pair, the seed; ``config`` identifies the result."""

    populations: list[Population]
    sources: list[dict]  # per population: {"source": "random", "seed": ...} or {"source": "file"}
    hands: int
    seed: int
    hs_samples: int = DEFAULT_SAMPLES
    inputs: tuple[str, ...] = ()  # population file paths (informational, not part of the identity)

    def __post_init__(self):
        if not isinstance(self.hands, (int, np.integer)) or self.hands < 2 or self.hands % 2:
            raise ValueError(f"hands must be a positive even number (two per duplicate deal), got {self.hands!r}")
        if not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if not self.populations:
            raise ValueError("need at least one population")
        for p, pop in enumerate(self.populations):
            if len(pop) < 2:
                raise ValueError(f"population {p} has {len(pop)} player(s); a round robin needs at least two")

    @property
    def deals(self) -> int:
        return self.hands // 2

    @property
    def config(self) -> dict:
        pops = [{**src, "size": len(pop), "settings": pop.settings.to_dict(), "genomes_sha256": _genome_digest(pop)}
                for pop, src in zip(self.populations, self.sources)]
        return {"seed": int(self.seed), "hands": int(self.hands), "deals": int(self.deals),
                "hs_samples": int(self.hs_samples), "populations": pops}

    def pairs(self) -> list[tuple[int, int, int]]:
        return [(p, i, j) for p, pop in enumerate(self.populations)
                for i in range(len(pop)) for j in range(i + 1, len(pop))]


def random_job(n_populations: int, size: int, hands: int, seed: int,
               settings: AsheSettings = AsheSettings()) -> Job:
    """``n_populations`` random populations of ``size`` players, population ``p`` from ``population_seed``."""
    if not isinstance(n_populations, (int, np.integer)) or n_populations < 1:
        raise ValueError(f"need a positive number of populations, got {n_populations!r}")
    if not isinstance(size, (int, np.integer)) or size < 2:
        raise ValueError(f"population size must be at least 2, got {size!r}")
    pops, sources = [], []
    for p in range(n_populations):
        s = population_seed(seed, p)
        pops.append(new_population(size, s, settings, name=f"pop{p:02d}"))
        sources.append({"source": "random", "seed": s, "init": [-1.0, 1.0]})
    return Job(pops, sources, hands, seed)


def file_job(paths, hands: int, seed: int) -> Job:
    """The populations of these population files, in order (``ValueError`` names a bad file)."""
    pops = [load_population(path) for path in paths]
    sources = [{"source": "file", **({} if p.origin is None else {"origin": p.origin})} for p in pops]
    return Job(pops, sources, hands, seed, inputs=tuple(str(p) for p in paths))


def _canonical(config: dict) -> dict:
    return json.loads(json.dumps(config, sort_keys=True))


def _digest(config: dict) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def _describe_difference(old: dict, new: dict) -> str:
    keys = sorted(set(old) | set(new))
    diffs = [f"{k}: {old.get(k)!r} there, {new.get(k)!r} now" for k in keys
             if k != "populations" and old.get(k) != new.get(k)]
    if old.get("populations") != new.get("populations"):
        n_old, n_new = len(old.get("populations") or []), len(new.get("populations") or [])
        diffs.append(f"populations: {n_old} there, {n_new} now" if n_old != n_new
                     else "populations: different players or settings")
    return "; ".join(diffs) or "configs differ"


# ----------------------------------------------------------------------------------------- one pair


def play_pair(task: dict) -> dict:
    """Worker function: one pair's duplicate match. Takes and returns plain data (any backend)."""
    from .matches import play_duplicate

    settings = AsheSettings.from_dict(task["settings"])
    a = Population(task["genomes"], settings, name=f"pop{task['p']:02d}")
    t0 = time.perf_counter()
    r = play_duplicate(a.player(0), a.player(1), task["deals"], task["seed"], hs_samples=task["hs_samples"])
    samples = r.samples
    if np.abs(samples).max(initial=0) > np.iinfo(np.int32).max:
        raise OverflowError("a duplicate score sample does not fit in int32")
    return {"p": task["p"], "i": task["i"], "j": task["j"], "samples": samples.astype(np.int32),
            "hand_var": float(r.hand_payoffs.astype(np.float64).var(ddof=1)) if task["deals"] > 0 else np.nan,
            "invalid": int(r.invalid_actions), "seconds": time.perf_counter() - t0}


# ----------------------------------------------------------------------------------------- checkpoints


def parts_dir(out) -> Path:
    return Path(str(out) + ".parts")


def _part_path(parts: Path, p: int, i: int, j: int) -> Path:
    return parts / f"pair-{p:03d}-{i:03d}-{j:03d}.npz"


def _atomic_write_bytes(path: Path, writer: Callable) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            writer(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write_part(parts: Path, digest: str, res: dict) -> None:
    s = np.ascontiguousarray(res["samples"], dtype=np.int32)
    arrays = {"ident": np.array([res["p"], res["i"], res["j"], len(s)], np.int64), "digest": np.array(digest),
              "samples": s, "crc32": np.array(zlib.crc32(s.tobytes()), np.int64),
              "hand_var": np.array(res["hand_var"], np.float64), "invalid": np.array(res["invalid"], np.int64),
              "seconds": np.array(res["seconds"], np.float64)}
    _atomic_write_bytes(_part_path(parts, res["p"], res["i"], res["j"]), lambda fh: np.savez(fh, **arrays))


def _read_part(path: Path, digest: str, p: int, i: int, j: int, deals: int) -> dict:
    try:
        with np.load(path, allow_pickle=False) as z:
            d = {k: z[k] for k in ("ident", "digest", "samples", "crc32", "hand_var", "invalid", "seconds")}
    except Exception as err:  # zip, npy header or missing-key errors all mean the same: unreadable
        raise CorruptFile(f"checkpoint {path} is unreadable ({type(err).__name__}: {err})") from None
    if str(d["digest"]) != digest:
        raise CorruptFile(f"checkpoint {path} belongs to another configuration")
    if d["ident"].tolist() != [p, i, j, deals] or d["samples"].dtype != np.int32 or d["samples"].shape != (deals,):
        raise CorruptFile(f"checkpoint {path} holds the wrong pair or shape")
    if zlib.crc32(np.ascontiguousarray(d["samples"]).tobytes()) != int(d["crc32"]):
        raise CorruptFile(f"checkpoint {path} fails its CRC32 check")
    return {"p": p, "i": i, "j": j, "samples": d["samples"], "hand_var": float(d["hand_var"]),
            "invalid": int(d["invalid"]), "seconds": float(d["seconds"])}


def _read_manifest(parts: Path) -> dict:
    path = parts / MANIFEST
    try:
        manifest = json.loads(path.read_text())
        if not isinstance(manifest, dict) or not isinstance(manifest.get("config"), dict):
            raise ValueError("no config object")
    except (OSError, ValueError) as err:
        raise CorruptFile(f"checkpoint manifest {path} is missing or unreadable ({err}); "
                          f"pass --overwrite to start over") from None
    return manifest


def _remove_parts(parts: Path) -> None:
    """Remove a checkpoint folder: only the files this module writes, then the folder itself."""
    if not parts.is_dir():
        return
    for f in parts.iterdir():
        if f.name == MANIFEST or (f.name.startswith(("pair-", ".pair-", f".{MANIFEST}")) and f.is_file()):
            f.unlink()
    try:
        parts.rmdir()
    except OSError as err:
        raise OSError(f"could not remove checkpoint folder {parts}: it holds files pokerduel did not write") from err


# ----------------------------------------------------------------------------------------- reading


@dataclass
class PopulationTruth:
    """One population's round robin; ``mean[i, j]`` is i's mean chips per duplicate deal against j."""

    genomes: np.ndarray
    settings: AsheSettings
    source: dict
    mean: np.ndarray
    var: np.ndarray  # per-deal sample variance (ddof=1)
    hand_var: np.ndarray  # single-hand sample variance, both seats pooled
    count: np.ndarray  # deals played
    invalid_actions: np.ndarray
    pair_seed: np.ndarray  # uint64 play_duplicate seed of each pair (symmetric)
    pairs: np.ndarray  # (n_pairs, 2) i < j
    all_samples: np.ndarray  # (n_pairs, deals) int32, row r is pairs[r, 0]'s chips against pairs[r, 1]
    borda: np.ndarray
    ranking: np.ndarray
    negative_upper: int
    intransitive_triplets: int

    def __len__(self) -> int:
        return len(self.mean)

    def samples(self, i: int, j: int) -> np.ndarray:
        """Player i's per-deal score samples against j (int32 chips; negated rows when i > j)."""
        k = len(self)
        if not (0 <= i < k and 0 <= j < k) or i == j:
            raise ValueError(f"need two different players in 0..{k - 1}, got ({i}, {j})")
        a, b = min(i, j), max(i, j)
        row = a * k - a * (a + 1) // 2 + (b - a - 1)
        s = self.all_samples[row]
        return s.copy() if i < j else -s

    def ordered_mean(self) -> np.ndarray:
        """The mean matrix with players in true (Borda) rank order."""
        return self.mean[np.ix_(self.ranking, self.ranking)]

    def population(self) -> Population:
        return Population(self.genomes, self.settings)


@dataclass
class GroundTruth:
    path: str
    config: dict
    attrs: dict
    populations: list[PopulationTruth]

    def __len__(self) -> int:
        return len(self.populations)

    def __getitem__(self, p: int) -> PopulationTruth:
        return self.populations[p]

    def summary(self) -> dict:
        pops = [{"population": p, "ranking": t.ranking.tolist(), "borda": t.borda.tolist(),
                 "negative_upper": t.negative_upper, "upper_pairs": len(t) * (len(t) - 1) // 2,
                 "intransitive_triplets": t.intransitive_triplets} for p, t in enumerate(self.populations)]
        return {"populations": pops,
                "mean_negative_upper": float(np.mean([d["negative_upper"] for d in pops])),
                "mean_intransitive_triplets": float(np.mean([d["intransitive_triplets"] for d in pops]))}


def load_ground_truth(path) -> GroundTruth:
    """Read a ground-truth file, checking format, shapes and checksums; ``CorruptFile`` if it is damaged."""
    try:
        f, config = open_checked(path, FORMAT, FORMAT_VERSION)
    except ValueError as err:
        raise CorruptFile(str(err)) from None
    try:
        with f:
            attrs = plain_attrs(f)
            pops = []
            for p, pc in enumerate(config["populations"]):
                g = f[f"pop{p:02d}"]
                k, deals = pc["size"], config["deals"]
                arr = {name: g[name][()] for name in ("genomes", "mean", "var", "hand_var", "count",
                                                      "invalid_actions", "pair_seed", "pairs", "samples",
                                                      "borda", "ranking")}
                n_pairs = k * (k - 1) // 2
                if arr["mean"].shape != (k, k) or arr["samples"].shape != (n_pairs, deals) \
                        or arr["pairs"].shape != (n_pairs, 2) or arr["ranking"].shape != (k,):
                    raise CorruptFile(f"{path}: population {p} has inconsistent array shapes")
                pops.append(PopulationTruth(
                    genomes=arr["genomes"], settings=AsheSettings.from_dict(pc["settings"]),
                    source={key: pc[key] for key in pc if key not in ("settings",)}, mean=arr["mean"],
                    var=arr["var"], hand_var=arr["hand_var"], count=arr["count"],
                    invalid_actions=arr["invalid_actions"], pair_seed=arr["pair_seed"], pairs=arr["pairs"],
                    all_samples=arr["samples"], borda=arr["borda"], ranking=arr["ranking"],
                    negative_upper=int(g.attrs["negative_upper"]),
                    intransitive_triplets=int(g.attrs["intransitive_triplets"])))
    except CorruptFile:
        raise
    except (KeyError, OSError, TypeError, ValueError) as err:  # Fletcher-32 failures surface as OSError
        raise CorruptFile(f"{path}: damaged or incomplete ground-truth file ({type(err).__name__}: {err})") from None
    return GroundTruth(str(path), config, attrs, pops)


# ----------------------------------------------------------------------------------------- writing


def _assemble(job: Job, results: dict) -> list[dict]:
    out = []
    for p, pop in enumerate(job.populations):
        k, deals = len(pop), job.deals
        pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)], np.int32)
        samples = np.empty((len(pairs), deals), np.int32)
        mean, var, hand_var = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k))
        count, invalid = np.zeros((k, k), np.int64), np.zeros((k, k), np.int64)
        seeds = np.zeros((k, k), np.uint64)
        for row, (i, j) in enumerate(pairs.tolist()):
            r = results[(p, i, j)]
            s = r["samples"]
            samples[row] = s
            m = s.astype(np.float64).mean()
            mean[i, j], mean[j, i] = m, -m
            var[i, j] = var[j, i] = s.astype(np.float64).var(ddof=1) if deals > 1 else np.nan
            hand_var[i, j] = hand_var[j, i] = r["hand_var"]
            count[i, j] = count[j, i] = deals
            invalid[i, j] = invalid[j, i] = r["invalid"]
            seeds[i, j] = seeds[j, i] = pair_seed(job.seed, p, i, j)
        borda, ranking = borda_ranking(mean)
        out.append({"genomes": pop.genomes, "mean": mean, "var": var, "hand_var": hand_var, "count": count,
                    "invalid_actions": invalid, "pair_seed": seeds, "pairs": pairs, "samples": samples,
                    "borda": borda, "ranking": ranking, "negative_upper": negative_upper(mean, ranking),
                    "intransitive_triplets": intransitive_triplets(mean)})
    return out


def _write_output(out, job: Job, config: dict, pops: list[dict], timing: dict) -> None:
    with atomic_h5(out) as f:
        stamp(f, FORMAT, FORMAT_VERSION, **config)
        f.attrs["seed"] = int(job.seed)
        f.attrs["inputs"] = json.dumps(list(job.inputs))
        for key, value in timing.items():
            f.attrs[key] = value
        for p, d in enumerate(pops):
            g = f.create_group(f"pop{p:02d}")
            for name, value in d.items():
                if name in ("negative_upper", "intransitive_triplets"):
                    g.attrs[name] = value
                elif name == "samples":
                    g.create_dataset(name, data=value, chunks=(1, value.shape[1]), compression="gzip",
                                     compression_opts=6, shuffle=True, fletcher32=True)
                else:
                    g.create_dataset(name, data=value, fletcher32=True)


# ----------------------------------------------------------------------------------------- the job


@dataclass
class RunReport:
    truth: GroundTruth
    pairs_total: int
    pairs_resumed: int  # found in the checkpoint folder
    pairs_played: int  # played by this call
    reused_output: bool  # the output already held this job: nothing was played
    seconds: float  # wall time of this call
    hands_per_second: float  # hands played by this call / wall time of the playing


def run_ground_truth(job: Job, out, backend=None, *, overwrite: bool = False,
                     progress: Callable[[int, int, int, float], None] | None = None) -> RunReport:
    """Play every pair of ``job`` not yet done, checkpointing each, and write ``out`` atomically.

    ``progress(done, total, hands_this_call, seconds)`` is called once before playing and after every pair.
    Raises ``ConfigMismatch`` or ``CorruptFile`` for existing files it will not reuse (see the module doc).
    """
    from ..infra.parallel import SerialBackend

    t_start = time.perf_counter()
    out = Path(out)
    parts = parts_dir(out)
    config = _canonical(job.config)
    digest = _digest(config)
    tasks = job.pairs()

    if overwrite:
        _remove_parts(parts)
    elif parts.is_dir() and (parts / MANIFEST).exists():
        old = _read_manifest(parts)["config"]
        if old != config:
            raise ConfigMismatch(f"checkpoint folder {parts} was made with another configuration "
                                 f"({_describe_difference(old, config)}); pass --overwrite to start over")
    elif out.exists():
        try:
            truth = load_ground_truth(out)
        except CorruptFile as err:
            raise CorruptFile(f"{err}; not reused: pass --overwrite to replace it") from None
        if truth.config != config:
            raise ConfigMismatch(f"{out} holds another ground truth ({_describe_difference(truth.config, config)}); "
                                 f"pass --overwrite to replace it")
        if progress is not None:
            progress(len(tasks), len(tasks), 0, 0.0)
        return RunReport(truth, len(tasks), len(tasks), 0, True, time.perf_counter() - t_start, 0.0)

    parts.mkdir(parents=True, exist_ok=True)
    if not (parts / MANIFEST).exists():
        text = json.dumps({"config": config, "digest": digest, "pokerduel_version": __version__}, sort_keys=True)
        _atomic_write_bytes(parts / MANIFEST, lambda fh: fh.write(text.encode()))

    results = {}
    for p, i, j in tasks:
        path = _part_path(parts, p, i, j)
        if path.exists():
            results[(p, i, j)] = _read_part(path, digest, p, i, j, job.deals)
    resumed = len(results)
    todo = [t for t in tasks if t not in results]
    payload = [{"p": p, "i": i, "j": j, "deals": job.deals, "seed": pair_seed(job.seed, p, i, j),
                "hs_samples": job.hs_samples, "settings": job.populations[p].settings.to_dict(),
                "genomes": job.populations[p].genomes[[i, j]]} for p, i, j in todo]

    backend = SerialBackend() if backend is None else backend
    t_play = time.perf_counter()
    hands = 0
    if progress is not None:
        progress(resumed, len(tasks), 0, 0.0)
    for _, res in backend.map_unordered(play_pair, payload):
        _write_part(parts, digest, res)
        results[(res["p"], res["i"], res["j"])] = res
        hands += 2 * job.deals
        if progress is not None:
            progress(len(results), len(tasks), hands, time.perf_counter() - t_play)
    play_seconds = time.perf_counter() - t_play

    pops = _assemble(job, results)
    timing = {"finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "backend": backend.describe(), "wall_seconds_last_run": time.perf_counter() - t_start,
              "pair_seconds_total": float(sum(r["seconds"] for r in results.values())),
              "pairs_resumed_last_run": resumed, "hands_total": 2 * job.deals * len(tasks)}
    _write_output(out, job, config, pops, timing)
    _remove_parts(parts)
    truth = load_ground_truth(out)
    return RunReport(truth, len(tasks), resumed, len(todo), False, time.perf_counter() - t_start,
                     hands / play_seconds if play_seconds > 0 and hands else 0.0)
