"""Bestiarium's compiled search baseline: what is Bestiarium's own in ``baselines.search_policy``'s search (its
playouts and leaf values, ``baselines.cascade_value``), for the tree written once in ``envs/common/fastsearch.py``,
plus the learned playout (``search_playout``) and flat Monte Carlo action values for the measurements
(``lab/``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envs.bestiarium.actions import GROW
from envs.bestiarium.fast import BestiariumBatched
from envs.bestiarium.kernels import (
    apply_row,
    cascade_values_row,
    copy_row,
    legal_row,
    mover_row,
    random_action_row,
    returns_row,
)
from envs.bestiarium.rules import BestiariumGame, BestiariumState
from envs.common import fastsearch
from envs.common.fastrng import below, next_u64
from envs.common.jit import inline_jit, refcount_jit, row_jit

PLAYOUT_FEATURES = ("join", "eat", "danger", "top", "same_size", "contest", "contact")
"""The learned playout's move features (bit k of a move's code is feature k), for the mover's move ``a`` whose
stone joins creature C (the one friendly creature it touches, the eater in the grow phase; none for a new lone
stone) and makes it size s' (1 for a lone stone):

* ``join``: the stone joins an existing creature (always in the grow phase);
* ``eat``: s' is above the single-shape sizes and C or the stone's cell touches an enemy creature of size s' (a
  possible eat; shapes and the growth room are not checked);
* ``danger``: s' is above the single-shape sizes and C or the cell touches an enemy creature of size s' - 1 (one
  enemy stone could make it C's size, next to C: C may be eaten next turn);
* ``top``: s' is above the mover's largest creature now;
* ``same_size``: the mover already has a creature of size s' (a fauna, or a species, of that size);
* ``contest``: s' is at least the opponent's largest creature size (the opponent has stones);
* ``contact``: the cell touches an enemy stone.

The pass (legal only when forced) and any lone legal move are played without features."""
N_CODES = 1 << len(PLAYOUT_FEATURES)


def playout_table(weights: np.ndarray | tuple[float, ...] | list[float]) -> np.ndarray:
    """A move's weight in the learned playout for every feature code (float64, ``N_CODES``): ``exp(w . f)`` for
    one weight per feature (``len(PLAYOUT_FEATURES)`` numbers), or ``exp(w[code])`` for one log-weight per code
    (``N_CODES`` numbers: a pattern table, every combination of the features weighed on its own)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape == (N_CODES,):
        return np.exp(w)
    if w.shape != (len(PLAYOUT_FEATURES),):
        raise ValueError(
            f"playout weights: {len(PLAYOUT_FEATURES)} numbers ({', '.join(PLAYOUT_FEATURES)}) or {N_CODES} (per code)"
        )
    bits = (np.arange(N_CODES)[:, None] >> np.arange(len(PLAYOUT_FEATURES))[None, :]) & 1
    return np.exp(bits @ w)


def feature_bits(codes: np.ndarray) -> np.ndarray:
    """The 0/1 feature matrix (..., F) of feature codes."""
    return ((np.asarray(codes)[..., None] >> np.arange(len(PLAYOUT_FEATURES))) & 1).astype(np.float64)


BOOK_ROWS = 5
"""Rows of the learned playout's int64 work array (``books``, (BOOK_ROWS, N + 2))."""


@inline_jit
def _size_bits(s1, ssm, eat, danger, my_top, count, their_top):
    """The feature bits of a move that makes a creature of size ``s1`` (``PLAYOUT_FEATURES``): eat and danger above
    the single-shape sizes ``ssm``, top (above the mover's largest, ``my_top``), same_size (``count[s1]``: the
    mover's creatures of that size), contest (at least the opponent's largest, ``their_top``)."""
    code = 0
    if s1 > ssm:
        if eat:
            code |= 2
        if danger:
            code |= 4
    if s1 > my_top:
        code |= 8
    if count[s1] > 0:
        code |= 16
    if their_top > 0 and s1 >= their_top:
        code |= 32
    return code


@row_jit
def _learned_move(st, tab, b, books, table, cum, draw):
    """The mover's legal placements / growths of live row ``b`` into ``books[0, :k]`` (ascending cells), their
    :data:`PLAYOUT_FEATURES` codes into ``books[4, :k]`` and the running sums of their weights ``table[code]``
    into ``cum[:k]``; returns k (0: only the pass is legal). With ``draw``, returns instead a legal action drawn
    with probability proportional to its weight, one draw from ``st.rng[b]`` (the forced pass and a lone legal
    move without a draw): the learned playout's move (one function, not two: a call passes the whole state)."""
    n_cells = st.color.shape[1]
    nbrs = tab.nbrs
    ssm = tab.single_shape_max
    seat = st.to_move[b]
    own = seat + 1
    enemy = 2 - seat
    acts = books[0]
    ready = books[1]  # per slot of the mover: touches an enemy creature one larger
    same = books[2]  # per slot of the mover: touches an enemy creature of its size
    count = books[3]  # the mover's creatures per size
    codes = books[4]
    for x in range(n_cells + 2):
        ready[x] = 0
        same[x] = 0
        count[x] = 0
    my_top = 0
    their_top = 0
    for x in range(n_cells):
        v = st.color[b, x]
        if v == 0:
            continue
        c = st.cid[b, x]
        s = st.size[b, c]
        if v == own:
            if c == x:
                count[s] += 1
                if s > my_top:
                    my_top = s
            for d in range(6):
                k = nbrs[x, d]
                if k < 0:
                    break
                if st.color[b, k] == enemy:
                    se = st.size[b, st.cid[b, k]]
                    if se == s + 1:
                        ready[c] = 1
                    elif se == s:
                        same[c] = 1
        elif c == x and s > their_top:
            their_top = s
    grow = st.phase[b] == GROW
    chain = st.chain[b]
    n = 0
    total = 0.0
    for a in range(n_cells):
        if not st.legal[b, seat, a]:  # placeable cells are empty
            continue
        c = -1  # the one friendly creature the stone touches
        code = 0
        e0 = -1  # the sizes of up to two distinct enemy creature sizes around (more are rare: then a rescan)
        e1 = -1
        more = False
        for d in range(6):
            k = nbrs[a, d]
            if k < 0:
                break
            v = st.color[b, k]
            if v == own:
                c = st.cid[b, k]
            elif v == enemy:
                code = 64
                se = st.size[b, st.cid[b, k]]
                if e0 < 0 or se == e0:
                    e0 = se
                elif e1 < 0 or se == e1:
                    e1 = se
                else:
                    more = True
        if grow and c != chain:  # the growth cells: placeable and next to C (ascending, as the mask)
            continue
        s0 = 0
        eat = False
        danger = False
        if c >= 0:
            s0 = st.size[b, c]
            eat = ready[c] == 1
            danger = same[c] == 1
            code |= 1
        s1 = s0 + 1
        if e0 == s1 or e1 == s1:
            eat = True
        if e0 == s0 or e1 == s0:
            danger = True
        if more:
            for d in range(6):
                k = nbrs[a, d]
                if k < 0:
                    break
                if st.color[b, k] == enemy:
                    se = st.size[b, st.cid[b, k]]
                    if se == s1:
                        eat = True
                    elif se == s0:
                        danger = True
        code |= _size_bits(s1, ssm, eat, danger, my_top, count, their_top)
        acts[n] = a
        codes[n] = code
        total += table[code]
        cum[n] = total
        n += 1
    if not draw:
        return n
    if n == 0:
        return n_cells
    if n == 1:
        return acts[0]
    u = float(next_u64(st.rng, b) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    lo = 0
    hi = n - 1
    while lo < hi:  # the first move whose running sum exceeds u
        mid = (lo + hi) >> 1
        if cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return acts[lo]


@row_jit
def _local_move(st, tab, b, table, books, cum, mask, last):
    """The *local* learned playout's move in live row ``b``: the legal placements on the cells next to ``last``
    (the previous ply's cell; -1: none) weigh ``table[code]`` (their :data:`PLAYOUT_FEATURES` codes, as
    :func:`_learned_move` computes them), every other legal move weighs 1 (its features are not looked at), and
    one move is drawn in proportion (``st.rng[b]``). So only a handful of codes are computed a ply, as Monte
    Carlo Go programs matched their patterns around the last move only. The grow phase uses the full playout
    (:func:`_learned_move`); the forced pass and a lone legal move are returned without a draw."""
    n_cells = st.color.shape[1]
    if st.phase[b] == GROW:
        return _learned_move(st, tab, b, books, table, cum, True)
    n_legal = legal_row(st, tab, b, mask)
    if mask[n_cells]:
        return n_cells
    acts = books[0]
    n = 0
    local_total = 0.0
    if last >= 0 and last < n_cells:
        nbrs = tab.nbrs
        ssm = tab.single_shape_max
        seat = st.to_move[b]
        own = seat + 1
        enemy = 2 - seat
        counted = False
        my_top = 0
        their_top = 0
        count = books[3]
        for i in range(6):
            a = nbrs[last, i]
            if a < 0:
                break
            if not mask[a]:
                continue
            if not counted:  # the sizes books, once a ply
                counted = True
                for x in range(n_cells + 2):
                    count[x] = 0
                for x in range(n_cells):
                    v = st.color[b, x]
                    if v != 0 and st.cid[b, x] == x:
                        sz = st.size[b, x]
                        if v == own:
                            count[sz] += 1
                            if sz > my_top:
                                my_top = sz
                        elif sz > their_top:
                            their_top = sz
            c = -1
            code = 0
            for d in range(6):
                k = nbrs[a, d]
                if k < 0:
                    break
                if st.color[b, k] == own:
                    c = st.cid[b, k]
                    break
            s0 = 0
            if c >= 0:
                s0 = st.size[b, c]
                code = 1
            s1 = s0 + 1
            eat = False
            danger = False
            x = a
            while True:  # the enemy creatures around the stone's cell and C's cells
                for d in range(6):
                    k = nbrs[x, d]
                    if k < 0:
                        break
                    if st.color[b, k] == enemy:
                        if x == a:
                            code |= 64
                        se = st.size[b, st.cid[b, k]]
                        if se == s1:
                            eat = True
                        elif se == s0:
                            danger = True
                x = st.head[b, c] if x == a and c >= 0 else (st.link[b, x] if x != a else -1)
                if x < 0:
                    break
            code |= _size_bits(s1, ssm, eat, danger, my_top, count, their_top)
            acts[n] = a
            local_total += table[code]
            cum[n] = local_total
            n += 1
    u = float(next_u64(st.rng, b) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * (n_legal - n + local_total)
    if u < local_total:
        for i in range(n):
            if cum[i] > u:
                return acts[i]
        return acts[n - 1]
    while True:  # a uniform legal move away from ``last`` (redrawn when it is one of the local moves)
        k = below(st.rng, b, n_legal)
        for a in range(n_cells):
            if mask[a]:
                if k == 0:
                    break
                k -= 1
        near = False
        for i in range(n):
            if acts[i] == a:
                near = True
        if not near:
            return a


class SearchContext(NamedTuple):
    """The search's own settings and work buffers (:func:`_leaf`)."""

    depth: int
    """Playout plies before the leaf is scored by the cascade."""
    scale: float
    """The cascade value's scale (``baselines.cascade_value``)."""
    table: np.ndarray
    """The learned playout's move weights per feature code; empty: uniform playouts."""
    local: bool
    """The local learned playout (:func:`_local_move`)."""
    mask: np.ndarray
    """(N + 1,) bool work."""
    values: np.ndarray
    """(2, N + 1) int64 work: cascade values."""
    books: np.ndarray
    """(BOOK_ROWS, N + 2) int64 work: the learned playout's books."""
    cum: np.ndarray
    """(N + 2,) float64 work: the learned playout's running weights."""


@row_jit
def _tree_candidates(st, tab, ctx, b, player, out):
    """The tree's actions at row ``b``: every legal action, in id order."""
    mask = ctx.mask
    legal_row(st, tab, b, mask)
    n = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            out[n] = a
            n += 1
    return n


@refcount_jit
def _leaf(st, tab, ctx, b, out):
    """The search's leaf value of row ``b`` per seat into ``out`` (row ``b`` is played on): uniform random legal
    moves (``st.rng[b]``; with a non-empty ``ctx.table``, the learned playout's moves: :func:`_learned_move`, or
    with ``ctx.local`` :func:`_local_move`) for at most ``ctx.depth`` plies, then the returns of a finished game,
    0 at the ply cap, else ``tanh(d / (scale s^2))`` for Black (White the negation) at the largest size s where the
    cascade values differ by d (0 when none does): ``baselines.cascade_value``."""
    out[0] = 0.0
    out[1] = 0.0
    steps = 0
    last = -1
    while True:
        if st.over[b]:
            returns_row(st, tab, b, out)
            return
        if st.plies[b] >= tab.max_plies:
            return
        if steps >= ctx.depth:
            break
        if ctx.table.shape[0] > 0:
            if ctx.local:
                last = _local_move(st, tab, b, ctx.table, ctx.books, ctx.cum, ctx.mask, last)
            else:
                last = _learned_move(st, tab, b, ctx.books, ctx.table, ctx.cum, True)
            apply_row(st, tab, b, last)
        else:
            apply_row(st, tab, b, random_action_row(st, tab, b))
        steps += 1
    values = ctx.values
    top = cascade_values_row(st, tab, b, values)
    for s in range(top, 0, -1):
        d = values[0, s] - values[1, s]
        if d != 0:
            x = np.tanh(d / (ctx.scale * s * s))
            out[0] = x
            out[1] = -x
            return


fastsearch.register(
    SearchContext,
    mover=mover_row,
    apply=apply_row,
    copy=copy_row,
    candidates=_tree_candidates,
    leaf=_leaf,
    fixed_candidates=True,  # no chance, no hidden information: a node's legal actions never change
)


class CompiledSearch(fastsearch.CompiledSearch):
    """The ``search`` baseline's decision, compiled (:class:`envs.common.fastsearch.CompiledSearch`): the position
    in row 0 of a two-row batch, each simulation on row 1, the algorithm, budget, playouts and leaf values of
    ``MCTSPolicy`` + ``baselines.cascade_value``; a seeded search is deterministic, but draws other moves than the
    Python search with the same seed.

    ``depth``: playout plies before the cascade scores the leaf; ``scale``: the cascade value's scale.
    ``playout_weights`` (one float per :data:`PLAYOUT_FEATURES`): the playouts draw each move with probability
    proportional to ``exp(w . f(move))`` instead of uniformly (all zeros: the uniform distribution, other draws);
    None (default): the uniform playouts of ``search``. ``local_playout``: only the placements next to the previous
    ply's cell are weighed, the other moves weigh 1 (:func:`_local_move`)."""

    def __init__(
        self,
        game: BestiariumGame,
        budget: int,
        exploration: float,
        depth: int,
        scale: float,
        playout_weights: tuple[float, ...] | np.ndarray | None = None,
        local_playout: bool = False,
    ):
        super().__init__(budget, exploration)
        self.game = game
        self.engine = BestiariumBatched(**game.options())
        self.depth = int(depth)
        self.scale = float(scale)
        self.rows = self.engine.new_state(2)
        n = self.engine.num_cells
        self.fixed_context = SearchContext(
            depth=self.depth,
            scale=self.scale,
            table=np.zeros(0, dtype=np.float64) if playout_weights is None else playout_table(playout_weights),
            local=bool(local_playout),
            mask=np.zeros(n + 1, dtype=np.bool_),
            values=np.zeros((2, n + 1), dtype=np.int64),
            books=np.zeros((BOOK_ROWS, n + 2), dtype=np.int64),
            cum=np.zeros(n + 2, dtype=np.float64),
        )

    def __call__(
        self,
        state: BestiariumState,
        rng: np.random.Generator,
        root_actions: np.ndarray | None = None,
        budget: int | None = None,
        root_visits: np.ndarray | None = None,
    ) -> int:
        """As :meth:`envs.common.fastsearch.CompiledSearch.__call__`, the root actions tried in id order (as the
        tree's candidates)."""
        if root_actions is not None:
            root_actions = np.sort(np.asarray(root_actions, dtype=np.int64).reshape(-1))
        return super().__call__(state, rng, root_actions, budget, root_visits)

    def move_codes(self, state: BestiariumState) -> np.ndarray:
        """The :data:`PLAYOUT_FEATURES` code of every legal placement / growth of ``state`` (int64 per action;
        -1 for the pass and illegal actions)."""
        self.engine.from_reference(state, self.rows, 1)
        books = np.zeros((BOOK_ROWS, self.engine.num_cells + 2), dtype=np.int64)
        out = np.full(self.engine.num_actions, -1, dtype=np.int64)
        if not state.over:
            n = _learned_move(
                self.rows, self.engine.tables, 1, books, np.ones(N_CODES), np.zeros(books.shape[1]), False
            )
            out[books[0, :n]] = books[4, :n]
        return out

    def playout_move(self, state: BestiariumState, seed: int, last: int = -1) -> int:
        """One move of the playout policy in ``state`` (live, unchanged), drawn from generator state ``seed``
        (``last``: the previous ply's cell, for the local playout)."""
        ctx = self.fixed_context
        if ctx.table.shape[0] == 0:
            raise ValueError("playout_move needs playout_weights")
        self.engine.from_reference(state, self.rows, 1)
        self.rows.rng[1] = np.uint64(seed)
        tables = self.engine.tables
        if ctx.local:
            return int(_local_move(self.rows, tables, 1, ctx.table, ctx.books, ctx.cum, ctx.mask, int(last)))
        return int(_learned_move(self.rows, tables, 1, ctx.books, ctx.table, ctx.cum, True))

    def leaf_value(self, state: BestiariumState, seed: int, depth: int | None = None) -> np.ndarray:
        """One leaf value of ``state`` (unchanged), as a simulation scores its leaf (for tests)."""
        self.engine.from_reference(state, self.rows, 1)
        self.rows.rng[1] = np.uint64(seed)
        out = np.zeros(2, dtype=np.float64)
        ctx = self.fixed_context if depth is None else self.fixed_context._replace(depth=int(depth))
        _leaf(self.rows, self.engine.tables, ctx, 1, out)
        return out
