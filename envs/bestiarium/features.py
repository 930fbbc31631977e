"""Bestiarium's score-aware planes (observation planes 10-55 of ``bestiarium_v1``), computed from the position.

The game is decided by a global, combinatorial count: per size, a player's fauna (+k s^2 for k >= 2 distinct
shapes) or species (-n s^2), compared from the largest size down. A few 3x3 convolutions cannot derive shape
classes and that cascade from stone planes (a ConvNet fitted to the sign of "the cascade if the game ended now"
reached an MSE of only 0.54), so the engine computes it and the observation carries it:

* per cell: which creatures are in a fauna, which have a same-shape twin at their size, how many stones a stone
  added on each cell would eat at once (for me and for the opponent), and which creatures are such prey;
* constant planes (the same value on every square): both players' cascade values per size 1..``MAX_SIZE``,
  their comparison per size, the verdict if the game ended now and the size that decides it.

:func:`score_planes` is one compiled kernel over the colour vector and the two seats' placement bytes, called by
both engines (``rules.py`` through :class:`~envs.bestiarium.observation.ObservationEncoder`, the batched
``fast.py``); :func:`score_planes_reference` is the readable definition over ``rules.py``'s creatures and
shapes, and the tests check that both agree. :func:`canonical_form` is the shape comparison shared with the
batched engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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


@njit(cache=True)
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


@njit(cache=True)
def creatures_of(color, nbrs, comp, size, first, link, roots):
    """The creatures of a colour vector (the connected components of each colour), by flood fill: per cell
    ``comp`` its creature's root (the creature's first cell in index order; -1 empty), per root ``size`` and its
    cells as a linked list (``first``, then ``link``), and ``roots[:k]``; returns k. ``comp``, ``size``,
    ``first`` and ``link`` must come in as -1, 0, -1, -1."""
    n = color.shape[0]
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


@njit(cache=True, inline="always")
def _value_entry(v, s):
    """A cascade value ``v`` at size ``s`` as a plane entry: ``v / s^2`` (+k shapes of a fauna, -n creatures of a
    species) times 0.25, clipped to [-1, 1]."""
    return np.float32(max(-1.0, min(1.0, v / (s * s) * VALUE_SCALE)))


@njit(cache=True)
def score_planes(color, legal0, legal1, seat, to_move, grow_phase, chain_cell, nbrs, tq, tr, stride,
                 single_shape_max, square_cell, out):
    """Planes ``FIRST..`` of the observation for ``seat`` into ``out`` (planes, S*S) float32.

    ``color`` (N,) 0 empty / 1 Black / 2 White; ``legal0`` / ``legal1`` (N,) each seat's placement bytes;
    ``chain_cell`` a cell of the creature that must grow (grow phase), else -1."""
    n = color.shape[0]
    comp = np.full(n, -1, dtype=np.int64)  # creature root (its first cell in index order) per cell
    size = np.zeros(n, dtype=np.int64)  # per root
    first = np.full(n, -1, dtype=np.int64)  # per root: its cells as a linked list
    link = np.full(n, -1, dtype=np.int64)
    roots = np.empty(n, dtype=np.int64)
    nroots = creatures_of(color, nbrs, comp, size, first, link, roots)
    # canonical forms and shape labels: label[root] = the first root (in index order) of the same size and form
    cells = np.empty(n, dtype=np.int64)
    work = np.empty(n, dtype=np.int64)
    biggest = 1
    for i in range(nroots):
        if size[roots[i]] > biggest:
            biggest = size[roots[i]]
    forms = np.empty((n, biggest + 1), dtype=np.int64)  # rows read only where written (sizes with >1 shape)
    label = np.full(n, -1, dtype=np.int64)
    for i in range(nroots):
        r = roots[i]
        s = size[r]
        if s > single_shape_max:
            m = 0
            y = first[r]
            while y >= 0:
                cells[m] = y
                m += 1
                y = link[y]
            canonical_form(cells, s, tq, tr, stride, forms[r], work)
        label[r] = r
        for i2 in range(i):
            r2 = roots[i2]
            if size[r2] != s or label[r2] != r2:
                continue
            same = True
            if s > single_shape_max:
                for k in range(s):
                    if forms[r2, k] != forms[r, k]:
                        same = False
                        break
            if same:
                label[r] = r2
                break
    # cascade values per colour and size
    top_size = 0
    count = np.zeros((2, n + 1), dtype=np.int64)
    kinds = np.zeros((2, n + 1), dtype=np.int64)
    for i in range(nroots):
        r = roots[i]
        col = color[r] - 1
        s = size[r]
        count[col, s] += 1
        if s > top_size:
            top_size = s
        fresh = True
        for i2 in range(i):
            r2 = roots[i2]
            if color[r2] == color[r] and label[r2] == label[r]:
                fresh = False
                break
        if fresh:
            kinds[col, s] += 1
    value = np.zeros((2, n + 1), dtype=np.int64)
    for col in range(2):
        for s in range(1, top_size + 1):
            if count[col, s] == 0:
                continue
            value[col, s] = kinds[col, s] * s * s if kinds[col, s] >= 2 else -count[col, s] * s * s
    me = seat + 1
    mine_col = seat
    theirs_col = 1 - seat
    # per-cell planes
    zero = np.float32(0.0)
    one = np.float32(1.0)
    cell_planes = np.zeros((8, n), dtype=np.float32)
    for i in range(nroots):
        r = roots[i]
        col = color[r] - 1
        s = size[r]
        mine = color[r] == me
        fauna = kinds[col, s] >= 2
        twin = False
        for i2 in range(nroots):
            r2 = roots[i2]
            if r2 != r and color[r2] == color[r] and label[r2] == label[r]:
                twin = True
                break
        y = first[r]
        while y >= 0:
            if fauna:
                cell_planes[MY_FAUNA - FIRST if mine else OPP_FAUNA - FIRST, y] = one
            if twin:
                cell_planes[MY_TWIN - FIRST if mine else OPP_TWIN - FIRST, y] = one
            y = link[y]
    # eats: for each seat, every cell where one stone of it could be added now, and what that stone would eat
    newc = np.empty(n + 1, dtype=np.int64)
    newform = np.empty(n + 1, dtype=np.int64)
    cand = np.empty(n, dtype=np.int64)
    in_new = np.zeros(n, dtype=np.bool_)
    eaten_mark = np.zeros(n, dtype=np.bool_)
    chain_root = comp[chain_cell] if (grow_phase and chain_cell >= 0) else -1
    for p in range(2):
        own = p + 1
        enemy = 2 - p
        legal = legal0 if p == 0 else legal1
        eats_plane = MY_EAT - FIRST if own == me else OPP_EAT - FIRST
        prey_plane = OPP_PREY - FIRST if own == me else MY_PREY - FIRST
        growing = grow_phase and to_move == p and chain_root >= 0
        for x in range(n):
            if color[x] != 0 or not legal[x]:
                continue
            f = -1
            if growing:
                f = chain_root
                adjacent = False
                for d in range(6):
                    j = nbrs[x, d]
                    if j < 0:
                        break
                    if comp[j] == chain_root:
                        adjacent = True
                        break
                if not adjacent:
                    continue
            else:
                for d in range(6):
                    j = nbrs[x, d]
                    if j < 0:
                        break
                    if color[j] == own:
                        f = comp[j]
                        break
            m = 0
            if f >= 0:
                y = first[f]
                while y >= 0:
                    newc[m] = y
                    m += 1
                    y = link[y]
            newc[m] = x
            m += 1
            for i in range(m):
                in_new[newc[i]] = True
            nc = 0
            for i in range(m):
                for d in range(6):
                    j = nbrs[newc[i], d]
                    if j < 0:
                        break
                    if color[j] == enemy:
                        e = comp[j]
                        if size[e] == m and not eaten_mark[e]:
                            eaten_mark[e] = True
                            cand[nc] = e
                            nc += 1
            for i in range(nc):
                eaten_mark[cand[i]] = False
            ne = 0
            if nc > 0 and m > single_shape_max:
                canonical_form(newc, m, tq, tr, stride, newform, work)
                for i in range(nc):
                    e = cand[i]
                    for k in range(m):
                        if forms[e, k] != newform[k]:
                            cand[ne] = e
                            ne += 1
                            break
            if ne > 0:
                for i in range(ne):
                    eaten_mark[cand[i]] = True
                grows = False  # a growth cell: empty or freed, next to the new creature, touching no other friend
                for i in range(m):
                    if grows:
                        break
                    for d in range(6):
                        j = nbrs[newc[i], d]
                        if j < 0:
                            break
                        if in_new[j]:
                            continue
                        if not (color[j] == 0 or (color[j] == enemy and eaten_mark[comp[j]])):
                            continue
                        ok = True
                        for d2 in range(6):
                            k = nbrs[j, d2]
                            if k < 0:
                                break
                            if color[k] == own and not in_new[k]:
                                ok = False
                                break
                        if ok:
                            grows = True
                            break
                if grows:
                    stones = 0
                    for i in range(ne):
                        e = cand[i]
                        stones += size[e]
                        y = first[e]
                        while y >= 0:
                            cell_planes[prey_plane, y] = one
                            y = link[y]
                    cell_planes[eats_plane, x] = min(np.float32(stones * EAT_SCALE), one)
                for i in range(ne):
                    eaten_mark[cand[i]] = False
            for i in range(m):
                in_new[newc[i]] = False
    # constant planes
    verdict = zero
    deciding = zero
    for s in range(top_size, 0, -1):
        a = value[mine_col, s]
        b = value[theirs_col, s]
        if a != b:
            verdict = one if a > b else -one
            deciding = min(np.float32(s / MAX_SIZE), one)
            break
    for k in range(square_cell.shape[0]):
        x = square_cell[k]
        for pl in range(8):
            out[FIRST + pl, k] = cell_planes[pl, x] if x >= 0 else zero
        for s in range(1, MAX_SIZE + 1):
            a = value[mine_col, s] if s <= n else 0
            b = value[theirs_col, s] if s <= n else 0
            out[MY_VALUE + s - 1, k] = _value_entry(a, s)
            out[OPP_VALUE + s - 1, k] = _value_entry(b, s)
            out[COMPARE + s - 1, k] = one if a > b else (-one if a < b else zero)
        out[VERDICT, k] = verdict
        out[DECIDING_SIZE, k] = deciding


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
                (color[j] == 0 or j in freed) and j not in new_set
                and all(color[k] != p + 1 or k in new_set for k in game.nbrs[j])
                for y in new for j in game.nbrs[y]
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
