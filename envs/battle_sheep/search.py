"""Battle Sheep's compiled search baseline: ``envs.common.mcts.MCTSPolicy``'s UCT with ``baselines.move_candidates``
and uniformly random playouts, the whole search in one numba kernel over two rows of the batched engine (``fast.py``:
the root and a simulation's scratch).

:class:`CompiledSearch` is the one interface every game's compiled search offers (``envs/common/fastsearch.py``);
:func:`playout` plays a batched row to the end with uniformly random moves (for tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from envs.battle_sheep.actions import BUILD, EMPTY, MAX_MOVE, OVER, PLACE
from envs.battle_sheep.fast import (
    MAX_STACKS,
    BattleSheepBatched,
    BattleSheepBatchedState,
    _apply_row,
    _legal_tile_list,
    _returns_row,
)
from envs.common.fastrng import below
from envs.common.game import Game


@njit(cache=True)
def _candidates(
    cells,
    heights,
    stacks,
    num_stacks,
    phase,
    to_move,
    num_pasture,
    pasture,
    on_border,
    b,
    tiles,
    cell_tiles,
    nbr,
    centre,
    code,
    near,
    tile_ok,
    out,
):
    """baselines.move_candidates of live row ``b`` into ``out``; returns how many: per (stack, direction) of the
    mover 1, half and all but one of the sheep that may leave (each once), in the reference's order; the legal
    tiles or stack cells in id order in the set-up phases."""
    num_cells = cells.shape[1]
    ph = phase[b]
    if ph == BUILD:
        return _legal_tile_list(
            cells, num_pasture, pasture, b, tiles, cell_tiles, nbr, centre, code, near, tile_ok, out
        )
    count = 0
    if ph == PLACE:
        for c in range(num_cells):
            if on_border[b, c] and cells[b, c] == EMPTY:
                out[count] = 3 * num_cells + c
                count += 1
        return count
    seat = to_move[b]
    for i in range(num_stacks[b, seat]):
        c = stacks[b, seat, i]
        k = np.int64(heights[b, c]) - 1
        if k < 1:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j < 0 or cells[b, j] != EMPTY:
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


@njit(cache=True)
def _random_action(
    cells,
    heights,
    stacks,
    num_stacks,
    phase,
    to_move,
    num_pasture,
    pasture,
    on_border,
    rng,
    b,
    tiles,
    cell_tiles,
    nbr,
    centre,
    code,
    near,
    tile_ok,
    scratch,
):
    """A uniformly random legal action of live row ``b`` from its generator (the search's playout policy,
    ``MCTSPolicy``'s default rollout). ``scratch``: at least 3N int64."""
    num_cells = cells.shape[1]
    ph = phase[b]
    if ph == BUILD:
        count = _legal_tile_list(
            cells, num_pasture, pasture, b, tiles, cell_tiles, nbr, centre, code, near, tile_ok, scratch
        )
        return scratch[below(rng, b, count)]
    if ph == PLACE:
        count = 0
        for i in range(num_pasture[b]):
            c = pasture[b, i]
            if on_border[b, c] and cells[b, c] == EMPTY:
                scratch[count] = c
                count += 1
        return 3 * num_cells + scratch[below(rng, b, count)]
    seat = to_move[b]
    total = 0
    for i in range(num_stacks[b, seat]):
        c = stacks[b, seat, i]
        h = np.int64(heights[b, c])
        if h < 2:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and cells[b, j] == EMPTY:
                total += h - 1
    k = np.int64(below(rng, b, total))  # below returns a uint64: int64 arithmetic below
    for i in range(num_stacks[b, seat]):
        c = stacks[b, seat, i]
        h = np.int64(heights[b, c])
        if h < 2:
            continue
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and cells[b, j] == EMPTY:
                if k < h - 1:
                    return 4 * num_cells + (c * 6 + d) * MAX_MOVE + k
                k -= h - 1
    return -1


@njit(cache=True)
def _copy_row(
    src,
    dst,
    cells,
    heights,
    stacks,
    num_stacks,
    tiles_left,
    phase,
    to_move,
    stacks_placed,
    can_move,
    num_pasture,
    pasture,
    extent,
    on_border,
    plies,
    last_action,
):
    """Row ``src`` of every field but the generator into row ``dst``."""
    cells[dst] = cells[src]
    heights[dst] = heights[src]
    stacks[dst] = stacks[src]
    num_stacks[dst] = num_stacks[src]
    tiles_left[dst] = tiles_left[src]
    phase[dst] = phase[src]
    to_move[dst] = to_move[src]
    stacks_placed[dst] = stacks_placed[src]
    can_move[dst] = can_move[src]
    num_pasture[dst] = num_pasture[src]
    pasture[dst] = pasture[src]
    extent[dst] = extent[src]
    on_border[dst] = on_border[src]
    plies[dst] = plies[src]
    last_action[dst] = last_action[src]


@njit(cache=True)
def _playout_kernel(
    b,
    max_depth,
    cells,
    heights,
    stacks,
    num_stacks,
    tiles_left,
    phase,
    to_move,
    stacks_placed,
    can_move,
    num_pasture,
    pasture,
    extent,
    on_border,
    plies,
    last_action,
    rng,
    n,
    splits,
    total_tiles,
    tiles,
    cell_tiles,
    nbr,
    q,
    r,
    cell_at,
    radius,
    centre,
):
    """Play row ``b`` on with uniformly random legal actions until the game ends or ``max_depth`` plies (< 0: no
    cut); returns the plies played."""
    num_cells = cells.shape[1]
    code = np.empty(num_cells, dtype=np.int8)
    near = np.empty(num_cells, dtype=np.int64)
    tile_ok = np.empty(3 * num_cells, dtype=np.bool_)
    scratch = np.empty(3 * num_cells, dtype=np.int64)
    depth = 0
    while phase[b] != OVER and (max_depth < 0 or depth < max_depth):
        a = _random_action(
            cells,
            heights,
            stacks,
            num_stacks,
            phase,
            to_move,
            num_pasture,
            pasture,
            on_border,
            rng,
            b,
            tiles,
            cell_tiles,
            nbr,
            centre,
            code,
            near,
            tile_ok,
            scratch,
        )
        _apply_row(
            cells,
            heights,
            stacks,
            num_stacks,
            tiles_left,
            phase,
            to_move,
            stacks_placed,
            can_move,
            num_pasture,
            pasture,
            extent,
            on_border,
            plies,
            last_action,
            b,
            a,
            n,
            splits,
            total_tiles,
            tiles,
            nbr,
            q,
            r,
            cell_at,
            radius,
        )
        depth += 1
    return depth


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _search_kernel(
    budget,
    exploration,
    root_legal,
    root_visits,
    root_actions,
    cells,
    heights,
    stacks,
    num_stacks,
    tiles_left,
    phase,
    to_move,
    stacks_placed,
    can_move,
    num_pasture,
    pasture,
    extent,
    on_border,
    plies,
    last_action,
    rng,
    n,
    splits,
    total_tiles,
    tiles,
    cell_tiles,
    nbr,
    q,
    r,
    cell_at,
    radius,
    centre,
):
    """The ``search`` baseline's decision for the mover of row 0, compiled: ``envs.common.mcts.MCTSPolicy.act`` (UCT;
    each simulation copies row 0 into row 1 and draws from ``rng[1]``) with ``baselines.move_candidates`` in the
    tree and uniformly random playouts to the end, valued by the returns. A node's candidate actions are listed
    once, when a simulation first passes through it (the game has no chance after the set-up, so they never
    change), each with its child node or -1 while untried. ``root_visits[a]``: the visits of the root's child
    ``a`` (0 if none). Returns the most visited root child that ``root_legal`` allows (the first expanded on
    ties), -1 if none. ``root_actions``: when not empty, the root's children are exactly these actions (any
    legal ones, such as a network's most likely moves: ``training/alphazero/guided.py``) instead of
    ``baselines.move_candidates``."""
    num_cells = cells.shape[1]
    max_nodes = budget + 1
    visits = np.zeros(max_nodes, dtype=np.int64)
    avail = np.zeros(max_nodes, dtype=np.int64)
    value = np.zeros((max_nodes, n), dtype=np.float64)
    edge_start = np.full(max_nodes, -1, dtype=np.int64)
    edge_count = np.zeros(max_nodes, dtype=np.int64)
    width = max(3 * num_cells, 6 * MAX_STACKS * 3)
    capacity = 64 * max_nodes + width
    edge_action = np.empty(capacity, dtype=np.int64)
    edge_child = np.empty(capacity, dtype=np.int64)
    used = 0
    code = np.empty(num_cells, dtype=np.int8)
    near = np.empty(num_cells, dtype=np.int64)
    tile_ok = np.empty(3 * num_cells, dtype=np.bool_)
    found = np.empty(width, dtype=np.int64)
    untried = np.empty(width, dtype=np.int64)
    scratch = np.empty(3 * num_cells, dtype=np.int64)
    node_path = np.empty(max_nodes + 1, dtype=np.int64)
    result = np.zeros(n, dtype=np.float64)
    seen = np.empty(num_cells, dtype=np.bool_)
    todo = np.empty(num_cells, dtype=np.int64)
    nodes = 1
    for _ in range(budget):
        _copy_row(
            0,
            1,
            cells,
            heights,
            stacks,
            num_stacks,
            tiles_left,
            phase,
            to_move,
            stacks_placed,
            can_move,
            num_pasture,
            pasture,
            extent,
            on_border,
            plies,
            last_action,
        )
        node = 0
        node_path[0] = 0
        length = 1
        while phase[1] != OVER:
            player = to_move[1]
            if edge_start[node] < 0:
                if node == 0 and root_actions.size > 0:
                    m = root_actions.size
                    found[:m] = root_actions
                else:
                    m = _candidates(
                        cells,
                        heights,
                        stacks,
                        num_stacks,
                        phase,
                        to_move,
                        num_pasture,
                        pasture,
                        on_border,
                        1,
                        tiles,
                        cell_tiles,
                        nbr,
                        centre,
                        code,
                        near,
                        tile_ok,
                        found,
                    )
                if used + m > capacity:
                    capacity = 2 * capacity + m
                    grown = np.empty(capacity, dtype=np.int64)
                    grown[:used] = edge_action[:used]
                    edge_action = grown
                    grown = np.empty(capacity, dtype=np.int64)
                    grown[:used] = edge_child[:used]
                    edge_child = grown
                for i in range(m):
                    edge_action[used + i] = found[i]
                    edge_child[used + i] = -1
                edge_start[node] = used
                edge_count[node] = m
                used += m
            start = edge_start[node]
            m = edge_count[node]
            free = 0
            for i in range(m):
                child = edge_child[start + i]
                if child >= 0:
                    avail[child] += 1
                else:
                    untried[free] = start + i
                    free += 1
            if free > 0:
                e = untried[below(rng, 1, free)]
                child = nodes
                nodes += 1
                edge_child[e] = child
                avail[child] = 1
                _apply_row(
                    cells,
                    heights,
                    stacks,
                    num_stacks,
                    tiles_left,
                    phase,
                    to_move,
                    stacks_placed,
                    can_move,
                    num_pasture,
                    pasture,
                    extent,
                    on_border,
                    plies,
                    last_action,
                    1,
                    edge_action[e],
                    n,
                    splits,
                    total_tiles,
                    tiles,
                    nbr,
                    q,
                    r,
                    cell_at,
                    radius,
                )
                node_path[length] = child
                length += 1
                break
            best = -1
            best_score = -np.inf
            for i in range(m):
                child = edge_child[start + i]
                score = value[child, player] / visits[child] + exploration * np.sqrt(
                    np.log(avail[child]) / visits[child]
                )
                if score > best_score:
                    best = start + i
                    best_score = score
            _apply_row(
                cells,
                heights,
                stacks,
                num_stacks,
                tiles_left,
                phase,
                to_move,
                stacks_placed,
                can_move,
                num_pasture,
                pasture,
                extent,
                on_border,
                plies,
                last_action,
                1,
                edge_action[best],
                n,
                splits,
                total_tiles,
                tiles,
                nbr,
                q,
                r,
                cell_at,
                radius,
            )
            node = edge_child[best]
            node_path[length] = node
            length += 1
        while phase[1] != OVER:
            a = _random_action(
                cells,
                heights,
                stacks,
                num_stacks,
                phase,
                to_move,
                num_pasture,
                pasture,
                on_border,
                rng,
                1,
                tiles,
                cell_tiles,
                nbr,
                centre,
                code,
                near,
                tile_ok,
                scratch,
            )
            _apply_row(
                cells,
                heights,
                stacks,
                num_stacks,
                tiles_left,
                phase,
                to_move,
                stacks_placed,
                can_move,
                num_pasture,
                pasture,
                extent,
                on_border,
                plies,
                last_action,
                1,
                a,
                n,
                splits,
                total_tiles,
                tiles,
                nbr,
                q,
                r,
                cell_at,
                radius,
            )
        _returns_row(cells, num_stacks, phase, to_move, 1, n, splits, nbr, seen, todo, result)
        for i in range(length):
            visits[node_path[i]] += 1
            for s in range(n):
                value[node_path[i], s] += result[s]
    best = -1
    best_child = -1
    start = edge_start[0]
    for i in range(edge_count[0] if start >= 0 else 0):
        a = edge_action[start + i]
        child = edge_child[start + i]
        if child < 0:
            continue
        root_visits[a] = visits[child]
        if root_legal[a] and (
            best < 0
            or visits[child] > visits[best_child]
            or (visits[child] == visits[best_child] and child < best_child)
        ):
            best = a
            best_child = child
    return best


def playout(engine: BattleSheepBatched, state: BattleSheepBatchedState, row: int, max_depth: int = -1) -> int:
    """Play row ``row`` on with uniformly random legal actions (from the row's generator) until the game ends or
    ``max_depth`` plies (< 0: no cut); returns the plies played."""
    t = engine.tables
    return int(
        _playout_kernel(
            row,
            max_depth,
            *engine._rules(state),
            state.rng,
            engine.num_players,
            engine.splits,
            engine.total_tiles,
            t.tiles,
            t.cell_tiles,
            t.nbr,
            t.q,
            t.r,
            t.cell_at,
            engine.radius,
            t.centre,
        )
    )


class CompiledSearch:
    """The ``search`` baseline's decision with its whole search compiled (:func:`_search_kernel`): the position is
    loaded into row 0 of a two-row batch (row 1 is each simulation's scratch) and searched with ``budget`` UCT
    simulations over ``baselines.move_candidates`` (or the given root actions) and uniformly random playouts. Its
    random moves and ties come from a SplitMix64 stream seeded by one draw from the caller's generator per decision:
    a seeded search is deterministic, but draws other numbers than the Python search with the same seed."""

    def __init__(self, game: Game, budget: int, exploration: float):
        self.game = game
        self.engine = BattleSheepBatched(**game.options())
        self.budget = int(budget)
        self.exploration = float(exploration)
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
        (a reference state, unchanged) for the player to move, -1 if there is none; ``root_actions`` (distinct
        legal ids, at most ``3 * num_cells``), when given, are the root's only children instead of the candidate
        moves; ``root_visits`` (int64, one per action), when given, receives the root children's visit counts."""
        engine, rows = self.engine, self._rows
        if root_visits is None:
            root_visits = np.zeros(engine.num_actions, dtype=np.int64)
        t = engine.tables
        root_actions = np.zeros(0, np.int64) if root_actions is None else np.asarray(root_actions, np.int64)
        if root_actions.size > 3 * engine.num_cells:
            raise ValueError(f"at most {3 * engine.num_cells} root actions, got {root_actions.size}")
        legal = self.game.legal_mask(state).astype(bool)
        engine.from_reference(state, rows, 0)
        rows.rng[1] = rng.bit_generator.random_raw()
        return int(
            _search_kernel(
                self.budget if budget is None else int(budget),
                self.exploration,
                legal,
                root_visits,
                root_actions,
                *engine._rules(rows),
                rows.rng,
                engine.num_players,
                engine.splits,
                engine.total_tiles,
                t.tiles,
                t.cell_tiles,
                t.nbr,
                t.q,
                t.r,
                t.cell_at,
                engine.radius,
                t.centre,
            )
        )
