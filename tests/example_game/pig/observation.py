"""Pig's observation: one flat float32 vector of :data:`SIZE` entries, seat-relative ("me" first), in [0, 1].

=======  ====  ==========================================================================
offset   size  content
=======  ====  ==========================================================================
0        2     banked scores: mine, then the opponent's, each / target (capped at 1)
2        1     the turn total of the player to move / target (capped at 1)
3        2     one-hot relative seat of the player to move (me, the opponent); zeros once over
=======  ====  ==========================================================================

Nothing is hidden in Pig: every seat sees the whole position, seen from its own seat. Both engines' observations
live here: :func:`observe` for the reference engine, :func:`observe_rows` for the batched one (``fast.py``), which
writes the same numbers with the same float operations (:func:`scaled`).
"""

from __future__ import annotations

import numpy as np

from envs.common.game import TERMINAL
from envs.common.jit import refcount_jit, row_jit
from pig.kernels import OBSERVATION_SIZE as SIZE
from pig.rules import PigGame, PigState

SCORES, TURN_TOTAL, TO_MOVE = 0, 2, 3
"""The blocks' offsets."""


def scaled(points: int, target: int) -> np.float32:
    """``min(points, target) / target`` as float32: a double division rounded once (the batched engine's too)."""
    return np.float32(min(points, target) / target)


def observe(game: PigGame, state: PigState, seat: int) -> np.ndarray:
    """The observation of ``state`` from ``seat``'s point of view (float32, :data:`SIZE` entries)."""
    out = np.zeros(SIZE, dtype=np.float32)
    target = game.target
    for k in range(2):
        out[SCORES + k] = scaled(state.scores[(seat + k) % 2], target)
    out[TURN_TOTAL] = scaled(state.turn_total, target)
    if state.current >= 0:
        out[TO_MOVE + (state.current - seat) % 2] = 1.0
    return out


@row_jit
def scaled_jit(points, target):
    """:func:`scaled` in compiled code: ``min(points, target) / target`` in double precision, rounded once."""
    return np.float32(min(points, target) / target)


@refcount_jit
def observe_rows(st, tab, seats, out):
    """Batched row ``b`` seen from ``seats[b]`` into ``out[b]``: :func:`observe` entry for entry."""
    for b in range(out.shape[0]):
        seat = seats[b]
        for k in range(2):
            out[b, SCORES + k] = scaled_jit(st.scores[b, (seat + k) % 2], tab.target)
        out[b, TURN_TOTAL] = scaled_jit(st.turn_total[b], tab.target)
        out[b, TO_MOVE] = 0.0
        out[b, TO_MOVE + 1] = 0.0
        if st.current[b] != TERMINAL:
            out[b, TO_MOVE + (st.current[b] - seat) % 2] = 1.0
