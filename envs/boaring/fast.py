"""Boaring's batched engine: B games per call on struct-of-arrays state, every per-step loop a numba kernel.

The rules are those of :mod:`envs.boaring.rules` (the readable reference it is tested against, move by move, in
``tests/boaring/test_boaring_fast.py``), with the same options, the same action ids and the same observation
vector (float32, bit for bit, from any seat, hidden information filtered exactly as
:func:`envs.boaring.observation.encode` does: a seat sees its own hand and own pending card, and of the others
only that they have committed, never what).

State (:class:`BoaringBatch`): one row per game. Piles are arrays with a length, the top card last, as the
reference's lists. The ``rng`` field is the row's SplitMix64 generator (:mod:`envs.common.fastrng`): the deck
shuffles at the start, the re-deal shuffles and the (never met in normal play) pile refill draw from it, so a
game is a plain value and a seed fixes it whatever the batch size. These are *not* numpy's streams: a batched
game and an AEC env seeded alike deal different cards. :class:`MirrorRng` makes the reference engine draw the
same shuffles as a batched row (each shuffle is the same Fisher-Yates swaps applied to the reference's
ascending card list), which is how the differential tests keep both engines on one game.

Truncation: a row that reaches ``max_game_length`` plies without ending is truncated, as ``BarnyardAECEnv``
does (a Boaring game always ends before: at most ``38 (n + 1)`` decisions).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from envs.boaring import actions as A
from envs.boaring.rules import (
    ANIMAL_COUNTS,
    BID,
    COPIES_PER_VALUE,
    DIED,
    EAT,
    LIVED,
    NUM_ANIMALS,
    NUM_FOOD,
    OVER,
    BoaringGame,
    BoaringState,
)
from envs.common.fastrng import below, shuffle
from envs.common.game import TERMINAL
from envs.common.vector import BatchedGame

NUM_VALUES = A.NUM_VALUES
NUM_TYPES = A.NUM_TYPES
HYENA, LION = A.HYENA, A.LION
NO_EAT, HYENA_BASE, LION_BASE = A.NO_EAT, A.HYENA_BASE, A.LION_BASE
ANIMALS = np.array(ANIMAL_COUNTS, dtype=np.int64)


class BoaringBatch(NamedTuple):
    """B Boaring games, one row each (the reference :class:`~envs.boaring.rules.BoaringState`'s fields)."""

    hands: np.ndarray          # (B, n, 10) int8: count of each food value in hand
    hand_size: np.ndarray      # (B, n) int8
    pending: np.ndarray        # (B, n) int8: card laid this round, 0 none yet
    ncommitted: np.ndarray     # (B,) int8
    food_pile: np.ndarray      # (B, 70) int8: values, bottom first; the top is food_pile[pile_len - 1]
    pile_len: np.ndarray       # (B,) int8
    discard: np.ndarray        # (B, 10) int8: count per value
    animal_deck: np.ndarray    # (B, 38) int8: types, bottom first; the top is animal_deck[deck_len - 1]
    deck_len: np.ndarray       # (B,) int8
    animals_left: np.ndarray   # (B, 3) int8: the deck by type
    active: np.ndarray         # (B,) int8
    animal: np.ndarray         # (B,) int8: -1 none
    requirement: np.ndarray    # (B,) int8: the turned food card, 0 none
    phase: np.ndarray          # (B,) int8: BID, EAT, OVER
    eater: np.ndarray          # (B,) int8: -1 none
    current: np.ndarray        # (B,) int8: seat to act, -1 (TERMINAL) when over
    savanna: np.ndarray        # (B, n, 3) int8
    graveyard: np.ndarray      # (B, n, 3) int8
    eaten: np.ndarray          # (B, 3) int8
    last_played: np.ndarray    # (B, n) int8
    last_animal: np.ndarray    # (B,) int8
    last_requirement: np.ndarray  # (B,) int8
    last_outcome: np.ndarray   # (B,) int8: NOT_DIED, LIVED, DIED
    last_receiver: np.ndarray  # (B,) int8
    rounds: np.ndarray         # (B,) int16
    deals: np.ndarray          # (B,) int16
    plies: np.ndarray          # (B,) int32: decisions applied (the AEC env's num_plies)
    rng: np.ndarray            # (B,) uint64: the row's generator


# ----- the end-of-game "active" seat: the one place that decides it -------------------------------------------
# Today's reference (rules.py ``_end_round``) passes the turn before it notices that the deck is empty, so in a
# finished game ``active`` (and the observation's "active" block, which reads it) points to the seat *after* the
# last active player. Both functions below reproduce that; if the reference changes, change them (and only them).


@njit(cache=True, inline="always")
def _active_when_over(last_active: int, n: int) -> int:
    """The stored ``active`` seat of a finished game whose last round had ``last_active`` as active player."""
    return (last_active + 1) % n


@njit(cache=True, inline="always")
def _observed_active(phase: int, active: int, n: int) -> int:
    """The absolute seat that the observation's "active" block shows (the stored ``active``, also when over)."""
    return active


# ----- kernels: rules ------------------------------------------------------------------------------------------


@njit(cache=True)
def _start_round(s, b: int) -> None:
    """'The player whose turn it is lays the top animal- and food card open on the table.'"""
    top = s.deck_len[b] - 1
    animal = s.animal_deck[b, top]
    s.deck_len[b] = top
    s.animal[b] = animal
    s.animals_left[b, animal] -= 1
    if s.pile_len[b] == 0:
        # reading: an empty food pile is refilled from the shuffled discard (ascending, then shuffled)
        m = 0
        for i in range(NUM_VALUES):
            for _ in range(s.discard[b, i]):
                s.food_pile[b, m] = i + 1
                m += 1
            s.discard[b, i] = 0
        shuffle(s.rng, b, s.food_pile[b, :m])
        s.pile_len[b] = m
    top = s.pile_len[b] - 1
    s.requirement[b] = s.food_pile[b, top]
    s.pile_len[b] = top
    s.current[b] = s.active[b]


@njit(cache=True)
def _redeal(s, b: int, n: int, deal_size: int, cards: np.ndarray) -> None:
    """The discard shuffled and dealt again, each hand capped at the animals left; the rest under the pile."""
    k = min(deal_size, s.deck_len[b])
    m = 0
    for i in range(NUM_VALUES):
        for _ in range(s.discard[b, i]):
            cards[m] = i + 1
            m += 1
        s.discard[b, i] = 0
    old = s.pile_len[b]
    if m < n * k:  # cannot happen with 70 cards (RULES.md); the reference's fallback
        for i in range(old):
            cards[m + i] = s.food_pile[b, i]
        m += old
        old = 0
    shuffle(s.rng, b, cards[:m])
    for p in range(n):
        for i in range(NUM_VALUES):
            s.hands[b, p, i] = 0
        for j in range(p * k, (p + 1) * k):
            s.hands[b, p, cards[j] - 1] += 1
        s.hand_size[b, p] = k
    rest = m - n * k
    for i in range(old - 1, -1, -1):  # the old pile moves up; the undealt cards go under it
        s.food_pile[b, rest + i] = s.food_pile[b, i]
    for i in range(rest):
        s.food_pile[b, i] = cards[n * k + i]
    s.pile_len[b] = rest + old
    s.deals[b] += 1


@njit(cache=True)
def _end_round(s, b: int, n: int, deal_size: int, cards: np.ndarray) -> None:
    """Discard the open food cards, pass the turn, re-deal if the hands are empty, start the next round."""
    for p in range(n):
        v = s.pending[b, p]
        s.discard[b, v - 1] += 1
        s.pending[b, p] = 0
    s.discard[b, s.requirement[b] - 1] += 1
    s.ncommitted[b] = 0
    s.animal[b] = -1
    s.requirement[b] = 0
    s.phase[b] = BID
    s.eater[b] = -1
    s.rounds[b] += 1
    if s.deck_len[b] == 0:  # "The game ends when all animal cards are gone."
        s.active[b] = _active_when_over(s.active[b], n)
        s.phase[b] = OVER
        s.current[b] = TERMINAL
        return
    s.active[b] = (s.active[b] + 1) % n
    if s.hand_size[b, 0] == 0:
        _redeal(s, b, n, deal_size, cards)
    _start_round(s, b)


@njit(cache=True)
def _resolve(s, b: int, n: int, deal_size: int, cards: np.ndarray) -> None:
    """All cards are in: reveal them and decide the animal's fate (ties: the active player, then the most
    recently active, count higher)."""
    active = s.active[b]
    for p in range(n):
        s.last_played[b, p] = s.pending[b, p]
    animal = s.animal[b]
    s.last_animal[b] = animal
    s.last_requirement[b] = s.requirement[b]
    best = worst = active
    best_v = worst_v = s.pending[b, active]
    total = np.int64(best_v)
    for k in range(1, n):
        p = (active - k) % n
        v = s.pending[b, p]
        total += v
        if v > best_v:
            best, best_v = p, v
        if v <= worst_v:
            worst, worst_v = p, v
    if total >= np.int64(s.requirement[b]) * n:
        s.last_outcome[b] = LIVED
        s.last_receiver[b] = best
        can_eat = False
        if animal == HYENA:
            for t in range(NUM_TYPES):
                if s.graveyard[b, best, t] > 0:
                    can_eat = True
        elif animal == LION:
            for p in range(n):
                if p != best:
                    for t in range(NUM_TYPES):
                        if s.savanna[b, p, t] > 0:
                            can_eat = True
        if can_eat:
            s.phase[b] = EAT
            s.eater[b] = best
            s.current[b] = best
            return
        s.savanna[b, best, animal] += 1
    else:
        s.last_outcome[b] = DIED
        s.last_receiver[b] = worst
        s.graveyard[b, worst, animal] += 1
    _end_round(s, b, n, deal_size, cards)


@njit(cache=True)
def _apply_one(s, b: int, action: int, n: int, deal_size: int, cards: np.ndarray) -> None:
    """Play a legal ``action`` in row ``b`` (a finished row is left alone)."""
    phase = s.phase[b]
    if phase == BID:
        seat = s.current[b]
        s.hands[b, seat, action] -= 1
        s.hand_size[b, seat] -= 1
        s.pending[b, seat] = action + 1
        s.ncommitted[b] += 1
        s.plies[b] += 1
        if s.ncommitted[b] < n:
            s.current[b] = (seat + 1) % n
        else:
            _resolve(s, b, n, deal_size, cards)
    elif phase == EAT:
        eater = s.eater[b]
        s.plies[b] += 1
        if action >= LION_BASE:
            rel = action - LION_BASE
            t = rel % NUM_TYPES
            s.savanna[b, (eater + rel // NUM_TYPES + 1) % n, t] -= 1
            s.eaten[b, t] += 1
        elif action >= HYENA_BASE:
            t = action - HYENA_BASE
            s.graveyard[b, eater, t] -= 1
            s.eaten[b, t] += 1
        s.savanna[b, eater, s.animal[b]] += 1
        _end_round(s, b, n, deal_size, cards)


@njit(cache=True)
def _apply_kernel(s, actions: np.ndarray, n: int, deal_size: int) -> None:
    cards = np.empty(NUM_FOOD, dtype=np.int8)
    for b in range(actions.shape[0]):
        _apply_one(s, b, actions[b], n, deal_size, cards)


@njit(cache=True)
def _reset_one(s, b: int, n: int, deal_size: int, cards: np.ndarray) -> None:
    """A new game in row ``b``: both decks shuffled (animals first, as the reference draws), hands dealt, the
    first animal and food card turned up."""
    m = 0
    for t in range(NUM_TYPES):
        for _ in range(ANIMALS[t]):
            s.animal_deck[b, m] = t
            m += 1
        s.animals_left[b, t] = ANIMALS[t]
        s.eaten[b, t] = 0
    shuffle(s.rng, b, s.animal_deck[b])
    s.deck_len[b] = NUM_ANIMALS
    m = 0
    for i in range(NUM_VALUES):
        for _ in range(COPIES_PER_VALUE):
            cards[m] = i + 1
            m += 1
        s.discard[b, i] = 0
    shuffle(s.rng, b, cards)
    for p in range(n):
        for i in range(NUM_VALUES):
            s.hands[b, p, i] = 0
        for j in range(p * deal_size, (p + 1) * deal_size):
            s.hands[b, p, cards[j] - 1] += 1
        s.hand_size[b, p] = deal_size
        s.pending[b, p] = 0
        s.last_played[b, p] = 0
        for t in range(NUM_TYPES):
            s.savanna[b, p, t] = 0
            s.graveyard[b, p, t] = 0
    rest = NUM_FOOD - n * deal_size
    for i in range(rest):
        s.food_pile[b, i] = cards[n * deal_size + i]
    s.pile_len[b] = rest
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


@njit(cache=True)
def _reset_kernel(s, rows: np.ndarray, n: int, deal_size: int) -> None:
    cards = np.empty(NUM_FOOD, dtype=np.int8)
    for r in range(rows.shape[0]):
        _reset_one(s, rows[r], n, deal_size, cards)


# ----- kernels: what a seat may do and see ---------------------------------------------------------------------


@njit(cache=True)
def _mask_one(s, b: int, n: int, out: np.ndarray) -> None:
    """Row ``b``'s legal mask into ``out`` (one row, bool)."""
    out[:] = False
    phase = s.phase[b]
    if phase == BID:
        seat = s.current[b]
        for i in range(NUM_VALUES):
            out[i] = s.hands[b, seat, i] > 0
    elif phase == EAT:
        eater = s.eater[b]
        out[NO_EAT] = True
        if s.animal[b] == HYENA:
            for t in range(NUM_TYPES):
                out[HYENA_BASE + t] = s.graveyard[b, eater, t] > 0
        elif s.animal[b] == LION:
            for o in range(1, n):
                p = (eater + o) % n
                for t in range(NUM_TYPES):
                    out[LION_BASE + NUM_TYPES * (o - 1) + t] = s.savanna[b, p, t] > 0


@njit(cache=True)
def _mask_kernel(s, n: int, out: np.ndarray) -> None:
    for b in range(out.shape[0]):
        _mask_one(s, b, n, out[b])


@njit(cache=True)
def _observe_one(s, b: int, seat: int, n: int, off: np.ndarray, scale: np.ndarray, shift: np.ndarray,
                 raw: np.ndarray, out: np.ndarray) -> None:
    """Row ``b`` seen from ``seat`` into ``out``: :func:`envs.boaring.observation.encode` step for step (raw
    small ints, then ``float32(raw) * scale - shift`` as the reference's uint8 * float32 vector)."""
    raw[:] = 0
    for i in range(NUM_VALUES):
        raw[i] = s.hands[b, seat, i]
    p = s.pending[b, seat]
    if p > 0:
        raw[off[1] + p - 1] = 1
    raw[off[2] + s.phase[b]] = 1
    if s.animal[b] >= 0:
        raw[off[3] + s.animal[b]] = 1
    if s.requirement[b] > 0:
        raw[off[4] + s.requirement[b] - 1] = 1
    raw[off[5] + (_observed_active(s.phase[b], s.active[b], n) - seat) % n] = 1
    mover = s.current[b]
    if mover >= 0:
        raw[off[6] + (mover - seat) % n] = 1
    base = off[13]
    for k in range(n):
        q = seat + k
        if q >= n:
            q -= n
        if s.pending[b, q] != 0:
            raw[off[7] + k] = 1
        v = s.last_played[b, q]
        if v > 0:
            raw[off[8] + k * NUM_VALUES + v - 1] = 1
        score = 38
        for t in range(NUM_TYPES):
            sv = s.savanna[b, q, t]
            gv = s.graveyard[b, q, t]
            raw[base + t] = sv
            raw[base + 3 + t] = gv
            score += 2 * sv - gv
        raw[base + 6] = s.hand_size[b, q]
        raw[base + 7] = score
        base += 8
    if s.last_animal[b] >= 0:
        raw[off[9] + s.last_animal[b]] = 1
        raw[off[10] + s.last_outcome[b] - 1] = 1
        raw[off[11] + (s.last_receiver[b] - seat) % n] = 1
        raw[off[12] + s.last_requirement[b] - 1] = 1
    for i in range(NUM_VALUES):
        raw[off[14] + i] = s.discard[b, i]
    for t in range(NUM_TYPES):
        raw[off[15] + t] = s.animals_left[b, t]
        raw[off[16] + t] = s.eaten[b, t]
    raw[off[17]] = s.pile_len[b]
    for i in range(out.shape[0]):
        out[i] = np.float32(raw[i]) * scale[i] - shift[i]


@njit(cache=True)
def _observe_kernel(s, seats: np.ndarray, n: int, off: np.ndarray, scale: np.ndarray, shift: np.ndarray,
                    out: np.ndarray) -> None:
    raw = np.zeros(out.shape[1], dtype=np.int64)
    for b in range(out.shape[0]):
        _observe_one(s, b, seats[b], n, off, scale, shift, raw, out[b])


# ----- kernels: results ----------------------------------------------------------------------------------------


@njit(cache=True)
def _returns_kernel(s, n: int, pairwise: bool, out: np.ndarray) -> None:
    """Terminal rewards as ``BoaringGame.returns``: pairwise over (score, boars, lions, hyenas) or score - mean."""
    scores = np.empty(n, dtype=np.int64)
    for b in range(out.shape[0]):
        out[b, :] = 0.0
        if s.phase[b] != OVER:
            continue
        for p in range(n):
            sc = 0
            for t in range(NUM_TYPES):
                sc += 2 * s.savanna[b, p, t] - s.graveyard[b, p, t]
            scores[p] = sc
        if not pairwise:
            total = 0.0
            for p in range(n):
                total += scores[p]
            mean = total / n
            for p in range(n):
                out[b, p] = scores[p] - mean
            continue
        for i in range(n):
            for j in range(i + 1, n):
                # rank keys compared in order: score, savanna boars, lions, hyenas
                c = scores[i] - scores[j]
                if c == 0:
                    c = s.savanna[b, i, 0] - s.savanna[b, j, 0]
                if c == 0:
                    c = s.savanna[b, i, LION] - s.savanna[b, j, LION]
                if c == 0:
                    c = s.savanna[b, i, HYENA] - s.savanna[b, j, HYENA]
                if c > 0:
                    out[b, i] += 1.0
                    out[b, j] -= 1.0
                elif c < 0:
                    out[b, j] += 1.0
                    out[b, i] -= 1.0
        for p in range(n):
            out[b, p] = out[b, p] / (n - 1)


@njit(cache=True)
def _scores_kernel(s, n: int, out: np.ndarray) -> None:
    for b in range(out.shape[0]):
        for p in range(n):
            sc = 0
            for t in range(NUM_TYPES):
                sc += 2 * s.savanna[b, p, t] - s.graveyard[b, p, t]
            out[b, p] = sc


# ----- the engine ----------------------------------------------------------------------------------------------

_OBS_BLOCKS = ("hand", "my_pending", "phase", "animal", "requirement", "active", "to_move", "committed",
               "last_played", "last_animal", "last_outcome", "last_receiver", "last_requirement", "players",
               "discard", "animals_left", "eaten", "pile_size")
"""The observation's blocks in the order ``_observe_one`` indexes their offsets."""


class BatchedBoaring(BatchedGame):
    """Boaring over B games at once (options as :class:`~envs.boaring.rules.BoaringGame`: ``num_players`` 2-10,
    ``reward`` ``"pairwise"`` or ``"score"``; bad options raise its :class:`~envs.common.game.ConfigError`)."""

    name = "boaring"

    def __init__(self, num_players: int = 4, reward: str = "pairwise"):
        ref = BoaringGame(num_players=num_players, reward=reward)  # validates the options
        self.reference = ref
        self.num_players = n = ref.num_players
        self.reward = ref.reward
        self.num_actions = ref.num_actions
        self.observation_shape = ref.observation_shape
        self.max_game_length = ref.max_game_length
        self.deal_size = ref.deal_size
        layout = ref.layout
        self._offsets = np.array([layout.offsets[k] for k in _OBS_BLOCKS], dtype=np.int64)
        self._scale = layout.scale.astype(np.float32)
        self._shift = layout.shift.astype(np.float32)

    def options(self) -> dict[str, Any]:
        """The options, as the reference game reports them."""
        return self.reference.options()

    def new_state(self, batch: int) -> BoaringBatch:
        """Zeroed state for ``batch`` games (``reset_rows`` starts them)."""
        n = self.num_players

        def z(*shape: int, dtype: Any = np.int8) -> np.ndarray:
            return np.zeros((batch, *shape), dtype=dtype)

        return BoaringBatch(
            hands=z(n, NUM_VALUES), hand_size=z(n), pending=z(n), ncommitted=z(),
            food_pile=z(NUM_FOOD), pile_len=z(), discard=z(NUM_VALUES), animal_deck=z(NUM_ANIMALS), deck_len=z(),
            animals_left=z(NUM_TYPES), active=z(), animal=z(), requirement=z(), phase=np.full(batch, OVER, np.int8),
            eater=z(), current=np.full(batch, TERMINAL, np.int8), savanna=z(n, NUM_TYPES),
            graveyard=z(n, NUM_TYPES), eaten=z(NUM_TYPES), last_played=z(n), last_animal=z(),
            last_requirement=z(), last_outcome=z(), last_receiver=z(), rounds=z(dtype=np.int16),
            deals=z(dtype=np.int16), plies=z(dtype=np.int32), rng=z(dtype=np.uint64),
        )

    def reset_rows(self, state: BoaringBatch, rows: np.ndarray) -> None:
        """A new game in each of ``rows`` (chance from each row's generator)."""
        _reset_kernel(state, np.asarray(rows, dtype=np.int64), self.num_players, self.deal_size)

    def legal_mask(self, state: BoaringBatch, out: np.ndarray) -> None:
        """The mover's legal mask per row into ``out`` (B, num_actions) bool; zeros in finished rows."""
        _mask_kernel(state, self.num_players, out)

    def apply(self, state: BoaringBatch, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal, checked by the caller) in every live row; finished rows are left alone."""
        _apply_kernel(state, np.asarray(actions, dtype=np.int64), self.num_players, self.deal_size)

    def observe(self, state: BoaringBatch, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b`` seen from ``seats[b]`` into ``out[b]`` (float32, as the AEC env's observation)."""
        _observe_kernel(state, np.asarray(seats, dtype=np.int64), self.num_players, self._offsets, self._scale,
                        self._shift, out)

    def current_player(self, state: BoaringBatch) -> np.ndarray:
        """(B,) seat to move, TERMINAL (-1) where the game is over."""
        return state.current.astype(np.int64)

    def returns(self, state: BoaringBatch) -> np.ndarray:
        """(B, n) terminal rewards (zeros in live rows), as ``BoaringGame.returns``."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _returns_kernel(state, self.num_players, self.reward == "pairwise", out)
        return out

    def truncated(self, state: BoaringBatch) -> np.ndarray:
        """(B,) live rows that reached ``max_game_length`` plies (the AEC env's safety net; never met in play)."""
        return (state.phase != OVER) & (state.plies >= self.max_game_length)

    def scores(self, state: BoaringBatch) -> np.ndarray:
        """(B, n) running scores: 2 per savanna animal, -1 per graveyard animal."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _scores_kernel(state, self.num_players, out)
        return out

    def shaping_potential(self, state: BoaringBatch) -> np.ndarray:
        """(B, n) as the reference ``Game.shaping_potential``: the running score."""
        return self.scores(state)

    # ----- the bridge to rules.py ----------------------------------------------------------------------------
    def to_reference(self, state: BoaringBatch, row: int) -> BoaringState:
        """Row ``row`` as a reference :class:`BoaringState` (the generator is not carried over)."""
        n, b = self.num_players, row
        ref = BoaringState(n)
        ref.hands = state.hands[b].astype(int).tolist()
        ref.hand_size = state.hand_size[b].astype(int).tolist()
        ref.pending = state.pending[b].astype(int).tolist()
        ref.ncommitted = int(state.ncommitted[b])
        ref.food_pile = state.food_pile[b, :state.pile_len[b]].astype(int).tolist()
        ref.discard = state.discard[b].astype(int).tolist()
        ref.animal_deck = state.animal_deck[b, :state.deck_len[b]].astype(int).tolist()
        ref.animals_left = state.animals_left[b].astype(int).tolist()
        for f in ("active", "animal", "requirement", "phase", "eater", "current", "last_animal",
                  "last_requirement", "last_outcome", "last_receiver", "rounds", "deals"):
            setattr(ref, f, int(getattr(state, f)[b]))
        ref.savanna = state.savanna[b].astype(int).tolist()
        ref.graveyard = state.graveyard[b].astype(int).tolist()
        ref.eaten = state.eaten[b].astype(int).tolist()
        ref.last_played = state.last_played[b].astype(int).tolist()
        return ref

    def from_reference(self, reference_state: BoaringState, state: BoaringBatch, row: int,
                       plies: int | None = None) -> None:
        """Write a full reference state into row ``row`` (the row's generator is kept). ``plies``: the decisions
        played so far, for truncation (default: inferred from the rounds and the commits, eat decisions not
        counted; only the truncation cap reads it)."""
        r, b, n = reference_state, row, self.num_players
        if any(v < 0 for v in r.pending) or any(c < 0 for h in r.hands for c in h):
            raise ValueError("from_reference needs a full state, not an information state (determinize it)")
        state.hands[b] = r.hands
        state.hand_size[b] = r.hand_size
        state.pending[b] = r.pending
        state.ncommitted[b] = r.ncommitted
        state.food_pile[b] = 0
        state.food_pile[b, :len(r.food_pile)] = r.food_pile
        state.pile_len[b] = len(r.food_pile)
        state.discard[b] = r.discard
        state.animal_deck[b] = 0
        state.animal_deck[b, :len(r.animal_deck)] = r.animal_deck
        state.deck_len[b] = len(r.animal_deck)
        state.animals_left[b] = r.animals_left
        for f in ("active", "animal", "requirement", "phase", "eater", "current", "last_animal",
                  "last_requirement", "last_outcome", "last_receiver", "rounds", "deals"):
            getattr(state, f)[b] = getattr(r, f)
        state.savanna[b] = r.savanna
        state.graveyard[b] = r.graveyard
        state.eaten[b] = r.eaten
        state.last_played[b] = r.last_played
        state.plies[b] = r.rounds * n + r.ncommitted if plies is None else plies


class MirrorRng:
    """A stand-in for the ``np.random.Generator`` that the reference engine takes, drawing a batched row's chance.

    The reference engine draws only ``rng.permutation(m)`` (and applies it to an ascending card list); the batched
    kernels shuffle the same ascending list in place with :func:`envs.common.fastrng.shuffle`. ``permutation(m)``
    here runs those Fisher-Yates swaps on ``arange(m)`` from a copy of the row's generator state, so
    ``cards[perm]`` is exactly the kernel's shuffled list. ``state`` is the generator state afterwards (equal to
    the row's after the same step).
    """

    def __init__(self, rng_state: int | np.uint64):
        self._rng = np.array([rng_state], dtype=np.uint64)

    @property
    def state(self) -> int:
        """The generator's current 64-bit state."""
        return int(self._rng[0])

    def permutation(self, m: int) -> np.ndarray:
        """The permutation the batched kernel's shuffle of ``m`` cards applies."""
        perm = np.arange(m, dtype=np.int64)
        shuffle(self._rng, 0, perm)
        return perm

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the Boaring engine draws only permutations")

    random = integers


__all__ = ["BatchedBoaring", "BoaringBatch", "MirrorRng"]
