"""Bestiarium on screen and on paper: the text board and the picture, the snapshots (JSON and text boards) and the
board data the web page draws (``training/play/web``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.bestiarium.actions import GROW, PHASE_NAMES, SEAT_NAMES, STONE_CHARS
from envs.bestiarium.rules import BestiariumGame, BestiariumState
from envs.common import render as rd
from envs.common.game import SnapshotError


def board_rows(game: BestiariumGame) -> list[list[int]]:
    rows: list[list[int]] = [[] for _ in range(2 * game.grid.radius + 1)]
    for i, (_, r) in enumerate(game.grid.coords):
        rows[r + game.grid.radius].append(i)
    return rows


def board_text(game: BestiariumGame, state: BestiariumState, labels: bool = True) -> str:
    """The board as hexagon-shaped text rows (``.`` ``X`` ``O``; ``x``/``o`` = the creature that must grow)."""
    radius = game.grid.radius
    grow = state.phase == GROW and not state.over
    lines = []
    for k, row in enumerate(board_rows(game)):
        chars = []
        for i in row:
            ch = STONE_CHARS[state.color[i]]
            if grow and state.cid[i] == state.chain:
                ch = ch.lower()
            chars.append(ch)
        pad = " " * abs(k - radius)
        lines.append((f"{chr(ord('a') + k)} " if labels else "") + pad + " ".join(chars))
    return "\n".join(lines)


def state_from_text(game: BestiariumGame, text: str, to_move: int = 0, passes: int = 0, plies: int = 0) -> Any:
    """A position from a text board (as :meth:`board_text` writes it; row labels optional).

    ``.`` empty, ``X``/``B`` Black, ``O``/``W`` White; lower-case ``x``/``o`` mark the creature that must grow
    (the position is then in the grow phase and they must be one creature of ``to_move``). ``passes`` = 1
    means ``1 - to_move`` has just passed. Raises ValueError for a malformed board.
    """
    rows = board_rows(game)
    lines = [ln.split() for ln in text.strip("\n").splitlines() if ln.strip()]
    if len(lines) != len(rows):
        raise ValueError(f"expected {len(rows)} rows, got {len(lines)}")
    color = bytearray(game.num_cells)
    marked = []
    for k, (tokens, row) in enumerate(zip(lines, rows)):
        if tokens and tokens[0] == chr(ord("a") + k):
            tokens = tokens[1:]
        if len(tokens) != len(row):
            raise ValueError(f"row {k} needs {len(row)} cells, got {len(tokens)}: {tokens}")
        for tok, i in zip(tokens, row):
            if tok in (".",):
                continue
            if tok in ("X", "B", "x"):
                color[i] = 1
            elif tok in ("O", "W", "o"):
                color[i] = 2
            else:
                raise ValueError(f"unknown cell token {tok!r}")
            if tok in ("x", "o"):
                marked.append(i)
    return build_state(game, color, to_move, marked, passes, 1 - to_move if passes == 1 else -1, plies, False)


def board_state(game: BestiariumGame, color: Any) -> BestiariumState:
    """A state holding the board ``color`` (a colour per cell), Black to place: its creatures numbered in order of
    their components (Black's first), each cell list sorted, and both seats' legality recomputed."""
    s = game.blank_state()
    s.color = bytearray(color)
    color = s.color
    for col in (1, 2):
        members = [color[i] == col for i in range(game.num_cells)]
        for comp in game.grid.components(members):
            c = s.next_id
            s.next_id += 1
            s.members[c] = sorted(comp)
            for i in comp:
                s.cid[i] = c
    for i in range(game.num_cells):
        if color[i] == 0:
            s.legal[0][i] = game.legal_at(s, i, 1)
            s.legal[1][i] = game.legal_at(s, i, 2)
    return s


def build_state(
    game: BestiariumGame,
    color: bytearray,
    to_move: int,
    chain_cells: list[int],
    passes: int,
    first_passer: int,
    plies: int,
    over: bool,
) -> Any:
    """A consistent state from a colour vector (creatures, legality recomputed); ValueError if inconsistent."""
    s = board_state(game, color)
    s.to_move = to_move
    s.passes = passes
    s.first_passer = first_passer
    s.plies = plies
    s.over = over
    if chain_cells:
        c = s.cid[chain_cells[0]]
        if c < 0 or sorted(chain_cells) != s.members[c]:
            raise ValueError("the marked cells must be exactly one whole creature")
        if color[chain_cells[0]] != to_move + 1:
            raise ValueError("the creature that must grow belongs to the player to move")
        s.phase = GROW
        s.chain = c
    return s


def state_to_json(game: BestiariumGame, state: BestiariumState) -> dict[str, Any]:
    """Exact JSON form: the board string, the chain creature's cells, turn and pass books. Written out, not by
    ``kernels.STATE.to_json``: the board is text (the batched state's ``color``), the phase a name, the chain the
    creature's cells and ``over`` a bool, none of them a declared field's plain ints."""
    return {
        "board": "".join(STONE_CHARS[v] for v in state.color),
        "to_move": state.to_move,
        "phase": PHASE_NAMES[state.phase],
        "chain": sorted(state.members[state.chain]) if state.phase == GROW else [],
        "passes": state.passes,
        "first_passer": state.first_passer,
        "plies": state.plies,
        "over": state.over,
    }


def state_from_json(game: BestiariumGame, data: dict[str, Any]) -> Any:
    """Inverse of :meth:`state_to_json`; SnapshotError for damaged data."""
    try:
        board = data["board"]
        if not isinstance(board, str) or len(board) != game.num_cells or set(board) - set(STONE_CHARS):
            raise SnapshotError(f"bad board {board!r}")
        to_move, passes, first, plies = data["to_move"], data["passes"], data["first_passer"], data["plies"]
        for name, v, lo, hi in (
            ("to_move", to_move, 0, 1),
            ("passes", passes, 0, 2),
            ("first_passer", first, -1, 1),
            ("plies", plies, 0, 10**9),
        ):
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise SnapshotError(f"bad {name} {v!r}")
        over = data["over"]
        phase = data["phase"]
        chain = data["chain"]
        if not isinstance(over, bool) or phase not in PHASE_NAMES or not isinstance(chain, list):
            raise SnapshotError("bad over/phase/chain")
        if (phase == "grow") != bool(chain) or (over and (phase == "grow" or passes != 2)):
            raise SnapshotError("inconsistent phase, chain and end of game")
        if over != (passes == 2) or (passes == 0) != (first == -1):
            raise SnapshotError("inconsistent passes and first_passer")
        if passes and first != (1 - to_move if passes == 1 else to_move):
            raise SnapshotError("first_passer does not fit the turn")
        if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < game.num_cells for i in chain):
            raise SnapshotError(f"bad chain cells {chain!r}")
        color = bytearray(STONE_CHARS.index(ch) for ch in board)
        return build_state(game, color, to_move, chain, passes, first, plies, over)
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise SnapshotError(f"damaged Bestiarium state: {err!r}") from err


def status_lines(game: BestiariumGame, state: BestiariumState) -> list[str]:
    """Who is to do what, passes, ply, and the scoring cascade's first rows."""
    if state.over:
        w = game.winner(state)
        head = f"Game over after {state.plies} plies: {SEAT_NAMES[w]} wins"
    elif game.is_truncated(state):
        head = f"Truncated at the ply cap ({state.plies} plies)"
    elif state.phase == GROW:
        c = state.chain
        head = (
            f"{SEAT_NAMES[state.to_move]} ({STONE_CHARS[state.to_move + 1]}) must grow its creature of size "
            f"{len(state.members[c])} (ply {state.plies})"
        )
    else:
        head = f"{SEAT_NAMES[state.to_move]} ({STONE_CHARS[state.to_move + 1]}) to place (ply {state.plies})"
    lines = [head]
    if state.passes == 1 and not state.over:
        lines.append(f"{SEAT_NAMES[state.first_passer]} passed; another pass ends the game")
    rows = [row for row in game.cascade(state) if row[1] or row[2]][:4]
    if rows:
        lines.append("cascade size:Black/White  " + "  ".join(f"{s}:{b}/{w}" for s, b, w in rows))
    return lines


def render_ansi(game: BestiariumGame, state: BestiariumState) -> str:
    """The text board (X Black, O White, lower case = the creature that must grow) and status lines."""
    return board_text(game, state) + "\n" + "\n".join(status_lines(game, state))


def render_rgb(game: BestiariumGame, state: BestiariumState) -> np.ndarray:
    """Hexes (dark = Black, light = White, labelled with their creature's size) over a status panel."""
    fills = []
    labels = []
    grow = state.phase == GROW and not state.over
    for i in range(game.num_cells):
        v = state.color[i]
        if v == 0:
            fills.append(rd.EMPTY)
            labels.append("")
            continue
        chain = grow and state.cid[i] == state.chain
        if v == 1:
            fills.append((150, 40, 40) if chain else (30, 30, 30))
        else:
            fills.append((255, 200, 200) if chain else (250, 250, 250))
        labels.append(str(len(state.members[state.cid[i]])))
    board = rd.hex_board(game.grid, list(range(game.num_cells)), fills, labels, size=16.0)
    return rd.stack_vertical([board, rd.text_panel(status_lines(game, state), width=board.shape[1])])


# ----- the web page's board ----------------------------------------------------------------------------------------
def seat_names(game: BestiariumGame) -> list[str]:
    """The colour of each seat, shown beside ``player_i``."""
    return list(SEAT_NAMES)


def board_data(game: BestiariumGame, view_state: BestiariumState) -> dict[str, Any]:
    """The board the web page draws: every cell with its axial ``(q, r)``, name, stone, creature and the creature's
    size, whether it is the creature that must grow, and the scoring cascade's live rows."""
    data = state_to_json(game, view_state)
    grid = game.grid
    names = game.codec.names
    stones = [STONE_CHARS.index(ch) - 1 for ch in data["board"]]
    creature = [-1] * grid.num_cells
    sizes: list[int] = []
    for start in range(grid.num_cells):  # creatures numbered in order of their first cell
        if stones[start] < 0 or creature[start] >= 0:
            continue
        members = view_state.members[view_state.cid[start]]
        for c in members:
            creature[c] = len(sizes)
        sizes.append(len(members))
    chain = set(data["chain"])
    cells = [
        {
            "q": q,
            "r": r,
            "name": names[i],
            "stone": stones[i],
            "creature": creature[i],
            "size": sizes[creature[i]] if creature[i] >= 0 else 0,
            "chain": i in chain,
        }
        for i, (q, r) in enumerate(grid.coords)
    ]
    cascade = [list(row) for row in game.cascade(view_state) if row[1] or row[2]]
    return {
        "kind": "bestiarium",
        "radius": grid.radius,
        "cells": cells,
        "phase": data["phase"],
        "to_move": data["to_move"],
        "passes": data["passes"],
        "first_passer": data["first_passer"],
        "plies": data["plies"],
        "over": data["over"],
        "cascade": cascade,
    }


def move_data(
    game: BestiariumGame, view_state: BestiariumState, board: dict[str, Any], action: int, text: str
) -> dict[str, Any]:
    """One legal move for the page, from the codec: a cell (place or grow there, as the phase says) or the pass."""
    kind, cell = game.codec.decode(action)
    if kind == "pass":
        return {"id": action, "text": text, "kind": "pass"}
    q, r = game.grid.coords[cell]
    return {"id": action, "text": text, "kind": "cell", "cell": cell, "q": q, "r": r}


def hidden_from(
    game: BestiariumGame, view_before: BestiariumState, actor: int, action: int, viewer: int | None
) -> bool:
    """Whether ``viewer`` may not learn ``actor``'s ``action``: never here (no hidden information)."""
    return False


def hidden_text(game: BestiariumGame, view_before: BestiariumState, actor: int, action: int) -> str:
    """Log text of a move the viewer may not see (there are none here)."""
    return "moves (hidden)"


def result_note(game: BestiariumGame, final_state: BestiariumState) -> str | None:
    """How a finished game was decided, beyond the cascade the board shows: nothing to add here."""
    return None


def events(game: BestiariumGame, before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """Public events between two positions: none beyond the moves."""
    return []
