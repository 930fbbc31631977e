"""Pig's batched engine: B games per call on struct-of-arrays state, every per-step loop a numba kernel.

The rules are those of :mod:`pig.rules` (the readable reference; ``tests/example_game/test_pig_fast.py`` plays
both engines side by side, move by move), with the same options, action ids and observation vector (float32, bit
for bit). State (:class:`PigBatchedState`): one row per game, the reference state's fields plus ``plies`` (for
the ply cap) and ``rng``, the row's SplitMix64 generator (:mod:`envs.common.fastrng`): each roll is
``below(rng, b, 6) + 1``. These are not numpy's streams: a batched game and an AEC env seeded alike roll
different dice; :class:`envs.common.fastrng.MirrorRng` makes the reference engine roll a row's dice (its
``integers(6)`` is ``below(6)``), which is how the differential test keeps both engines on one game.

Every kernel takes the state and the :class:`Tables` (never the state's fields one by one) and works through the
row functions below (``envs.common.fastsearch.ROW_FUNCTIONS``): ``mover_row``, ``legal_row``, ``apply_row``,
``returns_row``, ``copy_row``, ``random_action_row``. ``search.py`` searches with them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from envs.common.fastrng import below
from envs.common.game import TERMINAL
from envs.common.jit import refcount_jit, row_jit
from envs.common.vector import BatchedGame
from pig.actions import BUST, DIE_FACES, HOLD, ROLL
from pig.observation import SCORES, TO_MOVE, TURN_TOTAL
from pig.rules import PigGame, PigState


class PigBatchedState(NamedTuple):
    """B Pig games, one row each (the reference :class:`~pig.rules.PigState`'s fields, ``plies`` and ``rng``)."""

    scores: np.ndarray  # (B, 2) int32: banked score per seat
    turn_total: np.ndarray  # (B,) int32
    current: np.ndarray  # (B,) int8: seat to move, -1 (TERMINAL) when over
    last_roll: np.ndarray  # (B,) int8: the last roll's face when the last move was a roll, else 0
    plies: np.ndarray  # (B,) int32: moves applied (the AEC env's num_plies)
    rng: np.ndarray  # (B,) uint64: the row's generator


class Tables(NamedTuple):
    """The engine's constants, as the kernels and the row functions read them."""

    target: int
    """The banked score that wins."""
    max_plies: int
    """The ply cap (``max_game_length``): a row reaching it is cut (``mover_row`` -1)."""


# ----- the row functions of every engine (envs.common.fastsearch.ROW_FUNCTIONS) ------------------------------------
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
    """Row ``src`` of every field but the generator into row ``dst``."""
    st.scores[dst, 0] = st.scores[src, 0]
    st.scores[dst, 1] = st.scores[src, 1]
    st.turn_total[dst] = st.turn_total[src]
    st.current[dst] = st.current[src]
    st.last_roll[dst] = st.last_roll[src]
    st.plies[dst] = st.plies[src]


@row_jit
def random_action_row(st, tab, b):
    """A uniformly random legal action of live row ``b``, from ``st.rng[b]``."""
    if st.turn_total[b] == 0:
        return ROLL
    return below(st.rng, b, 2)


# ----- kernels over every row ----------------------------------------------------------------------------------
@refcount_jit
def _reset_kernel(st, tab, rows):
    """A new game in each of ``rows`` (no set-up chance)."""
    for r in range(rows.shape[0]):
        b = rows[r]
        st.scores[b, 0] = 0
        st.scores[b, 1] = 0
        st.turn_total[b] = 0
        st.current[b] = 0
        st.last_roll[b] = 0
        st.plies[b] = 0


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


@row_jit
def _scaled(points, target):
    """``observation.scaled``: ``min(points, target) / target`` in double precision, rounded once to float32."""
    return np.float32(min(points, target) / target)


@refcount_jit
def _observe_kernel(st, tab, seats, out):
    """Row ``b`` seen from ``seats[b]`` into ``out[b]``: ``observation.observe`` entry for entry."""
    for b in range(out.shape[0]):
        seat = seats[b]
        for k in range(2):
            out[b, SCORES + k] = _scaled(st.scores[b, (seat + k) % 2], tab.target)
        out[b, TURN_TOTAL] = _scaled(st.turn_total[b], tab.target)
        out[b, TO_MOVE] = 0.0
        out[b, TO_MOVE + 1] = 0.0
        if st.current[b] != TERMINAL:
            out[b, TO_MOVE + (st.current[b] - seat) % 2] = 1.0


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
    has_greedy_actions = True
    greedy_hold_at: int = 20
    """Greedy: the turn total it holds at (``baselines.HOLD_AT``; a test keeps the two equal: baselines imports
    this module, so this module does not import baselines)."""

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.tables = Tables(target=self.reference.target, max_plies=self.max_game_length)

    def new_state(self, batch: int) -> PigBatchedState:
        """State for ``batch`` games, every row finished (``reset_rows`` starts them)."""
        return PigBatchedState(
            scores=np.zeros((batch, 2), dtype=np.int32),
            turn_total=np.zeros(batch, dtype=np.int32),
            current=np.full(batch, TERMINAL, dtype=np.int8),
            last_roll=np.zeros(batch, dtype=np.int8),
            plies=np.zeros(batch, dtype=np.int32),
            rng=np.zeros(batch, dtype=np.uint64),
        )

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
        _observe_kernel(state, self.tables, np.asarray(seats, dtype=np.int64), out)

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
        ref.scores = [int(s) for s in state.scores[row]]
        ref.turn_total = int(state.turn_total[row])
        ref.current = int(state.current[row])
        ref.last_roll = int(state.last_roll[row])
        return ref

    def from_reference(self, reference_state: PigState, state: PigBatchedState, row: int, plies: int = 0) -> None:
        """Write a reference state into row ``row`` (the row's generator is kept); ``plies``: the moves played so
        far (only the ply cap reads it)."""
        state.scores[row] = reference_state.scores
        state.turn_total[row] = reference_state.turn_total
        state.current[row] = reference_state.current
        state.last_roll[row] = reference_state.last_roll
        state.plies[row] = plies
