"""Score shaping's potential (config ``score_shaping``), written once for every learner that pays it.

Each seat's potential is ``Phi = score_shaping * (its progress - the mean of the others')``, its progress being
``Game.shaping_potential`` (the running score unless the game knows better). ``barnyard train`` pays
``gamma * Phi(s') - Phi(s)`` from a seat's decision in ``s`` to its next in ``s'`` (``Phi = 0`` once the game is
over), and so does RLlib's env (:mod:`training.scale.rllib_env`): the discounted shaping of a game sums to
``-Phi(first decision)``, so the objective stays the result (Ng, Harada & Russell 1999).
"""

from __future__ import annotations

import numpy as np


def relative_potential(progress: np.ndarray, score_shaping: float) -> np.ndarray:
    """``score_shaping * (my progress - mean of the others')`` per seat, over the last axis of ``progress``."""
    n = progress.shape[-1]
    others = (progress.sum(axis=-1, keepdims=True) - progress) / max(1, n - 1)
    return score_shaping * (progress - others)
