"""Boaring's compiled search baseline: what is Boaring's own in ``baselines.BoaringSearch`` (a determinization of
the searching seat's information state per simulation, the other seats' bids in the tree from the opponent model,
``fast_bid`` / ``eat_choice`` playouts cut after ``rollout_depth`` plies and scored by ``evaluate``), for the tree
written once in ``envs/common/fastsearch.py``. Tested against the Python functions decision for decision.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from envs.boaring.actions import BID, COPIES_PER_VALUE, EAT, NUM_FOOD, NUM_TYPES, NUM_VALUES, OVER, PLAY_BASE
from envs.boaring.fast import BoaringBatched, animal_worth_row, closed_form_bid, eat_choice_row, hidden_counts_row
from envs.boaring.kernels import apply_row, copy_row, legal_actions_row, mover_row, returns_row
from envs.common import fastsearch
from envs.common.fastrng import below, next_u64, shuffle
from envs.common.game import Game
from envs.common.jit import inline_jit, row_jit


@inline_jit
def fast_bid_row(st, tab, b, seat, card_cost, counts):
    """``baselines.fast_bid`` of ``seat`` in row ``b``: the action of :func:`~envs.boaring.fast.closed_form_bid` on
    the seat's hidden pool, its own hand and the public cards (``counts``: work, NUM_VALUES int64)."""
    n = tab.num_players
    hidden_counts_row(st, tab, b, seat, counts)
    need = np.int64(st.requirement[b]) * n
    worth = animal_worth_row(st, tab, b, seat)
    best = closed_form_bid(counts, st.hands[b, seat], need, worth, np.int64(st.hand_size[b, seat]), n - 1, card_cost)
    return PLAY_BASE + best


@row_jit
def evaluate_row(st, tab, b: int, temperature: float, hand_weight: float, out: np.ndarray) -> None:
    """baselines.evaluate: mean over rivals of tanh((strength difference) / temperature), strength = score +
    hand_weight x food value in hand; the exact returns when the game is over."""
    phase, savanna, graveyard, hands = st.phase, st.savanna, st.graveyard, st.hands
    n = tab.num_players
    if phase[b] == OVER:
        returns_row(st, tab, b, out)
        return
    strength = tab.work_strength
    for p in range(n):
        sc = 0
        hv = 0
        for t in range(NUM_TYPES):
            sc += 2 * savanna[b, p, t] - graveyard[b, p, t]
        for i in range(NUM_VALUES):
            hv += (i + 1) * np.int64(hands[b, p, i])
        strength[p] = sc + hand_weight * hv
    for p in range(n):
        total = 0.0
        for q in range(n):
            total += math.tanh((strength[p] - strength[q]) / temperature)
        out[p] = total / (n - 1)


@row_jit
def determinize_row(st, b: int, seat: int, n: int, rng: np.ndarray, cards: np.ndarray) -> None:
    """BoaringGame.determinize in place: row ``b`` holds an information state of ``seat`` (other hands, hidden
    pending cards, pile and deck entries UNKNOWN); the cards the seat cannot locate are dealt at random."""
    hands, hand_size, pending, discard, requirement = st.hands, st.hand_size, st.pending, st.discard, st.requirement
    food_pile, pile_len, animal_deck, deck_len, animals_left = (
        st.food_pile,
        st.pile_len,
        st.animal_deck,
        st.deck_len,
        st.animals_left,
    )
    m = 0
    for i in range(NUM_VALUES):  # unknown_food: 7 of each minus my hand, the discard, revealed cards, the table
        c = COPIES_PER_VALUE - hands[b, seat, i] - discard[b, i]
        for p in range(n):
            if pending[b, p] == i + 1:
                c -= 1
        if requirement[b] == i + 1:
            c -= 1
        for _ in range(c):
            cards[m] = i + 1
            m += 1
    shuffle(rng, 0, cards[:m])
    pos = 0
    for p in range(n):
        if p == seat:
            continue
        if pending[b, p] < 0:
            pending[b, p] = cards[pos]
            pos += 1
        for i in range(NUM_VALUES):
            hands[b, p, i] = 0
        for j in range(pos, pos + hand_size[b, p]):
            hands[b, p, cards[j] - 1] += 1
        pos += hand_size[b, p]
    for j in range(pos, m):
        food_pile[b, j - pos] = cards[j]
    pile_len[b] = m - pos
    k = 0
    for t in range(NUM_TYPES):
        for _ in range(animals_left[b, t]):
            animal_deck[b, k] = t
            k += 1
    shuffle(rng, 0, animal_deck[b, :k])
    deck_len[b] = k


class SearchContext(NamedTuple):
    """One decision's settings and work buffers (see :class:`CompiledSearch`)."""

    seat: int
    """The searching seat (the root's mover)."""
    rollout_depth: int
    """Playout plies before :func:`evaluate_row` scores the leaf; -1: to the end."""
    temperature: float
    hand_weight: float
    card_cost: float
    opponent_model: bool
    """The other seats' bids in the tree are one action, :func:`fast_bid_row`'s."""
    rng: np.ndarray
    """(1,) uint64: the determinizations' and the tree's generator (each simulation's row is seeded from it)."""
    counts: np.ndarray
    """(NUM_VALUES,) int64 work."""
    cards: np.ndarray
    """(NUM_FOOD,) int8 work."""


@row_jit
def _start(st, tab, ctx, i):
    """Simulation ``i``: the information state (row 0) copied to the last row, determinized from ``ctx.rng``, and
    that row's generator seeded from it."""
    work = st.rng.shape[0] - 1
    copy_row(st, tab, 0, work)
    determinize_row(st, work, ctx.seat, tab.num_players, ctx.rng, ctx.cards)
    st.rng[work] = next_u64(ctx.rng, 0)
    return work


@row_jit
def _candidates(st, tab, ctx, b, player, out):
    """The legal actions, except another seat's bid under the opponent model: the one bid of :func:`fast_bid_row`."""
    if ctx.opponent_model and st.phase[b] == BID and player != ctx.seat:
        out[0] = fast_bid_row(st, tab, b, player, ctx.card_cost, ctx.counts)
        return 1
    return legal_actions_row(st, tab, b, out)


@row_jit
def _leaf(st, tab, ctx, b, out):
    """The playout (``fast_bid`` bids and ``eat_choice`` for every seat), cut after ``ctx.rollout_depth`` plies and
    scored by :func:`evaluate_row`; the exact returns when the game ends."""
    depth = 0
    while True:
        if st.phase[b] == OVER:
            returns_row(st, tab, b, out)
            return
        if ctx.rollout_depth >= 0 and depth >= ctx.rollout_depth:
            evaluate_row(st, tab, b, ctx.temperature, ctx.hand_weight, out)
            return
        seat = st.current[b]
        if st.phase[b] == EAT:
            apply_row(st, tab, b, eat_choice_row(st, tab, b, seat))
        else:
            apply_row(st, tab, b, fast_bid_row(st, tab, b, seat, ctx.card_cost, ctx.counts))
        depth += 1


fastsearch.register(SearchContext, mover=mover_row, apply=apply_row, candidates=_candidates, leaf=_leaf, start=_start)


class CompiledSearch(fastsearch.CompiledSearch):
    """The ``search`` baseline's decision (``baselines.CompiledBoaringSearch``), compiled: ``budget`` simulations,
    each on a determinization of the information state (row 0 of a two-row batch, simulations on row 1), drawn
    with the tree's choices from a SplitMix64 stream seeded by one draw from the caller's generator per decision
    (a seed fixes the games, though not the same ones as the pure-Python search). When no legal root child was
    expanded (a budget of 0), a uniformly random legal action from the same stream."""

    def __init__(
        self,
        game: Game,
        budget: int,
        exploration: float,
        rollout_depth: int | None,
        temperature: float,
        hand_weight: float,
        card_cost: float,
        opponent_model: bool = True,
    ):
        super().__init__(budget, exploration)
        self.game = game
        self.engine = BoaringBatched(**game.options())
        self.rollout_depth = -1 if rollout_depth is None else int(rollout_depth)
        self.temperature = float(temperature)
        self.hand_weight = float(hand_weight)
        self.card_cost = float(card_cost)
        self.opponent_model = bool(opponent_model)
        self.rows = self.engine.new_state(2)
        self._counts = np.zeros(NUM_VALUES, dtype=np.int64)
        self._cards = np.zeros(NUM_FOOD, dtype=np.int8)

    def load(self, state: Any, budget: int, seed: int) -> Any:
        """The information state (UNKNOWN placeholders included) in row 0."""
        self.engine.write_row(state, self.rows, 0)
        return self.rows

    def context(self, state: Any, seed: int) -> SearchContext:
        """The settings, the searching seat and the stream seeded with ``seed``."""
        return SearchContext(
            seat=int(self.game.current_player(state)),
            rollout_depth=self.rollout_depth,
            temperature=self.temperature,
            hand_weight=self.hand_weight,
            card_cost=self.card_cost,
            opponent_model=self.opponent_model,
            rng=np.array([seed], dtype=np.uint64),
            counts=self._counts,
            cards=self._cards,
        )

    def tree_rng(self, rows: Any, ctx: SearchContext) -> tuple[np.ndarray, int]:
        """The determinizations' stream draws the tree's choices too."""
        return ctx.rng, 0

    def answer(self, action: int, legal: np.ndarray, tree_rng: np.ndarray) -> int:
        """The search's action, or a uniformly random legal one (from the tree's stream) when it has none."""
        if action >= 0:
            return action
        actions = np.flatnonzero(legal)
        return int(actions[below(tree_rng, 0, actions.size)]) if actions.size else -1
