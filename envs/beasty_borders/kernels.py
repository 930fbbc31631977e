"""The compiled rules of Beasty Borders, shared by both engines: the group books and the scoring that ``rules.py``
keeps on its states, and the batched state with the row functions that ``fast.py`` loops over rows and the search
plays on.

* The groups of animals and the rulebook's group table (:data:`GROUP_VP`), kept as books on a reference state so
  that scores and observations need not recount them after every placement (``rules.py`` scores with
  :func:`victory_points`; :func:`add_to_groups` updates the books after a placement, :func:`stale_spaces` says which
  of the observation's cached space entries it changes), and :func:`rebuild_groups`, the compiled flood fill that
  recounts the groups of a landscape's row view (the batched engine's :meth:`~fast.BeastyBordersBatched.from_reference`
  and the compiled observation of a reference state).
* The state declared once (:data:`STATE`, :mod:`envs.common.state`; the batched :class:`BeastyBordersBatchedState`,
  first axis = game): the landscape's cell codes (as ``rules.py``: 0 empty green, 1 lake, 2 empty-space marker,
  3 + 3 * seat + type an animal), the tiles, the steps-marker, roll, roller, phase, the variant's choice and bidding
  row, supplies and animals placed, plies played, and kept up to date by every placement: the group of each animal
  (``label``: a cell of its group, the group's size in ``group_size`` at that cell), each seat's victory points and
  the number of empty green spaces. ``rng`` is each game's own SplitMix64 generator (:mod:`envs.common.fastrng`):
  the die rolls are drawn from it.
* :class:`Tables`: one configuration's constants, the greedy rule's weights and the engine's work buffers, one flat
  ``NamedTuple`` that every kernel takes whole, never its fields one by one.
* The row functions every engine exports with one meaning (``envs.common.fastsearch.ROW_FUNCTIONS``:
  :func:`mover_row`, :func:`legal_row`, :func:`apply_row`, :func:`returns_row`, :func:`copy_row`,
  :func:`random_action_row`) and the helpers they use; :func:`mover_of`, :func:`legal_inline` and :func:`draw_roll`
  are public for ``fast.py``'s batch kernels and compiled greedy. They compile without reference counting
  (``envs.common.jit.row_jit`` says why).

Tables the kernels read as globals (``GROUP_VP``, the cell codes) are frozen into numba's on-disk cache, which only
watches the file of the function it compiled: ``fast.py``'s, ``observation.py``'s and ``search.py``'s cached
kernels, which call these, do not notice edits here (after editing this file, clear
``envs/beasty_borders/__pycache__``).
"""

# The hot loops keep the scalar comparisons that docs/speed.md was measured on rather than a tuple membership test.

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from envs.beasty_borders.actions import EMPTY, FIRST_ANIMAL, MARKER, ROLLER_CHOICE, ROW_LEN
from envs.common.fastrng import below
from envs.common.jit import inline_jit, refcount_jit, row_jit
from envs.common.state import Field, StateLayout, copy_fields

GROUP_VP = (0, 0, 1, 3, 5, 7, 8, 9, 10)
"""Victory points of a group of n animals (the rulebook's table)."""


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


def victory_points(neighbours: list[tuple[int, ...]], state: Any) -> list[int]:
    """Victory points per seat: GROUP_VP of every group's size, summed per owner (cached on the state with the
    groups they were counted from; the caller gets a fresh list). ``state``: a ``rules.BeastyBordersState``."""
    groups = landscape_groups(neighbours, state)
    cached = state.vp_cache
    if cached is None or cached[0] is not groups:
        _, sizes, owners = groups
        vp = [0, 0]
        for size, seat in zip(sizes, owners):
            vp[seat] += GROUP_VP[size]
        cached = state.vp_cache = (groups, vp)
    return cached[1][:]


def landscape_groups(neighbours: list[tuple[int, ...]], state: Any) -> tuple[list[int], list[int], list[int]]:
    """:func:`group_labels` of ``state``'s landscape (a ``rules.BeastyBordersState``), cached on the state until the
    next filling."""
    if state.group_cache is None:
        state.group_cache = group_labels(state.board.tolist(), neighbours)
    return state.group_cache


def stale_spaces(neighbours: Sequence[tuple[int, ...]], filled: int, members: list[int] | None) -> set[int]:
    """Cells whose ``observation.space_entry`` (cached on a reference state: ``space_cache``) may change when
    ``filled`` is filled: itself and its neighbours (room), and with an animal every neighbour of the group it joined
    (``members``, its cells: gains)."""
    stale = {filled, *neighbours[filled]}
    for c in members or ():
        stale.update(neighbours[c])
    return stale


_GROUP_VP = np.array(GROUP_VP, dtype=np.int64)
_TOP = len(GROUP_VP) - 1


@refcount_jit
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


STATE = StateLayout(
    "BeastyBordersBatchedState",
    __name__,
    Field(
        "board",
        np.int8,
        ("cells",),
        reference=False,
        doc="Cell codes: 0 empty green, 1 lake, 2 empty-space marker, 3 + 3 * seat + type an animal.",
    ),
    Field("tiles", np.int8, ("tiles",), doc="The tile id in each grid slot (row-major)."),
    Field("pos", np.int64, doc="The cell of the steps-marker."),
    Field("roll", np.int64, fill=1, idle=0, doc="This turn's die roll (1..8)."),
    Field("roller", np.int64, doc="The seat that rolled this turn."),
    Field("phase", np.int64, fill=ROLLER_CHOICE, doc="ROLLER_CHOICE or RESPONDER_CHOICE."),
    Field(
        "choice",
        np.int64,
        fill=-1,
        idle=0,
        doc="Variant: the roller's figure (bidding-row index), -1 for a pass or none yet.",
    ),
    Field("remaining", np.int64, (2, "types"), doc="Figures held per seat and type (variant: still in the row)."),
    Field("placed", np.int64, (2,), doc="Animals placed per seat (the first tie-break)."),
    Field(
        "row",
        np.bool_,
        (ROW_LEN,),
        reference=False,
        doc="Variant: each bidding-row figure still in the row (main game: all False).",
    ),
    Field("plies", np.int64, batched_only=True, doc="Decisions played (the AEC env's truncation count)."),
    Field(
        "empty_count",
        np.int64,
        batched_only=True,
        doc="Empty green spaces, 0 once the game is over (the reference state's ``empty``: their path ranks).",
    ),
    Field(
        "label",
        np.int8,
        ("cells",),
        fill=-1,
        batched_only=True,
        doc="The group of each animal (a cell of it), -1 elsewhere.",
    ),
    Field("group_size", np.int8, ("cells",), batched_only=True, doc="The size of the group labelled by that cell."),
    Field("vp", np.int64, (2,), batched_only=True, doc="Victory points per seat (kept with the groups)."),
    Field(
        "rng",
        np.uint64,
        batched_only=True,
        copied=False,
        doc="The game's SplitMix64 generator (envs.common.fastrng): the die rolls and tile shuffles.",
    ),
    doc="B Beasty Borders games; row ``b`` of every field is game ``b`` (:data:`STATE`).",
)
"""The state declared once (:mod:`envs.common.state`): the batched type, ``new_state``, :func:`copy_row`, the reset,
the conversions between the engines and the snapshots' plain fields follow from it. ``board`` and ``row`` are
``reference=False``: the reference state keeps them as numpy arrays (``board`` intp, ``row`` float32 0/1 and None in
the main game) and its snapshots write them as text, so ``fast.py`` and ``render.py`` convert them. ``empty_count``
and the group books (``label``, ``group_size``, ``vp``) are caches the compiled rules keep: the reference state
derives them (``empty``, ``group_cache``), ``from_reference`` recounts them from the landscape. Shapes name the
sizes of ``rules.BeastyBordersGame.layout_sizes``: ``cells``, ``tiles`` (slots) and ``types`` (per seat)."""
BeastyBordersBatchedState = STATE.batched_type


class Tables(NamedTuple):
    """What the kernels read besides the state: one configuration's constants, the greedy rule's weights and the
    engine's work buffers (its kernels run one call at a time per engine). Flat (arrays and scalars, no nested
    tuple), as numba's kernels take it whole. The observation's own tables are ``observation.ViewTables``."""

    luck: bool
    """The main game (a die roll picks the space, the players pick types) rather than the variant's bidding row."""
    types: int
    """Animal types per seat (3 main, 2 variant)."""
    pass_action: int
    """The pass's action id (the last)."""
    max_plies: int
    """The AEC env's ply cap (``max_game_length``): a row reaching it is cut (:func:`mover_row` -1; never reached,
    every filling takes at most two decisions)."""
    path: np.ndarray
    """(cells,) int64: the steps-marker's cyclic path."""
    rank: np.ndarray
    """(cells,) int64: each cell's place on the path."""
    nbr: np.ndarray
    """(cells, 4) int64: the orthogonal neighbours, then -1."""
    row_owner: np.ndarray
    """(28,) int64: the seat owning each bidding-row figure (variant)."""
    row_type: np.ndarray
    """(28,) int64: each bidding-row figure's type (variant)."""
    counts: np.ndarray
    """(types,) int64: the figures each seat starts with per type."""
    slot_cells: np.ndarray
    """(tiles, 6) int64: the cells of each tile slot of the grid, row-major in the 2 x 3 tile."""
    tile_lake: np.ndarray
    """(9, 6) int8: 1 where space k (row-major in the 2 x 3 tile) of a tile is a lake."""
    greedy_deny: float
    """``fast.GREEDY_DENY``."""
    greedy_potential: float
    """``fast.GREEDY_POTENTIAL``."""
    greedy_pass_below: float
    """``fast.GREEDY_PASS_BELOW``."""
    greedy_pass_below_responder: float
    """``fast.GREEDY_PASS_BELOW_RESPONDER``."""
    work_mask: np.ndarray
    """(num_actions,) bool work: :func:`random_action_row`'s legal mask."""
    work_values: np.ndarray
    """(3,) float64 work: ``fast.greedy_action_row``'s values per type."""


# ----- helpers on one row -------------------------------------------------------------------------------------------
@inline_jit
def mover_of(roller: int, phase: int) -> int:
    """The seat to move: the roller in the roller's choice, the other player in the responder's."""
    return roller if phase == ROLLER_CHOICE else 1 - roller


@inline_jit
def _target_cell(tab, board, pos, steps, empty_count):
    """The ``steps``-th empty green space after ``pos`` along the cyclic path (rules.target_cell; ``board``: the
    row's view): the empty spaces after it, then ``pos`` itself if empty (reached only after a full lap); counting
    runs round."""
    path = tab.path
    k = (steps - 1) % empty_count
    cells = path.shape[0]
    start = tab.rank[pos]
    for i in range(1, cells + 1):
        cell = path[(start + i) % cells]
        if board[cell] == EMPTY:
            if k == 0:
                return cell
            k -= 1
    return pos  # unreachable while empty_count counts the empty spaces


@inline_jit
def draw_roll(st, tab, b, pos):
    """(roll, new marker cell): the D8 from row ``b``'s generator and the marker's move from ``pos``."""
    roll = 1 + below(st.rng, b, 8)
    return roll, _target_cell(tab, st.board[b], pos, roll, st.empty_count[b])


@row_jit
def _fill(board, label, group_size, vp, nbr, cell, code):
    """Put ``code`` on ``cell`` (row views) and keep groups and victory points up to date (a marker changes
    no group; an animal joins the groups of its code next to it, which merge under its own cell's label)."""
    board[cell] = code
    if code < FIRST_ANIMAL:
        return
    # The distinct groups of this code next to the cell (at most 4), found before any relabelling.
    g0 = g1 = g2 = g3 = -1
    total = 1
    lost = 0
    for i in range(4):
        nb = nbr[cell, i]
        if nb < 0:
            break
        if board[nb] != code:
            continue
        g = label[nb]
        if g == g0 or g == g1 or g == g2:
            continue
        if g0 < 0:
            g0 = g
        elif g1 < 0:
            g1 = g
        elif g2 < 0:
            g2 = g
        else:
            g3 = g
        total += group_size[g]
        lost += _GROUP_VP[group_size[g]]
    if g0 >= 0:
        for c in range(board.shape[0]):
            g = label[c]
            if g >= 0 and (g == g0 or g == g1 or g == g2 or g == g3):
                label[c] = cell
    label[cell] = cell
    group_size[cell] = total
    vp[(code - FIRST_ANIMAL) // 3] += _GROUP_VP[min(total, _TOP)] - lost


@inline_jit
def _place(st, tab, b, code):
    """Fill the steps-marker's space of row ``b`` with ``code`` (an animal or the empty-space marker)."""
    _fill(st.board[b], st.label[b], st.group_size[b], st.vp[b], tab.nbr, st.pos[b], code)
    st.empty_count[b] -= 1


@row_jit
def _next_turn(st, tab, b, roller):
    """Start the next turn with ``roller`` rolling, unless the landscape is full (rules._next_turn)."""
    st.phase[b] = ROLLER_CHOICE
    st.choice[b] = -1
    st.roller[b] = roller
    if st.empty_count[b] > 0:
        roll, cell = draw_roll(st, tab, b, st.pos[b])
        st.roll[b] = roll
        st.pos[b] = cell


# ----- the row functions of every engine (envs.common.fastsearch.ROW_FUNCTIONS) ------------------------------------
@row_jit
def mover_row(st, tab, b):
    """The seat to move in row ``b`` (the roller, then the responder), -1 once the landscape is full or at the ply
    cap."""
    if st.empty_count[b] == 0 or st.plies[b] >= tab.max_plies:
        return -1
    return mover_of(st.roller[b], st.phase[b])


@inline_jit
def legal_inline(st, tab, b, out):
    """:func:`legal_row`, inlined into its callers (the batched mask, ``fast.py``'s, calls it 1,024 times a step)."""
    n = out.shape[0]
    for a in range(n):
        out[a] = False
    if st.empty_count[b] == 0:
        return 0
    seat = mover_of(st.roller[b], st.phase[b])
    count = 1  # the pass
    if tab.luck:
        for t in range(tab.types):
            held = st.remaining[b, seat, t] > 0
            out[t] = held
            count += held
        out[tab.types] = True
        return count
    low = st.choice[b] if st.phase[b] == 1 else -1
    row_owner = tab.row_owner
    for i in range(low + 1, n - 1):
        free = st.row[b, i] and row_owner[i] == seat
        out[i] = free
        count += free
    out[n - 1] = True
    return count


@row_jit
def legal_row(st, tab, b, out):
    """The mover's legal mask of row ``b`` into ``out`` (num_actions bools, all False when over; rules.legal_mask);
    returns how many are legal."""
    return legal_inline(st, tab, b, out)


@row_jit
def apply_row(st, tab, b, a):
    """Play action ``a`` (legal) for the mover of live row ``b`` (rules.apply); the next turn's roll from
    ``st.rng[b]``."""
    st.plies[b] += 1
    r = st.roller[b]
    seat = mover_of(r, st.phase[b])
    passed = a == tab.pass_action
    if tab.luck:
        if st.phase[b] == ROLLER_CHOICE:
            if passed:
                st.phase[b] = 1
                return
            _place(st, tab, b, FIRST_ANIMAL + 3 * seat + a)
            st.remaining[b, seat, a] -= 1
            st.placed[b, seat] += 1
            _next_turn(st, tab, b, 1 - r)
            return
        if passed:
            _place(st, tab, b, MARKER)
        else:
            _place(st, tab, b, FIRST_ANIMAL + 3 * seat + a)
            st.remaining[b, seat, a] -= 1
            st.placed[b, seat] += 1
        _next_turn(st, tab, b, r)
        return
    if st.phase[b] == ROLLER_CHOICE:
        st.choice[b] = -1 if passed else a
        st.phase[b] = 1
        return
    figure = st.choice[b] if passed else a
    if figure < 0:
        _place(st, tab, b, MARKER)
    else:
        owner = tab.row_owner[figure]
        kind = tab.row_type[figure]
        st.row[b, figure] = False
        _place(st, tab, b, FIRST_ANIMAL + 3 * owner + kind)
        st.remaining[b, owner, kind] -= 1
        st.placed[b, owner] += 1
    _next_turn(st, tab, b, 1 - r)


@row_jit
def returns_row(st, tab, b, out):
    """+1 / -1 / 0 per seat into ``out`` over the keys (victory points, then animals placed) once row ``b`` is over
    (rules.returns); zeros while live."""
    out[0] = 0.0
    out[1] = 0.0
    if st.empty_count[b] > 0:
        return
    d = st.vp[b, 0] - st.vp[b, 1]
    if d == 0:
        d = st.placed[b, 0] - st.placed[b, 1]
    if d > 0:
        out[0], out[1] = 1.0, -1.0
    elif d < 0:
        out[0], out[1] = -1.0, 1.0


@row_jit
def copy_row(st, tab, src, dst):
    """Row ``src`` of every declared field but the generator into row ``dst`` (``envs.common.state.copy_fields``)."""
    copy_fields(st, src, dst)


@inline_jit
def _nth_legal(mask, k):
    """The ``k``-th (from 0) True entry of the legal mask ``mask``, -1 if there are fewer."""
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@row_jit
def random_action_row(st, tab, b):
    """A uniformly random legal action of live row ``b`` (the k-th legal in id order, k drawn from ``st.rng[b]``)."""
    mask = tab.work_mask
    return _nth_legal(mask, below(st.rng, b, legal_inline(st, tab, b, mask)))
