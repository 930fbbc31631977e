"""The compiled search baselines: their one interface, and the compiled pieces they share.

Every game's ``envs/<game>/search.py`` runs its ``search`` baseline's whole decision in numba over rows of the
game's batched engine (``fast.py``) and offers it as one class with one interface::

    search = CompiledSearch(game, budget, exploration, **parameters)   # parameters: the game's own, by keyword
    action = search(state, rng, root_actions=None, budget=None, root_visits=None)

* ``game``: the reference engine (``rules.py``) whose options the batched engine copies; ``budget``: simulations
  per decision; ``exploration``: the UCT constant. The game's other parameters (playout rule, leaf values) follow
  by keyword.
* ``state``: the position for the player to move, as that player knows it (``game.information_state``; a plain
  state in the perfect-information games), left unchanged.
* ``rng``: the caller's ``np.random.Generator``. One draw from it per decision seeds the search's own SplitMix64
  stream (:mod:`envs.common.fastrng`), so a seeded caller gets the same decisions every run (not the draws of the
  same search on ``rules.py``).
* ``root_actions`` (legal action ids): when given, the root's only children; ``budget``: this decision's
  simulations instead of the search's; ``root_visits`` (int64, one per action): when given, receives the root
  children's visit counts. A search that has no such root (Boaring's determinized search keeps none to restrict,
  Bestiarium's counts none for the caller) raises NotImplementedError for what it cannot do, never ignores it.
* Returns the chosen legal action (the most visited root child), or -1 when the search found none.

The baselines (``envs/<game>/baselines.py``) build one per policy and call it on each decision.
"""

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
