"""Battle Sheep's compiled per-position kernels: observation, legal mask, slides, herds, the outer border, the frame.

A position is a few flat arrays: ``cells`` (int8 per canvas cell: ``NO_PASTURE``, ``EMPTY`` or the seat whose
stack stands there) and ``heights`` (int8), read with the canvas's tables (:class:`GridTables`). The AEC env's
``observation``, ``legal_mask`` and ``outer_border`` (``rules.BattleSheepGame``) call these on the reference state's
arrays, and the batched engine (``fast.py``) calls them on each row of its state. ``rules.py`` keeps the readable
definitions (``observation_numpy``, ``legal_mask_python``, ``HexGrid.outer_border``); the tests check that both
agree.

numba's on-disk cache watches only the file of the function it compiled: the constants below are frozen into it,
and ``fast.py``'s cached kernels, which call these, do not notice edits here (after editing this file, touch
``fast.py`` or clear ``envs/battle_sheep/__pycache__``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.common.hexgrid import HexGrid

NO_PASTURE = -2
EMPTY = -1
BUILD, PLACE, MOVE, OVER = 0, 1, 2, 3
SHEEP_PER_PLAYER = 16
TILES_PER_PLAYER = 4
MAX_MOVE = 15


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


@njit(cache=True)
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


@njit(cache=True)
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
@njit(cache=True)
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
@njit(cache=True)
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
@njit(cache=True)
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


@njit(cache=True)
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
