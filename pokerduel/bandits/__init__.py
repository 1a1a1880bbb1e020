"""Dueling bandits: Sup-KLUCB, RUCB, Double Thompson Sampling and SAVAGE (binary feedback), CPPL
(contextual preselection under Plackett-Luce) and Preferential Bayesian Optimization.

Stand-alone (no poker imports). Feedback comes from a preference matrix (``PreferenceOracle``) or from any
score oracle of ``pokerduel.selectors`` turned into win/loss by the sign of its samples. See
``docs/bandits.md``.

```python
import numpy as np
from pokerduel.bandits import PreferenceOracle, SupKLUCB, random_copeland_matrix

P = random_copeland_matrix(8, np.random.default_rng(1))
b = SupKLUCB(PreferenceOracle(P, np.random.default_rng(2)), horizon=20000, rng=np.random.default_rng(3))
b.run() == np.argmax((P > 0.5).sum(axis=1))
```
"""

from __future__ import annotations

# --- copeland/condorcet/borda bandits (issue 8) -----------------------------------------------------
from .algorithms import BANDITS, DTS, RUCB, DuelingBandit, SupKLUCB, make_bandit, run_on_matrix
from .problems import (
    BinaryFeedback,
    PreferenceOracle,
    borda_scores,
    condorcet_winner,
    copeland_scores,
    hard_condorcet_matrix,
    random_copeland_matrix,
    regret_per_round,
)
from .savage import Savage, identify, wrapped_identify
from .savage_topk import SavageTopK

__all__ = [
    "BANDITS", "DTS", "RUCB", "DuelingBandit", "SupKLUCB", "make_bandit", "run_on_matrix", "BinaryFeedback",
    "PreferenceOracle", "borda_scores", "condorcet_winner", "copeland_scores", "hard_condorcet_matrix",
    "random_copeland_matrix", "regret_per_round", "Savage", "identify", "wrapped_identify", "SavageTopK",
]
# --- end of issue 8 block -------------------------------------------------------------------------------

# --- CPPL: contextual preselection under Plackett-Luce (issue 9) ---------------------------------------
from . import plackett_luce  # noqa: E402
from .cppl import (  # noqa: E402
    CPPL,
    AlgorithmSelectionProblem,
    MMPreselector,
    SyntheticProblem,
    compare,
    confidence_widths,
    load_saps_swgcp,
    preprocess_instance_features,
    simulate,
)

__all__ += [
    "plackett_luce", "CPPL", "MMPreselector", "SyntheticProblem", "AlgorithmSelectionProblem", "simulate", "compare",
    "confidence_widths", "load_saps_swgcp", "preprocess_instance_features",
]

# --- Preferential Bayesian Optimization (issue 9) ---------------------------------------------------------
from .pbo import ACQUISITIONS, IBO, METHODS, PBO, RandomDuels, Sparring, make_policy, run_trial  # noqa: E402
from .pbo_functions import OBJECTIVES, DuelSimulator, get_objective, unit_grid  # noqa: E402
from .pbo_gp import PreferenceGP, link_moments, soft_copeland  # noqa: E402

__all__ += [
    "PBO", "IBO", "RandomDuels", "Sparring", "make_policy", "run_trial", "METHODS", "ACQUISITIONS", "PreferenceGP",
    "soft_copeland", "link_moments", "OBJECTIVES", "get_objective", "unit_grid", "DuelSimulator",
]
