"""Boaring's information states for OpenSpiel: a compact perfect-recall record, its tensor, and resampling.

What a seat has seen of a Boaring game is its current observation plus the public record of every round: the
animal and food card turned, every bid once revealed, and the eat decision. Everything else it ever knew follows
from these (its past hands are its past bids: every card of a deal is played before the next deal). So the
information state needs no per-seat history: one public round log, shared by every seat, and the observation.

* ``string``: ``p<seat> <observation's nonzero entries> | <round log>``, each round as ``B7:5,9`` (a boar, food
  card 7, seat 0 bid 5 and seat 1 bid 9) with ``/<action>`` after it for an eat decision; about 1 KB at the end
  of a 2-player game.
* ``tensor``: the observation, then one slot per round (38): one-hot animal (3), food card (10), each seat's bid
  (10 per seat, seats relative to the observer as in the observation) and eat decision (``num_actions - 10``).
* ``resample``: :meth:`~envs.boaring.rules.BoaringGame.determinize` of the seat's
  :meth:`~envs.boaring.rules.BoaringGame.information_state`: the cards the seat cannot locate dealt at random.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.boaring.actions import NO_EAT, NUM_TYPES, NUM_VALUES
from envs.boaring.rules import EAT, NUM_ANIMALS, BoaringGame, BoaringState

Round = tuple[int, ...]
"""One log entry: (animal, food card value, bid of seat 0, ..., bid of seat n-1, eat action or -1)."""

_ANIMAL_LETTERS = "BHL"


def _reveals(state: BoaringState) -> int:
    """Reveals so far: one per completed round, plus the current round's while its eat decision is pending."""
    return state.rounds + (1 if state.phase == EAT else 0)


def record(
    before: BoaringState | None, after: BoaringState, actions: tuple[int, ...], log: tuple[Round, ...]
) -> tuple[Round, ...]:
    """The round log after one completed transition ``before`` -> ``after`` (the player ``actions`` taken)."""
    if before is None:
        return log
    if before.phase == EAT:  # an eat decision: the last revealed round's
        return log[:-1] + (log[-1][:-1] + (int(actions[0]),),)
    if _reveals(after) > _reveals(before):
        return log + ((after.last_animal, after.last_requirement, *after.last_played, -1),)
    return log


def _compact(obs: np.ndarray) -> str:
    """An observation as text: its nonzero entries ``index:value`` (float32 values, 7 significant digits)."""
    flat = obs.reshape(-1)
    return " ".join(f"{i}:{float(flat[i]):.7g}" for i in np.flatnonzero(flat).tolist())


def string(engine: BoaringGame, state: BoaringState | None, log: tuple[Round, ...], player: int) -> str:
    """``player``'s information state as text (see the module docstring)."""
    if state is None:
        return f"p{player} (setting up)"
    rounds = " ".join(
        f"{_ANIMAL_LETTERS[r[0]]}{r[1]}:{','.join(map(str, r[2:-1]))}" + (f"/{r[-1]}" if r[-1] >= 0 else "")
        for r in log
    )
    return f"p{player} {_compact(engine.observation(state, player))} | {rounds}"


def _slot_size(engine: BoaringGame) -> int:
    return NUM_TYPES + NUM_VALUES + engine.num_players * NUM_VALUES + (engine.num_actions - NO_EAT)


def tensor_size(engine: BoaringGame) -> int:
    """Length of :func:`tensor`: the observation plus 38 round slots."""
    return engine.observation_shape[0] + NUM_ANIMALS * _slot_size(engine)


def tensor(
    engine: BoaringGame, state: BoaringState | None, log: tuple[Round, ...], player: int, out: np.ndarray
) -> None:
    """Write ``player``'s information-state tensor into ``out`` (zeros before the set-up is complete)."""
    out.fill(0.0)
    if state is None:
        return
    n = engine.num_players
    size = engine.observation_shape[0]
    out[:size] = engine.observation(state, player)
    slot = _slot_size(engine)
    for r, entry in enumerate(log):
        base = size + r * slot
        out[base + entry[0]] = 1.0
        out[base + NUM_TYPES + entry[1] - 1] = 1.0
        bids = base + NUM_TYPES + NUM_VALUES
        for seat in range(n):
            out[bids + ((seat - player) % n) * NUM_VALUES + entry[2 + seat] - 1] = 1.0
        if entry[-1] >= 0:
            out[bids + n * NUM_VALUES + entry[-1] - NO_EAT] = 1.0


def resample(engine: BoaringGame, state: BoaringState, player: int, rng: np.random.Generator) -> BoaringState:
    """A state that ``player`` cannot tell from ``state``: the hidden cards dealt uniformly at random."""
    return engine.determinize(engine.information_state(state, player), player, rng)


def round_slots(engine: BoaringGame, flat: np.ndarray) -> Any:
    """The round part of a tensor as a (38, slot) view (for an observer's ``dict``)."""
    return flat[engine.observation_shape[0] :].reshape(NUM_ANIMALS, _slot_size(engine))
