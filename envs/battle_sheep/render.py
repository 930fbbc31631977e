"""Battle Sheep on screen and on paper: the text and picture of the pasture, the snapshots (JSON and text boards)
and the board data the web page draws (``training/play/web``)."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from envs.battle_sheep.actions import (
    BUILD,
    EMPTY,
    MOVE,
    NO_PASTURE,
    OVER,
    PHASE_NAMES,
    PLACE,
    SEAT_LETTERS,
)
from envs.battle_sheep.kernels import STATE
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState
from envs.common.game import SnapshotError
from envs.common.hexgrid import DIRECTION_NAMES, DIRECTIONS, enclosing_hexagon
from envs.common.render import EMPTY as EMPTY_RGB
from envs.common.render import GRASS, PLAYER_COLORS, hex_board, stack_vertical, text_panel

_JSON_ORDER = ("phase", "to_move", *(f.name for f in STATE.reference_fields if f.name not in ("phase", "to_move")))
"""The snapshots' key order since the first: the phase and the mover, then the declared fields (``kernels.STATE``)
in the declaration's order."""


def state_to_json(game: BattleSheepGame, state: BattleSheepState) -> dict[str, Any]:
    """Every field of the declaration (``kernels.STATE``) as plain ints and lists: ``stacks`` (a list per seat) and
    ``can_move`` (bools) as the game writes them, the phase by its name. The pasture's books are not written (the
    snapshot's cells give them back)."""
    data = STATE.to_json(state, own={"stacks": [list(s) for s in state.stacks], "can_move": list(state.can_move)})
    data["phase"] = PHASE_NAMES[state.phase]
    return {name: data[name] for name in _JSON_ORDER}


def state_from_json(game: BattleSheepGame, data: dict[str, Any]) -> BattleSheepState:
    """Inverse of :func:`state_to_json`: the declaration checks the plain fields (``kernels.STATE``: ints of their
    dtypes, lists of their shapes), then the phase's name, each seat's stacks and who can move, the cell owners and
    the frame are checked here, and the pasture's books derived from the cells. SnapshotError for damaged data."""
    n, cells_n = game.num_players, game.grid.num_cells
    state = game.blank_state()
    try:
        if isinstance(data, dict) and "phase" in data:
            if not isinstance(data["phase"], str) or data["phase"] not in PHASE_NAMES:
                raise SnapshotError(f"phase must be one of {PHASE_NAMES}, not {data['phase']!r}")
            data = {**data, "phase": PHASE_NAMES.index(data["phase"])}
        STATE.from_json(data, state, game.layout_sizes)
        stacks = [[int(c) for c in s] for s in data["stacks"]]
        can_move = [bool(b) for b in data["can_move"]]
    except (SnapshotError, KeyError, TypeError, ValueError, OverflowError) as err:
        raise SnapshotError(f"damaged Battle Sheep state: {err}") from err
    state.stacks, state.can_move = stacks, can_move
    if (
        len(state.stacks) != n
        or len(state.can_move) != n
        or any(not NO_PASTURE <= c < n for c in state.cells)
        or any(not 0 <= c < cells_n or state.cells[c] != s for s in range(n) for c in state.stacks[s])
    ):
        raise SnapshotError("damaged Battle Sheep state: sizes or cell owners do not fit these options")
    state.pasture = [i for i, c in enumerate(state.cells) if c != NO_PASTURE]
    state.num_pasture = len(state.pasture)
    if state.phase == BUILD and state.pasture and game.frame_shift(state.pasture) != (0, 0):
        raise SnapshotError(
            "damaged Battle Sheep state: during the build the pasture is centred on the canvas "
            "(RULES.md, 'The frame'); this one is not"
        )
    if state.phase != BUILD:
        state.border = game.outer_border(state)
    return state


def render_ansi(game: BattleSheepGame, state: BattleSheepState) -> str:
    """The pasture as offset rows: '.' empty pasture, 'A16' a stack of seat A with 16 sheep."""
    grid = game.grid
    used = [i for i in range(grid.num_cells) if state.cells[i] != NO_PASTURE]
    header = status_line(game, state)
    if not used:
        return header + "\n(no pasture yet)"
    rows = sorted({grid.coords[i][1] for i in used})
    # offset column of a cell: 2q + r (doubled width), 4 characters per half step
    xs = [2 * grid.coords[i][0] + grid.coords[i][1] for i in used]
    x0 = min(xs)
    lines = []
    for r in range(rows[0], rows[-1] + 1):
        line = [" "] * (2 * (max(xs) - x0) + 4)
        for i in used:
            q, rr = grid.coords[i]
            if rr != r:
                continue
            c = state.cells[i]
            tok = " . " if c == EMPTY else f"{SEAT_LETTERS[c]}{state.heights[i]:<2d}"
            x = 2 * (2 * q + r - x0)
            line[x : x + 3] = list(tok)
        lines.append("".join(line).rstrip())
    return header + "\n" + "\n".join(lines)


def status_line(game: BattleSheepGame, state: BattleSheepState) -> str:
    if state.phase == OVER:
        keys = [game.rank_key(state, s) for s in range(game.num_players)]
        parts = [f"{SEAT_LETTERS[s]}: {k[0]} pastures, herd {k[1]}" for s, k in enumerate(keys)]
        return "game over - " + "; ".join(parts)
    return f"{PHASE_NAMES[state.phase]} phase, {SEAT_LETTERS[state.to_move]} to move"


def render_rgb(game: BattleSheepGame, state: BattleSheepState) -> np.ndarray:
    used = [i for i in range(game.grid.num_cells) if state.cells[i] != NO_PASTURE]
    if not used:
        used = [game.center]
    fills, labels = [], []
    for i in used:
        c = state.cells[i]
        if c >= 0:
            fills.append(PLAYER_COLORS[c])
            labels.append(str(state.heights[i]))
        else:
            fills.append(GRASS if c == EMPTY else EMPTY_RGB)
            labels.append("")
    board = hex_board(game.grid, used, fills, labels, size=16.0)
    lines = status_line(game, state).replace(" - ", "\n").replace("; ", "\n").splitlines()
    return stack_vertical([text_panel(lines), board])


def board_from_text(game: BattleSheepGame, text: str, to_move: int = 0) -> BattleSheepState:
    """A move-phase (or, if some seat has no stack yet, stack-placement-phase) state from a text board.

    Rows are lines; tokens are separated by spaces; odd rows are read as shifted half a cell to the right
    (odd-r offset layout), so indent them for readability. Tokens: ``.`` empty pasture, ``_`` no pasture,
    ``A16`` / ``b3`` a stack of seat A (0), B (1), ... with that many sheep. The board is centred on the canvas
    as the build phase centres a pasture (its smallest enclosing hexagon's centre, RULES.md "The frame").
    All tiles count as placed. ``to_move`` is the seat to act; the game ends at once if nobody can move.
    """
    entries = []
    for r, line in enumerate(line_ for line_ in textwrap.dedent(text).splitlines() if line_.strip()):
        for col, tok in enumerate(line.split()):
            q = col - (r - (r & 1)) // 2
            entries.append((q, r, tok))
    used = [(q, r) for q, r, t in entries if t != "_"]
    (cq, cr), _ = enclosing_hexagon(used)
    dq, dr = -cq, -cr
    state = game.blank_state()
    for q, r, tok in entries:
        if tok == "_":
            continue
        cell = game.grid.index.get((q + dq, r + dr))
        if cell is None:
            raise ValueError(f"text board does not fit the canvas of radius {game.canvas_radius}")
        if tok == ".":
            state.cells[cell] = EMPTY
        else:
            seat = SEAT_LETTERS.index(tok[0].upper())
            if seat >= game.num_players:
                raise ValueError(f"token {tok!r}: no seat {tok[0]} with {game.num_players} players")
            state.cells[cell] = seat
            state.heights[cell] = int(tok[1:])
            state.stacks[seat].append(cell)
    state.pasture = [i for i, c in enumerate(state.cells) if c != NO_PASTURE]
    state.num_pasture = len(state.pasture)
    state.tiles_left = [0] * game.num_players
    state.border = game.outer_border(state)
    placed = [bool(s) for s in state.stacks]
    if not all(placed):
        state.phase = PLACE
        state.stacks_placed = sum(placed)
        state.to_move = to_move
        return state
    state.phase = MOVE
    state.stacks_placed = game.num_players
    game.advance_mover(state, first=to_move)
    return state


# ----- the web page's board ----------------------------------------------------------------------------------------
def seat_names(game: BattleSheepGame) -> list[str]:
    """The letter of each seat, shown beside ``player_i``."""
    return [SEAT_LETTERS[i] for i in range(game.num_players)]


def board_data(game: BattleSheepGame, view_state: BattleSheepState) -> dict[str, Any]:
    """The board the web page draws: the pasture's cells as axial ``[q, r, owner, height]`` (owner -1: free), the
    phase, each seat's pastures and largest herd, and the direction names and vectors of the moves."""
    data = state_to_json(game, view_state)
    grid = game.grid
    cells = []
    for i, owner in enumerate(data["cells"]):
        if owner == NO_PASTURE:
            continue
        q, r = grid.coords[i]
        cells.append([q, r, owner, data["heights"][i] if owner >= 0 else 0])
    keys = [game.rank_key(view_state, s) for s in range(game.num_players)]
    return {
        "kind": "battle_sheep",
        "radius": grid.radius,
        "phase": data["phase"],
        "to_move": data["to_move"],
        "cells": cells,
        "tiles_left": data["tiles_left"],
        "can_move": data["can_move"],
        "pastures": [k[0] for k in keys],
        "herds": [k[1] for k in keys],
        "directions": list(DIRECTION_NAMES),
        "direction_vectors": [list(d) for d in DIRECTIONS],
    }


def move_data(
    game: BattleSheepGame, view_state: BattleSheepState, board: dict[str, Any], action: int, text: str
) -> dict[str, Any]:
    """One legal move for the page, from the codec: a tile (its four cells, the anchor first), a stack's cell, or a
    move (from, direction, where the sheep stop, how many)."""
    kind, a, b, k = game.codec.decode(action)
    coords = game.grid.coords
    if kind == "tile":
        return {"id": action, "text": text, "kind": "tile", "cells": [list(coords[c]) for c in game.tile_cells[action]]}
    if kind == "stack":
        return {"id": action, "text": text, "kind": "stack", "cell": list(coords[a])}
    return {
        "id": action,
        "text": text,
        "kind": "move",
        "from": list(coords[a]),
        "dir": b,
        "to": list(coords[game.slide(view_state, a, b)]),
        "count": k,
    }


def hidden_from(
    game: BattleSheepGame, view_before: BattleSheepState, actor: int, action: int, viewer: int | None
) -> bool:
    """Whether ``viewer`` may not learn ``actor``'s ``action``: never here (no hidden information)."""
    return False


def hidden_text(game: BattleSheepGame, view_before: BattleSheepState, actor: int, action: int) -> str:
    """Log text of a move the viewer may not see (there are none here)."""
    return "moves (hidden)"


def result_note(game: BattleSheepGame, final_state: BattleSheepState) -> str | None:
    """Which rule decided: the player who could not move (splits), or the largest herd among the players tied on
    pastures (RULES.md: most pastures; tie: largest herd; still tied: shared)."""
    if game.end_rule == "splits":
        return f"player_{final_state.to_move} could not move, and loses."
    keys = [game.rank_key(final_state, s) for s in range(game.num_players)]
    top = max(k[0] for k in keys)
    tied = [s for s, k in enumerate(keys) if k[0] == top]
    if len(tied) < 2:
        return None
    herds = ", ".join(f"player_{s} {keys[s][1]}" for s in tied)
    best = max(keys[s][1] for s in tied)
    if sum(keys[s][1] == best for s in tied) > 1:
        return f"Tied on pastures ({top}) and on the largest herd ({herds}): shared."
    return f"Tied on pastures ({top}): the largest herd decided ({herds})."


def events(game: BattleSheepGame, before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """Public events between two positions: none beyond the moves (no chance after the build)."""
    return []
