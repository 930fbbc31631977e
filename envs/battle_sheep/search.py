"""Battle Sheep's compiled search baseline: what is Battle Sheep's own in ``baselines.search_policy``'s search
(``envs.common.mcts.MCTSPolicy``'s UCT over ``baselines.move_candidates``, uniformly random playouts to the end
valued by the returns), for the tree written once in ``envs/common/fastsearch.py``, on two rows of the batched
engine (``fast.py``: the root and each simulation's row), with the row functions of the compiled rules
(``kernels.py``).

:class:`CompiledSearch` is the one interface every game's compiled search offers; :func:`playout` plays a batched
row on with the search's playout (for tests).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envs.battle_sheep.actions import BUILD, EMPTY, MAX_MOVE, PLACE
from envs.battle_sheep.fast import BattleSheepBatched
from envs.battle_sheep.kernels import (
    BattleSheepBatchedState,
    apply_row,
    copy_row,
    legal_tiles_row,
    mover_row,
    random_action_row,
    returns_row,
)
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState
from envs.common import fastsearch
from envs.common.jit import inline_jit


class SearchContext(NamedTuple):
    """The search's own settings and work buffers: none (its playouts run to the end, its candidates are written
    straight into the tree's list); the class names Battle Sheep's functions to the tree
    (``fastsearch.register``)."""


@inline_jit
def _tree_candidates(st, tab, ctx, b, player, out):
    """``baselines.move_candidates`` of live row ``b`` into ``out``; returns how many: per (stack, direction) of
    the mover 1, half and all but one of the sheep that may leave (each once), in the reference's order (stacks
    in the order first occupied); the legal tiles or stack cells in id order in the set-up phases. Inlined into
    the tree, the fields read at the top (``kernels.py``'s docstring says why); the build phase's call of
    ``legal_tiles_row`` costs every call some reference counting, measured negligible at one call a simulation."""
    if st.phase[b] == BUILD:
        return legal_tiles_row(st, tab, b, out)
    num_cells = st.cells.shape[1]
    ph = st.phase[b]
    num_stacks = st.num_stacks[b, player]
    cells = st.cells[b]
    heights = st.heights[b]
    on_border = st.on_border[b]
    stacks = st.stacks[b, player]
    nbr = tab.nbr
    count = 0
    if ph == PLACE:
        for c in range(num_cells):
            if on_border[c] and cells[c] == EMPTY:
                out[count] = 3 * num_cells + c
                count += 1
        return count
    for i in range(num_stacks):
        c = stacks[i]
        k = np.int64(heights[c]) - 1
        if k < 1:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j < 0 or cells[j] != EMPTY:
                continue
            base = 4 * num_cells + (c * 6 + d) * MAX_MOVE
            half = (k + 1) // 2
            out[count] = base
            count += 1
            if half != 1 and half != k:
                out[count] = base + half - 1
                count += 1
            if k != 1:
                out[count] = base + k - 1
                count += 1
    return count


@inline_jit
def _playout(st, tab, b, max_depth):
    """Play row ``b`` on with uniformly random legal actions (``random_action_row``: ``st.rng[b]``) until the game
    ends or ``max_depth`` plies (< 0: no cut); returns the plies played. The search's and the tests' one playout."""
    depth = 0
    while mover_row(st, tab, b) >= 0 and (max_depth < 0 or depth < max_depth):
        apply_row(st, tab, b, random_action_row(st, tab, b))
        depth += 1
    return depth


@inline_jit
def _leaf(st, tab, ctx, b, out):
    """The leaf's value per seat into ``out``: row ``b`` played to the end (:func:`_playout`), its returns."""
    _playout(st, tab, b, -1)
    returns_row(st, tab, b, out)


fastsearch.register(
    SearchContext,
    mover=mover_row,
    apply=apply_row,
    copy=copy_row,
    candidates=_tree_candidates,
    leaf=_leaf,
    # no chance after the set-up (pasture="random" is built before the first decision, and a built pasture's
    # tiles are laid as chosen): a node's position, so its candidates, is the same at every visit
    fixed_candidates=True,
)


def playout(engine: BattleSheepBatched, state: BattleSheepBatchedState, row: int, max_depth: int = -1) -> int:
    """Play row ``row`` on with uniformly random legal actions (from the row's generator) until the game ends or
    ``max_depth`` plies (< 0: no cut), as the search's playouts do; returns the plies played."""
    return int(_playout(state, engine.tables, int(row), int(max_depth)))


class CompiledSearch(fastsearch.CompiledSearch):
    """The ``search`` baseline's decision, compiled (:class:`envs.common.fastsearch.CompiledSearch`): the position
    in row 0 of a two-row batch, each simulation on row 1, ``budget`` UCT simulations over
    ``baselines.move_candidates`` (or the given root actions) and uniformly random playouts to the end. Its random
    moves and ties come from a SplitMix64 stream seeded by one draw from the caller's generator per decision: a
    seeded search is deterministic, but draws other numbers than the Python search with the same seed."""

    def __init__(self, game: BattleSheepGame, budget: int, exploration: float):
        super().__init__(budget, exploration)
        self.game = game
        self.engine = BattleSheepBatched(**game.options())
        self.rows = self.engine.new_state(2)
        self.fixed_context = SearchContext()

    def draw_seed(self, rng: np.random.Generator) -> int:
        """The generator's next raw 64 bits (the draw this search has always made: same seeds, same games)."""
        return int(rng.bit_generator.random_raw())

    def candidates(self, state: BattleSheepState) -> np.ndarray:
        """The tree's candidate actions at ``state`` (live, unchanged), in the order the tree tries them
        (``baselines.move_candidates``, compiled; for tests)."""
        self.engine.from_reference(state, self.rows, 1)
        out = np.empty(self.engine.num_actions, dtype=np.int64)
        n = _tree_candidates(self.rows, self.engine.tables, self.fixed_context, 1, int(state.to_move), out)
        return out[:n].copy()
