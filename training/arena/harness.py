"""What a harness that seats policies (the tournament, ``play``, the web app) honours besides ``act``.

* A policy may raise :class:`Forfeit` from ``act`` to give up the game (``llm:...,fallback=forfeit`` when no ask
  gave a legal move): the game ends at that ply with :func:`forfeit_returns`, and the record names the seat
  (``forfeit``).
* A policy may keep a transcript of each decision (``take_transcript()``, the ``llm:`` policy's prompts and
  replies): :func:`take_transcript` collects it, with its ply and the policy's name, for the record's
  ``transcripts``.
"""

from __future__ import annotations

from typing import Any

from envs.common.game import pairwise_rewards

__all__ = ["Forfeit", "forfeit_returns", "take_transcript"]


class Forfeit(Exception):  # noqa: N818 - the game's word for it
    """Raised by a policy's ``act`` to give up the game (``llm:...,fallback=forfeit`` when no ask gave a legal
    move): the harness ends the game at that ply, the seat ranked last alone and every other seat sharing first
    place (:func:`forfeit_returns`), and writes the seat in the record's ``forfeit``."""

    def __init__(self, seat: int, reason: str):
        super().__init__(reason)
        self.seat = seat
        self.reason = reason


def forfeit_returns(num_players: int, seat: int) -> list[float]:
    """The returns of a game that ``seat`` forfeited: the pairwise ranking rewards (the games' default scheme,
    whatever the game's options) of that seat last alone and every other seat tied first: -1 for it, +1 / (n - 1)
    for each other seat (zero-sum; a loss and a win with two players)."""
    return [float(r) for r in pairwise_rewards([0 if s == seat else 1 for s in range(num_players)])]


def take_transcript(policy: Any, ply: int) -> dict[str, Any] | None:
    """The transcript of ``policy``'s last decision (a policy with ``take_transcript()``, such as ``llm:``), with
    the ``ply`` it was made at and the policy's name; None for a policy that keeps none."""
    take = getattr(policy, "take_transcript", None)
    entry = take() if callable(take) else None
    if entry is None:
        return None
    return {"ply": ply, "policy": str(getattr(policy, "name", "")), **entry}
