"""Network-guided tree search over engine states, batched across many games, and its policy-improvement maths.

One :class:`BatchedSearch` searches the positions of many games at once. Each *simulation step* descends every
game's tree in Python (one path per game), collects the new leaves, evaluates **all leaves of all games in one
forward pass** of the network, and backs the values up. States are cloned and advanced by the game's rule engine
(``Game.clone`` / ``apply``); finished games are valued by ``Game.returns``.

Two ways to choose simulations and targets (``SearchConfig.kind``):

* ``"gumbel"`` - Gumbel MuZero's root (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR
  2022): Gumbel-top-k sampling of ``m`` actions, sequential halving over the simulations
  (:func:`considered_visit_sequence`), the completed Q-values (:func:`completed_q`, with the mixed value
  :func:`mixed_value` for unvisited actions) through ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``
  (:func:`sigma`), and the improved policy ``softmax(logits + sigma(completed q))`` as the policy target
  (:func:`gumbel_policy_target`). Interior nodes select deterministically from that improved policy
  (:func:`gumbel_interior_scores`). The acted action is the one sequential halving keeps.
* ``"puct"`` - AlphaZero: ``Q + c_puct * P * sqrt(N) / (1 + N(a))`` (:func:`puct_scores`), Dirichlet noise on
  the root's prior, and the visit counts as the policy target (:func:`visit_count_target`).

Values are per seat: a vector of length ``num_players``, each seat's expected return in [-1, 1]. The network
gives them in the observer-relative order the observations use (the player to move first, then the others in
turn order); :func:`to_absolute` maps them to seats, and each node's Q for an action is read at the seat that
moves there, so 'play again' turns, skipped players and three or four players need nothing special.

Chance (dice rolled inside ``apply``) is handled by *sampled chance nodes*: every engine call goes through a
:class:`RecordingRng`, so the values drawn name the outcome. An edge whose first expansion drew nothing is
deterministic and keeps one child; an edge that drew is a chance node: each later simulation through it applies
the action again with fresh draws and continues at the child of that outcome (new outcomes become new leaves),
so the statistics average over the outcomes in proportion to their probabilities.

Hidden information is out of scope: :func:`check_searchable` refuses games whose ``information_state`` hides
anything.

:func:`load_search_policy` is a checkpoint's network-guided search as a player (harness spec ``mcts:PATH:N``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from envs.common.game import TERMINAL, Game

SEARCH_KINDS = ("gumbel", "puct")
Q_NORMALISATIONS = ("bounds", "minmax")


class SearchError(ValueError):
    """A search that cannot run here: a hidden-information game, a bad option, a finished position."""


def check_searchable(game: Game) -> None:
    """Raise :class:`SearchError` for a game with hidden information (its states cannot be searched as they are)."""
    if type(game).information_state is not Game.information_state:
        raise SearchError(
            f"{game.name} has hidden information; the network-guided search needs perfect "
            "information (train it with PPO)"
        )


# ----- configuration ---------------------------------------------------------------------------------------------
@dataclass
class SearchConfig:
    """How the search runs (filled from the training config's ``search_*`` fields, or by hand)."""

    kind: str = "gumbel"
    """``gumbel`` (sequential halving at the root, completed-Q target) or ``puct`` (AlphaZero)."""
    simulations: int = 16
    """Simulations per decision (each adds at most one leaf to the tree)."""
    max_considered: int = 16
    """Gumbel: actions sampled at the root (Gumbel-top-k) for sequential halving."""
    gumbel_scale: float = 1.0
    """Gumbel: scale of the root's Gumbel noise (0: deterministic, for evaluation)."""
    c_visit: float = 50.0
    """Gumbel: ``sigma``'s visit offset."""
    c_scale: float = 0.1
    """Gumbel: ``sigma``'s scale."""
    q_normalisation: str = "minmax"
    """Gumbel: how completed Q-values are brought to [0, 1] before ``sigma``: ``minmax`` stretches each node's
    Q-values to fill [0, 1] (mctx's default: the best action gets the full ``sigma`` range, however small its
    lead), ``bounds`` maps the game's value range [-1, 1] linearly (a Q difference keeps its size)."""
    c_puct: float = 1.25
    """PUCT: exploration constant."""
    dirichlet_alpha: float = 0.3
    """PUCT: Dirichlet concentration of the root noise."""
    dirichlet_fraction: float = 0.25
    """PUCT: weight of the root noise in the prior (0: none, for evaluation)."""

    def __post_init__(self) -> None:
        if self.kind not in SEARCH_KINDS:
            raise SearchError(f"search kind {self.kind!r}; allowed: {', '.join(SEARCH_KINDS)}")
        if self.simulations < 1:
            raise SearchError(f"simulations={self.simulations}: at least 1")
        if self.max_considered < 1:
            raise SearchError(f"max_considered={self.max_considered}: at least 1")
        if self.q_normalisation not in Q_NORMALISATIONS:
            raise SearchError(f"q_normalisation {self.q_normalisation!r}; allowed: {', '.join(Q_NORMALISATIONS)}")


# ----- policy-improvement maths ----------------------------------------------------------------------------------
def considered_visit_sequence(max_considered: int, simulations: int) -> list[int]:
    """Sequential halving's schedule: for simulation ``i``, the visit count an action must have to be chosen.

    Phase by phase the ``k`` considered actions (``k = m`` first, halved each phase, at least 2) each get
    ``max(1, floor(n / (ceil(log2 m) * k)))`` more visits; the schedule lists, simulation by simulation, the visit
    count of the action visited next (mctx's ``get_sequence_of_considered_visits``). E.g. m = 4, n = 8:
    ``[0, 0, 0, 0, 1, 1, 2, 2]``.
    """
    if max_considered <= 1:
        return list(range(simulations))
    log2max = int(math.ceil(math.log2(max_considered)))
    sequence: list[int] = []
    visits = [0] * max_considered
    considered = max_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return sequence[:simulations]


_TINY = float(np.finfo(np.float64).tiny)


def mixed_value(raw_value: float, q: np.ndarray, visits: np.ndarray, prior: np.ndarray) -> float:
    """The value that completes unvisited actions' Q (Danihelka et al., appendix D):
    ``(v + sum_b N(b) * sum_{visited} pi(a) q(a) / sum_{visited} pi(a)) / (1 + sum_b N(b))``."""
    total = int(visits.sum())
    if total == 0:
        return float(raw_value)
    seen = visits > 0
    p = np.maximum(prior[seen], _TINY)
    weighted = float(p.dot(q[seen]) / p.sum())
    return (float(raw_value) + total * weighted) / (total + 1)


def completed_q(q: np.ndarray, visits: np.ndarray, value: float) -> np.ndarray:
    """Q where an action was visited, ``value`` (the mixed value) where not."""
    return np.where(visits > 0, q, value)


def sigma(
    completed: np.ndarray,
    visits: np.ndarray,
    c_visit: float = 50.0,
    c_scale: float = 0.1,
    normalisation: str | None = "minmax",
) -> np.ndarray:
    """``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` after normalising q to [0, 1]: ``bounds`` maps the
    value range [-1, 1] to it (``(q + 1) / 2``), ``minmax`` stretches the node's q over it (all equal: 0),
    None leaves q as it is."""
    if normalisation == "minmax":
        low, high = completed.min(), completed.max()
        completed = (completed - low) / max(high - low, 1e-8)
    elif normalisation == "bounds":
        completed = (completed + 1.0) * 0.5
    return (c_visit + visits.max()) * c_scale * completed


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax of a vector."""
    e = np.exp(x - x.max())
    return e / e.sum()


def gumbel_policy_target(logits: np.ndarray, sigma_q: np.ndarray) -> np.ndarray:
    """The improved policy ``softmax(logits + sigma(completed q))`` (the policy target)."""
    return softmax(logits + sigma_q)


def gumbel_root_scores(
    gumbel: np.ndarray, logits: np.ndarray, sigma_q: np.ndarray, visits: np.ndarray, considered_visit: int
) -> np.ndarray:
    """Sequential halving's choice at the root: ``g + logits + sigma(q)`` over the actions with exactly
    ``considered_visit`` visits (-inf elsewhere)."""
    score = gumbel + (logits - logits.max()) + sigma_q
    return np.where(visits == considered_visit, np.maximum(score, -1e9), -np.inf)


def gumbel_interior_scores(logits: np.ndarray, sigma_q: np.ndarray, visits: np.ndarray) -> np.ndarray:
    """Gumbel MuZero's deterministic interior selection: ``pi'(a) - N(a) / (1 + sum_b N(b))`` with
    ``pi' = softmax(logits + sigma(completed q))``; the argmax brings the visit distribution towards ``pi'``."""
    return softmax(logits + sigma_q) - visits / (1.0 + visits.sum())


def puct_scores(
    q: np.ndarray, prior: np.ndarray, visits: np.ndarray, parent_visits: int, c_puct: float, fpu: float
) -> np.ndarray:
    """AlphaZero's ``Q(a) + c_puct * P(a) * sqrt(N) / (1 + N(a))``; an unvisited action's Q is ``fpu``."""
    return np.where(visits > 0, q, fpu) + c_puct * prior * math.sqrt(parent_visits) / (1.0 + visits)


def visit_count_target(visits: np.ndarray) -> np.ndarray:
    """AlphaZero's policy target: the root's visit counts, normalised."""
    total = visits.sum()
    return visits / total if total > 0 else np.full(len(visits), 1.0 / len(visits))


def to_absolute(relative: np.ndarray, player: int) -> np.ndarray:
    """Per-seat values from the observer-relative order (``relative[i]`` is seat ``(player + i) % n``)."""
    return np.roll(relative, player)


def to_relative(absolute: np.ndarray, player: int) -> np.ndarray:
    """Inverse of :func:`to_absolute`: ``out[i]`` is seat ``(player + i) % n``'s value."""
    return np.roll(absolute, -player)


# ----- evaluators ------------------------------------------------------------------------------------------------
class Evaluator(Protocol):
    """Prior logits and values for a batch of positions."""

    def __call__(self, obs: np.ndarray, legal: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
        """``obs`` ``(B, *shape)`` from the player to move's view, ``legal[b]`` its legal action ids; returns the
        logits of those actions per position and the values ``(B, num_players)`` in observer-relative order."""
        ...


class UniformEvaluator:
    """Equal logits and value 0 for every seat: a search that learns from terminal results only (tests)."""

    def __init__(self, num_players: int):
        self.num_players = num_players

    def __call__(self, obs: np.ndarray, legal: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
        return [np.zeros(len(a)) for a in legal], np.zeros((len(legal), self.num_players))


# ----- chance ----------------------------------------------------------------------------------------------------
def _hashable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):
        return value.item()
    return value


class RecordingRng:
    """A ``np.random.Generator`` that records every value drawn: the record names a chance outcome (the engines
    draw only through the generator they are given, so the same draws give the same state)."""

    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self.draws: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._rng, name)
        if not callable(attr):
            return attr

        def draw(*args: Any, **kwargs: Any) -> Any:
            out = attr(*args, **kwargs)
            self.draws.append((name, _hashable(args[0] if name == "shuffle" else out)))
            return out

        return draw


# ----- the tree ----------------------------------------------------------------------------------------------------
class Node:
    """A decision position in the tree (or a finished game)."""

    __slots__ = (
        "state",
        "player",
        "terminal",
        "actions",
        "logits",
        "prior",
        "raw_value",
        "child_visits",
        "child_values",
        "children",
        "stochastic",
    )

    def __init__(self, state: Any, player: int):
        self.state = state
        self.player = player
        """Seat to move, or TERMINAL."""
        self.terminal = player == TERMINAL
        self.actions: np.ndarray = np.zeros(0, dtype=np.int64)
        self.logits: np.ndarray = np.zeros(0)
        self.prior: np.ndarray = np.zeros(0)
        self.raw_value: np.ndarray = np.zeros(0)
        """Per-seat value: the network's (absolute seats), or the returns of a finished game."""
        self.child_visits: np.ndarray = np.zeros(0, dtype=np.int64)
        self.child_values: np.ndarray = np.zeros((0, 0))
        """``(k, n)``: sums of the per-seat values backed up through each action."""
        self.children: list[Any] = []
        """Per action: None (unexpanded), a Node, or for a chance edge a dict outcome -> Node."""
        self.stochastic: np.ndarray = np.zeros(0, dtype=bool)

    def set_evaluation(self, actions: np.ndarray, logits: np.ndarray, value: np.ndarray, num_players: int) -> None:
        """Fill in the network's evaluation of this node."""
        self.actions = actions
        self.logits = np.asarray(logits, dtype=np.float64)
        self.prior = softmax(self.logits) if len(actions) else self.logits
        self.raw_value = value
        k = len(actions)
        self.child_visits = np.zeros(k, dtype=np.int64)
        self.child_values = np.zeros((k, num_players))
        self.children = [None] * k
        self.stochastic = np.zeros(k, dtype=bool)

    def q(self) -> np.ndarray:
        """Mean value of each action for the player to move (0 where unvisited)."""
        visits = np.maximum(self.child_visits, 1)
        return self.child_values[:, self.player] / visits

    def value(self) -> np.ndarray:
        """Per-seat value estimate: the raw value and every backed-up value, averaged."""
        return (self.raw_value + self.child_values.sum(axis=0)) / (1 + self.child_visits.sum())


@dataclass
class SearchResult:
    """What one search says about its root."""

    actions: np.ndarray
    """Legal actions of the root."""
    policy: np.ndarray
    """The improved policy over ``actions`` (the policy target)."""
    action: int
    """The action the search chooses (Gumbel: sequential halving's winner; PUCT: the most visited, or a draw
    with ``temperature``)."""
    value: np.ndarray
    """Per-seat value estimate of the root after the search."""
    raw_value: np.ndarray
    """The evaluator's per-seat value of the root."""
    visits: np.ndarray
    q: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Q of each root action for the player to move (0 where unvisited)."""


@dataclass
class SearchStats:
    """Where a search's time went (seconds) and how much it did."""

    select: float = 0.0
    engine: float = 0.0
    evaluate: float = 0.0
    backup: float = 0.0
    leaves: int = 0
    batches: int = 0

    def add(self, other: SearchStats) -> None:
        for name in ("select", "engine", "evaluate", "backup", "leaves", "batches"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class BatchedSearch:
    """Search many positions at once, one batched evaluation per simulation step (see the module docstring)."""

    def __init__(self, game: Game, evaluator: Evaluator, config: SearchConfig, rng: np.random.Generator):
        check_searchable(game)
        self.game = game
        self.evaluator = evaluator
        self.config = config
        self.rng = rng
        self.n = game.num_players
        self.stats = SearchStats()
        self._schedules: dict[tuple[int, int], list[int]] = {}
        self._budgets: list[int] = []
        self._relative_index = (np.arange(self.n)[None, :] - np.arange(self.n)[:, None]) % self.n
        """``[player, seat]``: where seat's value sits in ``player``'s observer-relative order
        (:func:`to_absolute` for a whole batch)."""
        self.last_roots: list[Node] = []
        """The root nodes of the last search (its trees, for inspection)."""
        self.last_observations: np.ndarray | None = None
        """The roots' observations (from the player to move's view) of the last search."""

    # ----- evaluation -------------------------------------------------------------------------------------
    def _evaluate(self, nodes: list[Node]) -> np.ndarray | None:
        """Evaluate ``nodes`` in one batch; returns their observations."""
        import time

        if not nodes:
            return None
        t0 = time.perf_counter()
        game = self.game
        obs = np.stack([game.observation(node.state, node.player) for node in nodes])
        legal = [np.asarray(game.legal_actions(node.state), dtype=np.int64) for node in nodes]
        t1 = time.perf_counter()
        logits, values = self.evaluator(obs, legal)
        t2 = time.perf_counter()
        players = np.array([node.player for node in nodes])
        absolute = np.asarray(values, dtype=np.float64)[np.arange(len(nodes))[:, None], self._relative_index[players]]
        for node, actions, lg, value in zip(nodes, legal, logits, absolute):
            node.set_evaluation(actions, lg, value, self.n)
        self.stats.engine += t1 - t0
        self.stats.evaluate += t2 - t1
        self.stats.leaves += len(nodes)
        self.stats.batches += 1
        return obs

    def _new_node(self, state: Any) -> Node:
        game = self.game
        player = game.current_player(state)
        if player != TERMINAL and game.is_truncated(state):
            player = TERMINAL
        node = Node(state, player)
        if node.terminal:
            node.raw_value = np.asarray(game.returns(state), dtype=np.float64)
        return node

    # ----- the search -----------------------------------------------------------------------------------------
    def search(
        self,
        states: Sequence[Any],
        temperature: Sequence[float] | float = 0.0,
        simulations: Sequence[int] | None = None,
    ) -> list[SearchResult]:
        """Search every state (each a live decision; the states are not changed) and return one result each.

        ``temperature`` (PUCT only; per state or one for all): 0 plays the most visited action, ``t > 0`` draws
        an action with probability proportional to ``N(a) ** (1 / t)``. ``simulations``: a budget per state
        (default: the config's for all); a state whose budget is spent waits while the others go on, and a budget
        of 0 decides from the root's evaluation alone (Gumbel: the top action by g + logits, a draw from the
        policy; PUCT: the prior's best, or a draw from it with a temperature).
        """
        import time

        cfg = self.config
        budgets = [cfg.simulations] * len(states) if simulations is None else [int(n) for n in simulations]
        self._budgets = budgets
        roots = []
        for state in states:
            node = self._new_node(self.game.clone(state))
            if node.terminal:
                raise SearchError("cannot search a finished game")
            roots.append(node)
        self.last_roots = roots
        self.last_observations = self._evaluate(roots)
        gumbels: list[np.ndarray] = []
        for root in roots:
            k = len(root.actions)
            if cfg.kind == "gumbel":
                gumbels.append(cfg.gumbel_scale * self.rng.gumbel(size=k) if cfg.gumbel_scale else np.zeros(k))
            elif cfg.dirichlet_fraction > 0 and k > 1:
                noise = self.rng.dirichlet([cfg.dirichlet_alpha] * k)
                root.prior = (1 - cfg.dirichlet_fraction) * root.prior + cfg.dirichlet_fraction * noise
        for step in range(max(budgets, default=0)):
            live = [i for i, root in enumerate(roots) if len(root.actions) > 1 and budgets[i] > step]
            if not live:
                break
            t0 = time.perf_counter()
            paths: list[list[tuple[Node, int]]] = []
            leaves: list[Node] = []
            pending: list[Node] = []
            engine = 0.0
            for i in live:
                root = roots[i]
                node = root
                path: list[tuple[Node, int]] = []
                while True:
                    if node is root:
                        a = self._select_root(root, gumbels[i] if cfg.kind == "gumbel" else None, budgets[i])
                    else:
                        a = self._select_interior(node)
                    path.append((node, a))
                    e0 = time.perf_counter()
                    child, new = self._step(node, a)
                    engine += time.perf_counter() - e0
                    node = child
                    if new or node.terminal:
                        break
                paths.append(path)
                leaves.append(node)
                if new and not node.terminal:
                    pending.append(node)
            t1 = time.perf_counter()
            self.stats.select += t1 - t0 - engine
            self.stats.engine += engine
            self._evaluate(pending)
            t2 = time.perf_counter()
            for path, leaf in zip(paths, leaves):
                value = leaf.raw_value
                for node, a in path:
                    node.child_visits[a] += 1
                    node.child_values[a] += value
            self.stats.backup += time.perf_counter() - t2
        temps = [temperature] * len(roots) if np.isscalar(temperature) else list(temperature)
        return [
            self._result(root, gumbels[i] if cfg.kind == "gumbel" else None, float(temps[i]))
            for i, root in enumerate(roots)
        ]

    def _step(self, node: Node, a: int) -> tuple[Node, bool]:
        """Follow action ``a`` of ``node``: the child (sampling a chance outcome if the edge has chance) and
        whether it is new."""
        child = node.children[a]
        if child is not None and not node.stochastic[a]:
            return child, False
        game = self.game
        state = game.clone(node.state)
        rng = RecordingRng(self.rng)
        game.apply(state, int(node.actions[a]), rng)
        if child is None and not rng.draws:
            child = node.children[a] = self._new_node(state)
            return child, True
        key = tuple(rng.draws)
        if child is None:
            node.stochastic[a] = True
            child = node.children[a] = {}
        found = child.get(key)
        if found is not None:
            return found, False
        found = child[key] = self._new_node(state)
        return found, True

    def _sigma_q(self, node: Node) -> np.ndarray:
        """``sigma(completed q)`` of a node's actions (all zero before any visit: completed with one value, a
        constant, which shifts no argmax or softmax)."""
        cfg = self.config
        visits = node.child_visits
        if not visits.any():
            return np.zeros(len(visits))
        q = node.q()
        v_mix = mixed_value(node.raw_value[node.player], q, visits, node.prior)
        return sigma(completed_q(q, visits, v_mix), visits, cfg.c_visit, cfg.c_scale, cfg.q_normalisation)

    def _schedule(self, considered: int, simulations: int) -> list[int]:
        table = self._schedules.get((considered, simulations))
        if table is None:
            table = self._schedules[(considered, simulations)] = considered_visit_sequence(considered, simulations)
        return table

    def _select_root(self, root: Node, gumbel: np.ndarray | None, simulations: int) -> int:
        if gumbel is None:
            return self._select_interior(root)
        considered = min(self.config.max_considered, len(root.actions))
        simulation = int(root.child_visits.sum())
        visit = self._schedule(considered, simulations)[simulation]
        if visit == 0:  # the unvisited actions all have the same completed Q: Gumbel-top-k on g + logits
            return int(np.argmax(np.where(root.child_visits == 0, gumbel + root.logits, -np.inf)))
        return int(np.argmax(gumbel_root_scores(gumbel, root.logits, self._sigma_q(root), root.child_visits, visit)))

    def _select_interior(self, node: Node) -> int:
        if len(node.actions) == 1:
            return 0
        cfg = self.config
        if cfg.kind == "gumbel":
            if not node.child_visits.any():
                return int(np.argmax(node.logits))  # the improved policy is the prior before any visit
            return int(np.argmax(gumbel_interior_scores(node.logits, self._sigma_q(node), node.child_visits)))
        visits = node.child_visits
        total = int(visits.sum())
        fpu = float(node.value()[node.player])
        return int(np.argmax(puct_scores(node.q(), node.prior, visits, total + 1, cfg.c_puct, fpu)))

    def _result(self, root: Node, gumbel: np.ndarray | None, temperature: float) -> SearchResult:
        visits = root.child_visits
        k = len(root.actions)
        if k == 1:
            policy = np.ones(1)
            choice = 0
        elif gumbel is not None:
            sigma_q = self._sigma_q(root)
            policy = gumbel_policy_target(root.logits, sigma_q)
            choice = int(np.argmax(gumbel_root_scores(gumbel, root.logits, sigma_q, visits, int(visits.max()))))
        else:
            policy = visit_count_target(visits)
            if temperature > 0:
                weights = (visits if visits.any() else root.prior).astype(np.float64) ** (1.0 / temperature)
                choice = int(self.rng.choice(k, p=weights / weights.sum()))
            else:
                choice = int(np.argmax(visits + 1e-6 * root.prior))
        return SearchResult(
            actions=root.actions,
            policy=policy,
            action=int(root.actions[choice]),
            value=root.value(),
            raw_value=root.raw_value,
            visits=visits.copy(),
            q=root.q(),
        )


# ----- the network as an evaluator ---------------------------------------------------------------------------------
class NetworkEvaluator:
    """A :mod:`training.networks` network as an :class:`Evaluator`: the legal actions' logits (gathered from the
    per-cell scores without building all of them) and ``tanh`` of the value head in observer-relative order
    (a single output is the mover's value in a two-player zero-sum game: the other seat gets its negation).
    The network is used in the mode it is in (those networks have no layer that behaves differently in training
    mode)."""

    def __init__(self, net: Any, num_players: int, device: Any = "cpu"):
        import torch

        self.net = net
        self.num_players = num_players
        self.device = torch.device(device)

    def __call__(self, obs: np.ndarray, legal: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
        import torch

        from training.distribution import action_positions

        with torch.inference_mode():
            batch = torch.from_numpy(np.asarray(obs, dtype=np.float32)).to(self.device)
            counts = [len(a) for a in legal]
            rows = torch.from_numpy(np.repeat(np.arange(len(legal)), counts)).to(self.device)
            flat = torch.from_numpy(np.concatenate(legal) if legal else np.zeros(0, np.int64)).to(self.device)
            if hasattr(self.net, "legal_logits"):  # scores only the legal actions
                logits, raw_values = self.net.legal_logits(batch, rows, flat)
            else:
                scores, raw_values, columns = self.net.scores(batch)
                logits = scores[rows, action_positions(columns, flat, rows)]
            picked = logits.double().cpu().numpy()
            values = value_vectors(torch.tanh(raw_values).double().cpu().numpy(), self.num_players)
        return np.split(picked, np.cumsum(counts)[:-1]), values


def value_vectors(values: np.ndarray, num_players: int) -> np.ndarray:
    """``(B, num_players)`` observer-relative values from a value head's ``(B,)`` (two-player zero-sum: the mover's
    value and its negation) or ``(B, num_players)`` output."""
    if values.ndim == 1:
        if num_players != 2:
            raise SearchError(
                f"a single value output cannot give {num_players} seats' values; the network needs "
                f"value_outputs={num_players}"
            )
        return np.stack([values, -values], axis=1)
    if values.shape[1] != num_players:
        raise SearchError(f"the network gives {values.shape[1]} values for {num_players} seats")
    return values


# ----- a policy for the harness --------------------------------------------------------------------------------------
class SearchPolicy:
    """The network-guided search as an ``envs.common.policies.Policy`` (harness spec ``mcts:PATH:N``): one search
    of ``config.simulations`` per decision, without root noise (Gumbel noise 0, no Dirichlet noise)."""

    def __init__(
        self, game: Game, evaluator: Evaluator, config: SearchConfig, name: str = "mcts", seed: int | None = None
    ):
        check_searchable(game)
        self.game = game
        self.evaluator = evaluator
        self.config = config
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.stats = SearchStats()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def search(self, decision: Any) -> SearchResult:
        """The full search result for a decision."""
        if decision.game.name != self.game.name:
            raise ValueError(f"policy {self.name} plays {self.game.name}, not {decision.game.name}")
        search = BatchedSearch(self.game, self.evaluator, self.config, self.rng)
        result = search.search([decision.info_state])[0]
        self.stats.add(search.stats)
        return result

    def act(self, decision: Any) -> int:
        legal = decision.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        return self.search(decision).action


# ----- a checkpoint's search, as a player ---------------------------------------------------------------------
def load_search_policy(
    path: str | Path,
    game: str | None = None,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    simulations: int | None = None,
    folders: Sequence[Path] | None = None,
) -> Any:
    """The network-guided search over a checkpoint (harness spec ``mcts:PATH:N``): a
    :class:`SearchPolicy` with ``simulations`` per decision (default: the training run's), the
    search kind and constants of the run that trained it (Gumbel for a PPO checkpoint), no root noise. Refuses
    (:class:`CheckpointError`) a hidden-information game, a checkpoint whose single value output cannot value
    every seat of a game with more than two players, and a budget past
    :data:`training.specs.MAX_NETWORK_SIMULATIONS` whether given or its sidecar's (checked before the weights
    are read). ``folders``: as :func:`training.arena.players.make_policy`'s."""
    import torch

    from training.checkpoint import CheckpointError, load_network, read_sidecar
    from training.specs import PolicySpecError, declared_simulations

    try:
        sims = declared_simulations(read_sidecar(path, folders), simulations)
    except PolicySpecError as err:
        raise CheckpointError(f"mcts:{path}: {err}") from None
    net, meta, the_game = load_network(path, game, options, folders)
    try:
        check_searchable(the_game)
    except SearchError as err:
        raise CheckpointError(str(err)) from None
    network = meta.get("network")
    outputs = int(network.get("value_outputs", 1)) if isinstance(network, dict) else 1
    if outputs == 1 and the_game.num_players != 2:
        raise CheckpointError(
            f"{path}: its single value output cannot value each of {the_game.num_players} seats "
            "for the search (train it with --algo alphazero)"
        )
    trained = meta.get("config") if isinstance(meta.get("config"), dict) else {}
    alphazero = meta.get("algo") == "alphazero"
    try:
        config = SearchConfig(
            kind=trained.get("search", "gumbel") if alphazero else "gumbel",
            simulations=sims,
            max_considered=int(trained.get("max_considered", 16)),
            gumbel_scale=0.0,
            c_visit=float(trained.get("c_visit", 50.0)),
            c_scale=float(trained.get("c_scale", 0.1)),
            q_normalisation=str(trained.get("q_normalisation", "minmax")),
            c_puct=float(trained.get("c_puct", 1.25)),
            dirichlet_fraction=0.0,
        )
    except (TypeError, ValueError) as err:  # SearchError too
        raise CheckpointError(f"{path}: its training run's search settings cannot be used: {err}") from None
    # The search evaluates one position at a time: one torch thread is fastest (Bestiarium, 16 simulations on the
    # shared 2-core machine: 0.027 s a move with one thread, 0.78 s with torch's default two).
    torch.set_num_threads(1)
    return SearchPolicy(
        the_game,
        NetworkEvaluator(net, the_game.num_players),
        config,
        name=f"mcts{sims}:{Path(path).with_suffix('').name}",
        seed=seed,
    )
