"""Bestiarium's compiled search baseline: the whole decision of ``baselines.search_policy`` (the UCT, budget,
playouts and leaf values of ``MCTSPolicy`` + ``baselines.cascade_value``) in one numba kernel over two rows of the
batched engine (``fast.py``: the root, and each simulation's copy), plus flat Monte Carlo action values for the
measurements (``training/measure``).

:class:`CompiledSearch` is the one interface every game's compiled search offers (``envs/common/fastsearch.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.bestiarium.fast import BestiariumBatched, _mask_row, _size_values_row, _step_row, _winner_row
from envs.bestiarium.rules import BestiariumGame, BestiariumState
from envs.common.fastrng import below


@njit(cache=True)
def _copy_row(st, src, dst):
    """Row ``src`` into row ``dst`` (all but the generator)."""
    st.color[dst, :] = st.color[src, :]
    st.cid[dst, :] = st.cid[src, :]
    st.link[dst, :] = st.link[src, :]
    st.head[dst, :] = st.head[src, :]
    st.size[dst, :] = st.size[src, :]
    st.legal[dst, :, :] = st.legal[src, :, :]
    st.to_move[dst] = st.to_move[src]
    st.phase[dst] = st.phase[src]
    st.chain[dst] = st.chain[src]
    st.passes[dst] = st.passes[src]
    st.first_passer[dst] = st.first_passer[src]
    st.plies[dst] = st.plies[src]
    st.over[dst] = st.over[src]


@njit(cache=True)
def _leaf_value(st, b, depth, max_plies, scale, tab, sc, mask, values, out):
    """The search's leaf value of row ``b`` per seat into ``out`` (row ``b`` is played on): uniform random legal
    moves (``st.rng[b]``) for at most ``depth`` plies, then the returns of a finished game, 0 at the ply cap, else
    ``tanh(d / (scale s^2))`` for Black (White the negation) at the largest size s where the cascade values differ
    by d (0 when none does): ``baselines.cascade_value``."""
    n_cells = st.color.shape[1]
    out[0] = 0.0
    out[1] = 0.0
    steps = 0
    while True:
        if st.over[b]:
            winner = _winner_row(st, b, tab, sc, values)
            out[winner] = 1.0
            out[1 - winner] = -1.0
            return
        if st.plies[b] >= max_plies:
            return
        if steps >= depth:
            break
        k = below(st.rng, b, _mask_row(st, b, mask, tab.nbrs))
        for a in range(n_cells + 1):
            if mask[a]:
                if k == 0:
                    _step_row(st, b, a, tab, sc)
                    break
                k -= 1
        steps += 1
    top = _size_values_row(st, b, tab, sc, values)
    for s in range(top, 0, -1):
        d = values[0, s] - values[1, s]
        if d != 0:
            x = np.tanh(d / (scale * s * s))
            out[0] = x
            out[1] = -x
            return


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _search_kernel(st, budget, exploration, depth, max_plies, scale, tab, sc, root_allowed):
    """UCT from row 0's position with ``budget`` simulations on work row 1 (``st.rng[1]`` draws every random
    choice); returns the most visited root action. The algorithm of ``envs.common.mcts.MCTSPolicy`` for a game
    without chance or hidden information: expand one untried action (uniformly at random) per simulation, else
    descend by ``value/visits + exploration * sqrt(log(avail) / visits)`` (the player to move's value; ties to
    the lowest action), value the leaf with :func:`_leaf_value`, add it along the path. The answer is the most
    visited root child, ties to the one expanded first (with a budget near the number of legal moves most
    children tie; a fixed order such as the lowest action would skew play towards one corner of the board).
    The root's children are the legal actions that ``root_allowed`` (bool, one per action) keeps."""
    n_actions = st.color.shape[1] + 1
    # the two rows as run-time values: a literal row number would make numba compile every callee once more
    work = st.color.shape[0] - 1
    root = work - 1
    nodes = budget + 1
    children = np.full((nodes, n_actions), -1, dtype=np.int64)
    visits = np.zeros(nodes, dtype=np.int64)
    avail = np.zeros(nodes, dtype=np.int64)
    value = np.zeros((nodes, 2), dtype=np.float64)
    path = np.empty(nodes + 1, dtype=np.int64)
    untried = np.empty(n_actions, dtype=np.int64)
    mask = np.zeros(n_actions, dtype=np.bool_)
    values = np.zeros((2, n_actions), dtype=np.int64)
    leaf = np.zeros(2, dtype=np.float64)
    used = 1
    for _ in range(budget):
        _copy_row(st, root, work)
        node = 0
        path[0] = 0
        plen = 1
        while not st.over[work] and st.plies[work] < max_plies:
            player = st.to_move[work]
            _mask_row(st, work, mask, tab.nbrs)
            if node == 0:
                mask &= root_allowed
            n_untried = 0
            for a in range(n_actions):
                if mask[a]:
                    child = children[node, a]
                    if child >= 0:
                        avail[child] += 1
                    else:
                        untried[n_untried] = a
                        n_untried += 1
            if n_untried > 0:
                a = untried[below(st.rng, work, n_untried)]
                children[node, a] = used
                avail[used] = 1
                _step_row(st, work, a, tab, sc)
                path[plen] = used
                plen += 1
                used += 1
                break
            best = -1
            best_score = -np.inf
            for a in range(n_actions):
                if mask[a]:
                    child = children[node, a]
                    score = value[child, player] / visits[child] + exploration * np.sqrt(
                        np.log(avail[child]) / visits[child]
                    )
                    if score > best_score:
                        best = a
                        best_score = score
            _step_row(st, work, best, tab, sc)
            node = children[node, best]
            path[plen] = node
            plen += 1
        _leaf_value(st, work, depth, max_plies, scale, tab, sc, mask, values, leaf)
        for i in range(plen):
            visits[path[i]] += 1
            value[path[i], 0] += leaf[0]
            value[path[i], 1] += leaf[1]
    _mask_row(st, root, mask, tab.nbrs)
    best = -1
    most = -1
    first = nodes
    for a in range(n_actions):  # ties go to the child expanded first, as MCTSPolicy's max over its children dict
        child = children[0, a]
        if mask[a] and child >= 0 and (visits[child] > most or (visits[child] == most and child < first)):
            best = a
            most = visits[child]
            first = child
    return best


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _action_values_kernel(st, rollouts, depth, max_plies, scale, tab, sc, out):
    """Flat Monte Carlo action values of row ``work - 1``'s position (work row ``work`` = the last row is played
    on): for every legal action, the mean over ``rollouts`` simulations of the mover's leaf value after playing
    it, each leaf valued as the search's (:func:`_leaf_value`: up to ``depth`` uniform random plies, then the
    cascade). Illegal actions get NaN."""
    n_actions = st.color.shape[1] + 1
    work = st.color.shape[0] - 1
    root = work - 1
    root_mask = np.zeros(n_actions, dtype=np.bool_)
    mask = np.zeros(n_actions, dtype=np.bool_)
    values = np.zeros((2, n_actions), dtype=np.int64)
    leaf = np.zeros(2, dtype=np.float64)
    player = st.to_move[root]
    _mask_row(st, root, root_mask, tab.nbrs)
    for a in range(n_actions):
        out[a] = np.nan
        if not root_mask[a]:
            continue
        total = 0.0
        for _ in range(rollouts):
            _copy_row(st, root, work)
            _step_row(st, work, a, tab, sc)
            _leaf_value(st, work, depth, max_plies, scale, tab, sc, mask, values, leaf)
            total += leaf[player]
        out[a] = total / rollouts


class CompiledSearch:
    """The ``search`` baseline's whole decision in one kernel call (:func:`_search_kernel`): the position is
    loaded into a two-game batch (row 0 the root, row 1 each simulation's copy) and searched with the algorithm,
    budget, playouts and leaf values of ``MCTSPolicy`` + ``baselines.cascade_value``. Random choices come from a
    SplitMix64 stream seeded by one draw from the caller's generator per decision: a seeded search is
    deterministic, but draws other moves than the Python search with the same seed."""

    def __init__(self, game: BestiariumGame, budget: int, exploration: float, depth: int, scale: float):
        self.engine = BestiariumBatched(**game.options())
        self.budget = int(budget)
        self.exploration = float(exploration)
        self.depth = int(depth)
        self.scale = float(scale)
        self._state = self.engine.new_state(2)
        self._every_action = np.ones(self.engine.num_actions, dtype=np.bool_)

    def leaf_value(self, state: BestiariumState, seed: int, depth: int | None = None) -> np.ndarray:
        """One leaf value of ``state`` (unchanged), as a simulation scores its leaf (for tests)."""
        self.engine.from_reference(state, self._state, 1)
        self._state.rng[1] = np.uint64(seed)
        n = self.engine.num_cells
        out = np.zeros(2, dtype=np.float64)
        _leaf_value(
            self._state,
            1,
            self.depth if depth is None else depth,
            self.engine.max_game_length,
            self.scale,
            self.engine.tables,
            self.engine._scratch,
            np.zeros(n + 1, dtype=np.bool_),
            np.zeros((2, n + 1), dtype=np.int64),
            out,
        )
        return out

    def __call__(
        self,
        state: BestiariumState,
        rng: np.random.Generator,
        root_actions: np.ndarray | None = None,
        budget: int | None = None,
        root_visits: np.ndarray | None = None,
    ) -> int:
        """The most visited root action after ``budget`` (default: the search's) simulations from ``state``
        (unchanged); ``root_actions`` (legal ids), when given, are the root's only children. The kernel keeps no
        root visit counts for the caller: ``root_visits`` must be None."""
        if root_visits is not None:
            raise NotImplementedError("Bestiarium's compiled search fills no root_visits")
        self.engine.from_reference(state, self._state, 0)
        self._state.rng[1] = np.uint64(rng.integers(1 << 63))
        allowed = self._every_action
        if root_actions is not None:
            allowed = np.zeros(self.engine.num_actions, dtype=np.bool_)
            allowed[np.asarray(root_actions, dtype=np.int64)] = True
        return int(
            _search_kernel(
                self._state,
                self.budget if budget is None else int(budget),
                self.exploration,
                self.depth,
                self.engine.max_game_length,
                self.scale,
                self.engine.tables,
                self.engine._scratch,
                allowed,
            )
        )

    def action_values(self, state: BestiariumState, rng: np.random.Generator, rollouts: int) -> np.ndarray:
        """Flat Monte Carlo value of every action for the player to move (:func:`_action_values_kernel`:
        ``rollouts`` of the search's playouts after each legal action; NaN where illegal), float64 (A,)."""
        self.engine.from_reference(state, self._state, 0)
        self._state.rng[1] = np.uint64(rng.integers(1 << 63))
        out = np.empty(self.engine.num_actions, dtype=np.float64)
        _action_values_kernel(
            self._state,
            int(rollouts),
            self.depth,
            self.engine.max_game_length,
            self.scale,
            self.engine.tables,
            self.engine._scratch,
            out,
        )
        return out
