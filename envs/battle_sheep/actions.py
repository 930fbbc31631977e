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
from typing import Any

from envs.common.game import IllegalActionError
from envs.common.hexgrid import DIRECTION_NAMES, HexGrid

MAX_MOVE = 15
"""At most 15 sheep leave a stack (16 sheep, one stays)."""

BUILD, PLACE, MOVE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("build", "place", "move", "over")
NO_PASTURE, EMPTY = -2, -1
"""``cells[i]``: NO_PASTURE, EMPTY (pasture without sheep) or the seat whose stack stands there."""
SHEEP_PER_PLAYER = 16
TILES_PER_PLAYER = 4
SEAT_LETTERS = "ABCD"


class ActionCodec:
    """Encodes and decodes Battle Sheep actions, and writes and reads their notation, on the canvas ``grid``."""

    def __init__(self, grid: HexGrid):
        self.grid = grid
        self.num_cells = n = grid.num_cells
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

    def to_str(self, state: Any, action: int) -> str:
        """``T q,r/o``, ``S q,r`` or ``q,r DIR n`` (the same in every state: coordinates are the canvas's)."""
        kind, a, b, k = self.decode(action)
        q, r = self.grid.coords[a]
        if kind == "tile":
            return f"T {q},{r}/{b}"
        if kind == "stack":
            return f"S {q},{r}"
        return f"{q},{r} {DIRECTION_NAMES[b]} {k}"

    def parse(self, state: Any, text: str) -> int | None:
        """The action of notation ``text`` (any case); None if it is not Battle Sheep notation. Notation naming a
        cell off the canvas, or a move of no or too many sheep, raises :class:`IllegalActionError` saying so."""
        t = text.strip()
        for regex, kind in ((TILE_RE, "tile"), (STACK_RE, "stack"), (MOVE_RE, "move")):
            m = regex.match(t)
            if not m:
                continue
            cell = self.grid.index.get((int(m.group(1)), int(m.group(2))))
            if cell is None:
                raise IllegalActionError(f"{text!r}: cell ({m.group(1)},{m.group(2)}) is off the canvas")
            if kind == "tile":
                return self.tile(cell, int(m.group(3)))
            if kind == "stack":
                return self.stack(cell)
            count = int(m.group(4))
            if not 1 <= count <= MAX_MOVE:
                raise IllegalActionError(f"{text!r}: a move takes 1 to {MAX_MOVE} sheep")
            return self.move(cell, DIRECTION_NAMES.index(m.group(3).upper()), count)
        return None


_COORD = r"(-?\d+)\s*,\s*(-?\d+)"
TILE_RE = re.compile(rf"^t\s*{_COORD}\s*/\s*([0-2])$", re.I)
STACK_RE = re.compile(rf"^s\s*{_COORD}$", re.I)
MOVE_RE = re.compile(rf"^{_COORD}\s+({'|'.join(DIRECTION_NAMES)})\s+(\d+)$", re.I)
