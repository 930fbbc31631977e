"""Scripted Pig policies: ``greedy`` (hold at 20) and ``search`` (UCT with random playouts, compiled).

Greedy: hold when the turn total is at least :data:`HOLD_AT` (20) or when banking it reaches the target (a
sure win), else roll. "Hold at 20" is the classic rule of thumb for Pig to 100: 20 is where a roll's expected gain
(4 points with probability 5/6) equals its expected loss (the turn total with probability 1/6). It draws nothing;
the batched engine has it compiled (``fast.PigBatched.greedy_actions``, the same decisions).

Search: the tree written once (``envs/common/fastsearch.py``) over the batched engine (``search.py``): UCT with
exploration 1.4, ``budget`` = :data:`DEFAULT_BUDGET` simulations a decision, uniformly random playouts to the
end of the game. A forced move (only ``roll`` is legal) is played without a search.

Strength, seats alternating: to 20 (200 games each), greedy beats random 0.81, search beats random 0.79 and loses
to greedy (0.31 at 200 simulations, 0.39 at 1,000); to 50 (100 games each), 0.87, 0.84 and 0.41. Its random
playouts value a position as two random players would go on from it, and a random player holds far too early; a
better leaf (greedy playouts) would fix that, but the example keeps the plainest search.
"""

from __future__ import annotations

from typing import Any

from envs.common.policies import CompiledRootSearch, Decision, SeededPolicy
from pig.actions import HOLD, ROLL
from pig.rules import PigGame, PigState

HOLD_AT = 20
"""Greedy holds once its turn total is this high."""
DEFAULT_BUDGET = 200
"""The search's simulations a decision."""


def greedy_action(game: PigGame, state: PigState, hold_at: int = HOLD_AT) -> int:
    """Greedy's move: hold at ``hold_at`` or when holding wins, else roll."""
    total = state.turn_total
    if total > 0 and (total >= hold_at or state.scores[state.current] + total >= game.target):
        return HOLD
    return ROLL


class GreedyPolicy(SeededPolicy):
    """Hold at ``hold_at`` (default :data:`HOLD_AT`) or when holding wins (see the module docstring)."""

    name = "greedy"

    def __init__(self, game: PigGame, seed: int | None = None, hold_at: int = HOLD_AT):
        super().__init__(game, seed)
        self.hold_at = int(hold_at)

    def act(self, decision: Decision) -> int:
        return greedy_action(self.game, decision.info_state, self.hold_at)


class SearchPolicy(CompiledRootSearch, SeededPolicy):
    """The compiled search (:class:`pig.search.CompiledSearch`), ``budget`` simulations a decision; ``act`` and
    ``act_among`` (which restricts the root for ``guided:``) come from
    :class:`~envs.common.policies.CompiledRootSearch`."""

    name = "search"

    def __init__(self, game: PigGame, seed: int | None = None, budget: int = DEFAULT_BUDGET, exploration: float = 1.4):
        from pig.search import CompiledSearch  # numba is imported only when a search is built

        super().__init__(game, seed)
        self.budget = int(budget)
        self.compiled = CompiledSearch(game, self.budget, exploration)


POLICIES: dict[str, Any] = {"greedy": GreedyPolicy, "search": SearchPolicy}
"""Baselines by name for the tournament harness: ``POLICIES[name](game, seed=..., **kwargs) -> Policy``; ``search``
also takes ``budget`` (``search:400``)."""
