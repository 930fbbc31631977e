"""Compiled pieces that the games' compiled UCT searches share (``envs/<game>/fast.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.common.fastrng import below


@njit(cache=True)
def untried_choice(
    children: np.ndarray,
    node: int,
    acts: np.ndarray,
    n: int,
    avail: np.ndarray,
    untried: np.ndarray,
    rng: np.ndarray,
    row: int,
) -> int:
    """One step of expansion at ``node`` over its candidate actions ``acts[:n]``: each child already in the tree
    (``children[node, a] >= 0``) counts one more time it was available (``avail``); of the actions without a child
    (gathered in ``untried``, in order) one is drawn uniformly from ``rng[row]``. Returns it, or -1 when every
    candidate has a child (then nothing is drawn)."""
    free = 0
    for i in range(n):
        child = children[node, acts[i]]
        if child >= 0:
            avail[child] += 1
        else:
            untried[free] = acts[i]
            free += 1
    if free == 0:
        return -1
    return untried[below(rng, row, free)]
