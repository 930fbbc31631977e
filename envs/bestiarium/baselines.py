"""Scripted Bestiarium policies: ``greedy`` (one-ply cascade heuristic) and ``search`` (MCTS over the engine).

Greedy's heuristic is the *cascade after the move*. For a position it takes, size by size from the largest down
to 1, my cascade value minus the opponent's (the engine's ``size_values``: +k*s^2 for a fauna of k shapes,
-n*s^2 for a species of n creatures), and compares these tuples lexicographically, which is exactly how the
game is decided at the end: the largest size where the players differ counts first, smaller sizes only break
ties. Every legal action is tried on a copy of the position; a placement that starts an eating chain is
followed to the end of the chain, each growth cell chosen by the same key (so growth-cell choices are scored
too, and a grow-phase decision is scored the same way). Ties, frequent among quiet placements, are broken at
random with the policy's seeded generator. The batched engine has the same greedy compiled
(``envs.bestiarium.fast.BestiariumBatched.greedy_actions``: the same keys, its tie-breaks from a SplitMix64
generator per row), which PPO's greedy seats play on the batched engine.

Search is :class:`envs.common.mcts.MCTSPolicy` (UCT, exploration 1.4, all legal actions, no pruning) with
uniform random playouts cut after ``rollout_depth`` = 20 plies and scored by :func:`cascade_value`: the
cascade comparison as it stands, ``tanh(d / (2 s^2))`` for the first player at the largest size s where the
values differ by d (the second player gets the negation; 0 when every size ties; the true +-1 at a finished
game). Bestiarium has no chance and no hidden information, so every simulation starts from a plain copy.

By default the whole search runs compiled (:class:`CompiledSearchPolicy` over
:class:`envs.bestiarium.search.CompiledSearch`): the same algorithm, budget, playouts and leaf values in one numba
kernel per decision, with its random draws from a SplitMix64 stream seeded by the policy's generator (seeded
searches stay deterministic; the moves differ from the Python search's). ``search_policy(game, compiled=False)``
is the Python search. How the settings were chosen, and the measured strength and speed: docs/baselines.md.

``search_playout`` is the compiled search with a learned playout policy instead of uniform random playouts (each move
drawn with probability proportional to ``exp(w . f(move))`` over seven cheap features,
``envs.bestiarium.search.PLAYOUT_FEATURES``; weights :data:`PLAYOUT_WEIGHTS` fitted to greedy's moves by
``lab/playout_fit.py``), with :data:`PLAYOUT_BUDGET` = 36 simulations so that it takes no more time a
move than ``search``. It loses to ``search`` at equal time (docs/baselines.md, "A learned playout").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from envs.bestiarium.actions import GROW
from envs.bestiarium.rules import BestiariumGame, BestiariumState
from envs.common.mcts import MCTSPolicy
from envs.common.policies import CompiledRootSearch, Decision, SeededPolicy

DEFAULT_BUDGET = 60
ROLLOUT_DEPTH = 20
EVAL_SCALE = 2.0

PLAYOUT_WEIGHTS: tuple[float, ...] = (-1.0766, 1.7473, 2.3127, -6.6721, 3.3313, 3.145, -0.3348)
"""``search_playout``'s playout weights, one per ``envs.bestiarium.search.PLAYOUT_FEATURES`` (join, eat, danger, top,
same_size, contest, contact): greedy's moves fitted by ``python -m lab.playout_fit --games 40 --seed 1
--teacher greedy --sharpen 2`` (docs/baselines.md, "A learned playout": it loses to ``search`` at equal time)."""
PLAYOUT_BUDGET = 36
"""``search_playout``'s simulations a decision (its playouts cost more per ply than ``search``'s)."""


def cascade_key(game: BestiariumGame, state: BestiariumState, seat: int) -> tuple[int, ...]:
    """(my value - the opponent's value) per size, from size ``num_cells`` down to 1 (compare lexicographically).

    A finished game puts its result (+-1) first, so a won end beats everything.
    """
    if state.over:
        return (int(game.returns(state)[seat]),) + (0,) * game.num_cells
    mine, theirs = game.size_values(state, seat), game.size_values(state, 1 - seat)
    return (0,) + tuple(mine.get(s, 0) - theirs.get(s, 0) for s in range(game.num_cells, 0, -1))


def key_after_chain(game: BestiariumGame, state: BestiariumState, seat: int) -> tuple[int, ...]:
    """The key once ``seat``'s eating chain (if any) is finished with the best growth cells (``state`` changes)."""
    if state.over or state.to_move != seat or state.phase != GROW:
        return cascade_key(game, state, seat)
    best = None
    for a in game.growth_cells(state):
        child = state.clone()
        game.apply(child, a)
        k = key_after_chain(game, child, seat)
        if best is None or k > best:
            best = k
    return best


class GreedyPolicy(SeededPolicy):
    """One-ply greedy on the cascade after the move (see the module docstring)."""

    name = "greedy"

    def act(self, decision: Decision) -> int:
        game, state, seat = self.game, decision.info_state, decision.seat
        legal = decision.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        keys = []
        for a in legal:
            child = state.clone()
            game.apply(child, int(a))
            keys.append(key_after_chain(game, child, seat))
        top = max(keys)
        best = [i for i, k in enumerate(keys) if k == top]
        return int(legal[best[self.rng.integers(len(best))]])


def cascade_value(game: BestiariumGame, state: BestiariumState, scale: float = EVAL_SCALE) -> np.ndarray:
    """Per-seat leaf value in [-1, 1]: ``tanh(d / (scale s^2))`` at the largest size s whose values differ by d.

    The true returns for a finished game; 0 for both when every size ties.
    """
    if state.over:
        return game.returns(state)
    v0, v1 = game.size_values(state, 0), game.size_values(state, 1)
    for s in sorted(set(v0) | set(v1), reverse=True):
        d = v0.get(s, 0) - v1.get(s, 0)
        if d:
            x = math.tanh(d / (scale * s * s))
            return np.array([x, -x])
    return np.zeros(2)


class CompiledSearchPolicy(CompiledRootSearch, SeededPolicy):
    """The search baseline with the whole search compiled (:class:`envs.bestiarium.search.CompiledSearch`): the
    same UCT, budget, random playouts and cascade leaf values as ``MCTSPolicy`` with :func:`cascade_value`."""

    name = "search"

    def __init__(
        self,
        game: BestiariumGame,
        seed: int | None = None,
        budget: int = DEFAULT_BUDGET,
        exploration: float = 1.4,
        playout_weights: tuple[float, ...] | None = None,
        local_playout: bool = False,
    ):
        from envs.bestiarium.search import CompiledSearch

        super().__init__(game, seed)
        self.budget = budget
        self.compiled = CompiledSearch(
            game,
            budget,
            exploration,
            depth=ROLLOUT_DEPTH,
            scale=EVAL_SCALE,
            playout_weights=playout_weights,
            local_playout=local_playout,
        )
        if playout_weights is not None:
            self.name = "search_playout"


def search_policy(
    game: BestiariumGame,
    seed: int | None = None,
    budget: int = DEFAULT_BUDGET,
    compiled: bool = True,
) -> SeededPolicy:
    """MCTS, ``budget`` simulations a decision, random playouts cut after 20 plies and scored by the cascade.

    ``compiled`` (default) runs the whole search in one numba kernel (:class:`CompiledSearchPolicy`); False runs
    ``envs.common.mcts.MCTSPolicy`` over the Python engine (same algorithm, other random draws).
    """
    if compiled:
        return CompiledSearchPolicy(game, seed=seed, budget=budget)
    return MCTSPolicy(
        game,
        budget=budget,
        seed=seed,
        rollout_depth=ROLLOUT_DEPTH,
        evaluate=lambda state: cascade_value(game, state),
    )


def search_playout_policy(game: BestiariumGame, seed: int | None = None, budget: int = PLAYOUT_BUDGET) -> SeededPolicy:
    """The compiled search with the learned playout (:data:`PLAYOUT_WEIGHTS`) instead of uniform random playouts,
    ``budget`` simulations a decision (docs/baselines.md, "A learned playout")."""
    return CompiledSearchPolicy(game, seed=seed, budget=budget, playout_weights=PLAYOUT_WEIGHTS)


POLICIES: dict[str, Any] = {"greedy": GreedyPolicy, "search": search_policy, "search_playout": search_playout_policy}
"""Baselines by name for the tournament harness: ``POLICIES[name](game, seed=..., **kwargs) -> Policy``."""
