"""Random numbers inside numba kernels: one 64-bit generator state per game, stored in the game's state.

The batched engines keep each game's generator in its state row (a ``uint64``), so that a game is a plain value:
copying the row copies the game *and* its future chance events, the same seed gives the same game whatever the
batch size, and kernels need no global generator. The generator is SplitMix64 (Steele, Lea & Flood 2014): one
add, three xor-shifts and two multiplies per draw, statistically sound for simulation (it passes BigCrush), and
trivially seekable from any 64-bit seed. ``below`` draws an unbiased integer in ``[0, n)`` with Lemire's
multiply-and-reject method.

These are not numpy's streams: a batched game and the reference engine seeded alike draw different dice; the
differential tests copy chance outcomes from one engine to the other instead.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def next_u64(rng: np.ndarray, row: int) -> np.uint64:
    """Advance ``rng[row]`` and return the next 64-bit output."""
    z = rng[row] + _GOLDEN
    rng[row] = z
    z = (z ^ (z >> uint64(30))) * _MIX1
    z = (z ^ (z >> uint64(27))) * _MIX2
    return z ^ (z >> uint64(31))


@njit(cache=True)
def below(rng: np.ndarray, row: int, n: int) -> int:
    """An unbiased integer in ``[0, n)`` (``n >= 1``) from ``rng[row]`` (Lemire's method on the top 32 bits)."""
    bound = uint64(n)
    threshold = (uint64(1 << 32) - bound) % bound
    while True:
        x = next_u64(rng, row) >> uint64(32)
        m = x * bound
        if (m & uint64(0xFFFFFFFF)) >= threshold:
            return int(m >> uint64(32))


@njit(cache=True)
def shuffle(rng: np.ndarray, row: int, values: np.ndarray) -> None:
    """Fisher-Yates shuffle of the 1-D array ``values`` in place."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = below(rng, row, i + 1)
        values[i], values[j] = values[j], values[i]


def seed_states(seed: int | None, count: int) -> np.ndarray:
    """``count`` independent generator states from one seed (numpy's ``SeedSequence``; None: fresh entropy)."""
    return np.random.SeedSequence(seed).generate_state(count, dtype=np.uint64)
