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

Here too: the compiled observation that the AEC env (:func:`observe`, the Game's ``observation``) and the batched
engine (:func:`observe_batch`, ``fast.BeastyBordersBatched.observe``) both run, with its tables (:class:`ViewTables`):
:func:`encode` (:func:`observation_python`) stays the readable definition, and the tests check that both agree on
every position of random games. The compiled kernels read a position as rows of the batched state
(``kernels.BeastyBordersBatchedState``; a reference position as a :class:`PositionRows` of one row): the
landscape's cell codes and its groups (``label``: a cell of each animal's group, ``group_size`` at that cell) with
each seat's victory points, which the batched engine keeps up to date and :func:`observe_position` recounts
(``kernels.rebuild_groups``: a flood fill over 54 cells). The groups' books and the rulebook's group table
(``GROUP_VP``) are the rules' (``kernels.py``). numba's on-disk cache watches only the file of the function it
compiled: after editing ``kernels.py``, clear ``envs/beasty_borders/__pycache__``.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from envs.beasty_borders.actions import (
    EMPTY,
    FIRST_ANIMAL,
    LAKE,
    MARKER,
    NUM_CODES,
    RESPONDER_CHOICE,
    ROW_LEN,
    ROW_OWNER,
)
from envs.beasty_borders.kernels import GROUP_VP, landscape_groups, rebuild_groups, victory_points
from envs.beasty_borders.rules import BeastyBordersGame, BeastyBordersState
from envs.common.jit import inline_jit, refcount_jit, row_jit

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


def _encode_spaces(lay: ObservationLayout, state: BeastyBordersState, seat: int, out: np.ndarray) -> None:
    """Fill the ``spaces`` block (module docstring) of ``out``.

    Space entries are cached on the state (``space_cache``: per seat a table of entries in that seat's order,
    and a row-valid flag per cell, kept by the rules: a filling invalidates only the rows it can change,
    ``kernels.stale_spaces``), so
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


_GROUP_VP = np.array(GROUP_VP, dtype=np.int64)
_TOP = len(GROUP_VP) - 1
_ROW_OWNER = np.array(ROW_OWNER, dtype=np.int64)

# Observation block offsets, in the order of the ``lay`` array passed to the kernels.
(
    _L_CELLS,
    _L_TYPES,
    _L_VARIANT,
    _L_MARKER,
    _L_ROLL,
    _L_PHASE,
    _L_ROLLER,
    _L_MINE,
    _L_THEIRS,
    _L_SCORE,
    _L_ROW_MINE,
    _L_ROW_THEIRS,
    _L_CHOICE,
    _L_ROLLER_PASSED,
    _L_SPACES,
    _L_SIZE,
) = range(16)


@refcount_jit
def _code_gain(code, c0, c1, c2, c3, s0, s1, s2, s3):
    """observation.space_entry's gain (/ 10, capped at 1) for animal ``code`` from the distinct neighbouring
    groups (code ``c_i``, size ``s_i``; ``s_i`` 0 for a non-group or a repeated group)."""
    total = (c0 == code) * s0 + (c1 == code) * s1 + (c2 == code) * s2 + (c3 == code) * s3
    vps = (
        (c0 == code) * _GROUP_VP[s0]
        + (c1 == code) * _GROUP_VP[s1]
        + (c2 == code) * _GROUP_VP[s2]
        + (c3 == code) * _GROUP_VP[s3]
    )
    gain = (_GROUP_VP[min(1 + total, _TOP)] - vps) * 0.1
    return gain if gain < 1.0 else 1.0


@inline_jit
def _space_entry(tab, bd, lb, gs, cell, seat, types, out, b, off):
    """Write what ``cell`` (an empty green space) is worth from ``seat``'s side into ``out[b, off:]``
    (observation.space_entry, in the seat's order: my types, the opponent's, then the empty green neighbours / 4;
    ``out`` zero there). Branch-free: ``tab.nbr4[cell]`` holds its neighbours padded with ``cell`` itself to 4
    (``nbr4[cell, 4]``: the number of pads, which count as empty), and ``tab.slots[seat, code]`` is where an animal
    code's gain goes (a non-animal's goes to the room slot, written last)."""
    nbr4 = tab.nbr4
    slots = tab.slots
    n0, n1, n2, n3 = nbr4[cell, 0], nbr4[cell, 1], nbr4[cell, 2], nbr4[cell, 3]
    c0, c1, c2, c3 = np.int64(bd[n0]), np.int64(bd[n1]), np.int64(bd[n2]), np.int64(bd[n3])
    g0, g1, g2, g3 = np.int64(lb[n0]), np.int64(lb[n1]), np.int64(lb[n2]), np.int64(lb[n3])
    # sizes of the distinct groups (labels are cells of the groups: distinct groups, distinct labels; -1 none)
    s0 = (g0 >= 0) * np.int64(gs[max(g0, 0)])
    s1 = (g1 >= 0) * (g1 != g0) * np.int64(gs[max(g1, 0)])
    s2 = (g2 >= 0) * (g2 != g0) * (g2 != g1) * np.int64(gs[max(g2, 0)])
    s3 = (g3 >= 0) * (g3 != g0) * (g3 != g1) * (g3 != g2) * np.int64(gs[max(g3, 0)])
    out[b, off + slots[seat, c0]] = _code_gain(c0, c0, c1, c2, c3, s0, s1, s2, s3)
    out[b, off + slots[seat, c1]] = _code_gain(c1, c0, c1, c2, c3, s0, s1, s2, s3)
    out[b, off + slots[seat, c2]] = _code_gain(c2, c0, c1, c2, c3, s0, s1, s2, s3)
    out[b, off + slots[seat, c3]] = _code_gain(c3, c0, c1, c2, c3, s0, s1, s2, s3)
    room = (c0 == EMPTY) + (c1 == EMPTY) + (c2 == EMPTY) + (c3 == EMPTY) - nbr4[cell, 4]
    out[b, off + 2 * types] = room * 0.25


@row_jit
def observe_row(st, tab, b, seat, out):
    """Row ``b``'s observation from ``seat`` into ``out[b]`` (observation.encode). ``st``: the batched state
    (``kernels.BeastyBordersBatchedState``, or a :class:`PositionRows` of one reference position), of which it reads
    the landscape, marker, roll, turn, supplies, bidding row, empty-space count and group books; ``tab``:
    :class:`ViewTables` (layout offsets in ``tab.lay``, ``tab.planes[seat, code]`` the offset of the plane that shows
    a cell code to ``seat``). Compiled without reference counting (``envs.common.jit.row_jit``): it takes both
    tuples whole and allocates nothing."""
    lay = tab.lay
    path = tab.path
    rank = tab.rank
    planes = tab.planes
    row_owner = tab.row_owner
    board = st.board
    remaining = st.remaining
    row = st.row
    pos = st.pos
    phase = st.phase
    choice = st.choice
    empty_count = st.empty_count
    vp = st.vp
    cells = lay[_L_CELLS]
    types = lay[_L_TYPES]
    out[b, :] = 0.0
    bd = board[b]
    for c in range(cells):  # branch-free: an empty space writes 0 into its own (zero) lake-plane entry
        code = bd[c]
        out[b, planes[seat, code] + c] = 0.0 if code == EMPTY else 1.0
    mine = lay[_L_MINE]
    theirs = lay[_L_THEIRS]
    for t in range(types):
        out[b, mine + t] = remaining[b, seat, t] * 0.125
        out[b, theirs + t] = remaining[b, 1 - seat, t] * 0.125
    if st.roller[b] == seat:
        out[b, lay[_L_ROLLER]] = 1.0
    out[b, lay[_L_SCORE]] = min(1.0, vp[b, seat] * 0.02)
    out[b, lay[_L_SCORE] + 1] = min(1.0, vp[b, 1 - seat] * 0.02)
    live = empty_count[b] > 0
    if live:
        out[b, lay[_L_MARKER] + pos[b]] = 1.0
        out[b, lay[_L_ROLL] + st.roll[b] - 1] = 1.0
        out[b, lay[_L_PHASE] + phase[b]] = 1.0
    if lay[_L_VARIANT]:
        row_mine = lay[_L_ROW_MINE]
        row_theirs = lay[_L_ROW_THEIRS]
        for i in range(row_owner.shape[0]):
            if row[b, i]:
                if row_owner[i] == seat:
                    out[b, row_mine + i] = 1.0
                else:
                    out[b, row_theirs + i] = 1.0
        if live and phase[b] == 1:
            if choice[b] >= 0:
                out[b, lay[_L_CHOICE] + choice[b]] = 1.0
            else:
                out[b, lay[_L_ROLLER_PASSED]] = 1.0
    if not live:
        return
    lb = st.label[b]
    gs = st.group_size[b]
    width = 2 * types + 1
    spaces = lay[_L_SPACES]
    here = pos[b]
    _space_entry(tab, bd, lb, gs, here, seat, types, out, b, spaces)
    others = empty_count[b] - 1
    if others <= 0:
        return
    # The empty spaces after the marker's along the path (its own left out: it is filled before the next roll);
    # with fewer than LOOKAHEAD of them the count runs round and they repeat (observation.lookahead_cells).
    found = 0
    start = rank[here]
    n = path.shape[0]
    for i in range(1, n):
        k = start + i
        cell = path[k - n if k >= n else k]
        if bd[cell] != EMPTY:
            continue
        _space_entry(tab, bd, lb, gs, cell, seat, types, out, b, spaces + (1 + found) * width)
        found += 1
        if found == LOOKAHEAD or found == others:
            break
    for k in range(found, LOOKAHEAD):
        src = spaces + (1 + k % others) * width
        dst = spaces + (1 + k) * width
        for j in range(width):
            out[b, dst + j] = out[b, src + j]


@row_jit
def observe_batch(st, tab, seats, out):
    """The batched engine's observation (``fast.BeastyBordersBatched.observe``): row ``b``'s from seat
    ``seats[b]`` into ``out[b]`` (:func:`observe_row`; ``tab``: the :class:`ViewTables`)."""
    for b in range(seats.shape[0]):
        observe_row(st, tab, b, seats[b], out)


class ViewTables(NamedTuple):
    """A configuration's tables as the observation kernels read them (int64 arrays; :func:`view_tables` builds
    them), one flat ``NamedTuple`` that the kernels take whole."""

    lay: np.ndarray
    """The layout's offsets, indexed by the ``_L_*`` constants."""
    planes: np.ndarray
    """(2, codes): the offset of the plane that shows each cell code to each seat."""
    slots: np.ndarray
    """(2, codes): where a neighbouring animal code's gain goes in a space entry seen by each seat (non-animals:
    room)."""
    path: np.ndarray
    """(cells,): the steps-marker's cyclic path."""
    rank: np.ndarray
    """(cells,): each cell's place on the path."""
    nbr: np.ndarray
    """(cells, 4): the orthogonal neighbours, then -1."""
    nbr4: np.ndarray
    """(cells, 5): the neighbours padded with the cell itself to 4, then the number of pads (for the spaces
    block)."""
    row_owner: np.ndarray
    """(28,): the seat owning each bidding-row figure."""


def view_tables(layout: ObservationLayout) -> ViewTables:
    """The :class:`ViewTables` of ``layout``'s configuration (its offsets, neighbours and path)."""
    lay = layout
    cells = lay.cells
    neighbours = lay.neighbours
    nbr = np.full((cells, 4), -1, dtype=np.int64)
    for cell, nbs in enumerate(neighbours):
        nbr[cell, : len(nbs)] = nbs
    nbr4 = np.zeros((cells, 5), dtype=np.int64)
    for cell, nbs in enumerate(neighbours):
        nbr4[cell, :4] = list(nbs) + [cell] * (4 - len(nbs))
        nbr4[cell, 4] = 4 - len(nbs)
    offsets = np.zeros(16, dtype=np.int64)
    offsets[_L_CELLS], offsets[_L_TYPES], offsets[_L_VARIANT] = lay.cells, lay.num_types, int(lay.variant)
    offsets[_L_MARKER], offsets[_L_ROLL], offsets[_L_PHASE] = lay.marker_plane, lay.roll, lay.phase
    offsets[_L_ROLLER], offsets[_L_MINE], offsets[_L_THEIRS] = lay.roller, lay.mine, lay.theirs
    offsets[_L_SCORE], offsets[_L_SPACES], offsets[_L_SIZE] = lay.score, lay.spaces, lay.size
    if lay.variant:
        offsets[_L_ROW_MINE], offsets[_L_ROW_THEIRS] = lay.row_mine, lay.row_theirs
        offsets[_L_CHOICE], offsets[_L_ROLLER_PASSED] = lay.choice, lay.roller_passed
    planes = np.zeros((2, NUM_CODES), dtype=np.int64)
    for seat in range(2):
        planes[seat, MARKER] = lay.cells
        for code in range(FIRST_ANIMAL, NUM_CODES):
            owner, t = divmod(code - FIRST_ANIMAL, 3)
            planes[seat, code] = (2 + t + (0 if owner == seat else lay.num_types)) * lay.cells
    slots = np.full((2, NUM_CODES), 2 * lay.num_types, dtype=np.int64)
    for seat in range(2):
        for code in range(FIRST_ANIMAL, NUM_CODES):
            owner, t = divmod(code - FIRST_ANIMAL, 3)
            if t < lay.num_types:
                slots[seat, code] = t + (0 if owner == seat else lay.num_types)
    return ViewTables(
        lay=offsets,
        planes=planes,
        slots=slots,
        path=np.array(lay.path, dtype=np.int64),
        rank=np.array(lay.rank, dtype=np.int64),
        nbr=nbr,
        nbr4=nbr4,
        row_owner=_ROW_OWNER,
    )


class PositionRows(NamedTuple):
    """One reference position as the batch of one row that :func:`observe_row` reads (the fields of
    ``kernels.BeastyBordersBatchedState`` it reads; built by :func:`observe_position`)."""

    board: np.ndarray
    pos: np.ndarray
    roll: np.ndarray
    roller: np.ndarray
    phase: np.ndarray
    choice: np.ndarray
    remaining: np.ndarray
    row: np.ndarray
    empty_count: np.ndarray
    label: np.ndarray
    group_size: np.ndarray
    vp: np.ndarray


_NO_ROW = np.zeros((1, ROW_LEN), dtype=np.float32)
"""The bidding row of a main-game position (it has none)."""


@refcount_jit
def observe_position(tab, board, facts, row, out):
    """One position's observation into ``out`` (1-D): ``observation.encode``. ``tab``: the :class:`ViewTables` as a
    plain tuple (numba checks a ``NamedTuple`` argument from Python field by field in Python, a plain tuple in C:
    1.4 us a call here; the kernel rebuilds the ``NamedTuple``);
    ``board``: its cell codes; ``facts``: int64 [seat, pos, roll, roller, phase, choice, empty spaces, then the held
    figures of seat 0 and seat 1 per type]; ``row``: the bidding row (1, 28). The groups are recounted
    (``kernels.rebuild_groups``)."""
    view = ViewTables(*tab)
    cells = board.shape[0]
    types = view.lay[_L_TYPES]
    label = np.empty((1, cells), dtype=np.int8)
    group_size = np.empty((1, cells), dtype=np.int8)
    vp = np.empty((1, 2), dtype=np.int64)
    one_board = board.reshape(1, cells)
    rebuild_groups(one_board[0], label[0], group_size[0], vp[0], view.nbr)
    remaining = np.zeros((1, 2, 3), dtype=np.int64)
    for seat in range(2):
        for t in range(types):
            remaining[0, seat, t] = facts[7 + seat * types + t]
    st = PositionRows(
        board=one_board,
        pos=facts[1:2],
        roll=facts[2:3],
        roller=facts[3:4],
        phase=facts[4:5],
        choice=facts[5:6],
        remaining=remaining,
        row=row,
        empty_count=facts[6:7],
        label=label,
        group_size=group_size,
        vp=vp,
    )
    observe_row(st, view, 0, facts[0], out.reshape(1, out.shape[0]))


def observe(game: BeastyBordersGame, state: BeastyBordersState, seat: int) -> np.ndarray:
    """``seat``'s observation vector of ``state`` (the Game's ``observation``), built by the compiled kernel
    :func:`observe_position`; :func:`encode` is its readable definition (the tests check that both agree)."""
    if seat != 0 and seat != 1:
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    rem = state.remaining
    facts = np.array(
        [seat, state.pos, state.roll, state.roller, state.phase, state.choice, len(state.empty), *rem[0], *rem[1]],
        dtype=np.int64,
    )
    out = np.empty(game.layout.size, dtype=np.float32)
    row = _NO_ROW if state.row is None else state.row.reshape(1, -1)
    observe_position(game.view_tables_plain, state.board, facts, row, out)
    return out


def observation_python(game: BeastyBordersGame, state: BeastyBordersState, seat: int) -> np.ndarray:
    """The readable definition of :func:`observe` (:func:`encode`; the tests check that both agree)."""
    return encode(game.layout, state, seat)
