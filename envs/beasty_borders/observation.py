"""Observation encoding of Beasty Borders: one flat float32 vector, seat-relative ('me' first), values in [0, 1].

With ``H x W`` the landscape (6 x 9 main, 4 x 9 variant), ``T`` types per player (3 main, 2 variant) and
``P = 3 + 2T`` planes, the vector is, in this order::

    offset                 size        content
    0                      P * H * W   planes, each H x W row-major:
                                         0          lakes
                                         1          empty-space markers
                                         2 .. 1+T   my animals, one plane per type (A B C / X Y Z order)
                                         2+T..1+2T  the opponent's animals, one plane per type
                                         2+2T       the steps-marker position
    roll                   8           one-hot of the current die roll 1..8 (zeros once the game is over)
    phase                  2           one-hot: [roller's choice, responder's choice] (zeros once over)
    roller                 1           1 if I am the roller of this turn
    mine                   T           my animals still held per type / 8
    theirs                 T           the opponent's animals still held per type / 8
    score                  2           my victory points / 50, the opponent's / 50 (capped at 1)
  variant only:
    row_mine               28          1 where the bidding-row figure of value i+1 is mine and still in the row
    row_theirs             28          1 where it is the opponent's and still in the row
    choice                 28          one-hot of the figure the roller pointed at (responder's choice phase)
    roller_passed          1           1 in the responder's choice phase when the roller passed
  both:
    spaces                 9 * (2T+1)  what the spaces in play are worth, zeros once the game is over. Space 0 is the
                                       steps-marker's, spaces 1..8 the empty green spaces a roll of 1..8 reaches
                                       on the next turn: this space is always filled before the next roll, so it
                                       is never one of them; with fewer than 9 empty spaces left the count runs
                                       round the cycle and spaces repeat, and with this space the last one empty,
                                       spaces 1..8 are zeros (no next roll). Per space: the victory points my
                                       animal of each type would gain there on today's landscape (T), the same
                                       for each of the opponent's types (T), each / 10 and capped at 1, then its
                                       empty green neighbours / 4.

The ``spaces`` block is derived from the public landscape (it repeats nothing hidden); it saves a network from
learning group counting and the path's arithmetic before it can learn tactics.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np

from envs.beasty_borders.actions import ROW_LEN, ROW_OWNER
from envs.beasty_borders.state import (
    EMPTY,
    FIRST_ANIMAL,
    GROUP_VP,
    LAKE,
    MARKER,
    NUM_CODES,
    RESPONDER_CHOICE,
    BeastyBordersState,
    landscape_groups,
    victory_points,
)

LOOKAHEAD = 8
"""Spaces after the steps-marker's in the ``spaces`` block: one per face of the D8."""
GAIN_SCALE = 0.1
SCORE_SCALE = 0.02


class ObservationLayout:
    """Offsets of every block of the observation vector for one configuration, and the landscape geometry the
    encoding reads (``neighbours`` per cell; the ``path`` of cells and each cell's ``rank`` on it)."""

    def __init__(
        self,
        rows: int,
        cols: int,
        num_types: int,
        variant: bool,
        neighbours: Sequence[tuple[int, ...]],
        path: Sequence[int],
        rank: Sequence[int],
    ):
        self.rows, self.cols, self.num_types, self.variant = rows, cols, num_types, variant
        self.neighbours, self.path, self.rank = list(neighbours), list(path), list(rank)
        self.cells = rows * cols
        self.num_planes = 3 + 2 * num_types
        self.board_size = self.num_planes * self.cells
        self.marker_plane = (self.num_planes - 1) * self.cells
        self.roll = self.board_size
        self.phase = self.roll + 8
        self.roller = self.phase + 2
        self.mine = self.roller + 1
        self.theirs = self.mine + num_types
        self.score = self.theirs + num_types
        end = self.score + 2
        if variant:
            self.row_mine = end
            self.row_theirs = self.row_mine + ROW_LEN
            self.choice = self.row_theirs + ROW_LEN
            self.roller_passed = self.choice + ROW_LEN
            end = self.roller_passed + 1
        self.space_width = 2 * num_types + 1
        # per seat, which fields of a space entry (codes 3..8, then room) make the seat's (mine, theirs, room)
        self.entry_order = [
            [3 * seat + t for t in range(num_types)]
            + [3 * (1 - seat) + t for t in range(num_types)]
            + [NUM_CODES - FIRST_ANIMAL]
            for seat in range(2)
        ]
        self.spaces = end
        end = self.spaces + (1 + LOOKAHEAD) * self.space_width
        self.size = end
        # luts[seat] : (P - 1, NUM_CODES) so that luts[seat][:, board] is the stack of the first P - 1 planes.
        self.luts = []
        for seat in range(2):
            lut = np.zeros((self.num_planes - 1, NUM_CODES), dtype=np.float32)
            lut[0, LAKE] = 1.0
            lut[1, MARKER] = 1.0
            for t in range(num_types):
                lut[2 + t, FIRST_ANIMAL + 3 * seat + t] = 1.0
                lut[2 + num_types + t, FIRST_ANIMAL + 3 * (1 - seat) + t] = 1.0
            self.luts.append(lut)
        owner = np.array(ROW_OWNER, dtype=np.int8)
        self.row_is_seat = [(owner == s).astype(np.float32) for s in range(2)]


def encode(lay: ObservationLayout, state: BeastyBordersState, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (layout in the module docstring)."""
    out = np.zeros(lay.size, dtype=np.float32)
    np.take(lay.luts[seat], state.board, axis=1, out=out[: lay.marker_plane].reshape(lay.num_planes - 1, lay.cells))
    mine = state.remaining[seat]
    theirs = state.remaining[1 - seat]
    for t in range(lay.num_types):
        out[lay.mine + t] = mine[t] * 0.125
        out[lay.theirs + t] = theirs[t] * 0.125
    if state.roller == seat:
        out[lay.roller] = 1.0
    vp = victory_points(lay.neighbours, state)
    out[lay.score] = min(1.0, vp[seat] * SCORE_SCALE)
    out[lay.score + 1] = min(1.0, vp[1 - seat] * SCORE_SCALE)
    live = bool(state.empty)
    if live:
        out[lay.marker_plane + state.pos] = 1.0
        out[lay.roll + state.roll - 1] = 1.0
        out[lay.phase + state.phase] = 1.0
    if lay.variant:
        row = state.row
        out[lay.row_mine : lay.row_mine + ROW_LEN] = row * lay.row_is_seat[seat]
        out[lay.row_theirs : lay.row_theirs + ROW_LEN] = row * lay.row_is_seat[1 - seat]
        if live and state.phase == RESPONDER_CHOICE:
            if state.choice >= 0:
                out[lay.choice + state.choice] = 1.0
            else:
                out[lay.roller_passed] = 1.0
    if live:
        _encode_spaces(lay, state, seat, out)
    return out


def space_entry(
    neighbours: Sequence[tuple[int, ...]], board: list[int], groups: tuple[list[int], list[int], list[int]], cell: int
) -> tuple[float, ...]:
    """What ``cell`` is worth: for each animal code 3..8 (farm A B C, wild X Y Z) the victory points its owner
    gains by placing that animal there (/ 10, capped at 1), then the cell's empty green neighbours / 4."""
    label, sizes, _ = groups
    neighbours = neighbours[cell]
    total = [0] * NUM_CODES
    vp = [0] * NUM_CODES
    seen: list[int] = []
    room = 0
    for nb in neighbours:
        code = board[nb]
        if code < FIRST_ANIMAL:
            if code == EMPTY:
                room += 1
            continue
        gid = label[nb]
        if gid in seen:
            continue
        seen.append(gid)
        total[code] += sizes[gid]
        vp[code] += GROUP_VP[sizes[gid]]
    top = len(GROUP_VP) - 1
    entry = [0.0] * (NUM_CODES - FIRST_ANIMAL + 1)
    for code in range(FIRST_ANIMAL, NUM_CODES):
        if total[code]:
            gain = (GROUP_VP[min(1 + total[code], top)] - vp[code]) * GAIN_SCALE
            entry[code - FIRST_ANIMAL] = gain if gain < 1.0 else 1.0
    entry[-1] = room * 0.25
    return tuple(entry)


def stale_spaces(neighbours: Sequence[tuple[int, ...]], filled: int, members: list[int] | None) -> set[int]:
    """Cells whose :func:`space_entry` may change when ``filled`` is filled: itself and its neighbours (room),
    and with an animal every neighbour of the group it joined (``members``, its cells: gains)."""
    stale = {filled, *neighbours[filled]}
    for c in members or ():
        stale.update(neighbours[c])
    return stale


def _encode_spaces(lay: ObservationLayout, state: BeastyBordersState, seat: int, out: np.ndarray) -> None:
    """Fill the ``spaces`` block (module docstring) of ``out``.

    Space entries are cached on the state (``space_cache``: per seat a table of entries in that seat's order,
    and a row-valid flag per cell, kept by the engine: a filling invalidates only the rows it can change), so
    most spaces are computed once per change near them rather than once per observation, and an observation
    copies its nine rows with one ``np.take``."""
    if state.space_cache is None:
        state.space_cache = (
            np.zeros((2, lay.cells, lay.space_width), dtype=np.float32),
            np.zeros(lay.cells, dtype=bool),
        )
    tables, valid = state.space_cache
    cells = [state.pos] + lookahead_cells(lay, state)
    board = None
    for cell in cells:
        if not valid[cell]:
            if board is None:
                board = state.board.tolist()
                groups = landscape_groups(lay.neighbours, state)
            entry = space_entry(lay.neighbours, board, groups, cell)
            for s in range(2):
                tables[s, cell] = [entry[i] for i in lay.entry_order[s]]
            valid[cell] = True
    block = out[lay.spaces : lay.spaces + (1 + LOOKAHEAD) * lay.space_width].reshape(-1, lay.space_width)
    np.take(tables[seat], cells, axis=0, out=block[: len(cells)])


def lookahead_cells(lay: ObservationLayout, state: BeastyBordersState) -> list[int]:
    """The spaces rolls of 1..8 reach on the next turn: the empty green spaces after the steps-marker's along
    the path, its own space left out (it is always filled before the next roll: by an animal, or by an
    empty-space marker when both pass). With fewer than 9 empty spaces the count runs round the cycle and spaces
    repeat; with only the marker's space empty the game ends with this turn and the list is empty."""
    empty, path = state.empty, lay.path
    others = len(empty) - 1
    if others <= 0:
        return []
    here = bisect.bisect_left(empty, lay.rank[state.pos])  # the marker's own rank (it stands on an empty space)
    n_empty = len(empty)
    return [path[empty[(here + 1 + k % others) % n_empty]] for k in range(LOOKAHEAD)]
