"""The Beasty Borders rule engine (pure: no PettingZoo). Rules as implemented: ``RULES.md`` next to this file.

Landscape coordinates: ``H x W`` spaces (6 x 9 main, 4 x 9 'without luck'), cell index ``r * W + c``, rows
``a``.. from the top, columns ``1``..``9`` from the left; tiles of 2 x 3 spaces sit in a 3 x 3 (or 3 wide x 2
tall) grid, slot index row-major::

        1 2 3   4 5 6   7 8 9
    a  [slot 0][slot 1][slot 2]
    b  [      ][      ][      ]
    c  [slot 3][slot 4][slot 5]
    d  ...

Seat 0 is the farm player (A B C) and the start player, seat 1 the wild player (X Y Z).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.beasty_borders import actions as act
from envs.beasty_borders import kernels
from envs.beasty_borders.observation import ObservationLayout, encode, stale_spaces
from envs.beasty_borders.state import (  # noqa: F401  (GROUP_VP, RESPONDER_CHOICE re-exported)
    EMPTY,
    FIRST_ANIMAL,
    GROUP_VP,
    LAKE,
    MARKER,
    RESPONDER_CHOICE,
    ROLLER_CHOICE,
    BeastyBordersState,
    add_to_groups,
    victory_points,
)
from envs.beasty_borders.tiles import SIGNPOST_TILE, TILE_COLS, TILE_ROWS, TILES, lake_pattern_to_tile, tile_lakes
from envs.common.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    SnapshotError,
    pairwise_rewards,
)
from envs.common.options import Option, OptionTable

VARIANTS = ("main", "without_luck")
PATH_ORDERS = ("typewriter", "snake")
SIDE_NAMES = ("farm", "wild")
ROW_NAMES = "abcdef"
LAKE_FILL = (185, 220, 245)
"""Pale water, so that lakes never look like the wild player's blue animals."""

OPTIONS = OptionTable(
    Option(
        "variant",
        str,
        "main",
        '"main": 9 tiles, a 6 x 9 landscape with 42 green spaces, 3 animal types of 8, 7, 5 per player, the D8 '
        'decides the steps and a pass lets the roller roll again; "without_luck": 6 tiles (3 wide, 2 tall), a 4 x 9 '
        "landscape with 27 to 30 green spaces, 2 types of 8, 6 per player offered through a bidding row of 28 "
        "figures, the roll alternates strictly.",
        choices=VARIANTS,
    ),
    Option(
        "path_order",
        str,
        "typewriter",
        '"typewriter": every row west to east, then the west end of the row below (the bottom row wraps to the '
        'top); "snake": rows alternate east and west (the signpost\'s row runs east).',
        choices=PATH_ORDERS,
        label="path",
    ),
)
"""Beasty Borders' options (:mod:`envs.common.options`): what the engine checks, the docs and the forms show."""


_KERNELS_LOADED = False


def _load_kernels(game: BeastyBordersGame) -> None:
    """Compile (first run) or load from numba's cache the observation kernel once per process, when the first game
    is built, so that a game's first step is not the one that waits for it."""
    global _KERNELS_LOADED
    if not _KERNELS_LOADED:
        state = game._blank_state(list(range(game.num_tiles)))
        game.observation(state, 0)
        _KERNELS_LOADED = True


def cell_name(cell: int, cols: int) -> str:
    """``c4``-style name of a cell (row letter from the top, column number from the left)."""
    return f"{ROW_NAMES[cell // cols]}{cell % cols + 1}"


class BeastyBordersGame(Game[BeastyBordersState]):
    """Beasty Borders for 2 players. Options: ``variant`` ("main", "without_luck"), ``path_order``
    ("typewriter", "snake")."""

    name = "beasty_borders"
    num_players = 2

    def __init__(self, variant: str = "main", path_order: str = "typewriter"):
        OPTIONS["variant"].check(variant)
        OPTIONS["path_order"].check(path_order)
        self.variant = variant
        self.path_order = path_order
        self.luck = variant == "main"
        self.tile_cols = 3
        self.tile_rows = 3 if self.luck else 2
        self.num_tiles = self.tile_cols * self.tile_rows
        self.rows = TILE_ROWS * self.tile_rows
        self.cols = TILE_COLS * self.tile_cols
        self.cells = self.rows * self.cols
        self.num_types = act.MAIN_NUM_TYPES if self.luck else act.VARIANT_NUM_TYPES
        self.counts = act.MAIN_COUNTS if self.luck else act.VARIANT_COUNTS
        self.num_actions = act.MAIN_NUM_ACTIONS if self.luck else act.VARIANT_NUM_ACTIONS
        self.pass_action = act.MAIN_PASS if self.luck else act.VARIANT_PASS
        # The path: typewriter = row-major; snake = even rows east, odd rows west (the signpost is always on an
        # even row, the top row of its tile, and the sign points east). Both are cycles (bottom row -> top row).
        path: list[int] = []
        for r in range(self.rows):
            cs = range(self.cols) if (path_order == "typewriter" or r % 2 == 0) else range(self.cols - 1, -1, -1)
            path.extend(r * self.cols + c for c in cs)
        self.path = path
        self.rank = [0] * self.cells
        for k, cell in enumerate(path):
            self.rank[cell] = k
        self.neighbours: list[tuple[int, ...]] = []
        for cell in range(self.cells):
            r, c = divmod(cell, self.cols)
            nb = [
                (r + dr) * self.cols + (c + dc)
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= r + dr < self.rows and 0 <= c + dc < self.cols
            ]
            self.neighbours.append(tuple(nb))
        self.slot_cells: list[list[int]] = []
        for slot in range(self.num_tiles):
            tr, tc = divmod(slot, self.tile_cols)
            self.slot_cells.append(
                [
                    (tr * TILE_ROWS + r) * self.cols + tc * TILE_COLS + c
                    for r in range(TILE_ROWS)
                    for c in range(TILE_COLS)
                ]
            )
        self._lake_to_tile = lake_pattern_to_tile()
        self.layout = ObservationLayout(
            self.rows, self.cols, self.num_types, not self.luck, self.neighbours, self.path, self.rank
        )
        self.observation_shape = (self.layout.size,)
        self.tables = kernels.ObservationTables(self.layout, self.neighbours)
        """The configuration's tables for the compiled observation (``kernels.py``; the batched engine's too)."""
        self.observation_dtype = np.float32
        max_green = sum(sorted(6 - len(tile_lakes(t)) for t in range(len(TILES)))[-self.num_tiles :])
        self.max_green = max_green
        self.max_game_length = 2 * max_green
        """Every filled space takes at most two decisions (roller and responder)."""
        # Masks.
        if self.luck:
            self._main_masks = []
            for bits in range(8):
                m = np.zeros(self.num_actions, dtype=np.int8)
                for t in range(3):
                    m[t] = (bits >> t) & 1
                m[act.MAIN_PASS] = 1
                self._main_masks.append(m)
        owner = np.array(act.ROW_OWNER)
        self._row_of_seat = [(owner == s).astype(np.float32) for s in range(2)]
        self._row_index = np.arange(act.ROW_LEN)
        self._letters = [act.SEAT_LETTERS[s][: self.num_types] for s in range(2)]
        _load_kernels(self)

    # ----- options and set-up -----------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The options (JSON-safe)."""
        return {"variant": self.variant, "path_order": self.path_order}

    def initial_state(self, rng: np.random.Generator) -> BeastyBordersState:
        """Shuffle the tiles into the grid, put the steps-marker on the signpost, and roll for the start player.

        Main game: all 9 tiles, uniformly permuted over the 3 x 3 slots. Variant: the signpost tile plus 5 of the
        other 8 drawn uniformly, then the 6 permuted over the 3 x 2 slots ("The marker's start tile must be one of
        these"). No rotation (the signpost must point east).
        """
        if self.luck:
            tiles = [int(t) for t in rng.permutation(len(TILES))]
        else:
            others = rng.choice(np.arange(1, len(TILES)), self.num_tiles - 1, replace=False)
            tiles = [int(t) for t in rng.permutation(np.concatenate(([SIGNPOST_TILE], others)))]
        state = self._blank_state(tiles)
        state.pos = self.signpost_cell(tiles)
        self._roll(state, rng)
        return state

    def _blank_state(self, tiles: Sequence[int]) -> BeastyBordersState:
        """The landscape of ``tiles`` with lakes, nothing placed, full supplies, roller 0."""
        s = BeastyBordersState()
        s.tiles = list(tiles)
        s.board = self.lake_board(tiles)
        s.remaining = [list(self.counts), list(self.counts)]
        s.row = None if self.luck else np.ones(act.ROW_LEN, dtype=np.float32)
        s.empty = sorted(self.rank[c] for c in range(self.cells) if s.board[c] == EMPTY)
        return s

    def lake_board(self, tiles: Sequence[int]) -> np.ndarray:
        """Cell codes of an empty landscape laid from ``tiles`` (lakes and empty green spaces)."""
        board = np.zeros(self.cells, dtype=np.intp)
        for slot, tile in enumerate(tiles):
            cells = self.slot_cells[slot]
            for r, c in tile_lakes(tile):
                board[cells[r * TILE_COLS + c]] = LAKE
        return board

    def signpost_cell(self, tiles: Sequence[int]) -> int:
        """Cell of the signpost: the top-left space of the signpost tile."""
        return self.slot_cells[list(tiles).index(SIGNPOST_TILE)][0]

    # ----- the marker ------------------------------------------------------------------------------
    def target_cell(self, state: BeastyBordersState, steps: int) -> int:
        """The space ``steps`` empty green spaces further along the path from the steps-marker.

        "The die determines the number of steps to move the steps-marker in the signpost's direction through
        empty landscape spaces (skip lakes, and spaces filled by an animal or an empty-space-marker)." The
        marker's own space is not counted (it is reached again only after a full lap); the path is a cycle.
        """
        empty = state.empty
        i = bisect.bisect_right(empty, self.rank[state.pos])
        return self.path[empty[(i + steps - 1) % len(empty)]]

    def _roll(self, state: BeastyBordersState, rng: np.random.Generator) -> None:
        """Roll the D8 for the roller's turn and move the steps-marker."""
        state.roll = int(rng.integers(1, 9))
        state.pos = self.target_cell(state, state.roll)

    def _fill(self, state: BeastyBordersState, code: int) -> None:
        """Put ``code`` (an animal or a marker) on the steps-marker's space."""
        state.board[state.pos] = code
        members = None
        if code >= FIRST_ANIMAL and state.group_cache is not None:  # (a marker changes no group)
            state.group_cache, members = add_to_groups(state.group_cache, state.board, self.neighbours, state.pos, code)
        if state.space_cache is not None:
            if code >= FIRST_ANIMAL and members is None:
                state.space_cache = None  # no group books to say which spaces changed
            else:
                table, valid = state.space_cache
                valid = valid.copy()
                valid[list(stale_spaces(self.neighbours, state.pos, members))] = False
                state.space_cache = (table.copy(), valid)
        empty = state.empty
        del empty[bisect.bisect_left(empty, self.rank[state.pos])]

    def _next_turn(self, state: BeastyBordersState, roller: int, rng: np.random.Generator) -> None:
        """Start the next turn with ``roller`` rolling, unless the landscape is full."""
        state.phase = ROLLER_CHOICE
        state.choice = -1
        state.roller = roller
        if state.empty:
            self._roll(state, rng)

    # ----- the state machine ---------------------------------------------------------------------
    def current_player(self, state: BeastyBordersState) -> int:
        """The roller in the roller's choice phase, the other player in the responder's; TERMINAL when full."""
        if not state.empty:
            return TERMINAL
        return state.roller if state.phase == ROLLER_CHOICE else 1 - state.roller

    def legal_mask(self, state: BeastyBordersState) -> np.ndarray:
        """int8 mask: main = held types + pass; variant = own row figures (above the roller's choice) + pass."""
        if not state.empty:
            return np.zeros(self.num_actions, dtype=np.int8)
        seat = state.roller if state.phase == ROLLER_CHOICE else 1 - state.roller
        if self.luck:
            rem = state.remaining[seat]
            return self._main_masks[(rem[0] > 0) | ((rem[1] > 0) << 1) | ((rem[2] > 0) << 2)].copy()
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[: act.ROW_LEN] = state.row * self._row_of_seat[seat]
        if state.phase == RESPONDER_CHOICE and state.choice >= 0:
            mask[: state.choice + 1] = 0
        mask[act.VARIANT_PASS] = 1
        return mask

    def legal_actions(self, state: BeastyBordersState) -> list[int]:
        """Legal action ids, ascending."""
        if not state.empty:
            return []
        if self.luck:
            seat = state.roller if state.phase == ROLLER_CHOICE else 1 - state.roller
            rem = state.remaining[seat]
            return [t for t in range(3) if rem[t]] + [act.MAIN_PASS]
        return np.flatnonzero(self.legal_mask(state)).tolist()

    def _check_legal(self, state: BeastyBordersState, action: int, seat: int) -> None:
        """Raise IllegalActionError unless ``action`` is legal for ``seat`` now."""
        if action == self.pass_action:
            return
        who = f"{SIDE_NAMES[seat]} (player_{seat})"
        if self.luck:
            if state.remaining[seat][action] <= 0:
                raise IllegalActionError(
                    f"action {action} ({act.SEAT_LETTERS[seat][action]}): {who} has no "
                    f"{act.SEAT_LETTERS[seat][action]} animal left"
                )
            return
        name = act.variant_action_to_str(action)
        if act.ROW_OWNER[action] != seat:
            raise IllegalActionError(f"action {action} ({name}): that figure is not one of {who}'s animals")
        if not state.row[action]:
            raise IllegalActionError(f"action {action} ({name}): that figure has already left the bidding row")
        if state.phase == RESPONDER_CHOICE and action <= state.choice:
            raise IllegalActionError(
                f"action {action} ({name}): the responder must point at a higher value than the roller's "
                f"{act.variant_action_to_str(state.choice)}"
            )

    def apply(self, state: BeastyBordersState, action: int, rng: np.random.Generator) -> None:
        """Play ``action`` for the player to move (validated first); rolls the next turn's die with ``rng``."""
        action = self.check_action_range(action)
        if not state.empty:
            raise IllegalActionError(f"action {action}: the game is over")
        roller = state.roller
        seat = roller if state.phase == ROLLER_CHOICE else 1 - roller
        self._check_legal(state, action, seat)
        passed = action == self.pass_action
        if self.luck:
            if state.phase == ROLLER_CHOICE:
                if passed:
                    # "If you pass, then the other player can choose to place one of their animals there."
                    state.phase = RESPONDER_CHOICE
                    return
                self._place(state, seat, action)
                # "If you placed an animal, the next turn is the other player's turn."
                self._next_turn(state, 1 - roller, rng)
                return
            if passed:
                # "When both players passed, place an empty-space-marker at that space."
                self._fill(state, MARKER)
            else:
                self._place(state, seat, action)
            # "If you passed in your own turn, the next turn is your turn again!!"
            self._next_turn(state, roller, rng)
            return
        # Variant 'Without Luck'.
        if state.phase == ROLLER_CHOICE:
            state.choice = -1 if passed else action
            state.phase = RESPONDER_CHOICE
            return
        # "Now the chosen animal with the highest value gets placed at the steps-marker."
        figure = state.choice if passed else action
        if figure < 0:
            self._fill(state, MARKER)
        else:
            owner = act.ROW_OWNER[figure]
            state.row[figure] = 0.0
            self._place(state, owner, act.ROW_TYPE[figure])
        # "... the other player rolls for the second turn, start player for the third turn, ... just alternating!"
        self._next_turn(state, 1 - roller, rng)

    def _place(self, state: BeastyBordersState, seat: int, kind: int) -> None:
        """Put an animal of ``seat`` and type ``kind`` on the steps-marker's space."""
        self._fill(state, FIRST_ANIMAL + 3 * seat + kind)
        state.remaining[seat][kind] -= 1
        state.placed[seat] += 1

    def clone(self, state: BeastyBordersState) -> BeastyBordersState:
        """An independent copy of ``state``."""
        return state.clone()

    # ----- scoring ------------------------------------------------------------------------------------
    def groups(self, state: BeastyBordersState) -> list[tuple[int, int, int]]:
        """Every group on the landscape as (seat, type, size): orthogonally connected identical animals."""
        board = state.board
        seen = [False] * self.cells
        out = []
        for start in range(self.cells):
            code = int(board[start])
            if code < FIRST_ANIMAL or seen[start]:
                continue
            seen[start] = True
            stack = [start]
            size = 0
            while stack:
                cell = stack.pop()
                size += 1
                for nb in self.neighbours[cell]:
                    if not seen[nb] and board[nb] == code:
                        seen[nb] = True
                        stack.append(nb)
            seat, kind = divmod(code - FIRST_ANIMAL, 3)
            out.append((seat, kind, size))
        return out

    def scores(self, state: BeastyBordersState) -> np.ndarray:
        """Victory points per seat: the sum over groups of GROUP_VP[size] (also meaningful mid-game)."""
        return np.array(victory_points(self.neighbours, state), dtype=np.int64)

    def rank_keys(self, state: BeastyBordersState) -> list[tuple[int, int]]:
        """(victory points, animals placed) per seat: "In case of a tie, the player who placed the most animals
        wins."; equal keys are a draw."""
        vp = self.scores(state)
        return [(int(vp[s]), state.placed[s]) for s in range(2)]

    def returns(self, state: BeastyBordersState) -> np.ndarray:
        """+1 / -1 for the winner / loser, 0 each for a draw; zeros while the game is live."""
        if state.empty:
            return np.zeros(2, dtype=np.float64)
        return pairwise_rewards(self.rank_keys(state))

    # ----- observation and notation -----------------------------------------------------------------
    def observation(self, state: BeastyBordersState, seat: int) -> np.ndarray:
        """Seat-relative observation vector (layout in observation.py), built by a compiled kernel
        (``kernels.observe_position``); the readable definition is :meth:`observation_python`, and the tests check
        that both agree."""
        if seat != 0 and seat != 1:
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        t = self.tables
        rem = state.remaining
        facts = np.array(
            [seat, state.pos, state.roll, state.roller, state.phase, state.choice, len(state.empty), *rem[0], *rem[1]],
            dtype=np.int64,
        )
        out = np.empty(self.layout.size, dtype=np.float32)
        row = t.no_row if state.row is None else state.row.reshape(1, -1)
        kernels.observe_position(
            state.board, facts, row, out, t.lay, t.planes, t.slots, t.path, t.rank, t.nbr, t.nbr4, t.row_owner
        )
        return out

    def observation_python(self, state: BeastyBordersState, seat: int) -> np.ndarray:
        """The observation vector as ``observation.encode`` writes it: the readable definition of
        :meth:`observation`."""
        return encode(self.layout, state, seat)

    def action_to_str(self, state: BeastyBordersState, action: int) -> str:
        """``A`` .. ``Z`` / ``pass`` (main, for the player to move), ``A1`` .. ``A28`` / ``pass`` (variant)."""
        if self.luck:
            seat = self.current_player(state)
            return act.main_action_to_str(0 if seat == TERMINAL else seat, action)
        return act.variant_action_to_str(action)

    def str_to_action(self, state: BeastyBordersState, text: str) -> int:
        """Parse notation; raises IllegalActionError for text that names no action of the player to move."""
        seat = self.current_player(state)
        action = act.main_str_to_action(max(seat, 0), text) if self.luck else act.variant_str_to_action(text)
        if action is None:
            raise IllegalActionError(f"{text!r} is not a move here")
        return action

    # ----- text boards (tests, examples) ---------------------------------------------------------------
    def cell_char(self, code: int) -> str:
        """One character per cell code: ``.`` empty, ``~`` lake, ``#`` marker, a letter for an animal."""
        if code < FIRST_ANIMAL:
            return ".~#"[code]
        seat, kind = divmod(code - FIRST_ANIMAL, 3)
        return act.SEAT_LETTERS[seat][kind]

    def board_rows(self, state: BeastyBordersState) -> list[str]:
        """The landscape as H strings of W characters (see :meth:`cell_char`)."""
        return [
            "".join(self.cell_char(int(state.board[r * self.cols + c])) for c in range(self.cols))
            for r in range(self.rows)
        ]

    def _parse_rows(self, rows: Sequence[str]) -> np.ndarray:
        """Cell codes from text rows (spaces ignored); ValueError on bad shape or characters."""
        rows = [r.replace(" ", "") for r in rows]
        if len(rows) != self.rows or any(len(r) != self.cols for r in rows):
            raise ValueError(f"a landscape is {self.rows} rows of {self.cols} characters")
        codes = {".": EMPTY, "~": LAKE, "#": MARKER}
        for seat in range(2):
            for kind, letter in enumerate(self._letters[seat]):
                codes[letter] = FIRST_ANIMAL + 3 * seat + kind
        try:
            return np.array([codes[ch] for r in rows for ch in r], dtype=np.intp)
        except KeyError as err:
            raise ValueError(f"unknown landscape character {err.args[0]!r}") from None

    def tiles_from_lakes(self, board: np.ndarray) -> list[int]:
        """The tile in each slot, identified by its lake pattern (every tile's pattern differs)."""
        tiles = []
        for slot in range(self.num_tiles):
            cells = self.slot_cells[slot]
            lakes = frozenset(divmod(k, TILE_COLS) for k, cell in enumerate(cells) if board[cell] == LAKE)
            if lakes not in self._lake_to_tile:
                raise ValueError(f"the lakes of tile slot {slot} match no tile")
            tiles.append(self._lake_to_tile[lakes])
        if len(set(tiles)) != len(tiles) or SIGNPOST_TILE not in tiles:
            raise ValueError(f"tiles {tiles} are not distinct or lack the signpost tile")
        return tiles

    def state_from_text(
        self,
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
        board = self._parse_rows(rows)
        tiles = self.tiles_from_lakes(board)
        s = self._blank_state(tiles)
        s.board = board
        s.empty = sorted(self.rank[c] for c in range(self.cells) if board[c] == EMPTY)
        for seat in range(2):
            for kind in range(self.num_types):
                n = int(np.count_nonzero(board == FIRST_ANIMAL + 3 * seat + kind))
                s.remaining[seat][kind] -= n
                s.placed[seat] += n
                if s.remaining[seat][kind] < 0:
                    raise ValueError(f"too many {self._letters[seat][kind]} on the landscape")
        if not self.luck:
            if row is None:
                s.row = np.ones(act.ROW_LEN, dtype=np.float32)
                for seat in range(2):
                    for kind in range(self.num_types):
                        gone = self.counts[kind] - s.remaining[seat][kind]
                        idx = [i for i in range(act.ROW_LEN) if act.ROW_OWNER[i] == seat and act.ROW_TYPE[i] == kind]
                        for i in idx[len(idx) - gone :]:
                            s.row[i] = 0.0
            else:
                s.row = np.array([float(ch == "1") for ch in row], dtype=np.float32)
                self._check_row(s)
        if marker is None:
            s.pos = self.signpost_cell(tiles)
        elif isinstance(marker, str):
            s.pos = (ROW_NAMES.index(marker[0]) * self.cols) + int(marker[1:]) - 1
        else:
            s.pos = int(marker)
        s.roller, s.phase, s.roll, s.choice = roller, phase, roll, choice
        return s

    def _check_row(self, s: BeastyBordersState) -> None:
        """ValueError unless the bidding row agrees with the supplies."""
        if s.row is None or s.row.shape != (act.ROW_LEN,):
            raise ValueError("the bidding row must have 28 figures")
        for seat in range(2):
            for kind in range(self.num_types):
                n = sum(
                    int(s.row[i]) for i in range(act.ROW_LEN) if act.ROW_OWNER[i] == seat and act.ROW_TYPE[i] == kind
                )
                if n != s.remaining[seat][kind]:
                    raise ValueError(
                        f"the bidding row holds {n} {self._letters[seat][kind]}, "
                        f"the landscape implies {s.remaining[seat][kind]}"
                    )

    # ----- snapshots ----------------------------------------------------------------------------------
    def state_to_json(self, state: BeastyBordersState) -> dict[str, Any]:
        """Exact JSON-safe description of ``state``."""
        return {
            "tiles": list(state.tiles),
            "board": self.board_rows(state),
            "pos": int(state.pos),
            "roll": int(state.roll),
            "roller": int(state.roller),
            "phase": int(state.phase),
            "choice": int(state.choice),
            "remaining": [list(map(int, r)) for r in state.remaining],
            "placed": list(map(int, state.placed)),
            "row": None if state.row is None else "".join("1" if x else "0" for x in state.row),
        }

    def state_from_json(self, data: dict[str, Any]) -> BeastyBordersState:
        """Inverse of :meth:`state_to_json`; SnapshotError for damaged or inconsistent data."""
        try:
            keys = {"tiles", "board", "pos", "roll", "roller", "phase", "choice", "remaining", "placed", "row"}
            if not isinstance(data, dict) or set(data) != keys:
                raise ValueError(f"expected keys {sorted(keys)}")
            tiles = [_int(t) for t in data["tiles"]]
            if (
                len(tiles) != self.num_tiles
                or len(set(tiles)) != self.num_tiles
                or SIGNPOST_TILE not in tiles
                or not all(0 <= t < len(TILES) for t in tiles)
            ):
                raise ValueError(f"bad tiles {tiles}")
            if not isinstance(data["board"], list) or not all(isinstance(r, str) for r in data["board"]):
                raise ValueError("board must be a list of strings")
            board = self._parse_rows(data["board"])
            if not np.array_equal(board == LAKE, self.lake_board(tiles) == LAKE):
                raise ValueError("the lakes do not match the tiles")
            s = self._blank_state(tiles)
            s.board = board
            s.empty = sorted(self.rank[c] for c in range(self.cells) if board[c] == EMPTY)
            s.pos = _int(data["pos"])
            s.roll = _int(data["roll"])
            s.roller = _int(data["roller"])
            s.phase = _int(data["phase"])
            s.choice = _int(data["choice"])
            if not 0 <= s.pos < self.cells or board[s.pos] == LAKE:
                raise ValueError(f"steps-marker on cell {s.pos}, not a green space")
            if not 1 <= s.roll <= 8 or s.roller not in (0, 1) or s.phase not in (0, 1):
                raise ValueError("roll, roller or phase out of range")
            if s.empty and board[s.pos] != EMPTY:
                raise ValueError("the steps-marker must stand on an empty space while the game is live")
            rem = data["remaining"]
            if (
                not isinstance(rem, list)
                or len(rem) != 2
                or any(not isinstance(r, list) or len(r) != self.num_types for r in rem)
            ):
                raise ValueError("remaining must be 2 lists of per-type counts")
            s.remaining = [[_int(x) for x in r] for r in rem]
            s.placed = [_int(x) for x in data["placed"]]
            if len(s.placed) != 2:
                raise ValueError("placed must have 2 counts")
            for seat in range(2):
                on_board = 0
                for kind in range(self.num_types):
                    n = int(np.count_nonzero(board == FIRST_ANIMAL + 3 * seat + kind))
                    on_board += n
                    if s.remaining[seat][kind] < 0 or s.remaining[seat][kind] + n != self.counts[kind]:
                        raise ValueError(
                            f"{self._letters[seat][kind]}: {n} placed + "
                            f"{s.remaining[seat][kind]} held != {self.counts[kind]}"
                        )
                if s.placed[seat] != on_board:
                    raise ValueError(f"placed[{seat}] = {s.placed[seat]} but {on_board} on the landscape")
            if self.luck:
                if data["row"] is not None or s.choice != -1:
                    raise ValueError("the main game has no bidding row or choice")
            else:
                row = data["row"]
                if not isinstance(row, str) or len(row) != act.ROW_LEN or set(row) - {"0", "1"}:
                    raise ValueError("row must be 28 characters 0/1")
                s.row = np.array([float(ch == "1") for ch in row], dtype=np.float32)
                self._check_row(s)
                if not -1 <= s.choice < act.ROW_LEN:
                    raise ValueError(f"choice {s.choice} out of range")
                if s.choice >= 0 and (
                    s.phase != RESPONDER_CHOICE or act.ROW_OWNER[s.choice] != s.roller or not s.row[s.choice]
                ):
                    raise ValueError(f"choice {s.choice} is not a roller's figure in the row")
            return s
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
            raise SnapshotError(f"damaged Beasty Borders state: {err}") from err

    # ----- pictures -----------------------------------------------------------------------------------
    def status_lines(self, state: BeastyBordersState) -> list[str]:
        """Lines of text under the landscape: turn, supplies, score (and the bidding row in the variant)."""
        vp = self.scores(state)
        lines = []
        if not state.empty:
            ret = self.returns(state)
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
                f"{cell_name(state.pos, self.cols)}: {step}"
            )
            if not self.luck and state.phase == RESPONDER_CHOICE:
                lines.append(
                    "roller pointed at "
                    + (act.variant_action_to_str(state.choice) if state.choice >= 0 else "nothing (pass)")
                )
        for seat in range(2):
            held = " ".join(f"{self._letters[seat][k]}{state.remaining[seat][k]}" for k in range(self.num_types))
            lines.append(
                f"{SIDE_NAMES[seat]} (player_{seat}): {vp[seat]} vp, {state.placed[seat]} placed, holds {held}"
            )
        if not self.luck:
            lines.append(
                "row: " + " ".join(act.variant_action_to_str(i) if state.row[i] else "--" for i in range(act.ROW_LEN))
            )
        return lines

    def render_ansi(self, state: BeastyBordersState) -> str:
        """Text landscape (``@`` = steps-marker on its empty space) with the status lines."""
        rows = self.board_rows(state)
        out = ["   " + " ".join(str(c + 1) for c in range(self.cols))]
        for r, text in enumerate(rows):
            chars = list(text)
            if state.empty and state.pos // self.cols == r:
                chars[state.pos % self.cols] = "@"
            out.append(f"{ROW_NAMES[r]}  " + " ".join(chars))
        return "\n".join(out + self.status_lines(state))

    def render_rgb(self, state: BeastyBordersState) -> np.ndarray:
        """The landscape as coloured squares (lakes blue, markers dark, animals in the owner's colour)."""
        from envs.common import render as rd

        fills, labels = [], []
        for r in range(self.rows):
            frow, lrow = [], []
            for c in range(self.cols):
                code = int(state.board[r * self.cols + c])
                if code == LAKE:
                    frow.append(LAKE_FILL), lrow.append("~")
                elif code == MARKER:
                    frow.append((60, 60, 60)), lrow.append("")
                elif code == EMPTY:
                    frow.append(rd.GRASS), lrow.append("")
                else:
                    frow.append(rd.PLAYER_COLORS[(code - FIRST_ANIMAL) // 3]), lrow.append(self.cell_char(code))
            fills.append(frow)
            labels.append(lrow)
        sign = self.signpost_cell(state.tiles)
        if state.board[sign] == EMPTY:
            labels[sign // self.cols][sign % self.cols] = ">"
        hi = divmod(state.pos, self.cols) if state.empty else None
        board = rd.square_board(fills, labels, highlight=hi)
        return rd.stack_vertical([board, rd.text_panel(self.status_lines(state))])


def _int(x: Any) -> int:
    """An exact int from JSON (bools and floats refused)."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise ValueError(f"{x!r} is not an integer")
    return x
