"""Pig's batched engine: B games per call on the declared state (``kernels.STATE``: one row per game), every
per-step loop a numba kernel over the rows, calling the row functions of ``kernels.py``.

The rules are those of :mod:`pig.rules` (the readable reference; ``tests/example_game/test_pig_fast.py`` plays
both engines side by side, move by move), with the same options, action ids and observation vector (float32, bit
for bit: ``observation.observe_rows``). This room holds the kernels over every row, the compiled greedy, the
engine's Python face and its bridge to the reference engine (``to_reference`` / ``from_reference``, from the
declaration).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.common.game import TERMINAL
from envs.common.jit import refcount_jit, row_jit
from envs.common.state import reset_fields
from envs.common.vector import BatchedGame
from pig.actions import HOLD, ROLL
from pig.kernels import (
    STATE,
    PigBatchedState,
    Tables,
    apply_row,
    copy_row,
    legal_row,
    mover_row,
    random_action_row,
    returns_row,
)
from pig.observation import observe_rows
from pig.rules import PigGame, PigState

__all__ = [
    "PigBatched",
    "PigBatchedState",
    "Tables",
    "apply_row",
    "copy_row",
    "legal_row",
    "mover_row",
    "random_action_row",
    "returns_row",
]


# ----- kernels over every row ----------------------------------------------------------------------------------
@refcount_jit
def _reset_kernel(st, tab, rows):
    """A new game in each of ``rows``: every field but the generator fresh (no set-up chance)."""
    for r in range(rows.shape[0]):
        reset_fields(st, rows[r])


@refcount_jit
def _apply_kernel(st, tab, actions):
    """``apply_row`` in every live row (finished and cut rows are left alone)."""
    for b in range(actions.shape[0]):
        if mover_row(st, tab, b) >= 0:
            apply_row(st, tab, b, actions[b])


@refcount_jit
def _mask_kernel(st, tab, out):
    """``legal_row`` of every row into ``out`` (B, 2)."""
    for b in range(out.shape[0]):
        legal_row(st, tab, b, out[b])


@refcount_jit
def _returns_kernel(st, tab, out):
    """Terminal rewards per row (zeros in live and cut rows)."""
    for b in range(out.shape[0]):
        out[b, 0] = 0.0
        out[b, 1] = 0.0
        if st.current[b] == TERMINAL:
            returns_row(st, tab, b, out[b])


@row_jit
def greedy_row(st, tab, b, hold_at):
    """The ``greedy`` baseline's move in live row ``b`` (``baselines.GreedyPolicy``): hold when the turn total
    is at least ``hold_at`` or banking it wins, else roll."""
    total = st.turn_total[b]
    if total > 0 and (total >= hold_at or st.scores[b, st.current[b]] + total >= tab.target):
        return HOLD
    return ROLL


@refcount_jit
def _greedy_kernel(st, tab, hold_at, out):
    """:func:`greedy_row` in every live row, -1 elsewhere."""
    for b in range(out.shape[0]):
        out[b] = greedy_row(st, tab, b, hold_at) if mover_row(st, tab, b) >= 0 else -1


# ----- the engine ----------------------------------------------------------------------------------------------
class PigBatched(BatchedGame):
    """Pig over B games at once (options as :class:`~pig.rules.PigGame`; bad options raise its
    :class:`~envs.common.game.ConfigError`)."""

    name = "pig"
    game_class = PigGame
    reference: PigGame
    state_layout = STATE
    has_greedy_actions = True
    greedy_hold_at: int = 20
    """Greedy: the turn total it holds at (``baselines.HOLD_AT``; a test keeps the two equal: baselines imports
    this module, so this module does not import baselines)."""

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.tables = Tables(target=self.reference.target, max_plies=self.max_game_length)

    def reset_rows(self, state: PigBatchedState, rows: np.ndarray) -> None:
        """A new game in each of ``rows``."""
        _reset_kernel(state, self.tables, np.asarray(rows, dtype=np.int64))

    def legal_mask(self, state: PigBatchedState, out: np.ndarray) -> None:
        """The mover's legal mask per row into ``out`` (B, 2) bool; zeros in finished rows."""
        _mask_kernel(state, self.tables, out)

    def apply(self, state: PigBatchedState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal, checked by the caller) in every live row; finished rows are left alone."""
        _apply_kernel(state, self.tables, np.asarray(actions, dtype=np.int64))

    def observe(self, state: PigBatchedState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b`` seen from ``seats[b]`` into ``out[b]`` (float32, as the AEC env's observation)."""
        observe_rows(state, self.tables, np.asarray(seats, dtype=np.int64), out)

    def current_player(self, state: PigBatchedState) -> np.ndarray:
        """(B,) seat to move, TERMINAL (-1) where the game is over."""
        return state.current.astype(np.int64)

    def returns(self, state: PigBatchedState) -> np.ndarray:
        """(B, 2) terminal rewards (zeros in live rows), as ``PigGame.returns``."""
        out = np.empty((state.current.shape[0], 2), dtype=np.float64)
        _returns_kernel(state, self.tables, out)
        return out

    def truncated(self, state: PigBatchedState) -> np.ndarray:
        """(B,) live rows that reached ``max_game_length`` plies (the AEC env's safety net)."""
        return (state.current != TERMINAL) & (state.plies >= self.max_game_length)

    def shaping_potential(self, state: PigBatchedState) -> np.ndarray:
        """(B, 2) as ``PigGame.shaping_potential``: the banked scores."""
        return state.scores.astype(np.float64)

    def greedy_actions(self, state: PigBatchedState, rng: np.ndarray, out: np.ndarray) -> None:
        """The ``greedy`` baseline's action for the seat to move in every row into ``out`` (B,) int64, -1 in
        finished rows (:func:`greedy_row`; greedy draws nothing, so ``rng`` is left as it is)."""
        _greedy_kernel(state, self.tables, int(self.greedy_hold_at), out)

    # ----- the bridge to rules.py ----------------------------------------------------------------------------
    def to_reference(self, state: PigBatchedState, row: int) -> PigState:
        """Row ``row`` as a reference :class:`PigState` (the generator is not carried over)."""
        ref = PigState()
        STATE.to_reference(state, row, ref)
        return ref

    def from_reference(self, reference_state: PigState, state: PigBatchedState, row: int, plies: int = 0) -> None:
        """Write a reference state into row ``row`` (the row's generator is kept); ``plies``: the moves played so
        far (only the ply cap reads it)."""
        STATE.from_reference(reference_state, state, row)
        state.plies[row] = plies
