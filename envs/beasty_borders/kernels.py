"""Beasty Borders' compiled observation: the kernels that encode a position, shared by the AEC env (through
``rules.BeastyBordersGame.observation``) and the batched engine (``fast.py``).

``observation.encode`` stays the readable definition; the tests check that both agree on every position of random
games (``tests/beasty_borders/test_beasty_borders_fast.py``, ``test_beasty_borders_env.py``).

A position is read from row views: the landscape's cell codes, and its groups (``label``: a cell of each animal's
group, ``group_size`` at that cell) with each seat's victory points, which the batched engine keeps up to date and
:func:`observe_position` recounts (:func:`rebuild_groups`: a flood fill over 54 cells).

numba's on-disk cache watches only the file of the function it compiled: ``fast.py``'s cached kernels, which call
these, do not notice edits here (after editing this file, touch ``fast.py`` or clear
``envs/beasty_borders/__pycache__``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from envs.beasty_borders.actions import ROW_OWNER
from envs.beasty_borders.observation import LOOKAHEAD, ObservationLayout
from envs.beasty_borders.state import EMPTY, FIRST_ANIMAL, GROUP_VP, MARKER, NUM_CODES

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


@njit(cache=True)
def rebuild_groups(board, label, group_size, vp, nbr):
    """Groups and victory points of a landscape from scratch (flood fill; row views): ``label[c]`` a cell of the
    group of the animal on ``c`` (-1 elsewhere), ``group_size`` the size of a group at its label cell."""
    cells = board.shape[0]
    label[:] = -1
    group_size[:] = 0
    vp[:] = 0
    stack = np.empty(cells, dtype=np.int64)
    for start in range(cells):
        code = board[start]
        if code < FIRST_ANIMAL or label[start] >= 0:
            continue
        label[start] = start
        stack[0] = start
        top = 1
        n = 0
        while top > 0:
            top -= 1
            c = stack[top]
            n += 1
            for i in range(4):
                nb = nbr[c, i]
                if nb < 0:
                    break
                if label[nb] < 0 and board[nb] == code:
                    label[nb] = start
                    stack[top] = nb
                    top += 1
        group_size[start] = n
        vp[(code - FIRST_ANIMAL) // 3] += _GROUP_VP[min(n, _TOP)]


@njit(cache=True)
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


@njit(cache=True, inline="always")
def _space_entry(bd, lb, gs, nbr4, slots, cell, seat, types, out, b, off):
    """Write what ``cell`` (an empty green space) is worth from ``seat``'s side into ``out[b, off:]``
    (observation.space_entry, in the seat's order: my types, the opponent's, then the empty green neighbours / 4;
    ``out`` zero there). Branch-free: ``nbr4[cell]`` holds its neighbours padded with ``cell`` itself to 4
    (``nbr4[cell, 4]``: the number of pads, which count as empty), and ``slots[seat, code]`` is where an animal
    code's gain goes (a non-animal's goes to the room slot, written last)."""
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


@njit(cache=True)
def observe_row(
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    row,
    empty_count,
    label,
    group_size,
    vp,
    b,
    seat,
    out,
    lay,
    planes,
    slots,
    path,
    rank,
    nbr4,
    row_owner,
):
    """Row ``b``'s observation from ``seat`` into ``out[b]`` (observation.encode; layout offsets in ``lay``,
    ``planes[seat, code]`` the offset of the plane that shows a cell code to ``seat``)."""
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
    if roller[b] == seat:
        out[b, lay[_L_ROLLER]] = 1.0
    out[b, lay[_L_SCORE]] = min(1.0, vp[b, seat] * 0.02)
    out[b, lay[_L_SCORE] + 1] = min(1.0, vp[b, 1 - seat] * 0.02)
    live = empty_count[b] > 0
    if live:
        out[b, lay[_L_MARKER] + pos[b]] = 1.0
        out[b, lay[_L_ROLL] + roll[b] - 1] = 1.0
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
    lb = label[b]
    gs = group_size[b]
    width = 2 * types + 1
    spaces = lay[_L_SPACES]
    here = pos[b]
    _space_entry(bd, lb, gs, nbr4, slots, here, seat, types, out, b, spaces)
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
        _space_entry(bd, lb, gs, nbr4, slots, cell, seat, types, out, b, spaces + (1 + found) * width)
        found += 1
        if found == LOOKAHEAD or found == others:
            break
    for k in range(found, LOOKAHEAD):
        src = spaces + (1 + k % others) * width
        dst = spaces + (1 + k) * width
        for j in range(width):
            out[b, dst + j] = out[b, src + j]


class ObservationTables:
    """A configuration's tables as the observation kernels read them (int64 arrays): the layout's offsets
    (``lay``, indexed by the ``_L_*`` constants), the plane that shows each cell code to each seat (``planes``),
    where a neighbouring animal's gain goes in a space entry (``slots``), the neighbours (``nbr``: padded with
    -1; ``nbr4``: padded with the cell itself, then the number of pads), the path and each cell's rank on it."""

    def __init__(self, layout: ObservationLayout, neighbours: Sequence[tuple[int, ...]]):
        lay = layout
        self.cells = cells = lay.cells
        self.path = np.array(lay.path, dtype=np.int64)
        self.rank = np.array(lay.rank, dtype=np.int64)
        self.nbr = np.full((cells, 4), -1, dtype=np.int64)
        for cell, nbs in enumerate(neighbours):
            self.nbr[cell, : len(nbs)] = nbs
        self.nbr4 = np.zeros((cells, 5), dtype=np.int64)
        """Neighbours padded with the cell itself to 4, then the number of pads (for the spaces block)."""
        for cell, nbs in enumerate(neighbours):
            self.nbr4[cell, :4] = list(nbs) + [cell] * (4 - len(nbs))
            self.nbr4[cell, 4] = 4 - len(nbs)
        self.lay = np.zeros(16, dtype=np.int64)
        self.lay[_L_CELLS], self.lay[_L_TYPES], self.lay[_L_VARIANT] = lay.cells, lay.num_types, int(lay.variant)
        self.lay[_L_MARKER], self.lay[_L_ROLL], self.lay[_L_PHASE] = lay.marker_plane, lay.roll, lay.phase
        self.lay[_L_ROLLER], self.lay[_L_MINE], self.lay[_L_THEIRS] = lay.roller, lay.mine, lay.theirs
        self.lay[_L_SCORE], self.lay[_L_SPACES], self.lay[_L_SIZE] = lay.score, lay.spaces, lay.size
        if lay.variant:
            self.lay[_L_ROW_MINE], self.lay[_L_ROW_THEIRS] = lay.row_mine, lay.row_theirs
            self.lay[_L_CHOICE], self.lay[_L_ROLLER_PASSED] = lay.choice, lay.roller_passed
        self.planes = np.zeros((2, NUM_CODES), dtype=np.int64)
        for seat in range(2):
            self.planes[seat, MARKER] = lay.cells
            for code in range(FIRST_ANIMAL, NUM_CODES):
                owner, t = divmod(code - FIRST_ANIMAL, 3)
                self.planes[seat, code] = (2 + t + (0 if owner == seat else lay.num_types)) * lay.cells
        self.slots = np.full((2, NUM_CODES), 2 * lay.num_types, dtype=np.int64)
        """Where a neighbouring animal code's gain goes in a space entry seen by each seat (non-animals: room)."""
        for seat in range(2):
            for code in range(FIRST_ANIMAL, NUM_CODES):
                owner, t = divmod(code - FIRST_ANIMAL, 3)
                if t < lay.num_types:
                    self.slots[seat, code] = t + (0 if owner == seat else lay.num_types)
        self.row_owner = _ROW_OWNER
        self.no_row = np.zeros((1, len(ROW_OWNER)), dtype=np.float32)
        """The bidding row of a main-game position (it has none)."""


@njit(cache=True)
def observe_position(board, facts, row, out, lay, planes, slots, path, rank, nbr, nbr4, row_owner):
    """One position's observation into ``out`` (1-D): ``observation.encode``. ``board``: its cell codes;
    ``facts``: int64 [seat, pos, roll, roller, phase, choice, empty spaces, then the held figures of seat 0 and
    seat 1 per type]; ``row``: the bidding row (1, 28). The groups are recounted (:func:`rebuild_groups`)."""
    cells = board.shape[0]
    types = lay[_L_TYPES]
    label = np.empty((1, cells), dtype=np.int8)
    group_size = np.empty((1, cells), dtype=np.int8)
    vp = np.empty((1, 2), dtype=np.int64)
    one_board = board.reshape(1, cells)
    rebuild_groups(one_board[0], label[0], group_size[0], vp[0], nbr)
    remaining = np.zeros((1, 2, 3), dtype=np.int64)
    for seat in range(2):
        for t in range(types):
            remaining[0, seat, t] = facts[7 + seat * types + t]
    observe_row(
        one_board,
        facts[1:2],
        facts[2:3],
        facts[3:4],
        facts[4:5],
        facts[5:6],
        remaining,
        row,
        facts[6:7],
        label,
        group_size,
        vp,
        0,
        facts[0],
        out.reshape(1, out.shape[0]),
        lay,
        planes,
        slots,
        path,
        rank,
        nbr4,
        row_owner,
    )
