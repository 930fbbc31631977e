"""Beasty Borders' compiled search baseline: what is Beasty Borders' own in ``baselines.BordersMCTS``, for the tree
written once in ``envs/common/fastsearch.py``: the tree's candidates (every legal action; in the variant per type
the lowest and highest legal figure, then pass: ``baselines.variant_candidates``) and the leaf (a greedy playout,
``baselines.greedy_rollout`` with a uniformly random legal move with probability ``epsilon``, valued by the
result blended with the final vp margin, or by the vp lead when cut). The dice are chance, so the candidates are
listed on every visit. :func:`playout` plays a batched row to the end with the same playout (for tests).

numba's disk cache of a function holds the functions it calls compiled into it and watches only its own file:
this file's kernels do not notice edits of ``kernels.py`` or ``fast.py`` (clear ``envs/beasty_borders/__pycache__``
after one); the tree's cache file is named after a digest of the files of this search's functions
(``envs.common.fastsearch.kernels``: this file and ``kernels.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import uint64

from envs.beasty_borders.fast import BeastyBordersBatched, greedy_action_row
from envs.beasty_borders.kernels import (
    BeastyBordersBatchedState,
    apply_row,
    copy_row,
    legal_row,
    mover_row,
    random_action_row,
)
from envs.beasty_borders.rules import BeastyBordersGame
from envs.common import fastsearch
from envs.common.fastrng import next_u64
from envs.common.jit import inline_jit, row_jit


class SearchContext(NamedTuple):
    """The search's own settings (``baselines.BordersMCTS``) and work buffer."""

    max_depth: int
    """Playout plies before a cut (the vp lead values the leaf); -1: play to the end."""
    epsilon: float
    """The playout's chance of a uniformly random legal move instead of the greedy one."""
    margin_weight: float
    """A finished playout's value: (1 - w) * result + w * tanh(vp margin / eval_scale)."""
    eval_scale: float
    """The vp margin's (and a cut playout's vp lead's) scale."""
    mask: np.ndarray
    """(num_actions,) bool work."""


@inline_jit
def _uniform(rng, b):
    """A float in [0, 1) from row ``b``'s generator (the top 53 bits)."""
    return float(next_u64(rng, b) >> uint64(11)) * (1.0 / 9007199254740992.0)


@row_jit
def _playout(st, tab, ctx, b):
    """Play row ``b`` on with baselines.greedy_rollout (a lone legal move, the pass, without a draw; else with
    probability ``ctx.epsilon`` a uniformly random legal move, otherwise :func:`greedy_action_row`; chance and ties
    from ``st.rng[b]``) until the game ends or ``ctx.max_depth`` plies (< 0: no cut); returns the plies played."""
    depth = 0
    while mover_row(st, tab, b) >= 0:
        if ctx.max_depth >= 0 and depth >= ctx.max_depth:
            break
        if legal_row(st, tab, b, ctx.mask) == 1:
            action = tab.pass_action
        elif _uniform(st.rng, b) < ctx.epsilon:
            action = random_action_row(st, tab, b)
        else:
            action = greedy_action_row(st, tab, b, st.rng)
        apply_row(st, tab, b, action)
        depth += 1
    return depth


@row_jit
def _tree_candidates(st, tab, ctx, b, player, out):
    """The tree's actions at live row ``b``: every legal action in id order (main), or per type the lowest and the
    highest legal figure, then the pass (variant: baselines.variant_candidates)."""
    mask = ctx.mask
    legal_row(st, tab, b, mask)
    actions = mask.shape[0]
    n = 0
    if tab.luck:
        for a in range(actions):
            if mask[a]:
                out[n] = a
                n += 1
        return n
    for k in range(tab.types):
        first = -1
        last = -1
        for a in range(actions - 1):
            if mask[a] and tab.row_type[a] == k:
                if first < 0:
                    first = a
                last = a
        if first >= 0:
            out[n] = first
            n += 1
            if last != first:
                out[n] = last
                n += 1
    out[n] = actions - 1
    return n + 1


@row_jit
def _leaf(st, tab, ctx, b, out):
    """The leaf value of row ``b`` per seat into ``out`` (row ``b`` is played on: :func:`_playout`): a finished
    game's result blended with ``tanh(vp margin / eval_scale)`` by ``margin_weight``; a playout cut at
    ``max_depth`` by ``tanh((vp lead + 0.1 * placed lead) / eval_scale)`` (baselines.vp_evaluate)."""
    _playout(st, tab, ctx, b)
    vp = st.vp
    placed = st.placed
    if st.empty_count[b] > 0:
        v = np.tanh((vp[b, 0] - vp[b, 1] + 0.1 * (placed[b, 0] - placed[b, 1])) / ctx.eval_scale)
    else:
        d = vp[b, 0] - vp[b, 1]
        if d == 0:
            d = placed[b, 0] - placed[b, 1]
        result = 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
        margin = np.tanh((vp[b, 0] - vp[b, 1]) / ctx.eval_scale)
        v = (1 - ctx.margin_weight) * result + ctx.margin_weight * margin
    out[0] = v
    out[1] = -v


fastsearch.register(
    SearchContext,
    mover=mover_row,
    apply=apply_row,
    copy=copy_row,
    candidates=_tree_candidates,
    leaf=_leaf,
    fixed_candidates=False,  # the dice: a node's position (and its legal actions) differs from visit to visit
)


def playout(
    engine: BeastyBordersBatched, state: BeastyBordersBatchedState, row: int, max_depth: int = -1, epsilon: float = 0.1
) -> int:
    """Play row ``row`` on with the search's playout (:func:`_playout`: ``baselines.greedy_rollout``, a uniformly
    random legal move with probability ``epsilon``) until the game ends or ``max_depth`` plies (< 0: no cut),
    chance and ties from the row's generator; returns the plies played."""
    ctx = SearchContext(int(max_depth), float(epsilon), 0.0, 1.0, np.zeros(engine.num_actions, dtype=np.bool_))
    return int(_playout(state, engine.tables, ctx, int(row)))


class CompiledSearch(fastsearch.CompiledSearch):
    """The ``search`` baseline's decision, compiled (:class:`envs.common.fastsearch.CompiledSearch`): the position
    in row 0 of a two-row batch, each simulation on row 1 (its dice, random moves and ties drawn from row 1's
    generator), the UCT, candidates, greedy playouts and blended values of ``baselines.BordersMCTS``. One raw draw
    from the caller's generator per decision seeds the stream: a seeded search is deterministic, but draws other
    numbers than the Python search with the same seed.

    ``margin_weight``, ``eval_scale``: a finished playout's value (:func:`_leaf`); ``rollout_depth``: playout plies
    before the vp lead values the leaf (None: play to the end); ``rollout_epsilon``: the playout's random-move
    chance."""

    def __init__(
        self,
        game: BeastyBordersGame,
        budget: int,
        exploration: float,
        margin_weight: float,
        eval_scale: float,
        rollout_depth: int | None = None,
        rollout_epsilon: float = 0.1,
    ):
        super().__init__(budget, exploration)
        self.game = game
        self.engine = BeastyBordersBatched(**game.options())
        self.rows = self.engine.new_state(2)
        self.fixed_context = SearchContext(
            max_depth=-1 if rollout_depth is None else int(rollout_depth),
            epsilon=float(rollout_epsilon),
            margin_weight=float(margin_weight),
            eval_scale=float(eval_scale),
            mask=np.zeros(self.engine.num_actions, dtype=np.bool_),
        )

    def draw_seed(self, rng: np.random.Generator) -> int:
        """One raw 64-bit draw of the caller's generator (the draw this search has always made, so that seeded
        games stay the same)."""
        return int(rng.bit_generator.random_raw())
