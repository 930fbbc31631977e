"""Pig's compiled search baseline: only what is Pig's own (the tree's candidates at a node and the leaf value: a
uniformly random playout to the end), for the tree written once in ``envs/common/fastsearch.py``.

Pig has chance (every roll), so a node reached again may hold another position: its candidates are listed on
every visit (``fixed_candidates=False``), and each simulation rolls its own dice from the simulation row's
generator. The default start is kept: the root in row 0, every simulation a copy of it on row 1.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envs.common import fastsearch
from envs.common.jit import row_jit
from pig.fast import PigBatched, apply_row, copy_row, legal_row, mover_row, random_action_row, returns_row
from pig.rules import PigGame


class SearchContext(NamedTuple):
    """The search's work buffers (Pig's search has no settings of its own)."""

    mask: np.ndarray
    """(2,) bool work: a legal mask."""


@row_jit
def _candidates(st, tab, ctx, b, player, out):
    """The tree's actions at row ``b``: the legal actions, in id order (``roll`` first)."""
    legal_row(st, tab, b, ctx.mask)
    n = 0
    for a in range(ctx.mask.shape[0]):
        if ctx.mask[a]:
            out[n] = a
            n += 1
    return n


@row_jit
def _leaf(st, tab, ctx, b, out):
    """The leaf's value per seat: uniformly random legal moves (``st.rng[b]``) to the end of the game, then its
    returns (0 for both at the ply cap)."""
    while mover_row(st, tab, b) >= 0:
        apply_row(st, tab, b, random_action_row(st, tab, b))
    out[0] = 0.0
    out[1] = 0.0
    if st.current[b] < 0:
        returns_row(st, tab, b, out)


fastsearch.register(
    SearchContext,
    mover=mover_row,
    apply=apply_row,
    copy=copy_row,
    candidates=_candidates,
    leaf=_leaf,
    fixed_candidates=False,  # chance: the same node may be reached with another turn total (hold legal or not)
)


class CompiledSearch(fastsearch.CompiledSearch):
    """The ``search`` baseline's decision (:class:`envs.common.fastsearch.CompiledSearch`): ``budget``
    simulations from the position in row 0, each on row 1 with random playouts; the row's dice and the tree's
    choices come from a SplitMix64 stream seeded by one draw from the caller's generator per decision."""

    def __init__(self, game: PigGame, budget: int, exploration: float):
        super().__init__(budget, exploration)
        self.game = game
        self.engine = PigBatched(**game.options())
        self.rows = self.engine.new_state(2)
        self.fixed_context = SearchContext(mask=np.zeros(self.engine.num_actions, dtype=np.bool_))
