"""Pig's compiled rules: the state declared once (:data:`STATE`) and the row functions both the batched engine
(``fast.py``) and the search (``search.py``) play with.

The rules are those of :mod:`pig.rules` (the readable reference; ``tests/example_game/test_pig_fast.py`` plays both
engines side by side, move by move). The state (:data:`STATE`, :mod:`envs.common.state`): one line per field, from
which follow the batched state type (one row per game), the reference state class (``rules.PigState``), the
snapshots (``render.py``), ``new_state``, :func:`copy_row` and the conversions between the engines. Besides the
reference state's fields, a batched row holds ``plies`` (for the ply cap) and ``rng``, the row's SplitMix64
generator (:mod:`envs.common.fastrng`): each roll is ``below(rng, b, 6) + 1``. These are not numpy's streams: a
batched game and an AEC env seeded alike roll different dice; :class:`envs.common.fastrng.MirrorRng` makes the
reference engine roll a row's dice (its ``integers(6)`` is ``below(6)``), which is how the differential test keeps
both engines on one game.

Every function takes the state and the :class:`Tables` first (never the state's fields one by one): ``mover_row``,
``legal_row``, ``apply_row``, ``returns_row``, ``copy_row``, ``random_action_row``
(``envs.common.fastsearch.ROW_FUNCTIONS``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envs.common.fastrng import below
from envs.common.game import TERMINAL
from envs.common.jit import row_jit
from envs.common.state import Field, StateLayout, copy_fields
from pig.actions import BUST, DIE_FACES, HOLD, ROLL

STATE = StateLayout(
    "PigBatchedState",
    __name__,
    Field("scores", np.int32, (2,), doc="Banked score per seat."),
    Field("turn_total", np.int32, doc="Points rolled this turn by the player to move, not yet banked."),
    Field("current", np.int8, idle=TERMINAL, doc="The seat to move, TERMINAL (-1) once a score reached the target."),
    Field("last_roll", np.int8, doc="The face of the last roll when the last move was a roll (1: turn lost), else 0."),
    Field("plies", np.int32, batched_only=True, doc="Moves applied (the AEC env's num_plies, for the ply cap)."),
    Field("rng", np.uint64, batched_only=True, copied=False, doc="The row's generator (envs.common.fastrng)."),
    doc="B Pig games, one row each: the reference state's fields, ``plies`` and ``rng`` (:data:`STATE`).",
)
"""Pig's state, declared once (module docstring)."""

PigBatchedState = STATE.batched_type

OBSERVATION_SIZE = 5
"""Entries of the observation vector (``rules.PigGame.observation_shape``; ``observation.py`` lays them out)."""


class Tables(NamedTuple):
    """The engine's constants, as the kernels and the row functions read them."""

    target: int
    """The banked score that wins."""
    max_plies: int
    """The ply cap (``max_game_length``): a row reaching it is cut (``mover_row`` -1)."""


@row_jit
def mover_row(st, tab, b):
    """The seat to move in row ``b``, -1 when the game is over or at the ply cap."""
    if st.current[b] == TERMINAL or st.plies[b] >= tab.max_plies:
        return -1
    return np.int64(st.current[b])


@row_jit
def legal_row(st, tab, b, out):
    """The mover's legal mask of row ``b`` into ``out`` (2 bools; all False when over); returns how many."""
    out[ROLL] = False
    out[HOLD] = False
    if st.current[b] == TERMINAL:
        return 0
    out[ROLL] = True
    if st.turn_total[b] == 0:
        return 1
    out[HOLD] = True
    return 2


@row_jit
def apply_row(st, tab, b, a):
    """Play legal action ``a`` in live row ``b``: a roll draws its face from ``st.rng[b]`` (rules.PigGame.apply)."""
    seat = st.current[b]
    st.plies[b] += 1
    if a == ROLL:
        face = below(st.rng, b, DIE_FACES) + 1
        st.last_roll[b] = face
        if face == BUST:
            st.turn_total[b] = 0
            st.current[b] = 1 - seat
        else:
            st.turn_total[b] += face
        return
    st.scores[b, seat] += st.turn_total[b]
    st.turn_total[b] = 0
    st.last_roll[b] = 0
    if st.scores[b, seat] >= tab.target:
        st.current[b] = TERMINAL
    else:
        st.current[b] = 1 - seat


@row_jit
def returns_row(st, tab, b, out):
    """+1 / -1 per seat of finished row ``b`` into ``out`` (the seat at the target wins)."""
    win = 0 if st.scores[b, 0] >= tab.target else 1
    out[win] = 1.0
    out[1 - win] = -1.0


@row_jit
def copy_row(st, tab, src, dst):
    """Row ``src`` of every declared field but the generator into row ``dst`` (``envs.common.state.copy_fields``)."""
    copy_fields(st, src, dst)


@row_jit
def random_action_row(st, tab, b):
    """A uniformly random legal action of live row ``b``, from ``st.rng[b]``."""
    if st.turn_total[b] == 0:
        return ROLL
    return below(st.rng, b, 2)
