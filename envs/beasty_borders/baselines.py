"""Scripted Beasty Borders policies: ``greedy`` (one-ply heuristic) and ``search`` (MCTS over the engine).

Greedy's heuristic is *the group points a placement adds or denies* at the steps-marker's space. For every type
``k`` the mover still holds it scores

    value(k) = gain_me(k) + DENY * deny + POTENTIAL * room(k) + 0.01 * held(k)

- ``gain_me(k)``: the change of my victory points if an animal of type ``k`` goes there (it may join several of
  my groups of that type: sizes s1.. merge into one group of size 1 + sum s_i, GROUP_VP re-counted);
- ``deny``: the opponent's best such gain on the space (over the types they still hold): filling the space takes
  those points away from them for good (the same for every type of mine, so it only moves the pass threshold);
- ``room(k)``: the empty green neighbours of the space (room for the new animal's group to grow), counted only
  while I hold another animal of type ``k``;
- ``0.01 * held(k)``: tie-break towards the type I hold most of (keeps rare types for spaces that join them).

Pass rules: the best type is placed if its value exceeds a threshold, else the mover passes. The roller's
threshold is ``PASS_BELOW = 0.6`` (a pass costs the roller little: it rolls again, and the responder may take the
space); the responder's is lower, ``PASS_BELOW_RESPONDER = 0.3`` (their pass buries the space under a marker).
So a lone animal is placed by the roller only with >= 3 open neighbours, by the responder with >= 2, and any
space where the opponent would gain >= 1 vp is filled. 'Without luck' variant: the same value picks the type;
the figure is the lowest legal one of that type, or the roller's highest one when the space is worth >= 2.

Search: :class:`BordersMCTS`, an :class:`~envs.common.mcts.MCTSPolicy` on the engine (UCT, open loop). The D8 is
rolled inside ``apply`` with the search's generator, so every simulation samples the dice (no hidden
information: ``determinize`` is a clone). Default: ``SEARCH_BUDGET = 120`` simulations per decision, exploration
1.0, playouts to the end of the game with the greedy rule itself (10% uniformly random moves), each playout
valued by ``tanh(final vp margin / 4)`` instead of the bare +1/0/-1 (``MARGIN_WEIGHT = 1``; lower variance).
Variant: the tree considers per type only the lowest and highest legal figure, plus pass.

Compiled search (the default; ``compiled=False`` runs the same search on ``rules.py``, decision for decision the
search above): :class:`BordersMCTS` hands the whole search to ``search.CompiledSearch`` (``search.py``), the
same UCT, candidates, greedy playouts and values in numba, with its own random numbers. Root visit shares of the
two agree (a test).

How the weights, thresholds and search settings were tuned, and the measured strength: docs/baselines.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.beasty_borders import actions as act
from envs.beasty_borders.actions import EMPTY, FIRST_ANIMAL, ROLLER_CHOICE
from envs.beasty_borders.fast import GREEDY_DENY as DENY
from envs.beasty_borders.fast import GREEDY_PASS_BELOW as PASS_BELOW
from envs.beasty_borders.fast import GREEDY_PASS_BELOW_RESPONDER as PASS_BELOW_RESPONDER
from envs.beasty_borders.fast import GREEDY_POTENTIAL as POTENTIAL
from envs.beasty_borders.kernels import GROUP_VP
from envs.beasty_borders.rules import BeastyBordersGame, BeastyBordersState
from envs.common.mcts import MCTSPolicy
from envs.common.policies import CompiledRootSearch, Decision, SeededPolicy


def neighbour_groups(game: BeastyBordersGame, board: list[int], cell: int) -> dict[int, list[int]]:
    """{animal code: sizes of the distinct groups of that code next to ``cell``} (``board`` a list)."""
    nbrs = game.neighbours
    seen: set[int] = set()
    out: dict[int, list[int]] = {}
    for start in nbrs[cell]:
        code = board[start]
        if code < FIRST_ANIMAL or start in seen:
            continue
        seen.add(start)
        stack = [start]
        size = 0
        while stack:
            c = stack.pop()
            size += 1
            for nb in nbrs[c]:
                if nb != cell and board[nb] == code and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        out.setdefault(code, []).append(size)
    return out


def merge_gain(sizes: list[int] | None) -> int:
    """Victory points gained by joining one new animal to groups of ``sizes`` (None or empty: a lone animal)."""
    if not sizes:
        return 0
    return GROUP_VP[min(1 + sum(sizes), len(GROUP_VP) - 1)] - sum(GROUP_VP[s] for s in sizes)


def placement_gain(game: BeastyBordersGame, board: list[int], cell: int, code: int) -> int:
    """Victory points gained by the owner of animal ``code`` if it is placed on ``cell`` of ``board`` (a list)."""
    return merge_gain(neighbour_groups(game, board, cell).get(code))


def type_values(
    game: BeastyBordersGame, state: BeastyBordersState, seat: int, board: list[int] | None = None
) -> tuple[dict[int, float], float]:
    """({type: value} over the types ``seat`` holds, the opponent's best gain) for the steps-marker's space."""
    if board is None:
        board = state.board.tolist()
    # Only the mover's own figures and the public landscape are read (perfect information).
    cell = state.pos
    opp = 1 - seat
    groups = neighbour_groups(game, board, cell)
    base_opp, base_me = FIRST_ANIMAL + 3 * opp, FIRST_ANIMAL + 3 * seat
    deny = 0
    for k in range(game.num_types):
        if state.remaining[opp][k] > 0:
            sizes = groups.get(base_opp + k)
            if sizes:
                deny = max(deny, merge_gain(sizes))
    room = 0
    for nb in game.neighbours[cell]:
        if board[nb] == EMPTY:
            room += 1
    rem = state.remaining[seat]
    values = {}
    for k in range(game.num_types):
        if rem[k] <= 0:
            continue
        grow = room if rem[k] > 1 else 0
        values[k] = merge_gain(groups.get(base_me + k)) + DENY * deny + POTENTIAL * grow + 0.01 * rem[k]
    return values, float(deny)


class GreedyPolicy(SeededPolicy):
    """One-ply greedy on the group points a placement adds or denies (see the module docstring)."""

    name = "greedy"

    def act(self, decision: Decision) -> int:
        game, state, seat = self.game, decision.info_state, decision.seat
        legal = [int(a) for a in decision.legal_actions()]
        if len(legal) == 1:
            return legal[0]
        return greedy_choice(game, state, seat, legal, self.rng)


# ----- search -------------------------------------------------------------------------------------------------------
SEARCH_BUDGET = 120
SEARCH_EXPLORATION = 1.0
ROLLOUT_EPSILON = 0.1
"""Share of playout moves chosen uniformly at random (the rest follow the greedy rule)."""


def greedy_choice(
    game: BeastyBordersGame, state: BeastyBordersState, seat: int, legal: list[int], rng: np.random.Generator
) -> int:
    """The greedy rule (module docstring) for ``seat`` in ``state`` among ``legal``; ties broken with ``rng``."""
    values, _ = type_values(game, state, seat)
    if not values:
        return game.pass_action
    best = max(values.values())
    if best <= (PASS_BELOW if state.phase == ROLLER_CHOICE else PASS_BELOW_RESPONDER):
        return game.pass_action
    kinds = [k for k, v in values.items() if v >= best - 1e-9]
    kind = kinds[int(rng.integers(len(kinds)))] if len(kinds) > 1 else kinds[0]
    if game.luck:
        return kind if kind in legal else game.pass_action
    # Variant: point at a figure of the chosen type.
    figures = [a for a in legal if a != game.pass_action and act.ROW_TYPE[a] == kind]
    if not figures:
        return game.pass_action
    if state.phase == ROLLER_CHOICE and best >= 2.0:
        return figures[-1]
    return figures[0]


def greedy_rollout(game: BeastyBordersGame, state: BeastyBordersState, rng: np.random.Generator) -> int:
    """Playout move: the greedy rule, or with probability ``ROLLOUT_EPSILON`` a uniformly random legal move."""
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    if rng.random() < ROLLOUT_EPSILON:
        return legal[int(rng.integers(len(legal)))]
    seat = state.roller if state.phase == ROLLER_CHOICE else 1 - state.roller
    return greedy_choice(game, state, seat, legal, rng)


EVAL_SCALE = 4.0
"""Leaf evaluation: tanh(victory-point lead / EVAL_SCALE) when a playout is cut after ``rollout_depth`` plies."""


def vp_evaluate(game: BeastyBordersGame):
    """Leaf evaluation for cut playouts: per-seat tanh of the current victory-point lead (zero-sum)."""

    def evaluate(state: BeastyBordersState) -> np.ndarray:
        vp = game.scores(state)
        v = float(np.tanh((vp[0] - vp[1] + 0.1 * (state.placed[0] - state.placed[1])) / EVAL_SCALE))
        return np.array([v, -v])

    return evaluate


MARGIN_WEIGHT = 1.0
"""Playout value = (1 - w) * result (+1 / 0 / -1) + w * tanh(final vp margin / EVAL_SCALE): the margin is a
lower-variance signal than the bare result, which matters with ~100 playouts shared by 2-4 actions."""


class BordersMCTS(CompiledRootSearch, MCTSPolicy):
    """:class:`MCTSPolicy` whose full playouts are valued by the result blended with the final vp margin.

    With ``compiled=True`` (the default), the greedy playout rule and :func:`variant_candidates` (as
    :func:`search_policy` builds it: no custom ``rollout``, ``evaluate`` or ``candidates``) the
    whole search runs compiled (:class:`envs.beasty_borders.search.CompiledSearch`): the
    same UCT, candidates, greedy playouts (:func:`greedy_rollout` with ``rollout_epsilon``) and values, the dice,
    random moves and ties drawn from a generator seeded by the policy's own for each decision (so: the same policy,
    not the same random numbers as ``compiled=False``, which runs it on ``rules.py``).
    """

    def __init__(
        self,
        game: BeastyBordersGame,
        margin_weight: float = MARGIN_WEIGHT,
        rollout_epsilon: float = ROLLOUT_EPSILON,
        compiled: bool = True,
        **kwargs: Any,
    ):
        greedy = kwargs.get("rollout") is None
        if greedy:
            kwargs["rollout"] = (
                greedy_rollout if rollout_epsilon == ROLLOUT_EPSILON else _epsilon_greedy_rollout(rollout_epsilon)
            )
        lead_cut = kwargs.get("rollout_depth") is not None and kwargs.get("evaluate") is None
        if lead_cut:
            kwargs["evaluate"] = vp_evaluate(game)
        super().__init__(game, **kwargs)
        self.margin_weight = margin_weight
        self.rollout_epsilon = rollout_epsilon
        self.compiled = None
        if compiled and greedy and self.candidates is variant_candidates and (self.rollout_depth is None or lead_cut):
            from envs.beasty_borders.search import CompiledSearch

            self.compiled = CompiledSearch(
                game,
                self.budget,
                self.exploration,
                margin_weight=margin_weight,
                eval_scale=EVAL_SCALE,
                rollout_depth=self.rollout_depth,
                rollout_epsilon=rollout_epsilon,
            )

    def _leaf_value(self, state: Any) -> np.ndarray:
        game, rng, rollout = self.game, self.rng, self.rollout
        depth = 0
        while state.empty:
            if self.rollout_depth is not None and depth >= self.rollout_depth and self.evaluate is not None:
                return self.evaluate(state)
            game.apply(state, rollout(game, state, rng), rng)
            depth += 1
        result = game.returns(state)
        if not self.margin_weight:
            return result
        vp = game.scores(state)
        m = float(np.tanh((vp[0] - vp[1]) / EVAL_SCALE))
        w = self.margin_weight
        return (1 - w) * result + w * np.array([m, -m])


def _epsilon_greedy_rollout(epsilon: float):
    """:func:`greedy_rollout` with another share of uniformly random moves."""

    def rollout(g: BeastyBordersGame, s: BeastyBordersState, r: np.random.Generator) -> int:
        legal = g.legal_actions(s)
        if len(legal) == 1:
            return legal[0]
        if r.random() < epsilon:
            return legal[int(r.integers(len(legal)))]
        return greedy_choice(g, s, s.roller if s.phase == ROLLER_CHOICE else 1 - s.roller, legal, r)

    return rollout


def variant_candidates(game: BeastyBordersGame, state: BeastyBordersState) -> list[int]:
    """Search's pruning in the variant: per type the lowest and the highest legal figure, and pass."""
    legal = game.legal_actions(state)
    if game.luck:
        return legal
    out = []
    for k in range(game.num_types):
        figs = [a for a in legal if a != game.pass_action and act.ROW_TYPE[a] == k]
        if figs:
            out.extend(sorted({figs[0], figs[-1]}))
    out.append(game.pass_action)
    return out


def search_policy(
    game: BeastyBordersGame,
    seed: int | None = None,
    budget: int = SEARCH_BUDGET,
    exploration: float = SEARCH_EXPLORATION,
    rollout_epsilon: float | None = None,
    rollout_depth: int | None = None,
    margin_weight: float = MARGIN_WEIGHT,
    compiled: bool = True,
) -> MCTSPolicy:
    """MCTS, ``budget`` simulations per decision, greedy-ish playouts to the end of the game (compiled unless
    ``compiled=False``)."""
    return BordersMCTS(
        game,
        margin_weight=margin_weight,
        rollout_epsilon=ROLLOUT_EPSILON if rollout_epsilon is None else rollout_epsilon,
        compiled=compiled,
        budget=budget,
        seed=seed,
        exploration=exploration,
        rollout_depth=rollout_depth,
        candidates=variant_candidates,
    )


POLICIES: dict[str, Any] = {"greedy": GreedyPolicy, "search": search_policy}
"""Baselines by name for the tournament harness: ``POLICIES[name](game, seed=..., **kwargs) -> Policy``."""
