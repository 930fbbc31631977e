"""Random numbers inside numba kernels: one 64-bit generator state per game, stored in the game's state.

The batched engines keep each game's generator in its state row (a ``uint64``), so that a game is a plain value:
copying the row copies the game *and* its future chance events, the same seed gives the same game whatever the
batch size, and kernels need no global generator. The generator is SplitMix64 (Steele, Lea & Flood 2014): one
add, three xor-shifts and two multiplies per draw, statistically sound for simulation (it passes BigCrush), and
trivially seekable from any 64-bit seed. ``below`` draws an unbiased integer in ``[0, n)`` with Lemire's
multiply-and-reject method.

These are not numpy's streams: a batched game and the reference engine seeded alike draw different dice; the
differential tests copy chance outcomes from one engine to the other instead, or make the reference engine draw a
batched row's chance through :class:`MirrorRng`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import uint64

from envs.common.jit import inline_jit, row_jit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@inline_jit
def next_u64(rng: np.ndarray, row: int) -> np.uint64:
    """Advance ``rng[row]`` and return the next 64-bit output."""
    z = rng[row] + _GOLDEN
    rng[row] = z
    z = (z ^ (z >> uint64(30))) * _MIX1
    z = (z ^ (z >> uint64(27))) * _MIX2
    return z ^ (z >> uint64(31))


@row_jit
def below(rng: np.ndarray, row: int, n: int) -> int:
    """An unbiased integer in ``[0, n)`` (``n >= 1``) from ``rng[row]`` (Lemire's method on the top 32 bits)."""
    bound = uint64(n)
    threshold = (uint64(1 << 32) - bound) % bound
    while True:
        x = next_u64(rng, row) >> uint64(32)
        m = x * bound
        if (m & uint64(0xFFFFFFFF)) >= threshold:
            return int(m >> uint64(32))


@row_jit
def shuffle(rng: np.ndarray, row: int, values: np.ndarray) -> None:
    """Fisher-Yates shuffle of the 1-D array ``values`` in place."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = below(rng, row, i + 1)
        values[i], values[j] = values[j], values[i]


def seed_states(seed: int | None, count: int) -> np.ndarray:
    """``count`` independent generator states from one seed (numpy's ``SeedSequence``; None: fresh entropy)."""
    return np.random.SeedSequence(seed).generate_state(count, dtype=np.uint64)


class MirrorRng:
    """A stand-in for the ``np.random.Generator`` that a reference engine (``rules.py``) takes, drawing a batched
    row's chance from a copy of the row's generator state, as the batched kernels draw it:

    * ``integers(n)`` answers :func:`below` ``(n)`` (Battle Sheep's random pasture: the kernel draws over the same
      legal tiles, listed in id order as the reference lists them);
    * ``permutation(m)`` runs :func:`shuffle`'s Fisher-Yates swaps on ``arange(m)`` (Boaring's deck shuffles: the
      kernel shuffles the same ascending card list in place, so ``cards[perm]`` is exactly its shuffled list).

    Any other draw raises AssertionError: a chance event this mirror does not reproduce. ``state`` is the generator
    state afterwards (equal to the row's after the same step).
    """

    def __init__(self, rng_state: int | np.uint64):
        self._rng = np.array([rng_state], dtype=np.uint64)

    @property
    def state(self) -> int:
        """The generator's current 64-bit state."""
        return int(self._rng[0])

    def integers(self, low: int, high: int | None = None) -> int:
        """``below(low)``: an integer in ``[0, low)`` (only the one-argument form is mirrored)."""
        if high is not None:
            raise AssertionError("the reference drew integers(low, high): a draw MirrorRng does not mirror")
        return int(below(self._rng, 0, int(low)))

    def permutation(self, m: int) -> np.ndarray:
        """The permutation the batched kernels' shuffle of ``m`` items applies."""
        perm = np.arange(m, dtype=np.int64)
        shuffle(self._rng, 0, perm)
        return perm

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the reference engine drew {name}: a chance event MirrorRng does not mirror")
