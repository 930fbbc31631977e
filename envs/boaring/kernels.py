"""Boaring's compiled rules, which both engines share: the state declared once (:data:`STATE`: the batched state
:class:`BoaringBatchedState`, one game a row, and the reference state's fields), the engine's :class:`Tables`, the
rule steps over a row (turn up the cards, re-deal, play a decision, score the end) and the row functions of every
engine (``envs.common.fastsearch.ROW_FUNCTIONS``: ``mover_row``,
``legal_row``, ``apply_row``, ``returns_row``, ``copy_row``, ``random_action_row``).

The rules are those of :mod:`envs.boaring.rules` (the readable reference, which stays pure Python and calls no kernel
here); :mod:`envs.boaring.fast` runs these steps over whole batches, :mod:`envs.boaring.observation` reads the rows
for a seat's view and :mod:`envs.boaring.search` plays its simulations with the row functions.

The end-of-game "active" seat is decided in one place, ``_active_when_over`` / :func:`observed_active` below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from envs.boaring.actions import (
    BID,
    BOAR,
    DIED,
    EAT,
    HYENA,
    HYENA_BASE,
    LION,
    LION_BASE,
    LIVED,
    NO_EAT,
    NOT_DIED,
    NUM_ANIMALS,
    NUM_FOOD,
    NUM_TYPES,
    NUM_VALUES,
    OVER,
)
from envs.common.fastrng import below, shuffle
from envs.common.game import TERMINAL
from envs.common.jit import inline_jit, row_jit
from envs.common.state import Field, StateLayout, copy_fields

STATE = StateLayout(
    "BoaringBatchedState",
    __name__,
    Field("hands", np.int8, ("players", NUM_VALUES), doc="Per seat, the count of each food value in hand."),
    Field("hand_size", np.int8, ("players",), doc="Per seat, the food cards in hand (public)."),
    Field("pending", np.int8, ("players",), doc="Per seat, the card laid this round: 0 none yet, else 1..10."),
    Field("ncommitted", np.int8, doc="Cards laid this round."),
    Field(
        "food_pile",
        np.int8,
        (NUM_FOOD,),
        length="pile_len",
        doc="Food values, bottom first: the top is food_pile[pile_len - 1] (the reference's list's last).",
    ),
    Field("pile_len", np.int8, doc="Cards in the food pile."),
    Field("discard", np.int8, (NUM_VALUES,), doc="Food cards that left the game, the count per value."),
    Field(
        "animal_deck",
        np.int8,
        (NUM_ANIMALS,),
        length="deck_len",
        doc="Animal types, bottom first: the top is animal_deck[deck_len - 1].",
    ),
    Field("deck_len", np.int8, doc="Cards in the animal deck."),
    Field("animals_left", np.int8, (NUM_TYPES,), doc="The animal deck by type (public; the deal counts them)."),
    Field("active", np.int8, doc="The active seat (turns up the cards, first to lay one, first on ties)."),
    Field("animal", np.int8, fill=-1, idle=0, doc="The animal on the table, -1 none."),
    Field("requirement", np.int8, doc="The turned food card (the animal needs requirement * n), 0 none."),
    Field("phase", np.int8, fill=BID, idle=OVER, doc="BID, EAT or OVER."),
    Field("eater", np.int8, fill=-1, idle=0, doc="The seat deciding what the living hyena / lion eats, -1 none."),
    Field("current", np.int8, idle=TERMINAL, doc="The seat to act, TERMINAL (-1) when over."),
    Field("savanna", np.int8, ("players", NUM_TYPES), doc="Per seat, the living animals by type (2 points each)."),
    Field("graveyard", np.int8, ("players", NUM_TYPES), doc="Per seat, the dead animals by type (-1 point each)."),
    Field("eaten", np.int8, (NUM_TYPES,), doc="Animals eaten by a hyena or a lion, by type."),
    Field("last_played", np.int8, ("players",), doc="The cards of the last reveal per seat, 0 before the first."),
    Field("last_animal", np.int8, fill=-1, idle=0, doc="The animal of the last reveal, -1 before the first."),
    Field("last_requirement", np.int8, doc="The food card of the last reveal, 0 before the first."),
    Field("last_outcome", np.int8, fill=NOT_DIED, doc="The last reveal's fate: NOT_DIED (none yet), LIVED, DIED."),
    Field("last_receiver", np.int8, fill=-1, idle=0, doc="The seat the last revealed animal went to, -1 none."),
    Field("rounds", np.int16, doc="Completed rounds."),
    Field("deals", np.int16, doc="Re-deals so far (the first deal not counted)."),
    Field("plies", np.int32, batched_only=True, doc="Decisions applied (the AEC env's num_plies, for the ply cap)."),
    Field("rng", np.uint64, batched_only=True, copied=False, doc="The row's generator (envs.common.fastrng)."),
    doc="B Boaring games, one row each: the reference state's fields, ``plies`` and ``rng`` (:data:`STATE`).",
)
"""Boaring's state, declared once (:mod:`envs.common.state`): the batched state (one game a row), the reference
state class (``rules.BoaringState``), the snapshots (``render.py``), ``new_state``, :func:`copy_row` and the
conversions between the engines follow from it. A fresh reference state is every field's ``fill`` (the set-up,
``BoaringGame.initial_state``, deals the cards and counts the animals); a batched row not started yet is its
``idle`` (phase OVER, nobody to move). An information state (``BoaringGame.information_state``, the search's root
row) holds ``UNKNOWN`` (-1) in the hands, the pending cards and the piles."""

BoaringBatchedState = STATE.batched_type


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


@inline_jit
def wrap_seat(x: int, n: int) -> int:
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


@inline_jit
def _active_when_over(last_active: int, n: int) -> int:
    """The stored ``active`` seat of a finished game whose last round had ``last_active`` as active player."""
    return last_active  # the turn does not pass after the last round (RULES.md)


@inline_jit
def observed_active(phase: int, active: int, n: int) -> int:
    """The absolute seat that the observation's "active" block shows (the stored ``active``, also when over)."""
    return active


# ----- kernels: rules ------------------------------------------------------------------------------------------
# Speed note: every kernel reads the state's arrays into locals once, before its loop over the rows. Passing the
# NamedTuple (or many arrays) to a helper per row makes numba count references to each array at each call, about
# 1 us a row; the helpers below are called once a round (start) or once a deal (re-deal).


@inline_jit
def start_round(st, b: int) -> None:
    """'The player whose turn it is lays the top animal- and food card open on the table.'"""
    deck_len, food_pile, pile_len, discard = st.deck_len, st.food_pile, st.pile_len, st.discard
    top = deck_len[b] - 1
    a = st.animal_deck[b, top]
    deck_len[b] = top
    st.animal[b] = a
    st.animals_left[b, a] -= 1
    if pile_len[b] == 0:
        # reading: an empty food pile is refilled from the shuffled discard (ascending, then shuffled)
        m = 0
        for i in range(NUM_VALUES):
            for _ in range(discard[b, i]):
                food_pile[b, m] = i + 1
                m += 1
            discard[b, i] = 0
        shuffle(st.rng, b, food_pile[b, :m])
        pile_len[b] = m
    top = pile_len[b] - 1
    st.requirement[b] = food_pile[b, top]
    pile_len[b] = top
    st.current[b] = st.active[b]


@inline_jit
def _redeal(st, b: int, n: int, deal_size: int, cards: np.ndarray) -> None:
    """'If the food cards in the hands of the players run out before the animal cards are gone, the food cards
    that left the game are shuffled and distributed as during the preparation of the game limited to the amount
    of cards that is present in the animal deck': the discard (ascending, then shuffled) dealt, each hand
    capped at the animals in the deck; the undealt rest goes under the pile."""
    hands, hand_size, discard, food_pile, pile_len = st.hands, st.hand_size, st.discard, st.food_pile, st.pile_len
    k = min(deal_size, st.deck_len[b])
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
    shuffle(st.rng, b, cards[:m])
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
    st.deals[b] += 1


@row_jit
def play_rows(st, rows: np.ndarray, actions: np.ndarray, n: int, deal_size: int, cards: np.ndarray) -> None:
    """Play ``actions[j]`` (legal) in row ``rows[j]`` (a finished row is left alone): commit a card, resolve the
    round when the last card is in, take the eat decision, end the round (discard, pass the turn, re-deal, turn
    up the next cards; ``cards``: work, NUM_FOOD int8)."""
    hands, hand_size, pending, ncommitted = st.hands, st.hand_size, st.pending, st.ncommitted
    discard, deck_len, active, animal, requirement = st.discard, st.deck_len, st.active, st.animal, st.requirement
    phase = st.phase
    eater, current, savanna, graveyard, eaten = st.eater, st.current, st.savanna, st.graveyard, st.eaten
    last_played, last_animal, last_requirement = st.last_played, st.last_animal, st.last_requirement
    last_outcome, last_receiver, rounds, plies = st.last_outcome, st.last_receiver, st.rounds, st.plies
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
                current[b] = wrap_seat(seat + 1, n)
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
                p = wrap_seat(act - k, n)
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
                savanna[b, wrap_seat(e + rel // NUM_TYPES + 1, n), t] -= 1
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
        active[b] = wrap_seat(active[b] + 1, n)
        if hand_size[b, 0] == 0:
            _redeal(st, b, n, deal_size, cards)
        start_round(st, b)


# ----- kernels: results ----------------------------------------------------------------------------------------


@inline_jit
def rank_key_greater(savanna, graveyard, b: int, i: int, j: int) -> bool:
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
def row_returns(savanna, graveyard, b: int, n: int, pairwise: bool, out: np.ndarray) -> None:
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
            if rank_key_greater(savanna, graveyard, b, i, j):
                out[i] += 1.0
                out[j] -= 1.0
            elif rank_key_greater(savanna, graveyard, b, j, i):
                out[j] += 1.0
                out[i] -= 1.0
    for p in range(n):
        out[p] = out[p] / (n - 1)


# ----- kernels: what a seat may do ---------------------------------------------------------------------------------


@row_jit
def legal_ids(st, b: int, n: int, out: np.ndarray) -> int:
    """The legal action ids of row ``b`` into ``out`` (ascending); returns how many."""
    phase, current, hands, eater, animal = st.phase, st.current, st.hands, st.eater, st.animal
    graveyard, savanna = st.graveyard, st.savanna
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
                p = wrap_seat(e + o, n)
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
    return legal_ids(st, b, tab.num_players, out)


@row_jit
def legal_row(st, tab, b, out):
    """The mover's legal mask of row ``b`` into ``out`` (bool per action; all False when over); returns how many
    are legal."""
    out[:] = False
    if st.phase[b] == OVER:
        return 0
    k = legal_ids(st, b, tab.num_players, tab.work_legal)
    for i in range(k):
        out[tab.work_legal[i]] = True
    return k


@inline_jit
def apply_row(st, tab, b, a):
    """Play legal action ``a`` in live row ``b`` (re-deals and refills shuffled from ``st.rng[b]``)."""
    tab.work_rows[0] = b
    tab.work_actions[0] = a
    play_rows(st, tab.work_rows, tab.work_actions, tab.num_players, tab.deal_size, tab.work_cards)


@inline_jit
def returns_row(st, tab, b, out):
    """``BoaringGame.returns`` of finished row ``b`` into ``out`` (num_players float64)."""
    row_returns(st.savanna, st.graveyard, b, tab.num_players, tab.pairwise, out)


@row_jit
def copy_row(st, tab, src, dst):
    """Row ``src`` of every field but the generator into row ``dst`` (:data:`STATE`'s compiled copy)."""
    copy_fields(st, src, dst)


@row_jit
def random_action_row(st, tab, b):
    """A uniformly random legal action of live row ``b``, from ``st.rng[b]``."""
    k = legal_ids(st, b, tab.num_players, tab.work_legal)
    return tab.work_legal[below(st.rng, b, k)]
