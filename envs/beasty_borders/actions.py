"""Action codec of Beasty Borders: one flat ``Discrete`` space per variant.

Main game (``variant="main"``), 4 actions::

    0 1 2 | 3
    ------+-----
    type  | pass      type k = the mover's k-th animal type: A B C for farm (seat 0), X Y Z for wild (seat 1)

'Without luck' variant (``variant="without_luck"``), 29 actions::

    0 .. 27            | 28
    -------------------+-----
    bidding-row figure | pass   action v-1 = the figure of value v (1..28) in the row AXBYAXBYAXBYAXBYAXBYAXBXAYXA

Notation: main ``A``/``B``/``C``/``X``/``Y``/``Z`` (place that animal on the steps-marker) or ``pass``;
variant ``<letter><value>`` (``A1``, ``X2``, ... ``A28``: point at that figure) or ``pass``.

The cell codes and the tile set live here too: they are the letters of the text landscapes (``.`` empty green,
``~`` lake, ``#`` empty-space marker, animal letters) that the notation, the snapshots and the pictures write.

The tile set (:data:`TILES`) is the one data table of the tiles (the rulebook does not print the tile art). Each
tile is 2 rows x 3 spaces, top row first: ``.`` green space, ``~`` lake, ``S`` the signpost (a green space; the
steps-marker starts there, the sign points east). The designer says each tile has 4 or 5 animal spaces and 1 or 2
lakes; the positions are our reading, chosen so that **no lake position is favoured**: each of the 6 tile
positions holds a lake on exactly 2 of the 9 tiles (6 one-lake tiles use every position once, 3 two-lake tiles
partition the 6 positions into pairs), and no tile has two orthogonally adjacent lakes::

    id  top  bottom  green lakes          id  top  bottom  green lakes
     0  S..  ..~       5    1 (signpost)   5  ~..  ...       5    1
     1  .~.  ...       5    1              6  ~..  .~.       4    2
     2  ..~  ...       5    1              7  .~.  ..~       4    2
     3  ...  ~..       5    1              8  ..~  ~..       4    2
     4  ...  .~.       5    1

Nine tiles: 42 green spaces and 12 lakes.
"""

from __future__ import annotations

from typing import Any

SIDE_NAMES = ("farm", "wild")
"""Seat 0 is the farm player, seat 1 the wild player."""
SEAT_LETTERS: tuple[str, str] = ("ABC", "XYZ")
"""Letters of the animal types of seat 0 (farm) and seat 1 (wild)."""

MAIN_NUM_TYPES = 3
MAIN_COUNTS: tuple[int, ...] = (8, 7, 5)
"""Figures of each type per player in the main game (farm A B C, wild X Y Z)."""
MAIN_NUM_ACTIONS = MAIN_NUM_TYPES + 1
MAIN_PASS = MAIN_NUM_TYPES

BIDDING_ROW = "AXBYAXBYAXBYAXBYAXBYAXBXAYXA"
"""The variant's bidding row, values 1..28 from left to right (A, X: 8 each; B, Y: 6 each)."""
ROW_LEN = len(BIDDING_ROW)
VARIANT_NUM_TYPES = 2
VARIANT_COUNTS: tuple[int, ...] = (8, 6)
VARIANT_NUM_ACTIONS = ROW_LEN + 1
VARIANT_PASS = ROW_LEN

ROW_OWNER: tuple[int, ...] = tuple(0 if ch in SEAT_LETTERS[0] else 1 for ch in BIDDING_ROW)
"""Seat owning the figure at row index i (value i + 1)."""
ROW_TYPE: tuple[int, ...] = tuple(SEAT_LETTERS[ROW_OWNER[i]].index(ch) for i, ch in enumerate(BIDDING_ROW))
"""Type index (0 = A/X, 1 = B/Y) of the figure at row index i."""


EMPTY, LAKE, MARKER, FIRST_ANIMAL = 0, 1, 2, 3
NUM_CODES = 9
"""Cell codes: 0 empty green, 1 lake, 2 empty-space marker, 3 + 3 * seat + type an animal."""
ROLLER_CHOICE, RESPONDER_CHOICE = 0, 1
"""Phases: the roller decides (place/point or pass), then the other player (only after a pass in the main game)."""
ROW_NAMES = "abcdef"
"""Landscape row letters, from the top."""

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


def cell_name(cell: int, cols: int) -> str:
    """``c4``-style name of a cell (row letter from the top, column number from the left)."""
    return f"{ROW_NAMES[cell // cols]}{cell % cols + 1}"


def cell_char(code: int) -> str:
    """One character per cell code: ``.`` empty, ``~`` lake, ``#`` marker, a letter for an animal."""
    if code < FIRST_ANIMAL:
        return ".~#"[code]
    seat, kind = divmod(code - FIRST_ANIMAL, 3)
    return SEAT_LETTERS[seat][kind]


def figure_name(index: int) -> str:
    """The bidding-row figure at ``index`` (value ``index + 1``): its letter and value, e.g. ``X2``."""
    return f"{BIDDING_ROW[index]}{index + 1}"


class ActionCodec:
    """Action ids <-> meaning and notation for one variant (``"main"`` or ``"without_luck"``)."""

    def __init__(self, variant: str = "main"):
        self.luck = variant == "main"
        self.num_types = MAIN_NUM_TYPES if self.luck else VARIANT_NUM_TYPES
        self.num_actions = MAIN_NUM_ACTIONS if self.luck else VARIANT_NUM_ACTIONS
        self.pass_action = MAIN_PASS if self.luck else VARIANT_PASS

    def decode(self, action: int) -> tuple[str, int]:
        """``("pass", 0)``, ``("type", k)`` (main game: the mover's k-th animal type) or ``("figure", v)`` (variant:
        point at the bidding-row figure of value v, 1..28)."""
        if action == self.pass_action:
            return ("pass", 0)
        return ("type", action) if self.luck else ("figure", action + 1)

    def to_str(self, state: Any, action: int) -> str:
        """``A`` .. ``Z`` / ``pass`` (main, for the player to move in ``state``), ``A1`` .. ``A28`` / ``pass``
        (variant)."""
        if action == self.pass_action:
            return "pass"
        return SEAT_LETTERS[_mover(state)][action] if self.luck else figure_name(action)

    def parse(self, state: Any, text: str) -> int | None:
        """The action of notation ``text`` for the player to move in ``state`` (any case); None if it names none."""
        t = text.strip().upper()
        if t == "PASS":
            return self.pass_action
        if self.luck:
            letters = SEAT_LETTERS[_mover(state)]
            return letters.index(t) if len(t) == 1 and t in letters else None
        if len(t) >= 2 and t[1:].isdigit():
            v = int(t[1:])
            if 1 <= v <= ROW_LEN and BIDDING_ROW[v - 1] == t[0]:
                return v - 1
        return None


def _mover(state: Any) -> int:
    """The seat whose letters the notation uses: the player to move (seat 0 once the game is over)."""
    if not state.empty:
        return 0
    return state.roller if state.phase == ROLLER_CHOICE else 1 - state.roller
