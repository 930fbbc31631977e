"""Scripted Battle Sheep policies: ``greedy`` (one-ply heuristic) and ``search`` (MCTS over the engine).

Greedy's heuristic is *live sheep*: in Battle Sheep every sheep that can still leave its stack is a future
pasture, and sheep in a blocked stack are lost. For a position it counts, for each seat, the sheep above the
bottom one (h - 1) in stacks that still have an open direction, and scores my count minus the opponents' mean;
ties go to the move that keeps more open directions, then at random. The same score picks stack placements
(the cell with the longest open lines wins) and, while building, the tile that shares the most edges with the
pasture (compact pastures; the build phase matters little for the heuristic). :func:`greedy_scores` gives every legal
action's score. The batched engine plays the same policy compiled (``BattleSheepBatched.greedy_actions``, the same
scores and so the same choice where one action scores best; ``python
tests/battle_sheep/test_battle_sheep_greedy_fast.py --speed`` measures both).

``search`` is MCTS (UCT over :func:`move_candidates`, uniformly random playouts to the end, 600 simulations). It runs
compiled by default (:class:`SheepMCTS`: the whole search in ``envs/battle_sheep/search.py``); ``compiled=False`` runs
the same search on ``rules.py``. Measured strength and speed: docs/baselines.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.battle_sheep.rules import BUILD, EMPTY, MOVE, NO_PASTURE, OVER, PLACE, BattleSheepGame, BattleSheepState
from envs.common.mcts import MCTSPolicy
from envs.common.policies import CompiledRootSearch, Decision, SeededPolicy


def live_sheep(game: BattleSheepGame, state: BattleSheepState, seat: int) -> tuple[int, int]:
    """(sheep that can still move, open (stack, direction) pairs) of a seat."""
    cells, heights, nbrs = state.cells, state.heights, game.grid.neighbors
    live = opens = 0
    for c in state.stacks[seat]:
        h = heights[c]
        if h < 2:
            continue
        k = sum(1 for j in nbrs[c] if j >= 0 and cells[j] == EMPTY)
        if k:
            live += h - 1
            opens += k
    return live, opens


def position_value(game: BattleSheepGame, state: BattleSheepState, seat: int) -> float:
    """Heuristic value of a position for ``seat`` (higher is better)."""
    if state.phase == OVER:
        return 1000.0 * float(game.returns(state)[seat])
    n = game.num_players
    mine_live, mine_open = live_sheep(game, state, seat)
    other_live = other_open = 0.0
    for s in range(n):
        if s != seat:
            live, opens = live_sheep(game, state, s)
            other_live += live / (n - 1)
            other_open += opens / (n - 1)
    pastures = len(state.stacks[seat]) - sum(len(state.stacks[s]) for s in range(n) if s != seat) / (n - 1)
    return 10.0 * (pastures + mine_live - other_live) + (mine_open - other_open)


def _ray_reach(game: BattleSheepGame, state: BattleSheepState, cell: int) -> int:
    """Free pasture cells reachable in straight lines from ``cell`` (a stack placement's prospects)."""
    total = 0
    for ray in game.grid.rays[cell]:
        for j in ray:
            if state.cells[j] != EMPTY:
                break
            total += 1
    return total


def greedy_scores(
    game: BattleSheepGame, state: BattleSheepState, seat: int, legal: list[int] | np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, their greedy scores) of ``seat`` to move in ``state``: what :class:`GreedyPolicy` picks
    among (one of the best, at random); ``legal`` defaults to the engine's legal actions. The compiled greedy
    (``BattleSheepBatched.greedy_actions``) is tested to pick within the best of these."""
    legal = np.asarray(game.legal_actions(state) if legal is None else legal, dtype=np.int64)
    if state.phase == BUILD:
        pasture = [c != NO_PASTURE for c in state.cells]
        nbrs = game.grid.neighbor_lists
        scores = [sum(pasture[j] for c in game.tile_cells[a] for j in nbrs[c]) for a in legal]
    elif state.phase == PLACE:
        scores = [_ray_reach(game, state, int(a) - game.codec.stack_base) for a in legal]
    else:
        scores = []
        for a in legal:
            child = state.clone()
            game.apply(child, int(a))
            scores.append(position_value(game, child, seat))
    return legal, np.asarray(scores, dtype=np.float64)


class GreedyPolicy(SeededPolicy):
    """One-ply greedy on :func:`position_value` (see the module docstring); scores by :func:`greedy_scores`."""

    name = "greedy"

    def act(self, decision: Decision) -> int:
        legal, scores = greedy_scores(self.game, decision.info_state, decision.seat, decision.legal_actions())
        best = np.flatnonzero(scores == scores.max())
        return int(legal[best[self.rng.integers(best.size)]])


def move_candidates(game: BattleSheepGame, state: BattleSheepState) -> list[int]:
    """Search's pruning: per (stack, direction) only 1, half, and all-but-one sheep; other phases unpruned."""
    if state.phase != MOVE:
        return game.legal_actions(state)
    out = []
    for c, d, _, k in game.legal_moves(state):
        for count in sorted({1, (k + 1) // 2, k}):
            out.append(game.codec.move(c, d, count))
    return out


class SheepMCTS(CompiledRootSearch, MCTSPolicy):
    """:class:`MCTSPolicy` over :func:`move_candidates` with uniformly random playouts, run compiled.

    With ``compiled=True`` (the default) and the search as :func:`search_policy` builds it (these candidates, no
    custom ``rollout``, ``rollout_depth`` or ``evaluate``), each decision's whole search runs compiled
    (:class:`envs.battle_sheep.search.CompiledSearch`): the same UCT, candidates, playouts and values, its random
    numbers drawn from a generator seeded by the policy's own for each decision (so: the same policy,
    not the same random numbers as ``compiled=False``, which runs it on ``rules.py``).
    """

    def __init__(self, game: BattleSheepGame, compiled: bool = True, **kwargs: Any):
        super().__init__(game, **kwargs)
        self.compiled = None
        if (
            compiled
            and self.candidates is move_candidates
            and self.rollout is None
            and self.rollout_depth is None
            and self.evaluate is None
        ):
            from envs.battle_sheep.search import CompiledSearch

            self.compiled = CompiledSearch(game, self.budget, self.exploration)


def search_policy(
    game: BattleSheepGame, seed: int | None = None, budget: int = 600, compiled: bool = True
) -> MCTSPolicy:
    """MCTS with uniform random playouts over the pruned move set, ``budget`` simulations per decision (compiled
    unless ``compiled=False``, :class:`SheepMCTS`).

    Measured while choosing the default (40 games vs greedy, seats rotated): 200 simulations won 60%, 600 won
    97.5%; cutting playouts after 0 or 4 plies and scoring with the live-sheep heuristic did worse (46%, 52%).
    """
    return SheepMCTS(game, compiled=compiled, budget=budget, seed=seed, candidates=move_candidates)


POLICIES: dict[str, Any] = {"greedy": GreedyPolicy, "search": search_policy}
"""Baselines by name for the tournament harness: ``POLICIES[name](game, seed=..., **kwargs) -> Policy``."""
