"""Observation encoding of Boaring: a flat float32 vector from one seat's point of view.

Hidden information is filtered here and only here: the encoder reads the observer's own hand and own pending
card, and of every other player only public facts (hand size, whether they have committed this round, what was
revealed). Seats are relative: block entry ``k`` (k = 0..n-1) is the player ``k`` seats after the observer in
clockwise order (k = 0 is the observer). Counts are divided by their maximum so that every entry lies in
[0, 1]; the score is divided by 76 and lies in [-0.5, 1].

Layout (``n`` players, size ``68 + 22 n``), in order:

==================  ========  ==========================================================================
block               size      meaning
==================  ========  ==========================================================================
hand                10        my food cards: count of value v at index v-1, / 7
my_pending          10        one-hot of the card I committed this round (all zero if none)
phase               3         one-hot: bid, eat, game over
animal              3         one-hot type of the animal on the table (boar, hyena, lion); zero if none
requirement         10        one-hot value of the turned food card (requirement = value x n)
active              n         one-hot relative seat of the active player of the round (the last one's once over)
to_move             n         one-hot relative seat of the player to act (bid or eat)
committed           n         1 for each relative seat that has committed a card this round (not *what*)
last_played         n x 10    last reveal: row k one-hot of the card played by relative seat k
last_animal         3         one-hot type of the animal of the last reveal
last_outcome        2         one-hot: the animal lived, the animal died
last_receiver       n         one-hot relative seat that received the last animal (savanna or graveyard)
last_requirement    10        one-hot value of the food card turned in the last revealed round
players             n x 8     row k: savanna boars/30, hyenas/4, lions/4, graveyard boars/30, hyenas/4,
                              lions/4, hand size/10, score/76
discard             10        discard pile count per value / 7 (public: the cards were face up)
animals_left        3         animal deck by type: boars/30, hyenas/4, lions/4
eaten               3         eaten animals by type: boars/30, hyenas/4, lions/4
pile_size           1         food pile size / 70
==================  ========  ==========================================================================

Besides the reference's encoder (:func:`encode`, :func:`observe`) this room holds the batched engine's: the kernel
:func:`observe_rows` writes the same vectors, bit for bit, for every row of a batched state at once
(``BoaringBatched.observe``); and the privileged global state (:func:`global_state`), every seat's secrets
included, for centralised critics only.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from envs.boaring.actions import COPIES_PER_VALUE, NUM_TYPES, NUM_VALUES
from envs.boaring.kernels import observed_active, wrap_seat
from envs.boaring.rules import BoaringGame, BoaringState
from envs.common.game import TERMINAL
from envs.common.jit import refcount_jit

TYPE_MAX = (30.0, 4.0, 4.0)
PLAYER_FEATURES = 8
SCORE_SCALE = 76.0


class ObservationLayout:
    """Offsets of every block for ``n`` players, the scale vector and the Box bounds."""

    def __init__(self, n: int):
        self.n = n
        sizes = [
            ("hand", NUM_VALUES),
            ("my_pending", NUM_VALUES),
            ("phase", 3),
            ("animal", NUM_TYPES),
            ("requirement", NUM_VALUES),
            ("active", n),
            ("to_move", n),
            ("committed", n),
            ("last_played", n * NUM_VALUES),
            ("last_animal", NUM_TYPES),
            ("last_outcome", 2),
            ("last_receiver", n),
            ("last_requirement", NUM_VALUES),
            ("players", n * PLAYER_FEATURES),
            ("discard", NUM_VALUES),
            ("animals_left", NUM_TYPES),
            ("eaten", NUM_TYPES),
            ("pile_size", 1),
        ]
        self.offsets: dict[str, int] = {}
        pos = 0
        for name, size in sizes:
            self.offsets[name] = pos
            setattr(self, name, pos)
            pos += size
        self.size = pos
        scale = np.ones(pos, dtype=np.float32)
        o = self.offsets
        scale[o["hand"] : o["hand"] + NUM_VALUES] = 1 / 7
        for k in range(n):
            base = o["players"] + k * PLAYER_FEATURES
            scale[base : base + 6] = [1 / m for m in TYPE_MAX + TYPE_MAX]
            scale[base + 6] = 1 / 10
            scale[base + 7] = 1 / SCORE_SCALE
        scale[o["discard"] : o["discard"] + NUM_VALUES] = 1 / 7
        scale[o["animals_left"] : o["animals_left"] + 3] = [1 / m for m in TYPE_MAX]
        scale[o["eaten"] : o["eaten"] + 3] = [1 / m for m in TYPE_MAX]
        scale[o["pile_size"]] = 1 / 70
        self.scale = scale
        score_at = [o["players"] + k * PLAYER_FEATURES + 7 for k in range(n)]
        self.shift = np.zeros(pos, dtype=np.float32)
        """Subtracted after scaling: the score is encoded as score + 38 (a uint8)."""
        self.shift[score_at] = np.float32(38) * scale[score_at]
        low = np.zeros(pos, dtype=np.float32)
        low[score_at] = -38 / SCORE_SCALE
        self.low = low
        self.high = np.ones(pos, dtype=np.float32)


@functools.cache
def observation_layout(n: int) -> ObservationLayout:
    """The layout of the observation for ``n`` players (built once per player count; its size is the rules'
    :func:`~envs.boaring.rules.observation_size`)."""
    return ObservationLayout(n)


def encode(layout: ObservationLayout, state, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring for the layout).

    Speed: the raw entries are small non-negative ints (the score shifted by +38), gathered in a Python list,
    turned into a uint8 buffer in one call and scaled by one vector multiply.
    """
    n = layout.n
    raw = [0] * layout.size
    raw[0:NUM_VALUES] = state.hands[seat]
    p = state.pending[seat]
    if p > 0:
        raw[layout.my_pending + p - 1] = 1
    raw[layout.phase + state.phase] = 1
    if state.animal >= 0:
        raw[layout.animal + state.animal] = 1
    if state.requirement:
        raw[layout.requirement + state.requirement - 1] = 1
    raw[layout.active + (state.active - seat) % n] = 1
    mover = state.current
    if mover >= 0:
        raw[layout.to_move + (mover - seat) % n] = 1
    committed = layout.committed
    played = layout.last_played
    base = layout.players
    pending = state.pending
    last = state.last_played
    hand_size = state.hand_size
    savanna = state.savanna
    graveyard = state.graveyard
    for k in range(n):
        s = seat + k
        if s >= n:
            s -= n
        if pending[s]:
            raw[committed + k] = 1
        v = last[s]
        if v:
            raw[played + k * NUM_VALUES + v - 1] = 1
        b0, b1, b2 = savanna[s]
        g0, g1, g2 = graveyard[s]
        raw[base : base + 8] = (b0, b1, b2, g0, g1, g2, hand_size[s], 38 + 2 * (b0 + b1 + b2) - g0 - g1 - g2)
        base += PLAYER_FEATURES
    if state.last_animal >= 0:
        raw[layout.last_animal + state.last_animal] = 1
        raw[layout.last_outcome + state.last_outcome - 1] = 1
        raw[layout.last_receiver + (state.last_receiver - seat) % n] = 1
        raw[layout.last_requirement + state.last_requirement - 1] = 1
    d = layout.discard
    raw[d : d + NUM_VALUES] = state.discard
    d = layout.animals_left
    raw[d : d + 3] = state.animals_left
    d = layout.eaten
    raw[d : d + 3] = state.eaten
    raw[layout.pile_size] = len(state.food_pile)
    obs = np.frombuffer(bytes(raw), dtype=np.uint8) * layout.scale
    obs -= layout.shift
    return obs


def observe(game: BoaringGame, state: BoaringState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (the Game's :meth:`observation`): :func:`encode` with the game's layout."""
    return encode(observation_layout(game.num_players), state, seat)


# ----- the privileged global state (centralised critics) ------------------------------------------------------------
def global_state_shape(game: BoaringGame) -> tuple[int, ...]:
    """Shape of :func:`global_state`: ``(68 + 22 n) + n + 10 n + 10 n`` entries."""
    return (observation_layout(game.num_players).size + game.num_players * (1 + 2 * NUM_VALUES),)


def global_state(game: BoaringGame, state: BoaringState) -> np.ndarray:
    """PettingZoo's ``state()``: a **privileged** view that holds every seat's secrets, for centralised
    training only (a critic that sees everything); never feed it to a policy that plays.

    float32, in order: ``player_0``'s observation (seat 0 first, the others clockwise; 68 + 22 n entries);
    a one-hot of the seat to move (n; all zeros once the game is over); every seat's hand, seat by seat
    (n x 10: count of value v at ``10 s + v - 1``, / 7); every seat's face-down card of this round (n x 10:
    one-hot of its value, all zeros before it commits). What nobody knows is not in it: the order of the
    food pile and of the animal deck (their compositions are public and already in the observation).
    """
    n = game.num_players
    extra = np.zeros(n * (1 + 2 * NUM_VALUES), dtype=np.float32)
    seat = game.current_player(state)
    if seat != TERMINAL:
        extra[seat] = 1.0
    hands = np.asarray(state.hands, dtype=np.float32).reshape(-1) / COPIES_PER_VALUE
    extra[n : n + n * NUM_VALUES] = hands
    pending_at = n + n * NUM_VALUES
    for s, card in enumerate(state.pending):
        if card > 0:
            extra[pending_at + s * NUM_VALUES + card - 1] = 1.0
    return np.concatenate([observe(game, state, 0), extra])


def global_state_bounds(game: BoaringGame, obs_low: Any, obs_high: Any) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of :func:`global_state`: the observation's bounds, then 0 / 1 (``obs_low`` and ``obs_high`` are
    ignored: the layout knows its own bounds)."""
    layout = observation_layout(game.num_players)
    size = game.num_players * (1 + 2 * NUM_VALUES)
    return (
        np.concatenate([layout.low, np.zeros(size, dtype=np.float32)]),
        np.concatenate([layout.high, np.ones(size, dtype=np.float32)]),
    )


# ----- the batched engine's observation (envs/boaring/fast.py BoaringBatched.observe) --------------------------------
OBS_BLOCKS = (
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
"""The observation's blocks in the order :func:`observe_rows` indexes their offsets (:class:`ViewTables`)."""


class ViewTables(NamedTuple):
    """What :func:`observe_rows` reads besides the rows: the layout's offsets, scale and shift as arrays."""

    offsets: np.ndarray
    """(18,) int64: each block's offset, in :data:`OBS_BLOCKS` order."""
    scale: np.ndarray
    """float32: the layout's scale vector."""
    shift: np.ndarray
    """float32: the layout's shift vector (subtracted after scaling)."""


def view_tables(n: int) -> ViewTables:
    """The :class:`ViewTables` of the observation for ``n`` players."""
    layout = observation_layout(n)
    return ViewTables(
        offsets=np.array([layout.offsets[k] for k in OBS_BLOCKS], dtype=np.int64),
        scale=layout.scale.astype(np.float32),
        shift=layout.shift.astype(np.float32),
    )


@refcount_jit
def observe_rows(
    st, seats: np.ndarray, n: int, off: np.ndarray, scale: np.ndarray, shift: np.ndarray, out: np.ndarray
) -> None:
    """Row ``b`` seen from ``seats[b]`` into ``out[b]``: :func:`encode` step for step.

    The reference gathers small non-negative ints (the score shifted by +38) and computes ``float32(raw) * scale
    - shift``; each entry here is written with that same float32 expression (``one`` for a one-hot entry: scale 1,
    shift 0), so the values are bit-identical. Only the seat's own hand and pending card are read; of the others,
    whether they committed, never what.
    """
    hands, hand_size, pending, phase, animal = st.hands, st.hand_size, st.pending, st.phase, st.animal
    requirement, active, current, last_played, savanna = (
        st.requirement,
        st.active,
        st.current,
        st.last_played,
        st.savanna,
    )
    graveyard, last_animal, last_outcome, last_receiver = (
        st.graveyard,
        st.last_animal,
        st.last_outcome,
        st.last_receiver,
    )
    last_requirement, discard, animals_left, eaten, pile_len = (
        st.last_requirement,
        st.discard,
        st.animals_left,
        st.eaten,
        st.pile_len,
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
        out[b, off[5] + wrap_seat(observed_active(phase[b], active[b], n) - seat, n)] = one
        mover = current[b]
        if mover >= 0:
            out[b, off[6] + wrap_seat(mover - seat, n)] = one
        base = off[13]
        for k in range(n):
            q = wrap_seat(seat + k, n)
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
            out[b, off[11] + wrap_seat(last_receiver[b] - seat, n)] = one
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
