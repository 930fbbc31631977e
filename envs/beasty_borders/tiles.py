"""The landscape tiles: the one data table of the tile set (the rulebook does not print the tile art).

Each tile is 2 rows x 3 spaces, written top row first: ``.`` green space, ``~`` lake, ``S`` the signpost (a
green space; the steps-marker starts there, the sign points east). The designer says each tile has 4 or 5 animal
spaces and 1 or 2 lakes; the positions below are our reading, chosen so that **no lake position is favoured**:
each of the 6 tile positions holds a lake on exactly 2 of the 9 tiles (6 one-lake tiles use every position once,
3 two-lake tiles partition the 6 positions into pairs), and no tile has two orthogonally adjacent lakes::

    id  top  bottom  green lakes          id  top  bottom  green lakes
     0  S..  ..~       5    1 (signpost)   5  ~..  ...       5    1
     1  .~.  ...       5    1              6  ~..  .~.       4    2
     2  ..~  ...       5    1              7  .~.  ..~       4    2
     3  ...  ~..       5    1              8  ..~  ~..       4    2
     4  ...  .~.       5    1

Nine tiles: 42 green spaces and 12 lakes.
"""

from __future__ import annotations

TILE_ROWS = 2
TILE_COLS = 3

TILES: tuple[tuple[str, str], ...] = (
    ("S..", "..~"),  # 0: the signpost tile
    (".~.", "..."),  # 1
    ("..~", "..."),  # 2
    ("...", "~.."),  # 3
    ("...", ".~."),  # 4
    ("~..", "..."),  # 5
    ("~..", ".~."),  # 6
    (".~.", "..~"),  # 7
    ("..~", "~.."),  # 8
)
"""The tile set; index = tile id. Tile 0 carries the signpost on its top-left space."""

SIGNPOST_TILE = 0
"""Id of the tile with the signpost (always used, also in the 'without luck' variant)."""


def tile_lakes(tile: int) -> tuple[tuple[int, int], ...]:
    """(row, col) inside the tile of each lake of tile ``tile``."""
    return tuple((r, c) for r in range(TILE_ROWS) for c in range(TILE_COLS) if TILES[tile][r][c] == "~")


def lake_pattern_to_tile() -> dict[frozenset[tuple[int, int]], int]:
    """Lake positions -> tile id (every tile has a different lake pattern, so lakes identify the tile)."""
    return {frozenset(tile_lakes(t)): t for t in range(len(TILES))}
