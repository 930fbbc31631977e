"""Beasty Borders on screen and on paper: the text landscape, the picture, the snapshots (JSON and text positions)
and the board data the web page draws (``training/play/web``).

Text landscapes have one character per space: ``.`` empty green, ``~`` lake, ``#`` empty-space marker, an animal
letter (``A B C`` farm, ``X Y Z`` wild); ``@`` marks the steps-marker in :func:`render_ansi`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.beasty_borders.actions import (
    BIDDING_ROW,
    EMPTY,
    FIRST_ANIMAL,
    LAKE,
    MARKER,
    RESPONDER_CHOICE,
    ROLLER_CHOICE,
    ROW_LEN,
    ROW_NAMES,
    ROW_OWNER,
    ROW_TYPE,
    SIDE_NAMES,
    SIGNPOST_TILE,
    TILE_COLS,
    TILE_ROWS,
    TILES,
    cell_char,
    cell_name,
    figure_name,
    lake_pattern_to_tile,
)
from envs.beasty_borders.kernels import STATE
from envs.beasty_borders.rules import BeastyBordersGame, BeastyBordersState
from envs.common import render as rd
from envs.common.game import SnapshotError
from envs.common.state import checked_values, to_plain

LAKE_FILL = (185, 220, 245)
"""Pale water, so that lakes never look like the wild player's blue animals."""
_LAKE_TO_TILE = lake_pattern_to_tile()


def board_rows(game: BeastyBordersGame, state: BeastyBordersState) -> list[str]:
    """The landscape as H strings of W characters (see :meth:`cell_char`)."""
    return ["".join(cell_char(int(state.board[r * game.cols + c])) for c in range(game.cols)) for r in range(game.rows)]


def parse_rows(game: BeastyBordersGame, rows: Sequence[str]) -> np.ndarray:
    """Cell codes from text rows (spaces ignored); ValueError on bad shape or characters."""
    rows = [r.replace(" ", "") for r in rows]
    if len(rows) != game.rows or any(len(r) != game.cols for r in rows):
        raise ValueError(f"a landscape is {game.rows} rows of {game.cols} characters")
    codes = {".": EMPTY, "~": LAKE, "#": MARKER}
    for seat in range(2):
        for kind, letter in enumerate(game.letters[seat]):
            codes[letter] = FIRST_ANIMAL + 3 * seat + kind
    try:
        return np.array([codes[ch] for r in rows for ch in r], dtype=np.intp)
    except KeyError as err:
        raise ValueError(f"unknown landscape character {err.args[0]!r}") from None


def tiles_from_lakes(game: BeastyBordersGame, board: np.ndarray) -> list[int]:
    """The tile in each slot, identified by its lake pattern (every tile's pattern differs)."""
    tiles = []
    for slot in range(game.num_tiles):
        cells = game.slot_cells[slot]
        lakes = frozenset(divmod(k, TILE_COLS) for k, cell in enumerate(cells) if board[cell] == LAKE)
        if lakes not in _LAKE_TO_TILE:
            raise ValueError(f"the lakes of tile slot {slot} match no tile")
        tiles.append(_LAKE_TO_TILE[lakes])
    if len(set(tiles)) != len(tiles) or SIGNPOST_TILE not in tiles:
        raise ValueError(f"tiles {tiles} are not distinct or lack the signpost tile")
    return tiles


def state_from_text(
    game: BeastyBordersGame,
    rows: Sequence[str] | str,
    marker: str | int | None = None,
    roller: int = 0,
    phase: int = ROLLER_CHOICE,
    roll: int = 1,
    choice: int = -1,
    row: str | None = None,
) -> BeastyBordersState:
    """A position from a text landscape (``.`` empty, ``~`` lake, ``#`` marker, animal letters).

    Tiles are identified from the lakes; supplies are the full counts minus what is on the landscape;
    ``marker`` (a cell name like ``"c4"`` or index; default the signpost) is the steps-marker. In the variant,
    ``row`` is 28 characters ``1``/``0`` (in the row / gone); by default the highest-valued figures of each
    placed type have left the row.
    """
    if isinstance(rows, str):
        rows = [r for r in rows.strip().splitlines() if r.strip()]
    board = parse_rows(game, rows)
    tiles = tiles_from_lakes(game, board)
    s = game.blank_state(tiles)
    s.board = board
    s.empty = sorted(game.rank[c] for c in range(game.cells) if board[c] == EMPTY)
    for seat in range(2):
        for kind in range(game.num_types):
            n = int(np.count_nonzero(board == FIRST_ANIMAL + 3 * seat + kind))
            s.remaining[seat][kind] -= n
            s.placed[seat] += n
            if s.remaining[seat][kind] < 0:
                raise ValueError(f"too many {game.letters[seat][kind]} on the landscape")
    if not game.luck:
        if row is None:
            s.row = np.ones(ROW_LEN, dtype=np.float32)
            for seat in range(2):
                for kind in range(game.num_types):
                    gone = game.counts[kind] - s.remaining[seat][kind]
                    idx = [i for i in range(ROW_LEN) if ROW_OWNER[i] == seat and ROW_TYPE[i] == kind]
                    for i in idx[len(idx) - gone :]:
                        s.row[i] = 0.0
        else:
            s.row = np.array([float(ch == "1") for ch in row], dtype=np.float32)
            check_row(game, s)
    if marker is None:
        s.pos = game.signpost_cell(tiles)
    elif isinstance(marker, str):
        s.pos = (ROW_NAMES.index(marker[0]) * game.cols) + int(marker[1:]) - 1
    else:
        s.pos = int(marker)
    s.roller, s.phase, s.roll, s.choice = roller, phase, roll, choice
    return s


def check_row(game: BeastyBordersGame, s: Any) -> None:
    """ValueError unless the bidding row agrees with the supplies."""
    if s.row is None or s.row.shape != (ROW_LEN,):
        raise ValueError("the bidding row must have 28 figures")
    for seat in range(2):
        for kind in range(game.num_types):
            n = sum(int(s.row[i]) for i in range(ROW_LEN) if ROW_OWNER[i] == seat and ROW_TYPE[i] == kind)
            if n != s.remaining[seat][kind]:
                raise ValueError(
                    f"the bidding row holds {n} {game.letters[seat][kind]}, "
                    f"the landscape implies {s.remaining[seat][kind]}"
                )


def state_to_json(game: BeastyBordersGame, state: BeastyBordersState) -> dict[str, Any]:
    """Exact JSON-safe description of ``state``: the declaration's plain fields (``kernels.STATE``) as ints and
    lists, the landscape (``board``) as text rows (:func:`board_rows`) and the variant's bidding row (``row``) as 28
    characters ``1``/``0`` (None in the main game); keys in the order the snapshots have always had."""
    plain = {f.name: to_plain(getattr(state, f.name)) for f in STATE.converted}
    return {
        "tiles": plain.pop("tiles"),
        "board": board_rows(game, state),
        **plain,
        "row": None if state.row is None else "".join("1" if x else "0" for x in state.row),
    }


def state_from_json(game: BeastyBordersGame, data: dict[str, Any]) -> Any:
    """Inverse of :meth:`state_to_json`; SnapshotError for damaged or inconsistent data. The declaration's plain
    fields are checked against it (``kernels.STATE``: ints of their dtypes, lists of their shapes), then the
    landscape and bidding row are parsed and everything is checked against the rules."""
    try:
        keys = {f.name for f in STATE.reference_fields}
        if not isinstance(data, dict) or set(data) != keys:
            raise ValueError(f"expected keys {sorted(keys)}")
        values = {
            f.name: checked_values(f, data[f.name], STATE.row_shape(f, game.layout_sizes)) for f in STATE.converted
        }
        tiles = values["tiles"]
        if (
            len(set(tiles)) != game.num_tiles
            or SIGNPOST_TILE not in tiles
            or not all(0 <= t < len(TILES) for t in tiles)
        ):
            raise ValueError(f"bad tiles {tiles}")
        if not isinstance(data["board"], list) or not all(isinstance(r, str) for r in data["board"]):
            raise ValueError("board must be a list of strings")
        board = parse_rows(game, data["board"])
        if not np.array_equal(board == LAKE, game.lake_board(tiles) == LAKE):
            raise ValueError("the lakes do not match the tiles")
        s = game.blank_state(tiles)
        for name, value in values.items():
            setattr(s, name, value)
        s.board = board
        s.empty = sorted(game.rank[c] for c in range(game.cells) if board[c] == EMPTY)
        if not 0 <= s.pos < game.cells or board[s.pos] == LAKE:
            raise ValueError(f"steps-marker on cell {s.pos}, not a green space")
        if not 1 <= s.roll <= 8 or s.roller not in (0, 1) or s.phase not in (0, 1):
            raise ValueError("roll, roller or phase out of range")
        if s.empty and board[s.pos] != EMPTY:
            raise ValueError("the steps-marker must stand on an empty space while the game is live")
        for seat in range(2):
            on_board = 0
            for kind in range(game.num_types):
                n = int(np.count_nonzero(board == FIRST_ANIMAL + 3 * seat + kind))
                on_board += n
                if s.remaining[seat][kind] < 0 or s.remaining[seat][kind] + n != game.counts[kind]:
                    raise ValueError(
                        f"{game.letters[seat][kind]}: {n} placed + "
                        f"{s.remaining[seat][kind]} held != {game.counts[kind]}"
                    )
            if s.placed[seat] != on_board:
                raise ValueError(f"placed[{seat}] = {s.placed[seat]} but {on_board} on the landscape")
        if game.luck:
            if data["row"] is not None or s.choice != -1:
                raise ValueError("the main game has no bidding row or choice")
        else:
            row = data["row"]
            if not isinstance(row, str) or len(row) != ROW_LEN or set(row) - {"0", "1"}:
                raise ValueError("row must be 28 characters 0/1")
            s.row = np.array([float(ch == "1") for ch in row], dtype=np.float32)
            check_row(game, s)
            if not -1 <= s.choice < ROW_LEN:
                raise ValueError(f"choice {s.choice} out of range")
            if s.choice >= 0 and (
                s.phase != RESPONDER_CHOICE or ROW_OWNER[s.choice] != s.roller or not s.row[s.choice]
            ):
                raise ValueError(f"choice {s.choice} is not a roller's figure in the row")
        return s
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        raise SnapshotError(f"damaged Beasty Borders state: {err}") from err


def status_lines(game: BeastyBordersGame, state: BeastyBordersState) -> list[str]:
    """Lines of text under the landscape: turn, supplies, score (and the bidding row in the variant)."""
    vp = game.scores(state)
    lines = []
    if not state.empty:
        ret = game.returns(state)
        result = "draw" if ret[0] == 0 else f"{SIDE_NAMES[int(np.argmax(ret))]} wins"
        lines.append(f"game over: {result}")
    else:
        who = SIDE_NAMES[state.roller]
        step = (
            "roller's choice"
            if state.phase == ROLLER_CHOICE
            else f"responder's choice ({SIDE_NAMES[1 - state.roller]})"
        )
        lines.append(
            f"roll {state.roll} by {who} (player_{state.roller}), steps-marker on "
            f"{cell_name(state.pos, game.cols)}: {step}"
        )
        if not game.luck and state.phase == RESPONDER_CHOICE:
            lines.append("roller pointed at " + (figure_name(state.choice) if state.choice >= 0 else "nothing (pass)"))
    for seat in range(2):
        held = " ".join(f"{game.letters[seat][k]}{state.remaining[seat][k]}" for k in range(game.num_types))
        lines.append(f"{SIDE_NAMES[seat]} (player_{seat}): {vp[seat]} vp, {state.placed[seat]} placed, holds {held}")
    if not game.luck:
        lines.append("row: " + " ".join(figure_name(i) if state.row[i] else "--" for i in range(ROW_LEN)))
    return lines


def render_ansi(game: BeastyBordersGame, state: BeastyBordersState) -> str:
    """Text landscape (``@`` = steps-marker on its empty space) with the status lines."""
    rows = board_rows(game, state)
    out = ["   " + " ".join(str(c + 1) for c in range(game.cols))]
    for r, text in enumerate(rows):
        chars = list(text)
        if state.empty and state.pos // game.cols == r:
            chars[state.pos % game.cols] = "@"
        out.append(f"{ROW_NAMES[r]}  " + " ".join(chars))
    return "\n".join(out + status_lines(game, state))


def render_rgb(game: BeastyBordersGame, state: BeastyBordersState) -> np.ndarray:
    """The landscape as coloured squares (lakes blue, markers dark, animals in the owner's colour)."""
    fills, labels = [], []
    for r in range(game.rows):
        frow, lrow = [], []
        for c in range(game.cols):
            code = int(state.board[r * game.cols + c])
            if code == LAKE:
                frow.append(LAKE_FILL), lrow.append("~")
            elif code == MARKER:
                frow.append((60, 60, 60)), lrow.append("")
            elif code == EMPTY:
                frow.append(rd.GRASS), lrow.append("")
            else:
                frow.append(rd.PLAYER_COLORS[(code - FIRST_ANIMAL) // 3]), lrow.append(cell_char(code))
        fills.append(frow)
        labels.append(lrow)
    sign = game.signpost_cell(state.tiles)
    if state.board[sign] == EMPTY:
        labels[sign // game.cols][sign % game.cols] = ">"
    hi = divmod(state.pos, game.cols) if state.empty else None
    board = rd.square_board(fills, labels, highlight=hi)
    return rd.stack_vertical([board, rd.text_panel(status_lines(game, state))])


# ----- the web page's board ----------------------------------------------------------------------------------------
def seat_names(game: BeastyBordersGame) -> list[str]:
    """The side of each seat, shown beside ``player_i``."""
    return list(SIDE_NAMES)


def board_data(game: BeastyBordersGame, view_state: BeastyBordersState) -> dict[str, Any]:
    """The board the web page draws: the landscape rows, the tiles and the signpost, the steps-marker, the die,
    the spaces rolls of 1..8 reach next, the supplies and scores (and the variant's bidding row)."""
    data = state_to_json(game, view_state)
    over = not view_state.empty
    cols = game.cols
    slot = data["tiles"].index(SIGNPOST_TILE)  # the signpost is the top-left space of its tile
    signpost = [TILE_ROWS * (slot // game.tile_cols), TILE_COLS * (slot % game.tile_cols)]
    board: dict[str, Any] = {
        "kind": "beasty_borders",
        "rows": data["board"],
        "tile_size": [TILE_ROWS, TILE_COLS],
        "tiles": data["tiles"],
        "signpost": signpost,
        "marker": None if over else list(divmod(data["pos"], cols)),
        "roll": None if over else data["roll"],
        "roller": data["roller"],
        "phase": ("roller", "responder")[data["phase"]],
        "reach": [] if over else [list(divmod(game.target_cell(view_state, k), cols)) for k in range(1, 9)],
        "letters": list(game.letters),
        "remaining": data["remaining"],
        "placed": data["placed"],
        "vp": [int(v) for v in game.scores(view_state)],
        "row": None,
        "choice": None,
    }
    if data["row"] is not None:
        board["row"] = [
            {"value": i + 1, "letter": BIDDING_ROW[i], "owner": ROW_OWNER[i], "present": bit == "1"}
            for i, bit in enumerate(data["row"])
        ]
        board["choice"] = None if data["choice"] < 0 else data["choice"] + 1
    return board


def move_data(
    game: BeastyBordersGame, view_state: BeastyBordersState, board: dict[str, Any], action: int, text: str
) -> dict[str, Any]:
    """One legal move for the page: pass, an animal type (main game) or a bidding-row figure (variant)."""
    kind, value = game.codec.decode(action)
    if kind == "pass":
        return {"id": action, "text": text, "kind": "pass"}
    if kind == "figure":
        return {"id": action, "text": text, "kind": "figure", "value": value}
    return {"id": action, "text": text, "kind": "type", "type": value}


def hidden_from(
    game: BeastyBordersGame, view_before: BeastyBordersState, actor: int, action: int, viewer: int | None
) -> bool:
    """Whether ``viewer`` may not learn ``actor``'s ``action``: never here (no hidden information)."""
    return False


def hidden_text(game: BeastyBordersGame, view_before: BeastyBordersState, actor: int, action: int) -> str:
    """Log text of a move the viewer may not see (there are none here)."""
    return "moves (hidden)"


def result_note(game: BeastyBordersGame, final_state: BeastyBordersState) -> str | None:
    """How a finished game was decided, beyond the score: nothing to add here."""
    return None


def events(game: BeastyBordersGame, before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """Public events between two :func:`board_data` of one viewer, as log lines: the die roll that starts every
    turn (the steps-marker moves at once)."""
    if after["roll"] is None or after["phase"] != "roller":
        return []
    if before is not None and before["marker"] == after["marker"] and before["rows"] == after["rows"]:
        return []
    r, c = after["marker"]
    side = SIDE_NAMES[after["roller"]]
    return [f"{side} rolls {after['roll']}: the steps-marker moves to {ROW_NAMES[r]}{c + 1}"]
