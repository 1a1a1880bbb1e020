"""Fixed-budget top-k selectors for score-based dueling bandits, and the problems they are tested on.

Stand-alone: nothing here imports the poker code; an oracle is any object with ``K`` and
``sample(i, j) -> float`` (zero-sum). See ``problems`` for the synthetic problems of Groves & Branke
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

from .base import Selector, Trace, check_lag, check_weights_support
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

SELECTORS: dict[str, type[Selector]] = {
    "uniform": Uniform,
    "pocbam": POCBAm,
    "ml-pocbam": MLPOCBAm,
    "hybrid": HybridMLPOCBAm,
    "select-top": SelectTop,
    "pbr": PBR,
    "ar": AR,
}

# SAVAGE's Borda top-k variant (Urvoy et al. 2013) lives with the bandits, which import selectors.base:
# registered after SELECTORS exists so that the two packages can import each other in either order.
from ..bandits.savage_topk import SavageTopK  # noqa: E402

SELECTORS["savage"] = SavageTopK


def make_selector(name: str, oracle, k: int, budget: int, **options) -> Selector:
    """The selector registered as ``name`` (see ``SELECTORS``) with the given options."""
    cls = SELECTORS.get(name)
    if cls is None:
        raise ValueError(f"unknown selector {name!r}; known: {', '.join(SELECTORS)}")
    if "lag" in options and not cls.supports_lag:   # only lag 0 is allowed, which the method has anyway
        check_lag(cls, options["lag"])
        options = {key: v for key, v in options.items() if key != "lag"}
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
