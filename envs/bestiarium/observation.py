"""Bestiarium's observation: float32 planes ``(56, 2R+1, 2R+1)`` over the square embedding of the hexhex board.

The embedding puts cell ``(q, r)`` at row ``r + R``, column ``q + R`` (see :mod:`envs.common.hexgrid`); the
six hex neighbours of a cell are six of its eight square neighbours (all but the ``(-1,-1)`` and ``(+1,+1)``
diagonals). Squares outside the hexagon are 0 in every plane but the constant ones.

Planes 0-9, the stones (this module):

====  ==========================================================================================
idx   plane (the observer is "me")
====  ==========================================================================================
0     my stones
1     the opponent's stones
2     empty cells
3     on-board cells (1 on the hexagon, 0 in the two unused corners)
4     the creature that must grow (mid eating chain: the mover's creature C; else all 0)
5     grow phase: all 1 while the player to move must choose a growth cell, else all 0
6     a pass is pending: all 1 when the last ply was a pass (one more pass ends the game), else 0
7     size of my creature on each of my stones / 10 (capped at 1)
8     size of the opponent's creature on each of their stones / 10 (capped at 1)
9     cells where I may place a stone (empty, touching at most one of my creatures), whoever is to move
====  ==========================================================================================

Planes 10-55, the score (``bestiarium_v1``; :mod:`envs.bestiarium.features`, which documents each plane): fauna
and twin membership, what one added stone would eat, prey, and 38 constant planes with the scoring cascade now.

Planes 7-9 are derived from the stones (nothing hidden); a convolution sees only a few cells around each cell,
and a creature's size and the merge rule decide every eat, so they are given outright.

:meth:`ObservationEncoder.encode_numpy` is the readable definition of planes 0-9 in numpy;
:meth:`ObservationEncoder.encode` builds the same planes in one compiled kernel (creature sizes by a flood fill
over the colours), about ten times faster; the tests check that both agree on random games.
:meth:`ObservationEncoder.observation` is the whole observation (both kernels).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.bestiarium import features
from envs.common.hexgrid import HexGrid, transforms

NUM_STONE_PLANES = 10
NUM_PLANES = NUM_STONE_PLANES + features.NUM_SCORE_PLANES
(
    PLANE_ME,
    PLANE_OPP,
    PLANE_EMPTY,
    PLANE_BOARD,
    PLANE_CHAIN,
    PLANE_GROW,
    PLANE_PASS,
    PLANE_MY_SIZE,
    PLANE_OPP_SIZE,
    PLANE_LEGAL,
) = range(NUM_STONE_PLANES)
SIZE_SCALE = 0.1


class ObservationEncoder:
    """Builds the planes from a cell colour vector (0 empty, 1 Black, 2 White) for one board and shape
    equivalence (``shape_equivalence`` decides which creatures have the same shape, for planes 10-55)."""

    def __init__(self, grid: HexGrid, shape_equivalence: str = "free"):
        side = grid.square_shape[0]
        self.shape = (NUM_PLANES, side, side)
        self.stone_shape = (NUM_STONE_PLANES, side, side)
        self.sq = grid.square_index
        self.num_squares = side * side
        blank = np.zeros((NUM_STONE_PLANES, self.num_squares), dtype=np.float32)
        blank[PLANE_BOARD, self.sq] = 1.0
        self.blank = blank
        self.off_board = np.full(self.num_squares, 3, dtype=np.uint8)
        """Colour per square, 3 off the hexagon (matches no plane code)."""
        # codes[seat]: the colour shown in planes (me, opp, empty) for that seat.
        self.codes = (
            np.array([[1], [2], [0]], dtype=np.uint8),
            np.array([[2], [1], [0]], dtype=np.uint8),
        )
        # tables of the compiled encoder
        n = grid.num_cells
        self.square_cell = np.full(self.num_squares, -1, dtype=np.int64)
        self.square_cell[self.sq] = np.arange(n)
        self.nbrs = np.full((n, 6), -1, dtype=np.int64)
        for i, row in enumerate(grid.neighbor_lists):
            self.nbrs[i, : len(row)] = row
        self.size_plane = np.minimum(np.arange(n + 1, dtype=np.float32), np.float32(10.0))
        np.multiply(self.size_plane, SIZE_SCALE, out=self.size_plane)
        """Planes 7/8's value for a creature of each size, computed as :meth:`encode_numpy` computes it."""
        self._no_legal = np.zeros(n, dtype=np.uint8)
        maps = transforms(shape_equivalence)
        self.tq = np.array([[f(c)[0] for c in grid.coords] for f in maps], dtype=np.int64)
        self.tr = np.array([[f(c)[1] for c in grid.coords] for f in maps], dtype=np.int64)
        """Each cell's axial coordinates under each symmetry of the equivalence (canonical shape forms)."""
        self.stride = 2 * grid.radius + 1
        self.single_shape_max = 1 if shape_equivalence == "fixed" else 2
        """Sizes up to this have a single shape under the equivalence."""
        self.tables = pack_tables(
            self.square_cell,
            self.nbrs,
            self.tq,
            self.tr,
            self.stride,
            self.single_shape_max,
            np.asarray(self.sq, dtype=np.int64),
        )
        """Every int table of :func:`_observation_kernel` in one array (each argument of a compiled call costs
        about 0.2 us to dispatch; the AEC env builds one observation a step)."""

    def observation(
        self,
        color: np.ndarray,
        seat: int,
        to_move: int,
        chain_cells: list[int] | None,
        grow_phase: bool,
        pass_pending: bool,
        legal: tuple[bytearray, bytearray],
    ) -> np.ndarray:
        """The whole observation (``shape``) for ``seat``: planes 0-9 as :meth:`encode` with the derived planes,
        planes 10-55 by :func:`envs.bestiarium.features.score_planes`, in one compiled call (the creatures found
        once for both). ``color`` and ``legal`` (both seats' placement bytes) may be bytearrays."""
        code = seat | to_move << 1 | bool(grow_phase) << 2 | bool(pass_pending) << 3
        return _observation_kernel(
            color, legal[0], legal[1], code, chain_cells[0] if chain_cells else -1, self.tables, self.size_plane
        )

    def encode(
        self,
        color: np.ndarray,
        seat: int,
        chain_cells: list[int] | None,
        grow_phase: bool,
        pass_pending: bool,
        creatures: dict[int, list[int]] | None = None,
        creature_ids: list[int] | None = None,
        legal: bytearray | None = None,
    ) -> np.ndarray:
        """Planes 0-9 of :meth:`encode_numpy`, built by a compiled kernel (same arguments; the creatures are
        recomputed from ``color`` as its connected components, which they are)."""
        derived = creatures is not None and legal is not None
        out = np.empty(self.stone_shape, dtype=np.float32)
        _encode_kernel(
            np.asarray(color, dtype=np.uint8),
            np.frombuffer(legal, dtype=np.uint8) if derived else self._no_legal,
            seat,
            chain_cells[0] if chain_cells else -1,
            grow_phase,
            pass_pending,
            derived,
            self.square_cell,
            self.nbrs,
            self.size_plane,
            out.reshape(NUM_STONE_PLANES, self.num_squares),
        )
        return out

    def encode_numpy(
        self,
        color: np.ndarray,
        seat: int,
        chain_cells: list[int] | None,
        grow_phase: bool,
        pass_pending: bool,
        creatures: dict[int, list[int]] | None = None,
        creature_ids: list[int] | None = None,
        legal: bytearray | None = None,
    ) -> np.ndarray:
        """Planes 0-9 for ``seat``; ``color`` is the per-cell colour vector (uint8), ``creatures`` the cells of
        every creature, ``creature_ids`` the creature id per cell (-1 empty), ``legal`` the seat's placement
        bytes per cell."""
        squares = self.off_board.copy()
        squares[self.sq] = color
        out = np.empty_like(self.blank)
        out[:3] = squares == self.codes[seat]
        out[3:] = self.blank[3:]
        if chain_cells:
            out[PLANE_CHAIN, self.sq[chain_cells]] = 1.0
        if grow_phase:
            out[PLANE_GROW] = 1.0
        if pass_pending:
            out[PLANE_PASS] = 1.0
        if creatures is not None and legal is not None:
            # size per creature id (index -1, an empty cell's id, reads the trailing 0), then per cell
            lens = [0] * (max(creatures, default=0) + 2)
            for cid, cells in creatures.items():
                lens[cid] = len(cells)
            extra = np.empty((3, len(color)), dtype=np.float32)
            np.take(np.array(lens, dtype=np.float32), creature_ids, out=extra[0])
            np.minimum(extra[0], 10.0, out=extra[0])
            mine = color == seat + 1
            np.multiply(extra[0], SIZE_SCALE, out=extra[0])
            np.multiply(extra[0], ~mine & (color > 0), out=extra[1])
            np.multiply(extra[0], mine, out=extra[0])
            extra[2] = np.frombuffer(legal, dtype=np.uint8)
            out[PLANE_MY_SIZE:, self.sq] = extra
        return out.reshape(self.stone_shape)


_HEADER = 5


def pack_tables(
    square_cell: np.ndarray,
    nbrs: np.ndarray,
    tq: np.ndarray,
    tr: np.ndarray,
    stride: int,
    single_shape_max: int,
    cell_square: np.ndarray,
) -> np.ndarray:
    """The int tables of :func:`_observation_kernel` in one int64 array (a header of sizes, then each table)."""
    head = np.array([nbrs.shape[0], square_cell.shape[0], tq.shape[0], stride, single_shape_max], dtype=np.int64)
    return np.concatenate([head, square_cell, nbrs.ravel(), tq.ravel(), tr.ravel(), cell_square]).astype(np.int64)


@njit(cache=True, inline="always")
def _unpack(tables):
    n = tables[0]
    nsq = tables[1]
    t = tables[2]
    k = _HEADER
    square_cell = tables[k : k + nsq]
    k += nsq
    nbrs = tables[k : k + 6 * n].reshape((n, 6))
    k += 6 * n
    tq = tables[k : k + t * n].reshape((t, n))
    k += t * n
    tr = tables[k : k + t * n].reshape((t, n))
    k += t * n
    cell_square = tables[k : k + n]
    return square_cell, nbrs, tq, tr, tables[3], tables[4], cell_square


@njit(cache=True)
def _observation_kernel(color, legal0, legal1, code, chain_cell, tables, size_plane):
    """:meth:`ObservationEncoder.observation`: the creatures by one flood fill, planes 0-9, then
    :func:`envs.bestiarium.features.score_planes` over the same creatures. ``code``: seat | to_move << 1 |
    grow phase << 2 | pass pending << 3; ``tables``: :func:`pack_tables`."""
    square_cell, nbrs, tq, tr, stride, single_shape_max, cell_square = _unpack(tables)
    seat = code & 1
    to_move = (code >> 1) & 1
    grow_phase = ((code >> 2) & 1) == 1
    pass_pending = ((code >> 3) & 1) == 1
    side = int(np.sqrt(square_cell.shape[0]) + 0.5)
    out3 = np.empty((NUM_PLANES, side, side), dtype=np.float32)
    out = out3.reshape((NUM_PLANES, square_cell.shape[0]))
    n = len(color)
    sc = np.empty((features.SCRATCH_ROWS + 5, n + 1), dtype=np.int64)
    base = features.SCRATCH_ROWS
    comp, comp_size, first, link, roots = sc[base], sc[base + 1], sc[base + 2], sc[base + 3], sc[base + 4]
    for x in range(n):
        comp[x] = -1
        comp_size[x] = 0
        first[x] = -1
        link[x] = -1
    features.creatures_of(color, nbrs, comp, comp_size, first, link, roots)
    seat_legal = legal1 if seat else legal0
    _planes_kernel(
        color,
        seat_legal,
        seat,
        comp,
        comp_size,
        chain_cell,
        grow_phase,
        pass_pending,
        True,
        square_cell,
        size_plane,
        out,
    )
    chain_root = comp[chain_cell] if (grow_phase and chain_cell >= 0) else -1
    features.score_planes(
        color,
        comp,
        comp_size,
        first,
        link,
        legal0,
        legal1,
        seat,
        to_move,
        chain_root,
        nbrs,
        tq,
        tr,
        stride,
        single_shape_max,
        cell_square,
        out,
        sc,
    )
    return out3


@njit(cache=True)
def _encode_kernel(
    color, legal, seat, chain_cell, grow_phase, pass_pending, derived, square_cell, nbrs, size_plane, out
):
    """:meth:`ObservationEncoder.encode_numpy`'s planes into ``out[:10]`` (``out``: (planes, S*S))."""
    n = color.shape[0]
    comp = np.full(n, -1, dtype=np.int64)
    comp_size = np.zeros(n, dtype=np.int64)
    features.creatures_of(
        color,
        nbrs,
        comp,
        comp_size,
        np.full(n, -1, dtype=np.int64),
        np.full(n, -1, dtype=np.int64),
        np.empty(n, dtype=np.int64),
    )
    _planes_kernel(
        color, legal, seat, comp, comp_size, chain_cell, grow_phase, pass_pending, derived, square_cell, size_plane, out
    )


@njit(cache=True)
def _planes_kernel(
    color, legal, seat, comp, comp_size, chain_cell, grow_phase, pass_pending, derived, square_cell, size_plane, out
):
    """Planes 0-9 into ``out[:10]`` from the creatures (``comp``: each cell's creature key, ``comp_size`` per key)."""
    chain = comp[chain_cell] if chain_cell >= 0 else -2
    me = seat + 1
    grow_v = np.float32(1.0) if grow_phase else np.float32(0.0)
    pass_v = np.float32(1.0) if pass_pending else np.float32(0.0)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    for k in range(square_cell.shape[0]):
        x = square_cell[k]
        out[5, k] = grow_v
        out[6, k] = pass_v
        for p in (0, 1, 2, 3, 4, 7, 8, 9):
            out[p, k] = zero
        if x < 0:
            continue
        v = color[x]
        out[3, k] = one
        if derived and legal[x]:
            out[9, k] = one
        if v == 0:
            out[2, k] = one
            continue
        c = comp[x]
        if c == chain:
            out[4, k] = one
        s = size_plane[comp_size[c]] if derived else zero
        if v == me:
            out[0, k] = one
            out[7, k] = s
        else:
            out[1, k] = one
            out[8, k] = s
