"""Boaring's batched engine: B games per call on struct-of-arrays state, every per-step loop a numba kernel.

The rules are those of :mod:`envs.boaring.rules` (the readable reference it is tested against, move by move, in
``tests/boaring/test_boaring_fast.py``), with the same options, the same action ids and the same observation
vector (float32, bit for bit, from any seat, hidden information filtered exactly as
:func:`envs.boaring.observation.encode` does: a seat sees its own hand and own pending card, and of the others
only that they have committed, never what; the batched observation is :func:`envs.boaring.observation.observe_rows`).

This module holds the kernels over whole batches (reset, masks, returns, scores), the compiled ``greedy`` and the
Python class with its bridge to the reference engine; the state (:class:`BoaringBatchedState`), the tables, the rule
steps over a row and the row functions are the compiled rules of :mod:`envs.boaring.kernels`, offered here too
(``fast.apply_row`` is ``kernels.apply_row``).

State (:class:`BoaringBatchedState`, declared once as ``kernels.STATE``): one row per game. Piles are arrays with a
length, the top card last, as the reference's lists. The ``rng`` field is the row's SplitMix64 generator
(:mod:`envs.common.fastrng`): the deck shuffles at the start, the re-deal shuffles and the (never met in normal
play) pile refill draw from it, so a game is a plain value and a seed fixes it whatever the batch size. These are
*not* numpy's streams: a batched game and an AEC env seeded alike deal different cards.
:class:`envs.common.fastrng.MirrorRng` makes the reference engine draw the same shuffles as a batched row (each
shuffle is the same Fisher-Yates swaps applied to the reference's ascending card list), which is how the
differential tests keep both engines on one game.

Truncation: a row that reaches ``max_game_length`` plies without ending is truncated, as ``BarnyardAECEnv``
does (a Boaring game always ends before: at most ``38 (n + 1)`` decisions).

The ``greedy`` baseline runs here too (:meth:`BoaringBatched.greedy_actions`, every row at once; its Monte-Carlo
draws come from the row generators passed in, the decisions are GreedyPolicy's); the ``search`` baseline's
simulations run on these rows from ``search.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from envs.boaring import actions as A
from envs.boaring.actions import (
    ANIMAL_COUNTS,
    BID,
    BOAR,
    COPIES_PER_VALUE,
    EAT,
    HYENA,
    HYENA_BASE,
    LION,
    LION_BASE,
    NO_EAT,
    NUM_ANIMALS,
    NUM_FOOD,
    NUM_TYPES,
    NUM_VALUES,
    OVER,
)
from envs.boaring.kernels import (
    STATE,
    BoaringBatchedState,
    Tables,
    apply_row,
    copy_row,
    legal_ids,
    legal_row,
    mover_row,
    play_rows,
    random_action_row,
    rank_key_greater,
    returns_row,
    row_returns,
    start_round,
    wrap_seat,
)
from envs.boaring.observation import observe_rows, view_tables
from envs.boaring.rules import BoaringGame, BoaringState
from envs.common.fastrng import below, shuffle
from envs.common.jit import inline_jit, refcount_jit, row_jit
from envs.common.state import reset_fields
from envs.common.vector import BatchedGame

__all__ = [
    "BoaringBatched",
    "BoaringBatchedState",
    "Tables",
    "mover_row",
    "legal_row",
    "apply_row",
    "returns_row",
    "copy_row",
    "random_action_row",
    "hidden_counts_row",
    "animal_worth_row",
    "eat_choice_row",
    "closed_form_bid",
]
"""The batched engine, and what the search and the baselines import from here (the row functions are
:mod:`envs.boaring.kernels`')."""

ANIMALS = np.array(ANIMAL_COUNTS, dtype=np.int64)


# ----- kernels: rules over whole batches -------------------------------------------------------------------------


@refcount_jit
def _reset_kernel(st, rows: np.ndarray, n: int, deal_size: int) -> None:
    """A new game in each of ``rows``: every field but the generator fresh (``kernels.STATE``'s reset), then both
    decks shuffled (animals first, as the reference draws), hands dealt, the first animal and food card turned up."""
    hands, hand_size, food_pile, pile_len = st.hands, st.hand_size, st.food_pile, st.pile_len
    animal_deck, deck_len, animals_left, rng = st.animal_deck, st.deck_len, st.animals_left, st.rng
    cards = np.empty(NUM_FOOD, dtype=np.int8)
    for r in range(rows.shape[0]):
        b = rows[r]
        reset_fields(st, b)
        m = 0
        for t in range(NUM_TYPES):
            for _ in range(ANIMALS[t]):
                animal_deck[b, m] = t
                m += 1
            animals_left[b, t] = ANIMALS[t]
        shuffle(rng, b, animal_deck[b])
        deck_len[b] = NUM_ANIMALS
        m = 0
        for i in range(NUM_VALUES):
            for _ in range(COPIES_PER_VALUE):
                cards[m] = i + 1
                m += 1
        shuffle(rng, b, cards)
        for p in range(n):
            for j in range(p * deal_size, (p + 1) * deal_size):
                hands[b, p, cards[j] - 1] += 1
            hand_size[b, p] = deal_size
        rest = NUM_FOOD - n * deal_size
        for i in range(rest):
            food_pile[b, i] = cards[n * deal_size + i]
        pile_len[b] = rest
        start_round(st, b)


# ----- kernels: what a seat may do ---------------------------------------------------------------------------------


@refcount_jit
def _mask_kernel(st, n: int, out: np.ndarray) -> None:
    """Per row: bid phase, the values in the mover's hand; eat phase, 'no eat' and every available target."""
    phase, current, hands, eater, animal = st.phase, st.current, st.hands, st.eater, st.animal
    graveyard, savanna = st.graveyard, st.savanna
    for b in range(out.shape[0]):
        for a in range(out.shape[1]):
            out[b, a] = False
        if phase[b] == BID:
            seat = current[b]
            for i in range(NUM_VALUES):
                out[b, i] = hands[b, seat, i] > 0
        elif phase[b] == EAT:
            e = eater[b]
            out[b, NO_EAT] = True
            if animal[b] == HYENA:
                for t in range(NUM_TYPES):
                    out[b, HYENA_BASE + t] = graveyard[b, e, t] > 0
            elif animal[b] == LION:
                for o in range(1, n):
                    p = wrap_seat(e + o, n)
                    for t in range(NUM_TYPES):
                        out[b, LION_BASE + NUM_TYPES * (o - 1) + t] = savanna[b, p, t] > 0


@refcount_jit
def _returns_kernel(st, n: int, pairwise: bool, out: np.ndarray) -> None:
    """Terminal rewards as ``BoaringGame.returns`` per row (:func:`row_returns`); zeros in live rows."""
    phase, savanna, graveyard = st.phase, st.savanna, st.graveyard
    for b in range(out.shape[0]):
        if phase[b] == OVER:
            row_returns(savanna, graveyard, b, n, pairwise, out[b])
        else:
            for p in range(n):
                out[b, p] = 0.0


@refcount_jit
def _scores_kernel(st, n: int, out: np.ndarray) -> None:
    """Running scores: 2 per savanna animal, -1 per graveyard animal."""
    savanna, graveyard = st.savanna, st.graveyard
    for b in range(out.shape[0]):
        for p in range(n):
            sc = 0
            for t in range(NUM_TYPES):
                sc += 2 * savanna[b, p, t] - graveyard[b, p, t]
            out[b, p] = sc


# ----- kernels the baselines share (envs/boaring/baselines.py: greedy here, search in search.py) -------------------


@row_jit
def _hidden_counts(st, b: int, seat: int, counts: np.ndarray) -> None:
    """baselines._hidden_counts: food per value ``seat`` cannot locate, from public cards and its own hand only."""
    hands, discard, requirement, pending = st.hands, st.discard, st.requirement, st.pending
    for i in range(NUM_VALUES):
        counts[i] = COPIES_PER_VALUE - hands[b, seat, i] - discard[b, i]
    if requirement[b] > 0:
        counts[requirement[b] - 1] -= 1
    own = pending[b, seat]
    if own > 0:
        counts[own - 1] -= 1
    for i in range(NUM_VALUES):
        if counts[i] < 0:
            counts[i] = 0


@row_jit
def _animal_worth(st, b: int, seat: int, n: int) -> float:
    """baselines.animal_worth: 2, plus 1 for a hyena / lion that would have something to eat."""
    animal, graveyard, savanna = st.animal, st.graveyard, st.savanna
    w = 2.0
    if animal[b] == HYENA:
        for t in range(NUM_TYPES):
            if graveyard[b, seat, t] > 0:
                return w + 1.0
    elif animal[b] == LION:
        for p in range(n):
            if p != seat:
                for t in range(NUM_TYPES):
                    if savanna[b, p, t] > 0:
                        return w + 1.0
    return w


@row_jit
def _eat_choice(st, b: int, seat: int, n: int) -> int:
    """baselines.eat_choice: a hyena eats from its graveyard, a lion from the leading rival (boar, lion, hyena)."""
    animal, graveyard, savanna = st.animal, st.graveyard, st.savanna
    if animal[b] == HYENA:
        for t in (BOAR, LION, HYENA):
            if graveyard[b, seat, t] > 0:
                return HYENA_BASE + t
        return NO_EAT
    best = -1
    for o in range(1, n):
        p = wrap_seat(seat + o, n)
        if savanna[b, p, 0] + savanna[b, p, 1] + savanna[b, p, 2] > 0 and (
            best < 0 or rank_key_greater(savanna, graveyard, b, p, wrap_seat(seat + best, n))
        ):
            best = o
    if best < 0:
        return NO_EAT
    p = wrap_seat(seat + best, n)
    for t in (BOAR, LION, HYENA):
        if savanna[b, p, t] > 0:
            return LION_BASE + NUM_TYPES * (best - 1) + t
    return NO_EAT


# ----- kernels: the `greedy` baseline (envs/boaring/baselines.py GreedyPolicy) ----------------------------------
# GreedyPolicy.act compiled: the same decisions (a single legal action as is, eat_choice in the eat phase, the bid
# of highest bid_values EV, ties to the cheaper card); only the Monte-Carlo draws of the other bids come from the
# row's SplitMix64 stream instead of numpy's. The EV step (_greedy_bid) takes the draws as an argument, so the
# tests feed it the Python greedy's own draws and compare EV for EV.


@refcount_jit
def _greedy_draws(
    counts: np.ndarray, k: int, samples: int, rng: np.ndarray, row: int, pool: np.ndarray, draws: np.ndarray
) -> int:
    """``samples`` draws of the other ``k`` bids into ``draws[:samples, :k]``: each row a uniformly random ordered
    draw without replacement from the hidden pool (``counts`` copies of each value), as bid_values' argsort of
    uniform keys; one partial Fisher-Yates pass of ``k`` swaps per sample (``pool`` is scratch, size >= 70).
    Returns the columns drawn: ``min(k, pool size)``."""
    m = 0
    for i in range(NUM_VALUES):
        for _ in range(counts[i]):
            pool[m] = i + 1
            m += 1
    kk = min(k, m)
    for r in range(samples):
        for j in range(kk):
            x = j + below(rng, row, m - j)
            pool[j], pool[x] = pool[x], pool[j]
            draws[r, j] = pool[j]
    return kk


@refcount_jit
def _greedy_bid(st, b: int, seat: int, n: int, draws: np.ndarray, kk: int, card_cost: float, evs: np.ndarray) -> int:
    """baselines.bid_values on the given draws (``draws[r, j]``: the bid of the j-th other seat in seat order, as
    the Python columns), the same float operations; ``evs[i]`` the EV of value i + 1 (-inf when not in hand).
    Returns the action of the best value (ties to the cheaper card). Reads only public cards and ``seat``'s own."""
    hands, hand_size, active, requirement = st.hands, st.hand_size, st.active, st.requirement
    samples = draws.shape[0]
    me_p = wrap_seat(active[b] - seat, n)  # priority rank, 0 = highest
    need = np.int64(requirement[b]) * n
    worth = _animal_worth(st, b, seat, n)
    size = np.int64(hand_size[b, seat])
    hand_sum = 0
    for i in range(NUM_VALUES):
        hand_sum += (i + 1) * np.int64(hands[b, seat, i])
    mean_hand = hand_sum / max(size, 1)
    scale = (size - 1) / max(size, 1)
    top_live = np.zeros(NUM_VALUES, dtype=np.int64)  # samples where v lives and is the highest card
    low_dead = np.zeros(NUM_VALUES, dtype=np.int64)  # samples where v dies and is the lowest card
    above = np.zeros(max(kk, 1), dtype=np.bool_)  # others that win ties against me for the highest card
    j = 0
    for o in range(n):
        if o != seat:
            if j < kk:
                above[j] = wrap_seat(active[b] - o, n) < me_p
            j += 1
    for r in range(samples):
        total = 0
        max_above = max_rest = 0  # highest draw of the seats above / not above me (0: none)
        min_above = min_rest = NUM_VALUES + 1
        for j in range(kk):
            d = draws[r, j]
            total += d
            if above[j]:
                max_above = max(max_above, d)
                min_above = min(min_above, d)
            else:
                max_rest = max(max_rest, d)
                min_rest = min(min_rest, d)
        for i in range(NUM_VALUES):
            if hands[b, seat, i] > 0:
                v = i + 1
                if total + v >= need:
                    if v > max_above and v >= max_rest:
                        top_live[i] += 1
                elif v < min_rest and v <= min_above:
                    low_dead[i] += 1
    best, best_ev = 0, -np.inf
    for i in range(NUM_VALUES):
        evs[i] = -np.inf
        if hands[b, seat, i] > 0:
            ev = worth * (top_live[i] / samples) - low_dead[i] / samples
            evs[i] = ev - card_cost * scale * (i + 1 - mean_hand)
            if evs[i] > best_ev:
                best, best_ev = i, evs[i]
    return A.PLAY_BASE + best


@refcount_jit
def _greedy_kernel(
    st, n: int, num_actions: int, samples: int, card_cost: float, rng: np.ndarray, out: np.ndarray
) -> None:
    """GreedyPolicy.act for the seat to move in every row (-1 in finished rows), draws from ``rng[b]``."""
    phase, current = st.phase, st.current
    counts = np.empty(NUM_VALUES, dtype=np.int64)
    pool = np.empty(NUM_FOOD, dtype=np.int64)
    draws = np.empty((samples, max(n - 1, 1)), dtype=np.int64)
    evs = np.empty(NUM_VALUES)
    legal = np.empty(num_actions, dtype=np.int64)
    for b in range(phase.shape[0]):
        if phase[b] == OVER:
            out[b] = -1
            continue
        seat = current[b]
        if legal_ids(st, b, n, legal) == 1:  # a forced move: no draws
            out[b] = legal[0]
        elif phase[b] == EAT:
            out[b] = _eat_choice(st, b, seat, n)
        else:
            _hidden_counts(st, b, seat, counts)
            kk = _greedy_draws(counts, n - 1, samples, rng, b, pool, draws)
            out[b] = _greedy_bid(st, b, seat, n, draws, kk, card_cost, evs)


# ----- what the baselines share (envs/boaring/baselines.py, search.py) ---------------------------------------------
@inline_jit
def hidden_counts_row(st, tab, b, seat, counts):
    """Food per value that ``seat`` cannot locate in row ``b`` into ``counts`` (``baselines._hidden_counts``)."""
    _hidden_counts(st, b, seat, counts)


@inline_jit
def animal_worth_row(st, tab, b, seat):
    """What the animal on the table is worth to ``seat`` (``baselines.animal_worth``)."""
    return _animal_worth(st, b, seat, tab.num_players)


@inline_jit
def eat_choice_row(st, tab, b, seat):
    """The greedy eat decision of ``seat`` in row ``b`` (``baselines.eat_choice``)."""
    return _eat_choice(st, b, seat, tab.num_players)


@row_jit
def closed_form_bid(counts, hand, need, worth, size, k, card_cost):
    """The food value index (0-9) that greedy's bid rule in closed form plays (``baselines.fast_bid``, the search's
    opponent model and playout policy): the EV of each value in ``hand`` (counts per value) against ``k`` other
    bids drawn independently from the hidden pool ``counts`` (all ones when empty), ``need`` the food the animal
    needs, ``worth`` what it is worth, ``size`` the hand's size, ``card_cost`` the cost per value above the hand's
    mean. The one implementation: the Python baseline calls it too."""
    total = 0
    for i in range(NUM_VALUES):
        total += counts[i]
    empty = total == 0
    if empty:
        total = NUM_VALUES
    hand_sum = 0
    for i in range(NUM_VALUES):
        hand_sum += (i + 1) * np.int64(hand[i])
    mean_hand = hand_sum / max(size, 1)
    scale = card_cost * (size - 1) / max(size, 1)
    best, best_ev = 0, -np.inf
    below_n = below_s = below_q = 0.0  # count, sum, sum of squares of pool cards below v
    all_s = 0
    all_q = 0
    for i in range(NUM_VALUES):
        c = 1 if empty else counts[i]
        all_s += (i + 1) * c
        all_q += (i + 1) * (i + 1) * c
    for i in range(NUM_VALUES):
        v, c = i + 1, 1 if empty else counts[i]
        if hand[i] > 0:
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
    return best


# ----- the engine ----------------------------------------------------------------------------------------------


class BoaringBatched(BatchedGame):
    """Boaring over B games at once (options as :class:`~envs.boaring.rules.BoaringGame`; bad options raise its
    :class:`~envs.common.game.ConfigError`)."""

    name = "boaring"
    game_class = BoaringGame
    reference: BoaringGame
    state_layout = STATE

    def __init__(self, **options: Any):
        super().__init__(**options)
        ref = self.reference
        self.deal_size = ref.deal_size
        self.tables = Tables(
            num_players=self.num_players,
            deal_size=self.deal_size,
            pairwise=ref.reward == "pairwise",
            max_plies=self.max_game_length,
            work_rows=np.zeros(1, dtype=np.int64),
            work_actions=np.zeros(1, dtype=np.int64),
            work_legal=np.zeros(self.num_actions, dtype=np.int64),
            work_cards=np.zeros(NUM_FOOD, dtype=np.int8),
            work_strength=np.zeros(self.num_players, dtype=np.float64),
        )
        self.view = view_tables(self.num_players)
        """What the observation kernel reads besides the state (``observation.view_tables``)."""

    def state_sizes(self) -> dict[str, int]:
        """The named sizes of the declared state (``kernels.STATE``): the seats."""
        return {"players": self.num_players}

    def reset_rows(self, state: BoaringBatchedState, rows: np.ndarray) -> None:
        """A new game in each of ``rows`` (chance from each row's generator)."""
        _reset_kernel(state, np.asarray(rows, dtype=np.int64), self.num_players, self.deal_size)

    def legal_mask(self, state: BoaringBatchedState, out: np.ndarray) -> None:
        """The mover's legal mask per row into ``out`` (B, num_actions) bool; zeros in finished rows."""
        _mask_kernel(state, self.num_players, out)

    def apply(self, state: BoaringBatchedState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal, checked by the caller) in every live row; finished rows are left alone."""
        actions = np.asarray(actions, dtype=np.int64)
        play_rows(state, np.arange(actions.shape[0]), actions, self.num_players, self.deal_size, self.tables.work_cards)

    def apply_rows(self, state: BoaringBatchedState, rows: np.ndarray, actions: np.ndarray) -> None:
        """Play ``actions[j]`` in row ``rows[j]`` only, in place (the kernel :meth:`apply` runs over every row)."""
        play_rows(
            state,
            np.asarray(rows, dtype=np.int64),
            np.asarray(actions, dtype=np.int64),
            self.num_players,
            self.deal_size,
            self.tables.work_cards,
        )

    def observe(self, state: BoaringBatchedState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b`` seen from ``seats[b]`` into ``out[b]`` (float32, as the AEC env's observation)."""
        view = self.view
        observe_rows(
            state, np.asarray(seats, dtype=np.int64), self.num_players, view.offsets, view.scale, view.shift, out
        )

    def current_player(self, state: BoaringBatchedState) -> np.ndarray:
        """(B,) seat to move, TERMINAL (-1) where the game is over."""
        return state.current.astype(np.int64)

    def returns(self, state: BoaringBatchedState) -> np.ndarray:
        """(B, n) terminal rewards (zeros in live rows), as ``BoaringGame.returns``."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _returns_kernel(state, self.num_players, self.tables.pairwise, out)
        return out

    def truncated(self, state: BoaringBatchedState) -> np.ndarray:
        """(B,) live rows that reached ``max_game_length`` plies (the AEC env's safety net; never met in play)."""
        return (state.phase != OVER) & (state.plies >= self.max_game_length)

    def scores(self, state: BoaringBatchedState) -> np.ndarray:
        """(B, n) running scores: 2 per savanna animal, -1 per graveyard animal."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _scores_kernel(state, self.num_players, out)
        return out

    def shaping_potential(self, state: BoaringBatchedState) -> np.ndarray:
        """(B, n) as the reference ``Game.shaping_potential``: the running score."""
        return self.scores(state)

    # ----- the bridge to rules.py ----------------------------------------------------------------------------
    def to_reference(self, state: BoaringBatchedState, row: int) -> BoaringState:
        """Row ``row`` as a reference :class:`BoaringState` (the generator is not carried over)."""
        ref = BoaringState(players=self.num_players)
        STATE.to_reference(state, row, ref)
        return ref

    def from_reference(
        self, reference_state: BoaringState, state: BoaringBatchedState, row: int, plies: int | None = None
    ) -> None:
        """Write a full reference state into row ``row`` (the row's generator is kept). ``plies``: the decisions
        played so far, for truncation (default: inferred from the rounds and the commits, eat decisions not
        counted; only the truncation cap reads it)."""
        r = reference_state
        if (
            min(
                min(r.pending), min(min(h) for h in r.hands), min(r.food_pile, default=0), min(r.animal_deck, default=0)
            )
            < 0
        ):
            raise ValueError("from_reference needs a full state, not an information state (determinize it)")
        self.write_row(r, state, row, plies)

    def write_row(self, r: BoaringState, state: BoaringBatchedState, b: int, plies: int | None = None) -> None:
        """Every field of ``r`` into row ``b`` (``kernels.STATE``'s conversion), UNKNOWN (-1) placeholders of an
        information state included (the search's root: ``search.py`` determinizes copies of it);
        :meth:`from_reference` for full states."""
        STATE.from_reference(r, state, b)
        state.plies[b] = r.rounds * self.num_players + r.ncommitted if plies is None else plies

    has_greedy_actions = True
    greedy_samples: int = 128
    """Greedy: sampled bid vectors of the other players per decision (``baselines.SAMPLES``; a test keeps the two
    equal: baselines imports this module, so this module does not import baselines)."""
    greedy_card_cost: float = 0.3
    """Greedy: the card cost (``baselines.CARD_COST``, kept equal by the same test)."""

    def greedy_actions(self, state: BoaringBatchedState, rng: np.ndarray, out: np.ndarray) -> None:
        """The ``greedy`` baseline's action (baselines.GreedyPolicy) for the seat to move in every row into ``out``
        (B,) int64, -1 in finished rows, computed by :func:`_greedy_kernel`.

        The same decisions as GreedyPolicy: a forced move as is, :func:`_eat_choice` (= ``eat_choice``) in the eat
        phase, and the bid of highest ``bid_values`` EV (ties to the cheaper card) over ``greedy_samples`` sampled
        bid vectors of the other seats, drawn from the seat's hidden pool (public cards and its own hand only).
        Those Monte-Carlo draws come from ``rng[b]`` (a SplitMix64 state per row, advanced in place), not from
        numpy's generator, so a seeded compiled greedy does not reproduce a seeded Python greedy move for move;
        given the same draws the EVs are bit-identical (tests/boaring/test_boaring_greedy.py)."""
        batch = state.phase.shape[0]
        if rng.dtype != np.uint64 or rng.shape != (batch,) or out.dtype != np.int64 or out.shape != (batch,):
            raise ValueError(
                f"greedy_actions needs rng uint64 ({batch},) and out int64 ({batch},), got rng "
                f"{rng.dtype}{rng.shape} and out {out.dtype}{out.shape}"
            )
        _greedy_kernel(
            state, self.num_players, self.num_actions, int(self.greedy_samples), float(self.greedy_card_cost), rng, out
        )
