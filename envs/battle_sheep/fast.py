"""Battle Sheep, batched and compiled: B games per call on struct-of-arrays state, numba kernels.

:class:`BattleSheepBatched` is the :class:`~envs.common.vector.BatchedGame` of this game, for every option set of
``rules.BattleSheepGame`` (every one its ``OPTIONS`` table allows, ``canvas_radius`` down to the player count's
smallest). ``rules.py`` stays the readable reference: ``tests/battle_sheep/test_battle_sheep_fast.py``
checks that both engines give identical legal masks, observations (every seat's), rewards, results and states over
thousands of random games. The rules it plays are the compiled rules of ``kernels.py`` (the state
:class:`~envs.battle_sheep.kernels.BattleSheepBatchedState`, the tables :class:`~envs.battle_sheep.kernels.Tables`,
the row functions), which the reference engine shares; its observations are built by the kernels of
``observation.py``, the ones the AEC env uses, and are tested against the readable ``observation_numpy`` /
``legal_mask_python``.

Chance: ``rng`` is each game's own SplitMix64 generator (:mod:`envs.common.fastrng`); the only chance in Battle Sheep
is ``pasture="random"``'s build, whose placements it draws (``below(count)`` over the legal tiles in id order,
where ``rules.py`` asks its numpy generator ``integers(count)``): the streams are not numpy's, so a batched game and
an AEC env seeded alike build different pastures. :class:`envs.common.fastrng.MirrorRng` makes the reference draw a
row's placements (the differential tests use it).

Truncation: a live row that reaches ``max_game_length`` plies is truncated, as ``BarnyardAECEnv`` does (a Battle
Sheep game always ends before: every move occupies a new pasture).

Every kernel takes the state and the engine's :class:`~envs.battle_sheep.kernels.Tables` (the canvas's tables, the
options and the work buffers: one flat ``NamedTuple``), never their unpacked fields, and works through the row
functions of ``kernels.py`` (``envs.common.fastsearch.ROW_FUNCTIONS``, offered here too: ``search.py`` and the
tests import them from either). The ``greedy`` baseline runs here (:meth:`BattleSheepBatched.greedy_actions`, every
row at once: ``baselines.GreedyPolicy``'s scores, tie-breaks from a generator per row;
``tests/battle_sheep/test_battle_sheep_greedy_fast.py`` checks it move by move against the Python policy and
measures both with ``--speed``).

numba's on-disk cache of a compiled function watches only its own file, not those of the functions it calls (or
inlines): after editing ``kernels.py`` or ``observation.py``, clear ``envs/battle_sheep/__pycache__``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.battle_sheep.actions import (
    BUILD,
    EMPTY,
    MAX_MOVE,
    MOVE,
    NO_PASTURE,
    OVER,
    PLACE,
)
from envs.battle_sheep.kernels import (
    MAX_SPANS,
    MAX_STACKS,
    STATE,
    BattleSheepBatchedState,
    Tables,
    apply_row,
    final_returns,
    legal_tiles_row,
    returns_row,
    set_legal_row,
    slide,
    stack_can_move,
    zero,
)
from envs.battle_sheep.kernels import copy_row as copy_row
from envs.battle_sheep.kernels import legal_row as legal_row
from envs.battle_sheep.kernels import mover_row as mover_row
from envs.battle_sheep.kernels import random_action_row as random_action_row
from envs.battle_sheep.observation import observe_rows
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState
from envs.common.fastrng import below
from envs.common.game import TERMINAL
from envs.common.jit import inline_jit, refcount_jit
from envs.common.state import reset_fields
from envs.common.vector import BatchedGame


def _make_tables(ref: BattleSheepGame) -> Tables:
    """The engine's tables for the options of ``ref`` (the canvas's tables are the reference's, shared)."""
    t = ref.tables
    n, num_cells = ref.num_players, ref.grid.num_cells
    most = max(3 * num_cells, 6 * MAX_STACKS * MAX_MOVE)
    return Tables(
        nbr=t.nbr,
        tiles=t.tiles,
        cell_tiles=t.cell_tiles,
        centre=int(t.centre),
        q=t.q,
        r=t.r,
        cell_at=t.cell_at,
        radius=int(ref.canvas_radius),
        square=t.square,
        canvas=t.canvas,
        num_players=int(n),
        splits=ref.end_rule == "splits",
        total_tiles=int(ref.total_tiles),
        random_pasture=ref.pasture_mode == "random",
        max_plies=int(ref.max_game_length),
        work_code=np.zeros(num_cells, dtype=np.int8),
        work_near=np.zeros(num_cells, dtype=np.int64),
        work_tile_ok=np.zeros(3 * num_cells, dtype=np.bool_),
        work_list=np.zeros(3 * num_cells, dtype=np.int64),
        work_seen=np.zeros(num_cells, dtype=np.bool_),
        work_todo=np.zeros(num_cells, dtype=np.int64),
        work_spans=np.zeros((2, MAX_SPANS), dtype=np.int64),
        work_after=np.zeros(num_cells, dtype=np.int8),
        work_stacks=np.zeros(n, dtype=np.int64),
        work_result=np.zeros(n, dtype=np.float64),
        work_actions=np.zeros(most, dtype=np.int64),
        work_scores=np.zeros(most, dtype=np.float64),
        work_best=np.zeros(most, dtype=np.int64),
    )


# ----- kernels over the batch -----------------------------------------------------------------------------------------
@refcount_jit
def _reset_kernel(st, tab, rows):
    """A new game in each of ``rows`` (rules.initial_state): every field but the generator fresh
    (``envs.common.state.reset_fields``); ``tab.random_pasture``: the tiles laid by uniformly random legal placements
    drawn from the row's generator, then the game starts at stack placement (plies 0)."""
    legal = tab.work_list
    for i in range(rows.shape[0]):
        b = rows[i]
        reset_fields(st, b)
        if tab.random_pasture:
            while st.phase[b] == BUILD:
                count = legal_tiles_row(st, tab, b, legal)
                apply_row(st, tab, b, legal[below(st.rng, b, count)])
            st.plies[b] = 0
            st.last_action[b] = -1


@refcount_jit
def _apply_kernel(st, tab, actions):
    for b in range(actions.shape[0]):
        if st.phase[b] != OVER:
            apply_row(st, tab, b, actions[b])


@refcount_jit
def _legal_kernel(st, tab, out, incremental, span_start, span_len, num_spans):
    """Every row's legal mask into ``out``. ``incremental``: ``out`` holds what the previous call wrote, whose set
    entries lie in the recorded spans: clear those instead of the whole row (37,000 bytes a row at radius 11)."""
    for b in range(out.shape[0]):
        row = out[b]
        if incremental:
            for i in range(num_spans[b]):
                start = span_start[b, i]
                for k in range(span_len[b, i]):
                    row[start + k] = False
        else:
            zero(row)
        num_spans[b] = set_legal_row(st, tab, b, row, span_start[b], span_len[b])


@refcount_jit
def _returns_kernel(st, tab, out):
    for b in range(out.shape[0]):
        returns_row(st, tab, b, out[b])


@refcount_jit
def _potential_kernel(st, tab, out):
    """Pastures occupied + sheep that could still leave their pasture, per seat (rules.shaping_potential)."""
    cells, heights, stacks, num_stacks, nbr = st.cells, st.heights, st.stacks, st.num_stacks, tab.nbr
    for b in range(out.shape[0]):
        for s in range(tab.num_players):
            total = num_stacks[b, s]
            for i in range(num_stacks[b, s]):
                c = stacks[b, s, i]
                if stack_can_move(cells[b], heights[b], nbr, c):
                    total += heights[b, c] - 1
            out[b, s] = total


# ----- the greedy baseline, compiled ----------------------------------------------------------------------------------
@inline_jit
def _open_count(cells, nbr, c):
    """Free pastures next to cell ``c`` (``cells``: one row)."""
    k = 0
    for d in range(6):
        j = nbr[c, d]
        if j >= 0 and cells[j] == EMPTY:
            k += 1
    return k


@inline_jit
def _live_sheep(cells, heights, stack_cells, count, nbr):
    """(sheep that can still move, open (stack, direction) pairs) of the seat whose stacks are
    ``stack_cells[:count]`` (baselines.live_sheep; ``cells``, ``heights``: one row)."""
    live = 0
    opens = 0
    for i in range(count):
        c = stack_cells[i]
        h = np.int64(heights[c])
        if h < 2:
            continue
        k = _open_count(cells, nbr, c)
        if k:
            live += h - 1
            opens += k
    return live, opens


@refcount_jit
def _score_moves(st, tab, b, actions, scores):
    """Every legal move of the mover of live row ``b`` into ``actions`` and its greedy score into ``scores``
    (baselines.position_value of the position after it, for the mover); returns how many.

    The score is computed per (stack, direction) once for what the count of sheep does not change (the
    destination cell is taken whatever the count: the other seats' live sheep and open directions, the mover's
    other stacks, whether another seat can still move, the final result), then per count for the two stacks it
    does change; with the same float operations in the same order as position_value, so that scores equal there
    are equal here. The position after the move (for the final result) is ``tab.work_after`` and
    ``tab.work_stacks``."""
    num_cells = st.cells.shape[1]
    n = tab.num_players
    splits = tab.splits
    nbr = tab.nbr
    seat = st.to_move[b]
    cells = st.cells[b]
    heights = st.heights[b]
    stacks = st.stacks[b]
    num_stacks = st.num_stacks[b]
    can_move = st.can_move[b]
    seen, todo, result = tab.work_seen, tab.work_todo, tab.work_result
    after = tab.work_after
    stacks_after = tab.work_stacks
    after[:] = cells
    for s in range(n):
        stacks_after[s] = num_stacks[s]
    stacks_after[seat] += 1
    count = 0
    for i in range(num_stacks[seat]):
        c = stacks[seat, i]
        h = np.int64(heights[c])
        if h < 2:
            continue
        for d in range(6):
            dest = slide(cells, nbr, c, d)
            if dest < 0:
                continue
            after[dest] = seat
            # what the count does not change: the others ...
            other_live = 0.0
            other_open = 0.0
            others = 0
            others_can = False
            next_live = 0
            for s in range(n):
                if s != seat:
                    live, opens = _live_sheep(after, heights, stacks[s], num_stacks[s], nbr)
                    other_live += live / (n - 1)
                    other_open += opens / (n - 1)
                    others += num_stacks[s]
                    if can_move[s] and live > 0:
                        others_can = True
                    if s == (seat + 1) % n:
                        next_live = live
            pastures = (num_stacks[seat] + 1) - others / (n - 1)
            # ... the mover's other stacks ...
            base_live = 0
            base_open = 0
            for m in range(num_stacks[seat]):
                o = stacks[seat, m]
                if o == c:
                    continue
                ho = np.int64(heights[o])
                if ho < 2:
                    continue
                ko = _open_count(after, nbr, o)
                if ko:
                    base_live += ho - 1
                    base_open += ko
            open_c = _open_count(after, nbr, c)
            open_dest = _open_count(after, nbr, dest)
            final = 0.0
            final_known = False
            for k in range(1, h):
                mine_live = base_live
                mine_open = base_open
                if h - k >= 2 and open_c:
                    mine_live += h - k - 1
                    mine_open += open_c
                if k >= 2 and open_dest:
                    mine_live += k - 1
                    mine_open += open_dest
                if splits:  # the next seat to move cannot: game over
                    over = next_live == 0
                else:  # nobody who may still move can (rules.advance_mover)
                    over = not others_can and not (can_move[seat] and mine_live > 0)
                if over:
                    if not final_known:
                        final_returns(after, stacks_after, (seat + 1) % n, n, splits, nbr, seen, todo, result)
                        final = 1000.0 * result[seat]
                        final_known = True
                    scores[count] = final
                else:
                    scores[count] = 10.0 * (pastures + mine_live - other_live) + (mine_open - other_open)
                actions[count] = 4 * num_cells + (c * 6 + d) * MAX_MOVE + k - 1
                count += 1
            after[dest] = cells[dest]
    return count


@refcount_jit
def _setup_scores(st, tab, b, actions, scores):
    """The legal actions of row ``b``'s mover in the set-up phases into ``actions`` and their greedy scores into
    ``scores`` (baselines.greedy_scores: build, the pasture edges the tile touches; stack placement, the free
    cells in straight lines); returns how many (0 when over)."""
    num_cells = st.cells.shape[1]
    ph = st.phase[b]
    cells = st.cells[b]
    on_border = st.on_border[b]
    nbr, tiles = tab.nbr, tab.tiles
    count = 0
    if ph == BUILD:
        count = legal_tiles_row(st, tab, b, actions)
        for i in range(count):
            score = 0
            for e in range(4):
                c = tiles[actions[i], e]
                for d in range(6):
                    j = nbr[c, d]
                    if j >= 0 and cells[j] != NO_PASTURE:
                        score += 1
            scores[i] = score
    elif ph == PLACE:
        for c in range(num_cells):
            if on_border[c] and cells[c] == EMPTY:
                reach = 0
                for d in range(6):
                    j = nbr[c, d]
                    while j >= 0 and cells[j] == EMPTY:
                        reach += 1
                        j = nbr[j, d]
                actions[count] = 3 * num_cells + c
                scores[count] = reach
                count += 1
    return count


@refcount_jit
def _greedy_kernel(st, tab, rng, out):
    """baselines.GreedyPolicy's action for the mover of every row into ``out`` (-1 where the game is over): one of
    the best-scoring legal actions (baselines.greedy_scores: :func:`_score_moves`, :func:`_setup_scores`), drawn
    from ``rng[b]`` when several tie (no draw otherwise)."""
    actions, scores, best = tab.work_actions, tab.work_scores, tab.work_best
    for b in range(out.shape[0]):
        if st.phase[b] == MOVE:
            count = _score_moves(st, tab, b, actions, scores)
        else:
            count = _setup_scores(st, tab, b, actions, scores)
        if count == 0:  # over (or, never in a live position, no legal action)
            out[b] = -1
            continue
        top = scores[0]
        for i in range(1, count):
            if scores[i] > top:
                top = scores[i]
        num_best = 0
        for i in range(count):
            if scores[i] == top:
                # keep the tied actions in id order (moves come in stack order)
                a = actions[i]
                j = num_best
                while j > 0 and best[j - 1] > a:
                    best[j] = best[j - 1]
                    j -= 1
                best[j] = a
                num_best += 1
        out[b] = best[0] if num_best == 1 else best[below(rng, b, num_best)]


@refcount_jit
def _greedy_scores_kernel(st, tab, row):
    actions, scores = tab.work_actions, tab.work_scores
    if st.phase[row] == MOVE:
        count = _score_moves(st, tab, row, actions, scores)
    else:
        count = _setup_scores(st, tab, row, actions, scores)
    return actions[:count].copy(), scores[:count].copy()


# ----- the batched game ----------------------------------------------------------------------------------------------
class BattleSheepBatched(BatchedGame):
    """Battle Sheep over B games at once (module docstring). Options as ``rules.BattleSheepGame``."""

    name = "battle_sheep"
    game_class = BattleSheepGame
    state_layout = STATE
    reference: BattleSheepGame

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.num_cells = self.reference.grid.num_cells
        self.tables = _make_tables(self.reference)
        """The kernels' constants and work buffers (``kernels.Tables``): one call at a time per engine."""
        self._mask_out: np.ndarray | None = None
        """The array the last legal_mask call wrote, and the spans it set per row (see :meth:`legal_mask`)."""
        self._spans = (
            np.zeros((0, MAX_SPANS), dtype=np.int64),
            np.zeros((0, MAX_SPANS), dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )

    # ----- state -----------------------------------------------------------------------------------------------
    def state_sizes(self) -> dict[str, int]:
        """The named sizes of the declared state (``kernels.STATE``): canvas cells, seats, cells of a full pasture."""
        return dict(self.reference.layout_sizes)

    def reset_rows(self, state: BattleSheepBatchedState, rows: np.ndarray) -> None:
        """New games in ``rows`` (pasture="random": built from each row's generator)."""
        _reset_kernel(state, self.tables, np.asarray(rows, dtype=np.int64))

    def legal_mask(self, state: BattleSheepBatchedState, out: np.ndarray) -> None:
        """The mover's legal mask per row (zeros when over) into ``out``.

        When ``out`` is the array of the previous call, only the entries that call may have set are cleared before
        the new ones are set (not the whole 94N-entry row): so ``out`` must not be changed in between by anything
        else (``VectorEnv.action_mask``: "do not modify"). Any other array is written whole."""
        incremental = out is self._mask_out and out.shape[0] == self._spans[2].shape[0]
        if not incremental:
            rows = out.shape[0]
            self._spans = (
                np.zeros((rows, MAX_SPANS), dtype=np.int64),
                np.zeros((rows, MAX_SPANS), dtype=np.int64),
                np.zeros(rows, dtype=np.int64),
            )
        self._mask_out = None  # not trusted while the kernel writes (an exception midway leaves it unknown)
        _legal_kernel(state, self.tables, out, incremental, *self._spans)
        self._mask_out = out

    def apply(self, state: BattleSheepBatchedState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal) in every live row."""
        _apply_kernel(state, self.tables, np.asarray(actions, dtype=np.int64))

    def observe(self, state: BattleSheepBatchedState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b``'s observation from seat ``seats[b]`` into ``out[b]``."""
        seats = np.asarray(seats, dtype=np.int64)
        if seats.shape != (out.shape[0],) or (seats.size and (seats.min() < 0 or seats.max() >= self.num_players)):
            raise ValueError(f"seats must be {out.shape[0]} seats from 0 to {self.num_players - 1}")
        observe_rows(state, self.tables, seats, out.reshape(out.shape[0], self.observation_shape[0], -1))

    def current_player(self, state: BattleSheepBatchedState) -> np.ndarray:
        """Seat to move per row, TERMINAL once the game is over."""
        return np.where(state.phase == OVER, TERMINAL, state.to_move)

    def returns(self, state: BattleSheepBatchedState) -> np.ndarray:
        """(B, n) terminal rewards, zeros while live."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _returns_kernel(state, self.tables, out)
        return out

    def truncated(self, state: BattleSheepBatchedState) -> np.ndarray:
        """The AEC env's ply cap on a live game (a game always ends before it: every move fills a pasture)."""
        return (state.phase != OVER) & (state.plies >= self.max_game_length)

    def scores(self, state: BattleSheepBatchedState) -> np.ndarray:
        """(B, n) pastures occupied (rules.scores)."""
        return state.num_stacks.astype(np.float64)

    def shaping_potential(self, state: BattleSheepBatchedState) -> np.ndarray:
        """(B, n) pastures occupied + sheep that can still leave their pasture (rules.shaping_potential)."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _potential_kernel(state, self.tables, out)
        return out

    # ----- the greedy baseline -------------------------------------------------------------------------------
    has_greedy_actions = True

    def greedy_actions(self, state: BattleSheepBatchedState, rng: np.ndarray, out: np.ndarray) -> None:
        """The ``greedy`` baseline's action (``baselines.GreedyPolicy``) for the mover of every row into ``out``
        (int64, -1 where the game is over), compiled: the same scores, so the same choice where one action scores
        best; among tied best actions one drawn from ``rng[b]`` (uint64 SplitMix64 states, one per row, advanced
        in place; no draw without a tie). ``state`` is not changed."""
        batch = state.phase.shape[0]
        if out.shape != (batch,) or out.dtype != np.int64:
            raise ValueError(f"out must be an int64 array of shape ({batch},), got {out.dtype} {out.shape}")
        if rng.shape != (batch,) or rng.dtype != np.uint64:
            raise ValueError(f"rng must be a uint64 array of shape ({batch},), got {rng.dtype} {rng.shape}")
        _greedy_kernel(state, self.tables, rng, out)

    def greedy_scores(self, state: BattleSheepBatchedState, row: int) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions in id order, greedy scores) of row ``row``'s mover, as :meth:`greedy_actions` scores them
        (empty when the game is over): ``baselines.greedy_scores`` compiled, for tests and inspection."""
        if not 0 <= row < state.phase.shape[0]:
            raise ValueError(f"row {row} is not a row of this {state.phase.shape[0]}-row state")
        actions, scores = _greedy_scores_kernel(state, self.tables, int(row))
        order = np.argsort(actions, kind="stable")  # moves are scored in stack order: in id order, as the reference
        return actions[order], scores[order]

    # ----- the bridge to rules.py ----------------------------------------------------------------------------
    def to_reference(self, state: BattleSheepBatchedState, row: int) -> BattleSheepState:
        """Row ``row`` as a ``rules.BattleSheepState`` (its generator is not carried over): the declared fields
        (``kernels.STATE``), then each seat's stacks, who can move and the pasture as the reference keeps them."""
        n = self.num_players
        s = BattleSheepState(n, self.num_cells)
        STATE.to_reference(state, row, s)
        s.stacks = [state.stacks[row, seat, : state.num_stacks[row, seat]].tolist() for seat in range(n)]
        s.can_move = state.can_move[row].tolist()
        s.num_pasture = int(state.num_pasture[row])
        s.pasture = state.pasture[row, : s.num_pasture].tolist()
        s.extent = tuple(int(x) for x in state.extent[row]) if s.num_pasture else None
        s.border = tuple(int(c) for c in np.flatnonzero(state.on_border[row])) if s.phase != BUILD else ()
        return s

    def from_reference(self, reference_state: BattleSheepState, state: BattleSheepBatchedState, row: int) -> None:
        """Write a ``rules.BattleSheepState`` into row ``row`` (its generator kept): the declared fields
        (``kernels.STATE``), then the stacks, who can move and the pasture (its extent and border derived where the
        reference state does not hold them)."""
        ref, s = self.reference, reference_state
        STATE.from_reference(s, state, row)
        state.num_stacks[row] = [len(cells) for cells in s.stacks]
        state.stacks[row] = 0
        for seat, cells in enumerate(s.stacks):
            state.stacks[row, seat, : len(cells)] = cells
        state.can_move[row] = s.can_move
        state.num_pasture[row] = s.num_pasture
        state.pasture[row] = 0
        state.pasture[row, : len(s.pasture)] = s.pasture
        state.extent[row] = s.extent if s.extent is not None else (ref.extent(s.pasture) if s.pasture else (0,) * 6)
        state.on_border[row] = False
        if s.phase != BUILD:
            state.on_border[row, list(ref.outer_border(s) if not s.border else s.border)] = True
