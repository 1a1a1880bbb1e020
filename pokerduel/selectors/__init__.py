"""Fixed-budget top-k selectors for score-based dueling bandits, and the problems they are tested on.

Stand-alone: nothing here imports the poker code; an oracle is any object with ``K`` and
``sample(i, j) -> float`` (zero-sum), and nothing here imports ``pokerduel.bandits`` either: SAVAGE's
top-k selector, which builds on ``selectors.base``, is listed in ``SELECTORS`` by its module path and
imported on first use. See ``problems`` for the synthetic problems of Groves & Branke
(arXiv:2012.15637), ``pocbam`` for uniform allocation, POCBAm, ML-POCBAm and the hybrid, ``select_top``
for SELECT/TOP, ``racing`` for PBR and AR, and ``studies`` for success-rate studies (``pokerduel study``).

```python
import numpy as np
from pokerduel.selectors import make_selector, thurstone

oracle = thurstone(10, np.random.default_rng(1), np.random.default_rng(2))
sel = make_selector("ml-pocbam", oracle, k=4, budget=1000, rng=np.random.default_rng(3))
sel.run()                                  # the top-4, best first
set(sel.top_k()) == set(oracle.true_top_k(4))
```
"""

from __future__ import annotations

import importlib
from collections.abc import MutableMapping

from .base import Selector, Trace, check_batch, check_lag, check_weights_support
from .pocbam import HybridMLPOCBAm, MLPOCBAm, POCBAm, Uniform
from .problems import (
    BernoulliOracle,
    CallableOracle,
    CandidatesOracle,
    GaussianOracle,
    Oracle,
    candidates_vs_opponents,
    perturbed_thurstone,
    separated_top1,
    thurstone,
)
from .racing import AR, PBR
from .select_top import SelectTop
from .weights import ScoreWeights, pool_weights, resolve_weights


class SelectorRegistry(MutableMapping):
    """Selector classes by name; an entry may also be a plug-in path ``"module:Class"``, imported on first
    use (lookup, ``items()``, ``values()``) and then kept as the class.

    Plug-ins let another package offer selectors without this package importing it: ``SELECTORS`` lists
    ``"savage"`` (SAVAGE's Borda top-k, which lives with the bandits and builds on ``selectors.base``) as
    a path, so importing ``pokerduel.selectors`` never imports ``pokerduel.bandits``, and
    ``make_selector("savage", ...)`` works whatever was imported before.
    """

    def __init__(self, entries: dict[str, type[Selector] | str]):
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> type[Selector]:
        entry = self._entries[name]
        if isinstance(entry, str):
            module, _, attr = entry.partition(":")
            entry = self._entries[name] = getattr(importlib.import_module(module), attr)
        return entry

    def __setitem__(self, name: str, entry: type[Selector] | str) -> None:
        self._entries[name] = entry

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self):
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"SelectorRegistry({self._entries!r})"


SELECTORS = SelectorRegistry({
    "uniform": Uniform,
    "pocbam": POCBAm,
    "ml-pocbam": MLPOCBAm,
    "hybrid": HybridMLPOCBAm,
    "select-top": SelectTop,
    "pbr": PBR,
    "ar": AR,
    "savage": "pokerduel.bandits.savage_topk:SavageTopK",   # SAVAGE's Borda top-k (Urvoy et al. 2013)
})


def __getattr__(name: str):
    """``SavageTopK`` on first access, through its plug-in entry (``from pokerduel.selectors import SavageTopK``)."""
    if name == "SavageTopK":
        return SELECTORS["savage"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_selector(name: str, oracle, k: int, budget: int, **options) -> Selector:
    """The selector registered as ``name`` (see ``SELECTORS``) with the given options."""
    if name not in SELECTORS:
        raise ValueError(f"unknown selector {name!r}; known: {', '.join(SELECTORS)}")
    cls = SELECTORS[name]
    if "lag" in options and not cls.supports_lag:   # only lag 0 is allowed, which the method has anyway
        check_lag(cls, options["lag"])
        options = {key: v for key, v in options.items() if key != "lag"}
    if "batch" in options and not cls.supports_batch:   # only batch 1 is allowed, which the method has anyway
        check_batch(cls, options["batch"], False)
        options = {key: v for key, v in options.items() if key != "batch"}
    for key in ("candidates", "weights"):          # the same for the plain mode (both None)
        if key in options and not cls.supports_weights:
            check_weights_support(cls, options.get("candidates"), options.get("weights"))
            options = {name: v for name, v in options.items() if name != key}
    return cls(oracle, k, budget, **options)


__all__ = [
    "SELECTORS", "make_selector", "Selector", "Trace", "Uniform", "POCBAm", "MLPOCBAm", "HybridMLPOCBAm",
    "SelectTop", "PBR", "AR", "SavageTopK", "Oracle", "GaussianOracle", "BernoulliOracle", "CallableOracle", "thurstone", "perturbed_thurstone",
    "separated_top1", "CandidatesOracle", "candidates_vs_opponents", "ScoreWeights", "pool_weights", "resolve_weights",
]
