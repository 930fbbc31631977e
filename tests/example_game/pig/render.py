"""Pig on screen and on paper: the text picture, the image, the snapshots (JSON and hand-made positions) and the
data the web page draws (``training/play/web``).

Every function takes the rule engine (``game``, a :class:`~pig.rules.PigGame`) first. This room comes before
``rules.py`` in the room order, so it imports no rule code: it reads the state's public fields and builds states
through ``game.blank_state()``; ``rules.py`` imports it for its snapshots and pictures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.common import render as rd
from envs.common.game import TERMINAL, SnapshotError
from pig.actions import BUST, DIE_FACES


def make_state(game: Any, scores: list[int], turn_total: int = 0, current: int = 0, last_roll: int = 0) -> Any:
    """A position from its fields (for tests, puzzles and snapshots), checked: SnapshotError (a ValueError) for
    one that no game reaches. A finished game has ``current`` = TERMINAL (-1) and the winner's score at the target
    or above."""
    for name, value in (("turn_total", turn_total), ("current", current), ("last_roll", last_roll)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise SnapshotError(f"{name} must be an integer, got {value!r}")
    if (
        not isinstance(scores, list)
        or len(scores) != 2
        or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in scores)
    ):
        raise SnapshotError(f"scores must be a list of 2 integers >= 0, got {scores!r}")
    target = game.target
    reached = [s >= target for s in scores]
    if current == TERMINAL:
        if sum(reached) != 1 or turn_total != 0 or last_roll != 0:
            raise SnapshotError("a finished game has one score at the target, no turn total and ends on a hold")
    elif current not in (0, 1) or any(reached):
        raise SnapshotError(f"a live game has a seat 0 or 1 to move and both scores below {target}")
    if not 0 <= last_roll <= DIE_FACES:
        raise SnapshotError(f"last_roll must be 0 (no roll: the turn's start) or a face 1..{DIE_FACES}")
    if last_roll in (0, BUST) and turn_total != 0:
        raise SnapshotError("a turn total needs a last roll of 2..6 (a 1 or a hold leaves it at 0)")
    if last_roll > BUST and turn_total < last_roll:
        raise SnapshotError("the turn total holds at least the last roll")
    state = game.blank_state()
    state.scores = list(scores)
    state.turn_total = turn_total
    state.current = current
    state.last_roll = last_roll
    return state


def state_to_json(game: Any, state: Any) -> dict[str, Any]:
    """Every field of the state as plain ints (nothing is hidden in Pig)."""
    return {
        "scores": [int(s) for s in state.scores],
        "turn_total": int(state.turn_total),
        "current": int(state.current),
        "last_roll": int(state.last_roll),
    }


def state_from_json(game: Any, data: dict[str, Any]) -> Any:
    """Inverse of :func:`state_to_json`; SnapshotError for damaged data."""
    if not isinstance(data, dict):
        raise SnapshotError("a Pig state must be a dict")
    try:
        return make_state(game, data["scores"], data["turn_total"], data["current"], data["last_roll"])
    except KeyError as err:
        raise SnapshotError(f"Pig state is missing field {err}") from err


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
