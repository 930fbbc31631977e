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
from envs.beasty_borders.actions import (
    EMPTY,
    FIRST_ANIMAL,
    LAKE,
    MARKER,
    RESPONDER_CHOICE,
    ROLLER_CHOICE,
    SIDE_NAMES,
    SIGNPOST_TILE,
    TILE_COLS,
    TILE_ROWS,
    TILES,
    ActionCodec,
    tile_lakes,
)
from envs.beasty_borders.kernels import add_to_groups, stale_spaces, victory_points
from envs.common.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    pairwise_rewards,
)
from envs.common.options import Option, OptionTable

VARIANTS = ("main", "without_luck")
PATH_ORDERS = ("typewriter", "snake")

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
        state = game.blank_state(list(range(game.num_tiles)))
        game.observation(state, 0)
        _KERNELS_LOADED = True


class BeastyBordersState:
    """A mutable Beasty Borders position. ``empty`` is derived (path ranks of the empty green spaces, sorted).

    The fields are those of the declaration (``kernels.STATE``) that the batched state shares; the class is written
    out rather than built on ``STATE.reference_base()``: ``board`` and ``row`` are numpy arrays (``row`` None in the
    main game), and a clone shares the tiles and the caches (``group_cache``, ``vp_cache``, ``space_cache``)."""

    __slots__ = (
        "tiles",
        "board",
        "pos",
        "roll",
        "roller",
        "phase",
        "choice",
        "remaining",
        "placed",
        "row",
        "empty",
        "group_cache",
        "space_cache",
        "vp_cache",
    )

    def __init__(self) -> None:
        self.tiles: list[int] = []
        """Tile id in each grid slot (row-major)."""
        self.board: np.ndarray = np.zeros(0, dtype=np.intp)
        """Cell codes (see the cell codes above): 0 empty green, 1 lake, 2 marker, 3 + 3 * seat + type an animal."""
        self.pos = 0
        """Cell of the steps-marker."""
        self.roll = 1
        """The die roll of the current turn (1..8)."""
        self.roller = 0
        self.phase = ROLLER_CHOICE
        self.choice = -1
        """Variant only: row index the roller pointed at this turn, -1 for a pass (or not chosen yet)."""
        self.remaining: list[list[int]] = []
        """remaining[seat][type]: figures still held (in the variant: still in the bidding row)."""
        self.placed: list[int] = [0, 0]
        """Animals each seat has placed on the landscape (first tie-break)."""
        self.row: np.ndarray | None = None
        """Variant only: float32 0/1 per bidding-row figure (1 = still in the row)."""
        self.empty: list[int] = []
        self.group_cache: tuple[list[int], list[int], list[int]] | None = None
        """(group id per cell, size and owner per group) of the landscape: built on demand
        (``kernels.landscape_groups``), then kept up to date by each placement; never mutated in place, so clones
        share it."""
        self.vp_cache: tuple[Any, list[int]] | None = None
        """(the group_cache it was counted from, victory points per seat): valid while that is still the
        state's group_cache (a placement replaces the group_cache, never mutates it)."""
        self.space_cache: tuple[np.ndarray, np.ndarray] | None = None
        """(per seat an entry per cell, valid flag per cell): observation.space_entry (what each space is worth,
        in the seat's order: mine, theirs, room), filled in on demand; a filling replaces both by copies with the
        rows it can change invalidated. Clones share it (they share the landscape: entries valid for one are valid
        for all)."""

    def clone(self) -> BeastyBordersState:
        """An independent copy."""
        s = BeastyBordersState.__new__(BeastyBordersState)
        s.tiles = self.tiles
        s.board = self.board.copy()
        s.pos = self.pos
        s.roll = self.roll
        s.roller = self.roller
        s.phase = self.phase
        s.choice = self.choice
        s.remaining = [self.remaining[0][:], self.remaining[1][:]]
        s.placed = self.placed[:]
        s.row = None if self.row is None else self.row.copy()
        s.empty = self.empty[:]
        s.group_cache = self.group_cache
        s.vp_cache = self.vp_cache
        s.space_cache = self.space_cache
        return s


class BeastyBordersGame(Game[BeastyBordersState]):
    """Beasty Borders for 2 players. Options (:data:`OPTIONS`: their defaults and allowed values): ``variant``,
    ``path_order``."""

    name = "beasty_borders"
    num_players = 2

    def __init__(self, **options: Any):
        """The game with ``options`` (:data:`OPTIONS`)."""
        o = OPTIONS.check(options, self.name)
        self.variant = variant = o["variant"]
        self.path_order = path_order = o["path_order"]
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
        self.layout_sizes = {"cells": self.cells, "tiles": self.num_tiles, "types": self.num_types}
        """The named sizes of the state's declaration (``kernels.STATE``): landscape cells, tile slots, animal types."""
        self.pass_action = act.MAIN_PASS if self.luck else act.VARIANT_PASS
        self.codec = ActionCodec(variant)
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
        view = self.views.observation  # the observation room (after the rules), through the descriptor
        self.layout = view.ObservationLayout(
            self.rows, self.cols, self.num_types, not self.luck, self.neighbours, self.path, self.rank
        )
        """The observation's offsets and geometry (``observation.ObservationLayout``)."""
        self.observation_shape = (self.layout.size,)
        self.view_tables = view.view_tables(self.layout)
        """The configuration's tables for the compiled observation (``observation.ViewTables``; the batched
        engine's too)."""
        self.view_tables_plain = tuple(self.view_tables)
        """:attr:`view_tables` as a plain tuple, what the observation kernel takes from Python
        (``observation.observe_position`` says why)."""
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
        self.letters = [act.SEAT_LETTERS[s][: self.num_types] for s in range(2)]
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
        state = self.blank_state(tiles)
        state.pos = self.signpost_cell(tiles)
        self._roll(state, rng)
        return state

    def blank_state(self, tiles: Sequence[int]) -> BeastyBordersState:
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
        name = act.figure_name(action)
        if act.ROW_OWNER[action] != seat:
            raise IllegalActionError(f"action {action} ({name}): that figure is not one of {who}'s animals")
        if not state.row[action]:
            raise IllegalActionError(f"action {action} ({name}): that figure has already left the bidding row")
        if state.phase == RESPONDER_CHOICE and action <= state.choice:
            raise IllegalActionError(
                f"action {action} ({name}): the responder must point at a higher value than the roller's "
                f"{act.figure_name(state.choice)}"
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

    # ----- notation ----------------------------------------------------------------------------------------
    def action_to_str(self, state: BeastyBordersState, action: int) -> str:
        return self.codec.to_str(state, action)

    def str_to_action(self, state: BeastyBordersState, text: str) -> int:
        """Parse notation; raises IllegalActionError for text that names no action of the player to move."""
        action = self.codec.parse(state, text)
        if action is None:
            raise IllegalActionError(f"{text!r} is not a move here")
        return action
