"""What a player is to the engine: a kind code, a parameter vector and per-opponent memory sizes.

The numba match loop never calls Python: it dispatches on ``kind`` to a kernel (``policy.act``) that
reads ``params`` (float64, e.g. bot exponents or a genome) and may read and write the player's memory
(``imem`` int64, ``fmem`` float64). A match keeps one memory bank per half of a duplicate match, each
reset by ``policy.reset`` when the match starts, so the two mirrored matches never share memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Kind codes, dispatched in policy.py.
RANDOM, CALLING_MACHINE, SCARED_LIMPER, HOTHEAD_MANIAC, CANDID_STATISTICIAN, ASHE = range(6)


@dataclass(frozen=True, eq=False)
class Player:
    """A player the engine can run in nopython mode."""

    name: str
    kind: int
    params: np.ndarray = field(default_factory=lambda: np.zeros(0))
    n_imem: int = 0  # int64 memory words per bank
    n_fmem: int = 0  # float64 memory words per bank
    uses_hand_strength: bool = False

    def __post_init__(self):
        object.__setattr__(self, "params", np.ascontiguousarray(self.params, dtype=np.float64))

    @property
    def memory_widths(self) -> tuple[int, int]:
        """Words per bank of ``new_memory``'s two arrays (at least one each)."""
        return max(self.n_imem, 1), max(self.n_fmem, 1)

    def new_memory(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh memory for the two halves of a duplicate match: ``(imem[2, n_imem], fmem[2, n_fmem])``."""
        ni, nf = self.memory_widths
        return np.zeros((2, ni), np.int64), np.zeros((2, nf), np.float64)

    def __repr__(self) -> str:
        return f"Player({self.name!r})"


def random_bot() -> Player:
    """Uniform over the distinct legal actions among fold, check/call, 0.5/1/1.5/2 pot raises and all-in."""
    return Player("random", RANDOM)


def calling_machine() -> Player:
    """ASHE 1.0 Calling Machine: always check or call."""
    return Player("calling-machine", CALLING_MACHINE)


def scared_limper(exponent: float = 50.0) -> Player:
    """ASHE 1.0 Scared Limper: limps on the button, then Algorithm 1 with o = HS**50."""
    return Player("scared-limper", SCARED_LIMPER, np.array([exponent]), uses_hand_strength=True)


def hothead_maniac(unraised: float = 1.0, raised: float = 2.0) -> Player:
    """ASHE 1.0 Hothead Maniac: raises the pot unless raised, then re-raises twice the pot (sizes in pots, multiples of 0.5)."""
    return Player("hothead-maniac", HOTHEAD_MANIAC, np.array([2 * unraised, 2 * raised]))


def candid_statistician(exponent: float = 7.0) -> Player:
    """ASHE 1.0 Candid Statistician: bets honestly, Algorithm 1 with o = HS**7."""
    return Player("candid-statistician", CANDID_STATISTICIAN, np.array([exponent]), uses_hand_strength=True)


BOTS = {
    "random": random_bot,
    "calling-machine": calling_machine,
    "scared-limper": scared_limper,
    "hothead-maniac": hothead_maniac,
    "candid-statistician": candid_statistician,
}


def make_player(spec: "str | Player") -> Player:
    """A player from a spec: a name in ``BOTS``, ``FILE.h5:INDEX`` for an ASHE player of a population
    file, or a ``Player`` (returned as is)."""
    if isinstance(spec, Player):
        return spec
    if isinstance(spec, str) and spec in BOTS:
        return BOTS[spec]()
    if isinstance(spec, str) and ":" in spec:
        from ..populations import player_from_spec

        return player_from_spec(spec)
    raise ValueError(f"unknown player {spec!r}; choose one of {', '.join(BOTS)}, or FILE.h5:INDEX for a "
                     "player of a population file")
