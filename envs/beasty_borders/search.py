"""Beasty Borders' compiled search baseline: the whole UCT search of ``baselines.BordersMCTS`` in one numba kernel
over the batched engine's rows (``fast.py``), with greedy playouts (``baselines.greedy_rollout``, a uniformly random
legal move with probability ``epsilon``) valued by the result blended with the final vp margin.

:class:`CompiledSearch` is the one interface every game's compiled search offers (``envs/common/fastsearch.py``);
:func:`playout` plays a batched row to the end with the playout rule (for tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, uint64

from envs.beasty_borders.fast import (
    _ROW_OWNER,
    _ROW_TYPE,
    BeastyBordersBatched,
    BeastyBordersBatchedState,
    _apply_row,
    _greedy_action,
    _legal_row,
    _mover,
)
from envs.common.fastrng import below, next_u64
from envs.common.fastsearch import untried_choice
from envs.common.game import Game


@njit(cache=True, inline="always")
def _uniform(rng, b):
    """A float in [0, 1) from row ``b``'s generator (the top 53 bits)."""
    return float(next_u64(rng, b) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _playout_kernel(
    b,
    max_depth,
    epsilon,
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    placed,
    row,
    plies,
    empty_count,
    label,
    group_size,
    vp,
    rng,
    luck,
    types,
    pass_action,
    path,
    rank,
    nbr,
    row_owner,
    row_type,
    greedy,
):
    """Play row ``b`` on with baselines.greedy_rollout until the game ends or ``max_depth`` plies (< 0: no cut);
    returns the plies played."""
    mask = np.zeros((1, pass_action + 1), dtype=np.bool_)
    values = np.empty(3, dtype=np.float64)
    depth = 0
    while empty_count[b] > 0:
        if max_depth >= 0 and depth >= max_depth:
            break
        _legal_row(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, mask, 0)
        count = 0
        for a in range(mask.shape[1]):
            if mask[0, a]:
                count += 1
        if count == 1:
            action = pass_action
        elif _uniform(rng, b) < epsilon:
            k = below(rng, b, count)
            action = -1
            for a in range(mask.shape[1]):
                if mask[0, a]:
                    if k == 0:
                        action = a
                        break
                    k -= 1
        else:
            seat = _mover(roller[b], phase[b])
            action = _greedy_action(
                board,
                pos,
                phase,
                choice,
                remaining,
                row,
                label,
                group_size,
                rng,
                b,
                seat,
                luck,
                types,
                pass_action,
                nbr,
                row_owner,
                row_type,
                values,
                greedy,
            )
        _apply_row(
            board,
            pos,
            roll,
            roller,
            phase,
            choice,
            remaining,
            placed,
            row,
            plies,
            empty_count,
            label,
            group_size,
            vp,
            rng,
            b,
            action,
            luck,
            pass_action,
            path,
            rank,
            nbr,
        )
        depth += 1
    return depth


@njit(cache=True)
def _candidates(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, row_type, mask, out):
    """The actions the search tree considers in live row ``b`` into ``out``; returns how many: every legal action
    (main), or per type the lowest and the highest legal figure, then pass (variant: baselines.variant_candidates).
    ``mask``: scratch (1, num_actions)."""
    _legal_row(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, mask, 0)
    actions = mask.shape[1]
    n = 0
    if luck:
        for a in range(actions):
            if mask[0, a]:
                out[n] = a
                n += 1
        return n
    for k in range(types):
        first = -1
        last = -1
        for a in range(actions - 1):
            if mask[0, a] and row_type[a] == k:
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


@njit(cache=True)
def _copy_row(
    src, dst, board, pos, roll, roller, phase, choice, remaining, placed, row, plies, empty_count, label, group_size, vp
):
    """Row ``src`` of every field but the generator into row ``dst``."""
    board[dst] = board[src]
    pos[dst] = pos[src]
    roll[dst] = roll[src]
    roller[dst] = roller[src]
    phase[dst] = phase[src]
    choice[dst] = choice[src]
    remaining[dst] = remaining[src]
    placed[dst] = placed[src]
    row[dst] = row[src]
    plies[dst] = plies[src]
    empty_count[dst] = empty_count[src]
    label[dst] = label[src]
    group_size[dst] = group_size[src]
    vp[dst] = vp[src]


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _search_kernel(
    budget,
    exploration,
    margin_weight,
    max_depth,
    epsilon,
    root_legal,
    root_visits,
    root_actions,
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    placed,
    row,
    plies,
    empty_count,
    label,
    group_size,
    vp,
    rng,
    luck,
    types,
    pass_action,
    path,
    rank,
    nbr,
    row_owner,
    row_type,
    eval_scale,
    max_plies,
    greedy,
):
    """The ``search`` baseline's decision for the mover of row 0, compiled: envs.common.mcts.MCTSPolicy.act
    (UCT, open loop: each simulation copies row 0 into row 1 and samples the dice from ``rng[1]``) with
    BordersMCTS's playouts and values (:func:`_playout_kernel`; tanh of the final vp margin / ``eval_scale``
    blended with the result by ``margin_weight``; a playout cut after ``max_depth`` plies is valued by the
    vp lead as baselines.vp_evaluate). ``root_visits[a]``: the visits of the root's child ``a`` (0 if none). The
    root's children are restricted to ``root_legal`` when choosing; returns the most visited (the first expanded
    on ties), -1 if none. ``root_actions``: when not empty, the root's children are exactly these (legal) actions
    instead of the candidates."""
    actions = pass_action + 1
    max_nodes = budget + 1
    children = np.full((max_nodes, actions), -1, dtype=np.int64)
    visits = np.zeros(max_nodes, dtype=np.int64)
    avail = np.zeros(max_nodes, dtype=np.int64)
    value = np.zeros((max_nodes, 2), dtype=np.float64)
    nodes = 1
    node_path = np.empty(max_plies + 2, dtype=np.int64)
    mask = np.zeros((1, actions), dtype=np.bool_)
    acts = np.empty(actions, dtype=np.int64)
    untried = np.empty(actions, dtype=np.int64)
    for _ in range(budget):
        _copy_row(
            0,
            1,
            board,
            pos,
            roll,
            roller,
            phase,
            choice,
            remaining,
            placed,
            row,
            plies,
            empty_count,
            label,
            group_size,
            vp,
        )
        node = 0
        node_path[0] = 0
        length = 1
        while empty_count[1] > 0:
            player = _mover(roller[1], phase[1])
            n = _candidates(
                remaining, row, roller, phase, choice, empty_count, 1, luck, types, row_owner, row_type, mask, acts
            )
            if node == 0 and root_actions.size > 0:
                n = root_actions.size
                acts[:n] = root_actions
            a = untried_choice(children, node, acts, n, avail, untried, rng, 1)
            if a >= 0:
                child = nodes
                nodes += 1
                children[node, a] = child
                avail[child] = 1
                _apply_row(
                    board,
                    pos,
                    roll,
                    roller,
                    phase,
                    choice,
                    remaining,
                    placed,
                    row,
                    plies,
                    empty_count,
                    label,
                    group_size,
                    vp,
                    rng,
                    1,
                    a,
                    luck,
                    pass_action,
                    path,
                    rank,
                    nbr,
                )
                node_path[length] = child
                length += 1
                break
            best = -1
            best_score = -np.inf
            for i in range(n):
                child = children[node, acts[i]]
                score = value[child, player] / visits[child] + exploration * np.sqrt(
                    np.log(avail[child]) / visits[child]
                )
                if score > best_score:
                    best = acts[i]
                    best_score = score
            _apply_row(
                board,
                pos,
                roll,
                roller,
                phase,
                choice,
                remaining,
                placed,
                row,
                plies,
                empty_count,
                label,
                group_size,
                vp,
                rng,
                1,
                best,
                luck,
                pass_action,
                path,
                rank,
                nbr,
            )
            node = children[node, best]
            node_path[length] = node
            length += 1
        if empty_count[1] > 0:
            _playout_kernel(
                1,
                max_depth,
                epsilon,
                board,
                pos,
                roll,
                roller,
                phase,
                choice,
                remaining,
                placed,
                row,
                plies,
                empty_count,
                label,
                group_size,
                vp,
                rng,
                luck,
                types,
                pass_action,
                path,
                rank,
                nbr,
                row_owner,
                row_type,
                greedy,
            )
        if empty_count[1] > 0:  # cut: the vp lead (baselines.vp_evaluate)
            v = np.tanh((vp[1, 0] - vp[1, 1] + 0.1 * (placed[1, 0] - placed[1, 1])) / eval_scale)
        else:
            d = vp[1, 0] - vp[1, 1]
            if d == 0:
                d = placed[1, 0] - placed[1, 1]
            result = 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
            margin = np.tanh((vp[1, 0] - vp[1, 1]) / eval_scale)
            v = (1 - margin_weight) * result + margin_weight * margin
        for i in range(length):
            visits[node_path[i]] += 1
            value[node_path[i], 0] += v
            value[node_path[i], 1] -= v
    best = -1
    for a in range(actions):
        child = children[0, a]
        root_visits[a] = visits[child] if child >= 0 else 0
        if (
            child >= 0
            and root_legal[a]
            and (
                best < 0
                or visits[child] > visits[children[0, best]]
                or (visits[child] == visits[children[0, best]] and child < children[0, best])
            )
        ):
            best = a
    return best


def playout(
    engine: BeastyBordersBatched, state: BeastyBordersBatchedState, row: int, max_depth: int = -1, epsilon: float = 0.1
) -> int:
    """Play row ``row`` on with the greedy playout rule of ``baselines.greedy_rollout`` (a uniformly random
    legal move with probability ``epsilon``) until the game ends or ``max_depth`` plies (< 0: no cut), chance
    and ties from the row's generator; returns the plies played."""
    return _playout_kernel(
        row,
        max_depth,
        epsilon,
        *engine._fields(state),
        engine.luck,
        engine.num_types,
        engine.pass_action,
        engine.path,
        engine.rank,
        engine.nbr,
        _ROW_OWNER,
        _ROW_TYPE,
        engine.greedy,
    )


class CompiledSearch:
    """The ``search`` baseline's decision with its whole search compiled (:func:`_search_kernel`): the position is
    loaded into row 0 of a two-row batch (row 1 is each simulation's scratch) and searched with ``budget`` UCT
    simulations, greedy playouts and the blended playout values of ``baselines.BordersMCTS``. Its dice, random moves
    and ties come from a SplitMix64 stream seeded by one draw from the caller's generator per decision: a seeded
    search is deterministic, but draws other numbers than the Python search with the same seed."""

    def __init__(
        self,
        game: Game,
        budget: int,
        exploration: float,
        margin_weight: float,
        eval_scale: float,
        rollout_depth: int | None = None,
        rollout_epsilon: float = 0.1,
    ):
        self.game = game
        self.engine = BeastyBordersBatched(**game.options())
        self.budget = int(budget)
        self.exploration = float(exploration)
        self.margin_weight = float(margin_weight)
        self.eval_scale = float(eval_scale)
        self.max_depth = -1 if rollout_depth is None else int(rollout_depth)
        self.epsilon = float(rollout_epsilon)
        self._rows = self.engine.new_state(2)

    def __call__(
        self,
        state: Any,
        rng: np.random.Generator,
        root_actions: np.ndarray | None = None,
        budget: int | None = None,
        root_visits: np.ndarray | None = None,
    ) -> int:
        """The most visited legal root action after ``budget`` (default: the search's) simulations from ``state``
        (a reference state, unchanged) for the player to move, -1 if there is none; ``root_actions`` (legal ids),
        when given, are the root's only children; ``root_visits`` (int64, one per action), when given, receives
        the root children's visit counts."""
        engine, rows = self.engine, self._rows
        if root_visits is None:
            root_visits = np.zeros(engine.num_actions, dtype=np.int64)
        root_actions = np.zeros(0, np.int64) if root_actions is None else np.asarray(root_actions, np.int64)
        if root_actions.size > engine.num_actions:
            raise ValueError(f"at most {engine.num_actions} root actions, got {root_actions.size}")
        legal = self.game.legal_mask(state).astype(bool)
        engine.from_reference(state, rows, 0)
        rows.rng[1] = rng.bit_generator.random_raw()
        return int(
            _search_kernel(
                self.budget if budget is None else int(budget),
                self.exploration,
                self.margin_weight,
                self.max_depth,
                self.epsilon,
                legal,
                root_visits,
                root_actions,
                *engine._fields(rows),
                engine.luck,
                engine.num_types,
                engine.pass_action,
                engine.path,
                engine.rank,
                engine.nbr,
                _ROW_OWNER,
                _ROW_TYPE,
                self.eval_scale,
                engine.max_game_length,
                engine.greedy,
            )
        )
