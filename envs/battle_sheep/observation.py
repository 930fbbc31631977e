"""What a Battle Sheep seat sees and may do: the observation planes (layout in RULES.md) and the legal mask, the
readable definitions and the compiled kernels that build them, the symmetries of the canvas, and the action
layout and cell graph that networks read.

The compiled per-position kernels (observation, legal mask, slides, herds, the outer border, the frame) are shared
by the AEC engine (``rules.BattleSheepGame``) and the batched engine (``fast.py``). A position is a few flat arrays:
``cells`` (int8 per canvas cell: ``NO_PASTURE``, ``EMPTY`` or the seat whose stack stands there) and ``heights``
(int8), read with the canvas's tables (:class:`GridTables`). The readable definitions (:func:`observation_numpy`,
:func:`legal_mask_python`, ``HexGrid.outer_border``) are tested equal to the compiled ones.

numba's on-disk cache watches only the file of the function it compiled: the constants below are frozen into it,
and ``fast.py``'s cached kernels, which call these, do not notice edits here (after editing this file, touch
``fast.py`` and ``search.py`` or clear ``envs/battle_sheep/__pycache__``).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, NamedTuple

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
from envs.common.game import CellGraph, Symmetry
from envs.common.hexgrid import DIRECTIONS, HexGrid, transforms
from envs.common.jit import refcount_jit

if TYPE_CHECKING:
    from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState

_SYMMETRIES: dict[tuple[int, int], tuple[Symmetry, ...]] = {}
"""``symmetries`` per (num_players, canvas_radius), built on first use."""


def arrays_of(state: BattleSheepState) -> tuple[np.ndarray, np.ndarray]:
    """``state.cells`` and ``state.heights`` as int8 numpy arrays sharing their memory (for the compiled kernels),
    kept on the state: made again only when those arrays were replaced (or the state was copied or unpickled,
    which copies the views apart from the arrays)."""
    views = state._views
    if views is not None:
        cells, heights = views[0].base, views[1].base
        if cells is not None and heights is not None and cells.obj is state.cells and heights.obj is state.heights:
            return views
    views = state._views = (np.frombuffer(state.cells, dtype=np.int8), np.frombuffer(state.heights, dtype=np.int8))
    return views


class GridTables:
    """The canvas's tables as the kernels read them (int64 arrays)."""

    def __init__(self, grid: HexGrid, tile_cells: list):
        n = grid.num_cells
        self.num_cells = n
        self.radius = grid.radius
        self.nbr = np.ascontiguousarray(grid.neighbors, dtype=np.int64)
        """(N, 6) neighbour per direction, -1 off the canvas."""
        self.square = np.ascontiguousarray(grid.square_index, dtype=np.int64)
        """(N,) each cell's flat index on the square embedding."""
        self.tiles = np.full((3 * n, 4), -1, dtype=np.int64)
        """(3N, 4) the cells of tile action ``3a + o`` (the anchor first), all -1 where it leaves the canvas."""
        for a, cells in enumerate(tile_cells):
            if cells is not None:
                self.tiles[a] = cells
        self.centre = grid.index[(0, 0)]
        self.q = np.array([q for q, _ in grid.coords], dtype=np.int64)
        self.r = np.array([r for _, r in grid.coords], dtype=np.int64)
        side = 2 * grid.radius + 1
        self.cell_at = np.full(side * side, -1, dtype=np.int64)
        """``cell_at[(r + R) * (2R + 1) + q + R]``: the cell at (q, r), -1 off the canvas."""
        self.cell_at[(self.r + grid.radius) * side + self.q + grid.radius] = np.arange(n)
        holding = [[] for _ in range(n)]
        for t in range(3 * n):
            if self.tiles[t, 0] >= 0:
                for c in self.tiles[t]:
                    holding[c].append(t)
        self.cell_tiles = np.full((n, 12), -1, dtype=np.int64)
        """(N, 12) the on-canvas tile actions holding each cell (up to 12), padded with -1."""
        for c, ts in enumerate(holding):
            self.cell_tiles[c, : len(ts)] = ts
        self.canvas = np.zeros(side * side, dtype=np.float32)
        """Observation plane 0: 1 on the canvas's squares."""
        self.canvas[self.square] = 1.0
        self.all_cells = np.arange(n, dtype=np.int64)


# ----- slides and moves ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def slide(cells, nbr, c, d):
    """Where sheep leaving cell ``c`` in direction ``d`` stop: the last free pasture before a stack, a non-pasture
    cell or the canvas edge; -1 if the first cell that way is not free (no such move)."""
    dest = -1
    j = nbr[c, d]
    while j >= 0 and cells[j] == EMPTY:
        dest = j
        j = nbr[j, d]
    return dest


@njit(cache=True, inline="always")
def stack_can_move(cells, heights, nbr, c):
    """Whether the stack on ``c`` can split: 2 sheep or more and a free pasture next to it."""
    if heights[c] < 2:
        return False
    for d in range(6):
        j = nbr[c, d]
        if j >= 0 and cells[j] == EMPTY:
            return True
    return False


@njit(cache=True, inline="always")
def mask_moves_from(cells, heights, nbr, c, move_base, out):
    """Set the moves of the stack on ``c`` in the mask ``out`` (1 to h - 1 sheep in every open direction)."""
    h = np.int64(heights[c])
    if h < 2:
        return
    for d in range(6):
        j = nbr[c, d]
        if j >= 0 and cells[j] == EMPTY:
            start = move_base + (c * 6 + d) * MAX_MOVE
            for k in range(h - 1):
                out[start + k] = 1


# ----- the legal mask -----------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def zero(out):
    """Zero a 1-D array (a loop from index 0 is vectorised; a slice assignment or a loop from another start ran
    several times slower)."""
    for a in range(out.shape[0]):
        out[a] = 0


@refcount_jit
def mask_tiles(cells, where, num_where, num_pasture, tiles, cell_tiles, nbr, centre, code, near, out):
    """Set the legal tile placements in ``out`` (zero there before): on the canvas, no overlap with the pasture,
    sharing an edge with it (the first tile: the 3 orientations round the centre). ``where[:num_where]``: cells
    that hold the pasture (and maybe others); ``code`` (N int8) and ``near`` (N int64): scratch.

    With none of its cells on the pasture, a tile shares an edge with it exactly when one of its cells is next
    to a pasture cell. So with ``code`` 2 on the pasture, 1 next to it and 0 elsewhere, a tile is legal exactly
    when the largest code of its cells is 1, and only the tiles holding a cell next to the pasture
    (``cell_tiles``: the tiles holding each cell) need a look."""
    if num_pasture == 0:
        for o in range(3):
            t = 3 * centre + o
            if tiles[t, 0] >= 0:
                out[t] = 1
        return
    zero(code)
    for i in range(num_where):
        c = where[i]
        if cells[c] != NO_PASTURE:
            code[c] = 2
    count = 0
    for i in range(num_where):
        c = where[i]
        if code[c] != 2:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and code[j] == 0:
                code[j] = 1
                near[count] = j
                count += 1
    for i in range(count):
        c = near[i]
        for x in range(cell_tiles.shape[1]):
            t = cell_tiles[c, x]
            if t < 0:
                break
            m = max(max(code[tiles[t, 0]], code[tiles[t, 1]]), max(code[tiles[t, 2]], code[tiles[t, 3]]))
            if m == 1:
                out[t] = 1


@refcount_jit
def legal_mask_into(
    cells,
    heights,
    phase,
    seat,
    num_pasture,
    on_border,
    where,
    num_where,
    tiles,
    cell_tiles,
    nbr,
    centre,
    code,
    near,
    out,
):
    """The whole legal mask of ``seat`` (the mover) into ``out`` (int8 or bool, length 94N; zeros when over).
    ``on_border``: per cell, on the outside border (read in the stack-placement phase); ``where[:num_where]``
    cells that hold the pasture (and maybe others), e.g. all cells."""
    n = cells.shape[0]
    zero(out)
    if phase == BUILD:
        mask_tiles(cells, where, num_where, num_pasture, tiles, cell_tiles, nbr, centre, code, near, out)
    elif phase == PLACE:
        for i in range(num_where):
            c = where[i]
            if on_border[c] and cells[c] == EMPTY:
                out[3 * n + c] = 1
    elif phase == MOVE:
        for i in range(num_where):
            c = where[i]
            if cells[c] == seat:
                mask_moves_from(cells, heights, nbr, c, 4 * n, out)


# ----- the observation ----------------------------------------------------------------------------------------------
@refcount_jit
def observe_into(cells, heights, tiles_left, phase, seat, num_players, where, num_where, square, canvas, nbr, lib, out):
    """The planes of ``rules.BattleSheepGame.observation_numpy`` from ``seat``'s side into ``out`` (float32,
    (15 + 3n, (2R+1)^2)). ``where[:num_where]``: cells that hold the pasture (and maybe others); ``canvas``: plane
    0 (1 on canvas cells); ``lib``: scratch of N int64."""
    n = num_players
    planes = out.shape[0]
    width = out.shape[1]
    zero_value = np.float32(0.0)
    one = np.float32(1.0)
    for k in range(width):
        out[0, k] = canvas[k]
    for p in range(1, planes):
        for k in range(width):
            out[p, k] = zero_value
    for i in range(num_where):
        c = where[i]
        v = cells[c]
        if v == NO_PASTURE:
            continue
        k = square[c]
        out[1, k] = one
        if v == EMPTY:
            out[2, k] = one
        else:
            rel = v - seat
            if rel < 0:
                rel += n
            out[3 + rel, k] = one
            out[3 + n + rel, k] = heights[c] * (1.0 / SHEEP_PER_PLAYER)
    for s in range(n):
        if tiles_left[s]:
            rel = s - seat
            if rel < 0:
                rel += n
            value = np.float32(tiles_left[s] / TILES_PER_PLAYER)
            for k in range(width):
                out[3 + 2 * n + rel, k] = value
    if phase != OVER:
        for k in range(width):
            out[3 + 3 * n + phase, k] = one
    if phase == BUILD:
        return
    # derived planes: free neighbours, where each slide stops
    free_plane = 6 + 3 * n
    for i in range(num_where):
        c = where[i]
        if cells[c] == NO_PASTURE:
            continue
        count = 0
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and cells[j] == EMPTY:
                count += 1
        lib[c] = count
        out[free_plane, square[c]] = count * (1.0 / 6.0)
    for i in range(num_where):
        c = where[i]
        v = cells[c]
        if v < 0 or heights[c] < 2:
            continue
        for d in range(6):
            dest = slide(cells, nbr, c, d)
            if dest < 0:
                continue
            if v == seat:
                out[free_plane + 1 + d, square[c]] = (1.0 + lib[dest]) * (1.0 / 7.0)
                out[free_plane + 7, square[dest]] = one
            else:
                out[free_plane + 8, square[dest]] = one


# ----- scoring ------------------------------------------------------------------------------------------------------
@refcount_jit
def largest_herd(cells, nbr, seat, seen, stack):
    """Size of ``seat``'s largest group of edge-connected cells. ``seen`` (N bool), ``stack`` (N int64): scratch."""
    n = cells.shape[0]
    for c in range(n):
        seen[c] = False
    best = 0
    for start in range(n):
        if cells[start] != seat or seen[start]:
            continue
        seen[start] = True
        stack[0] = start
        top = 1
        size = 0
        while top > 0:
            top -= 1
            c = stack[top]
            size += 1
            for d in range(6):
                j = nbr[c, d]
                if j >= 0 and not seen[j] and cells[j] == seat:
                    seen[j] = True
                    stack[top] = j
                    top += 1
        if size > best:
            best = size
    return best


# ----- the build phase: outer border and the frame ------------------------------------------------------------------
@refcount_jit
def outer_border(cells, nbr, exterior, stack, out):
    """``out[c]``: pasture cell ``c`` touches the unbounded exterior (off the canvas, or a non-pasture cell joined
    to it through non-pasture cells), not only an interior hole. ``exterior`` (N bool), ``stack`` (N int64):
    scratch."""
    n = cells.shape[0]
    top = 0
    for c in range(n):
        exterior[c] = False
    for c in range(n):
        if cells[c] != NO_PASTURE:
            continue
        for d in range(6):
            if nbr[c, d] < 0:
                exterior[c] = True
                stack[top] = c
                top += 1
                break
    while top > 0:
        top -= 1
        c = stack[top]
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and not exterior[j] and cells[j] == NO_PASTURE:
                exterior[j] = True
                stack[top] = j
                top += 1
    for c in range(n):
        out[c] = False
        if cells[c] == NO_PASTURE:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j < 0 or exterior[j]:
                out[c] = True
                break


@refcount_jit
def hexagon_centre(q0, q1, r0, r1, s0, s1):
    """``envs.common.hexgrid.hexagon_around``'s centre (cq, cr) for these cube-coordinate extents."""
    radius = max(
        max(-((q0 - q1) // 2), -((r0 - r1) // 2)),
        max(max(-((s0 - s1) // 2), -(-(q1 + r1 + s1) // 3)), -((q0 + r0 + s0) // 3)),
    )
    best_key = -1
    best_q = 0
    best_r = 0
    for cr in range(r1 - radius, r0 + radius + 1):
        for cq in range(q1 - radius, q0 + radius + 1):
            cs = -cq - cr
            if cs < s1 - radius or cs > s0 + radius:
                continue
            key = (2 * cq - q0 - q1) ** 2 + (2 * cr - r0 - r1) ** 2 + (2 * cs - s0 - s1) ** 2
            if best_key < 0 or key < best_key:  # scanned by r, then q: ties keep the smallest (r, q)
                best_key = key
                best_q = cq
                best_r = cr
    return best_q, best_r


@refcount_jit
def place_tile(cells, num_pasture, pasture, extent, b, action, tiles, q, r, cell_at, radius):
    """Lay tile ``action`` (legal) in row ``b`` and re-centre the frame on the pasture's smallest enclosing hexagon:
    ``rules.PastureBuild.place_tile`` (the same cells, pasture order and extent; tested equal) on the rows of
    ``cells`` (B, N) int8, ``num_pasture`` (B,), ``pasture`` (B, >= num_pasture + 4) and ``extent`` (B, 6) (int64;
    read only where ``num_pasture`` > 0). Both engines lay their tiles with it."""
    m = num_pasture[b]
    for i in range(4):
        c = tiles[action, i]
        cells[b, c] = EMPTY
        pasture[b, m + i] = c
        cq = q[c]
        cr = r[c]
        cs = -cq - cr
        if m == 0 and i == 0:
            extent[b, 0] = extent[b, 1] = cq
            extent[b, 2] = extent[b, 3] = cr
            extent[b, 4] = extent[b, 5] = cs
        else:
            extent[b, 0] = min(extent[b, 0], cq)
            extent[b, 1] = max(extent[b, 1], cq)
            extent[b, 2] = min(extent[b, 2], cr)
            extent[b, 3] = max(extent[b, 3], cr)
            extent[b, 4] = min(extent[b, 4], cs)
            extent[b, 5] = max(extent[b, 5], cs)
    m += 4
    num_pasture[b] = m
    cq, cr = hexagon_centre(extent[b, 0], extent[b, 1], extent[b, 2], extent[b, 3], extent[b, 4], extent[b, 5])
    if cq == 0 and cr == 0:
        return
    dq = -cq
    dr = -cr
    extent[b, 0] += dq
    extent[b, 1] += dq
    extent[b, 2] += dr
    extent[b, 3] += dr
    extent[b, 4] -= dq + dr
    extent[b, 5] -= dq + dr
    side = 2 * radius + 1
    for i in range(m):
        cells[b, pasture[b, i]] = NO_PASTURE
    for i in range(m):
        c = pasture[b, i]
        moved = cell_at[(r[c] + dr + radius) * side + q[c] + dq + radius]
        pasture[b, i] = moved
        cells[b, moved] = EMPTY


# ----- the observation and the mask, readable and compiled -----------------------------------------------------
class ViewTables(NamedTuple):
    """What the observation and mask kernels read besides the canvas's tables (``GridTables``), made once per
    game (``BattleSheepGame.view``, :func:`view_tables`)."""

    planes: tuple[int, int]
    """The observation's (planes, squares) before it is shaped (C, H, W)."""
    template: np.ndarray
    """(planes, squares) float32: the observation's constant part (plane 0: the canvas)."""
    no_border: np.ndarray
    """(N,) bool, all False: no pasture border while the pasture is built."""
    tiles_left: dict[tuple[int, ...], np.ndarray]
    """Every tiles-left count as the int8 array the observation kernel reads (made once, not per observation)."""
    code: np.ndarray
    """(N,) int8 work of the mask's tile test."""
    near: np.ndarray
    """(N,) int64 work of the mask's tile test."""
    liberties: np.ndarray
    """(N,) int64 work of the observation's derived planes."""
    pasture: list[Any]
    """``[pasture, on_border, where]``: the last finished pasture, its outside border per cell and its cells, kept
    between calls (:func:`finished_pasture` replaces them in place)."""


def view_tables(tables: GridTables, num_channels: int, num_players: int, square_shape: tuple[int, int]) -> ViewTables:
    """The :class:`ViewTables` of a game with these canvas tables, planes and players."""
    n = tables.num_cells
    squares = square_shape[0] * square_shape[1]
    template = np.zeros((num_channels, squares), np.float32)
    template[0, tables.square] = 1.0
    no_border = np.zeros(n, dtype=np.bool_)
    return ViewTables(
        planes=(num_channels, squares),
        template=template,
        no_border=no_border,
        tiles_left={
            key: np.array(key, dtype=np.int8)
            for key in itertools.product(range(TILES_PER_PLAYER + 1), repeat=num_players)
        },
        code=np.zeros(n, dtype=np.int8),
        near=np.zeros(n, dtype=np.int64),
        liberties=np.zeros(n, dtype=np.int64),
        pasture=[[], no_border, tables.all_cells],
    )


def tiles_left_array(game: BattleSheepGame, state: BattleSheepState) -> np.ndarray:
    """The tiles each seat still has to place, as the int8 array the observation kernels read (one made per count
    when the game was built, not per observation)."""
    tiles_left = game.view.tiles_left.get(tuple(state.tiles_left))
    return np.array(state.tiles_left, dtype=np.int8) if tiles_left is None else tiles_left


def observe(game: BattleSheepGame, state: BattleSheepState, seat: int) -> np.ndarray:
    """The planes of :meth:`observation_numpy`, built by a compiled kernel (``observe_into``); the tests
    check that both agree."""
    out = np.empty(game.view.planes, dtype=np.float32)
    t = game.tables
    cells, heights = arrays_of(state)
    _, where, num_where = finished_pasture(game, state)
    tiles_left = tiles_left_array(game, state)
    observe_into(
        cells,
        heights,
        tiles_left,
        state.phase,
        seat,
        game.num_players,
        where,
        num_where,
        t.square,
        t.canvas,
        t.nbr,
        game.view.liberties,
        out,
    )
    return out.reshape(game.observation_shape)


@refcount_jit
def observe_and_mask_into(
    cells,
    heights,
    tiles_left,
    phase,
    seat,
    num_players,
    num_pasture,
    on_border,
    where,
    num_where,
    tiles,
    cell_tiles,
    square,
    canvas,
    nbr,
    centre,
    code,
    near,
    lib,
    obs_out,
    mask_out,
):
    """:func:`observe_into` and :func:`legal_mask_into` in one call (``seat`` is the mover): each call of a
    compiled kernel from Python costs about a microsecond of argument checks, as much as the mask's work."""
    observe_into(
        cells, heights, tiles_left, phase, seat, num_players, where, num_where, square, canvas, nbr, lib, obs_out
    )
    legal_mask_into(
        cells,
        heights,
        phase,
        seat,
        num_pasture,
        on_border,
        where,
        num_where,
        tiles,
        cell_tiles,
        nbr,
        centre,
        code,
        near,
        mask_out,
    )


def observe_and_mask(game: BattleSheepGame, state: BattleSheepState, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`observe` and :func:`legal_mask` of the mover ``seat`` by one kernel call."""
    obs = np.empty(game.view.planes, dtype=np.float32)
    mask = np.empty(game.num_actions, dtype=np.int8)
    t = game.tables
    cells, heights = arrays_of(state)
    on_border, where, num_where = finished_pasture(game, state)
    tiles_left = tiles_left_array(game, state)
    observe_and_mask_into(
        cells,
        heights,
        tiles_left,
        state.phase,
        seat,
        game.num_players,
        state.num_pasture,
        on_border,
        where,
        num_where,
        t.tiles,
        t.cell_tiles,
        t.square,
        t.canvas,
        t.nbr,
        t.centre,
        game.view.code,
        game.view.near,
        game.view.liberties,
        obs,
        mask,
    )
    return obs.reshape(game.observation_shape), mask


def observation_numpy(game: BattleSheepGame, state: BattleSheepState, seat: int) -> np.ndarray:
    """Planes on the square embedding (see RULES.md), seats rotated so that ``seat`` comes first."""
    n = game.num_players
    obs = game.view.template.copy()
    sq = game.grid.square_index
    cells = np.array(state.cells)
    obs[1, sq] = cells != NO_PASTURE
    obs[2, sq] = cells == EMPTY
    occ = cells >= 0
    if occ.any():
        where = sq[occ]
        rel = (cells[occ] - seat) % n
        obs[3 + rel, where] = 1.0
        obs[3 + n + rel, where] = np.array(state.heights)[occ] * (1.0 / SHEEP_PER_PLAYER)
    for s in range(n):
        if state.tiles_left[s]:
            obs[3 + 2 * n + (s - seat) % n] = state.tiles_left[s] / TILES_PER_PLAYER
    if state.phase != OVER:
        obs[3 + 3 * n + state.phase] = 1.0
    if state.phase != BUILD:
        derived_planes(game, state, seat, cells, obs[6 + 3 * n :])
    return obs.reshape(game.observation_shape)


def derived_planes(
    game: BattleSheepGame, state: BattleSheepState, seat: int, cells: np.ndarray, planes: np.ndarray
) -> None:
    """Fill the derived planes (RULES.md): what a slide leads to, so that a network need not trace rays
    across the board before it can judge a move."""
    sq = game.grid.square_index
    free = np.append(cells == EMPTY, False)
    liberties = free[game.grid.neighbors_padded].sum(axis=1)
    pasture = cells != NO_PASTURE
    planes[0, sq[pasture]] = liberties[pasture] * (1.0 / 6.0)
    for s in range(game.num_players):
        moves = game.legal_moves(state, seat=s)
        if not moves:
            continue
        source, direction, dest, _ = np.array(moves, dtype=np.int64).T
        if s == seat:
            planes[1 + direction, sq[source]] = (1.0 + liberties[dest]) * (1.0 / 7.0)
            planes[7, sq[dest]] = 1.0
        else:
            planes[8, sq[dest]] = 1.0


def symmetries(game: BattleSheepGame, state: BattleSheepState) -> tuple[Symmetry, ...]:
    """The 12 rotations and reflections of the canvas about its centre, in the move phase only.

    The rules are symmetric there (the canvas is a hexagon round the centre). The build phase is not (the
    first tile covers the centre in 3 orientations and the frame's tie-break is not symmetric, RULES.md);
    stack placement is, but averaging a policy over the symmetries in the set-up phases measured worse
    against greedy (RULES.md, "Symmetries").
    """
    if state.phase != MOVE:
        return ()
    key = (game.num_players, game.canvas_radius)
    if key not in _SYMMETRIES:  # shared by every engine of this shape: the harness builds one per game
        tile_by_cells = {frozenset(t): i for i, t in enumerate(game.tile_cells) if t is not None}
        _SYMMETRIES[key] = tuple(symmetry(game, t, tile_by_cells) for t in transforms("free"))
    return _SYMMETRIES[key]


def symmetry(game: BattleSheepGame, point_map: Any, tile_by_cells: dict[frozenset[int], int]) -> Symmetry:
    grid, n, codec = game.grid, game.num_players, game.codec
    cell_map = np.array([grid.index[point_map(c)] for c in grid.coords], dtype=np.int64)
    dir_map = np.array([DIRECTIONS.index(point_map(DIRECTIONS[d])) for d in range(6)], dtype=np.int64)
    side = grid.square_shape[0] * grid.square_shape[1]
    square_map = np.arange(side)
    square_map[grid.square_index] = grid.square_index[cell_map]
    channel_map = np.arange(game.num_channels)
    first_direction_plane = 7 + 3 * n
    channel_map[first_direction_plane : first_direction_plane + 6] = first_direction_plane + dir_map
    source = np.empty(game.num_channels * side, dtype=np.int64)
    target = (channel_map[:, None] * side + square_map[None, :]).ravel()
    source[target] = np.arange(game.num_channels * side)
    actions = np.arange(game.num_actions)
    for i, t in enumerate(game.tile_cells):
        if t is not None:
            actions[i] = tile_by_cells[frozenset(int(cell_map[c]) for c in t)]
    actions[codec.stack_base : codec.move_base] = codec.stack_base + cell_map
    cell, direction, count = np.meshgrid(
        np.arange(grid.num_cells), np.arange(6), np.arange(1, MAX_MOVE + 1), indexing="ij"
    )
    actions[codec.move(cell, direction, count)] = codec.move(cell_map[cell], dir_map[direction], count)
    source.setflags(write=False)  # shared between engines (_SYMMETRIES)
    actions.setflags(write=False)
    return Symmetry(observation_source=source, actions=actions)


def cell_graph(game: BattleSheepGame) -> CellGraph:
    """The canvas cells on the square embedding with their six hex neighbours (E NE NW W SW SE). The support
    is the pasture (plane 1); in the build phase (plane ``3 + 3n``) also the canvas centre and every cell
    within two steps of the pasture: a legal tile touches the pasture, and its anchor (the action's cell) is
    next to each of its other three cells, so the anchor is at most two steps from a pasture hex (the first
    tile's anchor is the centre). Stack placements and moves start on pasture hexes."""
    grid = game.grid
    square = grid.square_index
    neighbours = np.full((grid.square_shape[0] * grid.square_shape[1], 6), -1, dtype=np.int64)
    neighbours[square] = np.where(grid.neighbors >= 0, square[np.maximum(grid.neighbors, 0)], -1)
    return CellGraph(
        neighbours=neighbours,
        cell_plane=1,
        grow_plane=3 + 3 * game.num_players,
        grow_steps=2,
        seed_cell=int(square[game.center]),
    )


def action_layout(game: BattleSheepGame) -> np.ndarray:
    """Per-cell layout of the codec: tiles ``3a + o`` on channels 0-2, stacks on channel 3, moves
    ``(6c + d) * 15 + k - 1`` on channels ``4 + 15d + k - 1``; cells as in the observation planes."""
    ids = np.arange(game.num_actions)
    cell = np.empty_like(ids)
    channel = np.empty_like(ids)
    tiles = ids < game.codec.stack_base
    cell[tiles], channel[tiles] = ids[tiles] // 3, ids[tiles] % 3
    stacks = (ids >= game.codec.stack_base) & (ids < game.codec.move_base)
    cell[stacks], channel[stacks] = ids[stacks] - game.codec.stack_base, 3
    moves = ids >= game.codec.move_base
    rest = ids[moves] - game.codec.move_base
    cell[moves], channel[moves] = rest // (6 * MAX_MOVE), 4 + rest % (6 * MAX_MOVE)
    return np.stack([game.grid.square_index[cell], channel], axis=1)


def finished_pasture(game: BattleSheepGame, state: BattleSheepState) -> tuple[np.ndarray, np.ndarray, int]:
    """``(on_border, where, num_where)`` as the kernels read them: once the pasture is built, its outside border
    per cell (where stacks are placed) and its cells, so that the kernels visit 4 cells per tile instead of the
    whole canvas (kept for the next call on the same pasture); during the build, no border and every cell."""
    t = game.tables
    if state.phase == BUILD:
        return game.view.no_border, t.all_cells, t.num_cells
    pasture, on_border, where = game.view.pasture
    if state.pasture is not pasture and state.pasture != pasture:
        on_border = np.zeros(t.num_cells, dtype=np.bool_)
        on_border[list(state.border)] = True
        where = np.array(state.pasture, dtype=np.int64)
        game.view.pasture[:] = [state.pasture, on_border, where]
    return on_border, where, where.shape[0]


def legal_mask(game: BattleSheepGame, state: BattleSheepState) -> np.ndarray:
    """The mover's int8 mask, built by a compiled kernel (``legal_mask_into``); the readable
    definition is :meth:`legal_mask_python`, and the tests check that both agree."""
    mask = np.empty(game.num_actions, dtype=np.int8)
    t = game.tables
    cells, heights = arrays_of(state)
    on_border, where, num_where = finished_pasture(game, state)
    legal_mask_into(
        cells,
        heights,
        state.phase,
        state.to_move,
        state.num_pasture,
        on_border,
        where,
        num_where,
        t.tiles,
        t.cell_tiles,
        t.nbr,
        t.centre,
        game.view.code,
        game.view.near,
        mask,
    )
    return mask


def legal_mask_python(game: BattleSheepGame, state: BattleSheepState) -> np.ndarray:
    """The mover's int8 mask: tiles from :meth:`legal_tiles`, stacks on the free outer border, and every count
    of every move of :meth:`legal_moves`."""
    if state.phase == OVER:
        return np.zeros(game.num_actions, dtype=np.int8)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if state.phase == BUILD:
        mask[: game.codec.stack_base] = game.legal_tiles(state)
    elif state.phase == PLACE:
        mask[[game.codec.stack_base + c for c in game.legal_stack_cells(state)]] = 1
    else:
        base = game.codec.move_base
        for c, d, _, k in game.legal_moves(state):
            start = base + (c * 6 + d) * MAX_MOVE
            mask[start : start + k] = 1
    return mask
