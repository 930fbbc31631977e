"""Bestiarium's batched engine: B games per call on struct-of-arrays state, the rules' row functions
(``kernels.py``) run over every row.

``rules.py`` is the readable reference; ``tests/bestiarium/test_bestiarium_fast.py`` checks this engine against
it move by move (legal masks, both seats' observations, rewards, ends). The public face is
``envs.bestiarium_v1.vector_env(num_envs, **options)`` (:class:`~envs.common.vector.VectorEnv`).

The state (declared once, ``kernels.STATE``: per cell its colour and creature, per seat and cell whether that seat
may place there; a creature is a linked list of its cells named by the cell it was born on), the tables, the row
functions and the shape comparison (canonical forms) are the compiled rules of ``kernels.py``, whose docstring
describes them; this module holds the kernels that loop over rows, the compiled greedy, the Python class and its
conversions to and from the reference engine. The observation's planes are built by ``observation.py``'s kernels
(:func:`~envs.bestiarium.observation.observe_kernel`), for both engines.

Chance: Bestiarium has none. Each row still carries a SplitMix64 generator (``rng``, :mod:`envs.common.fastrng`,
not numpy's streams), used by the compiled search baseline's random choices (``search.py``).

The ``greedy`` baseline runs here (:meth:`BestiariumBatched.greedy_actions`, every row at once: the keys of
``baselines.GreedyPolicy``, eating chains walked to their end on work rows, tie-breaks from a generator per row
passed in; ``tests/bestiarium/test_fast_greedy.py`` checks the keys move by move against the Python greedy's).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from numba import get_num_threads

from envs.bestiarium.actions import GROW, PLACE
from envs.bestiarium.kernels import (
    STATE,
    BestiariumBatchedState,
    Scratch,
    Tables,
    apply_row,
    canonical,
    cells_of,
    copy_row,
    legal_at,
    legal_row,
    mask_row,
    mover_row,
    random_action_row,
    returns_row,
    same_form,
    size_values_row,
    step_row,
    winner_row,
)
from envs.bestiarium.observation import NUM_PLANES, SIZE_SCALE, observe_kernel, observe_kernel_threads
from envs.bestiarium.render import board_state
from envs.bestiarium.rules import BestiariumGame, BestiariumState
from envs.common.fastrng import below
from envs.common.game import TERMINAL, FeaturePlanes
from envs.common.hexgrid import transforms
from envs.common.jit import inline_jit, refcount_jit
from envs.common.state import copy_fields, copy_fields_between, reset_fields
from envs.common.vector import BatchedGame

__all__ = [
    "CONSEQUENCE_PLANES",
    "EXPOSURE_PLANES",
    "BestiariumBatched",
    "BestiariumBatchedState",
    "Tables",
    "apply_row",
    "copy_row",
    "legal_row",
    "mover_row",
    "random_action_row",
    "returns_row",
]
"""The public names: the engine, its feature planes' names, and the state, tables and row functions of
``kernels.py`` that it runs (``fastsearch.ROW_FUNCTIONS``: ``fast.<name>`` is ``kernels.<name>``)."""


# ----- batch kernels --------------------------------------------------------------------------------------------
@refcount_jit
def _apply_kernel(st, tab, actions, sc):
    for b in range(st.color.shape[0]):
        if not st.over[b]:
            step_row(st, tab, b, actions[b], sc)


@refcount_jit
def _reset_kernel(st, rows):
    """The empty board, Black to place, in each of ``rows``: every field but the generator to its fresh value
    (``kernels.STATE``, ``envs.common.state.reset_fields``)."""
    for i in range(rows.shape[0]):
        reset_fields(st, rows[i])


@refcount_jit
def _mask_kernel(st, out, nbrs):
    for b in range(st.color.shape[0]):
        mask_row(st, b, out[b], nbrs)


@refcount_jit
def _returns_kernel(st, tab, sc, out):
    n_cells = st.color.shape[1]
    values = np.zeros((2, n_cells + 1), dtype=np.int64)
    for b in range(st.color.shape[0]):
        out[b, 0] = 0.0
        out[b, 1] = 0.0
        if st.over[b]:
            winner = winner_row(st, tab, b, sc, values)
            out[b, winner] = 1.0
            out[b, 1 - winner] = -1.0


@refcount_jit
def _scores_kernel(st, tab, sc, out):
    n_cells = st.color.shape[1]
    values = np.zeros((2, n_cells + 1), dtype=np.int64)
    for b in range(st.color.shape[0]):
        out[b, 0] = 0.0
        out[b, 1] = 0.0
        top = size_values_row(st, tab, b, sc, values)
        for s in range(top, 0, -1):
            if values[0, s] != values[1, s]:
                out[b, 0] = values[0, s]
                out[b, 1] = values[1, s]
                break


@refcount_jit
def _load_row(st, tab, b, color, chain_cell):
    """Rebuild row ``b``'s board from a colour vector: its creatures by flood fill (a creature's slot is its smallest
    cell), the legality recomputed, and the growing creature's slot from one of its cells (``chain_cell``, -1 for
    none). The turn books are left as they are."""
    nbrs = tab.nbrs
    n_cells = st.color.shape[1]
    for x in range(n_cells):
        st.color[b, x] = color[x]
        st.cid[b, x] = -1
        st.link[b, x] = -1
        st.head[b, x] = -1
        st.size[b, x] = 0
    stack = np.empty(n_cells, dtype=np.int64)
    for x in range(n_cells):
        v = color[x]
        if v == 0 or st.cid[b, x] >= 0:
            continue
        st.cid[b, x] = x
        top = 1
        stack[0] = x
        while top > 0:
            top -= 1
            y = stack[top]
            st.link[b, y] = st.head[b, x]
            st.head[b, x] = y
            st.size[b, x] += 1
            for d in range(6):
                j = nbrs[y, d]
                if j < 0:
                    break
                if color[j] == v and st.cid[b, j] < 0:
                    st.cid[b, j] = x
                    stack[top] = j
                    top += 1
    for x in range(n_cells):
        if color[x] == 0:
            st.legal[b, 0, x] = legal_at(st, b, x, 1, nbrs)
            st.legal[b, 1, x] = legal_at(st, b, x, 2, nbrs)
        else:
            st.legal[b, 0, x] = 0
            st.legal[b, 1, x] = 0
    st.chain[b] = st.cid[b, chain_cell] if chain_cell >= 0 else -1


@refcount_jit
def _shape_form_kernel(tab, cells, out):
    work = np.empty(cells.shape[0], dtype=np.int64)
    canonical(tab, cells, cells.shape[0], out, work)


# ----- the greedy baseline (baselines.GreedyPolicy), compiled --------------------------------------------------
# A key is ``baselines.cascade_key`` as an int64 row of N + 1 entries: the result of a finished game first, then
# (my value - the opponent's) per size from N down to 1 (size s at index N + 1 - s); keys compare lexicographically.
@refcount_jit
def _cascade_key_row(st, tab, b, seat, sc, values, key):
    """``baselines.cascade_key`` of row ``b`` for ``seat`` into ``key`` (``values``: (2, N + 1) scratch)."""
    n_cells = st.color.shape[1]
    key[:] = 0
    if st.over[b]:
        key[0] = 1 if winner_row(st, tab, b, sc, values) == seat else -1
        return
    top = size_values_row(st, tab, b, sc, values)
    for s in range(1, top + 1):
        key[n_cells + 1 - s] = values[seat, s] - values[1 - seat, s]


@inline_jit
def _key_greater(a, b):
    """Whether key ``a`` > key ``b`` (lexicographically)."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return a[i] > b[i]
    return False


@inline_jit
def _chain_done(st, b, seat):
    """Whether ``seat`` has no growth cell to choose in row ``b`` (``baselines.key_after_chain``'s leaf)."""
    return st.over[b] or st.to_move[b] != seat or st.phase[b] != GROW


@refcount_jit
def _chain_key(st, tab, seat, sc, keys, masks, cursor, have, values):
    """``baselines.key_after_chain`` of row 0 of the work rows ``st`` for ``seat`` into ``keys[0]``: the eating chain,
    if any, walked depth first over every choice of growth cells (level d of the walk on work row d, its growth
    cells in ``masks[d]``, the next one to try at ``cursor[d]``, its best key so far in ``keys[d]``; a chain adds a
    stone to its creature per level, so it is at most N levels deep). Rows 1.. are played on."""
    n_actions = st.color.shape[1] + 1
    d = 0  # a run-time row number throughout (a literal row would compile every callee once more)
    if _chain_done(st, d, seat):
        _cascade_key_row(st, tab, d, seat, sc, values, keys[d])
        return
    mask_row(st, d, masks[d], tab.nbrs)
    cursor[d] = 0
    have[d] = False
    while True:
        a = cursor[d]
        while a < n_actions and not masks[d, a]:
            a += 1
        if a < n_actions:
            cursor[d] = a + 1
            copy_fields(st, d, d + 1)
            step_row(st, tab, d + 1, a, sc)
            if _chain_done(st, d + 1, seat):
                _cascade_key_row(st, tab, d + 1, seat, sc, values, keys[d + 1])
                if not have[d] or _key_greater(keys[d + 1], keys[d]):
                    keys[d, :] = keys[d + 1, :]
                    have[d] = True
            else:
                d += 1
                mask_row(st, d, masks[d], tab.nbrs)
                cursor[d] = 0
                have[d] = False
        else:  # level d done: its best key goes up to its parent (the grow phase always has a growth cell)
            if d == 0:
                return
            d -= 1
            if not have[d] or _key_greater(keys[d + 1], keys[d]):
                keys[d, :] = keys[d + 1, :]
                have[d] = True


@inline_jit
def _group_value(n, kinds, s):
    """The cascade value of a seat's ``n`` creatures of size ``s`` with ``kinds`` distinct shapes."""
    return kinds * s * s if kinds >= 2 else -n * s * s


@refcount_jit
def _greedy_root(st, tab, b, seat, sc, g):
    """Row ``b``'s creatures as :func:`_greedy_keys_row` updates them: per (seat, size) ``count`` creatures of
    ``kinds`` distinct shapes; per creature of a size that has several shapes its canonical form (``forms[slot]``)
    and its class (``rep[slot]``: the first slot of its size and shape, of which ``mult[rep]`` creatures); ``key``:
    the cascade key of the (live) row for ``seat``, as :func:`_cascade_key_row` computes it."""
    count, kinds, rep, mult, forms, key = g[9], g[10], g[11], g[12], g[13], g[14]
    n_cells = st.color.shape[1]
    count[:, :] = 0
    kinds[:, :] = 0
    for x in range(n_cells):
        v = st.color[b, x]
        if v == 0 or st.cid[b, x] != x:  # a live creature's slot is one of its own cells
            continue
        s = st.size[b, x]
        p = v - 1
        count[p, s] += 1
        rep[x] = x
        mult[x] = 1
        if s <= tab.single_shape_max:
            kinds[p, s] = 1
            continue
        m = cells_of(st, b, x, sc.cells)
        form = forms[x]
        canonical(tab, sc.cells, m, form, sc.work)
        for y in range(x):
            peer = st.color[b, y] == v and st.cid[b, y] == y and st.size[b, y] == s and rep[y] == y
            if peer and same_form(forms, y, form, s):  # a class of the same shape: x joins it
                rep[x] = y
                mult[y] += 1
                break
        if rep[x] == x:
            kinds[p, s] += 1
    key[:] = 0
    for s in range(1, n_cells + 1):
        mine = _group_value(count[seat, s], kinds[seat, s], s)
        key[n_cells + 1 - s] = mine - _group_value(count[1 - seat, s], kinds[1 - seat, s], s)


@refcount_jit
def _greedy_keys_row(st, tab, b, sc, work, g, single):
    """The legal actions of live row ``b``'s mover into ``g``'s actions and, for each, ``baselines.GreedyPolicy``'s
    key into its action keys (the cascade key after the action, an eating chain it starts followed to the end with
    the best growth cells); returns how many. With one legal action nothing is scored unless ``single``. Row ``b``
    is not changed.

    A placement or growth adds a stone to one creature C of the mover, from size s0 to s1 = s0 + 1 (s0 = 0: a new
    creature). Unless C then touches an enemy creature of size s1 and another shape (it might eat) nothing else
    changes, so the key is row ``b``'s (:func:`_greedy_root`, once per row) with the mover's values at s0 and s1
    recomputed: C leaves its class at s0, and joins size s1 as a new shape unless its new canonical form equals
    one there (at most one form per action, no copy of the row). An action that might eat, and a pass that ends
    the game, is played on work row 0 and scored by :func:`_chain_key` (the chain walked to its end); any other
    pass leaves the board as it is."""
    keys, masks, cursor, have, values, legal, actions, action_keys, _, count, kinds, rep, mult, forms, base = g
    n_cells = st.color.shape[1]
    n_actions = n_cells + 1
    nbrs = tab.nbrs
    ssm = tab.single_shape_max
    seat = st.to_move[b]
    own = seat + 1
    enemy = 2 - seat
    grow = st.phase[b] == GROW
    cells = sc.cells
    num = mask_row(st, b, legal, nbrs)
    k = 0
    for a in range(n_actions):
        if legal[a]:
            actions[k] = a
            k += 1
    if num == 1 and not single:
        return num
    _greedy_root(st, tab, b, seat, sc, g)
    d = 0
    for i in range(num):
        a = actions[i]
        out = action_keys[i]
        play = False
        formed = False
        c = -1
        s1 = 0
        if a == n_cells:
            play = st.passes[b] == 1  # the second pass ends the game
        else:
            if grow:
                c = st.chain[b]
            else:
                for e in range(6):
                    j = nbrs[a, e]
                    if j < 0:
                        break
                    if st.color[b, j] == own:
                        c = st.cid[b, j]
                        break
            m = cells_of(st, b, c, cells) if c >= 0 else 0
            cells[m] = a
            s1 = m + 1
            formed = False
            if s1 > ssm:  # C eats only a creature of its new size and another shape
                for t in range(s1):
                    x = cells[t]
                    for e in range(6):
                        j = nbrs[x, e]
                        if j < 0:
                            break
                        if st.color[b, j] == enemy and st.size[b, st.cid[b, j]] == s1:
                            if not formed:
                                canonical(tab, cells, s1, sc.form, sc.work)
                                formed = True
                            if not same_form(forms, st.cid[b, j], sc.form, s1):
                                play = True
                                break
                    if play:
                        break
        if play:
            copy_fields_between(st, b, work, d)
            step_row(work, tab, d, a, sc)
            _chain_key(work, tab, seat, sc, keys, masks, cursor, have, values)
            out[:] = keys[d, :]
            continue
        out[:] = base[:]
        if a == n_cells:  # a pass that does not end the game: the same board
            continue
        s0 = s1 - 1
        if s0 >= 1:  # C leaves size s0
            kk = kinds[seat, s0]
            if s0 > ssm and mult[rep[c]] == 1:
                kk -= 1
            theirs = _group_value(count[1 - seat, s0], kinds[1 - seat, s0], s0)
            out[n_cells + 1 - s0] = _group_value(count[seat, s0] - 1, kk, s0) - theirs
        n = count[seat, s1] + 1  # and joins size s1
        kk = kinds[seat, s1]
        if n == 1 or s1 <= ssm:
            kk = 1
        else:
            if not formed:
                canonical(tab, cells, s1, sc.form, sc.work)
            fresh = True
            for y in range(n_cells):
                peer = st.color[b, y] == own and st.cid[b, y] == y and st.size[b, y] == s1 and rep[y] == y
                if peer and same_form(forms, y, sc.form, s1):
                    fresh = False
                    break
            if fresh:
                kk += 1
        theirs = _group_value(count[1 - seat, s1], kinds[1 - seat, s1], s1)
        out[n_cells + 1 - s1] = _group_value(n, kk, s1) - theirs
    return num


@refcount_jit
def _greedy_scratch(n_actions, levels):
    """Work arrays of the greedy kernels: the chain walk's keys, masks, cursors and flags per level, the cascade
    values, the legal mask, the legal actions, their keys, the best actions, then :func:`_greedy_root`'s counts,
    kinds, classes, class sizes, forms and key (entries 9-14; each written before it is read)."""
    return (
        np.empty((levels, n_actions), dtype=np.int64),
        np.empty((levels, n_actions), dtype=np.bool_),
        np.empty(levels, dtype=np.int64),
        np.empty(levels, dtype=np.bool_),
        np.empty((2, n_actions), dtype=np.int64),
        np.empty(n_actions, dtype=np.bool_),
        np.empty(n_actions, dtype=np.int64),
        np.empty((n_actions, n_actions), dtype=np.int64),
        np.empty(n_actions, dtype=np.int64),
        np.empty((2, n_actions), dtype=np.int64),
        np.empty((2, n_actions), dtype=np.int64),
        np.empty(n_actions, dtype=np.int64),
        np.empty(n_actions, dtype=np.int64),
        np.empty((n_actions, n_actions), dtype=np.int64),
        np.empty(n_actions, dtype=np.int64),
    )


@refcount_jit
def _greedy_kernel(st, tab, rng, out, sc, work, g):
    """``baselines.GreedyPolicy``'s action for the mover of every row into ``out`` (-1 where the game is over): one
    of the actions with the greatest key (:func:`_greedy_keys_row`), drawn from ``rng[b]`` when several tie (no
    draw otherwise, nor for a single legal action, which is not scored); ``g``: :func:`_greedy_scratch`."""
    actions, action_keys, best = g[6], g[7], g[8]
    for b in range(out.shape[0]):
        if st.over[b]:
            out[b] = -1
            continue
        count = _greedy_keys_row(st, tab, b, sc, work, g, False)
        top = 0
        for i in range(1, count):
            if _key_greater(action_keys[i], action_keys[top]):
                top = i
        num_best = 0
        for i in range(count):
            if not _key_greater(action_keys[top], action_keys[i]):  # equal to the best (none is greater)
                best[num_best] = actions[i]
                num_best += 1
        out[b] = best[0] if num_best == 1 else best[below(rng, b, num_best)]


@refcount_jit
def _greedy_scores_kernel(st, tab, b, sc, work, g):
    """(legal actions, their greedy keys) of row ``b``'s mover, as :func:`_greedy_kernel` compares them (every
    action scored, a single one too; empty when the game is over)."""
    count = 0
    if not st.over[b]:
        count = _greedy_keys_row(st, tab, b, sc, work, g, True)
    return g[6][:count].copy(), g[7][:count].copy()


CONSEQUENCE_PLANES = ("best", "rank", "verdict", "margin", "deciding_size", "gain")
"""The per-cell planes of :meth:`BestiariumBatched.consequence_planes`: for each placement (or growth) the mover may
make, what ``greedy``'s key (the cascade after the move, an eating chain it starts followed to its end with the best
growth cells) says of it; 0 on every other square:

* ``best``: 1 where the key is the greatest of the legal moves' (greedy's choices);
* ``rank``: the share of the other legal moves whose key is smaller (1: none is better; 0: none is worse);
* ``verdict``: +1 / -1 / 0 if the game were decided after the move (its first size where the values differ, or
  the result of a finished game);
* ``margin``: ``tanh(d / (2 s^2))`` at that size s, d the mover's value minus the opponent's (+-1 for a finished
  game), as the search baseline scores a leaf;
* ``deciding_size``: that size / 12 (capped at 1; 0 when every size ties or the game is over);
* ``gain``: +1 / -1 / 0 as the key after the move is above, below or equal to the key of the position now."""

EXPOSURE_PLANES = ("eats", "exposed")
"""Two more planes (input features ``consequences_exposure``: :data:`CONSEQUENCE_PLANES` then these), for each move
of the mover whose stone joins creature C (the one friendly creature it touches, the eater in the grow phase; a
new lone creature otherwise), C' being C with the stone:

* ``eats``: the enemy stones the move removes at once (the eat rule, before any growth) / 10, capped at 1;
* ``exposed``: C'`s size / 10 (capped at 1) where the opponent could bring a creature of that size next to C' with
  one stone, so that C' may be eaten next turn: an enemy creature of size |C'| - 1 touching C', or touching an
  empty cell (not the move's) that touches C' and where the opponent may place; 0 otherwise and for the sizes
  with a single shape (shapes and the eater's growth room are not checked: "may be eaten")."""

_MARGIN_SCALE = 2.0
_SIZE_CAP = 12.0


@refcount_jit
def _merge_sort_keys(order, keys, tmp, count):
    """Sort ``order[:count]`` (indices into ``keys``' rows) by key, ascending (bottom-up merge sort: O(K log K)
    key comparisons)."""
    width = 1
    while width < count:
        lo = 0
        while lo < count:
            mid = min(lo + width, count)
            hi = min(lo + 2 * width, count)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _key_greater(keys[order[i]], keys[order[j]]):
                    tmp[k] = order[j]
                    j += 1
                else:
                    tmp[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = order[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = order[j]
                j += 1
                k += 1
            lo = hi
        for t in range(count):
            order[t] = tmp[t]
        width *= 2


@refcount_jit
def _consequence_kernel(st, tab, obs, out, sc, work, g, order, tmp):
    """:meth:`BestiariumBatched.consequence_planes`: each observation's board rebuilt on ``st``'s row 0 (the
    observer to move), greedy's keys of its moves (:func:`_greedy_keys_row`), then the planes into ``out`` (with
    :data:`EXPOSURE_PLANES` too where ``out`` has room for them: :func:`_exposure_planes`)."""
    n_cells = st.color.shape[1]
    cell_square = tab.cell_square
    color = np.zeros(n_cells, dtype=np.uint8)
    actions, action_keys, base = g[6], g[7], g[14]
    zero = np.float32(0.0)
    for b in range(obs.shape[0]):
        for p in range(out.shape[1]):
            for k in range(out.shape[2]):
                out[b, p, k] = zero
        chain_cell = -1
        for x in range(n_cells):
            k = cell_square[x]
            if obs[b, 0, k] > 0.5:
                color[x] = 1
            elif obs[b, 1, k] > 0.5:
                color[x] = 2
            else:
                color[x] = 0
            if chain_cell < 0 and obs[b, 4, k] > 0.5 and color[x] == 1:
                chain_cell = x
        square0 = cell_square[0]
        grow = obs[b, 5, square0] > 0.5 and chain_cell >= 0
        pending = obs[b, 6, square0] > 0.5
        st.to_move[0] = 0
        st.phase[0] = GROW if grow else PLACE
        st.passes[0] = 1 if pending else 0
        st.first_passer[0] = 1 if pending else -1  # the opponent made the pending pass
        st.plies[0] = 0
        st.over[0] = False
        _load_row(st, tab, 0, color, chain_cell if grow else -1)
        count = _greedy_keys_row(st, tab, 0, sc, work, g, True)
        if count == 0:
            continue
        for i in range(count):
            order[i] = i
        _merge_sort_keys(order, action_keys, tmp, count)
        top = action_keys[order[count - 1]]
        smaller = 0  # moves strictly below the current run of equal keys
        for t in range(count):
            i = order[t]
            if t > 0 and _key_greater(action_keys[i], action_keys[order[t - 1]]):
                smaller = t
            a = actions[i]
            if a >= n_cells:  # the pass has no square
                continue
            key = action_keys[i]
            k = cell_square[a]
            out[b, 0, k] = np.float32(1.0) if not _key_greater(top, key) else zero
            out[b, 1, k] = np.float32(smaller / (count - 1)) if count > 1 else np.float32(1.0)
            verdict = 0.0
            margin = 0.0
            size = 0.0
            if key[0] != 0:
                verdict = 1.0 if key[0] > 0 else -1.0
                margin = verdict
            else:
                for j in range(1, n_cells + 1):
                    d = key[j]
                    if d != 0:
                        s = n_cells + 1 - j
                        verdict = 1.0 if d > 0 else -1.0
                        margin = np.tanh(d / (_MARGIN_SCALE * s * s))
                        size = min(s / _SIZE_CAP, 1.0)
                        break
            out[b, 2, k] = np.float32(verdict)
            out[b, 3, k] = np.float32(margin)
            out[b, 4, k] = np.float32(size)
            if _key_greater(key, base):
                out[b, 5, k] = np.float32(1.0)
            elif _key_greater(base, key):
                out[b, 5, k] = np.float32(-1.0)
        if out.shape[1] > len(CONSEQUENCE_PLANES):
            _exposure_planes(st, tab, sc, work, actions, count, out[b])


@refcount_jit
def _exposure_planes(st, tab, sc, work, actions, count, out):
    """:data:`EXPOSURE_PLANES` of ``st``'s row 0 (its mover to move) into ``out[6]`` and ``out[7]`` for the ``count``
    legal ``actions`` (work row 0 of ``work`` is played on)."""
    n_cells = st.color.shape[1]
    nbrs = tab.nbrs
    ssm = tab.single_shape_max
    seat = st.to_move[0]
    own = seat + 1
    enemy = 2 - seat
    grow = st.phase[0] == GROW
    cells = np.empty(n_cells + 1, dtype=np.int64)
    stamp = np.full(n_cells, -1, dtype=np.int64)
    enemy_stones = 0
    for x in range(n_cells):
        if st.color[0, x] == enemy:
            enemy_stones += 1
    for i in range(count):
        a = actions[i]
        if a >= n_cells:
            continue
        c = st.chain[0] if grow else -1
        if not grow:
            for e in range(6):
                j = nbrs[a, e]
                if j < 0:
                    break
                if st.color[0, j] == own:
                    c = st.cid[0, j]
                    break
        m = cells_of(st, 0, c, cells) if c >= 0 else 0
        cells[m] = a
        s1 = m + 1
        if s1 <= ssm:
            continue
        k = tab.cell_square[a]
        exposed = False
        prey_near = False
        for t in range(s1):  # C''s neighbours: enemy creatures, and empty cells the opponent may take
            x = cells[t]
            for e in range(6):
                j = nbrs[x, e]
                if j < 0:
                    break
                if j == a or stamp[j] == i:
                    continue
                stamp[j] = i
                v = st.color[0, j]
                if v == enemy:
                    se = st.size[0, st.cid[0, j]]
                    if se == s1 - 1:
                        exposed = True
                    elif se == s1:
                        prey_near = True
                elif v == 0 and st.legal[0, 1 - seat, j]:
                    for f in range(6):
                        y = nbrs[j, f]
                        if y < 0:
                            break
                        if st.color[0, y] == enemy and st.size[0, st.cid[0, y]] == s1 - 1:
                            exposed = True
                            break
        if exposed:
            out[7, k] = np.float32(min(s1 / 10.0, 1.0))
        if prey_near:  # an eat is possible: play the move and count the enemy stones it removes
            copy_fields_between(st, 0, work, 0)
            step_row(work, tab, 0, a, sc)
            left = 0
            for x in range(n_cells):
                if work.color[0, x] == enemy:
                    left += 1
            out[6, k] = np.float32(min((enemy_stones - left) / 10.0, 1.0))


# ----- the Python face ------------------------------------------------------------------------------------------
class BestiariumBatched(BatchedGame):
    """Bestiarium over B games at once (same options, encodings and rules as :class:`BestiariumGame`)."""

    name = "bestiarium"
    game_class = BestiariumGame
    state_layout = STATE
    reference: BestiariumGame

    def __init__(self, **options: Any):
        super().__init__(**options)
        ref = self.reference
        shape_equivalence = ref.shape_equivalence
        self.num_cells = n = ref.num_cells
        grid = ref.grid
        nbrs = np.full((n, 6), -1, dtype=np.int64)
        for i, row in enumerate(grid.neighbor_lists):
            nbrs[i, : len(row)] = row
        maps = transforms(shape_equivalence)
        tq = np.array([[f(c)[0] for c in grid.coords] for f in maps], dtype=np.int64)
        tr = np.array([[f(c)[1] for c in grid.coords] for f in maps], dtype=np.int64)
        side = grid.square_shape[0]
        square_cell = np.full(side * side, -1, dtype=np.int64)
        square_cell[grid.square_index] = np.arange(n)
        size_plane = np.minimum(np.arange(n + 1, dtype=np.float32), np.float32(10.0))
        np.multiply(size_plane, SIZE_SCALE, out=size_plane)
        self.tables = Tables(
            nbrs=nbrs,
            tq=tq,
            tr=tr,
            stride=2 * grid.radius + 1,
            single_shape_max=1 if shape_equivalence == "fixed" else 2,
            square_cell=square_cell,
            size_plane=size_plane,
            cell_square=np.asarray(grid.square_index, dtype=np.int64),
            max_plies=ref.max_game_length,
            work=np.zeros((7, n), dtype=np.int64),
            work_mark=np.zeros(n, dtype=np.bool_),
            work_mask=np.zeros(n + 1, dtype=np.bool_),
            work_values=np.zeros((2, n + 1), dtype=np.int64),
        )
        t = self.tables
        self._scratch = Scratch(*t.work, t.work_mark, t.work_mask, t.work_values)
        self._side = side
        self._greedy: tuple[BestiariumBatchedState, tuple] | None = None
        self._consequence: tuple[BestiariumBatchedState, np.ndarray, np.ndarray] | None = None

    # ----- BatchedGame ------------------------------------------------------------------------------------
    def state_sizes(self) -> dict[str, int]:
        """The named sizes of the declaration (``kernels.STATE``): the board's cells."""
        return {"cells": self.reference.num_cells}

    def reset_rows(self, state: BestiariumBatchedState, rows: np.ndarray) -> None:
        """The empty board, Black to place, in each of ``rows`` (no chance: the generators are not drawn from)."""
        _reset_kernel(state, np.asarray(rows, dtype=np.int64))

    def legal_mask(self, state: BestiariumBatchedState, out: np.ndarray) -> None:
        """The mover's mask per row into ``out`` (B, N + 1) bool; all False for a finished game."""
        _mask_kernel(state, out, self.tables.nbrs)

    def apply(self, state: BestiariumBatchedState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal) in every live row."""
        _apply_kernel(state, self.tables, np.asarray(actions, dtype=np.int64), self._scratch)

    def observe(self, state: BestiariumBatchedState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b``'s planes from ``seats[b]``'s view into ``out[b]`` (B, 56, S, S) float32."""
        if not out.flags.c_contiguous:
            raise ValueError("observe needs a C-contiguous output array")
        flat = out.reshape(out.shape[0], NUM_PLANES, self._side * self._side)
        seats = np.asarray(seats, dtype=np.int64)
        # the score planes are most of a step's work in this engine: a large batch is split into one block of
        # rows per numba thread (``numba.set_num_threads(1)`` keeps it on one core; so does a batch under 128)
        blocks = min(get_num_threads(), out.shape[0] // 64)
        if blocks > 1:
            observe_kernel_threads(state, self.tables, seats, flat, blocks)
        else:
            observe_kernel(state, self.tables, seats, flat)

    def current_player(self, state: BestiariumBatchedState) -> np.ndarray:
        """Seat to move per row, TERMINAL where the game is over (the eater keeps the turn through a chain)."""
        return np.where(state.over, TERMINAL, state.to_move.astype(np.int64))

    def returns(self, state: BestiariumBatchedState) -> np.ndarray:
        """(B, 2) float64: +1 / -1 for finished games (the cascade, then the first of the final passes), else 0."""
        out = np.zeros((state.color.shape[0], 2), dtype=np.float64)
        if state.over.any():
            _returns_kernel(state, self.tables, self._scratch, out)
        return out

    def truncated(self, state: BestiariumBatchedState) -> np.ndarray:
        """(B,) bool: the ply cap (20 x cells plies, the reference's ``max_game_length``) reached unfinished."""
        return ~state.over & (state.plies >= self.max_game_length)

    def scores(self, state: BestiariumBatchedState) -> np.ndarray:
        """(B, 2) float64: the cascade values at the first size where the players differ (0, 0 if none does)."""
        out = np.zeros((state.color.shape[0], 2), dtype=np.float64)
        _scores_kernel(state, self.tables, self._scratch, out)
        return out

    def shaping_potential(self, state: BestiariumBatchedState) -> np.ndarray:
        """(B, 2) as the reference's ``shaping_potential`` (its ``scores``)."""
        return self.scores(state)

    # ----- shapes ------------------------------------------------------------------------------------------
    def shape_form(self, cells: Any) -> tuple[int, ...]:
        """The compiled canonical form of a set of cell ids (equal forms = same shape under the equivalence)."""
        arr = np.array(sorted(set(int(c) for c in cells)), dtype=np.int64)
        out = np.empty(arr.size, dtype=np.int64)
        if arr.size:
            _shape_form_kernel(self.tables, arr, out)
        return tuple(out.tolist())

    # ----- the greedy baseline ---------------------------------------------------------------------------
    has_greedy_actions = True

    def greedy_actions(self, state: BestiariumBatchedState, rng: np.ndarray, out: np.ndarray) -> None:
        """The ``greedy`` baseline's action (``baselines.GreedyPolicy``) for the mover of every row into ``out``
        (int64, -1 where the game is over), compiled: the same keys (the cascade after the move, an eating chain
        followed to its end with the best growth cells), so the same choice where one action is best; among tied
        best actions one drawn from ``rng[b]`` (uint64 SplitMix64 states, one per row, advanced in place; no draw
        without a tie). ``state`` is not changed."""
        batch = state.color.shape[0]
        if out.shape != (batch,) or out.dtype != np.int64:
            raise ValueError(f"out must be an int64 array of shape ({batch},), got {out.dtype} {out.shape}")
        if rng.shape != (batch,) or rng.dtype != np.uint64:
            raise ValueError(f"rng must be a uint64 array of shape ({batch},), got {rng.dtype} {rng.shape}")
        _greedy_kernel(state, self.tables, rng, out, self._scratch, *self._greedy_work())

    def greedy_scores(self, state: BestiariumBatchedState, row: int) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions in id order (K,), their greedy keys (K, N + 1) int64) of row ``row``'s mover, as
        :meth:`greedy_actions` compares them (empty when the game is over): ``baselines.cascade_key`` after each
        action and its chain, the result first, then per size from N down to 1; for tests and inspection."""
        if not 0 <= row < state.color.shape[0]:
            raise ValueError(f"row {row} is not a row of this {state.color.shape[0]}-row state")
        return _greedy_scores_kernel(state, self.tables, int(row), self._scratch, *self._greedy_work())

    def input_features(self) -> dict[str, FeaturePlanes]:
        """``consequences``: six planes per observation, what each of the observer's moves would do by greedy's
        key (:data:`CONSEQUENCE_PLANES`, :meth:`consequence_planes`); ``consequences_exposure``: eight, with what each
        move eats at once and whether it leaves its creature open to an eat next turn (:data:`EXPOSURE_PLANES`).
        Each computer is an engine of its own (its own work buffers)."""
        options = self.options()
        return {
            "consequences": FeaturePlanes(
                len(CONSEQUENCE_PLANES), lambda: BestiariumBatched(**options).consequence_planes
            ),
            "consequences_exposure": FeaturePlanes(
                len(CONSEQUENCE_PLANES) + len(EXPOSURE_PLANES),
                lambda: partial(BestiariumBatched(**options).consequence_planes, exposure=True),
            ),
        }

    def consequence_planes(self, obs: np.ndarray, out: np.ndarray | None = None, exposure: bool = False) -> np.ndarray:
        """(B, 6, S, S) float32 planes (:data:`CONSEQUENCE_PLANES`) of each observation (B, 56, S, S): what each
        move of the observer's would do, read by greedy's key, computed from the board the observation shows with
        the observer to move (the mover, in every observation a policy acts on). ``exposure``: 8 planes, with
        :data:`EXPOSURE_PLANES` after those. A network may read them beside the planes (``training.networks``,
        input features ``consequences`` / ``consequences_exposure``): the policy still acts from the observation
        alone. ``out``: where to write them (C-contiguous), else a new array."""
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        side = self._side
        if obs.ndim != 4 or obs.shape[1:] != (NUM_PLANES, side, side):
            raise ValueError(f"observations of shape (B, {NUM_PLANES}, {side}, {side}) expected, got {obs.shape}")
        batch = obs.shape[0]
        planes = len(CONSEQUENCE_PLANES) + (len(EXPOSURE_PLANES) if exposure else 0)
        if out is None:
            out = np.empty((batch, planes, side, side), dtype=np.float32)
        elif out.shape != (batch, planes, side, side) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape (B, {planes}, S, S)")
        if self._consequence is None:
            n = self.num_actions
            self._consequence = (self.new_state(1), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64))
        row, order, tmp = self._consequence
        work, g = self._greedy_work()
        _consequence_kernel(
            row,
            self.tables,
            obs.reshape(batch, NUM_PLANES, side * side),
            out.reshape(batch, planes, side * side),
            self._scratch,
            work,
            g,
            order,
            tmp,
        )
        return out

    def _greedy_work(self) -> tuple[BestiariumBatchedState, tuple]:
        """The greedy kernels' work rows (one per level of an eating chain's walk: at most N levels) and work
        arrays (:func:`_greedy_scratch`), made on first use and kept (like ``_scratch``, one call at a time)."""
        if self._greedy is None:
            rows = self.new_state(self.num_cells + 1)
            self._greedy = (rows, _greedy_scratch(self.num_actions, self.num_cells + 1))
        return self._greedy

    # ----- the bridge to rules.py --------------------------------------------------------------------------
    def to_reference(self, state: BestiariumBatchedState, row: int) -> BestiariumState:
        """Row ``row`` as a reference state: the board, with its creatures and legality rebuilt as a snapshot's are
        (``render.board_state``), the turn books (``kernels.STATE``) and the growing creature by its id."""
        s = board_state(self.reference, state.color[row])
        STATE.to_reference(state, row, s)
        if s.phase == GROW:  # the growing creature's slot is one of its cells
            s.chain = s.cid[state.chain[row]]
        return s

    def from_reference(self, reference_state: BestiariumState, state: BestiariumBatchedState, row: int) -> None:
        """Write a reference state into row ``row``: the turn books (``kernels.STATE``), the board with its creatures
        and legality rebuilt (``_load_row``); the row's generator kept."""
        s = reference_state
        STATE.from_reference(s, state, row)
        chain_cell = s.members[s.chain][0] if s.phase == GROW else -1
        _load_row(state, self.tables, row, np.frombuffer(s.color, dtype=np.uint8), chain_cell)
