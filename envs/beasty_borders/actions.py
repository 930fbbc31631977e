"""Action codec of Beasty Borders: one flat ``Discrete`` space per variant.

Main game (``variant="main"``), 4 actions::

    0 1 2 | 3
    ------+-----
    type  | pass      type k = the mover's k-th animal type: A B C for farm (seat 0), X Y Z for wild (seat 1)

'Without luck' variant (``variant="without_luck"``), 29 actions::

    0 .. 27            | 28
    -------------------+-----
    bidding-row figure | pass   action v-1 = the figure of value v (1..28) in the row AXBYAXBYAXBYAXBYAXBYAXBXAYXA

Notation: main ``A``/``B``/``C``/``X``/``Y``/``Z`` (place that animal on the steps-marker) or ``pass``;
variant ``<letter><value>`` (``A1``, ``X2``, ... ``A28``: point at that figure) or ``pass``.
"""

from __future__ import annotations

SEAT_LETTERS: tuple[str, str] = ("ABC", "XYZ")
"""Letters of the animal types of seat 0 (farm) and seat 1 (wild)."""

MAIN_NUM_TYPES = 3
MAIN_COUNTS: tuple[int, ...] = (8, 7, 5)
"""Figures of each type per player in the main game (farm A B C, wild X Y Z)."""
MAIN_NUM_ACTIONS = MAIN_NUM_TYPES + 1
MAIN_PASS = MAIN_NUM_TYPES

BIDDING_ROW = "AXBYAXBYAXBYAXBYAXBYAXBXAYXA"
"""The variant's bidding row, values 1..28 from left to right (A, X: 8 each; B, Y: 6 each)."""
ROW_LEN = len(BIDDING_ROW)
VARIANT_NUM_TYPES = 2
VARIANT_COUNTS: tuple[int, ...] = (8, 6)
VARIANT_NUM_ACTIONS = ROW_LEN + 1
VARIANT_PASS = ROW_LEN

ROW_OWNER: tuple[int, ...] = tuple(0 if ch in SEAT_LETTERS[0] else 1 for ch in BIDDING_ROW)
"""Seat owning the figure at row index i (value i + 1)."""
ROW_TYPE: tuple[int, ...] = tuple(SEAT_LETTERS[ROW_OWNER[i]].index(ch) for i, ch in enumerate(BIDDING_ROW))
"""Type index (0 = A/X, 1 = B/Y) of the figure at row index i."""


def main_action_to_str(seat: int, action: int) -> str:
    """Notation of a main-game action for ``seat``."""
    return "pass" if action == MAIN_PASS else SEAT_LETTERS[seat][action]


def variant_action_to_str(action: int) -> str:
    """Notation of a variant action (the figure's letter and value, or ``pass``)."""
    return "pass" if action == VARIANT_PASS else f"{BIDDING_ROW[action]}{action + 1}"


def main_str_to_action(seat: int, text: str) -> int | None:
    """Parse main-game notation for ``seat``; None if it is not an action of that seat."""
    t = text.strip().upper()
    if t == "PASS":
        return MAIN_PASS
    if len(t) == 1 and t in SEAT_LETTERS[seat]:
        return SEAT_LETTERS[seat].index(t)
    return None


def variant_str_to_action(text: str) -> int | None:
    """Parse variant notation (``A1`` .. ``A28`` or ``pass``); None if malformed or the letter is wrong."""
    t = text.strip().upper()
    if t == "PASS":
        return VARIANT_PASS
    if len(t) >= 2 and t[1:].isdigit():
        v = int(t[1:])
        if 1 <= v <= ROW_LEN and BIDDING_ROW[v - 1] == t[0]:
            return v - 1
    return None
