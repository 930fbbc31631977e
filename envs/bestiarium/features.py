"""Bestiarium's score-aware planes (observation planes 10-55 of ``bestiarium_v1``), computed from the position.

The game is decided by a global, combinatorial count: per size, a player's fauna (+k s^2 for k >= 2 distinct
shapes) or species (-n s^2), compared from the largest size down. A few 3x3 convolutions cannot derive shape
classes and that cascade from stone planes (a ConvNet fitted to the sign of "the cascade if the game ended now"
reached an MSE of only 0.54), so the engine computes it and the observation carries it:

* per cell: which creatures are in a fauna, which have a same-shape twin at their size, how many stones a stone
  added on each cell would eat at once (for me and for the opponent), and which creatures are such prey;
* constant planes (the same value on every square): both players' cascade values per size 1..``MAX_SIZE``,
  their comparison per size, the verdict if the game ended now and the size that decides it.

:func:`score_planes` is one compiled kernel over the colour vector, the creatures as the caller keeps them and
the two seats' placement bytes, called by both engines (``rules.py`` through
:class:`~envs.bestiarium.observation.ObservationEncoder`, the batched ``fast.py``); :func:`score_planes_reference`
is the readable definition over ``rules.py``'s creatures and shapes, and the tests check that both agree.
:func:`canonical_form` is the shape comparison shared with the batched engine.

numba's cache (``cache=True``) keys each compiled function on its own file only: after editing this file, delete
``envs/bestiarium/__pycache__/*.nbi`` and ``*.nbc``, or the kernels of ``fast.py`` and ``observation.py`` that call
these functions keep running the old code.
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


@njit(cache=True, inline="always")
def _value_entry(v, s):
    """A cascade value ``v`` at size ``s`` as a plane entry: ``v / s^2`` (+k shapes of a fauna, -n creatures of a
    species) times 0.25, clipped to [-1, 1]."""
    return np.float32(max(-1.0, min(1.0, v / (s * s) * VALUE_SCALE)))


SCRATCH_ROWS = 31
"""Rows of the int64 work array (``SCRATCH_ROWS``, N + 1) that :func:`score_planes` uses (:func:`new_scratch`)."""


def new_scratch(num_cells: int) -> np.ndarray:
    """A work array for :func:`score_planes` (its contents need no initialisation; one per thread)."""
    return np.empty((SCRATCH_ROWS, num_cells + 1), dtype=np.int64)


@njit(cache=True)
def _form_offset(r, s, first, link, tq, tr, stride, pool, off, cells, work):
    """Where creature ``r``'s canonical form (``s`` codes) starts in ``pool``, computed on first use: ``off[r]``
    is -1 until then, ``off[-1]`` the next free entry (the forms of distinct creatures fit: they hold <= N cells)."""
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
        canonical_form(cells, s, tq, tr, stride, pool[o:], work)
        off[r] = o
        off[last] = o + s
    return o


@njit(cache=True, inline="always")
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


@njit(cache=True)
def score_planes(
    color,
    comp,
    size,
    first,
    link,
    legal0,
    legal1,
    seat,
    to_move,
    chain_root,
    nbrs,
    tq,
    tr,
    stride,
    single_shape_max,
    cell_square,
    out,
    sc,
):
    """Planes ``FIRST..`` of the observation for ``seat`` into ``out`` (planes, S*S) float32.

    ``color`` (N,) 0 empty / 1 Black / 2 White; the creatures as the caller keeps them: each creature is named by
    a key, one of its own cells (``comp[key] == key``; ``comp`` per cell, -1 empty), with ``size[key]`` stones
    listed from ``first[key]`` along ``link`` (per cell, -1 ends); ``legal0`` / ``legal1`` (N,) each seat's
    placement bytes; ``chain_root`` the key of the creature that must grow (grow phase), else -1;
    ``cell_square`` (N,) each cell's square in the planes; ``sc`` a work array of :func:`new_scratch`.

    Shapes are compared only where an answer depends on them: canonical forms are computed once per creature and
    only for sizes with several shapes, in groups of two or more creatures of one colour and size (fauna, twins)
    or as the prey of a possible eat; a stone added next to a creature of size m - 1 is looked at only if the
    enemy has a creature of size m."""
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
                            o = _form_offset(r, s, first, link, tq, tr, stride, pool, off, cells, work)
                            o2 = _form_offset(r2, s, first, link, tq, tr, stride, pool, off, cells, work)
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
                    o = _form_offset(e, m, first, link, tq, tr, stride, pool, off, cells, work)
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
