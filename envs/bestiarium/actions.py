"""Bestiarium's action codec and cell notation.

One flat ``Discrete(N + 1)`` space, ``N`` = number of cells (61 / 91 / 127 for ``board_size`` 5 / 6 / 7):

* ``0 .. N-1``: a cell, numbered row by row from the top row down and left to right inside a row (the order
  of :class:`~envs.common.hexgrid.HexGrid`). In the *place* phase the action places a stone there; in the
  *grow* phase (mid eating chain) it adds the growth stone there. The phase decides the meaning.
* ``N``: pass (legal only in the place phase when no placement is legal).

Cell names: a row letter (``a`` = top row) and the 1-based position inside the row, counted from the left.
``board_size=5`` (radius 4; rows a..i, 5 to 9 cells)::

    a         a1 a2 a3 a4 a5
    b       b1 b2 b3 b4 b5 b6
    c     c1 c2 c3 c4 c5 c6 c7
    d   d1 d2 d3 d4 d5 d6 d7 d8
    e e1 e2 e3 e4 e5 e6 e7 e8 e9
    f   f1 f2 f3 f4 f5 f6 f7 f8
    g     g1 g2 g3 g4 g5 g6 g7
    h       h1 h2 h3 h4 h5 h6
    i         i1 i2 i3 i4 i5

Notation: a placement is the cell name (``e5``), a growth is ``+`` and the cell name (``+e6``), a pass is
``pass``.
"""

from __future__ import annotations

from typing import Any

from envs.common.hexgrid import HexGrid

PLACE, GROW = 0, 1
PHASE_NAMES = ("place", "grow")
SEAT_NAMES = ("Black", "White")
STONE_CHARS = ".XO"
"""Text boards: ``.`` empty, ``X`` Black, ``O`` White (lower case ``x``/``o``: the creature that must grow)."""
PASS_TEXT = "pass"
GROW_PREFIX = "+"


def cell_names(grid: HexGrid) -> tuple[str, ...]:
    """The name of every cell of ``grid`` (row letter + 1-based position in the row)."""
    names = []
    radius = grid.radius
    for q, r in grid.coords:
        row = r + radius
        first_q = max(-radius, -radius - r)
        names.append(f"{chr(ord('a') + row)}{q - first_q + 1}")
    return tuple(names)


class ActionCodec:
    """int <-> meaning for one board: cell actions ``0..N-1`` and the pass action ``N``."""

    def __init__(self, grid: HexGrid):
        self.num_cells = grid.num_cells
        self.pass_action = grid.num_cells
        self.num_actions = grid.num_cells + 1
        self.names = cell_names(grid)
        self.index = {name: i for i, name in enumerate(self.names)}

    def decode(self, action: int) -> tuple[str, int]:
        """``("cell", cell)`` (place or grow there, as the phase says) or ``("pass", 0)``."""
        return ("pass", 0) if action == self.pass_action else ("cell", action)

    def to_str(self, state: Any, action: int) -> str:
        """Notation of ``action`` in ``state``: ``e5`` (place), ``+e5`` (grow: mid eating chain) or ``pass``."""
        if action == self.pass_action:
            return PASS_TEXT
        return (GROW_PREFIX if state.phase == GROW else "") + self.names[action]

    def parse(self, state: Any, text: str) -> int | None:
        """Action id of a notation (``e5``, ``+e5`` or ``pass``, any case), or None if it is not notation."""
        t = text.strip().lower()
        if t == PASS_TEXT:
            return self.pass_action
        if t.startswith(GROW_PREFIX):
            t = t[len(GROW_PREFIX) :]
        return self.index.get(t)
