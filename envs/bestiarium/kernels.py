"""Bestiarium's compiled rules, which both engines share: the state declared once (:data:`STATE`, the batched
:class:`BestiariumBatchedState`), the per-board tables (:class:`Tables`), the row functions every engine offers
(``envs.common.fastsearch.ROW_FUNCTIONS``: :func:`mover_row`, :func:`legal_row`, :func:`apply_row`,
:func:`returns_row`, :func:`copy_row`, :func:`random_action_row`) and the rule steps and scoring they use, and
:func:`canonical_form`, the shape comparison that the observation's kernels (``observation.py``) share with them.
``fast.py`` runs them over rows (the batched engine), ``search.py`` inside its compiled search.

State, one row per game (:data:`STATE`): per cell its colour (0 empty, 1 Black, 2 White) and creature;
per seat and cell whether that seat may place there (kept up to date around each change, as ``rules.py`` does).
Creatures never merge and never split (see ``rules.py``), so a creature is a linked list of its cells and is named
by its **slot**: the cell where it was born. That cell stays in the creature for its whole life (stones leave a
creature only when the whole creature is eaten), so two live creatures never share a slot and a new creature,
born on an empty cell, can always take the slot of the cell it is born on: no allocation, no ids to recycle.

Shapes. Two creatures are compared only when they have the same size (eating, and counting a fauna's distinct
shapes at the end). The engine compares their *canonical forms*: for each symmetry of the chosen equivalence
(12, 6 or 1 maps of the hexagon onto itself, ``hexgrid.transforms``), the creature's mapped cells, translated
so that their smallest q and r are 0, encoded as ``r * stride + q`` and sorted; the form is the
lexicographically smallest of these code lists. Two cell sets have equal forms exactly when one is a translated
image of the other under the group, whatever the encoding's order. The forms are computed when needed (a few
hundred operations for the small creatures of real play; no table, no cache to invalidate), except that sizes
with a single shape skip the work: size 1 always, size 2 unless ``"fixed"``. The tests check the forms against
``hexgrid.canonical_shape`` on random polyhexes and count every polyhex up to size 6 under each equivalence.

numba's cache (``cache=True``) keys each compiled function on its own file only: after editing this file, delete
``envs/bestiarium/__pycache__/*.nbi`` and ``*.nbc``, or the kernels of ``observation.py``, ``fast.py`` and
``search.py`` that call these functions keep running the old code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envs.bestiarium.actions import GROW, PLACE
from envs.common.fastrng import below
from envs.common.jit import inline_jit, refcount_jit, row_jit
from envs.common.state import Field, StateLayout, copy_fields

_BIG = 1 << 30


STATE = StateLayout(
    "BestiariumBatchedState",
    __name__,
    Field(
        "color",
        np.uint8,
        ("cells",),
        batched_only=True,
        doc="Per cell: 0 empty, 1 Black, 2 White (the reference state's ``color``, its snapshots' ``board`` text).",
    ),
    Field(
        "cid",
        np.int16,
        ("cells",),
        fill=-1,
        batched_only=True,
        doc="Per cell: the slot of the creature on it, -1 if empty (the reference numbers its creatures itself).",
    ),
    Field(
        "link",
        np.int16,
        ("cells",),
        fill=-1,
        batched_only=True,
        doc="Per cell: the next cell of the same creature, -1 at the end of the list.",
    ),
    Field(
        "head",
        np.int16,
        ("cells",),
        fill=-1,
        batched_only=True,
        doc="Per slot: the creature's first listed cell (-1 for a free slot).",
    ),
    Field("size", np.int16, ("cells",), batched_only=True, doc="Per slot: the creature's size (0 for a free slot)."),
    Field(
        "legal",
        np.uint8,
        (2, "cells"),
        fill=1,
        batched_only=True,
        doc="Per seat and cell: 1 where it may place (empty, touching at most one of its creatures).",
    ),
    Field("to_move", np.int8, doc="The seat to act (kept through an eating chain)."),
    Field("phase", np.int8, fill=PLACE, doc="``PLACE`` or ``GROW``."),
    Field(
        "chain",
        np.int16,
        fill=-1,
        reference=False,
        doc="The slot of the creature that must grow (grow phase), else -1 (the reference: its creature id).",
    ),
    Field("passes", np.int8, doc="Consecutive passes just made (2 ends the game)."),
    Field("first_passer", np.int8, fill=-1, doc="The seat that made the first of the pending/final passes, else -1."),
    Field("plies", np.int32, doc="Placements + growths + passes."),
    Field("over", np.bool_, container=bool, doc="The game ended (two passes in a row)."),
    Field(
        "rng",
        np.uint64,
        batched_only=True,
        copied=False,
        doc="The row's SplitMix64 state (envs.common.fastrng): the compiled search's random choices.",
    ),
    doc="B Bestiarium games, row ``b`` of every field game ``b`` (:data:`STATE`). A creature is named by its slot, "
    "the cell it was born on.",
)
"""The state declared once (:mod:`envs.common.state`): the batched type, ``new_state``, :func:`copy_row`, the reset
and the conversions of the turn books (``to_move`` ... ``over``) follow from it; a fresh game's row is also a row
not yet started. The board and the creatures (``color``, ``cid``, ``link``, ``head``, ``size``) and the legality
bytes (``legal``) are ``batched_only``: the reference state numbers its creatures itself (ids in order of birth, a
dict of their cells) and its snapshots hold the board alone, as text (``board``), from which the creatures and the
legality are rebuilt, so ``fast.py`` converts the board and recomputes the rest. ``chain`` is ``reference=False``:
the batched state names the growing creature by its slot, the reference state by its id. ``cells``: the board's
cells (``fast.BestiariumBatched.state_sizes``)."""
BestiariumBatchedState = STATE.batched_type


class Scratch(NamedTuple):
    """Work buffers of one kernel call (shared by its rows; ``mark`` is all False between uses): views of the
    tables' work arrays (:func:`_scratch_of`)."""

    cells: np.ndarray
    other: np.ndarray
    form: np.ndarray
    other_form: np.ndarray
    work: np.ndarray
    cand: np.ndarray
    freed: np.ndarray
    mark: np.ndarray
    mask: np.ndarray
    """(N + 1,) bool: ``random_action_row``'s legal mask."""
    values: np.ndarray
    """(2, N + 1) int64: ``returns_row``'s cascade values."""


class Tables(NamedTuple):
    """Per-board constants the kernels read."""

    nbrs: np.ndarray
    """(N, 6) int64: the on-board neighbours first, then -1."""
    tq: np.ndarray
    """(T, N) int64: q of each cell under each symmetry of the shape equivalence."""
    tr: np.ndarray
    """(T, N) int64: r likewise."""
    stride: int
    """Code stride of canonical forms (> any translated q)."""
    single_shape_max: int
    """Sizes up to this have a single shape under the equivalence (2; 1 for 'fixed')."""
    square_cell: np.ndarray
    """(S*S,) int64: the cell on each square of the observation plane, -1 off the hexagon."""
    size_plane: np.ndarray
    """(N+1,) float32: planes 7/8's value for a creature of each size (min(size, 10) / 10, as the reference)."""
    cell_square: np.ndarray
    """(N,) int64: the square of each cell in the observation plane."""
    max_plies: int
    """The ply cap (the reference's ``max_game_length``): a row reaching it is cut (``mover_row`` -1)."""
    work: np.ndarray
    """(7, N) int64: the engine's work buffers (its kernels run one call at a time per engine; flat arrays, not a
    nested tuple, so that numba's parallel kernels take the tables too), seen through :class:`Scratch`."""
    work_mark: np.ndarray
    """(N,) bool work, all False between uses."""
    work_mask: np.ndarray
    """(N + 1,) bool work."""
    work_values: np.ndarray
    """(2, N + 1) int64 work."""


@refcount_jit
def canonical_form(cells, n, tq, tr, stride, out, work):
    """The canonical form of ``cells[:n]`` into ``out[:n]``: for each symmetry ``t`` of the shape equivalence
    (``tq[t]``, ``tr[t]``: each cell's mapped axial coordinates) the mapped cells translated to q, r >= 0 and
    encoded ``r * stride + q``, sorted; the form is the lexicographically smallest list. Equal forms = same shape."""
    for t in range(tq.shape[0]):
        mq = _BIG
        mr = _BIG
        for i in range(n):
            q = tq[t, cells[i]]
            r = tr[t, cells[i]]
            if q < mq:
                mq = q
            if r < mr:
                mr = r
        for i in range(n):  # insertion sort while encoding (creatures are small)
            v = (tr[t, cells[i]] - mr) * stride + (tq[t, cells[i]] - mq)
            k = i
            while k > 0 and work[k - 1] > v:
                work[k] = work[k - 1]
                k -= 1
            work[k] = v
        better = t == 0
        if not better:
            for i in range(n):
                if work[i] != out[i]:
                    better = work[i] < out[i]
                    break
        if better:
            for i in range(n):
                out[i] = work[i]


@inline_jit
def _scratch_of(tab):
    """The tables' work arrays as a :class:`Scratch` (views, nothing allocated)."""
    w = tab.work
    return Scratch(w[0], w[1], w[2], w[3], w[4], w[5], w[6], tab.work_mark, tab.work_mask, tab.work_values)


# ----- small row helpers ----------------------------------------------------------------------------------------
# The small helpers called many times a step are inlined by numba (``inline_jit``): a call passes the whole state
# tuple (14 arrays, reference counts included). Inlining them made random play's apply about 1.3x faster; inlining
# the step itself too gained another 1.2x but tripled the first-call compile time (85 s CPU, not 28 s).
@inline_jit
def legal_at(st, b, j, col, nbrs):
    """1 if empty cell ``j`` touches at most one creature of colour ``col``."""
    found = -1
    for d in range(6):
        k = nbrs[j, d]
        if k < 0:
            break
        if st.color[b, k] == col:
            c = st.cid[b, k]
            if found < 0:
                found = c
            elif c != found:
                return 0
    return 1


@inline_jit
def cells_of(st, b, c, out):
    """Write creature ``c``'s cells into ``out``; returns how many."""
    n = 0
    x = st.head[b, c]
    while x >= 0:
        out[n] = x
        n += 1
        x = st.link[b, x]
    return n


@inline_jit
def canonical(tab, cells, n, out, work):
    """The canonical form of ``cells[:n]`` into ``out[:n]`` (:func:`canonical_form` with the tables' symmetries)."""
    canonical_form(cells, n, tab.tq, tab.tr, tab.stride, out, work)


@inline_jit
def same_form(forms, i, form, n):
    """Whether ``forms[i, :n]`` and ``form[:n]`` are the same canonical form (two creatures of size ``n`` of the same
    shape): the one comparison behind every "is this shape new" and "is that creature another shape" test."""
    for k in range(n):  # noqa: SIM110 - numba cannot compile a generator inside all()
        if forms[i, k] != form[k]:
            return False
    return True


@inline_jit
def _add_stone(st, b, x, seat, c, nbrs):
    """Put a stone of ``seat`` on empty ``x`` into creature ``c`` and refresh the mover's legality around it."""
    col = seat + 1
    st.color[b, x] = col
    st.cid[b, x] = c
    st.link[b, x] = st.head[b, c]
    st.head[b, c] = x
    st.size[b, c] += 1
    st.legal[b, 0, x] = 0
    st.legal[b, 1, x] = 0
    for d in range(6):
        j = nbrs[x, d]
        if j < 0:
            break
        if st.color[b, j] == 0 and st.legal[b, seat, j]:
            st.legal[b, seat, j] = legal_at(st, b, j, col, nbrs)


@inline_jit
def _can_grow_after(st, b, seat, c, cells, n, mark, nbrs):
    """Whether C (``cells[:n]``) has a growth cell once the marked creatures are removed (freed cells included)."""
    own = seat + 1
    for i in range(n):
        x = cells[i]
        for d in range(6):
            j = nbrs[x, d]
            if j < 0:
                break
            cj = st.color[b, j]
            if cj == 0:
                if st.legal[b, seat, j]:
                    return True
            elif cj != own and mark[st.cid[b, j]]:
                ok = True
                for d2 in range(6):
                    k = nbrs[j, d2]
                    if k < 0:
                        break
                    if st.color[b, k] == own and st.cid[b, k] != c:
                        ok = False
                        break
                if ok:
                    return True
    return False


@row_jit
def _eat_and_continue(st, tab, b, seat, c, sc):
    """After C grew: eat every adjacent enemy creature of its size and another shape if C can then grow (grow
    phase, same seat), else end the turn."""
    nbrs = tab.nbrs
    size = st.size[b, c]
    enemy = 2 - seat
    cells, cand, mark = sc.cells, sc.cand, sc.mark
    n = cells_of(st, b, c, cells)
    ncand = 0
    for i in range(n):
        x = cells[i]
        for d in range(6):
            j = nbrs[x, d]
            if j < 0:
                break
            if st.color[b, j] == enemy:
                e = st.cid[b, j]
                if st.size[b, e] == size and not mark[e]:
                    mark[e] = True
                    cand[ncand] = e
                    ncand += 1
    for i in range(ncand):
        mark[cand[i]] = False
    eaten = 0
    if ncand > 0 and size > tab.single_shape_max:
        canonical(tab, cells, n, sc.form, sc.work)
        for i in range(ncand):
            e = cand[i]
            m = cells_of(st, b, e, sc.other)
            canonical(tab, sc.other, m, sc.other_form, sc.work)
            for k in range(m):
                if sc.other_form[k] != sc.form[k]:
                    cand[eaten] = e
                    eaten += 1
                    break
    if eaten > 0:
        for i in range(eaten):
            mark[cand[i]] = True
        grows = _can_grow_after(st, b, seat, c, cells, n, mark, nbrs)
        for i in range(eaten):
            mark[cand[i]] = False
        if grows:
            freed = sc.freed
            nf = 0
            for i in range(eaten):
                e = cand[i]
                x = st.head[b, e]
                while x >= 0:
                    nxt = st.link[b, x]
                    st.color[b, x] = 0
                    st.cid[b, x] = -1
                    st.link[b, x] = -1
                    freed[nf] = x
                    nf += 1
                    x = nxt
                st.size[b, e] = 0
                st.head[b, e] = -1
            for i in range(nf):
                x = freed[i]
                for d in range(-1, 6):
                    j = x if d < 0 else nbrs[x, d]
                    if j < 0:
                        break
                    if st.color[b, j] == 0:
                        st.legal[b, 0, j] = legal_at(st, b, j, 1, nbrs)
                        st.legal[b, 1, j] = legal_at(st, b, j, 2, nbrs)
            st.phase[b] = GROW
            st.chain[b] = c
            return
    st.phase[b] = PLACE
    st.chain[b] = -1
    st.to_move[b] = 1 - seat


@row_jit
def step_row(st, tab, b, a, sc):
    """Play legal action ``a`` in live row ``b`` (``sc``: the work buffers, :class:`Scratch`)."""
    nbrs = tab.nbrs
    n_cells = st.color.shape[1]
    seat = st.to_move[b]
    if st.phase[b] == GROW:
        c = st.chain[b]
        _add_stone(st, b, a, seat, c, nbrs)
        st.plies[b] += 1
        _eat_and_continue(st, tab, b, seat, c, sc)
        return
    if a == n_cells:  # pass
        st.plies[b] += 1
        st.passes[b] += 1
        if st.passes[b] == 1:
            st.first_passer[b] = seat
        else:
            st.over[b] = True
        st.to_move[b] = 1 - seat
        return
    col = seat + 1
    c = -1
    for d in range(6):
        k = nbrs[a, d]
        if k < 0:
            break
        if st.color[b, k] == col:
            c = st.cid[b, k]
            break
    if c < 0:  # a new creature, in the slot of the cell it is born on
        c = a
        st.head[b, c] = -1
        st.size[b, c] = 0
    _add_stone(st, b, a, seat, c, nbrs)
    st.plies[b] += 1
    st.passes[b] = 0
    st.first_passer[b] = -1
    _eat_and_continue(st, tab, b, seat, c, sc)


@row_jit
def mask_row(st, b, out_row, nbrs):
    """The mover's legal mask of row ``b`` into ``out_row`` (length N + 1); returns the number of legal actions."""
    n_cells = st.color.shape[1]
    for a in range(n_cells + 1):
        out_row[a] = False
    if st.over[b]:
        return 0
    seat = st.to_move[b]
    count = 0
    if st.phase[b] == GROW:
        x = st.head[b, st.chain[b]]
        while x >= 0:
            for d in range(6):
                j = nbrs[x, d]
                if j < 0:
                    break
                if st.color[b, j] == 0 and st.legal[b, seat, j] and not out_row[j]:
                    out_row[j] = True
                    count += 1
            x = st.link[b, x]
        return count
    for j in range(n_cells):
        if st.legal[b, seat, j]:
            out_row[j] = True
            count += 1
    if count == 0:
        out_row[n_cells] = True
        count = 1
    return count


# ----- scoring ----------------------------------------------------------------------------------------------------
@refcount_jit
def size_values_row(st, tab, b, sc, values):
    """``values[seat, s]``: the cascade value of ``seat`` at size ``s`` (+k s^2 for a fauna of k >= 2 shapes, else
    -n s^2 for n creatures of one shape, 0 for none); returns the largest size present (0 on an empty board)."""
    n_cells = st.color.shape[1]
    values[:, :] = 0
    count = np.zeros((2, n_cells + 1), dtype=np.int64)
    top = 0
    for x in range(n_cells):  # a live creature's slot is one of its own cells
        v = st.color[b, x]
        if v != 0 and st.cid[b, x] == x:
            s = st.size[b, x]
            count[v - 1, s] += 1
            if s > top:
                top = s
    forms = np.empty((0, 0), dtype=np.int64)
    for seat in range(2):
        for s in range(1, top + 1):
            n = count[seat, s]
            if n == 0:
                continue
            kinds = 1
            if n >= 2 and s > tab.single_shape_max:
                if forms.shape[0] < n or forms.shape[1] < s:
                    forms = np.empty((max(n, forms.shape[0]), max(s, forms.shape[1])), dtype=np.int64)
                m = 0
                for x in range(n_cells):
                    if st.color[b, x] == seat + 1 and st.cid[b, x] == x and st.size[b, x] == s:
                        cells_of(st, b, x, sc.cells)
                        canonical(tab, sc.cells, s, sc.form, sc.work)
                        fresh = True
                        for i in range(m):
                            if same_form(forms, i, sc.form, s):
                                fresh = False
                                break
                        if fresh:
                            for k in range(s):
                                forms[m, k] = sc.form[k]
                            m += 1
                kinds = m
            values[seat, s] = kinds * s * s if kinds >= 2 else -n * s * s
    return top


@refcount_jit
def winner_row(st, tab, b, sc, values):
    """The winning seat of finished row ``b``: the cascade from the largest size down, then the first passer."""
    top = size_values_row(st, tab, b, sc, values)
    for s in range(top, 0, -1):
        if values[0, s] != values[1, s]:
            return 0 if values[0, s] > values[1, s] else 1
    return st.first_passer[b]


# ----- the row functions of every engine (envs.common.fastsearch.ROW_FUNCTIONS) ------------------------------------
@inline_jit
def mover_row(st, tab, b):
    """The seat to move in row ``b`` (the eater keeps the turn through a chain), -1 when over or at the ply cap."""
    if st.over[b] or st.plies[b] >= tab.max_plies:
        return -1
    return np.int64(st.to_move[b])


@row_jit
def legal_row(st, tab, b, out):
    """The mover's legal mask of row ``b`` into ``out`` (N + 1 bools); returns how many are legal."""
    return mask_row(st, b, out, tab.nbrs)


@inline_jit
def apply_row(st, tab, b, a):
    """Play legal action ``a`` in live row ``b`` (no chance)."""
    step_row(st, tab, b, a, _scratch_of(tab))


@refcount_jit
def returns_row(st, tab, b, out):
    """+1 / -1 per seat of finished row ``b`` into ``out``: the cascade, then the first of the final passes."""
    winner = winner_row(st, tab, b, _scratch_of(tab), tab.work_values)
    out[winner] = 1.0
    out[1 - winner] = -1.0


@row_jit
def copy_row(st, tab, src, dst):
    """Row ``src`` of every declared field but the generator into row ``dst`` (``envs.common.state.copy_fields``)."""
    copy_fields(st, src, dst)


@row_jit
def random_action_row(st, tab, b):
    """A uniformly random legal action of live row ``b``, from ``st.rng[b]`` (the k-th legal in id order)."""
    mask = tab.work_mask
    k = below(st.rng, b, mask_row(st, b, mask, tab.nbrs))
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@refcount_jit
def cascade_values_row(st, tab, b, values):
    """``values[seat, s]``: each seat's cascade value at size ``s`` in row ``b`` (see :func:`size_values_row`);
    returns the largest size present (0 on an empty board)."""
    return size_values_row(st, tab, b, _scratch_of(tab), values)
