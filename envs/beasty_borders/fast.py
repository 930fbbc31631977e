"""Beasty Borders, batched and compiled: B games per call on struct-of-arrays state, numba kernels.

:class:`BeastyBordersBatched` is the :class:`~envs.common.vector.BatchedGame` of this game (every option set
of ``rules.BeastyBordersGame``), built for speed rather than reading: ``rules.py`` stays
the readable reference, and ``tests/beasty_borders/test_beasty_borders_fast.py`` checks that both engines give
identical legal masks, observations (every seat's), rewards and results over thousands of random games.

The state (:class:`BeastyBordersBatchedState`, first axis = game), the :class:`Tables` and the rules live in
``kernels.py``, the compiled rules both engines share: the row functions that every engine exports with one meaning
(``envs.common.fastsearch.ROW_FUNCTIONS``: :func:`mover_row`, :func:`legal_row`, :func:`apply_row`,
:func:`returns_row`, :func:`copy_row`, :func:`random_action_row`, imported here so that ``fast.<name>`` names
them too). This room holds the batch kernels that loop them over rows, the compiled greedy rule
(:func:`greedy_action_row`, which the search's playouts play too), and the Python face with its bridge to
``rules.py``; the batched observation is ``observation.observe_batch`` (what a seat sees, in both engines). ``rng``
is each game's own SplitMix64 generator (:mod:`envs.common.fastrng`): the die rolls and tile shuffles are drawn
from it, so they are *not* the streams ``rules.py`` draws from a numpy generator with the same seed (the
differential tests copy the rolls and tiles from one engine to the other).

:meth:`~BeastyBordersBatched.greedy_actions` is the greedy baseline (``baselines.greedy_choice``) compiled; the
search baseline (``search.py``: its candidates and playouts, on the tree of ``envs/common/fastsearch.py``) plays on
these rows through the row functions.

Every kernel takes the state and the engine's :class:`Tables` (the configuration's constants and the engine's work
buffers, one flat ``NamedTuple``), never their fields one by one.

Tables the kernels read as globals (``GROUP_VP``, the cell codes) are frozen into numba's on-disk cache, which
only watches the file of the function it compiled: after editing ``kernels.py`` or ``actions.py``, clear
``envs/beasty_borders/__pycache__``. The greedy rule's tuned weights are in :class:`Tables` (arguments, not
globals) for that reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.beasty_borders import actions as act
from envs.beasty_borders.actions import (
    EMPTY,
    FIRST_ANIMAL,
    LAKE,
    ROLLER_CHOICE,
    SIGNPOST_TILE,
    TILE_COLS,
    TILE_ROWS,
    TILES,
    tile_lakes,
)
from envs.beasty_borders.kernels import (
    GROUP_VP,
    STATE,
    BeastyBordersBatchedState,
    Tables,
    apply_row,
    draw_roll,
    legal_inline,
    mover_of,
    rebuild_groups,
    returns_row,
)
from envs.beasty_borders.kernels import copy_row as copy_row  # the row functions, re-exported (fast.<name>)
from envs.beasty_borders.kernels import legal_row as legal_row
from envs.beasty_borders.kernels import mover_row as mover_row
from envs.beasty_borders.kernels import random_action_row as random_action_row
from envs.beasty_borders.observation import observe_batch
from envs.beasty_borders.rules import BeastyBordersGame, BeastyBordersState
from envs.common.fastrng import below
from envs.common.game import TERMINAL
from envs.common.jit import refcount_jit, row_jit
from envs.common.state import reset_fields
from envs.common.vector import BatchedGame

_GROUP_VP = np.array(GROUP_VP, dtype=np.int64)
_TOP = len(GROUP_VP) - 1

GREEDY_DENY = 0.5
"""The greedy rule (``baselines.greedy_choice``, and :func:`greedy_action_row` here): weight of the opponent's
points that a placement denies."""
GREEDY_POTENTIAL = 0.25
"""The greedy rule: weight per empty neighbour (room for the group to grow)."""
GREEDY_PASS_BELOW = 0.6
"""The greedy rule: the roller passes when the best placement value is at most this."""
GREEDY_PASS_BELOW_RESPONDER = 0.3
"""The greedy rule: the responder passes when the best placement value is at most this."""


# ----- the greedy baseline (baselines.greedy_choice), compiled ------------------------------------------------------
@row_jit
def _merge_gain(bd, label, group_size, nbr, cell, code):
    """(victory points gained by an animal ``code`` on ``cell``, whether any group of ``code`` is next to it):
    baselines.merge_gain of the distinct neighbouring groups' sizes."""
    total = 0
    vps = 0
    for i in range(4):
        nb = nbr[cell, i]
        if nb < 0:
            break
        if bd[nb] != code:
            continue
        g = label[nb]
        seen = False
        for j in range(i):
            other = nbr[cell, j]
            if bd[other] == code and label[other] == g:
                seen = True
        if not seen:
            total += group_size[g]
            vps += _GROUP_VP[group_size[g]]
    if total == 0:
        return 0, False
    return _GROUP_VP[min(1 + total, _TOP)] - vps, True


@row_jit
def greedy_action_row(st, tab, b, rng):
    """baselines.greedy_choice for the mover of live row ``b``: the held type whose placement on the marker's space
    adds the most group points (plus ``greedy_deny`` times the most the opponent could add there, plus
    ``greedy_potential`` per empty neighbour while more of the type are held), or the pass when the best is at most
    the roller's / responder's threshold; ties drawn from ``rng[b]`` (the row's own generator in the search's
    playouts, another one in :meth:`BeastyBordersBatched.greedy_actions`). Variant: the chosen type's lowest legal
    figure (its highest for a roller with a value of 2 or more)."""
    bd = st.board[b]
    lb = st.label[b]
    gs = st.group_size[b]
    nbr = tab.nbr
    types = tab.types
    values = tab.work_values
    phase = st.phase[b]
    seat = mover_of(st.roller[b], phase)
    cell = st.pos[b]
    opp = 1 - seat
    deny = 0
    for k in range(types):
        if st.remaining[b, opp, k] > 0:
            gain, near = _merge_gain(bd, lb, gs, nbr, cell, FIRST_ANIMAL + 3 * opp + k)
            if near and gain > deny:
                deny = gain
    room = 0
    for i in range(4):
        nb = nbr[cell, i]
        if nb < 0:
            break
        if bd[nb] == EMPTY:
            room += 1
    best = -1e300
    any_held = False
    for k in range(types):
        rem = st.remaining[b, seat, k]
        if rem <= 0:
            continue
        any_held = True
        grow = room if rem > 1 else 0
        gain, near = _merge_gain(bd, lb, gs, nbr, cell, FIRST_ANIMAL + 3 * seat + k)
        v = gain + tab.greedy_deny * deny + tab.greedy_potential * grow + 0.01 * rem
        values[k] = v
        if v > best:
            best = v
    if not any_held:
        return tab.pass_action
    if best <= (tab.greedy_pass_below if phase == ROLLER_CHOICE else tab.greedy_pass_below_responder):
        return tab.pass_action
    ties = 0
    for k in range(types):
        if st.remaining[b, seat, k] > 0 and values[k] >= best - 1e-9:
            ties += 1
    pick = below(rng, b, ties) if ties > 1 else 0
    kind = -1
    for k in range(types):
        if st.remaining[b, seat, k] > 0 and values[k] >= best - 1e-9:
            if pick == 0:
                kind = k
                break
            pick -= 1
    if tab.luck:
        return kind
    low = st.choice[b] if phase == 1 else -1
    first = -1
    last = -1
    row_owner = tab.row_owner
    row_type = tab.row_type
    for i in range(low + 1, row_owner.shape[0]):
        if st.row[b, i] and row_owner[i] == seat and row_type[i] == kind:
            if first < 0:
                first = i
            last = i
    if first < 0:
        return tab.pass_action
    if phase == ROLLER_CHOICE and best >= 2.0:
        return last
    return first


# ----- kernels over the batch ---------------------------------------------------------------------------------------
@refcount_jit
def _reset_kernel(st, tab, rows):
    """Start a new game in each of ``rows`` (rules.initial_state): every field but the generator fresh
    (``envs.common.state.reset_fields``), then shuffle the tiles (variant: the signpost tile and 5 of the other 8),
    lay the lakes, marker on the signpost, full supplies, the first roll."""
    rng = st.rng
    num_tiles = st.tiles.shape[1]
    slot_cells = tab.slot_cells
    counts = tab.counts
    pool = np.empty(tab.tile_lake.shape[0], dtype=np.int64)
    for rr in range(rows.shape[0]):
        b = rows[rr]
        reset_fields(st, b)
        for t in range(pool.shape[0]):
            pool[t] = t
        pool[0], pool[SIGNPOST_TILE] = SIGNPOST_TILE, 0
        if tab.luck:
            for i in range(num_tiles - 1, 0, -1):
                j = below(rng, b, i + 1)
                pool[i], pool[j] = pool[j], pool[i]
        else:
            # The signpost tile (pool[0]) and 5 of tiles 1..8 (a partial Fisher-Yates over pool[1:]), then the 6
            # shuffled over the slots.
            others = pool.shape[0] - 1
            for i in range(num_tiles - 1):
                j = i + below(rng, b, others - i)
                pool[1 + i], pool[1 + j] = pool[1 + j], pool[1 + i]
            for i in range(num_tiles - 1, 0, -1):
                j = below(rng, b, i + 1)
                pool[i], pool[j] = pool[j], pool[i]
        count = 0
        sign = 0
        for s in range(num_tiles):
            tile = pool[s]
            st.tiles[b, s] = tile
            for k in range(slot_cells.shape[1]):
                cell = slot_cells[s, k]
                if tab.tile_lake[tile, k]:
                    st.board[b, cell] = LAKE
                else:
                    st.board[b, cell] = EMPTY
                    count += 1
            if tile == SIGNPOST_TILE:
                sign = slot_cells[s, 0]
        for seat in range(2):
            for t in range(counts.shape[0]):
                st.remaining[b, seat, t] = counts[t]
        if not tab.luck:
            for i in range(st.row.shape[1]):
                st.row[b, i] = True
        st.empty_count[b] = count
        r, cell = draw_roll(st, tab, b, sign)
        st.roll[b] = r
        st.pos[b] = cell


@row_jit
def _apply_kernel(st, tab, actions):
    for b in range(actions.shape[0]):
        if st.empty_count[b] > 0:
            apply_row(st, tab, b, actions[b])


@row_jit
def _legal_kernel(st, tab, out):
    for b in range(out.shape[0]):
        legal_inline(st, tab, b, out[b])


@row_jit
def _current_player_kernel(st, out):
    for b in range(out.shape[0]):
        out[b] = TERMINAL if st.empty_count[b] == 0 else mover_of(st.roller[b], st.phase[b])


@row_jit
def _returns_kernel(st, tab, out):
    for b in range(out.shape[0]):
        returns_row(st, tab, b, out[b])


@row_jit
def _greedy_kernel(st, tab, rng, out):
    """:func:`greedy_action_row` of every live row into ``out`` (-1 where over), ties from ``rng[b]``."""
    for b in range(out.shape[0]):
        out[b] = -1 if st.empty_count[b] == 0 else greedy_action_row(st, tab, b, rng)


# ----- the batched game ----------------------------------------------------------------------------------------------
class BeastyBordersBatched(BatchedGame):
    """Beasty Borders over B games at once (module docstring). Options as ``rules.BeastyBordersGame``."""

    name = "beasty_borders"
    game_class = BeastyBordersGame
    state_layout = STATE
    reference: BeastyBordersGame

    def __init__(self, **options: Any):
        super().__init__(**options)
        ref = self.reference
        t = ref.view_tables  # the observation kernels' tables (observation.ViewTables): the path and neighbours
        tile_lake = [
            [1 if (r, c) in tile_lakes(tile) else 0 for r in range(TILE_ROWS) for c in range(TILE_COLS)]
            for tile in range(len(TILES))
        ]
        self.tables = Tables(
            luck=bool(ref.luck),
            types=ref.num_types,
            pass_action=ref.pass_action,
            max_plies=ref.max_game_length,
            path=t.path,
            rank=t.rank,
            nbr=t.nbr,
            row_owner=np.array(act.ROW_OWNER, dtype=np.int64),
            row_type=np.array(act.ROW_TYPE, dtype=np.int64),
            counts=np.array(ref.counts, dtype=np.int64),
            slot_cells=np.array(ref.slot_cells, dtype=np.int64),
            tile_lake=np.array(tile_lake, dtype=np.int8),
            greedy_deny=GREEDY_DENY,
            greedy_potential=GREEDY_POTENTIAL,
            greedy_pass_below=GREEDY_PASS_BELOW,
            greedy_pass_below_responder=GREEDY_PASS_BELOW_RESPONDER,
            work_mask=np.zeros(ref.num_actions, dtype=np.bool_),
            work_values=np.zeros(3, dtype=np.float64),
        )
        """The kernels' constants and work buffers (:class:`Tables`)."""
        self.view_tables = t
        """The observation kernels' tables (``observation.ViewTables``, the reference engine's)."""

    # ----- state -----------------------------------------------------------------------------------------------
    def state_sizes(self) -> dict[str, int]:
        """The named sizes of the declaration (``kernels.STATE``): landscape cells, tile slots, animal types."""
        return dict(self.reference.layout_sizes)

    def reset_rows(self, state: BeastyBordersBatchedState, rows: np.ndarray) -> None:
        """New games in ``rows``: tiles shuffled and the first roll drawn from each row's generator."""
        _reset_kernel(state, self.tables, np.asarray(rows, dtype=np.int64))

    def legal_mask(self, state: BeastyBordersBatchedState, out: np.ndarray) -> None:
        """The mover's legal mask per row (zeros when over)."""
        _legal_kernel(state, self.tables, out)

    def apply(self, state: BeastyBordersBatchedState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal) in every live row; the next turn's roll from the row's generator."""
        _apply_kernel(state, self.tables, np.asarray(actions, dtype=np.int64))

    def observe(self, state: BeastyBordersBatchedState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b``'s observation from seat ``seats[b]`` (0 or 1) into ``out[b]``."""
        seats = np.asarray(seats, dtype=np.int64)
        if seats.shape != (out.shape[0],) or (seats.size and (seats.min() < 0 or seats.max() > 1)):
            raise ValueError(f"seats must be {out.shape[0]} seats 0 or 1")
        observe_batch(state, self.view_tables, seats, out)

    def current_player(self, state: BeastyBordersBatchedState) -> np.ndarray:
        """Seat to move per row: the roller, then the responder; TERMINAL once the landscape is full."""
        out = np.empty(state.pos.shape[0], dtype=np.int64)
        _current_player_kernel(state, out)
        return out

    def returns(self, state: BeastyBordersBatchedState) -> np.ndarray:
        """(B, 2) terminal rewards, zeros while live."""
        out = np.empty((state.pos.shape[0], 2), dtype=np.float64)
        _returns_kernel(state, self.tables, out)
        return out

    def truncated(self, state: BeastyBordersBatchedState) -> np.ndarray:
        """The AEC env's ply cap (``max_game_length``) on a live game; a game always ends before it (every filling
        takes at most two decisions), so this stays False, but it is applied as the AEC env applies it."""
        return (state.empty_count > 0) & (state.plies >= self.max_game_length)

    def scores(self, state: BeastyBordersBatchedState) -> np.ndarray:
        """(B, 2) victory points (rules.scores)."""
        return state.vp.copy()

    def shaping_potential(self, state: BeastyBordersBatchedState) -> np.ndarray:
        """(B, 2) as ``Game.shaping_potential`` for this game: the victory points."""
        return state.vp.astype(np.float64)

    # ----- the bridge to rules.py ----------------------------------------------------------------------------
    def to_reference(self, state: BeastyBordersBatchedState, row: int) -> BeastyBordersState:
        """Row ``row`` as a ``rules.BeastyBordersState`` (its generator is not carried over): the declared fields
        (``kernels.STATE``), the landscape and bidding row as the reference state keeps them, its empty spaces."""
        ref = self.reference
        s = BeastyBordersState()
        STATE.to_reference(state, row, s)
        s.board = state.board[row].astype(np.intp)
        s.row = None if ref.luck else state.row[row].astype(np.float32)
        s.empty = sorted(ref.rank[c] for c in np.flatnonzero(state.board[row] == EMPTY).tolist())
        return s

    def from_reference(self, reference_state: BeastyBordersState, state: BeastyBordersBatchedState, row: int) -> None:
        """Write a ``rules.BeastyBordersState`` into row ``row`` (its generator kept; plies set to 0, since the
        reference state does not count them; the groups recounted from the landscape)."""
        r = reference_state
        STATE.from_reference(r, state, row)
        state.board[row] = r.board
        state.row[row] = False if r.row is None else r.row
        state.plies[row] = 0
        state.empty_count[row] = len(r.empty)
        rebuild_groups(state.board[row], state.label[row], state.group_size[row], state.vp[row], self.tables.nbr)

    # ----- the greedy baseline, compiled ------------------------------------------------------------------------
    has_greedy_actions = True

    def greedy_actions(self, state: BeastyBordersBatchedState, rng: np.ndarray, out: np.ndarray) -> None:
        """``baselines.greedy_choice`` for the mover of every live row into ``out`` (B,) int64 (-1 where over), ties
        drawn from ``rng[b]`` (a SplitMix64 state per row, advanced in place; never the row's own chance
        generator)."""
        batch = state.pos.shape[0]
        if rng.dtype != np.uint64 or rng.shape != (batch,) or out.dtype != np.int64 or out.shape != (batch,):
            raise ValueError(
                f"greedy_actions needs rng uint64 ({batch},) and out int64 ({batch},), got rng "
                f"{rng.dtype}{rng.shape} and out {out.dtype}{out.shape}"
            )
        _greedy_kernel(state, self.tables, rng, out)
