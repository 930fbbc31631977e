"""Battle Sheep action codec: one flat ``Discrete`` space over a fixed hexagonal canvas of ``N`` cells.

Layout (cells numbered as in :class:`envs.common.hexgrid.HexGrid`, directions ``0=E 1=NE 2=NW 3=W 4=SW 5=SE``)::

    [0, 3N)                 place a tile:   anchor cell * 3 + orientation
    [3N, 4N)                place the 16-stack on a cell:  3N + cell
    [4N, 4N + 90N)          move:  4N + (cell * 6 + direction) * 15 + (count - 1),  count = 1..15 sheep

A tile is the 4-hex rhombus: the anchor ``a``, its neighbour ``b = a + dir[o]`` and their two common neighbours
``a + dir[o-1]`` and ``a + dir[o+1]`` (orientation ``o`` in 0..2 is the direction of ``a -> b``).

Notation: tiles ``T q,r/o`` (``T 0,0/1``), stacks ``S q,r``, moves ``q,r NE 5`` (5 sheep from (q, r) towards
north-east, sliding as far as they go). Coordinates are axial, (0, 0) the canvas centre (during the build, of
the frame re-centred on the pasture after each placement).
"""

from __future__ import annotations

import re

from envs.common.hexgrid import DIRECTION_NAMES

MAX_MOVE = 15
"""At most 15 sheep leave a stack (16 sheep, one stays)."""


class ActionCodec:
    """Encodes and decodes Battle Sheep actions for a canvas of ``num_cells`` cells."""

    def __init__(self, num_cells: int):
        self.num_cells = n = num_cells
        self.tile_base = 0
        self.stack_base = 3 * n
        self.move_base = 4 * n
        self.num_actions = 4 * n + n * 6 * MAX_MOVE

    def tile(self, anchor: int, orientation: int) -> int:
        return anchor * 3 + orientation

    def stack(self, cell: int) -> int:
        return self.stack_base + cell

    def move(self, cell: int, direction: int, count: int) -> int:
        return self.move_base + (cell * 6 + direction) * MAX_MOVE + (count - 1)

    def decode(self, action: int) -> tuple[str, int, int, int]:
        """``("tile", anchor, orientation, 0)``, ``("stack", cell, 0, 0)`` or ``("move", cell, dir, count)``."""
        if action < self.stack_base:
            return ("tile", action // 3, action % 3, 0)
        if action < self.move_base:
            return ("stack", action - self.stack_base, 0, 0)
        rest = action - self.move_base
        cell_dir, k = divmod(rest, MAX_MOVE)
        cell, d = divmod(cell_dir, 6)
        return ("move", cell, d, k + 1)


_COORD = r"(-?\d+)\s*,\s*(-?\d+)"
TILE_RE = re.compile(rf"^t\s*{_COORD}\s*/\s*([0-2])$", re.I)
STACK_RE = re.compile(rf"^s\s*{_COORD}$", re.I)
MOVE_RE = re.compile(rf"^{_COORD}\s+({'|'.join(DIRECTION_NAMES)})\s+(\d+)$", re.I)
