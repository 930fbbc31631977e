"""Battle Sheep, batched and compiled: B games per call on struct-of-arrays state, numba kernels.

:class:`BattleSheepBatched` is the :class:`~envs.common.vector.BatchedGame` of this game, for every option set of
``rules.BattleSheepGame`` (every one its ``OPTIONS`` table allows, ``canvas_radius`` down to the player count's
smallest). ``rules.py`` stays the readable reference: ``tests/battle_sheep/test_battle_sheep_fast.py``
checks that both engines give identical legal masks, observations (every seat's), rewards, results and states over
thousands of random games. Observations and masks are built by the kernels of ``observation.py``, the ones the AEC
env uses, and are tested against the readable ``observation_numpy`` / ``legal_mask_python``.

State (:class:`BattleSheepBatchedState`, one row per game): the canvas cells and stack heights, each seat's stacks in
the order they were first occupied (as the reference's ``stacks``), tiles left, phase, mover, stacks placed, who can
still move, and for the build phase the pasture's cells (in the reference's order) and extents (min / max of q, r,
s), which re-centre the frame after every tile placement exactly as ``rules.PastureBuild.recentre`` does (RULES.md, "The
frame": tile ids are relative to the re-centred pasture). ``on_border`` is the outside border, computed once when
the pasture is complete. ``rng`` is each game's own SplitMix64 generator (:mod:`envs.common.fastrng`); the only
chance in Battle Sheep is ``pasture="random"``'s build, whose placements it draws (``below(count)`` over the legal
tiles in id order, where ``rules.py`` asks its numpy generator ``integers(count)``): the streams are not numpy's,
so a batched game and an AEC env seeded alike build different pastures. :class:`envs.common.fastrng.MirrorRng`
makes the reference draw a row's placements (the differential tests use it).

Truncation: a live row that reaches ``max_game_length`` plies is truncated, as ``BarnyardAECEnv`` does (a Battle
Sheep game always ends before: every move occupies a new pasture).

Every kernel takes the state and the engine's :class:`Tables` (the canvas's tables, the options and the work
buffers: one flat ``NamedTuple``), never their unpacked fields. The row functions every engine exports
(``envs.common.fastsearch.ROW_FUNCTIONS``: :func:`mover_row`, :func:`legal_row`, :func:`apply_row`,
:func:`returns_row`, :func:`copy_row`, :func:`random_action_row`) and :func:`legal_tiles_row` are the
interface of ``search.py``, whose tree (``envs/common/fastsearch.py``) plays on these rows. The ``greedy`` baseline
runs here (:meth:`BattleSheepBatched.greedy_actions`, every row at once: ``baselines.GreedyPolicy``'s scores,
tie-breaks from a generator per row; ``tests/battle_sheep/test_battle_sheep_greedy_fast.py`` checks it move by move
against the Python policy and measures both with ``--speed``).

How the functions read the state and the tables, for speed: numba increfs every array of both tuples (37 at the
default options) when a function taking them starts and decrefs them when it ends, and its reference-count pruning
drops those pairs only when both tuples die in the function's first block. So the functions run every ply (the row
functions and their helpers) read the fields they need into locals at their top, before anything that branches or
calls, and pass one row's arrays to their helpers (:func:`_next_mover`, :func:`_final_returns`); the small row
functions are inlined into their callers (``inline="always"``; the tree's wrappers in ``fastsearch`` included). A
row function that passes ``st`` and ``tab`` on pays the 37 pairs at each call: written that way, the playouts and
the search ran 2.5-3x slower (measured). Functions run once per kernel call, or once per row of a batch where the
row's work dwarfs it, take the simpler style.

numba's on-disk cache of a compiled function watches only its own file, not those of the functions it calls (or
inlines): after editing ``observation.py``, touch this file; after editing this file, clear
``envs/battle_sheep/__pycache__`` (``search.py``'s kernels have its functions compiled into them). The tree's own
cache file is named after a digest of ``search.py`` and this file (``envs.common.fastsearch.kernels``).
"""

from __future__ import annotations

from array import array
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from envs.battle_sheep.actions import (
    BUILD,
    EMPTY,
    MAX_MOVE,
    MOVE,
    NO_PASTURE,
    OVER,
    PLACE,
    SHEEP_PER_PLAYER,
    TILES_PER_PLAYER,
)
from envs.battle_sheep.observation import (
    largest_herd,
    mask_tiles,
    observe_into,
    outer_border,
    place_tile,
    slide,
    stack_can_move,
    zero,
)
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState
from envs.common.fastrng import below
from envs.common.game import TERMINAL
from envs.common.jit import refcount_jit
from envs.common.vector import BatchedGame

MAX_STACKS = SHEEP_PER_PLAYER
"""A seat never has more stacks than sheep."""
MAX_SPANS = 6 * MAX_STACKS
"""The most runs of set entries in a mask row: one per (stack, direction)."""


class BattleSheepBatchedState(NamedTuple):
    """B Battle Sheep games; row ``b`` of every field is game ``b`` (see the module docstring)."""

    cells: np.ndarray  # (B, N) int8: NO_PASTURE, EMPTY or the seat of the stack there
    heights: np.ndarray  # (B, N) int8
    stacks: np.ndarray  # (B, n, 16) int64: each seat's stack cells, in the order first occupied
    num_stacks: np.ndarray  # (B, n) int64
    tiles_left: np.ndarray  # (B, n) int8
    phase: np.ndarray  # (B,) int64: BUILD, PLACE, MOVE, OVER
    to_move: np.ndarray  # (B,) int64: the mover (when over: as the reference keeps it)
    stacks_placed: np.ndarray  # (B,) int64
    can_move: np.ndarray  # (B, n) bool: False once a seat was found blocked
    num_pasture: np.ndarray  # (B,) int64
    pasture: np.ndarray  # (B, 16n) int64: the pasture's cells, in the reference's order
    extent: np.ndarray  # (B, 6) int64: min q, max q, min r, max r, min s, max s of the pasture
    on_border: np.ndarray  # (B, N) bool: pasture on the outside border (set when the pasture is complete)
    plies: np.ndarray  # (B,) int64: decisions played (the AEC env's truncation count)
    last_action: np.ndarray  # (B,) int64
    rng: np.ndarray  # (B,) uint64: the row's SplitMix64 generator


class Tables(NamedTuple):
    """What the kernels read besides the state: the canvas's tables (``observation.GridTables``), the options, and
    the engine's work buffers (its kernels run one call at a time per engine). One flat ``NamedTuple`` of arrays and
    scalars, so that every kernel takes the same two objects (the state and these) and numba's parallel kernels could
    take it too (they cannot take a nested tuple)."""

    nbr: np.ndarray
    """(N, 6) int64: the neighbour per direction, -1 off the canvas."""
    tiles: np.ndarray
    """(3N, 4) int64: the cells of tile action ``3a + o`` (the anchor first), all -1 where it leaves the canvas."""
    cell_tiles: np.ndarray
    """(N, 12) int64: the on-canvas tile actions holding each cell, padded with -1."""
    centre: int
    """The canvas's centre cell (the first tile goes round it)."""
    q: np.ndarray
    """(N,) int64: each cell's axial q."""
    r: np.ndarray
    """(N,) int64: each cell's axial r."""
    cell_at: np.ndarray
    """((2R+1)^2,) int64: the cell at (q, r), -1 off the canvas (``GridTables.cell_at``)."""
    radius: int
    """The canvas radius R."""
    square: np.ndarray
    """(N,) int64: each cell's flat index on the observation's square."""
    canvas: np.ndarray
    """((2R+1)^2,) float32: observation plane 0."""
    num_players: int
    """Seats n."""
    splits: bool
    """``end_rule="splits"``: the seat to move that cannot move ends the game."""
    total_tiles: int
    """Tiles in the pasture (4 cells each): the build phase ends when all are laid."""
    random_pasture: bool
    """``pasture="random"``: a new game's pasture is built by random placements (:func:`_reset_kernel`)."""
    max_plies: int
    """The AEC env's ply cap (``max_game_length``): a live row reaching it is cut (``mover_row`` -1)."""
    work_code: np.ndarray
    """(N,) int8 work: ``observation.mask_tiles``'s cell codes."""
    work_near: np.ndarray
    """(N,) int64 work: ``observation.mask_tiles``'s cells next to the pasture."""
    work_tile_ok: np.ndarray
    """(3N,) bool work: :func:`legal_tiles_row`'s tile mask."""
    work_list: np.ndarray
    """(3N,) int64 work: the legal tiles or stack cells :func:`random_action_row` (and a random build) draws from."""
    work_seen: np.ndarray
    """(N,) bool work: the flood fills' marks (largest herd, outer border)."""
    work_todo: np.ndarray
    """(N,) int64 work: the flood fills' stack."""
    work_spans: np.ndarray
    """(2, MAX_SPANS) int64 work: :func:`legal_row`'s spans (starts, lengths)."""
    work_after: np.ndarray
    """(N,) int8 work: the greedy's cells after a move."""
    work_stacks: np.ndarray
    """(n,) int64 work: the greedy's stack counts after a move."""
    work_result: np.ndarray
    """(n,) float64 work: the greedy's final result of a move that ends the game."""
    work_actions: np.ndarray
    """(M,) int64 work: the greedy's legal actions (M: the most legal actions of a phase, at least 3N)."""
    work_scores: np.ndarray
    """(M,) float64 work: the greedy's scores."""
    work_best: np.ndarray
    """(M,) int64 work: the greedy's best actions."""


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


# ----- one position's helpers -----------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _next_seat(seat, n):
    return 0 if seat + 1 == n else seat + 1


@njit(cache=True, inline="always")
def _has_move(cells, heights, stack_cells, count, nbr):
    """Whether the seat whose stacks are ``stack_cells[:count]`` can move (rules.has_move; ``cells``, ``heights``:
    one row)."""
    for i in range(count):
        if stack_can_move(cells, heights, nbr, stack_cells[i]):
            return True
    return False


@refcount_jit
def _next_mover(cells, heights, stacks, num_stacks, can_move, nbr, first, n, splits):
    """(the seat to move, whether the game is over) after a move, from seat ``first`` clockwise, skipping blocked
    seats (whose ``can_move`` it clears); over if nobody can move (rules.advance_mover; ``splits``: the seat to
    move that cannot move ends the game, and stays the mover). Seat -1: over, the mover unchanged. One row's
    arrays."""
    seat = first if first < n else first - n
    if splits:
        if _has_move(cells, heights, stacks[seat], num_stacks[seat], nbr):
            return seat, False
        can_move[seat] = False
        return seat, True
    for _ in range(n):
        if can_move[seat]:
            if _has_move(cells, heights, stacks[seat], num_stacks[seat], nbr):
                return seat, False
            can_move[seat] = False
        seat = _next_seat(seat, n)
    return -1, True


@njit(cache=True, inline="always")
def _listed(mask, out):
    """The indices of ``mask``'s set entries in order into ``out``; returns how many."""
    count = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            out[count] = i
            count += 1
    return count


@refcount_jit
def _final_returns(cells, num_stacks, to_move, n, splits, nbr, seen, todo, out):
    """The returns of a finished position into ``out`` (rules.returns): one row's ``cells`` and ``num_stacks``,
    and ``to_move``, the seat whose turn ended the game (the loser under ``splits``). ``seen``, ``todo``: the
    largest herd's scratch."""
    for s in range(n):
        out[s] = 0.0
    if splits:
        out[0] = 1.0
        out[1] = 1.0
        out[to_move] = -1.0
        return
    pastures = np.empty(n, dtype=np.int64)
    herds = np.empty(n, dtype=np.int64)
    for s in range(n):
        pastures[s] = num_stacks[s]
        herds[s] = largest_herd(cells, nbr, s, seen, todo)
    for i in range(n):
        for j in range(i + 1, n):
            if pastures[i] > pastures[j] or (pastures[i] == pastures[j] and herds[i] > herds[j]):
                out[i] += 1.0
                out[j] -= 1.0
            elif pastures[j] > pastures[i] or (pastures[j] == pastures[i] and herds[j] > herds[i]):
                out[j] += 1.0
                out[i] -= 1.0
    for s in range(n):
        out[s] /= n - 1


# ----- functions on one row of the batch ------------------------------------------------------------------------------
@refcount_jit
def _set_legal_row(st, tab, b, out, span_start, span_len):
    """Set row ``b``'s legal actions in ``out`` (its mask, all zeros before) and record the spans of ``out`` it may
    have set (``span_start[i]``, ``span_len[i]``; every entry of a move span is set); returns how many spans, so
    that the next call can clear just those instead of the whole row."""
    n = st.cells.shape[1]
    ph = st.phase[b]
    seat = st.to_move[b]
    m = st.num_pasture[b]
    num_stacks = st.num_stacks[b, seat]
    cells = st.cells[b]
    heights = st.heights[b]
    pasture = st.pasture[b]
    on_border = st.on_border[b]
    stacks = st.stacks[b, seat]
    tiles, cell_tiles, nbr, centre = tab.tiles, tab.cell_tiles, tab.nbr, tab.centre
    code, near = tab.work_code, tab.work_near
    count = 0
    if ph == BUILD:
        mask_tiles(cells, pasture, m, m, tiles, cell_tiles, nbr, centre, code, near, out)
        span_start[0] = 0
        span_len[0] = 3 * n
        count = 1
    elif ph == PLACE:
        for i in range(m):
            c = pasture[i]
            if on_border[c] and cells[c] == EMPTY:
                out[3 * n + c] = True
        span_start[0] = 3 * n
        span_len[0] = n
        count = 1
    elif ph == MOVE:
        for i in range(num_stacks):
            c = stacks[i]
            h = np.int64(heights[c])
            if h < 2:
                continue
            for d in range(6):
                j = nbr[c, d]
                if j >= 0 and cells[j] == EMPTY:
                    start = 4 * n + (c * 6 + d) * MAX_MOVE
                    for k in range(h - 1):
                        out[start + k] = True
                    span_start[count] = start
                    span_len[count] = h - 1
                    count += 1
    return count


@refcount_jit
def legal_tiles_row(st, tab, b, out):
    """The legal tile placements of row ``b`` (in the build phase) in id order into ``out`` (int64, at least 3N);
    returns how many: the legal list the random build and the random playouts draw from (``below(count)``, as
    ``rules.py`` draws ``integers(count)`` over ``legal_actions``), and the search's candidates there."""
    m = st.num_pasture[b]
    tile_ok = tab.work_tile_ok
    zero(tile_ok)
    mask_tiles(
        st.cells[b],
        st.pasture[b],
        m,
        m,
        tab.tiles,
        tab.cell_tiles,
        tab.nbr,
        tab.centre,
        tab.work_code,
        tab.work_near,
        tile_ok,
    )
    return _listed(tile_ok, out)


# ----- the row functions of every engine (envs.common.fastsearch.ROW_FUNCTIONS) -----------------------------------
@njit(cache=True, inline="always")
def mover_row(st, tab, b):
    """The seat to move in row ``b``, -1 when over or at the ply cap (never reached: every move fills a pasture)."""
    phase = st.phase[b]
    plies = st.plies[b]
    seat = st.to_move[b]
    cap = tab.max_plies
    return -1 if phase == OVER or plies >= cap else seat


@refcount_jit
def legal_row(st, tab, b, out):
    """The mover's legal mask of row ``b`` into ``out`` (bool, 94N; all False when over); returns how many are
    legal."""
    zero(out)
    starts = tab.work_spans[0]
    lens = tab.work_spans[1]
    spans = _set_legal_row(st, tab, b, out, starts, lens)
    count = 0
    for i in range(spans):
        for k in range(starts[i], starts[i] + lens[i]):
            if out[k]:
                count += 1
    return count


@njit(cache=True, inline="always")
def apply_row(st, tab, b, a):
    """Play legal action ``a`` for the mover of live row ``b`` (rules.apply; no chance)."""
    num_cells = st.cells.shape[1]
    seat = st.to_move[b]
    ph = st.phase[b]
    cells, heights, stacks, num_stacks, can_move = st.cells, st.heights, st.stacks, st.num_stacks, st.can_move
    phase, to_move, stacks_placed, tiles_left = st.phase, st.to_move, st.stacks_placed, st.tiles_left
    num_pasture, pasture, extent, on_border = st.num_pasture, st.pasture, st.extent, st.on_border
    n, splits, nbr = tab.num_players, tab.splits, tab.nbr
    tiles, q, r, cell_at, radius, total_tiles = tab.tiles, tab.q, tab.r, tab.cell_at, tab.radius, tab.total_tiles
    seen, todo = tab.work_seen, tab.work_todo
    st.plies[b] += 1
    st.last_action[b] = a
    first = -1  # the seat from which the next mover is sought (the moves)
    if ph == BUILD:
        place_tile(cells, num_pasture, pasture, extent, b, a, tiles, q, r, cell_at, radius)
        tiles_left[b, seat] -= 1
        if num_pasture[b] == 4 * total_tiles:
            phase[b] = PLACE
            outer_border(cells[b], nbr, seen, todo, on_border[b])
            to_move[b] = 0
        else:
            to_move[b] = _next_seat(seat, n)
    elif ph == PLACE:
        c = a - 3 * num_cells
        cells[b, c] = seat
        heights[b, c] = SHEEP_PER_PLAYER
        stacks[b, seat, num_stacks[b, seat]] = c
        num_stacks[b, seat] += 1
        stacks_placed[b] += 1
        if stacks_placed[b] == n:
            phase[b] = MOVE
            first = 0
        else:
            to_move[b] = seat + 1
    else:
        rest = a - 4 * num_cells
        cell_dir = rest // MAX_MOVE
        k = rest - cell_dir * MAX_MOVE + 1
        c = cell_dir // 6
        d = cell_dir - 6 * c
        dest = slide(cells[b], nbr, c, d)
        heights[b, c] -= k
        cells[b, dest] = seat
        heights[b, dest] = k
        stacks[b, seat, num_stacks[b, seat]] = dest
        num_stacks[b, seat] += 1
        first = seat + 1
    if first >= 0:
        mover, over = _next_mover(cells[b], heights[b], stacks[b], num_stacks[b], can_move[b], nbr, first, n, splits)
        if mover >= 0:
            to_move[b] = mover
        if over:
            phase[b] = OVER


@njit(cache=True, inline="always")
def returns_row(st, tab, b, out):
    """Row ``b``'s returns per seat into ``out`` (float64; zeros while live): rules.returns."""
    over = st.phase[b] == OVER
    cells, num_stacks, seat = st.cells[b], st.num_stacks[b], st.to_move[b]
    n, splits, nbr, seen, todo = tab.num_players, tab.splits, tab.nbr, tab.work_seen, tab.work_todo
    if over:
        _final_returns(cells, num_stacks, seat, n, splits, nbr, seen, todo, out)
    else:
        for s in range(n):
            out[s] = 0.0


@refcount_jit  # its row copies take array views, which numba counts
def copy_row(st, tab, src, dst):
    """Row ``src`` of every field but the generator into row ``dst``."""
    cells, heights, stacks, num_stacks, tiles_left = st.cells, st.heights, st.stacks, st.num_stacks, st.tiles_left
    phase, to_move, stacks_placed, can_move = st.phase, st.to_move, st.stacks_placed, st.can_move
    num_pasture, pasture, extent, on_border = st.num_pasture, st.pasture, st.extent, st.on_border
    plies, last_action = st.plies, st.last_action
    cells[dst] = cells[src]
    heights[dst] = heights[src]
    stacks[dst] = stacks[src]
    num_stacks[dst] = num_stacks[src]
    tiles_left[dst] = tiles_left[src]
    phase[dst] = phase[src]
    to_move[dst] = to_move[src]
    stacks_placed[dst] = stacks_placed[src]
    can_move[dst] = can_move[src]
    num_pasture[dst] = num_pasture[src]
    pasture[dst] = pasture[src]
    extent[dst] = extent[src]
    on_border[dst] = on_border[src]
    plies[dst] = plies[src]
    last_action[dst] = last_action[src]


@njit(cache=True, inline="always")
def random_action_row(st, tab, b):
    """A uniformly random legal action of live row ``b``, one draw from ``st.rng[b]`` (``MCTSPolicy``'s default
    rollout, the search's playout): ``below(count)`` over the legal tiles in id order, the free border cells in
    pasture order, or the moves by stack (in the order first occupied), direction and count."""
    num_cells = st.cells.shape[1]
    ph = st.phase[b]
    seat = st.to_move[b]
    m = st.num_pasture[b]
    num_stacks = st.num_stacks[b, seat]
    cells = st.cells[b]
    heights = st.heights[b]
    pasture = st.pasture[b]
    on_border = st.on_border[b]
    stacks = st.stacks[b, seat]
    rng = st.rng
    nbr, work = tab.nbr, tab.work_list
    tiles, cell_tiles, centre, code, near, tile_ok = (
        tab.tiles,
        tab.cell_tiles,
        tab.centre,
        tab.work_code,
        tab.work_near,
        tab.work_tile_ok,
    )
    if ph == BUILD:  # legal_tiles_row's steps: calling it from a branch would cost every call (module docstring)
        zero(tile_ok)
        mask_tiles(cells, pasture, m, m, tiles, cell_tiles, nbr, centre, code, near, tile_ok)
        return work[below(rng, b, _listed(tile_ok, work))]
    if ph == PLACE:
        count = 0
        for i in range(m):
            c = pasture[i]
            if on_border[c] and cells[c] == EMPTY:
                work[count] = c
                count += 1
        return 3 * num_cells + work[below(rng, b, count)]
    total = 0
    for i in range(num_stacks):
        c = stacks[i]
        h = np.int64(heights[c])
        if h < 2:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and cells[j] == EMPTY:
                total += h - 1
    k = np.int64(below(rng, b, total))  # below returns a uint64: int64 arithmetic below
    for i in range(num_stacks):
        c = stacks[i]
        h = np.int64(heights[c])
        if h < 2:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and cells[j] == EMPTY:
                if k < h - 1:
                    return 4 * num_cells + (c * 6 + d) * MAX_MOVE + k
                k -= h - 1
    return -1


# ----- kernels over the batch -----------------------------------------------------------------------------------------
@refcount_jit
def _reset_kernel(st, tab, rows):
    """A new game in each of ``rows`` (rules.initial_state); ``tab.random_pasture``: the tiles laid by uniformly
    random legal placements drawn from the row's generator, then the game starts at stack placement (plies 0)."""
    legal = tab.work_list
    for i in range(rows.shape[0]):
        b = rows[i]
        st.cells[b, :] = NO_PASTURE
        st.heights[b, :] = 0
        st.num_stacks[b, :] = 0
        st.tiles_left[b, :] = TILES_PER_PLAYER
        st.phase[b] = BUILD
        st.to_move[b] = 0
        st.stacks_placed[b] = 0
        st.can_move[b, :] = True
        st.num_pasture[b] = 0
        st.extent[b, :] = 0
        st.on_border[b, :] = False
        st.plies[b] = 0
        st.last_action[b] = -1
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
        num_spans[b] = _set_legal_row(st, tab, b, row, span_start[b], span_len[b])


@refcount_jit
def _observe_kernel(st, tab, seats, out):
    lib = np.empty(st.cells.shape[1], dtype=np.int64)
    for b in range(seats.shape[0]):
        observe_into(
            st.cells[b],
            st.heights[b],
            st.tiles_left[b],
            st.phase[b],
            seats[b],
            tab.num_players,
            st.pasture[b],
            st.num_pasture[b],
            tab.square,
            tab.canvas,
            tab.nbr,
            lib,
            out[b],
        )


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
@njit(cache=True, inline="always")
def _open_count(cells, nbr, c):
    """Free pastures next to cell ``c`` (``cells``: one row)."""
    k = 0
    for d in range(6):
        j = nbr[c, d]
        if j >= 0 and cells[j] == EMPTY:
            k += 1
    return k


@njit(cache=True, inline="always")
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
                        _final_returns(after, stacks_after, (seat + 1) % n, n, splits, nbr, seen, todo, result)
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
    reference: BattleSheepGame

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.num_cells = self.reference.grid.num_cells
        self.tables = _make_tables(self.reference)
        """The kernels' constants and work buffers (:class:`Tables`): one call at a time per engine."""
        self._mask_out: np.ndarray | None = None
        """The array the last legal_mask call wrote, and the spans it set per row (see :meth:`legal_mask`)."""
        self._spans = (
            np.zeros((0, MAX_SPANS), dtype=np.int64),
            np.zeros((0, MAX_SPANS), dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )

    # ----- state -----------------------------------------------------------------------------------------------
    def new_state(self, batch: int) -> BattleSheepBatchedState:
        """Zeroed state for ``batch`` games (call :meth:`reset_rows` before use)."""
        n, cells = self.num_players, self.num_cells

        def ints(*shape: int) -> np.ndarray:
            return np.zeros((batch, *shape), dtype=np.int64)

        return BattleSheepBatchedState(
            cells=np.full((batch, cells), NO_PASTURE, dtype=np.int8),
            heights=np.zeros((batch, cells), np.int8),
            stacks=ints(n, MAX_STACKS),
            num_stacks=ints(n),
            tiles_left=np.zeros((batch, n), np.int8),
            phase=ints(),
            to_move=ints(),
            stacks_placed=ints(),
            can_move=np.ones((batch, n), dtype=bool),
            num_pasture=ints(),
            pasture=ints(4 * self.tables.total_tiles),
            extent=ints(6),
            on_border=np.zeros((batch, cells), dtype=bool),
            plies=ints(),
            last_action=ints(),
            rng=np.zeros(batch, dtype=np.uint64),
        )

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
        _observe_kernel(state, self.tables, seats, out.reshape(out.shape[0], self.observation_shape[0], -1))

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
        """Row ``row`` as a ``rules.BattleSheepState`` (its generator is not carried over)."""
        n = self.num_players
        s = BattleSheepState(n, self.num_cells)
        s.phase = int(state.phase[row])
        s.to_move = int(state.to_move[row])
        s.cells = array("b", state.cells[row].tobytes())
        s.heights = array("b", state.heights[row].tobytes())
        s.stacks = [state.stacks[row, seat, : state.num_stacks[row, seat]].tolist() for seat in range(n)]
        s.tiles_left = state.tiles_left[row].tolist()
        s.stacks_placed = int(state.stacks_placed[row])
        s.can_move = state.can_move[row].tolist()
        s.num_pasture = int(state.num_pasture[row])
        s.pasture = state.pasture[row, : s.num_pasture].tolist()
        s.extent = tuple(int(x) for x in state.extent[row]) if s.num_pasture else None
        s.plies = int(state.plies[row])
        s.last_action = int(state.last_action[row])
        s.border = tuple(int(c) for c in np.flatnonzero(state.on_border[row])) if s.phase != BUILD else ()
        return s

    def from_reference(self, reference_state: BattleSheepState, state: BattleSheepBatchedState, row: int) -> None:
        """Write a ``rules.BattleSheepState`` into row ``row`` (its generator kept)."""
        ref, s = self.reference, reference_state
        state.phase[row] = s.phase
        state.to_move[row] = s.to_move
        state.cells[row] = np.frombuffer(array("b", s.cells), dtype=np.int8)
        state.heights[row] = np.frombuffer(array("b", s.heights), dtype=np.int8)
        state.num_stacks[row] = [len(cells) for cells in s.stacks]
        state.stacks[row] = 0
        for seat, cells in enumerate(s.stacks):
            state.stacks[row, seat, : len(cells)] = cells
        state.tiles_left[row] = s.tiles_left
        state.stacks_placed[row] = s.stacks_placed
        state.can_move[row] = s.can_move
        state.num_pasture[row] = s.num_pasture
        state.pasture[row] = 0
        state.pasture[row, : len(s.pasture)] = s.pasture
        state.extent[row] = s.extent if s.extent is not None else (ref.extent(s.pasture) if s.pasture else (0,) * 6)
        state.on_border[row] = False
        if s.phase != BUILD:
            state.on_border[row, list(ref.outer_border(s) if not s.border else s.border)] = True
        state.plies[row] = s.plies
        state.last_action[row] = s.last_action
