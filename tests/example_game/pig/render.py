"""Pig on screen and on paper: the text picture, the image, the snapshots (JSON and hand-made positions) and the
data the web page draws (``training/play/web``).

Every function takes the rule engine (``game``, a :class:`~pig.rules.PigGame`) first. This room comes after
``rules.py`` in the room order: the Game reaches it through its descriptor (``Game.views``), never by import.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.common import render as rd
from envs.common.game import TERMINAL
from pig.actions import BUST
from pig.kernels import STATE
from pig.rules import PigGame, PigState


def state_to_json(game: PigGame, state: PigState) -> dict[str, Any]:
    """Every field of the state as plain ints (nothing is hidden in Pig; the declaration's JSON form,
    ``kernels.STATE``)."""
    return STATE.to_json(state)


def state_from_json(game: PigGame, data: dict[str, Any]) -> PigState:
    """Inverse of :func:`state_to_json`; SnapshotError for damaged data or a position no game reaches."""
    state = game.blank_state()
    STATE.from_json(data, state)
    game.check_state(state)
    return state


def status_lines(game: Any, state: Any) -> list[str]:
    """The position in a few lines: the scores, then whose turn it is and the turn total (or who won)."""
    lines = [f"Pig to {game.target}: " + "  ".join(f"p{s} {state.scores[s]}" for s in range(2))]
    if state.current == TERMINAL:
        lines.append(f"game over: p{game.winner(state)} wins")
        return lines
    roll = {0: "", BUST: " (rolled a 1: turn lost)"}.get(state.last_roll, f" (rolled a {state.last_roll})")
    lines.append(f"p{state.current} to move: turn total {state.turn_total}{roll}")
    return lines


def render_ansi(game: Any, state: Any) -> str:
    """The text picture: :func:`status_lines`, one per line."""
    return "\n".join(status_lines(game, state))


def render_rgb(game: Any, state: Any) -> np.ndarray:
    """The text picture on an image (H x W x 3 uint8)."""
    return rd.text_panel(status_lines(game, state))


# ----- the web page ------------------------------------------------------------------------------------------------
def seat_names(game: Any) -> list[str]:
    """A short name per seat, shown beside ``player_i``."""
    return ["first", "second"]


def board_data(game: Any, view_state: Any) -> dict[str, Any]:
    """What the web page draws: the scores, the target, whose turn it is, the turn total and the last roll."""
    data = state_to_json(game, view_state)
    over = data["current"] == TERMINAL
    return {
        "kind": "pig",
        "target": game.target,
        **data,
        "over": over,
        "winner": game.winner(view_state) if over else None,
    }


def move_data(game: Any, view_state: Any, board: dict[str, Any], action: int, text: str) -> dict[str, Any]:
    """One legal move for the page, from the codec: ``{"id", "text", "kind": "roll" | "hold"}``."""
    return {"id": action, "text": text, "kind": game.codec.decode(action)[0]}


def hidden_from(game: Any, view_before: Any, actor: int, action: int, viewer: int | None) -> bool:
    """Whether ``viewer`` may not learn ``actor``'s ``action``: never (no hidden information)."""
    return False


def hidden_text(game: Any, view_before: Any, actor: int, action: int) -> str:
    """Log text of a move the viewer may not see (there are none in Pig)."""
    return "moves (hidden)"


def result_note(game: Any, final_state: Any) -> str | None:
    """How a finished game was decided, beyond the scores the page shows: nothing to add."""
    return None


def events(game: Any, before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """The die, as a log line, after a roll (``after["last_roll"]`` > 0: the last move was a roll)."""
    if before is None or after == before or after["last_roll"] == 0:
        return []
    if after["last_roll"] == BUST:
        return ["the die shows 1: the turn total is lost"]
    return [f"the die shows {after['last_roll']}: turn total {after['turn_total']}"]
