"""Scripted Boaring policies: ``greedy`` (one-ply bid heuristic) and ``search`` (determinized MCTS).

Both read only ``decision.info_state`` (other hands, hidden pending cards and deck orders are ``UNKNOWN``
placeholders there) and the game's public helpers; neither ever sees another player's hidden cards.

Greedy (bids). The other n - 1 bids are modelled as uniform draws without replacement from the food cards the
seat cannot locate (``game.unknown_food``: other hands, hidden pending cards, the pile). ``samples`` such draws
are taken once per decision (from the policy's own generator) and every card v in hand is scored on them:

    EV(v) = P(lives and v is highest) * W(animal) - P(dies and v is lowest) - card_cost * (v - mean hand)

with the rulebook's tie order (the active player, then the most recently active, counts higher; the lowest goes
to the lower priority), lives = sum of bids >= requirement x n. W is 2 (a savanna animal) plus the eat bonus:
a hyena adds 1 when my graveyard holds something (it eats one of my -1 cards), a lion adds 1 when another
savanna holds something (it takes 2 from a rival). The card cost keeps high cards for later rounds; it is
scaled by how many rounds this hand still has to play (the last card of a deal costs nothing). Ties go to the
cheaper card. Eat decisions: a hyena always eats (every graveyard animal is -1; a boar first, then lion,
hyena); a lion eats from the rival with the best rank key (score, boars, lions, hyenas), a boar first (it is
the first tie-break), then a lion, then a hyena.

Search. :class:`BoaringSearch`, an :class:`~envs.common.mcts.MCTSPolicy` (UCT, open loop, every simulation
from ``game.determinize(info_state, seat, rng)``, so hidden hands, pending cards and deck orders are sampled):
``budget`` = 50 simulations per decision by default; the tree branches only on the searching seat's own bids
and on eat decisions, while the other seats' bids in the tree and all playout moves come from
:func:`fast_bid` (greedy's rule in closed form, computed from the mover's own sampled hand and public cards
only, never from other players' pending cards); playouts are cut after ``rollout_depth`` = 5 plies (the rest
of the round) and scored by :func:`evaluate`: mean over rivals of tanh((strength difference) / 3), strength =
score + 0.3 x food value in hand (exact returns at the end). By default the simulations run compiled
(:class:`CompiledBoaringSearch`: the same algorithm in one numba kernel, envs/boaring/search.py);
``search_policy(..., compiled=False)`` gives this pure-Python :class:`BoaringSearch`.

How the card cost and the search were tuned, and the measured strength: docs/baselines.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.boaring import actions as A
from envs.boaring.actions import BOAR, HYENA, LION, NUM_VALUES
from envs.boaring.rules import BID, EAT, OVER, BoaringGame, BoaringState
from envs.boaring.rules import COPIES_PER_VALUE as COPIES
from envs.common.mcts import MCTSPolicy
from envs.common.policies import CompiledRootSearch, Decision, SeededPolicy

CARD_COST = 0.3
"""Greedy: cost per food value above the hand's mean (scaled by the rounds this hand still lasts)."""
SAMPLES = 128
"""Greedy: sampled bid vectors of the other players per decision."""


def animal_worth(game: BoaringGame, state: BoaringState, seat: int) -> float:
    """What winning the animal on the table is worth to ``seat``: 2 plus the eat bonus."""
    n = game.num_players
    w = 2.0
    if (state.animal == HYENA and any(state.graveyard[seat])) or (
        state.animal == LION and any(any(state.savanna[s]) for s in range(n) if s != seat)
    ):
        w += 1.0
    return w


def eat_choice(game: BoaringGame, state: BoaringState, seat: int) -> int:
    """The eat decision: hyena eats from my graveyard, lion from the leading rival (boar, lion, hyena first)."""
    n = game.num_players
    if state.animal == HYENA:
        grave = state.graveyard[seat]
        for t in (BOAR, LION, HYENA):
            if grave[t] > 0:
                return A.hyena_action(t)
        return A.NO_EAT
    keys = game.rank_keys(state)
    best, best_key = None, None
    for o in range(1, n):
        s = (seat + o) % n
        if any(state.savanna[s]) and (best_key is None or keys[s] > best_key):
            best, best_key = o, keys[s]
    if best is None:
        return A.NO_EAT
    sav = state.savanna[(seat + best) % n]
    for t in (BOAR, LION, HYENA):
        if sav[t] > 0:
            return A.lion_action(best, t)
    return A.NO_EAT


def hidden_counts(state: BoaringState, seat: int) -> list[int]:
    """Food counts per value that ``seat`` cannot locate, computed from public cards and its own hand only.

    Equal to ``game.unknown_food`` on an information state (whose hidden pending cards are placeholders); on a
    determinized state inside the search it likewise ignores the other players' pending cards, so a simulated
    opponent never learns the searching seat's bid.
    """
    counts = [COPIES - c - d for c, d in zip(state.hands[seat], state.discard)]
    if state.requirement:
        counts[state.requirement - 1] -= 1
    own = state.pending[seat]
    if own > 0:
        counts[own - 1] -= 1
    return [max(c, 0) for c in counts]


def bid_values(
    game: BoaringGame,
    state: BoaringState,
    seat: int,
    rng: np.random.Generator,
    samples: int = SAMPLES,
    card_cost: float = CARD_COST,
) -> dict[int, float]:
    """Greedy's EV of every card value in ``seat``'s hand (see the module docstring)."""
    n = game.num_players
    hand = state.hands[seat]
    values = [i + 1 for i in range(NUM_VALUES) if hand[i] > 0]
    pool = np.repeat(np.arange(1, NUM_VALUES + 1), hidden_counts(state, seat))
    others = [s for s in range(n) if s != seat]
    k = len(others)
    draws = pool[np.argsort(rng.random((samples, pool.size)), axis=1)[:, :k]].astype(np.int64)
    prio = [(state.active - s) % n for s in range(n)]  # 0 = highest priority
    me_p = prio[seat]
    above = np.array([prio[o] < me_p for o in others])  # others that win ties against me for the highest card
    need = state.requirement * n
    other_sum = draws.sum(axis=1)
    worth = animal_worth(game, state, seat)
    size = state.hand_size[seat]
    mean_hand = sum((i + 1) * c for i, c in enumerate(hand)) / max(size, 1)
    scale = (size - 1) / max(size, 1)
    out = {}
    for v in values:
        lives = other_sum + v >= need
        top = np.all((draws < v) | ((draws == v) & ~above), axis=1)
        # lowest: strictly below every other, or tied with others of higher priority only (ties go low-priority)
        low = np.all((draws > v) | ((draws == v) & above), axis=1)
        ev = worth * np.mean(lives & top) - np.mean(~lives & low)
        out[v] = float(ev - card_cost * scale * (v - mean_hand))
    return out


class GreedyPolicy(SeededPolicy):
    """One-ply greedy bidder (see the module docstring)."""

    name = "greedy"

    def __init__(
        self, game: BoaringGame, seed: int | None = None, samples: int = SAMPLES, card_cost: float = CARD_COST
    ):
        super().__init__(game, seed)
        self.samples = samples
        self.card_cost = card_cost

    def act(self, decision: Decision) -> int:
        game, state, seat = self.game, decision.info_state, decision.seat
        legal = decision.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        if state.phase == EAT:
            action = eat_choice(game, state, seat)
            return action if decision.action_mask[action] else int(legal[0])
        evs = bid_values(game, state, seat, self.rng, self.samples, self.card_cost)
        best = max(evs, key=lambda v: (evs[v], -v))
        return A.play_action(best)


def fast_bid(game: BoaringGame, state: BoaringState, seat: int, card_cost: float = CARD_COST) -> int:
    """Greedy's bid rule in closed form (no sampling), the search's opponent model and playout policy.

    The other k = n - 1 bids are independent draws from the hidden pool: P(highest) = q^k with q = P(b < v) +
    P(b = v) / 2, likewise P(lowest); whether the animal lives is a normal approximation of the sum given
    that the others are below v (for 'highest') or above v (for 'lowest'). The formula is written once, compiled,
    in :func:`envs.boaring.fast.closed_form_bid` (the compiled search's opponent model calls it too).
    """
    from envs.boaring.fast import closed_form_bid  # numba is imported only when a search is built

    n = game.num_players
    best = closed_form_bid(
        np.array(hidden_counts(state, seat), dtype=np.int64),
        np.array(state.hands[seat], dtype=np.int64),
        state.requirement * n,
        animal_worth(game, state, seat),
        state.hand_size[seat],
        n - 1,
        float(card_cost),
    )
    return A.play_action(best + 1)


def rollout_policy(game: BoaringGame, state: BoaringState, rng: np.random.Generator) -> int:
    """Playout policy: :func:`fast_bid` bids and greedy eat decisions for every seat."""
    seat = state.current
    if state.phase == EAT:
        return eat_choice(game, state, seat)
    return fast_bid(game, state, seat)


def evaluate(
    game: BoaringGame, state: BoaringState, temperature: float = 3.0, hand_weight: float = CARD_COST
) -> np.ndarray:
    """Per-seat leaf values in the returns' scale: mean over rivals of tanh(difference / temperature), where a
    seat's strength is its score plus ``hand_weight`` x the food value in its hand (the greedy card cost: high
    cards win later animals). The exact returns when the game is over."""
    if state.phase == OVER:
        return game.returns(state)
    n = game.num_players
    strength = game.scores(state)
    if hand_weight:
        strength = strength + hand_weight * np.array(
            [sum((i + 1) * c for i, c in enumerate(state.hands[s])) for s in range(n)], dtype=np.float64
        )
    diff = np.tanh((strength[:, None] - strength[None, :]) / temperature)
    return diff.sum(axis=1) / (n - 1)


class BoaringSearch(MCTSPolicy):
    """:class:`MCTSPolicy` whose tree branches on the searching seat's own decisions only (and every eat
    decision): the other seats' bids inside the tree are one action from the opponent model :func:`fast_bid`, computed
    from their (sampled) hand and public cards only. Without this the open-loop tree lets later committers
    answer a bid they cannot see."""

    def __init__(
        self,
        game: BoaringGame,
        budget: int,
        seed: int | None,
        rollout_depth: int | None,
        temperature: float,
        hand_weight: float,
        opponent_model: bool = True,
    ):
        super().__init__(
            game,
            budget=budget,
            seed=seed,
            rollout_depth=rollout_depth,
            rollout=rollout_policy,
            evaluate=lambda s: evaluate(game, s, temperature, hand_weight),
            candidates=self._candidates if opponent_model else None,
        )
        self._root_seat = -1

    def act(self, decision: Decision) -> int:
        self._root_seat = decision.seat
        return super().act(decision)

    def _candidates(self, game: BoaringGame, state: BoaringState) -> list[int]:
        if state.phase != BID or state.current == self._root_seat:
            return game.legal_actions(state)
        return [fast_bid(game, state, state.current)]


class CompiledBoaringSearch(CompiledRootSearch, SeededPolicy):
    """:class:`BoaringSearch`'s algorithm with compiled simulations (``search.CompiledSearch`` in
    envs/boaring/search.py): the same tree, opponent model, playout policy and evaluation; the determinizations and
    the tree's random choices come from a SplitMix64 stream seeded by this policy's generator, one draw per
    decision (so a seed fixes the games, though not the same ones as the pure-Python search)."""

    name = "search"

    def __init__(
        self,
        game: BoaringGame,
        budget: int,
        seed: int | None,
        rollout_depth: int | None,
        temperature: float,
        hand_weight: float,
        opponent_model: bool = True,
        exploration: float = 1.4,
    ):
        from envs.boaring.search import CompiledSearch  # numba is imported only when a search is built

        super().__init__(game, seed)
        self.budget = budget
        self.rollout_depth = rollout_depth
        self.temperature = temperature
        self.hand_weight = hand_weight
        self.opponent_model = opponent_model
        self.exploration = exploration
        self.compiled = CompiledSearch(
            game, budget, exploration, rollout_depth, temperature, hand_weight, CARD_COST, opponent_model
        )


def search_policy(
    game: BoaringGame,
    seed: int | None = None,
    budget: int = 50,
    rollout_depth: int | None = 5,
    temperature: float = 3.0,
    hand_weight: float = CARD_COST,
    opponent_model: bool = True,
    compiled: bool = True,
) -> SeededPolicy:
    """Determinized MCTS, ``budget`` simulations per decision, greedy playouts cut after ``rollout_depth``
    plies and scored by :func:`evaluate`. ``compiled`` (default): :class:`CompiledBoaringSearch`; False: the
    pure-Python :class:`BoaringSearch` (the readable reference)."""
    if compiled:
        return CompiledBoaringSearch(game, budget, seed, rollout_depth, temperature, hand_weight, opponent_model)
    return BoaringSearch(game, budget, seed, rollout_depth, temperature, hand_weight, opponent_model)


POLICIES: dict[str, Any] = {"greedy": GreedyPolicy, "search": search_policy}
"""Baselines by name for the tournament harness: ``POLICIES[name](game, seed=..., **kwargs) -> Policy``."""
