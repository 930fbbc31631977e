"""Action codec of Boaring: one flat ``Discrete(14 + 3 * (n - 1))`` space, each phase owning a range.

Layout (``n`` = number of players, ``t`` = animal type 0 boar, 1 hyena, 2 lion)::

    0 .. 9                     PLAY v+1    play the food card of value v+1 face down   (bid phase)
    10                         NO_EAT      do not eat                                   (eat phase)
    11 .. 13                   HYENA t     hyena eats an animal of type t from my own graveyard
    14 + 3*(o-1) + t           LION o t    lion eats an animal of type t from the savanna of the
       (o = 1 .. n-1)                      player o seats after me (clockwise), 'me first' order

Notation: ``play 7``, ``no eat``, ``eat hyena`` (own graveyard), ``eat boar of p2`` (absolute seat of the
savanna's owner; the codec turns it into the relative offset).

The game's vocabulary lives here too (the card and animal counts, the phases, the placeholder of an unknown card):
the rules, the observation and the pictures all read it.
"""

from __future__ import annotations

from typing import Any

NUM_VALUES = 10
"""Food values 1..10; value v is index v-1."""
ANIMAL_NAMES: tuple[str, ...] = ("boar", "hyena", "lion")
BOAR, HYENA, LION = 0, 1, 2
NUM_TYPES = 3

ANIMAL_COUNTS: tuple[int, int, int] = (30, 4, 4)
"""'38 Animal cards: 30 Boars, 4 Hyenas, 4 Lions'."""
NUM_ANIMALS = sum(ANIMAL_COUNTS)
COPIES_PER_VALUE = 7
"""'70 Food cards: 7 x value 1-10'."""
NUM_FOOD = COPIES_PER_VALUE * NUM_VALUES

BID, EAT, OVER = 0, 1, 2
PHASE_NAMES = ("bid", "eat", "over")
NOT_DIED, LIVED, DIED = 0, 1, 2

UNKNOWN = -1
"""Placeholder in an information state: an unknown card (hand count, pending card, pile or deck entry)."""

PLAY_BASE = 0
NO_EAT = 10
HYENA_BASE = 11
LION_BASE = 14


def num_actions(num_players: int) -> int:
    """Size of the action space for ``num_players`` players."""
    return LION_BASE + NUM_TYPES * (num_players - 1)


def play_action(value: int) -> int:
    """Action id that plays a food card of ``value`` (1..10)."""
    return PLAY_BASE + value - 1


def hyena_action(animal: int) -> int:
    """Action id of the hyena eating an animal of type ``animal`` from the eater's graveyard."""
    return HYENA_BASE + animal


def lion_action(offset: int, animal: int) -> int:
    """Action id of the lion eating type ``animal`` from the savanna ``offset`` (1..n-1) seats after the eater."""
    return LION_BASE + NUM_TYPES * (offset - 1) + animal


def decode(action: int) -> tuple[str, int, int]:
    """``(kind, a, b)``: ("play", value, 0), ("no_eat", 0, 0), ("hyena", type, 0) or ("lion", offset, type)."""
    if action < NO_EAT:
        return "play", action + 1, 0
    if action == NO_EAT:
        return "no_eat", 0, 0
    if action < LION_BASE:
        return "hyena", action - HYENA_BASE, 0
    rel = action - LION_BASE
    return "lion", rel // NUM_TYPES + 1, rel % NUM_TYPES


def to_str(action: int, eater: int, num_players: int) -> str:
    """Notation of ``action``; ``eater`` is the acting seat (needed to name a lion's target seat)."""
    kind, a, b = decode(action)
    if kind == "play":
        return f"play {a}"
    if kind == "no_eat":
        return "no eat"
    if kind == "hyena":
        return f"eat {ANIMAL_NAMES[a]}"
    return f"eat {ANIMAL_NAMES[b]} of p{(eater + a) % num_players}"


def expand_food(counts: list[int]) -> list[int]:
    """Food counts per value -> list of values (ascending)."""
    out: list[int] = []
    for i, c in enumerate(counts):
        out.extend([i + 1] * c)
    return out


def count_food(values: list[int]) -> list[int]:
    """List of food values -> counts per value."""
    out = [0] * NUM_VALUES
    for v in values:
        out[v - 1] += 1
    return out


class ActionCodec:
    """Action ids <-> meaning and notation for ``num_players`` players."""

    def __init__(self, num_players: int):
        self.num_players = num_players
        self.num_actions = num_actions(num_players)

    def decode(self, action: int) -> tuple[str, int, int]:
        """``("play", value, 0)``, ``("no_eat", 0, 0)``, ``("hyena", type, 0)`` or ``("lion", offset, type)``."""
        return decode(action)

    def to_str(self, state: Any, action: int) -> str:
        """Notation of ``action`` for the player to move in ``state`` (the eater in the eat phase)."""
        seat = state.eater if state.phase == EAT else max(state.current, 0)
        return to_str(action, seat, self.num_players)

    def parse(self, state: Any, text: str) -> int | None:
        """The action whose notation is ``text`` (any case, spaces trimmed) in ``state``; None if none is."""
        wanted = " ".join(text.strip().lower().split())
        for action in range(self.num_actions):
            if self.to_str(state, action) == wanted:
                return action
        return None
