"""Boaring's batched engine: B games per call on struct-of-arrays state, every per-step loop a numba kernel.

The rules are those of :mod:`envs.boaring.rules` (the readable reference it is tested against, move by move, in
``tests/boaring/test_boaring_fast.py``), with the same options, the same action ids and the same observation
vector (float32, bit for bit, from any seat, hidden information filtered exactly as
:func:`envs.boaring.observation.encode` does: a seat sees its own hand and own pending card, and of the others
only that they have committed, never what).

State (:class:`BoaringBatchedState`): one row per game. Piles are arrays with a length, the top card last, as the
reference's lists. The ``rng`` field is the row's SplitMix64 generator (:mod:`envs.common.fastrng`): the deck
shuffles at the start, the re-deal shuffles and the (never met in normal play) pile refill draw from it, so a
game is a plain value and a seed fixes it whatever the batch size. These are *not* numpy's streams: a batched
game and an AEC env seeded alike deal different cards. :class:`envs.common.fastrng.MirrorRng` makes the
reference engine draw the same shuffles as a batched row (each shuffle is the same Fisher-Yates swaps applied to
the reference's ascending card list), which is how the differential tests keep both engines on one game.

Truncation: a row that reaches ``max_game_length`` plies without ending is truncated, as ``BarnyardAECEnv``
does (a Boaring game always ends before: at most ``38 (n + 1)`` decisions).

The end-of-game "active" seat is decided in one place, ``_active_when_over`` / ``_observed_active`` below.

The ``greedy`` baseline runs here too (:meth:`BoaringBatched.greedy_actions`, every row at once; its Monte-Carlo
draws come from the row generators passed in, the decisions are GreedyPolicy's); the ``search`` baseline's
simulations run on these rows from ``search.py``.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from envs.boaring import actions as A
from envs.boaring.actions import ANIMAL_COUNTS, BID, COPIES_PER_VALUE, DIED, EAT, LIVED, NUM_ANIMALS, NUM_FOOD, OVER
from envs.boaring.rules import BoaringGame, BoaringState
from envs.common.fastrng import below, shuffle
from envs.common.game import TERMINAL
from envs.common.jit import inline_jit, refcount_jit, row_jit
from envs.common.vector import BatchedGame

NUM_VALUES = A.NUM_VALUES
NUM_TYPES = A.NUM_TYPES
BOAR, HYENA, LION = A.BOAR, A.HYENA, A.LION
NO_EAT, HYENA_BASE, LION_BASE = A.NO_EAT, A.HYENA_BASE, A.LION_BASE
ANIMALS = np.array(ANIMAL_COUNTS, dtype=np.int64)


class BoaringBatchedState(NamedTuple):
    """B Boaring games, one row each (the reference :class:`~envs.boaring.rules.BoaringState`'s fields)."""

    hands: np.ndarray  # (B, n, 10) int8: count of each food value in hand
    hand_size: np.ndarray  # (B, n) int8
    pending: np.ndarray  # (B, n) int8: card laid this round, 0 none yet
    ncommitted: np.ndarray  # (B,) int8
    food_pile: np.ndarray  # (B, 70) int8: values, bottom first; the top is food_pile[pile_len - 1]
    pile_len: np.ndarray  # (B,) int8
    discard: np.ndarray  # (B, 10) int8: count per value
    animal_deck: np.ndarray  # (B, 38) int8: types, bottom first; the top is animal_deck[deck_len - 1]
    deck_len: np.ndarray  # (B,) int8
    animals_left: np.ndarray  # (B, 3) int8: the deck by type
    active: np.ndarray  # (B,) int8
    animal: np.ndarray  # (B,) int8: -1 none
    requirement: np.ndarray  # (B,) int8: the turned food card, 0 none
    phase: np.ndarray  # (B,) int8: BID, EAT, OVER
    eater: np.ndarray  # (B,) int8: -1 none
    current: np.ndarray  # (B,) int8: seat to act, -1 (TERMINAL) when over
    savanna: np.ndarray  # (B, n, 3) int8
    graveyard: np.ndarray  # (B, n, 3) int8
    eaten: np.ndarray  # (B, 3) int8
    last_played: np.ndarray  # (B, n) int8
    last_animal: np.ndarray  # (B,) int8
    last_requirement: np.ndarray  # (B,) int8
    last_outcome: np.ndarray  # (B,) int8: NOT_DIED, LIVED, DIED
    last_receiver: np.ndarray  # (B,) int8
    rounds: np.ndarray  # (B,) int16
    deals: np.ndarray  # (B,) int16
    plies: np.ndarray  # (B,) int32: decisions applied (the AEC env's num_plies)
    rng: np.ndarray  # (B,) uint64: the row's generator


class Tables(NamedTuple):
    """The engine's constants and work buffers, as the row functions read them (one call at a time per engine)."""

    num_players: int
    deal_size: int
    """Food cards dealt to each hand."""
    pairwise: bool
    """The reward option: pairwise ranks (True) or score minus the mean."""
    max_plies: int
    """The ply cap (``max_game_length``): a row reaching it is cut (``mover_row`` -1)."""
    work_rows: np.ndarray
    """(1,) int64 work: ``apply_row``'s row."""
    work_actions: np.ndarray
    """(1,) int64 work: ``apply_row``'s action."""
    work_legal: np.ndarray
    """(num_actions,) int64 work: a legal action list."""
    work_cards: np.ndarray
    """(NUM_FOOD,) int8 work: the cards of a re-deal."""
    work_strength: np.ndarray
    """(num_players,) float64 work: the search's leaf strengths."""


@njit(cache=True, inline="always")
def _seat(x: int, n: int) -> int:
    """``x % n`` for ``-n <= x < 2 n`` without a division (numba's Python-style ``%`` costs about 100 ns)."""
    if x < 0:
        return x + n
    if x >= n:
        return x - n
    return x


# ----- the end-of-game "active" seat: the one place that decides it -------------------------------------------
# Today's reference (rules.py ``_end_round``) passes the turn before it notices that the deck is empty, so in a
# finished game ``active`` (and the observation's "active" block, which reads it) points to the seat *after* the
# last active player. Both functions below reproduce that; if the reference changes, change them (and only them).


@njit(cache=True, inline="always")
def _active_when_over(last_active: int, n: int) -> int:
    """The stored ``active`` seat of a finished game whose last round had ``last_active`` as active player."""
    return last_active  # the turn does not pass after the last round (RULES.md)


@njit(cache=True, inline="always")
def _observed_active(phase: int, active: int, n: int) -> int:
    """The absolute seat that the observation's "active" block shows (the stored ``active``, also when over)."""
    return active


# ----- kernels: rules ------------------------------------------------------------------------------------------
# Speed note: every kernel reads the state's arrays into locals once, before its loop over the rows. Passing the
# NamedTuple (or many arrays) to a helper per row makes numba count references to each array at each call, about
# 1 us a row; the helpers below are called once a round (start) or once a deal (re-deal).


@njit(cache=True, inline="always")
def _start_round(s, b: int) -> None:
    """'The player whose turn it is lays the top animal- and food card open on the table.'"""
    deck_len, food_pile, pile_len, discard = s.deck_len, s.food_pile, s.pile_len, s.discard
    top = deck_len[b] - 1
    a = s.animal_deck[b, top]
    deck_len[b] = top
    s.animal[b] = a
    s.animals_left[b, a] -= 1
    if pile_len[b] == 0:
        # reading: an empty food pile is refilled from the shuffled discard (ascending, then shuffled)
        m = 0
        for i in range(NUM_VALUES):
            for _ in range(discard[b, i]):
                food_pile[b, m] = i + 1
                m += 1
            discard[b, i] = 0
        shuffle(s.rng, b, food_pile[b, :m])
        pile_len[b] = m
    top = pile_len[b] - 1
    s.requirement[b] = food_pile[b, top]
    pile_len[b] = top
    s.current[b] = s.active[b]


@njit(cache=True, inline="always")
def _redeal(s, b: int, n: int, deal_size: int, cards: np.ndarray) -> None:
    """'If the food cards in the hands of the players run out before the animal cards are gone, the food cards
    that left the game are shuffled and distributed as during the preparation of the game limited to the amount
    of cards that is present in the animal deck': the discard (ascending, then shuffled) dealt, each hand
    capped at the animals in the deck; the undealt rest goes under the pile."""
    hands, hand_size, discard, food_pile, pile_len = s.hands, s.hand_size, s.discard, s.food_pile, s.pile_len
    k = min(deal_size, s.deck_len[b])
    m = 0
    for i in range(NUM_VALUES):
        for _ in range(discard[b, i]):
            cards[m] = i + 1
            m += 1
        discard[b, i] = 0
    old = pile_len[b]
    if m < n * k:  # cannot happen with 70 cards (RULES.md); the reference's fallback
        for i in range(old):
            cards[m + i] = food_pile[b, i]
        m += old
        old = 0
    shuffle(s.rng, b, cards[:m])
    for p in range(n):
        for i in range(NUM_VALUES):
            hands[b, p, i] = 0
        for j in range(p * k, (p + 1) * k):
            hands[b, p, cards[j] - 1] += 1
        hand_size[b, p] = k
    rest = m - n * k
    for i in range(old - 1, -1, -1):  # the old pile moves up; the undealt cards go under it
        food_pile[b, rest + i] = food_pile[b, i]
    for i in range(rest):
        food_pile[b, i] = cards[n * k + i]
    pile_len[b] = rest + old
    s.deals[b] += 1


@row_jit
def _apply_rows(s, rows: np.ndarray, actions: np.ndarray, n: int, deal_size: int, cards: np.ndarray) -> None:
    """Play ``actions[j]`` (legal) in row ``rows[j]`` (a finished row is left alone): commit a card, resolve the
    round when the last card is in, take the eat decision, end the round (discard, pass the turn, re-deal, turn
    up the next cards; ``cards``: work, NUM_FOOD int8)."""
    hands, hand_size, pending, ncommitted = s.hands, s.hand_size, s.pending, s.ncommitted
    discard, deck_len, active, animal, requirement = s.discard, s.deck_len, s.active, s.animal, s.requirement
    phase = s.phase
    eater, current, savanna, graveyard, eaten = s.eater, s.current, s.savanna, s.graveyard, s.eaten
    last_played, last_animal, last_requirement = s.last_played, s.last_animal, s.last_requirement
    last_outcome, last_receiver, rounds, plies = s.last_outcome, s.last_receiver, s.rounds, s.plies
    for j in range(rows.shape[0]):
        b = rows[j]
        action = actions[j]
        if phase[b] == BID:
            # "Every player plays a food card of choice by laying it upside down on the table."
            seat = current[b]
            hands[b, seat, action] -= 1
            hand_size[b, seat] -= 1
            pending[b, seat] = action + 1
            ncommitted[b] += 1
            plies[b] += 1
            if ncommitted[b] < n:
                current[b] = _seat(seat + 1, n)
                continue
            # All cards are in: reveal them. "In the case of equal deciding food cards, the deciding card of the
            # person whose turn it is - followed by the players whose turn it was most recently in consecutive
            # order - as the higher value card."
            act = active[b]
            a = animal[b]
            for p in range(n):
                last_played[b, p] = pending[b, p]
            last_animal[b] = a
            last_requirement[b] = requirement[b]
            best = worst = act
            best_v = worst_v = pending[b, act]
            total = np.int64(best_v)
            for k in range(1, n):
                p = _seat(act - k, n)
                v = pending[b, p]
                total += v
                if v > best_v:
                    best, best_v = p, v
                if v <= worst_v:
                    worst, worst_v = p, v
            # "The value of the food card multiplied by the number of players is the minimum amount of food"
            if total >= np.int64(requirement[b]) * n:
                last_outcome[b] = LIVED
                last_receiver[b] = best
                can_eat = False
                if a == HYENA:
                    for t in range(NUM_TYPES):
                        can_eat |= graveyard[b, best, t] > 0
                elif a == LION:
                    for p in range(n):
                        if p != best:
                            for t in range(NUM_TYPES):
                                can_eat |= savanna[b, p, t] > 0
                if can_eat:
                    phase[b] = EAT
                    eater[b] = best
                    current[b] = best
                    continue
                savanna[b, best, a] += 1
            else:
                # "The player who put in the lowest amount of food receives the dead animal on his/her graveyard."
                last_outcome[b] = DIED
                last_receiver[b] = worst
                graveyard[b, worst, a] += 1
        elif phase[b] == EAT:
            e = eater[b]
            plies[b] += 1
            if action >= LION_BASE:
                # "A lion can directly eat an animal from a savanna of someone else, before continuing..."
                rel = action - LION_BASE
                t = rel % NUM_TYPES
                savanna[b, _seat(e + rel // NUM_TYPES + 1, n), t] -= 1
                eaten[b, t] += 1
            elif action >= HYENA_BASE:
                # "A hyena can directly eat an animal of your graveyard, before continuing to your savanna."
                t = action - HYENA_BASE
                graveyard[b, e, t] -= 1
                eaten[b, t] += 1
            savanna[b, e, animal[b]] += 1
        else:
            continue  # a finished game: the action is ignored
        # End of the round. "At the end of a turn all open food cards on the table leave the game."
        for p in range(n):
            discard[b, pending[b, p] - 1] += 1
            pending[b, p] = 0
        discard[b, requirement[b] - 1] += 1
        ncommitted[b] = 0
        animal[b] = -1
        requirement[b] = 0
        phase[b] = BID
        eater[b] = -1
        rounds[b] += 1
        if deck_len[b] == 0:  # "The game ends when all animal cards are gone."
            active[b] = _active_when_over(active[b], n)
            phase[b] = OVER
            current[b] = TERMINAL
            continue
        active[b] = _seat(active[b] + 1, n)
        if hand_size[b, 0] == 0:
            _redeal(s, b, n, deal_size, cards)
        _start_round(s, b)


@refcount_jit
def _reset_kernel(s, rows: np.ndarray, n: int, deal_size: int) -> None:
    """A new game in each of ``rows``: both decks shuffled (animals first, as the reference draws), hands dealt,
    the first animal and food card turned up."""
    hands, hand_size, pending, food_pile, pile_len = s.hands, s.hand_size, s.pending, s.food_pile, s.pile_len
    discard, animal_deck, deck_len, animals_left = s.discard, s.animal_deck, s.deck_len, s.animals_left
    savanna, graveyard, eaten, last_played, rng = s.savanna, s.graveyard, s.eaten, s.last_played, s.rng
    cards = np.empty(NUM_FOOD, dtype=np.int8)
    for r in range(rows.shape[0]):
        b = rows[r]
        m = 0
        for t in range(NUM_TYPES):
            for _ in range(ANIMALS[t]):
                animal_deck[b, m] = t
                m += 1
            animals_left[b, t] = ANIMALS[t]
            eaten[b, t] = 0
        shuffle(rng, b, animal_deck[b])
        deck_len[b] = NUM_ANIMALS
        m = 0
        for i in range(NUM_VALUES):
            for _ in range(COPIES_PER_VALUE):
                cards[m] = i + 1
                m += 1
            discard[b, i] = 0
        shuffle(rng, b, cards)
        for p in range(n):
            for i in range(NUM_VALUES):
                hands[b, p, i] = 0
            for j in range(p * deal_size, (p + 1) * deal_size):
                hands[b, p, cards[j] - 1] += 1
            hand_size[b, p] = deal_size
            pending[b, p] = 0
            last_played[b, p] = 0
            for t in range(NUM_TYPES):
                savanna[b, p, t] = 0
                graveyard[b, p, t] = 0
        rest = NUM_FOOD - n * deal_size
        for i in range(rest):
            food_pile[b, i] = cards[n * deal_size + i]
        pile_len[b] = rest
        s.ncommitted[b] = 0
        s.active[b] = 0
        s.phase[b] = BID
        s.eater[b] = -1
        s.last_animal[b] = -1
        s.last_requirement[b] = 0
        s.last_outcome[b] = 0
        s.last_receiver[b] = -1
        s.rounds[b] = 0
        s.deals[b] = 0
        s.plies[b] = 0
        _start_round(s, b)


# ----- kernels: what a seat may do and see ---------------------------------------------------------------------


@refcount_jit
def _mask_kernel(s, n: int, out: np.ndarray) -> None:
    """Per row: bid phase, the values in the mover's hand; eat phase, 'no eat' and every available target."""
    phase, current, hands, eater, animal = s.phase, s.current, s.hands, s.eater, s.animal
    graveyard, savanna = s.graveyard, s.savanna
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
                    p = _seat(e + o, n)
                    for t in range(NUM_TYPES):
                        out[b, LION_BASE + NUM_TYPES * (o - 1) + t] = savanna[b, p, t] > 0


@refcount_jit
def _observe_kernel(
    s, seats: np.ndarray, n: int, off: np.ndarray, scale: np.ndarray, shift: np.ndarray, out: np.ndarray
) -> None:
    """Row ``b`` seen from ``seats[b]`` into ``out[b]``: :func:`envs.boaring.observation.encode` step for step.

    The reference gathers small non-negative ints (the score shifted by +38) and computes ``float32(raw) * scale
    - shift``; each entry here is written with that same float32 expression (``one`` for a one-hot entry: scale 1,
    shift 0), so the values are bit-identical. Only the seat's own hand and pending card are read; of the others,
    whether they committed, never what.
    """
    hands, hand_size, pending, phase, animal = s.hands, s.hand_size, s.pending, s.phase, s.animal
    requirement, active, current, last_played, savanna = s.requirement, s.active, s.current, s.last_played, s.savanna
    graveyard, last_animal, last_outcome, last_receiver = s.graveyard, s.last_animal, s.last_outcome, s.last_receiver
    last_requirement, discard, animals_left, eaten, pile_len = (
        s.last_requirement,
        s.discard,
        s.animals_left,
        s.eaten,
        s.pile_len,
    )
    one = np.float32(1.0)  # a one-hot entry: scale 1, shift 0
    for b in range(out.shape[0]):
        seat = seats[b]
        for i in range(out.shape[1]):
            out[b, i] = 0.0
        for i in range(NUM_VALUES):
            out[b, i] = np.float32(hands[b, seat, i]) * scale[i] - shift[i]
        mine = pending[b, seat]
        if mine > 0:
            out[b, off[1] + mine - 1] = one
        out[b, off[2] + phase[b]] = one
        if animal[b] >= 0:
            out[b, off[3] + animal[b]] = one
        if requirement[b] > 0:
            out[b, off[4] + requirement[b] - 1] = one
        out[b, off[5] + _seat(_observed_active(phase[b], active[b], n) - seat, n)] = one
        mover = current[b]
        if mover >= 0:
            out[b, off[6] + _seat(mover - seat, n)] = one
        base = off[13]
        for k in range(n):
            q = _seat(seat + k, n)
            if pending[b, q] != 0:  # that the seat has committed, not what
                out[b, off[7] + k] = one
            v = last_played[b, q]
            if v > 0:
                out[b, off[8] + k * NUM_VALUES + v - 1] = one
            score = 38
            for t in range(NUM_TYPES):
                sv = savanna[b, q, t]
                gv = graveyard[b, q, t]
                out[b, base + t] = np.float32(sv) * scale[base + t] - shift[base + t]
                out[b, base + 3 + t] = np.float32(gv) * scale[base + 3 + t] - shift[base + 3 + t]
                score += 2 * sv - gv
            out[b, base + 6] = np.float32(hand_size[b, q]) * scale[base + 6] - shift[base + 6]
            out[b, base + 7] = np.float32(score) * scale[base + 7] - shift[base + 7]
            base += 8
        if last_animal[b] >= 0:
            out[b, off[9] + last_animal[b]] = one
            out[b, off[10] + last_outcome[b] - 1] = one
            out[b, off[11] + _seat(last_receiver[b] - seat, n)] = one
            out[b, off[12] + last_requirement[b] - 1] = one
        for i in range(off[14], off[14] + NUM_VALUES):
            out[b, i] = np.float32(discard[b, i - off[14]]) * scale[i] - shift[i]
        for t in range(NUM_TYPES):
            i = off[15] + t
            out[b, i] = np.float32(animals_left[b, t]) * scale[i] - shift[i]
            i = off[16] + t
            out[b, i] = np.float32(eaten[b, t]) * scale[i] - shift[i]
        i = off[17]
        out[b, i] = np.float32(pile_len[b]) * scale[i] - shift[i]


# ----- kernels: results ----------------------------------------------------------------------------------------


@inline_jit
def _rank_key_greater(savanna, graveyard, b: int, i: int, j: int) -> bool:
    """Whether seat i's rank key (score, savanna boars, lions, hyenas) is greater than seat j's."""
    si = sj = 0
    for t in range(NUM_TYPES):
        si += 2 * savanna[b, i, t] - graveyard[b, i, t]
        sj += 2 * savanna[b, j, t] - graveyard[b, j, t]
    if si != sj:
        return si > sj
    for t in (BOAR, LION, HYENA):
        if savanna[b, i, t] != savanna[b, j, t]:
            return savanna[b, i, t] > savanna[b, j, t]
    return False


@row_jit
def _row_returns(savanna, graveyard, b: int, n: int, pairwise: bool, out: np.ndarray) -> None:
    """BoaringGame.returns of a finished row ``b`` into ``out`` (n,): pairwise over the rank keys, or each score
    minus the mean score."""
    if not pairwise:
        total = 0.0
        for p in range(n):
            sc = 0
            for t in range(NUM_TYPES):
                sc += 2 * savanna[b, p, t] - graveyard[b, p, t]
            out[p] = sc
            total += sc
        mean = total / n
        for p in range(n):
            out[p] = out[p] - mean
        return
    for p in range(n):
        out[p] = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if _rank_key_greater(savanna, graveyard, b, i, j):
                out[i] += 1.0
                out[j] -= 1.0
            elif _rank_key_greater(savanna, graveyard, b, j, i):
                out[j] += 1.0
                out[i] -= 1.0
    for p in range(n):
        out[p] = out[p] / (n - 1)


@refcount_jit
def _returns_kernel(s, n: int, pairwise: bool, out: np.ndarray) -> None:
    """Terminal rewards as ``BoaringGame.returns`` per row (:func:`_row_returns`); zeros in live rows."""
    phase, savanna, graveyard = s.phase, s.savanna, s.graveyard
    for b in range(out.shape[0]):
        if phase[b] == OVER:
            _row_returns(savanna, graveyard, b, n, pairwise, out[b])
        else:
            for p in range(n):
                out[b, p] = 0.0


@refcount_jit
def _scores_kernel(s, n: int, out: np.ndarray) -> None:
    """Running scores: 2 per savanna animal, -1 per graveyard animal."""
    savanna, graveyard = s.savanna, s.graveyard
    for b in range(out.shape[0]):
        for p in range(n):
            sc = 0
            for t in range(NUM_TYPES):
                sc += 2 * savanna[b, p, t] - graveyard[b, p, t]
            out[b, p] = sc


# ----- kernels the baselines share (envs/boaring/baselines.py: greedy here, search in search.py) -------------------


@row_jit
def _hidden_counts(s, b: int, seat: int, counts: np.ndarray) -> None:
    """baselines._hidden_counts: food per value ``seat`` cannot locate, from public cards and its own hand only."""
    hands, discard, requirement, pending = s.hands, s.discard, s.requirement, s.pending
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
def _animal_worth(s, b: int, seat: int, n: int) -> float:
    """baselines.animal_worth: 2, plus 1 for a hyena / lion that would have something to eat."""
    animal, graveyard, savanna = s.animal, s.graveyard, s.savanna
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
def _eat_choice(s, b: int, seat: int, n: int) -> int:
    """baselines.eat_choice: a hyena eats from its graveyard, a lion from the leading rival (boar, lion, hyena)."""
    animal, graveyard, savanna = s.animal, s.graveyard, s.savanna
    if animal[b] == HYENA:
        for t in (BOAR, LION, HYENA):
            if graveyard[b, seat, t] > 0:
                return HYENA_BASE + t
        return NO_EAT
    best = -1
    for o in range(1, n):
        p = _seat(seat + o, n)
        if savanna[b, p, 0] + savanna[b, p, 1] + savanna[b, p, 2] > 0 and (
            best < 0 or _rank_key_greater(savanna, graveyard, b, p, _seat(seat + best, n))
        ):
            best = o
    if best < 0:
        return NO_EAT
    p = _seat(seat + best, n)
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
def _greedy_bid(s, b: int, seat: int, n: int, draws: np.ndarray, kk: int, card_cost: float, evs: np.ndarray) -> int:
    """baselines.bid_values on the given draws (``draws[r, j]``: the bid of the j-th other seat in seat order, as
    the Python columns), the same float operations; ``evs[i]`` the EV of value i + 1 (-inf when not in hand).
    Returns the action of the best value (ties to the cheaper card). Reads only public cards and ``seat``'s own."""
    hands, hand_size, active, requirement = s.hands, s.hand_size, s.active, s.requirement
    samples = draws.shape[0]
    me_p = _seat(active[b] - seat, n)  # priority rank, 0 = highest
    need = np.int64(requirement[b]) * n
    worth = _animal_worth(s, b, seat, n)
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
                above[j] = _seat(active[b] - o, n) < me_p
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
    s, n: int, num_actions: int, samples: int, card_cost: float, rng: np.ndarray, out: np.ndarray
) -> None:
    """GreedyPolicy.act for the seat to move in every row (-1 in finished rows), draws from ``rng[b]``."""
    phase, current = s.phase, s.current
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
        if _legal_row(s, b, n, legal) == 1:  # a forced move: no draws
            out[b] = legal[0]
        elif phase[b] == EAT:
            out[b] = _eat_choice(s, b, seat, n)
        else:
            _hidden_counts(s, b, seat, counts)
            kk = _greedy_draws(counts, n - 1, samples, rng, b, pool, draws)
            out[b] = _greedy_bid(s, b, seat, n, draws, kk, card_cost, evs)


@row_jit
def _legal_row(s, b: int, n: int, out: np.ndarray) -> int:
    """The legal action ids of row ``b`` into ``out`` (ascending); returns how many."""
    phase, current, hands, eater, animal = s.phase, s.current, s.hands, s.eater, s.animal
    graveyard, savanna = s.graveyard, s.savanna
    k = 0
    if phase[b] == BID:
        for i in range(NUM_VALUES):
            if hands[b, current[b], i] > 0:
                out[k] = i
                k += 1
    elif phase[b] == EAT:
        e = eater[b]
        out[0] = NO_EAT
        k = 1
        if animal[b] == HYENA:
            for t in range(NUM_TYPES):
                if graveyard[b, e, t] > 0:
                    out[k] = HYENA_BASE + t
                    k += 1
        elif animal[b] == LION:
            for o in range(1, n):
                p = _seat(e + o, n)
                for t in range(NUM_TYPES):
                    if savanna[b, p, t] > 0:
                        out[k] = LION_BASE + NUM_TYPES * (o - 1) + t
                        k += 1
    return k


# ----- the row functions of every engine (envs.common.fastsearch.ROW_FUNCTIONS) ------------------------------------
@inline_jit
def mover_row(st, tab, b):
    """The seat to act in row ``b``, -1 when the game is over or at the ply cap."""
    if st.phase[b] == OVER or st.plies[b] >= tab.max_plies:
        return -1
    return np.int64(st.current[b])


@inline_jit
def legal_actions_row(st, tab, b, out):
    """The legal action ids of row ``b`` into ``out`` (ascending); returns how many."""
    return _legal_row(st, b, tab.num_players, out)


@row_jit
def legal_row(st, tab, b, out):
    """The mover's legal mask of row ``b`` into ``out`` (bool per action; all False when over); returns how many
    are legal."""
    out[:] = False
    if st.phase[b] == OVER:
        return 0
    k = _legal_row(st, b, tab.num_players, tab.work_legal)
    for i in range(k):
        out[tab.work_legal[i]] = True
    return k


@inline_jit
def apply_row(st, tab, b, a):
    """Play legal action ``a`` in live row ``b`` (re-deals and refills shuffled from ``st.rng[b]``)."""
    tab.work_rows[0] = b
    tab.work_actions[0] = a
    _apply_rows(st, tab.work_rows, tab.work_actions, tab.num_players, tab.deal_size, tab.work_cards)


@inline_jit
def returns_row(st, tab, b, out):
    """``BoaringGame.returns`` of finished row ``b`` into ``out`` (num_players float64)."""
    _row_returns(st.savanna, st.graveyard, b, tab.num_players, tab.pairwise, out)


@row_jit
def copy_row(st, tab, src, dst):
    """Row ``src`` of every field but the generator into row ``dst`` (element by element: a slice assignment may
    allocate, which a function without reference counting may not)."""
    n = tab.num_players
    for p in range(n):
        for i in range(NUM_VALUES):
            st.hands[dst, p, i] = st.hands[src, p, i]
        for t in range(NUM_TYPES):
            st.savanna[dst, p, t] = st.savanna[src, p, t]
            st.graveyard[dst, p, t] = st.graveyard[src, p, t]
        st.hand_size[dst, p] = st.hand_size[src, p]
        st.pending[dst, p] = st.pending[src, p]
        st.last_played[dst, p] = st.last_played[src, p]
    for i in range(st.food_pile.shape[1]):
        st.food_pile[dst, i] = st.food_pile[src, i]
    for i in range(st.animal_deck.shape[1]):
        st.animal_deck[dst, i] = st.animal_deck[src, i]
    for i in range(NUM_VALUES):
        st.discard[dst, i] = st.discard[src, i]
    for t in range(NUM_TYPES):
        st.animals_left[dst, t] = st.animals_left[src, t]
        st.eaten[dst, t] = st.eaten[src, t]
    st.ncommitted[dst] = st.ncommitted[src]
    st.pile_len[dst] = st.pile_len[src]
    st.deck_len[dst] = st.deck_len[src]
    st.active[dst] = st.active[src]
    st.animal[dst] = st.animal[src]
    st.requirement[dst] = st.requirement[src]
    st.phase[dst] = st.phase[src]
    st.eater[dst] = st.eater[src]
    st.current[dst] = st.current[src]
    st.last_animal[dst] = st.last_animal[src]
    st.last_requirement[dst] = st.last_requirement[src]
    st.last_outcome[dst] = st.last_outcome[src]
    st.last_receiver[dst] = st.last_receiver[src]
    st.rounds[dst] = st.rounds[src]
    st.deals[dst] = st.deals[src]
    st.plies[dst] = st.plies[src]


@row_jit
def random_action_row(st, tab, b):
    """A uniformly random legal action of live row ``b``, from ``st.rng[b]``."""
    k = _legal_row(st, b, tab.num_players, tab.work_legal)
    return tab.work_legal[below(st.rng, b, k)]


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

_OBS_BLOCKS = (
    "hand",
    "my_pending",
    "phase",
    "animal",
    "requirement",
    "active",
    "to_move",
    "committed",
    "last_played",
    "last_animal",
    "last_outcome",
    "last_receiver",
    "last_requirement",
    "players",
    "discard",
    "animals_left",
    "eaten",
    "pile_size",
)
"""The observation's blocks in the order ``_observe_kernel`` indexes their offsets."""


class BoaringBatched(BatchedGame):
    """Boaring over B games at once (options as :class:`~envs.boaring.rules.BoaringGame`; bad options raise its
    :class:`~envs.common.game.ConfigError`)."""

    name = "boaring"
    game_class = BoaringGame
    reference: BoaringGame

    def __init__(self, **options: Any):
        super().__init__(**options)
        ref = self.reference
        self.deal_size = ref.deal_size
        layout = ref.layout
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
        self._offsets = np.array([layout.offsets[k] for k in _OBS_BLOCKS], dtype=np.int64)
        self._scale = layout.scale.astype(np.float32)
        self._shift = layout.shift.astype(np.float32)

    def new_state(self, batch: int) -> BoaringBatchedState:
        """Zeroed state for ``batch`` games (``reset_rows`` starts them)."""
        n = self.num_players

        def z(*shape: int, dtype: Any = np.int8) -> np.ndarray:
            return np.zeros((batch, *shape), dtype=dtype)

        return BoaringBatchedState(
            hands=z(n, NUM_VALUES),
            hand_size=z(n),
            pending=z(n),
            ncommitted=z(),
            food_pile=z(NUM_FOOD),
            pile_len=z(),
            discard=z(NUM_VALUES),
            animal_deck=z(NUM_ANIMALS),
            deck_len=z(),
            animals_left=z(NUM_TYPES),
            active=z(),
            animal=z(),
            requirement=z(),
            phase=np.full(batch, OVER, np.int8),
            eater=z(),
            current=np.full(batch, TERMINAL, np.int8),
            savanna=z(n, NUM_TYPES),
            graveyard=z(n, NUM_TYPES),
            eaten=z(NUM_TYPES),
            last_played=z(n),
            last_animal=z(),
            last_requirement=z(),
            last_outcome=z(),
            last_receiver=z(),
            rounds=z(dtype=np.int16),
            deals=z(dtype=np.int16),
            plies=z(dtype=np.int32),
            rng=z(dtype=np.uint64),
        )

    def reset_rows(self, state: BoaringBatchedState, rows: np.ndarray) -> None:
        """A new game in each of ``rows`` (chance from each row's generator)."""
        _reset_kernel(state, np.asarray(rows, dtype=np.int64), self.num_players, self.deal_size)

    def legal_mask(self, state: BoaringBatchedState, out: np.ndarray) -> None:
        """The mover's legal mask per row into ``out`` (B, num_actions) bool; zeros in finished rows."""
        _mask_kernel(state, self.num_players, out)

    def apply(self, state: BoaringBatchedState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal, checked by the caller) in every live row; finished rows are left alone."""
        actions = np.asarray(actions, dtype=np.int64)
        _apply_rows(
            state, np.arange(actions.shape[0]), actions, self.num_players, self.deal_size, self.tables.work_cards
        )

    def apply_rows(self, state: BoaringBatchedState, rows: np.ndarray, actions: np.ndarray) -> None:
        """Play ``actions[j]`` in row ``rows[j]`` only, in place (the kernel :meth:`apply` runs over every row)."""
        _apply_rows(
            state,
            np.asarray(rows, dtype=np.int64),
            np.asarray(actions, dtype=np.int64),
            self.num_players,
            self.deal_size,
            self.tables.work_cards,
        )

    def observe(self, state: BoaringBatchedState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b`` seen from ``seats[b]`` into ``out[b]`` (float32, as the AEC env's observation)."""
        _observe_kernel(
            state, np.asarray(seats, dtype=np.int64), self.num_players, self._offsets, self._scale, self._shift, out
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
        n, b = self.num_players, row
        ref = BoaringState(n)
        ref.hands = state.hands[b].astype(int).tolist()
        ref.hand_size = state.hand_size[b].astype(int).tolist()
        ref.pending = state.pending[b].astype(int).tolist()
        ref.ncommitted = int(state.ncommitted[b])
        ref.food_pile = state.food_pile[b, : state.pile_len[b]].astype(int).tolist()
        ref.discard = state.discard[b].astype(int).tolist()
        ref.animal_deck = state.animal_deck[b, : state.deck_len[b]].astype(int).tolist()
        ref.animals_left = state.animals_left[b].astype(int).tolist()
        for f in (
            "active",
            "animal",
            "requirement",
            "phase",
            "eater",
            "current",
            "last_animal",
            "last_requirement",
            "last_outcome",
            "last_receiver",
            "rounds",
            "deals",
        ):
            setattr(ref, f, int(getattr(state, f)[b]))
        ref.savanna = state.savanna[b].astype(int).tolist()
        ref.graveyard = state.graveyard[b].astype(int).tolist()
        ref.eaten = state.eaten[b].astype(int).tolist()
        ref.last_played = state.last_played[b].astype(int).tolist()
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
        """Every field of ``r`` into row ``b``, UNKNOWN (-1) placeholders of an information state included (the
        search's root: ``search.py`` determinizes copies of it); :meth:`from_reference` for full states."""
        state.hands[b] = r.hands
        state.hand_size[b] = r.hand_size
        state.pending[b] = r.pending
        state.ncommitted[b] = r.ncommitted
        state.food_pile[b] = 0
        state.food_pile[b, : len(r.food_pile)] = r.food_pile
        state.pile_len[b] = len(r.food_pile)
        state.discard[b] = r.discard
        state.animal_deck[b] = 0
        state.animal_deck[b, : len(r.animal_deck)] = r.animal_deck
        state.deck_len[b] = len(r.animal_deck)
        state.animals_left[b] = r.animals_left
        for f in (
            "active",
            "animal",
            "requirement",
            "phase",
            "eater",
            "current",
            "last_animal",
            "last_requirement",
            "last_outcome",
            "last_receiver",
            "rounds",
            "deals",
        ):
            getattr(state, f)[b] = getattr(r, f)
        state.savanna[b] = r.savanna
        state.graveyard[b] = r.graveyard
        state.eaten[b] = r.eaten
        state.last_played[b] = r.last_played
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
