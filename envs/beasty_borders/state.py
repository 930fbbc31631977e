"""The Beasty Borders position and the landscape facts that the rules and the observation both read: the cell
codes, the rulebook's group table, and the groups of animals (kept as books on the state, so that scores and
observations need not recount them after every placement).

Imports point one way: ``rules.py`` (the engine) imports ``observation.py`` (the encoding), and both import this
module, which imports neither.
"""

from __future__ import annotations

from typing import Any

import numpy as np

EMPTY, LAKE, MARKER, FIRST_ANIMAL = 0, 1, 2, 3
NUM_CODES = 9
"""Cell codes: 0 empty green, 1 lake, 2 empty-space marker, 3 + 3 * seat + type an animal."""
GROUP_VP = (0, 0, 1, 3, 5, 7, 8, 9, 10)
"""Victory points of a group of n animals (the rulebook's table)."""
ROLLER_CHOICE, RESPONDER_CHOICE = 0, 1
"""Phases: the roller decides (place/point or pass), then the other player (only after a pass in the main game)."""


class BeastyBordersState:
    """A mutable Beasty Borders position. ``empty`` is derived (path ranks of the empty green spaces, sorted)."""

    __slots__ = (
        "tiles",
        "board",
        "pos",
        "roll",
        "roller",
        "phase",
        "choice",
        "remaining",
        "placed",
        "row",
        "empty",
        "group_cache",
        "space_cache",
        "vp_cache",
    )

    def __init__(self) -> None:
        self.tiles: list[int] = []
        """Tile id in each grid slot (row-major)."""
        self.board: np.ndarray = np.zeros(0, dtype=np.intp)
        """Cell codes (see the cell codes above): 0 empty green, 1 lake, 2 marker, 3 + 3 * seat + type an animal."""
        self.pos = 0
        """Cell of the steps-marker."""
        self.roll = 1
        """The die roll of the current turn (1..8)."""
        self.roller = 0
        self.phase = ROLLER_CHOICE
        self.choice = -1
        """Variant only: row index the roller pointed at this turn, -1 for a pass (or not chosen yet)."""
        self.remaining: list[list[int]] = []
        """remaining[seat][type]: figures still held (in the variant: still in the bidding row)."""
        self.placed: list[int] = [0, 0]
        """Animals each seat has placed on the landscape (first tie-break)."""
        self.row: np.ndarray | None = None
        """Variant only: float32 0/1 per bidding-row figure (1 = still in the row)."""
        self.empty: list[int] = []
        self.group_cache: tuple[list[int], list[int], list[int]] | None = None
        """(group id per cell, size and owner per group) of the landscape: built on demand (observation.py), then
        kept up to date by each placement; never mutated in place, so clones share it."""
        self.vp_cache: tuple[Any, list[int]] | None = None
        """(the group_cache it was counted from, victory points per seat): valid while that is still the
        state's group_cache (a placement replaces the group_cache, never mutates it)."""
        self.space_cache: tuple[np.ndarray, np.ndarray] | None = None
        """(per seat an entry per cell, valid flag per cell): observation.space_entry (what each space is worth,
        in the seat's order: mine, theirs, room), filled in on demand; a filling replaces both by copies with the
        rows it can change invalidated. Clones share it (they share the landscape: entries valid for one are valid
        for all)."""

    def clone(self) -> BeastyBordersState:
        """An independent copy."""
        s = BeastyBordersState.__new__(BeastyBordersState)
        s.tiles = self.tiles
        s.board = self.board.copy()
        s.pos = self.pos
        s.roll = self.roll
        s.roller = self.roller
        s.phase = self.phase
        s.choice = self.choice
        s.remaining = [self.remaining[0][:], self.remaining[1][:]]
        s.placed = self.placed[:]
        s.row = None if self.row is None else self.row.copy()
        s.empty = self.empty[:]
        s.group_cache = self.group_cache
        s.vp_cache = self.vp_cache
        s.space_cache = self.space_cache
        return s


def group_labels(board: list[int], neighbours: list[tuple[int, ...]]) -> tuple[list[int], list[int], list[int]]:
    """(group id per cell or -1, size per group id, owning seat per group id): orthogonally connected identical
    animals."""
    label = [-1] * len(board)
    sizes: list[int] = []
    owners: list[int] = []
    for start, code in enumerate(board):
        if code < FIRST_ANIMAL or label[start] >= 0:
            continue
        gid = len(sizes)
        label[start] = gid
        stack = [start]
        n = 0
        while stack:
            cell = stack.pop()
            n += 1
            for nb in neighbours[cell]:
                if label[nb] < 0 and board[nb] == code:
                    label[nb] = gid
                    stack.append(nb)
        sizes.append(n)
        owners.append((code - FIRST_ANIMAL) // 3)
    return label, sizes, owners


def add_to_groups(
    groups: tuple[list[int], list[int], list[int]],
    board: list[int] | np.ndarray,
    neighbours: list[tuple[int, ...]],
    cell: int,
    code: int,
) -> tuple[tuple[list[int], list[int], list[int]], list[int]]:
    """(:func:`group_labels` after animal ``code`` was put on ``cell``, the cells of its group now), computed
    from the groups before (``board`` already shows the animal): the new animal joins the groups of its code
    next to it. New lists are returned (the old ones may be shared by clones). Merged groups keep their ids with
    size 0 (worth 0 vp)."""
    label, sizes, owners = groups
    joined = []
    for nb in neighbours[cell]:
        if board[nb] == code:
            gid = label[nb]
            if gid not in joined:
                joined.append(gid)
    label = label[:]
    sizes = sizes[:]
    new = len(sizes)
    sizes.append(1 + sum(sizes[g] for g in joined))
    owners = owners + [(code - FIRST_ANIMAL) // 3]
    members = [cell]
    if joined:
        for c, gid in enumerate(label):
            if gid in joined:
                label[c] = new
                members.append(c)
        for g in joined:
            sizes[g] = 0
    label[cell] = new
    return (label, sizes, owners), members


def victory_points(neighbours: list[tuple[int, ...]], state: BeastyBordersState) -> list[int]:
    """Victory points per seat: GROUP_VP of every group's size, summed per owner (cached on the state with the
    groups they were counted from; the caller gets a fresh list)."""
    groups = landscape_groups(neighbours, state)
    cached = state.vp_cache
    if cached is None or cached[0] is not groups:
        _, sizes, owners = groups
        vp = [0, 0]
        for size, seat in zip(sizes, owners):
            vp[seat] += GROUP_VP[size]
        cached = state.vp_cache = (groups, vp)
    return cached[1][:]


def landscape_groups(
    neighbours: list[tuple[int, ...]], state: BeastyBordersState
) -> tuple[list[int], list[int], list[int]]:
    """:func:`group_labels` of ``state``'s landscape, cached on the state until the next filling."""
    if state.group_cache is None:
        state.group_cache = group_labels(state.board.tolist(), neighbours)
    return state.group_cache
