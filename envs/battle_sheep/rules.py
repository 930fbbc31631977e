"""Battle Sheep rule engine: pasture building, stack placement, split-and-slide moves, scoring.

Pure rules over a mutable :class:`SheepState`; no PettingZoo inside. The pasture lies on a hexagonal canvas
whose frame follows it: after every tile placement the pasture is translated so that its smallest enclosing
hexagon is centred (RULES.md, "The frame"; radius per player count and the smallest allowed: "Canvas size").
Cells are indexed as in :class:`HexGrid`.
"""

from __future__ import annotations

import functools
import itertools
import textwrap
from array import array
from typing import Any

import numpy as np

from envs.battle_sheep import kernels
from envs.battle_sheep.actions import MAX_MOVE, MOVE_RE, STACK_RE, TILE_RE, ActionCodec
from envs.common.game import (
    TERMINAL,
    CellGraph,
    ConfigError,
    Game,
    IllegalActionError,
    SnapshotError,
    Symmetry,
    check_int_range,
    pairwise_rewards,
)
from envs.common.hexgrid import DIRECTION_NAMES, DIRECTIONS, HexGrid, enclosing_hexagon, hexagon_around, transforms
from envs.common.options import Option, OptionTable

BUILD, PLACE, MOVE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("build", "place", "move", "over")
NO_PASTURE, EMPTY = -2, -1
"""``cells[i]``: NO_PASTURE, EMPTY (pasture without sheep) or the seat whose stack stands there."""

SHEEP_PER_PLAYER = 16
TILES_PER_PLAYER = 4
DEFAULT_CANVAS_RADIUS = {2: 11, 3: 13, 4: 15}
"""The smallest canvases on which random builds lose no placement to the edge in at least 99.9% of games (RULES.md)."""
MIN_CANVAS_RADIUS = {2: 6, 3: 7, 4: 7}
"""The smallest canvas per player count: the smallest radius on which ``python -m
envs.battle_sheep.stuck_search`` found no build of that player count stuck (a player to place a tile and no room
for it), plus one as a margin, since no proof covers it (RULES.md, "Canvas size")."""
MAX_CANVAS_RADIUS = 16
SEAT_LETTERS = "ABCD"
NUM_DERIVED_PLANES = 9
"""Observation planes derived from the others (RULES.md): free neighbours, slide destinations per direction,
where the observer / the others can slide to."""

OPTIONS = OptionTable(
    Option("num_players", int, 2, "Players, in clockwise turn order.", low=2, high=4, label="players"),
    Option(
        "pasture",
        str,
        "build",
        '"build": the players build the pasture from their 4 tiles each (the rulebook); "random": the env lays '
        "a legal random pasture from the same tiles (seeded) and the game starts with stack placement.",
        choices=("build", "random"),
    ),
    Option(
        "end_rule",
        str,
        "battle_sheep",
        '"battle_sheep": blocked players are skipped, the game ends when nobody can move, most pastures wins '
        '(tie: largest herd; still tied: draw); "splits" (2 players only): the first player unable to move loses.',
        choices=("battle_sheep", "splits"),
        label="end rule",
    ),
    Option(
        "canvas_radius",
        int,
        None,
        "Radius of the hexagonal canvas the pasture is built on, at least 6, 7, 7 for 2, 3, 4 players; its frame "
        "follows the pasture (RULES.md, 'Canvas size').",
        low=min(MIN_CANVAS_RADIUS.values()),
        high=MAX_CANVAS_RADIUS,
        default_text="11, 13, 15 for 2, 3, 4 players",
        in_form=False,
    ),
)
"""Battle Sheep's options (:mod:`envs.common.options`): what the engine checks, the docs and the forms show."""

_KERNELS_LOADED = False


def _load_kernels(game: BattleSheepGame) -> None:
    """Compile (first run) or load from numba's cache the observation and mask kernels once per process, when the
    first game is built, so that a game's first step is not the one that waits for them."""
    global _KERNELS_LOADED
    if not _KERNELS_LOADED:
        state = SheepState(game.num_players, game.grid.num_cells)
        game.observation(state, 0)
        game.legal_mask(state)
        game.outer_border(state)
        _KERNELS_LOADED = True


@functools.lru_cache(maxsize=4096)
def _hexagon_centre(extent: tuple[int, int, int, int, int, int]) -> tuple[int, int]:
    """The centre of :func:`hexagon_around` an extent (the same few extents recur in every build: kept)."""
    return hexagon_around(*extent)[0]


_SYMMETRIES: dict[tuple[int, int], tuple[Symmetry, ...]] = {}
"""``BattleSheepGame.symmetries`` per (num_players, canvas_radius), built on first use."""


class SheepState:
    """A Battle Sheep position. Mutable; copy with :meth:`clone`.

    ``cells`` and ``heights`` are ``array('b')`` (signed bytes): they read and write like lists of
    ints, and the compiled observation and mask (``kernels.py``) see them as numpy arrays without a copy.
    """

    __slots__ = (
        "phase",
        "to_move",
        "cells",
        "heights",
        "stacks",
        "tiles_left",
        "stacks_placed",
        "can_move",
        "num_pasture",
        "pasture",
        "extent",
        "plies",
        "last_action",
        "border",
        "tile_blocked",
        "tile_touch",
        "_moves",
        "_views",
    )

    def __init__(self, num_players: int, num_cells: int):
        self.phase = BUILD
        self.to_move = 0
        self.cells = array("b", [NO_PASTURE]) * num_cells
        self.heights = array("b", [0]) * num_cells
        self.stacks: list[list[int]] = [[] for _ in range(num_players)]
        """Cells occupied by each seat, in the order they were first occupied."""
        self.tiles_left = [TILES_PER_PLAYER] * num_players
        self.stacks_placed = 0
        self.can_move = [True] * num_players
        """False once a seat has no legal move: cells only ever fill up, so it never moves again."""
        self.num_pasture = 0
        self.pasture: list[int] = []
        """The pasture's cells (any order; kept for re-centring the frame during the build)."""
        self.extent: tuple[int, int, int, int, int, int] | None = None
        """While building: the pasture's (min q, max q, min r, max r, min s, max s), None if not known."""
        self.plies = 0
        self.last_action = -1
        self.border: tuple[int, ...] = ()
        """Pasture cells on the outside border (set once the pasture is complete)."""
        self.tile_blocked: np.ndarray | None = None
        self.tile_touch: np.ndarray | None = None
        """While building, per on-canvas tile: overlaps the pasture / shares an edge with it (kept up to date
        by each placement, dropped after the build phase)."""
        self._moves: list[tuple[int, int, int, int]] | None = None
        """Cache of the mover's legal moves ``(cell, direction, destination, max_count)``."""
        self._views: tuple[np.ndarray, np.ndarray] | None = None
        """numpy views of ``cells`` and ``heights`` for the compiled kernels (:func:`arrays_of`)."""

    def clone(self) -> SheepState:
        other = SheepState.__new__(SheepState)
        other.phase = self.phase
        other.to_move = self.to_move
        other.cells = self.cells[:]
        other.heights = self.heights[:]
        other.stacks = [s[:] for s in self.stacks]
        other.tiles_left = self.tiles_left[:]
        other.stacks_placed = self.stacks_placed
        other.can_move = self.can_move[:]
        other.num_pasture = self.num_pasture
        other.pasture = self.pasture[:]
        other.extent = self.extent
        other.plies = self.plies
        other.last_action = self.last_action
        other.border = self.border
        other.tile_blocked = None if self.tile_blocked is None else self.tile_blocked.copy()
        other.tile_touch = None if self.tile_touch is None else self.tile_touch.copy()
        other._moves = self._moves
        other._views = None
        return other


def arrays_of(state: SheepState) -> tuple[np.ndarray, np.ndarray]:
    """``state.cells`` and ``state.heights`` as int8 numpy arrays sharing their memory (for the compiled kernels),
    kept on the state: made again only when those arrays were replaced (or the state was copied or unpickled,
    which copies the views apart from the arrays)."""
    views = state._views
    if views is not None:
        cells, heights = views[0].base, views[1].base
        if cells is not None and heights is not None and cells.obj is state.cells and heights.obj is state.heights:
            return views
    views = state._views = (np.frombuffer(state.cells, dtype=np.int8), np.frombuffer(state.heights, dtype=np.int8))
    return views


def tile_geometry(grid: HexGrid) -> tuple[list[tuple[int, ...] | None], np.ndarray, np.ndarray, np.ndarray]:
    """The tiles of a hex grid: ``(tile_cells, tile_ids, tile_table, tile_ring)``.

    ``tile_cells[3a + o]``: the 4 cells of the tile with anchor ``a`` and orientation ``o``, or None where it
    leaves the grid; ``tile_ids``: the ids of the tiles on the grid; ``tile_table[m]`` / ``tile_ring[m]``: the
    cells of tile ``tile_ids[m]`` / the (up to 10) cells around it, padded with the sentinel ``num_cells``
    (never pasture), for vectorised legality checks.
    """
    n = grid.num_cells
    tile_cells: list[tuple[int, ...] | None] = []
    for a in range(n):
        for o in range(3):
            cells = [a if d is None else int(grid.neighbors[a, d]) for d in (None, o, (o - 1) % 6, (o + 1) % 6)]
            tile_cells.append(tuple(cells) if min(cells) >= 0 else None)
    tile_ids = np.array([i for i, t in enumerate(tile_cells) if t is not None], dtype=np.int64)
    tile_table = np.array([tile_cells[a] for a in tile_ids], dtype=np.int64)
    rings = []
    for a in tile_ids:
        inside = set(tile_cells[a])
        around = sorted({j for c in inside for j in grid.neighbor_lists[c]} - inside)
        rings.append(around + [n] * (10 - len(around)))
    return tile_cells, tile_ids, tile_table, np.array(rings, dtype=np.int64)


class BattleSheepGame(Game[SheepState]):
    """Battle Sheep for 2-4 players. Options: num_players, pasture, end_rule, canvas_radius."""

    name = "battle_sheep"
    observation_dtype = np.float32
    min_canvas_radius: dict[int, int] = MIN_CANVAS_RADIUS
    """Smallest accepted canvas radius per player count (a subclass may lower it to study refused sizes)."""

    def __init__(
        self,
        num_players: int = 2,
        pasture: str = "build",
        end_rule: str = "battle_sheep",
        canvas_radius: int | None = None,
    ):
        self.num_players = OPTIONS["num_players"].check(num_players)
        OPTIONS["pasture"].check(pasture)
        OPTIONS["end_rule"].check(end_rule)
        if end_rule == "splits" and self.num_players != 2:
            raise ConfigError("end_rule='splits' is the original 2-player game; it needs num_players=2")
        self.pasture_mode = pasture
        self.end_rule = end_rule
        if canvas_radius is None:
            canvas_radius = DEFAULT_CANVAS_RADIUS[self.num_players]
        smallest = self.min_canvas_radius[self.num_players]
        if (
            isinstance(canvas_radius, (int, np.integer))
            and not isinstance(canvas_radius, bool)
            and canvas_radius < smallest
        ):
            raise ConfigError(
                f"canvas_radius={canvas_radius!r} is too small for {self.num_players} players: a build could get "
                f"stuck with no room for a tile; allowed: an integer from {smallest} to {MAX_CANVAS_RADIUS} "
                "(RULES.md, 'Canvas size')"
            )
        # the table's range, narrowed to the smallest canvas of this player count
        self.canvas_radius = check_int_range("canvas_radius", canvas_radius, smallest, OPTIONS["canvas_radius"].high)
        self.grid = grid = HexGrid(self.canvas_radius)
        n = grid.num_cells
        self.center = grid.index[(0, 0)]
        self.codec = ActionCodec(n)
        self.num_actions = self.codec.num_actions
        self.tile_cells, self.tile_ids, self.tile_table, self.tile_ring = tile_geometry(grid)
        self.tile_on_canvas = np.array([t is not None for t in self.tile_cells])
        in_tile = [[] for _ in range(n + 1)]
        in_ring = [[] for _ in range(n + 1)]
        for m, (cells, ring) in enumerate(zip(self.tile_table, self.tile_ring)):
            for c in cells:
                in_tile[c].append(m)
            for c in ring:
                in_ring[c].append(m)
        self.tiles_covering = [np.array(t, dtype=np.int64) for t in in_tile]
        self.tiles_around = [np.array(t, dtype=np.int64) for t in in_ring]
        """Per cell, the on-canvas tiles that contain it / that it borders (for incremental tile legality)."""
        self.total_tiles = TILES_PER_PLAYER * self.num_players
        self.num_channels = 6 + 3 * self.num_players + NUM_DERIVED_PLANES
        self.observation_shape = (self.num_channels, *grid.square_shape)
        # moves: each turn at least one sheep lands on a new pasture cell
        self.max_game_length = self.total_tiles + self.num_players + SHEEP_PER_PLAYER * self.num_players
        self._all_zero_mask = np.zeros(self.num_actions, dtype=np.int8)
        self._obs_template = np.zeros((self.num_channels, grid.square_shape[0] * grid.square_shape[1]), np.float32)
        self._obs_template[0, grid.square_index] = 1.0
        self.tables = kernels.GridTables(grid, self.tile_cells)
        """The canvas's tables for the compiled kernels (observation, mask, batched engine)."""
        self._no_border = np.zeros(n, dtype=np.bool_)
        self._tile_extents: dict[int, tuple[int, int, int, int, int, int]] = {}
        self._shifts: dict[tuple[int, int], list[int | None]] = {}
        self._border_mask: tuple[tuple[int, ...], np.ndarray] = ((), self._no_border)
        """The last stack-placement border and its per-cell mask, for :meth:`legal_mask`."""
        self._obs_planes = (self.num_channels, grid.square_shape[0] * grid.square_shape[1])
        self._tiles_left_arrays = {
            key: np.array(key, dtype=np.int8)
            for key in itertools.product(range(TILES_PER_PLAYER + 1), repeat=self.num_players)
        }
        """Every tiles-left count as the int8 array the observation kernel reads (made once, not per observation)."""
        self._code = np.zeros(n, dtype=np.int8)
        self._liberties = np.zeros(n, dtype=np.int64)
        self._near = np.zeros(n, dtype=np.int64)
        _load_kernels(self)

    def options(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "pasture": self.pasture_mode,
            "end_rule": self.end_rule,
            "canvas_radius": self.canvas_radius,
        }

    # ----- set-up ---------------------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator) -> SheepState:
        state = SheepState(self.num_players, self.grid.num_cells)
        if self.pasture_mode == "random":
            # The same tiles as in the rulebook, placed by uniform random legal placements.
            while state.phase == BUILD:
                legal = self.legal_actions(state)
                self.apply(state, legal[int(rng.integers(len(legal)))], rng)
            state.plies = 0
            state.last_action = -1
        return state

    def clone(self, state: SheepState) -> SheepState:
        return state.clone()

    def current_player(self, state: SheepState) -> int:
        return TERMINAL if state.phase == OVER else state.to_move

    # ----- legal actions ------------------------------------------------------------------------------
    def legal_tiles(self, state: SheepState) -> np.ndarray:
        """Boolean vector over tile actions: on canvas, no overlap, sharing an edge with the pasture."""
        ok = np.zeros(len(self.tile_cells), dtype=bool)
        if state.num_pasture == 0:
            ok[self.center * 3 : self.center * 3 + 3] = self.tile_on_canvas[self.center * 3 : self.center * 3 + 3]
            return ok
        if state.tile_blocked is None:
            self._init_tile_arrays(state)
        ok[self.tile_ids[state.tile_touch & ~state.tile_blocked]] = True
        return ok

    def _init_tile_arrays(self, state: SheepState) -> None:
        """Build the incremental tile-legality arrays from scratch (new game, or a state read from JSON/text)."""
        if state.num_pasture == 0:
            state.tile_blocked = np.zeros(len(self.tile_ids), dtype=bool)
            state.tile_touch = np.zeros(len(self.tile_ids), dtype=bool)
            return
        state.tile_blocked = np.zeros(len(self.tile_ids), dtype=bool)
        state.tile_touch = np.zeros(len(self.tile_ids), dtype=bool)
        state.tile_blocked[np.concatenate([self.tiles_covering[c] for c in state.pasture])] = True
        state.tile_touch[np.concatenate([self.tiles_around[c] for c in state.pasture])] = True

    def outer_border(self, state: SheepState) -> tuple[int, ...]:
        """Pasture cells touching the unbounded exterior (not only an interior hole): ``HexGrid.outer_border`` of
        the pasture, computed by a compiled flood fill (``kernels.outer_border``, tested equal)."""
        n = self.grid.num_cells
        border = np.empty(n, dtype=np.bool_)
        kernels.outer_border(
            arrays_of(state)[0], self.tables.nbr, np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64), border
        )
        return tuple(np.flatnonzero(border).tolist())

    def legal_stack_cells(self, state: SheepState) -> list[int]:
        """Unoccupied pasture cells on the outside border."""
        cells = state.cells
        return [i for i in state.border if cells[i] == EMPTY]

    def _tile_ok(self, state: SheepState, action: int) -> bool:
        """One tile placement's legality (same rule as :meth:`legal_tiles`, without the full vector)."""
        tile = self.tile_cells[action]
        if tile is None:
            return False
        cells = state.cells
        if state.num_pasture == 0:
            return tile[0] == self.center
        for c in tile:
            if cells[c] != NO_PASTURE:
                return False
        nbrs = self.grid.neighbor_lists
        for c in tile:
            for j in nbrs[c]:
                if cells[j] != NO_PASTURE:
                    return True
        return False

    def legal_moves(self, state: SheepState, seat: int | None = None) -> list[tuple[int, int, int, int]]:
        """Moves of ``seat`` (default: the mover) as ``(cell, direction, destination, max_count)``."""
        if seat is None or seat == state.to_move:
            if state._moves is None:
                state._moves = self._compute_moves(state, state.to_move)
            return state._moves
        return self._compute_moves(state, seat)

    def _compute_moves(self, state: SheepState, seat: int) -> list[tuple[int, int, int, int]]:
        cells, heights, rays = state.cells, state.heights, self.grid.rays
        out = []
        for c in state.stacks[seat]:
            h = heights[c]
            if h < 2:
                continue
            for d, ray in enumerate(rays[c]):
                dest = -1
                for j in ray:
                    if cells[j] != EMPTY:
                        break
                    dest = j
                if dest >= 0:
                    out.append((c, d, dest, h - 1))
        return out

    def legal_mask(self, state: SheepState) -> np.ndarray:
        """The mover's int8 mask, built by a compiled kernel (``kernels.legal_mask_into``); the readable
        definition is :meth:`legal_mask_python`, and the tests check that both agree."""
        mask = np.empty(self.num_actions, dtype=np.int8)
        on_border = self._no_border
        if state.phase == PLACE:
            border, on_border = self._border_mask
            if state.border is not border and state.border != border:
                on_border = np.zeros(self.grid.num_cells, dtype=np.bool_)
                on_border[list(state.border)] = True
                self._border_mask = (state.border, on_border)
        t = self.tables
        cells, heights = arrays_of(state)
        kernels.legal_mask_into(
            cells,
            heights,
            state.phase,
            state.to_move,
            state.num_pasture,
            on_border,
            t.all_cells,
            t.num_cells,
            t.tiles,
            t.cell_tiles,
            t.nbr,
            t.centre,
            self._code,
            self._near,
            mask,
        )
        return mask

    def legal_mask_python(self, state: SheepState) -> np.ndarray:
        """The mover's int8 mask: tiles from :meth:`legal_tiles`, stacks on the free outer border, and every count
        of every move of :meth:`legal_moves`."""
        if state.phase == OVER:
            return self._all_zero_mask.copy()
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if state.phase == BUILD:
            mask[: self.codec.stack_base] = self.legal_tiles(state)
        elif state.phase == PLACE:
            mask[[self.codec.stack_base + c for c in self.legal_stack_cells(state)]] = 1
        else:
            base = self.codec.move_base
            for c, d, _, k in self.legal_moves(state):
                start = base + (c * 6 + d) * MAX_MOVE
                mask[start : start + k] = 1
        return mask

    def legal_actions(self, state: SheepState) -> list[int]:
        if state.phase == MOVE:
            base = self.codec.move_base
            out = []
            # ascending ids: the moves come in stack order; (cell, direction) order is id order
            for c, d, _, k in sorted(self.legal_moves(state)):
                start = base + (c * 6 + d) * MAX_MOVE
                out.extend(range(start, start + k))
            return out
        if state.phase == BUILD:
            return np.flatnonzero(self.legal_tiles(state)).tolist()
        if state.phase == PLACE:
            return [self.codec.stack_base + c for c in self.legal_stack_cells(state)]
        return []

    # ----- applying actions -----------------------------------------------------------------------
    def apply(self, state: SheepState, action: int, rng: np.random.Generator | None = None) -> None:
        if type(action) is not int or not 0 <= action < self.num_actions:
            action = self.check_action_range(action)
        if state.phase == OVER:
            raise IllegalActionError(f"action {action}: the game is over")
        kind, a, b, k = self.codec.decode(action)
        seat = state.to_move
        if state.phase == BUILD:
            if kind != "tile":
                raise IllegalActionError(f"action {action} ({kind}): pasture building needs a tile placement")
            if not self._tile_ok(state, action):
                raise IllegalActionError(
                    f"action {action} ({self._describe(action)}): the tile must lie on the canvas, overlap no "
                    "pasture and share an edge with it (the first tile covers the centre)"
                )
            tile = self.tile_cells[action]
            for c in tile:
                state.cells[c] = EMPTY
                state.pasture.append(c)
            if state.tile_blocked is not None:  # kept up to date once legal_tiles has built them
                for c in tile:
                    state.tile_blocked[self.tiles_covering[c]] = True
                    state.tile_touch[self.tiles_around[c]] = True
            if state.extent is not None:
                q0, q1, r0, r1, s0, s1 = self._tile_extent(action)
                e = state.extent
                state.extent = (
                    min(e[0], q0),
                    max(e[1], q1),
                    min(e[2], r0),
                    max(e[3], r1),
                    min(e[4], s0),
                    max(e[5], s1),
                )
            state.num_pasture += 4
            state.tiles_left[seat] -= 1
            self._recentre(state)
            if state.num_pasture == 4 * self.total_tiles:
                state.phase = PLACE
                state.border = self.outer_border(state)
                state.tile_blocked = state.tile_touch = None
                state.to_move = 0
            else:
                state.to_move = (seat + 1) % self.num_players
        elif state.phase == PLACE:
            if kind != "stack" or a not in self.legal_stack_cells(state):
                raise IllegalActionError(
                    f"action {action} ({self._describe(action)}): the stack goes on an unoccupied pasture on "
                    "the outside border"
                )
            state.cells[a] = seat
            state.heights[a] = SHEEP_PER_PLAYER
            state.stacks[seat].append(a)
            state.stacks_placed += 1
            if state.stacks_placed == self.num_players:
                state.phase = MOVE
                state.to_move = -1
                self._advance_mover(state, first=0)
            else:
                state.to_move = seat + 1
        else:
            if kind != "move":
                raise IllegalActionError(f"action {action} ({kind}): in the move phase only moves are legal")
            c, d = a, b
            dest = self.slide(state, c, d)
            if state.cells[c] != seat or state.heights[c] < 2 or dest < 0:
                raise IllegalActionError(
                    f"action {action} ({self._describe(action)}): no stack of {SEAT_LETTERS[seat]} that can split "
                    "there, or the first cell in that direction is blocked"
                )
            max_k = state.heights[c] - 1
            if k > max_k:
                raise IllegalActionError(
                    f"action {action} ({self._describe(action)}): at most {max_k} sheep can leave that stack "
                    "(one must stay)"
                )
            state.heights[c] -= k
            state.cells[dest] = seat
            state.heights[dest] = k
            state.stacks[seat].append(dest)
            self._advance_mover(state, first=seat + 1)
        state.plies += 1
        state.last_action = action
        state._moves = None

    def extent(self, cells: list[int]) -> tuple[int, int, int, int, int, int]:
        """(min q, max q, min r, max r, min s, max s) of some cells (non-empty)."""
        coords = self.grid.coords
        qs = [coords[c][0] for c in cells]
        rs = [coords[c][1] for c in cells]
        ss = [-coords[c][0] - coords[c][1] for c in cells]
        return min(qs), max(qs), min(rs), max(rs), min(ss), max(ss)

    def _tile_extent(self, action: int) -> tuple[int, int, int, int, int, int]:
        """:meth:`extent` of tile ``action``'s cells (computed once per tile)."""
        extent = self._tile_extents.get(action)
        if extent is None:
            extent = self._tile_extents[action] = self.extent(self.tile_cells[action])
        return extent

    def frame_shift(self, pasture: list[int]) -> tuple[int, int]:
        """The translation ``(dq, dr)`` that puts the centre of the pasture's smallest enclosing hexagon (with
        :func:`enclosing_hexagon`'s tie-break) on the canvas centre; ``(0, 0)`` when it is there already."""
        (cq, cr), _ = hexagon_around(*self.extent(pasture))
        return -cq, -cr

    def _recentre(self, state: SheepState) -> None:
        """Translate the pasture so that its enclosing hexagon is centred (RULES.md, "The frame"). A translation
        keeps every adjacency; the pasture still fits, as it fitted where it was and the centred hexagon is
        the smallest one."""
        if state.extent is None:
            state.extent = self.extent(state.pasture)
        cq, cr = _hexagon_centre(state.extent)
        if cq == 0 and cr == 0:
            return
        dq, dr = -cq, -cr
        q0, q1, r0, r1, s0, s1 = state.extent
        state.extent = (q0 + dq, q1 + dq, r0 + dr, r1 + dr, s0 - dq - dr, s1 - dq - dr)
        shift = self._shifts.get((dq, dr))
        if shift is None:  # where each cell goes under this translation (None: off the canvas), made once
            index, coords = self.grid.index, self.grid.coords
            shift = self._shifts[(dq, dr)] = [index.get((q + dq, r + dr)) for q, r in coords]
        cells = state.cells
        moved = [shift[c] for c in state.pasture]
        for c in state.pasture:
            cells[c] = NO_PASTURE
        for c in moved:
            cells[c] = EMPTY
        state.pasture = moved
        state.tile_blocked = state.tile_touch = None  # rebuilt from the moved pasture when next needed

    def _advance_mover(self, state: SheepState, first: int) -> None:
        """Next mover from seat ``first`` clockwise, skipping seats that cannot move; end if nobody can."""
        n = self.num_players
        state._moves = None
        if self.end_rule == "splits":
            seat = first % n
            state.to_move = seat
            if not self.has_move(state, seat):
                state.can_move[seat] = False
                state.phase = OVER
            return
        for step in range(n):
            seat = (first + step) % n
            if not state.can_move[seat]:
                continue
            if self.has_move(state, seat):
                state.to_move = seat
                return
            state.can_move[seat] = False
        state.phase = OVER

    def has_move(self, state: SheepState, seat: int) -> bool:
        """Whether ``seat`` can move: one of its stacks has 2 sheep or more and a free pasture next to it."""
        cells, heights, nbrs = state.cells, state.heights, self.grid.neighbor_lists
        for c in state.stacks[seat]:
            if heights[c] >= 2:
                for j in nbrs[c]:
                    if cells[j] == EMPTY:
                        return True
        return False

    def slide(self, state: SheepState, cell: int, direction: int) -> int:
        """Where sheep leaving ``cell`` in ``direction`` stop (the last free pasture before another stack, a
        non-pasture cell or the canvas edge); -1 if the first cell that way is not free."""
        cells = state.cells
        dest = -1
        for j in self.grid.rays[cell][direction]:
            if cells[j] != EMPTY:
                break
            dest = j
        return dest

    # ----- scoring --------------------------------------------------------------------------------
    def largest_herd(self, state: SheepState, seat: int) -> int:
        """Size of the seat's largest group of occupied pastures on adjacent cells, counted by a compiled flood
        fill (``kernels.largest_herd``); the readable definition is :meth:`largest_herd_python`, tested equal."""
        n = self.grid.num_cells
        return int(
            kernels.largest_herd(
                arrays_of(state)[0], self.tables.nbr, seat, np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64)
            )
        )

    def largest_herd_python(self, state: SheepState, seat: int) -> int:
        """Size of the seat's largest group of occupied pastures on adjacent cells."""
        mine = [c == seat for c in state.cells]
        comps = self.grid.components(mine, state.stacks[seat])
        return max((len(c) for c in comps), default=0)

    def rank_key(self, state: SheepState, seat: int) -> tuple[int, int]:
        """(pastures occupied, largest herd): the rulebook's winner and its tie-break, compared in order."""
        return (len(state.stacks[seat]), self.largest_herd(state, seat))

    def scores(self, state: SheepState) -> np.ndarray:
        """Pastures occupied per seat."""
        return np.array([len(s) for s in state.stacks], dtype=np.float64)

    def movable_sheep(self, state: SheepState, seat: int) -> int:
        """Sheep of ``seat`` that could still leave their pasture: all but one of every stack of two or more
        with a free neighbouring pasture."""
        cells, heights, nbrs = state.cells, state.heights, self.grid.neighbor_lists
        total = 0
        for c in state.stacks[seat]:
            if heights[c] >= 2 and any(cells[j] == EMPTY for j in nbrs[c]):
                total += heights[c] - 1
        return total

    def shaping_potential(self, state: SheepState) -> np.ndarray:
        """Pastures occupied + :meth:`movable_sheep` per seat: the pastures a seat could still reach at most.
        A split that strands sheep (a stack closed in, a single sheep sent off) lowers it at once, where the
        score shows the loss only when the seat runs out of moves."""
        return np.array(
            [len(state.stacks[s]) + self.movable_sheep(state, s) for s in range(self.num_players)], dtype=np.float64
        )

    def returns(self, state: SheepState) -> np.ndarray:
        if state.phase != OVER:
            return np.zeros(self.num_players)
        if self.end_rule == "splits":
            out = np.ones(2)
            out[state.to_move] = -1.0  # the player to move could not move: they lose
            return out
        return pairwise_rewards([self.rank_key(state, s) for s in range(self.num_players)])

    # ----- observation ------------------------------------------------------------------------------
    def observation(self, state: SheepState, seat: int) -> np.ndarray:
        """The planes of :meth:`observation_numpy`, built by a compiled kernel (``kernels.observe_into``); the tests
        check that both agree."""
        out = np.empty(self._obs_planes, dtype=np.float32)
        t = self.tables
        cells, heights = arrays_of(state)
        tiles_left = self._tiles_left_arrays.get(tuple(state.tiles_left))
        if tiles_left is None:
            tiles_left = np.array(state.tiles_left, dtype=np.int8)
        kernels.observe_into(
            cells,
            heights,
            tiles_left,
            state.phase,
            seat,
            self.num_players,
            t.all_cells,
            t.num_cells,
            t.square,
            t.canvas,
            t.nbr,
            self._liberties,
            out,
        )
        return out.reshape(self.observation_shape)

    def observation_numpy(self, state: SheepState, seat: int) -> np.ndarray:
        """Planes on the square embedding (see RULES.md), seats rotated so that ``seat`` comes first."""
        n = self.num_players
        obs = self._obs_template.copy()
        sq = self.grid.square_index
        cells = np.array(state.cells)
        obs[1, sq] = cells != NO_PASTURE
        obs[2, sq] = cells == EMPTY
        occ = cells >= 0
        if occ.any():
            where = sq[occ]
            rel = (cells[occ] - seat) % n
            obs[3 + rel, where] = 1.0
            obs[3 + n + rel, where] = np.array(state.heights)[occ] * (1.0 / SHEEP_PER_PLAYER)
        for s in range(n):
            if state.tiles_left[s]:
                obs[3 + 2 * n + (s - seat) % n] = state.tiles_left[s] / TILES_PER_PLAYER
        if state.phase != OVER:
            obs[3 + 3 * n + state.phase] = 1.0
        if state.phase != BUILD:
            self._derived_planes(state, seat, cells, obs[6 + 3 * n :])
        return obs.reshape(self.observation_shape)

    def _derived_planes(self, state: SheepState, seat: int, cells: np.ndarray, planes: np.ndarray) -> None:
        """Fill the derived planes (RULES.md): what a slide leads to, so that a network need not trace rays
        across the board before it can judge a move."""
        sq = self.grid.square_index
        free = np.append(cells == EMPTY, False)
        liberties = free[self.grid.neighbors_padded].sum(axis=1)
        pasture = cells != NO_PASTURE
        planes[0, sq[pasture]] = liberties[pasture] * (1.0 / 6.0)
        for s in range(self.num_players):
            moves = self.legal_moves(state, seat=s)
            if not moves:
                continue
            source, direction, dest, _ = np.array(moves, dtype=np.int64).T
            if s == seat:
                planes[1 + direction, sq[source]] = (1.0 + liberties[dest]) * (1.0 / 7.0)
                planes[7, sq[dest]] = 1.0
            else:
                planes[8, sq[dest]] = 1.0

    has_symmetries = True

    def symmetries(self, state: SheepState) -> tuple[Symmetry, ...]:
        """The 12 rotations and reflections of the canvas about its centre, in the move phase only.

        The rules are symmetric there (the canvas is a hexagon round the centre). The build phase is not (the
        first tile covers the centre in 3 orientations and the frame's tie-break is not symmetric, RULES.md);
        stack placement is, but averaging a policy over the symmetries in the set-up phases measured worse
        against greedy (RULES.md, "Symmetries").
        """
        if state.phase != MOVE:
            return ()
        key = (self.num_players, self.canvas_radius)
        if key not in _SYMMETRIES:  # shared by every engine of this shape: the harness builds one per game
            tile_by_cells = {frozenset(t): i for i, t in enumerate(self.tile_cells) if t is not None}
            _SYMMETRIES[key] = tuple(self._symmetry(t, tile_by_cells) for t in transforms("free"))
        return _SYMMETRIES[key]

    def _symmetry(self, point_map: Any, tile_by_cells: dict[frozenset[int], int]) -> Symmetry:
        grid, n, codec = self.grid, self.num_players, self.codec
        cell_map = np.array([grid.index[point_map(c)] for c in grid.coords], dtype=np.int64)
        dir_map = np.array([DIRECTIONS.index(point_map(DIRECTIONS[d])) for d in range(6)], dtype=np.int64)
        side = grid.square_shape[0] * grid.square_shape[1]
        square_map = np.arange(side)
        square_map[grid.square_index] = grid.square_index[cell_map]
        channel_map = np.arange(self.num_channels)
        first_direction_plane = 7 + 3 * n
        channel_map[first_direction_plane : first_direction_plane + 6] = first_direction_plane + dir_map
        source = np.empty(self.num_channels * side, dtype=np.int64)
        target = (channel_map[:, None] * side + square_map[None, :]).ravel()
        source[target] = np.arange(self.num_channels * side)
        actions = np.arange(self.num_actions)
        for i, t in enumerate(self.tile_cells):
            if t is not None:
                actions[i] = tile_by_cells[frozenset(int(cell_map[c]) for c in t)]
        actions[codec.stack_base : codec.move_base] = codec.stack_base + cell_map
        cell, direction, count = np.meshgrid(
            np.arange(grid.num_cells), np.arange(6), np.arange(1, MAX_MOVE + 1), indexing="ij"
        )
        actions[codec.move(cell, direction, count)] = codec.move(cell_map[cell], dir_map[direction], count)
        source.setflags(write=False)  # shared between engines (_SYMMETRIES)
        actions.setflags(write=False)
        return Symmetry(observation_source=source, actions=actions)

    def cell_graph(self) -> CellGraph:
        """The canvas cells on the square embedding with their six hex neighbours (E NE NW W SW SE). The support
        is the pasture (plane 1); in the build phase (plane ``3 + 3n``) also the canvas centre and every cell
        within two steps of the pasture: a legal tile touches the pasture, and its anchor (the action's cell) is
        next to each of its other three cells, so the anchor is at most two steps from a pasture hex (the first
        tile's anchor is the centre). Stack placements and moves start on pasture hexes."""
        grid = self.grid
        square = grid.square_index
        neighbours = np.full((grid.square_shape[0] * grid.square_shape[1], 6), -1, dtype=np.int64)
        neighbours[square] = np.where(grid.neighbors >= 0, square[np.maximum(grid.neighbors, 0)], -1)
        return CellGraph(
            neighbours=neighbours,
            cell_plane=1,
            grow_plane=3 + 3 * self.num_players,
            grow_steps=2,
            seed_cell=int(square[self.center]),
        )

    def action_layout(self) -> np.ndarray:
        """Per-cell layout of the codec: tiles ``3a + o`` on channels 0-2, stacks on channel 3, moves
        ``(6c + d) * 15 + k - 1`` on channels ``4 + 15d + k - 1``; cells as in the observation planes."""
        ids = np.arange(self.num_actions)
        cell = np.empty_like(ids)
        channel = np.empty_like(ids)
        tiles = ids < self.codec.stack_base
        cell[tiles], channel[tiles] = ids[tiles] // 3, ids[tiles] % 3
        stacks = (ids >= self.codec.stack_base) & (ids < self.codec.move_base)
        cell[stacks], channel[stacks] = ids[stacks] - self.codec.stack_base, 3
        moves = ids >= self.codec.move_base
        rest = ids[moves] - self.codec.move_base
        cell[moves], channel[moves] = rest // (6 * MAX_MOVE), 4 + rest % (6 * MAX_MOVE)
        return np.stack([self.grid.square_index[cell], channel], axis=1)

    # ----- notation ---------------------------------------------------------------------------------
    def _coord(self, cell: int) -> str:
        q, r = self.grid.coords[cell]
        return f"{q},{r}"

    def _describe(self, action: int) -> str:
        kind, a, b, k = self.codec.decode(action)
        if kind == "tile":
            return f"T {self._coord(a)}/{b}"
        if kind == "stack":
            return f"S {self._coord(a)}"
        return f"{self._coord(a)} {DIRECTION_NAMES[b]} {k}"

    def action_to_str(self, state: SheepState, action: int) -> str:
        return self._describe(self.check_action_range(action))

    def str_to_action(self, state: SheepState, text: str) -> int:
        t = text.strip()
        for regex, kind in ((TILE_RE, "tile"), (STACK_RE, "stack"), (MOVE_RE, "move")):
            m = regex.match(t)
            if not m:
                continue
            cell = self.grid.index.get((int(m.group(1)), int(m.group(2))))
            if cell is None:
                raise IllegalActionError(f"{text!r}: cell ({m.group(1)},{m.group(2)}) is off the canvas")
            if kind == "tile":
                return self.codec.tile(cell, int(m.group(3)))
            if kind == "stack":
                return self.codec.stack(cell)
            count = int(m.group(4))
            if not 1 <= count <= MAX_MOVE:
                raise IllegalActionError(f"{text!r}: a move takes 1 to {MAX_MOVE} sheep")
            return self.codec.move(cell, DIRECTION_NAMES.index(m.group(3).upper()), count)
        raise IllegalActionError(
            f"{text!r} is not Battle Sheep notation: 'T q,r/o' (tile), 'S q,r' (stack) or 'q,r DIR n' (move), "
            f"DIR one of {', '.join(DIRECTION_NAMES)}"
        )

    # ----- snapshots ------------------------------------------------------------------------------------
    def state_to_json(self, state: SheepState) -> dict[str, Any]:
        return {
            "phase": PHASE_NAMES[state.phase],
            "to_move": state.to_move,
            "cells": list(state.cells),
            "heights": list(state.heights),
            "stacks": [list(s) for s in state.stacks],
            "tiles_left": list(state.tiles_left),
            "stacks_placed": state.stacks_placed,
            "can_move": list(state.can_move),
            "plies": state.plies,
            "last_action": state.last_action,
        }

    def state_from_json(self, data: dict[str, Any]) -> SheepState:
        n, cells_n = self.num_players, self.grid.num_cells
        try:
            state = SheepState(n, cells_n)
            state.phase = PHASE_NAMES.index(data["phase"])
            state.to_move = int(data["to_move"])
            state.cells = array("b", [int(c) for c in data["cells"]])
            state.heights = array("b", [int(h) for h in data["heights"]])
            state.stacks = [[int(c) for c in s] for s in data["stacks"]]
            state.tiles_left = [int(t) for t in data["tiles_left"]]
            state.stacks_placed = int(data["stacks_placed"])
            state.can_move = [bool(b) for b in data["can_move"]]
            state.plies = int(data["plies"])
            state.last_action = int(data["last_action"])
        except (KeyError, TypeError, ValueError, OverflowError) as err:
            raise SnapshotError(f"damaged Battle Sheep state: {err!r}") from err
        if (
            len(state.cells) != cells_n
            or len(state.heights) != cells_n
            or len(state.stacks) != n
            or len(state.tiles_left) != n
            or len(state.can_move) != n
            or any(not NO_PASTURE <= c < n for c in state.cells)
            or any(state.cells[c] != s for s in range(n) for c in state.stacks[s])
        ):
            raise SnapshotError("damaged Battle Sheep state: sizes or cell owners do not fit these options")
        state.pasture = [i for i, c in enumerate(state.cells) if c != NO_PASTURE]
        state.num_pasture = len(state.pasture)
        if state.phase == BUILD and state.pasture and self.frame_shift(state.pasture) != (0, 0):
            raise SnapshotError(
                "damaged Battle Sheep state: during the build the pasture is centred on the canvas "
                "(RULES.md, 'The frame'); this one is not"
            )
        if state.phase != BUILD:
            state.border = self.outer_border(state)
        return state

    # ----- pictures -------------------------------------------------------------------------------------
    def render_ansi(self, state: SheepState) -> str:
        """The pasture as offset rows: '.' empty pasture, 'A16' a stack of seat A with 16 sheep."""
        grid = self.grid
        used = [i for i in range(grid.num_cells) if state.cells[i] != NO_PASTURE]
        header = self._status_line(state)
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

    def _status_line(self, state: SheepState) -> str:
        if state.phase == OVER:
            keys = [self.rank_key(state, s) for s in range(self.num_players)]
            parts = [f"{SEAT_LETTERS[s]}: {k[0]} pastures, herd {k[1]}" for s, k in enumerate(keys)]
            return "game over - " + "; ".join(parts)
        return f"{PHASE_NAMES[state.phase]} phase, {SEAT_LETTERS[state.to_move]} to move"

    def render_rgb(self, state: SheepState) -> np.ndarray:
        from envs.common.render import EMPTY as EMPTY_RGB
        from envs.common.render import GRASS, PLAYER_COLORS, hex_board, stack_vertical, text_panel

        used = [i for i in range(self.grid.num_cells) if state.cells[i] != NO_PASTURE]
        if not used:
            used = [self.center]
        fills, labels = [], []
        for i in used:
            c = state.cells[i]
            if c >= 0:
                fills.append(PLAYER_COLORS[c])
                labels.append(str(state.heights[i]))
            else:
                fills.append(GRASS if c == EMPTY else EMPTY_RGB)
                labels.append("")
        board = hex_board(self.grid, used, fills, labels, size=16.0)
        lines = self._status_line(state).replace(" - ", "\n").replace("; ", "\n").splitlines()
        return stack_vertical([text_panel(lines), board])


# ----- text boards for tests and examples -------------------------------------------------------------------
def board_from_text(game: BattleSheepGame, text: str, to_move: int = 0) -> SheepState:
    """A move-phase (or, if some seat has no stack yet, stack-placement-phase) state from a text board.

    Rows are lines; tokens are separated by spaces; odd rows are read as shifted half a cell to the right
    (odd-r offset layout), so indent them for readability. Tokens: ``.`` empty pasture, ``_`` no pasture,
    ``A16`` / ``b3`` a stack of seat A (0), B (1), ... with that many sheep. The board is centred on the canvas
    as the build phase centres a pasture (its smallest enclosing hexagon's centre, RULES.md "The frame").
    All tiles count as placed. ``to_move`` is the seat to act; the game ends at once if nobody can move.
    """
    entries = []
    for r, line in enumerate(ln for ln in textwrap.dedent(text).splitlines() if ln.strip()):
        for col, tok in enumerate(line.split()):
            q = col - (r - (r & 1)) // 2
            entries.append((q, r, tok))
    used = [(q, r) for q, r, t in entries if t != "_"]
    (cq, cr), _ = enclosing_hexagon(used)
    dq, dr = -cq, -cr
    state = SheepState(game.num_players, game.grid.num_cells)
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
    game._advance_mover(state, first=to_move)
    return state
