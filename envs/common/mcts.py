"""Monte Carlo tree search over any Barnyard rule engine: the ``search`` baseline's algorithm, written once.

UCT with an *open-loop* tree keyed by action sequences, which is what makes one algorithm fit every game:
- chance (dice, shuffles) is sampled by the engine inside ``apply`` with the search's own generator, so each
  simulation follows one sampled outcome and the statistics average over them;
- hidden information is handled by determinization: every simulation starts from
  ``game.determinize(info_state, seat, rng)``, a full state sampled consistently with what the deciding seat
  knows (single-observer information-set MCTS in the style of Cowling et al. 2012). The search never sees the
  true hidden state, because a :class:`~envs.common.policies.Decision` does not hold it;
- actions legal in one sample but not another are handled with availability counts (ISMCTS's UCB).

Leaves are valued by a playout with a cheap ``rollout`` policy (uniform random by default) or, when the game
gives one, cut off after ``rollout_depth`` plies and scored by a heuristic ``evaluate(state) -> per-seat values``.
Values are per seat, so the same code serves two and ten players.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from envs.common.game import TERMINAL, Game
from envs.common.policies import Decision, SeededPolicy


class _Node:
    __slots__ = ("children", "visits", "avail", "value")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        """How many simulations reached the parent with this action legal (ISMCTS availability)."""
        self.value = np.zeros(num_players)
        """Sum of per-seat simulation values through this node."""


class MCTSPolicy(SeededPolicy):
    """UCT search with a fixed number of simulations per decision (``budget``)."""

    name = "search"

    def __init__(
        self,
        game: Game,
        budget: int = 200,
        seed: int | None = None,
        exploration: float = 1.4,
        rollout: Callable[[Game, Any, np.random.Generator], int] | None = None,
        rollout_depth: int | None = None,
        evaluate: Callable[[Any], np.ndarray] | None = None,
        candidates: Callable[[Game, Any], list[int]] | None = None,
    ):
        super().__init__(game, seed)
        self.budget = budget
        self.exploration = exploration
        self.rollout = rollout
        self.rollout_depth = rollout_depth
        self.evaluate = evaluate
        self.candidates = candidates
        """Optional pruning: the actions the tree considers in a state (default: all legal actions)."""

    def _actions(self, state: Any) -> list[int]:
        if self.candidates is not None:
            return self.candidates(self.game, state)
        return self.game.legal_actions(state)

    def _leaf_value(self, state: Any) -> np.ndarray:
        game, rng = self.game, self.rng
        depth = 0
        while game.current_player(state) != TERMINAL and not game.is_truncated(state):
            if self.rollout_depth is not None and depth >= self.rollout_depth and self.evaluate is not None:
                return self.evaluate(state)
            if self.rollout is not None:
                action = self.rollout(game, state, rng)
            else:
                legal = game.legal_actions(state)
                action = legal[int(rng.integers(len(legal)))]
            game.apply(state, action, rng)
            depth += 1
        return game.returns(state)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        game, rng = self.game, self.rng
        n = game.num_players
        root = _Node(n)
        for _ in range(self.budget):
            state = game.determinize(decision.info_state, decision.seat, rng)
            node = root
            path = [root]
            while True:
                player = game.current_player(state)
                if player == TERMINAL or game.is_truncated(state):
                    break
                actions = self._actions(state)
                for a in actions:
                    child = node.children.get(a)
                    if child is not None:
                        child.avail += 1
                untried = [a for a in actions if a not in node.children]
                if untried:
                    a = untried[int(rng.integers(len(untried)))]
                    child = _Node(n)
                    child.avail = 1
                    node.children[a] = child
                    game.apply(state, a, rng)
                    path.append(child)
                    break
                best, best_score = None, -math.inf
                for a in actions:
                    child = node.children[a]
                    score = child.value[player] / child.visits + self.exploration * math.sqrt(
                        math.log(child.avail) / child.visits
                    )
                    if score > best_score:
                        best, best_score = a, score
                assert best is not None, "a node with untried-free children has visited children"
                game.apply(state, best, rng)
                node = node.children[best]
                path.append(node)
            value = self._leaf_value(state)
            # Each node's value is read by the player who chose the action leading to it.
            for node in path:
                node.visits += 1
                node.value += value
        legal_set = set(int(a) for a in legal)
        best = max((a for a in root.children if a in legal_set), key=lambda a: root.children[a].visits, default=None)
        return int(best) if best is not None else int(legal[int(rng.integers(legal.size))])
