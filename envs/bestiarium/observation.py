"""Bestiarium's observation: float32 planes ``(56, 2R+1, 2R+1)`` over the square embedding of the hexhex board.

The embedding puts cell ``(q, r)`` at row ``r + R``, column ``q + R`` (see :mod:`envs.common.hexgrid`); the
six hex neighbours of a cell are six of its eight square neighbours (all but the ``(-1,-1)`` and ``(+1,+1)``
diagonals). Squares outside the hexagon are 0 in every plane but the constant ones.

Planes 0-9, the stones (this module):

====  ==========================================================================================
idx   plane (the observer is "me")
====  ==========================================================================================
0     my stones
1     the opponent's stones
2     empty cells
3     on-board cells (1 on the hexagon, 0 in the two unused corners)
4     the creature that must grow (mid eating chain: the mover's creature C; else all 0)
5     grow phase: all 1 while the player to move must choose a growth cell, else all 0
6     a pass is pending: all 1 when the last ply was a pass (one more pass ends the game), else 0
7     size of my creature on each of my stones / 10 (capped at 1)
8     size of the opponent's creature on each of their stones / 10 (capped at 1)
9     cells where I may place a stone (empty, touching at most one of my creatures), whoever is to move
====  ==========================================================================================

Planes 10-55, the score (``bestiarium_v1``; the score planes below, which document each plane): fauna
and twin membership, what one added stone would eat, prey, and 38 constant planes with the scoring cascade now.

Planes 7-9 are derived from the stones (nothing hidden); a convolution sees only a few cells around each cell,
and a creature's size and the merge rule decide every eat, so they are given outright.

:meth:`ObservationEncoder.encode_numpy` is the readable definition of planes 0-9 in numpy;
:meth:`ObservationEncoder.encode` builds the same planes in one compiled kernel (creature sizes by a flood fill
over the colours), about ten times faster; the tests check that both agree on random games.
:meth:`ObservationEncoder.observation` is the whole observation (both kernels); :func:`encoder` is a game's
encoder (one per board size and shape equivalence, shared by the games that have them).

The score planes, planes 10-55:

Bestiarium's score-aware planes (observation planes 10-55 of ``bestiarium_v1``), computed from the position.

The game is decided by a global, combinatorial count: per size, a player's fauna (+k s^2 for k >= 2 distinct
shapes) or species (-n s^2), compared from the largest size down. A few 3x3 convolutions cannot derive shape
classes and that cascade from stone planes (a ConvNet fitted to the sign of "the cascade if the game ended now"
reached an MSE of only 0.54), so the engine computes it and the observation carries it:

* per cell: which creatures are in a fauna, which have a same-shape twin at their size, how many stones a stone
  added on each cell would eat at once (for me and for the opponent), and which creatures are such prey;
* constant planes (the same value on every square): both players' cascade values per size 1..``MAX_SIZE``,
  their comparison per size, the verdict if the game ended now and the size that decides it.

:func:`score_planes` is one compiled kernel over the colour vector, the creatures as the caller keeps them
(:class:`Creatures`) and the two seats' placement bytes, called for both engines (the reference engine's
:func:`observe` through :class:`ObservationEncoder`, the batched engine's :func:`observe_kernel`, which
``fast.py`` calls); :func:`score_planes_reference` is the readable definition over ``rules.py``'s creatures and
shapes, and the tests check that both agree. It compares shapes by the rules' canonical forms
(:func:`envs.bestiarium.kernels.canonical_form`).

numba's cache (``cache=True``) keys each compiled function on its own file only: after editing this file (or
``kernels.py``), delete ``envs/bestiarium/__pycache__/*.nbi`` and ``*.nbc``, or the kernels that call these
functions keep running the old code.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from envs.bestiarium.actions import GROW
from envs.bestiarium.kernels import canonical_form
from envs.bestiarium.rules import BestiariumGame, BestiariumState
from envs.common.game import Symmetry
from envs.common.hexgrid import HexGrid, transforms
from envs.common.jit import REFCOUNT, inline_jit, refcount_jit

_SYMMETRIES: dict[int, tuple[Symmetry, ...]] = {}
"""``symmetries`` per board size, built on first use and shared read-only."""

MAX_SIZE = 12
"""Sizes 1..12 get their own constant rows (creatures in search self-play reach 5-9 stones); the verdict and the
deciding size cover every size."""
EAT_SCALE = 0.1
VALUE_SCALE = 0.25
FIRST = 10
"""Index of the first score-aware plane in the observation (after the ten stone planes)."""
(MY_FAUNA, OPP_FAUNA, MY_TWIN, OPP_TWIN, MY_EAT, OPP_EAT, MY_PREY, OPP_PREY) = range(FIRST, FIRST + 8)
MY_VALUE = FIRST + 8
OPP_VALUE = MY_VALUE + MAX_SIZE
COMPARE = OPP_VALUE + MAX_SIZE
VERDICT = COMPARE + MAX_SIZE
DECIDING_SIZE = VERDICT + 1
NUM_SCORE_PLANES = DECIDING_SIZE + 1 - FIRST
"""46: eight per-cell planes, then 3 x 12 per-size constants, the verdict and the deciding size."""
NUM_GLOBAL_PLANES = DECIDING_SIZE + 1 - MY_VALUE
"""38 constant planes at the end of the observation (a network can read them as one vector)."""
_BIG = 1 << 30


class Creatures(NamedTuple):
    """The creatures of a position as the caller keeps them, for the planes' kernels: each creature is named by a key,
    one of its own cells (``comp[key] == key``), with ``size[key]`` stones listed from ``first[key]`` along ``link``
    (per cell, -1 ends); ``comp`` per cell, -1 empty. The reference engine's observation finds them by a flood fill
    (:func:`creatures_of`), the batched engine reads its own (slots, heads and links)."""

    comp: np.ndarray
    size: np.ndarray
    first: np.ndarray
    link: np.ndarray


class ViewTables(NamedTuple):
    """The per-board constants of the reference engine's observation kernels (:class:`ObservationEncoder`): the
    fields they read, named as in the batched engine's :class:`~envs.bestiarium.kernels.Tables`, which its
    observation kernels read instead."""

    square_cell: np.ndarray
    """(S*S,) int64: the cell on each square of the observation plane, -1 off the hexagon."""
    nbrs: np.ndarray
    """(N, 6) int64: the on-board neighbours first, then -1."""
    tq: np.ndarray
    """(T, N) int64: q of each cell under each symmetry of the shape equivalence."""
    tr: np.ndarray
    """(T, N) int64: r likewise."""
    stride: int
    """Code stride of canonical forms (> any translated q)."""
    single_shape_max: int
    """Sizes up to this have a single shape under the equivalence."""
    cell_square: np.ndarray
    """(N,) int64: the square of each cell in the observation plane."""
    size_plane: np.ndarray
    """(N+1,) float32: planes 7/8's value for a creature of each size."""


@refcount_jit
def creatures_of(color, nbrs, comp, size, first, link, roots):
    """The creatures of a colour vector (the connected components of each colour), by flood fill: per cell
    ``comp`` its creature's root (the creature's first cell in index order; -1 empty), per root ``size`` and its
    cells as a linked list (``first``, then ``link``), and ``roots[:k]``; returns k. ``comp``, ``size``,
    ``first`` and ``link`` must come in as -1, 0, -1, -1."""
    n = len(color)
    stack = np.empty(n, dtype=np.int64)
    nroots = 0
    for x in range(n):
        if color[x] == 0 or comp[x] >= 0:
            continue
        comp[x] = x
        roots[nroots] = x
        nroots += 1
        top = 1
        stack[0] = x
        while top > 0:
            top -= 1
            y = stack[top]
            size[x] += 1
            link[y] = first[x]
            first[x] = y
            for d in range(6):
                j = nbrs[y, d]
                if j < 0:
                    break
                if color[j] == color[x] and comp[j] < 0:
                    comp[j] = x
                    stack[top] = j
                    top += 1
    return nroots


@inline_jit
def _value_entry(v, s):
    """A cascade value ``v`` at size ``s`` as a plane entry: ``v / s^2`` (+k shapes of a fauna, -n creatures of a
    species) times 0.25, clipped to [-1, 1]."""
    return np.float32(max(-1.0, min(1.0, v / (s * s) * VALUE_SCALE)))


SCRATCH_ROWS = 31
"""Rows of the int64 work array (``SCRATCH_ROWS``, N + 1) that :func:`score_planes` uses (:func:`new_scratch`)."""


def new_scratch(num_cells: int) -> np.ndarray:
    """A work array for :func:`score_planes` (its contents need no initialisation; one per thread)."""
    return np.empty((SCRATCH_ROWS, num_cells + 1), dtype=np.int64)


@refcount_jit
def _form_offset(tab, r, s, first, link, pool, off, cells, work):
    """Where creature ``r``'s canonical form (``s`` codes) starts in ``pool``, computed on first use: ``off[r]``
    is -1 until then, ``off[-1]`` the next free entry (the forms of distinct creatures fit: they hold <= N cells);
    ``tab``: the board's symmetries (``tq``, ``tr``, ``stride``)."""
    o = off[r]
    if o < 0:
        m = 0
        y = first[r]
        while y >= 0:
            cells[m] = y
            m += 1
            y = link[y]
        last = off.shape[0] - 1
        o = off[last]
        canonical_form(cells, s, tab.tq, tab.tr, tab.stride, pool[o:], work)
        off[r] = o
        off[last] = o + s
    return o


@inline_jit
def _invariant(r, first, link, tq, tr, inv):
    """Creature ``r``'s spread, computed on first use (``inv[r]`` is -1 until then): the sum over its pairs of
    cells of their squared distance, ``s * sum(N(c)) - N(sum(c))`` with ``N(q, r) = q^2 + q r + r^2`` (any
    symmetry's coordinates: the 12 symmetries and translations keep it). Different spreads = different shapes."""
    v = inv[r]
    if v < 0:
        s = 0
        qs = 0
        rs = 0
        ns = 0
        y = first[r]
        while y >= 0:
            q = tq[0, y]
            w = tr[0, y]
            s += 1
            qs += q
            rs += w
            ns += q * q + q * w + w * w
            y = link[y]
        v = s * ns - (qs * qs + qs * rs + rs * rs)
        inv[r] = v
    return v


@inline_jit
def score_planes(tab, color, legal0, legal1, crea, seat, to_move, chain_root, out, sc):
    """Planes ``FIRST..`` of the observation for ``seat`` into ``out`` (planes, S*S) float32.

    ``tab``: the board's tables (:class:`ViewTables` or the batched engine's
    :class:`~envs.bestiarium.kernels.Tables`: ``nbrs``, ``tq``, ``tr``, ``stride``, ``single_shape_max`` and
    ``cell_square``, each cell's square in the planes); ``color`` (N,) 0 empty / 1 Black / 2 White; ``legal0`` /
    ``legal1`` (N,) each seat's placement bytes; ``crea`` the creatures as the caller keeps them
    (:class:`Creatures`); ``chain_root`` the key of the creature that must grow (grow phase), else -1; ``sc`` a work
    array of :func:`new_scratch`.

    Shapes are compared only where an answer depends on them: canonical forms are computed once per creature and
    only for sizes with several shapes, in groups of two or more creatures of one colour and size (fauna, twins)
    or as the prey of a possible eat; a stone added next to a creature of size m - 1 is looked at only if the
    enemy has a creature of size m."""
    comp, size, first, link = crea.comp, crea.size, crea.first, crea.link
    nbrs, tq, tr, stride = tab.nbrs, tab.tq, tab.tr, tab.stride
    single_shape_max, cell_square = tab.single_shape_max, tab.cell_square
    n = len(color)
    zero = np.float32(0.0)
    one = np.float32(1.0)
    roots, gnext, off, label, pool, newc = sc[0], sc[1], sc[2], sc[3], sc[4], sc[5]
    newform, work, cand, mark, in_new, cells = sc[6], sc[7], sc[8], sc[9], sc[10], sc[11]
    ghead, count, kinds, value = sc[12:14], sc[14:16], sc[16:18], sc[18:20]
    seen, gone, xs, eat, inv = sc[20], sc[21], sc[22], sc[23], sc[24]
    box = sc[25:31]  # per creature: the least and the largest q, r and q + r of its cells
    for pl in range(FIRST, FIRST + 8):  # the per-cell planes: set below where they are not 0
        out[pl, :] = zero
    for i in range(n + 1):
        mark[i] = 0
        in_new[i] = 0
        seen[i] = 0
        gone[i] = 0
        count[0, i] = 0
        count[1, i] = 0
        kinds[0, i] = 0
        kinds[1, i] = 0
        value[0, i] = 0
        value[1, i] = 0
    off[n] = 0
    # the creatures, grouped by colour and size (each group's list in key order)
    nroots = 0
    top = 0
    for x in range(n):
        if color[x] != 0 and comp[x] == x:
            roots[nroots] = x
            nroots += 1
            s = size[x]
            count[color[x] - 1, s] += 1
            if s > top:
                top = s
            off[x] = -1
            inv[x] = -1
            box[0, x] = _BIG
            box[1, x] = -_BIG
            box[2, x] = _BIG
            box[3, x] = -_BIG
            box[4, x] = _BIG
            box[5, x] = -_BIG
    for s in range(top + 1):
        ghead[0, s] = -1
        ghead[1, s] = -1
    for x in range(n):
        r = comp[x]
        if r < 0:
            continue
        q = tq[0, x]
        w = tr[0, x]
        box[0, r] = min(box[0, r], q)
        box[1, r] = max(box[1, r], q)
        box[2, r] = min(box[2, r], w)
        box[3, r] = max(box[3, r], w)
        box[4, r] = min(box[4, r], q + w)
        box[5, r] = max(box[5, r], q + w)
    for i in range(nroots - 1, -1, -1):
        r = roots[i]
        col = color[r] - 1
        gnext[r] = ghead[col, size[r]]
        ghead[col, size[r]] = r
    # shape classes per group: label[r] = the group's first creature of r's shape
    for col in range(2):
        mine = col == seat
        for s in range(1, top + 1):
            k = count[col, s]
            if k == 0:
                continue
            g = ghead[col, s]
            if k == 1 or s <= single_shape_max:
                kinds[col, s] = 1
                r = g
                while r >= 0:
                    label[r] = g
                    r = gnext[r]
            else:
                nk = 0
                r = g
                while r >= 0:
                    label[r] = r
                    iv = _invariant(r, first, link, tq, tr, inv)
                    r2 = g
                    while r2 != r:
                        if label[r2] == r2 and inv[r2] == iv:
                            o = _form_offset(tab, r, s, first, link, pool, off, cells, work)
                            o2 = _form_offset(tab, r2, s, first, link, pool, off, cells, work)
                            same = True
                            for q in range(s):
                                if pool[o + q] != pool[o2 + q]:
                                    same = False
                                    break
                            if same:
                                label[r] = r2
                                break
                        r2 = gnext[r2]
                    if label[r] == r:
                        nk += 1
                    r = gnext[r]
                kinds[col, s] = nk
            value[col, s] = kinds[col, s] * s * s if kinds[col, s] >= 2 else -k * s * s
            if k == 1:
                continue
            fauna = kinds[col, s] >= 2
            r = g
            while r >= 0:
                twin = False
                r2 = g
                while r2 >= 0:
                    if r2 != r and label[r2] == label[r]:
                        twin = True
                        break
                    r2 = gnext[r2]
                if fauna or twin:
                    y = first[r]
                    while y >= 0:
                        if fauna:
                            out[MY_FAUNA if mine else OPP_FAUNA, cell_square[y]] = one
                        if twin:
                            out[MY_TWIN if mine else OPP_TWIN, cell_square[y]] = one
                        y = link[y]
                r = gnext[r]
    # eats: for each seat, every cell where one stone of it could be added now, and what that stone would eat. A
    # stone that starts a creature or makes one of a size with a single shape eats nothing, and neither does one
    # that makes a size the enemy lacks; so only the empty cells around the seat's creatures of size >= the
    # largest single-shape size are looked at, creature by creature (a cell where the seat may place touches at
    # most one of its creatures: the one it would join).
    for p in range(2):
        own = p + 1
        enemy = 2 - p
        legal = legal0 if p == 0 else legal1
        eats_plane = MY_EAT if p == seat else OPP_EAT
        prey_plane = OPP_PREY if p == seat else MY_PREY
        growing = chain_root >= 0 and to_move == p  # then only the eater may take the stone
        for i in range(nroots):
            f = roots[i]
            if color[f] != own or (growing and f != chain_root):
                continue
            m = size[f] + 1
            if m <= single_shape_max or m > top or count[1 - p, m] == 0:
                continue
            # a stone added next to f touches only creatures within distance 2 of f: skip f when the enemy's
            # creatures of size m are all farther (their boxes of q, r and q + r are more than 2 apart from f's)
            near = False
            e = ghead[1 - p, m]
            while e >= 0:
                if (
                    box[0, e] - box[1, f] <= 2
                    and box[0, f] - box[1, e] <= 2
                    and box[2, e] - box[3, f] <= 2
                    and box[2, f] - box[3, e] <= 2
                    and box[4, e] - box[5, f] <= 2
                    and box[4, f] - box[5, e] <= 2
                ):
                    near = True
                    break
                e = gnext[e]
            if not near:
                continue
            # f's cells after the new stone's place, f's enemy neighbours of size m (marked), the cells around f
            nn = 1
            na = 0
            nx = 0
            summed = False
            qs = 0
            rs = 0
            ns = 0
            y = first[f]
            while y >= 0:
                newc[nn] = y
                nn += 1
                for d in range(6):
                    j = nbrs[y, d]
                    if j < 0:
                        break
                    cj = color[j]
                    if cj == enemy:
                        e = comp[j]
                        if size[e] == m and mark[e] == 0:
                            mark[e] = 1
                            cand[na] = e
                            na += 1
                    elif cj == 0 and legal[j] and seen[j] == 0:
                        seen[j] = 1
                        xs[nx] = j
                        nx += 1
                y = link[y]
            for ix in range(nx):
                x = xs[ix]
                seen[x] = 0
                nc = na
                for d in range(6):
                    j = nbrs[x, d]
                    if j < 0:
                        break
                    if color[j] == enemy:
                        e = comp[j]
                        if size[e] == m and mark[e] == 0:
                            mark[e] = 1
                            cand[nc] = e
                            nc += 1
                for k in range(na, nc):
                    mark[cand[k]] = 0
                if nc == 0:
                    continue
                if not summed:  # f's coordinate sums, for the new creatures' spreads
                    for k in range(1, m):
                        q = tq[0, newc[k]]
                        w = tr[0, newc[k]]
                        qs += q
                        rs += w
                        ns += q * q + q * w + w * w
                    summed = True
                newc[0] = x
                q = tq[0, x]
                w = tr[0, x]
                q2 = qs + q
                w2 = rs + w
                iv = m * (ns + q * q + q * w + w * w) - (q2 * q2 + q2 * w2 + w2 * w2)  # the new creature's spread
                formed = False
                ne = 0
                for k in range(nc):
                    e = cand[k]
                    if _invariant(e, first, link, tq, tr, inv) != iv:
                        eat[ne] = e
                        ne += 1
                        continue
                    if not formed:
                        canonical_form(newc, m, tq, tr, stride, newform, work)
                        formed = True
                    o = _form_offset(tab, e, m, first, link, pool, off, cells, work)
                    for q in range(m):
                        if pool[o + q] != newform[q]:
                            eat[ne] = e
                            ne += 1
                            break
                if ne == 0:
                    continue
                for k in range(m):
                    in_new[newc[k]] = 1
                for k in range(ne):
                    gone[eat[k]] = 1
                grows = False  # a growth cell: empty or freed, next to the new creature, touching no other friend
                for k in range(m):
                    if grows:
                        break
                    for d in range(6):
                        j = nbrs[newc[k], d]
                        if j < 0:
                            break
                        if in_new[j]:
                            continue
                        if not (color[j] == 0 or (color[j] == enemy and gone[comp[j]])):
                            continue
                        ok = True
                        for d2 in range(6):
                            g = nbrs[j, d2]
                            if g < 0:
                                break
                            if color[g] == own and not in_new[g]:
                                ok = False
                                break
                        if ok:
                            grows = True
                            break
                if grows:
                    stones = 0
                    for k in range(ne):
                        e = eat[k]
                        stones += size[e]
                        y = first[e]
                        while y >= 0:
                            out[prey_plane, cell_square[y]] = one
                            y = link[y]
                    out[eats_plane, cell_square[x]] = min(np.float32(stones * EAT_SCALE), one)
                for k in range(ne):
                    gone[eat[k]] = 0
                for k in range(m):
                    in_new[newc[k]] = 0
            for k in range(na):
                mark[cand[k]] = 0
    # constant planes: each value once, then the plane filled with it
    mine_col = seat
    theirs_col = 1 - seat
    verdict = zero
    deciding = zero
    for s in range(top, 0, -1):
        a = value[mine_col, s]
        b = value[theirs_col, s]
        if a != b:
            verdict = one if a > b else -one
            deciding = min(np.float32(s / MAX_SIZE), one)
            break
    for s in range(1, MAX_SIZE + 1):
        a = value[mine_col, s] if s <= n else 0
        b = value[theirs_col, s] if s <= n else 0
        va = _value_entry(a, s)
        vb = _value_entry(b, s)
        vc = one if a > b else (-one if a < b else zero)
        out[MY_VALUE + s - 1, :] = va
        out[OPP_VALUE + s - 1, :] = vb
        out[COMPARE + s - 1, :] = vc
    out[VERDICT, :] = verdict
    out[DECIDING_SIZE, :] = deciding


def score_planes_reference(game, state, seat: int) -> np.ndarray:
    """The readable definition of :func:`score_planes` over ``rules.py``'s creatures, shapes and cascade:
    ``(NUM_SCORE_PLANES, N)`` float32 per cell (constant planes repeated on every cell)."""
    n = game.num_cells
    out = np.zeros((NUM_SCORE_PLANES, n), dtype=np.float32)
    color = state.color
    creatures = {c: cells for c, cells in state.members.items()}
    owner = {c: color[cells[0]] - 1 for c, cells in creatures.items()}
    shape = {c: game.shape_id(cells) for c, cells in creatures.items()}
    for c, cells in creatures.items():
        p, s = owner[c], len(cells)
        same_size = [d for d in creatures if owner[d] == p and len(creatures[d]) == s]
        fauna = len({shape[d] for d in same_size}) >= 2
        twin = any(d != c and shape[d] == shape[c] for d in same_size)
        mine = p == seat
        if fauna:
            out[(MY_FAUNA if mine else OPP_FAUNA) - FIRST, cells] = 1.0
        if twin:
            out[(MY_TWIN if mine else OPP_TWIN) - FIRST, cells] = 1.0
    grow = state.chain >= 0 and not state.over  # the grow phase: a creature must grow
    for p in range(2):
        for x in range(n):
            if color[x] or not state.legal[p][x]:
                continue
            if grow and state.to_move == p:
                joined = state.chain
                if not any(state.cid[j] == joined for j in game.nbrs[x]):
                    continue
            else:
                friends = [state.cid[j] for j in game.nbrs[x] if color[j] == p + 1]
                joined = friends[0] if friends else -1
            new = sorted(creatures.get(joined, []) + [x])
            prey = {state.cid[j] for y in new for j in game.nbrs[y] if color[j] == 2 - p}
            prey = [e for e in prey if len(creatures[e]) == len(new) and shape[e] != game.shape_id(new)]
            if not prey:
                continue
            freed = {y for e in prey for y in creatures[e]}
            new_set = set(new)
            grows = any(
                (color[j] == 0 or j in freed)
                and j not in new_set
                and all(color[k] != p + 1 or k in new_set for k in game.nbrs[j])
                for y in new
                for j in game.nbrs[y]
            )
            if not grows:
                continue
            out[(MY_EAT if p == seat else OPP_EAT) - FIRST, x] = min(len(freed) * EAT_SCALE, 1.0)
            out[(OPP_PREY if p == seat else MY_PREY) - FIRST, sorted(freed)] = 1.0
    mine, theirs = game.size_values(state, seat), game.size_values(state, 1 - seat)
    for s in range(1, MAX_SIZE + 1):
        a, b = mine.get(s, 0), theirs.get(s, 0)
        out[MY_VALUE + s - 1 - FIRST] = max(-1.0, min(1.0, a / (s * s) * VALUE_SCALE))
        out[OPP_VALUE + s - 1 - FIRST] = max(-1.0, min(1.0, b / (s * s) * VALUE_SCALE))
        out[COMPARE + s - 1 - FIRST] = np.sign(a - b)
    for s in range(max(list(mine) + list(theirs) + [0]), 0, -1):
        a, b = mine.get(s, 0), theirs.get(s, 0)
        if a != b:
            out[VERDICT - FIRST] = 1.0 if a > b else -1.0
            out[DECIDING_SIZE - FIRST] = min(s / MAX_SIZE, 1.0)
            break
    return out


# ----- the observation --------------------------------------------------------------------------------------------
NUM_STONE_PLANES = 10
NUM_PLANES = NUM_STONE_PLANES + NUM_SCORE_PLANES
(
    PLANE_ME,
    PLANE_OPP,
    PLANE_EMPTY,
    PLANE_BOARD,
    PLANE_CHAIN,
    PLANE_GROW,
    PLANE_PASS,
    PLANE_MY_SIZE,
    PLANE_OPP_SIZE,
    PLANE_LEGAL,
) = range(NUM_STONE_PLANES)
SIZE_SCALE = 0.1


class ObservationEncoder:
    """Builds the planes from a cell colour vector (0 empty, 1 Black, 2 White) for one board and shape
    equivalence (``shape_equivalence`` decides which creatures have the same shape, for planes 10-55)."""

    def __init__(self, grid: HexGrid, shape_equivalence: str = "free"):
        side = grid.square_shape[0]
        self.shape = (NUM_PLANES, side, side)
        self.stone_shape = (NUM_STONE_PLANES, side, side)
        self.sq = grid.square_index
        self.num_squares = side * side
        blank = np.zeros((NUM_STONE_PLANES, self.num_squares), dtype=np.float32)
        blank[PLANE_BOARD, self.sq] = 1.0
        self.blank = blank
        self.off_board = np.full(self.num_squares, 3, dtype=np.uint8)
        """Colour per square, 3 off the hexagon (matches no plane code)."""
        # codes[seat]: the colour shown in planes (me, opp, empty) for that seat.
        self.codes = (
            np.array([[1], [2], [0]], dtype=np.uint8),
            np.array([[2], [1], [0]], dtype=np.uint8),
        )
        # tables of the compiled encoder
        n = grid.num_cells
        self.square_cell = np.full(self.num_squares, -1, dtype=np.int64)
        self.square_cell[self.sq] = np.arange(n)
        self.nbrs = np.full((n, 6), -1, dtype=np.int64)
        for i, row in enumerate(grid.neighbor_lists):
            self.nbrs[i, : len(row)] = row
        self.size_plane = np.minimum(np.arange(n + 1, dtype=np.float32), np.float32(10.0))
        np.multiply(self.size_plane, SIZE_SCALE, out=self.size_plane)
        """Planes 7/8's value for a creature of each size, computed as :meth:`encode_numpy` computes it."""
        self._no_legal = np.zeros(n, dtype=np.uint8)
        maps = transforms(shape_equivalence)
        self.tq = np.array([[f(c)[0] for c in grid.coords] for f in maps], dtype=np.int64)
        self.tr = np.array([[f(c)[1] for c in grid.coords] for f in maps], dtype=np.int64)
        """Each cell's axial coordinates under each symmetry of the equivalence (canonical shape forms)."""
        self.stride = 2 * grid.radius + 1
        self.single_shape_max = 1 if shape_equivalence == "fixed" else 2
        """Sizes up to this have a single shape under the equivalence."""
        self.tables = pack_tables(
            self.square_cell,
            self.nbrs,
            self.tq,
            self.tr,
            self.stride,
            self.single_shape_max,
            np.asarray(self.sq, dtype=np.int64),
        )
        """Every int table of :func:`_observation_kernel` in one array (each argument of a compiled call costs
        about 0.2 us to dispatch; the AEC env builds one observation a step)."""
        self.view_tables = ViewTables(
            self.square_cell,
            self.nbrs,
            self.tq,
            self.tr,
            self.stride,
            self.single_shape_max,
            np.asarray(self.sq, dtype=np.int64),
            self.size_plane,
        )
        """The same tables as one object, for :func:`_encode_kernel` (:meth:`encode`)."""

    def observation(
        self,
        color: np.ndarray,
        seat: int,
        to_move: int,
        chain_cells: list[int] | None,
        grow_phase: bool,
        pass_pending: bool,
        legal: tuple[bytearray, bytearray],
    ) -> np.ndarray:
        """The whole observation (``shape``) for ``seat``: planes 0-9 as :meth:`encode` with the derived planes,
        planes 10-55 by :func:`score_planes`, in one compiled call (the creatures found
        once for both). ``color`` and ``legal`` (both seats' placement bytes) may be bytearrays."""
        code = seat | to_move << 1 | bool(grow_phase) << 2 | bool(pass_pending) << 3
        return _observation_kernel(
            color, legal[0], legal[1], code, chain_cells[0] if chain_cells else -1, self.tables, self.size_plane
        )

    def encode(
        self,
        color: np.ndarray,
        seat: int,
        chain_cells: list[int] | None,
        grow_phase: bool,
        pass_pending: bool,
        creatures: dict[int, list[int]] | None = None,
        creature_ids: list[int] | None = None,
        legal: bytearray | None = None,
    ) -> np.ndarray:
        """Planes 0-9 of :meth:`encode_numpy`, built by a compiled kernel (same arguments; the creatures are
        recomputed from ``color`` as its connected components, which they are)."""
        derived = creatures is not None and legal is not None
        out = np.empty(self.stone_shape, dtype=np.float32)
        _encode_kernel(
            self.view_tables,
            np.asarray(color, dtype=np.uint8),
            np.frombuffer(legal, dtype=np.uint8) if derived else self._no_legal,
            seat,
            chain_cells[0] if chain_cells else -1,
            grow_phase,
            pass_pending,
            derived,
            out.reshape(NUM_STONE_PLANES, self.num_squares),
        )
        return out

    def encode_numpy(
        self,
        color: np.ndarray,
        seat: int,
        chain_cells: list[int] | None,
        grow_phase: bool,
        pass_pending: bool,
        creatures: dict[int, list[int]] | None = None,
        creature_ids: list[int] | None = None,
        legal: bytearray | None = None,
    ) -> np.ndarray:
        """Planes 0-9 for ``seat``; ``color`` is the per-cell colour vector (uint8), ``creatures`` the cells of
        every creature, ``creature_ids`` the creature id per cell (-1 empty), ``legal`` the seat's placement
        bytes per cell."""
        squares = self.off_board.copy()
        squares[self.sq] = color
        out = np.empty_like(self.blank)
        out[:3] = squares == self.codes[seat]
        out[3:] = self.blank[3:]
        if chain_cells:
            out[PLANE_CHAIN, self.sq[chain_cells]] = 1.0
        if grow_phase:
            out[PLANE_GROW] = 1.0
        if pass_pending:
            out[PLANE_PASS] = 1.0
        if creatures is not None and legal is not None:
            # size per creature id (index -1, an empty cell's id, reads the trailing 0), then per cell
            lens = [0] * (max(creatures, default=0) + 2)
            for cid, cells in creatures.items():
                lens[cid] = len(cells)
            extra = np.empty((3, len(color)), dtype=np.float32)
            np.take(np.array(lens, dtype=np.float32), creature_ids, out=extra[0])
            np.minimum(extra[0], 10.0, out=extra[0])
            mine = color == seat + 1
            np.multiply(extra[0], SIZE_SCALE, out=extra[0])
            np.multiply(extra[0], ~mine & (color > 0), out=extra[1])
            np.multiply(extra[0], mine, out=extra[0])
            extra[2] = np.frombuffer(legal, dtype=np.uint8)
            out[PLANE_MY_SIZE:, self.sq] = extra
        return out.reshape(self.stone_shape)


_HEADER = 5


def pack_tables(
    square_cell: np.ndarray,
    nbrs: np.ndarray,
    tq: np.ndarray,
    tr: np.ndarray,
    stride: int,
    single_shape_max: int,
    cell_square: np.ndarray,
) -> np.ndarray:
    """The int tables of :func:`_observation_kernel` in one int64 array (a header of sizes, then each table)."""
    head = np.array([nbrs.shape[0], square_cell.shape[0], tq.shape[0], stride, single_shape_max], dtype=np.int64)
    return np.concatenate([head, square_cell, nbrs.ravel(), tq.ravel(), tr.ravel(), cell_square]).astype(np.int64)


@inline_jit
def _unpack(tables, size_plane):
    """:func:`pack_tables`' tables (and planes 7/8's values per size) as a :class:`ViewTables` (views, nothing
    copied)."""
    n = tables[0]
    nsq = tables[1]
    t = tables[2]
    k = _HEADER
    square_cell = tables[k : k + nsq]
    k += nsq
    nbrs = tables[k : k + 6 * n].reshape((n, 6))
    k += 6 * n
    tq = tables[k : k + t * n].reshape((t, n))
    k += t * n
    tr = tables[k : k + t * n].reshape((t, n))
    k += t * n
    cell_square = tables[k : k + n]
    return ViewTables(square_cell, nbrs, tq, tr, tables[3], tables[4], cell_square, size_plane)


@refcount_jit
def _observation_kernel(color, legal0, legal1, code, chain_cell, tables, size_plane):
    """:meth:`ObservationEncoder.observation`: the creatures by one flood fill, planes 0-9, then
    :func:`score_planes` over the same creatures. ``code``: seat | to_move << 1 |
    grow phase << 2 | pass pending << 3; ``tables``: :func:`pack_tables`."""
    tab = _unpack(tables, size_plane)
    seat = code & 1
    to_move = (code >> 1) & 1
    grow_phase = ((code >> 2) & 1) == 1
    pass_pending = ((code >> 3) & 1) == 1
    side = int(np.sqrt(tab.square_cell.shape[0]) + 0.5)
    out3 = np.empty((NUM_PLANES, side, side), dtype=np.float32)
    out = out3.reshape((NUM_PLANES, tab.square_cell.shape[0]))
    n = len(color)
    sc = np.empty((SCRATCH_ROWS + 5, n + 1), dtype=np.int64)
    base = SCRATCH_ROWS
    comp, comp_size, first, link, roots = sc[base], sc[base + 1], sc[base + 2], sc[base + 3], sc[base + 4]
    for x in range(n):
        comp[x] = -1
        comp_size[x] = 0
        first[x] = -1
        link[x] = -1
    creatures_of(color, tab.nbrs, comp, comp_size, first, link, roots)
    crea = Creatures(comp, comp_size, first, link)
    seat_legal = legal1 if seat else legal0
    _planes_kernel(tab, color, seat_legal, seat, crea, chain_cell, grow_phase, pass_pending, True, out)
    chain_root = comp[chain_cell] if (grow_phase and chain_cell >= 0) else -1
    score_planes(tab, color, legal0, legal1, crea, seat, to_move, chain_root, out, sc)
    return out3


@refcount_jit
def _encode_kernel(tab, color, legal, seat, chain_cell, grow_phase, pass_pending, derived, out):
    """:meth:`ObservationEncoder.encode_numpy`'s planes into ``out[:10]`` (``out``: (planes, S*S))."""
    n = color.shape[0]
    comp = np.full(n, -1, dtype=np.int64)
    comp_size = np.zeros(n, dtype=np.int64)
    first = np.full(n, -1, dtype=np.int64)
    link = np.full(n, -1, dtype=np.int64)
    creatures_of(color, tab.nbrs, comp, comp_size, first, link, np.empty(n, dtype=np.int64))
    crea = Creatures(comp, comp_size, first, link)
    _planes_kernel(tab, color, legal, seat, crea, chain_cell, grow_phase, pass_pending, derived, out)


@refcount_jit
def _planes_kernel(tab, color, legal, seat, crea, chain_cell, grow_phase, pass_pending, derived, out):
    """Planes 0-9 into ``out[:10]`` from the creatures (``crea``: ``comp``, each cell's creature key, and ``size``
    per key; ``tab``: ``square_cell`` and ``size_plane``)."""
    comp, comp_size = crea.comp, crea.size
    square_cell, size_plane = tab.square_cell, tab.size_plane
    chain = comp[chain_cell] if chain_cell >= 0 else -2
    me = seat + 1
    grow_v = np.float32(1.0) if grow_phase else np.float32(0.0)
    pass_v = np.float32(1.0) if pass_pending else np.float32(0.0)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    for k in range(square_cell.shape[0]):
        x = square_cell[k]
        out[5, k] = grow_v
        out[6, k] = pass_v
        for p in (0, 1, 2, 3, 4, 7, 8, 9):
            out[p, k] = zero
        if x < 0:
            continue
        v = color[x]
        out[3, k] = one
        if derived and legal[x]:
            out[9, k] = one
        if v == 0:
            out[2, k] = one
            continue
        c = comp[x]
        if c == chain:
            out[4, k] = one
        s = size_plane[comp_size[c]] if derived else zero
        if v == me:
            out[0, k] = one
            out[7, k] = s
        else:
            out[1, k] = one
            out[8, k] = s


_ENCODERS: dict[tuple[int, str], ObservationEncoder] = {}
"""The encoder per (board size, shape equivalence), built on first use and shared read-only."""


def encoder(game: BestiariumGame) -> ObservationEncoder:
    """The :class:`ObservationEncoder` of ``game``'s board and shape equivalence (built once, shared by every game
    with the same options)."""
    key = (game.board_size, game.shape_equivalence)
    enc = _ENCODERS.get(key)
    if enc is None:
        enc = _ENCODERS[key] = ObservationEncoder(game.grid, game.shape_equivalence)
    return enc


def observe(game: BestiariumGame, state: BestiariumState, seat: int) -> np.ndarray:
    """Planes (56, 2R+1, 2R+1) float32 from ``seat``'s view (the module docstring)."""
    grow = state.phase == GROW and not state.over
    legal = state.legal
    enc = _ENCODERS.get((game.board_size, game.shape_equivalence)) or encoder(game)  # (a call costs: one a step)
    return _observation_kernel(  # one compiled call with few arguments: the AEC env builds one a step
        state.color,
        legal[0],
        legal[1],
        seat | state.to_move << 1 | grow << 2 | (state.passes == 1) << 3,
        state.members[state.chain][0] if grow else -1,
        enc.tables,
        enc.size_plane,
    )


# ----- the batched engine's observation (fast.py) ------------------------------------------------------------------
@refcount_jit
def _observe_row(st, tab, b, seat, out, work):
    """Row ``b``'s planes from ``seat``'s view into ``out`` (56, S*S), as :func:`observe` builds them
    (``work``: :func:`score_planes`' work array)."""
    me = seat + 1
    grow = st.phase[b] == GROW and not st.over[b]
    chain = st.chain[b] if grow else -2
    grow_v = np.float32(1.0) if grow else np.float32(0.0)
    pass_v = np.float32(1.0) if st.passes[b] == 1 else np.float32(0.0)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    sizes = tab.size_plane
    for k in range(tab.square_cell.shape[0]):
        x = tab.square_cell[k]
        out[5, k] = grow_v
        out[6, k] = pass_v
        if x < 0:
            out[0, k] = zero
            out[1, k] = zero
            out[2, k] = zero
            out[3, k] = zero
            out[4, k] = zero
            out[7, k] = zero
            out[8, k] = zero
            out[9, k] = zero
            continue
        v = st.color[b, x]
        out[3, k] = one
        out[9, k] = one if st.legal[b, seat, x] else zero
        if v == 0:
            out[0, k] = zero
            out[1, k] = zero
            out[2, k] = one
            out[4, k] = zero
            out[7, k] = zero
            out[8, k] = zero
            continue
        c = st.cid[b, x]
        s = sizes[st.size[b, c]]
        out[2, k] = zero
        out[4, k] = one if c == chain else zero
        if v == me:
            out[0, k] = one
            out[1, k] = zero
            out[7, k] = s
            out[8, k] = zero
        else:
            out[0, k] = zero
            out[1, k] = one
            out[7, k] = zero
            out[8, k] = s
    # the creatures as the engine keeps them: keyed by slot (a cell of the creature), listed from head along link
    crea = Creatures(st.cid[b], st.size[b], st.head[b], st.link[b])
    chain_root = st.chain[b] if grow else -1
    score_planes(tab, st.color[b], st.legal[b, 0], st.legal[b, 1], crea, seat, st.to_move[b], chain_root, out, work)


@refcount_jit
def observe_kernel(st, tab, seats, out):
    """The batched engine's observations: row ``b``'s planes from ``seats[b]``'s view into ``out[b]`` (B, 56, S*S)
    float32 (``st``, ``tab``: :class:`~envs.bestiarium.kernels.BestiariumBatchedState`,
    :class:`~envs.bestiarium.kernels.Tables`)."""
    work = np.empty((SCRATCH_ROWS, st.color.shape[1] + 1), dtype=np.int64)
    for b in range(st.color.shape[0]):
        _observe_row(st, tab, b, seats[b], out[b], work)


@njit(cache=True, parallel=True, **REFCOUNT)
def observe_kernel_threads(st, tab, seats, out, blocks):
    """:func:`observe_kernel` with the rows split into ``blocks`` contiguous blocks run on numba's threads. The
    rows are independent, so the result does not depend on the block count."""
    rows = st.color.shape[0]
    for t in prange(blocks):
        work = np.empty((SCRATCH_ROWS, st.color.shape[1] + 1), dtype=np.int64)
        for b in range(t * rows // blocks, (t + 1) * rows // blocks):
            _observe_row(st, tab, b, seats[b], out[b], work)


def symmetries(game: BestiariumGame, state: BestiariumState) -> tuple[Symmetry, ...]:
    """The 12 rotations and reflections of the hexhex board about its centre cell, in every position.

    The rules never refer to a direction: legality, eating and scoring compare creatures' sizes and whether
    two shapes are equal, and a turn of the whole board keeps both (under every ``shape_equivalence``: two
    creatures equal up to translation, rotation or reflection stay so when both are turned). Every
    observation plane is per cell or constant, so a symmetry moves the cells of every plane alike; the pass
    stays the pass.
    """
    if game.board_size not in _SYMMETRIES:  # shared by every engine of this size
        _SYMMETRIES[game.board_size] = tuple(symmetry(game, t) for t in transforms("free"))
    return _SYMMETRIES[game.board_size]


def symmetry(game: BestiariumGame, point_map: Any) -> Symmetry:
    """The :class:`~envs.common.game.Symmetry` of the board map ``point_map`` (axial coordinates to axial
    coordinates)."""
    grid = game.grid
    cell_map = np.array([grid.index[point_map(c)] for c in grid.coords], dtype=np.int64)
    side = grid.square_shape[0] * grid.square_shape[1]
    square_map = np.arange(side)
    square_map[grid.square_index] = grid.square_index[cell_map]
    channels = game.observation_shape[0]
    source = np.empty(channels * side, dtype=np.int64)
    source[(np.arange(channels)[:, None] * side + square_map[None, :]).ravel()] = np.arange(channels * side)
    actions = np.append(cell_map, game.pass_action)
    source.setflags(write=False)
    actions.setflags(write=False)
    return Symmetry(observation_source=source, actions=actions)


def action_layout(game: BestiariumGame) -> np.ndarray:
    """Cell actions on their square of the observation planes (one channel: the phase plane says whether
    it places or grows); the pass belongs to no cell (row ``(-1, 0)``)."""
    cells = np.stack([game.grid.square_index, np.zeros(game.num_cells, dtype=np.int64)], axis=1)
    return np.concatenate([cells, [[-1, 0]]]).astype(np.int64)
