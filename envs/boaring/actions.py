"""Action codec of Boaring: one flat ``Discrete(14 + 3 * (n - 1))`` space, each phase owning a range.

Layout (``n`` = number of players, ``t`` = animal type 0 boar, 1 hyena, 2 lion)::

    0 .. 9                     PLAY v+1    play the food card of value v+1 face down   (bid phase)
    10                         NO_EAT      do not eat                                   (eat phase)
    11 .. 13                   HYENA t     hyena eats an animal of type t from my own graveyard
    14 + 3*(o-1) + t           LION o t    lion eats an animal of type t from the savanna of the
       (o = 1 .. n-1)                      player o seats after me (clockwise), 'me first' order

Notation: ``play 7``, ``no eat``, ``eat hyena`` (own graveyard), ``eat boar of p2`` (absolute seat of the
savanna's owner; the codec turns it into the relative offset).
"""

from __future__ import annotations

NUM_VALUES = 10
"""Food values 1..10; value v is index v-1."""
ANIMAL_NAMES: tuple[str, ...] = ("boar", "hyena", "lion")
BOAR, HYENA, LION = 0, 1, 2
NUM_TYPES = 3

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
