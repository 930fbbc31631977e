"""Boaring's compiled search baseline: the algorithm of ``baselines.BoaringSearch`` over ``envs/common/mcts.py``
(UCT, open loop, one determinization per simulation, ISMCTS availability counts, the other seats' bids in the tree
from the opponent model, ``fast_bid`` / ``eat_choice`` playouts cut after ``rollout_depth`` plies and scored by
``evaluate``), compiled: each simulation runs on its own row of a batched engine (``fast.py``) holding copies of the
information state. Tested against the Python functions decision for decision.

:class:`CompiledSearch` is the one interface every game's compiled search offers (``envs/common/fastsearch.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from envs.boaring.actions import (
    BID,
    COPIES_PER_VALUE,
    EAT,
    NUM_FOOD,
    NUM_TYPES,
    NUM_VALUES,
    OVER,
    PLAY_BASE,
)
from envs.boaring.fast import (
    BoaringBatched,
    _animal_worth,
    _apply_rows,
    _eat_choice,
    _hidden_counts,
    _legal_row,
    _row_returns,
)
from envs.common.fastrng import below, next_u64, shuffle
from envs.common.fastsearch import untried_choice
from envs.common.game import Game


@njit(cache=True)
def _fast_bid(s, b: int, seat: int, n: int, card_cost: float, counts: np.ndarray) -> int:
    """baselines.fast_bid (greedy's bid rule in closed form), operation for operation: the action id."""
    hands, hand_size, requirement = s.hands, s.hand_size, s.requirement
    k = n - 1
    _hidden_counts(s, b, seat, counts)
    total = 0
    for i in range(NUM_VALUES):
        total += counts[i]
    if total == 0:
        for i in range(NUM_VALUES):
            counts[i] = 1
        total = NUM_VALUES
    need = np.int64(requirement[b]) * n
    worth = _animal_worth(s, b, seat, n)
    size = np.int64(hand_size[b, seat])
    hand_sum = 0
    for i in range(NUM_VALUES):
        hand_sum += (i + 1) * np.int64(hands[b, seat, i])
    mean_hand = hand_sum / max(size, 1)
    scale = card_cost * (size - 1) / max(size, 1)
    best, best_ev = 0, -np.inf
    below_n = below_s = below_q = 0.0
    all_s = 0
    all_q = 0
    for i in range(NUM_VALUES):
        all_s += (i + 1) * counts[i]
        all_q += (i + 1) * (i + 1) * counts[i]
    for i in range(NUM_VALUES):
        v, c = i + 1, counts[i]
        if hands[b, seat, i] > 0:
            p_lt, p_eq = below_n / total, c / total
            ev = -scale * (v - mean_hand)
            lo_n, lo_s, lo_q = below_n + c, below_s + v * c, below_q + v * v * c
            hi_n, hi_s, hi_q = total - below_n, all_s - below_s, all_q - below_q
            if lo_n > 0:
                m = lo_s / lo_n
                var = max(lo_q / lo_n - m * m, 0.25)
                live = 0.5 * (1 + math.erf((v + k * m - need + 0.5) / math.sqrt(2 * k * var)))
                ev += worth * math.pow(p_lt + 0.5 * p_eq, k) * live
            if hi_n > 0:
                m = hi_s / hi_n
                var = max(hi_q / hi_n - m * m, 0.25)
                live = 0.5 * (1 + math.erf((v + k * m - need + 0.5) / math.sqrt(2 * k * var)))
                ev -= math.pow(1 - p_lt - 0.5 * p_eq, k) * (1 - live)
            if ev > best_ev:
                best, best_ev = i, ev
        below_n += c
        below_s += v * c
        below_q += v * v * c
    return PLAY_BASE + best


@njit(cache=True)
def _evaluate(s, b: int, n: int, pairwise: bool, temperature: float, hand_weight: float, out: np.ndarray) -> None:
    """baselines.evaluate: mean over rivals of tanh((strength difference) / temperature), strength = score +
    hand_weight x food value in hand; the exact returns when the game is over."""
    phase, savanna, graveyard, hands = s.phase, s.savanna, s.graveyard, s.hands
    if phase[b] == OVER:
        _row_returns(savanna, graveyard, b, n, pairwise, out)
        return
    strength = np.empty(n)
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


@njit(cache=True)
def _determinize_row(s, b: int, seat: int, n: int, rng: np.ndarray, cards: np.ndarray) -> None:
    """BoaringGame.determinize in place: row ``b`` holds an information state of ``seat`` (other hands, hidden
    pending cards, pile and deck entries UNKNOWN); the cards the seat cannot locate are dealt at random."""
    hands, hand_size, pending, discard, requirement = s.hands, s.hand_size, s.pending, s.discard, s.requirement
    food_pile, pile_len, animal_deck, deck_len, animals_left = (
        s.food_pile,
        s.pile_len,
        s.animal_deck,
        s.deck_len,
        s.animals_left,
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


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _search_kernel(
    sims,
    seat: int,
    n: int,
    deal_size: int,
    num_actions: int,
    root_legal: np.ndarray,
    rollout_depth: int,
    exploration: float,
    temperature: float,
    hand_weight: float,
    card_cost: float,
    opponent_model: bool,
    pairwise: bool,
    rng: np.ndarray,
) -> int:
    """MCTSPolicy.act with BoaringSearch's settings; simulation i runs on row i of ``sims`` (copies of the
    information state). ``rng`` (1,) drives the determinizations and the tree's random choices; each row's own
    generator (seeded from it) draws the re-deals inside the simulation. Returns the most visited root action."""
    budget = sims.phase.shape[0]
    phase, current = sims.phase, sims.current
    nodes = budget + 1
    children = np.full((nodes, num_actions), -1, dtype=np.int64)
    visits = np.zeros(nodes, dtype=np.int64)
    avail = np.zeros(nodes, dtype=np.int64)
    value = np.zeros((nodes, n))
    num_nodes = 1
    path = np.empty(nodes + 1, dtype=np.int64)
    cand = np.empty(num_actions, dtype=np.int64)
    untried = np.empty(num_actions, dtype=np.int64)
    counts = np.empty(NUM_VALUES, dtype=np.int64)
    cards = np.empty(NUM_FOOD, dtype=np.int8)
    leaf = np.empty(n)
    row = np.zeros(1, dtype=np.int64)
    act = np.zeros(1, dtype=np.int64)
    for i in range(budget):
        row[0] = i
        _determinize_row(sims, i, seat, n, rng, cards)
        sims.rng[i] = next_u64(rng, 0)
        node = 0
        plen = 1
        path[0] = 0
        while phase[i] != OVER:
            player = current[i]
            if opponent_model and phase[i] == BID and player != seat:
                cand[0] = _fast_bid(sims, i, player, n, card_cost, counts)
                nc = 1
            else:
                nc = _legal_row(sims, i, n, cand)
            a = untried_choice(children, node, cand, nc, avail, untried, rng, 0)
            if a >= 0:
                c = num_nodes
                num_nodes += 1
                children[node, a] = c
                avail[c] = 1
                act[0] = a
                _apply_rows(sims, row, act, n, deal_size)
                path[plen] = c
                plen += 1
                break
            best_a, best_c, best_score = -1, -1, -np.inf
            for j in range(nc):
                c = children[node, cand[j]]
                score = value[c, player] / visits[c] + exploration * math.sqrt(math.log(avail[c]) / visits[c])
                if score > best_score:
                    best_a, best_c, best_score = cand[j], c, score
            act[0] = best_a
            _apply_rows(sims, row, act, n, deal_size)
            node = best_c
            path[plen] = node
            plen += 1
        # the leaf: playout with fast_bid / eat_choice, cut after rollout_depth plies and evaluated
        depth = 0
        while True:
            if phase[i] == OVER:
                _row_returns(sims.savanna, sims.graveyard, i, n, pairwise, leaf)
                break
            if rollout_depth >= 0 and depth >= rollout_depth:
                _evaluate(sims, i, n, pairwise, temperature, hand_weight, leaf)
                break
            if phase[i] == EAT:
                act[0] = _eat_choice(sims, i, current[i], n)
            else:
                act[0] = _fast_bid(sims, i, current[i], n, card_cost, counts)
            _apply_rows(sims, row, act, n, deal_size)
            depth += 1
        for j in range(plen):
            visits[path[j]] += 1
            for p in range(n):
                value[path[j], p] += leaf[p]
    # the most visited legal root action; ties go to the earliest expanded (the reference's dict order)
    best_a, best_c = -1, -1
    for a in range(num_actions):
        c = children[0, a]
        if (
            c >= 0
            and root_legal[a]
            and (best_c < 0 or visits[c] > visits[best_c] or (visits[c] == visits[best_c] and c < best_c))
        ):
            best_a, best_c = a, c
    if best_a >= 0:
        return best_a
    count = 0
    for a in range(num_actions):
        count += root_legal[a]
    k = below(rng, 0, count)
    for a in range(num_actions):
        if root_legal[a]:
            if k == 0:
                return a
            k -= 1
    return -1


class CompiledSearch:
    """The ``search`` baseline's decision (``baselines.CompiledBoaringSearch``) with compiled simulations:
    ``budget`` determinizations of the information state, one per row of a batch, searched by
    :func:`_search_kernel` from a SplitMix64 stream seeded by one draw from the caller's generator per decision (a
    seed fixes the games, though not the same ones as the pure-Python search)."""

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
        self.game = game
        self.engine = BoaringBatched(**game.options())
        self.budget = int(budget)
        self.exploration = float(exploration)
        self.rollout_depth = rollout_depth
        self.temperature = float(temperature)
        self.hand_weight = float(hand_weight)
        self.card_cost = float(card_cost)
        self.opponent_model = bool(opponent_model)

    def __call__(
        self,
        state: Any,
        rng: np.random.Generator,
        root_actions: np.ndarray | None = None,
        budget: int | None = None,
        root_visits: np.ndarray | None = None,
    ) -> int:
        """The search's action for the player to move in ``state`` (an information state of that seat,
        ``information_state(.., seat)``; unchanged), -1 if it has none. The determinized search keeps no root
        children of its own to restrict or count: ``root_actions`` and ``root_visits`` must be None."""
        if root_actions is not None or root_visits is not None:
            raise NotImplementedError("Boaring's compiled search takes no root_actions and fills no root_visits")
        engine = self.engine
        seat = self.game.current_player(state)
        legal = self.game.legal_mask(state).astype(np.bool_)
        seed = int(rng.integers(0, 2**63))
        one = engine.new_state(1)
        engine._write_row(state, one, 0)
        sims = engine.take(one, np.zeros(self.budget if budget is None else int(budget), dtype=np.int64))
        return int(
            _search_kernel(
                sims,
                seat,
                engine.num_players,
                engine.deal_size,
                engine.num_actions,
                legal,
                -1 if self.rollout_depth is None else self.rollout_depth,
                self.exploration,
                self.temperature,
                self.hand_weight,
                self.card_cost,
                self.opponent_model,
                engine.reward == "pairwise",
                np.array([seed], dtype=np.uint64),
            )
        )
