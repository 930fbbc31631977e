"""Pig's observation: one flat float32 vector of :data:`SIZE` entries, seat-relative ("me" first), in [0, 1].

=======  ====  ==========================================================================
offset   size  content
=======  ====  ==========================================================================
0        2     banked scores: mine, then the opponent's, each / target (capped at 1)
2        1     the turn total of the player to move / target (capped at 1)
3        2     one-hot relative seat of the player to move (me, the opponent); zeros once over
=======  ====  ==========================================================================

Nothing is hidden in Pig: every seat sees the whole position, seen from its own seat. The batched engine
(``fast.py``) writes the same numbers with the same float operations (:func:`scaled`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

SCORES, TURN_TOTAL, TO_MOVE = 0, 2, 3
"""The blocks' offsets."""
SIZE = 5
"""Entries of the vector."""


def scaled(points: int, target: int) -> np.float32:
    """``min(points, target) / target`` as float32: a double division rounded once (the batched engine's too)."""
    return np.float32(min(points, target) / target)


def observe(game: Any, state: Any, seat: int) -> np.ndarray:
    """The observation of ``state`` from ``seat``'s point of view (float32, :data:`SIZE` entries)."""
    out = np.zeros(SIZE, dtype=np.float32)
    target = game.target
    for k in range(2):
        out[SCORES + k] = scaled(state.scores[(seat + k) % 2], target)
    out[TURN_TOTAL] = scaled(state.turn_total, target)
    if state.current >= 0:
        out[TO_MOVE + (state.current - seat) % 2] = 1.0
    return out
