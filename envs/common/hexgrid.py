"""Hex-grid geometry shared by the hex games (Battle Sheep's pasture canvas, Bestiarium's hexhex board).

Axial coordinates ``(q, r)`` with ``s = -q - r``, pointy-top hexes, ``r`` growing downwards::

          NW(0,-1)  NE(+1,-1)
     W(-1,0)   (q,r)    E(+1,0)
          SW(-1,+1) SE(0,+1)

Direction indices are ``0=E 1=NE 2=NW 3=W 4=SW 5=SE`` (counter-clockwise from east); ``(d + 3) % 6`` is the
opposite direction. A :class:`HexGrid` is the hexagon of cells with ``max(|q|, |r|, |s|) <= radius``; cells are
numbered row by row (``r`` ascending, then ``q``), and all neighbour and ray tables are precomputed for speed.

The square embedding ``(r + radius, q + radius)`` puts the hexagon into a ``(2R+1) x (2R+1)`` array for
observation planes: the six hex neighbours of a cell are six of its eight square neighbours (not the
``(-1,-1)`` and ``(+1,+1)`` diagonals), so ordinary 3x3 convolutions see hex neighbourhoods.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_NAMES: tuple[str, ...] = ("E", "NE", "NW", "W", "SW", "SE")
Coord = tuple[int, int]


def hex_distance(a: Coord, b: Coord) -> int:
    """Number of steps between two cells."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def neighbor(c: Coord, d: int) -> Coord:
    """The cell next to ``c`` in direction ``d``."""
    return (c[0] + DIRECTIONS[d][0], c[1] + DIRECTIONS[d][1])


# The 12 symmetries of the hex grid about the origin, as functions of (q, r): six rotations, each optionally
# preceded by the reflection (q, r, s) -> (q, s, r).
def _rotate60(c: Coord) -> Coord:
    q, r = c
    s = -q - r
    return (-r, -s)


def _reflect(c: Coord) -> Coord:
    q, r = c
    return (q, -q - r)


def transforms(group: str) -> list:
    """Point maps of a symmetry group: 'fixed' (identity), 'one_sided' (6 rotations), 'free' (12)."""
    rotations = []
    for k in range(6):

        def rot(c: Coord, k: int = k) -> Coord:
            for _ in range(k):
                c = _rotate60(c)
            return c

        rotations.append(rot)
    if group == "fixed":
        return rotations[:1]
    if group == "one_sided":
        return rotations
    if group == "free":
        return rotations + [lambda c, f=f: f(_reflect(c)) for f in rotations]
    raise ValueError(f"unknown symmetry group {group!r}; allowed: 'fixed', 'one_sided', 'free'")


def enclosing_hexagon(cells: Iterable[Coord]) -> tuple[Coord, int]:
    """``(centre, radius)`` of the smallest hexagon (a hex-distance ball) holding every cell; ``cells`` non-empty.

    A hexagon of radius ``rho`` about ``c`` holds a cell exactly when each cube coordinate (q, r, s = -q-r) of
    the cell lies within ``rho`` of ``c``'s, so the smallest radius is the largest of the half-widths
    ``ceil((max - min) / 2)`` per axis and ``ceil(sum of maxima / 3)``, ``ceil(-sum of minima / 3)`` (the
    centre's coordinates must add up to zero). Several centres can reach it; the tie-break picks the one
    closest to the middle of every axis's extent (least sum of squared ``2 c - (min + max)``), then the
    smallest ``r``, then the smallest ``q``. It depends only on the cells' shape: translate the cells and the
    centre moves with them.
    """
    pts = list(cells)
    qs = [q for q, _ in pts]
    rs = [r for _, r in pts]
    ss = [-q - r for q, r in pts]
    return hexagon_around(min(qs), max(qs), min(rs), max(rs), min(ss), max(ss))


def hexagon_around(q0: int, q1: int, r0: int, r1: int, s0: int, s1: int) -> tuple[Coord, int]:
    """:func:`enclosing_hexagon` of any cells whose cube coordinates span ``[q0, q1]``, ``[r0, r1]``, ``[s0, s1]``
    (only the extents matter)."""
    radius = max(
        -((q0 - q1) // 2), -((r0 - r1) // 2), -((s0 - s1) // 2), -(-(q1 + r1 + s1) // 3), -((q0 + r0 + s0) // 3)
    )
    best: tuple[int, int, int] | None = None
    centre = (0, 0)
    for cr in range(r1 - radius, r0 + radius + 1):
        for cq in range(q1 - radius, q0 + radius + 1):
            cs = -cq - cr
            if not s1 - radius <= cs <= s0 + radius:
                continue
            key = ((2 * cq - q0 - q1) ** 2 + (2 * cr - r0 - r1) ** 2 + (2 * cs - s0 - s1) ** 2, cr, cq)
            if best is None or key < best:
                best, centre = key, (cq, cr)
    return centre, radius


def canonical_shape(cells: Iterable[Coord], group: str = "free") -> tuple[Coord, ...]:
    """A canonical form of a set of cells up to translation and the given symmetry group.

    Two polyhexes have the same shape exactly when their canonical forms are equal.
    """
    pts = list(cells)
    best: tuple[Coord, ...] | None = None
    for f in transforms(group):
        moved = [f(p) for p in pts]
        mq = min(p[0] for p in moved)
        mr = min(p[1] for p in moved)
        form = tuple(sorted((p[0] - mq, p[1] - mr) for p in moved))
        if best is None or form < best:
            best = form
    return best if best is not None else ()


class HexGrid:
    """The hexagon of radius ``radius`` with precomputed tables."""

    def __init__(self, radius: int):
        if radius < 0:
            raise ValueError("radius must be >= 0")
        self.radius = radius
        self.coords: tuple[Coord, ...] = tuple(
            (q, r) for r in range(-radius, radius + 1) for q in range(-radius, radius + 1) if abs(q + r) <= radius
        )
        self.num_cells = len(self.coords)
        self.index: dict[Coord, int] = {c: i for i, c in enumerate(self.coords)}
        nb = np.full((self.num_cells, 6), -1, dtype=np.int64)
        for i, c in enumerate(self.coords):
            for d in range(6):
                nb[i, d] = self.index.get(neighbor(c, d), -1)
        self.neighbors: np.ndarray = nb
        """(N, 6) neighbour index per direction, -1 off the grid."""
        self.neighbor_lists: tuple[tuple[int, ...], ...] = tuple(tuple(int(j) for j in row if j >= 0) for row in nb)
        """Per cell, the on-grid neighbours (plain tuples: fastest in Python loops)."""
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(self._ray(i, d) for d in range(6)) for i in range(self.num_cells)
        )
        """rays[i][d]: the cells from i (exclusive) in direction d up to the grid's edge."""
        self.on_rim = np.array([len(self.neighbor_lists[i]) < 6 for i in range(self.num_cells)])
        """Cells with a neighbour off the grid."""
        self.neighbors_padded = np.where(nb >= 0, nb, self.num_cells)
        """:attr:`neighbors` with ``num_cells`` for off the grid: index a per-cell array padded with one
        trailing entry (e.g. ``np.append(free, False)[neighbors_padded].sum(1)`` counts free neighbours)."""
        self.ring = np.array([hex_distance(c, (0, 0)) for c in self.coords], dtype=np.int64)
        """Distance of each cell from the centre."""
        side = 2 * radius + 1
        self.square_shape = (side, side)
        self.square_index = np.array([(r + radius) * side + (q + radius) for q, r in self.coords], dtype=np.int64)
        """Flat index of each cell in the (2R+1)^2 square embedding."""

    def _ray(self, i: int, d: int) -> tuple[int, ...]:
        out: list[int] = []
        c = self.coords[i]
        while True:
            c = neighbor(c, d)
            j = self.index.get(c)
            if j is None:
                return tuple(out)
            out.append(j)

    def components(self, members: Sequence[bool] | np.ndarray, cells: Iterable[int] | None = None) -> list[list[int]]:
        """Connected components of the cells where ``members`` is true (optionally only those in ``cells``)."""
        seen = set()
        comps = []
        todo = range(self.num_cells) if cells is None else cells
        for start in todo:
            if not members[start] or start in seen:
                continue
            comp = [start]
            seen.add(start)
            k = 0
            while k < len(comp):
                for j in self.neighbor_lists[comp[k]]:
                    if members[j] and j not in seen:
                        seen.add(j)
                        comp.append(j)
                k += 1
            comps.append(comp)
        return comps

    def exterior(self, filled: Sequence[bool] | np.ndarray) -> np.ndarray:
        """Unfilled cells connected to the area outside the grid through unfilled cells (holes excluded).

        A vectorised flood fill: cells farther from the centre than every filled cell are exterior outright,
        and each round adds the unfilled cells that touch the exterior (off-grid counts as exterior), until
        nothing changes; the number of rounds is the depth of the deepest bay, not the board size.
        """
        free = ~np.asarray(filled, dtype=bool)
        if free.all():
            return free.copy()
        outer = int(self.ring[~free].max())
        ext = np.zeros(self.num_cells + 1, dtype=bool)
        ext[-1] = True  # the sentinel: everything off the grid
        ext[:-1] = free & (self.ring >= outer)
        while True:
            grown = free & ext[self.neighbors_padded].any(axis=1)
            if np.array_equal(grown, ext[:-1]):
                return grown
            ext[:-1] = grown

    def outer_border(self, filled: Sequence[bool] | np.ndarray) -> np.ndarray:
        """Filled cells that touch the unbounded exterior (not only an interior hole)."""
        ext = np.ones(self.num_cells + 1, dtype=bool)  # the sentinel (off-grid) stays exterior
        ext[:-1] = self.exterior(filled)
        return np.asarray(filled, dtype=bool) & ext[self.neighbors_padded].any(axis=1)

    def pixel_center(self, i: int, size: float) -> tuple[float, float]:
        """Pixel centre of cell ``i`` for pointy-top hexes of circumradius ``size`` (origin at cell (0,0))."""
        q, r = self.coords[i]
        return (size * math.sqrt(3) * (q + r / 2.0), size * 1.5 * r)
