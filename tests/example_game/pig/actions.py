"""Pig's action codec: one flat ``Discrete(2)`` space.

::

    0   ROLL   roll the die (always legal while the game is live)
    1   HOLD   bank the turn total and pass the turn (legal when the turn total is above 0)

Notation: ``roll`` and ``hold``. The game's vocabulary lives here too (the die's faces, the names of the
actions): the rules, the observation and the pictures all read it.
"""

from __future__ import annotations

from typing import Any

ROLL, HOLD = 0, 1
NUM_ACTIONS = 2
ACTION_NAMES: tuple[str, ...] = ("roll", "hold")
DIE_FACES = 6
"""A six-sided die: faces 1..6."""
BUST = 1
"""The face that loses the turn total and passes the turn."""


class ActionCodec:
    """Action ids <-> meaning and notation (the same two actions in every position)."""

    num_actions = NUM_ACTIONS

    def decode(self, action: int) -> tuple[str]:
        """``("roll",)`` or ``("hold",)``."""
        return (ACTION_NAMES[action],)

    def to_str(self, state: Any, action: int) -> str:
        """Notation of ``action`` (the same in every state): ``roll`` or ``hold``."""
        return ACTION_NAMES[action]

    def parse(self, state: Any, text: str) -> int | None:
        """The action whose notation is ``text`` (any case, spaces trimmed), or None if it is not notation."""
        wanted = text.strip().lower()
        return ACTION_NAMES.index(wanted) if wanted in ACTION_NAMES else None
