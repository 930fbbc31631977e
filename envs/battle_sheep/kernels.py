"""Battle Sheep's compiled rules, shared by both engines: the canvas's tables, the batched state and the engine's
tables, the rule kernels the reference engine (``rules.BattleSheepGame``) calls (the legal mask, slides, the
largest herd, the outer border, a tile's placement and the frame's re-centring) and the row functions of the
batched engine (``fast.py``) and its search (``search.py``).

A position is a few flat arrays: ``cells`` (int8 per canvas cell: ``NO_PASTURE``, ``EMPTY`` or the seat whose stack
stands there) and ``heights`` (int8), read with the canvas's tables (:class:`GridTables`). The reference engine's
readable definitions (``rules.BattleSheepGame.legal_mask_python``, ``largest_herd_python``,
``PastureBuild.place_tile``, ``HexGrid.outer_border``) are tested equal to the compiled ones here.

The kernels both engines call read their constants from a small ``NamedTuple``, ``tab``, of what they read:
:class:`MaskTables` (:func:`mask_tiles`, :func:`mask_into`), :class:`TileTables` (:func:`place_tile`),
:class:`ObservationTables` (``observation.observe_into``). The reference engine keeps one of each; the batched engine's
functions make them from their :class:`Tables` where they call such a kernel (a numba function handed a tuple of
28 arrays copies and counts them all: handing the whole :class:`Tables` to these kernels made the batched engine's
mask and observation 10-15% slower). The reference engine's kernels that Python calls (:func:`legal_mask_into`,
:func:`lay_tile_into`, and the views' ``observation.observe_position`` and ``observe_and_mask_into``) take its
tables as a plain tuple of their fields and rebuild the ``NamedTuple`` at their top: numba types a ``NamedTuple``
argument from Python in Python, field by field (measured: 2.8 us a call for 16 fields, against 0.8 us for 8
separate arguments, as much as the mask's work), a plain tuple in C (about what its fields cost as arguments).

The state is declared once (:data:`STATE`, :mod:`envs.common.state`; the batched :class:`BattleSheepBatchedState`,
one row per game, is its type): the canvas cells and stack heights, each seat's stacks in the order they were first
occupied (as the reference's ``stacks``), tiles left, phase, mover, stacks placed, who can still move, and for the
build phase the pasture's cells (in the reference's order) and extents (min / max of q, r, s), which re-centre the
frame after every tile placement exactly as ``rules.PastureBuild.recentre`` does (RULES.md, "The frame": tile ids are
relative to the re-centred pasture). ``on_border`` is the outside border, computed once when the pasture is complete.
``rng`` is each game's own SplitMix64 generator (:mod:`envs.common.fastrng`).

The row functions every engine exports (``envs.common.fastsearch.ROW_FUNCTIONS``: :func:`mover_row`,
:func:`legal_row`, :func:`apply_row`, :func:`returns_row`, :func:`copy_row`, :func:`random_action_row`) and
:func:`legal_tiles_row` are the interface of ``search.py``, whose tree (``envs/common/fastsearch.py``) plays on
these rows. How they read the state and the tables, for speed: numba increfs every array of both tuples (37 at
the default options) when a function taking them starts and decrefs them when it ends, and its reference-count
pruning drops those pairs only when both tuples die in the function's first block. So the functions run every ply
(the row functions and their helpers) read the fields they need into locals at their top, before anything that
branches or calls, and pass one row's arrays to their helpers (:func:`_next_mover`, :func:`final_returns`); the
small row functions are inlined into their callers (:data:`envs.common.jit.inline_jit`; the tree's wrappers in
``fastsearch`` included). A row function that passes ``st`` and ``tab`` on pays the 37 pairs at each call: written
that way, the playouts and the search ran 2.5-3x slower (measured). Functions run once per kernel call, or once per
row of a batch where the row's work dwarfs it, take the simpler style.

numba's on-disk cache watches only the file of the function it compiled: the constants below are frozen into it,
and the cached kernels of ``observation.py``, ``fast.py`` and ``search.py``, which call (or inline) these, do not
notice edits here (after editing this file, clear ``envs/battle_sheep/__pycache__``). The search tree's own cache
file is named after a digest of ``search.py`` and this file (``envs.common.fastsearch.kernels``).
"""

from __future__ import annotations

from array import array
from typing import NamedTuple

import numpy as np

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
from envs.common.fastrng import below
from envs.common.hexgrid import HexGrid
from envs.common.jit import inline_jit, refcount_jit, row_jit
from envs.common.state import Field, StateLayout, copy_fields

MAX_STACKS = SHEEP_PER_PLAYER
"""A seat never has more stacks than sheep."""
MAX_SPANS = 6 * MAX_STACKS
"""The most runs of set entries in a mask row: one per (stack, direction)."""


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


class MaskTables(NamedTuple):
    """What the legal mask's kernels (:func:`mask_tiles`, :func:`mask_into`) read besides a position: the canvas's
    tile and neighbour tables and their work buffers (one call at a time per owner). The reference engine keeps
    one (``rules.BattleSheepGame.mask_tables``); the batched engine's kernels make one from their :class:`Tables`."""

    tiles: np.ndarray
    """(3N, 4) int64: the cells of tile action ``3a + o`` (the anchor first), all -1 where it leaves the canvas."""
    cell_tiles: np.ndarray
    """(N, 12) int64: the on-canvas tile actions holding each cell, padded with -1."""
    nbr: np.ndarray
    """(N, 6) int64: the neighbour per direction, -1 off the canvas."""
    centre: int
    """The canvas's centre cell (the first tile goes round it)."""
    work_code: np.ndarray
    """(N,) int8 work: :func:`mask_tiles`'s cell codes."""
    work_near: np.ndarray
    """(N,) int64 work: :func:`mask_tiles`'s cells next to the pasture."""


class ObservationTables(NamedTuple):
    """What the compiled observation (``observation.observe_into``) reads besides a position: the player count,
    the canvas's square embedding and neighbours, and a work buffer. The reference engine keeps one
    (``rules.BattleSheepGame.observation_tables``); the batched engine's observation makes one from its
    :class:`Tables`."""

    num_players: int
    """Seats n."""
    square: np.ndarray
    """(N,) int64: each cell's flat index on the observation's square."""
    canvas: np.ndarray
    """((2R+1)^2,) float32: observation plane 0 (1 on the canvas's squares)."""
    nbr: np.ndarray
    """(N, 6) int64: the neighbour per direction, -1 off the canvas."""
    work_lib: np.ndarray
    """(N,) int64 work: the free neighbours per cell (the derived planes)."""


class ObservationMaskTables(NamedTuple):
    """:class:`MaskTables`' fields, then :class:`ObservationTables`' that it lacks: what the observation and the
    legal mask built in one call (``observation.observe_and_mask_into``) read, in one tuple (each tuple Python
    passes costs its own checks). The reference engine keeps one (``rules.BattleSheepGame.observation_mask_tables``)."""

    tiles: np.ndarray
    cell_tiles: np.ndarray
    nbr: np.ndarray
    centre: int
    work_code: np.ndarray
    work_near: np.ndarray
    num_players: int
    square: np.ndarray
    canvas: np.ndarray
    work_lib: np.ndarray


class TileTables(NamedTuple):
    """What :func:`place_tile` reads besides the rows: the canvas's tile and coordinate tables. The reference
    engine keeps one (``rules.BattleSheepGame.tile_tables``); :func:`apply_row` makes one from its :class:`Tables`."""

    tiles: np.ndarray
    """(3N, 4) int64: the cells of tile action ``3a + o`` (the anchor first), all -1 where it leaves the canvas."""
    q: np.ndarray
    """(N,) int64: each cell's axial q."""
    r: np.ndarray
    """(N,) int64: each cell's axial r."""
    cell_at: np.ndarray
    """((2R+1)^2,) int64: the cell at (q, r), -1 off the canvas (``GridTables.cell_at``)."""
    radius: int
    """The canvas radius R."""


def reference_tables(
    tables: GridTables, num_players: int
) -> tuple[MaskTables, ObservationTables, ObservationMaskTables, TileTables]:
    """The reference engine's kernel tables on the canvas of ``tables`` with ``num_players`` seats, with new work
    buffers (the mask's and the observation's shared by the tables that read them)."""
    n = tables.num_cells
    mask = MaskTables(
        tiles=tables.tiles,
        cell_tiles=tables.cell_tiles,
        nbr=tables.nbr,
        centre=int(tables.centre),
        work_code=np.zeros(n, dtype=np.int8),
        work_near=np.zeros(n, dtype=np.int64),
    )
    view = ObservationTables(
        num_players=int(num_players),
        square=tables.square,
        canvas=tables.canvas,
        nbr=tables.nbr,
        work_lib=np.zeros(n, dtype=np.int64),
    )
    both = ObservationMaskTables(*mask, view.num_players, view.square, view.canvas, view.work_lib)
    tile = TileTables(tiles=tables.tiles, q=tables.q, r=tables.r, cell_at=tables.cell_at, radius=int(tables.radius))
    return mask, view, both, tile


STATE = StateLayout(
    "BattleSheepBatchedState",
    __name__,
    Field(
        "cells",
        np.int8,
        ("cells",),
        fill=NO_PASTURE,
        container=lambda v: array("b", v),
        doc="Per canvas cell: NO_PASTURE, EMPTY or the seat whose stack stands there.",
    ),
    Field("heights", np.int8, ("cells",), container=lambda v: array("b", v), doc="Per canvas cell: sheep there."),
    Field(
        "stacks",
        np.int64,
        ("players", MAX_STACKS),
        reference=False,
        doc="Each seat's stack cells, in the order first occupied (the reference: a list per seat, ragged).",
    ),
    Field("num_stacks", np.int64, ("players",), batched_only=True, doc="Stacks per seat (the reference's lengths)."),
    Field("tiles_left", np.int8, ("players",), fill=TILES_PER_PLAYER, idle=0, doc="Tiles each seat still lays."),
    Field("phase", np.int64, fill=BUILD, doc="BUILD, PLACE, MOVE or OVER (the snapshots write its name)."),
    Field("to_move", np.int64, doc="The mover (when over: as the reference keeps it)."),
    Field("stacks_placed", np.int64, doc="Seats that placed their starting stack."),
    Field(
        "can_move",
        np.bool_,
        ("players",),
        fill=1,
        reference=False,
        doc="False once a seat was found blocked (the reference and its snapshots: a list of bools).",
    ),
    Field("num_pasture", np.int64, batched_only=True, doc="Pasture cells laid (the reference's ``num_pasture``)."),
    Field(
        "pasture",
        np.int64,
        ("pasture",),
        batched_only=True,
        doc="The pasture's cells, in the reference's order (the reference's ``pasture`` list).",
    ),
    Field(
        "extent",
        np.int64,
        (6,),
        batched_only=True,
        doc="Min q, max q, min r, max r, min s, max s of the pasture (the reference's ``extent``, None while empty).",
    ),
    Field(
        "on_border",
        np.bool_,
        ("cells",),
        batched_only=True,
        doc="Pasture on the outside border, set when the pasture is complete (the reference's ``border`` cells).",
    ),
    Field("plies", np.int64, doc="Decisions played (the AEC env's truncation count)."),
    Field("last_action", np.int64, fill=-1, idle=0, doc="The last action played, -1 none."),
    Field("rng", np.uint64, batched_only=True, copied=False, doc="The row's SplitMix64 generator (fastrng)."),
    doc="B Battle Sheep games; row ``b`` of every field is game ``b`` (:data:`STATE`, the module docstring).",
)
"""The state declared once (:mod:`envs.common.state`): the batched type, ``new_state``, :func:`copy_row`, the reset
(``fast._reset_kernel``), the conversions between the engines and the snapshots' plain fields follow from it. Shapes
name the sizes of ``rules.BattleSheepGame.layout_sizes``: ``cells`` (the canvas), ``players`` and ``pasture`` (the
cells of a complete pasture, 4 per tile). The reference state (``rules.BattleSheepState``, written out: caches and
numpy views beside these fields) keeps ``cells`` and ``heights`` as ``array('b')``. ``stacks`` (a list per seat, of
their own lengths) and ``can_move`` (bools, which the layout's JSON writes as ints) are ``reference=False``:
``fast.py`` and ``render.py`` convert them. ``num_stacks`` is the length of each seat's list there; the pasture
(``num_pasture``, ``pasture``, ``extent``, ``on_border``) is batched-only: the reference keeps it in forms of its own
(``extent`` None while empty, ``border`` a tuple of cells) that its snapshots do not hold (``render.state_from_json``
derives them from ``cells``), so ``fast.py`` converts it."""
BattleSheepBatchedState = STATE.batched_type


class Tables(NamedTuple):
    """What the batched engine's kernels read besides the state: the canvas's tables (:class:`GridTables`), the
    options, and the engine's work buffers (its kernels run one call at a time per engine). One flat ``NamedTuple``
    of arrays and scalars, so that every kernel takes the same two objects (the state and these) and numba's
    parallel kernels could take it too (they cannot take a nested tuple)."""

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
    """``pasture="random"``: a new game's pasture is built by random placements (``fast._reset_kernel``)."""
    max_plies: int
    """The AEC env's ply cap (``max_game_length``): a live row reaching it is cut (``mover_row`` -1)."""
    work_code: np.ndarray
    """(N,) int8 work: :func:`mask_tiles`'s cell codes."""
    work_near: np.ndarray
    """(N,) int64 work: :func:`mask_tiles`'s cells next to the pasture."""
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


# ----- slides and moves ---------------------------------------------------------------------------------------------
@inline_jit
def slide(cells, nbr, c, d):
    """Where sheep leaving cell ``c`` in direction ``d`` stop: the last free pasture before a stack, a non-pasture
    cell or the canvas edge; -1 if the first cell that way is not free (no such move)."""
    dest = -1
    j = nbr[c, d]
    while j >= 0 and cells[j] == EMPTY:
        dest = j
        j = nbr[j, d]
    return dest


@inline_jit
def stack_can_move(cells, heights, nbr, c):
    """Whether the stack on ``c`` can split: 2 sheep or more and a free pasture next to it."""
    if heights[c] < 2:
        return False
    for d in range(6):
        j = nbr[c, d]
        if j >= 0 and cells[j] == EMPTY:
            return True
    return False


@inline_jit
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
@inline_jit
def zero(out):
    """Zero a 1-D array (a loop from index 0 is vectorised; a slice assignment or a loop from another start ran
    several times slower)."""
    for a in range(out.shape[0]):
        out[a] = 0


@refcount_jit
def mask_tiles(tab, cells, where, num_where, num_pasture, out):
    """Set the legal tile placements in ``out`` (zero there before): on the canvas, no overlap with the pasture,
    sharing an edge with it (the first tile: the 3 orientations round the centre). ``where[:num_where]``: cells
    that hold the pasture (and maybe others); ``tab``: the :class:`MaskTables` (or any tables with their fields:
    :class:`ObservationMaskTables`).

    With none of its cells on the pasture, a tile shares an edge with it exactly when one of its cells is next
    to a pasture cell. So with ``code`` 2 on the pasture, 1 next to it and 0 elsewhere, a tile is legal exactly
    when the largest code of its cells is 1, and only the tiles holding a cell next to the pasture
    (``cell_tiles``: the tiles holding each cell) need a look."""
    tiles, cell_tiles, nbr, centre = tab.tiles, tab.cell_tiles, tab.nbr, tab.centre
    code, near = tab.work_code, tab.work_near
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
def mask_into(tab, cells, heights, phase, seat, num_pasture, on_border, where, out):
    """The whole legal mask of ``seat`` (the mover) into ``out`` (int8 or bool, length 94N; zeros when over): the
    reference engine's mask (``rules.BattleSheepGame.legal_mask``). ``on_border``: per cell, on the outside border
    (read in the stack-placement phase); ``where``: the cells that hold the pasture (and maybe others), e.g. all
    cells; ``tab``: the :class:`MaskTables` (or :class:`ObservationMaskTables`)."""
    nbr = tab.nbr
    num_where = where.shape[0]
    n = cells.shape[0]
    zero(out)
    if phase == BUILD:
        mask_tiles(tab, cells, where, num_where, num_pasture, out)
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


@refcount_jit
def legal_mask_into(tab, cells, heights, phase, seat, num_pasture, on_border, where, out):
    """:func:`mask_into` from Python: ``tab``, the :class:`MaskTables` as a plain tuple (module docstring)."""
    mask_into(MaskTables(*tab), cells, heights, phase, seat, num_pasture, on_border, where, out)


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
def place_tile(tab, cells, num_pasture, pasture, extent, b, action):
    """Lay tile ``action`` (legal) in row ``b`` and re-centre the frame on the pasture's smallest enclosing hexagon:
    ``rules.PastureBuild.place_tile`` (the same cells, pasture order and extent; tested equal) on the rows of
    ``cells`` (B, N) int8, ``num_pasture`` (B,), ``pasture`` (B, >= num_pasture + 4) and ``extent`` (B, 6) (int64;
    read only where ``num_pasture`` > 0), with the :class:`TileTables` ``tab``. Both engines lay their tiles with
    it."""
    tiles, q, r, cell_at, radius = tab.tiles, tab.q, tab.r, tab.cell_at, tab.radius
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


@refcount_jit
def lay_tile_into(tab, cells, num_pasture, pasture, extent, action):
    """:func:`place_tile` on one row (``cells`` (1, N) and the rest as there, row 0), with the reference engine's
    tables ``tab`` (a :class:`TileTables`, as a plain tuple from Python: module docstring): the reference engine's
    tile placement (``rules.BattleSheepGame.lay_tile``)."""
    place_tile(TileTables(*tab), cells, num_pasture, pasture, extent, 0, action)


# ----- one position's helpers (batched rows) ----------------------------------------------------------------------
@inline_jit
def _next_seat(seat, n):
    return 0 if seat + 1 == n else seat + 1


@inline_jit
def _has_move(cells, heights, stack_cells, count, nbr):
    """Whether the seat whose stacks are ``stack_cells[:count]`` can move (rules.has_move; ``cells``, ``heights``:
    one row)."""
    for i in range(count):  # noqa: SIM110 (numba compiles no generator inside any())
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


@inline_jit
def _listed(mask, out):
    """The indices of ``mask``'s set entries in order into ``out``; returns how many."""
    count = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            out[count] = i
            count += 1
    return count


@refcount_jit
def final_returns(cells, num_stacks, to_move, n, splits, nbr, seen, todo, out):
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
def set_legal_row(st, tab, b, out, span_start, span_len):
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
        mask_tiles(MaskTables(tiles, cell_tiles, nbr, centre, code, near), cells, pasture, m, m, out)
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
    mask = MaskTables(tab.tiles, tab.cell_tiles, tab.nbr, tab.centre, tab.work_code, tab.work_near)
    mask_tiles(mask, st.cells[b], st.pasture[b], m, m, tile_ok)
    return _listed(tile_ok, out)


# ----- the row functions of every engine (envs.common.fastsearch.ROW_FUNCTIONS) -----------------------------------
@inline_jit
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
    spans = set_legal_row(st, tab, b, out, starts, lens)
    count = 0
    for i in range(spans):
        for k in range(starts[i], starts[i] + lens[i]):
            if out[k]:
                count += 1
    return count


@inline_jit
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
        place_tile(TileTables(tiles, q, r, cell_at, radius), cells, num_pasture, pasture, extent, b, a)
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


@inline_jit
def returns_row(st, tab, b, out):
    """Row ``b``'s returns per seat into ``out`` (float64; zeros while live): rules.returns."""
    over = st.phase[b] == OVER
    cells, num_stacks, seat = st.cells[b], st.num_stacks[b], st.to_move[b]
    n, splits, nbr, seen, todo = tab.num_players, tab.splits, tab.nbr, tab.work_seen, tab.work_todo
    if over:
        final_returns(cells, num_stacks, seat, n, splits, nbr, seen, todo, out)
    else:
        for s in range(n):
            out[s] = 0.0


@row_jit
def copy_row(st, tab, src, dst):
    """Row ``src`` of every declared field but the generator into row ``dst`` (``envs.common.state.copy_fields``)."""
    copy_fields(st, src, dst)


@inline_jit
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
        mask_tiles(MaskTables(tiles, cell_tiles, nbr, centre, code, near), cells, pasture, m, m, tile_ok)
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
